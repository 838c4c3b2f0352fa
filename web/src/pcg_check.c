/* ctest wasm.pcg: the WebAssembly build's PCG32 (seed 42, stream 54) gives
 * the first output the native build gives, 0xa15c02b7 (tests/test_rng.c). */
#include <stdio.h>

#include "sdpa_var/rng.h"

int main(void)
{
    sv_rng r;
    sv_rng_seed(&r, 42u, 54u);
    const uint32_t x = sv_rng_next(&r);
    printf("pcg32(42, 54) = 0x%08x\n", (unsigned)x);
    return x == 0xa15c02b7u ? 0 : 1;
}
