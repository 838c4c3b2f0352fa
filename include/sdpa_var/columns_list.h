/* The column list: one X(...) per column, from which columns.h makes the
 * public ids (SV_COL_id, sv_column_id) and src/report/columns_table.h the
 * descriptors and the partners that sv_column_partner reads. An entry is
 *   X(id, SHAPE, sd, theory, twin, reduce, SHAPE's arguments)
 * id: the column's id (SV_COL_id; C_id in columns.c) and, unless SHAPE
 * is F, its name; getter get_id (columns.c, columns_logits.h). sd: the
 * column of its spread across trials (id_sd); theory: its theory column;
 * twin: raw_* <-> scaled_*; NO for none. The partners are the library's
 * word on how columns relate, so no consumer builds "_sd" names. reduce:
 * sv_column_reduce without SV_REDUCE_. SHAPE (columns_table.h): R a real
 * statistic, RC a real of the configuration, N and T a count and a word of
 * it; RCD, ND, TD the same for random draws only; NR a count that is not
 * configuration; HT a word that is not (per-head indices); G --grad's; F
 * every field written out (name, unit, type, need, flags, doc).
 * Arguments: group, unit, need, doc.
 * Units: "score" is the unit of a raw score S = Q K^T (a product of an
 * entry of Q and one of K); "1" a pure number; "" a label or a count.
 * To add a column: a getter in columns.c, an entry at the END of this list
 * (the ids are public: appended, never renumbered), its id at the END of
 * the orders it belongs to (columns_table.h), then regenerate
 * docs/columns.md and README.md (tests/output/columns_doc_test.sh says how). */
#ifndef SDPA_VAR_COLUMNS_LIST_H
#define SDPA_VAR_COLUMNS_LIST_H

