# long_context.gp: softmax entropy per query against ln n, raw and scaled,
# with the theory ln n - sigma^2/2, its freezing point and the bound ln n.
#
# Usage (reads the CSV examples/long_context.sh writes from standard input,
# writes a PNG):
#   gnuplot -e "out='long_context.png'" examples/long_context.gp < docs/figures/long_context.csv
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default long_context.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,740
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp documents these; loaded from there)
#
# What it shows: the entropy H of a query's softmax weights in nats, mean over
# queries (and trials), against ln n for n queries and n keys. The logits of
# a row have SD sigma (raw_sigma, scaled_sigma: read from the data, never
# assumed). docs/theory.md: H is about ln n - sigma^2/2 while sigma <
# sqrt(2 ln n) (section 8.7, the scaled line is the tool's
# scaled_entropy_approx), and O(1) beyond, the frozen phase of Derrida's
# random energy model (section 15): the raw theory line is drawn as
# ln n - sigma^2/2 past the freezing point and as its leading order, 0,
# before it. The dotted vertical line is where raw_sigma = sqrt(2 ln n),
# at ln n = raw_sigma^2/2. The top axis reads the same x as n.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "long_context.gp: pipe in the CSV of examples/long_context.sh (docs/figures/long_context.csv)"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders
if (|$D| < 2) {
    exit error "long_context.gp: need the header and 1 or more rows of examples/long_context.sh's CSV"
}
header = "," . $D[1] . ","
do for [c in "n ln_n dk scale scale_factor trials raw_sigma scaled_sigma raw_entropy scaled_entropy scaled_entropy_approx entropy_bound"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("long_context.gp: the input has no column '%s'; pipe in the CSV of examples/long_context.sh", c)
    }
}
stats $D every ::0::0 using (dk = column("dk"), scale = strcol("scale"), c = column("scale_factor"), \
    sr = column("raw_sigma"), ss = column("scaled_sigma"), 0) nooutput
stats $D using ((column("dk") == dk && strcol("scale") eq scale && column("raw_sigma") == sr) ? 0 : 1) nooutput
if (STATS_max > 0) {
    exit error "long_context.gp: the input mixes several d_k, scales or sigmas; give one run of examples/long_context.sh"
}
stats $D using (column("ln_n")) nooutput
x_min = STATS_min
x_max = STATS_max
stats $D using (column("trials")) nooutput
t_max = STATS_max
t_min = STATS_min
stats $D using (column("trials") == t_min ? column("n") : 1e300) nooutput
n_one = STATS_min

script = "long_context"; default_width = 1000; default_height = 740
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "../scripts/terminal.gp"  # the house terminal, in scripts/

# The freezing point of the raw logits: sigma = sqrt(2 ln n) at ln n = sigma^2/2.
x_freeze = sr**2 / 2
raw_theory(x) = (x > x_freeze ? x - x_freeze : 0)
scaled_name = (scale eq "sqrt" ? "QK^T/√d_k" : scale eq "dk" ? "QK^T/d_k" \
    : scale eq "none" ? "QK^T (--scale none)" : sprintf("%g·QK^T", c))
per_n = (t_max == t_min ? sprintf("%d trial%s per n", t_max, t_max > 1 ? "s" : "") \
    : sprintf("mean over %d trials at small n, 1 from n = %d", t_max, n_one))

set title sprintf("Softmax entropy per query against ln n: scaled tracks ln n − σ²/2, raw is frozen at short n\n{/*0.8 n queries and n keys, d_k = %d, normal entries, %s}", \
    dk, per_n)
set xrange [x_min - 0.4 : x_max + 0.4]
set xtics 1 nomirror
set xlabel "ln n   (n = number of keys, one per token)"
# The top axis: n at its ln n.
set x2range [x_min - 0.4 : x_max + 0.4]
set x2tics nomirror ("" -1000)
set for [k = 0:30] x2tics add (sprintf("%d", 2**k) log(2**k))
set x2label "n"
set yrange [-0.6 : x_max + 1.2]
set ytics 0, 2 nomirror
set mytics 2
set ylabel "entropy H of a query's weights (nats)"
set y2range [-0.6 : x_max + 1.2]
set y2tics nomirror ("1" 0, "10" log(10), "100" log(100), "10^3" log(1e3), "10^4" log(1e4), "10^5" log(1e5))
set y2label "keys attended, e^H"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
# The frozen side of the raw logits: shaded, with the freezing point's line.
if (x_freeze > x_min - 0.4) {
    set object 1 rect from graph 0, graph 0 to first (x_freeze < x_max + 0.4 ? x_freeze : x_max + 0.4), graph 1 \
        fc rgb "#fbe7e7" fs solid 1.0 noborder behind
    set label 1 sprintf("raw frozen:\nσ_{raw} = %g > √(2 ln n)", sr) at first x_min - 0.3, graph 0.42 left tc rgb "#b22222"
}
if (x_freeze > x_min - 0.4 && x_freeze < x_max + 0.4) {
    set arrow 1 from first x_freeze, graph 0 to first x_freeze, graph 1 nohead dt 3 lw 2 lc rgb "#7f0000"
    set label 2 sprintf("dotted line, the freezing point: σ_{raw} = √(2 ln n)\nat ln n = σ²/2 = %g, n = e^{%g} ≈ %.0f", \
        x_freeze, x_freeze, exp(x_freeze)) at graph 0.98, graph 0.1 right tc rgb "#b22222"
}
# Below the frame: inside, it would hide the top of the curves.
set bmargin at screen 0.28
set key at screen 0.5, screen 0.015 center bottom box Left reverse samplen 3 spacing 1.2
set samples 400
plot $D using (column("ln_n")):(column("entropy_bound")) with lines dt 2 lw 1.5 lc rgb "#555555" \
         title "uniform attention: ln n", \
     $D using (column("ln_n")):(column("scaled_entropy_approx")) with lines lw 1.5 lc rgb "#1f77b4" \
         title sprintf("theory, scaled (σ = %g): ln n − σ²/2", ss), \
     $D using (column("ln_n")):(column("scaled_entropy")) with points pt 5 ps 1.1 lc rgb "#1f77b4" \
         title "measured, scaled " . scaled_name, \
     [x_min - 0.4 : x_max + 0.4] raw_theory(x) with lines dt (12, 6) lw 2 lc rgb "#d62728" \
         title sprintf("theory, raw (σ = %g): ln n − σ²/2, and O(1) (drawn at 0) where frozen", sr), \
     $D using (column("ln_n")):(column("raw_entropy")) with points pt 7 ps 1.1 lc rgb "#d62728" \
         title "measured, raw QK^T"
if (interactive) { pause mouse close }
