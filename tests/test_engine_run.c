/* sv_engine_run end to end on random draws: the numpy run of seed 001 (d_k = 111,
 * n = 1111), same bits for every block size and thread count, agreement
 * with a plain scalar path that holds the whole score matrix, stability at
 * d_k = 65536, summaries, and every error the header promises. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reference.h"
#include "sdpa_var/sdpa_var.h"

/* A spec with its defaults unresolved: tests change fields, then run. */
static sv_spec config(size_t d, size_t nq, size_t nk, uint64_t trials)
{
    sv_spec c = {
        .d_k = d, .n_q = nq, .n_k = nk, .trials = trials, .seed = 2021u, .dist = SV_DIST_NORMAL};
    return c;
}

/* Trials first .. first + count - 1 of @p c (resolved here) on its random
 * draws with @p exec and @p taps (NULL: none). */
static sv_status run_range(sv_spec c, sv_exec exec, const sv_taps *taps, uint64_t first,
                           uint64_t count, sv_trial_stats *out)
{
    sv_source src;
    sv_status st = sv_spec_resolve(&c);
    if (st == SV_OK)
        st = sv_source_draw(&c, &src);
    return st == SV_OK ? sv_engine_run(&c, &src, &exec, taps, first, count, out) : st;
}

/* All of @p c's trials. */
static sv_status run(sv_spec c, sv_exec exec, sv_trial_stats *out)
{
    return run_range(c, exec, NULL, 0, c.trials, out);
}

/* @p c resolved. */
static sv_spec resolved(sv_spec c)
{
    (void)sv_spec_resolve(&c);
    return c;
}

/* Seed 001's numpy answer: randn(1111, 111) @ randn(111, 1111) has variance
 * ~111 and ~1 after dividing by sqrt(111). Tolerance: 5 theoretical SDs of
 * the per-trial sample variance (sv_theory_raw), i.e. the spread one run has. */
static void test_seed001_experiment(void)
{
    const sv_spec c = config(111, 1111, 1111, 2);
    const sv_exec exec = {0};
    sv_trial_stats r[2];
    CHECK_STATUS(run(c, exec, r), SV_OK);
    sv_theory t;
    CHECK_STATUS(sv_theory_raw(111, 1111, 1111, 0, SV_DIST_NORMAL, &t), SV_OK);
    for (int i = 0; i < 2; i++) {
        CHECK_SE("seed 001 raw variance", r[i].raw_var, t.var_expected, t.var_sd, 5.0);
        CHECK_SE("seed 001 scaled variance", r[i].scaled_var, t.var_expected / 111.0,
                 t.var_sd / 111.0, 5.0);
        /* Mean of N scores: SE sqrt(d / N) (uncorrelated scores). */
        CHECK_SE("seed 001 raw mean", r[i].raw_mean, 0.0, sqrt(111.0 / (1111.0 * 1111.0)), 5.0);
        /* Scaled attention is far from one-hot, raw attention close to it. */
        CHECK_LT(r[i].scaled_max_weight, 0.2);
        CHECK_GT(r[i].raw_max_weight, 0.5);
        CHECK_GT(r[i].scaled_entropy, r[i].raw_entropy + 2.0);
    }
    CHECK_NE(memcmp(&r[0], &r[1], sizeof r[0]), 0); /* trials differ */
}

static void test_same_bits(void)
{
    /* n_q = 300 rows: tiles of 16.. rows, blocks that do and do not divide. */
    const size_t blocks[] = {0, 1, 7, 64, 300};
    const int threads[] = {1, 2, 3};
    sv_trial_stats ref[3], got[3];
    const sv_spec c = config(40, 300, 130, 3);
    sv_exec e = {.threads = 1};
    CHECK_STATUS(run(c, e, ref), SV_OK);
    int same = 1;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (size_t t = 0; t < 3; t++) {
            e.block_rows = blocks[b];
            e.threads = threads[t];
            CHECK_STATUS(run(c, e, got), SV_OK);
            if (memcmp(ref, got, sizeof ref) != 0) {
                same = 0;
                fprintf(stderr, "bits differ: block_rows %zu threads %d\n", blocks[b], threads[t]);
            }
        }
    CHECK(same);
    /* Many small trials run whole per thread: the same bits too. */
    sv_trial_stats a[500], b2[500];
    /* Different garbage in each, so a field never written cannot match. */
    memset(a, 0xab, sizeof a);
    memset(b2, 0xcd, sizeof b2);
    const sv_spec s = config(3, 2, 5, 500);
    CHECK_STATUS(run(s, (sv_exec){.threads = 1}, a), SV_OK);
    CHECK_STATUS(run(s, (sv_exec){.threads = 3, .block_rows = 1}, b2), SV_OK);
    CHECK_MEM_EQ(a, b2, sizeof a);
}

