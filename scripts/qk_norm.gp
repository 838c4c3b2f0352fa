# qk_norm.gp: QK-norm against iid rows over d_k: the same variance, a smaller spread when n >> d_k, and bounded logits.
#
# Usage (reads summary CSVs from standard input, writes a PNG):
#   for f in "" "--qk-norm"; do
#       build/sdpa-var --dk 4:4096 --n 256 --trials 20 $f --format csv --columns all
#   done | gnuplot scripts/qk_norm.gp
#   for f in "" "--qk-norm"; do
#       build/sdpa-var --dk 4:4096 --n 256 --trials 20 $f --format csv --columns all
#   done | gnuplot -e "out='docs/figures/qk_norm.png'" scripts/qk_norm.gp
# The input is one or more summary CSVs of sdpa-var, concatenated: each run
# repeats the header line, and the script keeps the first and drops the
# repeats (all headers must be the same line, i.e. come from the same
# sdpa-var; otherwise it stops with an error).  The rows fall into two
# groups by the qk_norm_radius column: nan (no QK-norm, the rows of Q and K
# as drawn) and a number R (--qk-norm, R = sqrt(d_k), or --qk-scale R).  A
# group holds one row per d_k, so give at most one run of each kind; n_q,
# n_k, trials and dist must be the same in every row.  Either group alone is
# drawn too.
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default qk_norm.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1500,620
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows, against d_k (log x), for each group (docs/theory.md 8.4):
#   left:   raw_var / d_k (points, +-1 standard error raw_var_sd/sqrt(trials))
#           and raw_var_theory / d_k (lines).  QK-norm keeps
#           Var(S) = R^4/d_k = d_k for the default R = sqrt(d_k): both at 1.
#   middle: the relative spread of one trial's sample variance,
#           raw_var_sd / raw_var (points; log y), with the closed form
#           raw_var_sd_theory / raw_var_expected for iid rows (line; nan under
#           QK-norm, so not drawn), and sqrt(2/(N - 1)), N = n_q n_k, dashed:
#           the large-d_k limit of iid rows (docs/theory.md 4.6).  The dotted
#           vertical line is d_k = sqrt(n_q n_k).  For n >> d_k the spread of
#           iid rows comes from their fluctuating norms, which QK-norm fixes;
#           for n << d_k the two coincide.
#   right:  the largest |raw score| over all trials divided by sqrt(d_k),
#           raw_max_abs_logit / sqrt(d_k) (the largest |logit| after the usual
#           1/sqrt(d_k); log y), with the QK-norm bound R^2/sqrt(d_k)
#           (= sqrt(d_k) for the default R) as a line.  The bound is reached
#           at small d_k and far away at large d_k.
# Under QK-norm the rows are the iid rows rescaled, with the same seed the
# same draws, so the two groups differ only by the normalisation.
#
# Columns are read by name (column("raw_var")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
# Here awk copies the first line and every line that is not a copy of it (the
# headers of the second and later runs), ends the here-document and sets
# headers_differ if a later header-like line (one starting "dk,") differs.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "qk_norm.gp: pipe the summary CSVs of sdpa-var --format csv, one run without and one with --qk-norm, into gnuplot"
}
load '< echo "\$D << EOD"; awk ''NR == 1 { h = $0; print; next } $0 == h { next } /^dk,/ { bad = 1; next } { print } END { print "EOD"; print "headers_differ = " (bad ? 1 : 0) }'''
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (headers_differ) {
    exit error "qk_norm.gp: the concatenated CSVs have different headers (are some runs with --observed?)"
}
if (|$D| < 2) {
    exit error "qk_norm.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --format csv"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials seed dist qk_norm_radius raw_var raw_var_theory raw_var_expected raw_var_sd raw_var_sd_theory raw_max_abs_logit"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("qk_norm.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --format csv", c)
    }
}
do for [c in "n_q n_k trials"] {
    stats $D using (column(c)) nooutput
    if (STATS_min != STATS_max) {
        exit error sprintf("qk_norm.gp: the rows differ in '%s'; give the runs the same --n (--nq, --nk) and --trials", c)
    }
}
stats $D every ::0::0 using (nq = column("n_q"), nk = column("n_k"), \
    trials = column("trials"), dist = strcol("dist"), 0) nooutput
n_other = 0
stats $D using (n_other = n_other + (strcol("dist") eq dist ? 0 : 1), 0) nooutput
if (n_other > 0) {
    exit error "qk_norm.gp: the rows differ in 'dist'; give the runs the same --dist"
}
if (trials < 2) {
    exit error "qk_norm.gp: the spread across trials needs --trials 2 or more (20 or more for a readable figure)"
}

