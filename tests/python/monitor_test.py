"""sdpa_var.monitor against torch from the full weight matrix (float64
models, so every number is comparable to 1e-10): nn.MultiheadAttention
(batch_first and not; its own returned attention weights are the peer),
a hand-written GQA layer with q_proj/k_proj/n_kv_heads, and a nanoGPT
block with a fused c_attn, both through observe() (projections are never
hooked: where this torch has no SDPA, monitor() refuses them unless
hooks=False); every-k stepping and remove(); reduce="none"
(per batch element) throughout: tests/python/monitor_manners_test.py checks
the default batch reduction, monitor_models_test.py the paths of issue 23."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import sdpa_var
from reference import Checker

torch.manual_seed(3)
torch.set_default_dtype(torch.float64)
chk = Checker("python.monitor")


def weight_stats(p):
    """From weights p (batch x heads x n_q x n_k): per (batch, head)."""
    ent = -(torch.where(p > 0, p * p.log(), torch.zeros_like(p))).sum(-1)
    keys = (p.shape[-1] * torch.ones(p.shape[-2])) if not CAUSAL[0] else \
        torch.arange(1, p.shape[-2] + 1, dtype=torch.float64)
    two = keys >= 2
    return {"entropy": ent.mean(-1), "max_weight": p.amax(-1).mean(-1),
            "sink_weight": p[..., 0].mean(-1),
            "entropy_norm": (ent[..., two] / keys[two].log()).mean(-1)}


CAUSAL = [False]


def softmax_stats(q, k, scale, causal):
    """q: batch x heads x n x d, k the same (kv heads expanded): raw and
    scaled statistics from the full score matrix, torch softmax."""
    CAUSAL[0] = causal
    s = q @ k.transpose(-1, -2)
    out = {}
    if causal:
        mask = torch.ones(s.shape[-2:], dtype=torch.bool).triu(1)
        s_m = s.masked_fill(mask, -math.inf)
        vis = ~mask
    else:
        s_m, vis = s, torch.ones(s.shape[-2:], dtype=torch.bool)
    for tag, c in (("raw", 1.0), ("scaled", scale)):
        p = torch.softmax(c * s_m, dim=-1)
        for name, v in weight_stats(p).items():
            out[tag + "_" + name] = v
        out[tag + "_max_abs_logit"] = (c * s.abs()).masked_fill(~vis, 0).amax((-1, -2))
    return out


def compare(what, st, ref):
    for name, want in ref.items():
        got = st.values[name]
        for b in range(want.shape[0]):
            for h in range(want.shape[1]):
                g, w = float(got[b, h]), float(want[b, h])
                chk.close("%s %s [%d,%d]" % (what, name, b, h), g, w, rel=1e-10, abs_=1e-12)


# 1. nn.MultiheadAttention: the monitor against the weights MHA returns
for batch_first in (True, False):
    mha = nn.MultiheadAttention(32, 4, batch_first=batch_first)
    x = torch.randn(3, 11, 32) if batch_first else torch.randn(11, 3, 32)
    with sdpa_var.monitor(mha, reduce="none") as mon:
        _, w = mha(x, x, x, need_weights=True, average_attn_weights=False)
        res = mon.step()
    st = res[mon.layers[0]]
    ref = weight_stats(w)  # MHA's own scaled weights
    compare("mha bf=%d torch weights" % batch_first, st,
            {"scaled_" + n: v for n, v in ref.items()})
    # raw statistics and max |logit| from q, k rebuilt by hand from in_proj
    e, hd = 32, 8
    xb = x if batch_first else x.transpose(0, 1)
    q = F.linear(xb, mha.in_proj_weight[:e], mha.in_proj_bias[:e]).view(3, 11, 4, hd)
    k = F.linear(xb, mha.in_proj_weight[e:2 * e], mha.in_proj_bias[e:2 * e]).view(3, 11, 4, hd)
    compare("mha bf=%d full matrix" % batch_first, st,
            softmax_stats(q.transpose(1, 2), k.transpose(1, 2), hd ** -0.5, False))


# 2. a hand-written GQA layer (Llama-style names), causal
class GQA(nn.Module):
    def __init__(self, d=48, n_heads=6, n_kv_heads=2):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.hd = n_heads, n_kv_heads, d // n_heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, n_kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, n_kv_heads * self.hd, bias=False)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.n_heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, n, self.n_kv_heads, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, n, self.n_kv_heads, self.hd).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(self.hd)
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), -math.inf)
        self.captured = (q, k)
        sdpa_var.observe(q, k, causal=True)
        return (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(b, n, -1)


model = nn.Sequential(GQA(), nn.Linear(48, 48), GQA(n_kv_heads=1))
if not hasattr(F, "scaled_dot_product_attention"):  # no SDPA: refused, naming the ways
    try:
        sdpa_var.monitor(model)
        chk.ok(False, "projections refused", "no ValueError")
    except ValueError as e:
        m = str(e)
        chk.ok("'0', '2'" in m and "observe" in m and "hooks=False" in m
               and "MultiheadAttention" in m, "projections refused", m)
mon = sdpa_var.monitor(model, every=2, causal=True, reduce="none", hooks=False)
for step in range(3):
    model(torch.randn(2, 13, 48))
    res = mon.step()
    chk.ok((res is not None) == (step % 2 == 0), "every=2 step %d" % step, repr(res))
    if res is None:
        continue
    chk.ok(sorted(res) == ["0", "2"], "GQA layers", str(sorted(res)))
    for name in ("0", "2"):
        q, k = model[int(name)].captured
        compare("gqa layer %s step %d" % (name, step), res[name],
                softmax_stats(q, k, q.shape[-1] ** -0.5, True))
        chk.ok(res[name].shape == (2, 6), "gqa shape", str(res[name].shape))
keys = mon.to_dict(prefix=None)
nstats = len([n for n in sdpa_var._monitor.DEFAULT_STATS if n in res["0"].values])
chk.ok("0/batch1/head5/scaled_entropy" in keys and len(keys) == 2 * 2 * 6 * nstats, "to_dict",
       "%d keys: %s" % (len(keys), list(keys)[:3]))
mon.remove()
model(torch.randn(2, 13, 48))
chk.ok(mon.step() is None or mon.last == res, "remove", "hooks still fire")


# 3. nanoGPT's CausalSelfAttention: fused c_attn, n_head, n_embd
class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=32, n_head=4):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head, self.n_embd = n_head, n_embd

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        k = k.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        v = v.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        self.captured = (q, k)
        sdpa_var.observe(q, k, causal=True)
        y = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


blk = CausalSelfAttention()
with sdpa_var.monitor(blk, reduce="none", hooks=False) as mon:
    blk(torch.randn(2, 9, 32))
    res = mon.step()
q, k = blk.captured
compare("nanogpt", res["model"], softmax_stats(q, k, 8 ** -0.5, True))
try:
    sdpa_var.monitor(nn.Linear(3, 3))
    chk.ok(False, "no attention", "no ValueError")
except ValueError as e:
    chk.ok("model" in str(e), "no attention", str(e))
chk.done()
