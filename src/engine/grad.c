/* The backward passes of --grad: gradients of L = sum_i g_i . o_i through
 * O = softmax(c S) V, raw (c = 1) and scaled, for rows of G from the
 * source (SV_MATRIX_G). Per row i, with z = c s_i, p = softmax(z),
 * a_j = g_i . v_j and delta_i = g_i . o_i (o_i from the forward pass):
 *   dL/dz_ij = p_j (a_j - delta_i),
 *   dL/dq_i = c sum_j dL/dz_ij k_j,   dL/dk_j = c sum_i dL/dz_ij q_i.
 * As FlashAttention's backward (Dao et al. 2022, Algorithm 4), the scores
 * are recomputed and the n_q x n_k matrix is never held; p comes from
 * each row's max and Z of the forward pass (ws->row_sm).
 *
 * Two passes, each accumulating in a fixed order, so the bits never depend
 * on the thread count or block rows:
 * 1. rows: key blocks of kb in key order, query tiles of tm across
 *    threads (the forward pass's layout): per row the sums of g^2 and g^4
 *    and dL/dq_i, added block by block in key order;
 * 2. keys: query blocks of qb in row order, key tiles of tk across
 *    threads: dL/dk_j, added block by block in row order.
 * Every dgemm has a fixed shape (zero-padded tiles). A row with one
 * visible key (n_k = 1, or row 0 with causal) has p = 1 whatever its
 * logit: its gradient is exactly 0, and is set so.
 *
 * The row's top key t (its first max) is left out of pass 1's tiles: as
 * p_t -> 1, a_t - delta_i cancels to nothing (5.5e-9 relative error at
 * d_k = 128, n = 64). Its gradient is taken after pass 1 from
 *   a_t - delta_i = a_t (1 - p_t) - sum_{j != t} p_j a_j,
 * with 1 - p_t = r / Z from the forward sums (softmax.h): both terms are
 * small and computed as such. Pass 2 uses the stored value. */
#include <math.h>
#include <string.h>

#include "plan.h"

/* Rows r0 .. r0 + m - 1 of matrix `which` into x (ld columns), then zeros
 * up to `rows` rows: the products' shapes never change. */
static void fetch(const plan *p, const workspace *ws, uint64_t trial, sv_matrix which, size_t r0,
                  size_t m, size_t rows, double *x, size_t ld, size_t me)
{
    if (m > 0)
        p->src->rows(p->src, ws->state, trial, which, r0, m, x, ld,
                     ws->scratch + me * p->src->scratch_len);
    memset(x + m * ld, 0, (rows - m) * ld * sizeof(double));
}

/* Whether row i sees one key only: its gradient is exactly 0. */
static int one_key(const plan *p, size_t i)
{
    return (p->spec->causal ? i + 1 : p->spec->n_k) == 1;
}

/* Row i's slots in rowg (GRAD_ROW doubles): per scale k the running max
 * |g|, sum g^2 and sum g^4 (in units of the max) at 3k; the top key's
 * index at 6; per k its a at 7 + k, sum_{j != top} p_j a_j at 9 + k and
 * its gradient at 11 + k. The index is -1 until pass 1 finds the key. */
static double *row_slots(const grad_layout *g, const workspace *ws, size_t i)
{
    return ws->grad + g->rowg + GRAD_ROW * i;
}

/* p_ij for logit s = s_ij (raw units), scale k. */
static double p_of(const plan *p, const workspace *ws, size_t i, int k, double s)
{
    const sv_softmax_acc *sm = &ws->row_sm[i];
    const double c = k ? p->spec->scale : 1.0;
    return exp(c * (s - sm->max)) / (1.0 + sm->r[k]);
}

/* dL/dz_ij for key j of row i, logit s and a = g_i . v_j, scale k: the
 * stored value for the row's top key, p_j (a_j - delta_i) else. */
static double dz_of(const plan *p, const workspace *ws, const grad_layout *g, size_t i, size_t j,
                    int k, double s, double a)
{
    const double *slot = row_slots(g, ws, i);
    if (slot[6] == (double)j)
        return slot[11 + k];
    return p_of(p, ws, i, k, s) * (a - ws->grad[g->delta + 2 * i + k]);
}

