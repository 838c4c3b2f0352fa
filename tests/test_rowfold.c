/* Row shards (rowfold.h): query rows [0, a), [a, b), [b, n_q) run apart
 * and their folds finished give one run's bits, with and without a
 * causal mask, values and a planted key; ranges off the blocks are
 * refused. Trials finished from named sums (sv_trial_sums_finish) follow
 * the engine's rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* Three blocks of SV_FOLD_ROWS rows, the last one short; d_k 2 keeps a
 * trial near a tenth of a second. */
#define NQ (2u * SV_FOLD_ROWS + 300u)

static void check_rows(sv_spec s)
{
    CHECK(sv_spec_resolve(&s) == SV_OK);
    sv_source src;
    CHECK(sv_source_draw(&s, &src) == SV_OK);
    const sv_exec exec = {.threads = 2};
    sv_trial_stats whole[2], merged[2];
    CHECK(sv_engine_run(&s, &src, &exec, NULL, 0, 2, whole) == SV_OK);
    const size_t nb = sv_rowfold_blocks(0, s.n_q);
    CHECK(nb == 3);
    sv_rowfold *f = calloc(2 * nb, sizeof *f), *part = calloc(2 * 2, sizeof *part);
    CHECK(f && part);
    /* rows [0, B) alone, then [B, n_q) (two blocks) */
    CHECK(sv_engine_run_rows(&s, &src, &exec, 0, 2, 0, SV_FOLD_ROWS, part) == SV_OK);
    f[0] = part[0];
    f[nb] = part[1];
    CHECK(sv_engine_run_rows(&s, &src, &exec, 0, 2, SV_FOLD_ROWS, s.n_q, part) == SV_OK);
    memcpy(f + 1, part, 2 * sizeof *part);
    memcpy(f + nb + 1, part + 2, 2 * sizeof *part);
    for (int t = 0; t < 2; t++)
        CHECK(sv_rowfold_finish(&s, f + t * nb, nb, &merged[t]) == SV_OK);
    CHECK(memcmp(whole, merged, sizeof whole) == 0);
    /* a missing block is not a trial */
    f[1].count[5] = 0;
    CHECK(sv_rowfold_finish(&s, f, nb, &merged[0]) == SV_EMISMATCH);
    CHECK(sv_rowfold_check(&s, 1, s.n_q) == SV_EINVAL);
    CHECK(sv_rowfold_check(&s, 0, SV_FOLD_ROWS + 1) == SV_EINVAL);
    CHECK(sv_rowfold_check(&s, SV_FOLD_ROWS, SV_FOLD_ROWS) == SV_EINVAL);
    free(f);
    free(part);
}

/* Sum i of SV_TRIAL_SUMS_MAP by name. */
static double *sum_at(double *x, const char *name)
{
    for (size_t i = 0; sv_trial_sum_name(i); i++)
        if (strcmp(sv_trial_sum_name(i), name) == 0)
            return &x[i];
    CHECK(!"a sum of that name");
    return &x[0];
}

/* A trial of 3 rows, 2 of them seeing 4 scores in all (mean 0.5, M2 2),
 * one of them 2 keys or more: the engine's finish (trial_finish), by
 * hand; then a trial that sees nothing, and counts that are not counts. */
