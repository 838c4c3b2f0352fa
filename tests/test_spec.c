/* spec.h (src/experiment/spec.c): every rule of sv_spec_check_field at its
 * boundary, the status and the field it blames, the order in which rules
 * win; sv_spec_resolve's defaults; sv_spec_scores, sv_spec_score_bound,
 * sv_spec_hash, sv_init_variance and sv_taps_check. */
#include <float.h>
#include <limits.h>
#include <stdint.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* A resolved spec that passes every rule: 9 scores, scale 1/2. */
static sv_spec base(void)
{
    return (sv_spec){.d_k = 4,
                     .n_q = 3,
                     .n_k = 3,
                     .trials = 1,
                     .dist = SV_DIST_NORMAL,
                     .scale = 0.5,
                     .scale2 = 0.25,
                     .q_std = 1.0,
                     .k_std = 1.0};
}

/* base() with the edits in ... (statements on s) fails with status and
 * blames name; sv_spec_check agrees, and a NULL field is allowed. */
#define BAD(status, name, ...)                                                                     \
    do {                                                                                           \
        sv_spec s = base();                                                                        \
        __VA_ARGS__;                                                                               \
        const char *field_ = "unset";                                                              \
        CHECK_STATUS(sv_spec_check_field(&s, &field_), status);                                    \
        CHECK_STR_EQ(field_, name);                                                                \
        CHECK_STATUS(sv_spec_check(&s), status);                                                   \
        CHECK_STATUS(sv_spec_check_field(&s, NULL), status);                                       \
    } while (0)

/* base() with the edits passes, and field is set back to NULL. */
#define GOOD(...)                                                                                  \
    do {                                                                                           \
        sv_spec s = base();                                                                        \
        __VA_ARGS__;                                                                               \
        const char *field_ = "unset";                                                              \
        CHECK_STATUS(sv_spec_check_field(&s, &field_), SV_OK);                                     \
        CHECK_EQ(field_, NULL);                                                                    \
        CHECK_STATUS(sv_spec_check(&s), SV_OK);                                                    \
    } while (0)

static void test_values(void)
{
    const char *field = "unset";
    CHECK_STATUS(sv_spec_check_field(NULL, &field), SV_EINVAL);
    CHECK_STR_EQ(field, "spec");
    CHECK_STATUS(sv_spec_check(NULL), SV_EINVAL);
    GOOD((void)0);
    BAD(SV_EINVAL, "d_k", s.d_k = 0);
    BAD(SV_EINVAL, "n_q", s.n_q = 0);
    BAD(SV_EINVAL, "n_k", s.n_k = 0);
    BAD(SV_EINVAL, "trials", s.trials = 0);
    BAD(SV_EINVAL, "dist", s.dist = (sv_dist)4);
    BAD(SV_EINVAL, "dist", s.dist = (sv_dist)-1);
    /* Student t: a finite fourth moment needs nu > 4 */
    GOOD(s.dist = SV_DIST_STUDENT_T, s.nu = nextafter(4.0, 5.0));
    BAD(SV_EINVAL, "nu", s.dist = SV_DIST_STUDENT_T, s.nu = 4.0);
    BAD(SV_EINVAL, "nu", s.dist = SV_DIST_STUDENT_T, s.nu = NAN);
    /* nu does nothing for another dist: 0 (not set) and the default 6
     * pass, another value is refused (the CLI's --nu without --dist t was
     * its own rule, by presence: issue 40) */
    GOOD(s.nu = 0.0);
    GOOD(s.nu = 6.0);
    BAD(SV_EINVAL, "nu", s.nu = 8.0);
    BAD(SV_EINVAL, "nu", s.nu = NAN);
    /* scale and scale2 positive and finite; the smallest double passes */
    GOOD(s.scale = DBL_TRUE_MIN, s.scale2 = DBL_TRUE_MIN);
    BAD(SV_EINVAL, "scale", s.scale = 0.0);
    BAD(SV_EINVAL, "scale", s.scale = -0.5);
    BAD(SV_EINVAL, "scale", s.scale = INFINITY);
    BAD(SV_EINVAL, "scale", s.scale = NAN);
    BAD(SV_EINVAL, "scale", s.scale2 = 0.0);
    BAD(SV_EINVAL, "scale", s.scale2 = INFINITY);
    BAD(SV_EINVAL, "q_std", s.q_std = 0.0);
    BAD(SV_EINVAL, "q_std", s.q_std = -1.0);
    BAD(SV_EINVAL, "q_std", s.q_std = NAN);
    BAD(SV_EINVAL, "k_std", s.k_std = 0.0);
    BAD(SV_EINVAL, "k_std", s.k_std = INFINITY);
    BAD(SV_EINVAL, "q_mean", s.q_mean = NAN);
    BAD(SV_EINVAL, "q_mean", s.q_mean = -INFINITY);
    BAD(SV_EINVAL, "k_mean", s.k_mean = INFINITY);
    /* qk_radius is read only with qk_norm */
    GOOD(s.qk_radius = NAN);
    GOOD(s.qk_norm = 1, s.qk_radius = 2.0);
    BAD(SV_EINVAL, "qk_radius", s.qk_norm = 1, s.qk_radius = 0.0);
    BAD(SV_EINVAL, "qk_radius", s.qk_norm = 1, s.qk_radius = INFINITY);
    /* plant in [-1, 1], both ends included */
    GOOD(s.plant = 1.0);
    GOOD(s.plant = -1.0);
    BAD(SV_EINVAL, "plant", s.plant = nextafter(1.0, 2.0));
    BAD(SV_EINVAL, "plant", s.plant = nextafter(-1.0, -2.0));
    BAD(SV_EINVAL, "plant", s.plant = NAN);
}

