/* The progress line (progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "interrupt.h"

double cli_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cli_progress_work(const sv_spec *spec)
{
    const double nq = (double)spec->n_q, nk = (double)spec->n_k, d = (double)spec->d_k;
    double scores = nq * nk * (spec->causal ? 0.5 : 1.0);
    double w = scores * (d + CLI_PROGRESS_SCORE_WORK);
    if (spec->d_model > 0) /* X W_Q and X' W_K */
        w += (nq + nk) * (double)spec->d_model * d;
    if (spec->values) /* exp(S) V, raw and scaled */
        w += 2.0 * scores * (double)spec->d_v;
    return w * (double)spec->trials;
}

double cli_progress_left(double elapsed, double done, double total)
{
    if (!(done > 0.0))
        return NAN;
    const double rest = total > done ? total - done : 0.0;
    return elapsed * rest / done;
}

void cli_progress_show(void *ctx, uint64_t done, uint64_t total)
{
    cli_progress *pl = ctx;
    const double t = cli_progress_now();
    if (t - pl->start < CLI_PROGRESS_AFTER || t - pl->last < 0.25 || done == 0)
        return;
    const double sweep = pl->before + (double)done / (double)total * pl->current;
    const double left = cli_progress_left(t - pl->start, sweep, pl->total);
    if (isnan(left))
        return;
    pl->last = t;
    cli_interrupt_progress(); /* before the text: a signal mid-line erases it */
    fprintf(stderr,
            "\rsdpa-var: d_k=%zu (%zu of %zu): %3.0f%% of the run, about %.0f s left \033[K",
            pl->d_k, pl->index + 1, pl->count, 100.0 * sweep / pl->total, left);
    fflush(stderr);
}
