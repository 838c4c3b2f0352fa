#!/usr/bin/env bash
# gnuplot.pipe (issue 24 section 3): the three one-liners of the man page's
# EXAMPLES and the README, `sdpa-var ... --format gnuplot | gnuplot`, run
# from a pipe with the terminal set on gnuplot's command line, as a user
# would. Each must exit 0 on both sides, leave gnuplot's stderr empty (its
# warnings exit 0 too), and write a PNG that file(1) calls one, larger than
# 5 KB (an empty frame is 3-4 KB). The script is a datablock (the CSV of
# --columns all) and a template, scripts/sweep.gp, histogram.gp or
# logits.gp: what it draws is checked on gnuplot's dumb terminal, whose
# titles and keys are text. Then --output: the script sets its own
# pngcairo or svg terminal; and the installed template draws the CSV piped
# into it (with SOURCE_DIR).
#   tests/gnuplot/pipe_test.sh SDPA_VAR_BINARY OUTDIR [SOURCE_DIR]
set -u
BIN=${1:?usage: pipe_test.sh SDPA_VAR_BINARY OUTDIR [SOURCE_DIR]}
out=${2:?usage: pipe_test.sh SDPA_VAR_BINARY OUTDIR [SOURCE_DIR]}
SRC=${3:-}
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
# What gnuplot draws, read as text: the script on gnuplot's dumb terminal
# (titles and keys are text there), then the lines of `print` given in
# $PRINT (values the template computed: its reference line, the y range).
drawn() {
    { "$BIN" "$@" --format gnuplot 2>/dev/null; [ -n "${PRINT:-}" ] && echo "print $PRINT"; } |
        gnuplot -e "set terminal dumb size 200,80" - 2>&1
}
# The script is the CSV of --columns all in a datablock (the configuration
# first, as the default CSV), then the template: its data lines are the
# CSV's, byte for byte.
got=$(awk '/^EOD$/ { on = 0 } on { print } /^\$D << EOD$/ { on = 1 }' <("$BIN" --dk 1:64 --n 50 --format gnuplot))
all=$("$BIN" --dk 1:64 --n 50 --format csv --columns all | head -1 | tr , '\n' | sort)
if [ -n "$got" ] && [ "$(head -1 <<<"$got" | tr , '\n' | sort)" = "$all" ] &&
    [ "$got" = "$("$BIN" --dk 1:64 --n 50 --format csv --columns "$(head -1 <<<"$got")")" ]; then
    echo "ok: datablock = CSV --columns all"
else
    echo "FAIL: the datablock is not the CSV of --columns all" >&2; failed=1
fi
# One series per swept pair: --dk 16,64 --n 16,256 draws a raw line for each
# n (a line doubling back otherwise), and the title says what every
# configuration shares: an n sweep names its d_k.
out_pairs=$(drawn --dk 16,64 --n 16,256)
for want in 'raw QK^T, n_q=n_k=16' 'raw QK^T, n_q=n_k=256'; do
    grep -qF "$want" <<<"$out_pairs" && echo "ok: pairs: $want" ||
        { echo "FAIL: pairs: no $want" >&2; failed=1; }
done
out_n=$(drawn --dk 64 --n 2:512 --trials 4)
if grep -q 'Variance of the logits against n_q=n_k' <<<"$out_n" && grep -q 'd_k=64, trials=4' <<<"$out_n"; then
    echo "ok: n sweep title names d_k"
else
    echo "FAIL: n sweep title: $(head -5 <<<"$out_n")" >&2; failed=1
fi
# Plain tick labels on log axes (--scale dk's 1e-4 was "0.000100").
grep -q '^set format y "%g"' <("$BIN" --dk 1:64 --n 50 --scale dk --format gnuplot) &&
    echo "ok: %g ticks" || { echo "FAIL: no %g tick format" >&2; failed=1; }
# The variance's theory line is the expected SAMPLE variance, the CSV's
# raw_var_expected (48 at n = 2, d_k = 64), not raw_var_theory (64).
want=$(PRINT='sprintf("%s %s", c1, c3)' drawn --dk 64 --n 2,3 | tail -1)
[ "$want" = "raw_var raw_var_expected" ] && echo "ok: theory = expected sample variance" ||
    { echo "FAIL: the variance's columns: '$want'" >&2; failed=1; }
# The histogram's normal curve: the library's theory (sd 8 at d_k = 64,
# and 1 scaled), and expected counts that add up to the scores.
got=$(PRINT='sprintf("%g %g %g", raw_sd, scaled_sd, expect(0, 1.0, 0, raw_sd))' drawn --dk 64 --n 300 --histogram 60 | tail -1)
if [ "${got% *}" = "8 1" ] && awk -v c="${got##* }" 'BEGIN { exit !(c > 90000 * 0.0498 && c < 90000 * 0.0499) }'; then
    echo "ok: histogram theory $got"
