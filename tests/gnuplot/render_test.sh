#!/usr/bin/env bash
# render_test.sh: render every gnuplot figure from the tool's real CSV output
# to .png, .pdf and .svg (and a slide-sized .png) and check each file.
#
# Usage:
#   tests/gnuplot/render_test.sh SDPA_VAR_BINARY SOURCE_DIR OUTDIR
# e.g.
#   tests/gnuplot/render_test.sh build/sdpa-var . build/test-figures
#
# For each of scripts/{variance_vs_dk,softmax_vs_dk,puzzle_histogram,
# scale_choices,entropy_approx,causal_rows,score_histogram,
# output_variance,planted_key,sweep,histogram,logits}.gp it runs
#   "$BIN" ... --format csv --columns all | gnuplot -e "out='$OUTDIR/NAME.png'" "$SRC/scripts/NAME.gp"
# and for scripts/fourth_moment.gp and scripts/projection_init.gp, which read
# several runs concatenated (one per --dist or per --init, each with its own
# header line),
#   for d in normal uniform rademacher t; do "$BIN" ... --dist $d --format csv --columns all; done |
#       gnuplot -e "out='$OUTDIR/fourth_moment.png'" "$SRC/scripts/fourth_moment.gp"
#   for i in xavier lecun normal; do "$BIN" ... --init $i --format csv --columns all; done |
#       gnuplot -e "out='$OUTDIR/projection_init.png'" "$SRC/scripts/projection_init.gp"
# and likewise for scripts/input_moments.gp (one run per --k-mean),
# scripts/gradient_signal.gp (one --grad run per --nk) and
# scripts/qk_norm.gp (one run without and one with --qk-norm)
# (small configurations, a few seconds in all) and checks:
#   * both sides of the pipe exit 0;
#   * gnuplot wrote nothing to stderr: its warnings ("skipping data file with
#     no valid points", an unknown column name, ...) still exit 0 and leave a
#     PNG, often an empty frame, so stderr is the only place they show;
#   * the file exists and starts with the 8-byte PNG signature;
#   * the IHDR width and height are the size the script promises;
#   * it is bigger than 5 KB (an empty frame with axes is around 3-4 KB; a
#     real figure with text and data is tens of KB).
# The same CSV (kept as OUTDIR/NAME.csv) then goes through the script three
# more times: out='NAME.slide.png' with size='1600,900' and fontscale=1.6
# (IHDR 1600x900), out='NAME.pdf' (starts with %PDF-, `file` says PDF) and
# out='NAME.svg' (`file` says SVG, holds an <svg element); each > 5 KB with
# gnuplot's stderr empty.  scripts/terminal.gp picks the terminal from the
# extension: an unknown extension, or term='svg' with out='x.png', must fail
# with a message and write nothing, and term='svg' without out must write
# NAME.svg.
# It also checks that variance_vs_dk.gp, given no `out`, writes its default
# file name in the current directory, that fourth_moment.gp refuses
# concatenated CSVs whose header lines differ, and that score_histogram.gp
# and projection_init.gp refuse input that is not theirs (a weight
# histogram; runs without --d-model).  The PNGs stay in OUTDIR for
# a person to look at.  Exit status: 0 if every check passed, 1 otherwise,
# 2 on usage.
set -euo pipefail

if [ "$#" -ne 3 ]; then
    echo "usage: $0 SDPA_VAR_BINARY SOURCE_DIR OUTDIR" >&2
    exit 2
fi
BIN=$1
SRC=$2
OUTDIR=$3
command -v gnuplot >/dev/null 2>&1 || { echo "render_test: gnuplot not found (Debian: gnuplot-nox)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "render_test: $BIN is not an executable" >&2; exit 1; }
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)   # absolute: one check runs gnuplot from inside it
SRC=$(cd "$SRC" && pwd)

