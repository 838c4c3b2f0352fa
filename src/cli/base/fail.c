/* The CLI's one-line messages: every layer of src/cli/ reports through
 * these, so they sit below all of them. */
#include "fail.h"

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

/* Longest echo of a value before it is cut with "...": with the option's
 * name and the reason, a message stays one terminal line or two. */
#define CLI_QUOTE_SHOWN 60

char *cli_quote(char *dst, size_t dstlen, const char *s)
{
    size_t n = 0, shown = 0;
    const size_t room = dstlen - 4; /* "..." and the NUL */
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        char one[5];
        if (c == '\n' || c == '\t' || c == '\r' || c == '\\')
            snprintf(one, sizeof one, "\\%c",
                     c == '\n'   ? 'n'
                     : c == '\t' ? 't'
                     : c == '\r' ? 'r'
                                 : '\\');
        else if (c < 0x20 || c > 0x7e)
            snprintf(one, sizeof one, "\\x%02x", c);
        else
            one[0] = (char)c, one[1] = '\0';
        const size_t len = strlen(one);
        if (shown + len > CLI_QUOTE_SHOWN || n + len > room) {
            memcpy(dst + n, "...", 4);
            return dst;
        }
        memcpy(dst + n, one, len);
        n += len;
        shown += len;
    }
    dst[n] = '\0';
    return dst;
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
