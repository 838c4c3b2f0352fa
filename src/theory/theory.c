#include "sdpa_var/theory.h"

#include <math.h>
#include <string.h>

#include "sdpa_var/spec.h"
#include "forms.h"
#include "plant.h"

/* The entropy approximation where it holds (docs/theory.md 8.7): many keys
 * and a logit variance of at most 1; elsewhere it misleads (it even goes
 * below 0), so it is NAN for every writer alike. */
static double approx_rule(double nk, double ln_keys, double logit_var)
{
    return nk >= 16.0 && logit_var <= 1.0 + 1e-9 ? ln_keys - logit_var / 2.0 : NAN;
}

/* E of the ddof-0 sample variance of M uncorrelated entries whose own
 * variances average vbar and whose means spread by `between` (the
 * population variance of the entries' means). */
static double entry_var(double vbar, double between, double m)
{
    return vbar * (m - 1.0) / m + between;
}

/* sqrt(Var(M2)) for the full grid, unit zero-mean entries with fourth
 * moment m4 (docs/theory.md, section 4): Var(A) + Var(B)/N^2 -
 * 2 Cov(A,B)/N, each already divided by N d and with the N^2 d^2 terms
 * cancelled by hand, so nothing large cancels even at n = 65536. */
static double m2_sd_full(double d, double nq, double nk, double m4)
{
    const double N = nq * nk, a = m4 - 1.0, b = m4 - 3.0, r = nq + nk;
    const double v = d * (N * (m4 * m4 + 2.0 * d - 3.0 + (r - 2.0) * a) + (2.0 * d + 6.0) +
                          (3.0 * b * r + b * b) / N - 2.0 * (a * a + a * r + 2.0 * d - 2.0));
    return sqrt(v > 0.0 ? v : 0.0);
}

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
    out->var = d;
    out->var_expected = d * (N - 1.0) / dof;
    out->var_ddof0 = d * (N - 1.0) / N;
    out->var_ddof1 = N > 1.0 ? d : NAN;
    out->var_sd = m2_sd_full(d, nq, nk, m4) / dof;
    out->mean = 0.0;
    out->logit_var = d;
    out->entropy_approx = approx_rule(nk, log(nk), d);
    out->diag_logit = NAN;
    out->q_var = entry_var(1.0, 0.0, nq * d);
    out->k_var = entry_var(1.0, 0.0, nk * d);
    out->var_sd_heavy_tail = 0;
    return SV_OK;
}

sv_status sv_theory_raw(size_t d_k, size_t n_q, size_t n_k, unsigned ddof, sv_dist dist,
                        sv_theory *out)
{
    if (dist == SV_DIST_STUDENT_T || !out)
        return SV_EINVAL; /* a t needs nu: sv_theory_spec */
    return theory_unit(d_k, n_q, n_k, ddof, sv_dist_fourth_moment(dist, 0.0), out);
}

/* Mean over rows of ln(keys seen): ln n_k, or ln(n!) / n under the mask;
 * with a window, over the rows that see a key (O(n_q)). */
static double ln_keys(const sv_spec *spec)
{
    const double nq = (double)spec->n_q;
    if (spec->window > 0) {
        double sum = 0.0, rows = 0.0;
        for (size_t i = 0, lo, hi; i < spec->n_q; i++) {
            sv_spec_row_keys(spec, i, &lo, &hi);
            if (hi > lo) {
                sum += log((double)(hi - lo));
                rows += 1.0;
            }
        }
        return rows > 0.0 ? sum / rows : NAN;
    }
    return spec->causal ? lgamma(nq + 1.0) / nq : log((double)spec->n_k);
}

/* Row pairs beyond which ||M M^T||_F^2 of a window is not summed: its
 * O(n_q min(n_q, 4W)) loop would take seconds (var_sd theory NAN). */
#define SV_WINDOW_PAIRS 4e8

/* The grid of a sliding window (docs/theory.md, section 14): rows are
 * intervals [lo_i, hi_i), so r_i = hi_i - lo_i, c_j counts the rows whose
 * interval holds j, and (M M^T)_{ii'} is the overlap of two intervals,
 * zero once |i - i'| >= 2W. */
