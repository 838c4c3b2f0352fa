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

/* Per format: CSV and JSON stream; the table buffers summaries. */
void cli_csv_header(cli_writer *s);
void cli_csv_row(cli_writer *s, const sv_row_view *row);
int cli_json_begin(cli_writer *s);
void cli_json_row(cli_writer *s, const sv_row_view *row);
void cli_table_begin(cli_writer *s);
void cli_table_row(cli_writer *s, const sv_row_view *row);
void cli_table_end(cli_writer *s);
size_t cli_table_tail(const cli_writer *s, char *buf, size_t len);
/* --format gnuplot (write_gnuplot.c): the script's head and the
 * datablock's start, then CSV rows (cli_csv_row), then EOD and the
 * template. The bins the engine counts for a histogram (more than
 * --histogram's with --format gnuplot: the narrower scale's panel sums
 * fewer of them a bar). */
void cli_gnuplot_begin(cli_writer *s);
void cli_gnuplot_end(cli_writer *s);
size_t cli_gnuplot_hist_bins(const cli_output *out, const sv_spec *spec);
/* --format markdown and latex (write_slides.c): the table view for
 * slides; like the table, the summaries are kept in entries. */
void cli_slides_begin(cli_writer *s);
void cli_slides_row(cli_writer *s, const sv_row_view *row);
void cli_slides_end(cli_writer *s);
size_t cli_slides_tail(const cli_writer *s, char *buf, size_t len);

#endif
