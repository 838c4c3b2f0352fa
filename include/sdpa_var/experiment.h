/**
 * @file experiment.h
 * The one-struct interface of earlier versions, kept while callers move to
 * the split one: spec.h (the experiment, sv_spec), engine.h (sv_exec,
 * sv_taps, sv_engine_run) and source.h (where rows come from). sv_config
 * mixes all of these; sv_experiment_run splits it (sv_config_spec,
 * sv_config_exec, sv_config_taps) and runs the engine on the spec's random
 * draws (sv_source_draw). Same numbers, same bits.
 */
#ifndef SDPA_VAR_EXPERIMENT_H
#define SDPA_VAR_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/engine.h"
#include "sdpa_var/sampler.h"
#include "sdpa_var/source.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"

/** One experiment configuration (one d_k). Zero-initialise, then set. */
typedef struct sv_config {
    size_t d_k;           /**< dimension of each query and key vector, >= 1 */
    size_t n_q;           /**< number of queries (rows of Q), >= 1 */
    size_t n_k;           /**< number of keys (rows of K), >= 1 */
    uint64_t trials;      /**< independent repetitions, >= 1 */
    uint64_t first_trial; /**< number of the first trial (its streams): a run
                            of trials in chunks [0, a), [a, b), ... gives
                            the same numbers as one run of them all */
    uint64_t seed;        /**< any value; same seed, same numbers */
    sv_dist dist;         /**< distribution of the entries of Q and K (before
                               q_mean, q_std, k_mean, k_std) */
    double nu;            /**< degrees of freedom when dist is SV_DIST_STUDENT_T, > 4 */
    double scale;         /**< DIVISOR: the "scaled" logits are S / scale; 0 means sqrt(d_k)
                               (Vaswani et al. 2017), 1 means none, d_k the muP
                               choice; > 0 */
    double q_mean;        /**< entries of Q are q_mean + q_std x, x of dist */
    double q_std;         /**< > 0; 0 is taken as 1, so a zeroed config is unit */
    double k_mean;        /**< entries of K are k_mean + k_std x */
    double k_std;         /**< as q_std */
    int qk_norm;          /**< nonzero: every row of Q and K is rescaled to L2 norm
                               qk_scale before the product (QK-norm, as in
                               Dehghani et al. 2023, ViT-22B) */
    double qk_scale;      /**< that norm; 0 means sqrt(d_k), the norm a unit-variance
                               row has on average */
    size_t d_model;       /**< > 0: Q = X W_Q and K = X W_K (or X' W_K with cross):
                               X is n x d_model with entries of dist (unit
                               variance), W_Q and W_K d_model x d_k drawn with
                               init per trial; 0: Q and K drawn directly */
    sv_init init;         /**< initialisation of W_Q and W_K */
    int cross;            /**< with d_model: keys from their own tokens X' */
    int causal;           /**< nonzero: query i sees keys 0 .. i only (decoder
                               attention); needs n_q = n_k; the statistics are
                               over the n (n + 1) / 2 visible scores */
    int values;           /**< nonzero: also draw V (n_k x d_v, entries of dist) and
                               form the attention output O = softmax(S) V, raw and
                               scaled, streamed over key blocks like the softmax */
    size_t d_v;           /**< columns of V; 0 means d_k */
    size_t hist_bins;     /**< > 0: count scores into hist_bins equal bins on
                               [hist_lo, hist_hi), raw S into hist_raw and
                               S / scale into hist_scaled (arrays of
                               hist_bins + 1 counts, added to, not cleared; the
                               last counts the values outside the range); and,
                               if hist_w_raw is not NULL,
                               softmax weights into hist_bins bins on [0, 1]
                               (weight 1 in the last), which needs
                               n_k <= 4096 (one key block) */
    double hist_lo, hist_hi;
    uint64_t *hist_raw, *hist_scaled, *hist_w_raw, *hist_w_scaled;
    double *row_sums;        /**< NULL, or n_q x SV_ROW_FIELDS doubles to which each
                                  trial adds, row by row in trial order: raw and
                                  scaled entropy, raw and scaled max weight. Trials
                                  then run one after another. */
    double plant;            /**< rho in [-1, 1]: key j < min(n_q, n_k) is
                                  rho q_j + sqrt(1 - rho^2) z_j, z_j its own draw, so
                                  each query has one related key, as in trained
                                  models; 0 plants nothing */
    unsigned ddof;           /**< delta degrees of freedom of the variance; < n_q n_k */
    size_t block_rows;       /**< query rows per work item handed to a thread (rounded
                                  up to whole tiles of 256); 0 means one tile.
                                  Results are the same bits for every value. */
    int threads;             /**< OpenMP threads; 0 uses OpenMP's default
                                  (OMP_NUM_THREADS, else all cores). Results are the
                                  same bits for every value. */
    sv_progress_fn progress; /**< NULL, or called as work completes */
    void *progress_ctx;      /**< passed to progress */
} sv_config;

