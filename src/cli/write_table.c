/* The table, for terminals: one configuration as statistics down and
 * (measured, theory) across; a sweep as one row per configuration; trials
 * as rows. It buffers the summaries (small) and writes at the end, so its
 * columns can be sized for all of them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

/* Table cell: up to 7 significant digits, fewer if that is what fits the
 * width; '-' where the value is undefined or there is no theory. */
static void cell(FILE *f, int width, double v)
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
static void title(FILE *f, const cli_options *opt, const sv_config *c, int with_dk)
{
    fprintf(f, "sdpa-var %s ", SV_VERSION_STRING);
    if (with_dk)
        fprintf(f, " d_k=%zu", c->d_k);
    fprintf(f, " n_q=%zu n_k=%zu trials=%llu seed=%llu dist=%s", c->n_q, c->n_k,
            (unsigned long long)c->trials, (unsigned long long)c->seed, sv_dist_name(c->dist));
    if (c->dist == SV_DIST_STUDENT_T)
        fprintf(f, " nu=%g", c->nu);
    fprintf(f, " ddof=%u", c->ddof);
    if (c->q_mean != 0.0 || c->q_std > 0.0 || c->k_mean != 0.0 || c->k_std > 0.0)
        fprintf(f, "\n  Q entries %g + %g x, K entries %g + %g x", c->q_mean,
                c->q_std > 0.0 ? c->q_std : 1.0, c->k_mean, c->k_std > 0.0 ? c->k_std : 1.0);
    fputc('\n', f);
    (void)opt;
}

/* One d_k: statistics down, raw and scaled (measured, theory) across. */
static void table_one(FILE *f, const cli_options *opt, const cli_table_entry *r)
{
    const sv_config *c = &r->cfg;
    const sv_summary *s = &r->summary;
    const sv_trial_stats *m = &s->mean;
    const int w = 12; /* 24 + 4 (1 + 12) + 2 = 78 columns */
    const int many = c->trials > 1;
    const double c2 = s->scale * s->scale;
    title(f, opt, c, 1);
    char scaled_head[64];
    if (c->scale == 0.0)
        snprintf(scaled_head, sizeof scaled_head, "scaled QK^T/sqrt(d_k)");
    else
        snprintf(scaled_head, sizeof scaled_head, "scaled QK^T/%.6g", s->scale);
    fprintf(f, "\n%-24s %*s  %*s\n", "", w * 2 + 1, "raw QK^T", w * 2 + 1, scaled_head);
    fprintf(f, "%-24s %*s %*s  %*s %*s\n", many ? "mean over trials of" : "statistic", w,
            "measured", w, "theory", w, "measured", w, "theory");
    struct {
        const char *name;
        double v[4];
        int quantile;
    } rows[] = {
        {"score mean", {m->raw_mean, s->raw_theory.mean, m->scaled_mean, s->scaled_theory.mean}, 0},
        {"score variance",
         {m->raw_var, s->raw_theory.var_expected, m->scaled_var, s->scaled_theory.var_expected},
         0},
        {"  population variance", {NAN, s->raw_theory.var, NAN, s->scaled_theory.var}, 0},
        {"  sd across trials",
         {s->raw.sd, s->raw_theory.var_sd, s->scaled.sd, s->scaled_theory.var_sd},
         0},
        {"  5% quantile", {s->raw.q05, NAN, s->scaled.q05, NAN}, 1},
        {"  median", {s->raw.q50, NAN, s->scaled.q50, NAN}, 1},
        {"  95% quantile", {s->raw.q95, NAN, s->scaled.q95, NAN}, 1},
        {"  known-mean variance",
         {m->raw_var_known_mean, s->raw_theory.var, m->raw_var_known_mean / c2,
          s->scaled_theory.var},
         0},
        {"  with ddof 0",
         {m->raw_var_ddof0, s->raw_theory.var_ddof0, m->raw_var_ddof0 / c2,
          s->scaled_theory.var_ddof0},
         0},
        {"  with ddof 1",
         {m->raw_var_ddof1, s->raw_theory.var_ddof1, m->raw_var_ddof1 / c2,
          s->scaled_theory.var_ddof1},
         0},
        {"softmax entropy (nats)",
         {m->raw_entropy, s->raw_theory.entropy_approx, m->scaled_entropy,
          s->scaled_theory.entropy_approx},
         0},
        {"  min over rows", {m->raw_entropy_min, NAN, m->scaled_entropy_min, NAN}, 0},
        {"  max over rows", {m->raw_entropy_max, NAN, m->scaled_entropy_max, NAN}, 0},
        {"  effective keys e^H", {m->raw_eff_keys, NAN, m->scaled_eff_keys, NAN}, 0},
        {"max softmax weight", {m->raw_max_weight, NAN, m->scaled_max_weight, NAN}, 0},
        {"Jacobian trace", {m->raw_jac_trace, NAN, m->scaled_jac_trace, NAN}, 0},
        {"Jacobian Frobenius norm", {m->raw_jac_frob, NAN, m->scaled_jac_frob, NAN}, 0},
        {"max |logit|", {m->raw_max_abs_logit, NAN, m->raw_max_abs_logit / s->scale, NAN}, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!many && rows[i].quantile)
            continue; /* one trial has no spread to show */
        fprintf(f, "%-24s", rows[i].name);
        cell(f, w, rows[i].v[0]);
        cell(f, w, rows[i].v[1]);
        fputs("  ", f);
        cell(f, w, rows[i].v[2]);
        cell(f, w, rows[i].v[3]);
        fputc('\n', f);
    }
    const int plain = c->q_mean == 0.0 && c->k_mean == 0.0 && !c->causal && c->d_model == 0 &&
                      c->plant == 0.0 && !c->qk_norm;
    if (plain)
        fprintf(f, "\nVariance theory: E[s^2] = d_k (N-1)/(N-ddof) for N = n_q n_k = %zu scores.\n",
                c->n_q * c->n_k);
    else
        fprintf(f, "\nVariance theory for these options: docs/theory.md, section 8.\n");
    fprintf(f,
            "Entropy: 0 (one-hot) to ln n_k = %.4f (uniform); its theory column is\n"
            "ln n_k - sigma^2/2, an approximation shown while the logit variance\n"
            "sigma^2 <= 1 and n_k >= 16 (a softmax far from one-hot).\n",
            log((double)c->n_k));
    if (s->raw_theory.var_sd_heavy_tail)
        fprintf(f, "Student t with nu <= 8: the sd theory is exact, but the entries lack an\n"
                   "8th moment, so the measured sd has no standard error and converges slowly.\n");
    if (!isnan(s->observed))
        fprintf(f, "Trials with raw sample variance <= %g: %.6g (of %llu)\n", s->observed,
                s->raw_var_cdf_observed, (unsigned long long)c->trials);
}

