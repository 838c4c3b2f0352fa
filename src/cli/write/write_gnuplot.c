/* --format gnuplot: a whole gnuplot script on stdout, so that
 *   sdpa-var --dk 1:1024 --format gnuplot | gnuplot -p
 * draws a figure from a pipe: the rows go into a datablock ($data << EOD,
 * gnuplot 5), which gnuplot can read as often as the plot needs (a pipe
 * read through '-' can be read once), then the plot command. Titles come
 * from the run (the swept column, the --scale of each configuration, the
 * sizes), never assumed; every label is noenhanced, so d_k's underscore is
 * not a subscript. The terminal is the user's (gnuplot -e, GNUTERM) unless
 * --output names a .png or .svg file. */
#include <math.h>
#include <string.h>

#include "writer.h"

/* The y columns of each --plot (raw, scaled, raw theory, scaled theory;
 * NULL: none), its axis label and whether y is drawn on a log scale. */
typedef struct plot_def {
    const char *col[4];
    const char *ylabel;
    const char *title;
    int logy;
} plot_def;

static const plot_def plots[] = {
    [CLI_PLOT_VARIANCE] = {{"raw_var", "scaled_var", "raw_var_theory", "scaled_var_theory"},
                           "variance of the logits",
                           "Variance of the logits",
                           1},
    [CLI_PLOT_ENTROPY] = {{"raw_entropy", "scaled_entropy", "entropy_bound", NULL},
                          "row entropy (nats)",
                          "Entropy of a softmax row",
                          0},
    [CLI_PLOT_MAX_WEIGHT] = {{"raw_max_weight", "scaled_max_weight", NULL, NULL},
                             "largest softmax weight of a row",
                             "Largest softmax weight of a row",
                             0},
    [CLI_PLOT_EFF_KEYS] = {{"raw_eff_keys", "scaled_eff_keys", NULL, NULL},
                           "keys attended, exp(entropy)",
                           "Keys attended, exp(entropy)",
                           1},
    [CLI_PLOT_GRAD] = {{"raw_grad_logits", "scaled_grad_logits", "raw_grad_logits_theory",
                        "scaled_grad_logits_theory"},
                       "|dL/dlogits| (root mean square over rows)",
                       "Gradient on the logits",
                       1},
};

/* Candidates for the x axis, in order: the first configuration column
 * whose value differs between configurations (a --dk sweep, a sweep of
 * n), else d_k. */
static const char *const x_names[] = {"dk", "n_k", "n_q", "d_model"};

static const sv_column *column(sv_output_kind kind, const char *name)
{
    for (size_t i = 0; name && i < sv_columns_count(kind); i++)
        if (strcmp(sv_columns_get(kind, i)->name, name) == 0)
            return sv_columns_get(kind, i);
    return NULL;
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
    for (size_t k = 0; k < sizeof x_names / sizeof *x_names; k++) {
        const sv_column *c = column(SV_OUTPUT_SUMMARY, x_names[k]);
        for (size_t i = 1; c && i < s->count; i++)
            if (config_number(s, c, i) != config_number(s, c, 0))
                return c;
    }
    return column(SV_OUTPUT_SUMMARY, "dk");
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

/* "QK^T/sqrt(d_k)" for a --scale as the run resolved it. */
static void scaled_name(const cli_config *c, char *buf, size_t len)
{
    const char *n = c->scale_name;
    if (strcmp(n, "sqrt") == 0)
        snprintf(buf, len, "QK^T/sqrt(d_k)");
    else if (strcmp(n, "dk") == 0)
        snprintf(buf, len, "QK^T/d_k");
    else if (strcmp(n, "none") == 0)
        snprintf(buf, len, "QK^T (--scale none)");
    else
        snprintf(buf, len, "QK^T * %.6g%s", sv_spec_scale(&c->spec),
                 c->spec.scale_logn ? " ln n_i" : "");
}

static void real(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, " %.10g", v);
    else
        fputs(" NaN", f);
}

void cli_gnuplot_begin(cli_writer *s)
{
    FILE *f = s->f;
    const sv_spec *sp = &s->configs[0].spec;
    fprintf(
        f,
        "# sdpa-var %s: a gnuplot script with its data inline; draw it with\n"
        "#   ... --format gnuplot | gnuplot -p\n"
        "# (terminal: gnuplot -e 'set terminal pngcairo; set output \"f.png\"' -, or GNUTERM)\n",
        SV_VERSION_STRING);
    fprintf(f, "# n_q=%zu n_k=%zu trials=%llu seed=%llu dist=%s\n", sp->n_q, sp->n_k,
            (unsigned long long)sp->trials, (unsigned long long)sp->seed, sv_dist_name(sp->dist));
    const char *out = s->out->plot_output;
    if (out) { /* validated: ends in .png or .svg, no quote */
        const int svg = strlen(out) > 4 && strcmp(out + strlen(out) - 4, ".svg") == 0;
        fprintf(f, "set terminal %s size 800,600\nset output '%s'\n",
                svg ? "svg dynamic" : "pngcairo", out);
    }
    fputs("$data << EOD\n", f);
    if (s->kind == SV_OUTPUT_HISTOGRAM) {
        fputs("# bin_lo bin_hi raw_count scaled_count\n", f);
        return;
    }
    const plot_def *p = &plots[s->out->plot];
    fprintf(f, "# %s scale_index", x_column(s)->name);
    for (int k = 0; k < 4; k++)
        fprintf(f, " %s", p->col[k] ? p->col[k] : "-");
    fputc('\n', f);
}