/* Against the plain scalar path (tests/reference.c: the full score
 * matrix from the same row streams, long double sums, textbook formulas):
 * every statistic to 1e-12. */
static void test_against_scalar(sv_dist dist, size_t d, size_t nq, size_t nk, unsigned ddof)
{
    sv_spec c = config(d, nq, nk, 2);
    c.dist = dist;
    c.ddof = ddof;
    sv_trial_stats got[2], want;
    CHECK_STATUS(run(c, (sv_exec){0}, got), SV_OK);
    const sv_spec s = resolved(c);
    for (uint64_t t = 0; t < 2; t++) {
        ref_trial(&s, t, &want);
        CHECK_EQ(ref_compare(&s, &got[t], &want, 1e-12, "test_against_scalar"), 0);
    }
}

/* --scale: none leaves the scaled columns equal to the raw ones; d_k
 * divides the variance by d_k^2 and pushes attention toward uniform. */
static void test_scales(void)
{
    sv_spec c = config(64, 40, 300, 2);
    const sv_exec exec = {0};
    sv_trial_stats r[2];
    c.scale = 1.0;
    CHECK_STATUS(run(c, exec, r), SV_OK);
    CHECK_EQ(r[0].scaled_var, r[0].raw_var);
    CHECK_EQ(r[0].scaled_entropy, r[0].raw_entropy);
    CHECK_EQ(r[0].scaled_jac_frob, r[0].raw_jac_frob);
    CHECK_EQ(r[1].scaled_max_weight, r[1].raw_max_weight);
    c.scale = 1.0 / 64.0;
    CHECK_STATUS(run(c, exec, r), SV_OK);
    CHECK_CLOSE(r[0].scaled_var, r[0].raw_var / 4096.0, 1e-15, 0.0);
    /* Logit variance 1/64: H ~ ln n_k - 1/128 (docs/theory.md section 8). */
    CHECK_CLOSE(r[0].scaled_entropy, log(300.0) - 1.0 / 128.0, 2e-3, 0.0);
    CHECK_GT(r[0].scaled_eff_keys, 0.99 * 300.0);
    CHECK_LT(r[0].scaled_max_weight, 2.0 / 300.0);
    /* Known mean, ddof 0 and ddof 1 from the same M2. */
    CHECK_CLOSE(r[0].raw_var_ddof1 * (12000.0 - 1.0), r[0].raw_var_ddof0 * 12000.0, 1e-14, 0.0);
    CHECK_LE(r[0].raw_entropy_min, r[0].raw_entropy);
    CHECK_LE(r[0].raw_entropy, r[0].raw_entropy_max);
    CHECK_GT(r[0].raw_max_abs_logit, 3.0 * 8.0); /* max of 12000 |N(0, 64)|: ~4 sd */
}

/* The causal mask: row i sees i + 1 keys, so row 0 has entropy 0 and
 * every row's entropy is at most ln(i + 1); per-row sums add up. Rows and
 * key blocks (5000 keys: two blocks) split the mask unevenly. */
