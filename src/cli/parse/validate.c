/* One validation pass over parsed options: what the CLI's own options
 * apply with (the option table's section flags and a table of rules),
 * OMP_NUM_THREADS, then the library's own check of every configuration
 * (the experiment's rules), its failure mapped back to the option that set
 * the field. The library's rules are not repeated here. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "budget.h"
#include "logits.h"

/* Rules of what applies with what. A row is a rule for each pair of an
 * option of `opts` (as given) and one of `others`, options first, each in
 * the table's order (the order rules fire in, and --help's). A rule fires,
 * for CLI_RULE_NEEDS, when `other` is off or the format is not one of
 * `formats`, for CLI_RULE_EXCLUDES when `other` is on and the format is
 * one of `formats` (0: any), for CLI_RULE_EXCLUDES_ALL (one rule for the
 * row) when every one of `others` is on. `other` is on when given or
 * implied (--qk-scale implies --qk-norm, --dv and --grad --values). The
 * message: "--opt needs (or does not apply with) --other[ value]" and the
 * reason; the value is --format's as given (as required for NEEDS), "and
 * --more" for the others of CLI_RULE_EXCLUDES_ALL. tests/cli/options_test.sh
 * runs every rule, and fails when this table has one it does not run. */
typedef enum { CLI_RULE_NEEDS, CLI_RULE_EXCLUDES, CLI_RULE_EXCLUDES_ALL } cli_rule_kind;

typedef struct cli_rule {
    uint64_t opts; /* bit id: option id */
    cli_rule_kind kind;
    uint64_t others;
    unsigned formats; /* bit f: cli_format f; 0: any */
    const char *why;
    const char *shown; /* --help's text for other and formats, or NULL */
} cli_rule;

_Static_assert(CLI_OPT_COUNT <= 64, "a rule's options are the bits of a uint64_t");

