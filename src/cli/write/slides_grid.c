/* The cells of a slide's table (slides_grid.h): markdown (GFM) or a
 * booktabs tabular, for the summary's slides and the --logits rows. */
#include "slides_grid.h"

#include <string.h>

/* A row of cells: markdown "| a | b |", LaTeX "a & b \\". */
void cli_grid_cell(cli_grid *g, const char *text)
{
    if (g->latex) {
        fputs(g->col ? " & " : "", g->f);
        if (strcmp(text, "-") == 0) /* no value: a dash, not a hyphen */
            text = "--";
        for (const char *p = text; *p; p++) /* the characters TeX reads as commands */
            if (strchr("_%&#$", *p))
                fprintf(g->f, "\\%c", *p);
            else if (*p == '^')
                fputs("\\^{}", g->f);
            else if (*p == '|') /* text mode's "|" is another glyph too */
                fputs("$|$", g->f);
            else if (*p == '<' && p[1] == '=') /* text mode's "<" is another glyph */
                fputs("$\\le$", g->f), p++;
            else
                fputc(*p, g->f);
    } else {
        fputs(g->col ? " | " : "| ", g->f);
        for (const char *p = text; *p; p++) /* a '|' in a cell would end it */
            fputs(*p == '|' ? "\\|" : (char[]){*p, '\0'}, g->f);
    }
    g->col++;
}

void cli_grid_end_row(cli_grid *g)
{
    fputs(g->latex ? " \\\\\n" : " |\n", g->f);
    g->col = 0;
}

/* The rule under the header: markdown's "|---|--:|", LaTeX's \midrule. */
void cli_grid_rule(cli_grid *g, int cols)
{
    if (g->latex) {
        fputs("\\midrule\n", g->f);
        return;
    }
    fputs("|---", g->f);
    for (int i = 1; i < cols; i++)
        fputs("|--:", g->f);
    fputs("|\n", g->f);
}

void cli_grid_begin(cli_grid *g, int cols)
{
    if (!g->latex)
        return;
    fputs("\\begin{tabular}{l", g->f);
    for (int i = 1; i < cols; i++)
        fputc('r', g->f);
    fputs("}\n\\toprule\n", g->f);
}

void cli_grid_end(cli_grid *g)
{
    if (g->latex)
        fputs("\\bottomrule\n\\end{tabular}\n", g->f);
}
