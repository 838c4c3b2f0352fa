/* The table's cells, wrapped words and title: what write_table.c (sweeps,
 * trials) and write_table_one.c (one configuration) both lay out, below
 * both. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "fail.h"

/* Table cell: up to 7 significant digits, fewer if that is what fits the
 * width; '-' where the value is undefined or there is no theory. */
void cli_table_cell(FILE *f, int width, double v)
{
    char buf[64];
    if (isnan(v)) {
        fprintf(f, " %*s", width, "-");
        return;
    }
    for (int prec = 7; prec >= 1; prec--) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if ((int)strlen(buf) <= width)
            break;
    }
    fprintf(f, " %*s", width, buf);
}
/* c^power for @p e: 1, the spec's scale (power 1) or scale2 (power 2, the
 * c^2 that 1/d_k is rounded once for, as the library's own scaled
 * variances). Log-n scaling per row has no one multiplier: what is a raw
 * value times c or c^2 is then no scaled value (NAN). */
static double multiplier(const cli_table_entry *e, int power)
{
    assert(power >= 0 && power <= 2);
    const double one = e->spec.scale_logn ? NAN : 1.0;
    const double times[3] = {1.0, e->spec.scale * one, e->spec.scale2 * one};
    return times[power];
}

/* Summary column @p c for @p e, times c^power; NAN for a column that is
 * not a real. The table takes every number from the column table, so it
 * gives the CSV's verdict on every value. */
double cli_table_value(const cli_table_entry *e, const sv_column *c, int power)
{
    const sv_row_view v = {.spec = &e->spec,
                           .scale_name = e->scale_name,
                           .stats = &e->summary.mean,
                           .summary = &e->summary};
    return c && c->type == SV_VALUE_REAL ? c->get(&v).real * multiplier(e, power) : NAN;
}

/* sv_column_std_error, times c^power. */
double cli_table_std_error(const cli_table_entry *e, sv_column_id id, int power)
{
    const sv_row_view v = {.spec = &e->spec, .stats = &e->summary.mean, .summary = &e->summary};
    return multiplier(e, power) * sv_column_std_error(sv_column_of(id), &v);
}

double cli_table_col(const cli_table_entry *e, sv_column_id id, int power)
{
    return cli_table_value(e, sv_column_of(id), power);
}

/* A configuration column's value as text ("sqrt", "64", "0.5"). */
void cli_table_config_text(const sv_column *c, const cli_table_entry *e, char *buf, size_t len)
{
    const sv_row_view v = {.spec = &e->spec, .scale_name = e->scale_name};
    const sv_value x = c->get(&v);
    if (c->type == SV_VALUE_TEXT)
        snprintf(buf, len, "%s", x.text);
    else if (c->type == SV_VALUE_COUNT)
        snprintf(buf, len, "%llu", (unsigned long long)x.count);
    else
        snprintf(buf, len, "%g", x.real);
}

/* Whether configuration column @p id differs between the @p n entries. */
static int varies(sv_column_id id, const cli_table_entry *e, size_t n)
{
    const sv_column *c = sv_column_of(id);
    char a[64], b[64];
    cli_table_config_text(c, &e[0], a, sizeof a);
    for (size_t i = 1; i < n; i++) {
        cli_table_config_text(c, &e[i], b, sizeof b);
        if (strcmp(a, b) != 0)
            return 1;
    }
    return 0;
}

const sv_column_id cli_table_labelled[CLI_TABLE_LABELLED] = {
    COL(dk), COL(n_q), COL(n_k), COL(scale), COL(dist), COL(nu), COL(init), COL(d_model)};

int cli_table_entries_begin(cli_writer *s)
{
    for (size_t i = 0; i < s->count; i++) {
        cli_table_entry *e = &s->entries[i];
        e->spec = s->configs[i].spec;
        snprintf(e->scale_name, sizeof e->scale_name, "%s", s->configs[i].scale_name);
        e->summary.observed = NAN;
        e->summary.qk_radius = NAN; /* known after the run */
        s->logn |= e->spec.scale_logn;
    }
    s->varying = 0;
    for (size_t k = 1; k < CLI_TABLE_LABELLED; k++)
        if (varies(cli_table_labelled[k], s->entries, s->count))
            s->varying |= 1u << k;
    s->one_n_k = !varies(COL(n_k), s->entries, s->count);
    return 1;
}

