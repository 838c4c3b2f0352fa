/* sv_taps.skip (engine.h) and sv_column_reads (columns.h). A skipped
 * group's fields come out NAN and every other field keeps its bits, on the
 * grouped path of tiny trials and on the tile path; and a column's value
 * changes when a group's fields are NAN exactly when sv_column_reads names
 * that group, for every column of every output (the CLI skips what no
 * column it writes reads, so an undeclared read would print nan). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

#define NT 3     /* trials per run */
#define NBITS 6u /* SV_SKIP_ALL = 2^NBITS - 1 */
#define SKIP_BIT(b) (1u << (b))

/* Field i of a trial's statistics (every field is a double, in order). */
static double *field(sv_trial_stats *t, size_t i)
{
    return (double *)t + i;
}

static sv_status run(const sv_spec *c, unsigned skip, sv_trial_stats *out)
{
    sv_source src;
    const sv_exec exec = {.threads = 1};
    const sv_taps taps = {.skip = skip};
    sv_status st = sv_source_draw(c, &src);
    return st == SV_OK ? sv_engine_run(c, &src, &exec, &taps, 0, NT, out) : st;
}

static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* The fields each bit leaves NAN in runs of @p c, into nan_fields[b] (bit
 * i: field i), checked against what an earlier spec found (record 0). */
static void test_engine(sv_spec c, uint64_t nan_fields[NBITS], int record)
{
    CHECK_STATUS(sv_spec_resolve(&c), SV_OK);
    CHECK_EQ(SV_SKIP_ALL, (1u << NBITS) - 1u);
    sv_trial_stats all[NT], part[NT];
    CHECK_STATUS(run(&c, 0, all), SV_OK);
    for (unsigned b = 0; b < NBITS; b++) {
        CHECK_STATUS(run(&c, SKIP_BIT(b), part), SV_OK);
        uint64_t mask = 0;
        for (size_t t = 0; t < NT; t++)
            for (size_t i = 0; i < SV_TRIAL_FIELDS; i++) {
                const double x = *field(&all[t], i), y = *field(&part[t], i);
                if (same(x, y))
                    continue;
                if (!CHECK(isnan(y) && !isnan(x)))
                    fprintf(stderr, "  skip bit %u changed %s: %.17g -> %.17g\n", b,
                            sv_trial_field_name(i), x, y);
                mask |= (uint64_t)1 << i;
            }
        CHECK_NE(mask, 0); /* the bit leaves something out */
        if (record)
            nan_fields[b] = mask;
        else
            CHECK_EQ(mask, nan_fields[b]);
    }
    CHECK_STATUS(run(&c, SV_SKIP_ALL + 1u, part), SV_EINVAL);
}

/* A summary of trials run with a group skipped: the group's fields read
 * NAN in its mean as in the trials (an extreme that no trial gave is no
 * +-inf), and every other field keeps its bits. */
static void test_summary(const uint64_t nan_fields[NBITS])
{
    sv_spec c = {.d_k = 2, .n_q = 2, .n_k = 2, .trials = NT, .seed = 7, .values = 1, .d_v = 2};
    CHECK_STATUS(sv_spec_resolve(&c), SV_OK);
    sv_trial_stats all[NT], part[NT];
    sv_summary whole, s;
    CHECK_STATUS(run(&c, 0, all), SV_OK);
    CHECK_STATUS(sv_summary_compute(&c, all, NAN, &whole), SV_OK);
    for (unsigned b = 0; b < NBITS; b++) {
        CHECK_STATUS(run(&c, SKIP_BIT(b), part), SV_OK);
        CHECK_STATUS(sv_summary_compute(&c, part, NAN, &s), SV_OK);
        for (size_t i = 0; i < SV_TRIAL_FIELDS; i++) {
            const double x = *field(&whole.mean, i), y = *field(&s.mean, i);
            const int ok = nan_fields[b] >> i & 1u ? isnan(y) : same(x, y);
            if (!CHECK(ok))
                fprintf(stderr, "  skip bit %u: summary %s %.17g -> %.17g\n", b,
                        sv_trial_field_name(i), x, y);
        }
    }
}

