/* The state codec (state.h): explicit little-endian bytes, field by
 * field, so a state reads the same on any CPU; every count checked
 * against the bytes left before anything is allocated. */
#include "sdpa_var/state.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "partial_impl.h"
#include "sdpa_var/cpu.h"
#include "sdpa_var/version.h"

static const unsigned char magic[8] = {'S', 'D', 'P', 'A', 'V', 'S', 'T', 0};

/* A new sv_spec field must be added to put_spec and get_spec; a new
 * extreme (SV_TRIAL_STATS_MAP's MIN or MAX) to put_extremes and
 * get_extremes. */
#if SIZE_MAX == UINT64_MAX /* the 64-bit layout; 32-bit builds (WebAssembly) differ */
static_assert(sizeof(sv_spec) == 184, "sv_spec changed: encode the new field in state.c");
#endif
static_assert(sizeof(sv_trial_extremes) == 6 * sizeof(double),
              "sv_trial_extremes changed: encode the new field in state.c");

#define F SV_TRIAL_FIELDS
#define B ((uint64_t)SV_SUMMARY_BLOCK)

/* --- writing: counts every byte, stores those below cap --------------- */

typedef struct wr {
    unsigned char *buf;
    size_t cap, at;
    int overflow;
    uint64_t digest; /* FNV-1a 64 of the bytes so far */
} wr;

static void put_bytes(wr *w, const void *p, size_t n)
{
    const unsigned char *b = p;
    if (n > SIZE_MAX - w->at) {
        w->overflow = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        w->digest = (w->digest ^ b[i]) * 0x100000001b3u;
        if (w->buf && w->at + i < w->cap)
            w->buf[w->at + i] = b[i];
    }
    w->at += n;
}

static void put_u64(wr *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put_bytes(w, b, 8);
}

static void put_f64(wr *w, double x)
{
    uint64_t v;
    memcpy(&v, &x, 8); /* the bits of a binary64, then little-endian */
    put_u64(w, v);
}

static void put_str(wr *w, const char *s)
{
    size_t n = 0;
    while (n < SV_STATE_NAME_MAX - 1 && s[n])
        n++;
    put_u64(w, n);
    put_bytes(w, s, n);
}

static void put_f64s(wr *w, const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_f64(w, x[i]);
}

static void put_spec(wr *w, const sv_spec *s)
{
    const uint64_t u[] = {s->d_k, s->n_q, s->n_k, s->trials, s->seed, (uint64_t)s->dist};
    for (size_t i = 0; i < 6; i++)
        put_u64(w, u[i]);
    const double d[] = {s->nu, s->scale, s->scale2, s->q_mean, s->q_std, s->k_mean, s->k_std};
    put_f64s(w, d, 7);
    put_u64(w, (uint64_t)s->qk_norm);
    put_f64(w, s->qk_radius);
    const uint64_t v[] = {s->d_model,          (uint64_t)s->init,   (uint64_t)s->cross,
                          (uint64_t)s->causal, (uint64_t)s->values, s->d_v};
    for (size_t i = 0; i < 6; i++)
        put_u64(w, v[i]);
    put_f64(w, s->plant);
    put_u64(w, s->ddof);
    /* scale_logn as bit 1 of grad's word: a state without it keeps the
     * bytes of version 1. */
    put_u64(w, (uint64_t)s->grad | (s->scale_logn ? 2u : 0u));
    put_u64(w, s->window);
}

/* The extremes, field by field: minima, then maxima (the order of
 * version 1, whatever the table's order). */
static void put_extremes(wr *w, const sv_trial_extremes *e)
{
    const double x[] = {e->raw_entropy_min,    e->scaled_entropy_min, e->raw_entropy_max,
                        e->scaled_entropy_max, e->raw_max_abs_logit,  e->raw_max_logit};
    put_f64s(w, x, sizeof x / sizeof x[0]);
}

/* Trials of p's lead: those before its first block boundary. */
static uint64_t lead_of(const sv_partial *p)
{
    const uint64_t h = p->first % B ? B - p->first % B : 0;
    return h < p->n ? h : p->n;
}

static size_t blocks_of(const sv_partial *p)
{
    const uint64_t h = lead_of(p);
    return p->n > h ? (size_t)((p->n - h - 1) / B + 1) : 0;
}

