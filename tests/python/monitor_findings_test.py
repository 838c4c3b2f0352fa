"""A new user's findings on the monitor, each against its truth (check
names start with the finding's number):
1. copy.deepcopy / torch.save of a model while monitored: the copy computes
   with its own weights, carries no hook or wrapper, and is not measured;
   torch.save works and the loaded model computes as the original.
2. TransformerLens-style scores filled with IGNORE = -1e5 (older
   TransformerLens, ARENA-style code): read with the model's fill, not as
   real scores; the truth is the model's own pattern. The real
   HookedTransformer where transformer_lens has it.
3. A module attribute `scale` (here a divisor, 32) is not guessed to be a
   multiplier, nor a learned per-head scale: projections are never hooked;
   a warning names the module and observe(), through which it is exact.
4. observe() outside the model's forward: the same layer names every step.
5. reduce="batch": rows_empty summed, var_scale 1/sqrt of the reduced raw_var.
6. An eval forward (no_grad, model.eval()) between training steps is not
   merged into the next training step.
7. nn.MultiheadAttention(add_bias_kv=True) / add_zero_attn: the extra keys
   counted and seen; the truth is torch's own attention weights.
8. Rotary that no attribute of the old list gives away: cos/sin passed to
   forward (transformers 5, Llama-style code), torchtune's pos_embeddings,
   a rotation under a name no list has: never the pre-rotary numbers of
   hooks on q_proj/k_proj (here the module computes its softmax by hand,
   so nothing is measured and a warning names it, or monitor() refuses it
   where torch has no SDPA; through SDPA or observe() it is measured).
9. A mask of a dtype the engine does not read (int64) in observe(): the
   warning names the dtype (it said "this sdpa_var.stats() takes no mask",
   a fallback for a package without masks, which the package never is).
"""

import copy
import io
import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

import sdpa_var
from monitor_common import compare, install_sdpa, logits, peer, skip_masked
from reference import Checker

chk = Checker("python.monitor_findings")
install_sdpa(chk.name)  # before any model is built
torch.manual_seed(41)


def caught(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = f()
    return out, [str(i.message) for i in w]


def unhooked(model):
    """No forward hook, pre-hook or instance forward on any submodule."""
    return all(not m._forward_hooks and not m._forward_pre_hooks and "forward" not in m.__dict__
               for m in model.modules())


def pattern_stats(p):
    """Entropy and max weight per head (batch mean) from softmax weights @p p
    (batch x heads x n_q x n_k), in float64."""
    p = p.double()
    ent = -torch.where(p > 0, p * p.log(), torch.zeros_like(p)).sum(-1)
    return {"scaled_entropy": ent.mean(-1).mean(0),
            "scaled_max_weight": p.amax(-1).mean(-1).mean(0),
            "scaled_sink_weight": p[..., 0].mean(-1).mean(0)}


def torch_load(buf):
    try:
        return torch.load(buf, weights_only=False)
    except TypeError:  # a torch without weights_only
        buf.seek(0)
        return torch.load(buf)


# hook points (TransformerLens 1.x), used by findings 1 and 2
class HookPoint(nn.Module):
    def forward(self, x):
        return x


FILL = -1e5


class TLIgnore(nn.Module):
    """TransformerLens 1.x's Attention: hook_q/hook_k batch x pos x head x d,
    hook_attn_scores after the causal fill, hook_pattern its softmax."""

    def __init__(self, d=32, heads=4, buffer=True):
        super().__init__()
        self.n_heads, self.d_head = heads, d // heads
        self.attn_scale = self.d_head ** 0.5
        self.W_Q, self.W_K = nn.Linear(d, d), nn.Linear(d, d)
        for h in ("hook_q", "hook_k", "hook_attn_scores", "hook_pattern"):
            setattr(self, h, HookPoint())
        if buffer:
            self.register_buffer("IGNORE", torch.tensor(FILL))

    def forward(self, x):
        b, n, _ = x.shape
        q = self.hook_q(self.W_Q(x).view(b, n, self.n_heads, self.d_head))
        k = self.hook_k(self.W_K(x).view(b, n, self.n_heads, self.d_head))
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / self.attn_scale
        fill = self.IGNORE if hasattr(self, "IGNORE") else torch.tensor(FILL)
        s = torch.where(torch.ones(n, n, dtype=torch.bool).tril(), s, fill)
        s = self.hook_attn_scores(s)
        self.pattern = self.hook_pattern(torch.softmax(s, -1)).detach()
        return self.pattern.sum()


# 1. copies and pickles of a monitored model
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x)[0]


