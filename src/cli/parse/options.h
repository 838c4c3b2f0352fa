/* Command-line options of sdpa-var: parsed (options.c, from the table in
 * option_table.h) and validated in one pass (validate.c), before the engine
 * runs. */
#ifndef SDPA_VAR_CLI_OPTIONS_H
#define SDPA_VAR_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sdpa_var/columns.h"
#include "sdpa_var/sdpa_var.h"
#include "fail.h"
#include "specs.h"

/* Limits, stated in --help and in the messages that enforce them. */
#define CLI_SCALES_MAX 16               /* items of --scale */
#define CLI_NAMES_MAX 8                 /* items of --dist and of --init */
#define CLI_ITEM_MAX 31                 /* characters of one --scale, --dist or --init item */
#define CLI_THREADS_MAX 1024            /* --threads and OMP_NUM_THREADS */
#define CLI_BLOCK_ROWS_MAX 1073741824.0 /* --block-rows: 2^30 */
#define CLI_CONFIGS_MAX 4096            /* configurations of one run */
#define CLI_COLUMNS_MAX 256             /* names of --columns */
#define CLI_LOGITS_KEYS_MAX 64          /* keys of a --logits row: its Jacobian is printed whole */
#define CLI_LOGITS_ROWS_MAX 256         /* rows of --logits and --logits-file together */
#define CLI_LOGITS_PLOT_ROWS 2          /* rows --format gnuplot draws: a panel each */
#define CLI_EXAMPLE_MATRIX_MAX 6        /* --example prints matrices up to this size whole */
#define CLI_SIZE_MAX ((double)SIZE_MAX)
#define CLI_U64_MAX ((double)UINT64_MAX)
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

#include "option_table.h"

/* Option ids, in the table's order: CLI_OPT_DK, CLI_OPT_N, ... */
typedef enum cli_option_id {
#define CLI_OPTION_ENUM_(id, ...) CLI_OPT_##id,
    CLI_OPTION_TABLE(CLI_OPTION_ENUM_)
#undef CLI_OPTION_ENUM_
        CLI_OPT_COUNT
} cli_option_id;

/* How an option is written; values are read as the library's kinds. */
typedef enum cli_arg_kind {
    CLI_ARG_COUNT = SV_ARG_COUNT,
    CLI_ARG_REAL = SV_ARG_REAL,
    CLI_ARG_ABOVE = SV_ARG_ABOVE,
    CLI_ARG_FLAG = SV_ARG_SCALE + 1, /* no value */
    CLI_ARG_LIST,
    CLI_ARG_PARAM
} cli_arg_kind;

/* One --scale item (sv_scale_parse): its rule and, for SV_SCALE_VALUE,
 * the number; with --logits (logits.c) value is the multiplier, for
 * SV_SCALE_LOGN the base of ln n. */
typedef struct cli_scale_choice {
    sv_scale_rule rule;
    double value;
    char name[CLI_ITEM_MAX + 1]; /* as written: sqrt, dk, none, logn or the number */
} cli_scale_choice;

