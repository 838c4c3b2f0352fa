/* --format gnuplot: a whole gnuplot script on stdout, so that
 *   sdpa-var --dk 1:1024 --format gnuplot --output v.png | gnuplot
 * draws a figure from a pipe: the rows go into a datablock ($data << EOD,
 * gnuplot 5), which gnuplot can read as often as the plot needs (a pipe
 * read through '-' can be read once), then the plot command. Titles come
 * from the run (the swept column, the --scale of each configuration, the
 * sizes), never assumed; every label is noenhanced, so d_k's underscore is
 * not a subscript. The key sits below the frame, never on the data; the y
 * axis spans the data and the reference lines (uniform and one-hot rows for
 * max_weight and eff_keys), a log axis only where they span a decade. The
 * terminal: gnuplot_term.h. The histogram: gnuplot_hist.c. */
#include <math.h>
#include <string.h>

#include "gnuplot_term.h"
#include "writer.h"

/* What a row of uniform weights (1/n_i each of the n_i keys a row sees)
 * gives, the reference line of a --plot: none, the mean of 1/n_i (the
 * smallest max weight), or the mean of n_i (the most keys). */
typedef enum { REF_NONE, REF_INV_KEYS, REF_KEYS } ref_kind;

/* The y columns of each --plot (raw, scaled, raw theory, scaled theory;
 * NO_COL: none), the theory lines' labels, its axis label, its title, whether
 * y may be drawn on a log scale (where the data span a decade), whether 0
 * is in its range, its reference line, and for grad the columns of a
 * second panel (raw, scaled: the keys the gradient reaches). The
 * variance's theory is the expected SAMPLE variance, d_k (N - 1) / (N -
 * ddof) for plain draws (docs/theory.md), what a measured sample variance
 * is compared with: at n = 2 it is 48 at d_k = 64, not 64. */
typedef struct plot_def {
    sv_column_id col[4];
    const char *theory[2];
    const char *ylabel;
    const char *title;
    int logy;
    int zero;
    ref_kind ref;
    sv_column_id keys[2];
} plot_def;

static const plot_def plots[] = {
    [CLI_PLOT_VARIANCE] = {{COL(raw_var), COL(scaled_var), COL(raw_var_expected),
                            COL(scaled_var_expected)},
                           {"raw, expected sample variance", "expected"},
                           "sample variance of the logits",
                           "Variance of the logits",
                           1,
                           0,
                           REF_NONE,
                           {NO_COL, NO_COL}},
    [CLI_PLOT_ENTROPY] = {{COL(raw_entropy), COL(scaled_entropy), COL(summary_entropy_bound),
                           COL(scaled_entropy_approx)},
                          {"ln(keys a row sees), the largest entropy", "ln n - sigma^2/2"},
                          "row entropy (nats)",
                          "Entropy of a softmax row",
                          0,
                          1,
                          REF_NONE,
                          {NO_COL, NO_COL}},
    [CLI_PLOT_MAX_WEIGHT] = {{COL(raw_max_weight), COL(scaled_max_weight), NO_COL, NO_COL},
                             {NULL, NULL},
                             "largest softmax weight of a row",
                             "Largest softmax weight of a row",
                             1,
                             0,
                             REF_INV_KEYS,
                             {NO_COL, NO_COL}},
    [CLI_PLOT_EFF_KEYS] = {{COL(raw_eff_keys), COL(scaled_eff_keys), NO_COL, NO_COL},
                           {NULL, NULL},
                           "keys attended, mean over rows of exp(entropy)",
                           "Keys attended, mean of exp(entropy)",
                           1,
                           0,
                           REF_KEYS,
                           {NO_COL, NO_COL}},
    [CLI_PLOT_GRAD] = {{COL(raw_grad_logits), COL(scaled_grad_logits), COL(raw_grad_logits_theory),
                        COL(scaled_grad_logits_theory)},
                       {"raw, theory given the weights", "theory"},
                       "|dL/dlogits| (root mean square over rows)",
                       "Gradient on the logits",
                       1,
                       0,
                       REF_KEYS,
                       {COL(raw_grad_keys), COL(scaled_grad_keys)}},
};

/* Candidates for the x axis, in order: the first configuration column
 * whose value differs between configurations (a --dk sweep, a sweep of
 * n), else d_k. */
