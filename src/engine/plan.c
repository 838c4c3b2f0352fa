/* The plan of a run: every check of the spec, options, taps and source,
 * and every size the engine allocates, derived and overflow-checked in one
 * place. engine.c allocates exactly these sizes and trusts nothing else. */
#include <limits.h>

#include "plan.h"
#include "sdpa_var/theory.h"
#include "sizes.h"

static sv_status check_inputs(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                              const sv_taps *taps, uint64_t first, uint64_t count)
{
    if (!spec || !src || !exec || !src->rows || !src->check || exec->threads < 0 || count == 0 ||
        first > spec->trials || count > spec->trials - first)
        return SV_EINVAL;
    sv_status st = sv_spec_check(spec);
    if (st == SV_OK)
        st = sv_taps_check(taps, spec);
    if (st == SV_OK)
        st = src->check(src, spec, first, count);
    if (st == SV_OK && src->trial_len > 0 && !src->begin_trial)
        st = SV_EINVAL;
    /* Per-row log-n multipliers reach the row pass and the trial's
     * statistics; a source mask and the histograms take one multiplier. */
    if (st == SV_OK)
        st = sv_spec_check_use(spec,
                               (src->mask ? SV_USE_MASK : 0u) |
                                   (taps && taps->hist_bins > 0 ? SV_USE_HISTOGRAM : 0u),
                               NULL, NULL);
    return st;
}

/* *at advanced by n, its old value into *off; 0 on overflow. */
static int take(size_t *at, size_t n, size_t *off)
{
    *off = *at;
    return add_ok(*at, n, at);
}

/* a b c into *out, or 0 on overflow. */
static int mul3(size_t a, size_t b, size_t c, size_t *out)
{
    size_t ab;
    return mul_ok(a, b, &ab) && mul_ok(ab, c, out);
}

/* The workspace layout of --grad's two passes (grad.c), beside the plan
 * that sizes it: sv__plan_make checks it, sv__grad_trial reads it. */
int sv__grad_layout_of(const plan *p, grad_layout *g)
{
    const sv_spec *s = p->spec;
    const size_t d = s->d_k, dv = p->dv, tm = p->tm, kb = p->kb, qb = p->qb, tk = p->tk;
    size_t at = 0, n[6], p1a, p1b, p1c, p2a, p2b, threads;
    /* pass 1 per thread: G tile (tm x d_v), A tile (tm x kb), dQ part (2 x tm x d_k);
     * pass 2: K tile (tk x d_k), V tile (tk x d_v), scores and A (2 x tk x qb),
     * dL/dz (2 x tk x qb), dK part (2 x tk x d_k) */
    if (!mul3(s->n_q, 2, d, &n[0]) || !mul3(s->n_k, 2, d, &n[1]) || !mul_ok(s->n_q, 2, &n[2]) ||
        !mul_ok(s->n_q, GRAD_ROW, &n[3]) || !mul_ok(qb, d, &n[4]) || !mul_ok(qb, dv, &n[5]) ||
        !mul_ok(tm, dv, &p1a) || !mul_ok(tm, kb, &p1b) || !mul3(2, tm, d, &p1c) ||
        !add_ok(p1a, p1b, &p1a) || !add_ok(p1a, p1c, &p1a) || !mul_ok(d, 3, &p2a) ||
        !add_ok(p2a, dv, &p2a) || !mul_ok(qb, 4, &p2b) || !add_ok(p2a, p2b, &p2a) ||
        !mul_ok(p2a, tk, &p2a))
        return 0;
    g->per = p1a > p2a ? p1a : p2a;
    if (!take(&at, n[0], &g->dq) || !take(&at, n[1], &g->dk) || !take(&at, n[2], &g->delta) ||
        !take(&at, n[3], &g->rowg) || !take(&at, n[4], &g->qblk) || !take(&at, n[5], &g->gblk) ||
        !mul_ok(g->per, (size_t)p->inner_threads, &threads) || !take(&at, threads, &g->thread))
        return 0;
    g->total = at;
    return 1;
}

/* Whether whole trials, one per thread, keep more threads busy than one
 * trial's `items` work items (per key block) shared by all threads: the
 * busy share of the thread slots, count / (threads ceil(count / threads))
 * against items / (threads ceil(items / threads)). 96 trials of 1024 rows
 * have 4 items each: on 16 threads, 12 idled at every key block. Only for
 * a key block of at most 2^20 doubles (8 MiB): each thread then holds a
 * workspace of its own. */
