/* Internal: sv_softmax_acc_stats_rows without the Jacobian's Frobenius
 * norm when nobody reads it (the engine's SV_SKIP_JAC_FROB): a square root
 * and a dozen flops a row, a few per cent of a tiny trial. */
#ifndef SDPA_VAR_SOFTMAX_ROWS_H
#define SDPA_VAR_SOFTMAX_ROWS_H

#include "sdpa_var/softmax.h"

/* sv_softmax_acc_stats_rows, the same bits; jac_frob is NAN unless frob. */
sv_status sv__softmax_acc_stats_rows_frob(const sv_softmax_acc *acc, size_t n, double scale,
                                          int frob, sv_softmax_stats *raw,
                                          sv_softmax_stats *scaled);

#endif
