/* Regression tests for the theory columns of issue 9 (section 3): each case
 * below printed a wrong or missing value before. Exact enumeration where
 * the entries can be signs (rademacher, shifted and scaled, with a planted
 * key mixing them), else Monte Carlo through the engine within 5 SE, SE =
 * SD across trials / sqrt(trials) (trials are independent draws). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spec_run.h"
#include "sdpa_var/sdpa_var.h"

/* Exact expectations over every sign pattern of X (n_q x d) and Y (n_k x d):
 * q = mq + sq x, z = mk + sk y, key j = rho q_j + sqrt(1 - rho^2) z_j for
 * j < min(n_q, n_k) (z_j when rho = 0), scores over the visible (causal or
 * full) grid. */
typedef struct exact {
    double s2, s2_var; /* E and Var of M2 / (N - ddof) */
    double mean;       /* E of the mean score */
    double known;      /* E of sum (S - mu)^2 / N for the given mu */
    double diag;       /* E of the mean planted score */
} exact;

static exact enumerate(const sv_spec *c, double mu)
{
    const size_t d = c->d_k, nq = c->n_q, nk = c->n_k, bits = (nq + nk) * d;
    const size_t np = nq < nk ? nq : nk;
    const double rho = c->plant, r = sqrt(1.0 - rho * rho);
    const double sq = c->q_std > 0.0 ? c->q_std : 1.0, sk = c->k_std > 0.0 ? c->k_std : 1.0;
    double a[5] = {0};
    for (uint64_t pat = 0; pat < ((uint64_t)1 << bits); pat++) {
        double q[64], k[64], s[64];
        for (size_t b = 0; b < bits; b++) {
            const double sign = (pat >> b) & 1u ? 1.0 : -1.0;
            if (b < nq * d)
                q[b] = c->q_mean + sq * sign;
            else
                k[b - nq * d] = c->k_mean + sk * sign;
        }
        for (size_t j = 0; rho != 0.0 && j < np; j++)
            for (size_t l = 0; l < d; l++)
                k[j * d + l] = rho * q[j * d + l] + r * k[j * d + l];
        for (size_t i = 0; c->qk_norm && i < nq + nk; i++) { /* rows to norm R */
            double *row = i < nq ? q + i * d : k + (i - nq) * d, ss = 0.0;
            for (size_t l = 0; l < d; l++)
                ss += row[l] * row[l];
            for (size_t l = 0; l < d; l++)
                row[l] *= c->qk_radius / sqrt(ss);
        }
        size_t n = 0;
        double m = 0.0, diag = 0.0;
        for (size_t i = 0; i < nq; i++)
            for (size_t j = 0; j < nk && (!c->causal || j <= i); j++) {
                double dot = 0.0;
                for (size_t l = 0; l < d; l++)
                    dot += q[i * d + l] * k[j * d + l];
                s[n++] = dot;
                m += dot;
                diag += i == j && i < np ? dot : 0.0;
            }
        m /= (double)n;
        double m2 = 0.0, kn = 0.0;
        for (size_t i = 0; i < n; i++) {
            m2 += (s[i] - m) * (s[i] - m);
            kn += (s[i] - mu) * (s[i] - mu);
        }
        const double s2 = m2 / (double)(n - c->ddof);
        a[0] += s2;
        a[1] += s2 * s2;
        a[2] += m;
        a[3] += kn / (double)n;
        a[4] += diag / (double)np;
    }
    const double cnt = (double)((uint64_t)1 << bits);
    exact e = {a[0] / cnt, a[1] / cnt - (a[0] / cnt) * (a[0] / cnt), a[2] / cnt, a[3] / cnt,
               a[4] / cnt};
    return e;
}

static sv_spec base(size_t d, size_t nq, size_t nk)
{
    sv_spec c = {.d_k = d, .n_q = nq, .n_k = nk, .trials = 1, .dist = SV_DIST_RADEMACHER};
    return c;
}

/* Planted keys, with and without the causal mask and means: mean, E[s^2],
 * known-mean variance and the planted logit, exactly. Before: the mean
 * ignored the planted scores, the causal E[s^2] subtracted (i,j),(j,i)
 * covariances the mask hides, the diagonal dropped r d mu_q mu_k. */