static void test_combinations(void)
{
    /* projections: an init in range, and no shift, spread or plant on top */
    GOOD(s.d_model = 8);
    GOOD(s.d_model = 8, s.init = SV_INIT_NORMAL, s.cross = 1);
    BAD(SV_EINVAL, "init", s.d_model = 8, s.init = (sv_init)3);
    BAD(SV_EINVAL, "plant", s.d_model = 8, s.plant = 0.5);
    BAD(SV_EINVAL, "q_mean", s.d_model = 8, s.q_mean = 0.1);
    BAD(SV_EINVAL, "k_mean", s.d_model = 8, s.k_mean = -0.1);
    BAD(SV_EINVAL, "q_std", s.d_model = 8, s.q_std = 2.0);
    BAD(SV_EINVAL, "k_std", s.d_model = 8, s.k_std = 0.5);
    BAD(SV_EINVAL, "cross", s.cross = 1);
    /* init does nothing without projections: xavier (0, the default)
     * passes, another is refused */
    BAD(SV_EINVAL, "init", s.init = SV_INIT_LECUN);
    /* QK-norm rescales rows of mean 0 whatever their std */
    GOOD(s.qk_norm = 1, s.qk_radius = 2.0, s.q_std = 1.0, s.k_std = 1.0);
    BAD(SV_EINVAL, "q_std", s.qk_norm = 1, s.qk_radius = 2.0, s.q_std = 2.0);
    BAD(SV_EINVAL, "k_std", s.qk_norm = 1, s.qk_radius = 2.0, s.k_std = 0.5);
    GOOD(s.qk_norm = 1, s.qk_radius = 2.0, s.q_std = 2.0, s.q_mean = 1.0);
    GOOD(s.qk_norm = 1, s.qk_radius = 2.0, s.q_std = 2.0, s.k_std = 0.5, s.plant = 0.5);
    GOOD(s.causal = 1);
    BAD(SV_EINVAL, "causal", s.causal = 1, s.n_k = 4);
    GOOD(s.values = 1, s.d_v = 2);
    BAD(SV_EINVAL, "d_v", s.values = 1);
    GOOD(s.values = 1, s.d_v = 2, s.grad = 1);
    BAD(SV_EINVAL, "grad", s.grad = 1);
    /* ddof below the number of scores: 9, or 6 with causal */
    GOOD(s.ddof = 8);
    BAD(SV_EINVAL, "ddof", s.ddof = 9);
    GOOD(s.causal = 1, s.ddof = 5);
    BAD(SV_EINVAL, "ddof", s.causal = 1, s.ddof = 6);
    /* the first rule broken is the one named, whatever else is broken */
    BAD(SV_EINVAL, "d_k", s.d_k = 0, s.n_q = 0);
    BAD(SV_EINVAL, "q_std", s.q_std = 0.0, s.k_mean = NAN);
    BAD(SV_EINVAL, "d_k", s.d_k = 0, s.n_q = SIZE_MAX);                   /* values before sizes */
    BAD(SV_ERANGE, "n_q", s.n_q = SIZE_MAX, s.ddof = UINT_MAX);           /* sizes before ddof */
    BAD(SV_EINVAL, "ddof", s.d_k = (size_t)INT_MAX + 1, s.ddof = 9);      /* ddof before ETOOBIG */
    BAD(SV_ETOOBIG, "d_k", s.d_k = (size_t)INT_MAX + 1, s.q_mean = 1e40); /* before EOVERFLOW */
    BAD(SV_EOVERFLOW, "q_mean", s.q_mean = 1e40);                         /* before EPRECISION */
}

