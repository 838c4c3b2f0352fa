#include "sdpa_var/experiment.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/moments.h"
#include "sdpa_var/softmax.h"

/*
 * Layout of one trial. Keys are processed in blocks of kb rows (outer loop,
 * in key order); within a key block, query rows in tiles of tm rows (inner
 * loop, split across threads). Each tile's rows are drawn from their own
 * streams into an aligned, zero-padded buffer, and one cblas_dgemm of the
 * fixed shape tm x kb x d_k gives its scores. Each (row, key block) yields
 * two-pass moments and partial softmax sums, merged into the row's running
 * state in key order; rows are merged into the trial in row order.
 *
 * Why this shape:
 * - memory is O(kb d_k + threads tm (kb + d_k) + n_q): K is never held
 *   whole and Q never at all, so n = 65 536 runs in a few tens of MiB;
 *   query rows are redrawn once per key block (n_k / kb times), cheap next
 *   to the product;
 * - every dgemm call has the same shape and aligned operands, and OpenBLAS
 *   picks kernels and edge cases by shape and alignment: each score is the
 *   same bits whatever the thread count or --block-rows; tm and kb depend
 *   on the configuration only.
 */
#define SV_TILE_ROWS 256u  /* tm: query rows per dgemm */
#define SV_KEY_BLOCK 4096u /* kb: keys per block (scores tile: 8 MiB) */
#define SV_ALIGN 64u
#define SV_TINY_TILE 512u  /* tm kb d_k below which plain loops beat dgemm */
#define SV_TRIAL_GROUP 64u /* tiny trials run together */

/* Trials whose score matrix has fewer entries than this run whole, one per
 * thread, instead of splitting one trial's tiles across threads. */
#define SV_SMALL_TRIAL_SCORES ((size_t)1 << 16)

/* Work done so far, for the progress callback: units are tiles (one query
 * tile against one key block). */
typedef struct progress {
    uint64_t done, total;
} progress;

typedef struct plan {
    int threads;        /* OpenMP threads in all */
    int trial_parallel; /* whole trials per thread, else tiles per thread */
    int inner_threads;  /* threads sharing one trial */
    size_t tm;          /* query rows per dgemm (config only) */
    size_t kb;          /* keys per block (config only) */
    size_t block_tiles; /* tiles per work item handed to a thread */
    int tiny;           /* tile product small enough for plain loops */
    size_t group;       /* trials run together by one thread (tiny ones) */
    progress *prog;     /* shared counter; NULL without a callback */
} plan;

typedef struct workspace {
    double *k;              /* kb x d_k: the current key block, row-major */
    double *qtile;          /* inner_threads x tm x d_k */
    double *scores;         /* inner_threads x tm x kb, or group x n_q x n_k */
    sv_moments *row_mo;     /* running moments of each query row: n_q, or group x n_q */
    sv_softmax_acc *row_sm; /* running softmax sums of each query row, the same */
    sv_softmax_acc *acc;    /* per-tile scratch: inner_threads x tm */
    sv_moments *mo;         /* the same for the moments */
    sv_softmax_stats *st;   /* 2 x stats rows: raw then scaled statistics */
    double *planted;        /* S_ii of each query row with a planted key (as row_mo) */
    double *scratch;        /* inner_threads x max(d_k, d_model): a planted key's
                               query row, or a token's embedding */
    double *wq, *wk;        /* d_model x d_k projections of the current trial */
    sv_moments *q_mo;       /* moments of each row of Q (as row_mo) */
    sv_moments *k_mo;       /* moments of each row of K: n_k, or group x n_k */
    double *v;              /* values: kb x d_v, the current key block's rows of V */
    double *e;              /* values: inner_threads x 2 x tm x kb exps (raw, scaled) */
    double *o_part;         /* values: inner_threads x 2 x tm x d_v partial outputs */
    double *o;              /* values: n_q x 2 x d_v running outputs, in each row's max frame */
} workspace;

/* Rows whose softmax statistics are computed at once when a trial ends. */
#define SV_STATS_ROWS 128u

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

double sv_init_variance(sv_init init, size_t d_model, size_t d_k)
{
    switch (init) {
    case SV_INIT_XAVIER:
        return 2.0 / ((double)d_model + (double)d_k);
    case SV_INIT_LECUN:
        return 1.0 / (double)d_model;
    case SV_INIT_NORMAL:
        return 1.0;
    }
    return NAN;
}

double sv_config_scale(const sv_config *cfg)
{
    return cfg->scale > 0.0 ? cfg->scale : sqrt((double)cfg->d_k);
}

double sv_config_scale2(const sv_config *cfg)
{
    /* d_k itself, not sqrt(d_k)^2, which can be off by an ulp. */
    return cfg->scale > 0.0 ? cfg->scale * cfg->scale : (double)cfg->d_k;
}

/* q_std / k_std, with 0 standing for 1. */
static double std_of(double s)
{
    return s > 0.0 ? s : 1.0;
}

/* Each rule names the struct field it blames, so that a caller (the CLI)
 * can name its own option for it; the order of the rules is the order in
 * which sv_config_check_field reports them. */
#define SV_FAIL(name, status)                                                                      \
    do {                                                                                           \
        if (field)                                                                                 \
            *field = name;                                                                         \
        return status;                                                                             \
    } while (0)

static int finite_nonneg(double v)
{
    return v >= 0.0 && isfinite(v);
}

