#!/usr/bin/python3
"""Independent numpy reference for sdpa-var: score variance and softmax sharpness.

    /usr/bin/python3 tests/oracles/numpy_reference.py --dk 64 --n 1111
    /usr/bin/python3 tests/oracles/numpy_reference.py --dk 1:1024 --n 64 --trials 100
    /usr/bin/python3 tests/oracles/numpy_reference.py --dk 2 --n 2 --trials 100000 --per-trial

The experiment (the same one build/sdpa-var runs, written again from the
definitions so that the two can check each other):

  * draw Q (n_q x d_k) and K (n_k x d_k) with iid entries of mean 0 and
    variance 1: standard normal, U(-sqrt 3, sqrt 3) or Rademacher (+-1);
  * raw scores S = Q K^T (n_q x n_k) and scaled logits S * scale, scale =
    1/sqrt(d_k) (sdpa-var's default --scale sqrt, PyTorch's default scale=)
    (Vaswani et al. 2017, "Attention Is All You Need", eq. 1);
  * per trial: the mean and the sample variance (ddof as in numpy's var) of
    all N = n_q * n_k scores, and for every query row the softmax over the
    n_k keys, from which the entropy in nats (-sum p log p), the largest
    weight (max p) and the trace of the softmax Jacobian
    diag(p) - p p^T, i.e. 1 - sum p_j^2; these three are averaged over the
    n_q rows.
  * also per trial: the known-mean variance sum S^2 / N (E[S] = 0 here) and
    the sample variance with ddof 0 and ddof 1 whatever --ddof says; per
    query row the Frobenius norm of diag(p) - p p^T, exp(entropy) (the
    effective number of keys) and sum p^2, averaged over the rows; the
    smallest and largest row entropy; and max |S| over the trial;
  * with --values (or --dv N): V (n_k x d_v, entries like those of Q and K,
    from a generator of its own, so adding --values changes no other
    column), O = softmax(S) V for the raw and the scaled S, and the mean of
    O^2 over the n_q d_v entries of O.

Each d_k gets one summary row: every statistic is the mean over trials of its
per-trial value, plus the spread across trials of the per-trial sample
variance (SD with ddof 1, 5/50/95 % quantiles with numpy's default 'linear'
method) and the closed-form theory (see `theory`); the exceptions are the
extremes: *_entropy_min (max) is the min (max) over all rows of all trials,
raw_max_abs_logit the max over trials, and scaled_max_abs_logit the max of
|S| / sqrt(d_k).  With --values, *_out_var_theory is the mean over trials of
*_sum_p2: given the weights, E[O^2] = sum_j p_j^2 because V has mean 0 and
variance 1 and is independent of them.  With --per-trial the
output is instead one row per trial per d_k.  The CSV columns, their order and
the number format (%.17g, `nan`) are those of `sdpa-var --format csv`, except
that columns for options the reference does not have (--scale, --q-mean,
--plant, --d-model, --qk-norm, ...) are left out: after the first 31 summary
(14 per-trial) columns come only those listed in SUMMARY_EXTRA
(PER_TRIAL_EXTRA), in the tool's order, so read them by name.

What this is NOT: bit-compatible with the C tool.  It draws from numpy's own
generator (PCG64 via np.random.default_rng), so the two agree only in
distribution; tests/numpy/compare.py compares them within standard errors.
It is also not economical: it materializes the whole n_q x n_k score matrix
in float64 (the C tool streams blocks), which is fine for a reference of
modest size.  Many small trials are batched as one (T, n_q, d) @ (T, d, n_k)
product, chunked so that a chunk's arrays stay around 100 MB.

Randomness: d_k value `dk` uses np.random.default_rng([seed, dk]), its own
stream, so a row does not depend on which other d_k are in the list
(`--dk 64` reproduces the d_k = 64 row of `--dk 1:1024`); V comes from
np.random.default_rng([seed, dk, 1]).

Requires only numpy (tested with Debian's numpy 1.24 at /usr/bin/python3).
"""

import argparse
import math
import sys

import numpy as np

