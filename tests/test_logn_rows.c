/* Log-n scaling per row (spec.scale_logn; Scalable-Softmax, Nakanishi
 * 2025, arXiv:2501.19399): row i's multiplier c_i = s ln(n_i), n_i the
 * keys it sees. The engine against the scalar reference (which applies
 * c_i row by row), the same bits for any threads and block rows, the
 * multipliers themselves, the theory of the pooled scaled scores, and
 * what the per-row multipliers are refused with. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reference.h"
#include "sdpa_var/sdpa_var.h"

static sv_spec logn(size_t d, size_t n, uint64_t trials, int causal)
{
    sv_spec c = {.d_k = d, .n_q = n, .n_k = n, .trials = trials, .seed = 25u, .causal = causal};
    c.scale_logn = 1;
    return c;
}

static sv_status run(sv_spec c, sv_exec exec, const sv_taps *taps, sv_trial_stats *out)
{
    sv_source src;
    sv_status st = sv_spec_resolve(&c);
    if (st == SV_OK)
        st = sv_source_draw(&c, &src);
    return st == SV_OK ? sv_engine_run(&c, &src, &exec, taps, 0, c.trials, out) : st;
}

static void test_row_scale(void)
{
    sv_spec c = logn(16, 10, 1, 1);
    CHECK_STATUS(sv_spec_resolve(&c), SV_OK);
    CHECK_EQ(sv_spec_row_scale(&c, 0), 0.0); /* ln 1: one key */
    CHECK_EQ(sv_spec_row_scale(&c, 9), 0.25 * log(10.0));
    c.window = 4; /* causal window: min(i + 1, 4) keys */
    CHECK_EQ(sv_spec_row_scale(&c, 2), 0.25 * log(3.0));
    CHECK_EQ(sv_spec_row_scale(&c, 9), 0.25 * log(4.0));
    c.causal = 0;
    c.window = 3; /* |i - j| < 3: keys max(0, i - 2) .. min(n, i + 3) */
    CHECK_EQ(sv_spec_row_scale(&c, 0), 0.25 * log(3.0));
    CHECK_EQ(sv_spec_row_scale(&c, 5), 0.25 * log(5.0));
    c.window = 0; /* full: every row ln n_k */
    CHECK_EQ(sv_spec_row_scale(&c, 3), 0.25 * log(10.0));
    c.scale_logn = 0;
    CHECK_EQ(sv_spec_row_scale(&c, 3), 0.25);
    CHECK_NAN(sv_spec_row_scale(NULL, 0));
}

/* Every statistic against tests/reference.c, which computes each row's
 * softmax with its own c_i and the moments of the c_i S_ij, to 1e-12. */
static void test_against_scalar(size_t d, size_t n, int causal, size_t nk)
{
    sv_spec c = logn(d, n, 2, causal);
    c.n_k = nk;
    sv_trial_stats got[2], want;
    CHECK_STATUS(run(c, (sv_exec){0}, NULL, got), SV_OK);
    (void)sv_spec_resolve(&c);
    for (uint64_t t = 0; t < 2; t++) {
        ref_trial(&c, t, &want);
        CHECK_EQ(ref_compare(&c, &got[t], &want, 1e-12, "logn"), 0);
    }
}

/* Same bits whatever the threads and block rows: tiles across threads
 * (n = 300, two tiles) and whole small trials per thread (n = 6). */
static void test_same_bits(void)
{
    const sv_spec big = logn(5, 300, 3, 1), small = logn(3, 6, 200, 1);
    sv_trial_stats a[200], b[200];
    CHECK_STATUS(run(big, (sv_exec){.threads = 1}, NULL, a), SV_OK);
    CHECK_STATUS(run(big, (sv_exec){.threads = 2, .block_rows = 7}, NULL, b), SV_OK);
    CHECK_MEM_EQ(a, b, 3 * sizeof a[0]);
    memset(a, 0xab, sizeof a); /* a field never written cannot match */
    memset(b, 0xcd, sizeof b);
    CHECK_STATUS(run(small, (sv_exec){.threads = 1}, NULL, a), SV_OK);
    CHECK_STATUS(run(small, (sv_exec){.threads = 3}, NULL, b), SV_OK);
    CHECK_MEM_EQ(a, b, sizeof a);
    sv_spec w = logn(4, 300, 3, 0);
    w.window = 20;
    CHECK_STATUS(run(w, (sv_exec){.threads = 1}, NULL, a), SV_OK);
    CHECK_STATUS(run(w, (sv_exec){.threads = 2, .block_rows = 1}, NULL, b), SV_OK);
    CHECK_MEM_EQ(a, b, 3 * sizeof a[0]);
}

