"""stats() on caller arrays and random() on the random draws, over the engine."""

import ctypes
import math
import numbers
import threading
import warnings

import numpy as np

from . import _arrays, _columns, _params, _result
from . import _lib as L

CHUNK = 65536  # trials per sv_engine_run call: bounds the stats array
THREADS_MAX = 1024  # as the CLI's --threads
POOLS = L.names(L.lib.sv_pool_name)  # heads, none, all


class NonFiniteError(ValueError):
    """A NaN or an infinity in q, k, v or a float mask (what stats() raises
    for it: a ValueError naming the argument and the index)."""


def fail(st, what):
    msg = "%s: %s" % (what, L.status_str(st))
    if st == L.SV_ENOMEM:
        raise MemoryError(msg)
    raise ValueError(msg)


def exec_options(threads):
    if threads is None:
        threads = 0
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError("threads: %r is not an integer thread count" % (threads,))
    # Bounded as the CLI's --threads, before any c_int conversion (2**32 + 1
    # would wrap to 1; 5000 OpenMP threads can take the process down).
    if not 0 <= threads <= THREADS_MAX:
        raise ValueError("threads: %r is outside 0..%d (0: OpenMP's default)"
                         % (threads, THREADS_MAX))
    e = L.sv_exec()
    e.threads = int(threads)
    return e


# Work (about trials x n_q x n_k x (d_k + d_v + 32) steps) below which an
# engine call runs in the calling thread (engine_run): such a call ends within
# ~5 ms here, so Ctrl-C waits no longer, while a worker thread costs
# ~0.2 ms a call, most of a small call (a 2 x 2 stats() takes ~0.25 ms).
_INLINE_WORK = 1 << 25


def _work(spec, count):
    per = spec.n_q * spec.n_k * (spec.d_k + spec.d_v + 32) + \
        (spec.n_q + spec.n_k) * spec.d_model * spec.d_k
    return count * per * (5 if spec.grad else 1)


def _omp_max_threads():
    """The calling thread's OpenMP default (omp_get_max_threads of the
    libgomp the engine links); 0, OpenMP's global default, without one."""
    f = getattr(L.lib, "omp_get_max_threads", None)
    return max(0, min(f(), THREADS_MAX)) if f is not None else 0


def run(spec, src, exe, opt, out=None):
    """sv_run(spec, src, exe, NULL, opt, out) (run.h: the run driver, the
    engine in chunks of opt.chunk trials into the summary *out), its
    status, stoppable by Ctrl-C. Python runs signal handlers in the main
    thread only, and only between bytecodes: a long foreign call would hold
    KeyboardInterrupt until it returns. So the call runs in a worker thread
    (ctypes releases the GIL) while the main thread waits in short joins;
    whatever the wait raises (KeyboardInterrupt, or a signal handler's
    exception) sets exe.cancel's flag, and the engine stops within one
    tile per thread (SV_ECANCELED, results discarded); the exception is
    re-raised once the worker is done with the caller's memory. Small calls
    and calls from other threads (no signal reaches them) run inline."""
    def call(how):
        return L.lib.sv_run(ctypes.byref(spec), src, ctypes.byref(how), None, ctypes.byref(opt),
                            None if out is None else ctypes.byref(out))

    if threading.current_thread() is not threading.main_thread() or \
            _work(spec, spec.trials) < _INLINE_WORK:
        return call(exe)
    flag = L.c_int(0)
    mine = L.sv_exec.from_buffer_copy(exe)
    mine.cancel = ctypes.pointer(flag)
    if mine.threads == 0:
        # OpenMP's default is per thread (torch.set_num_threads changes the
        # caller's): the worker, a new thread, would get the global one.
        mine.threads = _omp_max_threads()
    done = []
    # The worker releases `ended` when its call returns. The wait is on
    # this plain lock, not Thread.join: in Python 3.11 a join that Ctrl-C
    # interrupts releases the running thread's own lock (threading.py's
    # bpo-45274 clean-up sees it locked), so the thread looks ended while
    # the engine still reads the caller's arrays; an interrupted acquire
    # of a plain lock is simply not acquired.
    ended = threading.Lock()
    ended.acquire()

    def worker():
        try:
            done.append((call(mine), None))
        except BaseException as e:  # noqa: B902: handed to the caller unchanged
            done.append((None, e))
        finally:
            ended.release()

    t = threading.Thread(target=worker, name="sdpa_var engine", daemon=True)
    t.start()
    # `done` is filled before `ended` is released, and tested rather than
    # the acquire's result: an interrupt just after a successful acquire
    # must not wait for a release that already happened.
    try:
        while not done:
            ended.acquire(timeout=0.05)
    except BaseException:
        flag.value = 1
        while not done:
            try:
                ended.acquire(timeout=0.05)
            except KeyboardInterrupt:  # a second Ctrl-C: the stop is on its way
                pass
        raise
    finally:
        t.join()  # the call has returned: the thread only exits
    st, err = done[0]
    if err is not None:
        raise err
    return st


