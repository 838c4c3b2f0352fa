#!/usr/bin/python3
"""PyTorch (CPU) reference for sdpa-var: the numpy reference's statistics,
computed as a PyTorch user would, for scripts/bench.sh to time.

    /usr/bin/python3 tests/oracles/torch_reference.py --dk 64 --n 1111
    /usr/bin/python3 tests/oracles/torch_reference.py --dk 128 --n 8192 --dtype float64
    /usr/bin/python3 tests/oracles/torch_reference.py --dk 2 --n 2 --trials 1000000

The experiment is tests/oracles/numpy_reference.py's (see its docstring): Q
(n_q x d_k) and K (n_k x d_k) with iid mean-0, variance-1 entries, raw
scores S = Q K^T and scaled scores S / sqrt(d_k); per trial the mean and
sample variance (--ddof) of all n_q n_k scores, and per query row the
softmax entropy (nats), the largest weight and the Jacobian trace
1 - sum p^2, averaged over the rows; raw and scaled.  The options are the
numpy reference's that these statistics need, plus --dtype and --threads.

How a PyTorch user would write it, which is the point of timing it:
  * torch.randn (torch.rand, torch.randint) from a seeded torch.Generator,
    drawn in --dtype (float32 by default, as models run);
  * the scores in blocks of query rows, torch.matmul of a row block of Q
    with K^T, so that no n_q x n_k matrix is ever held (n = 65 536 would
    need 16 GiB in float32);
  * torch.var_mean per block, merged across blocks with Chan's formula in
    float64; torch.log_softmax along the keys, p = exp(log p), and
    -sum p log p, max p, 1 - sum p^2 per row in --dtype, their sums over
    rows accumulated in float64;
  * many small trials (2 x 2) batched as one (T, n_q, d_k) @ (T, d_k, n_k)
    torch.bmm, in chunks;
  * torch.set_num_threads(--threads, default: the cores this process may use).
1 - sum p^2 in --dtype is what one writes; it cancels when a row is nearly
one-hot (1 - max p below ~1e-7 in float32, ~1e-16 in float64), where the
numpy reference and sdpa-var keep the digits and this does not.

Output: the first 31 columns of `sdpa-var --format csv` (the summary) or, with
--per-trial, the first 14 of its per-trial CSV, in the tool's number format;
theory columns are the numpy reference's (numpy_reference.theory).  Each d_k
has its own generator stream, seeded from (seed, d_k), so `--dk 64` repeats
the d_k = 64 row of `--dk 1:1024`; torch's generator is not numpy's nor
sdpa-var's, so the three agree in distribution only.
tests/torch/reference_test.py checks the statistics against the numpy
reference's on the same Q and K (float64 to 1e-10, float32 to 1e-4).

Requires python3-torch (Debian's 1.13) and numpy, at /usr/bin/python3.
"""

import argparse
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_reference as npref  # noqa: E402  (CLI types, theory, number format)

STATS = (
    "raw_mean,raw_var,scaled_mean,scaled_var,raw_entropy,scaled_entropy,"
    "raw_max_weight,scaled_max_weight,raw_jac_trace,scaled_jac_trace"
).split(",")

