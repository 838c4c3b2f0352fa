# projection_init.gp: with projections Q = X W_Q, K = X W_K, the initialisation decides whether sqrt(d_k) is the right divisor.
#
# Usage (reads summary CSVs from standard input, writes a PNG):
#   for i in xavier lecun normal; do
#       build/sdpa-var --dk 8:512 --n 256 --d-model 512 --init $i --format csv
#   done | gnuplot scripts/projection_init.gp
#   for i in xavier lecun normal; do
#       build/sdpa-var --dk 8:512 --n 256 --d-model 512 --init $i --format csv
#   done | gnuplot -e "out='docs/figures/projection_init.png'" scripts/projection_init.gp
# The input is one or more summary CSVs of sdpa-var --d-model D --init NAME,
# concatenated: each run repeats the header line, and the script keeps the
# first and drops the repeats (all headers must be the same line, i.e. come
# from the same sdpa-var; otherwise it stops with an error).  Each value of
# the `init` column (xavier, lecun, normal) becomes one group; every row must
# have the same d_model and the default scale sqrt(d_k).
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default projection_init.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,700
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows, against d_k (log-log), for each initialisation of the
# projection matrices W_Q, W_K (D x d_k, normal entries of variance w):
#   points: scaled_var, the sample variance of the scores QK^T/sqrt(d_k);
#   lines:  scaled_var_theory = Var(q) Var(k), with Var(q) = Var(k) = D w
#           (q_var_theory, k_var_theory, docs/theory.md section 8.6):
#             lecun  (w = 1/D):          1, at every d_k;
#             xavier (w = 2/(D + d_k)):  (2D/(D + d_k))^2, 4 for d_k << D,
#                                        1 only at d_k = D;
#             normal (w = 1):            D^2.
# sqrt(d_k) cancels the growth of the dot product with d_k only when the
# entries of q and k have variance 1, which among the three only lecun
# (variance-preserving, fan-in) initialisation gives.  The dashed line is 1.
#
# The rows of a group should come in order of d_k, as one run gives them.
# Columns are read by name (column("scaled_var")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
# Here awk copies the first line and every line that is not a copy of it (the
# headers of the second and later runs), ends the here-document and sets
# headers_differ if a later header-like line (one starting "dk,") differs.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "projection_init.gp: pipe the summary CSV of sdpa-var --d-model D --init NAME --format csv (one run or several) into gnuplot"
}
load '< echo "\$D << EOD"; awk ''NR == 1 { h = $0; print; next } $0 == h { next } /^dk,/ { bad = 1; next } { print } END { print "EOD"; print "headers_differ = " (bad ? 1 : 0) }'''
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (headers_differ) {
    exit error "projection_init.gp: the concatenated CSVs have different headers (are some runs with other options?)"
}
if (|$D| < 2) {
    exit error "projection_init.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --d-model D --init NAME"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist scale d_model init cross scaled_var scaled_var_theory"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("projection_init.gp: the input has no column '%s'; pipe in the summary CSV of sdpa-var --d-model D --init NAME", c)
    }
}
# Every row must come from a projection run with the sqrt(d_k) scale.
bad_rows = 0
stats $D using (bad_rows = bad_rows + (strcol("scale") ne "sqrt" || !(column("d_model") > 0) ? 1 : 0), 0) nooutput
if (bad_rows > 0) {
    exit error sprintf("projection_init.gp: %d rows are not from --d-model D with the default --scale sqrt", bad_rows)
}
stats $D using (column("d_model")) nooutput
if (STATS_min != STATS_max) {
    exit error "projection_init.gp: the input mixes several d_model; one figure per D"
}
D = STATS_min

stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
# Labels from the first row (stats evaluates the expression, so it can assign).
stats $D every ::0::0 using (nq = column("n_q"), nk = column("n_k"), trials = column("trials"), \
    dist = strcol("dist"), cross = column("cross"), 0) nooutput
