"""sdpa_var.stats against numpy computing from the full weight matrix
(float64) to 1e-12 relative: layouts, dtypes (float16, bfloat16 and
float32 are exact in double, so the reference is numpy on the widened
values), strides, GQA groupings, causal, values; a CLI-free peer.
Run with PYTHONPATH=build/python (ctest sets it)."""

import numpy as np
import torch

import sdpa_var
from reference import Checker, compare, head_stats

chk = Checker("python.stats_peer")
rng = np.random.default_rng(20261124)


def widened(x):
    """The float64 values the engine reads from x (numpy or torch)."""
    if isinstance(x, torch.Tensor):
        return x.detach().double().numpy()
    return np.asarray(x, dtype=np.float64)


def check(what, q, k, v=None, layout="bhnd", **kw):
    s = sdpa_var.stats(q, k, v, layout=layout, **kw)
    qw, kw_, vw = widened(q), widened(k), None if v is None else widened(v)
    if layout == "bnhd":
        qw, kw_ = qw.transpose(0, 2, 1, 3), kw_.transpose(0, 2, 1, 3)
        vw = None if vw is None else vw.transpose(0, 2, 1, 3)
    q4 = qw.reshape((1,) * (4 - qw.ndim) + qw.shape)
    k4 = kw_.reshape((1,) * (4 - kw_.ndim) + kw_.shape)
    v4 = None if vw is None else vw.reshape((1,) * (4 - vw.ndim) + vw.shape)
    chk.ok(s.shape == q4.shape[:2], what + " shape", "%s vs %s" % (s.shape, q4.shape[:2]))
    group = q4.shape[1] // k4.shape[1]
    for b in range(q4.shape[0]):
        for h in range(q4.shape[1]):
            g = h // group
            ref = head_stats(q4[b, h], k4[b, g], None if v4 is None else v4[b, g],
                             scale=kw.get("scale"), causal=kw.get("causal", False),
                             ddof=kw.get("ddof", 0))
            compare(chk, what, s, ref, b, h)
            chk.ok(int(s.kv_head[b, h]) == g if "kv_head" in s.values else True,
                   what + " kv_head", "b=%d h=%d" % (b, h))
    return s


# layouts x GQA groupings x causal, float64
for hq, hk in ((4, 4), (4, 2), (4, 1), (6, 3)):
    for causal in (False, True):
        q = rng.standard_normal((2, hq, 33, 16))
        k = rng.standard_normal((2, hk, 33, 16)) * 1.5 + 0.2
        v = rng.standard_normal((2, hk, 33, 8))
        check("bhnd hq=%d hk=%d causal=%d" % (hq, hk, causal), q, k, v, causal=causal)
        check("bnhd hq=%d hk=%d causal=%d" % (hq, hk, causal), q.transpose(0, 2, 1, 3).copy(),
              k.transpose(0, 2, 1, 3).copy(), v.transpose(0, 2, 1, 3).copy(), layout="bnhd",
              causal=causal)
# 2-D, 3-D, cross-attention n_q != n_k, a scale, ddof 1
check("2-D", rng.standard_normal((40, 8)), rng.standard_normal((57, 8)))
check("3-D scale", rng.standard_normal((3, 20, 8)), rng.standard_normal((3, 31, 8)), scale=0.3)
check("ddof1", rng.standard_normal((2, 20, 8)), rng.standard_normal((1, 20, 8)), ddof=1)
# strides: a transposed view, every other column, reversed rows, Fortran order
base = rng.standard_normal((2, 3, 40, 32))
check("strided", base[..., ::2], np.asfortranarray(rng.standard_normal((2, 3, 40, 16))))
check("negative", base[:, :, ::-1, :16], base[:, ::-1, :, 16:])
check("transposed", rng.standard_normal((16, 30)).T, rng.standard_normal((30, 16)))
check("big-endian", base[0, 0].astype(">f8"), base[0, 1].astype(">f4"))
# dtypes: numpy float16/32, torch float16/bfloat16/float32/float64
for dt in (np.float16, np.float32):
    check("numpy %s" % np.dtype(dt), base.astype(dt), base[:, :1].astype(dt), causal=True)
for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    tq = torch.from_numpy(base).to(dt)
    tk = torch.from_numpy(base[:, :1, :, ::-1].copy()).to(dt)
    check("torch %s" % dt, tq, tk)
    # non-contiguous torch views (the bit pattern of bfloat16 keeps its strides)
    check("torch %s view" % dt, tq.transpose(1, 2), tk.transpose(1, 2), layout="bnhd")
    check("torch %s slice" % dt, tq[..., ::2], tk[..., 1::2])
# a tensor that requires grad
tq = torch.randn(2, 10, 8, dtype=torch.float64, requires_grad=True)
check("requires_grad", tq, tq.detach() * 0.5)
# one key: entropy_norm is NaN on both sides (compare allows it there only)
check("one key", rng.standard_normal((5, 8)), rng.standard_normal((1, 8)))
# pool="all" and "none"
s = sdpa_var.stats(base, base, pool="all")
chk.ok(s.dims == () and "raw_var" in s.pooled, "pool=all", repr(s))
s = sdpa_var.stats(base, base, pool="none")
chk.ok(not s.pooled and s.shape == (2, 3), "pool=none", repr(s))
# pooled raw_var over all heads: the mean of the per-head values (trials)
s = sdpa_var.stats(base, base[:, :1])
chk.close("pooled raw_var", s.pooled["raw_var"], s.raw_var.mean(), rel=1e-14)
d = s.to_dict(prefix="layer0")
chk.ok(d["layer0/batch1/head2/raw_entropy"] == s.raw_entropy[1, 2], "to_dict key",
       str(list(d)[:3]))
# to_pandas: python3-pandas (a test package); one row per head, then "all"
df = s.to_pandas()
chk.ok(df.shape[0] == 2 * 3 + 1 and df.loc[("1", "2"), "raw_entropy"] == s.raw_entropy[1, 2] and
       df.loc[("all", "all"), "raw_var"] == s.pooled["raw_var"], "to_pandas", repr(df.iloc[:, :3]))
chk.done()
