/* The engine's driver: workspaces, threads and trials. A trial runs key
 * block by key block (rows from the source, tiles through the row pass,
 * rowpass.c), then its rows are reduced in order (rowfold.c). Tiny trials
 * run 64 at a time through one call of the row kernel; whole trials run
 * one per thread when there are enough of them. */
#include <math.h>
#ifdef SV_HAVE_BLAS
#include <cblas.h>
#include <pthread.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "plan.h"
#include "sdpa_var/theory.h"

static void workspace_free(workspace *ws)
{
    void *arrays[] = {ws->k,  ws->qtile,   ws->scores,  ws->row_mo, ws->row_sm, ws->acc,  ws->mo,
                      ws->st, ws->planted, ws->scratch, ws->state,  ws->q_mo,   ws->k_mo, ws->v,
                      ws->e,  ws->o_part,  ws->o,       ws->grad,   ws->sink,   ws->mrow};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        sv__free_aligned(arrays[i]);
    *ws = (workspace){0};
}

/* n elements of `size` bytes aligned to SV_ALIGN. sv__plan_make checked
 * n size + SV_ALIGN. */
static void *alloc_aligned(size_t n, size_t size)
{
    return sv__malloc_aligned(n * size, SV_ALIGN);
}

static int workspace_alloc(workspace *ws, const ws_sizes *z)
{
    ws->k = alloc_aligned(z->k, sizeof(double));
    ws->qtile = alloc_aligned(z->qtile, sizeof(double));
    ws->scores = alloc_aligned(z->scores, sizeof(double));
    ws->row_mo = alloc_aligned(z->rows, sizeof(sv_moments));
    ws->row_sm = alloc_aligned(z->rows, sizeof(sv_softmax_acc));
    ws->acc = alloc_aligned(z->tiles, sizeof(sv_softmax_acc));
    ws->mo = alloc_aligned(z->tiles, sizeof(sv_moments));
    ws->st = alloc_aligned(2 * z->stats, sizeof(sv_softmax_stats));
    ws->planted = alloc_aligned(z->rows, sizeof(double));
    ws->sink = alloc_aligned(z->rows, sizeof(double));
    ws->scratch = alloc_aligned(z->scratch, sizeof(double));
    ws->state = alloc_aligned(z->state, sizeof(double));
    ws->q_mo = alloc_aligned(z->rows, sizeof(sv_moments));
    ws->k_mo = alloc_aligned(z->k_rows, sizeof(sv_moments));
    ws->v = alloc_aligned(z->v, sizeof(double));
    ws->e = alloc_aligned(z->e, sizeof(double));
    ws->o_part = alloc_aligned(z->o_part, sizeof(double));
    ws->o = alloc_aligned(z->o, sizeof(double));
    ws->grad = z->grad ? alloc_aligned(z->grad, sizeof(double)) : NULL;
    ws->mrow = z->mrow ? alloc_aligned(z->mrow, sizeof(double)) : NULL;
    if ((z->grad && !ws->grad) || (z->mrow && !ws->mrow) || !ws->k || !ws->qtile || !ws->scores ||
        !ws->row_mo || !ws->row_sm || !ws->acc || !ws->mo || !ws->st || !ws->planted || !ws->sink ||
        !ws->scratch || !ws->state || !ws->q_mo || !ws->k_mo || !ws->v || !ws->e || !ws->o_part ||
        !ws->o) {
        workspace_free(ws);
        return 0;
    }
    return 1;
}

/* Row j of the key block starting at key j0 (bk real keys; zeros after),
 * and with values the same row of V. */
static void key_row(const plan *p, uint64_t trial, const workspace *ws, size_t j0, size_t bk,
                    size_t j, size_t me)
{
    const size_t d = p->spec->d_k, dv = p->dv;
    double *scratch = ws->scratch + me * p->src->scratch_len;
    if (j < bk) {
        double *row = ws->k + j * d;
        p->src->rows(p->src, ws->state, trial, SV_MATRIX_K, j0 + j, 1, row, d, scratch);
        sv__rowpass_entries(p, row, &ws->k_mo[j0 + j]);
        if (dv > 0)
            p->src->rows(p->src, ws->state, trial, SV_MATRIX_V, j0 + j, 1, ws->v + j * dv, dv,
                         scratch);
    } else {
        memset(ws->k + j * d, 0, d * sizeof(double));
        if (dv > 0)
            memset(ws->v + j * dv, 0, dv * sizeof(double));
    }
}