#define SV_COLUMN_LIST(X)                                                                          \
    /* The configuration. */                                                                       \
    X(dk, N, NO, NO, NO, FIRST, GR(CORE), "d_k, the length of each query and key vector")          \
    X(n_q, N, NO, NO, NO, FIRST, GR(CORE), "number of queries (rows of Q)")                        \
    X(n_k, N, NO, NO, NO, FIRST, GR(CORE), "number of keys (rows of K)")                           \
    X(trials, ND, NO, NO, NO, FIRST, GR(CORE), "independent repetitions")                          \
    X(seed, ND, NO, NO, NO, FIRST, GR(CORE), "the seed: same seed, same numbers")                  \
    X(dist, TD, NO, NO, NO, FIRST, GR(CORE),                                                       \
      "law of the entries of Q and K: normal, uniform, rademacher or t")                           \
    X(ddof, N, NO, NO, NO, FIRST, GR(DDOF), "delta degrees of freedom of the sample variance")     \
    X(scale, T, NO, NO, NO, FIRST, GR(CORE),                                                       \
      "the --scale choice as written: sqrt, dk, none, logn or a number")                           \
    X(scale_factor, RC, NO, NO, NO, FIRST, GR(CORE), "1", A,                                       \
      "c, the multiplier: the scaled logits are c S (with --scale logn per row, s of row i's c_i " \
      "= s ln n_i)")                                                                               \
    X(nu, RCD, NO, NO, NO, FIRST, GR(CORE), "1", SV_NEED_STUDENT_T,                                \
      "degrees of freedom of Student's t; nan for other laws")                                     \
    X(q_mean, RCD, NO, NO, NO, FIRST, GR(DRAW), "1", A, "mean of an entry of Q")                   \
    X(q_std, RCD, NO, NO, NO, FIRST, GR(DRAW), "1", A, "standard deviation of an entry of Q")      \
    X(k_mean, RCD, NO, NO, NO, FIRST, GR(DRAW), "1", A, "mean of an entry of K")                   \
    X(k_std, RCD, NO, NO, NO, FIRST, GR(DRAW), "1", A, "standard deviation of an entry of K")      \
    X(plant, RCD, NO, NO, NO, FIRST, GR(PLANT), "1", A,                                            \
      "rho of the planted key (key i = rho q_i + sqrt(1 - rho^2) z_i); 0: none")                   \
    X(d_model, ND, NO, NO, NO, FIRST, GR(PROJECTION),                                              \
      "D with projections Q = X W_Q, K = X W_K; 0: Q and K drawn directly")                        \
    X(init, TD, NO, NO, NO, FIRST, GR(PROJECTION),                                                 \
      "initialisation of W_Q and W_K: xavier, lecun, normal; none without d_model")                \
    X(cross, ND, NO, NO, NO, FIRST, GR(PROJECTION),                                                \
      "1: keys from their own tokens (cross-attention); 0 otherwise")                              \
    X(d_v, RC, NO, NO, NO, FIRST, GR(VALUES), "", SV_NEED_VALUES,                                  \
      "columns of V with --values; nan without")                                                   \
    X(causal, N, NO, NO, NO, FIRST, GR(CAUSAL), "1: query i sees keys 0..i only; 0 otherwise")     \
    X(qk_norm, ND, NO, NO, NO, FIRST, GR(QK_NORM),                                                 \
      "1: rows of Q and K rescaled to norm qk_norm_radius; 0 otherwise")                           \
    X(values, N, NO, NO, NO, FIRST, GR(VALUES),                                                    \
      "1: V drawn and the output O = softmax(S) V formed; 0 otherwise")                            \
    X(trial, NR, NO, NO, NO, NONE, GR(CORE), "the trial's number (its random streams), from 0")    \
    /* Per-trial statistics; in a summary, their mean over trials. */                              \
    X(raw_mean, R, raw_mean_sd, raw_mean_theory, scaled_mean, MEAN, GR(CORE), "score", A,          \
      "mean of the N scores S = Q K^T (N = n_q n_k, or n(n+1)/2 causal)")                          \
    X(raw_var, R, raw_var_sd, raw_var_expected, scaled_var, MEAN, GR(CORE), "score^2", A,          \
      "their sample variance, sum (S - mean)^2 / (N - ddof)")                                      \
    X(scaled_mean, R, scaled_mean_sd, NO, raw_mean, MEAN, GR(CORE), "score", A,                    \
      "raw_mean * c; per row, the mean of the c_i S_ij")                                           \
    X(scaled_var, R, scaled_var_sd, scaled_var_expected, raw_var, MEAN, GR(CORE), "score^2", A,    \
      "raw_var * c^2; per row, the variance of the c_i S_ij")                                      \
    X(raw_entropy, R, raw_entropy_sd, raw_entropy_approx, scaled_entropy, MEAN, GR(CORE), "nats",  \
      A, "softmax entropy of a row of raw logits, mean over rows")                                 \
    X(scaled_entropy, R, scaled_entropy_sd, scaled_entropy_approx, raw_entropy, MEAN, GR(CORE),    \
      "nats", A, "the same for the scaled logits c S")                                             \
    X(raw_max_weight, R, raw_max_weight_sd, NO, scaled_max_weight, MEAN, GR(CORE), "1", A,         \
      "largest softmax weight of a row, mean over rows")                                           \
    X(scaled_max_weight, R, scaled_max_weight_sd, NO, raw_max_weight, MEAN, GR(CORE), "1", A,      \
      "the same for the scaled logits")                                                            \
    X(raw_jac_trace, R, raw_jac_trace_sd, NO, scaled_jac_trace, MEAN, GR(CORE), "1", A,            \
      "trace of the softmax Jacobian, 1 - sum p_j^2, mean over rows")                              \
    X(scaled_jac_trace, R, scaled_jac_trace_sd, NO, raw_jac_trace, MEAN, GR(CORE), "1", A,         \
      "the same for the scaled logits")                                                            \
    X(raw_var_known_mean, R, raw_var_known_mean_sd, raw_var_theory, NO, MEAN, GR(VARIANCE),        \
      "score^2", SV_NEED_KNOWN_MEAN, "sum (S - E[S])^2 / N about the known mean E[S]")             \
    X(raw_var_ddof0, R, raw_var_ddof0_sd, raw_var_ddof0_theory, NO, MEAN, GR(VARIANCE), "score^2", \
      A, "sum (S - mean)^2 / N, whatever ddof is")                                                 \
    X(raw_var_ddof1, R, raw_var_ddof1_sd, raw_var_ddof1_theory, NO, MEAN, GR(VARIANCE), "score^2", \
      SV_NEED_SCORES2, "sum (S - mean)^2 / (N - 1); nan for N = 1")                                \
    X(raw_jac_frob, R, raw_jac_frob_sd, NO, scaled_jac_frob, MEAN, GR(JACOBIAN), "1", A,           \
      "Frobenius norm of the softmax Jacobian, mean over rows")                                    \
    X(scaled_jac_frob, R, scaled_jac_frob_sd, NO, raw_jac_frob, MEAN, GR(JACOBIAN), "1", A,        \
      "the same for the scaled logits")                                                            \
    X(raw_eff_keys, R, raw_eff_keys_sd, NO, scaled_eff_keys, MEAN, GR(CORE), "keys", A,            \
      "exp(entropy), the effective number of keys, mean over rows")                                \
    X(scaled_eff_keys, R, scaled_eff_keys_sd, NO, raw_eff_keys, MEAN, GR(CORE), "keys", A,         \
      "the same for the scaled logits")                                                            \
    X(raw_entropy_min, R, NO, NO, scaled_entropy_min, MIN, GR(ENTROPY), "nats", A,                 \
      "smallest row entropy of a trial; in a summary, the smallest over all trials")               \
    X(raw_entropy_max, R, NO, NO, scaled_entropy_max, MAX, GR(ENTROPY), "nats", A,                 \
      "largest row entropy of a trial; in a summary, the largest over all trials")                 \
    X(scaled_entropy_min, R, NO, NO, raw_entropy_min, MIN, GR(ENTROPY), "nats", A,                 \
      "raw_entropy_min for the scaled logits")                                                     \
    X(scaled_entropy_max, R, NO, NO, raw_entropy_max, MAX, GR(ENTROPY), "nats", A,                 \
      "raw_entropy_max for the scaled logits")                                                     \
    X(raw_max_abs_logit, R, NO, NO, scaled_max_abs_logit, MAX, GR(LOGITS), "score", A,             \
      "largest |S_ij| of a trial; in a summary, the largest over all trials")                      \
    X(raw_diag_logit, R, raw_diag_logit_sd, raw_diag_logit_theory, scaled_diag_logit, MEAN,        \
      GR(DIAG), "score", SV_NEED_DIAG,                                                             \
      "S_ii, mean over i, when query i and key i are related (plant, self-attention "              \
      "projections); nan otherwise")                                                               \
    X(raw_diag_weight, R, raw_diag_weight_sd, NO, scaled_diag_weight, MEAN, GR(DIAG), "1",         \
      SV_NEED_DIAG, "softmax weight of key i in row i, raw logits")                                \
    X(scaled_diag_weight, R, scaled_diag_weight_sd, NO, raw_diag_weight, MEAN, GR(DIAG), "1",      \
      SV_NEED_DIAG, "the same for the scaled logits")                                              \
    X(q_var, R, q_var_sd, q_var_theory, NO, MEAN, GR(INPUTS), "1", SV_NEED_QK_VAR,                 \
      "sample variance (ddof 0) of the entries of Q in one trial")                                 \
    X(k_var, R, k_var_sd, k_var_theory, NO, MEAN, GR(INPUTS), "1", SV_NEED_QK_VAR,                 \
      "the same for K")                                                                            \
    X(raw_out_var, R, raw_out_var_sd, raw_out_var_theory, scaled_out_var, MEAN, GR(VALUES), "1",   \
      SV_NEED_VALUES,                                                                              \
      "mean square of the entries of O = softmax(S) V, with --values; nan otherwise")              \
    X(scaled_out_var, R, scaled_out_var_sd, scaled_out_var_theory, raw_out_var, MEAN, GR(VALUES),  \
      "1", SV_NEED_VALUES, "the same with softmax(c S)")                                           \
    X(raw_sum_p2, R, NO, NO, scaled_sum_p2, MEAN, GR(VALUES), "1", A,                              \
      "sum p_j^2 of a row, mean over rows: what Var(O) should be")                                 \
    X(scaled_sum_p2, R, NO, NO, raw_sum_p2, MEAN, GR(VALUES), "1", A,                              \
      "the same for the scaled logits")                                                            \
    /* Summary only: spreads across trials and theory. */                                          \
    X(raw_var_theory, R, NO, NO, scaled_var_theory, MEAN, GR(CORE), "score^2", NONE,               \
      "E[raw_var_known_mean]: variance of the visible scores about their mean (d_k for unit "      \
      "entries; a mixture with plant or self-attention); nan where no closed form")                \
    X(raw_var_expected, R, NO, NO, scaled_var_expected, MEAN, GR(CORE), "score^2", SV_NEED_THEORY, \
      "E[raw_var], the theory of the mean sample variance; nan where no closed form")              \
    X(raw_var_sd, R, NO, raw_var_sd_theory, scaled_var_sd, NONE, GR(CORE) | SPREAD, "score^2",     \
      SV_NEED_TRIALS2, "standard deviation of raw_var across trials (ddof 1); nan for one trial")  \
    X(raw_var_sd_theory, R, NO, NO, scaled_var_sd_theory, MEAN, GR(CORE), "score^2",               \
      SV_NEED_THEORY, "its theory (docs/theory.md); nan where none")                               \
    X(raw_var_q05, R, NO, NO, scaled_var_q05, NONE, GR(QUANTILES), "score^2", A,                   \
      "5 % quantile of raw_var across trials (numpy's 'linear')")                                  \
    X(raw_var_q50, R, NO, NO, scaled_var_q50, NONE, GR(QUANTILES), "score^2", A,                   \
      "median of raw_var across trials")                                                           \
    X(raw_var_q95, R, NO, NO, scaled_var_q95, NONE, GR(QUANTILES), "score^2", A,                   \
      "95 % quantile of raw_var across trials")                                                    \
    X(scaled_var_theory, R, NO, NO, raw_var_theory, MEAN, GR(CORE), "score^2", NONE,               \
      "raw_var_theory * c^2 (per row: docs/theory.md 15.1)")                                       \
    X(scaled_var_expected, R, NO, NO, raw_var_expected, MEAN, GR(CORE), "score^2", SV_NEED_THEORY, \
      "raw_var_expected * c^2 (per row: docs/theory.md 15.1)")                                     \
    X(scaled_var_sd, R, NO, scaled_var_sd_theory, raw_var_sd, NONE, GR(CORE) | SPREAD, "score^2",  \
      SV_NEED_TRIALS2, "standard deviation of scaled_var across trials")                           \
    X(scaled_var_sd_theory, R, NO, NO, raw_var_sd_theory, MEAN, GR(CORE), "score^2",               \
      SV_NEED_THEORY, "raw_var_sd_theory * c^2")                                                   \
    X(scaled_var_q05, R, NO, NO, raw_var_q05, NONE, GR(QUANTILES), "score^2", A,                   \
      "5 % quantile of scaled_var across trials")                                                  \
    X(scaled_var_q50, R, NO, NO, raw_var_q50, NONE, GR(QUANTILES), "score^2", A,                   \
      "median of scaled_var across trials")                                                        \
    X(scaled_var_q95, R, NO, NO, raw_var_q95, NONE, GR(QUANTILES), "score^2", A,                   \
      "95 % quantile of scaled_var across trials")                                                 \
    X(raw_mean_theory, R, NO, NO, NO, MEAN, GR(THEORY), "score", NONE,                             \
      "E[raw_mean], planted scores included; nan where no closed form")                            \
    X(raw_entropy_approx, R, NO, NO, scaled_entropy_approx, MEAN, GR(THEORY), "nats", NONE,        \
      "ln(keys) - sigma^2 / 2, sigma^2 the variance of a row's logits; nan where that "            \
      "approximation does not hold")                                                               \
    X(scaled_entropy_approx, R, NO, NO, raw_entropy_approx, MEAN, GR(THEORY), "nats", NONE,        \
      "the same for the scaled logits")                                                            \
    X(scaled_max_abs_logit, R, NO, NO, raw_max_abs_logit, MAX, GR(LOGITS), "score",                \
      SV_NEED_ONE_SCALE, "raw_max_abs_logit * c")                                                  \
    X(raw_fp16_headroom, R, NO, NO, scaled_fp16_headroom, MIN, GR(LOGITS), "1", A,                 \
      "65504 / raw_max_abs_logit: how far from float16 overflow")                                  \
    X(scaled_fp16_headroom, R, NO, NO, raw_fp16_headroom, MIN, GR(LOGITS), "1", SV_NEED_ONE_SCALE, \
      "65504 / scaled_max_abs_logit")                                                              \
    X(qk_norm_radius, R, NO, NO, NO, FIRST, GR(QK_NORM), "1", SV_NEED_QK_NORM,                     \
      "the row norm R under QK-norm; nan without")                                                 \
    X(raw_diag_logit_theory, R, NO, NO, scaled_diag_logit_theory, MEAN, GR(DIAG), "score", NONE,   \
      "E[S_ii] of a related pair; nan where none")                                                 \
    X(scaled_diag_logit, R, NO, scaled_diag_logit_theory, raw_diag_logit, MEAN, GR(DIAG), "score", \
      SV_NEED_DIAG, "raw_diag_logit * c")                                                          \
    X(scaled_diag_logit_theory, R, NO, NO, raw_diag_logit_theory, MEAN, GR(DIAG), "score", NONE,   \
      "raw_diag_logit_theory * c")                                                                 \
    X(q_var_theory, R, NO, NO, NO, MEAN, GR(INPUTS), "1", NONE,                                    \
      "E[q_var]: (M - 1) / M of an entry's variance, M = n_q d_k; nan where q_var is")             \
    X(k_var_theory, R, NO, NO, NO, MEAN, GR(INPUTS), "1", NONE,                                    \
      "E[k_var], the same for K (M = n_k d_k); nan where k_var is")                                \
    X(raw_out_var_theory, R, NO, NO, scaled_out_var_theory, MEAN, GR(VALUES), "1", SV_NEED_VALUES, \
      "theory of raw_out_var: the measured mean of sum p_j^2 (V has variance 1); nan "             \
      "without --values")                                                                          \
    X(scaled_out_var_theory, R, NO, NO, raw_out_var_theory, MEAN, GR(VALUES), "1", SV_NEED_VALUES, \
      "the same for the scaled logits")                                                            \
    X(observed, F, NO, NO, NO, FIRST, "observed", "score^2", SV_VALUE_REAL, SV_NEED_OBSERVED,      \
      SV_COLUMN_ONLY_OBSERVED | GR(OBSERVED), "the --observed value V (only with --observed)")     \
    X(raw_var_cdf_observed, F, NO, NO, NO, MEAN, "raw_var_cdf_observed", "1", SV_VALUE_REAL,       \
      SV_NEED_OBSERVED, SV_COLUMN_ONLY_OBSERVED | GR(OBSERVED),                                    \
      "fraction of trials with raw_var <= V (only with --observed)")                               \
    /* Per row: one query position, means over trials. */                                          \
    X(row, NR, NO, NO, NO, FIRST, GR(CORE), "the query position i, from 0")                        \
    X(keys_seen, NR, NO, NO, NO, FIRST, GR(CORE),                                                  \
      "keys row i sees: n_k, or i + 1 when causal, its window's with --window")                    \
    X(row_raw_entropy, F, NO, NO, row_scaled_entropy, MEAN, "raw_entropy", "nats", SV_VALUE_REAL,  \
      A, GR(CORE), "softmax entropy of row i, mean over trials")                                   \
    X(row_scaled_entropy, F, NO, NO, row_raw_entropy, MEAN, "scaled_entropy", "nats",              \
      SV_VALUE_REAL, A, GR(CORE), "the same for the scaled logits")                                \
    X(entropy_bound, R, NO, NO, NO, FIRST, GR(CORE), "nats", A,                                    \
      "ln keys_seen, the entropy of a uniform row")                                                \
    X(row_raw_max_weight, F, NO, NO, row_scaled_max_weight, MEAN, "raw_max_weight", "1",           \
      SV_VALUE_REAL, A, GR(CORE), "largest softmax weight of row i, mean over trials")             \
    X(row_scaled_max_weight, F, NO, NO, row_raw_max_weight, MEAN, "scaled_max_weight", "1",        \
      SV_VALUE_REAL, A, GR(CORE), "the same for the scaled logits")                                \
    X(raw_var_ddof0_theory, R, NO, NO, NO, MEAN, GR(THEORY), "score^2", NONE,                      \
      "theory of raw_var_ddof0 (E[M2] / N)")                                                       \
    X(raw_var_ddof1_theory, R, NO, NO, NO, MEAN, GR(THEORY), "score^2", NONE,                      \
      "theory of raw_var_ddof1 (E[M2] / (N - 1))")                                                 \
    X(summary_entropy_bound, F, NO, NO, NO, FIRST, "entropy_bound", "nats", SV_VALUE_REAL, A,      \
      GR(CORE),                                                                                    \
      "ln(keys seen), mean over rows: the entropy of uniform rows "                                \
      "(ln n_k; ln(n!) / n when causal)")                                                          \
    /* --grad: L = sum_i g_i . o_i, O = softmax(c S) V, V and G of standard entries. */            \
    X(grad, F, NO, NO, NO, FIRST, "grad", "", SV_VALUE_COUNT, A,                                   \
      SV_COLUMN_CONFIG | SV_COLUMN_ONLY_GRAD | GR(GRAD),                                           \
      "1: V and G drawn and the gradients of L = sum g_i . o_i formed")                            \
    X(raw_grad_logits, G, raw_grad_logits_sd, raw_grad_logits_theory, scaled_grad_logits, POOLED,  \
      GR(GRAD), "1", SV_NEED_GRAD,                                                                 \
      "root mean square over rows (and trials) of |dL/dz_i|, z_i = S_i the raw logits of row i")   \
    X(raw_grad_logits_theory, G, NO, NO, scaled_grad_logits_theory, POOLED, GR(GRAD), "1",         \
      SV_NEED_GRAD,                                                                                \
      "sqrt(d_v mean |J_i|_F^2), J = diag(p) - p p^T: raw_grad_logits' exact value given the "     \
      "weights (docs/theory.md)")                                                                  \
    X(scaled_grad_logits, G, scaled_grad_logits_sd, scaled_grad_logits_theory, raw_grad_logits,    \
      POOLED, GR(GRAD), "1", SV_NEED_GRAD, "raw_grad_logits for the scaled logits z_i = c S_i")    \
    X(scaled_grad_logits_theory, G, NO, NO, raw_grad_logits_theory, POOLED, GR(GRAD), "1",         \
      SV_NEED_GRAD, "raw_grad_logits_theory for them")                                             \
    X(raw_grad_keys, G, raw_grad_keys_sd, NO, scaled_grad_keys, MEAN, GR(GRAD), "keys",            \
      SV_NEED_GRAD,                                                                                \
      "(sum_j g_j^2)^2 / sum_j g_j^4 for g = dL/dz_i, mean over rows: the keys the logit "         \
      "gradient reaches (beside eff_keys); 0 for a row with one key. No theory: it depends "       \
      "on the law of the weights, not on its moments")                                             \
    X(scaled_grad_keys, G, scaled_grad_keys_sd, NO, raw_grad_keys, MEAN, GR(GRAD), "keys",         \
      SV_NEED_GRAD, "the same for the scaled logits")                                              \
    X(raw_grad_q, G, raw_grad_q_sd, NO, scaled_grad_q, POOLED, GR(GRAD), "1", SV_NEED_GRAD,        \
      "root mean square over rows of |dL/dq_i| = |c sum_j g_ij k_j|, raw (c = 1). No theory "      \
      "column: given p it needs K too (docs/theory.md)")                                           \
    X(scaled_grad_q, G, scaled_grad_q_sd, NO, raw_grad_q, POOLED, GR(GRAD), "1", SV_NEED_GRAD,     \
      "the same for the scaled logits, the factor c included")                                     \
    X(raw_grad_k, G, raw_grad_k_sd, NO, scaled_grad_k, POOLED, GR(GRAD), "1", SV_NEED_GRAD,        \
      "root mean square over keys of |dL/dk_j| = |c sum_i g_ij q_i|, raw (c = 1); no theory "      \
      "column")                                                                                    \
    X(scaled_grad_k, G, scaled_grad_k_sd, NO, raw_grad_k, POOLED, GR(GRAD), "1", SV_NEED_GRAD,     \
      "the same for the scaled logits, the factor c included")                                     \
    /* Their spreads across trials: nan for one trial. */                                          \
    X(raw_grad_logits_sd, G, NO, NO, scaled_grad_logits_sd, NONE, GR(GRAD) | SPREAD, "1", NONE,    \
      "standard deviation of the per-trial root mean square of |dL/dz_i| across trials, to "       \
      "first order (delta method: sd of the mean square / (2 raw_grad_logits)); nan for one "      \
      "trial")                                                                                     \
    X(scaled_grad_logits_sd, G, NO, NO, raw_grad_logits_sd, NONE, GR(GRAD) | SPREAD, "1", NONE,    \
      "the same for scaled_grad_logits")                                                           \
    X(raw_grad_keys_sd, G, NO, NO, scaled_grad_keys_sd, NONE, GR(GRAD) | SPREAD, "keys", NONE,     \
      "standard deviation of raw_grad_keys across trials (ddof 1); nan for one trial")             \
    X(scaled_grad_keys_sd, G, NO, NO, raw_grad_keys_sd, NONE, GR(GRAD) | SPREAD, "keys", NONE,     \
      "the same for scaled_grad_keys")                                                             \
    X(raw_grad_q_sd, G, NO, NO, scaled_grad_q_sd, NONE, GR(GRAD) | SPREAD, "1", NONE,              \
      "as raw_grad_logits_sd, for raw_grad_q")                                                     \
    X(scaled_grad_q_sd, G, NO, NO, raw_grad_q_sd, NONE, GR(GRAD) | SPREAD, "1", NONE,              \
      "the same for scaled_grad_q")                                                                \
    X(raw_grad_k_sd, G, NO, NO, scaled_grad_k_sd, NONE, GR(GRAD) | SPREAD, "1", NONE,              \
      "as raw_grad_logits_sd, for raw_grad_k")                                                     \
    X(scaled_grad_k_sd, G, NO, NO, raw_grad_k_sd, NONE, GR(GRAD) | SPREAD, "1", NONE,              \
      "the same for scaled_grad_k")                                                                \
    /* Histogram. */                                                                               \
    X(bin_lo, R, NO, NO, NO, FIRST, GR(CORE), "score", A,                                          \
      "lower edge of the bin (a weight with --weight-histogram)")                                  \
    X(bin_hi, R, NO, NO, NO, FIRST, GR(CORE), "score", A, "upper edge of the bin")                 \
    X(raw_count, F, NO, NO, scaled_count, SUM, "raw_count", "", SV_VALUE_COUNT, A, GR(CORE),       \
      "raw scores (weights) in the bin, over all trials")                                          \
    /* Spreads across trials of every statistic shown as a mean. */                                \
    X(raw_mean_sd, R, NO, NO, scaled_mean_sd, NONE, GR(SD) | SPREAD, "score", SV_NEED_TRIALS2,     \
      "standard deviation of raw_mean across trials (ddof 1); nan for one trial")                  \
    X(scaled_mean_sd, R, NO, NO, raw_mean_sd, NONE, GR(SD) | SPREAD, "score", SV_NEED_TRIALS2,     \
      "the same for scaled_mean")                                                                  \
    X(raw_var_known_mean_sd, R, NO, NO, NO, NONE, GR(SD) | SPREAD, "score^2", NONE,                \
      "the same for raw_var_known_mean; nan where it is")                                          \
    X(raw_var_ddof0_sd, R, NO, NO, NO, NONE, GR(SD) | SPREAD, "score^2", SV_NEED_TRIALS2,          \
      "the same for raw_var_ddof0")                                                                \
    X(raw_var_ddof1_sd, R, NO, NO, NO, NONE, GR(SD) | SPREAD, "score^2", NONE,                     \
      "the same for raw_var_ddof1; nan where it is")                                               \
    X(raw_entropy_sd, R, NO, NO, scaled_entropy_sd, NONE, GR(SD) | SPREAD, "nats",                 \
      SV_NEED_TRIALS2, "the same for raw_entropy")                                                 \
    X(scaled_entropy_sd, R, NO, NO, raw_entropy_sd, NONE, GR(SD) | SPREAD, "nats",                 \
      SV_NEED_TRIALS2, "the same for scaled_entropy")                                              \
    X(raw_eff_keys_sd, R, NO, NO, scaled_eff_keys_sd, NONE, GR(SD) | SPREAD, "keys",               \
      SV_NEED_TRIALS2, "the same for raw_eff_keys")                                                \
    X(scaled_eff_keys_sd, R, NO, NO, raw_eff_keys_sd, NONE, GR(SD) | SPREAD, "keys",               \
      SV_NEED_TRIALS2, "the same for scaled_eff_keys")                                             \
    X(raw_max_weight_sd, R, NO, NO, scaled_max_weight_sd, NONE, GR(SD) | SPREAD, "1",              \
      SV_NEED_TRIALS2, "the same for raw_max_weight")                                              \
    X(scaled_max_weight_sd, R, NO, NO, raw_max_weight_sd, NONE, GR(SD) | SPREAD, "1",              \
      SV_NEED_TRIALS2, "the same for scaled_max_weight")                                           \
    X(raw_jac_trace_sd, R, NO, NO, scaled_jac_trace_sd, NONE, GR(SD) | SPREAD, "1",                \
      SV_NEED_TRIALS2, "the same for raw_jac_trace")                                               \
    X(scaled_jac_trace_sd, R, NO, NO, raw_jac_trace_sd, NONE, GR(SD) | SPREAD, "1",                \
      SV_NEED_TRIALS2, "the same for scaled_jac_trace")                                            \
    X(raw_jac_frob_sd, R, NO, NO, scaled_jac_frob_sd, NONE, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2, \
      "the same for raw_jac_frob")                                                                 \
    X(scaled_jac_frob_sd, R, NO, NO, raw_jac_frob_sd, NONE, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2, \
      "the same for scaled_jac_frob")                                                              \
    X(raw_diag_logit_sd, R, NO, NO, NO, NONE, GR(DIAG) | SPREAD, "score", NONE,                    \
      "the same for raw_diag_logit; nan where it is")                                              \
    X(raw_diag_weight_sd, R, NO, NO, scaled_diag_weight_sd, NONE, GR(DIAG) | SPREAD, "1", NONE,    \
      "the same for raw_diag_weight; nan where it is")                                             \
    X(scaled_diag_weight_sd, R, NO, NO, raw_diag_weight_sd, NONE, GR(DIAG) | SPREAD, "1", NONE,    \
      "the same for scaled_diag_weight; nan where it is")                                          \
    X(q_var_sd, R, NO, NO, NO, NONE, GR(INPUTS) | SPREAD, "1", NONE,                               \
      "the same for q_var; nan where it is")                                                       \
    X(k_var_sd, R, NO, NO, NO, NONE, GR(INPUTS) | SPREAD, "1", NONE,                               \
      "the same for k_var; nan where it is")                                                       \
    X(raw_out_var_sd, R, NO, NO, scaled_out_var_sd, NONE, GR(VALUES) | SPREAD, "1", NONE,          \
      "the same for raw_out_var; nan where it is")                                                 \
    X(scaled_out_var_sd, R, NO, NO, raw_out_var_sd, NONE, GR(VALUES) | SPREAD, "1", NONE,          \
      "the same for scaled_out_var; nan where it is")                                              \
    /* Issue 16: attention sinks and normalised entropy (Xiao et al. 2023). */                     \
    X(raw_sink_weight, R, NO, NO, scaled_sink_weight, MEAN, GR(SINK), "1", A,                      \
      "softmax weight of the first key the row sees (key 0 unless a mask or window hides it), "    \
      "mean over rows: the attention-sink share; 1 / (keys seen) for uniform rows")                \
    X(scaled_sink_weight, R, NO, NO, raw_sink_weight, MEAN, GR(SINK), "1", A,                      \
      "the same for the scaled logits")                                                            \
    X(raw_entropy_norm, R, NO, NO, scaled_entropy_norm, MEAN, GR(ENTROPY), "1", SV_NEED_KEYS2,     \
      "row entropy / ln(keys the row sees) (n_k, or i + 1 when causal), mean over the rows "       \
      "that see at least 2 keys: 1 uniform, 0 one-hot; nan if no row does; over trials or heads, " \
      "the mean over those where some row does")                                                   \
    X(scaled_entropy_norm, R, NO, NO, raw_entropy_norm, MEAN, GR(ENTROPY), "1", SV_NEED_KEYS2,     \
      "the same for the scaled logits")                                                            \
    X(q_mean_measured, R, NO, NO, NO, MEAN, GR(INPUTS), "1", SV_NEED_QK_VAR,                       \
      "mean of the entries of Q, measured (d_model, qk_norm or loaded arrays); nan otherwise")     \
    X(k_mean_measured, R, NO, NO, NO, MEAN, GR(INPUTS), "1", SV_NEED_QK_VAR, "the same for K")     \
    /* Per head: which (batch, head) of the files, "all" for the pooled row. */                    \
    X(batch, HT, NO, NO, NO, FIRST, GR(CORE),                                                      \
      "index along the batch axis of Q (0 for 2-D and 3-D files); all: pooled")                    \
    X(head, HT, NO, NO, NO, FIRST, GR(CORE),                                                       \
      "Q's head, from 0 (0 for 2-D files); all: the pooled row, means over heads")                 \
    X(kv_head, HT, NO, NO, NO, FIRST, GR(CORE),                                                    \
      "K's (and V's) head it reads: head / (heads_q / heads_kv), as repeat_kv")                    \
    X(var_scale, R, NO, NO, NO, POOLED, GR(CORE), "1/score", A,                                    \
      "1 / sqrt(raw_var): the scale that would bring this head's score variance to 1; "            \
      "compare with scale_factor (1/sqrt(d_k) by default)")                                        \
    /* Issue 23: the signed max logit (QK-clip's S_max) and masked rows. */                        \
    X(raw_max_logit, R, NO, NO, scaled_max_logit, MAX, GR(LOGITS), "score", A,                     \
      "largest S_ij (signed) over the scores rows see, the S_max that QK-clip bounds; in a "       \
      "summary or pooled row, the largest over all trials")                                        \
    X(scaled_max_logit, R, NO, NO, raw_max_logit, MAX, GR(LOGITS), "score", SV_NEED_ONE_SCALE,     \
      "raw_max_logit * c")                                                                         \
    X(rows_empty, R, NO, NO, NO, SUM, GR(CAUSAL), "", SV_NEED_WINDOW,                              \
      "query rows that see no key (a mask or window excludes every key), left out of every "       \
      "mean over rows; in a summary, the mean over trials")                                        \
    /* A count like N_, in the default output only with a window. */                               \
    X(window, F, NO, NO, NO, FIRST, "window", "", SV_VALUE_COUNT, SV_NEED_WINDOW,                  \
      SV_COLUMN_CONFIG | GR(CAUSAL),                                                               \
      "W of a sliding window: with causal query i sees keys i-W+1..i, without "                    \
      "|i - j| < W; 0: none")                                                                      \
    X(scaled_count, F, NO, NO, raw_count, SUM, "scaled_count", "", SV_VALUE_COUNT, A, GR(CORE),    \
      "scaled scores (weights) in the bin")                                                        \
    /* --logits: one key of one given row at one scale (sv_logits_view); the  */                   \
    /* writer adds the row's Jacobian as jac_0 .. jac_{m-1} after these.      */                   \
    X(logits_row, F, NO, NO, NO, FIRST, "row", "", SV_VALUE_COUNT, A, GR(CORE),                    \
      "the given row, from 0: the --logits rows in order, then the --logits-file rows")            \
    X(logits_scale, F, NO, NO, NO, FIRST, "scale", "", SV_VALUE_TEXT, A,                           \
      SV_COLUMN_CONFIG | GR(CORE),                                                                 \
      "the --scale item as written: none, sqrt, dk, logn or a number")                             \
    X(logits_scale_value, F, NO, NO, NO, FIRST, "scale_value", "1", SV_VALUE_REAL, A,              \
      SV_COLUMN_CONFIG | GR(CORE), "c, the multiplier: the softmax sees c z")                      \
    X(logits_dk, F, NO, NO, NO, FIRST, "dk", "", SV_VALUE_COUNT, A, SV_COLUMN_CONFIG | GR(CORE),   \
      "--dk (what sqrt and dk divide by); the column is there only when --dk is given")            \
    X(logits_n_k, F, NO, NO, NO, FIRST, "n_k", "", SV_VALUE_COUNT, A, GR(CORE), "keys of the row") \
    X(logits_key, F, NO, NO, NO, NONE, "key", "", SV_VALUE_COUNT, A, GR(CORE),                     \
      "the key j, from 0")                                                                         \
    X(logit, R, NO, NO, NO, NONE, GR(CORE), "score", A, "z_j, the logit as given")                 \
    X(scaled_logit, R, NO, NO, NO, NONE, GR(CORE), "score", A, "c z_j, what the softmax sees")     \
    X(weight, R, NO, NO, NO, NONE, GR(CORE), "1", A, "p_j = softmax(c z)_j")                       \
    X(upstream, G, NO, NO, NO, NONE, GR(GRAD), "1", A, "g_j = dL/dp_j, from --upstream")           \
    X(grad_logit, G, NO, NO, NO, NONE, GR(GRAD), "1", A,                                           \
      "dL/d(c z_j) = p_j (g_j - p.g), the j-th entry of J g")                                      \
    X(logits_entropy, F, NO, NO, NO, FIRST, "entropy", "nats", SV_VALUE_REAL, A, GR(CORE),         \
      "softmax entropy of the row at c, H = -sum p_j ln p_j")                                      \
    X(logits_entropy_bound, F, NO, NO, NO, FIRST, "entropy_bound", "nats", SV_VALUE_REAL, A,       \
      GR(CORE), "ln n_k, the entropy of a uniform row")                                            \
    X(logits_eff_keys, F, NO, NO, NO, FIRST, "eff_keys", "keys", SV_VALUE_REAL, A, GR(CORE),       \
      "exp(entropy), the effective number of keys")                                                \
    X(logits_max_weight, F, NO, NO, NO, FIRST, "max_weight", "1", SV_VALUE_REAL, A, GR(CORE),      \
      "the row's largest weight")                                                                  \
    X(logits_jac_trace, F, NO, NO, NO, FIRST, "jac_trace", "1", SV_VALUE_REAL, A, GR(CORE),        \
      "trace of the Jacobian J = diag(p) - p p^T, 1 - sum p_j^2")                                  \
    X(logits_jac_frob, F, NO, NO, NO, FIRST, "jac_frob", "1", SV_VALUE_REAL, A, GR(JACOBIAN),      \
      "Frobenius norm of J")                                                                       \
    X(grad_logits, G, NO, NO, NO, FIRST, GR(GRAD), "1", A,                                         \
      "|J g|, the Euclidean norm of the row's dL/d(c z) (scaled as LAPACK's dnrm2: finite "        \
      "whenever it is)")                                                                           \
    /* end */

#endif