sv_status sv_config_check_field(const sv_config *cfg, const char **field)
{
    if (!cfg)
        SV_FAIL("cfg", SV_EINVAL);
    if (cfg->d_k == 0)
        SV_FAIL("d_k", SV_EINVAL);
    if (cfg->n_q == 0)
        SV_FAIL("n_q", SV_EINVAL);
    if (cfg->n_k == 0)
        SV_FAIL("n_k", SV_EINVAL);
    if (cfg->trials == 0)
        SV_FAIL("trials", SV_EINVAL);
    if (cfg->threads < 0)
        SV_FAIL("threads", SV_EINVAL);
    if (isnan(sv_dist_fourth_moment(cfg->dist, cfg->nu)))
        SV_FAIL(cfg->dist == SV_DIST_STUDENT_T ? "nu" : "dist", SV_EINVAL);
    if (!finite_nonneg(cfg->scale))
        SV_FAIL("scale", SV_EINVAL);
    if (!finite_nonneg(cfg->q_std))
        SV_FAIL("q_std", SV_EINVAL);
    if (!finite_nonneg(cfg->k_std))
        SV_FAIL("k_std", SV_EINVAL);
    if (!isfinite(cfg->q_mean))
        SV_FAIL("q_mean", SV_EINVAL);
    if (!isfinite(cfg->k_mean))
        SV_FAIL("k_mean", SV_EINVAL);
    if (!finite_nonneg(cfg->qk_scale))
        SV_FAIL("qk_scale", SV_EINVAL);
    if (!(cfg->plant >= -1.0 && cfg->plant <= 1.0))
        SV_FAIL("plant", SV_EINVAL);
    /* Projections: their own token draws, so no shifted entries or planted
     * keys on top (the theory covers each alone). */
    if (cfg->d_model > 0) {
        if (isnan(sv_init_variance(cfg->init, cfg->d_model, cfg->d_k)))
            SV_FAIL("init", SV_EINVAL);
        if (cfg->plant != 0.0)
            SV_FAIL("plant", SV_EINVAL);
        if (cfg->q_mean != 0.0)
            SV_FAIL("q_mean", SV_EINVAL);
        if (cfg->k_mean != 0.0)
            SV_FAIL("k_mean", SV_EINVAL);
        if (cfg->q_std > 0.0)
            SV_FAIL("q_std", SV_EINVAL);
        if (cfg->k_std > 0.0)
            SV_FAIL("k_std", SV_EINVAL);
    }
    if (cfg->cross && cfg->d_model == 0)
        SV_FAIL("cross", SV_EINVAL);
    if (cfg->causal && cfg->n_q != cfg->n_k)
        SV_FAIL("causal", SV_EINVAL);
    if (cfg->hist_bins > 0 &&
        (!(cfg->hist_lo < cfg->hist_hi) || !isfinite(cfg->hist_lo) || !isfinite(cfg->hist_hi) ||
         !cfg->hist_raw || !cfg->hist_scaled ||
         (cfg->hist_w_raw && (!cfg->hist_w_scaled || cfg->n_k > SV_KEY_BLOCK))))
        SV_FAIL("hist_bins", SV_EINVAL);
    size_t wsz;
    if (!mul_ok(cfg->d_model, cfg->d_k, &wsz) || !mul_ok(wsz, 2 * sizeof(double), &wsz))
        SV_FAIL("d_model", SV_ERANGE);
    size_t n, rows, elems;
    if (!mul_ok(cfg->n_q, cfg->n_k, &n) || !add_ok(cfg->n_q, cfg->n_k, &rows) ||
        !mul_ok(rows, cfg->d_k, &elems) || !mul_ok(elems, sizeof(double), &elems) ||
        !mul_ok(cfg->n_q, sizeof(sv_moments) + sizeof(sv_softmax_acc), &rows))
        SV_FAIL("n_q", SV_ERANGE);
    if (cfg->causal)
        n = n / cfg->n_q * (cfg->n_q + 1) / 2; /* visible scores: n (n + 1) / 2 */
    if (n <= cfg->ddof)
        SV_FAIL("ddof", SV_EINVAL);
    if (cfg->d_k > INT_MAX)
        SV_FAIL("d_k", SV_ETOOBIG);
    if (field)
        *field = NULL;
    return SV_OK;
}

#undef SV_FAIL

sv_status sv_config_check(const sv_config *cfg)
{
    return sv_config_check_field(cfg, NULL);
}

static plan make_plan(const sv_config *cfg)
{
    plan p;
    p.threads = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
    if (p.threads < 1)
        p.threads = 1;
    const size_t scores = cfg->n_q * cfg->n_k; /* checked by sv_config_check */
    p.trial_parallel = p.threads > 1 && cfg->trials > 1 && !cfg->row_sums &&
                       (scores < SV_SMALL_TRIAL_SCORES || cfg->trials >= (uint64_t)p.threads * 4u);
    p.inner_threads = p.trial_parallel ? 1 : p.threads;
    p.tm = cfg->n_q < SV_TILE_ROWS ? cfg->n_q : SV_TILE_ROWS;
    p.kb = cfg->n_k < SV_KEY_BLOCK ? cfg->n_k : SV_KEY_BLOCK;
    p.block_tiles = cfg->block_rows > 0 ? (cfg->block_rows + p.tm - 1) / p.tm : 1u;
    p.tiny = p.tm * p.kb * cfg->d_k <= SV_TINY_TILE;
    /* A tiny trial is one tile and one key block (tm kb <= SV_TINY_TILE):
     * several of them share one pass of the row kernel. */
    p.group =
        p.tiny && p.inner_threads == 1 && !cfg->row_sums && !cfg->values ? SV_TRIAL_GROUP : 1u;
    p.prog = NULL;
    return p;
}

/* Columns of V. */
static size_t value_cols(const sv_config *cfg)
{
    return cfg->d_v > 0 ? cfg->d_v : cfg->d_k;
}

/* Moments of one row of Q or K, for q_var and k_var: measured where they
 * are not simply the configured variance (projections, QK-norm); an empty
 * sample elsewhere, so tiny trials do not pay for it. */
static void entry_moments(const sv_config *cfg, const double *row, sv_moments *out)
{
    if (cfg->d_model > 0 || cfg->qk_norm)
        sv_moments_of(row, cfg->d_k, out);
    else
        *out = (sv_moments){0u, 0.0, 0.0};
}

