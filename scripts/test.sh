#!/usr/bin/env bash
# Quick start, step 2: install what is missing (build and test packages),
# build Release into build/ and run the whole suite with ctest, then build
# with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ and run
# the suite again. A second run reinstalls nothing and rebuilds incrementally.
#   scripts/test.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
sv_ensure_packages "${SV_BUILD_PACKAGES[@]}" "${SV_TEST_PACKAGES[@]}"
sv_ensure_packages "$(sv_clang_rt_package)"
cd "$SV_ROOT"
for preset in release asan; do
    printf '\n== %s: build and test ==\n' "$preset"
    sv_build "$preset"
    ctest --preset "$preset"
done
