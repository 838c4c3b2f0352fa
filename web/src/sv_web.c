/* The web page's glue: a thin layer over the library's public API, as the
 * CLI is, compiled with it to WebAssembly (web/CMakeLists.txt). It reads
 * the experiment as name=value pairs through the library's parameter table
 * (sv_web_spec.c: sv_spec_set, so the spec is the CLI's for the same
 * options and every default, bound and message the library's), runs it
 * through the library's run driver in chunks of trials (run.h: the page's
 * worker calls svw_step between messages), and hands the page JSON text:
 * the summary row named and valued by the column table (columns.h), with
 * the standard errors the CLI rounds at (sv_column_std_error), the engine's
 * histogram bins, one row's weights. JavaScript computes no statistic; it
 * reads these and draws them.
 *
 * Every function returns NULL or a negative number on failure, with the
 * reason in svw_error(). Strings returned stay valid until the next call
 * that returns one (or svw_free of their run). Single-threaded. */
#include <emscripten.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/columns.h"
#include "sdpa_var/engine.h"
#include "sdpa_var/rng.h"
#include "sdpa_var/rowfold.h"
#include "sdpa_var/run.h"
#include "sdpa_var/softmax.h"
#include "sdpa_var/source.h"
#include "sdpa_var/summary.h"
#include "sdpa_var/theory.h"
#include "sv_web.h"

#define SVW_EXPORT EMSCRIPTEN_KEEPALIVE

/* A growing JSON text. */
typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[128];
    const int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0 || t->failed)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + (size_t)n + 1 > cap)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* A real as --format json writes it: %.17g, null when not finite. */
static void put_real(text *t, double x)
{
    if (isfinite(x))
        put(t, "%.17g", x);
    else
        put(t, "null");
}

static void put_reals(text *t, const char *name, const double *x, size_t n)
{
    put(t, "\"%s\":[", name);
    for (size_t i = 0; i < n; i++) {
        if (i)
            put(t, ",");
        put_real(t, x[i]);
    }
    put(t, "]");
}

static char last_error[256];
static text out; /* the last string returned when it is not a run's */

SVW_EXPORT const char *svw_error(void)
{
    return last_error;
}

static void fail(const char *what, sv_status st)
{
    snprintf(last_error, sizeof last_error, "%s: %s", what, sv_status_str(st));
}

/* PCG32 seeded with (42, 54), first output: 0xa15c02b7 natively (O'Neill's
 * pcg32-demo); the check that the build's integer arithmetic is the same. */
SVW_EXPORT uint32_t svw_pcg_check(void)
{
    sv_rng r;
    sv_rng_seed(&r, 42u, 54u);
    return sv_rng_next(&r);
}

/* One configuration while it runs. */
typedef struct svw_run {
    sv_spec spec;
    char scale_name[32];
    sv_source src;
    sv_exec exec;
    sv_taps taps;
    sv_runner *run;
    uint64_t done;
    uint64_t *hist; /* 2 (bins + 1): raw, scaled */
    uint64_t *s2;   /* s2_bins + 1 counts of the trials' raw_var on [0, s2_hi) */
    size_t s2_bins;
    double s2_hi;
    double observed;
    sv_summary summary;
    int ended;
    text json;
} svw_run;

/* Progress inside one chunk (a long trial): the worker's Module.onProgress. */
static void progress(void *ctx, uint64_t done, uint64_t total)
{
    (void)ctx;
    svw_js_progress((double)done, (double)total);
}

SVW_EXPORT void svw_free(svw_run *r)
{
    if (!r)
        return;
    sv_runner_free(r->run);
    free(r->hist);
    free(r->s2);
    free(r->json.s);
    free(r);
}

/* Each trial's raw_var into the s2 bins (sv_run_chunk_fn). */
static int count_s2(void *ctx, uint64_t first, uint64_t count, const sv_trial_stats *t)
{
    svw_run *r = ctx;
    (void)first;
    for (uint64_t i = 0; r->s2 && i < count; i++) {
        const double b = t[i].raw_var / r->s2_hi * (double)r->s2_bins;
        r->s2[b >= 0 && b < (double)r->s2_bins ? (size_t)b : r->s2_bins]++;
    }
    return 0;
}

