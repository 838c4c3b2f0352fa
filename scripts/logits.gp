# logits.gp: given rows of logits, each row's softmax weights at each scale as
# bars side by side, a panel a row: the template of sdpa-var --logits ...
# --format gnuplot, and a script for the CSV.
#
# Usage (reads the CSV of sdpa-var --logits from standard input, writes a PNG):
#   build/sdpa-var --logits "-20,3,25,-15" --logits "1,2,3,4,5" --dk 16 --scale none,sqrt,dk \
#       --format csv | gnuplot -e "out='w.png'" scripts/logits.gp
# sdpa-var --format gnuplot writes this script with the CSV inline (a
# datablock $D, and `inline = 1`, so it reads no standard input).
# Options: out, size, fontscale, term, as every script (scripts/terminal.gp).
#
# A panel's y axis is logarithmic where a weight is below 1e-3 (the lesson
# of [-20, 3, 25, -15] is its 1e-20 weights, flat on a linear axis). The
# key, above the first panel, names the scales. Columns are read by name
# (row, scale, scale_value, key, logit, weight).

# ---- read standard input once (see sweep.gp) ----------------------------------
script_path = ARG0   # before the load below, which sets ARG0 to its own
if (!exists("inline")) {
    if (system("[ -t 0 ] && echo tty") eq "tty") {
        exit error "logits.gp: pipe the CSV of sdpa-var --logits ... --format csv into gnuplot"
    }
    load '< echo "\$D << EOD"; cat; echo EOD'
}
set datafile separator comma
set datafile columnheaders
if (|$D| < 2) {
    exit error "logits.gp: need the header and 1 or more lines of the CSV of sdpa-var --logits"
}
header = "," . $D[1] . ","
do for [c in "row scale scale_value key logit weight"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("logits.gp: the input has no column '%s'; pipe in the CSV of sdpa-var --logits", c)
    }
}
# The scales, in order, and their labels; the rows.
scales = ""; labels = ""
sv_add(list, w) = (strstrt(" " . list . " ", " " . w . " ") == 0 ? list . " " . w : list)
stats $D using (scales = sv_add(scales, strcol("scale")), 0) nooutput
ns = words(scales)
stats $D using (column("row")) nooutput
rows = STATS_max + 1
do for [s = 1:ns] {
    stats $D using (strcol("scale") eq word(scales, s) ? column("scale_value") : NaN) nooutput
    v = STATS_min; sc = word(scales, s)
    eval sprintf("label_%d = \"%s\"", s, sc eq "none" ? "as given" : \
        sprintf("* %.4g%s", v, sc eq "sqrt" ? " = 1/sqrt(d_k)" : sc eq "dk" ? " = 1/d_k" : ""))
}

# ---- terminal and output (see sweep.gp) -----------------------------------
script = "logits"; default_width = 800; default_height = (rows > 1 ? 300 * (rows < 4 ? rows : 4) : 450)
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(script_path, strlen(script_path)) }
load dir . "terminal.gp"

set multiplot layout rows,1
set style fill solid 0.6
set grid ytics
set key outside top horizontal noenhanced font ",9" samplen 1
set ylabel "weight"
set format y "%g"
width = 0.8 / ns
first(r) = (column("row") == r && strcol("scale") eq word(scales, 1))
do for [r = 0:rows - 1] {
    # The title names the row's first 12 logits; a tic a key, at its logit.
    unset logscale y   # stats skips what the last panel's ranges exclude
    set autoscale xy
    heading = sprintf("Row %d: logits", r); tics = ""; low = 1
    stats $D using (first(r) ? (heading = heading . (column("key") < 12 ? sprintf("%s %.4g", column("key") > 0 ? "," : "", column("logit")) : \
        column("key") == 12 ? ", ..." : ""), tics = tics . sprintf("%s\"%.3g\" %d", column("key") > 0 ? ", " : "", column("logit"), column("key"))) : 0, \
        column("row") == r && column("weight") < low ? low = column("weight") : 0, 0) nooutput
    stats $D using (first(r) ? column("key") : NaN) nooutput
    n = STATS_max + 1
    if (r == 1) { unset key }
    set title heading noenhanced
    eval "set xtics (" . tics . ")"
    set xrange [-0.6 : n - 0.4]
    if (low < 1e-3) {
        set logscale y
        set yrange [*:1.5]
    } else {
        unset logscale y
        set yrange [0:1]
    }
    plot for [s = 1:ns] $D using (column("row") == r && strcol("scale") eq word(scales, s) ? \
            column("key") + (s - 1 - (ns - 1) / 2.0) * width : NaN):(column("weight")):(width) \
            with boxes lc s title value(sprintf("label_%d", s))
}
unset multiplot

if (interactive) { pause mouse close }
