/* The column table: names unique per kind, every column documented, the
 * summary's first columns where scripts read them, and the verdict on
 * undefined values (sv_columns_first_undefined). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/columns.h"

static void test_table(void)
{
    for (int k = 0; k < SV_OUTPUT_KINDS; k++) {
        const size_t n = sv_columns_count((sv_output_kind)k);
        CHECK_GT(n, 0);
        CHECK_NE(sv_output_kind_name((sv_output_kind)k), NULL);
        for (size_t i = 0; i < n; i++) {
            const sv_column *c = sv_columns_get((sv_output_kind)k, i);
            CHECK(c && c->name && c->name[0] && c->doc && c->doc[0] && c->unit && c->get);
            CHECK_EQ(strspn(c->name, "abcdefghijklmnopqrstuvwxyz0123456789_"), strlen(c->name));
            for (size_t j = 0; j < i; j++)
                CHECK_NE(strcmp(c->name, sv_columns_get((sv_output_kind)k, j)->name), 0);
        }
        CHECK_EQ(sv_columns_get((sv_output_kind)k, n), NULL);
    }
    CHECK_EQ(sv_columns_count((sv_output_kind)SV_OUTPUT_KINDS), 0);
    CHECK_EQ(sv_columns_get((sv_output_kind)SV_OUTPUT_KINDS, 0), NULL);
    /* Scripts read the first 31 summary columns by position (README). */
    static const char *const first[] = {"dk",
                                        "n_q",
                                        "n_k",
                                        "trials",
                                        "seed",
                                        "dist",
                                        "ddof",
                                        "raw_mean",
                                        "raw_var",
                                        "raw_var_theory",
                                        "raw_var_expected",
                                        "raw_var_sd",
                                        "raw_var_sd_theory",
                                        "raw_var_q05",
                                        "raw_var_q50",
                                        "raw_var_q95",
                                        "scaled_mean",
                                        "scaled_var",
                                        "scaled_var_theory",
                                        "scaled_var_expected",
                                        "scaled_var_sd",
                                        "scaled_var_sd_theory",
                                        "scaled_var_q05",
                                        "scaled_var_q50",
                                        "scaled_var_q95",
                                        "raw_entropy",
                                        "scaled_entropy",
                                        "raw_max_weight",
                                        "scaled_max_weight",
                                        "raw_jac_trace",
                                        "scaled_jac_trace"};
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
        CHECK_STR_EQ(sv_columns_get(SV_OUTPUT_SUMMARY, i)->name, first[i]);
}

/* A nan is a failure where the column must be defined, an answer where
 * it need not be. */
