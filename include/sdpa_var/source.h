/**
 * @file source.h
 * Where the rows of Q, K and V come from. The engine asks a source for rows
 * row0 .. row0 + m - 1 of one matrix of one trial, into a tile of its own;
 * it never knows whether they are drawn (sv_source_draw: the random
 * experiment of a spec) or read from a caller's arrays (sv_source_strided:
 * what numpy and torch hand over). Files, Python and MPI ranks plug in here.
 *
 * Thread safety, every function here unless its docstring says: re-entrant;
 * a source is read by the engine's threads at once, never written after
 * it is made.
 * Cost, every function here unless its docstring says: O(1); making a
 * source copies and allocates no array (the rows are made or read as the
 * engine asks for them).
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
                              entries (q_var, k_var); else they are NAN.
                              Every built-in source sets it */
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
    /**
     * NULL: no mask beyond the spec's causal flag and window. Else the
     * additive mask of query row @p row against keys col0 .. col0 + n - 1
     * of @p trial into x[0 .. n-1], on the SCALED logits: 0 where the key
     * is seen as is, -INFINITY where it is excluded, else a finite value M
     * the model adds after scaling (the engine's raw logit is then
     * S + M / scale, so that scaled = scale * raw holds). Applied within
     * the keys the spec's causal flag and window leave. Re-entrant.
     */
    void (*mask)(const sv_source *src, uint64_t trial, size_t row, size_t col0, size_t n,
                 double *x);
};

/**
 * The random draws of @p spec (resolved): each row of Q, K, V, X, X' and
 * W from its own PCG stream (rng.h), entries of spec->dist, then means and
 * stds, planted keys, projections and QK-norm as spec.h describes.
 * @p spec is kept by pointer and must outlive the source.
 * @return SV_OK; SV_EINVAL for NULL arguments.
 */
sv_status sv_source_draw(const sv_spec *spec, sv_source *src);

/** Element type of a caller's array. Values pinned: appended, never renumbered. */
typedef enum sv_dtype {
    SV_DTYPE_FLOAT64 = 0,  /**< IEEE double (numpy float64, torch.float64, safetensors F64) */
    SV_DTYPE_FLOAT32 = 1,  /**< IEEE single (float32, F32): widened exactly */
    SV_DTYPE_FLOAT16 = 2,  /**< IEEE half (float16, F16): widened exactly, subnormals too */
    SV_DTYPE_BFLOAT16 = 3, /**< bfloat16 (torch.bfloat16, safetensors BF16): the high 16
                               bits of a float32, widened exactly */
    SV_DTYPE_BOOL = 4      /**< one byte, nonzero = true (numpy bool, torch.bool): masks
                                only (sv_strided.mask), never Q, K, V or G */
} sv_dtype;

/** Number of sv_dtype values. */
#define SV_DTYPES 5

/** Most dimensions an sv_array has: batch x heads x rows x cols. */
#define SV_ARRAY_MAX_DIMS 4

/**
 * A caller's array as numpy's __array_interface__, torch's data_ptr(),
 * shape() and stride(), or a tensor file (sv_npy_parse,
 * sv_safetensors_parse) describe it, in numpy's order: shape[0 .. ndim-1]
 * and strides[0 .. ndim-1], the last two axes rows x cols (positions x
 * d_k or d_v). ndim 2: rows x cols, one head; ndim 3: heads x rows x cols;
 * ndim 4: batch x heads x rows x cols (PyTorch's SDPA layout; a caller
 * with batch x rows x heads x cols, --layout bnhd, swaps axes 1 and 2 of
 * shape and strides first). Element (b, h, i, l) of a 4-D array is at
 * data + b strides[0] + h strides[1] + i strides[2] + l strides[3] bytes.
 * Strides are in BYTES (numpy's unit; torch counts elements: multiply by
 * the element size), any sign, not necessarily contiguous (a transposed
 * view, Fortran order). Elements need no alignment. With byte_swapped
 * nonzero each element is stored in the byte order opposite to this
 * machine's (numpy '>f4' on x86). Entries past ndim are ignored. Must stay
 * valid and unchanged while the engine runs.
 */
