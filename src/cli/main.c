/* sdpa-var: a thin command-line front end over the sdpa-var library.
 * Parse and validate everything, run every configuration, and only then
 * write, so that an error never leaves half an output behind. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "output.h"

static const char prog[] = "sdpa-var";

static void free_results(sv_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(res[i].per_trial);
    free(res);
}

int main(int argc, char **argv)
{
    sv_options opt;
    char err[512];
    if (!sv_options_parse(argc, argv, &opt, err, sizeof err) ||
        (!opt.help && !opt.version && !sv_options_check_sizes(&opt, err, sizeof err))) {
        fprintf(stderr, "%s: %s (try '%s --help')\n", prog, err, prog);
        return SV_EXIT_USAGE;
    }
    if (opt.help || opt.version) {
        if (opt.help)
            fputs(sv_usage_text, stdout);
        else
            printf("%s %s\n", prog, SV_VERSION_STRING);
    } else {
        sv_result *res = calloc(opt.n_dk, sizeof *res);
        sv_status st = res ? SV_OK : SV_ENOMEM;
        for (size_t i = 0; st == SV_OK && i < opt.n_dk; i++) {
            res[i].cfg = sv_options_config(&opt, i);
            res[i].per_trial = calloc((size_t)res[i].cfg.trials, sizeof(sv_trial_stats));
            if (!res[i].per_trial)
                st = SV_ENOMEM;
            if (st == SV_OK)
                st = sv_experiment_run(&res[i].cfg, res[i].per_trial);
            if (st == SV_OK)
                st = sv_summary_compute(&res[i].cfg, res[i].per_trial, opt.observed,
                                        &res[i].summary);
        }
        if (st != SV_OK) {
            fprintf(stderr, "%s: %s\n", prog, sv_status_str(st));
            free_results(res, opt.n_dk);
            return SV_EXIT_RUNTIME;
        }
        int table = opt.format == SV_FORMAT_TABLE ||
                    (opt.format == SV_FORMAT_AUTO && isatty(STDOUT_FILENO));
        if (table)
            sv_write_table(stdout, &opt, res, opt.n_dk);
        else
            sv_write_csv(stdout, &opt, res, opt.n_dk);
        free_results(res, opt.n_dk);
    }
    /* A full disk or a closed file shows only here. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error writing output: %s\n", prog, strerror(errno));
        return SV_EXIT_RUNTIME;
    }
    return SV_EXIT_OK;
}
