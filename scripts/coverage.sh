#!/usr/bin/env bash
# Line and branch coverage of src/ (the engine and the CLI) by the unit and
# CLI tests: builds with --coverage (gcc, -O0) into build-coverage/, runs
# those tests from zeroed counters, and reports per file with gcovr. Fails
# below 90 % of lines or 80 % of branches.
#   scripts/coverage.sh
# The HTML report with every line is build-coverage/coverage.html.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
sv_ensure_packages "${SV_BUILD_PACKAGES[@]}" gcovr
sv_build coverage
cd "$SV_ROOT"
find build-coverage -name '*.gcda' -delete
# The unit tests, the CLI tests (cli, cli.options, output) and the gnuplot
# tests (gnuplot.render, gnuplot.pipe: the --format gnuplot writers). Not here:
# golden (md5s of the optimised build's last digits), unit.shapes,
# output.memory and output.long_capture (minutes at -O0: 169 s for the
# last; the release step runs all three, asan the first).
# nproc at a time: gcov's runtime locks each .gcda file while it adds a
# process's counts, so concurrent tests sum as serial ones do.
# SV_JUNIT_DIR (scripts/test.sh): each test's time, for its slowest list.
junit=()
[ -z "${SV_JUNIT_DIR:-}" ] || junit=(--output-junit "$SV_JUNIT_DIR/coverage.xml")
ctest --preset coverage -j "$(nproc)" -R '^(unit\.|cli|output|gnuplot\.)' \
    -E '^(unit\.shapes|output\.memory|output\.long_capture)$' "${junit[@]}"
# Branches: gcov counts the two outcomes of every condition, so 80 % of
# branches means both sides of most tests, including the error paths.
# One pass reads the counters (json); two reports from it: per file lines,
# then per file branches with the summary and the bar.
gcovr --root . --object-directory build-coverage --filter 'src/' \
    --exclude-unreachable-branches --json build-coverage/coverage.json
gcovr --add-tracefile build-coverage/coverage.json --sort-percentage \
    --html-details build-coverage/coverage.html
gcovr --add-tracefile build-coverage/coverage.json --sort-percentage --branches \
    --print-summary --fail-under-line 90 --fail-under-branch 80
