"""sdpa_var.random(...) against the CLI on the golden cases: for every case
of tests/golden/cases.txt whose options random() takes (one configuration,
the summary output), `sdpa-var --format csv ARGS` and random(**kwargs)
print the same text in every column (numbers at %.17g, as the CSV writes
them: the same bits).
usage: random_cli_test.py SDPA_VAR CASES_TXT"""

import csv
import io
import subprocess
import sys

import sdpa_var
from reference import Checker, cli_text

exe, cases = sys.argv[1], sys.argv[2]
chk = Checker("python.random_cli")
FLAGS = {"--causal", "--values", "--qk-norm", "--cross", "--grad"}
VALUED = {"--dk": "dk", "-d": "dk", "--n": "n", "-n": "n", "--nq": "n_q", "--nk": "n_k",
          "--trials": "trials", "-t": "trials", "--seed": "seed", "-s": "seed",
          "--dist": "dist", "--ddof": "ddof", "--observed": "observed", "--scale": "scale",
          "--nu": "nu", "--q-mean": "q_mean", "--q-std": "q_std", "--k-mean": "k_mean",
          "--k-std": "k_std", "--qk-scale": "qk_scale", "--plant": "plant",
          "--d-model": "d_model", "--init": "init", "--dv": "d_v", "--threads": "threads",
          "--block-rows": "block_rows", "--window": "window"}
TEXT = {"dist", "scale", "init"}
REAL = {"observed", "nu", "q_mean", "q_std", "k_mean", "k_std", "qk_scale", "plant"}


def kwargs_of(args):
    """random()'s keywords for a CLI argument list, or None if it takes
    something random() does not (lists, other outputs)."""
    kw, i = {}, 0
    while i < len(args):
        a = args[i]
        if a in ("-q", "--quiet"):
            i += 1
            continue
        if a in FLAGS:
            kw[a[2:].replace("-", "_")] = True
            i += 1
            continue
        if a not in VALUED or i + 1 >= len(args):
            return None
        key, val = VALUED[a], args[i + 1]
        if "," in val or (key == "dk" and ":" in val):
            return None
        kw[key] = val if key in TEXT else float(val) if key in REAL else int(val)
        i += 2
    return kw


ran = 0
for line in open(cases):
    line = line.split("#", 1)[0].split()
    if not line:
        continue
    name, args = line[0], line[1:]
    if args[-2:] != ["--columns", "all"]:
        continue  # random() returns every column: compare with --columns all
    args = args[:-2]
    kw = kwargs_of(args)
    if kw is None:
        continue
    cli = subprocess.run([exe, "--format", "csv", "--columns", "all"] + args, capture_output=True, text=True)
    if cli.returncode != 0:
        continue  # a usage error: not a summary to compare
    rows = list(csv.DictReader(io.StringIO(cli.stdout)))
    chk.ok(len(rows) == 1, name + " one row", cli.stdout[:200])
    ran += 1
    dk, n = kw.pop("dk", 64), kw.pop("n", 1111)
    s = sdpa_var.random(dk, n, **kw)
    chk.ok(list(rows[0]) == list(s.columns), name + " columns",
           "cli %s\npython %s" % (list(rows[0]), list(s.columns)))
    for col, want in rows[0].items():
        if col in s.values:
            got = cli_text(s.values[col])
            chk.ok(got == want, "%s %s" % (name, col), "python %s cli %s" % (got, want))
chk.ok(ran >= 30, "cases run", "only %d golden cases ran" % ran)
print("golden cases compared: %d" % ran)
chk.done()
