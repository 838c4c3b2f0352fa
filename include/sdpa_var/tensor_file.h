/**
 * @file tensor_file.h
 * Tensor files as sv_arrays: the parsers of NumPy's .npy format and of
 * safetensors, on bytes the caller has (a memory map, a read buffer). No
 * I/O here: the caller opens, maps and names the file; these check every
 * byte they trust, so a lying header never leads to a read past @p len.
 * The array returned points into the caller's bytes.
 */
#ifndef SDPA_VAR_TENSOR_FILE_H
#define SDPA_VAR_TENSOR_FILE_H

#include <stddef.h>

#include "sdpa_var/source.h"
#include "sdpa_var/status.h"

/**
 * Parses the bytes of a .npy file, format version 1.0, 2.0 or 3.0
 * (numpy.lib.format; NEP 1): the magic "\x93NUMPY", the version, a
 * header length (2 bytes in 1.0, 4 in 2.0 and 3.0, little-endian), a
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
 * (latin-1, or UTF-8 in 3.0), then the data. descr '<f2' '<f4' '<f8' or
 * '>f2' '>f4' '>f8' ('=' as '<' on a little-endian machine); a 2-, 3- or
 * 4-D shape; C or Fortran order (strides set accordingly).
 * @param why NULL, or @p why_len bytes for one line (no file name, no
 *        newline) saying what is wrong, e.g. "dtype '<i4' is not a float
 *        (float16, float32, float64)".
 * @return SV_OK and *out set (data points into buf); SV_EINVAL for buf or
 *         out NULL; SV_EFORMAT for bytes that are not a valid .npy (bad
 *         magic or version, header past the end or not a dict of those
 *         three keys, data shorter than the shape needs); SV_EUNSUPPORTED
 *         for a valid file sdpa-var cannot read (an object, integer,
 *         complex or structured dtype, ndim not 2..4, a zero dimension);
 *         SV_ERANGE for a shape whose byte size overflows size_t. *out
 *         untouched after an error.
 */
sv_status sv_npy_parse(const void *buf, size_t len, sv_array *out, char *why, size_t why_len);

/**
 * Parses the bytes of a .safetensors file (huggingface/safetensors): an
 * 8-byte little-endian header size N, N bytes of JSON (parsed with cJSON)
 * mapping names to {"dtype", "shape", "data_offsets": [begin, end]} (and an
 * optional "__metadata__"), then the data, offsets counted from byte
 * 8 + N. Picks tensor @p name: NULL or "" for the only tensor. Checks
 * that N fits in the file (and is at most 100 000 000, the format's
 * limit), that each tensor's offsets lie in the data, that end - begin is
 * its shape's byte size, and that no two tensors overlap. Data are
 * little-endian; dtypes F16, BF16, F32, F64; 2- to 4-D shapes.
 * @param why as in sv_npy_parse; for a missing name it lists the tensors.
 * @return SV_OK and *out set; SV_EINVAL for buf or out NULL; SV_EFORMAT for
 *         malformed bytes (as above); SV_EUNSUPPORTED for another dtype
 *         (I8, BOOL, ...) or ndim not 2..4 or a zero dimension;
 *         SV_EMISMATCH when @p name is not in the file, or is NULL or ""
 *         and the file holds several tensors; SV_ERANGE for a byte size
 *         that overflows; SV_ENOMEM when cJSON cannot allocate. *out
 *         untouched after an error.
 */
sv_status sv_safetensors_parse(const void *buf, size_t len, const char *name, sv_array *out,
                               char *why, size_t why_len);

/**
 * The header of a version 1.0 .npy file holding a C-order, native
 * (little-endian) array of @p dtype and shape @p shape[0 .. ndim-1]: the
 * bytes to write before the data, padded with spaces and a newline to a
 * multiple of 64 bytes, as numpy.save writes them.
 * @return the header's length, written to buf; 0 when buf is NULL, len is
 *         too small, ndim is not 1..4 or dtype is out of range.
 */
size_t sv_npy_header(char *buf, size_t len, sv_dtype dtype, int ndim, const size_t *shape);

#endif
