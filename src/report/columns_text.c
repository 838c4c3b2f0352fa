/* Values and rows of the column table as CSV and JSON text (columns.h),
 * written to the caller's function: the CLI's --format csv, json and
 * jsonl and the page's summary print the same bytes. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sdpa_var/columns.h"

static void put_str(sv_text_fn put, void *ctx, const char *s)
{
    put(ctx, s, strlen(s));
}

/* The escape of byte c in a JSON string: \" \\ and the named control
 * bytes, else \u00XX for a control byte (in @p buf); NULL for none. */
static const char *escape(unsigned char c, char *buf, size_t len)
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        if (c >= 0x20)
            return NULL;
        snprintf(buf, len, "\\u%04x", c);
        return buf;
    }
}

/* A JSON string: the escapes JSON requires, the rest byte for byte. */
static void put_quoted(sv_text_fn put, void *ctx, const char *s)
{
    put(ctx, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        char buf[8];
        const char *esc = escape((unsigned char)*s, buf, sizeof buf);
        if (!esc)
            continue;
        put(ctx, run, (size_t)(s - run));
        put_str(put, ctx, esc);
        run = s + 1;
    }
    put(ctx, run, (size_t)(s - run));
    put(ctx, "\"", 1);
}

/* A finite real (%.17g: it reads back to the same double) or a count,
 * as CSV and JSON both write them. */
static void put_number(const sv_column *col, sv_value v, sv_text_fn put, void *ctx)
{
    char buf[32];
    const int n = col->type == SV_VALUE_COUNT ? snprintf(buf, sizeof buf, "%" PRIu64, v.count)
                                              : snprintf(buf, sizeof buf, "%.17g", v.real);
    put(ctx, buf, (size_t)n);
}

sv_status sv_value_json(const sv_column *col, sv_value v, sv_text_fn put, void *ctx)
{
    if (!col || !put)
        return SV_EINVAL;
    if (col->type == SV_VALUE_REAL && !isfinite(v.real))
        put_str(put, ctx, "null");
    else if (col->type == SV_VALUE_REAL || col->type == SV_VALUE_COUNT)
        put_number(col, v, put, ctx);
    else
        put_quoted(put, ctx, v.text ? v.text : "");
    return SV_OK;
}

sv_status sv_row_json(const sv_column *const *cols, size_t n, const sv_row_view *row,
                      sv_text_fn put, void *ctx)
{
    if (!row || !put || (!cols && n > 0))
        return SV_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!cols[i])
            return SV_EINVAL;
    put(ctx, "{", 1);
    for (size_t i = 0; i < n; i++) {
        if (i)
            put(ctx, ",", 1);
        put_quoted(put, ctx, cols[i]->name);
        put(ctx, ":", 1);
        sv_value_json(cols[i], cols[i]->get(row), put, ctx);
    }
    put(ctx, "}", 1);
    return SV_OK;
}

sv_status sv_value_csv(const sv_column *col, sv_value v, sv_text_fn put, void *ctx)
{
    if (!col || !put)
        return SV_EINVAL;
    const char *t = v.text ? v.text : "";
    switch (col->type) {
    case SV_VALUE_REAL:
        if (isnan(v.real))
            put_str(put, ctx, "nan"); /* printf may write "-nan" */
        else if (isinf(v.real))
            put_str(put, ctx, v.real > 0 ? "inf" : "-inf");
        else
            put_number(col, v, put, ctx);
        break;
    case SV_VALUE_COUNT:
        put_number(col, v, put, ctx);
        break;
    default:
        if (!t[strcspn(t, ",\"\r\n")]) {
            put_str(put, ctx, t); /* the table's words: as they are */
            break;
        }
        put(ctx, "\"", 1); /* RFC 4180: quoted, a quote doubled */
        for (const char *q; (q = strchr(t, '"')); t = q + 1) {
            put(ctx, t, (size_t)(q - t + 1));
            put(ctx, "\"", 1);
        }
        put_str(put, ctx, t);
        put(ctx, "\"", 1);
    }
    return SV_OK;
}
