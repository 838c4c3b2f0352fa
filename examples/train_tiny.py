#!/usr/bin/python3
"""Train a tiny character-level decoder-only transformer here and save its Q, K.

    /usr/bin/python3 examples/train_tiny.py --out build/train_tiny
    /usr/bin/python3 examples/train_tiny.py --out /tmp/t --quick
    /usr/bin/python3 examples/train_tiny.py --out /tmp/t --variants qknorm,rope --steps 300

The data: the licence texts every Debian machine has (base-files'
/usr/share/common-licenses/GPL-3, GPL-2, LGPL-2.1, Apache-2.0; those present,
concatenated in that order), one token per character. The last 10 % is held
out: the fixed evaluation batch (EVAL_BATCH windows of n = context tokens at
evenly spaced offsets) comes from there.

The model (defaults: 4 layers, 4 heads, d_k 32, d_model 128, context 64):
token + learned position embeddings, pre-LN blocks x + attn(LN(x)),
x + mlp(LN(x)) (GELU, 4 d_model), a final LayerNorm and an untied output
layer; every Linear is nn.Linear with PyTorch's default init (kaiming-uniform,
a = sqrt 5: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), Var(W) = 1/(3 fan_in)), no
biases in the attention projections. Causal attention, written out by hand
(torch 1.13 has no F.scaled_dot_product_attention). The variants differ only
in the scores the softmax sees, with q = LN(x) W_q and k = LN(x) W_k per head:

  sqrt    logits = (q . k) / sqrt(d_k)                (Vaswani et al. 2017)
  none    logits = q . k                              (no scale)
  qknorm  q~ = sqrt(d_k) q / |q|, k~ = sqrt(d_k) k / |k| (each row of each
          head rescaled to norm R = sqrt(d_k), as sdpa-var's --qk-norm), then
          logits = s_h (q~ . k~) with s_h a LEARNABLE per-head multiplier
          (stored as log s_h), initialised to 1/sqrt(d_k). The rows of norm
          sqrt(d_k) are what Dehghani et al. 2023 get from a LayerNorm on q
          and k without its gain and mean (they use LayerNorm with a learnable
          gain and the fixed 1/sqrt(d_k)); the learnable scalar in place of a
          fixed scale follows Henry et al. 2020 ("Query-Key Normalization for
          Transformers"). So |logit| <= s_h d_k for every pair.
  rope    q^ = R_i q, k^ = R_j k (rotary embeddings, Su et al. 2021, after
          the projections, per head, GPT-NeoX / Llama's rotate_half
          convention: features l and l + d_k/2 of position i turned by the
          angle i theta^(-2l/d_k), theta = 10000, all d_k features), then
          logits = (q^ . k^) / sqrt(d_k): a function of q, k and j - i only.

What is saved (one .safetensors per (variant, step), written by
write_safetensors below from the format's spec, F32, little-endian):
  OUT/<variant>_step<NNNNNN>.safetensors with, for each layer L,
    layerL.q, layerL.k   batch x heads x n x d_k (PyTorch's bhnd layout):
                         what the attention multiplies, before the scale
                         multiplier: q, k for sqrt and none; q~, k~ (rows of
                         norm sqrt(d_k)) for qknorm; the rotated q^, k^ for
                         rope (what its softmax sees)
    layerL.scale         heads: the multiplier the model applies to q . k
                         (1/sqrt(d_k), 1, or s_h; 1/sqrt(d_k) for rope)
  taken on the fixed evaluation batch (train mode off, no dropout anyway)
  at the steps of --save (default 0, 50, 200 and the last step).
  OUT/log.json           configuration, loss per step, wall time per variant,
                         and every evaluation's per-layer per-head statistics
  OUT/heads.csv          the same statistics, one row per (variant, step,
                         layer, head); OUT/loss.csv: variant, step, loss
  OUT/steps.csv          one row per (variant, step) over all heads: mean,
                         min and max of raw_var, its random-init theory
                         (d_k/9; d_k for qknorm), mean entropy and max
                         weight, the largest max_abs_logit, the QK-norm bound
                         max_h s_h d_k (nan otherwise), the largest
                         sink_weight (examples/train_tiny.gp plots it)
The per-head statistics are computed in torch, in float64 from the saved
float32 q, k and multiplier (so the files reproduce them), through the full
causal weight matrix of the evaluation batch, averaged over its batch entries:
  entropy        nats, mean over query rows of -sum p log p (visible keys)
  entropy_norm   entropy / ln(keys seen), mean over rows with >= 2 keys
  max_weight     mean over rows of max_j p_ij
  sink_weight    mean over rows of p_i0 (the weight on the first token)
  max_abs_logit  max over visible pairs of |logit| (the multiplier included)
  max_logit      max over visible pairs of the logit, signed (QK-clip's
                 S_max; the batch's maximum)
  raw_var        variance (ddof 1) of q . k over ALL n x n pairs of the head
                 (masked ones too: the random-init theory is for all pairs)
  q_var, k_var   variance (ddof 0) of the entries of the saved q, k
  scale          the multiplier
Deterministic: torch.manual_seed(seed), batches drawn from a torch.Generator
seeded with seed, --threads (default 2) torch threads, OMP_WAIT_POLICY=passive.
"""
import argparse
import json
import math
import os
import struct
import sys
import time

