/* The strided source: rows of Q, K and V read from caller arrays of any
 * layout numpy or torch hands over (float64 or float32, byte strides of
 * any sign), widened to double. The engine cannot tell it from draws. */
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

/* Whether array a serves rows x cols per trial for trials [first, first +
 * count). */
static int shape_ok(const sv_array *a, size_t rows, size_t cols, uint64_t first, uint64_t count)
{
    if (a->shape[1] != rows || a->shape[2] != cols)
        return 0;
    if (a->ndim == 2)
        return first == 0 && count == 1;
    return first <= a->shape[0] && count <= a->shape[0] - first;
}

static int format_ok(const sv_array *a)
{
    return a->data && (a->ndim == 2 || a->ndim == 3) &&
           (a->dtype == SV_DTYPE_FLOAT64 || a->dtype == SV_DTYPE_FLOAT32);
}

/* Element (t, i, l) of a, widened to double. */
static double element(const sv_array *a, uint64_t t, size_t i, size_t l)
{
    const unsigned char *p = (const unsigned char *)a->data + (ptrdiff_t)i * a->strides[1] +
                             (ptrdiff_t)l * a->strides[2];
    if (a->ndim == 3)
        p += (ptrdiff_t)t * a->strides[0];
    if (a->dtype == SV_DTYPE_FLOAT64) {
        double v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    float f;
    memcpy(&f, p, sizeof f);
    return (double)f;
}

/* Largest |x| over the trials' slices of a, or NAN if any x is not finite. */
static double max_abs(const sv_array *a, uint64_t first, uint64_t count)
{
    double m = 0.0;
    for (uint64_t t = first; t < first + count; t++)
        for (size_t i = 0; i < a->shape[1]; i++)
            for (size_t l = 0; l < a->shape[2]; l++) {
                const double x = fabs(element(a, t, i, l));
                if (!isfinite(x))
                    return NAN;
                m = x > m ? x : m;
            }
    return m;
}

/* Caller data is checked like drawn data: a NaN or inf entry would reach
 * the softmax's max search (which assumes finite logits), and entries
 * whose scores could pass SV_SCORE_MAX (spec.h) would overflow the sums.
 * One pass over the arrays, O((n_q + n_k) d_k) next to the O(n_q n_k d_k)
 * product. */
static sv_status values_ok(const sv_strided *a, const sv_spec *spec, uint64_t first, uint64_t count)
{
    const double mq = max_abs(&a->q, first, count), mk = max_abs(&a->k, first, count);
    if (isnan(mq) || isnan(mk) || (spec->values && isnan(max_abs(&a->v, first, count))) ||
        (spec->grad && isnan(max_abs(&a->g, first, count))))
        return SV_EINVAL;
    const double bound = (double)spec->d_k * mq * mk;
    if (!(bound <= SV_SCORE_MAX && bound * spec->scale <= SV_SCORE_MAX))
        return SV_EOVERFLOW;
    return SV_OK;
}

static sv_status strided_check(const sv_source *src, const sv_spec *spec, uint64_t first,
                               uint64_t count)
{
    const sv_strided *a = src->impl;
    if (!format_ok(&a->q) || !format_ok(&a->k) || (spec->values && !format_ok(&a->v)) ||
        (spec->grad && !format_ok(&a->g)))
        return SV_EFORMAT;
    /* The draw fields would describe rows the arrays do not hold. */
    if (spec->plant != 0.0 || spec->qk_norm || spec->d_model > 0)
        return SV_EMISMATCH;
    if (!shape_ok(&a->q, spec->n_q, spec->d_k, first, count) ||
        !shape_ok(&a->k, spec->n_k, spec->d_k, first, count) ||
        (spec->values && !shape_ok(&a->v, spec->n_k, spec->d_v, first, count)) ||
        (spec->grad && !shape_ok(&a->g, spec->n_q, spec->d_v, first, count)))
        return SV_EMISMATCH;
    return values_ok(a, spec, first, count);
}

static void strided_rows(const sv_source *src, const double *state, uint64_t trial, sv_matrix which,
                         size_t row0, size_t m, double *x, size_t ld, double *scratch)
{
    (void)state;
    (void)scratch;
    const sv_array *a = array_of(src->impl, which);
    const size_t cols = a->shape[2];
    const unsigned char *base = a->data;
    if (a->ndim == 3)
        base += (ptrdiff_t)trial * a->strides[0];
    for (size_t i = 0; i < m; i++) {
        const unsigned char *row = base + (ptrdiff_t)(row0 + i) * a->strides[1];
        double *out = x + i * ld;
        /* memcpy: an element need not be aligned in a caller's buffer */
        if (a->dtype == SV_DTYPE_FLOAT64) {
            for (size_t l = 0; l < cols; l++)
                memcpy(&out[l], row + (ptrdiff_t)l * a->strides[2], sizeof(double));
        } else {
            for (size_t l = 0; l < cols; l++) {
                float f;
                memcpy(&f, row + (ptrdiff_t)l * a->strides[2], sizeof f);
                out[l] = (double)f; /* exact */
            }
        }
    }
}

sv_status sv_source_strided(const sv_strided *arrays, sv_source *src)
{
    if (!arrays || !src)
        return SV_EINVAL;
    if (!format_ok(&arrays->q) || !format_ok(&arrays->k) ||
        (arrays->v.data && !format_ok(&arrays->v)) || (arrays->g.data && !format_ok(&arrays->g)))
        return SV_EFORMAT;
    *src = (sv_source){
        .impl = arrays, .measure_entries = 1, .check = strided_check, .rows = strided_rows};
    return SV_OK;
}
