/* Partial results (partial.h): trials [0, a) and [a, n) run separately and
 * merged give one run's bits, for cuts on and off the block boundaries;
 * the summary of a merged partial equals the summary of one run; merges
 * out of order are refused. Also the spec's defaults, hash and checks. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../src/engine/partial_impl.h" /* white-box: the arrays */
#include "sdpa_var/sdpa_var.h"

/* Tiny trials (d_k 3, n 4): 9000 of them cross two block boundaries of
 * SV_SUMMARY_BLOCK = 4096 in well under a second. */
#define N_TRIALS 9000u

static sv_spec spec_of(uint64_t trials)
{
    sv_spec s = {.d_k = 3, .n_q = 4, .n_k = 4, .trials = trials, .seed = 7u, .values = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    return s;
}

/* Trials [first, first + count) of the spec through the engine, threads 2. */
static void run(const sv_spec *s, uint64_t first, uint64_t count, sv_trial_stats *out)
{
    sv_source src;
    const sv_exec exec = {.threads = 2};
    CHECK_STATUS(sv_source_draw(s, &src), SV_OK);
    CHECK_STATUS(sv_engine_run(s, &src, &exec, NULL, first, count, out), SV_OK);
}

static sv_partial *partial_of(const sv_trial_stats *t, uint64_t first, uint64_t count)
{
    sv_partial *p;
    CHECK_STATUS(sv_partial_create(first, count / 3, &p), SV_OK); /* grows */
    /* in uneven chunks: where a chunk ends must not show either */
    for (uint64_t i = 0; i < count;) {
        const uint64_t m = count - i < 1000u ? count - i : 1000u;
        CHECK_STATUS(sv_partial_add(p, t + i, (size_t)m), SV_OK);
        i += m;
    }
    return p;
}

static int same_bits(const sv_partial *a, const sv_partial *b)
{
    sv_trial_stats ma, mb;
    sv_partial_mean(a, &ma);
    sv_partial_mean(b, &mb);
    return a->first == b->first && a->n == b->n && memcmp(&ma, &mb, sizeof ma) == 0 &&
           memcmp(a->raw_var, b->raw_var, (size_t)a->n * sizeof(double)) == 0 &&
           memcmp(a->scaled_var, b->scaled_var, (size_t)a->n * sizeof(double)) == 0;
}

static void test_merge(void)
{
    const sv_spec s = spec_of(N_TRIALS);
    sv_trial_stats *all = malloc(N_TRIALS * sizeof *all), *cut = malloc(N_TRIALS * sizeof *cut);
    run(&s, 0, N_TRIALS, all);
    sv_partial *one = partial_of(all, 0, N_TRIALS);
    const uint64_t cuts[] = {1, 100, 4095, 4096, 4097, 5000, 8192, 8999};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        const uint64_t a = cuts[c];
        /* two engine runs, as two shards would do */
        run(&s, 0, a, cut);
        run(&s, a, N_TRIALS - a, cut + a);
        CHECK_MEM_EQ(cut, all, N_TRIALS * sizeof *all);
        sv_partial *pa = partial_of(cut, 0, a), *pb = partial_of(cut + a, a, N_TRIALS - a);
        CHECK_STATUS(sv_partial_merge(pb, pa), SV_EMISMATCH); /* b must follow a */
        CHECK_STATUS(sv_partial_merge(pa, pb), SV_OK);
        CHECK(same_bits(pa, one));
        if (!same_bits(pa, one))
            fprintf(stderr, "cut at %llu differs\n", (unsigned long long)a);
        sv_partial_free(pa);
        sv_partial_free(pb);
    }
    /* three shards, the middle one inside a block: its trials are kept one
     * by one until the merge brings the block's start */
    sv_partial *p1 = partial_of(all, 0, 4000), *p2 = partial_of(all + 4000, 4000, 50),
               *p3 = partial_of(all + 4050, 4050, N_TRIALS - 4050);
    CHECK_STATUS(sv_partial_merge(p2, p3), SV_OK); /* (p2 p3) first, then p1 before it */
    CHECK_STATUS(sv_partial_merge(p1, p2), SV_OK);
    CHECK(same_bits(p1, one));
    sv_partial_free(p1);
    sv_partial_free(p2);
    sv_partial_free(p3);
    sv_partial_free(one);
    free(all);
    free(cut);
}

