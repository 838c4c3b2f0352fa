/* Rows into a trial: the per-row state (moments, softmax sums, planted
 * logits, entries of Q and K, outputs) folded in blocks of SV_FOLD_ROWS
 * rows, each block in row order from empty, the blocks then left to right
 * (rowfold.h): the same code for the one-trial path, the grouped path of
 * tiny trials and the merge of row shards, so all give the same bits. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "plan.h"
#include "sdpa_var/rowfold.h"
#include "sdpa_var/theory.h"

/* A fold of rows: the same bits for any thread count or block size. */
typedef struct trial_acc {
    uint64_t rows;       /* rows folded */
    uint64_t seen;       /* rows seeing at least one key: those of every mean over rows */
    sv_moments mo, q, k; /* the scores; the entries of Q and of K (K: the
                            first block of a run carries them) */
    ksum h[2], mw[2], jt[2], jf[2], ek[2], pl_logit, pl_w[2], p2[2], sink[2], hn[2];
    sv_moments out[2]; /* entries of O, raw and scaled */
    sv_moments smo;    /* scale_logn: the scaled logits c_i S_ij (not in a
                          sv_rowfold: row shards refuse scale_logn) */
    double hmin[2], hmax[2], maxabs, maxlogit;
    size_t n_planted;
    size_t n_hn;   /* rows seeing >= 2 keys: those of the normalised entropy */
    int plain;     /* few rows: plain sums are as exact, and cheaper */
    unsigned skip; /* sv_taps.skip: groups left uncomputed */
} trial_acc;

/* Rows up to which a trial's means over rows are plain sums: the rounding
 * of a dozen additions is far below what any statistic here resolves. */
#define SV_PLAIN_ROWS 16u

static void acc_add(const trial_acc *t, ksum *k, double x)
{
    if (t->plain)
        k->s += x;
    else
        ksum_add(k, x);
}

static void trial_init(trial_acc *t, const sv_spec *s, unsigned skip)
{
    *t = (trial_acc){.hmin = {INFINITY, INFINITY},
                     .hmax = {-INFINITY, -INFINITY},
                     .maxlogit = -INFINITY,
                     .plain = s->n_q <= SV_PLAIN_ROWS,
                     .skip = skip};
}

/* The compensated sums of a fold, in the order they are stored. */
#define ACC_KSUMS 19
static void acc_ksums(trial_acc *t, ksum *k[ACC_KSUMS])
{
    ksum *all[ACC_KSUMS] = {&t->h[0],     &t->h[1],    &t->mw[0],   &t->mw[1], &t->jt[0],
                            &t->jt[1],    &t->jf[0],   &t->jf[1],   &t->ek[0], &t->ek[1],
                            &t->pl_logit, &t->pl_w[0], &t->pl_w[1], &t->p2[0], &t->p2[1],
                            &t->sink[0],  &t->sink[1], &t->hn[0],   &t->hn[1]};
    memcpy(k, all, sizeof all);
}

/* Block b (a fold of rows) after a (the blocks before it): a = a + b. */
static void acc_combine(trial_acc *a, const trial_acc *b)
{
    if (b->rows == 0)
        return;
    if (a->rows == 0) { /* exactly b: one block gives the bits of no blocks */
        const sv_moments k = a->k;
        *a = *b;
        if (k.n)
            a->k = k;
        return;
    }
    a->rows += b->rows;
    /* Statuses unread: counts far below 2^64. */
    (void)sv_moments_merge(&a->mo, &b->mo);
    (void)sv_moments_merge(&a->q, &b->q);
    (void)sv_moments_merge(&a->smo, &b->smo);
    if (a->k.n == 0)
        a->k = b->k;
    for (int c = 0; c < 2; c++) {
        (void)sv_moments_merge(&a->out[c], &b->out[c]);
        a->hmin[c] = fmin(a->hmin[c], b->hmin[c]);
        a->hmax[c] = fmax(a->hmax[c], b->hmax[c]);
    }
    a->maxabs = fmax(a->maxabs, b->maxabs);
    a->maxlogit = fmax(a->maxlogit, b->maxlogit);
    a->seen += b->seen;
    a->n_planted += b->n_planted;
    a->n_hn += b->n_hn;
    ksum *ka[ACC_KSUMS], *kb[ACC_KSUMS];
    acc_ksums(a, ka);
    acc_ksums((trial_acc *)b, kb); /* read only */
    for (int i = 0; i < ACC_KSUMS; i++) {
        if (a->plain) {
            ka[i]->s += kb[i]->s;
        } else {
            ksum_add(ka[i], kb[i]->s);
            ka[i]->c += kb[i]->c;
        }
    }
}

