"""sdpa_var.merge against `sdpa-var merge` (issue 40: the library decides,
the front ends render). On the same shard files written by the CLI:
- a set of shards that merges gives the columns of the CLI's
  `--columns all` run of all the trials (which columns exist is the
  library's rule, sv_column_exists: with --observed, with --grad) and the
  CLI's numbers, bit for bit (%.17g as the CSV writes them);
- a set that does not (another experiment, overlapping shards, trials or
  query rows in no file, a shard of a run of another trial count, a state of
  another build or of another format version, a truncated or empty file)
  raises ValueError with the very line the CLI prints after
  "sdpa-var: merge: " (the library's sv_state_why_text names the shards);
  a missing file raises FileNotFoundError where the CLI names errno.
usage: merge_cli_test.py SDPA_VAR"""

import csv
import io
import os
import struct
import subprocess
import sys
import tempfile

import sdpa_var
from reference import Checker, cli_text

exe = sys.argv[1]
chk = Checker("python.merge_cli")
tmp = tempfile.TemporaryDirectory()
T = tmp.name


def cli(args, path=None):
    """`sdpa-var ARGS`, stdout to @p path (or returned), the exit code checked."""
    r = subprocess.run([exe] + args, capture_output=True)
    chk.ok(r.returncode == 0, "sdpa-var %s" % " ".join(args), r.stderr.decode())
    if path is None:
        return r.stdout.decode()
    with open(path, "wb") as f:
        f.write(r.stdout)
    return path


def shard(name, args, first, count, total):
    return cli(args + ["--trials", str(count), "--first-trial", str(first), "--total-trials",
                       str(total), "--format", "state"], os.path.join(T, name))


# --- shards that merge: Python's columns and numbers are the CLI's
for what, args in (("observed", ["--dk", "4,16", "--n", "20", "--observed", "60", "--seed",
                                  "5"]),
                   ("grad", ["--dk", "8", "--n", "12", "--grad", "--seed", "7"])):
    files = [shard("%s%d.st" % (what, i), args, 10 * i, 10, 30) for i in range(3)]
    want = list(csv.DictReader(io.StringIO(cli(args + ["--trials", "30", "--format", "csv",
                                                       "--columns", "all"]))))
    got = sdpa_var.merge(files[::-1])
    chk.ok(len(got) == len(want) and len(want) >= 1, what + " rows", "%d and %d"
           % (len(got), len(want)))
    for g, w in zip(got, want):
        chk.ok(list(g.columns) == list(w), what + " columns (sv_column_exists)",
               "python %s\ncli %s" % (list(g.columns), list(w)))
        bad = [(k, cli_text(g.values[k]), v) for k, v in w.items()
               if k in g.values and cli_text(g.values[k]) != v]
        chk.ok(not bad, what + " values", str(bad[:5]))

# --- shards that do not merge: the CLI's line, word for word
A = ["--dk", "4", "--n", "20", "--seed", "5"]
t = [shard("t%d.st" % i, A, 10 * i, 10, 30) for i in range(3)]
seed = shard("seed.st", A + ["--seed", "6"], 10, 10, 30)
over = shard("over.st", A, 5, 10, 30)
other_total = shard("t31.st", A, 20, 10, 31)
# row shards: query rows 0..4095 and 4096 of n_q 4097 (blocks of 4096 rows)
R = ["--dk", "2", "--n", "4097", "--trials", "1", "--seed", "3", "--format", "state"]
r0 = cli(R + ["--q-rows", "0:4096"], os.path.join(T, "r0.st"))
with open(t[0], "rb") as f:
    good = f.read()


def write(name, b, digest=True):
    """@p b as file @p name, its FNV-1a digest (the last 8 bytes) made
    again when @p digest, so the change is read, not refused as corrupt."""
    b = bytearray(b)
    if digest:
        h = 0xcbf29ce484222325
        for x in b[:-8]:
            h = ((h ^ x) * 0x100000001b3) & (2**64 - 1)
        struct.pack_into("<Q", b, len(b) - 8, h)
    path = os.path.join(T, name)
    with open(path, "wb") as f:
        f.write(b)
    return path


old = bytearray(good)  # another build: the version string rewritten
n = struct.unpack_from("<Q", old, 16)[0]
old[24:24 + n] = b"0.0.0"[:n].ljust(n, b"0")
v1 = bytearray(good)  # format version 1
struct.pack_into("<I", v1, 8, 1)
cases = {
    "another experiment": [t[0], seed],
    "overlap": [t[0], over, t[1], t[2]],
    "the same shard twice": [t[0], t[0], t[1], t[2]],
    "middle trials missing": [t[0], t[2]],
    "first trials missing": [t[1], t[2]],
    "last trials missing": [t[0], t[1]],
    "another trial count": [t[0], t[1], other_total],
    "query rows missing": [r0],
    "another build": [write("old.st", old), t[1], t[2]],
    "format version 1": [write("v1.st", v1), t[1], t[2]],
    "truncated": [write("cut.st", good[:300], digest=False), t[1], t[2]],
    "empty": [write("empty.st", b"", digest=False)],
}
prefix = "sdpa-var: merge: "
for name, files in cases.items():
    r = subprocess.run([exe, "merge"] + files, capture_output=True, text=True)
    lines = r.stderr.splitlines()
    if not chk.ok(r.returncode == 1 and len(lines) == 1 and lines[0].startswith(prefix),
                  name + ": the CLI refuses in one line", "rc %d: %s" % (r.returncode, r.stderr)):
        continue
    try:
        sdpa_var.merge(files)
        got = "(merged)"
    except ValueError as e:
        got = str(e)
    chk.ok(got == lines[0][len(prefix):], name + ": Python says what the CLI says",
           "\npython: %s\ncli:    %s" % (got, lines[0][len(prefix):]))
try:
    sdpa_var.merge([os.path.join(T, "missing.st")])
    chk.ok(False, "a missing file raises", "merged")
except FileNotFoundError as e:
    chk.ok("missing.st" in str(e), "a missing file names itself", str(e))
chk.done()
