/**
 * @file softmax.h
 * Statistics of the softmax of one row of scores: entropy, max weight and
 * the trace of the softmax Jacobian, without storing the weights.
 *
 * Errors, the same for every function here (none traps, aborts or reads
 * outside its arrays): SV_EINVAL for a NULL pointer the function reads or
 * writes, n = 0 where a row is needed, or a scale that is not positive and
 * finite, with every output untouched; SV_ERANGE for sizes whose arrays
 * would not fit in size_t bytes (n > SIZE_MAX / 8), outputs untouched.
 * A row with a NaN or an infinity (or values so far apart that s_max - s_j
 * overflows, |s| ~ 1e308) gives SV_ENONFINITE after the outputs are written:
 * they then hold NaN (the engine's scores are bounded by SV_SCORE_MAX
 * = 1e60, so it never sees this).
 *
 * Vocabulary: `scale` is the MULTIPLIER c of the scaled logits c s, as
 * `scale=` in PyTorch's scaled_dot_product_attention (c = 1 / sqrt(d_k)
 * for Vaswani et al.'s scaling), here and in spec.h, so a caller passes
 * spec->scale.
 *
 * Thread safety, every function here unless its docstring says: re-entrant;
 * each reads its inputs and writes only its outputs.
 * Cost, every function here unless its docstring says: the row functions
 * 2 exps per key (two passes), sv_softmax_acc_rows and _stats_rows that
 * per row, sv_softmax_acc_merge and sv_softmax_acc_stats O(1) (a few exps
 * and a log).
 */
#ifndef SDPA_VAR_SOFTMAX_H
#define SDPA_VAR_SOFTMAX_H

#include <stddef.h>

/** What the softmax of one row of logits looks like. */
typedef struct sv_softmax_stats {
    double entropy;    /**< H = -sum p_j ln p_j, in nats; 0 (one-hot) .. ln n (uniform) */
    double max_weight; /**< max_j p_j; 1/n (uniform) .. 1 (one-hot) */
    double jac_trace;  /**< trace of J = diag(p) - p p^T: sum p_j (1 - p_j) = 1 - sum p_j^2 */
    double jac_frob;   /**< Frobenius norm of J: sqrt(sum p^2 - 2 sum p^3 + (sum p^2)^2) */
    double eff_keys;   /**< exp(entropy): the effective number of keys attended */
} sv_softmax_stats;

#endif /* SDPA_VAR_SOFTMAX_H: the type above, which columns.h uses */

/* The functions: advanced API, declared only where SDPA_VAR_ADVANCED is
 * defined (sdpa_var.h). */
#if defined(SDPA_VAR_ADVANCED) && !defined(SDPA_VAR_SOFTMAX_H_ADVANCED)
#define SDPA_VAR_SOFTMAX_H_ADVANCED

#include "sdpa_var/moments.h"
#include "sdpa_var/status.h"

/**
 * Softmax statistics of the logits c * s[0 .. n-1] for two scales at
 * once: c = 1 (raw scores) into *raw and c = @p scale (e.g. 1/sqrt(d_k)) into
 * *scaled, in one pass over s.
 *
 * With m = max_j s_j (so c m is the max of c s for c > 0),
 * e_j = exp(c (s_j - m)) <= 1, and r = Z - 1 = the sum of e_j over all but
 * the first max (whose e is exactly 1):
 *   p_j = e_j / Z,   max weight = 1 / Z,
 *   H = ln(1 + r) - (c / Z) sum e_j (s_j - m)   (log1p; no per-element log),
 *   1 - sum p_j^2 = (2r + r^2 - sum_{j != max} e_j^2) / Z^2,
 *   ||J||_F^2 = r^2 / Z^4 + Q (1 + 2 / Z^2 + Q) - 2 U, with
 *   Q = sum_{j != max} p_j^2 = q / Z^2 and U = sum_{j != max} p_j^3 = u / Z^3
 *   (from sum_i p_i^2 (1 - p_i)^2 + sum_{i != j} p_i^2 p_j^2; every term is
 *   non-negative, since Q >= 2U when no p_j but the max exceeds 1/2).
 * These forms keep full relative precision for nearly one-hot rows (entropy
 * 6.4e-9 nats for logits [-20, 3, 25, -15]), where ln Z and 1 - sum p^2
 * computed directly would cancel.
 * Subtracting the row max keeps every exp in (0, 1], so raw scores of any
 * size (standard deviation 256 at d_k = 65536) give finite results.
 * Softmax: Vaswani et al. 2017, eq. 1; Jacobian: d p_i / d s_j = p_i
 * (delta_ij - p_j), so a near one-hot row has a near-zero Jacobian (the
 * vanishing gradients of saturated attention).
 *
 * @param s      one row of n raw scores; n >= 1; values finite.
 * @param scale  the multiplier c for *scaled, > 0 and finite.
 * @return SV_OK; SV_EINVAL, SV_ERANGE, SV_ENONFINITE as in the file's
 *         comment (a non-finite value: *raw and *scaled untouched).
 * Thread safety: reads s, writes *raw and *scaled only. Cost: 2n exp.
 */