static const sv_column_id x_ids[] = {COL(dk), COL(n_k), COL(n_q), COL(d_model)};

/* Column @p id's name; "-" for NO_COL. */
static const char *name_of(sv_column_id id)
{
    return id == NO_COL ? "-" : sv_column_of(id)->name;
}

static double number(const sv_column *c, const sv_row_view *row)
{
    if (!c)
        return NAN;
    const sv_value v = c->get(row);
    return c->type == SV_VALUE_REAL ? v.real : c->type == SV_VALUE_COUNT ? (double)v.count : NAN;
}

static double config_number(const cli_writer *s, const sv_column *c, size_t i)
{
    const sv_row_view v = {.spec = &s->configs[i].spec, .scale_name = s->configs[i].scale_name};
    return number(c, &v);
}

static const sv_column *x_column(const cli_writer *s)
{
    for (size_t k = 0; k < sizeof x_ids / sizeof *x_ids; k++) {
        const sv_column *c = sv_column_of(x_ids[k]);
        for (size_t i = 1; c && i < s->count; i++)
            if (config_number(s, c, i) != config_number(s, c, 0))
                return c;
    }
    return sv_column_of(COL(dk));
}

static int same_scale(const cli_writer *s, size_t i, size_t j)
{
    return strcmp(s->configs[i].scale_name, s->configs[j].scale_name) == 0;
}

/* Whether configuration j is the first with its --scale. */
static int first_of_scale(const cli_writer *s, size_t j)
{
    for (size_t l = 0; l < j; l++)
        if (same_scale(s, l, j))
            return 0;
    return 1;
}

/* The index of configuration i's --scale among the run's distinct ones. */
static size_t scale_index(const cli_writer *s, size_t i)
{
    size_t k = 0;
    for (size_t j = 0; j < s->count; j++) {
        if (!first_of_scale(s, j))
            continue;
        if (same_scale(s, i, j))
            return k;
        k++;
    }
    return 0;
}

/* What tells configurations apart besides the scale: a run sweeps one of
 * these on the x axis, and every other that varies makes its own series
 * (--dk 16,64 --n 16,256: one line per n, not one line doubling back). */
typedef enum { F_DK, F_N, F_DIST, F_INIT, F_D_MODEL, F_COUNT } field_id;

static int same_field(const sv_spec *a, const sv_spec *b, field_id f)
{
    switch (f) {
    case F_DK:
        return a->d_k == b->d_k;
    case F_N:
        return a->n_q == b->n_q && a->n_k == b->n_k;
    case F_DIST:
        return a->dist == b->dist;
    case F_INIT:
        return a->init == b->init;
    default:
        return a->d_model == b->d_model;
    }
}

/* The field the x axis sweeps. */
static field_id x_field(const cli_writer *s)
{
    const sv_column_id x = sv_column_id_of(x_column(s));
    return x == COL(dk) ? F_DK : x == COL(d_model) ? F_D_MODEL : F_N;
}

static int varies(const cli_writer *s, field_id f)
{
    for (size_t i = 1; i < s->count; i++)
        if (!same_field(&s->configs[i].spec, &s->configs[0].spec, f))
            return 1;
    return 0;
}

static int same_group(const cli_writer *s, size_t i, size_t j)
{
    const field_id x = x_field(s);
    for (int f = 0; f < F_COUNT; f++)
        if (f != (int)x && !same_field(&s->configs[i].spec, &s->configs[j].spec, (field_id)f))
            return 0;
    return 1;
}

/* Configuration i's series among the run's, in order of first appearance;
 * *count (when not NULL) the number of series. */
static size_t group_of(const cli_writer *s, size_t i, size_t *count)
{
    size_t k = 0, mine = 0;
    for (size_t j = 0; j < s->count; j++) {
        size_t l = 0;
        while (l < j && !same_group(s, l, j))
            l++;
        if (l < j)
            continue; /* not the first of its series */
        if (same_group(s, i, j))
            mine = k;
        k++;
    }
    if (count)
        *count = k;
    return mine;
}

/* ", d_k=64, n=256" for the fields of configuration i that vary (@p vary
 * 1) or that do not (0), the x axis's left out. */