/* A fold as plain numbers (rowfold.h), and back. */
static void acc_pack(trial_acc *t, sv_rowfold *f)
{
    const sv_moments *m[5] = {&t->mo, &t->q, &t->k, &t->out[0], &t->out[1]};
    size_t j = 0;
    for (int i = 0; i < 5; i++) {
        f->count[i] = m[i]->n;
        f->sum[j++] = m[i]->mean;
        f->sum[j++] = m[i]->m2;
    }
    f->count[5] = t->rows;
    f->count[6] = t->n_planted;
    f->count[7] = t->n_hn;
    f->count[8] = t->seen;
    ksum *k[ACC_KSUMS];
    acc_ksums(t, k);
    for (int i = 0; i < ACC_KSUMS; i++) {
        f->sum[j++] = k[i]->s;
        f->sum[j++] = k[i]->c;
    }
    const double ext[6] = {t->hmin[0], t->hmin[1], t->hmax[0], t->hmax[1], t->maxabs, t->maxlogit};
    memcpy(f->sum + j, ext, sizeof ext);
}

static void acc_unpack(const sv_rowfold *f, const sv_spec *s, trial_acc *t)
{
    trial_init(t, s, 0);
    sv_moments *m[5] = {&t->mo, &t->q, &t->k, &t->out[0], &t->out[1]};
    size_t j = 0;
    for (int i = 0; i < 5; i++) {
        m[i]->n = f->count[i];
        m[i]->mean = f->sum[j++];
        m[i]->m2 = f->sum[j++];
    }
    t->rows = f->count[5];
    t->n_planted = (size_t)f->count[6];
    t->n_hn = (size_t)f->count[7];
    t->seen = f->count[8];
    ksum *k[ACC_KSUMS];
    acc_ksums(t, k);
    for (int i = 0; i < ACC_KSUMS; i++) {
        k[i]->s = f->sum[j++];
        k[i]->c = f->sum[j++];
    }
    t->hmin[0] = f->sum[j];
    t->hmin[1] = f->sum[j + 1];
    t->hmax[0] = f->sum[j + 2];
    t->hmax[1] = f->sum[j + 3];
    t->maxabs = f->sum[j + 4];
    t->maxlogit = f->sum[j + 5];
}

/* Row i's entropy over ln(keys it sees) (its moments' count: n_k, or
 * min(i + 1, n_k) under causal, its window's keys), for rows that see at
 * least 2 keys; the sink weight, exp(c (S_ia - max)) / Z with Z = 1 + r,
 * a the first key the row sees (rowpass.c), c the row's multiplier. */
