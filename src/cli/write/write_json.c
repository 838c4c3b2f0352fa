/* JSON: --format json writes one document
 *   {"tool": "sdpa-var", "version": "...", "config": {...}, "rows": [...]}
 * and --format jsonl (JSON Lines) the same object without "rows" on the
 * first line, then one row object a line. Both stream: a row is printed
 * as soon as it is finished. Keys are the CSV's column names; numbers are
 * written with %.17g (they read back exactly), counts as integers; a value
 * that is undefined (nan in CSV) is null, and so is an infinite one, which
 * JSON cannot spell. cJSON builds each object and escapes the strings. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"
#include "fail.h"

static cJSON *json_value(const sv_column *c, sv_value v)
{
    char buf[32];
    switch (c->type) {
    case SV_VALUE_REAL:
        if (!isfinite(v.real))
            return cJSON_CreateNull();
        snprintf(buf, sizeof buf, "%.17g", v.real);
        return cJSON_CreateRaw(buf);
    case SV_VALUE_COUNT:
        snprintf(buf, sizeof buf, "%" PRIu64, v.count);
        return cJSON_CreateRaw(buf);
    case SV_VALUE_TEXT:
        return cJSON_CreateString(v.text);
    }
    return cJSON_CreateNull();
}

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
 * the order they first appear (--dk 1,2,8: [1, 2, 8]). */
static cJSON *config_value(const cli_config *configs, size_t count, const sv_column *c)
{
    cJSON *list = cJSON_CreateArray();
    sv_value *seen = malloc(count * sizeof *seen);
    size_t n = 0;
    for (size_t i = 0; seen && list && i < count; i++) {
        const sv_row_view v = {.spec = &configs[i].spec, .scale_name = configs[i].scale_name};
        const sv_value x = c->get(&v);
        size_t j = 0;
        while (j < n && !same_value(c, seen[j], x))
            j++;
        if (j == n) {
            seen[n++] = x;
            cJSON_AddItemToArray(list, json_value(c, x));
        }
    }
    free(seen);
    if (list && n == 1) {
        cJSON *one = cJSON_DetachItemFromArray(list, 0);
        cJSON_Delete(list);
        return one;
    }
    return list;
}

/* The header object: tool, version and the run's configuration. */
static cJSON *header(const cli_writer *s)
{
    cJSON *doc = cJSON_CreateObject(), *cfg = cJSON_CreateObject();
    if (!doc || !cfg) {
        cJSON_Delete(doc);
        cJSON_Delete(cfg);
        return NULL;
    }
    cJSON_AddStringToObject(doc, "tool", CLI_PROG);
    cJSON_AddStringToObject(doc, "version", SV_VERSION_STRING);
    cJSON_AddStringToObject(cfg, "output", sv_output_kind_name(s->kind));
    for (size_t i = 0; i < s->n_config_cols; i++) {
        const sv_column *c = s->config_cols[i];
        cJSON_AddItemToObject(cfg, c->name, config_value(s->configs, s->count, c));
    }
    if (s->observed)
        cJSON_AddItemToObject(
            cfg, "observed",
            json_value(&(sv_column){.type = SV_VALUE_REAL}, (sv_value){.real = s->out->observed}));
    if (s->out->histogram) {
        cJSON_AddNumberToObject(cfg, "bins", (double)s->out->histogram);
        cJSON_AddStringToObject(cfg, "histogram_of",
                                s->out->weight_histogram ? "weights" : "scores");
    }
    cJSON_AddItemToObject(doc, "config", cfg);
    return doc;
}

static int print_object(FILE *f, cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return 0;
    fputs(text, f);
    cJSON_free(text);
    return 1;
}

int cli_json_begin(cli_writer *s)
{
    cJSON *doc = header(s);
    if (!doc)
        return 0;
    if (s->format == CLI_FORMAT_JSON) {
        /* The rows follow as they are finished: open the array here and
         * close it in cli_writer_tail's "]}". */
        char *text = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
        if (!text)
            return 0;
        const size_t len = strlen(text); /* ends in '}' */
        fwrite(text, 1, len - 1, s->f);
        fputs(",\"rows\":[", s->f);
        cJSON_free(text);
        return 1;
    }
    if (!print_object(s->f, doc))
        return 0;
    fputc('\n', s->f);
    return 1;
}

void cli_json_row(cli_writer *s, const sv_row_view *row)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < s->n_cols; i++)
        cJSON_AddItemToObject(o, s->cols[i]->name, json_value(s->cols[i], s->cols[i]->get(row)));
    if (s->format == CLI_FORMAT_JSON)
        fputs(s->rows ? ",\n" : "\n", s->f);
    if (!print_object(s->f, o))
        fputs("null", s->f); /* out of memory: still valid JSON, and exit 1 */
    if (s->format == CLI_FORMAT_JSONL)
        fputc('\n', s->f);
}
