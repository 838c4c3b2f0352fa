"""Random shapes, strides, dtypes, layouts and options (seeded, 200 cases):
sdpa_var.stats either returns numbers equal to numpy's from the full weight
matrix or raises TypeError/ValueError; the interpreter never dies (a crash
fails this test by its exit status)."""

import warnings

import numpy as np
import torch

import sdpa_var
from reference import Checker, head_stats

warnings.simplefilter("ignore", RuntimeWarning)  # int casts of nan
chk = Checker("python.fuzz")
rng = np.random.default_rng(17)
DTYPES = [np.float64, np.float32, np.float16, "bf16", np.int16, np.complex64]


def make(shape, dtype):
    """An array of @p shape as a strided view: maybe reversed or every other
    element along some axis, maybe a non-finite entry."""
    big = [n * int(rng.integers(1, 3)) for n in shape]
    x = rng.standard_normal(big) * float(rng.choice([1e-3, 1.0, 30.0]))
    sl = []
    for n, m in zip(shape, big):
        step = m // n if n and m >= n else 1
        sl.append(slice(None, None, -step) if rng.random() < 0.2 else slice(0, n * step, step))
    x = x[tuple(sl)][tuple(slice(0, n) for n in shape)]
    if x.size and rng.random() < 0.05:
        x[tuple(int(rng.integers(0, max(n, 1))) for n in x.shape)] = np.nan
    if dtype == "bf16":
        return torch.from_numpy(np.array(x, order="C")).clone().to(torch.bfloat16) \
            .transpose(-1, -2).contiguous().transpose(-1, -2)
    if rng.random() < 0.3 and dtype is not np.complex64 and min(x.strides, default=0) >= 0:
        return torch.from_numpy(np.array(x.astype(dtype), order="C"))
    return x.astype(dtype, copy=False)


def widen(x):
    return x.detach().double().numpy() if isinstance(x, torch.Tensor) else x.astype(np.float64)


for case in range(200):
    ndim = int(rng.integers(1, 6))
    b, hk = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    hq = hk * int(rng.integers(1, 3)) + (1 if rng.random() < 0.1 else 0)
    n_q, n_k, d = (int(rng.integers(0 if rng.random() < 0.05 else 1, 12)) for _ in range(3))
    lead_q, lead_k = [b, hq][-(ndim - 2):] if ndim > 2 else [], [b, hk][-(ndim - 2):] \
        if ndim > 2 else []
    if ndim > 4:
        lead_q, lead_k = [1, b, hq], [1, b, hk]
    if ndim == 1:
        qs, ks = [d], [d]
    else:
        qs, ks = lead_q + [n_q, d], lead_k + [n_k, d + (1 if rng.random() < 0.05 else 0)]
    dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
    kw = {"causal": bool(rng.random() < 0.3), "ddof": int(rng.integers(0, 2))}
    if rng.random() < 0.3:
        kw["scale"] = float(rng.choice([0.01, 1.0, 2.5, -1.0]))
    q, k = make(qs, dtype), make(ks, dtype)
    try:
        s = sdpa_var.stats(q, k, **kw)
    except (TypeError, ValueError) as e:
        chk.ok(str(e) != "", "case %d message" % case, repr(e))
        continue
    # accepted: the first head agrees with numpy
    q4, k4 = widen(q), widen(k)
    q4 = q4.reshape((1,) * (4 - q4.ndim) + q4.shape)
    k4 = k4.reshape((1,) * (4 - k4.ndim) + k4.shape)
    ref = head_stats(q4[0, 0], k4[0, 0], scale=kw.get("scale"), causal=kw["causal"],
                     ddof=kw["ddof"])
    for name in ("raw_var", "raw_entropy", "scaled_max_weight", "raw_max_abs_logit"):
        want, got = ref[name], s.values[name][0, 0]
        chk.close("case %d %s" % (case, name), got, want, rel=1e-11, abs_=1e-12)
    # floats all (inf is a true answer: var_scale of scores with variance 0,
    # fp16 headroom of logits that are all 0)
    odd = {key: v for key, v in s.to_dict().items() if not isinstance(v, (int, float))}
    chk.ok(not odd, "case %d to_dict" % case, repr(odd))
chk.ok(chk.passed > 200, "cases accepted", "%d checks" % chk.passed)
chk.done()
