# gradient_signal.gp: where the learning signal goes, raw QK^T against scaled, vs d_k.
#
# Usage (reads summary CSVs of runs with --grad from standard input, writes a PNG):
#   for n in 16 128 1024; do
#       build/sdpa-var --dk 1:16384 --nq 256 --nk $n --trials 2 --dv 64 --grad --format csv
#   done | gnuplot scripts/gradient_signal.gp
#   for n in 16 128 1024; do
#       build/sdpa-var --dk 1:16384 --nq 256 --nk $n --trials 2 --dv 64 --grad --format csv
#   done | gnuplot -e "out='docs/figures/gradient_signal.png'" scripts/gradient_signal.gp
# (about 15 s on 2 cores).  The input is one or more summary CSVs of sdpa-var
# --grad, concatenated: each run repeats the header line, and the script
# keeps the first and drops the repeats (all headers must be the same line).
# Each value of n_k becomes one group (one colour).  One run is fine too.
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default gradient_signal.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1500,640
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#   panel='keys'     one panel alone, larger, with its own key: 'total' (a),
#                    'keys' (b, without the e^H lines) or 'query' (c); default
#                    1000,640.  docs/figures/gradient_{total,keys,query}.png
#                    are these (scripts/figures.sh)
#
# What it shows, against d_k (log-log), for the loss L = sum_i g_i . o_i of a
# random upstream gradient G through O = softmax(c Q K^T) V (docs/theory.md
# section 12), raw (c = 1) and scaled (the run's --scale, 1/sqrt(d_k) by
# default), means over query rows and trials:
#   (a) the total gradient on a row of logits, RMS |dL/dz_i|
#       (raw_grad_logits, scaled_grad_logits; points) and its exact value
#       given the weights, sqrt(d_v |J|_F^2) (the *_grad_logits_theory
#       columns; lines).  At moderate d_k the raw total is LARGER than the
#       scaled one; it falls below it only once the largest weight nears 1,
#       at a d_k that grows with n_k (docs/theory.md section 12.2).
#   (b) how many keys that gradient reaches, (sum g_j^2)^2 / sum g_j^4
#       (raw_grad_keys, scaled_grad_keys; points), beside the effective
#       number of keys attended, e^H (raw_eff_keys, scaled_eff_keys; dotted).
#       Raw: about 2 keys at any d_k past 16; scaled: a fixed share of n_k.
#   (c) the gradient that reaches the query, RMS |dL/dq_i|, the factor c
#       included (raw_grad_q, scaled_grad_q): the raw one carries |k| ~
#       sqrt(d_k) and grows with d_k; the scaled one stays of order 1.
# Every run must use one --scale and a fixed --dv (the total scales with
# sqrt(d_v), so d_v = d_k, the default, would tilt the curves).
# Columns are read by name (column("raw_grad_q")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
# awk keeps the first line and drops later copies of it (the headers of the
# second and later runs), and sets headers_differ if a later header-like
# line (one starting "dk,") differs.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "gradient_signal.gp: pipe the summary CSV of sdpa-var --grad --format csv (one run or several) into gnuplot"
}
load '< echo "\$D << EOD"; awk ''NR == 1 { h = $0; print; next } $0 == h { next } /^dk,/ { bad = 1; next } { print } END { print "EOD"; print "headers_differ = " (bad ? 1 : 0) }'''
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (headers_differ) {
    exit error "gradient_signal.gp: the concatenated CSVs have different headers (are some runs with --observed?)"
}
if (|$D| < 2) {
    exit error "gradient_signal.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --grad --format csv"
}
header = "," . $D[1] . ","
if (strstrt(header, ",raw_grad_logits,") == 0) {
    exit error "gradient_signal.gp: the input has no gradient columns; run sdpa-var with --grad (and a fixed --dv)"
}
do for [c in "dk n_q n_k trials dist scale d_v raw_grad_logits scaled_grad_logits raw_grad_logits_theory scaled_grad_logits_theory raw_grad_keys scaled_grad_keys raw_eff_keys scaled_eff_keys raw_grad_q scaled_grad_q"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("gradient_signal.gp: the input has no column '%s'; pipe in the summary CSV of sdpa-var --grad --format csv", c)
    }
}

stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (dist = strcol("dist"), scale = strcol("scale"), 0) nooutput
stats $D using (strcol("scale") eq scale ? 0 : 1) nooutput
if (STATS_max > 0) {
    exit error "gradient_signal.gp: the input mixes several --scale choices; run sdpa-var with one"
}
stats $D using (column("d_v")) nooutput
if (STATS_min != STATS_max) {
    exit error sprintf("gradient_signal.gp: d_v runs from %d to %d; give every run the same --dv (the total gradient grows like sqrt(d_v))", STATS_min, STATS_max)
}
dv = STATS_min
stats $D using (column("n_k")) nooutput
if (STATS_min < 2) {
    exit error "gradient_signal.gp: with n_k = 1 the softmax is constant and every gradient is 0; use --nk 2 or more"
}
# "n_q = 256" or "n_q = 64 to 256"; the same for trials.
config = ""
do for [c in "n_q trials"] {
    stats $D using (column(c)) nooutput
    config = config . (config eq "" ? "" : ", ") . \
        (STATS_min == STATS_max ? sprintf("%s = %d", c, STATS_min) : sprintf("%s = %d to %d", c, STATS_min, STATS_max))
}
# The groups: the values of n_k, in the order they first appear (a word list).
groups = " "
stats $D using (g = sprintf("%d", column("n_k")), \
    (strstrt(groups, " " . g . " ") == 0 ? groups = groups . g . " " : 0), 0) nooutput
n_groups = words(groups)
of(g, val) = (sprintf("%d", column("n_k")) eq g ? val : NaN)
# y ranges of the three panels (log axes: every value must be positive).
do for [p in "a b c"] {
    cols = (p eq "a" ? "raw_grad_logits scaled_grad_logits raw_grad_logits_theory scaled_grad_logits_theory" \
        : p eq "b" ? "raw_grad_keys scaled_grad_keys raw_eff_keys scaled_eff_keys" : "raw_grad_q scaled_grad_q")
    lo = 1e300; hi = -1e300
    do for [c in cols] {
        stats $D using (column(c)) nooutput
        lo = (STATS_min < lo ? STATS_min : lo)
        hi = (STATS_max > hi ? STATS_max : hi)
    }
    if (lo <= 0) {
        exit error "gradient_signal.gp: a gradient column is 0 (one-hot rows, or a row with one key), which a log axis cannot show; use smaller d_k or more keys"
    }
    eval(p . "_lo = lo; " . p . "_hi = hi")
}

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
if (exists("panel")) {
    if (panel ne "total" && panel ne "keys" && panel ne "query") {
        exit error sprintf("gradient_signal.gp: panel='%s': use 'total', 'keys' or 'query'", panel)
    }
}
script = "gradient_signal"; default_width = 1500; default_height = 640
if (exists("panel")) { default_width = 1000 }
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- styles: colour per n_k, raw solid and filled, scaled dashed and open ----
colours = "#1f77b4 #2ca02c #d62728 #9467bd #ff7f0e #8c564b"
colour(i) = word(colours, (i - 1) % words(colours) + 1)
scaled_name = (scale eq "sqrt" ? "scaled QK^T/√d_k" : scale eq "dk" ? "scaled QK^T/d_k" \
    : scale eq "none" ? "\"scaled\" with --scale none: QK^T" : sprintf("scaled %s·QK^T", scale))

raw_pts = 'pt 7 ps 0.9 lw 1.5'
scaled_pts = 'pt 4 ps 0.9 lw 1.5 dt 2'
ytics_from(lo) = 2 ** floor(log(lo) / log(2))

