/* summary.h: chunked adds equal one call bit for bit across the
 * SV_SUMMARY_BLOCK boundaries, quantiles as numpy's 'linear' method, the
 * spread with ddof 1, extremes, the observed CDF, and every error the
 * header promises (a count beyond the trials left adds nothing). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

static sv_spec config(uint64_t trials)
{
    sv_spec c = {.d_k = 2, .n_q = 2, .n_k = 3, .trials = trials, .seed = 5u};
    (void)sv_spec_resolve(&c);
    return c;
}

/* T synthetic trials: every field a value of its own from one stream, so
 * that sums depend on the order they are added in (the bits would show a
 * different order), raw_var and scaled_var with ties. */
static sv_trial_stats *synthetic(size_t n)
{
    sv_trial_stats *t = malloc(n * sizeof *t);
    sv_rng g;
    sv_rng_seed(&g, 11u, 3u);
    for (size_t i = 0; i < n; i++) {
        double *f = (double *)&t[i];
        for (size_t k = 0; k < SV_TRIAL_FIELDS; k++)
            f[k] = sv_rng_double(&g) * 100.0 - 30.0;
        t[i].raw_var = (double)(sv_rng_next(&g) % 1000u) / 7.0;
        t[i].scaled_var = t[i].raw_var / 3.0;
    }
    return t;
}

/* A summary added in chunks of the given sizes (cycled until all trials
 * are in) equals one sv_summary_compute, bit for bit. */
static int chunked_equals_one(const sv_trial_stats *t, uint64_t n, const size_t *sizes,
                              size_t nsizes)
{
    const sv_spec c = config(n);
    sv_summary one, chunked;
    CHECK_STATUS(sv_summary_compute(&c, t, 40.0, &one), SV_OK);
    sv_summary_acc *acc;
    CHECK_STATUS(sv_summary_begin(&c, &acc), SV_OK);
    for (uint64_t done = 0, k = 0; done < n; k++) {
        size_t m = sizes[k % nsizes];
        m = m < n - done ? m : (size_t)(n - done);
        CHECK_STATUS(sv_summary_add(acc, t + done, m), SV_OK);
        done += m;
    }
    CHECK_STATUS(sv_summary_end(acc, 40.0, &chunked), SV_OK);
    return memcmp(&one, &chunked, sizeof one) == 0;
}

static void test_chunks(void)
{
    enum { B = SV_SUMMARY_BLOCK, N = 3 * B + 77 };
    sv_trial_stats *t = synthetic(N);
    const size_t ones[] = {1};
    const size_t edges[] = {B - 1, 1, B, B + 1, 2};
    const size_t odd[] = {3, 1000, 7, B * 2 + 5, 13};
    const size_t all[] = {N};
    CHECK(chunked_equals_one(t, N, ones, 1));
    CHECK(chunked_equals_one(t, N, edges, 5));
    CHECK(chunked_equals_one(t, N, odd, 5));
    CHECK(chunked_equals_one(t, N, all, 1));
    /* Exactly one block, and one trial short of and past it. */
    CHECK(chunked_equals_one(t, B, edges, 5));
    CHECK(chunked_equals_one(t, B - 1, odd, 5));
    CHECK(chunked_equals_one(t, B + 1, edges, 5));
    /* Zero-size adds change nothing. */
    const size_t zeros[] = {0, 5};
    CHECK(chunked_equals_one(t, 100, zeros, 2));
    free(t);
}

/* numpy 1.24.2: np.quantile(x, p, method='linear') and np.std(x, ddof=1):
 *   [3,1,4,1,5,9,2,6,5,3,5]: 1.0, 4.0, 7.5; sd 2.3664319132398464
 *   [2.5]: 2.5, 2.5, 2.5
 *   [1,2]: 1.05, 1.5, 1.95; sd 0.7071067811865476
 *   [10,-1,7,7,7,0.5,3]: -0.5499999999999999, 7.0, 9.099999999999998;
 *     sd 4.019298683198588
 * numpy interpolates as b - (b - a)(1 - t) for t >= 1/2, we as
 * a + t (b - a): the last bit may differ, hence 4e-16. */
