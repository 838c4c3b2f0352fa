/* --format gnuplot with --histogram: a panel per scale, each on bins of
 * its own width. The engine counts raw and scaled scores on one grid (the
 * union of both ranges, sv_theory_histogram_range), on which the scaled
 * N(0, 1) of d_k = 256 is 3-4 of 80 bins wide; so for this format the run
 * asks for cli_gnuplot_hist_bins fine bins (m times --histogram, m the
 * ratio of the two scales), the rows are kept here, and each panel sums
 * them, g fine bins a bar, over the span its scores reach: about
 * --histogram bars a panel, whatever the scale. The titles say how many
 * trials and scores are pooled. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot_term.h"
#include "writer.h"

/* Fine bins the engine counts at most, whatever the scale (8 MB of rows). */
#define FINE_MAX ((size_t)1 << 18)
/* The weights' panels: fine bins per --histogram bin (their range is
 * [0, 1] at every scale, but scaled rows sit near 1/n_k). */
#define WEIGHT_FINE 16
/* Fine bins a --histogram bin at the narrower scale: its scores span less
 * than the +-6 sd the engine's range gives them, and a panel's bars are
 * sums of whole fine bins over that span. */
#define OVERSAMPLE 4

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

int cli_gnuplot_hist_row(cli_writer *s, const sv_row_view *row)
{
    if (s->hist_n == s->hist_cap) {
        const size_t cap = s->hist_cap ? 2 * s->hist_cap : 256;
        double *p = realloc(s->hist, 4 * cap * sizeof *p);
        if (!p)
            return 0;
        s->hist = p;
        s->hist_cap = cap;
    }
    double *h = s->hist + 4 * s->hist_n++;
    h[0] = row->bin_lo;
    h[1] = row->bin_hi;
    h[2] = (double)row->bin_count[0];
    h[3] = (double)row->bin_count[1];
    return 1;
}

/* The expected count of bin [lo, hi) of the raw (k = 0) or scaled (1)
 * scores if they were normal with the theory's mean and variance
 * (sv_theory_normal_counts), the large-d_k approximation the histogram is
 * drawn against (docs/theory.md); NAN where the theory has no variance. */
static double normal_count(const sv_spec *sp, double lo, double hi, int k)
{
    sv_theory t;
    uint64_t n = 0;
    double out = NAN;
    const double edges[2] = {lo, hi};
    if (sv_theory_spec(sp, &t) != SV_OK || sv_spec_scores(sp, &n) != SV_OK ||
        (k == 1 && sv_theory_scale(sp, &t) != SV_OK) ||
        sv_theory_normal_counts(t.mean, t.var, (double)n * (double)sp->trials, edges, 1, &out) !=
            SV_OK)
        return NAN;
    return out;
}

/* Panel k's span: its first and last fine bin with at least 1/VISIBLE of
 * the tallest fine bin's count (a bar lower than that is under a pixel:
 * the few extreme scores of 100 000 pooled trials would else stretch the
 * axis and every bar with it; the weights' panels keep every weight);
 * *g the fine bins a bar, so that the span
 * takes about --histogram bars. */
#define VISIBLE 500.0
static void span(const cli_writer *s, int k, size_t *first, size_t *last, size_t *g)
{
    double top = 0;
    for (size_t i = 0; i < s->hist_n; i++)
        top = s->hist[4 * i + 2 + k] > top ? s->hist[4 * i + 2 + k] : top;
    if (s->out->weight_histogram) /* every weight: the large ones are the lesson */
        top = 0.5;
    size_t a = 0, z = s->hist_n ? s->hist_n - 1 : 0;
    while (a < z && s->hist[4 * a + 2 + k] * VISIBLE < top)
        a++;
    while (z > a && s->hist[4 * z + 2 + k] * VISIBLE < top)
        z--;
    const size_t bars = s->out->histogram ? s->out->histogram : 1;
    const size_t g0 = (size_t)lround((double)(z - a + 1) / (double)bars);
    *first = a;
    *last = z;
    *g = g0 ? g0 : 1;
}

