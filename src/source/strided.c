/* The strided source: rows of Q, K, V and G read from caller arrays of any
 * layout numpy, torch or a tensor file hands over (float64, float32,
 * float16 or bfloat16, either byte order, byte strides of any sign, 2-D to
 * 4-D), widened to double. Trial t is (batch, head) of Q and (batch,
 * kv_head) of K and V: grouped-query heads are read in place, never
 * expanded. The engine cannot tell it from draws. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "sdpa_var/source.h"

/* The array of matrix `which`. */
static const sv_array *array_of(const sv_strided *a, sv_matrix which)
{
    return which == SV_MATRIX_Q   ? &a->q
           : which == SV_MATRIX_K ? &a->k
           : which == SV_MATRIX_G ? &a->g
                                  : &a->v;
}

static size_t elem_size(sv_dtype t)
{
    return t == SV_DTYPE_FLOAT64 ? 8 : t == SV_DTYPE_FLOAT32 ? 4 : t == SV_DTYPE_BOOL ? 1 : 2;
}

static int format_ok(const sv_array *a)
{
    return a->data && a->ndim >= 2 && a->ndim <= SV_ARRAY_MAX_DIMS &&
           (unsigned)a->dtype < SV_DTYPES;
}

/* Q, K, V and G hold numbers: a bool array is a mask only. */
static int data_ok(const sv_array *a)
{
    return format_ok(a) && a->dtype != SV_DTYPE_BOOL;
}

/* Axis sizes and strides of a as batch x heads x rows x cols (a missing
 * axis has size 1 and stride 0). */
static void axes4(const sv_array *a, size_t shape[4], ptrdiff_t strides[4])
{
    const int pad = SV_ARRAY_MAX_DIMS - a->ndim;
    for (int i = 0; i < SV_ARRAY_MAX_DIMS; i++) {
        shape[i] = i < pad ? 1 : a->shape[i - pad];
        strides[i] = i < pad ? 0 : a->strides[i - pad];
    }
}

/* IEEE half to double, exactly (subnormals, infinities and NaN too). */
static double half_to_double(uint16_t h)
{
    const unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e != 0 && e != 31) { /* normal: the same bits as a float32's */
        const uint32_t u =
            ((uint32_t)(h & 0x8000u) << 16) | ((uint32_t)(e + 112u) << 23) | ((uint32_t)m << 13);
        float f;
        memcpy(&f, &u, sizeof f);
        return (double)f;
    }
    const double s = (h & 0x8000u) ? -1.0 : 1.0;
    if (e == 0)
        return s * ldexp((double)m, -24);
    if (e == 31)
        return m ? NAN : s * INFINITY;
    return s * ldexp((double)(m | 0x400u), (int)e - 25);
}

/* The element at p of dtype t (swapped: stored in the other byte order),
 * widened to double; memcpy because an element need not be aligned. */
