/* The theory of a planted key (docs/theory.md 8.5), with and without
 * QK-norm: the part of sv_theory_spec that sees planted scores. */
#include <math.h>

#include "sdpa_var/spec.h"
#include "plant.h"

/* E[cos] of two normal vectors of R^d whose coordinates have correlation
 * rho: rho (2/d) [Gamma((d+1)/2) / Gamma(d/2)]^2 2F1(1/2, 1/2; d/2 + 1; rho^2)
 * (docs/theory.md 8.5); (2/pi) asin rho at d = 1; +-1 at |rho| = 1. */
static double normal_cos_mean(double rho, double d)
{
    if (rho >= 1.0 || rho <= -1.0)
        return rho > 0.0 ? 1.0 : -1.0;
    if (d == 1.0)
        return 0.63661977236758134 * asin(rho); /* 2/pi */
    const double x = rho * rho, c = d / 2.0 + 1.0;
    double term = 1.0, sum = 1.0;
    /* Terms fall like x^k k^-c with c >= 2: 10^5 of them leave < 1e-14
     * even at rho^2 = 0.9999. */
    for (int i = 0; i < 100000; i++) {
        const double k = i; /* an integer counter: CERT FLP30-C */
        term *= (k + 0.5) * (k + 0.5) / ((c + k) * (k + 1.0)) * x;
        sum += term;
        if (term < 1e-17 * sum)
            break;
    }
    const double g = exp(lgamma((d + 1.0) / 2.0) - lgamma(d / 2.0));
    return rho * (2.0 / d) * g * g * sum;
}

/* E[cos^2] of the same two vectors: the mean square of the correlation
 * coefficient of d + 1 observations of a bivariate normal (about their
 * mean; Hotelling 1953), 1 - ((d - 1)/d) (1 - rho^2) 2F1(1, 1; d/2 + 1;
 * rho^2) (docs/theory.md 8.5). 1 at d = 1 (cos = +-1); at d = 2 the series
 * is -ln(1 - x)/x. Else its terms fall like x^k k^(-d/2) with d/2 >= 1.5:
 * 10^6 of them, times the factor 1 - x, leave < 1e-8 at any x < 1. */
static double normal_cos2_mean(double rho, double d)
{
    const double x = rho * rho, c = d / 2.0 + 1.0;
    if (d == 1.0 || x >= 1.0)
        return 1.0;
    double f;
    if (d == 2.0) {
        f = x > 0.0 ? -log1p(-x) / x : 1.0;
    } else {
        double term = 1.0;
        f = 1.0;
        for (int i = 0; i < 1000000; i++) {
            const double k = i; /* an integer counter: CERT FLP30-C */
            term *= (k + 1.0) / (c + k) * x;
            f += term;
            if (term < 1e-17 * f)
                break;
        }
    }
    return 1.0 - (d - 1.0) / d * (1.0 - x) * f;
}

/* Mean of the planted score S_ii without QK-norm: k_i = rho q_i + r z_i. */
static double plant_diag(const sv_spec *spec)
{
    const double rho = spec->plant, r = sqrt(1.0 - rho * rho), mq = spec->q_mean;
    const double vq = std_or_one(spec->q_std) * std_or_one(spec->q_std);
    return (double)spec->d_k * (rho * (vq + mq * mq) + r * mq * spec->k_mean);
}

/* k = rho q + r z with q, z of standard deviations sq, sk: the correlation
 * of each coordinate of k with that of q, rho sq / sqrt(rho^2 sq^2 + r^2 sk^2)
 * (QK-norm then rescales both rows: the cosine depends on it alone). */
static double plant_rho_qk(const sv_spec *spec)
{
    const double rho = spec->plant, sq = std_or_one(spec->q_std), sk = std_or_one(spec->k_std);
    return rho * sq / sqrt(rho * rho * sq * sq + (1.0 - rho * rho) * sk * sk);
}

/* Mean of the planted score under QK-norm: R^2 E[cos], normal entries with
 * zero means only (else NAN); any law when k = +-q. */
double sv__theory_plant_diag_qk(const sv_spec *spec)
{
    const double rho = spec->plant, R = qk_radius(spec);
    if (rho == 1.0 || rho == -1.0)
        return rho * R * R;
    if (spec->q_mean != 0.0 || spec->k_mean != 0.0 || spec->dist != SV_DIST_NORMAL)
        return NAN;
    return R * R * normal_cos_mean(plant_rho_qk(spec), (double)spec->d_k);
}

