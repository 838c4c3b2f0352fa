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
 * work times (row_end - row_begin) / n_q.
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

#endif
