/* The .npy reader and header writer (numpy.lib.format; NEP 1).
 *
 * The header is a Python dict literal. numpy evaluates it with
 * ast.literal_eval; here a small scanner accepts the subset numpy and other
 * writers produce and Python would read: the three keys in any order,
 * 'single' or "double" quoted strings, any whitespace, a trailing comma,
 * shapes (), (3,), (3, 4) and (3, 4,), True/False, and (versions 1.0 and
 * 2.0 only, as numpy's _filter_header) Python 2's long suffix 3L. Each
 * byte of the header is either consumed by that grammar or rejected; a
 * duplicated key is rejected too (Python would keep the last one). The
 * data must be exactly as long as the shape says: numpy.save writes no
 * more, and extra bytes mean the header's shape is not the data's.
 * Every index is checked against len before the byte is read. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sdpa_var/tensor_file.h"
#include "io_why.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6u
/* Nesting of brackets in a skipped value (a structured descr). */
#define NPY_MAX_DEPTH 32

/* A cursor over the header bytes p[0 .. n-1]; base: file offset of p[0]. */
typedef struct npy_cursor {
    const unsigned char *p;
    size_t i, n, base;
    int long_suffix; /* versions 1.0, 2.0: accept 3L */
} npy_cursor;

/* What the header says. */
typedef struct npy_header {
    const unsigned char *descr; /* the descr string's bytes (or the list's) */
    size_t descr_len;
    int descr_list; /* descr is a list: a structured dtype */
    int fortran;
    int ndim;    /* may exceed SV_ARRAY_MAX_DIMS; only the first are kept */
    int too_big; /* a dimension above SIZE_MAX */
    int seen[3]; /* descr, fortran_order, shape */
    size_t shape[SV_ARRAY_MAX_DIMS];
} npy_header;

static int peek(const npy_cursor *c)
{
    return c->i < c->n ? c->p[c->i] : -1;
}

static void skip_ws(npy_cursor *c)
{
    while (c->i < c->n && (c->p[c->i] == ' ' || c->p[c->i] == '\t' || c->p[c->i] == '\n' ||
                           c->p[c->i] == '\r' || c->p[c->i] == '\f' || c->p[c->i] == '\v'))
        c->i++;
}

static sv_status expected(const npy_cursor *c, const char *what, char *why, size_t why_len)
{
    sv__io_why(why, why_len, "malformed header: expected %s at byte %zu", what, c->base + c->i);
    return SV_EFORMAT;
}

/* A quoted string; *s, *len: its bytes between the quotes (escapes kept
 * as written: they never match a key or a float descr). */
static int scan_string(npy_cursor *c, const unsigned char **s, size_t *len)
{
    const int q = peek(c);
    if (q != '\'' && q != '"')
        return 0;
    const size_t start = ++c->i;
    while (c->i < c->n && c->p[c->i] != q && c->p[c->i] != '\n') {
        if (c->p[c->i] == '\\' && c->i + 1 < c->n && c->p[c->i + 1] != '\n')
            c->i++;
        c->i++;
    }
    if (peek(c) != q)
        return 0;
    *s = c->p + start;
    *len = c->i - start;
    c->i++;
    return 1;
}

/* A bare word (True, False, a dtype-free name); its length, 0 if none. */
static size_t scan_word(npy_cursor *c)
{
    const size_t start = c->i;
    while (c->i < c->n &&
           ((c->p[c->i] >= 'a' && c->p[c->i] <= 'z') || (c->p[c->i] >= 'A' && c->p[c->i] <= 'Z') ||
            c->p[c->i] == '_' || (c->i > start && c->p[c->i] >= '0' && c->p[c->i] <= '9')))
        c->i++;
    return c->i - start;
}

/* A Python int literal in decimal (no sign, no leading zeros, no '_'). */
static int scan_int(npy_cursor *c, size_t *v, int *too_big)
{
    const size_t start = c->i;
    size_t x = 0;
    while (c->i < c->n && c->p[c->i] >= '0' && c->p[c->i] <= '9') {
        const size_t d = (size_t)(c->p[c->i] - '0');
        if (x > (SIZE_MAX - d) / 10u)
            *too_big = 1;
        else
            x = x * 10u + d;
        c->i++;
    }
    if (c->i == start || (c->p[start] == '0' && c->i - start > 1 && x != 0))
        return 0;
    if (c->long_suffix && peek(c) == 'L')
        c->i++;
    *v = x;
    return 1;
}

/* shape: a tuple of ints, "(" [int ("," int)* [","]] ")"; "(3)" is an
 * int to Python, not a tuple. */
