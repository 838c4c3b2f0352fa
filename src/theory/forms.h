/* Private to src/theory/: the counts of a trial's visible scores, what each
 * case of sv_theory_spec derives, and the closed-form helpers that
 * theory.c and plant.c both use. Below both: it calls neither. Not
 * installed. */
#ifndef SDPA_VAR_THEORY_FORMS_H
#define SDPA_VAR_THEORY_FORMS_H

#include <math.h>

#include "sdpa_var/spec.h"

/* The visible scores of one trial and the counts the theory needs. The
 * 0/1 mask M (n_q x n_k) has row counts r_i and column counts c_j. */
typedef struct grid {
    double d, nq, nk, N; /* d_k, n_q, n_k, visible scores */
    double nd;           /* visible related pairs (i, i), i < min(n_q, n_k) */
    double pt;           /* ordered pairs (i, j), (j, i), i != j, of related rows, both visible */
    double sr2, sc2;     /* sum of r_i^2, sum of c_j^2 */
    double trg2;         /* ||M M^T||_F^2 = sum over row pairs of shared columns, squared */
} grid;

/* What each case of sv_theory_spec derives: the mean and known-mean
 * variance of the visible scores, E[M2] (M2 = sum (S - mean of trial)^2),
 * sqrt(Var(M2)), the mean planted or shared-token score, a row's logit
 * variance. NAN: not derived. */
typedef struct part {
    double mean, var, m2, m2_sd, diag, logit_var;
} part;

static inline double std_or_one(double s)
{
    return s > 0.0 ? s : 1.0;
}

static inline double qk_radius(const sv_spec *spec)
{
    return spec->qk_radius > 0.0 ? spec->qk_radius : sqrt((double)spec->d_k);
}

/* Var(XY) of independent X, Y: vx vy + vx my^2 + mx^2 vy, the expansion of
 * (vx + mx^2)(vy + my^2) - mx^2 my^2 with the mx^2 my^2 terms cancelled by
 * hand: at a mean of 1e25 the unexpanded form is off by 1e84 (its ulp). */
static inline double var_product(double vx, double mx, double vy, double my)
{
    return vx * vy + vx * my * my + mx * mx * vy;
}

#endif
