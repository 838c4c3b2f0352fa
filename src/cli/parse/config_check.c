/* The library's check of one configuration (sv_spec_check_param, and
 * sv_taps_check for a histogram), its failure mapped back through the
 * parameter to the option that set it and its value. The library's rules
 * are not repeated here. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "options.h"

/* --scale logn per row: "causal" or "window" when @p spec has them, else
 * NULL. */
static const char *logn_per_row(const sv_spec *spec)
{
    return spec->causal ? "causal" : spec->window > 0 ? "window" : NULL;
}

/* The refusal of an option the per-row multipliers do not reach. */
static int logn_refuse(const char *per_row, const char *option, char *err, size_t errlen)
{
    return cli_fail(err, errlen,
                    "--scale logn with --%s: not with --%s (the per-row multipliers reach the "
                    "softmax statistics only)",
                    per_row, option);
}

/* --scale logn in drawn runs: one multiplier ln(n_k) / sqrt(d_k) where
 * every row sees n_k keys; per row (spec.scale_logn) with --causal or
 * --window, whose n_i the engine counts. A mask's or a file's rows are
 * not counted, and what the per-row multipliers do not reach is refused
 * (theory.md 15.1): here the CLI's own options, the parameters by the
 * library (library_error). */
int cli_check_logn(const cli_options *o, char *err, size_t errlen)
{
    static const cli_option_id never[] = {CLI_OPT_MASK, CLI_OPT_Q};
    static const cli_option_id not_per_row[] = {CLI_OPT_HISTOGRAM, CLI_OPT_WEIGHT_HISTOGRAM,
                                                CLI_OPT_Q_ROWS, CLI_OPT_EXAMPLE};
    const char *per_row = logn_per_row(&o->base);
    for (size_t i = 0; i < o->n_scale; i++) {
        if (o->scale[i].rule != SV_SCALE_LOGN)
            continue;
        for (size_t k = 0; k < sizeof never / sizeof never[0]; k++)
            if (o->given[never[k]])
                return cli_fail(err, errlen,
                                "--scale logn: not with --%s (log-n scaling counts the keys of "
                                "--causal and --window in drawn runs only)",
                                cli_option_defs[never[k]].name);
        for (size_t k = 0; per_row && k < sizeof not_per_row / sizeof not_per_row[0]; k++)
            if (o->given[not_per_row[k]])
                return logn_refuse(per_row, cli_option_defs[not_per_row[k]].name, err, errlen);
    }
    return 1;
}

/* A rule of the library between two parameters (sv_spec_check_rule) in
 * the options' names: "--q-mean does not apply with --d-model (why)",
 * "--nu needs --dist t (why)". 1 with the message in err; 0 for another
 * fault. */
static int rule_error(const cli_options *o, const sv_spec *spec, const char *name, char *err,
                      size_t errlen)
{
    sv_param_rule r;
    (void)sv_spec_check_rule(spec, &r);
    const int oid = cli_option_of(o, r.other);
    if (oid < 0 || r.kind == SV_RULE_NONE)
        return 0;
    const char *oname = cli_option_defs[oid].name;
    if (r.kind == SV_RULE_EXCLUDES)
        return !cli_fail(err, errlen, "--%s does not apply with --%s (%s)", name, oname, r.why);
    return !cli_fail(err, errlen, "--%s needs --%s%s%s (%s)", name, oname, *r.value ? " " : "",
                     r.value, r.why);
}

/* A failure of the library's check on @p spec (@p id the option of the
 * parameter it blames, @p other the parameter the rule is about, @p why
 * the library's line), as a message naming the option and its value. */
