/* The table, for terminals: one configuration as statistics down and
 * (measured, theory) across; a sweep as one row per configuration; trials
 * as rows. A sweep streams: its head with the first row, each row as its
 * configuration finishes, its footer at the end; one configuration is
 * written when it finishes. */
#include <string.h>

#include "layout.h"
#include "write_table_one.h"
#include "writer.h"
#include "fail.h"

/* What varies between the configurations besides d_k, as "scale=dk
 * dist=t nu=6", for entry @p e; "" when nothing does. */
static void block_label(unsigned varying, const cli_table_entry *e, char *label, size_t len)
{
    char v[64];
    label[0] = '\0';
    for (size_t k = 1; k < CLI_TABLE_LABELLED; k++)
        if (varying & (1u << k)) {
            cli_table_config_text(sv_column_of(cli_table_labelled[k]), e, v, sizeof v);
            if (strcmp(v, "nan") == 0)
                continue; /* nu of a law that has none */
            const size_t at = strlen(label);
            snprintf(label + at, len - at, "%s%s=%s", at ? " " : "",
                     sv_column_of(cli_table_labelled[k])->name, v);
        }
}

/* Several configurations: one row each, in blocks headed by what varies
 * besides d_k (scale, dist, init...). The head goes out with the first
 * row, each row as its configuration finishes, the footer
 * (table_tail) at the end: the table streams like the CSV. */
static void sweep_head(FILE *f, int obs, const cli_table_entry *res, size_t n)
{
    const int w = obs ? 7 : 8; /* 6 + 8 (1 + 8) = 78 columns, 6 + 9 (1 + 7) with --observed */
    const char *meas = obs ? "meas." : "measured";
    cli_table_title(f, res, n, 78);
    fprintf(f, "\n%6s %*s %*s %*s %*s\n", "", w * 2 + 1, "raw variance", w * 2 + 1, "scaled var.",
            w * 2 + 1, "entropy (nats)", w * 2 + 1, "max weight");
    fprintf(f, "%6s %*s %*s %*s %*s %*s %*s %*s %*s", "d_k", w, meas, w, "theory", w, meas, w,
            "theory", w, "raw", w, "scaled", w, "raw", w, "scaled");
    if (obs)
        fprintf(f, " %*s", w, "P(<=V)");
    fputc('\n', f);
}

static void sweep_row(const cli_writer *s, size_t i)
{
    const cli_table_entry *e = &s->entries[i];
    const int obs = s->observed;
    const int w = obs ? 7 : 8;
    char label[160], prev[160] = "";
    block_label(s->varying, e, label, sizeof label);
    if (i > 0)
        block_label(s->varying, e - 1, prev, sizeof prev);
    if (label[0] && strcmp(label, prev) != 0)
        fprintf(s->f, "%s:\n", label);
    static const sv_column_id cols[] = {COL(raw_var),
                                        COL(raw_var_expected),
                                        COL(scaled_var),
                                        COL(scaled_var_expected),
                                        COL(raw_entropy),
                                        COL(scaled_entropy),
                                        COL(raw_max_weight),
                                        COL(scaled_max_weight),
                                        COL(raw_var_cdf_observed)};
    fprintf(s->f, "%6zu", e->spec.d_k);
    for (size_t k = 0; k < 8u + (size_t)obs; k++)
        cli_table_cell(s->f, w, cli_table_col(e, cols[k], 0));
    fputc('\n', s->f);
}

static size_t table_tail(const cli_writer *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->kind != SV_OUTPUT_SUMMARY || s->count < 2 || s->n_entries == 0)
        return 0;
    const cli_table_entry *e = &s->entries[0];
    /* The bound depends on n_k: a number only when every row has the same.
     * Per-row log-n multipliers have no one c: their theory is 15.1. Both
     * from table_begin: a loop over the entries here, at every commit,
     * made a table of many configurations quadratic. */
    char bound[48] = "";
    if (s->one_n_k)
        snprintf(bound, sizeof bound, " = %.4f", cli_table_col(e, COL(summary_entropy_bound), 0));
    const int logn = s->logn;
    int n =
        snprintf(buf, len,
                 "\nTheory: E[sample variance] of the raw scores, times c^2 (scaled).\n%s"
                 "Entropy <= %s%s.\n",
                 logn ? "The scaled theory with --scale logn per row: docs/theory.md 15.1.\n" : "",
                 e->spec.window   ? "mean ln(keys seen)"
                 : e->spec.causal ? "ln(n!)/n"
                                  : "ln n_k",
                 bound);
    if (s->observed && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n,
                      "P(<=V): fraction of trials with raw sample variance <= V = %g.\n",
                      s->out->observed);
    return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/* The cells of columns ids[0 .. n) of @p row, @p width wide, and the
 * line's end: the column table's numbers, as the CSV's. */
static void cells(FILE *f, int width, const sv_row_view *row, const sv_column_id *ids, size_t n)
{
    for (size_t k = 0; k < n; k++)
        cli_table_cell(f, width, sv_column_of(ids[k])->get(row).real);
    fputc('\n', f);
}

