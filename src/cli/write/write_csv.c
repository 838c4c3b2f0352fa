/* CSV: one header line, then one line per row, every value from the column
 * table. Numbers in %.17g (they read back exactly); an undefined value is
 * "nan", spelled the way numpy, pandas and gnuplot read it. */
#include <inttypes.h>
#include <math.h>

#include "writer.h"

static void csv_real(FILE *f, double v)
{
    if (isnan(v))
        fputs("nan", f); /* printf may write "-nan" */
    else if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", f);
    else
        fprintf(f, "%.17g", v);
}

void cli_csv_header(cli_writer *s)
{
    if (s->out->no_header)
        return;
    const char *sep = "";
    for (size_t i = 0; i < s->n_cols; i++) {
        const sv_column *c = s->cols[i];
        fprintf(s->f, "%s%s", sep, c->name);
        sep = ",";
    }
    fputc('\n', s->f);
}

void cli_csv_row(cli_writer *s, const sv_row_view *row)
{
    const char *sep = "";
    for (size_t i = 0; i < s->n_cols; i++) {
        const sv_column *c = s->cols[i];
        const sv_value v = c->get(row);
        fputs(sep, s->f);
        sep = ",";
        switch (c->type) {
        case SV_VALUE_REAL:
            csv_real(s->f, v.real);
            break;
        case SV_VALUE_COUNT:
            fprintf(s->f, "%" PRIu64, v.count);
            break;
        case SV_VALUE_TEXT:
            fputs(v.text, s->f); /* words from fixed lists or a validated number */
            break;
        }
    }
    fputc('\n', s->f);
}