/* delta_i = g_i . o_i, raw and scaled, into the arena. */
static void delta_row(const plan *p, const grad_layout *g, const workspace *ws, uint64_t trial,
                      size_t i, size_t me)
{
    const size_t dv = p->dv;
    double *gi = ws->grad + g->thread + me * g->per;
    fetch(p, ws, trial, SV_MATRIX_G, i, 1, 1, gi, dv, me);
    for (int k = 0; k < 2; k++) {
        const double *o = ws->o + i * 2 * dv + (size_t)k * dv;
        double dot = 0.0;
        for (size_t l = 0; l < dv; l++)
            dot += gi[l] * o[l];
        ws->grad[g->delta + 2 * i + (size_t)k] = dot;
    }
}

/* Merges one block's g^2, g^4 sums of a row (in units of its max |g|,
 * mx) into the row's running (mx, s2, s4): scale-free, so that the
 * effective number of keys survives gradients of 1e-200. */
static void merge_sums(double *run, double mx, double s2, double s4)
{
    if (mx == 0.0)
        return;
    if (run[0] < mx) {
        const double f = run[0] / mx, f2 = f * f;
        run[1] = run[1] * f2 + s2;
        run[2] = run[2] * f2 * f2 + s4;
        run[0] = mx;
    } else {
        const double f = mx / run[0], f2 = f * f;
        run[1] += s2 * f2;
        run[2] += s4 * f2 * f2;
    }
}

/* One row's dL/dz over the block at j0 (z: kb values, zeros past the n
 * visible keys and at the row's top key, which row_top adds later), its
 * sums merged into the row's running ones. */
static void row_dz(const plan *p, const grad_layout *g, const workspace *ws, size_t i, int k,
                   size_t j0, size_t n, const double *s, const double *a, double *z)
{
    double *slot = row_slots(g, ws, i), mx = 0.0, pa = 0.0;
    for (size_t j = 0; j < p->kb; j++) {
        z[j] = 0.0;
        if (j >= n)
            continue;
        if (slot[6] < 0.0 && s[j] == ws->row_sm[i].max)
            slot[6] = (double)(j0 + j); /* the first max: k = 0 comes first */
        if (slot[6] == (double)(j0 + j)) {
            slot[7 + k] = a[j];
            continue;
        }
        const double pj = p_of(p, ws, i, k, s[j]);
        z[j] = pj * (a[j] - ws->grad[g->delta + 2 * i + k]);
        pa += pj * a[j];
        mx = fmax(mx, fabs(z[j]));
    }
    slot[9 + k] += pa;
    double s2 = 0.0, s4 = 0.0;
    const double inv = mx > 0.0 ? 1.0 / mx : 0.0;
    for (size_t j = 0; j < n; j++) {
        const double u = z[j] * inv, u2 = u * u;
        s2 += u2;
        s4 += u2 * u2;
    }
    merge_sums(slot + 3 * (size_t)k, mx, s2, s4);
}

/* After pass 1: the gradient of row i's top key t, from
 * a_t - delta = a_t r / Z - sum_{j != t} p_j a_j (no cancellation), into
 * the row's sums and dL/dq_i (c dz k_t; k_t fetched again into x). */
static void row_top(const plan *p, const grad_layout *g, const workspace *ws, uint64_t trial,
                    size_t i, size_t me)
{
    double *slot = row_slots(g, ws, i);
    if (slot[6] < 0.0)
        return; /* one visible key: no gradient */
    const size_t d = p->spec->d_k, t = (size_t)slot[6];
    double *x = ws->grad + g->thread + me * g->per;
    fetch(p, ws, trial, SV_MATRIX_K, t, 1, 1, x, d, me);
    for (int k = 0; k < 2; k++) {
        const double r = ws->row_sm[i].r[k], z = 1.0 / (1.0 + r);
        const double dz = z * (slot[7 + k] * (r * z) - slot[9 + k]);
        slot[11 + k] = dz;
        merge_sums(slot + 3 * (size_t)k, fabs(dz), 1.0, 1.0);
        const double c = k ? p->spec->scale : 1.0;
        double *dq = ws->grad + g->dq + (i * 2 + (size_t)k) * d;
        for (size_t l = 0; l < d; l++)
            dq[l] += c * dz * x[l];
    }
}

