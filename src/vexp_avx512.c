/* Built with -mavx512f; called only after a run-time CPU check. */
#include <immintrin.h>
#include <string.h>

#include "vexp.h"

/* glibc's libmvec AVX-512 exp (x86_64 vector ABI name for exp, 8 doubles,
 * not masked); math.h declares it only under -ffast-math. */
__m512d _ZGVeN8v_exp(__m512d x);

void sv_vexp_avx512(const double *x, double *y, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm512_storeu_pd(y + i, _ZGVeN8v_exp(_mm512_loadu_pd(x + i)));
    if (i < n) {
        double in[8] = {0.0}, out[8];
        memcpy(in, x + i, (n - i) * sizeof(double));
        _mm512_storeu_pd(out, _ZGVeN8v_exp(_mm512_loadu_pd(in)));
        memcpy(y + i, out, (n - i) * sizeof(double));
    }
}
