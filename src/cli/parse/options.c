/* The option table, the argv scanner (getopt_long) and --help. What the values mean and
 * what applies with what is validate.c's. */
#include "options.h"
#include "fail.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const cli_option_def cli_option_defs[CLI_OPT_COUNT] = {
#define CLI_OPTION_ROW_(id, name, sh, meta, kind, value, section, help)                            \
    {name, sh, meta, kind, CLI_VALUE_COLUMNS value, section, help},
    CLI_OPTION_TABLE(CLI_OPTION_ROW_)
#undef CLI_OPTION_ROW_
};

cli_option_def cli_option_row(cli_option_id id)
{
    cli_option_def d = cli_option_defs[id];
    sv_param_kind kind = SV_ARG_FLAG;
    if (d.param != SV_PARAM_NONE)
        (void)sv_param_bounds(d.param, &kind, &d.lo, &d.hi, d.param_default ? &d.def : NULL, NULL);
    if (d.kind == CLI_ARG_PARAM) /* a count or a number (the table's rows) */
        d.kind = (cli_arg_kind)kind;
    return d;
}

int cli_option_of(const cli_options *opt, sv_param p)
{
    int found = -1;
    for (int id = 0; p != SV_PARAM_NONE && id < CLI_OPT_COUNT; id++)
        if (cli_option_defs[id].param == p && (found < 0 || opt->given[id]))
            found = id;
    return found;
}

const char *cli_options_echo(const cli_options *opt, cli_option_id id, char *buf, size_t len)
{
    const char *v = opt->arg[id] ? opt->arg[id] : cli_option_row(id).def;
    return cli_quote(buf, len, v ? v : "");
}

/* Synonyms a user may know an option or format by: written -> ours. */
static const char *const aliases[][2] = {
    {"text", "table"},  {"pretty", "table"},    {"ndjson", "jsonl"},   {"json-lines", "jsonl"},
    {"tokens", "n"},    {"seq-len", "n"},       {"repeats", "trials"}, {"samples", "trials"},
    {"runs", "trials"}, {"d_k", "dk"},          {"d-k", "dk"},         {"d_v", "dv"},
    {"d-v", "dv"},      {"d_model", "d-model"}, {"dmodel", "d-model"}, {"bins", "histogram"},
    {"csv", "format"},  {"json", "format"},     {"jobs", "threads"},
};

const char *cli_suggest(const char *s, const char *const *names, size_t n)
{
    /* A name in other case is that name ("JSON": json), before any
     * synonym near it (ndjson, two letters from "JSON") is. */
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(s, names[i]) == 0)
            return names[i];
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++) {
        /* A synonym misspelt by one letter is still that synonym. */
        const int exact = strcmp(s, aliases[a][0]) == 0;
        if (!exact && (strlen(aliases[a][0]) < 5 || !sv_suggest(s, &aliases[a][0], 1)))
            continue;
        for (size_t i = 0; i < n; i++)
            if (strcmp(names[i], aliases[a][1]) == 0)
                return names[i];
    }
    return sv_suggest(s, names, n);
}

/* A value of @p kind in [lo, hi] (a count into *u, a number into *d),
 * read and refused in the library's words (sv_value_explain), named by
 * @p what. */
static int own_value(const char *what, cli_arg_kind kind, double lo, double hi, const char *s,
                     uint64_t *u, double *d, char *err, size_t errlen)
{
    char why[160];
    if (sv_value_explain((sv_param_kind)kind, lo, hi, s, why, sizeof why))
        return cli_fail(err, errlen, "%s: %s", what, why);
    return kind == CLI_ARG_COUNT ? sv_text_count(s, u) == SV_OK : sv_text_real(s, d) == SV_OK;
}

/* Sets parameter @p p of @p spec from @p s, refused in the library's
 * words (sv_param_explain), named by @p what. */