static void check_sums(void)
{
    sv_spec s = {.d_k = 2, .n_q = 3, .n_k = 4, .trials = 2, .scale = 0.5, .ddof = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    CHECK_EQ(sv_theory_mean(&s), 0.0); /* q_mean, k_mean 0: the known mean is 0 */
    CHECK_STR_EQ(sv_trial_sum_name(0), "rows_seen");
    CHECK(sv_trial_sum_name(SV_TRIAL_SUMS) == NULL);
    double x[2 * SV_TRIAL_SUMS] = {0}, *y = x + SV_TRIAL_SUMS;
    const char *set[] = {"rows_seen",       "scores",         "score_mean", "score_m2",
                         "raw_entropy",     "scaled_entropy", "rows_norm",  "raw_entropy_norm",
                         "raw_entropy_min", "q_entries",      "q_mean",     "q_m2",
                         "raw_max_logit"};
    const double val[] = {2, 4, 0.5, 2, 1.2, 0.8, 1, 0.9, 0.25, 6, 1, 3, 1.5};
    for (size_t i = 0; i < sizeof val / sizeof val[0]; i++)
        *sum_at(x, set[i]) = val[i];
    *sum_at(y, "raw_max_logit") = -INFINITY; /* trial_init's start: nothing seen */
    sv_trial_stats t[2];
    CHECK_STATUS(sv_trial_sums_finish(&s, x, 2, t), SV_OK);
    CHECK_EQ(t[0].raw_mean, 0.5);
    CHECK_EQ(t[0].raw_var, 2.0 / 3.0); /* ddof 1 */
    CHECK_EQ(t[0].raw_var_ddof0, 0.5);
    CHECK_EQ(t[0].raw_var_known_mean, (2.0 + 4 * 0.25) / 4);
    CHECK_EQ(t[0].scaled_mean, 0.25);
    CHECK_EQ(t[0].scaled_var, 2.0 / 3.0 * 0.25);
    CHECK_EQ(t[0].raw_entropy, 0.6);
    CHECK_EQ(t[0].scaled_entropy, 0.4);
    CHECK_EQ(t[0].raw_entropy_norm, 0.9);
    CHECK_EQ(t[0].raw_entropy_min, 0.25);
    CHECK_EQ(t[0].q_mean, 1.0);
    CHECK_EQ(t[0].q_var, 0.5);
    CHECK_EQ(t[0].raw_max_logit, 1.5);
    CHECK_EQ(t[0].rows_empty, 1.0);
    CHECK_NAN(t[0].raw_diag_logit);
    CHECK_NAN(t[0].k_mean); /* no entry of K measured */
    CHECK_NAN(t[0].raw_grad_q2);
    /* nothing seen: NaN means and extremes, every row empty */
    CHECK_NAN(t[1].raw_mean);
    CHECK_NAN(t[1].raw_var_known_mean);
    CHECK_NAN(t[1].raw_entropy);
    CHECK_NAN(t[1].raw_entropy_min);
    CHECK_NAN(t[1].raw_max_logit);
    CHECK_NAN(t[1].raw_entropy_norm);
    CHECK_EQ(t[1].rows_empty, 3.0);
    /* not a count, or more rows than the spec's; counts no mask gives
     * (2 rows seeing 4 keys at most, one of them 2 or more: 3 to 8 scores;
     * entries at most n_q d_k = 6 and n_k d_k = 8), which the old code
     * took: a trial seeing no row but 3 scores had a raw_var and no mean
     * over rows, one seeing rows but no score a NAN raw_var (a trial that
     * measured nothing to sv_partial) and rows_empty 1 */
    const char *bad[] = {"rows_seen", "scores", "rows_norm", "q_entries",
                         "scores",    "scores", "q_entries", "k_entries"};
    const double bad_val[] = {4, 2.5, 3, -1, 2, 9, 7, 9};
    for (size_t i = 0; i < sizeof bad_val / sizeof bad_val[0]; i++) {
        double z[SV_TRIAL_SUMS];
        memcpy(z, x, sizeof z);
        *sum_at(z, bad[i]) = bad_val[i];
        if (!CHECK_STATUS(sv_trial_sums_finish(&s, z, 1, t), SV_EINVAL))
            fprintf(stderr, "sums: %s %g taken\n", bad[i], bad_val[i]);
    }
    double z[SV_TRIAL_SUMS];
    memcpy(z, y, sizeof z);
    *sum_at(z, "scores") = 3; /* no row seen, yet scores */
    CHECK_STATUS(sv_trial_sums_finish(&s, z, 1, t), SV_EINVAL);
    memcpy(z, x, sizeof z);
    *sum_at(z, "scores") = 0; /* rows seen, no score */
    *sum_at(z, "rows_norm") = 0;
    CHECK_STATUS(sv_trial_sums_finish(&s, z, 1, t), SV_EINVAL);
    *sum_at(z, "scores") = 8; /* the most: every key of both rows */
    CHECK_STATUS(sv_trial_sums_finish(&s, z, 1, t), SV_OK);
    /* one row seeing one key: 1 score, no more than ddof 1 (raw_var 0 / 0
     * in a trial whose entropy is a number), which the old code took */
    *sum_at(z, "rows_seen") = 1;
    *sum_at(z, "scores") = 1;
    *sum_at(z, "score_m2") = 0.0; /* one score: no spread */
    CHECK_STATUS(sv_trial_sums_finish(&s, z, 1, t), SV_EINVAL);
    sv_spec s0 = s;
    s0.ddof = 0;
    CHECK_STATUS(sv_trial_sums_finish(&s0, z, 1, t), SV_OK);
    CHECK_EQ(t[0].raw_var, 0.0);
    CHECK_STATUS(sv_trial_sums_finish(&s, NULL, 1, t), SV_EINVAL);
    s.scale_logn = 1;
    CHECK_STATUS(sv_trial_sums_finish(&s, x, 1, t), SV_EINVAL);
}

int main(void)
{
    check_sums();
    check_rows((sv_spec){.d_k = 2, .n_q = NQ, .n_k = 40, .trials = 2, .seed = 3});
    check_rows((sv_spec){.d_k = 2, .n_q = NQ, .n_k = NQ, .trials = 2, .seed = 4, .causal = 1});
    check_rows((sv_spec){
        .d_k = 3, .n_q = NQ, .n_k = 50, .trials = 2, .seed = 5, .values = 1, .plant = 0.5});
    return CHECK_DONE();
}
