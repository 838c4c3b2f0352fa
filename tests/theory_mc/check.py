#!/usr/bin/python3
"""Every theory column, for every option and every valid pair, by Monte Carlo.

    /usr/bin/python3 tests/theory_mc/check.py SDPA_VAR_BINARY [--list]

For each option set below (each single option, each pair of options
from different groups, and the TRIPLES a pair does not reach) on a small
base shape (d_k = 4, n = 5: small enough
that every correction term of docs/theory.md section 8 is visible), the
tool runs twice with the same seed: `--format csv` gives the theory columns,
`--per-trial --format csv` the per-trial measurements of the same draws.
Each theory column is then compared with the mean over trials of what it
predicts (docs/theory.md section 10 lists which column predicts what):

    raw_mean_theory           mean of raw_mean
    raw_var_expected          mean of raw_var (at the run's ddof)
    raw_var_theory            mean of raw_var_known_mean
    raw_var_ddof0_theory      mean of raw_var_ddof0 (ddof1 likewise)
    scaled_var_expected       mean of scaled_var
    scaled_var_theory         mean of raw_var_known_mean * c^2
    raw_var_sd_theory^2       variance across trials of raw_var
    scaled_var_sd_theory^2    variance across trials of scaled_var
    raw_diag_logit_theory     mean of raw_diag_logit
    scaled_diag_logit_theory  mean of raw_diag_logit * c
    q_var_theory, k_var_theory  mean of q_var, k_var (where measured)
    *_out_var_theory          mean of *_out_var (the theory column is the
                              measured mean of sum p^2: E[O^2 | p] = sum p^2)

With --grad (in the values group, so never paired with --values), the
logit gradient's theory is exact given the weights: E[|dL/dz_i|^2 | p] =
d_v |J_i|_F^2 (docs/theory.md section 11), so per trial the difference
x_t = *_grad_logits^2 - *_grad_logits_theory^2 (each trial's mean over
rows of the two) has mean 0 given p, and the trials are independent: the
mean of x is within 5 SE = 5 sd(x) / sqrt(T) of 0 (the randomness of p
shared by both terms cancels in the difference, which is why the check
is paired). The summary's theory^2 must be the mean of the trials'
(1e-12 relative), and 5 SE below 25 % of the theory^2.

The entropy approximation (*_entropy_approx) is not checked: it is an
approximation, not an expectation (docs/theory.md 8.7). A theory value of
nan is "no closed form" (listed in docs/theory.md section 10) and skipped.

Tolerance. Trials are independent, so by the central limit theorem the mean
of T per-trial values x_t is normal to within O(1/sqrt(T)) with standard
error SE = sd(x) / sqrt(T), sd the SD across trials (ddof 1). For the
variance across trials, v = sum (x - mean)^2 / (T - 1), the delta method gives
SE(v) = sqrt((mu4 - v^2) / T), mu4 the fourth central moment of x (both
estimated from the same trials; needs E[x^4] finite: Student t with
nu <= 8 lacks it, and those variance checks are skipped, as the tool's
table says). A correct theory is within 5 SE with probability
1 - 5.7e-7 per comparison. The seed is fixed and the tool gives the same
bytes for a seed whatever the threads or block size, so this test cannot
flake: it gave these numbers when it was written and gives them on every
rerun. A wrong formula is off by a fixed amount, which T = 10000 trials
(SE 1 % of an SD) turns into many SE: the checks refuse to pass
vacuously, too, since each 5 SE must be below 25 % of the compared value's
scale (the score SD for means).
"""
import concurrent.futures
import itertools
import math
import subprocess
import sys

import numpy as np

BASE = ["--dk", "4", "--n", "5", "--trials", "10000", "--seed", "2026", "--format", "csv", "-q",
        "--threads", "1"]

# Groups of options: two options of one group are alternatives, never a pair.
OPTIONS = [
    ("means", ["--q-mean", "0.5", "--k-mean", "-0.7"]),
    ("stds", ["--q-std", "1.5", "--k-std", "0.6"]),
    ("dist", ["--dist", "uniform"]),
    ("dist", ["--dist", "rademacher"]),
    ("dist", ["--dist", "t", "--nu", "10"]),
    ("dist", ["--dist", "t", "--nu", "6"]),
    ("scale", ["--scale", "2.5"]),
    ("qk", ["--qk-norm"]),
    ("qk", ["--qk-scale", "1.7"]),
    ("plant", ["--plant", "0.6"]),
    ("proj", ["--d-model", "6"]),
    ("proj", ["--d-model", "6", "--init", "lecun"]),
    ("proj", ["--d-model", "6", "--init", "normal"]),
    ("proj", ["--d-model", "6", "--cross"]),
    ("causal", ["--causal"]),
    ("values", ["--values", "--dv", "3"]),
    ("values", ["--grad", "--dv", "3"]),
    ("ddof", ["--ddof", "1"]),
    ("shape", ["--nq", "4", "--nk", "6"]),
]

