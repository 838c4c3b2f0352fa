/* The one-configuration table (src/cli/write/write_table_one.c): its rows
 * and their columns. Its rounding (issue 15 section 4) is the library's,
 * sv_value_rounded: test_columns.c. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "layout.h"
#include "write_table_one.h"

/* The one-configuration table shows every block of rows (its columns are
 * named by id, SV_COL_*: a misspelt one does not compile). The spec turns on every optional block
 * of rows (values need not make sense: only the names are looked up). */
static void table_names_exist(void)
{
    cli_table_entry e;
    memset(&e, 0, sizeof e);
    e.spec = (sv_spec){.d_k = 4,
                       .n_q = 4,
                       .n_k = 4,
                       .trials = 2,
                       .plant = 1.0,
                       .d_model = 8,
                       .qk_norm = 1,
                       .values = 1,
                       .grad = 1};
    (void)sv_spec_resolve(&e.spec); /* this mix is no valid run; the scale is set */
    snprintf(e.scale_name, sizeof e.scale_name, "sqrt");
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    cli_table_one(f, &e);
    char text[8192] = "";
    rewind(f);
    const size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    static const char *const blocks[] = {"diagonal logit", "Var of an entry of Q", "output var.",
                                         "RMS |dL/dlogits|", "max |logit|"};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (!strstr(text, blocks[i])) {
            CHECK(!"every block of rows shown");
            fprintf(stderr, "table without '%s'\n", blocks[i]);
        }
    CHECK(isnan(cli_table_value(&e, NULL, 0))); /* a partner the column lacks */
    CHECK(isnan(cli_table_col(&e, NO_COL, 0))); /* an empty cell */
    CHECK(isnan(cli_table_std_error(&e, NO_COL, 0)));
    const sv_column *var = sv_column_of(SV_COL_raw_var);
    CHECK(sv_column_partner(SV_OUTPUT_SUMMARY, var, SV_PARTNER_SD) ==
          sv_column_of(SV_COL_raw_var_sd));
    CHECK(sv_column_partner(SV_OUTPUT_SUMMARY, sv_column_of(SV_COL_raw_var_q05), SV_PARTNER_SD) ==
          NULL);
}

/* The rows both one-configuration tables share (cli_stat_rows): each is
 * shown somewhere; an option's rows show with that option on and not on a
 * plain run (a wrong gate would hide them or show NANs); the score SD is
 * the square root of the score variance, its standard error that of a
 * square root (se / (2 sqrt(v))). */
static void stat_rows(void)
{
    sv_spec plain = {.d_k = 4, .n_q = 4, .n_k = 4, .trials = 2};
    sv_spec all = {.d_k = 4, .n_q = 4, .n_k = 4, .trials = 2, .plant = 1.0, .d_model = 8};
    all.qk_norm = all.values = all.grad = 1;
    const cli_stat_row *var = NULL, *sd = NULL;
    for (size_t i = 0; i < cli_stat_rows_n; i++) {
        const cli_stat_row *r = &cli_stat_rows[i];
        CHECK(r->label || r->slide);
        if (r->flags & CLI_STAT_OPTION) {
            CHECK(sv_column_required(sv_column_of(r->gate), &all, 0));
            CHECK(!sv_column_required(sv_column_of(r->gate), &plain, 0));
        }
        if (r->slide && strcmp(r->slide, "score variance") == 0)
            var = r;
        if (r->flags & CLI_STAT_SQRT)
            sd = r;
    }
    CHECK(var && sd);
    if (!var || !sd)
        return;
    cli_table_entry e;
    memset(&e, 0, sizeof e);
    e.spec = plain;
    (void)sv_spec_resolve(&e.spec);
    e.summary.mean.raw_var = 64.0;
    e.summary.raw.sd = 4.0; /* se = 4 / sqrt(2) */
    const cli_stat_side v = cli_stat_values(&e, var, 0, 0), s = cli_stat_values(&e, sd, 0, 0);
    CHECK(v.v == 64.0 && s.v == 8.0);
    CHECK(fabs(v.se - 4.0 / sqrt(2.0)) < 1e-12 && fabs(s.se - v.se / 16.0) < 1e-12);
}

int main(void)
{
    table_names_exist();
    stat_rows();
    return CHECK_DONE();
}
