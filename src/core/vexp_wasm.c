/* The WebAssembly build's vector exp (WebAssembly SIMD, two f64 lanes):
 * musl's exp (src/math/exp.c, Arm's algorithm, which emscripten's libc
 * compiles) step for step on both lanes, with musl's own table and
 * constants (__exp_data), so every result has exp()'s bits: musl's bound,
 * 0.5 + 1.36/128 ulp without a fused multiply-add, within libmvec's 4 ulp
 * (vexp.h). A pair with an argument outside musl's main path (|x| < 2^-54,
 * |x| >= 512, infinities, NaN) is left to exp() itself, whose special
 * cases give the same bits. Checked bit for bit against exp() under node
 * (web/src/vexp_check.c, ctest web.vexp). Only the WebAssembly build
 * compiles this (CMakeLists.txt: SV_WASM). */
#if defined(__wasm_simd128__)
#include <math.h>
#include <stdint.h>
#include <wasm_simd128.h>

#include "vexp.h"

/* musl's src/math/exp_data.h (emscripten 3.1.6), the layout of its hidden
 * table: EXP_TABLE_BITS 7, EXP_POLY_ORDER 5. */
struct sv_musl_exp_data {
    double invln2n, shift, negln2hin, negln2lon;
    double poly[4];
    double exp2_shift, exp2_poly[5];
    uint64_t tab[2 * 128];
};
extern const struct sv_musl_exp_data __exp_data;

/* exp of both lanes of x as musl computes it: x = k ln2/128 + r, exp(x) =
 * 2^(k/128) (1 + tail + exp(r) - 1), the products and sums in musl's order. */
static v128_t exp_lanes(v128_t x)
{
    const struct sv_musl_exp_data *d = &__exp_data;
    const v128_t shift = wasm_f64x2_splat(d->shift);
    const v128_t kd0 = wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_splat(d->invln2n), x), shift);
    const v128_t ki = kd0; /* its bits: k in the low bits */
    const v128_t kd = wasm_f64x2_sub(kd0, shift);
    const v128_t r =
        wasm_f64x2_add(wasm_f64x2_add(x, wasm_f64x2_mul(kd, wasm_f64x2_splat(d->negln2hin))),
                       wasm_f64x2_mul(kd, wasm_f64x2_splat(d->negln2lon)));
    const uint32_t i0 = 2u * ((uint32_t)wasm_i64x2_extract_lane(ki, 0) & 127u);
    const uint32_t i1 = 2u * ((uint32_t)wasm_i64x2_extract_lane(ki, 1) & 127u);
    const v128_t tail = wasm_i64x2_make((int64_t)d->tab[i0], (int64_t)d->tab[i1]);
    const v128_t sbits =
        wasm_i64x2_add(wasm_i64x2_make((int64_t)d->tab[i0 + 1], (int64_t)d->tab[i1 + 1]),
                       wasm_i64x2_shl(ki, 52 - 7));
    const v128_t r2 = wasm_f64x2_mul(r, r);
    /* tmp = tail + r + r2 (C2 + r C3) + r2 r2 (C4 + r C5) */
    const v128_t p23 = wasm_f64x2_add(wasm_f64x2_splat(d->poly[0]),
                                      wasm_f64x2_mul(r, wasm_f64x2_splat(d->poly[1])));
    const v128_t p45 = wasm_f64x2_add(wasm_f64x2_splat(d->poly[2]),
                                      wasm_f64x2_mul(r, wasm_f64x2_splat(d->poly[3])));
    const v128_t tmp =
        wasm_f64x2_add(wasm_f64x2_add(wasm_f64x2_add(tail, r), wasm_f64x2_mul(r2, p23)),
                       wasm_f64x2_mul(wasm_f64x2_mul(r2, r2), p45));
    return wasm_f64x2_add(sbits, wasm_f64x2_mul(sbits, tmp));
}

/* All ones in the lanes on musl's main path: 2^-54 <= |x| < 512 (its
 * test on the top 12 bits, abstop - top12(2^-54) < top12(512) - top12(2^-54);
 * a NaN fails both comparisons). */
static v128_t main_path(v128_t x)
{
    const v128_t a = wasm_f64x2_abs(x);
    return wasm_v128_and(wasm_f64x2_ge(a, wasm_f64x2_splat(0x1p-54)),
                         wasm_f64x2_lt(a, wasm_f64x2_splat(512.0)));
}

/* y[0..2) = exp(x[0..2)), the pair in SIMD when it can be. */
static void exp_pair(const double *x, double *y)
{
    const v128_t v = wasm_v128_load(x);
    if (wasm_i64x2_all_true(main_path(v))) {
        wasm_v128_store(y, exp_lanes(v));
    } else {
        y[0] = exp(x[0]);
        y[1] = exp(x[1]);
    }
}

void sv__vexp_wasm(const double *x, double *y, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) { /* two pairs at once: independent work */
        const v128_t v0 = wasm_v128_load(x + i), v1 = wasm_v128_load(x + i + 2);
        if (wasm_i64x2_all_true(wasm_v128_and(main_path(v0), main_path(v1)))) {
            wasm_v128_store(y + i, exp_lanes(v0));
            wasm_v128_store(y + i + 2, exp_lanes(v1));
        } else {
            exp_pair(x + i, y + i);
            exp_pair(x + i + 2, y + i + 2);
        }
    }
    if (i + 2 <= n) {
        exp_pair(x + i, y + i);
        i += 2;
    }
    if (i < n)
        y[i] = exp(x[i]);
}
#endif
