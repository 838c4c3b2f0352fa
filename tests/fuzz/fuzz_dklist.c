/* libFuzzer harness: sv_dklist_parse against a reference parser written here
 * from the grammar in dklist.h, independently of src/core/dklist.c. Both must
 * agree on the status and, on success, on every value in order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/dklist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One decimal number at s[*i..]: SV_ERANGE if it exceeds SIZE_MAX, compared
 * as a digit string (no arithmetic that could overflow); SV_EINVAL if it is
 * zero or has no digits. */
static sv_status ref_number(const char *s, size_t *i, size_t *value)
{
    size_t start = *i, end = *i;
    while (s[end] >= '0' && s[end] <= '9')
        end++;
    if (end == start)
        return SV_EINVAL;
    *i = end;
    while (start < end - 1 && s[start] == '0')
        start++;
    char max[32];
    snprintf(max, sizeof max, "%zu", (size_t)SIZE_MAX);
    const size_t len = end - start, maxlen = strlen(max);
    if (len > maxlen || (len == maxlen && strncmp(s + start, max, len) > 0))
        return SV_ERANGE;
    size_t v = 0;
    for (size_t k = start; k < end; k++)
        v = v * 10u + (size_t)(s[k] - '0');
    if (v == 0)
        return SV_EINVAL;
    *value = v;
    return SV_OK;
}

/* item := number | number ':' number ; list := item (',' item)*
 * The first error from the left wins, as dklist.h promises. */
static sv_status ref_parse(const char *s, size_t out[SV_DKLIST_MAX], size_t *count)
{
    size_t i = 0, n = 0;
    for (;;) {
        size_t a, b;
        sv_status st = ref_number(s, &i, &a);
        if (st != SV_OK)
            return st;
        b = a;
        const int range = s[i] == ':';
        if (range) {
            i++;
            if ((st = ref_number(s, &i, &b)) != SV_OK)
                return st;
            if (a > b)
                return SV_EINVAL;
        }
        /* A, 2A, 4A, ... <= B, then B if doubling missed it; in 128-bit
         * arithmetic (clang and gcc) so the doubling cannot wrap. */
        unsigned __int128 v = a;
        for (; v <= b; v *= 2) {
            if (n == SV_DKLIST_MAX)
                return SV_ETOOBIG;
            out[n++] = (size_t)v;
            if (!range)
                break;
        }
        if (range && v / 2 != b) {
            if (n == SV_DKLIST_MAX)
                return SV_ETOOBIG;
            out[n++] = b;
        }
        if (s[i] == '\0') {
            *count = n;
            return SV_OK;
        }
        if (s[i] != ',')
            return SV_EINVAL;
        i++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* the parser sees a C string: stop at the first NUL */

    size_t got[SV_DKLIST_MAX], want[SV_DKLIST_MAX];
    size_t n_got = 12345, n_want = 0;
    got[0] = 777;
    const sv_status st_got = sv_dklist_parse(text, got, &n_got);
    const sv_status st_want = ref_parse(text, want, &n_want);
    if (st_got != st_want) {
        fprintf(stderr, "dklist '%s': status %d, reference %d\n", text, (int)st_got, (int)st_want);
        abort();
    }
    if (st_got != SV_OK) {
        if (n_got != 12345 || got[0] != 777) { /* "untouched after an error" */
            fprintf(stderr, "dklist '%s': outputs written on error\n", text);
            abort();
        }
    } else if (n_got != n_want || memcmp(got, want, n_got * sizeof got[0]) != 0) {
        fprintf(stderr, "dklist '%s': %zu values, reference %zu\n", text, n_got, n_want);
        abort();
    }
    free(text);
    return 0;
}
