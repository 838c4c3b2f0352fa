#!/usr/bin/python3
"""Compare sdpa-var with the independent numpy reference, statistically.

    /usr/bin/python3 tests/numpy/compare.py SDPA_VAR_BINARY

The C tool and scripts/numpy_reference.py draw from different generators, so
their outputs are two independent Monte Carlo estimates of the same
expectations and can only agree within sampling error.  For a few fixed
configurations and fixed (different) seeds this script runs each program
twice, once for the summary CSV and once with --per-trial, and checks:

  1. Format: the summary and per-trial headers are exactly the documented
     columns in the documented order; the per-trial output has one row per
     trial, numbered from 0, with the configured d_k, n_q, n_k.
  2. Self-consistency (each program, same seed in both runs, so the same
     draws): every summary mean equals the mean of its per-trial rows, and
     *_var_sd, *_var_q05/q50/q95 and raw_var_cdf_observed equal numpy's std
     (ddof 1), quantile ('linear') and the fraction <= observed of those rows.
  3. Theory columns (*_theory, *_expected, *_var_sd_theory) and the echoed
     configuration agree between the two programs to 1e-12 relative.
  4. Statistics: each per-trial statistic's mean over trials agrees between
     the programs within 5 combined standard errors (see `within_5_se`), and
     the comparison is not vacuous: 5 SE must be at most 10 % of the value
     (for the score means, whose true value is 0: 10 % of the score SD).
  5. Theory against simulation: each program's mean raw_var and scaled_var
     is within 5 SE of *_var_expected, with SE = *_var_sd_theory / sqrt(T);
     with >= 1000 trials, its raw_var_sd is within 5 SE of raw_var_sd_theory
     (SE of a sample SD by the delta method, see `sd_matches_theory`).
  6. The later columns (see `NEW_MEAN_STATS`, `EXTREME_STATS`):
     a. format: the tool's per-trial columns after the first 14 are exactly
        the documented list; the summary's new columns that numpy computes
        appear in the tool's header in the same order;
     b. self-consistency as in 2 (means of rows; min/max over rows for the
        extremes; *_out_var_theory = mean of *_sum_p2; nan without --values);
     c. exact identities in each program's own per-trial rows: sum p^2 =
        1 - Jacobian trace, ddof1 (N - 1) = ddof0 N, raw_var = the ddof
        column it is, known-mean variance = ddof0 + mean^2;
     d. per-trial means within 5 combined SE between the programs, as in 4
        (the per-trial extremes too, without the 10 % requirement), and
        against theory: E[known-mean var] = E[ddof 1 var] = d_k,
        E[ddof 0 var] = d_k (N - 1)/N, E[O^2 - sum p^2] = 0;
     e. sanity, not statistics, for the extremes over all trials and the
        bounds each row obeys (see `check_extremes`).

Each check prints both values; the last line is `N passed, M failed` and
the exit status is 1 if anything failed (2 for a usage error).

It needs only numpy (Debian's python3-numpy at /usr/bin/python3) and runs in
well under a minute, most of it in the numpy reference.
"""

import csv
import io
import math
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "oracles", "numpy_reference.py")

sys.path.insert(0, os.path.join(HERE, "..", "oracles"))
from numpy_reference import SUMMARY_COLUMNS  # noqa: E402  (the oracle's own column list)

OBSERVED_COLUMNS = ["observed", "raw_var_cdf_observed"]
STATS = (
    "raw_mean,raw_var,scaled_mean,scaled_var,raw_entropy,scaled_entropy,"
    "raw_max_weight,scaled_max_weight,raw_jac_trace,scaled_jac_trace"
).split(",")
PER_TRIAL_COLUMNS = ["trial", "dk", "n_q", "n_k"] + STATS
THEORY_COLUMNS = [c for c in SUMMARY_COLUMNS if c.endswith(("_theory", "_expected"))]
ECHO_COLUMNS = ["dk", "n_q", "n_k", "trials", "dist", "ddof"]

# The tool's per-trial columns after the first 14, as documented.
PER_TRIAL_LATER = (
    "raw_var_known_mean,raw_var_ddof0,raw_var_ddof1,raw_jac_frob,scaled_jac_frob,"
    "raw_eff_keys,scaled_eff_keys,raw_entropy_min,raw_entropy_max,scaled_entropy_min,"
    "scaled_entropy_max,raw_max_abs_logit,raw_diag_logit,raw_diag_weight,"
    "scaled_diag_weight,q_var,k_var,raw_out_var,scaled_out_var,raw_sum_p2,scaled_sum_p2"
).split(",")
# Of those, the ones numpy computes too (it leaves out --plant/--d-model/--qk-norm's).
PER_TRIAL_NEW = [c for c in PER_TRIAL_LATER
                 if not c.startswith(("raw_diag", "scaled_diag", "q_var", "k_var"))]