static void test_plant_exact(void)
{
    const struct {
        size_t d, nq, nk;
        int causal;
        unsigned ddof;
        double rho, mq, sq, mk, sk;
    } cases[] = {{2, 3, 3, 1, 0, 0.7, 0.0, 1.0, 0.0, 1.0},
                 {2, 3, 3, 0, 1, 0.5, 0.0, 1.0, 0.0, 1.0},
                 {1, 3, 4, 0, 0, -0.6, 0.0, 1.5, 0.0, 0.5},
                 {2, 2, 3, 0, 0, 0.6, 1.0, 1.0, 1.0, 1.0},
                 {2, 3, 3, 1, 0, 0.8, 0.5, 2.0, -1.0, 1.0},
                 {1, 4, 4, 1, 1, -0.3, 0.0, 0.5, 0.0, 2.0},
                 /* issue 14: E[s^2] with means, n_q > n_k and n_q < n_k */
                 {2, 4, 2, 0, 1, 0.6, 0.5, 1.5, -0.7, 0.6},
                 {1, 2, 5, 0, 0, -0.4, -1.0, 1.0, 2.0, 1.0},
                 {1, 5, 5, 1, 0, 0.9, 0.3, 1.0, 0.8, 1.3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sv_spec c = base(cases[i].d, cases[i].nq, cases[i].nk);
        c.causal = cases[i].causal;
        c.ddof = cases[i].ddof;
        c.plant = cases[i].rho;
        c.q_mean = cases[i].mq;
        c.q_std = cases[i].sq;
        c.k_mean = cases[i].mk;
        c.k_std = cases[i].sk;
        sv_theory t;
        CHECK_STATUS(spec_theory(c, &t), SV_OK);
        sv_spec spec;
        CHECK_STATUS(spec_resolved(c, &spec), SV_OK);
        CHECK_CLOSE(sv_theory_mean(&spec), t.mean, 0.0, 0.0);
        const exact e = enumerate(&c, t.mean);
        printf("plant %g causal %d: mean %.15g (%.15g) known %.15g (%.15g) diag %.15g (%.15g) "
               "s2 %.15g (%.15g)\n",
               c.plant, c.causal, e.mean, t.mean, e.known, t.var, e.diag, t.diag_logit, e.s2,
               t.var_expected);
        CHECK_CLOSE(t.mean, e.mean, 1e-12, 1e-14);
        CHECK_CLOSE(t.var, e.known, 1e-12, 1e-14);
        CHECK_CLOSE(t.diag_logit, e.diag, 1e-12, 1e-14);
        CHECK_CLOSE(t.var_expected, e.s2, 1e-12, 1e-14); /* nonzero means too (issue 14) */
    }
    /* The reproducers, any law (they use no fourth moment). */
    sv_spec c = base(4, 3, 3);
    c.dist = SV_DIST_NORMAL;
    c.plant = 0.6;
    c.q_mean = c.k_mean = 1.0;
    sv_theory t;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.diag_logit, 8.0, 1e-15, 0.0);
    CHECK_CLOSE(t.mean, 6.4, 1e-15, 0.0);
    c = base(16, 4, 4);
    c.dist = SV_DIST_NORMAL;
    c.plant = 0.5;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.mean, 2.0, 1e-15, 0.0);
    c = base(4, 3, 3);
    c.dist = SV_DIST_NORMAL;
    c.plant = 0.7;
    c.causal = 1;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.var_expected, 6.11, 1e-14, 0.0); /* 36.66 / 6; was 5.7833 */
}

/* Issue 14, exactly for signs under QK-norm: a planted key with rho = +-1
 * (k = +-q, any law), one shifted side (mean 0, E S^2 = R^4/d whatever the
 * other row), and nan where no closed form is claimed. */
