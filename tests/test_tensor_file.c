/* The tensor-file parsers (tensor_file.h) on hand-built buffers: each dtype
 * (half subnormals and infinities, bfloat16) decoded exactly through the
 * strided source, byte-swapped and Fortran-order arrays, every error class
 * each docstring promises with its why line, and sv_npy_header against the
 * bytes numpy.save writes. Each parse gets a malloc'd copy of exactly the
 * buffer's length, so a read past the end is a read past an allocation
 * (the asan preset and valgrind see it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* Little-endian on x86: the hand-built bytes below are written so. */
static int little(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b;
}

/* A .npy file: the preamble of `version`, header text (newline added), data. */
static size_t npy(unsigned char *out, int version, const char *dict, const void *data, size_t n)
{
    const size_t h = strlen(dict) + 1, pre = version == 1 ? 10 : 12;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)version;
    out[7] = 0;
    for (size_t k = 0; k < pre - 8; k++)
        out[8 + k] = (unsigned char)(h >> (8 * k));
    memcpy(out + pre, dict, h - 1);
    out[pre + h - 1] = '\n';
    memcpy(out + pre + h, data, n);
    return pre + h + n;
}

/* A .safetensors file: header size, JSON, data. */
static size_t st(unsigned char *out, const char *json, const void *data, size_t n)
{
    const size_t h = strlen(json);
    for (int k = 0; k < 8; k++)
        out[k] = (unsigned char)((uint64_t)h >> (8 * k));
    memcpy(out + 8, json, h);
    memcpy(out + 8 + h, data, n);
    return 8 + h + n;
}

static unsigned char file[8192];
static char why[256];

/* Parses file[0 .. len-1] from an exact-size copy (safetensors 0: as .npy;
 * 1: as safetensors; 2: either, sv_tensor_file_parse); *out untouched on error. */
static sv_status parse(int safetensors, size_t len, const char *name, sv_array *out)
{
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, file, len);
    sv_array a;
    memset(&a, 0xab, sizeof a);
    const sv_array before = a;
    const sv_status s = safetensors == 2
                            ? sv_tensor_file_parse(copy, len, name, &a, why, sizeof why)
                        : safetensors ? sv_safetensors_parse(copy, len, name, &a, why, sizeof why)
                                      : sv_npy_parse(copy, len, &a, why, sizeof why);
    if (s != SV_OK)
        CHECK_MEM_EQ(&a, &before, sizeof a);
    else
        a.data = file + ((const unsigned char *)a.data - copy); /* copy is freed */
    CHECK_EQ(strchr(why, '\n'), NULL);
    free(copy);
    *out = a;
    return s;
}

/* Every element of a (2-D to 4-D) in numpy's logical order, through the
 * strided source's rows(): the engine's own widening. */
static void values(const sv_array *a, double *x)
{
    sv_strided arrays = {.q = *a, .k = *a};
    sv_source src;
    uint64_t trials = 0;
    CHECK_STATUS(sv_source_strided(&arrays, &src), SV_OK);
    CHECK_STATUS(sv_strided_head(&arrays, 0, &trials, NULL), SV_OK);
    const size_t rows = a->shape[a->ndim - 2], cols = a->shape[a->ndim - 1];
    for (uint64_t t = 0; t < trials; t++)
        src.rows(&src, NULL, t, SV_MATRIX_Q, 0, rows, x + t * rows * cols, cols, NULL);
}

#define EXPECT_ERR(call, status, text)                                                             \
    do {                                                                                           \
        sv_array a_;                                                                               \
        const sv_status s_ = (call);                                                               \
        (void)a_;                                                                                  \
        CHECK_STATUS(s_, status);                                                                  \
        CHECK(strstr(why, (text)) != NULL);                                                        \
        if (s_ != (status) || !strstr(why, (text)))                                                \
            fprintf(stderr, "  status %d, why '%s', want %d '%s'\n", (int)s_, why, (int)(status),  \
                    (text));                                                                       \
    } while (0)

