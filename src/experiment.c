#include "sdpa_var/experiment.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/moments.h"
#include "sdpa_var/softmax.h"

/* Per-row results, merged in row order after the blocks are done. */
enum {
    ROW_MEAN,
    ROW_M2,
    ROW_RAW_H,
    ROW_SC_H,
    ROW_RAW_MAXW,
    ROW_SC_MAXW,
    ROW_RAW_JT,
    ROW_SC_JT,
    ROW_FIELDS
};

/* The score product is always computed in tiles of the same shape
 * (tile x n_k x d_k, the last tile zero-padded, Q rows copied to an aligned
 * buffer): OpenBLAS picks kernels and edge cases by shape and alignment, so
 * a fixed shape is what makes each score the same bits whatever the block
 * size or thread count. The tile depends on the configuration only: about
 * 4 MiB of scores, at least 16 rows for dgemm to run at full speed. */
#define SV_TILE_BYTES ((size_t)4 << 20)
#define SV_TILE_MIN_ROWS 16u
#define SV_TILE_MAX_ROWS 256u
#define SV_ALIGN 64u

/* Trials whose score matrix has fewer entries than this run whole, one per
 * thread, instead of splitting one trial's tiles across threads. */
#define SV_SMALL_TRIAL_SCORES ((size_t)1 << 16)

typedef struct workspace {
    double *q;      /* n_q x d_k, row-major */
    double *k;      /* n_k x d_k, row-major */
    double *qtile;  /* inner_threads x tile x d_k: one aligned Q tile per thread */
    double *scores; /* inner_threads x tile x n_k: one score tile per thread */
    double *rows;   /* n_q x ROW_FIELDS */
} workspace;

typedef struct plan {
    int threads;        /* OpenMP threads in all */
    int trial_parallel; /* whole trials per thread, else tiles per thread */
    int inner_threads;  /* threads sharing one trial */
    size_t tile;        /* query rows per dgemm; a function of the config only */
    size_t block_tiles; /* tiles per work item handed to a thread */
} plan;

/* a * b into *out, or 0 on overflow. */
static int mul_ok(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return 0;
    *out = a * b;
    return 1;
}

static int add_ok(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b)
        return 0;
    *out = a + b;
    return 1;
}

sv_status sv_config_check(const sv_config *cfg)
{
    if (!cfg || cfg->d_k == 0 || cfg->n_q == 0 || cfg->n_k == 0 || cfg->trials == 0 ||
        cfg->threads < 0 || isnan(sv_dist_fourth_moment(cfg->dist)))
        return SV_EINVAL;
    size_t n, rows, elems;
    if (!mul_ok(cfg->n_q, cfg->n_k, &n) || !add_ok(cfg->n_q, cfg->n_k, &rows) ||
        !mul_ok(rows, cfg->d_k, &elems) || !mul_ok(elems, sizeof(double), &elems) ||
        !mul_ok(cfg->n_q, ROW_FIELDS * sizeof(double), &rows))
        return SV_ERANGE;
    if (n <= cfg->ddof)
        return SV_EINVAL;
    if (cfg->d_k > INT_MAX || cfg->n_k > INT_MAX)
        return SV_ETOOBIG;
    return SV_OK;
}

static plan make_plan(const sv_config *cfg)
{
    plan p;
    p.threads = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
    if (p.threads < 1)
        p.threads = 1;
    const size_t scores = cfg->n_q * cfg->n_k; /* checked by sv_config_check */
    p.trial_parallel = p.threads > 1 && cfg->trials > 1 &&
                       (scores < SV_SMALL_TRIAL_SCORES || cfg->trials >= (uint64_t)p.threads * 4u);
    p.inner_threads = p.trial_parallel ? 1 : p.threads;

    size_t tile = SV_TILE_BYTES / sizeof(double) / cfg->n_k;
    tile -= tile % SV_TILE_MIN_ROWS;
    if (tile < SV_TILE_MIN_ROWS)
        tile = SV_TILE_MIN_ROWS;
    if (tile > SV_TILE_MAX_ROWS)
        tile = SV_TILE_MAX_ROWS;
    if (tile > cfg->n_q)
        tile = cfg->n_q;
    p.tile = tile;
    p.block_tiles = cfg->block_rows > 0 ? (cfg->block_rows + tile - 1) / tile : 1u;
    return p;
}

