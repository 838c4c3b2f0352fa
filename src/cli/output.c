#include "output.h"

#include <math.h>
#include <string.h>

/* CSV numbers: %.17g round-trips every double; nan and inf spelled the way
 * numpy, pandas and gnuplot read them (printf may write "-nan"). */
static void csv_num(FILE *f, double v)
{
    if (isnan(v))
        fputs("nan", f);
    else if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", f);
    else
        fprintf(f, "%.17g", v);
}

static void csv_nums(FILE *f, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputc(',', f);
        csv_num(f, v[i]);
    }
}

static void write_csv_per_trial(FILE *f, const cli_result *res, size_t n)
{
    fputs("trial,dk,n_q,n_k,raw_mean,raw_var,scaled_mean,scaled_var,raw_entropy,"
          "scaled_entropy,raw_max_weight,scaled_max_weight,raw_jac_trace,scaled_jac_trace,"
          "raw_var_known_mean,raw_var_ddof0,raw_var_ddof1,raw_jac_frob,scaled_jac_frob,"
          "raw_eff_keys,scaled_eff_keys,raw_entropy_min,raw_entropy_max,scaled_entropy_min,"
          "scaled_entropy_max,raw_max_abs_logit,raw_diag_logit,raw_diag_weight,"
          "scaled_diag_weight,q_var,k_var,raw_out_var,scaled_out_var,raw_sum_p2,"
          "scaled_sum_p2\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const sv_config *c = &res[i].cfg;
        for (uint64_t t = 0; t < c->trials; t++) {
            const sv_trial_stats *s = &res[i].per_trial[t];
            const double v[] = {s->raw_mean,
                                s->raw_var,
                                s->scaled_mean,
                                s->scaled_var,
                                s->raw_entropy,
                                s->scaled_entropy,
                                s->raw_max_weight,
                                s->scaled_max_weight,
                                s->raw_jac_trace,
                                s->scaled_jac_trace,
                                s->raw_var_known_mean,
                                s->raw_var_ddof0,
                                s->raw_var_ddof1,
                                s->raw_jac_frob,
                                s->scaled_jac_frob,
                                s->raw_eff_keys,
                                s->scaled_eff_keys,
                                s->raw_entropy_min,
                                s->raw_entropy_max,
                                s->scaled_entropy_min,
                                s->scaled_entropy_max,
                                s->raw_max_abs_logit,
                                s->raw_diag_logit,
                                s->raw_diag_weight,
                                s->scaled_diag_weight,
                                s->q_var,
                                s->k_var,
                                s->raw_out_var,
                                s->scaled_out_var,
                                s->raw_sum_p2,
                                s->scaled_sum_p2};
            fprintf(f, "%llu,%zu,%zu,%zu", (unsigned long long)t, c->d_k, c->n_q, c->n_k);
            csv_nums(f, v, sizeof v / sizeof v[0]);
            fputc('\n', f);
        }
    }
}

void cli_histogram_range(const sv_config *cfg, double *lo, double *hi)
{
    sv_theory t;
    double sd = sqrt((double)cfg->d_k);
    if (sv_theory_config(cfg, &t) == SV_OK && t.var > 0.0 && isfinite(t.var))
        sd = sqrt(t.var);
    *lo = -6.0 * sd;
    *hi = 6.0 * sd;
}

/* --histogram: one line per bin, raw and scaled counts. */
static void write_csv_histogram(FILE *f, const cli_options *opt, const cli_result *r)
{
    const size_t b = opt->histogram;
    double lo = 0.0, hi = 1.0;
    if (!opt->weight_histogram)
        cli_histogram_range(&r->cfg, &lo, &hi);
    fputs("bin_lo,bin_hi,raw_count,scaled_count\n", f);
    for (size_t i = 0; i < b; i++) {
        csv_num(f, lo + (hi - lo) * (double)i / (double)b);
        fputc(',', f);
        csv_num(f, lo + (hi - lo) * (double)(i + 1) / (double)b);
        fprintf(f, ",%llu,%llu\n", (unsigned long long)r->hist[i],
                (unsigned long long)r->hist[b + 1 + i]);
    }
}

/* --per-row: one line per query position, means over trials. */
static void write_csv_per_row(FILE *f, const cli_result *res, size_t n)
{
    fputs("dk,scale,row,keys_seen,raw_entropy,scaled_entropy,entropy_bound,raw_max_weight,"
          "scaled_max_weight\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const sv_config *c = &res[i].cfg;
        for (size_t r = 0; r < c->n_q; r++) {
            const double *s = res[i].row_sums + r * SV_ROW_FIELDS, t = (double)c->trials;
            const size_t seen = c->causal ? r + 1 : c->n_k;
            fprintf(f, "%zu,%s,%zu,%zu", c->d_k, res[i].scale_name, r, seen);
            const double v[] = {s[0] / t, s[1] / t, log((double)seen), s[2] / t, s[3] / t};
            csv_nums(f, v, sizeof v / sizeof v[0]);
            fputc('\n', f);
        }
    }
}

