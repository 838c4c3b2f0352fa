/* sdpa-var: a thin command-line front end over the sdpa-var library.
 * Parse and validate everything before the first byte; then run.c runs
 * each configuration and writes its rows before the next one starts. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "sdpa_var/cpu.h"
#include "run.h"

static const char prog[] = "sdpa-var";

/* --version in GNU coreutils' form, with MIT in place of the GPL; the
 * copyright line is LICENSE's (tests/install/metadata_test.sh checks). */
static const char version_text[] =
    "Copyright (c) 2026 the sdpa-var authors\n"
    "License MIT: <https://opensource.org/licenses/MIT>.\n"
    "This is free software: you are free to change and redistribute it.\n"
    "There is NO WARRANTY, to the extent permitted by law.\n";

/* SV_CPU_CAPABILITY=default|avx2|avx512 runs the row loops as a CPU with
 * only that instruction set would (cpu.h): the suite's portability step
 * reproduces other machines' last bits with it. */
static int cpu_capability_env(char *err, size_t errlen)
{
    const char *v = getenv("SV_CPU_CAPABILITY");
    if (!v)
        return 1;
    const sv_status st = sv_cpu_capability_set(v);
    char q[80];
    if (st == SV_EINVAL)
        snprintf(err, errlen, "SV_CPU_CAPABILITY: '%s' is not default, avx2 or avx512",
                 cli_quote(q, sizeof q, v));
    else if (st != SV_OK)
        snprintf(err, errlen, "SV_CPU_CAPABILITY: %s is not supported by this CPU or build", v);
    return st == SV_OK;
}

int main(int argc, char **argv)
{
    cli_options opt;
    char err[512];
    if (!cpu_capability_env(err, sizeof err) ||
        !cli_options_parse(argc, argv, &opt, err, sizeof err) ||
        (!opt.help && !opt.version && !cli_options_check_sizes(&opt, err, sizeof err))) {
        fprintf(stderr, "%s: %s (try '%s --help')\n", prog, err, prog);
        return CLI_EXIT_USAGE;
    }
    if (opt.help || opt.version) {
        if (opt.help) {
            cli_options_usage(stdout);
        } else
            printf("%s %s\n%s", prog, SV_VERSION_STRING, version_text);
    } else {
        const cli_format format = opt.format != CLI_FORMAT_AUTO             ? opt.format
                                  : opt.no_header || !isatty(STDOUT_FILENO) ? CLI_FORMAT_CSV
                                                                            : CLI_FORMAT_TABLE;
        if (getenv("SDPA_VAR_MEMORY_ESTIMATE"))
            fprintf(stderr, "%s: memory estimate %.0f KiB\n", prog,
                    cli_run_estimate(&opt) / 1024.0);
        const int status = cli_run(&opt, format);
        if (status != CLI_EXIT_OK) {
            fflush(stdout); /* the rows before the failure, whole */
            return status;
        }
    }
    /* A full disk or a closed file shows only here. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error writing output: %s\n", prog, strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}
