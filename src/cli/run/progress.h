/* The progress line of a run: on stderr, only when it is a terminal, once
 * the run has taken half a second, at most four times a second, erased before
 * any row or message is written and at the end (interrupt.h). It estimates the time left in the
 * whole sweep, not in the configuration that runs: each configuration's
 * work is weighed by its flops (cli_progress_work), and the rate so far
 * over all configurations gives the rest. */
#ifndef SDPA_VAR_CLI_PROGRESS_H
#define SDPA_VAR_CLI_PROGRESS_H

#include <stdint.h>

#include "sdpa_var/spec.h"

/* Softmax work per score, in units of the d_k multiply-adds of one score:
 * two exponentials (raw and scaled) and the moment sums. Measured at
 * n = 3000, one thread: a score takes 4.4 ns at d_k = 1, 14 ns at 64,
 * 33 ns at 512, so about 270 multiply-adds' worth where dgemm runs at
 * speed (d_k >= 64) and less below; 128 puts the estimate of
 * --dk 1:1024 within 10 % of the time left once d_k = 512 is done. */
#define CLI_PROGRESS_SCORE_WORK 128.0

/* The work of configuration @p spec: trials x n_q x n_k x (d_k +
 * CLI_PROGRESS_SCORE_WORK), halved by --causal, plus the projections
 * (d_model). Arbitrary units, only ever compared with each other. */
double cli_progress_work(const sv_spec *spec);

/* Seconds left, by the rate so far: @p elapsed seconds did @p done of
 * @p total work. NAN when nothing is done yet (no rate to go by). */
double cli_progress_left(double elapsed, double done, double total);

/* Seconds of a run before the line is drawn: with the engine's reports
 * (a tile of 256 rows x 4096 keys at most, well under half a second) it
 * shows within a second of the start. */
#define CLI_PROGRESS_AFTER 0.5

typedef struct cli_progress {
    double start, last; /* times (seconds, monotonic) */
    double total;       /* the work of every configuration */
    double before;      /* the work of the configurations finished */
    double current;     /* the work of the configuration that runs */
    size_t index, count, d_k;
} cli_progress;

/* Seconds on the monotonic clock. */
double cli_progress_now(void);

/* An sv_progress_fn: ctx is a cli_progress, done / total the fraction of
 * the configuration that runs (the run driver's, run.h). */
void cli_progress_show(void *ctx, uint64_t done, uint64_t total);

#endif
