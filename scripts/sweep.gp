# sweep.gp: a statistic of the raw and the scaled logits against the swept column
# (d_k, n_k, n_q or d_model), measured beside its theory: the template of
# sdpa-var --format gnuplot --plot QUANTITY, and a script for the CSV.
#
# Usage (reads the summary CSV from standard input, writes a PNG):
#   build/sdpa-var --dk 1:1024 --n 300 --format csv --columns all | gnuplot scripts/sweep.gp
#   build/sdpa-var --dk 1:256 --n 100 --grad --format csv --columns all \
#       | gnuplot -e "quantity='grad'; out='grad.png'" scripts/sweep.gp
# sdpa-var --format gnuplot writes this script with the CSV of --columns all
# inline (a datablock $D, and `inline = 1`, so it reads no standard input),
# quantity from --plot and out from --output.
# Options, each given as -e "name=value" BEFORE the script name:
#   quantity='variance'  what is drawn: variance (the sample variance of the
#                    logits, against the expected sample variance), entropy
#                    (of a softmax row, against ln of the keys it sees and
#                    ln n - sigma^2/2), max_weight (the largest weight of a
#                    row), eff_keys (exp(entropy): keys attended) or grad
#                    (|dL/dlogits|, needs --grad, and the keys it reaches)
#   xcol='n_k'       the x column (default: the first of dk, n_k, n_q,
#                    d_model whose value varies between the rows)
#   out, size, fontscale, term: as every script (scripts/terminal.gp)
#
# One series per scale (raw QK^T, then each --scale) and per value of every
# other column that varies (--dk 16,64 --n 16,256: a line per n); theory
# lines dashed; for max_weight and eff_keys the uniform rows' and the
# one-hot rows' values as dotted lines. The title's second line says what
# every row shares. Columns are read by name, so the CSV may gain columns.

# ---- read standard input once ------------------------------------------
# A pipe can be read only once, and every plot element reads its data again:
# copy stdin into the datablock $D (load '< cmd' runs cmd through the shell,
# which inherits our stdin), unless the script carries its data inline.
script_path = ARG0   # before the load below, which sets ARG0 to its own
if (!exists("inline")) {
    if (system("[ -t 0 ] && echo tty") eq "tty") {
        exit error "sweep.gp: pipe the summary CSV of sdpa-var --format csv --columns all into gnuplot"
    }
    load '< echo "\$D << EOD"; cat; echo EOD'
}
set datafile separator comma
set datafile columnheaders
if (|$D| < 2) {
    exit error "sweep.gp: need the header and 1 or more rows of the summary CSV of sdpa-var"
}
header = "," . $D[1] . ","
has(c) = strstrt(header, "," . c . ",") > 0
if (!exists("quantity")) { quantity = "variance" }

