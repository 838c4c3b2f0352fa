/* What a writer (CSV, JSON, the table) is given by the sink: the stream
 * rows are formatted into and the run's columns and configurations. The
 * writers know nothing of the sink (sink.c calls them; they call nothing
 * back), so a new format is one more file below sink.c. */
#ifndef SDPA_VAR_CLI_WRITER_H
#define SDPA_VAR_CLI_WRITER_H

#include <stddef.h>
#include <stdio.h>

#include "sdpa_var/columns.h"
#include "specs.h"

/* Column ids as the writers' sources write them, COL(raw_var) for
 * SV_COL_raw_var; NO_COL: none (a cell left empty, a line not drawn). */
#define COL(id) SV_COL_##id
#define NO_COL SV_COLUMN_IDS

/* One configuration as the table needs it: its spec and scale (for the
 * title and the block labels, from the start) and its summary (small;
 * kept for one configuration's table, written when it finishes). */
typedef struct cli_table_entry {
    sv_spec spec;
    sv_summary summary;
    char scale_name[32];
} cli_table_entry;

typedef struct cli_writer {
    FILE *f;                   /* the buffer rows are formatted into */
    const cli_output *out;     /* how rows are written */
    const cli_config *configs; /* the run's configurations, count of them */
    size_t count;              /* configurations in the run */
    sv_output_kind kind;
    cli_format format;        /* never CLI_FORMAT_AUTO */
    int observed;             /* --observed given: its columns exist */
    unsigned varying;         /* table, slides: bit k when cli_table_labelled[k] varies */
    int one_n_k, logn;        /* table: every configuration has one n_k; some
                                 scale log-n per row (for the footer, which
                                 each commit remakes: known from the start) */
    size_t rows;              /* rows written so far */
    cli_table_entry *entries; /* table summaries, count of them */
    size_t n_entries;
    const sv_column **cols; /* CSV and JSON: the columns written, in order */
    size_t n_cols;
    const sv_column **config_cols; /* JSON: the summary's configuration columns that exist */
    size_t n_config_cols;
} cli_writer;

/* An sv_text_fn (columns.h) writing to the FILE ctx. */
void cli_put_file(void *ctx, const char *s, size_t n);

/* A format's writers, which sink.c calls: begin before the first row
 * (written with it; 0 when out of memory), row for each row, end once
 * the last is in (NULL: none), before the tail; and tail, the text that ends
 * the output committed so far (JSON's "]}", a sweep table's footer: what
 * the interrupt handler writes), NUL-terminated in buf (NULL: none).
 * lists: the rows are the columns cols lists (CSV, JSON); the others
 * choose their rows themselves. */
typedef struct cli_format_writer {
    int (*begin)(cli_writer *s);
    void (*row)(cli_writer *s, const sv_row_view *row);
    void (*end)(cli_writer *s);
    size_t (*tail)(const cli_writer *s, char *buf, size_t len);
    int lists;
} cli_format_writer;

/* CSV and JSON (and JSON Lines) stream; the table and the slides (markdown,
 * latex; write_slides.c) keep the summaries in entries. --format gnuplot
 * (write_gnuplot.c): the script's head and the datablock's start, then CSV
 * rows, then EOD and the template. */
extern const cli_format_writer cli_csv_writer, cli_json_writer, cli_table_writer,
    cli_gnuplot_writer, cli_slides_writer;

/* CSV's header line (none with --no-header; 1) and rows, which the table
 * writes for per-row and histogram output and gnuplot into its datablock. */
int cli_csv_header(cli_writer *s);
void cli_csv_row(cli_writer *s, const sv_row_view *row);

/* The bins the engine counts for a histogram (more than --histogram's with
 * --format gnuplot: the narrower scale's panel sums fewer of them a bar). */
size_t cli_gnuplot_hist_bins(const cli_output *out, const sv_spec *spec);

#endif
