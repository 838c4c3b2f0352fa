/* The run loop: each configuration is run in chunks of trials, checked,
 * and its rows handed to the sink before the next configuration starts.
 * Everything the user can get wrong was validated before the first byte;
 * what can still fail here (memory, a nan that is no true answer) stops
 * the run with one line on stderr and exit status 1, after the rows of
 * the configurations before it. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "fail.h"
#include "interrupt.h"
#include "progress.h"
#include "sdpa_var/run.h"
#include "sink.h"

/* One configuration while it runs. */
typedef struct config_run {
    sv_spec spec;
    sv_exec exec;
    sv_taps taps;
    const char *scale_name;
    const sv_strided *arrays; /* measured Q and K, or NULL: draws */
    double *row_sums;
    uint64_t *hist;
    sv_summary summary;
    uint64_t first;         /* --first-trial */
    size_t rows[2];         /* --q-rows, else [0, n_q) */
    sv_state_config *state; /* --format state: filled here, else NULL */
    unsigned skipped;       /* bit g: group g's statistics not computed, as none is shown */
    int no_trial_sd;        /* the SDs across trials not computed (sv_column_trial_sd) */
} config_run;

static void free_run(config_run *r)
{
    free(r->row_sums);
    free(r->hist);
    r->row_sums = NULL;
    r->hist = NULL;
}

/* A nan where the column table says the value must be defined is no true
 * answer (an overflow, a bug): say which and where, and stop. What the run
 * left NAN as nothing shows it (r->skipped, r->taps.skip, r->no_trial_sd)
 * is not looked at. */
static int undefined(const cli_sink *s, const config_run *r, const sv_row_view *v,
                     const char *where)
{
    const sv_column *c = sv_columns_first_undefined_skip(s->w.kind, v, s->w.observed, r->skipped,
                                                         r->taps.skip, r->no_trial_sd);
    if (!c)
        return 0;
    cli_error(0, "%s is nan at d_k=%zu scale=%s dist=%s%s, which is not a true answer", c->name,
              v->spec->d_k, v->scale_name, sv_dist_name(v->spec->dist), where);
    return 1;
}

/* Pass 0 checks row @p v (0 when it is not defined there, said); pass 1
 * hands it to the sink, saying so when it cannot (out of memory). Rows
 * are checked a batch before any is written. Stops (0, said by cli_run)
 * at a failed write or a caught signal. */
static int emit(cli_sink *s, const config_run *r, const sv_row_view *v, const char *where, int pass)
{
    if (pass == 0)
        return !undefined(s, r, v, where);
    cli_interrupt_progress_erase();
    if (!cli_sink_row(s, v)) {
        cli_error(0, "%s", sv_status_str(SV_ENOMEM));
        return 0;
    }
    return cli_sink_flush_some(s) && !cli_interrupt_pending();
}

static int alloc_taps(config_run *r, const cli_output *out)
{
    sv_taps *c = &r->taps;
    if (out->histogram) {
        const size_t b = cli_gnuplot_hist_bins(out, &r->spec);
        r->hist = calloc(4 * (b + 1), sizeof(uint64_t));
        if (!r->hist)
            return 0;
        if (sv_theory_histogram_range(&r->spec, &c->hist_lo, &c->hist_hi) != SV_OK)
            return 0;
        c->hist_bins = b;
        /* What is printed goes first: raw then scaled, b + 1 each
         * (scores: the last counts those outside the range). */
        c->hist_raw = r->hist + (out->weight_histogram ? 2 * (b + 1) : 0);
        c->hist_scaled = r->hist + (out->weight_histogram ? 3 * (b + 1) : b + 1);
        if (out->weight_histogram) {
            c->hist_w_raw = r->hist;
            c->hist_w_scaled = r->hist + b + 1;
        }
    }
    if (out->kind == SV_OUTPUT_PER_ROW) {
        r->row_sums = calloc(r->spec.n_q * SV_ROW_FIELDS, sizeof(double));
        c->row_sums = r->row_sums;
        if (!r->row_sums)
            return 0;
    }
    return 1;
}

/* One per-head row (head NULL: the pooled row, stats the summary's mean),
 * checked, then written. */
static int head_row(cli_sink *s, const config_run *r, const sv_trial_stats *stats,
                    const sv_head *head, uint64_t trial, int pass)
{
    sv_head_row row;
    (void)sv_head_row_make(&r->spec, r->scale_name, stats, head, trial, &r->summary,
                           r->arrays && r->arrays->mask.data, &row); /* arguments set: SV_OK */
    char where[80];
    if (head)
        snprintf(where, sizeof where, " batch=%zu head=%zu", head->batch, head->head);
    else
        snprintf(where, sizeof where, " (pooled)");
    return emit(s, r, &row.view, where, pass);
}

