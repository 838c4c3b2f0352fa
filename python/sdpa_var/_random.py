"""random(): the CLI's random-draw experiment and its summary row."""

import ctypes
import math
import numbers

from . import _columns, _core, _result
from . import _lib as L

# keyword -> (sv_spec field, kind); kinds: count, real, flag. Defaults are
# the CLI's (src/cli/parse/option_table.h); a field left 0 resolves as the CLI's.
_FIELDS = {"trials": ("trials", "count"), "seed": ("seed", "count"),
           "ddof": ("ddof", "count"), "nu": ("nu", "real"),
           "q_mean": ("q_mean", "real"), "q_std": ("q_std", "real"),
           "k_mean": ("k_mean", "real"), "k_std": ("k_std", "real"),
           "qk_norm": ("qk_norm", "flag"), "qk_scale": ("qk_radius", "real"),
           "plant": ("plant", "real"), "d_model": ("d_model", "count"),
           "cross": ("cross", "flag"), "causal": ("causal", "flag"),
           "values": ("values", "flag"), "d_v": ("d_v", "count"), "grad": ("grad", "flag"),
           "window": ("window", "count")}
_DEFAULTS = {"trials": 1, "seed": 42, "ddof": 0, "nu": 6.0}
# spec field -> the keyword that sets it, for error messages
_NAMES = {"d_k": "dk", "n_q": "n_q", "n_k": "n_k", "qk_radius": "qk_scale", "scale_logn": "scale"}


def _scale(scale, d_k):
    """(spec.scale, scale_name) as the CLI's --scale: sqrt, dk, none or a number
    (logn: _logn once the options are known)."""
    if scale == "logn":
        return None, b"logn"
    if scale is None or scale == "sqrt":
        return 0.0, b"sqrt"
    if scale == "dk":
        return 1.0 / d_k, b"dk"
    if scale == "none":
        return 1.0, b"none"
    text = scale if isinstance(scale, str) else repr(scale)
    try:
        value = float(scale)
    except (TypeError, ValueError):
        raise ValueError("scale: %r is not sqrt, dk, none or a positive number" % (scale,)) \
            from None
    if isinstance(scale, bool) or not (math.isfinite(value) and value > 0):
        raise ValueError("scale: %r is not a positive finite number" % (scale,))
    return value, text.encode()


def _spec(dk, n, options):
    spec = L.sv_spec()
    spec.d_k = _core._count(dk, "dk", 1)
    n = _core._count(n, "n", 1)
    spec.n_q = _core._count(options.pop("n_q", n), "n_q", 1)
    spec.n_k = _core._count(options.pop("n_k", n), "n_k", 1)
    dist = options.pop("dist", "normal")
    if dist not in L.DISTS:
        raise ValueError("dist: %r is not one of %s" % (dist, ", ".join(L.DISTS)))
    spec.dist = L.DISTS[dist]
    init = options.pop("init", "xavier")
    if init not in L.INITS:
        raise ValueError("init: %r is not one of %s" % (init, ", ".join(L.INITS)))
    spec.init = L.INITS[init]
    scale, scale_name = _scale(options.pop("scale", None), spec.d_k)
    spec.scale = 0.0 if scale is None else scale
    for key, default in _DEFAULTS.items():
        options.setdefault(key, default)
    for key in list(options):
        if key not in _FIELDS:
            continue
        field, kind = _FIELDS[key]
        value = options.pop(key)
        if kind == "count":
            value = _core._count(value, key)
        elif kind == "real":
            if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                    or not math.isfinite(value):
                raise ValueError("%s: %r is not a finite number" % (key, value))
            value = float(value)
        else:
            value = 1 if value else 0
        setattr(spec, field, value)
    # implied options, as the CLI's: --qk-scale -> --qk-norm, --dv / --grad -> --values
    if spec.qk_radius:
        spec.qk_norm = 1
    if spec.d_v or spec.grad:
        spec.values = 1
    if scale is None:
        _logn(spec)
    return spec, scale_name


def _logn(spec):
    """scale="logn" as the CLI's --scale logn (docs/theory.md 15): one
    multiplier ln(n_k) / sqrt(d_k), or with causal or window row i's own
    c_i = ln(n_i) / sqrt(d_k), n_i the keys it sees (spec.scale_logn)."""
    if spec.n_k < 2:
        raise ValueError("scale: 'logn' needs n_k >= 2 (ln 1 = 0)")
    if spec.causal or spec.window:
        # what the per-row multipliers do not reach, as the CLI refuses it
        for bad, name in ((spec.grad, "grad"), (spec.values, "values"), (spec.plant, "plant"),
                          (spec.d_model and not spec.cross, "d_model without cross")):
            if bad:
                raise ValueError("scale: 'logn' with %s: not with %s (the per-row multipliers "
                                 "reach the softmax statistics only)"
                                 % ("causal" if spec.causal else "window", name))
        spec.scale_logn, spec.scale = 1, 0.0  # s = 1/sqrt(d_k), resolved
    else:
        spec.scale = math.log(spec.n_k) / math.sqrt(spec.d_k)


