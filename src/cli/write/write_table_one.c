/* The table of one configuration: statistics down; raw and scaled across,
 * each as (measured, sd across trials, theory); numbers to the digits
 * their standard error supports; and a verdict a student can read aloud. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "layout.h"
#include "sdpa_var/run.h"
#include "write_table_one.h"

/* sv_column_std_error, times c^power. */
double cli_table_std_error(const cli_table_entry *e, sv_column_id id, int power)
{
    const sv_row_view v = {.spec = &e->spec, .stats = &e->summary.mean, .summary = &e->summary};
    return cli_table_times(e, power) * sv_column_std_error(sv_column_of(id), &v);
}

/* One line: raw (measured, sd, theory) and scaled (measured, sd,
 * theory), each a summary column times c^power. The sd is the measured
 * column's SV_PARTNER_SD where it has one. */
typedef struct stat_row {
    const char *label;
    sv_column_id col[4]; /* raw measured, raw theory, scaled measured, scaled theory */
    int power[4];
} stat_row;

enum { LABEL_W = 21, VAL_W = 9, SD_W = 7 }; /* 21 + 2 (1 + 9 + 1 + 7 + 1 + 9) + 2 = 79 */

static void measured_cells(FILE *f, const cli_table_entry *e, sv_column_id id, int power)
{
    char v[48], s[48];
    const double x = cli_table_col(e, id, power);
    const sv_column *sd = cli_table_partner(sv_column_of(id), SV_PARTNER_SD);
    const double spread = cli_table_value(e, sd, power);
    cli_table_rounded(v, sizeof v, x, cli_table_std_error(e, id, power), VAL_W);
    cli_table_rounded(s, sizeof s, spread, spread, SD_W);
    fprintf(f, " %*s %*s", VAL_W, v, SD_W, s);
}

static void print_rows(FILE *f, const cli_table_entry *e, const stat_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%-*s", LABEL_W, rows[i].label);
        measured_cells(f, e, rows[i].col[0], rows[i].power[0]);
        cli_table_cell(f, VAL_W, cli_table_col(e, rows[i].col[1], rows[i].power[1]));
        fputs("  ", f);
        measured_cells(f, e, rows[i].col[2], rows[i].power[2]);
        cli_table_cell(f, VAL_W, cli_table_col(e, rows[i].col[3], rows[i].power[3]));
        fputc('\n', f);
    }
}

#define ROWS_(f, e, r) print_rows(f, e, r, sizeof(r) / sizeof((r)[0]))

/* Whether column @p id must be defined for @p e. */
static int shown(const cli_table_entry *e, sv_column_id id)
{
    return sv_column_required(sv_column_of(id), &e->spec, 0);
}

/* What --plant, --d-model, --qk-norm, --values (and --grad, once its
 * columns are in the table) show, when they are on. */
static void option_rows(FILE *f, const cli_table_entry *e)
{
    if (shown(e, COL(raw_diag_logit))) {
        static const stat_row r[] = {
            {"diagonal logit S_ii",
             {COL(raw_diag_logit), COL(raw_diag_logit_theory), COL(scaled_diag_logit),
              COL(scaled_diag_logit_theory)},
             {0, 0, 0, 0}},
            {"diagonal weight",
             {COL(raw_diag_weight), NO_COL, COL(scaled_diag_weight), NO_COL},
             {0, 0, 0, 0}},
        };
        ROWS_(f, e, r);
    }
    if (shown(e, COL(q_var))) {
        static const stat_row r[] = {
            {"Var of an entry of Q", {COL(q_var), COL(q_var_theory), NO_COL, NO_COL}, {0, 0, 0, 0}},
            {"Var of an entry of K", {COL(k_var), COL(k_var_theory), NO_COL, NO_COL}, {0, 0, 0, 0}},
        };
        ROWS_(f, e, r);
    }
    if (shown(e, COL(raw_out_var))) {
        static const stat_row r[] = {
            {"output var. Var(O)",
             {COL(raw_out_var), COL(raw_out_var_theory), COL(scaled_out_var),
              COL(scaled_out_var_theory)},
             {0, 0, 0, 0}},
        };
        ROWS_(f, e, r);
    }
    if (shown(e, COL(raw_grad_logits))) { /* --grad */
        static const stat_row r[] = {
            {"RMS |dL/dlogits|",
             {COL(raw_grad_logits), COL(raw_grad_logits_theory), COL(scaled_grad_logits),
              COL(scaled_grad_logits_theory)},
             {0, 0, 0, 0}},
            {"  keys it reaches",
             {COL(raw_grad_keys), NO_COL, COL(scaled_grad_keys), NO_COL},
             {0, 0, 0, 0}},
            {"RMS |dL/dq|", {COL(raw_grad_q), NO_COL, COL(scaled_grad_q), NO_COL}, {0, 0, 0, 0}},
            {"RMS |dL/dk|", {COL(raw_grad_k), NO_COL, COL(scaled_grad_k), NO_COL}, {0, 0, 0, 0}},
        };
        ROWS_(f, e, r);
    }
}