static sv_status parse_shape(npy_cursor *c, npy_header *h, char *why, size_t why_len)
{
    if (peek(c) != '(')
        return expected(c, "a tuple (the shape)", why, why_len);
    c->i++;
    skip_ws(c);
    int comma = 0;
    h->ndim = 0;
    while (peek(c) != ')') {
        size_t v = 0;
        if (h->ndim > 0 && !comma)
            return expected(c, "',' or ')' in the shape", why, why_len);
        if (!scan_int(c, &v, &h->too_big))
            return expected(c, "a non-negative integer in the shape", why, why_len);
        if (h->ndim < SV_ARRAY_MAX_DIMS)
            h->shape[h->ndim] = v;
        if (h->ndim < 64)
            h->ndim++;
        skip_ws(c);
        comma = peek(c) == ',';
        if (comma) {
            c->i++;
            skip_ws(c);
        }
    }
    if (h->ndim == 1 && !comma)
        return expected(c, "',' after the only dimension (a tuple)", why, why_len);
    c->i++;
    return SV_OK;
}

/* Skips a bracketed value (a structured descr's list of tuples). */
static sv_status skip_list(npy_cursor *c, char *why, size_t why_len)
{
    char stack[NPY_MAX_DEPTH];
    int depth = 0;
    do {
        const int ch = peek(c);
        const unsigned char *s;
        size_t len;
        if (ch == '\'' || ch == '"') {
            if (!scan_string(c, &s, &len))
                return expected(c, "the end of a string", why, why_len);
            continue;
        }
        if (ch < 0)
            return expected(c, "the end of the descr list", why, why_len);
        if (ch == '[' || ch == '(') {
            if (depth == NPY_MAX_DEPTH)
                return expected(c, "less nesting", why, why_len);
            stack[depth++] = ch == '[' ? ']' : ')';
        } else if (ch == ']' || ch == ')') {
            if (depth == 0 || stack[depth - 1] != ch)
                return expected(c, "a matching bracket", why, why_len);
            depth--;
        }
        c->i++;
    } while (depth > 0);
    return SV_OK;
}

static sv_status parse_value(npy_cursor *c, int key, npy_header *h, char *why, size_t why_len)
{
    if (key == 0) { /* descr */
        if (peek(c) == '[') {
            const size_t start = c->i;
            const sv_status st = skip_list(c, why, why_len);
            h->descr = c->p + start;
            h->descr_len = c->i - start;
            h->descr_list = 1;
            return st;
        }
        if (!scan_string(c, &h->descr, &h->descr_len))
            return expected(c, "a string or a list (the descr)", why, why_len);
        return SV_OK;
    }
    if (key == 2)
        return parse_shape(c, h, why, why_len);
    const size_t start = c->i, n = scan_word(c);
    if (n == 4 && memcmp(c->p + start, "True", 4) == 0)
        h->fortran = 1;
    else if (n == 5 && memcmp(c->p + start, "False", 5) == 0)
        h->fortran = 0;
    else {
        c->i = start;
        return expected(c, "True or False (fortran_order)", why, why_len);
    }
    return SV_OK;
}

/* One "'key': value" entry. */
static sv_status parse_entry(npy_cursor *c, npy_header *h, char *why, size_t why_len)
{
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    const unsigned char *s;
    size_t len;
    const size_t at = c->i;
    if (!scan_string(c, &s, &len))
        return expected(c, "a quoted key", why, why_len);
    int key = -1;
    for (int k = 0; k < 3; k++)
        if (len == strlen(keys[k]) && memcmp(s, keys[k], len) == 0)
            key = k;
    char q[64];
    sv__io_quote(q, sizeof q, s, len);
    if (key < 0 || h->seen[key]) {
        sv__io_why(why, why_len, "malformed header: key '%s' at byte %zu %s", q, c->base + at,
                   key < 0 ? "is not descr, fortran_order or shape" : "appears twice");
        return SV_EFORMAT;
    }
    h->seen[key] = 1;
    skip_ws(c);
    if (peek(c) != ':')
        return expected(c, "':'", why, why_len);
    c->i++;
    skip_ws(c);
    return parse_value(c, key, h, why, why_len);
}

/* The dict literal, whitespace around it, nothing else. */
static sv_status parse_dict(npy_cursor *c, npy_header *h, char *why, size_t why_len)
{
    skip_ws(c);
    if (peek(c) != '{')
        return expected(c, "'{'", why, why_len);
    c->i++;
    skip_ws(c);
    while (peek(c) != '}') {
        const sv_status st = parse_entry(c, h, why, why_len);
        if (st != SV_OK)
            return st;
        skip_ws(c);
        if (peek(c) == ',') {
            c->i++;
            skip_ws(c);
        } else if (peek(c) != '}') {
            return expected(c, "',' or '}'", why, why_len);
        }
    }
    c->i++;
    skip_ws(c);
    if (c->i != c->n)
        return expected(c, "only whitespace after the dict", why, why_len);
    for (int k = 0; k < 3; k++)
        if (!h->seen[k]) {
            static const char *const names[3] = {"descr", "fortran_order", "shape"};
            sv__io_why(why, why_len, "malformed header: no key '%s'", names[k]);
            return SV_EFORMAT;
        }
    return SV_OK;
}