static void trial_add_norm(const plan *p, trial_acc *t, size_t seen, double c,
                           const sv_softmax_acc *sm, const sv_softmax_stats *raw,
                           const sv_softmax_stats *sc, double sink)
{
    const double t0 = sink - sm->max;
    /* Key 0 the row's top (often, with few keys): exp(0) is 1, no call. */
    if (!(t->skip & SV_SKIP_SINK)) {
        acc_add(t, &t->sink[0], (t0 == 0.0 ? 1.0 : exp(t0)) / (1.0 + sm->r[0]));
        acc_add(t, &t->sink[1], (t0 == 0.0 ? 1.0 : exp(c * t0)) / (1.0 + sm->r[1]));
    }
    if (seen < 2 || (t->skip & SV_SKIP_ENTROPY_RANGE))
        return;
    const double ln_seen = seen == p->spec->n_k ? p->ln_nk : log((double)seen);
    acc_add(t, &t->hn[0], raw->entropy / ln_seen);
    acc_add(t, &t->hn[1], sc->entropy / ln_seen);
    t->n_hn++;
}

/* Row i's moments {n, mean, M2} as those of c_i S: {n, c_i mean,
 * c_i^2 M2}, c_i = sv_spec_row_scale (0 for a row of one key, whose
 * logit c_i S_i0 is 0), merged into the scaled moments in row order. */
static void add_scaled(const plan *p, trial_acc *t, size_t i, const sv_moments *mo)
{
    const double c = sv_spec_row_scale(p->spec, i);
    const sv_moments m = {mo->n, c * mo->mean, c * c * mo->m2};
    (void)sv_moments_merge(&t->smo, &m); /* counts far below 2^64 */
}

/* Adds rows row0 .. row0 + n - 1 with moments mo[i], softmax sums sm[i],
 * statistics raw[i], sc[i], planted logits planted[i] and scores on the
 * first key each row sees sink[i]. */
static void trial_add(const plan *p, trial_acc *t, size_t row0, const sv_moments *mo,
                      const sv_softmax_acc *sm, const sv_softmax_stats *raw,
                      const sv_softmax_stats *sc, const double *planted, const double *sink,
                      size_t n)
{
    const sv_spec *s = p->spec;
    const size_t n_planted = !p->src->related_diag ? 0 : s->n_q < s->n_k ? s->n_q : s->n_k;
    const unsigned skip = t->skip;
    t->rows += n;
    for (size_t i = 0; i < n; i++) {
        if (mo[i].n == 0)
            continue; /* a row that sees no key: counted in rows_empty */
        const double scale = sv__row_scale(p, row0 + i);
        t->seen++;
        if (row0 + i < n_planted) {
            /* p = exp(scale (S_ii - max)) / Z, Z = 1 + r. */
            const double t0 = planted[i] - sm[i].max;
            acc_add(t, &t->pl_logit, planted[i]);
            acc_add(t, &t->pl_w[0], exp(t0) / (1.0 + sm[i].r[0]));
            acc_add(t, &t->pl_w[1], exp(scale * t0) / (1.0 + sm[i].r[1]));
            t->n_planted++;
        }
        (void)sv_moments_merge(&t->mo, &mo[i]); /* counts far below 2^64 */
        if (s->scale_logn)
            add_scaled(p, t, row0 + i, &mo[i]);
        const sv_softmax_stats *st[2] = {&raw[i], &sc[i]};
        for (int c = 0; c < 2; c++) {
            acc_add(t, &t->h[c], st[c]->entropy);
            acc_add(t, &t->mw[c], st[c]->max_weight);
            acc_add(t, &t->jt[c], st[c]->jac_trace);
            acc_add(t, &t->ek[c], st[c]->eff_keys);
            if (!(skip & SV_SKIP_SUM_P2))
                acc_add(t, &t->p2[c], 1.0 - st[c]->jac_trace);
            if (!(skip & SV_SKIP_JAC_FROB))
                acc_add(t, &t->jf[c], st[c]->jac_frob);
            if (!(skip & SV_SKIP_ENTROPY_RANGE)) {
                t->hmin[c] = sv__fmin(t->hmin[c], st[c]->entropy);
                t->hmax[c] = sv__fmax(t->hmax[c], st[c]->entropy);
            }
        }
        if ((skip & (SV_SKIP_SINK | SV_SKIP_ENTROPY_RANGE)) !=
            (SV_SKIP_SINK | SV_SKIP_ENTROPY_RANGE))
            trial_add_norm(p, t, (size_t)mo[i].n, scale, &sm[i], &raw[i], &sc[i], sink[i]);
        if (!(skip & SV_SKIP_LOGITS)) {
            t->maxabs = sv__fmax(t->maxabs, sv__fmax(fabs(sm[i].max), fabs(sm[i].min)));
            t->maxlogit = sv__fmax(t->maxlogit, sm[i].max);
        }
    }
}