static void test_npy_dtypes(void)
{
    sv_array a;
    double x[24];
    const double d[6] = {1.5, -2.0, 0.25, 1e300, -0.0, 3.0};
    size_t n =
        npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", d, sizeof d);
    CHECK_STATUS(parse(0, n, NULL, &a), SV_OK);
    CHECK_EQ(a.dtype, SV_DTYPE_FLOAT64);
    CHECK_EQ(a.ndim, 2);
    CHECK_EQ(a.shape[0], 2);
    CHECK_EQ(a.shape[1], 3);
    CHECK_EQ(a.strides[0], 24);
    CHECK_EQ(a.strides[1], 8);
    CHECK_EQ(a.byte_swapped, !little());
    values(&a, x);
    CHECK_MEM_EQ(x, d, sizeof d);

    /* half: 1, -2, smallest subnormal 2^-24, largest subnormal, +inf, -inf */
    const uint16_t h[6] = {0x3c00, 0xc000, 0x0001, 0x03ff, 0x7c00, 0xfc00};
    n = npy(file, 2, "{\"shape\":(3,2),\"fortran_order\":False,\"descr\":\"<f2\"}", h, sizeof h);
    CHECK_STATUS(parse(0, n, NULL, &a), SV_OK);
    CHECK_EQ(a.dtype, SV_DTYPE_FLOAT16);
    CHECK_EQ(a.strides[0], 4);
    CHECK_EQ(a.strides[1], 2);
    values(&a, x);
    CHECK_EQ(x[0], 1.0);
    CHECK_EQ(x[1], -2.0);
    CHECK_EQ(x[2], ldexp(1.0, -24));
    CHECK_EQ(x[3], ldexp(1023.0, -24));
    CHECK_EQ(x[4], INFINITY);
    CHECK_EQ(x[5], -INFINITY);

    /* big-endian float32, Fortran order, 3-D, format 3.0: element (i, j, k)
     * = 100 i + 10 j + k stored at i + 2 j + 6 k */
    unsigned char be[2 * 3 * 4 * 4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) {
                const float f = (float)(100 * i + 10 * j + k);
                uint32_t u;
                memcpy(&u, &f, 4);
                for (int b = 0; b < 4; b++)
                    be[4 * (i + 2 * j + 6 * k) + b] = (unsigned char)(u >> (24 - 8 * b));
            }
    n = npy(file, 3, "{'descr': '>f4', 'fortran_order': True, 'shape': (2, 3, 4)}", be, sizeof be);
    CHECK_STATUS(parse(0, n, NULL, &a), SV_OK);
    CHECK_EQ(a.ndim, 3);
    CHECK_EQ(a.strides[0], 4);
    CHECK_EQ(a.strides[1], 8);
    CHECK_EQ(a.strides[2], 24);
    CHECK_EQ(a.byte_swapped, little());
    values(&a, x);
    int ok = 1;
    for (int e = 0; e < 24; e++)
        ok &= x[e] == (double)(100 * (e / 12) + 10 * (e / 4 % 3) + e % 4);
    CHECK(ok);

    /* '=' is native; 4-D; 2.0; Python 2's 3L */
    n = npy(file, 2, "{'descr':'=f8','fortran_order':False,'shape':(1L,1L,2L,3L),}", d, sizeof d);
    CHECK_STATUS(parse(0, n, NULL, &a), SV_OK);
    CHECK_EQ(a.ndim, 4);
    CHECK_EQ(a.byte_swapped, 0);
    CHECK_EQ(a.strides[0], 48);
    CHECK_EQ(a.strides[3], 8);
    n = npy(file, 1, "{'descr':'|f8','fortran_order':False,'shape':(2,3)}", d, sizeof d);
    if (CHECK_STATUS(parse(0, n, NULL, &a), SV_OK)) {
        CHECK_EQ(a.byte_swapped, 0);
        CHECK_EQ(a.dtype, SV_DTYPE_FLOAT64);
    }
    n = npy(file, 1, "{'descr':'f4','fortran_order':False,'shape':(3,2)}", d, 24);
    if (CHECK_STATUS(parse(0, n, NULL, &a), SV_OK)) {
        CHECK_EQ(a.byte_swapped, 0);
        CHECK_EQ(a.dtype, SV_DTYPE_FLOAT32);
    }
    n = npy(file, 3, "{'descr':'<f8','fortran_order':False,'shape':(2L,3L)}", d, sizeof d);
    EXPECT_ERR(parse(0, n, NULL, &a_), SV_EFORMAT, "expected");
}