static void fields_label(const cli_writer *s, size_t i, int vary, char *buf, size_t len)
{
    const sv_spec *sp = &s->configs[i].spec;
    size_t at = 0;
    buf[0] = '\0';
    for (int f = 0; f < F_COUNT && at < len; f++) {
        if (f == (int)x_field(s) || varies(s, (field_id)f) != vary)
            continue;
        if (f == F_DK)
            at += (size_t)snprintf(buf + at, len - at, ", d_k=%zu", sp->d_k);
        else if (f == F_N && sp->n_q == sp->n_k)
            at += (size_t)snprintf(buf + at, len - at, ", n_q=n_k=%zu", sp->n_q);
        else if (f == F_N)
            at += (size_t)snprintf(buf + at, len - at, ", n_q=%zu, n_k=%zu", sp->n_q, sp->n_k);
        else if (f == F_DIST && (vary || sp->dist != SV_DIST_NORMAL))
            at += (size_t)snprintf(buf + at, len - at, ", dist=%s", sv_dist_name(sp->dist));
        else if (f == F_INIT && sp->d_model > 0)
            at += (size_t)snprintf(buf + at, len - at, ", init=%s",
                                   (const char *const[]){"xavier", "lecun", "normal"}[sp->init]);
        else if (f == F_D_MODEL && sp->d_model > 0)
            at += (size_t)snprintf(buf + at, len - at, ", d_model=%zu", sp->d_model);
    }
}

/* The title's second line: what every configuration shares (trials, and
 * d_v where V is drawn: the gradient and output grow with it). */
static void fixed_label(const cli_writer *s, char *buf, size_t len)
{
    const sv_spec *sp = &s->configs[0].spec;
    char f[160];
    fields_label(s, 0, 0, f, sizeof f);
    /* f is empty or starts with ", ": either way the line starts after it */
    size_t at = (size_t)snprintf(buf, len, "%s, trials=%llu", f, (unsigned long long)sp->trials);
    memmove(buf, buf + 2, strlen(buf + 2) + 1);
    at -= 2;
    int dv_varies = 0, nq_varies = 0, nk_varies = 0;
    for (size_t i = 1; i < s->count; i++) {
        dv_varies |= s->configs[i].spec.d_v != sp->d_v;
        nq_varies |= s->configs[i].spec.n_q != sp->n_q;
        nk_varies |= s->configs[i].spec.n_k != sp->n_k;
    }
    /* n on the x axis: --nq (--nk) may still hold the other side fixed */
    if (x_field(s) == F_N && !nq_varies && at < len)
        at += (size_t)snprintf(buf + at, len - at, ", n_q=%zu", sp->n_q);
    if (x_field(s) == F_N && !nk_varies && at < len)
        at += (size_t)snprintf(buf + at, len - at, ", n_k=%zu", sp->n_k);
    if (sp->values && at < len)
        snprintf(buf + at, len - at, dv_varies ? ", d_v=d_k" : ", d_v=%zu", sp->d_v);
}

/* The reference of configuration i: what uniform rows give (ref_kind),
 * the mean over the rows that see a key; NAN for REF_NONE. */
static double reference(const cli_writer *s, ref_kind ref, size_t i)
{
    const sv_spec *sp = &s->configs[i].spec;
    if (ref == REF_NONE)
        return NAN;
    if (!sp->causal && !sp->window)
        return ref == REF_KEYS ? (double)sp->n_k : 1.0 / (double)sp->n_k;
    double sum = 0;
    size_t rows = 0;
    for (size_t r = 0; r < sp->n_q; r++) {
        size_t lo, hi;
        sv_spec_row_keys(sp, r, &lo, &hi);
        if (hi > lo) {
            sum += ref == REF_KEYS ? (double)(hi - lo) : 1.0 / (double)(hi - lo);
            rows++;
        }
    }
    return rows ? sum / (double)rows : NAN;
}

static void real(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, " %.10g", v);
    else
        fputs(" NaN", f);
}

/* Widens [*lo, *hi] to take v, if finite. */
static void take(double *lo, double *hi, double v)
{
    if (isfinite(v)) {
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
    }
}

