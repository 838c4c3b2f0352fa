# input_moments.gp: with nonzero means the scores of a trial are correlated, and E[s^2] falls below Var(S) by more than the ddof factor.
#
# Usage (reads summary CSVs from standard input, writes a PNG):
#   for m in 0 0.25 0.5 0.75 1 1.25 1.5 1.75 2; do
#       build/sdpa-var --dk 16 --n 16 --trials 2000 --q-mean 1 --k-mean $m --format csv --columns all
#   done | gnuplot scripts/input_moments.gp
#   for m in 0 0.25 0.5 0.75 1 1.25 1.5 1.75 2; do
#       build/sdpa-var --dk 16 --n 16 --trials 2000 --q-mean 1 --k-mean $m --format csv --columns all
#   done | gnuplot -e "out='docs/figures/input_moments.png'" scripts/input_moments.gp
# The input is one or more summary CSVs of sdpa-var, concatenated: each run
# repeats the header line, and the script keeps the first and drops the
# repeats (all headers must be the same line, i.e. come from the same
# sdpa-var; otherwise it stops with an error).  The rows are a sweep of
# --k-mean: x is the k_mean column, and every other setting (d_k, n_q, n_k,
# trials, dist, ddof, q_mean, q_std, k_std) must be the same in every row.
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default input_moments.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1200,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows, against the mean mu_k of the entries of K (docs/theory.md
# section 8.1), for the N = n_q n_k raw scores of one trial:
#   dashed: raw_var_theory, the population variance
#           Var(S) = d_k [(sq^2 + mq^2)(sk^2 + mk^2) - mq^2 mk^2];
#   line:   raw_var_expected, the expected sample variance E[s^2], which
#           subtracts the covariances of scores that share a query row
#           (d_k sq^2 mk^2) or a key column (d_k sk^2 mq^2);
#   points: raw_var, the mean of s^2 over the trials, with error bars of
#           +-1 standard error, raw_var_sd / sqrt(trials).
#   left:  the variances themselves;
#   right: the same divided by raw_var_theory, with the ddof factor
#          (N - 1)/(N - ddof) dotted: what E[s^2] would be if the scores
#          were uncorrelated, as they are with means 0.
# The gap between the line and the dotted one is the part of the spread that
# whole rows and columns share, which the sample mean absorbs.  The runs use
# the same seed, so every mu_k shifts the same draws: the points do not
# scatter independently, they move together.
#
# Columns are read by name (column("raw_var")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
# Here awk copies the first line and every line that is not a copy of it (the
# headers of the second and later runs), ends the here-document and sets
# headers_differ if a later header-like line (one starting "dk,") differs.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "input_moments.gp: pipe the summary CSVs of sdpa-var --q-mean M --k-mean M' --format csv (one per --k-mean) into gnuplot"
}
load '< echo "\$D << EOD"; awk ''NR == 1 { h = $0; print; next } $0 == h { next } /^dk,/ { bad = 1; next } { print } END { print "EOD"; print "headers_differ = " (bad ? 1 : 0) }'''
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (headers_differ) {
    exit error "input_moments.gp: the concatenated CSVs have different headers (are some runs with --observed?)"
}
if (|$D| < 2) {
    exit error "input_moments.gp: need the header and 2 or more rows of the summary CSV of sdpa-var --k-mean M --format csv"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist ddof q_mean q_std k_mean k_std raw_var raw_var_theory raw_var_expected raw_var_sd"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("input_moments.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --format csv", c)
    }
}

# One figure per configuration: only k_mean may change from row to row.
# (First-row values by stats every ::0::0, which can assign; then count the
# rows that differ.  strcol for dist, which is not a number.)
stats $D every ::0::0 using (dist = strcol("dist"), 0) nooutput
do for [c in "dk n_q n_k trials ddof q_mean q_std k_std"] {
    stats $D using (column(c)) nooutput
    if (STATS_min != STATS_max) {
        exit error sprintf("input_moments.gp: the rows differ in '%s'; sweep only --k-mean (one --dk, one set of other options)", c)
    }
}
n_other = 0
stats $D using (n_other = n_other + (strcol("dist") eq dist ? 0 : 1), 0) nooutput
if (n_other > 0) {
    exit error "input_moments.gp: the rows differ in 'dist'; sweep only --k-mean"
}
stats $D using (column("k_mean")) nooutput
km_min = STATS_min
km_max = STATS_max
if (km_min == km_max) {
    exit error sprintf("input_moments.gp: every row has k_mean = %g; concatenate runs with several --k-mean values", km_min)
}
# raw_var_expected is nan where it has no closed form (--plant); every row
# needs it, and the error bars need 2 or more trials.
n_bad = 0
stats $D using (v = column("raw_var_expected"), n_bad = n_bad + (v == v ? 0 : 1), 0) nooutput
if (n_bad > 0) {
    exit error sprintf("input_moments.gp: raw_var_expected is nan in %d of the rows (runs with --plant?); the figure needs the expected sample variance", n_bad)
}
stats $D every ::0::0 using (dk = column("dk"), nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), ddof = column("ddof"), mq = column("q_mean"), \
    sq = column("q_std"), sk = column("k_std"), 0) nooutput
