/* The address space a run takes, against the limit of `ulimit -v`
 * (RLIMIT_AS). Under such a limit what fails is not only our malloc:
 * OpenBLAS maps a buffer of CLI_BLAS_BUFFER_BYTES for each thread that
 * calls it and for each of its own threads, and when that mmap fails it
 * retries forever (blas_memory_alloc in OpenBLAS 0.3.21); libgomp ends
 * the process with its own message when it cannot create a thread. So
 * each configuration is checked before it runs, with everything counted,
 * and refused with one line and exit status 1. */
#ifndef SDPA_VAR_CLI_BUDGET_H
#define SDPA_VAR_CLI_BUDGET_H

#include "options.h"

/* OpenBLAS's buffer per thread (BUFFER_SIZE, 32 << 22 on x86-64: one
 * mmap of 128 MiB, seen with strace in each thread that calls dgemm). */
#define CLI_BLAS_BUFFER_BYTES (128.0 * 1024 * 1024)

/* What the process holds besides the configuration's own memory: slack
 * for malloc's arenas and the threads' local storage. */
#define CLI_BUDGET_SLACK_BYTES (16.0 * 1024 * 1024)

typedef struct cli_budget {
    double limit;   /* RLIMIT_AS in bytes; INFINITY without a limit */
    double base;    /* address space in use when the run starts (VmSize) */
    double blas;    /* OpenBLAS's own threads: a buffer and a stack each */
    double stack;   /* one thread's stack */
    int threads;    /* the engine's threads */
    const char *by; /* what set them: "--threads", "OMP_NUM_THREADS" or NULL */
} cli_budget;

/* Reads the limit and what the process holds now. */
void cli_budget_begin(cli_budget *b, const cli_options *opt);

/* Whether configuration @p spec fits the limit; if not, one line
 * (without the program name) in @p why naming what does not fit. */
int cli_budget_check(const cli_budget *b, const cli_options *opt, const sv_spec *spec, char *why,
                     size_t len);

/* Whether the process runs under an address-space limit. */
int cli_budget_limited(void);

#endif
