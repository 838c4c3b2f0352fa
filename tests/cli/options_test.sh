#!/usr/bin/env bash
# Option parsing (issue 9 section 4, issue 11 section 3): values on flags,
# abbreviations, one number syntax, quoting of echoed values, stated limits,
# OMP_NUM_THREADS, the table of options that do not apply, the library's
# check mapped to options, --dk A:B reaching B, --dist and --init lists.
# Usage: tests/cli/options_test.sh path/to/sdpa-var
set -u
BIN=${1:?usage: options_test.sh path/to/sdpa-var}
. "$(dirname "$0")/lib.sh"
p='sdpa-var'

# --- a flag given a value; a short flag that takes none -----------------------
for o in causal per-trial values quiet qk-norm cross per-row weight-histogram help version; do
    usage_error "$p: option '--$o' takes no value" "--$o=1"
done
usage_error "$p: option '--per-trial' takes no value" --per-trial=x
usage_error "$p: option '--values' takes no value" --values=yes

# --- abbreviations: unique ones work, ambiguous ones list the candidates -----
usage_error "$p: option '--t' is ambiguous: --trials, --total-trials, --threads" --t 3
usage_error "$p: option '--d' is ambiguous: --dk, --dist, --ddof, --d-model, --dv" --d 3
usage_error "$p: option '--qk' is ambiguous: --qk-norm, --qk-scale" --qk
usage_error "$p: option '--q' requires an argument" --q
usage_error "$p: option '--per' is ambiguous: --per-trial, --per-row" --per
usage_error "$p: unknown option '--nope'" --nope=3
usage_error "$p: unknown option '--=x'" --=x
[ "$("$BIN" --tri 2 --n 2 --dk 2 --caus | wc -l)" -eq 2 ] && ok || fail "unique abbreviations"

# --- one number syntax: plain decimal for integers and reals -------------------
usage_error "$p: --nu: '0x10' is not a finite number" --dist t --nu 0x10
usage_error "$p: --nu: '+5' is not a finite number" --dist t --nu +5
usage_error "$p: --nu: ' 5' is not a finite number" --dist t --nu ' 5'
usage_error "$p: --q-mean: 'nan' is not a finite number" --q-mean nan
usage_error "$p: --q-mean: '1e999' is too large (at most 1.79769e+308 in magnitude)" --q-mean 1e999
usage_error "$p: --n: '+5' is not a positive integer" --n +5
usage_error "$p: --n: '0x10' is not a positive integer" --n 0x10
# A subnormal value is finite: strtod's ERANGE for it is not an error.
"$BIN" --dk 2 --n 2 --q-mean 1e-320 >"$tmp/sub.csv" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
    [ "$(column q_mean "$tmp/sub.csv")" = 9.9998886718268301e-321 ] && ok || fail "--q-mean 1e-320"
"$BIN" --dk 2 --n 2 --q-mean -1.5e-1 --k-mean .5 >/dev/null 2>&1 && ok || fail "reals with '-', '.', e"

# --- getopt_long (issue 15 section 4): its answers, our one-line messages -------
usage_error "$p: option '--dk' requires an argument" --dk
usage_error "$p: option '--trials' requires an argument" --n 3 --tri
usage_error "$p: option '-d' requires an argument" -d
usage_error "$p: unknown option '-x'" -qx
usage_error "$p: option '--causal' takes no value" --caus=1
usage_error "$p: unexpected argument 'foo'" foo --nope
usage_error "$p: unexpected argument 'x'" -- x
usage_error "$p: unexpected argument '-'" --dk 2 -
# Short options, grouped and joined, as getopt has them.
[ "$("$BIN" -qd2 -n2 -t2 | md5sum)" = "$("$BIN" --dk 2 --n 2 --trials 2 | md5sum)" ] && ok ||
    fail "-qd2 -n2 -t2"
# Parsed twice in one process (the fuzz harness): the same answer. An
# option after the first operand is not read (getopt's '+': no permuting).
usage_error "$p: unexpected argument 'x'" --dk 2 x --n 0

# --- exact scientific notation for integers ------------------------------------
[ "$("$BIN" --dk 2 --n 2 --trials 1e2 --seed 1.2e3 | md5sum)" = \
    "$("$BIN" --dk 2 --n 2 --trials 100 --seed 1200 | md5sum)" ] && ok || fail "--trials 1e2 --seed 1.2e3"