static void grid_window(const sv_spec *spec, grid *g, int related)
{
    const size_t nq = spec->n_q, nk = spec->n_k, w = spec->window;
    const size_t np = nq < nk ? nq : nk, reach = 2 * w < nq ? 2 * w : nq;
    double N = 0.0, sr2 = 0.0, sc2 = 0.0, trg2 = 0.0, pt = 0.0;
    for (size_t i = 0, lo, hi; i < nq; i++) {
        sv_spec_row_keys(spec, i, &lo, &hi);
        const double r = hi > lo ? (double)(hi - lo) : 0.0;
        N += r;
        sr2 += r * r;
    }
    for (size_t j = 0; j < nk; j++) { /* rows i with j in row i's interval */
        const size_t a = spec->causal ? j : (j + 1 > w ? j + 1 - w : 0);
        const size_t b = j < nq && w <= nq - j ? j + w : nq;
        const double c = b > a ? (double)(b - a) : 0.0;
        sc2 += c * c;
    }
    if ((double)nq * (double)reach <= SV_WINDOW_PAIRS) {
        for (size_t i = 0, lo, hi; i < nq; i++) {
            sv_spec_row_keys(spec, i, &lo, &hi);
            for (size_t u = i >= reach ? i - reach : 0, l2, h2; u < nq && u <= i + reach; u++) {
                sv_spec_row_keys(spec, u, &l2, &h2);
                const size_t a = lo > l2 ? lo : l2, b = hi < h2 ? hi : h2;
                const double o = b > a ? (double)(b - a) : 0.0;
                trg2 += o * o;
            }
        }
    } else {
        trg2 = NAN;
    }
    /* Related pairs (i, j), (j, i), i != j, both < min(n_q, n_k) and both
     * visible: none under causal; |i - j| < W without. */
    for (size_t i = 0; related && !spec->causal && i < np; i++) {
        const size_t a = i + 1 > w ? i + 1 - w : 0, b = i < np && w <= np - i ? i + w : np;
        pt += (double)(b - a) - 1.0;
    }
    g->N = N;
    g->sr2 = sr2;
    g->sc2 = sc2;
    g->trg2 = trg2;
    g->nd = related ? (double)np : 0.0;
    g->pt = pt;
}

static int has_related(const sv_spec *spec)
{
    return spec->plant != 0.0 || (spec->d_model > 0 && !spec->cross);
}

/* A 0/1 mask other than the full grid: causal or a window. */
static int masked(const sv_spec *spec)
{
    return spec->causal || spec->window > 0;
}

static void grid_of(const sv_spec *spec, grid *g)
{
    const double nq = (double)spec->n_q, nk = (double)spec->n_k;
    g->d = (double)spec->d_k;
    g->nq = nq;
    g->nk = nk;
    if (spec->window > 0) {
        grid_window(spec, g, has_related(spec));
    } else if (spec->causal) { /* n_q = n_k = n; r_i = i + 1, c_j = n - j */
        const double n = nq;
        g->N = n * (n + 1.0) / 2.0;
        g->sr2 = g->sc2 = n * (n + 1.0) * (2.0 * n + 1.0) / 6.0;
        /* sum over i, i' of (min(i, i') + 1)^2 */
        g->trg2 = n * (n + 1.0) * (n * n + n + 1.0) / 6.0;
        g->nd = has_related(spec) ? n : 0.0;
        g->pt = 0.0; /* (i, j) and (j, i) are both visible only for i = j */
    } else {
        const double np = nq < nk ? nq : nk;
        g->N = nq * nk;
        g->sr2 = nq * nk * nk;
        g->sc2 = nk * nq * nq;
        g->trg2 = g->N * g->N;
        g->nd = has_related(spec) ? np : 0.0;
        g->pt = has_related(spec) ? np * (np - 1.0) : 0.0;
    }
}

/* Var(M2) for unit zero-mean entries under any mask (docs/theory.md 8.3):
 * Var(A) (1 - 2/N) + Var(B) / N^2, A = sum S^2, B = (sum S)^2. */
static double m2_var_mask(const grid *g, double m4)
{
    const double d = g->d, N = g->N, b = m4 - 3.0;
    const double va =
        d * (N * (m4 * m4 + 2.0 * d - 3.0) + (g->sr2 + g->sc2 - 2.0 * N) * (m4 - 1.0));
    const double vb =
        2.0 * d * d * N * N + d * (6.0 * g->trg2 + 3.0 * b * g->sc2 + b * (3.0 * g->sr2 + b * N));
    return va * (1.0 - 2.0 / N) + vb / (N * N);
}

