/**
 * @file partial.h
 * What a range of trials leaves behind, mergeable: two runs of trials
 * [a, b) and [b, c) merged give the bits of one run of [a, c), so shards
 * (threads, processes, MPI ranks, state files) can be combined exactly.
 *
 * Sums over trials are kept per block of SV_SUMMARY_BLOCK trials aligned on
 * the absolute trial number (block k holds trials k B .. k B + B - 1), each
 * summed in trial order from 0; a summary adds the block sums in block
 * order. A range that starts inside a block keeps that block's trials one
 * by one (at most B - 1 of them) until a merge brings the block's start:
 * then they are summed in order like any other. Extremes are minima and
 * maxima (order-free); the quantiles need every trial's raw_var and
 * scaled_var, which are kept. A partial owns all its arrays (no pointers
 * into a spec or a caller), so it can be written out and read back.
 *
 * Thread safety, every function here: re-entrant; a partial written by a
 * call (init, add, merge, free) is not used by another thread meanwhile;
 * sv_partial_add runs OpenMP threads of its own for more than 8 whole
 * blocks.
 * Cost, every function here: sv_partial_create allocates room for cap trials
 * (a few doubles each); sv_partial_add O(count x SV_TRIAL_FIELDS);
 * sv_partial_merge O(b's trials and blocks x SV_TRIAL_FIELDS); mean and sd
 * O(blocks x SV_TRIAL_FIELDS + trials: those that measured nothing are
 * counted; those with no entropy_norm are counted as added, per block);
 * free O(1).
 */
#ifndef SDPA_VAR_PARTIAL_H
#define SDPA_VAR_PARTIAL_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/engine.h"
#include "sdpa_var/status.h"

/** Trials per block of the sums (see partial.h). */
#define SV_SUMMARY_BLOCK 4096u

/**
 * The extremes over trials: the fields of sv_trial_stats that
 * SV_TRIAL_STATS_MAP reduces by MIN or MAX, in its order.
 */
typedef struct sv_trial_extremes {
#define SV_TRIAL_EXTREME_MEAN_(name)
#define SV_TRIAL_EXTREME_MIN_(name) double name;
#define SV_TRIAL_EXTREME_MAX_(name) double name;
#define SV_TRIAL_EXTREME_(name, reduce, number, skip) SV_TRIAL_EXTREME_##reduce##_(name)
    SV_TRIAL_STATS_MAP(SV_TRIAL_EXTREME_)
#undef SV_TRIAL_EXTREME_
#undef SV_TRIAL_EXTREME_MAX_
#undef SV_TRIAL_EXTREME_MIN_
#undef SV_TRIAL_EXTREME_MEAN_
} sv_trial_extremes;

/** Trials [first, first + n) reduced (opaque: sv_partial_create,
 *  sv_partial_free; its layout is no ABI). */
typedef struct sv_partial sv_partial;

/**
 * An empty partial for trials starting at @p first, with room for
 * @p cap of them (sv_partial_add grows it as needed), in *out.
 * @return SV_OK; SV_EINVAL for out NULL; SV_ERANGE if first + cap
 *         overflows, or its blocks' bytes pass SIZE_MAX (cap above 2^29
 *         in 32-bit WebAssembly); SV_ENOMEM (*out NULL, nothing to free).
 */
sv_status sv_partial_create(uint64_t first, uint64_t cap, sv_partial **out);

/** The number of the first trial of @p p (0 for NULL). */
uint64_t sv_partial_first(const sv_partial *p);

/** The trials added to @p p so far (0 for NULL). */
uint64_t sv_partial_count(const sv_partial *p);

/**
 * Appends trials first + n .. first + n + count - 1, their statistics
 * t[0 .. count - 1] in trial order. Whole blocks are summed in parallel
 * (each in trial order) when there are more than 8.
 * @return SV_OK; SV_ERANGE if the trial numbers overflow; SV_ENOMEM if the
 *         arrays cannot grow (*p unchanged then).
 */
sv_status sv_partial_add(sv_partial *p, const sv_trial_stats *t, size_t count);

/**
 * sv_partial_add without the standard deviations across trials: the same
 * sums, extremes and variances, but no Welford update (a division per
 * field and trial, the larger part of adding a cheap trial). Each block
 * these trials touch gets a NAN mean and M2, so sv_partial_sd gives NAN
 * for every field once any trial came this way (a merge keeps the NAN).
 * For callers that show no such standard deviation; raw and scaled var's
 * spread (sv_summary's raw and scaled) is unaffected.
 * @return as sv_partial_add.
 * Thread safety: as sv_partial_add. Cost: O(count SV_TRIAL_FIELDS) additions.
 */
sv_status sv_partial_add_means(sv_partial *p, const sv_trial_stats *t, size_t count);

/**
 * Merges @p b, which must start where @p a ends (b->first == a->first +
 * a->n), into @p a: the result is bit for bit what adding b's trials to
 * a would have given. b is left as it was (free it yourself).
 * @return SV_OK; SV_EMISMATCH if b does not start where a ends; SV_ERANGE,
 *         SV_ENOMEM (*a unchanged then).
 */
sv_status sv_partial_merge(sv_partial *a, const sv_partial *b);

/**
 * Means over the trials: every field of sv_trial_stats summed (blocks in
 * order, a lead first as a block of its own) and divided by n, except the
 * MIN and MAX fields of SV_TRIAL_STATS_MAP (entropy minima and maxima,
 * max |logit|, max logit), which are the extremes over all trials (a
 * MAYBE field NaN in every trial stays NaN). Every field NAN for n = 0 or
 * p NULL; nothing written for mean NULL. A trial whose raw_var is NaN
 * measured nothing (every query row of a caller's head sees no key): it
 * is left out of every field's mean but q_var, k_var, q_mean, k_mean and
 * rows_empty (means over all trials), so the rest are means over the
 * trials that measured something, NAN if none did. Likewise a trial whose
 * raw_entropy_norm is NaN (no query row sees two keys: a mask that lets
 * each row see at most one, or n_k 1) is left out of raw_entropy_norm's
 * and scaled_entropy_norm's means (the engine makes the two NaN together;
 * raw_entropy_norm decides for both), NAN if no trial has one.
 */
void sv_partial_mean(const sv_partial *p, sv_trial_stats *mean);

/**
 * Standard deviations across the trials (ddof 1) of every field of
 * sv_trial_stats: each block's Welford mean and M2, merged in block order
 * (a lead first) by Chan, Golub & LeVeque (1979), so the same bits for any
 * chunking or merge of shards. NAN for fewer than two trials, and for the
 * MIN and MAX fields (extremes, not means). A field
 * that is NAN in any trial is NAN, but for the trials that measured
 * nothing and those with no entropy_norm, left out as by sv_partial_mean.
 */
void sv_partial_sd(const sv_partial *p, sv_trial_stats *sd);

/** Frees @p p and its arrays (NULL: no-op). */
void sv_partial_free(sv_partial *p);

#endif
