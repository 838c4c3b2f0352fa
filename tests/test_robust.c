/* Regression tests for the crashes and silent NaNs of issue 9 section 1:
 * each failed (UBSan, a crash, or a wrong status) before its fix. Run
 * under the asan preset to see the memory errors themselves. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reference.h"
#include "sdpa_var/sdpa_var.h"

/* A spec with its defaults unresolved: tests change fields, then run. */
static sv_spec config(size_t d, size_t nq, size_t nk, uint64_t trials)
{
    sv_spec c = {
        .d_k = d, .n_q = nq, .n_k = nk, .trials = trials, .seed = 9u, .dist = SV_DIST_NORMAL};
    return c;
}

/* @p c resolved, even where sv_spec_resolve fails (the engine's own checks
 * are what the tests below hold to account). */
static sv_spec resolved(sv_spec c)
{
    (void)sv_spec_resolve(&c);
    return c;
}

/* All trials of @p c on its random draws with @p exec. */
static sv_status run(sv_spec c, sv_exec exec, sv_trial_stats *out)
{
    sv_source src;
    c = resolved(c);
    sv_source_draw(&c, &src);
    return sv_engine_run(&c, &src, &exec, NULL, 0, c.trials, out);
}

/* sv_engine_bytes for all trials of @p c, one thread. */
static sv_status bytes_of(sv_spec c, size_t *bytes)
{
    sv_source src;
    const sv_exec exec = {.threads = 1};
    c = resolved(c);
    sv_source_draw(&c, &src);
    return sv_engine_bytes(&c, &src, &exec, NULL, c.trials, bytes);
}

/* sv_spec_check_field of @p c resolved. */
static sv_status check(sv_spec c, const char **field)
{
    c = resolved(c);
    return sv_spec_check_field(&c, field);
}

/* Packed short rows: rows x n around the 256-double chunk. With n = 1, 256
 * rows share one chunk; the per-row arrays held 128 (UBSan: index 128 out
 * of bounds in short_rows). Every row must match the same row alone. */
static void test_short_rows(void)
{
    const size_t rows[] = {1, 2, 127, 128, 129, 255, 256, 257, 300, 513};
    const size_t lens[] = {1, 2, 3, 7, 31, 32};
    enum { MAXR = 513, MAXN = 32 };
    static double s[MAXR * MAXN];
    static sv_softmax_acc acc[MAXR];
    static sv_moments mo[MAXR];
    sv_rng g;
    sv_rng_seed(&g, 1u, 2u);
    sv_sample_fill(&g, SV_DIST_NORMAL, 0.0, s, MAXR * MAXN);
    int same = 1;
    for (size_t a = 0; a < sizeof rows / sizeof rows[0]; a++)
        for (size_t b = 0; b < sizeof lens / sizeof lens[0]; b++) {
            const size_t m = rows[a], n = lens[b];
            sv_softmax_acc_rows(s, m, n, MAXN, 0.5, acc, mo);
            for (size_t r = 0; r < m; r++) {
                sv_softmax_acc one;
                sv_moments om;
                sv_softmax_acc_rows(s + r * MAXN, 1, n, MAXN, 0.5, &one, &om);
                /* Grouping rows into calls never changes a row's bits. */
                if (memcmp(&one, &acc[r], sizeof one) != 0 || memcmp(&om, &mo[r], sizeof om)) {
                    same = 0;
                    fprintf(stderr, "short rows: %zu x %zu, row %zu differs\n", m, n, r);
                }
            }
        }
    CHECK(same);
}

/* --block-rows near SIZE_MAX: block_rows + tm - 1 wrapped (division by
 * zero, or no rows processed and a NaN). Rows beyond n_q mean all rows in
 * one work item: the same bits as every other block size. */
static void test_block_rows(void)
{
    const size_t blocks[] = {SIZE_MAX, SIZE_MAX - 615, SIZE_MAX / 2 + 1, 1111, 1112, 100000};
    const sv_spec c = config(4, 1111, 1111, 1);
    sv_trial_stats want, got;
    CHECK_STATUS(run(c, (sv_exec){0}, &want), SV_OK);
    CHECK(!isnan(want.raw_var));
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        memset(&got, 0x5a, sizeof got);
        for (int t = 1; t <= 2; t++) {
            CHECK_STATUS(run(c, (sv_exec){.threads = t, .block_rows = blocks[i]}, &got), SV_OK);
            CHECK_MEM_EQ(&got, &want, sizeof got);
        }
    }
}

/* Tiny tiles of a trial with two tiles: n_q = 257 and n_k = 1 make a
 * 256 x 1 tile small enough for the grouped path of tiny trials, which
 * drew all 257 rows into a 256-row buffer (ASan: heap-buffer-overflow)
 * and left row 256 unscored. Found by test_shapes. */
