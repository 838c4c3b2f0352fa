#!/usr/bin/env bash
# The sinks: what every output format writes, checked against the others.
#   output_test.sh SDPA_VAR_BINARY
set -u
bin=$1
dir=$(cd "$(dirname "$0")" && pwd)
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

# --- JSON equals the CSV, value for value, for every kind of output -----------
while IFS= read -r args; do
  # shellcheck disable=SC2086  # ARGS are words on purpose
  "$bin" $args --format csv >"$tmp/r.csv" 2>/dev/null &&
    "$bin" $args --format json >"$tmp/r.json" 2>/dev/null &&
    "$bin" $args --format jsonl >"$tmp/r.jsonl" 2>/dev/null ||
    { fail "$args: a format failed"; continue; }
  /usr/bin/python3 "$dir/json_compare.py" "$tmp/r.csv" "$tmp/r.json" "$tmp/r.jsonl" >"$tmp/py" &&
    ok || fail "$args: $(cat "$tmp/py")"
  # jq reads both; the rows' keys are the CSV header, in order; nan is null.
  n=$(($(wc -l <"$tmp/r.csv") - 1))
  [ "$(jq '.rows | length' "$tmp/r.json")" = "$n" ] &&
    [ "$(jq -r '.rows[0] | keys_unsorted | join(",")' "$tmp/r.json")" = "$(head -1 "$tmp/r.csv")" ] &&
    [ "$(jq -s 'length' "$tmp/r.jsonl")" = "$((n + 1))" ] &&
    [ "$(jq -r '[.rows[] | to_entries[] | select(.value == null)] | length' "$tmp/r.json")" = \
      "$(tail -n +2 "$tmp/r.csv" | tr ',' '\n' | grep -c '^nan$')" ] &&
    ok || fail "$args: jq disagrees with the CSV"
done <<'CASES'
--dk 1,2,8,64 --n 16 --trials 5 --scale sqrt,none
--dk 2 --n 2 --trials 2000 --observed 1.6 --ddof 1
--dk 16 --n 8 --trials 4 --dist t --nu 6 --plant 0.5 --causal --values --dv 3
--dk 8 --n 12 --trials 3 --qk-norm --per-trial
--dk 8 --n 5 --trials 3 --d-model 16 --init lecun --per-row --causal
--dk 8 --n 32 --trials 4 --histogram 10
--dk 8 --n 32 --trials 2 --histogram 7 --weight-histogram
CASES
# A word that needs escaping in JSON: none reach it yet (every word is from
# a fixed list), so check cJSON's escaping on a scale name with a digit and
# sign as written by the user.
"$bin" --dk 4 --n 4 --scale 2.5e-1 --format json | jq -e '.config.scale == "2.5e-1"' >/dev/null &&
  ok || fail "--scale 2.5e-1: JSON config.scale"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
