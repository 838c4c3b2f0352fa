/**
 * @file spec.h
 * The experiment as plain values: what is drawn (d_k, n_q, n_k, dist,
 * means, QK-norm, projections, plant, values), what is measured (scale,
 * causal mask, ddof) and how many trials from which seed. No execution
 * options (engine.h: sv_exec), no output buffers (engine.h: sv_taps), no
 * pointers: a spec can be copied, compared, hashed and written to a file.
 *
 * Thread safety, every function here: re-entrant; sv_spec_resolve writes
 * its spec, which no other thread reads meanwhile; the others are pure.
 * Cost, every function here unless its docstring says: O(1) (closed
 * forms, sv_spec_scores with a window included); sv_spec_hash O(fields).
 */
#ifndef SDPA_VAR_SPEC_H
#define SDPA_VAR_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/sampler.h"
#include "sdpa_var/status.h"

/** Initialisation of W_Q and W_K (entries normal with mean 0). */
typedef enum sv_init {
    SV_INIT_XAVIER = 0, /**< variance 2 / (d_model + d_k): Glorot & Bengio 2010, normal */
    SV_INIT_LECUN = 1,  /**< variance 1 / d_model: LeCun et al. 1998 */
    SV_INIT_NORMAL = 2  /**< variance 1 */
} sv_init;

/**
 * Variance of one entry of W under @p init: xavier 2 / (d_model + d_k),
 * lecun 1 / d_model, normal 1.
 * @return that variance; NAN for an init out of range or d_model or d_k 0.
 */
double sv_init_variance(sv_init init, size_t d_model, size_t d_k);

/**
 * How a scale left at 0 resolves (sv_spec_resolve): the names of the CLI's
 * --scale and of sv_scale_parse (param.h).
 */
typedef enum sv_scale_rule {
    SV_SCALE_SQRT = 0, /**< 1 / sqrt(d_k) (Vaswani et al. 2017), scale2 1 / d_k */
    SV_SCALE_DK = 1,   /**< 1 / d_k (muP: Yang et al. 2022) */
    SV_SCALE_NONE = 2, /**< 1 */
    SV_SCALE_LOGN = 3, /**< SSMax's s ln n, s = 1 / sqrt(d_k) (Nakanishi 2025):
                            ln(n_k) / sqrt(d_k), or per row (scale_logn) with
                            causal or a window; n_k >= 2 */
    SV_SCALE_VALUE = 4 /**< a number: the scale given (sv_scale_parse only) */
} sv_scale_rule;

/**
 * One experiment (one d_k). Zero-initialise, set what differs from the
 * defaults, then call sv_spec_resolve, which replaces every "0 means
 * default" below by its value, once. The engine reads a resolved spec and
 * never writes to it.
 */