/* Shifted and scaled iid entries, any mask (docs/theory.md 8.1, 8.3). */
static void theory_shifted(const sv_spec *spec, const grid *g, double m4, part *p)
{
    const double d = g->d, N = g->N, mq = spec->q_mean, mk = spec->k_mean;
    const double vq = std_or_one(spec->q_std) * std_or_one(spec->q_std);
    const double vk = std_or_one(spec->k_std) * std_or_one(spec->k_std);
    p->mean = d * mq * mk;
    p->var = d * var_product(vq, mq, vk, mk);
    /* Scores sharing a row covary by d vq mk^2, sharing a column by
     * d vk mq^2; (sr2 - N) and (sc2 - N) ordered pairs of each. */
    p->m2 = (N - 1.0) * p->var - (g->sr2 - N) / N * d * vq * mk * mk -
            (g->sc2 - N) / N * d * vk * mq * mq;
    p->m2_sd = NAN;
    if (mq == 0.0 && mk == 0.0) {
        const double v =
            masked(spec) ? sqrt(fmax(m2_var_mask(g, m4), 0.0)) : m2_sd_full(d, g->nq, g->nk, m4);
        p->m2_sd = vq * vk * v;
    }
    p->diag = NAN;
    p->logit_var = d * (vq + mq * mq) * vk;
}

/* sqrt(Var(M2)) for rows uniform on the sphere of radius R, any mask
 * (docs/theory.md 8.4). Given its query row a score has the fixed second
 * moment R^4/d, so Var(A) counts identical scores only; T = sum_i q_i.U_i
 * with U_i the sum of the keys row i sees, and E T^4 from E[(q.u)^4] =
 * 3 R^4 |u|^4 / (d (d + 2)). */
static double qk_sphere_m2_sd(const grid *g, int causal, double R)
{
    const double d = g->d, N = g->N, r4 = R * R * R * R, r8 = r4 * r4, c4 = 3.0 / (d * (d + 2.0));
    const double va = N * r8 * (c4 - 1.0 / (d * d));
    double vb;
    if (!causal) { /* full grid: T = u.v, rotation invariant */
        const double nq = g->nq, nk = g->nk;
        const double eu4 = r4 * nq * (nq + 2.0 * (nq - 1.0) / d);
        const double ev4 = r4 * nk * (nk + 2.0 * (nk - 1.0) / d);
        vb = eu4 * ev4 * c4 - N * N * r8 / (d * d);
    } else {
        /* E(sum |U_i|^2)^2 = R^4 [N^2 + (2/d)(tr G^2 - sum c_j^2)],
         * sum E|U_i|^4 = R^4 [sum r_i^2 + (2/d)(sum r_i^2 - N)]. */
        const double ey2 = r4 * (N * N + 2.0 / d * (g->trg2 - g->sc2));
        const double eu4 = r4 * (g->sr2 + 2.0 / d * (g->sr2 - N));
        const double et4 = 3.0 * r4 / (d * d) * ey2 - 6.0 * r4 / (d * d * (d + 2.0)) * eu4;
        vb = et4 - N * N * r8 / (d * d);
    }
    return sqrt(fmax(va * (1.0 - 2.0 / N) + vb / (N * N), 0.0));
}