typedef struct sv_array {
    const void *data;
    sv_dtype dtype;
    int byte_swapped;                     /**< 0: native byte order */
    int ndim;                             /**< 2, 3 or 4 */
    size_t shape[SV_ARRAY_MAX_DIMS];      /**< elements along each axis */
    ptrdiff_t strides[SV_ARRAY_MAX_DIMS]; /**< bytes per step along each axis */
} sv_array;

/**
 * The first entry of @p a that is not finite (NaN or an infinity), in
 * row-major order of its indices, for the message that names it.
 * @param index NULL, or SV_ARRAY_MAX_DIMS entries: the entry's indices
 *        (the first a->ndim are set) when one is found.
 * @return 1 if a non-finite entry was found, 0 if every entry is finite or
 *         a is NULL or malformed (ndim out of 2..4, data NULL, dtype out of
 *         range). Reads every entry once: O(product of shape).
 */
int sv_array_find_nonfinite(const sv_array *a, size_t *index);

/**
 * The largest |entry| of @p a (a bool array's entries are 0 and 1), for
 * the bound of sv_entry_bound.
 * @return the maximum; NAN if an entry is NaN; -1 for a NULL or malformed
 *         array (ndim out of 2..4, data NULL, dtype out of range).
 * Thread safety: thread-safe. Cost: reads every entry once. Source: none.
 */
double sv_array_max_abs(const sv_array *a);

/**
 * The largest |M| over the entries of mask @p a (sv_strided.mask) that do
 * not exclude their key: 0 for a bool mask; for a float one, over the
 * finite entries above the dtype's lowest value. The engine refuses a mask
 * whose value over the scale passes SV_SCORE_MAX (raw logits S + M / c).
 * @return the maximum; NAN if an entry is NaN or +inf; -1 for a NULL or
 *         malformed array.
 * Thread safety: thread-safe. Cost: reads every entry once. Source: none.
 */
double sv_mask_max_abs(const sv_array *a);

/**
 * The largest entry magnitude m for which the engine's sums of squares
 * over @p n entries stay finite: sqrt(DBL_MAX / (4 n)) (a two-pass or
 * merged M2 adds n squared deviations, each at most (2 m)^2). q_var sums
 * n_q d_k squares of Q's entries, k_var n_k d_k of K's, and the output
 * variances n_q d_v squares of outputs bounded by max |V|: a caller's
 * array past this bound would give inf for a finite input, so
 * sv_source_strided's check() refuses it (SV_EOVERFLOW).
 * @return the bound; DBL_MAX's square root over 2 for n 0.
 * Thread safety: thread-safe. Cost: O(1). Source: none.
 */
double sv_entry_bound(size_t n);

/** The arrays a strided source reads; v.data NULL when spec->values is 0,
 *  g.data NULL when spec->grad is 0. */
typedef struct sv_strided {
    sv_array q; /**< [batch x] [heads_q x] n_q x d_k */
    sv_array k; /**< [batch x] [heads_kv x] n_k x d_k */
    sv_array v; /**< [batch x] [heads_kv x] n_k x d_v, or data NULL */
    sv_array g; /**< [batch x] [heads_q x] n_q x d_v: the upstream gradient
                     dL/dO of spec->grad (SV_MATRIX_G), or data NULL */
    /** [batch|1 x] [heads_q|1 x] n_q|1 x n_k|1, or data NULL: an attention
     *  mask as PyTorch's SDPA attn_mask, a size-1 axis broadcast (stride
     *  unread). SV_DTYPE_BOOL: true = attend. A float dtype: added to the
     *  scaled logits; -inf and the dtype's lowest finite value (HF's
     *  torch.finfo(dtype).min) exclude the key. Read a row at a time,
     *  never expanded. Not with spec->grad. */
    sv_array mask;
} sv_strided;

/** Where trial t of a strided source reads (sv_strided_head). */
typedef struct sv_head {
    size_t batch;   /**< index along Q's batch axis (0 below 4-D) */
    size_t head;    /**< Q's (and G's) head (0 for 2-D) */
    size_t kv_head; /**< K's and V's head: head / (heads_q / heads_kv) */
} sv_head;

