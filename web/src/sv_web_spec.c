/* The page's experiment as name=value pairs, read through the library's
 * parameter table (param.h), and the table itself as JSON for the page's
 * fields: no default, bound, rule or message of the experiment is written
 * in web/, only read from the library. */
#include <emscripten.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sdpa_var/param.h"
#include "sdpa_var/version_query.h"
#include "sv_web.h"

#define SVW_EXPORT EMSCRIPTEN_KEEPALIVE

static char table[8192]; /* the JSON of svw_params: about 3 KB */
static size_t table_len;

static void add(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const size_t room = sizeof table - table_len;
    const int n = vsnprintf(table + table_len, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        table_len += (size_t)n < room ? (size_t)n : room - 1;
}

/* A bound as JSON: null for an infinity. */
static void add_bound(const char *name, double x)
{
    if (isfinite(x))
        add(",\"%s\":%.17g", name, x);
    else
        add(",\"%s\":null", name);
}

/* The parameter table as JSON, one object a parameter in the table's
 * order: {"name", "kind" ("count", "real", "above", "flag", "name",
 * "scale"), "lo", "hi" (null: no bound), "default" (text; null: not set),
 * "implies" (a name or null), "choices" (names or null)}. */
SVW_EXPORT const char *svw_params(void)
{
    static const char *const kinds[] = {"count", "real", "above", "flag", "name", "scale"};
    table_len = 0;
    add("[");
    for (int i = 0; sv_param_name((sv_param)i); i++) {
        sv_param_kind kind;
        double lo, hi;
        const char *def;
        sv_param implies;
        (void)sv_param_bounds((sv_param)i, &kind, &lo, &hi, &def, &implies);
        add("%s{\"name\":\"%s\",\"kind\":\"%s\"", i ? "," : "", sv_param_name((sv_param)i),
            kinds[kind]);
        add_bound("lo", lo);
        add_bound("hi", hi);
        add(def ? ",\"default\":\"%s\"" : ",\"default\":null", def);
        add(implies != SV_PARAM_NONE ? ",\"implies\":\"%s\"" : ",\"implies\":null",
            sv_param_name(implies));
        const char *const *c = sv_param_choices((sv_param)i);
        add(",\"choices\":%s", c ? "[" : "null");
        for (size_t j = 0; c && c[j]; j++)
            add("%s\"%s\"", j ? "," : "", c[j]);
        add(c ? "]}" : "}");
    }
    add("]");
    return table;
}

/* One pair "name=value" (line[0 .. n)) into spec: 0, or -1 with why. */
static int read_pair(sv_spec *spec, const char *at, size_t n, char *scale, size_t scale_len,
                     char *err, size_t err_len)
{
    char line[256], q[80];
    if (n >= sizeof line) {
        snprintf(err, err_len, "a pair of %zu characters is too long", n);
        return -1;
    }
    memcpy(line, at, n);
    line[n] = '\0';
    char *eq = strchr(line, '=');
    if (!eq) {
        snprintf(err, err_len, "'%s' is not name=value", sv_quote(q, sizeof q, line));
        return -1;
    }
    *eq = '\0';
    sv_param p;
    if (sv_param_lookup(line, &p) != SV_OK) {
        snprintf(err, err_len, "'%s' is not a parameter", sv_quote(q, sizeof q, line));
        return -1;
    }
    if (sv_spec_set(spec, p, eq + 1) != SV_OK) {
        const int at_why = snprintf(err, err_len, "%s: ", line);
        if (at_why > 0 && (size_t)at_why < err_len)
            (void)sv_param_explain(p, eq + 1, err + at_why, err_len - (size_t)at_why);
        return -1;
    }
    if (p == SV_PARAM_SCALE)
        snprintf(scale, scale_len, "%s", eq + 1);
    return 0;
}

int svw_spec_read(sv_spec *spec, const char *pairs, char *scale, size_t scale_len, char *err,
                  size_t err_len)
{
    const char *def = NULL;
    (void)sv_spec_defaults(spec);
    (void)sv_param_bounds(SV_PARAM_SCALE, NULL, NULL, NULL, &def, NULL);
    snprintf(scale, scale_len, "%s", def);
    for (const char *p = pairs ? pairs : ""; *p;) {
        const char *end = strchr(p, '\n');
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 0 && read_pair(spec, p, n, scale, scale_len, err, err_len) != 0)
            return -1;
        p += n + (end != NULL);
    }
    return 0;
}

int svw_spec_resolve(sv_spec *spec, char *err, size_t err_len)
{
    if (sv_spec_resolve(spec) == SV_OK)
        return 0;
    (void)sv_spec_check_param(spec, NULL, NULL, err, err_len);
    return -1;
}

/* The experiment in @p pairs checked on the path of a run, nothing run:
 * svw_begin with the page's histogram (its checks, the plan's, the
 * summary's), then freed. "" when it would run, else the library's
 * one-line reason ("scale: '0' is not sqrt, dk, none, logn or a positive
 * number"): the page shows it beside the field and does not start it. */
SVW_EXPORT const char *svw_check(const char *pairs, int hist_bins)
{
    static char err[256];
    err[0] = '\0';
    svw_run *r = svw_begin(pairs, hist_bins, NAN, 0, 0.0);
    if (r && svw_bytes(r) < 0)
        snprintf(err, sizeof err, "%s", svw_error());
    else if (!r)
        snprintf(err, sizeof err, "%s", svw_error());
    svw_free(r);
    return err;
}

/* The library's version ("0.3.0", sv_version), for the page's footer. */
SVW_EXPORT const char *svw_version(void)
{
    return sv_version();
}