/* The dtype of a descr: '<f8', '>f4', '=f2', '|f8' or 'f8'; '|b1' (numpy's
 * bool, for masks). */
static sv_status descr_dtype(const npy_header *h, sv_dtype *dt, int *swapped, char *why,
                             size_t why_len)
{
    const unsigned char *s = h->descr;
    size_t n = h->descr_len;
    int little = sv__io_little_endian();
    if (!h->descr_list && n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '=' || s[0] == '|')) {
        little = s[0] == '<' ? 1 : s[0] == '>' ? 0 : little;
        s++;
        n--;
    }
    if (!h->descr_list && n == 2 && s[0] == 'f' && (s[1] == '2' || s[1] == '4' || s[1] == '8')) {
        *dt = s[1] == '8' ? SV_DTYPE_FLOAT64 : s[1] == '4' ? SV_DTYPE_FLOAT32 : SV_DTYPE_FLOAT16;
        *swapped = little != sv__io_little_endian();
        return SV_OK;
    }
    if (!h->descr_list && ((n == 2 && s[0] == 'b' && s[1] == '1') || (n == 1 && s[0] == '?'))) {
        *dt = SV_DTYPE_BOOL;
        *swapped = 0;
        return SV_OK;
    }
    char q[64];
    sv__io_quote(q, sizeof q, h->descr, h->descr_len);
    if (h->descr_list)
        sv__io_why(why, why_len,
                   "dtype %s (structured) is not float16, float32 or float64 (or bool, a mask's)",
                   q);
    else
        sv__io_why(why, why_len,
                   "dtype '%s'%s is not float16, float32 or float64 (or bool, a mask's)", q,
                   n == 1 && s[0] == 'O' ? " (Python objects)" : "");
    return SV_EUNSUPPORTED;
}

/* numpy's repr of a shape tuple, "()", "(3,)", "(3, 4)", into buf (at
 * least 96 bytes: 4 dimensions of 20 digits fit). */
static void tuple_repr(char *buf, int ndim, const size_t *shape)
{
    size_t o = 0;
    buf[o++] = '(';
    for (int d = 0; d < ndim && d < SV_ARRAY_MAX_DIMS; d++)
        o += (size_t)snprintf(buf + o, 96 - o, "%zu%s", shape[d],
                              ndim == 1      ? ","
                              : d + 1 < ndim ? ", "
                                             : "");
    buf[o++] = ')';
    buf[o] = '\0';
}

/* The shape's checks, then its byte size into *bytes. */
static sv_status shape_bytes(const npy_header *h, size_t esize, size_t *bytes, char *why,
                             size_t why_len)
{
    char text[128] = "";
    if (!h->too_big && h->ndim <= SV_ARRAY_MAX_DIMS)
        tuple_repr(text, h->ndim, h->shape);
    if (h->ndim < 2 || h->ndim > SV_ARRAY_MAX_DIMS) {
        sv__io_why(why, why_len, "shape %s%shas %d dimension%s, not 2 to 4", text, *text ? " " : "",
                   h->ndim, h->ndim == 1 ? "" : "s");
        return SV_EUNSUPPORTED;
    }
    for (int d = 0; d < h->ndim; d++)
        if (h->shape[d] == 0) {
            sv__io_why(why, why_len, "shape %s%shas a zero dimension (an empty array)", text,
                       *text ? " " : "");
            return SV_EUNSUPPORTED;
        }
    size_t b = esize;
    for (int d = 0; d < h->ndim; d++) {
        if (h->too_big || b > (size_t)PTRDIFF_MAX / h->shape[d]) {
            sv__io_why(why, why_len, "the byte size of the shape%s%s overflows", *text ? " " : "",
                       text);
            return SV_ERANGE;
        }
        b *= h->shape[d];
    }
    *bytes = b;
    return SV_OK;
}

/* The preamble: magic, version, header length; *start, *hlen: where the
 * header is. */