class Manual(nn.Module):  # a fused c_attn, measured through observe()
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.c_attn, self.n_head, self.d = nn.Linear(d, 3 * d), heads, d

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.n_head, -1).transpose(1, 2)
                   for t in self.c_attn(x).split(self.d, dim=2))
        sdpa_var.observe(q, k, causal=True)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -math.inf)
        return (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(B, T, C)


x = torch.randn(2, 7, 16)
for kind, make in (("mha", Block), ("hook points", lambda: TLIgnore(d=16, heads=2))):
    model = make()
    mon = sdpa_var.monitor(model)
    model(x)
    chk.ok(bool(mon.step()), "1 %s measured" % kind, "")
    try:
        c = copy.deepcopy(model)
    except Exception as e:
        chk.ok(False, "1 %s deepcopy" % kind, "%s: %s" % (type(e).__name__, e))
        mon.remove()
        continue
    with torch.no_grad():
        for p in c.parameters():
            p.add_(torch.randn_like(p))
    ref = make()
    ref.load_state_dict(c.state_dict())
    chk.ok(unhooked(c), "1 %s copy unhooked while attached" % kind, "")
    # exact: the same code on the same weights and input
    chk.ok(torch.equal(c(x), ref(x)), "1 %s copy computes with its own weights" % kind, "")
    r = mon.step()
    chk.ok(r == {}, "1 %s copy not measured" % kind, str(r and list(r)))
    model(x)
    chk.ok(bool(mon.step()), "1 %s original still measured" % kind, "")
    buf = io.BytesIO()
    try:
        torch.save(model, buf)
        buf.seek(0)
        loaded = torch_load(buf)
        chk.ok(torch.equal(loaded(x), model(x)), "1 %s torch.save while attached" % kind, "")
        chk.ok(unhooked(loaded), "1 %s loaded unhooked" % kind, "")
    except Exception as e:
        chk.ok(False, "1 %s torch.save while attached" % kind, "%s: %s" % (type(e).__name__, e))
    mon.step()
    mon.remove()
    chk.ok(unhooked(c) and unhooked(model), "1 %s unhooked after remove()" % kind, "")
    chk.ok(torch.equal(c(x), ref(x)), "1 %s copy after remove()" % kind, "")
if hasattr(torch.nn.functional, "scaled_dot_product_attention"):
    # an SDPA model's copy, run while the original is monitored: not measured
    class SdpaAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj, self.k_proj = nn.Linear(16, 16), nn.Linear(16, 16)

        def forward(self, x):
            q = self.q_proj(x).view(2, 7, 2, 8).transpose(1, 2)
            k = self.k_proj(x).view(2, 7, 2, 8).transpose(1, 2)
            return F.scaled_dot_product_attention(q, k, k, is_causal=True)

    model = SdpaAttention()
    with sdpa_var.monitor(model) as mon:
        c = copy.deepcopy(model)
        c(x)
        r = mon.step()
    chk.ok(r == {}, "1 sdpa copy not measured", str(r and list(r)))


# 2. TransformerLens-style hook points, excluded scores filled with IGNORE
for buffer in (True, False):
    model = TLIgnore(buffer=buffer)
    with sdpa_var.monitor(model) as mon:
        model(torch.randn(2, 15, 32))
        r = mon.step()
    what = "2 TL IGNORE=-1e5 %s" % ("buffer" if buffer else "constant")
    if chk.ok("model" in r, what, str(r)):
        # float32 pattern vs the monitor's float64 from float32 Q, K: 1e-6 relative
        compare(chk, what, r["model"], pattern_stats(model.pattern), rel=1e-6)
try:
    from transformer_lens import HookedTransformer, HookedTransformerConfig
except (ImportError, AttributeError) as e:
    print("SKIP %s: transformer_lens.HookedTransformer is not importable here (%s)"
          % (chk.name, str(e).splitlines()[0][:160]))
else:
    for pos in ("standard", "rotary"):
        cfg = HookedTransformerConfig(n_layers=2, d_model=64, n_heads=4, d_head=16, n_ctx=32,
                                      d_vocab=50, act_fn="gelu",
                                      positional_embedding_type=pos)
        tl = HookedTransformer(cfg).eval()
        tokens = torch.randint(0, 50, (2, 20))
        with sdpa_var.monitor(tl) as mon:
            with torch.no_grad():
                _, cache = tl.run_with_cache(tokens)
            r = mon.step()
        for layer in range(2):
            name = "blocks.%d.attn" % layer
            if chk.ok(name in r, "2 HookedTransformer %s %s" % (pos, name), str(list(r))):
                # float32 pattern against the monitor's float64: 1e-6 relative
                compare(chk, "2 HookedTransformer %s %s" % (pos, name), r[name],
                        pattern_stats(cache["pattern", layer]), rel=1e-6)


# 3. a module's `scale` attribute (a divisor here; a learned per-head scale) is
# never guessed: projections are not hooked, so nothing is measured and a
# warning names the module and observe(); through observe() it is exact
class ScaleDiv(nn.Module):
    def __init__(self, d=32, heads=4, learned=False, value=32, observe=False):
        super().__init__()
        self.num_heads, self.hd, self.learned, self.observe = heads, d // heads, learned, observe
        self.q_proj, self.k_proj = nn.Linear(d, d), nn.Linear(d, d)
        self.scale = nn.Parameter(torch.full((heads,), 32.0)) if learned else value

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        div = self.scale.view(1, -1, 1, 1) if self.learned else self.scale
        self.seen = (q.detach(), k.detach())
        if self.observe:
            sdpa_var.observe(q, k, scale=1 / div)
        return torch.softmax(q @ k.transpose(-1, -2) / div, -1).sum()


xs = torch.randn(2, 10, 32)
for learned in (False, True):
    model = ScaleDiv(learned=learned)
    with sdpa_var.monitor(model) as mon:
        r, w = caught(lambda: (model(xs), mon.step())[1])
    what = "3 %s scale" % ("learned per-head" if learned else "divisor")
    chk.ok("model" not in r, what + " not guessed", str(r and dict(r["model"].config)))
    chk.ok(any("'model'" in m and "observe" in m for m in w), what + " warning", str(w))
model = ScaleDiv(observe=True)
with sdpa_var.monitor(model) as mon:
    model(xs)
    r = mon.step()
q, k = model.seen
compare(chk, "3 observe scale=1/32", r["model"], peer(*logits(q, k, 1 / 32)))  # 1e-6 relative


# 4. observe() outside the model's forward: the same names every step
class TinyAttention(nn.Module):
    def forward(self, x):
        return x


model = TinyAttention()
for forward in (False, True):  # no model forward in the step; one between the calls
    names = []
    with sdpa_var.monitor(model, hooks=False) as mon:
        for step in range(3):
            for i in range(2):
                sdpa_var.observe(torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4))
                if forward and i == 0:
                    model(torch.randn(2, 3))
            names.append(sorted(mon.step()))
    chk.ok(names == [["observe0", "observe1"]] * 3, "4 observe names stable, forward=%d"
           % forward, str(names))