/* The summary of a merged partial is the summary of one run. */
static void test_summary_from_partial(void)
{
    const uint64_t n = 5000;
    sv_spec cfg = {.d_k = 3, .n_q = 4, .n_k = 4, .trials = n, .seed = 7u, .values = 1};
    CHECK_STATUS(sv_spec_resolve(&cfg), SV_OK);
    sv_trial_stats *t = malloc(n * sizeof *t);
    run(&cfg, 0, n, t);
    sv_summary want, got;
    CHECK_STATUS(sv_summary_compute(&cfg, t, 0.5, &want), SV_OK);
    sv_partial *a = partial_of(t, 0, 4321), *b = partial_of(t + 4321, 4321, n - 4321);
    CHECK_STATUS(sv_partial_merge(a, b), SV_OK);
    CHECK_STATUS(sv_summary_from_partial(&cfg, a, 0.5, &got), SV_OK);
    CHECK_MEM_EQ(&got.mean, &want.mean, sizeof got.mean);
    CHECK_MEM_EQ(&got.raw, &want.raw, sizeof got.raw);
    CHECK_EQ(got.raw_var_cdf_observed, want.raw_var_cdf_observed);
    CHECK_STATUS(sv_summary_from_partial(&cfg, b, 0.5, &got), SV_EINVAL); /* not from trial 0 */
    /* Without the quantiles: the same means and SDs, quantiles NAN (a
     * fresh partial: the SD sums the arrays in their order, which the
     * quantiles of a summary change). */
    sv_summary lean;
    sv_partial *c = partial_of(t, 0, n);
    CHECK_STATUS(sv_summary_from_partial_want(&cfg, c, 0.5, 0u, &lean), SV_OK);
    CHECK_MEM_EQ(&lean.mean, &want.mean, sizeof lean.mean);
    CHECK_MEM_EQ(&lean.sd, &want.sd, sizeof lean.sd);
    CHECK_EQ(lean.raw.sd, want.raw.sd);
    CHECK_EQ(lean.scaled.sd, want.scaled.sd);
    CHECK(isnan(lean.raw.q05) && isnan(lean.raw.q50) && isnan(lean.scaled.q95));
    CHECK_STATUS(sv_summary_from_partial_want(&cfg, c, 0.5, SV_SUMMARY_QUANTILES, &lean), SV_OK);
    CHECK_MEM_EQ(&lean.raw, &want.raw, sizeof lean.raw);
    sv_partial_free(c);
    sv_summary_acc *acc;
    CHECK_STATUS(sv_summary_begin(&cfg, &acc), SV_OK);
    CHECK_STATUS(sv_summary_add(acc, t, (size_t)n), SV_OK);
    CHECK_STATUS(sv_summary_add(acc, t, 1), SV_EINVAL); /* more than the trials left */
    CHECK_STATUS(sv_summary_end(acc, 0.5, &got), SV_OK);
    CHECK_MEM_EQ(&got.mean, &want.mean, sizeof got.mean);
    sv_partial_free(a);
    sv_partial_free(b);
    free(t);
}

