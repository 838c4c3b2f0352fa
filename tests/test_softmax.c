/* Softmax statistics: the two worked examples of the notes (seed 003),
 * known to 1e-12 from a 60-digit decimal computation, and properties. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "sdpa_var/softmax.h"

/* Reference values: Python's decimal module at 60 digits,
 * p = exp(s - max) / sum, H = -sum p ln p (docs/theory.md). */
static void test_examples(void)
{
    /* d_k = 64 without scaling: std ~ 8, "[-20, 3, 25, -15]". */
    const double a[4] = {-20, 3, 25, -15};
    const double pa[4] = {2.86251857975090310242e-20, 2.78946809209081134588e-10,
                          9.99999999721053134394e-01, 4.24835425410652411683e-18};
    /* After dividing by sqrt(d_k): "[-2.5, 0.4, 3.1, -1.9]". */
    const double b[4] = {-2.5, 0.4, 3.1, -1.9};
    const double pb[4] = {3.43144201692842203133e-03, 6.23635260424720352934e-02,
                          9.27952536929104287999e-01, 6.25249501149520436893e-03};
    double p[4];
    sv_softmax(a, 4, 1.0, p);
    for (int j = 0; j < 4; j++)
        CHECK_CLOSE(p[j], pa[j], 1e-12, 1e-300);
    sv_softmax(b, 4, 1.0, p);
    for (int j = 0; j < 4; j++)
        CHECK_CLOSE(p[j], pb[j], 1e-12, 0.0);

    sv_softmax_stats raw, sc;
    sv_softmax_row_stats(a, 4, 1.0, &raw, &sc);
    /* Relative 1e-12 even though the row is one-hot to 3e-10: the log1p form
     * keeps the digits that ln Z - sum p t would cancel. */
    CHECK_CLOSE(raw.entropy, 6.41577678734705508684e-09, 1e-12, 0.0);
    CHECK_CLOSE(raw.max_weight, 9.99999999721053134394e-01, 1e-12, 0.0);
    CHECK_CLOSE(raw.jac_trace, 5.57893626816498594093e-10, 1e-12, 0.0);
    /* ||diag(p) - p p^T||_F, 60-digit decimal (scripts in docs/theory.md). */
    CHECK_CLOSE(raw.jac_frob, 5.57893620401029485763e-10, 1e-12, 0.0);
    CHECK_EQ(sc.entropy, raw.entropy);
    CHECK_EQ(sc.max_weight, raw.max_weight);
    CHECK_EQ(sc.jac_trace, raw.jac_trace);

    sv_softmax_row_stats(b, 4, 1.0, &raw, &sc);
    CHECK_CLOSE(raw.entropy, 2.93634763721398572844e-01, 1e-12, 0.0);
    CHECK_CLOSE(raw.max_weight, 9.27952536929104287999e-01, 1e-12, 0.0);
    CHECK_CLOSE(raw.jac_trace, 1.34964011338204847856e-01, 1e-12, 0.0);
    CHECK_CLOSE(raw.jac_frob, 1.21347934164689100212e-01, 1e-12, 0.0);
}

/* Entropy against a direct -sum p ln p from the weights. */
static double direct_entropy(const double *s, size_t n, double c)
{
    double *p = malloc(n * sizeof *p), h = 0.0;
    sv_softmax(s, n, c, p);
    for (size_t j = 0; j < n; j++)
        h -= p[j] > 0.0 ? p[j] * log(p[j]) : 0.0;
    free(p);
    return h;
}

/* ||diag(p) - p p^T||_F straight from the weights. */
static double direct_frob(const double *s, size_t n, double c)
{
    double *p = malloc(n * sizeof *p), f2 = 0.0;
    sv_softmax(s, n, c, p);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const double v = (i == j ? p[i] : 0.0) - p[i] * p[j];
            f2 += v * v;
        }
    free(p);
    return sqrt(f2);
}

