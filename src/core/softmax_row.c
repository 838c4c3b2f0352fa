/* sv_softmax_row_report (softmax.h): one row of given logits, whole. */
#include <math.h>
#include <stdint.h>

#include "sdpa_var/softmax.h"

static int all_finite(const double *x, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (!isfinite(x[j]))
            return 0;
    return 1;
}

sv_status sv_softmax_row_report(const double *z, size_t n, double scale, const double *g, double *p,
                                double *jac, double *dz, sv_softmax_stats *stats)
{
    if (!z || !p || !stats || (g && !dz) || n == 0 || !isfinite(scale) || !(scale > 0.0))
        return SV_EINVAL;
    if (n > SIZE_MAX / sizeof(double) || (jac && n > SIZE_MAX / sizeof(double) / n))
        return SV_ERANGE;
    if (!all_finite(z, n) || (g && !all_finite(g, n)))
        return SV_EINVAL;
    sv_softmax_stats raw, scaled;
    sv_status st = sv_softmax_row_stats(z, n, scale, &raw, &scaled);
    if (st == SV_OK)
        st = sv_softmax(z, n, scale, p);
    if (st != SV_OK) /* |z| ~ 1e308: differences overflow */
        return st;
    *stats = scaled;
    for (size_t i = 0; jac && i < n; i++)
        for (size_t j = 0; j < n; j++)
            jac[i * n + j] = (i == j ? p[i] : 0.0) - p[i] * p[j];
    if (g) {
        double pg = 0.0; /* E_p[g] */
        for (size_t j = 0; j < n; j++)
            pg += p[j] * g[j];
        for (size_t j = 0; j < n; j++)
            dz[j] = p[j] * (g[j] - pg);
    }
    return SV_OK;
}
