/* --logits: each given row at each scale, as a table, CSV, JSON or a
 * gnuplot script drawing its weights (write_logits.c). The numbers come from sv_softmax_row_report
 * (logits_run.c); this only formats them. */
#ifndef SDPA_VAR_CLI_WRITE_LOGITS_H
#define SDPA_VAR_CLI_WRITE_LOGITS_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"
#include "sdpa_var/columns.h"
#include "specs.h"

/* One given row at one scale: the column table's view of it (its key
 * set by the writer) and its n x n Jacobian diag(p) - p p^T. */
typedef struct cli_logits_entry {
    sv_logits_view v;
    const double *jac;
} cli_logits_entry;

typedef struct cli_logits_writer {
    FILE *f;
    cli_format format; /* table, csv, json, jsonl, gnuplot, markdown or latex */
    int no_header;     /* CSV without its header */
    size_t dk;         /* --dk, 0 when not given */
    size_t max_n;      /* keys of the longest row: CSV's jac_ columns */
    int grad;          /* --upstream given */
    size_t written;    /* entries so far */
    /* --format gnuplot: one panel a row, a bar a key and scale */
    size_t rows, scales;            /* the rows and the scales each is shown at */
    const char *plot_output;        /* --output: the .png, .svg or .pdf, or NULL */
    char label[CLI_SCALES_MAX][96]; /* the current row's scales, in words */
    /* --format markdown, latex: the current row's weights and statistics at
     * each scale, written as one table once its last scale is in */
    double p[CLI_SCALES_MAX][CLI_LOGITS_KEYS_MAX];
    double stat[CLI_SCALES_MAX][6];
} cli_logits_writer;

/* The header (CSV), the document's start (JSON); nothing for the table. */
void cli_logits_begin(cli_logits_writer *w);
void cli_logits_write(cli_logits_writer *w, cli_logits_entry *e);
/* JSON's "]}"; nothing for the others. */
void cli_logits_end(cli_logits_writer *w);

#endif