/* Writes one chunk of per-trial or (@p heads) per-head rows, trials
 * first .. first + count - 1 (a head's: (batch, head) by sv_strided_head),
 * after checking all of them. */
static int write_chunk(cli_sink *s, const config_run *r, uint64_t first, uint64_t count,
                       const sv_trial_stats *chunk, int heads)
{
    char where[48];
    sv_row_view v = {.spec = &r->spec, .scale_name = r->scale_name};
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t t = 0; t < count; t++) {
            sv_head h;
            v.stats = &chunk[t];
            v.trial = first + t;
            if (heads && sv_strided_head(r->arrays, v.trial, NULL, &h) != SV_OK) {
                cli_error(0, "trial %llu: no such head", (unsigned long long)v.trial);
                return 0;
            }
            snprintf(where, sizeof where, " trial=%llu", (unsigned long long)v.trial);
            if (!(heads ? head_row(s, r, v.stats, &h, v.trial, pass) : emit(s, r, &v, where, pass)))
                return 0;
        }
    return 1;
}

/* The rows of one chunk (sv_run_chunk_fn): per-trial or per-head rows go
 * out with their chunk. */
typedef struct chunk_ctx {
    cli_sink *s;
    const config_run *r;
    const cli_output *out;
    int ok; /* 0: a row was not written (said, or a caught signal) */
} chunk_ctx;

static int on_chunk(void *ctx, uint64_t first, uint64_t count, const sv_trial_stats *t)
{
    chunk_ctx *c = ctx;
    if (!c->s)
        return 0;
    const int heads = c->s->w.kind == SV_OUTPUT_PER_HEAD; /* counted from --first-trial */
    if (c->s->w.kind == SV_OUTPUT_PER_TRIAL || (heads && c->out->pool != SV_POOL_ALL))
        c->ok = write_chunk(c->s, c->r, heads ? first - c->r->first : first, count, t, heads);
    return !c->ok;
}

/* The run's progress (the fraction of its trials) on the progress line. */
static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    const chunk_ctx *c = ctx;
    cli_progress_show(c->r->exec.progress_ctx, done, total);
}

/* Runs the trials of one configuration in chunks (sv_run), the rows of
 * each written as it ends, into the summary (or the state's partial).
 * The engine's spec counts the trials before --first-trial too. */
static int run_trials(config_run *r, cli_sink *s, const cli_output *out)
{
    const uint64_t trials = r->spec.trials, first = r->first;
    sv_spec es = r->spec;
    es.trials = first + trials; /* validated: no wrap */
    sv_source src;
    sv_status st = r->arrays ? sv_source_strided(r->arrays, &src) : sv_source_draw(&es, &src);
    /* Entries of Q and K that no column shows are not measured (a state
     * keeps every statistic: it has no sink). Measured heads always are:
     * their plug-in theory is made of those moments. */
    unsigned unshown = 0;
    if (s) /* nor the per-trial statistics that no column reads */
        cli_sink_unshown(s, &unshown, &r->no_trial_sd, &r->taps.skip);
    r->skipped = unshown & (1u << SV_GROUP_QUANTILES | (r->arrays ? 0u : 1u << SV_GROUP_INPUTS));
    src.measure_entries = src.measure_entries && !(r->skipped >> SV_GROUP_INPUTS & 1u);
    if (st == SV_OK && r->state) {
        *r->state = (sv_state_config){.spec = r->spec,
                                      .observed = out->observed,
                                      .trial_first = first,
                                      .trial_count = trials,
                                      .row_begin = r->rows[0],
                                      .row_end = r->rows[1]};
        snprintf(r->state->scale_name, sizeof r->state->scale_name, "%s", r->scale_name);
        if (r->rows[0] == r->rows[1]) /* rows of larger n_q only: none of this one */
            return 1;
    }
    chunk_ctx c = {.s = s, .r = r, .out = out, .ok = 1};
    /* A slice of trials has per-trial rows only (shards.c): no summary. */
    const sv_run_options opt = {.first = first,
                                .want =
                                    (r->no_trial_sd ? 0u : SV_RUN_TRIAL_SD) |
                                    (first == 0 && !r->state ? SV_RUN_SUMMARY : 0u) |
                                    (r->skipped >> SV_GROUP_QUANTILES & 1u ? 0u : SV_RUN_QUANTILES),
                                .observed = out->observed,
                                .on_chunk = on_chunk,
                                .ctx = &c,
                                .progress = r->exec.progress ? on_progress : NULL};
    const uint64_t chunk = cli_budget_chunk(trials);
    if (st == SV_OK && r->state && (r->rows[0] != 0 || r->rows[1] != r->spec.n_q)) {
        /* a row shard: its folds (validated: far below SIZE_MAX) */
        const size_t nb = sv_rowfold_blocks(r->rows[0], r->rows[1]);
        r->state->folds = calloc((size_t)trials * nb, sizeof(sv_rowfold));
        const sv_run_options rows = {
            .first = first, .chunk = chunk, .ctx = &c, .progress = opt.progress};
        st = r->state->folds ? sv_run_rows(&r->spec, &src, &r->exec, &rows, r->rows[0], r->rows[1],
                                           r->state->folds)
                             : SV_ENOMEM;
        if (st != SV_OK)
            cli_error(0, "d_k=%zu: %s", r->spec.d_k, sv_status_str(st));
        return st == SV_OK;
    }
    sv_runner *run = NULL;
    if (st == SV_OK)
        st = sv_runner_begin(&r->spec, &src, &r->exec, &r->taps, &opt, &run);
    uint64_t done = 0;
    while (st == SV_OK && done < trials)
        st = sv_runner_step(run, chunk, &done);
    if (st == SV_OK && r->state)
        st = sv_runner_take_partial(run, &r->state->trials); /* the state owns it now */
    else if (st == SV_OK)
        st = sv_runner_end(run, &r->summary);
    sv_runner_free(run);
    if (st != SV_OK && c.ok) /* a row not written was said (or a signal caught) */
        cli_error(0, "d_k=%zu: %s", r->spec.d_k, sv_status_str(st));
    return st == SV_OK;
}