/**
 * The trials a strided source serves and the mapping trial -> (batch,
 * head, kv_head): trial t = batch * heads_q + head, and query head h reads
 * key and value head h / (heads_q / heads_kv), as torch's
 * repeat_interleave(heads_q / heads_kv, dim=1) and Llama's repeat_kv
 * expand grouped-query (GQA) and multi-query (MQA, heads_kv 1) attention;
 * K and V are never expanded. A 2-D array has one batch and one head; a
 * 3-D array one batch.
 * @param trials NULL, or set to batch * heads_q.
 * @param head   NULL, or set to trial @p trial's indices (trial < *trials).
 * @return SV_OK; SV_EINVAL for arrays NULL; SV_EFORMAT as sv_source_strided;
 *         SV_EMISMATCH when Q's and K's (and V's, G's) batch sizes differ
 *         (a missing axis counts as 1), heads_q is not a multiple of
 *         heads_kv, V's heads differ from K's, G's from Q's, or trial is
 *         not below batch * heads_q.
 */
sv_status sv_strided_head(const sv_strided *arrays, uint64_t trial, uint64_t *trials,
                          sv_head *head);

/**
 * The sizes of @p spec that the arrays set: d_k (Q's last axis), n_q and
 * n_k (Q's and K's next-to-last), trials (batch * heads_q, as
 * sv_strided_head), and with V values = 1 and d_v (V's last axis), else
 * values = 0 and d_v = 0. Every other field is left as it was: set the
 * rest (scale, causal, ...), then sv_spec_resolve and sv_strided_check.
 * For callers that run arrays they did not size (the CLI's --q, --k).
 * @return SV_OK; the errors of sv_strided_head (spec untouched then);
 *         SV_EINVAL for spec NULL.
 */
sv_status sv_strided_sizes(const sv_strided *arrays, sv_spec *spec);

/** Axis order of a caller's 3-D and 4-D Q, K, V and G arrays. Values
 *  pinned: appended, never renumbered. */
typedef enum sv_layout {
    SV_LAYOUT_BHND = 0, /**< "bhnd": [batch x] heads x positions x d, PyTorch's SDPA
                             layout and what sv_strided reads */
    SV_LAYOUT_BNHD = 1  /**< "bnhd": [batch x] positions x heads x d, a projection's
                             view(batch, n, heads, d) before its transpose */
} sv_layout;

/** Number of sv_layout values. */
#define SV_LAYOUTS 2

/** The name of @p layout ("bhnd", "bnhd"); NULL for a value out of range.
 *  Static. */
const char *sv_layout_name(sv_layout layout);

/**
 * The layout named @p name, exactly as sv_layout_name spells it.
 * @return SV_OK; SV_EINVAL for NULL arguments or another name (*layout
 *         untouched).
 */
sv_status sv_layout_parse(const char *name, sv_layout *layout);

/**
 * Array @p a, laid out as @p layout, described as bhnd in place: for
 * SV_LAYOUT_BNHD the heads and positions axes swap, shape and strides
 * (axes 1 and 2 of a 4-D array, 0 and 1 of a 3-D one, n x heads x d);
 * a 2-D array has no heads axis and is unchanged. No entry moves. Not for
 * a mask, which is batch x heads x n_q x n_k whatever the layout.
 * @return SV_OK; SV_EINVAL for a NULL array, layout out of range or ndim
 *         out of 2..4 (a untouched).
 */
sv_status sv_array_to_bhnd(sv_array *a, sv_layout layout);

/** The arrays of an sv_strided, as sv_strided_why names them. Values pinned. */
typedef enum sv_tensor {
    SV_TENSOR_Q = 0,
    SV_TENSOR_K = 1,
    SV_TENSOR_V = 2,
    SV_TENSOR_G = 3,
    SV_TENSOR_MASK = 4
} sv_tensor;

/** Number of sv_tensor values. */
#define SV_TENSORS 5

/** Why caller arrays do not serve a spec: sv_strided_check's verdict. Values
 *  pinned: appended, never renumbered. got, want and the rest as sv_strided_why says. */
