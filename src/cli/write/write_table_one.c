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

enum { LABEL_W = 21, VAL_W = 9, SD_W = 7 }; /* 21 + 2 (1 + 9 + 1 + 7 + 1 + 9) + 2 = 79 */

/* The rows of both one-configuration tables, by summary column. */
const cli_stat_row cli_stat_rows[] = {
    {.label = "score mean",
     .slide = "score mean",
     .col = {COL(raw_mean), COL(raw_mean_theory), COL(scaled_mean), COL(raw_mean_theory)},
     .power = {0, 0, 0, 1}},
    {.label = "score variance",
     .slide = "score variance",
     .col = {COL(raw_var), COL(raw_var_expected), COL(scaled_var), COL(scaled_var_expected)}},
    {.slide = "score SD (sqrt of the variance)",
     .col = {COL(raw_var), COL(raw_var_expected), COL(scaled_var), COL(scaled_var_expected)},
     .flags = CLI_STAT_SQRT},
    {.label = "  population variance",
     .col = {NO_COL, COL(raw_var_theory), NO_COL, COL(scaled_var_theory)}},
    {.label = "  sd across trials",
     .col = {COL(raw_var_sd), COL(raw_var_sd_theory), COL(scaled_var_sd),
             COL(scaled_var_sd_theory)}},
    {.label = "  5% quantile",
     .col = {COL(raw_var_q05), NO_COL, COL(scaled_var_q05), NO_COL},
     .flags = CLI_STAT_MANY},
    {.label = "  median",
     .col = {COL(raw_var_q50), NO_COL, COL(scaled_var_q50), NO_COL},
     .flags = CLI_STAT_MANY},
    {.label = "  95% quantile",
     .col = {COL(raw_var_q95), NO_COL, COL(scaled_var_q95), NO_COL},
     .flags = CLI_STAT_MANY},
    {.label = "  known-mean variance",
     .col = {COL(raw_var_known_mean), COL(raw_var_theory), COL(raw_var_known_mean),
             COL(scaled_var_theory)},
     .power = {0, 0, 2, 0}},
    {.label = "  with ddof 0",
     .col = {COL(raw_var_ddof0), COL(raw_var_ddof0_theory), COL(raw_var_ddof0),
             COL(raw_var_ddof0_theory)},
     .power = {0, 0, 2, 2}},
    {.label = "  with ddof 1",
     .col = {COL(raw_var_ddof1), COL(raw_var_ddof1_theory), COL(raw_var_ddof1),
             COL(raw_var_ddof1_theory)},
     .power = {0, 0, 2, 2}},
    {.label = "entropy H (nats)",
     .slide = "entropy H (nats)",
     .col = {COL(raw_entropy), COL(raw_entropy_approx), COL(scaled_entropy),
             COL(scaled_entropy_approx)}},
    {.label = "  uniform rows: bound",
     .slide = "  bound (uniform rows)",
     .col = {NO_COL, COL(summary_entropy_bound), NO_COL, COL(summary_entropy_bound)}},
    {.label = "  effective keys e^H",
     .slide = "effective keys e^H",
     .col = {COL(raw_eff_keys), NO_COL, COL(scaled_eff_keys), NO_COL}},
    {.label = "max softmax weight",
     .slide = "max softmax weight",
     .col = {COL(raw_max_weight), NO_COL, COL(scaled_max_weight), NO_COL}},
    {.label = "Jacobian trace",
     .slide = "Jacobian trace",
     .col = {COL(raw_jac_trace), NO_COL, COL(scaled_jac_trace), NO_COL}},
    {.label = "Jacobian Frobenius",
     .col = {COL(raw_jac_frob), NO_COL, COL(scaled_jac_frob), NO_COL}},
    /* What --plant, --d-model, --qk-norm, --values and --grad show, when
     * they are on (on slides: when measured). */
    {.label = "diagonal logit S_ii",
     .col = {COL(raw_diag_logit), COL(raw_diag_logit_theory), COL(scaled_diag_logit),
             COL(scaled_diag_logit_theory)},
     .flags = CLI_STAT_OPTION,
     .gate = COL(raw_diag_logit)},
    {.label = "diagonal weight",
     .col = {COL(raw_diag_weight), NO_COL, COL(scaled_diag_weight), NO_COL},
     .flags = CLI_STAT_OPTION,
     .gate = COL(raw_diag_logit)},
    {.label = "Var of an entry of Q",
     .slide = "Var of an entry of Q",
     .col = {COL(q_var), COL(q_var_theory), NO_COL, NO_COL},
     .flags = CLI_STAT_OPTION,
     .gate = COL(q_var)},
    {.label = "Var of an entry of K",
     .slide = "Var of an entry of K",
     .col = {COL(k_var), COL(k_var_theory), NO_COL, NO_COL},
     .flags = CLI_STAT_OPTION,
     .gate = COL(q_var)},
    {.label = "output var. Var(O)",
     .slide = "output variance",
     .col = {COL(raw_out_var), COL(raw_out_var_theory), COL(scaled_out_var),
             COL(scaled_out_var_theory)},
     .flags = CLI_STAT_OPTION,
     .gate = COL(raw_out_var)},
    {.label = "RMS |dL/dlogits|",
     .slide = "RMS dL/dlogits",
     .col = {COL(raw_grad_logits), COL(raw_grad_logits_theory), COL(scaled_grad_logits),
             COL(scaled_grad_logits_theory)},
     .flags = CLI_STAT_OPTION,
     .gate = COL(raw_grad_logits)},
    {.label = "  keys it reaches",
     .slide = "keys the gradient reaches",
     .col = {COL(raw_grad_keys), NO_COL, COL(scaled_grad_keys), NO_COL},
     .flags = CLI_STAT_OPTION,
     .gate = COL(raw_grad_logits)},
    {.label = "RMS |dL/dq|",
     .col = {COL(raw_grad_q), NO_COL, COL(scaled_grad_q), NO_COL},
     .flags = CLI_STAT_OPTION,
     .gate = COL(raw_grad_logits)},
    {.label = "RMS |dL/dk|",
     .col = {COL(raw_grad_k), NO_COL, COL(scaled_grad_k), NO_COL},
     .flags = CLI_STAT_OPTION,
     .gate = COL(raw_grad_logits)},
    {.label = "  lowest row entropy",
     .col = {COL(raw_entropy_min), NO_COL, COL(scaled_entropy_min), NO_COL},
     .flags = CLI_STAT_EXTREMES},
    {.label = "  highest row entropy",
     .col = {COL(raw_entropy_max), NO_COL, COL(scaled_entropy_max), NO_COL}},
    {.label = "  max |logit|",
     .col = {COL(raw_max_abs_logit), NO_COL, COL(scaled_max_abs_logit), NO_COL}},
    {.label = "  float16 headroom",
     .col = {COL(raw_fp16_headroom), NO_COL, COL(scaled_fp16_headroom), NO_COL}},
    {.slide = "trials with raw var <= V (observed)",
     .col = {COL(raw_var_cdf_observed), NO_COL, NO_COL, NO_COL}},
};
const size_t cli_stat_rows_n = sizeof cli_stat_rows / sizeof cli_stat_rows[0];

