/* The tile products: scores = Q tile x K block^T, and with --values the
 * tile's attention outputs exps x V block. Fixed shapes (tm x kb x d_k,
 * tm x d_v x kb) so that OpenBLAS picks the same kernels every call.
 * Without OpenBLAS (SV_HAVE_BLAS unset: the WebAssembly build) plain
 * loops do the same products; only the order of additions differs, within
 * the cross-machine tolerance (tests/tolerance.py). */
#include <math.h>
#ifdef SV_HAVE_BLAS
#include <cblas.h>
#endif

#include "plan.h"

#ifndef SV_HAVE_BLAS
#if defined(__wasm_simd128__)
#include <stdlib.h>
#include <wasm_simd128.h>

/* Eight sums of row a (columns j..j+8 of C) from bt (k x 8), one per f64x2
 * lane pair: s[v] += a[l] bt[l][v] for l in order. */
#define SV_DOT8(s, a, t)                                                                           \
    do {                                                                                           \
        const v128_t x_ = wasm_v128_load64_splat(a);                                               \
        s[0] = wasm_f64x2_add(s[0], wasm_f64x2_mul(x_, t[0]));                                     \
        s[1] = wasm_f64x2_add(s[1], wasm_f64x2_mul(x_, t[1]));                                     \
        s[2] = wasm_f64x2_add(s[2], wasm_f64x2_mul(x_, t[2]));                                     \
        s[3] = wasm_f64x2_add(s[3], wasm_f64x2_mul(x_, t[3]));                                     \
    } while (0)

/* Rows i0 (and i0 + 1 when two) of C, columns j..j+8, from bt. Two rows
 * give eight independent sums: WebAssembly has no fused multiply-add, and
 * four chains of adds alone wait on the add's latency. */
static void dot8_rows(size_t k, const double *a, size_t lda, const double *bt, double *c,
                      size_t ldc, int two)
{
    v128_t s[4], u[4];
    for (int v = 0; v < 4; v++)
        s[v] = u[v] = wasm_f64x2_splat(0.0);
    const double *a1 = a + (two ? lda : 0);
    for (size_t l = 0; l < k; l++) {
        const v128_t t[4] = {wasm_v128_load(bt + l * 8), wasm_v128_load(bt + l * 8 + 2),
                             wasm_v128_load(bt + l * 8 + 4), wasm_v128_load(bt + l * 8 + 6)};
        SV_DOT8(s, a + l, t);
        SV_DOT8(u, a1 + l, t);
    }
    for (int v = 0; v < 4; v++) {
        wasm_v128_store(c + 2 * v, s[v]);
        if (two)
            wasm_v128_store(c + ldc + 2 * v, u[v]);
    }
}

/* C = A B^T for WebAssembly SIMD: eight rows of B at a time, copied
 * transposed (bt[l][0..8)), so that two f64x2 lanes of each of four sums
 * share one load of A's entry, for two rows of A at once. Each sum still
 * adds a[i][l] b[j][l] for l in order, a multiply then an add (WebAssembly
 * has no fused one): the same bits as gemm_nt's scalar loop. 0, or -1 when
 * bt cannot be had. */
static int gemm_nt_simd(size_t m, size_t n, size_t k, const double *a, size_t lda, const double *b,
                        size_t ldb, double *c, size_t ldc)
{
    double *bt = malloc(8 * (k ? k : 1) * sizeof(double));
    if (!bt)
        return -1;
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        for (size_t l = 0; l < k; l++)
            for (size_t v = 0; v < 8; v++)
                bt[l * 8 + v] = b[(j + v) * ldb + l];
        for (size_t i = 0; i < m; i += 2)
            dot8_rows(k, a + i * lda, lda, bt, c + i * ldc + j, ldc, i + 1 < m);
    }
    free(bt);
    for (size_t i = 0; i < m && j < n; i++) /* the last n % 8 columns */
        for (size_t jj = j; jj < n; jj++) {
            double s = 0.0;
            for (size_t l = 0; l < k; l++)
                s += a[i * lda + l] * b[jj * ldb + l];
            c[i * ldc + jj] = s;
        }
    return 0;
}
#endif

/* C = A B^T: four rows of B at a time, so that four independent sums
 * (which the compiler may put in SIMD lanes) share each load of A. */
static void gemm_nt(size_t m, size_t n, size_t k, const double *a, size_t lda, const double *b,
                    size_t ldb, double *c, size_t ldc)
{
    for (size_t i = 0; i < m; i++) {
        const double *ai = a + i * lda;
        size_t j = 0;
        for (; j + 4 <= n; j += 4) {
            const double *b0 = b + j * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (size_t l = 0; l < k; l++) {
                s0 += ai[l] * b0[l];
                s1 += ai[l] * b1[l];
                s2 += ai[l] * b2[l];
                s3 += ai[l] * b3[l];
            }
            c[i * ldc + j] = s0;
            c[i * ldc + j + 1] = s1;
            c[i * ldc + j + 2] = s2;
            c[i * ldc + j + 3] = s3;
        }
        for (; j < n; j++) {
            double s = 0.0;
            for (size_t l = 0; l < k; l++)
                s += ai[l] * b[j * ldb + l];
            c[i * ldc + j] = s;
        }
    }
}

/* C = A B: row i of C is the sum of rows of B weighted by row i of A (the
 * inner loop runs along contiguous rows: vectorizable). */