typedef enum sv_strided_problem {
    SV_STRIDED_FINE = 0,
    SV_STRIDED_FORMAT,     /**< tensor: data NULL where needed (ndim 0), ndim out of
                                2..4 (ndim), or got[0] a dtype out of range (SV_EFORMAT) */
    SV_STRIDED_BOOL,       /**< tensor (Q, K, V or G) is SV_DTYPE_BOOL (SV_EFORMAT) */
    SV_STRIDED_D_K,        /**< K's d_k got[0] differs from Q's want[0] */
    SV_STRIDED_BATCH,      /**< K's batch got[0] differs from Q's want[0] */
    SV_STRIDED_HEADS,      /**< K's got[0] heads do not divide Q's want[0] (GQA) */
    SV_STRIDED_GROUP,      /**< V's (G's) batch x heads got[0..1] differ from
                                other's (K's, Q's) want[0..1] */
    SV_STRIDED_ROWS,       /**< V's (G's) positions got[0] differ from other's
                                (K's, Q's) want[0] */
    SV_STRIDED_COLS,       /**< G's d_v got[0] differs from V's want[0] */
    SV_STRIDED_CAUSAL,     /**< spec->causal and Q's positions got[0] differ from K's
                                want[0] (causal needs n_q = n_k) */
    SV_STRIDED_DRAW,       /**< the spec draws its rows (plant, qk_norm or d_model) */
    SV_STRIDED_SPEC,       /**< tensor's rows x cols got[0..1] differ from the spec's
                                want[0..1] (n_q or n_k x d_k or d_v) */
    SV_STRIDED_MASK_AXIS,  /**< the mask's shape got[0 .. ndim-1] does not broadcast
                                to batch x heads_q x n_q x n_k, want[0..3] */
    SV_STRIDED_MASK_GRAD,  /**< a mask with spec->grad (the backward passes know the
                                causal mask only) */
    SV_STRIDED_NONFINITE,  /**< tensor's entry at index[0 .. ndim-1] is value (NaN, an
                                infinity; for a mask NaN or +inf) (SV_ENONFINITE) */
    SV_STRIDED_MAGNITUDE,  /**< tensor's largest |entry| value passes bound =
                                sv_entry_bound of the entries its variance sums
                                (got[0] of them) (SV_EOVERFLOW) */
    SV_STRIDED_SCORES,     /**< d_k max|q| max|k| = value, or that times scale, passes
                                bound = SV_SCORE_MAX (SV_EOVERFLOW) */
    SV_STRIDED_MASK_SCALE, /**< the mask's largest |M| value over scale passes bound =
                               SV_SCORE_MAX (SV_EOVERFLOW) */
    SV_STRIDED_DDOF        /**< the mask leaves trial (batch index[0], head index[1])
                               got[0] scores, 1 to want[0] = spec->ddof: its variance
                               would divide by got[0] - ddof <= 0 (SV_EINVAL) */
} sv_strided_problem;

/** Where caller arrays fail: what sv_strided_explain words, fields unused
 *  by a problem zero. Sizes are the arrays' as sv_strided holds them (bhnd,
 *  after sv_array_to_bhnd). */
typedef struct sv_strided_why {
    sv_strided_problem problem;
    sv_tensor tensor;                /**< the array blamed */
    sv_tensor other;                 /**< the array it is compared with */
    int ndim;                        /**< the blamed array's ndim */
    size_t got[SV_ARRAY_MAX_DIMS];   /**< sizes found (see sv_strided_problem) */
    size_t want[SV_ARRAY_MAX_DIMS];  /**< sizes expected */
    size_t index[SV_ARRAY_MAX_DIMS]; /**< NONFINITE: the entry's indices */
    double value;                    /**< the entry or magnitude found */
    double bound;                    /**< the bound it passes */
    double scale;                    /**< SCORES, MASK_SCALE: spec->scale */
} sv_strided_why;

