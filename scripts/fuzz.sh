#!/usr/bin/env bash
# Build the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan into
# build-fuzz/, then run each one for SECONDS (default 30), nproc at a time
# (SECONDS is wall time: a harness beside another still fuzzes for all of it).
#   scripts/fuzz.sh [SECONDS]
# Each starts from the committed seeds (tests/fuzz/corpus/NAME) and keeps
# what it learns in build-fuzz/tests/fuzz/corpus/NAME. A crash stops the
# script and leaves the input in build-fuzz/tests/fuzz/artifacts/; commit it
# to tests/fuzz/corpus/NAME/ as a regression seed once it is fixed.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
seconds=${1:-30}
case $seconds in
    '' | *[!0-9]*) echo "fuzz.sh: SECONDS: '$seconds' is not a whole number" >&2; exit 2 ;;
esac
sv_ensure_packages "${SV_BUILD_PACKAGES[@]}" clang libomp-dev
sv_ensure_packages "$(sv_clang_rt_package)"
# clang's warnings differ from gcc's; the -Werror gate is the gcc builds
# (release, asan), so this build only shows them.
SV_WERROR=OFF sv_build fuzz
cd "$SV_ROOT"
cmake -S . -B build-fuzz -DSV_FUZZ_SECONDS="$seconds" >/dev/null
# --no-tests=error: a tree without the fuzz tests must not pass.
# SV_JUNIT_DIR (scripts/test.sh): each harness's time, for its slowest list.
junit=()
[ -z "${SV_JUNIT_DIR:-}" ] || junit=(--output-junit "$SV_JUNIT_DIR/fuzz.xml")
ctest --preset fuzz -j "$(nproc)" --no-tests=error "${junit[@]}"