[ "$(column seed <("$BIN" --dk 1 --n 1 --seed 1.8446744073709551615e19))" = 18446744073709551615 ] &&
    ok || fail "--seed 1.8446744073709551615e19"
[ "$(column n_q <("$BIN" --dk 1 --n 30000000000000000000000000e-25))" = 3 ] && ok || fail "26 digits e-25"
usage_error "$p: --trials: '1.5e0' is not a positive integer" --trials 1.5e0
usage_error "$p: --n: '1e-1' is not a positive integer" --n 1e-1
usage_error "$p: --n: '0e5' is not a positive integer" --n 0e5
usage_error "$p: --seed: '1e20' is too large (at most 18446744073709551615)" --seed 1e20
usage_error "$p: --seed: '1e99999999999' is too large (at most 18446744073709551615)" --seed 1e99999999999
usage_error "$p: --trials: '1e' is not a positive integer" --trials 1e
usage_error "$p: --trials: '-1e2' is not a positive integer" --trials -1e2
usage_error "$p: --block-rows: '2e9' is too large (at most 1073741824)" --block-rows 2e9

# --- did you mean: edit distance and synonyms -----------------------------------
usage_error "$p: unknown option '--trails'; did you mean --trials?" --trails 3
usage_error "$p: unknown option '--caual'; did you mean --causal?" --caual
usage_error "$p: unknown option '--d_model'; did you mean --d-model?" --d_model 4
usage_error "$p: unknown option '--seq-len'; did you mean --n?" --seq-len 4
# A name in capitals is that name, not a synonym near it ("JSON" suggested
# jsonl, through ndjson, two letters away).
usage_error "$p: --format: 'JSON' is not one of table, csv, json, jsonl, state, gnuplot, markdown, latex; did you mean json?" --format JSON
usage_error "$p: --dist: 'gaussian' is not a list of normal, uniform, rademacher, t; did you mean normal?" --dist gaussian
usage_error "$p: --dist: 'normal,studnt' is not a list of normal, uniform, rademacher, t; did you mean t?" --dist normal,studnt
usage_error "$p: --dist: 'cauchy' is not a list of normal, uniform, rademacher, t" --dist cauchy
usage_error "$p: --init: 'glorot' is not a list of xavier, lecun, normal; did you mean xavier?" --d-model 4 --init glorot
usage_error "$p: --format: 'jsn' is not one of table, csv, json, jsonl, state, gnuplot, markdown, latex; did you mean json?" --format jsn
usage_error "$p: --scale: 'sqr' is not a list of sqrt, dk, none, logn or positive numbers; did you mean sqrt?" --scale sqr
usage_error "$p: --scale: 'foo' is not a list of sqrt, dk, none, logn or positive numbers" --scale foo

# --- --columns: names checked against the column table, order as given ----------
"$BIN" --dk 2,4 --n 3 --columns dk,scaled_var,raw_var >"$tmp/c.csv"
"$BIN" --dk 2,4 --n 3 >"$tmp/all.csv"
[ "$(head -1 "$tmp/c.csv")" = dk,scaled_var,raw_var ] &&
    [ "$(paste -d, <(column dk "$tmp/all.csv") <(column scaled_var "$tmp/all.csv") \
        <(column raw_var "$tmp/all.csv"))" = "$(tail -n +2 "$tmp/c.csv")" ] && ok ||
    fail "--columns dk,scaled_var,raw_var: $(tr '\n' ' ' <"$tmp/c.csv")"
[ "$("$BIN" --dk 2 --n 3 --columns raw_var,dk --format jsonl | sed -n 2p)" = \
    "{\"raw_var\":$(column raw_var "$tmp/all.csv" | head -1),\"dk\":2}" ] && ok || fail "--columns with jsonl"
/usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); assert list(d["rows"][0]) == ["dk", "raw_var"], d' \
    < <("$BIN" --dk 2 --n 3 --columns dk,raw_var --format json) && ok || fail "--columns with json"
[ "$("$BIN" --dk 2 --n 2 --per-row --columns row,dk | tr '\n' ' ')" = "row,dk 0,2 1,2 " ] && ok || fail "--columns --per-row"
[ "$("$BIN" --dk 2 --n 2 --trials 3 --observed 1 --columns raw_var_cdf_observed --no-header)" = 0.33333333333333331 ] &&
    ok || fail "--columns of --observed"
