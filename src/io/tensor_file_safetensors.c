/* The safetensors reader (huggingface/safetensors, safetensors/src/tensor.rs).
 *
 * The header is copied out and NUL-terminated before cJSON sees it, so the
 * JSON parser never depends on the caller's buffer having a byte after
 * it. Every tensor of the file is checked as the format's own validator
 * does, not only the one asked for: a file whose table lies about any
 * tensor is malformed. Tensors must cover the data exactly, in order of
 * their offsets, without overlaps or holes ("the byte buffer needs to be
 * entirely indexed, and cannot contain holes", the format's README).
 * JSON numbers are doubles in cJSON: offsets and dimensions must be whole
 * numbers below 2^53 (far beyond any file that can be mapped). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sdpa_var/tensor_file.h"
#include "alloc.h"
#include "io_why.h"

/* The format's cap on the header's size (tensor.rs, MAX_HEADER_SIZE). */
#define ST_MAX_HEADER 100000000u
/* Largest JSON number taken as a whole number exactly. */
#define ST_MAX_INT 9007199254740992.0
/* Names listed in a why line before "and N more". */
#define ST_LIST_CHARS 160u

/* What one tensor entry says. */
typedef struct st_tensor {
    const char *name;
    const char *dtype_name;
    int dtype;    /* an sv_dtype, or -1 */
    size_t esize; /* bytes per element; 0 for a dtype of unknown size */
    size_t ndim;  /* may exceed SV_ARRAY_MAX_DIMS */
    size_t shape[SV_ARRAY_MAX_DIMS];
    uint64_t begin, end;
    uint64_t bytes; /* shape's byte size (if esize is known and no overflow) */
    int overflow;   /* the byte size passes PTRDIFF_MAX */
} st_tensor;

static const struct {
    const char *name;
    size_t size;
    int dtype;
} st_dtypes[] = {{"F64", 8, SV_DTYPE_FLOAT64},
                 {"F32", 4, SV_DTYPE_FLOAT32},
                 {"F16", 2, SV_DTYPE_FLOAT16},
                 {"BF16", 2, SV_DTYPE_BFLOAT16},
                 {"I64", 8, -1},
                 {"U64", 8, -1},
                 {"I32", 4, -1},
                 {"U32", 4, -1},
                 {"I16", 2, -1},
                 {"U16", 2, -1},
                 {"I8", 1, -1},
                 {"U8", 1, -1},
                 {"BOOL", 1, -1},
                 {"F8_E5M2", 1, -1},
                 {"F8_E4M3", 1, -1},
                 {"F8_E8M0", 1, -1},
                 {"C64", 8, -1}};

/* A JSON number that is a whole number in [0, 2^53). */
static int whole(const cJSON *j, uint64_t *v)
{
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0.0 && j->valuedouble < ST_MAX_INT) ||
        j->valuedouble != (double)(uint64_t)j->valuedouble)
        return 0;
    *v = (uint64_t)j->valuedouble;
    return 1;
}

/* name, quoted for a why line. */
static void quoted(char *dst, size_t cap, const char *name)
{
    sv__io_quote(dst, cap, name, strlen(name));
}

static sv_status bad_entry(const st_tensor *t, const char *what, char *why, size_t why_len)
{
    char q[80];
    quoted(q, sizeof q, t->name);
    sv__io_why(why, why_len, "malformed header: tensor '%s': %s", q, what);
    return SV_EFORMAT;
}

