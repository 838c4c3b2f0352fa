/* Exhaustive small shapes (issue 9 section 5): every n_q, n_k in {1, 2, 3,
 * 127, 128, 129, 255, 256, 257}, d_k in {1, 2, 3, 64} and block rows {1, 7,
 * 256} give the same bits, the same bits with 2 threads, and agree with
 * the scalar reference (tests/reference.c) to 1e-12 in every per-trial
 * statistic. The sizes sit on each side of the engine's limits: tiles of
 * 256 query rows, packed short rows (n_k <= 32, 256 / n_k rows a chunk),
 * SV_STATS_ROWS = 128 rows of statistics at once, 16 rows of plain sums,
 * and tiny trials (tm kb d_k <= 512, grouped 64 at a time). Run it under
 * the asan preset: it is there to find memory errors as well.
 *
 * Options. The full product of causal, values, plant, QK-norm and
 * projections (none, self, cross) is 48 settings (36 valid) per shape:
 * too many for the time budget. Instead every shape and d_k runs the 7
 * rows of `options` below, a covering array of strength 2: for every two
 * options, every valid combination of their settings (on/off, and the
 * three kinds of projection) appears in some row. So each option is on and
 * off for every shape, and every pair of options is on together for every
 * shape (not only once per shape class). Plant with projections is the one
 * pair the spec rejects (EINVAL), so it has no row. For shapes with
 * n_q != n_k causal does not apply; dropping it from the rows still covers
 * every pair of the other four, which the rows cover without it. Bugs that
 * need three options at once on a particular shape could hide; a bug in
 * the engine's code paths needs at most the shape, d_k and two options to
 * reach (each option is one branch in the source or the row pass).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reference.h"
#include "sdpa_var/sdpa_var.h"

enum { PROJ_NONE, PROJ_SELF, PROJ_CROSS };

/* causal, values, plant, qk_norm, projections: a covering array (found by
 * a greedy search; 7 rows, the least is 6: values x projections). */
static const struct {
    int causal, values, plant, qk_norm, proj;
} options[] = {
    {0, 0, 1, 0, PROJ_NONE}, {0, 1, 0, 0, PROJ_SELF},  {0, 1, 0, 1, PROJ_CROSS},
    {1, 0, 0, 0, PROJ_NONE}, {1, 0, 0, 0, PROJ_CROSS}, {1, 0, 0, 1, PROJ_SELF},
    {1, 1, 1, 1, PROJ_NONE},
};

static const size_t sizes[] = {1, 2, 3, 127, 128, 129, 255, 256, 257};
static const size_t dks[] = {1, 2, 3, 64};
static const size_t blocks[] = {1, 7, 256};

enum { TRIALS = 2 }; /* two: tiny trials run grouped, and trial streams differ */

static sv_spec config(size_t nq, size_t nk, size_t d, size_t row)
{
    sv_spec c = {.d_k = d, .n_q = nq, .n_k = nk, .trials = TRIALS, .seed = 77u};
    c.causal = options[row].causal && nq == nk;
    c.values = options[row].values;
    c.d_v = 3;
    c.plant = options[row].plant ? 0.6 : 0.0;
    c.qk_norm = options[row].qk_norm;
    c.d_model = options[row].proj != PROJ_NONE ? 5 : 0;
    c.cross = options[row].proj == PROJ_CROSS;
    if (row == 3) { /* shifted and scaled entries, where projections are off */
        c.q_mean = 0.5;
        c.k_mean = -0.25;
        c.q_std = 2.0;
    }
    (void)sv_spec_resolve(&c); /* checked by the run */
    return c;
}

/* One shape, d_k and option row: same bits for every block size and for 2
 * threads, and the reference's numbers. @return 1 if all agree. */
static int run_case(size_t nq, size_t nk, size_t d, size_t row)
{
    const sv_spec c = config(nq, nk, d, row);
    sv_source src;
    sv_exec e = {0};
    sv_trial_stats first[TRIALS], got[TRIALS], want;
    char label[128];
    snprintf(label, sizeof label, "n_q %zu n_k %zu d_k %zu options %zu", nq, nk, d, row);
    int ok = 1;
    for (size_t b = 0; b <= sizeof blocks / sizeof blocks[0]; b++) {
        const int last = b == sizeof blocks / sizeof blocks[0];
        e.block_rows = last ? 7 : blocks[b];
        e.threads = last ? 2 : 1;
        memset(got, 0x5a + (int)b, sizeof got); /* a field never written cannot match */
        if (sv_source_draw(&c, &src) != SV_OK ||
            sv_engine_run(&c, &src, &e, NULL, 0, TRIALS, b == 0 ? first : got) != SV_OK) {
            fprintf(stderr, "%s: run failed\n", label);
            return 0;
        }
        if (b > 0 && memcmp(first, got, sizeof got) != 0) {
            fprintf(stderr, "%s: block rows %zu threads %d: other bits\n", label, e.block_rows,
                    e.threads);
            ok = 0;
        }
    }
    for (uint64_t t = 0; t < TRIALS; t++) {
        ref_trial(&c, t, &want);
        ok &= ref_compare(&c, &first[t], &want, 1e-12, label) == 0;
    }
    return ok;
}

int main(void)
{
    const size_t ns = sizeof sizes / sizeof sizes[0], nd = sizeof dks / sizeof dks[0];
    const size_t no = sizeof options / sizeof options[0];
    int cases = 0, failed = 0;
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < ns; b++)
            for (size_t k = 0; k < nd; k++)
                for (size_t o = 0; o < no; o++) {
                    /* Rectangles drop causal; the 7 rows stay distinct. */
                    cases++;
                    failed += !run_case(sizes[a], sizes[b], dks[k], o);
                }
    printf("%d cases (shape x d_k x options), %d differ\n", cases, failed);
    CHECK_EQ(failed, 0);
    CHECK_EQ(cases, 81 * 4 * 7); /* the loops ran */
    return CHECK_DONE();
}
