#!/usr/bin/env bash
# The sinks: what every output format writes, checked against the others.
#   output_test.sh SDPA_VAR_BINARY
set -u
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# A nan that is no true answer exits 1 naming the column: the verdict is
# sv_columns_first_undefined's (tests/test_columns.c); the inputs that made
# one (--q-mean 1e308) are now usage errors (SV_SCORE_MAX).

# --- --no-header: runs appended to one file read as one ------------------------
"$bin" --dk 4 --n 8 --format csv >"$tmp/a.csv" &&
  "$bin" --dk 8 --n 8 --no-header >>"$tmp/a.csv" &&
  "$bin" --dk 4,8 --n 8 --format csv >"$tmp/b.csv" &&
  cmp -s "$tmp/a.csv" "$tmp/b.csv" && ok || fail "--no-header: appended runs differ from one sweep"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