usage_error "$p: --columns: 'raw_vr' is not a column of the summary output; did you mean raw_var?" --columns raw_vr
usage_error "$p: --columns: 'row' is not a column of the summary output (docs/columns.md)" --columns dk,row
usage_error "$p: --columns: 'raw_var' is not a column of the histogram output (docs/columns.md)" --histogram 4 --columns raw_var
usage_error "$p: --columns: 'dk' is named twice" --columns dk,raw_var,dk
usage_error "$p: --columns: 'dk,' has an empty name" --columns dk,
usage_error "$p: --columns: 'observed' needs --observed" --columns observed
usage_error "$p: --columns does not apply with --format table (CSV, JSON and JSONL only)" --columns dk --format table

# --- echoed values: one printable line, long ones cut visibly ----------------
usage_exact "$p: --dk: '1\\n2' is not a list of positive integers or doubling ranges A:B with A <= B" --dk $'1\n2'
usage_exact "$p: --dist: '\\x1b[31mred' is not a list of normal, uniform, rademacher, t" --dist $'\e[31mred'
usage_exact "$p: unexpected argument 'a\\tb\\\\c\\xc3\\xa9'" -- $'a\tb\\c\xc3\xa9'
usage_exact "$p: unknown option '-\\x01'" $'-\x01'
usage_error "$p: --seed: '$(printf '9%.0s' {1..60})...' is too large (at most 18446744073709551615)" --seed "$(printf '9%.0s' {1..300})"

# --- limits: in the message and in --help ----------------------------------------
usage_error "$p: --dk: '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,...' has more than 256 values (at most 256)" --dk "$(seq -s, 1 257)"
"$BIN" --dk "$(seq -s, 1 256)" --n 1 >/dev/null 2>&1 && ok || fail "256 --dk values"
usage_error "$p: --scale: 'sqrt,sqrt,sqrt,sqrt,sqrt,sqrt,sqrt,sqrt,sqrt,sqrt,sqrt,sqrt,...' has more than 16 items (at most 16)" --scale "$(printf 'sqrt,%.0s' {1..16})sqrt"
usage_error "$p: --scale: '$(printf '1%.0s' {1..32})' has an item longer than 31 characters" --scale "$(printf '1%.0s' {1..32})"
usage_error "$p: --dist: 'normal,normal,normal,normal,normal,normal,normal,normal,norm...' has more than 8 items (at most 8)" --dist "$(printf 'normal,%.0s' {1..8})normal"
usage_error "$p: --block-rows: '18446744073709551615' is too large (at most 1073741824)" --block-rows 18446744073709551615
# Issue 33: the configuration that does not fit is named, not the first.
usage_error "$p: sizes too large: d_k=64, n_q=1000000000, n_k=1000000000, trials=1 need * GiB of memory; this machine has * GiB" --n 16,1000000000
usage_error "$p: --scale, --dist, --init, --n and --dk make 8192 configurations (at most 4096)" --dk "$(seq -s, 1 256)" --scale "$(printf 'sqrt,%.0s' {1..15})dk" --dist normal,t
"$BIN" --help >"$tmp/help"
for want in 'At most 256 values' 'at most 16 items of at most 31 characters' 'at most 8 names' \
    '(1 to 1024)' '(1 to 1073741824; default 256)' '(1 to 100000)' '(> 4; default 6)' \
    '(-1 to 1; default 0)' 'at most 4096 in all' 'OMP_NUM_THREADS' "no leading '+'" \
    'Exit status: 0 success, 1 runtime error' 'docs/columns.md' "'1:1000' = 1, 2, ..., 512, 1000"; do
    grep -qF -- "$want" "$tmp/help" && ok || fail "--help lacks: $want"
done
# The rule table is in --help, generated from the same lines.
for want in '  --observed         not with --per-trial, --per-row, --histogram' \
    '  --no-header        not with --format table, json, jsonl' \
    '  --q                not with --dk, --n, --nq, --nk, --trials, --first-trial,' \
    '  --format state     not with --q, --save-qk, --columns, --per-trial, --per-row,' \
    '  --q-rows           not with --grad'; do
    grep -qxF -- "$want" "$tmp/help" && ok || fail "--help lacks: $want"