static void test_qk_exact(void)
{
    const struct {
        size_t d, nq, nk;
        int causal;
        unsigned ddof;
        double rho, mq, mk, R;
    } cases[] = {{2, 3, 3, 0, 0, 1.0, 0.0, 0.0, 1.5},  {2, 3, 3, 1, 1, -1.0, 0.0, 0.0, 0.0},
                 {1, 3, 4, 0, 0, -1.0, 0.0, 0.0, 2.0}, {2, 2, 3, 0, 0, 0.0, 0.5, 0.0, 0.0},
                 {2, 3, 3, 1, 0, 0.0, 0.0, -0.7, 1.7}, {3, 2, 2, 0, 1, 0.0, 0.0, 1.5, 0.0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sv_spec c = base(cases[i].d, cases[i].nq, cases[i].nk);
        c.causal = cases[i].causal;
        c.ddof = cases[i].ddof;
        c.plant = cases[i].rho;
        c.q_mean = cases[i].mq;
        c.k_mean = cases[i].mk;
        c.qk_norm = 1;
        c.qk_radius = cases[i].R;
        sv_theory t;
        if (CHECK_STATUS(spec_resolved(c, &c), SV_OK)) {
            CHECK_STATUS(sv_theory_spec(&c, &t), SV_OK);
        }
        const exact e = enumerate(&c, t.mean);
        printf("qk rho %g means %g %g: mean %.15g (%.15g) known %.15g (%.15g) s2 %.15g (%.15g)\n",
               c.plant, c.q_mean, c.k_mean, e.mean, t.mean, e.known, t.var, e.s2, t.var_expected);
        CHECK_CLOSE(t.mean, e.mean, 1e-12, 1e-14);
        CHECK_CLOSE(t.var, e.known, 1e-12, 1e-14);
        if (c.plant != 0.0) {
            CHECK_CLOSE(t.var_expected, e.s2, 1e-12, 1e-14);
            CHECK_CLOSE(t.diag_logit, e.diag, 1e-12, 1e-14);
        } else {
            CHECK_NAN(t.var_expected); /* shifted rows covary through E[row] */
        }
    }
    sv_spec c = base(2, 3, 3); /* signs, |rho| < 1: no closed form claimed */
    c.plant = 0.5;
    c.qk_norm = 1;
    sv_theory t;
    if (CHECK_STATUS(spec_theory(c, &t), SV_OK)) {
        CHECK_NAN(t.var);
        CHECK_NAN(t.mean);
    }
}

/* The causal mask: ddof 0 and 1 over the n(n+1)/2 visible scores, and the
 * spread of s^2 (was NAN), exactly for signs. */
static void test_causal_exact(void)
{
    sv_spec c = base(2, 2, 2);
    c.dist = SV_DIST_NORMAL;
    c.causal = 1;
    c.ddof = 1;
    sv_theory t;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.var_ddof0, 4.0 / 3.0, 1e-15, 0.0); /* was 1.5: n_q n_k scores */
    CHECK_CLOSE(t.var_ddof1, 2.0, 1e-15, 0.0);
    CHECK_CLOSE(t.var_expected, t.var_ddof1, 0.0, 0.0);
    const size_t shapes[][2] = {{1, 4}, {2, 3}, {3, 2}, {1, 5}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        c = base(shapes[i][0], shapes[i][1], shapes[i][1]);
        c.causal = 1;
        CHECK_STATUS(spec_theory(c, &t), SV_OK);
        const exact e = enumerate(&c, 0.0);
        CHECK_CLOSE(t.var_ddof0, e.s2, 1e-12, 1e-14);
        CHECK_CLOSE(t.var_sd * t.var_sd, e.s2_var, 1e-12, 1e-14);
    }
}

/* Mean and SE of one per-trial field. */
static void mean_se(const sv_trial_stats *r, size_t T, size_t off, double *mean, double *se)
{
    double s = 0.0, s2 = 0.0;
    for (size_t t = 0; t < T; t++) {
        double v;
        memcpy(&v, (const char *)&r[t] + off, sizeof v);
        s += v;
        s2 += v * v;
    }
    *mean = s / (double)T;
    *se = sqrt((s2 / (double)T - *mean * *mean) / (double)(T - 1));
}

/* Runs cfg and checks the named per-trial field's mean against want. */
static void mc_field(const char *label, sv_spec c, size_t off, double want)
{
    sv_trial_stats *r = malloc(c.trials * sizeof *r);
    if (CHECK(r)) {
        CHECK_STATUS(spec_run(c, r), SV_OK);
    }
    double m, se;
    mean_se(r, c.trials, off, &m, &se);
    CHECK_SE(label, m, want, se, 5.0);
    free(r);
}