passed=0
failed=0
pass() { passed=$((passed + 1)); printf '  ok    %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf '  FAIL  %s\n' "$1"; }

# check_png FILE WIDTH HEIGHT: signature, IHDR size, file size.
check_png() {
    local file=$1 want_w=$2 want_h=$3 sig size w h
    if [ ! -f "$file" ]; then
        fail "$file exists"
        return
    fi
    size=$(wc -c <"$file")
    if [ "$size" -lt 24 ]; then
        fail "$file is a PNG: only $size bytes"
        return
    fi
    pass "$file exists"
    # 89 50 4E 47 0D 0A 1A 0A: "\x89PNG\r\n\x1a\n".
    sig=$(od -An -tx1 -N8 "$file" | tr -d ' \n')
    if [ "$sig" = 89504e470d0a1a0a ]; then
        pass "PNG signature"
    else
        fail "PNG signature (got $sig)"
    fi
    # The IHDR chunk comes first: length(4) "IHDR"(4) width(4) height(4),
    # big-endian, so width is bytes 16-19 and height bytes 20-23.
    read -r w h < <(od -An -tu1 -j16 -N8 "$file" |
        awk '{ for (i = 1; i <= NF; i++) b[n++] = $i }
             END { print b[0]*16777216 + b[1]*65536 + b[2]*256 + b[3],
                         b[4]*16777216 + b[5]*65536 + b[6]*256 + b[7] }')
    if [ "$w" = "$want_w" ] && [ "$h" = "$want_h" ]; then
        pass "IHDR size ${w}x${h}"
    else
        fail "IHDR size ${w}x${h}, want ${want_w}x${want_h}"
    fi
    if [ "$size" -gt 5120 ]; then
        pass "file size $size bytes > 5120"
    else
        fail "file size $size bytes > 5120"
    fi
}

# run_tool ARGS...: one sdpa-var run, CSV on stdout.
run_tool() {
    "$BIN" "$@" --format csv --columns all
}

# run_dists ARGS...: one run per --dist, concatenated (each with its header),
# as fourth_moment.gp reads them; fails with the first run that fails.
run_dists() {
    local d
    for d in normal uniform rademacher t; do
        "$BIN" "$@" --dist "$d" --format csv --columns all || return
    done
}

# run_inits ARGS...: one run per --init, concatenated (each with its header),
# as projection_init.gp reads them; fails with the first run that fails.
run_inits() {
    local i
    for i in xavier lecun normal; do
        "$BIN" "$@" --init "$i" --format csv --columns all || return
    done
}

# run_kmeans ARGS...: one run per --k-mean, concatenated (each with its
# header), as input_moments.gp reads them; fails with the first run that fails.
run_kmeans() {
    local m
    for m in 0 1 2; do
        "$BIN" "$@" --k-mean "$m" --format csv --columns all || return
    done
}

# cat_perf: the benchmark table committed in docs/ (performance_scaling.gp
# plots what scripts/bench.sh measured, not a run of the tool).
cat_perf() {
    cat "$SRC/docs/performance_scaling.csv"
}

# weights_row.gp reads a row's weights, which scripts/figures.sh computes
# (sdpa-var's draw, numpy's softmax): the committed data.
cat_weights() {
    cat "$SRC/docs/figures/data/weights_row.csv"
}

# run_nks ARGS...: one --grad run per --nk, concatenated (each with its
# header), as gradient_signal.gp reads them; fails with the first that fails.
run_nks() {
    local n
    for n in 8 32; do
        "$BIN" "$@" --nk "$n" --format csv --columns all || return
    done
}

# run_qknorm ARGS...: one run without and one with --qk-norm, concatenated,
# as qk_norm.gp reads them; fails with the first run that fails.
run_qknorm() {
    "$BIN" "$@" --format csv --columns all && "$BIN" "$@" --qk-norm --format csv --columns all
}

# run_logits ARGS...: the CSV of --logits rows (it has no --columns).
run_logits() {
    "$BIN" "$@" --format csv
}

# render_from PRODUCER NAME WIDTH HEIGHT TOOL-ARGS...: one pipeline
# "PRODUCER TOOL-ARGS | gnuplot", then its checks.
render_from() {
    local producer=$1 name=$2 want_w=$3 want_h=$4
    shift 4
    local png="$OUTDIR/$name.png" err="$OUTDIR/$name.gnuplot.stderr"
    local codes
    rm -f "$png"
    if [ "$producer" = run_dists ]; then
        echo "$name: for d in normal uniform rademacher t; do $BIN $* --dist \$d --format csv --columns all; done | gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp"
    elif [ "$producer" = run_inits ]; then
        echo "$name: for i in xavier lecun normal; do $BIN $* --init \$i --format csv --columns all; done | gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp"
    elif [ "$producer" = run_kmeans ]; then
        echo "$name: for m in 0 1 2; do $BIN $* --k-mean \$m --format csv --columns all; done | gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp"
    elif [ "$producer" = run_nks ]; then
        echo "$name: for n in 8 32; do $BIN $* --nk \$n --format csv --columns all; done | gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp"
    elif [ "$producer" = run_qknorm ]; then
        echo "$name: for f in '' --qk-norm; do $BIN $* \$f --format csv --columns all; done | gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp"
    elif [ "$producer" = run_logits ]; then
        echo "$name: $BIN $* --format csv | gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp"
    elif [ "$producer" = cat_perf ]; then
        echo "$name: gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp < $SRC/docs/performance_scaling.csv"
    elif [ "$producer" = cat_weights ]; then
        echo "$name: gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp < $SRC/docs/figures/data/weights_row.csv"
    else
        echo "$name: $BIN $* --format csv --columns all | gnuplot -e \"out='$png'\" $SRC/scripts/$name.gp"
    fi
    # The `||` keeps set -e from ending the test at the first failure, and
    # PIPESTATUS, read first thing there, says which side failed.
    local csv="$OUTDIR/$name.csv"
    codes=(0 0 0)
    "$producer" "$@" | tee "$csv" |
        gnuplot -e "out='$png'" "$SRC/scripts/$name.gp" 2>"$err" || codes=("${PIPESTATUS[@]}")
    if [ "${codes[0]}" -eq 0 ] && [ "${codes[2]}" -eq 0 ]; then
        pass "pipeline exit status 0"
    else
        fail "pipeline exit status: sdpa-var ${codes[0]}, gnuplot ${codes[2]}"
    fi
    check_stderr "$err"
    check_png "$png" "$want_w" "$want_h"
    render_formats "$name" "$csv"
}

# check_stderr FILE: gnuplot said nothing.
check_stderr() {
    if [ -s "$1" ]; then
        fail "gnuplot stderr is empty; it holds:"
        sed 's/^/        | /' "$1"
    else
        pass "gnuplot stderr is empty"
    fi
}

# gp NAME CSV OPTIONS: run NAME.gp on CSV with -e OPTIONS, stderr to
# OUTDIR/NAME.gnuplot.stderr; report a non-zero exit.
gp() {
    local name=$1 csv=$2 opts=$3
    gnuplot -e "$opts" "$SRC/scripts/$name.gp" <"$csv" 2>"$OUTDIR/$name.gnuplot.stderr" ||
        fail "gnuplot -e \"$opts\" $name.gp exit status $?"
    check_stderr "$OUTDIR/$name.gnuplot.stderr"
}

# check_kind FILE KIND: `file` names KIND (PDF or SVG), the magic bytes
# agree, and the file is bigger than 5 KB.
check_kind() {
    local file=$1 kind=$2 size desc
    if [ ! -f "$file" ]; then
        fail "$file exists"
        return
    fi
    desc=$(file -b "$file")
    case "$kind:$desc" in
    PDF:PDF\ document*|SVG:SVG\ Scalable\ Vector\ Graphics*) pass "file: $desc" ;;
    *) fail "file says '$desc', want $kind" ;;
    esac
    if [ "$kind" = PDF ] && [ "$(head -c 5 "$file")" = "%PDF-" ]; then
        pass "starts with %PDF-"
    elif [ "$kind" = SVG ] && grep -q '<svg' "$file"; then
        pass "holds an <svg element"
    else
        fail "$file: magic bytes of $kind"
    fi
    size=$(wc -c <"$file")
    if [ "$size" -gt 5120 ]; then
        pass "file size $size bytes > 5120"
    else
        fail "file size $size bytes > 5120"
    fi
}

