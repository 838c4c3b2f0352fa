/* The parameter table (param.h): every name looks itself up, every kind
 * reads its text as the CLI always did ("1e5" counts, plain decimals, the
 * scale names), the scale names resolve to the multipliers the CLI
 * computed, and every fault is named and worded once. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

static void names(void)
{
    int n = 0;
    for (sv_param p = 0; sv_param_name(p); p++, n++) {
        sv_param q = SV_PARAM_NONE;
        CHECK_STATUS(sv_param_lookup(sv_param_name(p), &q), SV_OK);
        CHECK_EQ(q, p);
        sv_param_kind kind;
        const char *def = NULL;
        CHECK_STATUS(sv_param_bounds(p, &kind, NULL, NULL, &def, NULL), SV_OK);
        /* a default is read by the parameter's own reader */
        sv_spec s = {0};
        if (def)
            CHECK_STATUS(sv_spec_set(&s, p, def), SV_OK);
        CHECK_EQ(sv_param_choices(p) != NULL, kind == SV_ARG_NAME || kind == SV_ARG_SCALE);
    }
    CHECK_EQ(n, SV_PARAM_COUNT);
    CHECK(sv_param_name(SV_PARAM_NONE) == NULL);
    sv_param q = SV_PARAM_D_K;
    CHECK_STATUS(sv_param_lookup("dk", &q), SV_EINVAL); /* the CLI's spelling is the CLI's */
    CHECK_EQ(q, SV_PARAM_D_K);
    CHECK_STATUS(sv_param_bounds(SV_PARAM_COUNT, NULL, NULL, NULL, NULL, NULL), SV_EINVAL);
}

/* The default spec is the CLI's `sdpa-var` with no option. */
static void defaults(void)
{
    sv_spec s;
    CHECK_STATUS(sv_spec_defaults(&s), SV_OK);
    CHECK_EQ(s.d_k, 64);
    CHECK_EQ(s.n_q, 1111);
    CHECK_EQ(s.n_k, 1111);
    CHECK_EQ(s.trials, 1);
    CHECK_EQ(s.seed, 42);
    CHECK_EQ(s.nu, 6.0);
    CHECK_EQ(s.dist, SV_DIST_NORMAL);
    CHECK_EQ(s.init, SV_INIT_XAVIER);
    CHECK_EQ(s.q_std, 1.0);
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    CHECK_EQ(s.scale, 1.0 / 8.0);
    CHECK_EQ(s.scale2, 1.0 / 64.0);
}

static void set_kinds(void)
{
    sv_spec s = {0};
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_N_Q, "1.2e3"), SV_OK);
    CHECK_EQ(s.n_q, 1200);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_N_Q, "1.5"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_N_Q, "0"), SV_ERANGE);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_D_K, "2147483648"), SV_ERANGE);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_SEED, "18446744073709551615"), SV_OK);
    CHECK_EQ(s.seed, UINT64_MAX);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_SEED, "18446744073709551616"), SV_ERANGE);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_PLANT, "1.5"), SV_ERANGE);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_PLANT, "-0.5"), SV_OK);
    CHECK_EQ(s.plant, -0.5);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_Q_MEAN, "1.2.3"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_Q_MEAN, "+1"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_Q_MEAN, "inf"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_Q_MEAN, "1e999"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_NU, "4"), SV_ERANGE);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_DIST, "t"), SV_OK);
    CHECK_EQ(s.dist, SV_DIST_STUDENT_T);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_INIT, "lecun"), SV_OK);
    CHECK_EQ(s.init, SV_INIT_LECUN);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_INIT, "he"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_CAUSAL, "yes"), SV_EINVAL);
    /* implied flags, as --qk-scale, --dv and --grad */
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_QK_SCALE, "3"), SV_OK);
    CHECK_EQ(s.qk_norm, 1);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_D_V, "5"), SV_OK);
    CHECK_EQ(s.values, 1);
    sv_spec g = {0};
    CHECK_STATUS(sv_spec_set(&g, SV_PARAM_GRAD, "1"), SV_OK);
    CHECK_EQ(g.values, 1);
    CHECK_STATUS(sv_spec_set(&g, SV_PARAM_GRAD, "0"), SV_OK);
    CHECK_EQ(g.grad, 0);
    /* untouched after an error */
    sv_spec before = s;
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_PLANT, "2"), SV_ERANGE);
    CHECK_MEM_EQ(&s, &before, sizeof s);
    CHECK_STATUS(sv_spec_set(NULL, SV_PARAM_PLANT, "0"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_COUNT, "0"), SV_EINVAL);
    CHECK_STATUS(sv_spec_set(&s, SV_PARAM_PLANT, NULL), SV_EINVAL);
}