# E[x^4] of each unit-variance distribution, the only moment beyond the
# second that the variance-of-the-sample-variance formula needs.
FOURTH_MOMENT = {
    "normal": 3.0,  # E z^4 of N(0, 1)
    "uniform": 9.0 / 5.0,  # U(-a, a) has E x^4 = a^4 / 5; a = sqrt 3
    "rademacher": 1.0,  # x^4 = 1 always
}

SUMMARY_COLUMNS = (
    "dk,n_q,n_k,trials,seed,dist,ddof,"
    "raw_mean,raw_var,raw_var_theory,raw_var_expected,raw_var_sd,raw_var_sd_theory,"
    "raw_var_q05,raw_var_q50,raw_var_q95,"
    "scaled_mean,scaled_var,scaled_var_theory,scaled_var_expected,scaled_var_sd,"
    "scaled_var_sd_theory,scaled_var_q05,scaled_var_q50,scaled_var_q95,"
    "raw_entropy,scaled_entropy,raw_max_weight,scaled_max_weight,"
    "raw_jac_trace,scaled_jac_trace"
).split(",")

# The tool's later summary columns that the reference computes, in the
# tool's order (it has more between and after them: see the module doc).
SUMMARY_EXTRA = (
    "raw_var_known_mean,raw_var_ddof0,raw_var_ddof1,raw_jac_frob,scaled_jac_frob,"
    "raw_eff_keys,scaled_eff_keys,raw_entropy_min,raw_entropy_max,scaled_entropy_min,"
    "scaled_entropy_max,raw_max_abs_logit,scaled_max_abs_logit,"
    "d_v,raw_out_var,raw_out_var_theory,scaled_out_var,scaled_out_var_theory"
).split(",")

# The per-trial statistics, in the order of the per-trial CSV after
# trial,dk,n_q,n_k: the tool's first ten, then those of its later ones that
# the reference computes.  `measure_chunk` returns them under these names
# (the out_var pair as nan without --values, as the tool prints them).
PER_TRIAL_EXTRA = (
    "raw_var_known_mean,raw_var_ddof0,raw_var_ddof1,raw_jac_frob,scaled_jac_frob,"
    "raw_eff_keys,scaled_eff_keys,raw_entropy_min,raw_entropy_max,scaled_entropy_min,"
    "scaled_entropy_max,raw_max_abs_logit,raw_out_var,scaled_out_var,raw_sum_p2,scaled_sum_p2"
).split(",")
PER_TRIAL_STATS = (
    "raw_mean,raw_var,scaled_mean,scaled_var,raw_entropy,scaled_entropy,"
    "raw_max_weight,scaled_max_weight,raw_jac_trace,scaled_jac_trace"
).split(",") + PER_TRIAL_EXTRA
PER_TRIAL_COLUMNS = ["trial", "dk", "n_q", "n_k"] + PER_TRIAL_STATS

# Per-trial values kept for the summary only (not a per-trial column of the tool).
INTERNAL_STATS = ["scaled_max_abs_logit"]

# Summary columns that are an extreme over trials rather than a mean.
MIN_OVER_TRIALS = ["raw_entropy_min", "scaled_entropy_min"]
MAX_OVER_TRIALS = ["raw_entropy_max", "scaled_entropy_max", "raw_max_abs_logit",
                   "scaled_max_abs_logit"]

# Doubles per chunk, summed over the big arrays alive at once (Q, K, scores
# and the softmax temporaries): 2^24 doubles = 128 MiB.
CHUNK_BUDGET = 1 << 24


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def positive_int(text):
    """argparse type: an integer >= 1 (message in the C tool's style)."""
    try:
        value = int(text, 10)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return value


def nonnegative_int(text):
    """argparse type: an integer >= 0."""
    try:
        value = int(text, 10)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a non-negative integer")
    return value