# ---- one panel alone (panel='total', 'keys' or 'query') ----------------------
# The same series as the three-panel layout below, larger, with the key at
# the right; the keys panel leaves out the e^H lines, so that each panel has
# six series: three n_k (colours) by raw and scaled (styles).
if (exists("panel")) {
    set title sprintf("%s\n{/*0.8 %s, d_v = %d, %s entries; G and V standard normal; means over query rows and trials}", \
        (panel eq "total" ? "Total gradient on a row of logits: larger raw until the softmax is one-hot" \
        : panel eq "keys" ? "How many keys the logit gradient reaches: about 2 raw, many scaled" \
        : "Gradient on the query: grows with d_k raw, stays of order 1 scaled"), config, dv, dist)
    set logscale xy 2
    set format x "%g"
    set format y "%g"
    set xtics 1, (dk_max / dk_min > 256 ? 4 : 2)
    set xrange [dk_min / 1.5 : dk_max * 1.5]
    set xlabel "key dimension d_k"
    set grid xtics ytics lc rgb "#dddddd" lt 1
    set border back
    set lmargin 10
    set rmargin 27
    set key outside right center vertical Left reverse samplen 3 spacing 1.3 width 1
    if (panel eq "total") {
        set ylabel "RMS ‖∂L/∂z_i‖ over query rows"
        set yrange [a_lo / 1.3 : a_hi * 1.3]
        set ytics ytics_from(a_lo / 1.3), 2
        plot for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("raw_grad_logits_theory"))) \
                with lines lw 1.5 lc rgb colour(i) notitle, \
             for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("scaled_grad_logits_theory"))) \
                with lines lw 1.5 dt 2 lc rgb colour(i) notitle, \
             for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("raw_grad_logits"))) \
                with points @raw_pts lc rgb colour(i) notitle, \
             for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("scaled_grad_logits"))) \
                with points @scaled_pts lc rgb colour(i) notitle, \
             for [i = 1:n_groups] keyentry with lines lw 4 lc rgb colour(i) title sprintf("n_k = %s keys", word(groups, i)), \
             keyentry with points pt 7 ps 0.9 lc rgb "black" title "raw QK^T", \
             keyentry with points pt 4 ps 0.9 lc rgb "black" title scaled_name, \
             keyentry with lines lw 1.5 lc rgb "black" title "theory, raw", \
             keyentry with lines lw 1.5 dt 2 lc rgb "black" title "theory, scaled"
    } else {
        if (panel eq "keys") {
            stats $D using (column("raw_grad_keys")) nooutput
            k_hi = STATS_max
            stats $D using (column("scaled_grad_keys")) nooutput
            k_hi = (STATS_max > k_hi ? STATS_max : k_hi)
            set ylabel "effective number of keys (Σg_j^2)^2 / Σg_j^4"
            set yrange [1 : 2 ** ceil(log(k_hi * 1.3) / log(2))]
            set ytics 1, 2
            col_raw = "raw_grad_keys"; col_scaled = "scaled_grad_keys"
        } else {
            set ylabel "RMS ‖∂L/∂q_i‖, factor c included"
            set yrange [c_lo / 1.3 : c_hi * 1.3]
            set ytics ytics_from(c_lo / 1.3), 2
            col_raw = "raw_grad_q"; col_scaled = "scaled_grad_q"
        }
        plot for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column(col_raw))) \
                with linespoints @raw_pts lc rgb colour(i) notitle, \
             for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column(col_scaled))) \
                with linespoints @scaled_pts lc rgb colour(i) notitle, \
             for [i = 1:n_groups] keyentry with lines lw 4 lc rgb colour(i) title sprintf("n_k = %s keys", word(groups, i)), \
             keyentry with linespoints pt 7 ps 0.9 lw 1.5 lc rgb "black" title "raw QK^T", \
             keyentry with linespoints pt 4 ps 0.9 lw 1.5 dt 2 lc rgb "black" title scaled_name
    }
    if (interactive) { pause mouse close }
    exit
}

# ---- layout shared by the three panels --------------------------------------
# Margins are fixed in screen coordinates, so the panels have the same size
# and each y label has its own room left of its panel.  The key goes in a
# fourth, empty panel across the bottom, where it covers no data.
set multiplot title sprintf("Where the learning signal goes: gradients through softmax(c QK^T) V vs d_k, raw (c = 1) and scaled\n{/*0.8 %s, d_v = %d, %s entries; upstream gradient G and values V standard normal; means over query rows and trials}", \
    config, dv, dist)