static int set_param(sv_spec *spec, const char *what, sv_param p, const char *s, char *err,
                     size_t errlen)
{
    char why[160];
    if (sv_spec_set(spec, p, s) == SV_OK)
        return 1;
    sv_param_explain(p, s, why, sizeof why);
    return cli_fail(err, errlen, "%s: %s", what, why);
}

/* "--what: 'q' is not a list of a, b, c" (names: NULL-terminated; "list
 * of" when @p list, more than one item may be given, and a trailing
 * "numbers" entry is not a name), with "; did you mean b?" for the nearest
 * name to item. */
static int not_one_of(const char *what, int list, const char *q, const char *item,
                      const char *const *names, char *err, size_t errlen)
{
    size_t n = 0;
    while (names[n])
        n++;
    size_t at =
        (size_t)snprintf(err, errlen, "%s: '%s' is not %s", what, q, list ? "a list of" : "one of");
    const size_t named = n && strchr(names[n - 1], ' ') ? n - 1 : n; /* "positive numbers" */
    for (size_t i = 0; i < n && at < errlen; i++)
        at += (size_t)snprintf(err + at, errlen - at, "%s %s",
                               i == 0      ? ""
                               : i < named ? ","
                                           : " or",
                               names[i]);
    const char *near = item[0] ? cli_suggest(item, names, named) : NULL;
    if (near && at < errlen)
        snprintf(err + at, errlen - at, "; did you mean %s?", near);
    return 0;
}

/* Splits a comma list into items of at most CLI_ITEM_MAX characters, at
 * most max of them; item() parses one (0 with a message: not valid). */
typedef int (*cli_item_fn)(cli_options *opt, const char *item, size_t index);

static int parse_items(cli_options *opt, const char *what, const char *s, size_t max,
                       cli_item_fn item, const char *const *names, size_t *count, char *err,
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
            return not_one_of(what, 1, q, buf, names, err, errlen);
        if (!end)
            break;
        p = end + 1;
    }
    *count = n + 1;
    return 1;
}

static int scale_item(cli_options *opt, const char *s, size_t i)
{
    cli_scale_choice c = {SV_SCALE_SQRT, 0.0, ""};
    snprintf(c.name, sizeof c.name, "%s", s); /* <= CLI_ITEM_MAX: parse_items checked */
    if (sv_scale_parse(s, &c.rule, &c.value) != SV_OK)
        return 0;
    opt->scale[i] = c;
    return 1;
}

