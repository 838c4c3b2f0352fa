# variance_vs_dk.gp: score variance against d_k, raw QK^T and scaled QK^T/sqrt(d_k).
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 1:1024 --n 1111 --format csv --columns all | gnuplot scripts/variance_vs_dk.gp
#   build/sdpa-var --dk 1:1024 --n 64 --trials 20 --format csv --columns all \
#       | gnuplot -e "out='variance.png'" scripts/variance_vs_dk.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default variance_vs_dk.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,700
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows (log-log): the per-d_k mean over trials of the sample variance
# of all n_q*n_k scores (points), against the theory Var(q.k) = d_k for raw
# scores and 1 for scaled ones (lines).  Error bars are +-1 standard error of
# the plotted mean, raw_var_sd_theory/sqrt(trials), from the closed form (so
# they show what the spread should be, not what this run happened to get).
# They are visible only at small d_k, where a dot product is a sum of few
# heavy-tailed terms and scores sharing a query or key move together; they
# shrink with d_k, n_q, n_k and trials.
#
# Columns are read by name (column("raw_var")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# `load '< cmd'` runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "variance_vs_dk.gp: pipe the summary CSV of sdpa-var --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 2) {
    exit error "variance_vs_dk.gp: need the header and at least 1 data row of the summary CSV of sdpa-var --format csv on standard input"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scale raw_var raw_var_theory raw_var_sd_theory scaled_var scaled_var_theory scaled_var_sd_theory"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("variance_vs_dk.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --format csv", c)
    }
}

# The scale from the data, never assumed: --scale dk plots 1/d_k, not 1.
stats $D every ::0::0 using (scale = strcol("scale"), 0) nooutput
n_other = 0
stats $D using (n_other = n_other + (strcol("scale") ne scale ? 1 : 0), 0) nooutput
if (n_other > 0) {
    exit error "variance_vs_dk.gp: the input mixes several scales; run sdpa-var with one --scale"
}
scaled_label = (scale eq "sqrt" ? "QK^T/√d_k" : scale eq "dk" ? "QK^T/d_k" : \
    scale eq "none" ? "QK^T (scale 1)" : sprintf("%s·QK^T", scale))
scaled_theory = (scale eq "sqrt" ? "1" : scale eq "dk" ? "1/d_k" : \
    scale eq "none" ? "d_k" : sprintf("%s^2·d_k", scale))

stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), dist = strcol("dist"), 0) nooutput
stats $D using (column("raw_var")) nooutput
v_max = STATS_max
stats $D using (column("scaled_var")) nooutput
v_min = STATS_min

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "variance_vs_dk"; default_width = 1000; default_height = 700
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- axes -------------------------------------------------------------------
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
set title sprintf("Score variance vs d_k\n{/*0.8 n_q = %d queries, n_k = %d keys, %s entries, %s per d_k}", \
    nq, nk, dist, per_dk)
set logscale xy 2
set format x "%g"
set format y "%g"
set xtics 2
set ytics 4
set xlabel "key dimension d_k"
set ylabel "sample variance of the scores"
# Half an octave of margin so the end points are not on the frame.
set xrange [dk_min / 1.4 : dk_max * 1.4]
ylo = (v_min < 1 && v_min > 0 ? v_min : 1) / 2   # v_min is 0 only when N = 1
yhi = (v_max > dk_max ? v_max : dk_max) * 2
set yrange [ylo : yhi]
set grid xtics ytics lc rgb "#dddddd" lt 1
set key top left box opaque spacing 1.3 width 1
set border back

# Error bar bounds for log axes: never below half the value (the lower bound
# of y - SE can be <= 0 only for tiny n_q*n_k, where it would not draw).
se(sdcol) = column(sdcol) / sqrt(column("trials"))
lo(y, e) = (y - e > y / 2 ? y - e : y / 2)

plot $D using (column("dk")):(column("raw_var_theory")) \
        with lines lc rgb "#d62728" dt 2 title "theory, raw: Var(q·k) = d_k", \
     $D using (column("dk")):(column("scaled_var_theory")) \
        with lines lc rgb "#1f77b4" dt 2 title "theory, scaled: ".scaled_theory, \
     $D using (column("dk")):(column("raw_var")) \
           :(lo(column("raw_var"), se("raw_var_sd_theory"))) \
           :(column("raw_var") + se("raw_var_sd_theory")) \
        with yerrorbars pt 7 ps 1.3 lc rgb "#d62728" title "raw scores QK^T", \
     $D using (column("dk")):(column("scaled_var")) \
           :(lo(column("scaled_var"), se("scaled_var_sd_theory"))) \
           :(column("scaled_var") + se("scaled_var_sd_theory")) \
        with yerrorbars pt 5 ps 1.2 lc rgb "#1f77b4" title "scaled scores ".scaled_label

if (interactive) { pause mouse close }
