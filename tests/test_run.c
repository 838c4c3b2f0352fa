/* run.h: the run driver gives, in any chunking, the bits of one engine
 * call and one sv_summary_compute; its callbacks see every trial once, in
 * order, and can stop it; a slice of trials keeps the engine's numbering;
 * the pool names; the per-head rows; and the standard error, whose theory
 * fallback with one trial is what the page lacked before (issue 40). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

static sv_spec config(uint64_t trials)
{
    sv_spec c;
    sv_spec_defaults(&c);
    c.d_k = 4;
    c.n_q = 6;
    c.n_k = 5;
    c.trials = trials;
    (void)sv_spec_resolve(&c);
    return c;
}

/* What the callbacks saw. */
typedef struct seen {
    uint64_t next, calls, stop_after;
    uint64_t last_done, total;
    int backwards;
} seen;

static int on_chunk(void *ctx, uint64_t first, uint64_t count, const sv_trial_stats *t)
{
    seen *s = ctx;
    CHECK_EQ(first, s->next);
    CHECK(t != NULL);
    s->next = first + count;
    s->calls++;
    return s->stop_after && s->calls >= s->stop_after;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    seen *s = ctx;
    s->backwards |= done < s->last_done;
    s->last_done = done;
    s->total = total;
}

/* sv_run in chunks of 7 = the engine in one call + sv_summary_compute. */
static void test_same_bits(void)
{
    const sv_spec c = config(20);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&c, &src), SV_OK);
    const sv_exec ex = {.threads = 1};
    sv_trial_stats all[20], kept[20];
    sv_summary one, run;
    CHECK_STATUS(sv_engine_run(&c, &src, &ex, NULL, 0, 20, all), SV_OK);
    CHECK_STATUS(sv_summary_compute(&c, all, 3.0, &one), SV_OK);
    seen s = {0};
    const sv_run_options opt = {.chunk = 7,
                                .want = SV_RUN_ALL,
                                .observed = 3.0,
                                .on_chunk = on_chunk,
                                .ctx = &s,
                                .progress = on_progress,
                                .keep = kept};
    CHECK_STATUS(sv_run(&c, &src, &ex, NULL, &opt, &run), SV_OK);
    CHECK_MEM_EQ(&run, &one, sizeof one);
    CHECK_MEM_EQ(kept, all, sizeof all);
    CHECK_EQ(s.calls, 3);
    CHECK_EQ(s.next, 20);
    CHECK(!s.backwards);
    CHECK_EQ(s.last_done, s.total); /* the whole run done */
    /* Without the sds and the quantiles: NAN there, the means the same. */
    sv_summary less;
    const sv_run_options means = {.chunk = 6, .want = SV_RUN_SUMMARY, .observed = NAN};
    CHECK_STATUS(sv_run(&c, &src, &ex, NULL, &means, &less), SV_OK);
    CHECK_MEM_EQ(&less.mean, &one.mean, sizeof one.mean);
    CHECK_NAN(less.sd.raw_var);
    CHECK_NAN(less.raw.q50);
}

