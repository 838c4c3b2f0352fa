# histogram.gp: the raw and the scaled scores (or softmax weights) as two
# histograms, a panel each on bars of its own width, against the normal
# curve of the theory: the template of sdpa-var --histogram B --format
# gnuplot, and a script for the CSV.
#
# Usage (reads the histogram CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 64 --n 300 --histogram 960 --format csv \
#       | gnuplot -e "out='h.png'; raw_sd=8; scaled_sd=1" scripts/histogram.gp
# (fine bins: the scaled scores fill 1/sqrt(d_k) of their common range)
# sdpa-var --format gnuplot writes this script with the CSV inline (a
# datablock $D, and `inline = 1`, so it reads no standard input) and the
# values below from the run (the theory, which the CSV does not hold).
# Options, each given as -e "name=value" BEFORE the script name:
#   bars=60          bars a panel, about (default 60, at most a row of the CSV each)
#   raw_mean=0; raw_sd=8; scaled_mean=0; scaled_sd=1
#                    the theory's mean and sd of each panel's scores: its
#                    normal curve (default: none)
#   scores=90000; trials=1; dk=64; n_q=300; n_k=300; scale='sqrt'
#                    the title's sizes (default: the counts' sum, no sizes)
#   weights=1        the bins are softmax weights (default: when no bin
#                    starts below 0)
#   out, size, fontscale, term: as every script (scripts/terminal.gp)
#
# The engine counts both panels on one grid, the union of their ranges, on
# which the scaled N(0, 1) of d_k = 256 is 3-4 of 80 bins wide; so
# sdpa-var --format gnuplot asks for finer bins, and each panel sums them,
# g a bar, over the span its scores reach: from its first to its last fine
# bin with at least 1/500 of the tallest's count (a bar lower than that is
# under a pixel: the few extreme scores of 100 000 pooled trials would else
# stretch the axis and every bar with it; the weights' panels keep every
# weight). Columns are read by name (bin_lo, bin_hi, raw_count, scaled_count).

# ---- read standard input once (see sweep.gp) ----------------------------------
script_path = ARG0   # before the load below, which sets ARG0 to its own
if (!exists("inline")) {
    if (system("[ -t 0 ] && echo tty") eq "tty") {
        exit error "histogram.gp: pipe the CSV of sdpa-var --histogram BINS --format csv into gnuplot"
    }
    load '< echo "\$D << EOD"; cat; echo EOD'
}
set datafile separator comma
set datafile columnheaders
if (|$D| < 3) {
    exit error "histogram.gp: need the header and 2 or more bins of the CSV of sdpa-var --histogram BINS"
}
header = "," . $D[1] . ","
do for [c in "bin_lo bin_hi raw_count scaled_count"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("histogram.gp: the input has no column '%s'; pipe in the CSV of sdpa-var --histogram BINS", c)
    }
}
stats $D using (column("bin_lo")):(column("bin_hi") - column("bin_lo")) nooutput
fine = STATS_mean_y
if (!exists("weights")) { weights = (STATS_min_x >= 0) }
if (!exists("bars")) { bars = 60 }
stats $D using (column("raw_count")):(column("scaled_count")) nooutput
total = (STATS_sum_x > STATS_sum_y ? STATS_sum_x : STATS_sum_y)
top1 = STATS_max_x; top2 = STATS_max_y
if (total <= 0) { exit error "histogram.gp: every bin is empty" }
if (!exists("scores")) { scores = total; trials = 1 }
do for [v in "raw_mean scaled_mean"] { if (!exists(v)) { eval v . " = 0" } }
do for [v in "raw_sd scaled_sd"] { if (!exists(v)) { eval v . " = NaN" } }

# Panel k's span [a_k, z_k] and bar width w_k (g_k fine bins).
do for [k = 1:2] {
    cc = (k == 1 ? "raw_count" : "scaled_count")
    top = (weights ? 0.5 : (k == 1 ? top1 : top2))
    a = 1e308; z = -1e308
    stats $D using (column(cc) * 500 >= top ? (a = column("bin_lo") < a ? column("bin_lo") : a, \
        z = column("bin_hi") > z ? column("bin_hi") : z) : 0, 0) nooutput
    g = floor((z - a) / fine / bars + 0.5)
    g = (g < 1 ? 1 : g)
    eval sprintf("a_%d = %.17e; z_%d = %.17e; w_%d = %.17e", k, a, k, z, k, g * fine)
}

# ---- terminal and output (see sweep.gp) -----------------------------------
script = "histogram"; default_width = 1000; default_height = 1000
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(script_path, strlen(script_path)) }
load dir . "terminal.gp"

what = (weights ? "Softmax weights" : "Scores")
unit = (weights ? "weights" : "scores")
heading = (trials == 1 ? sprintf("%s of one trial (%d %s)", what, scores, unit) : \
    sprintf("%s pooled over %d trials (%.0f %s)", what, trials, scores * trials, unit))
if (exists("dk")) { heading = heading . sprintf("\nd_k=%d, n_q=%d, n_k=%d", dk, n_q, n_k) }
scaled_name = (!exists("scale") ? "scaled" : scale eq "sqrt" ? "QK^T/sqrt(d_k)" : scale eq "dk" ? "QK^T/d_k" : \
    scale eq "none" ? "QK^T (--scale none)" : scale eq "logn" ? "QK^T * ln(n)/sqrt(d_k)" : \
    sprintf("QK^T * %.6g%s", scale_factor, logn ? " ln n_i" : ""))
set multiplot layout 2,1 title heading noenhanced
set ylabel "count" noenhanced
set xlabel (weights ? "softmax weight" : "score") noenhanced
set grid
set style fill solid 0.5
set key outside right top vertical noenhanced
set format x "%g"
set format y "%g"
set offsets 0, 0, graph 0.05, 0
set yrange [0:*]
set samples 500
# A fine bin's bar: the middle of the g fine bins it is summed into.
bar(k, lo) = value(sprintf("a_%d", k)) + (floor((lo - value(sprintf("a_%d", k))) / value(sprintf("w_%d", k)) + 1e-9) + 0.5) * value(sprintf("w_%d", k))
inside(k, lo, hi) = (lo >= value(sprintf("a_%d", k)) && hi <= value(sprintf("z_%d", k)))
# The expected count of a bar at x if the scores were normal with the
# theory's mean and sd (the large-d_k approximation, docs/theory.md).
expect(x, w, m, sd) = scores * trials * (norm((x + w / 2.0 - m) / sd) - norm((x - w / 2.0 - m) / sd))
do for [k = 1:2] {
    cc = (k == 1 ? "raw_count" : "scaled_count")
    w = value(sprintf("w_%d", k))
    m = 1.0 * (k == 1 ? raw_mean : scaled_mean); sd = 1.0 * (k == 1 ? raw_sd : scaled_sd)   # never integer division
    label = (k == 1 ? "raw QK^T" : scaled_name)
    set title sprintf("%s: bars %.3g wide", label, w) . (!weights && sd > 0 ? sprintf(" = %.2f sd (theory sd %.3g)", w / sd, sd) : "") noenhanced
    set xrange [value(sprintf("a_%d", k)) : value(sprintf("z_%d", k))]
    set boxwidth w absolute
    plot $D using (inside(k, column("bin_lo"), column("bin_hi")) ? bar(k, column("bin_lo")) : NaN):(column(cc)) \
            smooth frequency with boxes lc k title "counts", \
         for [i = 1:(!weights && sd > 0)] expect(x, w, m, sd) with lines dt 2 lw 2 lc rgb "black" title "normal (theory)"
}
unset multiplot

if (interactive) { pause mouse close }
