/* Command-line options of sdpa-var: parsed and validated here, before the
 * engine runs. */
#ifndef SDPA_VAR_CLI_OPTIONS_H
#define SDPA_VAR_CLI_OPTIONS_H

#include <stddef.h>

#include "sdpa_var/sdpa_var.h"

/* Exit statuses, as users of a command-line tool expect them. */
enum cli_exit { CLI_EXIT_OK = 0, CLI_EXIT_RUNTIME = 1, CLI_EXIT_USAGE = 2 };

typedef enum cli_format {
    CLI_FORMAT_AUTO,
    CLI_FORMAT_TABLE,
    CLI_FORMAT_CSV,
    CLI_FORMAT_JSON, /* one document */
    CLI_FORMAT_JSONL /* JSON Lines: the config, then one row a line */
} cli_format;

/* One --scale choice: the divisor of the "scaled" logits. */
typedef enum cli_scale_kind { CLI_SCALE_SQRT, CLI_SCALE_DK, CLI_SCALE_NONE, CLI_SCALE_VALUE } cli_scale_kind;

#define CLI_SCALES_MAX 16

typedef struct cli_scale_choice {
    cli_scale_kind kind;
    double value;   /* for CLI_SCALE_VALUE */
    char name[32];  /* as written: sqrt, dk, none or the number */
} cli_scale_choice;

typedef struct cli_options {
    sv_config base;              /* everything but d_k and scale */
    size_t dk[SV_DKLIST_MAX];    /* the --dk values, in the order given */
    size_t n_dk;
    cli_scale_choice scale[CLI_SCALES_MAX]; /* the --scale values */
    size_t n_scale;
    cli_format format;
    int per_trial;
    int no_header;               /* --no-header: CSV without its header line */
    int per_row;                 /* one row per query position instead */
    size_t histogram;            /* --histogram BINS, else 0 */
    int weight_histogram;        /* --weight-histogram: softmax weights instead */
    int quiet;                   /* no progress line */
    double observed;             /* NAN without --observed */
    int help, version;
} cli_options;

/* Parses argv into *opt. On a usage error writes one line (without the
 * program name or newline) to err and returns 0. */
int cli_options_parse(int argc, char **argv, cli_options *opt, char *err, size_t errlen);

/* Configurations to run: every --scale with every --dk, scale outer. */
size_t cli_options_count(const cli_options *opt);

/* The i-th configuration (0 <= i < cli_options_count). */
sv_config cli_options_config(const cli_options *opt, size_t i);

/* The --scale choice of the i-th configuration. */
const cli_scale_choice *cli_options_scale(const cli_options *opt, size_t i);

/* Checks sizes against each other and against this machine's memory; 0 and
 * a message in err when they cannot run. */
int cli_options_check_sizes(const cli_options *opt, char *err, size_t errlen);

extern const char cli_usage_text[], cli_usage_text2[];

#endif