/* Step by step (the page's way), a stop from the callback, a slice. */
static void test_steps(void)
{
    const sv_spec c = config(10);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&c, &src), SV_OK);
    const sv_exec ex = {.threads = 1};
    sv_trial_stats all[10];
    CHECK_STATUS(sv_engine_run(&c, &src, &ex, NULL, 0, 10, all), SV_OK);
    seen s = {0};
    sv_run_options opt = {.want = SV_RUN_ALL, .observed = NAN, .on_chunk = on_chunk, .ctx = &s};
    sv_runner *r;
    uint64_t done = 0;
    CHECK_STATUS(sv_runner_begin(&c, &src, &ex, NULL, &opt, &r), SV_OK);
    CHECK_STATUS(sv_runner_end(r, NULL), SV_EINVAL); /* trials left */
    CHECK_STATUS(sv_runner_step(r, 0, &done), SV_EINVAL);
    while (done < 10)
        CHECK_STATUS(sv_runner_step(r, 3, &done), SV_OK);
    CHECK_EQ(s.calls, 4);
    CHECK_STATUS(sv_runner_step(r, 3, &done), SV_EINVAL); /* finished */
    sv_summary sum;
    CHECK_STATUS(sv_runner_end(r, &sum), SV_OK);
    sv_partial *p;
    CHECK_STATUS(sv_runner_take_partial(r, &p), SV_OK);
    CHECK_EQ(sv_partial_count(p), 10);
    sv_partial *again = NULL;
    CHECK_STATUS(sv_runner_take_partial(r, &again), SV_EINVAL); /* moved */
    sv_partial_free(p);
    sv_runner_free(r);

    s = (seen){.stop_after = 2};
    CHECK_STATUS(sv_runner_begin(&c, &src, &ex, NULL, &opt, &r), SV_OK);
    CHECK_STATUS(sv_runner_step(r, 4, NULL), SV_OK);
    CHECK_STATUS(sv_runner_step(r, 4, NULL), SV_ECANCELED);
    CHECK_STATUS(sv_runner_step(r, 4, NULL), SV_EINVAL); /* failed: free only */
    sv_runner_free(r);

    /* Trials 4 .. 9 of the run of 10: the same bits; no summary of a slice. */
    const sv_spec six = config(6);
    sv_trial_stats kept[6];
    s = (seen){.next = 4};
    opt.first = 4;
    opt.keep = kept;
    CHECK_STATUS(sv_run(&six, &src, &ex, NULL, &opt, &sum), SV_EINVAL);
    opt.want = 0;
    CHECK_STATUS(sv_run(&six, &src, &ex, NULL, &opt, NULL), SV_OK);
    CHECK_MEM_EQ(kept, all + 4, sizeof kept);
    CHECK_STATUS(sv_runner_begin(NULL, &src, &ex, NULL, &opt, &r), SV_EINVAL);
    CHECK(r == NULL);
}

static void test_pool(void)
{
    for (int p = SV_POOL_HEADS; p <= SV_POOL_ALL; p++) {
        sv_pool back = SV_POOL_ALL;
        CHECK_STATUS(sv_pool_from_name(sv_pool_name((sv_pool)p), &back), SV_OK);
        CHECK_EQ(back, p);
    }
    CHECK_STR_EQ(sv_pool_name(SV_POOL_NONE), "none");
    CHECK(sv_pool_name((sv_pool)3) == NULL);
    sv_pool p = SV_POOL_NONE;
    CHECK_STATUS(sv_pool_from_name("every", &p), SV_EINVAL);
    CHECK_STATUS(sv_pool_from_name(NULL, &p), SV_EINVAL);
    CHECK_EQ(p, SV_POOL_NONE);
}

static const sv_column *column(const char *name)
{
    for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_SUMMARY); i++)
        if (strcmp(sv_columns_get(SV_OUTPUT_SUMMARY, i)->name, name) == 0)
            return sv_columns_get(SV_OUTPUT_SUMMARY, i);
    return NULL;
}

/* sd / sqrt(trials); with one trial (sd NAN) the theory of raw_var's sd,
 * for raw_var and its variants alike; NAN without either. */
