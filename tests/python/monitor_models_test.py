"""The monitor on the models of issue 23 section 4, against the softmax of
exactly the logits each model's softmax took in the same forward (float64
from the model's float32 Q and K, relative 1e-6): a Llama-style layer
(RoPE, GQA, causal) through SDPA capture and observe(), and refused through
its projections; partial rotary (25 %, GPT-NeoX's query_key_value); a
custom scale (SDPA's scale=; a module attribute never read);
nanoGPT's CausalSelfAttention (flash path measured; the manual path, like
a GPT-2 block with Conv1D and scale_attn_by_inverse_layer_idx, computes its
softmax by hand: not measured, a warning names it); nn.MultiheadAttention
with a causal attn_mask and with a key_padding_mask; nn.Transformer
(decoder self-attention causal, cross-attention not); a TransformerLens-style
module (its attn_scale, monitor(scale=)); a sliding-window layer. Masked cases print SKIP until
sdpa_var.stats takes mask= (monitor_common.HAS_MASK)."""

import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

import sdpa_var
from monitor_common import RECORD, compare, install_sdpa, logits, peer, skip_masked
from reference import Checker

chk = Checker("python.monitor_models")
install_sdpa(chk.name)  # before any model is built
torch.manual_seed(23)
torch.set_default_dtype(torch.float32)


def rotate_half(x):
    x1, x2 = x[..., :x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Rotary(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        self.dim, self.base = dim, base

    def forward(self, x, n):
        inv = 1.0 / (self.base ** (torch.arange(0, self.dim, 2).float() / self.dim))
        f = torch.outer(torch.arange(n).float(), inv)
        emb = torch.cat((f, f), dim=-1)
        return emb.cos(), emb.sin()


def rope(x, cos, sin, rot):
    xr, xp = x[..., :rot], x[..., rot:]
    return torch.cat((xr * cos + rotate_half(xr) * sin, xp), dim=-1)


class LlamaAttention(nn.Module):
    """HF Llama's layout: q_proj/k_proj/v_proj, RoPE after them, GQA, causal."""

    def __init__(self, d=64, heads=8, kv=2, path="sdpa", gqa_flag=False):
        super().__init__()
        self.num_heads, self.num_key_value_heads, self.head_dim = heads, kv, d // heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, kv * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d, kv * self.head_dim, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.rotary_emb = Rotary(self.head_dim)
        self.path, self.gqa_flag = path, gqa_flag

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, n, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, n, -1, self.head_dim).transpose(1, 2)
        cos, sin = self.rotary_emb(x, n)
        q, k = rope(q, cos, sin, self.head_dim), rope(k, cos, sin, self.head_dim)
        rep = self.num_heads // self.num_key_value_heads
        if self.path == "sdpa" and self.gqa_flag:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        else:
            k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
            if self.path == "sdpa":
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                if self.path == "observe":
                    sdpa_var.observe(q, k, causal=True)
                s = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
                s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), -math.inf)
                self.seen = (q.detach(), k.detach())
                y = torch.softmax(s, -1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(b, n, -1))


def run_one(model, x, **kw):
    """One monitored forward; (result, the warnings raised)."""
    RECORD.clear()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with sdpa_var.monitor(model, **kw) as mon:
            model(x)
            res = mon.step()
    return res, [str(i.message) for i in w], mon


def causal_vis(n_q, n_k):
    return torch.ones(n_q, n_k, dtype=torch.bool).tril()


def check_record(what, st, i=0):
    q, k, scale, vis, add = RECORD[i]
    compare(chk, what, st, peer(*logits(q, k, scale, vis, add)))


x = torch.randn(3, 20, 64)
# 1. Llama-style: through SDPA capture (repeat_kv before the call, and enable_gqa)
for flag in (False, True):
    model = LlamaAttention(gqa_flag=flag)
    res, w, mon = run_one(model, x)
    chk.ok(list(res) == ["model"] and res["model"].config["path"] == "sdpa", "llama sdpa path",
           "%s %s" % (list(res), res and res["model"].config))
    check_record("llama sdpa gqa_flag=%d" % flag, res["model"])
    chk.ok(res["model"].shape == (8,), "llama heads", str(res["model"].shape))
