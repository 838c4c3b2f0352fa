#include "sdpa_var/rng.h"

#include "pcg.h"

uint32_t sv_rng_next(sv_rng *rng)
{
    return sv__pcg_next(rng);
}

void sv_rng_seed(sv_rng *rng, uint64_t initstate, uint64_t initseq)
{
    sv__pcg_seed(rng, initstate, initseq);
}

uint64_t sv_rng_matrix_key(uint64_t seed, uint64_t trial, sv_matrix matrix)
{
    return sv__pcg_matrix_key(seed, trial, matrix);
}

void sv_rng_seed_keyed(sv_rng *rng, uint64_t key, uint64_t row)
{
    sv__pcg_seed_keyed(rng, key, row);
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
