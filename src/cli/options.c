/* The option table, the argv scanner and --help. What the values mean and
 * what applies with what is validate.c's. */
#include "options.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option_def cli_option_defs[CLI_OPT_COUNT] = {
#define CLI_OPTION_ROW_(id, name, sh, meta, kind, lo, hi, def, field, section, help)               \
    {name, sh, meta, kind, lo, hi, def, field, section, help},
    CLI_OPTION_TABLE(CLI_OPTION_ROW_)
#undef CLI_OPTION_ROW_
};

int cli_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 0;
}

/* Longest echo of a value before it is cut with "...": with the option's
 * name and the reason, a message stays one terminal line or two. */
#define CLI_QUOTE_SHOWN 60

char *cli_quote(char *dst, size_t dstlen, const char *s)
{
    size_t n = 0, shown = 0;
    const size_t room = dstlen - 4; /* "..." and the NUL */
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        char one[5];
        if (c == '\n' || c == '\t' || c == '\r' || c == '\\')
            snprintf(one, sizeof one, "\\%c",
                     c == '\n'   ? 'n'
                     : c == '\t' ? 't'
                     : c == '\r' ? 'r'
                                 : '\\');
        else if (c < 0x20 || c > 0x7e)
            snprintf(one, sizeof one, "\\x%02x", c);
        else
            one[0] = (char)c, one[1] = '\0';
        const size_t len = strlen(one);
        if (shown + len > CLI_QUOTE_SHOWN || n + len > room) {
            memcpy(dst + n, "...", 4);
            return dst;
        }
        memcpy(dst + n, one, len);
        n += len;
        shown += len;
    }
    dst[n] = '\0';
    return dst;
}

const char *cli_options_echo(const cli_options *opt, cli_option_id id, char *buf, size_t len)
{
    const char *v = opt->arg[id] ? opt->arg[id] : cli_option_defs[id].def;
    return cli_quote(buf, len, v ? v : "");
}

/* Plain decimal: digits only for integers; for reals an optional '-',
 * digits with at most one '.', and an exponent e[+-]digits. No spaces,
 * no '+' in front, no hex, inf or nan: what strtod alone would accept. */
static int plain_real(const char *s)
{
    int digits = 0;
    s += *s == '-';
    for (; (*s >= '0' && *s <= '9') || *s == '.'; s++)
        digits += *s != '.';
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        s += *s == '+' || *s == '-';
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

int cli_parse_count(const char *what, const char *s, double lo, double hi, uint64_t *out, char *err,
                    size_t errlen)
{
    char q[80];
    const char *kind = lo > 0 ? "a positive integer" : "a non-negative integer";
    const char *p = s;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == s || *p != '\0')
        return cli_fail(err, errlen, "%s: '%s' is not %s", what, cli_quote(q, sizeof q, s), kind);
    errno = 0;
    const unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE || (double)v > hi) {
        /* (double)UINT64_MAX rounds up to 2^64: print the integer. */
        char most[24];
        snprintf(most, sizeof most, "%llu",
                 hi < CLI_U64_MAX ? (unsigned long long)hi : (unsigned long long)UINT64_MAX);
        return cli_fail(err, errlen, "%s: '%s' is too large (at most %s)", what,
                        cli_quote(q, sizeof q, s), most);
    }
    if ((double)v < lo)
        return cli_fail(err, errlen, "%s: '%s' is not %s", what, cli_quote(q, sizeof q, s), kind);
    *out = (uint64_t)v;
    return 1;
}

/* A real by the table's kind: [lo, hi] or (lo, inf). strtod sets ERANGE
 * for subnormal results too: those are finite and kept. */
