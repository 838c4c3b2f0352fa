/* The run driver (run.h): the engine in chunks of trials, each folded into
 * a partial (partial.h) from which the summary is made, as the CLI, the
 * Python package and the page all run a configuration. */
#include "sdpa_var/run.h"

#include "alloc.h"
#include "partial_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const pool_names[] = {"heads", "none", "all"};

const char *sv_pool_name(sv_pool pool)
{
    return (unsigned)pool < 3 ? pool_names[pool] : NULL;
}

sv_status sv_pool_from_name(const char *name, sv_pool *out)
{
    for (unsigned i = 0; name && out && i < 3; i++)
        if (strcmp(name, pool_names[i]) == 0) {
            *out = (sv_pool)i;
            return SV_OK;
        }
    return SV_EINVAL;
}

struct sv_runner {
    sv_spec spec;   /* the caller's: trials from first */
    sv_spec engine; /* trials first + spec.trials: the engine's numbering */
    const sv_source *src;
    sv_exec exec;
    const sv_taps *taps;
    sv_run_options opt;
    sv_partial part;
    int has_part; /* part is the runner's (not moved, not failed) */
    int failed;
    uint64_t done;
    sv_trial_stats *chunk; /* without opt.keep: the last chunk */
    size_t chunk_cap;
    uint64_t step_first, step_count; /* the engine call in progress */
    const sv_exec *caller_exec;
};

/* exec.progress under opt.progress: the engine's done/total of one call as
 * the fraction of the whole run, in 2^30ths. */
#define RUN_PROGRESS_TOTAL (1ull << 30)

static void run_progress(void *ctx, uint64_t done, uint64_t total)
{
    const sv_runner *r = ctx;
    const double f = total ? (double)done / (double)total : 1.0;
    const double all = ((double)r->done + (double)r->step_count * f) /
                       (double)(r->spec.trials ? r->spec.trials : 1);
    const double x = all < 0.0 ? 0.0 : all > 1.0 ? 1.0 : all;
    r->opt.progress(r->opt.ctx, (uint64_t)(x * (double)RUN_PROGRESS_TOTAL), RUN_PROGRESS_TOTAL);
}

sv_status sv_runner_begin(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                          const sv_taps *taps, const sv_run_options *opt, sv_runner **out)
{
    if (!out)
        return SV_EINVAL;
    *out = NULL;
    if (!spec || !src || !exec)
        return SV_EINVAL;
    const sv_run_options none = {.observed = NAN};
    const sv_run_options *o = opt ? opt : &none;
    if (((o->want & SV_RUN_SUMMARY) && o->first != 0) || spec->trials > UINT64_MAX - o->first)
        return SV_EINVAL;
    sv_status st = sv_spec_check(spec);
    if (st == SV_OK && taps)
        st = sv_taps_check(taps, spec);
    if (st != SV_OK)
        return st;
    sv_runner *r = sv__calloc(1, sizeof *r);
    if (!r)
        return SV_ENOMEM;
    r->spec = *spec;
    r->engine = *spec;
    r->engine.trials = o->first + spec->trials;
    r->src = src;
    r->exec = *exec;
    r->taps = taps;
    r->opt = *o;
    if (o->progress) {
        r->exec.progress = run_progress;
        r->exec.progress_ctx = r;
    }
    st = sv__partial_init(&r->part, o->first, spec->trials);
    if (st != SV_OK) {
        sv__free(r);
        return st;
    }
    r->has_part = 1;
    *out = r;
    return SV_OK;
}

/* The buffer of a chunk of @p n trials at r->done. */
static sv_trial_stats *chunk_buffer(sv_runner *r, uint64_t n)
{
    if (r->opt.keep)
        return r->opt.keep + r->done;
    if (n > r->chunk_cap) {
        sv__free(r->chunk);
        r->chunk = sv__calloc((size_t)n, sizeof *r->chunk);
        r->chunk_cap = r->chunk ? (size_t)n : 0;
    }
    return r->chunk;
}

sv_status sv_runner_step(sv_runner *r, uint64_t max_trials, uint64_t *done)
{
    if (!r || r->failed || !r->has_part || max_trials == 0 || r->done >= r->spec.trials)
        return SV_EINVAL;
    const uint64_t left = r->spec.trials - r->done;
    const uint64_t n = max_trials < left ? max_trials : left;
    if (n > SIZE_MAX / sizeof(sv_trial_stats)) {
        r->failed = 1;
        return SV_ENOMEM;
    }
    sv_trial_stats *t = chunk_buffer(r, n);
    const uint64_t first = r->opt.first + r->done;
    r->step_first = first;
    r->step_count = n;
    sv_status st =
        t ? sv_engine_run(&r->engine, r->src, &r->exec, r->taps, first, n, t) : SV_ENOMEM;
    if (st == SV_OK)
        st = r->opt.want & SV_RUN_TRIAL_SD ? sv_partial_add(&r->part, t, (size_t)n)
                                           : sv_partial_add_means(&r->part, t, (size_t)n);
    if (st == SV_OK) {
        r->done += n;
        if (r->opt.on_chunk && r->opt.on_chunk(r->opt.ctx, first, n, t))
            st = SV_ECANCELED;
    }
    r->failed = st != SV_OK;
    if (done)
        *done = r->done;
    return st;
}

