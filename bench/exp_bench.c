/* Which vectorized exp for the softmax? Times and worst errors (in ulp,
 * against expl) of glibc's scalar exp, glibc's libmvec (AVX2, AVX-512) and
 * SLEEF's 1.0-ulp functions (AVX2, AVX-512) on logits in [-60, 0].
 * Built by scripts/bench.sh (target exp_bench; needs libsleef-dev and a CPU
 * with AVX-512). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in strict C11 */
#include <float.h>
#include <immintrin.h>
#include <sleef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__m256d _ZGVdN4v_exp(__m256d);
__m512d _ZGVeN8v_exp(__m512d);

#define N 4096
#define REPS 20000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef void (*fn)(const double *, double *, int);
static void f_scalar(const double *x, double *y, int n) { for (int i = 0; i < n; i++) y[i] = exp(x[i]); }
static void f_mvec4(const double *x, double *y, int n)
{ for (int i = 0; i < n; i += 4) _mm256_storeu_pd(y + i, _ZGVdN4v_exp(_mm256_loadu_pd(x + i))); }
static void f_mvec8(const double *x, double *y, int n)
{ for (int i = 0; i < n; i += 8) _mm512_storeu_pd(y + i, _ZGVeN8v_exp(_mm512_loadu_pd(x + i))); }
static void f_sleef4(const double *x, double *y, int n)
{ for (int i = 0; i < n; i += 4) _mm256_storeu_pd(y + i, Sleef_expd4_u10avx2(_mm256_loadu_pd(x + i))); }
static void f_sleef8(const double *x, double *y, int n)
{ for (int i = 0; i < n; i += 8) _mm512_storeu_pd(y + i, Sleef_expd8_u10avx512f(_mm512_loadu_pd(x + i))); }

int main(void)
{
    static double x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = -60.0 * (double)rand() / RAND_MAX;
    struct { const char *name; fn f; } fs[] = {{"glibc exp (scalar)", f_scalar},
        {"libmvec AVX2 _ZGVdN4v_exp", f_mvec4}, {"libmvec AVX-512 _ZGVeN8v_exp", f_mvec8},
        {"SLEEF Sleef_expd4_u10avx2", f_sleef4}, {"SLEEF Sleef_expd8_u10avx512f", f_sleef8}};
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
        double t0 = now();
        for (int r = 0; r < REPS; r++)
            fs[k].f(x, y, N);
        double ns = (now() - t0) / ((double)REPS * N) * 1e9;
        double worst = 0.0;
        for (int r = 0; r < 200; r++) {
            for (int i = 0; i < N; i++)
                x[i] = -60.0 * (double)rand() / RAND_MAX;
            fs[k].f(x, y, N);
            for (int i = 0; i < N; i++) {
                long double e = expl((long double)x[i]);
                double ulp = nextafter((double)e, INFINITY) - (double)e;
                double err = fabs((double)((y[i] - e) / ulp));
                worst = err > worst ? err : worst;
            }
        }
        printf("%-30s %6.3f ns/exp   worst error %.3f ulp\n", fs[k].name, ns, worst);
    }
    return 0;
}
