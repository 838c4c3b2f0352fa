"""random(): the CLI's random-draw experiment and its summary row."""

import ctypes
import math
import textwrap

from . import _core, _params, _result
from . import _lib as L

# The keywords: the library's parameters (_params.PARAMS, param.h) by their
# names, but d_k, which is the first argument dk; n sets n_q and n_k.
_KEYWORDS = {p.name: p.name for p in _params.PARAMS if p.name != "d_k"}
_NAMES = {"d_k": "dk"}  # library name -> this function's word for it


def _spec(dk, n, options):
    """The spec of random()'s arguments: the library's defaults
    (sv_spec_defaults), each argument set by sv_spec_set in the table's
    order (an implied flag before what implies it), resolved. Returns it
    and the scale's text (the CLI's --scale)."""
    spec = L.sv_spec()
    L.lib.sv_spec_defaults(ctypes.byref(spec))
    scale_name = _params.BY_NAME["scale"].default
    _params.set_value(spec, "d_k", dk, "dk")
    for name in ("n_q", "n_k"):
        _params.set_value(spec, name, n, "n")
    for p in _params.PARAMS:
        if p.name in options:
            text = _params.set_value(spec, p.name, options[p.name], p.name)
            if p.name == "scale":
                scale_name = text
    _params.resolve(spec, _NAMES)
    return spec, scale_name.encode("utf-8", "backslashreplace")


def _doc_keywords():
    """The keywords of random() with their defaults and choices, from the
    library's table, for its docstring."""
    words = []
    for p in _params.PARAMS:
        if p.name == "d_k":
            continue
        shown = p.name
        if p.name in ("n_q", "n_k"):
            shown += " (default n)"
        elif p.choices:
            shown += " (%s%s; default %s)" % (", ".join('"%s"' % c for c in p.choices),
                                              " or a positive number"
                                              if p.kind == _params.SCALE else "",
                                              '"%s"' % p.default)
        elif p.default is not None and p.kind != _params.FLAG:
            shown += " (%s)" % p.default
        words.append(shown)
    return ", ".join(words)


def random(dk=_params.default("d_k"), n=_params.default("n_q"), *, observed=None, threads=None,
           block_rows=None, **options):
    extra = set(options) - set(_KEYWORDS)
    if extra:
        raise TypeError("random: unknown option %s" % ", ".join(sorted(extra)))
    spec, scale_name = _spec(dk, n, options)
    exe = _core.exec_options(threads)
    if block_rows is not None:
        exe.block_rows = _core.integer(block_rows, "block_rows", 1)
    obs = math.nan
    if observed is not None:
        obs = float(observed)
        if not math.isfinite(obs):
            raise ValueError("observed: %r is not a finite number" % (observed,))
    src = ctypes.create_string_buffer(L.SOURCE_BYTES)
    st = L.lib.sv_source_draw(ctypes.byref(spec), src)
    if st != L.SV_OK:
        _core.fail(st, "spec")
    summ = L.sv_summary()
    opt = L.sv_run_options(chunk=_core.CHUNK, want=L.SV_RUN_ALL, observed=obs)
    st = _core.run(spec, src, exe, opt, summ)
    if st != L.SV_OK:
        _core.fail(st, "d_k=%d" % spec.d_k)
    return _result.summary_stats(spec, summ, scale_name, observed is not None)


random.__doc__ = """The CLI's random-draw experiment, one configuration: the summary row
    `sdpa-var --dk DK --n N ...` prints, column for column, the same numbers.

%s
    Returns Stats(kind="summary") whose values are scalars.
    """ % textwrap.fill(
    "Keywords mirror the CLI's options (sdpa-var --help), dashes as underscores, with "
    "the library's defaults (its parameter table, param.h): dk (%s), n (%s), %s; and "
    "observed, threads, block_rows. Flags take True or False, numbers ints or floats, "
    "names strings. A value the library refuses raises ValueError \"keyword: why\", "
    "an unknown keyword TypeError."
    % (_params.BY_NAME["d_k"].default, _params.BY_NAME["n_q"].default, _doc_keywords()),
    width=76, initial_indent="    ", subsequent_indent="    ")
