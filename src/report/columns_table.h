/* The column table itself (included once, by columns.c, after the
 * getters), generated from the column list (columns_list.h): the ids, every
 * column's descriptor and its partners; then each output's order. */
#ifndef SDPA_VAR_COLUMNS_TABLE_H
#define SDPA_VAR_COLUMNS_TABLE_H

#include "sdpa_var/columns_list.h"

/* C_id for each column, in the list's order; C_NO: no partner. */
#define COL_ID_(id, shape, sd, theory, twin, reduce, ...) C_##id,
typedef enum col_id { SV_COLUMN_LIST(COL_ID_) C_COUNT_, C_NO = C_COUNT_ } col_id;
#undef COL_ID_

/* Every entry names its group (GR: the --columns group, sv_column_group)
 * and SPREAD for a spread across trials; only the group's option in use and
 * SPREAD with two trials put a column in the default output. */
#define GR(g) SV_COLUMN_GROUP_FLAGS(SV_GROUP_##g)
#define SPREAD SV_COLUMN_SPREAD
#define A SV_NEED_ALWAYS
#define NONE SV_NEED_NONE
/* The shapes of columns_list.h: a descriptor from (id, its SV_REDUCE_*,
 * arguments). */
#define F_(id, red, name, unit, type, need, flags, doc)                                            \
    {                                                                                              \
        name, unit, doc, type, need, flags, get_##id, red                                          \
    }
#define R_(id, red, g, unit, need, doc) F_(id, red, #id, unit, SV_VALUE_REAL, need, g, doc)
/* Configuration columns; CD_ of random draws only (SV_COLUMN_ONLY_DRAWS). */
#define CD_ (SV_COLUMN_CONFIG | SV_COLUMN_ONLY_DRAWS)
#define RC_(id, red, g, unit, need, doc) R_(id, red, SV_COLUMN_CONFIG | (g), unit, need, doc)
#define N_(id, red, g, doc) F_(id, red, #id, "", SV_VALUE_COUNT, A, SV_COLUMN_CONFIG | (g), doc)
#define T_(id, red, g, doc) F_(id, red, #id, "", SV_VALUE_TEXT, A, SV_COLUMN_CONFIG | (g), doc)
#define RCD_(id, red, g, unit, need, doc) R_(id, red, CD_ | (g), unit, need, doc)
#define ND_(id, red, g, doc) F_(id, red, #id, "", SV_VALUE_COUNT, A, CD_ | (g), doc)
#define TD_(id, red, g, doc) F_(id, red, #id, "", SV_VALUE_TEXT, A, CD_ | (g), doc)
/* A count that is not configuration (trial, row); a word that is not (the
 * per-head indices); --grad's columns, only with it. */
#define NR_(id, red, g, doc) F_(id, red, #id, "", SV_VALUE_COUNT, A, g, doc)
#define HT_(id, red, g, doc) F_(id, red, #id, "", SV_VALUE_TEXT, A, g, doc)
#define G_(id, red, g, unit, need, doc) R_(id, red, SV_COLUMN_ONLY_GRAD | (g), unit, need, doc)

#define COL_DESCRIPTOR_(id, shape, sd, theory, twin, reduce, ...)                                  \
    [C_##id] = shape##_(id, SV_REDUCE_##reduce, __VA_ARGS__),
static const sv_column columns[C_COUNT_] = {SV_COLUMN_LIST(COL_DESCRIPTOR_)};
#undef COL_DESCRIPTOR_

/* Each column's partners, by sv_column_partner_kind (SV_PARTNER_SD_OF is
 * the inverse of SV_PARTNER_SD, found by search). */
#define COL_PARTNERS_(id, shape, sd, theory, twin, reduce, ...)                                    \
    [C_##id] = {C_##sd, C_##theory, C_##twin},
static const col_id partners[C_COUNT_][3] = {SV_COLUMN_LIST(COL_PARTNERS_)};
#undef COL_PARTNERS_

#undef F_
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

/* --logits: a row per key of each given row at each scale. */
static const col_id logits_ids[] = {C_logits_row,
                                    C_logits_scale,
                                    C_logits_scale_value,
                                    C_logits_dk,
                                    C_logits_n_k,
                                    C_logits_key,
                                    C_logit,
                                    C_scaled_logit,
                                    C_weight,
                                    C_upstream,
                                    C_grad_logit,
                                    C_logits_entropy,
                                    C_logits_entropy_bound,
                                    C_logits_eff_keys,
                                    C_logits_max_weight,
                                    C_logits_jac_trace,
                                    C_logits_jac_frob,
                                    C_grad_logits};

#endif