# The two groups: "iid" (qk_norm_radius nan) and "qk" (a radius).  Each
# (group, d_k) must occur once: a second run of the same kind would draw two
# curves as one.
# strcol, not column: a row where column() meets "nan" is dropped from a
# plot or stats, and then so would be the iid rows.
is_nan(s) = (s eq "nan" || s eq "-nan" || s eq "")
R_of(x) = column("qk_norm_radius")
group(x) = (is_nan(strcol("qk_norm_radius")) ? "iid" : "qk")
seen = " "
n_dup = 0
n_iid = 0
n_qk = 0
stats $D using (g = group(0), key = g . ":" . strcol("dk"), \
    (strstrt(seen, " " . key . " ") ? n_dup = n_dup + 1 : (seen = seen . key . " ")), \
    (g eq "qk" ? n_qk = n_qk + 1 : (n_iid = n_iid + 1)), 0) nooutput
if (n_dup > 0) {
    exit error "qk_norm.gp: a d_k occurs twice in one group; give one run without and one with --qk-norm (or --qk-scale R), not several of a kind"
}
groups = (n_iid > 0 ? "iid " : "") . (n_qk > 0 ? "qk" : "")
n_groups = words(groups)
# Rows of one group only; the others are undefined and are skipped.
of(g, val) = (group(0) eq g ? val : NaN)
# The closed-form spread exists only for iid rows with mean-0 entries.
n_sd_theory = 0
stats $D using (n_sd_theory = n_sd_theory + \
    (group(0) eq "iid" && !is_nan(strcol("raw_var_sd_theory")) ? 1 : 0), 0) nooutput

stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
N = nq * nk
floor_sd = sqrt(2.0 / (N - 1))
n_eq = sqrt(N)          # d_k = n, the border between the two regimes

# Ranges.  A spread or a largest |logit| of 0 cannot go on a log axis.
se(x) = column("raw_var_sd") / sqrt(column("trials"))
stats $D using ((column("raw_var") - se(0)) / column("dk")) nooutput
v_min = STATS_min
stats $D using ((column("raw_var") + se(0)) / column("dk")) nooutput
v_max = STATS_max
stats $D using (column("raw_var_theory") / column("dk")) nooutput
v_min = (STATS_min < v_min ? STATS_min : v_min)
v_max = (STATS_max > v_max ? STATS_max : v_max)
stats $D using (column("raw_var_sd") / column("raw_var")) nooutput
r_min = (STATS_min < floor_sd ? STATS_min : floor_sd)
r_max = STATS_max
if (n_sd_theory > 0) {
    stats $D using (of("iid", column("raw_var_sd_theory") / column("raw_var_expected"))) nooutput
    r_min = (STATS_min < r_min ? STATS_min : r_min)
    r_max = (STATS_max > r_max ? STATS_max : r_max)
}
stats $D using (column("raw_max_abs_logit") / sqrt(column("dk"))) nooutput
m_min = STATS_min
m_max = STATS_max
if (n_qk > 0) {
    stats $D using (of("qk", R_of(0) ** 2 / sqrt(column("dk")))) nooutput
    m_min = (STATS_min < m_min ? STATS_min : m_min)
    m_max = (STATS_max > m_max ? STATS_max : m_max)
}
if (!(r_min > 0) || !(m_min > 0)) {
    exit error "qk_norm.gp: a spread or a largest |logit| is 0 (n_q = n_k = 1?), which a log axis cannot show"
}

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "qk_norm"; default_width = 1500; default_height = 620
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- one colour, marker and legend title per group -----------------------------
colour(g) = (g eq "qk" ? "#ff7f0e" : "#1f77b4")
marker(g) = (g eq "qk" ? 5 : 7)
name(g) = (g eq "qk" ? "QK-norm: every row of Q and K rescaled to norm R" \
    : "iid rows of Q and K, as drawn")
per_dk = sprintf("%d trials per d_k", trials)
# With one seed, --qk-norm rescales the very rows the iid run drew.
stats $D using (column("seed")) nooutput
same_draws = (n_groups == 2 && STATS_min == STATS_max ? "; QK-norm rescales the same draws" : "")

# ---- layout shared by the three panels ---------------------------------------
set multiplot title sprintf("QK-norm vs iid rows of Q and K: the same variance, a smaller spread when n ≫ d_k, bounded logits\n{/*0.8 n_q = %d queries, n_k = %d keys, %s entries, %s%s}", \
    nq, nk, dist, per_dk, same_draws)
set logscale x 2
set format x "%g"
set xtics 4
set xrange [dk_min / 1.4 : dk_max * 1.4]
set xlabel "key dimension d_k"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
# The gaps between panels (y tick labels and ylabel) and the key strip below
# grow with the font (fontscale, from scripts/terminal.gp), so that a slide
# rendering at fontscale 1.6 keeps its labels apart.
key_top = 0.15 * fontscale
gap = 0.07 * fontscale
pw = (0.975 - 0.055 - 2 * gap) / 3     # panel width
set tmargin at screen 0.85
set bmargin at screen key_top + 0.11
set samples 2          # the reference lines are constants
unset key

