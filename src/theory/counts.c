/* sv_theory_normal_counts (theory.h): the expected histogram of normal
 * draws, for a histogram drawn against its theory. */
#include <math.h>

#include "sdpa_var/theory.h"

/* P(X >= z) for X standard normal, by erfc: full relative precision in the
 * upper tail, where 1 - Phi(z) would cancel. */
static double upper(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

sv_status sv_theory_normal_counts(double mean, double var, double total, const double *edges,
                                  size_t bins, double *out)
{
    if (!edges || !out || bins == 0 || !isfinite(mean) || !isfinite(total) || total < 0.0 ||
        !(var > 0.0) || !isfinite(var))
        return SV_EINVAL;
    for (size_t i = 0; i <= bins; i++)
        if (!isfinite(edges[i]) || (i > 0 && !(edges[i] > edges[i - 1])))
            return SV_EINVAL;
    const double sd = sqrt(var);
    for (size_t i = 0; i < bins; i++) {
        const double a = (edges[i] - mean) / sd, b = (edges[i + 1] - mean) / sd;
        /* a bin right of the mean: upper(a) - upper(b); left: by symmetry
         * upper(-b) - upper(-a); across it: 1 minus both tails */
        const double p = a >= 0.0   ? upper(a) - upper(b)
                         : b <= 0.0 ? upper(-b) - upper(-a)
                                    : 1.0 - upper(b) - upper(-a);
        out[i] = total * p;
    }
    return SV_OK;
}
