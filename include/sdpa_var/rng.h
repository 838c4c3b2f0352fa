/**
 * @file rng.h
 * PCG32 (PCG-XSH-RR 64/32): a 64-bit linear congruential generator whose
 * output is permuted by an xorshift and a random rotation, 32 bits per step,
 * period 2^64 on each of 2^63 streams.
 *
 * Source: M. E. O'Neill, "PCG: A Family of Simple Fast Space-Efficient
 * Statistically Good Algorithms for Random Number Generation",
 * Harvey Mudd College HMC-CS-2014-0905 (2014), section 6.3.1 (XSH RR).
 * The API follows pcg-c-basic (pcg32_srandom_r, pcg32_random_r,
 * pcg32_boundedrand_r, pcg32_advance_r); the state is explicit, there is no
 * hidden global generator, and every function is re-entrant.
 *
 * Every function that takes an sv_rng * needs a valid one (never NULL):
 * these are the innermost calls of every draw, so they do not check it
 * (sv_sample_fill, the public entry that fills arrays, does).
 *
 * Thread safety, every function here: re-entrant; one generator is used
 * by one thread at a time (fork streams by copying or by
 * sv_rng_seed_row, never share one).
 * Cost, every function here: O(1), a few integer multiplies, except
 * sv_rng_advance, O(log delta).
 */
#ifndef SDPA_VAR_RNG_H
#define SDPA_VAR_RNG_H

#include <stdint.h>

/** State of one PCG32 generator. Copy it to fork a stream. */
typedef struct sv_rng {
    uint64_t state; /**< LCG state; all 2^64 values are valid. */
    uint64_t inc;   /**< stream selector; must always be odd. */
} sv_rng;

/** Matrices that draw random rows; part of each row's stream key. */
typedef enum sv_matrix {
    SV_MATRIX_Q = 0,  /**< queries, n_q x d_k */
    SV_MATRIX_K = 1,  /**< keys, n_k x d_k */
    SV_MATRIX_X = 2,  /**< token embeddings, n x d_model (queries; keys too in self-attention) */
    SV_MATRIX_XK = 3, /**< the keys' token embeddings in cross-attention */
    SV_MATRIX_WQ = 4, /**< query projection W_Q, d_model x d_k */
    SV_MATRIX_WK = 5, /**< key projection W_K, d_model x d_k */
    SV_MATRIX_V = 6,  /**< values, n_k x d_v */
    SV_MATRIX_G = 7   /**< the upstream gradient dL/dO of --grad, n_q x d_v */
} sv_matrix;

#endif /* SDPA_VAR_RNG_H: the types above, which stable headers use */

/* The functions: advanced API, declared only where SDPA_VAR_ADVANCED is
 * defined (sdpa_var.h). */
#if defined(SDPA_VAR_ADVANCED) && !defined(SDPA_VAR_RNG_H_ADVANCED)
#define SDPA_VAR_RNG_H_ADVANCED

/**
 * Seeds @p rng exactly as pcg-c-basic's pcg32_srandom_r does.
 *
 * @param initstate starting state (any 64-bit value).
 * @param initseq   stream selector; only its low 63 bits matter.
 * Known answer: initstate 42, initseq 54 gives 0xa15c02b7 0x7b47f409
 * 0xba1d3330 0x83d2f293 0xbfa4784b 0xcbed606e (pcg32-demo).
 */
void sv_rng_seed(sv_rng *rng, uint64_t initstate, uint64_t initseq);

/**
 * Seeds @p rng with the stream that belongs to one row of one matrix in one
 * trial of an experiment with the given seed.
 *
 * Each (seed, trial, matrix, row) key is hashed by four rounds of the
 * SplitMix64 finalizer (Steele, Lea & Flood, "Fast splittable pseudorandom
 * number generators", OOPSLA 2014) into both the initial state and the stream
 * selector, so that neighbouring rows get unrelated states as well as
 * different increments (PCG streams that share a state are correlated).
 * Because every row has its own stream, the numbers drawn never depend on the
 * thread count, the block size, or the order in which rows are generated.
 */
void sv_rng_seed_row(sv_rng *rng, uint64_t seed, uint64_t trial, sv_matrix matrix, uint64_t row);

/**
 * The first three rounds of sv_rng_seed_row, shared by every row of one
 * matrix of one trial: sv_rng_seed_keyed(rng, sv_rng_matrix_key(seed,
 * trial, matrix), row) seeds exactly what sv_rng_seed_row(rng, seed,
 * trial, matrix, row) does, with one hash round per row instead of four.
 */
uint64_t sv_rng_matrix_key(uint64_t seed, uint64_t trial, sv_matrix matrix);

/** Seeds @p rng with the stream of @p row under a key from sv_rng_matrix_key. */
void sv_rng_seed_keyed(sv_rng *rng, uint64_t key, uint64_t row);

/** Next 32-bit output; advances the state by one step. */
uint32_t sv_rng_next(sv_rng *rng);

/**
 * Uniform integer in [0, bound) without modulo bias, by rejecting the
 * 2^32 mod bound lowest outputs (pcg32_boundedrand_r).
 *
 * @param bound must be >= 1; a bound of 0 returns 0 without drawing.
 */
uint32_t sv_rng_bounded(sv_rng *rng, uint32_t bound);

/**
 * Uniform double in [0, 1) carrying 53 random bits (two outputs: the top
 * 53 bits of their 64-bit concatenation, times 2^-53). Every value is a
 * multiple of 2^-53; 0 is possible, 1 is not.
 */
double sv_rng_double(sv_rng *rng);

/**
 * Jumps @p rng ahead by @p delta steps in O(log delta) time, as if
 * sv_rng_next had been called delta times (delta may wrap: 2^64 - 1 steps
 * ahead is one step back).
 * Source: F. Brown, "Random Number Generation with Arbitrary Strides",
 * Trans. Am. Nucl. Soc. 71 (1994), the algorithm used by pcg32_advance_r.
 */
void sv_rng_advance(sv_rng *rng, uint64_t delta);

#endif
