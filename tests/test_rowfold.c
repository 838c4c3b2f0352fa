/* Row shards (rowfold.h): query rows [0, a), [a, b), [b, n_q) run apart
 * and their folds finished give one run's bits, with and without a
 * causal mask, values and a planted key; ranges off the blocks are
 * refused. */
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

int main(void)
{
    check_rows((sv_spec){.d_k = 2, .n_q = NQ, .n_k = 40, .trials = 2, .seed = 3});
    check_rows((sv_spec){.d_k = 2, .n_q = NQ, .n_k = NQ, .trials = 2, .seed = 4, .causal = 1});
    check_rows((sv_spec){
        .d_k = 3, .n_q = NQ, .n_k = 50, .trials = 2, .seed = 5, .values = 1, .plant = 0.5});
    return CHECK_DONE();
}
