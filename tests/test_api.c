/* The public API never traps (issue 14, section 3): every function declared
 * in include/sdpa_var/ (every .h) is called with zero, one and overflowing sizes
 * (SIZE_MAX, products that overflow size_t), NULL pointers where its
 * docstring excludes them, and non-finite values, and must return the error
 * (or the NAN) its docstring states, never divide by zero, abort or read
 * out of bounds. Division by zero and invalid operations trap here (glibc's
 * feenableexcept), so a 1 / 0 or 0 / 0 fails this test even where the
 * result would be discarded; ASan (the asan preset) catches the reads.
 * Known answers for the functions no other test names sit at the end. */
#define _GNU_SOURCE /* feenableexcept, glibc only */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* Division by zero and invalid operations raise SIGFPE from here on. */
static void traps_on(void)
{
    feclearexcept(FE_ALL_EXCEPT);
#ifdef __GLIBC__
    feenableexcept(FE_DIVBYZERO | FE_INVALID);
#endif
}

/* Off for NaN inputs: a comparison with a NaN raises FE_INVALID by IEEE 754
 * (the library's answer is what is checked, not the flag). */
static void traps_off(void)
{
#ifdef __GLIBC__
    fedisableexcept(FE_DIVBYZERO | FE_INVALID);
#endif
    feclearexcept(FE_ALL_EXCEPT);
}

static const size_t big = SIZE_MAX, half = SIZE_MAX / 2 + 1; /* half * 2 wraps to 0 */

