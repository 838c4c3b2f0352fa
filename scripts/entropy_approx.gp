# entropy_approx.gp: softmax entropy vs logit variance, measured and its small-variance approximation.
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 64 --n 1024 --trials 4 \
#       --scale 0.015625,0.03125,0.0625,0.0883883,0.125,0.176777,0.25,0.353553,0.5,0.707107,1 --format csv --columns all \
#       | gnuplot scripts/entropy_approx.gp
#   ... | gnuplot -e "out='docs/figures/entropy_approx.png'" scripts/entropy_approx.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default entropy_approx.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,700
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#   tolerance=0.1    shade where |approximation - measured| > tolerance x measured
#
# Each row of the input is one scale c (a number in --scale): the
# "scaled" logits c QK^T have variance sigma^2 = c^2 d_k, the column
# scaled_var_theory, which is the x axis (log scale).  Against it:
#   * scaled_entropy: the measured softmax entropy of a query row over the n_k
#     keys, mean over rows and trials (points), and the band from the
#     smallest to the largest row entropy over all rows of all trials
#     (scaled_entropy_min, scaled_entropy_max);
#   * ln n_k - sigma^2/2, the second-order expansion of the entropy for small
#     sigma^2 (an unsaturated softmax), computed here at every sigma^2
#     (dashed), and the column scaled_entropy_approx over it (solid), which
#     the tool prints only where the expansion holds (sigma^2 <= 1, n_k >= 16;
#     nan elsewhere).  It tracks the measurement for small sigma^2 and fails
#     once the softmax saturates; it even goes below 0, which no entropy can.
#   * ln n_k (uniform attention) and 0 (one-hot attention), dashed.
# The shaded region starts at the smallest sigma^2 at which the approximation
# is off by more than `tolerance` (10 %) of the measured mean entropy.  If the
# approximation falls below the plot, a label gives its lowest value.
#
# The approximation uses the expected variance of the logits within one row.
# For zero-mean keys (the default) that is scaled_var_theory, the x axis;
# with a nonzero --k-mean it is smaller (the offset that all keys of a row
# share cancels in the softmax), so such runs do not belong in this plot.
#
# The rows should come in order of sigma^2 (increasing or decreasing, as a
# --scale list in order gives them), from one n_k; the lines join rows in
# input order.  Columns are read by name, so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "entropy_approx.gp: pipe the summary CSV of sdpa-var --scale LIST --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 2) {
    exit error "entropy_approx.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --scale LIST"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scaled_var_theory scaled_entropy scaled_entropy_min scaled_entropy_max scaled_entropy_approx"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("entropy_approx.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --scale LIST", c)
    }
}

# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (dk = column("dk"), nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), dist = strcol("dist"), 0) nooutput
stats $D using (column("n_k")) nooutput
if (STATS_min != STATS_max) {
    exit error "entropy_approx.gp: the input mixes several n_k; run sdpa-var with one --n (or --nk)"
}
stats $D using (column("dk")) nooutput
dk_label = (STATS_min == STATS_max ? sprintf("d_k = %d", dk) : "several d_k")
stats $D using (column("scaled_var_theory")) nooutput
x_min = STATS_min
x_max = STATS_max
if (x_min <= 0) {
    exit error "entropy_approx.gp: a logit variance (scaled_var_theory) is 0, which a log axis cannot show"
}
# The tool prints scaled_entropy_approx only where the approximation is known
# to hold (sigma^2 <= 1, n_k >= 16; nan elsewhere, docs/theory.md 8.7), so
# the script computes ln n_k - sigma^2/2 itself at every sigma^2 to show where
# it fails, and draws the printed column over it.
approx(x) = log(nk) - x / 2
stats $D using (approx(column("scaled_var_theory"))) nooutput
a_min = STATS_min
if (!exists("tolerance")) tolerance = 0.1
# The smallest sigma^2 where the approximation is off by more than the
# tolerance (none: x_off stays above every sigma^2), and where the
# approximation is lowest.
x_off = 2 * x_max
off(a, h) = abs(a - h) > tolerance * abs(h)
stats $D using (x = column("scaled_var_theory"), \
    (off(approx(x), column("scaled_entropy")) && x < x_off ? x_off = x : 0), \
    (approx(x) == a_min ? x_amin = x : 0), 0) nooutput
per_row = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "entropy_approx"; default_width = 1000; default_height = 700
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- axes -------------------------------------------------------------------
ceiling = log(nk)
e_top = (ceiling > 0 ? ceiling : 1)     # ln n_k is 0 when n_k = 1
set title sprintf("Softmax entropy vs logit variance σ^2 = c^2 d_k: measured and ln n_k − σ^2/2\n{/*0.8 %s, n_q = %d queries, n_k = %d keys, %s entries, %s per scale c}", \
    dk_label, nq, nk, dist, per_row)
set logscale x 2
set format x "%g"
xlo = x_min / 1.4
xhi = x_max * 1.4
set xrange [xlo : xhi]
set xtics 4 ** floor(log(xlo) / log(4)), 4   # powers of 4
y_lo = -0.25 * e_top
set yrange [y_lo : e_top * 1.1]
set xlabel "variance of the logits σ^2 = c^2 d_k (scaled\\_var\\_theory)"
set ylabel "softmax entropy per query (nats)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set samples 2          # the reference lines are constants
# The key in the empty middle left: above it the curves start at ln n_k,
# below it is the label of the approximation's lowest value.
set key at graph 0.02, graph 0.68 left top box opaque spacing 1.3 width 1 samplen 2

# Where the approximation is off by more than the tolerance: shaded.
if (x_off <= x_max) {
    set object 1 rect from x_off, graph 0 to graph 1, graph 1 behind \
        fillcolor rgb "#fde0dd" fillstyle solid 1.0 noborder
    set label 1 sprintf("approximation off by\nmore than %g %% for σ^2 ≥ %.3g", 100 * tolerance, x_off) \
        at graph 0.98, graph 0.87 right front textcolor rgb "#b2182b"
}
# Where the approximation leaves the plot: its lowest value.
if (a_min < y_lo) {
    set label 2 sprintf("below the plot, the approximation reaches %.4g at σ^2 = %.3g", a_min, x_amin) \
        at graph 0.02, graph 0.05 left front textcolor rgb "#2ca02c"
}

plot ceiling with lines lc rgb "#555555" dt 2 \
        title sprintf("uniform attention: ln n_k = %.3f", ceiling), \
     0 with lines lc rgb "#555555" dt 3 title "one-hot attention: 0", \
     $D using (column("scaled_var_theory")):(column("scaled_entropy_min")):(column("scaled_entropy_max")) \
        with filledcurves fillcolor rgb "#1f77b4" fillstyle transparent solid 0.15 noborder \
        title "measured: range over all rows", \
     $D using (column("scaled_var_theory")):(approx(column("scaled_var_theory"))) \
        with lines lw 2 dt 2 lc rgb "#2ca02c" title "approximation ln n_k − σ^2/2", \
     $D using (column("scaled_var_theory")):(column("scaled_entropy_approx")) \
        with lines lw 3 lc rgb "#2ca02c" title "as printed (scaled\\_entropy\\_approx)", \
     $D using (column("scaled_var_theory")):(column("scaled_entropy")) \
        with linespoints pt 7 ps 1.3 lc rgb "#1f77b4" title "measured: mean over rows"

if (interactive) { pause mouse close }
