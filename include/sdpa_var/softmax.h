/**
 * @file softmax.h
 * Statistics of the softmax of one row of scores: entropy, max weight and
 * the trace of the softmax Jacobian, without storing the weights.
 */
#ifndef SDPA_VAR_SOFTMAX_H
#define SDPA_VAR_SOFTMAX_H

#include <stddef.h>

/** What the softmax of one row of logits looks like. */
typedef struct sv_softmax_stats {
    double entropy;    /**< H = -sum p_j ln p_j, in nats; 0 (one-hot) .. ln n (uniform) */
    double max_weight; /**< max_j p_j; 1/n (uniform) .. 1 (one-hot) */
    double jac_trace;  /**< trace of J = diag(p) - p p^T: sum p_j (1 - p_j) = 1 - sum p_j^2 */
} sv_softmax_stats;

/**
 * Softmax statistics of the logits c * s[0 .. n-1] for two temperatures at
 * once: c = 1 (raw scores) into *raw and c = @p scale (e.g. 1/sqrt(d_k)) into
 * *scaled, in one pass over s.
 *
 * With m = max_j s_j (so c m is the max of c s for c > 0) and
 * e_j = exp(c (s_j - m)) <= 1, Z = sum e_j:
 *   p_j = e_j / Z,   max weight = 1 / Z,
 *   H = ln Z - (c / Z) sum e_j (s_j - m)   (no per-element log),
 *   1 - sum p_j^2 = 1 - (sum e_j^2) / Z^2.
 * Subtracting the row max keeps every exp in (0, 1], so raw scores of any
 * size (standard deviation 256 at d_k = 65536) give finite results.
 * Softmax: Vaswani et al. 2017, eq. 1; Jacobian: d p_i / d s_j = p_i
 * (delta_ij - p_j), so a near one-hot row has a near-zero Jacobian (the
 * vanishing gradients of saturated attention).
 *
 * @param s      one row of n raw scores; n >= 1; values finite.
 * @param scale  c for *scaled, > 0.
 * Cost: 2n exp. Thread safety: reads s, writes *raw and *scaled only.
 */
void sv_softmax_row_stats(const double *s, size_t n, double scale, sv_softmax_stats *raw,
                          sv_softmax_stats *scaled);

#endif
