/* Partial results of a range of trials, mergeable bit for bit: sums per
 * block of SV_SUMMARY_BLOCK trials aligned on the absolute trial number,
 * each in trial order from 0, so that where a range was cut never shows
 * (partial.h). */
#include "sdpa_var/partial.h"
#include "partial_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "plan.h"
#include "sizes.h"

#define B ((uint64_t)SV_SUMMARY_BLOCK)
#define F SV_TRIAL_FIELDS

/* Trials among raw_var[0 .. n) that measured nothing. */
static uint64_t count_empty(const double *raw_var, uint64_t n)
{
    uint64_t e = 0;
    for (uint64_t i = 0; i < n; i++)
        e += isnan(raw_var[i]);
    return e;
}

/* The extremes (SV_TRIAL_STATS_MAP's MIN and MAX fields): their start,
 * two partials' merged, put into a mean (one trial's folded in:
 * partial_fold.c). */
/* sv__fmin, sv__fmax (plan.h): fmin and fmax, inline. */
#define MIN_(a, b) a = sv__fmin(a, b);
#define MAX_(a, b) a = sv__fmax(a, b);
#define MEAN_(a, b)

static sv_trial_extremes extremes_empty(void)
{
    sv_trial_extremes e;
#define START_MIN_(name) e.name = INFINITY;
#define START_MAX_(name) e.name = -INFINITY;
#define START_(name, reduce, number, skip) START_##reduce##_(name)
#define START_MEAN_(name)
    SV_TRIAL_STATS_MAP(START_)
    return e;
}

static void extremes_merge(sv_trial_extremes *a, const sv_trial_extremes *b)
{
#define MERGE_(name, reduce, number, skip) reduce##_(a->name, b->name)
    SV_TRIAL_STATS_MAP(MERGE_)
}

/* An extreme that no trial gave: fmin and fmax skip NaN, so a trial whose
 * MAYBE field is NaN (raw_max_logit of a trial whose rows all see nothing)
 * does not hide the others', and if every trial's is NaN it stays at its
 * start, which reads NaN. So do the fields sv_taps.skip leaves NaN in every
 * trial; no extreme a trial gives is its start (+inf for a min, -inf for a
 * max: entropies are finite, |logits| >= 0). */
static double extreme_or_nan(double e, double start)
{
    return e == start ? NAN : e;
}

/* The extremes into a mean (the other fields untouched); NAN into a
 * standard deviation (extremes have no spread). */
static void extremes_put(const sv_trial_extremes *e, sv_trial_stats *m)
{
#define PUT_(name, reduce, number, skip) PUT_##reduce##_(name)
#define PUT_MEAN_(name)
#define PUT_MIN_(name) m->name = extreme_or_nan(e->name, INFINITY);
#define PUT_MAX_(name) m->name = extreme_or_nan(e->name, -INFINITY);
    SV_TRIAL_STATS_MAP(PUT_)
}

static void extremes_no_spread(sv_trial_stats *s)
{
#define NAN_(name, reduce, number, skip) NAN_##reduce##_(name)
#define NAN_MEAN_(name)
#define NAN_MIN_(name) s->name = NAN;
#define NAN_MAX_(name) s->name = NAN;
    SV_TRIAL_STATS_MAP(NAN_)
}

#pragma omp declare reduction(extremes:sv_trial_extremes                                           \
                              : extremes_merge(&omp_out, &omp_in))                                 \
    initializer(omp_priv = omp_orig)

/* Trials before the first block boundary at or after p->first. */
static uint64_t lead_cap(const sv_partial *p)
{
    return p->first % B ? B - p->first % B : 0;
}

/* Blocks touched by the first n trials past the lead. */
static size_t blocks_for(const sv_partial *p, uint64_t n)
{
    const uint64_t h = lead_cap(p);
    return n > h ? (size_t)((n - h - 1) / B + 1) : 0;
}

/* Room for cap trials in every array; *p unchanged on failure. */
static sv_status reserve(sv_partial *p, uint64_t cap)
{
    if (cap <= p->cap)
        return SV_OK;
    size_t bytes, sums;
    if (cap > SIZE_MAX || !mul_ok((size_t)cap, sizeof(double), &bytes) ||
        !mul_ok(blocks_for(p, cap), F * sizeof(double), &sums))
        return SV_ERANGE;
    double *rv = sv__realloc(p->raw_var, bytes ? bytes : 1);
    if (rv)
        p->raw_var = rv;
    double *sv = sv__realloc(p->scaled_var, bytes ? bytes : 1);
    if (sv)
        p->scaled_var = sv;
    double *bs = sv__realloc(p->block_sum, sums ? sums : 1);
    if (bs)
        p->block_sum = bs;
    double *bw = sv__realloc(p->block_m2, sums ? 2 * sums : 1); /* 2 sums <= 2 cap F: no wrap */
    if (bw)
        p->block_m2 = bw;
    uint64_t *bu = sv__realloc(p->block_undef, sums ? sums / F : 1); /* a count a block */
    if (bu)
        p->block_undef = bu;
    const uint64_t hc = lead_cap(p); /* one call: the analyser then sees hc > 0 */
    if (!p->lead && hc > 0)
        p->lead = sv__malloc((size_t)hc * sizeof(sv_trial_stats));
    if (!rv || !sv || !bs || !bw || !bu || (lead_cap(p) > 0 && !p->lead))
        return SV_ENOMEM; /* grown arrays are kept: still valid, just larger */
    p->cap = cap;
    return SV_OK;
}

