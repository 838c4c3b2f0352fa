/* The column table itself (included once, by columns.c, after the
 * getters): every column's descriptor, then each output's order.
 * Units: "score" is the unit of a raw score S = Q K^T (a product of an
 * entry of Q and one of K); "1" a pure number; "" a label or a count.
 * To add a column: a getter in columns.c, a descriptor here, its id at the
 * END of the orders it belongs to, then regenerate docs/columns.md and
 * README.md (tests/output/columns_doc_test.sh says how). */
#ifndef SDPA_VAR_COLUMNS_TABLE_H
#define SDPA_VAR_COLUMNS_TABLE_H

typedef enum col_id {
    C_dk,
    C_n_q,
    C_n_k,
    C_trials,
    C_seed,
    C_dist,
    C_ddof,
    C_scale,
    C_scale_factor,
    C_nu,
    C_q_mean,
    C_q_std,
    C_k_mean,
    C_k_std,
    C_plant,
    C_d_model,
    C_init,
    C_cross,
    C_d_v,
    C_causal,
    C_qk_norm,
    C_values,
    C_trial,
    C_raw_mean,
    C_raw_var,
    C_scaled_mean,
    C_scaled_var,
    C_raw_entropy,
    C_scaled_entropy,
    C_raw_max_weight,
    C_scaled_max_weight,
    C_raw_jac_trace,
    C_scaled_jac_trace,
    C_raw_var_known_mean,
    C_raw_var_ddof0,
    C_raw_var_ddof1,
    C_raw_jac_frob,
    C_scaled_jac_frob,
    C_raw_eff_keys,
    C_scaled_eff_keys,
    C_raw_entropy_min,
    C_raw_entropy_max,
    C_scaled_entropy_min,
    C_scaled_entropy_max,
    C_raw_max_abs_logit,
    C_raw_diag_logit,
    C_raw_diag_weight,
    C_scaled_diag_weight,
    C_q_var,
    C_k_var,
    C_raw_out_var,
    C_scaled_out_var,
    C_raw_sum_p2,
    C_scaled_sum_p2,
    C_raw_var_theory,
    C_raw_var_expected,
    C_raw_var_sd,
    C_raw_var_sd_theory,
    C_raw_var_q05,
    C_raw_var_q50,
    C_raw_var_q95,
    C_scaled_var_theory,
    C_scaled_var_expected,
    C_scaled_var_sd,
    C_scaled_var_sd_theory,
    C_scaled_var_q05,
    C_scaled_var_q50,
    C_scaled_var_q95,
    C_raw_mean_theory,
    C_raw_entropy_approx,
    C_scaled_entropy_approx,
    C_scaled_max_abs_logit,
    C_raw_fp16_headroom,
    C_scaled_fp16_headroom,
    C_qk_norm_radius,
    C_raw_diag_logit_theory,
    C_scaled_diag_logit,
    C_scaled_diag_logit_theory,
    C_q_var_theory,
    C_k_var_theory,
    C_raw_out_var_theory,
    C_scaled_out_var_theory,
    C_observed,
    C_raw_var_cdf_observed,
    C_row,
    C_keys_seen,
    C_row_raw_entropy,
    C_row_scaled_entropy,
    C_entropy_bound,
    C_row_raw_max_weight,
    C_row_scaled_max_weight,
    C_bin_lo,
    C_bin_hi,
    C_raw_count,
    C_scaled_count,
    C_raw_var_ddof0_theory,
    C_raw_var_ddof1_theory,
    C_summary_entropy_bound,
    C_raw_mean_sd,
    C_scaled_mean_sd,
    C_raw_var_known_mean_sd,
    C_raw_var_ddof0_sd,
    C_raw_var_ddof1_sd,
    C_raw_entropy_sd,
    C_scaled_entropy_sd,
    C_raw_eff_keys_sd,
    C_scaled_eff_keys_sd,
    C_raw_max_weight_sd,
    C_scaled_max_weight_sd,
    C_raw_jac_trace_sd,
    C_scaled_jac_trace_sd,
    C_raw_jac_frob_sd,
    C_scaled_jac_frob_sd,
    C_raw_diag_logit_sd,
    C_raw_diag_weight_sd,
    C_scaled_diag_weight_sd,
    C_q_var_sd,
    C_k_var_sd,
    C_raw_out_var_sd,
    C_scaled_out_var_sd,
    C_grad,
    C_raw_grad_logits,
    C_raw_grad_logits_theory,
    C_scaled_grad_logits,
    C_scaled_grad_logits_theory,
    C_raw_grad_keys,
    C_scaled_grad_keys,
    C_raw_grad_q,
    C_scaled_grad_q,
    C_raw_grad_k,
    C_scaled_grad_k,
    C_raw_grad_logits_sd,
    C_scaled_grad_logits_sd,
    C_raw_grad_keys_sd,
    C_scaled_grad_keys_sd,
    C_raw_grad_q_sd,
    C_scaled_grad_q_sd,
    C_raw_grad_k_sd,
    C_scaled_grad_k_sd,
    C_raw_sink_weight,
    C_scaled_sink_weight,
    C_raw_entropy_norm,
    C_scaled_entropy_norm,
    C_q_mean_measured,
    C_k_mean_measured,
    C_batch,
    C_head,
    C_kv_head,
    C_var_scale,
    C_raw_max_logit,
    C_scaled_max_logit,
    C_rows_empty,
    C_window,
    C_COUNT_
} col_id;