# render_formats NAME CSV: the slide-sized PNG, the PDF and the SVG.
render_formats() {
    local name=$1 csv=$2 f
    for f in "$name.slide.png" "$name.pdf" "$name.svg"; do rm -f "$OUTDIR/$f"; done
    echo "$name: slide png, pdf, svg from $csv"
    gp "$name" "$csv" "out='$OUTDIR/$name.slide.png'; size='1600,900'; fontscale=1.6"
    check_png "$OUTDIR/$name.slide.png" 1600 900
    gp "$name" "$csv" "out='$OUTDIR/$name.pdf'"
    check_kind "$OUTDIR/$name.pdf" PDF
    gp "$name" "$csv" "out='$OUTDIR/$name.svg'"
    check_kind "$OUTDIR/$name.svg" SVG
}

# render NAME WIDTH HEIGHT TOOL-ARGS...: one sdpa-var run into one script.
render() {
    render_from run_tool "$@"
}

# Sizes are each script's defaults (width, height at its top).
render variance_vs_dk 1000 700 --dk 1:256 --n 64 --trials 2
render softmax_vs_dk 1200 640 --dk 1:256 --n 64 --trials 2
render puzzle_histogram 1000 650 --dk 2 --n 2 --trials 20000 --per-trial
render scale_choices 1200 640 --dk 1:64 --n 32 --scale sqrt,dk,none
render_from run_nks gradient_signal 1500 640 --dk 1:256 --nq 32 --trials 2 --dv 8 --grad
render entropy_approx 1000 700 --dk 16 --n 64 --trials 2 --scale 0.0625,0.125,0.25,0.5,1
render_from run_dists fourth_moment 1000 700 --dk 1:16 --n 4 --trials 200
render_from run_inits projection_init 1000 700 --dk 4:32 --n 16 --d-model 32
render causal_rows 1200 640 --dk 16 --n 64 --trials 2 --causal --per-row
render score_histogram 1000 700 --dk 16 --n 64 --trials 2 --histogram 120
render output_variance 1000 700 --dk 1:64 --n 32 --trials 2 --values
render planted_key 1200 640 --dk 4:64 --n 32 --trials 2 --plant 0.5 --scale sqrt,dk
render_from run_kmeans input_moments 1200 640 --dk 4 --n 8 --trials 50 --q-mean 1
render_from run_qknorm qk_norm 1500 620 --dk 4:64 --n 32 --trials 4
render per_trial_histogram 1000 650 --dk 16 --n 8 --trials 2000 --per-trial
render_from cat_perf performance_scaling 1100 480
# The student figures of docs/figures.md, with the columns they read.
render variance_linear 1100 560 --dk 32,64,96 --n 16 --trials 2 \
    --columns dk,scale,n_q,n_k,trials,dist,raw_var,raw_var_theory,raw_var_sd_theory,scaled_var,scaled_var_theory,scaled_var_sd_theory