static void test_spec(void)
{
    sv_spec s = {.d_k = 64, .n_q = 5, .n_k = 6, .trials = 1, .qk_norm = 1, .values = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    CHECK_EQ(s.q_std, 1.0);
    CHECK_EQ(s.k_std, 1.0);
    CHECK_EQ(s.scale, 0.125);
    CHECK_EQ(s.scale2, 1.0 / 64.0);
    CHECK_EQ(s.qk_radius, 8.0);
    CHECK_EQ(s.d_v, 64);
    const uint64_t h = sv_spec_hash(&s);
    sv_spec again = s;
    if (CHECK_STATUS(sv_spec_resolve(&again), SV_OK)) { /* idempotent */
        CHECK_EQ(sv_spec_hash(&again), h);
    }
    again.seed = 1;
    CHECK_NE(sv_spec_hash(&again), h);
    /* d_k = 3: scale2 is 1 / 3 rounded once, not (1 / sqrt(3))^2, which
     * is an ulp above it */
    sv_spec t = {.d_k = 3, .n_q = 2, .n_k = 2, .trials = 1};
    if (CHECK_STATUS(sv_spec_resolve(&t), SV_OK)) {
        CHECK_EQ(t.scale2, 1.0 / 3.0);
    }
    const char *field = NULL;
    sv_spec bad = s;
    bad.d_v = (size_t)INT32_MAX + 1u;
    CHECK_STATUS(sv_spec_check_field(&bad, &field), SV_ETOOBIG);
    CHECK_STR_EQ(field, "d_v");
    bad = s;
    bad.q_std = 0.0; /* unresolved */
    CHECK_STATUS(sv_spec_check_field(&bad, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "q_std");
    bad = s;
    bad.causal = 1;
    CHECK_STATUS(sv_spec_check_field(&bad, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "causal");
    bad = s;
    bad.n_q = SIZE_MAX / 2;
    CHECK_STATUS(sv_spec_check_field(&bad, &field), SV_ERANGE);
    CHECK_STR_EQ(field, "n_q");
    if (CHECK_STATUS(sv_spec_check_field(&s, &field), SV_OK)) {
        CHECK_EQ(field, NULL);
    }
    /* the engine refuses trials past the spec's and a source for another spec */
    sv_source src;
    sv_trial_stats out;
    const sv_exec exec = {0};
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 1, 1, &out), SV_EINVAL);
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 0, &out), SV_EINVAL);
    CHECK_STATUS(sv_engine_run(&t, &src, &exec, NULL, 0, 1, &out), SV_EMISMATCH);
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &out), SV_OK);
    CHECK_STR_EQ(sv_status_str(SV_EMISMATCH), "data does not match the experiment's shape or "
                                              "trials");
    static_assert(SV_EFORMAT == 5 && SV_EMISMATCH == 6 && SV_ETOOBIG == 4, "pinned");
}

/* sv_partial_sd: the SD across trials (ddof 1) of a field, against a
 * two-pass sum in long double, and the same bits whether the trials came
 * in one partial or in two merged at a cut. */
static void test_sd(void)
{
    enum { T = 5000 };
    const sv_spec s = spec_of(T);
    sv_trial_stats *all = malloc(T * sizeof *all);
    run(&s, 0, T, all);
    long double m = 0.0L, m2 = 0.0L;
    for (size_t i = 0; i < T; i++)
        m += all[i].raw_var;
    m /= T;
    for (size_t i = 0; i < T; i++)
        m2 += (all[i].raw_var - m) * (all[i].raw_var - m);
    sv_partial *one = partial_of(all, 0, T), *a = partial_of(all, 0, 1234),
               *b = partial_of(all + 1234, 1234, T - 1234);
    CHECK_STATUS(sv_partial_merge(a, b), SV_OK);
    sv_trial_stats sd1, sd2;
    sv_partial_sd(one, &sd1);
    sv_partial_sd(a, &sd2);
    CHECK_CLOSE(sd1.raw_var, (double)sqrtl(m2 / (T - 1)), 1e-12, 0.0);
    CHECK_MEM_EQ(&sd1, &sd2, sizeof sd1);
    CHECK_NAN(sd1.raw_entropy_min);
    CHECK_NAN(sd1.raw_max_abs_logit); /* extremes */
    sv_partial *two = partial_of(all, 0, 1);
    sv_partial_sd(two, &sd1); /* one trial: no spread */
    CHECK_NAN(sd1.raw_var);
    sv_partial_free(one);
    sv_partial_free(a);
    sv_partial_free(b);
    sv_partial_free(two);
    free(all);
}

/* Without the SDs: the same sums, extremes and arrays, in any chunking
 * (blocks whole, a block in progress, a lead); every SD NAN. */
