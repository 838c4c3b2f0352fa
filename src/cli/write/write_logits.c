/* --logits output (write_logits.h). CSV has one line per row, scale and
 * key: the key's logit, weight and Jacobian row jac_0 .. jac_{m-1} (m the
 * longest row's keys; "nan" past a shorter row's end), beside the row's
 * statistics, named as the summary's raw_ and scaled_ columns without
 * their prefix (entropy, eff_keys, max_weight, jac_trace, jac_frob,
 * grad_logits). JSON has one object per row and scale, with arrays. */
#include "write_logits.h"
#include "gnuplot_term.h"
#include "slides_grid.h"
#include "fail.h"
#include "writer.h"

#include <math.h>
#include <string.h>

/* A real as the CSV (@p json 0) or JSON writes it: the library's text
 * (sv_value_csv, sv_value_json), as every other output's. */
static void real(FILE *f, double v, int json)
{
    static const sv_column any_real = {.type = SV_VALUE_REAL};
    (json ? sv_value_json : sv_value_csv)(&any_real, (sv_value){.real = v}, cli_put_file, f);
}

/* Whether column @p c of the logits rows is written: --upstream's only
 * with it, dk only when given. */
static int kept(const cli_logits_writer *w, const sv_column *c)
{
    return (w->grad || !(c->flags & SV_COLUMN_ONLY_GRAD)) &&
           (w->dk || c != sv_column_of(SV_COL_logits_dk));
}

/* Column @p id's value in entry @p e (its key e->v.key). */
static double value(const cli_logits_entry *e, sv_column_id id)
{
    const sv_row_view row = {.logits = &e->v};
    return sv_column_of(id)->get(&row).real;
}

void cli_logits_begin(cli_logits_writer *w)
{
    FILE *f = w->f;
    if (w->format == CLI_FORMAT_GNUPLOT) { /* the CSV, as logits.gp's datablock */
        cli_gnuplot_head(f, w->plot_output);
        fputs("$D << EOD\n", f);
    }
    if ((w->format == CLI_FORMAT_CSV && !w->no_header) || w->format == CLI_FORMAT_GNUPLOT) {
        const char *sep = "";
        for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_LOGITS); i++) {
            const sv_column *c = sv_columns_get(SV_OUTPUT_LOGITS, i);
            if (kept(w, c))
                fprintf(f, "%s%s", sep, c->name), sep = ",";
        }
        for (size_t j = 0; j < w->max_n; j++)
            fprintf(f, ",jac_%zu", j);
        fputc('\n', f);
    } else if (w->format == CLI_FORMAT_LATEX) {
        fputs(CLI_GRID_BOOKTABS, f);
    } else if (w->format == CLI_FORMAT_JSON || w->format == CLI_FORMAT_JSONL) {
        fprintf(f,
                "{\"tool\":\"" CLI_PROG "\",\"version\":\"%s\",\"config\":{\"output\":\"logits\"",
                SV_VERSION_STRING);
        if (w->dk)
            fprintf(f, ",\"dk\":%zu", w->dk);
        fputs(w->format == CLI_FORMAT_JSON ? "},\"rows\":[" : "}}\n", f);
    }
}

static void csv(cli_logits_writer *w, cli_logits_entry *e)
{
    FILE *f = w->f;
    const sv_row_view row = {.logits = &e->v};
    for (e->v.key = 0; e->v.key < e->v.n; e->v.key++) {
        const char *sep = "";
        for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_LOGITS); i++) {
            const sv_column *c = sv_columns_get(SV_OUTPUT_LOGITS, i);
            if (!kept(w, c))
                continue;
            fputs(sep, f), sep = ",";
            sv_value_csv(c, c->get(&row), cli_put_file, f);
        }
        for (size_t j = 0; j < w->max_n; j++)
            fputc(',', f), real(f, j < e->v.n ? e->jac[e->v.key * e->v.n + j] : NAN, 0);
        fputc('\n', f);
    }
}

/* ,"NAME":[...]: column @p id at each key of the row (e's key moves). */
static void json_keys(FILE *f, const char *name, cli_logits_entry *e, sv_column_id id)
{
    fprintf(f, ",\"%s\":[", name);
    for (e->v.key = 0; e->v.key < e->v.n; e->v.key++)
        fputs(e->v.key ? "," : "", f), real(f, value(e, id), 1);
    fputc(']', f);
}

