/* Runs the engine on caller-supplied Q, K (and V) through the strided
 * source, for strided_test.py, which makes the arrays with numpy. Reads a
 * job on stdin:
 *   d_k n_q n_k trials first count ddof causal values d_v scale q_mean k_mean threads
 *   then one line per array Q, K, V (V: the word "none" without values):
 *   dtype(64|32) ndim shape0 shape1 shape2 stride0 stride1 stride2 offset path
 * where path holds the raw bytes of the array's base buffer and offset is
 * the byte offset of element [0, 0, 0] in it (a view's strides may be
 * negative). Prints the per-trial CSV of the column table (columns.h):
 * its header, and one row per trial in %.17g. With the argument --rows
 * (torch_sdpa_test.py) it then prints a line "rows" and, per query row,
 * the row-sums tap (sv_taps.row_sums, summed over the trials):
 * row,raw_entropy,scaled_entropy,raw_max_weight,scaled_max_weight.
 * With the argument --grad (tests/torch/grad_test.py) a fourth array line,
 * G (n_q x d_v), follows V, and the spec has grad on (values must be 1):
 * the per-trial CSV then holds the gradient columns.
 * Exit 1 on any error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/sdpa_var.h"

/* One array line; its buffer into *buf (freed by the caller). */
static int read_array(sv_array *a, void **buf)
{
    int bits;
    long long off;
    char path[4096];
    if (scanf("%d", &bits) != 1)
        return 0;
    if (scanf("%d %zu %zu %zu %td %td %td %lld %4095s", &a->ndim, &a->shape[0], &a->shape[1],
              &a->shape[2], &a->strides[0], &a->strides[1], &a->strides[2], &off, path) != 9)
        return 0;
    a->dtype = bits == 32 ? SV_DTYPE_FLOAT32 : SV_DTYPE_FLOAT64;
    if (a->ndim == 2) { /* the line's old 3-slot form: shape0, stride0 unused */
        a->shape[0] = a->shape[1];
        a->shape[1] = a->shape[2];
        a->strides[0] = a->strides[1];
        a->strides[1] = a->strides[2];
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = malloc(n > 0 ? (size_t)n : 1);
    const int ok = *buf && fread(*buf, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    a->data = (const unsigned char *)*buf + off;
    return ok;
}

/* The row-sums tap: SV_ROW_FIELDS sums per query row. */
static void print_rows(const double *sums, size_t n_q)
{
    printf("rows\nrow,raw_entropy,scaled_entropy,raw_max_weight,scaled_max_weight\n");
    for (size_t i = 0; i < n_q; i++) {
        printf("%zu", i);
        for (size_t f = 0; f < SV_ROW_FIELDS; f++)
            printf(",%.17g", sums[i * SV_ROW_FIELDS + f]);
        putchar('\n');
    }
}

int main(int argc, char **argv)
{
    int rows = 0;
    sv_spec s = {0};
    for (int a = 1; a < argc; a++) {
        rows |= strcmp(argv[a], "--rows") == 0;
        s.grad |= strcmp(argv[a], "--grad") == 0;
    }
    unsigned long long first, count, trials;
    int threads;
    if (scanf("%zu %zu %zu %llu %llu %llu %u %d %d %zu %lf %lf %lf %d", &s.d_k, &s.n_q, &s.n_k,
              &trials, &first, &count, &s.ddof, &s.causal, &s.values, &s.d_v, &s.scale, &s.q_mean,
              &s.k_mean, &threads) != 14)
        return fprintf(stderr, "strided_driver: bad job line\n"), 1;
    s.trials = trials;
    sv_strided arr = {0};
    void *bufs[4] = {NULL, NULL, NULL, NULL};
    int ok = read_array(&arr.q, &bufs[0]) && read_array(&arr.k, &bufs[1]) &&
             (!s.values || read_array(&arr.v, &bufs[2])) &&
             (!s.grad || read_array(&arr.g, &bufs[3]));
    sv_source src;
    sv_status st = ok ? sv_spec_resolve(&s) : SV_EINVAL;
    if (st == SV_OK)
        st = sv_source_strided(&arr, &src);
    sv_trial_stats *out = calloc(count ? count : 1, sizeof *out);
    double *sums = rows && st == SV_OK ? calloc(s.n_q * SV_ROW_FIELDS, sizeof *sums) : NULL;
    const sv_exec exec = {.threads = threads};
    const sv_taps taps = {.row_sums = sums};
    if (st == SV_OK)
        st = out && (sums || !rows)
                 ? sv_engine_run(&s, &src, &exec, rows ? &taps : NULL, first, count, out)
                 : SV_ENOMEM;
    if (st != SV_OK) {
        fprintf(stderr, "strided_driver: %s\n", ok ? sv_status_str(st) : "cannot read the job");
        return 1;
    }
    /* The per-trial columns of the column table, as the CLI writes them. */
    const size_t ncol = sv_columns_count(SV_OUTPUT_PER_TRIAL);
    for (size_t c = 0; c < ncol; c++)
        printf("%s%c", sv_columns_get(SV_OUTPUT_PER_TRIAL, c)->name, c + 1 < ncol ? ',' : '\n');
    for (unsigned long long t = 0; t < count; t++) {
        const sv_row_view row = {.spec = &s, .stats = &out[t], .trial = first + t};
        for (size_t c = 0; c < ncol; c++) {
            const sv_column *col = sv_columns_get(SV_OUTPUT_PER_TRIAL, c);
            const sv_value v = col->get(&row);
            if (col->type == SV_VALUE_REAL)
                printf("%.17g", v.real);
            else if (col->type == SV_VALUE_COUNT)
                printf("%llu", (unsigned long long)v.count);
            else
                printf("%s", v.text);
            putchar(c + 1 < ncol ? ',' : '\n');
        }
    }
    if (rows)
        print_rows(sums, s.n_q);
    free(sums);
    free(out);
    for (int i = 0; i < 4; i++)
        free(bufs[i]);
    return 0;
}
