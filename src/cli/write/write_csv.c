/* CSV: one header line, then one line per row, every value from the column
 * table as the library writes it (sv_value_csv: numbers in %.17g, which
 * read back exactly; an undefined value "nan", spelled the way numpy,
 * pandas and gnuplot read it). */
#include "writer.h"

void cli_put_file(void *ctx, const char *s, size_t n)
{
    fwrite(s, 1, n, ctx);
}

int cli_csv_header(cli_writer *s)
{
    if (s->out->no_header)
        return 1;
    for (size_t i = 0; i < s->n_cols; i++)
        fprintf(s->f, "%s%s", i ? "," : "", s->cols[i]->name);
    fputc('\n', s->f);
    return 1;
}

void cli_csv_row(cli_writer *s, const sv_row_view *row)
{
    for (size_t i = 0; i < s->n_cols; i++) {
        fputs(i ? "," : "", s->f);
        sv_value_csv(s->cols[i], s->cols[i]->get(row), cli_put_file, s->f);
    }
    fputc('\n', s->f);
}

const cli_format_writer cli_csv_writer = {.begin = cli_csv_header, .row = cli_csv_row, .lists = 1};
