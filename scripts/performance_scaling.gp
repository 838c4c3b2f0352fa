# Time against n and against d_k, sdpa-var beside the bare-dgemm limit,
# log-log. Reads docs/performance_scaling.csv (written by scripts/bench.sh)
# from stdin:
#   gnuplot -e "out='docs/figures/performance_scaling.png'" scripts/performance_scaling.gp < docs/performance_scaling.csv
# Columns: axis,n,dk,sdpa_var_s,limit_s (axis is "n" or "dk").
if (!exists("out")) out = 'performance_scaling.png'
if (exists("term")) { set terminal term } else { set terminal pngcairo size 1100,480 font ",10"; set output out }
load '< echo "\$D << EOD"; cat; echo EOD'
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
