/* The row pass: one tile of query rows against one key block, each row's
 * visible scores reduced in one fused pass (moments and online-softmax
 * sums, sv_softmax_acc_rows), optionally counted into the histogram taps,
 * and merged into the row's running state in key order. */
#include <math.h>
#include <string.h>

#include "plan.h"

void sv__rowpass_entries(const plan *p, const double *row, sv_moments *out)
{
    /* Every built-in source measures (a slide's table shows the input
     * variances for draws too); a source may opt out. */
    if (p->src->measure_entries)
        (void)sv_moments_of(row, p->spec->d_k, out); /* a row of d_k >= 1 entries */
    else
        *out = (sv_moments){0u, 0.0, 0.0};
}

/* Counts are integers, so the totals do not depend on the order threads
 * add them in. */
void sv__rowpass_hist(const plan *p, const double *s, size_t len, const sv_softmax_acc *acc)
{
    const sv_taps *t = &p->taps;
    const size_t b = t->hist_bins;
    const double lo = t->hist_lo, width = (t->hist_hi - t->hist_lo) / (double)b;
    const double c = p->spec->scale;
    for (size_t j = 0; j < len; j++) {
        const double v[2] = {s[j], s[j] * c};
        uint64_t *h[2] = {t->hist_raw, t->hist_scaled};
        for (int k = 0; k < 2; k++) {
            const double x = (v[k] - lo) / width;
            const size_t i = x >= 0.0 && x < (double)b ? (size_t)x : b; /* b: outside */
#pragma omp atomic update
            h[k][i]++;
        }
        if (t->hist_w_raw) {
            const double d = s[j] - acc->max;
            const double w[2] = {exp(d) / (1.0 + acc->r[0]), exp(c * d) / (1.0 + acc->r[1])};
            uint64_t *hw[2] = {t->hist_w_raw, t->hist_w_scaled};
            for (int k = 0; k < 2; k++) {
                size_t i = (size_t)(w[k] * (double)b);
                i = i < b ? i : b - 1;
#pragma omp atomic update
                hw[k][i]++;
            }
        }
    }
}

/* The tile's query rows from the source, zero-padded to tm rows (the
 * product's shape never changes); their entries' moments on the first key
 * block. */
static void tile_rows(const plan *p, const workspace *ws, uint64_t trial, size_t i0, size_t m,
                      size_t j0, double *qtile, size_t me)
{
    const size_t d = p->spec->d_k;
    p->src->rows(p->src, ws->state, trial, SV_MATRIX_Q, i0, m, qtile, d,
                 ws->scratch + me * p->src->scratch_len);
    memset(qtile + m * d, 0, (p->tm - m) * d * sizeof(double));
    if (j0 == 0)
        for (size_t r = 0; r < m; r++)
            sv__rowpass_entries(p, qtile + r * d, &ws->q_mo[i0 + r]);
}

/* Merges the tile's per-row results into the rows' running state. A row's
 * state starts at its first block with a visible key: at the first key
 * block it is emptied (row_mo n = 0), so a window that starts later, or a
 * row that sees nothing (rows_empty), never reads an earlier trial's. */
static void merge_rows(const plan *p, const workspace *ws, size_t i0, size_t m, size_t j0,
                       const size_t *lo, const size_t *hi, const sv_softmax_acc *acc,
                       const sv_moments *mo)
{
    for (size_t r = 0; r < m; r++) {
        if (j0 == 0)
            ws->row_mo[i0 + r].n = 0;
        if (hi[r] <= lo[r])
            continue;
        if (ws->row_mo[i0 + r].n == 0) {
            ws->row_mo[i0 + r] = mo[r];
            ws->row_sm[i0 + r] = acc[r];
        } else {
            /* Statuses unread here: the arguments are the plan's (non-NULL,
             * resolved scale, n_q n_k counts in range); a non-finite score
             * shows as a NaN statistic, which the trial reports. */
            (void)sv_moments_merge(&ws->row_mo[i0 + r], &mo[r]);
            (void)sv_softmax_acc_merge(&ws->row_sm[i0 + r], &acc[r], sv__row_scale(p, i0 + r));
        }
    }
}

/* The keys of the block [j0, j0 + bk) row i0 + r sees, relative to j0:
 * [lo[r], hi[r]) (causal and window, sv_spec_row_keys); 1 if any row of
 * the tile sees one. */
static int tile_spans(const plan *p, size_t i0, size_t m, size_t j0, size_t bk, size_t *lo,
                      size_t *hi)
{
    int any = 0;
    for (size_t r = 0; r < m; r++) {
        size_t a, b;
        sv_spec_row_keys(p->spec, i0 + r, &a, &b);
        a = a > j0 ? a - j0 : 0;
        b = b > j0 ? b - j0 : 0;
        lo[r] = a < bk ? a : bk;
        hi[r] = b < bk ? b : bk;
        any |= hi[r] > lo[r];
    }
    return any;
}