/* Several d_k: one row each. */
static void table_sweep(FILE *f, const cli_options *opt, const cli_table_entry *res, size_t n)
{
    const int w = 8; /* 6 + 8 (1 + 8) = 78 columns, 87 with --observed */
    title(f, opt, &res[0].cfg, 0);
    fprintf(f, "\n%6s %*s %*s %*s %*s\n", "", w * 2 + 1, "raw variance", w * 2 + 1, "scaled var.",
            w * 2 + 1, "entropy (nats)", w * 2 + 1, "max weight");
    fprintf(f, "%6s %*s %*s %*s %*s %*s %*s %*s %*s", "d_k", w, "measured", w, "theory", w,
            "measured", w, "theory", w, "raw", w, "scaled", w, "raw", w, "scaled");
    const int obs = !isnan(opt->observed);
    if (obs)
        fprintf(f, " %*s", w, "P(<=obs)");
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        const sv_summary *s = &res[i].summary;
        fprintf(f, "%6zu", res[i].cfg.d_k);
        cell(f, w, s->mean.raw_var);
        cell(f, w, s->raw_theory.var_expected);
        cell(f, w, s->mean.scaled_var);
        cell(f, w, s->scaled_theory.var_expected);
        cell(f, w, s->mean.raw_entropy);
        cell(f, w, s->mean.scaled_entropy);
        cell(f, w, s->mean.raw_max_weight);
        cell(f, w, s->mean.scaled_max_weight);
        if (obs)
            cell(f, w, s->raw_var_cdf_observed);
        fputc('\n', f);
    }
    fprintf(f,
            "\nTheory: E[sample variance] = d_k (N-1)/(N-ddof) for N = n_q n_k scores "
            "(raw),\ndivided by d_k (scaled). Entropy <= ln n_k = %.4f.\n",
            log((double)res[0].cfg.n_k));
    if (obs)
        fprintf(f, "P(<=obs): fraction of trials with raw sample variance <= %g.\n", opt->observed);
}

void cli_table_begin(cli_sink *s)
{
    if (s->kind == SV_OUTPUT_PER_ROW || s->kind == SV_OUTPUT_HISTOGRAM) {
        cli_csv_header(s); /* a column per statistic reads fine as CSV */
        return;
    }
    if (s->kind != SV_OUTPUT_PER_TRIAL)
        return;
    const int w = 10; /* 6 + 1 + 6 + 6 (1 + 10) = 79 columns */
    const sv_config c = cli_options_config(s->opt, 0);
    title(s->f, s->opt, &c, s->count == 1);
    fprintf(s->f, "\n%6s %6s %*s %*s %*s %*s %*s %*s\n", "trial", "d_k", w, "raw var", w,
            "scaled var", w, "raw H", w, "scaled H", w, "raw max p", w, "scaled max");
}

void cli_table_row(cli_sink *s, const sv_row_view *row)
{
    if (s->kind == SV_OUTPUT_PER_ROW || s->kind == SV_OUTPUT_HISTOGRAM) {
        cli_csv_row(s, row);
        return;
    }
    if (s->kind == SV_OUTPUT_SUMMARY) {
        cli_table_entry *e = &s->entries[s->n_entries++];
        e->cfg = *row->cfg;
        e->summary = *row->summary;
        snprintf(e->scale_name, sizeof e->scale_name, "%s",
                 row->scale_name ? row->scale_name : "sqrt");
        return;
    }
    const int w = 10;
    const sv_trial_stats *t = row->stats;
    fprintf(s->f, "%6llu %6zu", (unsigned long long)row->trial, row->cfg->d_k);
    cell(s->f, w, t->raw_var);
    cell(s->f, w, t->scaled_var);
    cell(s->f, w, t->raw_entropy);
    cell(s->f, w, t->scaled_entropy);
    cell(s->f, w, t->raw_max_weight);
    cell(s->f, w, t->scaled_max_weight);
    fputc('\n', s->f);
}

void cli_table_end(cli_sink *s)
{
    if (s->kind != SV_OUTPUT_SUMMARY || s->n_entries == 0)
        return;
    if (s->n_entries == 1)
        table_one(s->f, s->opt, &s->entries[0]);
    else
        table_sweep(s->f, s->opt, s->entries, s->n_entries);
}
