/**
 * @file dklist.h
 * The --dk list syntax: comma-separated items, each a positive integer D or
 * a doubling range A:B meaning A, 2A, 4A, ... up to B (B itself only if it
 * is reached). "1,2,8,64,512" and "1:1024" (= 1,2,4,...,1024) and
 * "3:24,100" (= 3,6,12,24,100) are valid.
 */
#ifndef SDPA_VAR_DKLIST_H
#define SDPA_VAR_DKLIST_H

#include <stddef.h>

#include "sdpa_var/status.h"

/** Longest list accepted; a doubling range has at most 64 values. */
#define SV_DKLIST_MAX 256

/**
 * Parses @p text into out[0 .. *count - 1] in the order written.
 *
 * Digits only (no sign, no spaces); each value in [1, SIZE_MAX].
 * @return SV_OK; SV_EINVAL for an empty item, a non-digit, a zero, A > B, or
 *         more than SV_DKLIST_MAX values; SV_ERANGE for a value that
 *         overflows size_t. After an error *count and out are untouched.
 */
sv_status sv_dklist_parse(const char *text, size_t out[SV_DKLIST_MAX], size_t *count);

#endif