static void softmax_sizes(void)
{
    double s[4] = {1.0, 2.0, 3.0, 0.5}, p[4] = {-1, -1, -1, -1};
    sv_softmax_acc acc[4], a0 = {.max = -7.0};
    sv_softmax_stats raw[2], sc[2];
    sv_moments mo[4];
    /* n = 0: the SIGFPE of issue 14 (SV_CHUNK / n) and reads of s[0]. */
    CHECK_STATUS(sv_softmax_acc_rows(s, 1, 0, 4, 0.5, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_rows(s, 0, 0, 4, 0.5, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_rows(s, 0, 3, 4, 0.5, NULL, NULL), SV_OK);
    CHECK_STATUS(sv_softmax_acc_rows(s, 2, 3, 2, 0.5, acc, mo), SV_EINVAL); /* ld < n */
    CHECK_STATUS(sv_softmax_acc_rows(NULL, 1, 3, 4, 0.5, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_rows(s, 1, 3, 4, 0.5, NULL, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_rows(s, 1, 3, 4, 0.0, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_rows(s, 1, 3, 4, INFINITY, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_rows(s, 1, 3, 4, -1.0, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_rows(s, big, 3, 4, 0.5, acc, mo), SV_ERANGE);
    CHECK_STATUS(sv_softmax_acc_rows(s, 3, big, big, 0.5, acc, mo), SV_ERANGE);
    CHECK_STATUS(sv_softmax_acc_rows(s, 3, 2, half / 8, 0.5, acc, mo), SV_ERANGE);
    acc[0] = a0;
    CHECK_STATUS(sv_softmax_acc_rows(s, 1, 0, 4, 0.5, acc, NULL), SV_EINVAL);
    CHECK_EQ(acc[0].max, -7.0);
    /* n = 1 and a full short chunk (256 rows of 1 key). */
    CHECK_STATUS(sv_softmax_acc_rows(s, 1, 1, 1, 0.5, acc, mo), SV_OK);
    CHECK_EQ(acc[0].max, 1.0);
    CHECK_EQ(acc[0].r[0], 0.0);
    CHECK_EQ(mo[0].n, 1);
    CHECK_EQ(mo[0].m2, 0.0);
    static double many[300];
    static sv_softmax_acc many_acc[300];
    for (size_t i = 0; i < 300; i++)
        many[i] = (double)i;
    CHECK_STATUS(sv_softmax_acc_rows(many, 300, 1, 1, 0.5, many_acc, NULL), SV_OK);
    CHECK_EQ(many_acc[299].max, 299.0);

    CHECK_STATUS(sv_softmax_acc_row(s, 0, 0.5, acc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_row(NULL, 3, 0.5, acc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_row(s, 3, 0.5, NULL), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_row(s, big, 0.5, acc), SV_ERANGE);
    CHECK_STATUS(sv_softmax_acc_row(s, 1, 0.5, acc), SV_OK);
    CHECK_EQ(acc[0].r[1], 0.0);
    CHECK_STATUS(sv_softmax_acc_row_moments(s, 0, 0.5, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_row_moments(s, big, 0.5, acc, mo), SV_ERANGE);
    CHECK_STATUS(sv_softmax_acc_row_moments(s, 4, NAN, acc, mo), SV_EINVAL);
    CHECK_STATUS(sv_softmax_row_stats(s, 0, 0.5, raw, sc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_row_stats(s, 3, 0.5, NULL, sc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_row_stats(s, 3, 0.5, raw, NULL), SV_EINVAL);
    CHECK_STATUS(sv_softmax_row_stats(s, big, 0.5, raw, sc), SV_ERANGE);
    CHECK_STATUS(sv_softmax_row_stats(s, 1, 0.5, raw, sc), SV_OK);
    CHECK_EQ(raw[0].entropy, 0.0);
    CHECK_EQ(sc[0].max_weight, 1.0);
    CHECK_EQ(raw[0].eff_keys, 1.0);

    CHECK_STATUS(sv_softmax(s, 0, 1.0, p), SV_EINVAL);
    CHECK_EQ(p[0], -1.0);
    CHECK_STATUS(sv_softmax(NULL, 3, 1.0, p), SV_EINVAL);
    CHECK_STATUS(sv_softmax(s, 3, 1.0, NULL), SV_EINVAL);
    CHECK_STATUS(sv_softmax(s, 3, 0.0, p), SV_EINVAL);
    CHECK_EQ(p[0], -1.0);
    CHECK_STATUS(sv_softmax(s, big, 1.0, p), SV_ERANGE);
    CHECK_STATUS(sv_softmax(s, 1, 1.0, p), SV_OK);
    CHECK_EQ(p[0], 1.0);

    CHECK_STATUS(sv_softmax_acc_row(s, 3, 0.5, &acc[0]), SV_OK);
    acc[1] = acc[0];
    CHECK_STATUS(sv_softmax_acc_merge(NULL, &acc[0], 0.5), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_merge(&acc[1], NULL, 0.5), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_merge(&acc[1], &acc[0], 0.0), SV_EINVAL);
    CHECK_EQ(acc[1].r[0], acc[0].r[0]);
    CHECK_STATUS(sv_softmax_acc_stats(NULL, 0.5, raw, sc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_stats(acc, 0.5, NULL, sc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_stats(acc, -0.5, raw, sc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_stats_rows(NULL, 0, 0.5, NULL, NULL), SV_OK);
    CHECK_STATUS(sv_softmax_acc_stats_rows(NULL, 1, 0.5, raw, sc), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_stats_rows(acc, 1, 0.5, raw, NULL), SV_EINVAL);
    CHECK_STATUS(sv_softmax_acc_stats_rows(acc, big, 0.5, raw, sc), SV_ERANGE);
    CHECK_STATUS(sv_softmax_acc_stats_rows(acc, 1, NAN, raw, sc), SV_EINVAL);
}

/* Rows with a NaN or an infinity: an error, never a read past the row (the
 * first-max search ran off the end when the max was a NaN). */
static void softmax_nonfinite(void)
{
    traps_off();
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; b++)
        for (size_t n = 1; n <= 40; n += 39) /* a short row and a long one */
            for (size_t at = 0; at<n; at += n - 1> 0 ? n - 1 : 1) {
                double *s = malloc(n * sizeof *s), p[40];
                for (size_t j = 0; j < n; j++)
                    s[j] = (double)j / 7.0;
                s[at] = bad[b];
                sv_softmax_acc acc;
                sv_moments mo;
                sv_softmax_stats raw, sc;
                CHECK_STATUS(sv_softmax_acc_rows(s, 1, n, n, 0.5, &acc, &mo), SV_ENONFINITE);
                CHECK_STATUS(sv_softmax_acc_row_moments(s, n, 0.5, &acc, &mo), SV_ENONFINITE);
                CHECK_STATUS(sv_softmax_row_stats(s, n, 0.5, &raw, &sc), SV_ENONFINITE);
                CHECK_STATUS(sv_softmax(s, n, 0.5, p), SV_ENONFINITE);
                free(s);
                if (n == 1)
                    break;
            }
    /* Finite values so far apart that s_max - s_j overflows. */
    const double wide[2] = {1.5e308, -1.5e308};
    sv_softmax_acc acc;
    CHECK_STATUS(sv_softmax_acc_row(wide, 2, 1.0, &acc), SV_ENONFINITE);
    CHECK_STATUS(sv_softmax_acc_rows(wide, 1, 2, 2, 1.0, &acc, NULL), SV_ENONFINITE);
    sv_moments m;
    const double x[2] = {NAN, 1.0};
    if (CHECK_STATUS(sv_moments_of(x, 2, &m), SV_OK)) {
        CHECK_NAN(m.mean);
    }
    sv_theory t = {0};
    CHECK_NAN(sv_theory_entropy_approx(&(sv_spec){.n_q = 16, .n_k = 16}, NAN));
    CHECK_NAN(sv_quantile_sorted(x + 1, 1, NAN));
    (void)t;
    traps_on();
}

static void moments_sampler_rng(void)
{
    sv_moments m = {5, 1.0, 2.0}, b = {UINT64_MAX, 0.0, 0.0};
    const double x[3] = {1.0, 2.0, 4.0};
    if (CHECK_STATUS(sv_moments_of(NULL, 0, &m), SV_OK)) {
        CHECK_EQ(m.n, 0);
        CHECK_EQ(m.mean, 0.0);
    }
    CHECK_STATUS(sv_moments_of(NULL, 2, &m), SV_EINVAL);
    CHECK_STATUS(sv_moments_of(x, 2, NULL), SV_EINVAL);
    CHECK_STATUS(sv_moments_of(x, big, &m), SV_ERANGE);
    CHECK_EQ(m.n, 0);
    if (CHECK_STATUS(sv_moments_of(x, 1, &m), SV_OK)) {
        CHECK_EQ(m.n, 1);
        CHECK_EQ(m.mean, 1.0);
        CHECK_EQ(m.m2, 0.0);
    }
    CHECK_STATUS(sv_moments_merge(&m, &b), SV_ERANGE);
    CHECK_EQ(m.n, 1); /* 1 + 2^64 - 1 wraps */
    CHECK_STATUS(sv_moments_merge(NULL, &b), SV_EINVAL);
    CHECK_STATUS(sv_moments_merge(&m, NULL), SV_EINVAL);
    sv_moments z = {0, 0.0, 0.0};
    if (CHECK_STATUS(sv_moments_merge(&z, &(sv_moments){0, 0.0, 0.0}), SV_OK)) {
        CHECK_EQ(z.n, 0);
    }
    CHECK_NAN(sv_moments_variance(NULL, 0));
    CHECK_NAN(sv_moments_variance(&z, 0));
    CHECK_NAN(sv_moments_variance(&m, 1));
    CHECK_EQ(sv_moments_variance(&m, 0), 0.0);

    sv_rng g, g0;
    sv_rng_seed(&g, 1, 2);
    g0 = g;
    double v[4] = {9, 9, 9, 9};
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_NORMAL, 0.0, v, 0), SV_OK);
    CHECK_STATUS(sv_sample_fill(NULL, SV_DIST_NORMAL, 0.0, v, 0), SV_OK);
    CHECK_STATUS(sv_sample_fill(NULL, SV_DIST_NORMAL, 0.0, v, 2), SV_EINVAL);
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_NORMAL, 0.0, NULL, 2), SV_EINVAL);
    CHECK_STATUS(sv_sample_fill(&g, (sv_dist)9, 0.0, v, 2), SV_EINVAL);
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_STUDENT_T, 2.0, v, 2), SV_EINVAL);
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_STUDENT_T, 0.1, v, 2), SV_EINVAL);
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_STUDENT_T, INFINITY, v, 2), SV_EINVAL);
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_STUDENT_T, NAN, v, 2), SV_EINVAL);
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_UNIFORM, 0.0, v, big), SV_ERANGE);
    CHECK_EQ(v[0], 9.0);
    CHECK_EQ(g.state, g0.state); /* untouched after the errors */
    CHECK_STATUS(sv_sample_fill(&g, SV_DIST_STUDENT_T, 2.5, v, 1), SV_OK);
    CHECK(isfinite(v[0]));
    CHECK_EQ(sv_rng_bounded(&g, 0), 0);
    CHECK_EQ(sv_rng_bounded(&g, 1), 0);
    const sv_rng g1 = g; /* 2^64 - 1 steps ahead, then 1: back where it was */
    sv_rng_advance(&g, UINT64_MAX);
    sv_rng_advance(&g, 1);
    CHECK_EQ(g.state, g1.state);
    CHECK_EQ(g.inc, g1.inc);
    sv_rng h;
    sv_rng_seed_row(&h, UINT64_MAX, UINT64_MAX, SV_MATRIX_V, UINT64_MAX);
    sv_rng_seed_keyed(&h, sv_rng_matrix_key(0, 0, SV_MATRIX_Q), 0);
    const double u = sv_rng_double(&h);
    CHECK_GE(u, 0.0);
    CHECK_LT(u, 1.0);

    sv_dist d = SV_DIST_UNIFORM;
    CHECK_STATUS(sv_dist_from_name(NULL, &d), SV_EINVAL);
    CHECK_STATUS(sv_dist_from_name("t", NULL), SV_EINVAL);
    CHECK_STATUS(sv_dist_from_name("", &d), SV_EINVAL);
    CHECK_EQ(d, SV_DIST_UNIFORM);
    CHECK_STR_EQ(sv_dist_name((sv_dist)-1), "?");
    CHECK_STR_EQ(sv_dist_name((sv_dist)4), "?");
    CHECK_NAN(sv_dist_fourth_moment(SV_DIST_STUDENT_T, 4.0));
    CHECK_NAN(sv_dist_fourth_moment(SV_DIST_STUDENT_T, INFINITY));
    CHECK_NAN(sv_dist_fourth_moment((sv_dist)7, 0.0));
    CHECK_STR_EQ(sv_status_str((sv_status)-1), "unknown status");
}

