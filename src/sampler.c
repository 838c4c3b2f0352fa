#include "sdpa_var/sampler.h"

#include <math.h>
#include <string.h>

static const char *const dist_names[] = {"normal", "uniform", "rademacher"};
#define SV_NDIST (sizeof dist_names / sizeof dist_names[0])

sv_status sv_dist_from_name(const char *name, sv_dist *dist)
{
    if (!name || !dist)
        return SV_EINVAL;
    for (size_t i = 0; i < SV_NDIST; i++) {
        if (strcmp(name, dist_names[i]) == 0) {
            *dist = (sv_dist)i;
            return SV_OK;
        }
    }
    return SV_EINVAL;
}

const char *sv_dist_name(sv_dist dist)
{
    return (unsigned)dist < SV_NDIST ? dist_names[dist] : "?";
}

double sv_dist_fourth_moment(sv_dist dist)
{
    switch (dist) {
    case SV_DIST_NORMAL:
        return 3.0;
    case SV_DIST_UNIFORM:
        return 9.0 / 5.0;
    case SV_DIST_RADEMACHER:
        return 1.0;
    }
    return NAN;
}

/* Marsaglia & Bray (1964) polar method: returns a pair of N(0,1) deviates. */
static void normal_pair(sv_rng *rng, double *a, double *b)
{
    double u, v, s;
    do {
        u = 2.0 * sv_rng_double(rng) - 1.0;
        v = 2.0 * sv_rng_double(rng) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0); /* s == 0 would take log(0) */
    double f = sqrt(-2.0 * log(s) / s);
    *a = u * f;
    *b = v * f;
}

void sv_sample_fill(sv_rng *rng, sv_dist dist, double *x, size_t n)
{
    switch (dist) {
    case SV_DIST_NORMAL: {
        size_t i = 0;
        for (; i + 1 < n; i += 2)
            normal_pair(rng, &x[i], &x[i + 1]);
        if (i < n) {
            double spare;
            normal_pair(rng, &x[i], &spare);
        }
        break;
    }
    case SV_DIST_UNIFORM: {
        const double a = sqrt(3.0); /* Var U(-a, a) = a^2 / 3 = 1 */
        for (size_t i = 0; i < n; i++)
            x[i] = a * (2.0 * sv_rng_double(rng) - 1.0);
        break;
    }
    case SV_DIST_RADEMACHER:
        for (size_t i = 0; i < n; i++)
            x[i] = (sv_rng_next(rng) >> 31) ? 1.0 : -1.0;
        break;
    }
}