# ---- left: the variance ------------------------------------------------------------
set lmargin at screen 0.055
set rmargin at screen 0.055 + pw
v_pad = (v_max - v_min) * 0.15
v_pad = (v_pad > 0.01 ? v_pad : 0.01)
set yrange [v_min - v_pad : v_max + v_pad]
set format y "%g"
set ylabel "Var(S) / d_k   (raw\\_var / d_k)"
set title "(a) score variance / d_k" offset 0, -0.4
plot for [i = 1:n_groups] $D using (of(word(groups, i), column("dk"))):(of(word(groups, i), column("raw_var_theory") / column("dk"))) \
        with lines lc rgb colour(word(groups, i)) notitle, \
     for [i = 1:n_groups] $D using (of(word(groups, i), column("dk"))):(of(word(groups, i), column("raw_var") / column("dk"))) \
           :(of(word(groups, i), se(0) / column("dk"))) \
        with yerrorbars pt marker(word(groups, i)) ps 1.1 lc rgb colour(word(groups, i)) notitle

# ---- middle: the relative spread of s^2 ---------------------------------------------
set lmargin at screen 0.055 + pw + gap
set rmargin at screen 0.055 + 2 * pw + gap
set logscale y 10
set format y "%g"
set mytics 10
set yrange [r_min / 1.8 : r_max * 1.8]
set ylabel "SD(s^2) / E[s^2]   (raw\\_var\\_sd / raw\\_var)"
set title "(b) spread of one trial's variance" offset 0, -0.4
# The regime border d_k = n, where it falls inside the range.
if (n_eq >= dk_min && n_eq <= dk_max) {
    set arrow 1 from n_eq, graph 0 to n_eq, graph 1 nohead lc rgb "#999999" dt 3 back
    set label 1 sprintf("d_k = n = %g", n_eq) at n_eq, graph 0.05 offset 0.6, 0 left textcolor rgb "#777777"
}
plot floor_sd with lines lc rgb "#555555" dt 2 notitle, \
     for [k = 1:(n_sd_theory > 0 ? 1 : 0)] $D using (of("iid", column("dk"))):(of("iid", column("raw_var_sd_theory") / column("raw_var_expected"))) \
        with lines lc rgb colour("iid") notitle, \
     for [i = 1:n_groups] $D using (of(word(groups, i), column("dk"))):(of(word(groups, i), column("raw_var_sd") / column("raw_var"))) \
        with points pt marker(word(groups, i)) ps 1.1 lc rgb colour(word(groups, i)) notitle
unset arrow 1
unset label 1

# ---- right: the largest |logit| ------------------------------------------------------
set lmargin at screen 0.975 - pw
set rmargin at screen 0.975
set logscale y 2
set format y "%g"
set ytics 2
set mytics 1
set yrange [m_min / 1.5 : m_max * 1.5]
set ylabel "max |S| / √d_k   (raw\\_max\\_abs\\_logit / √d_k)"
set title "(c) largest |logit| after 1/√d_k" offset 0, -0.4
plot for [k = 1:(n_qk > 0 ? 1 : 0)] $D using (of("qk", column("dk"))):(of("qk", R_of(0) ** 2 / sqrt(column("dk")))) \
        with lines lc rgb colour("qk") dt 2 notitle, \
     for [i = 1:n_groups] $D using (of(word(groups, i), column("dk"))):(of(word(groups, i), column("raw_max_abs_logit") / sqrt(column("dk")))) \
        with points pt marker(word(groups, i)) ps 1.1 lc rgb colour(word(groups, i)) notitle

# ---- the shared key, in two empty panels across the bottom -----------------
# Two vertical keys side by side: gnuplot sizes the columns of one
# horizontal key by byte counts, so UTF-8 titles would not share a row.
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
# Placed from its left edge: a centred key that gnuplot measures too narrow
# spills past the strip.
set key at screen 0.015, screen key_top / 2 left center vertical Left reverse samplen 2.5 spacing 1.15
set lmargin at screen 0.01
set rmargin at screen 0.45
plot -1 notitle, \
     for [i = 1:n_groups] keyentry with points pt marker(word(groups, i)) ps 1.1 \
        lc rgb colour(word(groups, i)) title name(word(groups, i)), \
     keyentry with lines lc rgb "#555555" title "lines: theory, (a) R^4/d_k^2, (b) raw\\_var\\_sd\\_theory"
set lmargin at screen 0.45
set rmargin at screen 0.99
set key at screen 0.5, screen key_top / 2 left center
plot -1 notitle, \
     keyentry with lines lc rgb "#555555" dt 2 title sprintf("(b) √(2/(N − 1)) = %.4f, N = n_q n_k: iid rows as d_k → ∞", floor_sd), \
     keyentry with lines lc rgb "#999999" dt 3 title "(b) d_k = n", \
     for [k = 1:(n_qk > 0 ? 1 : 0)] keyentry with lines lc rgb colour("qk") dt 2 title "(c) QK-norm bound: |S|/√d_k ≤ R^2/√d_k"

unset multiplot
if (interactive) { pause mouse close }