/* Bytes of one workspace (Q, K, per-thread tiles, per-row results). */
static int workspace_bytes(const sv_config *cfg, const plan *p, size_t *bytes)
{
    size_t qk, tiles, rows, total;
    if (!mul_ok(cfg->n_q + cfg->n_k, cfg->d_k, &qk) ||
        !mul_ok(p->tile, cfg->n_k + cfg->d_k, &tiles) ||
        !mul_ok(tiles, (size_t)p->inner_threads, &tiles) ||
        !mul_ok(cfg->n_q, ROW_FIELDS, &rows) || !add_ok(qk, tiles, &total) ||
        !add_ok(total, rows, &total) || !mul_ok(total, sizeof(double), &total) ||
        !add_ok(total, 5u * SV_ALIGN, bytes))
        return 0;
    return 1;
}

sv_status sv_experiment_bytes(const sv_config *cfg, size_t *bytes)
{
    sv_status st = sv_config_check(cfg);
    if (st != SV_OK)
        return st;
    const plan p = make_plan(cfg);
    size_t one;
    if (!workspace_bytes(cfg, &p, &one) ||
        !mul_ok(one, p.trial_parallel ? (size_t)p.threads : 1u, &one))
        return SV_ERANGE;
    *bytes = one;
    return SV_OK;
}

static void workspace_free(workspace *ws)
{
    free(ws->q);
    free(ws->k);
    free(ws->qtile);
    free(ws->scores);
    free(ws->rows);
    *ws = (workspace){0};
}

/* n doubles aligned to SV_ALIGN bytes (aligned_alloc wants a multiple). */
static double *alloc_doubles(size_t n)
{
    size_t bytes = n * sizeof(double);
    bytes += (SV_ALIGN - bytes % SV_ALIGN) % SV_ALIGN;
    return aligned_alloc(SV_ALIGN, bytes ? bytes : SV_ALIGN);
}

static int workspace_alloc(workspace *ws, const sv_config *cfg, const plan *p)
{
    const size_t d = cfg->d_k, per = (size_t)p->inner_threads * p->tile;
    ws->q = alloc_doubles(cfg->n_q * d);
    ws->k = alloc_doubles(cfg->n_k * d);
    ws->qtile = alloc_doubles(per * d);
    ws->scores = alloc_doubles(per * cfg->n_k);
    ws->rows = alloc_doubles(cfg->n_q * ROW_FIELDS);
    if (!ws->q || !ws->k || !ws->qtile || !ws->scores || !ws->rows) {
        workspace_free(ws);
        return 0;
    }
    return 1;
}

/* Neumaier's compensated sum: the mean over rows keeps its last digits even
 * when n_q is large. */
typedef struct ksum {
    double s, c;
} ksum;

static void ksum_add(ksum *k, double x)
{
    const double t = k->s + x;
    k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
    k->s = t;
}

static double ksum_value(const ksum *k)
{
    return k->s + k->c;
}

/* Scores of query rows [i0, i0 + m) against all keys, reduced to per-row
 * statistics in ws->rows. qtile and scores are this thread's buffers. */
static void score_tile(const sv_config *cfg, const plan *p, const workspace *ws, size_t i0,
                       size_t m, double *qtile, double *scores)
{
    const size_t d = cfg->d_k, nk = cfg->n_k, tile = p->tile;
    const double scale = 1.0 / sqrt((double)d);
    memcpy(qtile, ws->q + i0 * d, m * d * sizeof(double));
    memset(qtile + m * d, 0, (tile - m) * d * sizeof(double));
    /* scores (tile x n_k) = Qtile (tile x d_k) * K^T (d_k x n_k) */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)tile, (int)nk, (int)d, 1.0, qtile,
                (int)d, ws->k, (int)d, 0.0, scores, (int)nk);
    for (size_t r = 0; r < m; r++) {
        const double *s = scores + r * nk;
        double *row = ws->rows + (i0 + r) * ROW_FIELDS;
        sv_moments mo;
        sv_softmax_stats raw, sc;
        sv_moments_of(s, nk, &mo);
        sv_softmax_row_stats(s, nk, scale, &raw, &sc);
        row[ROW_MEAN] = mo.mean;
        row[ROW_M2] = mo.m2;
        row[ROW_RAW_H] = raw.entropy;
        row[ROW_SC_H] = sc.entropy;
        row[ROW_RAW_MAXW] = raw.max_weight;
        row[ROW_SC_MAXW] = sc.max_weight;
        row[ROW_RAW_JT] = raw.jac_trace;
        row[ROW_SC_JT] = sc.jac_trace;
    }
}

