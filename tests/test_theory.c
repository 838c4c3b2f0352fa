/* Theory of the sample variance of scores: exact enumeration for rademacher
 * entries, the unsimplified moment expressions, and Monte Carlo through the
 * engine for normal and uniform entries. */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spec_run.h"
#include "sdpa_var/sdpa_var.h"

/* Every sign pattern of Q (nq x d) and K (nk x d) is equally likely, so the
 * mean and variance of s^2 over all 2^((nq + nk) d) patterns are exact.
 * Entries are mq + sq x for Q and mk + sk x for K, x = +-1; *ss gets the
 * exact E[S_11^2] - E[S_11]^2 (the population variance of one score). */
static void enumerate_shifted(size_t d, size_t nq, size_t nk, unsigned ddof, double mq, double sq,
                              double mk, double sk, int causal, double *mean, double *var,
                              double *ss)
{
    const size_t bits = (nq + nk) * d;
    double sum = 0.0, sum2 = 0.0, s1 = 0.0, s11 = 0.0;
    for (uint64_t pat = 0; pat < ((uint64_t)1 << bits); pat++) {
        double x[64], s[64];
        for (size_t b = 0; b < bits; b++) {
            const double sign = (pat >> b) & 1u ? 1.0 : -1.0;
            x[b] = b < nq * d ? mq + sq * sign : mk + sk * sign;
        }
        const double *q = x, *k = x + nq * d;
        double m = 0.0;
        size_t seen = 0; /* visible scores, packed into s */
        for (size_t i = 0; i < nq; i++)
            for (size_t j = 0; j < nk && (!causal || j <= i); j++) {
                double dot = 0.0;
                for (size_t l = 0; l < d; l++)
                    dot += q[i * d + l] * k[j * d + l];
                s[seen++] = dot;
                m += dot;
            }
        m /= (double)seen;
        double m2 = 0.0;
        for (size_t i = 0; i < seen; i++)
            m2 += (s[i] - m) * (s[i] - m);
        const double s2 = m2 / (double)(seen - ddof);
        sum += s2;
        sum2 += s2 * s2;
        s1 += s[0];
        s11 += s[0] * s[0];
    }
    const double count = (double)((uint64_t)1 << bits);
    *mean = sum / count;
    *var = sum2 / count - *mean * *mean;
    *ss = s11 / count - (s1 / count) * (s1 / count);
}

static void enumerate(size_t d, size_t nq, size_t nk, unsigned ddof, double *mean, double *var)
{
    double ss;
    enumerate_shifted(d, nq, nk, ddof, 0.0, 1.0, 0.0, 1.0, 0, mean, var, &ss);
}

/* Nonzero means correlate the scores of a row: E[s^2] and the population
 * variance against sv_theory_spec, exactly (shifted rademacher entries). */
static void test_exact_shifted(void)
{
    const struct {
        size_t d, nq, nk;
        unsigned ddof;
        double mq, sq, mk, sk;
    } cases[] = {{2, 2, 2, 0, 0.5, 1.0, -1.0, 1.0},
                 {2, 2, 3, 1, 1.5, 0.5, 0.25, 2.0},
                 {3, 1, 3, 0, 0.0, 2.0, 1.0, 1.0},
                 {1, 3, 3, 0, -0.5, 1.0, 0.0, 0.5},
                 {3, 2, 2, 0, 0.0, 1.5, 0.0, 0.5}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double mean, var, ss;
        enumerate_shifted(cases[c].d, cases[c].nq, cases[c].nk, cases[c].ddof, cases[c].mq,
                          cases[c].sq, cases[c].mk, cases[c].sk, 0, &mean, &var, &ss);
        sv_spec cfg = {.d_k = cases[c].d,
                       .n_q = cases[c].nq,
                       .n_k = cases[c].nk,
                       .trials = 1,
                       .dist = SV_DIST_RADEMACHER,
                       .ddof = cases[c].ddof,
                       .q_mean = cases[c].mq,
                       .q_std = cases[c].sq,
                       .k_mean = cases[c].mk,
                       .k_std = cases[c].sk};
        sv_theory t;
        CHECK_STATUS(spec_theory(cfg, &t), SV_OK);
        printf("shifted d=%zu %zux%zu means %g,%g: E[s2] %.15g (theory %.15g), Var(S) %.15g "
               "(theory %.15g)\n",
               cases[c].d, cases[c].nq, cases[c].nk, cases[c].mq, cases[c].mk, mean, t.var_expected,
               ss, t.var);
        CHECK_CLOSE(t.var_expected, mean, 1e-12, 1e-14);
        CHECK_CLOSE(t.var, ss, 1e-12, 1e-14);
        CHECK_EQ(t.mean, (double)cases[c].d * cases[c].mq * cases[c].mk);
        if (cases[c].mq == 0.0 && cases[c].mk == 0.0)
            CHECK_CLOSE(t.var_sd * t.var_sd, var, 1e-12, 1e-14); /* scaled SD theory */
        else
            CHECK_NAN(t.var_sd);
    }
}