/* Counts `units` finished tiles; thread 0 reports the total so far. */
static void report(const plan *p, uint64_t units)
{
    if (!p->prog)
        return;
    uint64_t done;
#pragma omp atomic capture
    done = p->prog->done += units;
    if (SV_THREAD_NUM() == 0) {
        p->prog->reported = done;
        p->exec->progress(p->exec->progress_ctx, done, p->prog->total);
    }
}

/* Work item b: its tiles of query rows against the key block at j0. */
static void run_item(const plan *p, uint64_t trial, const workspace *ws, size_t b, size_t j0,
                     size_t bk, size_t me)
{
    const size_t nq = p->row1, tm = p->tm, rows_per_item = tm * p->block_tiles;
    /* b < nitems, so row0 + b rows_per_item < row1; the end is clamped
     * without forming (b + 1) rows_per_item, which could wrap */
    const size_t start = p->row0 + b * rows_per_item;
    const size_t end = nq - start < rows_per_item ? nq : start + rows_per_item;
    uint64_t units = 0;
    /* A long item (a large block_rows) still stops within one tile. */
    for (size_t i0 = start; i0 < end && !sv__cancelled(p); i0 += tm, units++)
        sv__rowpass_tile(p, ws, trial, i0, end - i0 < tm ? end - i0 : tm, j0, bk, me);
    report(p, units); /* every item: a long trial shows progress too */
}

static void run_trial(const plan *p, uint64_t trial, const workspace *ws, sv_trial_stats *out)
{
    const size_t nq = p->row1 - p->row0, nk = p->spec->n_k, kb = p->kb;
    const size_t per_item = p->tm * p->block_tiles; /* <= n_q + tm - 1: derive() */
    const size_t nitems = (nq - 1) / per_item + 1;
    if (sv__cancelled(p))
        return;
    if (p->src->trial_len > 0)
        p->src->begin_trial(p->src, trial, ws->state);
    if (p->inner_threads == 1) {
        /* No OpenMP constructs at all: this runs inside the trial-parallel
         * region, where even an if(0) region would cost a team per trial. */
        for (size_t j0 = 0; j0 < nk; j0 += kb) {
            const size_t bk = nk - j0 < kb ? nk - j0 : kb;
            for (size_t j = 0; j < kb && !sv__cancelled(p); j++)
                key_row(p, trial, ws, j0, bk, j, 0);
            for (size_t b = 0; b < nitems && !sv__cancelled(p); b++)
                run_item(p, trial, ws, b, j0, bk, 0);
        }
    } else {
#pragma omp parallel num_threads(p->inner_threads)
        {
            const size_t me = (size_t)SV_THREAD_NUM();
            for (size_t j0 = 0; j0 < nk; j0 += kb) {
                const size_t bk = nk - j0 < kb ? nk - j0 : kb;
                /* Every row its own stream: who fetches it does not matter.
                 * No break out of an omp for: a canceled run skips the work
                 * of each remaining item instead. */
#pragma omp for schedule(static)
                for (size_t j = 0; j < kb; j++)
                    if (!sv__cancelled(p))
                        key_row(p, trial, ws, j0, bk, j, me);
#pragma omp for schedule(dynamic, 1)
                for (size_t b = 0; b < nitems; b++)
                    if (!sv__cancelled(p))
                        run_item(p, trial, ws, b, j0, bk, me);
            }
        }
    }
    if (sv__cancelled(p)) /* rows part done: nothing to reduce */
        return;
    if (p->folds) { /* sv_engine_run_rows: no gradient there */
        sv__trial_folds(p, ws, p->folds + (trial - p->first) * p->fold_blocks);
        return;
    }
    sv__trial_reduce(p, ws, out);
    if (p->grad)
        sv__grad_trial(p, trial, ws, out);
}

/* Tiny trials [t0, t0 + cnt), cnt <= group, one tile and one key block each:
 * their rows go through the row kernel together, and each row gets the
 * same bits it would get alone (sv_softmax_acc_rows). */
