/* Many small matrices against one large one of the same work (issue 39):
 * the engine's throughput on batch x heads = 96 trials of 1024 x 1024
 * scores (d_k 64, caller arrays through the strided source, as Python's
 * stats() passes them) over its throughput on one trial with as many
 * visible scores. Two honest pairs:
 *   full:   96 x (1024 x 1024)      vs one 98304 x 1024 trial (equal flops);
 *   causal: 96 x causal 1024 x 1024 vs one causal 10037 x 10037 trial
 *           (96 x 1024 x 1025 / 2 = 50 380 800 visible scores against
 *           10037 x 10038 / 2 = 50 375 703: 0.01 % fewer).
 * Throughput counts the useful flops, 2 d_k per visible score; the engine
 * may compute more (whole tiles), which is its cost to bear.
 *
 *   many_small [THREADS [RUNS [CASE]]]   defaults: OpenMP's thread count, 5 runs
 * Prints per case the best of RUNS wall times and GFLOP/s, then
 * "ratio full R1 causal R2": small over large throughput. CASE (for a
 * profiler) runs one case only: small, large, small-causal or large-causal.
 * Timing only, no assertion (docs/performance.md; scripts/bench.sh). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/sdpa_var.h"

#define DK 64u
#define HEADS 96u
#define N 1024u
#define N_CAUSAL_LARGE 10037u

/* Entries of a fixed pseudo-random sequence (an LCG's top bits), in
 * [-1, 1): the timing does not depend on the values. */
static void fill(double *x, size_t n, uint64_t seed)
{
    uint64_t s = seed * 2862933555777941757ull + 3037000493ull;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)(s >> 11) * 0x1.0p-52 - 1.0;
    }
}

/* An array of heads x rows x DK doubles, row-major. */
static sv_array array3(const double *data, size_t heads, size_t rows)
{
    const ptrdiff_t e = sizeof(double);
    return (sv_array){.data = data,
                      .dtype = SV_DTYPE_FLOAT64,
                      .ndim = 3,
                      .shape = {heads, rows, DK},
                      .strides = {(ptrdiff_t)(rows * DK) * e, (ptrdiff_t)DK * e, e}};
}

/* Best wall seconds of `runs` engine runs of every trial of (heads, n_q,
 * n_k, causal); *visible gets the visible scores of all trials. -1 on an
 * error (printed). */
static double best_seconds(size_t heads, size_t nq, size_t nk, int causal, int threads, int runs,
                           double *visible)
{
    double *q = malloc(heads * nq * DK * sizeof *q), *k = malloc(heads * nk * DK * sizeof *k);
    sv_trial_stats *out = malloc(heads * sizeof *out);
    double best = -1.0;
    if (!q || !k || !out) {
        fprintf(stderr, "many_small: out of memory\n");
        goto done;
    }
    fill(q, heads * nq * DK, 1);
    fill(k, heads * nk * DK, 2);
    sv_spec s = {.d_k = DK, .n_q = nq, .n_k = nk, .trials = heads, .causal = causal};
    sv_status st = sv_spec_resolve(&s);
    const sv_strided arr = {.q = array3(q, heads, nq), .k = array3(k, heads, nk)};
    sv_source src;
    if (st == SV_OK)
        st = sv_source_strided(&arr, &src);
    const sv_exec exec = {.threads = threads};
    for (int r = 0; st == SV_OK && r < runs; r++) {
        const double t0 = omp_get_wtime();
        st = sv_engine_run(&s, &src, &exec, NULL, 0, heads, out);
        const double t = omp_get_wtime() - t0;
        best = best < 0.0 || t < best ? t : best;
    }
    if (st != SV_OK) {
        fprintf(stderr, "many_small: %s\n", sv_status_str(st));
        best = -1.0;
    }
    *visible = (double)heads * (causal ? (double)nq * (nq + 1) / 2.0 : (double)nq * nk);
done:
    free(q);
    free(k);
    free(out);
    return best;
}

/* One case: prints its line, returns its GFLOP/s (useful flops), -1 on
 * an error. */
static double one_case(const char *name, size_t heads, size_t nq, size_t nk, int causal,
                       int threads, int runs)
{
    double visible = 0.0;
    const double sec = best_seconds(heads, nq, nk, causal, threads, runs, &visible);
    if (sec < 0.0)
        return -1.0;
    const double gflops = 2.0 * DK * visible / sec / 1e9;
    printf("%-12s %3zu x %5zu x %5zu %9.4f s %7.2f GFLOP/s\n", name, heads, nq, nk, sec, gflops);
    return gflops;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
    const int runs = argc > 2 ? atoi(argv[2]) : 5;
    const char *only = argc > 3 ? argv[3] : NULL;
    if (threads < 1 || runs < 1) {
        fprintf(stderr, "usage: many_small [THREADS [RUNS [CASE]]]\n");
        return 2;
    }
    printf("d_k %u, %d threads, best of %d runs; GFLOP/s of 2 d_k per visible score\n", DK, threads,
           runs);
    static const char *const names[4] = {"small", "large", "small-causal", "large-causal"};
    const size_t heads[4] = {HEADS, 1, HEADS, 1};
    const size_t nq[4] = {N, (size_t)HEADS * N, N, N_CAUSAL_LARGE};
    const size_t nk[4] = {N, N, N, N_CAUSAL_LARGE};
    double g[4] = {0.0, 0.0, 0.0, 0.0};
    for (int c = 0; c < 4; c++) {
        if (only && strcmp(only, names[c]) != 0)
            continue;
        g[c] = one_case(names[c], heads[c], nq[c], nk[c], c >= 2, threads, runs);
        if (g[c] < 0.0)
            return 1;
    }
    if (!only)
        printf("ratio full %.2f causal %.2f\n", g[0] / g[1], g[2] / g[3]);
    return 0;
}
