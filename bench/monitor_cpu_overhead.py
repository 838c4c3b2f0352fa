#!/usr/bin/python3
"""The Python side of the monitor's measured call against its engine part
(issue 39, item 3): for a few shapes, the median over REPS runs of the
whole sdpa_var._measure.run call (what monitor() does for one attention
call: prepare, stats(), collect) and of the time spent inside
sv_engine_run (sdpa_var._core._engine), and the Python share
(whole - engine) / whole.

  PYTHONPATH=build/python /usr/bin/python3 bench/monitor_cpu_overhead.py [--reps 5]
      [--threads N] [--profile]

--profile: cProfile of the last shape's calls, top 25 by cumulative time,
on stderr. Prints a markdown table on stdout. Timings on a shared machine
are noisy: medians, and the share is of the same runs.
"""

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
import torch  # noqa: E402

from sdpa_var import _core, _measure  # noqa: E402

# (label, batch, heads, n, d, causal, mask kind, rows, dtype)
SHAPES = [
    ("causal", 2, 4, 1024, 64, True, None, None, torch.float32),
    ("causal rows=64", 2, 4, 1024, 64, True, None, 64, torch.float32),
    ("causal mask (bool 1x1xnxn)", 2, 4, 1024, 64, False, "causal", None, torch.float32),
    ("all-true mask, rows=64", 2, 4, 1024, 64, False, "ones", 64, torch.float32),
    ("causal bf16 non-contiguous", 2, 4, 1024, 64, True, None, None, torch.bfloat16),
    ("causal, batch 8 x heads 12 (96 trials)", 8, 12, 1024, 64, True, None, None,
     torch.float32),
]


class EngineTimer:
    """Wraps _core._engine, adding up the seconds spent in it."""

    def __init__(self):
        self.spent = 0.0
        self.orig = _core._engine

    def __enter__(self):
        def timed(*a):
            t = time.perf_counter()
            try:
                return self.orig(*a)
            finally:
                self.spent += time.perf_counter() - t

        _core._engine = timed
        return self

    def __exit__(self, *exc):
        _core._engine = self.orig


def inputs(b, h, n, d, causal, mask_kind, dtype):
    g = torch.Generator().manual_seed(0)
    if dtype == torch.bfloat16:  # bnhd transposed: not contiguous
        q = torch.randn(b, n, h, d, generator=g).to(dtype).transpose(1, 2)
        k = torch.randn(b, n, h, d, generator=g).to(dtype).transpose(1, 2)
    else:
        q = torch.randn(b, h, n, d, generator=g, dtype=dtype)
        k = torch.randn(b, h, n, d, generator=g, dtype=dtype)
    mask = None
    if mask_kind == "causal":
        mask = torch.ones(n, n, dtype=torch.bool).tril()[None, None]
    elif mask_kind == "ones":
        mask = torch.ones(b, 1, n, n, dtype=torch.bool)
    return q, k, mask


def one(shape, reps, threads):
    label, b, h, n, d, causal, mk, rows, dtype = shape
    q, k, mask = inputs(b, h, n, d, causal, mk, dtype)
    whole, engine = [], []
    cache = {}
    for _ in range(reps + 1):  # the first run warms up
        with EngineTimer() as et:
            t = time.perf_counter()
            _measure.run(q, k, d ** -0.5, causal, mask, None, rows, 0, cache, threads)
            whole.append(time.perf_counter() - t)
        engine.append(et.spent)
    whole, engine = whole[1:], engine[1:]
    share = [(w - e) / w for w, e in zip(whole, engine)]
    return label, statistics.median(whole), statistics.median(engine), statistics.median(share)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()), file=sys.stderr)
    print("| call (batch 2 x heads 4 x 1024 x 1024, d 64 unless said) | whole ms | engine ms "
          "| Python share |")
    print("| --- | ---: | ---: | ---: |")
    for s in SHAPES:
        label, w, e, sh = one(s, args.reps, args.threads)
        print("| %s | %.1f | %.1f | %.1f %% |" % (label, 1e3 * w, 1e3 * e, 100 * sh))
        sys.stdout.flush()
    if args.profile:
        for s in SHAPES:
            prof = cProfile.Profile()
            prof.enable()
            one(s, 2, args.threads)
            prof.disable()
            print("\n## %s" % s[0], file=sys.stderr)
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(18)


if __name__ == "__main__":
    main()
