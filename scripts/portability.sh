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
# The docs.* tests (most of the label's time: every command of the docs,
# the figures' data) run in the first `levels` runs only, which still pair
# each instruction set with a kernel; unit, CLI and golden tests run in all.
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
    ((i < ${#levels[@]})) || skip=(-E '^docs\.')
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