/* Entries (moments of rows of Q or K) merged in row order. */
static void add_entries(sv_moments *acc, const sv_moments *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        (void)sv_moments_merge(acc, &m[i]); /* counts far below 2^64 */
}

/* Mean of O^2 (V has mean 0, so this is the known-mean variance): given
 * the weights, E[O_il^2] = sum_j p_ij^2 exactly. The sample variance
 * would also remove the spread of the rows' means, which is not small
 * when rows share their top keys (d_k = 1). */
static double out_var(const sv_spec *s, const sv_moments *o)
{
    const double nn = (double)o->n, om = o->mean;
    return s->values && nn > 0 ? (o->m2 + nn * om * om) / nn : NAN;
}

/* The statistics of the SV_SKIP_* groups, NAN for those in t->skip. */
static void trial_finish_extra(double mu, const trial_acc *t, sv_trial_stats *out)
{
    const size_t nq = (size_t)t->seen;
    const unsigned skip = t->skip;
    /* Known mean: sum (S - mu)^2 = M2 + N (mean - mu)^2, mu the theory's
     * E[S] over the visible scores (planted ones included); NAN if none. */
    const double n = (double)t->mo.n;
    const int var = !(skip & SV_SKIP_VARIANCE), frob = !(skip & SV_SKIP_JAC_FROB);
    const int range = !(skip & SV_SKIP_ENTROPY_RANGE), logits = !(skip & SV_SKIP_LOGITS);
    const int p2 = !(skip & SV_SKIP_SUM_P2), sink = !(skip & SV_SKIP_SINK);
    out->raw_var_known_mean =
        var ? (t->mo.m2 + n * (t->mo.mean - mu) * (t->mo.mean - mu)) / n : NAN;
    out->raw_var_ddof0 = var ? sv_moments_variance(&t->mo, 0) : NAN;
    out->raw_var_ddof1 = var ? sv_moments_variance(&t->mo, 1) : NAN;
    out->raw_jac_frob = frob ? ksum_mean(&t->jf[0], nq) : NAN;
    out->scaled_jac_frob = frob ? ksum_mean(&t->jf[1], nq) : NAN;
    const int rows = range && t->seen; /* no row seen: no extremes (not +-inf) */
    out->raw_entropy_min = rows ? t->hmin[0] : NAN;
    out->raw_entropy_max = rows ? t->hmax[0] : NAN;
    out->scaled_entropy_min = rows ? t->hmin[1] : NAN;
    out->scaled_entropy_max = rows ? t->hmax[1] : NAN;
    out->raw_entropy_norm = range && t->n_hn ? ksum_mean(&t->hn[0], t->n_hn) : NAN;
    out->scaled_entropy_norm = range && t->n_hn ? ksum_mean(&t->hn[1], t->n_hn) : NAN;
    out->raw_max_abs_logit = logits && t->mo.n ? t->maxabs : NAN; /* none seen: no max */
    out->raw_max_logit = logits && t->mo.n ? t->maxlogit : NAN;
    out->raw_sum_p2 = p2 ? ksum_mean(&t->p2[0], nq) : NAN;
    out->scaled_sum_p2 = p2 ? ksum_mean(&t->p2[1], nq) : NAN;
    out->raw_sink_weight = sink ? ksum_mean(&t->sink[0], nq) : NAN;
    out->scaled_sink_weight = sink ? ksum_mean(&t->sink[1], nq) : NAN;
}