# Idle OpenMP threads sleep instead of spinning: on this shared 2-core machine
# spinning made a 2-thread step 1.4 s instead of 0.17 s (load average 6).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

LICENSES = ("GPL-3", "GPL-2", "LGPL-2.1", "Apache-2.0")
LICENSE_DIR = "/usr/share/common-licenses"
EVAL_BATCH = 2
VARIANTS = ("sqrt", "none", "qknorm", "rope")
STEPS_HEADER = ("variant,step,eval_loss,layers,heads,n,dk,raw_var_mean,raw_var_min,raw_var_max,"
                "raw_var_init_theory,entropy_mean,max_weight_mean,max_abs_logit,"
                "logit_bound,sink_weight_max")
STAT_NAMES = ("entropy", "entropy_norm", "max_weight", "sink_weight",
              "max_abs_logit", "max_logit", "raw_var", "q_var", "k_var", "scale")


# ---------------------------------------------------------------- safetensors
def write_safetensors(path, tensors, metadata=None):
    """Write {name: tensor} as a .safetensors file, F32 little-endian.

    Format (huggingface/safetensors README): 8 bytes, the header's length N
    as an unsigned little-endian 64-bit integer; N bytes of JSON mapping each
    name to {"dtype", "shape", "data_offsets": [begin, end]} (byte offsets
    into the data that follows, in order, contiguous) and an optional
    "__metadata__" of string -> string; then the data, row-major. The header
    is padded with spaces to a multiple of 8 bytes so the data is aligned.
    Written to PATH.tmp then renamed: nothing half-written under PATH.
    """
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        a = t.detach().to(torch.float32).contiguous().cpu().numpy()
        raw = a.astype("<f4", copy=False).tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)
    os.replace(tmp, path)


# ---------------------------------------------------------------- model
class Rotary(nn.Module):
    """Rotary embeddings as GPT-NeoX and HF Llama apply them (rotate_half):
    for a b x heads x n x d_k tensor, features l and l + d_k/2 of position i
    turned by the angle i theta^(-2l/d_k). cos and sin are float32 tables
    of the first `context` positions (buffers, not saved)."""

    def __init__(self, d_k, context, theta=10000.0):
        super().__init__()
        inv = 1.0 / theta ** (torch.arange(0, d_k, 2, dtype=torch.float32) / d_k)
        ang = torch.outer(torch.arange(context, dtype=torch.float32), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, x):
        n = x.shape[-2]
        x1, x2 = x.chunk(2, dim=-1)
        return x * self.cos[:n] + torch.cat((-x2, x1), dim=-1) * self.sin[:n]