static void test_add_means(void)
{
    enum { T = 9000 };
    const sv_spec s = spec_of(T);
    sv_trial_stats *all = malloc(T * sizeof *all);
    run(&s, 0, T, all);
    const uint64_t firsts[] = {0, 100};
    for (size_t k = 0; k < 2; k++) {
        const uint64_t f = firsts[k];
        sv_partial *full = partial_of(all + f, f, T - f), *lean;
        CHECK_STATUS(sv_partial_create(f, 10, &lean), SV_OK);
        const size_t steps[] = {5000, 1, 4095, T};
        for (size_t i = f, j = 0; i < T; j++) {
            const size_t m = T - i < steps[j % 4] ? T - i : steps[j % 4];
            CHECK_STATUS(sv_partial_add_means(lean, all + i, m), SV_OK);
            i += m;
        }
        sv_trial_stats m1, m2, sd;
        sv_partial_mean(full, &m1);
        sv_partial_mean(lean, &m2);
        CHECK_MEM_EQ(&m1, &m2, sizeof m1);
        CHECK_MEM_EQ(lean->raw_var, full->raw_var, (T - f) * sizeof(double));
        CHECK_MEM_EQ(lean->scaled_var, full->scaled_var, (T - f) * sizeof(double));
        sv_partial_sd(lean, &sd);
        CHECK_NAN(sd.raw_var);
        CHECK_NAN(sd.scaled_entropy);
        sv_partial_free(full);
        sv_partial_free(lean);
    }
    CHECK_STATUS(sv_partial_add_means(NULL, all, 1), SV_EINVAL);
    free(all);
}

/* Trials that measured nothing (a caller's head whose every query row a
 * mask leaves without a key: raw_var NAN, every statistic over rows NAN,
 * the entries' and rows_empty defined) are left out of the means and SDs
 * of every field but those, and of the spread of raw_var; chunking and
 * merges still give the same bits. Here such trials are made from drawn
 * ones: scattered (one in the lead of a partial from trial 100) and a
 * whole block of them. On the old code every mean over rows was NAN. */
static void make_empty(sv_trial_stats *t)
{
    double *v = (double *)t;
    const double keep[5] = {t->q_var, t->k_var, t->q_mean, t->k_mean, 4.0};
    for (size_t f = 0; f < SV_TRIAL_FIELDS; f++)
        v[f] = NAN;
    t->q_var = keep[0], t->k_var = keep[1], t->q_mean = keep[2], t->k_mean = keep[3];
    t->rows_empty = keep[4]; /* n_q: every row */
}

/* Which trials a field's mean and SD keep: those that measured something
 * (raw_var defined), all, or those with an entropy_norm. */
enum { KEEP_MEASURED, KEEP_ALL, KEEP_NORM };

static int kept(const sv_trial_stats *t, int keep)
{
    return keep == KEEP_ALL || (keep == KEEP_MEASURED && !isnan(t->raw_var)) ||
           (keep == KEEP_NORM && !isnan(t->raw_entropy_norm) && !isnan(t->raw_var));
}

/* Long-double mean and SD (two-pass, ddof 1) of the field at byte offset
 * off over the trials of t[0 .. n) that keep keeps (NAN mean for none, NAN
 * SD for fewer than two). */
static void field_stats(const sv_trial_stats *t, size_t n, size_t off, int keep, double *mean,
                        double *sd)
{
    long double s = 0.0L, m2 = 0.0L;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (kept(&t[i], keep)) {
            s += *(const double *)((const char *)&t[i] + off);
            k++;
        }
    const long double m = k ? s / k : (long double)NAN;
    for (size_t i = 0; i < n; i++)
        if (kept(&t[i], keep)) {
            const long double d = *(const double *)((const char *)&t[i] + off) - m;
            m2 += d * d;
        }
    *mean = (double)m;
    *sd = k > 1 ? (double)sqrtl(m2 / (k - 1)) : NAN;
}

