/* The library's check of one configuration (sv_spec_check_param, and
 * sv_spec_check_use for the parts of a run beyond it), its failure mapped
 * back through the parameter to the option that set it and its value,
 * with the library's reason. The library's rules are not repeated here. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "options.h"

/* --scale logn against the parts of the run beyond its spec: the
 * library's rules (sv_spec_check_use, theory.md 15.1) on each item, in
 * the options that make those parts (the parameters': library_error). */
int cli_check_logn(const cli_options *o, char *err, size_t errlen)
{
    static const struct {
        unsigned use;
        cli_option_id id;
    } uses[] = {{SV_USE_MASK, CLI_OPT_MASK},
                {SV_USE_GIVEN, CLI_OPT_Q},
                {SV_USE_HISTOGRAM, CLI_OPT_HISTOGRAM},
                {SV_USE_ROW_SHARD, CLI_OPT_Q_ROWS},
                {SV_USE_ONE_SCALE, CLI_OPT_EXAMPLE}}; /* it prints c S whole */
    unsigned given = 0, bad;
    const char *why;
    for (size_t k = 0; k < sizeof uses / sizeof uses[0]; k++)
        given |= o->given[uses[k].id] ? uses[k].use : 0u;
    for (size_t i = 0; i < o->n_scale; i++) {
        sv_spec spec = o->base;
        spec.scale_rule = o->scale[i].rule;
        if (sv_spec_check_use(&spec, given, &bad, &why) == SV_OK)
            continue;
        char q[80];
        size_t k = 0;
        while (uses[k].use != bad) /* bad is one of uses[] */
            k++;
        return cli_fail(err, errlen, "--scale %s does not apply with --%s (%s)",
                        cli_quote(q, sizeof q, o->scale[i].name), cli_option_defs[uses[k].id].name,
                        why);
    }
    return 1;
}

/* A rule of the library between two parameters (sv_spec_check_rule) in
 * the options' names: "--q-mean does not apply with --d-model (why)",
 * "--nu needs --dist t (why)", "--scale logn does not apply with --grad
 * (why)". 1 with the message in err; 0 for another fault. */
static int rule_error(const cli_options *o, const cli_config *c, const char *name, char *err,
                      size_t errlen)
{
    sv_param_rule r;
    (void)sv_spec_check_rule(&c->spec, &r);
    const int oid = cli_option_of(o, r.other);
    if (oid < 0 || r.kind == SV_RULE_NONE)
        return 0;
    const char *oname = cli_option_defs[oid].name;
    char q[80] = ""; /* --scale's item of this configuration: a rule of its name */
    if (r.param == SV_PARAM_SCALE)
        cli_quote(q + 1, sizeof q - 1, c->scale_name), q[0] = ' ';
    if (r.kind == SV_RULE_EXCLUDES)
        return !cli_fail(err, errlen, "--%s%s does not apply with --%s (%s)", name, q, oname,
                         r.why);
    return !cli_fail(err, errlen, "--%s%s needs --%s%s%s (%s)", name, q, oname, *r.value ? " " : "",
                     r.value, r.why);
}

/* A failure of the library's check on @p spec (@p id the option of the
 * parameter it blames, @p why the library's line "param: reason"), as a
 * message naming the option and its value with the library's reason. */
static int library_error(const cli_options *o, const cli_config *c, sv_status st, int id,
                         const char *why, char *err, size_t errlen)
{
    const sv_spec *spec = &c->spec;
    if (id < 0)
        return cli_fail(err, errlen, "invalid configuration (%s: %s)", sv_status_str(st), why);
    const char *name = cli_option_defs[id].name;
    if (st == SV_EINVAL && rule_error(o, c, name, err, errlen))
        return 0;
    const int sizes = st == SV_ERANGE && (id == CLI_OPT_N || id == CLI_OPT_NQ || id == CLI_OPT_NK);
    if (sizes && spec->d_k > INT_MAX) /* (n_q + n_k) d_k overflowed: d_k's fault */
        return cli_fail(err, errlen, "--dk: '%zu' is too large (at most %d: CBLAS takes int sizes)",
                        spec->d_k, INT_MAX);
    if (sizes)
        return cli_fail(err, errlen,
                        "sizes too large: n_q*n_k = %zu*%zu scores with d_k=%zu overflow 64-bit "
                        "sizes",
                        spec->n_q, spec->n_k, spec->d_k);
    const char *reason = strstr(why, ": ") ? strstr(why, ": ") + 2 : sv_status_str(st);
    char q[80];
    cli_options_echo(o, (cli_option_id)id, q, sizeof q);
    if (id == CLI_OPT_DK) /* the item of this configuration, not the list */
        snprintf(q, sizeof q, "%zu", spec->d_k);
    if (id == CLI_OPT_SCALE)
        cli_quote(q, sizeof q, c->scale_name);
    if (cli_option_defs[id].kind == CLI_ARG_FLAG) /* "--causal needs n_q = n_k (...)" */
        return cli_fail(err, errlen, "--%s %s", name, reason);
    return cli_fail(err, errlen, "--%s: '%s' %s", name, q, reason);
}

