/* The web page's glue (sv_web.c): exported to JavaScript, used by
 * web/app/worker.js only. */
#ifndef SV_WEB_H
#define SV_WEB_H

#include <stdint.h>

typedef struct svw_run svw_run;

/* The reason of the last failure, one line. */
const char *svw_error(void);
/* PCG32(42, 54)'s first output: 0xa15c02b7 as natively. */
uint32_t svw_pcg_check(void);
/* A run with the page's options (sv_web.c); NULL on error. */
svw_run *svw_begin(int d_k, int n_q, int n_k, int scale_kind, double custom, int causal,
                   double trials, double seed, int grad, int hist_bins, double observed,
                   int s2_bins, double s2_hi);
/* Up to max_trials more trials; the trials done so far, or -1. */
double svw_step(svw_run *r, double max_trials);
/* The bytes the engine allocates for one trial of r, or -1. */
double svw_bytes(svw_run *r);
/* Query rows [0, row_end) of r's first trial alone: the fold blocks, or -1. */
double svw_rows(svw_run *r, double row_end);
/* The finished run as JSON; NULL on error. */
const char *svw_result(svw_run *r);
void svw_free(svw_run *r);
/* Softmax of n logits raw and times scale, as JSON; NULL on error. */
const char *svw_logits(const double *x, int n, double scale);
/* Query 0 of trial 0 against its keys, as svw_logits. */
const char *svw_example(int d_k, int n, int scale_kind, double custom, double seed);
/* Implemented in JavaScript (progress.js). */
void svw_js_progress(double done, double total);

#endif