static void test_undefined(void)
{
    sv_spec cfg = {.d_k = 4, .n_q = 1, .n_k = 1, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&cfg), SV_OK);
    sv_trial_stats t;
    memset(&t, 0, sizeof t);
    t.raw_var_ddof1 = NAN; /* N = 1: no ddof-1 variance */
    t.raw_diag_logit = t.raw_diag_weight = t.scaled_diag_weight = NAN;
    t.q_var = t.k_var = t.raw_out_var = t.scaled_out_var = NAN;
    sv_row_view v = {.spec = &cfg, .stats = &t};
    CHECK_EQ(sv_columns_first_undefined(SV_OUTPUT_PER_TRIAL, &v, 0), NULL);
    cfg.n_q = cfg.n_k = 2; /* now N = 4: raw_var_ddof1 must be a number */
    const sv_column *c = sv_columns_first_undefined(SV_OUTPUT_PER_TRIAL, &v, 0);
    if (CHECK(c)) {
        CHECK_STR_EQ(c->name, "raw_var_ddof1");
        CHECK_EQ(sv_column_reads(c), SV_SKIP_VARIANCE); /* left NAN by that skip */
        CHECK(sv_columns_first_undefined_skip(SV_OUTPUT_PER_TRIAL, &v, 0, 0, SV_SKIP_VARIANCE, 0) !=
              c);
    }
    t.raw_var_ddof1 = 1.0;
    cfg.values = 1;
    CHECK_STATUS(sv_spec_resolve(&cfg), SV_OK); /* d_v */
    c = sv_columns_first_undefined(SV_OUTPUT_PER_TRIAL, &v, 0);
    if (CHECK(c)) {
        CHECK_STR_EQ(c->name, "raw_out_var");
    }
    cfg.values = 0;
    t.raw_entropy = NAN;
    c = sv_columns_first_undefined(SV_OUTPUT_PER_TRIAL, &v, 0);
    if (CHECK(c)) {
        CHECK_STR_EQ(c->name, "raw_entropy");
        /* What a run left NAN on purpose is not looked at: the column's
         * group, a statistic it reads skipped by the taps. */
        CHECK_EQ(sv_columns_first_undefined_skip(SV_OUTPUT_PER_TRIAL, &v, 0, 0, 0, 0), c);
        CHECK(sv_columns_first_undefined_skip(SV_OUTPUT_PER_TRIAL, &v, 0,
                                              1u << SV_COLUMN_GROUP(c->flags), 0, 1) != c);
        CHECK_EQ(sv_columns_first_undefined_skip(SV_OUTPUT_PER_TRIAL, NULL, 0, 0, 0, 0), NULL);
        /* The per-column verdict the search makes; NULLs are no verdict. */
        CHECK_EQ(sv_column_undefined(c, &v, 0), 1);
        CHECK_EQ(sv_column_undefined(c, NULL, 0), 0);
    }
    CHECK_EQ(sv_column_undefined(NULL, &v, 0), 0);
    /* Summary: a theory column may be nan where the theory has no value,
     * not where it has one (SV_NEED_THEORY); the spread needs two trials. */
    t.raw_entropy = 0.0;
    sv_summary s;
    memset(&s, 0, sizeof s);
    s.mean = t;
    CHECK_STATUS(sv_theory_spec(&cfg, &s.raw_theory), SV_OK);
    s.scaled_theory = s.raw_theory;
    CHECK_STATUS(sv_theory_scale(&cfg, &s.scaled_theory), SV_OK);
    s.raw.sd = s.scaled.sd = NAN;
    s.observed = s.raw_var_cdf_observed = s.qk_radius = NAN;
    sv_row_view w = {.spec = &cfg, .stats = &s.mean, .summary = &s};
    c = sv_columns_first_undefined(SV_OUTPUT_SUMMARY, &w, 0);
    CHECK_EQ(c, NULL);
    s.scaled_theory.var_sd = NAN;
    c = sv_columns_first_undefined(SV_OUTPUT_SUMMARY, &w, 0);
    if (CHECK(c)) {
        CHECK_STR_EQ(c->name, "scaled_var_sd_theory");
    }
    s.scaled_theory.var_sd = s.raw_theory.var_sd;
    cfg.trials = 2;
    c = sv_columns_first_undefined(SV_OUTPUT_SUMMARY, &w, 0);
    if (CHECK(c)) {
        CHECK_STR_EQ(c->name, "raw_var_sd");
    }
    cfg.trials = 1;
    c = sv_columns_first_undefined(SV_OUTPUT_SUMMARY, &w, 1);
    if (CHECK(c)) {
        CHECK_STR_EQ(c->name, "observed");
    }
    cfg.qk_norm = 1;
    CHECK_STATUS(sv_spec_resolve(&cfg), SV_OK); /* qk_radius */
    c = sv_columns_first_undefined(SV_OUTPUT_SUMMARY, &w, 0);
    if (CHECK(c)) {
        CHECK_STR_EQ(c->name, "qk_norm_radius");
    }
}

