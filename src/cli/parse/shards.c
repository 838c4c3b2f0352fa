/* Shards: --first-trial, --total-trials and --q-rows against the rest of
 * the command line, beyond validate.c's rule table (which keeps --format
 * state with the summary alone). A slice of trials prints per-trial rows
 * or a state, never a summary of the slice (merge the shards instead). */
#include <stdint.h>

#include "options.h"

/* The largest n_q of the run's configurations (--nq, else the --n list). */
static size_t max_n_q(const cli_options *o)
{
    size_t m = o->base.n_q;
    for (size_t i = 0; !o->given[CLI_OPT_NQ] && i < o->n_n; i++)
        m = o->n[i] > m ? o->n[i] : m;
    return m;
}

/* --total-trials: with a state only, needed with --first-trial (a state
 * records the whole run, so that merge refuses any shard missing), at
 * least the shard's last trial + 1. */
static int check_total(const cli_options *o, uint64_t f, uint64_t t, char *err, size_t errlen)
{
    const uint64_t n = o->count[CLI_OPT_TOTAL_TRIALS];
    if (!o->given[CLI_OPT_TOTAL_TRIALS])
        return o->out.format != CLI_FORMAT_STATE || !o->given[CLI_OPT_FIRST_TRIAL] ||
               cli_fail(err, errlen,
                        "--first-trial with --format state needs --total-trials N (the "
                        "whole run's trials: a state records them)");
    if (n < f + t)
        return cli_fail(err, errlen,
                        "--total-trials: %llu is less than --first-trial %llu + --trials %llu",
                        (unsigned long long)n, (unsigned long long)f, (unsigned long long)t);
    return 1;
}

int cli_check_shards(const cli_options *o, char *err, size_t errlen)
{
    if (o->given[CLI_OPT_FIRST_TRIAL] && o->out.format != CLI_FORMAT_STATE &&
        !o->given[CLI_OPT_PER_TRIAL])
        return cli_fail(err, errlen,
                        "--first-trial needs --format state or --per-trial (a summary of "
                        "some trials is no shard: merge the states)");
    const uint64_t f = o->count[CLI_OPT_FIRST_TRIAL], t = o->base.trials;
    if (f > UINT64_MAX - t)
        return cli_fail(err, errlen, "--first-trial: %llu + --trials %llu exceeds 2^64 - 1",
                        (unsigned long long)f, (unsigned long long)t);
    if (!check_total(o, f, t, err, errlen))
        return 0;
    if (!o->given[CLI_OPT_Q_ROWS]) /* with a state, not --grad: validate.c's table */
        return 1;
    const size_t a = o->q_rows[0], b = o->q_rows[1], nq = max_n_q(o);
    if (b > nq || a % SV_FOLD_ROWS != 0 || (b % SV_FOLD_ROWS != 0 && b != nq))
        return cli_fail(err, errlen,
                        "--q-rows: '%zu:%zu' is not A:B with B <= n_q (%zu%s), A and B "
                        "multiples of %u (or B = n_q)",
                        a, b, nq, o->n_n > 1 && !o->given[CLI_OPT_NQ] ? ", the largest --n" : "",
                        SV_FOLD_ROWS);
    return 1;
}

void cli_shard_plan(const cli_options *opt, cli_plan *plan)
{
    plan->first_trial = opt->count[CLI_OPT_FIRST_TRIAL];
    plan->trials_total = opt->given[CLI_OPT_TOTAL_TRIALS] ? opt->count[CLI_OPT_TOTAL_TRIALS]
                                                          : plan->first_trial + opt->base.trials;
    /* Rows of the whole run: each configuration takes its part of A:B
     * (cli_shard_rows), so that an --n list shards like one --n. */
    plan->q_rows[0] = opt->given[CLI_OPT_Q_ROWS] ? opt->q_rows[0] : 0;
    plan->q_rows[1] = opt->given[CLI_OPT_Q_ROWS] ? opt->q_rows[1] : SIZE_MAX;
}
