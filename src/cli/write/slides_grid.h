/* A table for slides, markdown (GFM) or a LaTeX booktabs tabular, a cell
 * at a time: write_slides.c (the summary) and write_logits.c (given rows)
 * draw theirs with it, so both escape TeX the same way. */
#ifndef SDPA_VAR_CLI_SLIDES_GRID_H
#define SDPA_VAR_CLI_SLIDES_GRID_H

#include <stdio.h>

/* A LaTeX reader's first line: the rules are booktabs'. */
#define CLI_GRID_BOOKTABS "% needs \\usepackage{booktabs} (\\toprule, \\midrule, \\bottomrule)\n"

typedef struct cli_grid {
    FILE *f;
    int latex;
    int col; /* cells written on this row */
} cli_grid;

/* One cell: "| text" (markdown, '|' escaped) or "& text" (LaTeX, _ % & #
 * $ ^ escaped, "<=" as $\le$, '|' as $|$, a lone "-", no value, as "--"). */
void cli_grid_cell(cli_grid *g, const char *text);
/* The end of a row: " |" or " \\". */
void cli_grid_end_row(cli_grid *g);
/* The rule under the header: "|---|--:|..." or \midrule. */
void cli_grid_rule(cli_grid *g, int cols);
/* \begin{tabular}{lrr...}\toprule (LaTeX only) and its end. */
void cli_grid_begin(cli_grid *g, int cols);
void cli_grid_end(cli_grid *g);

#endif
