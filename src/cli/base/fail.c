/* The CLI's one-line messages: every layer of src/cli/ reports through
 * these, so they sit below all of them. */
#include "fail.h"
#include "interrupt.h"

#include "sdpa_var/param.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cli_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 0;
}

int cli_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_interrupt_progress_erase(); /* the message on a line of its own */
    fputs(CLI_PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return status;
}

/* stdout's name in "error writing ...": set once, by --output. */
static char output_name[96] = "output";

void cli_output_name_set(const char *path)
{
    char q[80];
    snprintf(output_name, sizeof output_name, "'%s'", cli_quote(q, sizeof q, path));
}

const char *cli_output_name(void)
{
    return output_name;
}