/* A resolved spec made with a scale name, and the same with the
 * multiplier the CLI computed for it: the same bits, the same hash. */
static void scale_pair(size_t dk, size_t n, int causal, const char *name, double scale, int logn)
{
    sv_spec a, b;
    char text[32];
    sv_spec_defaults(&a);
    snprintf(text, sizeof text, "%zu", dk);
    sv_spec_set(&a, SV_PARAM_D_K, text);
    snprintf(text, sizeof text, "%zu", n);
    sv_spec_set(&a, SV_PARAM_N_Q, text);
    sv_spec_set(&a, SV_PARAM_N_K, text);
    sv_spec_set(&a, SV_PARAM_CAUSAL, causal ? "1" : "0");
    b = a;
    CHECK_STATUS(sv_spec_set(&a, SV_PARAM_SCALE, name), SV_OK);
    b.scale = scale;
    b.scale_logn = logn;
    CHECK_STATUS(sv_spec_resolve(&a), SV_OK);
    CHECK_STATUS(sv_spec_resolve(&b), SV_OK);
    CHECK_MEM_EQ(&a, &b, sizeof a);
    CHECK_EQ(sv_spec_hash(&a), sv_spec_hash(&b));
    CHECK_EQ(a.scale_rule, SV_SCALE_SQRT);
}

static void scales(void)
{
    scale_pair(64, 100, 0, "sqrt", 0.0, 0);
    scale_pair(64, 100, 0, "dk", 1.0 / 64.0, 0);
    scale_pair(48, 100, 0, "dk", 1.0 / 48.0, 0);
    scale_pair(64, 100, 0, "none", 1.0, 0);
    scale_pair(64, 100, 0, "0.3", 0.3, 0);
    scale_pair(48, 100, 0, "logn", log(100.0) / sqrt(48.0), 0);
    scale_pair(48, 100, 1, "logn", 0.0, 1);
    sv_scale_rule r;
    double v = -1;
    CHECK_STATUS(sv_scale_parse("0", &r, &v), SV_EINVAL);
    CHECK_STATUS(sv_scale_parse("-1", &r, &v), SV_EINVAL);
    CHECK_STATUS(sv_scale_parse("", &r, &v), SV_EINVAL);
    CHECK_STATUS(sv_scale_parse("2.5", &r, &v), SV_OK);
    CHECK_EQ(r, SV_SCALE_VALUE);
    CHECK_EQ(v, 2.5);
    /* logn with one key: ln 1 = 0, named */
    sv_spec s;
    sv_spec_defaults(&s);
    sv_spec_set(&s, SV_PARAM_N_K, "1");
    sv_spec_set(&s, SV_PARAM_SCALE, "logn");
    CHECK_STATUS(sv_spec_resolve(&s), SV_EINVAL);
    sv_param p = SV_PARAM_NONE, o = SV_PARAM_NONE;
    char msg[160];
    CHECK_STATUS(sv_spec_check_param(&s, &p, &o, msg, sizeof msg), SV_EINVAL);
    CHECK_EQ(p, SV_PARAM_SCALE);
    CHECK_EQ(o, SV_PARAM_N_K);
    CHECK_STR_EQ(msg, "scale: needs n_k >= 2 (ln 1 = 0)");
    /* d_k past CBLAS's int, worded whole: the CLI prints the reason after
     * "--dk: 'N' " (64-bit sizes: in 32 bits the sizes overflow first) */
    if (SIZE_MAX > 0xffffffffu) {
        sv_spec_defaults(&s);
        s.n_q = s.n_k = 2;
        s.d_k = (size_t)INT_MAX + 1;
        CHECK_STATUS(sv_spec_resolve(&s), SV_ETOOBIG);
        CHECK_STATUS(sv_spec_check_param(&s, &p, NULL, msg, sizeof msg), SV_ETOOBIG);
        CHECK_EQ(p, SV_PARAM_D_K);
        CHECK_STR_EQ(msg, "d_k: is too large (at most 2147483647: CBLAS takes int sizes)");
    }
}