done
# Every option of the table is in --help, with its default where it has one.
for o in dk n nq nk trials seed dist ddof observed scale nu q-mean q-std k-mean k-std qk-norm \
    qk-scale plant d-model init cross causal values dv format columns example per-trial per-row histogram \
    weight-histogram plot output logits logits-file upstream quiet threads block-rows help version; do
    grep -qE -- "^  (-., |    )--$o( |\$)" "$tmp/help" && ok || fail "--help lacks --$o"
done

# --- OMP_NUM_THREADS, validated like --threads ------------------------------------
OMP_NUM_THREADS=5000 usage_error "$p: OMP_NUM_THREADS: '5000' is too large (at most 1024)"
OMP_NUM_THREADS=100000 usage_error "$p: OMP_NUM_THREADS: '100000' is too large (at most 1024)"
# libgomp never sees the variable (main.c takes it out of the environment
# before libgomp's constructor): one line, ours, for every value it
# cannot read. Before, '2,abc' and '2,,' ran with libgomp's warning, ' 2'
# garbled the message and a value with leading zeros was "too large".
OMP_NUM_THREADS=0 usage_error "$p: OMP_NUM_THREADS: '0' is not a positive integer"
OMP_NUM_THREADS=abc usage_error "$p: OMP_NUM_THREADS: 'abc' is not a positive integer"
OMP_NUM_THREADS=' 2' usage_error "$p: OMP_NUM_THREADS: ' 2' is not a positive integer"
OMP_NUM_THREADS='2,abc' usage_error "$p: OMP_NUM_THREADS: '2,abc': 'abc' is not a positive integer"
OMP_NUM_THREADS='2,,' usage_error "$p: OMP_NUM_THREADS: '2,,': '' is not a positive integer"
OMP_NUM_THREADS=2,5000 usage_error "$p: OMP_NUM_THREADS: '2,5000': '5000' is too large (at most 1024)"
[ "$(OMP_NUM_THREADS=0000000000000000000000000000000000002 "$BIN" --dk 4 --n 9 2>&1 | md5sum)" = \
    "$("$BIN" --dk 4 --n 9 --threads 2 | md5sum)" ] && ok || fail "OMP_NUM_THREADS with leading zeros"
OMP_NUM_THREADS=5000,2 usage_error "$p: OMP_NUM_THREADS: '5000,2': '5000' is too large (at most 1024)"
# ... each item read as --threads is (the library's count reader).
[ "$(OMP_NUM_THREADS=2e0,1 "$BIN" --dk 4 --n 9 2>&1 | md5sum)" = \
    "$("$BIN" --dk 4 --n 9 --threads 2e0 | md5sum)" ] && ok || fail "OMP_NUM_THREADS=2e0 as --threads 2e0"
a=$(OMP_NUM_THREADS=3,2 "$BIN" --dk 4 --n 9)
[ -n "$a" ] && [ "$a" = "$("$BIN" --dk 4 --n 9 --threads 1)" ] &&
    ok || fail "OMP_NUM_THREADS=3,2"
OMP_NUM_THREADS=100000 "$BIN" --dk 4 --n 9 --threads 2 >/dev/null 2>&1 && ok || fail "--threads overrides OMP_NUM_THREADS"

# --- the library's check, named by option -------------------------------------
usage_error "$p: --ddof: '7' must be less than the n(n+1)/2 = 6 scores a causal mask shows (n = 3)" --causal --ddof 7 --n 3
"$BIN" --causal --ddof 5 --n 3 --dk 2 >/dev/null 2>&1 && ok || fail "--causal --ddof 5 --n 3"
usage_error "$p: --k-mean does not apply with --d-model (projections draw their own tokens)" --d-model 4 --k-mean 1
# (n_q + n_k) d_k overflows: d_k's fault, not "n_q*n_k = 4*4 scores".
usage_error "$p: --dk: '4611686018427387904' is too large (at most 2147483647: CBLAS takes int sizes)" --dk 4611686018427387904 --n 4
usage_error "$p: --scale: '1e-320' must be positive and finite, and its square too" --scale sqrt,1e-320
usage_error "$p: --scale: '1e200' must be positive and finite, and its square too" --scale 1e200
usage_error "$p: --scale: '1e70' is too large: scores could reach 5.31e+74 at d_k=64 (at most 1e+60)" --scale 1e70 --n 1
usage_error "$p: --k-std: '1e40' is too large: scores could reach 1.33e+84 at d_k=64 (at most 1e+60)" --k-std 1e40
usage_error "$p: --q-mean: '1e25' is too large against the standard deviation (|mean| / std at most 1e+06: double precision would round the scores' spread away)" --q-mean 1e25 --k-mean 1e25 --dk 1
usage_error "$p: --k-mean: '-3e6' is too large against the standard deviation (|mean| / std at most 1e+06: double precision would round the scores' spread away)" --k-mean -3e6 --k-std 2
"$BIN" --k-mean -2e6 --k-std 2 --n 4 --dk 2 >/dev/null 2>&1 && ok || fail "--k-mean -2e6 --k-std 2"
usage_error "$p: --qk-scale: '1e308' is too large: scores could reach inf at d_k=64 (at most 1e+60)" --qk-scale 1e308