# ... through observe()
model = LlamaAttention(path="observe")
res, w, mon = run_one(model, x)
q, k = model.seen
compare(chk, "llama observe", res["model"], peer(*logits(q, k, None, causal_vis(20, 20))))
chk.ok(res["model"].config["path"] == "observe", "llama observe path", str(res["model"].config))
# ... refused through its projections: with no SDPA at all, monitor() says the two ways
saved = F.scaled_dot_product_attention
del F.scaled_dot_product_attention
try:
    sdpa_var.monitor(LlamaAttention(path="eager"))
    chk.ok(False, "llama refused", "no ValueError")
except ValueError as e:
    m = str(e)
    chk.ok("rotary" in m and "scaled_dot_product_attention" in m and "observe" in m,
           "llama refused", m)
finally:
    F.scaled_dot_product_attention = saved
# ... and where SDPA exists but the module does not call it: no numbers, a warning naming it
res, w, mon = run_one(LlamaAttention(path="eager"), x)
chk.ok(res == {} and any("'model'" in m and "produced no Q, K" in m for m in w),
       "llama eager warned", "%s %s" % (res, w))
# hooks=False: observe() in a rotary module's forward, no refusal even without SDPA
del F.scaled_dot_product_attention
try:
    model = LlamaAttention(path="observe")
    res, w, mon = run_one(model, x, hooks=False)
    q, k = model.seen
    compare(chk, "llama observe hooks=False", res["model"],
            peer(*logits(q, k, None, causal_vis(20, 20))))
finally:
    F.scaled_dot_product_attention = saved


# 2. partial rotary, 25 % of the head dimension, GPT-NeoX's fused query_key_value
class NeoXAttention(nn.Module):
    def __init__(self, d=64, heads=4):
        super().__init__()
        self.num_attention_heads, self.head_size = heads, d // heads
        self.rotary_ndims = self.head_size // 4
        self.query_key_value = nn.Linear(d, 3 * d)
        self.rotary_emb = Rotary(self.rotary_ndims)
        self.dense = nn.Linear(d, d)

    def forward(self, x):
        b, n, _ = x.shape
        qkv = self.query_key_value(x).view(b, n, self.num_attention_heads, 3 * self.head_size)
        q, k, v = qkv.permute(0, 2, 1, 3).chunk(3, dim=-1)
        cos, sin = self.rotary_emb(x, n)
        q, k = rope(q, cos, sin, self.rotary_ndims), rope(k, cos, sin, self.rotary_ndims)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.dense(y.transpose(1, 2).reshape(b, n, -1))


res, w, mon = run_one(NeoXAttention(), x)
check_record("neox partial rotary", res["model"])
del F.scaled_dot_product_attention
try:
    sdpa_var.monitor(NeoXAttention())
    chk.ok(False, "neox refused", "no ValueError")
except ValueError as e:
    chk.ok("rotary" in str(e), "neox refused", str(e))
finally:
    F.scaled_dot_product_attention = saved


# 3. a custom scale (muP-style 1/d): SDPA's scale=; a module attribute is never read
class Scaled(nn.Module):
    def __init__(self, d=64, heads=4, path="hooks", attr=True):
        super().__init__()
        self.num_heads, self.hd, self.path = heads, d // heads, path
        if attr:
            self.scaling = 1.0 / self.hd
        self.q_proj, self.k_proj = nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        self.seen = (q.detach(), k.detach())
        if self.path == "sdpa":
            return F.scaled_dot_product_attention(q, k, k, scale=1.0 / self.hd)
        return torch.softmax(q @ k.transpose(-1, -2) / self.hd, -1) @ k


model = Scaled(path="sdpa")
res, w, mon = run_one(model, x)
q, k = model.seen
st = res["model"]
compare(chk, "custom scale sdpa", st, peer(*logits(q, k, 1 / 16)))
chk.ok(st.config["scale_source"] == "sdpa scale" and float(st.config["scale"]) == 1 / 16,
       "scale source sdpa", str(dict(st.config)))


def not_measured(what, model, inp, **kw):
    """A module that computes its softmax by hand from projections: no
    number (the old hooks read its projections and guessed its scale), a
    warning naming it and observe()."""
    res, w, mon = run_one(model, inp, **kw)
    chk.ok(res == {} and any("'model'" in m and "observe" in m for m in w),
           what + " not measured", "%s %s" % (res and {n: dict(v.config) for n, v in res.items()},
                                              w))


not_measured("custom scale module.scaling", Scaled(path="hooks"), x)
try:  # monitor(scale=) is for hook-served modules only
    sdpa_var.monitor(Scaled(path="hooks"), scale={"": 1 / 16})
    chk.ok(False, "scale= without hooks", "no ValueError")
