#include "sdpa_var/theory.h"

#include <math.h>

#include "sdpa_var/experiment.h"

/* Unit-variance, zero-mean entries with fourth moment m4. */
static sv_status theory_unit(size_t d_k, size_t n_q, size_t n_k, unsigned ddof, double m4,
                             sv_theory *out)
{
    if (d_k == 0 || n_q == 0 || n_k == 0 || isnan(m4))
        return SV_EINVAL;
    /* Sizes as doubles: N up to 2^53 is exact, beyond that the relative
     * error is 2^-53, far below anything the formulas are compared with. */
    const double d = (double)d_k, nq = (double)n_q, nk = (double)n_k;
    const double N = nq * nk;
    if (N <= (double)ddof)
        return SV_EINVAL;
    const double dof = N - (double)ddof;
    const double a = m4 - 1.0, b = m4 - 3.0, r = nq + nk;
    /* docs/theory.md, section 4: Var(A) + Var(B)/N^2 - 2 Cov(A,B)/N, each
     * already divided by N d and with the N^2 d^2 terms cancelled by hand,
     * so nothing large cancels here even at n = 65536. */
    const double v = d * (N * (m4 * m4 + 2.0 * d - 3.0 + (r - 2.0) * a) + (2.0 * d + 6.0) +
                          (3.0 * b * r + b * b) / N - 2.0 * (a * a + a * r + 2.0 * d - 2.0));
    out->var = d;
    out->var_expected = d * (N - 1.0) / dof;
    out->var_sd = sqrt(v > 0.0 ? v : 0.0) / dof;
    out->mean = 0.0;
    out->entropy_approx = log(nk) - d / 2.0;
    return SV_OK;
}

sv_status sv_theory_raw(size_t d_k, size_t n_q, size_t n_k, unsigned ddof, sv_dist dist,
                        sv_theory *out)
{
    if (dist == SV_DIST_STUDENT_T)
        return SV_EINVAL; /* needs nu: sv_theory_config */
    return theory_unit(d_k, n_q, n_k, ddof, sv_dist_fourth_moment(dist, 0.0), out);
}