static void dklist_columns(void)
{
    size_t out[SV_DKLIST_MAX], count = 77;
    CHECK_STATUS(sv_dklist_parse(NULL, out, &count), SV_EINVAL);
    CHECK_STATUS(sv_dklist_parse("1", NULL, &count), SV_EINVAL);
    CHECK_STATUS(sv_dklist_parse("1", out, NULL), SV_EINVAL);
    CHECK_EQ(count, 77);
    CHECK_STATUS(sv_dklist_parse("", out, &count), SV_EINVAL);
    CHECK_STATUS(sv_dklist_parse("0", out, &count), SV_EINVAL);
    CHECK_STATUS(sv_dklist_parse("18446744073709551615", out, &count), SV_OK);
    CHECK_EQ(out[0], SIZE_MAX);
    CHECK_STATUS(sv_dklist_parse("18446744073709551616", out, &count), SV_ERANGE);
    if (CHECK_STATUS(sv_dklist_parse("1:18446744073709551615", out, &count), SV_OK)) {
        CHECK_EQ(count, 65);
        CHECK_EQ(out[64], SIZE_MAX);
    }

    CHECK_EQ(sv_columns_count((sv_output_kind)-1), 0);
    CHECK_EQ(sv_columns_count((sv_output_kind)SV_OUTPUT_KINDS), 0);
    CHECK_EQ(sv_columns_get((sv_output_kind)SV_OUTPUT_KINDS, 0), NULL);
    CHECK_EQ(sv_columns_get(SV_OUTPUT_SUMMARY, big), NULL);
    CHECK_EQ(sv_output_kind_name((sv_output_kind)SV_OUTPUT_KINDS), NULL);
    const sv_column *c0 = sv_columns_get(SV_OUTPUT_SUMMARY, 0);
    sv_spec spec = {.d_k = 2, .n_q = 2, .n_k = 2, .trials = 1};
    CHECK_EQ(sv_column_required(NULL, &spec, 0), 0);
    CHECK_EQ(sv_column_required(c0, NULL, 0), 0);
    CHECK_EQ(sv_columns_first_undefined(SV_OUTPUT_SUMMARY, NULL, 0), NULL);
    CHECK_EQ(sv_columns_first_undefined(SV_OUTPUT_SUMMARY, &(sv_row_view){0}, 0), NULL);
    CHECK_EQ(sv_columns_first_undefined((sv_output_kind)9, &(sv_row_view){.spec = &spec}, 0), NULL);
}