/* E[S_ii^2] of the planted score under QK-norm: R^4 E[cos^2] for normal
 * entries with zero means; R^4 when k = +-q (any law); else NAN. */
static double plant_diag2_qk(const sv_spec *spec)
{
    const double rho = spec->plant, R = qk_radius(spec), r4 = R * R * R * R;
    if (rho == 1.0 || rho == -1.0)
        return r4;
    if (spec->q_mean != 0.0 || spec->k_mean != 0.0 || spec->dist != SV_DIST_NORMAL)
        return NAN;
    return r4 * normal_cos2_mean(plant_rho_qk(spec), (double)spec->d_k);
}

/* Visible scores off the diagonal in a planted key's column (the rest of
 * the N are the n_d planted ones and those in unplanted columns). */
static double plant_off_count(const sv_spec *spec, const grid *g)
{
    return spec->causal ? g->nq * (g->nq - 1.0) / 2.0 : g->nd * (g->nq - 1.0);
}

/* Mean of the visible scores with a planted key, no QK-norm: planted ones
 * plant_diag, others d mu_q times their key's mean. */
double sv__theory_plant_mean(const sv_spec *spec, const grid *g)
{
    const double rho = spec->plant, mq = spec->q_mean, mk = spec->k_mean;
    const double mp = rho * mq + sqrt(1.0 - rho * rho) * mk;
    const double n_op = plant_off_count(spec, g), n_ou = g->N - g->nd - n_op;
    return (g->nd * plant_diag(spec) + g->d * mq * (n_op * mp + n_ou * mk)) / g->N;
}

/* Var(t), t = sum over visible (i, j) of q_i k_j in one coordinate (T is
 * the sum of d independent such t), a planted key k_j = rho q_j + r z_j for
 * j < n_p, no QK-norm (docs/theory.md 8.5). q_i = mq + a_i, z_j = mk + b_j,
 * a and b of variances vq, vk, symmetric (odd central moments 0), so t is a
 * constant, a linear and a quadratic form in (a, b), uncorrelated; every
 * term below is >= 0 (nothing cancels at large means). */
static double plant_var_t(const sv_spec *spec, const grid *g, double m4)
{
    const double rho = spec->plant, r2 = 1.0 - rho * rho, r = sqrt(r2), mq = spec->q_mean,
                 mk = spec->k_mean, rr = rho * rho;
    const double vq = std_or_one(spec->q_std) * std_or_one(spec->q_std);
    const double vk = std_or_one(spec->k_std) * std_or_one(spec->k_std);
    if (spec->causal) {
        /* t = (rho/2)[(sum q)^2 + sum q^2] + r sum_{j <= i} q_i z_j: the
         * linear coefficients are rho mq (n + 1) + r mk (i + 1) on a_i and
         * r mq (n - j) on b_j; the quadratic part rho a^T ((J + I)/2) a +
         * r a^T L b, L the mask. */
        const double n = g->nq, al = rho * mq * (n + 1.0), be = r * mk;
        const double la = n * (al + be * (n + 1.0) / 2.0) * (al + be * (n + 1.0) / 2.0) +
                          be * be * n * (n * n - 1.0) / 12.0;
        return vq * la + vk * r2 * mq * mq * g->sc2 + r2 * vq * vk * g->N +
               rr * vq * vq * n * (m4 - 1.0 + (n - 1.0) / 2.0);
    }
    /* Full grid: t = (U_p + U_o)(rho U_p + Z), U_p = sum of the n_p planted
     * rows' q, U_o of the others, Z = r sum_{j < n_p} z_j + sum_{j >= n_p}
     * z_j: independent, of means mp, mo, mz and variances vA, vB, vC. */
    const double np = g->nd, vA = np * vq, vB = (g->nq - np) * vq;
    const double vC = (r2 * np + g->nk - np) * vk;
    const double mu = g->nq * mq, mv = rho * np * mq + (r * np + g->nk - np) * mk;
    /* Var((U_p - mp)^2) = n_p (m4 - 3) vq^2 + 3 n_p^2 vq^2 - vA^2, expanded. */
    const double var_a2 = np * vq * vq * (m4 - 3.0 + 2.0 * np);
    return (mu * rho + mv) * (mu * rho + mv) * vA + mv * mv * vB + mu * mu * vC + rr * var_a2 +
           vC * (vA + vB) + rr * vA * vB;
}