static void test_quantiles(void)
{
    static const struct {
        double x[11];
        size_t n;
        double q05, q50, q95, sd;
    } known[] = {
        {{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}, 11, 1.0, 4.0, 7.5, 2.3664319132398464},
        {{2.5}, 1, 2.5, 2.5, 2.5, NAN},
        {{1, 2}, 2, 1.05, 1.5, 1.95, 0.7071067811865476},
        {{10, -1, 7, 7, 7, 0.5, 3},
         7,
         -0.5499999999999999,
         7.0,
         9.099999999999998,
         4.019298683198588},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const size_t n = known[i].n;
        sv_trial_stats t[11];
        memset(t, 0, sizeof t);
        for (size_t k = 0; k < n; k++) {
            t[k].raw_var = known[i].x[k];
            t[k].scaled_var = 2.0 * known[i].x[k];
        }
        const sv_spec c = config(n);
        sv_summary s;
        CHECK_STATUS(sv_summary_compute(&c, t, NAN, &s), SV_OK);
        CHECK_CLOSE(s.raw.q05, known[i].q05, 4e-16, 0.0);
        CHECK_CLOSE(s.raw.q50, known[i].q50, 4e-16, 0.0);
        CHECK_CLOSE(s.raw.q95, known[i].q95, 4e-16, 0.0);
        CHECK_CLOSE(s.scaled.q95, 2.0 * known[i].q95, 4e-16, 0.0);
        if (n > 1)
            CHECK_CLOSE(s.raw.sd, known[i].sd, 1e-15, 0.0);
        else
            CHECK_NAN(s.raw.sd);
        /* The sorted-array form gives the same. */
        double sorted[11];
        memcpy(sorted, known[i].x, n * sizeof sorted[0]);
        for (size_t a = 1; a < n; a++)
            for (size_t b = a; b > 0 && sorted[b - 1] > sorted[b]; b--) {
                const double tmp = sorted[b];
                sorted[b] = sorted[b - 1];
                sorted[b - 1] = tmp;
            }
        CHECK_EQ(sv_quantile_sorted(sorted, n, 0.05), s.raw.q05);
        CHECK_EQ(sv_quantile_sorted(sorted, n, 0.95), s.raw.q95);
        CHECK_EQ(sv_quantile_sorted(sorted, n, 0.0), sorted[0]);
        CHECK_EQ(sv_quantile_sorted(sorted, n, 1.0), sorted[n - 1]);
    }
    CHECK_NAN(sv_quantile_sorted(NULL, 0, 0.5));
}

/* Means, extremes over trials, and the observed CDF on known data. */
static void test_means_extremes(void)
{
    sv_trial_stats t[4];
    memset(t, 0, sizeof t);
    const double v[4] = {4.0, 1.0, 10.0, 2.0};
    for (int i = 0; i < 4; i++) {
        t[i].raw_var = v[i];
        t[i].raw_entropy = i;
        t[i].raw_entropy_min = 1.0 - i;
        t[i].raw_entropy_max = 2.0 * i;
        t[i].raw_max_abs_logit = v[i] * 3.0;
    }
    const sv_spec c = config(4);
    sv_summary s;
    CHECK_STATUS(sv_summary_compute(&c, t, 2.0, &s), SV_OK);
    CHECK_EQ(s.mean.raw_var, 4.25);
    CHECK_EQ(s.mean.raw_entropy, 1.5);
    /* Extremes, not means: the table and CSV call them min/max over trials. */
    CHECK_EQ(s.mean.raw_entropy_min, -2.0);
    CHECK_EQ(s.mean.raw_entropy_max, 6.0);
    CHECK_EQ(s.mean.raw_max_abs_logit, 30.0);
    CHECK_EQ(s.observed, 2.0);
    CHECK_EQ(s.raw_var_cdf_observed, 0.5); /* 1 and 2 are <= 2 */
    if (CHECK_STATUS(sv_summary_compute(&c, t, NAN, &s), SV_OK)) {
        CHECK_NAN(s.raw_var_cdf_observed);
    }
}

/* Errors: a count beyond the trials left is SV_EINVAL and adds nothing
 * (the summary then still equals one call); too few trials at the end;
 * NULL out frees; a bad config. */