class Attention(nn.Module):
    """Causal multi-head self-attention with its q, k in the open.

    Attributes a monitor can use: q_proj, k_proj, v_proj, o_proj (nn.Linear
    d_model -> d_model, no bias; head h is output columns h d_k .. (h+1) d_k),
    n_heads, d_k, qk_norm (True for the qknorm variant: the rows q_proj gives
    are rescaled to norm sqrt(d_k) before the product, so a hook on q_proj
    sees the pre-norm q), hook_q and hook_k (nn.Identity modules whose
    forward hooks see q, k batch x heads x n x d_k: what the product uses,
    except for rope, where, as in TransformerLens, they are before the
    rotation), and scale() (the multiplier per head, a tensor of n_heads).
    rope only: rotary_emb (a Rotary), hook_rot_q and hook_rot_k (the rotated
    q, k the product uses), and observe: None, or a function called as
    observe(q, k, scale=, causal=True) with the rotated q, k in every
    forward (train_variant sets sdpa_var.observe, which does nothing unless
    a monitor is attached).
    With capture = True, forward keeps self.q, self.k (batch x heads x n x
    d_k, what the product uses, detached).
    """

    def __init__(self, d_model, n_heads, variant, context):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads, self.d_k, self.variant = n_heads, d_model // n_heads, variant
        self.qk_norm = variant == "qknorm"
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
        if self.qk_norm:
            self.log_scale = nn.Parameter(torch.full((n_heads,), -0.5 * math.log(self.d_k)))
        # Hook points (as TransformerLens's): identities the q and k the
        # product uses pass through, batch x heads x n x d_k, so a forward
        # hook on them sees the post-QK-norm rows a hook on q_proj cannot.
        self.hook_q, self.hook_k = nn.Identity(), nn.Identity()
        self.hook_layout = "bhnd"  # for sdpa_var.monitor: what the hooks see
        self.rotary_emb, self.observe = None, None
        if variant == "rope":  # no parameters: the same init as sqrt's
            self.rotary_emb = Rotary(self.d_k, context)
            self.hook_rot_q, self.hook_rot_k = nn.Identity(), nn.Identity()
        self.capture = False

    def scale(self):
        if self.qk_norm:
            return self.log_scale.exp()
        c = 1.0 if self.variant == "none" else 1.0 / math.sqrt(self.d_k)
        return torch.full((self.n_heads,), c)

    def forward(self, x):
        b, n, d = x.shape

        def heads(t):
            return t.view(b, n, self.n_heads, self.d_k).transpose(1, 2)

        q, k, v = heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x))
        if self.qk_norm:
            r = math.sqrt(self.d_k)
            q = r * F.normalize(q, dim=-1, eps=1e-6)
            k = r * F.normalize(k, dim=-1, eps=1e-6)
        q, k = self.hook_q(q), self.hook_k(k)
        scale = self.scale().to(x.dtype)
        if self.rotary_emb is not None:
            q = self.hook_rot_q(self.rotary_emb(q))
            k = self.hook_rot_k(self.rotary_emb(k))
            if self.observe is not None:  # the float32 multiplier, exactly
                self.observe(q, k, scale=float(scale[0]), causal=True)
        logits = (q @ k.transpose(-2, -1)) * scale.view(1, -1, 1, 1)
        mask = torch.ones(n, n, dtype=torch.bool, device=x.device).triu(1)
        logits = logits.masked_fill(mask, float("-inf"))
        if self.capture:
            self.q, self.k = q.detach(), k.detach()
        y = torch.softmax(logits, dim=-1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, d_model, n_heads, variant, context):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attn = Attention(d_model, n_heads, variant, context)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, context, n_layers, n_heads, d_model, variant):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(context, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, variant, context)
                                    for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx, targets=None):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