# ---- what each quantity draws -------------------------------------------
# cols: raw, scaled, raw theory, scaled theory ("-": none); th_raw and
# th_scaled the theory lines' labels; logy: a log axis where the data span
# a decade; ref: the uniform rows' reference (keys: the keys a row sees,
# inv: 1 over them, "": none). The variance's theory is the expected SAMPLE
# variance, d_k (N - 1) / (N - ddof) for plain draws (docs/theory.md), what
# a measured sample variance is compared with: at n = 2 it is 48 at d_k = 64.
ref = ""; logy = 1; th_raw = ""; th_scaled = ""
if (quantity eq "variance") {
    cols = "raw_var scaled_var raw_var_expected scaled_var_expected"
    th_raw = "raw, expected sample variance"; th_scaled = "expected"
    ylabel = "sample variance of the logits"; title = "Variance of the logits"
} else { if (quantity eq "entropy") {
    cols = "raw_entropy scaled_entropy entropy_bound scaled_entropy_approx"
    th_raw = "ln(keys a row sees), the largest entropy"; th_scaled = "ln n - sigma^2/2"
    ylabel = "row entropy (nats)"; title = "Entropy of a softmax row"; logy = 0
} else { if (quantity eq "max_weight") {
    cols = "raw_max_weight scaled_max_weight - -"; ref = "inv"
    ylabel = "largest softmax weight of a row"; title = "Largest softmax weight of a row"
} else { if (quantity eq "eff_keys") {
    cols = "raw_eff_keys scaled_eff_keys - -"; ref = "keys"
    ylabel = "keys attended, mean over rows of exp(entropy)"; title = "Keys attended, mean of exp(entropy)"
} else { if (quantity eq "grad") {
    cols = "raw_grad_logits scaled_grad_logits raw_grad_logits_theory scaled_grad_logits_theory"
    th_raw = "raw, theory given the weights"; th_scaled = "theory"
    ylabel = "|dL/dlogits| (root mean square over rows)"; title = "Gradient on the logits"
} else {
    exit error sprintf("sweep.gp: quantity='%s' is not one of variance, entropy, max_weight, eff_keys, grad", quantity)
} } } } }
do for [c in "dk n_q n_k scale trials " . word(cols, 1) . " " . word(cols, 2)] {
    if (!has(c)) {
        exit error sprintf("sweep.gp: the input has no column '%s'; pipe in the summary CSV of sdpa-var --format csv --columns all%s", \
            c, quantity eq "grad" ? " --grad" : "")
    }
}

# ---- the x axis and the series --------------------------------------------
# A column varies when some row's text differs from the first row's.
do for [c in "dk n_k n_q d_model dist init"] {
    if (has(c)) {
        stats $D every ::0::0 using (sv_first = strcol(c), 0) nooutput
        stats $D using (strcol(c) ne sv_first ? 1 : 0) nooutput
        eval sprintf("vary_%s = %d", c, STATS_sum > 0)
    } else {
        eval sprintf("vary_%s = 0", c)
    }
}
if (!exists("xcol")) {
    xcol = (vary_dk ? "dk" : vary_n_k ? "n_k" : vary_n_q ? "n_q" : vary_d_model ? "d_model" : "dk")
}
# n_q = n_k in every row: one field n (a label "n_q=n_k=16"), swept or not.
stats $D using (column("n_q") != column("n_k") ? 1 : 0) nooutput
same_n = (STATS_sum == 0)
# The columns other than x that vary: each value a series of its own.
others = ""
do for [c in "dk n_q n_k dist init d_model"] {
    if (c ne xcol && value("vary_" . c) && !(same_n && c eq "n_q") && !(same_n && xcol eq "n_k" && c eq "n_q")) {
        others = others . " " . c
    }
}
name(c) = (c eq "dk" ? "d_k" : (same_n && c eq "n_k") ? "n_q=n_k" : c)
# A row's series: "d_k=16,n_q=n_k=16", or "-" where nothing else varies.
sv_key(i) = (i > words(others) ? "" : \
    sprintf(",%s=%s", name(word(others, i)), strcol(word(others, i))) . sv_key(i + 1))
key(d) = (words(others) == 0 ? "-" : sv_key(1)[2:])
groups = ""; scales = ""
sv_add(list, w) = (strstrt(" " . list . " ", " " . w . " ") == 0 ? list . " " . w : list)
stats $D using (groups = sv_add(groups, key(0)), scales = sv_add(scales, strcol("scale")), 0) nooutput
group_label(g) = (word(groups, g) eq "-" ? "" : ", " . word(groups, g))
pick(g, s) = (key(0) eq word(groups, g) && strcol("scale") eq word(scales, s))
scale_label(s) = (s eq "sqrt" ? "QK^T/sqrt(d_k)" : s eq "dk" ? "QK^T/d_k" : s eq "none" ? "QK^T (--scale none)" : \
    s eq "logn" ? "QK^T * ln(n)/sqrt(d_k)" : "QK^T * " . s)

