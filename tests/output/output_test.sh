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

# --- a nan that is no true answer exits 1, naming the column ------------------
"$bin" --dk 4 --n 8 --q-mean 1e308 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q '^sdpa-var: raw_mean is nan at d_k=4 scale=sqrt dist=normal' "$tmp/err" &&
  ok || fail "--q-mean 1e308: rc=$rc, stderr: $(cat "$tmp/err")"
# Mid-sweep: d_k=1 is finite, d_k=100000 overflows. The first row is
# written whole, then exit 1.
"$bin" --dk 1,100000 --n 2 --q-mean 1e152 --k-mean 1e152 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/out")" -eq 2 ] && [ "$(tail -c 1 "$tmp/out" | od -An -c | tr -d ' ')" = '\n' ] &&
  grep -q 'raw_mean is nan at d_k=100000' "$tmp/err" &&
  ok || fail "mid-sweep failure: rc=$rc, $(wc -l <"$tmp/out") lines, stderr: $(cat "$tmp/err")"

# --- --no-header: runs appended to one file read as one ------------------------
"$bin" --dk 4 --n 8 --format csv >"$tmp/a.csv" &&
  "$bin" --dk 8 --n 8 --no-header >>"$tmp/a.csv" &&
  "$bin" --dk 4,8 --n 8 --format csv >"$tmp/b.csv" &&
  cmp -s "$tmp/a.csv" "$tmp/b.csv" && ok || fail "--no-header: appended runs differ from one sweep"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
