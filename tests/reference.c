/* The scalar reference of reference.h: straight loops over the whole score
 * matrix, sums in long double. Shares nothing with the engine but the
 * public RNG and samplers (the streams define the experiment). */
#include "reference.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef long double ldbl;

/* Row `row` of matrix m of the trial: n values of dist. */
static void draw(const sv_spec *s, uint64_t trial, sv_matrix m, size_t row, sv_dist dist, double *x,
                 size_t n)
{
    sv_rng r;
    sv_rng_seed_row(&r, s->seed, trial, m, row);
    sv_sample_fill(&r, dist, s->nu, x, n);
}

/* Q = X W_Q and K = X W_K (X' W_K with cross), W per trial. */
static void draw_projected(const sv_spec *s, uint64_t trial, double *q, double *k)
{
    const size_t d = s->d_k, dm = s->d_model, nq = s->n_q;
    double *w = malloc(2 * dm * d * sizeof *w), *x = malloc(dm * sizeof *x);
    const double sd = sqrt(sv_init_variance(s->init, dm, d));
    for (size_t r = 0; r < dm; r++) {
        draw(s, trial, SV_MATRIX_WQ, r, SV_DIST_NORMAL, w + r * d, d);
        draw(s, trial, SV_MATRIX_WK, r, SV_DIST_NORMAL, w + (dm + r) * d, d);
    }
    for (size_t i = 0; i < 2 * dm * d; i++)
        w[i] *= sd;
    for (size_t i = 0; i < nq + s->n_k; i++) {
        const int is_k = i >= nq;
        const size_t row = is_k ? i - nq : i;
        draw(s, trial, is_k && s->cross ? SV_MATRIX_XK : SV_MATRIX_X, row, s->dist, x, dm);
        for (size_t l = 0; l < d; l++) {
            ldbl dot = 0.0L;
            for (size_t r = 0; r < dm; r++)
                dot += (ldbl)x[r] * w[(is_k ? dm : 0) * d + r * d + l];
            (is_k ? k : q)[row * d + l] = (double)dot;
        }
    }
    free(w);
    free(x);
}

/* Q and K of one trial as spec.h describes them: entries of dist, means
 * and stds, planted keys (from Q's rows before QK-norm), then QK-norm. */
static void draw_qk(const sv_spec *s, uint64_t trial, double *q, double *k)
{
    const size_t d = s->d_k, nq = s->n_q, nk = s->n_k;
    if (s->d_model > 0) {
        draw_projected(s, trial, q, k);
    } else {
        for (size_t i = 0; i < nq; i++)
            draw(s, trial, SV_MATRIX_Q, i, s->dist, q + i * d, d);
        for (size_t j = 0; j < nk; j++)
            draw(s, trial, SV_MATRIX_K, j, s->dist, k + j * d, d);
        for (size_t i = 0; i < nq * d; i++)
            q[i] = s->q_mean + s->q_std * q[i];
        for (size_t j = 0; j < nk * d; j++)
            k[j] = s->k_mean + s->k_std * k[j];
        const double rho = s->plant, rest = sqrt(1.0 - rho * rho);
        for (size_t j = 0; rho != 0.0 && j < nq && j < nk; j++)
            for (size_t l = 0; l < d; l++)
                k[j * d + l] = rho * q[j * d + l] + rest * k[j * d + l];
    }
    for (size_t i = 0; s->qk_norm && i < nq + nk; i++) {
        double *row = i < nq ? q + i * d : k + (i - nq) * d;
        ldbl ss = 0.0L;
        for (size_t l = 0; l < d; l++)
            ss += (ldbl)row[l] * row[l];
        for (size_t l = 0; l < d; l++)
            row[l] = ss > 0.0L ? (double)(row[l] * (s->qk_radius / sqrtl(ss))) : 0.0;
    }
}