# The uniform rows' reference: what weights 1/n_i on the n_i keys a row
# sees give, the mean over the rows that see a key of n_i (eff_keys, the
# keys the gradient can reach) or of 1/n_i (max_weight): n_k without a
# mask; with --causal or --window the keys differ by row, counted per row
# of $D as the library counts them (sv_spec_row_keys: causal row i sees
# keys [0, i + 1), a window w the w keys up to i, or from i - w + 1 to
# i + w - 1 without --causal).
col_or_0(c) = (has(c) ? column(c) : 0)
masked = 0
do for [r = 0:|$D| - 2] {
    stats $D every ::r::r using (sv_nq = column("n_q"), sv_nk = column("n_k"), \
        sv_c = col_or_0("causal"), sv_w = col_or_0("window"), 0) nooutput
    sv_sum = sv_nk; sv_inv = 1.0 / sv_nk; sv_rows = 1
    if (sv_c > 0 || sv_w > 0) {
        masked = 1; sv_sum = 0.0; sv_inv = 0.0; sv_rows = 0
        do for [i = 0:sv_nq - 1] {
            sv_b = (sv_c > 0 ? (i < sv_nk ? i + 1 : sv_nk) : \
                sv_w > 0 && i < sv_nk && sv_w <= sv_nk - i ? i + sv_w : sv_nk)
            sv_a = (sv_w > 0 && i + 1 > sv_w ? i + 1 - sv_w : 0)
            if (sv_b > sv_a) { sv_sum = sv_sum + sv_b - sv_a; sv_inv = sv_inv + 1.0 / (sv_b - sv_a); sv_rows = sv_rows + 1 }
        }
    }
    eval sprintf("keys_%d = %.17e; inv_keys_%d = %.17e", r, 1.0 * sv_sum / sv_rows, r, sv_inv / sv_rows)
}
keys_seen(d) = value(sprintf("keys_%d", column(0)))
refv(d) = value(sprintf(ref eq "inv" ? "inv_keys_%d" : "keys_%d", column(0)))

# ---- axes -------------------------------------------------------------------
# The y range spans the data, the theory and the reference lines, 5% beyond
# them (so gnuplot does not widen a log axis to whole decades); a log axis
# where logy and they span a decade.
fin(v) = (v == v && abs(v) < 1e300)
sv_take(v) = (fin(v) ? (y_lo = v < y_lo ? v : y_lo, y_hi = v > y_hi ? v : y_hi) : 0)
y_lo = 1e308; y_hi = -1e308
do for [i = 1:4] {
    if (word(cols, i) ne "-" && has(word(cols, i))) {
        stats $D using (sv_take(column(word(cols, i))), 0) nooutput
    }
}
if (ref ne "" && quantity ne "grad") {
    stats $D using (sv_take(refv(0)), 0) nooutput
    sv_dummy = sv_take(1)    # the one-hot rows' line
}
stats $D using (column(xcol)) nooutput
x_lo = STATS_min; x_hi = STATS_max
# The uniform rows' line: one value (one n_k), a line across, even for one point.
stats $D using (refv(0)) nooutput
ref_const = (ref ne "" && STATS_min == STATS_max) ? STATS_min : NaN
# --plot grad's second panel: the range of the keys reached (a row of one
# key reaches 0 keys: not on a log axis) and of the keys seen.
if (quantity eq "grad") {
    y_lo0 = y_lo; y_hi0 = y_hi; y_lo = 1e308; y_hi = -1e308
    stats $D using (sv_take(column("raw_grad_keys") > 0 ? column("raw_grad_keys") : NaN), \
        sv_take(column("scaled_grad_keys") > 0 ? column("scaled_grad_keys") : NaN), sv_take(keys_seen(0)), 0) nooutput
    k_lo = y_lo; k_hi = y_hi; y_lo = y_lo0; y_hi = y_hi0
    stats $D using (keys_seen(0)) nooutput
    keys_const = (STATS_min == STATS_max) ? STATS_min : NaN
}
fixed = ""
do for [c in "dk n_q n_k dist d_model"] {
    if (c ne xcol && !(same_n && xcol eq "n_k" && c eq "n_q") && !value("vary_" . c) && has(c)) {
        stats $D every ::0::0 using (sv_v = strcol(c), 0) nooutput
        if (!(c eq "dist" && sv_v eq "normal") && !(c eq "d_model" && sv_v eq "0") && !(same_n && c eq "n_q")) {
            fixed = fixed . sprintf("%s=%s, ", name(c), sv_v)
        }
    }
}
stats $D every ::0::0 using (sv_v = strcol("trials"), 0) nooutput
fixed = fixed . "trials=" . sv_v
# d_v where V is drawn (the gradient and the output grow with it)
if (has("values") && has("d_v")) {
    stats $D using (column("values")) nooutput
    if (STATS_max > 0) {
        stats $D every ::0::0 using (sv_v = strcol("d_v"), 0) nooutput
        stats $D using (strcol("d_v") ne sv_v ? 1 : 0) nooutput
        fixed = fixed . (STATS_sum > 0 ? ", d_v=d_k" : ", d_v=" . sv_v)
    }
}

