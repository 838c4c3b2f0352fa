/**
 * @file tensor_file.h
 * Tensor files as sv_arrays: the parsers of NumPy's .npy format and of
 * safetensors, on bytes the caller has (a memory map, a read buffer). No
 * I/O here: the caller opens, maps and names the file; these check every
 * byte they trust, so a lying header never leads to a read past @p len.
 * The array returned points into the caller's bytes.
 *
 * Thread safety, every function here unless its docstring says: pure.
 * Cost, every function here unless its docstring says: O(header bytes).
 */
#ifndef SDPA_VAR_TENSOR_FILE_H
#define SDPA_VAR_TENSOR_FILE_H

#ifndef SDPA_VAR_ADVANCED
#error "sdpa_var/tensor_file.h: define SDPA_VAR_ADVANCED first (advanced API, sdpa_var.h)"
#endif

#include <stddef.h>

#include "sdpa_var/source.h"
#include "sdpa_var/status.h"

/**
 * Parses the bytes of a .npy file, format version 1.0, 2.0 or 3.0
 * (numpy.lib.format; NEP 1): the magic "\x93NUMPY", the version, a
 * header length (2 bytes in 1.0, 4 in 2.0 and 3.0, little-endian), a
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
 * (latin-1, or UTF-8 in 3.0), then the data. descr '<f2' '<f4' '<f8' or
 * '>f2' '>f4' '>f8' ('=', '|' or no prefix: this machine's order), or
 * '|b1' (numpy's bool: SV_DTYPE_BOOL, a mask's dtype); a 2-,
 * 3- or 4-D shape; C or Fortran order (strides set accordingly).
 * The dict is read as Python would, for what numpy writes: keys in any
 * order, either quote, any whitespace, a trailing comma, shapes like
 * (3, 4) and (3, 4,), Python 2's 3L in versions 1.0 and 2.0. A key other
 * than the three, or one given twice, is malformed. The data must be
 * exactly as long as the shape says (numpy.save writes no more; extra
 * bytes mean the shape does not describe the data): SV_EFORMAT.
 * @param why NULL, or @p why_len bytes for one line (no file name, no
 *        newline, printable ASCII: bytes from the file are escaped \xNN)
 *        saying what is wrong, e.g. "dtype '<i4' is not float16, float32
 *        or float64 (or bool, a mask's)" or "truncated: shape (3, 4) of
 *        '<f8' needs 96 bytes of data, the file has 88". Cut short if
 *        longer than why_len.
 * @return SV_OK and *out set (data points into buf); SV_EINVAL for buf or
 *         out NULL; SV_EFORMAT for bytes that are not a valid .npy (bad
 *         magic or version, header past the end or not a dict of those
 *         three keys, data shorter or longer than the shape needs);
 *         SV_EUNSUPPORTED for a valid file sdpa-var cannot read (an
 *         object, integer, complex or structured dtype, ndim not 2..4, a
 *         zero dimension); SV_ERANGE for a shape whose byte size overflows
 *         (past PTRDIFF_MAX). *out untouched after an error.
 * Thread safety: thread-safe. Cost: O(len of the header); allocates
 * nothing.
 */
sv_status sv_npy_parse(const void *buf, size_t len, sv_array *out, char *why, size_t why_len);

/**
 * Parses the bytes of a .safetensors file (huggingface/safetensors): an
 * 8-byte little-endian header size N, N bytes of JSON (parsed with cJSON)
 * mapping names to {"dtype", "shape", "data_offsets": [begin, end]} (and an
 * optional "__metadata__", skipped), then the data, offsets counted from
 * byte 8 + N. Picks tensor @p name: NULL or "" for the only tensor. Checks
 * that N fits in the file (and is at most 100 000 000, the format's
 * limit), that each tensor's offsets lie in the data, that end - begin is
 * its shape's byte size, and, as the format's own validator does, that the
 * tensors cover the data exactly: no two overlap, no byte between or after
 * them belongs to none. Every tensor is checked, not only the one picked;
 * a tensor of another dtype (I64 token ids beside the activations) is
 * fine unless it is the one picked. Names are unique. Shape entries and
 * offsets must be whole JSON numbers below 2^53. Data are little-endian;
 * dtypes F16, BF16, F32, F64; 2- to 4-D shapes.
 * @param why as in sv_npy_parse; for a missing name it lists the tensors
 *        (in file order, quoted, cut short with "and N more"), e.g. "no
 *        tensor 'x' in the file; it holds 'q', 'k', 'v'". Names from the
 *        file are escaped (\xNN) so the line stays printable.
 * @return SV_OK and *out set; SV_EINVAL for buf or out NULL; SV_EFORMAT for
 *         malformed bytes (as above; also a JSON parse that cJSON fails
 *         for lack of memory, which it does not tell apart);
 *         SV_EUNSUPPORTED for the picked tensor of another dtype (I8, BOOL,
 *         ...), ndim not 2..4 or a zero dimension; SV_EMISMATCH when
 *         @p name is not in the file, or is NULL or "" and the file holds
 *         no tensor or several; SV_ERANGE for a byte size past
 *         PTRDIFF_MAX; SV_ENOMEM when the header's copy or the table cannot
 *         be allocated. *out untouched after an error.
 * Thread safety: thread-safe, except that cJSON writes its last error to
 * a global (cJSON 1.7), which this parser never reads.
 * Cost: copies the header (N + 1 bytes) for cJSON and allocates a table
 * of the tensors: O(N log N).
 */
sv_status sv_safetensors_parse(const void *buf, size_t len, const char *name, sv_array *out,
                               char *why, size_t why_len);

/**
 * The bytes of a tensor file of either format, told apart by their first
 * bytes: the magic "\x93NUMPY" is a .npy file (sv_npy_parse), an 8-byte
 * size followed by '{' a safetensors one (sv_safetensors_parse, picking
 * @p name). The CLI's --q, --k, --v and --mask read any file through it.
 * @param name the safetensors tensor; NULL or "" for a file's only array.
 *        A .npy file holds one array: a name for it is refused.
 * @param why as in sv_npy_parse, e.g. "not a .npy or .safetensors file
 *        (neither magic \x93NUMPY nor a safetensors header)" or "a .npy
 *        file holds one array (':NAME' picks a safetensors tensor)" (the
 *        CLI's FILE:NAME).
 * @return SV_OK and *out set (data points into buf); SV_EINVAL for buf or
 *         out NULL; SV_EFORMAT for bytes of neither format; SV_EMISMATCH
 *         for a name with a .npy file; else the parser's status.
 *         *out untouched after an error.
 * Thread safety and cost: the parser's (sv_safetensors_parse for a
 * safetensors file). Not in the WebAssembly build (no cJSON there).
 */
sv_status sv_tensor_file_parse(const void *buf, size_t len, const char *name, sv_array *out,
                               char *why, size_t why_len);

/**
 * The header of a version 1.0 .npy file holding a C-order, native
 * array of @p dtype (float64, float32 or float16; '<' on a little-endian
 * machine, '>' on a big-endian one) and shape @p shape[0 .. ndim-1]: the
 * bytes to write before the data, padded with spaces and a newline to a
 * multiple of 64 bytes, byte for byte as numpy 1.24's numpy.save writes
 * them (including its 21-digit room to grow the first axis).
 * @return the header's length, written to buf; 0 when buf or shape is NULL,
 *         len is too small, ndim is not 1..4 or dtype is out of range or
 *         SV_DTYPE_BFLOAT16 (numpy has no bfloat16).
 */
size_t sv_npy_header(char *buf, size_t len, sv_dtype dtype, int ndim, const size_t *shape);

#endif
