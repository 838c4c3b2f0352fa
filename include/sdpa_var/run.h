/**
 * @file run.h
 * The run driver: one configuration's trials through the engine in chunks,
 * folded into a summary, with per-chunk callbacks (rows, progress, cancel),
 * per-head rows and their pooling, and the standard error every front end
 * prints. The CLI, the Python package and the web page run through it.
 *
 * Thread safety, every function here unless its docstring says: re-entrant;
 * a runner is used by one thread at a time.
 * Cost, every function here unless its docstring says: O(1), except
 * sv_runner_step (sv_engine_run's, plus O(count) to fold the chunk), sv_run
 * (the steps' and sv_runner_end's) and sv_runner_end
 * (sv_summary_from_partial_want's).
 */
#ifndef SDPA_VAR_RUN_H
#define SDPA_VAR_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/columns.h"
#include "sdpa_var/engine.h"
#include "sdpa_var/partial.h"
#include "sdpa_var/rowfold.h"
#include "sdpa_var/source.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"
#include "sdpa_var/summary.h"

/** Which rows a run of measured heads (SV_OUTPUT_PER_HEAD) gives. Values
 *  pinned. */
typedef enum sv_pool {
    SV_POOL_HEADS = 0, /**< a row per head, then the pooled row */
    SV_POOL_NONE = 1,  /**< a row per head only */
    SV_POOL_ALL = 2    /**< the pooled row only */
} sv_pool;

/** "heads", "none", "all"; NULL for a value outside sv_pool. */
const char *sv_pool_name(sv_pool pool);

/**
 * The pool named @p name ("heads", "none" or "all", as sv_pool_name).
 * @return SV_OK; SV_EINVAL for an unknown name or NULL (*out untouched).
 */
sv_status sv_pool_from_name(const char *name, sv_pool *out);

/** sv_run_options.want: the summary (sv_runner_end), which needs first 0. */
#define SV_RUN_SUMMARY 1u
/** sv_run_options.want: the standard deviations across trials
 *  (sv_summary.sd; without it NAN: sv_partial_add_means). */
#define SV_RUN_TRIAL_SD 2u
/** sv_run_options.want: the quantiles of raw_var and scaled_var
 *  (SV_SUMMARY_QUANTILES; without it NAN). */
#define SV_RUN_QUANTILES 4u
/** Every part of the summary. */
#define SV_RUN_ALL (SV_RUN_SUMMARY | SV_RUN_TRIAL_SD | SV_RUN_QUANTILES)

/**
 * Called after each chunk with its trials first .. first + count - 1 (the
 * engine's numbers) and their statistics t[0 .. count - 1], valid until
 * the next step. Returns 0 to go on, nonzero to stop the run: the step
 * returns SV_ECANCELED.
 */
typedef int (*sv_run_chunk_fn)(void *ctx, uint64_t first, uint64_t count, const sv_trial_stats *t);

/** How a runner runs; zero-initialise, then set what you need. */
typedef struct sv_run_options {
    uint64_t first;           /**< the first trial (the engine's number; a shard's
                                   slice of trials starts beyond 0) */
    uint64_t chunk;           /**< trials per engine call in sv_run; 0: all */
    unsigned want;            /**< SV_RUN_* bits; 0: no summary, only the chunks */
    double observed;          /**< as sv_summary_end's; NAN (or 0 fields: set it) */
    sv_run_chunk_fn on_chunk; /**< NULL, or called after each chunk */
    void *ctx;                /**< passed to on_chunk and progress */
    sv_progress_fn progress;  /**< NULL: exec's progress (each engine call's own);
                                   else called with done/total the fraction of
                                   the whole run's trials (total 2^30) */
    sv_trial_stats *keep;     /**< NULL, or spec->trials elements: every trial's
                                   statistics are written there (t of the
                                   callback points into it) */
} sv_run_options;

/** A run in progress (opaque): sv_runner_begin, sv_runner_step until every
 *  trial is done, sv_runner_end, sv_runner_free. */
typedef struct sv_runner sv_runner;

/**
 * Starts a run of trials opt->first .. opt->first + spec->trials - 1 of
 * @p spec (resolved) from @p src, with @p exec and @p taps (NULL: none; a
 * histogram or per-row tap accumulates over every step). The engine sees
 * spec with trials first + spec->trials (the streams are numbered by
 * trial, so a slice draws the trials of the whole run).
 * @param spec, exec as sv_engine_run's; copied.
 * @param src  built for the whole run: for a slice (opt->first > 0), from
 *             spec with trials first + spec->trials, else every step is
 *             SV_EMISMATCH; kept by pointer until sv_runner_free, as taps.
 * @param opt  NULL: as zeros with observed NAN.
 * @return SV_OK; SV_EINVAL for a NULL argument, a summary asked with
 *         first > 0, or trials that wrap; the errors of sv_spec_check and
 *         sv_taps_check; SV_ERANGE where the partial's blocks overflow
 *         size_t (sv_partial_create); SV_ENOMEM (*out NULL then).
 */
