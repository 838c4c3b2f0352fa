#include "sdpa_var/theory.h"

#include <math.h>

sv_status sv_theory_raw(size_t d_k, size_t n_q, size_t n_k, unsigned ddof, sv_dist dist,
                        sv_theory *out)
{
    const double m4 = sv_dist_fourth_moment(dist);
    if (d_k == 0 || n_q == 0 || n_k == 0 || isnan(m4))
        return SV_EINVAL;
    /* Sizes as doubles: N up to 2^53 is exact, beyond that the relative
     * error is 2^-53, far below anything the formulas are compared with. */
    const double d = (double)d_k, nq = (double)n_q, nk = (double)n_k;
    const double N = nq * nk;
    if (N <= (double)ddof)
        return SV_EINVAL;
    const double dof = N - (double)ddof;
    const double a = m4 - 1.0, b = m4 - 3.0, r = nq + nk;
    /* docs/theory.md, section 4: Var(A) + Var(B)/N^2 - 2 Cov(A,B)/N, each
     * already divided by N d and with the N^2 d^2 terms cancelled by hand,
     * so nothing large cancels here even at n = 65536. */
    const double v = d * (N * (m4 * m4 + 2.0 * d - 3.0 + (r - 2.0) * a) + (2.0 * d + 6.0) +
                          (3.0 * b * r + b * b) / N - 2.0 * (a * a + a * r + 2.0 * d - 2.0));
    out->var = d;
    out->var_expected = d * (N - 1.0) / dof;
    out->var_sd = sqrt(v > 0.0 ? v : 0.0) / dof;
    return SV_OK;
}