static void test_causal(void)
{
    sv_spec c = config(8, 5000, 5000, 2);
    c.causal = 1;
    c.dist = SV_DIST_RADEMACHER;
    double *rows = calloc(5000 * SV_ROW_FIELDS, sizeof *rows);
    sv_trial_stats r[2];
    const sv_taps taps = {.row_sums = rows};
    CHECK_STATUS(run_range(c, (sv_exec){0}, &taps, 0, 2, r), SV_OK);
    CHECK_EQ(rows[0], 0.0);
    CHECK_EQ(rows[1], 0.0);
    CHECK_EQ(rows[2], 2.0);
    CHECK_EQ(rows[3], 2.0);
    int bounded = 1;
    double mean_h = 0.0;
    for (size_t i = 0; i < 5000; i++) {
        bounded &= rows[i * SV_ROW_FIELDS] / 2.0 <= log((double)i + 1.0) + 1e-12;
        bounded &= rows[i * SV_ROW_FIELDS + 1] / 2.0 <= log((double)i + 1.0) + 1e-12;
        mean_h += rows[i * SV_ROW_FIELDS] / 2.0;
    }
    CHECK(bounded);
    CHECK_CLOSE(mean_h / 5000.0, (r[0].raw_entropy + r[1].raw_entropy) / 2.0, 1e-12, 0.0);
    /* Same bits with other threads and blocks. */
    sv_trial_stats r2[2];
    CHECK_STATUS(run(c, (sv_exec){.threads = 1, .block_rows = 700}, r2), SV_OK);
    CHECK_MEM_EQ(r, r2, sizeof r);
    free(rows);
}

/* --values: O = softmax(S) V streamed over two key blocks against the
 * whole-row softmax and a plain product; the mean of O^2 to 1e-12. */
static void test_values(void)
{
    sv_spec c = config(4, 30, 5000, 1);
    c.values = 1;
    c.d_v = 3;
    c.causal = 0;
    sv_trial_stats r;
    CHECK_STATUS(run(c, (sv_exec){0}, &r), SV_OK);
    const size_t d = 4, nq = 30, nk = 5000, dv = 3;
    double *q = malloc(nq * d * sizeof *q), *k = malloc(nk * d * sizeof *k);
    double *v = malloc(nk * dv * sizeof *v), *s = malloc(nk * sizeof *s),
           *p = malloc(nk * sizeof *p);
    for (size_t i = 0; i < nq; i++) {
        sv_rng g;
        sv_rng_seed_row(&g, c.seed, 0, SV_MATRIX_Q, i);
        sv_sample_fill(&g, c.dist, 0.0, q + i * d, d);
    }
    for (size_t j = 0; j < nk; j++) {
        sv_rng g;
        sv_rng_seed_row(&g, c.seed, 0, SV_MATRIX_K, j);
        sv_sample_fill(&g, c.dist, 0.0, k + j * d, d);
        sv_rng_seed_row(&g, c.seed, 0, SV_MATRIX_V, j);
        sv_sample_fill(&g, c.dist, 0.0, v + j * dv, dv);
    }
    long double sum2[2] = {0.0L, 0.0L};
    for (size_t i = 0; i < nq; i++) {
        for (size_t j = 0; j < nk; j++) {
            long double dot = 0.0L;
            for (size_t l = 0; l < d; l++)
                dot += (long double)q[i * d + l] * k[j * d + l];
            s[j] = (double)dot;
        }
        for (int w = 0; w < 2; w++) {
            sv_softmax(s, nk, w ? 0.5 : 1.0, p); /* 1 / sqrt(4) */
            for (size_t l = 0; l < dv; l++) {
                long double o = 0.0L;
                for (size_t j = 0; j < nk; j++)
                    o += (long double)p[j] * v[j * dv + l];
                sum2[w] += o * o;
            }
        }
    }
    CHECK_CLOSE(r.raw_out_var, (double)(sum2[0] / (nq * dv)), 1e-12, 0.0);
    CHECK_CLOSE(r.scaled_out_var, (double)(sum2[1] / (nq * dv)), 1e-12, 0.0);
    free(q);
    free(k);
    free(v);
    free(s);
    free(p);

    /* E[O^2] = E[sum p^2]: over independent trials, within 5 SE of the
     * per-trial differences (same trial, so the difference is far less
     * noisy than either). */
    enum { T = 400 };
    static sv_trial_stats rs[T];
    sv_spec e = config(8, 20, 40, T);
    e.values = 1;
    CHECK_STATUS(run(e, (sv_exec){0}, rs), SV_OK);
    double sd = 0.0, sd2 = 0.0;
    for (int t = 0; t < T; t++) {
        const double x = rs[t].scaled_out_var - rs[t].scaled_sum_p2;
        sd += x;
        sd2 += x * x;
    }
    const double mean = sd / T, se = sqrt((sd2 / T - mean * mean) / (T - 1));
    CHECK_SE("E[O^2] - E[sum p^2], scaled", mean, 0.0, se, 5.0);
    CHECK_LT(se, 0.1 * rs[0].scaled_sum_p2); /* the test can see a 10 % error */
}