/* Every REAL column of every output, read from statistics whose fields of
 * one group are NAN and from the same statistics whole. */
static void test_columns(const uint64_t nan_fields[NBITS])
{
    sv_spec c = {.d_k = 4, .n_q = 3, .n_k = 3, .trials = 2, .values = 1, .d_v = 2};
    CHECK_STATUS(sv_spec_resolve(&c), SV_OK);
    sv_summary s;
    memset(&s, 0, sizeof s);
    CHECK_STATUS(sv_theory_spec(&c, &s.raw_theory), SV_OK);
    for (size_t i = 0; i < SV_TRIAL_FIELDS; i++) /* numbers in (0, 1): all defined */
        *field(&s.mean, i) = *field(&s.sd, i) = (double)(i + 1) / (SV_TRIAL_FIELDS + 2);
    const double sums[SV_ROW_FIELDS] = {1.0, 1.0, 1.0, 1.0};
    const double z[2] = {0.0, 1.0}, p[2] = {0.25, 0.75}; /* a --logits row: reads no stats */
    const sv_logits_view lv = {.n = 2, .scale_name = "none", .scale = 1.0, .z = z, .p = p};
    unsigned seen = 0;
    for (int kind = 0; kind < SV_OUTPUT_KINDS; kind++)
        for (size_t k = 0; k < sv_columns_count((sv_output_kind)kind); k++) {
            const sv_column *col = sv_columns_get((sv_output_kind)kind, k);
            if (col->type != SV_VALUE_REAL)
                continue;
            sv_row_view v = {
                .spec = &c, .stats = &s.mean, .summary = &s, .row_sums = sums, .logits = &lv};
            const double whole = col->get(&v).real;
            for (unsigned b = 0; b < NBITS; b++) {
                sv_summary g = s;
                for (size_t i = 0; i < SV_TRIAL_FIELDS; i++)
                    if (nan_fields[b] >> i & 1u)
                        *field(&g.mean, i) = *field(&g.sd, i) = NAN;
                v.stats = &g.mean;
                v.summary = &g;
                const int changed = !same(col->get(&v).real, whole);
                const int declared = (sv_column_reads(col) & SKIP_BIT(b)) != 0;
                if (!CHECK_EQ(changed, declared))
                    fprintf(stderr, "  %s column %s, skip bit %u\n",
                            sv_output_kind_name((sv_output_kind)kind), col->name, b);
                seen |= changed ? SKIP_BIT(b) : 0u;
            }
        }
    CHECK_EQ(seen, SV_SKIP_ALL); /* every group is read by some column */
    CHECK_EQ(sv_column_reads(NULL), 0u);
}

/* The fields each bit leaves NAN are those SV_TRIAL_STATS_MAP gives that
 * group (its skip column, the one place a field's group is written; the
 * engine's NaN check and sv_column_reads read it there). */
static void test_map(const uint64_t nan_fields[NBITS])
{
    uint64_t declared[NBITS] = {0};
    size_t i = 0;
#define DECLARED_(name, reduce, number, skip)                                                      \
    for (unsigned b = 0; b < NBITS; b++)                                                           \
        declared[b] |= (uint64_t)((SV_SKIP_##skip >> b) & 1u) << i;                                \
    i++;
    SV_TRIAL_STATS_MAP(DECLARED_)
#undef DECLARED_
    for (unsigned b = 0; b < NBITS; b++)
        CHECK_EQ(nan_fields[b], declared[b]); /* bit i: field i */
}

int main(void)
{
    uint64_t nan_fields[NBITS] = {0};
    /* Tiny trials (the grouped path), then 300 x 300 (the tile path,
     * Neumaier sums over rows), both with values (the sum of p^2). */
    test_engine(
        (sv_spec){.d_k = 2, .n_q = 2, .n_k = 2, .trials = NT, .seed = 7, .values = 1, .d_v = 2},
        nan_fields, 1);
    test_engine(
        (sv_spec){.d_k = 8, .n_q = 300, .n_k = 300, .trials = NT, .seed = 7, .values = 1, .d_v = 3},
        nan_fields, 0);
    test_map(nan_fields);
    test_summary(nan_fields);
    test_columns(nan_fields);
    return CHECK_DONE();
}
