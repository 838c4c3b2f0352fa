/* The engine's split interface (engine.h): the taps count what they
 * promise (every visible score once, every weight once, per-row sums that
 * add up to the trials' means), give the same counts for any threads and
 * block rows, and sv_taps_check refuses every bad setting it names. The
 * sink weight and normalised entropy on hand-computed cases. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

#define BINS 12u

typedef struct counts {
    uint64_t raw[BINS + 1], scaled[BINS + 1], w_raw[BINS + 1], w_scaled[BINS + 1];
} counts;

static sv_taps taps_of(counts *c, double *row_sums)
{
    memset(c, 0, sizeof *c);
    return (sv_taps){.hist_bins = BINS,
                     .hist_lo = -20.0,
                     .hist_hi = 20.0,
                     .hist_raw = c->raw,
                     .hist_scaled = c->scaled,
                     .hist_w_raw = c->w_raw,
                     .hist_w_scaled = c->w_scaled,
                     .row_sums = row_sums};
}

static uint64_t total(const uint64_t *h)
{
    uint64_t s = 0;
    for (size_t i = 0; i <= BINS; i++)
        s += h[i];
    return s;
}

/* n_q = n_k = 300 (two query tiles), causal: 300 * 301 / 2 visible scores. */
static void test_taps(int causal, int threads, size_t block_rows, counts *c, double *rs,
                      sv_trial_stats *t)
{
    sv_spec s = {.d_k = 16, .n_q = 300, .n_k = 300, .trials = 3, .seed = 5u, .causal = causal};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    memset(rs, 0, 300 * SV_ROW_FIELDS * sizeof *rs);
    const sv_taps taps = taps_of(c, rs);
    const sv_exec exec = {.threads = threads, .block_rows = block_rows};
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, &taps, 0, 3, t), SV_OK);
    const uint64_t scores = 3u * (causal ? 300u * 301u / 2u : 300u * 300u);
    CHECK_EQ(total(c->raw), scores);
    CHECK_EQ(total(c->scaled), scores);
    CHECK_EQ(total(c->w_raw), scores);
    CHECK_EQ(total(c->w_scaled), scores);
    CHECK_EQ(c->w_raw[BINS], 0);
    CHECK_EQ(c->w_scaled[BINS], 0); /* weights <= 1: never outside */
    /* mean over rows of the per-row sums = sum over trials of the means;
     * both are sums of the same 900 doubles in other orders: 1e-12 */
    for (int f = 0; f < 2; f++) {
        double rows = 0.0, trials = 0.0;
        for (size_t i = 0; i < 300; i++)
            rows += rs[i * SV_ROW_FIELDS + (size_t)f];
        for (size_t k = 0; k < 3; k++)
            trials += f ? t[k].scaled_entropy : t[k].raw_entropy;
        CHECK_CLOSE(rows / 300.0, trials, 1e-12, 0.0);
    }
}

static void test_same_counts(void)
{
    static counts a, b;
    static double ra[300 * SV_ROW_FIELDS], rb[300 * SV_ROW_FIELDS];
    sv_trial_stats ta[3], tb[3];
    for (int causal = 0; causal < 2; causal++) {
        test_taps(causal, 1, 0, &a, ra, ta);
        test_taps(causal, 2, 1, &b, rb, tb);
        CHECK_MEM_EQ(&a, &b, sizeof a);
        CHECK_MEM_EQ(ra, rb, sizeof ra);
        CHECK_MEM_EQ(ta, tb, sizeof ta);
    }
}