static int parse_real(const char *what, const char *s, const cli_option_def *d, double *out,
                      char *err, size_t errlen)
{
    char q[80];
    cli_quote(q, sizeof q, s);
    if (!plain_real(s))
        return cli_fail(err, errlen, "%s: '%s' is not a finite number", what, q);
    errno = 0;
    const double v = strtod(s, NULL);
    if (!isfinite(v))
        return cli_fail(err, errlen, "%s: '%s' is too large (at most %g in magnitude)", what, q,
                        DBL_MAX);
    if (d->kind == CLI_ARG_ABOVE && !(v > d->lo))
        return d->lo == 0 ? cli_fail(err, errlen, "%s: '%s' is not a positive number", what, q)
                          : cli_fail(err, errlen, "%s: '%s' is not more than %g", what, q, d->lo);
    if (d->kind == CLI_ARG_REAL && !(v >= d->lo && v <= d->hi))
        return cli_fail(err, errlen, "%s: '%s' is not between %g and %g", what, q, d->lo, d->hi);
    *out = v;
    return 1;
}

/* Splits a comma list into items of at most CLI_ITEM_MAX characters, at
 * most max of them; item() parses one (0 with a message: not valid). */
typedef int (*cli_item_fn)(cli_options *opt, const char *item, size_t index);

static int parse_items(cli_options *opt, const char *what, const char *s, size_t max,
                       cli_item_fn item, const char *expect, size_t *count, char *err,
                       size_t errlen)
{
    char q[80], buf[CLI_ITEM_MAX + 1];
    size_t n = 0;
    cli_quote(q, sizeof q, s);
    for (const char *p = s;; n++) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (n == max)
            return cli_fail(err, errlen, "%s: '%s' has more than %zu items (at most %zu)", what, q,
                            max, max);
        if (len > CLI_ITEM_MAX)
            return cli_fail(err, errlen, "%s: '%s' has an item longer than %d characters", what, q,
                            CLI_ITEM_MAX);
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (len == 0 || !item(opt, buf, n))
            return cli_fail(err, errlen, "%s: '%s' is not %s", what, q, expect);
        if (!end)
            break;
        p = end + 1;
    }
    *count = n + 1;
    return 1;
}

static int scale_item(cli_options *opt, const char *s, size_t i)
{
    cli_scale_choice c = {CLI_SCALE_VALUE, 0.0, ""};
    snprintf(c.name, sizeof c.name, "%s", s); /* <= CLI_ITEM_MAX: parse_items checked */
    if (strcmp(s, "sqrt") == 0)
        c.kind = CLI_SCALE_SQRT;
    else if (strcmp(s, "dk") == 0)
        c.kind = CLI_SCALE_DK;
    else if (strcmp(s, "none") == 0)
        c.kind = CLI_SCALE_NONE;
    else if (!plain_real(s) || !((c.value = strtod(s, NULL)) > 0.0) || !isfinite(c.value))
        return 0;
    opt->scale[i] = c;
    return 1;
}

static int dist_item(cli_options *opt, const char *s, size_t i)
{
    return sv_dist_from_name(s, &opt->dist[i]) == SV_OK;
}

static const char *const init_names[] = {"xavier", "lecun", "normal"};

const char *cli_options_init_name(const cli_options *opt, size_t i)
{
    const sv_init v = opt->init[i / opt->n_dk % opt->n_init];
    return (size_t)v < sizeof init_names / sizeof init_names[0] ? init_names[v] : "?";
}

static int init_item(cli_options *opt, const char *s, size_t i)
{
    for (size_t k = 0; k < sizeof init_names / sizeof init_names[0]; k++)
        if (strcmp(s, init_names[k]) == 0) {
            opt->init[i] = (sv_init)k;
            return 1;
        }
    return 0;
}