/* mu: sv_theory_mean(s), which a plan keeps (a call per trial cost more
 * than the rest of a tiny trial's known-mean variance). */
static void trial_finish(const sv_spec *s, double mu, const trial_acc *t, sv_trial_stats *out)
{
    const size_t nq = (size_t)t->seen; /* the rows that see a key: means over rows are theirs */
    const double c = s->scale;
    /* No score seen (every row masked): the mean of nothing, NAN as the
     * variance is, not sv_moments' 0 of the empty sample. */
    out->raw_mean = t->mo.n ? t->mo.mean : NAN;
    out->raw_var = sv_moments_variance(&t->mo, s->ddof);
    /* One multiplier: c mean and c^2 var; per row (scale_logn): the
     * pooled moments of the c_i S_ij the softmax saw. */
    out->scaled_mean = s->scale_logn ? (t->smo.n ? t->smo.mean : NAN) : out->raw_mean * c;
    out->scaled_var =
        s->scale_logn ? sv_moments_variance(&t->smo, s->ddof) : out->raw_var * s->scale2;
    out->raw_entropy = ksum_mean(&t->h[0], nq);
    out->scaled_entropy = ksum_mean(&t->h[1], nq);
    out->raw_max_weight = ksum_mean(&t->mw[0], nq);
    out->scaled_max_weight = ksum_mean(&t->mw[1], nq);
    out->raw_jac_trace = ksum_mean(&t->jt[0], nq);
    out->scaled_jac_trace = ksum_mean(&t->jt[1], nq);
    out->raw_eff_keys = ksum_mean(&t->ek[0], nq);
    out->scaled_eff_keys = ksum_mean(&t->ek[1], nq);
    trial_finish_extra(mu, t, out);
    out->raw_diag_logit = t->n_planted ? ksum_mean(&t->pl_logit, t->n_planted) : NAN;
    out->raw_diag_weight = t->n_planted ? ksum_mean(&t->pl_w[0], t->n_planted) : NAN;
    out->scaled_diag_weight = t->n_planted ? ksum_mean(&t->pl_w[1], t->n_planted) : NAN;
    out->q_var = sv_moments_variance(&t->q, 0);
    out->k_var = sv_moments_variance(&t->k, 0);
    out->raw_out_var = out_var(s, &t->out[0]);
    out->scaled_out_var = out_var(s, &t->out[1]);
    /* The gradient statistics: sv__grad_trial's, when it runs. */
    out->raw_grad_logits2 = out->scaled_grad_logits2 = NAN;
    out->raw_grad_logits_theory2 = out->scaled_grad_logits_theory2 = NAN;
    out->raw_grad_keys = out->scaled_grad_keys = NAN;
    out->raw_grad_q2 = out->scaled_grad_q2 = out->raw_grad_k2 = out->scaled_grad_k2 = NAN;
    out->q_mean = t->q.n ? t->q.mean : NAN;
    out->k_mean = t->k.n ? t->k.mean : NAN;
    out->rows_empty = (double)(s->n_q - t->seen);
}

void sv__trial_from_rows(const plan *p, const sv_moments *row_mo, const sv_softmax_acc *row_sm,
                         const sv_softmax_stats *raw, const sv_softmax_stats *sc,
                         const double *planted, const double *sink, const sv_moments *q_mo,
                         const sv_moments *k_mo, sv_trial_stats *out)
{
    /* Tiny trials: n_q <= SV_TILE_ROWS, one block of the fold. */
    trial_acc t;
    trial_init(&t, p->spec, p->taps.skip);
    trial_add(p, &t, 0, row_mo, row_sm, raw, sc, planted, sink, p->spec->n_q);
    if (p->src->measure_entries) { /* else every row's moments are empty */
        add_entries(&t.q, q_mo, p->spec->n_q);
        add_entries(&t.k, k_mo, p->spec->n_k);
    }
    trial_finish(p->spec, p->theory_mean, &t, out);
}