void cli_write_csv(FILE *f, const cli_options *opt, const cli_result *res, size_t n)
{
    if (opt->histogram) {
        write_csv_histogram(f, opt, &res[0]);
        return;
    }
    if (opt->per_row) {
        write_csv_per_row(f, res, n);
        return;
    }
    if (opt->per_trial) {
        write_csv_per_trial(f, res, n);
        return;
    }
    const int obs = !isnan(opt->observed);
    fputs("dk,n_q,n_k,trials,seed,dist,ddof,raw_mean,raw_var,raw_var_theory,raw_var_expected,"
          "raw_var_sd,raw_var_sd_theory,raw_var_q05,raw_var_q50,raw_var_q95,scaled_mean,"
          "scaled_var,scaled_var_theory,scaled_var_expected,scaled_var_sd,scaled_var_sd_theory,"
          "scaled_var_q05,scaled_var_q50,scaled_var_q95,raw_entropy,scaled_entropy,"
          "raw_max_weight,scaled_max_weight,raw_jac_trace,scaled_jac_trace,"
          /* Beyond the first issue's columns: the experiments of the notes. */
          "scale,scale_divisor,nu,q_mean,q_std,k_mean,k_std,raw_mean_theory,"
          "raw_var_known_mean,raw_var_ddof0,raw_var_ddof1,raw_jac_frob,scaled_jac_frob,"
          "raw_eff_keys,scaled_eff_keys,raw_entropy_min,raw_entropy_max,scaled_entropy_min,"
          "scaled_entropy_max,raw_entropy_approx,scaled_entropy_approx,raw_max_abs_logit,"
          "scaled_max_abs_logit,raw_fp16_headroom,scaled_fp16_headroom,qk_norm_radius,plant,"
          "raw_diag_logit,raw_diag_logit_theory,scaled_diag_logit,"
          "scaled_diag_logit_theory,raw_diag_weight,scaled_diag_weight,d_model,init,cross,"
          "q_var,q_var_theory,k_var,k_var_theory,d_v,raw_out_var,raw_out_var_theory,"
          "scaled_out_var,scaled_out_var_theory",
          f);
    fputs(obs ? ",observed,raw_var_cdf_observed\n" : "\n", f);
    for (size_t i = 0; i < n; i++) {
        const sv_config *c = &res[i].cfg;
        const sv_summary *s = &res[i].summary;
        const sv_trial_stats *m = &s->mean;
        const double v[] = {m->raw_mean,
                            m->raw_var,
                            s->raw_theory.var,
                            s->raw_theory.var_expected,
                            s->raw.sd,
                            s->raw_theory.var_sd,
                            s->raw.q05,
                            s->raw.q50,
                            s->raw.q95,
                            m->scaled_mean,
                            m->scaled_var,
                            s->scaled_theory.var,
                            s->scaled_theory.var_expected,
                            s->scaled.sd,
                            s->scaled_theory.var_sd,
                            s->scaled.q05,
                            s->scaled.q50,
                            s->scaled.q95,
                            m->raw_entropy,
                            m->scaled_entropy,
                            m->raw_max_weight,
                            m->scaled_max_weight,
                            m->raw_jac_trace,
                            m->scaled_jac_trace};
        fprintf(f, "%zu,%zu,%zu,%llu,%llu,%s,%u", c->d_k, c->n_q, c->n_k,
                (unsigned long long)c->trials, (unsigned long long)c->seed, sv_dist_name(c->dist),
                c->ddof);
        csv_nums(f, v, sizeof v / sizeof v[0]);
        fprintf(f, ",%s", res[i].scale_name);
        const double fp16_max = 65504.0; /* largest finite IEEE binary16 */
        const double maxabs = m->raw_max_abs_logit;
        const double w[] = {s->scale,
                            c->dist == SV_DIST_STUDENT_T ? c->nu : NAN,
                            c->q_mean,
                            c->q_std > 0.0 ? c->q_std : 1.0,
                            c->k_mean,
                            c->k_std > 0.0 ? c->k_std : 1.0,
                            s->raw_theory.mean,
                            m->raw_var_known_mean,
                            m->raw_var_ddof0,
                            m->raw_var_ddof1,
                            m->raw_jac_frob,
                            m->scaled_jac_frob,
                            m->raw_eff_keys,
                            m->scaled_eff_keys,
                            m->raw_entropy_min,
                            m->raw_entropy_max,
                            m->scaled_entropy_min,
                            m->scaled_entropy_max,
                            s->raw_theory.entropy_approx,
                            s->scaled_theory.entropy_approx,
                            maxabs,
                            maxabs / s->scale,
                            fp16_max / maxabs,
                            fp16_max / (maxabs / s->scale),
                            s->qk_radius,
                            c->plant,
                            m->raw_diag_logit,
                            s->raw_theory.diag_logit,
                            m->raw_diag_logit / s->scale,
                            s->scaled_theory.diag_logit,
                            m->raw_diag_weight,
                            m->scaled_diag_weight};
        csv_nums(f, w, sizeof w / sizeof w[0]);
        static const char *const inits[] = {"xavier", "lecun", "normal"};
        if (c->d_model > 0)
            fprintf(f, ",%zu,%s,%d", c->d_model, inits[c->init], c->cross);
        else
            fputs(",0,none,0", f);
        /* Var(O) given the weights is sum p^2 (V has variance 1): its
         * theory column is the measured mean of sum p^2 = 1 - Jacobian trace. */
        const double e[] = {m->q_var,
                            s->raw_theory.q_var,
                            m->k_var,
                            s->raw_theory.k_var,
                            c->values ? (double)(c->d_v ? c->d_v : c->d_k) : NAN,
                            m->raw_out_var,
                            c->values ? m->raw_sum_p2 : NAN,
                            m->scaled_out_var,
                            c->values ? m->scaled_sum_p2 : NAN};
        csv_nums(f, e, sizeof e / sizeof e[0]);
        if (obs)
            csv_nums(f, (const double[]){s->observed, s->raw_var_cdf_observed}, 2);
        fputc('\n', f);
    }
}

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