/**
 * Checks that @p arrays can serve @p spec, and says why not.
 * With @p spec NULL: the arrays among themselves, reading no entry (O(1)):
 * Q and K present and every present array of 2..4 axes and a known dtype,
 * no bool Q, K, V or G; K's d_k and batch equal Q's and its heads divide
 * Q's (sv_strided_head's GQA rule); V's batch x heads and positions equal
 * K's; G's batch x heads and positions equal Q's, its d_v V's; the mask's
 * axes each 1 or batch, heads_q, n_q, n_k. With @p spec: also what the
 * engine's check of every trial (sv_source_strided) asks, in this order:
 * V with spec->values and G with spec->grad present; spec->causal only
 * with n_q = n_k; no draw fields (plant, qk_norm, d_model); Q, K, V, G of
 * the spec's sizes; no mask with spec->grad; then (spec->scale must be
 * positive and finite: resolved) every entry read once: no NaN or
 * infinity in Q, K, V, G, no NaN or +inf in a float mask, d_k max|q|
 * max|k| (and that times spec->scale) at most SV_SCORE_MAX, max|q|,
 * max|k|, max|v| within sv_entry_bound of n_q d_k, n_k d_k, n_q d_v
 * entries, the mask's max |M| / scale at most SV_SCORE_MAX (sv_source.h's
 * sv_source_strided states the same rules); with spec->ddof > 0 and a mask,
 * every trial sees either no score (every row masked: its statistics are
 * NAN, rows_empty n_q) or more than ddof (the window and causal rule's keys
 * the mask keeps, counted until ddof + 1 are found). The spec's size and causal
 * rules come before its scale is read, so a caller may ask why a spec made
 * from the arrays' sizes did not resolve.
 * @param why NULL, or set to the first failing rule (FINE on success).
 * @return SV_OK; SV_EINVAL for arrays NULL, or a spec whose scale is not
 *         positive and finite once the size rules pass (why FINE);
 *         SV_EFORMAT (FORMAT, BOOL); SV_ENONFINITE (NONFINITE);
 *         SV_EOVERFLOW (MAGNITUDE, SCORES, MASK_SCALE); SV_EINVAL (DDOF);
 *         SV_EMISMATCH for the rest. The statuses the engine returns for the same arrays.
 * Thread safety: re-entrant (reads only). Cost: O(1) without a spec; with
 * one, reads every entry of Q, K (V, G) and the mask once, and a second
 * time to find a non-finite entry's index; with ddof > 0, each trial's
 * mask slice again until ddof + 1 visible scores (a slice shared by
 * consecutive trials once).
 */
sv_status sv_strided_check(const sv_strided *arrays, const sv_spec *spec, sv_strided_why *why);

/**
 * One line (no newline) saying what @p why found, naming each array by
 * @p names, into buf (len bytes, NUL-terminated, truncated if long):
 * "k.npy: d_k 6 (its last axis) differs from Q's 8 (q.npy)", "q: entry
 * (batch 1, head 2, position 11, column 4) is nan", "v: entries up to
 * 1e+200 in magnitude: raw_out_var and scaled_out_var (sums of n_q*d_v
 * squared outputs) would overflow (above 1.1e+151 for this shape);
 * rescale the tensor".
 * @param names NULL, or SV_TENSORS names (a file name, an argument's):
 *        NULL means "q", "k", "v", "g", "mask".
 * @return the length of the whole line (as snprintf); 0 with buf empty for
 *         why NULL or FINE.
 * Thread safety: re-entrant. Cost: O(len).
 */
int sv_strided_explain(const sv_strided_why *why, const char *const *names, char *buf, size_t len);