/* Theory: with zero means, var = sum n_i c_i^2 d / sum n_i and
 * var_expected = (N - 1) / (N - ddof) of it (theory.md 15.1). */
static void test_theory(void)
{
    sv_spec c = logn(16, 50, 1, 1);
    c.ddof = 1;
    CHECK_STATUS(sv_spec_resolve(&c), SV_OK);
    sv_theory t;
    CHECK_STATUS(sv_theory_spec(&c, &t), SV_OK);
    CHECK_STATUS(sv_theory_scale(&c, &t), SV_OK);
    double n = 0.0, a1 = 0.0, a2 = 0.0;
    for (int i = 1; i <= 50; i++) {
        const double ci = log((double)i) / 4.0;
        n += i;
        a1 += i * ci;
        a2 += i * ci * ci;
    }
    a1 /= n;
    a2 /= n;
    CHECK_CLOSE(t.var, 16.0 * a2, 1e-14, 0.0);
    CHECK_CLOSE(t.var_expected, 16.0 * a2, 1e-14, 0.0); /* ddof 1: (N - 1) / (N - 1) */
    CHECK_EQ(t.mean, 0.0);
    CHECK_NAN(t.var_sd);
    CHECK_NAN(t.entropy_approx);
    /* Shifted: every score has mean mu and variance v, so the pooled c S
     * has mean A1 mu and variance A2 v + (A2 - A1^2) mu^2; the covariances
     * along rows and columns leave E[M2] without a closed form here. */
    c.q_mean = 0.5;
    c.k_mean = 0.25;
    CHECK_STATUS(sv_theory_spec(&c, &t), SV_OK);
    const double mu = t.mean, v = t.var;
    CHECK_STATUS(sv_theory_scale(&c, &t), SV_OK);
    CHECK_CLOSE(t.mean, a1 * mu, 1e-14, 0.0);
    CHECK_CLOSE(t.var, a2 * v + (a2 - a1 * a1) * mu * mu, 1e-14, 0.0);
    CHECK_NAN(t.var_expected);
}

