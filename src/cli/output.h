/* Writers for the summary and per-trial results: CSV (one header line,
 * %.17g, round-trips) and an aligned table for terminals. */
#ifndef SDPA_VAR_CLI_OUTPUT_H
#define SDPA_VAR_CLI_OUTPUT_H

#include <stdio.h>

#include "options.h"

/* Results of one --dk value. */
typedef struct cli_result {
    sv_config cfg;
    sv_trial_stats *per_trial; /* cfg.trials entries */
    sv_summary summary;
    const char *scale_name; /* the --scale choice as written */
    double *row_sums;       /* with --per-row: n_q x SV_ROW_FIELDS sums over trials */
    uint64_t *hist;         /* with --histogram: raw then scaled counts, bins each */
} cli_result;

/* Bin edges of the score histogram of one configuration: +-6 sd of the raw
 * scores by theory (sqrt(d_k) where there is none). */
void cli_histogram_range(const sv_config *cfg, double *lo, double *hi);

void cli_write_csv(FILE *f, const cli_options *opt, const cli_result *res, size_t n);
void cli_write_table(FILE *f, const cli_options *opt, const cli_result *res, size_t n);

#endif