/* QK-norm without projections (docs/theory.md 8.4). */
static void theory_qk(const sv_spec *spec, const grid *g, part *p)
{
    const double d = g->d, N = g->N, R = qk_radius(spec);
    if (spec->plant != 0.0) {
        sv__theory_plant_qk(spec, g, p);
        return;
    }
    p->mean = p->var = p->m2 = p->m2_sd = p->logit_var = p->diag = NAN;
    if (spec->q_mean != 0.0 && spec->k_mean != 0.0)
        return; /* the rescaled rows' moments have no closed form */
    /* One side of mean 0 (sign-symmetric, isotropic: E k k^T = (R^2/d) I):
     * E S = 0 and E S^2 = R^4/d whatever the other row is. */
    p->mean = 0.0;
    p->var = R * R * R * R / d;
    /* A row's logits q_i.k_j given q_i: mean 0, variance R^4/d when the
     * keys have mean 0; with shifted keys they share q_i.E[k]. */
    p->logit_var = spec->k_mean == 0.0 ? p->var : NAN;
    if (spec->q_mean != 0.0 || spec->k_mean != 0.0)
        return; /* scores sharing the shifted row covary by (R^2/d)|E row|^2 */
    p->m2 = (N - 1.0) * p->var;
    if (spec->dist == SV_DIST_RADEMACHER) {
        /* Rows of +-sigma have the fixed norm sigma sqrt(d): QK-norm just
         * multiplies by R / (sigma sqrt(d)), so scores are R^2/d times
         * unit rademacher ones (m4 = 1). */
        const double s = R * R / d;
        p->m2_sd = s * s *
                   (masked(spec) ? sqrt(fmax(m2_var_mask(g, 1.0), 0.0))
                                 : m2_sd_full(d, g->nq, g->nk, 1.0));
    } else if (spec->dist == SV_DIST_NORMAL) {
        /* Normal rows rescaled to norm R are uniform on the sphere. */
        p->m2_sd = qk_sphere_m2_sd(g, masked(spec), R);
    }
}

/* Projections Q = X W_Q, K = X W_K (X' W_K with cross), A = W_Q W_K^T
 * (docs/theory.md 8.6). Off the diagonal E S^2 = E||A||_F^2 = D^2 d w^2;
 * a shared token's score x A x^T adds (m4 - 1) D d w^2; two shared-token
 * scores covary by E tr(A)^2 = D d w^2, S_ij and S_ji by E tr(A^2) = D d w^2. */
static void theory_projected(const sv_spec *spec, const grid *g, double m4, part *p)
{
    const double D = (double)spec->d_model, d = g->d, N = g->N;
    const double w = sv_init_variance(spec->init, spec->d_model, spec->d_k);
    const double a = D * D * d * w * w, b = D * d * w * w;
    p->mean = 0.0; /* flipping x_i flips its scores */
    p->diag = has_related(spec) ? 0.0 : NAN;
    p->m2_sd = NAN; /* every score of a trial shares W */
    p->var = p->m2 = p->logit_var = NAN;
    if (spec->qk_norm) {
        /* Given X, x W with normal W is N(0, |x|^2 w I): q_i and k_j are
         * isotropic, a shared token's q_i and k_i independent (W_Q, W_K
         * are), so every score has E S^2 = R^4/d. Cross-attention: no two
         * scores covary (each token once). Self-attention: S_ii with
         * S_i'i' and S_ij with S_ji covary by (R^4/d) E[g(cos(x_i,
         * x_i'))^2], g the mean cosine of 8.5: not in closed form. */
        const double R = qk_radius(spec);
        p->var = p->logit_var = R * R * R * R / d;
        p->m2 = spec->cross ? (N - 1.0) * p->var : NAN;
        return;
    }
    const double sum2 = N * a + g->nd * (m4 - 1.0) * b;
    p->var = sum2 / N;
    p->m2 = sum2 - (sum2 + (g->pt + g->nd * (g->nd - 1.0)) * b) / N;
    p->logit_var = a;
}

/* q_var, k_var: E of the ddof-0 sample variance of Q's n_q d_k (K's n_k
 * d_k) entries of one trial. Entries are uncorrelated (sign symmetry, or
 * independence), so it is vbar (M - 1)/M plus the spread of their means. */
static void entry_vars(const sv_spec *spec, const grid *g, sv_theory *t)
{
    const double mq_n = g->nq * g->d, mk_n = g->nk * g->d, mq = spec->q_mean, mk = spec->k_mean;
    if (spec->d_model > 0 || spec->qk_norm) {
        const double v = spec->qk_norm ? qk_radius(spec) * qk_radius(spec) / g->d
                                       : (double)spec->d_model *
                                             sv_init_variance(spec->init, spec->d_model, spec->d_k);
        /* QK-norm of shifted rows: no closed form. */
        const int q_ok = !spec->qk_norm || mq == 0.0;
        const int k_ok = !spec->qk_norm || (mk == 0.0 && (spec->plant == 0.0 || mq == 0.0));
        t->q_var = q_ok ? entry_var(v, 0.0, mq_n) : NAN;
        t->k_var = k_ok ? entry_var(v, 0.0, mk_n) : NAN;
        return;
    }
    const double vq = std_or_one(spec->q_std) * std_or_one(spec->q_std);
    const double vk = std_or_one(spec->k_std) * std_or_one(spec->k_std);
    t->q_var = entry_var(vq, 0.0, mq_n);
    t->k_var = entry_var(vk, 0.0, mk_n);
    if (spec->plant != 0.0) { /* rows of two kinds: planted and not */
        const double rho = spec->plant, r2 = 1.0 - rho * rho;
        const double mp = rho * mq + sqrt(r2) * mk, vp = rho * rho * vq + r2 * vk;
        const double f = (g->nq < g->nk ? g->nq : g->nk) / g->nk;
        t->k_var = entry_var(f * vp + (1.0 - f) * vk, f * (1.0 - f) * (mp - mk) * (mp - mk), mk_n);
    }
}

