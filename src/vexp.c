#include "vexp.h"

#include <math.h>

/* Which kernel the CPU allows: 2 AVX-512, 1 AVX2 + FMA, 0 none. */
static int vector_level(void)
{
#if defined(SV_HAVE_VEXP_AVX2)
    if (__builtin_cpu_supports("avx512f"))
        return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return 1;
#endif
    return 0;
}

void sv_vexp(const double *x, double *y, size_t n)
{
#if defined(SV_HAVE_VEXP_AVX2)
    switch (vector_level()) {
    case 2:
        sv_vexp_avx512(x, y, n);
        return;
    case 1:
        sv_vexp_avx2(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        y[i] = exp(x[i]);
}

void sv_vlog1p(const double *x, double *y, size_t n)
{
#if defined(SV_HAVE_VEXP_AVX2)
    switch (vector_level()) {
    case 2:
        sv_vlog1p_avx512(x, y, n);
        return;
    case 1:
        sv_vlog1p_avx2(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        y[i] = log1p(x[i]);
}
