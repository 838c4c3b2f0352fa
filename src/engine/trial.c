/* Rows into a trial: the per-row state (moments, softmax sums, planted
 * logits, entries of Q and K, outputs) merged in row order into one
 * sv_trial_stats, the same code for the one-trial path and the grouped
 * path of tiny trials, so both give the same bits. */
#include <math.h>

#include "plan.h"
#include "sdpa_var/theory.h"

/* A trial's statistics, built from its rows in row order: the same bits for
 * any thread count or block size. */
typedef struct trial_acc {
    sv_moments mo, q, k; /* the scores; the entries of Q and of K */
    ksum h[2], mw[2], jt[2], jf[2], ek[2], pl_logit, pl_w[2], p2[2], sink[2], hn[2];
    sv_moments out[2]; /* entries of O, raw and scaled */
    double hmin[2], hmax[2], maxabs;
    size_t n_planted;
    size_t n_hn; /* rows seeing >= 2 keys: those of the normalised entropy */
    int plain;   /* few rows: plain sums are as exact, and cheaper */
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

static void trial_init(trial_acc *t, const plan *p)
{
    *t = (trial_acc){.hmin = {INFINITY, INFINITY},
                     .hmax = {-INFINITY, -INFINITY},
                     .plain = p->spec->n_q <= SV_PLAIN_ROWS};
}

/* Row i's entropy over ln(keys it sees) (n_k, or min(i + 1, n_k) under
 * causal), for rows that see at least 2 keys; the weight of key 0,
 * exp(c (S_i0 - max)) / Z with Z = 1 + r. */
static void trial_add_norm(const plan *p, trial_acc *t, size_t row, const sv_softmax_acc *sm,
                           const sv_softmax_stats *raw, const sv_softmax_stats *sc, double sink)
{
    const sv_spec *s = p->spec;
    const double t0 = sink - sm->max;
    acc_add(t, &t->sink[0], exp(t0) / (1.0 + sm->r[0]));
    acc_add(t, &t->sink[1], exp(s->scale * t0) / (1.0 + sm->r[1]));
    const size_t seen = s->causal && row + 1 < s->n_k ? row + 1 : s->n_k;
    if (seen < 2)
        return;
    const double ln_seen = log((double)seen);
    acc_add(t, &t->hn[0], raw->entropy / ln_seen);
    acc_add(t, &t->hn[1], sc->entropy / ln_seen);
    t->n_hn++;
}

/* Adds rows row0 .. row0 + n - 1 with moments mo[i], softmax sums sm[i],
 * statistics raw[i], sc[i], planted logits planted[i] and scores on key 0
 * sink[i]. */
static void trial_add(const plan *p, trial_acc *t, size_t row0, const sv_moments *mo,
                      const sv_softmax_acc *sm, const sv_softmax_stats *raw,
                      const sv_softmax_stats *sc, const double *planted, const double *sink,
                      size_t n)
{
    const sv_spec *s = p->spec;
    const size_t n_planted = !p->src->related_diag ? 0 : s->n_q < s->n_k ? s->n_q : s->n_k;
    const double scale = s->scale;
    for (size_t i = 0; i < n; i++) {
        if (row0 + i < n_planted) {
            /* p = exp(scale (S_ii - max)) / Z, Z = 1 + r. */
            const double t0 = planted[i] - sm[i].max;
            acc_add(t, &t->pl_logit, planted[i]);
            acc_add(t, &t->pl_w[0], exp(t0) / (1.0 + sm[i].r[0]));
            acc_add(t, &t->pl_w[1], exp(scale * t0) / (1.0 + sm[i].r[1]));
            t->n_planted++;
        }
        (void)sv_moments_merge(&t->mo, &mo[i]); /* counts far below 2^64 */
        const sv_softmax_stats *st[2] = {&raw[i], &sc[i]};
        for (int c = 0; c < 2; c++) {
            acc_add(t, &t->h[c], st[c]->entropy);
            acc_add(t, &t->mw[c], st[c]->max_weight);
            acc_add(t, &t->jt[c], st[c]->jac_trace);
            acc_add(t, &t->p2[c], 1.0 - st[c]->jac_trace);
            acc_add(t, &t->jf[c], st[c]->jac_frob);
            acc_add(t, &t->ek[c], st[c]->eff_keys);
            t->hmin[c] = fmin(t->hmin[c], st[c]->entropy);
            t->hmax[c] = fmax(t->hmax[c], st[c]->entropy);
        }
        trial_add_norm(p, t, row0 + i, &sm[i], &raw[i], &sc[i], sink[i]);
        t->maxabs = fmax(t->maxabs, fmax(fabs(sm[i].max), fabs(sm[i].min)));
    }
}

/* The entries of Q and K, row moments merged in row order. */
static void trial_add_entries(trial_acc *t, const sv_moments *q, size_t nq, const sv_moments *k,
                              size_t nk)
{
    for (size_t i = 0; i < nq; i++)
        (void)sv_moments_merge(&t->q, &q[i]); /* counts far below 2^64 */
    for (size_t j = 0; j < nk; j++)
        (void)sv_moments_merge(&t->k, &k[j]); /* counts far below 2^64 */
}

/* Mean of O^2 (V has mean 0, so this is the known-mean variance): given
 * the weights, E[O_il^2] = sum_j p_ij^2 exactly. The sample variance
 * would also remove the spread of the rows' means, which is not small
 * when rows share their top keys (d_k = 1). */
static double out_var(const plan *p, const sv_moments *o)
{
    const double nn = (double)o->n, om = o->mean;
    return p->dv > 0 && nn > 0 ? (o->m2 + nn * om * om) / nn : NAN;
}

static void trial_finish(const plan *p, const trial_acc *t, sv_trial_stats *out)
{
    const sv_spec *s = p->spec;
    const size_t nq = s->n_q;
    const double c = s->scale;
    out->raw_mean = t->mo.mean;
    out->raw_var = sv_moments_variance(&t->mo, s->ddof);
    out->scaled_mean = t->mo.mean * c;
    out->scaled_var = out->raw_var * s->scale2;
    out->raw_entropy = ksum_mean(&t->h[0], nq);
    out->scaled_entropy = ksum_mean(&t->h[1], nq);
    out->raw_max_weight = ksum_mean(&t->mw[0], nq);
    out->scaled_max_weight = ksum_mean(&t->mw[1], nq);
    out->raw_jac_trace = ksum_mean(&t->jt[0], nq);
    out->scaled_jac_trace = ksum_mean(&t->jt[1], nq);
    /* Known mean: sum (S - mu)^2 = M2 + N (mean - mu)^2, mu the theory's
     * E[S] over the visible scores (planted ones included); NAN if none. */
    const double mu = sv_theory_mean(s), n = (double)t->mo.n;
    out->raw_var_known_mean = (t->mo.m2 + n * (t->mo.mean - mu) * (t->mo.mean - mu)) / n;
    out->raw_var_ddof0 = sv_moments_variance(&t->mo, 0);
    out->raw_var_ddof1 = sv_moments_variance(&t->mo, 1);
    out->raw_jac_frob = ksum_mean(&t->jf[0], nq);
    out->scaled_jac_frob = ksum_mean(&t->jf[1], nq);
    out->raw_eff_keys = ksum_mean(&t->ek[0], nq);
    out->scaled_eff_keys = ksum_mean(&t->ek[1], nq);
    out->raw_entropy_min = t->hmin[0];
    out->raw_entropy_max = t->hmax[0];
    out->scaled_entropy_min = t->hmin[1];
    out->scaled_entropy_max = t->hmax[1];
    out->raw_max_abs_logit = t->maxabs;
    out->raw_diag_logit = t->n_planted ? ksum_mean(&t->pl_logit, t->n_planted) : NAN;
    out->raw_diag_weight = t->n_planted ? ksum_mean(&t->pl_w[0], t->n_planted) : NAN;
    out->scaled_diag_weight = t->n_planted ? ksum_mean(&t->pl_w[1], t->n_planted) : NAN;
    out->q_var = sv_moments_variance(&t->q, 0);
    out->k_var = sv_moments_variance(&t->k, 0);
    out->raw_out_var = out_var(p, &t->out[0]);
    out->scaled_out_var = out_var(p, &t->out[1]);
    out->raw_sum_p2 = ksum_mean(&t->p2[0], nq);
    out->scaled_sum_p2 = ksum_mean(&t->p2[1], nq);
    /* The gradient statistics: sv_grad_trial's, when it runs. */
    out->raw_grad_logits2 = out->scaled_grad_logits2 = NAN;
    out->raw_grad_logits_theory2 = out->scaled_grad_logits_theory2 = NAN;
    out->raw_grad_keys = out->scaled_grad_keys = NAN;
    out->raw_grad_q2 = out->scaled_grad_q2 = out->raw_grad_k2 = out->scaled_grad_k2 = NAN;
    out->q_mean = t->q.n ? t->q.mean : NAN;
    out->k_mean = t->k.n ? t->k.mean : NAN;
    out->raw_sink_weight = ksum_mean(&t->sink[0], nq);
    out->scaled_sink_weight = ksum_mean(&t->sink[1], nq);
    out->raw_entropy_norm = t->n_hn ? ksum_mean(&t->hn[0], t->n_hn) : NAN;
    out->scaled_entropy_norm = t->n_hn ? ksum_mean(&t->hn[1], t->n_hn) : NAN;
}

void sv_trial_from_rows(const plan *p, const sv_moments *row_mo, const sv_softmax_acc *row_sm,
                        const sv_softmax_stats *raw, const sv_softmax_stats *sc,
                        const double *planted, const double *sink, const sv_moments *q_mo,
                        const sv_moments *k_mo, sv_trial_stats *out)
{
    trial_acc t;
    trial_init(&t, p);
    trial_add(p, &t, 0, row_mo, row_sm, raw, sc, planted, sink, p->spec->n_q);
    trial_add_entries(&t, q_mo, p->spec->n_q, k_mo, p->spec->n_k);
    trial_finish(p, &t, out);
}

/* --values: O_i = o_i / Z_i for rows i0 .. i0 + cnt - 1; their entries'
 * moments, rows in order. */
static void add_outputs(const plan *p, const workspace *ws, trial_acc *t, size_t i0, size_t cnt)
{
    const size_t dv = p->dv;
    for (size_t i = 0; i < cnt; i++) {
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
static void add_row_sums(const plan *p, const sv_softmax_stats *st, size_t i0, size_t cnt)
{
    for (size_t i = 0; i < cnt; i++) {
        double *rs = p->taps.row_sums + (i0 + i) * SV_ROW_FIELDS;
        rs[0] += st[i].entropy;
        rs[1] += st[cnt + i].entropy;
        rs[2] += st[i].max_weight;
        rs[3] += st[cnt + i].max_weight;
    }
}

void sv_trial_reduce(const plan *p, const workspace *ws, sv_trial_stats *out)
{
    const size_t nq = p->spec->n_q;
    trial_acc t;
    trial_init(&t, p);
    /* The softmax statistics of SV_STATS_ROWS rows at a time, then the
     * rows in order. */
    for (size_t i0 = 0; i0 < nq; i0 += SV_STATS_ROWS) {
        const size_t cnt = nq - i0 < SV_STATS_ROWS ? nq - i0 : SV_STATS_ROWS;
        (void)sv_softmax_acc_stats_rows(ws->row_sm + i0, cnt, p->spec->scale, ws->st,
                                        ws->st + cnt); /* plan's arrays, resolved scale */
        trial_add(p, &t, i0, ws->row_mo + i0, ws->row_sm + i0, ws->st, ws->st + cnt,
                  ws->planted + i0, ws->sink + i0, cnt);
        if (p->dv > 0)
            add_outputs(p, ws, &t, i0, cnt);
        if (p->taps.row_sums)
            add_row_sums(p, ws->st, i0, cnt);
    }
    trial_add_entries(&t, ws->q_mo, nq, ws->k_mo, p->spec->n_k);
    trial_finish(p, &t, out);
}

size_t sv_trial_field_count(void)
{
    return SV_TRIAL_FIELDS;
}

const char *sv_trial_field_name(size_t i)
{
    static const char *const names[] = {
#define SV_TRIAL_NAME_(name, reduce, number) #name,
        SV_TRIAL_STATS_MAP(SV_TRIAL_NAME_)
#undef SV_TRIAL_NAME_
    };
    return i < sizeof names / sizeof names[0] ? names[i] : NULL;
}