static void test_sizes(void)
{
    /* n_q n_k, (n_q + n_k) d_k doubles, n_k d_v and 2 n_q d_v doubles,
     * 2 d_model d_k doubles: each overflow is an SV_ERANGE */
    BAD(SV_ERANGE, "n_q", s.n_q = SIZE_MAX / 2);
    BAD(SV_ERANGE, "n_q", s.n_q = SIZE_MAX, s.n_k = 1);      /* n_q + n_k */
    BAD(SV_ERANGE, "n_q", s.n_q = SIZE_MAX / 32, s.n_k = 1); /* (n_q + n_k) d_k bytes */
    BAD(SV_ERANGE, "n_q", s.n_q = SIZE_MAX, s.n_k = SIZE_MAX, s.causal = 1);
    BAD(SV_ERANGE, "d_v", s.values = 1, s.d_v = SIZE_MAX / 8);
    BAD(SV_ERANGE, "d_v", s.values = 1, s.n_q = SIZE_MAX / 64 + 1, s.n_k = 1,
        s.d_v = 4); /* 2 n_q d_v */
    BAD(SV_ERANGE, "d_model", s.d_model = SIZE_MAX / 64 + 1);
    /* what reaches CBLAS as an int: INT_MAX passes, one more does not */
    GOOD(s.d_k = INT_MAX);
    BAD(SV_ETOOBIG, "d_k", s.d_k = (size_t)INT_MAX + 1);
    GOOD(s.values = 1, s.d_v = INT_MAX);
    BAD(SV_ETOOBIG, "d_v", s.values = 1, s.d_v = (size_t)INT_MAX + 1);
    GOOD(s.d_model = INT_MAX);
    BAD(SV_ETOOBIG, "d_model", s.d_model = (size_t)INT_MAX + 1);
}

/* The largest x with x * x <= SV_SCORE_MAX. */
static double root_of_max(void)
{
    double x = sqrt(SV_SCORE_MAX);
    while (x * x > SV_SCORE_MAX)
        x = nextafter(x, 0.0);
    while (nextafter(x, INFINITY) * nextafter(x, INFINITY) <= SV_SCORE_MAX)
        x = nextafter(x, INFINITY);
    return x;
}

static void test_overflow(void)
{
    /* the bound is SV_SCORE_MAX itself, included: qk_radius^2 at it */
    const double r = root_of_max();
    GOOD(s.qk_norm = 1, s.qk_radius = r);
    BAD(SV_EOVERFLOW, "qk_radius", s.qk_norm = 1, s.qk_radius = nextafter(r, INFINITY));
    /* the largest term is blamed */
    BAD(SV_EOVERFLOW, "q_mean", s.q_mean = 1e30, s.q_std = 1e25);
    BAD(SV_EOVERFLOW, "q_std", s.q_std = 1e30);
    BAD(SV_EOVERFLOW, "k_mean", s.k_mean = -1e30, s.k_std = 1e25);
    BAD(SV_EOVERFLOW, "k_std", s.k_std = 1e30);
    BAD(SV_EOVERFLOW, "scale", s.scale = 1e59, s.scale2 = 1e118);
    /* four equal terms that overflow only together, times d_k: d_k */
    BAD(SV_EOVERFLOW, "d_k", s.d_k = (size_t)1 << 30, s.q_mean = 1e25, s.k_mean = 1e25,
        s.q_std = 1e25 / 14.4, s.k_std = 1e25 / 14.4);
    /* |mean| / std up to SV_MEAN_STD_MAX, included */
    GOOD(s.q_mean = SV_MEAN_STD_MAX, s.k_mean = -SV_MEAN_STD_MAX);
    BAD(SV_EPRECISION, "q_mean", s.q_mean = nextafter(SV_MEAN_STD_MAX, INFINITY));
    BAD(SV_EPRECISION, "k_mean", s.k_mean = -3e6, s.k_std = 2.0);
    GOOD(s.k_mean = -3e6, s.k_std = 3.0);
}

