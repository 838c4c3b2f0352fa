/**
 * @file experiment.h
 * The experiment: draw Q and K, form raw scores S = Q K^T and scaled scores
 * S / sqrt(d_k) block by block, and reduce them to per-trial statistics
 * without ever holding the n_q x n_k score matrix.
 */
#ifndef SDPA_VAR_EXPERIMENT_H
#define SDPA_VAR_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/sampler.h"
#include "sdpa_var/status.h"

/**
 * Progress callback: @p done of @p total units of work (score tiles) are
 * finished. Called from one thread only (OpenMP thread 0), after that
 * thread finishes a unit, so it never runs concurrently with itself; it
 * should return quickly. The library itself never prints.
 */
typedef void (*sv_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/** Initialisation of W_Q and W_K (entries normal with mean 0). */
typedef enum sv_init {
    SV_INIT_XAVIER = 0, /**< variance 2 / (d_model + d_k): Glorot & Bengio 2010, normal */
    SV_INIT_LECUN = 1,  /**< variance 1 / d_model: LeCun et al. 1998 */
    SV_INIT_NORMAL = 2  /**< variance 1 */
} sv_init;

/** Variance of one entry of W under @p init; NAN for a value out of range. */
double sv_init_variance(sv_init init, size_t d_model, size_t d_k);

/** One experiment configuration (one d_k). Zero-initialise, then set. */
typedef struct sv_config {
    size_t d_k;        /**< dimension of each query and key vector, >= 1 */
    size_t n_q;        /**< number of queries (rows of Q), >= 1 */
    size_t n_k;        /**< number of keys (rows of K), >= 1 */
    uint64_t trials;   /**< independent repetitions, >= 1 */
    uint64_t first_trial; /**< number of the first trial (its streams): a run
                            of trials in chunks [0, a), [a, b), ... gives
                            the same numbers as one run of them all */
    uint64_t seed;     /**< any value; same seed, same numbers */
    sv_dist dist;      /**< distribution of the entries of Q and K (before
                            q_mean, q_std, k_mean, k_std) */
    double nu;         /**< degrees of freedom when dist is SV_DIST_STUDENT_T, > 4 */
    double scale;      /**< the "scaled" logits are S / scale; 0 means sqrt(d_k)
                            (Vaswani et al. 2017), 1 means none, d_k the muP
                            choice; > 0 */
    double q_mean;     /**< entries of Q are q_mean + q_std x, x of dist */
    double q_std;      /**< > 0; 0 is taken as 1, so a zeroed config is unit */
    double k_mean;     /**< entries of K are k_mean + k_std x */
    double k_std;      /**< as q_std */
    int qk_norm;       /**< nonzero: every row of Q and K is rescaled to L2 norm
                            qk_scale before the product (QK-norm, as in
                            Dehghani et al. 2023, ViT-22B) */
    double qk_scale;   /**< that norm; 0 means sqrt(d_k), the norm a unit-variance
                            row has on average */
    size_t d_model;    /**< > 0: Q = X W_Q and K = X W_K (or X' W_K with cross):
                            X is n x d_model with entries of dist (unit
                            variance), W_Q and W_K d_model x d_k drawn with
                            init per trial; 0: Q and K drawn directly */
    sv_init init;      /**< initialisation of W_Q and W_K */
    int cross;         /**< with d_model: keys from their own tokens X' */
    int causal;        /**< nonzero: query i sees keys 0 .. i only (decoder
                            attention); needs n_q = n_k; the statistics are
                            over the n (n + 1) / 2 visible scores */
    int values;        /**< nonzero: also draw V (n_k x d_v, entries of dist) and
                            form the attention output O = softmax(S) V, raw and
                            scaled, streamed over key blocks like the softmax */
    size_t d_v;        /**< columns of V; 0 means d_k */
    size_t hist_bins;  /**< > 0: count scores into hist_bins equal bins on
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
    double *row_sums;  /**< NULL, or n_q x SV_ROW_FIELDS doubles to which each
                            trial adds, row by row in trial order: raw and
                            scaled entropy, raw and scaled max weight. Trials
                            then run one after another. */
    double plant;      /**< rho in [-1, 1]: key j < min(n_q, n_k) is
                            rho q_j + sqrt(1 - rho^2) z_j, z_j its own draw, so
                            each query has one related key, as in trained
                            models; 0 plants nothing */
    unsigned ddof;     /**< delta degrees of freedom of the variance; < n_q n_k */
    size_t block_rows; /**< query rows per work item handed to a thread (rounded
                            up to whole tiles of 256); 0 means one tile.
                            Results are the same bits for every value. */
    int threads;       /**< OpenMP threads; 0 uses OpenMP's default
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

/** Statistics of one trial. "raw" is S = Q K^T, "scaled" is S / scale. */
typedef struct sv_trial_stats {
    double raw_mean;          /**< mean of the n_q n_k raw scores */
    double raw_var;           /**< their sample variance, M2 / (N - ddof) */
    double scaled_mean;       /**< raw_mean / scale */
    double scaled_var;        /**< raw_var / scale^2 */
    double raw_entropy;       /**< softmax entropy (nats) of a raw row, mean over the n_q rows */
    double scaled_entropy;    /**< the same for scaled rows */
    double raw_max_weight;    /**< max softmax weight of a row, mean over rows */
    double scaled_max_weight; /**< the same for scaled rows */
    double raw_jac_trace;     /**< 1 - sum_j p_j^2 of a row, mean over rows */
    double scaled_jac_trace;  /**< the same for scaled rows */
    double raw_var_known_mean; /**< sum (S - E[S])^2 / N with the known mean
                                    E[S] = d_k q_mean k_mean */
    double raw_var_ddof0;     /**< M2 / N, whatever cfg->ddof is */
    double raw_var_ddof1;     /**< M2 / (N - 1); NAN for N = 1 */
    double raw_jac_frob;      /**< Frobenius norm of the softmax Jacobian, mean over rows */
    double scaled_jac_frob;   /**< the same for scaled rows */
    double raw_eff_keys;      /**< exp(entropy): effective number of keys, mean over rows */
    double scaled_eff_keys;   /**< the same for scaled rows */
    double raw_entropy_min;   /**< smallest row entropy (nats) */
    double raw_entropy_max;   /**< largest row entropy */
    double scaled_entropy_min; /**< the same for scaled rows */
    double scaled_entropy_max;
    double raw_max_abs_logit; /**< max |S_ij| over the trial; scaled: divide by scale */
    double raw_diag_logit;  /**< S_ii, mean over i < min(n_q, n_k), for pairs that
                                 share something: the planted key (plant) or the
                                 same token (d_model without cross); else NAN */
    double raw_diag_weight; /**< softmax weight of key i in row i, raw logits */
    double scaled_diag_weight; /**< the same for scaled logits */
    double q_var;             /**< sample variance (ddof 0) of the n_q d_k entries of Q,
                                   measured with d_model or qk_norm; else NAN
                                   (the configured q_std^2 holds) */
    double k_var;             /**< the same for K */
    double raw_out_var;       /**< with values: mean of the squares of the n_q d_v
                                   entries of O = softmax(S) V (their variance
                                   about the known mean 0); else NAN */
    double scaled_out_var;    /**< the same with softmax(S / scale) */
    double raw_sum_p2;        /**< sum_j p_j^2 of a row, mean over rows = 1 - jac trace:
                                   what Var(O) should be, V having variance 1 */
    double scaled_sum_p2;     /**< the same for scaled rows */
} sv_trial_stats;

/** Per-row sums in sv_config.row_sums, in this order. */
#define SV_ROW_FIELDS 4

/** Number of doubles in sv_trial_stats (it holds nothing else). */
#define SV_TRIAL_FIELDS 31

/**
 * Checks a configuration before any work.
 * @return SV_OK; SV_EINVAL if d_k, n_q, n_k or trials is 0, ddof >= n_q n_k,
 *         dist is out of range (or a t with nu <= 4), threads < 0, scale,
 *         q_std, k_std or qk_scale negative or not finite, a mean not
 *         finite, plant outside [-1, 1], causal with n_q != n_k, a
 *         histogram with hist_lo >= hist_hi, NULL arrays or weight bins
 *         with n_k > 4096, or
 *         projections combined with plant or shifted entries; SV_ERANGE if n_q n_k,
 *         (n_q + n_k) d_k or the bytes of the work arrays overflow size_t;
 *         SV_ETOOBIG if d_k or n_k exceeds INT_MAX (CBLAS takes int sizes).
 */
sv_status sv_config_check(const sv_config *cfg);

/**
 * sv_config_check, and which field failed.
 *
 * Same rules, same order, same status as sv_config_check; in addition
 * *field (when @p field is not NULL) is set to the name of the sv_config
 * member a rule blames, spelled as in the struct ("d_k", "ddof", "q_mean",
 * "causal", ...), so that a caller can name its own option for it. A rule
 * on several fields blames the one that enables it: "causal" for
 * n_q != n_k, "cross" without d_model, "plant" (or "q_mean", ...) with
 * d_model, "nu" for a Student t with nu <= 4, "hist_bins" for any histogram
 * setting, "n_q" when n_q n_k or (n_q + n_k) d_k bytes overflow, "d_model"
 * when the d_model x d_k weights overflow; "cfg" when @p cfg is NULL.
 *
 * @return the status of sv_config_check; *field is a static string on an
 *         error, NULL on SV_OK. Thread-safe.
 */
sv_status sv_config_check_field(const sv_config *cfg, const char **field);

/**
 * Bytes of memory sv_experiment_run allocates for @p cfg, not counting the
 * caller's per_trial array. Per worker (one per thread when whole trials run
 * in parallel, else one shared): a key block of min(n_k, 4096) x d_k
 * doubles, per thread a query tile of min(n_q, 256) x d_k and a score tile
 * of min(n_q, 256) x min(n_k, 4096) doubles, and 136 bytes per query row
 * (times 64 for tiny trials, which run 64 at a time). Neither Q nor K is
 * ever held whole: --dk 128 --n 65536 needs about 30 MiB. Lets a caller
 * refuse a size that cannot fit.
 * @return SV_OK and *bytes set; the errors of sv_config_check, *bytes untouched.
 */
sv_status sv_experiment_bytes(const sv_config *cfg, size_t *bytes);

/**
 * Runs cfg->trials trials and writes one sv_trial_stats per trial.
 *
 * per_trial[t] is trial first_trial + t, which draws row i of Q from the
 * stream sv_rng_seed_row(seed, first_trial + t,
 * SV_MATRIX_Q, i) and row j of K from (seed, t, SV_MATRIX_K, j), each row
 * d_k values of cfg->dist. Keys are taken in blocks of 4096 (outer loop, in
 * key order) and query rows in tiles of 256 (inner loop, across threads);
 * each tile's raw scores S = Q K^T come from one cblas_dgemm of a fixed
 * shape (plain loops when the tile product has at most 512 multiply-adds).
 * Each (row, key block) yields two-pass moments and partial softmax sums
 * (sv_softmax_acc_rows, scaled logits S / sqrt(d_k)); they are merged into
 * the row in key order (Chan et al. 1979; online softmax), and rows into
 * the trial in row order. So results are the same bits for any
 * block_rows or threads. The n_q x n_k score matrix is never held.
 *
 * @param per_trial array of cfg->trials entries, written in trial order.
 * @return SV_OK; the errors of sv_config_check; SV_ENOMEM if a work array
 *         cannot be allocated. After an error per_trial may be partly written.
 * Cost: per trial 2 n_q n_k d_k flops in dgemm, 2 n_q n_k exp,
 *       (n_q ceil(n_k / 4096) + n_k) d_k normal draws; memory as
 *       sv_experiment_bytes.
 * Thread safety: re-entrant, except that it sets OpenBLAS to one thread per
 * call (openblas_set_num_threads(1), a process-wide setting) because it
 * runs its own OpenMP threads.
 */
sv_status sv_experiment_run(const sv_config *cfg, sv_trial_stats *per_trial);

#endif
