/* Which instruction set the row loops use (cpu.h): the best the CPU and
 * build support, or a lower one the caller asked for. */
#include "sdpa_var/cpu.h"

#include <stdatomic.h>
#include <string.h>

#include "vexp.h"

static const char *const names[] = {"default", "avx2", "avx512"};

/* -1: not chosen yet (the best supported, found on first use). A relaxed
 * atomic: the hot path reads it once per chunk of a row. */
static atomic_int chosen = -1;

static int best_supported(void)
{
#if defined(SV_HAVE_VEXP_AVX2)
    __builtin_cpu_init(); /* may run before libgcc's constructor (ifunc-free) */
    if (__builtin_cpu_supports("avx512f"))
        return SV_CPU_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return SV_CPU_AVX2;
#endif
    return SV_CPU_DEFAULT;
}

int sv__cpu_level(void)
{
    int level = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (level < 0) {
        level = best_supported();
        atomic_store_explicit(&chosen, level, memory_order_relaxed);
    }
    return level;
}

const char *sv_cpu_capability(void)
{
    return names[sv__cpu_level()];
}

sv_status sv_cpu_capability_set(const char *name)
{
    const int best = best_supported();
    if (!name || !*name) {
        atomic_store_explicit(&chosen, best, memory_order_relaxed);
        return SV_OK;
    }
    for (int level = 0; level < (int)(sizeof names / sizeof names[0]); level++)
        if (strcmp(name, names[level]) == 0) {
            if (level > best)
                return SV_EUNSUPPORTED;
            atomic_store_explicit(&chosen, level, memory_order_relaxed);
            return SV_OK;
        }
    return SV_EINVAL;
}
