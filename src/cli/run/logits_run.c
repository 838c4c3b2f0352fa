/* --logits (logits_run.h). */
#define _POSIX_C_SOURCE 200809L
#include "logits_run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "logits.h"
#include "write_logits.h"

/* One line of the file, blanks and a '\r' at its end taken off. */
static int file_rows(const char *path, cli_logits_rows *r, char *err, size_t errlen)
{
    char q[80], where[128];
    cli_quote(q, sizeof q, path);
    const int in = strcmp(path, "-") == 0;
    FILE *f = in ? stdin : fopen(path, "r");
    if (!f)
        return cli_fail(err, errlen, "--logits-file: '%s': %s", q, strerror(errno));
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    int ok = 1;
    const size_t given = r->count; /* --logits' rows, before the file's */
    for (ssize_t len; ok && (len = getline(&line, &cap, f)) >= 0;) {
        lineno++;
        while (len > 0 && strchr(" \t\r\n", line[len - 1]))
            line[--len] = '\0';
        const char *p = line + strspn(line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        if (strlen(p) != (size_t)(len - (p - line))) { /* a NUL byte */
            ok = cli_fail(err, errlen, "--logits-file: '%s' line %zu: not text", q, lineno);
            break;
        }
        if (r->count == CLI_LOGITS_ROWS_MAX) {
            ok = cli_fail(err, errlen,
                          "--logits-file: '%s' line %zu: more than %d rows in all (at most %d)", q,
                          lineno, CLI_LOGITS_ROWS_MAX, CLI_LOGITS_ROWS_MAX);
            break;
        }
        snprintf(where, sizeof where, "--logits-file: '%s' line %zu", q, lineno);
        ok = cli_logits_parse_row(where, p, r->z[r->count], &r->n[r->count], err, errlen);
        r->count += ok;
    }
    if (ok && ferror(f))
        ok = cli_fail(err, errlen, "--logits-file: '%s': %s", q, strerror(errno));
    if (ok && r->count == given) /* the file's own: --logits rows do not count */
        ok = cli_fail(err, errlen, "--logits-file: '%s' has no rows", q);
    free(line);
    if (!in)
        fclose(f);
    return ok;
}

/* The rows against the rest, once the file's are read: --upstream has a
 * value a key of every row; logn needs ln n > 0 (a row of one key is an
 * error); the file's rows times their multipliers stay finite (the
 * command line's are checked by validate.c); gnuplot has a panel for
 * each. Message on stderr. *max_n: the longest row. */
static int rows_fit(const cli_options *opt, cli_format format, const cli_logits_rows *r,
                    size_t given, size_t *max_n)
{
    char err[256], name[64];
    for (size_t i = 0; i < r->count; i++) {
        *max_n = r->n[i] > *max_n ? r->n[i] : *max_n;
        if (opt->n_upstream && r->n[i] != opt->n_upstream)
            return cli_error(0,
                             "--upstream: %zu values, but row %zu of --logits-file has %zu keys "
                             "(one value a key)",
                             opt->n_upstream, i - given, r->n[i]);
    }
    for (size_t k = 0; k < opt->n_logit_scale; k++)
        for (size_t i = 0; i < r->count; i++) {
            if (!(cli_logits_row_scale(&opt->logit_scale[k], r->n[i]) > 0.0))
                return cli_error(0, "--scale logn: row %zu has 1 key (ln 1 = 0; needs 2 or more)",
                                 i);
            snprintf(name, sizeof name, "row %zu of --logits-file", i - given);
            if (i >= given && !cli_logits_scaled_ok(&opt->logit_scale[k], r->z[i], r->n[i], name,
                                                    err, sizeof err))
                return cli_error(0, "%s", err);
        }
    if (format == CLI_FORMAT_GNUPLOT && r->count > CLI_LOGITS_PLOT_ROWS)
        return cli_error(0, "--format gnuplot draws at most %d rows, a panel each (got %zu)",
                         CLI_LOGITS_PLOT_ROWS, r->count);
    return 1;
}

int cli_logits_run(const cli_options *opt, cli_format format)
{
    char err[512];
    cli_logits_rows *r = opt->logit_rows; /* --logits' (validate.c); the file's join them */
    const size_t given = r->count;
    if (opt->given[CLI_OPT_LOGITS_FILE] &&
        !file_rows(opt->arg[CLI_OPT_LOGITS_FILE], r, err, sizeof err))
        return cli_error(CLI_EXIT_RUNTIME, "%s", err);
    size_t max_n = 0;
    if (!rows_fit(opt, format, r, given, &max_n))
        return CLI_EXIT_RUNTIME;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    double p[CLI_LOGITS_KEYS_MAX] = {0}, dz[CLI_LOGITS_KEYS_MAX] = {0};
    static double jac[CLI_LOGITS_KEYS_MAX * CLI_LOGITS_KEYS_MAX];
    if (!f)
        return cli_error(CLI_EXIT_RUNTIME, "out of memory");
    cli_logits_writer w = {.f = f,
                           .format = format,
                           .no_header = opt->out.no_header,
                           .dk = opt->given[CLI_OPT_DK] ? opt->dk[0] : 0,
                           .max_n = max_n,
                           .grad = opt->n_upstream > 0,
                           .rows = r->count,
                           .scales = opt->n_logit_scale,
                           .plot_output =
                               format == CLI_FORMAT_GNUPLOT ? opt->arg[CLI_OPT_OUTPUT] : NULL};
    cli_logits_begin(&w);
    for (size_t i = 0; i < r->count; i++)
        for (size_t k = 0; k < opt->n_logit_scale; k++) {
            const cli_scale_choice *c = &opt->logit_scale[k];
            const double mult = cli_logits_row_scale(c, r->n[i]); /* > 0: checked above */
            cli_logits_entry e = {.v = {.row = i,
                                        .n = r->n[i],
                                        .d_k = w.dk,
                                        .z = r->z[i],
                                        .scale_name = c->name,
                                        .scale = mult,
                                        .p = p,
                                        .g = w.grad ? opt->upstream : NULL,
                                        .dz = w.grad ? dz : NULL},
                                  .jac = jac};
            const sv_status st = sv_softmax_row_report(r->z[i], r->n[i], mult, e.v.g, p, jac,
                                                       e.v.g ? dz : NULL, &e.v.st);
            if (st != SV_OK) { /* parsed values are finite and bounded: not expected */
                fclose(f);
                free(buf);
                return cli_error(CLI_EXIT_RUNTIME, "--logits: row %zu: %s", i, sv_status_str(st));
            }
            cli_logits_write(&w, &e);
        }
    cli_logits_end(&w);
    int ok = fflush(f) == 0;
    fclose(f);
    ok = ok && fwrite(buf, 1, size, stdout) == size && fflush(stdout) == 0;
    free(buf);
    if (!ok)
        return cli_error(CLI_EXIT_RUNTIME, "error writing %s: %s", cli_output_name(),
                         strerror(errno));
    return CLI_EXIT_OK;
}