/* The rows a finished configuration writes (per-trial rows went out with
 * their chunks), each checked before any is written. */
static int write_config(cli_sink *s, const config_run *r, const cli_output *out)
{
    sv_row_view v = {.spec = &r->spec, .scale_name = r->scale_name};
    switch (s->w.kind) {
    case SV_OUTPUT_SUMMARY:
        v.stats = &r->summary.mean;
        v.summary = &r->summary;
        return emit(s, r, &v, "", 0) && emit(s, r, &v, "", 1);
    case SV_OUTPUT_PER_ROW:
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < r->spec.n_q; i++) {
                v.row = i;
                v.row_sums = r->row_sums + i * SV_ROW_FIELDS;
                if (!emit(s, r, &v, " (per row)", pass))
                    return 0;
            }
        return 1;
    case SV_OUTPUT_HISTOGRAM: {
        const size_t b = r->taps.hist_bins;
        const uint64_t *h = r->hist;
        if (!h) /* allocated with the histogram tap whenever this output is */
            return 0;
        const double lo = out->weight_histogram ? 0.0 : r->taps.hist_lo;
        const double hi = out->weight_histogram ? 1.0 : r->taps.hist_hi;
        if (!out->weight_histogram && (h[b] || h[2 * b + 1]))
            cli_error(0,
                      "--histogram: %llu raw and %llu scaled scores fell outside the bins "
                      "(beyond 6 sd)",
                      (unsigned long long)h[b], (unsigned long long)h[2 * b + 1]);
        for (size_t i = 0; i < b; i++) {
            v.bin_lo = lo + (hi - lo) * (double)i / (double)b;
            v.bin_hi = lo + (hi - lo) * (double)(i + 1) / (double)b;
            v.bin_count[0] = h[i];
            v.bin_count[1] = h[b + 1 + i];
            if (!emit(s, r, &v, "", 1)) /* counts: defined */
                return 0;
        }
        return 1;
    }
    case SV_OUTPUT_PER_HEAD:
        return out->pool == SV_POOL_NONE || (head_row(s, r, &r->summary.mean, NULL, 0, 0) &&
                                             head_row(s, r, &r->summary.mean, NULL, 0, 1));
    default:
        return 1;
    }
}

/* A --mask that leaves query rows without a key: their statistics are
 * left out of every mean, which the default columns do not show (they
 * are the options', chosen before any row is computed; rows_empty is
 * the window's). So one line on stderr says it, once: the mask is the
 * same for every --scale. Returns 1. */