def integer(value, name, lo=0, hi=2**64 - 1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s: %r is not an integer" % (name, value))
    if not lo <= value <= hi:
        raise ValueError("%s: %d is outside %d..%d" % (name, value, lo, hi))
    return int(value)


def _row(spec, stats, scale_name, head=None, summary=None, masked=False):
    """The row view of a head (@p head) or the pooled row (@p summary, the
    summary of all trials, @p stats its mean), as the CLI's per-head rows:
    sv_head_row_make (run.h), theories NaN when @p masked."""
    row = L.sv_head_row()
    st = L.lib.sv_head_row_make(ctypes.byref(spec), scale_name, ctypes.byref(stats),
                                None if head is None else ctypes.byref(head), 0,
                                None if summary is None else ctypes.byref(summary),
                                int(masked), ctypes.byref(row))
    if st != L.SV_OK:
        fail(st, "row")
    view = row.view  # shares row's memory, and keeps it alive
    view._keep = (row, stats, head, summary, scale_name)
    return view


def positive(value, what="scale"):
    """A positive finite multiplier (stats(scale=), the monitor's scales);
    a 0-dim or one-element numpy array or torch tensor (torch.tensor(0.1))
    counts as its number. TypeError / ValueError naming @p what."""
    x = _arrays.scalar(value, what)
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError("%s: %r is not a number (a float or a 0-dim tensor)" % (what, value))
    if not (math.isfinite(x) and x > 0):
        raise ValueError("%s: %r is not a positive finite number" % (what, value))
    return float(x)


def _layout(name):
    """The sv_layout named @p name, by the library's names."""
    got = L.c_int()
    if not isinstance(name, str) or "\0" in name or \
            L.lib.sv_layout_parse(name.encode(), ctypes.byref(got)) != L.SV_OK:
        raise ValueError("layout: %r is not one of %s"
                         % (name, ", ".join(L.names(L.lib.sv_layout_name))))
    return got.value


def _prepare(q, k, v, layout, mask=None):
    """(sv_strided, owners, qd, kd) of the caller's arrays, described for
    the engine (bhnd) without a copy; the library checks them (_refused)."""
    for name, x in (("q", q), ("k", k)):
        if x is None:
            raise TypeError("%s: None is not an array (numpy array or torch tensor)" % name)
    lay = _layout(layout)
    arrays, owners = L.sv_strided(), []
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x is None:
            continue
        a, owner = _arrays.as_array(x, name)
        L.lib.sv_array_to_bhnd(a, lay)  # as_array took 2..4 axes
        setattr(arrays, name, a)
        owners.append(owner)
    if mask is not None:
        arrays.mask, owner = _mask(mask)
        owners.append(owner)
    qd, kd = _arrays.dims(arrays.q), _arrays.dims(arrays.k)
    if lay == L.SV_LAYOUT_BHND and arrays.k.ndim == 4 and kd[2] < kd[1]:
        warnings.warn("k: shape %s read as batch x heads x n x d gives %d heads of %d keys; "
                      "if it is batch x n x heads x d, pass layout='bnhd'"
                      % (kd, kd[1], kd[2]), UserWarning, stacklevel=3)
    return arrays, owners, qd, kd


def _refused(arrays, spec):
    """After the library refused the arrays (sv_source_strided, or the
    engine's check, which reads every entry before any product), its
    reason, raised: sv_strided_check names the array, the axis or entry,
    the value and what was expected. On the failure path only; returns
    when the arrays are not the cause (the caller's fail() then speaks)."""
    why = ctypes.create_string_buffer(L.STRIDED_WHY_BYTES)
    got = L.lib.sv_strided_check(arrays, None if spec is None else ctypes.byref(spec), why)
    line = ctypes.create_string_buffer(512)
    if got == L.SV_OK or not L.lib.sv_strided_explain(why, None, line, len(line)):
        return
    raise (NonFiniteError if got == L.SV_ENONFINITE else ValueError)(line.value.decode())


def check_shapes(q, k, mask):
    """Raises stats()' ValueError where the shapes of torch tensors @p q,
    @p k (batch x heads x n x d) and @p mask (4 axes, or None) break the
    library's rules: sv_strided_check without a spec reads sizes only, so
    a device's memory is never touched (data 1 only marks an array present).
    A Q or K of no floating dtype (int, complex, bool): stats()' TypeError."""
    arrays = L.sv_strided()
    for name, t in (("q", q), ("k", k), ("mask", mask)):
        if t is not None and name != "mask" and not t.is_floating_point():
            raise _arrays.dtype_error(name, t.dtype)  # not marked bool below
        if t is not None and not t.numel():  # as stats() (_arrays.as_array)
            raise ValueError("%s: empty array of shape %s" % (name, tuple(t.shape)))
        if t is not None:
            a = getattr(arrays, name)  # a view into arrays
            a.data, a.ndim, a.shape[:4] = 1, 4, tuple(t.shape)
            a.dtype = L.SV_DTYPE_FLOAT64 if t.is_floating_point() else L.SV_DTYPE_BOOL
    _refused(arrays, None)


def _mask(mask):
    """(sv_array, owner) of @p mask, numpy or torch, bool (True = attend)
    or float (added to the scaled logits), fewer than 2 axes padded on the
    left as numpy broadcasts; its shape against Q and K and its entries are
    the library's check (_refused)."""
    if _arrays.is_torch(mask):
        mask = mask.detach()
    elif not isinstance(mask, np.ndarray):
        try:
            mask = np.asarray(mask)
        except Exception as e:
            raise TypeError("mask: not an array (%s)" % e) from None
    while len(mask.shape) < 2:
        mask = mask[None]  # a new first axis, numpy's and torch's
    if len(mask.shape) > 4:
        raise ValueError("mask: shape %s has %d axes; expected at most 4, broadcastable to "
                         "batch x heads x n_q x n_k" % (tuple(mask.shape), len(mask.shape)))
    return _arrays.as_array(mask, "mask", allow_bool=True)


def spec_of(spec, scale, causal, window, ddof=0):
    """@p spec, an sv_spec whose sizes (d_k, n_q, n_k, trials, values,
    d_v) are set, with stats()' keywords set and resolved, as stats() runs
    caller arrays. The sizes come from the library (sv_strided_sizes) for
    stats(), from the tensors for the monitor's torch backend (_device.py),
    so that the columns it reports read the same spec. Raises ValueError
    naming the argument."""
    # the keywords that are the library's parameters, read by it (param.h)
    _params.set_value(spec, "causal", causal, "causal")  # as random(): 2 and "no" refused
    if window is not None:
        _params.set_value(spec, "window", window, "window")
    _params.set_value(spec, "ddof", ddof, "ddof")
    if scale is not None:
        spec.scale = positive(scale)
    _params.resolve(spec, {"d_k": "q", "n_q": "q", "n_k": "k", "d_v": "v", "trials": "q"})
    return spec


def stats(q, k, v=None, *, scale=None, causal=False, window=None, mask=None, layout="bhnd",
          pool="heads", ddof=0, threads=None):
    """Per-head attention statistics of Q and K (and V) by the engine.

    q: [batch x] [heads_q x] n_q x d_k; k: [batch x] [heads_kv x] n_k x d_k
    (heads_q a multiple of heads_kv: query head h reads key head
    h // (heads_q // heads_kv), as repeat_kv); v: like k with d_v columns.
    numpy arrays or CPU torch tensors, float16, bfloat16 (torch), float32
    or float64, any strides; read in place, never copied. layout "bnhd":
    [batch x] n x heads x d (sv_layout_name's names). scale: the multiplier of the scaled logits,
    None = 1/sqrt(d_k) as torch's SDPA. causal: query i sees keys 0..i.
    window: W >= 1, a sliding window: with causal query i sees keys j with
    i - W < j <= i (HF transformers' sliding_window), without |i - j| < W;
    a row that sees no key is counted in rows_empty and left out of means.
    mask: as torch's SDPA attn_mask, broadcastable to batch x heads_q x
    n_q x n_k whatever the layout (numpy or torch): bool, True = attend;
    or float, added to the scaled logits, -inf or the dtype's lowest value
    (torch.finfo(dtype).min, as HF fills) excluding the key. The raw
    logits are then S + mask / scale (scaled = scale * raw). With causal
    or window, a key is seen where both allow it. Statistics of a row are
    over the keys it sees (rows_empty counts rows that see none); the
    theory columns are NaN (no closed form for a data mask). ddof: of the score
    variance, less than the scores each head sees (under a mask: none, or
    more than ddof). pool: "heads" (per-head arrays and the pooled row), "none" (no
    pooled row) or "all" (the pooled row only, in .pooled). threads: OpenMP
    threads (None or 0: OpenMP's default). Returns Stats with arrays of shape
    (batch, heads_q). Raises TypeError / ValueError naming the argument at
    fault.
    """
    if pool not in POOLS:  # the library's names (sv_pool, run.h)
        raise ValueError("pool: %r is not %s or %r" % (pool, ", ".join(map(repr, POOLS[:-1])),
                                                      POOLS[-1]))
    exe = exec_options(threads)
    arrays, owners, qd, kd = _prepare(q, k, v, layout, mask)
    spec = L.sv_spec()  # d_k, n_q, n_k, trials, d_v: the library reads them off the arrays
    st = L.lib.sv_strided_sizes(ctypes.byref(arrays), ctypes.byref(spec))
    if st == L.SV_OK:
        spec = spec_of(spec, scale, causal, window, ddof)
        src = ctypes.create_string_buffer(L.SOURCE_BYTES)
        st = L.lib.sv_source_strided(ctypes.byref(arrays), src)
    if st != L.SV_OK:
        _refused(arrays, None)
        fail(st, "q, k")
    trials = (L.sv_trial_stats * spec.trials)()
    st = run(spec, src, exe, L.sv_run_options(chunk=CHUNK, keep=trials))
    if st != L.SV_OK:
        _refused(arrays, spec)
        fail(st, "q, k")
    del owners  # the engine is done with the memory
    return collect(spec, trials, qd[:2], kd[1], bool(arrays.mask.data), scale, pool)


# sv_value (columns.h) as a numpy record: one call fills every trial's
# non-text columns (sv_per_head_values), read here column by column.
_VALUE = np.dtype([("real", np.float64), ("count", np.uint64), ("text", np.uintp)])


def _kv_heads(shape, heads_kv):
    """(batch, heads_q) @p shape: each trial's key head, sv_strided_head's
    for a batch of arrays of these heads (sizes only: it reads no entry)."""
    arrays, head = L.sv_strided(), L.sv_head()
    for a, h in ((arrays.q, shape[1]), (arrays.k, heads_kv)):
        a.data, a.ndim, a.shape[:4] = 1, 4, (1, h, 1, 1)
    out = np.empty(shape[1], dtype=np.int64)
    for t in range(shape[1]):
        L.lib.sv_strided_head(arrays, t, None, ctypes.byref(head))
        out[t] = head.kv_head
    return np.tile(out, (shape[0], 1))  # every batch element alike


def _per_head(spec, trials, shape, heads_kv, masked, scale_name, cols):
    """(values, config) of the per-head rows: every column (but batch and
    head) as an array of shape (batch, heads_q), the config text columns
    (scale) once. The numeric columns from sv_per_head_values in one call;
    kv_head from sv_strided_head; the text columns of trial 0's row view.
    @p masked: a data mask was applied (theory columns NaN)."""
    n = spec.trials
    table = [c.name for c in _columns.per_head()]
    assert _VALUE.itemsize == ctypes.sizeof(L.sv_value)
    rec = np.empty((len(table), n), dtype=_VALUE)
    st = L.lib.sv_per_head_values(ctypes.byref(spec), trials, n, scale_name, int(masked),
                                  rec.ctypes.data_as(ctypes.POINTER(L.sv_value)))
    if st != L.SV_OK:
        fail(st, "q, k")
    head = L.sv_head()  # trial 0: batch 0, head 0, key head 0
    view = _row(spec, trials[0], scale_name, head, masked=masked)
    values, config = {}, {}
    for c in cols:
        if c.type == L.SV_VALUE_TEXT and c.flags & L.SV_COLUMN_CONFIG:
            config[c.name] = c.value(view)  # the same in every row: scale
        elif c.name == "kv_head":  # an index, "all" only when pooled
            values[c.name] = _kv_heads(shape, heads_kv)
        elif c.type == L.SV_VALUE_TEXT:
            raise AssertionError("per-head text column %r has no rule" % c.name)
        else:
            field = "real" if c.type == L.SV_VALUE_REAL else "count"
            values[c.name] = rec[field][table.index(c.name)].copy().reshape(shape)
    return values, config


def collect(spec, trials, shape, heads_kv, masked, scale, pool):
    """Stats of @p trials (spec.trials sv_trial_stats, trial t = batch *
    heads_q + head) by the library's column code (sv_summary_head,
    sv_columns): per head (@p shape: batch, heads_q; query head h reads key head
    h // (heads_q / @p heads_kv), as sv_strided_head) and, unless @p pool is
    "none", the pooled row. @p masked: a data mask was applied (theory
    columns NaN). stats() and the monitor's torch backend (_device.py)
    both end here, so their columns cannot differ in definition."""
    cols = [c for c in _columns.per_head()
            if c.name not in ("batch", "head") and c.exists(spec, 0, 1)]
    scale_name = None if scale is None else repr(float(scale)).encode()
    values, config = {}, {}
    if pool != "all":
        values, config = _per_head(spec, trials, shape, heads_kv, masked, scale_name, cols)
    pooled = {}
    if pool != "none":
        summ = L.sv_summary()
        st = L.lib.sv_summary_compute(ctypes.byref(spec), trials, math.nan, ctypes.byref(summ))
        if st != L.SV_OK:
            fail(st, "summary")
        view = _row(spec, summ.mean, scale_name, summary=summ, masked=masked)
        for c in cols:
            x = c.value(view)
            if c.type == L.SV_VALUE_TEXT and c.flags & L.SV_COLUMN_CONFIG:
                config.setdefault(c.name, x)
            pooled[c.name] = x
    # values holds the per-head columns in cols' order: they are the columns
    return _result.make("per_head", ("batch", "head") if pool != "all" else (),
                        shape if pool != "all" else (), values, values, pooled, config,
                        {c.name: c.unit for c in cols})