# Triples whose theory a pair does not reach (issue 14: closed forms that
# printed nan): QK-norm with one shifted side, a planted key's correlation
# set by the stds under QK-norm, planted keys with means under the mask or
# on a rectangle, QK-norm and a planted key under the mask.
TRIPLES = [
    ["--qk-norm", "--q-mean", "0.5"],
    ["--qk-scale", "1.7", "--k-mean", "-0.7"],
    ["--plant", "0.6", "--qk-norm", "--q-std", "1.5", "--k-std", "0.6"],
    ["--plant", "0.6", "--qk-norm", "--causal"],
    ["--plant", "-0.8", "--qk-scale", "1.7", "--nq", "6", "--nk", "4"],
    ["--plant", "0.6", "--q-mean", "0.5", "--k-mean", "-0.7", "--causal"],
    ["--plant", "0.6", "--q-mean", "0.5", "--k-mean", "-0.7", "--q-std", "1.5", "--k-std", "0.6",
     "--nq", "4", "--nk", "6"],
    ["--d-model", "6", "--cross", "--qk-norm", "--causal"],
    # Issue 23: sliding windows (docs/theory.md section 14), with and
    # without causal, shifted entries (row and column counts matter),
    # QK-norm, a rectangle with rows that see no key's edge.
    ["--window", "2"],
    ["--window", "2", "--causal"],
    ["--window", "3", "--causal", "--q-mean", "0.5", "--k-mean", "-0.7"],
    ["--window", "2", "--q-mean", "0.5", "--k-mean", "-0.7", "--dist", "uniform"],
    ["--window", "2", "--qk-norm"],
    ["--window", "2", "--causal", "--qk-scale", "1.7", "--dist", "rademacher"],
    ["--window", "2", "--nq", "4", "--nk", "6", "--q-std", "1.5", "--k-std", "0.6"],
]

# Pairs the CLI rejects (exit 2), and why. The checker asserts that exactly
# these are rejected, so a newly accepted pair gets checked, not skipped.
REJECTED = {
    ("means", "proj"): "projections draw their own tokens: shifted entries do not apply",
    ("stds", "proj"): "projections draw their own tokens: shifted entries do not apply",
    ("plant", "proj"): "a planted key is a key row, projections make keys from tokens",
    ("causal", "shape"): "the causal mask needs n_q = n_k",
    ("stds", "qk"): "QK-norm rescales rows of mean 0 to norm R whatever their SD "
                    "(with --plant the SDs set the planted correlation: a triple below)",
}
REJECTED = {tuple(sorted(k)): v for k, v in REJECTED.items()}

# Columns: (theory column, measured per-trial expression, kind).
MEAN_CHECKS = [
    ("raw_mean_theory", lambda p, c: p["raw_mean"]),
    ("raw_var_expected", lambda p, c: p["raw_var"]),
    ("raw_var_theory", lambda p, c: p["raw_var_known_mean"]),
    ("raw_var_ddof0_theory", lambda p, c: p["raw_var_ddof0"]),
    ("raw_var_ddof1_theory", lambda p, c: p["raw_var_ddof1"]),
    ("scaled_var_expected", lambda p, c: p["scaled_var"]),
    ("scaled_var_theory", lambda p, c: p["raw_var_known_mean"] * c**2),
    ("raw_diag_logit_theory", lambda p, c: p["raw_diag_logit"]),
    ("scaled_diag_logit_theory", lambda p, c: p["raw_diag_logit"] * c),
    ("q_var_theory", lambda p, c: p["q_var"]),
    ("k_var_theory", lambda p, c: p["k_var"]),
    ("raw_out_var_theory", lambda p, c: p["raw_out_var"]),
    ("scaled_out_var_theory", lambda p, c: p["scaled_out_var"]),
]
# --grad: (measured column, its theory column), compared as squares per trial.
PAIRED_CHECKS = [("raw_grad_logits", "raw_grad_logits_theory"),
                 ("scaled_grad_logits", "scaled_grad_logits_theory")]
SPREAD_CHECKS = [("raw_var_sd_theory", "raw_var"), ("scaled_var_sd_theory", "scaled_var")]


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def read_summary(text):
    """The one summary row: name -> string."""
    names, row = (line.split(",") for line in text.strip().split("\n")[:2])
    return dict(zip(names, row))


def read_per_trial(text):
    """Per-trial rows: name -> array (numeric columns; text ones skipped)."""
    lines = text.strip().split("\n")
    names = lines[0].split(",")
    columns = list(zip(*(line.split(",") for line in lines[1:])))
    out = {}
    for name, col in zip(names, columns):
        try:
            out[name] = np.array(col, dtype=float)
        except ValueError:
            pass  # the echoed configuration (dist, scale, init names)
    return out


def option_sets():
    """Singles, then pairs from different groups, in a fixed order."""
    for g, a in OPTIONS:
        yield (g,), a
    for (g1, a1), (g2, a2) in itertools.combinations(OPTIONS, 2):
        if g1 != g2:
            yield (g1, g2), a1 + a2
    for a in TRIPLES:
        yield ("triple",), a


def window_sets():
    """Only the sliding-window sets: --window on the command line."""
    return [(g, a) for g, a in option_sets() if "--window" in a]