sv_status sv_theory_config(const sv_config *cfg, sv_theory *out)
{
    sv_status st = sv_config_check(cfg);
    if (st != SV_OK)
        return st;
    sv_theory t;
    st = theory_unit(cfg->d_k, cfg->n_q, cfg->n_k, cfg->ddof,
                     sv_dist_fourth_moment(cfg->dist, cfg->nu), &t);
    if (st != SV_OK)
        return st;
    const double d = (double)cfg->d_k, nq = (double)cfg->n_q, nk = (double)cfg->n_k;
    /* Visible scores, and the ordered pairs of them that share a query row
     * (pq N) or a key column (pk N): n_k - 1 and n_q - 1 for the full grid;
     * with the causal mask row i has i + 1 scores, column j has n - j. */
    const int causal = cfg->causal;
    const double N = causal ? nq * (nq + 1.0) / 2.0 : nq * nk, dof = N - (double)cfg->ddof;
    const double pq = causal ? (nq - 1.0) * nq * (nq + 1.0) / 3.0 / N : nk - 1.0;
    const double pk = causal ? pq : nq - 1.0;
    /* Mean over rows of ln(keys seen): ln n_k, or ln(n!) / n when masked. */
    const double ln_keys = causal ? lgamma(nq + 1.0) / nq : log(nk);
    const double mq = cfg->q_mean, mk = cfg->k_mean;
    const double sq = cfg->q_std > 0.0 ? cfg->q_std : 1.0, sk = cfg->k_std > 0.0 ? cfg->k_std : 1.0;
    const double vq = sq * sq, vk = sk * sk;
    /* docs/theory.md, section 8. */
    t.mean = d * mq * mk;
    t.var = d * ((vq + mq * mq) * (vk + mk * mk) - mq * mq * mk * mk);
    t.var_expected = ((N - 1.0) * t.var - pq * d * vq * mk * mk - pk * d * vk * mq * mq) / dof;
    /* The spread of s^2 is derived for the full grid only. */
    t.var_sd = mq == 0.0 && mk == 0.0 && !causal ? vq * vk * t.var_sd : NAN;
    t.entropy_approx = ln_keys - d * (vq + mq * mq) * vk / 2.0;
    t.diag_logit = NAN;
    if (cfg->qk_norm) {
        const double r = cfg->qk_scale > 0.0 ? cfg->qk_scale : sqrt(d);
        const double zero_mean = mq == 0.0 && mk == 0.0;
        t.mean = zero_mean ? 0.0 : NAN;
        t.var = zero_mean ? r * r * r * r / d : NAN;
        t.var_expected = t.var * (N - 1.0) / dof;
        t.var_sd = NAN;
        t.entropy_approx = ln_keys - t.var / 2.0;
        if (zero_mean && cfg->dist == SV_DIST_NORMAL && !causal) {
            /* Normal rows rescaled to norm r are uniform on the sphere
             * (section 8.4): with c the cosine of two of them, E c^2 = 1/d,
             * E c^4 = 3/(d(d+2)); given its query row a score has the
             * fixed second moment r^4/d, so only identical scores covary
             * in A, and Cov(A, B) = Var(A) as in section 4. */
            const double r4 = r * r * r * r, r8 = r4 * r4, c4 = 3.0 / (d * (d + 2.0));
            const double va = N * r8 * (c4 - 1.0 / (d * d));
            const double eu4 = r4 * nq * (nq + 2.0 * (nq - 1.0) / d);
            const double ev4 = r4 * nk * (nk + 2.0 * (nk - 1.0) / d);
            const double vb = eu4 * ev4 * c4 - N * N * r8 / (d * d);
            const double v = va * (1.0 - 2.0 / N) + vb / (N * N);
            t.var_sd = sqrt(v > 0.0 ? v : 0.0) / dof;
        }
    }
    t.q_var = vq;
    t.k_var = vk;
    if (cfg->d_model > 0) {
        const double D = (double)cfg->d_model;
        const double w = sv_init_variance(cfg->init, cfg->d_model, cfg->d_k);
        const double m4 = sv_dist_fourth_moment(cfg->dist, cfg->nu);
        t.q_var = t.k_var = D * w;
        t.mean = 0.0;
        t.var = d * t.q_var * t.k_var;
        t.var_sd = NAN;
        t.entropy_approx = ln_keys - t.var / 2.0;
        if (causal) {
            t.var_expected = NAN; /* derived for the full grid only */
            t.diag_logit = cfg->cross ? NAN : 0.0;
        } else if (cfg->cross) {
            t.var_expected = t.var * (N - 1.0) / dof;
        } else if (cfg->n_q == cfg->n_k) {
            const double n = nq;
            t.var_expected = w * w *
                             ((N - 1.0) * D * D * d + 2.0 * (n - 1.0) * D * d +
                              (m4 - 3.0) * (n - 1.0 / n) * D * d) /
                             dof;
            t.diag_logit = 0.0;
        } else {
            t.var_expected = NAN;
            t.diag_logit = 0.0;
        }
    }
    if (cfg->qk_norm) {
        const double r = cfg->qk_scale > 0.0 ? cfg->qk_scale : sqrt(d);
        t.q_var = t.k_var = r * r / d;
        if (cfg->d_model > 0) /* normalised projections: no closed form here */
            t.var = t.var_expected = t.entropy_approx = NAN;
    }
    if (cfg->plant != 0.0) {
        t.diag_logit = cfg->qk_norm
                           ? cfg->plant * (cfg->qk_scale > 0.0 ? cfg->qk_scale * cfg->qk_scale : d)
                           : cfg->plant * d * (vq + mq * mq);
        t.var_expected = NAN;
        t.var_sd = NAN;
        t.entropy_approx = NAN; /* the planted logit dominates its row */
        /* Population variance of all scores: a mixture of the n_p planted
         * ones (mean rho d, variance rho^2 d (m4 - 1) + (1 - rho^2) d) and
         * the rest (mean 0, variance d); for unit, zero-mean entries only. */
        if (!cfg->qk_norm && mq == 0.0 && mk == 0.0 && vq == 1.0 && vk == 1.0) {
            const double rho = cfg->plant, m4 = sv_dist_fourth_moment(cfg->dist, cfg->nu);
            const double np = nq < nk ? nq : nk, f = np / N, mu = rho * d;
            const double vp = rho * rho * d * (m4 - 1.0) + (1.0 - rho * rho) * d;
            t.var = (1.0 - f) * d + f * vp + f * (1.0 - f) * mu * mu;
            /* Scores are uncorrelated but for the pairs (i, j), (j, i) of
             * planted rows, Cov = rho^2 d; the means differ by row type. */
            const double vbar = (1.0 - f) * d + f * vp;
            t.var_expected = ((N - 1.0) * vbar + N * f * (1.0 - f) * mu * mu -
                              np * (np - 1.0) * rho * rho * d / N) /
                             dof;
        } else {
            t.var = NAN;
        }
    }
    *out = t;
    return SV_OK;
}
