#!/usr/bin/env bash
# Quick start, step 2: install what is missing (build and test packages),
# then run the whole suite, step by step:
#   release   build Release into build/ and the web page into build-web/
#             (scripts/web.sh), ctest (unit, CLI, golden, numpy, web page,
#             gnuplot, torch, install, valgrind, ...)
#   portability  the tests that compare with stored numbers (label
#             `stored`) again under every OpenBLAS core type and instruction
#             set this CPU can run (scripts/portability.sh), as other CPUs
#   asan      build with AddressSanitizer + UBSan into build-asan/, ctest
#   fuzz      libFuzzer harnesses, 30 s each under ASan + UBSan (build-fuzz/)
#   coverage  line and branch coverage of src/ (build-coverage/), >= 90 / 80 %
#   static    cppcheck, clang-tidy (.clang-tidy) and clang-format, no finding
# A second run reinstalls nothing and rebuilds incrementally. Every ctest
# runs as many tests at once as there are cores (nproc; the test presets
# say 2): tests that share a file or a directory say so in
# tests/CMakeLists.txt (RESOURCE_LOCK, RUN_SERIAL), and COST starts the
# long ones first in a tree without timings (a fresh clone).
#   scripts/test.sh            all steps: release portability asan fuzz static coverage
#   scripts/test.sh fuzz static   only those steps
# Each step prints its time; a failing step does not stop the later ones.
# At the end: each step's time, then the slowest tests of each ctest run
# (scripts/slowest_tests.py, from the JUnit files ctest writes).
# A busy machine makes the suite slower, never failing: every timeout is a
# hang guard of at least 5x the test's time under the slowest configuration
# (cmake/timeouts.cmake), and SV_TEST_TIMEOUT_SCALE=N multiplies them all.
# scripts/test_under_load.sh checks that: the suite beside a second copy.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
steps=("$@")
[ "${#steps[@]}" -gt 0 ] || steps=(release portability asan fuzz static coverage)
for s in "${steps[@]}"; do
    case $s in
        release | portability | asan | fuzz | coverage | static) ;;
        *) echo "test.sh: unknown step '$s' (release, portability, asan, fuzz, coverage, static)" >&2; exit 2 ;;
    esac
done
sv_ensure_packages "${SV_BUILD_PACKAGES[@]}" "${SV_TEST_PACKAGES[@]}"
sv_ensure_packages "$(sv_clang_rt_package)"
# The pinned PyPI packages (requirements.txt) for the venv.* tests.
sv_ensure_venv
cd "$SV_ROOT"
# Each ctest run writes its tests' times here (--output-junit); the
# summary lists the slowest of each.
SV_JUNIT_DIR=$(mktemp -d)
export SV_JUNIT_DIR
trap 'rm -rf "$SV_JUNIT_DIR"' EXIT
junit() { echo "--output-junit" "$SV_JUNIT_DIR/$1.xml"; }

# The C files clang-format checks: all of ours but the generated table.
c_files() {
    git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'tests/*.c' 'tests/*.h' 'tools/*.c' |
        grep -v '^src/core/ziggurat_table\.h$'
}

# -I for every folder of src/ (a layer's private headers are named
# alone, as the build's include path has them).
sv_layer_includes() {
    find src -type d | LC_ALL=C sort | sed 's/^/-I/'
}

# Called as `step_static || ok=0`, where set -e does not apply: every
# command returns on failure itself.
step_static() {
    cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
        --std=c11 --inline-suppr -Iinclude -Ibuild/generated $(sv_layer_includes) src include/sdpa_var tools ||
        return 1
    echo "cppcheck: no finding"
    # compile_commands.json of the Release build gives clang-tidy the flags.
    sv_build release || return 1
    local out
    out=$(mktemp)
    # mpi_run.c is compiled only with -DSV_MPI=ON (not in build/'s commands:
    # no mpi.h there); cli.mpi builds it with warnings as errors.
    # shellcheck disable=SC2046
    if ! clang-tidy -p build --quiet $(git ls-files 'src/*.c' 'tools/*.c' ':!src/cli/run/mpi_run.c') >"$out" 2>&1; then
        grep -v 'warnings\? generated' "$out" >&2
        rm -f "$out"
        echo "clang-tidy: findings above" >&2
        return 1
    fi
    rm -f "$out"
    echo "clang-tidy: no finding"
    # shellcheck disable=SC2046
    clang-format --dry-run --Werror $(c_files) || return 1
    echo "clang-format: every file formatted"
}

# Every step runs even after one fails, so one run shows everything that is
# wrong; the summary names the failed steps and the exit status is 1.
failed=()
summary=()
for s in "${steps[@]}"; do
    printf '\n== %s ==\n' "$s"
    start=$SECONDS
    ok=1
    case $s in
        release)
            # The web page (emscripten, Chromium) for ctest web.page; when its
            # packages cannot be installed (web.sh exits 77), web.page says
            # SKIP; a page that does not build fails the step.
            web=0
            scripts/web.sh || web=$?
            case $web in
                0) ;;
                77) echo "test.sh: the web page's packages cannot be installed: web.page will say SKIP" >&2 ;;
                *) echo "test.sh: scripts/web.sh failed (exit $web)" >&2; ok=0 ;;
            esac
            # shellcheck disable=SC2046
            { sv_build "$s" && ctest --preset "$s" -j "$(nproc)" $(junit "$s"); } || ok=0
            ;;
        # shellcheck disable=SC2046
        asan) { sv_build "$s" && ctest --preset "$s" -j "$(nproc)" $(junit "$s"); } || ok=0 ;;
        portability) { sv_build release && scripts/portability.sh; } || ok=0 ;;
        fuzz) scripts/fuzz.sh 30 || ok=0 ;;
        coverage) scripts/coverage.sh || ok=0 ;;
        static) step_static || ok=0 ;;
    esac
    t=$((SECONDS - start))
    if [ "$ok" -eq 1 ]; then
        summary+=("$s: passed in $t s")
    else
        summary+=("$s: FAILED in $t s")
        failed+=("$s")
    fi
    printf '== %s ==\n' "${summary[-1]}"
done
printf '\n== summary ==\n'
printf '%s\n' "${summary[@]}"
# The JUnit files in the order the runs were made.
mapfile -t runs < <(ls -tr "$SV_JUNIT_DIR"/*.xml 2>/dev/null)
if [ "${#runs[@]}" -gt 0 ]; then
    printf '\n== slowest tests (load average now: %s) ==\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    python3 scripts/slowest_tests.py "${runs[@]}" || true
fi
[ "${#failed[@]}" -eq 0 ] || { echo "test.sh: failed: ${failed[*]}" >&2; exit 1; }