sv_status sv_softmax_row_stats(const double *s, size_t n, double scale, sv_softmax_stats *raw,
                               sv_softmax_stats *scaled);

/**
 * Partial softmax sums of one row over a block of keys, for the raw logits
 * (index 0, c = 1) and the scaled ones (index 1, c = scale), relative to the
 * block's max m: with t_j = s_j - m, e_j = exp(c t_j), and sums over every
 * key of the block but the first max (whose e is exactly 1),
 *   r = sum e_j,  w = sum e_j t_j,  q = sum e_j^2,  u = sum e_j^3.
 * Blocks of the same row merge exactly (up to rounding) with
 * sv_softmax_acc_merge, so a row of n_k keys can be streamed in blocks,
 * as in the online softmax of Milakov & Gimelshein, "Online normalizer
 * calculation for softmax" (2018).
 */
typedef struct sv_softmax_acc {
    double max;  /**< m, max of the raw logits seen */
    double min;  /**< min of the raw logits seen (for max |logit|) */
    double r[2]; /**< Z - 1 in the frame of m, raw and scaled */
    double w[2]; /**< sum e t, t in raw units */
    double q[2]; /**< sum e^2 */
    double u[2]; /**< sum e^3 */
} sv_softmax_acc;

/**
 * Partial sums of the logits s[0 .. n-1] (n >= 1, finite) into *out, for
 * c = 1 and c = @p scale > 0 (the multiplier of the scaled logits).
 * @return SV_OK; SV_EINVAL, SV_ERANGE, SV_ENONFINITE as in the file's
 *         comment.
 * Thread safety: reads s, writes *out only. Cost: 2n exp.
 */
sv_status sv_softmax_acc_row(const double *s, size_t n, double scale, sv_softmax_acc *out);

/**
 * sv_softmax_acc_row plus, from the same two passes over s, the moments of
 * s (as sv_moments_of: corrected two-pass mean and M2) into *mo, which may
 * be NULL. The engine's per-row kernel: pass 1 finds the max and the sum,
 * pass 2 the exps and the squared deviations.
 * @return SV_OK; SV_EINVAL, SV_ERANGE as in the file's comment;
 *         SV_ENONFINITE for a non-finite value, or a sum of s that
 *         overflows (*out and *mo written, NaN or infinite).
 */
sv_status sv_softmax_acc_row_moments(const double *s, size_t n, double scale, sv_softmax_acc *out,
                                     sv_moments *mo);

/**
 * sv_softmax_acc_row_moments for each of @p rows rows of n keys, row r at
 * s + r ld (rows x n, row-major with leading dimension ld >= n), into
 * acc[r] and, if mo is not NULL, mo[r], with the scaled sums for the
 * multiplier c = @p scale > 0 (the spec's scale); s is
 * read, n >= 1 finite values per row. Rows of at most 32 keys are packed
 * several to one vector exp call, which is what makes tiny trials cheap;
 * their sums are plain sequential sums, longer rows use vector reductions,
 * so the last bits depend on n (never on how rows are grouped into calls).
 * @return SV_OK (rows = 0: nothing written); SV_EINVAL for n = 0, ld < n,
 *         a bad scale, s or acc NULL with rows > 0; SV_ERANGE when
 *         (rows - 1) ld + n doubles or rows sv_softmax_acc overflow size_t
 *         bytes (outputs untouched after these); SV_ENONFINITE when a row has
 *         a non-finite value (every row written; that row's sums NaN).
 */
sv_status sv_softmax_acc_rows(const double *s, size_t rows, size_t n, size_t ld, double scale,
                              sv_softmax_acc *acc, sv_moments *mo);

/**
 * Merges the partial sums @p b of later keys into @p acc. With M the larger
 * and m' the smaller of the two maxes (ties keep acc's, the first max),
 * f = exp(c (m' - M)), and the sums of the block whose max is m' moved into
 * M's frame: r += (1 + r') f, w += f (w' + (m' - M)(1 + r')),
 * q += f^2 (1 + q'), u += f^3 (1 + u'), with c = @p scale for the
 * scaled sums (the same multiplier both were made with). Merge blocks in
 * key order for reproducible bits.
 * @return SV_OK; SV_EINVAL for a NULL argument or a bad scale (*acc
 *         untouched).
 */