# The summary's later columns that numpy computes, in the tool's order (the
# tool has others between them).
SUMMARY_NEW = (
    "raw_var_known_mean,raw_var_ddof0,raw_var_ddof1,raw_jac_frob,scaled_jac_frob,"
    "raw_eff_keys,scaled_eff_keys,raw_entropy_min,raw_entropy_max,scaled_entropy_min,"
    "scaled_entropy_max,raw_max_abs_logit,scaled_max_abs_logit,"
    "d_v,raw_out_var,raw_out_var_theory,scaled_out_var,scaled_out_var_theory"
).split(",")
# New per-trial statistics whose summary column is their mean over trials.
NEW_SUMMARY_MEANS = ["raw_var_known_mean", "raw_var_ddof0", "raw_var_ddof1",
                     "raw_jac_frob", "scaled_jac_frob", "raw_eff_keys", "scaled_eff_keys"]
VALUES_MEANS = ["raw_out_var", "scaled_out_var"]
# New per-trial statistics compared by their mean over trials (sum p^2 has
# no summary column of its own, and out_var only exists with --values).
NEW_MEAN_STATS = NEW_SUMMARY_MEANS + ["raw_sum_p2", "scaled_sum_p2"]
# Per-trial extremes (over the rows, or the scores, of one trial); their
# summary columns are the min/max over trials.
EXTREME_STATS = ["raw_entropy_min", "raw_entropy_max", "scaled_entropy_min",
                 "scaled_entropy_max", "raw_max_abs_logit"]

# Exact identities hold up to rounding of a few operations per row.
IDENTITY_TOL = 1e-12

# Below this many trials the across-trial SD of a statistic, estimated from
# the trials themselves, is too uncertain to set a tolerance with (3 trials
# give it 2 degrees of freedom: the estimate falls below 1/5 of the truth
# with probability 4 %).  Such configurations take the SD from theory where
# there is one and otherwise from an extra run of AUX_TRIALS trials.
SMALL_T = 30
AUX_TRIALS = 32

# Tolerance for values that must agree up to rounding: the same numbers
# summed in a different order, or printed with %.17g and parsed back.
ROUNDING_RTOL = 1e-9


class Config:
    """One experiment; `args` are the options shared by both programs."""

    def __init__(self, label, args, note, observed=None, softmax_power=0.10):
        self.label = label
        self.args = args.split()
        self.note = note
        self.observed = observed
        # The relative error that the softmax comparisons must be able to
        # detect (see `within_5_se`); the score mean and variance
        # comparisons must always detect 10 %.
        self.softmax_power = softmax_power

    def value(self, option):
        return self.args[self.args.index(option) + 1]

    @property
    def trials(self):
        return int(self.value("--trials"))

    @property
    def values(self):
        return "--values" in self.args or "--dv" in self.args

    @property
    def dv(self):
        return int(self.value("--dv")) if "--dv" in self.args else int(self.value("--dk"))

    @property
    def n_scores(self):
        """N = n_q n_k, the scores of one trial."""
        nq = int(self.value("--nq")) if "--nq" in self.args else int(self.value("--n"))
        nk = int(self.value("--nk")) if "--nk" in self.args else int(self.value("--n"))
        return nq * nk


CONFIGS = [
    # With 3 trials the softmax statistics (which vary ~3 % from trial to
    # trial here) can only be compared to ~12 %; the variances to ~2.5 %.
    Config("a", "--dk 111 --n 1111 --trials 3",
           "the StackExchange experiment: raw variance ~ 111, scaled ~ 1",
           softmax_power=0.15),
    Config("b", "--dk 2 --n 2 --trials 200000",
           "the 2x2 puzzle: E[s^2] = 1.5, a heavy right tail", observed=1.6),
    Config("c", "--dk 16 --nq 8 --nk 32 --trials 2000 --dist uniform --ddof 1",
           "non-square, uniform entries, unbiased variance"),
    Config("d", "--dk 8 --n 4 --trials 5000 --dist rademacher",
           "Rademacher entries (m4 = 1), small N"),
    # In (c) ddof 1 moves E[s^2] by only 1/256 = 0.4 %, far below what 2000
    # trials resolve; here it moves it from 1.5 to 2, so ignoring --ddof fails.
    Config("e", "--dk 2 --n 2 --trials 20000 --ddof 1",
           "the puzzle with ddof 1: E[s^2] = d_k = 2"),
    # d_v = 3 differs from d_k = 16, so the echoed d_v column shows whether
    # --dv was honoured (the mean of O^2 does not depend on d_v).
    Config("f", "--dk 16 --n 32 --trials 2000 --values --dv 3",
           "the attention output O = softmax(S) V, E[O^2] = mean sum p^2"),
]