per_dk = (trials == 1 ? "one trial" : sprintf("mean over %d trials", trials))
attn = (cross != 0 ? "cross-attention (keys from their own tokens)" : "self-attention (Q and K from the same tokens X)")
# The groups, in the order they first appear: a word list of init names.
inits = " "
stats $D using (s = strcol("init"), \
    (strstrt(inits, " " . s . " ") == 0 ? inits = inits . s . " " : 0), 0) nooutput
n_inits = words(inits)
stats $D using (column("scaled_var")) nooutput
v_min = STATS_min
v_max = STATS_max
stats $D using (column("scaled_var_theory")) nooutput
v_min = (STATS_min < v_min ? STATS_min : v_min)
v_max = (STATS_max > v_max ? STATS_max : v_max)
v_min = (v_min < 1.0 ? v_min : 1.0)    # the reference line 1 is always shown
if (v_min <= 0) {
    exit error "projection_init.gp: a variance is 0, which a log axis cannot show"
}

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "projection_init"; default_width = 1000; default_height = 700
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- one colour, marker and legend title per initialisation -------------------
other_colours = "#9467bd #8c564b #e377c2 #7f7f7f"
colour(s, i) = (s eq "lecun" ? "#1f77b4" : s eq "xavier" ? "#2ca02c" : s eq "normal" ? "#d62728" \
    : word(other_colours, (i - 1) % words(other_colours) + 1))
marker(s) = (s eq "lecun" ? 7 : s eq "xavier" ? 5 : s eq "normal" ? 9 : 13)
# xavier and lecun coincide at d_k = D: the xavier square is drawn larger,
# so that it shows around the lecun disc.
msize(s) = (s eq "xavier" ? 1.8 : 1.3)
name(s) = (s eq "lecun" ? "lecun: Var(W) = 1/D, theory 1" \
    : s eq "xavier" ? "xavier: Var(W) = 2/(D + d_k), theory (2D/(D + d_k))^2" \
    : s eq "normal" ? sprintf("normal: Var(W) = 1, theory D^2 = %g", D * D) : s)
# Rows of one group only; the others are undefined and are skipped.
of(s, col) = (strcol("init") eq s ? column(col) : NaN)

# ---- axes -------------------------------------------------------------------
set title sprintf("Variance of the scaled scores QK^T/√d_k when Q = X W_Q, K = X W_K\n{/*0.8 D = d\\_model = %d, n_q = %d, n_k = %d, %s, %s entries of X, %s per d_k}", \
    D, nq, nk, attn, dist, per_dk)
set logscale xy 2
set format x "%g"
set format y "2^{%L}"
set xtics 2
set xrange [dk_min / 1.4 : dk_max * 1.4]
# A margin of a factor 1.5 above and below the data: no empty decade above
# the top curve, and the points at 1 clear of the bottom border.
ylo = v_min / 1.5
yhi = v_max * 1.5
set yrange [ylo : yhi]
set ytics 4 ** floor(log(ylo) / log(4)), 4   # powers of 4
set xlabel "key dimension d_k"
set ylabel "variance of QK^T/√d_k   (scaled\\_var)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
# The key in the empty band between the curves near 1 (lecun, xavier) and
# the curve near D^2 (normal).
set key at graph 0.97, graph 0.65 right top box opaque spacing 1.3 width 1 samplen 2 Left reverse
set samples 2          # the reference line is a constant

plot 1 with lines lc rgb "#555555" dt 2 title "1: what dividing by √d_k is meant to give", \
     for [i = 1:n_inits] $D using (of(word(inits, i), "dk")):(of(word(inits, i), "scaled_var_theory")) \
        with lines lc rgb colour(word(inits, i), i) notitle, \
     for [i = 1:n_inits] $D using (of(word(inits, i), "dk")):(of(word(inits, i), "scaled_var")) \
        with points pt marker(word(inits, i)) ps msize(word(inits, i)) lc rgb colour(word(inits, i), i) \
        title name(word(inits, i)), \
     keyentry with lines lc rgb "#555555" title "lines: theory Var(q) Var(k) (scaled\\_var\\_theory)"

if (interactive) { pause mouse close }
