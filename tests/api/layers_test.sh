#!/usr/bin/env bash
# style.layers (issue 22): every include and call in src/ points down the
# layers of cmake/layers.cmake, with no loop (scripts/check_layers.py), and
# the check fails when an upward include, an include loop, an upward call or
# a call loop is put back on purpose in a scratch copy.
#   tests/api/layers_test.sh SOURCE_DIR BUILD_DIR
set -u
root=${1:?usage: layers_test.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: layers_test.sh SOURCE_DIR BUILD_DIR}
py=$(command -v python3) || { echo "style.layers: python3 not found" >&2; exit 1; }
check=$root/scripts/check_layers.py
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if "$py" "$check" "$root" "$build"; then ok; else bad "the tree itself"; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fresh() { rm -rf "$tmp/t"; mkdir -p "$tmp/t"; cp -r "$root/src" "$root/cmake" "$tmp/t/"; }
# expect_fail WHAT PATTERN [BUILD]: the check exits 1 and says PATTERN.
expect_fail() {
    local what=$1 pattern=$2 out st
    out=$("$py" "$check" "$tmp/t" ${3:+"$3"} 2>&1)
    st=$?
    if [ "$st" -eq 1 ] && grep -q -- "$pattern" <<<"$out"; then ok; else
        bad "$what: exit $st, wanted 1 with '$pattern'; got: $out"
    fi
}

fresh
if "$py" "$check" "$tmp/t" >/dev/null; then ok; else bad "the copy without a build"; fi
fresh
printf '#include "plan.h"\n' >>"$tmp/t/src/theory/theory.c"
expect_fail "theory.c including engine's plan.h" 'src/theory/theory.c:.*"plan.h" of src/engine, a higher layer'
fresh
printf '#include "../engine/plan.h"\n' >>"$tmp/t/src/report/summary.c"
expect_fail "a path with .." 'src/report/summary.c:.*"../engine/plan.h"'
fresh
sed -i '0,/#include/s//#include "plant.h"\n#include/' "$tmp/t/src/theory/forms.h"
expect_fail "forms.h <-> plant.h" 'include loop: src/theory/forms -> src/theory/plant'

# Calls: two objects that call each other, and one that calls up a layer.
fresh
mkdir -p "$tmp/b/o/src/core" "$tmp/b/o/src/engine"
printf 'int sv_b(int);\nint sv_a(int x) { return x ? sv_b(x - 1) : 0; }\n' >"$tmp/a.c"
printf 'int sv_a(int);\nint sv_b(int x) { return x ? sv_a(x - 1) : 1; }\n' >"$tmp/b.c"
printf 'int sv_e(int x) { return x; }\n' >"$tmp/e.c"
touch "$tmp/t/src/core/a.c" "$tmp/t/src/core/b.c" "$tmp/t/src/core/u.c" "$tmp/t/src/engine/e.c"
printf 'int sv_e(int);\nint sv_u(int x) { return sv_e(x); }\n' >"$tmp/u.c"
cc=${CC:-cc}
$cc -c "$tmp/a.c" -o "$tmp/b/o/src/core/a.c.o" && $cc -c "$tmp/b.c" -o "$tmp/b/o/src/core/b.c.o" &&
    $cc -c "$tmp/e.c" -o "$tmp/b/o/src/engine/e.c.o" && $cc -c "$tmp/u.c" -o "$tmp/b/o/src/core/u.c.o" ||
    { echo "style.layers: $cc cannot compile the probes" >&2; exit 1; }
expect_fail "a.o <-> b.o" 'call loop: src/core/a.c -> src/core/b.c (sv_b)' "$tmp/b"
expect_fail "core calling engine" 'upward call: src/core/u.c -> src/engine/e.c (sv_e)' "$tmp/b"

echo "style.layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