/* A run of the experiment in @p pairs ("d_k=64\nn_q=256\nn_k=256\nscale=dk",
 * each a parameter of param.h read by sv_spec_set, the others at their
 * defaults); hist_bins > 0 adds the engine's score histogram (as
 * --histogram), s2_bins > 0 counts each trial's raw_var into s2_bins bins
 * on [0, s2_hi) (the puzzle's distribution of s^2), observed (NaN: none)
 * as --observed. A bad pair or spec: NULL, the library's message in
 * svw_error ("n_q: '0' is not a positive integer"). */
SVW_EXPORT svw_run *svw_begin(const char *pairs, int hist_bins, double observed, int s2_bins,
                              double s2_hi)
{
    svw_run *r = calloc(1, sizeof *r);
    if (!r) {
        fail("run", SV_ENOMEM);
        return NULL;
    }
    if (svw_spec_read(&r->spec, pairs, r->scale_name, sizeof r->scale_name, last_error,
                      sizeof last_error) != 0 ||
        svw_spec_resolve(&r->spec, last_error, sizeof last_error) != 0) {
        free(r);
        return NULL;
    }
    if (r->spec.trials > SIZE_MAX / (4 * sizeof(double))) {
        /* sv_summary_begin keeps two doubles a trial: 32-bit WebAssembly
         * holds fewer trials than the CLI. */
        snprintf(last_error, sizeof last_error,
                 "trials: %" PRIu64 " is more than this build holds (two doubles a trial)",
                 r->spec.trials);
        free(r);
        return NULL;
    }
    r->observed = observed;
    r->exec.threads = 1;
    r->exec.progress = progress;
    /* The engine's histogram takes one multiplier; logn with causal scales
     * each row by its own (sv_spec_row_scale), as the CLI's --histogram
     * refuses: no histogram then ("hist": null), the rest runs. */
    if (hist_bins > 0 && !r->spec.scale_logn) {
        const size_t b = (size_t)hist_bins;
        r->hist = calloc(2 * (b + 1), sizeof(uint64_t));
        if (!r->hist ||
            sv_theory_histogram_range(&r->spec, &r->taps.hist_lo, &r->taps.hist_hi) != SV_OK) {
            fail("histogram", SV_ENOMEM);
            svw_free(r);
            return NULL;
        }
        r->taps.hist_bins = b;
        r->taps.hist_raw = r->hist;
        r->taps.hist_scaled = r->hist + b + 1;
    }
    if (s2_bins > 0 && s2_hi > 0) {
        r->s2_bins = (size_t)s2_bins;
        r->s2_hi = s2_hi;
        r->s2 = calloc(r->s2_bins + 1, sizeof(uint64_t));
    }
    const sv_run_options opt = {
        .want = SV_RUN_ALL, .observed = observed, .on_chunk = count_s2, .ctx = r};
    sv_status st = sv_source_draw(&r->spec, &r->src);
    if (st == SV_OK)
        st = sv_runner_begin(&r->spec, &r->src, &r->exec, &r->taps, &opt, &r->run);
    if (st != SV_OK || (s2_bins > 0 && !r->s2)) {
        fail("run", st != SV_OK ? st : SV_ENOMEM);
        svw_free(r);
        return NULL;
    }
    return r;
}

/* Runs up to max_trials more trials. Returns the number of trials done so
 * far (all: spec.trials), or -1. */
SVW_EXPORT double svw_step(svw_run *r, double max_trials)
{
    if (!r || r->ended || !(max_trials >= 1))
        return -1;
    const sv_status st = sv_runner_step(r->run, (uint64_t)max_trials, &r->done);
    if (st != SV_OK) {
        fail("engine", st);
        return -1;
    }
    return (double)r->done;
}

/* The bytes the engine allocates for one trial of the run (its plan,
 * sv_engine_bytes), or -1: whether a size is accepted, without running. */
