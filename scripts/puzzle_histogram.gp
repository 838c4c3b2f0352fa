# puzzle_histogram.gp: why a 2x2 experiment "gave variance 1.6" when theory says d_k = 2.
#
# Usage (reads the per-trial CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 2 --n 2 --trials 100000 --per-trial --format csv --columns all \
#       | gnuplot scripts/puzzle_histogram.gp
#   build/sdpa-var --dk 2 --n 2 --trials 100000 --per-trial --format csv --columns all \
#       | gnuplot -e "out='puzzle.png'; observed=1.6" scripts/puzzle_histogram.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default puzzle_histogram.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,650
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#   observed=1.6     the value seen in the question (default 1.6).  When it is
#                    far past the data (beyond 1.5x the 99th percentile) the
#                    x axis still ends near the data and an arrow at the right
#                    edge points to it, so the bars keep their width.
#   expected=1.5     E[s^2], the expected sample variance.  Default: the theory
#                    d_k (N-1)/(N-ddof) with N = n_q n_k, from the dk, n_q, n_k
#                    and ddof columns of the first row: 1.5 for --dk 2 --n 2
#                    (ddof 0, the default), 2 with --ddof 1 (unbiased).
#                    (Deliberately NOT the mean of the raw_var column: that is
#                    this run's estimate, the line is the theory it estimates.)
#   population=2     Var(q.k) = d_k, the variance of a single score (default:
#                    d_k of the first row, 2 for --dk 2)
#
# What it shows: the density (histogram) of the per-trial sample variance
# raw_var of the n_q n_k raw scores, across all trials of one d_k.  With only
# N = 4 scores, s^2 is a very noisy estimate: it is biased low by (N-1)/N
# because the scores' own mean is subtracted, its distribution is strongly
# right-skewed (median well below the mean), and a value like 1.6 is typical.
# The x axis stops at the 99th percentile of the trials (or just past the
# largest reference line, if that is further); the bars are normalised by ALL
# trials, so the area shown is about 0.99.
#
# Columns are read by name (column("raw_var")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "puzzle_histogram.gp: pipe the per-trial CSV of sdpa-var --per-trial --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 3) {
    exit error "puzzle_histogram.gp: need a header and 2+ rows of sdpa-var --per-trial CSV on stdin"
}
header = "," . $D[1] . ","
do for [c in "trial dk n_q n_k raw_var"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("puzzle_histogram.gp: no column '%s' (sdpa-var --columns all writes every column); pipe in sdpa-var --per-trial CSV", c)
    }
}

stats $D using (column("dk")) nooutput
if (STATS_min != STATS_max) {
    exit error "puzzle_histogram.gp: the input mixes several d_k; run sdpa-var with a single --dk"
}
stats $D every ::0::0 using (dk = column("dk"), nq = column("n_q"), nk = column("n_k"), 0) nooutput
# ddof (0 or 1) decides what raw_var estimates: E[s^2] = d_k (N-1)/(N-ddof).
# CSVs from before the ddof column was written default to the tool's 0.
ddof = 0
if (strstrt(header, ",ddof,") > 0) {
    stats $D every ::0::0 using (ddof = column("ddof"), 0) nooutput
}
n_scores = nq * nk
if (n_scores <= ddof) {
    exit error sprintf("puzzle_histogram.gp: N = n_q n_k = %d scores with ddof %d: no sample variance", n_scores, ddof)
}
if (!exists("observed"))   observed = 1.6
expected_given = exists("expected")
if (!expected_given)       expected = dk * (n_scores - 1.0) / (n_scores - ddof)
if (!exists("population")) population = dk

