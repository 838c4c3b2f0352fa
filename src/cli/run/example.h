/* --example: one concrete trial, trial 0 of the run, from the same random
 * streams the engine draws (sv_source_draw), so its numbers are the run's:
 * for small sizes every step as numpy lines: Q, K, S = Q K^T and its
 * sample variance (the "1.6 puzzle" of a student's numpy session), the
 * scaled logits, both softmax matrices, one query's Jacobian, and with
 * --values and --grad V, the outputs, G and the logit gradients; else one
 * query's logits, raw and scaled, and their softmax weights, key by key
 * up to CLI_EXAMPLE_KEYS, the others said in words. */
#ifndef SDPA_VAR_CLI_EXAMPLE_H
#define SDPA_VAR_CLI_EXAMPLE_H

#include <stdio.h>

#include "sdpa_var/sdpa_var.h"
#include "options.h" /* CLI_EXAMPLE_MATRIX_MAX, cli_example_whole */

/* Keys of the query whose logits are printed, at most. */
#define CLI_EXAMPLE_KEYS 10

/* Writes the example of @p spec (resolved, checked) to @p f; @p scale_name
 * is the --scale choice as written. @return SV_OK; SV_ENOMEM; the errors
 * of sv_source_draw. Nothing is written after an error. */
sv_status cli_example(FILE *f, const sv_spec *spec, const char *scale_name);

#endif