/* Getters: configuration words and per-row means. */
static void test_getters(void)
{
    sv_spec cfg = {.d_k = 9, .n_q = 3, .n_k = 3, .trials = 4, .causal = 1};
    CHECK_STATUS(sv_spec_resolve(&cfg), SV_OK);
    const double sums[SV_ROW_FIELDS] = {2.0, 4.0, 1.0, 3.0};
    sv_row_view v = {.spec = &cfg, .row = 1, .row_sums = sums};
    const sv_column *c = sv_columns_get(SV_OUTPUT_PER_ROW, 1);
    CHECK_STR_EQ(c->name, "scale");
    CHECK_STR_EQ(c->get(&v).text, "sqrt");
    for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_PER_ROW); i++) {
        c = sv_columns_get(SV_OUTPUT_PER_ROW, i);
        if (strcmp(c->name, "keys_seen") == 0)
            CHECK_EQ(c->get(&v).count, 2); /* causal: row 1 sees keys 0, 1 */
        if (strcmp(c->name, "scaled_entropy") == 0)
            CHECK_CLOSE(c->get(&v).real, 1.0, 0.0, 0.0);
        if (strcmp(c->name, "entropy_bound") == 0)
            CHECK_CLOSE(c->get(&v).real, log(2.0), 1e-15, 0.0);
    }
}

/* A theory column is printed only where its measured column is (issue 14):
 * q_var_theory beside q_var = nan was a number. */
static void test_theory_beside_measured(void)
{
    sv_spec cfg = {.d_k = 4, .n_q = 3, .n_k = 3, .trials = 2};
    CHECK_STATUS(sv_spec_resolve(&cfg), SV_OK);
    sv_summary s;
    memset(&s, 0, sizeof s);
    CHECK_STATUS(sv_theory_spec(&cfg, &s.raw_theory), SV_OK);
    CHECK_GT(s.raw_theory.q_var, 0.0); /* the library's value stays */
    s.mean.q_var = s.mean.k_var = NAN; /* not measured (drawn rows) */
    sv_row_view w = {.spec = &cfg, .stats = &s.mean, .summary = &s};
    int seen = 0;
    for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_SUMMARY); i++) {
        const sv_column *c = sv_columns_get(SV_OUTPUT_SUMMARY, i);
        if (strcmp(c->name, "q_var_theory") != 0 && strcmp(c->name, "k_var_theory") != 0)
            continue;
        seen++;
        CHECK_NAN(c->get(&w).real);
        s.mean.q_var = s.mean.k_var = 0.5; /* measured: the theory is printed */
        CHECK_CLOSE(c->get(&w).real, s.raw_theory.q_var, 0.0, 0.0);
        s.mean.q_var = s.mean.k_var = NAN;
    }
    CHECK_EQ(seen, 2);
}

/* Issue 34: the expected sample variance and its sd are in the default
 * summary exactly where the spec's theory gives them, raw and scaled apart. */
static void test_theory_default(void)
{
    static const char *const names[] = {"raw_var_expected", "raw_var_sd_theory",
                                        "scaled_var_expected", "scaled_var_sd_theory"};
    sv_spec puzzle = {.d_k = 2, .n_q = 2, .n_k = 2, .trials = 1};
    sv_spec plant = {.d_k = 8, .n_q = 16, .n_k = 16, .trials = 3, .plant = 0.5};
    sv_spec logn = {.d_k = 8, .n_q = 16, .n_k = 16, .trials = 3, .causal = 1, .scale_logn = 1};
    sv_spec shifted = {.d_k = 8, .n_q = 16, .n_k = 16, .trials = 3, .qk_norm = 1, .q_mean = 1};
    const struct {
        sv_spec *spec;
        int want[4];
    } cases[] = {{&puzzle, {1, 1, 1, 1}},
                 {&plant, {1, 0, 1, 0}},
                 {&logn, {1, 1, 1, 0}},
                 {&shifted, {0, 0, 0, 0}}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sv_spec *spec = cases[k].spec;
        CHECK_STATUS(sv_spec_resolve(spec), SV_OK);
        for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_SUMMARY); i++) {
            const sv_column *c = sv_columns_get(SV_OUTPUT_SUMMARY, i);
            for (size_t j = 0; j < 4; j++)
                if (strcmp(c->name, names[j]) == 0) {
                    CHECK_EQ(c->need, SV_NEED_THEORY);
                    CHECK_EQ(sv_column_default(c, spec, 0, 0), cases[k].want[j]);
                    CHECK_EQ(sv_column_default(c, spec, 0, 1), 0); /* not the arrays' */
                }
        }
    }
}

