"""NaN, infinities and magnitudes found where the engine reads the data
(issue 39 item 3): stats() makes no pass of its own over q, k, v or the
mask when they are fine, and names the argument and index when the engine
refuses them; the monitor's call counts non-finite values only then; its
mask classification and stats()'s per-head columns (one library call for
all trials) give what the per-trial path gave, bit for bit."""

import ctypes
import math

import numpy as np
import torch

import sdpa_var
from sdpa_var import _columns, _core, _measure
from sdpa_var import _lib as L
from reference import Checker

chk = Checker("python.engine_checks")
S = sdpa_var.stats
g = torch.Generator().manual_seed(3)


def raises(what, exc, words, f, *a, **kw):
    try:
        f(*a, **kw)
    except exc as e:
        for w in words:
            chk.ok(w in str(e), what, "message %r does not name %r" % (str(e), w))
        return e
    except Exception as e:  # the wrong kind
        chk.ok(False, what, "raised %s: %s, want %s" % (type(e).__name__, e, exc.__name__))
        return None
    chk.ok(False, what, "no exception, want %s naming %r" % (exc.__name__, words))
    return None


# Non-contiguous tensors (bnhd storage read as bhnd, a bfloat16 view, a
# slice of V) with the bad entry in the last row of the last trial: the
# engine's read finds it, the message names the argument and the index.
q = torch.randn(2, 12, 3, 8, generator=g).transpose(1, 2)  # 2 x 3 x 12 x 8, strided
k = torch.randn(2, 12, 3, 8, generator=g).bfloat16().transpose(1, 2)
v = torch.randn(2, 3, 12, 10, generator=g)[..., 2:7]
chk.ok(not q.is_contiguous() and not k.is_contiguous() and not v.is_contiguous(),
       "inputs non-contiguous", "")
for name in ("q", "k", "v"):
    args = {"q": q.clone(), "k": k.clone(), "v": v.clone()}
    args[name] = args[name].clone().transpose(1, 2).contiguous().transpose(1, 2) \
        if name != "v" else torch.randn(2, 3, 12, 10, generator=g)[..., 2:7]
    args[name][1, 2, 11, 4] = math.nan if name != "k" else -math.inf
    e = raises("NaN/Inf in the last row of %s" % name, ValueError,
               ["%s: entry (batch 1, head 2, position 11, column 4) is %s"
                % (name, "-inf" if name == "k" else "nan")], S, args["q"], args["k"], args["v"])
    chk.ok(isinstance(e, _core.NonFiniteError), "%s: NonFiniteError" % name, repr(e))
bad_mask = torch.zeros(2, 1, 12, 12)
bad_mask[1, 0, 11, 11] = math.nan
raises("NaN in the mask", ValueError, ["mask: entry (batch 1, head 0, query 11, key 11) is nan"],
       S, q, k, mask=bad_mask)
bad_mask[1, 0, 11, 11] = math.inf
raises("+inf in the mask", ValueError, ["mask: entry (batch 1, head 0, query 11, key 11) is inf"],
       S, q, k, mask=bad_mask)
bad_mask = bad_mask.double()
bad_mask[1, 0, 11, 11] = 1e70
raises("mask 1e70", ValueError, ["mask: entries up to 1e+70", "1e+60"], S, q, k, mask=bad_mask)
big = q.double()
big[1, 2, 11, 0] = 1e154  # q_var's bound for 12 x 8 entries is ~4e152
raises("q entry 1e154 in the last row", ValueError, ["q: entries up to 1e+154", "q_var"], S,
       big, k)

# The success path makes no pass of its own: Python asks the library why
# (sv_strided_check) only after the engine refused the data (failing on
# the pre-issue-39 code, which checked before every run).
calls = []
real = {n: getattr(L.lib, n) for n in ("sv_strided_check", "sv_strided_explain")}


def counting(n):
    def f(*a):
        calls.append(n)
        return real[n](*a)
    return f


orig_isfinite = torch.isfinite


def isfinite(x):
    calls.append("torch.isfinite")
    return orig_isfinite(x)


for n in real:
    setattr(L.lib, n, counting(n))
torch.isfinite = isfinite
try:
    fine_mask = torch.zeros(2, 1, 12, 12)
    fine_mask[0, 0, 3, 5] = -2.0
    S(q, k, v, mask=fine_mask)
    chk.ok(not calls, "stats() success: no pass in Python", "called %s" % sorted(set(calls)))
    cache = {}
    for rows in (None, 4):
        _measure.run(q, k, 0.3, True, None, None, rows, 0, cache, None)
        _measure.run(q, k, 0.3, False, fine_mask, None, rows, 0, cache, None)
    chk.ok(not calls, "monitor call success: no pass in Python", "called %s" % sorted(set(calls)))
    bad_q = q.clone()
    bad_q[0, 1, 5, 2] = math.nan
    bad_q[1, 0, 7, 3] = math.inf
    try:
        _measure.run(bad_q, k, 0.3, True, None, None, None, 0, cache, None)
        chk.ok(False, "monitor NaN: Skip", "measured")
    except _measure.Skip as s:
        chk.ok(s.key == "nonfinite" and s.count == 2 and "2 NaN" in str(s), "monitor NaN: Skip",
               "%s %d %s" % (s.key, s.count, s))
    chk.ok("sv_strided_check" in calls, "failure: the library asked why after the engine",
           "called %s" % sorted(set(calls)))
