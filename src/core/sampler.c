#include "sdpa_var/sampler.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pcg.h"
#include "ziggurat_table.h"

static const char *const dist_names[] = {"normal", "uniform", "rademacher", "t"};
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

double sv_dist_fourth_moment(sv_dist dist, double nu)
{
    switch (dist) {
    case SV_DIST_NORMAL:
        return 3.0;
    case SV_DIST_UNIFORM:
        return 9.0 / 5.0;
    case SV_DIST_RADEMACHER:
        return 1.0;
    case SV_DIST_STUDENT_T:
        return isfinite(nu) && nu > 4.0 ? 3.0 * (nu - 2.0) / (nu - 4.0) : NAN;
    }
    return NAN;
}

/* 64 random bits: two PCG32 outputs. */
static uint64_t next64(sv_rng *rng)
{
    const uint64_t hi = sv__pcg_next(rng);
    return (hi << 32) | sv__pcg_next(rng);
}

/* Uniform in (0, 1): 53 bits, never 0, so log() is always finite. */
static double open01(sv_rng *rng)
{
    return ((double)(next64(rng) >> 11) + 0.5) * 0x1.0p-53;
}

/* The rare ends of normal(): layer 0's tail and the wedges, for the draw
 * b whose fast test failed; out of line, so the fast path that ends ~98.8 %
 * of draws is inlined into its loops without this code's register saves. */
static __attribute__((noinline)) int normal_slow(sv_rng *rng, uint64_t b, double *out)
{
    const unsigned i = (unsigned)(b & (SV_ZIG_LAYERS - 1));
    const double u = 2.0 * ((double)(b >> 11) * 0x1.0p-53) - 1.0;
    if (i == 0) {
        /* The tail beyond R: Marsaglia (1964), as in Doornik's
         * DRanNormalTail. */
        double x, y;
        do {
            x = log(open01(rng)) / SV_ZIG_R;
            y = log(open01(rng));
        } while (-2.0 * y < x * x);
        *out = u < 0.0 ? x - SV_ZIG_R : SV_ZIG_R - x;
        return 1;
    }
    /* The wedge between layer i's rectangle and the curve. */
    const double x = u * sv_zig_x[i];
    const double f0 = exp(-0.5 * (sv_zig_x[i] * sv_zig_x[i] - x * x));
    const double f1 = exp(-0.5 * (sv_zig_x[i + 1] * sv_zig_x[i + 1] - x * x));
    *out = x;
    return f1 + open01(rng) * (f0 - f1) < 1.0;
}

/* Ziggurat for N(0, 1): Marsaglia & Tsang, "The Ziggurat Method for
 * Generating Random Variables", J. Stat. Softw. 5(8) (2000), in Doornik's
 * form ("An Improved Ziggurat Method to Generate Normal Random Samples",
 * 2005: the layer comes from bits independent of the uniform, which fixes
 * the original's correlation). One 64-bit draw gives the layer (low 7
 * bits) and a 53-bit uniform u in [-1, 1) (top 53 bits); ~98.8 % of
 * draws end at the first comparison. */
static inline double normal(sv_rng *rng)
{
    for (;;) {
        const uint64_t b = next64(rng);
        const unsigned i = (unsigned)(b & (SV_ZIG_LAYERS - 1));
        const double u = 2.0 * ((double)(b >> 11) * 0x1.0p-53) - 1.0;
        if (fabs(u) < sv_zig_ratio[i])
            return u * sv_zig_x[i];
        double x;
        if (normal_slow(rng, b, &x))
            return x;
    }
}

/* Gamma(a, 1) for a >= 1: Marsaglia & Tsang (2000), squeeze and exact test. */
static double gamma_ge1(sv_rng *rng, double a)
{
    const double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        const double z = normal(rng);
        double v = 1.0 + c * z;
        if (v <= 0.0)
            continue;
        v = v * v * v;
        const double u = open01(rng);
        if (u < 1.0 - 0.0331 * (z * z) * (z * z) || log(u) < 0.5 * z * z + d * (1.0 - v + log(v)))
            return d * v;
    }
}

static int dist_ok(sv_dist dist, double nu)
{
    return (unsigned)dist < SV_NDIST && (dist != SV_DIST_STUDENT_T || (isfinite(nu) && nu > 2.0));
}

/* n values of dist into x, the arguments checked: inlined into both
 * callers, so that normal() is inlined into their loops. */
static inline void fill(sv_rng *rng, sv_dist dist, double nu, double *x, size_t n)
{
    switch (dist) {
    case SV_DIST_NORMAL:
        for (size_t i = 0; i < n; i++)
            x[i] = normal(rng);
        break;
    case SV_DIST_UNIFORM: {
        const double a = sqrt(3.0); /* Var U(-a, a) = a^2 / 3 = 1 */
        for (size_t i = 0; i < n; i++)
            x[i] = a * (2.0 * sv_rng_double(rng) - 1.0);
        break;
    }
    case SV_DIST_RADEMACHER:
        for (size_t i = 0; i < n; i++)
            x[i] = (sv__pcg_next(rng) >> 31) ? 1.0 : -1.0;
        break;
    case SV_DIST_STUDENT_T:
        /* t = z / sqrt(chi2 / nu), chi2 = 2 g; times sqrt((nu - 2) / nu)
         * for variance 1. */
        for (size_t i = 0; i < n; i++) {
            const double z = normal(rng);
            x[i] = z * sqrt((nu - 2.0) / (2.0 * gamma_ge1(rng, 0.5 * nu)));
        }
        break;
    }
}

sv_status sv_sample_fill(sv_rng *rng, sv_dist dist, double nu, double *x, size_t n)
{
    if (!dist_ok(dist, nu))
        return SV_EINVAL;
    if (n == 0)
        return SV_OK;
    if (!rng || !x)
        return SV_EINVAL;
    if (n > SIZE_MAX / sizeof(double))
        return SV_ERANGE;
    fill(rng, dist, nu, x, n);
    return SV_OK;
}

sv_status sv_sample_rows(uint64_t key, uint64_t row0, size_t m, size_t d, sv_dist dist, double nu,
                         double *x, size_t ld)
{
    if (!dist_ok(dist, nu))
        return SV_EINVAL;
    if (m == 0 || d == 0)
        return SV_OK;
    if (!x || (m > 1 && ld < d))
        return SV_EINVAL;
    /* (m - 1) ld + d doubles, without a division: tiny trials call this
     * twice a trial. */
    const size_t most = SIZE_MAX / sizeof(double);
    size_t span = 0;
    if (d > most || (m > 1 && (__builtin_mul_overflow(m - 1, ld, &span) || span > most - d)))
        return SV_ERANGE;
    for (size_t i = 0; i < m; i++) {
        sv_rng rng;
        sv__pcg_seed_keyed(&rng, key, row0 + i);
        if (dist == SV_DIST_NORMAL) /* the common law, its loop apart */
            for (size_t l = 0; l < d; l++)
                x[i * ld + l] = normal(&rng);
        else
            fill(&rng, dist, nu, x + i * ld, d);
    }
    return SV_OK;
}
