/* Internal: exp and log1p over arrays, vectorized where the CPU allows. */
#ifndef SDPA_VAR_VEXP_H
#define SDPA_VAR_VEXP_H

#include <stddef.h>

/* Instruction set levels (cpu.h names them): what the CPU supports, or
 * lower if sv_cpu_capability_set asked for it. */
enum { SV_CPU_DEFAULT = 0, SV_CPU_AVX2 = 1, SV_CPU_AVX512 = 2 };

/* The level the row loops and the functions below use now (cpu.c). */
int sv__cpu_level(void);

/* y[i] = exp(x[i]) for i < n, through glibc's libmvec, chosen at run time
 * by sv__cpu_level(): AVX-512 (_ZGVeN8v_exp, 8 lanes), AVX2 + FMA
 * (_ZGVdN4v_exp, 4 lanes), or libm's exp. The last group is zero-padded
 * so every element of a run takes the same path. libmvec's documented bound
 * is 4 ulp; bench/exp_bench.c measured at most 2.9 ulp on [-60, 0] (libm:
 * 0.5 ulp), at 0.7 ns (AVX-512) or 0.9 ns (AVX2) instead of 5.3 ns per exp.
 * The same machine gives the same bits; machines with different vector
 * units may differ in the last bits of the softmax statistics. The
 * WebAssembly build (SIMD) takes sv__vexp_wasm: exp()'s bits, two at a time. */
void sv__vexp(const double *x, double *y, size_t n);

/* y[i] = log1p(x[i]) for i < n, chosen the same way (libmvec's
 * _ZGVeN8v_log1p / _ZGVdN4v_log1p, else libm): the softmax entropy's
 * ln Z = log1p(Z - 1), four per 2 x 2 trial. */
void sv__vlog1p(const double *x, double *y, size_t n);

/* The kernels (built with -mavx2 -mfma and -mavx512f respectively). */
void sv_vexp_avx2(const double *x, double *y, size_t n);
void sv_vexp_avx512(const double *x, double *y, size_t n);
void sv_vlog1p_avx2(const double *x, double *y, size_t n);
void sv_vlog1p_avx512(const double *x, double *y, size_t n);

/* The WebAssembly build's (vexp_wasm.c, WebAssembly SIMD): musl's exp on
 * two lanes at a time, exp()'s bits. */
void sv__vexp_wasm(const double *x, double *y, size_t n);

#endif
