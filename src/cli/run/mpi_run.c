/* The MPI run (mpi_run.h). With at least as many trials as ranks, each
 * rank's shard is --first-trial lo --trials hi - lo of the same plan;
 * with fewer (one long trial), it is --q-rows of whole blocks of
 * SV_FOLD_ROWS query rows of every trial. Either way the merge in rank
 * order is the merge `sdpa-var merge` does of those shards, and its bytes
 * are one process's. */
#include "mpi_run.h"

#include <limits.h>
#include <stdint.h>
#include <mpi.h>
#include <sdpa_var/rowfold.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "fail.h"

void cli_mpi_begin(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
}

int cli_mpi_ranks(void)
{
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

int cli_mpi_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int cli_mpi_launched(void)
{
    /* Open MPI's and PMI(x) launchers' variables: set by mpirun even for
     * -n 1, absent in a singleton started from a shell. */
    return cli_mpi_ranks() > 1 || getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
           getenv("PMIX_RANK");
}

int cli_mpi_end(int status)
{
    MPI_Finalize();
    return status;
}

/* Max n_q of the configurations: an --n list splits the rows of its
 * largest, and each configuration takes its part (cli_plan.q_rows). */
static size_t max_n_q(const cli_plan *p)
{
    size_t nq = 0;
    for (size_t i = 0; i < p->count; i++)
        nq = p->configs[i].spec.n_q > nq ? p->configs[i].spec.n_q : nq;
    return nq;
}

/* Whether the ranks split query rows (fewer trials than ranks). */
static int split_rows(const cli_plan *p, uint64_t ranks)
{
    return p->count && p->configs[0].spec.trials < ranks;
}

/* Whether some configuration has log-n multipliers per row: a row fold
 * holds the scaled moments of one multiplier (the library's rule,
 * sv_spec_check_use, which sv_rowfold_check applies). */
static int any_logn_rows(const cli_plan *p)
{
    for (size_t i = 0; i < p->count; i++)
        if (sv_spec_check_use(&p->configs[i].spec, SV_USE_ROW_SHARD, NULL, NULL) != SV_OK)
            return 1;
    return 0;
}

/* What a split run cannot do, or NULL. The same on every rank. */
static const char *unsplittable(const cli_plan *p, uint64_t ranks)
{
    if (p->out.kind != SV_OUTPUT_SUMMARY)
        return "per-trial, per-row and histogram output";
    if (p->out.n_columns || p->out.columns_all || p->out.column_groups)
        return "--columns";
    if (p->out.format == CLI_FORMAT_GNUPLOT)
        return "--format gnuplot";
    if (p->arrays)
        return "measured --q and --k";
    if (p->first_trial || p->q_rows[0] || p->q_rows[1] != SIZE_MAX)
        return "--first-trial and --q-rows (the ranks split the trials)";
    if (split_rows(p, ranks) && p->configs[0].spec.grad)
        return "fewer trials than ranks and --grad (dL/dk sums over every row: only trials split)";
    if (split_rows(p, ranks) && any_logn_rows(p))
        return "fewer trials than ranks and --scale logn per row (only trials split)";
    if (split_rows(p, ranks) && sv_rowfold_blocks(0, max_n_q(p)) < ranks)
        return "fewer trials than ranks and fewer blocks of 4096 query rows than ranks";
    return NULL;
}

/* Rank r's shard: trials floor(r T / P) .. floor((r + 1) T / P) - 1. */
static uint64_t split(uint64_t t, uint64_t r, uint64_t p)
{
    return r * (t / p) + r * (t % p) / p; /* r (t % p) < p^2: no overflow */
}

/* This rank's state, encoded; NULL after a message. */
static unsigned char *run_shard(const cli_plan *plan, int rank, int ranks, size_t *len)
{
    const int rows = split_rows(plan, (uint64_t)ranks);
    /* the blocks of SV_FOLD_ROWS query rows of the largest trial, or the trials */
    const uint64_t t = plan->configs[0].spec.trials,
                   n = rows ? sv_rowfold_blocks(0, max_n_q(plan)) : t;
    const uint64_t lo = split(n, (uint64_t)rank, (uint64_t)ranks),
                   hi = split(n, (uint64_t)rank + 1, (uint64_t)ranks);
    cli_config *cfg = malloc(plan->count * sizeof *cfg);
    if (!cfg) {
        cli_error(0, "rank %d: out of memory", rank);
        return NULL;
    }
    memcpy(cfg, plan->configs, plan->count * sizeof *cfg);
    cli_plan p = *plan;
    p.configs = cfg;
    if (rows) { /* every trial, query rows of blocks lo .. hi - 1 */
        const size_t nq = max_n_q(plan);
        p.q_rows[0] = (size_t)lo * SV_FOLD_ROWS;
        p.q_rows[1] = (size_t)hi * SV_FOLD_ROWS < nq ? (size_t)hi * SV_FOLD_ROWS : nq;
    } else {
        for (size_t i = 0; i < plan->count; i++)
            cfg[i].spec.trials = hi - lo;
        p.first_trial = lo;
    }
    p.out.format = CLI_FORMAT_STATE;
    p.quiet = plan->quiet || rank != 0; /* one progress line */
    sv_state st;
    unsigned char *buf = NULL;
    int ok = cli_run_state_into(&p, &st);
    if (ok && !(sv_state_encode(&st, NULL, 0, len) == SV_ERANGE && (buf = malloc(*len)) &&
                sv_state_encode(&st, buf, *len, len) == SV_OK && *len <= INT_MAX)) {
        cli_error(0, "rank %d: out of memory", rank);
        free(buf);
        buf = NULL;
    }
    sv_state_free(&st);
    free(cfg);
    return buf;
}

/* Rank 0: the ranks' states in rank order, decoded, merged, written. */
static int merge_ranks(unsigned char *mine, const unsigned long long *lens, int ranks,
                       cli_format format)
{
    sv_state *st = calloc((size_t)ranks, sizeof *st);
    const sv_state **sp = calloc((size_t)ranks, sizeof(const sv_state *));
    int ok = 1;
    for (int r = 0; r < ranks; r++) { /* every rank's bytes received, in rank order */
        unsigned char *b = r ? malloc(lens[r]) : mine;
        if (!st || !sp || !b) {
            cli_error(0, "mpi: out of memory");
            MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_RUNTIME); /* the ranks wait to send */
        }
        if (r)
            MPI_Recv(b, (int)lens[r], MPI_BYTE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok = sv_state_decode(b, lens[r], &st[r]) == SV_OK && ok;
        sp[r] = &st[r];
        if (r)
            free(b);
    }
    if (ok)
        ok = cli_merge_states(sp, (size_t)ranks, format, NULL, "mpi: merge");
    else
        cli_error(0, "mpi: a rank's state did not arrive whole");
    for (int r = 0; r < ranks; r++)
        sv_state_free(&st[r]);
    free(st);
    free(sp);
    return ok;
}

int cli_mpi_run(const cli_plan *plan)
{
    const int rank = cli_mpi_rank(), ranks = cli_mpi_ranks();
    const char *why = unsplittable(plan, (uint64_t)ranks);
    if (why && rank == 0)
        return cli_error(CLI_EXIT_USAGE, "mpirun -n %d: not with %s (run it as one process)", ranks,
                         why);
    if (why) /* said by rank 0 */
        return CLI_EXIT_USAGE;
    size_t len = 0;
    unsigned char *mine = run_shard(plan, rank, ranks, &len);
    unsigned long long my_len = mine ? (unsigned long long)len : 0, *lens = NULL;
    if (rank == 0 && !(lens = calloc((size_t)ranks, sizeof *lens)))
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_RUNTIME);
    MPI_Gather(&my_len, 1, MPI_UNSIGNED_LONG_LONG, lens, 1, MPI_UNSIGNED_LONG_LONG, 0,
               MPI_COMM_WORLD);
    int all = 1; /* every rank has its state (0: a rank said why it has none) */
    for (int r = 0; rank == 0 && r < ranks; r++)
        all = all && lens[r] > 0;
    MPI_Bcast(&all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int ok = all;
    if (all && rank != 0)
        MPI_Send(mine, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    else if (all)
        ok = merge_ranks(mine, lens, ranks, plan->out.format);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(mine);
    free(lens);
    return ok ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
}