class Checks:
    """Counts and prints pass/fail lines."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"  {'ok  ' if ok else 'FAIL'}  {what:<40} {detail}")
        return ok


def g(x):
    """Short number for messages."""
    return "%.6g" % x


# --------------------------------------------------------------------------
# Running the programs and reading their CSV
# --------------------------------------------------------------------------

class RunError(Exception):
    pass


def run(argv):
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RunError(f"{' '.join(argv)}\n    exit status {proc.returncode}: "
                       f"{proc.stderr.strip()[:500]}")
    return proc.stdout


def read_summary(text):
    """Header list and the single data row as {column: str}."""
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) != 2:
        raise RunError(f"summary: expected a header and 1 row, got {len(rows)} lines")
    header, row = rows
    if len(row) != len(header):
        raise RunError(f"summary: {len(header)} column names but {len(row)} values")
    return header, dict(zip(header, row))


def read_per_trial(text):
    """Header list and {column: float array}."""
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    if any(len(r) != len(header) for r in body):
        raise RunError(f"per-trial: {len(header)} column names but rows of other lengths")
    cols = {}
    for i, name in enumerate(header):
        values = [r[i] for r in body]
        try:
            cols[name] = np.array([float(v) for v in values])
        except ValueError:  # the configuration's words: scale, dist, init
            cols[name] = values
    return header, cols


class Result:
    """One program's output for one configuration."""

    def __init__(self, name, summary_header, summary, per_trial_header, per_trial, aux):
        self.name = name
        self.summary_header = summary_header
        self.summary = summary          # {column: str}
        self.per_trial_header = per_trial_header
        self.per_trial = per_trial      # {column: array}
        self.aux = aux                  # {column: array} from AUX_TRIALS trials, or None

    def num(self, column):
        return float(self.summary[column])


def run_program(name, argv0, cfg, seed):
    """Summary run, per-trial run (same seed), and for small T an aux run."""
    # sdpa-var writes every column only with --columns all; the reference always does.
    cols = ["--columns", "all"] if name == "tool" else []
    base = argv0 + cfg.args + ["--seed", str(seed), "--format", "csv"] + cols
    observed = ["--observed", repr(cfg.observed)] if cfg.observed is not None else []
    s_header, summary = read_summary(run(base + observed))
    p_header, per_trial = read_per_trial(run(base + ["--per-trial"]))
    aux = None
    if cfg.trials < SMALL_T:
        args = list(cfg.args)
        args[args.index("--trials") + 1] = str(AUX_TRIALS)
        aux_argv = argv0 + args + ["--seed", str(seed + 500), "--format", "csv", "--per-trial"] + cols
        aux = read_per_trial(run(aux_argv))[1]
    return Result(name, s_header, summary, p_header, per_trial, aux)


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------

def check_format(checks, cfg, res):
    # The documented columns come first, in order; later issues append more
    # after them (--observed's two together, in order, after the documented
    # ones: columns only grow at the end, so later issues' follow them).
    head = res.summary_header[:len(SUMMARY_COLUMNS)]
    rest = res.summary_header[len(SUMMARY_COLUMNS):]
    k = len(OBSERVED_COLUMNS)
    pair = any(rest[i:i + k] == OBSERVED_COLUMNS for i in range(len(rest) - k + 1))
    ok = head == SUMMARY_COLUMNS and (cfg.observed is None or pair)
    checks.check(ok, f"{res.name}: summary header",
                 "documented columns, in order" if ok
                 else f"got {','.join(res.summary_header)}")
    ok = res.per_trial_header[:len(PER_TRIAL_COLUMNS)] == PER_TRIAL_COLUMNS
    checks.check(ok, f"{res.name}: per-trial header",
                 "documented columns, in order" if ok
                 else f"got {','.join(res.per_trial_header)}")
    pt = res.per_trial
    t = cfg.trials
    nq = int(cfg.value("--nq")) if "--nq" in cfg.args else int(cfg.value("--n"))
    nk = int(cfg.value("--nk")) if "--nk" in cfg.args else int(cfg.value("--n"))
    ok = (len(pt.get("trial", [])) == t
          and np.array_equal(pt["trial"], np.arange(t))
          and np.all(pt["dk"] == int(cfg.value("--dk")))
          and np.all(pt["n_q"] == nq) and np.all(pt["n_k"] == nk))
    checks.check(ok, f"{res.name}: per-trial rows",
                 f"{len(pt.get('trial', []))} rows, want trials 0..{t - 1} "
                 f"with dk={cfg.value('--dk')} n_q={nq} n_k={nk}")


def close(a, b, scale):
    return abs(a - b) <= ROUNDING_RTOL * scale


