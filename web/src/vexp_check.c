/* ctest web.vexp (and wasm.vexp in build-web/wasm): the WebAssembly
 * build's vector exp (src/core/vexp_wasm.c, musl's exp on two SIMD lanes)
 * gives exp()'s bits: on the softmax's arguments (s - max <= 0, and c times
 * them) from a fixed-seed PCG32, spread over [-40, 0] and over the whole
 * exponent range of doubles, on the edges of musl's main path (2^-54, 512),
 * at the over- and underflow thresholds, on 0, -0, infinities and NaN, at
 * every length 0..9 (the odd element left over), and on a misaligned
 * array. Prints the count of mismatches, 0 to pass. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sdpa_var/rng.h"
#include "vexp.h"

#define N_RANDOM 400000

static double x[N_RANDOM + 1], y[N_RANDOM + 1];
static long shown; /* mismatches printed, the first five */

/* Elements of x[0..n) whose y differs from exp() in any bit. */
static long mismatches(const double *xs, const double *ys, size_t n)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double e = exp(xs[i]);
        if (memcmp(&e, &ys[i], sizeof e) != 0 && !(isnan(e) && isnan(ys[i]))) {
            if (shown++ < 5)
                printf("x = %a: exp %a, vexp %a\n", xs[i], e, ys[i]);
            bad++;
        }
    }
    return bad;
}

static double uniform(sv_rng *r)
{
    return (double)sv_rng_next(r) / 4294967296.0;
}

int main(void)
{
    sv_rng r;
    sv_rng_seed(&r, 42u, 7u);
    size_t n = 0;
    for (; n < N_RANDOM / 2; n++) /* the softmax's range: s - max, c (s - max) */
        x[n] = -40.0 * uniform(&r);
    for (; n < N_RANDOM; n++) { /* any double: sign, exponent -60..10, mantissa */
        const double m = 1.0 + uniform(&r), s = sv_rng_next(&r) & 1u ? -1.0 : 1.0;
        x[n] = s * ldexp(m, (int)(sv_rng_next(&r) % 71u) - 60);
    }
    const double edges[] = {0.0,
                            -0.0,
                            0x1p-54,
                            -0x1p-54,
                            0x1.fffffffffffffp-55,
                            512.0,
                            -512.0,
                            0x1.fffffffffffffp8,
                            -0x1.fffffffffffffp8,
                            709.782712893384,
                            709.79,
                            -708.39641853226408,
                            -745.1332191019411,
                            -745.2,
                            1000.0,
                            -1000.0,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            1.0,
                            -1.0,
                            0x1p-1074};
    const size_t ne = sizeof edges / sizeof edges[0];
    long bad = 0;
    sv__vexp(x, y, n);
    bad += mismatches(x, y, n);
    /* The edges at every position of a pair (each edge beside each other). */
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            const double p[2] = {edges[i], edges[j]};
            double q[2];
            sv__vexp(p, q, 2);
            bad += mismatches(p, q, 2);
        }
    for (size_t len = 0; len <= 9; len++) { /* lengths, and x + 1 misaligned */
        sv__vexp(x + 1, y + 1, len);
        bad += mismatches(x + 1, y + 1, len);
    }
    printf("vexp: %ld of %zu exps differ from exp()'s bits\n", bad, n + ne * ne * 2 + 45);
    return bad != 0;
}