/* --values: O_i = o_i / Z_i for rows i0 .. i0 + cnt - 1; their entries'
 * moments, rows in order. */
static void add_outputs(const plan *p, const workspace *ws, trial_acc *t, size_t i0, size_t cnt)
{
    const size_t dv = p->dv;
    for (size_t i = 0; i < cnt; i++) {
        if (ws->row_mo[i0 + i].n == 0)
            continue; /* no key: no output */
        double *o = ws->o + (i0 + i) * 2 * dv;
        for (int k = 0; k < 2; k++) {
            const double z = 1.0 + ws->row_sm[i0 + i].r[k];
            for (size_t l = 0; l < dv; l++)
                o[k * dv + l] /= z;
            sv_moments om;
            (void)sv_moments_of(o + k * dv, dv, &om);
            (void)sv_moments_merge(&t->out[k], &om); /* counts far below 2^64 */
        }
    }
}

/* The per-row tap: each row's entropy and max weight added to row_sums. */
static void add_row_sums(const plan *p, const workspace *ws, const sv_softmax_stats *st, size_t i0,
                         size_t cnt)
{
    for (size_t i = 0; i < cnt; i++) {
        if (ws->row_mo[i0 + i].n == 0)
            continue; /* no key: nothing to add */
        double *rs = p->taps.row_sums + (i0 + i) * SV_ROW_FIELDS;
        rs[0] += st[i].entropy;
        rs[1] += st[cnt + i].entropy;
        rs[2] += st[i].max_weight;
        rs[3] += st[cnt + i].max_weight;
    }
}

/* Softmax statistics of rows [r0, r0 + cnt) into ws->st (raw) and
 * ws->st + cnt (scaled): one call, or with scale_logn one per run of rows
 * with the same multiplier (a row's bits do not depend on the others of
 * its call: sv_softmax_acc_stats_rows). */
static void row_stats(const plan *p, const workspace *ws, size_t r0, size_t cnt)
{
    for (size_t a = 0, b; a < cnt; a = b) {
        const double c = sv__row_scale(p, r0 + a);
        for (b = a + 1; p->spec->scale_logn && b < cnt && sv__row_scale(p, r0 + b) == c; b++)
            ;
        if (!p->spec->scale_logn)
            b = cnt;
        /* plan's arrays, resolved scale */
        (void)sv__softmax_acc_stats_rows_frob(ws->row_sm + r0 + a, b - a, c,
                                              !(p->taps.skip & SV_SKIP_JAC_FROB), ws->st + a,
                                              ws->st + cnt + a);
    }
}

/* The fold of rows [i0, i1) (within one block of the fold), from empty:
 * softmax statistics of SV_STATS_ROWS rows at a time, then the rows in
 * order. */
static void fold_rows(const plan *p, const workspace *ws, size_t i0, size_t i1, trial_acc *t)
{
    trial_init(t, p->spec, p->taps.skip);
    for (size_t r0 = i0; r0 < i1; r0 += SV_STATS_ROWS) {
        const size_t cnt = i1 - r0 < SV_STATS_ROWS ? i1 - r0 : SV_STATS_ROWS;
        row_stats(p, ws, r0, cnt);
        trial_add(p, t, r0, ws->row_mo + r0, ws->row_sm + r0, ws->st, ws->st + cnt,
                  ws->planted + r0, ws->sink + r0, cnt);
        if (p->dv > 0)
            add_outputs(p, ws, t, r0, cnt);
        if (p->taps.row_sums)
            add_row_sums(p, ws, ws->st, r0, cnt);
    }
    add_entries(&t->q, ws->q_mo + i0, i1 - i0);
}

