/* The run loop: each configuration is run, checked and written before the
 * next starts, so a sweep holds one configuration at a time. */
#ifndef SDPA_VAR_CLI_RUN_H
#define SDPA_VAR_CLI_RUN_H

#include "options.h"

/* Bytes sv_engine_bytes gives for the random draws of @p spec with
 * opt->exec and no taps. @return its status. */
sv_status cli_run_engine_bytes(const cli_options *opt, const sv_spec *spec, size_t *bytes);

/* Bytes the run of configuration @p spec takes beyond the engine's own
 * @p engine_bytes (cli_run_engine_bytes) and the process's fixed share
 * (CLI_RUN_BASE_BYTES): one chunk of per-trial statistics, two doubles per
 * trial for the summary's quantiles, the per-row sums and the histogram. */
double cli_run_bytes(const cli_options *opt, const sv_spec *spec, size_t engine_bytes);

/* Resident memory of the process before any configuration runs (the
 * program, libc, OpenBLAS and OpenMP), measured with /usr/bin/time -f %M on
 * a run of one tiny configuration (tests/output/memory_test.sh). */
#define CLI_RUN_BASE_BYTES (6.0 * 1024 * 1024)

/* The memory the whole run takes: CLI_RUN_BASE_BYTES plus the most any
 * one configuration takes (they run one after another); NAN when a
 * configuration is invalid. With SDPA_VAR_MEMORY_ESTIMATE set in the
 * environment, sdpa-var prints it on stderr before running (for
 * tests/output/memory_test.sh, which holds it to /usr/bin/time). */
double cli_run_estimate(const cli_options *opt);

/* Runs every configuration of @p opt and writes its rows to stdout in
 * @p format (not CLI_FORMAT_AUTO), each configuration's when it finishes.
 * @return the exit status; on a runtime failure (a failed write stops the
 * run at once) one line on stderr, after the rows of the configurations
 * before it, whole, and the end of the format (JSON closed, the table's
 * footer). A caught signal (interrupt.h) does the same, then the process
 * dies of it: this does not return. */
int cli_run(const cli_options *opt, cli_format format);

#endif
