/* Private to src/theory/: the planted-key cases of the theory
 * (docs/theory.md 8.5), in plant.c, called by theory.c. Not installed. */
#ifndef SDPA_VAR_THEORY_PLANT_H
#define SDPA_VAR_THEORY_PLANT_H

#include "forms.h"

/* The mean of the visible scores with a planted key, no
 * QK-norm. */
double sv__theory_plant_mean(const sv_spec *spec, const grid *g);
/* E[S_ii] of a planted pair under QK-norm: R^2 E[cos]; NAN without a
 * closed form (non-normal entries or nonzero means, |rho| < 1). */
double sv__theory_plant_diag_qk(const sv_spec *spec);
/* The planted key's part (m4: the law's fourth moment), no QK-norm. */
void sv__theory_plant(const sv_spec *spec, const grid *g, double m4, part *p);
/* The planted key's part under QK-norm (no projections). */
void sv__theory_plant_qk(const sv_spec *spec, const grid *g, part *p);

#endif
