/* The validated run, as the run loop and the sinks see it. The CLI goes
 * one way: argv -> cli_options (options.c: getopt_long over the option
 * table) -> this (validate.c: every spec resolved and checked once) ->
 * the run loop (run.c, with the memory budget of budget.c) -> the sinks
 * (sink.c and the writers), which read specs, summaries and the output
 * settings below, never cli_options: a later `merge` of state files can
 * hand them the same. */
#ifndef SDPA_VAR_CLI_SPECS_H
#define SDPA_VAR_CLI_SPECS_H

#include <stddef.h>

#include "sdpa_var/sdpa_var.h"

/* Exit statuses, as users of a command-line tool expect them. */
enum cli_exit { CLI_EXIT_OK = 0, CLI_EXIT_RUNTIME = 1, CLI_EXIT_USAGE = 2 };

/* The output formats, each once: F(ID, name, merge) in --format's order;
 * merge: `sdpa-var merge` writes it. --format, merge, --help and the bash
 * completion read their names from here (cli_format_names). */
#define CLI_FORMAT_MAP(F)                                                                          \
    F(TABLE, "table", 1)                                                                           \
    F(CSV, "csv", 1)                                                                               \
    F(JSON, "json", 1)         /* one document */                                                  \
    F(JSONL, "jsonl", 1)       /* JSON Lines: the config, then one row a line */                   \
    F(STATE, "state", 1)       /* the mergeable state (sdpa_var/state.h), bytes */                 \
    F(GNUPLOT, "gnuplot", 0)   /* a gnuplot script, the rows as its datablock */                   \
    F(MARKDOWN, "markdown", 0) /* the table view as a markdown (GFM) table */                      \
    F(LATEX, "latex", 0)       /* the table view as a booktabs tabular */

typedef enum cli_format {
    CLI_FORMAT_AUTO, /* not given: table on a terminal, else csv */
#define CLI_FORMAT_ENUM_(id, name, merge) CLI_FORMAT_##id,
    CLI_FORMAT_MAP(CLI_FORMAT_ENUM_)
#undef CLI_FORMAT_ENUM_
} cli_format;

/* The formats' names in cli_format's order from CLI_FORMAT_TABLE (names[k]
 * is format CLI_FORMAT_TABLE + k), and those merge writes, each
 * NULL-terminated (options.c). */
extern const char *const cli_format_names[];
extern const char *const cli_merge_formats[];

/* --plot: what --format gnuplot draws against the swept column. */
typedef enum cli_plot {
    CLI_PLOT_VARIANCE,
    CLI_PLOT_ENTROPY,
    CLI_PLOT_MAX_WEIGHT,
    CLI_PLOT_EFF_KEYS,
    CLI_PLOT_GRAD,
    CLI_PLOT_HISTOGRAM
} cli_plot;

/* One configuration of the run: a resolved, checked spec, the --scale
 * item it came from, as written ("sqrt", "dk", "none", "0.125"), and the
 * engine's memory for it, found when it was checked. */
typedef struct cli_config {
    sv_spec spec;
    char scale_name[32];
    size_t engine_bytes; /* sv_engine_bytes of its draws with the run's exec */
} cli_config;

/* How the rows are written. */
typedef struct cli_output {
    cli_format format;           /* never CLI_FORMAT_AUTO once the run starts */
    sv_output_kind kind;         /* summary, per trial, per row, histogram */
    const size_t *columns;       /* --columns: indices into kind's column table */
    size_t n_columns;            /* 0: the columns of the rule in sink.c (has) */
    int columns_all;             /* --columns all: every column that exists */
    unsigned long column_groups; /* --columns +GROUP: bit g adds sv_column_group g */
    int no_header;               /* CSV without its header line */
    double observed;             /* the --observed value, NAN without */
    size_t histogram;            /* bins, 0 without --histogram */
    int weight_histogram;        /* the histogram is of the softmax weights */
    sv_pool pool;                /* per-head output: which rows (run.h) */
    cli_plot plot;               /* --format gnuplot: what is drawn */
    const char *plot_output;     /* --output: the .png, .svg or .pdf the script sets, or NULL */
} cli_output;

/* Everything a run needs, in the order it runs. */
typedef struct cli_plan {
    const cli_config *configs; /* count of them */
    size_t count;
    sv_exec exec;             /* threads and block rows; progress: run.c */
    const char *threads_by;   /* what set the threads: "--threads",
                                 "OMP_NUM_THREADS", or NULL (all cores) */
    int quiet;                /* no progress line */
    const sv_strided *arrays; /* measured Q, K (and V) of --q, --k, --v
                                 (tensor_input.h), read by a strided source;
                                 NULL: the configurations' random draws */
    cli_output out;
    uint64_t first_trial;  /* --first-trial: trials first_trial .. + trials - 1 */
    uint64_t trials_total; /* --total-trials, else first_trial + trials: the whole run */
    size_t q_rows[2];      /* --q-rows A:B (a row shard), else 0 and SIZE_MAX: rows
                              [min(A, n_q), min(B, n_q)) of each configuration */
} cli_plan;

#endif
