/* sdpa-var: a thin command-line front end over the sdpa-var library.
 * Parse and validate everything, run every configuration, and only then
 * write, so that an error never leaves half an output behind. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "options.h"
#include "output.h"

static const char prog[] = "sdpa-var";

/* --version in GNU coreutils' form, with MIT in place of the GPL; the
 * copyright line is LICENSE's (tests/install/metadata_test.sh checks). */
static const char version_text[] =
    "Copyright (c) 2026 the sdpa-var authors\n"
    "License MIT: <https://opensource.org/licenses/MIT>.\n"
    "This is free software: you are free to change and redistribute it.\n"
    "There is NO WARRANTY, to the extent permitted by law.\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The progress line: on stderr, only when it is a terminal, only once the
 * run has taken a second, at most four times a second, erased at the end. */
typedef struct progress_line {
    double start, config_start, last;
    size_t index, count, d_k;
    uint64_t t0, chunk, trials; /* the trials of the current engine call */
    int shown;
} progress_line;

static void show_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_line *pl = ctx;
    const double t = now();
    if (t - pl->start < 1.0 || t - pl->last < 0.25 || done == 0)
        return;
    pl->last = t;
    pl->shown = 1;
    const double frac =
        ((double)pl->t0 + (double)pl->chunk * (double)done / (double)total) / (double)pl->trials;
    const double left = (t - pl->config_start) * (1.0 - frac) / frac;
    fprintf(stderr, "\r%s: d_k=%zu (%zu of %zu): %3.0f%%, about %.0f s left \033[K", prog, pl->d_k,
            pl->index + 1, pl->count, 100.0 * frac, left);
    fflush(stderr);
}

static void free_results(cli_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(res[i].per_trial);
        free(res[i].row_sums);
        free(res[i].hist);
    }
    free(res);
}

/* Trials per engine call when only the summary is printed: the summary
 * keeps two doubles per trial, not every statistic. */
#define CLI_TRIAL_CHUNK ((uint64_t)1 << 16)

/* Runs one configuration: all trials kept for --per-trial, otherwise in
 * chunks folded into the summary (same numbers: the streams are numbered
 * by trial). */
static sv_status run_config(cli_result *r, const cli_options *opt, progress_line *pl)
{
    const uint64_t trials = r->cfg.trials;
    const uint64_t chunk = opt->per_trial             ? trials
                           : trials < CLI_TRIAL_CHUNK ? trials
                                                      : CLI_TRIAL_CHUNK;
    r->per_trial = calloc((size_t)chunk, sizeof(sv_trial_stats));
    if (!r->per_trial)
        return SV_ENOMEM;
    sv_summary_acc acc;
    sv_status st = sv_summary_begin(&r->cfg, &acc);
    if (st != SV_OK)
        return st;
    sv_config c = r->cfg;
    for (uint64_t t0 = 0; st == SV_OK && t0 < trials; t0 += chunk) {
        c.first_trial = t0;
        c.trials = trials - t0 < chunk ? trials - t0 : chunk;
        pl->t0 = t0;
        pl->chunk = c.trials;
        pl->trials = trials;
        st = sv_experiment_run(&c, r->per_trial);
        if (st == SV_OK)
            sv_summary_add(&acc, r->per_trial, (size_t)c.trials);
    }
    if (st != SV_OK) {
        sv_summary_end(&acc, NAN, NULL); /* frees */
        return st;
    }
    return sv_summary_end(&acc, opt->observed, &r->summary);
}

int main(int argc, char **argv)
{
    cli_options opt;
    char err[512];
    if (!cli_options_parse(argc, argv, &opt, err, sizeof err) ||
        (!opt.help && !opt.version && !cli_options_check_sizes(&opt, err, sizeof err))) {
        fprintf(stderr, "%s: %s (try '%s --help')\n", prog, err, prog);
        return CLI_EXIT_USAGE;
    }
    if (opt.help || opt.version) {
        if (opt.help) {
            fputs(cli_usage_text, stdout);
            fputs(cli_usage_text2, stdout);
        } else
            printf("%s %s\n%s", prog, SV_VERSION_STRING, version_text);
    } else {
        const size_t count = cli_options_count(&opt);
        cli_result *res = calloc(count, sizeof *res);
        sv_status st = res ? SV_OK : SV_ENOMEM;
        progress_line pl = {.start = now(), .count = count};
        const int progress = !opt.quiet && isatty(STDERR_FILENO);
        for (size_t i = 0; st == SV_OK && i < count; i++) {
            res[i].cfg = cli_options_config(&opt, i);
            res[i].scale_name = cli_options_scale(&opt, i)->name;
            if (progress) {
                pl.index = i;
                pl.d_k = res[i].cfg.d_k;
                pl.config_start = now();
                res[i].cfg.progress = show_progress;
                res[i].cfg.progress_ctx = &pl;
            }
            if (opt.histogram) {
                const size_t b = opt.histogram;
                res[i].hist = calloc(4 * (b + 1), sizeof(uint64_t));
                if (!res[i].hist)
                    st = SV_ENOMEM;
                else {
                    sv_config *c = &res[i].cfg;
                    c->hist_bins = b;
                    cli_histogram_range(c, &c->hist_lo, &c->hist_hi);
                    /* What is printed goes first: raw then scaled, b + 1 each
                     * (scores: the last counts those outside the range). */
                    c->hist_raw = res[i].hist + (opt.weight_histogram ? 2 * (b + 1) : 0);
                    c->hist_scaled = res[i].hist + (opt.weight_histogram ? 3 * (b + 1) : b + 1);
                    if (opt.weight_histogram) {
                        c->hist_w_raw = res[i].hist;
                        c->hist_w_scaled = res[i].hist + b + 1;
                    }
                }
            }
            if (opt.per_row) {
                res[i].row_sums = calloc(res[i].cfg.n_q * SV_ROW_FIELDS, sizeof(double));
                res[i].cfg.row_sums = res[i].row_sums;
                if (!res[i].row_sums)
                    st = SV_ENOMEM;
            }
            if (st == SV_OK)
                st = run_config(&res[i], &opt, &pl);
        }
        if (pl.shown)
            fputs("\r\033[K", stderr); /* erase the progress line */
        if (st != SV_OK) {
            fprintf(stderr, "%s: %s\n", prog, sv_status_str(st));
            free_results(res, count);
            return CLI_EXIT_RUNTIME;
        }
        int table = opt.format == CLI_FORMAT_TABLE ||
                    (opt.format == CLI_FORMAT_AUTO && isatty(STDOUT_FILENO));
        if (opt.histogram && !opt.weight_histogram) {
            /* Scores beyond +-6 sd are not in any bin: say how many. */
            const uint64_t *h = res[0].hist;
            const size_t b = opt.histogram;
            if (h[b] || h[2 * b + 1])
                fprintf(stderr,
                        "%s: --histogram: %llu raw and %llu scaled scores fell outside "
                        "the bins (beyond 6 sd)\n",
                        prog, (unsigned long long)h[b], (unsigned long long)h[2 * b + 1]);
        }
        if (table)
            cli_write_table(stdout, &opt, res, count);
        else
            cli_write_csv(stdout, &opt, res, count);
        free_results(res, count);
    }
    /* A full disk or a closed file shows only here. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error writing output: %s\n", prog, strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}