sv_status sv_runner_begin(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                          const sv_taps *taps, const sv_run_options *opt, sv_runner **out);

/**
 * Runs up to @p max_trials more trials (one engine call), folds them, and
 * calls on_chunk. *done (may be NULL): the trials done so far.
 * @return SV_OK; SV_EINVAL for max_trials 0 or a finished run; the errors
 *         of sv_engine_run (SV_ECANCELED for exec's cancel flag) and of
 *         sv_partial_add; SV_ECANCELED when on_chunk asks to stop. After
 *         an error the run can only be freed.
 */
sv_status sv_runner_step(sv_runner *r, uint64_t max_trials, uint64_t *done);

/**
 * The summary of the run, every trial done, with what opt->want asks
 * (sv_summary_from_partial_want); out may be NULL when no summary was
 * asked. May be called once.
 * @return SV_OK; SV_EINVAL if trials are left, or a summary asked for out
 *         NULL; the errors of sv_theory_spec.
 */
sv_status sv_runner_end(sv_runner *r, sv_summary *out);

/**
 * Moves the run's partial sums (every trial done; partial.h) into a new
 * partial *out (the caller's to sv_partial_free), for a state that keeps
 * them (state.h); the runner keeps none after.
 * @return SV_OK; SV_EINVAL if trials are left or they were moved already;
 *         SV_ENOMEM (the runner keeps them then).
 */
sv_status sv_runner_take_partial(sv_runner *r, sv_partial **out);

/** Frees the runner (NULL: nothing). */
void sv_runner_free(sv_runner *r);

/**
 * A whole run: sv_runner_begin, steps of opt->chunk trials, sv_runner_end
 * into @p out (NULL without SV_RUN_SUMMARY), sv_runner_free. The summary
 * has the same bits for any chunking (summary.h).
 * @return as those functions (the first error; *out untouched then).
 * Thread safety: re-entrant; the engine's OpenMP threads.
 */
sv_status sv_run(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                 const sv_taps *taps, const sv_run_options *opt, sv_summary *out);

/**
 * A row shard's run (state.h): query rows @p row_begin .. @p row_end - 1
 * of trials opt->first .. opt->first + spec->trials - 1, in engine calls
 * of opt->chunk trials (sv_engine_run_rows), their folds written to
 * folds[t nb + b] (nb = sv_rowfold_blocks(row_begin, row_end); trial
 * opt->first + t, block b), as one sv_engine_run_rows of every trial
 * writes them. The engine's numbering, @p src and opt->progress as
 * sv_runner_begin's; no summary and no on_chunk (opt->want, on_chunk and
 * keep are not read).
 * @param opt NULL: as zeros.
 * @return SV_OK; SV_EINVAL for a NULL argument or trials that wrap; the
 *         errors of sv_engine_run_rows (rows not whole blocks,
 *         SV_ECANCELED for exec's cancel flag). After an error the folds
 *         of the trials not run are left as they were. With spec->trials
 *         0 nothing is run, and the rows are not checked: SV_OK.
 * Thread safety: re-entrant; the engine's OpenMP threads. Cost:
 * sv_engine_run_rows's.
 */
sv_status sv_run_rows(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                      const sv_run_options *opt, size_t row_begin, size_t row_end,
                      sv_rowfold *folds);

/** A per-head or pooled row (sv_head_row_make): the view and what it points to. */
typedef struct sv_head_row {
    sv_spec plug;       /**< the plug-in spec (sv_summary_head) */
    sv_summary summary; /**< the row's summary */
    sv_row_view view;   /**< the row: points into this struct and the arguments */
} sv_head_row;

/**
 * The row of one head (@p head non-NULL: @p stats its trial's statistics)
 * or the pooled row (@p head NULL, @p pooled the summary of every trial,
 * stats &pooled->mean), as SV_OUTPUT_PER_HEAD reads them:
 * sv_summary_head's plug-in spec and summary, the theories NaN when
 * @p masked (no closed form for a data mask, docs/theory.md section 16).
 * *out's view points into *out, @p head and @p scale_name, so *out is not
 * to be copied while the view is read.
 * @return SV_OK; SV_EINVAL for spec, stats or out NULL, or head and pooled
 *         both NULL.
 */
sv_status sv_head_row_make(const sv_spec *spec, const char *scale_name, const sv_trial_stats *stats,
                           const sv_head *head, uint64_t trial, const sv_summary *pooled,
                           int masked, sv_head_row *out);

#endif
