# Time against n and against d_k, sdpa-var beside the bare-dgemm limit,
# log-log. Reads docs/performance_scaling.csv (written by scripts/bench.sh)
# from stdin:
#   gnuplot -e "out='docs/figures/performance_scaling.png'" scripts/performance_scaling.gp < docs/performance_scaling.csv
# Columns: axis,n,dk,sdpa_var_s,limit_s (axis is "n" or "dk").
# Options (-e "name=value" before the script name): out='file.png' (.png, .pdf
# or .svg picks the terminal), size='1600,900', fontscale=1.6, term='qt';
# scripts/terminal.gp, loaded from this script's directory, documents them.
load '< echo "\$D << EOD"; cat; echo EOD'
if (|$D| < 2) { exit error "performance_scaling.gp: pipe in docs/performance_scaling.csv" }
script = "performance_scaling"; default_width = 1100; default_height = 480
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(ARG0, strlen(ARG0)) }
load dir . "terminal.gp"
set datafile separator comma
set multiplot layout 1,2 title "sdpa-var against the bare-dgemm limit (same blocking)"
set logscale x 2
set logscale y 10
set format y "%g"
set grid
set key top left
set ylabel "seconds"
set xlabel "n = n_q = n_k   (d_k = 128)"
plot $D using (strcol(1) eq "n" ? $2 : NaN):4 with linespoints pt 7 lc rgb "#d62728" title "sdpa-var", \
     $D using (strcol(1) eq "n" ? $2 : NaN):5 with linespoints pt 5 lc rgb "#1f77b4" title "limit: dgemm only", \
     $D using (strcol(1) eq "n" ? $2 : NaN):($5 * 0 + 2.0e-9 * $2**2) with lines dt 2 lc rgb "gray" title "∝ n^2"
set xlabel "d_k   (n = 2048)"
plot $D using (strcol(1) eq "dk" ? $3 : NaN):4 with linespoints pt 7 lc rgb "#d62728" title "sdpa-var", \
     $D using (strcol(1) eq "dk" ? $3 : NaN):5 with linespoints pt 5 lc rgb "#1f77b4" title "limit: dgemm only"
unset multiplot