/* A source mask within each row's [lo, hi): the block's scores get M / c
 * (so that c times the raw logit is the model's masked, scaled logit) or
 * -inf where the key is excluded, and each row's seen scores, packed in
 * key order into one buffer, go through the row kernel: the statistics
 * are over the keys the row sees. lo moves up to the row's first seen key
 * of the block (the keys it passes are -inf: their exps are 0 either way);
 * a row that sees none of the block gets lo = hi (skipped, as outside the
 * causal/window interval). */
static void mask_tile(const plan *p, const workspace *ws, uint64_t trial, size_t i0, size_t m,
                      size_t j0, size_t *lo, size_t *hi, double *scores, sv_softmax_acc *acc,
                      sv_moments *mo, size_t me)
{
    const size_t kb = p->kb;
    const double c = p->spec->scale;
    double *buf = ws->mrow + me * kb;
    for (size_t r = 0; r < m; r++) {
        if (hi[r] <= lo[r])
            continue;
        double *s = scores + r * kb;
        p->src->mask(p->src, trial, i0 + r, j0 + lo[r], hi[r] - lo[r], buf);
        size_t n = 0, first = hi[r]; /* n <= j - lo: packing never overwrites an unread entry */
        for (size_t j = lo[r]; j < hi[r]; j++) {
            const double add = buf[j - lo[r]];
            if (add == -INFINITY) {
                s[j] = -INFINITY;
            } else {
                s[j] += add / c;
                first = n == 0 ? j : first;
                buf[n++] = s[j];
            }
        }
        lo[r] = first; /* hi when the row sees none of the block */
        if (n == 0)
            continue;
        (void)sv_softmax_acc_rows(buf, 1, n, n, c, &acc[r], &mo[r]);
        if (p->taps.hist_bins > 0)
            sv__rowpass_hist(p, buf, n, &acc[r]);
    }
}

void sv__rowpass_tile(const plan *p, const workspace *ws, uint64_t trial, size_t i0, size_t m,
                      size_t j0, size_t bk, size_t me)
{
    const int full = !p->spec->causal && p->spec->window == 0;
    const size_t kb = p->kb;
    size_t lo[SV_TILE_ROWS], hi[SV_TILE_ROWS]; /* keys of this block row r sees */
    if (!tile_spans(p, i0, m, j0, bk, lo, hi) && j0 > 0)
        return; /* no row of the tile sees a key of the block */
    double *qtile = ws->qtile + me * p->tm * p->spec->d_k;
    double *scores = ws->scores + me * p->tm * kb;
    sv_softmax_acc *acc = ws->acc + me * p->tm;
    sv_moments *mo = ws->mo + me * p->tm;
    tile_rows(p, ws, trial, i0, m, j0, qtile, me);
    /* A short last key block is zero-padded: the shape never changes. */
    sv__tile_product(p, qtile, ws->k, scores);
    if (p->src->mask) {
        mask_tile(p, ws, trial, i0, m, j0, lo, hi, scores, acc, mo, me);
    } else if (full) {
        /* Status unread: rows of bk >= 1 keys, ld kb >= bk; a non-finite
         * score shows as a NaN statistic, which the trial reports. Every
         * row sees n_k keys: one multiplier, also with scale_logn. */
        (void)sv_softmax_acc_rows(scores, m, bk, kb, sv__row_scale(p, i0), acc, mo);
    } else {
        for (size_t r = 0; r < m; r++)
            if (hi[r] > lo[r])
                (void)sv_softmax_acc_rows(scores + r * kb + lo[r], 1, hi[r] - lo[r], kb,
                                          sv__row_scale(p, i0 + r), &acc[r], &mo[r]);
    }
    if (p->taps.hist_bins > 0 && !p->src->mask)
        for (size_t r = 0; r < m; r++)
            if (hi[r] > lo[r])
                sv__rowpass_hist(p, scores + r * kb + lo[r], hi[r] - lo[r], &acc[r]);
    /* Key j = i shares something with query i and lies in this block:
     * keep S_ii (every row sees its own key under causal and a window). */
    if (p->src->related_diag)
        for (size_t r = 0; r < m; r++)
            if (i0 + r >= j0 && i0 + r < j0 + bk)
                ws->planted[i0 + r] = scores[r * kb + (i0 + r - j0)];
    /* The sink: the score on the first key the row sees (key 0, or the
     * first one a window or mask leaves), which lies in the row's first
     * block with a visible key: the first block, or a later one while the
     * row's state is still empty (merge_rows, below, fills it). */
    for (size_t r = 0; r < m; r++)
        if (hi[r] > lo[r] && (j0 == 0 || ws->row_mo[i0 + r].n == 0))
            ws->sink[i0 + r] = scores[r * kb + lo[r]];
    if (p->dv > 0)
        sv__tile_outputs(p, ws, i0, m, j0, scores, acc, lo, hi, me);
    merge_rows(p, ws, i0, m, j0, lo, hi, acc, mo);
}