/* dtype, shape and data_offsets of entry j into t. */
static sv_status read_entry(const cJSON *j, st_tensor *t, char *why, size_t why_len)
{
    if (!cJSON_IsObject(j))
        return bad_entry(t, "not a JSON object", why, why_len);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(j, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(j, "data_offsets");
    if (!cJSON_IsString(dt))
        return bad_entry(t, "no \"dtype\" string", why, why_len);
    if (!cJSON_IsArray(sh))
        return bad_entry(t, "no \"shape\" array", why, why_len);
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 ||
        !whole(cJSON_GetArrayItem(off, 0), &t->begin) ||
        !whole(cJSON_GetArrayItem(off, 1), &t->end))
        return bad_entry(t, "\"data_offsets\" is not [begin, end] (whole numbers)", why, why_len);
    t->dtype_name = dt->valuestring;
    t->dtype = -1;
    for (size_t k = 0; k < sizeof st_dtypes / sizeof st_dtypes[0]; k++)
        if (strcmp(dt->valuestring, st_dtypes[k].name) == 0) {
            t->dtype = st_dtypes[k].dtype;
            t->esize = st_dtypes[k].size;
        }
    uint64_t elems = 1;
    int zero = 0;
    const cJSON *d;
    t->ndim = 0;
    cJSON_ArrayForEach(d, sh)
    {
        uint64_t v;
        if (!whole(d, &v))
            return bad_entry(t, "\"shape\" is not an array of whole numbers", why, why_len);
        if (t->ndim < SV_ARRAY_MAX_DIMS)
            t->shape[t->ndim] = (size_t)v;
        t->ndim++;
        zero |= v == 0;
        if (v != 0 && elems > (uint64_t)PTRDIFF_MAX / v)
            t->overflow = 1;
        else
            elems *= v;
    }
    if (zero) { /* an empty tensor: 0 bytes whatever the other dimensions */
        t->overflow = 0;
        elems = 0;
    }
    if (t->esize != 0 && elems > (uint64_t)PTRDIFF_MAX / t->esize)
        t->overflow = 1;
    t->bytes = elems * t->esize;
    return SV_OK;
}

/* Each entry (but __metadata__) into ts[0 .. *n-1], checked on its own. */
static sv_status read_table(const cJSON *root, uint64_t data_len, st_tensor *ts, size_t *n,
                            char *why, size_t why_len)
{
    const cJSON *j;
    size_t k = 0;
    cJSON_ArrayForEach(j, root)
    {
        if (strcmp(j->string, "__metadata__") == 0)
            continue;
        st_tensor *t = &ts[k++];
        t->name = j->string;
        const sv_status st = read_entry(j, t, why, why_len);
        if (st != SV_OK)
            return st;
        char msg[160];
        if (t->begin > t->end || t->end > data_len) {
            if (t->begin > t->end)
                snprintf(msg, sizeof msg, "data_offsets [%llu, %llu] end before they begin",
                         (unsigned long long)t->begin, (unsigned long long)t->end);
            else
                snprintf(msg, sizeof msg,
                         "data_offsets [%llu, %llu] run past the data (%llu bytes)",
                         (unsigned long long)t->begin, (unsigned long long)t->end,
                         (unsigned long long)data_len);
            return bad_entry(t, msg, why, why_len);
        }
        if (t->overflow) {
            char q[80];
            quoted(q, sizeof q, t->name);
            sv__io_why(why, why_len, "tensor '%s': the shape's byte size overflows", q);
            return SV_ERANGE;
        }
        if (t->esize != 0 && t->bytes != t->end - t->begin) {
            char dq[40];
            quoted(dq, sizeof dq, t->dtype_name);
            snprintf(msg, sizeof msg, "data_offsets span %llu bytes, its shape of %s needs %llu",
                     (unsigned long long)(t->end - t->begin), dq, (unsigned long long)t->bytes);
            return bad_entry(t, msg, why, why_len);
        }
    }
    *n = k;
    return SV_OK;
}

static int by_offset(const void *a, const void *b)
{
    const st_tensor *x = *(const st_tensor *const *)a, *y = *(const st_tensor *const *)b;
    return x->begin != y->begin ? (x->begin > y->begin ? 1 : -1)
                                : (x->end > y->end) - (x->end < y->end);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const st_tensor *const *)a)->name, (*(const st_tensor *const *)b)->name);
}