static void check_empty_partial(const sv_trial_stats *t, uint64_t first, size_t n)
{
    sv_partial *one = partial_of(t + first, first, n - first);
    sv_trial_stats mean, sd;
    sv_partial_mean(one, &mean);
    sv_partial_sd(one, &sd);
    const size_t row[] = {
        offsetof(sv_trial_stats, raw_mean),       offsetof(sv_trial_stats, raw_var),
        offsetof(sv_trial_stats, scaled_entropy), offsetof(sv_trial_stats, raw_max_weight),
        offsetof(sv_trial_stats, scaled_out_var), offsetof(sv_trial_stats, raw_sink_weight)};
    const size_t entry[] = {offsetof(sv_trial_stats, q_var), offsetof(sv_trial_stats, k_mean),
                            offsetof(sv_trial_stats, rows_empty)};
    const size_t norm[] = {offsetof(sv_trial_stats, raw_entropy_norm),
                           offsetof(sv_trial_stats, scaled_entropy_norm)};
    for (size_t k = 0; k < 11; k++) {
        const size_t off = k < 6 ? row[k] : k < 9 ? entry[k - 6] : norm[k - 9];
        const int keep = k < 6 ? KEEP_MEASURED : k < 9 ? KEEP_ALL : KEEP_NORM;
        double m, d, got[2];
        field_stats(t + first, n - first, off, keep, &m, &d);
        memcpy(&got[0], (const char *)&mean + off, sizeof(double));
        memcpy(&got[1], (const char *)&sd + off, sizeof(double));
        /* sums of a few thousand doubles in another order: within 1e-12 */
        if (isnan(m) || isnan(d)) { /* no trial, or one, has the field */
            CHECK(isnan(m) == isnan(got[0]) && isnan(d) && isnan(got[1]));
            if (!isnan(m))
                CHECK_CLOSE(got[0], m, 1e-12, 1e-15);
            continue;
        }
        CHECK_CLOSE(got[0], m, 1e-12, 1e-15);
        CHECK_CLOSE(got[1], d, 1e-9, 1e-15);
    }
    double lo = INFINITY;
    for (size_t i = first; i < n; i++)
        lo = isnan(t[i].raw_entropy_min) ? lo : fmin(lo, t[i].raw_entropy_min);
    CHECK_EQ(mean.raw_entropy_min, lo);
    /* cut anywhere, added a trial at a time near the cut, merged: the same bits */
    const uint64_t cuts[] = {first + 1, 4095, 4097, 5000, 8192, 8998};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        const uint64_t a = cuts[c];
        sv_partial *pa = partial_of(t + first, first, a - first), *pb;
        CHECK_STATUS(sv_partial_create(a, 1, &pb), SV_OK);
        for (uint64_t i = a; i < n; i += i < a + 8 ? 1 : n - i)
            CHECK_STATUS(sv_partial_add(pb, t + i, i < a + 8 ? 1 : (size_t)(n - i)), SV_OK);
        CHECK_STATUS(sv_partial_merge(pa, pb), SV_OK);
        sv_trial_stats sd2;
        sv_partial_sd(pa, &sd2);
        if (!CHECK(same_bits(pa, one)) || !CHECK_MEM_EQ(&sd2, &sd, sizeof sd))
            fprintf(stderr, "empty trials: first %llu, cut at %llu differs\n",
                    (unsigned long long)first, (unsigned long long)a);
        sv_partial_free(pa);
        sv_partial_free(pb);
    }
    sv_partial_free(one);
}

