/**
 * @file sampler.h
 * Distributions of the entries of Q and K, each with mean 0 and variance 1:
 * the assumption under which Var(q.k) = d_k (Vaswani et al. 2017, footnote 4).
 *
 * Thread safety, every function here unless its docstring says: pure.
 * Cost, every function here unless its docstring says: O(1).
 */
#ifndef SDPA_VAR_SAMPLER_H
#define SDPA_VAR_SAMPLER_H

#include <stddef.h>

#include "sdpa_var/rng.h"
#include "sdpa_var/status.h"

/** Distribution of every entry of Q and K. */
typedef enum sv_dist {
    SV_DIST_NORMAL = 0,     /**< N(0, 1); fourth moment 3 */
    SV_DIST_UNIFORM = 1,    /**< U(-sqrt 3, sqrt 3); fourth moment 9/5 */
    SV_DIST_RADEMACHER = 2, /**< -1 or +1 with probability 1/2; fourth moment 1 */
    SV_DIST_STUDENT_T = 3   /**< Student's t with nu degrees of freedom, times
                                 sqrt((nu - 2) / nu) for variance 1; heavy tails:
                                 fourth moment 3 (nu - 2) / (nu - 4), nu > 4 */
} sv_dist;

#endif /* SDPA_VAR_SAMPLER_H: the types above, which stable headers use */

/* The functions: advanced API, declared only where SDPA_VAR_ADVANCED is
 * defined (sdpa_var.h). */
#if defined(SDPA_VAR_ADVANCED) && !defined(SDPA_VAR_SAMPLER_H_ADVANCED)
#define SDPA_VAR_SAMPLER_H_ADVANCED

/**
 * Looks up a distribution by its CLI name ("normal", "uniform",
 * "rademacher", "t"; exact, case-sensitive).
 *
 * @return SV_OK and *dist set; SV_EINVAL for any other name or a NULL
 *         argument, *dist untouched.
 */
sv_status sv_dist_from_name(const char *name, sv_dist *dist);

/** Name of @p dist as accepted by sv_dist_from_name; "?" if out of range. */
const char *sv_dist_name(sv_dist dist);

/**
 * Fourth moment E[x^4] of one entry (mean 0, variance 1, so this is also the
 * kurtosis): normal 3, uniform 9/5 (a^4/5 with a = sqrt 3), rademacher 1,
 * Student's t 3 (nu - 2) / (nu - 4) (infinite for nu <= 4). It sets the
 * spread of the per-trial sample variance (see theory.h).
 * @param nu degrees of freedom, used by SV_DIST_STUDENT_T only.
 * @return NAN for a dist out of range or a t with nu <= 4 (or not finite).
 */
double sv_dist_fourth_moment(sv_dist dist, double nu);

/**
 * Fills x[0 .. n-1] with independent draws from @p dist.
 *
 * Normal: the ziggurat method with 128 layers (G. Marsaglia and W. W.
 * Tsang, "The Ziggurat Method for Generating Random Variables", J. Stat.
 * Softw. 5(8), 2000) in the improved form of J. A. Doornik ("An Improved
 * Ziggurat Method to Generate Normal Random Samples", 2005): each attempt
 * takes 64 bits, the layer from the low 7 and a 53-bit uniform from the
 * top 53; the tail beyond R = 3.4426 uses Marsaglia's (1964) exact method
 * with uniforms in (0, 1), so log(0) is never taken. The table is computed
 * in 50-digit arithmetic by scripts/gen_ziggurat.py. No hidden state: each
 * value is drawn whole. Uniform: one 53-bit double per entry, mapped to
 * [-sqrt 3, sqrt 3). Rademacher: the top bit of one 32-bit output per entry.
 * Student's t (nu > 2 degrees of freedom, @p nu; ignored by the others):
 * z sqrt((nu - 2) / (2 g)) with z normal and g ~ Gamma(nu / 2) by
 * Marsaglia & Tsang, "A Simple Method for Generating Gamma Variables",
 * ACM TOMS 26(3), 2000 (nu / 2 >= 1, so their main case applies).
 *
 * @return SV_OK (n = 0: nothing drawn); SV_EINVAL for a dist out of range,
 *         a t with nu not > 2 and finite, or rng or x NULL with n > 0;
 *         SV_ERANGE for n > SIZE_MAX / 8 (no such array). *rng and x
 *         untouched after an error.
 * Thread safety: touches only *rng and x.
 * Cost: normal ~2.05 PCG32 outputs per value on average.
 */
sv_status sv_sample_fill(sv_rng *rng, sv_dist dist, double nu, double *x, size_t n);

/**
 * Rows @p row0 .. row0 + m - 1 of a random matrix whose row r is @p d
 * draws of @p dist from its own stream, seeded by sv_rng_seed_keyed(rng,
 * @p key, r) (rng.h): row i of the block goes to x[i ld .. i ld + d - 1].
 * The same values, bit for bit, as seeding each row's stream and calling
 * sv_sample_fill, in one call: a million trials of 2 x 2 scores draw four
 * rows of two values each, and a call per row cost a twentieth of them.
 * @return SV_OK (m = 0 or d = 0: nothing drawn); SV_EINVAL for a dist
 *         or nu sv_sample_fill refuses, x NULL with m d > 0, or ld < d
 *         with m > 1; SV_ERANGE if (m - 1) ld + d doubles exceed SIZE_MAX
 *         bytes. x untouched after an error.
 * Thread safety: touches only x. Cost: as sv_sample_fill per value, plus
 * two SplitMix64 rounds and two PCG32 steps per row.
 */
sv_status sv_sample_rows(uint64_t key, uint64_t row0, size_t m, size_t d, sv_dist dist, double nu,
                         double *x, size_t ld);

#endif