/**
 * A source reading rows of Q, K (and V, G) from caller arrays; trial t
 * reads the (batch, head, kv_head) of sv_strided_head (trials [first,
 * first + count) need first + count <= batch * heads_q). q_var, k_var,
 * q_mean and k_mean are measured; S_ii is not singled out (related_diag
 * 0). @p arrays is kept by pointer and must outlive the source. The spec's
 * draw fields (seed, dist, means, QK-norm, plant, d_model) do not apply:
 * check() rejects a spec with plant, qk_norm or d_model (SV_EMISMATCH),
 * since it would describe rows the arrays do not hold; it also reads every
 * entry of the trials' heads once and returns SV_ENONFINITE for a NaN or an
 * infinity (sv_array_find_nonfinite says where), SV_EOVERFLOW when d_k
 * max|q| max|k| (or that times spec->scale) exceeds SV_SCORE_MAX, as for
 * drawn entries, or when max|q|, max|k| or max|v| passes sv_entry_bound
 * of the trial's n_q d_k, n_k d_k or n_q d_v entries. With arrays->mask (src->mask set), check()
 * returns SV_EMISMATCH for a mask axis that is neither 1 nor the matching size (batch, heads_q,
 * n_q, n_k) or for spec->grad, SV_ENONFINITE for a NaN or +inf mask entry, SV_EOVERFLOW when max
 * |M| / scale over the finite, not excluded entries exceeds SV_SCORE_MAX. Statistics of a masked
 * row are over the keys it sees; a row that sees none counts in rows_empty. check() applies
 * sv_strided_check's rules to its trials: after a refusal, sv_strided_check says why.
 * @return SV_OK; SV_EINVAL for NULL arguments; SV_EFORMAT for a dtype out
 *         of range (SV_DTYPE_BOOL for Q, K, V or G), ndim out of 2..4, or
 *         a NULL q or k.
 */
sv_status sv_source_strided(const sv_strided *arrays, sv_source *src);

/**
 * Rows [row0, row0 + count) of matrix @p which of trial @p trial of @p src,
 * exactly as the engine reads them, into out: count x cols doubles,
 * row-major, row i at out + i ld, cols = d_k for SV_MATRIX_Q (n_q rows)
 * and SV_MATRIX_K (n_k rows), d_v for SV_MATRIX_V (n_k rows, with
 * spec->values) and SV_MATRIX_G (n_q rows, with spec->grad). For callers
 * that show what a run drew (the CLI's --example and --save-qk, the
 * teaching page): one place that begins a trial and reads its rows.
 * @param spec the resolved spec @p src serves (sv_source_draw's, or the
 *             one a strided source was checked against).
 * @return SV_OK; SV_EINVAL for a NULL pointer, another matrix, a matrix the
 *         spec does not have, rows past the matrix's end, or ld < cols;
 *         the errors of src->check(spec, trial, 1); SV_ENOMEM for the
 *         trial's state and scratch (allocated per call). out untouched
 *         after an error.
 * Thread safety: re-entrant (src is read only).
 * Cost: begin_trial once (the draw source's W_Q, W_K with d_model), then
 * count rows: O(count cols), O(count cols d_model) with d_model.
 */
sv_status sv_source_materialize(const sv_source *src, const sv_spec *spec, uint64_t trial,
                                sv_matrix which, size_t row0, size_t count, double *out, size_t ld);

/**
 * The raw logits of query @p query of trial @p trial of @p src against its
 * first @p n keys: logits[j] = q . k_j (the unscaled score S_ij; multiply
 * by sv_spec_scale for the scaled one), j < n, with q and k_j the rows
 * sv_source_materialize gives, summed in double over l = 0 .. d_k - 1 in
 * order (a plain dot product, the numbers a student's numpy session
 * shows; the engine's dgemm may differ in the last bits). For callers that
 * show one query's logits (the CLI's --example, the teaching page). A
 * causal mask or window is not applied: pass n = query + 1 for the keys a
 * causal query sees.
 * @param spec the resolved spec @p src serves.
 * @param logits n doubles.
 * @return SV_OK; SV_EINVAL for a NULL pointer, query >= n_q, n > n_k or
 *         d_k 0; the errors of src->check(spec, trial, 1); SV_ENOMEM.
 *         logits untouched after an error.
 * Thread safety: re-entrant (src is read only).
 * Cost: begin_trial once, then 1 + n rows and n dot products: O(n d_k)
 * (times d_model with projections), O(d_k) memory: the keys are read one
 * at a time, never copied whole.
 */
sv_status sv_source_logits(const sv_source *src, const sv_spec *spec, uint64_t trial, size_t query,
                           size_t n, double *logits);

#endif