/* No two names alike; the tensors cover [0, data_len) exactly. */
static sv_status check_layout(st_tensor **idx, size_t n, uint64_t data_len, char *why,
                              size_t why_len)
{
    char q[80], r[80];
    qsort(idx, n, sizeof(st_tensor *), by_name);
    for (size_t k = 1; k < n; k++)
        if (strcmp(idx[k - 1]->name, idx[k]->name) == 0) {
            quoted(q, sizeof q, idx[k]->name);
            sv__io_why(why, why_len, "malformed header: tensor '%s' appears twice", q);
            return SV_EFORMAT;
        }
    qsort(idx, n, sizeof(st_tensor *), by_offset);
    uint64_t at = 0;
    for (size_t k = 0; k <= n; k++) {
        const uint64_t begin = k < n ? idx[k]->begin : data_len;
        if (begin < at) {
            quoted(q, sizeof q, idx[k - 1]->name);
            quoted(r, sizeof r, idx[k]->name);
            sv__io_why(why, why_len,
                       "malformed header: tensors '%s' and '%s' overlap (bytes %llu to %llu and "
                       "%llu to %llu of the data)",
                       q, r, (unsigned long long)idx[k - 1]->begin, (unsigned long long)at,
                       (unsigned long long)begin, (unsigned long long)idx[k]->end);
            return SV_EFORMAT;
        }
        if (begin > at) {
            sv__io_why(why, why_len,
                       "malformed header: bytes %llu to %llu of the data (%llu bytes) belong to "
                       "no tensor",
                       (unsigned long long)at, (unsigned long long)begin,
                       (unsigned long long)data_len);
            return SV_EFORMAT;
        }
        if (k < n)
            at = idx[k]->end;
    }
    return SV_OK;
}

/* The tensors' names in file order, quoted, into buf (cap bytes). */
static void list_names(const st_tensor *ts, size_t n, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        char q[80];
        quoted(q, sizeof q, ts[k].name);
        if (o + strlen(q) + 4 > ST_LIST_CHARS || o + strlen(q) + 40 > cap) {
            snprintf(buf + o, cap - o, "%sand %zu more", k ? ", " : "", n - k);
            return;
        }
        o += (size_t)snprintf(buf + o, cap - o, "%s'%s'", k ? ", " : "", q);
    }
}

/* The tensor called name (NULL or "": the only one). */
static sv_status pick(const st_tensor *ts, size_t n, const char *name, size_t *at, char *why,
                      size_t why_len)
{
    char list[ST_LIST_CHARS + 48], q[80];
    list_names(ts, n, list, sizeof list);
    if (!name || !*name) {
        if (n == 1) {
            *at = 0;
            return SV_OK;
        }
        if (n == 0)
            sv__io_why(why, why_len, "the file holds no tensors");
        else
            sv__io_why(why, why_len, "the file holds %zu tensors: name one of %s", n, list);
        return SV_EMISMATCH;
    }
    for (size_t k = 0; k < n; k++)
        if (strcmp(ts[k].name, name) == 0) {
            *at = k;
            return SV_OK;
        }
    quoted(q, sizeof q, name);
    if (n == 0)
        sv__io_why(why, why_len, "no tensor '%s': the file holds no tensors", q);
    else
        sv__io_why(why, why_len, "no tensor '%s' in the file; it holds %s", q, list);
    return SV_EMISMATCH;
}

/* The chosen tensor as an sv_array, or why not. */
static sv_status to_array(const st_tensor *t, const unsigned char *data, sv_array *out, char *why,
                          size_t why_len)
{
    char q[80], dq[48];
    quoted(q, sizeof q, t->name);
    if (t->dtype < 0) {
        quoted(dq, sizeof dq, t->dtype_name);
        sv__io_why(why, why_len, "tensor '%s': dtype %s is not F16, BF16, F32 or F64", q, dq);
        return SV_EUNSUPPORTED;
    }
    if (t->ndim < 2 || t->ndim > SV_ARRAY_MAX_DIMS) {
        sv__io_why(why, why_len, "tensor '%s': shape has %zu dimension%s, not 2 to 4", q, t->ndim,
                   t->ndim == 1 ? "" : "s");
        return SV_EUNSUPPORTED;
    }
    sv_array a = {.data = data + t->begin,
                  .dtype = (sv_dtype)t->dtype,
                  .byte_swapped = !sv__io_little_endian(),
                  .ndim = (int)t->ndim};
    size_t s = t->esize;
    for (int d = a.ndim - 1; d >= 0; d--) {
        if (t->shape[d] == 0) {
            sv__io_why(why, why_len, "tensor '%s': shape has a zero dimension (an empty tensor)",
                       q);
            return SV_EUNSUPPORTED;
        }
        a.shape[d] = t->shape[d];
        a.strides[d] = (ptrdiff_t)s;
        s *= t->shape[d];
    }
    *out = a;
    return SV_OK;
}