typedef struct sv_spec {
    size_t d_k;               /**< dimension of each query and key vector, >= 1 */
    size_t n_q;               /**< number of queries (rows of Q), >= 1 */
    size_t n_k;               /**< number of keys (rows of K), >= 1 */
    uint64_t trials;          /**< independent repetitions, >= 1 */
    uint64_t seed;            /**< any value; same seed, same numbers */
    sv_dist dist;             /**< distribution of the entries of Q and K (before
                                   q_mean, q_std, k_mean, k_std) */
    double nu;                /**< degrees of freedom when dist is SV_DIST_STUDENT_T, > 4;
                                   else 0 (not set) or 6 (the default) */
    double scale;             /**< MULTIPLIER c of the scaled logits c S, as `scale=`
                                   in PyTorch's scaled_dot_product_attention: 0
                                   resolves to 1 / sqrt(d_k) (Vaswani et al. 2017);
                                   1 is none, 1 / d_k the muP choice (Yang et al.
                                   2022); > 0 once resolved */
    double scale2;            /**< c^2, the multiplier of the scaled variances: 0
                                   resolves to 1 / d_k (rounded once, not
                                   (1 / sqrt(d_k))^2) when scale was 0, else to
                                   scale^2 */
    double q_mean;            /**< entries of Q are q_mean + q_std x, x of dist */
    double q_std;             /**< > 0; 0 resolves to 1 */
    double k_mean;            /**< entries of K are k_mean + k_std x */
    double k_std;             /**< as q_std */
    int qk_norm;              /**< nonzero: every row of Q and K is rescaled to L2 norm
                                   qk_radius before the product (QK-norm, as in
                                   Dehghani et al. 2023, ViT-22B) */
    double qk_radius;         /**< that norm; with qk_norm, 0 resolves to sqrt(d_k),
                                  the norm a unit-variance row has on average */
    size_t d_model;           /**< > 0: Q = X W_Q and K = X W_K (or X' W_K with cross):
                                   X is n x d_model with entries of dist (unit
                                   variance), W_Q and W_K d_model x d_k drawn with
                                   init per trial; 0: Q and K drawn directly */
    sv_init init;             /**< initialisation of W_Q and W_K */
    int cross;                /**< with d_model: keys from their own tokens X' */
    int causal;               /**< nonzero: query i sees keys 0 .. i only (decoder
                                   attention); needs n_q = n_k; the statistics are
                                   over the n (n + 1) / 2 visible scores */
    int values;               /**< nonzero: also V (n_k x d_v, entries of dist) and the
                                   attention output O = softmax(S) V, raw and scaled */
    size_t d_v;               /**< columns of V; with values, 0 resolves to d_k */
    double plant;             /**< rho in [-1, 1]: key j < min(n_q, n_k) is
                                   rho q_j + sqrt(1 - rho^2) z_j, z_j its own draw, so
                                   each query has one related key, as in trained
                                   models; 0 plants nothing */
    unsigned ddof;            /**< delta degrees of freedom of the variance; < the
                                   number of scores */
    int grad;                 /**< nonzero (needs values): also G (n_q x d_v, entries of
                                   dist, its own stream SV_MATRIX_G) and the gradients
                                   of L = sum_i g_i . o_i through O = softmax(c S) V,
                                   raw (c = 1) and scaled (engine.h: *_grad_*) */
    size_t window;            /**< > 0: sliding window of W = window keys. With causal,
                                   query i sees keys j with i - W < j <= i (W keys,
                                   itself included: Mistral, Gemma and HF
                                   transformers' sliding_window, flash-attn's
                                   window_size (W - 1, 0)); without, |i - j| < W
                                   (2W - 1 keys, top-left aligned when n_q != n_k).
                                   0: no window. Not with grad */
    int scale_logn;           /**< nonzero: log-n scaling per row (Scalable-Softmax,
                                   Nakanishi 2025, arXiv:2501.19399): row i's
                                   multiplier is c_i = scale ln(n_i), n_i the keys
                                   it sees (sv_spec_row_keys: i + 1 under causal,
                                   its window's count with window, else n_k), so
                                   scale is SSMax's s and scale2 its s^2
                                   (sv_spec_row_scale). A row of one key has c_i 0
                                   (its softmax is weight 1 whatever c is). Not
                                   with values, grad, plant or d_model without
                                   cross (planted and shared-token logits have one
                                   multiplier). 0: one multiplier, scale, for
                                   every row */
    sv_scale_rule scale_rule; /**< with scale 0, how it resolves (SQRT: the
                           default above); read and reset to SV_SCALE_SQRT
                           by sv_spec_resolve once scale is set, so it never
                           enters a hash or a state file */
} sv_spec;

/**
 * The keys query row @p i sees under the spec's causal flag and window,
 * before any caller mask: [*lo, *hi) (empty when *lo >= *hi). Full
 * attention: [0, n_k); causal: [0, min(i + 1, n_k)); window W: from
 * max(0, i + 1 - W), up to i + 1 (causal) or i + W (not), at most n_k.
 * Thread-safe, O(1); spec NULL: [0, 0).
 */
void sv_spec_row_keys(const sv_spec *spec, size_t i, size_t *lo, size_t *hi);

/**
 * The multiplier of query row @p i's logits: spec->scale, or with
 * scale_logn spec->scale ln(n_i), n_i = hi - lo of sv_spec_row_keys (0 for
 * a row of one key, NAN for a row that sees none).
 * Thread-safe, O(1); NAN for spec NULL.
 */
double sv_spec_row_scale(const sv_spec *spec, size_t i);

/**
 * Resolves every default of @p spec in place (the only place they are
 * resolved): q_std and k_std 0 -> 1; scale 0 by scale_rule (1 / sqrt(d_k)
 * with scale2 1 / d_k; 1 / d_k; 1; ln(n_k) / sqrt(d_k), or with causal or a
 * window scale_logn and 1 / sqrt(d_k); a logn with n_k < 2 stays 0, which
 * the check refuses), scale_rule then SV_SCALE_SQRT; scale2 0 -> scale^2; with qk_norm, qk_radius 0
 * -> sqrt(d_k); with values, d_v 0 -> d_k. Idempotent. Then checks it (sv_spec_check).
 * @return the result of sv_spec_check; SV_EINVAL for NULL. After an error
 *         the spec may be partly resolved.
 */