/* The rows of the one-configuration table, by summary column. */
static const stat_row head[] = {
    {"score mean",
     {COL(raw_mean), COL(raw_mean_theory), COL(scaled_mean), COL(raw_mean_theory)},
     {0, 0, 0, 1}},
    {"score variance",
     {COL(raw_var), COL(raw_var_expected), COL(scaled_var), COL(scaled_var_expected)},
     {0, 0, 0, 0}},
    {"  population variance",
     {NO_COL, COL(raw_var_theory), NO_COL, COL(scaled_var_theory)},
     {0, 0, 0, 0}},
    {"  sd across trials",
     {COL(raw_var_sd), COL(raw_var_sd_theory), COL(scaled_var_sd), COL(scaled_var_sd_theory)},
     {0, 0, 0, 0}},
};
static const stat_row spread[] = {
    {"  5% quantile", {COL(raw_var_q05), NO_COL, COL(scaled_var_q05), NO_COL}, {0, 0, 0, 0}},
    {"  median", {COL(raw_var_q50), NO_COL, COL(scaled_var_q50), NO_COL}, {0, 0, 0, 0}},
    {"  95% quantile", {COL(raw_var_q95), NO_COL, COL(scaled_var_q95), NO_COL}, {0, 0, 0, 0}},
};
static const stat_row rest[] = {
    {"  known-mean variance",
     {COL(raw_var_known_mean), COL(raw_var_theory), COL(raw_var_known_mean),
      COL(scaled_var_theory)},
     {0, 0, 2, 0}},
    {"  with ddof 0",
     {COL(raw_var_ddof0), COL(raw_var_ddof0_theory), COL(raw_var_ddof0), COL(raw_var_ddof0_theory)},
     {0, 0, 2, 2}},
    {"  with ddof 1",
     {COL(raw_var_ddof1), COL(raw_var_ddof1_theory), COL(raw_var_ddof1), COL(raw_var_ddof1_theory)},
     {0, 0, 2, 2}},
    {"entropy H (nats)",
     {COL(raw_entropy), COL(raw_entropy_approx), COL(scaled_entropy), COL(scaled_entropy_approx)},
     {0, 0, 0, 0}},
    {"  uniform rows: bound",
     {NO_COL, COL(summary_entropy_bound), NO_COL, COL(summary_entropy_bound)},
     {0, 0, 0, 0}},
    {"  effective keys e^H",
     {COL(raw_eff_keys), NO_COL, COL(scaled_eff_keys), NO_COL},
     {0, 0, 0, 0}},
    {"max softmax weight",
     {COL(raw_max_weight), NO_COL, COL(scaled_max_weight), NO_COL},
     {0, 0, 0, 0}},
    {"Jacobian trace", {COL(raw_jac_trace), NO_COL, COL(scaled_jac_trace), NO_COL}, {0, 0, 0, 0}},
    {"Jacobian Frobenius", {COL(raw_jac_frob), NO_COL, COL(scaled_jac_frob), NO_COL}, {0, 0, 0, 0}},
};
static const stat_row extremes[] = {
    {"  lowest row entropy",
     {COL(raw_entropy_min), NO_COL, COL(scaled_entropy_min), NO_COL},
     {0, 0, 0, 0}},
    {"  highest row entropy",
     {COL(raw_entropy_max), NO_COL, COL(scaled_entropy_max), NO_COL},
     {0, 0, 0, 0}},
    {"  max |logit|",
     {COL(raw_max_abs_logit), NO_COL, COL(scaled_max_abs_logit), NO_COL},
     {0, 0, 0, 0}},
    {"  float16 headroom",
     {COL(raw_fp16_headroom), NO_COL, COL(scaled_fp16_headroom), NO_COL},
     {0, 0, 0, 0}},
};

