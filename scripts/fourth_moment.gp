# fourth_moment.gp: how far one trial's sample variance strays, for entries with light and heavy tails.
#
# Usage (reads summary CSVs from standard input, writes a PNG):
#   for d in normal uniform rademacher t; do
#       build/sdpa-var --dk 1:256 --n 16 --trials 2000 --dist $d --format csv --columns all
#   done | gnuplot scripts/fourth_moment.gp
#   for d in normal uniform rademacher t; do
#       build/sdpa-var --dk 1:256 --n 16 --trials 2000 --dist $d --format csv --columns all
#   done | gnuplot -e "out='docs/figures/fourth_moment.png'" scripts/fourth_moment.gp
# The input is one or more summary CSVs of sdpa-var, concatenated: each run
# repeats the header line, and the script keeps the first and drops the
# repeats (all headers must be the same line, i.e. come from the same
# sdpa-var; otherwise it stops with an error).  Each (dist, nu) becomes one
# group: runs of --dist t with different --nu are different groups.
# Options, each given as -e "name=value" BEFORE the script name:
#   out='file.png'   output file (default fourth_moment.png in the current directory);
#                    .png, .pdf or .svg picks the terminal, any other is an error
#   size='1600,900'  width,height in pixels (inches for .pdf); default 1000,700
#   fontscale=1.6    font, line and point scale (1.6 at 1600,900 for a slide)
#   term='qt'        a window instead of a file (scripts/terminal.gp, loaded
#                    from this script's directory, documents all of these)
#
# What it shows, against d_k (log-log), for each distribution of the entries
# of Q and K: the relative spread of the per-trial sample variance s^2 of the
# n_q n_k raw scores, SD(s^2)/E[s^2].
#   points: raw_var_sd / raw_var_expected, the SD measured across the trials;
#   lines:  raw_var_sd_theory / raw_var_expected, the closed form of
#           docs/theory.md section 4, which depends on the entries only
#           through their fourth moment m_4 = E[x^4]: 1 (rademacher),
#           1.8 (uniform), 3 (normal), 3(nu - 2)/(nu - 4) (Student's t, 6
#           for the default nu = 6).
# Every distribution has mean 0 and variance 1, so E[s^2] = d_k (N-1)/N is
# the same for all of them; only the spread around it changes: heavier tails
# (larger m_4) spread more, rademacher (m_4 = 1) least.  As d_k grows the
# fourth moment stops mattering: the exact formula of section 4.6 tends to
# SD/E = sqrt(2/(N - 1)), N = n_q n_k, for every distribution (dashed, drawn
# when all rows have the same N).
#
# The rows of a group should come in order of d_k, as one run gives them.
# Columns are read by name (column("raw_var_sd")), so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# gnuplot reads a data file again for every plot element and stats call, and
# a pipe can be read only once; so copy stdin into the datablock $D first.
# load '< cmd' runs cmd through the shell, which inherits our stdin, and
# executes its output as gnuplot commands: a here-document defining $D.
# Here awk copies the first line and every line that is not a copy of it (the
# headers of the second and later runs), ends the here-document and sets
# headers_differ if a later header-like line (one starting "dk,") differs.
if (system("[ -t 0 ] && echo tty") eq "tty") {
    exit error "fourth_moment.gp: pipe the summary CSV of sdpa-var --format csv (one run or several) into gnuplot"
}
load '< echo "\$D << EOD"; awk ''NR == 1 { h = $0; print; next } $0 == h { next } /^dk,/ { bad = 1; next } { print } END { print "EOD"; print "headers_differ = " (bad ? 1 : 0) }'''
set datafile separator comma
set datafile columnheaders     # first line of $D holds the column names

# Fail with a clear message, not gnuplot's "No valid data points", when the
# input is empty or is not the CSV this script expects.
if (headers_differ) {
    exit error "fourth_moment.gp: the concatenated CSVs have different headers (are some runs with --observed?)"
}
if (|$D| < 2) {
    exit error "fourth_moment.gp: need the header and 1 or more rows of the summary CSV of sdpa-var --format csv"
}
header = "," . $D[1] . ","
do for [c in "dk n_q n_k trials dist nu raw_var_expected raw_var_sd raw_var_sd_theory"] {
    if (strstrt(header, "," . c . ",") == 0) {
        exit error sprintf("fourth_moment.gp: the input has no column '%s' (sdpa-var --columns all writes every column); pipe in the summary CSV of sdpa-var --format csv", c)
    }
}

stats $D using (column("dk")) nooutput
dk_min = STATS_min
dk_max = STATS_max
stats $D using (column("trials")) nooutput
if (STATS_min < 2) {
    exit error "fourth_moment.gp: the SD across trials needs --trials 2 or more (1000 or more for a smooth figure)"
}
# The title gives n_q, n_k and trials when every row has the same.
config = ""
stats $D using (column("n_q") * column("n_k")) nooutput
n_scores = (STATS_min == STATS_max ? STATS_min : 0)
limit = (n_scores > 1 ? sqrt(2.0 / (n_scores - 1)) : NaN)
do for [c in "n_q n_k trials"] {
    stats $D using (column(c)) nooutput
    lbl = (c eq "n_q" ? "n_q" : c eq "n_k" ? "n_k" : "trials")
    config = config . (config eq "" ? "" : ", ") . \
        (STATS_min == STATS_max ? sprintf("%s = %d", lbl, STATS_min) : sprintf("%s = %d to %d", lbl, STATS_min, STATS_max))
}
# The groups, in the order they first appear: "normal", "t:6", ... (a word
# list; a dist name has no space, and nu is "nan" except for t).  strcol,
# not column: a row where column() meets a non-number is dropped from a plot.
no_nu(s) = (s eq "nan" || s eq "-nan" || s eq "")
group(x) = strcol("dist") . (no_nu(strcol("nu")) ? "" : ":" . strcol("nu"))
groups = " "
stats $D using (g = group(0), \
    (strstrt(groups, " " . g . " ") == 0 ? groups = groups . g . " " : 0), 0) nooutput