def random(dk=64, n=1111, *, observed=None, threads=None, block_rows=None, **options):
    """The CLI's random-draw experiment, one configuration: the summary row
    `sdpa-var --dk DK --n N ...` prints, column for column, the same numbers.

    Keywords mirror the CLI's options (sdpa-var --help), dashes as
    underscores: trials (1), seed (42), dist ("normal", "uniform",
    "rademacher", "t"), nu (6), ddof (0), scale ("sqrt", "dk", "none",
    "logn" or a positive number), n_q, n_k (default n), q_mean, q_std,
    k_mean, k_std, qk_norm, qk_scale, plant, d_model, init ("xavier",
    "lecun", "normal"), cross, causal, window, values, d_v, grad, observed,
    threads, block_rows.
    Returns Stats(kind="summary") whose values are scalars.
    """
    spec, scale_name = _spec(dk, n, dict(options))
    extra = set(options) - set(_FIELDS) - {"n_q", "n_k", "dist", "init", "scale"}
    if extra:
        raise TypeError("random: unknown option %s" % ", ".join(sorted(extra)))
    exe = _core._exec(threads)
    if block_rows is not None:
        exe.block_rows = _core._count(block_rows, "block_rows", 1)
    names = dict(_NAMES)
    names.update({f: k for k, (f, _) in _FIELDS.items()})
    _core._check_spec(spec, names)
    obs = math.nan
    if observed is not None:
        obs = float(observed)
        if not math.isfinite(obs):
            raise ValueError("observed: %r is not a finite number" % (observed,))
    src = ctypes.create_string_buffer(L.SOURCE_BYTES)
    st = L.lib.sv_source_draw(ctypes.byref(spec), src)
    if st != L.SV_OK:
        _core._fail(st, "spec")
    acc = L.sv_summary_acc()
    st = L.lib.sv_summary_begin(ctypes.byref(spec), ctypes.byref(acc))
    if st != L.SV_OK:
        _core._fail(st, "spec")
    chunk = min(spec.trials, _core._CHUNK)
    buf = (L.sv_trial_stats * chunk)()
    for t0 in range(0, spec.trials, chunk):
        n_t = min(chunk, spec.trials - t0)
        st = _core._engine(spec, src, exe, t0, n_t, buf)
        if st == L.SV_OK:
            st = L.lib.sv_summary_add(ctypes.byref(acc), buf, n_t)
        if st != L.SV_OK:
            L.lib.sv_summary_end(ctypes.byref(acc), math.nan, None)
            _core._fail(st, "d_k=%d" % spec.d_k)
    summ = L.sv_summary()
    st = L.lib.sv_summary_end(ctypes.byref(acc), obs, ctypes.byref(summ))
    if st != L.SV_OK:
        _core._fail(st, "d_k=%d" % spec.d_k)
    return summary_stats(spec, summ, scale_name, observed is not None)


def summary_stats(spec, summ, scale_name, observed):
    """The summary row of @p spec and its sv_summary @p summ as Stats, the
    columns the CLI writes (with observed: its columns too)."""
    view = L.sv_row_view()
    view.spec = ctypes.pointer(spec)
    view.scale_name = scale_name
    view.stats = ctypes.pointer(summ.mean)
    view.summary = ctypes.pointer(summ)
    values, units, config, order = {}, {}, {}, []
    for c in _columns.table(L.SV_OUTPUT_SUMMARY):
        if c.flags & L.SV_COLUMN_ONLY_OBSERVED and not observed:
            continue
        if c.flags & L.SV_COLUMN_ONLY_GRAD and not spec.grad:
            continue
        x = c.value(view)
        values[c.name], units[c.name] = x, c.unit
        order.append(c.name)
        if c.type == L.SV_VALUE_TEXT:
            config[c.name] = x
    bad = _first_undefined(view, observed)
    if bad:
        raise ValueError("d_k=%d: column %s is nan where it must be defined" % (spec.d_k, bad))
    return _result.make("summary", (), (), order, values, {}, config, units)


def _first_undefined(view, observed):
    f = L.lib.sv_columns_first_undefined
    f.restype = ctypes.POINTER(L.sv_column)
    f.argtypes = [ctypes.c_int, ctypes.POINTER(L.sv_row_view), ctypes.c_int]
    c = f(L.SV_OUTPUT_SUMMARY, ctypes.byref(view), 1 if observed else 0)
    return c.contents.name.decode() if c else None
