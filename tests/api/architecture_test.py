#!/usr/bin/env python3
"""style.architecture: docs/architecture.md's table of the tree against the
tree. Every .c and .h file of each folder of src/ is named in its folder's
row (by its file name, its stem, or a stem* pattern; a header by its
.c file's), every file a row
names exists there, every folder of src/ holding sources has a row, and
every scripts/... path that docs/architecture.md or cmake/*.cmake writes
exists; and every function the library defines with the public prefix
sv_ is declared in include/sdpa_var (private ones are sv__).
  tests/api/architecture_test.py SOURCE_DIR"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
doc = open(os.path.join(root, "docs/architecture.md")).read()
bad = []
rows = {}
for m in re.finditer(r"^\| `(src/[\w/]+/)` \|[^|]*\| ([^\n]*)\|$", doc, re.M):
    rows[m.group(1)] = m.group(2)
folders = sorted({os.path.relpath(os.path.dirname(p), root) + "/"
                  for p in glob.glob(os.path.join(root, "src/**/*.[ch]"), recursive=True)})
checked = 0
for folder in folders:
    text = rows.get(folder)
    if text is None:
        bad.append("%s holds sources but has no row in the table" % folder)
        continue
    words = set(re.findall(r"(?<![\w/.])[\w.]+\*?", text))  # bare names, not paths
    for path in sorted(glob.glob(os.path.join(root, folder, "*.[ch]"))):
        name = os.path.basename(path)
        stem = name[:-2]
        checked += 1
        # a header goes with the .c file of its stem (run.h with run.c)
        if name in words or stem in words or stem + ".c" in words or any(
                w.endswith("*") and stem.startswith(w[:-1]) for w in words):
            continue
        bad.append("%s%s is not in the row of %s" % (folder, name, folder))
    for named in sorted(w for w in words if re.fullmatch(r"\w+\.[ch]", w)):
        if not os.path.exists(os.path.join(root, folder, named)):
            bad.append("the row of %s names %s, which is not there" % (folder, named))
for folder in rows:
    if folder not in folders:
        bad.append("the table has a row for %s, which holds no source" % folder)
texts = [("docs/architecture.md", doc)] + [
    (os.path.relpath(p, root), open(p).read()) for p in sorted(glob.glob(root + "/cmake/*.cmake"))]
for where, text in texts:
    for path in sorted(set(re.findall(r"\bscripts/[\w./-]*\w", text))):
        checked += 1
        if not os.path.exists(os.path.join(root, path)):
            bad.append("%s names %s, which does not exist" % (where, path))
# The public prefix sv_ is the headers' (include/sdpa_var); a function of
# the library defined anywhere else is sv__ (private), whatever the version
# script hides.
public = set()
for h in glob.glob(os.path.join(root, "include/sdpa_var/*.h")):
    public |= set(re.findall(r"\b(sv_[a-z0-9]\w*)\s*\(", open(h).read()))
for path in sorted(glob.glob(os.path.join(root, "src/**/*.[ch]"), recursive=True)):
    rel = os.path.relpath(path, root)
    if rel.startswith("src/cli/"):
        continue
    for m in re.finditer(r"^[a-z][\w \*]*?\b(sv_[a-z0-9]\w*)\s*\([^;{]*\)\s*\{", open(path).read(),
                         re.M):
        checked += 1
        if m.group(1) not in public:
            bad.append("%s defines %s, not in include/sdpa_var: name it sv__%s"
                       % (rel, m.group(1), m.group(1)[3:]))
for b in bad:
    print("style.architecture: " + b, file=sys.stderr)
if checked < 80:  # a broken pattern would check nothing
    sys.exit("style.architecture: checked only %d names" % checked)
print("style.architecture: %d names checked, %d problems" % (checked, len(bad)))
sys.exit(1 if bad else 0)
