/* Built with -mavx2 -mfma; called only after a run-time CPU check. */
#include <immintrin.h>
#include <string.h>

#include "vexp.h"

/* glibc's libmvec AVX2 exp (x86_64 vector ABI name for exp, 4 doubles,
 * not masked); math.h declares it only under -ffast-math. */
__m256d _ZGVdN4v_exp(__m256d x);

void sv_vexp_avx2(const double *x, double *y, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        _mm256_storeu_pd(y + i, _ZGVdN4v_exp(_mm256_loadu_pd(x + i)));
    if (i < n) {
        double in[4] = {0.0, 0.0, 0.0, 0.0}, out[4];
        memcpy(in, x + i, (n - i) * sizeof(double));
        _mm256_storeu_pd(out, _ZGVdN4v_exp(_mm256_loadu_pd(in)));
        memcpy(y + i, out, (n - i) * sizeof(double));
    }
}
