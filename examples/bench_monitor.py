#!/usr/bin/python3
"""Cost of sdpa_var.monitor (docs/python.md, "Cost"), two benchmarks:

  PYTHONPATH=build/python /usr/bin/python3 examples/bench_monitor.py
    Against torch computing the same numbers from the full weight matrix
    (issue 17, section 2): for each size, a forward pass of an
    nn.MultiheadAttention (batch_first, float32) with the monitor attached
    and measuring, and the same forward followed by torch computing
    per-head entropy, max weight, sink share and max |logit| (raw and
    scaled) from the n x n weights; median of REPS runs, milliseconds.

  PYTHONPATH=build/python /usr/bin/python3 examples/bench_monitor.py --train [--pairs 15]
    A training step of examples/train_tiny.py's model (its defaults: 4
    layers, 4 heads, d_k 32, context 64, batch 16; forward, backward,
    gradient clipping, AdamW) monitored against unmonitored (issue 23,
    section 3): blocks of 10 steps unmonitored, with monitor(every=1) and
    with monitor(every=10), run back to back in a rotating order; each
    block's time over the unmonitored block's of the same round is one
    paired ratio, and the table gives the median and quartiles of the
    ratios over --pairs rounds (a shared machine's load changes between
    rounds more than within one). Variants sqrt (the monitor's hooks on
    hook_q/hook_k) and rope (observe() in the forward), each after 3
    warm-up blocks.

  PYTHONPATH=build/python python3 examples/bench_monitor.py --device cuda [--backend B]
    A GPT-2-small-sized language model's training step (issue 39 section
    6): a Llama from a LlamaConfig (12 layers x 12 heads, head dim 64,
    hidden 768, GPT-2's vocabulary; attn_implementation "sdpa"; no
    download), or with --model plain (the default where transformers is
    absent) a pre-LN transformer of that shape calling
    F.scaled_dot_product_attention; batch 8 of 1024 random tokens, bf16
    autocast, AdamW. Per-step times (torch.cuda.synchronize() before and
    after each step) unmonitored, with monitor(every=1), every=10 and
    every=1 with rows=64, in blocks of --steps steps, --rounds rounds in a
    rotating order after a warm-up block of each; median and mean per step
    and each as a ratio to the unmonitored step's. --backend is passed to
    monitor(backend=) when given. --device cpu --tiny (2 layers x 4 heads,
    head dim 16, 128 tokens, batch 2) is a smoke run on any machine.

All print a markdown table on stdout, the machine on stderr."""

import math
import os
import statistics
import sys
import time

# As train_tiny.py: idle OpenMP threads sleep (this shared 2-core machine).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import sdpa_var  # noqa: E402

REPS = 5
SIZES = [(1, 256, 256, 4), (1, 1024, 256, 4), (1, 2048, 512, 8), (1, 4096, 512, 8)]


def torch_stats(q, k):
    """The monitored numbers from the full weight matrix, both scalings."""
    s = q @ k.transpose(-1, -2)
    out = {}
    for tag, c in (("raw", 1.0), ("scaled", q.shape[-1] ** -0.5)):
        p = torch.softmax(c * s, -1)
        ent = -(p * p.clamp_min(1e-300).log()).sum(-1)
        out[tag] = (ent.mean(-1), (ent / math.log(p.shape[-1])).mean(-1),
                    p.amax(-1).mean(-1), p[..., 0].mean(-1), (c * s).abs().amax((-1, -2)))
    return out