static void test_resolve(void)
{
    CHECK_STATUS(sv_spec_resolve(NULL), SV_EINVAL);
    sv_spec s = {.d_k = 16, .n_q = 2, .n_k = 3, .trials = 1, .qk_norm = 1, .values = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    CHECK_EQ(s.q_std, 1.0);
    CHECK_EQ(s.k_std, 1.0);
    CHECK_EQ(s.scale, 0.25);
    CHECK_EQ(s.scale2, 1.0 / 16.0);
    CHECK_EQ(s.qk_radius, 4.0);
    CHECK_EQ(s.d_v, 16);
    const uint64_t h = sv_spec_hash(&s);
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK); /* idempotent */
    CHECK_EQ(sv_spec_hash(&s), h);
    /* scale2 1 / d_k rounded once: for d_k = 5, 1 / sqrt(5) squared is not
     * the double nearest 1 / 5 */
    sv_spec five = {.d_k = 5, .n_q = 1, .n_k = 2, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&five), SV_OK);
    CHECK_EQ(five.scale2, 1.0 / 5.0);
    CHECK_NE(five.scale * five.scale, 1.0 / 5.0);
    /* a scale given: scale2 its square, unless given too; the rest kept */
    sv_spec given = {.d_k = 16, .n_q = 1, .n_k = 2, .trials = 1, .scale = 0.3, .q_std = 2.0};
    CHECK_STATUS(sv_spec_resolve(&given), SV_OK);
    CHECK_EQ(given.scale, 0.3);
    CHECK_EQ(given.scale2, 0.3 * 0.3);
    CHECK_EQ(given.q_std, 2.0);
    CHECK_EQ(given.qk_radius, 0.0); /* no qk_norm */
    CHECK_EQ(given.d_v, 0);         /* no values */
    given.scale2 = 0.1;
    CHECK_STATUS(sv_spec_resolve(&given), SV_OK);
    CHECK_EQ(given.scale2, 0.1);
    /* d_k 0: nothing divided by it, and the check's error */
    sv_spec zero = {.n_q = 1, .n_k = 1, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&zero), SV_EINVAL);
    CHECK_EQ(zero.scale, 0.0);
    CHECK_EQ(zero.q_std, 1.0); /* partly resolved */
    /* the check's status and nothing else */
    sv_spec wide = {.d_k = 1, .n_q = SIZE_MAX, .n_k = 2, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&wide), SV_ERANGE);
    sv_spec neg = {.d_k = 4, .n_q = 1, .n_k = 2, .trials = 1, .scale = -1.0};
    CHECK_STATUS(sv_spec_resolve(&neg), SV_EINVAL);
    CHECK_EQ(neg.scale2, 1.0); /* squared, then refused */
}