static void run_trial_group(const plan *p, uint64_t t0, size_t cnt, const workspace *ws,
                            sv_trial_stats *out)
{
    const size_t nq = p->spec->n_q, nk = p->spec->n_k, n = nq * nk, d = p->spec->d_k;
    if (sv__cancelled(p))
        return;
    /* Without measure_entries, q_mo and k_mo are left as they are:
     * sv__trial_from_rows does not read them then. */
    for (size_t g = 0; g < cnt; g++) {
        if (p->src->trial_len > 0)
            p->src->begin_trial(p->src, t0 + g, ws->state);
        p->src->rows(p->src, ws->state, t0 + g, SV_MATRIX_Q, 0, nq, ws->qtile, d, ws->scratch);
        p->src->rows(p->src, ws->state, t0 + g, SV_MATRIX_K, 0, nk, ws->k, d, ws->scratch);
        for (size_t i = 0; p->src->measure_entries && i < nq; i++)
            sv__rowpass_entries(p, ws->qtile + i * d, &ws->q_mo[g * nq + i]);
        for (size_t j = 0; p->src->measure_entries && j < nk; j++)
            sv__rowpass_entries(p, ws->k + j * d, &ws->k_mo[g * nk + j]);
        sv__tile_product(p, ws->qtile, ws->k, ws->scores + g * n);
        for (size_t i = 0; p->src->related_diag && i < nq && i < nk; i++)
            ws->planted[g * nq + i] = ws->scores[g * n + i * nk + i];
        /* The sink's key, the first a row sees: key 0 here (the grouped
         * path has neither a window nor a mask, and causal row i sees keys
         * 0 .. i). */
        for (size_t i = 0; i < nq; i++)
            ws->sink[g * nq + i] = ws->scores[g * n + i * nk];
    }
    const size_t rows = cnt * nq;
    if (!p->spec->causal) {
        /* Statuses unread (here and below): n_k >= 1 keys, ld = n_k, the
         * resolved scale; a non-finite score shows as a NaN statistic,
         * which the trial reports as SV_EOVERFLOW. */
        (void)sv_softmax_acc_rows(ws->scores, rows, nk, nk, p->spec->scale, ws->row_sm, ws->row_mo);
    } else {
        for (size_t r = 0; r < rows; r++) /* row i of a trial sees keys 0 .. i */
            (void)sv_softmax_acc_rows(ws->scores + r * nk, 1, r % nq + 1, nk, p->spec->scale,
                                      &ws->row_sm[r], &ws->row_mo[r]);
    }
    (void)sv__softmax_acc_stats_rows_frob(ws->row_sm, rows, p->spec->scale,
                                          !(p->taps.skip & SV_SKIP_JAC_FROB), ws->st,
                                          ws->st + rows);
    for (size_t r = 0; p->taps.hist_bins > 0 && r < rows; r++)
        sv__rowpass_hist(p, ws->scores + r * nk, p->spec->causal ? r % nq + 1 : nk, &ws->row_sm[r]);
    for (size_t g = 0; g < cnt; g++)
        sv__trial_from_rows(p, ws->row_mo + g * nq, ws->row_sm + g * nq, ws->st + g * nq,
                            ws->st + rows + g * nq, ws->planted + g * nq, ws->sink + g * nq,
                            ws->q_mo + g * nq, ws->k_mo + g * nk, &out[g]);
}

/* Trials [t0, t0 + cnt): grouped if tiny, else one by one. */
static void run_trials(const plan *p, uint64_t t0, size_t cnt, const workspace *ws,
                       sv_trial_stats *out)
{
    if (p->group > 1) {
        run_trial_group(p, t0, cnt, ws, out);
    } else {
        for (size_t g = 0; g < cnt; g++)
            run_trial(p, t0 + g, ws, &out[g]);
    }
}

/* Whether every statistic that must be a number (SV_TRIAL_STATS_MAP's
 * ALWAYS unless skipped, GRAD with grad, VALUES with values: p->must) is
 * one: never NaN (inf is a true answer that overflowed). sv_spec_check's
 * bound rules a NaN out for the random draws; a caller's arrays are not
 * bounded. */