/* Doubles of per-thread scratch: a query row (plant) or an embedding. */
static size_t scratch_len(const sv_config *cfg)
{
    return cfg->d_model > cfg->d_k ? cfg->d_model : cfg->d_k;
}

/* Bytes of the --values arrays: V block, exps, partial and running outputs. */
static int values_bytes(const sv_config *cfg, const plan *p, size_t *bytes)
{
    if (!cfg->values) {
        *bytes = 0;
        return 1;
    }
    const size_t dv = value_cols(cfg), it = (size_t)p->inner_threads;
    size_t a, b, c, d, t;
    return mul_ok(p->kb, dv, &a) && mul_ok(it * 2 * p->tm, p->kb, &b) &&
           mul_ok(it * 2 * p->tm, dv, &c) && mul_ok(cfg->n_q, 2 * dv, &d) && add_ok(a, b, &t) &&
           add_ok(t, c, &t) && add_ok(t, d, &t) && mul_ok(t, sizeof(double), bytes);
}

/* Element counts of the workspace arrays (tiny trials make group > 1 only
 * when n_q <= tm and n_k <= kb, so nothing here can overflow then). */
typedef struct ws_sizes {
    size_t k, qtile, scores, rows, tiles, stats;
} ws_sizes;

static int workspace_sizes(const sv_config *cfg, const plan *p, ws_sizes *z)
{
    const size_t per = (size_t)p->inner_threads * p->tm;
    size_t rows;
    if (!mul_ok(p->kb, cfg->d_k, &z->k) || !mul_ok(per, cfg->d_k, &z->qtile) ||
        !mul_ok(per, p->kb, &z->scores) || !mul_ok(cfg->n_q, p->group, &rows))
        return 0;
    z->rows = rows;
    z->tiles = per;
    z->stats = p->group > 1 ? rows : SV_STATS_ROWS;
    if (p->group > 1 && z->scores < p->group * cfg->n_q * cfg->n_k)
        z->scores = p->group * cfg->n_q * cfg->n_k;
    return 1;
}

/* Bytes of one workspace. */
static int workspace_bytes(const sv_config *cfg, const plan *p, size_t *bytes)
{
    ws_sizes z;
    size_t doubles, rows, tiles, total;
    if (!workspace_sizes(cfg, p, &z) || !add_ok(z.k, z.qtile, &doubles) ||
        !add_ok(doubles, z.scores, &doubles) || !mul_ok(doubles, sizeof(double), &total) ||
        !mul_ok(z.rows, sizeof(sv_moments) + sizeof(sv_softmax_acc), &rows) ||
        !add_ok(total, rows, &total) ||
        !mul_ok(z.tiles, sizeof(sv_softmax_acc) + sizeof(sv_moments), &tiles) ||
        !add_ok(total, tiles, &total) || !mul_ok(z.rows, sizeof(double), &rows) ||
        !add_ok(total, rows, &total) ||
        !mul_ok((size_t)p->inner_threads * scratch_len(cfg), sizeof(double), &rows) ||
        !add_ok(total, rows, &total) ||
        !mul_ok(cfg->d_model * cfg->d_k, 2 * sizeof(double), &rows) ||
        !add_ok(total, rows, &total) || !mul_ok(z.rows, sizeof(sv_moments), &rows) ||
        !add_ok(total, rows, &total) || !mul_ok(cfg->n_k * p->group, sizeof(sv_moments), &rows) ||
        !add_ok(total, rows, &total) || !values_bytes(cfg, p, &rows) ||
        !add_ok(total, rows, &total) || !mul_ok(z.stats, 2 * sizeof(sv_softmax_stats), &tiles) ||
        !add_ok(total, tiles, &total) || !add_ok(total, 8u * SV_ALIGN, bytes))
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
    free(ws->k);
    free(ws->qtile);
    free(ws->scores);
    free(ws->row_mo);
    free(ws->row_sm);
    free(ws->acc);
    free(ws->mo);
    free(ws->st);
    free(ws->planted);
    free(ws->scratch);
    free(ws->wq);
    free(ws->wk);
    free(ws->q_mo);
    free(ws->k_mo);
    free(ws->v);
    free(ws->e);
    free(ws->o_part);
    free(ws->o);
    *ws = (workspace){0};
}

/* n elements of `size` bytes aligned to SV_ALIGN (aligned_alloc wants a
 * multiple of the alignment). Overflow was ruled out by workspace_bytes. */
static void *alloc_aligned(size_t n, size_t size)
{
    size_t bytes = n * size;
    bytes += (SV_ALIGN - bytes % SV_ALIGN) % SV_ALIGN;
    return aligned_alloc(SV_ALIGN, bytes ? bytes : SV_ALIGN);
}

static int workspace_alloc(workspace *ws, const sv_config *cfg, const plan *p)
{
    ws_sizes z;
    if (!workspace_sizes(cfg, p, &z))
        return 0;
    ws->k = alloc_aligned(z.k, sizeof(double));
    ws->qtile = alloc_aligned(z.qtile, sizeof(double));
    ws->scores = alloc_aligned(z.scores, sizeof(double));
    ws->row_mo = alloc_aligned(z.rows, sizeof(sv_moments));
    ws->row_sm = alloc_aligned(z.rows, sizeof(sv_softmax_acc));
    ws->acc = alloc_aligned(z.tiles, sizeof(sv_softmax_acc));
    ws->mo = alloc_aligned(z.tiles, sizeof(sv_moments));
    ws->st = alloc_aligned(2 * z.stats, sizeof(sv_softmax_stats));
    ws->planted = alloc_aligned(z.rows, sizeof(double));
    ws->scratch = alloc_aligned((size_t)p->inner_threads * scratch_len(cfg), sizeof(double));
    ws->wq = alloc_aligned(cfg->d_model * cfg->d_k + 1, sizeof(double));
    ws->wk = alloc_aligned(cfg->d_model * cfg->d_k + 1, sizeof(double));
    ws->q_mo = alloc_aligned(z.rows, sizeof(sv_moments));
    ws->k_mo = alloc_aligned(cfg->n_k * p->group, sizeof(sv_moments));
    const size_t dv = value_cols(cfg), it = (size_t)p->inner_threads;
    ws->v = alloc_aligned(cfg->values ? p->kb * dv : 1, sizeof(double));
    ws->e = alloc_aligned(cfg->values ? it * 2 * p->tm * p->kb : 1, sizeof(double));
    ws->o_part = alloc_aligned(cfg->values ? it * 2 * p->tm * dv : 1, sizeof(double));
    ws->o = alloc_aligned(cfg->values ? cfg->n_q * 2 * dv : 1, sizeof(double));
    if (!ws->k || !ws->qtile || !ws->scores || !ws->row_mo || !ws->row_sm || !ws->acc || !ws->mo ||
        !ws->st || !ws->planted || !ws->scratch || !ws->wq || !ws->wk || !ws->q_mo || !ws->k_mo ||
        !ws->v || !ws->e || !ws->o_part || !ws->o) {
        workspace_free(ws);
        return 0;
    }
    return 1;
}

