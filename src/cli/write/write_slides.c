/* --format markdown and --format latex: the table view for slides. One
 * configuration is statistics down, raw and scaled across (measured, sd,
 * theory); a sweep is a row per configuration. Every measured number is
 * rounded at the second digit of its standard error (layout.c), and a
 * theory beside it to the same place, so no 63.99995 reaches a slide. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "layout.h"
#include "slides_grid.h"
#include "write_table_one.h"
#include "writer.h"

/* The title (every option that shapes the run) as one line: a paragraph
 * in markdown, a comment in LaTeX (the caption is the author's). */
static void title(cli_grid *g, const cli_table_entry *e, size_t n)
{
    fputs(g->latex ? "% " : "", g->f);
    cli_table_title(g->f, e, n, INT_MAX);
    /* The rules are booktabs': say so where a LaTeX user reads first. */
    fputs(g->latex ? "% needs \\usepackage{booktabs} (\\toprule, \\midrule, \\bottomrule)\n\n"
                   : "\n",
          g->f);
}

/* A measured value at its standard error @p se; "-" where undefined. */
static void value_cell(cli_grid *g, double v, double se)
{
    char buf[64];
    cli_table_rounded(buf, sizeof buf, v, se, 24);
    cli_grid_cell(g, buf);
}

/* A theory to the place of the measured value beside it (standard error
 * @p se); without one, 4 significant digits and no trailing zeros. */
static void theory_cell(cli_grid *g, double t, double se)
{
    char buf[64];
    if ((se > 0.0 && isfinite(se)) || isnan(t)) {
        value_cell(g, t, se);
        return;
    }
    snprintf(buf, sizeof buf, "%.4g", t);
    cli_grid_cell(g, buf);
}

/* Side @p k of row @p r (0 raw, 1 scaled): measured, sd and theory;
 * CLI_STAT_SQRT takes the square root of all three (the score SD beside
 * the variance). */
static void side(cli_grid *g, const cli_table_entry *e, const cli_stat_row *r, int k)
{
    const size_t m = 2 * (size_t)k, m1 = m + 1;
    const sv_column_id id = r->col[m];
    const int many = e->spec.trials > 1;
    double v = cli_table_col(e, id, r->power[m]);
    double se = cli_table_std_error(e, id, r->power[m]);
    /* The sd across trials; with one trial, its theory (that of one trial). */
    const sv_column *sdc = cli_table_partner(sv_column_of(id), SV_PARTNER_SD);
    if (!many)
        sdc = cli_table_partner(sdc, SV_PARTNER_THEORY);
    double sd = cli_table_value(e, sdc, r->power[m]);
    double t = cli_table_col(e, r->col[m1], r->power[m1]);
    if (r->flags & CLI_STAT_SQRT) { /* d sqrt(x) = dx / (2 sqrt(x)) */
        se = se / (2.0 * sqrt(v));
        sd = sd / (2.0 * sqrt(v));
        v = sqrt(v);
        t = sqrt(t);
    }
    value_cell(g, v, se);
    value_cell(g, sd, sd);
    theory_cell(g, t, isnan(v) ? NAN : se);
}

/* A row whose measured columns are NAN for this run (an option off) is
 * left out: the slide shows what the run measured. */
static int defined(const cli_table_entry *e, const cli_stat_row *r)
{
    return r->col[0] == NO_COL || !isnan(cli_table_col(e, r->col[0], 0));
}

static void one_table(cli_grid *g, const cli_table_entry *e)
{
    char scaled[64], sd[32];
    title(g, e, 1);
    cli_grid_begin(g, 7);
    snprintf(scaled, sizeof scaled, "scaled x %.6g%s", e->summary.scale,
             e->spec.scale_logn ? " ln n_i" : "");
    snprintf(sd, sizeof sd, e->spec.trials > 1 ? "sd" : "sd (theory)");
    const char *head[] = {e->spec.trials > 1 ? "mean over trials" : "statistic",
                          "raw",
                          sd,
                          "theory",
                          scaled,
                          sd,
                          "theory"};
    for (int i = 0; i < 7; i++)
        cli_grid_cell(g, head[i]);
    cli_grid_end_row(g);
    cli_grid_rule(g, 7);
    for (size_t i = 0; i < cli_stat_rows_n; i++) {
        const cli_stat_row *r = &cli_stat_rows[i];
        if (!r->slide || !defined(e, r))
            continue;
        cli_grid_cell(g, r->slide[0] == ' ' && !g->latex ? r->slide + 2 : r->slide);
        side(g, e, r, 0);
        side(g, e, r, 1);
        cli_grid_end_row(g);
    }
    cli_grid_end(g);
}

