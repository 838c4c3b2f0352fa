#include "sdpa_var/rng.h"

/* The LCG multiplier of PCG32 (O'Neill 2014, section 4.2.1). */
#define SV_PCG_MULT 6364136223846793005ULL

uint32_t sv_rng_next(sv_rng *rng)
{
    uint64_t old = rng->state;
    rng->state = old * SV_PCG_MULT + rng->inc;
    /* XSH RR: xorshift high bits down, then rotate by the top 5 bits. */
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

void sv_rng_seed(sv_rng *rng, uint64_t initstate, uint64_t initseq)
{
    rng->state = 0u;
    rng->inc = (initseq << 1u) | 1u;
    sv_rng_next(rng);
    rng->state += initstate;
    sv_rng_next(rng);
}

/* SplitMix64's output function: a bijection of 64-bit words with good
 * avalanche, used to turn structured keys (trial, row) into unrelated seeds. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t sv_rng_matrix_key(uint64_t seed, uint64_t trial, sv_matrix matrix)
{
    uint64_t h = splitmix64(seed);
    h = splitmix64(h ^ trial);
    return splitmix64(h ^ (uint64_t)matrix);
}

void sv_rng_seed_keyed(sv_rng *rng, uint64_t key, uint64_t row)
{
    const uint64_t h = splitmix64(key ^ row);
    sv_rng_seed(rng, h, splitmix64(h ^ 0x5851f42d4c957f2dULL));
}

void sv_rng_seed_row(sv_rng *rng, uint64_t seed, uint64_t trial, sv_matrix matrix, uint64_t row)
{
    sv_rng_seed_keyed(rng, sv_rng_matrix_key(seed, trial, matrix), row);
}

uint32_t sv_rng_bounded(sv_rng *rng, uint32_t bound)
{
    if (bound == 0u)
        return 0u;
    /* Outputs below 2^32 mod bound would make small results more likely. */
    uint32_t threshold = (uint32_t)(-bound) % bound;
    for (;;) {
        uint32_t r = sv_rng_next(rng);
        if (r >= threshold)
            return r % bound;
    }
}

double sv_rng_double(sv_rng *rng)
{
    uint64_t hi = sv_rng_next(rng);
    uint64_t lo = sv_rng_next(rng);
    return (double)(((hi << 32) | lo) >> 11) * 0x1.0p-53;
}

void sv_rng_advance(sv_rng *rng, uint64_t delta)
{
    /* Brown (1994): accumulate the affine map x -> mult x + plus applied
     * delta times by repeated squaring, in O(log delta) steps. */
    uint64_t cur_mult = SV_PCG_MULT, cur_plus = rng->inc;
    uint64_t acc_mult = 1u, acc_plus = 0u;
    while (delta > 0) {
        if (delta & 1u) {
            acc_mult *= cur_mult;
            acc_plus = acc_plus * cur_mult + cur_plus;
        }
        cur_plus = (cur_mult + 1u) * cur_plus;
        cur_mult *= cur_mult;
        delta >>= 1u;
    }
    rng->state = acc_mult * rng->state + acc_plus;
}