/* W_Q and W_K of one trial: row r of each from its own stream. */
static void draw_weights(const sv_config *cfg, uint64_t trial, const workspace *ws)
{
    const size_t d = cfg->d_k;
    const double sd = sqrt(sv_init_variance(cfg->init, cfg->d_model, d));
    for (int w = 0; w < 2; w++) {
        double *m = w ? ws->wk : ws->wq;
        const uint64_t key = sv_rng_matrix_key(cfg->seed, trial, w ? SV_MATRIX_WK : SV_MATRIX_WQ);
        for (size_t r = 0; r < cfg->d_model; r++) {
            sv_rng rng;
            sv_rng_seed_keyed(&rng, key, r);
            sv_sample_fill(&rng, SV_DIST_NORMAL, 0.0, m + r * d, d);
            for (size_t l = 0; l < d; l++)
                m[r * d + l] *= sd;
        }
    }
}

/* Row `row` of Q = X W_Q or K = X W_K (X' W_K with cross): the token's
 * embedding (d_model values of dist) into scratch, then times W. */
static void projected_row(const sv_config *cfg, const workspace *ws, uint64_t token_key,
                          sv_matrix which, size_t row, double *x, double *scratch)
{
    const size_t d = cfg->d_k, dm = cfg->d_model;
    sv_rng rng;
    sv_rng_seed_keyed(&rng, token_key, row);
    sv_sample_fill(&rng, cfg->dist, cfg->nu, scratch, dm);
    const double *w = which == SV_MATRIX_Q ? ws->wq : ws->wk;
    for (size_t l = 0; l < d; l++)
        x[l] = 0.0;
    for (size_t r = 0; r < dm; r++)
        for (size_t l = 0; l < d; l++)
            x[l] += scratch[r] * w[r * d + l];
}

/* One row of Q or K before QK-norm: dist, then mean + std x. */
static void base_row(const sv_config *cfg, uint64_t key, sv_matrix which, size_t row, double *x)
{
    const size_t d = cfg->d_k;
    const double mu = which == SV_MATRIX_Q ? cfg->q_mean : cfg->k_mean;
    const double sd = std_of(which == SV_MATRIX_Q ? cfg->q_std : cfg->k_std);
    sv_rng rng;
    sv_rng_seed_keyed(&rng, key, row);
    sv_sample_fill(&rng, cfg->dist, cfg->nu, x, d);
    if (mu != 0.0 || sd != 1.0)
        for (size_t l = 0; l < d; l++)
            x[l] = mu + sd * x[l];
}

/* Rows [row0, row0 + m) of one matrix of one trial into x (m x d_k), then
 * zeros up to `rows` rows. A planted key row also draws its query row,
 * into scratch (d_k doubles). */
static void draw_rows(const sv_config *cfg, const workspace *ws, uint64_t trial, sv_matrix which,
                      size_t row0, size_t m, size_t rows, double *x, double *scratch)
{
    const size_t d = cfg->d_k;
    /* The rows' stream key, hashed once per call: Q's or K's own, or with
     * projections the tokens' (X, or X' for cross-attention keys). */
    const sv_matrix src = cfg->d_model == 0                    ? which
                          : which == SV_MATRIX_K && cfg->cross ? SV_MATRIX_XK
                                                               : SV_MATRIX_X;
    const uint64_t key = sv_rng_matrix_key(cfg->seed, trial, src);
    const uint64_t qkey = cfg->plant != 0.0 ? sv_rng_matrix_key(cfg->seed, trial, SV_MATRIX_Q) : 0;
    const size_t planted = cfg->n_q < cfg->n_k ? cfg->n_q : cfg->n_k;
    const double rho = cfg->plant, rest = sqrt(1.0 - rho * rho);
    const double radius = cfg->qk_scale > 0.0 ? cfg->qk_scale : sqrt((double)d);
    for (size_t i = 0; i < m; i++) {
        double *row = x + i * d;
        if (cfg->d_model > 0)
            projected_row(cfg, ws, key, which, row0 + i, row, scratch);
        else
            base_row(cfg, key, which, row0 + i, row);
        if (which == SV_MATRIX_K && rho != 0.0 && row0 + i < planted) {
            /* k_j = rho q_j + sqrt(1 - rho^2) z_j */
            base_row(cfg, qkey, SV_MATRIX_Q, row0 + i, scratch);
            for (size_t l = 0; l < d; l++)
                row[l] = rho * scratch[l] + rest * row[l];
        }
        if (cfg->qk_norm) {
            double ss = 0.0;
            for (size_t l = 0; l < d; l++)
                ss += row[l] * row[l];
            const double f = ss > 0.0 ? radius / sqrt(ss) : 0.0;
            for (size_t l = 0; l < d; l++)
                row[l] *= f;
        }
    }
    memset(x + m * d, 0, (rows - m) * d * sizeof(double));
}

