# softmax_vs_dk.gp: how sharp the attention softmax gets as d_k grows, raw vs scaled.
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 1:1024 --n 1111 --format csv --columns all | gnuplot scripts/softmax_vs_dk.gp
#   build/sdpa-var --dk 1:1024 --n 64 --trials 20 --format csv --columns all \
#       | gnuplot -e "out='softmax.png'" scripts/softmax_vs_dk.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default softmax_vs_dk.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1200,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows, against d_k on a log axis, for the softmax of each query row
# over the n_k keys (averaged over rows and trials):
#   left:  entropy in nats, -sum p log p.  Its ceiling ln(n_k) is uniform
#          attention (every key weight 1/n_k); 0 would be one-hot.
#   right: the largest weight max p, between 1/n_k (uniform) and 1 (one-hot).
# Raw scores QK^T have variance d_k, so as d_k grows the softmax saturates
# (entropy -> 0, max weight -> 1): the gradient through it reaches ever
# fewer keys (its total vanishes only as max p -> 1; gradient_signal.gp and
# docs/theory.md section 12 measure it); scaled scores QK^T/sqrt(d_k) keep
# variance 1 and about the same sharpness at every d_k.
#
# Columns are read by name (column("raw_entropy")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "softmax_vs_dk.gp: pipe the summary CSV of sdpa-var --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 2) {
    exit error "softmax_vs_dk.gp: need the header and at least 1 data row of the summary CSV of sdpa-var --format csv on standard input"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scale raw_entropy scaled_entropy raw_max_weight scaled_max_weight"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("softmax_vs_dk.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --format csv", c)
    }
}

# The scale from the data, never assumed: --scale dk plots 1/d_k, not 1.
stats $D every ::0::0 using (scale = strcol("scale"), 0) nooutput
n_other = 0
stats $D using (n_other = n_other + (strcol("scale") ne scale ? 1 : 0), 0) nooutput
if (n_other > 0) {
    exit error "softmax_vs_dk.gp: the input mixes several scales; run sdpa-var with one --scale"
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
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "softmax_vs_dk"; default_width = 1200; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- layout shared by both panels -------------------------------------------
# Margins and key positions are fixed in screen coordinates: with automatic
# ones the two keys (of different widths) give the panels different heights,
# and a key inside a panel would cover data or a reference line.
set multiplot title sprintf("Softmax sharpness vs d_k\n{/*0.8 n_q = %d queries, n_k = %d keys, %s entries, %s per d_k}", \
    nq, nk, dist, per_dk)
set logscale x 2
set format x "%g"
set xtics 4
set xrange [dk_min / 1.4 : dk_max * 1.4]
set xlabel "key dimension d_k"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set samples 2          # the reference lines are constants
set tmargin at screen 0.86
set bmargin at screen 0.24
key_y = 0.08          # keys: 2 x 2 entries centred below each panel
raw_style    = 'pt 7 ps 1.3 lc rgb "#d62728"'
scaled_style = 'pt 5 ps 1.2 lc rgb "#1f77b4"'

# ---- left: entropy ----------------------------------------------------------
ceiling = log(nk)
set lmargin at screen 0.07
set rmargin at screen 0.47
set key at screen 0.30, key_y center center vertical maxrows 2 spacing 1.2 Left reverse samplen 2
set ylabel "softmax entropy per query (nats)"
e_top = (ceiling > 0 ? ceiling : 1)     # ln n_k is 0 when n_k = 1
set yrange [-0.04 * e_top : e_top * 1.08]  # the 0 line clear of the frame
plot ceiling with lines lc rgb "#555555" dt 2 \
        title "uniform attention: ln n_k", \
     0 with lines lc rgb "#555555" dt 3 title "one-hot attention: 0", \
     $D using (column("dk")):(column("raw_entropy")) \
        with linespoints @raw_style title "raw QK^T", \
     $D using (column("dk")):(column("scaled_entropy")) \
        with linespoints @scaled_style title "scaled ".scaled_label

# ---- right: largest weight --------------------------------------------------
set lmargin at screen 0.57
set rmargin at screen 0.97
set key at screen 0.80, key_y center center vertical maxrows 2 spacing 1.2 Left reverse samplen 2
set ylabel "largest softmax weight per query, max p"
set yrange [-0.04 : 1.08]
set ytics 0.2
plot 1.0 / nk with lines lc rgb "#555555" dt 2 \
        title "uniform attention: 1/n_k", \
     1 with lines lc rgb "#555555" dt 3 title "one-hot attention: 1", \
     $D using (column("dk")):(column("raw_max_weight")) \
        with linespoints @raw_style title "raw QK^T", \
     $D using (column("dk")):(column("scaled_max_weight")) \
        with linespoints @scaled_style title "scaled ".scaled_label

unset multiplot
if (interactive) { pause mouse close }