/* Population variance of n values. */
static double variance(const double *x, size_t n)
{
    ldbl sum = 0.0L, m2 = 0.0L;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    for (size_t i = 0; i < n; i++)
        m2 += (x[i] - sum / n) * (x[i] - sum / n);
    return (double)(m2 / n);
}

/* Softmax statistics of one row of n logits times c, and its weights p. */
typedef struct row_stats {
    ldbl h, maxw, trace, frob, p2;
} row_stats;

static row_stats softmax_row(const double *s, size_t n, ldbl c, ldbl *p)
{
    size_t a = 0;
    for (size_t j = 1; j < n; j++)
        a = s[j] > s[a] ? j : a;
    ldbl r = 0.0L, wt = 0.0L;
    for (size_t j = 0; j < n; j++) {
        /* exp in double: each weight to 1 ulp, far inside 1e-12, and
         * several times faster than expl */
        p[j] = j == a ? 1.0L : exp((double)(c * ((ldbl)s[j] - s[a])));
        r += j == a ? 0.0L : p[j];
    }
    const ldbl z = 1.0L + r;
    ldbl p2o = 0.0L; /* sum of p_j^2 over j != a: no cancellation */
    for (size_t j = 0; j < n; j++) {
        p[j] /= z;
        wt += p[j] * ((ldbl)s[j] - s[a]);
        p2o += j == a ? 0.0L : p[j] * p[j];
    }
    row_stats o = {.h = log1pl(r) - c * wt, .maxw = p[a], .p2 = p[a] * p[a] + p2o};
    /* J = diag(p) - p p^T: trace sum p (1 - p), ||J||_F^2 = sum p_i^2
     * (1 - p_i)^2 + sum_i p_i^2 sum_{j != i} p_j^2; 1 - p_a = r / z. */
    ldbl f2 = 0.0L;
    for (size_t j = 0; j < n; j++) {
        const ldbl one_minus = j == a ? r / z : 1.0L - p[j];
        const ldbl others = j == a ? p2o : p2o - p[j] * p[j] + p[a] * p[a];
        o.trace += p[j] * one_minus;
        f2 += p[j] * p[j] * (one_minus * one_minus + others);
    }
    o.frob = sqrtl(f2);
    return o;
}

/* Mean of the squares of O = P V over the rows' visible keys, for one
 * row's weights p (len keys) into *sum2. */
static void add_outputs(const ldbl *p, size_t len, const double *v, size_t dv, ldbl *sum2)
{
    for (size_t l = 0; l < dv; l++) {
        ldbl o = 0.0L;
        for (size_t j = 0; j < len; j++)
            o += p[j] * v[j * dv + l];
        *sum2 += o * o;
    }
}

/* Row i's multiplier: scale, or with scale_logn scale ln(keys seen)
 * (SSMax; 0 for a row of one key, whose softmax is weight 1 whatever c). */
static ldbl row_scale(const sv_spec *s, size_t i)
{
    const size_t len = s->causal ? i + 1 : s->n_k;
    return s->scale_logn ? (ldbl)s->scale * logl((ldbl)len) : (ldbl)s->scale;
}