/* The spec, theory, summary and partial functions at sizes 0, 1, SIZE_MAX. */
static void spec_theory_summary(void)
{
    CHECK_NAN(sv_init_variance(SV_INIT_XAVIER, 0, 0)); /* 2 / 0 before */
    CHECK_NAN(sv_init_variance(SV_INIT_LECUN, 0, 4));  /* 1 / 0 before */
    CHECK_NAN(sv_init_variance((sv_init)5, 3, 4));
    CHECK_GT(sv_init_variance(SV_INIT_XAVIER, big, big), 0.0); /* no size_t wrap to 0 */
    CHECK_EQ(sv_init_variance(SV_INIT_LECUN, 1, 1), 1.0);
    CHECK_STATUS(sv_spec_resolve(NULL), SV_EINVAL);
    CHECK_STATUS(sv_spec_check(NULL), SV_EINVAL);
    CHECK_EQ(sv_spec_hash(NULL), 0u);
    CHECK_NAN(sv_spec_score_bound(NULL));
    CHECK_NAN(sv_spec_scale(NULL));
    CHECK_NAN(sv_spec_scale2(NULL));
    uint64_t n = 5;
    CHECK_STATUS(sv_spec_scores(NULL, &n), SV_EINVAL);
    CHECK_EQ(n, 5);
    sv_spec zero = {0};
    CHECK_STATUS(sv_spec_scores(&zero, NULL), SV_EINVAL);
    CHECK_STATUS(sv_spec_resolve(&zero), SV_EINVAL);
    if (CHECK_STATUS(sv_spec_scores(&zero, &n), SV_OK)) {
        CHECK_EQ(n, 0);
    }
    sv_spec wide = {.d_k = 1, .n_q = big, .n_k = big, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&wide), SV_ERANGE);
    CHECK_STATUS(sv_spec_scores(&wide, &n), SV_ERANGE);
    CHECK_EQ(n, 0);
    wide = (sv_spec){.d_k = 1, .n_q = big, .n_k = 1, .trials = 1, .causal = 1};
    CHECK_STATUS(sv_spec_scores(&wide, &n), SV_ERANGE);
    CHECK_EQ(n, 0); /* (n + 1) / 2 wrapped to 0 */
    /* Sliding windows (issue 23): causal i - W < j <= i, else |i - j| < W. */
    size_t klo = 7, khi = 7;
    sv_spec_row_keys(NULL, 3, &klo, &khi);
    CHECK(klo == 0 && khi == 0);
    sv_spec win = {.d_k = 1, .n_q = 6, .n_k = 6, .trials = 1, .causal = 1, .window = 2};
    sv_spec_row_keys(&win, 0, &klo, &khi);
    CHECK(klo == 0 && khi == 1);
    sv_spec_row_keys(&win, 4, &klo, &khi);
    CHECK(klo == 3 && khi == 5);
    CHECK(sv_spec_scores(&win, &n) == SV_OK && n == 11); /* 1 + 2 * 5 */
    win.causal = 0;
    win.n_q = 10; /* rows 7.. see no key of 6 */
    sv_spec_row_keys(&win, 4, &klo, &khi);
    CHECK(klo == 3 && khi == 6);
    sv_spec_row_keys(&win, 8, &klo, &khi);
    CHECK(klo >= khi);
    win.window = SIZE_MAX; /* i + W must not wrap */
    sv_spec_row_keys(&win, 4, &klo, &khi);
    CHECK(klo == 0 && khi == 6);
    wide = (sv_spec){.d_k = big, .n_q = 1, .n_k = 1, .trials = UINT64_MAX};
    CHECK_STATUS_NE(sv_spec_resolve(&wide), SV_OK);

    sv_theory t;
    memset(&t, 0x5a, sizeof t);
    const sv_theory t0 = t;
    CHECK_STATUS(sv_theory_raw(0, 1, 1, 0, SV_DIST_NORMAL, &t), SV_EINVAL);
    CHECK_STATUS(sv_theory_raw(1, 1, 1, 1, SV_DIST_NORMAL, &t), SV_EINVAL);
    CHECK_STATUS(sv_theory_raw(1, 1, 1, 0, (sv_dist)9, &t), SV_EINVAL);
    CHECK_STATUS(sv_theory_raw(1, 1, 1, 0, SV_DIST_NORMAL, NULL), SV_EINVAL);
    CHECK_MEM_EQ(&t, &t0, sizeof t);
    if (CHECK_STATUS(sv_theory_raw(1, 1, 1, 0, SV_DIST_NORMAL, &t), SV_OK)) {
        CHECK_EQ(t.var, 1.0);
        CHECK_EQ(t.var_sd, 0.0);
    }
    if (CHECK_STATUS(sv_theory_raw(big, big, big, 0, SV_DIST_RADEMACHER, &t), SV_OK)) {
        CHECK(isfinite(t.var));
    }
    sv_spec one = {.d_k = 1, .n_q = 1, .n_k = 1, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&one), SV_OK);
    CHECK_STATUS(sv_theory_spec(&one, NULL), SV_EINVAL);
    CHECK_STATUS(sv_theory_spec(NULL, &t), SV_EINVAL);
    CHECK_STATUS(sv_theory_spec(&one, &t), SV_OK);
    CHECK_STATUS(sv_theory_scale(NULL, &t), SV_EINVAL);
    CHECK_STATUS(sv_theory_scale(&one, NULL), SV_EINVAL);
    CHECK_STATUS(sv_theory_scale(&one, &t), SV_OK);
    CHECK_NAN(sv_theory_mean(NULL));
    CHECK_NAN(sv_theory_mean(&zero));
    CHECK_NAN(sv_theory_entropy_approx(NULL, 0.5));
    CHECK_NAN(sv_theory_entropy_approx(&zero, 0.5));
    double lo = 3, hi = 4;
    CHECK_STATUS(sv_theory_histogram_range(&one, NULL, &hi), SV_EINVAL);
    CHECK_EQ(hi, 4.0);
    CHECK_STATUS(sv_theory_histogram_range(NULL, &lo, &hi), SV_EINVAL);
    CHECK_EQ(lo, 3.0);
    if (CHECK_STATUS(sv_theory_histogram_range(&one, &lo, &hi), SV_OK)) {
        CHECK_LT(lo, hi);
    }

    const double x[2] = {1.0, 3.0};
    CHECK_NAN(sv_quantile_sorted(x, 0, 0.5));
    CHECK_NAN(sv_quantile_sorted(NULL, 2, 0.5));
    CHECK_NAN(sv_quantile_sorted(x, 2, -0.1));
    CHECK_NAN(sv_quantile_sorted(x, 2, 1e300));
    CHECK_EQ(sv_quantile_sorted(x, 1, 1.0), 1.0);
    CHECK_EQ(sv_quantile_sorted(x, 2, 1.0), 3.0);

    sv_partial *p = NULL;
    sv_trial_stats mean;
    CHECK_STATUS(sv_partial_create(0, 0, NULL), SV_EINVAL);
    CHECK_STATUS(sv_partial_create(UINT64_MAX, 2, &p), SV_ERANGE);
    CHECK(p == NULL);
    CHECK_EQ(sv_partial_count(NULL), 0);
    CHECK_EQ(sv_partial_first(NULL), 0);
    CHECK_STATUS(sv_partial_create(7, 0, &p), SV_OK);
    CHECK_EQ(sv_partial_first(p), 7);
    CHECK_EQ(sv_partial_count(p), 0);
    sv_partial_mean(p, &mean); /* n = 0: NAN, not 0 / 0 */
    CHECK_NAN(mean.raw_var);
    CHECK_NAN(mean.raw_entropy_min);
    sv_partial_mean(NULL, &mean);
    sv_partial_mean(p, NULL);
    CHECK_NAN(mean.scaled_sum_p2);
    CHECK_STATUS(sv_partial_add(p, NULL, 1), SV_EINVAL);
    CHECK_STATUS(sv_partial_add(NULL, &mean, 1), SV_EINVAL);
    if (CHECK_STATUS(sv_partial_add(p, NULL, 0), SV_OK)) {
        CHECK_STATUS_NE(sv_partial_add(p, &mean, big), SV_OK);
    }
    CHECK_STATUS(sv_partial_merge(p, NULL), SV_EINVAL);
    CHECK_STATUS(sv_partial_merge(NULL, p), SV_EINVAL);
    sv_partial_free(p);
    sv_partial_free(NULL);

    sv_summary s;
    sv_summary_acc *acc;
    CHECK_STATUS(sv_summary_begin(NULL, &acc), SV_EINVAL);
    CHECK_STATUS(sv_summary_begin(&one, NULL), SV_EINVAL);
    CHECK_STATUS(sv_summary_add(NULL, &mean, 1), SV_EINVAL);
    CHECK_STATUS(sv_summary_end(NULL, NAN, &s), SV_EINVAL);
    if (CHECK_STATUS(sv_summary_begin(&one, &acc), SV_OK)) {
        CHECK_STATUS(sv_summary_add(acc, &mean, 2), SV_EINVAL);
    }
    CHECK_STATUS(sv_summary_end(acc, NAN, &s), SV_EINVAL); /* no trials added; acc freed */
    CHECK_STATUS(sv_summary_compute(&one, NULL, NAN, &s), SV_EINVAL);
    CHECK_STATUS(sv_summary_compute(NULL, &mean, NAN, &s), SV_EINVAL);
    CHECK_STATUS(sv_summary_from_partial(&one, NULL, NAN, &s), SV_EINVAL);
}