else
    echo "FAIL: histogram theory '$got' (want 8 1 and 90000 * P(|z| < 1/16) = 4485)" >&2; failed=1
fi
# Issue 41 section 4. Each panel of the histogram on bins of its own scale:
# at d_k = 256 the scaled sd is 1 and the raw 16, and both panels' bars are
# 0.05-0.3 sd wide (80 bars over about +-5 sd); the old script drew the
# scaled scores on the raw bins, 192/80 = 2.4 scaled sd wide.
out_h=$(drawn --dk 256 --n 300 --histogram 80)
for panel in "raw QK^T" "QK^T/sqrt(d_k)"; do
    w=$(grep -o "$panel: bars [0-9.e-]* wide = [0-9.]* sd" <<<"$out_h" | awk '{ print $(NF-1) }')
    if [ -n "$w" ] && awk -v w="$w" 'BEGIN { exit !(w >= 0.05 && w <= 0.3) }'; then
        echo "ok: $panel panel: bars $w sd wide"
    else
        echo "FAIL: $panel panel: bars '$w' sd wide (want 0.05-0.3)" >&2; failed=1
    fi
done
# The titles say how many trials are pooled (not "one run").
grep -q 'Scores pooled over 1000 trials (4000 scores)' <(drawn --dk 2 --n 2 --trials 1000 --histogram 40) &&
    echo "ok: pooled title" || { echo "FAIL: the pooled histogram's title names no trials" >&2; failed=1; }
grep -q 'Scores of one trial (90000 scores)' <<<"$out_h" && echo "ok: one-trial title" ||
    { echo "FAIL: one trial's title" >&2; failed=1; }
# Legends never over the data: every key outside the frame.
for args in "--dk 256 --n 300 --histogram 80" "--dk 1:64 --n 50" "--logits 1,2"; do
    keys=$("$BIN" $args --format gnuplot | grep -o '\(^\|[;{] *\)set key [a-z]*' | sed 's/^[;{ ]*//')
    if [ -n "$keys" ] && ! echo "$keys" | grep -qv '^set key outside'; then echo "ok: key outside: $args"; else
        echo "FAIL: $args: $keys" >&2; failed=1; fi
done
# Reference lines: uniform rows (1/n_k, n_k) and one-hot rows (1); with
# --causal the mean over rows i = 1..n of 1/i (H_50/50) and of i.
for plot in "max_weight 0.02 weight_1" "eff_keys 50 1_key" "max_weight 0.0899841 weight_1 --causal" \
    "eff_keys 25.5 1_key --causal"; do
    set -- $plot
    out_r=$(PRINT='sprintf("%g", ref_const)' drawn --dk 1:64 --n 50 --plot "$1" ${4:-})
    if [ "$(tail -1 <<<"$out_r")" = "$2" ] && grep -q 'uniform rows' <<<"$out_r" &&
        grep -q "one-hot rows: ${3/_/ }" <<<"$out_r"; then
        echo "ok: $1 ${4:-} reference lines"
    else
        echo "FAIL: $1 ${4:-}: reference $(tail -1 <<<"$out_r") (want $2), or no uniform / one-hot line" >&2; failed=1
    fi
done
# The gradient plot's second panel: the keys the gradient reaches, and n_k.
grep -q 'Keys the gradient reaches' <(drawn --dk 1:64 --n 50 --grad --plot grad) &&
    echo "ok: grad keys panel" || { echo "FAIL: no keys panel in --plot grad" >&2; failed=1; }
# The y axis fits the data: a variance from ~1 to 256 on [0.76:336] or
# so, not 0.01 to 10 000 (gnuplot widens a log axis to whole decades).
yr=$(PRINT='sprintf("%g %g", GPVAL_Y_MIN, GPVAL_Y_MAX)' drawn --dk 1:256 --n 300 | tail -1)
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
out_dk=$(drawn --dk 1:64 --n 50 --scale dk)
if grep -q 'QK^T/d_k' <<<"$out_dk" && ! grep -q 'sqrt' <<<"$out_dk"; then echo "ok: --scale dk title"; else
    echo "FAIL: --scale dk: $(grep QK <<<"$out_dk")" >&2; failed=1; fi
# The same script drew the CSV piped into the installed template: one set
# of plotting code (the embedded text is scripts/sweep.gp's).
if [ -n "${SRC:-}" ]; then
    rm -f "$out/piped.png"
    "$BIN" --dk 1:64 --n 50 --format csv --columns all |
        gnuplot -e "quantity='eff_keys'; out='$out/piped.png'" "$SRC/scripts/sweep.gp" 2>"$out/piped.err" &&
        [ ! -s "$out/piped.err" ] && check piped.png "$out/piped.png" "PNG image data"
fi
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