#define O(id) (UINT64_C(1) << CLI_OPT_##id)
#define F(format) (1u << CLI_FORMAT_##format)
#define SLIDES (F(MARKDOWN) | F(LATEX)) /* the table view for slides */
#define NEEDS CLI_RULE_NEEDS
#define EXCL CLI_RULE_EXCLUDES
static const cli_rule rules[] = {
    {O(PLOT), EXCL, O(LOGITS), 0, "it draws the rows' weights", NULL},
    {O(UPSTREAM), EXCL, O(FORMAT), F(GNUPLOT), "the plot draws the weights", NULL},
    {O(UPSTREAM), NEEDS, O(LOGITS), 0, "the gradient of a given row", NULL},
    {O(WEIGHT_HISTOGRAM), NEEDS, O(HISTOGRAM), 0, "it changes what is binned", NULL},
    {O(N), CLI_RULE_EXCLUDES_ALL, O(NQ) | O(NK), 0, "they set n_q and n_k", NULL},
    {O(PER_TRIAL), EXCL, O(PER_ROW) | O(HISTOGRAM), 0, "one kind of output", NULL},
    {O(PER_ROW), EXCL, O(HISTOGRAM), 0, "one kind of output", NULL},
    {O(OBSERVED), EXCL, O(PER_TRIAL) | O(PER_ROW) | O(HISTOGRAM), 0,
     "the fraction is in the summary", NULL},
    {O(DDOF), EXCL, O(PER_ROW) | O(HISTOGRAM), 0, "it prints no variance", NULL},
    {O(VALUES) | O(DV), EXCL, O(PER_ROW) | O(HISTOGRAM), 0, "it prints no output variance", NULL},
    {O(GRAD), EXCL, O(PER_ROW), 0, "it prints no gradient", NULL},
    {O(EXAMPLE), EXCL, O(WINDOW), 0, "it shows full or causal rows", NULL},
    {O(GRAD), EXCL, O(HISTOGRAM), 0, "it prints no gradient", NULL},
    /* Every format but CSV (and the default); --help names the usual. */
    {O(NO_HEADER), EXCL, O(FORMAT), ~(F(AUTO) | F(CSV)), "CSV only", "--format table, json, jsonl"},
    {O(COLUMNS), EXCL, O(FORMAT), F(TABLE) | SLIDES, "CSV, JSON and JSONL only", NULL},
    {O(PER_TRIAL) | O(PER_ROW) | O(HISTOGRAM), EXCL, O(FORMAT), SLIDES,
     "a slide's table is the summary", NULL},
    {O(Q), EXCL, O(FORMAT), SLIDES, "drawn Q and K only", NULL},
    /* A state is a partial result of random draws, for `merge`. */
    {O(LOGITS) | O(LOGITS_FILE), EXCL, O(FORMAT), F(STATE), "a state is of random draws", NULL},
    {O(EXAMPLE), EXCL, O(TRIALS) | O(OBSERVED), 0, "it shows trial 0", NULL},
    {O(EXAMPLE), EXCL, O(PER_TRIAL) | O(PER_ROW) | O(HISTOGRAM), 0, "one kind of output", NULL},
    {O(EXAMPLE), EXCL, O(FORMAT) | O(COLUMNS) | O(NO_HEADER), 0, "it prints text", NULL},
    {O(FORMAT), EXCL, O(PER_ROW), F(TABLE) | F(GNUPLOT), "it prints CSV", NULL},
    {O(FORMAT), EXCL, O(PER_TRIAL), F(GNUPLOT), "it plots the summary", NULL},
    {O(PLOT), NEEDS, O(FORMAT), F(GNUPLOT), "it says what the script draws", NULL},
    {O(FORMAT), EXCL, O(Q) | O(COLUMNS), F(GNUPLOT),
     "it plots the summary of random draws, --histogram or given --logits", NULL},
    {O(EXAMPLE), EXCL, O(OUTPUT), 0, "it prints text", NULL},
    {O(FORMAT), EXCL, O(HISTOGRAM), F(TABLE), "it prints CSV", NULL},
    {O(Q), NEEDS, O(K), 0, "Q and K make the scores", NULL},
    {O(K), NEEDS, O(Q), 0, "Q and K make the scores", NULL},
    {O(V), NEEDS, O(Q), 0, "the values of measured Q and K", NULL},
    {O(MASK), NEEDS, O(Q), 0, "it masks the scores of measured Q and K", NULL},
    {O(LAYOUT), NEEDS, O(Q), 0, "it says how files are laid out", NULL},
    {O(POOL), NEEDS, O(Q), 0, "it pools the heads of files", NULL},
    {O(POOL), EXCL, O(PER_ROW) | O(HISTOGRAM), 0, "one kind of output", NULL},
    /* Shards (shards.c): a state is the summary's partial result, so it
     * goes with the summary alone (--no-header, --example: rules above). */
    {O(FORMAT), EXCL, O(PER_TRIAL) | O(PER_ROW) | O(HISTOGRAM) | O(COLUMNS) | O(Q) | O(SAVE_QK),
     F(STATE), "a state is the summary's partial result", NULL},
    {O(TOTAL_TRIALS), NEEDS, O(FORMAT), F(STATE), "a state records the whole run's trials", NULL},
    {O(Q_ROWS), NEEDS, O(FORMAT), F(STATE), "a row shard is a partial result", NULL},
    {O(Q_ROWS), EXCL, O(GRAD), 0, "dL/dk sums over every row", NULL},
    /* With measured Q and K, beside the options of CLI_X_Q. */
    {O(VALUES) | O(DV), EXCL, O(Q), 0, "--v reads V from a file", NULL},
    {O(GRAD), EXCL, O(Q), 0, "no file gives G", NULL},
    {O(OBSERVED), EXCL, O(Q), 0, "it counts random trials", NULL},
    {O(PER_TRIAL), EXCL, O(Q), 0, "rows are per head: --pool", NULL},
    {O(EXAMPLE), EXCL, O(Q), 0, "it shows a random trial", NULL},
    {O(SAVE_QK), EXCL, O(Q), 0, "it saves random draws", NULL},
};
#undef O
#undef F
#undef SLIDES
#undef NEEDS
#undef EXCL