sv_status sv_spec_resolve(sv_spec *spec);

/**
 * Largest bound on |score| a spec may have: sv_spec_check returns
 * SV_EOVERFLOW when sv_spec_score_bound exceeds it.
 *
 * Why 1e60: with |S_ij| <= B every intermediate stays finite for any
 * N = n_q n_k < 2^64 scores and any trial count below 2^64: the sum of the
 * scores (N B < 1e80), of their squared deviations (N (2B)^2 < 1e141), the
 * softmax sums (e_j <= 1, |t_j| = |S_ij - max| <= 2B), the known-mean
 * variance, and the summary's spread of per-trial variances over trials
 * (T (2 B^2)^2 < 1e261), with room for a theory value's fourth moments
 * (B^4 = 1e240). DBL_MAX is 1.8e308.
 */
#define SV_SCORE_MAX 1e60

/**
 * Largest |mean| / std allowed for the entries of Q and of K (q_mean /
 * q_std, k_mean / k_std). An entry mu + sigma x is stored to a relative
 * 2^-53 = 1.1e-16 of |mu|, so its deviation sigma x is known only to an
 * absolute 1.1e-16 |mu|: relative to sigma, 1.1e-16 |mu| / sigma. A score
 * sum_l q_l k_l inherits that relative error in its deviation from the
 * mean, and so do its sample variance and softmax. At a ratio of 1e6 that
 * is 1.1e-10, beyond the digits any statistic here is compared with; at
 * --q-mean 1e25 every deviation rounds away and the measured variance is
 * 0 where the true one is 2e50.
 */
#define SV_MEAN_STD_MAX 1e6

/**
 * An upper bound on |S_ij| and on |scale S_ij| for a resolved @p spec,
 * and on the squared norm of a row of Q or K before QK-norm, from the
 * largest |x| one draw of spec->dist can give (X = 14.4 normal, sqrt 3
 * uniform, 1 Rademacher, 1e9 Student t; derived beside the code):
 *   A_q = |q_mean| + q_std X,  A_k = |k_mean| + k_std X
 *   (with projections A_q = A_k = 14.4 d_model X: |W| <= 14.4, Var W <= 1),
 *   B = d_k (A_q + A_k)^2 (a planted key's entries are at most A_q + A_k),
 *   with QK-norm the larger of B and qk_radius^2 (|q.k| <= |q||k|); and the
 *   larger of that and that times scale (times ln n_k with scale_logn).
 * The bound holds for the random draws (sv_source_draw); a caller's arrays
 * are not bounded by it (the engine reports a NaN instead).
 * @return the bound (+inf if it overflows); NAN for NULL.
 */
double sv_spec_score_bound(const sv_spec *spec);

/**
 * Checks a resolved spec, every rule and every size in one place.
 * @return SV_OK;
 *   SV_EINVAL if d_k, n_q, n_k or trials is 0; dist out of range or a t
 *     with nu <= 4; scale, scale2, q_std or k_std not positive and finite
 *     (an unresolved spec); qk_norm with qk_radius not positive and finite;
 *     a mean not finite; plant outside [-1, 1]; causal with n_q != n_k;
 *     cross without d_model; d_model with an init out of range, plant, a
 *     mean or a std other than 1; a parameter that does nothing, set away
 *     from its default: nu (not 0 or 6) without a t, init (not xavier)
 *     without d_model, q_std or k_std (not 1) under qk_norm for rows of
 *     mean 0 without plant; values with d_v 0;
 *     grad without values; window with grad; scale_logn with values,
 *     grad, plant or d_model without cross; ddof >= the number of
 *     scores (n_q n_k, or n (n + 1) / 2 with causal, sv_spec_scores);
 *   SV_ERANGE if n_q n_k overflows 64 bits (a count: it is never stored),
 *     or (n_q + n_k) d_k, n_k d_v or d_model d_k overflow size_t, in
 *     elements or in bytes;
 *   SV_ETOOBIG if d_k, d_v or d_model exceeds INT_MAX: the engine hands
 *     them to CBLAS, which takes int (n_q and n_k reach it in tiles of at
 *     most 256 and 4096 rows, so any size_t is fine for them);
 *   SV_EOVERFLOW if sv_spec_score_bound exceeds SV_SCORE_MAX: means,
 *     standard deviations, qk_radius or scale so large that scores
 *     or their squared sums could overflow (blames the largest term:
 *     "q_mean", "q_std", "k_mean", "k_std", "qk_radius", "scale", "d_k" or
 *     "d_model");
 *   SV_EPRECISION (checked after SV_EOVERFLOW) if |q_mean| / q_std or
 *     |k_mean| / k_std exceeds SV_MEAN_STD_MAX (blames "q_mean" or
 *     "k_mean").
 * Thread safety: reads spec only.
 */