# --- the experiment's rules: the library's (sv_spec_check_param), by value ------
# A value equal to the default does nothing wrong (--d-model with --q-mean 0
# runs, as sdpa_var.random(d_model=8, q_mean=0.0) does: issue 40); another
# is refused in the options' names. tests/python/rules_agree_test.py runs
# these through Python too.
while IFS='|' read -r want args; do
    # shellcheck disable=SC2086
    usage_error "$p: $want" $args
done <<'EOF2'
--nu needs --dist t (degrees of freedom of Student's t)|--nu 8
--nu needs --dist t (degrees of freedom of Student's t)|--dist normal,uniform --nu 8
--init needs --d-model (it initialises the projections)|--init lecun
--cross needs --d-model (keys from their own tokens)|--cross
--q-mean does not apply with --d-model (projections draw their own tokens)|--d-model 3 --q-mean 1
--k-mean does not apply with --d-model (projections draw their own tokens)|--d-model 3 --k-mean -1
--plant does not apply with --d-model (projections draw their own tokens)|--d-model 3 --plant 0.5
--q-std does not apply with --d-model (projections draw their own tokens)|--d-model 3 --q-std 2
--k-std does not apply with --d-model (projections draw their own tokens)|--d-model 3 --k-std 2
--window does not apply with --grad (the backward passes are causal only)|--grad --window 2
--q-std does not apply with --qk-norm (rows of mean 0 are rescaled to norm R whatever S is)|--q-std 2 --qk-norm
--k-std does not apply with --qk-norm (rows of mean 0 are rescaled to norm R whatever S is)|--k-std 2 --qk-scale 3
EOF2
while read -r args; do
    # shellcheck disable=SC2086
    "$BIN" --dk 2 --n 3 $args >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok || fail "$args: $(cat "$tmp/err")"
done <<'EOF2'
--d-model 3 --q-mean 0 --k-mean -0 --plant 0 --q-std 1 --k-std 1
--nu 6
--dist normal,t --nu 8
--init xavier
--q-std 1 --qk-norm
EOF2

# --- options that do not apply: the CLI's own, line by line ----------------------
# (validate.c and option_table.h cite this block.) Each rule of validate.c
# and each section flag CLI_X_LOGITS, CLI_X_Q of the option table is one
# "--opt needs/does not apply with --other" line; the count below fails
# when one is added without a line here. An option given is judged by its
# presence: it is the CLI's own, or about the rows' source.
rules_seen="$tmp/rules_seen"
while IFS='|' read -r want args; do
    # shellcheck disable=SC2086
    usage_error "$p: $want" $args
    # The rule's identity: --opt (with --format's value) and --other,
    # without the other's value.
    sed -E 's/^(--[a-z-]+( [a-z]+)?) (needs|does not apply with) (--[a-z-]+).*/\1 \4/' <<<"$want" >>"$rules_seen"
done <<'EOF'
--weight-histogram needs --histogram (it changes what is binned)|--weight-histogram
--n does not apply with --nq and --nk (they set n_q and n_k)|--n 5 --nq 3 --nk 4
--per-trial does not apply with --per-row (one kind of output)|--per-trial --per-row
--per-trial does not apply with --histogram (one kind of output)|--per-trial --histogram 5
--per-row does not apply with --histogram (one kind of output)|--per-row --histogram 5
--observed does not apply with --per-trial (the fraction is in the summary)|--observed 1 --per-trial
--observed does not apply with --per-row (the fraction is in the summary)|--observed 1 --per-row
--observed does not apply with --histogram (the fraction is in the summary)|--observed 1 --histogram 5
--ddof does not apply with --per-row (it prints no variance)|--ddof 1 --per-row
--ddof does not apply with --histogram (it prints no variance)|--ddof 1 --histogram 5
--values does not apply with --per-row (it prints no output variance)|--values --per-row
--values does not apply with --histogram (it prints no output variance)|--values --histogram 5
--dv does not apply with --per-row (it prints no output variance)|--dv 3 --per-row
--dv does not apply with --histogram (it prints no output variance)|--dv 3 --histogram 5
--grad does not apply with --per-row (it prints no gradient)|--grad --per-row
--example does not apply with --window (it shows full or causal rows)|--example --window 2
--grad does not apply with --histogram (it prints no gradient)|--grad --histogram 5
--columns does not apply with --format table (CSV, JSON and JSONL only)|--columns raw_var --format table
--example does not apply with --columns (it prints text)|--example --columns raw_var
--example does not apply with --format (it prints text)|--example --format csv
--example does not apply with --histogram (one kind of output)|--example --histogram 5
--example does not apply with --no-header (it prints text)|--example --no-header
--example does not apply with --observed (it shows trial 0)|--example --observed 1
--example does not apply with --per-row (one kind of output)|--example --per-row
--example does not apply with --per-trial (one kind of output)|--example --per-trial
--example does not apply with --trials (it shows trial 0)|--example --trials 3
--no-header does not apply with --format table (CSV only)|--no-header --format table
--no-header does not apply with --format json (CSV only)|--no-header --format json
--format table does not apply with --per-row (it prints CSV)|--format table --per-row
--columns does not apply with --format table (CSV, JSON and JSONL only)|--format table --columns dk
--format table does not apply with --histogram (it prints CSV)|--format table --histogram 5
--q needs --k (Q and K make the scores)|--q q.npy
--k needs --q (Q and K make the scores)|--k k.npy
--v needs --q (the values of measured Q and K)|--v v.npy
--mask needs --q (it masks the scores of measured Q and K)|--mask m.npy
--layout needs --q (it says how files are laid out)|--layout bnhd
--pool needs --q (it pools the heads of files)|--pool none
--pool does not apply with --per-row (one kind of output)|--q q.npy --k k.npy --pool none --per-row
--pool does not apply with --histogram (one kind of output)|--q q.npy --k k.npy --pool all --histogram 5
--nu does not apply with --q (Q and K are read from files)|--nu 6 --q q.npy --k k.npy
--init does not apply with --q (Q and K are read from files)|--init lecun --q q.npy --k k.npy
--cross does not apply with --q (Q and K are read from files)|--cross --q q.npy --k k.npy
--dk does not apply with --q (Q and K are read from files)|--dk 3 --q q.npy --k k.npy
--n does not apply with --q (Q and K are read from files)|--n 3 --q q.npy --k k.npy
--nq does not apply with --q (Q and K are read from files)|--nq 3 --q q.npy --k k.npy
--nk does not apply with --q (Q and K are read from files)|--nk 3 --q q.npy --k k.npy
--trials does not apply with --q (Q and K are read from files)|--trials 3 --q q.npy --k k.npy
--seed does not apply with --q (Q and K are read from files)|--seed 3 --q q.npy --k k.npy
--dist does not apply with --q (Q and K are read from files)|--dist t --q q.npy --k k.npy
--q-mean does not apply with --q (Q and K are read from files)|--q-mean 1 --q q.npy --k k.npy
--q-std does not apply with --q (Q and K are read from files)|--q-std 2 --q q.npy --k k.npy
--k-mean does not apply with --q (Q and K are read from files)|--k-mean 1 --q q.npy --k k.npy
--k-std does not apply with --q (Q and K are read from files)|--k-std 2 --q q.npy --k k.npy
--qk-norm does not apply with --q (Q and K are read from files)|--qk-norm --q q.npy --k k.npy
--qk-scale does not apply with --q (Q and K are read from files)|--qk-scale 2 --q q.npy --k k.npy
--plant does not apply with --q (Q and K are read from files)|--plant 0.5 --q q.npy --k k.npy
--d-model does not apply with --q (Q and K are read from files)|--d-model 3 --q q.npy --k k.npy
--values does not apply with --q (--v reads V from a file)|--values --q q.npy --k k.npy
--dv does not apply with --q (--v reads V from a file)|--dv 3 --q q.npy --k k.npy
--grad does not apply with --q (no file gives G)|--grad --q q.npy --k k.npy
--observed does not apply with --q (it counts random trials)|--observed 1 --q q.npy --k k.npy
--per-trial does not apply with --q (rows are per head: --pool)|--per-trial --q q.npy --k k.npy
--example does not apply with --q (it shows a random trial)|--example --q q.npy --k k.npy
--save-qk does not apply with --q (it saves random draws)|--save-qk d --q q.npy --k k.npy
--n does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --n 3
--nq does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --nq 3
--nk does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --nk 3
--trials does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --trials 3
--seed does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --seed 3
--dist does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --dist t
--ddof does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --ddof 1
--observed does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --observed 1
--nu does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --nu 6
--q-mean does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --q-mean 1
--q-std does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --q-std 2
--k-mean does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --k-mean 1
--k-std does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --k-std 2
--qk-norm does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --qk-norm
--qk-scale does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --qk-scale 2
--plant does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --plant 0.5
--d-model does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --d-model 3
--init does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --init lecun
--cross does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --cross
--causal does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --causal
--window does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --window 2
--values does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --values
--dv does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --dv 3
--grad does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --grad
--q does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --q q.npy
--k does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --k k.npy
--v does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --v v.npy
--layout does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --layout bnhd
--pool does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --pool none
--save-qk does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --save-qk d
--columns does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --columns dk
--per-trial does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --per-trial
--per-row does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --per-row
--histogram does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --histogram 5
--weight-histogram does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --weight-histogram
--example does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --example
--threads does not apply with --logits-file (the rows are given, nothing is drawn)|--logits-file rows.txt --threads 2
--block-rows does not apply with --logits (the rows are given, nothing is drawn)|--logits 1,2 --block-rows 2
--upstream needs --logits (the gradient of a given row)|--upstream 1,2
--format gnuplot does not apply with --per-trial (it plots the summary)|--format gnuplot --per-trial
--plot needs --format gnuplot (it says what the script draws)|--plot entropy
--example does not apply with --output (it prints text)|--example --output a.csv
--columns does not apply with --format markdown (CSV, JSON and JSONL only)|--columns raw_var --format markdown
--per-trial does not apply with --format markdown (a slide's table is the summary)|--per-trial --format markdown
--per-row does not apply with --format latex (a slide's table is the summary)|--per-row --format latex
--histogram does not apply with --format markdown (a slide's table is the summary)|--histogram 5 --format markdown
--q does not apply with --format markdown (drawn Q and K only)|--q q.npy --k k.npy --format markdown
--logits does not apply with --format state (a state is of random draws)|--logits 1,2 --format state
--logits-file does not apply with --format state (a state is of random draws)|--logits-file rows.txt --format state
--plot does not apply with --logits (it draws the rows' weights)|--logits 1,2 --format gnuplot --plot entropy
--upstream does not apply with --format gnuplot (the plot draws the weights)|--logits 1,2 --upstream 1,0 --format gnuplot
--format gnuplot does not apply with --q (it plots the summary of random draws, --histogram or given --logits)|--format gnuplot --q q.npy --k k.npy
--format gnuplot does not apply with --columns (it plots the summary of random draws, --histogram or given --logits)|--format gnuplot --columns dk
--format state does not apply with --per-trial (a state is the summary's partial result)|--format state --per-trial
--format state does not apply with --per-row (a state is the summary's partial result)|--format state --per-row
--format state does not apply with --histogram (a state is the summary's partial result)|--format state --histogram 5
--format state does not apply with --columns (a state is the summary's partial result)|--format state --columns dk
--format state does not apply with --q (a state is the summary's partial result)|--format state --q q.npy --k k.npy
--format state does not apply with --save-qk (a state is the summary's partial result)|--format state --save-qk d
--total-trials needs --format state (a state records the whole run's trials)|--total-trials 4
--q-rows needs --format state (a row shard is a partial result)|--q-rows 0:64
--q-rows does not apply with --grad (dL/dk sums over every row)|--q-rows 0:64 --format state --grad
--first-trial does not apply with --q (Q and K are read from files)|--first-trial 1 --q q.npy --k k.npy
EOF
# A row of the rule table is a rule for each pair of its options and its
# others (one for the row with CLI_RULE_EXCLUDES_ALL): count the pairs.
src_rules=$(awk '/^static const cli_rule rules\[\] = \{/ { on = 1; next } on && /^\};/ { on = 0 }
                 on { t = t " " $0 }
                 END { rows = split(t, row, /\{O\(/)
                       for (i = 2; i <= rows; i++) {
                           match(row[i], /(NEEDS|EXCL|CLI_RULE_EXCLUDES_ALL),/)
                           head = substr(row[i], 1, RSTART - 1); tail = substr(row[i], RSTART)
                           sub(/".*/, "", tail)
                           a = 1 + gsub(/O\(/, "", head); b = gsub(/O\(/, "", tail)
                           n += a * (tail ~ /EXCLUDES_ALL/ ? 1 : b)
                       }
                       print n + 0 }' "$(dirname "$0")/../../src/cli/parse/validate.c")
src_flags=$(awk '/^#define CLI_OPTION_TABLE/ { on = 1 } on { n += gsub(/CLI_X_(LOGITS|Q)/, "") }
                 END { print n + 0 }' "$(dirname "$0")/../../src/cli/parse/option_table.h")
tested=$(sort -u "$rules_seen" | wc -l)
[ "$src_rules" -gt 0 ] && [ "$src_flags" -gt 0 ] && [ "$tested" -eq $((src_rules + src_flags)) ] && ok ||
    fail "validate.c has $src_rules rules and option_table.h $src_flags flags, this block tests $tested distinct ones"
# ... and the same options where they do apply.
while read -r args; do
    # shellcheck disable=SC2086
    "$BIN" --dk 2 $args >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok || fail "$args: $(cat "$tmp/err")"
done <<'EOF'
--n 3 --dist normal,t --nu 6
--n 3 --init lecun --d-model 4
--n 3 --cross --d-model 4
--n 3 --histogram 5 --weight-histogram
--nq 3 --nk 4 --trials 2
--n 3 --nq 3 --trials 2
--n 3 --observed 1 --trials 3
--n 3 --ddof 1 --per-trial
--n 3 --dv 3 --per-trial
--n 3 --format csv --per-row
--n 3 --q-std 2 --q-mean 1 --qk-norm
--n 3 --q-std 2 --k-std 0.5 --plant 0.5 --qk-norm
--n 3 --d-model 3 --q-mean 0
EOF

# --- --dk A:B reaches B -------------------------------------------------------
"$BIN" --dk 1:1000 --n 2 >"$tmp/dk.csv"
[ "$(column dk "$tmp/dk.csv" | tr '\n' ' ')" = "1 2 4 8 16 32 64 128 256 512 1000 " ] && ok || fail "--dk 1:1000"
"$BIN" --dk 3:24,5:5,7:8 --n 2 >"$tmp/dk.csv"
[ "$(column dk "$tmp/dk.csv" | tr '\n' ' ')" = "3 6 12 24 5 7 8 " ] && ok || fail "--dk 3:24,5:5,7:8"

# --- --dist and --init lists: one configuration each, scale outer ----------------
"$BIN" --dk 2,4 --n 3 --dist normal,rademacher --scale sqrt,none >"$tmp/l.csv"
[ "$(paste -d/ <(column dk "$tmp/l.csv") <(column dist "$tmp/l.csv") | tr '\n' ' ')" = \
  "2/normal 4/normal 2/rademacher 4/rademacher 2/normal 4/normal 2/rademacher 4/rademacher " ] &&
    [ "$(column scale "$tmp/l.csv" | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" = "4sqrt 4none " ] &&
    ok || fail "--dist list order: $(tr '\n' ' ' <"$tmp/l.csv" | cut -c1-80)"
"$BIN" --dk 2 --n 3 --dist rademacher >"$tmp/one.csv"
[ -n "$(sed -n 2p "$tmp/one.csv")" ] && [ "$(sed -n 4p "$tmp/l.csv")" = "$(sed -n 2p "$tmp/one.csv")" ] && ok || fail "a list row equals its single run"
"$BIN" --dk 2 --n 3 --d-model 4 --init xavier,lecun,normal >"$tmp/i.csv"
[ "$(column init "$tmp/i.csv" | tr '\n' ' ')" = "xavier lecun normal " ] && ok || fail "--init list"
usage_error "$p: --histogram takes one configuration (got 2 from --dk, --n, --scale, --dist, --init)" --histogram 5 --dist normal,t
usage_error "$p: --dist: 'normal,' is not a list of normal, uniform, rademacher, t" --dist normal,

done_tests
