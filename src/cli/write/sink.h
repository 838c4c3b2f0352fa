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

/* Bytes the buffer holds before the row that ends there is written out. */
#define CLI_SINK_COMMIT_BYTES 65536

/* One configuration as the table needs it: its spec and scale (for the
 * title and the block labels, from the start) and its summary (small;
 * kept for one configuration's table, written when it finishes). */
typedef struct cli_table_entry {
    sv_spec spec;
    sv_summary summary;
    char scale_name[32];
} cli_table_entry;

typedef struct cli_sink {
    FILE *f;                   /* the buffer rows are formatted into */
    char *buf;                 /* its bytes (open_memstream) */
    size_t buf_size;           /* its size, after fflush */
    int fd;                    /* where commits write: stdout */
    int committed;             /* some output is out (the header with it) */
    int write_errno;           /* a write failed: its errno, else 0 */
    unsigned varying;          /* table: bit k when block label k varies */
    const cli_output *out;     /* how rows are written */
    const cli_config *configs; /* the run's configurations, count of them */
    sv_output_kind kind;
    cli_format format;        /* never CLI_FORMAT_AUTO */
    int observed;             /* --observed given: its columns exist */
    int files;                /* --q: no SV_COLUMN_ONLY_DRAWS columns */
    size_t count;             /* configurations in the run */
    size_t rows;              /* rows written so far */
    int started;              /* the header is out (written with the first row) */
    cli_table_entry *entries; /* table summaries, count of them */
    size_t n_entries;
    const sv_column **cols; /* CSV and JSON: the columns written, in order */
    size_t n_cols;
} cli_sink;

/* Opens a sink of the configurations of @p plan, writing plan->out's
 * format to file descriptor @p fd (plan must outlive the sink). What comes
 * before the first row (a header, the JSON config) is written with that
 * row, so a run that fails before its first row writes nothing. 0 when out
 * of memory. */
int cli_sink_begin(cli_sink *s, int fd, const cli_plan *plan);

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

/* The text that ends the committed output (JSON "]}", a sweep table's
 * footer; "" for CSV and JSON Lines), NUL-terminated in @p buf.
 * @return its length. */
size_t cli_sink_tail(const cli_sink *s, char *buf, size_t len);

/* Per format: CSV and JSON stream; the table buffers summaries. */
void cli_csv_header(cli_sink *s);
void cli_csv_row(cli_sink *s, const sv_row_view *row);
int cli_json_begin(cli_sink *s);
void cli_json_row(cli_sink *s, const sv_row_view *row);
void cli_table_begin(cli_sink *s);
void cli_table_row(cli_sink *s, const sv_row_view *row);
void cli_table_end(cli_sink *s);
size_t cli_table_tail(const cli_sink *s, char *buf, size_t len);

/* Whether column @p c exists in this sink's rows (the --observed pair only
 * with --observed); --columns writes a selection of these (s->cols). */
int cli_sink_has(const cli_sink *s, const sv_column *c);

#endif