render entropy_vs_dk 1000 640 --dk 1:64 --n 32 --trials 2 \
    --columns dk,scale,n_q,n_k,trials,dist,raw_entropy,scaled_entropy
render_from cat_weights weights_row 1000 640
# The templates of --format gnuplot, fed the CSV (sdpa-var embeds the same
# text: tests/gnuplot/pipe_test.sh).
render sweep 1000 720 --dk 1:64 --n 32 --trials 2
render histogram 1000 1000 --dk 16 --n 64 --trials 2 --histogram 480
render_from run_logits logits 800 600 --logits 1,2,3 --logits -20,3,25 --dk 16 --scale none,sqrt

# terminal.gp: the extension picks the terminal; nothing else is guessed.
csv="$OUTDIR/variance_vs_dk.csv"
bad_out() {
    local opts=$1 msg=$2 file=$3 code=0
    echo "variance_vs_dk with -e \"$opts\": expect '$msg' and no $file"
    rm -f "$file"
    gnuplot -e "$opts" "$SRC/scripts/variance_vs_dk.gp" <"$csv" 2>"$OUTDIR/bad_out.stderr" || code=$?
    if [ "$code" -ne 0 ] && grep -q "$msg" "$OUTDIR/bad_out.stderr" && [ ! -e "$file" ]; then
        pass "gnuplot exit $code, '$msg', no file"
    else
        fail "gnuplot exit $code (want non-zero), $file $( [ -e "$file" ] && echo written || echo absent); stderr:"
        sed 's/^/        | /' "$OUTDIR/bad_out.stderr"
    fi
}
bad_out "out='$OUTDIR/fig.jpg'" "unknown extension 'jpg'" "$OUTDIR/fig.jpg"
bad_out "out='$OUTDIR/fig'" "unknown extension ''" "$OUTDIR/fig"
bad_out "term='svg'; out='$OUTDIR/svg_in.png'" "does not write a .png" "$OUTDIR/svg_in.png"
echo "variance_vs_dk with term='svg' and no out: expect variance_vs_dk.svg"
mkdir -p "$OUTDIR/svgdefault"
rm -f "$OUTDIR/svgdefault/variance_vs_dk.svg"
(cd "$OUTDIR/svgdefault" && gnuplot -e "term='svg'" "$SRC/scripts/variance_vs_dk.gp" <"$csv" 2>stderr) ||
    fail "gnuplot -e \"term='svg'\" exit status $?"
check_stderr "$OUTDIR/svgdefault/stderr"
check_kind "$OUTDIR/svgdefault/variance_vs_dk.svg" SVG