static int parse_list(cli_options *opt, cli_option_id id, const char *s, char *err, size_t errlen)
{
    char q[80];
    switch (id) {
    case CLI_OPT_DK: {
        const sv_status st = sv_dklist_parse(s, opt->dk, &opt->n_dk);
        cli_quote(q, sizeof q, s);
        if (st == SV_ERANGE)
            return cli_fail(err, errlen, "--dk: '%s' has a value that is too large", q);
        if (st == SV_ETOOBIG)
            return cli_fail(err, errlen, "--dk: '%s' has more than %d values (at most %d)", q,
                            SV_DKLIST_MAX, SV_DKLIST_MAX);
        if (st != SV_OK)
            return cli_fail(err, errlen,
                            "--dk: '%s' is not a list of positive integers or doubling ranges "
                            "A:B with A <= B",
                            q);
        return 1;
    }
    case CLI_OPT_SCALE:
        return parse_items(opt, "--scale", s, CLI_SCALES_MAX, scale_item,
                           "a list of sqrt, dk, none or positive numbers", &opt->n_scale, err,
                           errlen);
    case CLI_OPT_DIST:
        return parse_items(opt, "--dist", s, CLI_NAMES_MAX, dist_item,
                           "a list of normal, uniform, rademacher, t", &opt->n_dist, err, errlen);
    case CLI_OPT_INIT:
        return parse_items(opt, "--init", s, CLI_NAMES_MAX, init_item,
                           "a list of xavier, lecun, normal", &opt->n_init, err, errlen);
    case CLI_OPT_FORMAT:
        if (strcmp(s, "table") == 0)
            opt->format = CLI_FORMAT_TABLE;
        else if (strcmp(s, "csv") == 0)
            opt->format = CLI_FORMAT_CSV;
        else if (strcmp(s, "json") == 0)
            opt->format = CLI_FORMAT_JSON;
        else if (strcmp(s, "jsonl") == 0)
            opt->format = CLI_FORMAT_JSONL;
        else
            return cli_fail(err, errlen, "--format: '%s' is not one of table, csv, json, jsonl",
                            cli_quote(q, sizeof q, s));
        return 1;
    default:
        return cli_fail(err, errlen, "--%s: no parser", cli_option_defs[id].name);
    }
}

/* Stores one value of option id (s is NULL for a flag). */
static int set_value(cli_options *opt, cli_option_id id, const char *s, char *err, size_t errlen)
{
    const cli_option_def *d = &cli_option_defs[id];
    char what[40];
    snprintf(what, sizeof what, "--%s", d->name);
    opt->arg[id] = s;
    switch (d->kind) {
    case CLI_ARG_FLAG:
        return 1;
    case CLI_ARG_COUNT:
        return cli_parse_count(what, s, d->lo, d->hi, &opt->count[id], err, errlen);
    case CLI_ARG_REAL:
    case CLI_ARG_ABOVE:
        return parse_real(what, s, d, &opt->real[id], err, errlen);
    default:
        return parse_list(opt, id, s, err, errlen);
    }
}

/* The table's defaults go through the same parser as given values. */
static void set_defaults(cli_options *opt)
{
    char err[8];
    memset(opt, 0, sizeof *opt);
    for (int id = 0; id < CLI_OPT_COUNT; id++)
        if (cli_option_defs[id].def)
            set_value(opt, (cli_option_id)id, cli_option_defs[id].def, err, sizeof err);
    memset(opt->arg, 0, sizeof opt->arg);
}

/* The option a long name (without "--", up to len characters) means: an
 * exact name, else the one name it abbreviates. */
static int find_long(const char *name, size_t len, char *err, size_t errlen)
{
    int found = -1, matches = 0;
    for (int id = 0; id < CLI_OPT_COUNT; id++) {
        const char *n = cli_option_defs[id].name;
        if (strncmp(n, name, len) != 0)
            continue;
        if (n[len] == '\0')
            return id;
        found = id;
        matches++;
    }
    char q[80], *t = malloc(len + 1);
    if (!t)
        return cli_fail(err, errlen, "out of memory"), -1;
    memcpy(t, name, len);
    t[len] = '\0';
    cli_quote(q, sizeof q, t);
    free(t);
    if (matches == 1)
        return found;
    if (matches == 0)
        return cli_fail(err, errlen, "unknown option '--%s'", q), -1;
    size_t at = (size_t)snprintf(err, errlen, "option '--%s' is ambiguous:", q);
    for (int id = 0; id < CLI_OPT_COUNT && at < errlen; id++)
        if (strncmp(cli_option_defs[id].name, name, len) == 0)
            at += (size_t)snprintf(err + at, errlen - at, "%s --%s",
                                   at && err[at - 1] == ':' ? "" : ",", cli_option_defs[id].name);
    return -1;
}