static int on(const cli_options *o, int id)
{
    return o->given[id] || (id == CLI_OPT_QK_NORM && o->given[CLI_OPT_QK_SCALE]) ||
           (id == CLI_OPT_VALUES && (o->given[CLI_OPT_DV] || o->given[CLI_OPT_GRAD])) ||
           (id == CLI_OPT_LOGITS && o->given[CLI_OPT_LOGITS_FILE]);
}

/* The next option of @p bits after @p id (-1: the first), or -1. */
static int next_of(uint64_t bits, int id)
{
    while (++id < CLI_OPT_COUNT)
        if (bits >> id & 1)
            return id;
    return -1;
}

/* The names of @p formats, "markdown, latex", into @p buf. */
static const char *format_list(unsigned formats, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; cli_format_names[k] && at < len; k++)
        if (formats >> (CLI_FORMAT_TABLE + k) & 1)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", cli_format_names[k]);
    return buf;
}

/* " and --nk" for the others of @p r after @p other (CLI_RULE_EXCLUDES_ALL),
 * else @p r's formats: as given (@p o), or all of them (NULL: --help). */
static void other_value(const cli_options *o, const cli_rule *r, int other, char *buf, size_t len)
{
    buf[0] = '\0';
    if (r->kind == CLI_RULE_EXCLUDES_ALL)
        for (int b = next_of(r->others, other), at = 0; b >= 0; b = next_of(r->others, b))
            at += snprintf(buf + at, len - (size_t)at, " and --%s", cli_option_defs[b].name);
    else if (other == CLI_OPT_FORMAT && r->formats && o && r->kind != CLI_RULE_NEEDS)
        cli_options_echo(o, CLI_OPT_FORMAT, buf + 1, len - 1), buf[0] = ' ';
    else if (other == CLI_OPT_FORMAT && r->formats)
        format_list(r->formats, buf + 1, len - 1), buf[0] = ' ';
}

/* "--opt[ value] needs (or does not apply with) --other[ value] (why)". */
static int refuse(const cli_options *o, int opt, cli_rule_kind kind, int other, const cli_rule *r,
                  const char *why, char *err, size_t errlen)
{
    /* --format's value is part of the option ("--format table"). */
    char val[80] = "", shown[80] = "";
    if (opt == CLI_OPT_FORMAT)
        cli_options_echo(o, CLI_OPT_FORMAT, val + 1, sizeof val - 1), val[0] = ' ';
    if (r)
        other_value(o, r, other, shown, sizeof shown);
    /* --logits-file counts as --logits: name the one given. */
    const int named = other == CLI_OPT_LOGITS && !o->given[CLI_OPT_LOGITS] && kind != CLI_RULE_NEEDS
                          ? CLI_OPT_LOGITS_FILE
                          : other;
    return cli_fail(err, errlen, "--%s%s %s --%s%s (%s)", cli_option_defs[opt].name, val,
                    kind == CLI_RULE_NEEDS ? "needs" : "does not apply with",
                    cli_option_defs[named].name, shown, why);
}

/* The first option given whose section flags exclude @p group (on). */
static int check_flag(const cli_options *o, int flag, cli_option_id group, const char *why,
                      char *err, size_t errlen)
{
    for (int id = 0; on(o, group) && id < CLI_OPT_COUNT; id++)
        if (o->given[id] && (cli_option_defs[id].section & flag))
            return refuse(o, id, CLI_RULE_EXCLUDES, group, NULL, why, err, errlen);
    return 1;
}

/* Whether rule @p r fires on option @p other, given option @p opt. */
static int fires(const cli_options *o, const cli_rule *r, int other)
{
    const int format = !r->formats || (r->formats >> o->out.format & 1);
    if (r->kind == CLI_RULE_EXCLUDES_ALL)
        for (int b = other; b >= 0; b = next_of(r->others, b))
            if (!on(o, b))
                return 0;
    return r->kind == CLI_RULE_NEEDS ? !(on(o, other) && format) : on(o, other) && format;
}

