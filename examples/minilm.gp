# minilm.gp: sdpa-var's per-head statistics of all-MiniLM-L6-v2, trained and at BERT's init.
#
# Usage (reads minilm.csv of examples/minilm.py on standard input, writes a PNG):
#   gnuplot examples/minilm.gp < build/minilm/minilm.csv
#   gnuplot -e "out='docs/figures/minilm.png'" examples/minilm.gp < build/minilm/minilm.csv
# The input: one row per (weights, layer, head), weights "trained" (the
# package's) or "init" (the same architecture from its config, BERT's init:
# Linear weights N(0, 0.02^2)); sdpa-var's columns (docs/columns.md) and the
# script's ln_n and sep_weight.
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default minilm.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1500,620
#   fontscale=1.6    font, line and point scale
#   term='qt'        a window instead of a file (scripts/terminal.gp)
#
# What it shows, against the layer (each head a point, the 12 heads of a
# layer spread a little sideways, head 0 leftmost; lines: the geometric
# mean (a) or mean (b, c) over the layer's heads):
#   (a) scaled_var, the variance of the logits q.k/sqrt(d_k), log y; dashed:
#       1, what the sqrt(d_k) argument assumes (unit-variance q and k
#       entries), and BERT's init theory (d_model sigma^2)^2, sigma = 0.02.
#   (b) scaled_entropy_norm = entropy / ln n; dashed: 1, uniform.
#   (c) the trained heads' mean weight on [CLS] (key 0, scaled_sink_weight)
#       and on [SEP] (the last key, sep_weight), log y; dashed: 1/n, uniform.
# Columns are read by name (column("scaled_var")), so the CSV may gain columns.

if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "minilm.gp: pipe build/minilm/minilm.csv (examples/minilm.py) into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders

if (|$D| < 2) {
    exit error "minilm.gp: need the header and 1 or more rows of minilm.csv of examples/minilm.py"
}
header = "," . $D[1] . ","
do for [c in "weights layer head n dk scaled_var scaled_entropy_norm scaled_sink_weight sep_weight"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("minilm.gp: the input has no column '%s'; pipe in minilm.csv of examples/minilm.py", c)
    }
}
stats $D every ::0::0 using (dk = column("dk"), n_tok = column("n"), 0) nooutput
stats $D using (column("layer")) nooutput
n_layers = STATS_max + 1
stats $D using (column("head")) nooutput
n_heads = STATS_max + 1
stats $D using (column("scaled_var")) nooutput
if (!(STATS_min > 0)) {
    exit error "minilm.gp: a scaled_var is 0, which a log axis cannot show"
}
d_model = n_heads * dk
init_theory = (d_model * 0.02**2)**2

script = "minilm"; default_width = 1500; default_height = 620
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "../scripts/terminal.gp"  # the house terminal, in scripts/

c_trained = "#1f77b4"; c_init = "#999999"; c_cls = "#d62728"; c_sep = "#2ca02c"
spread = 0.6 / n_heads
# x of a row of weights w (NaN for the other rows): its layer, shifted by head.
xs(w) = (strcol("weights") eq w ? column("layer") + (column("head") - (n_heads - 1) / 2.0) * spread : NaN)
x0(w) = (strcol("weights") eq w ? column("layer") : NaN)

set multiplot title sprintf("sdpa-var on all-MiniLM-L6-v2 (BERT, %d layers × %d heads, d_k = %d), one text of n = %d tokens\n{/*0.8 points: each head (12 per layer, side by side); lines: over the layer's heads; examples/minilm.py, docs/real-models.md}", \
    n_layers, n_heads, dk, n_tok)
gap = 0.075
pw = (0.985 - 0.06 - 2 * gap) / 3
panel(c) = sprintf("set lmargin at screen %g; set rmargin at screen %g; set tmargin at screen 0.84; set bmargin at screen 0.3", \
    0.06 + c * (pw + gap), 0.06 + c * (pw + gap) + pw)
set xlabel "layer" offset 0, 0.3
set xrange [-0.5 : n_layers - 0.5]
set xtics 1
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set samples 2
unset key

