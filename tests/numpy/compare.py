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
REFERENCE = os.path.join(HERE, "..", "..", "scripts", "numpy_reference.py")

SUMMARY_COLUMNS = (
    "dk,n_q,n_k,trials,seed,dist,ddof,"
    "raw_mean,raw_var,raw_var_theory,raw_var_expected,raw_var_sd,raw_var_sd_theory,"
    "raw_var_q05,raw_var_q50,raw_var_q95,"
    "scaled_mean,scaled_var,scaled_var_theory,scaled_var_expected,scaled_var_sd,"
    "scaled_var_sd_theory,scaled_var_q05,scaled_var_q50,scaled_var_q95,"
    "raw_entropy,scaled_entropy,raw_max_weight,scaled_max_weight,"
    "raw_jac_trace,scaled_jac_trace"
).split(",")
OBSERVED_COLUMNS = ["observed", "raw_var_cdf_observed"]
STATS = (
    "raw_mean,raw_var,scaled_mean,scaled_var,raw_entropy,scaled_entropy,"
    "raw_max_weight,scaled_max_weight,raw_jac_trace,scaled_jac_trace"
).split(",")
PER_TRIAL_COLUMNS = ["trial", "dk", "n_q", "n_k"] + STATS
THEORY_COLUMNS = [c for c in SUMMARY_COLUMNS if c.endswith(("_theory", "_expected"))]
ECHO_COLUMNS = ["dk", "n_q", "n_k", "trials", "dist", "ddof"]

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
    header_line, _, body = text.partition("\n")
    header = header_line.split(",")
    data = np.loadtxt(io.StringIO(body), delimiter=",", ndmin=2)
    if data.shape[1] != len(header):
        raise RunError(f"per-trial: {len(header)} column names but {data.shape[1]} values")
    return header, {name: data[:, i] for i, name in enumerate(header)}


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
    base = argv0 + cfg.args + ["--seed", str(seed), "--format", "csv"]
    observed = ["--observed", repr(cfg.observed)] if cfg.observed is not None else []
    s_header, summary = read_summary(run(base + observed))
    p_header, per_trial = read_per_trial(run(base + ["--per-trial"]))
    aux = None
    if cfg.trials < SMALL_T:
        args = list(cfg.args)
        args[args.index("--trials") + 1] = str(AUX_TRIALS)
        aux_argv = argv0 + args + ["--seed", str(seed + 500), "--format", "csv", "--per-trial"]
        aux = read_per_trial(run(aux_argv))[1]
    return Result(name, s_header, summary, p_header, per_trial, aux)


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------

def check_format(checks, cfg, res):
    # The documented columns come first, in order; later issues add more
    # after them (and --observed's two stay last).
    head = res.summary_header[:len(SUMMARY_COLUMNS)]
    tail = res.summary_header[-len(OBSERVED_COLUMNS):] if cfg.observed is not None else []
    ok = head == SUMMARY_COLUMNS and (cfg.observed is None or tail == OBSERVED_COLUMNS)
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
        try:
            for res in (tool, ref):
                check_self_consistency(checks, cfg, res)
            check_theory_columns(checks, tool, ref)
            within_5_se(checks, cfg, tool, ref)
            for res in (tool, ref):
                matches_expected(checks, cfg, res)
                sd_matches_theory(checks, cfg, res)
        except (KeyError, ValueError) as err:
            checks.check(False, "read the columns", f"{type(err).__name__}: {err}")
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
