/* sv_source_materialize and sv_source_logits (source.h): the rows of one
 * trial as the engine reads them, for the callers that show them. */
#include <stdint.h>

#include "alloc.h"
#include "sdpa_var/source.h"

/* Trial @p trial of @p src begun: its state and the scratch src->rows
 * takes, both to sv__free (NULL after an error). */
static sv_status trial_begin(const sv_source *src, const sv_spec *spec, uint64_t trial,
                             double **state, double **scratch)
{
    *state = *scratch = NULL;
    if (src->check) {
        const sv_status st = src->check(src, spec, trial, 1);
        if (st != SV_OK)
            return st;
    }
    /* one more double each: a zero-length state or scratch is still a block */
    *state = sv__calloc(src->trial_len + 1, sizeof(double));
    *scratch = sv__calloc(src->scratch_len + 1, sizeof(double));
    if (!*state || !*scratch) {
        sv__free(*state);
        sv__free(*scratch);
        *state = *scratch = NULL;
        return SV_ENOMEM;
    }
    if (src->trial_len > 0 && src->begin_trial)
        src->begin_trial(src, trial, *state);
    return SV_OK;
}

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
    double *state, *scratch;
    const sv_status st = trial_begin(src, spec, trial, &state, &scratch);
    if (st != SV_OK)
        return st;
    for (size_t i = 0; i < count; i++) /* row by row: each row its own stream */
        src->rows(src, state, trial, which, row0 + i, 1, out + i * ld, cols, scratch);
    sv__free(state);
    sv__free(scratch);
    return SV_OK;
}

sv_status sv_source_logits(const sv_source *src, const sv_spec *spec, uint64_t trial, size_t query,
                           size_t n, double *logits)
{
    if (!src || !spec || !logits || !src->rows || query >= spec->n_q || n > spec->n_k ||
        spec->d_k == 0)
        return SV_EINVAL;
    const size_t dk = spec->d_k;
    double *qk = sv__calloc(2 * dk, sizeof(double)), *state = NULL, *scratch = NULL;
    const sv_status st = qk ? trial_begin(src, spec, trial, &state, &scratch) : SV_ENOMEM;
    if (st != SV_OK) {
        sv__free(qk);
        return st;
    }
    src->rows(src, state, trial, SV_MATRIX_Q, query, 1, qk, dk, scratch);
    for (size_t j = 0; j < n; j++) { /* a key at a time: no n x d_k copy */
        src->rows(src, state, trial, SV_MATRIX_K, j, 1, qk + dk, dk, scratch);
        double dot = 0.0;
        for (size_t l = 0; l < dk; l++)
            dot += qk[l] * qk[dk + l];
        logits[j] = dot;
    }
    sv__free(qk);
    sv__free(state);
    sv__free(scratch);
    return SV_OK;
}
