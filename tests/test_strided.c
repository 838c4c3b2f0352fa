/* The check of caller arrays (source.h: sv_strided_check,
 * sv_strided_explain) and the layout names: every sv_strided_problem is
 * reached, with the status the engine's own check of a strided source
 * returns for the same arrays, and the line that names the array, the
 * axis, the value and what was expected. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

#define B 2u
#define HQ 4u
#define HK 2u
#define N 6u
#define D 8u
#define DV 3u

static double q_data[B * HQ * N * D], k_data[B * HK * N * D], v_data[B * HK * N * DV],
    g_data[B * HQ * N * DV], m_data[B * N * N];

/* A row-major float64 array of the given shape over data. */
static sv_array arr(const double *data, int ndim, const size_t *shape)
{
    sv_array a = {.data = data, .dtype = SV_DTYPE_FLOAT64, .ndim = ndim};
    ptrdiff_t stride = (ptrdiff_t)sizeof(double);
    for (int i = ndim - 1; i >= 0; i--) {
        a.shape[i] = shape[i];
        a.strides[i] = stride;
        stride *= (ptrdiff_t)shape[i];
    }
    return a;
}

/* Q 2 x 4 x 6 x 8, K 2 x 2 x 6 x 8, V 2 x 2 x 6 x 3, entries in [-1, 1]. */
static sv_strided base(void)
{
    static const size_t q[4] = {B, HQ, N, D}, k[4] = {B, HK, N, D}, v[4] = {B, HK, N, DV};
    for (size_t i = 0; i < sizeof q_data / sizeof q_data[0]; i++)
        q_data[i] = sin((double)i);
    for (size_t i = 0; i < sizeof k_data / sizeof k_data[0]; i++)
        k_data[i] = cos((double)i);
    for (size_t i = 0; i < sizeof v_data / sizeof v_data[0]; i++)
        v_data[i] = sin(0.5 * (double)i);
    for (size_t i = 0; i < sizeof g_data / sizeof g_data[0]; i++)
        g_data[i] = cos(0.5 * (double)i);
    memset(m_data, 0, sizeof m_data);
    return (sv_strided){.q = arr(q_data, 4, q), .k = arr(k_data, 4, k), .v = arr(v_data, 4, v)};
}

/* The resolved spec the base arrays serve. */
static sv_spec spec_of(void)
{
    sv_spec s = {.d_k = D, .n_q = N, .n_k = N, .trials = B * HQ, .values = 1, .d_v = DV};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    return s;
}

/* sv_strided_check(a, spec) gives status st and problem p, the engine's
 * check (spec given) the same status, and the explanation contains text. */
static void expect(const sv_strided *a, const sv_spec *spec, sv_status st, sv_strided_problem p,
                   const char *text)
{
    sv_strided_why why;
    char line[512];
    CHECK_STATUS(sv_strided_check(a, spec, &why), st);
    CHECK_EQ((int)why.problem, (int)p);
    const int n = sv_strided_explain(&why, NULL, line, sizeof line);
    CHECK_EQ((size_t)n, strlen(line));
    if (!CHECK(strstr(line, text) != NULL))
        fprintf(stderr, "  explained: '%s'\n  want in it: '%s'\n", line, text);
    sv_source src;
    if (spec && sv_source_strided(a, &src) == SV_OK)
        CHECK_STATUS(src.check(&src, spec, 0, spec->trials), st);
}

static void test_fine(void)
{
    sv_strided a = base();
    sv_spec s = spec_of();
    sv_strided_why why;
    char line[16] = "x";
    CHECK_STATUS(sv_strided_check(&a, NULL, &why), SV_OK);
    CHECK_STATUS(sv_strided_check(&a, &s, &why), SV_OK);
    CHECK_EQ((int)why.problem, (int)SV_STRIDED_FINE);
    CHECK_EQ(sv_strided_explain(&why, NULL, line, sizeof line), 0);
    CHECK_EQ(line[0], '\0');
    CHECK_STATUS(sv_strided_check(NULL, &s, &why), SV_EINVAL);
    CHECK_STATUS(sv_strided_check(&a, &s, NULL), SV_OK);
    sv_spec unresolved = s;
    unresolved.scale = 0.0; /* the size rules pass, the entries need a scale */
    CHECK_STATUS(sv_strided_check(&a, &unresolved, &why), SV_EINVAL);
    CHECK_EQ((int)why.problem, (int)SV_STRIDED_FINE);
}