finally:
    for n, f in real.items():
        setattr(L.lib, n, f)
    torch.isfinite = orig_isfinite


# The monitor's mask classes, NumPy's path (CPU) and torch's (bfloat16,
# or another device) against the definitions they replace.
def old_kind(mask, n_q, n_k):
    if mask.dtype == torch.bool and bool(mask.all()):
        return "none"
    if mask.dtype != torch.bool and bool((mask == 0).all()):
        return "none"
    if mask.shape[-2:] != (n_q, n_k):
        return "data"
    vis = mask if mask.dtype == torch.bool else mask > -math.inf
    if mask.dtype != torch.bool and bool(((mask != 0) & (mask != -math.inf)).any()):
        return "data"
    want = torch.ones(n_q, n_k, dtype=torch.bool).tril()
    return "causal" if bool((vis == want).all()) else "data"


n = 9
tril = torch.ones(n, n, dtype=torch.bool).tril()
fc = torch.zeros(n, n).masked_fill(~tril, -math.inf)
masks = {
    "bool all true": torch.ones(2, 1, n, n, dtype=torch.bool),
    "bool tril": tril[None, None],
    "bool tril expanded": tril.expand(2, 3, n, n),
    "bool tril, one entry off": tril.clone().index_put_((torch.tensor(8), torch.tensor(2)),
                                                        torch.tensor(False))[None, None],
    "bool row broadcast": torch.ones(2, 1, 1, n, dtype=torch.bool),
    "bool padding": torch.ones(2, 1, n, n, dtype=torch.bool).index_fill_(3, torch.tensor([8]),
                                                                         False),
    "float zeros": torch.zeros(2, 1, n, n),
    "float -0.0": torch.full((1, 1, n, n), -0.0),
    "float causal": fc[None, None],
    "float causal, finfo.min": torch.zeros(n, n).masked_fill(~tril, -3.4e38)[None, None],
    "float causal, one NaN": fc.clone().index_put_((torch.tensor(4), torch.tensor(1)),
                                                   torch.tensor(math.nan))[None, None],
    "float NaN row 0": torch.zeros(1, 1, n, n).index_fill_(3, torch.tensor([3]), math.nan),
    "float bias": torch.zeros(1, 1, n, n).index_fill_(2, torch.tensor([5]), 0.5),
}
for what, m in masks.items():
    for dt in ([None, torch.bfloat16, torch.float16] if m.is_floating_point() else [None]):
        mm = m if dt is None else m.to(dt)
        want = old_kind(mm.float() if dt == torch.bfloat16 else mm, n, n)
        got = _measure._mask_kind(mm, n, n)
        chk.ok(got == want, "mask kind: %s %s" % (what, dt or m.dtype), "%s, want %s"
               % (got, want))


# stats()'s per-head columns from one sv_per_head_values call against the
# row views and getters of each trial (the path they replace), bit for bit.
def per_trial(q, k, mask, scale):
    arrays, owners, qd, kd = _core._prepare(q, k, None, "bhnd", mask)
    st = S(q, k, mask=mask, scale=scale, pool="none")
    spec = L.sv_spec()
    spec.d_k, spec.n_q, spec.n_k, spec.trials = qd[3], qd[2], kd[2], qd[0] * qd[1]
    spec.scale = scale
    L.lib.sv_spec_resolve(ctypes.byref(spec))
    trials = (L.sv_trial_stats * spec.trials)()
    src = ctypes.create_string_buffer(L.SOURCE_BYTES)
    L.lib.sv_source_strided(ctypes.byref(arrays), src)
    chk.ok(_core.run(spec, src, _core.exec_options(1), L.sv_run_options(keep=trials)) == L.SV_OK,
           "per_trial run", "")
    name = repr(float(scale)).encode()
    differ = []
    for t in range(spec.trials):
        head = L.sv_head()
        L.lib.sv_strided_head(ctypes.byref(arrays), t, None, ctypes.byref(head))
        view = _core._row(spec, trials[t], name, head, masked=mask is not None)
        b, h = divmod(t, qd[1])
        for c in _columns.per_head():
            if c.name in ("batch", "head") or c.type == L.SV_VALUE_TEXT:
                continue
            want = np.asarray(c.value(view), dtype=np.float64 if c.type == L.SV_VALUE_REAL
                              else np.uint64)
            got = np.asarray(st.values[c.name])[b, h]
            if got.dtype != want.dtype or got.tobytes() != want.tobytes():
                differ.append((c.name, t, got, want))
    return differ, len(st.columns)


qg, kg = torch.randn(2, 4, 16, 8, generator=g), torch.randn(2, 2, 16, 8, generator=g)
for what, mask in (("no mask", None), ("bool mask", torch.rand(2, 1, 16, 16, generator=g) > .3)):
    differ, ncol = per_trial(qg, kg, mask, 0.4)
    chk.ok(not differ and ncol > 40, "per-head columns, %s: bit for bit" % what,
           "%d columns, differ: %s" % (ncol, differ[:3]))
chk.done()