static void theory_part(const sv_spec *spec, const grid *g, part *p)
{
    const double m4 = sv_dist_fourth_moment(spec->dist, spec->nu);
    if (spec->window > 0 && (spec->d_model > 0 || spec->plant != 0.0)) {
        /* Their closed forms count planted and shared-token pairs for the
         * full and causal grids only. */
        p->mean = p->var = p->m2 = p->m2_sd = p->diag = p->logit_var = NAN;
        return;
    }
    if (spec->d_model > 0)
        theory_projected(spec, g, m4, p);
    else if (spec->qk_norm)
        theory_qk(spec, g, p);
    else if (spec->plant != 0.0)
        sv__theory_plant(spec, g, m4, p);
    else
        theory_shifted(spec, g, m4, p);
}

sv_status sv_theory_spec(const sv_spec *spec, sv_theory *out)
{
    const sv_status st = sv_spec_check(spec);
    if (st != SV_OK)
        return st;
    if (!out)
        return SV_EINVAL;
    grid g;
    grid_of(spec, &g);
    part p;
    theory_part(spec, &g, &p);
    const double N = g.N, dof = N - (double)spec->ddof;
    sv_theory t;
    memset(&t, 0, sizeof t); /* padding too: results compare with memcmp */
    t.mean = p.mean;
    t.var = p.var;
    t.var_expected = p.m2 / dof;
    t.var_ddof0 = p.m2 / N;
    t.var_ddof1 = N > 1.0 ? p.m2 / (N - 1.0) : NAN;
    t.var_sd = p.m2_sd / dof;
    t.logit_var = p.logit_var;
    t.entropy_approx = approx_rule(g.nk, ln_keys(spec), p.logit_var);
    t.diag_logit = p.diag;
    entry_vars(spec, &g, &t);
    /* The sample SD of s^2 needs E[s^8] for a standard error. */
    t.var_sd_heavy_tail = spec->dist == SV_DIST_STUDENT_T && spec->nu <= 8.0;
    *out = t;
    return SV_OK;
}

double sv_theory_mean(const sv_spec *spec)
{
    /* Called per trial: the mean alone, without sv_spec_check (the
     * engine's spec has passed it) or the variances. */
    if (!spec || spec->d_k == 0 || spec->n_q == 0 || spec->n_k == 0)
        return NAN;
    if (spec->d_model > 0)
        return 0.0;
    if (spec->window > 0) /* without building its O(n W) grid, per trial */
        return spec->plant != 0.0 ? NAN
               : spec->qk_norm    ? (spec->q_mean != 0.0 && spec->k_mean != 0.0 ? NAN : 0.0)
                                  : (double)spec->d_k * spec->q_mean * spec->k_mean;
    grid g;
    grid_of(spec, &g);
    if (spec->qk_norm) {
        if (spec->plant != 0.0) /* only the mean: no E[cos^2] series per trial */
            return spec->q_mean == 0.0 && spec->k_mean == 0.0
                       ? g.nd * sv__theory_plant_diag_qk(spec) / g.N
                       : NAN;
        return spec->q_mean != 0.0 && spec->k_mean != 0.0 ? NAN : 0.0;
    }
    if (spec->plant != 0.0)
        return sv__theory_plant_mean(spec, &g);
    return g.d * spec->q_mean * spec->k_mean;
}