static void test_format(void)
{
    sv_spec s = spec_of();
    sv_strided a = base();
    a.v.data = NULL;
    expect(&a, NULL, SV_OK, SV_STRIDED_FINE, "");
    expect(&a, &s, SV_EFORMAT, SV_STRIDED_FORMAT, "v: missing: the spec has values (d_v)");
    a = base();
    a.q.ndim = 5;
    expect(&a, NULL, SV_EFORMAT, SV_STRIDED_FORMAT, "q: 5-D; expected 2-D (n x d)");
    a = base();
    a.k.dtype = (sv_dtype)9;
    expect(&a, NULL, SV_EFORMAT, SV_STRIDED_FORMAT, "k: dtype 9 is not an sv_dtype");
    a = base();
    a.q.dtype = SV_DTYPE_BOOL;
    expect(&a, NULL, SV_EFORMAT, SV_STRIDED_BOOL, "q: dtype bool: Q, K, V and G hold numbers");
}

/* The arrays among themselves, without a spec and with one. */
static void test_structure(void)
{
    sv_spec s = spec_of();
    sv_strided a = base();
    a.k.shape[3] = 7;
    expect(&a, NULL, SV_EMISMATCH, SV_STRIDED_D_K,
           "k: d_k 7 (its last axis) differs from Q's 8 (q)");
    a = base();
    a.k.shape[0] = 1;
    a.v.shape[0] = 1;
    expect(&a, &s, SV_EMISMATCH, SV_STRIDED_BATCH, "k: batch 1 differs from Q's 2 (q)");
    a = base();
    a.k.shape[1] = 3;
    expect(&a, NULL, SV_EMISMATCH, SV_STRIDED_HEADS,
           "k: its 3 heads do not divide Q's 4 heads (q): grouped-query attention");
    a = base();
    a.v.shape[1] = 1;
    expect(&a, &s, SV_EMISMATCH, SV_STRIDED_GROUP,
           "v: batch x heads 2 x 1 differ from K's 2 x 2 (k)");
    a = base();
    a.v.shape[2] = 5;
    expect(&a, NULL, SV_EMISMATCH, SV_STRIDED_ROWS, "v: 5 positions differ from K's n_k = 6 (k)");
    static const size_t g[4] = {B, HQ, N, DV + 1};
    a = base();
    a.g = arr(g_data, 4, g);
    expect(&a, NULL, SV_EMISMATCH, SV_STRIDED_COLS,
           "g: d_v 4 (its last axis) differs from V's 3 (v)");
    static const size_t m3[3] = {3, N, N};
    a = base();
    a.mask = arr(m_data, 3, m3);
    expect(&a, NULL, SV_EMISMATCH, SV_STRIDED_MASK_AXIS,
           "mask: shape (3, 6, 6) does not broadcast to batch x heads x n_q x n_k = (2, 4, "
           "6, 6)");
}