static void test_tiny_tiles(void)
{
    const size_t shapes[][3] = {{1, 257, 1}, {2, 257, 1}, {1, 300, 2}, {1, 513, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const sv_spec s = resolved(config(shapes[i][0], shapes[i][1], shapes[i][2], 3));
        sv_trial_stats got[3], want;
        CHECK_STATUS(run(s, (sv_exec){.threads = 1}, got), SV_OK);
        for (uint64_t t = 0; t < 3; t++) {
            ref_trial(&s, t, &want);
            CHECK_EQ(ref_compare(&s, &got[t], &want, 1e-12, "tiny tiles"), 0);
        }
    }
}

/* The library checks sizes itself, whatever the CLI does first: check,
 * bytes and run agree, and the run fails cleanly (it segfaulted with
 * d_v = 2^53; a d_v above INT_MAX reached cblas cut to an int). */
static void test_sizes(void)
{
    const struct {
        size_t d, nq, nk, dv;
        int values;
        sv_status want;
    } bad[] = {
        {2, 256, 4096, (size_t)1 << 53, 1, SV_ERANGE}, /* n_k d_v bytes overflow */
        {2, 256, 4096, (size_t)INT_MAX + 1, 1, SV_ETOOBIG},
        /* d_v fits an int, but n_q x 2 d_v running outputs overflow. */
        {1, (size_t)1 << 40, 1, INT_MAX, 1, SV_ERANGE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sv_spec c = config(bad[i].d, bad[i].nq, bad[i].nk, 1);
        c.values = bad[i].values;
        c.d_v = bad[i].dv;
        size_t bytes = 7;
        sv_trial_stats r;
        CHECK_EQ(check(c, NULL), bad[i].want);
        CHECK_EQ(bytes_of(c, &bytes), bad[i].want);
        CHECK_EQ(bytes, 7);
        CHECK_EQ(run(c, (sv_exec){.threads = 1}, &r), bad[i].want);
    }
    /* INT_MAX columns of V are allowed where the work arrays fit. */
    sv_spec ok = config(2, 3, 4, 1);
    ok.values = 1;
    ok.d_v = INT_MAX;
    CHECK_STATUS(check(ok, NULL), SV_OK);
}

/* sv_spec_score_bound of @p c resolved. */
static double bound_of(sv_spec c)
{
    c = resolved(c);
    return sv_spec_score_bound(&c);
}

/* Values whose scores would overflow printed nan with exit 0: now
 * SV_EOVERFLOW from the check, and values at the edge of the bound run to
 * numbers (never NaN). */
static void test_overflow_bound(void)
{
    sv_spec c = config(4, 3, 3, 1);
    /* Normal draws are at most 14.4: B = 4 (14.4 + 14.4)^2. */
    CHECK_CLOSE(bound_of(c), 4.0 * 28.8 * 28.8, 1e-15, 0.0);
    CHECK_STATUS(check(c, NULL), SV_OK);
    struct {
        double q_mean, q_std, k_std, qk_radius, scale;
        int qk_norm;
        const char *blame;
    } const bad[] = {
        {1e308, 0, 0, 0, 0, 0, "q_mean"},    /* --q-mean 1e308 */
        {0, 0, 0, 1e308, 0, 1, "qk_radius"}, /* --qk-norm --qk-scale 1e308 */
        {0, 1e300, 0, 0, 0, 0, "q_std"},     {0, 0, 1e31, 0, 0, 0, "k_std"},
        {0, 0, 0, 0, 1e100, 0, "scale"}, /* scaled logits scale S overflow */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sv_spec b = c;
        b.q_mean = bad[i].q_mean;
        b.q_std = bad[i].q_std;
        b.k_std = bad[i].k_std;
        b.qk_radius = bad[i].qk_radius;
        b.scale = bad[i].scale;
        b.qk_norm = bad[i].qk_norm;
        sv_trial_stats r;
        size_t bytes;
        const char *field = NULL;
        CHECK_STATUS(check(b, &field), SV_EOVERFLOW);
        if (CHECK(field)) {
            CHECK_STR_EQ(field, bad[i].blame);
        }
        CHECK_STATUS(bytes_of(b, &bytes), SV_EOVERFLOW);
        CHECK_STATUS(run(b, (sv_exec){0}, &r), SV_EOVERFLOW);
    }
    /* A mean whose entries' deviations round away (--q-mean 1e25: the
     * measured variance was 0, the true one 2e50) is refused; a ratio of
     * exactly SV_MEAN_STD_MAX is not. */
    {
        sv_spec p = c;
        const char *field = NULL;
        p.q_mean = 1e25;
        CHECK_STATUS(check(p, &field), SV_EPRECISION);
        if (CHECK(field)) {
            CHECK_STR_EQ(field, "q_mean");
        }
        p.q_mean = 0.0;
        p.k_mean = -2e6;
        p.k_std = 1.9;
        CHECK_STATUS(check(p, &field), SV_EPRECISION);
        if (CHECK(field)) {
            CHECK_STR_EQ(field, "k_mean");
        }
        p.k_std = 2.0;
        CHECK_STATUS(check(p, NULL), SV_OK);
    }
    /* A scale whose square underflows to 0 is no scale at all. */
    c.scale = 1e-300;
    CHECK_STATUS(check(c, NULL), SV_EINVAL);
    c.scale = 0.0;
    CHECK_STR_EQ(sv_status_str(SV_EOVERFLOW), "value too large: scores would overflow");
    /* Just inside the bound: scores near 1e60, every statistic a number. */
    struct {
        size_t d;
        double q_mean, k_mean, qk_radius;
        int qk_norm;
        sv_dist dist;
    } const edge[] = {
        {1, 4.9e29, 4.9e29, 0, 0, SV_DIST_NORMAL},
        {64, 0, 0, 9.9e29, 1, SV_DIST_NORMAL},
        {2, -3e29, 3e29, 0, 0, SV_DIST_UNIFORM},
        {1, 4e26, 0, 0, 0, SV_DIST_STUDENT_T}, /* q_std 4e20: t draws reach 1e9 */
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        sv_spec e = config(edge[i].d, 300, 300, 2);
        e.q_mean = edge[i].q_mean;
        e.k_mean = edge[i].k_mean;
        e.qk_radius = edge[i].qk_radius;
        e.qk_norm = edge[i].qk_norm;
        /* The largest std that keeps |mean| / std within SV_MEAN_STD_MAX. */
        e.q_std = edge[i].q_mean != 0.0 ? fabs(edge[i].q_mean) / SV_MEAN_STD_MAX : 0.0;
        e.k_std = edge[i].k_mean != 0.0 ? fabs(edge[i].k_mean) / SV_MEAN_STD_MAX : 0.0;
        e.dist = edge[i].dist;
        e.nu = e.dist == SV_DIST_STUDENT_T ? 5.0 : 0.0; /* read for the t only */
        e.values = 1;
        sv_trial_stats r[2];
        CHECK_LE(bound_of(e), SV_SCORE_MAX);
        CHECK_STATUS(run(e, (sv_exec){0}, r), SV_OK);
        for (int t = 0; t < 2; t++)
            CHECK(isfinite(r[t].raw_var) && isfinite(r[t].raw_var_known_mean) &&
                  isfinite(r[t].raw_entropy) && isfinite(r[t].scaled_entropy) &&
                  isfinite(r[t].raw_jac_frob) && isfinite(r[t].raw_out_var));
    }
}

/* A NaN that is the true answer is no error: raw_var_known_mean has no
 * closed mean under QK-norm with nonzero means (sv_theory_mean NAN). */
static void test_nan_allowed(void)
{
    sv_spec c = config(4, 5, 5, 2);
    c.qk_norm = 1;
    c.q_mean = c.k_mean = 1.0;
    sv_trial_stats r[2];
    CHECK_STATUS(run(c, (sv_exec){0}, r), SV_OK);
    CHECK_NAN(r[0].raw_var_known_mean);
    CHECK(isfinite(r[0].raw_var));
}

/* Caller arrays are not bounded by the spec: scores of 1e400 overflow to
 * inf, the softmax's inf - inf is NaN, and the engine says so instead of
 * returning SV_OK with a NaN. */
static void test_nan_reported(void)
{
    double q[3 * 2], k[3 * 2];
    for (size_t i = 0; i < 6; i++) {
        q[i] = 1e200 * (i % 2 ? 1.0 : -1.0);
        k[i] = 1e200;
    }
    const sv_array a = {.dtype = SV_DTYPE_FLOAT64,
                        .ndim = 2,
                        .shape = {3, 2},
                        .strides = {2 * sizeof(double), sizeof(double)}};
    sv_strided arr = {.q = a, .k = a};
    arr.q.data = q;
    arr.k.data = k;
    sv_spec spec = {.d_k = 2, .n_q = 3, .n_k = 3, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&spec), SV_OK);
    sv_source src;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    const sv_exec exec = {.threads = 1};
    sv_trial_stats r;
    CHECK_STATUS(sv_engine_run(&spec, &src, &exec, NULL, 0, 1, &r), SV_EOVERFLOW);
    /* The same arrays at a sane size are fine. */
    for (size_t i = 0; i < 6; i++)
        q[i] = k[i] = 1.0 + (double)i;
    CHECK_STATUS(sv_engine_run(&spec, &src, &exec, NULL, 0, 1, &r), SV_OK);
}

int main(void)
{
    test_short_rows();
    test_block_rows();
    test_tiny_tiles();
    test_sizes();
    test_overflow_bound();
    test_nan_reported();
    test_nan_allowed();
    return CHECK_DONE();
}