# ---------------------------------------------------------------- data
def load_text():
    parts = []
    for name in LICENSES:
        p = os.path.join(LICENSE_DIR, name)
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                parts.append(f.read())
    if not parts:
        sys.exit("train_tiny.py: %s: none of %s found (Debian's base-files)"
                 % (LICENSE_DIR, ", ".join(LICENSES)))
    return "\n".join(parts)


def encode(text):
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    return torch.tensor([stoi[c] for c in text], dtype=torch.long), chars


def eval_batch(val, context):
    """EVAL_BATCH windows of the held-out text at evenly spaced offsets."""
    span = len(val) - context - 1
    offs = [i * span // max(EVAL_BATCH - 1, 1) for i in range(EVAL_BATCH)]
    x = torch.stack([val[o:o + context] for o in offs])
    y = torch.stack([val[o + 1:o + context + 1] for o in offs])
    return x, y


# ---------------------------------------------------------------- statistics
def head_stats(attn):
    """Per-head statistics (dict of lists over heads) of a captured forward:
    from the saved float32 q, k and multiplier, in float64 (so the files
    reproduce them), through the full causal weight matrix; means over the
    batch entries (max_abs_logit, max_logit: the largest). max_logit is
    torch's until the engine has a signed max: then the monitor's
    scaled_max_logit is logged beside it (evaluate) and compared by
    tests/train/train_tiny_test.py."""
    q, k = attn.q.double(), attn.k.double()
    b, h, n, _ = q.shape
    s = q @ k.transpose(-2, -1)
    mask = torch.ones(n, n, dtype=torch.bool).triu(1)
    logits = (s * attn.scale().double().view(1, -1, 1, 1)).masked_fill(mask, float("-inf"))
    p = torch.softmax(logits, dim=-1)
    plogp = torch.where(p > 0, p * torch.log(p), torch.zeros_like(p))
    ent = -plogp.sum(-1)                                  # b h n
    seen = torch.arange(1, n + 1, dtype=torch.float64)
    rows = seen >= 2
    ent_norm = (ent[..., rows] / torch.log(seen[rows])).mean(-1)
    finite = torch.isfinite(logits)
    absl = torch.where(finite, logits.abs(), torch.zeros_like(logits))
    out = {
        "entropy": ent.mean(-1),
        "entropy_norm": ent_norm,
        "max_weight": p.max(-1).values.mean(-1),
        "sink_weight": p[..., 0].mean(-1),
        "max_abs_logit": absl.flatten(2).max(-1).values,
        "max_logit": logits.flatten(2).max(-1).values,  # -inf never wins: i sees i
        "raw_var": s.flatten(2).var(-1, unbiased=True),
        "q_var": q.flatten(2).var(-1, unbiased=False),
        "k_var": k.flatten(2).var(-1, unbiased=False),
    }
    res = {name: v.mean(0).tolist() for name, v in out.items()}
    for name in ("max_abs_logit", "max_logit"):
        res[name] = out[name].max(0).values.tolist()
    res["scale"] = attn.scale().double().tolist()
    return res


def load_sdpa_var():
    """The sdpa_var package, from the build tree (build/python) or an
    install; None when it is not there (the run then logs torch's numbers
    only)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "build", "python"))
    try:
        import sdpa_var
    except ImportError:
        return None
    finally:
        sys.path.pop(0)
    return sdpa_var


@torch.no_grad()
def evaluate(model, ex, ey, monitor=None):
    """Loss on the evaluation batch, per-layer statistics, captured q, k;
    with @p monitor (sdpa_var.monitor), the engine's numbers of the same
    forward too: layer["monitor"][name] is a batch x heads list."""
    model.eval()
    attns = [blk.attn for blk in model.blocks]
    for a in attns:
        a.capture = True
    # reduce="none": batch x heads, as head_stats before its means
    mon = monitor(model, every=1, causal=True, reduce="none") if monitor else None
    loss = model(ex, ey).item()
    layers = [head_stats(a) for a in attns]
    if mon:
        got = mon.step()
        mon.remove()
        for i, lay in enumerate(layers):
            st = got["blocks.%d.attn" % i]
            lay["monitor"] = {n: st.values[n].tolist() for n in MONITORED if n in st.values}
            lay["monitor_path"] = st.config["path"]
    tensors = {}
    for i, a in enumerate(attns):
        tensors["layer%d.q" % i] = a.q
        tensors["layer%d.k" % i] = a.k
        tensors["layer%d.scale" % i] = a.scale().detach()
        a.capture = False
        del a.q, a.k
    model.train()
    return loss, layers, tensors


# The monitor's statistics logged beside torch's, those the engine has (the
# signed *_max_logit come with the engine's masks, issue 23 section 2).
MONITORED = ("raw_entropy", "scaled_entropy", "raw_max_weight", "scaled_max_weight",
             "raw_sink_weight", "scaled_sink_weight", "raw_max_abs_logit", "scaled_max_abs_logit",
             "raw_entropy_norm", "scaled_entropy_norm", "raw_max_logit", "scaled_max_logit")


# ---------------------------------------------------------------- training
def lr_at(step, args):
    """Linear warm-up over args.warmup steps, then cosine to 10 %."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    t = (step - args.warmup) / max(args.steps - args.warmup, 1)
    return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def train_variant(variant, data, vocab, args, saves, log):
    torch.manual_seed(args.seed)
    sv = load_sdpa_var()
    monitor = sv.monitor if sv else None
    model = TinyGPT(vocab, args.context, args.layers, args.heads, args.d_model, variant)
    for blk in model.blocks:  # rope: the rotated q, k to a monitor (Attention)
        blk.attn.observe = sv.observe if sv else None
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95),
                            weight_decay=0.1)
    gen = torch.Generator().manual_seed(args.seed)
    train, ex, ey = data
    losses, evals = [], []
    t0 = time.perf_counter()
    for step in range(args.steps + 1):
        if step in saves or step % args.eval_every == 0 or step == args.steps:
            eloss, layers, tensors = evaluate(model, ex, ey, monitor)
            evals.append({"step": step, "eval_loss": eloss, "layers": layers})
            if step in saves:
                path = os.path.join(args.out, "%s_step%06d.safetensors" % (variant, step))
                write_safetensors(path, tensors, {
                    "variant": variant, "step": step, "seed": args.seed,
                    "layout": "bhnd", "d_k": args.d_model // args.heads,
                    "what": "q, k as multiplied, before the scale multiplier"})
            if not args.silent:
                print("%-6s step %5d  eval loss %.4f  %.1f s" % (
                    variant, step, eloss, time.perf_counter() - t0), flush=True)
        if step == args.steps:
            break
        ix = torch.randint(len(train) - args.context - 1, (args.batch,), generator=gen)
        x = torch.stack([train[i:i + args.context] for i in ix.tolist()])
        y = torch.stack([train[i + 1:i + args.context + 1] for i in ix.tolist()])
        for g in opt.param_groups:
            g["lr"] = lr_at(step, args)
        loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if not math.isfinite(losses[-1]):
            sys.exit("train_tiny.py: %s: loss %r at step %d" % (variant, losses[-1], step))
    log["variants"][variant] = {"d_k": args.d_model // args.heads, "loss": losses, "evals": evals,
                                "wall_seconds": time.perf_counter() - t0}