/**
 * The divisor of the scaled logits for @p cfg: cfg->scale, or sqrt(d_k)
 * when it is 0.
 */
double sv_config_scale(const sv_config *cfg);

/** The square of sv_config_scale: exactly d_k by default. */
double sv_config_scale2(const sv_config *cfg);

/**
 * The experiment part of @p cfg as a resolved spec (sv_spec_resolve):
 * the fields of the same names, with spec->trials = first_trial + trials
 * (the experiment whose trials [first_trial, first_trial + trials) a run
 * of cfg computes).
 * @return the errors of sv_config_check; *spec written in any case, but
 *         meaningful only on SV_OK.
 */
sv_status sv_config_spec(const sv_config *cfg, sv_spec *spec);

/** The execution options of @p cfg (threads, block_rows, progress). */
sv_exec sv_config_exec(const sv_config *cfg);

/** The taps of @p cfg (histogram bins and arrays, row_sums). */
sv_taps sv_config_taps(const sv_config *cfg);

/**
 * Checks a configuration before any work.
 * @return SV_OK; SV_EINVAL if threads < 0; if scale, q_std, k_std or
 *         qk_scale is negative or not finite (0 means the default); if
 *         d_model is combined with q_std or k_std (its rows are
 *         projections); SV_ERANGE if first_trial + trials overflows; and
 *         the errors of sv_spec_check on the resolved spec (which returns
 *         SV_ETOOBIG for d_k, d_v or d_model above INT_MAX; n_q and n_k
 *         may be any size_t) and of sv_taps_check.
 */
sv_status sv_config_check(const sv_config *cfg);

/**
 * sv_config_check, and which field failed.
 *
 * Same rules, same status as sv_config_check; in addition *field (when
 * @p field is not NULL) is set to the name of the sv_config member a rule
 * blames, spelled as in the struct ("d_k", "ddof", "q_mean", "causal",
 * ...), so that a caller can name its own option for it: the name
 * sv_spec_check_field gives for the spec's rules, "threads",
 * "first_trial" for sv_config's own, "hist_bins" for any histogram
 * setting; "cfg" when @p cfg is NULL.
 *
 * @return the status of sv_config_check; *field is a static string on an
 *         error, NULL on SV_OK. Thread-safe.
 */
sv_status sv_config_check_field(const sv_config *cfg, const char **field);

/**
 * Bytes of memory sv_experiment_run allocates for @p cfg: sv_engine_bytes
 * of its spec, options and taps.
 * @return SV_OK and *bytes set; the errors of sv_config_check and
 *         sv_engine_bytes, *bytes untouched.
 */
sv_status sv_experiment_bytes(const sv_config *cfg, size_t *bytes);

/**
 * Runs trials first_trial .. first_trial + trials - 1 of cfg's experiment
 * on its random draws and writes one sv_trial_stats per trial:
 * sv_engine_run(spec, draws, exec, taps, cfg->first_trial, cfg->trials,
 * per_trial) with the parts sv_config_spec, sv_source_draw,
 * sv_config_exec and sv_config_taps make. Row i of Q of trial t is drawn
 * from the stream (seed, t, SV_MATRIX_Q, i), row j of K from
 * (seed, t, SV_MATRIX_K, j): a run in chunks gives the bits of one run.
 *
 * @param per_trial array of cfg->trials entries, written in trial order.
 * @return SV_OK; the errors of sv_config_check and sv_engine_run. After an
 *         error per_trial and the taps may be partly written.
 */
sv_status sv_experiment_run(const sv_config *cfg, sv_trial_stats *per_trial);

#endif