/* Across-trial variance of raw_var against var_sd^2: SE of a sample
 * variance sqrt((mu4 - v^2) / T) with mu4 the fourth central moment. */
static void mc_spread(const char *label, sv_spec c, double want_sd)
{
    sv_trial_stats *r = malloc(c.trials * sizeof *r);
    if (CHECK(r)) {
        CHECK_STATUS(spec_run(c, r), SV_OK);
    }
    const double T = (double)c.trials;
    double m = 0.0, m2 = 0.0, m4 = 0.0;
    for (size_t t = 0; t < c.trials; t++)
        m += r[t].raw_var / T;
    for (size_t t = 0; t < c.trials; t++) {
        const double dv = r[t].raw_var - m;
        m2 += dv * dv;
        m4 += dv * dv * dv * dv;
    }
    const double v = m2 / (T - 1.0);
    CHECK_SE(label, v, want_sd * want_sd, sqrt((m4 / T - v * v) / T), 5.0);
    free(r);
}

#define OFF(f) offsetof(sv_trial_stats, f)

static void test_monte_carlo(void)
{
    sv_theory t;
    /* Causal, normal entries: the m4 - 3 terms of the triangle's spread. */
    sv_spec c = {.d_k = 4, .n_q = 3, .n_k = 3, .trials = 200000, .seed = 11, .causal = 1};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.var_sd, 3.1564161580759538, 1e-12, 0.0);
    mc_spread("causal normal d=4 n=3: variance of s2", c, t.var_sd);
    c.dist = SV_DIST_UNIFORM;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_spread("causal uniform d=4 n=3: variance of s2", c, t.var_sd);
    /* QK-norm of signs is a fixed rescaling: the spread of s^2 is exact. */
    c = (sv_spec){.d_k = 3,
                  .n_q = 3,
                  .n_k = 4,
                  .trials = 200000,
                  .seed = 12,
                  .dist = SV_DIST_RADEMACHER,
                  .qk_norm = 1,
                  .qk_radius = 1.5};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_spread("qk-norm rademacher R=1.5: variance of s2", c, t.var_sd);
    /* Planted key under QK-norm: R^2 E[cos], exact for normal entries. */
    c = (sv_spec){.d_k = 1, .n_q = 3, .n_k = 3, .trials = 1, .plant = 0.5, .qk_norm = 1};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.diag_logit, 1.0 / 3.0, 1e-15, 0.0); /* (2/pi) asin 0.5; was 0.5 */
    c = (sv_spec){.d_k = 3,
                  .n_q = 4,
                  .n_k = 2,
                  .trials = 100000,
                  .seed = 13,
                  .plant = 0.8,
                  .qk_norm = 1,
                  .qk_radius = 2.0,
                  .q_std = 2.0};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_field("qk-norm plant 0.8 d=3 q_std 2: planted logit", c, OFF(raw_diag_logit), t.diag_logit);
    mc_field("  and the mean score", c, OFF(raw_mean), t.mean);
    /* Issue 14. A planted key under QK-norm, normal, d = 2, n = 3, rho = 0.5,
     * R^2 = 2 (docs/theory.md 8.5), by hand: E[cos^2] = 1 - (1/2)(3/4)
     * 2F1(1, 1; 2; 1/4) = 1 - 1.5 ln(4/3) = 0.56847689; m_d = E S_ii =
     * 2 (pi/4) rho 2F1(1/2, 1/2; 2; 1/4) = 0.81259777, m = m_d / 3; Var S_ii
     * = 4 E[cos^2] - m_d^2, off the diagonal E S^2 = R^4/2 = 2; sum Var =
     * 3 Var S_ii + 12 = 16.8407773, sum (E S - m)^2 = 3 (m_d - m)^2 + 6 m^2
     * = 1.3206303: var = 18.1614076 / 9 = 2.01793417; E[M2] subtracts
     * (16.8407773 + 6 m_d^2 / 2) / 9, E[s^2] = 1.78556723. The issue's
     * Monte Carlo gave 2.0179 and 1.7856. */
    c = (sv_spec){
        .d_k = 2, .n_q = 3, .n_k = 3, .trials = 200000, .seed = 16, .plant = 0.5, .qk_norm = 1};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.var, 2.0179341728126143, 1e-12, 0.0);
    CHECK_CLOSE(t.var_expected, 1.7855672259500475, 1e-12, 0.0);
    mc_field("qk-norm plant 0.5 d=2 n=3: known-mean variance", c, OFF(raw_var_known_mean), t.var);
    mc_field("  and the mean of s2", c, OFF(raw_var), t.var_expected);
    c = (sv_spec){.d_k = 3,
                  .n_q = 4,
                  .n_k = 4,
                  .trials = 200000,
                  .seed = 17,
                  .plant = 0.8,
                  .qk_norm = 1,
                  .causal = 1,
                  .q_std = 2.0,
                  .k_std = 0.7};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_field("qk-norm plant 0.8 causal q_std 2 k_std 0.7: mean of s2", c, OFF(raw_var),
             t.var_expected);
    /* QK-norm, normal, causal: rows on the sphere (8.4), the issue's
     * example (its Monte Carlo gave 3.672). By hand, R^2 = d = 8, N = 6,
     * sum r_i^2 = sum c_j^2 = 14, tr G^2 = 26: Var(A) = 6 R^8 (3/80 - 1/64)
     * = 537.6; E Y^2 = R^4 (36 + (2/8)(26 - 14)) = 2496, sum E|U_i|^4 =
     * R^4 (14 + (2/8) 8) = 1024, E T^4 = 3 2496 - (6/10) 1024 = 6873.6,
     * Var(B) = 6873.6 - 36 R^8/64 = 4569.6; V = 537.6 (2/3) + 4569.6/36 =
     * 485.333, sd = sqrt(V)/6 = 3.6717137. */
    c = (sv_spec){
        .d_k = 8, .n_q = 3, .n_k = 3, .trials = 200000, .seed = 18, .qk_norm = 1, .causal = 1};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.var_sd, 3.671713698190736, 1e-12, 0.0);
    mc_spread("qk-norm causal normal d=8 n=3: variance of s2", c, t.var_sd);
    /* Projections under QK-norm: isotropic rows, E S^2 = R^4/d. */
    c = (sv_spec){.d_k = 3,
                  .n_q = 4,
                  .n_k = 5,
                  .trials = 200000,
                  .seed = 19,
                  .d_model = 5,
                  .qk_norm = 1,
                  .qk_radius = 1.5};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.var, 1.6875, 1e-15, 0.0); /* 1.5^4 / 3 */
    CHECK_NAN(t.var_expected);              /* self: shared tokens, not closed */
    mc_field("self qk-norm d_model 5: known-mean variance", c, OFF(raw_var_known_mean), t.var);
    c.cross = 1;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_field("cross qk-norm d_model 5: mean of s2", c, OFF(raw_var), t.var_expected);
    /* Self-attention projections: the known-mean variance has the larger
     * diagonal scores (3.52, was 2.88); n_q != n_k and causal E[s^2]. */
    c = (sv_spec){.d_k = 2, .n_q = 3, .n_k = 3, .trials = 200000, .seed = 14, .d_model = 3};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.var, 3.52, 1e-14, 0.0);
    mc_field("self d_model 3: known-mean variance", c, OFF(raw_var_known_mean), t.var);
    c.n_k = 5;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_field("self d_model 3, 3x5: mean of s2", c, OFF(raw_var), t.var_expected);
    c.n_k = 4;
    c.n_q = 4;
    c.causal = 1;
    c.dist = SV_DIST_UNIFORM;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_field("self causal uniform d_model 3: mean of s2", c, OFF(raw_var), t.var_expected);
    c.cross = 1;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    mc_field("cross causal: mean of s2", c, OFF(raw_var), t.var_expected);
    /* q_var and k_var: E of the measured ddof-0 sample variance. */
    c = (sv_spec){
        .d_k = 2, .n_q = 2, .n_k = 3, .trials = 200000, .seed = 15, .qk_norm = 1, .qk_radius = 3.0};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_CLOSE(t.q_var, 4.5 * 3.0 / 4.0, 1e-15, 0.0); /* was R^2/d = 4.5 */
    mc_field("qk-norm R=3 2x2: q_var", c, OFF(q_var), t.q_var);
    mc_field("qk-norm R=3 3x2: k_var", c, OFF(k_var), t.k_var);
    c.q_mean = 1.0;
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_NAN(t.q_var);
    CHECK(!isnan(t.k_var)); /* was a second moment, R^2/d */
}