/* The engine and the sources with sizes 1 and too large, NULL arguments. */
static void engine_sources(void)
{
    sv_spec one = {.d_k = 1, .n_q = 1, .n_k = 1, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&one), SV_OK);
    sv_source src;
    const sv_exec ex = {0};
    sv_trial_stats out;
    size_t bytes = 0;
    CHECK_STATUS(sv_source_draw(NULL, &src), SV_EINVAL);
    CHECK_STATUS(sv_source_draw(&one, NULL), SV_EINVAL);
    CHECK_STATUS(sv_source_draw(&one, &src), SV_OK);
    CHECK_STATUS(sv_engine_bytes(NULL, &src, &ex, NULL, 1, &bytes), SV_EINVAL);
    CHECK_STATUS(sv_engine_bytes(&one, &src, &ex, NULL, 1, NULL), SV_EINVAL);
    CHECK_STATUS(sv_engine_bytes(&one, NULL, &ex, NULL, 1, &bytes), SV_EINVAL);
    CHECK_STATUS(sv_engine_bytes(&one, &src, NULL, NULL, 1, &bytes), SV_EINVAL);
    if (CHECK_STATUS(sv_engine_bytes(&one, &src, &ex, NULL, 1, &bytes), SV_OK)) {
        CHECK_GT(bytes, 0);
    }
    CHECK_STATUS(sv_engine_run(&one, &src, &ex, NULL, 0, 0, &out), SV_EINVAL);
    CHECK_STATUS(sv_engine_run(&one, &src, &ex, NULL, 1, 1, &out), SV_EINVAL);
    CHECK_STATUS(sv_engine_run(&one, &src, &ex, NULL, UINT64_MAX, 2, &out), SV_EINVAL);
    CHECK_STATUS(sv_engine_run(&one, &src, &ex, NULL, 0, 1, NULL), SV_EINVAL);
    /* One query, one key, one dimension, one trial: ddof-1 variance NAN by
     * definition, every always-defined statistic a number. */
    if (CHECK_STATUS(sv_engine_run(&one, &src, &ex, NULL, 0, 1, &out), SV_OK)) {
        CHECK_EQ(out.raw_entropy, 0.0);
        CHECK_EQ(out.raw_max_weight, 1.0);
        CHECK_NAN(out.raw_var_ddof1);
        CHECK_EQ(out.raw_var, 0.0);
    }
    sv_spec huge = {.d_k = 1, .n_q = big, .n_k = 2, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&huge), SV_ERANGE);
    CHECK_STATUS(sv_engine_run(&huge, &src, &ex, NULL, 0, 1, &out), SV_ERANGE);
    const sv_taps bad_taps = {.hist_bins = 3, .hist_lo = 1.0, .hist_hi = 0.0};
    CHECK_STATUS(sv_taps_check(&bad_taps, &one), SV_EINVAL);
    CHECK_STATUS(sv_taps_check(NULL, &one), SV_OK);
    CHECK_STATUS(sv_taps_check(&(sv_taps){.hist_bins = 1, .hist_lo = 0, .hist_hi = 1}, NULL),
                 SV_EINVAL);

    const double q[1] = {1.0};
    sv_strided arr = {.q = {q, SV_DTYPE_FLOAT64, 0, 2, {1, 1}, {8, 8}},
                      .k = {q, SV_DTYPE_FLOAT64, 0, 2, {1, 1}, {8, 8}}};
    CHECK_STATUS(sv_source_strided(NULL, &src), SV_EINVAL);
    CHECK_STATUS(sv_source_strided(&arr, NULL), SV_EINVAL);
    arr.q.ndim = 5;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_EFORMAT);
    arr.q.ndim = 2;
    arr.k.data = NULL;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_EFORMAT);
    arr.k.data = q;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    if (CHECK_STATUS(src.check(&src, &one, 0, 1), SV_OK)) {
        CHECK_STATUS(src.check(&src, &one, 0, 2), SV_EMISMATCH);
    }
    CHECK_STATUS(src.check(&src, &one, UINT64_MAX, 2), SV_EMISMATCH);
    if (CHECK_STATUS(sv_engine_run(&one, &src, &ex, NULL, 0, 1, &out), SV_OK)) {
        CHECK_EQ(out.raw_mean, 1.0);
    }
}