def write_tables(out, log):
    with open(os.path.join(out, "loss.csv"), "w") as f:
        f.write("variant,step,loss\n")
        for v, r in log["variants"].items():
            for i, loss in enumerate(r["loss"]):
                f.write("%s,%d,%.6g\n" % (v, i, loss))
    with open(os.path.join(out, "heads.csv"), "w") as f:
        f.write("variant,step,eval_loss,layer,head," + ",".join(STAT_NAMES) + "\n")
        for v, r in log["variants"].items():
            for e in r["evals"]:
                for li, layer in enumerate(e["layers"]):
                    for h in range(len(layer["entropy"])):
                        vals = ",".join("%.9g" % layer[s][h] for s in STAT_NAMES)
                        f.write("%s,%d,%.6g,%d,%d,%s\n" % (v, e["step"], e["eval_loss"],
                                                          li, h, vals))
    with open(os.path.join(out, "steps.csv"), "w") as f:
        f.write(STEPS_HEADER + "\n")
        for v, r in log["variants"].items():
            d_k = r["d_k"]
            theory = d_k if v == "qknorm" else d_k / 9.0
            for e in r["evals"]:
                st = {k: [x for lay in e["layers"] for x in lay[k]] for k in STAT_NAMES}
                bound = max(st["scale"]) * d_k if v == "qknorm" else float("nan")
                f.write("%s,%d,%.6g,%d,%d,%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n" % (
                    v, e["step"], e["eval_loss"], len(e["layers"]), len(e["layers"][0]["entropy"]),
                    log["config"]["context"], d_k, sum(st["raw_var"]) / len(st["raw_var"]),
                    min(st["raw_var"]), max(st["raw_var"]), theory,
                    sum(st["entropy"]) / len(st["entropy"]),
                    sum(st["max_weight"]) / len(st["max_weight"]),
                    max(st["max_abs_logit"]), bound, max(st["sink_weight"])))
    with open(os.path.join(out, "log.json"), "w") as f:
        json.dump(log, f, indent=1)
        f.write("\n")


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, exit 2 (docs/robustness.md)."""

    def error(self, message):
        self.exit(2, "train_tiny.py: %s\n" % message)


def parse_args(argv):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="build/train_tiny", help="output directory")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated subset of " + ",".join(VARIANTS))
    ap.add_argument("--steps", type=int, default=None, help="training steps")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true",
                    help="seconds-long run for the test suite (2 layers, 60 steps)")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--context", type=int, default=64)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--save", default=None,
                    help="comma-separated steps to save Q, K at (default 0,50,200,last)")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--silent", action="store_true")
    args = ap.parse_args(argv)
    if args.quick:
        args.layers = 2
        if args.steps is None:
            args.steps = 60
    if args.steps is None:
        args.steps = 500
    variants = args.variants.split(",")
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        ap.error("--variants: %r: expected a subset of %s" % (args.variants, ",".join(VARIANTS)))
    if args.steps < 1 or args.d_model % args.heads:
        ap.error("--steps must be >= 1 and --d-model a multiple of --heads")
    if args.save is None:
        saves = sorted({0, 50, 200, args.steps} & set(range(args.steps + 1)))
    else:
        try:
            saves = sorted({int(s) for s in args.save.split(",")})
        except ValueError:
            ap.error("--save: %r: expected comma-separated step numbers" % args.save)
        if saves[0] < 0 or saves[-1] > args.steps:
            ap.error("--save: %r: steps must lie in 0..%d (--steps)" % (args.save, args.steps))
    return args, variants, saves


def main(argv=None):
    args, variants, saves = parse_args(argv)
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    text = load_text()
    ids, chars = encode(text)
    cut = len(ids) * 9 // 10
    ex, ey = eval_batch(ids[cut:], args.context)
    log = {"config": {k: v for k, v in vars(args).items()},
           "licenses": [n for n in LICENSES if os.path.exists(os.path.join(LICENSE_DIR, n))],
           "chars": len(text), "vocab": len(chars), "saves": saves,
           "torch": torch.__version__, "variants": {}}
    t0 = time.perf_counter()
    for v in variants:
        train_variant(v, (ids[:cut], ex, ey), len(chars), args, set(saves), log)
    log["wall_seconds"] = time.perf_counter() - t0
    write_tables(args.out, log)
    if not args.silent:
        print("wall %.1f s; files in %s" % (log["wall_seconds"], args.out))


if __name__ == "__main__":
    main()