SVW_EXPORT double svw_bytes(svw_run *r)
{
    size_t b = 0;
    const sv_status st = r ? sv_engine_bytes(&r->spec, &r->src, &r->exec, NULL, 1, &b) : SV_EINVAL;
    if (st != SV_OK) {
        fail("plan", st);
        return -1;
    }
    return (double)b;
}

/* Query rows [0, row_end) of the run's first trial (as --q-rows 0:B, on a
 * fold block boundary): the cheap part of a trial too long to run whole.
 * Returns the fold blocks run, or -1. */
SVW_EXPORT double svw_rows(svw_run *r, double row_end)
{
    if (!r || !(row_end >= 1) || row_end > (double)r->spec.n_q) {
        snprintf(last_error, sizeof last_error, "rows: need 1 <= row_end <= n_q");
        return -1;
    }
    const size_t end = (size_t)row_end, nb = sv_rowfold_blocks(0, end);
    sv_rowfold *f = calloc(nb, sizeof *f);
    sv_status st =
        f ? sv_engine_run_rows(&r->spec, &r->src, &r->exec, r->done, 1, 0, end, f) : SV_ENOMEM;
    free(f);
    if (st != SV_OK) {
        fail("rows", st);
        return -1;
    }
    return (double)nb;
}

/* An sv_text_fn: ctx is the text. */
static void put_bytes(void *ctx, const char *s, size_t n)
{
    put(ctx, "%.*s", (int)n, s);
}

/* The summary row: every column of the table by name, as --format json
 * writes it; and "se": the standard error of the mean over trials of
 * every column with a spread column (its SV_PARTNER_SD_OF), as the CLI's
 * tables round at: sv_column_std_error (sd / sqrt(trials), with one trial the
 * theory of the sd). */
static void put_summary(text *t, const svw_run *r)
{
    const sv_row_view v = {.spec = &r->spec,
                           .scale_name = r->scale_name,
                           .stats = &r->summary.mean,
                           .summary = &r->summary};
    const int observed = !isnan(r->observed);
    const size_t n = sv_columns_count(SV_OUTPUT_SUMMARY);
    const sv_column *cols[SV_COLUMN_IDS]; /* the summary's: some of every column */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const sv_column *c = sv_columns_get(SV_OUTPUT_SUMMARY, i);
        if (sv_column_exists(c, &r->spec, observed, 0))
            cols[k++] = c;
    }
    put(t, "\"summary\":");
    (void)sv_row_json(cols, k, &v, put_bytes, t); /* arguments set: SV_OK */
    put(t, ",\"se\":{");
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        const sv_column *c = sv_columns_get(SV_OUTPUT_SUMMARY, i);
        const sv_column *of = sv_column_partner(SV_OUTPUT_SUMMARY, c, SV_PARTNER_SD_OF);
        if (!of || c->type != SV_VALUE_REAL || !sv_column_exists(c, &r->spec, 1, 0))
            continue;
        put(t, "%s\"%s\":", first ? "" : ",", of->name);
        first = 0;
        put_real(t, sv_column_std_error(of, &v));
    }
    put(t, "}");
}

/* The engine's bins, grouped by `group` (the page shows at most ~60):
 * [lo, hi, count, theory] for bins first .. last - 1 of counts h, theory
 * the expected count of `total` draws of N(mean, var) in [lo, hi)
 * (sv_theory_normal_counts; null where the theory has no variance). */
static void put_bins(text *t, const char *name, const uint64_t *h, double lo, double w,
                     size_t first, size_t last, size_t group, double mean, double var, double total)
{
    put(t, "\"%s\":[", name);
    for (size_t i = first; i < last; i += group) {
        uint64_t c = 0;
        const size_t end = i + group < last ? i + group : last;
        for (size_t j = i; j < end; j++)
            c += h[j];
        const double edges[2] = {lo + w * (double)i, lo + w * (double)end};
        double expected = NAN;
        (void)sv_theory_normal_counts(mean, var, total, edges, 1, &expected); /* NAN: null */
        put(t, "%s[", i > first ? "," : "");
        put_real(t, edges[0]);
        put(t, ",");
        put_real(t, edges[1]);
        put(t, ",%" PRIu64 ",", c);
        put_real(t, expected);
        put(t, "]");
    }
    put(t, "]");
}