static void test_npy_errors(void)
{
    const double d[6] = {0};
    const char *ok = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
    size_t n = npy(file, 1, ok, d, sizeof d);
    sv_array a;
    CHECK_STATUS(sv_npy_parse(NULL, n, &a, why, sizeof why), SV_EINVAL);
    CHECK_STATUS(sv_npy_parse(file, n, NULL, why, sizeof why), SV_EINVAL);
    CHECK_STATUS(sv_npy_parse(file, n, &a, NULL, 0), SV_OK);
    CHECK_STATUS(sv_npy_parse(file, n - 1, &a, why, 8), SV_EFORMAT);
    CHECK_EQ(strlen(why), 7);
    EXPECT_ERR(parse(0, n - 1, NULL, &a_), SV_EFORMAT, "truncated: shape (2, 3) of '<f8' needs 48");
    EXPECT_ERR(parse(0, n + 0, NULL, &a_), SV_OK, "");
    file[n] = 0;
    EXPECT_ERR(parse(0, n + 1, NULL, &a_), SV_EFORMAT, "data longer than its shape");
    EXPECT_ERR(parse(0, 5, NULL, &a_), SV_EFORMAT, "truncated: 5 bytes");
    EXPECT_ERR(parse(0, 0, NULL, &a_), SV_EFORMAT, "truncated: 0 bytes");
    EXPECT_ERR(parse(0, 40, NULL, &a_), SV_EFORMAT, "runs past the end");
    file[1] = 'X';
    EXPECT_ERR(parse(0, n, NULL, &a_), SV_EFORMAT, "not a .npy file");
    n = npy(file, 1, ok, d, sizeof d);
    file[6] = 4;
    EXPECT_ERR(parse(0, n, NULL, &a_), SV_EFORMAT, "version 4.0 is not");
    static const struct {
        const char *dict;
        sv_status status;
        const char *why;
    } bad[] = {
        {"(1, 2)", SV_EFORMAT, "expected '{' at byte 10"},
        {"{'descr': '<f8', 'shape': (2, 3)}", SV_EFORMAT, "no key 'fortran_order'"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x\\x01': 1}", SV_EFORMAT,
         "key 'x\\\\x01' at byte 68 is not descr"},
        {"{'descr': '<f8', 'descr': '<f8'}", SV_EFORMAT, "key 'descr' at byte 27 appears twice"},
        {"{'descr': '<f8', 'fortran_order': 0, 'shape': (2, 3)}", SV_EFORMAT, "True or False"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': [2, 3]}", SV_EFORMAT, "a tuple"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (6)}", SV_EFORMAT, "',' after"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 03)}", SV_EFORMAT, "integer"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2 3)}", SV_EFORMAT, "',' or ')'"},
        {"{'descr': '<f8', 'fortran_order': False 'shape': (2, 3)}", SV_EFORMAT, "',' or '}'"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)} x", SV_EFORMAT, "only white"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)", SV_EFORMAT, "expected"},
        {"{'descr': '<f8\n', 'fortran_order': False, 'shape': (2, 3)}", SV_EFORMAT, "expected"},
        {"{'descr': <f8, 'fortran_order': False, 'shape': (2, 3)}", SV_EFORMAT, "the descr"},
        {"{'descr': [('a', '<f8']], 'fortran_order': False, 'shape': (2, 3)}", SV_EFORMAT,
         "matching bracket"},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}", SV_EUNSUPPORTED,
         "dtype '<i4' is not float16, float32 or float64 (or bool, a mask's)"},
        {"{'descr': '|O', 'fortran_order': False, 'shape': (2, 3)}", SV_EUNSUPPORTED,
         "dtype '|O' (Python objects) is not"},
        {"{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3)}", SV_EUNSUPPORTED, "'<c16'"},
        {"{'descr': [('a', '<f8'), ('b', '<f4')], 'fortran_order': False, 'shape': (2, 3)}",
         SV_EUNSUPPORTED, "dtype [('a', '<f8'), ('b', '<f4')] (structured) is not"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (6,)}", SV_EUNSUPPORTED,
         "shape (6,) has 1 dimension, not 2 to 4"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': ()}", SV_EUNSUPPORTED,
         "shape () has 0 dimensions"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 2, 3)}", SV_EUNSUPPORTED,
         "shape has 5 dimensions, not 2 to 4"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 0)}", SV_EUNSUPPORTED,
         "shape (2, 0) has a zero dimension"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", SV_ERANGE,
         "the byte size of the shape (4294967296, 4294967296) overflows"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 99999999999999999999999)}",
         SV_ERANGE, "the byte size of the shape overflows"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        n = npy(file, 1, bad[k].dict, d, sizeof d);
        EXPECT_ERR(parse(0, n, NULL, &a_), bad[k].status, bad[k].why);
    }
}

#define F32_2x3 "{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":"