static int find_short(char c)
{
    for (int id = 0; id < CLI_OPT_COUNT; id++)
        if (c && cli_option_defs[id].short_name == c)
            return id;
    return -1;
}

/* One argument starting with "--" (not "--" itself); *i moves past a
 * separate value. */
static int scan_long(int argc, char **argv, int *i, cli_options *opt, char *err, size_t errlen)
{
    const char *name = argv[*i] + 2, *eq = strchr(name, '=');
    const size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (len == 0) { /* "--=x": no name to look up or abbreviate */
        char q[80];
        return cli_fail(err, errlen, "unknown option '%s'", cli_quote(q, sizeof q, argv[*i]));
    }
    const int id = find_long(name, len, err, errlen);
    if (id < 0)
        return 0;
    const cli_option_def *d = &cli_option_defs[id];
    opt->given[id] = 1;
    if (d->kind == CLI_ARG_FLAG) {
        if (eq)
            return cli_fail(err, errlen, "option '--%s' takes no value", d->name);
        return set_value(opt, (cli_option_id)id, NULL, err, errlen);
    }
    if (!eq && *i + 1 >= argc)
        return cli_fail(err, errlen, "option '--%s' requires an argument", d->name);
    return set_value(opt, (cli_option_id)id, eq ? eq + 1 : argv[++*i], err, errlen);
}

/* One argument "-xyz": flags, the last may take the rest or the next. */
static int scan_short(int argc, char **argv, int *i, cli_options *opt, char *err, size_t errlen)
{
    for (const char *p = argv[*i] + 1; *p; p++) {
        const int id = find_short(*p);
        if (id < 0) {
            char c[2] = {*p, '\0'}, q[8];
            return cli_fail(err, errlen, "unknown option '-%s'", cli_quote(q, sizeof q, c));
        }
        opt->given[id] = 1;
        if (cli_option_defs[id].kind == CLI_ARG_FLAG) {
            set_value(opt, (cli_option_id)id, NULL, err, errlen);
            continue;
        }
        if (!p[1] && *i + 1 >= argc)
            return cli_fail(err, errlen, "option '-%c' requires an argument", *p);
        return set_value(opt, (cli_option_id)id, p[1] ? p + 1 : argv[++*i], err, errlen);
    }
    return 1;
}

int cli_options_parse(int argc, char **argv, cli_options *opt, char *err, size_t errlen)
{
    set_defaults(opt);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char q[80];
        if (strcmp(a, "--") == 0 && i + 1 < argc)
            a = argv[++i]; /* only operands follow, and there are none */
        else if (strcmp(a, "--") == 0)
            break;
        else if (a[0] == '-' && a[1] == '-') {
            if (!scan_long(argc, argv, &i, opt, err, errlen))
                return 0;
            continue;
        } else if (a[0] == '-' && a[1] != '\0') {
            if (!scan_short(argc, argv, &i, opt, err, errlen))
                return 0;
            continue;
        }
        return cli_fail(err, errlen, "unexpected argument '%s'", cli_quote(q, sizeof q, a));
    }
    return cli_options_validate(opt, err, errlen);
}

/* "  -d, --dk LIST" then the help text from column 23, and the range and
 * default from the table at the end. */