# 5. reduce="batch": rows_empty summed, var_scale from the reduced raw_var
q, k = torch.randn(2, 3, 8, 4), torch.randn(2, 3, 8, 4)
q[1] *= 3  # element 1's scores spread 3 times as far as element 0's
got = {}
for reduce in ("batch", "none"):
    with sdpa_var.monitor(model, hooks=False, reduce=reduce) as mon:
        sdpa_var.observe(q, k)
        got[reduce] = mon.step()["observe0"]
s = (q.double() @ k.double().transpose(-1, -2)).reshape(2, 3, -1)
want = 1 / s.var(-1, unbiased=False).mean(0).sqrt()  # pooled within-element variance
for h in range(3):  # float32 Q, K, the engine's float64 sums: 1e-6 relative
    chk.close("5 var_scale pooled h%d" % h, got["batch"].values["var_scale"][h], want[h],
              rel=1e-6)
    chk.close("5 var_scale = 1/sqrt(raw_var) h%d" % h, got["batch"].values["var_scale"][h],
              got["batch"].values["raw_var"][h] ** -0.5, rel=1e-12)  # the same numbers
if not skip_masked(chk, "5 rows_empty"):
    mask = torch.ones(2, 1, 8, 8, dtype=torch.bool)
    mask[1, :, :2] = False  # element 1's rows 0 and 1 see no key
    for reduce in ("batch", "none"):
        with sdpa_var.monitor(model, hooks=False, reduce=reduce) as mon:
            sdpa_var.observe(q, k, mask=mask)
            got[reduce] = mon.step()["observe0"]
    b, n = got["batch"].values["rows_empty"], got["none"].values["rows_empty"]
    chk.ok(list(b) == [2.0] * 3 and list(n.sum(0)) == [2.0] * 3, "5 rows_empty summed",
           "%s %s" % (b, n))

# 6. an eval forward between training steps is not merged into the next step
model = Manual()
x1, x2, xe = torch.randn(2, 9, 16), torch.randn(2, 9, 16), 5 * torch.randn(4, 9, 16)
with sdpa_var.monitor(model) as mon:
    model(x1).sum().backward()
    mon.step()
    model.eval()
    with torch.no_grad():
        model(xe)
    model.train()
    model(x2).sum().backward()
    mixed = mon.step()["model"]
with sdpa_var.monitor(model) as mon:
    model(x2)
    alone = mon.step()["model"]
chk.ok(mixed.config["calls"] == "1", "6 eval forward not merged", str(dict(mixed.config)))
for h in range(2):  # the same computation: exact
    chk.close("6 training step alone h%d" % h, mixed.scaled_entropy[h], alone.scaled_entropy[h],
              rel=0)
