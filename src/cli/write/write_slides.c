/* --format markdown and --format latex: the table view for slides. One
 * configuration is statistics down, raw and scaled across (measured, sd,
 * theory); a sweep is a row per configuration. Every measured number is
 * rounded at the second digit of its standard error (sv_value_rounded),
 * and a theory beside it to the same place, so no 63.99995 reaches a
 * slide. */
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
    fputs(g->latex ? CLI_GRID_BOOKTABS "\n" : "\n", g->f);
}

/* A measured value at its standard error @p se; "-" where undefined. */
static void value_cell(cli_grid *g, double v, double se)
{
    char buf[64];
    sv_value_rounded(buf, sizeof buf, v, se, 24);
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

/* Side @p k of row @p r (0 raw, 1 scaled): measured, sd (with one
 * trial, its theory) and theory. */
static void side(cli_grid *g, const cli_table_entry *e, const cli_stat_row *r, int k)
{
    const cli_stat_side x = cli_stat_values(e, r, k, 1);
    value_cell(g, x.v, x.se);
    value_cell(g, x.sd, x.sd);
    theory_cell(g, x.t, isnan(x.v) ? NAN : x.se);
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

/* A sweep's statistic columns, for each side (raw, then scaled): the
 * variance with its sd and theory, the score SD; then the entropy and the
 * max weight of both sides. */
static const char *const sweep_heads[] = {"raw var",    "sd",       "theory",    "raw SD",
                                          "scaled var", "sd",       "theory",    "scaled SD",
                                          "raw H",      "scaled H", "raw max w", "scaled max w"};
#define N_SWEEP (sizeof sweep_heads / sizeof sweep_heads[0])
static const cli_stat_row sweep_rows[] = {
    {.col = {COL(raw_var), COL(raw_var_expected), COL(scaled_var), COL(scaled_var_expected)}},
    {.col = {COL(raw_var), COL(raw_var_expected), COL(scaled_var), COL(scaled_var_expected)},
     .flags = CLI_STAT_SQRT},
    {.col = {COL(raw_entropy), NO_COL, COL(scaled_entropy), NO_COL}},
    {.col = {COL(raw_max_weight), NO_COL, COL(scaled_max_weight), NO_COL}},
};

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
        cli_grid_cell(g,
                      strcmp(sweep_heads[k], "sd") == 0 && !many ? "sd (theory)" : sweep_heads[k]);
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
    for (int k = 0; k < 2; k++) {
        const cli_stat_side var = cli_stat_values(e, &sweep_rows[0], k, 1);
        const cli_stat_side sd = cli_stat_values(e, &sweep_rows[1], k, 1);
        value_cell(g, var.v, var.se);
        value_cell(g, var.sd, var.sd); /* to its own second digit */
        theory_cell(g, var.t, var.sd); /* to the sd's place */
        value_cell(g, sd.v, sd.se);
    }
    for (size_t r = 2; r < 4; r++)
        for (int k = 0; k < 2; k++) {
            const cli_stat_side x = cli_stat_values(e, &sweep_rows[r], k, 1);
            value_cell(g, x.v, x.se);
        }
    if (s->observed)
        theory_cell(g, cli_table_col(e, COL(raw_var_cdf_observed), 0), NAN);
    cli_grid_end_row(g);
}

static void slides_row(cli_writer *s, const sv_row_view *row)
{
    cli_grid g = {s->f, s->format == CLI_FORMAT_LATEX, 0};
    const cli_table_entry *e = cli_table_keep(s, row);
    if (s->count < 2)
        return; /* one configuration: written at the end */
    if (s->n_entries == 1)
        sweep_head(s, &g);
    sweep_row(s, &g, e);
}

static size_t slides_tail(const cli_writer *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->format != CLI_FORMAT_LATEX || s->count < 2)
        return 0;
    const int n = snprintf(buf, len, "\\bottomrule\n\\end{tabular}\n");
    return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

static void slides_end(cli_writer *s)
{
    cli_grid g = {s->f, s->format == CLI_FORMAT_LATEX, 0};
    if (s->count == 1 && s->n_entries) /* a sweep: the tail ends its grid */
        one_table(&g, &s->entries[0]);
}

const cli_format_writer cli_slides_writer = {
    .begin = cli_table_entries_begin, .row = slides_row, .end = slides_end, .tail = slides_tail};
