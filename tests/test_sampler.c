/* Samplers: raw moments E[x^k], k = 1..4, against theory within 5 standard
 * errors, Kolmogorov-Smirnov against the exact CDF, and stream independence.
 *
 * Tolerances: the average of x^k over n iid draws has standard error
 * sqrt((E[x^2k] - E[x^k]^2) / n), computed from the distribution's own
 * moments (normal: 1, 3, 15, 105 for k = 2, 4, 6, 8; uniform on
 * [-sqrt 3, sqrt 3]: 3^k / (2k + 1); rademacher: all even moments 1; t with
 * nu = 10 scaled to variance 1: 1, 4, 40, 1120). With
 * mean 0 and variance 1, E[x^3] is the skewness and E[x^4] - 3 the excess
 * kurtosis. 5 SE: a two-sided miss has probability 6e-7 for a correct
 * sampler; the seed is fixed, so the outcome is too. */
#include <stdlib.h>

#include "check.h"
#include "sdpa_var/sampler.h"

#define N_DRAWS 1000000u
#define N_KS 100000u

static double nu_t = 10.0; /* the t tested: E[x^8] is finite for nu > 8 */

static double even_moment(sv_dist d, int k) /* E[x^k], k even */
{
    switch (d) {
    case SV_DIST_STUDENT_T: { /* scaled t: (k-1)!! prod_{j<k/2} (nu-2)/(nu-2-2j) */
        double m = 1.0;
        for (int j = 1; j < k / 2 + 1; j++)
            m *= (2.0 * j - 1.0) * (nu_t - 2.0) / (nu_t - 2.0 * j);
        return m;
    }
    case SV_DIST_NORMAL: { /* (k - 1)!! */
        double m = 1.0;
        for (int j = k - 1; j > 1; j -= 2)
            m *= j;
        return m;
    }
    case SV_DIST_UNIFORM:
        return pow(3.0, k / 2) / (k + 1);
    case SV_DIST_RADEMACHER:
        return 1.0;
    }
    return NAN;
}

static double moment(sv_dist d, int k)
{
    return k % 2 ? 0.0 : even_moment(d, k);
}