static void json(cli_logits_writer *w, cli_logits_entry *e)
{
    FILE *f = w->f;
    if (w->format == CLI_FORMAT_JSON)
        fputs(w->written ? ",\n" : "\n", f);
    fprintf(f, "{\"row\":%zu,\"scale\":\"%s\",\"scale_value\":", e->v.row, e->v.scale_name);
    real(f, e->v.scale, 1);
    fprintf(f, ",\"n_k\":%zu", e->v.n);
    json_keys(f, "logits", e, SV_COL_logit);
    json_keys(f, "scaled_logits", e, SV_COL_scaled_logit);
    json_keys(f, "weights", e, SV_COL_weight);
    for (sv_column_id id = SV_COL_logits_entropy; id <= SV_COL_logits_jac_frob; id++)
        fprintf(f, ",\"%s\":", sv_column_of(id)->name), real(f, value(e, id), 1);
    fputs(",\"jacobian\":[", f);
    for (size_t i = 0; i < e->v.n; i++) {
        fputs(i ? ",[" : "[", f);
        for (size_t j = 0; j < e->v.n; j++)
            fputs(j ? "," : "", f), real(f, e->jac[i * e->v.n + j], 1);
        fputc(']', f);
    }
    fputc(']', f);
    if (w->grad) {
        json_keys(f, "upstream", e, SV_COL_upstream);
        json_keys(f, "grad_logit", e, SV_COL_grad_logit);
        fputs(",\"grad_logits\":", f), real(f, value(e, SV_COL_grad_logits), 1);
    }
    fputs(w->format == CLI_FORMAT_JSONL ? "}\n" : "}", f);
}

/* The scale as a reader says it, its multiplier to @p digits significant
 * digits: "as given", "* 0.125 = 1/sqrt(d_k)", "* 0.5" (a legend, a
 * column head); with @p w (the table's words) also d_k and the option:
 * "* 0.125 = 1/sqrt(d_k), d_k = 64 (--scale sqrt)". */
static void scale_words(const cli_logits_writer *w, const cli_logits_entry *e, int digits,
                        char *buf, size_t len)
{
    const sv_scale_rule r = cli_scale_rule(e->v.scale_name);
    const char *why = r == SV_SCALE_SQRT ? " = 1/sqrt(d_k)" : r == SV_SCALE_DK ? " = 1/d_k" : "";
    size_t at =
        (size_t)(r == SV_SCALE_NONE ? snprintf(buf, len, "as given")
                                    : snprintf(buf, len, "* %.*g%s", digits, e->v.scale, why));
    if (w && *why && at < len)
        at += (size_t)snprintf(buf + at, len - at, ", d_k = %zu", w->dk);
    if (w && at < len)
        snprintf(buf + at, len - at, " (--scale %s)", e->v.scale_name);
}

static void table(cli_logits_writer *w, cli_logits_entry *e)
{
    FILE *f = w->f;
    char words[96];
    scale_words(w, e, 6, words, sizeof words);
    fprintf(f, "%sRow %zu, %s:\n", w->written ? "\n" : "", e->v.row, words);
    fprintf(f, "  %4s %11s %11s %11s", "key", "logit", "scaled", "weight");
    if (w->grad)
        fprintf(f, " %11s %11s", "upstream", "dL/dlogit");
    fputs("   Jacobian diag(p) - pp^T\n", f);
    for (e->v.key = 0; e->v.key < e->v.n; e->v.key++) { /* scaled: the column table's c z */
        const size_t i = e->v.key;
        fprintf(f, "  %4zu %11.4g %11.4g %11.4g", i, e->v.z[i], value(e, SV_COL_scaled_logit),
                e->v.p[i]);
        if (w->grad)
            fprintf(f, " %11.4g %11.4g", e->v.g[i], e->v.dz[i]);
        fputs("  ", f);
        for (size_t j = 0; j < e->v.n; j++)
            fprintf(f, " %10.3g", e->jac[i * e->v.n + j]);
        fputc('\n', f);
    }
    fprintf(f,
            "  entropy %.4g nats (uniform: ln %zu = %.4g), e^H %.4g keys, max weight %.4g\n"
            "  Jacobian trace %.4g, Frobenius norm %.4g",
            e->v.st.entropy, e->v.n, value(e, SV_COL_logits_entropy_bound), e->v.st.eff_keys,
            e->v.st.max_weight, e->v.st.jac_trace, e->v.st.jac_frob);
    if (w->grad)
        fprintf(f, ", |dL/dlogits| %.4g", value(e, SV_COL_grad_logits));
    fputc('\n', f);
}