# ---- terminal and output --------------------------------------------------
# scripts/terminal.gp, found beside this script (ARG0 is its path; -e "dir='...'"
# overrides), picks the terminal from out's extension and sets `interactive`.
script = "sweep"; default_width = 1000; default_height = (quantity eq "grad" ? 1000 : 720)
sv_dirname(p, i) = (i < 1 ? "" : (p[i:i] eq "/" ? p[1:i] : sv_dirname(p, i - 1)))
if (!exists("dir")) { dir = sv_dirname(script_path, strlen(script_path)) }
load dir . "terminal.gp"

# A log y axis on [tlo, thi]: under three decades gnuplot labels one or two
# ticks, so 1, 2 and 5 of each decade.
log_tics = 'sv_s = ""; do for [sv_d = floor(log10(tlo)):ceil(log10(thi))] { do for [sv_k = 0:2] { ' . \
    'sv_v = (sv_k == 0 ? 1 : sv_k == 1 ? 2 : 5) * 10.0**sv_d; if (sv_v >= tlo && sv_v <= thi) { ' . \
    'sv_s = sv_s . (sv_s eq "" ? "" : ", ") . sprintf("%g", sv_v) } } }; ' . \
    'if (thi < 1000 * tlo) { eval "set ytics (" . sv_s . ")" } else { set ytics autofreq }'
if (quantity eq "grad") { set multiplot layout 2,1 }
set title sprintf("%s against %s\n%s", title, name(xcol), fixed) noenhanced
set xlabel name(xcol) noenhanced
set ylabel ylabel noenhanced
if (x_lo > 0 && x_hi >= 8 * x_lo) { set logscale x 2 }
if (x_hi == x_lo) { set xrange [x_lo / 2 : x_hi * 3 / 2] }   # one point, in a range gnuplot need not widen
if (logy && y_lo > 0 && y_hi >= 10 * y_lo) {
    m = (y_hi / y_lo) ** 0.05
    set logscale y
    set yrange [y_lo / m : y_hi * m]
    tlo = y_lo / m; thi = y_hi * m
    eval log_tics
} else { if (y_lo <= y_hi) {
    pad = (y_hi > y_lo ? 0.05 * (y_hi - y_lo) : (y_hi != 0 ? 0.05 * abs(y_hi) : 1))
    set yrange [(!logy && y_lo >= 0 ? 0 : y_lo - pad) : y_hi + pad]
} }
set format x "%g"
set format y "%g"
set key outside bottom center horizontal noenhanced
set grid
set offsets graph 0.02, graph 0.02, 0, 0

