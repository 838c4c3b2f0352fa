/* A plain scalar path for the tests: independent of the engine's code, it
 * draws the same rows from the same streams (rng.h), holds the whole
 * n_q x n_k score matrix, and computes every statistic of sv_trial_stats
 * with textbook formulas in long double. test_engine_run and test_shapes
 * compare the engine against it. */
#ifndef SDPA_VAR_TESTS_REFERENCE_H
#define SDPA_VAR_TESTS_REFERENCE_H

#include <stdint.h>

#include "sdpa_var/sdpa_var.h"

/* Trial @p trial of the resolved spec @p s (means, stds, plant, QK-norm,
 * projections with or without cross, causal, values, ddof, scale) into
 * *out, every field. */
void ref_trial(const sv_spec *s, uint64_t trial, sv_trial_stats *out);

/* The --grad fields of out (reference_grad.c) from the trial's Q (n_q x
 * d_k), K (n_k x d_k), scores S (n_q x n_k), V (n_k x d_v), G (n_q x d_v). */
void ref_grad(const sv_spec *s, const double *q, const double *k, const double *S, const double *v,
              const double *G, sv_trial_stats *out);

/* Compares every field of got with want: |got - want| <= tol (|want| + f),
 * where the floor f is the field's natural size (the rms score for
 * score-valued fields, its square for variances, 1 for weights and
 * entropies), since a mean of scores near 0 has no relative precision.
 * NaN must match NaN. Prints each mismatch with @p label.
 * @return the number of fields that differ. */
int ref_compare(const sv_spec *s, const sv_trial_stats *got, const sv_trial_stats *want, double tol,
                const char *label);

#endif
