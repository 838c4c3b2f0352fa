#!/usr/bin/env bash
# long_context_test.sh: the cheap rows of docs/figures/long_context.csv,
# made again with the current build, must match the committed ones, and
# examples/long_context.gp must draw the committed CSV (ctest
# docs.long_context).
#
# Usage:
#   tests/docs/long_context_test.sh [SDPA_VAR_BINARY [SOURCE_DIR]]
#
# The full run of examples/long_context.sh (n up to 262144) takes minutes, so
# this runs the same script with --max-n 8192 (the rows n = 1024 ... 8192,
# 8 trials each, the same commands) and --check-n 8192 (two row shards by
# GNU parallel, merged, cmp with one process), about 10 s of CPU, and
# compares those rows with the committed CSV's first rows by
# tests/tolerance.py (header and text exact, numbers within the tolerance
# that holds across CPUs and OpenBLAS kernels).  It checks that the
# committed CSV runs from n = 1024 to at least 262144 in powers of 2, then
# pipes it into examples/long_context.gp: exit 0, nothing on stderr, a PNG of
# 1000 x 740 pixels and over 5 KB; a CSV without its columns must be refused.
# After an intended change of output, run examples/long_context.sh and commit
# its CSV and PNG.  Exit status: 0 when every check passed, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$here/../..}
bin=${1:-$src/build/sdpa-var}
want=$src/docs/figures/long_context.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "docs.long_context: $1" >&2; fail=1; }

[ -f "$want" ] || { echo "docs.long_context: $want is missing (run examples/long_context.sh)" >&2; exit 1; }
if ! bash "$src/examples/long_context.sh" --bin "$bin" --max-n 8192 --check-n 8192 --data-only --out "$tmp"; then
    echo "docs.long_context: examples/long_context.sh --max-n 8192 failed" >&2
    exit 1
fi
# The committed rows of the same n: the header and n <= 8192.
awk -F, 'NR == 1 || $1 <= 8192' "$want" >"$tmp/want.csv"
[ "$(wc -l <"$tmp/want.csv")" = "$(wc -l <"$tmp/long_context.csv")" ] ||
    bad "the committed CSV has $(($(wc -l <"$tmp/want.csv") - 1)) rows with n <= 8192, the rerun $(($(wc -l <"$tmp/long_context.csv") - 1))"
python3 "$here/../tolerance.py" csv "$tmp/want.csv" "$tmp/long_context.csv" "long_context.csv" || fail=1

# The committed run is the full one: n = 1024, 2048, ... up to >= 262144.
if ! awk -F, 'NR > 1 { if ($1 != 1024 * 2 ^ (NR - 2)) exit 1; last = $1 } END { exit !(last >= 262144) }' "$want"; then
    bad "the committed CSV's n are not 1024, 2048, ... up to at least 262144 (run examples/long_context.sh)"
fi

# The figure from the committed CSV.
if ! gnuplot -e "out='$tmp/lc.png'" "$src/examples/long_context.gp" <"$want" 2>"$tmp/err"; then
    bad "gnuplot examples/long_context.gp failed: $(head -c 300 "$tmp/err")"
elif [ -s "$tmp/err" ]; then
    bad "gnuplot wrote to stderr: $(head -c 300 "$tmp/err")"
elif [ "$(head -c 8 "$tmp/lc.png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
    bad "lc.png is not a PNG"
else
    wh=$(od -An -tu1 -j16 -N8 "$tmp/lc.png" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4 "x" $5*16777216 + $6*65536 + $7*256 + $8 }')
    [ "$wh" = 1000x740 ] || bad "lc.png is $wh, not 1000x740"
    [ "$(wc -c <"$tmp/lc.png")" -gt 5000 ] || bad "lc.png has only $(wc -c <"$tmp/lc.png") bytes: an empty frame?"
fi
# Input that is not long_context.sh's CSV: refused with a message, no file.
if gnuplot -e "out='$tmp/no.png'" "$src/examples/long_context.gp" <"$src/docs/figures/data/entropy_vs_dk.csv" 2>"$tmp/err"; then
    bad "long_context.gp drew entropy_vs_dk.csv instead of refusing it"
elif ! grep -q "has no column" "$tmp/err" || [ -e "$tmp/no.png" ]; then
    bad "long_context.gp on entropy_vs_dk.csv: want 'has no column' and no file; got: $(head -c 300 "$tmp/err")"
fi
[ $fail = 0 ] && echo "docs.long_context: rows n <= 8192 match docs/figures/long_context.csv; the figure renders"
exit $fail
