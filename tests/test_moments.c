/* Moments: NIST StRD NumAcc4 (certified mean and standard deviation),
 * merge order and chunking, and the variance edge cases. */
#include <stdlib.h>

#include "check.h"
#include "sdpa_var/moments.h"
#include "sdpa_var/summary.h"

/* NumAcc4: 10000000.2, then 500 pairs 10000000.1, 10000000.3 (1001 values).
 * Certified: mean 10000000.2, sample sd (ddof 1) 0.1, exact in decimal. */
static double numacc4[1001];

static void make_numacc4(void)
{
    numacc4[0] = 10000000.2;
    for (int i = 1; i < 1001; i += 2) {
        numacc4[i] = 10000000.1;
        numacc4[i + 1] = 10000000.3;
    }
}

/* Exact moments of the binary values the test actually holds, in long
 * double with the deviations from the mean: the yardstick for how much our
 * algorithm itself loses. */
static void exact_moments(const double *x, size_t n, long double *mean, long double *m2)
{
    long double s = 0.0L;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = s / n;
    long double q = 0.0L;
    for (size_t i = 0; i < n; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    *m2 = q;
}

static void test_numacc4(void)
{
    make_numacc4();
    long double emean, em2;
    exact_moments(numacc4, 1001, &emean, &em2);

    sv_moments m;
    sv_moments_of(numacc4, 1001, &m);
    CHECK_EQ(m.n, 1001);
    /* Certified decimal values: the data themselves differ from the decimal
     * ones by up to half an ulp of 1e7 (9.3e-10), i.e. up to ~1e-8 relative
     * on deviations of 0.1, so 1e-8 is as close as any algorithm can get. */
    CHECK_CLOSE(m.mean, 10000000.2, 1e-15, 0.0);
    CHECK_CLOSE(sqrt(sv_moments_variance(&m, 1)), 0.1, 1e-8, 0.0);
    /* Against the exact moments of the binary data: nothing lost. */
    CHECK_CLOSE(m.m2, (double)em2, 1e-13, 0.0);

    /* The same data in chunks of 1, 7 and 100, merged in order (Chan et al.).
     * NumAcc4's condition number (mean / sd = 1e8) makes every update round
     * at ~1e-9 absolute; chunks of 1 are Welford's algorithm, the worst case.
     * Measured: mean within 1e-14, M2 within 5e-11 relative; the naive
     * one-pass formula below misses by more than 1e-3. */
    const size_t chunks[] = {1, 7, 100, 1001};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        sv_moments acc = {0, 0.0, 0.0}, part;
        for (size_t i = 0; i < 1001; i += chunks[c]) {
            const size_t len = 1001 - i < chunks[c] ? 1001 - i : chunks[c];
            sv_moments_of(numacc4 + i, len, &part);
            sv_moments_merge(&acc, &part);
        }
        CHECK_EQ(acc.n, 1001);
        CHECK_CLOSE(acc.mean, (double)emean, 1e-13, 0.0);
        CHECK_CLOSE(acc.m2, (double)em2, 1e-9, 0.0);
    }

    /* What the naive one-pass formula (sum x^2 - n mean^2) gives here, to
     * show the test can fail: it loses every digit. */
    double s = 0.0, s2 = 0.0;
    for (int i = 0; i < 1001; i++) {
        s += numacc4[i];
        s2 += numacc4[i] * numacc4[i];
    }
    const double naive_m2 = s2 - s * s / 1001.0;
    CHECK_GT(fabs(naive_m2 - (double)em2), 1e-3 * (double)em2);
}

static void test_edges(void)
{
    sv_moments m;
    sv_moments_of(NULL, 0, &m);
    CHECK_EQ(m.n, 0);
    CHECK_EQ(m.mean, 0.0);
    CHECK_EQ(m.m2, 0.0);
    CHECK_NAN(sv_moments_variance(&m, 0));
    const double one = 5.0;
    sv_moments_of(&one, 1, &m);
    CHECK_EQ(m.mean, 5.0);
    CHECK_EQ(m.m2, 0.0);
    CHECK_EQ(sv_moments_variance(&m, 0), 0.0);
    CHECK_NAN(sv_moments_variance(&m, 1));
    /* numpy: np.var([1, 2, 3, 4]) = 1.25, ddof 1: 5/3. */
    const double x[4] = {1, 2, 3, 4};
    sv_moments_of(x, 4, &m);
    CHECK_EQ(sv_moments_variance(&m, 0), 1.25);
    CHECK_CLOSE(sv_moments_variance(&m, 1), 5.0 / 3.0, 1e-16, 0.0);
    /* Merging an empty sample changes nothing, either way round. */
    sv_moments empty = {0, 0.0, 0.0}, acc = empty;
    sv_moments_merge(&acc, &m);
    CHECK_EQ(acc.n, 4);
    CHECK_EQ(acc.mean, m.mean);
    CHECK_EQ(acc.m2, m.m2);
    sv_moments_merge(&acc, &empty);
    CHECK_EQ(acc.n, 4);
    CHECK_EQ(acc.mean, m.mean);
    CHECK_EQ(acc.m2, m.m2);
}

static void test_quantiles(void)
{
    /* numpy: np.quantile([1, 2, 3, 4, 10], [0.05, 0.5, 0.95])
     * = [1.2, 3.0, 8.8] (method 'linear'). */
    const double x[5] = {1, 2, 3, 4, 10};
    CHECK_CLOSE(sv_quantile_sorted(x, 5, 0.05), 1.2, 1e-15, 0.0);
    CHECK_EQ(sv_quantile_sorted(x, 5, 0.5), 3.0);
    CHECK_CLOSE(sv_quantile_sorted(x, 5, 0.95), 8.8, 1e-15, 0.0);
    CHECK_EQ(sv_quantile_sorted(x, 5, 0.0), 1.0);
    CHECK_EQ(sv_quantile_sorted(x, 5, 1.0), 10.0);
    CHECK_EQ(sv_quantile_sorted(x, 1, 0.95), 1.0);
    CHECK_NAN(sv_quantile_sorted(x, 0, 0.5));
}

int main(void)
{
    test_numacc4();
    test_edges();
    test_quantiles();
    return CHECK_DONE();
}