static int library_error(const cli_options *o, const cli_config *c, sv_status st, int id,
                         sv_param other, const char *why, char *err, size_t errlen)
{
    const sv_spec *spec = &c->spec;
    char q[80];
    /* --scale logn: the library blames the scale, about n_k (ln 1 = 0) or
     * what the per-row multipliers do not reach (values first: --grad, if
     * given, turned them on). */
    const int by = spec->grad ? CLI_OPT_GRAD : cli_option_of(o, other);
    if (id == CLI_OPT_SCALE && other == SV_PARAM_N_K)
        return cli_fail(err, errlen, "--scale logn: n_k = 1 (ln 1 = 0; needs 2 or more)");
    if (id == CLI_OPT_SCALE && other != SV_PARAM_NONE && by >= 0 && logn_per_row(spec))
        return logn_refuse(logn_per_row(spec), cli_option_defs[by].name, err, errlen);
    if (id < 0)
        return cli_fail(err, errlen, "invalid configuration (%s: %s)", sv_status_str(st), why);
    const char *name = cli_option_defs[id].name;
    if (st == SV_EINVAL && rule_error(o, spec, name, err, errlen))
        return 0;
    cli_options_echo(o, (cli_option_id)id, q, sizeof q);
    if (id == CLI_OPT_DDOF && strstr(why, ": ")) /* the library counts the scores */
        return cli_fail(err, errlen, "--ddof: '%s' %s", q, strstr(why, ": ") + 2);
    if (id == CLI_OPT_CAUSAL)
        return cli_fail(err, errlen, "--causal needs n_q = n_k (got n_q=%zu, n_k=%zu)", spec->n_q,
                        spec->n_k);
    const int sizes = st == SV_ERANGE && (id == CLI_OPT_N || id == CLI_OPT_NQ || id == CLI_OPT_NK);
    if ((st == SV_ETOOBIG && id == CLI_OPT_DK) ||
        (sizes && spec->d_k > INT_MAX)) /* (n_q + n_k) d_k overflowed: d_k's fault */
        return cli_fail(err, errlen, "--dk: '%zu' is too large (at most %d: CBLAS takes int sizes)",
                        spec->d_k, INT_MAX);
    if (sizes)
        return cli_fail(err, errlen,
                        "sizes too large: n_q*n_k = %zu*%zu scores with d_k=%zu overflow 64-bit "
                        "sizes",
                        spec->n_q, spec->n_k, spec->d_k);
    if (id == CLI_OPT_DK)
        snprintf(q, sizeof q, "%zu", spec->d_k);
    if (id == CLI_OPT_SCALE) /* the item of this configuration, not the list */
        cli_quote(q, sizeof q, c->scale_name);
    if ((st == SV_EOVERFLOW || st == SV_EPRECISION) && strstr(why, ": ")) /* the library's */
        return cli_fail(err, errlen, "--%s: '%s' is %s", name, q, strstr(why, ": ") + 2);
    if (id == CLI_OPT_SCALE && st == SV_EINVAL) /* scale^2 is 0 or inf */
        return cli_fail(err, errlen,
                        "--scale: '%s' is too %s (its square is not a positive finite "
                        "double)",
                        q, spec->scale < 1.0 ? "small" : "large");
    return cli_fail(err, errlen, "--%s: '%s' is out of range for d_k=%zu, n_q=%zu, n_k=%zu (%s)",
                    name, q, spec->d_k, spec->n_q, spec->n_k, sv_status_str(st));
}

int cli_config_check(const cli_options *o, cli_config *c, char *err, size_t errlen)
{
    const sv_spec *spec = &c->spec;
    sv_param param = SV_PARAM_NONE, other = SV_PARAM_NONE;
    char why[256];
    sv_status st = sv_spec_check_param(spec, &param, &other, why, sizeof why);
    int id = cli_option_of(o, param);
    if (st == SV_OK && o->out.histogram) { /* the histogram the run will ask for */
        uint64_t dummy[2] = {0, 0};        /* not written: the check reads nothing */
        sv_taps taps = {.hist_bins = o->out.histogram,
                        .hist_lo = o->out.weight_histogram ? 0.0 : -1.0,
                        .hist_hi = 1.0,
                        .hist_raw = dummy,
                        .hist_scaled = dummy};
        if (o->out.weight_histogram)
            taps.hist_w_raw = taps.hist_w_scaled = dummy;
        st = sv_taps_check(&taps, spec);
        if (st != SV_OK && o->out.weight_histogram)
            return cli_fail(err, errlen, "--weight-histogram needs n_k <= %d (got %zu)",
                            SV_WEIGHT_HIST_KEYS_MAX, spec->n_k);
        id = CLI_OPT_HISTOGRAM;
    }
    if (st == SV_OK && (st = cli_budget_engine_bytes(&o->exec, spec, &c->engine_bytes)) != SV_OK)
        id = cli_option_of(o, SV_PARAM_N_Q); /* the sizes overflow */
    return st == SV_OK || library_error(o, c, st, id, other, why, err, errlen);
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
    static const cli_option_id unplotted[] = {CLI_OPT_Q, CLI_OPT_COLUMNS};
    for (size_t i = 0; i < sizeof unplotted / sizeof *unplotted; i++)
        if (o->given[unplotted[i]])
            return cli_fail(err, errlen,
                            "--format gnuplot does not apply with --%s (it plots the summary of "
                            "random draws, --histogram or given --logits)",
                            cli_option_defs[unplotted[i]].name);
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