/* sv_theory_mean, the engine's per-trial shortcut, agrees with the whole
 * theory's mean for every kind of configuration. */
static void test_mean_shortcut(void)
{
    const sv_spec cs[] = {
        {.d_k = 3, .n_q = 4, .n_k = 5, .trials = 1, .q_mean = 0.5, .k_mean = 2.0},
        {.d_k = 3, .n_q = 4, .n_k = 4, .trials = 1, .q_mean = 0.5, .k_mean = 2.0, .causal = 1},
        {.d_k = 3, .n_q = 4, .n_k = 6, .trials = 1, .q_mean = -1.0, .k_mean = 0.5, .plant = 0.4},
        {.d_k = 3, .n_q = 5, .n_k = 5, .trials = 1, .q_mean = 1.0, .plant = -0.3, .causal = 1},
        {.d_k = 5, .n_q = 4, .n_k = 3, .trials = 1, .qk_norm = 1, .plant = 0.7, .q_std = 2.0},
        {.d_k = 5,
         .n_q = 4,
         .n_k = 3,
         .trials = 1,
         .qk_norm = 1,
         .plant = 0.7,
         .dist = SV_DIST_UNIFORM},
        {.d_k = 5, .n_q = 4, .n_k = 3, .trials = 1, .qk_norm = 1, .q_mean = 1.0},
        {.d_k = 5, .n_q = 4, .n_k = 3, .trials = 1, .qk_norm = 1},
        {.d_k = 2, .n_q = 3, .n_k = 3, .trials = 1, .d_model = 4, .causal = 1}};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        sv_theory t;
        sv_spec spec;
        if (CHECK_STATUS(spec_resolved(cs[i], &spec), SV_OK)) {
            CHECK_STATUS(sv_theory_spec(&spec, &t), SV_OK);
        }
        const double m = sv_theory_mean(&spec);
        CHECK((isnan(m) && isnan(t.mean)) || m == t.mean);
    }
    CHECK_NAN(sv_theory_mean(NULL));
}