/* Pass 1, one tile: query rows i0 .. i0 + m - 1 against the key block at
 * j0 (bk keys, in ws->k and ws->v). */
static void rows_tile(const plan *p, const grad_layout *g, const workspace *ws, uint64_t trial,
                      size_t i0, size_t m, size_t j0, size_t bk, size_t me)
{
    const sv_spec *s = p->spec;
    const size_t d = s->d_k, dv = p->dv, tm = p->tm, kb = p->kb;
    if (s->causal && i0 + m <= j0)
        return;
    double *qt = ws->qtile + me * tm * d, *sc = ws->scores + me * tm * kb;
    double *gt = ws->grad + g->thread + me * g->per, *at = gt + tm * dv, *dqp = at + tm * kb;
    fetch(p, ws, trial, SV_MATRIX_Q, i0, m, tm, qt, d, me);
    fetch(p, ws, trial, SV_MATRIX_G, i0, m, tm, gt, dv, me);
    sv__tile_product(p, qt, ws->k, sc); /* the forward pass's very bits */
    sv__tile_gemm(1, tm, kb, dv, gt, dv, ws->v, dv, at, kb);
    for (int k = 0; k < 2; k++) {
        double *z = ws->e + me * 2 * tm * kb + (size_t)k * tm * kb;
        for (size_t r = 0; r < tm; r++) {
            const size_t i = i0 + r;
            size_t n = 0;
            if (r < m && !one_key(p, i))
                n = !s->causal ? bk : i < j0 ? 0 : i - j0 + 1 < bk ? i - j0 + 1 : bk;
            if (r < m)
                row_dz(p, g, ws, i, k, j0, n, sc + r * kb, at + r * kb, z + r * kb);
            else
                memset(z + r * kb, 0, kb * sizeof(double));
        }
        sv__tile_gemm(0, tm, d, kb, z, kb, ws->k, d, dqp, d);
        const double c = k ? s->scale : 1.0;
        for (size_t r = 0; r < m; r++) {
            double *dq = ws->grad + g->dq + ((i0 + r) * 2 + (size_t)k) * d;
            for (size_t l = 0; l < d; l++)
                dq[l] += c * dqp[r * d + l];
        }
    }
}

/* Pass 2, one tile: keys t0 .. t0 + mt - 1 against the query block at b0
 * (bq queries, in qblk and gblk). */
static void keys_tile(const plan *p, const grad_layout *g, const workspace *ws, uint64_t trial,
                      size_t t0, size_t mt, size_t b0, size_t bq, size_t me)
{
    const sv_spec *s = p->spec;
    const size_t d = s->d_k, dv = p->dv, qb = p->qb, tk = p->tk;
    if (s->causal && t0 >= b0 + bq)
        return; /* every key of the tile comes after every query of the block */
    const double *qblk = ws->grad + g->qblk, *gblk = ws->grad + g->gblk;
    double *kt = ws->grad + g->thread + me * g->per, *vt = kt + tk * d, *st = vt + tk * dv;
    double *at = st + tk * qb, *dz = at + tk * qb, *dkp = dz + 2 * tk * qb;
    fetch(p, ws, trial, SV_MATRIX_K, t0, mt, tk, kt, d, me);
    fetch(p, ws, trial, SV_MATRIX_V, t0, mt, tk, vt, dv, me);
    sv__tile_gemm(1, tk, qb, d, kt, d, qblk, d, st, qb);
    sv__tile_gemm(1, tk, qb, dv, vt, dv, gblk, dv, at, qb);
    for (int k = 0; k < 2; k++) {
        double *z = dz + (size_t)k * tk * qb;
        for (size_t r = 0; r < tk; r++)
            for (size_t c = 0; c < qb; c++) {
                const size_t i = b0 + c, j = t0 + r;
                const int vis = r < mt && c < bq && (!s->causal || i >= j) && !one_key(p, i);
                z[r * qb + c] =
                    vis ? dz_of(p, ws, g, i, j, k, st[r * qb + c], at[r * qb + c]) : 0.0;
            }
        sv__tile_gemm(0, tk, d, qb, z, qb, qblk, d, dkp, d);
        const double c = k ? s->scale : 1.0;
        for (size_t r = 0; r < mt; r++) {
            double *dk = ws->grad + g->dk + ((t0 + r) * 2 + (size_t)k) * d;
            for (size_t l = 0; l < d; l++)
                dk[l] += c * dkp[r * d + l];
        }
    }
}