void sv__trial_reduce(const plan *p, const workspace *ws, sv_trial_stats *out)
{
    const size_t nq = p->spec->n_q;
    trial_acc t, b;
    trial_init(&t, p->spec, p->taps.skip);
    for (size_t i0 = 0; i0 < nq; i0 += SV_FOLD_ROWS) {
        fold_rows(p, ws, i0, nq - i0 < SV_FOLD_ROWS ? nq : i0 + SV_FOLD_ROWS, &b);
        acc_combine(&t, &b);
    }
    add_entries(&t.k, ws->k_mo, p->spec->n_k);
    trial_finish(p->spec, p->theory_mean, &t, out);
}

void sv__trial_folds(const plan *p, const workspace *ws, sv_rowfold *out)
{
    const size_t r1 = p->row1;
    size_t b = 0;
    for (size_t i0 = p->row0; i0 < r1; i0 += SV_FOLD_ROWS, b++) {
        trial_acc t;
        fold_rows(p, ws, i0, r1 - i0 < SV_FOLD_ROWS ? r1 : i0 + SV_FOLD_ROWS, &t);
        if (b == 0) /* K's entries, once per run: with its first block */
            add_entries(&t.k, ws->k_mo, p->spec->n_k);
        acc_pack(&t, &out[b]);
    }
}

size_t sv_rowfold_blocks(size_t row_begin, size_t row_end)
{
    if (row_begin >= row_end)
        return 0;
    return (row_end - 1) / SV_FOLD_ROWS + 1 - row_begin / SV_FOLD_ROWS;
}

sv_status sv_rowfold_check(const sv_spec *spec, size_t row_begin, size_t row_end)
{
    if (!spec || row_begin >= row_end || row_end > spec->n_q || row_begin % SV_FOLD_ROWS != 0 ||
        (row_end % SV_FOLD_ROWS != 0 && row_end != spec->n_q) || spec->grad ||
        sv_spec_check_use(spec, SV_USE_ROW_SHARD, NULL, NULL) != SV_OK)
        return SV_EINVAL;
    return SV_OK;
}

sv_status sv_rowfold_finish(const sv_spec *spec, const sv_rowfold *blocks, size_t nb,
                            sv_trial_stats *out)
{
    if (!spec || !blocks || !out || sv_spec_check(spec) != SV_OK || spec->scale_logn ||
        nb != sv_rowfold_blocks(0, spec->n_q))
        return SV_EINVAL;
    trial_acc t, b;
    trial_init(&t, spec, 0);
    for (size_t i = 0; i < nb; i++) {
        acc_unpack(&blocks[i], spec, &b);
        acc_combine(&t, &b);
    }
    if (t.rows != spec->n_q)
        return SV_EMISMATCH;
    trial_finish(spec, sv_theory_mean(spec), &t, out);
    return SV_OK;
}

/* The named sums' indices (rowfold.h SV_TRIAL_SUMS_MAP). */
enum {
#define SV_SUM_INDEX_(name, kind) SUM_##name,
    SV_TRIAL_SUMS_MAP(SV_SUM_INDEX_)
#undef SV_SUM_INDEX_
};

/* A COUNT of the sums: a whole number in [0, 2^53], else SV_EINVAL. */
static sv_status sum_count(const double *x, int i, uint64_t *out)
{
    if (!(x[i] >= 0.0 && x[i] <= 9007199254740992.0 && x[i] == floor(x[i])))
        return SV_EINVAL;
    *out = (uint64_t)x[i];
    return SV_OK;
}

/* Whether a trial's counts are those of some mask of @p s: rows_seen <=
 * n_q rows, norm of them seeing 2 keys or more, each 1 to n_k scores
 * (so no score without a row that sees it, nor a row seeing none), no
 * score or more than ddof (sv_strided_check's rule for a mask: raw_var
 * NAN exactly when nothing was seen, the trial partial_fold.c leaves
 * out), entries at most Q's and K's. */