static void test_moments(sv_dist dist)
{
    double *x = malloc(N_DRAWS * sizeof *x);
    sv_rng rng;
    sv_rng_seed(&rng, 2024u, (uint64_t)dist);
    sv_sample_fill(&rng, dist, nu_t, x, N_DRAWS);
    double sum[5] = {0};
    for (size_t i = 0; i < N_DRAWS; i++) {
        double p = 1.0;
        for (int k = 1; k <= 4; k++) {
            p *= x[i];
            sum[k] += p;
        }
    }
    static const char *names[5] = {"", "mean", "variance E[x^2]", "skewness E[x^3]",
                                   "kurtosis E[x^4]"};
    for (int k = 1; k <= 4; k++) {
        const double want = moment(dist, k);
        const double se = sqrt((moment(dist, 2 * k) - want * want) / N_DRAWS);
        char label[64];
        snprintf(label, sizeof label, "%s %s", sv_dist_name(dist), names[k]);
        if (se == 0.0) /* rademacher x^2 is always 1: exact */
            CHECK_CLOSE(sum[k] / N_DRAWS, want, 0.0, 0.0);
        else
            CHECK_SE(label, sum[k] / N_DRAWS, want, se, 5.0);
    }
    CHECK_CLOSE(sv_dist_fourth_moment(dist, nu_t), moment(dist, 4), 1e-15, 0.0);
    free(x);
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Kolmogorov's limiting tail P(sqrt(n) D > t) = 2 sum (-1)^(k-1) exp(-2 k^2 t^2). */
static double ks_pvalue(double t)
{
    double p = 0.0;
    for (int k = 1; k < 100; k++)
        p += 2.0 * (k % 2 ? 1.0 : -1.0) * exp(-2.0 * k * k * t * t);
    return p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
}

static double cdf(sv_dist dist, double x)
{
    if (dist == SV_DIST_NORMAL)
        return 0.5 * erfc(-x / sqrt(2.0));
    const double a = sqrt(3.0); /* uniform */
    return x <= -a ? 0.0 : x >= a ? 1.0 : (x + a) / (2.0 * a);
}

static void test_ks(sv_dist dist)
{
    double *x = malloc(N_KS * sizeof *x);
    sv_rng rng;
    sv_rng_seed(&rng, 7u, 11u);
    sv_sample_fill(&rng, dist, 0.0, x, N_KS);
    qsort(x, N_KS, sizeof *x, cmp);
    double dmax = 0.0;
    for (size_t i = 0; i < N_KS; i++) {
        const double f = cdf(dist, x[i]);
        const double lo = f - (double)i / N_KS, hi = (double)(i + 1) / N_KS - f;
        dmax = fmax(dmax, fmax(lo, hi));
    }
    const double t = sqrt((double)N_KS) * dmax;
    const double p = ks_pvalue(t);
    printf("KS %s: n = %u, D = %.5g, sqrt(n) D = %.4f, p = %.4g\n", sv_dist_name(dist), N_KS, dmax,
           t, p);
    /* Reject only below p = 1e-6 (t > 2.69): a sampler with variance 1.05
     * instead of 1 already gives t ~ 4 at this n. */
    CHECK_GT(p, 1e-6);
    free(x);
}

static void test_fill_details(void)
{
    /* Odd lengths: same stream, same prefix; the spare deviate is dropped. */
    double a[5], b[4];
    sv_rng r1, r2;
    sv_rng_seed(&r1, 1u, 2u);
    r2 = r1;
    sv_sample_fill(&r1, SV_DIST_NORMAL, 0.0, a, 5);
    sv_sample_fill(&r2, SV_DIST_NORMAL, 0.0, b, 4);
    CHECK_EQ(a[0], b[0]);
    CHECK_EQ(a[3], b[3]);
    double c[1000];
    sv_sample_fill(&r1, SV_DIST_RADEMACHER, 0.0, c, 1000);
    int pm1 = 1;
    for (int i = 0; i < 1000; i++)
        pm1 &= c[i] == 1.0 || c[i] == -1.0;
    CHECK(pm1);
    sv_sample_fill(&r1, SV_DIST_UNIFORM, 0.0, c, 1000);
    int inside = 1;
    for (int i = 0; i < 1000; i++)
        inside &= fabs(c[i]) <= sqrt(3.0);
    CHECK(inside);

    sv_dist d;
    if (CHECK_STATUS(sv_dist_from_name("uniform", &d), SV_OK)) {
        CHECK_EQ(d, SV_DIST_UNIFORM);
    }
    CHECK_STATUS(sv_dist_from_name("Normal", &d), SV_EINVAL);
    CHECK_EQ(d, SV_DIST_UNIFORM);
    CHECK_STATUS(sv_dist_from_name(NULL, &d), SV_EINVAL);
    CHECK_NAN(sv_dist_fourth_moment((sv_dist)9, 0.0));
}

/* Neighbouring row streams must look independent: the sample correlation
 * of n pairs has SE 1/sqrt(n) under independence. */
static void test_stream_independence(void)
{
    enum { N = 200000 };
    static double x[N], y[N];
    sv_rng r;
    sv_rng_seed_row(&r, 42u, 0u, SV_MATRIX_Q, 0u);
    sv_sample_fill(&r, SV_DIST_NORMAL, 0.0, x, N);
    sv_rng_seed_row(&r, 42u, 0u, SV_MATRIX_Q, 1u);
    sv_sample_fill(&r, SV_DIST_NORMAL, 0.0, y, N);
    double sxy = 0.0;
    for (int i = 0; i < N; i++)
        sxy += x[i] * y[i];
    CHECK_SE("correlation of rows 0 and 1", sxy / N, 0.0, 1.0 / sqrt((double)N), 5.0);
    sv_rng_seed_row(&r, 42u, 0u, SV_MATRIX_K, 0u);
    sv_sample_fill(&r, SV_DIST_NORMAL, 0.0, y, N);
    sxy = 0.0;
    for (int i = 0; i < N; i++)
        sxy += x[i] * y[i];
    CHECK_SE("correlation of Q row 0 and K row 0", sxy / N, 0.0, 1.0 / sqrt((double)N), 5.0);
}

/* The ziggurat's tail (|x| > R = 3.4426, its own code path) and the far
 * tail: counts against 2 (1 - Phi(t)), a binomial with SE sqrt(n p (1 - p)). */
static void test_normal_tails(void)
{
    enum { N = 1 << 22 };
    double *x = malloc(N * sizeof *x);
    sv_rng rng;
    sv_rng_seed(&rng, 11u, 12u);
    sv_sample_fill(&rng, SV_DIST_NORMAL, 0.0, x, N);
    const double cuts[3] = {1.0, 3.442619855899, 4.0};
    for (int c = 0; c < 3; c++) {
        size_t beyond = 0;
        for (size_t i = 0; i < N; i++)
            beyond += fabs(x[i]) > cuts[c];
        const double p = erfc(cuts[c] / sqrt(2.0));
        char label[64];
        snprintf(label, sizeof label, "normal P(|x| > %.4g) x n", cuts[c]);
        CHECK_SE(label, (double)beyond, p * N, sqrt(N * p * (1.0 - p)), 5.0);
    }
    free(x);
}

/* sv_sample_rows: the bits of seeding each row's keyed stream and calling
 * sv_sample_fill, for every law, a row offset and a padded stride; and its
 * errors. */
static void test_sample_rows(void)
{
    enum { M = 5, D = 3, LD = 4 };
    const uint64_t key = sv_rng_matrix_key(11u, 2u, SV_MATRIX_K);
    for (int dist = 0; dist < 4; dist++) {
        double x[M * LD], want[M * LD];
        for (size_t i = 0; i < M * LD; i++)
            x[i] = want[i] = -7.0; /* the padding stays */
        CHECK_STATUS(sv_sample_rows(key, 9u, M, D, (sv_dist)dist, 6.0, x, LD), SV_OK);
        for (size_t i = 0; i < M; i++) {
            sv_rng rng;
            sv_rng_seed_keyed(&rng, key, 9u + i);
            CHECK_STATUS(sv_sample_fill(&rng, (sv_dist)dist, 6.0, want + i * LD, D), SV_OK);
        }
        CHECK_MEM_EQ(x, want, sizeof x);
    }
    double x[2 * D] = {0};
    CHECK_STATUS(sv_sample_rows(key, 0u, 0, D, SV_DIST_NORMAL, 0.0, NULL, 0), SV_OK);
    CHECK_STATUS(sv_sample_rows(key, 0u, 2, 0, SV_DIST_NORMAL, 0.0, NULL, 0), SV_OK);
    CHECK_STATUS(sv_sample_rows(key, 0u, 2, D, SV_DIST_NORMAL, 0.0, NULL, D), SV_EINVAL);
    CHECK_STATUS(sv_sample_rows(key, 0u, 2, D, SV_DIST_NORMAL, 0.0, x, D - 1), SV_EINVAL);
    CHECK_STATUS(sv_sample_rows(key, 0u, 1, D, SV_DIST_NORMAL, 0.0, x, 0), SV_OK); /* one row */
    CHECK_STATUS(sv_sample_rows(key, 0u, 2, D, (sv_dist)4, 0.0, x, D), SV_EINVAL);
    CHECK_STATUS(sv_sample_rows(key, 0u, 2, D, SV_DIST_STUDENT_T, 2.0, x, D), SV_EINVAL);
    CHECK_STATUS(sv_sample_rows(key, 0u, 3, D, SV_DIST_NORMAL, 0.0, x, SIZE_MAX / 16), SV_ERANGE);
    CHECK_STATUS(sv_sample_rows(key, 0u, 1, SIZE_MAX / 4, SV_DIST_NORMAL, 0.0, x, 0), SV_ERANGE);
}

int main(void)
{
    test_normal_tails();
    test_moments(SV_DIST_NORMAL);
    test_moments(SV_DIST_UNIFORM);
    test_moments(SV_DIST_RADEMACHER);
    test_moments(SV_DIST_STUDENT_T); /* nu = 10: fourth moment 4 */
    CHECK_NAN(sv_dist_fourth_moment(SV_DIST_STUDENT_T, 4.0));
    CHECK_EQ(sv_dist_fourth_moment(SV_DIST_STUDENT_T, 6.0), 6.0);
    test_ks(SV_DIST_NORMAL);
    test_ks(SV_DIST_UNIFORM);
    test_fill_details();
    test_stream_independence();
    test_sample_rows();
    return CHECK_DONE();
}