static void test_scores(void)
{
    sv_spec s = base();
    uint64_t n = 5;
    CHECK_STATUS(sv_spec_scores(NULL, &n), SV_EINVAL);
    CHECK_STATUS(sv_spec_scores(&s, NULL), SV_EINVAL);
    CHECK_EQ(n, 5);
    CHECK_STATUS(sv_spec_scores(&s, &n), SV_OK);
    CHECK_EQ(n, 9);
    s.causal = 1;
    CHECK_STATUS(sv_spec_scores(&s, &n), SV_OK);
    CHECK_EQ(n, 6);
    /* n = 65 536 (the web page's largest): 2^32 scores, a 64-bit count
     * whatever size_t is, and a spec that passes (issue 26). */
    sv_spec page = base();
    page.n_q = page.n_k = 65536;
    CHECK_STATUS(sv_spec_check(&page), SV_OK);
    CHECK_STATUS(sv_spec_scores(&page, &n), SV_OK);
    CHECK(n == (uint64_t)1 << 32);
    /* the largest causal n whose n (n + 1) / 2 fits, without forming n (n + 1) */
    const size_t big = ((size_t)1 << 32) - 1; /* n (n + 1) / 2 = 2^63 - 2^31 */
    s.n_q = s.n_k = big;
    CHECK_STATUS(sv_spec_scores(&s, &n), SV_OK);
    CHECK_EQ(n, (big + 1) / 2 * big);
    s.n_q = s.n_k = SIZE_MAX;
    n = 5;
    CHECK_STATUS(sv_spec_scores(&s, &n), SV_ERANGE);
    CHECK_EQ(n, 5);
    s.n_q = SIZE_MAX, s.n_k = 1; /* unchecked: must not wrap to 0 */
    CHECK_STATUS(sv_spec_scores(&s, &n), SV_ERANGE);
    s.causal = 0;
    CHECK_STATUS(sv_spec_scores(&s, &n), SV_OK);
    CHECK_EQ(n, SIZE_MAX);
    s.n_k = 2;
    CHECK_STATUS(sv_spec_scores(&s, &n), SV_ERANGE);
}

static void test_bound_and_hash(void)
{
    CHECK_NAN(sv_spec_score_bound(NULL));
    sv_spec s = base(); /* d_k (|q_mean| + q_std X + |k_mean| + k_std X)^2 */
    CHECK_EQ(sv_spec_score_bound(&s), 4.0 * 28.8 * 28.8);
    s.dist = SV_DIST_RADEMACHER;
    CHECK_EQ(sv_spec_score_bound(&s), 16.0);
    s.scale = 4.0; /* and times scale when above 1 */
    CHECK_EQ(sv_spec_score_bound(&s), 64.0);
    s = base();
    s.qk_norm = 1, s.qk_radius = 100.0;
    CHECK_EQ(sv_spec_score_bound(&s), 10000.0);
    CHECK_EQ(sv_spec_hash(NULL), 0);
    CHECK_NAN(sv_spec_scale(NULL));
    CHECK_NAN(sv_spec_scale2(NULL));
    s = base();
    CHECK_EQ(sv_spec_scale(&s), 0.5);
    CHECK_EQ(sv_spec_scale2(&s), 0.25);
    /* every field enters the hash */
    const uint64_t h = sv_spec_hash(&s);
    sv_spec t[] = {base(), base(), base(), base(), base(), base(), base(), base(),
                   base(), base(), base(), base(), base(), base(), base(), base(),
                   base(), base(), base(), base(), base(), base(), base(), base()};
    size_t k = 0;
    t[k++].d_k++, t[k++].n_q++, t[k++].n_k++, t[k++].trials++, t[k++].seed++;
    t[k++].dist = SV_DIST_UNIFORM, t[k++].nu = 5.0, t[k++].scale = 0.25, t[k++].scale2 = 0.5;
    t[k++].q_mean = 0.5, t[k++].q_std = 2.0, t[k++].k_mean = 0.5, t[k++].k_std = 2.0;
    t[k++].qk_norm = 1, t[k++].qk_radius = 1.0, t[k++].d_model = 1, t[k++].init = SV_INIT_LECUN;
    t[k++].cross = 1, t[k++].causal = 1, t[k++].values = 1, t[k++].d_v = 1, t[k++].plant = 0.5;
    t[k++].ddof = 1, t[k++].grad = 1;
    CHECK_EQ(k, sizeof t / sizeof t[0]);
    for (size_t i = 0; i < k; i++) {
        CHECK_NE(sv_spec_hash(&t[i]), h);
        for (size_t j = 0; j < i; j++)
            CHECK_NE(sv_spec_hash(&t[i]), sv_spec_hash(&t[j]));
    }
    s.q_mean = -0.0; /* by the bits of each double */
    CHECK_NE(sv_spec_hash(&s), h);
}

