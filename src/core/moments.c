#include "sdpa_var/moments.h"

#include <math.h>
#include <stdint.h>

sv_status sv_moments_of(const double *x, size_t n, sv_moments *out)
{
    if (!out || (n > 0 && !x))
        return SV_EINVAL;
    if (n > SIZE_MAX / sizeof(double))
        return SV_ERANGE;
    if (n == 0) {
        *out = (sv_moments){0u, 0.0, 0.0};
        return SV_OK;
    }
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    const double mean = sum / (double)n;
    /* Second pass; c is the sum of deviations, which would be 0 in exact
     * arithmetic: c/n is the rounding error of the first-pass mean, and
     * subtracting c^2/n corrects M2 for it. */
    double m2 = 0.0, c = 0.0;
#pragma omp simd reduction(+ : m2, c)
    for (size_t i = 0; i < n; i++) {
        const double dev = x[i] - mean;
        m2 += dev * dev;
        c += dev;
    }
    m2 -= c * c / (double)n;
    out->n = n;
    out->mean = mean + c / (double)n;
    out->m2 = m2 > 0.0 ? m2 : 0.0;
    return SV_OK;
}

sv_status sv_moments_merge(sv_moments *acc, const sv_moments *b)
{
    if (!acc || !b)
        return SV_EINVAL;
    if (b->n > UINT64_MAX - acc->n)
        return SV_ERANGE;
    if (b->n == 0)
        return SV_OK;
    if (acc->n == 0) {
        *acc = *b;
        return SV_OK;
    }
    const double na = (double)acc->n, nb = (double)b->n;
    const double n = na + nb;
    const double delta = b->mean - acc->mean;
    acc->mean += delta * (nb / n);
    acc->m2 += b->m2 + delta * delta * (na * nb / n);
    acc->n += b->n;
    return SV_OK;
}

double sv_moments_variance(const sv_moments *m, unsigned ddof)
{
    if (!m || m->n <= ddof)
        return NAN;
    return m->m2 / (double)(m->n - ddof);
}
