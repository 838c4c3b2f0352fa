/* cpu.h: the instruction set of the row loops can be chosen and named, a
 * level the CPU lacks is refused, and every level computes the same
 * statistics to within the cross-machine tolerance (tests/tolerance.py),
 * each one bit for bit the same when run twice. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/cpu.h"
#include "sdpa_var/rng.h"
#include "sdpa_var/sampler.h"
#include "sdpa_var/softmax.h"

static const char *const names[] = {"default", "avx2", "avx512"};

static int level_of(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

enum { N = 1000 };

/* A row of raw scores with standard deviation 8 (d_k = 64): both the raw
 * (saturated) and the scaled softmax, and rows longer than the row loops'
 * 256-element chunks and 32-key short-row packing. */
static void row(double *s)
{
    sv_rng rng;
    sv_rng_seed(&rng, 2026u, 14u);
    sv_sample_fill(&rng, SV_DIST_NORMAL, 0.0, s, N);
    for (size_t j = 0; j < N; j++)
        s[j] *= 8.0;
}

static void stats(const double *s, size_t n, double out[6])
{
    sv_softmax_stats raw, scaled;
    sv_softmax_acc acc;
    sv_moments mo;
    CHECK_STATUS(sv_softmax_row_stats(s, n, 0.125, &raw, &scaled), SV_OK);
    CHECK_STATUS(sv_softmax_acc_row_moments(s, n, 0.125, &acc, &mo), SV_OK);
    out[0] = raw.entropy;
    out[1] = scaled.entropy;
    out[2] = raw.jac_frob;
    out[3] = scaled.max_weight;
    out[4] = mo.mean;
    out[5] = mo.m2;
}

int main(void)
{
    CHECK_STATUS(sv_cpu_capability_set(NULL), SV_OK);
    const int best = level_of(sv_cpu_capability());
    CHECK_GE(best, 0);
    CHECK_STATUS(sv_cpu_capability_set(""), SV_OK);
    CHECK_EQ(level_of(sv_cpu_capability()), best);
    /* Unknown names and levels above the CPU's leave the choice alone. */
    CHECK_STATUS(sv_cpu_capability_set("default"), SV_OK);
    CHECK_STATUS(sv_cpu_capability_set("AVX2"), SV_EINVAL);
    CHECK_STATUS(sv_cpu_capability_set("avx512f"), SV_EINVAL);
    CHECK_STR_EQ(sv_cpu_capability(), "default");
    for (int l = best + 1; l < 3; l++) {
        CHECK_STATUS(sv_cpu_capability_set(names[l]), SV_EUNSUPPORTED);
        CHECK_STR_EQ(sv_cpu_capability(), "default");
    }

    double s[N], want[6], got[6], again[6];
    row(s);
    CHECK_STATUS(sv_cpu_capability_set("default"), SV_OK);
    stats(s, N, want);
    const size_t lens[] = {N, 31, 2}; /* long rows and packed short rows */
    for (int l = 0; l <= best; l++) {
        CHECK_STATUS(sv_cpu_capability_set(names[l]), SV_OK);
        CHECK_STR_EQ(sv_cpu_capability(), names[l]);
        stats(s, N, got);
        stats(s, N, again);
        CHECK_MEM_EQ(got, again, sizeof got);
        /* Other summation orders and a 4-ulp exp: a few ulp of a sum of
         * N terms with logits spanning ~50, far inside tolerance.py's 1e-9. */
        for (int k = 0; k < 6; k++)
            CHECK_CLOSE(got[k], want[k], 1e-9, 0.0);
        for (int i = 1; i < 3; i++) {
            double a[6], b[6];
            CHECK_STATUS(sv_cpu_capability_set("default"), SV_OK);
            stats(s, lens[i], a);
            CHECK_STATUS(sv_cpu_capability_set(names[l]), SV_OK);
            stats(s, lens[i], b);
            for (int k = 0; k < 6; k++)
                CHECK_CLOSE(b[k], a[k], 1e-9, 0.0);
        }
    }
    CHECK_STATUS(sv_cpu_capability_set(NULL), SV_OK);
    CHECK_EQ(level_of(sv_cpu_capability()), best);
    return CHECK_DONE();
}