void cli_gnuplot_begin(cli_writer *s)
{
    FILE *f = s->f;
    const sv_spec *sp = &s->configs[0].spec;
    const int grad = s->kind != SV_OUTPUT_HISTOGRAM && s->out->plot == CLI_PLOT_GRAD;
    fprintf(
        f,
        "# sdpa-var %s: a gnuplot script with its data inline; draw it with\n"
        "#   ... --format gnuplot --output f.png | gnuplot   (or .svg, .pdf)\n"
        "#   ... --format gnuplot | gnuplot -e \"set terminal pngcairo; set output 'f.png'\" -\n",
        SV_VERSION_STRING);
    fprintf(f, "# n_q=%zu n_k=%zu trials=%llu seed=%llu dist=%s\n", sp->n_q, sp->n_k,
            (unsigned long long)sp->trials, (unsigned long long)sp->seed, sv_dist_name(sp->dist));
    /* two panels (the histogram, grad) are taller than one */
    cli_gnuplot_terminal(f, s->out->plot_output, 1000,
                         s->kind == SV_OUTPUT_HISTOGRAM || grad ? 1000 : 720);
    if (s->kind == SV_OUTPUT_HISTOGRAM)
        return; /* its datablocks are written at the end: gnuplot_hist.c */
    const plot_def *p = &plots[s->out->plot];
    s->y_lo = s->k_lo = INFINITY; /* none yet */
    s->y_hi = s->k_hi = -INFINITY;
    fprintf(f, "$data << EOD\n# %s series scale_index", x_column(s)->name);
    for (int k = 0; k < 4; k++)
        fprintf(f, " %s", name_of(p->col[k]));
    fprintf(f, " %s %s %s\n",
            p->ref == REF_KEYS       ? "keys_seen"
            : p->ref == REF_INV_KEYS ? "1/keys_seen"
                                     : "-",
            name_of(p->keys[0]), name_of(p->keys[1]));
}

int cli_gnuplot_row(cli_writer *s, const sv_row_view *row)
{
    if (s->kind == SV_OUTPUT_HISTOGRAM)
        return cli_gnuplot_hist_row(s, row);
    FILE *f = s->f;
    const plot_def *p = &plots[s->out->plot];
    const sv_row_view cfg = {.spec = row->spec, .scale_name = row->scale_name};
    const size_t i = s->rows < s->count ? s->rows : 0;
    real(f, number(x_column(s), &cfg));
    fprintf(f, " %zu %zu", group_of(s, i, NULL), scale_index(s, i));
    for (int k = 0; k < 4; k++) {
        const double y = number(sv_column_of(p->col[k]), row);
        real(f, y);
        take(&s->y_lo, &s->y_hi, y);
    }
    const double ref = reference(s, p->ref, i);
    real(f, ref);
    if (p->keys[0] != NO_COL) /* the reference is the second panel's */
        take(&s->k_lo, &s->k_hi, ref);
    else
        take(&s->y_lo, &s->y_hi, ref);
    for (int k = 0; k < 2; k++) {
        const double y = number(sv_column_of(p->keys[k]), row);
        real(f, y);
        if (y > 0) /* a row of one key reaches 0 keys: not on a log axis */
            take(&s->k_lo, &s->k_hi, y);
    }
    fputc('\n', f);
    return 1;
}

/* The x axis: "d_k", "n_k", ... as the field's term. */
static const char *x_label(const char *name)
{
    return strcmp(name, "dk") == 0 ? "d_k" : name;
}

/* The y axis fitted to [lo, hi], the data and the reference lines: a log
 * axis where @p logy and they span a decade (a sample variance of one
 * score is 0, which a log axis cannot draw), 5% beyond them either way
 * (so gnuplot does not widen a log axis to whole decades: six decades for
 * variances from 0.9 to 256), from 0 where @p zero. */
static void y_axis(FILE *f, int logy, int zero, double lo, double hi)
{
    if (!(lo <= hi)) /* no finite y: gnuplot's range */
        return;
    if (logy && lo > 0 && hi >= 10 * lo) {
        const double m = pow(hi / lo, 0.05);
        fprintf(f, "set logscale y\nset yrange [%.6g:%.6g]\n", lo / m, hi * m);
        if (hi >= 1000 * lo) {
            fputs("set ytics autofreq\n", f);
            return;
        }
        /* under three decades gnuplot labels one or two ticks: 1, 2, 5 */
        const char *sep = "set ytics (";
        for (int d = (int)floor(log10(lo / m)); d <= (int)ceil(log10(hi * m)); d++)
            for (int k = 0; k < 3; k++) {
                const double v = (double[]){1, 2, 5}[k] * pow(10, d);
                if (v >= lo / m && v <= hi * m)
                    fprintf(f, "%s%.6g", sep, v), sep = ", ";
            }
        fputs(")\n", f);
        return;
    }
    fputs("unset logscale y\nset ytics autofreq\n", f);
    const double pad = hi > lo ? 0.05 * (hi - lo) : (hi != 0 ? 0.05 * fabs(hi) : 1);
    lo = zero && lo >= 0 ? 0 : lo - pad;
    fprintf(f, "set yrange [%.6g:%.6g]\n", lo, hi + pad);
}

