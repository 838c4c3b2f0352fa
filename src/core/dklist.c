#include "sdpa_var/dklist.h"

#include <stdint.h>

/* Reads digits at *p into *value; stops at the first non-digit. */
static sv_status parse_value(const char **p, size_t *value)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return SV_EINVAL;
    size_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        const size_t digit = (size_t)(*s - '0');
        if (v > (SIZE_MAX - digit) / 10u)
            return SV_ERANGE;
        v = v * 10u + digit;
    }
    if (v == 0)
        return SV_EINVAL;
    *value = v;
    *p = s;
    return SV_OK;
}

sv_status sv_dklist_parse(const char *text, size_t out[SV_DKLIST_MAX], size_t *count)
{
    if (!text || !out || !count)
        return SV_EINVAL;
    size_t tmp[SV_DKLIST_MAX];
    size_t n = 0;
    const char *p = text;
    for (;;) {
        size_t a, b;
        sv_status st = parse_value(&p, &a);
        if (st != SV_OK)
            return st;
        b = a;
        const int range = (*p == ':');
        if (range) {
            p++;
            if ((st = parse_value(&p, &b)) != SV_OK)
                return st;
            if (a > b)
                return SV_EINVAL;
        }
        /* A, 2A, 4A, ... while <= B, then B itself if doubling missed it. */
        for (size_t v = a;;) {
            if (n == SV_DKLIST_MAX)
                return SV_ETOOBIG;
            tmp[n++] = v;
            if (v == b)
                break;
            v = v > b / 2u ? b : 2u * v;
        }
        if (*p == '\0')
            break;
        if (*p != ',')
            return SV_EINVAL;
        p++;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[i];
    *count = n;
    return SV_OK;
}