static void gemm_nn(size_t m, size_t n, size_t k, const double *a, size_t lda, const double *b,
                    size_t ldb, double *c, size_t ldc)
{
    for (size_t i = 0; i < m; i++) {
        double *ci = c + i * ldc;
        for (size_t j = 0; j < n; j++)
            ci[j] = 0.0;
        for (size_t l = 0; l < k; l++) {
            const double x = a[i * lda + l];
            const double *bl = b + l * ldb;
            if (x != 0.0) /* masked and padded entries are exact zeros */
                for (size_t j = 0; j < n; j++)
                    ci[j] += x * bl[j];
        }
    }
}
#endif

void sv__tile_gemm(int trans_b, size_t m, size_t n, size_t k, const double *a, size_t lda,
                   const double *b, size_t ldb, double *c, size_t ldc)
{
#ifdef SV_HAVE_BLAS
    /* int casts: every dimension is a tile's (<= 4096) or d_k, d_v <= INT_MAX (plan.c) */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m, (int)n,
                (int)k, 1.0, a, (int)lda, b, (int)ldb, 0.0, c, (int)ldc);
#else
#if defined(__wasm_simd128__)
    if (trans_b && gemm_nt_simd(m, n, k, a, lda, b, ldb, c, ldc) == 0)
        return;
#endif
    if (trans_b)
        gemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
    else
        gemm_nn(m, n, k, a, lda, b, ldb, c, ldc);
#endif
}

/* The plain product of a tiny tile: each score summed over l in order. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
tiny_product(const double *qtile, const double *k, double *scores, size_t tm, size_t kb, size_t d)
{
    for (size_t i = 0; i < tm; i++)
        for (size_t j = 0; j < kb; j++) {
            double dot = 0.0;
            for (size_t l = 0; l < d; l++)
                dot += qtile[i * d + l] * k[j * d + l];
            scores[i * kb + j] = dot;
        }
}

void sv__tile_product(const plan *p, const double *qtile, const double *k, double *scores)
{
    const size_t d = p->spec->d_k, tm = p->tm, kb = p->kb;
    if (p->tiny) {
        /* A call into the BLAS costs more than a product this small; the
         * loop's overhead too, for d_k of 1 or 2 (a constant d unrolls:
         * the same additions, the same bits). */
        if (d == 1)
            tiny_product(qtile, k, scores, tm, kb, 1);
        else if (d == 2)
            tiny_product(qtile, k, scores, tm, kb, 2);
        else
            tiny_product(qtile, k, scores, tm, kb, d);
    } else {
        /* int casts: tm <= 256, kb <= 4096, d_k <= INT_MAX (plan.c) */
        sv__tile_gemm(1, tm, kb, d, qtile, d, k, d, scores, kb);
    }
}

/* Row r's running output o (2 x d_v: raw, scaled) merged with the block's
 * part, both in their own max frame (m_old, m_new). */
static void merge_output(double *o, const double *part, size_t stride, size_t dv, double m_old,
                         double m_new, double c, int first)
{
    for (int k = 0; k < 2; k++) {
        const double ck = k ? c : 1.0;
        const double *pk = part + k * stride;
        if (first) {
            for (size_t l = 0; l < dv; l++)
                o[k * dv + l] = pk[l];
        } else {
            const double top = m_new > m_old ? m_new : m_old;
            const double fa = exp(ck * (m_old - top)), fb = exp(ck * (m_new - top));
            for (size_t l = 0; l < dv; l++)
                o[k * dv + l] = o[k * dv + l] * fa + pk[l] * fb;
        }
    }
}

/* --values: the tile's unnormalised outputs sum_j e_j v_j in this block's
 * max frame (one dgemm each for raw and scaled exps), merged into each
 * row's running output in the frame of the larger max, before the row's
 * softmax sums are merged (they still hold the old max). */
void sv__tile_outputs(const plan *p, const workspace *ws, size_t i0, size_t m, size_t j0,
                      const double *scores, const sv_softmax_acc *acc, const size_t *lo,
                      const size_t *hi, size_t me)
{
    const size_t tm = p->tm, kb = p->kb, dv = p->dv;
    const double c = p->spec->scale;
    double *e = ws->e + me * 2 * tm * kb, *op = ws->o_part + me * 2 * tm * dv;
    for (size_t r = 0; r < tm; r++)
        for (size_t j = 0; j < kb; j++) {
            const int vis = r < m && j >= lo[r] && j < hi[r];
            const double t = vis ? scores[r * kb + j] - acc[r].max : 0.0;
            e[r * kb + j] = vis ? exp(t) : 0.0;
            e[tm * kb + r * kb + j] = vis ? exp(c * t) : 0.0;
        }
    for (int k = 0; k < 2; k++)
        sv__tile_gemm(0, tm, dv, kb, e + k * tm * kb, kb, ws->v, dv, op + k * tm * dv, dv);
    /* A row's first visible block starts its output (row_mo n is 0 there:
     * merge_rows runs after this). */
    for (size_t r = 0; r < m; r++)
        if (hi[r] > lo[r])
            merge_output(ws->o + (i0 + r) * 2 * dv, op + r * dv, tm * dv, dv,
                         ws->row_sm[i0 + r].max, acc[r].max, c,
                         j0 == 0 || ws->row_mo[i0 + r].n == 0);
}