/* Trials in chunks (first_trial) give the same bits as one run, and a
 * summary built chunk by chunk equals the one-shot summary. */
static void test_chunks(void)
{
    enum { T = 1000 };
    static sv_trial_stats all[T], part[T];
    const sv_spec c = resolved(config(3, 4, 5, T));
    CHECK_STATUS(run(c, (sv_exec){0}, all), SV_OK);
    const uint64_t cuts[] = {0, 1, 100, 577, T};
    for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++)
        CHECK_STATUS(
            run_range(c, (sv_exec){0}, NULL, cuts[k], cuts[k + 1] - cuts[k], part + cuts[k]),
            SV_OK);
    CHECK_MEM_EQ(all, part, sizeof all);
    sv_summary one, chunked;
    CHECK_STATUS(sv_summary_compute(&c, all, 1.0, &one), SV_OK);
    sv_summary_acc *acc;
    CHECK_STATUS(sv_summary_begin(&c, &acc), SV_OK);
    sv_summary_add(acc, all, 10);
    sv_summary_add(acc, all + 10, T - 10);
    CHECK_STATUS(sv_summary_end(acc, 1.0, &chunked), SV_OK);
    CHECK_MEM_EQ(&one, &chunked, sizeof one);
    /* Many blocks (summed in parallel), added in uneven chunks. */
    enum { U = 5 * SV_SUMMARY_BLOCK + 123 };
    static sv_trial_stats many[U];
    const sv_spec u = resolved(config(2, 2, 3, U));
    CHECK_STATUS(run(u, (sv_exec){0}, many), SV_OK);
    CHECK_STATUS(sv_summary_compute(&u, many, 1.5, &one), SV_OK);
    const size_t cuts2[] = {0, 1, SV_SUMMARY_BLOCK - 1, SV_SUMMARY_BLOCK + 7, 3 * SV_SUMMARY_BLOCK,
                            U};
    CHECK_STATUS(sv_summary_begin(&u, &acc), SV_OK);
    for (size_t k = 0; k + 1 < sizeof cuts2 / sizeof cuts2[0]; k++)
        sv_summary_add(acc, many + cuts2[k], cuts2[k + 1] - cuts2[k]);
    CHECK_STATUS(sv_summary_end(acc, 1.5, &chunked), SV_OK);
    CHECK_MEM_EQ(&one, &chunked, sizeof one);
    /* Too few trials added: an error, and the arrays are freed (ASan). */
    CHECK_STATUS(sv_summary_begin(&c, &acc), SV_OK);
    sv_summary_add(acc, all, 5);
    CHECK_STATUS(sv_summary_end(acc, NAN, &chunked), SV_EINVAL);
}