static int check_rules(const cli_options *o, char *err, size_t errlen)
{
    /* Given rows of logits: nothing is drawn (first, so that each is the
     * rule that fires). */
    if (!check_flag(o, CLI_X_LOGITS, CLI_OPT_LOGITS, "the rows are given, nothing is drawn", err,
                    errlen))
        return 0;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const cli_rule *r = &rules[i];
        for (int a = next_of(r->opts, -1); a >= 0; a = next_of(r->opts, a))
            for (int b = next_of(r->others, -1); o->given[a] && b >= 0;
                 b = r->kind == CLI_RULE_EXCLUDES_ALL ? -1 : next_of(r->others, b))
                if (fires(o, r, b))
                    return refuse(o, a, r->kind, b, r, r->why, err, errlen);
    }
    return check_flag(o, CLI_X_Q, CLI_OPT_Q, "Q and K are read from files", err, errlen);
}

/* Whether rule @p r refuses a draw option with --q (--help lists those
 * together). */
static int draw_only(const cli_rule *r)
{
    return r->kind == CLI_RULE_EXCLUDES &&
           (r->others == UINT64_C(1) << CLI_OPT_Q || r->others == UINT64_C(1) << CLI_OPT_LOGITS);
}

/* "  --q                not with --nu, --init, ...": the options whose
 * section flag @p flag excludes @p group, and those of the rules on it,
 * wrapped under the first. */
static void group_usage(FILE *f, int flag, cli_option_id group, const char *head)
{
    int at = fprintf(f, "\n  %-19s%s", head, "not with") - 1;
    const char *sep = " ";
    for (size_t i = 0; i < CLI_OPT_COUNT + sizeof rules / sizeof rules[0]; i++) {
        const cli_rule *r = i < CLI_OPT_COUNT ? NULL : &rules[i - CLI_OPT_COUNT];
        if (r ? !draw_only(r) || !(r->others >> group & 1) : !(cli_option_defs[i].section & flag))
            continue;
        for (int id = r ? next_of(r->opts, -1) : (int)i; id >= 0;
             id = r ? next_of(r->opts, id) : -1) {
            const char *name = cli_option_defs[id].name;
            if (at + (int)strlen(sep) + 2 + (int)strlen(name) + 1 > 79)
                at = fprintf(f, ",\n%30s", "") - 2, sep = "";
            at += fprintf(f, "%s--%s", sep, name);
            sep = ", ";
        }
    }
}

/* One "--opt  needs/not with --other" of --help, after @p prev (-1: the
 * first), on the same line when the same option and kind. */
static void rule_usage(FILE *f, const cli_rule *r, int opt, int other, int *prev, int *at)
{
    char head[128], other_text[128], value[48]; /* head: "--" name formats */
    const int same = *prev == opt * 4 + (int)r->kind;
    char formats[64] = ""; /* --format's first format of the rule: "--format state" */
    if (opt == CLI_OPT_FORMAT)
        format_list(r->formats & -r->formats, formats + 1, sizeof formats - 1), formats[0] = ' ';
    snprintf(head, sizeof head, "--%s%s", cli_option_defs[opt].name, formats);
    other_value(NULL, r, other, value, sizeof value);
    if (r->shown)
        snprintf(other_text, sizeof other_text, "%s", r->shown);
    else
        snprintf(other_text, sizeof other_text, "--%s%s", cli_option_defs[other].name, value);
    if (same && *at + 2 + (int)strlen(other_text) > 79)
        *at = fprintf(f, ",\n%30s%s", "", other_text) - 2;
    else if (same)
        *at += fprintf(f, ", %s", other_text);
    else
        *at = fprintf(f, "%s  %-19s%s %s", *prev >= 0 ? "\n" : "", head,
                      r->kind == CLI_RULE_NEEDS ? "needs" : "not with", other_text) -
              (*prev >= 0 ? 1 : 0);
    *prev = opt * 4 + (int)r->kind;
}

