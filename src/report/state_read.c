/* The state reader (state.h): bytes from anywhere (a file, a socket, a
 * fuzzer), so every length is checked against the bytes left before it
 * is trusted, and every decoded configuration against the library's own
 * rules. */
#include "sdpa_var/state.h"
#include "alloc.h"
#include "partial_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F SV_TRIAL_FIELDS
#define B ((uint64_t)SV_SUMMARY_BLOCK)

typedef struct rd {
    const unsigned char *buf;
    size_t len, at;
    int bad;
} rd;

static uint64_t get_u64(rd *r)
{
    if (r->bad || r->len - r->at < 8) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | r->buf[r->at + (size_t)i];
    r->at += 8;
    return v;
}

static double get_f64(rd *r)
{
    const uint64_t v = get_u64(r);
    double x;
    memcpy(&x, &v, 8);
    return x;
}

/* n values of 8 bytes each must still be there: checked before an
 * allocation of n of anything. */
static int left_for(rd *r, uint64_t n, size_t each)
{
    if (r->bad || n > (r->len - r->at) / each) {
        r->bad = 1;
        return 0;
    }
    return 1;
}

static void get_f64s(rd *r, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = get_f64(r);
}

static void get_str(rd *r, char *s)
{
    const uint64_t n = get_u64(r);
    /* A NUL inside would be cut off on the way back: not a state's bytes. */
    if (r->bad || n >= SV_STATE_NAME_MAX || r->len - r->at < n ||
        memchr(r->buf + r->at, 0, (size_t)n)) {
        r->bad = 1;
        s[0] = '\0';
        return;
    }
    memcpy(s, r->buf + r->at, (size_t)n);
    s[n] = '\0';
    r->at += (size_t)n;
}

/* A small enum or flag: 0 .. hi, else corrupt. */
static int get_small(rd *r, uint64_t hi)
{
    const uint64_t v = get_u64(r);
    if (v > hi)
        r->bad = 1;
    return (int)(v > hi ? 0 : v);
}

static size_t get_size(rd *r)
{
    const uint64_t v = get_u64(r);
    if (v > SIZE_MAX)
        r->bad = 1;
    return (size_t)v;
}

static void get_spec(rd *r, sv_spec *s)
{
    s->d_k = get_size(r);
    s->n_q = get_size(r);
    s->n_k = get_size(r);
    s->trials = get_u64(r);
    s->seed = get_u64(r);
    s->dist = (sv_dist)get_small(r, 16);
    double d[7];
    get_f64s(r, d, 7);
    s->nu = d[0];
    s->scale = d[1];
    s->scale2 = d[2];
    s->q_mean = d[3];
    s->q_std = d[4];
    s->k_mean = d[5];
    s->k_std = d[6];
    s->qk_norm = get_small(r, 1);
    s->qk_radius = get_f64(r);
    s->d_model = get_size(r);
    s->init = (sv_init)get_small(r, 16);
    s->cross = get_small(r, 1);
    s->causal = get_small(r, 1);
    s->values = get_small(r, 1);
    s->d_v = get_size(r);
    s->plant = get_f64(r);
    s->ddof = (unsigned)get_small(r, 0xffffffffu);
    const int grad = get_small(r, 3); /* bit 1: scale_logn (state.c) */
    s->grad = grad & 1;
    s->scale_logn = grad >> 1;
    s->window = get_size(r);
}

/* The extremes, in put_extremes's order. */
static void get_extremes(rd *r, sv_trial_extremes *e)
{
    e->raw_entropy_min = get_f64(r);
    e->scaled_entropy_min = get_f64(r);
    e->raw_entropy_max = get_f64(r);
    e->scaled_entropy_max = get_f64(r);
    e->raw_max_abs_logit = get_f64(r);
    e->raw_max_logit = get_f64(r);
}

/* Whether each block's count of trials with no entropy_norm is one it
 * can hold: at most its trials, at least those that measured nothing (h:
 * the lead's trials). */
static int undef_ok(const sv_partial *p, uint64_t h)
{
    for (size_t b = 0; b < p->n_blocks; b++) {
        const uint64_t nb = b + 1 < p->n_blocks ? B : p->n - h - (uint64_t)b * B;
        uint64_t empty = 0;
        for (uint64_t i = 0; i < nb; i++)
            empty += isnan(p->raw_var[h + b * B + i]);
        if (p->block_undef[b] > nb || p->block_undef[b] < empty)
            return 0;
    }
    return 1;
}

/* The partial of trials [first, first + n): allocated by sv_partial_create
 * into *out, filled from the bytes. */
static sv_status get_partial(rd *r, uint64_t first, uint64_t n, sv_partial **out)
{
    const uint64_t hc = first % B ? B - first % B : 0, h = hc < n ? hc : n;
    const uint64_t nb = n > h ? (n - h - 1) / B + 1 : 0;
    /* lead, blocks, 2 n variances: all there before allocating (the 6
     * extremes are checked as read) */
    if (!left_for(r, h, (size_t)F * 8) || !left_for(r, nb, (size_t)3 * F * 8 + 8) ||
        !left_for(r, n, 16))
        return SV_ECORRUPT;
    sv_status st = sv_partial_create(first, n, out);
    if (st != SV_OK)
        return st;
    sv_partial *p = *out;
    for (uint64_t i = 0; i < h; i++) {
        double v[F];
        get_f64s(r, v, F);
        memcpy(&p->lead[i], v, sizeof v);
    }
    p->n_blocks = (size_t)nb;
    get_f64s(r, p->block_sum, (size_t)nb * F);
    get_f64s(r, p->block_m2, (size_t)nb * 2 * F);
    for (size_t b = 0; b < nb; b++)
        p->block_undef[b] = get_u64(r);
    get_extremes(r, &p->ext);
    get_f64s(r, p->raw_var, (size_t)n);
    get_f64s(r, p->scaled_var, (size_t)n);
    p->n = n;
    sv__partial_recount(p);
    return r->bad || !undef_ok(p, h) ? SV_ECORRUPT : SV_OK;
}