/* scores (tm x kb) = qtile (tm x d_k) * k^T (d_k x kb). */
static void tile_product(const sv_config *cfg, const plan *p, const double *qtile, const double *k,
                         double *scores)
{
    const size_t d = cfg->d_k, tm = p->tm, kb = p->kb;
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
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)tm, (int)kb, (int)d, 1.0, qtile,
                    (int)d, k, (int)d, 0.0, scores, (int)kb);
    }
}

/* Adds one row's visible scores (and, if asked, their softmax weights from
 * the row's complete sums acc) to the histograms. Counts are integers, so
 * the totals do not depend on the order threads add them in. */
static void hist_row(const sv_config *cfg, const double *s, size_t len, const sv_softmax_acc *acc)
{
    const size_t b = cfg->hist_bins;
    const double lo = cfg->hist_lo, width = (cfg->hist_hi - cfg->hist_lo) / (double)b;
    const double c = 1.0 / sv_config_scale(cfg);
    for (size_t j = 0; j < len; j++) {
        const double v[2] = {s[j], s[j] * c};
        uint64_t *h[2] = {cfg->hist_raw, cfg->hist_scaled};
        for (int k = 0; k < 2; k++) {
            const double x = (v[k] - lo) / width;
            const size_t i = x >= 0.0 && x < (double)b ? (size_t)x : b; /* b: outside */
#pragma omp atomic update
            h[k][i]++;
        }
        if (cfg->hist_w_raw) {
            const double t = s[j] - acc->max;
            const double p[2] = {exp(t) / (1.0 + acc->r[0]), exp(c * t) / (1.0 + acc->r[1])};
            uint64_t *w[2] = {cfg->hist_w_raw, cfg->hist_w_scaled};
            for (int k = 0; k < 2; k++) {
                size_t i = (size_t)(p[k] * (double)b);
                i = i < b ? i : b - 1;
#pragma omp atomic update
                w[k][i]++;
            }
        }
    }
}

/* --values: the tile's unnormalised outputs sum_j e_j v_j in this block's
 * max frame (one dgemm each for raw and scaled exps), merged into each
 * row's running output in the frame of the larger max, before the row's
 * softmax sums are merged (they still hold the old max). */
static void tile_outputs(const sv_config *cfg, const plan *p, const workspace *ws, size_t i0,
                         size_t m, size_t j0, const double *scores, const sv_softmax_acc *acc,
                         const size_t *seen, size_t me)
{
    const size_t tm = p->tm, kb = p->kb, dv = value_cols(cfg);
    const double c = 1.0 / sv_config_scale(cfg);
    double *e = ws->e + me * 2 * tm * kb, *op = ws->o_part + me * 2 * tm * dv;
    for (size_t r = 0; r < tm; r++)
        for (size_t j = 0; j < kb; j++) {
            const int vis = r < m && j < seen[r];
            const double t = vis ? scores[r * kb + j] - acc[r].max : 0.0;
            e[r * kb + j] = vis ? exp(t) : 0.0;
            e[tm * kb + r * kb + j] = vis ? exp(c * t) : 0.0;
        }
    for (int k = 0; k < 2; k++)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)tm, (int)dv, (int)kb, 1.0,
                    e + k * tm * kb, (int)kb, ws->v, (int)dv, 0.0, op + k * tm * dv, (int)dv);
    for (size_t r = 0; r < m; r++) {
        if (seen[r] == 0)
            continue;
        double *o = ws->o + (i0 + r) * 2 * dv;
        const double m_old = ws->row_sm[i0 + r].max, m_new = acc[r].max;
        for (int k = 0; k < 2; k++) {
            const double ck = k ? c : 1.0;
            const double *part = op + k * tm * dv + r * dv;
            if (j0 == 0) {
                for (size_t l = 0; l < dv; l++)
                    o[k * dv + l] = part[l];
            } else {
                const double top = m_new > m_old ? m_new : m_old;
                const double fa = exp(ck * (m_old - top)), fb = exp(ck * (m_new - top));
                for (size_t l = 0; l < dv; l++)
                    o[k * dv + l] = o[k * dv + l] * fa + part[l] * fb;
            }
        }
    }
}

/* Whether key i is related to query i: planted, or the same token. */
static int has_diag(const sv_config *cfg)
{
    return cfg->plant != 0.0 || (cfg->d_model > 0 && !cfg->cross);
}

/* One tile: query rows [i0, i0 + m) against key block [j0, j0 + nk).
 * qtile, scores, acc and mo are this thread's scratch. */
static void score_tile(const sv_config *cfg, const plan *p, const workspace *ws, uint64_t trial,
                       size_t i0, size_t m, size_t j0, size_t nk, double *qtile, double *scores,
                       sv_softmax_acc *acc, sv_moments *mo, double *scratch, size_t me)
{
    const double scale = 1.0 / sv_config_scale(cfg);
    if (cfg->causal && i0 + m <= j0)
        return; /* every row of the tile comes before every key of the block */
    draw_rows(cfg, ws, trial, SV_MATRIX_Q, i0, m, p->tm, qtile, scratch);
    if (j0 == 0)
        for (size_t r = 0; r < m; r++)
            entry_moments(cfg, qtile + r * cfg->d_k, &ws->q_mo[i0 + r]);
    /* A short last key block is zero-padded: the shape never changes. */
    tile_product(cfg, p, qtile, ws->k, scores);
    size_t seen[SV_TILE_ROWS]; /* keys of this block row r sees */
    for (size_t r = 0; r < m; r++)
        seen[r] = !cfg->causal ? nk : i0 + r < j0 ? 0 : i0 + r - j0 + 1 < nk ? i0 + r - j0 + 1 : nk;
    if (!cfg->causal) {
        sv_softmax_acc_rows(scores, m, nk, p->kb, scale, acc, mo);
    } else {
        for (size_t r = 0; r < m; r++)
            if (seen[r] > 0)
                sv_softmax_acc_rows(scores + r * p->kb, 1, seen[r], p->kb, scale, &acc[r], &mo[r]);
    }
    if (cfg->hist_bins > 0)
        for (size_t r = 0; r < m; r++)
            if (seen[r] > 0)
                hist_row(cfg, scores + r * p->kb, seen[r], &acc[r]);
    /* Key j = i shares something with query i and lies in this block:
     * keep S_ii. */
    if (has_diag(cfg))
        for (size_t r = 0; r < m; r++)
            if (i0 + r >= j0 && i0 + r < j0 + nk)
                ws->planted[i0 + r] = scores[r * p->kb + (i0 + r - j0)];
    if (cfg->values)
        tile_outputs(cfg, p, ws, i0, m, j0, scores, acc, seen, me);
    for (size_t r = 0; r < m; r++) {
        if (seen[r] == 0)
            continue;
        if (j0 == 0) {
            ws->row_mo[i0 + r] = mo[r];
            ws->row_sm[i0 + r] = acc[r];
        } else {
            sv_moments_merge(&ws->row_mo[i0 + r], &mo[r]);
            sv_softmax_acc_merge(&ws->row_sm[i0 + r], &acc[r], scale);
        }
    }
}

