/* Measured Q, K (and V, a mask) for --q, --k, --v, --mask: each file opened, checked to be
 * a regular file, memory-mapped read-only (never read whole: the engine's
 * strided source reads rows from the mapping) and parsed by the library,
 * which tells .npy from safetensors by the first bytes
 * (sv_tensor_file_parse, tensor_file.h). Then the library checks the arrays (sv_strided_check:
 * their shapes against each other, then, once the run's configurations
 * (one per --scale) are made from the files' sizes and fit in memory,
 * every entry against each configuration). Every failure is one line
 * naming the file and what is wrong (sv_strided_explain; exit status 1).
 *
 * FILE:NAME: an argument that names an existing file is that file, colons
 * and all; else the part before the LAST ':' must name one, and the part
 * after is the safetensors tensor (a .npy file holds one array); an empty
 * NAME ("FILE:") is an error, not FILE's only tensor. */
#ifndef SDPA_VAR_CLI_TENSOR_INPUT_H
#define SDPA_VAR_CLI_TENSOR_INPUT_H

#include <stddef.h>

#include "options.h"

/* One mapped file. */
typedef struct cli_tensor_file {
    const char *arg;  /* the argument as given, FILE[:NAME] (messages) */
    char *path;       /* FILE (owned) */
    const char *name; /* NAME (points into arg), or NULL */
    void *map;        /* its bytes, len of them, or NULL */
    size_t len;
} cli_tensor_file;

/* The files of a run and the arrays the strided source reads. */
typedef struct cli_tensors {
    cli_tensor_file file[4]; /* Q, K, V, mask (arg NULL without --v, --mask) */
    sv_strided arrays;       /* bnhd already turned into bhnd */
} cli_tensors;

/* Opens, maps and checks the files of opt's --q, --k (and --v), then
 * remakes opt->configs (validated with the options' defaults) from them:
 * d_k, n_q, n_k and d_v from the shapes, trials = batch * heads_q, and
 * each --scale item for that d_k, each spec resolved and checked once.
 * From the first mapping until cli_tensors_close, a file cut short under
 * its mapping (SIGBUS, while parsing, scanning or running) ends the
 * process with one line naming that file (write(2)) and status 1 (_exit),
 * after closing committed JSON or table output (cli_interrupt_abandon).
 * @return 1; 0 with one line in err ("FILE: what is wrong", no program
 *         name) after closing what it opened. */
int cli_tensors_open(cli_tensors *t, cli_options *opt, char *err, size_t errlen);

/* Restores the SIGBUS action cli_tensors_open found, unmaps and frees;
 * idempotent. */
void cli_tensors_close(cli_tensors *t);

#endif
