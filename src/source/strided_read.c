/* Reading a caller's array (strided_read.h): the dtypes widened to double,
 * the axes as batch x heads x rows x cols, the scans the check and the
 * public sv_array_* functions make. Shared by the strided source
 * (strided.c) and its check (strided_check.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "sdpa_var/source.h"
#include "strided_read.h"

static size_t elem_size(sv_dtype t)
{
    return t == SV_DTYPE_FLOAT64 ? 8 : t == SV_DTYPE_FLOAT32 ? 4 : t == SV_DTYPE_BOOL ? 1 : 2;
}

int sv__array_format_ok(const sv_array *a)
{
    return a->data && a->ndim >= 2 && a->ndim <= SV_ARRAY_MAX_DIMS &&
           (unsigned)a->dtype < SV_DTYPES;
}

/* Axis sizes and strides of a as batch x heads x rows x cols (a missing
 * axis has size 1 and stride 0). */
void sv__array_axes4(const sv_array *a, size_t shape[4], ptrdiff_t strides[4])
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
double sv__array_load(const unsigned char *p, sv_dtype t, int swapped)
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
 * sv__array_load() each: the dtype's branch taken once a row, so that the common
 * native float64, float32 and bfloat16 loops are plain loads. */
void sv__array_load_row(const unsigned char *p, ptrdiff_t sc, size_t cols, sv_dtype t, int swapped,
                        double *out)
{
    if (swapped || (t != SV_DTYPE_FLOAT64 && t != SV_DTYPE_FLOAT32 && t != SV_DTYPE_BFLOAT16)) {
        for (size_t l = 0; l < cols; l++)
            out[l] = sv__array_load(p + (ptrdiff_t)l * sc, t, swapped);
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

int sv__array_find_bad(const sv_array *a, int mask, size_t *index, double *value)
{
    if (!a || !sv__array_format_ok(a))
        return 0;
    size_t n[4];
    ptrdiff_t s[4];
    sv__array_axes4(a, n, s);
    const int pad = SV_ARRAY_MAX_DIMS - a->ndim;
    for (size_t b = 0; b < n[0]; b++)
        for (size_t h = 0; h < n[1]; h++)
            for (size_t i = 0; i < n[2]; i++)
                for (size_t l = 0; l < n[3]; l++) {
                    const unsigned char *p = (const unsigned char *)a->data + (ptrdiff_t)b * s[0] +
                                             (ptrdiff_t)h * s[1] + (ptrdiff_t)i * s[2] +
                                             (ptrdiff_t)l * s[3];
                    const double x = sv__array_load(p, a->dtype, a->byte_swapped);
                    if (isfinite(x) || (mask && x == -INFINITY))
                        continue;
                    const size_t at[4] = {b, h, i, l};
                    for (int d = 0; index && d < a->ndim; d++)
                        index[d] = at[d + pad];
                    if (value)
                        *value = x;
                    return 1;
                }
    return 0;
}

int sv_array_find_nonfinite(const sv_array *a, size_t *index)
{
    return sv__array_find_bad(a, 0, index, NULL);
}

double sv_array_max_abs(const sv_array *a)
{
    if (!a || !sv__array_format_ok(a))
        return -1.0;
    size_t n[4];
    ptrdiff_t s[4];
    sv__array_axes4(a, n, s);
    double m = 0.0;
    for (size_t b = 0; b < n[0]; b++)
        for (size_t h = 0; h < n[1]; h++)
            for (size_t i = 0; i < n[2]; i++)
                for (size_t l = 0; l < n[3]; l++) {
                    const unsigned char *p = (const unsigned char *)a->data + (ptrdiff_t)b * s[0] +
                                             (ptrdiff_t)h * s[1] + (ptrdiff_t)i * s[2] +
                                             (ptrdiff_t)l * s[3];
                    const double x = fabs(sv__array_load(p, a->dtype, a->byte_swapped));
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

/* The first byte of the rows x cols matrix of trial t in array a (kv: a
 * is K or V, read at the trial's kv_head). */
const unsigned char *sv__strided_matrix(const sv_strided *all, const sv_array *a, uint64_t t,
                                        int kv)
{
    size_t n[4];
    ptrdiff_t s[4];
    sv__array_axes4(&all->q, n, s);
    const size_t hq = n[1];
    sv__array_axes4(&all->k, n, s);
    const size_t hkv = n[1]; /* divides hq: checked by check() */
    const size_t batch = (size_t)(t / hq);
    size_t h = (size_t)(t % hq);
    if (kv && hkv > 0)
        h /= hq / hkv;
    sv__array_axes4(a, n, s);
    return (const unsigned char *)a->data + (ptrdiff_t)batch * s[0] + (ptrdiff_t)h * s[1];
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
double sv__mask_value(double x, sv_dtype t)
{
    if (t == SV_DTYPE_BOOL)
        return x != 0.0 ? 0.0 : -INFINITY;
    return x <= lowest(t) ? -INFINITY : x;
}

double sv_mask_max_abs(const sv_array *a)
{
    if (!a || !sv__array_format_ok(a))
        return -1.0;
    size_t n[4];
    ptrdiff_t s[4];
    sv__array_axes4(a, n, s);
    double top = 0.0;
    for (size_t b = 0; b < n[0]; b++)
        for (size_t h = 0; h < n[1]; h++)
            for (size_t i = 0; i < n[2]; i++)
                for (size_t l = 0; l < n[3]; l++) {
                    const unsigned char *p = (const unsigned char *)a->data + (ptrdiff_t)b * s[0] +
                                             (ptrdiff_t)h * s[1] + (ptrdiff_t)i * s[2] +
                                             (ptrdiff_t)l * s[3];
                    const double x = sv__array_load(p, a->dtype, a->byte_swapped);
                    if (isnan(x) || x == INFINITY)
                        return NAN;
                    const double m = sv__mask_value(x, a->dtype);
                    if (isfinite(m) && fabs(m) > top)
                        top = fabs(m);
                }
    return top;
}