typedef struct cli_options {
    /* Resolved by cli_options_parse from what was given. */
    sv_spec base;             /* the experiment's parameters as given (sv_spec_set
                                 over sv_spec_defaults) but d_k, scale, dist and
                                 init, which each configuration sets (make_spec) */
    sv_exec exec;             /* threads and block rows (progress: run.c) */
    size_t dk[SV_DKLIST_MAX]; /* the --dk values, in the order given */
    size_t n_dk;
    size_t n[SV_DKLIST_MAX]; /* the --n values, in the order given */
    size_t n_n;
    cli_scale_choice scale[CLI_SCALES_MAX]; /* the --scale values */
    size_t n_scale;
    sv_dist dist[CLI_NAMES_MAX]; /* the --dist values */
    size_t n_dist;
    sv_init init[CLI_NAMES_MAX]; /* the --init values */
    size_t n_init;
    /* How to write (specs.h), as given: format CLI_FORMAT_AUTO when not
     * given, plot as --plot says; kind, columns and plot_output are set by
     * cli_options_plan. */
    cli_output out;
    size_t columns[CLI_COLUMNS_MAX]; /* --columns: indices into the column table of
                                        cli_options_kind, in the order given */
    sv_layout layout;                /* --layout: the files' axis order (sv_array_to_bhnd) */
    size_t q_rows[2];                /* --q-rows A:B as given */
    int help, version;               /* help: 1 --help, 2 --completion */
    int merge;                       /* scanned for `sdpa-var merge` (cli_options_scan) */
    const char *logits[CLI_LOGITS_ROWS_MAX]; /* each --logits row, as written */
    size_t n_logits;
    struct cli_logits_rows *logit_rows; /* parsed (logits.h); owned */
    /* --logits and --logits-file (validate.c): the scales each row is
     * shown at (none = as given; sqrt and dk resolved with --dk) and the
     * --upstream row. */
    cli_scale_choice logit_scale[CLI_SCALES_MAX];
    size_t n_logit_scale;
    double upstream[CLI_LOGITS_KEYS_MAX];
    size_t n_upstream; /* 0: no --upstream */
    /* Validated (validate.c): every configuration resolved and
     * checked once, in run order; owned, freed by cli_options_free. */
    cli_config *configs;
    size_t n_configs;
    /* As given, by option id. */
    unsigned char given[CLI_OPT_COUNT]; /* on the command line */
    const char *arg[CLI_OPT_COUNT];     /* its value as written (the last one) */
    uint64_t count[CLI_OPT_COUNT];      /* the CLI's own CLI_ARG_COUNT values (or the default) */
    double real[CLI_OPT_COUNT];         /* the CLI's own CLI_ARG_REAL and _ABOVE values */
} cli_options;

/* Parses argv into *opt and validates it: the option table's syntax and
 * ranges, the rules of what applies with what, OMP_NUM_THREADS, then the
 * library's sv_spec_check_field (and sv_taps_check for a histogram) on
 * every configuration, kept resolved in opt->configs. On a usage error
 * writes one printable line (without the program name or newline) to err
 * and returns 0, with nothing to free. After success the caller frees
 * with cli_options_free. Reads only argv and the environment; re-entrant. */
int cli_options_parse(int argc, char **argv, cli_options *opt, char *err, size_t errlen);

/* Frees what cli_options_parse allocated (opt->configs); idempotent. */
void cli_options_free(cli_options *opt);

/* The validated run (specs.h): opt->configs, threads and block rows, and
 * how to write, in @p format (not CLI_FORMAT_AUTO). Points into @p opt,
 * which must outlive it. */
cli_plan cli_options_plan(const cli_options *opt, cli_format format);

/* The kind of rows @p opt asks for. */
sv_output_kind cli_options_kind(const cli_options *opt);

/* --columns (columns_arg.c): NAME,... (these columns, in this order), all,
 * or +GROUP,... (the default columns and these groups); 0 with err set on
 * an unknown or repeated name. */
int cli_resolve_columns(cli_options *o, char *err, size_t errlen);

/* Checks the memory the run needs against this machine's (budget.c); 0
 * and a message in err when it cannot run. */
int cli_options_check_sizes(const cli_options *opt, char *err, size_t errlen);

/* shards.c: --first-trial, --q-rows and --format state checked against
 * the rest (0 and one line in err); and set in a plan. */
int cli_check_shards(const cli_options *opt, char *err, size_t errlen);
void cli_shard_plan(const cli_options *opt, cli_plan *plan);

/* Writes --help, its option list generated from the option table. */
void cli_options_usage(FILE *f);

/* Used by validate.c: the table's rows, and resolving given values into
 * opt->base, opt->exec and friends. */
typedef struct cli_option_def {
    const char *name; /* long name, without "--" */
    char short_name;
    const char *metavar;
    cli_arg_kind kind;
    double lo, hi;     /* the CLI's own options' bounds */
    const char *def;   /* the CLI's own options' default as text, or NULL */
    sv_param param;    /* the parameter it sets, or SV_PARAM_NONE (the CLI's own) */
    int param_default; /* the parameter's default is this option's (not --nq's) */
    int section;
    const char *help;
} cli_option_def;