static void test_exact_rademacher(void)
{
    const struct {
        size_t d, nq, nk;
        unsigned ddof;
    } cases[] = {{2, 2, 2, 0}, {2, 2, 2, 1}, {3, 2, 1, 0},
                 {2, 1, 3, 1}, {1, 3, 3, 0}, {4, 2, 2, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double mean, var;
        enumerate(cases[c].d, cases[c].nq, cases[c].nk, cases[c].ddof, &mean, &var);
        sv_theory t;
        CHECK_STATUS(sv_theory_raw(cases[c].d, cases[c].nq, cases[c].nk, cases[c].ddof,
                                   SV_DIST_RADEMACHER, &t),
                     SV_OK);
        printf("rademacher d=%zu n_q=%zu n_k=%zu ddof=%u: E[s2] %.15g (theory %.15g), "
               "Var(s2) %.15g (theory %.15g)\n",
               cases[c].d, cases[c].nq, cases[c].nk, cases[c].ddof, mean, t.var_expected, var,
               t.var_sd * t.var_sd);
        CHECK_CLOSE(t.var_expected, mean, 1e-12, 0.0);
        CHECK_CLOSE(t.var_sd * t.var_sd, var, 1e-12, 1e-14);
        CHECK_EQ(t.var, (double)cases[c].d);
    }
}

/* The unsimplified expectations (docs/theory.md, section 4) in long double:
 * E[A^2], E[B^2], E[AB] minus the squared means. Checks the algebra of the
 * simplified V used by sv_theory_raw. */
static long double var_s2_unsimplified(long double d, long double nq, long double nk,
                                       long double m4, unsigned ddof)
{
    const long double N = nq * nk;
    const long double ea2 = N * (d * m4 * m4 + 3 * d * (d - 1)) +
                            N * (nk - 1 + nq - 1) * (d * m4 + d * (d - 1)) +
                            N * (nq - 1) * (nk - 1) * d * d;
    const long double u4 = nq * m4 + 3 * nq * (nq - 1), v4 = nk * m4 + 3 * nk * (nk - 1);
    const long double eb2 = d * u4 * v4 + 3 * d * (d - 1) * N * N;
    const long double aq = m4 + nq - 1, ak = m4 + nk - 1;
    const long double eab = N * (d * aq * ak + d * (d - 1) * (N + 2));
    const long double ea = N * d, eb = N * d;
    const long double v = (ea2 - ea * ea) + (eb2 - eb * eb) / (N * N) - 2 * (eab - ea * eb) / N;
    return v / ((N - ddof) * (N - ddof));
}

static void test_algebra(void)
{
    const sv_dist dists[3] = {SV_DIST_NORMAL, SV_DIST_UNIFORM, SV_DIST_RADEMACHER};
    const size_t shapes[][3] = {{1, 1, 1}, {2, 2, 2}, {7, 3, 11}, {64, 50, 40}, {3, 1, 100}};
    for (int di = 0; di < 3; di++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (unsigned ddof = 0; ddof < 2; ddof++) {
                if (shapes[s][1] * shapes[s][2] <= ddof)
                    continue;
                sv_theory t;
                CHECK_STATUS(
                    sv_theory_raw(shapes[s][0], shapes[s][1], shapes[s][2], ddof, dists[di], &t),
                    SV_OK);
                const long double want =
                    var_s2_unsimplified(shapes[s][0], shapes[s][1], shapes[s][2],
                                        sv_dist_fourth_moment(dists[di], 0.0), ddof);
                CHECK_CLOSE(t.var_sd * t.var_sd, (double)want, 1e-12, 1e-15);
            }
}

static void test_known_values_and_errors(void)
{
    sv_theory t = {0};
    /* The 1.6 puzzle: 2x2 @ 2x2 normal, numpy's var (ddof 0). */
    CHECK_STATUS(sv_theory_raw(2, 2, 2, 0, SV_DIST_NORMAL, &t), SV_OK);
    CHECK_EQ(t.var, 2.0);
    CHECK_EQ(t.var_expected, 1.5);
    CHECK_CLOSE(t.var_sd, sqrt(4.75), 1e-15, 0.0);
    /* One score and ddof 0: the sample variance is always 0. */
    CHECK_STATUS(sv_theory_raw(5, 1, 1, 0, SV_DIST_NORMAL, &t), SV_OK);
    CHECK_EQ(t.var_expected, 0.0);
    CHECK_LT(fabs(t.var_sd), 1e-7);
    /* At n = 65536 the simplified form loses nothing; the unsimplified one
     * needs long double (its N^2 d^2 terms cancel). */
    CHECK_STATUS(sv_theory_raw(128, 65536, 65536, 0, SV_DIST_NORMAL, &t), SV_OK);
    CHECK_CLOSE(t.var_sd * t.var_sd, (double)var_s2_unsimplified(128, 65536, 65536, 3, 0), 1e-9,
                0.0);

    sv_theory u = t;
    CHECK_STATUS(sv_theory_raw(2, 2, 2, 4, SV_DIST_NORMAL, &u), SV_EINVAL);
    CHECK_STATUS(sv_theory_raw(0, 2, 2, 0, SV_DIST_NORMAL, &u), SV_EINVAL);
    CHECK_STATUS(sv_theory_raw(2, 0, 2, 0, SV_DIST_NORMAL, &u), SV_EINVAL);
    CHECK_STATUS(sv_theory_raw(2, 2, 2, 0, (sv_dist)7, &u), SV_EINVAL);
    CHECK_EQ(u.var, t.var);
    CHECK_EQ(u.var_expected, t.var_expected);
    CHECK_EQ(u.var_sd, t.var_sd);
}

/* Monte Carlo through the engine. For T trials of s^2 with mean mu and
 * variance v: the mean of s^2 has SE sqrt(v / T); the sample variance of
 * s^2 has SE sqrt((mu4 - v^2) / T) to leading order, mu4 its fourth central
 * moment, estimated from the same trials. 5 SE each. */
/* Mean and variance (ddof 1) of the per-trial raw_var over T trials, and
 * the SE of that variance, sqrt((mu4 - v^2) / T) to leading order with mu4
 * the fourth central moment of s^2, estimated from the same trials. */
static void s2_spread(const sv_trial_stats *r, size_t T, double *mean, double *v, double *se_v)
{
    double m = 0.0, m2 = 0.0, m4 = 0.0;
    for (size_t t = 0; t < T; t++)
        m += r[t].raw_var;
    m /= (double)T;
    for (size_t t = 0; t < T; t++) {
        const double dev = r[t].raw_var - m;
        m2 += dev * dev;
        m4 += dev * dev * dev * dev;
    }
    *mean = m;
    *v = m2 / (double)(T - 1);
    *se_v = sqrt((m4 / (double)T - *v * *v) / (double)T);
}

static void test_monte_carlo(sv_dist dist, size_t d, size_t nq, size_t nk, unsigned ddof,
                             uint64_t trials)
{
    /* t with nu = 20: the SE below needs E[s^8], i.e. 16th moments. */
    sv_spec cfg = {.d_k = d,
                   .n_q = nq,
                   .n_k = nk,
                   .trials = trials,
                   .seed = 99u,
                   .dist = dist,
                   .nu = dist == SV_DIST_STUDENT_T ? 20.0 : 0.0, /* the t's only */
                   .ddof = ddof};
    sv_trial_stats *r = malloc(trials * sizeof *r);
    CHECK_STATUS(spec_run(cfg, r), SV_OK);
    double mean, v, se_v;
    s2_spread(r, trials, &mean, &v, &se_v);
    sv_theory th;
    CHECK_STATUS(spec_theory(cfg, &th), SV_OK);
    char label[128];
    snprintf(label, sizeof label, "%s d=%zu %zux%zu ddof %u: mean of s2", sv_dist_name(dist), d, nq,
             nk, ddof);
    CHECK_SE(label, mean, th.var_expected, th.var_sd / sqrt((double)trials), 5.0);
    snprintf(label, sizeof label, "%s d=%zu %zux%zu ddof %u: variance of s2", sv_dist_name(dist), d,
             nq, nk, ddof);
    CHECK_SE(label, v, th.var_sd * th.var_sd, se_v, 5.0);
    free(r);
}

/* Mean over T trials of one per-trial statistic, and its SE: the sample SD
 * across trials / sqrt(T) (trials are independent). */
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

/* The causal mask: E[s^2] over the n (n + 1) / 2 visible scores, with the
 * pairs sharing a row or column counted for the triangle, exactly. */
static void test_exact_causal(void)
{
    const struct {
        size_t d, n;
        unsigned ddof;
        double mq, mk;
    } cases[] = {
        {2, 3, 0, 0.0, 0.0}, {2, 3, 1, 0.5, -1.0}, {1, 4, 0, 1.0, 0.5}, {3, 2, 0, -0.5, 2.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double mean, var, ss;
        enumerate_shifted(cases[c].d, cases[c].n, cases[c].n, cases[c].ddof, cases[c].mq, 1.0,
                          cases[c].mk, 1.0, 1, &mean, &var, &ss);
        sv_spec cfg = {.d_k = cases[c].d,
                       .n_q = cases[c].n,
                       .n_k = cases[c].n,
                       .trials = 1,
                       .dist = SV_DIST_RADEMACHER,
                       .ddof = cases[c].ddof,
                       .q_mean = cases[c].mq,
                       .k_mean = cases[c].mk,
                       .causal = 1};
        sv_theory t;
        CHECK_STATUS(spec_theory(cfg, &t), SV_OK);
        printf("causal d=%zu n=%zu means %g,%g: E[s2] %.15g (theory %.15g)\n", cases[c].d,
               cases[c].n, cases[c].mq, cases[c].mk, mean, t.var_expected);
        CHECK_CLOSE(t.var_expected, mean, 1e-12, 1e-14);
        /* The spread of s^2 over the triangle, zero means (section 8.3). */
        if (cases[c].mq == 0.0 && cases[c].mk == 0.0)
            CHECK_CLOSE(t.var_sd * t.var_sd, var, 1e-12, 1e-14);
        else
            CHECK_NAN(t.var_sd);
    }
}

/* QK-norm: Var(S) = R^4 / d for rows of norm R (section 8), and |S| <= R^2;
 * a planted key: E[S_ii] = rho E|q|^2, under either. */
static void test_qk_norm_and_plant(void)
{
    enum { T = 400 };
    static sv_trial_stats r[T];
    sv_spec cfg = {.d_k = 16,
                   .n_q = 24,
                   .n_k = 30,
                   .trials = T,
                   .seed = 5u,
                   .dist = SV_DIST_UNIFORM,
                   .qk_norm = 1,
                   .qk_radius = 3.0};
    sv_theory th;
    double mean, se;
    CHECK_STATUS(spec_run(cfg, r), SV_OK);
    CHECK_STATUS(spec_theory(cfg, &th), SV_OK);
    CHECK_EQ(th.var, 81.0 / 16.0);
    CHECK_NAN(th.var_sd); /* uniform rows: not on a sphere */
    mean_se(r, T, offsetof(sv_trial_stats, raw_var), &mean, &se);
    CHECK_SE("qk-norm R = 3, d = 16: mean of s2", mean, th.var_expected, se, 5.0);
    double maxabs = 0.0;
    for (size_t t = 0; t < T; t++)
        maxabs = fmax(maxabs, r[t].raw_max_abs_logit);
    CHECK_LE(maxabs, 9.0 * (1.0 + 1e-12));

    /* Normal rows under QK-norm are uniform on the sphere: the spread of s^2
     * has a closed form (section 8.4). Variance of s^2 over trials within
     * 5 SE (SE from the fourth central moment of s^2, as in
     * test_monte_carlo). Small d and n make every term count. */
    enum { T2 = 200000 };
    static sv_trial_stats rq[T2];
    const size_t shapes[][3] = {{3, 2, 3}, {8, 5, 4}, {2, 6, 6}};
    for (size_t s = 0; s < 3; s++) {
        cfg = (sv_spec){.d_k = shapes[s][0],
                        .n_q = shapes[s][1],
                        .n_k = shapes[s][2],
                        .trials = T2,
                        .seed = 11u,
                        .dist = SV_DIST_NORMAL,
                        .qk_norm = 1,
                        .qk_radius = 1.7};
        CHECK_STATUS(spec_run(cfg, rq), SV_OK);
        CHECK_STATUS(spec_theory(cfg, &th), SV_OK);
        double m, v, se_v;
        s2_spread(rq, T2, &m, &v, &se_v);
        char label[96];
        snprintf(label, sizeof label, "qk-norm normal d=%zu %zux%zu: variance of s2", shapes[s][0],
                 shapes[s][1], shapes[s][2]);
        CHECK_SE(label, v, th.var_sd * th.var_sd, se_v, 5.0);
        CHECK_SE("  and its mean", m, th.var_expected, sqrt(v / T2), 5.0);
    }

    cfg = (sv_spec){.d_k = 32,
                    .n_q = 20,
                    .n_k = 50,
                    .trials = T,
                    .seed = 6u,
                    .dist = SV_DIST_NORMAL,
                    .plant = 0.6,
                    .q_std = 1.5};
    CHECK_STATUS(spec_run(cfg, r), SV_OK);
    CHECK_STATUS(spec_theory(cfg, &th), SV_OK);
    CHECK_CLOSE(th.diag_logit, 0.6 * 32.0 * 2.25, 1e-15, 0.0);
    CHECK(isfinite(th.var_expected)); /* zero means: any q_std (section 8.5) */
    mean_se(r, T, offsetof(sv_trial_stats, raw_var), &mean, &se);
    CHECK_SE("plant 0.6, q_std 1.5, d = 32: mean of s2", mean, th.var_expected, se, 5.0);
    mean_se(r, T, offsetof(sv_trial_stats, raw_diag_logit), &mean, &se);
    CHECK_SE("plant 0.6, q_std 1.5, d = 32: planted logit", mean, th.diag_logit, se, 5.0);
    /* Under QK-norm the planted logit is rho R^2 on average only approximately
     * (the norms are fixed, the angle is not): checked in the CLI figures. */
    CHECK_GT(r[0].raw_diag_weight, r[0].scaled_diag_weight);

    /* Unit entries: E[s^2] of the mixture, with the (i, j), (j, i) pairs.
     * Small n and large d_k make every term visible. */
    cfg = (sv_spec){.d_k = 12,
                    .n_q = 4,
                    .n_k = 5,
                    .trials = T,
                    .seed = 7u,
                    .dist = SV_DIST_UNIFORM,
                    .plant = 0.8};
    static sv_trial_stats r2[4 * T];
    cfg.trials = 4 * T;
    CHECK_STATUS(spec_run(cfg, r2), SV_OK);
    CHECK_STATUS(spec_theory(cfg, &th), SV_OK);
    mean_se(r2, 4 * T, offsetof(sv_trial_stats, raw_var), &mean, &se);
    CHECK_SE("plant 0.8, uniform, d = 12, 4x5: mean of s2", mean, th.var_expected, se, 5.0);
}

/* Projections: E[s^2] for self-attention has the diagonal's tr(W_Q W_K^T)
 * and the (i, j), (j, i) pairs in it, and the (m4 - 3) term for
 * non-normal tokens; cross-attention has none of these. Small D, d_k and n
 * make every term visible; each trial draws its own W, so trials are
 * independent and the SE of the mean is the SD across trials / sqrt(T). */
static void test_projections(sv_dist dist, int cross, sv_init init)
{
    enum { T = 200000 };
    static sv_trial_stats r[T];
    sv_spec cfg = {.d_k = 2,
                   .n_q = 3,
                   .n_k = 3,
                   .trials = T,
                   .seed = 8u,
                   .dist = dist,
                   .d_model = 3,
                   .init = init,
                   .cross = cross};
    sv_theory th;
    double mean, se;
    CHECK_STATUS(spec_run(cfg, r), SV_OK);
    CHECK_STATUS(spec_theory(cfg, &th), SV_OK);
    char label[96];
    snprintf(label, sizeof label, "%s %s, init %d: mean of s2", cross ? "cross" : "self",
             sv_dist_name(dist), (int)init);
    mean_se(r, T, offsetof(sv_trial_stats, raw_var), &mean, &se);
    CHECK_SE(label, mean, th.var_expected, se, 5.0);
    snprintf(label, sizeof label, "%s %s: variance of Q's entries", cross ? "cross" : "self",
             sv_dist_name(dist));
    mean_se(r, T, offsetof(sv_trial_stats, q_var), &mean, &se);
    /* M = n_q d_k = 6 entries, uncorrelated on average over W, mean 0: the
     * ddof-0 sample variance expects (M - 1) / M of D w. */
    CHECK_CLOSE(th.q_var, 3.0 * sv_init_variance(init, 3, 2) * 5.0 / 6.0, 1e-15, 0.0);
    CHECK_SE(label, mean, th.q_var, se, 5.0);
    if (!cross) {
        mean_se(r, T, offsetof(sv_trial_stats, raw_diag_logit), &mean, &se);
        CHECK_SE("self: mean diagonal score (theory 0)", mean, 0.0, se, 5.0);
    }
}

/* sv_theory_plugin_spec: measured moments in, the normal theory of those
 * moments out. d_k = 4, mu_q 0.5, s_q^2 4, mu_k -1, s_k^2 1/4: E[s] =
 * 4 (0.5)(-1) = -2, Var(s) = 4 (4/4 + 4 (1) + 0.25 (1/4)) = 20.25. Then
 * through the engine: Q's entries alternate 1.5, -0.5 (mean 0.5, variance
 * 1 exactly), K's 3, -1 (mean 1, variance 4). */
static void test_plugin(void)
{
    sv_spec s = {.d_k = 4, .n_q = 3, .n_k = 3, .trials = 1, .d_model = 8, .plant = 0.0};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_trial_stats m;
    memset(&m, 0, sizeof m);
    m.q_mean = 0.5, m.q_var = 4.0, m.k_mean = -1.0, m.k_var = 0.25;
    sv_spec p;
    CHECK_STATUS(sv_theory_plugin_spec(&s, &m, &p), SV_OK);
    CHECK_EQ(p.dist, SV_DIST_NORMAL);
    CHECK_EQ(p.d_model, 0);
    CHECK_EQ(p.q_std, 2.0);
    CHECK_EQ(p.k_std, 0.5);
    CHECK_EQ(p.d_k, 4);
    CHECK_EQ(p.n_q, 3);
    CHECK_EQ(p.scale, s.scale);
    sv_theory t;
    CHECK_STATUS(sv_theory_spec(&p, &t), SV_OK);
    CHECK_CLOSE(t.mean, -2.0, 1e-15, 0.0);
    CHECK_CLOSE(t.var, 20.25, 1e-15, 0.0);
    /* not measured, negative, zero variance: refused, *out untouched */
    sv_spec keep = p;
    const double bad[][4] = {
        {NAN, 4.0, -1.0, 0.25}, {0.5, 4.0, -1.0, NAN}, {0.5, -1.0, 0, 1.0}, {0.5, 0.0, -1.0, 0.25}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m.q_mean = bad[i][0], m.q_var = bad[i][1], m.k_mean = bad[i][2], m.k_var = bad[i][3];
        CHECK_STATUS(sv_theory_plugin_spec(&s, &m, &p), SV_EINVAL);
        CHECK_MEM_EQ(&p, &keep, sizeof p);
    }
    CHECK_STATUS(sv_theory_plugin_spec(NULL, &m, &p), SV_EINVAL);
    CHECK_STATUS(sv_theory_plugin_spec(&s, NULL, &p), SV_EINVAL);
    CHECK_STATUS(sv_theory_plugin_spec(&s, &m, NULL), SV_EINVAL);
    /* the engine measures the moments of a caller's arrays */
    double q[2][4], k[2][4];
    for (int i = 0; i < 2; i++)
        for (int l = 0; l < 4; l++) {
            q[i][l] = (i + l) % 2 ? -0.5 : 1.5;
            k[i][l] = (i + l) % 2 ? -1.0 : 3.0;
        }
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {2, 4}, .strides = {32, 8}};
    arr.k = arr.q;
    arr.k.data = k;
    sv_source src;
    sv_spec e = {.d_k = 4, .n_q = 2, .n_k = 2, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&e), SV_OK);
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    CHECK_STATUS(sv_engine_run(&e, &src, &(sv_exec){.threads = 1}, NULL, 0, 1, &m), SV_OK);
    CHECK_STATUS(sv_theory_plugin_spec(&e, &m, &p), SV_OK);
    CHECK_CLOSE(p.q_mean, 0.5, 1e-15, 0.0);
    CHECK_CLOSE(p.q_std, 1.0, 1e-15, 0.0);
    CHECK_CLOSE(p.k_mean, 1.0, 1e-15, 0.0);
    CHECK_CLOSE(p.k_std, 2.0, 1e-15, 0.0);
    CHECK_STATUS(sv_theory_spec(&p, &t), SV_OK);
    CHECK_CLOSE(t.mean, 2.0, 1e-15, 0.0); /* 4 (0.5)(1) */
    CHECK_CLOSE(t.var, 4.0 * (4.0 + 1.0 + 0.25 * 4.0), 1e-15, 0.0);
}

/* sv_summary_head: a per-head row's summary is its one trial with the
 * plug-in theory; the pooled row keeps the pooled summary; unmeasured
 * moments give the spec itself and NAN theory. */
static void test_summary_head(void)
{
    sv_spec s = {.d_k = 4, .n_q = 3, .n_k = 3, .trials = 2};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_trial_stats m;
    memset(&m, 0, sizeof m);
    m.raw_var = 7.0, m.q_mean = 0.5, m.q_var = 4.0, m.k_mean = -1.0, m.k_var = 0.25;
    sv_spec plug;
    sv_summary one, pooled, out;
    CHECK_STATUS(sv_summary_head(&s, &m, NULL, &plug, &one), SV_OK);
    CHECK_EQ(one.mean.raw_var, 7.0);
    CHECK_EQ(one.scale, sv_spec_scale(&s));
    CHECK_NAN(one.observed);
    CHECK_EQ(plug.q_std, 2.0);
    CHECK_EQ(plug.k_std, 0.5);
    CHECK_CLOSE(one.raw_theory.var, 20.25, 1e-15, 0.0); /* test_plugin's moments */
    CHECK_CLOSE(one.scaled_theory.var, 20.25 * s.scale2, 1e-15, 0.0);
    memset(&pooled, 0, sizeof pooled);
    pooled.mean = m;
    pooled.raw.sd = 3.0;
    CHECK_STATUS(sv_summary_head(&s, &pooled.mean, &pooled, &plug, &out), SV_OK);
    CHECK_EQ(out.raw.sd, 3.0);
    CHECK_EQ(out.raw_theory.var, one.raw_theory.var);
    m.q_mean = NAN; /* not measured: no plug-in */
    CHECK_STATUS(sv_summary_head(&s, &m, NULL, &plug, &out), SV_OK);
    CHECK_MEM_EQ(&plug, &s, sizeof s);
    CHECK_NAN(out.raw_theory.var);
    CHECK_NAN(out.scaled_theory.mean);
    CHECK_STATUS(sv_summary_head(NULL, &m, NULL, &plug, &out), SV_EINVAL);
    CHECK_STATUS(sv_summary_head(&s, NULL, NULL, &plug, &out), SV_EINVAL);
    CHECK_STATUS(sv_summary_head(&s, &m, NULL, NULL, &out), SV_EINVAL);
    CHECK_STATUS(sv_summary_head(&s, &m, NULL, &plug, NULL), SV_EINVAL);
}

/* sv_per_head_values: each trial's non-text per-head columns as a row
 * view of sv_summary_head and the getters give them (bit for bit); text
 * columns left empty; masked: the theory columns NaN, measured ones kept. */
static void test_per_head_values(void)
{
    sv_spec s = {.d_k = 4, .n_q = 3, .n_k = 3, .trials = 2};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_trial_stats m[2];
    memset(m, 0, sizeof m);
    m[0].raw_var = 7.0, m[0].q_mean = 0.5, m[0].q_var = 4.0, m[0].k_mean = -1.0;
    m[0].k_var = 0.25, m[0].raw_entropy = 0.75;
    m[1] = m[0];
    m[1].raw_var = 3.0, m[1].q_mean = NAN; /* no plug-in: NAN theory */
    const size_t cols = sv_columns_count(SV_OUTPUT_PER_HEAD);
    sv_value *out = calloc(2 * cols, sizeof *out), *masked = calloc(2 * cols, sizeof *masked);
    CHECK(out && masked);
    CHECK_STATUS(sv_per_head_values(&s, m, 2, "0.5", 0, out), SV_OK);
    CHECK_STATUS(sv_per_head_values(&s, m, 2, "0.5", 1, masked), SV_OK);
    for (size_t t = 0; t < 2; t++) {
        sv_spec one;
        sv_summary summ;
        CHECK_STATUS(sv_summary_head(&s, &m[t], NULL, &one, &summ), SV_OK);
        const sv_row_view view = {
            .spec = &one, .scale_name = "0.5", .stats = &summ.mean, .summary = &summ};
        for (size_t c = 0; c < cols; c++) {
            const sv_column *col = sv_columns_get(SV_OUTPUT_PER_HEAD, c);
            const sv_value got = out[c * 2 + t], off = masked[c * 2 + t];
            if (col->type == SV_VALUE_TEXT) {
                CHECK(got.text == NULL && off.text == NULL);
                continue;
            }
            const sv_value want = col->get(&view);
            CHECK_MEM_EQ(&got.real, &want.real, sizeof want.real);
            CHECK_EQ(got.count, want.count);
            if (strcmp(col->name, "raw_var") == 0)
                CHECK_EQ(off.real, m[t].raw_var);
            if (strcmp(col->name, "raw_var_expected") == 0) {
                CHECK(t == 1 ? isnan(want.real) : !isnan(want.real));
                CHECK_NAN(off.real);
            }
        }
    }
    CHECK_STATUS(sv_per_head_values(NULL, m, 2, NULL, 0, out), SV_EINVAL);
    CHECK_STATUS(sv_per_head_values(&s, NULL, 2, NULL, 0, out), SV_EINVAL);
    CHECK_STATUS(sv_per_head_values(&s, m, 0, NULL, 0, out), SV_EINVAL);
    CHECK_STATUS(sv_per_head_values(&s, m, 2, NULL, 0, NULL), SV_EINVAL);
    free(out);
    free(masked);
}

/* sv_theory_normal_counts against values of Phi to 15 digits (mpmath, 40
 * digits: erfc), its symmetry, far tails and its refusals. */
static void test_normal_counts(void)
{
    const double e[4] = {-1.0, 0.0, 1.0, 2.5};
    double c[3];
    CHECK_STATUS(sv_theory_normal_counts(0.0, 1.0, 1000.0, e, 3, c), SV_OK);
    CHECK_CLOSE(c[0], 341.344746068542949, 1e-13, 0); /* Phi(0) - Phi(-1) */
    CHECK_CLOSE(c[1], 341.344746068542949, 1e-13, 0);
    CHECK_CLOSE(c[2], 152.445588605680916, 1e-13, 0); /* Phi(2.5) - Phi(1) */
    /* mean 3, variance 4: the same bins moved and widened */
    const double e2[2] = {1.0, 5.0};
    CHECK_STATUS(sv_theory_normal_counts(3.0, 4.0, 1.0, e2, 1, c), SV_OK);
    CHECK_CLOSE(c[0], 0.682689492137085897, 1e-14, 0);
    /* a far tail keeps its digits: P(10 <= X < 11) = 7.61966195820307621e-24 */
    const double far[2] = {10.0, 11.0}, mirror[2] = {-11.0, -10.0};
    CHECK_STATUS(sv_theory_normal_counts(0.0, 1.0, 1.0, far, 1, c), SV_OK);
    CHECK_CLOSE(c[0], 7.61966195820307621e-24, 1e-13, 0);
    CHECK_STATUS(sv_theory_normal_counts(0.0, 1.0, 1.0, mirror, 1, c + 1), SV_OK);
    CHECK_EQ(c[1], c[0]);
    /* bins across the whole line sum to the total */
    double edges[81], cnt[80], sum = 0.0;
    for (int i = 0; i <= 80; i++)
        edges[i] = -40.0 + i;
    CHECK_STATUS(sv_theory_normal_counts(0.5, 9.0, 12345.0, edges, 80, cnt), SV_OK);
    for (int i = 0; i < 80; i++)
        sum += cnt[i];
    CHECK_CLOSE(sum, 12345.0, 1e-13, 0);
    /* refused, out untouched */
    const double bad[3] = {0.0, 0.0, 1.0};
    c[0] = 42.0;
    CHECK_STATUS(sv_theory_normal_counts(0.0, 1.0, 1.0, bad, 2, c), SV_EINVAL);
    CHECK_STATUS(sv_theory_normal_counts(0.0, 0.0, 1.0, e, 3, c), SV_EINVAL);
    CHECK_STATUS(sv_theory_normal_counts(0.0, 1.0, -1.0, e, 3, c), SV_EINVAL);
    CHECK_STATUS(sv_theory_normal_counts(NAN, 1.0, 1.0, e, 3, c), SV_EINVAL);
    CHECK_STATUS(sv_theory_normal_counts(0.0, 1.0, 1.0, e, 0, c), SV_EINVAL);
    CHECK_STATUS(sv_theory_normal_counts(0.0, 1.0, 1.0, NULL, 3, c), SV_EINVAL);
    CHECK_EQ(c[0], 42.0);
}

int main(void)
{
    test_normal_counts();
    test_projections(SV_DIST_NORMAL, 0, SV_INIT_XAVIER);
    test_projections(SV_DIST_RADEMACHER, 0, SV_INIT_NORMAL);
    test_projections(SV_DIST_UNIFORM, 1, SV_INIT_LECUN);
    test_qk_norm_and_plant();
    test_exact_causal();
    test_exact_rademacher();
    test_algebra();
    test_known_values_and_errors();
    test_monte_carlo(SV_DIST_NORMAL, 2, 2, 2, 0, 400000);
    test_monte_carlo(SV_DIST_UNIFORM, 2, 2, 2, 0, 400000);
    test_monte_carlo(SV_DIST_NORMAL, 5, 3, 4, 1, 200000);
    test_monte_carlo(SV_DIST_UNIFORM, 16, 8, 8, 0, 50000);
    test_monte_carlo(SV_DIST_RADEMACHER, 8, 6, 5, 1, 100000);
    test_monte_carlo(SV_DIST_STUDENT_T, 3, 3, 3, 0, 300000); /* m4 = 3.375 */
    test_exact_shifted();
    test_plugin();
    test_summary_head();
    test_per_head_values();
    return CHECK_DONE();
}