cli_table_entry *cli_table_keep(cli_writer *s, const sv_row_view *row)
{
    cli_table_entry *e = &s->entries[s->n_entries++];
    e->spec = *row->spec;
    e->summary = *row->summary;
    snprintf(e->scale_name, sizeof e->scale_name, "%s", row->scale_name ? row->scale_name : "sqrt");
    return e;
}

void cli_wrap_put(cli_wrap *w, const char *piece)
{
    const int len = (int)strlen(piece);
    if (w->col > 0 && w->col + 1 + len > w->width) {
        fprintf(w->f, "\n%*s", w->indent, "");
        w->col = w->indent;
    }
    fprintf(w->f, "%s%s", w->col > 0 ? " " : "", piece);
    w->col += len + (w->col > 0);
}

/* Words of the title, wrapped (continued lines indented). */
static void word(cli_wrap *w, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cli_wrap_put(w, buf);
}

/* The header line: every option that shapes the run, except those that
 * vary between the entries (each row or block names those). */
void cli_table_title(FILE *f, const cli_table_entry *e, size_t n, int width)
{
    const sv_spec *c = &e->spec;
    cli_wrap w = {f, width, 1, 0};
    word(&w, CLI_PROG " %s", SV_VERSION_STRING);
    if (!varies(COL(dk), e, n))
        word(&w, "d_k=%zu", c->d_k);
    if (!varies(COL(n_q), e, n))
        word(&w, "n_q=%zu", c->n_q);
    if (!varies(COL(n_k), e, n))
        word(&w, "n_k=%zu", c->n_k);
    word(&w, "trials=%llu seed=%llu", (unsigned long long)c->trials, (unsigned long long)c->seed);
    if (!varies(COL(dist), e, n))
        word(&w, "dist=%s", sv_dist_name(c->dist));
    if (c->dist == SV_DIST_STUDENT_T && !varies(COL(nu), e, n))
        word(&w, "nu=%g", c->nu);
    word(&w, "ddof=%u", c->ddof);
    if (!varies(COL(scale), e, n))
        word(&w, "scale=%s", e->scale_name);
    if (cli_table_col(e, COL(q_mean), 0) != 0.0 || cli_table_col(e, COL(q_std), 0) != 1.0)
        word(&w, "Q=%g+%g*x", cli_table_col(e, COL(q_mean), 0), cli_table_col(e, COL(q_std), 0));
    if (cli_table_col(e, COL(k_mean), 0) != 0.0 || cli_table_col(e, COL(k_std), 0) != 1.0)
        word(&w, "K=%g+%g*x", cli_table_col(e, COL(k_mean), 0), cli_table_col(e, COL(k_std), 0));
    if (c->causal)
        word(&w, "causal");
    if (c->window > 0)
        word(&w, "window=%zu", c->window);
    if (c->qk_norm)
        word(&w, isnan(e->summary.qk_radius) ? "qk-norm" : "qk-norm R=%g", e->summary.qk_radius);
    if (c->plant != 0.0)
        word(&w, "plant=%g", c->plant);
    if (c->d_model > 0) {
        word(&w, "d_model=%zu", c->d_model);
        if (!varies(COL(init), e, n)) {
            char v[64];
            cli_table_config_text(sv_column_of(COL(init)), e, v, sizeof v);
            word(&w, "init=%s", v);
        }
        if (c->cross)
            word(&w, "cross");
    }
    if (c->values)
        word(&w, "values d_v=%g", cli_table_col(e, COL(d_v), 0));
    if (e->summary.observed == e->summary.observed)
        word(&w, "observed=%g", e->summary.observed);
    fputc('\n', f);
}
