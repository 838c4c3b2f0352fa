/**
 * @file theory.h
 * What the experiment should show, in closed form. Derivations:
 * docs/theory.md.
 */
#ifndef SDPA_VAR_THEORY_H
#define SDPA_VAR_THEORY_H

#include <stddef.h>

#include "sdpa_var/sampler.h"
#include "sdpa_var/status.h"

/** Theory for the variance of one trial's n_q x n_k scores. */
typedef struct sv_theory {
    double var;          /**< population variance of one score: d_k (raw) */
    double var_expected; /**< E[s^2], the mean of the per-trial sample variance */
    double var_sd;       /**< standard deviation of the per-trial sample variance */
} sv_theory;

/**
 * Mean and spread of the sample variance s^2 of the N = n_q n_k raw scores
 * S = Q K^T of one trial, Q (n_q x d_k) and K (n_k x d_k) with iid entries
 * of mean 0, variance 1 and fourth moment m4 = sv_dist_fourth_moment(dist):
 *
 *   var          = d_k                    (Vaswani et al. 2017, footnote 4)
 *   var_expected = d_k (N - 1) / (N - ddof)
 *   var_sd       = sqrt(V) / (N - ddof), with d = d_k and
 *     V = d [ N (m4^2 + 2d - 3 + (n_q + n_k - 2)(m4 - 1)) + (2d + 6)
 *             + (3 (m4 - 3)(n_q + n_k) + (m4 - 3)^2) / N
 *             - 2 ((m4 - 1)^2 + (m4 - 1)(n_q + n_k) + 2d - 2) ].
 *
 * The scores of one trial are uncorrelated but not independent (two scores
 * that share a query or key row share its entries), which is where the
 * n_q + n_k terms come from; V is exact for every distribution with these
 * moments (docs/theory.md, section 4). For scores divided by c (c = sqrt(d_k)
 * gives the "scaled" columns) divide var and var_expected by c^2 and var_sd
 * by c^2. Example (the 1.6 puzzle): normal, d_k = n_q = n_k = 2, ddof 0:
 * var 2, var_expected 1.5, var_sd sqrt(4.75) = 2.179.
 *
 * @return SV_OK; SV_EINVAL if a size is 0, ddof >= N or dist is out of range,
 *         with *out untouched. var_sd is 0 for N = 1 and ddof 0.
 */
sv_status sv_theory_raw(size_t d_k, size_t n_q, size_t n_k, unsigned ddof, sv_dist dist,
                        sv_theory *out);

#endif