static void test_empty_trials(void)
{
    enum { T = 9000 };
    const sv_spec s = spec_of(T);
    sv_trial_stats *all = malloc(T * sizeof *all);
    run(&s, 0, T, all);
    const size_t scattered[] = {101, 102, 777, 4095, 4096, 4200, 8191, 8999};
    for (size_t i = 0; i < sizeof scattered / sizeof scattered[0]; i++)
        make_empty(&all[scattered[i]]);
    check_empty_partial(all, 0, T);
    check_empty_partial(all, 100, T);    /* a lead holding some */
    for (size_t i = 4096; i < 8192; i++) /* a whole block */
        make_empty(&all[i]);
    check_empty_partial(all, 0, T);
    /* The summary: raw_var's spread over the trials that measured something. */
    sv_spec sp = s;
    sv_summary sum;
    CHECK_STATUS(sv_summary_compute(&sp, all, 0.5, &sum), SV_OK);
    double m, d;
    field_stats(all, T, offsetof(sv_trial_stats, raw_var), KEEP_MEASURED, &m, &d);
    CHECK_CLOSE(sum.mean.raw_var, m, 1e-12, 0.0);
    CHECK_CLOSE(sum.raw.sd, d, 1e-9, 0.0);
    size_t measured = 0, below = 0;
    for (size_t i = 0; i < T; i++) {
        measured += !isnan(all[i].raw_var);
        below += all[i].raw_var <= 0.5;
    }
    CHECK_EQ(sum.raw_var_cdf_observed, (double)below / (double)measured);
    CHECK(sum.raw.q05 <= sum.raw.q50 && sum.raw.q50 <= sum.raw.q95 && !isnan(sum.raw.q05));
    /* Every trial measured nothing: every mean over rows NAN, the entries' defined. */
    for (size_t i = 0; i < T; i++)
        make_empty(&all[i]);
    CHECK_STATUS(sv_summary_compute(&sp, all, 0.5, &sum), SV_OK);
    CHECK_NAN(sum.mean.raw_mean);
    CHECK_NAN(sum.mean.raw_entropy);
    CHECK_NAN(sum.sd.raw_var);
    CHECK_NAN(sum.raw.sd);
    CHECK_NAN(sum.raw.q50);
    CHECK_NAN(sum.raw_var_cdf_observed);
    CHECK_EQ(sum.mean.rows_empty, 4.0);
    CHECK(!isnan(sum.mean.q_var) && !isnan(sum.sd.q_var));
    free(all);
}

/* Trials that measured something but have no entropy_norm (a caller's
 * head whose every query row a mask leaves at most one key: both
 * entropy_norm fields NAN, the rest defined) are left out of those two
 * fields' means and SDs only, with the same bits for any chunking or
 * merge: scattered (some in a lead, some among trials that measured
 * nothing), a block that starts without them, a whole block, a block
 * with one trial having them, and all. On the old code the two means
 * were NAN as soon as one trial's was. */
static void no_norm(sv_trial_stats *t)
{
    t->raw_entropy_norm = t->scaled_entropy_norm = NAN;
}

static void test_no_norm_trials(void)
{
    enum { T = 9000 };
    const sv_spec s = spec_of(T);
    sv_trial_stats *all = malloc(T * sizeof *all);
    run(&s, 0, T, all);
    const size_t scattered[] = {0, 101, 103, 778, 4095, 4097, 4098, 8190, 8192, 8998};
    for (size_t i = 0; i < sizeof scattered / sizeof scattered[0]; i++)
        no_norm(&all[scattered[i]]);
    make_empty(&all[102]);
    make_empty(&all[4099]);
    check_empty_partial(all, 0, T);
    check_empty_partial(all, 100, T);
    for (size_t i = 0; i < 300; i++) /* block 0 starts without: its sums start afresh */
        no_norm(&all[i]);
    for (size_t i = 4096; i < 8192; i++) /* a whole block without */
        no_norm(&all[i]);
    check_empty_partial(all, 0, T);
    check_empty_partial(all, 100, T);
    for (size_t i = 300; i < 4096; i++) /* block 0 without but for its last trial */
        no_norm(&all[i]);
    all[4095].raw_entropy_norm = 0.5, all[4095].scaled_entropy_norm = 0.25;
    check_empty_partial(all, 0, T);
    check_empty_partial(all, 100, T);
    for (size_t i = 0; i < T; i++) /* none has one: the two NAN, the rest as before */
        no_norm(&all[i]);
    check_empty_partial(all, 0, T);
    sv_partial *p = partial_of(all, 0, T);
    sv_trial_stats mean, sd;
    sv_partial_mean(p, &mean);
    sv_partial_sd(p, &sd);
    CHECK_NAN(mean.raw_entropy_norm);
    CHECK_NAN(sd.scaled_entropy_norm);
    CHECK(!isnan(mean.raw_entropy) && !isnan(sd.raw_entropy));
    sv_partial_free(p);
    free(all);
}

int main(void)
{
    test_merge();
    test_sd();
    test_add_means();
    test_summary_from_partial();
    test_empty_trials();
    test_no_norm_trials();
    test_spec();
    return CHECK_DONE();
}
