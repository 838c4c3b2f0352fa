/**
 * @file theory.h
 * What the experiment should show, in closed form. Derivations:
 * docs/theory.md.
 *
 * Thread safety, every function here unless its docstring says: pure.
 * Cost, every function here unless its docstring says: O(1) closed forms,
 * or O(n_q) where a causal window or scale_logn sums over the rows.
 */
#ifndef SDPA_VAR_THEORY_H
#define SDPA_VAR_THEORY_H

#include <stddef.h>

#include "sdpa_var/sampler.h"
#include "sdpa_var/status.h"

/**
 * Theory for one trial's visible scores (n_q n_k of them, n (n + 1) / 2
 * under the causal mask). Every field is the expectation of exactly what
 * the engine measures in one trial (sv_trial_stats), so a column of
 * measurements averaged over trials converges to it; NAN where no closed
 * form is derived (docs/theory.md, section 10 lists each case and why).
 */
typedef struct sv_theory {
    double var;            /**< E of the known-mean variance sum (S - mean)^2 / N
                                (raw_var_known_mean): the population variance of
                                the visible scores taken together, a mixture when
                                related pairs (plant, self-attention) differ */
    double var_expected;   /**< E[s^2] = E[M2] / (N - ddof), the mean of the
                                per-trial sample variance at the configured ddof */
    double var_ddof0;      /**< E[M2] / N: the expected sample variance with ddof 0 */
    double var_ddof1;      /**< E[M2] / (N - 1); NAN for N = 1 */
    double var_sd;         /**< standard deviation of the per-trial sample variance
                                at the configured ddof; NAN where not derived */
    double mean;           /**< E of the mean of the visible scores of a trial */
    double logit_var;      /**< variance of a row's logits, the sigma^2 of
                                entropy_approx (NAN where not derived) */
    double entropy_approx; /**< ln(keys seen) - sigma^2 / 2 where that
                              approximation holds (n_k >= 16 and sigma^2 <= 1,
                              docs/theory.md 8.7), else NAN: see
                              sv_theory_entropy_approx */
    double diag_logit;     /**< E[S_ii] of a related pair (mean over i of the
                                planted or shared-token score); NAN when no pair
                                is related */
    double q_var;          /**< E of the ddof-0 sample variance of the n_q d_k
                                entries of Q in one trial (what q_var measures) */
    double k_var;          /**< the same for the n_k d_k entries of K */
    int var_sd_heavy_tail; /**< nonzero for Student t with nu <= 8: var_sd is the
                              exact population value, but the entries have no
                              finite eighth moment, so the across-trial sample
                              SD of s^2 has infinite variance and no standard
                              error: it converges slowly and erratically */
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
 * moments (docs/theory.md, section 4). For scores multiplied by the scale c
 * (c = 1 / sqrt(d_k) gives the "scaled" columns) multiply var, var_expected
 * and var_sd by c^2. Example (the 1.6 puzzle): normal, d_k = n_q = n_k = 2, ddof 0:
 * var 2, var_expected 1.5, var_sd sqrt(4.75) = 2.179.
 *
 * @return SV_OK; SV_EINVAL if a size is 0, ddof >= N, dist is out of range
 *         or SV_DIST_STUDENT_T (it needs nu: sv_theory_spec), or out is
 *         NULL, with *out untouched. Sizes are taken as doubles, so no
 *         product overflows (SIZE_MAX works, to double precision). var_sd is 0 for N = 1 and ddof
 * 0.
 */
sv_status sv_theory_raw(size_t d_k, size_t n_q, size_t n_k, unsigned ddof, sv_dist dist,
                        sv_theory *out);

/**
 * sv_theory_raw generalised to a whole configuration: entries of Q with
 * mean mu_q and standard deviation sigma_q (spec->q_mean, spec->q_std), of K
 * with mu_k and sigma_k, dist's fourth moment m4 (Student's t included),
 * the causal mask, QK-norm, a planted key, projections. With d = d_k and
 * N the visible scores, every variance comes from
 *
 *   E[M2] = sum_a Var(S_a) + sum_a (E S_a - mean)^2 - Var(sum_a S_a) / N,
 *
 * M2 the sum of squared deviations from the trial's mean, so
 * var_expected = E[M2] / (N - ddof), var_ddof0 = E[M2] / N, var_ddof1 =
 * E[M2] / (N - 1), and var = (sum_a Var(S_a) + sum_a (E S_a - mean)^2) / N.
 * Per option (docs/theory.md, section 8; the table of section 10 says for
 * each column and option which formula holds or why none does):
 *   shifted entries: mean = d mu_q mu_k, Var(S) = d [(sigma_q^2 + mu_q^2)
 *     (sigma_k^2 + mu_k^2) - mu_q^2 mu_k^2], covariances d sigma_q^2 mu_k^2
 *     along a row and d sigma_k^2 mu_q^2 along a column (8.1);
 *   causal: the same over the n (n + 1) / 2 visible scores, and var_sd for
 *     zero means from the mask's row, column and overlap counts (8.3);
 *   QK-norm (norm R, zero means): Var(S) = R^4 / d, uncorrelated scores;
 *     var_sd for normal entries (full grid and causal) and rademacher
 *     ones; one side shifted: mean 0 and var R^4 / d still (8.4);
 *   plant rho: diag_logit = d (rho (sigma_q^2 + mu_q^2) + sqrt(1 - rho^2)
 *     mu_q mu_k); under QK-norm R^2 E[cos] = R^2 rho (2/d)
 *     [Gamma((d+1)/2) / Gamma(d/2)]^2 2F1(1/2, 1/2; d/2 + 1; rho^2) for
 *     normal entries; the mean and var count the planted scores;
 *     var_expected for any means; under QK-norm (normal, zero means, or
 *     |rho| = 1) var and var_expected from E[cos^2] = 1 - ((d-1)/d)
 *     (1 - rho^2) 2F1(1, 1; d/2 + 1; rho^2) (8.5);
 *   projections (d_model = D, W entries of variance w): q_var = k_var = D w
 *     (M - 1) / M; off-diagonal E S^2 = D^2 d w^2, a shared token's score
 *     (m4 - 1) D d w^2 more, shared-token scores covary by D d w^2, and so
 *     do S_ij, S_ji; under QK-norm var = R^4 / d (x W is isotropic), and
 *     var_expected for cross-attention (8.6).
 * q_var and k_var are the expectations of the measured ddof-0 sample
 * variance of the M = n_q d (n_k d) entries. entropy_approx follows
 * sv_theory_entropy_approx. var_sd_heavy_tail flags t with nu <= 8.
 * Thread safety: pure. Cost: O(1), but O(terms) of two 2F1 series (at
 * most 10^5 and 10^6 terms) with QK-norm and a planted key.
 *
 * @param spec a resolved spec (sv_spec_resolve); its scale is not used.
 * @return SV_OK; the errors of sv_spec_check; SV_EINVAL for out NULL
 *         (*out untouched after an error).
 */
struct sv_spec;
sv_status sv_theory_spec(const struct sv_spec *spec, sv_theory *out);

/**
 * The expected mean of one trial's visible scores for @p spec (spec.h;
 * what sv_theory_spec's `mean` gives for the same fields), without the
 * rest of the theory: cheap enough to call per trial, where the engine
 * centres raw_var_known_mean on it.
 * @p spec must have passed sv_spec_check; it is not checked again (the
 * engine calls this per trial, and the check would double a tiny trial's
 * cost).
 * @return that mean; NAN if it has no closed form (QK-norm with both
 *         means nonzero; QK-norm with a planted key and a nonzero mean, or
 *         non-normal entries and |rho| < 1), for a NULL spec or a zero size.
 * Cost: a few flops; a 2F1 series with QK-norm and a planted key.
 */
double sv_theory_mean(const struct sv_spec *spec);

/**
 * Turns the theory of raw scores S into that of the scaled logits c S,
 * c = sv_spec_scale(spec) of a resolved spec, in place: means and
 * diag_logit multiplied by c, variances (var, var_expected, var_ddof0,
 * var_ddof1, var_sd, logit_var) by c^2 (sv_spec_scale2), entropy_approx
 * recomputed from the scaled logit_var. q_var and k_var are those of Q and
 * K and stay. With spec->scale_logn (row i's multiplier c_i = scale
 * ln n_i, n_i its keys; A1 and A2 the means of c_i and c_i^2 over the N
 * visible scores): mean A1 mean and var A2 var + (A2 - A1^2) mean^2 where
 * every visible score has the same mean and variance (no plant, and no
 * projections but cross), else NAN; var_expected, var_ddof0 and var_ddof1
 * from E[M2] = (N - 1) A2 var for zero means without projections, else
 * NAN; var_sd, logit_var, entropy_approx and diag_logit NAN
 * (docs/theory.md 15.1; Nakanishi 2025, arXiv:2501.19399).
 * @return SV_OK; SV_EINVAL for a NULL argument (*t untouched).
 */
sv_status sv_theory_scale(const struct sv_spec *spec, sv_theory *t);

/**
 * The softmax entropy approximation ln(keys seen) - sigma^2 / 2 for logits
 * of row variance @p logit_var (nats; keys seen is ln n_k, or ln(n!) / n
 * averaged over the rows of a causal mask; n_k and causal from @p spec).
 * Taylor expansion of ln Z and sum p x for small sigma^2 (docs/theory.md
 * 8.7); it holds within ~5 % only for n_k >= 16 and sigma^2 <= 1
 * (docs/experiments.md), and below 0 it would be a negative entropy, so
 * outside that range it is NAN. Every writer prints this value as is.
 * @return that value; NAN also for spec NULL, n_q or n_k 0 (no keys), or
 *         logit_var not finite.
 */
double sv_theory_entropy_approx(const struct sv_spec *spec, double logit_var);

/**
 * Range [*lo, *hi) of the score histogram (--histogram): 6 standard
 * deviations either side of the mean, for the raw scores and for the
 * scaled ones (c S), joined, so both are binned on the same range.
 * Mean and variance are sv_theory_spec's mean and var (planted scores
 * included); where those have no closed form, QK-norm's bound |S| <= R^2
 * gives the range, else mean 0 and variance d_k.
 * @param spec a resolved spec (sv_spec_resolve).
 * @return SV_OK; the errors of sv_spec_check; SV_EINVAL for lo or hi NULL
 *         (outputs untouched after an error).
 */
sv_status sv_theory_histogram_range(const struct sv_spec *spec, double *lo, double *hi);

struct sv_trial_stats;
/**
 * The plug-in spec of measured Q and K (a strided source): @p spec with
 * dist normal, q_mean, q_std, k_mean and k_std set from @p stats's measured
 * q_mean, sqrt(q_var), k_mean and sqrt(k_var), so that sv_theory_spec gives
 * what independent Gaussian entries with this head's moments would give
 * (for the variance: E[s] = d_k mu_q mu_k, Var(s) = d_k (s_q^2 s_k^2 +
 * s_q^2 mu_k^2 + mu_q^2 s_k^2), docs/theory.md section 13). Real Q and K
 * break the independence across positions and dimensions that the
 * theory assumes: the plug-in is the random-init baseline with matched
 * moments, not a prediction. The moments are those of Q and K as they
 * reach the product, so the spec made also has no projections (d_model
 * 0, cross 0), no QK-norm and no planted key; nu is 0; everything else
 * (sizes, scale, causal, ddof, values, grad) is @p spec's, which should
 * be resolved (sv_spec_resolve). The variances are the ddof-0 ones of
 * the measured entries (sv_trial_stats.q_var).
 * @return SV_OK; SV_EINVAL for NULL arguments or a measured moment that is
 *         NAN (the source did not measure it) or a negative variance; the
 *         errors of sv_spec_check for the spec made, e.g. SV_EINVAL for a
 *         zero variance (q_std 0: constant entries), SV_EPRECISION for a
 *         mean too large next to its standard deviation (*out untouched
 *         after an error).
 */
sv_status sv_theory_plugin_spec(const struct sv_spec *spec, const struct sv_trial_stats *stats,
                                struct sv_spec *out);

/**
 * Expected counts of @p total draws of N(@p mean, @p var) in the bins
 * [edges[i], edges[i + 1]), i = 0 .. bins - 1: out[i] = total (Phi(b) -
 * Phi(a)), Phi the standard normal CDF, z = (x - mean) / sqrt(var). The
 * normal curve a histogram of scores is drawn against (the page's, and
 * for any caller): exact bin probabilities, not the density at the bin's
 * centre times its width. Each difference is taken on the side of the
 * tail its bin lies in (upper tail 1 - Phi(z) = erfc(z / sqrt 2) / 2),
 * so far-out bins keep their digits.
 * @param edges bins + 1 increasing finite values.
 * @return SV_OK; SV_EINVAL for edges or out NULL, bins 0, mean or total
 *         not finite, total < 0, var not positive and finite, or edges not
 *         finite and increasing (out untouched after an error).
 * Cost: two erfc a bin.
 * Source: Phi(z) = erfc(-z / sqrt 2) / 2, Abramowitz & Stegun (1964),
 * 7.1.2 and 26.2.29.
 */
sv_status sv_theory_normal_counts(double mean, double var, double total, const double *edges,
                                  size_t bins, double *out);

#endif
