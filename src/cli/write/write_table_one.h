/* The table of one configuration (write_table_one.c). */
#ifndef SDPA_VAR_CLI_WRITE_TABLE_ONE_H
#define SDPA_VAR_CLI_WRITE_TABLE_ONE_H

#include <stdio.h>

#include "writer.h"

/* One statistic of a one-configuration table, the terminal's
 * (write_table_one.c) or the slides' (write_slides.c): raw (measured,
 * theory) and scaled (measured, theory), each a summary column times
 * c^power; the measured column's SV_PARTNER_SD gives the sd beside it.
 * One list for both, so a statistic added is added to both, in order. */
typedef struct cli_stat_row {
    const char *label;   /* the terminal's words; NULL: not in the terminal */
    const char *slide;   /* the slides' words; NULL: not on slides */
    sv_column_id col[4]; /* raw measured, raw theory, scaled measured, scaled theory */
    int power[4];
    unsigned flags;    /* CLI_STAT_* */
    sv_column_id gate; /* CLI_STAT_OPTION: the column whose option shows it */
} cli_stat_row;

enum {
    CLI_STAT_SQRT = 1,     /* the square root of all three (the score SD) */
    CLI_STAT_MANY = 2,     /* terminal: only with more than one trial (a spread) */
    CLI_STAT_OPTION = 4,   /* terminal: only when gate must be defined (an option on) */
    CLI_STAT_EXTREMES = 8, /* terminal: the first of the extremes, under their heading */
};

extern const cli_stat_row cli_stat_rows[];
extern const size_t cli_stat_rows_n;

/* One side of a row: its measured value, that value's standard error
 * (cli_table_std_error), its sd across trials and its theory. */
typedef struct cli_stat_side {
    double v, se, sd, t;
} cli_stat_side;

/* Side @p k (0 raw, 1 scaled) of row @p r for @p e; with one trial and
 * @p sd_theory, the sd is its theory (that of one trial), else NAN there.
 * CLI_STAT_SQRT takes the square root of all (d sqrt(x) = dx / (2 sqrt(x))). */
cli_stat_side cli_stat_values(const cli_table_entry *e, const cli_stat_row *r, int k,
                              int sd_theory);

/* The table of one configuration, ending with its verdict. */
void cli_table_one(FILE *f, const cli_table_entry *e);

#endif
