/* Command-line options of sdpa-var: parsed and validated here, before the
 * engine runs. */
#ifndef SDPA_VAR_CLI_OPTIONS_H
#define SDPA_VAR_CLI_OPTIONS_H

#include <stddef.h>

#include "sdpa_var/sdpa_var.h"

/* Exit statuses, as users of a command-line tool expect them. */
enum sv_exit { SV_EXIT_OK = 0, SV_EXIT_RUNTIME = 1, SV_EXIT_USAGE = 2 };

typedef enum sv_format { SV_FORMAT_AUTO, SV_FORMAT_TABLE, SV_FORMAT_CSV } sv_format;

/* One --scale choice: the divisor of the "scaled" logits. */
typedef enum sv_scale_kind { SV_SCALE_SQRT, SV_SCALE_DK, SV_SCALE_NONE, SV_SCALE_VALUE } sv_scale_kind;

#define SV_SCALES_MAX 16

typedef struct sv_scale_choice {
    sv_scale_kind kind;
    double value;   /* for SV_SCALE_VALUE */
    char name[32];  /* as written: sqrt, dk, none or the number */
} sv_scale_choice;

typedef struct sv_options {
    sv_config base;              /* everything but d_k and scale */
    size_t dk[SV_DKLIST_MAX];    /* the --dk values, in the order given */
    size_t n_dk;
    sv_scale_choice scale[SV_SCALES_MAX]; /* the --scale values */
    size_t n_scale;
    sv_format format;
    int per_trial;
    int per_row;                 /* one row per query position instead */
    size_t histogram;            /* --histogram BINS, else 0 */
    int weight_histogram;        /* --weight-histogram: softmax weights instead */
    int quiet;                   /* no progress line */
    double observed;             /* NAN without --observed */
    int help, version;
} sv_options;

/* Parses argv into *opt. On a usage error writes one line (without the
 * program name or newline) to err and returns 0. */
int sv_options_parse(int argc, char **argv, sv_options *opt, char *err, size_t errlen);

/* Configurations to run: every --scale with every --dk, scale outer. */
size_t sv_options_count(const sv_options *opt);

/* The i-th configuration (0 <= i < sv_options_count). */
sv_config sv_options_config(const sv_options *opt, size_t i);

/* The --scale choice of the i-th configuration. */
const sv_scale_choice *sv_options_scale(const sv_options *opt, size_t i);

/* Checks sizes against each other and against this machine's memory; 0 and
 * a message in err when they cannot run. */
int sv_options_check_sizes(const sv_options *opt, char *err, size_t errlen);

extern const char sv_usage_text[], sv_usage_text2[];

#endif