static int trial_is_number(const plan *p, const sv_trial_stats *t)
{
    /* A window can leave every row of a trial without a key: nothing to
     * measure, and rows_empty says so. */
    if (t->rows_empty >= (double)p->spec->n_q)
        return 1;
    const double *f = (const double *)t; /* every field a double, in order */
    int nan = 0;
    for (size_t k = 0; k < p->n_must; k++)
        nan |= isnan(f[p->must[k]]);
    if (nan)
        return 0;
    /* MAYBE, but the known-mean variance is NaN exactly where theory has
     * no E[S]. */
    return !isnan(t->raw_var_known_mean) || isnan(p->theory_mean) ||
           (p->taps.skip & SV_SKIP_VARIANCE);
}

/* Whether trials out[0 .. cnt - 1] all pass trial_is_number (never for
 * sv_engine_run_rows, whose folds are checked when finished): checked by
 * the thread that ran them, while they are in its cache. */
static int trials_are_numbers(const plan *p, const sv_trial_stats *out, size_t cnt)
{
    for (size_t g = 0; !p->folds && g < cnt; g++)
        if (!trial_is_number(p, &out[g]))
            return 0;
    return 1;
}

/* Trials one group after another, sharing one workspace across threads. */
static sv_status run_serial(const plan *p, const ws_sizes *z, uint64_t first, sv_trial_stats *out,
                            int *nan_seen)
{
    workspace ws = {0};
    if (!workspace_alloc(&ws, z))
        return SV_ENOMEM;
    const uint64_t per_trial = p->prog ? p->prog->total / p->count : 0;
    for (uint64_t t = 0; t < p->count && !sv__cancelled(p); t += p->group) {
        const size_t cnt = p->count - t < p->group ? (size_t)(p->count - t) : p->group;
        run_trials(p, first + t, cnt, &ws, &out[t]);
        if (!sv__cancelled(p) && !trials_are_numbers(p, &out[t], cnt))
            *nan_seen = 1;
        if (p->group > 1) /* grouped tiny trials; others report per item */
            report(p, per_trial * cnt);
    }
    workspace_free(&ws);
    return SV_OK;
}

/* Whole trials (or groups of tiny ones) per thread, a workspace each. */
static sv_status run_parallel(const plan *p, const ws_sizes *z, uint64_t first, sv_trial_stats *out,
                              int *nan_seen)
{
    int failed = 0, nan = 0;
    const uint64_t per_trial = p->prog ? p->prog->total / p->count : 0;
#pragma omp parallel num_threads(p->threads)
    {
        workspace ws = {0};
        if (!workspace_alloc(&ws, z)) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp barrier
        int stop;
#pragma omp atomic read
        stop = failed;
        if (!stop) {
            const uint64_t groups = (p->count - 1) / p->group + 1;
            /* Groups of tiny trials 4 at a time (one is a few us of work);
             * whole trials one at a time: 96 trials in chunks of 4 on 16
             * threads left half the threads idle for the last third. */
            const int chunk = p->group > 1 ? 4 : 1;
            (void)chunk; /* read by the schedule clause only */
#pragma omp for schedule(dynamic, chunk)
            for (uint64_t g = 0; g < groups; g++) {
                if (sv__cancelled(p)) /* no break out of an omp for */
                    continue;
                const uint64_t t = g * p->group;
                const size_t cnt = p->count - t < p->group ? (size_t)(p->count - t) : p->group;
                run_trials(p, first + t, cnt, &ws, &out[t]);
                if (!sv__cancelled(p) && !trials_are_numbers(p, &out[t], cnt)) {
#pragma omp atomic write
                    nan = 1;
                }
                if (p->group > 1) /* grouped tiny trials; others report per item */
                    report(p, per_trial * cnt);
            }
        }
        workspace_free(&ws);
    }
    *nan_seen = nan;
    return failed ? SV_ENOMEM : SV_OK;
}

static sv_status run_checked(const plan *p, const ws_sizes *z, uint64_t first, sv_trial_stats *out)
{
    int nan_seen = 0; /* some trial failed trial_is_number */
    sv_status st = p->trial_parallel ? run_parallel(p, z, first, out, &nan_seen)
                                     : run_serial(p, z, first, out, &nan_seen);
    if (st == SV_OK && sv__cancelled(p)) /* trials skipped or part done */
        st = SV_ECANCELED;
    return st == SV_OK && nan_seen ? SV_EOVERFLOW : st;
}

