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

#endif