/* Key j of the block at j0 (bk real keys) into ws->k and ws->v. */
static void key_row(const plan *p, const workspace *ws, uint64_t trial, size_t j0, size_t bk,
                    size_t j, size_t me)
{
    const size_t d = p->spec->d_k, dv = p->dv, m = j < bk ? 1 : 0;
    fetch(p, ws, trial, SV_MATRIX_K, j0 + j, m, 1, ws->k + j * d, d, me);
    fetch(p, ws, trial, SV_MATRIX_V, j0 + j, m, 1, ws->v + j * dv, dv, me);
}

/* Query b0 + i of the block (bq real queries) into qblk and gblk. */
static void query_row(const plan *p, const grad_layout *g, const workspace *ws, uint64_t trial,
                      size_t b0, size_t bq, size_t i, size_t me)
{
    const size_t d = p->spec->d_k, dv = p->dv, m = i < bq ? 1 : 0;
    fetch(p, ws, trial, SV_MATRIX_Q, b0 + i, m, 1, ws->grad + g->qblk + i * d, d, me);
    fetch(p, ws, trial, SV_MATRIX_G, b0 + i, m, 1, ws->grad + g->gblk + i * dv, dv, me);
}

/* Both passes on one thread, without any OpenMP construct (this may run
 * inside the trial-parallel region). */
static void passes_serial(const plan *p, const grad_layout *g, const workspace *ws, uint64_t trial)
{
    const sv_spec *s = p->spec;
    for (size_t i = 0; i < s->n_q; i++)
        delta_row(p, g, ws, trial, i, 0);
    for (size_t j0 = 0; j0 < s->n_k; j0 += p->kb) {
        const size_t bk = s->n_k - j0 < p->kb ? s->n_k - j0 : p->kb;
        for (size_t j = 0; j < p->kb; j++)
            key_row(p, ws, trial, j0, bk, j, 0);
        for (size_t i0 = 0; i0 < s->n_q && !sv__cancelled(p); i0 += p->tm)
            rows_tile(p, g, ws, trial, i0, s->n_q - i0 < p->tm ? s->n_q - i0 : p->tm, j0, bk, 0);
    }
    for (size_t i = 0; i < s->n_q; i++)
        row_top(p, g, ws, trial, i, 0);
    for (size_t b0 = 0; b0 < s->n_q; b0 += p->qb) {
        const size_t bq = s->n_q - b0 < p->qb ? s->n_q - b0 : p->qb;
        for (size_t i = 0; i < p->qb; i++)
            query_row(p, g, ws, trial, b0, bq, i, 0);
        for (size_t t0 = 0; t0 < s->n_k && !sv__cancelled(p); t0 += p->tk)
            keys_tile(p, g, ws, trial, t0, s->n_k - t0 < p->tk ? s->n_k - t0 : p->tk, b0, bq, 0);
    }
}

/* The same across the trial's inner threads: every tile's result goes to
 * rows (pass 1) or keys (pass 2) that no other tile of the block touches,
 * and blocks follow one another, so who runs a tile does not matter. */
