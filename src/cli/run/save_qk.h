/* --save-qk DIR: trial 0's drawn Q and K (and V) as .npy files, so that
 * --q and --k read back the numbers the random run used. */
#ifndef SDPA_VAR_CLI_SAVE_QK_H
#define SDPA_VAR_CLI_SAVE_QK_H

#include <stddef.h>

#include "sdpa_var/sdpa_var.h"

/* Writes DIR/q.npy (n_q x d_k), DIR/k.npy (n_k x d_k) and, with
 * spec->values, DIR/v.npy (n_k x d_v): trial 0 of @p spec's draws (the
 * rows the engine draws, whatever --trials is), float64, C order, .npy
 * version 1.0 (sv_npy_header). DIR is made when missing (its parent must
 * exist). Each file is written to a temporary name in DIR and renamed, so
 * a file of that name is whole or absent. @return 1; 0 with one line in
 * err naming the file and what failed. */
int cli_save_qk(const char *dir, const sv_spec *spec, char *err, size_t errlen);

#endif
