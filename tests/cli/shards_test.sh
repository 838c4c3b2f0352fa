#!/usr/bin/env bash
# Shards (docs/scaling.md): three trial shards, three row shards and both
# (--first-trial, --q-rows, --format state) merged by `sdpa-var merge` in
# any order print one run's bytes in csv, json, jsonl and table; per-trial
# rows of a trial shard are the long run's; a bad shard is one line naming
# the file, exit 1; Python's sdpa_var.merge gives the CLI's numbers.
# Usage: tests/cli/shards_test.sh path/to/sdpa-var [path/to/python-dir]
set -u
BIN=${1:?usage: shards_test.sh path/to/sdpa-var [python dir]}
PYDIR=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
same() { if cmp -s "$1" "$2"; then ok; else bad "$3: $1 and $2 differ"; fi; }

# --- trial shards: 9000 trials of two configurations, cut off the blocks
A=(--dk 4,16 --n 20 --observed 60 --seed 5)
"$BIN" "${A[@]}" --trials 9000 --format csv >"$T/one.csv"
"$BIN" "${A[@]}" --trials 2500 --first-trial 0 --total-trials 9000 --format state >"$T/t0.st"
"$BIN" "${A[@]}" --trials 4000 --first-trial 2500 --total-trials 9000 --format state >"$T/t1.st"
"$BIN" "${A[@]}" --trials 2500 --first-trial 6500 --total-trials 9000 --format state >"$T/t2.st"
"$BIN" merge "$T/t2.st" "$T/t0.st" "$T/t1.st" >"$T/m.csv" 2>"$T/m.err"
[ ! -s "$T/m.err" ] && ok || bad "merge of one build's shards said: $(cat "$T/m.err")"
same "$T/one.csv" "$T/m.csv" "trial shards, csv"
# merge of merges: a state of trials 2500..8999, then the rest from stdin
"$BIN" merge --format state "$T/t1.st" "$T/t2.st" >"$T/t12.st"
"$BIN" merge "$T/t12.st" - <"$T/t0.st" >"$T/m2.csv"
same "$T/one.csv" "$T/m2.csv" "a merged state merged again"
# per-trial rows of a shard are the long run's (the trials column says T)
C=trial,raw_var,scaled_entropy,raw_max_weight
"$BIN" --dk 8 --n 20 --trials 30 --per-trial --columns $C >"$T/pt.csv"
"$BIN" --dk 8 --n 20 --trials 10 --first-trial 20 --per-trial --columns $C --no-header >"$T/pt2.csv"
tail -n 10 "$T/pt.csv" >"$T/pt_tail.csv"
same "$T/pt_tail.csv" "$T/pt2.csv" "per-trial rows of --first-trial"

# --- row shards: n_q = 2 blocks + 808 rows, causal; then both kinds
R=(--dk 2 --n $((2 * 4096 + 808)) --causal --seed 3)
"$BIN" "${R[@]}" --trials 4 --format state >"$T/whole.st"
for r in 0:4096 4096:8192 8192:9000; do
    "$BIN" "${R[@]}" --trials 4 --q-rows $r --format state >"$T/r_${r%:*}.st"
done
for t in 0 2; do
    for r in 0:4096 4096:9000; do
        "$BIN" "${R[@]}" --trials 2 --first-trial $t --total-trials 4 --q-rows $r \
            --format state >"$T/b_${t}_${r%:*}.st"
    done
done
for f in csv json jsonl table; do
    "$BIN" "${R[@]}" --trials 4 --format $f >"$T/rone.$f"
    "$BIN" merge --format $f "$T/r_8192.st" "$T/r_0.st" "$T/r_4096.st" >"$T/rows.$f"
    same "$T/rone.$f" "$T/rows.$f" "row shards, $f"
    "$BIN" merge --format $f "$T"/b_*.st >"$T/both.$f"
    same "$T/rone.$f" "$T/both.$f" "trial and row shards, $f"
    "$BIN" merge --format $f "$T/t0.st" "$T/t1.st" "$T/t2.st" >"$T/tm.$f"
    "$BIN" "${A[@]}" --trials 9000 --format $f >"$T/tone.$f"
    same "$T/tone.$f" "$T/tm.$f" "trial shards, $f"
done