/* The arrays against the spec: causal, draw fields, sizes, grad. */
static void test_spec(void)
{
    sv_strided a = base();
    a.k.shape[2] = 5;
    a.v.shape[2] = 5;
    sv_spec s = spec_of();
    s.causal = 1; /* as a caller's spec from these sizes, before sv_spec_resolve refuses it */
    s.n_k = 5;
    expect(&a, &s, SV_EMISMATCH, SV_STRIDED_CAUSAL,
           "causal needs n_q = n_k: q has 6 positions, k 5");
    a = base();
    s = spec_of();
    s.plant = 0.5;
    expect(&a, &s, SV_EMISMATCH, SV_STRIDED_DRAW, "q, k: the spec draws its rows");
    s = spec_of();
    s.n_q = 7;
    expect(&a, &s, SV_EMISMATCH, SV_STRIDED_SPEC,
           "q: 6 x 8 (positions x d) differ from the spec's n_q x d_k = 7 x 8");
    static const size_t g[4] = {B, HQ, N, DV}, m2[2] = {N, N};
    a.g = arr(g_data, 4, g);
    a.mask = arr(m_data, 2, m2);
    s = spec_of();
    s.grad = 1;
    expect(&a, &s, SV_EMISMATCH, SV_STRIDED_MASK_GRAD, "mask: a mask does not apply with grad");
}

/* Every entry: non-finite ones found where they are, magnitudes. */
static void test_entries(void)
{
    sv_spec s = spec_of();
    sv_strided a = base();
    sv_strided_why why;
    q_data[((1 * HQ + 2) * N + 5) * D + 7] = NAN; /* the last row of trial (1, 2) */
    expect(&a, &s, SV_ENONFINITE, SV_STRIDED_NONFINITE,
           "q: entry (batch 1, head 2, position 5, column 7) is nan");
    CHECK_STATUS(sv_strided_check(&a, NULL, &why), SV_OK); /* no spec: no entry read */
    a = base();
    k_data[((0 * HK + 1) * N + 3) * D + 0] = -INFINITY;
    expect(&a, &s, SV_ENONFINITE, SV_STRIDED_NONFINITE,
           "k: entry (batch 0, head 1, position 3, column 0) is -inf");
    static const size_t m4[4] = {B, 1, N, N};
    a = base();
    a.mask = arr(m_data, 4, m4);
    m_data[0] = -INFINITY; /* excludes a key: fine */
    m_data[(1 * N + 4) * N + 2] = INFINITY;
    expect(&a, &s, SV_ENONFINITE, SV_STRIDED_NONFINITE,
           "mask: entry (batch 1, head 0, query 4, key 2) is inf: a float mask holds finite "
           "values, or "
           "-inf to exclude a key");
    a = base();
    a.mask = arr(m_data, 4, m4);
    m_data[5] = -1e70;
    expect(&a, &s, SV_EOVERFLOW, SV_STRIDED_MASK_SCALE,
           "mask: entries up to 1e+70 in magnitude: over the scale 0.354 the raw logits S + M / "
           "scale would pass 1e+60");
    a = base();
    q_data[3] = 1e154; /* sv_entry_bound(6 * 8) = sqrt(DBL_MAX / 192), 9.68e152 */
    for (size_t i = 0; i < sizeof k_data / sizeof k_data[0]; i++)
        k_data[i] *= 1e-100;
    expect(&a, &s, SV_EOVERFLOW, SV_STRIDED_MAGNITUDE,
           "q: entries up to 1e+154 in magnitude: q_var (a sum of n_q*d_k squares) would overflow "
           "(above 9.68e+152 for this shape); rescale the tensor");
    a = base();
    v_data[7] = 1e200;
    expect(&a, &s, SV_EOVERFLOW, SV_STRIDED_MAGNITUDE,
           "v: entries up to 1e+200 in magnitude: raw_out_var");
    a = base();
    q_data[0] = 1e40;
    k_data[0] = 1e30; /* d_k 1e70 = 8e70 > 1e60 */
    expect(&a, &s, SV_EOVERFLOW, SV_STRIDED_SCORES,
           "q, k: d_k max|q| max|k| = 8e+70 (2.83e+70 times the scale 0.354): the scores would "
           "pass 1e+60; rescale the tensors");
}

/* A mask that leaves a trial 1 to ddof scores: refused, naming the first
 * trial of the slice (the old code ran it, and the engine read its 0 / 0
 * raw_var as an overflow); none (every row masked) or more than ddof:
 * run. */
