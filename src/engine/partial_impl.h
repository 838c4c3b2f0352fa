/* The layout of an sv_partial (partial.h), private to the library: the
 * summary, the run driver and the state code embed or read one. Also the
 * tests' white-box view of it. */
#ifndef SDPA_VAR_PARTIAL_IMPL_H
#define SDPA_VAR_PARTIAL_IMPL_H

#include <assert.h>

#include "sdpa_var/partial.h"

static_assert(sizeof(sv_trial_stats) == SV_TRIAL_FIELDS * sizeof(double),
              "sv_trial_stats holds SV_TRIAL_FIELDS doubles and nothing else");

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
    uint64_t *block_undef;        /* n_blocks: each block's trials with no
                                     entropy_norm (NaN), those that measured nothing
                                     included: left out of its sums of the two
                                     entropy_norm fields (partial_fold.c) */
    uint64_t last_empty;          /* trials of the last block that measured nothing
                                     (raw_var NAN): left out of its sums of every field
                                     but the entries' (partial_fold.c); not stored in a
                                     state (sv__partial_recount finds it) */
    sv_trial_extremes ext;        /* each extreme over the trials added so far */
    double *raw_var, *scaled_var; /* n values each, trial order */
};

/* The classes of sv_trial_stats' fields by the trials their sums keep
 * (partial_fold.c): ROWS leave out the trials that measured nothing, NORM
 * (the two entropy_norm fields) also those with no entropy_norm, ENTRY
 * (q_var, k_var, q_mean, k_mean, rows_empty) keep every trial. */
enum { SV_FIELD_ROWS, SV_FIELD_NORM, SV_FIELD_ENTRY, SV_FIELD_CLASSES };

/* The class of each field, in sv_trial_stats' order. */
extern const unsigned char sv__field_class[SV_TRIAL_FIELDS];

/* Trials of a block left out: empty (measured nothing) of the ROWS and
 * NORM fields, undef (no entropy_norm: empty ones included) of NORM's. */
typedef struct sv_left_out {
    uint64_t empty, undef;
} sv_left_out;

/* counts[c]: how many of n trials with *lo left out the fields of class c
 * keep. */
void sv__class_counts(uint64_t n, const sv_left_out *lo, uint64_t counts[SV_FIELD_CLASSES]);

/* Adds trials t[0 .. count) to a block of done trials before, *lo of
 * them left out (then these too): each field's sum in trial order to
 * sum[0 .. F), its running mean and M2 (Welford 1962) to w[0 .. F) and
 * w[F .. 2F), over the trials its class keeps; their extremes to e, and
 * (vars not NULL) their raw_var and scaled_var to vars[0] and vars[1].
 * Without m2 (sv_partial_add_means), only the sums: the block's mean and
 * M2 become NAN, and stay so. Vectorised, in the same bits, when no field
 * leaves out only some of the block's trials. */
void sv__partial_fold(const sv_trial_stats *t, size_t count, double *sum, double *w, uint64_t done,
                      sv_left_out *lo, int m2, double *const *vars, sv_trial_extremes *e);

/* sv_partial_create in place (a partial embedded in another struct):
 * *p zeroed after an error, nothing to free. */
sv_status sv__partial_init(sv_partial *p, uint64_t first, uint64_t cap);

/* Sets p->last_empty from p's raw_var (a partial filled from a state's
 * bytes). */
void sv__partial_recount(sv_partial *p);

/* Frees the arrays of an embedded partial and zeroes it (NULL: no-op). */
void sv__partial_release(sv_partial *p);

#endif
