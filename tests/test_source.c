/* Sources (source.h): the engine gives the same bits whatever hands it the
 * rows (the draw source's rows copied into arrays and read back through
 * the strided source, in float64 and through a transposed layout), and the
 * strided source refuses what it cannot serve with the promised status. */
#include <float.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

#define T 3u
#define NQ 300u /* two query tiles */
#define NK 70u
#define D 9u
#define DV 4u

/* Every row of Q, K, V of trials 0 .. T-1 from the draw source: q and v
 * row-major (T x rows x cols), k stored transposed (T x D x NK). */
static void fill(const sv_source *draw, double *q, double *kt, double *v)
{
    double row[D > DV ? D : DV], scratch[D];
    for (uint64_t t = 0; t < T; t++) {
        draw->rows(draw, NULL, t, SV_MATRIX_Q, 0, NQ, q + t * NQ * D, D, scratch);
        draw->rows(draw, NULL, t, SV_MATRIX_V, 0, NK, v + t * NK * DV, DV, scratch);
        for (size_t j = 0; j < NK; j++) {
            draw->rows(draw, NULL, t, SV_MATRIX_K, j, 1, row, D, scratch);
            for (size_t l = 0; l < D; l++)
                kt[t * D * NK + l * NK + j] = row[l];
        }
    }
}

static sv_array array3(const double *data, size_t rows, size_t cols, ptrdiff_t s0, ptrdiff_t s1,
                       ptrdiff_t s2)
{
    return (sv_array){.data = data,
                      .dtype = SV_DTYPE_FLOAT64,
                      .ndim = 3,
                      .shape = {T, rows, cols},
                      .strides = {s0, s1, s2}};
}