int cli_config_check(const cli_options *o, cli_config *c, char *err, size_t errlen)
{
    const sv_spec *spec = &c->spec;
    sv_param param = SV_PARAM_NONE;
    char why[256];
    sv_status st = sv_spec_check_param(spec, &param, NULL, why, sizeof why);
    int id = cli_option_of(o, param);
    const char *use_why; /* the histograms: the library's rule for weights (logn's: above) */
    if (st == SV_OK && o->out.weight_histogram &&
        sv_spec_check_use(spec, SV_USE_WEIGHT_HISTOGRAM, NULL, &use_why) != SV_OK)
        return cli_fail(err, errlen, "--weight-histogram %s; got n_k=%zu", use_why, spec->n_k);
    if (st == SV_OK && (st = cli_budget_engine_bytes(&o->exec, spec, &c->engine_bytes)) != SV_OK)
        id = cli_option_of(o, SV_PARAM_N_Q); /* the sizes overflow */
    return st == SV_OK || library_error(o, c, st, id, why, err, errlen);
}

int cli_example_whole(const sv_spec *spec)
{
    const size_t lim = CLI_EXAMPLE_MATRIX_MAX;
    return spec->n_q <= lim && spec->n_k <= lim && spec->d_k <= lim &&
           (!spec->values || spec->d_v <= lim);
}

int cli_example_check(const cli_options *o, char *err, size_t errlen)
{
    const sv_spec *spec = &o->configs[0].spec;
    static const cli_option_id whole_only[] = {CLI_OPT_VALUES, CLI_OPT_DV, CLI_OPT_GRAD,
                                               CLI_OPT_DDOF};
    char dv[40] = "";
    if (spec->values)
        snprintf(dv, sizeof dv, ", d_v=%zu", spec->d_v);
    for (size_t i = 0; !cli_example_whole(spec) && i < sizeof whole_only / sizeof *whole_only; i++)
        if (o->given[whole_only[i]])
            return cli_fail(err, errlen,
                            "--example --%s needs d_k, n_q, n_k%s <= %d (it prints the "
                            "matrices whole; got d_k=%zu, n_q=%zu, n_k=%zu%s)",
                            cli_option_defs[whole_only[i]].name, spec->values ? ", d_v" : "",
                            CLI_EXAMPLE_MATRIX_MAX, spec->d_k, spec->n_q, spec->n_k, dv);
    return 1;
}

int cli_plot_check(const cli_options *o, char *err, size_t errlen)
{
    const int hist = o->out.plot == CLI_PLOT_HISTOGRAM;
    char q[80];
    if (hist && !o->out.histogram)
        return cli_fail(err, errlen, "--plot histogram needs --histogram (its bins)");
    if (o->out.histogram && o->given[CLI_OPT_PLOT] && !hist)
        return cli_fail(err, errlen,
                        "--plot %s does not apply with --histogram (it draws the histogram)",
                        cli_quote(q, sizeof q, o->arg[CLI_OPT_PLOT]));
    if (o->out.plot == CLI_PLOT_GRAD && !o->given[CLI_OPT_GRAD])
        return cli_fail(err, errlen, "--plot grad needs --grad (the gradients it draws)");
    /* --output: the image's name, which the script quotes: .png, .svg or
     * .pdf (pngcairo, svg, pdfcairo: gnuplot-nox has all three) */
    const char *s = o->given[CLI_OPT_OUTPUT] ? o->arg[CLI_OPT_OUTPUT] : NULL;
    const size_t n = s ? strlen(s) : 0;
    if (s && (n < 5 || (strcmp(s + n - 4, ".png") != 0 && strcmp(s + n - 4, ".svg") != 0 &&
                        strcmp(s + n - 4, ".pdf") != 0)))
        return cli_fail(err, errlen, "--output: '%s' does not end in .png, .svg or .pdf",
                        cli_quote(q, sizeof q, s));
    if (s && strpbrk(s, "'\"\\\n"))
        return cli_fail(err, errlen, "--output: '%s' has a quote, backslash or newline",
                        cli_quote(q, sizeof q, s));
    return 1;
}
