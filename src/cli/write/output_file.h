/* --output FILE for the formats written to stdout (output_file.c): whole
 * or not at all. */
#ifndef SDPA_VAR_CLI_OUTPUT_FILE_H
#define SDPA_VAR_CLI_OUTPUT_FILE_H

#include <stddef.h>

typedef struct cli_output_file {
    const char *path; /* FILE as given */
    char *tmp;        /* the temporary file beside it (malloc'ed), or NULL: FILE
                         itself (not a regular file: /dev/null, a pipe) */
} cli_output_file;

/* Points stdout at a new temporary file in FILE's directory (or at FILE
 * itself when it exists and is no regular file). 0 and a message in err
 * (naming FILE) when it cannot. */
int cli_output_file_open(cli_output_file *o, const char *path, char *err, size_t errlen);

/* After the run (@p status its exit status): on 0, stdout closed and
 * checked, the temporary file renamed to FILE; else (or when that fails,
 * said in one line naming FILE) the temporary file removed. Returns the
 * exit status. */
int cli_output_file_close(cli_output_file *o, int status);

#endif
