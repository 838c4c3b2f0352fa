"""The monitor on TransformerLens's HookedTransformer (issue 32 §2):
models built from HookedTransformerConfig (random init, no download),
standard and rotary positions, and with the older TransformerLens fill
IGNORE = -1e5 (ARENA-style code; recent versions fill with -inf). Truth:
TransformerLens's own pattern (run_with_cache, cache["pattern", layer]).
Every statistic per layer x head that is a function of the weights within
relative 1e-6 (float32 pattern; the monitor computes in double from the
same float32 hook points).

Appends one line per model to OUT.tsv for docs/python.md's support table.

    tl_models_test.py OUT.tsv
"""

import importlib.metadata
import sys

import torch
import transformers
from transformer_lens import HookedTransformer, HookedTransformerConfig

import sdpa_var
from hf_models_test import layer_of, peer
from reference import Checker

TL = "hooks, TransformerLens " + importlib.metadata.version("transformer-lens")
chk = Checker("hf.tl_models")


def build(pos, seed=3):
    cfg = HookedTransformerConfig(n_layers=2, d_model=64, n_heads=4, d_head=16, n_ctx=32,
                                  d_vocab=50, act_fn="gelu", positional_embedding_type=pos,
                                  seed=seed, device="cpu")
    return HookedTransformer(cfg).eval()


def run(what, model):
    tokens = torch.randint(0, 50, (2, 12), generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        _, cache = model.run_with_cache(tokens)
    want = [cache["pattern", i] for i in range(model.cfg.n_layers)]
    with sdpa_var.monitor(model) as mon, torch.no_grad():
        model(tokens)
        res = mon.step()
    bad = 0
    for i, p in enumerate(want):
        layers = [(n, st) for n, st in res.items() if layer_of(n) == i]
        if not chk.ok(len(layers) == 1, "%s layer %d: one monitored layer" % (what, i),
                      str(list(res))):
            bad += 1
            continue
        name, st = layers[0]
        for stat, ref in peer(p).items():
            for h in range(len(ref)):
                g, r = float(st.values[stat][h]), float(ref[h])
                ok = abs(g - r) <= 1e-6 * abs(r) + 1e-12
                bad += not ok
                chk.ok(ok, "%s %s %s[h=%d]" % (what, name, stat, h), "monitor %r, TL %r" % (g, r))
        chk.ok(st.config["path"].startswith("hooks:tl"), "%s %s path" % (what, name),
               str(st.config["path"]))
    return "measured" if not bad else "WRONG", "%d layers x %d heads within 1e-6" % (
        len(want), want[0].shape[1])


def main(out):
    rows = []
    for pos in ("standard", "rotary"):
        rows.append(("HookedTransformer %s" % pos, TL) + run(pos, build(pos)))
    old = build("standard")
    for b in old.blocks:  # older TransformerLens and ARENA-style code
        b.attn.IGNORE = torch.tensor(-1e5)
    rows.append(("HookedTransformer IGNORE=-1e5", TL) + run("IGNORE=-1e5", old))
    for r in rows:
        print("%s: %s (%s)" % (r[0], r[2], r[3]))
    with open(out, "w") as f:
        for r in rows:
            f.write("\t".join((transformers.__version__,) + r) + "\n")
    chk.done()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/dev/null")