static void explain(void)
{
    char m[200];
    static const struct {
        sv_param p;
        const char *text, *want;
    } cases[] = {
        {SV_PARAM_D_K, "0", "'0' is not a positive integer"},
        {SV_PARAM_D_K, "x", "'x' is not a positive integer"},
        {SV_PARAM_D_K, "3000000000", "'3000000000' is too large (at most 2147483647)"},
        {SV_PARAM_SEED, "-1", "'-1' is not a non-negative integer"},
        {SV_PARAM_SEED, "1e30", "'1e30' is too large (at most 18446744073709551615)"},
        {SV_PARAM_PLANT, "2", "'2' is not between -1 and 1"},
        {SV_PARAM_Q_STD, "0", "'0' is not a positive number"},
        {SV_PARAM_NU, "3", "'3' is not more than 4"},
        {SV_PARAM_Q_MEAN, "nan", "'nan' is not a finite number"},
        {SV_PARAM_Q_MEAN, "1e400", "'1e400' is too large (at most 1.79769e+308 in magnitude)"},
        {SV_PARAM_DIST, "cauchy", "'cauchy' is not one of normal, uniform, rademacher or t"},
        /* a synonym or a near name suggested (sv_suggest), for every front end */
        {SV_PARAM_DIST, "gauss",
         "'gauss' is not one of normal, uniform, rademacher or t; did you mean normal?"},
        {SV_PARAM_INIT, "Glorot",
         "'Glorot' is not one of xavier, lecun or normal; did you mean xavier?"},
        {SV_PARAM_SCALE, "half", "'half' is not one of sqrt, dk, none, logn or a positive number"},
        {SV_PARAM_SCALE, "mup",
         "'mup' is not one of sqrt, dk, none, logn or a positive number; did you mean dk?"},
        {SV_PARAM_GRAD, "2", "'2' is not 0 or 1"},
        {SV_PARAM_D_K, "a\nb", "'a\\nb' is not a positive integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const size_t n = sv_param_explain(cases[i].p, cases[i].text, m, sizeof m);
        CHECK_STR_EQ(m, cases[i].want);
        CHECK_EQ(n, strlen(cases[i].want));
    }
    CHECK_EQ(sv_param_explain(SV_PARAM_D_K, "8", m, sizeof m), 0);
    /* cut, never overrun */
    char small[8];
    CHECK_EQ(sv_param_explain(SV_PARAM_D_K, "0", small, sizeof small), 29);
    CHECK_STR_EQ(small, "'0' is ");
}

/* sv_suggest: synonyms (misspelt by one when 5 letters or more), else the
 * nearest name within a third of the length; case ignored; NULL-safe. */
static void suggest(void)
{
    const char *const *dist = sv_param_choices(SV_PARAM_DIST);
    CHECK_STR_EQ(sv_suggest("gaussian", dist, SIZE_MAX), "normal");
    CHECK_STR_EQ(sv_suggest("gausian", dist, SIZE_MAX), "normal");
    CHECK_STR_EQ(sv_suggest("randn", dist, SIZE_MAX), "normal");
    CHECK_STR_EQ(sv_suggest("student-t", dist, SIZE_MAX), "t");
    CHECK_STR_EQ(sv_suggest("bernoulli", dist, SIZE_MAX), "rademacher");
    CHECK_STR_EQ(sv_suggest("NORMAL", dist, SIZE_MAX), "normal");
    CHECK_STR_EQ(sv_suggest("unifrom", dist, SIZE_MAX), "uniform");
    CHECK(sv_suggest("cauchy", dist, SIZE_MAX) == NULL);
    CHECK(sv_suggest("glorot", dist, SIZE_MAX) == NULL); /* xavier is not a dist */
    CHECK_STR_EQ(sv_suggest("glorot", sv_param_choices(SV_PARAM_INIT), SIZE_MAX), "xavier");
    CHECK(sv_suggest("gaussian", dist, 0) == NULL); /* n names only */
    CHECK(sv_suggest(NULL, dist, 4) == NULL);
    CHECK(sv_suggest("normal", NULL, 4) == NULL);
}

static void faults(void)
{
    static const struct {
        sv_param p;
        const char *v;
        sv_param want, other;
        const char *msg;
    } cases[] = {
        {SV_PARAM_Q_MEAN, "1", SV_PARAM_Q_MEAN, SV_PARAM_D_MODEL,
         "q_mean: not with d_model (projections draw their own tokens)"},
        {SV_PARAM_CROSS, "1", SV_PARAM_CROSS, SV_PARAM_D_MODEL,
         "cross: needs d_model (keys from their own tokens)"},
        {SV_PARAM_N_K, "5", SV_PARAM_CAUSAL, SV_PARAM_N_Q,
         "causal: needs n_q = n_k (got n_q=4, n_k=5)"},
        {SV_PARAM_WINDOW, "3", SV_PARAM_WINDOW, SV_PARAM_GRAD,
         "window: not with grad (the backward passes are causal only)"},
        {SV_PARAM_DDOF, "16", SV_PARAM_DDOF, SV_PARAM_NONE,
         "ddof: must be less than the number of scores n_q*n_k = 16"},
        {SV_PARAM_Q_STD, "1e70", SV_PARAM_Q_STD, SV_PARAM_NONE,
         "q_std: is too large: scores could reach 8.29e+142 at d_k=4 (at most 1e+60)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sv_spec s;
        sv_spec_defaults(&s);
        sv_spec_set(&s, SV_PARAM_N_Q, "4");
        sv_spec_set(&s, SV_PARAM_N_K, "4");
        sv_spec_set(&s, SV_PARAM_D_K, "4");
        if (i == 0)
            sv_spec_set(&s, SV_PARAM_D_MODEL, "8");
        if (i == 2)
            sv_spec_set(&s, SV_PARAM_CAUSAL, "1");
        if (i == 3)
            sv_spec_set(&s, SV_PARAM_GRAD, "1");
        sv_spec_set(&s, cases[i].p, cases[i].v);
        (void)sv_spec_resolve(&s);
        sv_param p = SV_PARAM_COUNT, o = SV_PARAM_COUNT;
        char msg[200];
        CHECK_STATUS_NE(sv_spec_check_param(&s, &p, &o, msg, sizeof msg), SV_OK);
        CHECK_EQ(p, cases[i].want);
        CHECK_EQ(o, cases[i].other);
        CHECK_STR_EQ(msg, cases[i].msg);
    }
    sv_spec ok;
    sv_spec_defaults(&ok);
    sv_spec_resolve(&ok);
    sv_param p = SV_PARAM_D_K;
    char msg[8] = "x";
    CHECK_STATUS(sv_spec_check_param(&ok, &p, NULL, msg, sizeof msg), SV_OK);
    CHECK_EQ(p, SV_PARAM_NONE);
    CHECK_STR_EQ(msg, "");
    CHECK_STATUS(sv_spec_check_param(NULL, &p, NULL, msg, sizeof msg), SV_EINVAL);
}

/* sv_spec_check_rule: the parts of sv_spec_check_param's line, which a
 * front end words in its own names (the CLI: "--nu needs --dist t (why)"). */
static void rule_parts(void)
{
    static const struct {
        sv_param p;
        const char *v;
        sv_rule_kind kind;
        sv_param want, other;
        const char *value, *why, *msg;
    } cases[] = {
        {SV_PARAM_Q_MEAN, "1", SV_RULE_EXCLUDES, SV_PARAM_Q_MEAN, SV_PARAM_D_MODEL, "",
         "projections draw their own tokens",
         "q_mean: not with d_model (projections draw their own tokens)"},
        {SV_PARAM_NU, "8", SV_RULE_NEEDS, SV_PARAM_NU, SV_PARAM_DIST, "t",
         "degrees of freedom of Student's t",
         "nu: needs dist t (degrees of freedom of Student's t)"},
        {SV_PARAM_CROSS, "1", SV_RULE_NEEDS, SV_PARAM_CROSS, SV_PARAM_D_MODEL, "",
         "keys from their own tokens", "cross: needs d_model (keys from their own tokens)"},
        {SV_PARAM_N_Q, "5", SV_RULE_NONE, SV_PARAM_CAUSAL, SV_PARAM_N_Q, "", "needs n_q = n_k",
         "causal: needs n_q = n_k (got n_q=5, n_k=4)"},
        {SV_PARAM_DDOF, "16", SV_RULE_NONE, SV_PARAM_DDOF, SV_PARAM_NONE, "", "",
         "ddof: must be less than the number of scores n_q*n_k = 16"},
        /* a bound (nu <= 4 with dist t), not "nu: not with dist" */
        {SV_PARAM_DIST, "t", SV_RULE_NONE, SV_PARAM_NU, SV_PARAM_DIST, "",
         "must be more than 4 (a finite fourth moment)",
         "nu: must be more than 4 (a finite fourth moment)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sv_spec s;
        sv_spec_defaults(&s);
        sv_spec_set(&s, SV_PARAM_N_Q, "4");
        sv_spec_set(&s, SV_PARAM_N_K, "4");
        if (i == 0)
            sv_spec_set(&s, SV_PARAM_D_MODEL, "8");
        if (i == 3)
            sv_spec_set(&s, SV_PARAM_CAUSAL, "1");
        sv_spec_set(&s, cases[i].p, cases[i].v);
        if (i == 5)
            s.nu = 3.0; /* sv_spec_set refuses it: a spec filled by hand */
        (void)sv_spec_resolve(&s);
        sv_param_rule r;
        char msg[200], line[200];
        CHECK_STATUS(sv_spec_check_rule(&s, &r), SV_EINVAL);
        CHECK_EQ(r.kind, cases[i].kind);
        CHECK_EQ(r.param, cases[i].want);
        CHECK_EQ(r.other, cases[i].other);
        CHECK_STR_EQ(r.value, cases[i].value);
        CHECK_STR_EQ(r.why, cases[i].why);
        /* the parts make sv_spec_check_param's line */
        CHECK_STATUS(sv_spec_check_param(&s, NULL, NULL, msg, sizeof msg), SV_EINVAL);
        CHECK_STR_EQ(msg, cases[i].msg);
        if (r.kind == SV_RULE_EXCLUDES)
            snprintf(line, sizeof line, "%s: not with %s (%s)", sv_param_name(r.param),
                     sv_param_name(r.other), r.why);
        if (r.kind == SV_RULE_NEEDS)
            snprintf(line, sizeof line, "%s: needs %s%s%s (%s)", sv_param_name(r.param),
                     sv_param_name(r.other), *r.value ? " " : "", r.value, r.why);
        if (r.kind != SV_RULE_NONE)
            CHECK_STR_EQ(line, cases[i].msg);
    }
    sv_spec ok;
    sv_spec_defaults(&ok);
    sv_spec_resolve(&ok);
    sv_param_rule r = {SV_RULE_NEEDS, SV_PARAM_D_K, SV_PARAM_D_K, "x", "x"};
    CHECK_STATUS(sv_spec_check_rule(&ok, &r), SV_OK);
    CHECK_EQ(r.kind, SV_RULE_NONE);
    CHECK_EQ(r.param, SV_PARAM_NONE);
    CHECK_EQ(r.other, SV_PARAM_NONE);
    CHECK_STR_EQ(r.why, "");
    CHECK_STATUS(sv_spec_check_rule(NULL, &r), SV_EINVAL);
    CHECK_EQ(r.kind, SV_RULE_NONE);
    CHECK_STATUS(sv_spec_check_rule(&ok, NULL), SV_EINVAL);
}

/* The readers and words for a caller's own options (not parameters). */
static void text(void)
{
    uint64_t u = 7;
    double d = 7;
    CHECK_STATUS(sv_text_count("1.2e3", &u), SV_OK);
    CHECK_EQ(u, 1200);
    CHECK_STATUS(sv_text_count("1e-1", &u), SV_EINVAL);
    CHECK_STATUS(sv_text_count("99999999999999999999", &u), SV_ERANGE);
    CHECK_STATUS(sv_text_count("000000000000000000000000000001", &u), SV_OK);
    CHECK_EQ(u, 1);
    CHECK_STATUS(sv_text_real("-1.5e-3", &d), SV_OK);
    CHECK_EQ(d, -1.5e-3);
    CHECK_STATUS(sv_text_real("1e309", &d), SV_ERANGE);
    CHECK_STATUS(sv_text_real(" 1", &d), SV_EINVAL);
    char m[80], q[16];
    CHECK_EQ(sv_value_explain(SV_ARG_COUNT, 1, 1024, "2000", m, sizeof m), 34);
    CHECK_STR_EQ(m, "'2000' is too large (at most 1024)");
    CHECK_EQ(sv_value_explain(SV_ARG_REAL, 0, 1, "0.5", m, sizeof m), 0);
    CHECK_STR_EQ(sv_quote(q, sizeof q, "\x01\n"), "\\x01\\n");
    CHECK_STR_EQ(sv_quote(q, sizeof q, "abcdefghijklmnopq"), "abcdefghijkl...");
}

int main(void)
{
    text();
    names();
    defaults();
    set_kinds();
    scales();
    explain();
    suggest();
    faults();
    rule_parts();
    return CHECK_DONE();
}
