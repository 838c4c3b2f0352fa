/* Sinks: where rows go. Every format takes its columns from the library's
 * column table (sdpa_var/columns.h) and receives rows as they are
 * finished, so a sweep never holds more than one configuration. Rows are
 * formatted into a buffer and reach stdout only by cli_sink_commit, whole:
 * after each configuration, and whenever the buffer passes
 * CLI_SINK_COMMIT_BYTES at the end of a row. So an interrupted or failed
 * run leaves whole rows, and a failed write stops the run at once. */
#ifndef SDPA_VAR_CLI_SINK_H
#define SDPA_VAR_CLI_SINK_H

#include <stdio.h>

#include "specs.h"
#include "sdpa_var/columns.h"
#include "writer.h"

/* Writes buf[0 .. n) to fd, whole, across short writes and EINTR; on a
 * failure a regular file is cut back to where this write started, so no
 * part of a row (or of a state) is left. @return 1; 0 when a write failed
 * (errno says why). */
int cli_write_all(int fd, const void *buf, size_t n);

/* Bytes the buffer holds before the row that ends there is written out. */
#define CLI_SINK_COMMIT_BYTES 65536

typedef struct cli_sink {
    cli_writer w;                 /* what the writers see */
    const cli_format_writer *fmt; /* the format's writers */
    char *buf;                    /* the bytes of w.f (open_memstream) */
    size_t buf_size;              /* its size, after fflush */
    int fd;                       /* where commits write: stdout */
    int committed;                /* some output is out (the header with it) */
    int write_errno;              /* a write failed: its errno, else 0 */
    int files;                    /* --q: no SV_COLUMN_ONLY_DRAWS columns */
    int started;                  /* the header is out (written with the first row) */
} cli_sink;

/* Opens a sink of the configurations of @p plan, writing plan->out's
 * format to file descriptor @p fd (plan must outlive the sink). What comes
 * before the first row (a header, the JSON config) is written with that
 * row, so a run that fails before its first row writes nothing. 0 when out
 * of memory. */
int cli_sink_begin(cli_sink *s, int fd, const cli_plan *plan);

/* What no row written shows, which the run need not compute: bit g of
 * *groups for group g (sv_column_group: the entries of Q and K for
 * "inputs", the quantiles for "quantiles"); *trial_sd for the SDs across
 * trials (sv_column_trial_sd); *skip the SV_SKIP_* groups no column reads
 * (sv_column_reads). Nothing (0) but for CSV and JSON, whose columns are
 * known: the table views choose their rows themselves. */
void cli_sink_unshown(const cli_sink *s, unsigned *groups, int *trial_sd, unsigned *skip);

/* Formats one row of the sink's kind, whole, into the buffer. 0 when out
 * of memory. */
int cli_sink_row(cli_sink *s, const sv_row_view *row);

/* Writes the buffer to the descriptor and empties it. 0 when a write
 * failed (s->write_errno says why; a regular file is cut back to the last
 * whole row). Afterwards the interrupt handler's tail is what ends the
 * output written so far. */
int cli_sink_commit(cli_sink *s);

/* cli_sink_commit once the buffer holds CLI_SINK_COMMIT_BYTES. */
int cli_sink_flush_some(cli_sink *s);

/* Finishes (a table writes its text here, JSON closes its document),
 * commits and frees. 0 when a write failed. */
int cli_sink_end(cli_sink *s);

/* After a failure: drops what is not committed, ends the output written
 * so far (JSON closed, the table's footer) when there is any and no write
 * failed, and frees. */
void cli_sink_abort(cli_sink *s);

#endif