/* The moments of the visible scores into out. */
static void score_moments(const sv_spec *s, const double *S, sv_trial_stats *out)
{
    const size_t nq = s->n_q, nk = s->n_k;
    ldbl sum = 0.0L, n = 0.0L, m2 = 0.0L, known = 0.0L, maxabs = 0.0L, maxs = -INFINITY;
    ldbl csum = 0.0L, cm2 = 0.0L; /* of the scaled logits c_i S_ij */
    /* The known mean is the theory's E[S] (planted keys included): a
     * definition, not something this path should derive again. */
    const ldbl mu = sv_theory_mean(s);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nq; i++)
            for (size_t j = 0; j < (s->causal ? i + 1 : nk); j++) {
                const ldbl x = S[i * nk + j], cx = row_scale(s, i) * x;
                if (pass == 0) {
                    sum += x;
                    csum += cx;
                    n += 1.0L;
                    maxabs = fabsl(x) > maxabs ? fabsl(x) : maxabs;
                    maxs = x > maxs ? x : maxs;
                } else {
                    m2 += (x - sum / n) * (x - sum / n);
                    known += (x - mu) * (x - mu);
                    cm2 += (cx - csum / n) * (cx - csum / n);
                }
            }
    out->raw_mean = (double)(sum / n);
    out->raw_var = (double)(m2 / (n - s->ddof));
    out->scaled_mean = (double)(s->scale_logn ? csum / n : sum / n * s->scale);
    out->scaled_var =
        (double)(s->scale_logn ? cm2 / (n - s->ddof) : m2 / (n - s->ddof) * s->scale2);
    out->raw_var_known_mean = (double)(known / n);
    out->raw_var_ddof0 = (double)(m2 / n);
    out->raw_var_ddof1 = n > 1.0L ? (double)(m2 / (n - 1.0L)) : NAN;
    out->raw_max_abs_logit = (double)maxabs;
    out->raw_max_logit = (double)maxs;
    out->rows_empty = 0.0;
}

/* The softmax statistics of every row, raw (w = 0) and scaled (w = 1). */
static void row_statistics(const sv_spec *s, const double *S, const double *v, sv_trial_stats *out)
{
    const size_t nq = s->n_q, nk = s->n_k, nd = nq < nk ? nq : nk;
    const int related = s->plant != 0.0 || (s->d_model > 0 && !s->cross);
    ldbl *p = malloc(nk * sizeof *p);
    ldbl h[2] = {0}, mw[2] = {0}, jt[2] = {0}, jf[2] = {0}, ek[2] = {0}, p2[2] = {0};
    ldbl hmin[2] = {INFINITY, INFINITY}, hmax[2] = {-INFINITY, -INFINITY};
    ldbl o2[2] = {0}, dlogit = 0.0L, dw[2] = {0}, sink[2] = {0}, hn[2] = {0};
    size_t n_hn = 0;
    for (size_t i = 0; i < nq; i++) {
        const size_t len = s->causal ? i + 1 : nk;
        for (int w = 0; w < 2; w++) {
            const row_stats r = softmax_row(S + i * nk, len, w ? row_scale(s, i) : 1.0L, p);
            h[w] += r.h;
            mw[w] += r.maxw;
            jt[w] += r.trace;
            jf[w] += r.frob;
            ek[w] += expl(r.h);
            p2[w] += r.p2;
            hmin[w] = r.h < hmin[w] ? r.h : hmin[w];
            hmax[w] = r.h > hmax[w] ? r.h : hmax[w];
            if (s->values)
                add_outputs(p, len, v, s->d_v, &o2[w]);
            if (related && i < nd)
                dw[w] += p[i];
            sink[w] += p[0]; /* key 0: every row sees it */
            if (len >= 2)    /* entropy over ln(keys seen) */
                hn[w] += r.h / logl((ldbl)len);
        }
        n_hn += len >= 2;
        if (related && i < nd)
            dlogit += S[i * nk + i];
    }
    double *f[][2] = {{&out->raw_entropy, &out->scaled_entropy},
                      {&out->raw_max_weight, &out->scaled_max_weight},
                      {&out->raw_jac_trace, &out->scaled_jac_trace},
                      {&out->raw_jac_frob, &out->scaled_jac_frob},
                      {&out->raw_eff_keys, &out->scaled_eff_keys},
                      {&out->raw_sum_p2, &out->scaled_sum_p2}};
    const ldbl *sums[] = {h, mw, jt, jf, ek, p2};
    for (size_t k = 0; k < 6; k++)
        for (int w = 0; w < 2; w++)
            *f[k][w] = (double)(sums[k][w] / nq);
    out->raw_entropy_min = (double)hmin[0];
    out->raw_entropy_max = (double)hmax[0];
    out->scaled_entropy_min = (double)hmin[1];
    out->scaled_entropy_max = (double)hmax[1];
    out->raw_diag_logit = related ? (double)(dlogit / nd) : NAN;
    out->raw_diag_weight = related ? (double)(dw[0] / nd) : NAN;
    out->scaled_diag_weight = related ? (double)(dw[1] / nd) : NAN;
    out->raw_sink_weight = (double)(sink[0] / nq);
    out->scaled_sink_weight = (double)(sink[1] / nq);
    out->raw_entropy_norm = n_hn ? (double)(hn[0] / n_hn) : NAN;
    out->scaled_entropy_norm = n_hn ? (double)(hn[1] / n_hn) : NAN;
    out->raw_out_var = s->values ? (double)(o2[0] / (nq * s->d_v)) : NAN;
    out->scaled_out_var = s->values ? (double)(o2[1] / (nq * s->d_v)) : NAN;
    free(p);
}