stats $D using (column("raw_var")) nooutput
trials = STATS_records
median = STATS_median
mean = STATS_mean
stats $D using (column("raw_var") <= observed ? 1 : 0) nooutput
frac_le_observed = STATS_mean

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "puzzle_histogram"; default_width = 1000; default_height = 650
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- clip the long right tail at the 99th percentile ------------------------
# `smooth cumulative` sorts by x and accumulates the y values, so row i of
# $CDF is (x_(i), i): the first x whose count reaches 99 % of the trials is
# the 99th percentile.  $CDF is gnuplot's own whitespace table without a
# header, so read it with those settings.
set table $CDF
plot $D using (column("raw_var")):(1) smooth cumulative
unset table
set datafile separator whitespace
set datafile nocolumnheaders
stats $CDF using ($2 >= 0.99 * trials ? $1 : NaN) nooutput
p99 = STATS_min
set datafile separator comma
set datafile columnheaders
# Keep every reference line in view even if the tail is short.
x_max = p99
x_max = (x_max > 1.2 * population ? x_max : 1.2 * population)
# An observed value far past the data would squeeze every bar into the left
# edge; it gets an arrow at the right edge instead.
observed_far = (observed > 1.5 * p99 && observed > 1.2 * expected && observed > 1.2 * population)
if (!observed_far) { x_max = (x_max > 1.2 * observed ? x_max : 1.2 * observed) }
x_max = (x_max > 1.2 * expected ? x_max : 1.2 * expected)

# ---- histogram ----------------------------------------------------------------
n_bins = 100
bin_w = x_max / n_bins
bin(x) = bin_w * (floor(x / bin_w) + 0.5)
# Each trial adds 1/(trials * bin_w), so the bars are a density.  Trials past
# x_max go to one bin beyond the x range, out of sight, rather than piling
# into the last bar.  (Not NaN: an undefined point splits the data into
# pieces that `smooth frequency` would bin separately.)
in_range(x) = (x < x_max ? bin(x) : x_max + 10 * bin_w)

# The run's own numbers go in the title, and the key under the plot, so no
# text sits on the bars or the reference lines wherever they fall.
set title sprintf("Sample variance of the raw scores QK^T across %d trials\n{/*0.8 d_k = %d, n_q = %d queries, n_k = %d keys: N = %d scores per trial, ddof %d}\n{/*0.8 in this run: median %.3f, mean %.3f; %.0f%% of trials have s^2 ≤ %g; 99th percentile %.3g%s}", \
    trials, dk, nq, nk, n_scores, ddof, \
    median, mean, 100 * frac_le_observed, observed, p99, \
    x_max == p99 ? " (the x axis ends there)" : "")
set xlabel sprintf("raw\\_var: sample variance s^2 of the N = %d raw scores of one trial", n_scores)
set ylabel "density (fraction of trials per unit of s^2)"
set xrange [0 : x_max]
set yrange [0 : *]
set offsets 0, 0, graph 0.05, 0
set grid ytics lc rgb "#dddddd" lt 1
set border back
set style fill solid 0.6 border lc rgb "#7f9fbf"
set boxwidth bin_w
set key below box maxrows 2 spacing 1.2 width 1 samplen 2.5
# Reference lines span the full height; keyentry gives them legend lines.
if (observed_far) {
    set arrow 1 from graph 0.80, graph 0.9 to graph 1, graph 0.9 head filled front lw 2 lc rgb "#d62728"
    set label 2 sprintf("observed %g: off the axis", observed) at graph 0.80, graph 0.9 right offset -0.5, 0 front tc rgb "#d62728"
} else {
    set arrow 1 from observed, graph 0 to observed, graph 1 nohead front lw 2 lc rgb "#d62728"
}
set arrow 2 from expected,   graph 0 to expected,   graph 1 nohead front lw 2 lc rgb "#2ca02c" dt 2
set arrow 3 from population, graph 0 to population, graph 1 nohead front lw 2 lc rgb "#000000" dt 4
expected_title = expected_given ? sprintf("expected E[s^2] = %g", expected) \
    : (ddof == 0 ? sprintf("expected E[s^2] = d_k(N-1)/N = %g", expected) \
                 : sprintf("expected E[s^2] = d_k(N-1)/(N-%d) = %g", ddof, expected))

plot $D using (in_range(column("raw_var"))):(1.0 / (trials * bin_w)) \
        smooth frequency with boxes lc rgb "#aec7e8" title "trials (histogram)", \
     keyentry with lines lw 2 lc rgb "#d62728" \
        title sprintf("observed in the question: %g", observed), \
     keyentry with lines lw 2 lc rgb "#2ca02c" dt 2 \
        title expected_title, \
     keyentry with lines lw 2 lc rgb "#000000" dt 4 \
        title sprintf("population Var(q·k) = d_k = %g", population)

if (interactive) { pause mouse close }
