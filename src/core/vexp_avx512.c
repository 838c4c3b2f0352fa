/* Built with -mavx512f; called only after a run-time CPU check. */
#include <immintrin.h>
#include <string.h>

#include "vexp.h"

/* glibc's libmvec AVX-512 functions (x86_64 vector ABI names, 8 doubles,
 * not masked); math.h declares them only under -ffast-math. */
__m512d _ZGVeN8v_exp(__m512d x);
__m512d _ZGVeN8v_log1p(__m512d x);

/* y = f(x) over n elements, the last group zero-padded. */
#define SV_KERNEL_AVX512(name, f)                                                                  \
    void name(const double *x, double *y, size_t n)                                                \
    {                                                                                              \
        size_t i = 0;                                                                              \
        for (; i + 8 <= n; i += 8)                                                                 \
            _mm512_storeu_pd(y + i, f(_mm512_loadu_pd(x + i)));                                    \
        if (i < n) {                                                                               \
            double in[8] = {0.0}, out[8];                                                          \
            memcpy(in, x + i, (n - i) * sizeof(double));                                           \
            _mm512_storeu_pd(out, f(_mm512_loadu_pd(in)));                                         \
            memcpy(y + i, out, (n - i) * sizeof(double));                                          \
        }                                                                                          \
    }

SV_KERNEL_AVX512(sv_vexp_avx512, _ZGVeN8v_exp)
SV_KERNEL_AVX512(sv_vlog1p_avx512, _ZGVeN8v_log1p)