void cli_options_rules_usage(FILE *f)
{
    fputs("\nAn option that does not apply with the others is an error, not ignored.\n"
          "The experiment's rules are the library's, by value (as for Python): a\n"
          "parameter that does nothing, set away from its default, is refused (--nu\n"
          "without --dist t; --init, --cross without --d-model; --q-mean, --q-std,\n"
          "--k-mean, --k-std, --plant with it; --q-std, --k-std under --qk-norm for\n"
          "rows of mean 0; --window with --grad). The CLI's own options:\n",
          f);
    int at = 0, prev = -1; /* the line's length so far: a list wraps under its first item */
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const cli_rule *r = &rules[i];
        for (int a = next_of(r->opts, -1); !draw_only(r) && a >= 0; a = next_of(r->opts, a))
            for (int b = next_of(r->others, -1); b >= 0;
                 b = r->kind == CLI_RULE_EXCLUDES_ALL ? -1 : next_of(r->others, b))
                rule_usage(f, r, a, b, &prev, &at);
    }
    group_usage(f, CLI_X_Q, CLI_OPT_Q, "--q");
    group_usage(f, CLI_X_LOGITS, CLI_OPT_LOGITS, "--logits(-file)");
    fputs("\n", f);
}

/* The CLI's own options given -> opt->exec and the output settings (the
 * parameters are in opt->base already: options.c). */
static void resolve(cli_options *o)
{
    const uint64_t *c = o->count;
    const double *r = o->real;
    const unsigned char *g = o->given;
    if (!g[CLI_OPT_NQ]) /* --n's first value; per config: make_spec */
        o->base.n_q = o->n[0];
    if (!g[CLI_OPT_NK])
        o->base.n_k = o->n[0];
    o->exec.threads = (int)c[CLI_OPT_THREADS];
    o->exec.block_rows =
        g[CLI_OPT_BLOCK_ROWS] ? (size_t)c[CLI_OPT_BLOCK_ROWS] : 0; /* 0: one tile */
    o->out.no_header = g[CLI_OPT_NO_HEADER];
    o->out.histogram = (size_t)c[CLI_OPT_HISTOGRAM];
    o->out.weight_histogram = g[CLI_OPT_WEIGHT_HISTOGRAM];
    o->out.observed = g[CLI_OPT_OBSERVED] ? r[CLI_OPT_OBSERVED] : NAN;
    o->help = g[CLI_OPT_HELP] ? 1 : g[CLI_OPT_COMPLETION] ? 2 : 0;
    o->version = g[CLI_OPT_VERSION];
}

/* Configurations to run: every --scale x --dist x --init x --dk, scale
 * outermost, then dist, then init, d_k innermost. */
static size_t count_configs(const cli_options *opt)
{
    return opt->n_scale * opt->n_dist * opt->n_init * opt->n_n * opt->n_dk;
}

static const cli_scale_choice *scale_of(const cli_options *opt, size_t i)
{
    return &opt->scale[i / (opt->n_dk * opt->n_n * opt->n_init * opt->n_dist)];
}

/* The i-th configuration, resolved by the library (the scale by its name
 * too): the only place a spec is made. */
static sv_spec make_spec(const cli_options *opt, size_t i)
{
    sv_spec spec = opt->base;
    /* d_k varies fastest, then n: --dk LIST --n LIST is every pair. */
    const size_t n = opt->n[i / opt->n_dk % opt->n_n], dn = opt->n_dk * opt->n_n;
    spec.d_k = opt->dk[i % opt->n_dk];
    if (!opt->given[CLI_OPT_NQ])
        spec.n_q = n;
    if (!opt->given[CLI_OPT_NK])
        spec.n_k = n;
    spec.init = opt->init[i / dn % opt->n_init];
    spec.dist = opt->dist[i / (dn * opt->n_init) % opt->n_dist];
    /* --dist normal,t --nu 8: nu is t's; the library refuses it (as
     * Python's) where no item of the list is t. */
    sv_spec def;
    (void)sv_spec_defaults(&def);
    int any_t = 0;
    for (size_t k = 0; k < opt->n_dist; k++)
        any_t |= opt->dist[k] == SV_DIST_STUDENT_T;
    if (any_t && spec.dist != SV_DIST_STUDENT_T)
        spec.nu = def.nu;
    (void)sv_spec_set(&spec, SV_PARAM_SCALE, scale_of(opt, i)->name); /* parsed: options.c */
    (void)sv_spec_resolve(&spec);                                     /* checked by validate */
    return spec;
}

void cli_options_free(cli_options *opt)
{
    free(opt->configs);
    free(opt->logit_rows);
    opt->configs = NULL;
    opt->logit_rows = NULL;
    opt->n_configs = 0;
}