# Elements of one score block (trials x rows x keys). 2^23 is 1024 query rows
# of 8192 keys (128 rows of 65 536): 32 MiB in float32, 64 MiB in float64,
# and about five such arrays are alive at once (S, the scaled S, log p, p and
# a product), so a block stays under ~320 MiB while each matmul is still
# large enough for the BLAS to run at full speed.
BLOCK_ELEMENTS = 1 << 23


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="torch_reference.py",
        description="PyTorch (CPU) reference for sdpa-var: variance of QK^T and "
        "QK^T/sqrt(d_k) scores and softmax sharpness, in query-row blocks; prints "
        "the first columns of `sdpa-var --format csv`.",
    )
    parser.add_argument("-d", "--dk", type=npref.parse_dk, default=[64],
                        help="key dimension(s): 64, a list 1,2,8, a doubling range "
                        "A:B, or a mix such as 1:8,100 (default 64)")
    parser.add_argument("-n", "--n", type=npref.positive_int, default=1111,
                        help="number of queries and of keys (default 1111)")
    parser.add_argument("--nq", type=npref.positive_int,
                        help="number of queries n_q, rows of Q (overrides --n)")
    parser.add_argument("--nk", type=npref.positive_int,
                        help="number of keys n_k, rows of K (overrides --n)")
    parser.add_argument("-t", "--trials", type=npref.positive_int, default=1,
                        help="independent repetitions per d_k (default 1)")
    parser.add_argument("-s", "--seed", type=npref.nonnegative_int, default=42,
                        help="seed of torch's generator (default 42; not the draws "
                        "of sdpa-var or of the numpy reference)")
    parser.add_argument("--dist", choices=sorted(npref.FOURTH_MOMENT), default="normal",
                        help="distribution of the entries of Q and K (default normal)")
    parser.add_argument("--ddof", type=npref.nonnegative_int, default=0,
                        help="delta degrees of freedom of the score variance (default 0)")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32",
                        help="torch dtype of Q, K, the scores and the softmax "
                        "(default float32); sums over rows and blocks are float64")
    parser.add_argument("--threads", type=npref.positive_int,
                        default=len(os.sched_getaffinity(0)),
                        help="torch.set_num_threads (default: the cores available)")
    parser.add_argument("--per-trial", action="store_true",
                        help="print one row per trial instead of the summary")
    parser.add_argument("--format", choices=["csv"], default="csv", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.nq = args.nq if args.nq is not None else args.n
    args.nk = args.nk if args.nk is not None else args.n
    if args.ddof >= args.nq * args.nk:
        parser.error(f"--ddof: {args.ddof} must be less than n_q*n_k = {args.nq * args.nk}")
    return args


def draw(gen, dist, shape, dtype):
    """iid mean-0, variance-1 entries of the given shape and dtype."""
    if dist == "normal":
        return torch.randn(shape, generator=gen, dtype=dtype)
    if dist == "uniform":
        a = math.sqrt(3.0)  # Var U(-a, a) = a^2 / 3 = 1
        return torch.rand(shape, generator=gen, dtype=dtype) * (2 * a) - a
    if dist == "rademacher":
        return torch.randint(0, 2, shape, generator=gen).to(dtype) * 2 - 1
    raise ValueError(dist)


def measure(q, k, ddof=0, block_elements=BLOCK_ELEMENTS):
    """Per-trial statistics of Q (T, n_q, d_k) and K (T, n_k, d_k), both of one dtype.

    Walks the query rows in blocks of at most block_elements // (T n_k)
    rows (at least one). Returns {name: float64 numpy array (T,)} for the
    names in STATS.
    """
    t, nq, dk = q.shape
    nk = k.shape[1]
    rows = max(1, min(nq, block_elements // (t * nk)))
    scale = 1.0 / math.sqrt(dk)
    kt = k.transpose(1, 2)
    f64 = dict(dtype=torch.float64)
    acc = {}
    for prefix in ("raw", "scaled"):
        # Chan et al.'s merge of (count, mean, M2) over blocks, per trial.
        acc[prefix] = [0, torch.zeros(t, **f64), torch.zeros(t, **f64)]
        for name in ("entropy", "max_weight", "jac_trace"):
            acc[prefix + "_" + name] = torch.zeros(t, **f64)
    for r0 in range(0, nq, rows):
        s = torch.matmul(q[:, r0:r0 + rows], kt)  # (T, rows, n_k)
        for prefix, x in (("raw", s), ("scaled", s * scale)):
            var_b, mean_b = torch.var_mean(x, dim=(1, 2), unbiased=False)
            n_b = x.shape[1] * nk
            n_a, mean_a, m2_a = acc[prefix]
            n_ab = n_a + n_b
            delta = mean_b.double() - mean_a
            acc[prefix] = [n_ab, mean_a + delta * (n_b / n_ab),
                           m2_a + var_b.double() * n_b + delta * delta * (n_a * n_b / n_ab)]
            logp = torch.log_softmax(x, dim=2)
            p = logp.exp()
            acc[prefix + "_entropy"] += -(p * logp).sum(dim=2).sum(dim=1, **f64)
            acc[prefix + "_max_weight"] += p.amax(dim=2).sum(dim=1, **f64)
            acc[prefix + "_jac_trace"] += (1 - (p * p).sum(dim=2)).sum(dim=1, **f64)
            del logp, p
        del s
    n = nq * nk
    out = {}
    for prefix in ("raw", "scaled"):
        _, mean, m2 = acc[prefix]
        out[prefix + "_mean"] = mean.numpy()
        out[prefix + "_var"] = (m2 / (n - ddof)).numpy()
        for name in ("entropy", "max_weight", "jac_trace"):
            out[prefix + "_" + name] = (acc[prefix + "_" + name] / nq).numpy()
    return out


def run_dk(args, dk):
    """All trials for one d_k, in chunks of trials; {name: array (trials,)}."""
    gen = torch.Generator()
    # One stream per (seed, d_k), mixed by numpy's SeedSequence into torch's
    # 64-bit seed, so that nearby seeds give unrelated streams.
    gen.manual_seed(int(np.random.SeedSequence([args.seed, dk]).generate_state(1, np.uint64)[0]))
    dtype = getattr(torch, args.dtype)
    # Trials per chunk: as many as fit the block budget (scores plus Q and K),
    # so 2 x 2 trials go as a few large bmm's rather than a million tiny ones.
    per_trial = args.nq * args.nk + (args.nq + args.nk) * dk
    chunk = max(1, BLOCK_ELEMENTS // per_trial)
    parts = []
    done = 0
    while done < args.trials:
        count = min(chunk, args.trials - done)
        q = draw(gen, args.dist, (count, args.nq, dk), dtype)
        k = draw(gen, args.dist, (count, args.nk, dk), dtype)
        parts.append(measure(q, k, args.ddof))
        done += count
    return {name: np.concatenate([p[name] for p in parts]) for name in STATS}


def summarize(args, dk, stats):
    """One summary row (dict keyed by column name), as the numpy reference's."""
    row = {"dk": dk, "n_q": args.nq, "n_k": args.nk, "trials": args.trials,
           "seed": args.seed, "dist": args.dist, "ddof": args.ddof}
    row.update(npref.theory(dk, args.nq, args.nk, args.ddof, npref.FOURTH_MOMENT[args.dist]))
    for name in STATS:
        row[name] = stats[name].mean()
    for prefix in ("raw", "scaled"):
        v = stats[prefix + "_var"]
        row[prefix + "_var_sd"] = v.std(ddof=1) if args.trials > 1 else math.nan
        q05, q50, q95 = np.quantile(v, [0.05, 0.50, 0.95])
        row[prefix + "_var_q05"] = q05
        row[prefix + "_var_q50"] = q50
        row[prefix + "_var_q95"] = q95
    return row


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    torch.set_num_threads(args.threads)
    out = sys.stdout
    if args.per_trial:
        out.write(",".join(["trial", "dk", "n_q", "n_k"] + STATS) + "\n")
        row_fmt = "%d,%d,%d,%d," + ",".join(["%.17g"] * len(STATS)) + "\n"
        for dk in args.dk:
            stats = run_dk(args, dk)
            columns = [stats[name].tolist() for name in STATS]
            out.writelines(row_fmt % ((i, dk, args.nq, args.nk) + values)
                           for i, values in enumerate(zip(*columns)))
    else:
        out.write(",".join(npref.SUMMARY_COLUMNS) + "\n")
        for dk in args.dk:
            row = summarize(args, dk, run_dk(args, dk))
            out.write(",".join(npref.fmt(row[c]) for c in npref.SUMMARY_COLUMNS) + "\n")
            out.flush()
    out.flush()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)