# --- --n and --dk lists (issue 33): each configuration takes its part of
# the rows (none when its n_q ends before them), trial and row shards
# merge to one run's bytes, the merged state to one run's state
L=(--dk 2,4 --n 4096,9000,33 --seed 8)
"$BIN" "${L[@]}" --trials 4 --format state >"$T/l_whole.st" || bad "--n list: --format state"
"$BIN" "${L[@]}" --trials 4 --format csv >"$T/l_one.csv"
for r in 0:4096 4096:8192 8192:9000; do
    "$BIN" "${L[@]}" --trials 4 --q-rows $r --format state >"$T/lr_${r%:*}.st" ||
        bad "--n list, --q-rows $r"
done
for t in 0 3; do
    "$BIN" "${L[@]}" --trials $((t ? 1 : 3)) --first-trial $t --total-trials 4 --format state >"$T/lt_$t.st" ||
        bad "--n list, --first-trial $t"
done
for k in lr lt; do
    "$BIN" merge "$T"/${k}_*.st >"$T/l_$k.csv"
    same "$T/l_one.csv" "$T/l_$k.csv" "--n list, $k shards"
    "$BIN" merge --format state "$T"/${k}_*.st >"$T/l_$k.st"
    same "$T/l_whole.st" "$T/l_$k.st" "--n list, $k shards merged into a state"
done
"$BIN" --dk 8 --n 16,33 --format state >"$T/l_small.st" && ok || bad "--dk 8 --n 16,33 --format state"
"$BIN" --dk 8 --n 16,33 >"$T/l_small.csv" && "$BIN" merge "$T/l_small.st" >"$T/l_small_m.csv"
same "$T/l_small.csv" "$T/l_small_m.csv" "--n 16,33 state merged"
# merge takes its options anywhere, as the main command does
"$BIN" merge "$T"/lt_*.st --format csv >"$T/l_after.csv" && ok || bad "merge FILE --format csv"
same "$T/l_one.csv" "$T/l_after.csv" "merge FILE --format csv"
for a in --frobnicate -x; do
    "$BIN" merge "$T/lt_0.st" $a >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF -- "unknown option '$a'" "$T/err" &&
        ok || bad "merge FILE $a -> rc=$rc $(cat "$T/err")"
done
# merge's options are read by the main command's scanner (options.c),
# restricted to --format (the formats merge writes), --output and --help:
# every refusal one whole line, exit 2, ending in merge's --help hint
says() { # want-line, merge args...
    local want="sdpa-var: merge: $1 (try 'sdpa-var merge --help')"
    shift
    "$BIN" merge "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "$want" ] && ok ||
        bad "merge $* -> rc=$rc: $(cat "$T/err") (want: $want)"
}
says "--format: 'gnuplot' is not one of table, csv, json, jsonl, state" --format gnuplot "$T/lt_0.st"
says "--format: 'cvs' is not one of table, csv, json, jsonl, state; did you mean csv?" \
    "$T/lt_0.st" --format=cvs
says "option '--format' requires an argument" "$T/lt_0.st" --format
says "option '--help' takes no value" --help=x
says "unknown option '-f'" "$T/lt_0.st" -fcsv
says "unknown option '--dk'" --dk 8 "$T/lt_0.st"
says "unknown option '--frobnicate'" --frobnicate=3 "$T/lt_0.st"
says "unknown option '--formt'; did you mean --format?" --formt csv "$T/lt_0.st"
says "--output: '' is no file name" --output '' "$T/lt_0.st"
says "no state files" --format csv --
# abbreviations among merge's three options ("--f" is ambiguous in the
# main command's table), --help before a refusal wins, "--" ends options
"$BIN" merge --f csv --o "$T/abbr.csv" "$T"/lt_*.st && same "$T/l_one.csv" "$T/abbr.csv" "merge --f --o"
u="Usage: sdpa-var merge [--format table|csv|json|jsonl|state] [--output FILE] FILE..."
"$BIN" merge --help --frobnicate >"$T/out" 2>"$T/err" && [ ! -s "$T/err" ] &&
    [ "$(head -1 "$T/out")" = "$u" ] && ok || bad "merge --help --frobnicate: $(cat "$T/out" "$T/err")"
"$BIN" merge "$T/lt_0.st" -- --format >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && [ "$(cat "$T/err")" = "sdpa-var: merge: --format: No such file or directory" ] && ok ||
    bad "merge FILE -- --format: $(cat "$T/err")"