/* The header's JSON object, or why not; *root to cJSON_Delete. */
static sv_status parse_header(const unsigned char *p, size_t n, cJSON **root, char *why,
                              size_t why_len)
{
    char *text = sv__malloc(n + 1);
    if (!text) {
        sv__io_why(why, why_len, "out of memory for a header of %zu bytes", n);
        return SV_ENOMEM;
    }
    memcpy(text, p, n);
    text[n] = '\0';
    const char *end = NULL;
    *root = cJSON_ParseWithOpts(text, &end, 0);
    size_t at = end ? (size_t)(end - text) : 0;
    while (*root && at < n &&
           (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
        at++;
    sv__free(text);
    if (!*root || at != n || !cJSON_IsObject(*root)) {
        sv__io_why(why, why_len, "malformed header: %s at byte %zu of the file",
                   !*root    ? "not valid JSON"
                   : at != n ? "bytes after the JSON"
                             : "not a JSON object",
                   8 + (*root && at == n ? 0 : at));
        cJSON_Delete(*root);
        *root = NULL;
        return SV_EFORMAT;
    }
    return SV_OK;
}

sv_status sv_safetensors_parse(const void *buf, size_t len, const char *name, sv_array *out,
                               char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!buf || !out) {
        sv__io_why(why, why_len, "no buffer or no output array");
        return SV_EINVAL;
    }
    const unsigned char *p = buf;
    if (len < 8) {
        sv__io_why(why, why_len, "truncated: %zu bytes, shorter than the 8-byte header size", len);
        return SV_EFORMAT;
    }
    uint64_t n = 0;
    for (int k = 7; k >= 0; k--)
        n = n << 8 | p[k];
    if (n > ST_MAX_HEADER || n > len - 8) {
        sv__io_why(why, why_len, "header size %llu %s (%zu bytes)", (unsigned long long)n,
                   n > ST_MAX_HEADER ? "is past the format's limit of 100000000"
                                     : "runs past the end of the file",
                   len);
        return SV_EFORMAT;
    }
    cJSON *root = NULL;
    sv_status st = parse_header(p + 8, (size_t)n, &root, why, why_len);
    if (st != SV_OK)
        return st;
    const size_t count = (size_t)cJSON_GetArraySize(root);
    st_tensor *ts = sv__calloc(count + 1, sizeof *ts);
    st_tensor **idx = sv__calloc(count + 1, sizeof(st_tensor *));
    size_t nt = 0, at = 0;
    if (!ts || !idx) {
        sv__io_why(why, why_len, "out of memory for a table of %zu tensors", count);
        st = SV_ENOMEM;
    }
    const uint64_t data_len = len - 8 - n;
    if (st == SV_OK)
        st = read_table(root, data_len, ts, &nt, why, why_len);
    for (size_t k = 0; st == SV_OK && k < nt; k++)
        idx[k] = &ts[k];
    if (st == SV_OK)
        st = check_layout(idx, nt, data_len, why, why_len);
    if (st == SV_OK)
        st = pick(ts, nt, name, &at, why, why_len);
    if (st == SV_OK)
        st = to_array(&ts[at], p + 8 + n, out, why, why_len);
    sv__free(idx);
    sv__free(ts);
    cJSON_Delete(root);
    return st;
}

sv_status sv_tensor_file_parse(const void *buf, size_t len, const char *name, sv_array *out,
                               char *why, size_t why_len)
{
    const unsigned char *b = buf;
    if (why && why_len)
        why[0] = '\0';
    if (!buf || !out) {
        sv__io_why(why, why_len, "no buffer or no output array");
        return SV_EINVAL;
    }
    if (len >= 6 && memcmp(b, "\x93NUMPY", 6) == 0) {
        if (!name || !*name)
            return sv_npy_parse(buf, len, out, why, why_len);
        sv__io_why(why, why_len,
                   "a .npy file holds one array (':NAME' picks a safetensors tensor)");
        return SV_EMISMATCH;
    }
    if (len >= 9 && b[8] == '{') /* 8-byte size, then the JSON header */
        return sv_safetensors_parse(buf, len, name, out, why, why_len);
    sv__io_why(why, why_len,
               "not a .npy or .safetensors file (neither magic \\x93NUMPY nor a safetensors "
               "header)");
    return SV_EFORMAT;
}
