#include "vexp.h"

#include <math.h>

void sv__vexp(const double *x, double *y, size_t n)
{
#if defined(__wasm_simd128__)
    sv__vexp_wasm(x, y, n);
    return;
#endif
#if defined(SV_HAVE_VEXP_AVX2)
    switch (sv__cpu_level()) {
    case SV_CPU_AVX512:
        sv_vexp_avx512(x, y, n);
        return;
    case SV_CPU_AVX2:
        sv_vexp_avx2(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        y[i] = exp(x[i]);
}

void sv__vlog1p(const double *x, double *y, size_t n)
{
#if defined(SV_HAVE_VEXP_AVX2)
    switch (sv__cpu_level()) {
    case SV_CPU_AVX512:
        sv_vlog1p_avx512(x, y, n);
        return;
    case SV_CPU_AVX2:
        sv_vlog1p_avx2(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        y[i] = log1p(x[i]);
}