/* The public ids name the table's descriptors, both ways; and the
 * --logits rows (SV_OUTPUT_LOGITS) compute their values in the library:
 * ln n and the norm of dL/d(c z), which the CLI wrote itself before. */
static void test_ids_and_logits(void)
{
    CHECK_EQ(sv_column_id_of(sv_column_of(SV_COL_raw_var)), SV_COL_raw_var);
    CHECK(strcmp(sv_column_of(SV_COL_scaled_entropy)->name, "scaled_entropy") == 0);
    CHECK(strcmp(sv_column_of(SV_COL_logits_entropy_bound)->name, "entropy_bound") == 0);
    CHECK_EQ(sv_column_of(SV_COLUMN_IDS), NULL);
    CHECK_EQ(sv_column_id_of(NULL), SV_COLUMN_IDS);
    for (size_t k = 0; k < SV_OUTPUT_KINDS; k++)
        for (size_t i = 0; i < sv_columns_count((sv_output_kind)k); i++) {
            const sv_column *c = sv_columns_get((sv_output_kind)k, i);
            CHECK_EQ(sv_column_of(sv_column_id_of(c)), c);
        }
    CHECK(strcmp(sv_output_kind_name(SV_OUTPUT_LOGITS), "logits") == 0);
    /* Known answers: z = (0, ln 3) at c = 1 gives p = (1/4, 3/4); with
     * g = (1, 0), p.g = 1/4 and dz = p (g - p.g) = (3/16, -3/16), whose
     * norm is 3 sqrt(2) / 16. Entries of 1e300 (the CLI's bound) square to
     * inf: the norm is scaled, 1e300 sqrt(2), not inf. */
    const double z[2] = {0.0, log(3.0)}, g[2] = {1.0, 0.0};
    double p[2], dz[2];
    sv_logits_view lv = {
        .n = 2, .key = 1, .scale_name = "none", .scale = 1.0, .z = z, .p = p, .g = g, .dz = dz};
    CHECK_STATUS(sv_softmax_row_report(z, 2, 1.0, g, p, NULL, dz, &lv.st), SV_OK);
    const sv_row_view v = {.logits = &lv};
    CHECK_CLOSE(sv_column_of(SV_COL_weight)->get(&v).real, 0.75, 1e-15, 0);
    CHECK_CLOSE(sv_column_of(SV_COL_logits_entropy_bound)->get(&v).real, log(2.0), 1e-15, 0);
    CHECK_CLOSE(sv_column_of(SV_COL_grad_logits)->get(&v).real, 3.0 * sqrt(2.0) / 16.0, 1e-15, 0);
    CHECK_CLOSE(sv_column_of(SV_COL_grad_logit)->get(&v).real, -3.0 / 16.0, 1e-15, 0);
    const double big[2] = {1e300, -1e300};
    lv.dz = big;
    CHECK_CLOSE(sv_column_of(SV_COL_grad_logits)->get(&v).real, 1e300 * sqrt(2.0), 1e-15, 0);
    lv.g = lv.dz = NULL; /* no --upstream: nan, never a read of NULL */
    CHECK(isnan(sv_column_of(SV_COL_grad_logits)->get(&v).real));
    CHECK(isnan(sv_column_of(SV_COL_upstream)->get(&v).real));
}

/* sv_column_std_error: sd / sqrt(trials); with the sd NAN (one trial),
 * the theory of the sd over sqrt(trials); raw_var's variants take
 * raw_var's theory; nothing known: NAN. */
