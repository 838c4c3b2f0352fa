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
run hist256 --dk 256 --n 300 --histogram 80
run pooled --dk 64 --n 4 --trials 20000 --histogram 80
run max_weight_causal --dk 1:64 --n 64 --causal --plot max_weight
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
# The histogram's normal curve: expected counts that add up to the scores
# (the raw panel's datablock: bin_lo bin_hi count normal), less the tails
# beyond the panel's span (bars under 1/500 of the tallest: ~3.7 sd, a few
# in 10 000).
sum=$(awk '/^EOD/ { on = 0 } on && !/^#/ { s += $4 } /^\$raw << EOD/ { on = 1 } END { printf "%.0f", s }' \
    <("$BIN" --dk 64 --n 300 --histogram 60 --format gnuplot))
[ "$sum" -ge 89900 ] && [ "$sum" -le 90000 ] && echo "ok: histogram normal counts sum to 300^2 ($sum)" ||
    { echo "FAIL: histogram normal counts sum to $sum, not 89900-90000" >&2; failed=1; }
# Issue 41 section 4. Each panel of the histogram on bins of its own scale:
# at d_k = 256 the scaled sd is 1 and the raw 16, and both panels' bars are
# 0.05-0.3 sd wide (80 bars over about +-5 sd); the old script drew the
# scaled scores on the raw bins, 192/80 = 2.4 scaled sd wide.
"$BIN" --dk 256 --n 300 --histogram 80 --format gnuplot >"$out/h256.gp"
width() { awk -v b="$1" '/^EOD/ { on = 0 } on && !/^#/ { print $2 - $1; exit } $0 ~ "^\\$" b " << EOD" { on = 1 }' "$out/h256.gp"; }
for panel in "raw 16" "scaled 1"; do
    set -- $panel
    w=$(width "$1")
    if [ -n "$w" ] && awk -v w="$w" -v sd="$2" 'BEGIN { exit !(w / sd >= 0.05 && w / sd <= 0.3) }'; then
        echo "ok: $1 panel: bars $w wide, sd $2"
    else
        echo "FAIL: $1 panel: bars '$w' wide for sd $2 (want 0.05-0.3 sd)" >&2; failed=1
    fi
done
# The titles say how many trials are pooled (not "one run").
grep -q 'Scores pooled over 1000 trials (4000 scores)' \
    <("$BIN" --dk 2 --n 2 --trials 1000 --histogram 40 --format gnuplot 2>/dev/null) &&
    echo "ok: pooled title" || { echo "FAIL: the pooled histogram's title names no trials" >&2; failed=1; }
grep -q 'Scores of one trial (90000 scores)' "$out/h256.gp" && echo "ok: one-trial title" ||
    { echo "FAIL: one trial's title" >&2; failed=1; }
# Legends never over the data: every key outside the frame.
for args in "--dk 256 --n 300 --histogram 80" "--dk 1:64 --n 50" "--dk 1:64 --n 50 --plot max_weight" \
    "--dk 1:64 --n 50 --grad --plot grad"; do
    keys=$("$BIN" $args --format gnuplot | grep '^set key')
    if [ -n "$keys" ] && ! echo "$keys" | grep -qv '^set key outside'; then echo "ok: key outside: $args"; else
        echo "FAIL: $args: $keys" >&2; failed=1; fi
done
# Reference lines: uniform rows (1/n_k, n_k: the datablock's column 8 is
# 1/50 and 50) and one-hot rows (1).
for plot in "max_weight 0.02 weight 1" "eff_keys 50 1 key"; do
    set -- $plot
    "$BIN" --dk 1:64 --n 50 --plot "$1" --format gnuplot >"$out/ref_$1.gp"
    col8=$(awk '/^EOD/ { on = 0 } on && !/^#/ { print $8 } /<< EOD/ { on = 1 }' "$out/ref_$1.gp" | sort -u)
    if [ "$col8" = "$2" ] && grep -q 'title "uniform rows' "$out/ref_$1.gp" &&
        grep -q "^     1 with lines .*title \"one-hot rows: $3 $4\"" "$out/ref_$1.gp"; then
        echo "ok: $1 reference lines"
    else
        echo "FAIL: $1: column 8 '$col8' (want $2), or no uniform / one-hot line" >&2; failed=1
    fi
done
# The gradient plot's second panel: the keys the gradient reaches, and n_k.
grep -q 'title "Keys the gradient reaches' <("$BIN" --dk 1:64 --n 50 --grad --plot grad --format gnuplot) &&
    echo "ok: grad keys panel" || { echo "FAIL: no keys panel in --plot grad" >&2; failed=1; }
# The y axis fits the data: a variance from ~1 to 256 on [0.76:336] or
# so, not 0.01 to 10 000 (gnuplot widens a log axis to whole decades).
yr=$("$BIN" --dk 1:256 --n 300 --format gnuplot | sed -n 's/^set yrange \[\(.*\):\(.*\)\]$/\1 \2/p')
if [ -n "$yr" ] && awk -v r="$yr" 'BEGIN { split(r, a, " "); exit !(a[1] > 0.5 && a[2] < 500) }'; then
    echo "ok: variance y range $yr"
else
    echo "FAIL: variance y range '$yr'" >&2; failed=1
fi
# A readable default size: the user's pngcairo at its 640x480 default is
# enlarged to 1000x720; a size the user gives is kept.
rm -f "$out/size.png" "$out/keep.png"
"$BIN" --dk 1:64 --n 50 --format gnuplot | gnuplot -e "set terminal pngcairo; set output '$out/size.png'" -
file "$out/size.png" | grep -q '1000 x 720' && echo "ok: default size 1000x720" ||
    { echo "FAIL: default size: $(file "$out/size.png")" >&2; failed=1; }
"$BIN" --dk 1:64 --n 50 --format gnuplot | gnuplot -e "set terminal pngcairo size 500,400; set output '$out/keep.png'" -
file "$out/keep.png" | grep -q '500 x 400' && echo "ok: the user's size kept" ||
    { echo "FAIL: the user's size: $(file "$out/keep.png")" >&2; failed=1; }
# gnuplot-nox has no window terminal: `| gnuplot -p` falls back to dumb
# (text on stdout) rather than drawing nothing.
lines=$("$BIN" --dk 1:64 --n 50 --format gnuplot | env -u GNUTERM gnuplot -p 2>"$out/dumb.err" | wc -l)
if [ "$lines" -gt 20 ] && [ ! -s "$out/dumb.err" ]; then echo "ok: gnuplot -p draws text ($lines lines)"; else
    echo "FAIL: gnuplot -p: $lines lines, $(cat "$out/dumb.err")" >&2; failed=1; fi
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
# --output .pdf: slides need PDF (pdfcairo, in gnuplot-nox). The file starts %PDF.
rm -f "$out/own.pdf" "$out/hist.pdf"
"$BIN" --dk 1:64 --n 50 --format gnuplot --output "$out/own.pdf" | gnuplot 2>"$out/pdf.err" &&
    [ ! -s "$out/pdf.err" ] && check own.pdf "$out/own.pdf" "PDF document"
"$BIN" --dk 64 --n 100 --histogram 40 --format gnuplot --output "$out/hist.pdf" | gnuplot &&
    check hist.pdf "$out/hist.pdf" "PDF document"
[ "$(head -c 4 "$out/own.pdf" 2>/dev/null)" = "%PDF" ] && echo "ok: %PDF" ||
    { echo "FAIL: $out/own.pdf does not start with %PDF" >&2; failed=1; }
exit $failed
