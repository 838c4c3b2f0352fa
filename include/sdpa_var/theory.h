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
    double var_sd;       /**< standard deviation of the per-trial sample variance,
                              NAN where no closed form is given (nonzero means) */
    double mean;         /**< E[S] of one score */
    double entropy_approx; /**< ln n_k - sigma^2 / 2, sigma^2 the variance of a
                              row's logits: an approximation for unsaturated
                              rows only (docs/theory.md, section 8) */
    double diag_logit;  /**< E[S_ii] of a related pair: rho E|q|^2 when planted,
                             0 for self-attention through independent W_Q, W_K;
                             NAN when no pair is related */
    double q_var;        /**< variance of one entry of Q */
    double k_var;        /**< variance of one entry of K */
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

/**
 * sv_theory_raw generalised to a whole configuration: entries of Q with
 * mean mu_q and standard deviation sigma_q (cfg->q_mean, cfg->q_std), of K
 * with mu_k and sigma_k, and dist's fourth moment (including Student's t).
 * With d = d_k and N = n_q n_k (docs/theory.md, section 8):
 *
 *   mean         = d mu_q mu_k
 *   var          = d [(sigma_q^2 + mu_q^2)(sigma_k^2 + mu_k^2) - mu_q^2 mu_k^2]
 *                  (seed 001: Var(XY) = (s_x^2 + m_x^2)(s_y^2 + m_y^2) - m_x^2 m_y^2)
 *   var_expected = [(N - 1) var - (n_k - 1) d sigma_q^2 mu_k^2
 *                   - (n_q - 1) d sigma_k^2 mu_q^2] / (N - ddof)
 *                  (scores sharing a query row are correlated through mu_k,
 *                  sharing a key row through mu_q)
 *   var_sd       = (sigma_q sigma_k)^2 times sv_theory_raw's var_sd when
 *                  both means are 0; NAN otherwise
 *   entropy_approx = ln n_k - d (sigma_q^2 + mu_q^2) sigma_k^2 / 2.
 * With QK-norm (rows rescaled to norm R; zero means): var = R^4 / d, since
 * E[q_l^2] = R^2 / d by symmetry; E[s^2] as above; var_sd in closed form
 * for normal entries (rows uniform on the sphere, section 8.4), NAN for
 * other laws.
 * With a planted key (rho != 0): diag_logit = rho d (sigma_q^2 + mu_q^2)
 * (rho R^2 with QK-norm); var_expected and var_sd are NAN, since the
 * planted scores have their own mean.
 * With projections (d_model = D, W entries of variance w): q_var = k_var =
 * D w; var = d_k q_var k_var (off the diagonal); cross-attention
 * var_expected = var (N - 1) / (N - ddof) (given W the scores are
 * uncorrelated); self-attention (n_q = n_k = n, shared tokens)
 * var_expected = w^2 [(N - 1) D^2 d_k + 2 (n - 1) D d_k
 *                     + (m4 - 3)(n - 1/n) D d_k] / (N - ddof),
 * from the diagonal's mean tr(W_Q W_K^T) and the pairs (i, j), (j, i)
 * (docs/theory.md, section 8); var_sd NAN (the shared W correlates every
 * score of a trial).
 * The scaled logits S / c divide mean by c, the variances by c^2.
 *
 * @return SV_OK; the errors of sv_config_check (*out untouched).
 */
struct sv_config;
sv_status sv_theory_config(const struct sv_config *cfg, sv_theory *out);

#endif
