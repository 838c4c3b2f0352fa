/* The partners the column table states (sv_column_partner) and each
 * column's reduce rule: every sd partner is named name_sd and every
 * name_sd column is one; raw_* and scaled_* twins map both ways; the
 * inverse of SD is SD_OF; every column has a reduce rule; bad arguments
 * give NULL. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/columns.h"

/* The column of @p kind named @p name, or NULL. */
static const sv_column *named(sv_output_kind kind, const char *name)
{
    for (size_t i = 0; i < sv_columns_count(kind); i++)
        if (strcmp(sv_columns_get(kind, i)->name, name) == 0)
            return sv_columns_get(kind, i);
    return NULL;
}

/* Column @p c's sd partner is the column named name_sd of its kind, both
 * ways, and the inverse (SD_OF) holds. */
static void check_sd(sv_output_kind k, const sv_column *c)
{
    char want[96];
    snprintf(want, sizeof want, "%s_sd", c->name);
    const sv_column *sd = sv_column_partner(k, c, SV_PARTNER_SD);
    if (!CHECK_EQ(sd, named(k, want)))
        fprintf(stderr, "  %s %s: sd partner\n", sv_output_kind_name(k), c->name);
    if (sd) {
        CHECK_STR_EQ(sd->name, want);
        CHECK_EQ(sv_column_partner(k, sd, SV_PARTNER_SD_OF), c);
        CHECK(sd->flags & SV_COLUMN_SPREAD);
    }
    const sv_column *of = sv_column_partner(k, c, SV_PARTNER_SD_OF);
    if (of)
        CHECK_EQ(sv_column_partner(k, of, SV_PARTNER_SD), c);
    if ((c->flags & SV_COLUMN_SPREAD) && !CHECK(of != NULL)) /* a spread is of a column */
        fprintf(stderr, "  %s %s: a spread of no column\n", sv_output_kind_name(k), c->name);
}

/* raw_X <-> scaled_X where the kind has both; no other twin. */
static void check_twin(sv_output_kind k, const sv_column *c)
{
    char want[96] = "";
    if (strncmp(c->name, "raw_", 4) == 0)
        snprintf(want, sizeof want, "scaled_%s", c->name + 4);
    else if (strncmp(c->name, "scaled_", 7) == 0)
        snprintf(want, sizeof want, "raw_%s", c->name + 7);
    const sv_column *twin = sv_column_partner(k, c, SV_PARTNER_TWIN);
    if (!CHECK_EQ(twin, want[0] ? named(k, want) : NULL))
        fprintf(stderr, "  %s %s: twin\n", sv_output_kind_name(k), c->name);
    if (twin)
        CHECK_EQ(sv_column_partner(k, twin, SV_PARTNER_TWIN), c);
}

static void test_every_column(void)
{
    for (int k = 0; k < SV_OUTPUT_KINDS; k++)
        for (size_t i = 0; i < sv_columns_count((sv_output_kind)k); i++) {
            const sv_column *c = sv_columns_get((sv_output_kind)k, i);
            check_sd((sv_output_kind)k, c);
            check_twin((sv_output_kind)k, c);
            if (!CHECK(sv_column_reduce_name(c->reduce) != NULL))
                fprintf(stderr, "  %s: no reduce rule\n", c->name);
            if (c->flags & SV_COLUMN_CONFIG)
                CHECK_EQ(c->reduce, SV_REDUCE_FIRST);
            if (c->flags & SV_COLUMN_SPREAD)
                CHECK_EQ(c->reduce, SV_REDUCE_NONE);
            const sv_column *th = sv_column_partner((sv_output_kind)k, c, SV_PARTNER_THEORY);
            if (th)
                CHECK_NE(th, c);
        }
}

