/* Reading a caller's array (strided_read.c), for the strided source
 * (strided.c) and its check (strided_check.c). Internal to the library. */
#ifndef SDPA_VAR_STRIDED_READ_H
#define SDPA_VAR_STRIDED_READ_H

#include <stddef.h>

#include "sdpa_var/source.h"

/* a has data, 2..4 axes and a known dtype. */
int sv__array_format_ok(const sv_array *a);

/* Axis sizes and strides of a as batch x heads x rows x cols (a missing
 * axis has size 1 and stride 0). */
void sv__array_axes4(const sv_array *a, size_t shape[4], ptrdiff_t strides[4]);

/* The element at p of dtype t (swapped: the other byte order) as a double. */
double sv__array_load(const unsigned char *p, sv_dtype t, int swapped);

/* cols elements of a row at p, sc bytes apart, widened into out. */
void sv__array_load_row(const unsigned char *p, ptrdiff_t sc, size_t cols, sv_dtype t, int swapped,
                        double *out);

/* The first byte of the rows x cols matrix of trial t in array a of all
 * (kv: a is K or V, read at the trial's kv_head). */
const unsigned char *sv__strided_matrix(const sv_strided *all, const sv_array *a, uint64_t t,
                                        int kv);

/* The first entry of a, row-major, that is not finite (mask: NaN or +inf,
 * -inf excluding a key): 1 with its indices in index[0 .. ndim-1] and its
 * value in *value, else 0. */
int sv__array_find_bad(const sv_array *a, int mask, size_t *index, double *value);

/* Mask entry x of dtype t as an additive value on the scaled logits:
 * -INFINITY for false and for the dtype's lowest value (HF's fill). */
double sv__mask_value(double x, sv_dtype t);

#endif
