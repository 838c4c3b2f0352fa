# gradient_signal.gp: the softmax Jacobian ("gradient signal") vs d_k, raw QK^T and scaled.
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 1:4096 --n 512 --trials 4 --format csv \
#       | gnuplot scripts/gradient_signal.gp
#   build/sdpa-var --dk 1:4096 --n 512 --trials 4 --format csv \
#       | gnuplot -e "out='docs/figures/gradient_signal.png'" scripts/gradient_signal.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default gradient_signal.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1200,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows, against d_k, log-log, for J = diag(p) - p p^T, the Jacobian
# of the softmax p of one query row over the n_k keys (mean over rows and
# trials).  A gradient reaching the logits is the upstream gradient times J,
# so a J near 0 passes almost nothing back: "vanishing gradients" in numbers.
#   left:  trace J = 1 - sum p_j^2 (raw_jac_trace, scaled_jac_trace).  It is
#          1 - 1/n_k for uniform attention and 0 for one-hot attention.
#   right: the Frobenius norm ||J||_F (raw_jac_frob, scaled_jac_frob).  It is
#          0 for one-hot attention, but also small, sqrt(n_k - 1)/n_k, for
#          uniform attention, and largest in between; so the raw curve first
#          rises (the softmax leaves uniform) and then falls (it saturates).
# Raw scores QK^T (variance d_k) drive both towards 0 as d_k grows; the scaled
# logits c QK^T (the run's --scale, default c = 1/sqrt(d_k)) keep them flat.
#
# The input must come from one --scale choice (one value in the `scale`
# column).  Columns are read by name (column("raw_jac_frob")), so the CSV may
# gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "gradient_signal.gp: pipe the summary CSV of sdpa-var --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 2) {
    exit error "gradient_signal.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --format csv"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scale raw_jac_trace scaled_jac_trace raw_jac_frob scaled_jac_frob"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("gradient_signal.gp: the input has no column '%s'; pipe in the summary CSV of sdpa-var --format csv", c)
    }
}

stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), dist = strcol("dist"), scale = strcol("scale"), 0) nooutput
stats $D using (strcol("scale") eq scale ? 0 : 1) nooutput
if (STATS_max > 0) {
    exit error "gradient_signal.gp: the input mixes several --scale choices; run sdpa-var with one"
}
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
scaled_name = (scale eq "sqrt" ? "scaled QK^T/√d_k" : scale eq "dk" ? "scaled QK^T/d_k" \
    : scale eq "none" ? "\"scaled\" with --scale none: QK^T" : sprintf("scaled %s·QK^T", scale))
# Lowest value on either panel, for the y ranges (log axes).
stats $D using (column("raw_jac_trace")) nooutput
t_min = STATS_min
stats $D using (column("scaled_jac_trace")) nooutput
t_min = (STATS_min < t_min ? STATS_min : t_min)
stats $D using (column("raw_jac_frob")) nooutput
f_min = STATS_min
f_max = STATS_max
stats $D using (column("scaled_jac_frob")) nooutput
f_min = (STATS_min < f_min ? STATS_min : f_min)
f_max = (STATS_max > f_max ? STATS_max : f_max)
uniform_trace = 1.0 - 1.0 / nk
uniform_frob = sqrt(nk - 1.0) / nk
if (nk < 2) {
    exit error "gradient_signal.gp: with n_k = 1 the softmax is constant and its Jacobian is 0; use --nk 2 or more"
}
if (t_min <= 0 || f_min <= 0) {
    exit error "gradient_signal.gp: a Jacobian statistic is 0 (one-hot softmax), which a log axis cannot show; use smaller d_k"
}

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "gradient_signal"; default_width = 1200; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- layout shared by both panels -------------------------------------------
# Margins are fixed in screen coordinates (as in softmax_vs_dk.gp), so both
# panels have the same size.  Raw and scaled have the same style in both
# panels and share one key, centred below them, where it covers no data: a
# key is only as wide as its own panel, so it gets a third, empty panel that
# spans the figure.
set multiplot title sprintf("Softmax Jacobian J = diag(p) − pp^T vs d_k: the gradient signal\n{/*0.8 n_q = %d queries, n_k = %d keys, %s entries, %s per d_k}", \
    nq, nk, dist, per_dk)
set logscale xy 2
set format x "%g"
set format y "%g"
set xtics 4
set xrange [dk_min / 1.4 : dk_max * 1.4]
set xlabel "key dimension d_k"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set samples 2          # the reference lines are constants
set tmargin at screen 0.86
set bmargin at screen 0.24
unset key
raw_style    = 'pt 7 ps 1.3 lc rgb "#d62728"'
scaled_style = 'pt 5 ps 1.2 lc rgb "#1f77b4"'
ref_style    = 'lc rgb "#555555" dt 2'

# ---- left: trace --------------------------------------------------------------
set lmargin at screen 0.08
set rmargin at screen 0.47
set ylabel "trace J = 1 − Σ p_j^2, mean over query rows"
lo = t_min / 1.6
set yrange [lo : 1.8]
set ytics 2 ** floor(log(lo) / log(2)), 2
set label 1 sprintf("uniform attention: 1 − 1/n_k = %.4f", uniform_trace) \
    at graph 0.02, first uniform_trace offset 0, 0.9 left front textcolor rgb "#555555"
plot uniform_trace with lines @ref_style notitle, \
     $D using (column("dk")):(column("raw_jac_trace")) with linespoints @raw_style notitle, \
     $D using (column("dk")):(column("scaled_jac_trace")) with linespoints @scaled_style notitle

# ---- right: Frobenius norm ------------------------------------------------------
set lmargin at screen 0.58
set rmargin at screen 0.97
set ylabel "Frobenius norm ‖J‖_F, mean over query rows"
lo = (f_min < uniform_frob ? f_min : uniform_frob) / 1.4
hi = f_max * 1.4
set yrange [lo : hi]
set ytics 2 ** floor(log(lo) / log(2)), 2
set label 1 sprintf("uniform attention: √(n_k − 1)/n_k = %.4f", uniform_frob) \
    at graph 0.02, first uniform_frob offset 0, 0.9 left front textcolor rgb "#555555"
plot uniform_frob with lines @ref_style notitle, \
     $D using (column("dk")):(column("raw_jac_frob")) with linespoints @raw_style notitle, \
     $D using (column("dk")):(column("scaled_jac_frob")) with linespoints @scaled_style notitle

# ---- the shared key, in an empty panel across the bottom ---------------------
unset label
unset logscale
unset border
unset tics
unset xlabel
unset ylabel
unset grid
set lmargin at screen 0.03
set rmargin at screen 0.97
set tmargin at screen 0.13
set bmargin at screen 0.03
set xrange [0 : 1]
set yrange [0 : 1]
set key center center horizontal maxrows 1 Left reverse samplen 2 width 1
plot -1 notitle, \
     keyentry with linespoints @raw_style title "raw QK^T", \
     keyentry with linespoints @scaled_style title scaled_name, \
     keyentry with lines @ref_style title "uniform attention"

unset multiplot
if (interactive) { pause mouse close }