if (trials < 2) {
    exit error "input_moments.gp: the error bars need --trials 2 or more (1000 or more to resolve the gap)"
}
N = nq * nk
ddof_factor = (N - 1.0) / (N - ddof)

# Ranges: the variances with their error bars, on both panels.
se(c) = column("raw_var_sd") / sqrt(column("trials"))
stats $D using (column("raw_var") - se(0)) nooutput
v_min = STATS_min
stats $D using (column("raw_var_expected")) nooutput
v_min = (STATS_min < v_min ? STATS_min : v_min)
stats $D using (column("raw_var") + se(0)) nooutput
v_max = STATS_max
stats $D using (column("raw_var_theory")) nooutput
v_max = (STATS_max > v_max ? STATS_max : v_max)
rel(c) = column(c) / column("raw_var_theory")
stats $D using ((column("raw_var") - se(0)) / column("raw_var_theory")) nooutput
r_min = STATS_min
stats $D using (rel("raw_var_expected")) nooutput
r_min = (STATS_min < r_min ? STATS_min : r_min)
stats $D using ((column("raw_var") + se(0)) / column("raw_var_theory")) nooutput
r_max = (STATS_max > 1 ? STATS_max : 1)
if (!(v_max > v_min) || !(r_max > r_min)) {
    exit error "input_moments.gp: the variances are all equal (n_q = n_k = 1?); nothing to draw"
}

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "input_moments"; default_width = 1200; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

c_pop = "#555555"     # population variance
c_exp = "#d62728"     # E[s^2] and the measured points
c_ddof = "#1f77b4"    # the ddof factor alone

# ---- layout shared by both panels -------------------------------------------
set multiplot title sprintf("Nonzero means correlate the scores of a trial: E[s^2] falls below Var(S) by more than (N − 1)/N\n{/*0.8 d_k = %d, n_q = %d, n_k = %d (N = %d scores); entries μ + σx, x %s: μ_q = %g, σ_q = %g, σ_k = %g, μ_k on the x axis;}\n{/*0.8 ddof %d; mean over %d trials per μ_k, SE = raw\\_var\\_sd/√trials}", \
    dk, nq, nk, N, dist, mq, sq, sk, ddof, trials)
km_pad = (km_max - km_min) * 0.05
set xrange [km_min - km_pad : km_max + km_pad]
set xlabel "mean of the entries of K, μ_k   (k\\_mean)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set tmargin at screen 0.82
set bmargin at screen 0.12
set samples 2          # the reference lines are constants

# ---- left: the variances, with the key --------------------------------------------
set lmargin at screen 0.08
set rmargin at screen 0.47
v_pad = (v_max - v_min) * 0.06
set yrange [v_min - v_pad : v_max + 5 * v_pad]     # room for the key above the curves
set ylabel "variance of the raw scores QK^T"
# Top left, above the data: the offset leaves that band empty for it.
set key top left box opaque spacing 1.1 samplen 1.5 Left reverse
set offsets 0, 0, graph 0.35, 0
# smooth unique sorts by k_mean, so the runs may come in any order.
plot $D using (column("k_mean")):(column("raw_var_theory")) smooth unique \
        with lines lc rgb c_pop dt 2 title "Var(S), population  (raw\\_var\\_theory)", \
     $D using (column("k_mean")):(column("raw_var_expected")) smooth unique \
        with lines lc rgb c_exp title "E[s^2]  (raw\\_var\\_expected)", \
     $D using (column("k_mean")):(column("raw_var")):(se(0)) \
        with yerrorbars pt 7 ps 1.1 lc rgb c_exp title "mean of s^2 ± SE  (raw\\_var)"

# ---- right: relative to the population variance -----------------------------------
# The two constant lines are labelled where they run, not in a key.
unset key
set offsets 0, 0, 0, 0
set lmargin at screen 0.58
set rmargin at screen 0.97
r_pad = (r_max - r_min) * 0.08
set yrange [r_min - r_pad : r_max + r_pad]
set format y "%.3f"
set ylabel "variance / Var(S)   (÷ raw\\_var\\_theory)"
set label 1 "Var(S)" at graph 0.98, first 1 offset 0, 0.7 right front textcolor rgb c_pop
set label 2 sprintf("the ddof factor alone: (N − 1)/(N − ddof) = %.4f", ddof_factor) \
    at graph 0.98, first ddof_factor offset 0, -0.8 right front textcolor rgb c_ddof
plot 1 with lines lc rgb c_pop dt 2 notitle, \
     ddof_factor with lines lc rgb c_ddof dt 3 lw 1.5 notitle, \
     $D using (column("k_mean")):(rel("raw_var_expected")) smooth unique \
        with lines lc rgb c_exp notitle, \
     $D using (column("k_mean")):(rel("raw_var")):(se(0) / column("raw_var_theory")) \
        with yerrorbars pt 7 ps 1.1 lc rgb c_exp notitle

unset multiplot
if (interactive) { pause mouse close }
