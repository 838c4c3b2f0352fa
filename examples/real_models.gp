# real_models.gp: sdpa-var's statistics of the tiny model's Q and K against the training step.
#
# Usage (reads heads.csv of examples/real_models.sh on standard input, writes a PNG):
#   gnuplot examples/real_models.gp < build/real_models/heads.csv
#   gnuplot -e "out='docs/figures/real_models.png'" examples/real_models.gp < build/real_models/heads.csv
# The input: one row per (variant, step, layer, batch, head), sdpa-var's
# columns (docs/columns.md) after variant, step and layer; variants sqrt,
# none, qknorm (any subset) are told apart by the variant column; rows of
# other variants (rope: its table is in tables.md) are not drawn.
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default real_models.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1500,1000
#   fontscale=1.6    font, line and point scale
#   term='qt'        a window instead of a file (scripts/terminal.gp)
#
# What it shows, against the training step: every (layer, window, head) row
# as a small point (the variants shifted a little sideways so they do not
# cover each other), and the mean over the rows of a step as a line.
#   (a) raw_var / d_k, log y; dashed: the random-init theory 1/9 (PyTorch's
#       default Linear, docs/real-models.md) and 1 (QK-norm: rows of norm
#       sqrt(d_k)).
#   (b) raw_var / raw_var_theory, the plug-in theory at the head's measured
#       moments of q and k; log y; dashed: 1.
#   (c) var_scale = 1/sqrt(raw_var), log y; dashed: 1/sqrt(d_k), the
#       multiplier of sqrt (and QK-norm's at step 0).
#   (d) scaled_max_abs_logit (the model's own multiplier), log y; for
#       QK-norm also each head's bound s_h d_k (open squares beside its points).
#   (e) scaled_entropy_norm (entropy / ln(keys seen)); dashed: 1, uniform.
#   (f) scaled_sink_weight (mean weight on key 0); dashed: uniform causal
#       attention, (1/n) sum_i 1/(i+1).
# Columns are read by name (column("raw_var")), so the CSV may gain columns.

if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "real_models.gp: pipe build/real_models/heads.csv (examples/real_models.sh) into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders

if (|$D| < 2) {
    exit error "real_models.gp: need the header and 1 or more rows of heads.csv of examples/real_models.sh"
}
header = "," . $D[1] . ","
do for [c in "variant step layer batch head dk n_q scale_factor raw_var raw_var_theory var_scale scaled_max_abs_logit scaled_entropy_norm scaled_sink_weight"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("real_models.gp: the input has no column '%s'; pipe in heads.csv of examples/real_models.sh", c)
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
    exit error "real_models.gp: no row has variant sqrt, none or qknorm"
}
stats $D using (column("step")) nooutput
s_max = STATS_max
stats $D every ::0::0 using (dk = column("dk"), n_ctx = column("n_q"), 0) nooutput
stats $D using (column("layer")) nooutput
n_layers = STATS_max + 1
stats $D using (column("head")) nooutput
n_heads = STATS_max + 1
stats $D using (column("batch")) nooutput
n_batch = STATS_max + 1
stats $D using (column("raw_var") / column("dk")) nooutput
if (!(STATS_min > 0)) {
    exit error "real_models.gp: a raw_var is 0, which a log axis cannot show"
}
sink_uniform = 0
do for [i = 1:n_ctx] { sink_uniform = sink_uniform + 1.0 / i / n_ctx }

script = "real_models"; default_width = 1500; default_height = 1000
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "../scripts/terminal.gp"  # the house terminal, in scripts/

colour(v) = (v eq "qknorm" ? "#ff7f0e" : (v eq "none" ? "#2ca02c" : "#1f77b4"))
marker(v) = (v eq "qknorm" ? 5 : (v eq "none" ? 9 : 7))
name(v) = (v eq "qknorm" ? "QK-norm: rows of norm √d_k, learned multiplier s_h" \
    : (v eq "none" ? "no scale: logits = q·k" : "1/√d_k: logits = q·k/√d_k"))
shift(v) = s_max * 0.012 * (v eq "sqrt" ? -1 : (v eq "none" ? 0 : 1))
# x of a row of variant v (NaN for the other variants' rows), shifted.
xs(v) = (strcol("variant") eq v ? column("step") + shift(v) : NaN)
x0(v) = (strcol("variant") eq v ? column("step") : NaN)

set multiplot title sprintf("sdpa-var on the Q and K of a tiny transformer trained here (%d layers × %d heads, d_k = %d, n = %d, causal)\n{/*0.8 points: each (layer, window, head), %d per step; lines: their mean; scripts/real\\_models.sh, docs/real-models.md}", \
    n_layers, n_heads, dk, n_ctx, n_layers * n_heads * n_batch)
# Panel (r, c) of the 2 x 3 grid, the key below it.
gap = 0.07
pw = (0.985 - 0.06 - 2 * gap) / 3
panel(r, c) = sprintf("set lmargin at screen %g; set rmargin at screen %g; set tmargin at screen %g; set bmargin at screen %g", \
    0.06 + c * (pw + gap), 0.06 + c * (pw + gap) + pw, (r == 0 ? 0.89 : 0.5), (r == 0 ? 0.59 : 0.2))