/* The index of s in names (NULL-terminated), or -1. */
static int name_index(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* --dist and --init items: the parameter's names, in its enum's order. */
static int dist_item(cli_options *opt, const char *s, size_t i)
{
    const int k = name_index(s, sv_param_choices(SV_PARAM_DIST));
    return k < 0 ? 0 : (opt->dist[i] = (sv_dist)k, 1);
}

static int init_item(cli_options *opt, const char *s, size_t i)
{
    const int k = name_index(s, sv_param_choices(SV_PARAM_INIT));
    return k < 0 ? 0 : (opt->init[i] = (sv_init)k, 1);
}

/* The names the CLI's own list options take, as their messages list them. */
const char *const cli_format_names[] = {
#define CLI_FORMAT_NAME_(id, name, merge) name,
    CLI_FORMAT_MAP(CLI_FORMAT_NAME_)
#undef CLI_FORMAT_NAME_
        NULL};
#define CLI_IF_1(name) name,
#define CLI_IF_0(name)
const char *const cli_merge_formats[] = {
#define CLI_FORMAT_MERGE_(id, name, merge) CLI_IF_##merge(name)
    CLI_FORMAT_MAP(CLI_FORMAT_MERGE_)
#undef CLI_FORMAT_MERGE_
        NULL};
static const char *const plot_names[] = {"variance", "entropy",   "max_weight", "eff_keys",
                                         "grad",     "histogram", NULL};
static const char *const completion_names[] = {"bash", NULL};

const char *cli_plot_name(cli_plot plot)
{
    return plot_names[plot];
}

const char *const *cli_option_names(cli_option_id id)
{
    /* The library's names of its enums, NULL-terminated, for --help, the
     * completion and "did you mean" (the CLI is single-threaded). */
    static const char *layout_names[SV_LAYOUTS + 1], *pool_names[4];
    for (size_t i = 0; i < SV_LAYOUTS; i++)
        layout_names[i] = sv_layout_name((sv_layout)i);
    for (size_t i = 0; i + 1 < sizeof pool_names / sizeof *pool_names; i++)
        pool_names[i] = sv_pool_name((sv_pool)i); /* NULL past the last pool */
    switch (id) {
    case CLI_OPT_FORMAT:
        return cli_format_names;
    case CLI_OPT_PLOT:
        return plot_names;
    case CLI_OPT_LAYOUT:
        return layout_names;
    case CLI_OPT_POOL:
        return pool_names;
    case CLI_OPT_COMPLETION:
        return completion_names;
    default: /* --dist, --init, --scale: the library's */
        return cli_option_defs[id].param != SV_PARAM_NONE
                   ? sv_param_choices(cli_option_defs[id].param)
                   : NULL;
    }
}

/* --q-rows A:B, two counts with A < B (block boundaries: shards.c). */
static int parse_q_rows(cli_options *opt, const char *s, char *err, size_t errlen)
{
    char q[80], first[32];
    uint64_t a = 0, b = 0;
    const char *colon = strchr(s, ':');
    cli_quote(q, sizeof q, s);
    if (!colon || (size_t)(colon - s) >= sizeof first)
        return cli_fail(err, errlen, "--q-rows: '%s' is not A:B", q);
    memcpy(first, s, (size_t)(colon - s));
    first[colon - s] = '\0';
    if (!own_value("--q-rows", CLI_ARG_COUNT, 0, CLI_SIZE_MAX, first, &a, NULL, err, errlen) ||
        !own_value("--q-rows", CLI_ARG_COUNT, 1, CLI_SIZE_MAX, colon + 1, &b, NULL, err, errlen))
        return 0;
    if (a >= b)
        return cli_fail(err, errlen, "--q-rows: '%s' is not A:B with A < B", q);
    opt->q_rows[0] = (size_t)a;
    opt->q_rows[1] = (size_t)b;
    return 1;
}

/* --format, --plot, --layout, --pool and --completion: one of
 * cli_option_names(id), its index the enum's value (cli_format from
 * CLI_FORMAT_TABLE); merge's --format one of the formats it writes. */
static int parse_choice(cli_options *opt, cli_option_id id, const char *s, char *err, size_t errlen)
{
    char q[80], what[40];
    const char *const *names =
        id == CLI_OPT_FORMAT && opt->merge ? cli_merge_formats : cli_option_names(id);
    const int k = name_index(s, cli_option_names(id)); /* names: these or fewer */
    snprintf(what, sizeof what, "--%s", cli_option_defs[id].name);
    if (name_index(s, names) < 0)
        return not_one_of(what, 0, cli_quote(q, sizeof q, s), s, names, err, errlen);
    if (id == CLI_OPT_FORMAT)
        opt->out.format = (cli_format)(CLI_FORMAT_TABLE + k);
    else if (id == CLI_OPT_PLOT)
        opt->out.plot = (cli_plot)k;
    else if (id == CLI_OPT_LAYOUT)
        opt->layout = (sv_layout)k;
    else if (id == CLI_OPT_POOL)
        opt->out.pool = (sv_pool)k;
    return 1;
}

/* --dk and --n: a list of positive integers and doubling ranges A:B
 * (sv_dklist_parse). */
static int parse_sizes(const char *name, const char *s, size_t *out, size_t *count, char *err,
                       size_t errlen)
{
    char q[80];
    const sv_status st = sv_dklist_parse(s, out, count);
    cli_quote(q, sizeof q, s);
    if (st == SV_ERANGE)
        return cli_fail(err, errlen, "%s: '%s' has a value that is too large", name, q);
    if (st == SV_ETOOBIG)
        return cli_fail(err, errlen, "%s: '%s' has more than %d values (at most %d)", name, q,
                        SV_DKLIST_MAX, SV_DKLIST_MAX);
    if (st != SV_OK)
        return cli_fail(err, errlen,
                        "%s: '%s' is not a list of positive integers or doubling ranges "
                        "A:B with A <= B",
                        name, q);
    return 1;
}

static int parse_list(cli_options *opt, cli_option_id id, const char *s, char *err, size_t errlen)
{
    switch (id) {
    case CLI_OPT_DK:
        return parse_sizes("--dk", s, opt->dk, &opt->n_dk, err, errlen);
    case CLI_OPT_N: /* one value may be written as the other counts are (1.2e3) */
        if (!strpbrk(s, ",:")) {
            sv_spec one = opt->base;
            if (!set_param(&one, "--n", SV_PARAM_N_Q, s, err, errlen))
                return 0;
            opt->n[0] = one.n_q;
            opt->n_n = 1;
            return 1;
        }
        return parse_sizes("--n", s, opt->n, &opt->n_n, err, errlen);
    case CLI_OPT_SCALE: { /* the library's names, then numbers */
        const char *names[8] = {NULL}, *const *lib = sv_param_choices(SV_PARAM_SCALE);
        size_t k = 0;
        for (; k < 6 && lib[k]; k++)
            names[k] = lib[k];
        names[k] = "positive numbers";
        return parse_items(opt, "--scale", s, CLI_SCALES_MAX, scale_item, names, &opt->n_scale, err,
                           errlen);
    }
    case CLI_OPT_DIST:
        return parse_items(opt, "--dist", s, CLI_NAMES_MAX, dist_item,
                           sv_param_choices(SV_PARAM_DIST), &opt->n_dist, err, errlen);
    case CLI_OPT_INIT:
        return parse_items(opt, "--init", s, CLI_NAMES_MAX, init_item,
                           sv_param_choices(SV_PARAM_INIT), &opt->n_init, err, errlen);
    case CLI_OPT_Q_ROWS:
        return parse_q_rows(opt, s, err, errlen);
    case CLI_OPT_COLUMNS: /* names depend on the kind of output: validate.c */
    case CLI_OPT_Q:       /* files: opened by tensor_input.c, after validation */
    case CLI_OPT_K:
    case CLI_OPT_V:
    case CLI_OPT_MASK:
    case CLI_OPT_SAVE_QK:
    case CLI_OPT_LOGITS_FILE: /* read by logits_run.c */
    case CLI_OPT_UPSTREAM:    /* rows: validate.c */
        return 1;
    case CLI_OPT_LOGITS: /* repeatable: every row kept; parsed by validate.c */
        if (opt->n_logits == CLI_LOGITS_ROWS_MAX)
            return cli_fail(err, errlen, "--logits: given more than %d times (at most %d rows)",
                            CLI_LOGITS_ROWS_MAX, CLI_LOGITS_ROWS_MAX);
        opt->logits[opt->n_logits++] = s;
        return 1;
    case CLI_OPT_OUTPUT: /* a file for any format; gnuplot's checks in cli_plot_check */
        return *s ? 1 : cli_fail(err, errlen, "--output: '' is no file name");
    case CLI_OPT_FORMAT:
    case CLI_OPT_PLOT:
    case CLI_OPT_LAYOUT:
    case CLI_OPT_POOL:
    case CLI_OPT_COMPLETION:
        return parse_choice(opt, id, s, err, errlen);
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
    case CLI_ARG_FLAG: /* a parameter's flag is on */
        return d->param == SV_PARAM_NONE || sv_spec_set(&opt->base, d->param, "1") == SV_OK;
    case CLI_ARG_PARAM:
        return set_param(&opt->base, what, d->param, s, err, errlen);
    case CLI_ARG_COUNT:
    case CLI_ARG_REAL:
    case CLI_ARG_ABOVE:
        return own_value(what, d->kind, d->lo, d->hi, s, &opt->count[id], &opt->real[id], err,
                         errlen);
    default:
        return parse_list(opt, id, s, err, errlen);
    }
}

/* The defaults go through the same parser as given values: the
 * parameters' (sv_spec_defaults, and the lists') and the CLI's own. */
static void set_defaults(cli_options *opt)
{
    char err[8];
    memset(opt, 0, sizeof *opt);
    (void)sv_spec_defaults(&opt->base);
    for (int id = 0; id < CLI_OPT_COUNT; id++) {
        const cli_option_def d = cli_option_row((cli_option_id)id);
        if (d.def)
            set_value(opt, (cli_option_id)id, d.def, err, sizeof err);
    }
    memset(opt->arg, 0, sizeof opt->arg);
}

/* getopt_long's table, generated from the option table: every long
 * option returns 256 + its id (so no id is taken for a short name), a flag
 * takes no argument, every other option one. */
#define CLI_LONG_VAL 256
static const struct option long_options[CLI_OPT_COUNT + 1] = {
#define CLI_OPTION_LONG_(id, name, sh, meta, kind, ...)                                            \
    {name, (kind) == CLI_ARG_FLAG ? no_argument : required_argument, NULL,                         \
     CLI_LONG_VAL + CLI_OPT_##id},
    CLI_OPTION_TABLE(CLI_OPTION_LONG_)
#undef CLI_OPTION_LONG_
        {NULL, 0, NULL, 0}};

/* Whether the scan takes option @p id: merge takes its writing's options
 * only, so that "--f" abbreviates --format there and --dk is unknown. */
static int takes(const cli_options *opt, int id)
{
    return !opt->merge || id == CLI_OPT_FORMAT || id == CLI_OPT_OUTPUT || id == CLI_OPT_HELP;
}

/* getopt_long's short options, from the table: "+:" (stop at the first
 * operand, whatever POSIXLY_CORRECT says; merge's "-:" returns operands in
 * order as 1, options among them), ':' for a missing argument, then each
 * short name taken, with ':' when it takes a value. */
static void short_options(const cli_options *opt, char *buf, size_t len)
{
    size_t n = 0;
    buf[n++] = opt->merge ? '-' : '+';
    buf[n++] = ':';
    for (int id = 0; id < CLI_OPT_COUNT && n + 3 < len; id++) {
        const cli_option_def *d = &cli_option_defs[id];
        if (!d->short_name || !takes(opt, id))
            continue;
        buf[n++] = d->short_name;
        if (d->kind != CLI_ARG_FLAG)
            buf[n++] = ':';
    }
    buf[n] = '\0';
}

static int find_short(int c)
{
    for (int id = 0; id < CLI_OPT_COUNT; id++)
        if (c && cli_option_defs[id].short_name == c)
            return id;
    return -1;
}

/* The long option taken nearest to @p s (without "--"), or NULL. */
static const char *suggest_option(const cli_options *opt, const char *s)
{
    const char *names[CLI_OPT_COUNT];
    size_t n = 0;
    for (int id = 0; id < CLI_OPT_COUNT; id++)
        if (takes(opt, id))
            names[n++] = cli_option_defs[id].name;
    return cli_suggest(s, names, n);
}

/* The message for a long option getopt_long refused as unknown or
 * ambiguous (it says only '?'): the candidates it abbreviates, else the
 * nearest name (cli_suggest). @p arg is the argument as written. */
static int long_error(const cli_options *opt, const char *arg, char *err, size_t errlen)
{
    const char *name = arg + 2;
    const size_t len = strcspn(name, "=");
    char q[80], *t = malloc(len + 1);
    if (!t)
        return cli_fail(err, errlen, "out of memory");
    memcpy(t, name, len);
    t[len] = '\0';
    cli_quote(q, sizeof q, len ? t : arg); /* "--=x": no name to look up */
    int matches = 0;
    for (int id = 0; len && id < CLI_OPT_COUNT; id++)
        matches += takes(opt, id) && strncmp(cli_option_defs[id].name, t, len) == 0;
    if (matches < 2) {
        const char *near = len ? suggest_option(opt, t) : NULL;
        free(t);
        if (!len)
            return cli_fail(err, errlen, "unknown option '%s'", q);
        return near ? cli_fail(err, errlen, "unknown option '--%s'; did you mean --%s?", q, near)
                    : cli_fail(err, errlen, "unknown option '--%s'", q);
    }
    size_t at = (size_t)snprintf(err, errlen, "option '--%s' is ambiguous:", q);
    for (int id = 0; id < CLI_OPT_COUNT && at < errlen; id++)
        if (takes(opt, id) && strncmp(cli_option_defs[id].name, t, len) == 0)
            at += (size_t)snprintf(err + at, errlen - at, "%s --%s", err[at - 1] == ':' ? "" : ",",
                                   cli_option_defs[id].name);
    free(t);
    return 0;
}

/* What getopt_long's '?' or ':' meant, as one line. getopt_long has just
 * stepped past argv[optind - 1] when a long option failed; a short one
 * names itself in optopt. */
static int scan_error(const cli_options *opt, int c, char **argv, char *err, size_t errlen)
{
    char q[8];
    if (optopt >= CLI_LONG_VAL) { /* a known long option */
        const char *name = cli_option_defs[optopt - CLI_LONG_VAL].name;
        return c == ':' ? cli_fail(err, errlen, "option '--%s' requires an argument", name)
                        : cli_fail(err, errlen, "option '--%s' takes no value", name);
    }
    if (optopt == 0)
        return long_error(opt, argv[optind - 1], err, errlen);
    if (c == ':')
        return cli_fail(err, errlen, "option '-%c' requires an argument", optopt);
    const char s[2] = {(char)optopt, '\0'};
    return cli_fail(err, errlen, "unknown option '-%s'", cli_quote(q, sizeof q, s));
}

/* argv is scanned by getopt_long with opterr = 0 (the messages are ours)
 * and optind = 0, which makes glibc (and musl) start afresh: a harness
 * that parses many argument lists in one process gets the same answers.
 * Operands go to files[0 .. *n) (merge's), or are refused (files NULL). */
int cli_options_scan(int argc, char **argv, cli_options *opt, char **files, size_t *n, char *err,
                     size_t errlen)
{
    char shorts[2 * CLI_OPT_COUNT + 3];
    struct option longs[CLI_OPT_COUNT + 1] = {{NULL, 0, NULL, 0}};
    set_defaults(opt); /* nothing allocated yet: a failure frees nothing */
    opt->merge = files != NULL;
    for (int id = 0, k = 0; id < CLI_OPT_COUNT; id++)
        if (takes(opt, id))
            longs[k++] = long_options[id];
    short_options(opt, shorts, sizeof shorts);
    opterr = 0;
    optind = 0;
    for (int c; (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1;) {
        if (c == '?' || c == ':')
            return scan_error(opt, c, argv, err, errlen);
        if (c == 1) { /* merge's operand, in order */
            files[(*n)++] = optarg;
            continue;
        }
        const int id = c >= CLI_LONG_VAL ? c - CLI_LONG_VAL : find_short(c);
        if (id < 0 || id >= CLI_OPT_COUNT) /* getopt_long returns only what it was given */
            return cli_fail(err, errlen, "getopt_long returned %d", c);
        opt->given[id] = 1;
        const char *value = cli_option_defs[id].kind == CLI_ARG_FLAG ? NULL : optarg;
        if (!set_value(opt, (cli_option_id)id, value, err, errlen))
            return 0;
        if (id == CLI_OPT_HELP && files) /* merge's help, whatever follows (coreutils') */
            return 1;
    }
    if (optind < argc && !files) { /* operands: there are none */
        char q[80];
        return cli_fail(err, errlen, "unexpected argument '%s'",
                        cli_quote(q, sizeof q, argv[optind]));
    }
    while (optind < argc) /* merge's, after "--" */
        files[(*n)++] = argv[optind++];
    return 1;
}
