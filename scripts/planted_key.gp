# planted_key.gp: each query has one related key; its logit and weight vs d_k under 1/sqrt(d_k) and 1/d_k (muP).
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 4:4096 --n 256 --trials 2 --plant 0.5 --scale sqrt,dk --format csv --columns all \
#       | gnuplot scripts/planted_key.gp
#   build/sdpa-var --dk 4:4096 --n 256 --trials 2 --plant 0.5 --scale sqrt,dk --format csv --columns all \
#       | gnuplot -e "out='docs/figures/planted_key.png'" scripts/planted_key.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default planted_key.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1200,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# The input holds one row per (scale, d_k) of sdpa-var --plant RHO, RHO > 0:
# key i = RHO q_i + sqrt(1 - RHO^2) z, so query i has one related key, key i
# (the "diagonal").  Each distinct value of the `scale` column (sqrt, dk,
# none or a number c) becomes one line in both panels, in the colours of
# scale_choices.gp; the "scaled" columns are the logits c QK^T.
#   left:  the planted logit c q_i.k_i, mean over the queries:
#          scaled_diag_logit (points) and its theory scaled_diag_logit_theory
#          = c RHO d_k (lines; log-log): RHO sqrt(d_k) for sqrt, RHO for
#          dk, RHO d_k for none.
#   right: the softmax weight on the planted key, scaled_diag_weight (mean
#          over queries and trials), against uniform attention 1/n_k (dashed).
# The planted logit is a coherent sum: it grows like d_k, while the other
# logits are sums of d_k random signs and grow like sqrt(d_k).  Under
# 1/sqrt(d_k) the planted logit therefore grows like sqrt(d_k) and attention
# collapses onto the planted key as d_k grows; under muP's 1/d_k it stays
# RHO at every width.
#
# Columns are read by name (column("scaled_diag_logit")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "planted_key.gp: pipe the summary CSV of sdpa-var --plant RHO --scale sqrt,dk --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 2) {
    exit error "planted_key.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --plant RHO"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scale plant scaled_diag_logit scaled_diag_logit_theory scaled_diag_weight"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("planted_key.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --plant RHO", c)
    }
}
stats $D using (column("plant")) nooutput
if (!(STATS_min > 0)) {
    exit error "planted_key.gp: needs rows of sdpa-var --plant RHO with RHO > 0 (the planted logit is drawn on a log axis)"
}
if (STATS_min != STATS_max) {
    exit error "planted_key.gp: the input mixes several --plant values; one figure per RHO"
}
rho = STATS_min
stats $D using (column("n_k")) nooutput
if (STATS_min != STATS_max) {
    exit error "planted_key.gp: the input mixes several n_k; run sdpa-var with one --n (or --nk)"
}
nk = STATS_min
stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (nq = column("n_q"), trials = column("trials"), dist = strcol("dist"), 0) nooutput
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
# The distinct scale choices, in the order they first appear.
scales = " "
stats $D using (s = strcol("scale"), \
    (strstrt(scales, " " . s . " ") == 0 ? scales = scales . s . " " : 0), 0) nooutput
n_scales = words(scales)
stats $D using (column("scaled_diag_logit")) nooutput
l_min = STATS_min
l_max = STATS_max
stats $D using (column("scaled_diag_logit_theory")) nooutput
l_min = (STATS_min < l_min ? STATS_min : l_min)
l_max = (STATS_max > l_max ? STATS_max : l_max)
if (l_min <= 0) {
    exit error "planted_key.gp: a mean planted logit is <= 0, which a log axis cannot show (use a larger RHO or more queries)"
}

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "planted_key"; default_width = 1200; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- one colour, marker and legend title per scale choice (as scale_choices.gp) ---
other_colours = "#9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #ff7f0e"
colour(s, i) = (s eq "sqrt" ? "#1f77b4" : s eq "dk" ? "#2ca02c" : s eq "none" ? "#d62728" \
    : word(other_colours, (i - 1) % words(other_colours) + 1))
marker(s) = (s eq "sqrt" ? 5 : s eq "dk" ? 9 : s eq "none" ? 7 : 13)
name(s) = (s eq "sqrt" ? "sqrt: QK^T/√d_k" : s eq "dk" ? "dk: QK^T/d_k (muP)" \
    : s eq "none" ? "none: QK^T unscaled" : sprintf("%s: %s·QK^T", s, s))
# Rows of one scale only; the others are undefined and are skipped.
of(s, col) = (strcol("scale") eq s ? column(col) : NaN)

# ---- layout shared by both panels -------------------------------------------
set multiplot title sprintf("A planted key: key i = ρ q_i + √(1 − ρ^2) z with ρ = %g, vs d_k\n{/*0.8 n_q = %d queries, n_k = %d keys, %s entries, %s per (scale, d_k)}", \
    rho, nq, nk, dist, per_dk)
set logscale x 2
set format x "%g"
set xtics 4
set xrange [dk_min / 1.4 : dk_max * 1.4]
set xlabel "key dimension d_k"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set tmargin at screen 0.86
set bmargin at screen 0.24
unset key

# ---- left: the planted logit ------------------------------------------------
set lmargin at screen 0.08
set rmargin at screen 0.47
set logscale y 2
set format y "%g"
set yrange [l_min / 2.0 : l_max * 2.0]
set ytics 2
set ylabel "planted logit c·q_i·k_i, mean over queries"
plot for [i = 1:n_scales] $D using (of(word(scales, i), "dk")):(of(word(scales, i), "scaled_diag_logit_theory")) \
        with lines lc rgb colour(word(scales, i), i) notitle, \
     for [i = 1:n_scales] $D using (of(word(scales, i), "dk")):(of(word(scales, i), "scaled_diag_logit")) \
        with points pt marker(word(scales, i)) ps 1.2 lc rgb colour(word(scales, i), i) notitle

# ---- right: the weight on the planted key ----------------------------------------
# Log scale, so that a weight a little above uniform 1/n_k shows.
set lmargin at screen 0.57
set rmargin at screen 0.97
set logscale y 10
set format y "%g"
set ytics 10
set mytics 10
set yrange [0.5 / nk : 2]
set ylabel "softmax weight on the planted key"
set label 1 sprintf("uniform attention: 1/n_k = %.3g", 1.0 / nk) \
    at graph 0.98, first 1.0 / nk offset 0, -0.9 right front textcolor rgb "#555555"
set samples 2          # the reference line is a constant
plot 1.0 / nk with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_scales] $D using (of(word(scales, i), "dk")):(of(word(scales, i), "scaled_diag_weight")) \
        with linespoints pt marker(word(scales, i)) ps 1.2 lc rgb colour(word(scales, i), i) notitle

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
     for [i = 1:n_scales] keyentry with linespoints pt marker(word(scales, i)) ps 1.2 \
        lc rgb colour(word(scales, i), i) title name(word(scales, i)), \
     keyentry with lines lc rgb "#555555" title "left, lines: theory cρd_k"

unset multiplot
if (interactive) { pause mouse close }
