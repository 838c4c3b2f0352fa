#!/usr/bin/env bash
# The sinks: what every output format writes, checked against the others.
#   output_test.sh SDPA_VAR_BINARY [sanitized]
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

# A runtime failure (here out of memory under ulimit -v, after the size
# check, which counts physical memory) exits 1 with one line: before the
# first row nothing is written, not even the header; mid-sweep the rows
# before it are written whole.
if [ "${2:-}" != sanitized ]; then # ASan reserves terabytes of address space
(ulimit -v 400000 && "$bin" --dk 4,8 --n 1 --trials 40000000 >"$tmp/out" 2>"$tmp/err")
rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && [[ "$(cat "$tmp/err")" == "sdpa-var: d_k=4: out of memory"* ]] &&
  [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  ok || fail "out of memory before the first row: rc=$rc, $(wc -c <"$tmp/out") bytes, $(cat "$tmp/err")"
(ulimit -v 1000000 && "$bin" --dk 1,100000 --n 4096 --format csv >"$tmp/out" 2>"$tmp/err")
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/out")" -eq 2 ] && [ "$(cut -d, -f1 "$tmp/out" | tail -1)" = 1 ] &&
  [ "$(tail -c 1 "$tmp/out" | od -An -c | tr -d ' ')" = '\n' ] &&
  [[ "$(cat "$tmp/err")" == "sdpa-var: d_k=100000: out of memory"* ]] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  ok || fail "out of memory mid-sweep: rc=$rc, $(wc -l <"$tmp/out") lines, $(cat "$tmp/err")"
fi

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

# --- the table -------------------------------------------------------------------
# Several scales: each block says which (it printed three rows labelled 64).
"$bin" --dk 64 --n 64 --scale sqrt,dk,none --format table >"$tmp/t"
[ "$(grep -c '^scale=' "$tmp/t")" -eq 3 ] && grep -q '^scale=dk:$' "$tmp/t" &&
  ok || fail "--scale sqrt,dk,none: blocks not labelled: $(cat "$tmp/t")"
"$bin" --dk 8 --n 8 --trials 2 --dist normal,t --per-trial --format table >"$tmp/t"
grep -q '^dist=t nu=6:$' "$tmp/t" && ! head -1 "$tmp/t" | grep -q 'dist=' &&
  ok || fail "--dist list --per-trial table: $(cat "$tmp/t")"
# Each option's key result with its theory, the same number as the CSV's.
args="--dk 16 --n 64 --trials 20 --plant 0.5 --causal --values"
"$bin" $args --format table >"$tmp/t"
"$bin" $args --format csv --columns all >"$tmp/c"
# csv_col NAME FILE: a column by name; a missing one prints nothing and
# counts as a failure naming it (in $tmp/missing: csv_col runs in $(...)).
csv_col() {
  awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; if (!c) exit 1; next }
                     { print $c } END { if (!c) exit 1 }' "$2" ||
    echo "FAIL: column $1: not in the header of $2" | tee -a "$tmp/missing" >&2
}
# Fields: raw measured, sd, theory, then the same scaled. A measured value
# is rounded to its standard error: equal to the CSV's to the digits shown.
for pair in "diagonal logit S_ii|raw_diag_logit_theory|4" "output var. Var(O)|raw_out_var|2" \
            "uniform rows: bound|entropy_bound|4" "  effective keys e^H|raw_eff_keys_sd|3"; do
  label=${pair%%|*} rest=${pair#*|}; name=${rest%%|*} field=${rest#*|}
  got=$(grep "^ *$label " "$tmp/t" | sed "s/^ *$label *//" | awk -v f=$((field - 1)) '{ print $f }')
  want=$(csv_col "$name" "$tmp/c")
  awk -v g="$got" -v w="$want" 'BEGIN { d = index(g, ".") ? length(g) - index(g, ".") : 0
    tol = (index(g, "e") ? 1e-3 * w : 0.5 * 10 ^ -d) + 1e-6 * w
    exit !(g != "" && (g - w) ^ 2 <= tol ^ 2) }' &&
    ok || fail "table '$label' shows '$got', CSV $name is $want"
done
head -2 "$tmp/t" | grep -q 'causal plant=0.5 values d_v=16' && grep -q '^extremes over all trials$' "$tmp/t" &&
  ok || fail "table header or extremes label: $(head -3 "$tmp/t")"
# Same verdict: where the CSV has nan (no theory, or an approximation that
# does not hold) the table has '-'.
"$bin" --dk 64 --n 1111 --format csv --columns all >"$tmp/c"
"$bin" --dk 64 --n 1111 --format table >"$tmp/t"
[ "$(csv_col raw_entropy_approx "$tmp/c")" = nan ] &&
  [ "$(grep '^entropy H (nats)' "$tmp/t" | awk '{ print $6 }')" = - ] &&
  ok || fail "entropy approximation: CSV $(csv_col raw_entropy_approx "$tmp/c"), table $(grep '^entropy H' "$tmp/t")"
# The verdict of one configuration: the variances with their standard
# error against theory, the effective keys raw and scaled.
grep -qx 'In short: the raw scores QK^T have variance 64.37 +- 0.49 (d_k = 64 in' "$tmp/t" &&
  grep -q "softmax spreads its weight over e^H = 3.0 of 1111 keys, the scaled one over" "$tmp/t" &&
  ok || fail "verdict: $(sed -n '/^In short/,$p' "$tmp/t")"
# An sd across trials for every mean shown (here the entropy's), and the
# measured value rounded at its standard error's second digit.
"$bin" --dk 64 --n 300 --trials 20 --format table >"$tmp/t"
"$bin" --dk 64 --n 300 --trials 20 --format csv --columns +sd >"$tmp/c"
[ "$(grep '^entropy H (nats)' "$tmp/t" | awk '{ print $4, $5 }')" = \
  "$(awk -v m="$(csv_col raw_entropy "$tmp/c")" -v s="$(csv_col raw_entropy_sd "$tmp/c")" \
     'BEGIN { printf "%.4f %.2g", m, s }')" ] &&
  ok || fail "entropy with its sd: $(grep '^entropy H' "$tmp/t"), CSV $(csv_col raw_entropy "$tmp/c") $(csv_col raw_entropy_sd "$tmp/c")"
# Within 80 columns, whatever the options.
for args in "--dk 8 --n 16" "--dk 1,8,64 --n 16 --observed 8 --dist uniform,t --scale sqrt,2.5" \
            "--dk 8 --n 16 --trials 3 --per-trial --dist t" \
            "--dk 8 --n 16 --trials 3 --d-model 32 --init lecun --qk-norm --values --dv 3"; do
  # pipefail: a run that failed (one short error line) is no pass.
  (set -o pipefail; "$bin" $args --format table 2>&1 |
    awk -v a="$args" 'length > 80 { print "FAIL: " a ": " length " columns: " $0; bad = 1 } END { exit bad || NR < 5 }') &&
    ok || fail "table wider than 80 columns, or no table: $args"
done

[ -s "$tmp/missing" ] && failed=$((failed + $(wc -l <"$tmp/missing")))
[ "$passed" -gt 0 ] || fail "no check ran"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
