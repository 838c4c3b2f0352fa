# score_histogram.gp: the distribution of the raw and the scaled scores, against N(0, d_k) and N(0, 1).
#
# Usage (reads the histogram CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 64 --n 1024 --trials 4 --histogram 960 --format csv --columns all \
#       | gnuplot scripts/score_histogram.gp
#   build/sdpa-var --dk 64 --n 1024 --trials 4 --histogram 960 --format csv --columns all \
#       | gnuplot -e "out='docs/figures/score_histogram.png'" scripts/score_histogram.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default score_histogram.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,700
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#   dk=64            d_k, for the labels and the scale of the scaled logits.
#                    Default: derived from the bins (see below), which is right
#                    for unit-variance entries of Q and K (the default options).
#   c=0.125          the scale the scaled logits were multiplied by, as
#                    PyTorch's scale= (default 1/sqrt(dk), the default
#                    --scale sqrt; give c=0.015625 for --scale dk with
#                    d_k = 64, c=1 for --scale none).
#
# The input is the CSV of sdpa-var --histogram BINS: one row per bin,
# bin_lo,bin_hi,raw_count,scaled_count.  The raw scores QK^T and the scaled
# logits c QK^T are counted on the SAME bins, which span +-6 theoretical
# standard deviations sigma of the raw scores.  So the script reads
# sigma = (largest bin_hi - smallest bin_lo)/12 off the bins, and for the
# default options sigma^2 = raw_var_theory = d_k: the default dk is sigma^2.
# Both histograms are drawn as densities, count / (total x bin width), where
# total is the larger of the two column sums: every score, unless some raw
# scores fell outside +-6 sigma (the tool does not count those; the scaled
# scores, 1/c >= 1 times narrower, fall inside unless the tails are heavy).
# If the raw column is short, a label says by how many (at least).
# Against them:
#   raw:    the normal density N(0, sigma^2), i.e. N(0, d_k) by default;
#   scaled: the normal density N(0, c^2 sigma^2), i.e. N(0, 1) by default.
# The scaled scores occupy the central bins only (+-5 or so of the +-48 for
# d_k = 64), so they are drawn in the bins' raw units.  The y axis is
# logarithmic, which shows the tails: a score is a sum of d_k products of
# two normals, not a normal, with excess kurtosis 6/d_k, so beyond about 3
# sigma there are more scores than N(0, d_k) predicts.
#
# Columns are read by name (column("raw_count")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "score_histogram.gp: pipe the CSV of sdpa-var --histogram BINS --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 3) {
    exit error "score_histogram.gp: need the header and 2 or more bins of the CSV of sdpa-var --histogram BINS"
}
header = "," . $D[1] . ","
do for [c in "bin_lo bin_hi raw_count scaled_count"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("score_histogram.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the CSV of sdpa-var --histogram BINS", c)
    }
}
stats $D using (column("bin_lo")) nooutput
x_lo = STATS_min
stats $D using (column("bin_hi")) nooutput
x_hi = STATS_max
if (x_lo >= 0) {
    exit error "score_histogram.gp: the bins start at 0: this is a --weight-histogram; pipe in sdpa-var --histogram BINS without it"
}
sigma = (x_hi - x_lo) / 12.0
stats $D using (column("bin_hi") - column("bin_lo")) nooutput
width_bin = STATS_mean
stats $D using (column("raw_count")) nooutput
raw_total = STATS_sum
stats $D using (column("scaled_count")) nooutput
scaled_total = STATS_sum
total = (raw_total > scaled_total ? raw_total : scaled_total)
if (total <= 0) {
    exit error "score_histogram.gp: every bin is empty"
}
outside = total - raw_total
if (!exists("dk")) dk = sigma ** 2
if (!exists("c"))  c = 1 / sqrt(dk)
if (c <= 0) {
    exit error "score_histogram.gp: c (the scale of the scaled logits) must be positive"
}
sigma_s = sigma * c

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "score_histogram"; default_width = 1000; default_height = 700
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

raw_colour = "#d62728"
scaled_colour = "#1f77b4"
# Density of one bin, drawn as a filled box from the bottom of the plot.  A
# log axis has no 0, so an empty bin is undefined and left out.
dens(col) = (column(col) > 0 ? column(col) / (total * width_bin) : NaN)
mid = "(0.5 * (column(\"bin_lo\") + column(\"bin_hi\")))"
normal(x, s) = exp(-0.5 * (x / s) ** 2) / (s * sqrt(2 * pi))
c_name = (abs(c * sqrt(dk) - 1) < 1e-9 ? "QK^T/√d_k" : abs(c * dk - 1) < 1e-9 ? "QK^T/d_k" : sprintf("%g·QK^T", c))

# ---- axes -------------------------------------------------------------------
set title sprintf("Distribution of the raw scores QK^T and the scaled logits %s\n{/*0.8 d_k = %g; %d scores on %d common bins of width %.3g spanning ±6σ = ±%.4g of the raw scores}", \
    c_name, dk, total, |$D| - 1, width_bin, 6 * sigma)
set xrange [x_lo : x_hi]
set xtics sigma
set format x "%g"
set mxtics 2
set logscale y 10
set format y "10^{%L}"
y_floor = 0.5 / (total * width_bin)      # below one score per bin
set yrange [y_floor : 1.6 * normal(0, sigma_s < sigma ? sigma_s : sigma)]
set xlabel sprintf("score (raw units; the raw scores have σ = %.4g, the scaled ones cσ = %.3g)", sigma, sigma_s)
set ylabel "density: count / (total × bin width)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
# Top left, where the raw tail is lowest: top right hid the scaled peak.
set key top left box opaque spacing 1.3 width 1 samplen 2 Left reverse
set samples 1000
if (outside > 0) {
    # total is itself short if some scaled scores fell outside too: a lower bound.
    set label 1 sprintf("at least %d raw scores (%.2g %%)\nfell outside ±6σ and are not counted", outside, 100.0 * outside / total) \
        at graph 0.02, graph 0.95 left front textcolor rgb raw_colour
}

set boxwidth width_bin absolute
set style fill transparent solid 0.45 noborder
plot $D using @mid:(dens("raw_count")) with boxes lc rgb raw_colour \
        title sprintf("raw QK^T (raw\\_count)"), \
     normal(x, sigma) with lines lc rgb "#7f0000" dt 2 \
        title sprintf("N(0, %.4g): d_k for unit-variance q, k", sigma ** 2), \
     $D using @mid:(dens("scaled_count")) with boxes lc rgb scaled_colour \
        title sprintf("scaled %s (scaled\\_count)", c_name), \
     normal(x, sigma_s) with lines lc rgb "#08306b" dt 2 \
        title sprintf("N(0, %.3g)", sigma_s ** 2)

if (interactive) { pause mouse close }
