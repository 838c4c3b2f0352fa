/* The sink weight (raw_sink_weight, scaled_sink_weight): the softmax weight
 * of the first key a row sees, whatever hides the keys before it (a source
 * mask, a window), against a direct reference that holds each row's logits;
 * the same bits for any thread count and block size, also when the first
 * seen key lies in a later key block of 4096. Before issue 39 the engine
 * took key 0's weight, 0 where key 0 is hidden: every case below but the
 * plain causal one failed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* What hides keys: key j < hidden by the mask, an additive term add(i, j)
 * on the seen ones, and the spec's causal flag and window. */
typedef struct hide {
    size_t hidden;
    int additive;
} hide;

static double add_of(size_t i, size_t j)
{
    return 0.5 * sin(0.7 * (double)i + 1.3 * (double)j);
}

static double entry(size_t i, size_t l, double f)
{
    return sin(f * (double)(i + 1) + 0.37 * (double)l);
}

/* Row i's sink weight for multiplier c: p_a = exp(z_a - max) / sum exp(z_j -
 * max) over the seen keys, z_j = c S_ij + M_ij (raw: c = 1 with S + M / c_s,
 * c_s the spec's scale), a the first seen key. Returns 0 for a row that sees
 * no key, else 1 and *w. */
static int ref_row(const sv_spec *s, const double *q, const double *k, const hide *h, size_t i,
                   int scaled, double *w)
{
    size_t lo, hi;
    sv_spec_row_keys(s, i, &lo, &hi);
    if (lo < h->hidden)
        lo = h->hidden;
    if (hi <= lo)
        return 0;
    const double cs = s->scale;
    double *z = malloc((hi - lo) * sizeof *z), top = -INFINITY, sum = 0.0;
    for (size_t j = lo; j < hi; j++) {
        double dot = 0.0;
        for (size_t l = 0; l < s->d_k; l++)
            dot += q[i * s->d_k + l] * k[j * s->d_k + l];
        const double m = h->additive ? add_of(i, j) : 0.0;
        z[j - lo] = scaled ? cs * dot + m : dot + m / cs;
        top = z[j - lo] > top ? z[j - lo] : top;
    }
    for (size_t j = lo; j < hi; j++)
        sum += exp(z[j - lo] - top);
    *w = exp(z[0] - top) / sum;
    free(z);
    return 1;
}

/* The run of @p s (resolved, one trial) on q, k (n x d_k, row-major) with
 * the mask of @p h, threads and block rows as given. */
static sv_status run(const sv_spec *s, const double *q, const double *k, const hide *h, int threads,
                     size_t block_rows, double *madd, unsigned char *mbool, sv_trial_stats *out)
{
    const size_t d = s->d_k, nq = s->n_q, nk = s->n_k;
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {nq, d}, .strides = {(ptrdiff_t)(d * 8), 8}};
    arr.k = arr.q;
    arr.k.data = k;
    arr.k.shape[0] = nk;
    if (h->additive) {
        for (size_t i = 0; i < nq; i++)
            for (size_t j = 0; j < nk; j++)
                madd[i * nk + j] = j < h->hidden ? -INFINITY : add_of(i, j);
        arr.mask = (sv_array){
            .data = madd, .ndim = 2, .shape = {nq, nk}, .strides = {(ptrdiff_t)(nk * 8), 8}};
    } else if (h->hidden > 0) { /* key padding, broadcast over rows */
        for (size_t j = 0; j < nk; j++)
            mbool[j] = j >= h->hidden;
        arr.mask = (sv_array){
            .data = mbool, .dtype = SV_DTYPE_BOOL, .ndim = 2, .shape = {1, nk}, .strides = {0, 1}};
    }
    sv_source src;
    sv_status st = sv_source_strided(&arr, &src);
    const sv_exec exec = {.threads = threads, .block_rows = block_rows};
    return st == SV_OK ? sv_engine_run(s, &src, &exec, NULL, 0, 1, out) : st;
}

/* One case: the engine's sink weights against the reference's mean over
 * the rows that see a key (relative 1e-12: dgemm and the reference add the
 * d_k products in other orders), and the same bits with 2 threads and
 * blocks of 256 rows. */
static void check_case(const char *what, size_t d, size_t nq, size_t nk, int causal, size_t window,
                       hide h)
{
    sv_spec s = {.d_k = d, .n_q = nq, .n_k = nk, .trials = 1, .causal = causal, .window = window};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    double *q = malloc(nq * d * sizeof *q), *k = malloc(nk * d * sizeof *k);
    double *madd = malloc((h.additive ? nq * nk : 1) * sizeof *madd);
    unsigned char *mbool = malloc(nk);
    for (size_t i = 0; i < nq; i++)
        for (size_t l = 0; l < d; l++)
            q[i * d + l] = 2.0 * entry(i, l, 0.91);
    for (size_t j = 0; j < nk; j++)
        for (size_t l = 0; l < d; l++)
            k[j * d + l] = entry(j, l, 1.77);
    double sum[2] = {0.0, 0.0}, w;
    size_t seen = 0;
    for (size_t i = 0; i < nq; i++)
        for (int c = 0; c < 2; c++)
            if (ref_row(&s, q, k, &h, i, c, &w)) {
                sum[c] += w;
                seen += c == 0;
            }
    sv_trial_stats a, b;
    const int failed = check_failed_;
    if (CHECK_STATUS(run(&s, q, k, &h, 1, 0, madd, mbool, &a), SV_OK) &&
        CHECK_STATUS(run(&s, q, k, &h, 2, 256, madd, mbool, &b), SV_OK)) {
        CHECK_EQ(a.rows_empty, (double)(nq - seen));
        CHECK_CLOSE(a.raw_sink_weight, sum[0] / (double)seen, 1e-12, 0.0);
        CHECK_CLOSE(a.scaled_sink_weight, sum[1] / (double)seen, 1e-12, 0.0);
        CHECK_MEM_EQ(&a, &b, sizeof a);
    }
    if (check_failed_ != failed)
        fprintf(stderr, "  in case '%s'\n", what);
    free(q);
    free(k);
    free(madd);
    free(mbool);
}

int main(void)
{
    /* Key 0 seen by every row: the old definition, through the grouped
     * tiny-trial path (causal) and the tile path. */
    check_case("causal tiny", 2, 4, 4, 1, 0, (hide){0, 0});
    check_case("causal", 8, 300, 300, 1, 0, (hide){0, 0});
    /* Left padding: a mask hides keys 0 .. 2 (a boolean key-padding mask,
     * an additive one with values on the seen keys, with causal). */
    check_case("pad 3", 8, 40, 40, 0, 0, (hide){3, 0});
    check_case("pad 3 additive", 8, 40, 40, 0, 0, (hide){3, 1});
    check_case("pad 3 causal", 8, 300, 300, 1, 0, (hide){3, 0});
    /* Windows: row i's first key is i - W + 1 (i >= W - 1), also past the
     * first key block of 4096 keys, causal and not. */
    check_case("window causal", 3, 4200, 4200, 1, 10, (hide){0, 0});
    check_case("window", 3, 4200, 4200, 0, 10, (hide){0, 0});
    check_case("window pad", 8, 60, 60, 1, 7, (hide){3, 1});
    /* A mask hiding the whole first key block and 2 keys of the next: the
     * first seen key, 4098, in the second block. */
    check_case("pad 4098", 3, 600, 4146, 0, 0, (hide){4098, 0});
    return CHECK_DONE();
}