/* With grad, G's rows from their streams and the gradient fields; NAN
 * without. */
static void grad_statistics(const sv_spec *s, uint64_t trial, const double *q, const double *k,
                            const double *S, const double *v, sv_trial_stats *out)
{
    double *f[] = {&out->raw_grad_logits2,
                   &out->scaled_grad_logits2,
                   &out->raw_grad_logits_theory2,
                   &out->scaled_grad_logits_theory2,
                   &out->raw_grad_keys,
                   &out->scaled_grad_keys,
                   &out->raw_grad_q2,
                   &out->scaled_grad_q2,
                   &out->raw_grad_k2,
                   &out->scaled_grad_k2};
    if (!s->grad) {
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            *f[i] = NAN;
        return;
    }
    double *G = malloc(s->n_q * s->d_v * sizeof *G);
    for (size_t i = 0; i < s->n_q; i++)
        draw(s, trial, SV_MATRIX_G, i, s->dist, G + i * s->d_v, s->d_v);
    ref_grad(s, q, k, S, v, G, out);
    free(G);
}

void ref_trial(const sv_spec *s, uint64_t trial, sv_trial_stats *out)
{
    const size_t d = s->d_k, nq = s->n_q, nk = s->n_k, dv = s->values ? s->d_v : 0;
    double *q = malloc(nq * d * sizeof *q), *k = malloc(nk * d * sizeof *k);
    double *S = malloc(nq * nk * sizeof *S), *v = malloc((nk * dv + 1) * sizeof *v);
    draw_qk(s, trial, q, k);
    for (size_t j = 0; j < nk && dv > 0; j++)
        draw(s, trial, SV_MATRIX_V, j, s->dist, v + j * dv, dv);
    for (size_t i = 0; i < nq; i++)
        for (size_t j = 0; j < nk; j++) {
            ldbl dot = 0.0L;
            for (size_t l = 0; l < d; l++)
                dot += (ldbl)q[i * d + l] * k[j * d + l];
            S[i * nk + j] = (double)dot;
        }
    score_moments(s, S, out);
    row_statistics(s, S, v, out);
    grad_statistics(s, trial, q, k, S, v, out);
    /* Every built-in source measures Q's and K's entries. */
    out->q_var = variance(q, nq * d);
    out->k_var = variance(k, nk * d);
    ldbl qs = 0.0L, ks = 0.0L;
    for (size_t i = 0; i < nq * d; i++)
        qs += q[i];
    for (size_t i = 0; i < nk * d; i++)
        ks += k[i];
    out->q_mean = (double)(qs / (ldbl)(nq * d));
    out->k_mean = (double)(ks / (ldbl)(nk * d));
    free(q);
    free(k);
    free(S);
    free(v);
}

/* Floors of ref_compare: what a field is measured in. */
enum { UNIT, SCORE, SCORE2, SCALED, SCALED2, RELATIVE };