/* Where a column's partner is not a column of the kind, there is none. */
static void test_kinds(void)
{
    const sv_column *var = named(SV_OUTPUT_SUMMARY, "raw_var");
    CHECK_EQ(sv_column_partner(SV_OUTPUT_SUMMARY, var, SV_PARTNER_THEORY),
             named(SV_OUTPUT_SUMMARY, "raw_var_expected"));
    const sv_column *sd = named(SV_OUTPUT_SUMMARY, "raw_var_sd");
    CHECK_EQ(sv_column_partner(SV_OUTPUT_SUMMARY, sd, SV_PARTNER_THEORY),
             named(SV_OUTPUT_SUMMARY, "raw_var_sd_theory"));
    CHECK_EQ(sv_column_partner(SV_OUTPUT_SUMMARY, named(SV_OUTPUT_SUMMARY, "scaled_var_sd"),
                               SV_PARTNER_THEORY),
             named(SV_OUTPUT_SUMMARY, "scaled_var_sd_theory"));
    CHECK_EQ(sv_column_partner(SV_OUTPUT_SUMMARY, named(SV_OUTPUT_SUMMARY, "raw_mean_sd"),
                               SV_PARTNER_THEORY),
             NULL);
    const sv_column *trial_var = named(SV_OUTPUT_PER_TRIAL, "raw_var");
    CHECK_EQ(trial_var, var); /* one descriptor, several kinds */
    CHECK_EQ(sv_column_partner(SV_OUTPUT_PER_TRIAL, var, SV_PARTNER_SD), NULL);
    CHECK_EQ(sv_column_partner(SV_OUTPUT_PER_HEAD, sd, SV_PARTNER_SD_OF), NULL); /* not per head */
    /* The per-row entropies are columns of their own, named as the summary's. */
    const sv_column *row_h = named(SV_OUTPUT_PER_ROW, "raw_entropy");
    CHECK_NE(row_h, named(SV_OUTPUT_SUMMARY, "raw_entropy"));
    CHECK_EQ(sv_column_partner(SV_OUTPUT_PER_ROW, row_h, SV_PARTNER_TWIN),
             named(SV_OUTPUT_PER_ROW, "scaled_entropy"));
    /* Bad arguments. */
    CHECK_EQ(sv_column_partner(SV_OUTPUT_SUMMARY, NULL, SV_PARTNER_SD), NULL);
    CHECK_EQ(sv_column_partner((sv_output_kind)SV_OUTPUT_KINDS, var, SV_PARTNER_SD), NULL);
    CHECK_EQ(sv_column_partner(SV_OUTPUT_SUMMARY, var, (sv_column_partner_kind)SV_COLUMN_PARTNERS),
             NULL);
    const sv_column copy = *var; /* not the table's descriptor */
    CHECK_EQ(sv_column_partner(SV_OUTPUT_SUMMARY, &copy, SV_PARTNER_SD), NULL);
}

/* The rules the Python monitor used to guess from names, now the table's. */
static void test_reduce(void)
{
    static const struct {
        const char *name;
        sv_column_reduce reduce;
    } cases[] = {
        {"raw_entropy", SV_REDUCE_MEAN},
        {"raw_var", SV_REDUCE_MEAN},
        {"raw_max_logit", SV_REDUCE_MAX},
        {"scaled_max_abs_logit", SV_REDUCE_MAX},
        {"raw_entropy_max", SV_REDUCE_MAX},
        {"scaled_entropy_min", SV_REDUCE_MIN},
        {"raw_fp16_headroom", SV_REDUCE_MIN},
        {"rows_empty", SV_REDUCE_SUM},
        {"var_scale", SV_REDUCE_POOLED},
        {"kv_head", SV_REDUCE_FIRST},
        {"dk", SV_REDUCE_FIRST},
        {"scale_factor", SV_REDUCE_FIRST},
        {"raw_mean_theory", SV_REDUCE_MEAN},
        {"window", SV_REDUCE_FIRST},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const sv_column *c = named(SV_OUTPUT_PER_HEAD, cases[i].name);
        if (CHECK(c != NULL) && !CHECK_EQ(c->reduce, cases[i].reduce))
            fprintf(stderr, "  %s\n", cases[i].name);
    }
    CHECK_EQ(named(SV_OUTPUT_SUMMARY, "raw_var_q05")->reduce, SV_REDUCE_NONE);
    CHECK_EQ(named(SV_OUTPUT_HISTOGRAM, "raw_count")->reduce, SV_REDUCE_SUM);
    CHECK_STR_EQ(sv_column_reduce_name(SV_REDUCE_MEAN), "mean");
    CHECK_STR_EQ(sv_column_reduce_name(SV_REDUCE_POOLED), "pooled");
    CHECK_STR_EQ(sv_column_reduce_name((sv_column_reduce)0), NULL);
    CHECK_STR_EQ(sv_column_reduce_name((sv_column_reduce)SV_COLUMN_REDUCES), NULL);
}

int main(void)
{
    test_every_column();
    test_kinds();
    test_reduce();
    return CHECK_DONE();
}
