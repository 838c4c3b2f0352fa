/* Built with -mavx2 -mfma; called only after a run-time CPU check. */
#include <immintrin.h>
#include <string.h>

#include "vexp.h"

/* glibc's libmvec AVX2 functions (x86_64 vector ABI names, 4 doubles, not
 * masked); math.h declares them only under -ffast-math. */
__m256d _ZGVdN4v_exp(__m256d x);
__m256d _ZGVdN4v_log1p(__m256d x);

/* y = f(x) over n elements, the last group zero-padded. */
#define SV_KERNEL_AVX2(name, f)                                                                    \
    void name(const double *x, double *y, size_t n)                                                \
    {                                                                                              \
        size_t i = 0;                                                                              \
        for (; i + 4 <= n; i += 4)                                                                 \
            _mm256_storeu_pd(y + i, f(_mm256_loadu_pd(x + i)));                                    \
        if (i < n) {                                                                               \
            double in[4] = {0.0, 0.0, 0.0, 0.0}, out[4];                                           \
            memcpy(in, x + i, (n - i) * sizeof(double));                                           \
            _mm256_storeu_pd(out, f(_mm256_loadu_pd(in)));                                         \
            memcpy(y + i, out, (n - i) * sizeof(double));                                          \
        }                                                                                          \
    }

SV_KERNEL_AVX2(sv_vexp_avx2, _ZGVdN4v_exp)
SV_KERNEL_AVX2(sv_vlog1p_avx2, _ZGVdN4v_log1p)
