#!/usr/bin/python3
"""Cost of sdpa_var.monitor against torch computing the same numbers from
the full weight matrix (issue 17, section 2), in one run:
  PYTHONPATH=build/python /usr/bin/python3 scripts/bench_monitor.py
For each size, a forward pass of an nn.MultiheadAttention (batch_first,
float32) with the monitor attached and measuring, and the same forward
followed by torch computing per-head entropy, max weight, sink share and
max |logit| (raw and scaled) from the n x n weights; median of REPS runs,
milliseconds. Prints a markdown table (docs/python.md)."""

import math
import statistics
import sys
import time

import torch
import torch.nn as nn

import sdpa_var

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


def main():
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
