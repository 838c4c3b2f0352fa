/* The table of one configuration (write_table_one.c). */
#ifndef SDPA_VAR_CLI_WRITE_TABLE_ONE_H
#define SDPA_VAR_CLI_WRITE_TABLE_ONE_H

#include <stdio.h>

#include "writer.h"

/* The table of one configuration, ending with its verdict. */
void cli_table_one(FILE *f, const cli_table_entry *e);

/* The standard error of the mean of column @p id (times
 * c^power) over the trials: its sd across trials (its SV_PARTNER_SD) over
 * sqrt(trials); with one trial, the theory's sd of one trial
 * (that sd's SV_PARTNER_THEORY) where there is one; else NAN (NO_COL too). */
double cli_table_std_error(const cli_table_entry *e, sv_column_id id, int power);

#endif