/* A sweep's statistic columns: (name, power, as a square root). */
typedef struct sweep_col {
    const char *head;
    sv_column_id id;
    int sqrt_of, theory; /* theory: rounded at the previous column's se */
} sweep_col;

static const sweep_col sweep_cols[] = {
    {"raw var", COL(raw_var), 0, 0},
    {"sd", COL(raw_var_sd), 0, 0},
    {"theory", COL(raw_var_expected), 0, 1},
    {"raw SD", COL(raw_var), 1, 0},
    {"scaled var", COL(scaled_var), 0, 0},
    {"sd", COL(scaled_var_sd), 0, 0},
    {"theory", COL(scaled_var_expected), 0, 1},
    {"scaled SD", COL(scaled_var), 1, 0},
    {"raw H", COL(raw_entropy), 0, 0},
    {"scaled H", COL(scaled_entropy), 0, 0},
    {"raw max w", COL(raw_max_weight), 0, 0},
    {"scaled max w", COL(scaled_max_weight), 0, 0},
};
#define N_SWEEP (sizeof sweep_cols / sizeof sweep_cols[0])

static int n_label_cols(const cli_writer *s)
{
    int n = 1;
    for (size_t k = 1; k < CLI_TABLE_LABELLED; k++)
        n += (int)(s->varying >> k & 1u);
    return n;
}

static void sweep_head(const cli_writer *s, cli_grid *g)
{
    title(g, s->entries, s->count);
    const int cols = n_label_cols(s) + (int)N_SWEEP + s->observed;
    cli_grid_begin(g, cols);
    cli_grid_cell(g, "d_k");
    for (size_t k = 1; k < CLI_TABLE_LABELLED; k++)
        if (s->varying >> k & 1u)
            cli_grid_cell(g, sv_column_of(cli_table_labelled[k])->name);
    const int many = s->entries[0].spec.trials > 1;
    for (size_t k = 0; k < N_SWEEP; k++) /* with one trial, the sd is the theory's */
        cli_grid_cell(g, strcmp(sweep_cols[k].head, "sd") == 0 && !many ? "sd (theory)"
                                                                        : sweep_cols[k].head);
    if (s->observed)
        cli_grid_cell(g, "P(var <= V)");
    cli_grid_end_row(g);
    cli_grid_rule(g, cols);
}

static void sweep_row(const cli_writer *s, cli_grid *g, const cli_table_entry *e)
{
    char v[64];
    for (size_t k = 0; k < CLI_TABLE_LABELLED; k++)
        if (k == 0 || (s->varying >> k & 1u)) {
            cli_table_config_text(sv_column_of(cli_table_labelled[k]), e, v, sizeof v);
            cli_grid_cell(g, strcmp(v, "nan") == 0 ? "-" : v);
        }
    double se = NAN;
    for (size_t k = 0; k < N_SWEEP; k++) {
        const sweep_col *c = &sweep_cols[k];
        /* A spread across trials; with one trial, its theory. */
        const sv_column *col = sv_column_of(c->id);
        const int spread = cli_table_partner(col, SV_PARTNER_SD_OF) != NULL;
        if (spread && e->spec.trials < 2)
            col = cli_table_partner(col, SV_PARTNER_THEORY);
        double x = cli_table_value(e, col, 0);
        if (c->theory) {
            theory_cell(g, x, se);
            continue;
        }
        se = cli_table_std_error(e, c->id, 0);
        if (spread) /* to its own second digit */
            se = x;
        if (c->sqrt_of) {
            se /= 2.0 * sqrt(x);
            x = sqrt(x);
        }
        value_cell(g, x, se);
    }
    if (s->observed)
        theory_cell(g, cli_table_col(e, COL(raw_var_cdf_observed), 0), NAN);
    cli_grid_end_row(g);
}

void cli_slides_begin(cli_writer *s)
{
    cli_table_entries_begin(s);
}

void cli_slides_row(cli_writer *s, const sv_row_view *row)
{
    cli_grid g = {s->f, s->format == CLI_FORMAT_LATEX, 0};
    const cli_table_entry *e = cli_table_keep(s, row);
    if (s->count < 2)
        return; /* one configuration: written at the end */
    if (s->n_entries == 1)
        sweep_head(s, &g);
    sweep_row(s, &g, e);
}

size_t cli_slides_tail(const cli_writer *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->format != CLI_FORMAT_LATEX || s->count < 2)
        return 0;
    const int n = snprintf(buf, len, "\\bottomrule\n\\end{tabular}\n");
    return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

void cli_slides_end(cli_writer *s)
{
    cli_grid g = {s->f, s->format == CLI_FORMAT_LATEX, 0};
    if (s->n_entries == 0)
        return;
    if (s->count == 1)
        one_table(&g, &s->entries[0]);
    else
        cli_grid_end(&g);
}