extern const cli_option_def cli_option_defs[CLI_OPT_COUNT];

/* Row @p id with an option of a parameter's kind (CLI_ARG_PARAM as
 * CLI_ARG_COUNT, _REAL or _ABOVE), bounds and default filled in from the
 * library (sv_param_bounds): what --help shows and the parser reads. */
cli_option_def cli_option_row(cli_option_id id);

/* The names option @p id takes (NULL-terminated): --dist, --init and
 * --scale the library's, --format, --plot, --layout, --pool and
 * --completion the CLI's; NULL for an option of other values. */
const char *const *cli_option_names(cli_option_id id);

/* Writes the bash completion of sdpa-var, made from the option table and
 * cli_option_names (completion.c): `sdpa-var --completion bash`. */
void cli_completion_bash(FILE *f);

/* "Did you mean": the name of @p names[0..n) nearest to @p s, an option's
 * or format's synonym ("tokens" for --n, "ndjson" for jsonl; of 5 letters
 * or more also when misspelt) when that name is in @p names, else
 * sv_suggest's (param.h); NULL when none is near (options.c). */
const char *cli_suggest(const char *s, const char *const *names, size_t n);

/* The option of parameter @p p: the given one if several are (--n and
 * --nq set n_q), else the first; -1 for none. */
int cli_option_of(const cli_options *opt, sv_param p);

/* The scan of cli_options_parse (options.c): argv into opt->given and the
 * given values, by the option table's syntax and ranges only. 0 and one
 * line in err on a usage error. With @p files, `sdpa-var merge`'s (merge.c):
 * --format (one of cli_merge_formats), --output and --help only, among
 * operands anywhere ("--" ends the options), which go in order to
 * files[0 .. *n) (room for argc); it stops at --help. */
int cli_options_scan(int argc, char **argv, cli_options *opt, char **files, size_t *n, char *err,
                     size_t errlen);

/* Writes the rule table of validate.c for --help: which options need or
 * exclude which. */
void cli_options_rules_usage(FILE *f);

/* The value of option id as written on the command line (else its
 * default), quoted with cli_quote into buf. */
const char *cli_options_echo(const cli_options *opt, cli_option_id id, char *buf, size_t len);

/* OMP_NUM_THREADS as sdpa-var found it: main.c takes it out of the
 * environment before libgomp can read it (taken = 1, value NULL when
 * unset); else (taken = 0, the fuzz harnesses) validate.c reads getenv. */
extern const char *cli_omp_num_threads;
extern int cli_omp_num_threads_taken;

/* OMP_NUM_THREADS, when --threads is not given, validated like it into
 * opt->exec.threads (omp_env.c). 0 and a message when it is not valid. */
int cli_omp_threads(cli_options *opt, char *err, size_t errlen);

/* The library's check of configuration @p c (its spec resolved, its
 * scale_name set), into c->engine_bytes; 0 and a message naming the
 * option and value that fail (config_check.c). */
int cli_config_check(const cli_options *opt, cli_config *c, char *err, size_t errlen);

/* --scale logn: 0 and a message when an option given is one its
 * multipliers do not reach (config_check.c). */
int cli_check_logn(const cli_options *opt, char *err, size_t errlen);

/* Whether --example prints every matrix whole: d_k, n_q, n_k (and d_v
 * with values) at most CLI_EXAMPLE_MATRIX_MAX. Else it shows one query's
 * row, without V, G or a variance: validate.c refuses --values, --dv,
 * --grad and --ddof then (config_check.c). */
int cli_example_whole(const sv_spec *spec);

/* With --example: 0 and a message when an option given is one it cannot
 * show for the configuration (config_check.c). */
int cli_example_check(const cli_options *opt, char *err, size_t errlen);

/* With --format gnuplot: 0 and a message when --plot does not fit the run
 * (histogram without --histogram, grad without --grad) or --output is no
 * image name; --q and --columns are validate.c's table's (config_check.c). */
int cli_plot_check(const cli_options *opt, char *err, size_t errlen);
/* --plot's name, as given: the gnuplot template reads it (write_gnuplot.c). */
const char *cli_plot_name(cli_plot plot);

#endif
