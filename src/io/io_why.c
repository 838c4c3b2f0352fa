/* The why line of the tensor-file parsers (io_why.h). */
#include "io_why.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void sv__io_why(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    if (n < 0)
        why[0] = '\0';
}

void sv__io_quote(char *dst, size_t cap, const void *src, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = src;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char e[4];
        size_t k = 0;
        const unsigned char c = s[i];
        if (c == '\\') {
            e[k++] = '\\';
            e[k++] = (char)c;
        } else if (c < 0x20 || c > 0x7e) {
            e[k++] = '\\';
            e[k++] = 'x';
            e[k++] = hex[c >> 4];
            e[k++] = hex[c & 15u];
        } else {
            e[k++] = (char)c;
        }
        /* keep room for "..." and the NUL unless this is the last byte */
        const size_t room = i + 1 == n ? cap - 1 : cap - 4;
        if (o + k > room) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        memcpy(dst + o, e, k);
        o += k;
    }
    dst[o] = '\0';
}

int sv__io_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}
