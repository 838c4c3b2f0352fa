"""The CLI and Python agree on every combination (issue 40): each pair of
the settings below, and each alone, runs through `sdpa-var` and through
sdpa_var.random(); both refuse (exit status 2, ValueError) or both run.
The experiment's rules are the library's (sv_spec_check_param), by value:
before, the CLI refused `--d-model 8 --q-mean 0` by the option's presence
while random(d_model=8, q_mean=0.0) ran, and random(nu=8.0) ran while
`--nu 8` was refused. A refusal names the same parameter on both sides.
usage: rules_agree_test.py SDPA_VAR"""

import itertools
import subprocess
import sys

import sdpa_var
from reference import Checker

exe = sys.argv[1]
chk = Checker("python.rules_agree")

# (CLI arguments, random() keywords): a default value and another, for the
# parameters whose rules involve others.
SETTINGS = [
    ("--nu 6", {"nu": 6.0}), ("--nu 8", {"nu": 8.0}),
    ("--dist t", {"dist": "t"}), ("--dist uniform", {"dist": "uniform"}),
    ("--d-model 4", {"d_model": 4}),
    ("--init xavier", {"init": "xavier"}), ("--init lecun", {"init": "lecun"}),
    ("--cross", {"cross": True}),
    ("--q-mean 0", {"q_mean": 0.0}), ("--q-mean 1", {"q_mean": 1.0}),
    ("--k-mean -0", {"k_mean": -0.0}), ("--k-mean -1", {"k_mean": -1.0}),
    ("--q-std 1", {"q_std": 1.0}), ("--q-std 2", {"q_std": 2.0}),
    ("--k-std 1", {"k_std": 1.0}), ("--k-std 0.5", {"k_std": 0.5}),
    ("--plant 0", {"plant": 0.0}), ("--plant 0.5", {"plant": 0.5}),
    ("--qk-norm", {"qk_norm": True}), ("--qk-scale 3", {"qk_scale": 3.0}),
    ("--causal", {"causal": True}), ("--window 2", {"window": 2}),
    ("--values", {"values": True}), ("--dv 3", {"d_v": 3}), ("--grad", {"grad": True}),
    ("--scale logn", {"scale": "logn"}), ("--scale dk", {"scale": "dk"}),
    ("--ddof 1", {"ddof": 1}),
]


def option(args):
    return args.split()[0]


def cli(args):
    """The CLI's answer: (runs, its stderr)."""
    r = subprocess.run([exe, "--dk", "2", "--n", "3", "--format", "csv"] + args.split(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    chk.ok(r.returncode in (0, 2), "sdpa-var %s: exit status %d" % (args, r.returncode))
    return r.returncode == 0, r.stderr.decode()


def python(kw):
    """random()'s answer: (runs, its message)."""
    try:
        sdpa_var.random(2, 3, **kw)
        return True, ""
    except ValueError as e:
        return False, str(e)


cases = [(a, k) for a, k in SETTINGS]
for (a1, k1), (a2, k2) in itertools.combinations(SETTINGS, 2):
    if option(a1) != option(a2) and not set(k1) & set(k2):
        cases.append((a1 + " " + a2, dict(k1, **k2)))
refused = 0
for args, kw in cases:
    c_runs, c_why = cli(args)
    p_runs, p_why = python(kw)
    chk.ok(c_runs == p_runs, "%s / random(%r): the CLI %s, Python %s (%s%s)"
           % (args, kw, "runs" if c_runs else "refuses", "runs" if p_runs else "refuses",
              c_why.strip(), p_why))
    if not c_runs and not p_runs:
        refused += 1
        # The parameter Python blames is the option the CLI names first.
        blamed = p_why.split(":")[0].replace("_", "-").replace("d-v", "dv")
        chk.ok(("--" + blamed) in c_why, "%s: the CLI names --%s (%s / %s)"
               % (args, blamed, c_why.strip(), p_why))
        # ... with the library's reason, the same words on both sides.
        reason = p_why[p_why.find("("):] if "(" in p_why else p_why.split(": ", 1)[-1]
        chk.ok(reason in c_why, "%s: the CLI says %r (%s)" % (args, reason, c_why.strip()))
# Synonyms are the library's (sv_suggest): every front end suggests.
for kw, near in [({"dist": "gaussian"}, "normal"), ({"d_model": 4, "init": "glorot"}, "xavier"),
                 ({"scale": "mup"}, "dk"), ({"dist": "studnt"}, "t")]:
    runs, why = python(kw)
    chk.ok(not runs and why.endswith("did you mean %s?" % near), "random(%r): %s" % (kw, why))
# The list must exercise both answers, or it shows nothing.
chk.ok(10 < refused < len(cases) - 10, "%d of %d combinations refused" % (refused, len(cases)))
print("python.rules_agree: %d combinations, %d refused by both" % (len(cases), refused))
chk.done()