def check_self_consistency(checks, cfg, res):
    """The summary must be exactly what its own per-trial rows imply."""
    pt = res.per_trial
    for stat in STATS:
        want = pt[stat].mean()
        # The score means are ~0, so a relative tolerance alone would be
        # meaningless: scale by the spread of the per-trial values too.
        scale = abs(want) + (pt[stat].std() if len(pt[stat]) > 1 else 0.0)
        got = res.num(stat)
        checks.check(close(got, want, scale), f"{res.name}: {stat} = mean of rows",
                     f"summary {g(got)}, per-trial mean {g(want)}")
    for prefix in ("raw", "scaled"):
        v = pt[prefix + "_var"]
        got = res.num(prefix + "_var_sd")
        if len(v) > 1:
            want = v.std(ddof=1)
            checks.check(close(got, want, want), f"{res.name}: {prefix}_var_sd = std(ddof 1)",
                         f"summary {g(got)}, from rows {g(want)}")
        else:
            checks.check(math.isnan(got), f"{res.name}: {prefix}_var_sd, 1 trial",
                         f"summary {g(got)}, want nan")
        for q, column in ((0.05, "_var_q05"), (0.50, "_var_q50"), (0.95, "_var_q95")):
            want = float(np.quantile(v, q))
            got = res.num(prefix + column)
            checks.check(close(got, want, abs(want)), f"{res.name}: {prefix}{column} = quantile",
                         f"summary {g(got)}, numpy linear quantile {g(want)}")
    if cfg.observed is not None:
        want = np.count_nonzero(pt["raw_var"] <= cfg.observed) / len(pt["raw_var"])
        got = res.num("raw_var_cdf_observed")
        checks.check(close(got, want, 1.0), f"{res.name}: cdf_observed = fraction",
                     f"summary {g(got)}, fraction of rows <= {cfg.observed} {g(want)}")


def check_theory_columns(checks, tool, ref):
    for column in ECHO_COLUMNS:
        a, b = tool.summary[column], ref.summary[column]
        same = a == b or (column != "dist" and float(a) == float(b))
        checks.check(same, f"echo {column}", f"tool {a}, numpy {b}")
    for column in THEORY_COLUMNS:
        a, b = tool.num(column), ref.num(column)
        checks.check(abs(a - b) <= 1e-12 * abs(b), f"{column} (1e-12 rel)",
                     f"tool {a!r}, numpy {b!r}")


def per_trial_sd(cfg, res, stat):
    """Across-trial SD of one per-trial statistic, for its standard error.

    With enough trials: the sample SD of the program's own per-trial values.
    With few (config (a), 3 trials) the sample SD is itself too noisy, so:
      raw_var, scaled_var: *_var_sd_theory, the exact SD from the summary;
      raw_mean: sqrt(d_k / N), scaled_mean: sqrt(1 / N), exact, because the
        N scores are pairwise uncorrelated with variance d_k (resp. 1), so
        their mean has variance d_k / N;
      the softmax statistics: the sample SD of an extra AUX_TRIALS-trial run.
    """
    if cfg.trials >= SMALL_T:
        return float(res.per_trial[stat].std(ddof=1))
    n = res.num("n_q") * res.num("n_k")
    if stat in ("raw_var", "scaled_var"):
        return res.num(stat + "_sd_theory")
    if stat == "raw_mean":
        return math.sqrt(res.num("dk") / n)
    if stat == "scaled_mean":
        return math.sqrt(1.0 / n)
    return float(res.aux[stat].std(ddof=1))


def within_5_se(checks, cfg, tool, ref):
    """Each statistic's trial mean agrees between the programs within 5 SE.

    Why 5 combined standard errors: the tool's value a and the reference's
    value b are means over T independent trials from independent generators,
    so they are independent estimates of the same expectation mu, each
    approximately normal (central limit theorem over trials) with standard
    error se = (across-trial SD of the per-trial statistic) / sqrt(T).  Then
    a - b ~ N(0, se_a^2 + se_b^2), and |a - b| > 5 sqrt(se_a^2 + se_b^2) has
    probability 2 (1 - Phi(5)) ~ 5.7e-7 per comparison: over the ~40 here a
    correct tool fails about once in 40 000 seed choices, while a real bug
    (wrong scaling, a biased sampler, an off-by-one in the softmax) shows up
    as a difference of many SE.

    Not vacuous: a tolerance is only useful if it is small, so each
    comparison also requires 5 SE <= 10 % of the value (for the score means,
    whose expectation is 0, 10 % of the score SD sqrt(*_var_theory)): a 10 %
    error in any statistic would fail.  (The softmax statistics of a
    configuration with very few trials get a looser bound, cfg.softmax_power.)
    """
    t = cfg.trials
    for stat in STATS:
        a, b = tool.num(stat), ref.num(stat)
        se_a = per_trial_sd(cfg, tool, stat) / math.sqrt(t)
        se_b = per_trial_sd(cfg, ref, stat) / math.sqrt(t)
        tol = 5.0 * math.hypot(se_a, se_b)
        checks.check(abs(a - b) <= tol, stat,
                     f"tool {g(a)}, numpy {g(b)}: |diff| {g(abs(a - b))} <= 5 SE = {g(tol)}")
        power = 0.10
        if stat.endswith("_mean"):
            scale = math.sqrt(ref.num(stat.replace("_mean", "_var_theory")))
            what = "score SD"
        else:
            scale = abs(b)
            what = "value"
            if not stat.endswith("_var"):
                power = cfg.softmax_power
        pct = f"{100 * power:.0f}%"
        checks.check(tol > 0 and tol <= power * scale, f"{stat}: 5 SE <= {pct} of {what}",
                     f"5 SE = {g(tol)}, {pct} of {what} = {g(power * scale)}")
    if cfg.observed is not None:
        # A fraction of T independent trials: binomial SE sqrt(p (1 - p) / T).
        a, b = tool.num("raw_var_cdf_observed"), ref.num("raw_var_cdf_observed")
        tol = 5.0 * math.hypot(math.sqrt(a * (1 - a) / t), math.sqrt(b * (1 - b) / t))
        checks.check(abs(a - b) <= tol, "raw_var_cdf_observed",
                     f"tool {g(a)}, numpy {g(b)}: |diff| {g(abs(a - b))} <= 5 SE = {g(tol)}")