# --- bad shards: one line naming the file, exit 1, nothing on stdout
fails_with() { # want-regex, merge args...
    local want=$1
    shift
    "$BIN" merge "$@" >"$T/out" 2>"$T/err"
    local rc=$? lines
    lines=$(wc -l <"$T/err")
    if [ $rc -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -s "$T/out" ] && grep -Eq "$want" "$T/err"; then
        ok
    else
        bad "merge $* -> rc=$rc, $lines lines: $(cat "$T/err") (want: $want)"
    fi
}
head -c 300 "$T/t0.st" >"$T/cut.st"
cp "$T/t0.st" "$T/flip.st"
printf '\x7f' | dd of="$T/flip.st" bs=1 seek=200 conv=notrunc 2>/dev/null
"$BIN" "${A[@]}" --trials 2500 --first-trial 2500 --total-trials 9000 --seed 6 --format state >"$T/seed.st"
"$BIN" "${A[@]}" --trials 10 --first-trial 2000 --total-trials 9000 --format state >"$T/over.st"
: >"$T/empty.st"
fails_with "cut.st: state data corrupt or truncated" "$T/cut.st" "$T/t1.st" "$T/t2.st"
fails_with "flip.st: state data corrupt or truncated" "$T/flip.st"
fails_with "empty.st: state data corrupt or truncated" "$T/empty.st"
fails_with "seed.st: another experiment than .*t0.st" "$T/t0.st" "$T/seed.st"
fails_with "over.st: overlaps .*t0.st" "$T/t0.st" "$T/over.st" "$T/t1.st" "$T/t2.st"
# two long paths: the whole line, not one cut at a fixed buffer
L="$T/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))"
mkdir -p "$L" && cp "$T/t0.st" "$T/over.st" "$L/"
fails_with "e/t0.st \(trials or rows [0-9]+\.\.[0-9]+\)$" "$L/t0.st" "$L/over.st" "$T/t1.st" "$T/t2.st"
fails_with "trials 2500..6499 are in no file" "$T/t0.st" "$T/t2.st"
fails_with "trials 0..2499 are in no file" "$T/t1.st" "$T/t2.st"
# the last shard missing: a state knows the run's trials (issue 33)
fails_with "trials 6500..8999 are in no file \(the run has 9000 trials; .*t1.st ends before them\)" \
    "$T/t0.st" "$T/t1.st"
"$BIN" "${A[@]}" --trials 2500 --first-trial 6500 --total-trials 9001 --format state >"$T/t9001.st"
fails_with "t9001.st: a shard of a run of 9001 trials, .*t0.st of 9000" "$T/t0.st" "$T/t1.st" \
    "$T/t9001.st"
"$BIN" "${A[@]}" --trials 2 --first-trial 2 --format state >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && [ ! -s "$T/out" ] && grep -q "needs --total-trials" "$T/err" && ok ||
    bad "--first-trial without --total-trials: $(cat "$T/err")"
fails_with "query rows 4096..8191 of the trials from 0 are in no file" "$T/r_0.st" "$T/r_8192.st"
fails_with "r_0.st: overlaps" "$T/r_0.st" "$T/r_0.st" "$T/r_4096.st" "$T/r_8192.st"
fails_with "missing.st: No such file" "$T/missing.st"
# another build (the version string rewritten) and a state of format
# version 1 (no run's trials, no kernels): each with its digest made again
python3 - "$T/t0.st" "$T/old.st" "$T/v1.st" <<'PY'
import struct, sys
def write(b, path):
    h = 0xcbf29ce484222325
    for x in b[:-8]:
        h = ((h ^ x) * 0x100000001b3) & (2**64 - 1)
    struct.pack_into("<Q", b, len(b) - 8, h)
    open(path, "wb").write(b)
b = bytearray(open(sys.argv[1], "rb").read())
v1 = bytearray(b)
n = struct.unpack_from("<Q", b, 16)[0]
b[24:24 + n] = b"0.0.0"[:n].ljust(n, b"0")
write(b, sys.argv[2])
struct.pack_into("<I", v1, 8, 1)
write(v1, sys.argv[3])
PY
fails_with "old.st: written by sdpa-var 0.0.0" "$T/old.st" "$T/t1.st" "$T/t2.st"
fails_with "v1.st: state format version 1, this build reads version 3" "$T/v1.st" "$T/t1.st" "$T/t2.st"

