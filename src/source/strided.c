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
#include "strided_check.h"
#include "strided_read.h"

/* The array of matrix `which`. */
static const sv_array *array_of(const sv_strided *a, sv_matrix which)
{
    return which == SV_MATRIX_Q   ? &a->q
           : which == SV_MATRIX_K ? &a->k
           : which == SV_MATRIX_G ? &a->g
                                  : &a->v;
}

/* Q, K, V and G hold numbers: a bool array is a mask only. */
static int data_ok(const sv_array *a)
{
    return sv__array_format_ok(a) && a->dtype != SV_DTYPE_BOOL;
}

/* Batch and head counts of Q (and G) against K (and V): the GQA rules. */
static sv_status heads_ok(const sv_strided *a, size_t *batch, size_t *heads_q, size_t *heads_kv)
{
    size_t q[4], k[4], o[4];
    ptrdiff_t s[4];
    sv__array_axes4(&a->q, q, s);
    sv__array_axes4(&a->k, k, s);
    if (q[0] != k[0] || k[1] == 0 || q[1] % k[1] != 0)
        return SV_EMISMATCH;
    if (a->v.data) {
        sv__array_axes4(&a->v, o, s);
        if (o[0] != k[0] || o[1] != k[1])
            return SV_EMISMATCH;
    }
    if (a->g.data) {
        sv__array_axes4(&a->g, o, s);
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
        (arrays->mask.data && !sv__array_format_ok(&arrays->mask)))
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

sv_status sv_strided_sizes(const sv_strided *arrays, sv_spec *spec)
{
    uint64_t trials = 0;
    const sv_status st = spec ? sv_strided_head(arrays, 0, &trials, NULL) : SV_EINVAL;
    if (st != SV_OK)
        return st;
    const sv_array *q = &arrays->q, *k = &arrays->k, *v = &arrays->v;
    spec->d_k = q->shape[q->ndim - 1];
    spec->n_q = q->shape[q->ndim - 2];
    spec->n_k = k->shape[k->ndim - 2];
    spec->trials = trials;
    spec->values = v->data != NULL;
    spec->d_v = v->data ? v->shape[v->ndim - 1] : 0;
    return SV_OK;
}

/* The mask's byte offset of (trial, row), its axes broadcast. */
static const unsigned char *mask_row(const sv_strided *all, uint64_t trial, size_t row, size_t n[4],
                                     ptrdiff_t s[4])
{
    size_t nq[4];
    ptrdiff_t sq[4];
    sv__array_axes4(&all->q, nq, sq);
    const size_t batch = (size_t)(trial / nq[1]), head = (size_t)(trial % nq[1]);
    sv__array_axes4(&all->mask, n, s);
    return (const unsigned char *)all->mask.data + (n[0] > 1 ? (ptrdiff_t)batch * s[0] : 0) +
           (n[1] > 1 ? (ptrdiff_t)head * s[1] : 0) + (n[2] > 1 ? (ptrdiff_t)row * s[2] : 0);
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
        x[l] = sv__mask_value(sv__array_load(base + at, a->dtype, a->byte_swapped), a->dtype);
    }
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
    const unsigned char *base = sv__strided_matrix(all, a, trial, kv);
    for (size_t i = 0; i < m; i++) {
        const unsigned char *row = base + (ptrdiff_t)(row0 + i) * sr;
        sv__array_load_row(row, sc, cols, a->dtype, a->byte_swapped, x + i * ld);
    }
}

static const char *const layout_names[SV_LAYOUTS] = {"bhnd", "bnhd"};

const char *sv_layout_name(sv_layout layout)
{
    return (unsigned)layout < SV_LAYOUTS ? layout_names[layout] : NULL;
}

sv_status sv_layout_parse(const char *name, sv_layout *layout)
{
    for (int i = 0; name && layout && i < SV_LAYOUTS; i++)
        if (strcmp(name, layout_names[i]) == 0) {
            *layout = (sv_layout)i;
            return SV_OK;
        }
    return SV_EINVAL;
}

sv_status sv_array_to_bhnd(sv_array *a, sv_layout layout)
{
    if (!a || (unsigned)layout >= SV_LAYOUTS || a->ndim < 2 || a->ndim > SV_ARRAY_MAX_DIMS)
        return SV_EINVAL;
    if (layout == SV_LAYOUT_BHND || a->ndim == 2)
        return SV_OK;
    const int i = a->ndim - 3; /* heads; positions next */
    const size_t n = a->shape[i];
    const ptrdiff_t d = a->strides[i];
    a->shape[i] = a->shape[i + 1];
    a->strides[i] = a->strides[i + 1];
    a->shape[i + 1] = n;
    a->strides[i + 1] = d;
    return SV_OK;
}

static sv_status strided_check(const sv_source *src, const sv_spec *spec, uint64_t first,
                               uint64_t count)
{
    return sv__strided_check(src->impl, spec, first, count, NULL);
}

sv_status sv_source_strided(const sv_strided *arrays, sv_source *src)
{
    if (!arrays || !src)
        return SV_EINVAL;
    if (!data_ok(&arrays->q) || !data_ok(&arrays->k) || (arrays->v.data && !data_ok(&arrays->v)) ||
        (arrays->g.data && !data_ok(&arrays->g)) ||
        (arrays->mask.data && !sv__array_format_ok(&arrays->mask)))
        return SV_EFORMAT;
    *src = (sv_source){.impl = arrays,
                       .measure_entries = 1,
                       .check = strided_check,
                       .rows = strided_rows,
                       .mask = arrays->mask.data ? strided_mask : NULL};
    return SV_OK;
}