def matches_expected(checks, cfg, res):
    """Mean sample variance within 5 SE of E[s^2] = d_k (N - 1) / (N - ddof).

    SE = *_var_sd_theory / sqrt(T), from the closed form rather than the
    data, so this is a test of the simulation against the theory (and for
    3 trials there is no usable empirical SD anyway).
    """
    t = cfg.trials
    for prefix in ("raw", "scaled"):
        got = res.num(prefix + "_var")
        want = res.num(prefix + "_var_expected")
        se = res.num(prefix + "_var_sd_theory") / math.sqrt(t)
        checks.check(abs(got - want) <= 5 * se, f"{res.name}: {prefix}_var ~ expected",
                     f"{g(got)} vs E[s^2] {g(want)}: |diff| {g(abs(got - want))} <= 5 SE = {g(5 * se)}")


def sd_matches_theory(checks, cfg, res):
    """Across-trial SD of raw_var within 5 SE of raw_var_sd_theory (T >= 1000).

    The sample variance S^2 of T iid values with variance sigma^2 and
    central fourth moment mu4 has Var(S^2) = (mu4 - sigma^4 (T-3)/(T-1)) / T;
    by the delta method SE(S) = SE(S^2) / (2 S).  mu4 is estimated from the
    same trials, which needs many of them (the per-trial variance of 4
    scores is heavy-tailed), hence the 1000-trial minimum.
    """
    v = res.per_trial["raw_var"]
    t = len(v)
    if t < 1000:
        return
    s2 = v.var(ddof=1)
    mu4 = np.mean((v - v.mean()) ** 4)
    se = math.sqrt(max(mu4 - s2 * s2 * (t - 3) / (t - 1), 0.0) / t) / (2 * math.sqrt(s2))
    got, want = res.num("raw_var_sd"), res.num("raw_var_sd_theory")
    checks.check(abs(got - want) <= 5 * se, f"{res.name}: raw_var_sd ~ theory",
                 f"{g(got)} vs {g(want)}: |diff| {g(abs(got - want))} <= 5 SE = {g(5 * se)}")


# --------------------------------------------------------------------------
# The later columns
# --------------------------------------------------------------------------

def in_order(wanted, header):
    """True if every name of `wanted` is in `header`, in the same order."""
    try:
        positions = [header.index(c) for c in wanted]
    except ValueError:
        return False
    return positions == sorted(positions)


def check_new_format(checks, res):
    later = res.per_trial_header[len(PER_TRIAL_COLUMNS):]
    if res.name == "tool":
        # then the configuration columns (docs/columns.md)
        ok = later[:len(PER_TRIAL_LATER)] == PER_TRIAL_LATER
        what = "the documented 21"
    else:
        ok = later == PER_TRIAL_NEW
        what = f"the {len(PER_TRIAL_NEW)} it computes, in the tool's order"
    checks.check(ok, f"{res.name}: per-trial later columns",
                 what if ok else f"got {','.join(later)}")
    later = res.summary_header[len(SUMMARY_COLUMNS):]
    ok = in_order(SUMMARY_NEW, later)
    checks.check(ok, f"{res.name}: summary later columns",
                 f"the {len(SUMMARY_NEW)} numpy computes, in order" if ok
                 else f"got {','.join(later)}")


