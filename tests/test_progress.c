/* The progress line's estimate (src/cli/run/progress.c, issue 15 section 4):
 * the time left in the whole sweep, from the work of every configuration,
 * not in the configuration that runs. Arithmetic only: no clock. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "progress.h"
#include "sdpa_var/sdpa_var.h"

static sv_spec spec_of(size_t d_k, size_t n, uint64_t trials)
{
    sv_spec s;
    memset(&s, 0, sizeof s);
    s.d_k = d_k;
    s.n_q = s.n_k = n;
    s.trials = trials;
    return s;
}

/* Reports of one engine call: how many, and whether they only grew. */
typedef struct reports {
    unsigned calls, monotone;
    uint64_t last, total;
} reports;

static void count_report(void *ctx, uint64_t done, uint64_t total)
{
    reports *r = ctx;
    r->monotone &= done >= r->last;
    r->calls++;
    r->last = done;
    r->total = total;
}

/* One thread, one trial of 600 query rows (three tiles of 256): the
 * engine reports each tile, not only the trial's end, so a long trial
 * shows its progress line within the first second (issue 15). */
static void check_reports_per_tile(void)
{
    sv_spec s = spec_of(4, 600, 1);
    s.seed = 1;
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    reports r = {0u, 1u, 0u, 0u};
    const sv_exec exec = {.threads = 1, .progress = count_report, .progress_ctx = &r};
    sv_trial_stats out;
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &out), SV_OK);
    if (r.calls < 3)
        fprintf(stderr, "reports: %u calls, want >= 3\n", r.calls);
    CHECK_GE(r.calls, 3);
    CHECK(r.monotone);
    CHECK_EQ(r.last, r.total);
}

int main(void)
{
    check_reports_per_tile();
    /* Rate so far: 10 s did a quarter, so 30 s are left. */
    CHECK_CLOSE(cli_progress_left(10.0, 25.0, 100.0), 30.0, 1e-15, 0.0);
    CHECK_CLOSE(cli_progress_left(4.0, 100.0, 100.0), 0.0, 0.0, 0.0);
    CHECK_CLOSE(cli_progress_left(4.0, 101.0, 100.0), 0.0, 0.0, 0.0); /* never negative */
    CHECK_NAN(cli_progress_left(1.0, 0.0, 100.0));                    /* no rate yet */

    /* Work: trials x n_q x n_k x (d_k + CLI_PROGRESS_SCORE_WORK). */
    sv_spec a = spec_of(64, 1000, 3);
    CHECK_CLOSE(cli_progress_work(&a), 3.0 * 1e6 * (64.0 + CLI_PROGRESS_SCORE_WORK), 1e-15, 0.0);
    a.causal = 1;
    CHECK_CLOSE(cli_progress_work(&a), 1.5 * 1e6 * (64.0 + CLI_PROGRESS_SCORE_WORK), 1e-15, 0.0);
    sv_spec p = spec_of(8, 10, 1);
    p.d_model = 32;
    CHECK_CLOSE(cli_progress_work(&p), 100.0 * (8.0 + CLI_PROGRESS_SCORE_WORK) + 20.0 * 32.0 * 8.0,
                1e-15, 0.0);

    /* The sweep, --dk 1:1024 --n 12000: the old line estimated
     * the configuration that runs alone ("about 2 s left" of an 89 s
     * run). The sweep's estimate counts what is still to come: with d_k
     * 1 to 512 done in 40 s, d_k = 1024 is half their work again
     * (1152 / 2303 per score), so about 20 s are left before it starts. */
    double total = 0.0, before = 0.0;
    for (size_t d = 1; d <= 1024; d *= 2) {
        const sv_spec s = spec_of(d, 12000, 1);
        total += cli_progress_work(&s);
        if (d < 1024)
            before += cli_progress_work(&s);
    }
    const sv_spec last = spec_of(1024, 12000, 1);
    CHECK_CLOSE(before + cli_progress_work(&last), total, 1e-15, 0.0);
    const double left = cli_progress_left(40.0, before, total);
    CHECK_CLOSE(left,
                40.0 * (1024.0 + CLI_PROGRESS_SCORE_WORK) /
                    (2047.0 + 11 * CLI_PROGRESS_SCORE_WORK - (1024.0 + CLI_PROGRESS_SCORE_WORK)),
                1e-12, 0.0);
    CHECK_CLOSE(left, 40.0 * cli_progress_work(&last) / before, 1e-15, 0.0);
    /* Half-way through the last configuration: a quarter of its work is
     * not yet the half of the sweep's time. */
    const double half = cli_progress_left(60.0, before + 0.5 * cli_progress_work(&last), total);
    CHECK_GT(half, 0.0);
    CHECK_LT(half, left);
    return CHECK_DONE();
}
