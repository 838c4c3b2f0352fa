#!/usr/bin/env bash
# The portability step of scripts/test.sh: the tests that compare with
# stored numbers (ctest label `stored`: unit, CLI, golden, docs) run again
# as other CPUs would compute, on this one:
#   OPENBLAS_CORETYPE=NAME    another OpenBLAS dgemm kernel (Debian's OpenBLAS
#                             is built with DYNAMIC_ARCH: every kernel is in it)
#   SV_CPU_CAPABILITY=LEVEL   the row loops and vector exp of another
#                             instruction set (include/sdpa_var/cpu.h)
# Every core type and every level this CPU can run appears at least once;
# they are paired round-robin (run i: core type i, level i mod levels), so
# the step costs max(types, levels) runs of the label, not their product.
#
# What each run proves, and why the docs.* tests run in one of them only
# (issue 42): the claim is that every stored output agrees within
# tests/tolerance.py's RTOL under every kernel and instruction set. Those
# change the results only through the order of additions (a score's d_k
# products, a row's n_k terms) and the vector exp; tolerance.py bounds the
# change for any d_k and n_k (8.3e-11 for the largest stored case, RTOL
# 12 times that). The unit, CLI and golden tests run every code path and
# option at small sizes and check that bound under every pairing: they run
# in every run. The docs.* tests (docs.commands, docs.figures,
# docs.long_context) recompute the docs' outputs by the same code paths at
# the docs' sizes, which the bound covers (it holds for any order of the
# additions, so for any kernel's blocking at any size): they add no proof
# per pairing, only time (at
# OPENBLAS_CORETYPE=Prescott SV_CPU_CAPABILITY=default, the slowest, 10+
# minutes on a busy 2-core machine). They run once here, in run 1 (the
# second core type with the second level, or the only one: both differ
# from the release step's, which ran them under this CPU's own), as a
# check end to end that the docs' numbers, including any count or text
# that a last bit could flip, come out the same on another CPU.
# Each run first checks that OpenBLAS really uses the core type asked for;
# its tests run nproc at a time, as in the release step.
#   scripts/portability.sh [BUILD_DIR]        (default build/)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
bin=$build/sdpa-var
[ -x "$bin" ] || { echo "portability: $bin not built" >&2; exit 1; }

flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
has() { local f; for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }

types=()
has pni && types+=(Prescott)
has avx && types+=(Sandybridge)
has avx2 fma && types+=(Haswell Zen)
has avx512f avx512bw avx512vl avx512dq avx512cd && types+=(SkylakeX)
has avx512f avx512bw avx512vl avx512dq avx512cd avx512_bf16 && types+=(Cooperlake)
levels=(default)
has avx2 fma && levels+=(avx2)
has avx512f && levels+=(avx512)
if [ "${#types[@]}" -lt 3 ]; then
    echo "portability: this CPU runs only ${types[*]:-no} OpenBLAS x86-64 kernels" >&2
    exit 1
fi

runs=${#types[@]}
[ "${#levels[@]}" -gt "$runs" ] && runs=${#levels[@]}
failed=()
for ((i = 0; i < runs; i++)); do
    t=${types[i % ${#types[@]}]} l=${levels[i % ${#levels[@]}]}
    printf '\n-- OPENBLAS_CORETYPE=%s SV_CPU_CAPABILITY=%s --\n' "$t" "$l"
    # OPENBLAS_VERBOSE=2 makes OpenBLAS name the kernel it loaded.
    core=$(OPENBLAS_VERBOSE=2 OPENBLAS_CORETYPE=$t "$bin" --dk 2 --n 2 --format csv 2>&1 >/dev/null |
        sed -n 's/^Core: //p')
    if [ "$core" != "$t" ]; then
        echo "portability: OpenBLAS loaded '${core:-?}', not $t" >&2
        failed+=("$t/$l")
        continue
    fi
    skip=()
    ((i == 1)) || skip=(-E '^docs\.')
    # SV_JUNIT_DIR (scripts/test.sh): each test's time, for its slowest list.
    junit=()
    [ -z "${SV_JUNIT_DIR:-}" ] || junit=(--output-junit "$SV_JUNIT_DIR/portability-$t-$l.xml")
    if ! OPENBLAS_CORETYPE=$t SV_CPU_CAPABILITY=$l ctest --test-dir "$build" -L stored \
        "${skip[@]}" -j "$(nproc)" --output-on-failure "${junit[@]}"; then
        failed+=("$t/$l")
    fi
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "portability: failed under ${failed[*]}" >&2
    exit 1
fi
echo "portability: the stored-output tests passed under ${types[*]} and ${levels[*]}"