static sv_status get_folds(rd *r, sv_state_config *c)
{
    const size_t nb = sv_rowfold_blocks((size_t)c->row_begin, (size_t)c->row_end);
    const size_t each = ((size_t)SV_FOLD_COUNTS + SV_FOLD_SUMS) * 8;
    if (nb == 0 || !left_for(r, c->trial_count, each) ||
        !left_for(r, c->trial_count * nb, each)) /* count <= bytes / each: no wrap */
        return SV_ECORRUPT;
    const size_t n = (size_t)c->trial_count * nb;
    c->folds = sv__malloc(n * sizeof *c->folds);
    if (!c->folds)
        return SV_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < SV_FOLD_COUNTS; k++)
            c->folds[i].count[k] = get_u64(r);
        get_f64s(r, c->folds[i].sum, SV_FOLD_SUMS);
    }
    return r->bad ? SV_ECORRUPT : SV_OK;
}

static sv_status get_config(rd *r, sv_state_config *c, uint64_t total)
{
    get_spec(r, &c->spec);
    const uint64_t hash = get_u64(r);
    get_str(r, c->scale_name);
    c->observed = get_f64(r);
    c->trial_first = get_u64(r);
    c->trial_count = get_u64(r);
    c->row_begin = get_u64(r);
    c->row_end = get_u64(r);
    if (r->bad || sv_spec_check(&c->spec) != SV_OK || sv_spec_hash(&c->spec) != hash ||
        c->trial_count == 0 || c->trial_first > UINT64_MAX - c->trial_count ||
        c->trial_first + c->trial_count > total || c->row_end > c->spec.n_q)
        return SV_ECORRUPT;
    if (c->row_begin == 0 && c->row_end == c->spec.n_q)
        return get_partial(r, c->trial_first, c->trial_count, &c->trials);
    if (c->row_begin == c->row_end) /* none of this configuration's rows */
        return SV_OK;
    if (sv_rowfold_check(&c->spec, (size_t)c->row_begin, (size_t)c->row_end) != SV_OK)
        return SV_ECORRUPT;
    return get_folds(r, c);
}

static sv_status decode(rd *r, sv_state *s)
{
    static const unsigned char magic[8] = {'S', 'D', 'P', 'A', 'V', 'S', 'T', 0};
    if (r->len < 24 || memcmp(r->buf, magic, 8) != 0)
        return SV_ECORRUPT;
    r->at = 8;
    const uint64_t ver = get_u64(r);
    if (ver != SV_STATE_VERSION)
        return (ver & 0xffffffffu) == ver ? SV_EUNSUPPORTED : SV_ECORRUPT;
    /* The digest first: a flipped bit anywhere is caught here. */
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < r->len - 8; i++)
        h = (h ^ r->buf[i]) * 0x100000001b3u;
    rd tail = {r->buf, r->len, r->len - 8, 0};
    if (get_u64(&tail) != h)
        return SV_ECORRUPT;
    r->len -= 8;
    get_str(r, s->version);
    get_str(r, s->isa);
    get_str(r, s->blas);
    s->trials_total = get_u64(r);
    const uint64_t n = get_u64(r);
    if (n == 0 || !left_for(r, n, (size_t)8 * 30)) /* a configuration is > 30 words */
        return SV_ECORRUPT;
    s->configs = sv__calloc((size_t)n, sizeof *s->configs);
    if (!s->configs)
        return SV_ENOMEM;
    s->n_configs = (size_t)n;
    for (size_t i = 0; i < s->n_configs; i++) {
        sv_status st = get_config(r, &s->configs[i], s->trials_total);
        if (st != SV_OK)
            return st;
    }
    return r->at == r->len && !r->bad ? SV_OK : SV_ECORRUPT;
}

sv_status sv_state_decode(const unsigned char *buf, size_t len, sv_state *out)
{
    if (!out || (!buf && len))
        return SV_EINVAL;
    *out = (sv_state){0};
    rd r = {buf, len, 0, 0};
    const sv_status st = buf ? decode(&r, out) : SV_ECORRUPT;
    if (st != SV_OK)
        sv_state_free(out);
    return st;
}

size_t sv_state_decode_text(const unsigned char *buf, size_t len, sv_status st, const char *name,
                            char *out, size_t cap)
{
    if (!out)
        cap = 0;
    const char *n = name ? name : "?";
    int k;
    if (st == SV_EUNSUPPORTED && buf && len >= 12) {
        const unsigned long v = (unsigned long)buf[8] | (unsigned long)buf[9] << 8 |
                                (unsigned long)buf[10] << 16 | (unsigned long)buf[11] << 24;
        k = snprintf(out, cap,
                     "%s: state format version %lu, this build reads version %u (write the "
                     "shard again with this build)",
                     n, v, SV_STATE_VERSION);
    } else
        k = snprintf(out, cap, "%s: %s", n, sv_status_str(st));
    return k < 0 ? 0 : (size_t)k;
}

void sv_state_free(sv_state *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->configs && i < s->n_configs; i++) {
        sv_partial_free(s->configs[i].trials);
        sv__free(s->configs[i].folds);
    }
    sv__free(s->configs);
    *s = (sv_state){0};
}
