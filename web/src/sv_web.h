/* The web page's glue (sv_web.c): exported to JavaScript, used by
 * web/app/worker.js only. */
#ifndef SV_WEB_H
#define SV_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/spec.h"

typedef struct svw_run svw_run;

/* The reason of the last failure, one line. */
const char *svw_error(void);
/* PCG32(42, 54)'s first output: 0xa15c02b7 as natively. */
uint32_t svw_pcg_check(void);
/* A run of the experiment in pairs "name=value\n..." (the parameters of
 * param.h, read by sv_spec_set; the others at the library's defaults)
 * with the page's extras (sv_web.c); NULL on error. */
svw_run *svw_begin(const char *pairs, int hist_bins, double observed, int s2_bins, double s2_hi);
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
/* Query 0 of trial 0 of the experiment in pairs against its keys, as svw_logits. */
const char *svw_example(const char *pairs);
/* "" when the experiment in pairs would run with hist_bins as svw_begin
 * reads it, else the library's reason (sv_web_spec.c). */
const char *svw_check(const char *pairs, int hist_bins);
/* The library's version, "MAJOR.MINOR.PATCH" (sv_web_spec.c). */
const char *svw_version(void);
/* The library's parameter table as JSON (sv_web_spec.c). */
const char *svw_params(void);
/* sv_spec_defaults, then each pair of @p pairs by sv_spec_set; the scale's
 * text into @p scale. 0, or -1 with the library's reason in @p err
 * ("seed: '-1' is not a non-negative integer"). */
int svw_spec_read(sv_spec *spec, const char *pairs, char *scale, size_t scale_len, char *err,
                  size_t err_len);
/* sv_spec_resolve: 0, or -1 with sv_spec_check_param's message in @p err. */
int svw_spec_resolve(sv_spec *spec, char *err, size_t err_len);
/* Implemented in JavaScript (progress.js). */
void svw_js_progress(double done, double total);

#endif
