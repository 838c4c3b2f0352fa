/* Parses a tensor file with the library (sv_npy_parse for a name ending in
 * .npy or, other names, a file beginning with numpy's magic;
 * sv_safetensors_parse otherwise) and prints it, for
 * tensor_file_test.py:
 *   tensor_dump FILE [NAME]
 * The first line is "dtype byte_swapped ndim shape...", then every element
 * widened to double ("%.17g"), one a line, in numpy's logical order (row
 * major over the indices), read through the returned strides by the
 * strided source's rows() (the engine's own widening). The file is read
 * into a buffer of exactly its size, so a read past the end is a read past
 * the allocation (valgrind, ASan). On a parse error: "status N: WHY" on
 * stderr, exit 1; exit 2 for a usage or I/O error.
 *   tensor_dump --header DTYPE DIM...
 * writes sv_npy_header's bytes for sv_dtype DTYPE and that shape to stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/sdpa_var.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            buf = malloc(n > 0 ? (size_t)n : 1);
            if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            }
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

static int dump(const sv_array *a)
{
    sv_strided arrays = {.q = *a, .k = *a};
    sv_source src;
    uint64_t trials = 0;
    if (sv_source_strided(&arrays, &src) != SV_OK ||
        sv_strided_head(&arrays, 0, &trials, NULL) != SV_OK)
        return 1;
    const size_t rows = a->shape[a->ndim - 2], cols = a->shape[a->ndim - 1];
    double *x = malloc(cols * sizeof *x);
    if (!x)
        return 1;
    printf("%d %d %d", (int)a->dtype, a->byte_swapped, a->ndim);
    for (int d = 0; d < a->ndim; d++)
        printf(" %zu", a->shape[d]);
    printf("\n");
    for (uint64_t t = 0; t < trials; t++)
        for (size_t i = 0; i < rows; i++) {
            src.rows(&src, NULL, t, SV_MATRIX_Q, i, 1, x, cols, NULL);
            for (size_t l = 0; l < cols; l++)
                printf("%.17g\n", x[l]);
        }
    free(x);
    return 0;
}

static int header(int argc, char **argv)
{
    size_t shape[SV_ARRAY_MAX_DIMS];
    const int ndim = argc - 3;
    for (int d = 0; d < ndim && d < SV_ARRAY_MAX_DIMS; d++)
        shape[d] = (size_t)strtoull(argv[3 + d], NULL, 10);
    char buf[512];
    const size_t n = sv_npy_header(buf, sizeof buf, (sv_dtype)atoi(argv[2]), ndim, shape);
    return n && fwrite(buf, 1, n, stdout) == n ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--header") == 0)
        return header(argc, argv);
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: tensor_dump FILE [NAME]\n");
        return 2;
    }
    size_t len = 0;
    unsigned char *buf = slurp(argv[1], &len);
    if (!buf) {
        fprintf(stderr, "tensor_dump: cannot read %s\n", argv[1]);
        return 2;
    }
    sv_array a;
    char why[256];
    const size_t pl = strlen(argv[1]);
    const int npy =
        (pl >= 4 && strcmp(argv[1] + pl - 4, ".npy") == 0) ||
        (!strstr(argv[1], ".safetensors") && len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0);
    const sv_status st =
        npy ? sv_npy_parse(buf, len, &a, why, sizeof why)
            : sv_safetensors_parse(buf, len, argc == 3 ? argv[2] : NULL, &a, why, sizeof why);
    int rc = 1;
    if (st != SV_OK)
        fprintf(stderr, "status %d: %s\n", (int)st, why);
    else
        rc = dump(&a);
    free(buf);
    return rc;
}