set logscale xy 2
set format x "%g"
set format y "%g"
set xtics 1, (dk_max / dk_min > 256 ? 16 : 4)
set xrange [dk_min / 1.5 : dk_max * 1.5]
set xlabel "key dimension d_k"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
set tmargin at screen 0.80
set bmargin at screen 0.27
unset key

# ---- (a) total logit gradient -------------------------------------------------
set lmargin at screen 0.075
set rmargin at screen 0.315
set title "(a) total logit gradient"
set ylabel "RMS ‖∂L/∂z_i‖"
set yrange [a_lo / 1.3 : a_hi * 1.3]
set ytics ytics_from(a_lo / 1.3), 2
plot for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("raw_grad_logits_theory"))) \
        with lines lw 1.5 lc rgb colour(i) notitle, \
     for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("scaled_grad_logits_theory"))) \
        with lines lw 1.5 dt 2 lc rgb colour(i) notitle, \
     for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("raw_grad_logits"))) \
        with points @raw_pts lc rgb colour(i) notitle, \
     for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("scaled_grad_logits"))) \
        with points @scaled_pts lc rgb colour(i) notitle

# ---- (b) keys the gradient reaches ------------------------------------------------
set lmargin at screen 0.405
set rmargin at screen 0.645
set title "(b) keys it reaches"
set ylabel "effective number of keys"
set yrange [0.8 : b_hi * 1.6]
set ytics 1, 4
plot for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("raw_eff_keys"))) \
        with lines lw 1.5 dt 3 lc rgb colour(i) notitle, \
     for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("scaled_eff_keys"))) \
        with lines lw 1.5 dt 3 lc rgb colour(i) notitle, \
     for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("raw_grad_keys"))) \
        with linespoints @raw_pts lc rgb colour(i) notitle, \
     for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("scaled_grad_keys"))) \
        with linespoints @scaled_pts lc rgb colour(i) notitle

# ---- (c) gradient on the query --------------------------------------------------
set lmargin at screen 0.735
set rmargin at screen 0.975
set title "(c) query gradient"
set ylabel "RMS ‖∂L/∂q_i‖, factor c included"
set yrange [c_lo / 1.3 : c_hi * 1.3]
set ytics ytics_from(c_lo / 1.3), 4
plot for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("raw_grad_q"))) \
        with linespoints @raw_pts lc rgb colour(i) notitle, \
     for [i = 1:n_groups] $D using (column("dk")):(of(word(groups, i), column("scaled_grad_q"))) \
        with linespoints @scaled_pts lc rgb colour(i) notitle

# ---- the shared key, in two empty panels across the bottom ------------------
# One line for the colours, one for the styles: a horizontal key of one row
# is laid out reliably, a key of several rows and columns is not.
unset title
unset logscale
unset border
unset tics
unset xlabel
unset ylabel
unset grid
set lmargin at screen 0.03
set rmargin at screen 0.97
set xrange [0 : 1]
set yrange [0 : 1]
set key center center horizontal maxrows 1 Left reverse samplen 3 width 2
set tmargin at screen 0.16
set bmargin at screen 0.09
plot -1 notitle, \
     for [i = 1:n_groups] keyentry with lines lw 4 lc rgb colour(i) title sprintf("n_k = %s keys", word(groups, i))
set tmargin at screen 0.08
set bmargin at screen 0.01
plot -1 notitle, \
     keyentry with linespoints pt 7 ps 0.9 lw 1.5 lc rgb "black" title "raw QK^T", \
     keyentry with linespoints pt 4 ps 0.9 lw 1.5 dt 2 lc rgb "black" title scaled_name, \
     keyentry with lines lw 1.5 lc rgb "black" title "(a) theory √(d_v ‖J‖_F^2)", \
     keyentry with lines lw 1.5 dt 3 lc rgb "black" title "(b) e^H, keys attended"

unset multiplot
if (interactive) { pause mouse close }
