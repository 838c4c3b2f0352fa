#include "sdpa_var/softmax.h"

#include <math.h>

/* Index of the first largest element. */
static size_t argmax(const double *s, size_t n)
{
    size_t k = 0;
    for (size_t j = 1; j < n; j++)
        k = s[j] > s[k] ? j : k;
    return k;
}

void sv_softmax(const double *s, size_t n, double scale, double *p)
{
    const double m = s[argmax(s, n)];
    double z = 0.0;
    for (size_t j = 0; j < n; j++) {
        p[j] = exp(scale * (s[j] - m));
        z += p[j];
    }
    for (size_t j = 0; j < n; j++)
        p[j] /= z;
}

/* Sums over every element but the first max (whose e is exactly 1):
 * r = sum e, w = sum e t, q = sum e^2, with e = exp(c t), t = s - max. */
typedef struct tail_sums {
    double r, w, q;
} tail_sums;

static void finish(const tail_sums *a, double c, sv_softmax_stats *out)
{
    const double z = 1.0 + a->r;
    /* Near one-hot rows have r -> 0: log1p and the form
     * 1 - sum p^2 = (Z^2 - sum e^2) / Z^2 = (2r + r^2 - q) / Z^2 keep every
     * digit, where ln Z and 1 - q/Z^2 would cancel to nothing. */
    out->entropy = log1p(a->r) - c * (a->w / z);
    out->max_weight = 1.0 / z;
    out->jac_trace = (2.0 * a->r + (a->r * a->r - a->q)) / (z * z);
}

static void accumulate(const double *s, size_t lo, size_t hi, double m, double c,
                       tail_sums *raw, tail_sums *sc)
{
    for (size_t j = lo; j < hi; j++) {
        const double t = s[j] - m;
        const double e1 = exp(t);
        const double e2 = exp(c * t);
        raw->r += e1;
        raw->w += e1 * t;
        raw->q += e1 * e1;
        sc->r += e2;
        sc->w += e2 * t;
        sc->q += e2 * e2;
    }
}

void sv_softmax_row_stats(const double *s, size_t n, double scale, sv_softmax_stats *raw,
                          sv_softmax_stats *scaled)
{
    const size_t k = argmax(s, n);
    const double m = s[k];
    tail_sums a = {0.0, 0.0, 0.0}, b = {0.0, 0.0, 0.0};
    /* One pass for both temperatures, skipping the max. */
    accumulate(s, 0, k, m, scale, &a, &b);
    accumulate(s, k + 1, n, m, scale, &a, &b);
    finish(&a, 1.0, raw);
    finish(&b, scale, scaled);
}
