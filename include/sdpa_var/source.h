/**
 * @file source.h
 * Where the rows of Q, K and V come from. The engine asks a source for rows
 * row0 .. row0 + m - 1 of one matrix of one trial, into a tile of its own;
 * it never knows whether they are drawn (sv_source_draw: the random
 * experiment of a spec) or read from a caller's arrays (sv_source_strided:
 * what numpy and torch hand over). Files, Python and MPI ranks plug in here.
 */
#ifndef SDPA_VAR_SOURCE_H
#define SDPA_VAR_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/rng.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"

typedef struct sv_source sv_source;

/**
 * A source of rows. A struct of plain values and three functions; the
 * engine calls them from several threads at once, so rows() must be
 * re-entrant: it may write only x and scratch.
 */
struct sv_source {
    const void *impl;    /**< the source's own data (read-only) */
    size_t trial_len;    /**< doubles of per-trial state begin_trial fills
                              (W_Q and W_K of the draw source); may be 0 */
    size_t scratch_len;  /**< doubles of scratch rows() may use; may be 0 */
    int related_diag;    /**< key i shares something with query i (planted
                              key, same token): the engine measures S_ii */
    int measure_entries; /**< the engine measures the variance of Q's and K's
                              entries (q_var, k_var); else they are NAN */
    /**
     * Checks that the source can serve trials [first, first + count) of
     * @p spec (shapes, trial range, data types).
     * @return SV_OK; SV_EMISMATCH for a shape or trial range that does not
     *         match; SV_EFORMAT for a layout it cannot read.
     */
    sv_status (*check)(const sv_source *src, const sv_spec *spec, uint64_t first, uint64_t count);
    /** Fills the per-trial state (trial_len doubles) of @p trial; NULL if
     *  trial_len is 0. Called once per trial before its rows. */
    void (*begin_trial)(const sv_source *src, uint64_t trial, double *state);
    /**
     * Rows row0 .. row0 + m - 1 of matrix @p which (SV_MATRIX_Q: n_q x d_k,
     * SV_MATRIX_K: n_k x d_k, SV_MATRIX_V: n_k x d_v, SV_MATRIX_G: n_q x d_v
     * with spec->grad) of @p trial into x,
     * row i at x + i ld (ld >= the row's columns). @p state is what
     * begin_trial filled for this trial. Re-entrant.
     */
    void (*rows)(const sv_source *src, const double *state, uint64_t trial, sv_matrix which,
                 size_t row0, size_t m, double *x, size_t ld, double *scratch);
};

/**
 * The random draws of @p spec (resolved): each row of Q, K, V, X, X' and
 * W from its own PCG stream (rng.h), entries of spec->dist, then means and
 * stds, planted keys, projections and QK-norm as spec.h describes.
 * @p spec is kept by pointer and must outlive the source.
 * @return SV_OK; SV_EINVAL for NULL arguments.
 */
sv_status sv_source_draw(const sv_spec *spec, sv_source *src);

/** Element type of a caller's array. */
typedef enum sv_dtype {
    SV_DTYPE_FLOAT64 = 0, /**< IEEE double (numpy float64, torch.float64) */
    SV_DTYPE_FLOAT32 = 1  /**< IEEE single (numpy float32, torch.float32): widened exactly */
} sv_dtype;

/**
 * A caller's array as numpy's __array_interface__ or torch's data_ptr(),
 * shape() and stride() describe it: element (t, i, l) of a 3-D array
 * (trials x rows x cols) is at data + t strides[0] + i strides[1] +
 * l strides[2] bytes; a 2-D array (rows x cols; ndim 2, shape[0] and
 * strides[0] unused) is one trial. Strides are in BYTES (numpy's unit;
 * torch counts elements: multiply by the element size), any sign, not
 * necessarily contiguous (a transposed view works). Must stay valid and
 * unchanged while the engine runs.
 */
typedef struct sv_array {
    const void *data;
    sv_dtype dtype;
    int ndim;             /**< 2 or 3 */
    size_t shape[3];      /**< [trials,] rows, cols */
    ptrdiff_t strides[3]; /**< bytes per step along each axis */
} sv_array;

/** The arrays a strided source reads; v.data NULL when spec->values is 0,
 *  g.data NULL when spec->grad is 0. */
typedef struct sv_strided {
    sv_array q; /**< n_q x d_k per trial */
    sv_array k; /**< n_k x d_k per trial */
    sv_array v; /**< n_k x d_v per trial, or data NULL */
    sv_array g; /**< n_q x d_v per trial: the upstream gradient dL/dO of
                     spec->grad (SV_MATRIX_G), or data NULL */
} sv_strided;

/**
 * A source reading rows of Q, K (and V) from caller arrays; trial t reads
 * index t of a 3-D array (trials [first, first + count) need
 * first + count <= shape[0]); a 2-D array serves trial 0 only. q_var and
 * k_var are measured; S_ii is not singled out (related_diag 0).
 * @p arrays is kept by pointer and must outlive the source. The spec's
 * draw fields (seed, dist, means, QK-norm, plant, d_model) do not apply:
 * check() rejects a spec with plant, qk_norm or d_model (SV_EMISMATCH),
 * since it would describe rows the arrays do not hold; it also reads every
 * entry of the trials' slices once and returns SV_EINVAL for a NaN or an
 * infinity, SV_EOVERFLOW when d_k max|q| max|k| (or that times
 * spec->scale) exceeds SV_SCORE_MAX, as for drawn entries.
 * @return SV_OK; SV_EINVAL for NULL arguments; SV_EFORMAT for a dtype out
 *         of range, ndim other than 2 or 3, or a NULL q or k.
 */
sv_status sv_source_strided(const sv_strided *arrays, sv_source *src);

#endif