static void test_same_bits(void)
{
    sv_spec s = {.d_k = D,
                 .n_q = NQ,
                 .n_k = NK,
                 .trials = T,
                 .seed = 99u,
                 .values = 1,
                 .d_v = DV,
                 .causal = 0,
                 .ddof = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_source draw, strided;
    CHECK_STATUS(sv_source_draw(&s, &draw), SV_OK);
    double *q = malloc(T * NQ * D * sizeof *q), *kt = malloc(T * D * NK * sizeof *kt),
           *v = malloc(T * NK * DV * sizeof *v);
    fill(&draw, q, kt, v);
    const ptrdiff_t e = sizeof(double);
    const sv_strided arr = {.q = array3(q, NQ, D, NQ * D * e, D * e, e),
                            .k = array3(kt, NK, D, D * NK * e, e, NK * e), /* a transposed view */
                            .v = array3(v, NK, DV, NK * DV * e, DV * e, e)};
    CHECK_STATUS(sv_source_strided(&arr, &strided), SV_OK);
    sv_trial_stats a[T], b[T];
    const sv_exec exec = {.threads = 2, .block_rows = 100};
    CHECK_STATUS(sv_engine_run(&s, &draw, &exec, NULL, 0, T, a), SV_OK);
    CHECK_STATUS(sv_engine_run(&s, &strided, &exec, NULL, 0, T, b), SV_OK);
    for (size_t t = 0; t < T; t++) {
        /* both sources measure the entries, row by row in the same order */
        CHECK(!isnan(a[t].q_var));
        CHECK(!isnan(b[t].k_var));
        CHECK_MEM_EQ(&a[t], &b[t], sizeof a[t]);
    }
    /* refusals: shape, trial range, draw fields, layout */
    sv_spec other = s;
    other.n_k = NK + 1;
    CHECK_STATUS(sv_spec_resolve(&other), SV_OK);
    CHECK_STATUS(sv_engine_run(&other, &strided, &exec, NULL, 0, 1, b), SV_EMISMATCH);
    other = s;
    other.trials = T + 1;
    CHECK_STATUS(sv_engine_run(&other, &strided, &exec, NULL, 1, T, b), SV_EMISMATCH);
    other = s;
    other.plant = 0.5;
    CHECK_STATUS(sv_engine_run(&other, &strided, &exec, NULL, 0, 1, b), SV_EMISMATCH);
    CHECK_STATUS(sv_engine_run(&s, &strided, NULL, NULL, 0, 1, b), SV_EINVAL);
    sv_strided bad = arr;
    bad.q.ndim = 5;
    CHECK_STATUS(sv_source_strided(&bad, &strided), SV_EFORMAT);
    bad = arr;
    bad.k.dtype = (sv_dtype)7;
    CHECK_STATUS(sv_source_strided(&bad, &strided), SV_EFORMAT);
    bad = arr;
    bad.q.data = NULL;
    CHECK_STATUS(sv_source_strided(&bad, &strided), SV_EFORMAT);
    CHECK_STATUS(sv_source_strided(NULL, &strided), SV_EINVAL);
    free(q);
    free(kt);
    free(v);
}

/* float32 rows are widened exactly: the same numbers as float64 arrays
 * holding the same (float-representable) values. */
static void test_float32(void)
{
    enum { N = 5, DK = 3 };
    float q32[N][DK], k32[N][DK];
    double q64[N][DK], k64[N][DK];
    for (int i = 0; i < N; i++)
        for (int l = 0; l < DK; l++) {
            q32[i][l] = (float)(0.25 * (i - l) + 0.125);
            k32[i][l] = (float)(0.5 * (l + 1) - 0.375 * i);
            q64[i][l] = q32[i][l];
            k64[i][l] = k32[i][l];
        }
    sv_spec s = {.d_k = DK, .n_q = N, .n_k = N, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    const sv_array a32 = {.data = q32,
                          .dtype = SV_DTYPE_FLOAT32,
                          .ndim = 2,
                          .shape = {N, DK},
                          .strides = {DK * 4, 4}};
    sv_strided f = {.q = a32, .k = a32}, g = {0};
    f.k.data = k32;
    g.q = (sv_array){.data = q64, .ndim = 2, .shape = {N, DK}, .strides = {DK * 8, 8}};
    g.k = g.q;
    g.k.data = k64;
    sv_source sf, sg;
    CHECK_STATUS(sv_source_strided(&f, &sf), SV_OK);
    CHECK_STATUS(sv_source_strided(&g, &sg), SV_OK);
    sv_trial_stats a, b;
    const sv_exec exec = {.threads = 1};
    CHECK_STATUS(sv_engine_run(&s, &sf, &exec, NULL, 0, 1, &a), SV_OK);
    CHECK_STATUS(sv_engine_run(&s, &sg, &exec, NULL, 0, 1, &b), SV_OK);
    CHECK_MEM_EQ(&a, &b, sizeof a);
    /* a 2-D array is one trial */
    s.trials = 2;
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    CHECK_STATUS(sv_engine_run(&s, &sf, &exec, NULL, 1, 1, &a), SV_EMISMATCH);
}

/* Caller data the engine cannot take: a NaN (the softmax's max search ran
 * past the row on one, an ASan heap overflow the engine fuzzer found via
 * drawn NaNs), an infinity, or entries whose scores pass SV_SCORE_MAX.
 * Refused before any row is read; a value at the bound runs. */
static void test_bad_values(void)
{
    enum { N = 4, DK = 2 };
    double q[N][DK], k[N][DK];
    for (int i = 0; i < N; i++)
        for (int l = 0; l < DK; l++)
            q[i][l] = k[i][l] = 0.5 * (i + 1) - l;
    sv_spec s = {.d_k = DK, .n_q = N, .n_k = N, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {N, DK}, .strides = {DK * 8, 8}};
    arr.k = arr.q;
    arr.k.data = k;
    sv_source src;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    const sv_exec exec = {.threads = 1};
    sv_trial_stats t;
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_OK);
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        k[N - 1][1] = bad[b];
        CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_ENONFINITE);
    }
    k[N - 1][1] = 1e31; /* d_k max|q| max|k| = 2 x 2 x 1e31 < 1e60 */
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_OK);
    q[0][0] = 1e30; /* 2 x 1e30 x 1e31 > 1e60 */
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_EOVERFLOW);
}

/* The check's row loop (four running maxima, issue 39) in float64 and
 * float32, rows of 7 entries and a transposed K: a non-finite entry in
 * any column is found, and the largest |entry| in any column decides the
 * overflow bound. */
