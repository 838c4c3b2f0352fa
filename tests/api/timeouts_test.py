#!/usr/bin/python3
"""style.timeouts (issue 42): every test timeout is a hang guard, at least
5 times the test's time as measured and written beside it.

    timeouts_test.py SOURCE_DIR

In every CMakeLists.txt under tests/:
* a TIMEOUT is set by sv_timeout(TEST SECONDS) (cmake/timeouts.cmake), never
  by set_tests_properties(... TIMEOUT ...), so SV_TEST_TIMEOUT_SCALE scales it;
* the comment right above a numeric sv_timeout names the test's measured
  time as "N s under ..." (the configuration: the portability step's slowest
  pair) and may add "N s in issue ..." (a time seen elsewhere), and SECONDS
  is at least 5 times the largest of them.
A computed guard (a variable, as the fuzz harnesses' from their seconds) is
listed, not checked. Exit 1 naming each offender.
"""
import os
import re
import sys

FACTOR = 5
MEASURED = re.compile(r"(\d+(?:\.\d+)?) s (?:under|in issue)\b")
CALL = re.compile(r"^\s*sv_timeout\(\s*(\S+)\s+(\S+)\s*\)")


def comment_above(lines, i):
    """The comment lines right above line i, joined into one string."""
    out = []
    j = i - 1
    while j >= 0 and lines[j].strip().startswith("#"):
        out.insert(0, lines[j].strip().lstrip("#").strip())
        j -= 1
    return " ".join(out)


def check(path, rel):
    problems, notes, checked = [], [], 0
    lines = open(path, encoding="utf-8").read().split("\n")
    text = "\n".join(l.split("#", 1)[0] for l in lines)
    for m in re.finditer(r"set_tests_properties\([^)]*\bTIMEOUT\b", text):
        line = text.count("\n", 0, m.start()) + 1
        problems.append("%s:%d: TIMEOUT set by set_tests_properties, not sv_timeout "
                        "(SV_TEST_TIMEOUT_SCALE would not scale it)" % (rel, line))
    for i, l in enumerate(lines):
        m = CALL.match(l)
        if not m:
            continue
        test, value = m.group(1), m.group(2)
        where = "%s:%d: %s" % (rel, i + 1, test)
        if not re.fullmatch(r"\d+", value):
            notes.append("%s: computed guard %s, not checked" % (where, value))
            continue
        times = [float(t) for t in MEASURED.findall(comment_above(lines, i))]
        if not times:
            problems.append("%s: no measured time (\"N s under ...\") in the comment above" % where)
            continue
        checked += 1
        if int(value) < FACTOR * max(times):
            problems.append("%s: %s s < %d x %g s measured" % (where, value, FACTOR, max(times)))
    return problems, notes, checked


def main():
    if len(sys.argv) != 2:
        print("usage: timeouts_test.py SOURCE_DIR", file=sys.stderr)
        return 2
    src = sys.argv[1]
    problems, notes, checked = [], [], 0
    for d, _, files in sorted(os.walk(os.path.join(src, "tests"))):
        if "CMakeLists.txt" in files:
            path = os.path.join(d, "CMakeLists.txt")
            p, n, c = check(path, os.path.relpath(path, src))
            problems += p
            notes += n
            checked += c
    for n in notes:
        print("  " + n)
    for p in problems:
        print("FAIL " + p)
    if checked == 0:
        print("FAIL no sv_timeout found under %s/tests" % src)
        return 1
    print("style.timeouts: %d timeouts checked, each >= %dx its measured time; %d problems"
          % (checked, FACTOR, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