static void test_large_dk(void)
{
    /* Raw scores with sd 256: a naive softmax would overflow exp. */
    sv_trial_stats r;
    CHECK_STATUS(run(config(65536, 6, 9, 1), (sv_exec){0}, &r), SV_OK);
    CHECK(isfinite(r.raw_entropy) && isfinite(r.raw_max_weight) && isfinite(r.raw_jac_trace));
    CHECK_GT(r.raw_max_weight, 0.99);
    CHECK_GE(r.raw_entropy, 0.0);
    CHECK_LT(r.raw_entropy, 0.05);
    CHECK_LT(r.scaled_max_weight, 0.9);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_summary(void)
{
    sv_spec c = resolved(config(2, 2, 2, 5));
    sv_trial_stats t[5];
    memset(t, 0, sizeof t);
    const double v[5] = {4.0, 1.0, 10.0, 2.0, 3.0};
    for (int i = 0; i < 5; i++) {
        t[i].raw_var = v[i];
        t[i].scaled_var = v[i] / 2.0;
        t[i].raw_entropy = i;
    }
    sv_summary s;
    CHECK_STATUS(sv_summary_compute(&c, t, 3.0, &s), SV_OK);
    CHECK_EQ(s.mean.raw_var, 4.0);
    CHECK_EQ(s.mean.raw_entropy, 2.0);
    /* numpy: np.std([4, 1, 10, 2, 3], ddof=1) = sqrt(12.5) */
    CHECK_CLOSE(s.raw.sd, sqrt(12.5), 1e-15, 0.0);
    CHECK_CLOSE(s.scaled.sd, sqrt(12.5) / 2.0, 1e-15, 0.0);
    CHECK_CLOSE(s.raw.q05, 1.2, 1e-15, 0.0);
    CHECK_EQ(s.raw.q50, 3.0);
    CHECK_CLOSE(s.raw.q95, 8.8, 1e-15, 0.0);
    CHECK_EQ(s.raw_var_cdf_observed, 0.6);
    CHECK_EQ(s.observed, 3.0);
    CHECK_EQ(s.raw_theory.var_expected, 1.5);
    CHECK_EQ(s.scaled_theory.var_expected, 0.75);
    CHECK_EQ(s.scaled_theory.var, 1.0);
    if (CHECK_STATUS(sv_summary_compute(&c, t, NAN, &s), SV_OK)) {
        CHECK_NAN(s.raw_var_cdf_observed);
    }
    c.trials = 1;
    if (CHECK_STATUS(sv_summary_compute(&c, t, NAN, &s), SV_OK)) {
        CHECK_NAN(s.raw.sd);
        CHECK_EQ(s.raw.q95, 4.0);
    }

    /* Quantiles by selection against a full sort, with many ties. */
    enum { T = 1001 };
    static sv_trial_stats many[T];
    static double sorted[T];
    for (int i = 0; i < T; i++) {
        many[i].raw_var = (double)((i * 7919) % 97) / 8.0;
        many[i].scaled_var = many[i].raw_var;
        sorted[i] = many[i].raw_var;
    }
    qsort(sorted, T, sizeof sorted[0], cmp_double);
    c.trials = T;
    CHECK_STATUS(sv_summary_compute(&c, many, NAN, &s), SV_OK);
    CHECK_EQ(s.raw.q05, sv_quantile_sorted(sorted, T, 0.05));
    CHECK_EQ(s.raw.q50, sv_quantile_sorted(sorted, T, 0.50));
    CHECK_EQ(s.raw.q95, sv_quantile_sorted(sorted, T, 0.95));
    CHECK_EQ(s.scaled.q95, s.raw.q95);
    /* Every small n, where the median's index sits next to the others. */
    int all_same = 1;
    for (int len = 1; len <= 60; len++) {
        for (int i = 0; i < len; i++) {
            many[i].raw_var = many[i].scaled_var = (double)((i * 37 + len) % 11);
            sorted[i] = many[i].raw_var;
        }
        qsort(sorted, (size_t)len, sizeof sorted[0], cmp_double);
        c.trials = (uint64_t)len;
        CHECK_STATUS(sv_summary_compute(&c, many, NAN, &s), SV_OK);
        all_same &= s.raw.q05 == sv_quantile_sorted(sorted, (size_t)len, 0.05) &&
                    s.raw.q50 == sv_quantile_sorted(sorted, (size_t)len, 0.50) &&
                    s.raw.q95 == sv_quantile_sorted(sorted, (size_t)len, 0.95);
    }
    CHECK(all_same);
}

/* sv_engine_bytes and sv_engine_run on a spec sv_spec_check rejects:
 * its status, and nothing written. */
static void check_refused(const sv_spec *b, sv_status want)
{
    sv_trial_stats sentinel, r;
    memset(&sentinel, 0x5a, sizeof sentinel);
    r = sentinel;
    const sv_exec exec = {0};
    sv_source src;
    size_t bytes = 123;
    sv_source_draw(b, &src); /* never fails; the engine checks the spec */
    CHECK_EQ(sv_engine_bytes(b, &src, &exec, NULL, 1, &bytes), want);
    CHECK_EQ(bytes, 123);
    CHECK_EQ(sv_engine_run(b, &src, &exec, NULL, 0, 1, &r), want);
    CHECK_MEM_EQ(&r, &sentinel, sizeof r);
}

static void test_errors(void)
{
    sv_spec c = resolved(config(4, 3, 3, 1));
    sv_source src;
    size_t bytes = 123;
    if (CHECK_STATUS(sv_spec_check(&c), SV_OK)) {
        CHECK_STATUS(sv_source_draw(&c, &src), SV_OK);
    }
    if (CHECK_STATUS(sv_engine_bytes(&c, &src, &(sv_exec){0}, NULL, 1, &bytes), SV_OK)) {
        CHECK_GE(bytes, (6 * 4 + 9) * sizeof(double));
    }
    const struct {
        size_t d, nq, nk;
        uint64_t trials;
        unsigned ddof;
        sv_status want;
        const char *field; /* what sv_spec_check_field blames */
    } bad[] = {
        {0, 3, 3, 1, 0, SV_EINVAL, "d_k"},
        {4, 0, 3, 1, 0, SV_EINVAL, "n_q"},
        {4, 3, 0, 1, 0, SV_EINVAL, "n_k"},
        {4, 3, 3, 0, 0, SV_EINVAL, "trials"},
        {4, 3, 3, 1, 9, SV_EINVAL, "ddof"},           /* ddof >= N */
        {4, SIZE_MAX / 2, 4, 1, 0, SV_ERANGE, "n_q"}, /* n_q n_k overflows */
        {SIZE_MAX / 4, 2, 2, 1, 0, SV_ERANGE, "n_q"}, /* (n_q + n_k) d_k overflows */
        {(size_t)1 << 31, 1, 1, 1, 0, SV_ETOOBIG, "d_k"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sv_spec b = config(bad[i].d, bad[i].nq, bad[i].nk, bad[i].trials);
        b.ddof = bad[i].ddof;
        CHECK_EQ(sv_spec_resolve(&b), bad[i].want);
        CHECK_EQ(sv_spec_check(&b), bad[i].want);
        const char *field = NULL;
        CHECK_EQ(sv_spec_check_field(&b, &field), bad[i].want);
        if (CHECK(field)) {
            CHECK_STR_EQ(field, bad[i].field);
        }
        check_refused(&b, bad[i].want);
    }
    c.dist = (sv_dist)5;
    CHECK_STATUS(sv_spec_check(&c), SV_EINVAL);
    c.dist = SV_DIST_NORMAL;
    CHECK_STATUS(sv_engine_bytes(&c, &src, &(sv_exec){.threads = -1}, NULL, 1, &bytes), SV_EINVAL);
    CHECK_STATUS(sv_spec_check(NULL), SV_EINVAL);
    /* A rule on two fields blames the option that asks for it. */
    const char *field = "unset";
    if (CHECK_STATUS(sv_spec_check_field(&c, &field), SV_OK)) {
        CHECK_EQ(field, NULL);
    }
    c.causal = 1;
    c.ddof = 7; /* n = 3 causal: 6 visible scores, not 9 */
    CHECK_STATUS(sv_spec_check_field(&c, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "ddof");
    c.ddof = 0;
    c.n_k = 4;
    CHECK_STATUS(sv_spec_check_field(&c, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "causal");
    c.causal = 0;
    c.n_k = 3;
    c.dist = SV_DIST_STUDENT_T;
    c.nu = 4.0;
    CHECK_STATUS(sv_spec_check_field(&c, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "nu");
    c.dist = SV_DIST_NORMAL;
    c.cross = 1;
    CHECK_STATUS(sv_spec_check_field(&c, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "cross");
    c.cross = 0;
    CHECK_STATUS(sv_spec_check_field(NULL, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "spec");
    CHECK_STATUS(sv_engine_run(&c, &src, &(sv_exec){0}, NULL, 0, 1, NULL), SV_EINVAL);
    CHECK_STR_EQ(sv_status_str(SV_ENOMEM), "out of memory");
    CHECK_STR_EQ(sv_status_str((sv_status)99), "unknown status");
}

int main(void)
{
    test_seed001_experiment();
    test_same_bits();
    test_against_scalar(SV_DIST_NORMAL, 64, 70, 50, 0);
    test_against_scalar(SV_DIST_UNIFORM, 5, 33, 17, 1);
    test_against_scalar(SV_DIST_RADEMACHER, 300, 20, 40, 0);
    /* Two tiles of queries and two key blocks (4096 + 904 keys): the
     * online merges across key blocks against the whole-row formulas. */
    test_against_scalar(SV_DIST_NORMAL, 12, 300, 5000, 0);
    /* Rows of 3 keys: the packed short-row kernel. */
    test_against_scalar(SV_DIST_NORMAL, 7, 9, 3, 1);
    test_large_dk();
    test_scales();
    test_causal();
    test_values();
    test_chunks();
    test_summary();
    test_errors();
    return CHECK_DONE();
}
