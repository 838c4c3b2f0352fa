/* The check of caller arrays against each other and a spec, and the one
 * line that says why they fail (source.h: sv_strided_check,
 * sv_strided_explain). The engine's check of a strided source runs the
 * same rules (sv__strided_check), so a front end that asks why gets the
 * rule the engine applied, never a copy of it. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sdpa_var/source.h"
#include "strided_check.h"
#include "strided_read.h"

static const sv_array *tensor(const sv_strided *a, sv_tensor t)
{
    const sv_array *all[SV_TENSORS] = {&a->q, &a->k, &a->v, &a->g, &a->mask};
    return all[t];
}

static sv_status status_of(sv_strided_problem p)
{
    switch (p) {
    case SV_STRIDED_FINE:
        return SV_OK;
    case SV_STRIDED_FORMAT:
    case SV_STRIDED_BOOL:
        return SV_EFORMAT;
    case SV_STRIDED_NONFINITE:
        return SV_ENONFINITE;
    case SV_STRIDED_MAGNITUDE:
    case SV_STRIDED_SCORES:
    case SV_STRIDED_MASK_SCALE:
        return SV_EOVERFLOW;
    case SV_STRIDED_DDOF:
        return SV_EINVAL;
    default:
        return SV_EMISMATCH;
    }
}

/* Problem p of tensor t against o, sizes got[0..1] and want[0..1], on why
 * (when set); its status. */
static sv_status blame(sv_strided_why *why, sv_strided_problem p, sv_tensor t, sv_tensor o,
                       size_t g0, size_t g1, size_t w0, size_t w1)
{
    if (why) {
        why->problem = p;
        why->tensor = t;
        why->other = o;
        why->got[0] = g0;
        why->got[1] = g1;
        why->want[0] = w0;
        why->want[1] = w1;
    }
    return status_of(p);
}

/* Every array the check needs present, of 2..4 axes and a known dtype; no
 * bool but the mask. */
static sv_status formats(const sv_strided *a, const sv_spec *spec, sv_strided_why *why)
{
    for (int i = 0; i < SV_TENSORS; i++) {
        const sv_tensor t = (sv_tensor)i;
        const sv_array *x = tensor(a, t);
        const int need = t <= SV_TENSOR_K || (spec && t == SV_TENSOR_V && spec->values) ||
                         (spec && t == SV_TENSOR_G && spec->grad);
        if (!x->data && !need)
            continue;
        if (!sv__array_format_ok(x)) {
            const sv_status st =
                blame(why, SV_STRIDED_FORMAT, t, t, (size_t)(unsigned)x->dtype, !x->data, 0, 0);
            if (why)
                why->ndim = x->ndim;
            return st;
        }
        if (t != SV_TENSOR_MASK && x->dtype == SV_DTYPE_BOOL)
            return blame(why, SV_STRIDED_BOOL, t, t, 0, 0, 0, 0);
    }
    return SV_OK;
}

/* The mask's axes each 1 or batch, heads_q, n_q, n_k. */
static sv_status mask_axes(const sv_strided *a, const size_t q[4], const size_t k[4],
                           sv_strided_why *why)
{
    const sv_array *m = &a->mask;
    size_t n[4];
    ptrdiff_t s[4];
    sv__array_axes4(m, n, s);
    const size_t want[4] = {q[0], q[1], q[2], k[2]};
    for (int i = 0; i < 4; i++)
        if (n[i] != 1 && n[i] != want[i]) {
            if (why) {
                *why = (sv_strided_why){.problem = SV_STRIDED_MASK_AXIS,
                                        .tensor = SV_TENSOR_MASK,
                                        .other = SV_TENSOR_Q,
                                        .ndim = m->ndim};
                for (int d = 0; d < 4; d++) {
                    why->got[d] = d < m->ndim ? m->shape[d] : 0;
                    why->want[d] = want[d];
                }
            }
            return SV_EMISMATCH;
        }
    return SV_OK;
}

/* The arrays among themselves: K against Q (d_k, batch, GQA heads), V
 * against K, G against Q and V, the mask against Q and K. */
