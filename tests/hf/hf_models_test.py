"""The monitor on HF transformers models (issue 32 §2), against each
model's own softmax: small models built from configs (random init, no
download), for attn_implementation "eager" and "sdpa" (and
"flex_attention"). Truth: HF's own attention probabilities,
output_attentions=True on an eager copy with the same weights. Every
statistic per layer x head that is a function of the weights (entropy,
normalised entropy, max weight, sink weight) within relative 1e-6
(float32: HF's softmax rounds each weight to ~6e-8 relative; the monitor
computes in double from the same float32 Q and K), or a refusal (a
warning naming the feature, and no numbers for that layer).

Writes one line per (model, implementation) to OUT.tsv for the support
table of docs/python.md:  version, model, implementation, result, detail.

    hf_models_test.py OUT.tsv      (transformers from sys.path: 5.x, or
                                    4.x with build-venv/hf4 first)
"""

import re
import sys
import warnings

import torch

import transformers
import sdpa_var
from monitor_common import RECORD, install_sdpa, logits, weight_peer
from reference import Checker

VERSION = transformers.__version__
chk = Checker("hf.models[transformers %s]" % VERSION)
install_sdpa(chk.name)  # records each F.scaled_dot_product_attention call
torch.set_default_dtype(torch.float32)
T = transformers
D, H, KV, L, N, V = 64, 4, 2, 2, 12, 97

MODELS = {
    # RoPE, GQA, causal
    "llama": lambda: T.LlamaConfig(vocab_size=V, hidden_size=D, intermediate_size=128,
                                   num_hidden_layers=L, num_attention_heads=H,
                                   num_key_value_heads=KV, max_position_embeddings=64),
    # sliding window (4 keys) on every layer
    "mistral": lambda: T.MistralConfig(vocab_size=V, hidden_size=D, intermediate_size=128,
                                       num_hidden_layers=L, num_attention_heads=H,
                                       num_key_value_heads=KV, sliding_window=4,
                                       max_position_embeddings=64),
    # QK-norm after the projections
    "qwen3": lambda: T.Qwen3Config(vocab_size=V, hidden_size=D, intermediate_size=128,
                                   num_hidden_layers=L, num_attention_heads=H,
                                   num_key_value_heads=KV, head_dim=16,
                                   max_position_embeddings=64),
    # query_pre_attn_scalar, alternating sliding (4) and global layers; no
    # softcapping here (gemma2_softcap below)
    "gemma2": lambda: T.Gemma2Config(vocab_size=V, hidden_size=D, intermediate_size=128,
                                     num_hidden_layers=L, num_attention_heads=H,
                                     num_key_value_heads=KV, head_dim=16,
                                     query_pre_attn_scalar=24, sliding_window=4,
                                     attn_logit_softcapping=None,
                                     final_logit_softcapping=None,
                                     max_position_embeddings=64),
    # Conv1D, scale_attn_by_inverse_layer_idx, a padding mask
    "gpt2": lambda: T.GPT2Config(vocab_size=V, n_embd=D, n_layer=L, n_head=H, n_positions=64,
                                 scale_attn_by_inverse_layer_idx=True),
    # partial rotary (25 %)
    "gpt_neox": lambda: T.GPTNeoXConfig(vocab_size=V, hidden_size=D, intermediate_size=128,
                                        num_hidden_layers=L, num_attention_heads=H,
                                        rotary_pct=0.25, max_position_embeddings=64),
    # rotary on the first rotary_dim dimensions, computed inside the module
    "gptj": lambda: T.GPTJConfig(vocab_size=V, n_embd=D, n_layer=L, n_head=H, rotary_dim=8,
                                 n_positions=64),
    # fused qkv
    "phi3": lambda: T.Phi3Config(vocab_size=V, hidden_size=D, intermediate_size=128,
                                 num_hidden_layers=L, num_attention_heads=H,
                                 num_key_value_heads=KV, max_position_embeddings=64,
                                 pad_token_id=0),
    # bidirectional, a padding mask
    "bert": lambda: T.BertConfig(vocab_size=V, hidden_size=D, intermediate_size=128,
                                 num_hidden_layers=L, num_attention_heads=H,
                                 max_position_embeddings=64),
}
PADDED = {"gpt2", "bert"}
# Logits changed after the scale: the monitor must refuse by name.
REFUSED = {
    "gemma2_softcap": (lambda: MODELS["gemma2"]().__class__(
        **{**MODELS["gemma2"]().to_dict(), "attn_logit_softcapping": 50.0}), "softcap"),
}


def build(cfg, impl):
    torch.manual_seed(32)
    m = T.AutoModel.from_config(cfg, attn_implementation=impl)
    return m.eval()


def inputs(name):
    g = torch.Generator().manual_seed(7)
    ids = torch.randint(1, V, (2, N), generator=g)
    am = torch.ones(2, N, dtype=torch.long)
    if name in PADDED:
        am[1, N - 4:] = 0  # the second sequence: 4 padding tokens at the end
    return ids, am


def layer_of(name):
    got = re.findall(r"\d+", name)
    return int(got[0]) if got else None


def peer(p):
    """reduce="batch" statistics per head from a model's own probabilities
    p (batch x heads x n_q x n_k): a key is seen where its weight is > 0."""
    p = p.double()
    return weight_peer(p, p > 0)