static void test_properties(void)
{
    double s[50], shifted[50], cs[50];
    for (int j = 0; j < 50; j++) {
        s[j] = sin(1.7 * j) * 3.0 + 0.01 * j;
        shifted[j] = s[j] + 1000.0;
        cs[j] = 0.25 * s[j];
    }
    sv_softmax_stats r1, s1, r2, s2, r3, s3;
    sv_softmax_row_stats(s, 50, 0.25, &r1, &s1);
    /* A constant added to a row changes nothing (the max is subtracted). */
    sv_softmax_row_stats(shifted, 50, 0.25, &r2, &s2);
    CHECK_CLOSE(r2.entropy, r1.entropy, 1e-12, 0.0);
    CHECK_CLOSE(s2.entropy, s1.entropy, 1e-12, 0.0);
    CHECK_CLOSE(s2.max_weight, s1.max_weight, 1e-12, 0.0);
    /* The scaled slot with c equals the raw slot of c * s. */
    sv_softmax_row_stats(cs, 50, 1.0, &r3, &s3);
    CHECK_CLOSE(s1.entropy, r3.entropy, 1e-13, 0.0);
    CHECK_CLOSE(s1.max_weight, r3.max_weight, 1e-13, 0.0);
    CHECK_CLOSE(s1.jac_trace, r3.jac_trace, 1e-13, 0.0);
    /* Against the textbook definitions. */
    CHECK_CLOSE(r1.entropy, direct_entropy(s, 50, 1.0), 1e-12, 0.0);
    CHECK_CLOSE(s1.entropy, direct_entropy(s, 50, 0.25), 1e-12, 0.0);
    CHECK_CLOSE(r1.jac_frob, direct_frob(s, 50, 1.0), 1e-12, 0.0);
    CHECK_CLOSE(s1.jac_frob, direct_frob(s, 50, 0.25), 1e-12, 0.0);

    /* A row streamed in three blocks, merged in key order, gives the whole
     * row's statistics (every sum of sv_softmax_acc, including e^3). */
    sv_softmax_acc whole, part, acc;
    sv_softmax_acc_row(s, 50, 0.25, &whole);
    sv_softmax_acc_row(s, 17, 0.25, &acc);
    sv_softmax_acc_row(s + 17, 20, 0.25, &part);
    sv_softmax_acc_merge(&acc, &part, 0.25);
    sv_softmax_acc_row(s + 37, 13, 0.25, &part);
    sv_softmax_acc_merge(&acc, &part, 0.25);
    sv_softmax_acc_stats(&whole, 0.25, &r1, &s1);
    sv_softmax_acc_stats(&acc, 0.25, &r2, &s2);
    CHECK_EQ(acc.max, whole.max);
    CHECK_EQ(acc.min, whole.min);
    CHECK_CLOSE(r2.entropy, r1.entropy, 1e-13, 0.0);
    CHECK_CLOSE(s2.entropy, s1.entropy, 1e-13, 0.0);
    CHECK_CLOSE(r2.jac_trace, r1.jac_trace, 1e-13, 0.0);
    CHECK_CLOSE(s2.jac_frob, s1.jac_frob, 1e-13, 0.0);
    CHECK_CLOSE(r2.jac_frob, r1.jac_frob, 1e-13, 0.0);

    /* Uniform row: H = ln n, max weight 1/n, trace 1 - 1/n; ties at the max
     * are handled. */
    const double u[8] = {3, 3, 3, 3, 3, 3, 3, 3};
    sv_softmax_row_stats(u, 8, 0.5, &r1, &s1);
    CHECK_CLOSE(r1.entropy, log(8.0), 1e-15, 0.0);
    CHECK_CLOSE(r1.max_weight, 0.125, 1e-15, 0.0);
    CHECK_CLOSE(r1.jac_trace, 0.875, 1e-15, 0.0);
    /* A long row (chunks of 256) with its max three times, in three
     * chunks: every copy but the first counts as e = 1. */
    double lng[600];
    for (int j = 0; j < 600; j++)
        lng[j] = sin(0.37 * j) * 2.0;
    lng[10] = lng[300] = lng[599] = 2.5;
    sv_softmax_row_stats(lng, 600, 0.5, &r1, &s1);
    CHECK_CLOSE(r1.entropy, direct_entropy(lng, 600, 1.0), 1e-12, 0.0);
    CHECK_CLOSE(s1.entropy, direct_entropy(lng, 600, 0.5), 1e-12, 0.0);
    CHECK_CLOSE(r1.jac_frob, direct_frob(lng, 600, 1.0), 1e-12, 0.0);
    CHECK_CLOSE(s1.jac_frob, direct_frob(lng, 600, 0.5), 1e-12, 0.0);
    double zr = 0.0;
    for (int j = 0; j < 600; j++)
        zr += exp(lng[j] - 2.5);
    CHECK_CLOSE(r1.max_weight, 1.0 / zr, 1e-13, 0.0);
    /* One key: always weight 1, entropy 0. */
    sv_softmax_row_stats(u, 1, 0.5, &r1, &s1);
    CHECK_EQ(r1.entropy, 0.0);
    CHECK_EQ(r1.max_weight, 1.0);
    CHECK_EQ(r1.jac_trace, 0.0);

    /* Raw scores at d_k = 65536 have std 256: no overflow, finite output. */
    const double big[3] = {700.0, -900.0, 1000.0}; /* scaled: 2.7, -3.5, 3.9 */
    sv_softmax_row_stats(big, 3, 1.0 / 256.0, &r1, &s1);
    CHECK(isfinite(r1.entropy));
    CHECK(isfinite(s1.entropy));
    CHECK_EQ(r1.max_weight, 1.0);
    CHECK_GE(r1.entropy, 0.0);
    CHECK_GT(s1.entropy, 0.0);
    CHECK_LT(s1.max_weight, 1.0);
}