static sv_status structure(const sv_strided *a, sv_strided_why *why)
{
    size_t q[4], k[4], o[4];
    ptrdiff_t s[4];
    sv__array_axes4(&a->q, q, s);
    sv__array_axes4(&a->k, k, s);
    if (k[3] != q[3])
        return blame(why, SV_STRIDED_D_K, SV_TENSOR_K, SV_TENSOR_Q, k[3], 0, q[3], 0);
    if (k[0] != q[0])
        return blame(why, SV_STRIDED_BATCH, SV_TENSOR_K, SV_TENSOR_Q, k[0], 0, q[0], 0);
    if (k[1] == 0 || q[1] % k[1] != 0)
        return blame(why, SV_STRIDED_HEADS, SV_TENSOR_K, SV_TENSOR_Q, k[1], 0, q[1], 0);
    if (a->v.data) {
        sv__array_axes4(&a->v, o, s);
        if (o[0] != k[0] || o[1] != k[1])
            return blame(why, SV_STRIDED_GROUP, SV_TENSOR_V, SV_TENSOR_K, o[0], o[1], k[0], k[1]);
        if (o[2] != k[2])
            return blame(why, SV_STRIDED_ROWS, SV_TENSOR_V, SV_TENSOR_K, o[2], 0, k[2], 0);
    }
    if (a->g.data) {
        sv__array_axes4(&a->g, o, s);
        if (o[0] != q[0] || o[1] != q[1])
            return blame(why, SV_STRIDED_GROUP, SV_TENSOR_G, SV_TENSOR_Q, o[0], o[1], q[0], q[1]);
        if (o[2] != q[2])
            return blame(why, SV_STRIDED_ROWS, SV_TENSOR_G, SV_TENSOR_Q, o[2], 0, q[2], 0);
        const size_t dv = a->v.data ? a->v.shape[a->v.ndim - 1] : o[3];
        if (o[3] != dv)
            return blame(why, SV_STRIDED_COLS, SV_TENSOR_G, SV_TENSOR_V, o[3], 0, dv, 0);
    }
    return a->mask.data ? mask_axes(a, q, k, why) : SV_OK;
}

/* The arrays against the spec: causal, draw fields, sizes, a mask's grad,
 * and the trial range [first, first + count). */
static sv_status against_spec(const sv_strided *a, const sv_spec *spec, uint64_t first,
                              uint64_t count, sv_strided_why *why)
{
    size_t q[4], k[4];
    ptrdiff_t s[4];
    sv__array_axes4(&a->q, q, s);
    sv__array_axes4(&a->k, k, s);
    if (spec->causal && q[2] != k[2])
        return blame(why, SV_STRIDED_CAUSAL, SV_TENSOR_Q, SV_TENSOR_K, q[2], 0, k[2], 0);
    /* The draw fields would describe rows the arrays do not hold. */
    if (spec->plant != 0.0 || spec->qk_norm || spec->d_model > 0)
        return blame(why, SV_STRIDED_DRAW, SV_TENSOR_Q, SV_TENSOR_K, 0, 0, 0, 0);
    const struct {
        int on;
        size_t rows, cols;
    } want[4] = {{1, spec->n_q, spec->d_k},
                 {1, spec->n_k, spec->d_k},
                 {spec->values, spec->n_k, spec->d_v},
                 {spec->grad, spec->n_q, spec->d_v}};
    for (int i = 0; i < 4; i++) {
        if (!want[i].on) /* V or G absent: no shape to read (ndim 0) */
            continue;
        const sv_array *x = tensor(a, (sv_tensor)i);
        const size_t r = x->shape[x->ndim - 2], c = x->shape[x->ndim - 1];
        if (r != want[i].rows || c != want[i].cols)
            return blame(why, SV_STRIDED_SPEC, (sv_tensor)i, (sv_tensor)i, r, c, want[i].rows,
                         want[i].cols);
    }
    if (a->mask.data && spec->grad) /* the backward passes know the causal mask only */
        return blame(why, SV_STRIDED_MASK_GRAD, SV_TENSOR_MASK, SV_TENSOR_MASK, 0, 0, 0, 0);
    const uint64_t trials = (uint64_t)q[0] * q[1]; /* sizes of a mapped array */
    return first > trials || count > trials - first ? SV_EMISMATCH : SV_OK;
}

/* Largest |x| of one row of cols float64 (f32: float32) entries in the
 * machine's byte order, stride sc bytes, and m; NAN if one is not finite.
 * Four running maxima, and x - x (NaN exactly for an inf or NaN x) summed
 * on the side: no branch per entry. The plain path (load per entry) cost a
 * few ns an entry, and the check runs before the engine's threads start:
 * at 16 threads it was half the time of 96 trials of 1024 x 1024. */
static double row_max_abs(const unsigned char *row, size_t cols, ptrdiff_t sc, int f32, double m)
{
    double top[4] = {m, m, m, m}, bad = 0.0;
    for (size_t l = 0; l < cols; l += 4)
        for (size_t u = 0; u < 4 && l + u < cols; u++) {
            const unsigned char *at = row + (ptrdiff_t)(l + u) * sc;
            double x;
            if (f32) {
                float f;
                memcpy(&f, at, sizeof f); /* need not be aligned */
                x = (double)f;
            } else {
                memcpy(&x, at, sizeof x);
            }
            bad += x - x;
            x = fabs(x);
            top[u] = x > top[u] ? x : top[u];
        }
    if (isnan(bad))
        return NAN;
    const double a = top[0] > top[1] ? top[0] : top[1], b = top[2] > top[3] ? top[2] : top[3];
    return a > b ? a : b;
}