def run(name, make_cfg, impl):
    cfg = make_cfg()
    try:
        model = build(cfg, impl)
    except Exception as e:  # e.g. flex_attention on a torch without it
        return "not built", "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:120])
    truth = build(make_cfg(), "eager")
    truth.load_state_dict(model.state_dict())
    ids, am = inputs(name)
    with torch.no_grad():
        eager_out = truth(ids, attention_mask=am, output_attentions=True)
    want, note = eager_out.attentions, ""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            mon = sdpa_var.monitor(model)
        except ValueError as e:
            return "refused", str(e).splitlines()[0][:200]
        del RECORD[:]
        with mon, torch.no_grad():
            own = model(ids, attention_mask=am).last_hidden_state
            res = mon.step()
    # Where HF's implementations disagree (transformers 4.57's GPT-2 "sdpa"
    # drops scale_attn_by_inverse_layer_idx), the eager copy is not this
    # model: its own softmax is the SDPA calls' (recorded, in float64).
    if (own - eager_out.last_hidden_state).abs().max() > 1e-4 and len(RECORD) == len(want):
        want = [torch.softmax(logits(q, k, c, vis, add)[0], -1) for q, k, c, vis, add in RECORD]
        note = "; HF's %s and eager differ here: truth is its SDPA calls' softmax" % impl
    msgs = [str(x.message) for x in w]
    got = {}
    for lname, st in (res or {}).items():
        i = layer_of(lname)
        if i is not None and st is not None:
            got.setdefault(i, []).append((lname, st))
    return got, (want, msgs, note)


def check(name, impl, got, want):
    bad = 0
    for i, p in enumerate(want):
        layers = got.get(i, [])
        if len(layers) != 1:
            chk.ok(False, "%s %s layer %d" % (name, impl, i),
                   "%d monitored layers report it: %s" % (len(layers), [n for n, _ in layers]))
            bad += 1
            continue
        lname, st = layers[0]
        for stat, ref in peer(p).items():
            g = st.values[stat]
            for h in range(len(ref)):
                ok = abs(float(g[h]) - float(ref[h])) <= 1e-6 * abs(float(ref[h])) + 1e-12
                bad += not ok
                chk.ok(ok, "%s %s %s %s[h=%d]" % (name, impl, lname, stat, h),
                       "monitor %r, HF %r" % (float(g[h]), float(ref[h])))
    return bad


def expected_refusal(name, impl):
    """The feature a refusal must name where one is expected, else None."""
    if impl == "flex_attention":
        return "BlockMask"        # flex_attention passes a BlockMask
    if name == "bert" and impl == "eager" and VERSION.startswith("4."):
        return "inline"           # 4.x's BERT: no eager_attention_forward
    if name == "gptj" and impl == "eager":
        return "inline"           # GPT-J computes its eager attention inline
    return None


# HF has no such implementation for these models (it says so at loading).
NOT_BUILT = {("gptj", "sdpa")}


def main(out):
    rows = []
    for name, make in MODELS.items():
        for impl in ("eager", "sdpa", "flex_attention"):
            feature = expected_refusal(name, impl)
            got, extra = run(name, make, impl)
            if got == "not built":  # HF itself refuses this implementation
                rows.append((name, impl, "not built (HF)", extra))
                chk.ok(impl == "flex_attention" or (name, impl) in NOT_BUILT,
                       "%s %s built" % (name, impl), extra)
            elif got == "refused":  # ValueError at monitor()
                rows.append((name, impl, "refused at monitor()", extra))
                chk.ok(feature is not None and feature in extra,
                       "%s %s: refused at monitor()" % (name, impl), extra)
            elif not got:  # no numbers: each call refused with a warning
                msgs = [m for m in extra[1] if m.startswith("sdpa_var")]
                rows.append((name, impl, "refused in forward", (msgs or [""])[0]))
                chk.ok(feature is not None and any(feature in m for m in msgs),
                       "%s %s: no numbers" % (name, impl), str(msgs))
            else:
                want, msgs, note = extra
                chk.ok(feature is None, "%s %s: measured where a refusal (%s) is expected"
                       % (name, impl, feature))
                bad = check(name, impl, got, want)
                rows.append((name, impl, "measured" if not bad else "WRONG",
                             "%d layers x %d heads within 1e-6%s"
                             % (len(want), want[0].shape[1], note)))
            print("%s %s: %s (%s)" % (name, impl, rows[-1][2], rows[-1][3][:160]))
    for name, (make, feature) in REFUSED.items():
        for impl in ("eager", "sdpa"):
            got, extra = run(name, make, impl)
            msgs = [m for m in extra[1] if m.startswith("sdpa_var")] if not isinstance(
                got, str) else [extra]
            named = [m for m in msgs if feature in m]
            ok = not got and bool(named) if not isinstance(got, str) else False
            chk.ok(ok, "%s %s refused by name (%s)" % (name, impl, feature),
                   "numbers for %s; warnings %s" % (sorted(got) if not isinstance(
                       got, str) else got, msgs))
            rows.append((name, impl, "refused in forward" if ok else "WRONG",
                         (named or msgs or [""])[0]))
            print("%s %s: %s (%s)" % (name, impl, rows[-1][2], rows[-1][3][:160]))
    with open(out, "w") as f:
        for r in rows:
            f.write("\t".join((VERSION,) + tuple(x.replace("\t", " ").replace("\n", " ")
                                                  for x in r)) + "\n")
    chk.done()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/dev/null")
