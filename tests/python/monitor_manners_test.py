"""The monitor's manners (issue 23 section 3): a NaN step mid-training that
the loop survives (recorded, warned once); the batch reduction against
reduce="none"; micro-batches and a module called twice accumulate; every=;
to_dict's keys and to_pandas' tidy frame; rows= (a fixed seeded sample);
meta tensors skipped with a warning; a forward that bypasses the monitored
modules warns naming them; SDPA's top-left is_causal when n_q != n_k;
remove() restores what it wrapped; monitor() and stats() argument errors
name the argument."""

import math
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import sdpa_var
from monitor_common import RECORD, compare, install_sdpa, logits, peer, skip_masked
from reference import Checker

chk = Checker("python.monitor_manners")
install_sdpa(chk.name)  # before any model is built
torch.manual_seed(31)


class Attn(nn.Module):
    """nanoGPT-like, SDPA or manual (then observe(), as projections are never hooked)."""

    def __init__(self, d=32, heads=4, sdpa=True):
        super().__init__()
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.n_head, self.d, self.sdpa, self.is_causal = heads, d, sdpa, True

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.n_head, -1).transpose(1, 2)
                   for t in self.c_attn(x).split(self.d, dim=2))
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            sdpa_var.observe(q, k, causal=True)
            s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
            y = torch.softmax(s.masked_fill(torch.ones(T, T).triu(1).bool(), -math.inf), -1) @ v
        return self.c_proj(y.transpose(1, 2).reshape(B, T, C))


