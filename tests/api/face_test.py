#!/usr/bin/env python3
"""api.face (issue 40 item 6): the public face, as sdpa_var.h draws it.

sdpa_var.h includes the stable headers first, then, under SDPA_VAR_ADVANCED,
the advanced ones; every header of include/sdpa_var/ is in one of the two
lists. Each header is compiled alone (cc -fsyntax-only -Werror) in a file
that takes the address of the first function it declares:
  - a stable header compiles without SDPA_VAR_ADVANCED;
  - an advanced header compiles with it, and without it does not: it stops
    at its #error, or declares only the types a stable header needs, so the
    function is undeclared;
  - sdpa_var.h without the macro declares a stable function and no advanced
    one.
    tests/api/face_test.py SOURCE_DIR GENERATED_INCLUDE_DIR [CC]
"""
import os
import re
import subprocess
import sys
import tempfile

DECL = re.compile(r"^[a-z_][a-z0-9_ ]*[ *]+(sv_[a-z0-9_]+)\(", re.M)
# Advanced headers that still declare their functions without the macro,
# each with its reason; an entry no longer needed fails, so the list only
# shrinks.
PENDING = set()


def lists(root):
    text = open(os.path.join(root, "include", "sdpa_var", "sdpa_var.h")).read()
    cut = text.find("#if defined(SDPA_VAR_ADVANCED)")
    if cut < 0:
        sys.exit("api.face: sdpa_var.h has no #if defined(SDPA_VAR_ADVANCED) section")
    name = re.compile(r'#include "sdpa_var/(\w+)\.h"')
    return name.findall(text[:cut]), name.findall(text[cut:])


def compiles(cc, inc, header, fn, advanced):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.c")
        with open(src, "w") as f:
            f.write('#include "sdpa_var/%s.h"\nvoid *face_probe(void);\n'
                    "void *face_probe(void) { return (void *)&%s; }\n" % (header, fn))
        cmd = [cc, "-std=c11", "-fsyntax-only", "-Werror", "-I", inc[0], "-I", inc[1], src]
        if advanced:
            cmd.insert(1, "-DSDPA_VAR_ADVANCED")
        return subprocess.run(cmd, capture_output=True, text=True).returncode == 0


def main(argv):
    if len(argv) not in (3, 4):
        print("usage: face_test.py SOURCE_DIR GENERATED_INCLUDE_DIR [CC]", file=sys.stderr)
        return 2
    root, gen = argv[1], argv[2]
    cc = argv[3] if len(argv) == 4 else os.environ.get("CC", "cc")
    inc = (os.path.join(root, "include"), gen)
    stable, advanced = lists(root)
    bad, checked = [], 0
    folder = os.path.join(root, "include", "sdpa_var")
    on_disk = sorted(f[:-2] for f in os.listdir(folder) if f.endswith(".h"))
    for h in on_disk:
        if h != "sdpa_var" and h not in stable and h not in advanced:
            bad.append("sdpa_var/%s.h is in neither list of sdpa_var.h" % h)
    if "version" not in stable:  # generated (cmake/version.h.in)
        bad.append("sdpa_var.h does not include the generated version.h")
    first = {}
    for h in on_disk:
        fns = DECL.findall(open(os.path.join(folder, h + ".h")).read())
        if fns:
            first[h] = fns[0]
    for h in stable:
        if h in first:
            checked += 1
            if not compiles(cc, inc, h, first[h], False):
                bad.append("stable sdpa_var/%s.h does not compile (with %s) without "
                           "SDPA_VAR_ADVANCED" % (h, first[h]))
    for h in advanced:
        checked += 1
        if not compiles(cc, inc, h, first[h], True):
            bad.append("sdpa_var/%s.h does not compile with SDPA_VAR_ADVANCED" % h)
        alone = compiles(cc, inc, h, first[h], False)
        if alone and h not in PENDING:
            bad.append("advanced sdpa_var/%s.h declares %s without SDPA_VAR_ADVANCED"
                       % (h, first[h]))
        if not alone and h in PENDING:
            bad.append("%s is in PENDING but needs SDPA_VAR_ADVANCED now: remove the entry" % h)
    # The umbrella without the macro: a stable function, no advanced one.
    if not compiles(cc, inc, "sdpa_var", "sv_engine_run", False):
        bad.append("sdpa_var.h does not declare sv_engine_run without SDPA_VAR_ADVANCED")
    if compiles(cc, inc, "sdpa_var", "sv_rng_next", False):
        bad.append("sdpa_var.h declares sv_rng_next without SDPA_VAR_ADVANCED")
    if checked < 15:  # a broken pattern would check nothing
        bad.append("checked only %d headers" % checked)
    for b in bad:
        print("api.face: " + b, file=sys.stderr)
    print("api.face: %d stable and %d advanced headers, %d checked, %d problems"
          % (len(stable), len(advanced), checked, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