/* What the table's numbers mean. */
static void footer(FILE *f, const cli_table_entry *e)
{
    const sv_spec *c = &e->spec;
    const sv_summary *s = &e->summary;
    /* N = n_q n_k only without a mask: a window's rows see fewer keys. */
    const int plain = c->q_mean == 0.0 && c->k_mean == 0.0 && !c->causal && c->window == 0 &&
                      c->d_model == 0 && c->plant == 0.0 && !c->qk_norm;
    if (plain)
        fprintf(f,
                "\nVariance theory: E[s^2] = d_k (N-1)/(N-ddof) for N = n_q n_k = %" PRIu64
                " scores.\n",
                (uint64_t)c->n_q * c->n_k);
    else
        fprintf(f, "\nVariance theory for these options: docs/theory.md, section 8.\n");
    if (c->scale_logn)
        fprintf(f, "The scaled scores' theory with --scale logn per row: section 15.1.\n");
    fprintf(f, "Entropy: 0 (one-hot) to the bound (uniform rows); its theory column is\n"
               "ln(keys) - sigma^2/2, an approximation shown only where it holds\n"
               "(a softmax far from one-hot). Float16 headroom: 65504 / max |logit|.\n"
               "sd: across trials (ddof 1). Measured values are rounded at the second\n"
               "digit of their standard error, sd / sqrt(trials) (with one trial, the\n"
               "theory's sd where there is one; else 4 digits).\n");
    if (s->raw_theory.var_sd_heavy_tail)
        fprintf(f, "Student t with nu <= 8: the sd theory is exact, but the entries lack an\n"
                   "8th moment, so the measured sd has no standard error and converges slowly.\n");
    if (!isnan(s->observed))
        fprintf(f, "Trials with raw sample variance <= %g: %.6g (of %llu)\n", s->observed,
                s->raw_var_cdf_observed, (unsigned long long)c->trials);
}

/* Sentences into lines of at most 76 characters, word by word. */
static void say(cli_wrap *p, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (char *w = strtok(buf, " "); w; w = strtok(NULL, " "))
        cli_wrap_put(p, w);
}

/* "64.37 +- 0.49" for column @p id (times c^power). */
static void with_se(const cli_table_entry *e, sv_column_id id, int power, char *buf, size_t len)
{
    const double se = cli_table_std_error(e, id, power);
    char v[48], s[48];
    if (len < 2 * sizeof v)
        return;
    cli_table_rounded(v, sizeof v, cli_table_col(e, id, power), se, 12);
    cli_table_rounded(s, sizeof s, se, se, 12);
    if (isnan(se))
        snprintf(buf, len, "%s", v);
    else
        snprintf(buf, len, "%s +- %s", v, s);
}

/* The theory of a variance as words: "d_k = 64 in theory" (@p name,
 * @p ref when t is within 1e-3 of it), "63.9 in theory", or "no closed
 * form here". */