/* Histogram range on the mean, entropy approximation NAN where it fails,
 * the Student t note. */
static void test_writers_values(void)
{
    sv_spec c = {.d_k = 4, .n_q = 8, .n_k = 8, .trials = 1, .q_mean = 3.0, .k_mean = 3.0};
    double lo, hi;
    sv_theory t;
    sv_spec r;
    if (CHECK_STATUS(spec_resolved(c, &r), SV_OK)) {
        CHECK_STATUS(sv_theory_histogram_range(&r, &lo, &hi), SV_OK);
    }
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_LT(lo, 36.0 - 5.0 * sqrt(t.var));
    CHECK_GT(hi, 36.0 + 5.0 * sqrt(t.var)); /* mean 36 */
    c = (sv_spec){.d_k = 64, .n_q = 1111, .n_k = 1111, .trials = 1};
    CHECK_STATUS(spec_theory(c, &t), SV_OK);
    CHECK_NAN(t.entropy_approx); /* was -24.99 in the CSV */
    CHECK_STATUS(spec_resolved(c, &r), SV_OK);
    sv_theory_scale(&r, &t);
    CHECK_CLOSE(t.entropy_approx, log(1111.0) - 0.5, 1e-15, 0.0);
    c.dist = SV_DIST_STUDENT_T;
    c.nu = 8.0;
    if (CHECK_STATUS(spec_theory(c, &t), SV_OK)) {
        CHECK(t.var_sd_heavy_tail);
        CHECK(isfinite(t.var_sd));
    }
    c.nu = 8.5;
    if (CHECK_STATUS(spec_theory(c, &t), SV_OK)) {
        CHECK(!t.var_sd_heavy_tail);
    }
}

int main(void)
{
    test_plant_exact();
    test_qk_exact();
    test_causal_exact();
    test_writers_values();
    test_mean_shortcut();
    test_monte_carlo();
    return CHECK_DONE();
}