static void test_ddof(void)
{
    static const size_t m4[4] = {B, 1, N, N};
    sv_strided a = base();
    a.mask = arr(m_data, 4, m4);
    double *m1 = m_data + N * N; /* batch 1, every head */
    for (size_t i = 0; i < N * N; i++)
        m1[i] = -INFINITY;
    m1[3 * N + 1] = m1[3 * N + 4] = 0.0; /* row 3 sees keys 1 and 4 */
    sv_spec s = spec_of();
    s.ddof = 2;
    expect(&a, &s, SV_EINVAL, SV_STRIDED_DDOF,
           "ddof: must be less than the number of scores each head sees; batch 1, head 0 sees 2 "
           "under mask");
    s.ddof = 1;
    expect(&a, &s, SV_OK, SV_STRIDED_FINE, "");
    s.causal = 1; /* row 3 keeps key 1 only */
    expect(&a, &s, SV_EINVAL, SV_STRIDED_DDOF, "batch 1, head 0 sees 1 under mask");
    s.ddof = 0;
    expect(&a, &s, SV_OK, SV_STRIDED_FINE, "");
    s = spec_of();
    s.ddof = 3;
    m1[3 * N + 1] = m1[3 * N + 4] = -INFINITY; /* batch 1 sees nothing: NaN, not refused */
    expect(&a, &s, SV_OK, SV_STRIDED_FINE, "");
}

/* Whether row i sees key j by causal and window alone (engine.h: with
 * causal i - W < j <= i, without |i - j| < W; W 0: no window). */
static int band_keeps(int causal, size_t w, size_t i, size_t j)
{
    if (causal && j > i)
        return 0;
    return w == 0 || (causal ? i - j < w : (i > j ? i - j : j - i) < w);
}

/* A sweep of random per-head masks (mostly hidden, so that heads see few
 * scores), causal, windows and ddof against a count by hand: refused
 * exactly when some (batch, head) sees 1 to ddof scores, the first such
 * one named with its count; a head that sees none is fine. */
static void sweep_ddof(void)
{
    static double mh[B * HQ * N * N];
    static const size_t m4[4] = {B, HQ, N, N};
    uint64_t x = 88172645463325252u; /* xorshift64 */
    size_t refused = 0, fine = 0;
    for (int it = 0; it < 3000; it++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const double hide = (double)(x % 1000) / 1000.0 * 0.35 + 0.6;
        sv_strided a = base();
        a.mask = arr(mh, 4, m4);
        for (size_t e = 0; e < B * HQ * N * N; e++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            mh[e] = (double)(x % 1000) / 1000.0 < hide ? -INFINITY : 0.0;
        }
        sv_spec s = spec_of();
        s.causal = (int)(x >> 20 & 1u);
        s.window = (uint32_t)(x >> 21 & 3u);
        s.ddof = (uint32_t)(x >> 23 & 3u);
        if (sv_spec_check(&s) != SV_OK)
            continue;
        size_t bad = B * HQ, seen_bad = 0;
        for (size_t t = 0; t < B * HQ && bad == B * HQ; t++) {
            size_t seen = 0;
            for (size_t i = 0; i < N; i++)
                for (size_t j = 0; j < N; j++)
                    seen += band_keeps(s.causal, s.window, i, j) && mh[(t * N + i) * N + j] == 0.0;
            if (seen > 0 && seen <= s.ddof)
                bad = t, seen_bad = seen;
        }
        sv_strided_why why;
        const sv_status st = sv_strided_check(&a, &s, &why);
        if (bad == B * HQ) {
            fine++;
            CHECK_STATUS(st, SV_OK);
        } else {
            refused++;
            CHECK_STATUS(st, SV_EINVAL);
            CHECK(why.problem == SV_STRIDED_DDOF && why.index[0] == bad / HQ &&
                  why.index[1] == bad % HQ && why.got[0] == seen_bad);
        }
    }
    CHECK(refused > 100 && fine > 100); /* both verdicts reached */
}