/* A column of the summary by name; NULL (and a failed check) if absent. */
static const sv_column *column_named(const char *name)
{
    for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_SUMMARY); i++)
        if (strcmp(sv_columns_get(SV_OUTPUT_SUMMARY, i)->name, name) == 0)
            return sv_columns_get(SV_OUTPUT_SUMMARY, i);
    CHECK(!"summary column not found");
    return NULL;
}

/* Known answers for the seven functions no test named before issue 14. */
static void known_answers(void)
{
    /* sv_column_required: each need against a spec that has it and one
     * that does not. */
    sv_spec a = {.d_k = 4, .n_q = 1, .n_k = 1, .trials = 1};
    sv_spec b = {.d_k = 4, .n_q = 2, .n_k = 3, .trials = 2, .qk_norm = 1, .values = 1};
    CHECK_STATUS(sv_spec_resolve(&a), SV_OK);
    CHECK_STATUS(sv_spec_resolve(&b), SV_OK);
    const struct {
        const char *name;
        int want_a, want_b;
    } need[] = {{"raw_var", 1, 1},           {"raw_var_ddof1", 0, 1}, {"raw_var_sd", 0, 1},
                {"qk_norm_radius", 0, 1},    {"raw_out_var", 0, 1},   {"raw_var_theory", 0, 0},
                {"raw_var_known_mean", 1, 1}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        const sv_column *c = column_named(need[i].name);
        if (!c)
            continue;
        const int ga = sv_column_required(c, &a, 0), gb = sv_column_required(c, &b, 0);
        if (ga != need[i].want_a || gb != need[i].want_b)
            fprintf(stderr, "sv_column_required(%s): %d %d, want %d %d\n", need[i].name, ga, gb,
                    need[i].want_a, need[i].want_b);
        CHECK_EQ(ga, need[i].want_a);
        CHECK_EQ(gb, need[i].want_b);
    }
    const sv_column *obs = column_named("raw_var_cdf_observed");
    if (CHECK(obs)) {
        CHECK_EQ(sv_column_required(obs, &a, 0), 0);
        CHECK_EQ(sv_column_required(obs, &a, 1), 1);
    }

    /* sv_column_default: the core always, an option's columns with it, a
     * spread with two trials, the extra groups never; the group names. */
    const struct {
        const char *name;
        int want_a, want_b;
    } dflt[] = {{"raw_var", 1, 1},        {"raw_var_sd", 0, 1},  {"qk_norm_radius", 0, 1},
                {"raw_out_var", 0, 1},    {"raw_var_q05", 0, 0}, {"raw_mean_sd", 0, 0},
                {"raw_var_theory", 1, 1}, {"plant", 0, 0}};
    for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++) {
        const sv_column *c = column_named(dflt[i].name);
        CHECK(c && sv_column_default(c, &a, 0, 0) == dflt[i].want_a &&
              sv_column_default(c, &b, 0, 0) == dflt[i].want_b);
    }
    const sv_column *qv = column_named("q_var");
    CHECK(qv && !sv_column_default(qv, &a, 0, 0) && sv_column_default(qv, &a, 0, 1));
    CHECK(obs && !sv_column_default(obs, &a, 0, 0) && sv_column_default(obs, &a, 1, 0));
    CHECK(sv_column_default(NULL, &a, 0, 0) == 0 && sv_column_default(obs, NULL, 1, 0) == 0);
    const char *doc = NULL;
    CHECK(strcmp(sv_column_group_name(SV_GROUP_CORE, &doc), "core") == 0 && doc && *doc);
    CHECK(strcmp(sv_column_group_name(SV_GROUP_GRAD, NULL), "grad") == 0);
    CHECK(sv_column_group_name((sv_column_group)SV_COLUMN_GROUPS, NULL) == NULL);

    /* sv_spec_scale, sv_spec_scale2: the default 1 / sqrt(d_k) with 1 / d_k
     * rounded once; a given scale c with c^2. */
    sv_spec s64 = {.d_k = 64, .n_q = 2, .n_k = 2, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s64), SV_OK);
    CHECK_EQ(sv_spec_scale(&s64), 0.125);
    CHECK_EQ(sv_spec_scale2(&s64), 1.0 / 64.0);
    sv_spec s3 = {.d_k = 3, .n_q = 2, .n_k = 2, .trials = 1};
    if (CHECK_STATUS(sv_spec_resolve(&s3), SV_OK)) {
        CHECK_EQ(sv_spec_scale2(&s3), 1.0 / 3.0);
    }
    CHECK_EQ(sv_spec_scale(&s3), 1.0 / sqrt(3.0));
    sv_spec sc = {.d_k = 3, .n_q = 2, .n_k = 2, .trials = 1, .scale = 0.3};
    if (CHECK_STATUS(sv_spec_resolve(&sc), SV_OK)) {
        CHECK_EQ(sv_spec_scale(&sc), 0.3);
        CHECK_EQ(sv_spec_scale2(&sc), 0.3 * 0.3);
    }

    /* sv_spec_scores: n_q n_k; n (n + 1) / 2 causal, even and odd n. */
    uint64_t n = 0;
    if (CHECK_STATUS(sv_spec_scores(&b, &n), SV_OK)) {
        CHECK_EQ(n, 6);
    }
    sv_spec cz = {.d_k = 2, .n_q = 4, .n_k = 4, .trials = 1, .causal = 1};
    if (CHECK_STATUS(sv_spec_scores(&cz, &n), SV_OK)) {
        CHECK_EQ(n, 10);
    }
    cz.n_q = cz.n_k = 5;
    if (CHECK_STATUS(sv_spec_scores(&cz, &n), SV_OK)) {
        CHECK_EQ(n, 15);
    }
    cz.n_q = cz.n_k = (size_t)1 << 32; /* 2^31 (2^32 + 1) fits, (2^32)^2 does not */
    CHECK_STATUS(sv_spec_scores(&cz, &n), SV_ERANGE);
    cz.n_q = cz.n_k = (size_t)1 << 31;
    if (CHECK_STATUS(sv_spec_scores(&cz, &n), SV_OK)) {
        CHECK_EQ(n, ((size_t)1 << 30) * (((size_t)1 << 31) + 1));
    }

    /* sv_theory_entropy_approx: ln n_k - sigma^2 / 2 for n_k >= 16 and
     * sigma^2 <= 1; ln(n!) / n under the causal mask; NAN outside. */
    sv_spec e = {.d_k = 2, .n_q = 16, .n_k = 16, .trials = 1};
    CHECK_CLOSE(sv_theory_entropy_approx(&e, 0.5), log(16.0) - 0.25, 1e-15, 0);
    CHECK_NAN(sv_theory_entropy_approx(&e, 1.5));
    e.causal = 1;
    CHECK_CLOSE(sv_theory_entropy_approx(&e, 0.5), lgamma(17.0) / 16.0 - 0.25, 1e-15, 0);
    e.causal = 0;
    e.n_k = 15;
    CHECK_NAN(sv_theory_entropy_approx(&e, 0.5));

    /* sv_softmax_acc_row_moments: s = 1, 2, 3, 0.5 has max 3 (key 2), min
     * 0.5, r = e^-1 + e^-2 + e^-2.5, w = -(e^-1 + 2 e^-2 + 2.5 e^-2.5),
     * mean 1.625, M2 = 0.390625 + 0.140625 + 1.890625 + 1.265625 = 3.6875;
     * and the same sums as sv_softmax_acc_row, the same moments as
     * sv_moments_of. */
    const double s[4] = {1.0, 2.0, 3.0, 0.5};
    sv_softmax_acc acc, acc1;
    sv_moments mo, mo1;
    CHECK_STATUS(sv_softmax_acc_row_moments(s, 4, 0.5, &acc, &mo), SV_OK);
    CHECK_EQ(acc.max, 3.0);
    CHECK_EQ(acc.min, 0.5);
    CHECK_CLOSE(acc.r[0], exp(-1.0) + exp(-2.0) + exp(-2.5), 1e-15, 0);
    CHECK_CLOSE(acc.w[0], -(exp(-1.0) + 2 * exp(-2.0) + 2.5 * exp(-2.5)), 1e-15, 0);
    CHECK_CLOSE(acc.r[1], exp(-0.5) + exp(-1.0) + exp(-1.25), 1e-15, 0);
    CHECK_EQ(mo.n, 4);
    CHECK_EQ(mo.mean, 1.625);
    CHECK_CLOSE(mo.m2, 3.6875, 1e-15, 0);
    if (CHECK_STATUS(sv_softmax_acc_row(s, 4, 0.5, &acc1), SV_OK)) {
        CHECK_MEM_EQ(&acc, &acc1, sizeof acc);
    }
    if (CHECK_STATUS(sv_moments_of(s, 4, &mo1), SV_OK)) {
        CHECK_EQ(mo1.mean, mo.mean);
    }
    CHECK_CLOSE(mo1.m2, mo.m2, 1e-15, 0);
    CHECK_STATUS(sv_softmax_acc_row_moments(s, 4, 0.5, &acc1, NULL), SV_OK);

    /* sv_softmax_acc_stats_rows: a uniform row of 4 keys has entropy ln 4,
     * max weight 1/4, trace 3/4, 4 effective keys; over 300 rows (three
     * chunks of 128) each row's bits equal sv_softmax_acc_stats alone. */
    enum { R = 300 };
    static double rows[R * 4];
    static sv_softmax_acc ra[R];
    static sv_softmax_stats raw[R], scl[R];
    for (size_t i = 0; i < R * 4; i++)
        rows[i] = i < 4 ? 0.25 : sin((double)i);
    CHECK_STATUS(sv_softmax_acc_rows(rows, R, 4, 4, 0.5, ra, NULL), SV_OK);
    CHECK_STATUS(sv_softmax_acc_stats_rows(ra, R, 0.5, raw, scl), SV_OK);
    CHECK_CLOSE(raw[0].entropy, log(4.0), 1e-15, 0);
    CHECK_CLOSE(scl[0].max_weight, 0.25, 1e-15, 0);
    CHECK_CLOSE(raw[0].jac_trace, 0.75, 1e-15, 0);
    CHECK_CLOSE(scl[0].eff_keys, 4.0, 1e-14, 0);
    int same = 1;
    for (size_t i = 0; i < R; i++) {
        sv_softmax_stats r1, s1;
        CHECK(sv_softmax_acc_stats(&ra[i], 0.5, &r1, &s1) == SV_OK || (same = 0));
        same &= memcmp(&r1, &raw[i], sizeof r1) == 0 && memcmp(&s1, &scl[i], sizeof s1) == 0;
    }
    CHECK(same);
    sv_softmax_stats r2, s2;
    CHECK_STATUS(sv_softmax_row_stats(rows + 4 * 257, 4, 0.5, &r2, &s2), SV_OK);
    CHECK_MEM_EQ(&r2, &raw[257], sizeof r2);
}

int main(void)
{
    traps_on();
    softmax_sizes();
    softmax_nonfinite();
    moments_sampler_rng();
    dklist_columns();
    spec_theory_summary();
    engine_sources();
    known_answers();
    return CHECK_DONE();
}
