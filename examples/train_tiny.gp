# train_tiny.gp: what training does to the random-init scores of the tiny model, per variant.
#
# Usage (reads steps.csv of examples/train_tiny.py on standard input, writes a PNG):
#   gnuplot examples/train_tiny.gp < build/train_tiny/steps.csv
#   gnuplot -e "out='docs/figures/train_tiny.png'" examples/train_tiny.gp < build/train_tiny/steps.csv
# The input: one row per (variant, step) over all heads of the model
# (examples/train_tiny.py's docstring defines the columns).  Variants are
# told apart by the variant column: sqrt, none, qknorm (any subset).
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default train_tiny.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1500,620
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp)
#
# What it shows, against the training step, for each variant:
#   left:   Var(q.k) over all pairs of a head divided by its random-init
#           theory (d_k/9; d_k for QK-norm; docs/real-models.md): the mean
#           over heads (line and points) and the range over heads (band);
#           log y.  1 at step 0.
#   middle: the mean entropy of the attention rows (nats) over heads, with
#           the entropy of uniform causal attention, mean_i ln(i + 1), dashed.
#   right:  the largest |logit| (multiplier included) over heads and the
#           QK-norm bound max_h s_h d_k (dashed); log y.
# Columns are read by name (column("raw_var_mean")), so the CSV may gain columns.

if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "train_tiny.gp: pipe build/train_tiny/steps.csv (examples/train_tiny.py) into gnuplot"
}
# A pipe can be read only once: copy stdin into the datablock $D.
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders

if (|$D| < 2) {
    exit error "train_tiny.gp: need the header and 1 or more rows of steps.csv of examples/train_tiny.py"
}
header = "," . $D[1] . ","
do for [c in "variant step layers heads n dk raw_var_mean raw_var_min raw_var_max raw_var_init_theory entropy_mean max_abs_logit logit_bound"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("train_tiny.gp: the input has no column '%s'; pipe in steps.csv of examples/train_tiny.py", c)
    }
}
variants = ""
do for [v in "sqrt none qknorm"] {
    n_v = 0
    stats $D using (n_v = n_v + (strcol("variant") eq v ? 1 : 0), 0) nooutput
    if (n_v > 0) { variants = variants . v . " " }
}
n_var = words(variants)
if (n_var == 0) {
    exit error "train_tiny.gp: no row has variant sqrt, none or qknorm"
}
of(v, val) = (strcol("variant") eq v ? val : NaN)
stats $D using (column("step")) nooutput
s_max = STATS_max
stats $D using (column("raw_var_min") / column("raw_var_init_theory")) nooutput
r_min = STATS_min
stats $D using (column("raw_var_max") / column("raw_var_init_theory")) nooutput
r_max = STATS_max
stats $D using (column("max_abs_logit")) nooutput
m_min = STATS_min
m_max = STATS_max
n_bound = 0
stats $D using (n_bound = n_bound + (strcol("logit_bound") eq "nan" ? 0 : 1), 0) nooutput
if (n_bound > 0) {
    stats $D using (of("qknorm", column("logit_bound"))) nooutput
    m_max = (STATS_max > m_max ? STATS_max : m_max)
}
stats $D every ::0::0 using (dk = column("dk"), n_ctx = column("n"), \
    n_layers = column("layers"), n_heads = column("heads"), 0) nooutput
if (!(r_min > 0) || !(m_min > 0)) {
    exit error "train_tiny.gp: a variance or a largest |logit| is 0, which a log axis cannot show"
}
# Entropy of uniform causal attention over the n query rows: row i sees
# i + 1 keys.
h_uniform = 0
do for [i = 1:n_ctx] { h_uniform = h_uniform + log(i) / n_ctx }

script = "train_tiny"; default_width = 1500; default_height = 620
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "../scripts/terminal.gp"  # the house terminal, in scripts/

colour(v) = (v eq "qknorm" ? "#ff7f0e" : (v eq "none" ? "#2ca02c" : "#1f77b4"))
marker(v) = (v eq "qknorm" ? 5 : (v eq "none" ? 9 : 7))
name(v) = (v eq "qknorm" ? "QK-norm: rows of norm √d_k, learned multiplier s_h" \
    : (v eq "none" ? "no scale: logits = q·k" : "1/√d_k: logits = q·k/√d_k"))