static void run_trial(const sv_config *cfg, const plan *p, uint64_t trial, const workspace *ws,
                      sv_trial_stats *out)
{
    const size_t d = cfg->d_k, nq = cfg->n_q, nk = cfg->n_k, tile = p->tile;
    const double scale = 1.0 / sqrt((double)d);
    const size_t rows_per_item = tile * p->block_tiles;
    const size_t nitems = (nq + rows_per_item - 1) / rows_per_item;

#pragma omp parallel num_threads(p->inner_threads) if (p->inner_threads > 1)
    {
        /* Every row its own stream: the draws do not depend on who fills it. */
#pragma omp for schedule(static)
        for (size_t i = 0; i < nq + nk; i++) {
            sv_rng rng;
            const int is_q = i < nq;
            const size_t row = is_q ? i : i - nq;
            sv_rng_seed_row(&rng, cfg->seed, trial, is_q ? SV_MATRIX_Q : SV_MATRIX_K, row);
            sv_sample_fill(&rng, cfg->dist, (is_q ? ws->q : ws->k) + row * d, d);
        }

        const size_t me = (size_t)omp_get_thread_num();
        double *qtile = ws->qtile + me * tile * d;
        double *scores = ws->scores + me * tile * nk;
#pragma omp for schedule(dynamic, 1)
        for (size_t b = 0; b < nitems; b++) {
            const size_t end = (b + 1) * rows_per_item < nq ? (b + 1) * rows_per_item : nq;
            for (size_t i0 = b * rows_per_item; i0 < end; i0 += tile)
                score_tile(cfg, p, ws, i0, end - i0 < tile ? end - i0 : tile, qtile, scores);
        }
    }

    /* Merge rows in row order: the same bits for any block size or thread
     * count (Chan et al. 1979 for the moments). */
    sv_moments acc = {0u, 0.0, 0.0};
    ksum sums[ROW_FIELDS] = {{0.0, 0.0}};
    for (size_t i = 0; i < nq; i++) {
        const double *row = ws->rows + i * ROW_FIELDS;
        const sv_moments mo = {nk, row[ROW_MEAN], row[ROW_M2]};
        sv_moments_merge(&acc, &mo);
        for (int f = ROW_RAW_H; f < ROW_FIELDS; f++)
            ksum_add(&sums[f], row[f]);
    }
    const double inv_nq = 1.0 / (double)nq;
    out->raw_mean = acc.mean;
    out->raw_var = sv_moments_variance(&acc, cfg->ddof);
    out->scaled_mean = acc.mean * scale;
    out->scaled_var = out->raw_var / (double)d;
    out->raw_entropy = ksum_value(&sums[ROW_RAW_H]) * inv_nq;
    out->scaled_entropy = ksum_value(&sums[ROW_SC_H]) * inv_nq;
    out->raw_max_weight = ksum_value(&sums[ROW_RAW_MAXW]) * inv_nq;
    out->scaled_max_weight = ksum_value(&sums[ROW_SC_MAXW]) * inv_nq;
    out->raw_jac_trace = ksum_value(&sums[ROW_RAW_JT]) * inv_nq;
    out->scaled_jac_trace = ksum_value(&sums[ROW_SC_JT]) * inv_nq;
}

sv_status sv_experiment_run(const sv_config *cfg, sv_trial_stats *per_trial)
{
    sv_status st = sv_config_check(cfg);
    if (st != SV_OK)
        return st;
    if (!per_trial)
        return SV_EINVAL;
    const plan p = make_plan(cfg);
    /* We parallelise ourselves; OpenBLAS threads inside ours would
     * oversubscribe the cores. */
    openblas_set_num_threads(1);

    if (!p.trial_parallel) {
        workspace ws = {0};
        if (!workspace_alloc(&ws, cfg, &p))
            return SV_ENOMEM;
        for (uint64_t t = 0; t < cfg->trials; t++)
            run_trial(cfg, &p, t, &ws, &per_trial[t]);
        workspace_free(&ws);
        return SV_OK;
    }

    int failed = 0;
#pragma omp parallel num_threads(p.threads)
    {
        workspace ws = {0};
        const int ok = workspace_alloc(&ws, cfg, &p);
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp barrier
        int stop;
#pragma omp atomic read
        stop = failed;
        if (!stop) {
#pragma omp for schedule(dynamic, 16)
            for (uint64_t t = 0; t < cfg->trials; t++)
                run_trial(cfg, &p, t, &ws, &per_trial[t]);
        }
        workspace_free(&ws);
    }
    return failed ? SV_ENOMEM : SV_OK;
}