static void test_check_columns(void)
{
    enum { N = 3, DK = 7 };
    double q[N * DK], kt[DK * N]; /* kt: K transposed, K[j][l] at kt[l * N + j] */
    float q32[N * DK], kt32[DK * N];
    for (int i = 0; i < N * DK; i++)
        q[i] = kt[i] = q32[i] = kt32[i] = (float)(0.25 * (i % 5) - 0.5);
    sv_spec s = {.d_k = DK, .n_q = N, .n_k = N, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    const sv_exec exec = {.threads = 1};
    for (int f = 0; f < 2; f++) {
        const ptrdiff_t e = f ? 4 : 8;
        sv_strided arr = {0};
        arr.q = (sv_array){.data = f ? (void *)q32 : (void *)q,
                           .dtype = f ? SV_DTYPE_FLOAT32 : SV_DTYPE_FLOAT64,
                           .ndim = 2,
                           .shape = {N, DK},
                           .strides = {DK * e, e}};
        arr.k = arr.q;
        arr.k.data = f ? (void *)kt32 : (void *)kt;
        arr.k.strides[0] = e;     /* row j: K's column */
        arr.k.strides[1] = N * e; /* entry l: N apart */
        sv_source src;
        sv_trial_stats t;
        CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
        for (int l = 0; l < DK; l++) {
            const int at = l * N + N - 1; /* K[N - 1][l] */
            const double bad[] = {NAN, INFINITY, -INFINITY, 1e31, 1e29};
            const sv_status want[] = {SV_ENONFINITE, SV_ENONFINITE, SV_ENONFINITE, SV_EOVERFLOW,
                                      SV_OK};
            for (int b = 0; b < 5; b++) {
                if (f)
                    kt32[at] = (float)bad[b]; /* 1e31, 1e29: float32 holds them */
                else
                    kt[at] = bad[b];
                q[l] = q32[l] = 1e29f; /* d_k max|q| max|k| = 7e60 with 1e31, 7e58 with 1e29 */
                if (!CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), want[b]))
                    fprintf(stderr, "  float%d, column %d, entry %g\n", f ? 32 : 64, l, bad[b]);
                q[l] = q32[l] = 0.5f;
            }
            kt[at] = kt32[at] = 0.5f;
        }
    }
}

/* Sums of squares: entries past sv_entry_bound are refused (no inf from a
 * finite input), sv_array_max_abs finds the largest |entry|. */
static void test_magnitudes(void)
{
    enum { N = 4, DK = 2 };
    double q[N][DK], k[N][DK];
    for (int i = 0; i < N; i++)
        for (int l = 0; l < DK; l++)
            q[i][l] = (i + l) % 2 ? 1e154 : -1e154, k[i][l] = 1e-100 * (i - l);
    sv_spec s = {.d_k = DK, .n_q = N, .n_k = N, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {N, DK}, .strides = {DK * 8, 8}};
    arr.k = arr.q;
    arr.k.data = k;
    CHECK(sv_array_max_abs(&arr.q) == 1e154);
    CHECK(sv_array_max_abs(NULL) == -1.0);
    CHECK(fabs(sv_entry_bound(8) - sqrt(DBL_MAX / 32.0)) <= 1e-15 * sv_entry_bound(8));
    sv_source src;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    const sv_exec exec = {.threads = 1};
    sv_trial_stats t;
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_EOVERFLOW);
    for (int i = 0; i < N; i++)
        for (int l = 0; l < DK; l++)
            q[i][l] *= 1e-4; /* 1e150: q_var about 1e300, finite */
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_OK);
    CHECK(isfinite(t.q_var) && t.q_var > 1e299);
}

/* A mask (sv_strided.mask): all true is no mask, to the bit; all false
 * leaves every row empty; a bad shape, a NaN, grad, a bool Q refused. */