# --- Python reads and merges the same state
if [ -n "$PYDIR" ] && PYTHONPATH="$PYDIR" /usr/bin/python3 -c 'import sdpa_var' 2>/dev/null; then
    if PYTHONPATH="$PYDIR" /usr/bin/python3 - "$T" <<'PY'; then ok; else bad "python merge"; fi
import csv, math, sys
import sdpa_var
t = sys.argv[1]
rows = sdpa_var.merge([f"{t}/t2.st", f"{t}/t0.st", f"{t}/t1.st"])
want = list(csv.DictReader(open(f"{t}/one.csv")))
assert len(rows) == len(want) == 2, (len(rows), len(want))
for r, w in zip(rows, want):
    for k, v in w.items():
        x = r.values[k]
        if isinstance(x, float):
            assert (math.isnan(x) and v == "nan") or repr(x) == v or float(v) == x, (k, x, v)
        else:
            assert str(x) == v, (k, x, v)
PY
else
    echo "SKIP: python merge (no sdpa_var package at '$PYDIR')"
fi
# --- shards from different CPUs: each made with another OpenBLAS kernel and
# another instruction set for the row loops and the exp (as other machines
# would make them, scripts/portability.sh), merged, equal one run within the
# cross-machine tolerance (tests/tolerance.py), trial and row shards.
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
kinds=("Prescott default")
[[ $flags == *" avx2 "* && $flags == *" fma "* ]] && kinds+=("Haswell avx2")
[[ $flags == *" avx512f "* && $flags == *" avx512bw "* && $flags == *" avx512vl "* ]] &&
    kinds+=("SkylakeX avx512")
if [ "${#kinds[@]}" -ge 2 ] && [ -f "$(dirname "$0")/../tolerance.py" ]; then
    "$BIN" --dk 32 --n 5000 --seed 21 --trials 3 --format csv >"$T/x_one.csv"
    i=0
    for f in 0 1 2; do
        read -r core level <<<"${kinds[i % ${#kinds[@]}]}"
        i=$((i + 1))
        OPENBLAS_CORETYPE=$core SV_CPU_CAPABILITY=$level "$BIN" --dk 32 --n 5000 --seed 21 \
            --trials 1 --first-trial $f --total-trials 3 --format state >"$T/x_t$f.st"
    done
    for r in 0:4096 4096:5000; do
        read -r core level <<<"${kinds[i % ${#kinds[@]}]}"
        i=$((i + 1))
        OPENBLAS_CORETYPE=$core SV_CPU_CAPABILITY=$level "$BIN" --dk 32 --n 5000 --seed 21 \
            --trials 3 --q-rows $r --format state >"$T/x_r${r%%:*}.st"
    done
    for kind in t r; do
        "$BIN" merge "$T"/x_$kind*.st >"$T/x_$kind.csv" 2>"$T/x_err"
        [ "$(wc -l <"$T/x_err")" -eq 1 ] && grep -q "note: .* within a relative 1e-9" "$T/x_err" &&
            ok || bad "cross-CPU $kind shards: not one note on stderr: $(cat "$T/x_err")"
        cmp -s "$T/x_one.csv" "$T/x_$kind.csv" &&
            echo "note: cross-CPU $kind shards merged to the same bytes (kernels agreed here)"
        if /usr/bin/python3 "$(dirname "$0")/../tolerance.py" csv "$T/x_one.csv" "$T/x_$kind.csv" \
            "cross-CPU $kind shards"; then ok; else bad "cross-CPU $kind shards"; fi
    done
else
    echo "SKIP: cross-CPU shards (one OpenBLAS kernel family on this CPU)"
fi
# --format state on a terminal: refused (exit 2, nothing written), by merge as
# by the main command (merge wrote the bytes to the terminal). `script` gives
# the command a terminal.
if command -v script >/dev/null; then
    for cmd in "$BIN --dk 4 --n 8 --format state" "$BIN merge --format state $T/t0.st"; do
        script -qec "$cmd; echo rc=\$?" /dev/null </dev/null >"$T/tty" 2>&1
        grep -q "format state writes bytes: redirect stdout" "$T/tty" && grep -q "rc=2" "$T/tty" &&
            [ "$(wc -l <"$T/tty")" -eq 2 ] && ok || bad "on a terminal: $cmd: $(head -c 300 "$T/tty")"
    done
else
    echo "SKIP: --format state on a terminal (no script(1) here)"
fi
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