/* The axes: title (what is drawn against what, then what every
 * configuration shares), labels, log scales with plain tick labels. */
static void axes(cli_writer *s, const plot_def *p, const char *x)
{
    FILE *f = s->f;
    const sv_column *xc = x_column(s);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < s->count; i++)
        take(&lo, &hi, config_number(s, xc, i));
    char fixed[200];
    fixed_label(s, fixed, sizeof fixed);
    fprintf(f, "set title \"%s against %s\\n%s\" noenhanced\n", p->title, x, fixed);
    fprintf(f, "set xlabel \"%s\" noenhanced\nset ylabel \"%s\" noenhanced\n", x, p->ylabel);
    if (hi >= 8 * lo && lo > 0)
        fputs("set logscale x 2\n", f);
    if (hi == lo) /* one configuration: a point, in a range gnuplot need not widen */
        fprintf(f, "set xrange [%.10g:%.10g]\n", lo / 2, hi * 3 / 2);
    double ylo = s->y_lo, yhi = s->y_hi;
    if (p->ref == REF_INV_KEYS || (p->ref == REF_KEYS && p->keys[0] == NO_COL))
        take(&ylo, &yhi, 1.0); /* the one-hot row's line */
    y_axis(f, p->logy, p->zero, ylo, yhi);
    fputs("set format x \"%g\"\nset format y \"%g\"\n"
          "set key outside bottom center horizontal noenhanced\nset grid\n"
          "set offsets graph 0.02, graph 0.02, 0, 0\n",
          f);
}

/* One series: measured (linespoints) or its theory (dashed lines), of
 * series g and scale index k, y in data column col, colour lc. */
static void series(FILE *f, const char *sep, size_t g, size_t k, int col, size_t lc, int theory,
                   const char *title)
{
    fprintf(f, "%s$data using 1:($2 == %zu && $3 == %zu ? $%d : NaN) ", sep, g, k, col);
    if (theory)
        fprintf(f, "with linespoints dt 2 pt 6 ps 1.5 lc %zu ", lc); /* a ring: seen alone */
    else
        fprintf(f, "with linespoints pt %zu lc %zu ", 7 + 2 * (g % 6), lc);
    if (title)
        fprintf(f, "title \"%s\" noenhanced", title);
    else
        fputs("notitle", f);
}

#define SEP ", \\\n     "

/* The reference lines: data column 8, per configuration (n_k may be
 * swept), titled @p uniform, and, where @p one_hot, the one-hot row's 1. */
static void references(const cli_writer *s, const char *sep, ref_kind ref, int one_hot,
                       size_t groups, const char *uniform)
{
    FILE *f = s->f;
    int same = 1; /* one value (one n_k): a line across, even for one point */
    for (size_t i = 1; i < s->count; i++)
        same &= reference(s, ref, i) == reference(s, ref, 0);
    if (same && isfinite(reference(s, ref, 0))) {
        fprintf(f, "%s%.10g with lines dt 3 lw 2 lc rgb \"gray40\" title \"%s\" noenhanced", sep,
                reference(s, ref, 0), uniform);
        groups = 0;
    }
    for (size_t g = 0; g < groups; g++) {
        fprintf(f,
                "%s$data using 1:($2 == %zu && $3 == 0 ? $8 : NaN) with lines dt 3 lw 2 "
                "lc rgb \"gray40\" ",
                sep, g);
        if (g == 0)
            fprintf(f, "title \"%s\" noenhanced", uniform);
        else
            fputs("notitle", f);
    }
    if (one_hot)
        fprintf(f,
                "%s1 with lines dt 4 lw 2 lc rgb \"black\" title \"one-hot rows: %s\" "
                "noenhanced",
                sep, ref == REF_KEYS ? "1 key" : "weight 1");
}