def check_new_self_consistency(checks, cfg, res):
    """Summary = its own per-trial rows, for the later columns."""
    pt = res.per_trial
    for stat in NEW_SUMMARY_MEANS + (VALUES_MEANS if cfg.values else []):
        want = pt[stat].mean()
        scale = abs(want) + (pt[stat].std() if len(pt[stat]) > 1 else 0.0)
        got = res.num(stat)
        checks.check(close(got, want, scale), f"{res.name}: {stat} = mean of rows",
                     f"summary {g(got)}, per-trial mean {g(want)}")
    for stat in EXTREME_STATS:
        name, pick = ("min", np.min) if stat.endswith("_min") else ("max", np.max)
        want = float(pick(pt[stat]))
        got = res.num(stat)
        checks.check(close(got, want, abs(want)),
                     f"{res.name}: {stat} = {name} of rows",
                     f"summary {g(got)}, {name} over trials {g(want)}")
    raw, scaled = res.num("raw_max_abs_logit"), res.num("scaled_max_abs_logit")
    root = math.sqrt(float(cfg.value("--dk")))
    checks.check(close(scaled, raw / root, raw / root), f"{res.name}: scaled_max_abs_logit",
                 f"{g(scaled)} = raw {g(raw)} * (1/sqrt(d_k)), the default --scale")
    if cfg.values:
        got = res.num("d_v")
        checks.check(got == cfg.dv, f"{res.name}: d_v", f"summary {g(got)}, want {cfg.dv}")
        for prefix in ("raw", "scaled"):
            want = pt[prefix + "_sum_p2"].mean()
            got = res.num(prefix + "_out_var_theory")
            checks.check(close(got, want, want), f"{res.name}: {prefix}_out_var_theory",
                         f"summary {g(got)}, mean of {prefix}_sum_p2 rows {g(want)}")
    else:
        cols = ["d_v", "raw_out_var", "raw_out_var_theory", "scaled_out_var",
                "scaled_out_var_theory"]
        ok = (all(math.isnan(res.num(c)) for c in cols)
              and all(np.isnan(pt[c]).all() for c in VALUES_MEANS))
        checks.check(ok, f"{res.name}: no --values, out_var nan",
                     "d_v, *_out_var, *_out_var_theory in the summary and the rows"
                     if ok else f"summary {[res.summary[c] for c in cols]}")


def check_identities(checks, cfg, res):
    """Exact relations between one program's own per-trial columns.

    These hold for every trial up to rounding (values printed with %.17g
    read back exactly), so the tolerance is 1e-12, not a standard error.
    """
    pt = res.per_trial
    for prefix in ("raw", "scaled"):
        # Jacobian trace = sum p - sum p^2 = 1 - sum p^2.
        err = np.max(np.abs(pt[prefix + "_sum_p2"] - (1.0 - pt[prefix + "_jac_trace"])))
        checks.check(err <= IDENTITY_TOL, f"{res.name}: {prefix}_sum_p2 = 1 - jac_trace",
                     f"max |diff| over {len(pt['trial'])} trials {g(err)} "
                     f"<= {IDENTITY_TOL:g}")
    n = cfg.n_scores
    d0, d1 = pt["raw_var_ddof0"], pt["raw_var_ddof1"]
    if n > 1:
        # Both are M2 = sum (s - mean)^2, divided by N and by N - 1.
        err = np.max(np.abs(d1 * (n - 1) - d0 * n) / np.maximum(d0 * n, np.finfo(float).tiny))
        checks.check(err <= IDENTITY_TOL, f"{res.name}: ddof1 (N-1) = ddof0 N",
                     f"max relative diff {g(err)} <= {IDENTITY_TOL:g} (N = {n})")
    ddof = int(cfg.value("--ddof")) if "--ddof" in cfg.args else 0
    if ddof in (0, 1):
        same = pt[f"raw_var_ddof{ddof}"]
        err = np.max(np.abs(pt["raw_var"] - same) / np.maximum(same, np.finfo(float).tiny))
        checks.check(err <= IDENTITY_TOL, f"{res.name}: raw_var = raw_var_ddof{ddof}",
                     f"--ddof {ddof}: max relative diff {g(err)}")
    # Known mean 0: sum s^2 / N = sum (s - mean)^2 / N + mean^2.
    km = pt["raw_var_known_mean"]
    err = np.max(np.abs(km - (d0 + pt["raw_mean"] ** 2)) / km)
    checks.check(err <= IDENTITY_TOL, f"{res.name}: known_mean = ddof0 + mean^2",
                 f"max relative diff {g(err)} <= {IDENTITY_TOL:g}")