static void usage_option(FILE *f, const cli_option_def *d)
{
    char head[64], tail[96] = "";
    int n = snprintf(head, sizeof head, "  %c%c%c --%s%s%s", d->short_name ? '-' : ' ',
                     d->short_name ? d->short_name : ' ', d->short_name ? ',' : ' ', d->name,
                     d->metavar ? " " : "", d->metavar ? d->metavar : "");
    if (n < 22)
        fprintf(f, "%s%*s", head, 23 - n, "");
    else
        fprintf(f, "%s\n%23s", head, "");
    if (d->kind == CLI_ARG_COUNT && d->hi < CLI_SIZE_MAX)
        snprintf(tail, sizeof tail, "%.0f to %.0f", d->lo, d->hi);
    else if (d->kind == CLI_ARG_REAL && isfinite(d->lo))
        snprintf(tail, sizeof tail, "%g to %g", d->lo, d->hi);
    else if (d->kind == CLI_ARG_ABOVE)
        snprintf(tail, sizeof tail, "> %g", d->lo);
    if (d->def)
        snprintf(tail + strlen(tail), sizeof tail - strlen(tail), "%sdefault %s",
                 tail[0] ? "; " : "", d->def);
    const char *last = strrchr(d->help, '\n');
    last = last ? last + 1 : d->help;
    for (const char *p = d->help; *p; p++)
        fputs(*p == '\n' ? "\n                       " : (char[]){*p, '\0'}, f);
    if (tail[0] && strlen(last) + strlen(tail) + 26 <= 79)
        fprintf(f, " (%s)", tail);
    else if (tail[0])
        fprintf(f, "\n%23s(%s)", "", tail);
    fputc('\n', f);
}

void cli_options_usage(FILE *f)
{
    static const char *const sections[] = {
        "Experiment:\n",
        "\nOutput:\n",
        "\nPerformance (results are the same bits for every value):\n",
        "\n",
    };
    fputs("Usage: sdpa-var [OPTION]...\n"
          "Draw random queries Q (n_q x d_k) and keys K (n_k x d_k) with mean 0 and\n"
          "variance 1, and compare the statistics of the raw scores QK^T and of the\n"
          "scaled logits QK^T/sqrt(d_k) (Vaswani et al. 2017) with theory.\n\n",
          f);
    int section = -1;
    for (int id = 0; id < CLI_OPT_COUNT; id++) {
        if (cli_option_defs[id].section != section)
            fputs(sections[section = cli_option_defs[id].section], f);
        usage_option(f, &cli_option_defs[id]);
    }
    fprintf(f,
            "\n"
            "One configuration per --scale, --dist, --init and --dk value (scale outer,\n"
            "then dist, then init, d_k inner), at most %d in all.\n"
            "Numbers are plain decimal: digits; reals may add a leading '-', a '.' and\n"
            "an exponent (1e-3). No spaces, no leading '+', no hex, inf or nan.\n",
            CLI_CONFIGS_MAX);
    cli_options_rules_usage(f);
    fprintf(f,
            "\n"
            "Environment:\n"
            "  OMP_NUM_THREADS      threads when --threads is not given: a count from 1\n"
            "                       to %d; of a list such as '4,2' (nested levels)\n"
            "                       the first is used, sdpa-var nests none\n",
            CLI_THREADS_MAX);
    fputs("\n"
          "Examples:\n"
          "  sdpa-var --dk 64 --n 1111                  raw variance ~64, scaled ~1\n"
          "  sdpa-var --dk 2 --n 2 --trials 100000 --observed 1.6\n"
          "                                             why numpy printed 1.6, not 2\n"
          "  sdpa-var --dk 1:1024 --n 1111 | gnuplot scripts/variance_vs_dk.gp\n"
          "\n"
          "Exit status: 0 success, 1 runtime error (e.g. a failed write), 2 usage error.\n"
          "Columns of the output: docs/columns.md; the theory: docs/theory.md.\n",
          f);
}