static void test_std_error(void)
{
    sv_spec cfg = {.d_k = 4, .n_q = 3, .n_k = 3, .trials = 4};
    CHECK_STATUS(sv_spec_resolve(&cfg), SV_OK);
    sv_summary s;
    memset(&s, 0, sizeof s);
    s.raw.sd = 2.0;
    s.raw_theory.var_sd = 6.0;
    s.sd.raw_entropy = 0.5;
    const sv_row_view v = {.spec = &cfg, .stats = &s.mean, .summary = &s};
    CHECK_CLOSE(sv_column_std_error(sv_column_of(SV_COL_raw_var), &v), 1.0, 1e-15, 0);
    CHECK_CLOSE(sv_column_std_error(sv_column_of(SV_COL_raw_entropy), &v), 0.25, 1e-15, 0);
    s.raw.sd = NAN; /* one trial's spread: the theory's, 6 / sqrt(4) */
    CHECK_CLOSE(sv_column_std_error(sv_column_of(SV_COL_raw_var), &v), 3.0, 1e-15, 0);
    CHECK_CLOSE(sv_column_std_error(sv_column_of(SV_COL_raw_var_q05), &v), 3.0, 1e-15, 0);
    s.sd.raw_entropy = NAN; /* no theory of the entropy's spread */
    CHECK(isnan(sv_column_std_error(sv_column_of(SV_COL_raw_entropy), &v)));
    CHECK(isnan(sv_column_std_error(sv_column_of(SV_COL_dist), &v))); /* a word */
    CHECK(isnan(sv_column_std_error(NULL, &v)));
    CHECK(isnan(sv_column_std_error(sv_column_of(SV_COL_raw_var), NULL)));
}

/* An sv_text_fn into a fixed buffer. */
typedef struct text_buf {
    char s[512];
    size_t len;
} text_buf;