static void test_taps_check(void)
{
    sv_spec s = {.d_k = 4, .n_q = 3, .n_k = 5000, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    counts c;
    sv_taps t = taps_of(&c, NULL);
    CHECK_STATUS(sv_taps_check(&t, &s), SV_EINVAL); /* weight bins need n_k <= 4096 */
    t.hist_w_raw = t.hist_w_scaled = NULL;
    CHECK_STATUS(sv_taps_check(&t, &s), SV_OK);
    CHECK_STATUS(sv_taps_check(NULL, &s), SV_OK);
    sv_taps bad = t;
    bad.hist_lo = bad.hist_hi;
    CHECK_STATUS(sv_taps_check(&bad, &s), SV_EINVAL);
    bad = t;
    bad.hist_hi = INFINITY;
    CHECK_STATUS(sv_taps_check(&bad, &s), SV_EINVAL);
    bad = t;
    bad.hist_scaled = NULL;
    CHECK_STATUS(sv_taps_check(&bad, &s), SV_EINVAL);
    s.n_k = 5;
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    bad = taps_of(&c, NULL);
    bad.hist_w_scaled = NULL; /* raw weights without scaled ones */
    CHECK_STATUS(sv_taps_check(&bad, &s), SV_EINVAL);
    /* the run refuses them too, before touching anything */
    sv_source src;
    sv_trial_stats out;
    const sv_exec exec = {0};
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, &bad, 0, 1, &out), SV_EINVAL);
    CHECK_EQ(total(c.raw), 0);
    size_t bytes = 7;
    CHECK_STATUS(sv_engine_bytes(&s, &src, &exec, &bad, 1, &bytes), SV_EINVAL);
    CHECK_EQ(bytes, 7);
    const sv_exec neg = {.threads = -1};
    CHECK_STATUS(sv_engine_bytes(&s, &src, &neg, NULL, 1, &bytes), SV_EINVAL);
    CHECK_EQ(bytes, 7);
    if (CHECK_STATUS(sv_engine_bytes(&s, &src, &exec, NULL, 1, &bytes), SV_OK)) {
        CHECK_GT(bytes, 0);
    }
}

/* Entropy in nats of the two weights (p, 1 - p), over ln 2. */
static double h2_norm(double p)
{
    return -(p * log(p) + (1.0 - p) * log(1.0 - p)) / log(2.0);
}

/* n_q = n_k = 2, d_k = 1, q = (1, 2), k = (0, ln 3), scale 1/2: raw rows
 * [0, ln 3] and [0, 2 ln 3] weigh key 0 at 1/4 and 1/10; scaled rows
 * [0, ln 3 / 2] and [0, ln 3] at 1/(1 + sqrt 3) and 1/4. Under causal
 * row 0 sees key 0 alone: weight 1, and only row 1 counts for the
 * normalised entropy. Run grouped (tiny trials) and one trial at a time
 * (a row_sums tap turns grouping off): the same bits. */
static void test_sink_two_keys(void)
{
    const double q[2] = {1.0, 2.0}, k[2] = {0.0, log(3.0)};
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {2, 1}, .strides = {8, 8}};
    arr.k = arr.q;
    arr.k.data = k;
    sv_source src;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    const double w3 = 1.0 / (1.0 + sqrt(3.0));
    for (int causal = 0; causal < 2; causal++) {
        sv_spec s = {.d_k = 1, .n_q = 2, .n_k = 2, .trials = 1, .scale = 0.5, .causal = causal};
        CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
        double rs[2 * SV_ROW_FIELDS] = {0};
        const sv_taps rows = {.row_sums = rs};
        sv_trial_stats a, b;
        CHECK_STATUS(sv_engine_run(&s, &src, &(sv_exec){.threads = 1}, NULL, 0, 1, &a), SV_OK);
        CHECK_STATUS(sv_engine_run(&s, &src, &(sv_exec){.threads = 1}, &rows, 0, 1, &b), SV_OK);
        CHECK_MEM_EQ(&a, &b, sizeof a);
        const double row0[2] = {causal ? 1.0 : 0.25, causal ? 1.0 : w3};
        CHECK_CLOSE(a.raw_sink_weight, (row0[0] + 0.1) / 2.0, 1e-15, 0.0);
        CHECK_CLOSE(a.scaled_sink_weight, (row0[1] + 0.25) / 2.0, 1e-15, 0.0);
        const double hn[2] = {causal ? h2_norm(0.1) : (h2_norm(0.25) + h2_norm(0.1)) / 2.0,
                              causal ? h2_norm(0.25) : (h2_norm(w3) + h2_norm(0.25)) / 2.0};
        CHECK_CLOSE(a.raw_entropy_norm, hn[0], 1e-14, 0.0);
        CHECK_CLOSE(a.scaled_entropy_norm, hn[1], 1e-14, 0.0);
    }
    /* One key: every weight is 1 and no row sees 2 keys. */
    sv_spec s = {.d_k = 1, .n_q = 2, .n_k = 1, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    arr.k.shape[0] = 1;
    sv_trial_stats t;
    CHECK_STATUS(sv_engine_run(&s, &src, &(sv_exec){.threads = 1}, NULL, 0, 1, &t), SV_OK);
    CHECK_EQ(t.raw_sink_weight, 1.0);
    CHECK_EQ(t.scaled_sink_weight, 1.0);
    CHECK_NAN(t.raw_entropy_norm);
    CHECK_NAN(t.scaled_entropy_norm);
}