def caught(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = f()
    return out, [str(i.message) for i in w]


# 1. a NaN step mid-training: the loop survives, the step is recorded as non-finite
model = nn.Sequential(Attn(), Attn(sdpa=False))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
msgs, results = [], []
with sdpa_var.monitor(model) as mon:
    for step in range(6):
        x = torch.randn(2, 10, 32)
        if step == 3:
            x[1, 4, 7] = math.nan

        def train():
            loss = model(x).pow(2).mean()
            if torch.isfinite(loss):
                opt.zero_grad()
                loss.backward()
                opt.step()
            return mon.step()
        r, w = caught(train)
        results.append(r)
        msgs += w
nf = [m for m in msgs if "non-finite" in m]
chk.ok(len(nf) == 1, "NaN warned once", str(msgs))
chk.ok(all(results[s] and set(results[s]) == {"0", "1"} for s in range(6)), "six steps",
       str([sorted(r) for r in results]))
r3 = results[3]
chk.ok(int(r3["0"].config["nonfinite"]) > 0 and r3["0"].columns == (), "step 3 non-finite",
       str(dict(r3["0"].config)))
chk.ok(all(math.isfinite(results[s]["1"].scaled_entropy[0]) for s in (4, 5)), "after NaN",
       "later steps not measured")
df = mon.to_pandas()
chk.ok(list(df.columns) == ["step", "layer", "head", "statistic", "value", "scale",
                            "scale_source", "path", "calls"], "to_pandas columns",
       str(list(df.columns)))
chk.ok(((df.statistic == "nonfinite") & (df.step == 3)).sum() == 2, "to_pandas nonfinite",
       str(df[df.statistic == "nonfinite"]))
chk.ok(set(df.step) == set(range(6)) and set(df["head"][df["head"] >= 0]) == {0, 1, 2, 3},
       "to_pandas steps", str(df[:5]))

# 2. reduce="batch" against reduce="none"; two micro-batches in a step accumulate
layer = Attn(sdpa=False)
xs = [torch.randn(3, 12, 32), torch.randn(3, 12, 32)]
got = {}
for reduce in ("batch", "none"):
    with sdpa_var.monitor(layer, reduce=reduce) as mon:
        for x in xs:
            layer(x)
        got[reduce] = mon.step()["model"]
b, n = got["batch"], got["none"]
chk.ok(b.config["calls"] == "2" and n.shape == (6, 4) and b.shape == (4,), "micro-batches",
       "%s %s %s" % (dict(b.config), n.shape, b.shape))
for name in ("scaled_entropy", "scaled_max_weight", "scaled_sink_weight", "raw_entropy"):
    for h in range(4):
        chk.close("batch mean %s h%d" % (name, h), b.values[name][h], n.values[name][:, h].mean(),
                  rel=1e-12)
for name in ("scaled_max_abs_logit", "raw_max_abs_logit", "scaled_entropy_max"):
    for h in range(4):
        chk.close("batch max %s h%d" % (name, h), b.values[name][h], n.values[name][:, h].max(),
                  rel=0)
for h in range(4):
    chk.close("batch min h%d" % h, b.values["scaled_entropy_min"][h],
              n.values["scaled_entropy_min"][:, h].min(), rel=0)


# 3. every=, to_dict's bounded keys and prefix
class Twice(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()

    def forward(self, x):
        return self.attn(self.attn(x))


model = Twice()
with sdpa_var.monitor(model, every=3) as mon:
    measured = []
    for step in range(7):
        model(torch.randn(2, 8, 32))
        measured.append(mon.step() is not None)
    keys = mon.to_dict()
    chk.ok(measured == [True, False, False, True, False, False, True], "every=3", str(measured))
    chk.ok(mon.last["attn"].config["calls"] == "2", "called twice", str(dict(mon.last["attn"].config)))
    nstats = len([s for s in sdpa_var._monitor.DEFAULT_STATS if s in mon.last["attn"].values])
    chk.ok(len(keys) == 1 * 4 * nstats and "attn/attn/head3/scaled_entropy" in keys,
           "to_dict keys", str(list(keys)[:4]))
    keys = mon.to_dict(prefix="x/", stats=["raw_entropy"])
    chk.ok(sorted(keys) == ["x/attn/head%d/raw_entropy" % h for h in range(4)], "to_dict stats=",
           str(keys))

# 4. rows=: a fixed seeded sample of query rows (non-causal here; causal needs masks)
class Full(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj, self.k_proj = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x):
        b, n, _ = x.shape
        q, k = (p(x).view(b, n, 2, 8).transpose(1, 2) for p in (self.q_proj, self.k_proj))
        sdpa_var.observe(q, k)
        return q.sum() + k.sum()


full, x = Full(), torch.randn(2, 40, 16)
outs = []
for seed in (0, 0, 1):
    with sdpa_var.monitor(full, rows=8, seed=seed) as mon:
        full(x)
        outs.append(mon.step()["model"])
chk.ok(outs[0].values["n_q"][0] == 8, "rows n_q", str(outs[0].values["n_q"]))
chk.ok(np.array_equal(outs[0].scaled_entropy, outs[1].scaled_entropy) and
       not np.array_equal(outs[0].scaled_entropy, outs[2].scaled_entropy), "rows seeded", "")
if not skip_masked(chk, "rows= under causal"):
    RECORD.clear()
    layer = Attn()
    with sdpa_var.monitor(layer, rows=4, seed=7) as mon:
        layer(torch.randn(2, 10, 32))
        r = mon.step()
    q, k, scale, vis, add = RECORD[0]
    idx = torch.as_tensor(sdpa_var._measure.row_sample(10, 4, 7, {}))
    compare(chk, "rows causal", r["model"], peer(*logits(q[:, :, idx], k, None, vis[idx])))

# 5. meta tensors: skipped with one warning, no exception
meta = Attn()
with sdpa_var.monitor(meta) as mon:
    def go():
        meta(torch.randn(1, 6, 32))
        sdpa_var.observe(torch.empty(1, 2, 6, 8, device="meta"),
                         torch.empty(1, 2, 6, 8, device="meta"), name="meta_layer")
        return mon.step()
    r, w = caught(go)
chk.ok("meta_layer" not in r and any("meta" in m for m in w), "meta skipped", "%s %s" % (r, w))

# 6. a forward that bypasses the monitored module (inference fast path) warns naming it
enc = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True).eval()
with sdpa_var.monitor(enc) as mon:
    def fast():
        with torch.no_grad():
            enc(torch.randn(2, 8, 32))
        return mon.step()
    r, w = caught(fast)
chk.ok(any("self_attn" in m for m in w) or r, "fast path warned", "%s %s" % (r, w))

# 7. SDPA's is_causal is top-left aligned when n_q < n_k
class PrefixAttention(nn.Module):  # registered for its name only (SDPA capture)
    def forward(self, q, k):
        return F.scaled_dot_product_attention(q, k, k, is_causal=True)


pre = PrefixAttention()
q, k = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 11, 8)
with sdpa_var.monitor(pre) as mon:
    pre(q, k)
    r = mon.step()
