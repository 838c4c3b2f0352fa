/* What both tensor-file harnesses check after a parse (fuzz_npy.c,
 * fuzz_safetensors.c): on an error, a non-empty printable why line and
 * *out untouched; on success, a well-formed array whose every element lies
 * inside the input. Each element is read byte by byte through the
 * returned strides: the input is libFuzzer's exact-size buffer, so ASan
 * stops any element past its end. */
#ifndef SDPA_VAR_FUZZ_TENSOR_H
#define SDPA_VAR_FUZZ_TENSOR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/sdpa_var.h"

static void fuzz_check_result(sv_status st, const sv_array *a, const sv_array *before,
                              const char *why)
{
    const size_t n = strlen(why);
    for (size_t k = 0; k < n; k++)
        if (why[k] < 0x20 || why[k] > 0x7e) {
            fprintf(stderr, "why line has byte 0x%02x: %s\n", (unsigned char)why[k], why);
            abort();
        }
    if (st != SV_OK) {
        if (n == 0 || memcmp(a, before, sizeof *a) != 0) {
            fprintf(stderr, "status %d: %s why, output %s\n", (int)st, n ? "a" : "no",
                    memcmp(a, before, sizeof *a) ? "written" : "untouched");
            abort();
        }
        return;
    }
    if (a->ndim < 2 || a->ndim > SV_ARRAY_MAX_DIMS || (unsigned)a->dtype >= SV_DTYPES) {
        fprintf(stderr, "ndim %d dtype %d\n", a->ndim, (int)a->dtype);
        abort();
    }
    const size_t es = a->dtype == SV_DTYPE_FLOAT64   ? 8
                      : a->dtype == SV_DTYPE_FLOAT32 ? 4
                      : a->dtype == SV_DTYPE_BOOL    ? 1
                                                     : 2;
    size_t idx[SV_ARRAY_MAX_DIMS] = {0};
    volatile unsigned sum = 0;
    for (;;) {
        const unsigned char *p = a->data;
        for (int d = 0; d < a->ndim; d++)
            p += (ptrdiff_t)idx[d] * a->strides[d];
        for (size_t b = 0; b < es; b++)
            sum += p[b];
        int d = a->ndim - 1;
        while (d >= 0 && ++idx[d] == a->shape[d])
            idx[d--] = 0;
        if (d < 0)
            break;
    }
    (void)sum;
    size_t where[SV_ARRAY_MAX_DIMS];
    (void)sv_array_find_nonfinite(a, where);
}

#endif
