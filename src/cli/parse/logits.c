/* --logits rows and their options (logits.h). */
#include "logits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "options.h"

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

int cli_logits_parse_row(const char *where, const char *s, double *out, size_t *n, char *err,
                         size_t errlen)
{
    char q[80], iq[48], item[64];
    cli_quote(q, sizeof q, s);
    size_t k = 0;
    for (const char *p = s;; k++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && blank(*p))
            p++, len--;
        while (len && blank(p[len - 1]))
            len--;
        if (k == CLI_LOGITS_KEYS_MAX)
            return cli_fail(err, errlen, "%s: '%s' has more than %d keys (at most %d)", where, q,
                            CLI_LOGITS_KEYS_MAX, CLI_LOGITS_KEYS_MAX);
        if (len == 0 && !end && k == 0)
            return cli_fail(err, errlen, "%s: '%s' has no numbers", where, q);
        if (len == 0)
            return cli_fail(err, errlen, "%s: '%s' has an empty item (item %zu)", where, q, k + 1);
        snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
        cli_quote(iq, sizeof iq, item);
        double v; /* plain decimal (--help's rule); an overflow is plain, but too large */
        if (len > 63 || sv_text_real(item, &v) == SV_EINVAL)
            return cli_fail(err, errlen, "%s: '%s': item %zu '%s' is not a finite number", where, q,
                            k + 1, iq);
        v = strtod(item, NULL);
        if (!(fabs(v) <= CLI_LOGIT_ABS_MAX))
            return cli_fail(err, errlen, "%s: '%s': item %zu '%s' is too large (at most %g)", where,
                            q, k + 1, iq, CLI_LOGIT_ABS_MAX);
        out[k] = v;
        if (!end)
            break;
        p = end + 1;
    }
    *n = k + 1;
    return 1;
}

double cli_logits_row_scale(const cli_scale_choice *c, size_t n)
{
    return c->rule == SV_SCALE_LOGN ? c->value * log((double)n) : c->value;
}

int cli_logits_scaled_ok(const cli_scale_choice *c, const double *z, size_t n, const char *row,
                         char *err, size_t errlen)
{
    double top = 0.0;
    for (size_t j = 0; j < n; j++)
        top = fabs(z[j]) > top ? fabs(z[j]) : top;
    if (cli_logits_row_scale(c, n) * top <= CLI_SCALED_LOGIT_ABS_MAX)
        return 1;
    char q[48];
    return cli_fail(err, errlen, "--scale: '%s' is too large for %s (|scale x logit| at most %g)",
                    cli_quote(q, sizeof q, c->name), row, CLI_SCALED_LOGIT_ABS_MAX);
}

/* --logits and --logits-file: the scales, resolved. */
static int scales(cli_options *o, char *err, size_t errlen)
{
    const int dk = o->given[CLI_OPT_DK];
    if (dk && o->n_dk != 1)
        return cli_fail(err, errlen, "--logits takes one --dk value (got %zu)", o->n_dk);
    const double d = (double)o->dk[0];
    if (!o->given[CLI_OPT_SCALE]) { /* as given, and / sqrt(d_k) with --dk */
        o->n_scale = dk ? 2 : 1;
        o->scale[0] = (cli_scale_choice){SV_SCALE_NONE, 1.0, "none"};
        o->scale[1] = (cli_scale_choice){SV_SCALE_SQRT, 0.0, "sqrt"};
    }
    for (size_t i = 0; i < o->n_scale; i++) {
        cli_scale_choice c = o->scale[i];
        if (!dk && (c.rule == SV_SCALE_SQRT || c.rule == SV_SCALE_DK))
            return cli_fail(err, errlen, "--scale %s needs --dk with --logits (%s)", c.name,
                            c.rule == SV_SCALE_SQRT ? "it divides by sqrt(d_k)"
                                                    : "it divides by d_k");
        /* logn: the base, 1/sqrt(d_k) with --dk (the logits are q.k) or 1
         * without (they are already scaled, as SSMax's z); logits_run.c
         * multiplies it by ln n for each row. */
        c.value = c.rule == SV_SCALE_SQRT   ? 1.0 / sqrt(d)
                  : c.rule == SV_SCALE_DK   ? 1.0 / d
                  : c.rule == SV_SCALE_NONE ? 1.0
                  : c.rule == SV_SCALE_LOGN ? (dk ? 1.0 / sqrt(d) : 1.0)
                                            : c.value;
        o->logit_scale[i] = c;
    }
    o->n_logit_scale = o->n_scale;
    return 1;
}

/* --upstream and the rows given on the command line, parsed into
 * o->logit_rows and checked; no configuration is drawn. The file's rows
 * are read and checked by logits_run.c. */
static int rows(cli_options *o, cli_logits_rows *r, char *err, size_t errlen)
{
    if (o->given[CLI_OPT_UPSTREAM] &&
        !cli_logits_parse_row("--upstream", o->arg[CLI_OPT_UPSTREAM], o->upstream, &o->n_upstream,
                              err, errlen))
        return 0;
    if (o->out.format == CLI_FORMAT_GNUPLOT && o->n_logits > CLI_LOGITS_PLOT_ROWS)
        return cli_fail(err, errlen,
                        "--format gnuplot draws at most %d --logits rows, a panel each (got %zu)",
                        CLI_LOGITS_PLOT_ROWS, o->n_logits);
    for (size_t i = 0; i < o->n_logits; i++) {
        char q[80], name[96];
        if (!cli_logits_parse_row("--logits", o->logits[i], r->z[i], &r->n[i], err, errlen))
            return 0;
        snprintf(name, sizeof name, "--logits '%s'", cli_quote(q, sizeof q, o->logits[i]));
        for (size_t k = 0; k < o->n_logit_scale; k++)
            if (!cli_logits_scaled_ok(&o->logit_scale[k], r->z[i], r->n[i], name, err, errlen))
                return 0;
        if (o->n_upstream && r->n[i] != o->n_upstream)
            return cli_fail(err, errlen,
                            "--upstream: %zu values, but --logits '%s' has %zu keys (one value "
                            "a key)",
                            o->n_upstream, cli_quote(q, sizeof q, o->logits[i]), r->n[i]);
    }
    r->count = o->n_logits;
    return 1;
}

int cli_logits_validate(cli_options *o, char *err, size_t errlen)
{
    if (!scales(o, err, errlen))
        return 0;
    o->logit_rows = calloc(1, sizeof *o->logit_rows);
    if (!o->logit_rows)
        return cli_fail(err, errlen, "out of memory");
    if (rows(o, o->logit_rows, err, errlen) && /* gnuplot draws the rows: --output's checks */
        (o->out.format != CLI_FORMAT_GNUPLOT || cli_plot_check(o, err, errlen)))
        return 1;
    free(o->logit_rows);
    o->logit_rows = NULL;
    return 0;
}
