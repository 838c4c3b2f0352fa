/* The table of one configuration (write_table_one.c). */
#ifndef SDPA_VAR_CLI_WRITE_TABLE_ONE_H
#define SDPA_VAR_CLI_WRITE_TABLE_ONE_H

#include <stdio.h>

#include "writer.h"

/* The table of one configuration, ending with its verdict. */
void cli_table_one(FILE *f, const cli_table_entry *e);

#endif