static void test_safetensors(void)
{
    /* q: F32 2x3 at 8..32; k: BF16 2x2 at 0..8; meta skipped */
    unsigned char data[32];
    const float q[6] = {1.0f, -0.5f, 3.25f, 1e-40f, 65504.0f, -7.0f};
    const uint16_t k[4] = {0x3f80, 0x4049, 0x0001, 0xff80}; /* 1, 3.140625, 2^-133, -inf */
    memcpy(data, k, 8);
    memcpy(data + 8, q, 24);
    const char *json = "{\"__metadata__\":{\"format\":\"pt\"},"
                       "\"q\":" F32_2x3 "[8,32]},"
                       "\"k\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}  ";
    size_t n = st(file, json, data, sizeof data);
    sv_array a;
    double x[6];
    CHECK_STATUS(parse(1, n, "q", &a), SV_OK);
    CHECK_EQ(a.dtype, SV_DTYPE_FLOAT32);
    CHECK_EQ(a.ndim, 2);
    CHECK_EQ(a.strides[0], 12);
    CHECK_EQ(a.strides[1], 4);
    CHECK_EQ((const unsigned char *)a.data, file + 8 + strlen(json) + 8);
    values(&a, x);
    int ok = 1;
    for (int e = 0; e < 6; e++)
        ok &= x[e] == (double)q[e];
    CHECK(ok);
    CHECK_STATUS(parse(1, n, "k", &a), SV_OK);
    CHECK_EQ(a.dtype, SV_DTYPE_BFLOAT16);
    CHECK_EQ(a.strides[0], 4);
    CHECK_EQ(a.strides[1], 2);
    values(&a, x);
    CHECK_EQ(x[0], 1.0);
    CHECK_EQ(x[1], 3.140625);
    CHECK_EQ(x[2], ldexp(1.0, -133));
    CHECK_EQ(x[3], -INFINITY);
    EXPECT_ERR(parse(1, n, NULL, &a_), SV_EMISMATCH, "holds 2 tensors: name one of 'q', 'k'");
    EXPECT_ERR(parse(1, n, "", &a_), SV_EMISMATCH, "holds 2 tensors");
    EXPECT_ERR(parse(1, n, "v\x7f", &a_), SV_EMISMATCH,
               "no tensor 'v\\x7f' in the file; it holds 'q', 'k'");
    EXPECT_ERR(parse(1, n, "__metadata__", &a_), SV_EMISMATCH, "no tensor '__metadata__'");
    CHECK_STATUS(sv_safetensors_parse(NULL, n, "q", &a, why, sizeof why), SV_EINVAL);
    CHECK_STATUS(sv_safetensors_parse(file, n, "q", NULL, why, sizeof why), SV_EINVAL);
    /* only tensor, no name; 4-D; F64; F16 */
    n = st(file, "{\"v\":{\"dtype\":\"F16\",\"shape\":[1,1,2,2],\"data_offsets\":[0,8]}}", k, 8);
    if (CHECK_STATUS(parse(1, n, NULL, &a), SV_OK)) {
        CHECK_EQ(a.ndim, 4);
        CHECK_EQ(a.dtype, SV_DTYPE_FLOAT16);
    }
    values(&a, x);
    CHECK_EQ(x[0], 1.875);
    CHECK_EQ(x[1], 2.142578125);
    CHECK_EQ(x[2], ldexp(1.0, -24));
    CHECK_NAN(x[3]);
}

