/* Scalable-Softmax's Figure 1 (Nakanishi 2025, arXiv:2501.19399): n
 * logits, all -2 but one +3; the largest weight fades as n grows, .943,
 * .600, .129 and .0146 at n = 10, 100, 1000 and 10^4 as the paper prints
 * them (3 significant digits; closed form e^3 / (e^3 + (n - 1) e^-2)).
 * With SSMax's multiplier s ln n (s = 1: --scale logn without --dk) the
 * weight is n^5 / (n^5 + n - 1) and does not fade. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* x rounded to 3 significant digits, as the paper prints it. */
static double sig3(double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.3g", x);
    return strtod(buf, NULL);
}

int main(void)
{
    static const size_t n[] = {10, 100, 1000, 10000};
    static const double printed[] = {0.943, 0.600, 0.129, 0.0146};
    double *z = malloc(10000 * sizeof *z), *p = malloc(10000 * sizeof *p);
    CHECK(z && p);
    for (size_t k = 0; k < 4 && z && p; k++) {
        for (size_t j = 0; j < n[k]; j++)
            z[j] = j + 1 == n[k] ? 3.0 : -2.0;
        const double dn = (double)n[k];
        sv_softmax_stats st;
        if (CHECK_STATUS(sv_softmax_row_report(z, n[k], 1.0, NULL, p, NULL, NULL, &st), SV_OK)) {
            CHECK_EQ(sig3(st.max_weight), printed[k]);
            CHECK_CLOSE(st.max_weight, exp(3.0) / (exp(3.0) + (dn - 1.0) * exp(-2.0)), 1e-14, 0);
            CHECK_CLOSE(st.max_weight, p[n[k] - 1], 1e-12, 0); /* computed apart */
        }
        /* logn: c = ln n, weight n^5 / (n^5 + n - 1) */
        if (CHECK_STATUS(sv_softmax_row_report(z, n[k], log(dn), NULL, p, NULL, NULL, &st), SV_OK))
            CHECK_CLOSE(st.max_weight, pow(dn, 5) / (pow(dn, 5) + dn - 1.0), 1e-13, 0);
    }
    free(z);
    free(p);
    return CHECK_DONE();
}