set logscale y 10
set format y "%g"
set ylabel "scaled\\_var = Var(q·k / √d_k)"
eval panel(0)
set title "(a) variance of the logits (line: geometric mean)" offset 0, -0.5
# The geometric mean per layer, as a datablock with a header line (the
# columnheaders setting takes the first line of every data source).
set print $GM
print "layer,gm"
do for [L = 0:n_layers - 1] {
    stats $D using (strcol("weights") eq "trained" && column("layer") == L ? log(column("scaled_var")) : NaN) nooutput
    print sprintf("%d,%.17g", L, exp(STATS_mean))
}
unset print
plot $GM using 1:2 with lines lc rgb c_trained notitle, \
     1 with lines lc rgb "#000000" dt 2 lw 1.5 notitle, \
     init_theory with lines lc rgb c_init dt 2 notitle, \
     $D using (xs("init")):(column("scaled_var")) with points pt 6 ps 0.5 lc rgb c_init notitle, \
     $D using (xs("trained")):(column("scaled_var")) with points pt 7 ps 0.6 lc rgb c_trained notitle

unset logscale y
set yrange [0 : 1.05]
set ylabel "scaled\\_entropy\\_norm = entropy / ln n"
eval panel(1)
set title "(b) entropy / ln n: 1 uniform, 0 one key (mean line)" offset 0, -0.5
plot 1 with lines lc rgb "#555555" dt 2 notitle, \
     $D using (xs("init")):(column("scaled_entropy_norm")) with points pt 6 ps 0.5 lc rgb c_init notitle, \
     $D using (xs("trained")):(column("scaled_entropy_norm")) with points pt 7 ps 0.6 lc rgb c_trained notitle, \
     $D using (x0("trained")):(column("scaled_entropy_norm")) smooth unique with lines lc rgb c_trained notitle

set logscale y 10
set yrange [* : 1]
set ylabel "mean softmax weight on the key"
eval panel(2)
set title "(c) trained: weight on [CLS] (key 0), [SEP] (last)" offset 0, -0.5
plot 1.0 / n_tok with lines lc rgb "#555555" dt 2 notitle, \
     $D using (xs("trained")):(column("sep_weight")) with points pt 9 ps 0.6 lc rgb c_sep notitle, \
     $D using (xs("trained")):(column("scaled_sink_weight")) with points pt 7 ps 0.6 lc rgb c_cls notitle, \
     $D using (x0("trained")):(column("scaled_sink_weight")) smooth unique with lines lc rgb c_cls notitle

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
set tmargin at screen 0.16
set bmargin at screen 0.01
set lmargin at screen 0.01
set rmargin at screen 0.5
set key at screen 0.03, screen 0.09 left center vertical Left reverse samplen 2.5 spacing 1.15
plot -1 notitle, \
     keyentry with linespoints pt 7 ps 0.6 lc rgb c_trained title "trained (the package's weights): a head; line, (a) geometric mean, (b) mean", \
     keyentry with points pt 6 ps 0.5 lc rgb c_init title "BERT's init (from\\_config, Linear N(0, 0.02²), seed 0): a head", \
     keyentry with lines lc rgb "#000000" dt 2 lw 1.5 title "(a) 1: what the √d_k argument assumes (unit-variance q, k entries)"
set lmargin at screen 0.5
set rmargin at screen 0.99
set key at screen 0.52, screen 0.09 left center
plot -1 notitle, \
     keyentry with lines lc rgb c_init dt 2 title sprintf("(a) BERT's init theory (d_{model} · 0.02²)² = %.4f", init_theory), \
     keyentry with linespoints pt 7 ps 0.6 lc rgb c_cls title "(c) [CLS]: a head; line, mean over the layer's heads", \
     keyentry with points pt 9 ps 0.6 lc rgb c_sep title sprintf("(c) [SEP]: a head; dashed: uniform 1/n = %.4f", 1.0 / n_tok)
unset multiplot
if (interactive) { pause mouse close }
