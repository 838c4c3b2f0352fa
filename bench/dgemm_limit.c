/* The limit for sdpa-var's speed: the same score products, blocked the same
 * way (key blocks of KB keys, query tiles of TM rows, one single-threaded
 * cblas_dgemm per tile, OpenMP across tiles), with nothing else: no random
 * numbers, no softmax, no moments. scripts/bench.sh compares sdpa-var's
 * wall time with this program's.
 *
 *   dgemm_limit D_K_LIST N_Q N_K TRIALS [TM KB [exps]]
 * D_K_LIST is a comma list (a sweep runs each d_k in turn). Prints the
 * seconds all products took, their GFLOP/s and OpenBLAS's kernel name.
 * TM and KB default to sdpa-var's (src/engine/plan.h). With "exps", each
 * tile's scores also go through the engine's own vector exp (sv__vexp,
 * src/core/vexp.c) twice, as the raw and the scaled softmax need: the
 * floor of docs/performance.md, the product and the exps and nothing
 * else. SV_CPU_CAPABILITY picks the exp's instruction set, as for sdpa-var. */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/cpu.h"
#include "vexp.h"

char *openblas_get_corename(void);

/* Seconds for `trials` trials of one d_k; adds the flops to *flops. */
static double run(long d, long nq, long nk, long trials, long tm, long kb, int exps, double *flops)
{
    if (tm > nq)
        tm = nq;
    if (kb > nk)
        kb = nk;
    openblas_set_num_threads(1);
    double *k = calloc((size_t)kb * d, sizeof(double));
    for (long i = 0; i < kb * d; i++)
        k[i] = (double)(i % 7) - 3.0;
    const long tiles = (nq + tm - 1) / tm, blocks = (nk + kb - 1) / kb;
    /* Untimed: OpenMP's threads and OpenBLAS's per-thread buffers start on
     * first use, which at small sizes outweighed the products and made the
     * limit noisy (docs/performance_scaling.csv at n = 2048, d_k = 16); and
     * a first call of the real shape costs more than the later ones (its
     * packing buffers: at d_k = 1024, n = 2048 the one-trial limit was 57 ms
     * slower than a trial in steady state, and above sdpa-var's whole run). */
#pragma omp parallel
    {
        double *q = calloc((size_t)tm * d, sizeof(double));
        double *s = calloc((size_t)tm * kb, sizeof(double));
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)tm, (int)kb, (int)d, 1.0, q,
                    (int)d, k, (int)d, 0.0, s, (int)kb);
        free(q);
        free(s);
    }
    const double t0 = omp_get_wtime();
#pragma omp parallel
    {
        double *q = calloc((size_t)tm * d, sizeof(double));
        double *s = malloc((size_t)tm * kb * sizeof(double));
        double *e = exps ? malloc(512 * sizeof(double)) : NULL;
        for (long i = 0; i < tm * d; i++)
            q[i] = (double)(i % 5) - 2.0;
        for (long t = 0; t < trials; t++)
            for (long b = 0; b < blocks; b++) {
#pragma omp for schedule(dynamic, 1)
                for (long i = 0; i < tiles; i++) {
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)tm, (int)kb, (int)d,
                                1.0, q, (int)d, k, (int)d, 0.0, s, (int)kb);
                    /* raw and scaled: two exps a score, in chunks of 256
                     * that stay in cache, as the engine's row pass takes them */
                    for (long o = 0; exps && o < tm * kb; o += 256) {
                        const size_t c = (size_t)(tm * kb - o < 256 ? tm * kb - o : 256);
                        sv__vexp(s + o, e, c);
                        sv__vexp(s + o, e + 256, c);
                    }
                }
            }
        free(q);
        free(s);
        free(e);
    }
    const double sec = omp_get_wtime() - t0;
    free(k);
    *flops += 2.0 * (double)tiles * tm * (double)blocks * kb * d * trials;
    return sec;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: dgemm_limit D_K_LIST N_Q N_K TRIALS [TM KB [exps]]\n");
        return 2;
    }
    const long nq = atol(argv[2]), nk = atol(argv[3]), trials = atol(argv[4]);
    const long tm = argc > 5 ? atol(argv[5]) : 256, kb = argc > 6 ? atol(argv[6]) : 4096;
    const int exps = argc > 7 && strcmp(argv[7], "exps") == 0;
    /* As sdpa-var does: the exps of an AVX2 machine on an AVX-512 one. */
    const char *cap = getenv("SV_CPU_CAPABILITY");
    if (cap && sv_cpu_capability_set(cap) != SV_OK) {
        fprintf(stderr, "dgemm_limit: SV_CPU_CAPABILITY=%s not supported here\n", cap);
        return 2;
    }
    double sec = 0.0, flops = 0.0;
    for (char *item = strtok(argv[1], ","); item; item = strtok(NULL, ","))
        sec += run(atol(item), nq, nk, trials, tm, kb, exps, &flops);
    printf("%.6f s %.1f GFLOP/s %s\n", sec, flops / sec / 1e9, openblas_get_corename());
    return 0;
}