/* A planted key k_i = rho q_i + r z_i, r = sqrt(1 - rho^2), no QK-norm
 * (docs/theory.md 8.5). Per coordinate: q of mean mq, variance vq; z of mk,
 * vk; the planted key of mp = rho mq + r mk, vp = rho^2 vq + r^2 vk. */
void sv__theory_plant(const sv_spec *spec, const grid *g, double m4, part *p)
{
    const double d = g->d, N = g->N, rho = spec->plant, r2 = 1.0 - rho * rho, r = sqrt(r2);
    const double mq = spec->q_mean, mk = spec->k_mean;
    const double vq = std_or_one(spec->q_std) * std_or_one(spec->q_std);
    const double vk = std_or_one(spec->k_std) * std_or_one(spec->k_std);
    const double mp = rho * mq + r * mk, vp = rho * rho * vq + r2 * vk;
    /* Var(q^2) = E q^4 - (E q^2)^2 = 4 mq^2 vq + (m4 - 1) vq^2, expanded. */
    const double var_q2 = 4.0 * mq * mq * vq + (m4 - 1.0) * vq * vq;
    /* S_ii = sum_l q_l (rho q_l + r z_l): Var per coordinate is
     * rho^2 Var(q^2) + r^2 Var(q z) + 2 rho r Cov(q^2, q z), with
     * Cov(q^2, q z) = mk (E q^3 - E q^2 mq) = 2 mq vq mk (symmetric laws). */
    const double md = plant_diag(spec);
    const double vd =
        d * (rho * rho * var_q2 + r2 * var_product(vq, mq, vk, mk) + 4.0 * rho * r * mq * vq * mk);
    const double mo_p = d * mq * mp, vo_p = d * var_product(vq, mq, vp, mp);
    const double mo_u = d * mq * mk, vo_u = d * var_product(vq, mq, vk, mk);
    const double n_op = plant_off_count(spec, g), n_ou = N - g->nd - n_op;
    p->mean = sv__theory_plant_mean(spec, g);
    const double sumvar = g->nd * vd + n_op * vo_p + n_ou * vo_u;
    const double between = g->nd * (md - p->mean) * (md - p->mean) +
                           n_op * (mo_p - p->mean) * (mo_p - p->mean) +
                           n_ou * (mo_u - p->mean) * (mo_u - p->mean);
    p->var = (sumvar + between) / N;
    /* E[M2] = sum Var + sum (E S - mean)^2 - Var(T) / N, T = sum S. */
    p->m2 = sumvar + between - d * plant_var_t(spec, g, m4) / N;
    p->m2_sd = NAN;
    p->diag = md;
    p->logit_var = NAN; /* the planted logit dominates its row */
}

/* QK-norm with a planted key, zero means (docs/theory.md 8.5). Off the
 * diagonal E S = 0 and E S^2 = R^4/d (one of the two rows is independent
 * of the other and isotropic); the planted score has its own two moments,
 * and the only covariance is S_ij with S_ji of two planted rows,
 * sum_l E[q_l k_l]^2 = (E S_ii)^2 / d. */
void sv__theory_plant_qk(const sv_spec *spec, const grid *g, part *p)
{
    const double d = g->d, N = g->N, R = qk_radius(spec);
    p->mean = p->var = p->m2 = p->m2_sd = p->logit_var = NAN;
    p->diag = sv__theory_plant_diag_qk(spec);
    if (spec->q_mean != 0.0 || spec->k_mean != 0.0)
        return;                    /* the rescaled rows' moments have no closed form */
    p->mean = g->nd * p->diag / N; /* off the diagonal: mean 0 */
    const double md = p->diag, vd = plant_diag2_qk(spec) - md * md, vo = R * R * R * R / d;
    const double sumvar = g->nd * vd + (N - g->nd) * vo;
    const double between =
        g->nd * (md - p->mean) * (md - p->mean) + (N - g->nd) * p->mean * p->mean;
    p->var = (sumvar + between) / N;
    p->m2 = sumvar + between - (sumvar + g->pt * md * md / d) / N;
}
