/* JSON: --format json writes one document
 *   {"tool": "sdpa-var", "version": "...", "config": {...}, "rows": [...]}
 * and --format jsonl (JSON Lines) the same object without "rows" on the
 * first line, then one row object a line. Both stream: a row is printed
 * as soon as it is finished. Keys are the CSV's column names; values are
 * the library's JSON (sv_value_json: numbers in %.17g, which read back
 * exactly, counts as integers, null for a value undefined or infinite,
 * which JSON cannot spell), the bytes the page's summary has too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"
#include "fail.h"

static int same_value(const sv_column *c, sv_value a, sv_value b)
{
    switch (c->type) {
    case SV_VALUE_REAL:
        return a.real == b.real || (isnan(a.real) && isnan(b.real));
    case SV_VALUE_COUNT:
        return a.count == b.count;
    default:
        return strcmp(a.text, b.text) == 0;
    }
}

/* A configuration column over the whole run: its value when every
 * configuration has the same, else the list of its distinct values in
 * the order they first appear (--dk 1,2,8: [1,2,8]). 0: out of memory. */
static int config_value(FILE *f, const cli_config *configs, size_t count, const sv_column *c)
{
    sv_value *seen = malloc(count * sizeof *seen);
    size_t n = 0;
    for (size_t i = 0; seen && i < count; i++) {
        const sv_row_view v = {.spec = &configs[i].spec, .scale_name = configs[i].scale_name};
        const sv_value x = c->get(&v);
        size_t j = 0;
        while (j < n && !same_value(c, seen[j], x))
            j++;
        if (j == n)
            seen[n++] = x;
    }
    fputs(n == 1 ? "" : "[", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? "," : "", f);
        sv_value_json(c, seen[i], cli_put_file, f);
    }
    fputs(n == 1 ? "" : "]", f);
    free(seen);
    return seen != NULL;
}

/* The header object but its closing brace: tool, version and the run's
 * configuration. 0: out of memory. */
static int header(const cli_writer *s)
{
    FILE *f = s->f;
    int ok = 1;
    fprintf(f, "{\"tool\":\"%s\",\"version\":\"%s\",\"config\":{\"output\":\"%s\"", CLI_PROG,
            SV_VERSION_STRING, sv_output_kind_name(s->kind));
    for (size_t i = 0; i < s->n_config_cols; i++) {
        fprintf(f, ",\"%s\":", s->config_cols[i]->name);
        ok = config_value(f, s->configs, s->count, s->config_cols[i]) && ok;
    }
    if (s->observed) {
        fputs(",\"observed\":", f);
        sv_value_json(&(sv_column){.type = SV_VALUE_REAL}, (sv_value){.real = s->out->observed},
                      cli_put_file, f);
    }
    if (s->out->histogram)
        fprintf(f, ",\"bins\":%zu,\"histogram_of\":\"%s\"", s->out->histogram,
                s->out->weight_histogram ? "weights" : "scores");
    fputc('}', f);
    return ok;
}

static int json_begin(cli_writer *s)
{
    /* JSON: the rows follow as they are finished, so the array opens here
     * and json_tail's "]}" closes it. */
    const int ok = header(s);
    fputs(s->format == CLI_FORMAT_JSON ? ",\"rows\":[" : "}\n", s->f);
    return ok;
}

static void json_row(cli_writer *s, const sv_row_view *row)
{
    if (s->format == CLI_FORMAT_JSON)
        fputs(s->rows ? ",\n" : "\n", s->f);
    sv_row_json(s->cols, s->n_cols, row, cli_put_file, s->f);
    if (s->format == CLI_FORMAT_JSONL)
        fputc('\n', s->f);
}

/* JSON's end ("]}"); JSON Lines has none. */
static size_t json_tail(const cli_writer *s, char *buf, size_t len)
{
    return s->format == CLI_FORMAT_JSON ? (size_t)snprintf(buf, len, "\n]}\n") : 0;
}

const cli_format_writer cli_json_writer = {
    .begin = json_begin, .row = json_row, .tail = json_tail, .lists = 1};