static void test_errors(void)
{
    sv_trial_stats *t = synthetic(10);
    const sv_spec c = config(10);
    sv_summary one, s;
    CHECK_STATUS(sv_summary_compute(&c, t, NAN, &one), SV_OK);
    sv_summary_acc *acc;
    CHECK_STATUS(sv_summary_begin(&c, &acc), SV_OK);
    CHECK_STATUS(sv_summary_add(acc, t, 11), SV_EINVAL); /* more than all trials */
    CHECK_STATUS(sv_summary_add(acc, t, 6), SV_OK);
    CHECK_STATUS(sv_summary_add(acc, t + 6, 5), SV_EINVAL); /* 4 left */
    CHECK_STATUS(sv_summary_add(acc, t + 6, SIZE_MAX), SV_EINVAL);
    CHECK_STATUS(sv_summary_add(acc, t + 6, 4), SV_OK);
    CHECK_STATUS(sv_summary_add(acc, t, 1), SV_EINVAL); /* none left */
    CHECK_STATUS(sv_summary_end(acc, NAN, &s), SV_OK);
    CHECK_MEM_EQ(&one, &s, sizeof s);
    /* Too few trials: an error, and the arrays are freed (ASan). */
    CHECK_STATUS(sv_summary_begin(&c, &acc), SV_OK);
    CHECK_STATUS(sv_summary_add(acc, t, 9), SV_OK);
    CHECK_STATUS(sv_summary_end(acc, NAN, &s), SV_EINVAL);
    /* A caller that gives up passes out NULL to free. */
    CHECK_STATUS(sv_summary_begin(&c, &acc), SV_OK);
    CHECK_STATUS(sv_summary_add(acc, t, 3), SV_OK);
    CHECK_STATUS(sv_summary_end(acc, NAN, NULL), SV_EINVAL);
    CHECK_STATUS(sv_summary_add(NULL, t, 1), SV_EINVAL);
    sv_spec bad = config(10);
    bad.d_k = 0;
    CHECK_STATUS(sv_summary_begin(&bad, &acc), SV_EINVAL);
    CHECK_STATUS(sv_summary_compute(&bad, t, NAN, &s), SV_EINVAL);
    CHECK_STATUS(sv_summary_compute(&c, NULL, NAN, &s), SV_EINVAL);
    free(t);
}

/* sv_summary.sd: every field's spread across trials, Welford per block
 * merged by Chan et al., against a two-pass sum in long double (both
 * exact to ~1e-15 here: values of size 100, spread 30), and numpy's
 * np.std([3,1,4,1,5,9,2,6,5,3,5], ddof=1) = 2.3664319132398464. Bits
 * for every chunking: test_chunks compares whole summaries. */
static void test_sd(void)
{
    enum { N = 2 * SV_SUMMARY_BLOCK + 5 };
    sv_trial_stats *t = synthetic(N);
    sv_spec c = config(N);
    sv_summary s;
    CHECK_STATUS(sv_summary_compute(&c, t, NAN, &s), SV_OK);
    const double *sd = (const double *)&s.sd;
    for (size_t k = 0; k < SV_TRIAL_FIELDS; k++) {
        long double m = 0.0L, m2 = 0.0L;
        for (size_t i = 0; i < N; i++)
            m += ((const double *)&t[i])[k];
        m /= N;
        for (size_t i = 0; i < N; i++) {
            const long double d = ((const double *)&t[i])[k] - m;
            m2 += d * d;
        }
        const double want = (double)sqrtl(m2 / (N - 1));
        const size_t f = k * sizeof(double);
        if (f == offsetof(sv_trial_stats, raw_entropy_min) ||
            f == offsetof(sv_trial_stats, raw_entropy_max) ||
            f == offsetof(sv_trial_stats, scaled_entropy_min) ||
            f == offsetof(sv_trial_stats, scaled_entropy_max) ||
            f == offsetof(sv_trial_stats, raw_max_abs_logit) ||
            f == offsetof(sv_trial_stats, raw_max_logit))
            CHECK_NAN(sd[k]); /* extremes: no spread */
        else
            CHECK_CLOSE(sd[k], want, 1e-13, 0.0);
    }
    CHECK_CLOSE(s.sd.raw_var, s.raw.sd, 1e-13, 0.0); /* the quantiles' two-pass sd */
    static const double x[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
    for (size_t i = 0; i < 11; i++)
        t[i].raw_mean = x[i];
    c = config(11);
    CHECK_STATUS(sv_summary_compute(&c, t, NAN, &s), SV_OK);
    CHECK_CLOSE(s.sd.raw_mean, 2.3664319132398464, 4e-16, 0.0);
    c = config(1);
    if (CHECK_STATUS(sv_summary_compute(&c, t, NAN, &s), SV_OK)) {
        CHECK_NAN(s.sd.raw_mean);
    }
    free(t);
}

int main(void)
{
    test_chunks();
    test_sd();
    test_quantiles();
    test_means_extremes();
    test_errors();
    return CHECK_DONE();
}