/* Per head: a compact table of the main columns (CSV has them all). */
#define CLI_HEAD_W 9
static int head_begin(cli_writer *s)
{
    const sv_spec *p = &s->configs[0].spec;
    fprintf(s->f,
            CLI_PROG ": measured Q and K, d_k=%zu n_q=%zu n_k=%zu%s, %llu (batch, head)\n"
                     "pairs, scale %s. var_scale = 1/sqrt(raw var); scaled H: entropy (nats) of\n"
                     "softmax(c S); H/ln keys: that over ln(keys seen); sink p: weight on the\n"
                     "first key seen.\n"
                     "All columns: --format csv (docs/real-models.md).\n\n",
            p->d_k, p->n_q, p->n_k, p->causal ? " causal" : "", (unsigned long long)p->trials,
            s->count > 1 ? "per block" : s->configs[0].scale_name);
    fprintf(s->f, "%5s %5s %4s %*s %*s %*s %*s %*s %*s\n", "batch", "head", "kv", CLI_HEAD_W,
            "raw var", CLI_HEAD_W, "var_scale", CLI_HEAD_W, "scaled H", CLI_HEAD_W, "H/ln keys",
            CLI_HEAD_W, "max p", CLI_HEAD_W, "sink p");
    return 1;
}

static void head_row(cli_writer *s, const sv_row_view *row)
{
    static const sv_column_id cols[] = {COL(raw_var),           COL(var_scale),
                                        COL(scaled_entropy),    COL(scaled_entropy_norm),
                                        COL(scaled_max_weight), COL(scaled_sink_weight)};
    if (s->count > 1 && (row->head ? row->trial == 0 : s->out->pool == SV_POOL_ALL))
        fprintf(s->f, "scale %s:\n", row->scale_name);
    if (row->head)
        fprintf(s->f, "%5zu %5zu %4zu", row->head->batch, row->head->head, row->head->kv_head);
    else
        fprintf(s->f, "%5s %5s %4s", "all", "all", "all");
    cells(s->f, CLI_HEAD_W, row, cols, sizeof cols / sizeof cols[0]);
}

static int table_begin(cli_writer *s)
{
    if (s->kind == SV_OUTPUT_PER_HEAD)
        return head_begin(s);
    if (s->kind == SV_OUTPUT_PER_ROW || s->kind == SV_OUTPUT_HISTOGRAM)
        return cli_csv_header(s); /* a column per statistic reads fine as CSV */
    cli_table_entries_begin(s);   /* for the title and the block labels */
    if (s->kind != SV_OUTPUT_PER_TRIAL)
        return 1;     /* the summary's head needs the first configuration's summary */
    const int w = 10; /* 6 + 1 + 6 + 6 (1 + 10) = 79 columns */
    cli_table_title(s->f, s->entries, s->count, 78);
    fprintf(s->f, "\n%6s %6s %*s %*s %*s %*s %*s %*s\n", "trial", "d_k", w, "raw var", w,
            "scaled var", w, "raw H", w, "scaled H", w, "raw max p", w, "scaled max");
    return 1;
}

static void table_row(cli_writer *s, const sv_row_view *row)
{
    if (s->kind == SV_OUTPUT_PER_HEAD) {
        head_row(s, row);
        return;
    }
    if (s->kind == SV_OUTPUT_PER_ROW || s->kind == SV_OUTPUT_HISTOGRAM) {
        cli_csv_row(s, row);
        return;
    }
    if (s->kind == SV_OUTPUT_SUMMARY) {
        cli_table_keep(s, row);
        if (s->count > 1) {
            if (s->n_entries == 1)
                sweep_head(s->f, s->observed, s->entries, s->count);
            sweep_row(s, s->n_entries - 1);
        }
        return;
    }
    if (row->trial == 0 && s->count > 1) { /* a new configuration: say which */
        char label[160];
        block_label(s->varying, &s->entries[s->n_entries++], label, sizeof label);
        if (label[0])
            fprintf(s->f, "%s:\n", label);
    }
    static const sv_column_id cols[] = {COL(raw_var),        COL(scaled_var),
                                        COL(raw_entropy),    COL(scaled_entropy),
                                        COL(raw_max_weight), COL(scaled_max_weight)};
    fprintf(s->f, "%6llu %6zu", (unsigned long long)row->trial, row->spec->d_k);
    cells(s->f, 10, row, cols, sizeof cols / sizeof cols[0]);
}

/* One configuration's table; a sweep ends with its footer (the tail). */
static void table_end(cli_writer *s)
{
    if (s->kind == SV_OUTPUT_SUMMARY && s->count == 1 && s->n_entries)
        cli_table_one(s->f, &s->entries[0]);
}

const cli_format_writer cli_table_writer = {
    .begin = table_begin, .row = table_row, .end = table_end, .tail = table_tail};
