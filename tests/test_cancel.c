/* Stopping a run (sv_exec.cancel, issue 23): a flag set by the progress
 * callback after its first report stops the run early with SV_ECANCELED,
 * on every path (tiles across threads, whole trials per thread, tiny
 * trials grouped, the backward passes, row shards); a flag that stays 0
 * gives the bits of a run without one. */
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* The callback's context: the flag it sets, and what it saw. */
typedef struct stopper {
    volatile int flag;
    int set_after;   /* set the flag at this report; 0: never */
    unsigned calls;  /* reports seen */
    uint64_t total;  /* units of the whole run */
    uint64_t at_set; /* done when the flag was set */
} stopper;

static void on_report(void *ctx, uint64_t done, uint64_t total)
{
    stopper *s = ctx;
    s->total = total;
    if (++s->calls == (unsigned)s->set_after) {
        s->flag = 1;
        s->at_set = done;
    }
}

enum { TRIALS_MAX = 768 }; /* tiny trials: 12 groups of 64 */

/* The source keeps a pointer to the spec: both live in the caller. */
static void ready(sv_spec *s, sv_source *src)
{
    CHECK_STATUS(sv_spec_resolve(s), SV_OK);
    CHECK_STATUS(sv_source_draw(s, src), SV_OK);
}

/* @p s on @p threads: the flag set after the first report stops the run
 * within a few units (one item per thread in flight), and a flag left at
 * 0 changes no bit. */
static void check_stop(sv_spec s, int threads, size_t block_rows)
{
    sv_source src;
    ready(&s, &src);
    static sv_trial_stats plain[TRIALS_MAX], kept[TRIALS_MAX], cut[TRIALS_MAX];
    const uint64_t n = s.trials;
    CHECK_LE(n, TRIALS_MAX);
    const sv_exec none = {.threads = threads, .block_rows = block_rows};
    CHECK_STATUS(sv_engine_run(&s, &src, &none, NULL, 0, n, plain), SV_OK);

    stopper idle = {0};
    const sv_exec zero = {.threads = threads,
                          .block_rows = block_rows,
                          .progress = on_report,
                          .progress_ctx = &idle,
                          .cancel = &idle.flag};
    CHECK_STATUS(sv_engine_run(&s, &src, &zero, NULL, 0, n, kept), SV_OK);
    CHECK_MEM_EQ(kept, plain, n * sizeof *plain);

    stopper st = {.set_after = 1};
    const sv_exec stop = {.threads = threads,
                          .block_rows = block_rows,
                          .progress = on_report,
                          .progress_ctx = &st,
                          .cancel = &st.flag};
    const sv_status got = sv_engine_run(&s, &src, &stop, NULL, 0, n, cut);
    CHECK_EQ(st.flag, 1);
    if (threads > 1 && st.at_set == st.total) {
        /* Thread 0 found no work before the end (the other thread took
         * it): the first report was the run's last, after every check. */
        CHECK_STATUS(got, SV_OK);
        return;
    }
    CHECK_STATUS(got, SV_ECANCELED);
    /* Stopped early: thread 0 reported at most the items it had in
     * flight after the first, and never the run's end. */
    if (st.calls > (unsigned)threads + 1u || st.at_set >= st.total)
        fprintf(stderr, "d_k %zu n %zu threads %d: %u reports after a stop at %llu of %llu\n",
                s.d_k, s.n_q, threads, st.calls, (unsigned long long)st.at_set,
                (unsigned long long)st.total);
    CHECK_LE(st.calls, (unsigned)threads + 1u);
    CHECK_LT(st.at_set, st.total);
    if (threads == 1) /* in order: one report, then nothing */
        CHECK_LT(st.calls, idle.calls);
}

/* A flag already set: nothing runs, on each entry point, and the backward
 * passes stop too (their tiles check the flag as the forward pass's do). */
static void check_preset(void)
{
    sv_source src;
    sv_spec s = {.d_k = 8, .n_q = 600, .n_k = 600, .trials = 2, .seed = 9, .values = 1, .grad = 1};
    ready(&s, &src);
    const int on = 1;
    const sv_exec exec = {.threads = 2, .cancel = &on};
    sv_trial_stats out[TRIALS_MAX];
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 2, out), SV_ECANCELED);
    sv_spec tiny = {.d_k = 4, .n_q = 100, .n_k = 4, .trials = TRIALS_MAX, .seed = 6};
    ready(&tiny, &src);
    CHECK_STATUS(sv_engine_run(&tiny, &src, &exec, NULL, 0, TRIALS_MAX, out), SV_ECANCELED);
    sv_source src2;
    sv_spec r = {.d_k = 4, .n_q = 300, .n_k = 40, .trials = 2, .seed = 3};
    ready(&r, &src2);
    sv_rowfold folds[2];
    CHECK_STATUS(sv_engine_run_rows(&r, &src2, &exec, 0, 2, 0, r.n_q, folds), SV_ECANCELED);
    /* the flag at 0 again: the same call succeeds */
    const int off = 0;
    const sv_exec again = {.threads = 2, .cancel = &off};
    CHECK_STATUS(sv_engine_run_rows(&r, &src2, &again, 0, 2, 0, r.n_q, folds), SV_OK);
}

/* The flag set in the forward pass's last report: the backward passes
 * that follow see it, skip their tiles, and the run says so. */
static void check_grad(void)
{
    sv_source src;
    sv_spec s = {.d_k = 8, .n_q = 600, .n_k = 600, .trials = 1, .seed = 2, .values = 1, .grad = 1};
    ready(&s, &src);
    stopper st = {.set_after = 3}; /* 3 tiles of 256 rows, one key block */
    const sv_exec exec = {
        .threads = 1, .progress = on_report, .progress_ctx = &st, .cancel = &st.flag};
    sv_trial_stats out;
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &out), SV_ECANCELED);
    CHECK_EQ(st.at_set, st.total);
}

int main(void)
{
    CHECK_STR_EQ(sv_status_name(SV_ECANCELED), "SV_ECANCELED");
    /* one trial's tiles across threads: 5 tiles of 256 rows per trial */
    const sv_spec tiles = {.d_k = 8, .n_q = 1200, .n_k = 300, .trials = 4, .seed = 1};
    check_stop(tiles, 1, 0);
    check_stop(tiles, 2, 0);
    check_stop(tiles, 1, 1024); /* items of four tiles */
    /* whole trials per thread (scores < 2^16), and tiny ones grouped */
    check_stop((sv_spec){.d_k = 4, .n_q = 300, .n_k = 200, .trials = 32, .seed = 5}, 2, 0);
    check_stop((sv_spec){.d_k = 4, .n_q = 100, .n_k = 4, .trials = TRIALS_MAX, .seed = 6}, 1, 0);
    check_stop((sv_spec){.d_k = 4, .n_q = 100, .n_k = 4, .trials = TRIALS_MAX, .seed = 6}, 2, 0);
    check_preset();
    check_grad();
    return CHECK_DONE();
}
