/**
 * @file cpu.h
 * Which vector instruction set the row loops and the vector exp use, and a
 * way to force a lower one (to reproduce another CPU's last bits, or to
 * test that the results agree within the stated tolerance: README,
 * "Reproducibility").
 *
 * The row pass (softmax sums and moments of each row of scores, softmax.h)
 * and its exp and log1p are compiled three times: for plain x86-64, for
 * AVX2 (+ FMA for the exp) and for AVX-512F. Each variant adds a row's
 * terms in another order (its vector width) and uses another exp (glibc's
 * libmvec, at most 4 ulp, or libm's), so the variants agree to a few units
 * in the last place, not bit for bit. The best variant the CPU supports is
 * used unless a lower one is requested. The names are PyTorch's
 * ATEN_CPU_CAPABILITY values: "default", "avx2", "avx512".
 *
 * The choice is process-wide; the sdpa-var command line sets it from the
 * environment variable SV_CPU_CAPABILITY.
 *
 * Cost, every function here: O(1) (the first call reads CPUID once).
 */
#ifndef SDPA_VAR_CPU_H
#define SDPA_VAR_CPU_H

#ifndef SDPA_VAR_ADVANCED
#error "sdpa_var/cpu.h: define SDPA_VAR_ADVANCED first (advanced API, sdpa_var.h)"
#endif

#include "sdpa_var/status.h"

/**
 * The instruction set the row loops use now.
 *
 * @return "avx512", "avx2" or "default" (plain x86-64, and every other
 *         architecture): a static string, never NULL. Thread-safe.
 */
const char *sv_cpu_capability(void);

/**
 * Uses the instruction set @p name for the row loops from now on, in this
 * whole process.
 *
 * @param name  "default", "avx2" or "avx512"; NULL or "" restores the best
 *              one this CPU and build support.
 * @return SV_OK; SV_EINVAL for any other name; SV_EUNSUPPORTED when this CPU
 *         or this build lacks it (AVX2 needs AVX2 and FMA, AVX-512 needs
 *         AVX-512F, and an x86-64 build; the row loops other than
 *         the exp have their variants in GCC builds only). On error the choice is
 *         unchanged.
 * Thread safety: call it before starting runs (sv_exec); a run that is
 * under way may mix instruction sets between rows, never within one.
 */
sv_status sv_cpu_capability_set(const char *name);

#endif