sv_status sv_softmax_acc_merge(sv_softmax_acc *acc, const sv_softmax_acc *b, double scale);

/**
 * Entropy, max weight and Jacobian trace from merged partial sums (the
 * formulas of sv_softmax_row_stats): raw into *raw, scaled into *scaled.
 * @return SV_OK; SV_EINVAL for a NULL argument or a bad scale (outputs
 *         untouched).
 */
sv_status sv_softmax_acc_stats(const sv_softmax_acc *acc, double scale, sv_softmax_stats *raw,
                               sv_softmax_stats *scaled);

/**
 * sv_softmax_acc_stats for n rows at once: acc[0 .. n-1] into raw[i] and
 * scaled[i]. The logs are taken by a vector log1p (libmvec) when the CPU
 * has one, which is why a row's bits are the same whether it is done alone
 * or with others.
 * @return SV_OK (n = 0: nothing written); SV_EINVAL for a bad scale, or a
 *         NULL array with n > 0; SV_ERANGE when n sv_softmax_acc overflow
 *         size_t bytes (outputs untouched after an error).
 */
sv_status sv_softmax_acc_stats_rows(const sv_softmax_acc *acc, size_t n, double scale,
                                    sv_softmax_stats *raw, sv_softmax_stats *scaled);

/**
 * Softmax weights p_j = exp(c s_j) / sum_i exp(c s_i) of one row, computed
 * as exp(c (s_j - max s)) / Z so no exp overflows.
 *
 * @param s     n >= 1 finite logits; @param scale the multiplier c > 0; @param p n outputs
 *              (may not alias s).
 * @return SV_OK; SV_EINVAL, SV_ERANGE as in the file's comment;
 *         SV_ENONFINITE for a non-finite value, checked first (p untouched).
 * Thread safety: reads s, writes p only. Cost: n exp.
 */
sv_status sv_softmax(const double *s, size_t n, double scale, double *p);

/**
 * Everything a slide says about one row of logits at one scale: the
 * softmax weights p = softmax(c z), their statistics, the Jacobian
 * J = d p / d(c z) = diag(p) - p p^T and, given an upstream gradient g =
 * dL/dp on the weights, the gradient of L with respect to the logits the
 * softmax sees, dL/d(c z) = J^T g = p * (g - p.g) (J is symmetric). For
 * attention, where p weights the rows v_j of V and dL/do is the gradient
 * on the output o = sum_j p_j v_j, pass g_j = v_j . dL/do. The gradient
 * with respect to the unscaled z is c times the one returned.
 *
 * @param z      n >= 1 finite logits, as given (unscaled).
 * @param n      keys; n n doubles must fit in size_t bytes when jac is
 *               not NULL.
 * @param scale  the multiplier c > 0 (finite) of the logits: p =
 *               softmax(c z), computed with the row max subtracted
 *               (sv_softmax).
 * @param g      n finite upstream values dL/dp, or NULL (no gradient).
 * @param p      n outputs: the weights, summing to 1.
 * @param jac    n x n outputs (row-major) J_ij = p_i (delta_ij - p_j), or
 *               NULL.
 * @param dz     n outputs dL/d(c z), when g is not NULL (else unused, may
 *               be NULL).
 * @param stats  entropy (nats), e^H, max weight, trace and Frobenius norm
 *               of J at this scale: the `scaled` result of
 *               sv_softmax_row_stats (its cancellation-free forms: trace
 *               1 - sum p^2 keeps its digits for one-hot rows).
 * No output may alias an input.
 * @return SV_OK; SV_EINVAL for z, p or stats NULL, g given with dz NULL,
 *         n = 0 or a bad scale; SV_ERANGE when n (or n n with jac)
 *         doubles overflow size_t bytes; SV_ENONFINITE for a non-finite
 *         value in z or g (all three checked first, in that order:
 *         outputs untouched), or logits so far apart (|z| ~ 1e308) that
 *         their differences overflow.
 * Thread safety: reads z and g, writes the outputs only.
 * Cost: 3n exp, n^2 for jac.
 * Source: softmax, Vaswani et al. 2017, eq. 1; its Jacobian
 * d p_i / d x_j = p_i (delta_ij - p_j), e.g. Goodfellow et al., Deep
 * Learning (2016), 6.2.2.3; docs/theory.md.
 */
sv_status sv_softmax_row_report(const double *z, size_t n, double scale, const double *g, double *p,
                                double *jac, double *dz, sv_softmax_stats *stats);

#endif
