/* The address-space budget of a run (budget.h). */
#define _POSIX_C_SOURCE 200809L
#include "budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run.h"

int openblas_get_num_threads(void); /* OpenBLAS's cblas.h */

int cli_budget_limited(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

/* Address space in use (the first field of /proc/self/statm, in pages);
 * the fixed share of the resident estimate when it cannot be read. */
static double vm_size(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    char line[128];
    const int got = f && fgets(line, sizeof line, f) != NULL;
    if (f)
        fclose(f);
    char *end = line;
    const unsigned long pages = got ? strtoul(line, &end, 10) : 0;
    const long page = sysconf(_SC_PAGESIZE);
    if (end == line || pages == 0 || page <= 0)
        return CLI_RUN_BASE_BYTES;
    return (double)pages * (double)page;
}

void cli_budget_begin(cli_budget *b, const cli_options *opt)
{
    struct rlimit rl;
    *b = (cli_budget){.limit = INFINITY};
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        b->limit = (double)rl.rlim_cur;
    if (isinf(b->limit))
        return;
    b->base = vm_size();
    /* glibc gives a thread RLIMIT_STACK, 32 MiB when that is unlimited. */
    b->stack = getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                   ? (double)rl.rlim_cur
                   : 32.0 * 1024 * 1024;
    /* OpenBLAS's own threads were started when it loaded; whether they
     * have mapped their buffers yet is a race, so they are counted as
     * not (a run within their share of the limit may be refused). */
    const int blas_threads = openblas_get_num_threads();
    b->blas = blas_threads > 1 ? (blas_threads - 1) * (CLI_BLAS_BUFFER_BYTES + b->stack) : 0.0;
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b->threads = opt->exec.threads > 0 ? opt->exec.threads : cores > 0 ? (int)cores : 1;
    b->by = opt->given[CLI_OPT_THREADS] ? "--threads"
            : opt->exec.threads > 0     ? "OMP_NUM_THREADS"
                                        : NULL;
}

int cli_budget_check(const cli_budget *b, const cli_options *opt, const sv_spec *spec, char *why,
                     size_t len)
{
    if (isinf(b->limit))
        return 1;
    size_t engine = 0;
    if (cli_run_engine_bytes(opt, spec, &engine) != SV_OK)
        engine = 0; /* validated before: not reached */
    const double gib = 1024.0 * 1024.0 * 1024.0;
    /* Each engine thread calls dgemm (a buffer); all but this one are
     * new threads (a stack). */
    const double per = CLI_BLAS_BUFFER_BYTES + b->stack;
    const double threads = b->threads * CLI_BLAS_BUFFER_BYTES + (b->threads - 1) * b->stack;
    const double rest = b->base + b->blas + CLI_BUDGET_SLACK_BYTES;
    const double config = cli_run_bytes(opt, spec, engine);
    const double need = rest + threads + config;
    if (need <= b->limit)
        return 1;
    if (b->by && b->threads > 1 && rest + CLI_BLAS_BUFFER_BYTES + config <= b->limit) {
        snprintf(why, len,
                 "%s: %d threads need %.3g GiB of address space (a stack and an OpenBLAS "
                 "buffer of %.3g GiB each); the limit (ulimit -v) is %.3g GiB",
                 b->by, b->threads, threads / gib, per / gib, b->limit / gib);
        return 0;
    }
    snprintf(why, len,
             "d_k=%zu: out of memory: the run needs %.3g GiB of address space (%.3g GiB of it "
             "OpenBLAS's buffers and thread stacks); the limit (ulimit -v) is %.3g GiB",
             spec->d_k, need / gib, (threads + b->blas) / gib, b->limit / gib);
    return 0;
}
