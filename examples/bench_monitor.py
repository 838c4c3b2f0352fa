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

Both print a markdown table on stdout, the machine on stderr."""

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
    args = ap.parse_args()
    if args.pairs < 2:
        ap.error("--pairs: %d: need at least 2 rounds for quartiles" % args.pairs)
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
