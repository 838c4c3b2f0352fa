#!/usr/bin/env python3
"""The slowest tests of each ctest run, from the JUnit files ctest wrote
(ctest --output-junit FILE; scripts/test.sh collects one per run in
SV_JUNIT_DIR): a run's name is its file's name.

    scripts/slowest_tests.py [--top N] FILE.xml...

Prints, per run, its test count and total test time, then its N slowest
tests (default 5) with their seconds and status: where the suite's time
goes, to compare with each test's timeout (cmake/timeouts.cmake).
"""
import os
import sys
import xml.etree.ElementTree as ET


def cases(path):
    """[(seconds, name, status)] of one JUnit file; [] if unreadable."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("  %s: unreadable (%s)" % (path, e))
        return []
    out = []
    for c in root.iter("testcase"):
        status = c.get("status", "run")
        if c.find("failure") is not None:
            status = "FAILED"
        elif c.find("skipped") is not None or status == "notrun":
            status = "skipped"
        else:
            status = "passed"
        out.append((float(c.get("time") or 0), c.get("name", "?"), status))
    return out


def main(argv):
    top = 5
    if len(argv) >= 2 and argv[0] == "--top":
        top = int(argv[1])
        argv = argv[2:]
    for path in argv:
        got = sorted(cases(path), reverse=True)
        if not got:
            continue
        name = os.path.splitext(os.path.basename(path))[0]
        print("%s: %d tests, %.0f s of test time; slowest:" % (name, len(got), sum(g[0] for g in got)))
        for sec, test, status in got[:top]:
            print("  %8.1f s  %-28s %s" % (sec, test, status))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
