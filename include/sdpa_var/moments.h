/**
 * @file moments.h
 * Mean and sum of squared deviations of a sample, and their exact merge.
 *
 * Thread safety, every function here: re-entrant, no global state; an
 * argument written by a call is not read by another thread meanwhile.
 * Cost, every function here: O(1), except sv_moments_of, two passes over x.
 */
#ifndef SDPA_VAR_MOMENTS_H
#define SDPA_VAR_MOMENTS_H

#ifndef SDPA_VAR_ADVANCED
#error "sdpa_var/moments.h: define SDPA_VAR_ADVANCED first (advanced API, sdpa_var.h)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/status.h"

/** Count, mean and M2 = sum (x - mean)^2 of a sample. */
typedef struct sv_moments {
    uint64_t n;  /**< number of values; 0 for the empty sample */
    double mean; /**< arithmetic mean; 0 for the empty sample */
    double m2;   /**< sum of squared deviations from the mean; >= 0 */
} sv_moments;

/**
 * Moments of x[0 .. n-1] by the corrected two-pass algorithm: the mean
 * first, then the squared deviations from it, minus (sum (x - mean))^2 / n
 * for the rounding error of the mean (Chan, Golub & LeVeque 1983,
 * "Algorithms for computing the sample variance: analysis and
 * recommendations", eq. 1.7); the mean itself is refined by the same sum of
 * deviations / n.
 * Sums are in double. n = 0 gives {0, 0, 0}. Values are not checked: a
 * NaN or an infinity gives a NaN or infinite mean and M2.
 * @return SV_OK; SV_EINVAL for out NULL, or x NULL with n > 0; SV_ERANGE
 *         for n > SIZE_MAX / 8 (no such array); *out untouched then.
 */
sv_status sv_moments_of(const double *x, size_t n, sv_moments *out);

/**
 * Merges sample @p b into @p acc as if both had been one sample:
 * n = na + nb, d = mean_b - mean_a, mean = mean_a + d nb / n,
 * M2 = M2_a + M2_b + d^2 na nb / n. Floating point addition is not
 * associative: merge in a fixed order to get the same bits every run.
 * @return SV_OK; SV_EINVAL for a NULL argument; SV_ERANGE if na + nb
 *         overflows uint64_t (*acc untouched after an error).
 * Source: T. F. Chan, G. H. Golub and R. J. LeVeque, "Updating formulae and
 * a pairwise algorithm for computing sample variances", Stanford
 * STAN-CS-79-773 (1979), eq. 2.1.
 */
sv_status sv_moments_merge(sv_moments *acc, const sv_moments *b);

/**
 * Sample variance M2 / (n - ddof): ddof 0 is numpy's var() default (the
 * maximum-likelihood estimate under normality), ddof 1 is unbiased for
 * uncorrelated values.
 * @return NAN when n <= ddof (numpy warns and returns nan or inf) or m
 *         is NULL.
 */
double sv_moments_variance(const sv_moments *m, unsigned ddof);

#endif
