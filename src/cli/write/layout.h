/* The table's layout (layout.c), shared by write_table.c (sweeps, trials)
 * and write_table_one.c (one configuration, with its verdict). */
#ifndef SDPA_VAR_CLI_LAYOUT_H
#define SDPA_VAR_CLI_LAYOUT_H

#include <stdio.h>

#include "writer.h"

/* A cell of @p width: up to 7 significant digits, fewer if that is what
 * fits; '-' where the value is undefined. */
void cli_table_cell(FILE *f, int width, double v);

/* The value of column @p id for @p e, times c^power (power 0, 1 or 2; c
 * the spec's scale, c^2 its scale2); NAN for NO_COL. */
double cli_table_col(const cli_table_entry *e, sv_column_id id, int power);

/* The value of summary column @p c for @p e as cli_table_col; NAN for c
 * NULL (a partner the column does not have). */
double cli_table_value(const cli_table_entry *e, const sv_column *c, int power);

/* The standard error of the mean of column @p id (times
 * c^power) over the trials: its sd across trials (its SV_PARTNER_SD) over
 * sqrt(trials); with one trial, the theory's sd of one trial
 * (that sd's SV_PARTNER_THEORY) where there is one; else NAN (NO_COL too). */
double cli_table_std_error(const cli_table_entry *e, sv_column_id id, int power);

/* A configuration column's value as text ("sqrt", "64", "0.5"). */
void cli_table_config_text(const sv_column *c, const cli_table_entry *e, char *buf, size_t len);

/* The configuration columns a sweep's rows are labelled by where they
 * vary: the table's block labels ("scale=dk dist=t"), the slides' label
 * columns. d_k first, every row's own label in both. */
#define CLI_TABLE_LABELLED 8
extern const sv_column_id cli_table_labelled[CLI_TABLE_LABELLED];

/* The entries of the table views (the table, the slides), before any
 * row: each configuration's spec and scale, and what the title, the block
 * labels and the footer need from the start (cli_writer's varying, bit k
 * for cli_table_labelled[k], k >= 1; one_n_k; logn). Found once: per row
 * it made a table quadratic in configurations. Returns 1 (the slides'
 * cli_format_writer begin). */
int cli_table_entries_begin(cli_writer *s);

/* Keeps summary @p row as the next entry and returns it. */
cli_table_entry *cli_table_keep(cli_writer *s, const sv_row_view *row);

/* Text wrapped at width columns: cli_wrap_put adds one unbreakable
 * piece, after a space unless it is the first; a piece that would pass
 * the width starts a new line of indent spaces (then its space). */
typedef struct cli_wrap {
    FILE *f;
    int width, indent, col;
} cli_wrap;
void cli_wrap_put(cli_wrap *w, const char *piece);

/* The header line(s): every option that shapes the run, except those
 * that vary between the @p n entries, wrapped at @p width columns
 * (INT_MAX: one line, the slides'). */
void cli_table_title(FILE *f, const cli_table_entry *e, size_t n, int width);

#endif
