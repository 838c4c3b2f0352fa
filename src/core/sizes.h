/* Overflow-checked size arithmetic, shared by the engine's files. */
#ifndef SDPA_VAR_SIZES_H
#define SDPA_VAR_SIZES_H

#include <stddef.h>
#include <stdint.h>

/* a * b into *out, or 0 (and *out untouched) on overflow. */
static inline int mul_ok(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return 0;
    *out = a * b;
    return 1;
}

/* a + b into *out, or 0 (and *out untouched) on overflow. */
static inline int add_ok(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b)
        return 0;
    *out = a + b;
    return 1;
}

/* a * b into *out in 64 bits, or 0 (and *out untouched) on overflow: for
 * counts, such as the n_q n_k scores of a trial, that are never a size in
 * memory and must not be refused where size_t has 32 bits (WebAssembly's
 * n_q = n_k = 65 536 has 2^32 scores). */
static inline int mul64_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b != 0 && a > UINT64_MAX / b)
        return 0;
    *out = a * b;
    return 1;
}

#endif