static int counts_fit(const sv_spec *s, const trial_acc *t, uint64_t norm)
{
    const double seen = (double)t->seen, scores = (double)t->mo.n; /* all < 2^53: exact */
    return t->seen <= s->n_q && norm <= t->seen && scores >= seen + (double)norm &&
           (t->mo.n == 0 || t->mo.n > s->ddof) && scores <= seen * (double)s->n_k &&
           (double)t->q.n <= (double)s->n_q * (double)s->d_k &&
           (double)t->k.n <= (double)s->n_k * (double)s->d_k;
}

/* The fold of a trial of @p s from its named sums @p x. */
static sv_status acc_of_sums(const sv_spec *s, const double *x, trial_acc *t)
{
    trial_init(t, s, 0);
    uint64_t norm = 0;
    if (sum_count(x, SUM_rows_seen, &t->seen) || sum_count(x, SUM_scores, &t->mo.n) ||
        sum_count(x, SUM_q_entries, &t->q.n) || sum_count(x, SUM_k_entries, &t->k.n) ||
        sum_count(x, SUM_rows_norm, &norm) || !counts_fit(s, t, norm))
        return SV_EINVAL;
    t->rows = s->n_q;
    t->n_hn = (size_t)norm;
    t->mo.mean = x[SUM_score_mean];
    t->mo.m2 = x[SUM_score_m2];
    t->q.mean = x[SUM_q_mean];
    t->q.m2 = x[SUM_q_m2];
    t->k.mean = x[SUM_k_mean];
    t->k.m2 = x[SUM_k_m2];
    for (int c = 0; c < 2; c++) { /* a scaled sum follows its raw one (min, max: two on) */
        t->h[c].s = x[SUM_raw_entropy + c];
        t->mw[c].s = x[SUM_raw_max_weight + c];
        t->jt[c].s = x[SUM_raw_jac_trace + c];
        t->jf[c].s = x[SUM_raw_jac_frob + c];
        t->ek[c].s = x[SUM_raw_eff_keys + c];
        t->p2[c].s = x[SUM_raw_sum_p2 + c];
        t->sink[c].s = x[SUM_raw_sink_weight + c];
        t->hn[c].s = x[SUM_raw_entropy_norm + c];
        t->hmin[c] = x[SUM_raw_entropy_min + 2 * c];
        t->hmax[c] = x[SUM_raw_entropy_max + 2 * c];
    }
    t->maxabs = x[SUM_raw_max_abs_logit];
    t->maxlogit = x[SUM_raw_max_logit];
    return SV_OK;
}

const char *sv_trial_sum_name(size_t i)
{
    static const char *const names[] = {
#define SV_SUM_NAME_(name, kind) #name,
        SV_TRIAL_SUMS_MAP(SV_SUM_NAME_)
#undef SV_SUM_NAME_
    };
    return i < sizeof names / sizeof names[0] ? names[i] : NULL;
}

sv_status sv_trial_sums_finish(const sv_spec *spec, const double *sums, size_t count,
                               sv_trial_stats *out)
{
    if (!spec || !sums || !out || sv_spec_check(spec) != SV_OK || spec->scale_logn)
        return SV_EINVAL;
    const double mu = sv_theory_mean(spec);
    for (size_t i = 0; i < count; i++) {
        trial_acc t;
        if (acc_of_sums(spec, sums + i * SV_TRIAL_SUMS, &t) != SV_OK)
            return SV_EINVAL;
        trial_finish(spec, mu, &t, &out[i]);
    }
    return SV_OK;
}

size_t sv_trial_field_count(void)
{
    return SV_TRIAL_FIELDS;
}

const char *sv_trial_field_name(size_t i)
{
    static const char *const names[] = {
#define SV_TRIAL_NAME_(name, reduce, number, skip) #name,
        SV_TRIAL_STATS_MAP(SV_TRIAL_NAME_)
#undef SV_TRIAL_NAME_
    };
    return i < sizeof names / sizeof names[0] ? names[i] : NULL;
}