except ValueError as e:
    chk.ok("scale" in str(e) and "'model'" in str(e), "scale= without hooks", str(e))


# 4. nanoGPT's CausalSelfAttention, both paths (no is_causal attribute)
class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=48, n_head=4, block_size=32, flash=True):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head, self.n_embd = n_head, n_embd
        self.flash = flash and hasattr(F, "scaled_dot_product_attention")
        if not self.flash:
            self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                                 .view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
                                               is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            self.seen = (q.detach(), k.detach())
            y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


xg = torch.randn(2, 24, 48)
res, w, mon = run_one(CausalSelfAttention(flash=True), xg)
check_record("nanogpt flash", res["model"])
not_measured("nanogpt manual", CausalSelfAttention(flash=False), xg)


# 5. nn.MultiheadAttention: causal attn_mask (float and bool), key_padding_mask
def mha_peer(m, query, key, add=None, vis=None):
    q, k = sdpa_var._modules.mha_qk(m, query, key)
    return peer(*logits(q, k, None, vis, add))


mha = nn.MultiheadAttention(64, 8, batch_first=True)
xm = torch.randn(3, 20, 64)
tri = nn.Transformer.generate_square_subsequent_mask(20)
for what, kw, ref_kw in (
        ("float causal attn_mask", {"attn_mask": tri}, {"vis": causal_vis(20, 20)}),
        ("bool causal attn_mask", {"attn_mask": ~causal_vis(20, 20)}, {"vis": causal_vis(20, 20)})):
    with sdpa_var.monitor(mha) as mon:
        mha(xm, xm, xm, need_weights=False, **kw)
        res = mon.step()
    with torch.no_grad():
        compare(chk, "mha " + what, res["model"], mha_peer(mha, xm, xm, **ref_kw))
if not skip_masked(chk, "nn.MultiheadAttention with key_padding_mask"):
    pad = torch.zeros(3, 20, dtype=torch.bool)
    pad[:, 8:] = True  # 8 of 20 keys real
    with sdpa_var.monitor(mha) as mon:
        mha(xm, xm, xm, key_padding_mask=pad, need_weights=False)
        res = mon.step()
    with torch.no_grad():
        compare(chk, "mha key_padding_mask", res["model"],
                mha_peer(mha, xm, xm, vis=(~pad).view(3, 1, 1, 20)))

# 6. nn.Transformer: encoder self non-causal, decoder self causal, cross not
tr = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
                    dim_feedforward=64, dropout=0.0, batch_first=True)
src, tgt = torch.randn(2, 14, 32), torch.randn(2, 9, 32)
seen = {}
for name, m in tr.named_modules():
    if isinstance(m, nn.MultiheadAttention):
        m.register_forward_hook(lambda mod, a, o, name=name: seen.__setitem__(name, a[:2]))
with sdpa_var.monitor(tr) as mon:
    tr(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(9))
    res = mon.step()
want = {"encoder.layers.0.self_attn": None, "decoder.layers.0.self_attn": causal_vis(9, 9),
        "decoder.layers.0.multihead_attn": None}
chk.ok(sorted(res) == sorted(want), "transformer layers", str(sorted(res)))
with torch.no_grad():
    for name, vis in want.items():
        if name in res:
            m = tr.get_submodule(name)
            compare(chk, "transformer " + name, res[name], mha_peer(m, *seen[name], vis=vis))