/* sv_softmax_row_report: the slide's row at c = 1 and c = 1/8 (the same
 * 60-digit references as test_examples), its Jacobian and a gradient
 * against the definitions, and the errors. */
static void test_row_report(void)
{
    const double a[4] = {-20, 3, 25, -15}, g[4] = {1.0, -2.0, 0.5, 3.0};
    double p[4], jac[16], dz[4];
    sv_softmax_stats st, raw, sc;
    CHECK(sv_softmax_row_report(a, 4, 1.0, NULL, p, jac, NULL, &st) == SV_OK);
    CHECK_CLOSE(st.entropy, 6.41577678734705508684e-09, 1e-12, 0.0);
    CHECK_CLOSE(st.jac_trace, 5.57893626816498594093e-10, 1e-12, 0.0);
    CHECK_CLOSE(p[2], 9.99999999721053134394e-01, 1e-12, 0.0);
    /* The top key's J_22 = p_2 (1 - p_2) keeps its digits (p - p^2 would
     * not): the diagonal sums to the trace. */
    CHECK_CLOSE(jac[0] + jac[5] + jac[10] + jac[15], st.jac_trace, 1e-12, 0.0);
    CHECK(sv_softmax_row_report(a, 4, 0.125, g, p, jac, dz, &st) == SV_OK);
    sv_softmax_row_stats(a, 4, 0.125, &raw, &sc);
    CHECK(st.entropy == sc.entropy && st.jac_frob == sc.jac_frob && st.eff_keys == sc.eff_keys);
    /* a / 8 = [-2.5, 0.375, 3.125, -1.875]: not quite the notes' row b. */
    CHECK_CLOSE(p[2] / p[1], exp(22.0 / 8.0), 1e-14, 0.0);
    CHECK_CLOSE(p[0] + p[1] + p[2] + p[3], 1.0, 1e-15, 0.0);
    double tr = 0.0, f2 = 0.0, sum = 0.0;
    for (int i = 0; i < 4; i++) {
        double jg = 0.0;
        for (int j = 0; j < 4; j++) {
            CHECK(jac[i * 4 + j] == jac[j * 4 + i]);
            CHECK_CLOSE(jac[i * 4 + j], (i == j ? p[i] : 0.0) - p[i] * p[j], 1e-15, 1e-300);
            jg += jac[i * 4 + j] * g[j];
            f2 += jac[i * 4 + j] * jac[i * 4 + j];
        }
        tr += jac[i * 4 + i];
        sum += dz[i];
        CHECK_CLOSE(dz[i], jg, 1e-13, 1e-15);
    }
    CHECK_CLOSE(tr, st.jac_trace, 1e-13, 0.0);
    CHECK_CLOSE(sqrt(f2), st.jac_frob, 1e-13, 0.0);
    CHECK(fabs(sum) < 1e-15); /* J 1 = 0: a shift of every logit changes nothing */
    /* Errors: outputs untouched. */
    const double bad[2] = {1.0, NAN};
    p[0] = 7.0;
    CHECK_STATUS(sv_softmax_row_report(bad, 2, 1.0, NULL, p, NULL, NULL, &st), SV_ENONFINITE);
    CHECK_EQ(p[0], 7.0);
    CHECK_STATUS(sv_softmax_row_report(a, 4, 1.0, bad, p, NULL, dz, &st), SV_ENONFINITE);
    CHECK(sv_softmax_row_report(a, 4, 1.0, g, p, NULL, NULL, &st) == SV_EINVAL);
    CHECK(sv_softmax_row_report(a, 0, 1.0, NULL, p, NULL, NULL, &st) == SV_EINVAL);
    CHECK(sv_softmax_row_report(a, 4, 0.0, NULL, p, NULL, NULL, &st) == SV_EINVAL);
    CHECK(sv_softmax_row_report(a, 4, 1.0, NULL, NULL, NULL, NULL, &st) == SV_EINVAL);
    CHECK(sv_softmax_row_report(a, SIZE_MAX / 4, 1.0, NULL, p, jac, NULL, &st) == SV_ERANGE);
}

int main(void)
{
    test_examples();
    test_row_report();
    test_properties();
    return CHECK_DONE();
}