n_groups = words(groups)
# Rows of one group only; the others are undefined and are skipped.
of(g, val) = (group(0) eq g ? val : NaN)
ratio(c) = column(c) / column("raw_var_expected")
stats $D using (ratio("raw_var_sd")) nooutput
r_min = STATS_min
r_max = STATS_max
stats $D using (ratio("raw_var_sd_theory")) nooutput
r_min = (STATS_min < r_min ? STATS_min : r_min)
r_max = (STATS_max > r_max ? STATS_max : r_max)
if (r_min <= 0) {
    exit error "fourth_moment.gp: a spread is 0 (e.g. n_q = n_k = 1), which a log axis cannot show"
}

# ---- terminal and output --------------------------------------------------
# Only now that the input is known to be good, so that a failed run leaves
# no empty output file behind.
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "fourth_moment"; default_width = 1000; default_height = 700
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"

# ---- one colour, marker and legend title per group -----------------------------
dist_of(g) = (strstrt(g, ":") ? g[1 : strstrt(g, ":") - 1] : g)
nu_of(g) = (strstrt(g, ":") ? real(g[strstrt(g, ":") + 1 :]) : NaN)
m4(g) = (dist_of(g) eq "normal" ? 3 : dist_of(g) eq "uniform" ? 1.8 \
    : dist_of(g) eq "rademacher" ? 1 : dist_of(g) eq "t" ? 3 * (nu_of(g) - 2) / (nu_of(g) - 4) : NaN)
name(g) = (dist_of(g) eq "t" ? sprintf("Student's t, ν = %g (m_4 = %.3g)", nu_of(g), m4(g)) \
    : m4(g) == m4(g) ? sprintf("%s (m_4 = %g)", dist_of(g), m4(g)) : dist_of(g))
# Student's t groups (one per nu) take the t colours in turn, red first.
t_colours = "#d62728 #ff7f0e #8c564b #e377c2"
t_rank(i) = sum [j = 1:i] (dist_of(word(groups, j)) eq "t" ? 1 : 0)
colour(g, i) = (dist_of(g) eq "normal" ? "#1f77b4" : dist_of(g) eq "uniform" ? "#2ca02c" \
    : dist_of(g) eq "rademacher" ? "#9467bd" : word(t_colours, (t_rank(i) + 3) % words(t_colours) + 1))
marker(g) = (dist_of(g) eq "normal" ? 7 : dist_of(g) eq "uniform" ? 5 \
    : dist_of(g) eq "rademacher" ? 9 : 11)

# ---- axes -------------------------------------------------------------------
set title sprintf("Relative spread of one trial's sample variance s^2 of the raw scores\n{/*0.8 %s; SD across trials (points) and theory (lines)}", config)
set logscale xy 2
set format x "%g"
set format y "%.3g"
set xtics 2
set xrange [dk_min / 1.4 : dk_max * 1.4]
ylo = r_min / 1.6
yhi = r_max * 2.5         # room for the key above the curves
set yrange [ylo : yhi]
set ytics 2 ** floor(log(ylo) / log(2)), 2
set xlabel "key dimension d_k"
set ylabel "SD(s^2) / E[s^2]   (raw\\_var\\_sd / raw\\_var\\_expected)"
set grid xtics ytics lc rgb "#dddddd" lt 1
set border back
# Below the plot: inside, it hid the Student-t points at small d_k.
set key below box maxrows 3 spacing 1.2 width 1 samplen 2 Left reverse
set samples 2          # the limit line is a constant

# (An iteration over 1:0 leaves the limit out, without a warning.)
plot for [k = 1:(limit == limit ? 1 : 0)] limit with lines lc rgb "#555555" dt 2 \
        title sprintf("d_k → ∞: √(2/(N − 1)) = %.4f, N = n_q n_k", limit), \
     for [i = 1:n_groups] $D using (of(word(groups, i), column("dk"))):(of(word(groups, i), ratio("raw_var_sd_theory"))) \
        with lines lc rgb colour(word(groups, i), i) notitle, \
     for [i = 1:n_groups] $D using (of(word(groups, i), column("dk"))):(of(word(groups, i), ratio("raw_var_sd"))) \
        with points pt marker(word(groups, i)) ps 1.3 lc rgb colour(word(groups, i), i) \
        title name(word(groups, i)), \
     keyentry with lines lc rgb "#555555" title "lines: theory, raw\\_var\\_sd\\_theory / raw\\_var\\_expected"

if (interactive) { pause mouse close }
