/* PCG32 against the published reference output (pcg-c-basic pcg32-demo,
 * seed 42, sequence 54), jump-ahead against stepping, and 53-bit doubles. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/rng.h"

static void test_reference_demo(void)
{
    sv_rng rng;
    sv_rng_seed(&rng, 42u, 54u);
    /* Round 1 of pcg32-demo: six words, 65 coins, 33 dice, a 52-card shuffle. */
    static const uint32_t words1[6] = {0xa15c02b7, 0x7b47f409, 0xba1d3330,
                                       0x83d2f293, 0xbfa4784b, 0xcbed606e};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(sv_rng_next(&rng), words1[i]);
    static const char coins[] = "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT";
    char got[66] = {0};
    for (int i = 0; i < 65; i++)
        got[i] = sv_rng_bounded(&rng, 2) ? 'H' : 'T';
    CHECK_STR_EQ(got, coins);
    static const int rolls[33] = {3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
                                  1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3};
    int rolls_ok = 1;
    for (int i = 0; i < 33; i++)
        rolls_ok &= (int)sv_rng_bounded(&rng, 6) + 1 == rolls[i];
    CHECK(rolls_ok);
    for (uint32_t i = 52; i > 1; i--)
        (void)sv_rng_bounded(&rng, i);
    /* Round 2 starts after exactly the draws above, rejections included. */
    static const uint32_t words2[6] = {0x74ab93ad, 0x1c1da000, 0x494ff896,
                                       0x34462f2f, 0xd308a3e5, 0x0fa83bab};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(sv_rng_next(&rng), words2[i]);
}

static void test_advance(void)
{
    sv_rng a, b;
    sv_rng_seed(&a, 42u, 54u);
    for (int i = 0; i < 6; i++)
        sv_rng_next(&a);
    /* Back six steps (the demo's "Again:" line): 2^64 - 6 ahead. */
    sv_rng_advance(&a, (uint64_t)0 - 6u);
    CHECK_EQ(sv_rng_next(&a), 0xa15c02b7);

    sv_rng_seed(&a, 12345u, 678u);
    b = a;
    for (int i = 0; i < 1000003; i++)
        sv_rng_next(&a);
    sv_rng_advance(&b, 1000003u);
    CHECK_EQ(a.state, b.state);
    CHECK_EQ(a.inc, b.inc);
    sv_rng_advance(&b, 0u);
    CHECK_EQ(a.state, b.state);
}

static void test_double_and_streams(void)
{
    sv_rng rng;
    sv_rng_seed(&rng, 42u, 54u);
    /* The first double is the first two words, top 53 bits. */
    const double want = (double)(((uint64_t)0xa15c02b7 << 21) | (0x7b47f409 >> 11)) * 0x1.0p-53;
    CHECK_EQ(sv_rng_double(&rng), want);
    int in_range = 1, has_low_bits = 0;
    for (int i = 0; i < 100000; i++) {
        const double u = sv_rng_double(&rng);
        in_range &= u >= 0.0 && u < 1.0;
        /* 53 bits: some values use bits below 2^-32. */
        const double scaled = u * 0x1.0p32;
        has_low_bits |= scaled != floor(scaled);
    }
    CHECK(in_range);
    CHECK(has_low_bits);

    /* Row streams: deterministic, and different for each part of the key. */
    sv_rng r1, r2;
    sv_rng_seed_row(&r1, 42u, 3u, SV_MATRIX_Q, 7u);
    sv_rng_seed_row(&r2, 42u, 3u, SV_MATRIX_Q, 7u);
    CHECK_EQ(r1.state, r2.state);
    CHECK_EQ(r1.inc, r2.inc);
    CHECK(r1.inc & 1u);
    const uint32_t first = sv_rng_next(&r1);
    sv_rng_seed_row(&r2, 43u, 3u, SV_MATRIX_Q, 7u);
    CHECK_NE(sv_rng_next(&r2), first);
    sv_rng_seed_row(&r2, 42u, 4u, SV_MATRIX_Q, 7u);
    CHECK_NE(sv_rng_next(&r2), first);
    sv_rng_seed_row(&r2, 42u, 3u, SV_MATRIX_K, 7u);
    CHECK_NE(sv_rng_next(&r2), first);
    sv_rng_seed_row(&r2, 42u, 3u, SV_MATRIX_Q, 8u);
    CHECK_NE(sv_rng_next(&r2), first);
    /* The keyed form seeds the same stream. */
    sv_rng_seed_keyed(&r2, sv_rng_matrix_key(42u, 3u, SV_MATRIX_Q), 7u);
    sv_rng_seed_row(&r1, 42u, 3u, SV_MATRIX_Q, 7u);
    CHECK_EQ(r1.state, r2.state);
    CHECK_EQ(r1.inc, r2.inc);
    /* Pinned: the first word of one row stream, so that a change to the
     * stream derivation (which changes every number the tool prints) is
     * a deliberate one. */
    sv_rng_seed_row(&r1, 42u, 0u, SV_MATRIX_Q, 0u);
    CHECK_EQ(sv_rng_next(&r1), 0xe358efe5u);
}

int main(void)
{
    test_reference_demo();
    test_advance();
    test_double_and_streams();
    return CHECK_DONE();
}