static void theory_words(double t, const char *name, double ref, char *buf, size_t len)
{
    if (isnan(t))
        snprintf(buf, len, "no closed form here");
    else if (fabs(t - ref) <= 1e-3 * ref)
        snprintf(buf, len, "%s%g in theory", name, ref);
    else
        snprintf(buf, len, "%.4g in theory", t);
}

/* Effective keys as words: to their standard error, or with one trial
 * whole keys (one decimal below 10). */
static void keys_words(const cli_table_entry *e, sv_column_id id, char *buf, size_t len)
{
    const double k = cli_table_col(e, id, 0);
    if (e->spec.trials > 1)
        cli_table_rounded(buf, len, k, cli_table_std_error(e, id, 0), 12);
    else
        snprintf(buf, len, k < 10.0 ? "%.1f" : "%.0f", k);
}

/* The verdict: the variances against theory, the keys the softmax
 * spreads over (and, with --grad, the keys the gradient reaches). */
static void verdict(FILE *f, const cli_table_entry *e)
{
    const sv_spec *c = &e->spec;
    char raw[128], scaled[128], traw[128], tscaled[128], kr[64], ks[64];
    with_se(e, COL(raw_var), 0, raw, sizeof raw);
    with_se(e, COL(scaled_var), 0, scaled, sizeof scaled);
    theory_words(cli_table_col(e, COL(raw_var_expected), 0), "d_k = ", (double)c->d_k, traw,
                 sizeof traw);
    theory_words(cli_table_col(e, COL(scaled_var_expected), 0), "", 1.0, tscaled, sizeof tscaled);
    keys_words(e, COL(raw_eff_keys), kr, sizeof kr);
    keys_words(e, COL(scaled_eff_keys), ks, sizeof ks);
    cli_wrap p = {f, 76, 0, 0};
    fputc('\n', f);
    say(&p, "In short: the raw scores QK^T have variance %s (%s);", raw, traw);
    say(&p, "scaled by %.6g%s they have %s (%s).", e->summary.scale,
        c->scale_logn ? " ln(keys seen)" : "", scaled, tscaled);
    say(&p, "The raw softmax spreads its weight over e^H = %s of %s%zu keys,", kr,
        c->causal ? "up to " : "", c->n_k);
    say(&p, "the scaled one over %s.", ks);
    if (shown(e, COL(raw_grad_keys))) { /* --grad: where the learning signal goes */
        char gr[64], gs[64];
        keys_words(e, COL(raw_grad_keys), gr, sizeof gr);
        keys_words(e, COL(scaled_grad_keys), gs, sizeof gs);
        say(&p, "The gradient of the logits reaches %s keys raw, %s scaled (--grad).", gr, gs);
    }
    say(&p, "(+- one standard error.)");
    fputc('\n', f);
}

void cli_table_one(FILE *f, const cli_table_entry *e)
{
    const sv_spec *c = &e->spec;
    const int many = c->trials > 1;
    cli_table_title(f, e, 1);
    char scaled_head[64];
    snprintf(scaled_head, sizeof scaled_head, "scaled QK^T * %.6g%s", e->summary.scale,
             c->scale_logn ? " ln n_i" : "");
    const int side = VAL_W + 1 + SD_W + 1 + VAL_W;
    fprintf(f, "\n%-*s %*s  %*s\n", LABEL_W, "", side, "raw QK^T", side, scaled_head);
    fprintf(f, "%-*s %*s %*s %*s  %*s %*s %*s\n", LABEL_W, many ? "mean over trials" : "statistic",
            VAL_W, "measured", SD_W, "sd", VAL_W, "theory", VAL_W, "measured", SD_W, "sd", VAL_W,
            "theory");
    ROWS_(f, e, head); /* sd '-' for one trial, as nan in the CSV */
    if (many)          /* one trial has no spread to show */
        ROWS_(f, e, spread);
    ROWS_(f, e, rest);
    option_rows(f, e);
    fprintf(f, "%s\n", many ? "extremes over all trials" : "extremes");
    ROWS_(f, e, extremes);
    footer(f, e);
    verdict(f, e);
}