# puzzle_histogram.gp reads ddof: with --ddof 1 the expected line is d_k = 2.
echo "puzzle_histogram with --ddof 1: expect 'E[s^2] = d_k(N-1)/(N-1) = 2' in the SVG"
"$BIN" --dk 2 --n 2 --trials 2000 --per-trial --ddof 1 --format csv --columns all >"$OUTDIR/ddof1.csv"
gp puzzle_histogram "$OUTDIR/ddof1.csv" "out='$OUTDIR/ddof1.svg'"
if grep -q '(N-1)/(N-1) = 2' "$OUTDIR/ddof1.svg" && grep -q 'ddof 1' "$OUTDIR/ddof1.svg"; then
    pass "expected line E[s^2] = 2 for ddof 1"
else
    fail "expected line for ddof 1: $(grep -o 'expected E[^<]*<[^<]*<[^<]*' "$OUTDIR/ddof1.svg" | head -1)"
fi

# fourth_moment.gp drops repeated headers only if they are the same line:
# runs with different columns (one with --observed) must stop it with an
# error on stderr and no PNG.
echo "fourth_moment with different headers: expect an error and no PNG"
rm -f "$OUTDIR/mixed_headers.png"
codes=(0 0)
{ "$BIN" --dk 1:4 --n 4 --trials 20 --format csv --columns all &&
    "$BIN" --dk 1:4 --n 4 --trials 20 --observed 3 --format csv --columns all; } |
    gnuplot -e "out='$OUTDIR/mixed_headers.png'" "$SRC/scripts/fourth_moment.gp" \
        2>"$OUTDIR/mixed_headers.stderr" || codes=("${PIPESTATUS[@]}")
if [ "${codes[0]}" -eq 0 ] && [ "${codes[1]}" -ne 0 ] &&
    grep -q "different headers" "$OUTDIR/mixed_headers.stderr" &&
    [ ! -e "$OUTDIR/mixed_headers.png" ]; then
    pass "gnuplot fails with 'different headers' and writes no PNG"
else
    fail "gnuplot exit ${codes[1]} (want non-zero), PNG $( [ -e "$OUTDIR/mixed_headers.png" ] && echo written || echo absent); stderr:"
    sed 's/^/        | /' "$OUTDIR/mixed_headers.stderr"
fi

# refuse NAME WHAT MESSAGE TOOL-ARGS...: NAME.gp given the CSV of one run
# that is not its input must exit non-zero with MESSAGE on stderr and write
# no PNG.
refuse() {
    local name=$1 what=$2 msg=$3
    shift 3
    local png="$OUTDIR/refuse_$name.png" err="$OUTDIR/refuse_$name.stderr"
    local codes=(0 0)
    echo "$name given $what: expect an error and no PNG"
    rm -f "$png"
    "$BIN" "$@" --format csv --columns all |
        gnuplot -e "out='$png'" "$SRC/scripts/$name.gp" 2>"$err" || codes=("${PIPESTATUS[@]}")
    if [ "${codes[0]}" -eq 0 ] && [ "${codes[1]}" -ne 0 ] && grep -q "$msg" "$err" && [ ! -e "$png" ]; then
        pass "gnuplot fails with '$msg' and writes no PNG"
    else
        fail "gnuplot exit ${codes[1]} (want non-zero), PNG $( [ -e "$png" ] && echo written || echo absent); stderr:"
        sed 's/^/        | /' "$err"
    fi
}
refuse score_histogram "a --weight-histogram" "weight-histogram" --dk 16 --n 16 --histogram 10 --weight-histogram
refuse projection_init "a run without --d-model" "not from --d-model" --dk 4:8 --n 8

# The default output name, written to the current directory.
echo "variance_vs_dk without out=: expect variance_vs_dk.png in the current directory"
mkdir -p "$OUTDIR/default"
rm -f "$OUTDIR/default/variance_vs_dk.png"
codes=(0 0)
"$BIN" --dk 1:8 --n 16 --format csv --columns all |
    (cd "$OUTDIR/default" && gnuplot "$SRC/scripts/variance_vs_dk.gp") \
        2>"$OUTDIR/default/gnuplot.stderr" || codes=("${PIPESTATUS[@]}")
if [ "${codes[0]}" -eq 0 ] && [ "${codes[1]}" -eq 0 ] && [ ! -s "$OUTDIR/default/gnuplot.stderr" ]; then
    pass "pipeline exit status 0, gnuplot stderr empty"
else
    fail "pipeline exit status: sdpa-var ${codes[0]}, gnuplot ${codes[1]}; gnuplot stderr:"
    sed 's/^/        | /' "$OUTDIR/default/gnuplot.stderr"
fi
check_png "$OUTDIR/default/variance_vs_dk.png" 1000 700

echo "render_test: figures in $OUTDIR"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
