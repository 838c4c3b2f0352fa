/* libFuzzer harness: the engine on small sizes with every option, through
 * the library's public API only (as the Python package will call it).
 *
 * The input decodes into a configuration (d_k <= 8, n_q, n_k <= 40,
 * trials <= 3; every flag; distributions and enum values including invalid
 * ones; doubles from a table of edge values: 0, negative, tiny, huge,
 * subnormal, inf, nan): a spec, execution options, taps and a trial range.
 * If sv_spec_resolve (which checks) and sv_taps_check accept it,
 * sv_engine_run runs it on the spec's random draws. Invariants:
 *   - no crash, no sanitizer report, no leak;
 *   - run's status is OK, or ENOMEM/ERANGE only where sv_engine_bytes
 *     said so first (the checks must rule out everything else);
 *   - on OK, every statistic defined for this configuration is not nan
 *     (inf is allowed where the true value overflows), variances >= 0,
 *     softmax entropy in [0, log n_k], max weight in (0, 1];
 *   - progress reports never go backwards nor past the total;
 *   - taps.skip (the input's last byte) only turns the skipped fields into
 *     nan: a second run without it gives every other field the same bits.
 * SV_FUZZ_PRINT=1 ./fuzz_engine FILE prints the configuration FILE decodes to. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/sdpa_var.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned byte(reader *r) /* 0 once the input is used up */
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static const double edge[] = {0.0,   1.0,    -1.0,    0.5,    2.0,    3.0,      4.0,
                              4.5,   8.0,    0.7,     -0.7,   1e-3,   1e3,      1e100,
                              1e308, -1e308, DBL_MIN, 5e-324, 1e-320, INFINITY, -INFINITY,
                              NAN,   1e154,  -2.0,    0.999,  100.0,  1.0001,   -0.5};

static double pick(reader *r)
{
    return edge[byte(r) % (sizeof edge / sizeof edge[0])];
}

static const size_t big[] = {
    0, 1, 2, 7, 256, 4096, (size_t)1 << 53, SIZE_MAX / 2, SIZE_MAX - 615, SIZE_MAX};

static size_t pick_size(reader *r, size_t small)
{
    const unsigned b = byte(r);
    return b < 200 ? b % (small + 1) : big[b % (sizeof big / sizeof big[0])];
}

typedef struct progress_seen {
    uint64_t done, total;
    int bad;
} progress_seen;

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_seen *s = ctx;
    if (done < s->done || done > total || (s->total && total != s->total))
        s->bad = 1;
    s->done = done;
    s->total = total;
}

/* What one input decodes to. */
typedef struct job {
    sv_spec spec;
    sv_exec exec;
    sv_taps taps;
    uint64_t first, count; /* trials first .. first + count - 1 */
} job;

/* The job as one line: what a crash report needs to reproduce. */
static void print_config(const char *what, const job *j)
{
    const sv_spec *c = &j->spec;
    const sv_taps *t = &j->taps;
    fprintf(stderr,
            "%s: d_k %zu n_q %zu n_k %zu trials %llu+%llu dist %d nu %g scale %g q %g/%g k %g/%g"
            " qk_norm %d/%g d_model %zu init %d cross %d causal %d values %d d_v %zu bins %zu"
            " [%g, %g) plant %g ddof %u block_rows %zu threads %d skip %u\n",
            what, c->d_k, c->n_q, c->n_k, (unsigned long long)j->first,
            (unsigned long long)j->count, (int)c->dist, c->nu, c->scale, c->q_mean, c->q_std,
            c->k_mean, c->k_std, c->qk_norm, c->qk_radius, c->d_model, (int)c->init, c->cross,
            c->causal, c->values, c->d_v, t->hist_bins, t->hist_lo, t->hist_hi, c->plant, c->ddof,
            j->exec.block_rows, j->exec.threads, t->skip);
}

static void fail(const char *what, const job *j)
{
    print_config(what, j);
    abort();
}

static void check_stats(const job *j, const sv_trial_stats *s)
{
    const sv_spec *c = &j->spec;
    const double lim = log((double)c->n_k) + 1e-9;
    const double v[] = {s->raw_mean,       s->raw_var,          s->raw_entropy,
                        s->scaled_entropy, s->raw_max_weight,   s->scaled_max_weight,
                        s->raw_jac_trace,  s->scaled_jac_trace, s->raw_max_abs_logit};
    const size_t nv = sizeof v / sizeof v[0] - ((j->taps.skip & SV_SKIP_LOGITS) != 0);
    for (size_t i = 0; i < nv; i++)
        if (isnan(v[i]))
            fail("nan statistic", j);
    if (!(s->raw_var >= 0) || !(s->raw_entropy >= -1e-12 && s->raw_entropy <= lim) ||
        !(s->scaled_entropy >= -1e-12 && s->scaled_entropy <= lim) ||
        !(s->raw_max_weight > 0 && s->raw_max_weight <= 1 + 1e-12) ||
        !(s->scaled_max_weight > 0 && s->scaled_max_weight <= 1 + 1e-12))
        fail("statistic out of range", j);
}

