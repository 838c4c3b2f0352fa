/* Command-line options of sdpa-var: parsed and validated here, before the
 * engine runs. */
#ifndef SDPA_VAR_CLI_OPTIONS_H
#define SDPA_VAR_CLI_OPTIONS_H

#include <stddef.h>

#include "sdpa_var/sdpa_var.h"

/* Exit statuses, as users of a command-line tool expect them. */
enum sv_exit { SV_EXIT_OK = 0, SV_EXIT_RUNTIME = 1, SV_EXIT_USAGE = 2 };

typedef enum sv_format { SV_FORMAT_AUTO, SV_FORMAT_TABLE, SV_FORMAT_CSV } sv_format;

typedef struct sv_options {
    sv_config base;              /* everything but d_k */
    size_t dk[SV_DKLIST_MAX];    /* the --dk values, in the order given */
    size_t n_dk;
    sv_format format;
    int per_trial;
    int quiet;                   /* no progress line */
    double observed;             /* NAN without --observed */
    int help, version;
} sv_options;

/* Parses argv into *opt. On a usage error writes one line (without the
 * program name or newline) to err and returns 0. */
int sv_options_parse(int argc, char **argv, sv_options *opt, char *err, size_t errlen);

/* The config of the i-th --dk value. */
sv_config sv_options_config(const sv_options *opt, size_t i);

/* Checks sizes against each other and against this machine's memory; 0 and
 * a message in err when they cannot run. */
int sv_options_check_sizes(const sv_options *opt, char *err, size_t errlen);

extern const char sv_usage_text[];

#endif