int ref_compare(const sv_spec *s, const sv_trial_stats *got, const sv_trial_stats *want, double tol,
                const char *label)
{
    static const struct {
        const char *name;
        size_t offset;
        int floor;
    } fields[] = {
#define F_(name, floor) {#name, offsetof(sv_trial_stats, name), floor}
        F_(raw_mean, SCORE),
        F_(raw_var, SCORE2),
        F_(scaled_mean, SCALED),
        F_(scaled_var, SCALED2),
        F_(raw_entropy, UNIT),
        F_(scaled_entropy, UNIT),
        F_(raw_max_weight, UNIT),
        F_(scaled_max_weight, UNIT),
        F_(raw_jac_trace, UNIT),
        F_(scaled_jac_trace, UNIT),
        F_(raw_var_known_mean, SCORE2),
        F_(raw_var_ddof0, SCORE2),
        F_(raw_var_ddof1, SCORE2),
        F_(raw_jac_frob, UNIT),
        F_(scaled_jac_frob, UNIT),
        F_(raw_eff_keys, UNIT),
        F_(scaled_eff_keys, UNIT),
        F_(raw_entropy_min, UNIT),
        F_(raw_entropy_max, UNIT),
        F_(scaled_entropy_min, UNIT),
        F_(scaled_entropy_max, UNIT),
        F_(raw_max_abs_logit, SCORE),
        F_(raw_diag_logit, SCORE),
        F_(raw_diag_weight, UNIT),
        F_(scaled_diag_weight, UNIT),
        F_(q_var, UNIT), /* entries are O(1) in the tests; their variance may be 0 */
        F_(k_var, UNIT),
        F_(raw_out_var, RELATIVE),
        F_(scaled_out_var, RELATIVE),
        F_(raw_sum_p2, UNIT),
        F_(scaled_sum_p2, UNIT),
        /* gradients: relative, exactly 0 where the gradient is (one key) */
        F_(raw_grad_logits2, RELATIVE),
        F_(scaled_grad_logits2, RELATIVE),
        F_(raw_grad_logits_theory2, RELATIVE),
        F_(scaled_grad_logits_theory2, RELATIVE),
        F_(raw_grad_keys, RELATIVE),
        F_(scaled_grad_keys, RELATIVE),
        F_(raw_grad_q2, RELATIVE),
        F_(scaled_grad_q2, RELATIVE),
        F_(raw_grad_k2, RELATIVE),
        F_(scaled_grad_k2, RELATIVE),
        F_(q_mean, UNIT),
        F_(k_mean, UNIT),
        F_(raw_sink_weight, UNIT),
        F_(scaled_sink_weight, UNIT),
        F_(raw_entropy_norm, UNIT),
        F_(scaled_entropy_norm, UNIT),
        F_(raw_max_logit, SCORE),
        F_(rows_empty, UNIT),
#undef F_
    };
    _Static_assert(sizeof fields / sizeof fields[0] == SV_TRIAL_FIELDS, "every field compared");
    const double rms = sqrt(want->raw_var_ddof0 + want->raw_mean * want->raw_mean);
    const double floors[] = {[UNIT] = 1.0,
                             [SCORE] = rms,
                             [SCORE2] = rms * rms,
                             [SCALED] = rms * s->scale,
                             [SCALED2] = rms * rms * s->scale2,
                             [RELATIVE] = 0.0};
    int bad = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const double g = *(const double *)((const char *)got + fields[i].offset);
        const double w = *(const double *)((const char *)want + fields[i].offset);
        const int ok =
            isnan(w) ? isnan(g) : fabs(g - w) <= tol * (fabs(w) + floors[fields[i].floor]);
        if (!ok) {
            bad++;
            fprintf(stderr, "%s: %s = %.17g, reference %.17g (diff %.3g)\n", label, fields[i].name,
                    g, w, g - w);
        }
    }
    return bad;
}