static sv_status preamble(const unsigned char *p, size_t len, size_t *start, size_t *hlen,
                          int *major, char *why, size_t why_len)
{
    const size_t m = len < NPY_MAGIC_LEN ? len : NPY_MAGIC_LEN;
    if (memcmp(p, NPY_MAGIC, m) != 0) {
        sv__io_why(why, why_len, "not a .npy file: it does not begin with \\x93NUMPY");
        return SV_EFORMAT;
    }
    if (len < 10 || (p[6] >= 2 && len < 12)) {
        sv__io_why(why, why_len, "truncated: %zu bytes, shorter than the .npy preamble", len);
        return SV_EFORMAT;
    }
    if (p[6] < 1 || p[6] > 3 || p[7] != 0) {
        sv__io_why(why, why_len, ".npy format version %u.%u is not 1.0, 2.0 or 3.0", p[6], p[7]);
        return SV_EFORMAT;
    }
    *major = p[6];
    if (p[6] == 1) {
        *start = 10;
        *hlen = (size_t)p[8] | (size_t)p[9] << 8;
    } else {
        *start = 12;
        const uint32_t h =
            (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
        *hlen = h;
    }
    if (*hlen > len - *start) {
        sv__io_why(why, why_len, "header of %zu bytes runs past the end of the file (%zu bytes)",
                   *hlen, len);
        return SV_EFORMAT;
    }
    return SV_OK;
}

/* Strides of a C-order or Fortran-order array of shape h->shape. */
static void set_strides(const npy_header *h, size_t esize, sv_array *a)
{
    size_t s = esize;
    for (int k = 0; k < h->ndim; k++) {
        const int d = h->fortran ? k : h->ndim - 1 - k;
        a->shape[d] = h->shape[d];
        a->strides[d] = (ptrdiff_t)s;
        s *= h->shape[d];
    }
}

sv_status sv_npy_parse(const void *buf, size_t len, sv_array *out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!buf || !out) {
        sv__io_why(why, why_len, "no buffer or no output array");
        return SV_EINVAL;
    }
    const unsigned char *p = buf;
    size_t start = 0, hlen = 0;
    int major = 0;
    sv_status st = preamble(p, len, &start, &hlen, &major, why, why_len);
    if (st != SV_OK)
        return st;
    npy_cursor c = {.p = p + start, .i = 0, .n = hlen, .base = start, .long_suffix = major < 3};
    npy_header h = {0};
    if ((st = parse_dict(&c, &h, why, why_len)) != SV_OK)
        return st;
    sv_dtype dt;
    int swapped;
    if ((st = descr_dtype(&h, &dt, &swapped, why, why_len)) != SV_OK)
        return st;
    const size_t esize = dt == SV_DTYPE_FLOAT64   ? 8
                         : dt == SV_DTYPE_FLOAT32 ? 4
                         : dt == SV_DTYPE_BOOL    ? 1
                                                  : 2;
    size_t bytes = 0;
    if ((st = shape_bytes(&h, esize, &bytes, why, why_len)) != SV_OK)
        return st;
    const size_t have = len - start - hlen;
    if (have != bytes) {
        char text[128], q[64];
        tuple_repr(text, h.ndim, h.shape);
        sv__io_quote(q, sizeof q, h.descr, h.descr_len);
        sv__io_why(why, why_len, "%s: shape %s of '%s' needs %zu bytes of data, the file has %zu",
                   have < bytes ? "truncated" : "data longer than its shape", text, q, bytes, have);
        return SV_EFORMAT;
    }
    sv_array a = {.data = p + start + hlen, .dtype = dt, .byte_swapped = swapped, .ndim = h.ndim};
    set_strides(&h, esize, &a);
    *out = a;
    return SV_OK;
}

size_t sv_npy_header(char *buf, size_t len, sv_dtype dtype, int ndim, const size_t *shape)
{
    if (!buf || !shape || ndim < 1 || ndim > SV_ARRAY_MAX_DIMS ||
        (unsigned)dtype > SV_DTYPE_FLOAT16)
        return 0;
    /* numpy 1.24's _write_array_header: keys sorted, repr of each value,
     * then room to grow the first axis to 21 digits, then _wrap_header's
     * spaces and newline to a multiple of 64 (1..64 of them). */
    char dict[256], tuple[128], first[32];
    tuple_repr(tuple, ndim, shape);
    const int fl = snprintf(first, sizeof first, "%zu", shape[0]);
    const char order = sv__io_little_endian() ? '<' : '>';
    const int code = dtype == SV_DTYPE_FLOAT64 ? '8' : dtype == SV_DTYPE_FLOAT32 ? '4' : '2';
    const int dl =
        snprintf(dict, sizeof dict, "{'descr': '%cf%c', 'fortran_order': False, 'shape': %s, }%*s",
                 order, code, tuple, 21 - fl, "");
    if (dl <= 0 || (size_t)dl >= sizeof dict)
        return 0;
    const size_t hlen = (size_t)dl + 1, pad = 64 - (10 + hlen) % 64, total = 10 + hlen + pad;
    if (total > len)
        return 0;
    static const unsigned char preamble1[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    memcpy(buf, preamble1, sizeof preamble1);
    buf[8] = (char)((hlen + pad) & 0xffu);
    buf[9] = (char)((hlen + pad) >> 8);
    memcpy(buf + 10, dict, (size_t)dl);
    memset(buf + 10 + dl, ' ', pad);
    buf[total - 1] = '\n';
    return total;
}
