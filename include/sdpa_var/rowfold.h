/**
 * @file rowfold.h
 * Query rows folded into a trial in blocks, so that row shards merge
 * exactly. A trial's statistics are means over its query rows; the engine
 * folds rows in blocks of SV_FOLD_ROWS consecutive rows (block b holds rows
 * b SV_FOLD_ROWS .. (b + 1) SV_FOLD_ROWS - 1), each block from empty in row
 * order, then the blocks left to right by block index. The same fold runs
 * whatever the threads, block rows or processes: a run of rows [A, B) on
 * block boundaries (sv_engine_run_rows) leaves one sv_rowfold per block,
 * and sv_rowfold_finish of every block of a trial, from any number of such
 * runs, gives the bits sv_engine_run gives for that trial.
 *
 * Thread safety, every function here: as sv_engine_run (re-entrant); the
 * two helpers are pure.
 * Cost, every function here: O(1), except sv_engine_run_rows: sv_engine_run's
 * work times (row_end - row_begin) / n_q, and sv_trial_sums_finish: O(count).
 */
#ifndef SDPA_VAR_ROWFOLD_H
#define SDPA_VAR_ROWFOLD_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/engine.h"
#include "sdpa_var/source.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"

/** Query rows per block of the fold. */
#define SV_FOLD_ROWS 4096u
/** Counts in an sv_rowfold. */
#define SV_FOLD_COUNTS 9
/** Sums in an sv_rowfold. */
#define SV_FOLD_SUMS 54

/**
 * One block's fold of query rows (or several consecutive blocks'): counts
 * and compensated sums whose meaning is the engine's (private: read them
 * only through sv_rowfold_finish).
 * Plain numbers, no pointers: a state file stores them as they are.
 */
typedef struct sv_rowfold {
    uint64_t count[SV_FOLD_COUNTS]; /**< rows, scores, entries, ... folded */
    double sum[SV_FOLD_SUMS];       /**< means, M2s, sums and their compensations */
} sv_rowfold;

#endif /* SDPA_VAR_ROWFOLD_H: the types above, which stable headers use */

/* The functions: advanced API, declared only where SDPA_VAR_ADVANCED is
 * defined (sdpa_var.h). */
#if defined(SDPA_VAR_ADVANCED) && !defined(SDPA_VAR_ROWFOLD_H_ADVANCED)
#define SDPA_VAR_ROWFOLD_H_ADVANCED

/**
 * Blocks of the fold that rows [row_begin, row_end) touch:
 * ceil(row_end / SV_FOLD_ROWS) - row_begin / SV_FOLD_ROWS; 0 when
 * row_begin >= row_end.
 */
size_t sv_rowfold_blocks(size_t row_begin, size_t row_end);

/**
 * Whether rows [row_begin, row_end) of a trial of @p spec can be run
 * apart: 0 <= row_begin < row_end <= n_q, both on block boundaries
 * (multiples of SV_FOLD_ROWS, or n_q for row_end), no gradient
 * (spec->grad needs every row: dL/dk sums over them) and no scale_logn
 * (a fold holds the scaled moments of one multiplier).
 * @return SV_OK; SV_EINVAL otherwise or for NULL.
 */
sv_status sv_rowfold_check(const sv_spec *spec, size_t row_begin, size_t row_end);

/**
 * Runs query rows [row_begin, row_end) of trials first .. first + count -
 * 1 and leaves their folds: out[t nb + b] is block b of the range (nb =
 * sv_rowfold_blocks(row_begin, row_end)) of trial first + t. Every key is
 * seen (K's entries are measured in each run: the first block of a range
 * carries them). Costs, threads and thread safety as sv_engine_run, for
 * (row_end - row_begin) / n_q of its work.
 * @return SV_OK; the errors of sv_rowfold_check and sv_engine_run (taps
 *         none); SV_EINVAL for out NULL.
 */
sv_status sv_engine_run_rows(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                             uint64_t first, uint64_t count, size_t row_begin, size_t row_end,
                             sv_rowfold *out);

/**
 * The statistics of one trial from the folds of all its blocks,
 * blocks[0 .. nb - 1] in block order (nb = sv_rowfold_blocks(0, n_q)):
 * the bits sv_engine_run writes for it. Gradient statistics NAN (row
 * runs have none).
 * @return SV_OK; SV_EINVAL for NULL, a resolved spec that fails
 *         sv_spec_check or has scale_logn, or nb not that count; SV_EMISMATCH if the folds
 *         do not hold n_q rows.
 * Thread safety: reads its arguments only. Cost: O(nb).
 */
sv_status sv_rowfold_finish(const sv_spec *spec, const sv_rowfold *blocks, size_t nb,
                            sv_trial_stats *out);

/**
 * The named per-trial sums of sv_trial_sums_finish, one table: X(name,
 * kind) per sum, in order (sum i is column i of a trial's row). A front
 * end that measures rows itself (the Python monitor's torch backend, on
 * the device where Q and K are) accumulates these and leaves every rule
 * of a trial's statistics (NaN for nothing seen, ddof, the known-mean
 * variance, scaled = scale raw) to the library. @c kind: COUNT (a whole
 * number >= 0 held in a double, exact below 2^53), MEAN and M2 (the
 * moments {n, mean, M2 = sum of squared deviations} of the count before
 * them, moments.h), SUM (over the rows that see a key, or over rows_norm's
 * rows for the entropy_norm sums), MIN or MAX (over the rows that see a
 * key; any value when none does). Rows, keys and the raw logits S = Q K^T
 * (plus a float mask over scale) are those of SV_TRIAL_STATS_MAP; each
 * SUM's row statistic is the trial field of the same name (softmax.h:
 * entropy in nats, weights in [0, 1]), raw with multiplier 1, scaled with
 * spec->scale (each scaled sum right after its raw one, the entropies'
 * extremes in the order raw min, raw max, scaled min, scaled max).
 */
