/**
 * @file summary.h
 * Reduction of per-trial statistics to what the CLI prints, theory beside.
 *
 * Thread safety, every function here unless its docstring says: re-entrant;
 * an accumulator is used by one thread at a time.
 * Cost, every function here unless its docstring says: sv_quantile_sorted
 * O(1); sv_summary_begin allocates two doubles per trial; sv_summary_add
 * O(count x SV_TRIAL_FIELDS); sv_summary_end and sv_summary_from_partial
 * O(trials) (means by blocks, quantile selections); sv_summary_head O(1).
 */
#ifndef SDPA_VAR_SUMMARY_H
#define SDPA_VAR_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/engine.h"
#include "sdpa_var/partial.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"
#include "sdpa_var/theory.h"

/** Spread of the per-trial sample variance across trials. */
typedef struct sv_var_spread {
    double sd;  /**< standard deviation across trials (ddof 1); NAN for one trial */
    double q05; /**< 5 % quantile across trials */
    double q50; /**< median */
    double q95; /**< 95 % quantile */
} sv_var_spread;

/** What one configuration reports. */
typedef struct sv_summary {
    sv_trial_stats mean;         /**< every per-trial statistic, mean over trials, but
                                      the entropy min (max) and max |logit|: the
                                      min (max) over all trials */
    sv_trial_stats sd;           /**< standard deviation across trials (ddof 1) of
                                      every per-trial statistic (sv_partial_sd): NAN for
                                      one trial and for the extremes */
    sv_var_spread raw;           /**< spread of raw_var across the trials that measured
                                      something (raw_var not NAN: sv_partial_mean) */
    sv_var_spread scaled;        /**< spread of scaled_var across them */
    sv_theory raw_theory;        /**< theory for raw scores (theory.h) */
    sv_theory scaled_theory;     /**< theory for the scaled logits c S: variances c^2 */
    double scale;                /**< c, the multiplier of the scaled logits */
    double qk_radius;            /**< the row norm under QK-norm, else NAN */
    double observed;             /**< the --observed value, or NAN */
    double raw_var_cdf_observed; /**< fraction of the trials that measured something
                                      with raw_var <= observed, or NAN */
} sv_summary;

/**
 * Quantile of sorted values x[0 .. n-1] at probability p in [0, 1] by linear
 * interpolation between order statistics: h = (n - 1) p,
 * x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). This is
 * Hyndman & Fan (1996) definition 7, numpy's default ('linear').
 * @return NAN for n = 0, x NULL, or p outside [0, 1] or NaN (never an
 *         index outside x).
 */
double sv_quantile_sorted(const double *x, size_t n, double p);

/**
 * A summary being built from chunks of trials (opaque): sv_summary_begin
 * creates it, sv_summary_add takes the trials in order (any chunk sizes),
 * sv_summary_end finishes and frees it. Memory: two doubles per trial (for
 * the quantiles), so a caller need not keep every sv_trial_stats. The
 * trials go into an sv_partial (partial.h): sums over blocks of
 * SV_SUMMARY_BLOCK trials numbered from trial 0, added in block order, so
 * the same bits for any chunking, and a partial merged from shards gives
 * the same summary. (run.h's sv_run drives the engine into one.)
 */
typedef struct sv_summary_acc sv_summary_acc;

/**
 * Creates a summary of spec->trials trials (trials 0 .. spec->trials - 1)
 * in *acc, to be finished (and freed) by sv_summary_end.
 * @param spec a resolved spec (sv_spec_resolve).
 * @return SV_OK; the errors of sv_spec_check; SV_EINVAL for acc NULL or
 *         trials x 8 bytes past SIZE_MAX (above 2^29 trials in 32-bit
 *         WebAssembly); SV_ENOMEM (*acc NULL then, nothing to free).
 */
sv_status sv_summary_begin(const sv_spec *spec, sv_summary_acc **acc);

/**
 * Adds the next @p count trials, t[0 .. count - 1], in trial order.
 * @return SV_OK; SV_EINVAL if count exceeds the trials left (spec->trials
 *         minus those added): nothing is added then; SV_ENOMEM.
 */
sv_status sv_summary_add(sv_summary_acc *acc, const sv_trial_stats *t, size_t count);