cli_stat_side cli_stat_values(const cli_table_entry *e, const cli_stat_row *r, int k, int sd_theory)
{
    const size_t i = 2 * (size_t)k; /* measured, then its theory */
    const sv_column_id id = r->col[i], tid = r->col[i + 1];
    const int p = r->power[i];
    const sv_column *sd = sv_column_partner(SV_OUTPUT_SUMMARY, sv_column_of(id), SV_PARTNER_SD);
    if (sd_theory && e->spec.trials < 2)
        sd = sv_column_partner(SV_OUTPUT_SUMMARY, sd, SV_PARTNER_THEORY);
    cli_stat_side x = {cli_table_col(e, id, p), cli_table_std_error(e, id, p),
                       cli_table_value(e, sd, p), cli_table_col(e, tid, r->power[i + 1])};
    if (r->flags & CLI_STAT_SQRT) {
        x.se /= 2.0 * sqrt(x.v);
        x.sd /= 2.0 * sqrt(x.v);
        x.v = sqrt(x.v);
        x.t = sqrt(x.t);
    }
    return x;
}

/* Side @p k of row @p r: measured and sd, each at its standard error, and
 * the theory to 7 digits. */
static void side(FILE *f, const cli_table_entry *e, const cli_stat_row *r, int k)
{
    char v[48], s[48];
    const cli_stat_side x = cli_stat_values(e, r, k, 0);
    sv_value_rounded(v, sizeof v, x.v, x.se, VAL_W);
    sv_value_rounded(s, sizeof s, x.sd, x.sd, SD_W);
    fprintf(f, " %*s %*s", VAL_W, v, SD_W, s);
    cli_table_cell(f, VAL_W, x.t);
}

/* Whether column @p id must be defined for @p e. */
static int shown(const cli_table_entry *e, sv_column_id id)
{
    return sv_column_required(sv_column_of(id), &e->spec, 0);
}

/* The terminal's rows of cli_stat_rows: a spread only with trials to
 * spread, an option's rows only with it on, the extremes under their
 * heading. */
static void print_rows(FILE *f, const cli_table_entry *e)
{
    const int many = e->spec.trials > 1;
    for (size_t i = 0; i < cli_stat_rows_n; i++) {
        const cli_stat_row *r = &cli_stat_rows[i];
        if (!r->label || (r->flags & CLI_STAT_MANY && !many) ||
            (r->flags & CLI_STAT_OPTION && !shown(e, r->gate)))
            continue;
        if (r->flags & CLI_STAT_EXTREMES)
            fprintf(f, "%s\n", many ? "extremes over all trials" : "extremes");
        fprintf(f, "%-*s", LABEL_W, r->label);
        side(f, e, r, 0);
        fputs("  ", f);
        side(f, e, r, 1);
        fputc('\n', f);
    }
}

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
    sv_value_rounded(v, sizeof v, cli_table_col(e, id, power), se, 12);
    sv_value_rounded(s, sizeof s, se, se, 12);
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
        sv_value_rounded(buf, len, k, cli_table_std_error(e, id, 0), 12);
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
    cli_table_title(f, e, 1, 78);
    char scaled_head[64];
    snprintf(scaled_head, sizeof scaled_head, "scaled QK^T * %.6g%s", e->summary.scale,
             c->scale_logn ? " ln n_i" : "");
    const int side = VAL_W + 1 + SD_W + 1 + VAL_W;
    fprintf(f, "\n%-*s %*s  %*s\n", LABEL_W, "", side, "raw QK^T", side, scaled_head);
    fprintf(f, "%-*s %*s %*s %*s  %*s %*s %*s\n", LABEL_W, many ? "mean over trials" : "statistic",
            VAL_W, "measured", SD_W, "sd", VAL_W, "theory", VAL_W, "measured", SD_W, "sd", VAL_W,
            "theory");
    print_rows(f, e); /* sd '-' for one trial, as nan in the CSV */
    footer(f, e);
    verdict(f, e);
}