/* The largest divisor of bins at most bins / show (1 at least): grouped
 * by it, the engine's bins are those of `--histogram bins / group`. */
static size_t group_of(size_t bins, size_t span, size_t show)
{
    size_t g = span / show < 1 ? 1 : span / show;
    while (g > 1 && bins % g)
        g--;
    return g;
}

/* The histograms: raw scores over the whole range in 60 groups of the
 * engine's bins; scaled over the groups within 6 of its theory sd, the
 * groups of `--histogram bins / group`; "outside" counts the scores of no
 * drawn bin (the engine's outside and, scaled, the groups not drawn);
 * "raw_bins" and "scaled_bins" are the CLI's --histogram of each. */
static void put_hist(text *t, const svw_run *r)
{
    const size_t b = r->taps.hist_bins;
    const double lo = r->taps.hist_lo, w = (r->taps.hist_hi - lo) / (double)b;
    const size_t graw = group_of(b, b, 60);
    const double sd = sqrt(r->summary.scaled_theory.var);
    double a = (-6.0 * sd - lo) / w, z = (6.0 * sd - lo) / w;
    size_t first = isfinite(a) && a > 0 ? (size_t)a : 0;
    size_t last = isfinite(z) && z < (double)b ? (size_t)z + 1 : b;
    const size_t gs = group_of(b, last - first, 60);
    first -= first % gs;
    last = last % gs ? last + gs - last % gs : last;
    if (last > b)
        last = b;
    const uint64_t *sc = r->hist + b + 1;
    uint64_t cut = sc[b];
    for (size_t i = 0; i < b; i++)
        cut += i < first || i >= last ? sc[i] : 0;
    put(t, ",\"hist\":{\"bins\":%zu,\"raw_bins\":%zu,\"scaled_bins\":%zu,\"lo\":", b, b / graw,
        b / gs);
    put_real(t, lo);
    put(t, ",\"hi\":");
    put_real(t, r->taps.hist_hi);
    put(t, ",\"outside\":[%" PRIu64 ",%" PRIu64 "],", r->hist[b], cut);
    uint64_t scores = 0;
    (void)sv_spec_scores(&r->spec, &scores); /* checked when the run began */
    const double total = (double)r->done * (double)scores;
    const sv_theory *rt = &r->summary.raw_theory, *st = &r->summary.scaled_theory;
    put_bins(t, "raw", r->hist, lo, w, 0, b, graw, rt->mean, rt->var, total);
    put(t, ",");
    put_bins(t, "scaled", sc, lo, w, first, last, gs, st->mean, st->var, total);
    put(t, "}");
}

/* Ends the run (all trials done) and returns its JSON:
 * {"trials": done, "summary": {...}, "se": {...}, "hist": {...}, "s2": {...}}. */
SVW_EXPORT const char *svw_result(svw_run *r)
{
    if (!r || r->done != r->spec.trials) {
        snprintf(last_error, sizeof last_error, "result: the run has not finished");
        return NULL;
    }
    if (!r->ended) {
        const sv_status st = sv_runner_end(r->run, &r->summary);
        r->ended = 1;
        if (st != SV_OK) {
            fail("summary", st);
            return NULL;
        }
    }
    text *t = &r->json;
    t->len = 0;
    put(t, "{\"trials\":%" PRIu64 ",", r->done);
    put_summary(t, r);
    if (r->hist)
        put_hist(t, r);
    else if (r->spec.scale_logn)
        put(t, ",\"hist\":null");
    if (r->s2) {
        put(t, ",");
        put_bins(t, "s2", r->s2, 0.0, r->s2_hi / (double)r->s2_bins, 0, r->s2_bins, 1, NAN, NAN,
                 0.0); /* no normal theory: null */
        put(t, ",\"s2_outside\":%" PRIu64, r->s2[r->s2_bins]);
    }
    put(t, "}");
    return t->failed ? NULL : t->s;
}

/* Softmax of one row of logits, raw and times scale: the weights, the
 * statistics of softmax.h and the Jacobian J = diag(p) - p p^T of each. */