def check_extremes(checks, cfg, tool, ref):
    """Sanity checks: bounds every row obeys, and the extremes over trials.

    Not statistical tests.  The bounds are exact inequalities (up to
    rounding), checked on every trial:
      0 <= entropy_min <= entropy (mean over rows) <= entropy_max <= ln n_k;
      exp(mean H) <= eff_keys = mean exp(H) (Jensen) and 1 <= eff_keys <= n_k;
      jac_frob <= jac_trace, since J = diag(p) - p p^T is positive
        semidefinite and ||J||_F = sqrt(sum eig^2) <= sum eig = trace;
      max |S| <= d_k for Rademacher entries, 3 d_k for uniform on +-sqrt 3.
    The summary's extremes over all trials are compared between the programs
    only coarsely (see below).
    """
    nk = int(cfg.value("--nk")) if "--nk" in cfg.args else int(cfg.value("--n"))
    ln_nk = math.log(nk)
    tol = IDENTITY_TOL
    for res in (tool, ref):
        pt = res.per_trial
        for prefix in ("raw", "scaled"):
            lo, mid, hi = (pt[prefix + "_entropy_min"], pt[prefix + "_entropy"],
                           pt[prefix + "_entropy_max"])
            bad = np.count_nonzero((lo < -tol) | (lo > mid + tol * (1 + mid))
                                   | (mid > hi + tol * (1 + hi)) | (hi > ln_nk + tol))
            checks.check(bad == 0, f"{res.name}: 0 <= {prefix} H min <= mean <= max <= ln n_k",
                         f"{bad} of {len(lo)} trials violate it")
            eff = pt[prefix + "_eff_keys"]
            bad = np.count_nonzero((eff < np.exp(mid) * (1 - tol)) | (eff < 1 - tol)
                                   | (eff > nk * (1 + tol)))
            checks.check(bad == 0, f"{res.name}: exp(H) <= {prefix}_eff_keys in [1, n_k]",
                         f"{bad} of {len(eff)} trials violate it")
            frob, trace = pt[prefix + "_jac_frob"], pt[prefix + "_jac_trace"]
            bad = np.count_nonzero((frob < 0) | (frob > trace * (1 + tol) + tol))
            checks.check(bad == 0, f"{res.name}: 0 <= {prefix}_jac_frob <= trace",
                         f"{bad} of {len(frob)} trials violate it")
            got = [res.num(prefix + c) for c in ("_entropy_min", "_entropy", "_entropy_max")]
            checks.check(got[0] <= got[1] <= got[2], f"{res.name}: summary {prefix} H min<=mean<=max",
                         f"{g(got[0])} <= {g(got[1])} <= {g(got[2])}")
        dist = cfg.value("--dist") if "--dist" in cfg.args else "normal"
        bound = {"rademacher": 1.0, "uniform": 3.0}.get(dist)
        if bound is not None:
            dk = int(cfg.value("--dk"))
            got = res.num("raw_max_abs_logit")
            checks.check(got <= bound * dk * (1 + tol), f"{res.name}: max |S| <= bound",
                         f"{g(got)} <= {g(bound)} d_k = {g(bound * dk)} ({dist})")
    # max |S| over all T N scores of a run is an extreme order statistic, not a
    # mean: its sampling distribution is Gumbel-like (or piled up at the hard
    # bound for Rademacher) rather than normal, and the per-trial SD / sqrt(T)
    # says nothing about it (that shrinks with T; the max grows with T).  So
    # there is no standard error to compare within.  What can be said is that
    # the max of >= ~10^5 scores from the same distribution is pinned down to
    # a few tens of percent, so the two programs must agree within a factor:
    # 1.5 when the scores are sums of >= 8 products (nearly Gaussian, the max
    # ~ sqrt(2 d_k ln(T N)) fluctuates by a few %); 2 for d_k < 8, whose
    # products have exponential tails, so the max ~ ln(T N) moves by a few
    # units (simulated for the 2x2, 20 000-trial case: the ratio of two
    # independent maxima exceeds 1.5 in 0.7 % of seed pairs).  A slip of a
    # factor sqrt(d_k) >= 2.8 (d_k >= 8) would fail.  The check needs
    # T >= 1000, or a few million scores in few trials (config a).
    t, n = cfg.trials, cfg.n_scores
    if t >= 1000 or t * n >= 10**6:
        factor = 1.5 if int(cfg.value("--dk")) >= 8 else 2.0
        for col in ("raw_max_abs_logit", "scaled_max_abs_logit"):
            a, b = tool.num(col), ref.num(col)
            ok = b / factor <= a <= b * factor
            checks.check(ok, f"{col} (factor {factor:g}, not SE)",
                         f"tool {g(a)}, numpy {g(b)}: ratio {g(a / b)}")


def new_per_trial_sd(cfg, res, stat):
    """Across-trial SD of a later per-trial statistic (see `per_trial_sd`).

    With few trials: raw_var_ddof0 / ddof1 are M2 / N and M2 / (N - 1),
    and raw_var_sd_theory is the SD of M2 / (N - ddof), so theirs follow
    exactly; every other statistic takes the SD of the AUX_TRIALS run.
    """
    if cfg.trials >= SMALL_T:
        return float(res.per_trial[stat].std(ddof=1))
    n = cfg.n_scores
    ddof = int(cfg.value("--ddof")) if "--ddof" in cfg.args else 0
    if stat in ("raw_var_ddof0", "raw_var_ddof1"):
        return res.num("raw_var_sd_theory") * (n - ddof) / (n - int(stat[-1]))
    return float(res.aux[stat].std(ddof=1))