/* Largest |x| over trials [first, first + count) of array a (kv: read at
 * the kv heads), or NAN if any x is not finite. */
static double max_abs(const sv_strided *all, const sv_array *a, int kv, uint64_t first,
                      uint64_t count)
{
    const size_t rows = a->shape[a->ndim - 2], cols = a->shape[a->ndim - 1];
    const ptrdiff_t sr = a->strides[a->ndim - 2], sc = a->strides[a->ndim - 1];
    const int fast =
        !a->byte_swapped && (a->dtype == SV_DTYPE_FLOAT64 || a->dtype == SV_DTYPE_FLOAT32);
    enum { CHUNK = 64 };
    double m = 0.0, buf[CHUNK];
    int bad = 0;
    for (uint64_t t = first; t < first + count && !bad; t++) {
        const unsigned char *base = sv__strided_matrix(all, a, t, kv);
        for (size_t i = 0; i < rows && !bad; i++) {
            if (fast) { /* native float64 / float32: no branch per entry */
                m = row_max_abs(base + (ptrdiff_t)i * sr, cols, sc, a->dtype == SV_DTYPE_FLOAT32,
                                m);
                bad = isnan(m);
                continue;
            }
            for (size_t l0 = 0; l0 < cols; l0 += CHUNK) {
                const size_t c = cols - l0 < CHUNK ? cols - l0 : CHUNK;
                sv__array_load_row(base + (ptrdiff_t)i * sr + (ptrdiff_t)l0 * sc, sc, c, a->dtype,
                                   a->byte_swapped, buf);
                for (size_t l = 0; l < c; l++) {
                    const double x = fabs(buf[l]);
                    bad |= !(x <= DBL_MAX); /* NaN or inf */
                    m = x > m ? x : m;
                }
            }
        }
    }
    return bad ? NAN : m;
}

/* Entry found bad in tensor t (NaN or an infinity; a mask's NaN or +inf):
 * where, on why (a second pass over t, on the failure path only). */
static sv_status nonfinite(const sv_strided *a, sv_tensor t, sv_strided_why *why)
{
    const sv_array *x = tensor(a, t);
    const sv_status st = blame(why, SV_STRIDED_NONFINITE, t, t, 0, 0, 0, 0);
    if (why) {
        why->ndim = x->ndim;
        why->value = NAN;
        (void)sv__array_find_bad(x, t == SV_TENSOR_MASK, why->index, &why->value);
    }
    return st;
}

/* Value m of tensor t passes bound b (SV_STRIDED_MAGNITUDE and the rest). */
static sv_status too_large(sv_strided_why *why, sv_strided_problem p, sv_tensor t, size_t n,
                           double m, double b, double scale)
{
    const sv_status st = blame(why, p, t, p == SV_STRIDED_SCORES ? SV_TENSOR_K : t, n, 0, 0, 0);
    if (why) {
        why->value = m;
        why->bound = b;
        why->scale = scale;
    }
    return st;
}

/* Caller data is checked like drawn data: a NaN or inf entry would reach
 * the softmax's max search (which assumes finite logits), and entries
 * whose scores could pass SV_SCORE_MAX (spec.h) would overflow the sums.
 * One pass over the arrays, O((n_q + n_k) d_k) per trial next to the
 * O(n_q n_k d_k) product. */
static sv_status entries(const sv_strided *a, const sv_spec *spec, uint64_t first, uint64_t count,
                         sv_strided_why *why)
{
    double m[4] = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < 4; i++) {
        const sv_tensor t = (sv_tensor)i;
        if ((t == SV_TENSOR_V && !spec->values) || (t == SV_TENSOR_G && !spec->grad))
            continue;
        m[i] = max_abs(a, tensor(a, t), t == SV_TENSOR_K || t == SV_TENSOR_V, first, count);
        if (isnan(m[i]))
            return nonfinite(a, t, why);
    }
    /* Sums of squares of the entries (q_var, k_var) and of the outputs,
     * bounded by max|v| (raw_out_var), stay finite: first, as it names
     * one array (an entry past its bound passes the scores' too). */
    const size_t n[3] = {spec->n_q * spec->d_k, spec->n_k * spec->d_k, spec->n_q * spec->d_v};
    for (int i = 0; i < 3; i++)
        if ((i < 2 || spec->values) && m[i] > sv_entry_bound(n[i]))
            return too_large(why, SV_STRIDED_MAGNITUDE, (sv_tensor)i, n[i], m[i],
                             sv_entry_bound(n[i]), spec->scale);
    const double bound = (double)spec->d_k * m[0] * m[1];
    if (!(bound <= SV_SCORE_MAX && bound * spec->scale <= SV_SCORE_MAX))
        return too_large(why, SV_STRIDED_SCORES, SV_TENSOR_Q, 0, bound, SV_SCORE_MAX, spec->scale);
    if (!a->mask.data)
        return SV_OK;
    const double top = sv_mask_max_abs(&a->mask);
    if (isnan(top))
        return nonfinite(a, SV_TENSOR_MASK, why);
    if (!(top / spec->scale <= SV_SCORE_MAX)) /* raw logits S + M / scale stay finite */
        return too_large(why, SV_STRIDED_MASK_SCALE, SV_TENSOR_MASK, 0, top, SV_SCORE_MAX,
                         spec->scale);
    return SV_OK;
}

