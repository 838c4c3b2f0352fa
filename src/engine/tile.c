/* The tile products: scores = Q tile x K block^T, and with --values the
 * tile's attention outputs exps x V block. Fixed shapes (tm x kb x d_k,
 * tm x d_v x kb) so that OpenBLAS picks the same kernels every call. */
#include <cblas.h>
#include <math.h>

#include "plan.h"

void sv_tile_product(const plan *p, const double *qtile, const double *k, double *scores)
{
    const size_t d = p->spec->d_k, tm = p->tm, kb = p->kb;
    if (p->tiny) {
        /* A call into the BLAS costs more than a product this small. */
        for (size_t i = 0; i < tm; i++)
            for (size_t j = 0; j < kb; j++) {
                double dot = 0.0;
                for (size_t l = 0; l < d; l++)
                    dot += qtile[i * d + l] * k[j * d + l];
                scores[i * kb + j] = dot;
            }
    } else {
        /* int casts: tm <= 256, kb <= 4096, d_k <= INT_MAX (plan.c) */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)tm, (int)kb, (int)d, 1.0, qtile,
                    (int)d, k, (int)d, 0.0, scores, (int)kb);
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
void sv_tile_outputs(const plan *p, const workspace *ws, size_t i0, size_t m, size_t j0,
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
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)tm, (int)dv, (int)kb, 1.0,
                    e + k * tm * kb, (int)kb, ws->v, (int)dv, 0.0, op + k * tm * dv, (int)dv);
    /* A row's first visible block starts its output (row_mo n is 0 there:
     * merge_rows runs after this). */
    for (size_t r = 0; r < m; r++)
        if (hi[r] > lo[r])
            merge_output(ws->o + (i0 + r) * 2 * dv, op + r * dv, tm * dv, dv,
                         ws->row_sm[i0 + r].max, acc[r].max, c,
                         j0 == 0 || ws->row_mo[i0 + r].n == 0);
}