static void test_mask(void)
{
    enum { N = 5, DK = 3 };
    double q[N][DK], k[N][DK], madd[N][N];
    unsigned char yes[N][N], no[N];
    for (int i = 0; i < N; i++) {
        for (int l = 0; l < DK; l++)
            q[i][l] = sin(i + 2.0 * l), k[i][l] = cos(3.0 * i - l);
        for (int j = 0; j < N; j++)
            yes[i][j] = 1, madd[i][j] = 0.0;
        no[i] = 0;
    }
    sv_spec s = {.d_k = DK, .n_q = N, .n_k = N, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {N, DK}, .strides = {DK * 8, 8}};
    arr.k = arr.q;
    arr.k.data = k;
    const sv_exec exec = {.threads = 1};
    sv_source src;
    sv_trial_stats plain, t;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &plain), SV_OK);
    const sv_array masks[2] = {
        {.data = yes, .dtype = SV_DTYPE_BOOL, .ndim = 2, .shape = {N, N}, .strides = {N, 1}},
        {.data = madd, .ndim = 2, .shape = {N, N}, .strides = {N * 8, 8}}};
    for (int m = 0; m < 2; m++) {
        arr.mask = masks[m];
        CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
        CHECK(src.mask != NULL);
        CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_OK);
        CHECK(t.scaled_entropy == plain.scaled_entropy && t.raw_var == plain.raw_var);
    }
    /* key padding broadcast over rows: no key at all */
    arr.mask = (sv_array){
        .data = no, .dtype = SV_DTYPE_BOOL, .ndim = 2, .shape = {1, N}, .strides = {0, 1}};
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_OK);
    CHECK(t.rows_empty == N);
    arr.mask.shape[1] = N - 1; /* neither 1 nor n_k */
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_EMISMATCH);
    arr.mask = masks[1];
    CHECK(sv_mask_max_abs(&arr.mask) == 0.0);
    madd[1][1] = -INFINITY;
    madd[1][2] = -DBL_MAX; /* the dtype's lowest: excluded, not a value */
    madd[1][3] = -2.5;
    CHECK(sv_mask_max_abs(&arr.mask) == 2.5);
    madd[1][3] = -1e61;
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_EOVERFLOW);
    madd[2][3] = NAN;
    CHECK(isnan(sv_mask_max_abs(&arr.mask)));
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, 0, 1, &t), SV_ENONFINITE);
    arr.q.dtype = SV_DTYPE_BOOL;
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_EFORMAT);
}

/* sv_source_materialize: the rows a source gives one at a time, with a
 * per-trial state (d_model's W_Q, W_K), any range; errors leave out as
 * it was. */
static void test_materialize(void)
{
    sv_spec s = {
        .d_k = 5, .n_q = 7, .n_k = 9, .trials = 3, .seed = 8, .d_model = 6, .values = 1, .d_v = 3};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    double state[512] = {0}, scratch[512] = {0}, want[9 * 5], got[9 * 8];
    CHECK(src.trial_len < 512 && src.scratch_len < 512);
    src.begin_trial(&src, 2, state);
    for (size_t j = 0; j < 9; j++)
        src.rows(&src, state, 2, SV_MATRIX_K, j, 1, want + j * 5, 5, scratch);
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_K, 0, 9, got, 5), SV_OK);
    CHECK_MEM_EQ(got, want, sizeof want);
    /* rows 3 .. 7 with a leading dimension of 8 */
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_K, 3, 5, got, 8), SV_OK);
    for (size_t i = 0; i < 5; i++)
        CHECK_MEM_EQ(got + i * 8, want + (3 + i) * 5, 5 * sizeof(double));
    double v[9 * 3];
    CHECK_STATUS(sv_source_materialize(&src, &s, 0, SV_MATRIX_V, 0, 9, v, 3), SV_OK);
    memset(got, 0x5A, sizeof got);
    unsigned char same[sizeof got];
    memcpy(same, got, sizeof got);
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_K, 5, 5, got, 5), SV_EINVAL);
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_Q, 0, 7, got, 4), SV_EINVAL);
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_G, 0, 7, got, 5), SV_EINVAL);
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_WQ, 0, 1, got, 5), SV_EINVAL);
    CHECK_STATUS(sv_source_materialize(NULL, &s, 2, SV_MATRIX_K, 0, 1, got, 5), SV_EINVAL);
    CHECK_MEM_EQ(got, same, sizeof got);
}

/* sv_source_logits: query i's logits q_i . k_j, as a dot product of the
 * rows sv_source_materialize gives (the same bits: the same sum, in the
 * same order), and for a strided source of small integers the exact
 * products; errors leave logits as they were. */
