/* What the --format gnuplot writers (write_gnuplot.c, gnuplot_hist.c,
 * write_logits.c) share: the script's terminal, the scale's label. */
#ifndef SDPA_VAR_CLI_GNUPLOT_TERM_H
#define SDPA_VAR_CLI_GNUPLOT_TERM_H

#include <stdio.h>

#include "specs.h"

/* Writes the script's terminal lines for a figure of w x h pixels. With
 * @p output (--output, validated: ends in .png, .svg or .pdf, no quote)
 * the script's own: pngcairo, svg, or pdfcairo at w/100 x h/100 inches
 * (the PNG's layout). Without, the user's terminal (gnuplot -e, GNUTERM),
 * enlarged to w x h where it is pngcairo, png or svg left at gnuplot's
 * default size (640x480 leaves a 250-pixel frame once the key is outside
 * the plot), and dumb (text on stdout) where gnuplot has none: a
 * gnuplot-nox without GNUTERM, whose `gnuplot -p` would draw nothing. */
void cli_gnuplot_terminal(FILE *f, const char *output, int w, int h);

/* The rule of a --scale item as written, read by the library (a number
 * is SV_SCALE_VALUE): no scale name is spelt in the writers. */
sv_scale_rule cli_scale_rule(const char *scale_name);

/* "QK^T/sqrt(d_k)": configuration c's --scale as the run resolved it, the
 * label of its curves and panel. */
void cli_gnuplot_scaled_name(const cli_config *c, char *buf, size_t len);

#endif
