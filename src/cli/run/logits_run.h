/* --logits and --logits-file: each given row at each scale through the
 * library's sv_softmax_row_report, written whole (write_logits.h). */
#ifndef SDPA_VAR_CLI_LOGITS_RUN_H
#define SDPA_VAR_CLI_LOGITS_RUN_H

#include "options.h"

/* Reads --logits-file (if given), computes and writes every row in
 * @p format (not CLI_FORMAT_AUTO) to stdout, all at once at the end.
 * @return the exit status: CLI_EXIT_RUNTIME with one line on stderr for an
 * unreadable file, a bad line of it (file, line number and value), a row
 * whose length differs from --upstream's, or a failed write; nothing is
 * written then. */
int cli_logits_run(const cli_options *opt, cli_format format);

#endif
