/* --logits, --logits-file and --upstream: rows of numbers as a slide
 * shows them ("-20, 3, 25, -15"), parsed strictly (logits.c). */
#ifndef SDPA_VAR_CLI_LOGITS_H
#define SDPA_VAR_CLI_LOGITS_H

#include <stddef.h>

#include "options.h"

/* Largest |logit|: differences of two stay finite. (The counts' limits,
 * CLI_LOGITS_KEYS_MAX and CLI_LOGITS_ROWS_MAX, are options.h's.) */
#define CLI_LOGIT_ABS_MAX 1e300

/* Largest |c z|, a logit times its row's multiplier: the scaled logits
 * are printed, and differences of two stay finite (2e307 < DBL_MAX). */
#define CLI_SCALED_LOGIT_ABS_MAX 1e307

/* The rows, parsed once: --logits' in order (cli_logits_validate), then
 * --logits-file's (logits_run.c); row r has n[r] keys z[r][0 .. n[r]). */
typedef struct cli_logits_rows {
    double z[CLI_LOGITS_ROWS_MAX][CLI_LOGITS_KEYS_MAX];
    size_t n[CLI_LOGITS_ROWS_MAX];
    size_t count;
} cli_logits_rows;

/* Parses @p s, a comma list of plain decimal numbers (blanks around an
 * item allowed), into out[0 .. *n), at most CLI_LOGITS_KEYS_MAX of them.
 * (CLI_LOGITS_KEYS_MAX, options.h). On bad input returns 0 with one line "<where>: '<s>': ..." in
 * err, naming the item and its number; @p where is "--logits" or
 * "--logits-file: 'FILE' line N". */
int cli_logits_parse_row(const char *where, const char *s, double *out, size_t *n, char *err,
                         size_t errlen);

/* The multiplier of a row of @p n keys at scale @p c: logn is SSMax's
 * s ln n (Nakanishi 2025), s the base in c->value; the others are
 * c->value. */
double cli_logits_row_scale(const cli_scale_choice *c, size_t n);

/* Whether the row z[0 .. n) (named @p row, e.g. "--logits '1,2'") times
 * its multiplier at scale @p c stays within CLI_SCALED_LOGIT_ABS_MAX; if
 * not, 0 and one line "--scale: 'C' is too large for ROW (...)" in err. */
int cli_logits_scaled_ok(const cli_scale_choice *c, const double *z, size_t n, const char *row,
                         char *err, size_t errlen);

/* With --logits or --logits-file (validate.c, after the rule table):
 * --dk (one value) and --scale resolved into opt->logit_scale (default:
 * none, and sqrt with --dk; sqrt and dk need --dk), the --logits rows
 * parsed into opt->logit_rows (allocated here, freed by cli_options_free)
 * and --upstream, their lengths matched; with --format gnuplot, --output
 * checked (cli_plot_check). 0 and one line in err when they do not fit,
 * with nothing allocated. */
int cli_logits_validate(cli_options *opt, char *err, size_t errlen);

#endif