sv_status sv_spec_check(const sv_spec *spec);

/**
 * sv_spec_check, and which field failed: the same rules in the same order,
 * and *field (when @p field is not NULL) set to the name of the member a
 * rule blames, spelled as in the struct ("d_k", "ddof", "q_mean",
 * "causal", ...), so a caller can name its own option for it. A rule on
 * several fields blames the one that enables it: "causal" for n_q != n_k,
 * "cross" without d_model, "plant" (or "q_mean", ...) with d_model, "nu"
 * for a Student t with nu <= 4, "n_q" when n_q n_k or (n_q + n_k) d_k
 * bytes overflow, "d_model" when the weights overflow; "spec" for NULL.
 * @return the status of sv_spec_check; *field a static string on an
 *         error, NULL on SV_OK. Thread-safe.
 */
sv_status sv_spec_check_field(const sv_spec *spec, const char **field);

/** Parts of a run beyond its spec that a rule of the spec may refuse
 *  (sv_spec_check_use): bits. */
typedef enum sv_use {
    SV_USE_MASK = 1u << 0,            /**< a source mask (sv_source.mask) */
    SV_USE_GIVEN = 1u << 1,           /**< rows given (measured Q and K), not drawn */
    SV_USE_HISTOGRAM = 1u << 2,       /**< histograms of the scores (sv_taps) */
    SV_USE_ROW_SHARD = 1u << 3,       /**< a shard of the rows (sv_rowfold) */
    SV_USE_ONE_SCALE = 1u << 4,       /**< a front end's own use of one multiplier
                                           for every row (sv_spec_scale): the CLI's
                                           --example prints c S whole */
    SV_USE_WEIGHT_HISTOGRAM = 1u << 5 /**< histograms of the weights (sv_taps
                                           hist_w_raw): n_k at most
                                           SV_WEIGHT_HIST_KEYS_MAX */
} sv_use;

/**
 * The rules between @p spec's scale and the parts of a run in @p uses
 * (sv_use bits), on a spec resolved or not: log-n scaling (scale_rule
 * SV_SCALE_LOGN, or scale_logn) counts the keys that causal and window
 * show in drawn rows, so not with a mask or given rows; per row (causal or
 * a window: scale_logn) the histograms, row shards and any other use of one
 * multiplier for every row are refused; weight histograms bin a row's
 * weights within one block of keys (n_k <= SV_WEIGHT_HIST_KEYS_MAX).
 * The engine refuses the same (sv_engine_run's check). Docs: theory.md 15.1.
 * @return SV_OK; SV_EINVAL with *use (if not NULL) the first bit of @p uses
 *         refused and *why (if not NULL) a static reason, e.g. "logn per
 *         row (causal or window) reaches the softmax statistics only";
 *         SV_EINVAL for spec NULL (*use 0, *why ""). Thread-safe.
 */
sv_status sv_spec_check_use(const sv_spec *spec, unsigned uses, unsigned *use, const char **why);

/**
 * A 64-bit digest of every field of @p spec (fields one by one, doubles by
 * their bits, so padding never enters): equal specs hash equal, which is
 * what names shards and state files. Not cryptographic. Resolve first:
 * a spec with defaults left at 0 hashes differently from its resolved form.
 * @return the digest; 0 for NULL.
 */
uint64_t sv_spec_hash(const sv_spec *spec);

/** The multiplier c of the scaled logits c S: spec->scale (resolved); NAN for NULL. */
double sv_spec_scale(const sv_spec *spec);

/** c^2: spec->scale2 (resolved; 1 / d_k rounded once for the default); NAN for NULL. */
double sv_spec_scale2(const sv_spec *spec);

/**
 * Number of scores a trial measures: n_q n_k, or n (n + 1) / 2 with causal,
 * or the sum over rows of sv_spec_row_keys with a window (in O(1)).
 * A count in 64 bits whatever size_t is: the scores are never stored, so
 * 32-bit targets (WebAssembly) take n_q n_k >= 2^32 too.
 * @return SV_OK; SV_EINVAL for a NULL argument; SV_ERANGE if n_q n_k
 *         overflows 64 bits (*n untouched after an error). Sizes are not
 *         otherwise checked: n_q = 0 gives 0.
 */
sv_status sv_spec_scores(const sv_spec *spec, uint64_t *n);

#endif