vis = torch.ones(5, 11, dtype=torch.bool).tril()
compare(chk, "sdpa causal n_q < n_k", r["model"], peer(*logits(q, k, None, vis)))
if not skip_masked(chk, "SDPA is_causal with n_q > n_k"):
    vis = torch.ones(11, 5, dtype=torch.bool).tril()
    with sdpa_var.monitor(pre) as mon:
        pre(k, q)
        r = mon.step()
    compare(chk, "sdpa causal n_q > n_k", r["model"], peer(*logits(k, q, None, vis)))

# 8. remove() puts back F.scaled_dot_product_attention and MHA's forward (the
# class's: nothing is ever stored on the module)
f0, fwd0 = F.scaled_dot_product_attention, nn.MultiheadAttention.forward
mha = nn.MultiheadAttention(16, 2)
mon = sdpa_var.monitor(mha)
chk.ok(F.scaled_dot_product_attention is not f0 and nn.MultiheadAttention.forward is not fwd0
       and "forward" not in mha.__dict__, "wrapped", "")
mon.remove()
chk.ok(F.scaled_dot_product_attention is f0 and nn.MultiheadAttention.forward is fwd0
       and "forward" not in mha.__dict__, "restored", "")


# 9. argument errors name the argument
def raises(what, exc, word, f, *a, **kw):
    try:
        f(*a, **kw)
    except exc as e:
        return chk.ok(word in str(e), what, "message %r does not name %r" % (str(e), word))
    except Exception as e:
        return chk.ok(False, what, "raised %s: %s, want %s" % (type(e).__name__, e, exc.__name__))
    chk.ok(False, what, "no exception, want %s naming %r" % (exc.__name__, word))


M = sdpa_var.monitor
raises("monitor model", TypeError, "model", M, 3)
raises("monitor every", ValueError, "every", M, Attn(), every=0)
raises("monitor reduce", ValueError, "reduce", M, Attn(), reduce="mean")
raises("monitor rows", ValueError, "rows", M, Attn(), rows=0)
mha = nn.MultiheadAttention(16, 2)
raises("monitor scale", ValueError, "scale", M, mha, scale=-1.0)
raises("monitor scale name", ValueError, "scale", M, mha, scale={"nope": 0.1})
raises("monitor scale vector", TypeError, "scale", M, mha, scale=torch.tensor([0.1, 0.2]))
raises("monitor scale no hooks", ValueError, "scale", M, Attn(), scale=0.1)
raises("monitor heads", TypeError, "heads", M, Attn(), heads=2)  # removed with projection hooks
raises("monitor stats", TypeError, "stats", M, Attn(), stats="scaled_entropy")
raises("monitor threads", ValueError, "threads", M, Attn(), threads=5000)
raises("monitor causal", TypeError, "causal", M, Attn(), causal="yes")
S = sdpa_var.stats
qa = np.random.default_rng(1).standard_normal((1, 2, 6, 4))
raises("stats k None", TypeError, "k", S, qa, None)
raises("stats q None", TypeError, "q", S, None, qa)
raises("stats threads 5000", ValueError, "threads", S, qa, qa, threads=5000)
raises("stats threads 2**32+1", ValueError, "threads", S, qa, qa, threads=2**32 + 1)
raises("stats threads str", TypeError, "threads", S, qa, qa, threads="2")
raises("stats scale vector", TypeError, "scale", S, qa, qa, scale=torch.tensor([0.1, 0.2]))
a, b = S(qa, qa, scale=torch.tensor(0.1)), S(qa, qa, scale=float(torch.tensor(0.1)))
chk.ok(np.array_equal(a.scaled_entropy, b.scaled_entropy), "stats 0-dim scale", "")
# batch x n=16 x heads=4 x d read as bhnd: 16 "heads" of 4 "keys", fewer keys than heads
bnhd = np.random.default_rng(2).standard_normal((2, 16, 4, 8))
_, w = caught(lambda: S(bnhd, bnhd))
chk.ok(any("bnhd" in m for m in w), "bnhd warning", str(w))
_, w = caught(lambda: S(bnhd, bnhd, layout="bnhd"))
chk.ok(not any("bnhd" in m for m in w), "no warning for bnhd", str(w))
try:
    import transformers  # noqa: F401
    print("python.monitor_manners: transformers is importable; its attention functions are "
          "wrapped but not tested here")
except ImportError:
    print("SKIP python.monitor_manners: transformers not installed: the "
          "ALL_ATTENTION_FUNCTIONS path is untested here")
if not torch.cuda.is_available():
    print("SKIP python.monitor_manners: no CUDA device: the copy to the CPU is untested here")
chk.done()
