/* Runs the engine on caller-supplied Q, K (and V) through the strided
 * source, for strided_test.py, which makes the arrays with numpy. Reads a
 * job on stdin:
 *   d_k n_q n_k trials first count ddof causal values d_v scale q_mean k_mean threads
 *   then one line per array Q, K, V (V: the word "none" without values):
 *   dtype(64|32) ndim shape0 shape1 shape2 stride0 stride1 stride2 offset path
 * where path holds the raw bytes of the array's base buffer and offset is
 * the byte offset of element [0, 0, 0] in it (a view's strides may be
 * negative). Prints a CSV header and one row per trial, every field of
 * sv_trial_stats in %.17g, in struct order. Exit 1 on any error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/sdpa_var.h"

static const char *const fields[SV_TRIAL_FIELDS] = {"raw_mean",
                                                    "raw_var",
                                                    "scaled_mean",
                                                    "scaled_var",
                                                    "raw_entropy",
                                                    "scaled_entropy",
                                                    "raw_max_weight",
                                                    "scaled_max_weight",
                                                    "raw_jac_trace",
                                                    "scaled_jac_trace",
                                                    "raw_var_known_mean",
                                                    "raw_var_ddof0",
                                                    "raw_var_ddof1",
                                                    "raw_jac_frob",
                                                    "scaled_jac_frob",
                                                    "raw_eff_keys",
                                                    "scaled_eff_keys",
                                                    "raw_entropy_min",
                                                    "raw_entropy_max",
                                                    "scaled_entropy_min",
                                                    "scaled_entropy_max",
                                                    "raw_max_abs_logit",
                                                    "raw_diag_logit",
                                                    "raw_diag_weight",
                                                    "scaled_diag_weight",
                                                    "q_var",
                                                    "k_var",
                                                    "raw_out_var",
                                                    "scaled_out_var",
                                                    "raw_sum_p2",
                                                    "scaled_sum_p2"};

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

int main(void)
{
    sv_spec s = {0};
    unsigned long long first, count, trials;
    int threads;
    if (scanf("%zu %zu %zu %llu %llu %llu %u %d %d %zu %lf %lf %lf %d", &s.d_k, &s.n_q, &s.n_k,
              &trials, &first, &count, &s.ddof, &s.causal, &s.values, &s.d_v, &s.scale, &s.q_mean,
              &s.k_mean, &threads) != 14)
        return fprintf(stderr, "strided_driver: bad job line\n"), 1;
    s.trials = trials;
    sv_strided arr = {0};
    void *bufs[3] = {NULL, NULL, NULL};
    int ok = read_array(&arr.q, &bufs[0]) && read_array(&arr.k, &bufs[1]) &&
             (!s.values || read_array(&arr.v, &bufs[2]));
    sv_source src;
    sv_status st = ok ? sv_spec_resolve(&s) : SV_EINVAL;
    if (st == SV_OK)
        st = sv_source_strided(&arr, &src);
    sv_trial_stats *out = calloc(count ? count : 1, sizeof *out);
    const sv_exec exec = {.threads = threads};
    if (st == SV_OK)
        st = out ? sv_engine_run(&s, &src, &exec, NULL, first, count, out) : SV_ENOMEM;
    if (st != SV_OK) {
        fprintf(stderr, "strided_driver: %s\n", ok ? sv_status_str(st) : "cannot read the job");
        return 1;
    }
    for (int f = 0; f < SV_TRIAL_FIELDS; f++)
        printf("%s%c", fields[f], f + 1 < SV_TRIAL_FIELDS ? ',' : '\n');
    for (unsigned long long t = 0; t < count; t++) {
        double v[SV_TRIAL_FIELDS];
        memcpy(v, &out[t], sizeof v);
        for (int f = 0; f < SV_TRIAL_FIELDS; f++)
            printf("%.17g%c", v[f], f + 1 < SV_TRIAL_FIELDS ? ',' : '\n');
    }
    free(out);
    for (int i = 0; i < 3; i++)
        free(bufs[i]);
    return 0;
}
