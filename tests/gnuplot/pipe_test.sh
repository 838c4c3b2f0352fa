#!/usr/bin/env bash
# gnuplot.pipe (issue 24 section 3): the three one-liners of the man page's
# EXAMPLES and the README, `sdpa-var ... --format gnuplot | gnuplot`, run
# from a pipe with the terminal set on gnuplot's command line, as a user
# would. Each must exit 0 on both sides, leave gnuplot's stderr empty (its
# warnings exit 0 too), and write a PNG that file(1) calls one, larger than
# 5 KB (an empty frame is 3-4 KB). Then --output: the script sets its own
# pngcairo or svg terminal.
#   tests/gnuplot/pipe_test.sh SDPA_VAR_BINARY OUTDIR
set -u
BIN=${1:?usage: pipe_test.sh SDPA_VAR_BINARY OUTDIR}
out=${2:?usage: pipe_test.sh SDPA_VAR_BINARY OUTDIR}
command -v gnuplot >/dev/null || { echo "gnuplot.pipe: gnuplot not found (Debian package gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
failed=0
check() { # NAME FILE KIND: the file exists, file(1) says KIND, > 5 KB
    local size
    size=$(stat -c %s "$2" 2>/dev/null || echo 0)
    if file "$2" | grep -q "$3" && [ "$size" -gt 5000 ]; then
        echo "ok: $1 ($size bytes)"
    else
        echo "FAIL: $1: $(file "$2" 2>&1), $size bytes" >&2
        failed=1
    fi
}
run() { # NAME then the sdpa-var arguments
    local name=$1; shift
    rm -f "$out/$name.png"
    "$BIN" "$@" --format gnuplot 2>"$out/$name.err1" |
        gnuplot -e "set terminal pngcairo size 800,600; set output '$out/$name.png'" - 2>"$out/$name.err2"
    local rc=("${PIPESTATUS[@]}")
    if [ "${rc[0]}" -ne 0 ] || [ "${rc[1]}" -ne 0 ] || [ -s "$out/$name.err1" ] || [ -s "$out/$name.err2" ]; then
        echo "FAIL: $name: exit ${rc[*]}: $(cat "$out/$name.err1" "$out/$name.err2")" >&2
        failed=1
    fi
    check "$name" "$out/$name.png" "PNG image data"
}
# The one-liners of docs/sdpa-var.1.scd (EXAMPLES) and README.md, smaller n.
run variance --dk 1:1024 --n 300
run entropy --dk 1:1024 --n 300 --plot entropy
run histogram --dk 64 --n 300 --histogram 60
run grad --dk 1:256 --n 100 --grad --plot grad
run scales --dk 1:256 --n 100 --scale sqrt,dk,none --plot max_weight
# Issue 34: every --plot, one configuration (a point gnuplot must not warn
# about), two swept sizes, an n sweep.
run eff_keys --dk 1:256 --n 100 --plot eff_keys
run puzzle --dk 2 --n 2 --trials 1000
run pairs --dk 16,64 --n 16,256 --trials 4
run n_sweep --dk 64 --n 2:512 --trials 4
run weights --dk 4 --n 64 --histogram 30 --weight-histogram
# --logits rows drawn as bars (they printed JSON gnuplot could not read).
run logits --logits "-20,3,25,-15" --logits "-2.5,0.4,3.1,-1.9" --dk 64
run logits_scales --logits "1,2,3,4,5" --dk 16 --scale none,sqrt,dk
# One series per swept pair: --dk 16,64 --n 16,256 draws a raw line for each
# n (the old script drew one line doubling back), and the title says what
# every configuration shares: an n sweep names its d_k.
for want in 'title "raw QK^T, n_q=n_k=16"' 'title "raw QK^T, n_q=n_k=256"'; do
    grep -qF "$want" <("$BIN" --dk 16,64 --n 16,256 --format gnuplot) && echo "ok: pairs: $want" ||
        { echo "FAIL: pairs: no $want" >&2; failed=1; }
done
grep -q '^set title "Variance of the logits against n_k\\nd_k=64, trials=4"' \
    <("$BIN" --dk 64 --n 2:512 --trials 4 --format gnuplot) && echo "ok: n sweep title names d_k" ||
    { echo "FAIL: n sweep title: $("$BIN" --dk 64 --n 2:512 --trials 4 --format gnuplot | grep title)" >&2; failed=1; }
# Plain tick labels on log axes (--scale dk's 1e-4 was "0.000100").
grep -qx 'set format y "%g"' <("$BIN" --dk 1:64 --n 50 --scale dk --format gnuplot) &&
    echo "ok: %g ticks" || { echo "FAIL: no %g tick format" >&2; failed=1; }
# The variance's theory line is the expected SAMPLE variance, the CSV's
# raw_var_expected (48 at n = 2, d_k = 64), not raw_var_theory (64).
want=$("$BIN" --dk 64 --n 2,3 --columns raw_var_expected --no-header | awk '{ printf "%.9g\n", $1 }')
got=$(awk '/^EOD/ { on = 0 } on && !/^#/ { printf "%.9g\n", $6 } /<< EOD/ { on = 1 }' \
    <("$BIN" --dk 64 --n 2,3 --format gnuplot))
if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$(echo "$got" | head -1)" = 48 ]; then
    echo "ok: theory = expected sample variance"
else
    echo "FAIL: theory line $got, raw_var_expected $want" >&2; failed=1
fi
# The histogram's normal curve: expected counts that add up to the scores.
sum=$(awk '/^EOD/ { on = 0 } on && !/^#/ { s += $5 } /<< EOD/ { on = 1 } END { printf "%.0f", s }' \
    <("$BIN" --dk 64 --n 300 --histogram 60 --format gnuplot))
[ "$sum" = 90000 ] && echo "ok: histogram normal counts sum to 300^2" ||
    { echo "FAIL: histogram normal counts sum to $sum, not 90000" >&2; failed=1; }
# The scale is read from the run: --scale dk is labelled QK^T/d_k, never sqrt.
"$BIN" --dk 1:64 --n 50 --scale dk --format gnuplot >"$out/dk.gp"
if grep -q 'QK^T/d_k' "$out/dk.gp" && ! grep -q 'sqrt' "$out/dk.gp"; then echo "ok: --scale dk title"; else
    echo "FAIL: --scale dk: $(grep title "$out/dk.gp")" >&2; failed=1; fi
# The data are the CSV's: the datablock's raw_var column equals --columns raw_var.
want=$("$BIN" --dk 1:64 --n 50 --columns raw_var --no-header | awk '{ printf "%.9g\n", $1 }')
got=$(awk '/^EOD/ { on = 0 } on && !/^#/ { printf "%.9g\n", $4 } /<< EOD/ { on = 1 }' \
    <("$BIN" --dk 1:64 --n 50 --format gnuplot))
if [ -n "$want" ] && [ "$want" = "$got" ]; then echo "ok: datablock = CSV"; else
    echo "FAIL: datablock $got, CSV $want" >&2; failed=1; fi
# --output: the script's own terminal.
rm -f "$out/own.png" "$out/own.svg"
"$BIN" --dk 1:64 --n 50 --format gnuplot --output "$out/own.png" | gnuplot && check own.png "$out/own.png" "PNG image data"
"$BIN" --dk 1:64 --n 50 --format gnuplot --output "$out/own.svg" | gnuplot && check own.svg "$out/own.svg" "SVG"
exit $failed
