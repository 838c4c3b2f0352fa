/* Sinks: where rows go. Every format takes its columns from the library's
 * column table (sdpa_var/columns.h) and receives rows as they are
 * finished, so a sweep never holds more than one configuration. */
#ifndef SDPA_VAR_CLI_SINK_H
#define SDPA_VAR_CLI_SINK_H

#include <stdio.h>

#include "options.h"
#include "sdpa_var/columns.h"

/* One configuration as the table needs it after the run (a summary is
 * small; the table is the only sink that waits for all of them). */
typedef struct cli_table_entry {
    sv_spec spec;
    sv_summary summary;
    char scale_name[32];
} cli_table_entry;

typedef struct cli_sink {
    FILE *f;
    const cli_options *opt;
    sv_output_kind kind;
    cli_format format;        /* never CLI_FORMAT_AUTO */
    int observed;             /* --observed given: its columns exist */
    size_t count;             /* configurations in the run */
    size_t rows;              /* rows written so far */
    int started;              /* the header is out (written with the first row) */
    cli_table_entry *entries; /* table summaries, count of them */
    size_t n_entries;
} cli_sink;

/* The kind of rows @p opt asks for. */
sv_output_kind cli_output_kind(const cli_options *opt);

/* Opens a sink of @p count configurations on @p f. What comes before the
 * first row (a header, the JSON config) is written with that row, so a run
 * that fails before its first row writes nothing. 0 when out of memory. */
int cli_sink_begin(cli_sink *s, FILE *f, const cli_options *opt, cli_format format, size_t count);

/* Writes one row of the sink's kind, whole. 0 when out of memory. */
int cli_sink_row(cli_sink *s, const sv_row_view *row);

/* Finishes (a table writes its text here, JSON closes its document) and
 * frees. */
void cli_sink_end(cli_sink *s);

/* Per format: CSV and JSON stream; the table buffers summaries. */
void cli_csv_header(cli_sink *s);
void cli_csv_row(cli_sink *s, const sv_row_view *row);
int cli_json_begin(cli_sink *s);
void cli_json_row(cli_sink *s, const sv_row_view *row);
void cli_json_end(cli_sink *s);
void cli_table_begin(cli_sink *s);
void cli_table_row(cli_sink *s, const sv_row_view *row);
void cli_table_end(cli_sink *s);

/* Whether column @p c is written by this sink (the --observed pair only
 * with --observed). */
int cli_sink_has(const cli_sink *s, const sv_column *c);

#endif