/* The same trials without taps: a skipped group is nan, every other field
 * has the bits it had. */
static void check_skip(const job *j, const sv_source *src, const sv_trial_stats *skipped)
{
    sv_trial_stats all[3];
    sv_exec quiet = j->exec; /* the first run's progress is the one checked */
    quiet.progress = NULL;
    if (sv_engine_run(&j->spec, src, &quiet, NULL, j->first, j->count, all) != SV_OK)
        fail("run without skip failed", j);
    for (uint64_t t = 0; t < j->count; t++)
        for (size_t i = 0; i < SV_TRIAL_FIELDS; i++) {
            const double x = ((const double *)&all[t])[i], y = ((const double *)&skipped[t])[i];
            if (memcmp(&x, &y, sizeof x) != 0 && !(isnan(x) && isnan(y)) &&
                !(isnan(y) && !isnan(x)))
                fail("skip changed a field it does not skip", j);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    job j;
    memset(&j, 0, sizeof j);
    sv_spec c = {0};
    c.d_k = 1 + byte(&r) % 8;
    c.n_q = 1 + byte(&r) % 40;
    c.n_k = byte(&r) < 128 ? c.n_q : 1 + byte(&r) % 40;
    j.count = 1 + byte(&r) % 3;
    j.first = byte(&r) < 250 ? byte(&r) : UINT64_MAX - byte(&r) % 4;
    for (int i = 0; i < 8; i++)
        c.seed = c.seed << 8 | byte(&r);
    c.dist = (sv_dist)(byte(&r) % 5); /* 4 is not a distribution */
    c.nu = pick(&r);
    c.scale = pick(&r);
    c.q_mean = pick(&r);
    c.q_std = pick(&r);
    c.k_mean = pick(&r);
    c.k_std = pick(&r);
    const unsigned flags = byte(&r);
    c.qk_norm = flags & 1;
    c.cross = flags >> 1 & 1;
    c.causal = flags >> 2 & 1;
    c.values = flags >> 3 & 1;
    c.qk_radius = pick(&r);
    c.d_model = pick_size(&r, 8);
    c.init = (sv_init)(byte(&r) % 4); /* 3 is not an init */
    c.d_v = pick_size(&r, 8);
    c.plant = flags >> 4 & 1 ? pick(&r) : 0.0;
    c.ddof = byte(&r) < 250 ? byte(&r) % 4 : UINT32_MAX;
    j.exec.block_rows = pick_size(&r, 300);
    j.exec.threads = (int)(byte(&r) % 4);
    progress_seen seen = {0, 0, 0};
    if (flags >> 5 & 1) {
        j.exec.progress = on_progress;
        j.exec.progress_ctx = &seen;
    }
    uint64_t hist[4][10];
    double *rows = NULL;
    if (flags >> 6 & 1) {
        j.taps.hist_bins = 1 + byte(&r) % 9;
        j.taps.hist_lo = pick(&r);
        j.taps.hist_hi = pick(&r);
        memset(hist, 0, sizeof hist);
        j.taps.hist_raw = hist[0];
        j.taps.hist_scaled = hist[1];
        if (byte(&r) & 1) {
            j.taps.hist_w_raw = hist[2];
            j.taps.hist_w_scaled = hist[3];
        }
    }
    if (flags >> 7 & 1) {
        rows = calloc(c.n_q * SV_ROW_FIELDS, sizeof *rows);
        j.taps.row_sums = rows;
    }
    j.taps.skip = byte(&r) % 128; /* 64 is no group: sv_taps_check refuses it */

    /* The experiment whose trials [first, first + count) run; a range
     * past 2^64 trials is no experiment. */
    c.trials = j.first <= UINT64_MAX - j.count ? j.first + j.count : 0;
    j.spec = c;
    const sv_status sr = sv_spec_resolve(&j.spec);
    size_t bytes = 0;
    if (getenv("SV_FUZZ_PRINT")) /* SV_FUZZ_PRINT=1 ./fuzz_engine CRASH_FILE */
        print_config("config", &j);
    sv_source src;
    if (sr == SV_OK && sv_taps_check(&j.taps, &j.spec) == SV_OK &&
        sv_source_draw(&j.spec, &src) == SV_OK) {
        const sv_status sb = sv_engine_bytes(&j.spec, &src, &j.exec, &j.taps, j.count, &bytes);
        sv_trial_stats per_trial[3];
        const sv_status st =
            sv_engine_run(&j.spec, &src, &j.exec, &j.taps, j.first, j.count, per_trial);
        if (st != SV_OK && !(sb != SV_OK && st == sb)) {
            fprintf(stderr, "run: %s\n", sv_status_str(st));
            fail("check accepted, run failed", &j);
        }
        if (st == SV_OK) {
            for (uint64_t t = 0; t < j.count; t++)
                check_stats(&j, &per_trial[t]);
            if (j.taps.skip)
                check_skip(&j, &src, per_trial);
            if (seen.bad || (j.exec.progress && seen.done != seen.total))
                fail("progress", &j);
        }
    }
    free(rows);
    return 0;
}