/* The scores a trial sees under its mask slice m (sizes n, an axis of 1
 * broadcast, strides s): the keys sv_spec_row_keys gives each row that m
 * keeps, counted until more than limit (the usual mask stops in a row). */
static uint64_t seen_scores(const sv_array *a, const sv_spec *spec, const unsigned char *m,
                            const size_t n[4], const ptrdiff_t s[4], uint64_t limit)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < spec->n_q && seen <= limit; i++) {
        size_t lo, hi;
        sv_spec_row_keys(spec, i, &lo, &hi);
        const unsigned char *row = m + (ptrdiff_t)(n[2] > 1 ? i : 0) * s[2];
        for (size_t j = lo; j < hi && seen <= limit; j++) {
            const double x = sv__array_load(row + (ptrdiff_t)(n[3] > 1 ? j : 0) * s[3], a->dtype,
                                            a->byte_swapped);
            seen += sv__mask_value(x, a->dtype) > -INFINITY;
        }
    }
    return seen;
}

/* With ddof > 0, a mask must leave each trial no score (every row masked:
 * nothing measured, rows_empty says so) or more than ddof: 1 to ddof would
 * make raw_var M2 / (N - ddof) a 0 / 0 the engine cannot tell from an
 * overflow, in a trial whose entropies and weights are numbers. The
 * spec's check bounds ddof by the unmasked count (sv_spec_scores). */
static sv_status few_scores(const sv_strided *a, const sv_spec *spec, uint64_t first,
                            uint64_t count, sv_strided_why *why)
{
    size_t n[4], q[4];
    ptrdiff_t s[4];
    if (!a->mask.data || spec->ddof == 0)
        return SV_OK;
    sv__array_axes4(&a->q, q, s);
    sv__array_axes4(&a->mask, n, s);
    const unsigned char *last = NULL; /* the slice the trial before read */
    for (uint64_t t = first; t < first + count; t++) {
        const size_t b = (size_t)(t / q[1]), h = (size_t)(t % q[1]);
        const unsigned char *m = (const unsigned char *)a->mask.data +
                                 (ptrdiff_t)(n[0] > 1 ? b : 0) * s[0] +
                                 (ptrdiff_t)(n[1] > 1 ? h : 0) * s[1];
        if (m == last)
            continue;
        last = m;
        const uint64_t seen = seen_scores(&a->mask, spec, m, n, s, spec->ddof);
        if (seen > 0 && seen <= spec->ddof) {
            const sv_status st = blame(why, SV_STRIDED_DDOF, SV_TENSOR_MASK, SV_TENSOR_MASK,
                                       (size_t)seen, 0, spec->ddof, 0);
            if (why) {
                why->index[0] = b;
                why->index[1] = h;
            }
            return st;
        }
    }
    return SV_OK;
}

sv_status sv__strided_check(const sv_strided *a, const sv_spec *spec, uint64_t first,
                            uint64_t count, sv_strided_why *why)
{
    if (why)
        *why = (sv_strided_why){0};
    sv_status st = formats(a, spec, why);
    if (st == SV_OK)
        st = structure(a, why);
    if (st != SV_OK || !spec)
        return st;
    st = against_spec(a, spec, first, count, why);
    if (st != SV_OK)
        return st;
    if (!(spec->scale > 0.0 && spec->scale <= DBL_MAX))
        return SV_EINVAL;
    st = entries(a, spec, first, count, why);
    return st == SV_OK ? few_scores(a, spec, first, count, why) : st;
}

sv_status sv_strided_check(const sv_strided *arrays, const sv_spec *spec, sv_strided_why *why)
{
    if (!arrays) {
        if (why)
            *why = (sv_strided_why){0};
        return SV_EINVAL;
    }
    uint64_t trials = 0;
    if (sv__array_format_ok(&arrays->q)) {
        size_t q[4];
        ptrdiff_t s[4];
        sv__array_axes4(&arrays->q, q, s);
        trials = (uint64_t)q[0] * q[1];
    }
    return sv__strided_check(arrays, spec, 0, trials, why);
}
