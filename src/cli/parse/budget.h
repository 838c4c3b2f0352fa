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

#include "specs.h"

/* OpenBLAS's buffer per thread (BUFFER_SIZE, 32 << 22 on x86-64: one
 * mmap of 128 MiB, seen with strace in each thread that calls dgemm). */
#define CLI_BLAS_BUFFER_BYTES (128.0 * 1024 * 1024)

/* What the process holds besides the configuration's own memory: slack
 * for malloc's arenas and the threads' local storage. */
#define CLI_BUDGET_SLACK_BYTES (16.0 * 1024 * 1024)

/* Resident memory of the process before any configuration runs (the
 * program, libc, OpenBLAS and OpenMP), measured with /usr/bin/time -f %M on
 * a run of one tiny configuration (tests/output/memory_test.sh). */
#define CLI_RUN_BASE_BYTES (6.0 * 1024 * 1024)

/* Trials per engine call of the run loop: the per-trial statistics of one
 * chunk are all that is held (the summary keeps two doubles per trial). */
#define CLI_TRIAL_CHUNK ((uint64_t)1 << 16)

/* The trials of one engine call for a configuration of @p trials. */
uint64_t cli_budget_chunk(uint64_t trials);

/* Bytes sv_engine_bytes gives for the random draws of @p spec with
 * @p exec and no taps. @return its status. */
sv_status cli_budget_engine_bytes(const sv_exec *exec, const sv_spec *spec, size_t *bytes);

/* Bytes the run of configuration @p spec takes beyond the engine's own
 * @p engine_bytes and the process's fixed share (CLI_RUN_BASE_BYTES): one
 * chunk of per-trial statistics, two doubles per trial for the summary's
 * quantiles, the per-row sums and the histogram of @p out. */
double cli_budget_config_bytes(const cli_output *out, const sv_spec *spec, size_t engine_bytes);

/* The memory the whole run takes: CLI_RUN_BASE_BYTES plus the most any
 * one configuration takes (they run one after another). With SDPA_VAR_MEMORY_ESTIMATE set in the
 * environment, sdpa-var prints it on stderr before running (for
 * tests/output/memory_test.sh, which holds it to /usr/bin/time). */
double cli_budget_estimate(const cli_plan *plan);

/* Whether the run of configuration @p c, written as @p out, fits in
 * physical memory (SIZE_MAX when the system does not say): 1; else 0
 * and in @p why its bytes (CLI_RUN_BASE_BYTES and its own) against the
 * machine's, "X GiB of memory; this machine has Y GiB", for a caller's
 * "... needs " before it. */
int cli_budget_fits(const cli_output *out, const cli_config *c, char *why, size_t len);

typedef struct cli_budget {
    double limit;   /* RLIMIT_AS in bytes; INFINITY without a limit */
    double base;    /* address space in use when the run starts (VmSize) */
    double blas;    /* OpenBLAS's own threads: a buffer and a stack each */
    double stack;   /* one thread's stack */
    int threads;    /* the engine's threads */
    const char *by; /* what set them: "--threads", "OMP_NUM_THREADS" or NULL */
} cli_budget;

/* Reads the limit and what the process holds now. */
void cli_budget_begin(cli_budget *b, const cli_plan *plan);

/* Whether configuration @p config of @p plan fits the limit; if not, one
 * line (without the program name) in @p why naming what does not fit. */
int cli_budget_check(const cli_budget *b, const cli_plan *plan, const cli_config *config, char *why,
                     size_t len);

/* Whether the process runs under an address-space limit. */
int cli_budget_limited(void);

#endif
