#!/usr/bin/env bash
# figures_test.sh: the data of every figure in docs/figures, made again with
# the current build, must match the committed docs/figures/data/ (ctest
# docs.figures).
#
# Usage:
#   tests/docs/figures_test.sh [SDPA_VAR_BINARY [SOURCE_DIR]]
#
# Runs `scripts/figures.sh --data-only` into a scratch directory (the PNGs
# are not drawn: they depend on the gnuplot and cairo versions, the data
# only on the tool) and compares each CSV with the committed one by
# tests/tolerance.py: header and text exact, numbers within the tolerance
# that holds across CPUs and OpenBLAS kernels.  A difference prints the
# data set (the figure), the row, the column, and both values; so does a
# data set that is committed but no longer made, or made but not committed.
# A figure drawn from stale data fails here; after an intended change of
# output, run scripts/figures.sh and commit its data and PNGs.
# Exit status: 0 when every data set matches, 1 otherwise.
set -uo pipefail
shopt -s nullglob
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$here/../..}
bin=${1:-$src/build/sdpa-var}
want=$src/docs/figures/data
got=$(mktemp -d)
trap 'rm -rf "$got"' EXIT

if ! bash "$src/scripts/figures.sh" --data-only --bin "$bin" --out "$got"; then
    echo "docs.figures: scripts/figures.sh --data-only failed" >&2
    exit 1
fi
fail=0
[ -n "$(ls "$want"/*.csv 2>/dev/null)" ] || { echo "docs.figures: no data in $want"; exit 1; }
for f in "$want"/*.csv "$got"/data/*.csv; do
    n=$(basename "$f" .csv)
    [ -e "$want/$n.csv" ] || { echo "figure data $n: made by scripts/figures.sh but not committed in docs/figures/data/"; fail=1; continue; }
    [ -e "$got/data/$n.csv" ] || { echo "figure data $n: committed in docs/figures/data/ but no longer made by scripts/figures.sh"; fail=1; continue; }
    [ "$f" = "$want/$n.csv" ] || continue
    python3 "$here/../tolerance.py" csv "$want/$n.csv" "$got/data/$n.csv" "figure data $n" || fail=1
done
if [ $fail = 0 ]; then
    echo "docs.figures: $(ls "$want"/*.csv | wc -l) data sets match docs/figures/data/"
else
    echo "docs.figures: regenerate with scripts/figures.sh if the change of output is intended" >&2
fi
exit $fail
