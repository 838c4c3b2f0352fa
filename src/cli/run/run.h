/* The run loop: each configuration is run, checked and written before the
 * next starts, so a sweep holds one configuration at a time. It reads the
 * validated plan (specs.h), never the options. */
#ifndef SDPA_VAR_CLI_RUN_H
#define SDPA_VAR_CLI_RUN_H

#include "sdpa_var/state.h"
#include "specs.h"

/* Runs every configuration of @p plan and writes its rows to stdout in
 * plan->out.format (not CLI_FORMAT_AUTO), each configuration's when it
 * finishes. @return the exit status; on a runtime failure (a failed write
 * stops the run at once) one line on stderr, after the rows of the
 * configurations before it, whole, and the end of the format (JSON closed,
 * the table's footer). A caught signal (interrupt.h) does the same, then
 * the process dies of it: this does not return. */
int cli_run(const cli_plan *plan);

/* `sdpa-var merge [--format F] FILE...` (argv[0] is "merge"): reads the
 * state files (or - for stdin), merges them (sdpa_var/state.h) and writes
 * what one run prints; without --format a table on a terminal, else CSV,
 * and CSV when @p mpi (stdout is then mpirun's pty, not the user's
 * terminal). @return the exit status (one line on stderr). */
int cli_merge(int argc, char **argv, int mpi);

/* Runs every configuration of @p plan into *st (allocated: sv_state_free,
 * also after a failure), as --format state would write it. @return 1; 0
 * after one line on stderr. */
int cli_run_state_into(const cli_plan *plan, sv_state *st);

/* Writes state @p m to stdout, whole (encoded: state.h). @return 1; 0
 * after one line on stderr, @p who ("merge: " or "") before an
 * allocation's failure. */
int cli_state_write(const sv_state *m, const char *who);

/* Merges shards sp[0 .. n) (sv_state_merge; named by files[], or NULL:
 * ranks) and writes the result to stdout in @p format, as `sdpa-var
 * merge` does; a note when their kernels differ. @return 1; 0 after one
 * line on stderr, @p who ("merge", "mpi: merge") before a status. */
int cli_merge_states(const sv_state *const *sp, size_t n, cli_format format, char *const *files,
                     const char *who);

#endif