static double load(const unsigned char *p, sv_dtype t, int swapped)
{
    unsigned char b[8];
    const size_t n = elem_size(t);
    if (t == SV_DTYPE_BOOL)
        return p[0] ? 1.0 : 0.0;
    for (size_t i = 0; i < n; i++)
        b[i] = p[swapped ? n - 1 - i : i];
    if (t == SV_DTYPE_FLOAT64) {
        double v;
        memcpy(&v, b, sizeof v);
        return v;
    }
    if (t == SV_DTYPE_FLOAT32) {
        float f;
        memcpy(&f, b, sizeof f);
        return (double)f; /* exact */
    }
    uint16_t h;
    memcpy(&h, b, sizeof h);
    if (t == SV_DTYPE_FLOAT16)
        return half_to_double(h);
    const uint32_t u = (uint32_t)h << 16; /* bfloat16: a float32's high half */
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

/* cols elements of a row at p, sc bytes apart, widened into out, as
 * load() each: the dtype's branch taken once a row, so that the common
 * native float64, float32 and bfloat16 loops are plain loads. */
static void load_row(const unsigned char *p, ptrdiff_t sc, size_t cols, sv_dtype t, int swapped,
                     double *out)
{
    if (swapped || (t != SV_DTYPE_FLOAT64 && t != SV_DTYPE_FLOAT32 && t != SV_DTYPE_BFLOAT16)) {
        for (size_t l = 0; l < cols; l++)
            out[l] = load(p + (ptrdiff_t)l * sc, t, swapped);
    } else if (t == SV_DTYPE_FLOAT64) {
        for (size_t l = 0; l < cols; l++) /* memcpy: need not be aligned */
            memcpy(&out[l], p + (ptrdiff_t)l * sc, sizeof(double));
    } else if (t == SV_DTYPE_FLOAT32) {
        for (size_t l = 0; l < cols; l++) {
            float f;
            memcpy(&f, p + (ptrdiff_t)l * sc, sizeof f);
            out[l] = (double)f;
        }
    } else {
        for (size_t l = 0; l < cols; l++) {
            uint16_t h;
            memcpy(&h, p + (ptrdiff_t)l * sc, sizeof h);
            const uint32_t u = (uint32_t)h << 16;
            float f;
            memcpy(&f, &u, sizeof f);
            out[l] = (double)f;
        }
    }
}

int sv_array_find_nonfinite(const sv_array *a, size_t *index)
{
    if (!a || !format_ok(a))
        return 0;
    size_t n[4];
    ptrdiff_t s[4];
    axes4(a, n, s);
    const int pad = SV_ARRAY_MAX_DIMS - a->ndim;
    for (size_t b = 0; b < n[0]; b++)
        for (size_t h = 0; h < n[1]; h++)
            for (size_t i = 0; i < n[2]; i++)
                for (size_t l = 0; l < n[3]; l++) {
                    const unsigned char *p = (const unsigned char *)a->data + (ptrdiff_t)b * s[0] +
                                             (ptrdiff_t)h * s[1] + (ptrdiff_t)i * s[2] +
                                             (ptrdiff_t)l * s[3];
                    if (isfinite(load(p, a->dtype, a->byte_swapped)))
                        continue;
                    if (index) {
                        const size_t at[4] = {b, h, i, l};
                        for (int d = 0; d < a->ndim; d++)
                            index[d] = at[d + pad];
                    }
                    return 1;
                }
    return 0;
}

double sv_array_max_abs(const sv_array *a)
{
    if (!a || !format_ok(a))
        return -1.0;
    size_t n[4];
    ptrdiff_t s[4];
    axes4(a, n, s);
    double m = 0.0;
    for (size_t b = 0; b < n[0]; b++)
        for (size_t h = 0; h < n[1]; h++)
            for (size_t i = 0; i < n[2]; i++)
                for (size_t l = 0; l < n[3]; l++) {
                    const unsigned char *p = (const unsigned char *)a->data + (ptrdiff_t)b * s[0] +
                                             (ptrdiff_t)h * s[1] + (ptrdiff_t)i * s[2] +
                                             (ptrdiff_t)l * s[3];
                    const double x = fabs(load(p, a->dtype, a->byte_swapped));
                    if (isnan(x))
                        return NAN;
                    m = x > m ? x : m;
                }
    return m;
}

double sv_entry_bound(size_t n)
{
    return sqrt(DBL_MAX / (4.0 * (double)(n ? n : 1)));
}

/* Batch and head counts of Q (and G) against K (and V): the GQA rules. */
static sv_status heads_ok(const sv_strided *a, size_t *batch, size_t *heads_q, size_t *heads_kv)
{
    size_t q[4], k[4], o[4];
    ptrdiff_t s[4];
    axes4(&a->q, q, s);
    axes4(&a->k, k, s);
    if (q[0] != k[0] || k[1] == 0 || q[1] % k[1] != 0)
        return SV_EMISMATCH;
    if (a->v.data) {
        axes4(&a->v, o, s);
        if (o[0] != k[0] || o[1] != k[1])
            return SV_EMISMATCH;
    }
    if (a->g.data) {
        axes4(&a->g, o, s);
        if (o[0] != q[0] || o[1] != q[1])
            return SV_EMISMATCH;
    }
    *batch = q[0];
    *heads_q = q[1];
    *heads_kv = k[1];
    return SV_OK;
}

sv_status sv_strided_head(const sv_strided *arrays, uint64_t trial, uint64_t *trials, sv_head *head)
{
    if (!arrays)
        return SV_EINVAL;
    if (!data_ok(&arrays->q) || !data_ok(&arrays->k) || (arrays->v.data && !data_ok(&arrays->v)) ||
        (arrays->g.data && !data_ok(&arrays->g)) ||
        (arrays->mask.data && !format_ok(&arrays->mask)))
        return SV_EFORMAT;
    size_t batch, hq, hkv;
    const sv_status st = heads_ok(arrays, &batch, &hq, &hkv);
    if (st != SV_OK)
        return st;
    const uint64_t n = (uint64_t)batch * hq; /* both are sizes of a mapped array */
    if (trials)
        *trials = n;
    if (head) {
        if (trial >= n)
            return SV_EMISMATCH;
        head->batch = (size_t)(trial / hq);
        head->head = (size_t)(trial % hq);
        head->kv_head = head->head / (hq / hkv);
    }
    return SV_OK;
}

/* Whether array a has rows x cols per head. */
static int shape_ok(const sv_array *a, size_t rows, size_t cols)
{
    return a->shape[a->ndim - 2] == rows && a->shape[a->ndim - 1] == cols;
}

/* The first byte of the rows x cols matrix of trial t in array a (kv: a
 * is K or V, read at the trial's kv_head). */
static const unsigned char *matrix_of(const sv_strided *all, const sv_array *a, uint64_t t, int kv)
{
    size_t n[4];
    ptrdiff_t s[4];
    axes4(&all->q, n, s);
    const size_t hq = n[1];
    axes4(&all->k, n, s);
    const size_t hkv = n[1]; /* divides hq: checked by check() */
    const size_t batch = (size_t)(t / hq);
    size_t h = (size_t)(t % hq);
    if (kv && hkv > 0)
        h /= hq / hkv;
    axes4(a, n, s);
    return (const unsigned char *)a->data + (ptrdiff_t)batch * s[0] + (ptrdiff_t)h * s[1];
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
        const unsigned char *base = matrix_of(all, a, t, kv);
        for (size_t i = 0; i < rows && !bad; i++) {
            if (fast) { /* native float64 / float32: no branch per entry */
                m = row_max_abs(base + (ptrdiff_t)i * sr, cols, sc, a->dtype == SV_DTYPE_FLOAT32,
                                m);
                bad = isnan(m);
                continue;
            }
            for (size_t l0 = 0; l0 < cols; l0 += CHUNK) {
                const size_t c = cols - l0 < CHUNK ? cols - l0 : CHUNK;
                load_row(base + (ptrdiff_t)i * sr + (ptrdiff_t)l0 * sc, sc, c, a->dtype,
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

/* Caller data is checked like drawn data: a NaN or inf entry would reach
 * the softmax's max search (which assumes finite logits), and entries
 * whose scores could pass SV_SCORE_MAX (spec.h) would overflow the sums.
 * One pass over the arrays, O((n_q + n_k) d_k) per trial next to the
 * O(n_q n_k d_k) product. */
static sv_status values_ok(const sv_strided *a, const sv_spec *spec, uint64_t first, uint64_t count)
{
    const double mq = max_abs(a, &a->q, 0, first, count), mk = max_abs(a, &a->k, 1, first, count);
    if (isnan(mq) || isnan(mk) || (spec->values && isnan(max_abs(a, &a->v, 1, first, count))) ||
        (spec->grad && isnan(max_abs(a, &a->g, 0, first, count))))
        return SV_ENONFINITE;
    const double bound = (double)spec->d_k * mq * mk;
    if (!(bound <= SV_SCORE_MAX && bound * spec->scale <= SV_SCORE_MAX))
        return SV_EOVERFLOW;
    /* Sums of squares of the entries (q_var, k_var) and of the outputs,
     * bounded by max|v| (raw_out_var), stay finite. */
    if (mq > sv_entry_bound(spec->n_q * spec->d_k) || mk > sv_entry_bound(spec->n_k * spec->d_k) ||
        (spec->values &&
         max_abs(a, &a->v, 1, first, count) > sv_entry_bound(spec->n_q * spec->d_v)))
        return SV_EOVERFLOW;
    return SV_OK;
}

/* The lowest finite value of a float dtype: HF fills masked logits with
 * torch.finfo(dtype).min, which excludes the key as -inf does. */
static double lowest(sv_dtype t)
{
    return t == SV_DTYPE_FLOAT64   ? -DBL_MAX
           : t == SV_DTYPE_FLOAT32 ? -(double)FLT_MAX
           : t == SV_DTYPE_FLOAT16 ? -65504.0
                                   : -0x1.fep127; /* bfloat16 */
}

/* Mask entry x of dtype t as an additive value on the scaled logits. */
static double mask_value(double x, sv_dtype t)
{
    if (t == SV_DTYPE_BOOL)
        return x != 0.0 ? 0.0 : -INFINITY;
    return x <= lowest(t) ? -INFINITY : x;
}

/* The mask's byte offset of (trial, row), its axes broadcast. */
static const unsigned char *mask_row(const sv_strided *all, uint64_t trial, size_t row, size_t n[4],
                                     ptrdiff_t s[4])
{
    size_t nq[4];
    ptrdiff_t sq[4];
    axes4(&all->q, nq, sq);
    const size_t batch = (size_t)(trial / nq[1]), head = (size_t)(trial % nq[1]);
    axes4(&all->mask, n, s);
    return (const unsigned char *)all->mask.data + (n[0] > 1 ? (ptrdiff_t)batch * s[0] : 0) +
           (n[1] > 1 ? (ptrdiff_t)head * s[1] : 0) + (n[2] > 1 ? (ptrdiff_t)row * s[2] : 0);
}

double sv_mask_max_abs(const sv_array *a)
{
    if (!a || !format_ok(a))
        return -1.0;
    size_t n[4];
    ptrdiff_t s[4];
    axes4(a, n, s);
    double top = 0.0;
    for (size_t b = 0; b < n[0]; b++)
        for (size_t h = 0; h < n[1]; h++)
            for (size_t i = 0; i < n[2]; i++)
                for (size_t l = 0; l < n[3]; l++) {
                    const unsigned char *p = (const unsigned char *)a->data + (ptrdiff_t)b * s[0] +
                                             (ptrdiff_t)h * s[1] + (ptrdiff_t)i * s[2] +
                                             (ptrdiff_t)l * s[3];
                    const double x = load(p, a->dtype, a->byte_swapped);
                    if (isnan(x) || x == INFINITY)
                        return NAN;
                    const double m = mask_value(x, a->dtype);
                    if (isfinite(m) && fabs(m) > top)
                        top = fabs(m);
                }
    return top;
}

/* A mask broadcasts against batch x heads_q x n_q x n_k; its entries are
 * -inf, finite, or excluded, and a finite M / scale stays a finite logit. */
static sv_status mask_ok(const sv_strided *a, const sv_spec *spec)
{
    if (spec->grad)
        return SV_EMISMATCH; /* the backward passes know the causal mask only */
    size_t n[4], nq[4];
    ptrdiff_t s[4];
    axes4(&a->q, nq, s);
    axes4(&a->mask, n, s);
    const size_t want[4] = {nq[0], nq[1], spec->n_q, spec->n_k};
    for (int i = 0; i < 4; i++)
        if (n[i] != 1 && n[i] != want[i])
            return SV_EMISMATCH;
    const double top = sv_mask_max_abs(&a->mask);
    if (isnan(top))
        return SV_ENONFINITE;
    return top / spec->scale <= SV_SCORE_MAX ? SV_OK : SV_EOVERFLOW;
}

static void strided_mask(const sv_source *src, uint64_t trial, size_t row, size_t col0, size_t m,
                         double *x)
{
    const sv_strided *all = src->impl;
    const sv_array *a = &all->mask;
    size_t n[4];
    ptrdiff_t s[4];
    const unsigned char *base = mask_row(all, trial, row, n, s);
    for (size_t l = 0; l < m; l++) {
        const ptrdiff_t at = n[3] > 1 ? (ptrdiff_t)(col0 + l) * s[3] : 0;
        x[l] = mask_value(load(base + at, a->dtype, a->byte_swapped), a->dtype);
    }
}

static sv_status strided_check(const sv_source *src, const sv_spec *spec, uint64_t first,
                               uint64_t count)
{
    const sv_strided *a = src->impl;
    if (!data_ok(&a->q) || !data_ok(&a->k) || (spec->values && !data_ok(&a->v)) ||
        (spec->grad && !data_ok(&a->g)))
        return SV_EFORMAT;
    /* The draw fields would describe rows the arrays do not hold. */
    if (spec->plant != 0.0 || spec->qk_norm || spec->d_model > 0)
        return SV_EMISMATCH;
    uint64_t trials;
    const sv_status st = sv_strided_head(a, 0, &trials, NULL);
    if (st != SV_OK)
        return st;
    if (first > trials || count > trials - first)
        return SV_EMISMATCH;
    if (!shape_ok(&a->q, spec->n_q, spec->d_k) || !shape_ok(&a->k, spec->n_k, spec->d_k) ||
        (spec->values && !shape_ok(&a->v, spec->n_k, spec->d_v)) ||
        (spec->grad && !shape_ok(&a->g, spec->n_q, spec->d_v)))
        return SV_EMISMATCH;
    const sv_status sv = values_ok(a, spec, first, count);
    return sv != SV_OK || !a->mask.data ? sv : mask_ok(a, spec);
}

static void strided_rows(const sv_source *src, const double *state, uint64_t trial, sv_matrix which,
                         size_t row0, size_t m, double *x, size_t ld, double *scratch)
{
    (void)state;
    (void)scratch;
    const sv_strided *all = src->impl;
    const sv_array *a = array_of(all, which);
    const size_t cols = a->shape[a->ndim - 1];
    const ptrdiff_t sr = a->strides[a->ndim - 2], sc = a->strides[a->ndim - 1];
    const int kv = which == SV_MATRIX_K || which == SV_MATRIX_V;
    const unsigned char *base = matrix_of(all, a, trial, kv);
    for (size_t i = 0; i < m; i++) {
        const unsigned char *row = base + (ptrdiff_t)(row0 + i) * sr;
        load_row(row, sc, cols, a->dtype, a->byte_swapped, x + i * ld);
    }
}

sv_status sv_source_strided(const sv_strided *arrays, sv_source *src)
{
    if (!arrays || !src)
        return SV_EINVAL;
    if (!data_ok(&arrays->q) || !data_ok(&arrays->k) || (arrays->v.data && !data_ok(&arrays->v)) ||
        (arrays->g.data && !data_ok(&arrays->g)) ||
        (arrays->mask.data && !format_ok(&arrays->mask)))
        return SV_EFORMAT;
    *src = (sv_source){.impl = arrays,
                       .measure_entries = 1,
                       .check = strided_check,
                       .rows = strided_rows,
                       .mask = arrays->mask.data ? strided_mask : NULL};
    return SV_OK;
}