sv_status sv__partial_init(sv_partial *p, uint64_t first, uint64_t cap)
{
    if (!p)
        return SV_EINVAL;
    *p = (sv_partial){.first = first, .ext = extremes_empty()};
    if (first > UINT64_MAX - cap)
        return SV_ERANGE;
    sv_status st = reserve(p, cap > 0 ? cap : 1);
    if (st != SV_OK)
        sv__partial_release(p);
    return st;
}

sv_status sv_partial_create(uint64_t first, uint64_t cap, sv_partial **out)
{
    if (!out)
        return SV_EINVAL;
    *out = NULL;
    sv_partial *p = sv__malloc(sizeof *p);
    if (!p)
        return SV_ENOMEM;
    const sv_status st = sv__partial_init(p, first, cap);
    if (st != SV_OK)
        sv__free(p);
    else
        *out = p;
    return st;
}

uint64_t sv_partial_first(const sv_partial *p)
{
    return p ? p->first : 0;
}

uint64_t sv_partial_count(const sv_partial *p)
{
    return p ? p->n : 0;
}

/* Whole blocks, each summed in trial order into its own slot, in parallel
 * when there are more than 8; their variances to rv and sv (NULL: not). */
static void add_blocks(sv_partial *p, const sv_trial_stats *t, size_t nblocks, double *sums, int m2,
                       double *rv, double *sv)
{
    sv_trial_extremes e = p->ext;
    double *w = p->block_m2 + p->n_blocks * 2 * F;
    uint64_t *undef = p->block_undef + p->n_blocks;
    uint64_t last_empty = 0;
    memset(sums, 0, nblocks * F * sizeof(double));
    memset(w, 0, nblocks * 2 * F * sizeof(double));
#pragma omp parallel for schedule(static) reduction(extremes : e) if (nblocks > 8)
    for (size_t b = 0; b < nblocks; b++) {
        double *const vars[2] = {rv ? rv + b * B : NULL, sv ? sv + b * B : NULL};
        sv_left_out lo = {0, 0};
        sv__partial_fold(t + b * B, B, sums + b * F, w + b * 2 * F, 0, &lo, m2, rv ? vars : NULL,
                         &e);
        undef[b] = lo.undef;
        if (b + 1 == nblocks) /* one iteration writes it */
            last_empty = lo.empty;
    }
    p->ext = e;
    p->last_empty = last_empty;
}

/* The sums of count more trials (room reserved): the lead first, then the
 * block in progress, whole blocks, the start of the next; m2 as sv__partial_fold;
 * with copy, the trials' raw_var and scaled_var into p's arrays too. */
static void sum_trials(sv_partial *p, const sv_trial_stats *t, size_t count, int m2, int copy)
{
    const uint64_t h = lead_cap(p);
    double *const rv = p->raw_var + p->n, *const sv = p->scaled_var + p->n; /* t[0]'s */
    size_t i = 0;
#define VARS_(i) (copy ? (double *const[2]){rv + (i), sv + (i)} : NULL)
    if (p->n < h) {
        const size_t m = h - p->n < count ? (size_t)(h - p->n) : count;
        memcpy(p->lead + p->n, t, m * sizeof *t);
        double unused[F] = {0}, unused_w[2 * F] = {0};
        sv_left_out unused_lo = {0, 0};
        sv__partial_fold(t, m, unused, unused_w, 0, &unused_lo, 1, VARS_(0),
                         &p->ext); /* extremes */
        i = m;
    }
    uint64_t n = p->n + i;
    if (i < count && (n - h) % B != 0) { /* finish the block in progress */
        const size_t left = (size_t)(B - (n - h) % B);
        const size_t m = left < count - i ? left : count - i;
        sv_left_out lo = {p->last_empty, p->block_undef[p->n_blocks - 1]};
        sv__partial_fold(t + i, m, p->block_sum + (p->n_blocks - 1) * F,
                         p->block_m2 + (p->n_blocks - 1) * 2 * F, (n - h) % B, &lo, m2, VARS_(i),
                         &p->ext);
        p->last_empty = lo.empty;
        p->block_undef[p->n_blocks - 1] = lo.undef;
        i += m;
    }
    const size_t whole = (count - i) / B;
    if (whole > 0) {
        add_blocks(p, t + i, whole, p->block_sum + p->n_blocks * F, m2, copy ? rv + i : NULL,
                   copy ? sv + i : NULL);
        p->n_blocks += whole;
        i += whole * B;
    }
    if (i < count) { /* the start of the next block */
        double *s = p->block_sum + p->n_blocks * F, *w = p->block_m2 + p->n_blocks * 2 * F;
        memset(s, 0, F * sizeof(double));
        memset(w, 0, (size_t)2 * F * sizeof(double));
        sv_left_out lo = {0, 0};
        sv__partial_fold(t + i, count - i, s, w, 0, &lo, m2, VARS_(i), &p->ext);
        p->last_empty = lo.empty;
        p->block_undef[p->n_blocks] = lo.undef;
        p->n_blocks++;
    }
#undef VARS_
    p->n += count;
}

