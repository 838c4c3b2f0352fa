/* The layout of an sv_partial (partial.h), private to the library: the
 * summary, the run driver and the state code embed or read one. Also the
 * tests' white-box view of it. */
#ifndef SDPA_VAR_PARTIAL_IMPL_H
#define SDPA_VAR_PARTIAL_IMPL_H

#include "sdpa_var/partial.h"

struct sv_partial {
    uint64_t first;               /* number of the first trial */
    uint64_t n;                   /* trials added so far */
    uint64_t cap;                 /* trials the arrays hold room for */
    sv_trial_stats *lead;         /* the lead: the trials of [first, next multiple of
                                     SV_SUMMARY_BLOCK) when first is not a multiple:
                                     kept whole, in trial order */
    size_t n_blocks;              /* blocks started at or after the first block start */
    double *block_sum;            /* n_blocks x SV_TRIAL_FIELDS: sum of each block's
                                     trials in trial order; the last may be in progress */
    double *block_m2;             /* n_blocks x 2 SV_TRIAL_FIELDS: each block's running
                                     mean, then sum of squared deviations from it, of
                                     every field (Welford 1962, trial order) */
    uint64_t last_empty;          /* trials of the last block that measured nothing
                                     (raw_var NAN): left out of its sums of every field
                                     but the entries' (partial.c); not stored in a
                                     state (sv__partial_recount finds it) */
    sv_trial_extremes ext;        /* each extreme over the trials added so far */
    double *raw_var, *scaled_var; /* n values each, trial order */
};

/* sv_partial_create in place (a partial embedded in another struct):
 * *p zeroed after an error, nothing to free. */
sv_status sv__partial_init(sv_partial *p, uint64_t first, uint64_t cap);

/* Sets p->last_empty from p's raw_var (a partial filled from a state's
 * bytes). */
void sv__partial_recount(sv_partial *p);

/* Frees the arrays of an embedded partial and zeroes it (NULL: no-op). */
void sv__partial_release(sv_partial *p);

#endif