static void test_std_error(void)
{
    const sv_spec c = config(20), c1 = config(1);
    sv_source src, src1;
    CHECK_STATUS(sv_source_draw(&c, &src), SV_OK);
    CHECK_STATUS(sv_source_draw(&c1, &src1), SV_OK);
    const sv_exec ex = {.threads = 1};
    const sv_run_options opt = {.want = SV_RUN_ALL, .observed = NAN};
    sv_summary s, s1;
    CHECK_STATUS(sv_run(&c, &src, &ex, NULL, &opt, &s), SV_OK);
    CHECK_STATUS(sv_run(&c1, &src1, &ex, NULL, &opt, &s1), SV_OK);
    const sv_row_view v = {.spec = &c, .stats = &s.mean, .summary = &s};
    const sv_row_view v1 = {.spec = &c1, .stats = &s1.mean, .summary = &s1};
    CHECK_EQ(sv_column_std_error(column("raw_var"), &v), sqrt(1.0 / 20.0) * s.sd.raw_var);
    CHECK_EQ(2.0 * sv_column_std_error(column("scaled_var"), &v),
             sqrt(1.0 / 20.0) * (2.0 * s.sd.scaled_var));
    CHECK_NAN(s1.sd.raw_var);
    const double th = column("raw_var_sd_theory")->get(&v1).real;
    CHECK(isfinite(th) && th > 0.0);
    CHECK_EQ(sv_column_std_error(column("raw_var"), &v1), th);
    CHECK_EQ(sv_column_std_error(column("raw_var_ddof1"), &v1), th);
    CHECK_NAN(sv_column_std_error(column("dk"), &v));
    CHECK_NAN(sv_column_std_error(NULL, &v));
    CHECK_NAN(sv_column_std_error(column("raw_var"), NULL));
}

/* The head row: sv_summary_head's, theories NaN with a mask. */
static void test_head_row(void)
{
    const sv_spec c = config(2);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&c, &src), SV_OK);
    const sv_exec ex = {.threads = 1};
    sv_trial_stats t[2];
    sv_summary pooled, one;
    sv_spec plug;
    const sv_run_options opt = {.want = SV_RUN_ALL, .observed = NAN, .keep = t};
    CHECK_STATUS(sv_run(&c, &src, &ex, NULL, &opt, &pooled), SV_OK);
    const sv_head h = {.batch = 0, .head = 1, .kv_head = 1};
    sv_head_row row;
    CHECK_STATUS(sv_head_row_make(&c, "sqrt", &t[1], &h, 1, NULL, 0, &row), SV_OK);
    CHECK_STATUS(sv_summary_head(&c, &t[1], NULL, &plug, &one), SV_OK);
    CHECK_MEM_EQ(&row.summary, &one, sizeof one);
    CHECK(row.view.head == &h && row.view.stats == &t[1] && row.view.summary == &row.summary);
    CHECK_EQ(row.view.trial, 1);
    CHECK_STATUS(sv_head_row_make(&c, NULL, &pooled.mean, NULL, 0, &pooled, 1, &row), SV_OK);
    CHECK_NAN(row.summary.raw_theory.var);
    CHECK_NAN(row.summary.scaled_theory.mean);
    CHECK_EQ(row.summary.sd.raw_var, pooled.sd.raw_var);
    CHECK_STATUS(sv_head_row_make(&c, NULL, &t[0], NULL, 0, NULL, 0, &row), SV_EINVAL);
}

/* A row shard in chunks of 2 trials from trial 1 = one sv_engine_run_rows
 * of those trials, with the run's progress; rows that are no blocks are
 * the engine's SV_EINVAL. */
static void test_rows(void)
{
    sv_spec c = config(6);
    c.n_q = SV_FOLD_ROWS + 3;
    c.n_k = 3;
    sv_source src;
    CHECK_STATUS(sv_source_draw(&c, &src), SV_OK);
    const sv_exec ex = {.threads = 1};
    sv_spec sub = c; /* trials 1 .. 5 of the run of 6 */
    sub.trials = 5;
    const size_t nb = sv_rowfold_blocks(SV_FOLD_ROWS, c.n_q);
    sv_rowfold one[5], run[5];
    CHECK_EQ(nb, 1);
    CHECK_STATUS(sv_engine_run_rows(&c, &src, &ex, 1, 5, SV_FOLD_ROWS, c.n_q, one), SV_OK);
    seen s = {0};
    const sv_run_options opt = {.first = 1, .chunk = 2, .ctx = &s, .progress = on_progress};
    memset(run, 0xff, sizeof run);
    CHECK_STATUS(sv_run_rows(&sub, &src, &ex, &opt, SV_FOLD_ROWS, c.n_q, run), SV_OK);
    CHECK_MEM_EQ(run, one, sizeof one);
    CHECK(!s.backwards);
    CHECK_EQ(s.last_done, s.total);
    CHECK_STATUS(sv_run_rows(&sub, &src, &ex, &opt, 1, c.n_q, run), SV_EINVAL);
    CHECK_STATUS(sv_run_rows(&sub, &src, &ex, &opt, 0, c.n_q, NULL), SV_EINVAL);
}

