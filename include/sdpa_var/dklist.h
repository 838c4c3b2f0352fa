/**
 * @file dklist.h
 * The --dk list syntax: comma-separated items, each a positive integer D or
 * a doubling range A:B meaning A, 2A, 4A, ... up to B, and B itself when
 * doubling misses it. "1,2,8,64,512", "1:1024" (= 1,2,4,...,1024),
 * "1:1000" (= 1,2,4,...,512,1000) and "3:24,100" (= 3,6,12,24,100) are
 * valid.
 *
 * Cost, every function here: one pass over the text, O(its length).
 */
#ifndef SDPA_VAR_DKLIST_H
#define SDPA_VAR_DKLIST_H

#ifndef SDPA_VAR_ADVANCED
#error "sdpa_var/dklist.h: define SDPA_VAR_ADVANCED first (advanced API, sdpa_var.h)"
#endif

#include <stddef.h>

#include "sdpa_var/status.h"

/** Longest list accepted; a doubling range has at most 65 values. */
#define SV_DKLIST_MAX 256

/**
 * Parses @p text into out[0 .. *count - 1] in the order written.
 *
 * Digits only (no sign, no spaces); each value in [1, SIZE_MAX].
 * @return SV_OK; SV_EINVAL for an empty item, a non-digit, a zero or
 *         A > B; SV_ERANGE for a value that overflows size_t; SV_ETOOBIG
 *         for more than SV_DKLIST_MAX values in all. The first error from
 *         the left is reported. After an error *count and out are
 *         untouched. Thread-safe; cost linear in the length of @p text.
 */
sv_status sv_dklist_parse(const char *text, size_t out[SV_DKLIST_MAX], size_t *count);

#endif