with sdpa_var.monitor(model.eval()) as mon:  # inference only: the eval forwards are the step's
    with torch.no_grad():
        model(xe)
    r = mon.step()
chk.ok("model" in r and r["model"].config["calls"] == "1", "6 eval-only step reported", str(r))
model.train()


# 7. nn.MultiheadAttention(add_bias_kv=True) and add_zero_attn: the extra keys
for kw in ({"add_bias_kv": True}, {"add_zero_attn": True},
           {"add_bias_kv": True, "add_zero_attn": True}):
    mha = nn.MultiheadAttention(16, 2, batch_first=True, **kw)
    with torch.no_grad():
        if mha.bias_k is not None:
            mha.bias_k.normal_()
    xm = torch.randn(3, 11, 16)
    tag = "7 " + "+".join(sorted(kw))
    masks = [("", {})]
    if not skip_masked(chk, tag + " key_padding_mask"):
        pad = torch.zeros(3, 11, dtype=torch.bool)
        pad[:, 8:] = True
        masks.append((" key_padding_mask", {"key_padding_mask": pad}))
    for what, mkw in masks:
        with sdpa_var.monitor(mha) as mon:
            _, wts = mha(xm, xm, xm, need_weights=True, average_attn_weights=False, **mkw)
            r = mon.step()
        if not chk.ok("model" in r, tag + what, str(r)):
            continue
        st = r["model"]
        chk.ok(int(st.values["n_k"][0]) == wts.shape[-1] == 11 + len(kw), tag + what + " n_k",
               "%s vs torch %s" % (st.values["n_k"], tuple(wts.shape)))
        # torch's float32 weights against the monitor's float64: 1e-6 relative
        compare(chk, tag + what, st, pattern_stats(wts.detach()), rel=1e-6)

# 8. rotary given away by no attribute: cos/sin into forward; pos_embeddings
def rot(x, cos, sin):
    h = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., h:], x[..., :h]), -1) * sin


class RopeArgs(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.num_heads, self.hd = heads, d // heads
        self.q_proj, self.k_proj = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)

    def qk(self, x, cos, sin):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        return rot(q, cos, sin), rot(k, cos, sin)

    def forward(self, x, cos, sin):
        q, k = self.qk(x, cos, sin)
        return torch.softmax(q @ k.transpose(-1, -2) * self.hd ** -0.5, -1)


class RopeTorchtune(RopeArgs):
    def __init__(self):
        super().__init__()
        self.pos_embeddings = nn.Identity()  # torchtune's RotaryPositionalEmbeddings

    def forward(self, x):
        n = x.shape[1]
        f = torch.outer(torch.arange(n).float(), 1.0 / 100 ** (torch.arange(0, 4) / 4))
        cos, sin = torch.cat((f, f), -1).cos(), torch.cat((f, f), -1).sin()
        return super().forward(x, cos, sin)


class RopeHidden(RopeTorchtune):
    def __init__(self):
        super().__init__()
        del self.pos_embeddings
        self.positions = nn.Identity()  # a name on no list


x8 = torch.randn(2, 10, 32)
f8 = torch.outer(torch.arange(10).float(), 1.0 / 100 ** (torch.arange(0, 4) / 4))
cos8, sin8 = torch.cat((f8, f8), -1).cos(), torch.cat((f8, f8), -1).sin()
for what, model, args in (("8 cos/sin args", RopeArgs(), (x8, cos8, sin8)),
                          ("8 torchtune pos_embeddings", RopeTorchtune(), (x8,)),
                          ("8 rotary under another name", RopeHidden(), (x8,))):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            with sdpa_var.monitor(model) as mon, torch.no_grad():
                model(*args)
                res = mon.step()
            msgs = [str(m.message) for m in w]
            chk.ok(res == {}, "%s: no pre-rotary numbers" % what,
                   "measured %s" % {k: v.config.get("path") for k, v in res.items()})
            chk.ok(any("'model'" in m and "observe" in m for m in msgs),
                   "%s: a warning names the module and observe()" % what, str(msgs))
        except ValueError as e:  # a torch without SDPA: refused at monitor()
            chk.ok("'model'" in str(e) and "observe" in str(e), "%s: refused" % what, str(e))
# 9. an int64 mask: the warning says why (the dtype), not "takes no mask"
with sdpa_var.monitor(model, hooks=False) as mon:
    _, w = caught(lambda: sdpa_var.observe(torch.randn(1, 2, 4, 8), torch.randn(1, 2, 4, 8),
                                           mask=torch.ones(4, 4, dtype=torch.int64)))
    chk.ok(mon.step() == {} and len(w) == 1 and "int64" in w[0] and "takes no mask" not in w[0],
           "9 int64 mask: warned with its dtype", str(w))

chk.done()
