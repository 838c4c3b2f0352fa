#!/usr/bin/python3
"""The theory of --scale logn per row (issue 25 §3) by Monte Carlo.

    /usr/bin/python3 tests/theory_mc/logn.py SDPA_VAR_BINARY

With --causal or --window, row i's logits are c_i S_i, c_i = s ln n_i
(s = 1/sqrt(d_k), n_i the keys row i sees). Over the N = sum n_i visible
scores let A1 = sum n_i c_i / N, A2 = sum n_i c_i^2 / N (docs/theory.md
15.1). For each option set on the base shape of check.py (d_k = 4, n = 5:
rows of 1 .. 5 keys, where the per-row multipliers differ most), the tool
runs twice with the same seed (summary, then --per-trial) and:

  scaled_var_theory    = A2 v + (A2 - A1^2) mu^2, the variance of the pooled
                         c_i S_ij about their expected mean A1 mu, against
                         the mean over trials of the known-mean variance
                         x_t = (M2_t + N (m_t - A1 mu)^2) / N, where
                         M2_t = scaled_var_t (N - ddof) and m_t = scaled_mean_t
                         (mu = raw_mean_theory);
  scaled_var_expected  (zero means, no projections; nan otherwise) against the mean of
                         scaled_var_t;
  A1 raw_mean_theory   against the mean of scaled_mean_t.

Tolerance as in check.py: trials are independent, so the mean of T values
x_t is normal to O(1/sqrt(T)) with SE = sd(x) / sqrt(T) (ddof 1); a correct
theory is within 5 SE with probability 1 - 5.7e-7 per comparison, and the
fixed seed makes the run the same bytes every time (no flake). A formula
that took c^2 = (s ln n_k)^2 for every row, or s^2, is off by tens of SE at
T = 10000; each 5 SE must also be below 25 % of the compared value (the
scaled score SD for means), so no check passes vacuously.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check import BASE, read_per_trial, read_summary, run  # noqa: E402

SETS = [
    ["--causal"],
    ["--causal", "--ddof", "1"],
    ["--causal", "--dist", "uniform"],
    ["--causal", "--qk-norm"],
    ["--causal", "--q-mean", "0.5", "--k-mean", "-0.7"],
    ["--causal", "--d-model", "6", "--cross"],
    ["--window", "2", "--causal"],
    ["--window", "2"],
    ["--window", "3", "--q-mean", "0.5", "--k-mean", "-0.7"],
    ["--causal", "--dist", "rademacher"],
    ["--causal", "--dist", "t", "--q-std", "1.5"],
    ["--causal", "--q-mean", "0.5"],  # mu = 0, yet a column's scores correlate
    ["--window", "2", "--dist", "uniform", "--ddof", "1"],
]
DK, N = 4, 5


def row_keys(args):
    """n_i for every row (spec.h: sv_spec_row_keys)."""
    causal = "--causal" in args
    w = int(args[args.index("--window") + 1]) if "--window" in args else 0
    out = []
    for i in range(N):
        lo = max(0, i + 1 - w) if w else 0
        hi = i + 1 if causal else (min(N, i + w) if w else N)
        out.append(hi - lo)
    return np.array(out, dtype=float)


def check_set(binary, args):
    failures, checked = [], 0
    argv = BASE + ["--scale", "logn"] + args
    code, out, err = run(binary, argv)
    if code != 0:
        return 0, [f"{' '.join(args)}: exit {code}: {err.strip()}"]
    summary = read_summary(out)
    code, out, err = run(binary, argv + ["--per-trial"])
    if code != 0:
        return 0, [f"{' '.join(args)} --per-trial: exit {code}: {err.strip()}"]
    per = read_per_trial(out)
    T = len(per["scaled_var"])
    n = row_keys(args)
    c = np.log(n) / math.sqrt(DK)
    NN = n.sum()
    a1, a2 = (n * c).sum() / NN, (n * c * c).sum() / NN
    mu = float(summary["raw_mean_theory"])
    ddof = int(args[args.index("--ddof") + 1]) if "--ddof" in args else 0
    want_var = float(summary["scaled_var_theory"])
    sd = math.sqrt(want_var)
    m2 = per["scaled_var"] * (NN - ddof)
    checks = [("scaled_var_theory", want_var, (m2 + NN * (per["scaled_mean"] - a1 * mu) ** 2) / NN,
               want_var),
              ("scaled_var_expected", float(summary["scaled_var_expected"]), per["scaled_var"],
               want_var),
              ("scaled mean A1 raw_mean_theory", a1 * mu, per["scaled_mean"], sd)]
    # The theory column is A2 v + (A2 - A1^2) mu^2 with v = raw_var_theory.
    v = float(summary["raw_var_theory"])
    if abs(want_var - (a2 * v + (a2 - a1 * a1) * mu * mu)) > 1e-12 * want_var:
        failures.append(f"{' '.join(args)}: scaled_var_theory {want_var:.15g} is not "
                        f"A2 v + (A2 - A1^2) mu^2 = {a2 * v + (a2 - a1 * a1) * mu * mu:.15g}")
    closed = "--q-mean" not in args and "--d-model" not in args
    if closed == math.isnan(float(summary["scaled_var_expected"])):
        failures.append(f"{' '.join(args)}: scaled_var_expected is "
                        f"{summary['scaled_var_expected']} (a number exactly with zero means "
                        "and no projections)")
    for name, want, x, scale in checks:
        if math.isnan(want):
            continue
        m, se = x.mean(), x.std(ddof=1) / math.sqrt(T)
        checked += 1
        print(f"{' '.join(args)}: {name} {want:.6g} measured {m:.6g} ({(m - want) / se:+.2f} SE)")
        if abs(m - want) > 5 * se:
            failures.append(f"{' '.join(args)}: {name} = {want:.10g}, measured {m:.10g}, "
                            f"{(m - want) / se:+.1f} SE (SE {se:.3g})")
        if 5 * se > 0.25 * scale:
            failures.append(f"{' '.join(args)}: {name}: 5 SE = {5 * se:.3g} is vacuous "
                            f"next to {scale:.3g}")
    return checked, failures


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    failures, checked = [], 0
    for args in SETS:
        c, f = check_set(argv[1], args)
        checked += c
        failures += f
    for f in failures:
        print("FAIL", f)
    print(f"theory.logn_mc: {len(SETS)} option sets, {checked} comparisons, "
          f"{len(failures)} failed")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
