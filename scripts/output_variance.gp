# output_variance.gp: the variance of the attention output softmax(S) V vs d_k, raw and scaled.
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 1:4096 --n 256 --trials 4 --values --format csv --columns all \
#       | gnuplot scripts/output_variance.gp
#   build/sdpa-var --dk 1:4096 --n 256 --trials 4 --values --format csv --columns all \
#       | gnuplot -e "out='docs/figures/output_variance.png'" scripts/output_variance.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default output_variance.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,700
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# The input is the summary CSV of sdpa-var --values (or --dv N), one row per
# d_k, from one n_k and one --scale.  V (n_k x d_v) has independent entries
# of mean 0 and variance 1, and the output is O = softmax(S) V.  Against d_k
# (log-log):
#   points: raw_out_var and scaled_out_var, the mean of O^2 over the n_q d_v
#           entries of O (and over trials), for S = QK^T and S = c QK^T;
#   lines:  raw_out_var_theory and scaled_out_var_theory, the mean over rows
#           of sum_j p_j^2 = 1 - (trace of the softmax Jacobian), which is
#           E[O^2] given the weights p (docs/theory.md section 8.7).
# Two limits, dashed: 1, when attention is one-hot and copies one value,
# and 1/n_k, when it is uniform and averages all n_k values.  Dotted:
# e^{sigma^2}/n_k with sigma^2 = scaled_var_theory, what sum p^2 is for n_k
# iid normal logits of variance sigma^2 (lognormal weights, large n_k); it is
# drawn where sigma^2 <= 2, i.e. for the scaled logits under sqrt or d_k.
# With the default d_v = d_k the mean of O^2 at small d_k averages over few
# columns of V, so its points scatter around the line; --dv 64 fixes that.
#
# Columns are read by name (column("raw_out_var")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "output_variance.gp: pipe the summary CSV of sdpa-var --values --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 2) {
    exit error "output_variance.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --values"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scale d_v scaled_var_theory raw_out_var raw_out_var_theory scaled_out_var scaled_out_var_theory"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("output_variance.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --values", c)
    }
}
# Without --values the output columns are nan (and d_v too).  Count such
# rows by the text of d_v: column() of a nan makes gnuplot drop the row
# with a warning on stderr.
no_values = 0
is_nan(t) = (t eq "nan" || t eq "-nan" || t eq "")
stats $D using (no_values = no_values + (is_nan(strcol("d_v")) ? 1 : 0), 0) nooutput
if (no_values > 0) {
    exit error "output_variance.gp: the rows have no d_v: run sdpa-var with --values (or --dv N)"
}
stats $D using (column("d_v")) nooutput
dv_label = (STATS_min == STATS_max ? sprintf("d_v = %d", STATS_min) : "d_v = d_k")
stats $D using (column("n_k")) nooutput
if (STATS_min != STATS_max) {
    exit error "output_variance.gp: the input mixes several n_k; run sdpa-var with one --n (or --nk)"
}
nk = STATS_min
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (nq = column("n_q"), trials = column("trials"), \
    dist = strcol("dist"), scale = strcol("scale"), 0) nooutput
n_other = 0
stats $D using (n_other = n_other + (strcol("scale") ne scale ? 1 : 0), 0) nooutput
if (n_other > 0) {
    exit error "output_variance.gp: the input mixes several scales; run sdpa-var with one --scale"
}
stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
v_min = 1.0 / nk
do for [c in "raw_out_var raw_out_var_theory scaled_out_var scaled_out_var_theory"] {
    stats $D using (column(c)) nooutput
    v_min = (STATS_min < v_min ? STATS_min : v_min)
}
if (v_min <= 0) {
    exit error "output_variance.gp: an output variance is 0, which a log axis cannot show"
}
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
scaled_by = (scale eq "sqrt" ? "QK^T/√d_k" : scale eq "dk" ? "QK^T/d_k" : scale eq "none" ? "QK^T" : scale . "·QK^T")

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "output_variance"; default_width = 1000; default_height = 700
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

raw_colour = "#d62728"
scaled_colour = "#1f77b4"
ref_colour = "#555555"
# e^{sigma^2}/n_k where the small-variance picture holds.
lognormal(s2) = (s2 <= 2 ? exp(s2) / nk : NaN)

# ---- axes -------------------------------------------------------------------
set title sprintf("Variance of the attention output O = softmax(S) V, V of unit variance\n{/*0.8 n_q = %d queries, n_k = %d keys, %s, %s entries, %s per d_k}", \
    nq, nk, dv_label, dist, per_dk)
set logscale x 2
set logscale y 10
set format x "%g"
set xtics 4
set xrange [dk_min / 1.4 : dk_max * 1.4]
set format y "%g"
ylo = v_min / 2.0
set yrange [ylo : 2.5]
set ytics 10
set mytics 10
set xlabel "key dimension d_k"
set ylabel "mean of O^2 (raw\\_out\\_var, scaled\\_out\\_var)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
# The key in the empty middle right, below the raw curve once it has
# saturated and above the scaled one.
# Below the plot: inside, it hid the raw curve at d_k = 8..16.
set key below box maxrows 2 spacing 1.2 width 1 samplen 2 Left reverse
set samples 2          # the reference lines are constants
set label 1 "one-hot: copies one value, 1" at graph 0.98, first 1 offset 0, 0.8 right front textcolor rgb ref_colour
set label 2 sprintf("uniform: averages all n_k values, 1/n_k = %.3g", 1.0 / nk) \
    at graph 0.98, first 1.0 / nk offset 0, -0.8 right front textcolor rgb ref_colour

plot 1 with lines lc rgb ref_colour dt 2 notitle, \
     1.0 / nk with lines lc rgb ref_colour dt 2 notitle, \
     $D using (column("dk")):(lognormal(column("scaled_var_theory"))) \
        with lines lc rgb scaled_colour dt 3 title "lognormal weights: e^{σ^2}/n_k", \
     $D using (column("dk")):(column("raw_out_var_theory")) \
        with lines lc rgb raw_colour notitle, \
     $D using (column("dk")):(column("scaled_out_var_theory")) \
        with lines lc rgb scaled_colour notitle, \
     $D using (column("dk")):(column("raw_out_var")) \
        with points pt 7 ps 1.3 lc rgb raw_colour title "raw QK^T", \
     $D using (column("dk")):(column("scaled_out_var")) \
        with points pt 5 ps 1.3 lc rgb scaled_colour title sprintf("scaled %s", scaled_by), \
     keyentry with lines lc rgb ref_colour title "lines: theory mean Σp^2 = 1 − tr J"

if (interactive) { pause mouse close }