/* Caller arrays, 3 heads, a bool mask hiding every key from head 1: its
 * trial measured nothing (nan), and the pooled means are over heads 0 and
 * 2 for the statistics over rows, over all three for the entries' and
 * rows_empty: the same sums in order, so the same bits, in any chunking.
 * On the old code every pooled mean over rows was nan. */
static void test_empty_head(void)
{
    enum { H = 3, N = 4, D = 4 };
    static double q[H * N * D];
    static unsigned char mask[H * N * N];
    for (size_t i = 0; i < H * N * D; i++)
        q[i] = sin(0.7 * (double)i);
    for (size_t i = 0; i < H * N * N; i++)
        mask[i] = i / (N * N) != 1; /* head 1: no key */
    sv_strided a = {0};
    a.q = (sv_array){.data = q,
                     .dtype = SV_DTYPE_FLOAT64,
                     .ndim = 3,
                     .shape = {H, N, D},
                     .strides = {N * D * 8, D * 8, 8}};
    a.k = a.q;
    a.mask = (sv_array){.data = mask,
                        .dtype = SV_DTYPE_BOOL,
                        .ndim = 3,
                        .shape = {H, N, N},
                        .strides = {N * N, N, 1}};
    sv_spec c = {.d_k = D, .n_q = N, .n_k = N, .trials = H};
    CHECK_STATUS(sv_spec_resolve(&c), SV_OK);
    sv_source src;
    CHECK_STATUS(sv_source_strided(&a, &src), SV_OK);
    const sv_exec ex = {.threads = 1};
    sv_trial_stats t[H];
    sv_summary all, one;
    for (uint64_t chunk = 1; chunk <= H; chunk += H - 1) {
        const sv_run_options opt = {.want = SV_RUN_ALL, .observed = NAN, .keep = t, .chunk = chunk};
        CHECK_STATUS(sv_run(&c, &src, &ex, NULL, &opt, chunk == 1 ? &one : &all), SV_OK);
    }
    CHECK_MEM_EQ(&one.mean, &all.mean, sizeof one.mean);
    CHECK_MEM_EQ(&one.sd, &all.sd, sizeof one.sd);
    CHECK_NAN(t[1].raw_mean);
    CHECK_EQ(t[1].rows_empty, (double)N);
    CHECK(!isnan(t[0].raw_mean) && !isnan(t[2].raw_mean));
    CHECK_EQ(all.mean.raw_mean, (t[0].raw_mean + t[2].raw_mean) / 2.0);
    CHECK_EQ(all.mean.raw_var, (t[0].raw_var + t[2].raw_var) / 2.0);
    CHECK_EQ(all.mean.scaled_entropy, (t[0].scaled_entropy + t[2].scaled_entropy) / 2.0);
    CHECK_EQ(all.mean.q_var, (t[0].q_var + t[1].q_var + t[2].q_var) / 3.0);
    CHECK_EQ(all.mean.rows_empty, (double)N / 3.0);
    CHECK_EQ(all.mean.raw_max_abs_logit, fmax(t[0].raw_max_abs_logit, t[2].raw_max_abs_logit));
    CHECK_EQ(all.raw.q50, (t[0].raw_var + t[2].raw_var) / 2.0); /* median of two */
    CHECK_CLOSE(all.sd.raw_mean, fabs(t[0].raw_mean - t[2].raw_mean) / sqrt(2.0), 1e-12, 0.0);
}

int main(void)
{
    test_same_bits();
    test_steps();
    test_pool();
    test_std_error();
    test_head_row();
    test_rows();
    test_empty_head();
    return CHECK_DONE();
}