static sv_status add(sv_partial *p, const sv_trial_stats *t, size_t count, int m2)
{
    if (!p || (count > 0 && !t))
        return SV_EINVAL;
    if (count > UINT64_MAX - p->first - p->n)
        return SV_ERANGE;
    if (count == 0) /* t may be NULL: nothing to copy from it */
        return SV_OK;
    sv_status st = reserve(p, p->n + count);
    if (st != SV_OK)
        return st;
    sum_trials(p, t, count, m2, 1);
    return SV_OK;
}

sv_status sv_partial_add(sv_partial *p, const sv_trial_stats *t, size_t count)
{
    return add(p, t, count, 1);
}

sv_status sv_partial_add_means(sv_partial *p, const sv_trial_stats *t, size_t count)
{
    return add(p, t, count, 0);
}

sv_status sv_partial_merge(sv_partial *a, const sv_partial *b)
{
    if (!a || !b)
        return SV_EINVAL;
    if (a->first > UINT64_MAX - a->n || b->first != a->first + a->n)
        return SV_EMISMATCH;
    if (b->n > UINT64_MAX - b->first)
        return SV_ERANGE;
    sv_status st = reserve(a, a->n + b->n);
    if (st != SV_OK)
        return st;
    memcpy(a->raw_var + a->n, b->raw_var, (size_t)b->n * sizeof(double));
    memcpy(a->scaled_var + a->n, b->scaled_var, (size_t)b->n * sizeof(double));
    /* b's lead continues a's last block, trial by trial; b's blocks then
     * start on a boundary, as a's would have. */
    const uint64_t bh = lead_cap(b) < b->n ? lead_cap(b) : b->n;
    sum_trials(a, b->lead, (size_t)bh, 1, 0); /* arrays copied above */
    memcpy(a->block_sum + a->n_blocks * F, b->block_sum, b->n_blocks * F * sizeof(double));
    memcpy(a->block_m2 + a->n_blocks * 2 * F, b->block_m2, b->n_blocks * 2 * F * sizeof(double));
    memcpy(a->block_undef + a->n_blocks, b->block_undef, b->n_blocks * sizeof(uint64_t));
    if (b->n_blocks > 0) /* b's last block is a's now */
        a->last_empty = b->last_empty;
    a->n_blocks += b->n_blocks;
    a->n += b->n - bh;
    extremes_merge(&a->ext, &b->ext);
    return SV_OK;
}

/* The lead (h trials, kept whole: no sums of its own) summed as a block
 * of its own into sum and w (zeroed by the caller); how many trials each
 * class of fields keeps to k. */
static void lead_fold(const sv_partial *p, uint64_t h, double *sum, double *w,
                      uint64_t k[SV_FIELD_CLASSES])
{
    sv_trial_extremes unused = extremes_empty();
    sv_left_out lo = {0, 0};
    sv__partial_fold(p->lead, (size_t)h, sum, w, 0, &lo, 1, NULL, &unused);
    sv__class_counts(h, &lo, k);
}

/* How many of block b's trials each class of fields keeps, to k (h: the
 * lead's trials). */
static void block_counts(const sv_partial *p, uint64_t h, size_t b, uint64_t k[SV_FIELD_CLASSES])
{
    const uint64_t nb = b + 1 < p->n_blocks ? B : p->n - h - (uint64_t)b * B;
    const sv_left_out lo = {count_empty(p->raw_var + h + b * B, nb), p->block_undef[b]};
    sv__class_counts(nb, &lo, k);
}

/* A block's sums s into sum, each field's only if the block has a trial
 * its class keeps (else s may be NaN: a block of no entropy_norm), and
 * its counts k into n. */