static void test_init_and_taps(void)
{
    CHECK_EQ(sv_init_variance(SV_INIT_XAVIER, 6, 2), 0.25);
    CHECK_EQ(sv_init_variance(SV_INIT_LECUN, 8, 2), 0.125);
    CHECK_EQ(sv_init_variance(SV_INIT_NORMAL, 8, 2), 1.0);
    CHECK_NAN(sv_init_variance(SV_INIT_NORMAL, 0, 2));
    CHECK_NAN(sv_init_variance(SV_INIT_NORMAL, 8, 0));
    CHECK_NAN(sv_init_variance((sv_init)3, 8, 2));
    sv_spec s = base();
    uint64_t raw[5], scaled[5], w_raw[5], w_scaled[5];
    const sv_taps ok = {.hist_bins = 4,
                        .hist_lo = -1.0,
                        .hist_hi = 1.0,
                        .hist_raw = raw,
                        .hist_scaled = scaled,
                        .hist_w_raw = w_raw,
                        .hist_w_scaled = w_scaled};
    CHECK_STATUS(sv_taps_check(NULL, &s), SV_OK);
    CHECK_STATUS(sv_taps_check(&(sv_taps){0}, NULL), SV_OK); /* no histogram */
    CHECK_STATUS(sv_taps_check(&ok, &s), SV_OK);
    CHECK_STATUS(sv_taps_check(&ok, NULL), SV_EINVAL);
    sv_taps t = ok;
    t.hist_lo = t.hist_hi;
    CHECK_STATUS(sv_taps_check(&t, &s), SV_EINVAL);
    t = ok, t.hist_lo = -INFINITY;
    CHECK_STATUS(sv_taps_check(&t, &s), SV_EINVAL);
    t = ok, t.hist_hi = NAN;
    CHECK_STATUS(sv_taps_check(&t, &s), SV_EINVAL);
    t = ok, t.hist_raw = NULL;
    CHECK_STATUS(sv_taps_check(&t, &s), SV_EINVAL);
    t = ok, t.hist_scaled = NULL;
    CHECK_STATUS(sv_taps_check(&t, &s), SV_EINVAL);
    t = ok, t.hist_w_scaled = NULL;
    CHECK_STATUS(sv_taps_check(&t, &s), SV_EINVAL);
    t = ok, t.hist_w_raw = t.hist_w_scaled = NULL; /* weights are optional */
    CHECK_STATUS(sv_taps_check(&t, &s), SV_OK);
    s.n_k = 4096; /* weight bins up to 4096 keys */
    CHECK_STATUS(sv_taps_check(&ok, &s), SV_OK);
    s.n_k = 4097;
    CHECK_STATUS(sv_taps_check(&ok, &s), SV_EINVAL);
    CHECK_STATUS(sv_taps_check(&t, &s), SV_OK);
}

/* sv_spec_scores with a window sums row counts in closed form: equal to
 * the row-by-row sum on every small shape, and O(1) on a huge one. */
static void test_window_scores(void)
{
    for (size_t nq = 1; nq <= 24; nq++)
        for (size_t nk = 1; nk <= 24; nk++)
            for (size_t w = 1; w <= 27; w++)
                for (int c = 0; c < 2; c++) {
                    sv_spec s = {
                        .d_k = 1, .n_q = nq, .n_k = nk, .trials = 1, .causal = c, .window = w};
                    uint64_t got = 0, want = 0;
                    size_t lo, hi;
                    for (size_t i = 0; i < nq; i++) {
                        sv_spec_row_keys(&s, i, &lo, &hi);
                        want += hi > lo ? hi - lo : 0;
                    }
                    if (CHECK_STATUS(sv_spec_scores(&s, &got), SV_OK) && got != want)
                        CHECK_EQ(got, want);
                }
    sv_spec big = {.d_k = 1, .n_q = (size_t)1 << 40, .n_k = 3, .trials = 1, .window = 2};
    uint64_t n = 0;
    CHECK_STATUS(sv_spec_scores(&big, &n), SV_OK);
    CHECK_EQ(n, 8); /* rows 0..3 see 2, 3, 2, 1 keys (|i - j| < 2); the rest none */
}

int main(void)
{
    test_window_scores();
    test_values();
    test_combinations();
    test_sizes();
    test_overflow();
    test_resolve();
    test_scores();
    test_bound_and_hash();
    test_init_and_taps();
    return CHECK_DONE();
}
