# per_trial_histogram.gp: the distribution across trials of any per-trial column.
#
# Usage (reads the per-trial CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 64 --n 16 --trials 5000 --per-trial --format csv --columns all \
#       | gnuplot -e "col='scaled_entropy'" scripts/per_trial_histogram.gp
#   build/sdpa-var --dk 2 --n 2 --trials 20000 --per-trial --format csv --columns all \
#       | gnuplot -e "col='raw_var'; out='raw_var.pdf'" scripts/per_trial_histogram.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   col='raw_var'    the column to plot, by its name in the header (default raw_var;
#                    docs/columns.md lists them)
#   bins=80          number of bars (default 80)
#   out='file.png'   output file (default per_trial_histogram.png in the current
#                    directory); .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,650
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows: a density histogram of one column across the trials of a
# single d_k, with the mean and median of this run as vertical lines.  The x
# axis spans the 1st to the 99th percentile (so one extreme trial does not
# squeeze the bars); the bars are normalised by ALL trials, so the area shown
# is about 0.98.  Trials whose value is not a number (nan) are counted and
# named in the title, not plotted.
#
# Columns are read by name (column(col)), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "per_trial_histogram.gp: pipe the per-trial CSV of sdpa-var --per-trial --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders

if (!exists("col"))  col = "raw_var"
if (!exists("bins")) bins = 80
if (|$D| < 3) {
    exit error "per_trial_histogram.gp: need a header and 2+ rows of sdpa-var --per-trial CSV on stdin"
}
header = "," . $D[1] . ","
do for [c in "trial dk n_q n_k"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("per_trial_histogram.gp: no column '%s' (sdpa-var --columns all writes every column); pipe in sdpa-var --per-trial CSV", c)
    }
}
if (strstrt(header, "," . col . ",") == 0) {
    exit error sprintf("per_trial_histogram.gp: col='%s' is not a column of the input (docs/columns.md lists them)", col)
}
if (bins < 1) {
    exit error sprintf("per_trial_histogram.gp: bins=%g must be at least 1", bins)
}
stats $D using (column("dk")) nooutput
if (STATS_min != STATS_max) {
    exit error "per_trial_histogram.gp: the input mixes several d_k; run sdpa-var with a single --dk"
}
stats $D every ::0::0 using (dk = column("dk"), nq = column("n_q"), nk = column("n_k"), 0) nooutput
all_rows = |$D| - 1
# finite(x): the value, or NaN for "nan"/"inf" and anything not a number,
# which stats and plot then skip.
finite(x) = (x == x && abs(x) < 1e308 ? x : NaN)
stats $D using (finite(column(col))) nooutput
trials = STATS_records
if (trials < 2) {
    exit error sprintf("per_trial_histogram.gp: column '%s' has fewer than 2 finite values", col)
}
mean = STATS_mean
median = STATS_median
v_min = STATS_min
v_max = STATS_max
skipped = all_rows - trials

# 1st and 99th percentiles from the sorted cumulative count (as in
# puzzle_histogram.gp): row i of $CDF is (x_(i), i).
set table $CDF
plot $D using (finite(column(col))):(1) smooth cumulative
unset table
set datafile separator whitespace
set datafile nocolumnheaders
stats $CDF using ($2 >= 0.99 * trials ? $1 : NaN) nooutput
p99 = STATS_min
stats $CDF using ($2 <= 0.01 * trials ? $1 : NaN) nooutput
p01 = (STATS_records > 0 ? STATS_max : v_min)
set datafile separator comma
set datafile columnheaders
x_lo = p01
x_hi = p99
if (x_hi <= x_lo) { x_lo = v_min; x_hi = v_max }
if (x_hi <= x_lo) { x_lo = x_lo - 0.5; x_hi = x_hi + 0.5 }   # all trials equal

# ---- terminal and output --------------------------------------------------
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "per_trial_histogram"; default_width = 1000; default_height = 650
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- histogram --------------------------------------------------------------
bin_w = (x_hi - x_lo) / bins
bin(x) = x_lo + bin_w * (floor((x - x_lo) / bin_w) + 0.5)
# Trials outside [x_lo, x_hi] go to a bin beyond the range, out of sight.
in_range(x) = (x >= x_lo && x <= x_hi ? bin(x) : x_hi + 10 * bin_w)

col_tex = col
# Underscores are subscripts in enhanced text: escape them for labels.
esc(s) = (strstrt(s, "_") == 0 ? s : s[1:strstrt(s, "_") - 1] . "\\_" . esc(s[strstrt(s, "_") + 1:]))
set title sprintf("%s across %d trials\n{/*0.8 d_k = %d, n_q = %d queries, n_k = %d keys%s}\n{/*0.8 x axis: 1st to 99th percentile, %.4g to %.4g}", \
    esc(col), trials, dk, nq, nk, \
    skipped > 0 ? sprintf("; %d trials with no finite value left out", skipped) : "", x_lo, x_hi)
set xlabel sprintf("%s of one trial", esc(col))
set ylabel "density (fraction of trials per unit)"
set xrange [x_lo - bin_w : x_hi + bin_w]
set yrange [0 : *]
set offsets 0, 0, graph 0.05, 0
set grid ytics lc rgb "#dddddd" lt 1
set border back
set style fill solid 0.6 border lc rgb "#7f9fbf"
set boxwidth bin_w
set key below box maxrows 1 spacing 1.2 width 1 samplen 2.5
set arrow 1 from mean,   graph 0 to mean,   graph 1 nohead front lw 2 lc rgb "#d62728"
set arrow 2 from median, graph 0 to median, graph 1 nohead front lw 2 lc rgb "#2ca02c" dt 2

plot $D using (in_range(finite(column(col)))):(1.0 / (trials * bin_w)) \
        smooth frequency with boxes lc rgb "#aec7e8" title "trials (histogram)", \
     keyentry with lines lw 2 lc rgb "#d62728" title sprintf("mean %.4g", mean), \
     keyentry with lines lw 2 lc rgb "#2ca02c" dt 2 title sprintf("median %.4g", median)

if (interactive) { pause mouse close }