/* Key 0 in the first key block, the row's max in the second (n_k = 5000 >
 * 4096 keys a block): d_k = 1, q = 1, k_0 = ln 5, k_4500 = ln 50, the rest
 * 0, so key 0 weighs 5 / (5 + 50 + 4998) raw; scaled by 1/2, sqrt 5 /
 * (sqrt 5 + sqrt 50 + 4998). */
static void test_sink_blocks(void)
{
    enum { NK = 5000 };
    static double k[NK];
    const double q[1] = {1.0};
    k[0] = log(5.0);
    k[4500] = log(50.0);
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {1, 1}, .strides = {8, 8}};
    arr.k = (sv_array){.data = k, .ndim = 2, .shape = {NK, 1}, .strides = {8, 8}};
    sv_source src;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    sv_spec s = {.d_k = 1, .n_q = 1, .n_k = NK, .trials = 1, .scale = 0.5};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_trial_stats t;
    CHECK_STATUS(sv_engine_run(&s, &src, &(sv_exec){.threads = 2}, NULL, 0, 1, &t), SV_OK);
    CHECK_CLOSE(t.raw_sink_weight, 5.0 / (5.0 + 50.0 + 4998.0), 1e-13, 0.0);
    CHECK_CLOSE(t.scaled_sink_weight, sqrt(5.0) / (sqrt(5.0) + sqrt(50.0) + 4998.0), 1e-13, 0.0);
    CHECK_GT(t.raw_entropy_norm, 0.0);
    CHECK_LT(t.raw_entropy_norm, 1.0);
}

/* Issue 39: how threads share trials, read from the bytes a run takes (a
 * workspace per thread when whole trials run in parallel, else one with a
 * tile per thread). 32 trials of 1024 x 1024 on 16 threads: whole trials
 * (each has 4 tiles of 256 rows: sharing one trial left 12 threads idle;
 * before issue 39 they shared, below 4 trials a thread); 2 trials of 8192
 * rows (32 tiles each) still share one trial's tiles. */
static void test_trials_per_thread(void)
{
    sv_spec s = {.d_k = 64, .n_q = 1024, .n_k = 1024, .trials = 32};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    const sv_exec one = {.threads = 1}, sixteen = {.threads = 16};
    size_t b1 = 0, b16 = 0;
    if (CHECK_STATUS(sv_engine_bytes(&s, &src, &one, NULL, 32, &b1), SV_OK) &&
        CHECK_STATUS(sv_engine_bytes(&s, &src, &sixteen, NULL, 32, &b16), SV_OK))
        CHECK_EQ(b16, 16 * b1);
    s.n_q = 8192;
    s.trials = 2;
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    if (CHECK_STATUS(sv_engine_bytes(&s, &src, &one, NULL, 2, &b1), SV_OK) &&
        CHECK_STATUS(sv_engine_bytes(&s, &src, &sixteen, NULL, 2, &b16), SV_OK)) {
        CHECK_GT(b16, b1);
        CHECK_LT(b16, 16 * b1); /* one workspace, with 16 tiles */
    }
    /* Whole trials per thread give the bits of one thread: 8 causal trials
     * of 600 rows (3 tiles) on 4 threads, with and without block rows. */
    sv_spec c = {.d_k = 8, .n_q = 600, .n_k = 600, .trials = 8, .causal = 1, .seed = 39};
    CHECK_STATUS(sv_spec_resolve(&c), SV_OK);
    CHECK_STATUS(sv_source_draw(&c, &src), SV_OK);
    sv_trial_stats a[8], b[8];
    const sv_exec four = {.threads = 4, .block_rows = 512};
    if (CHECK_STATUS(sv_engine_run(&c, &src, &one, NULL, 0, 8, a), SV_OK) &&
        CHECK_STATUS(sv_engine_run(&c, &src, &four, NULL, 0, 8, b), SV_OK))
        CHECK_MEM_EQ(a, b, sizeof a);
}

int main(void)
{
    test_trials_per_thread();
    test_same_counts();
    test_taps_check();
    test_sink_two_keys();
    test_sink_blocks();
    return CHECK_DONE();
}