static void test_safetensors_errors(void)
{
    unsigned char data[48] = {0};
    size_t n = st(file, "{\"q\":" F32_2x3 "[0,24]}}", data, 24);
    sv_array a;
    CHECK_STATUS(parse(1, n, NULL, &a), SV_OK);
    EXPECT_ERR(parse(1, 7, NULL, &a_), SV_EFORMAT, "truncated: 7 bytes");
    EXPECT_ERR(parse(1, n - 1, NULL, &a_), SV_EFORMAT, "'q': data_offsets [0, 24] run past");
    file[n] = 0;
    EXPECT_ERR(parse(1, n + 1, NULL, &a_), SV_EFORMAT, "bytes 24 to 25 of the data (25 bytes)");
    memcpy(file, "\x01\x00\x00\x00\x00\x01\x00\x00", 8);
    EXPECT_ERR(parse(1, n, NULL, &a_), SV_EFORMAT, "is past the format's limit of 100000000");
    memcpy(file, "\x00\x10\x00\x00\x00\x00\x00\x00", 8);
    EXPECT_ERR(parse(1, n, NULL, &a_), SV_EFORMAT, "header size 4096 runs past the end");
    static const struct {
        const char *json;
        size_t data;
        sv_status status;
        const char *why;
    } bad[] = {
        {"{\"q\":" F32_2x3 "[0,24]}", 24, SV_EFORMAT, "not valid JSON"},
        {"{} x", 0, SV_EFORMAT, "bytes after the JSON at byte 11"},
        {"[1]", 0, SV_EFORMAT, "not a JSON object"},
        {"{}", 0, SV_EMISMATCH, "the file holds no tensors"},
        {"{}", 4, SV_EFORMAT, "bytes 0 to 4 of the data (4 bytes) belong to no tensor"},
        {"{\"q\":1}", 0, SV_EFORMAT, "tensor 'q': not a JSON object"},
        {"{\"q\":{\"shape\":[2,3],\"data_offsets\":[0,24]}}", 24, SV_EFORMAT, "\"dtype\""},
        {"{\"q\":{\"dtype\":\"F32\",\"data_offsets\":[0,24]}}", 24, SV_EFORMAT, "\"shape\""},
        {"{\"q\":{\"dtype\":\"F32\",\"shape\":[2,-3],\"data_offsets\":[0,24]}}", 24, SV_EFORMAT,
         "whole numbers"},
        {"{\"q\":" F32_2x3 "[0,24.5]}}", 24, SV_EFORMAT, "[begin, end]"},
        {"{\"q\":" F32_2x3 "[0]}}", 24, SV_EFORMAT, "[begin, end]"},
        {"{\"q\":" F32_2x3 "[24,0]}}", 24, SV_EFORMAT, "end before they begin"},
        {"{\"q\":" F32_2x3 "[0,32]}}", 32, SV_EFORMAT, "span 32 bytes, its shape of F32 needs 24"},
        {"{\"q\":" F32_2x3 "[0,24]},\"k\":" F32_2x3 "[16,40]}}", 40, SV_EFORMAT,
         "tensors 'q' and 'k' overlap (bytes 0 to 24 and 16 to 40 of the data)"},
        {"{\"q\":" F32_2x3 "[0,24]},\"q\":" F32_2x3 "[24,48]}}", 48, SV_EFORMAT,
         "tensor 'q' appears twice"},
        {"{\"q\":" F32_2x3 "[4,28]}}", 28, SV_EFORMAT, "bytes 0 to 4 of the data"},
        {"{\"q\":{\"dtype\":\"I32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}", 24, SV_EUNSUPPORTED,
         "tensor 'q': dtype I32 is not F16, BF16, F32 or F64"},
        {"{\"q\":{\"dtype\":\"F4\\n\",\"shape\":[2,3],\"data_offsets\":[0,24]}}", 24,
         SV_EUNSUPPORTED, "dtype F4\\x0a is not"},
        {"{\"q\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}", 24, SV_EUNSUPPORTED,
         "tensor 'q': shape has 1 dimension, not 2 to 4"},
        {"{\"q\":{\"dtype\":\"F32\",\"shape\":[1,1,1,2,3],\"data_offsets\":[0,24]}}", 24,
         SV_EUNSUPPORTED, "shape has 5 dimensions"},
        {"{\"q\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[0,0]}}", 0, SV_EUNSUPPORTED,
         "zero dimension"},
        {"{\"q\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}", 0,
         SV_ERANGE, "tensor 'q': the shape's byte size overflows"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        n = st(file, bad[k].json, data, bad[k].data);
        EXPECT_ERR(parse(1, n, "q", &a_), bad[k].status, bad[k].why);
    }
    /* a long list of names is cut short, one line */
    char json[4096];
    size_t o = (size_t)snprintf(json, sizeof json, "{");
    for (int t = 0; t < 30; t++)
        o += (size_t)snprintf(json + o, sizeof json - o,
                              "%s\"name_%02d\":{\"dtype\":\"F32\",\"shape\":[1,1],"
                              "\"data_offsets\":[%d,%d]}",
                              t ? "," : "", t, 4 * t, 4 * t + 4);
    snprintf(json + o, sizeof json - o, "}");
    n = st(file, json, data, 0);
    memset(file + n, 0, 120);
    EXPECT_ERR(parse(1, n + 120, "x", &a_), SV_EMISMATCH, "more");
    CHECK_LT(strlen(why), 220);
}

/* sv_tensor_file_parse: the format told from the first bytes, as the CLI's
 * --q, --k, --v and --mask read any file. */
static void test_either(void)
{
    const double d[6] = {0};
    size_t n =
        npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", d, sizeof d);
    sv_array a;
    if (CHECK_STATUS(parse(2, n, NULL, &a), SV_OK))
        CHECK_EQ(a.dtype, SV_DTYPE_FLOAT64);
    CHECK_STATUS(parse(2, n, "", &a), SV_OK);
    EXPECT_ERR(parse(2, n, "q", &a_), SV_EMISMATCH,
               "a .npy file holds one array (':NAME' picks a safetensors tensor)");
    n = st(file, "{\"q\":" F32_2x3 "[0,24]}}", d, 24);
    if (CHECK_STATUS(parse(2, n, "q", &a), SV_OK))
        CHECK_EQ(a.dtype, SV_DTYPE_FLOAT32);
    EXPECT_ERR(parse(2, n, "x", &a_), SV_EMISMATCH, "no tensor 'x' in the file");
    memcpy(file, "hello world", 11);
    EXPECT_ERR(parse(2, 11, NULL, &a_), SV_EFORMAT,
               "not a .npy or .safetensors file (neither magic \\x93NUMPY nor a safetensors "
               "header)");
    memcpy(file, "\x93NUMPY", 6);
    EXPECT_ERR(parse(2, 5, NULL, &a_), SV_EFORMAT, "neither magic");
    CHECK_STATUS(sv_tensor_file_parse(NULL, 8, NULL, &a, why, sizeof why), SV_EINVAL);
    CHECK_STATUS(sv_tensor_file_parse(file, 8, NULL, NULL, why, sizeof why), SV_EINVAL);
}

static void test_header(void)
{
    static const char want[] = "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (3, 4), }";
    char buf[256];
    const size_t shape[4] = {3, 4, 5, 6};
    size_t n = sv_npy_header(buf, sizeof buf, SV_DTYPE_FLOAT64, 2, shape);
    CHECK_EQ(n, 128);
    CHECK_MEM_EQ(buf, want, sizeof want - 1);
    CHECK_EQ(buf[127], '\n');
    int spaces = 1;
    for (size_t k = sizeof want - 1; k < 127; k++)
        spaces &= buf[k] == ' ';
    CHECK(spaces);
    CHECK_EQ(sv_npy_header(buf, 127, SV_DTYPE_FLOAT64, 2, shape), 0);
    CHECK_EQ(sv_npy_header(NULL, 256, SV_DTYPE_FLOAT64, 2, shape), 0);
    CHECK_EQ(sv_npy_header(buf, 256, SV_DTYPE_FLOAT64, 0, shape), 0);
    CHECK_EQ(sv_npy_header(buf, 256, SV_DTYPE_FLOAT64, 5, shape), 0);
    CHECK_EQ(sv_npy_header(buf, 256, SV_DTYPE_BFLOAT16, 2, shape), 0);
    CHECK_EQ(sv_npy_header(buf, 256, (sv_dtype)7, 2, shape), 0);
    /* its own parser reads it back, each dtype and 2..4 dimensions */
    for (int dt = 0; dt < 3; dt++)
        for (int nd = 2; nd <= 4; nd++) {
            n = sv_npy_header((char *)file, sizeof file, (sv_dtype)dt, nd, shape);
            size_t bytes = dt == 0 ? 8 : dt == 1 ? 4 : 2;
            for (int d = 0; d < nd; d++)
                bytes *= shape[d];
            memset(file + n, 0, bytes);
            sv_array a;
            CHECK_EQ(n % 64, 0);
            CHECK_STATUS(parse(0, n + bytes, NULL, &a), SV_OK);
            CHECK_EQ(a.ndim, nd);
            CHECK_EQ((int)a.dtype, dt);
            CHECK_EQ(a.shape[nd - 1], shape[nd - 1]);
        }
    const size_t big[4] = {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
    n = sv_npy_header(buf, sizeof buf - 1, SV_DTYPE_FLOAT16, 4, big);
    buf[n] = '\0';
    CHECK_EQ(n, 192);
    CHECK_NE(strstr(buf + 10, "(18446744073709551615, 18446744073709551615,"), NULL);
    n = sv_npy_header(buf, sizeof buf - 1, SV_DTYPE_FLOAT32, 1, shape);
    buf[n] = '\0';
    CHECK_EQ(n, 128);
    CHECK(strstr(buf + 10, "'<f4'"));
    CHECK(strstr(buf + 10, "'shape': (3,), }"));
}

int main(void)
{
    test_npy_dtypes();
    test_npy_errors();
    test_safetensors();
    test_safetensors_errors();
    test_either();
    test_header();
    return CHECK_DONE();
}