/**
 * Finishes into *out and frees acc: means from the partial
 * (sv_partial_mean), spreads and quantiles of raw_var and scaled_var,
 * theory beside; @p observed as in sv_summary_compute.
 * @return SV_OK; SV_EINVAL if fewer than spec->trials trials were added or
 *         out is NULL (acc freed anyway: a caller that gives up on a
 *         summary passes out NULL to free it; acc NULL: SV_EINVAL, nothing
 *         done); the errors of sv_theory_spec.
 */
sv_status sv_summary_end(sv_summary_acc *acc, double observed, sv_summary *out);

/**
 * A summary of the trials in @p part (which must hold trials
 * 0 .. spec->trials - 1, e.g. merged from shards with sv_partial_merge):
 * what sv_summary_end gives after adding the same trials. Reorders
 * part's raw_var and scaled_var (for the quantiles); frees nothing.
 * @return SV_OK; SV_EINVAL if part does not hold exactly those trials;
 *         the errors of sv_theory_spec.
 */
sv_status sv_summary_from_partial(const sv_spec *spec, sv_partial *part, double observed,
                                  sv_summary *out);

/** sv_summary_from_partial_want's @p want: the 5/50/95 % quantiles of
 *  raw_var and scaled_var. */
#define SV_SUMMARY_QUANTILES 1u

/**
 * sv_summary_from_partial, computing beyond the means and standard
 * deviations only what @p want asks: without SV_SUMMARY_QUANTILES the six
 * quantiles (raw.q05 .. scaled.q95) are NAN and part's arrays keep their
 * order. The quantiles' selections are the larger part of summarising
 * many cheap trials; a caller that shows none skips them. With
 * SV_SUMMARY_QUANTILES, the same as sv_summary_from_partial.
 * @return as sv_summary_from_partial.
 * Thread safety: re-entrant; OpenMP threads as sv_summary_compute's.
 * Cost: O(trials); without the quantiles two passes over each array.
 */
sv_status sv_summary_from_partial_want(const sv_spec *spec, sv_partial *part, double observed,
                                       unsigned want, sv_summary *out);

/**
 * Summarises the spec->trials per-trial results of trials 0 ..
 * spec->trials - 1 of @p spec (resolved), as sv_engine_run writes them:
 * sv_summary_begin, one sv_summary_add of them all, sv_summary_end, so
 * the same bits as any chunking. Means are sums per block of
 * SV_SUMMARY_BLOCK trials (each in trial order) added in block order,
 * divided by the count (sv_partial_mean); the standard deviation across
 * trials (ddof 1) merges each block's Welford mean and M2 in block order
 * (Chan, Golub & LeVeque 1979; sv_partial_sd).
 *
 * @param observed a raw sample variance to locate in the distribution
 *                 (e.g. 1.6), or NAN for none.
 * @return SV_OK; SV_EINVAL for per_trial or out NULL; the errors of
 *         sv_spec_check and sv_theory_spec; SV_ENOMEM if the arrays for
 *         the quantiles cannot be allocated (*out untouched after an
 *         error).
 * Thread safety: re-entrant (all state in the arguments); it runs OpenMP
 * threads of its own: the blocks' sums in parallel for more than 8 blocks,
 * and the two spreads (raw, scaled) in two threads above 100000 trials.
 * Cost: O(trials) (expected: the quantiles by selection, not sorting), two
 * doubles per trial of memory.
 */
sv_status sv_summary_compute(const sv_spec *spec, const sv_trial_stats *per_trial, double observed,
                             sv_summary *out);

/**
 * What a per-head or pooled row of measured Q and K (SV_OUTPUT_PER_HEAD,
 * columns.h) reads, for the CLI and the Python package alike: *plug is
 * @p spec with the measured moments of @p stats (sv_theory_plugin_spec),
 * the spec the row's view points to, and *out is @p pooled (the summary of
 * all trials, for the pooled row, whose mean @p stats is) or, with pooled
 * NULL, a summary of the one trial @p stats (its mean; spreads 0, scale set,
 * qk_radius and observed NAN), either way with plug's theory in raw_theory
 * and scaled_theory (sv_theory_spec, sv_theory_scale: the plug-in theory,
 * docs/theory.md section 13). Without a plug-in (moments not measured, or
 * a spec they fail) *plug is @p spec and both theories are NAN.
 * @return SV_OK; SV_EINVAL for spec, stats, plug or out NULL (outputs
 *         untouched).
 */
sv_status sv_summary_head(const sv_spec *spec, const sv_trial_stats *stats,
                          const sv_summary *pooled, sv_spec *plug, sv_summary *out);

#endif
