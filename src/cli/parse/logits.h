/* --logits, --logits-file and --upstream: rows of numbers as a slide
 * shows them ("-20, 3, 25, -15"), parsed strictly (logits.c). */
#ifndef SDPA_VAR_CLI_LOGITS_H
#define SDPA_VAR_CLI_LOGITS_H

#include <stddef.h>

#include "options.h"

/* Largest |logit|: differences of two stay finite. (The counts' limits,
 * CLI_LOGITS_KEYS_MAX and CLI_LOGITS_ROWS_MAX, are options.h's.) */
#define CLI_LOGIT_ABS_MAX 1e300

/* Parses @p s, a comma list of plain decimal numbers (blanks around an
 * item allowed), into out[0 .. *n), at most CLI_LOGITS_KEYS_MAX of them.
 * (CLI_LOGITS_KEYS_MAX, options.h). On bad input returns 0 with one line "<where>: '<s>': ..." in
 * err, naming the item and its number; @p where is "--logits" or
 * "--logits-file: 'FILE' line N". */
int cli_logits_parse_row(const char *where, const char *s, double *out, size_t *n, char *err,
                         size_t errlen);

/* With --logits or --logits-file (validate.c, after the rule table):
 * --dk (one value) and --scale resolved into opt->logit_scale (default:
 * none, and sqrt with --dk; sqrt and dk need --dk), the --logits rows and
 * --upstream parsed and their lengths matched. 0 and one line in err when
 * they do not fit. */
int cli_logits_validate(cli_options *opt, char *err, size_t errlen);

#endif
