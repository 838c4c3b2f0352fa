# causal_rows.gp: under a causal (decoder) mask, query i sees i + 1 keys: entropy and max weight by position.
#
# Usage (reads the per-row CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 64 --n 1024 --trials 8 --causal --per-row --format csv --columns all \
#       | gnuplot scripts/causal_rows.gp
#   build/sdpa-var --dk 64 --n 1024 --trials 8 --causal --per-row --format csv --columns all \
#       | gnuplot -e "out='docs/figures/causal_rows.png'" scripts/causal_rows.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default causal_rows.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1200,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# The input holds one row per query position i (the `row` column, from 0),
# mean over trials, for one d_k and one --scale.  Query i sees the keys
# 0..i, i.e. keys_seen = i + 1, which is the x axis (log scale).
#   left:  the softmax entropy of the row, raw_entropy and scaled_entropy
#          (nats), under its ceiling entropy_bound = ln(i + 1) (uniform
#          attention over the keys seen, dashed).  Row 0 sees one key and
#          is always one-hot: entropy 0.
#   right: the largest softmax weight of the row, raw_max_weight and
#          scaled_max_weight, above its floor 1/(i + 1) (dashed).
# The scaled logits (variance 1) stay a fixed distance below the ceiling,
# about sigma^2/2 = 1/2 nat once a row sees more than a few dozen keys;
# the raw logits (variance d_k) stay near one-hot at every position.
#
# Columns are read by name (column("raw_entropy")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "causal_rows.gp: pipe the per-row CSV of sdpa-var --causal --per-row --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 3) {
    exit error "causal_rows.gp: need the header and 2 or more rows of the per-row CSV of sdpa-var --causal --per-row"
}
header = "," . $D[1] . ","
do for [c in "dk scale row keys_seen raw_entropy scaled_entropy entropy_bound raw_max_weight scaled_max_weight"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("causal_rows.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the per-row CSV of sdpa-var --causal --per-row", c)
    }
}
stats $D using (column("dk")) nooutput
if (STATS_min != STATS_max) {
    exit error "causal_rows.gp: the input mixes several d_k; run sdpa-var with one --dk"
}
dk = STATS_min
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (scale = strcol("scale"), 0) nooutput
n_other = 0
stats $D using (n_other = n_other + (strcol("scale") ne scale ? 1 : 0), 0) nooutput
if (n_other > 0) {
    exit error "causal_rows.gp: the input mixes several scales; run sdpa-var with one --scale"
}
stats $D using (column("keys_seen")) nooutput
x_max = STATS_max
if (STATS_min < 1) {
    exit error "causal_rows.gp: a row sees no key (keys_seen < 1)"
}
stats $D using (column("entropy_bound")) nooutput
e_top = (STATS_max > 0 ? STATS_max : 1)
scaled_by = (scale eq "sqrt" ? "QK^T/√d_k" : scale eq "dk" ? "QK^T/d_k" : scale eq "none" ? "QK^T" : scale . "·QK^T")

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "causal_rows"; default_width = 1200; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

raw_colour = "#d62728"
scaled_colour = "#1f77b4"
ref_colour = "#555555"

# ---- layout shared by both panels -------------------------------------------
# Margins are fixed in screen coordinates (as in scale_choices.gp), so both
# panels have the same size, and one key spans the figure below them.
set multiplot title sprintf("Causal mask: query i sees keys 0..i, by position\n{/*0.8 d_k = %d, n = %d positions, mean over trials per position; scaled = %s}", \
    dk, x_max, scaled_by)
set logscale x 2
set format x "%g"
set xtics 4
set mxtics 2
set xrange [0.8 : x_max * 1.25]
set xlabel "keys seen by the query, i + 1 (keys\\_seen)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set tmargin at screen 0.86
set bmargin at screen 0.24
unset key

# ---- left: entropy -------------------------------------------------------------
set lmargin at screen 0.08
set rmargin at screen 0.47
set yrange [-0.04 * e_top : e_top * 1.08]
set ylabel "softmax entropy of the row (nats)"
plot $D using (column("keys_seen")):(column("entropy_bound")) \
        with lines lc rgb ref_colour dt 2 notitle, \
     $D using (column("keys_seen")):(column("raw_entropy")) \
        with lines lc rgb raw_colour notitle, \
     $D using (column("keys_seen")):(column("scaled_entropy")) \
        with lines lc rgb scaled_colour notitle

# ---- right: max weight ---------------------------------------------------------
set lmargin at screen 0.57
set rmargin at screen 0.97
set logscale y 10
set format y "%g"
set ytics 10
set mytics 10
set yrange [0.5 / x_max : 1.6]
set ylabel "largest softmax weight of the row"
plot $D using (column("keys_seen")):(1.0 / column("keys_seen")) \
        with lines lc rgb ref_colour dt 2 notitle, \
     $D using (column("keys_seen")):(column("raw_max_weight")) \
        with lines lc rgb raw_colour notitle, \
     $D using (column("keys_seen")):(column("scaled_max_weight")) \
        with lines lc rgb scaled_colour notitle

# ---- the shared key, in an empty panel across the bottom ---------------------
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
     keyentry with lines lc rgb raw_colour title "raw QK^T", \
     keyentry with lines lc rgb scaled_colour title sprintf("scaled %s", scaled_by), \
     keyentry with lines lc rgb ref_colour dt 2 title "uniform: ln(i + 1), 1/(i + 1)"

unset multiplot
if (interactive) { pause mouse close }