static int trials_fill_better(const plan *p, uint64_t count, uint64_t items)
{
    const uint64_t t = (uint64_t)p->threads; /* count < 4 t here, so no product wraps */
    if (p->spec->d_k > ((size_t)1 << 20) / p->kb || count >= 4u * t)
        return 0;
    const uint64_t rounds_trials = (count - 1) / t + 1, rounds_items = (items - 1) / t + 1;
    return count * rounds_items > items * rounds_trials;
}

/* Work items of a trial of @p tiles tiles taken @p per at a time (per >= 1
 * by construction; 1 if not). */
static uint64_t work_items(size_t tiles, size_t per)
{
    return (tiles - 1) / (per > 0 ? per : 1) + 1;
}

/* Threads, tiles and grouping: depend on the spec and the options, never
 * on the data. */
static void derive(plan *p, uint64_t count)
{
    const sv_spec *s = p->spec;
    const int want = p->exec->threads > 0 ? p->exec->threads : SV_MAX_THREADS();
    p->threads = want < 1 ? 1 : want;
    /* a count (2^32 at n = 65 536 overflows a 32-bit size_t); checked by
     * sv_spec_check */
    const uint64_t scores = (uint64_t)s->n_q * s->n_k;
    p->count = count;
    p->tm = s->n_q < SV_TILE_ROWS ? s->n_q : SV_TILE_ROWS;
    p->kb = s->n_k < SV_KEY_BLOCK ? s->n_k : SV_KEY_BLOCK;
    p->dv = s->values ? s->d_v : 0;
    p->grad = s->grad && s->values;
    p->qb = s->n_q < SV_KEY_BLOCK ? s->n_q : SV_KEY_BLOCK;
    p->tk = s->n_k < SV_TILE_ROWS ? s->n_k : SV_TILE_ROWS;
    const size_t br = p->exec->block_rows;
    /* (br - 1) / tm + 1 rather than (br + tm - 1) / tm: no wrap near SIZE_MAX */
    p->block_tiles = br > 0 ? (br - 1) / p->tm + 1 : 1u;
    /* More tiles than the trial has is the same work item: clamp, so that
     * tm block_tiles <= n_q + tm - 1 never wraps. */
    const size_t all_tiles = (s->n_q - 1) / p->tm + 1;
    if (p->block_tiles > all_tiles)
        p->block_tiles = all_tiles;
    p->trial_parallel = p->threads > 1 && count > 1 && !p->taps.row_sums &&
                        (scores < SV_SMALL_TRIAL_SCORES || count >= (uint64_t)p->threads * 4u ||
                         trials_fill_better(p, count, work_items(all_tiles, p->block_tiles)));
    p->inner_threads = p->trial_parallel ? 1 : p->threads;
    /* tm kb d_k can overflow only when it is far above SV_TINY_TILE */
    p->tiny = p->tm * p->kb <= SV_TINY_TILE && p->tm * p->kb * s->d_k <= SV_TINY_TILE;
    /* Several tiny trials share one pass of the row kernel when each is
     * one tile and one key block: a small tile is not enough (n_q = 257,
     * n_k = 1 has a tiny tile of 256 rows and a second tile). */
    const int one_tile = s->n_q == p->tm && s->n_k == p->kb;
    /* Log-n scaling per row runs one trial at a time: the grouped path
     * has one multiplier for every row. */
    p->group = p->tiny && one_tile && p->inner_threads == 1 && !p->taps.row_sums && !s->values &&
                       s->window == 0 && !p->src->mask && !s->scale_logn
                   ? SV_TRIAL_GROUP
                   : 1u;
    p->ln_nk = log((double)s->n_k);
    p->theory_mean = sv_theory_mean(s);
    p->prog = NULL;
}

/* Element counts of one workspace (tiny trials make group > 1 only when
 * n_q <= tm and n_k <= kb, so group n_q n_k is small then). */
static int sizes_of(const plan *p, ws_sizes *z)
{
    const sv_spec *s = p->spec;
    const size_t it = (size_t)p->inner_threads, per = it * p->tm, dv = p->dv;
    size_t two_tm;
    if (!mul_ok(p->kb, s->d_k, &z->k) || !mul_ok(per, s->d_k, &z->qtile) ||
        !mul_ok(per, p->kb, &z->scores) || !mul_ok(s->n_q, p->group, &z->rows) ||
        !mul_ok(s->n_k, p->group, &z->k_rows) || !mul_ok(it, p->src->scratch_len, &z->scratch) ||
        !mul_ok(2 * p->tm, it, &two_tm) || !mul_ok(two_tm, dv ? p->kb : 0, &z->e) ||
        !mul_ok(two_tm, dv, &z->o_part) || !mul_ok(s->n_q, 2 * dv, &z->o) ||
        !mul_ok(p->kb, dv, &z->v))
        return 0;
    z->tiles = per;
    grad_layout g = {0};
    if (p->grad && !sv__grad_layout_of(p, &g))
        return 0;
    z->grad = g.total;
    z->mrow = p->src->mask ? (size_t)p->inner_threads * p->kb : 0; /* <= tiles x kb: no wrap */
    z->state = p->src->trial_len;
    z->stats = p->group > 1 ? z->rows : SV_STATS_ROWS;
    if (p->group > 1 && z->scores < p->group * s->n_q * s->n_k)
        z->scores = p->group * s->n_q * s->n_k;
    return 1;
}