/* Neumaier's compensated sum: means over many rows keep their last digits. */
typedef struct ksum {
    double s, c;
} ksum;

static void ksum_add(ksum *k, double x)
{
    const double t = k->s + x;
    k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
    k->s = t;
}

static double ksum_mean(const ksum *k, size_t n)
{
    return (k->s + k->c) / (double)n;
}

/* Row j of the key block starting at key j0 (bk real keys; zeros after). */
static void draw_key_row(const sv_config *cfg, uint64_t trial, const workspace *ws, size_t j0,
                         size_t bk, size_t j, size_t me)
{
    if (j < bk) {
        double *row = ws->k + j * cfg->d_k;
        draw_rows(cfg, ws, trial, SV_MATRIX_K, j0 + j, 1, 1, row,
                  ws->scratch + me * scratch_len(cfg));
        entry_moments(cfg, row, &ws->k_mo[j0 + j]);
    } else {
        memset(ws->k + j * cfg->d_k, 0, cfg->d_k * sizeof(double));
    }
    if (cfg->values) {
        const size_t dv = value_cols(cfg);
        if (j < bk) {
            sv_rng rng;
            sv_rng_seed_keyed(&rng, sv_rng_matrix_key(cfg->seed, trial, SV_MATRIX_V), j0 + j);
            sv_sample_fill(&rng, cfg->dist, cfg->nu, ws->v + j * dv, dv);
        } else {
            memset(ws->v + j * dv, 0, dv * sizeof(double));
        }
    }
}

/* Counts `units` finished tiles; thread 0 reports the total so far. */
static void report(const sv_config *cfg, const plan *p, uint64_t units)
{
    if (!p->prog)
        return;
    uint64_t done;
#pragma omp atomic capture
    done = p->prog->done += units;
    if (omp_get_thread_num() == 0)
        cfg->progress(cfg->progress_ctx, done, p->prog->total);
}

/* Work item b: its tiles of query rows against the key block at j0. */
static void run_item(const sv_config *cfg, const plan *p, uint64_t trial, const workspace *ws,
                     size_t b, size_t j0, size_t bk, size_t me)
{
    double *qtile = ws->qtile + me * p->tm * cfg->d_k;
    double *scores = ws->scores + me * p->tm * p->kb;
    sv_softmax_acc *acc = ws->acc + me * p->tm;
    sv_moments *mo = ws->mo + me * p->tm;
    double *scratch = ws->scratch + me * scratch_len(cfg);
    const size_t tm = p->tm, rows_per_item = tm * p->block_tiles;
    const size_t end = (b + 1) * rows_per_item < cfg->n_q ? (b + 1) * rows_per_item : cfg->n_q;
    uint64_t units = 0;
    for (size_t i0 = b * rows_per_item; i0 < end; i0 += tm, units++)
        score_tile(cfg, p, ws, trial, i0, end - i0 < tm ? end - i0 : tm, j0, bk, qtile, scores, acc,
                   mo, scratch, me);
    if (p->inner_threads > 1)
        report(cfg, p, units);
}

/* A trial's statistics, built from its rows in row order: the same bits for
 * any thread count or block size. */
