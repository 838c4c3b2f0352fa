/* --format gnuplot: a whole gnuplot script on stdout, so that
 *   sdpa-var --dk 1:1024 --format gnuplot --output v.png | gnuplot
 * draws a figure from a pipe. The script is the rows as the CSV of
 * --columns all in a datablock ($D << EOD, gnuplot 5: a pipe read through
 * '-' can be read once), a few `name = value` lines (what to draw, the
 * theory a histogram is drawn against), then a template: scripts/sweep.gp
 * or histogram.gp, the installed scripts that draw the same CSV piped into
 * gnuplot, embedded at build time (gnuplot_term.h). What is drawn and how
 * is the template's; this file only writes what the template reads. */
#include <math.h>
#include <string.h>

#include "gnuplot_term.h"
#include "options.h"
#include "writer.h"

void cli_gnuplot_head(FILE *f, const char *output)
{
    fprintf(
        f,
        "# sdpa-var %s: a gnuplot script with its data inline; draw it with\n"
        "#   ... --format gnuplot --output f.png | gnuplot   (or .svg, .pdf)\n"
        "#   ... --format gnuplot | gnuplot -e \"set terminal pngcairo; set output 'f.png'\" -\n"
        "inline = 1\n",
        SV_VERSION_STRING);
    if (output)
        fprintf(f, "out = '%s'\n", output);
}

/* Writes @p t with each { } block on one line, its lines joined by "; ",
 * comments dropped (as gnuplot itself reads a block from a file): gnuplot
 * 5.4 reads a block over several lines from a file but not from "-", and
 * `... | gnuplot -e "set terminal ..." -` reads the script from "-". A line
 * ending in a backslash continues on the next. Quotes are followed, so a
 * brace or # in a string is text. */
static void flatten(FILE *f, const char *t)
{
    int depth = 0, comment = 0;
    char quote = 0;
    for (; *t; t++) {
        if (*t == '\n') { /* a line's end: "; " inside a block */
            comment = 0;
            fputs(depth > 0 ? "; " : "\n", f);
        } else if (comment || (!quote && *t == '#')) {
            comment = 1; /* outside a block, gnuplot reads the comment itself */
            if (depth == 0)
                fputc(*t, f);
        } else if (!quote && *t == '\\' && t[1] == '\n') {
            t++; /* a continuation: the lines joined */
        } else {
            if (quote == '"' && *t == '\\' && t[1])
                fputc(*t++, f); /* an escaped character: text */
            else if (quote && *t == quote)
                quote = 0;
            else if (!quote && (*t == '"' || *t == '\''))
                quote = *t;
            else if (!quote)
                depth += *t == '{' ? 1 : *t == '}' ? -1 : 0;
            fputc(*t, f);
        }
    }
}

void cli_gnuplot_tail(FILE *f, const char *template)
{
    fputs("EOD\n", f);
    flatten(f, template);
}

sv_scale_rule cli_scale_rule(const char *scale_name)
{
    sv_scale_rule r = SV_SCALE_VALUE;
    double v;
    (void)sv_scale_parse(scale_name, &r, &v); /* parsed once already: options.c */
    return r;
}

/* Fine bins the engine counts at most, whatever the scale (8 MB of rows). */
#define FINE_MAX ((size_t)1 << 18)
/* The weights' panels: fine bins per --histogram bin (their range is
 * [0, 1] at every scale, but scaled rows sit near 1/n_k). */
#define WEIGHT_FINE 16
/* Fine bins a --histogram bin at the narrower scale: its scores span less
 * than the +-6 sd the engine's range gives them, and a panel's bars are
 * sums of whole fine bins over that span. */
#define OVERSAMPLE 4

/* The engine counts raw and scaled scores on one grid (the union of both
 * ranges, sv_theory_histogram_range), on which the scaled N(0, 1) of
 * d_k = 256 is 3-4 of 80 bins wide; so this format asks for m times
 * --histogram fine bins (m the ratio of the two scales), and
 * histogram.gp sums them into about --histogram bars a panel, each panel
 * over the span its scores reach. */
size_t cli_gnuplot_hist_bins(const cli_output *out, const sv_spec *spec)
{
    const size_t b = out->histogram;
    if (out->format != CLI_FORMAT_GNUPLOT || b == 0)
        return b;
    double m = WEIGHT_FINE;
    if (!out->weight_histogram) { /* OVERSAMPLE fine bins a bar at the narrower scale */
        const double c = fabs(sv_spec_scale(spec));
        m = OVERSAMPLE * (c > 0 && isfinite(c) ? (c < 1 ? 1 / c : c) : 1);
    }
    const size_t most = FINE_MAX / b; /* fine bins a bar can have, whole */
    const double cap = (double)most;
    m = m < 1 ? 1 : m > cap ? cap : m;
    return b * (size_t)lround(m);
}

/* gnuplot's spelling of v: NaN where not finite. */
static void real(FILE *f, const char *name, double v)
{
    if (isfinite(v))
        fprintf(f, "%s = %.10g\n", name, v);
    else
        fprintf(f, "%s = NaN\n", name);
}

/* What histogram.gp draws the bins against, which its CSV does not hold:
 * the run's sizes and scale, and the theory's mean and sd of the raw and
 * the scaled scores (NaN where the theory has none). */
static void hist_values(cli_writer *s)
{
    FILE *f = s->f;
    const cli_config *c = &s->configs[0];
    const sv_spec *sp = &c->spec;
    uint64_t n = 0;
    (void)sv_spec_scores(sp, &n);
    fprintf(f, "bars = %zu\nweights = %d\ndk = %zu\nn_q = %zu\nn_k = %zu\n", s->out->histogram,
            s->out->weight_histogram, sp->d_k, sp->n_q, sp->n_k);
    fprintf(f, "trials = %llu\nscores = %llu\nscale = \"%s\"\nlogn = %d\n",
            (unsigned long long)sp->trials, (unsigned long long)n, c->scale_name, sp->scale_logn);
    real(f, "scale_factor", sv_spec_scale(sp));
    sv_theory t;
    for (int k = 0; k < 2; k++) {
        const int ok =
            sv_theory_spec(sp, &t) == SV_OK && (k == 0 || sv_theory_scale(sp, &t) == SV_OK);
        real(f, k ? "scaled_mean" : "raw_mean", ok ? t.mean : NAN);
        real(f, k ? "scaled_sd" : "raw_sd", ok ? sqrt(t.var) : NAN);
    }
}

static int gnuplot_begin(cli_writer *s)
{
    cli_gnuplot_head(s->f, s->out->plot_output);
    if (s->kind == SV_OUTPUT_HISTOGRAM)
        hist_values(s);
    else /* the --plot names are the template's: options.c reads them */
        fprintf(s->f, "quantity = \"%s\"\n", cli_plot_name(s->out->plot));
    fputs("$D << EOD\n", s->f);
    return cli_csv_header(s);
}

static void gnuplot_end(cli_writer *s)
{
    cli_gnuplot_tail(s->f, s->kind == SV_OUTPUT_HISTOGRAM ? cli_gp_histogram : cli_gp_sweep);
}

const cli_format_writer cli_gnuplot_writer = {
    .begin = gnuplot_begin, .row = cli_csv_row, .end = gnuplot_end};
