/* Values and rows of the column table as CSV and JSON text (columns.h),
 * written to the caller's function: the CLI's --format csv, json and
 * jsonl and the page's summary print the same bytes. And a measured value
 * to the digits its standard error supports (sv_value_rounded): the CLI's
 * tables and slides. */
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

size_t sv_value_rounded(char *buf, size_t len, double v, double se, int width)
{
    if (!buf || len == 0)
        return 0;
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return strlen(buf);
    }
    if (!(se > 0.0) || !isfinite(se) || !isfinite(v)) { /* 4 digits, trailing zeros too */
        snprintf(buf, len, "%#.4g", v);
        const size_t n = strlen(buf);
        if (n > 0 && buf[n - 1] == '.')
            buf[n - 1] = '\0';
        return strlen(buf);
    }
    int e = (int)floor(log10(se)) - 1; /* the place of se's second digit */
    if (v != 0.0 && e < (int)floor(log10(fabs(v))) - 16)
        e = (int)floor(log10(fabs(v))) - 16; /* a double has 17 significant digits */
    if (e >= 0) {
        const double q = pow(10.0, e);
        snprintf(buf, len, "%.0f", round(v / q) * q);
    } else {
        snprintf(buf, len, "%.*f", -e, v);
    }
    if ((int)strlen(buf) > width || strcmp(buf, "-0") == 0 || strspn(buf, "-0.") == strlen(buf)) {
        /* too wide, or all zeros: as many significant digits in e-form */
        const int lead = v != 0.0 ? (int)floor(log10(fabs(v))) : e + 1;
        const int sig = lead - e + 1 < 1 ? 1 : lead - e + 1;
        if (v == 0.0 || lead < e)
            snprintf(buf, len, "0");
        else if ((int)strlen(buf) > width)
            snprintf(buf, len, "%.*e", sig - 1 < 0 ? 0 : sig - 1, v);
    }
    return strlen(buf);
}