/* Names given by the caller, a short buffer, a why of no problem. */
static void test_explain(void)
{
    sv_strided a = base();
    a.k.shape[0] = 1;
    sv_strided_why why;
    CHECK_STATUS(sv_strided_check(&a, NULL, &why), SV_EMISMATCH);
    const char *names[SV_TENSORS] = {"q.npy", "k_batch.npy", "v.npy", "G", "m.npy"};
    char line[128], small[8];
    sv_strided_explain(&why, names, line, sizeof line);
    CHECK(strcmp(line, "k_batch.npy: batch 1 differs from Q's 2 (q.npy)") == 0);
    const int n = sv_strided_explain(&why, names, small, sizeof small);
    CHECK_EQ((size_t)n, strlen(line)); /* the whole line's length, as snprintf */
    CHECK(strcmp(small, "k_batc") == 0 || strlen(small) == sizeof small - 1);
    CHECK_EQ(sv_strided_explain(&why, NULL, NULL, 0),
             (int)strlen("k: batch 1 differs from Q's 2 (q)"));
    CHECK_EQ(sv_strided_explain(NULL, NULL, line, sizeof line), 0);
}

static void test_layout(void)
{
    sv_layout l = SV_LAYOUT_BNHD;
    CHECK(strcmp(sv_layout_name(SV_LAYOUT_BHND), "bhnd") == 0);
    CHECK(strcmp(sv_layout_name(SV_LAYOUT_BNHD), "bnhd") == 0);
    CHECK(sv_layout_name((sv_layout)SV_LAYOUTS) == NULL);
    for (int i = 0; i < SV_LAYOUTS; i++) {
        CHECK_STATUS(sv_layout_parse(sv_layout_name((sv_layout)i), &l), SV_OK);
        CHECK_EQ((int)l, i);
    }
    CHECK_STATUS(sv_layout_parse("nhd", &l), SV_EINVAL);
    CHECK_STATUS(sv_layout_parse(NULL, &l), SV_EINVAL);
    CHECK_EQ((int)l, (int)SV_LAYOUT_BNHD);
    /* 4-D batch x n x heads x d: axes 1 and 2 swap; 3-D: 0 and 1; 2-D stays. */
    static const size_t s4[4] = {2, 6, 4, 8}, s3[3] = {6, 4, 8}, s2[2] = {6, 8};
    sv_array a = arr(q_data, 4, s4);
    CHECK_STATUS(sv_array_to_bhnd(&a, SV_LAYOUT_BNHD), SV_OK);
    CHECK(a.shape[1] == 4 && a.shape[2] == 6 && a.strides[1] == 8 * 8 && a.strides[2] == 4 * 8 * 8);
    a = arr(q_data, 4, s4);
    CHECK_STATUS(sv_array_to_bhnd(&a, SV_LAYOUT_BHND), SV_OK);
    CHECK(a.shape[1] == 6 && a.shape[2] == 4);
    a = arr(q_data, 3, s3);
    CHECK_STATUS(sv_array_to_bhnd(&a, SV_LAYOUT_BNHD), SV_OK);
    CHECK(a.shape[0] == 4 && a.shape[1] == 6 && a.strides[0] == 8 * 8);
    a = arr(q_data, 2, s2);
    CHECK_STATUS(sv_array_to_bhnd(&a, SV_LAYOUT_BNHD), SV_OK);
    CHECK(a.shape[0] == 6 && a.shape[1] == 8);
    a.ndim = 5;
    CHECK_STATUS(sv_array_to_bhnd(&a, SV_LAYOUT_BNHD), SV_EINVAL);
    CHECK_STATUS(sv_array_to_bhnd(NULL, SV_LAYOUT_BNHD), SV_EINVAL);
    CHECK_STATUS(sv_array_to_bhnd(&a, (sv_layout)SV_LAYOUTS), SV_EINVAL);
}

int main(void)
{
    test_fine();
    test_format();
    test_structure();
    test_spec();
    test_entries();
    test_ddof();
    sweep_ddof();
    test_explain();
    test_layout();
    return CHECK_DONE();
}