static int empty_rows_note(const config_run *r)
{
    const double heads = (double)r->spec.trials, empty = r->summary.mean.rows_empty * heads;
    if (r->arrays && r->arrays->mask.data && empty > 0.0)
        cli_error(0,
                  "--mask: %.0f of %.0f query rows (over %.0f head%s) see no key: they are "
                  "left out of every statistic (column rows_empty)",
                  empty, (double)r->spec.n_q * heads, heads, heads == 1.0 ? "" : "s");
    return 1;
}

/* Runs configuration @p i and writes its rows (committed: they are out,
 * whole, before the next configuration starts). */
static int run_config(const cli_plan *plan, size_t i, cli_sink *sink, const cli_budget *budget,
                      cli_progress *pl, int progress, sv_state_config *state)
{
    const size_t nq = plan->configs[i].spec.n_q;
    config_run r = {.spec = plan->configs[i].spec, /* resolved and checked: validate.c */
                    .exec = plan->exec,
                    .scale_name = plan->configs[i].scale_name,
                    .arrays = plan->arrays,
                    .first = plan->first_trial,
                    .rows = {plan->q_rows[0] < nq ? plan->q_rows[0] : nq,
                             plan->q_rows[1] < nq ? plan->q_rows[1] : nq},
                    .state = state};
    pl->index = i;
    pl->d_k = r.spec.d_k;
    pl->current = cli_progress_work(&r.spec);
    if (progress) {
        r.exec.progress = cli_progress_show;
        r.exec.progress_ctx = pl;
    }
    char why[256];
    int ok;
    if (!cli_budget_check(budget, plan, &plan->configs[i], why, sizeof why)) {
        cli_error(0, "%s", why);
        ok = 0;
    } else if (!alloc_taps(&r, &plan->out)) {
        cli_error(0, "d_k=%zu: %s", r.spec.d_k, sv_status_str(SV_ENOMEM));
        ok = 0;
    } else if (state)
        ok = run_trials(&r, sink, &plan->out);
    else
        ok = run_trials(&r, sink, &plan->out) && write_config(sink, &r, &plan->out) &&
             cli_sink_commit(sink) && (i > 0 || empty_rows_note(&r));
    free_run(&r);
    pl->before += pl->current;
    return ok;
}

/* Runs every configuration in turn (into states[i], or NULL: through the
 * sink), under the run's budget and progress line; stops at the first
 * failure or a caught signal. */
static int run_configs(const cli_plan *plan, cli_sink *sink, sv_state_config *states)
{
    cli_budget budget;
    cli_budget_begin(&budget, plan);
    cli_progress pl = {.start = cli_progress_now(), .count = plan->count};
    for (size_t i = 0; i < plan->count; i++)
        pl.total += cli_progress_work(&plan->configs[i].spec);
    const int progress = !plan->quiet && isatty(STDERR_FILENO);
    int ok = 1;
    for (size_t i = 0; ok && i < plan->count && !cli_interrupt_pending(); i++)
        ok = run_config(plan, i, sink, &budget, &pl, progress, states ? &states[i] : NULL);
    cli_interrupt_progress_erase();
    return ok;
}

int cli_run_state_into(const cli_plan *plan, sv_state *st)
{
    const sv_status s = sv_state_begin(st, plan->count, plan->trials_total);
    if (s != SV_OK)
        cli_error(0, "%s", sv_status_str(s));
    return s == SV_OK && run_configs(plan, NULL, st->configs);
}

/* --format state: every configuration run, then their state in one
 * write (a state is all or nothing). */
static int run_state(const cli_plan *plan)
{
    sv_state st;
    const int ok = cli_run_state_into(plan, &st) && cli_state_write(&st, "");
    sv_state_free(&st);
    return ok ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
}

int cli_run(const cli_plan *plan)
{
    if (plan->out.format == CLI_FORMAT_STATE)
        return run_state(plan);
    cli_sink sink;
    if (!cli_sink_begin(&sink, STDOUT_FILENO, plan)) {
        cli_error(0, "%s", sv_status_str(SV_ENOMEM));
        return CLI_EXIT_RUNTIME;
    }
    cli_interrupt_begin();
    int ok = run_configs(plan, &sink, NULL);
    ok = ok && !cli_interrupt_pending() && cli_sink_end(&sink);
    if (!ok && sink.w.f)
        cli_sink_abort(&sink); /* the rows before, whole; JSON closed */
    const int sig = cli_interrupt_pending(), err = sink.write_errno;
    cli_interrupt_end();
    if (sig)
        cli_interrupt_die(sig);
    if (err)
        cli_error(0, "error writing %s: %s", cli_output_name(), strerror(err));
    return ok ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
}
