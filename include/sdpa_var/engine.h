/**
 * @file engine.h
 * The engine: rows from a source (source.h) -> score tiles S = Q K^T
 * (one dgemm per tile) -> a fused pass over each row (moments, online
 * softmax, optional taps) -> per-trial statistics. The n_q x n_k score
 * matrix is never held. The steps in order: a plan (sizes, every check),
 * tile products (and --values outputs), the row pass, rows folded into a
 * trial (rowfold.h), the backward passes of --grad, threads over trials;
 * docs/architecture.md draws them.
 *
 * Thread safety, every function here unless its docstring says: re-entrant
 * (all state in the arguments), so calls on distinct outputs may run at
 * once. Cost, every function here unless its docstring says: O(1).
 */
#ifndef SDPA_VAR_ENGINE_H
#define SDPA_VAR_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/source.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"

/**
 * Progress callback: @p done of @p total units of work (score tiles) are
 * finished. Called from one thread only (OpenMP thread 0), after that
 * thread finishes a unit, so it never runs concurrently with itself; it
 * should return quickly. A run that succeeds always ends with a call
 * where done == total (made from the calling thread after the work, if
 * thread 0's last call did not already say so). The library itself never
 * prints.
 */
typedef void (*sv_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/** How to run: none of it changes a single bit of the results. */
typedef struct sv_exec {
    int threads;                /**< OpenMP threads; 0 uses OpenMP's default
                                     (OMP_NUM_THREADS, else all cores); >= 0 */
    size_t block_rows;          /**< query rows per work item handed to a thread
                                     (rounded up to whole tiles of 256); 0 means
                                     one tile */
    sv_progress_fn progress;    /**< NULL, or called as work completes */
    void *progress_ctx;         /**< passed to progress */
    const volatile int *cancel; /**< NULL, or a flag the engine reads (relaxed)
                                     between work items (score tiles; trials;
                                     the backward passes' tiles), which another
                                     thread may set: once it is nonzero, each
                                     thread skips the rest of its work, so the
                                     run stops within one tile per thread, and
                                     returns SV_ECANCELED; partial results are
                                     discarded (no output). A plain int suits:
                                     a binding's ctypes c_int, set by the
                                     thread that caught Ctrl-C. */
} sv_exec;

/** Most keys (n_k) for a histogram of the softmax weights (sv_taps): a
 * row's weights need its whole row of keys in one key block. */
#define SV_WEIGHT_HIST_KEYS_MAX 4096

/** Per-row sums in sv_taps.row_sums, in this order. */
#define SV_ROW_FIELDS 4

/** @name sv_taps.skip bits
 * Groups of per-trial statistics a caller does not read, which the engine
 * then leaves uncomputed: their fields come out NAN (never SV_EOVERFLOW)
 * and every other field keeps its bits. A million trials of 2 x 2 scores
 * spend about a tenth of their time on these (the sink weight takes two
 * exps a row). The fields of each group are SV_TRIAL_STATS_MAP's (its skip
 * column); sv_column_reads (columns.h) says which columns read which.
 * @{ */
#define SV_SKIP_JAC_FROB 1u      /**< the Jacobians' Frobenius norms */
#define SV_SKIP_ENTROPY_RANGE 2u /**< the row entropies' extremes and normalised mean */
#define SV_SKIP_SINK 4u          /**< the weights of each row's first visible key */
#define SV_SKIP_LOGITS 8u        /**< the logits' extremes */
#define SV_SKIP_SUM_P2 16u       /**< the sums of p^2 */
#define SV_SKIP_VARIANCE 32u     /**< the variances about the known mean, with ddof 0 and 1 */
#define SV_SKIP_ALL 63u          /**< every bit above */
#define SV_SKIP_NONE 0u          /**< the skip of a field always computed */
/** @} */

/**
 * Optional outputs beside the per-trial statistics, owned by the caller and
 * added to (never cleared) by the engine. Zero-initialised: no taps.
 */
typedef struct sv_taps {
    size_t hist_bins; /**< > 0: count scores into hist_bins equal bins on
                           [hist_lo, hist_hi): raw S into hist_raw, scale S
                           into hist_scaled (hist_bins + 1 counts each, the
                           last for values outside the range); and, if
                           hist_w_raw is not NULL, softmax weights into
                           hist_bins bins on [0, 1] (weight 1 in the last) of
                           hist_w_raw and hist_w_scaled (hist_bins + 1 counts
                           each, the last unused), which needs n_k <=
                           SV_WEIGHT_HIST_KEYS_MAX */
    double hist_lo, hist_hi;
    uint64_t *hist_raw, *hist_scaled, *hist_w_raw, *hist_w_scaled;
    double *row_sums; /**< NULL, or n_q x SV_ROW_FIELDS doubles to which each
                           trial adds, row by row in trial order: raw and
                           scaled entropy, raw and scaled max weight. Trials
                           then run one after another. */
    unsigned skip;    /**< SV_SKIP_* bits: statistics not to compute; 0
                           computes every one */
} sv_taps;

/**
 * Checks taps against @p spec.
 * @return SV_OK (also for taps NULL, or hist_bins 0 and valid skip bits:
 *         no histogram); SV_EINVAL for skip bits outside SV_SKIP_ALL, for
 *         a histogram with hist_lo >= hist_hi or not finite, NULL arrays
 *         or spec, weight bins with n_k > SV_WEIGHT_HIST_KEYS_MAX or
 *         without hist_w_scaled.
 */
sv_status sv_taps_check(const sv_taps *taps, const sv_spec *spec);

/**
 * The per-trial statistics, one table: X(name, reduce, number, skip) per field of
 * sv_trial_stats, in order. Every field is a double. @c reduce says how
 * sv_partial_mean combines trials: MEAN (the mean over trials, with a
 * standard deviation), MIN or MAX (the extreme over trials, no spread).
 * @c number says when the engine must produce a number, not NaN (else
 * SV_EOVERFLOW): ALWAYS, GRAD (with spec->grad), VALUES (with values),
 * MAYBE (NaN has a meaning: see the field). @c skip is the field's
 * SV_SKIP_* group (SV_SKIP_##skip), which sv_taps.skip leaves NaN, or
 * NONE for a field always computed: the one place a field's group is
 * written (the engine's NaN check forgives skipped ALWAYS fields by it,
 * sv_column_reads finds the columns of a group by it). "raw" is S = Q K^T,
 * "scaled" is scale S. A new statistic is a line here (at the end: field
 * order is ABI), its computation in the engine's fold of rows (rowfold.h)
 * and its column in the column table (columns.h).
 */
#define SV_TRIAL_STATS_MAP(X)                                                                      \
    X(raw_mean, MEAN, ALWAYS, NONE)    /* mean of the n_q n_k raw scores */                        \
    X(raw_var, MEAN, ALWAYS, NONE)     /* their sample variance, M2 / (N - ddof) */                \
    X(scaled_mean, MEAN, ALWAYS, NONE) /* raw_mean * scale */                                      \
    X(scaled_var, MEAN, ALWAYS, NONE)  /* raw_var * scale2 (scale^2) */                            \
    /* softmax entropy (nats) of a raw row, mean over the n_q rows */                              \
    X(raw_entropy, MEAN, ALWAYS, NONE)                                                             \
    X(scaled_entropy, MEAN, ALWAYS, NONE)    /* the same for scaled rows */                        \
    X(raw_max_weight, MEAN, ALWAYS, NONE)    /* max softmax weight of a row, mean over rows */     \
    X(scaled_max_weight, MEAN, ALWAYS, NONE) /* the same for scaled rows */                        \
    X(raw_jac_trace, MEAN, ALWAYS, NONE)     /* 1 - sum_j p_j^2 of a row, mean over rows */        \
    X(scaled_jac_trace, MEAN, ALWAYS, NONE)  /* the same for scaled rows */                        \
    /* sum (S - E[S])^2 / N with the known mean E[S] = d_k q_mean k_mean */                        \
    X(raw_var_known_mean, MEAN, MAYBE, VARIANCE)                                                   \
    X(raw_var_ddof0, MEAN, ALWAYS, VARIANCE) /* M2 / N, whatever the spec's ddof is */             \
    X(raw_var_ddof1, MEAN, MAYBE, VARIANCE)  /* M2 / (N - 1); NAN for N = 1 */                     \
    X(raw_jac_frob, MEAN, ALWAYS,                                                                  \
      JAC_FROB) /* Frobenius norm of the softmax Jacobian, mean over rows */                       \
    X(scaled_jac_frob, MEAN, ALWAYS, JAC_FROB) /* the same for scaled rows */                      \
    X(raw_eff_keys, MEAN, ALWAYS,                                                                  \
      NONE) /* exp(entropy): effective number of keys, mean over rows */                           \
    X(scaled_eff_keys, MEAN, ALWAYS, NONE)            /* the same for scaled rows */               \
    X(raw_entropy_min, MIN, ALWAYS, ENTROPY_RANGE)    /* smallest row entropy (nats) */            \
    X(raw_entropy_max, MAX, ALWAYS, ENTROPY_RANGE)    /* largest row entropy */                    \
    X(scaled_entropy_min, MIN, ALWAYS, ENTROPY_RANGE) /* the same for scaled rows */               \
    X(scaled_entropy_max, MAX, ALWAYS, ENTROPY_RANGE)                                              \
    X(raw_max_abs_logit, MAX, ALWAYS,                                                              \
      LOGITS) /* max |S_ij| over the trial; scaled: divide by scale */                             \
    /* S_ii, mean over i < min(n_q, n_k), for pairs that share something (the source's             \
       related_diag: planted key, or the same token with d_model without cross); else NAN */       \
    X(raw_diag_logit, MEAN, MAYBE, NONE)                                                           \
    X(raw_diag_weight, MEAN, MAYBE, NONE)    /* softmax weight of key i in row i, raw logits */    \
    X(scaled_diag_weight, MEAN, MAYBE, NONE) /* the same for scaled logits */                      \
    /* sample variance (ddof 0) of the n_q d_k entries of Q, measured when the source says so      \
       (draws with d_model or qk_norm; caller arrays); else NAN (the configured q_std^2 holds) */  \
    X(q_var, MEAN, MAYBE, NONE)                                                                    \
    X(k_var, MEAN, MAYBE, NONE) /* the same for K */                                               \
    /* with values: mean of the squares of the n_q d_v entries of O = softmax(S) V (their          \
       variance about the known mean 0); else NAN */                                               \
    X(raw_out_var, MEAN, VALUES, NONE)                                                             \
    X(scaled_out_var, MEAN, VALUES, NONE) /* the same with softmax(scale S) */                     \
    /* sum_j p_j^2 of a row, mean over rows = 1 - jac trace: what Var(O) should be, V having       \
       variance 1 */                                                                               \
    X(raw_sum_p2, MEAN, ALWAYS, SUM_P2)                                                            \
    X(scaled_sum_p2, MEAN, ALWAYS, SUM_P2) /* the same for scaled rows */                          \
    /* With spec->grad (else NAN): L = sum_i g_i . o_i, O = softmax(c S) V,                        \
     * G and V of standard entries; per row z = c s_i, p = softmax(z),                             \
     * g = dL/dz_i, g_j = p_j (g_i . v_j - g_i . o_i); raw c = 1. Means of                         \
     * squares, so that means over trials give root mean squares over rows                         \
     * and trials (the columns take the square root). */                                           \
    X(raw_grad_logits2, MEAN, GRAD, NONE)    /* |dL/dz_i|^2, mean over rows */                     \
    X(scaled_grad_logits2, MEAN, GRAD, NONE) /* the same for the scaled logits */                  \
    /* d_v |J_i|_F^2, mean over rows: E[|dL/dz_i|^2] given the weights, J = diag(p) - p p^T */     \
    X(raw_grad_logits_theory2, MEAN, GRAD, NONE)                                                   \
    X(scaled_grad_logits_theory2, MEAN, GRAD, NONE) /* the same for the scaled logits */           \
    /* (sum_j g_j^2)^2 / sum_j g_j^4, mean over rows: the effective number of keys the logit       \
       gradient reaches (0 for a row whose gradient is 0: one visible key) */                      \
    X(raw_grad_keys, MEAN, GRAD, NONE)                                                             \
    X(scaled_grad_keys, MEAN, GRAD, NONE) /* the same for the scaled logits */                     \
    X(raw_grad_q2, MEAN, GRAD, NONE)      /* |dL/dq_i|^2 = |c sum_j g_j k_j|^2, mean over rows */  \
    X(scaled_grad_q2, MEAN, GRAD, NONE)   /* the same for the scaled logits */                     \
    X(raw_grad_k2, MEAN, GRAD, NONE)      /* |dL/dk_j|^2 = |c sum_i g_ij q_i|^2, mean over keys */ \
    X(scaled_grad_k2, MEAN, GRAD, NONE)   /* the same for the scaled logits */                     \
    /* mean of the n_q d_k entries of Q, measured when q_var is; else NAN */                       \
    X(q_mean, MEAN, MAYBE, NONE)                                                                   \
    X(k_mean, MEAN, MAYBE, NONE) /* the same for K */                                              \
    /* softmax weight of the first key the row sees, mean over rows: the attention-sink share      \
       (Xiao et al. 2023). Key 0 unless keys before it are hidden: by a source mask (a left-padded \
       sequence's first real token) or a window (key max(0, i - W + 1) for row i) */               \
    X(raw_sink_weight, MEAN, ALWAYS, SINK)                                                         \
    X(scaled_sink_weight, MEAN, ALWAYS, SINK) /* the same for scaled logits */                     \
    /* row entropy / ln(keys the row sees): n_k, or min(i + 1, n_k) for row i under causal;        \
       mean over the rows that see at least 2 keys, NAN if none does. 1 for uniform weights, 0     \
       for one-hot */                                                                              \
    X(raw_entropy_norm, MEAN, MAYBE, ENTROPY_RANGE)                                                \
    X(scaled_entropy_norm, MEAN, MAYBE, ENTROPY_RANGE) /* the same for scaled rows */              \
    /* max S_ij over the visible scores of the trial, signed (the S_max of QK-clip); scaled:       \
       times scale (> 0); NAN if no row sees a key */                                              \
    X(raw_max_logit, MAX, MAYBE, LOGITS)                                                           \
    /* query rows that see no key (a mask or window excludes all): left out of every mean over     \
       rows; 0 without a mask */                                                                   \
    X(rows_empty, MEAN, ALWAYS, NONE)

/** Statistics of one trial: the fields of SV_TRIAL_STATS_MAP. */
typedef struct sv_trial_stats {
#define SV_TRIAL_FIELD_(name, reduce, number, skip) double name;
    SV_TRIAL_STATS_MAP(SV_TRIAL_FIELD_)
#undef SV_TRIAL_FIELD_
} sv_trial_stats;

/** Number of doubles in sv_trial_stats (it holds nothing else). */
#define SV_TRIAL_ONE_(name, reduce, number, skip)                                                  \
    +1 /* NOLINT(bugprone-macro-parentheses): a term */
#define SV_TRIAL_FIELDS (0 SV_TRIAL_STATS_MAP(SV_TRIAL_ONE_))

/**
 * Number of fields of sv_trial_stats: SV_TRIAL_FIELDS, for callers that
 * read the table at run time (bindings).
 * @return SV_TRIAL_FIELDS. Thread-safe. Cost: O(1).
 */
size_t sv_trial_field_count(void);

/**
 * Name of field @p i of sv_trial_stats, as in SV_TRIAL_STATS_MAP: field i
 * is the double at byte offset i * sizeof(double).
 * @return a static string such as "raw_mean"; NULL for i >= SV_TRIAL_FIELDS.
 *         Thread-safe. Cost: O(1).
 */
const char *sv_trial_field_name(size_t i);

/**
 * Bytes of memory sv_engine_run allocates for trials of @p spec, not
 * counting the caller's output array. Per worker (one per thread when whole
 * trials run in parallel, else one shared): a key block of
 * min(n_k, 4096) x d_k doubles, per thread a query tile of min(n_q, 256) x
 * d_k and a score tile of min(n_q, 256) x min(n_k, 4096) doubles, and 136
 * bytes per query row (times 64 for tiny trials, which run 64 at a time),
 * plus the source's per-trial state and scratch. Neither Q nor K is ever
 * held whole: d_k 128, n 65536 needs about 30 MiB. With spec->grad, also
 * the backward passes' arena: dL/dq and dL/dk (2 (n_q + n_k) d_k doubles),
 * 13 doubles per query row, a query block of 4096 rows of Q and
 * G, and per thread the larger of the two passes' tiles.
 * @return SV_OK and *bytes set; the errors of sv_spec_check and
 *         sv_taps_check (taps may be NULL); SV_EINVAL for a negative
 *         thread count or NULL spec, src, exec or bytes, or for
 *         spec->scale_logn with a source mask or histogram taps (they take
 *         one multiplier); SV_ERANGE if the total overflows size_t.
 *         *bytes untouched after an error.
 */
sv_status sv_engine_bytes(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                          const sv_taps *taps, uint64_t count, size_t *bytes);

/**
 * Runs trials first .. first + count - 1 of @p spec on rows from @p src and
 * writes one sv_trial_stats per trial: out[t] is trial first + t.
 *
 * Keys are taken in blocks of 4096 (outer loop, in key order) and query
 * rows in tiles of 256 (inner loop, across threads); each tile's raw
 * scores S = Q K^T come from one cblas_dgemm of a fixed shape (plain loops
 * when the tile product has at most 512 multiply-adds). Each (row, key
 * block) yields two-pass moments and partial softmax sums
 * (sv_softmax_acc_rows with the multiplier scale, or row i's c_i with
 * spec->scale_logn: sv_spec_row_scale); they are merged
 * into the row in key order (Chan et al. 1979; online softmax), and rows
 * into the trial in row order. So results are the same bits for any
 * block_rows or threads, and trials [0, a) then [a, n) give the bits of
 * [0, n). Threads take whole trials, a workspace each, for trials of
 * fewer than 65536 scores, at least 4 trials a thread, or where whole
 * trials keep more threads busy than one trial's work items do (count /
 * (threads ceil(count / threads)) against the same for the items, with
 * a key block of at most 8 MiB: 96 trials of 1024 rows on 16 threads);
 * else all threads share the tiles of one trial at a time.
 *
 * With spec->grad, two backward passes follow each trial's forward pass
 * (the scores recomputed, as FlashAttention's backward, Dao et al. 2022,
 * Algorithm 4): per row the logit gradient's sums and dL/dq_i over key
 * blocks in key order, then dL/dk_j over query blocks in row order, each
 * added in a fixed order (docs/theory.md section 12).
 *
 * @param taps NULL or optional outputs (added to).
 * @param out  array of count entries, written in trial order.
 * @return SV_OK; the errors of sv_engine_bytes and src->check; SV_EINVAL
 *         for count 0 or first + count > spec->trials; SV_ENOMEM if a work
 *         array cannot be allocated; SV_EOVERFLOW if a statistic that is a
 *         number for any spec (mean, variance, entropy, max weight,
 *         Jacobian, max |logit|, with values the output's; not those
 *         taps->skip leaves NAN) came out NaN:
 *         sv_spec_check's bound rules that out for the random draws, not
 *         for a caller's arrays; SV_ECANCELED if exec->cancel was set
 *         during the run (also when it was set after the last tile: the
 *         flag is read once more at the end). After an error out and the
 *         taps may be partly written.
 * Thread safety: the caller's OpenBLAS thread count is unchanged when the
 * last of any concurrent runs returns: it runs its own OpenMP threads, so
 * the first run to start saves openblas_get_num_threads() and sets
 * OpenBLAS to one thread, and the last to finish restores the saved count,
 * whatever the status (a counter under a mutex: OpenBLAS 0.3.21 has no
 * per-thread setting); each run restores its own thread's OpenMP thread
 * count, which an OpenMP-built OpenBLAS changes with it. The setting is
 * process-wide while runs last: the caller's own OpenBLAS calls in another
 * thread meanwhile run single-threaded (results stay correct). Otherwise
 * re-entrant: all state is in the arguments.
 * Cost: per trial 2 n_q n_k d_k flops in dgemm, 2 n_q n_k exp, and the
 *       source's rows: Q's rows once per key block (ceil(n_k / 4096)
 *       times), K's once. With grad, 16 n_q n_k d_k more dgemm flops
 *       for d_v = d_k (scores and G V^T once per pass, dL/dz times K and
 *       Q for raw and scaled) and 4 n_q n_k scalar exp.
 */
sv_status sv_engine_run(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                        const sv_taps *taps, uint64_t first, uint64_t count, sv_trial_stats *out);

#endif
