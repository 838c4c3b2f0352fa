/* The engine's private plan and workspace, shared by plan.c (sizes and
 * checks), tile.c (tile product, --values outputs), rowpass.c (the fused
 * pass over each row of a tile), rowfold.c (rows folded into a trial) and engine.c
 * (threads and trials). Not installed: nothing outside src/ sees it.
 *
 * Layout of one trial. Keys are processed in blocks of kb rows (outer loop,
 * in key order); within a key block, query rows in tiles of tm rows (inner
 * loop, split across threads). Each tile's rows come from the source into
 * an aligned, zero-padded buffer, and one cblas_dgemm of the fixed shape
 * tm x kb x d_k gives its scores. Each (row, key block) yields two-pass
 * moments and partial softmax sums, merged into the row's running state in
 * key order; rows are merged into the trial in row order.
 *
 * Why this shape:
 * - memory is O(kb d_k + threads tm (kb + d_k) + n_q): K is never held
 *   whole and Q never at all, so n = 65 536 runs in a few tens of MiB;
 *   query rows are fetched again once per key block (n_k / kb times),
 *   cheap next to the product;
 * - every dgemm call has the same shape and aligned operands, and OpenBLAS
 *   picks kernels and edge cases by shape and alignment: each score is the
 *   same bits whatever the thread count or block rows; tm and kb depend
 *   on the spec only. */
#ifndef SDPA_VAR_PLAN_H
#define SDPA_VAR_PLAN_H

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sdpa_var/engine.h"
#include "sdpa_var/moments.h"
#include "sdpa_var/rowfold.h"
#include "sdpa_var/softmax.h"
#include "softmax_rows.h"

#define SV_TILE_ROWS 256u  /* tm: query rows per dgemm */
#define SV_KEY_BLOCK 4096u /* kb: keys per block (scores tile: 8 MiB) */
static_assert(SV_KEY_BLOCK >= SV_WEIGHT_HIST_KEYS_MAX, "a weight histogram's row in one block");
#define SV_ALIGN 64u

/* This thread's number and the default thread count: OpenMP's, or one
 * thread in a build without OpenMP (WebAssembly), where every `omp`
 * pragma is ignored and the loops run in order. */
#ifdef _OPENMP
#define SV_THREAD_NUM() omp_get_thread_num()
#define SV_MAX_THREADS() omp_get_max_threads()
#else
#define SV_THREAD_NUM() 0
#define SV_MAX_THREADS() 1
#endif
#define SV_TINY_TILE 512u  /* tm kb d_k below which plain loops beat dgemm */
#define SV_TRIAL_GROUP 64u /* tiny trials run together */
#define SV_STATS_ROWS 128u /* rows whose softmax statistics are taken at once */

/* Trials whose score matrix has fewer entries than this run whole, one per
 * thread, instead of splitting one trial's tiles across threads. */
#define SV_SMALL_TRIAL_SCORES ((size_t)1 << 16)

/* Work done so far, for the progress callback: units are tiles (one query
 * tile against one key block). */
typedef struct progress {
    uint64_t done, total;
    uint64_t reported; /* `done` of thread 0's last call of the callback */
} progress;

/* Everything one run reads: the caller's spec, source, options and taps,
 * and the sizes derived from them once (sv__plan_make), checked. */
typedef struct plan {
    const sv_spec *spec;
    const sv_source *src;
    const sv_exec *exec;
    sv_taps taps;       /* a copy; zeroed when the caller passed none */
    uint64_t count;     /* trials in this run */
    int threads;        /* OpenMP threads in all */
    int trial_parallel; /* whole trials per thread, else tiles per thread */
    int inner_threads;  /* threads sharing one trial */
    size_t tm;          /* query rows per dgemm (spec only) */
    size_t kb;          /* keys per block (spec only) */
    size_t dv;          /* columns of V; 0 without values */
    int grad;           /* --grad: the backward passes of grad.c run */
    size_t qb, tk;      /* grad: queries per block, keys per tile (spec only) */
    size_t block_tiles; /* tiles per work item handed to a thread */
    int tiny;           /* tile product small enough for plain loops */
    size_t group;       /* trials run together by one thread (tiny ones) */
    progress *prog;     /* shared counter; NULL without a callback */
    uint64_t first;     /* the first trial of the run */
    size_t row0, row1;  /* query rows run: [0, n_q) but for sv_engine_run_rows */
    sv_rowfold *folds;  /* sv_engine_run_rows: count x fold_blocks folds, else NULL */
    size_t fold_blocks; /* blocks of the fold in [row0, row1) */
    double ln_nk;       /* log(n_k): the normalised entropy of a row seeing every key */
    double theory_mean; /* sv_theory_mean(spec): the known-mean variance's E[S] */
    unsigned char must[SV_TRIAL_FIELDS]; /* the fields that must be numbers */
    size_t n_must;
} plan;