def finite_float(text):
    """argparse type: a finite real number."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return value


def parse_dk(text):
    """Parse --dk: a comma list whose items are integers or doubling ranges.

    `A:B` means A, 2A, 4A, ... up to and including the last value <= B
    (so `1:1024` is the 11 powers of two and `3:20` is 3, 6, 12); items mix,
    as in the C tool: `1:8,100` is 1, 2, 4, 8, 100.
    """
    values = []
    for item in text.split(","):
        if ":" not in item:
            values.append(positive_int(item))
            continue
        parts = item.split(":")
        if len(parts) != 2:
            raise argparse.ArgumentTypeError(f"'{item}' is not a range A:B")
        lo, hi = (positive_int(p) for p in parts)
        if lo > hi:
            raise argparse.ArgumentTypeError(f"'{item}': range start exceeds its end")
        while lo <= hi:
            values.append(lo)
            lo *= 2
    return values


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="numpy_reference.py",
        description="numpy reference for sdpa-var: variance of QK^T and QK^T/sqrt(d_k) "
        "scores and softmax sharpness; prints the same CSV as `sdpa-var --format csv`.",
    )
    # Option names, short forms and defaults follow `sdpa-var --help`.
    parser.add_argument("-d", "--dk", type=parse_dk, default=[64],
                        help="key dimension(s): 64, a list 1,2,8, a doubling range "
                        "A:B, or a mix such as 1:8,100 (default 64)")
    parser.add_argument("-n", "--n", type=positive_int, default=1111,
                        help="number of queries and of keys (default 1111)")
    parser.add_argument("--nq", type=positive_int,
                        help="number of queries n_q, rows of Q (overrides --n)")
    parser.add_argument("--nk", type=positive_int,
                        help="number of keys n_k, rows of K (overrides --n)")
    parser.add_argument("-t", "--trials", type=positive_int, default=1,
                        help="independent repetitions per d_k (default 1)")
    parser.add_argument("-s", "--seed", type=nonnegative_int, default=42,
                        help="seed for numpy's generator (default 42; the C tool's "
                        "generator differs, so equal seeds do not give equal draws)")
    parser.add_argument("--dist", choices=sorted(FOURTH_MOMENT), default="normal",
                        help="distribution of the entries of Q and K (default normal)")
    parser.add_argument("--ddof", type=nonnegative_int, default=0,
                        help="delta degrees of freedom of the score variance, "
                        "as in numpy's var (default 0)")
    parser.add_argument("--observed", type=finite_float,
                        help="add columns observed,raw_var_cdf_observed: the fraction "
                        "of trials whose raw sample variance is <= this value")
    parser.add_argument("--values", action="store_true",
                        help="also draw V (n_k x d_v) and report the mean of O^2 for the "
                        "attention output O = softmax(S) V, raw and scaled")
    parser.add_argument("--dv", type=positive_int,
                        help="columns of V (default d_k; implies --values)")
    parser.add_argument("--per-trial", action="store_true",
                        help="print one row per trial instead of the summary")
    # Accepted so that the reference can stand in for the C tool in pipelines
    # written for it; CSV is the only format here.
    parser.add_argument("--format", choices=["csv"], default="csv", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    args.nq = args.nq if args.nq is not None else args.n
    args.nk = args.nk if args.nk is not None else args.n
    args.values = args.values or args.dv is not None
    if args.ddof >= args.nq * args.nk:
        parser.error(f"--ddof: {args.ddof} must be less than n_q*n_k = {args.nq * args.nk}")
    return args


# --------------------------------------------------------------------------
# Theory
# --------------------------------------------------------------------------

def theory(dk, nq, nk, ddof, m4):
    """Closed-form moments of the per-trial sample variance of the raw scores.

    Each score s_ij = q_i . k_j is a sum of d_k products of independent
    mean-0, variance-1 variables, so E s = 0 and Var s = d_k: the
    "population" variance is d_k (1 after dividing by sqrt d_k).

    The sample variance s^2 = sum (s_ij - mean)^2 / (N - ddof) over the
    N = n_q n_k scores of one trial is biased when ddof != 1, because the
    scores' own mean is subtracted: scores in one row share q_i and in one
    column share k_j, but any two distinct scores are still uncorrelated
    (E[s_ij s_il] = sum_a E[q_ia^2] E[k_ja] E[k_la] = 0), so
    E sum (s - mean)^2 = (N - 1) d_k exactly, and
    E s^2 = d_k (N - 1) / (N - ddof).  For the 2 x 2, d_k = 2 puzzle that is
    2 * 3/4 = 1.5, not 2.

    The spread across trials, sqrt(Var sum (s - mean)^2) / (N - ddof), needs
    fourth moments of the scores, including the covariances between squared
    scores that share a query or a key.  V below is the closed form the C
    tool implements (the project's theory notes derive it), transcribed
    independently; it depends on the distribution only through m4 = E x^4.
    tests/numpy/compare.py checks it against the simulated spread.

    Returns a dict with the *_theory and *_expected columns.
    """
    n = nq * nk
    d = dk
    v = d * (
        n * (m4 * m4 + 2 * d - 3 + (nq + nk - 2) * (m4 - 1))
        + (2 * d + 6)
        + (3 * (m4 - 3) * (nq + nk) + (m4 - 3) ** 2) / n
        - 2 * ((m4 - 1) ** 2 + (m4 - 1) * (nq + nk) + 2 * d - 2)
    )
    # V is a variance; with N = 1 and ddof = 0 it is exactly 0 (one score has
    # sample variance 0) and rounding could make it a hair negative.
    sd = math.sqrt(max(v, 0.0)) / (n - ddof)
    expected_scaled = (n - 1) / (n - ddof)
    return {
        "raw_var_theory": float(dk),
        "raw_var_expected": dk * expected_scaled,
        "raw_var_sd_theory": sd,
        "scaled_var_theory": 1.0,
        "scaled_var_expected": expected_scaled,
        "scaled_var_sd_theory": sd / dk,
    }


# --------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------

def draw(rng, dist, shape):
    """iid mean-0, variance-1 entries in float64."""
    if dist == "normal":
        return rng.standard_normal(shape)
    if dist == "uniform":
        a = math.sqrt(3.0)  # Var U(-a, a) = a^2 / 3 = 1
        return rng.uniform(-a, a, shape)
    if dist == "rademacher":
        return rng.integers(0, 2, shape).astype(np.float64) * 2.0 - 1.0
    raise ValueError(dist)


def softmax_stats(scores, values=None):
    """Row-softmax statistics of scores (T, n_q, n_k).

    Subtracting each row's maximum first keeps exp() from overflowing
    without changing the softmax.  With z = s - max s (so z = 0 at the
    row's argmax m, e_m = 1 exactly), e_j = exp(z_j) for the other keys,
    r = sum_{j != m} e_j and Z = 1 + r:
      ln Z = log1p(r), which keeps the digits of r for nearly one-hot rows
             (ln of 1 + r rounded would lose them: 1 + 1e-20 == 1);
      entropy H = -sum p ln p = ln Z - sum_j e_j z_j / Z, two terms >= 0;
      max p = 1 / Z;
      sum p^2 = (1 + E2) / Z^2 with E2 = sum_{j != m} e_j^2, and the
      Jacobian trace 1 - sum p^2 = (2 r + r^2 - E2) / Z^2, where
      r^2 - E2 = sum over ordered pairs j != l (both != m) of e_j e_l >= 0,
      so nothing cancels however close to one-hot the row is;
      ||diag(p) - p p^T||_F^2 = sum_j p_j^2 (1 - p_j)^2 + sum_{j != l} p_j^2 p_l^2.
      Splitting off m: p_m (1 - p_m) = r / Z^2, p_j (1 - p_j) = e_j (Z - e_j) / Z^2,
      and the pairs with m give 2 E2 / Z^4, the pairs without it E2^2 - E4
      (E4 = sum_{j != m} e_j^4), so
          Z^4 ||J||_F^2 = r^2 + sum_{j != m} (e_j (Z - e_j))^2 + 2 E2 + (E2^2 - E4),
      a sum of non-negative terms (the expanded sum p^2 - 2 sum p^3 + (sum p^2)^2
      would cancel to rounding noise near one-hot).
    With values V (T, n_k, d_v): O = softmax(s) V = (sum_{j != m} e_j V_j + V_m) / Z,
    and the mean of O^2 over its n_q d_v entries.
    Returns a dict of arrays: per row (T, n_q) entropy, max_weight,
    jac_trace, jac_frob, sum_p2; per trial (T,) out_var (None without V).
    """
    idx = scores.argmax(axis=2)[:, :, None]
    z = scores - np.take_along_axis(scores, idx, axis=2)
    e = np.exp(z)
    np.put_along_axis(e, idx, 0.0, axis=2)  # e now holds the keys j != m only
    r = e.sum(axis=2)
    zsum = 1.0 + r
    inv_z = 1.0 / zsum
    inv_z2 = inv_z * inv_z
    entropy = np.log1p(r) - np.einsum("tij,tij->ti", e, z) * inv_z
    del z
    tmp = e * e
    e2 = tmp.sum(axis=2)
    e4 = np.einsum("tij,tij->ti", tmp, tmp)
    np.subtract(zsum[:, :, None], e, out=tmp)
    tmp *= e
    frob2 = r * r + np.einsum("tij,tij->ti", tmp, tmp) + 2.0 * e2 + (e2 * e2 - e4)
    del tmp
    out_var = None
    if values is not None:
        o = e @ values + np.take_along_axis(values, idx, axis=1)
        o *= inv_z[:, :, None]
        out_var = np.einsum("tij,tij->t", o, o) / (o.shape[1] * o.shape[2])
    return {
        "entropy": entropy,
        "max_weight": inv_z,
        "jac_trace": (2.0 * r + (r * r - e2)) * inv_z2,
        "jac_frob": np.sqrt(np.maximum(frob2, 0.0)) * inv_z2,
        "sum_p2": (1.0 + e2) * inv_z2,
        "out_var": out_var,
    }


def measure_chunk(rng, rng_v, args, dk, count):
    """Run `count` trials at once; return {stat name: array of shape (count,)}."""
    nq, nk, ddof, dist = args.nq, args.nk, args.ddof, args.dist
    n = nq * nk
    q = draw(rng, dist, (count, nq, dk))
    k = draw(rng, dist, (count, nk, dk))
    raw = q @ k.transpose(0, 2, 1)  # (count, n_q, n_k): S = Q K^T per trial
    del q, k
    values = draw(rng_v, dist, (count, nk, args.dv or dk)) if args.values else None
    nan = np.full(count, math.nan)
    out = {}
    # The scaled scores are computed and measured on their own rather than
    # derived from the raw statistics (var/d_k, ...), so that a slip in
    # either path shows up as a disagreement with the C tool.
    for prefix, scores in (("raw", raw), ("scaled", raw * (1.0 / math.sqrt(dk)))):
        mean = scores.mean(axis=(1, 2))
        dev = scores - mean[:, None, None]
        m2 = np.einsum("tij,tij->t", dev, dev)  # sum (s - mean)^2 per trial
        del dev
        out[prefix + "_mean"] = mean
        out[prefix + "_var"] = m2 / (n - ddof)
        if prefix == "raw":
            # E[S] = 0 for the reference's inputs, so the known-mean
            # variance is the mean square.
            out["raw_var_known_mean"] = np.einsum("tij,tij->t", scores, scores) / n
            out["raw_var_ddof0"] = m2 / n
            out["raw_var_ddof1"] = m2 / (n - 1) if n > 1 else nan
        out[prefix + "_max_abs_logit"] = np.maximum(scores.max(axis=(1, 2)),
                                                    -scores.min(axis=(1, 2)))
        sm = softmax_stats(scores, values)
        out[prefix + "_entropy"] = sm["entropy"].mean(axis=1)
        out[prefix + "_entropy_min"] = sm["entropy"].min(axis=1)
        out[prefix + "_entropy_max"] = sm["entropy"].max(axis=1)
        out[prefix + "_eff_keys"] = np.exp(sm["entropy"]).mean(axis=1)
        for name in ("max_weight", "jac_trace", "jac_frob", "sum_p2"):
            out[prefix + "_" + name] = sm[name].mean(axis=1)
        out[prefix + "_out_var"] = sm["out_var"] if values is not None else nan
    return out


def run_dk(args, dk):
    """All trials for one d_k; returns {stat name: array of shape (trials,)}."""
    rng = np.random.default_rng([args.seed, dk])
    rng_v = np.random.default_rng([args.seed, dk, 1])
    nq, nk = args.nq, args.nk
    dv = (args.dv or dk) if args.values else 0
    # Doubles alive per trial: Q, K, V, O and about six n_q x n_k arrays
    # (raw and scaled scores, and the softmax temporaries).
    per_trial = nq * dk + nk * dk + (nk + 2 * nq) * dv + 6 * nq * nk
    chunk = max(1, CHUNK_BUDGET // per_trial)
    parts = []
    done = 0
    while done < args.trials:
        count = min(chunk, args.trials - done)
        parts.append(measure_chunk(rng, rng_v, args, dk, count))
        done += count
    return {name: np.concatenate([p[name] for p in parts])
            for name in PER_TRIAL_STATS + INTERNAL_STATS}


def summarize(args, dk, stats):
    """One summary row (dict keyed by column name) from per-trial arrays."""
    t = args.trials
    row = {"dk": dk, "n_q": args.nq, "n_k": args.nk, "trials": t, "seed": args.seed,
           "dist": args.dist, "ddof": args.ddof}
    row.update(theory(dk, args.nq, args.nk, args.ddof, FOURTH_MOMENT[args.dist]))
    for name in PER_TRIAL_STATS:
        row[name] = stats[name].mean()
    for name in MIN_OVER_TRIALS:
        row[name] = stats[name].min()
    for name in MAX_OVER_TRIALS:
        row[name] = stats[name].max()
    for prefix in ("raw", "scaled"):
        v = stats[prefix + "_var"]
        # SD across trials with ddof 1: undefined (nan) for a single trial.
        row[prefix + "_var_sd"] = v.std(ddof=1) if t > 1 else math.nan
        q05, q50, q95 = np.quantile(v, [0.05, 0.50, 0.95])  # 'linear' method
        row[prefix + "_var_q05"] = q05
        row[prefix + "_var_q50"] = q50
        row[prefix + "_var_q95"] = q95
        # E[O^2 | weights] = sum p^2, so its theory is the measured mean sum p^2.
        row[prefix + "_out_var_theory"] = row[prefix + "_sum_p2"] if args.values else math.nan
    row["d_v"] = (args.dv or dk) if args.values else math.nan
    if args.observed is not None:
        row["observed"] = args.observed
        row["raw_var_cdf_observed"] = np.count_nonzero(stats["raw_var"] <= args.observed) / t
    return row


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def fmt(value):
    """A CSV field as the C tool writes it: integers plain, reals %.17g, `nan`."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return "%.17g" % float(value)  # gives nan/inf for non-finite values


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = sys.stdout
    if args.per_trial:
        out.write(",".join(PER_TRIAL_COLUMNS) + "\n")
        row_fmt = "%d,%d,%d,%d," + ",".join(["%.17g"] * len(PER_TRIAL_STATS)) + "\n"
        for dk in args.dk:
            stats = run_dk(args, dk)
            columns = [stats[name].tolist() for name in PER_TRIAL_STATS]
            out.writelines(row_fmt % ((i, dk, args.nq, args.nk) + values)
                           for i, values in enumerate(zip(*columns)))
    else:
        columns = list(SUMMARY_COLUMNS) + SUMMARY_EXTRA
        if args.observed is not None:
            columns += ["observed", "raw_var_cdf_observed"]
        out.write(",".join(columns) + "\n")
        for dk in args.dk:
            row = summarize(args, dk, run_dk(args, dk))
            out.write(",".join(fmt(row[c]) for c in columns) + "\n")
            out.flush()
    out.flush()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # `... | head` closed the pipe: not an error worth a traceback.
        sys.stderr.close()
        sys.exit(1)