/* How the rows are written, by the options, in @p format. */
static cli_output output_of(const cli_options *o, cli_format format)
{
    cli_output out = o->out;
    out.format = format;
    out.kind = cli_options_kind(o);
    out.columns = o->columns;
    out.plot = o->out.histogram ? CLI_PLOT_HISTOGRAM : o->out.plot;
    out.plot_output = o->arg[CLI_OPT_OUTPUT];
    return out;
}

cli_plan cli_options_plan(const cli_options *opt, cli_format format)
{
    cli_plan p = {.configs = opt->configs,
                  .count = opt->n_configs,
                  .exec = opt->exec,
                  .threads_by = opt->given[CLI_OPT_THREADS] ? "--threads"
                                : opt->exec.threads > 0     ? "OMP_NUM_THREADS"
                                                            : NULL,
                  .quiet = opt->given[CLI_OPT_QUIET],
                  .out = output_of(opt, format)};
    cli_shard_plan(opt, &p);
    return p;
}

static int validate(cli_options *o, char *err, size_t errlen)
{
    resolve(o);
    if (o->help || o->version)
        return 1;
    if (!check_rules(o, err, errlen) || !cli_check_shards(o, err, errlen) ||
        !cli_omp_threads(o, err, errlen))
        return 0;
    if (on(o, CLI_OPT_LOGITS))
        return cli_logits_validate(o, err, errlen);
    if (!cli_check_logn(o, err, errlen))
        return 0;
    if (o->out.format == CLI_FORMAT_GNUPLOT && !cli_plot_check(o, err, errlen))
        return 0;
    if (o->given[CLI_OPT_COLUMNS] && !cli_resolve_columns(o, err, errlen))
        return 0;
    const size_t n = count_configs(o);
    if (n > CLI_CONFIGS_MAX)
        return cli_fail(
            err, errlen,
            "--scale, --dist, --init, --n and --dk make %zu configurations (at most %d)", n,
            CLI_CONFIGS_MAX);
    static const cli_option_id one_only[] = {CLI_OPT_EXAMPLE, CLI_OPT_SAVE_QK, CLI_OPT_HISTOGRAM};
    for (size_t k = 0; n != 1 && k < sizeof one_only / sizeof one_only[0]; k++)
        if (o->given[one_only[k]])
            return cli_fail(err, errlen,
                            "--%s takes one configuration (got %zu from --dk, --n, --scale, "
                            "--dist, --init)",
                            cli_option_defs[one_only[k]].name, n);
    o->configs = calloc(n ? n : 1, sizeof *o->configs); /* n >= 1: every list has an item */
    if (!o->configs)
        return cli_fail(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) {
        cli_config *c = &o->configs[i];
        c->spec = make_spec(o, i);
        snprintf(c->scale_name, sizeof c->scale_name, "%s", scale_of(o, i)->name);
        if (!cli_config_check(o, c, err, errlen)) {
            cli_options_free(o);
            return 0;
        }
    }
    o->n_configs = n;
    if (o->given[CLI_OPT_EXAMPLE] && !cli_example_check(o, err, errlen)) {
        cli_options_free(o);
        return 0;
    }
    return 1;
}

int cli_options_parse(int argc, char **argv, cli_options *opt, char *err, size_t errlen)
{
    return cli_options_scan(argc, argv, opt, NULL, NULL, err, errlen) && validate(opt, err, errlen);
}

int cli_options_check_sizes(const cli_options *opt, char *err, size_t errlen)
{
    const cli_output out = output_of(opt, CLI_FORMAT_CSV);
    char why[96];
    for (size_t i = 0; i < opt->n_configs; i++) {
        const sv_spec *spec = &opt->configs[i].spec;
        if (!cli_budget_fits(&out, &opt->configs[i], why, sizeof why))
            return cli_fail(err, errlen,
                            "sizes too large: d_k=%zu, n_q=%zu, n_k=%zu, trials=%llu need %s",
                            spec->d_k, spec->n_q, spec->n_k, (unsigned long long)spec->trials, why);
    }
    return 1;
}