static void add_sums(double *sum, uint64_t *n, const double *s, const uint64_t *k)
{
    for (size_t f = 0; f < F; f++)
        if (k[sv__field_class[f]] > 0)
            sum[f] += s[f];
    for (size_t c = 0; c < SV_FIELD_CLASSES; c++)
        n[c] += k[c];
}

void sv_partial_mean(const sv_partial *p, sv_trial_stats *mean)
{
    double sum[F] = {0}, m[F];
    uint64_t n[SV_FIELD_CLASSES] = {0}, k[SV_FIELD_CLASSES];
    if (!mean)
        return;
    if (!p || p->n == 0) { /* not 0 / 0: no invalid operation, no trap */
        for (size_t f = 0; f < F; f++)
            m[f] = NAN;
        memcpy(mean, m, sizeof m);
        return;
    }
    const uint64_t h = lead_cap(p) < p->n ? lead_cap(p) : p->n;
    if (h > 0) { /* a lead is a block of its own, first */
        double s[F] = {0}, w[2 * F] = {0};
        lead_fold(p, h, s, w, k);
        add_sums(sum, n, s, k);
    }
    for (size_t b = 0; b < p->n_blocks; b++) {
        block_counts(p, h, b, k);
        add_sums(sum, n, p->block_sum + b * F, k);
    }
    for (size_t f = 0; f < F; f++) { /* no trial its class keeps: NAN, not 0 / 0 */
        const uint64_t c = n[sv__field_class[f]];
        m[f] = c ? sum[f] / (double)c : NAN;
    }
    memcpy(mean, m, sizeof m);
    extremes_put(&p->ext, mean);
}

/* Merges (nb, wb) into (na, wa): Chan, Golub & LeVeque (1979), eq. 2.1.
 * Counts per class of fields (sv__field_class); nothing to merge from no
 * trial. */
static void chan_merge(const double *na, double *wa, const double *nb, const double *wb)
{
    for (size_t f = 0; f < F; f++) {
        const double a = na[sv__field_class[f]], b = nb[sv__field_class[f]];
        if (b == 0.0)
            continue;
        const double delta = wb[f] - wa[f], n = a + b;
        wa[F + f] += wb[F + f] + delta * delta * a * b / n;
        wa[f] += delta * b / n;
    }
}

void sv_partial_sd(const sv_partial *p, sv_trial_stats *sd)
{
    double w[2 * F] = {0}, s[F];
    double n[SV_FIELD_CLASSES] = {0}; /* as chan_merge's counts */
    uint64_t k[SV_FIELD_CLASSES];
    const uint64_t h = lead_cap(p) < p->n ? lead_cap(p) : p->n;
    if (h > 0) { /* the lead first, as a block of its own */
        double sum[F] = {0};
        lead_fold(p, h, sum, w, k);
        for (size_t f = 0; f < F; f++)
            if (k[sv__field_class[f]] == 0) /* a pair of no trial: 0, as if none came */
                w[f] = w[F + f] = 0.0;
        for (size_t c = 0; c < SV_FIELD_CLASSES; c++)
            n[c] = (double)k[c];
    }
    for (size_t b = 0; b < p->n_blocks; b++) {
        double m[SV_FIELD_CLASSES];
        block_counts(p, h, b, k);
        for (size_t c = 0; c < SV_FIELD_CLASSES; c++)
            m[c] = (double)k[c];
        chan_merge(n, w, m, p->block_m2 + b * 2 * F);
        for (size_t c = 0; c < SV_FIELD_CLASSES; c++)
            n[c] += m[c];
    }
    for (size_t f = 0; f < F; f++) {
        const double c = n[sv__field_class[f]];
        s[f] = c > 1.0 ? sqrt((w[F + f] < 0.0 ? 0.0 : w[F + f]) / (c - 1.0)) : NAN; /* NAN stays */
    }
    memcpy(sd, s, sizeof s);
    extremes_no_spread(sd);
}

void sv__partial_recount(sv_partial *p)
{
    const uint64_t h = lead_cap(p) < p->n ? lead_cap(p) : p->n;
    const uint64_t start = p->n_blocks > 0 ? h + (uint64_t)(p->n_blocks - 1) * B : p->n;
    p->last_empty = count_empty(p->raw_var + start, p->n - start);
}

void sv__partial_release(sv_partial *p)
{
    if (!p)
        return;
    sv__free(p->lead);
    sv__free(p->block_sum);
    sv__free(p->block_m2);
    sv__free(p->block_undef);
    sv__free(p->raw_var);
    sv__free(p->scaled_var);
    *p = (sv_partial){0};
}

void sv_partial_free(sv_partial *p)
{
    sv__partial_release(p);
    sv__free(p);
}