#define SV_TRIAL_SUMS_MAP(X)                                                                       \
    X(rows_seen, COUNT) /* query rows that see at least one key */                                 \
    X(scores, COUNT)    /* visible raw scores N */                                                 \
    X(score_mean, MEAN) /* their mean */                                                           \
    X(score_m2, M2)     /* the sum of their squared deviations from it */                          \
    X(q_entries, COUNT) /* entries of Q measured (n_q d_k), with their moments */                  \
    X(q_mean, MEAN)                                                                                \
    X(q_m2, M2)                                                                                    \
    X(k_entries, COUNT) /* entries of K measured (n_k d_k), with their moments */                  \
    X(k_mean, MEAN)                                                                                \
    X(k_m2, M2)                                                                                    \
    X(raw_entropy, SUM) /* the rows' softmax entropies */                                          \
    X(scaled_entropy, SUM)                                                                         \
    X(raw_max_weight, SUM) /* their largest weights */                                             \
    X(scaled_max_weight, SUM)                                                                      \
    X(raw_jac_trace, SUM) /* 1 - sum_j p_j^2 */                                                    \
    X(scaled_jac_trace, SUM)                                                                       \
    X(raw_jac_frob, SUM) /* the softmax Jacobians' Frobenius norms */                              \
    X(scaled_jac_frob, SUM)                                                                        \
    X(raw_eff_keys, SUM) /* exp(entropy) */                                                        \
    X(scaled_eff_keys, SUM)                                                                        \
    X(raw_sum_p2, SUM) /* sum_j p_j^2 */                                                           \
    X(scaled_sum_p2, SUM)                                                                          \
    X(raw_sink_weight, SUM) /* the weight of the first key the row sees */                         \
    X(scaled_sink_weight, SUM)                                                                     \
    X(rows_norm, COUNT)      /* rows that see at least 2 keys */                                   \
    X(raw_entropy_norm, SUM) /* over those: entropy / ln(keys the row sees) */                     \
    X(scaled_entropy_norm, SUM)                                                                    \
    X(raw_entropy_min, MIN) /* the rows' entropies' extremes */                                    \
    X(raw_entropy_max, MAX)                                                                        \
    X(scaled_entropy_min, MIN)                                                                     \
    X(scaled_entropy_max, MAX)                                                                     \
    X(raw_max_abs_logit, MAX) /* max |S| over the visible scores */                                \
    X(raw_max_logit, MAX)     /* max S over them, signed */

/** Number of sums in SV_TRIAL_SUMS_MAP. */
#define SV_TRIAL_SUM_ONE_(name, kind) +1 /* NOLINT(bugprone-macro-parentheses): a term */
#define SV_TRIAL_SUMS (0 SV_TRIAL_SUMS_MAP(SV_TRIAL_SUM_ONE_))

/**
 * Name of sum @p i of SV_TRIAL_SUMS_MAP, for bindings that read the table
 * at run time.
 * @return a static string such as "rows_seen"; NULL for i >= SV_TRIAL_SUMS.
 */
const char *sv_trial_sum_name(size_t i);

/**
 * The statistics of trials from their named sums: out[t] from sums[t
 * SV_TRIAL_SUMS .. (t + 1) SV_TRIAL_SUMS - 1] (@p count trials x
 * SV_TRIAL_SUMS doubles, row-major, in SV_TRIAL_SUMS_MAP's order), by the
 * engine's own finish of a trial (the code of sv_engine_run and
 * sv_rowfold_finish): means over the rows that see a key, NAN where
 * nothing was seen, raw_var with spec->ddof, the known-mean variance about
 * sv_theory_mean(spec), scaled_mean and scaled_var as scale and scale2
 * times the raw ones, rows_empty = n_q - rows_seen. Diagonal, output and
 * gradient statistics NAN (no sum carries them). Units: those of
 * sv_trial_stats. Sums other than the counts are taken as given (a NaN
 * sum gives NaN statistics).
 * @return SV_OK; SV_EINVAL for a NULL argument, a spec that fails
 *         sv_spec_check or has scale_logn (one multiplier per trial), a
 *         COUNT that is not a whole number in [0, 2^53], or counts no mask
 *         gives: rows_seen > n_q, rows_norm > rows_seen, scores outside
 *         [rows_seen + rows_norm, rows_seen n_k] (each row that sees a key
 *         sees 1 to n_k, rows_norm's 2 or more; so no score without a row
 *         and none seen exactly when no row is), scores 1 to spec->ddof
 *         (raw_var would be 0 / 0 in a trial that measured its rows:
 *         sv_strided_check's SV_STRIDED_DDOF), q_entries > n_q d_k or
 *         k_entries > n_k d_k; out untouched from the first trial at fault
 *         on.
 * Thread safety: reads its arguments only. Cost: O(count).
 */
sv_status sv_trial_sums_finish(const sv_spec *spec, const double *sums, size_t count,
                               sv_trial_stats *out);

#endif