double sv_theory_entropy_approx(const sv_spec *spec, double logit_var)
{
    if (!spec || spec->n_q == 0 || spec->n_k == 0 || !isfinite(logit_var))
        return NAN; /* ln 0, ln(0!) / 0: no keys to spread weight over */
    grid g;
    grid_of(spec, &g);
    return approx_rule(g.nk, ln_keys(spec), logit_var);
}

/* sv_theory_scale with scale_logn (docs/theory.md 15.1): row i's n_i
 * scores have multiplier c_i = s ln n_i. Over the N = sum n_i visible
 * scores, A1 = sum n_i c_i / N and A2 = sum n_i c_i^2 / N. Where every
 * visible score has the same mean mu and variance v (no planted key, no
 * self-attention projections, whose shared-token scores differ):
 * E[c S] pooled = A1 mu, var = A2 v + (A2 - A1^2) mu^2 (the spread of the
 * rows' means c_i mu). With zero means the scores are uncorrelated, so
 * Var(sum c_i S_ij) = N A2 v and E[M2] = (N - 1) A2 v. Everything else
 * (covariances with shifted means, var_sd, a row's logit variance, the
 * entropy approximation, whose rule needs n_i >= 16 for every row) is
 * NAN. */
static void theory_scale_rows(const sv_spec *spec, sv_theory *t)
{
    double n = 0.0, a1 = 0.0, a2 = 0.0;
    for (size_t i = 0; i < spec->n_q; i++) {
        size_t lo, hi;
        sv_spec_row_keys(spec, i, &lo, &hi);
        if (hi <= lo)
            continue;
        const double ni = (double)(hi - lo), c = spec->scale * log(ni);
        n += ni;
        a1 += ni * c;
        a2 += ni * c * c;
    }
    a1 /= n;
    a2 /= n;
    const double mu = t->mean, v = t->var;
    const int uniform = spec->plant == 0.0 && (spec->d_model == 0 || spec->cross);
    const int uncorrelated =
        uniform && spec->d_model == 0 && spec->q_mean == 0.0 && spec->k_mean == 0.0;
    const double m2 = uncorrelated ? (n - 1.0) * a2 * v : NAN;
    t->mean = uniform ? a1 * mu : NAN;
    t->var = uniform ? a2 * v + (a2 - a1 * a1) * mu * mu : NAN;
    t->var_expected = m2 / (n - (double)spec->ddof);
    t->var_ddof0 = m2 / n;
    t->var_ddof1 = n > 1.0 ? m2 / (n - 1.0) : NAN;
    t->var_sd = t->logit_var = t->entropy_approx = t->diag_logit = NAN;
}

sv_status sv_theory_scale(const sv_spec *spec, sv_theory *t)
{
    if (!spec || !t)
        return SV_EINVAL;
    if (spec->scale_logn && spec->n_q > 0) {
        theory_scale_rows(spec, t);
        return SV_OK;
    }
    const double c = sv_spec_scale(spec), c2 = sv_spec_scale2(spec);
    t->mean *= c;
    t->diag_logit *= c;
    t->var *= c2;
    t->var_expected *= c2;
    t->var_ddof0 *= c2;
    t->var_ddof1 *= c2;
    t->var_sd *= c2;
    t->logit_var *= c2;
    t->entropy_approx = sv_theory_entropy_approx(spec, t->logit_var);
    return SV_OK;
}

sv_status sv_theory_histogram_range(const sv_spec *spec, double *lo, double *hi)
{
    if (!lo || !hi)
        return SV_EINVAL;
    sv_theory t;
    const sv_status st = sv_theory_spec(spec, &t);
    if (st != SV_OK)
        return st;
    double m = t.mean, sd = sqrt(t.var);
    if (!isfinite(m) || !(sd > 0.0) || !isfinite(sd)) {
        /* |S| <= R^2 under QK-norm; else the unit-entry N(0, d_k). */
        const double r2 = spec->qk_norm ? spec->qk_radius * spec->qk_radius : NAN;
        m = 0.0;
        sd = spec->qk_norm ? r2 / 6.0 : sqrt((double)spec->d_k);
    }
    const double c = sv_spec_scale(spec);
    const double l0 = m - 6.0 * sd, h0 = m + 6.0 * sd, l1 = l0 * c, h1 = h0 * c;
    *lo = l0 < l1 ? l0 : l1;
    *hi = h0 > h1 ? h0 : h1;
    return SV_OK;
}
