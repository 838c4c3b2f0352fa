# scale_choices.gp: what dividing QK^T by sqrt(d_k), by d_k or by nothing does, vs d_k.
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 1:1024 --n 1111 --scale sqrt,dk,none --format csv --columns all \
#       | gnuplot scripts/scale_choices.gp
#   build/sdpa-var --dk 1:1024 --n 1111 --scale sqrt,dk,none --format csv --columns all \
#       | gnuplot -e "out='docs/figures/scale_choices.png'" scripts/scale_choices.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default scale_choices.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1200,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# The input holds one row per (scale, d_k), as sdpa-var writes it for a
# --scale list.  Each distinct value of the `scale` column (sqrt, dk, none or
# a number c) becomes one line in both panels; the "scaled" columns of a row
# are the logits c QK^T with c = scale_factor (1/sqrt(d_k), 1/d_k, 1 or c).
#   left:  the sample variance of those logits, scaled_var (points and solid
#          line; log-log), and its theory scaled_var_theory = c^2 d_k
#          (dashed): 1 for sqrt, 1/d_k for dk, d_k for none.
#   right: the softmax entropy of a query row over the n_k keys, scaled_entropy
#          (nats, mean over rows and trials), between 0 (one-hot) and ln n_k
#          (uniform attention, dashed).
# Dividing by d_k (the muP choice) over-shrinks: the logits' variance falls as
# 1/d_k and attention tends to uniform (entropy -> ln n_k).  No scaling lets
# the variance grow as d_k and the softmax saturates (entropy -> 0).  Only
# sqrt(d_k) keeps both the same at every d_k.
#
# Columns are read by name (column("scaled_var")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "scale_choices.gp: pipe the summary CSV of sdpa-var --scale sqrt,dk,none into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (|$D| < 2) {
    exit error "scale_choices.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --scale sqrt,dk,none"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scale scale_factor scaled_var scaled_var_theory scaled_entropy"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("scale_choices.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --scale sqrt,dk,none", c)
    }
}

stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), dist = strcol("dist"), 0) nooutput
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
# The distinct scale choices, in the order they first appear: a
# space-separated word list (a number such as 11.3 has no space in it).
scales = " "
stats $D using (s = strcol("scale"), \
    (strstrt(scales, " " . s . " ") == 0 ? scales = scales . s . " " : 0), 0) nooutput
n_scales = words(scales)
stats $D using (column("scaled_var")) nooutput
v_min = STATS_min
v_max = STATS_max
stats $D using (column("scaled_var_theory")) nooutput
v_min = (STATS_min < v_min ? STATS_min : v_min)
v_max = (STATS_max > v_max ? STATS_max : v_max)

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "scale_choices"; default_width = 1200; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- one colour, marker and legend title per scale choice -------------------
other_colours = "#9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #ff7f0e"
colour(s, i) = (s eq "sqrt" ? "#1f77b4" : s eq "dk" ? "#2ca02c" : s eq "none" ? "#d62728" \
    : word(other_colours, (i - 1) % words(other_colours) + 1))
marker(s) = (s eq "sqrt" ? 5 : s eq "dk" ? 9 : s eq "none" ? 7 : 13)
name(s) = (s eq "sqrt" ? "sqrt: QK^T/√d_k" : s eq "dk" ? "dk: QK^T/d_k (muP)" \
    : s eq "none" ? "none: QK^T unscaled" : sprintf("%s: %s·QK^T", s, s))
# Rows of one scale only; the others are undefined and are skipped.
of(s, col) = (strcol("scale") eq s ? column(col) : NaN)

# ---- layout shared by both panels -------------------------------------------
# Margins are fixed in screen coordinates (as in softmax_vs_dk.gp), so both
# panels have the same size.  The scale choices have the same colours in both
# panels and share one key, centred below them, where it covers no data: a
# key is only as wide as its own panel, so it gets a third, empty panel that
# spans the figure.
set multiplot title sprintf("Three choices of scale vs d_k\n{/*0.8 n_q = %d queries, n_k = %d keys, %s entries, %s per (scale, d_k)}", \
    nq, nk, dist, per_dk)
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

# ---- left: variance of the scaled logits ------------------------------------
# Measured points on the theory lines c^2 d_k (dashed), as in variance_vs_dk.gp.
set lmargin at screen 0.08
set rmargin at screen 0.47
set logscale y 2
set format y "2^{%L}"
ylo = v_min / 2
yhi = v_max * 2
set yrange [ylo : yhi]
set ytics 4 ** floor(log(ylo) / log(4)), 4   # powers of 4: 2^{-10}, 2^{-8}, ...
set ylabel "variance of the logits c·QK^T"
plot for [i = 1:n_scales] $D using (of(word(scales, i), "dk")):(of(word(scales, i), "scaled_var_theory")) \
        with lines lc rgb colour(word(scales, i), i) dt 2 notitle, \
     for [i = 1:n_scales] $D using (of(word(scales, i), "dk")):(of(word(scales, i), "scaled_var")) \
        with points pt marker(word(scales, i)) ps 1.2 lc rgb colour(word(scales, i), i) notitle

# ---- right: softmax entropy -------------------------------------------------
ceiling = log(nk)
set lmargin at screen 0.57
set rmargin at screen 0.97
unset key
unset logscale y
set format y "%g"
set ytics autofreq
set ylabel "softmax entropy per query (nats)"
e_top = (ceiling > 0 ? ceiling : 1)     # ln n_k is 0 when n_k = 1
set yrange [-0.04 * e_top : e_top * 1.12]
set label 1 sprintf("uniform attention: ln n_k = %.3f", ceiling) \
    at graph 0.02, first ceiling offset 0, 0.9 left front textcolor rgb "#555555"
set samples 2          # the reference line is a constant
plot ceiling with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_scales] $D using (of(word(scales, i), "dk")):(of(word(scales, i), "scaled_entropy")) \
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
     keyentry with lines lc rgb "#555555" dt 2 title "dashed: theory c^2 d_k"

unset multiplot
if (interactive) { pause mouse close }