sv_status sv_runner_end(sv_runner *r, sv_summary *out)
{
    if (!r || r->failed || !r->has_part || r->done != r->spec.trials)
        return SV_EINVAL;
    if (!(r->opt.want & SV_RUN_SUMMARY))
        return SV_OK;
    if (!out)
        return SV_EINVAL;
    return sv_summary_from_partial_want(&r->spec, &r->part, r->opt.observed,
                                        r->opt.want & SV_RUN_QUANTILES ? SV_SUMMARY_QUANTILES : 0u,
                                        out);
}

sv_status sv_runner_take_partial(sv_runner *r, sv_partial **out)
{
    if (!r || !out || r->failed || !r->has_part || r->done != r->spec.trials)
        return SV_EINVAL;
    *out = sv__malloc(sizeof **out);
    if (!*out)
        return SV_ENOMEM;
    **out = r->part;
    memset(&r->part, 0, sizeof r->part);
    r->has_part = 0;
    return SV_OK;
}

void sv_runner_free(sv_runner *r)
{
    if (!r)
        return;
    if (r->has_part)
        sv__partial_release(&r->part);
    sv__free(r->chunk);
    sv__free(r);
}

sv_status sv_run(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                 const sv_taps *taps, const sv_run_options *opt, sv_summary *out)
{
    sv_runner *r;
    sv_status st = sv_runner_begin(spec, src, exec, taps, opt, &r);
    const uint64_t chunk = opt && opt->chunk ? opt->chunk : UINT64_MAX;
    while (st == SV_OK && r->done < r->spec.trials)
        st = sv_runner_step(r, chunk, NULL);
    if (st == SV_OK)
        st = sv_runner_end(r, out);
    sv_runner_free(r);
    return st;
}

sv_status sv_run_rows(const sv_spec *spec, const sv_source *src, const sv_exec *exec,
                      const sv_run_options *opt, size_t row_begin, size_t row_end,
                      sv_rowfold *folds)
{
    const sv_run_options none = {.observed = NAN};
    const sv_run_options *o = opt ? opt : &none;
    if (!spec || !src || !exec || !folds || spec->trials > UINT64_MAX - o->first)
        return SV_EINVAL;
    /* A runner without a partial: its progress is the same fraction. */
    sv_runner r = {.spec = *spec, .engine = *spec, .exec = *exec, .opt = *o};
    r.engine.trials = o->first + spec->trials;
    if (o->progress) {
        r.exec.progress = run_progress;
        r.exec.progress_ctx = &r;
    }
    const uint64_t chunk = o->chunk ? o->chunk : UINT64_MAX;
    const size_t nb = sv_rowfold_blocks(row_begin, row_end);
    sv_status st = SV_OK;
    while (st == SV_OK && r.done < spec->trials) {
        const uint64_t left = spec->trials - r.done;
        r.step_count = chunk < left ? chunk : left;
        st = sv_engine_run_rows(&r.engine, src, &r.exec, o->first + r.done, r.step_count, row_begin,
                                row_end, folds + r.done * nb);
        r.done += r.step_count;
    }
    return st;
}

sv_status sv_head_row_make(const sv_spec *spec, const char *scale_name, const sv_trial_stats *stats,
                           const sv_head *head, uint64_t trial, const sv_summary *pooled,
                           int masked, sv_head_row *out)
{
    if (!spec || !stats || !out || (!head && !pooled))
        return SV_EINVAL;
    sv_status st = sv_summary_head(spec, stats, head ? NULL : pooled, &out->plug, &out->summary);
    if (st != SV_OK)
        return st;
    if (masked) /* no closed form for a data mask */
        for (int i = 0; i < 2; i++)
            *(i ? &out->summary.scaled_theory : &out->summary.raw_theory) =
                (sv_theory){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0};
    out->view = (sv_row_view){.spec = &out->plug,
                              .scale_name = scale_name,
                              .stats = stats,
                              .summary = &out->summary,
                              .trial = trial,
                              .head = head,
                              .masked = masked != 0};
    return SV_OK;
}