static void test_refused(void)
{
    sv_spec c = logn(4, 8, 1, 1);
    const char *field = NULL;
    c.values = 1;
    CHECK_STATUS(sv_spec_resolve(&c), SV_EINVAL);
    CHECK_STATUS(sv_spec_check_field(&c, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "scale_logn");
    c.grad = 1;
    CHECK_STATUS(sv_spec_check(&c), SV_EINVAL);
    c.values = c.grad = 0;
    c.plant = 0.5;
    CHECK_STATUS(sv_spec_check(&c), SV_EINVAL);
    c.plant = 0.0;
    c.d_model = 8;
    CHECK_STATUS(sv_spec_check(&c), SV_EINVAL);
    c.cross = 1; /* keys from their own tokens: no shared-token logit */
    CHECK_STATUS(sv_spec_check(&c), SV_OK);
    c.cross = 0;
    c.d_model = 0;
    CHECK_STATUS(sv_spec_check(&c), SV_OK);
    /* Histograms take one multiplier; a row shard's fold one too. */
    uint64_t h[4 * 11] = {0};
    const sv_taps taps = {
        .hist_bins = 10, .hist_lo = -1.0, .hist_hi = 1.0, .hist_raw = h, .hist_scaled = h + 11};
    sv_trial_stats out;
    CHECK_STATUS(run(c, (sv_exec){0}, &taps, &out), SV_EINVAL);
    CHECK_STATUS(sv_rowfold_check(&c, 0, 8), SV_EINVAL);
    sv_rowfold f;
    memset(&f, 0, sizeof f);
    CHECK_STATUS(sv_rowfold_finish(&c, &f, 1, &out), SV_EINVAL);
    /* Hashed only when on. */
    sv_spec off = c;
    off.scale_logn = 0;
    CHECK_NE(sv_spec_hash(&c), sv_spec_hash(&off));
}

/* The rules between log-n scaling and the parts of a run beyond the spec,
 * with the reason the CLI and Python word (sv_spec_check_use): any logn
 * with a mask or given rows; per row with histograms, row shards and one
 * multiplier for every row; the first part refused is named. */
static void test_uses(void)
{
    const unsigned all =
        SV_USE_MASK | SV_USE_GIVEN | SV_USE_HISTOGRAM | SV_USE_ROW_SHARD | SV_USE_ONE_SCALE;
    const char *row_why = "logn per row (causal or window) reaches the softmax statistics only";
    sv_spec c = logn(4, 8, 1, 0);
    c.scale_logn = 0;
    c.scale_rule = SV_SCALE_LOGN; /* as set, not resolved: one multiplier */
    unsigned use = 7;
    const char *why = NULL;
    CHECK_STATUS(
        sv_spec_check_use(&c, SV_USE_HISTOGRAM | SV_USE_ROW_SHARD | SV_USE_ONE_SCALE, &use, &why),
        SV_OK);
    CHECK_EQ(use, 0u);
    CHECK_STR_EQ(why, "");
    CHECK_STATUS(sv_spec_check_use(&c, SV_USE_GIVEN | SV_USE_HISTOGRAM, &use, &why), SV_EINVAL);
    CHECK_EQ(use, (unsigned)SV_USE_GIVEN);
    CHECK_STR_EQ(why, "logn counts the keys of causal and window in drawn rows only");
    c.window = 3; /* per row, set or resolved */
    CHECK_STATUS(sv_spec_check_use(&c, SV_USE_ONE_SCALE, &use, &why), SV_EINVAL);
    CHECK_EQ(use, (unsigned)SV_USE_ONE_SCALE);
    CHECK_STR_EQ(why, row_why);
    sv_spec r = logn(4, 8, 1, 1);
    CHECK_STATUS(sv_spec_resolve(&r), SV_OK);
    CHECK_STATUS(sv_spec_check_use(&r, SV_USE_ROW_SHARD | SV_USE_ONE_SCALE, &use, &why), SV_EINVAL);
    CHECK_EQ(use, (unsigned)SV_USE_ROW_SHARD);
    CHECK_STR_EQ(why, row_why);
    CHECK_STATUS(sv_spec_check_use(&r, SV_USE_MASK, NULL, NULL), SV_EINVAL);
    /* Another scale: nothing refused; no spec: SV_EINVAL. */
    sv_spec plain = {.d_k = 4, .n_q = 8, .n_k = 8, .trials = 1, .causal = 1};
    CHECK_STATUS(sv_spec_resolve(&plain), SV_OK);
    CHECK_STATUS(sv_spec_check_use(&plain, all, &use, &why), SV_OK);
    CHECK_STATUS(sv_spec_check_use(NULL, 0, &use, &why), SV_EINVAL);
    CHECK_EQ(use, 0u);
    /* Weight histograms bin a row within one block of keys, any scale;
     * sv_taps_check asks the same. */
    plain.n_k = plain.n_q = SV_WEIGHT_HIST_KEYS_MAX + 1;
    CHECK_STATUS(sv_spec_check_use(&plain, SV_USE_HISTOGRAM | SV_USE_WEIGHT_HISTOGRAM, &use, &why),
                 SV_EINVAL);
    CHECK_EQ(use, (unsigned)SV_USE_WEIGHT_HISTOGRAM);
    CHECK_STR_EQ(why, "needs n_k <= 4096 (a row's weights are binned in one block of keys)");
    uint64_t h[4 * 11] = {0};
    const sv_taps taps = {.hist_bins = 10,
                          .hist_lo = 0.0,
                          .hist_hi = 1.0,
                          .hist_raw = h,
                          .hist_scaled = h + 11,
                          .hist_w_raw = h + 22,
                          .hist_w_scaled = h + 33};
    CHECK_STATUS(sv_taps_check(&taps, &plain), SV_EINVAL);
    plain.n_k = plain.n_q = SV_WEIGHT_HIST_KEYS_MAX;
    CHECK_STATUS(sv_spec_check_use(&plain, all, &use, &why), SV_OK);
    CHECK_STATUS(sv_taps_check(&taps, &plain), SV_OK);
}

int main(void)
{
    test_row_scale();
    test_against_scalar(3, 17, 1, 17);
    test_against_scalar(5, 300, 1, 300); /* two tiles */
    test_against_scalar(2, 5, 1, 5);     /* tiny: the one-trial path */
    test_against_scalar(4, 20, 0, 30);   /* full: ln n_k for every row */
    test_same_bits();
    test_theory();
    test_refused();
    test_uses();
    return CHECK_DONE();
}
