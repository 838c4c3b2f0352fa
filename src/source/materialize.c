/* sv_source_materialize (source.h): the rows of one trial as the engine
 * reads them, for the callers that show them. */
#include <stdint.h>

#include "alloc.h"
#include "sdpa_var/source.h"

sv_status sv_source_materialize(const sv_source *src, const sv_spec *spec, uint64_t trial,
                                sv_matrix which, size_t row0, size_t count, double *out, size_t ld)
{
    if (!src || !spec || !out || !src->rows)
        return SV_EINVAL;
    size_t rows, cols;
    switch (which) {
    case SV_MATRIX_Q:
        rows = spec->n_q, cols = spec->d_k;
        break;
    case SV_MATRIX_K:
        rows = spec->n_k, cols = spec->d_k;
        break;
    case SV_MATRIX_V:
        rows = spec->values ? spec->n_k : 0, cols = spec->d_v;
        break;
    case SV_MATRIX_G:
        rows = spec->grad ? spec->n_q : 0, cols = spec->d_v;
        break;
    default:
        return SV_EINVAL;
    }
    if (rows == 0 || row0 > rows || count > rows - row0 || ld < cols || cols == 0)
        return SV_EINVAL;
    if (src->check) {
        const sv_status st = src->check(src, spec, trial, 1);
        if (st != SV_OK)
            return st;
    }
    /* one more double each: a zero-length state or scratch is still a block */
    double *state = sv__calloc(src->trial_len + 1, sizeof(double));
    double *scratch = sv__calloc(src->scratch_len + 1, sizeof(double));
    if (!state || !scratch) {
        sv__free(state);
        sv__free(scratch);
        return SV_ENOMEM;
    }
    if (src->trial_len > 0 && src->begin_trial)
        src->begin_trial(src, trial, state);
    for (size_t i = 0; i < count; i++) /* row by row: each row its own stream */
        src->rows(src, state, trial, which, row0 + i, 1, out + i * ld, cols, scratch);
    sv__free(state);
    sv__free(scratch);
    return SV_OK;
}
