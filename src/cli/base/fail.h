/* One-line error messages of the CLI (fail.c): below every other part of
 * src/cli/. */
#ifndef SDPA_VAR_CLI_FAIL_H
#define SDPA_VAR_CLI_FAIL_H

#include <stddef.h>

#include "sdpa_var/param.h" /* sv_quote */

/* The program's name, written once: every message starts with it, and the
 * JSON documents name their tool by it. */
#define CLI_PROG "sdpa-var"

/* Writes "fmt ..." into err; returns 0, for `return cli_fail(...)`. */
int cli_fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Writes "sdpa-var: fmt ...\n" on stderr, on a line of its own (the
 * progress line erased first: interrupt.h); returns @p status, for
 * `return cli_error(CLI_EXIT_RUNTIME, ...)` or `ok = cli_error(0, ...)`. */
int cli_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The library's echo (sv_quote): one way to show a value in a message,
 * s into dst as one printable line. Returns dst. */
#define cli_quote(dst, dstlen, s) sv_quote(dst, dstlen, s)

/* What stdout is, for "error writing %s: ...": "output", or after
 * cli_output_name_set(path) the path quoted ('FILE'): --output. */
const char *cli_output_name(void);
void cli_output_name_set(const char *path);

#endif