/* fmin and fmax as glibc's x86-64 ones compute them (a NaN gives the
 * other operand; else minsd / maxsd, the second on a tie), inline: a call
 * cost more than the comparison, and trials take several per row. */
static inline double sv__fmin(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
}

static inline double sv__fmax(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

/* Whether the caller asked the run to stop (sv_exec.cancel): a relaxed
 * read, since another thread writes the flag; callers skip the rest of
 * their work item, and run_checked turns it into SV_ECANCELED. */
static inline int sv__cancelled(const plan *p)
{
    const volatile int *flag = p->exec->cancel;
    if (!flag)
        return 0;
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
#else
    return *flag != 0;
#endif
}

/* The multiplier of row i's softmax sums: spec->scale, or with
 * scale_logn c_i = scale ln(n_i) (sv_spec_row_scale). A row of one key has
 * c_i = 0, but its sums (r = w = q = u = 0: only its max key) and
 * statistics (weight 1, entropy 0) are the same for every c, so it takes
 * spec->scale, which the softmax functions accept (they need c > 0), and
 * its logit c_i S counts as 0 only in the scaled moments (rowfold.c). A row
 * of no key (NaN) is never summed. */
static inline double sv__row_scale(const plan *p, size_t i)
{
    if (!p->spec->scale_logn)
        return p->spec->scale;
    const double c = sv_spec_row_scale(p->spec, i);
    return c > 0.0 ? c : p->spec->scale;
}

/* Element counts of a workspace's arrays, all checked for overflow. */
typedef struct ws_sizes {
    size_t k, qtile, scores, rows, tiles, stats, k_rows, scratch, state, v, e, o_part, o;
    size_t mrow; /* a source mask: inner_threads x kb; 0 without */
    size_t grad; /* the backward passes' arena (grad_layout); 0 without grad */
} ws_sizes;

typedef struct workspace {
    double *k;              /* kb x d_k: the current key block, row-major */
    double *qtile;          /* inner_threads x tm x d_k */
    double *scores;         /* inner_threads x tm x kb, or group x n_q x n_k */
    sv_moments *row_mo;     /* running moments of each query row: n_q, or group x n_q */
    sv_softmax_acc *row_sm; /* running softmax sums of each query row, the same */
    sv_softmax_acc *acc;    /* per-tile scratch: inner_threads x tm */
    sv_moments *mo;         /* the same for the moments */
    sv_softmax_stats *st;   /* 2 x stats rows: raw then scaled statistics */
    double *planted;        /* S_ii of each query row with a related key (as row_mo) */
    double *sink;           /* each query row's score on the first key it sees (as row_mo) */
    double *scratch;        /* inner_threads x the source's scratch_len */
    double *state;          /* the source's per-trial state (trial_len) */
    sv_moments *q_mo;       /* moments of each row of Q (as row_mo) */
    sv_moments *k_mo;       /* moments of each row of K: n_k, or group x n_k */
    double *v;              /* values: kb x d_v, the current key block's rows of V */
    double *e;              /* values: inner_threads x 2 x tm x kb exps (raw, scaled) */
    double *o_part;         /* values: inner_threads x 2 x tm x d_v partial outputs */
    double *o;              /* values: n_q x 2 x d_v running outputs, in each row's max frame */
    double *grad;           /* grad: the arena grad_layout slices */
    double *mrow;           /* mask: inner_threads x kb, one row's mask, then its
                               visible scores packed (rowpass.c); NULL without */
} workspace;

/* grad.c: offsets (in doubles) into the backward passes' arena. Shared:
 * dq (n_q x 2 x d_k), dk (n_k x 2 x d_k), delta (n_q x 2: g_i . o_i),
 * rowg (n_q x GRAD_ROW: per row, raw then scaled, the running max |g|,
 * sum g^2 and sum g^4 in its units; then the row's top key, its a = g.v,
 * the sum of p a over the other keys and its gradient), the pass over keys'
 * query block qblk (qb x d_k) and its rows of G gblk (qb x d_v); then per
 * thread `per` doubles of tiles, the larger of the two passes' needs. */
#define GRAD_ROW 13u
typedef struct grad_layout {
    size_t dq, dk, delta, rowg, qblk, gblk, thread, per, total;
} grad_layout;

/* Neumaier's compensated sum (rowfold.c, grad.c): means over many rows keep
 * their last digits, whatever their order of magnitude. */
typedef struct ksum {
    double s, c;
} ksum;

static inline void ksum_add(ksum *k, double x)
{
    const double t = k->s + x;
    k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
    k->s = t;
}

static inline double ksum_mean(const ksum *k, size_t n)
{
    return (k->s + k->c) / (double)n;
}

/* plan.c: checks spec, source, options and taps, and derives the plan and
 * the workspace's sizes; every size product is overflow-checked here. */
sv_status sv__plan_make(plan *p, const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                        const sv_taps *taps, uint64_t first, uint64_t count, ws_sizes *z,
                        size_t *bytes);

/* tile.c: C (m x n, row stride ldc) = A (m x k) B^T when trans_b, else
 * A B (B k x n), row-major: OpenBLAS's dgemm, or plain loops without it. */
void sv__tile_gemm(int trans_b, size_t m, size_t n, size_t k, const double *a, size_t lda,
                   const double *b, size_t ldb, double *c, size_t ldc);
/* tile.c: scores (tm x kb) = qtile (tm x d_k) k^T; and the --values
 * outputs of one tile, merged into the rows' running outputs. */
void sv__tile_product(const plan *p, const double *qtile, const double *k, double *scores);
void sv__tile_outputs(const plan *p, const workspace *ws, size_t i0, size_t m, size_t j0,
                      const double *scores, const sv_softmax_acc *acc, const size_t *lo,
                      const size_t *hi, size_t me);

/* rowpass.c: one tile (query rows [i0, i0 + m) against the key block at
 * j0 with bk keys) through the row pass, merged into the rows' state. */
void sv__rowpass_tile(const plan *p, const workspace *ws, uint64_t trial, size_t i0, size_t m,
                      size_t j0, size_t bk, size_t me);
/* Adds one row's visible scores (and weights) to the histogram taps. */
void sv__rowpass_hist(const plan *p, const double *s, size_t len, const sv_softmax_acc *acc);
/* Moments of one row of Q or K when the source asks for them; empty else. */
void sv__rowpass_entries(const plan *p, const double *row, sv_moments *out);

/* grad.c: the layout of the arena (0 on size_t overflow); and with
 * spec->grad, after sv__trial_reduce (ws->o holds O), the backward passes of
 * one trial: a pass over query tiles (row statistics, dL/dQ), a pass over
 * key tiles (dL/dK), scores recomputed in each; their statistics into out. */
int sv__grad_layout_of(const plan *p, grad_layout *g);
void sv__grad_trial(const plan *p, uint64_t trial, const workspace *ws, sv_trial_stats *out);

/* rowfold.c: the statistics of a trial from its rows' state (moments,
 * softmax sums, planted logits, entries), rows merged in row order. Used by
 * the one-trial path (sv__trial_reduce: all n_q rows of ws) and the grouped
 * path (sv__trial_from_rows: rows whose statistics are already in st). The sink
 * weight of row i is exp(c (S_ia - max_i)) / Z_i from its score on a, the
 * first key it sees (ws->sink), as the diagonal weight is from S_ii
 * (ws->planted). */
void sv__trial_reduce(const plan *p, const workspace *ws, sv_trial_stats *out);
/* sv_engine_run_rows: the folds of rows [row0, row1), one per block. */
void sv__trial_folds(const plan *p, const workspace *ws, sv_rowfold *out);
void sv__trial_from_rows(const plan *p, const sv_moments *row_mo, const sv_softmax_acc *row_sm,
                         const sv_softmax_stats *raw, const sv_softmax_stats *sc,
                         const double *planted, const double *sink, const sv_moments *q_mo,
                         const sv_moments *k_mo, sv_trial_stats *out);

#endif