static void put_partial(wr *w, const sv_partial *p)
{
    const uint64_t h = lead_of(p);
    const size_t nb = blocks_of(p);
    for (uint64_t i = 0; i < h; i++) {
        double v[F];
        memcpy(v, &p->lead[i], sizeof v);
        put_f64s(w, v, F);
    }
    put_f64s(w, p->block_sum, nb * F);
    put_f64s(w, p->block_m2, nb * 2 * F);
    for (size_t b = 0; b < nb; b++)
        put_u64(w, p->block_undef[b]);
    put_extremes(w, &p->ext);
    put_f64s(w, p->raw_var, (size_t)p->n);
    put_f64s(w, p->scaled_var, (size_t)p->n);
}

static int whole_rows(const sv_state_config *c)
{
    return c->row_begin == 0 && c->row_end == c->spec.n_q;
}

static int config_ok(const sv_state_config *c, uint64_t total)
{
    if (c->trial_count == 0 || c->trial_first > UINT64_MAX - c->trial_count ||
        c->trial_first + c->trial_count > total)
        return 0;
    if (whole_rows(c))
        return c->trials && c->trials->first == c->trial_first && c->trials->n == c->trial_count &&
               (c->trial_count <= SIZE_MAX / sizeof(double));
    if (c->row_begin == c->row_end) /* no rows of this configuration: nothing to hold */
        return c->row_end <= c->spec.n_q;
    return c->folds && c->row_end <= SIZE_MAX &&
           sv_rowfold_check(&c->spec, (size_t)c->row_begin, (size_t)c->row_end) == SV_OK;
}

static void put_config(wr *w, const sv_state_config *c)
{
    put_spec(w, &c->spec);
    put_u64(w, sv_spec_hash(&c->spec));
    put_str(w, c->scale_name);
    put_f64(w, c->observed);
    const uint64_t u[] = {c->trial_first, c->trial_count, c->row_begin, c->row_end};
    for (size_t i = 0; i < 4; i++)
        put_u64(w, u[i]);
    if (whole_rows(c)) {
        put_partial(w, c->trials);
        return;
    }
    const size_t nb = sv_rowfold_blocks((size_t)c->row_begin, (size_t)c->row_end);
    for (uint64_t t = 0; nb && t < c->trial_count; t++)
        for (size_t b = 0; b < nb; b++) {
            const sv_rowfold *f = &c->folds[t * nb + b];
            for (size_t i = 0; i < SV_FOLD_COUNTS; i++)
                put_u64(w, f->count[i]);
            put_f64s(w, f->sum, SV_FOLD_SUMS);
        }
}

sv_status sv_state_encode(const sv_state *s, unsigned char *buf, size_t cap, size_t *len)
{
    if (!s || !len || (s->n_configs && !s->configs))
        return SV_EINVAL;
    for (size_t i = 0; i < s->n_configs; i++)
        if (!config_ok(&s->configs[i], s->trials_total))
            return SV_EINVAL;
    wr w = {.buf = buf, .cap = buf ? cap : 0, .digest = 0xcbf29ce484222325u};
    put_bytes(&w, magic, 8);
    const unsigned char ver[8] = {SV_STATE_VERSION & 0xff, (SV_STATE_VERSION >> 8) & 0xff, 0, 0};
    put_bytes(&w, ver, 8);
    put_str(&w, s->version);
    put_str(&w, s->isa);
    put_str(&w, s->blas);
    put_u64(&w, s->trials_total);
    put_u64(&w, s->n_configs);
    for (size_t i = 0; i < s->n_configs; i++)
        put_config(&w, &s->configs[i]);
    put_u64(&w, w.digest);
    if (w.overflow)
        return SV_ERANGE;
    *len = w.at;
    return buf && cap >= w.at ? SV_OK : SV_ERANGE;
}

/* OpenBLAS's name for the kernel it chose (weak: another BLAS, or none,
 * has no such function). */
char *openblas_get_corename(void) __attribute__((weak));

sv_status sv_state_begin(sv_state *out, size_t n_configs, uint64_t trials_total)
{
    if (!out)
        return SV_EINVAL;
    *out = (sv_state){.n_configs = n_configs, .trials_total = trials_total};
    out->configs = n_configs ? sv__calloc(n_configs, sizeof *out->configs) : NULL;
    if (n_configs && !out->configs) {
        *out = (sv_state){0};
        return SV_ENOMEM;
    }
    snprintf(out->version, sizeof out->version, "%s", SV_VERSION_STRING);
    /* What computed it: shards of other kernels merge within the
     * cross-machine tolerance, not to the bit (sv_state_merge). */
    snprintf(out->isa, sizeof out->isa, "%s", sv_cpu_capability());
    const char *core = openblas_get_corename ? openblas_get_corename() : NULL;
    snprintf(out->blas, sizeof out->blas, "%s", core && *core ? core : "unknown");
    return SV_OK;
}