# One element per (series, scale): measured (linespoints: the series' point
# type, the scale's colour), theory (dashed, rings), titled once. The raw
# logits are the same at every scale: drawn from the first scale's rows.
pt(g) = 7 + 2 * ((g - 1) % 6)
c1 = word(cols, 1); c2 = word(cols, 2); c3 = word(cols, 3); c4 = word(cols, 4)
th3 = (c3 ne "-" && has(c3)); th4 = (c4 ne "-" && has(c4))
c3 = (th3 ? c3 : c1); c4 = (th4 ? c4 : c2)   # never drawn: gnuplot reads an empty loop's columns too
ng = words(groups); ns = words(scales)
seen = "keys seen, mean over rows"
uniform = (ref eq "inv" ? (masked ? "uniform rows: 1/" . seen : "uniform rows: 1/n_k") : \
    (masked ? "uniform rows: every " . seen : "uniform rows: every key, n_k"))
plot for [g = 1:ng] $D using (column(xcol)):(pick(g, 1) ? column(c1) : NaN) \
        with linespoints pt pt(g) lc 1 title "raw QK^T" . group_label(g), \
     for [g = 1:(th3 ? ng : 0)] $D using (column(xcol)):(pick(g, 1) ? column(c3) : NaN) \
        with linespoints dt 2 pt 6 ps 1.5 lc 1 title (g == 1 ? th_raw : ""), \
     for [g = 1:ng] for [s = 1:ns] $D using (column(xcol)):(pick(g, s) ? column(c2) : NaN) \
        with linespoints pt pt(g) lc s + 1 title scale_label(word(scales, s)) . group_label(g), \
     for [g = 1:(th4 ? ng : 0)] for [s = 1:ns] $D using (column(xcol)):(pick(g, s) ? column(c4) : NaN) \
        with linespoints dt 2 pt 6 ps 1.5 lc s + 1 title (g == 1 ? scale_label(word(scales, s)) . ", " . th_scaled : ""), \
     for [i = 1:(ref ne "" && quantity ne "grad" && ref_const == ref_const)] ref_const \
        with lines dt 3 lw 2 lc rgb "gray40" title uniform, \
     for [g = 1:(ref ne "" && quantity ne "grad" && ref_const != ref_const ? ng : 0)] \
        $D using (column(xcol)):(pick(g, 1) ? refv(0) : NaN) with lines dt 3 lw 2 lc rgb "gray40" \
        title (g == 1 ? uniform : ""), \
     for [i = 1:(ref ne "" && quantity ne "grad")] 1 with lines dt 4 lw 2 lc rgb "black" \
        title (ref eq "keys" ? "one-hot rows: 1 key" : "one-hot rows: weight 1")

# --plot grad's second panel: the keys the logit gradient reaches, which is
# why raw QK^T's gradient is the larger (a few keys take all of it). No
# one-hot line: a row of weight 1 has no gradient (0 keys).
if (quantity eq "grad") {
    set title "Keys the gradient reaches: (sum g^2)^2 / sum g^4 of g = dL/dlogits, mean over rows" noenhanced
    set ylabel "keys reached" noenhanced
    m = (k_hi > k_lo ? (k_hi / k_lo) ** 0.05 : 2)
    set logscale y
    set yrange [k_lo / m : k_hi * m]
    tlo = k_lo / m; thi = k_hi * m
    eval log_tics
    ref_const = keys_const
    plot for [g = 1:ng] $D using (column(xcol)):(pick(g, 1) ? column("raw_grad_keys") : NaN) \
            with linespoints pt pt(g) lc 1 title "raw QK^T" . group_label(g), \
         for [g = 1:ng] for [s = 1:ns] $D using (column(xcol)):(pick(g, s) ? column("scaled_grad_keys") : NaN) \
            with linespoints pt pt(g) lc s + 1 title scale_label(word(scales, s)) . group_label(g), \
         for [i = 1:(ref_const == ref_const)] ref_const with lines dt 3 lw 2 lc rgb "gray40" \
            title "n_k, every key: the most it can reach", \
         for [g = 1:(ref_const != ref_const ? ng : 0)] $D using (column(xcol)):(pick(g, 1) ? keys_seen(0) : NaN) \
            with lines dt 3 lw 2 lc rgb "gray40" title (g == 1 ? "keys seen: the most it can reach" : "")
    unset multiplot
}

if (interactive) { pause mouse close }
