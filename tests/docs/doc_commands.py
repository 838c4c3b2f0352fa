#!/usr/bin/env python3
"""Run every command shown in README.md and docs/*.md; compare what it prints.

Usage: doc_commands.py SDPA_VAR_BINARY SOURCE_DIR [--update]

The markdown convention that README.md and docs/*.md follow:

* A fenced block whose first line starts with "$ " is a session: each
  "$ command" line (continued by a trailing backslash) is run, and the lines
  after it, up to the next "$ " line or the end of the block, are what it
  must print on stdout: text exactly, numbers within the tolerance that
  holds across CPUs and OpenBLAS kernels (tests/tolerance.py).  A line
  "..." in the expected output stands for any number of lines (an elided
  middle).
* A fenced block marked ```sh holds commands that are run as one bash
  script (set -e -o pipefail): figure pipelines into gnuplot, runs whose
  numbers the prose quotes.  Only the exit status is checked.
* An HTML comment on the line before a block changes that:
    <!-- not compared: REASON -->  run, exit status checked, output not compared
    <!-- not run: REASON -->       not run (installing, the whole test suite)
    <!-- slow: REASON -->          run only when SV_DOCS_SLOW=1
  The test lists every such block with its reason.
* A fenced block marked ```python is run by /usr/bin/python3 (Debian's,
  with numpy); only the exit status is checked, so its asserts hold.
* Any other fenced block (sample output, a layout) is not a command.

Commands run in a scratch directory holding build/sdpa-var (the binary under
test), scripts/ and tests/ (the source tree's) and an empty docs/figures/, with
sdpa-var on PATH, so README's `sdpa-var ...` and `build/sdpa-var ...` both
run the build's binary and figures never overwrite the committed ones.
The directory is removed at the end unless SV_DOCS_SCRATCH names it.

--update rewrites every compared session's output in place from the current
tool (keeping "..." elisions and the number of lines around them), so the
docs can be refreshed after a change in output; read the diff, and fix by
hand any number the prose around a block quotes.  A normal run prints a
unified diff for each mismatch and exits 1.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tolerance import compare_lines, lines_match  # noqa: E402

DOCS = ["README.md"]
# A hang guard per command: the longest (docs/experiments.md:335) took 103 s
# under Prescott/default at load 13-16 on 2 cores; times SV_TEST_TIMEOUT_SCALE
# (a whole number, README "Tests"), as ctest's timeouts.
TIMEOUT = 600 * int(os.environ.get("SV_TEST_TIMEOUT_SCALE") or 1)


def doc_files(src):
    files = [f for f in DOCS if os.path.exists(os.path.join(src, f))]
    ddir = os.path.join(src, "docs")
    files += sorted("docs/" + f for f in os.listdir(ddir) if f.endswith(".md"))
    return files


def parse(text):
    """Yield blocks: dict(start, end, info, lines, marker) with line indices
    of the fence lines (start is the opening fence, end the closing one)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(```+)\s*(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != fence:
            j += 1
        marker = None
        k = i - 1
        while k >= 0 and lines[k].strip() == "":
            k -= 1
        if k >= 0:
            mm = re.match(r"^<!--\s*(not compared|not run|slow):\s*(.*?)\s*-->\s*$", lines[k])
            if mm:
                marker = (mm.group(1), mm.group(2))
        yield dict(start=i, end=j, info=info, lines=lines[i + 1:j], marker=marker)
        i = j + 1


def session(body):
    """[(command, [expected lines], first expected line index in body)]."""
    items = []
    i = 0
    while i < len(body):
        if not body[i].startswith("$ "):
            i += 1
            continue
        cmd = body[i][2:]
        while cmd.endswith("\\") and i + 1 < len(body):
            i += 1
            cmd = cmd[:-1] + "\n" + body[i]
        i += 1
        first = i
        while i < len(body) and not body[i].startswith("$ "):
            i += 1
        items.append((cmd, body[first:i], first))
    return items


def matches(want, got):
    """want may hold "..." lines, each matching any run of lines; lines
    compare by tests/tolerance.py."""
    if "..." not in want:
        return lines_match(want, got)
    parts = []
    cur = []
    for w in want:
        if w == "...":
            parts.append(cur)
            cur = []
        else:
            cur.append(w)
    parts.append(cur)
    if not lines_match(parts[0], got[:len(parts[0])]):
        return False
    pos = len(parts[0])
    for p in parts[1:-1]:
        for s in range(pos, len(got) - len(p) + 1):
            if lines_match(p, got[s:s + len(p)]):
                pos = s + len(p)
                break
        else:
            return False
    last = parts[-1]
    return len(got) - pos >= len(last) and (not last or lines_match(last, got[len(got) - len(last):]))


def refreshed(want, got):
    """The expected lines rewritten from got, keeping one "..." elision's
    shape (head and tail lengths)."""
    if "..." not in want:
        return got
    h = want.index("...")
    t = len(want) - h - 1
    # The head ends, and the tail starts, at the same lines as before when
    # the tool still prints them (a line added above moves them).
    if h and want[h - 1] in got:
        h = got.index(want[h - 1]) + 1
    if t and want[len(want) - t] in got:
        first_tail = want[len(want) - t]
        t = len(got) - (len(got) - 1 - got[::-1].index(first_tail))
    if h + t >= len(got):
        return got
    return got[:h] + ["..."] + (got[len(got) - t:] if t else [])


def run(cmd, cwd, env):
    p = subprocess.run(["bash", "-o", "pipefail", "-e", "-c", cmd], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def took(t0):
    """The wall time since t0, as each result line ends: the slow commands
    show up in ctest's output (scripts/portability.sh chooses by them)."""
    return " [%.1f s]" % (time.monotonic() - t0)


def main():
    args = [a for a in sys.argv[1:] if a != "--update"]
    update = "--update" in sys.argv[1:]
    if len(args) != 2:
        print("usage: doc_commands.py SDPA_VAR_BINARY SOURCE_DIR [--update]", file=sys.stderr)
        return 2
    binary, src = os.path.abspath(args[0]), os.path.abspath(args[1])
    slow = os.environ.get("SV_DOCS_SLOW") == "1"
    # SV_DOCS_SCRATCH=DIR (a new directory) keeps what the commands wrote,
    # e.g. the figures, to look at or to copy into docs/figures.
    keep = os.environ.get("SV_DOCS_SCRATCH")
    if keep:
        os.makedirs(keep)
        scratch = os.path.abspath(keep)
    else:
        scratch = tempfile.mkdtemp(prefix="sv-docs-")
    os.makedirs(os.path.join(scratch, "build"))
    os.makedirs(os.path.join(scratch, "docs", "figures"))
    os.makedirs(os.path.join(scratch, "bin"))
    os.symlink(binary, os.path.join(scratch, "build", "sdpa-var"))
    os.symlink(binary, os.path.join(scratch, "bin", "sdpa-var"))
    os.symlink(os.path.join(src, "scripts"), os.path.join(scratch, "scripts"))
    os.symlink(os.path.join(src, "examples"), os.path.join(scratch, "examples"))
    os.symlink(os.path.join(src, "tests"), os.path.join(scratch, "tests"))
    env = dict(os.environ, PATH=os.path.join(scratch, "bin") + os.pathsep + os.environ["PATH"],
               LC_ALL="C")
    env.pop("OMP_NUM_THREADS", None)
    passed = failed = skipped = 0
    for rel in doc_files(src):
        path = os.path.join(src, rel)
        text = open(path, encoding="utf-8").read()
        lines = text.split("\n")
        edits = []   # (first line index, last+1, new lines)
        for b in parse(text):
            is_session = bool(b["lines"]) and b["lines"][0].startswith("$ ")
            is_sh = b["info"] in ("sh", "bash", "console") and not is_session
            is_py = b["info"] == "python"
            if not (is_session or is_sh or is_py):
                continue
            where = "%s:%d" % (rel, b["start"] + 1)
            kind, reason = b["marker"] or (None, None)
            if kind == "not run" or (kind == "slow" and not slow):
                skipped += 1
                print("  skip  %s: %s: %s" % (where, kind, reason))
                continue
            t0 = time.monotonic()
            if is_py:
                p = subprocess.run(["/usr/bin/python3", "-"], input="\n".join(b["lines"]).encode(),
                                   cwd=scratch, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=TIMEOUT)
                if p.returncode == 0:
                    passed += 1
                    print("  ok    %s: python block, exit 0%s" % (where, took(t0)))
                else:
                    failed += 1
                    print("  FAIL  %s: python block exit %d; stderr:\n%s"
                          % (where, p.returncode, p.stderr.decode("utf-8", "replace").rstrip()))
                continue
            if is_sh:
                code, out, err = run("\n".join(b["lines"]), scratch, env)
                if code == 0:
                    passed += 1
                    print("  ok    %s: sh block, exit 0%s" % (where, took(t0)))
                else:
                    failed += 1
                    print("  FAIL  %s: sh block exit %d; stderr:\n%s" % (where, code, err.rstrip()))
                continue
            for cmd, want, first in session(b["lines"]):
                t0 = time.monotonic()
                code, out, err = run(cmd, scratch, env)
                shown = cmd.split("\n")[0]
                got = out.split("\n")
                if got and got[-1] == "":
                    got.pop()
                if code != 0:
                    failed += 1
                    print("  FAIL  %s: $ %s: exit %d; stderr:\n%s" % (where, shown, code, err.rstrip()))
                    continue
                if kind == "not compared":
                    passed += 1
                    print("  ok    %s: $ %s: exit 0 (not compared: %s)%s" % (where, shown, reason, took(t0)))
                    continue
                if matches(want, got):
                    passed += 1
                    print("  ok    %s: $ %s%s" % (where, shown, took(t0)))
                    continue
                if update:
                    lo = b["start"] + 1 + first
                    edits.append((lo, lo + len(want), refreshed(want, got)))
                    print("  upd   %s: $ %s" % (where, shown))
                    continue
                failed += 1
                print("  FAIL  %s: $ %s: the docs (-) and the tool (+) differ:" % (where, shown))
                for d in difflib.unified_diff(want, got, rel, "sdpa-var", lineterm="", n=2):
                    print("        " + d)
                if "..." not in want:
                    for d in compare_lines(want, got, where):
                        print("        " + d)
        if edits:
            for lo, hi, new in sorted(edits, reverse=True):
                lines[lo:hi] = new
            open(path, "w", encoding="utf-8").write("\n".join(lines))
    if not keep:
        shutil.rmtree(scratch, ignore_errors=True)
    if passed == 0:  # no docs found or no command run: nothing was checked
        failed += 1
        print("  FAIL  no documented command was run (docs under %s?)" % src)
    print("doc_commands: %d passed, %d failed, %d skipped (listed above)" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