/* Bytes of one workspace: the sum of (count, element size) pairs, each
 * rounded up to SV_ALIGN as engine.c allocates them. */
static int bytes_of(const ws_sizes *z, size_t *bytes)
{
    const size_t items[][2] = {{z->k, sizeof(double)},
                               {z->qtile, sizeof(double)},
                               {z->scores, sizeof(double)},
                               {z->rows, sizeof(sv_moments)},
                               {z->rows, sizeof(sv_softmax_acc)},
                               {z->tiles, sizeof(sv_softmax_acc)},
                               {z->tiles, sizeof(sv_moments)},
                               {2 * z->stats, sizeof(sv_softmax_stats)},
                               {z->rows, sizeof(double)},
                               {z->rows, sizeof(double)},
                               {z->scratch, sizeof(double)},
                               {z->state, sizeof(double)},
                               {z->rows, sizeof(sv_moments)},
                               {z->k_rows, sizeof(sv_moments)},
                               {z->v, sizeof(double)},
                               {z->e, sizeof(double)},
                               {z->o_part, sizeof(double)},
                               {z->o, sizeof(double)},
                               {z->grad, sizeof(double)},
                               {z->mrow, sizeof(double)}};
    size_t total = 0, one;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
        if (!mul_ok(items[i][0], items[i][1], &one) || !add_ok(one, SV_ALIGN, &one) ||
            !add_ok(total, one, &total))
            return 0;
    *bytes = total;
    return 1;
}

/* Field i is one the NaN check reads (kind: SV_TRIAL_STATS_MAP's number,
 * 0 ALWAYS, 1 GRAD, 2 VALUES, 3 MAYBE; skip: its SV_SKIP_* group): ALWAYS
 * unless its group is skipped, GRAD with grad, VALUES with values. */
static void add_must(plan *p, size_t i, int kind, unsigned skip)
{
    const int must = kind == 0   ? !(p->taps.skip & skip)
                     : kind == 1 ? p->grad
                     : kind == 2 ? p->dv != 0
                                 : 0;
    if (must)
        p->must[p->n_must++] = (unsigned char)i;
}

/* The list trial_is_number reads, made once: a test of every field per
 * trial, skipped ones too, cost a twentieth of a tiny trial. */
static void must_fields(plan *p)
{
    size_t i = 0;
#define MUST_KIND_ALWAYS_ 0
#define MUST_KIND_GRAD_ 1
#define MUST_KIND_VALUES_ 2
#define MUST_KIND_MAYBE_ 3
#define MUST_(name, reduce, number, skip) add_must(p, i++, MUST_KIND_##number##_, SV_SKIP_##skip);
    SV_TRIAL_STATS_MAP(MUST_)
#undef MUST_
}

sv_status sv__plan_make(plan *p, const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                        const sv_taps *taps, uint64_t first, uint64_t count, ws_sizes *z,
                        size_t *bytes)
{
    sv_status st = check_inputs(spec, src, exec, taps, first, count);
    if (st != SV_OK)
        return st;
    *p = (plan){.spec = spec, .src = src, .exec = exec, .first = first, .row1 = spec->n_q};
    if (taps)
        p->taps = *taps;
    _Static_assert(SV_TRIAL_FIELDS <= 256, "plan.must holds field numbers in bytes");
    derive(p, count);
    must_fields(p);
    size_t one;
    if (!sizes_of(p, z) || !bytes_of(z, &one) ||
        !mul_ok(one, p->trial_parallel ? (size_t)p->threads : 1u, bytes))
        return SV_ERANGE;
    /* Tile sizes reach CBLAS as int: tm <= 256, kb <= 4096; d_k and d_v
     * were checked against INT_MAX by sv_spec_check. */
    return SV_OK;
}

sv_status sv_engine_bytes(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                          const sv_taps *taps, uint64_t count, size_t *bytes)
{
    if (!bytes || !spec)
        return SV_EINVAL;
    plan p;
    ws_sizes z;
    size_t b;
    sv_status st = sv__plan_make(&p, spec, src, exec, taps, 0, count, &z, &b);
    if (st == SV_OK)
        *bytes = b;
    return st;
}