set xlabel "training step" offset 0, 0.3
set xrange [-s_max * 0.04 : s_max * 1.04]
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set samples 2
unset key
pts = "pt 7 ps 0.25"

# One panel: y(v) of the rows as points and their mean per step as a line.
set logscale y 10
set format y "%g"
set ylabel "raw\\_var / d_k"
eval panel(0, 0)
set title "(a) Var(q·k) / d_k" offset 0, -0.5
plot 1.0 / 9 with lines lc rgb colour("sqrt") dt 2 notitle, \
     1 with lines lc rgb colour("qknorm") dt 2 notitle, \
     for [i = 1:n_var] $D using (xs(word(variants, i))):(column("raw_var") / column("dk")) \
        with points pt 7 ps 0.25 lc rgb colour(word(variants, i)) notitle, \
     for [i = 1:n_var] $D using (x0(word(variants, i))):(column("raw_var") / column("dk")) \
        smooth unique with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

set ylabel "raw\\_var / raw\\_var\\_theory"
eval panel(0, 1)
set title "(b) Var(q·k) / plug-in theory" offset 0, -0.5
plot 1 with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_var] $D using (xs(word(variants, i))):(column("raw_var") / column("raw_var_theory")) \
        with points pt 7 ps 0.25 lc rgb colour(word(variants, i)) notitle, \
     for [i = 1:n_var] $D using (x0(word(variants, i))):(column("raw_var") / column("raw_var_theory")) \
        smooth unique with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

set ylabel "var\\_scale = 1/√raw\\_var"
eval panel(0, 2)
set title "(c) var\\_scale against the multiplier 1/√d_k" offset 0, -0.5
plot 1 / sqrt(dk) with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_var] $D using (xs(word(variants, i))):(column("var_scale")) \
        with points pt 7 ps 0.25 lc rgb colour(word(variants, i)) notitle, \
     for [i = 1:n_var] $D using (x0(word(variants, i))):(column("var_scale")) \
        smooth unique with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

set logscale y 2
set ylabel "scaled\\_max\\_abs\\_logit"
eval panel(1, 0)
set title "(d) largest |logit| of a head, with QK-norm's bound s_h d_k" offset 0, -0.5
plot for [i = 1:n_var] $D using (xs(word(variants, i))):(column("scaled_max_abs_logit")) \
        with points pt 7 ps 0.25 lc rgb colour(word(variants, i)) notitle, \
     for [i = 1:n_var] $D using (x0(word(variants, i))):(column("scaled_max_abs_logit")) \
        smooth unique with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle, \
     $D using (xs("qknorm") + s_max * 0.012):(column("scale_factor") * column("dk")) \
        with points pt 4 ps 0.4 lc rgb "#8c2d04" notitle

unset logscale y
set yrange [0 : 1.05]
set ylabel "scaled\\_entropy\\_norm"
eval panel(1, 1)
set title "(e) entropy / ln(keys seen)" offset 0, -0.5
plot 1 with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_var] $D using (xs(word(variants, i))):(column("scaled_entropy_norm")) \
        with points pt 7 ps 0.25 lc rgb colour(word(variants, i)) notitle, \
     for [i = 1:n_var] $D using (x0(word(variants, i))):(column("scaled_entropy_norm")) \
        smooth unique with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

set yrange [0 : *]
set ylabel "scaled\\_sink\\_weight"
eval panel(1, 2)
set title "(f) mean weight on the first token (sink share)" offset 0, -0.5
plot sink_uniform with lines lc rgb "#555555" dt 2 notitle, \
     for [i = 1:n_var] $D using (xs(word(variants, i))):(column("scaled_sink_weight")) \
        with points pt 7 ps 0.25 lc rgb colour(word(variants, i)) notitle, \
     for [i = 1:n_var] $D using (x0(word(variants, i))):(column("scaled_sink_weight")) \
        smooth unique with linespoints pt marker(word(variants, i)) ps 0.9 lc rgb colour(word(variants, i)) notitle

# The key, below the panels.
unset title
unset logscale
unset border
unset tics
unset xlabel
unset ylabel
unset grid
set xrange [0 : 1]
set yrange [0 : 1]
set tmargin at screen 0.11
set bmargin at screen 0.01
set lmargin at screen 0.01
set rmargin at screen 0.45
set key at screen 0.03, screen 0.06 left center vertical Left reverse samplen 2.5 spacing 1.15
plot -1 notitle, \
     for [i = 1:n_var] keyentry with linespoints pt marker(word(variants, i)) ps 0.9 \
        lc rgb colour(word(variants, i)) title name(word(variants, i))
set lmargin at screen 0.45
set rmargin at screen 0.99
set key at screen 0.48, screen 0.06 left center
plot -1 notitle, \
     keyentry with lines lc rgb colour("sqrt") dt 2 title "(a) init theory d_k/9 (default nn.Linear); orange: d_k (QK-norm); (b), (e): 1", \
     keyentry with lines lc rgb "#555555" dt 2 title sprintf("(c) 1/√d_k = %.3f; (f) uniform causal attention, %.3f", 1 / sqrt(dk), sink_uniform), \
     keyentry with points pt 4 ps 0.6 lc rgb "#8c2d04" title "(d) QK-norm's bound s_h d_k per head (beside its points)"
unset multiplot
if (interactive) { pause mouse close }
