# weights_row.gp: one query's softmax weights over its keys, raw against scaled, as bars.
#
# Usage (reads a CSV with one line per key from standard input, writes a PNG):
#   scripts/figures.sh weights_row      # docs/figures/data/weights_row.csv and the PNG
#   gnuplot -e "out='row.png'" scripts/weights_row.gp < docs/figures/data/weights_row.csv
# The input has the columns key, dk, scale_factor (the multiplier c of the
# scaled logits, 1/sqrt(d_k) = 0.125 at d_k = 64), raw_logit (q.k),
# scaled_logit (c q.k), raw_weight and scaled_weight (their softmax), one
# line per key; scripts/figures.sh makes it from a query and 8 keys drawn by
# sdpa-var (the row `sdpa-var --example --dk 64 --nq 1 --nk 8` prints).
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default weights_row.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp documents these)
#
# What it shows: for each key, two bars, the weight softmax gives it from the
# raw logit q.k (red) and from the scaled logit c q.k (blue), with the
# logits written under the key.  Raw logits of spread sqrt(d_k) = 8 put most
# of the weight on one key; divided by 8 they give every key some weight.
# The dashed line is uniform attention, 1/n_k.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "weights_row.gp: pipe in docs/figures/data/weights_row.csv (scripts/figures.sh writes it)"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders
if (|$D| < 3) {
    exit error "weights_row.gp: need the header and 2 or more keys (one line each)"
}
header = "," . $D[1] . ","
do for [c in "key dk scale_factor raw_logit scaled_logit raw_weight scaled_weight"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("weights_row.gp: the input has no column '%s'", c)
    }
}
nk = |$D| - 1
stats $D every ::0::0 using (dk = column("dk"), c = column("scale_factor"), 0) nooutput
stats $D using (column("raw_weight")) nooutput
raw_max = STATS_max
stats $D using (column("scaled_weight")) nooutput
scaled_max = STATS_max

script = "weights_row"; default_width = 1000; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

c_name = (abs(c * sqrt(dk) - 1) < 1e-12 ? sprintf("1/√%g = %g", dk, c) : sprintf("%g", c))
set title sprintf("One query against %d keys at d_k = %g: softmax of the raw logits q·k and of the scaled ones q·k × %s", \
    nk, dk, c_name)
set style fill solid 0.85 border -1
set boxwidth 0.38
set xrange [-0.6 : nk - 0.4]
set yrange [0 : 1.05]
set ytics 0, 0.1, 1
set grid ytics lc rgb "#dddddd" lt 1
set border back
set ylabel "softmax weight of the key"
set xlabel "key j, with its raw logit q·k_j and its scaled logit below" offset 0, -2.4
set bmargin 8
set tmargin 4
set key top left box opaque Left reverse samplen 2 spacing 1.3
set samples 2
label(k, a, b) = sprintf("key %d\n%.1f\n%.2f", k, a, b)
# The tic labels come from an invisible element at the key's own x, between its bars.
plot $D using (column("key")):(0):xtic(label(column("key"), column("raw_logit"), column("scaled_logit"))) \
        with dots lc rgb "#ff000000" notitle, \
     $D using (column("key") - 0.2):(column("raw_weight")) \
        with boxes lc rgb "#d62728" title sprintf("raw: softmax(q·k), largest weight %.2f", raw_max), \
     $D using (column("key") + 0.2):(column("scaled_weight")) \
        with boxes lc rgb "#1f77b4" title sprintf("scaled: softmax(q·k × %g), largest weight %.2f", c, scaled_max), \
     1.0 / nk with lines dt 2 lw 1.5 lc rgb "#555555" title sprintf("uniform attention: 1/n_k = %g", 1.0 / nk)
if (interactive) { pause mouse close }