def qk(mha, x):
    e, h = mha.embed_dim, mha.num_heads
    w, b = mha.in_proj_weight, mha.in_proj_bias
    q = torch.nn.functional.linear(x, w[:e], b[:e])
    k = torch.nn.functional.linear(x, w[e:2 * e], b[e:2 * e])
    n = x.shape[1]
    return (q.view(x.shape[0], n, h, e // h).transpose(1, 2),
            k.view(x.shape[0], n, h, e // h).transpose(1, 2))


def timed(f):
    times = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def load_train_tiny():
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_tiny.py")
    spec = importlib.util.spec_from_file_location("train_tiny", path)
    tt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tt)
    return tt


def quartiles(x):
    q = statistics.quantiles(x, n=4, method="inclusive")
    return q[0], statistics.median(x), q[2]


def train_bench(pairs, block=10):
    """--train: the table of paired ratios (module docstring)."""
    tt = load_train_tiny()
    torch.set_num_threads(2)  # train_tiny.py's --threads default
    text = tt.load_text()
    ids, chars = tt.encode(text)
    print("| variant (monitor's path) | every | monitored step / unmonitored step: "
          "median [quartiles] over %d pairs |" % pairs)
    print("|---|---:|---|")
    for variant in ("sqrt", "rope"):
        torch.manual_seed(1)
        model = tt.TinyGPT(len(chars), 64, 4, 4, 128, variant)
        for blk in model.blocks:
            blk.attn.observe = sdpa_var.observe
        opt = torch.optim.AdamW(model.parameters(), lr=2e-3, betas=(0.9, 0.95),
                                weight_decay=0.1)
        gen = torch.Generator().manual_seed(1)
        ix = torch.randint(len(ids) - 65, (16,), generator=gen).tolist()
        x = torch.stack([ids[i:i + 64] for i in ix])
        y = torch.stack([ids[i + 1:i + 65] for i in ix])

        def run(every):
            mon = sdpa_var.monitor(model, every, causal=True) if every else None
            t0 = time.perf_counter()
            for _ in range(block):
                loss = model(x, y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                if mon is not None:
                    mon.step()
            t = time.perf_counter() - t0
            path = None
            if mon is not None:
                path = next(iter(mon.last.values())).config["path"]
                mon.remove()
            return t, path

        for every in (None, 1, 10):
            run(every)  # warm-up
        ratios, paths, kinds = {1: [], 10: []}, set(), [None, 1, 10]
        for r in range(pairs):
            times = {}
            for every in kinds[r % 3:] + kinds[:r % 3]:
                times[every], path = run(every)
                paths.add(path)
            for every in (1, 10):
                ratios[every].append(times[every] / times[None])
        path = ",".join(sorted(p for p in paths if p))
        for every in (1, 10):
            lo, med, hi = quartiles(ratios[every])
            print("| %s (%s) | %d | %.2f [%.2f, %.2f] |" % (variant, path, every, med, lo, hi),
                  flush=True)


# --device: a GPT-2-small-sized LM's training step (module docstring).
SHAPES = {"full": dict(layers=12, heads=12, dk=64, vocab=50257, n=1024, batch=8),
          "tiny": dict(layers=2, heads=4, dk=16, vocab=256, n=128, batch=2)}
VARIANTS = (("unmonitored", None), ("every=1", dict(every=1)), ("every=10", dict(every=10)),
            ("every=1, rows=64", dict(every=1, rows=64)))


class PlainAttention(nn.Module):
    """Causal self-attention through F.scaled_dot_product_attention."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.qkv, self.proj = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(a.transpose(1, 2).reshape(b, n, d))


class PlainBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(d), PlainAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class PlainLM(nn.Module):
    """Pre-LN GPT-2-like LM; forward(ids) -> the next-token loss."""

    def __init__(self, layers, heads, dk, vocab, n, **_):
        super().__init__()
        d = heads * dk
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Embedding(n, d)
        self.blocks = nn.ModuleList(PlainBlock(d, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        x = self.emb(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln(x))[:, :-1]
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(),
                                                 ids[:, 1:].reshape(-1))


def lm_model(kind, shape):
    """(model, loss(ids)) of @p kind ("llama", "plain" or None: llama where
    transformers imports) and @p shape (SHAPES)."""
    if kind in (None, "llama"):
        try:
            import transformers
        except ImportError:
            if kind == "llama":
                raise SystemExit("--model llama: transformers does not import here")
            kind = "plain"
    if kind == "plain":
        model = PlainLM(**shape)
        return model, model, "plain"
    d = shape["heads"] * shape["dk"]
    cfg = transformers.LlamaConfig(
        vocab_size=shape["vocab"], hidden_size=d, intermediate_size=4 * d,
        num_hidden_layers=shape["layers"], num_attention_heads=shape["heads"],
        num_key_value_heads=shape["heads"], max_position_embeddings=shape["n"])
    model = transformers.LlamaForCausalLM._from_config(cfg, attn_implementation="sdpa")
    return model, lambda ids: model(input_ids=ids, labels=ids).loss, "llama"


def lm_bench(args):
    """--device: the table of per-step times and ratios (module docstring)."""
    shape = SHAPES["tiny" if args.tiny else "full"]
    dev = torch.device(args.device)
    torch.manual_seed(0)
    model, loss_of, kind = lm_model(args.model, shape)
    model.to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(shape["vocab"], (shape["batch"], shape["n"]), generator=gen).to(dev)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    def block(options, steps):
        """Per-step seconds of @p steps steps under monitor(**options)."""
        mon = None
        if options is not None:
            kw = dict(options)
            if args.backend is not None:
                kw["backend"] = args.backend
            mon = sdpa_var.monitor(model, **kw)
        times, path = [], None
        try:
            for _ in range(steps):
                sync()
                t0 = time.perf_counter()
                with torch.autocast(dev.type, dtype=torch.bfloat16):
                    loss = loss_of(ids)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                if mon is not None and mon.step():
                    path = next(iter(mon.last.values())).config["path"]
                sync()
                times.append(time.perf_counter() - t0)
        finally:
            if mon is not None:
                mon.remove()
        return times, path

    for _, options in VARIANTS:  # warm-up: kernels, allocator, the monitor's first attach
        block(options, 2)
    times, paths = {name: [] for name, _ in VARIANTS}, {}
    for r in range(args.rounds):
        order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
        for name, options in order:
            t, path = block(options, args.steps)
            times[name] += t
            paths[name] = path or paths.get(name)
    base_med = statistics.median(times["unmonitored"])
    base_mean = statistics.fmean(times["unmonitored"])
    print("| monitor | path | step median (ms) | step mean (ms) | median / unmonitored | "
          "mean / unmonitored |")
    print("|---|---|---:|---:|---:|---:|")
    for name, _ in VARIANTS:
        med, mean = statistics.median(times[name]), statistics.fmean(times[name])
        print("| %s | %s | %.1f | %.1f | %.2f | %.2f |" % (
            name, paths.get(name) or "-", 1e3 * med, 1e3 * mean, med / base_med,
            mean / base_mean), flush=True)
    where = torch.cuda.get_device_name(dev) if dev.type == "cuda" else machine()
    print("\n%s; %s model, %d layers x %d heads, head dim %d, batch %d x %d tokens, bf16 "
          "autocast, AdamW; %d rounds x %d steps a variant; torch %s, sdpa_var %s%s" % (
              where, kind, shape["layers"], shape["heads"], shape["dk"], shape["batch"],
              shape["n"], args.rounds, args.steps, torch.__version__, sdpa_var.__version__,
              "" if args.backend is None else ", backend=" + args.backend), file=sys.stderr)


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return "%s, %d CPUs, load average %.1f" % (cpu, os.cpu_count(), os.getloadavg()[0])


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="store_true",
                    help="train_tiny.py's training step, monitored over unmonitored")
    ap.add_argument("--pairs", type=int, default=15, help="--train: rounds (>= 2)")
    ap.add_argument("--device", choices=("cuda", "cpu"),
                    help="a GPT-2-small-sized model's training step on this device")
    ap.add_argument("--tiny", action="store_true",
                    help="--device: 2 layers x 4 heads, 128 tokens, batch 2 (a smoke run)")
    ap.add_argument("--model", choices=("llama", "plain"),
                    help="--device: HF Llama (default where transformers imports) or a plain "
                    "torch model calling F.scaled_dot_product_attention")
    ap.add_argument("--steps", type=int, default=20, help="--device: steps a block (>= 1)")
    ap.add_argument("--rounds", type=int, default=3, help="--device: blocks of each (>= 1)")
    ap.add_argument("--backend", help="--device: passed to monitor(backend=) when given")
    args = ap.parse_args()
    if args.pairs < 2:
        ap.error("--pairs: %d: need at least 2 rounds for quartiles" % args.pairs)
    if args.device is not None:
        if args.steps < 1 or args.rounds < 1:
            ap.error("--steps and --rounds: at least 1")
        if args.device == "cuda" and not torch.cuda.is_available():
            ap.error("--device cuda: torch %s sees no CUDA device" % torch.__version__)
        lm_bench(args)
        return
    if args.tiny or args.model or args.backend:
        ap.error("--tiny, --model and --backend go with --device")
    if args.train:
        train_bench(args.pairs)
        print("\n%s; torch %s, %d torch threads, sdpa_var %s" % (
            machine(), torch.__version__, torch.get_num_threads(), sdpa_var.__version__),
            file=sys.stderr)
        return
    torch.manual_seed(0)
    print("| batch | n | d_model | heads | forward (ms) | + monitor (ms) | "
          "+ torch from weights (ms) | monitor / torch |")
    print("|---|---|---|---|---|---|---|---|")
    for b, n, d, h in SIZES:
        mha = nn.MultiheadAttention(d, h, batch_first=True)
        x = torch.randn(b, n, d)
        with torch.no_grad():
            base = timed(lambda: mha(x, x, x, need_weights=False))
            mon = sdpa_var.monitor(mha)

            def with_monitor():
                mha(x, x, x, need_weights=False)
                mon.step()
            t_mon = timed(with_monitor)
            mon.remove()

            def with_torch():
                mha(x, x, x, need_weights=False)
                torch_stats(*qk(mha, x))
            t_torch = timed(with_torch)
        print("| %d | %d | %d | %d | %.1f | %.1f | %.1f | %.2f |"
              % (b, n, d, h, base, t_mon, t_torch, (t_mon - base) / (t_torch - base)))
    print("\ntorch %s, %d torch threads, sdpa_var %s" % (
        torch.__version__, torch.get_num_threads(), sdpa_var.__version__), file=sys.stderr)


if __name__ == "__main__":
    main()
