#include "sdpa_var/softmax.h"

#include <math.h>

void sv_softmax_row_stats(const double *s, size_t n, double scale, sv_softmax_stats *raw,
                          sv_softmax_stats *scaled)
{
    double m = s[0];
    for (size_t j = 1; j < n; j++)
        m = s[j] > m ? s[j] : m;

    /* One pass for both temperatures. With t_j = s_j - m <= 0 every exp is
     * in (0, 1] and the max element contributes exactly 1 to Z. */
    double z1 = 0.0, w1 = 0.0, q1 = 0.0; /* sum e, sum e t, sum e^2 (raw) */
    double z2 = 0.0, w2 = 0.0, q2 = 0.0; /* the same for scale * t */
    for (size_t j = 0; j < n; j++) {
        const double t = s[j] - m;
        const double e1 = exp(t);
        const double e2 = exp(scale * t);
        z1 += e1;
        w1 += e1 * t;
        q1 += e1 * e1;
        z2 += e2;
        w2 += e2 * t;
        q2 += e2 * e2;
    }
    /* H = -sum p ln p with ln p_j = c t_j - ln Z: H = ln Z - c sum p t. */
    raw->entropy = log(z1) - w1 / z1;
    raw->max_weight = 1.0 / z1;
    raw->jac_trace = 1.0 - q1 / (z1 * z1);
    scaled->entropy = log(z2) - scale * (w2 / z2);
    scaled->max_weight = 1.0 / z2;
    scaled->jac_trace = 1.0 - q2 / (z2 * z2);
}
