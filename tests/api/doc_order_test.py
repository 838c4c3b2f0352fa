#!/usr/bin/env python3
"""style.docorder: the docstring of every public function in
include/sdpa_var/*.h ends its sections in zstd.h's fixed order: return and
errors (@return), thread safety, cost, source. A section may be absent;
those present come in that order. Thread safety and cost are required:
in the function's docstring, or once for the header in its @file block
("Thread safety, every function here..." / "Cost, every function
here...").
  tests/api/doc_order_test.py SOURCE_DIR"""
import glob
import re
import sys

ORDER = [("return", r"@return"), ("thread safety", r"Thread[- ]safe|Thread safety"),
         ("cost", r"\bCost:"), ("source", r"\bSource:")]
root = sys.argv[1] if len(sys.argv) > 1 else "."
bad = checked = 0
for path in sorted(glob.glob(root + "/include/sdpa_var/*.h")):
    text = open(path).read()
    head = text[:text.find("*/")]
    file_wide = {name for name, pat in (("thread safety", r"Thread safety, every function here"),
                                        ("cost", r"Cost, every function here"))
                 if re.search(pat, head)}
    for m in re.finditer(r"/\*\*((?:(?!\*/).)*)\*/\s*\n([^\n;{]*\bsv_\w+\()", text, re.S):
        doc, fn = m.group(1), re.search(r"sv_\w+(?=\()", m.group(2)).group(0)
        found = sorted((hit.start(), name) for name, pat in ORDER
                       for hit in [re.search(pat, doc)] if hit)
        got = [name for _, name in found]
        want = [name for name, _ in ORDER if name in got]
        checked += 1
        if got != want:
            bad += 1
            print("style.docorder: %s: %s's docstring has %s; want %s"
                  % (path[len(root) + 1:], fn, ", ".join(got), ", ".join(want)), file=sys.stderr)
        missing = [n for n in ("thread safety", "cost") if n not in got and n not in file_wide]
        if missing:
            bad += 1
            print("style.docorder: %s: %s says nothing on %s (its docstring, or the header's "
                  "@file block for every function)" % (path[len(root) + 1:], fn,
                                                      " and ".join(missing)), file=sys.stderr)
if checked < 50:  # a broken pattern would check nothing
    sys.exit("style.docorder: found only %d docstrings" % checked)
print("style.docorder: %d public docstrings, %d problems" % (checked, bad))
sys.exit(1 if bad else 0)
