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
        return SV_ENONFINITE;
    sv_softmax_stats raw, scaled;
    sv_status st = sv_softmax_row_stats(z, n, scale, &raw, &scaled);
    if (st == SV_OK)
        st = sv_softmax(z, n, scale, p);
    if (st != SV_OK) /* |z| ~ 1e308: differences overflow */
        return st;
    *stats = scaled;
    /* J_ii = p_i (1 - p_i) with 1 - p_i as the sum of the other weights:
     * p_i - p_i^2 would cancel for the top key of a near one-hot row. */
    for (size_t i = 0; jac && i < n; i++) {
        double rest = 0.0;
        for (size_t j = 0; j < n; j++) {
            jac[i * n + j] = -p[i] * p[j];
            rest += j != i ? p[j] : 0.0;
        }
        jac[i * n + i] = p[i] * rest;
    }
    if (g) {
        /* g_j - p.g = (g_j - g_k) - sum_i p_i (g_i - g_k), k the top key:
         * the top key's term is then a sum of small terms, where g_k - p.g
         * would cancel to nothing in a near one-hot row. */
        size_t k = 0;
        for (size_t j = 1; j < n; j++)
            k = p[j] > p[k] ? j : k;
        double d = 0.0;
        for (size_t j = 0; j < n; j++)
            d += j != k ? p[j] * (g[j] - g[k]) : 0.0;
        for (size_t j = 0; j < n; j++)
            dz[j] = p[j] * ((g[j] - g[k]) - d);
    }
    return SV_OK;
}