/* --format markdown and latex: a row is a slide's table, a line a key
 * (its logit and its weight at each scale) and the row's statistics under
 * them, the numbers to 4 significant digits (they are exact, not
 * estimates: no standard error to round at). */
static void slides_row(cli_logits_writer *w, const cli_logits_entry *e)
{
    static const char *const stat_names[] = {
        "entropy (nats)",          "e^H (keys)",  "max weight", "Jacobian trace",
        "Jacobian Frobenius norm", "|dL/dlogits|"};
    cli_grid g = {w->f, w->format == CLI_FORMAT_LATEX, 0};
    char num[32];
    const int cols = 2 + (int)w->scales;
    fprintf(w->f, "%s%sRow %zu: logits", e->v.row ? "\n" : "", g.latex ? "% " : "", e->v.row);
    for (size_t i = 0; i < e->v.n; i++)
        fprintf(w->f, "%s%.6g", i ? ", " : " ", e->v.z[i]);
    fputs("\n\n", w->f);
    cli_grid_begin(&g, cols);
    cli_grid_cell(&g, "key");
    cli_grid_cell(&g, "logit");
    for (size_t k = 0; k < w->scales; k++) {
        char head[112];
        snprintf(head, sizeof head, "weight, %s", w->label[k]);
        cli_grid_cell(&g, head);
    }
    cli_grid_end_row(&g);
    cli_grid_rule(&g, cols);
    for (size_t i = 0; i < e->v.n; i++) {
        snprintf(num, sizeof num, "%zu", i);
        cli_grid_cell(&g, num);
        snprintf(num, sizeof num, "%.6g", e->v.z[i]);
        cli_grid_cell(&g, num);
        for (size_t k = 0; k < w->scales; k++)
            snprintf(num, sizeof num, "%.4g", w->p[k][i]), cli_grid_cell(&g, num);
        cli_grid_end_row(&g);
    }
    if (g.latex) /* the keys above, the row's statistics below */
        fputs("\\midrule\n", w->f);
    for (size_t r = 0; r < (w->grad ? 6u : 5u); r++) {
        cli_grid_cell(&g, stat_names[r]);
        cli_grid_cell(&g, "");
        for (size_t k = 0; k < w->scales; k++)
            snprintf(num, sizeof num, "%.4g", w->stat[k][r]), cli_grid_cell(&g, num);
        cli_grid_end_row(&g);
    }
    cli_grid_end(&g);
}

static void slides_entry(cli_logits_writer *w, const cli_logits_entry *e)
{
    const size_t k = w->written % (w->scales ? w->scales : 1);
    scale_words(NULL, e, 4, w->label[k], sizeof w->label[k]);
    for (size_t i = 0; i < e->v.n && i < CLI_LOGITS_KEYS_MAX; i++)
        w->p[k][i] = e->v.p[i];
    const double st[6] = {e->v.st.entropy,   e->v.st.eff_keys, e->v.st.max_weight,
                          e->v.st.jac_trace, e->v.st.jac_frob, value(e, SV_COL_grad_logits)};
    memcpy(w->stat[k], st, sizeof st);
    if (k + 1 == w->scales)
        slides_row(w, e);
}

void cli_logits_write(cli_logits_writer *w, cli_logits_entry *e)
{
    if (w->format == CLI_FORMAT_CSV || w->format == CLI_FORMAT_GNUPLOT)
        csv(w, e);
    else if (w->format == CLI_FORMAT_TABLE)
        table(w, e);
    else if (w->format == CLI_FORMAT_MARKDOWN || w->format == CLI_FORMAT_LATEX)
        slides_entry(w, e);
    else
        json(w, e);
    w->written++;
}

void cli_logits_end(cli_logits_writer *w)
{
    if (w->format == CLI_FORMAT_JSON)
        fputs("\n]}\n", w->f);
    if (w->format == CLI_FORMAT_GNUPLOT)
        cli_gnuplot_tail(w->f, cli_gp_logits);
}