static void put_buf(void *ctx, const char *s, size_t n)
{
    text_buf *t = ctx;
    CHECK(t->len + n < sizeof t->s);
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

/* sv_value_csv, sv_value_json and sv_row_json: --format csv's and json's
 * bytes (the golden files check whole rows): %.17g, null for nan and inf
 * in JSON, counts as integers, strings escaped as each format requires. */
static void test_json(void)
{
    const sv_column real = {.type = SV_VALUE_REAL}, count = {.type = SV_VALUE_COUNT},
                    text = {.type = SV_VALUE_TEXT};
    text_buf t = {{0}, 0};
    CHECK_STATUS(sv_value_json(&real, (sv_value){.real = 0.1}, put_buf, &t), SV_OK);
    CHECK_STATUS(sv_value_json(&real, (sv_value){.real = NAN}, put_buf, &t), SV_OK);
    CHECK_STATUS(sv_value_json(&real, (sv_value){.real = -INFINITY}, put_buf, &t), SV_OK);
    CHECK_STATUS(sv_value_json(&count, (sv_value){.count = UINT64_MAX}, put_buf, &t), SV_OK);
    CHECK_STATUS(sv_value_json(&text, (sv_value){.text = "a\"b\\c\n\x01\xc3\xa9"}, put_buf, &t),
                 SV_OK);
    CHECK(strcmp(t.s, "0.10000000000000001nullnull18446744073709551615"
                      "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\"") == 0);
    CHECK_STATUS(sv_value_json(NULL, (sv_value){.real = 1}, put_buf, &t), SV_EINVAL);
    /* CSV: nan and inf spelled as numpy reads them; text quoted only when
     * it must be (RFC 4180) */
    t.len = 0;
    const sv_value csv[] = {{.real = 0.1}, {.real = NAN},    {.real = -INFINITY},
                            {.count = 7},  {.text = "sqrt"}, {.text = "a,\"b\""}};
    const sv_column *type[] = {&real, &real, &real, &count, &text, &text};
    for (size_t i = 0; i < 6; i++) {
        CHECK_STATUS(sv_value_csv(type[i], csv[i], put_buf, &t), SV_OK);
        put_buf(&t, "|", 1);
    }
    CHECK(strcmp(t.s, "0.10000000000000001|nan|-inf|7|sqrt|\"a,\"\"b\"\"\"|") == 0);
    CHECK_STATUS(sv_value_csv(&real, csv[0], NULL, &t), SV_EINVAL);

    const sv_spec spec = {.d_k = 4, .n_q = 1, .n_k = 1, .trials = 3};
    const sv_column *cols[2] = {sv_column_of(SV_COL_trials), sv_column_of(SV_COL_scale)};
    const sv_row_view row = {.spec = &spec, .scale_name = "sqrt"};
    t.len = 0;
    CHECK_STATUS(sv_row_json(cols, 2, &row, put_buf, &t), SV_OK);
    CHECK(strcmp(t.s, "{\"trials\":3,\"scale\":\"sqrt\"}") == 0);
    t.len = 0;
    CHECK_STATUS(sv_row_json(cols, 0, &row, put_buf, &t), SV_OK);
    CHECK(strcmp(t.s, "{}") == 0);
    cols[1] = NULL;
    CHECK_STATUS(sv_row_json(cols, 2, &row, put_buf, &t), SV_EINVAL);
    CHECK_STATUS(sv_row_json(cols, 1, NULL, put_buf, &t), SV_EINVAL);
}

/* sv_value_rounded: a measured value to the digits its standard error
 * supports, rounded at the SE's second significant digit (issue 15
 * section 4: the CLI's tables and slides). */
static int rounded_is(double v, double se, int width, const char *want)
{
    char buf[64];
    const size_t n = sv_value_rounded(buf, sizeof buf, v, se, width);
    if (strcmp(buf, want) != 0 || n != strlen(want))
        fprintf(stderr, "sv_value_rounded(%.17g, %.17g, %d) = '%s' (%zu), want '%s'\n", v, se,
                width, buf, n, want);
    return strcmp(buf, want) == 0 && n == strlen(want);
}

static void test_rounded(void)
{
    CHECK(rounded_is(64.36989, 0.4869941, 9, "64.37"));    /* the README's run */
    CHECK(rounded_is(1.00578, 0.0076093, 9, "1.0058"));    /* its scaled side */
    CHECK(rounded_is(0.0144729, 0.0063, 9, "0.0145"));     /* SE 0.0063: to 1e-4 */
    CHECK(rounded_is(12345.6, 230.0, 9, "12350"));         /* SE 230: to tens */
    CHECK(rounded_is(-3.14159, 0.05, 9, "-3.142"));        /* SE 0.050: to 1e-3 */
    CHECK(rounded_is(2.0, 0.099, 9, "2.000"));             /* zeros that count are kept */
    CHECK(rounded_is(0.38998, NAN, 9, "0.3900"));          /* no SE: 4 digits */
    CHECK(rounded_is(1577.18, NAN, 9, "1577"));            /* no trailing point */
    CHECK(rounded_is(1.0, 0.0, 9, "1.000"));               /* SE 0: no SE */
    CHECK(rounded_is(NAN, 0.1, 9, "-"));                   /* undefined */
    CHECK(rounded_is(1.23456e-5, 1e-9, 9, "1.23456e-05")); /* too wide: e-form, same digits */
    CHECK(rounded_is(0.00001, 0.5, 9, "0"));               /* zero to its SE */
    CHECK(rounded_is(INFINITY, 0.1, 9, "inf"));            /* no digits to round */
    /* An SE far below v's last digit: 17 significant digits, a double's
     * (it wrote 300 decimals). */
    CHECK(rounded_is(1.0, 1e-300, 40, "1.0000000000000000"));
    CHECK(rounded_is(-2.5e5, 1e-300, 40, "-250000.00000000000"));
    char small[4] = "xyz";
    CHECK_EQ(sv_value_rounded(small, 3, 64.36989, 0.4869941, 9), 2); /* cut as snprintf cuts */
    CHECK(strcmp(small, "64") == 0);
    CHECK_EQ(sv_value_rounded(NULL, 8, 1.0, 0.1, 9), 0);
    CHECK_EQ(sv_value_rounded(small, 0, 1.0, 0.1, 9), 0);
    CHECK(strcmp(small, "64") == 0); /* len 0: untouched */
}

int main(void)
{
    test_ids_and_logits();
    test_std_error();
    test_table();
    test_undefined();
    test_getters();
    test_theory_beside_measured();
    test_theory_default();
    test_json();
    test_rounded();
    /* the SDs across trials: spread columns but the core's */
    CHECK_EQ(sv_column_trial_sd(sv_column_of(SV_COL_raw_grad_logits_sd)), 1);
    CHECK_EQ(sv_column_trial_sd(sv_column_of(SV_COL_raw_var_sd)), 0);
    CHECK_EQ(sv_column_trial_sd(sv_column_of(SV_COL_raw_var)), 0);
    CHECK_EQ(sv_column_trial_sd(NULL), 0);
    /* which columns exist: --observed's, --grad's, the draws' */
    const sv_spec grad = {.d_k = 4, .n_q = 1, .n_k = 1, .trials = 1, .grad = 1};
    const sv_column *g = sv_column_of(SV_COL_raw_grad_logits_sd);
    CHECK_EQ(sv_column_exists(g, &grad, 0, 0), 1);
    CHECK_EQ(sv_column_exists(g, NULL, 1, 0), 0);
    CHECK_EQ(sv_column_exists(sv_column_of(SV_COL_raw_var), NULL, 0, 1), 1);
    CHECK_EQ(sv_column_exists(NULL, &grad, 1, 0), 0);
    for (size_t i = 0; i < sv_columns_count(SV_OUTPUT_SUMMARY); i++) {
        const sv_column *c = sv_columns_get(SV_OUTPUT_SUMMARY, i);
        CHECK_EQ(sv_column_exists(c, &grad, 0, 0), !(c->flags & SV_COLUMN_ONLY_OBSERVED));
        CHECK_EQ(sv_column_exists(c, &grad, 1, 1), !(c->flags & SV_COLUMN_ONLY_DRAWS));
    }
    /* names read from a list, not NUL-terminated: --columns's */
    size_t at = 99;
    const char *list = "raw_var,scaled_var";
    CHECK_EQ(sv_columns_find(SV_OUTPUT_SUMMARY, list, 7, &at), sv_column_of(SV_COL_raw_var));
    CHECK_EQ(sv_columns_get(SV_OUTPUT_SUMMARY, at), sv_column_of(SV_COL_raw_var));
    CHECK_EQ(sv_columns_find(SV_OUTPUT_SUMMARY, list, 6, &at), NULL); /* "raw_va" */
    CHECK_EQ(sv_columns_find(SV_OUTPUT_SUMMARY, list + 8, 10, NULL),
             sv_column_of(SV_COL_scaled_var));
    CHECK_EQ(sv_columns_find(SV_OUTPUT_SUMMARY, "", 0, &at), NULL);
    CHECK_EQ(sv_columns_find(SV_OUTPUT_SUMMARY, NULL, 3, &at), NULL);
    CHECK_EQ(sv_columns_find(SV_OUTPUT_KINDS, list, 7, &at), NULL);
    CHECK_EQ(sv_column_group_find("+grad,sd" + 1, 4), SV_GROUP_GRAD);
    CHECK_EQ(sv_column_group_find("sdx", 2), SV_GROUP_SD);
    CHECK_EQ(sv_column_group_find("gra", 3), -1);
    CHECK_EQ(sv_column_group_find(NULL, 0), -1);
    return CHECK_DONE();
}