/* The entropy approximation ln n_k - sigma^2/2 where it means something:
 * many keys (n_k >= 16) and logits of variance sigma^2 <= 1 (within ~5 %
 * there; docs/experiments.md shows where it breaks); '-' otherwise. */
static double approx_or_nan(const sv_theory *t, const sv_config *c)
{
    const double sigma2 = 2.0 * (log((double)c->n_k) - t->entropy_approx);
    return c->n_k >= 16 && sigma2 <= 1.0 + 1e-9 ? t->entropy_approx : NAN;
}

/* One d_k: statistics down, raw and scaled (measured, theory) across. */
static void table_one(FILE *f, const cli_options *opt, const cli_result *r)
{
    const sv_config *c = &r->cfg;
    const sv_summary *s = &r->summary;
    const sv_trial_stats *m = &s->mean;
    const int w = 12; /* 24 + 4 (1 + 12) + 2 = 78 columns */
    const int many = c->trials > 1;
    const double c2 = s->scale * s->scale;
    /* E[s^2] for ddof 0 and 1 from the configured ddof's. */
    const double nn = (double)c->n_q * (double)c->n_k;
    const double e0 = s->raw_theory.var_expected * (nn - c->ddof) / nn;
    const double e1 = nn > 1.0 ? s->raw_theory.var_expected * (nn - c->ddof) / (nn - 1.0) : NAN;
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
        {"  with ddof 0", {m->raw_var_ddof0, e0, m->raw_var_ddof0 / c2, e0 / c2}, 0},
        {"  with ddof 1", {m->raw_var_ddof1, e1, m->raw_var_ddof1 / c2, e1 / c2}, 0},
        {"softmax entropy (nats)",
         {m->raw_entropy, approx_or_nan(&s->raw_theory, c), m->scaled_entropy,
          approx_or_nan(&s->scaled_theory, c)},
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
    if (!isnan(s->observed))
        fprintf(f, "Trials with raw sample variance <= %g: %.6g (of %llu)\n", s->observed,
                s->raw_var_cdf_observed, (unsigned long long)c->trials);
}

/* Several d_k: one row each. */
static void table_sweep(FILE *f, const cli_options *opt, const cli_result *res, size_t n)
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

static void table_per_trial(FILE *f, const cli_options *opt, const cli_result *res, size_t n)
{
    const int w = 10; /* 6 + 1 + 6 + 6 (1 + 10) = 79 columns */
    title(f, opt, &res[0].cfg, n == 1);
    fprintf(f, "\n%6s %6s %*s %*s %*s %*s %*s %*s\n", "trial", "d_k", w, "raw var", w, "scaled var",
            w, "raw H", w, "scaled H", w, "raw max p", w, "scaled max");
    for (size_t i = 0; i < n; i++) {
        for (uint64_t t = 0; t < res[i].cfg.trials; t++) {
            const sv_trial_stats *s = &res[i].per_trial[t];
            fprintf(f, "%6llu %6zu", (unsigned long long)t, res[i].cfg.d_k);
            cell(f, w, s->raw_var);
            cell(f, w, s->scaled_var);
            cell(f, w, s->raw_entropy);
            cell(f, w, s->scaled_entropy);
            cell(f, w, s->raw_max_weight);
            cell(f, w, s->scaled_max_weight);
            fputc('\n', f);
        }
    }
}

void cli_write_table(FILE *f, const cli_options *opt, const cli_result *res, size_t n)
{
    if (opt->histogram) /* columns of counts read fine as CSV */
        write_csv_histogram(f, opt, &res[0]);
    else if (opt->per_row) /* a column per statistic reads fine as CSV */
        write_csv_per_row(f, res, n);
    else if (opt->per_trial)
        table_per_trial(f, opt, res, n);
    else if (n == 1)
        table_one(f, opt, &res[0]);
    else
        table_sweep(f, opt, res, n);
}