static void test_logits(void)
{
    sv_spec s = {.d_k = 5, .n_q = 7, .n_k = 9, .trials = 3, .seed = 8, .d_model = 6};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    sv_source src;
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    double q[7 * 5], k[9 * 5], got[9], want[9];
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_Q, 0, 7, q, 5), SV_OK);
    CHECK_STATUS(sv_source_materialize(&src, &s, 2, SV_MATRIX_K, 0, 9, k, 5), SV_OK);
    for (size_t j = 0; j < 9; j++) {
        want[j] = 0.0;
        for (size_t l = 0; l < 5; l++)
            want[j] += q[4 * 5 + l] * k[j * 5 + l];
    }
    CHECK_STATUS(sv_source_logits(&src, &s, 2, 4, 9, got), SV_OK);
    CHECK_MEM_EQ(got, want, sizeof want);
    CHECK_STATUS(sv_source_logits(&src, &s, 2, 4, 5, got), SV_OK); /* a causal row 4 */
    CHECK_MEM_EQ(got, want, 5 * sizeof(double));
    /* Q = [[1, 2], [3, -1]], K = [[2, 0], [1, 1], [-1, 4]]: row 1 is 6, 2, -7 */
    const double qs[4] = {1, 2, 3, -1}, ks[6] = {2, 0, 1, 1, -1, 4};
    sv_strided arr = {0};
    arr.q = (sv_array){.data = qs, .ndim = 2, .shape = {2, 2}, .strides = {16, 8}};
    arr.k = (sv_array){.data = ks, .ndim = 2, .shape = {3, 2}, .strides = {16, 8}};
    sv_spec t = {.d_k = 2, .n_q = 2, .n_k = 3, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&t), SV_OK);
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    CHECK_STATUS(sv_source_logits(&src, &t, 0, 1, 3, got), SV_OK);
    CHECK(got[0] == 6.0 && got[1] == 2.0 && got[2] == -7.0);
    memcpy(want, got, sizeof got);
    CHECK_STATUS(sv_source_logits(&src, &t, 0, 2, 3, got), SV_EINVAL); /* query >= n_q */
    CHECK_STATUS(sv_source_logits(&src, &t, 0, 1, 4, got), SV_EINVAL); /* n > n_k */
    CHECK_STATUS(sv_source_logits(NULL, &t, 0, 1, 3, got), SV_EINVAL);
    CHECK_STATUS(sv_source_logits(&src, &t, 0, 1, 3, NULL), SV_EINVAL);
    CHECK_MEM_EQ(got, want, sizeof got);
}

/* A contiguous 4-D float64 array b x h x n x d over @p data. */
static sv_array array4(const double *data, size_t b, size_t h, size_t n, size_t d)
{
    return (sv_array){
        .data = data,
        .ndim = 4,
        .shape = {b, h, n, d},
        .strides = {(ptrdiff_t)(h * n * d * 8), (ptrdiff_t)(n * d * 8), (ptrdiff_t)(d * 8), 8}};
}

/* sv_strided_sizes: Q 2 x 4 x 5 x 3 and K, V of 2 heads (GQA) over 7
 * keys give d_k 3, n_q 5, n_k 7, trials 2 * 4, d_v V's 6; without V no
 * values; arrays that do not fit leave the spec as it was. */
static void test_sizes(void)
{
    static double buf[2 * 4 * 7 * 6];
    sv_strided arr = {0};
    arr.q = array4(buf, 2, 4, 5, 3);
    arr.k = array4(buf, 2, 2, 7, 3);
    arr.v = array4(buf, 2, 2, 7, 6);
    sv_spec s = {.causal = 1, .ddof = 1};
    CHECK_STATUS(sv_strided_sizes(&arr, &s), SV_OK);
    CHECK(s.d_k == 3 && s.n_q == 5 && s.n_k == 7 && s.trials == 8 && s.values == 1 && s.d_v == 6);
    CHECK(s.causal == 1 && s.ddof == 1); /* the rest as it was */
    arr.v = (sv_array){0};
    CHECK_STATUS(sv_strided_sizes(&arr, &s), SV_OK);
    CHECK(s.values == 0 && s.d_v == 0 && s.n_k == 7);
    arr.k = array4(buf, 2, 3, 7, 3); /* 4 query heads over 3 key heads */
    const sv_spec before = s;
    CHECK_STATUS(sv_strided_sizes(&arr, &s), SV_EMISMATCH);
    CHECK_MEM_EQ(&s, &before, sizeof s);
    CHECK_STATUS(sv_strided_sizes(&arr, NULL), SV_EINVAL);
    CHECK_STATUS(sv_strided_sizes(NULL, &s), SV_EINVAL);
}

int main(void)
{
    test_materialize();
    test_sizes();
    test_logits();
    test_same_bits();
    test_float32();
    test_bad_values();
    test_check_columns();
    test_magnitudes();
    test_mask();
    return CHECK_DONE();
}