/* OpenBLAS's thread count is process-wide: runs in several threads at once
 * must not each save and restore it, or they interleave (A saves N and sets
 * 1, B saves A's 1, A restores N, B restores 1: the caller is left with 1).
 * The first run in saves the caller's count and sets 1, the last run out
 * restores it; the runs themselves stay concurrent. */
#ifdef SV_HAVE_BLAS
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_users, blas_saved;

static void blas_enter(void)
{
    pthread_mutex_lock(&blas_lock);
    if (blas_users++ == 0) {
        blas_saved = openblas_get_num_threads();
        openblas_set_num_threads(1);
    }
    pthread_mutex_unlock(&blas_lock);
}

static void blas_leave(void)
{
    pthread_mutex_lock(&blas_lock);
    if (--blas_users == 0)
        openblas_set_num_threads(blas_saved);
    pthread_mutex_unlock(&blas_lock);
}
#else
/* No OpenBLAS (the WebAssembly build): nothing to save. */
static void blas_enter(void)
{
}
static void blas_leave(void)
{
}
#endif

/* The run of a made plan: progress, OpenBLAS's threads, the trials. */
static sv_status run_plan(plan p, const ws_sizes *z, uint64_t first, uint64_t count,
                          sv_trial_stats *out)
{
    const sv_spec *spec = p.spec;
    const sv_exec *exec = p.exec;
    sv_status st;
    progress prog = {0u, 0u, 0u};
    if (exec->progress) {
        const uint64_t tiles = (spec->n_q - 1) / p.tm + 1, blocks = (spec->n_k - 1) / p.kb + 1;
        prog.total = tiles * blocks * count;
        p.prog = &prog;
    }
    /* We parallelise ourselves; OpenBLAS threads inside ours would
     * oversubscribe the cores. OpenBLAS 0.3.21 has only the process-wide
     * setting: the first run in sets 1, the last out puts the caller's
     * back (blas_enter); an OpenMP-built OpenBLAS sets OpenMP's thread
     * count with it, which each run restores for its own thread. */
    const int omp_threads = SV_MAX_THREADS(); /* this thread's own setting */
    blas_enter();
    st = run_checked(&p, z, first, out);
    blas_leave();
#ifdef _OPENMP
    if (omp_get_max_threads() != omp_threads)
        omp_set_num_threads(omp_threads);
#else
    (void)omp_threads;
#endif
    /* Thread 0 may not finish the last unit: say once that all are done
     * (from the caller's thread, after the parallel region, so the
     * callback still never runs concurrently with itself). */
    if (st == SV_OK && p.prog && prog.reported != prog.total)
        exec->progress(exec->progress_ctx, prog.total, prog.total);
    return st;
}

sv_status sv_engine_run(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                        const sv_taps *taps, uint64_t first, uint64_t count, sv_trial_stats *out)
{
    plan p;
    ws_sizes z;
    size_t bytes;
    sv_status st = sv__plan_make(&p, spec, src, exec, taps, first, count, &z, &bytes);
    if (st != SV_OK)
        return st;
    if (!out)
        return SV_EINVAL;
    return run_plan(p, &z, first, count, out);
}

sv_status sv_engine_run_rows(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                             uint64_t first, uint64_t count, size_t row_begin, size_t row_end,
                             sv_rowfold *out)
{
    plan p;
    ws_sizes z;
    size_t bytes;
    sv_status st = sv__plan_make(&p, spec, src, exec, NULL, first, count, &z, &bytes);
    if (st == SV_OK)
        st = sv_rowfold_check(spec, row_begin, row_end);
    if (st != SV_OK)
        return st;
    if (!out)
        return SV_EINVAL;
    /* One trial at a time through the tile path: the grouped path of tiny
     * trials (n_q <= 256, one block) needs no less than its workspace. */
    p.group = 1;
    p.row0 = row_begin;
    p.row1 = row_end;
    p.folds = out;
    p.fold_blocks = sv_rowfold_blocks(row_begin, row_end);
    return run_plan(p, &z, first, count, NULL);
}