def check_one(binary, groups, args):
    failures = []
    argv = BASE + args
    if "--nq" in args:  # the shape option replaces --n
        i = argv.index("--n")
        del argv[i:i + 2]
    code, out, err = run(binary, argv)
    key = tuple(sorted(groups))
    if key in REJECTED:
        if code != 2:
            failures.append(f"{' '.join(args)}: expected exit 2 ({REJECTED[key]}), got {code}")
        return 0, 0, failures
    if code != 0:
        failures.append(f"{' '.join(args)}: exit {code}: {err.strip()}")
        return 0, 0, failures
    summary = read_summary(out)
    code, out, err = run(binary, argv + ["--per-trial"])
    if code != 0:
        failures.append(f"{' '.join(args)} --per-trial: exit {code}: {err.strip()}")
        return 0, 0, failures
    per = read_per_trial(out)
    T = len(per["raw_var"])
    c = float(summary["scale_factor"])  # the multiplier of the scaled logits
    score_sd = math.sqrt(max(float(summary["raw_var_theory"]), 0.0)) \
        if not math.isnan(float(summary["raw_var_theory"])) else None
    checked = skipped = 0
    for col, fn in MEAN_CHECKS:
        want = float(summary[col])
        x = fn(per, c)
        if math.isnan(want) or np.all(np.isnan(x)):
            skipped += 1
            continue
        if np.any(np.isnan(x)):
            failures.append(f"{' '.join(args)}: {col} is {want:g} but some measured values are nan")
            continue
        m, se = x.mean(), x.std(ddof=1) / math.sqrt(T)
        checked += 1
        if abs(m - want) > 5 * se:
            failures.append(f"{' '.join(args)}: {col} = {want:.10g}, measured {m:.10g}, "
                            f"{(m - want) / se:+.1f} SE (SE {se:.3g})")
        # Not vacuous: 5 SE well below the scale of the value (the score SD
        # for means and logits, whose true value may be 0).
        scale = abs(want)
        if col.endswith(("mean_theory", "diag_logit_theory")) and score_sd:
            scale = max(scale, score_sd / (c if col.startswith("scaled") else 1.0))
        if scale > 0 and 5 * se > 0.25 * scale:
            failures.append(f"{' '.join(args)}: {col}: 5 SE = {5 * se:.3g} is vacuous "
                            f"next to {scale:.3g}")
    for col, th in PAIRED_CHECKS:
        if th not in summary:
            continue
        want2 = float(summary[th]) ** 2
        x = per[col] ** 2 - per[th] ** 2
        m, se = x.mean(), x.std(ddof=1) / math.sqrt(T)
        checked += 1
        if abs(np.mean(per[th] ** 2) - want2) > 1e-12 * want2:
            failures.append(f"{' '.join(args)}: {th}^2 = {want2:.15g} is not the mean of the "
                            f"trials' {np.mean(per[th] ** 2):.15g}")
        if abs(m) > 5 * se or 5 * se > 0.25 * want2:
            failures.append(f"{' '.join(args)}: {col}^2 - {th}^2 = {m:.4g} "
                            f"({m / se:+.1f} SE, SE {se:.3g}, theory^2 {want2:.4g})")
        print(f"{' '.join(args)}: {col} {math.sqrt(np.mean(per[col] ** 2)):.6g} theory "
              f"{math.sqrt(want2):.6g}: squares differ by {m:+.4g} = {m / se:+.2f} SE")
    heavy = "--dist" in args and "t" in args and float(args[args.index("--nu") + 1]) <= 8
    for col, stat in SPREAD_CHECKS:
        want = float(summary[col])
        if math.isnan(want) or heavy:
            skipped += 1
            continue
        x = per[stat]
        v = x.var(ddof=1)
        mu4 = np.mean((x - x.mean()) ** 4)
        se = math.sqrt(max(mu4 - v * v, 0.0) / T)
        checked += 1
        if abs(v - want**2) > 5 * se:
            failures.append(f"{' '.join(args)}: {col}^2 = {want**2:.10g}, measured "
                            f"{v:.10g}, {(v - want**2) / se:+.1f} SE (SE {se:.3g})")
    return checked, skipped, failures


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    binary = argv[1]
    if "--list" in argv:
        for groups, args in option_sets():
            key = tuple(sorted(groups))
            print(" ".join(args), "  [rejected: " + REJECTED[key] + "]" if key in REJECTED else "")
        return 0
    # Two runs at a time (the machine's 2 cores): each check is independent
    # and its result does not depend on the order, only on the seed.
    sets = window_sets() if "--window-only" in argv else list(option_sets())
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda ga: check_one(binary, ga[0], ga[1]), sets))
    failures = [f for _, _, fs in results for f in fs]
    checked = sum(c for c, _, _ in results)
    skipped = sum(s for _, s, _ in results)
    sets = len(sets)
    for f in failures:
        print("FAIL", f)
    print(f"theory.montecarlo: {sets} option sets ({len(REJECTED)} kinds of pair rejected), "
          f"{checked} comparisons, {skipped} nan theory values skipped, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