static void passes_parallel(const plan *p, const grad_layout *g, const workspace *ws,
                            uint64_t trial)
{
    const sv_spec *s = p->spec;
    const size_t nq = s->n_q, nk = s->n_k, tm = p->tm, tk = p->tk;
    const size_t q_tiles = (nq - 1) / tm + 1, k_tiles = (nk - 1) / tk + 1;
#pragma omp parallel num_threads(p->inner_threads)
    {
        const size_t me = (size_t)SV_THREAD_NUM();
#pragma omp for schedule(static)
        for (size_t i = 0; i < nq; i++)
            delta_row(p, g, ws, trial, i, me);
        for (size_t j0 = 0; j0 < nk; j0 += p->kb) {
            const size_t bk = nk - j0 < p->kb ? nk - j0 : p->kb;
#pragma omp for schedule(static)
            for (size_t j = 0; j < p->kb; j++)
                key_row(p, ws, trial, j0, bk, j, me);
#pragma omp for schedule(dynamic, 1)
            for (size_t t = 0; t < q_tiles; t++) /* canceled: skip, no break in omp for */
                if (!sv__cancelled(p))
                    rows_tile(p, g, ws, trial, t * tm, nq - t * tm < tm ? nq - t * tm : tm, j0, bk,
                              me);
        }
#pragma omp for schedule(static)
        for (size_t i = 0; i < nq; i++)
            row_top(p, g, ws, trial, i, me);
        for (size_t b0 = 0; b0 < nq; b0 += p->qb) {
            const size_t bq = nq - b0 < p->qb ? nq - b0 : p->qb;
#pragma omp for schedule(static)
            for (size_t i = 0; i < p->qb; i++)
                query_row(p, g, ws, trial, b0, bq, i, me);
#pragma omp for schedule(dynamic, 1)
            for (size_t t = 0; t < k_tiles; t++)
                if (!sv__cancelled(p))
                    keys_tile(p, g, ws, trial, t * tk, nk - t * tk < tk ? nk - t * tk : tk, b0, bq,
                              me);
        }
    }
}

static double norm2(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t l = 0; l < n; l++)
        s += x[l] * x[l];
    return s;
}

/* The trial's gradient statistics, rows then keys in order. */
static void grad_finish(const plan *p, const grad_layout *g, const workspace *ws,
                        sv_trial_stats *out)
{
    const sv_spec *s = p->spec;
    const size_t d = s->d_k, nq = s->n_q, nk = s->n_k;
    ksum lg[2] = {{0}}, th[2] = {{0}}, ek[2] = {{0}}, q2[2] = {{0}}, k2[2] = {{0}};
    for (size_t i = 0; i < nq; i++) {
        sv_softmax_stats st[2];
        sv_softmax_acc_stats(&ws->row_sm[i], s->scale, &st[0], &st[1]);
        for (size_t k = 0; k < 2; k++) {
            const double *run = row_slots(g, ws, i) + 3 * k; /* mx, s2, s4 */
            ksum_add(&lg[k], run[0] * run[0] * run[1]);
            ksum_add(&ek[k], run[2] > 0.0 ? run[1] * run[1] / run[2] : 0.0);
            ksum_add(&th[k], (double)p->dv * st[k].jac_frob * st[k].jac_frob);
            ksum_add(&q2[k], norm2(ws->grad + g->dq + (i * 2 + k) * d, d));
        }
    }
    for (size_t j = 0; j < nk; j++)
        for (size_t k = 0; k < 2; k++)
            ksum_add(&k2[k], norm2(ws->grad + g->dk + (j * 2 + k) * d, d));
    out->raw_grad_logits2 = ksum_mean(&lg[0], nq);
    out->scaled_grad_logits2 = ksum_mean(&lg[1], nq);
    out->raw_grad_logits_theory2 = ksum_mean(&th[0], nq);
    out->scaled_grad_logits_theory2 = ksum_mean(&th[1], nq);
    out->raw_grad_keys = ksum_mean(&ek[0], nq);
    out->scaled_grad_keys = ksum_mean(&ek[1], nq);
    out->raw_grad_q2 = ksum_mean(&q2[0], nq);
    out->scaled_grad_q2 = ksum_mean(&q2[1], nq);
    out->raw_grad_k2 = ksum_mean(&k2[0], nk);
    out->scaled_grad_k2 = ksum_mean(&k2[1], nk);
}

void sv__grad_trial(const plan *p, uint64_t trial, const workspace *ws, sv_trial_stats *out)
{
    grad_layout g = {0};
    (void)sv__grad_layout_of(p, &g); /* checked by sv__plan_make */
    /* dq, dk, delta and the row sums start at 0 (delta is written whole);
     * no row has found its top key */
    memset(ws->grad, 0, g.qblk * sizeof(double));
    for (size_t i = 0; i < p->spec->n_q; i++)
        row_slots(&g, ws, i)[6] = -1.0;
    if (p->inner_threads == 1)
        passes_serial(p, &g, ws, trial);
    else
        passes_parallel(p, &g, ws, trial);
    if (sv__cancelled(p)) /* part done: the run returns SV_ECANCELED */
        return;
    grad_finish(p, &g, ws, out);
}