/* Datablock $NAME: bin_lo bin_hi count normal, one line per bar of panel k. */
static void panel_data(cli_writer *s, int k, const char *name, double *width)
{
    FILE *f = s->f;
    size_t a, z, g;
    span(s, k, &a, &z, &g);
    *width = s->hist_n ? s->hist[4 * a + 1] - s->hist[4 * a] : NAN;
    *width *= (double)g;
    fprintf(f, "$%s << EOD\n# bin_lo bin_hi %s_count %s_normal (%zu engine bins a bar)\n", name,
            name, name, g);
    for (size_t i = a; i <= z && s->hist_n; i += g) {
        const size_t e = i + g - 1 < s->hist_n ? i + g - 1 : s->hist_n - 1;
        double count = 0;
        for (size_t j = i; j <= e; j++)
            count += s->hist[4 * j + 2 + k];
        const double lo = s->hist[4 * i], hi = s->hist[4 * e + 1];
        const double nc =
            s->out->weight_histogram ? NAN : normal_count(&s->configs[0].spec, lo, hi, k);
        fprintf(f, "%.10g %.10g %.0f ", lo, hi, count);
        fprintf(f, isfinite(nc) ? "%.10g\n" : "NaN\n", nc);
    }
    fputs("EOD\n", f);
}

/* The theory's sd of the raw (k = 0) or scaled (1) scores, NAN if none. */
static double theory_sd(const sv_spec *sp, int k)
{
    sv_theory t;
    if (sv_theory_spec(sp, &t) != SV_OK || (k == 1 && sv_theory_scale(sp, &t) != SV_OK))
        return NAN;
    return sqrt(t.var);
}

/* One panel: its title (the bar width, in the scale's sd where the theory
 * has one), the bars, the normal curve; the key below the frame. */
static void panel(cli_writer *s, int k, const char *name, const char *label, double width)
{
    FILE *f = s->f;
    const int w = s->out->weight_histogram;
    const double sd = w ? NAN : theory_sd(&s->configs[0].spec, k);
    fprintf(f, "set title \"%s: bars %.3g wide", label, width);
    if (isfinite(sd) && sd > 0)
        fprintf(f, " = %.2f sd (theory sd %.3g)", width / sd, sd);
    fprintf(f, "\" noenhanced\nset xlabel \"%s\" noenhanced\n", w ? "softmax weight" : "score");
    fprintf(f, "plot $%s using (($1+$2)/2):3:($2-$1) with boxes lc %d title \"counts\"", name,
            k + 1);
    if (!w) /* the normal curve: a large-d_k approximation */
        fprintf(f,
                ", \\\n     $%s using (($1+$2)/2):4 with lines dt 2 lw 2 lc rgb \"black\" "
                "title \"normal (theory)\"",
                name);
    fputc('\n', f);
}

void cli_gnuplot_hist_end(cli_writer *s)
{
    FILE *f = s->f;
    const cli_config *c = &s->configs[0];
    const int w = s->out->weight_histogram;
    double width[2];
    panel_data(s, 0, "raw", &width[0]);
    panel_data(s, 1, "scaled", &width[1]);
    char sc[64];
    cli_gnuplot_scaled_name(c, sc, sizeof sc);
    uint64_t n = 0;
    (void)sv_spec_scores(&c->spec, &n);
    const unsigned long long trials = (unsigned long long)c->spec.trials;
    const char *what = w ? "Softmax weights" : "Scores";
    fprintf(f, "set multiplot layout 2,1 title \"");
    if (trials == 1)
        fprintf(f, "%s of one trial (%llu %s)", what, (unsigned long long)n,
                w ? "weights" : "scores");
    else
        fprintf(f, "%s pooled over %llu trials (%.0f %s)", what, trials, (double)n * (double)trials,
                w ? "weights" : "scores");
    fprintf(f, "\\nd_k=%zu, n_q=%zu, n_k=%zu\" noenhanced\n", c->spec.d_k, c->spec.n_q,
            c->spec.n_k);
    fputs("set ylabel \"count\" noenhanced\nset grid\nset style fill solid 0.5\n"
          "set key outside right top vertical noenhanced\nset format x \"%g\"\n"
          "set format y \"%g\"\nset offsets 0, 0, graph 0.05, 0\nset yrange [0:*]\nset autoscale "
          "xfix\n",
          f);
    panel(s, 0, "raw", "raw QK^T", width[0]);
    panel(s, 1, "scaled", sc, width[1]);
    fputs("unset multiplot\n", f);
    free(s->hist);
    s->hist = NULL;
    s->hist_n = s->hist_cap = 0;
}
