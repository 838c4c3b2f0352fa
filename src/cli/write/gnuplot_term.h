/* What the --format gnuplot writers (write_gnuplot.c, write_logits.c)
 * share: a script is the rows as CSV in a datablock, a few `name = value`
 * lines, then a template, one of the installed scripts/NAME.gp, embedded at
 * build time (cmake/gnuplot_templates.cmake), which draws the datablock as
 * it draws the CSV piped into gnuplot. */
#ifndef SDPA_VAR_CLI_GNUPLOT_TERM_H
#define SDPA_VAR_CLI_GNUPLOT_TERM_H

#include <stdio.h>

#include "specs.h"

/* The templates: scripts/sweep.gp (a statistic against the swept column),
 * histogram.gp (--histogram), logits.gp (--logits rows' weights). */
extern const char cli_gp_sweep[], cli_gp_histogram[], cli_gp_logits[];

/* Writes the script's head: a comment saying how to draw it, `inline = 1`
 * (the template then reads no standard input) and `out = 'FILE'` where
 * @p output (--output, validated: ends in .png, .svg or .pdf, no quote)
 * is not NULL (without, the script draws on the user's terminal). The
 * writer then writes its `name = value` lines and the datablock
 * (`$D << EOD`, the CSV lines). */
void cli_gnuplot_head(FILE *f, const char *output);

/* Ends the datablock and writes @p template. */
void cli_gnuplot_tail(FILE *f, const char *template);

/* The rule of a --scale item as written, read by the library (a number
 * is SV_SCALE_VALUE): no scale name is spelt in the writers. */
sv_scale_rule cli_scale_rule(const char *scale_name);

#endif
