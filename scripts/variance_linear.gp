# variance_linear.gp: score variance against d_k on linear axes, raw and scaled side by side.
#
# Usage (reads the summary CSV of one --scale from standard input, writes a PNG):
#   build/sdpa-var --dk 32,64,96,128,160,192,224,256 --n 256 --trials 4 \
#       --columns dk,scale,n_q,n_k,trials,dist,raw_var,raw_var_theory,raw_var_sd_theory,scaled_var,scaled_var_theory,scaled_var_sd_theory \
#       | gnuplot -e "out='variance_linear.png'" scripts/variance_linear.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default variance_linear.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1100,560
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp documents these)
#
# What it shows, on linear axes (variance_vs_dk.gp draws the same on log
# axes): (a) the sample variance of the raw scores QK^T, mean over trials
# (points, +-2 standard errors raw_var_sd_theory/sqrt(trials)), on the line
# of its theory raw_var_theory = d_k: a straight line through 0; (b) the
# same for the scaled scores, on its own y axis from 0 to 2: flat at
# scaled_var_theory (1 for the default --scale sqrt).  The scale is read
# from the data's scale column.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "variance_linear.gp: pipe the summary CSV of sdpa-var --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders
if (|$D| < 2) {
    exit error "variance_linear.gp: need the header and 1 or more rows of the summary CSV of sdpa-var"
}
header = "," . $D[1] . ","
do for [c in "dk scale n_q n_k trials dist raw_var raw_var_theory raw_var_sd_theory scaled_var scaled_var_theory scaled_var_sd_theory"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("variance_linear.gp: the input has no column '%s'; pipe in sdpa-var's summary CSV with it (--columns)", c)
    }
}
stats $D every ::0::0 using (scale = strcol("scale"), nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), dist = strcol("dist"), 0) nooutput
stats $D using (strcol("scale") eq scale ? 0 : 1) nooutput
if (STATS_max > 0) {
    exit error "variance_linear.gp: the input mixes several --scale choices; run sdpa-var with one"
}
stats $D using (column("dk")) nooutput
dk_max = STATS_max
stats $D using (column("raw_var")) nooutput
raw_max = STATS_max
stats $D using (column("scaled_var_theory")) nooutput
theory_max = STATS_max
theory_name = (STATS_min == STATS_max ? sprintf("theory: %g", STATS_min) : "theory (scaled\\_var\\_theory)")

script = "variance_linear"; default_width = 1100; default_height = 560
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

scaled_name = (scale eq "sqrt" ? "QK^T/√d_k" : scale eq "dk" ? "QK^T/d_k" \
    : scale eq "none" ? "QK^T (--scale none)" : sprintf("%s·QK^T", scale))
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
se(col) = 2 * column(col) / sqrt(trials)

set multiplot layout 1, 2 title sprintf("Variance of the scores against d_k, linear axes: raw grows like d_k, scaled stays at its theory\n{/*0.8 n_q = %d, n_k = %d, %s entries, %s per d_k; bars ±2 standard errors}", \
    nq, nk, dist, per_dk)
set xrange [0 : dk_max * 1.05]
set xtics 0, (dk_max > 256 ? 128 : 64)
set xlabel "key dimension d_k"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set key top left box opaque Left reverse samplen 2 spacing 1.2
set bars small

set title "(a) raw scores QK^T"
set ylabel "sample variance of the scores"
set yrange [0 : raw_max * 1.1]
set ytics autofreq
plot $D using (column("dk")):(column("raw_var_theory")) with lines lw 1.5 dt 2 lc rgb "#d62728" title "theory: Var(q·k) = d_k", \
     $D using (column("dk")):(column("raw_var")):(se("raw_var_sd_theory")) with yerrorbars pt 7 ps 0.9 lc rgb "#d62728" title "measured"

set title sprintf("(b) scaled scores %s", scaled_name)
set ylabel "sample variance of the scores"
set yrange [0 : (theory_max > 1 ? 2 * theory_max : 2)]
set ytics 0, 0.25
plot $D using (column("dk")):(column("scaled_var_theory")) with lines lw 1.5 dt 2 lc rgb "#1f77b4" title theory_name, \
     $D using (column("dk")):(column("scaled_var")):(se("scaled_var_sd_theory")) with yerrorbars pt 5 ps 0.9 lc rgb "#1f77b4" title "measured"
unset multiplot
if (interactive) { pause mouse close }
