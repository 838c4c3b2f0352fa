/* OMP_NUM_THREADS, validated like --threads (validate.c's pass calls it). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *cli_omp_num_threads;
int cli_omp_num_threads_taken;

/* One item of OMP_NUM_THREADS, p[0..len): plain decimal digits (leading
 * zeros too), 1 to CLI_THREADS_MAX. @return 1 valid, 0 not a positive
 * integer, -1 too large. */
static int omp_item(const char *p, size_t len, uint64_t *v)
{
    *v = 0;
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        *v = *v * 10 + (uint64_t)(p[i] - '0');
        if (*v > CLI_THREADS_MAX)
            return -1;
    }
    return *v == 0 ? 0 : 1;
}

/* OMP_NUM_THREADS, when --threads is not given: validated like --threads.
 * OpenMP reads "4,2" as 4 threads at the outer level, 2 at nested ones;
 * sdpa-var nests no parallel regions, so the first item is the count, but
 * every item must be one (libgomp, which no longer sees the variable,
 * would warn about the rest and go on). */
int cli_omp_threads(cli_options *o, char *err, size_t errlen)
{
    const char *env = cli_omp_num_threads_taken ? cli_omp_num_threads : getenv("OMP_NUM_THREADS");
    if (o->given[CLI_OPT_THREADS] || !env)
        return 1;
    char q[80];
    cli_quote(q, sizeof q, env);
    uint64_t first = 0;
    for (const char *p = env;;) {
        const size_t len = strcspn(p, ",");
        uint64_t v;
        const int got = omp_item(p, len, &v);
        if (got < 0)
            return cli_fail(err, errlen, "OMP_NUM_THREADS: '%s' is too large (at most %d)", q,
                            CLI_THREADS_MAX);
        if (got == 0)
            return cli_fail(err, errlen, "OMP_NUM_THREADS: '%s' is not a positive integer%s", q,
                            strchr(env, ',') ? " or a comma list of them" : "");
        first = first ? first : v;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    o->exec.threads = (int)first;
    return 1;
}
