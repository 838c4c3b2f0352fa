# entropy_vs_dk.gp: softmax entropy per query against d_k, raw and scaled, with ln n_k.
#
# Usage (reads the summary CSV of one --scale and one n_k from standard input, writes a PNG):
#   build/sdpa-var --dk 1:1024 --n 1111 --trials 4 \
#       --columns dk,scale,n_q,n_k,trials,dist,raw_entropy,scaled_entropy \
#       | gnuplot -e "out='entropy_vs_dk.png'" scripts/entropy_vs_dk.gp
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default entropy_vs_dk.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp documents these)
#
# What it shows: the entropy H of a query's softmax weights in nats, mean over
# queries and trials (raw_entropy, scaled_entropy), against d_k (log axis).
# ln n_k is its largest value, uniform attention; 0 is one-hot attention.
# The right axis reads a height H as exp(H) keys: at the mean entropy that is
# exp(mean H), not the mean of e^H (raw_eff_keys), which is larger (Jensen).
# The scale is read from the data's scale column.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "entropy_vs_dk.gp: pipe the summary CSV of sdpa-var --format csv into gnuplot"
}
load '< echo "\$D << EOD"; cat; echo EOD'
set datafile separator comma
set datafile columnheaders
if (|$D| < 2) {
    exit error "entropy_vs_dk.gp: need the header and 1 or more rows of the summary CSV of sdpa-var"
}
header = "," . $D[1] . ","
do for [c in "dk scale n_q n_k trials dist raw_entropy scaled_entropy"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("entropy_vs_dk.gp: the input has no column '%s'; pipe in sdpa-var's summary CSV with it (--columns)", c)
    }
}
stats $D every ::0::0 using (scale = strcol("scale"), nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), dist = strcol("dist"), 0) nooutput
stats $D using ((strcol("scale") eq scale && column("n_k") == nk) ? 0 : 1) nooutput
if (STATS_max > 0) {
    exit error "entropy_vs_dk.gp: the input mixes several --scale or n_k; run sdpa-var with one of each"
}
stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max

script = "entropy_vs_dk"; default_width = 1000; default_height = 640
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

scaled_name = (scale eq "sqrt" ? "QK^T/√d_k" : scale eq "dk" ? "QK^T/d_k" \
    : scale eq "none" ? "QK^T (--scale none)" : sprintf("%s·QK^T", scale))
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
lnn = log(nk)

set title sprintf("Softmax entropy per query against d_k: raw falls towards one-hot, scaled stays near ln n_k\n{/*0.8 n_q = %d, n_k = %d, %s entries, %s per d_k}", \
    nq, nk, dist, per_dk)
set logscale x 2
set format x "%g"
set xtics 1, (dk_max / dk_min > 64 ? 4 : 2)
set xrange [dk_min / 1.4 : dk_max * 1.4]
set xlabel "key dimension d_k"
set yrange [-0.3 : lnn + 1]
set ytics 0, 1 nomirror
set ylabel "entropy H of a query's weights (nats)"
# The right axis: exp(H) keys at the height H (exp of the mean entropy).
set y2range [-0.3 : lnn + 1]
set y2tics nomirror ("1" 0, "2" log(2), "5" log(5), "10" log(10), "30" log(30), \
    "100" log(100), "300" log(300), "1000" log(1000))
set y2label "keys attended, exp(mean H)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set key at graph 0.97, graph 0.8 right top box opaque Left reverse samplen 2 spacing 1.3
set samples 2
plot lnn with lines dt 2 lw 1.5 lc rgb "#555555" title sprintf("uniform attention: ln n_k = ln %d = %.2f", nk, lnn), \
     0 with lines dt 3 lw 1.5 lc rgb "#555555" title "one-hot attention: 0", \
     $D using (column("dk")):(column("raw_entropy")) with linespoints pt 7 ps 1 lc rgb "#d62728" title "raw QK^T", \
     $D using (column("dk")):(column("scaled_entropy")) with linespoints pt 5 ps 1 lc rgb "#1f77b4" title "scaled " . scaled_name
if (interactive) { pause mouse close }