typedef struct trial_acc {
    sv_moments mo, q, k; /* the scores; the entries of Q and of K */
    ksum h[2], mw[2], jt[2], jf[2], ek[2], pl_logit, pl_w[2], p2[2];
    sv_moments out[2]; /* entries of O, raw and scaled */
    double hmin[2], hmax[2], maxabs;
    size_t n_planted;
    int plain; /* few rows: plain sums are as exact, and cheaper */
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

static void trial_init(trial_acc *t, const sv_config *cfg)
{
    *t = (trial_acc){.hmin = {INFINITY, INFINITY},
                     .hmax = {-INFINITY, -INFINITY},
                     .plain = cfg->n_q <= SV_PLAIN_ROWS};
}

/* Adds rows row0 .. row0 + n - 1 with moments mo[i], softmax sums sm[i],
 * statistics raw[i], sc[i] and planted logits planted[i]. */
static void trial_add(const sv_config *cfg, trial_acc *t, size_t row0, const sv_moments *mo,
                      const sv_softmax_acc *sm, const sv_softmax_stats *raw,
                      const sv_softmax_stats *sc, const double *planted, size_t n)
{
    const size_t n_planted = !has_diag(cfg) ? 0 : cfg->n_q < cfg->n_k ? cfg->n_q : cfg->n_k;
    const double inv_c = 1.0 / sv_config_scale(cfg);
    for (size_t i = 0; i < n; i++) {
        if (row0 + i < n_planted) {
            /* p = exp(c (S_ii - max)) / Z, Z = 1 + r. */
            const double t0 = planted[i] - sm[i].max;
            acc_add(t, &t->pl_logit, planted[i]);
            acc_add(t, &t->pl_w[0], exp(t0) / (1.0 + sm[i].r[0]));
            acc_add(t, &t->pl_w[1], exp(inv_c * t0) / (1.0 + sm[i].r[1]));
            t->n_planted++;
        }
        sv_moments_merge(&t->mo, &mo[i]);
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
        t->maxabs = fmax(t->maxabs, fmax(fabs(sm[i].max), fabs(sm[i].min)));
    }
}

/* The entries of Q and K, row moments merged in row order. */
static void trial_add_entries(trial_acc *t, const sv_moments *q, size_t nq, const sv_moments *k,
                              size_t nk)
{
    for (size_t i = 0; i < nq; i++)
        sv_moments_merge(&t->q, &q[i]);
    for (size_t j = 0; j < nk; j++)
        sv_moments_merge(&t->k, &k[j]);
}

static void trial_finish(const sv_config *cfg, const trial_acc *t, sv_trial_stats *out)
{
    const size_t nq = cfg->n_q;
    const double c = sv_config_scale(cfg);
    out->raw_mean = t->mo.mean;
    out->raw_var = sv_moments_variance(&t->mo, cfg->ddof);
    out->scaled_mean = t->mo.mean / c;
    out->scaled_var = out->raw_var / sv_config_scale2(cfg);
    out->raw_entropy = ksum_mean(&t->h[0], nq);
    out->scaled_entropy = ksum_mean(&t->h[1], nq);
    out->raw_max_weight = ksum_mean(&t->mw[0], nq);
    out->scaled_max_weight = ksum_mean(&t->mw[1], nq);
    out->raw_jac_trace = ksum_mean(&t->jt[0], nq);
    out->scaled_jac_trace = ksum_mean(&t->jt[1], nq);
    /* Known mean: sum (S - mu)^2 = M2 + N (mean - mu)^2. */
    const double mu = (double)cfg->d_k * cfg->q_mean * cfg->k_mean, n = (double)t->mo.n;
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
    /* Mean of O^2 (V has mean 0, so this is the known-mean variance): given
     * the weights, E[O_il^2] = sum_j p_ij^2 exactly. The sample variance
     * would also remove the spread of the rows' means, which is not small
     * when rows share their top keys (d_k = 1). */
    for (int k = 0; k < 2; k++) {
        const double nn = (double)t->out[k].n, om = t->out[k].mean;
        const double v = cfg->values && nn > 0 ? (t->out[k].m2 + nn * om * om) / nn : NAN;
        if (k)
            out->scaled_out_var = v;
        else
            out->raw_out_var = v;
    }
    out->raw_sum_p2 = ksum_mean(&t->p2[0], nq);
    out->scaled_sum_p2 = ksum_mean(&t->p2[1], nq);
}

static void run_trial(const sv_config *cfg, const plan *p, uint64_t trial, const workspace *ws,
                      sv_trial_stats *out)
{
    const size_t nq = cfg->n_q, nk = cfg->n_k, tm = p->tm, kb = p->kb;
    const size_t nitems = (nq + tm * p->block_tiles - 1) / (tm * p->block_tiles);

    if (cfg->d_model > 0)
        draw_weights(cfg, trial, ws);
    if (p->inner_threads == 1) {
        /* No OpenMP constructs at all: this runs inside the trial-parallel
         * region, where even an if(0) region would cost a team per trial. */
        for (size_t j0 = 0; j0 < nk; j0 += kb) {
            const size_t bk = nk - j0 < kb ? nk - j0 : kb;
            for (size_t j = 0; j < kb; j++)
                draw_key_row(cfg, trial, ws, j0, bk, j, 0);
            for (size_t b = 0; b < nitems; b++)
                run_item(cfg, p, trial, ws, b, j0, bk, 0);
        }
    } else {
#pragma omp parallel num_threads(p->inner_threads)
        {
            const size_t me = (size_t)omp_get_thread_num();
            for (size_t j0 = 0; j0 < nk; j0 += kb) {
                const size_t bk = nk - j0 < kb ? nk - j0 : kb;
                /* Every row its own stream: who draws it does not matter. */
#pragma omp for schedule(static)
                for (size_t j = 0; j < kb; j++)
                    draw_key_row(cfg, trial, ws, j0, bk, j, me);
#pragma omp for schedule(dynamic, 1)
                for (size_t b = 0; b < nitems; b++)
                    run_item(cfg, p, trial, ws, b, j0, bk, me);
            }
        }
    }

    /* The softmax statistics of SV_STATS_ROWS rows at a time, then the
     * rows in order. */
    const double scale = 1.0 / sv_config_scale(cfg);
    trial_acc t;
    trial_init(&t, cfg);
    for (size_t i0 = 0; i0 < nq; i0 += SV_STATS_ROWS) {
        const size_t cnt = nq - i0 < SV_STATS_ROWS ? nq - i0 : SV_STATS_ROWS;
        sv_softmax_acc_stats_rows(ws->row_sm + i0, cnt, scale, ws->st, ws->st + cnt);
        trial_add(cfg, &t, i0, ws->row_mo + i0, ws->row_sm + i0, ws->st, ws->st + cnt,
                  ws->planted + i0, cnt);
        for (size_t i = 0; cfg->values && i < cnt; i++) {
            /* O_i = o_i / Z_i; its entries' moments, rows in order. */
            const size_t dv = value_cols(cfg);
            double *o = ws->o + (i0 + i) * 2 * dv;
            for (int k = 0; k < 2; k++) {
                const double z = 1.0 + ws->row_sm[i0 + i].r[k];
                for (size_t l = 0; l < dv; l++)
                    o[k * dv + l] /= z;
                sv_moments om;
                sv_moments_of(o + k * dv, dv, &om);
                sv_moments_merge(&t.out[k], &om);
            }
        }
        for (size_t i = 0; cfg->row_sums && i < cnt; i++) {
            double *rs = cfg->row_sums + (i0 + i) * SV_ROW_FIELDS;
            rs[0] += ws->st[i].entropy;
            rs[1] += ws->st[cnt + i].entropy;
            rs[2] += ws->st[i].max_weight;
            rs[3] += ws->st[cnt + i].max_weight;
        }
    }
    trial_add_entries(&t, ws->q_mo, nq, ws->k_mo, nk);
    trial_finish(cfg, &t, out);
}

/* Tiny trials [t0, t0 + cnt), cnt <= group, one tile and one key block each:
 * their rows go through the row kernel together, and each row gets the
 * same bits it would get alone (sv_softmax_acc_rows). */
static void run_trial_group(const sv_config *cfg, const plan *p, uint64_t t0, size_t cnt,
                            const workspace *ws, sv_trial_stats *out)
{
    const size_t nq = cfg->n_q, nk = cfg->n_k, n = nq * nk;
    const double scale = 1.0 / sv_config_scale(cfg);
    const size_t d = cfg->d_k;
    for (size_t g = 0; g < cnt; g++) {
        if (cfg->d_model > 0)
            draw_weights(cfg, t0 + g, ws);
        draw_rows(cfg, ws, t0 + g, SV_MATRIX_Q, 0, nq, nq, ws->qtile, ws->scratch);
        draw_rows(cfg, ws, t0 + g, SV_MATRIX_K, 0, nk, nk, ws->k, ws->scratch);
        for (size_t i = 0; i < nq; i++)
            entry_moments(cfg, ws->qtile + i * d, &ws->q_mo[g * nq + i]);
        for (size_t j = 0; j < nk; j++)
            entry_moments(cfg, ws->k + j * d, &ws->k_mo[g * nk + j]);
        tile_product(cfg, p, ws->qtile, ws->k, ws->scores + g * n);
        for (size_t i = 0; has_diag(cfg) && i < nq && i < nk; i++)
            ws->planted[g * nq + i] = ws->scores[g * n + i * nk + i];
    }
    const size_t rows = cnt * nq;
    if (!cfg->causal) {
        sv_softmax_acc_rows(ws->scores, rows, nk, nk, scale, ws->row_sm, ws->row_mo);
    } else {
        for (size_t r = 0; r < rows; r++) /* row i of a trial sees keys 0 .. i */
            sv_softmax_acc_rows(ws->scores + r * nk, 1, r % nq + 1, nk, scale, &ws->row_sm[r],
                                &ws->row_mo[r]);
    }
    sv_softmax_acc_stats_rows(ws->row_sm, rows, scale, ws->st, ws->st + rows);
    for (size_t r = 0; cfg->hist_bins > 0 && r < rows; r++)
        hist_row(cfg, ws->scores + r * nk, cfg->causal ? r % nq + 1 : nk, &ws->row_sm[r]);
    for (size_t g = 0; g < cnt; g++) {
        trial_acc t;
        trial_init(&t, cfg);
        trial_add(cfg, &t, 0, ws->row_mo + g * nq, ws->row_sm + g * nq, ws->st + g * nq,
                  ws->st + rows + g * nq, ws->planted + g * nq, nq);
        trial_add_entries(&t, ws->q_mo + g * nq, nq, ws->k_mo + g * nk, nk);
        trial_finish(cfg, &t, &out[g]);
    }
}

/* Trials [t0, t0 + cnt): grouped if tiny, else one by one. */
static void run_trials(const sv_config *cfg, const plan *p, uint64_t t0, size_t cnt,
                       const workspace *ws, sv_trial_stats *out)
{
    if (p->group > 1) {
        run_trial_group(cfg, p, t0, cnt, ws, out);
    } else {
        for (size_t g = 0; g < cnt; g++)
            run_trial(cfg, p, t0 + g, ws, &out[g]);
    }
}

sv_status sv_experiment_run(const sv_config *cfg, sv_trial_stats *per_trial)
{
    sv_status st = sv_config_check(cfg);
    if (st != SV_OK)
        return st;
    if (!per_trial)
        return SV_EINVAL;
    plan p = make_plan(cfg);
    progress prog = {0u, 0u};
    if (cfg->progress) {
        const uint64_t tiles = (cfg->n_q + p.tm - 1) / p.tm, blocks = (cfg->n_k + p.kb - 1) / p.kb;
        prog.total = tiles * blocks * cfg->trials;
        p.prog = &prog;
    }
    /* We parallelise ourselves; OpenBLAS threads inside ours would
     * oversubscribe the cores. */
    openblas_set_num_threads(1);

    if (!p.trial_parallel) {
        workspace ws = {0};
        if (!workspace_alloc(&ws, cfg, &p))
            return SV_ENOMEM;
        for (uint64_t t = 0; t < cfg->trials; t += p.group) {
            const size_t cnt = cfg->trials - t < p.group ? (size_t)(cfg->trials - t) : p.group;
            run_trials(cfg, &p, cfg->first_trial + t, cnt, &ws, &per_trial[t]);
            if (p.inner_threads == 1)
                report(cfg, &p, (prog.total / cfg->trials) * cnt);
        }
        workspace_free(&ws);
        return SV_OK;
    }

    int failed = 0;
#pragma omp parallel num_threads(p.threads)
    {
        workspace ws = {0};
        if (!workspace_alloc(&ws, cfg, &p)) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp barrier
        int stop;
#pragma omp atomic read
        stop = failed;
        if (!stop) {
            const uint64_t groups = (cfg->trials + p.group - 1) / p.group;
#pragma omp for schedule(dynamic, 4)
            for (uint64_t g = 0; g < groups; g++) {
                const uint64_t t = g * p.group;
                const size_t cnt = cfg->trials - t < p.group ? (size_t)(cfg->trials - t) : p.group;
                run_trials(cfg, &p, cfg->first_trial + t, cnt, &ws, &per_trial[t]);
                report(cfg, &p, (prog.total / cfg->trials) * cnt);
            }
        }
        workspace_free(&ws);
    }
    return failed ? SV_ENOMEM : SV_OK;
}