static int put_row(text *t, const double *s, size_t n, double scale)
{
    sv_softmax_stats st[2];
    double *p = malloc(2 * n * sizeof(double));
    if (!p || sv_softmax_row_stats(s, n, scale, &st[0], &st[1]) != SV_OK ||
        sv_softmax(s, n, 1.0, p) != SV_OK || sv_softmax(s, n, scale, p + n) != SV_OK) {
        free(p);
        return 0;
    }
    put(t, "\"scale\":");
    put_real(t, scale);
    put(t, ",");
    put_reals(t, "logits", s, n);
    for (int k = 0; k < 2; k++) {
        const double *pk = p + (size_t)k * n;
        put(t, ",\"%s\":{", k ? "scaled" : "raw");
        put_reals(t, "weights", pk, n);
        put(t, ",\"entropy\":");
        put_real(t, st[k].entropy);
        put(t, ",\"eff_keys\":");
        put_real(t, st[k].eff_keys);
        put(t, ",\"max_weight\":");
        put_real(t, st[k].max_weight);
        put(t, ",\"jac_trace\":");
        put_real(t, st[k].jac_trace);
        put(t, ",\"jac_frob\":");
        put_real(t, st[k].jac_frob);
        if (n <= 16) { /* the library's J = diag(p) - p p^T (softmax.h) */
            double jac[16 * 16], pj[16];
            sv_softmax_stats sj;
            if (sv_softmax_row_report(s, n, k ? scale : 1.0, NULL, pj, jac, NULL, &sj) != SV_OK) {
                free(p);
                return 0;
            }
            put(t, ",\"jacobian\":[");
            for (size_t i = 0; i < n; i++) {
                put(t, "%s[", i ? "," : "");
                for (size_t j = 0; j < n; j++) {
                    put(t, j ? "," : "");
                    put_real(t, jac[i * n + j]);
                }
                put(t, "]");
            }
            put(t, "]");
        }
        put(t, "}");
    }
    free(p);
    return 1;
}

/* The row editor (hook for the engine's --logits path): the softmax of the
 * n logits at x, raw and times scale, as JSON {"scale", "logits", "raw":
 * {"weights", "entropy", "eff_keys", "max_weight", "jac_trace",
 * "jac_frob", "jacobian" (n <= 16)}, "scaled": {...}}. */
SVW_EXPORT const char *svw_logits(const double *x, int n, double scale)
{
    out.len = 0;
    out.failed = 0;
    put(&out, "{");
    if (n < 1 || !(scale > 0) || !put_row(&out, x, (size_t)n, scale)) {
        snprintf(last_error, sizeof last_error, "logits: need 1 or more finite numbers");
        return NULL;
    }
    put(&out, "}");
    return out.failed ? NULL : out.s;
}

/* Query 0 of trial 0 of the experiment in @p pairs (as svw_begin) against
 * its keys (at most 4096), drawn as the engine draws them (as --example):
 * the logits q.k and their softmax raw and scaled, in svw_logits's form. */
SVW_EXPORT const char *svw_example(const char *pairs)
{
    sv_spec s;
    sv_source src;
    char scale[32];
    if (svw_spec_read(&s, pairs, scale, sizeof scale, last_error, sizeof last_error) != 0)
        return NULL;
    s.n_q = 1; /* one query row of one trial: its own n_q, trials and mask */
    s.n_k = s.n_k > 4096 ? 4096 : s.n_k;
    s.trials = 1;
    s.causal = s.values = s.grad = 0;
    if (svw_spec_resolve(&s, last_error, sizeof last_error) != 0)
        return NULL;
    sv_status st = sv_source_draw(&s, &src);
    if (st != SV_OK) {
        fail("example", st);
        return NULL;
    }
    double *logit = malloc(s.n_k * sizeof(double));
    const char *res = NULL;
    st = logit ? sv_source_logits(&src, &s, 0, 0, s.n_k, logit) : SV_ENOMEM; /* as --example */
    if (st == SV_OK)
        res = svw_logits(logit, (int)s.n_k, s.scale);
    else
        fail("example", st);
    free(logit);
    return res;
}