set multiplot title sprintf("A tiny transformer trained here (%d layers × %d heads, d_k = %d, n = %d): the scores leave the random-init theory\n{/*0.8 means over the %d heads of the fixed evaluation batch; scripts/train\\_tiny.py, docs/real-models.md}", \
    n_layers, n_heads, dk, n_ctx, n_layers * n_heads)
set xlabel "training step"
set xrange [-s_max * 0.03 : s_max * 1.03]
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
key_top = 0.15 * fontscale
gap = 0.07 * fontscale
pw = (0.975 - 0.055 - 2 * gap) / 3
set tmargin at screen 0.85
set bmargin at screen key_top + 0.11
set samples 2
unset key

set lmargin at screen 0.055
set rmargin at screen 0.055 + pw
set logscale y 10
set format y "%g"
set yrange [r_min / 1.5 : r_max * 1.5]
set ylabel "Var(q·k) / random-init theory"
set title "(a) score variance / init theory" offset 0, -0.4
plot 1 with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_var] $D using (of(word(variants, i), column("step"))) \
           :(column("raw_var_min") / column("raw_var_init_theory")) \
           :(column("raw_var_max") / column("raw_var_init_theory")) \
        with filledcurves fc rgb colour(word(variants, i)) fs transparent solid 0.15 noborder notitle, \
     for [i = 1:n_var] $D using (of(word(variants, i), column("step"))) \
           :(column("raw_var_mean") / column("raw_var_init_theory")) \
        with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

set lmargin at screen 0.055 + pw + gap
set rmargin at screen 0.055 + 2 * pw + gap
unset logscale y
set autoscale y
set yrange [0 : *]
set ylabel "entropy (nats), mean over heads and rows"
set title "(b) attention entropy" offset 0, -0.4
plot h_uniform with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_var] $D using (of(word(variants, i), column("step"))):(column("entropy_mean")) \
        with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

set lmargin at screen 0.975 - pw
set rmargin at screen 0.975
set logscale y 2
set format y "%g"
set yrange [m_min / 1.5 : m_max * 1.5]
set ylabel "max |logit| over heads"
set title "(c) largest |logit|" offset 0, -0.4
plot for [k = 1:(n_bound > 0 ? 1 : 0)] $D using (of("qknorm", column("step"))):(column("logit_bound")) \
        with lines lc rgb colour("qknorm") dt 2 notitle, \
     for [i = 1:n_var] $D using (of(word(variants, i), column("step"))):(column("max_abs_logit")) \
        with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

unset title
unset logscale
unset border
unset tics
unset xlabel
unset ylabel
unset grid
set tmargin at screen key_top
set bmargin at screen 0.01
set xrange [0 : 1]
set yrange [0 : 1]
set key at screen 0.015, screen key_top / 2 left center vertical Left reverse samplen 2.5 spacing 1.15
set lmargin at screen 0.01
set rmargin at screen 0.45
plot -1 notitle, \
     for [i = 1:n_var] keyentry with linespoints pt marker(word(variants, i)) ps 0.9 \
        lc rgb colour(word(variants, i)) title name(word(variants, i))
set lmargin at screen 0.45
set rmargin at screen 0.99
set key at screen 0.5, screen key_top / 2 left center
plot -1 notitle, \
     keyentry with filledcurves fc rgb "#888888" fs transparent solid 0.3 noborder title sprintf("(a) band: range over the %d heads", n_layers * n_heads), \
     keyentry with lines lc rgb "#555555" dt 2 title sprintf("(a) init theory (d_k/9; d_k with QK-norm); (b) uniform causal attention, %.2f nats", h_uniform), \
     for [k = 1:(n_bound > 0 ? 1 : 0)] keyentry with lines lc rgb colour("qknorm") dt 2 title "(c) QK-norm bound max_h s_h d_k"

unset multiplot
if (interactive) { pause mouse close }