# 7. GPT-2 by hand (Conv1D c_attn, scale_attn_by_inverse_layer_idx): never guessed
# (transformers' own GPT-2 is tests/hf/hf_models_test.py's)
class Conv1D(nn.Module):
    """As HF's: weight in x out, y = x @ W + b."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.2)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.size(-1)), self.weight) \
            .view(x.size()[:-1] + (self.nf,))


class GPT2Attention(nn.Module):
    def __init__(self, e=48, heads=4, layer_idx=3, max_pos=32):
        super().__init__()
        self.embed_dim, self.num_heads, self.head_dim = e, heads, e // heads
        self.split_size = e
        self.scale_attn_weights, self.scale_attn_by_inverse_layer_idx = True, True
        self.layer_idx = layer_idx
        self.register_buffer("bias", torch.tril(torch.ones((max_pos, max_pos), dtype=torch.bool))
                             .view(1, 1, max_pos, max_pos), persistent=False)
        self.c_attn, self.c_proj = Conv1D(3 * e, e), Conv1D(e, e)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.split_size, dim=2)
        sh = lambda t: t.view(t.size()[:-1] + (self.num_heads, self.head_dim)).permute(0, 2, 1, 3)
        q, k, v = sh(q), sh(k), sh(v)
        w = q @ k.transpose(-1, -2)
        w = w / torch.full([], v.size(-1) ** 0.5)
        w = w / float(self.layer_idx + 1)
        n = q.size(-2)
        w = torch.where(self.bias[:, :, :n, :n], w, torch.tensor(torch.finfo(w.dtype).min))
        self.seen = (q.detach(), k.detach())
        y = torch.softmax(w, -1) @ v
        return self.c_proj(y.permute(0, 2, 1, 3).reshape(x.shape))


not_measured("gpt2 conv1d", GPT2Attention(), xg)


# 8. TransformerLens-style hook points: hook_rot_q/hook_rot_k, hook_attn_scores
class HookPoint(nn.Module):
    def forward(self, x):
        return x


class TLAttention(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.n_heads, self.d_head = heads, d // heads
        self.attn_scale = self.d_head ** 0.5 * 2  # a divisor
        self.W_Q, self.W_K = nn.Linear(d, d), nn.Linear(d, d)
        for h in ("hook_q", "hook_k", "hook_rot_q", "hook_rot_k", "hook_attn_scores"):
            setattr(self, h, HookPoint())
        self.rotary = Rotary(self.d_head)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.hook_q(self.W_Q(x).view(b, n, self.n_heads, self.d_head))
        k = self.hook_k(self.W_K(x).view(b, n, self.n_heads, self.d_head))
        cos, sin = self.rotary(x, n)
        cos, sin = cos[:, None], sin[:, None]  # pos x 1 x d for b x pos x head x d
        q = self.hook_rot_q(rope(q, cos, sin, self.d_head))
        k = self.hook_rot_k(rope(k, cos, sin, self.d_head))
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / self.attn_scale
        s = self.hook_attn_scores(s.masked_fill(~causal_vis(n, n), -math.inf))
        self.seen = (q.transpose(1, 2).detach(), k.transpose(1, 2).detach())
        return torch.softmax(s, -1).sum()


model = TLAttention()
res, w, mon = run_one(model, torch.randn(2, 15, 32))
q, k = model.seen
compare(chk, "transformerlens hook_rot_*", res["model"],
        peer(*logits(q, k, 1 / model.attn_scale, causal_vis(15, 15))))
chk.ok(res["model"].config["scale_source"] == "1/module.attn_scale", "transformerlens scale",
       str(dict(res["model"].config)))
xt = torch.randn(2, 15, 32)
for given in ({"": 0.125}, torch.tensor(0.125)):  # monitor(scale=) wins over attn_scale
    res, w, mon = run_one(model, xt, scale=given)
    q, k = model.seen
    compare(chk, "transformerlens scale=%r" % (given,), res["model"],
            peer(*logits(q, k, 0.125, causal_vis(15, 15))))
    chk.ok(res["model"].config["scale_source"] == "scale=", "transformerlens scale= source",
           str(dict(res["model"].config)))


# 9. a sliding-window layer (window 4, causal): an SDPA boolean band mask and observe(window=)
class Window(nn.Module):
    def __init__(self, d=32, heads=4, window=4, path="sdpa"):
        super().__init__()
        self.num_heads, self.hd, self.window, self.path = heads, d // heads, window, path
        self.q_proj, self.k_proj = nn.Linear(d, d), nn.Linear(d, d)
        self.rotary_emb = Rotary(self.hd)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, n, self.num_heads, self.hd).transpose(1, 2)
        i, j = torch.arange(n)[:, None], torch.arange(n)[None]
        band = (j <= i) & (i - j < self.window)
        self.seen = (q.detach(), k.detach(), band)
        if self.path == "sdpa":
            return F.scaled_dot_product_attention(q, k, k, attn_mask=band)
        sdpa_var.observe(q, k, causal=True, window=self.window)
        s = (q @ k.transpose(-1, -2) / math.sqrt(self.hd)).masked_fill(~band, -math.inf)
        return torch.softmax(s, -1) @ k


if not skip_masked(chk, "a sliding-window layer"):
    for path in ("sdpa", "observe"):
        model = Window(path=path)
        res, w, mon = run_one(model, torch.randn(2, 16, 32))
        q, k, band = model.seen
        compare(chk, "window " + path, res["model"], peer(*logits(q, k, None, band)))

chk.done()