/* The measured series, raw then each --scale, and their theory lines, of
 * data columns raw and raw + 1 (theory: + 2, + 3, where @p theory);
 * returns the separator for what follows. */
static const char *all_series(cli_writer *s, const plot_def *p, int raw, int theory)
{
    FILE *f = s->f;
    size_t groups = 1;
    (void)group_of(s, 0, &groups);
    int none = 0; /* --scale none is the raw curve: drawn once */
    for (size_t j = 0; j < s->count; j++)
        none |= cli_scale_rule(s->configs[j].scale_name) == SV_SCALE_NONE;
    const char *sep = "plot ";
    char t[256], g_label[160];
    for (size_t g = 0; g < groups; g++) {
        size_t first = 0; /* the series' first configuration, for its label */
        while (group_of(s, first, NULL) != g)
            first++;
        fields_label(s, first, 1, g_label, sizeof g_label);
        snprintf(t, sizeof t, "raw QK^T%s%s", none ? " (= --scale none)" : "", g_label);
        series(f, sep, g, 0, raw, 1, 0, t), sep = SEP;
        if (theory && p->col[2] != NO_COL)
            series(f, sep, g, 0, raw + 2, 1, 1, g == 0 ? p->theory[0] : NULL);
        for (size_t j = 0, k = 0; j < s->count; j++) {
            if (!first_of_scale(s, j))
                continue;
            if (cli_scale_rule(s->configs[j].scale_name) != SV_SCALE_NONE) {
                char sc[64];
                cli_gnuplot_scaled_name(&s->configs[j], sc, sizeof sc);
                snprintf(t, sizeof t, "%s%s", sc, g_label);
                series(f, sep, g, k, raw + 1, k + 2, 0, t);
                snprintf(t, sizeof t, "%s, %s", sc, p->theory[1] ? p->theory[1] : "");
                if (theory && p->col[3] != NO_COL)
                    series(f, sep, g, k, raw + 3, k + 2, 1, g == 0 ? t : NULL);
            }
            k++;
        }
    }
    return sep;
}

/* --plot grad's second panel: the keys the logit gradient reaches, which
 * is why raw QK^T's gradient is the larger (a few keys take all of it). */
static void keys_panel(cli_writer *s, const plot_def *p)
{
    FILE *f = s->f;
    size_t groups = 1;
    (void)group_of(s, 0, &groups);
    fputs("set title \"Keys the gradient reaches: (sum g^2)^2 / sum g^4 of g = dL/dlogits, "
          "mean over rows\" noenhanced\n"
          "set ylabel \"keys reached\" noenhanced\n",
          f);
    y_axis(f, 1, 0, s->k_lo, s->k_hi);
    const char *sep = all_series(s, p, 9, 0);
    /* no one-hot line: a row of weight 1 has no gradient (0 keys), a
     * near one-hot one reaches about 2 */
    references(s, sep, p->ref, 0, groups, "n_k, every key: the most it can reach");
    fputc('\n', f);
}

void cli_gnuplot_end(cli_writer *s)
{
    FILE *f = s->f;
    if (s->kind == SV_OUTPUT_HISTOGRAM) {
        cli_gnuplot_hist_end(s);
        return;
    }
    fputs("EOD\n", f);
    const plot_def *p = &plots[s->out->plot];
    if (p->keys[0] != NO_COL)
        fputs("set multiplot layout 2,1\n", f);
    axes(s, p, x_label(x_column(s)->name));
    size_t groups = 1;
    (void)group_of(s, 0, &groups);
    const char *sep = all_series(s, p, 4, 1);
    if (p->ref != REF_NONE && p->keys[0] == NO_COL) {
        int masked = 0; /* keys seen differ by row: the reference is their mean */
        for (size_t j = 0; j < s->count; j++)
            masked |= s->configs[j].spec.causal || s->configs[j].spec.window;
        references(s, sep, p->ref, 1, groups,
                   p->ref == REF_KEYS ? (masked ? "uniform rows: every key seen, mean over rows"
                                                : "uniform rows: every key, n_k")
                                      : (masked ? "uniform rows: 1/keys seen, mean over rows"
                                                : "uniform rows: 1/n_k"));
    }
    fputc('\n', f);
    if (p->keys[0] != NO_COL) {
        keys_panel(s, p);
        fputs("unset multiplot\n", f);
    }
}