void cli_gnuplot_row(cli_writer *s, const sv_row_view *row)
{
    FILE *f = s->f;
    if (s->kind == SV_OUTPUT_HISTOGRAM) {
        real(f, row->bin_lo);
        real(f, row->bin_hi);
        fprintf(f, " %llu %llu\n", (unsigned long long)row->bin_count[0],
                (unsigned long long)row->bin_count[1]);
        return;
    }
    const plot_def *p = &plots[s->out->plot];
    const sv_row_view cfg = {.spec = row->spec, .scale_name = row->scale_name};
    real(f, number(x_column(s), &cfg));
    fprintf(f, " %zu", scale_index(s, s->rows < s->count ? s->rows : 0));
    for (int k = 0; k < 4; k++)
        real(f, number(column(s->kind, p->col[k]), row));
    fputc('\n', f);
}

/* The x axis: "d_k", "n_k", ... as the field's term. */
static const char *x_label(const char *name)
{
    return strcmp(name, "dk") == 0 ? "d_k" : name;
}

static void histogram_end(cli_writer *s)
{
    FILE *f = s->f;
    const cli_config *c = &s->configs[0];
    char sc[64];
    scaled_name(c, sc, sizeof sc);
    fprintf(f,
            "set title \"Scores of one run: raw QK^T and %s (d_k=%zu, n_q=%zu, n_k=%zu)\" "
            "noenhanced\n"
            "set xlabel \"score\" noenhanced\nset ylabel \"count\" noenhanced\n"
            "set key top right noenhanced\nset grid\nset style fill transparent solid 0.4\n"
            "plot $data using (($1+$2)/2):3:($2-$1) with boxes title \"raw QK^T\" noenhanced, \\\n"
            "     $data using (($1+$2)/2):4:($2-$1) with boxes title \"%s\" noenhanced\n",
            sc, c->spec.d_k, c->spec.n_q, c->spec.n_k, sc);
}

void cli_gnuplot_end(cli_writer *s)
{
    FILE *f = s->f;
    fputs("EOD\n", f);
    if (s->kind == SV_OUTPUT_HISTOGRAM) {
        histogram_end(s);
        return;
    }
    const plot_def *p = &plots[s->out->plot];
    const sv_column *xc = x_column(s);
    const char *x = x_label(xc->name);
    const sv_spec *sp = &s->configs[0].spec;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < s->count; i++) {
        const double v = config_number(s, xc, i);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    fprintf(f,
            "set title \"%s against %s: raw and scaled logits (n_q=%zu, n_k=%zu)\" "
            "noenhanced\n",
            p->title, x, sp->n_q, sp->n_k);
    fprintf(f, "set xlabel \"%s\" noenhanced\nset ylabel \"%s\" noenhanced\n", x, p->ylabel);
    if (hi >= 8 * lo && lo > 0)
        fputs("set logscale x 2\n", f);
    if (p->logy)
        fputs("set logscale y\n", f);
    fputs("set key outside bottom center horizontal noenhanced\nset grid\nset offsets graph 0.02, "
          "graph 0.02, graph 0.05, graph 0.05\n",
          f);
    int none = 0; /* --scale none is the raw curve: drawn once */
    for (size_t j = 0; j < s->count; j++)
        none |= strcmp(s->configs[j].scale_name, "none") == 0;
    fprintf(f,
            "plot $data using 1:($2 == 0 ? $3 : NaN) with linespoints pt 7 lc 1 "
            "title \"raw QK^T%s\" noenhanced",
            none ? " (= --scale none)" : "");
    if (p->col[2])
        fprintf(f,
                ", \\\n     $data using 1:($2 == 0 ? $5 : NaN) with lines dt 2 lc 1 "
                "title \"%s\" noenhanced",
                strcmp(p->col[2], "entropy_bound") == 0 ? "ln n_k, the largest entropy"
                                                        : "raw, theory");
    for (size_t j = 0, k = 0; j < s->count; j++) {
        if (!first_of_scale(s, j))
            continue;
        if (strcmp(s->configs[j].scale_name, "none") == 0) {
            k++;
            continue;
        }
        char sc[64];
        scaled_name(&s->configs[j], sc, sizeof sc);
        fprintf(f,
                ", \\\n     $data using 1:($2 == %zu ? $4 : NaN) with linespoints pt 5 "
                "lc %zu title \"%s\" noenhanced",
                k, k + 2, sc);
        if (p->col[3])
            fprintf(f,
                    ", \\\n     $data using 1:($2 == %zu ? $6 : NaN) with lines dt 2 "
                    "lc %zu title \"%s, theory\" noenhanced",
                    k, k + 2, sc);
        k++;
    }
    fputc('\n', f);
}
