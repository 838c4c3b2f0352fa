/* The engine's check of a strided source (strided_check.c), the rules of
 * sv_strided_check over trials [first, first + count). Internal. */
#ifndef SDPA_VAR_STRIDED_CHECK_H
#define SDPA_VAR_STRIDED_CHECK_H

#include <stdint.h>

#include "sdpa_var/source.h"

/* sv_strided_check's rules for trials [first, first + count) (spec NULL:
 * the arrays among themselves); why NULL or set. */
sv_status sv__strided_check(const sv_strided *a, const sv_spec *spec, uint64_t first,
                            uint64_t count, sv_strided_why *why);

#endif