/* Every descriptor names its group (GR: the --columns group, sv_column_group)
 * and SPREAD for a spread across trials; only the group's option in use and
 * SPREAD with two trials put a column in the default output. */
#define GR(g) SV_COLUMN_GROUP_FLAGS(SV_GROUP_##g)
#define SPREAD SV_COLUMN_SPREAD
#define R_(id, g, unit, need, doc) [C_##id] = {#id, unit, doc, SV_VALUE_REAL, need, g, get_##id}
/* Configuration columns. */
#define RC_(id, g, unit, need, doc)                                                                \
    [C_##id] = {#id, unit, doc, SV_VALUE_REAL, need, SV_COLUMN_CONFIG | (g), get_##id}
#define N_(id, g, doc)                                                                             \
    [C_##id] = {#id, "", doc, SV_VALUE_COUNT, SV_NEED_ALWAYS, SV_COLUMN_CONFIG | (g), get_##id}
#define T_(id, g, doc)                                                                             \
    [C_##id] = {#id, "", doc, SV_VALUE_TEXT, SV_NEED_ALWAYS, SV_COLUMN_CONFIG | (g), get_##id}
/* Configuration of random draws only (SV_COLUMN_ONLY_DRAWS). */
#define CD_ (SV_COLUMN_CONFIG | SV_COLUMN_ONLY_DRAWS)
#define RCD_(id, g, unit, need, doc)                                                               \
    [C_##id] = {#id, unit, doc, SV_VALUE_REAL, need, CD_ | (g), get_##id}
#define ND_(id, g, doc)                                                                            \
    [C_##id] = {#id, "", doc, SV_VALUE_COUNT, SV_NEED_ALWAYS, CD_ | (g), get_##id}
#define TD_(id, g, doc)                                                                            \
    [C_##id] = {#id, "", doc, SV_VALUE_TEXT, SV_NEED_ALWAYS, CD_ | (g), get_##id}
/* A count that is not configuration (trial, row). */
#define NR_(id, g, doc) [C_##id] = {#id, "", doc, SV_VALUE_COUNT, SV_NEED_ALWAYS, g, get_##id}
/* A word that is not configuration (the per-head indices). */
#define HT_(id, g, doc) [C_##id] = {#id, "", doc, SV_VALUE_TEXT, SV_NEED_ALWAYS, g, get_##id}
/* --grad's columns: only with it. */
#define G_(id, g, unit, need, doc)                                                                 \
    [C_##id] = {#id, unit, doc, SV_VALUE_REAL, need, SV_COLUMN_ONLY_GRAD | (g), get_##id}
#define A SV_NEED_ALWAYS
#define NONE SV_NEED_NONE

static const sv_column columns[C_COUNT_] = {
    /* The configuration. */
    N_(dk, GR(CORE), "d_k, the length of each query and key vector"),
    N_(n_q, GR(CORE), "number of queries (rows of Q)"),
    N_(n_k, GR(CORE), "number of keys (rows of K)"),
    ND_(trials, GR(CORE), "independent repetitions"),
    ND_(seed, GR(CORE), "the seed: same seed, same numbers"),
    TD_(dist, GR(CORE), "law of the entries of Q and K: normal, uniform, rademacher or t"),
    N_(ddof, GR(DDOF), "delta degrees of freedom of the sample variance"),
    T_(scale, GR(CORE), "the --scale choice as written: sqrt, dk, none, logn or a number"),
    RC_(scale_factor, GR(CORE), "1", A,
        "c, the multiplier: the scaled logits are c S (with --scale logn per row, s of row i's c_i "
        "= s ln n_i)"),
    RCD_(nu, GR(CORE), "1", SV_NEED_STUDENT_T,
         "degrees of freedom of Student's t; nan for other laws"),
    RCD_(q_mean, GR(DRAW), "1", A, "mean of an entry of Q"),
    RCD_(q_std, GR(DRAW), "1", A, "standard deviation of an entry of Q"),
    RCD_(k_mean, GR(DRAW), "1", A, "mean of an entry of K"),
    RCD_(k_std, GR(DRAW), "1", A, "standard deviation of an entry of K"),
    RCD_(plant, GR(PLANT), "1", A,
         "rho of the planted key (key i = rho q_i + sqrt(1 - rho^2) z_i); 0: none"),
    ND_(d_model, GR(PROJECTION),
        "D with projections Q = X W_Q, K = X W_K; 0: Q and K drawn directly"),
    TD_(init, GR(PROJECTION),
        "initialisation of W_Q and W_K: xavier, lecun, normal; none without d_model"),
    ND_(cross, GR(PROJECTION), "1: keys from their own tokens (cross-attention); 0 otherwise"),
    RC_(d_v, GR(VALUES), "", SV_NEED_VALUES, "columns of V with --values; nan without"),
    N_(causal, GR(CAUSAL), "1: query i sees keys 0..i only; 0 otherwise"),
    ND_(qk_norm, GR(QK_NORM), "1: rows of Q and K rescaled to norm qk_norm_radius; 0 otherwise"),
    N_(values, GR(VALUES), "1: V drawn and the output O = softmax(S) V formed; 0 otherwise"),
    NR_(trial, GR(CORE), "the trial's number (its random streams), from 0"),
    /* Per-trial statistics; in a summary, their mean over trials. */
    R_(raw_mean, GR(CORE), "score", A,
       "mean of the N scores S = Q K^T (N = n_q n_k, or n(n+1)/2 causal)"),
    R_(raw_var, GR(CORE), "score^2", A, "their sample variance, sum (S - mean)^2 / (N - ddof)"),
    R_(scaled_mean, GR(CORE), "score", A, "raw_mean * c; per row, the mean of the c_i S_ij"),
    R_(scaled_var, GR(CORE), "score^2", A, "raw_var * c^2; per row, the variance of the c_i S_ij"),
    R_(raw_entropy, GR(CORE), "nats", A, "softmax entropy of a row of raw logits, mean over rows"),
    R_(scaled_entropy, GR(CORE), "nats", A, "the same for the scaled logits c S"),
    R_(raw_max_weight, GR(CORE), "1", A, "largest softmax weight of a row, mean over rows"),
    R_(scaled_max_weight, GR(CORE), "1", A, "the same for the scaled logits"),
    R_(raw_jac_trace, GR(CORE), "1", A,
       "trace of the softmax Jacobian, 1 - sum p_j^2, mean over rows"),
    R_(scaled_jac_trace, GR(CORE), "1", A, "the same for the scaled logits"),
    R_(raw_var_known_mean, GR(VARIANCE), "score^2", SV_NEED_KNOWN_MEAN,
       "sum (S - E[S])^2 / N about the known mean E[S]"),
    R_(raw_var_ddof0, GR(VARIANCE), "score^2", A, "sum (S - mean)^2 / N, whatever ddof is"),
    R_(raw_var_ddof1, GR(VARIANCE), "score^2", SV_NEED_SCORES2,
       "sum (S - mean)^2 / (N - 1); nan for N = 1"),
    R_(raw_jac_frob, GR(JACOBIAN), "1", A,
       "Frobenius norm of the softmax Jacobian, mean over rows"),
    R_(scaled_jac_frob, GR(JACOBIAN), "1", A, "the same for the scaled logits"),
    R_(raw_eff_keys, GR(CORE), "keys", A,
       "exp(entropy), the effective number of keys, mean over rows"),
    R_(scaled_eff_keys, GR(CORE), "keys", A, "the same for the scaled logits"),
    R_(raw_entropy_min, GR(ENTROPY), "nats", A,
       "smallest row entropy of a trial; in a summary, the smallest over all trials"),
    R_(raw_entropy_max, GR(ENTROPY), "nats", A,
       "largest row entropy of a trial; in a summary, the largest over all trials"),
    R_(scaled_entropy_min, GR(ENTROPY), "nats", A, "raw_entropy_min for the scaled logits"),
    R_(scaled_entropy_max, GR(ENTROPY), "nats", A, "raw_entropy_max for the scaled logits"),
    R_(raw_max_abs_logit, GR(LOGITS), "score", A,
       "largest |S_ij| of a trial; in a summary, the largest over all trials"),
    R_(raw_diag_logit, GR(DIAG), "score", SV_NEED_DIAG,
       "S_ii, mean over i, when query i and key i are related (plant, self-attention "
       "projections); nan otherwise"),
    R_(raw_diag_weight, GR(DIAG), "1", SV_NEED_DIAG,
       "softmax weight of key i in row i, raw logits"),
    R_(scaled_diag_weight, GR(DIAG), "1", SV_NEED_DIAG, "the same for the scaled logits"),
    R_(q_var, GR(INPUTS), "1", SV_NEED_QK_VAR,
       "sample variance (ddof 0) of the entries of Q in one trial"),
    R_(k_var, GR(INPUTS), "1", SV_NEED_QK_VAR, "the same for K"),
    R_(raw_out_var, GR(VALUES), "1", SV_NEED_VALUES,
       "mean square of the entries of O = softmax(S) V, with --values; nan otherwise"),
    R_(scaled_out_var, GR(VALUES), "1", SV_NEED_VALUES, "the same with softmax(c S)"),
    R_(raw_sum_p2, GR(VALUES), "1", A, "sum p_j^2 of a row, mean over rows: what Var(O) should be"),
    R_(scaled_sum_p2, GR(VALUES), "1", A, "the same for the scaled logits"),
    /* Summary only: spreads across trials and theory. */
    R_(raw_var_theory, GR(CORE), "score^2", NONE,
       "E[raw_var_known_mean]: variance of the visible scores about their mean (d_k for unit "
       "entries; a mixture with plant or self-attention); nan where no closed form"),
    R_(raw_var_expected, GR(THEORY), "score^2", NONE,
       "E[raw_var], the theory of the mean sample variance; nan where no closed form"),
    R_(raw_var_sd, GR(CORE) | SPREAD, "score^2", SV_NEED_TRIALS2,
       "standard deviation of raw_var across trials (ddof 1); nan for one trial"),
    R_(raw_var_sd_theory, GR(THEORY), "score^2", NONE,
       "its theory (docs/theory.md); nan where none"),
    R_(raw_var_q05, GR(QUANTILES), "score^2", A,
       "5 % quantile of raw_var across trials (numpy's 'linear')"),
    R_(raw_var_q50, GR(QUANTILES), "score^2", A, "median of raw_var across trials"),
    R_(raw_var_q95, GR(QUANTILES), "score^2", A, "95 % quantile of raw_var across trials"),
    R_(scaled_var_theory, GR(CORE), "score^2", NONE,
       "raw_var_theory * c^2 (per row: docs/theory.md 15.1)"),
    R_(scaled_var_expected, GR(THEORY), "score^2", NONE,
       "raw_var_expected * c^2 (per row: docs/theory.md 15.1)"),
    R_(scaled_var_sd, GR(CORE) | SPREAD, "score^2", SV_NEED_TRIALS2,
       "standard deviation of scaled_var across trials"),
    R_(scaled_var_sd_theory, GR(THEORY), "score^2", NONE, "raw_var_sd_theory * c^2"),
    R_(scaled_var_q05, GR(QUANTILES), "score^2", A, "5 % quantile of scaled_var across trials"),
    R_(scaled_var_q50, GR(QUANTILES), "score^2", A, "median of scaled_var across trials"),
    R_(scaled_var_q95, GR(QUANTILES), "score^2", A, "95 % quantile of scaled_var across trials"),
    R_(raw_mean_theory, GR(THEORY), "score", NONE,
       "E[raw_mean], planted scores included; nan where no closed form"),
    R_(raw_entropy_approx, GR(THEORY), "nats", NONE,
       "ln(keys) - sigma^2 / 2, sigma^2 the variance of a row's logits; nan where that "
       "approximation does not hold"),
    R_(scaled_entropy_approx, GR(THEORY), "nats", NONE, "the same for the scaled logits"),
    R_(scaled_max_abs_logit, GR(LOGITS), "score", SV_NEED_ONE_SCALE, "raw_max_abs_logit * c"),
    R_(raw_fp16_headroom, GR(LOGITS), "1", A,
       "65504 / raw_max_abs_logit: how far from float16 overflow"),
    R_(scaled_fp16_headroom, GR(LOGITS), "1", SV_NEED_ONE_SCALE, "65504 / scaled_max_abs_logit"),
    R_(qk_norm_radius, GR(QK_NORM), "1", SV_NEED_QK_NORM,
       "the row norm R under QK-norm; nan without"),
    R_(raw_diag_logit_theory, GR(DIAG), "score", NONE, "E[S_ii] of a related pair; nan where none"),
    R_(scaled_diag_logit, GR(DIAG), "score", SV_NEED_DIAG, "raw_diag_logit * c"),
    R_(scaled_diag_logit_theory, GR(DIAG), "score", NONE, "raw_diag_logit_theory * c"),
    R_(q_var_theory, GR(INPUTS), "1", NONE,
       "E[q_var]: (M - 1) / M of an entry's variance, M = n_q d_k; nan where q_var is"),
    R_(k_var_theory, GR(INPUTS), "1", NONE,
       "E[k_var], the same for K (M = n_k d_k); nan where k_var is"),
    R_(raw_out_var_theory, GR(VALUES), "1", SV_NEED_VALUES,
       "theory of raw_out_var: the measured mean of sum p_j^2 (V has variance 1); nan "
       "without --values"),
    R_(scaled_out_var_theory, GR(VALUES), "1", SV_NEED_VALUES, "the same for the scaled logits"),
    [C_observed] = {"observed", "score^2", "the --observed value V (only with --observed)",
                    SV_VALUE_REAL, SV_NEED_OBSERVED, SV_COLUMN_ONLY_OBSERVED | GR(OBSERVED),
                    get_observed},
    [C_raw_var_cdf_observed] = {"raw_var_cdf_observed", "1",
                                "fraction of trials with raw_var <= V (only with --observed)",
                                SV_VALUE_REAL, SV_NEED_OBSERVED,
                                SV_COLUMN_ONLY_OBSERVED | GR(OBSERVED), get_raw_var_cdf_observed},
    /* Per row: one query position, means over trials. */
    NR_(row, GR(CORE), "the query position i, from 0"),
    NR_(keys_seen, GR(CORE),
        "keys row i sees: n_k, or i + 1 when causal, its window's with --window"),
    [C_row_raw_entropy] = {"raw_entropy", "nats", "softmax entropy of row i, mean over trials",
                           SV_VALUE_REAL, A, GR(CORE), get_row_raw_entropy},
    [C_row_scaled_entropy] = {"scaled_entropy", "nats", "the same for the scaled logits",
                              SV_VALUE_REAL, A, GR(CORE), get_row_scaled_entropy},
    R_(entropy_bound, GR(CORE), "nats", A, "ln keys_seen, the entropy of a uniform row"),
    [C_row_raw_max_weight] = {"raw_max_weight", "1",
                              "largest softmax weight of row i, mean over trials", SV_VALUE_REAL, A,
                              GR(CORE), get_row_raw_max_weight},
    [C_row_scaled_max_weight] = {"scaled_max_weight", "1", "the same for the scaled logits",
                                 SV_VALUE_REAL, A, GR(CORE), get_row_scaled_max_weight},
    R_(raw_var_ddof0_theory, GR(THEORY), "score^2", NONE, "theory of raw_var_ddof0 (E[M2] / N)"),
    R_(raw_var_ddof1_theory, GR(THEORY), "score^2", NONE,
       "theory of raw_var_ddof1 (E[M2] / (N - 1))"),
    [C_summary_entropy_bound] = {"entropy_bound", "nats",
                                 "ln(keys seen), mean over rows: the entropy of uniform rows "
                                 "(ln n_k; ln(n!) / n when causal)",
                                 SV_VALUE_REAL, A, GR(CORE), get_summary_entropy_bound},
    /* --grad: L = sum_i g_i . o_i, O = softmax(c S) V, V and G of standard entries. */
    [C_grad] = {"grad", "", "1: V and G drawn and the gradients of L = sum g_i . o_i formed",
                SV_VALUE_COUNT, A, SV_COLUMN_CONFIG | SV_COLUMN_ONLY_GRAD | GR(GRAD), get_grad},
    G_(raw_grad_logits, GR(GRAD), "1", SV_NEED_GRAD,
       "root mean square over rows (and trials) of |dL/dz_i|, z_i = S_i the raw logits of row i"),
    G_(raw_grad_logits_theory, GR(GRAD), "1", SV_NEED_GRAD,
       "sqrt(d_v mean |J_i|_F^2), J = diag(p) - p p^T: raw_grad_logits' exact value given the "
       "weights (docs/theory.md)"),
    G_(scaled_grad_logits, GR(GRAD), "1", SV_NEED_GRAD,
       "raw_grad_logits for the scaled logits z_i = c S_i"),
    G_(scaled_grad_logits_theory, GR(GRAD), "1", SV_NEED_GRAD, "raw_grad_logits_theory for them"),
    G_(raw_grad_keys, GR(GRAD), "keys", SV_NEED_GRAD,
       "(sum_j g_j^2)^2 / sum_j g_j^4 for g = dL/dz_i, mean over rows: the keys the logit "
       "gradient reaches (beside eff_keys); 0 for a row with one key. No theory: it depends "
       "on the law of the weights, not on its moments"),
    G_(scaled_grad_keys, GR(GRAD), "keys", SV_NEED_GRAD, "the same for the scaled logits"),
    G_(raw_grad_q, GR(GRAD), "1", SV_NEED_GRAD,
       "root mean square over rows of |dL/dq_i| = |c sum_j g_ij k_j|, raw (c = 1). No theory "
       "column: given p it needs K too (docs/theory.md)"),
    G_(scaled_grad_q, GR(GRAD), "1", SV_NEED_GRAD,
       "the same for the scaled logits, the factor c included"),
    G_(raw_grad_k, GR(GRAD), "1", SV_NEED_GRAD,
       "root mean square over keys of |dL/dk_j| = |c sum_i g_ij q_i|, raw (c = 1); no theory "
       "column"),
    G_(scaled_grad_k, GR(GRAD), "1", SV_NEED_GRAD,
       "the same for the scaled logits, the factor c included"),
    /* Their spreads across trials: nan for one trial. */
    G_(raw_grad_logits_sd, GR(GRAD) | SPREAD, "1", NONE,
       "standard deviation of the per-trial root mean square of |dL/dz_i| across trials, to "
       "first order (delta method: sd of the mean square / (2 raw_grad_logits)); nan for one "
       "trial"),
    G_(scaled_grad_logits_sd, GR(GRAD) | SPREAD, "1", NONE, "the same for scaled_grad_logits"),
    G_(raw_grad_keys_sd, GR(GRAD) | SPREAD, "keys", NONE,
       "standard deviation of raw_grad_keys across trials (ddof 1); nan for one trial"),
    G_(scaled_grad_keys_sd, GR(GRAD) | SPREAD, "keys", NONE, "the same for scaled_grad_keys"),
    G_(raw_grad_q_sd, GR(GRAD) | SPREAD, "1", NONE, "as raw_grad_logits_sd, for raw_grad_q"),
    G_(scaled_grad_q_sd, GR(GRAD) | SPREAD, "1", NONE, "the same for scaled_grad_q"),
    G_(raw_grad_k_sd, GR(GRAD) | SPREAD, "1", NONE, "as raw_grad_logits_sd, for raw_grad_k"),
    G_(scaled_grad_k_sd, GR(GRAD) | SPREAD, "1", NONE, "the same for scaled_grad_k"),
    /* Histogram. */
    R_(bin_lo, GR(CORE), "score", A, "lower edge of the bin (a weight with --weight-histogram)"),
    R_(bin_hi, GR(CORE), "score", A, "upper edge of the bin"),
    [C_raw_count] = {"raw_count", "", "raw scores (weights) in the bin, over all trials",
                     SV_VALUE_COUNT, A, GR(CORE), get_raw_count},
    /* Spreads across trials of every statistic shown as a mean. */
    R_(raw_mean_sd, GR(SD) | SPREAD, "score", SV_NEED_TRIALS2,
       "standard deviation of raw_mean across trials (ddof 1); nan for one trial"),
    R_(scaled_mean_sd, GR(SD) | SPREAD, "score", SV_NEED_TRIALS2, "the same for scaled_mean"),
    R_(raw_var_known_mean_sd, GR(SD) | SPREAD, "score^2", NONE,
       "the same for raw_var_known_mean; nan where it is"),
    R_(raw_var_ddof0_sd, GR(SD) | SPREAD, "score^2", SV_NEED_TRIALS2, "the same for raw_var_ddof0"),
    R_(raw_var_ddof1_sd, GR(SD) | SPREAD, "score^2", NONE,
       "the same for raw_var_ddof1; nan where it is"),
    R_(raw_entropy_sd, GR(SD) | SPREAD, "nats", SV_NEED_TRIALS2, "the same for raw_entropy"),
    R_(scaled_entropy_sd, GR(SD) | SPREAD, "nats", SV_NEED_TRIALS2, "the same for scaled_entropy"),
    R_(raw_eff_keys_sd, GR(SD) | SPREAD, "keys", SV_NEED_TRIALS2, "the same for raw_eff_keys"),
    R_(scaled_eff_keys_sd, GR(SD) | SPREAD, "keys", SV_NEED_TRIALS2,
       "the same for scaled_eff_keys"),
    R_(raw_max_weight_sd, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2, "the same for raw_max_weight"),
    R_(scaled_max_weight_sd, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2,
       "the same for scaled_max_weight"),
    R_(raw_jac_trace_sd, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2, "the same for raw_jac_trace"),
    R_(scaled_jac_trace_sd, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2, "the same for scaled_jac_trace"),
    R_(raw_jac_frob_sd, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2, "the same for raw_jac_frob"),
    R_(scaled_jac_frob_sd, GR(SD) | SPREAD, "1", SV_NEED_TRIALS2, "the same for scaled_jac_frob"),
    R_(raw_diag_logit_sd, GR(DIAG) | SPREAD, "score", NONE,
       "the same for raw_diag_logit; nan where it is"),
    R_(raw_diag_weight_sd, GR(DIAG) | SPREAD, "1", NONE,
       "the same for raw_diag_weight; nan where it is"),
    R_(scaled_diag_weight_sd, GR(DIAG) | SPREAD, "1", NONE,
       "the same for scaled_diag_weight; nan where it is"),
    R_(q_var_sd, GR(INPUTS) | SPREAD, "1", NONE, "the same for q_var; nan where it is"),
    R_(k_var_sd, GR(INPUTS) | SPREAD, "1", NONE, "the same for k_var; nan where it is"),
    R_(raw_out_var_sd, GR(VALUES) | SPREAD, "1", NONE, "the same for raw_out_var; nan where it is"),
    R_(scaled_out_var_sd, GR(VALUES) | SPREAD, "1", NONE,
       "the same for scaled_out_var; nan where it is"),
    /* Issue 16: attention sinks and normalised entropy (Xiao et al. 2023). */
    R_(raw_sink_weight, GR(SINK), "1", A,
       "softmax weight of key 0 (every row sees it, causal too), mean over rows: the "
       "attention-sink share; 1 / n_k for uniform rows"),
    R_(scaled_sink_weight, GR(SINK), "1", A, "the same for the scaled logits"),
    R_(raw_entropy_norm, GR(ENTROPY), "1", SV_NEED_KEYS2,
       "row entropy / ln(keys the row sees) (n_k, or i + 1 when causal), mean over the rows "
       "that see at least 2 keys: 1 uniform, 0 one-hot; nan if no row does"),
    R_(scaled_entropy_norm, GR(ENTROPY), "1", SV_NEED_KEYS2, "the same for the scaled logits"),
    R_(q_mean_measured, GR(INPUTS), "1", SV_NEED_QK_VAR,
       "mean of the entries of Q, measured (d_model, qk_norm or loaded arrays); nan otherwise"),
    R_(k_mean_measured, GR(INPUTS), "1", SV_NEED_QK_VAR, "the same for K"),
    /* Per head: which (batch, head) of the files, "all" for the pooled row. */
    HT_(batch, GR(CORE), "index along the batch axis of Q (0 for 2-D and 3-D files); all: pooled"),
    HT_(head, GR(CORE),
        "Q's head, from 0 (0 for 2-D files); all: the pooled row, means over heads"),
    HT_(kv_head, GR(CORE),
        "K's (and V's) head it reads: head / (heads_q / heads_kv), as repeat_kv"),
    R_(var_scale, GR(CORE), "1/score", A,
       "1 / sqrt(raw_var): the scale that would bring this head's score variance to 1; "
       "compare with scale_factor (1/sqrt(d_k) by default)"),
    /* Issue 23: the signed max logit (QK-clip's S_max) and masked rows. */
    R_(raw_max_logit, GR(LOGITS), "score", A,
       "largest S_ij (signed) over the scores rows see, the S_max that QK-clip bounds; in a "
       "summary or pooled row, the largest over all trials"),
    R_(scaled_max_logit, GR(LOGITS), "score", SV_NEED_ONE_SCALE, "raw_max_logit * c"),
    R_(rows_empty, GR(CAUSAL), "", SV_NEED_WINDOW,
       "query rows that see no key (a mask or window excludes every key), left out of every "
       "mean over rows; in a summary, the mean over trials"),
    /* A count like N_, in the default output only with a window. */
    [C_window] = {"window", "",
                  "W of a sliding window: with causal query i sees keys i-W+1..i, without "
                  "|i - j| < W; 0: none",
                  SV_VALUE_COUNT, SV_NEED_WINDOW, SV_COLUMN_CONFIG | GR(CAUSAL), get_window},
    [C_scaled_count] = {"scaled_count", "", "scaled scores (weights) in the bin", SV_VALUE_COUNT, A,
                        GR(CORE), get_scaled_count},
};

#undef R_
#undef RC_
#undef N_
#undef T_
#undef RCD_
#undef ND_
#undef TD_
#undef NR_
#undef HT_
#undef G_
#undef GR
#undef SPREAD
#undef CD_
#undef A
#undef NONE

/* Output orders. Existing positions never move: append only. */
static const col_id summary_ids[] = {
    C_dk, C_n_q, C_n_k, C_trials, C_seed, C_dist, C_ddof, C_raw_mean, C_raw_var, C_raw_var_theory,
    C_raw_var_expected, C_raw_var_sd, C_raw_var_sd_theory, C_raw_var_q05, C_raw_var_q50,
    C_raw_var_q95, C_scaled_mean, C_scaled_var, C_scaled_var_theory, C_scaled_var_expected,
    C_scaled_var_sd, C_scaled_var_sd_theory, C_scaled_var_q05, C_scaled_var_q50, C_scaled_var_q95,
    C_raw_entropy, C_scaled_entropy, C_raw_max_weight, C_scaled_max_weight, C_raw_jac_trace,
    C_scaled_jac_trace,
    /* Beyond the first issue's columns: the experiments of the notes. */
    C_scale, C_scale_factor, C_nu, C_q_mean, C_q_std, C_k_mean, C_k_std, C_raw_mean_theory,
    C_raw_var_known_mean, C_raw_var_ddof0, C_raw_var_ddof1, C_raw_jac_frob, C_scaled_jac_frob,
    C_raw_eff_keys, C_scaled_eff_keys, C_raw_entropy_min, C_raw_entropy_max, C_scaled_entropy_min,
    C_scaled_entropy_max, C_raw_entropy_approx, C_scaled_entropy_approx, C_raw_max_abs_logit,
    C_scaled_max_abs_logit, C_raw_fp16_headroom, C_scaled_fp16_headroom, C_qk_norm_radius, C_plant,
    C_raw_diag_logit, C_raw_diag_logit_theory, C_scaled_diag_logit, C_scaled_diag_logit_theory,
    C_raw_diag_weight, C_scaled_diag_weight, C_d_model, C_init, C_cross, C_q_var, C_q_var_theory,
    C_k_var, C_k_var_theory, C_d_v, C_raw_out_var, C_raw_out_var_theory, C_scaled_out_var,
    C_scaled_out_var_theory,
    /* Since the column table: the rest of the configuration. */
    C_causal, C_qk_norm, C_values, C_raw_var_ddof0_theory, C_raw_var_ddof1_theory,
    C_summary_entropy_bound,
    /* Appended later: the spread across trials of every mean. */
    C_raw_mean_sd, C_scaled_mean_sd, C_raw_var_known_mean_sd, C_raw_var_ddof0_sd,
    C_raw_var_ddof1_sd, C_raw_entropy_sd, C_scaled_entropy_sd, C_raw_eff_keys_sd,
    C_scaled_eff_keys_sd, C_raw_max_weight_sd, C_scaled_max_weight_sd, C_raw_jac_trace_sd,
    C_scaled_jac_trace_sd, C_raw_jac_frob_sd, C_scaled_jac_frob_sd, C_raw_diag_logit_sd,
    C_raw_diag_weight_sd, C_scaled_diag_weight_sd, C_q_var_sd, C_k_var_sd, C_raw_out_var_sd,
    C_scaled_out_var_sd,
    /* Only with --observed. */
    C_observed, C_raw_var_cdf_observed,
    /* Only with --grad. */
    C_grad, C_raw_grad_logits, C_raw_grad_logits_theory, C_scaled_grad_logits,
    C_scaled_grad_logits_theory, C_raw_grad_keys, C_scaled_grad_keys, C_raw_grad_q, C_scaled_grad_q,
    C_raw_grad_k, C_scaled_grad_k, C_raw_grad_logits_sd, C_scaled_grad_logits_sd,
    C_raw_grad_keys_sd, C_scaled_grad_keys_sd, C_raw_grad_q_sd, C_scaled_grad_q_sd, C_raw_grad_k_sd,
    C_scaled_grad_k_sd,
    /* Appended later: attention sinks and normalised entropy. */
    C_raw_sink_weight, C_scaled_sink_weight, C_raw_entropy_norm, C_scaled_entropy_norm,
    /* Then: signed max logit, rows that see no key, the window. */
    C_raw_max_logit, C_scaled_max_logit, C_rows_empty, C_window};

static const col_id per_trial_ids[] = {
    C_trial, C_dk, C_n_q, C_n_k, C_raw_mean, C_raw_var, C_scaled_mean, C_scaled_var, C_raw_entropy,
    C_scaled_entropy, C_raw_max_weight, C_scaled_max_weight, C_raw_jac_trace, C_scaled_jac_trace,
    C_raw_var_known_mean, C_raw_var_ddof0, C_raw_var_ddof1, C_raw_jac_frob, C_scaled_jac_frob,
    C_raw_eff_keys, C_scaled_eff_keys, C_raw_entropy_min, C_raw_entropy_max, C_scaled_entropy_min,
    C_scaled_entropy_max, C_raw_max_abs_logit, C_raw_diag_logit, C_raw_diag_weight,
    C_scaled_diag_weight, C_q_var, C_k_var, C_raw_out_var, C_scaled_out_var, C_raw_sum_p2,
    C_scaled_sum_p2,
    /* The configuration, so that concatenated runs describe themselves. */
    C_scale, C_scale_factor, C_trials, C_seed, C_dist, C_nu, C_ddof, C_q_mean, C_q_std, C_k_mean,
    C_k_std, C_plant, C_d_model, C_init, C_cross, C_causal, C_qk_norm, C_values, C_d_v,
    /* Only with --grad. */
    C_grad, C_raw_grad_logits, C_raw_grad_logits_theory, C_scaled_grad_logits,
    C_scaled_grad_logits_theory, C_raw_grad_keys, C_scaled_grad_keys, C_raw_grad_q, C_scaled_grad_q,
    C_raw_grad_k, C_scaled_grad_k,
    /* Appended later: attention sinks, normalised entropy, measured means. */
    C_raw_sink_weight, C_scaled_sink_weight, C_raw_entropy_norm, C_scaled_entropy_norm,
    C_q_mean_measured, C_k_mean_measured,
    /* Then: signed max logit, rows that see no key, the window. */
    C_raw_max_logit, C_scaled_max_logit, C_rows_empty, C_window};

static const col_id per_row_ids[] = {
    C_dk, C_scale, C_row, C_keys_seen, C_row_raw_entropy, C_row_scaled_entropy, C_entropy_bound,
    C_row_raw_max_weight, C_row_scaled_max_weight,
    /* The configuration, so that concatenated runs describe themselves. */
    C_n_q, C_n_k, C_trials, C_seed, C_dist, C_nu, C_ddof, C_scale_factor, C_q_mean, C_q_std,
    C_k_mean, C_k_std, C_plant, C_d_model, C_init, C_cross, C_causal, C_qk_norm, C_values, C_d_v,
    /* Appended later: the window. */
    C_window};

static const col_id histogram_ids[] = {C_bin_lo, C_bin_hi, C_raw_count, C_scaled_count};

/* Measured Q and K: a row per (batch, head) and the pooled row. */
static const col_id per_head_ids[] = {
    C_batch, C_head, C_kv_head, C_dk, C_n_q, C_n_k, C_d_v, C_scale, C_scale_factor, C_causal,
    C_values, C_var_scale, C_raw_mean, C_raw_var, C_scaled_mean, C_scaled_var, C_q_mean_measured,
    C_q_var, C_k_mean_measured, C_k_var,
    /* Plug-in theory: independent entries with this head's measured moments. */
    C_raw_mean_theory, C_raw_var_theory, C_scaled_var_theory,
    /* Softmax rows. */
    C_raw_entropy, C_scaled_entropy, C_raw_entropy_norm, C_scaled_entropy_norm, C_raw_entropy_min,
    C_raw_entropy_max, C_scaled_entropy_min, C_scaled_entropy_max, C_raw_max_weight,
    C_scaled_max_weight, C_raw_eff_keys, C_scaled_eff_keys, C_raw_max_abs_logit,
    C_scaled_max_abs_logit, C_raw_fp16_headroom, C_scaled_fp16_headroom, C_raw_sink_weight,
    C_scaled_sink_weight, C_raw_out_var, C_scaled_out_var, C_raw_sum_p2, C_scaled_sum_p2, C_ddof,
    /* Appended later: signed max logit, rows that see no key; the Jacobian. */
    C_raw_max_logit, C_scaled_max_logit, C_rows_empty, C_raw_jac_trace, C_scaled_jac_trace,
    C_raw_jac_frob, C_scaled_jac_frob, C_window};

#endif
