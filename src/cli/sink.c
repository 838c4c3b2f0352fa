/* Dispatch from the run loop to the format's writer. */
#include <math.h>
#include <stdlib.h>

#include "sink.h"

sv_output_kind cli_output_kind(const cli_options *opt)
{
    return opt->histogram   ? SV_OUTPUT_HISTOGRAM
           : opt->per_row   ? SV_OUTPUT_PER_ROW
           : opt->per_trial ? SV_OUTPUT_PER_TRIAL
                            : SV_OUTPUT_SUMMARY;
}

int cli_sink_has(const cli_sink *s, const sv_column *c)
{
    return (!(c->flags & SV_COLUMN_ONLY_OBSERVED) || s->observed) &&
           (!(c->flags & SV_COLUMN_ONLY_GRAD) || s->opt->base.grad);
}

int cli_sink_begin(cli_sink *s, FILE *f, const cli_options *opt, cli_format format, size_t count)
{
    *s = (cli_sink){.f = f,
                    .opt = opt,
                    .kind = cli_output_kind(opt),
                    .format = format,
                    .observed = !isnan(opt->observed),
                    .count = count};
    if (format == CLI_FORMAT_TABLE &&
        (s->kind == SV_OUTPUT_SUMMARY || s->kind == SV_OUTPUT_PER_TRIAL)) {
        s->entries = calloc(count, sizeof *s->entries);
        if (!s->entries)
            return 0;
    }
    return 1;
}

/* What comes before the first row, written with it: a run that fails in
 * its first configuration writes nothing at all. */
static int start(cli_sink *s)
{
    if (s->started)
        return 1;
    s->started = 1;
    switch (s->format) {
    case CLI_FORMAT_TABLE:
        cli_table_begin(s);
        return 1;
    case CLI_FORMAT_JSON:
    case CLI_FORMAT_JSONL:
        return cli_json_begin(s);
    default:
        cli_csv_header(s);
        return 1;
    }
}

int cli_sink_row(cli_sink *s, const sv_row_view *row)
{
    if (!start(s))
        return 0;
    switch (s->format) {
    case CLI_FORMAT_TABLE:
        cli_table_row(s, row);
        break;
    case CLI_FORMAT_JSON:
    case CLI_FORMAT_JSONL:
        cli_json_row(s, row);
        break;
    default:
        cli_csv_row(s, row);
        break;
    }
    s->rows++;
    return 1;
}

void cli_sink_end(cli_sink *s)
{
    start(s); /* a run always has rows; this only keeps the pairing */
    if (s->format == CLI_FORMAT_TABLE)
        cli_table_end(s);
    else if (s->format == CLI_FORMAT_JSON || s->format == CLI_FORMAT_JSONL)
        cli_json_end(s);
    free(s->entries);
    s->entries = NULL;
}
