/* The address-space budget of a run (budget.h). */
#define _POSIX_C_SOURCE 200809L
#include "budget.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

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

uint64_t cli_budget_chunk(uint64_t trials)
{
    return trials < CLI_TRIAL_CHUNK ? trials : CLI_TRIAL_CHUNK;
}

sv_status cli_budget_engine_bytes(const sv_exec *exec, const sv_spec *spec, size_t *bytes)
{
    sv_source src;
    const sv_status st = sv_source_draw(spec, &src);
    if (st != SV_OK)
        return st;
    return sv_engine_bytes(spec, &src, exec, NULL, spec->trials, bytes);
}

double cli_budget_config_bytes(const cli_output *out, const sv_spec *spec, size_t engine_bytes)
{
    double b = (double)engine_bytes;
    b += (double)cli_budget_chunk(spec->trials) * (double)sizeof(sv_trial_stats);
    b += 2.0 * sizeof(double) * (double)spec->trials; /* sv_summary_acc */
    if (out->kind == SV_OUTPUT_PER_ROW)
        b += (double)spec->n_q * SV_ROW_FIELDS * sizeof(double);
    b += 4.0 * ((double)out->histogram + 1.0) * sizeof(uint64_t);
    return b;
}

double cli_budget_estimate(const cli_plan *plan)
{
    double most = 0.0;
    for (size_t i = 0; i < plan->count; i++) {
        const cli_config *c = &plan->configs[i];
        const double b = cli_budget_config_bytes(&plan->out, &c->spec, c->engine_bytes);
        most = b > most ? b : most;
    }
    return CLI_RUN_BASE_BYTES + most;
}

/* Physical memory in bytes, or SIZE_MAX when the system does not say. */
static size_t physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0 || (unsigned long)pages > SIZE_MAX / (unsigned long)page)
        return SIZE_MAX;
    return (size_t)pages * (size_t)page;
}

int cli_budget_fits(const cli_output *out, const cli_config *c, char *why, size_t len)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    /* Rows are written before the next configuration starts (run.c). */
    const double need =
        CLI_RUN_BASE_BYTES + cli_budget_config_bytes(out, &c->spec, c->engine_bytes);
    const double mem = (double)physical();
    if (need <= mem)
        return 1;
    snprintf(why, len, "%.3g GiB of memory; this machine has %.3g GiB", need / gib, mem / gib);
    return 0;
}

void cli_budget_begin(cli_budget *b, const cli_plan *plan)
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
    b->threads = plan->exec.threads > 0 ? plan->exec.threads : cores > 0 ? (int)cores : 1;
    b->by = plan->threads_by;
}

int cli_budget_check(const cli_budget *b, const cli_plan *plan, const cli_config *config, char *why,
                     size_t len)
{
    if (isinf(b->limit))
        return 1;
    const sv_spec *spec = &config->spec;
    const size_t engine = config->engine_bytes; /* found when validated */
    const double gib = 1024.0 * 1024.0 * 1024.0;
    /* Each engine thread calls dgemm (a buffer); all but this one are
     * new threads (a stack). */
    const double per = CLI_BLAS_BUFFER_BYTES + b->stack;
    const double threads = b->threads * CLI_BLAS_BUFFER_BYTES + (b->threads - 1) * b->stack;
    const double rest = b->base + b->blas + CLI_BUDGET_SLACK_BYTES;
    const double own = cli_budget_config_bytes(&plan->out, spec, engine);
    const double need = rest + threads + own;
    if (need <= b->limit)
        return 1;
    if (b->by && b->threads > 1 && rest + CLI_BLAS_BUFFER_BYTES + own <= b->limit) {
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
