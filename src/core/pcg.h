/* PCG32 and the stream keys inlined (rng.c exports the same functions):
 * the samplers and the draw source call them for every value and row, and
 * a call across the library per 32 random bits cost about a tenth of a
 * tiny trial. Private: src/core, and src/source by its bare name. */
#ifndef SDPA_VAR_PCG_H
#define SDPA_VAR_PCG_H

#include <stdint.h>

#include "sdpa_var/rng.h"

/* The LCG multiplier of PCG32 (O'Neill 2014, section 4.2.1). */
#define SV_PCG_MULT 6364136223846793005ULL

static inline uint32_t sv__pcg_next(sv_rng *rng)
{
    uint64_t old = rng->state;
    rng->state = old * SV_PCG_MULT + rng->inc;
    /* XSH RR: xorshift high bits down, then rotate by the top 5 bits. */
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

static inline void sv__pcg_seed(sv_rng *rng, uint64_t initstate, uint64_t initseq)
{
    rng->state = 0u;
    rng->inc = (initseq << 1u) | 1u;
    sv__pcg_next(rng);
    rng->state += initstate;
    sv__pcg_next(rng);
}

/* SplitMix64's output function: a bijection of 64-bit words with good
 * avalanche, used to turn structured keys (trial, row) into unrelated seeds. */
static inline uint64_t sv__splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static inline uint64_t sv__pcg_matrix_key(uint64_t seed, uint64_t trial, sv_matrix matrix)
{
    uint64_t h = sv__splitmix64(seed);
    h = sv__splitmix64(h ^ trial);
    return sv__splitmix64(h ^ (uint64_t)matrix);
}

static inline void sv__pcg_seed_keyed(sv_rng *rng, uint64_t key, uint64_t row)
{
    const uint64_t h = sv__splitmix64(key ^ row);
    sv__pcg_seed(rng, h, sv__splitmix64(h ^ 0x5851f42d4c957f2dULL));
}

#endif
