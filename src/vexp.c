#include "vexp.h"

#include <math.h>

void sv_vexp(const double *x, double *y, size_t n)
{
#if defined(SV_HAVE_VEXP_AVX2)
    if (__builtin_cpu_supports("avx512f")) {
        sv_vexp_avx512(x, y, n);
        return;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        sv_vexp_avx2(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        y[i] = exp(x[i]);
}
