/* OMP_NUM_THREADS, validated like --threads (validate.c's pass calls it). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *cli_omp_num_threads;
int cli_omp_num_threads_taken;

/* OMP_NUM_THREADS, when --threads is not given: each item read and refused
 * as --threads is (sv_value_explain: a count from 1 to CLI_THREADS_MAX).
 * OpenMP reads "4,2" as 4 threads at the outer level, 2 at nested ones;
 * sdpa-var nests no parallel regions, so the first item is the count, but
 * every item must be one (libgomp, which no longer sees the variable,
 * would warn about the rest and go on). */
int cli_omp_threads(cli_options *o, char *err, size_t errlen)
{
    const char *env = cli_omp_num_threads_taken ? cli_omp_num_threads : getenv("OMP_NUM_THREADS");
    if (o->given[CLI_OPT_THREADS] || !env)
        return 1;
    char *items = strdup(env), why[160] = "", q[80];
    if (!items)
        return cli_fail(err, errlen, "out of memory");
    uint64_t first = 0;
    for (char *p = items, *end;; p = end + 1) {
        end = p + strcspn(p, ",");
        const int last = *end == '\0';
        *end = '\0';
        uint64_t v = 0;
        if (sv_value_explain(SV_ARG_COUNT, 1, CLI_THREADS_MAX, p, why, sizeof why) ||
            sv_text_count(p, &v) != SV_OK)
            break;
        first = first ? first : v;
        if (last)
            break;
    }
    free(items);
    if (why[0] && strchr(env, ',')) /* the item, in the list as given */
        return cli_fail(err, errlen, "OMP_NUM_THREADS: '%s': %s", cli_quote(q, sizeof q, env), why);
    if (why[0])
        return cli_fail(err, errlen, "OMP_NUM_THREADS: %s", why);
    o->exec.threads = (int)first;
    return 1;
}