def new_within_5_se(checks, cfg, tool, ref):
    """The later statistics' trial means agree within 5 combined SE.

    The same test as `within_5_se`, on the means of the per-trial rows.
    The non-vacuity requirement (5 SE <= 10 % of the value; the softmax
    statistics cfg.softmax_power) applies to the means over rows; the
    per-trial extremes (min/max entropy over a trial's rows, its max |S|)
    are compared the same way but without it: their per-trial values can be
    heavy-tailed (the raw entropy_min of 1111 rows is ~1e-5 one trial and
    ~1e-7 the next), so their relative SE can be large.
    """
    t = cfg.trials
    stats = NEW_MEAN_STATS + (VALUES_MEANS if cfg.values else []) + EXTREME_STATS
    for stat in stats:
        a, b = tool.per_trial[stat].mean(), ref.per_trial[stat].mean()
        se_a = new_per_trial_sd(cfg, tool, stat) / math.sqrt(t)
        se_b = new_per_trial_sd(cfg, ref, stat) / math.sqrt(t)
        tol = 5.0 * math.hypot(se_a, se_b)
        checks.check(abs(a - b) <= tol, f"{stat} (trial mean)",
                     f"tool {g(a)}, numpy {g(b)}: |diff| {g(abs(a - b))} <= 5 SE = {g(tol)}")
        if stat in EXTREME_STATS:
            continue
        power = 0.10 if stat.startswith("raw_var") or stat in VALUES_MEANS else cfg.softmax_power
        pct = f"{100 * power:.0f}%"
        checks.check(tol > 0 and tol <= power * abs(b), f"{stat}: 5 SE <= {pct} of value",
                     f"5 SE = {g(tol)}, {pct} of value = {g(power * abs(b))}")


def new_matches_theory(checks, cfg, res):
    """Each program against theory, within 5 SE of its own per-trial values.

    With mean-0 inputs the N scores are pairwise uncorrelated with variance
    d_k (docs/theory.md §2), so E[sum s^2 / N] = d_k, E[M2] = (N - 1) d_k:
    E[ddof 1] = d_k and E[ddof 0] = d_k (N - 1) / N.  With --values,
    E[O^2 | weights] = sum p^2, so the per-trial difference out_var - sum_p2
    has mean 0 (a paired comparison: most of the trial-to-trial spread of
    the two cancels).
    """
    t, n = cfg.trials, cfg.n_scores
    dk = float(cfg.value("--dk"))
    pt = res.per_trial
    wants = [("raw_var_known_mean", dk), ("raw_var_ddof0", dk * (n - 1) / n)]
    if n > 1:
        wants.append(("raw_var_ddof1", dk))
    for stat, want in wants:
        got = pt[stat].mean()
        se = new_per_trial_sd(cfg, res, stat) / math.sqrt(t)
        checks.check(abs(got - want) <= 5 * se, f"{res.name}: {stat} ~ theory",
                     f"{g(got)} vs {g(want)}: |diff| {g(abs(got - want))} <= 5 SE = {g(5 * se)}")
    if cfg.values:
        for prefix in ("raw", "scaled"):
            diff = pt[prefix + "_out_var"] - pt[prefix + "_sum_p2"]
            got = diff.mean()
            se = diff.std(ddof=1) / math.sqrt(t)
            ref_value = pt[prefix + "_sum_p2"].mean()
            checks.check(abs(got) <= 5 * se, f"{res.name}: {prefix}_out_var ~ sum p^2",
                         f"mean of O^2 - sum p^2 {g(got)} (sum p^2 {g(ref_value)}): "
                         f"|diff| <= 5 SE = {g(5 * se)}")


# --------------------------------------------------------------------------

def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        print("usage: /usr/bin/python3 tests/numpy/compare.py SDPA_VAR_BINARY", file=sys.stderr)
        return 2
    tool_argv = [argv[1]]
    ref_argv = [sys.executable, os.path.normpath(REFERENCE)]
    checks = Checks()
    for i, cfg in enumerate(CONFIGS):
        # Different fixed seeds for the two programs: with equal seeds a
        # stand-in tool that IS the reference would agree trivially.
        tool_seed, ref_seed = 1000 + i, 2000 + i
        extra = f" --observed {cfg.observed}" if cfg.observed is not None else ""
        print(f"== ({cfg.label}) {' '.join(cfg.args)}{extra}: {cfg.note}")
        print(f"   tool seed {tool_seed}, numpy seed {ref_seed}")
        try:
            tool = run_program("tool", tool_argv, cfg, tool_seed)
            ref = run_program("numpy", ref_argv, cfg, ref_seed)
        except (RunError, OSError, ValueError) as err:
            checks.check(False, "run both programs", str(err))
            continue
        for res in (tool, ref):
            check_format(checks, cfg, res)
            check_new_format(checks, res)
        try:
            for res in (tool, ref):
                check_self_consistency(checks, cfg, res)
                check_new_self_consistency(checks, cfg, res)
                check_identities(checks, cfg, res)
            check_theory_columns(checks, tool, ref)
            within_5_se(checks, cfg, tool, ref)
            new_within_5_se(checks, cfg, tool, ref)
            for res in (tool, ref):
                matches_expected(checks, cfg, res)
                sd_matches_theory(checks, cfg, res)
                new_matches_theory(checks, cfg, res)
            check_extremes(checks, cfg, tool, ref)
        except (KeyError, ValueError) as err:
            checks.check(False, "read the columns", f"{type(err).__name__}: {err}")
    if checks.passed == 0:  # no configuration ran: nothing was compared
        checks.check(False, "any check ran", "none did")
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
