/* The output columns: one descriptor per column (columns.h), and for each
 * kind of output the order in which they are written. Writers and the
 * column reference (docs/columns.md) are generated from these arrays. */
#include "sdpa_var/columns.h"

#include <math.h>
#include <stdio.h>

static sv_value real(double v)
{
    return (sv_value){.real = v};
}
static sv_value count(uint64_t v)
{
    return (sv_value){.count = v};
}
static sv_value text(const char *v)
{
    return (sv_value){.text = v};
}

/* --- getters ------------------------------------------------------------ */

/* One getter per field of sv_trial_stats: the trial's value, or in a
 * summary row the mean (the min/max for the extremes) over trials. */
#define TRIAL_GETTER_(f)                                                                           \
    static sv_value get_##f(const sv_row_view *r)                                                  \
    {                                                                                              \
        return real(r->stats->f);                                                                  \
    }
TRIAL_GETTER_(raw_mean)
TRIAL_GETTER_(raw_var)
TRIAL_GETTER_(scaled_mean)
TRIAL_GETTER_(scaled_var)
TRIAL_GETTER_(raw_entropy)
TRIAL_GETTER_(scaled_entropy)
TRIAL_GETTER_(raw_max_weight)
TRIAL_GETTER_(scaled_max_weight)
TRIAL_GETTER_(raw_jac_trace)
TRIAL_GETTER_(scaled_jac_trace)
TRIAL_GETTER_(raw_var_known_mean)
TRIAL_GETTER_(raw_var_ddof0)
TRIAL_GETTER_(raw_var_ddof1)
TRIAL_GETTER_(raw_jac_frob)
TRIAL_GETTER_(scaled_jac_frob)
TRIAL_GETTER_(raw_eff_keys)
TRIAL_GETTER_(scaled_eff_keys)
TRIAL_GETTER_(raw_entropy_min)
TRIAL_GETTER_(raw_entropy_max)
TRIAL_GETTER_(scaled_entropy_min)
TRIAL_GETTER_(scaled_entropy_max)
TRIAL_GETTER_(raw_max_abs_logit)
TRIAL_GETTER_(raw_max_logit)
TRIAL_GETTER_(rows_empty)
TRIAL_GETTER_(raw_diag_logit)
TRIAL_GETTER_(raw_diag_weight)
TRIAL_GETTER_(scaled_diag_weight)
TRIAL_GETTER_(q_var)
TRIAL_GETTER_(k_var)
TRIAL_GETTER_(raw_out_var)
TRIAL_GETTER_(scaled_out_var)
TRIAL_GETTER_(raw_sum_p2)
TRIAL_GETTER_(scaled_sum_p2)
TRIAL_GETTER_(raw_sink_weight)
TRIAL_GETTER_(scaled_sink_weight)
TRIAL_GETTER_(raw_entropy_norm)
TRIAL_GETTER_(scaled_entropy_norm)
TRIAL_GETTER_(raw_grad_keys)
TRIAL_GETTER_(scaled_grad_keys)
#undef TRIAL_GETTER_

/* Measured means of the entries (sv_trial_stats.q_mean, k_mean): named
 * apart from the configuration's q_mean and k_mean. */
static sv_value get_q_mean_measured(const sv_row_view *r)
{
    return real(r->stats->q_mean);
}
static sv_value get_k_mean_measured(const sv_row_view *r)
{
    return real(r->stats->k_mean);
}

/* --grad: the trial holds means of squares; the column is their root, so
 * that a summary's mean over trials gives the root mean square over rows
 * and trials. */
#define ROOT_GETTER_(name, f)                                                                      \
    static sv_value get_##name(const sv_row_view *r)                                               \
    {                                                                                              \
        return real(sqrt(r->stats->f));                                                            \
    }
ROOT_GETTER_(raw_grad_logits, raw_grad_logits2)
ROOT_GETTER_(scaled_grad_logits, scaled_grad_logits2)
ROOT_GETTER_(raw_grad_logits_theory, raw_grad_logits_theory2)
ROOT_GETTER_(scaled_grad_logits_theory, scaled_grad_logits_theory2)
ROOT_GETTER_(raw_grad_q, raw_grad_q2)
ROOT_GETTER_(scaled_grad_q, scaled_grad_q2)
ROOT_GETTER_(raw_grad_k, raw_grad_k2)
ROOT_GETTER_(scaled_grad_k, scaled_grad_k2)
#undef ROOT_GETTER_

/* Summary-only fields: theory and spreads across trials. */
#define SUMMARY_GETTER_(name, expr)                                                                \
    static sv_value get_##name(const sv_row_view *r)                                               \
    {                                                                                              \
        return real(r->summary->expr);                                                             \
    }
SUMMARY_GETTER_(raw_var_theory, raw_theory.var)
SUMMARY_GETTER_(raw_var_expected, raw_theory.var_expected)
SUMMARY_GETTER_(raw_var_sd, raw.sd)
SUMMARY_GETTER_(raw_var_sd_theory, raw_theory.var_sd)
SUMMARY_GETTER_(raw_var_q05, raw.q05)
SUMMARY_GETTER_(raw_var_q50, raw.q50)
SUMMARY_GETTER_(raw_var_q95, raw.q95)
SUMMARY_GETTER_(scaled_var_theory, scaled_theory.var)
SUMMARY_GETTER_(scaled_var_expected, scaled_theory.var_expected)
SUMMARY_GETTER_(scaled_var_sd, scaled.sd)
SUMMARY_GETTER_(scaled_var_sd_theory, scaled_theory.var_sd)
SUMMARY_GETTER_(scaled_var_q05, scaled.q05)
SUMMARY_GETTER_(scaled_var_q50, scaled.q50)
SUMMARY_GETTER_(scaled_var_q95, scaled.q95)
SUMMARY_GETTER_(raw_mean_theory, raw_theory.mean)
SUMMARY_GETTER_(raw_entropy_approx, raw_theory.entropy_approx)
SUMMARY_GETTER_(scaled_entropy_approx, scaled_theory.entropy_approx)
SUMMARY_GETTER_(qk_norm_radius, qk_radius)
SUMMARY_GETTER_(raw_diag_logit_theory, raw_theory.diag_logit)
SUMMARY_GETTER_(scaled_diag_logit_theory, scaled_theory.diag_logit)
SUMMARY_GETTER_(raw_var_ddof0_theory, raw_theory.var_ddof0)
SUMMARY_GETTER_(raw_var_ddof1_theory, raw_theory.var_ddof1)
SUMMARY_GETTER_(observed, observed)
SUMMARY_GETTER_(raw_var_cdf_observed, raw_var_cdf_observed)
#undef SUMMARY_GETTER_

/* Spreads across trials (sv_summary.sd). */
#define SD_GETTER_(name)                                                                           \
    static sv_value get_##name##_sd(const sv_row_view *r)                                          \
    {                                                                                              \
        return real(r->summary->sd.name);                                                          \
    }
SD_GETTER_(raw_mean)
SD_GETTER_(scaled_mean)
SD_GETTER_(raw_var_known_mean)
SD_GETTER_(raw_var_ddof0)
SD_GETTER_(raw_var_ddof1)
SD_GETTER_(raw_entropy)
SD_GETTER_(scaled_entropy)
SD_GETTER_(raw_eff_keys)
SD_GETTER_(scaled_eff_keys)
SD_GETTER_(raw_max_weight)
SD_GETTER_(scaled_max_weight)
SD_GETTER_(raw_jac_trace)
SD_GETTER_(scaled_jac_trace)
SD_GETTER_(raw_jac_frob)
SD_GETTER_(scaled_jac_frob)
SD_GETTER_(raw_diag_logit)
SD_GETTER_(raw_diag_weight)
SD_GETTER_(scaled_diag_weight)
SD_GETTER_(q_var)
SD_GETTER_(k_var)
SD_GETTER_(raw_out_var)
SD_GETTER_(scaled_out_var)
SD_GETTER_(raw_grad_keys)
SD_GETTER_(scaled_grad_keys)
#undef SD_GETTER_

/* --grad's root-mean-square columns: the trial holds the mean square x,
 * the column is sqrt(mean x); its spread across trials on that scale is,
 * to first order (the delta method), sd(x) / (2 sqrt(mean x)). */
#define ROOT_SD_GETTER_(name, f)                                                                   \
    static sv_value get_##name##_sd(const sv_row_view *r)                                          \
    {                                                                                              \
        const double m = r->stats->f;                                                              \
        return real(m > 0.0 ? r->summary->sd.f / (2.0 * sqrt(m)) : NAN);                           \
    }
ROOT_SD_GETTER_(raw_grad_logits, raw_grad_logits2)
ROOT_SD_GETTER_(scaled_grad_logits, scaled_grad_logits2)
ROOT_SD_GETTER_(raw_grad_q, raw_grad_q2)
ROOT_SD_GETTER_(scaled_grad_q, scaled_grad_q2)
ROOT_SD_GETTER_(raw_grad_k, raw_grad_k2)
ROOT_SD_GETTER_(scaled_grad_k, scaled_grad_k2)
#undef ROOT_SD_GETTER_

/* A theory column is printed only where its measured column is: q_var and
 * k_var are measured when the source says so (sv_source's measure_entries,
 * which every built-in source sets); else both are nan. */
static sv_value get_q_var_theory(const sv_row_view *r)
{
    return real(isnan(r->stats->q_var) ? NAN : r->summary->raw_theory.q_var);
}
static sv_value get_k_var_theory(const sv_row_view *r)
{
    return real(isnan(r->stats->k_var) ? NAN : r->summary->raw_theory.k_var);
}

/* The configuration. */
static sv_value get_dk(const sv_row_view *r)
{
    return count(r->spec->d_k);
}
static sv_value get_n_q(const sv_row_view *r)
{
    return count(r->spec->n_q);
}
static sv_value get_n_k(const sv_row_view *r)
{
    return count(r->spec->n_k);
}
static sv_value get_trials(const sv_row_view *r)
{
    return count(r->spec->trials);
}
static sv_value get_seed(const sv_row_view *r)
{
    return count(r->spec->seed);
}
static sv_value get_dist(const sv_row_view *r)
{
    return text(sv_dist_name(r->spec->dist));
}
static sv_value get_ddof(const sv_row_view *r)
{
    return count(r->spec->ddof);
}
/* Whether @p spec's scale is the one sv_spec_resolve gives for 0. */
static int default_scale(const sv_spec *spec)
{
    sv_spec d = *spec;
    d.scale = d.scale2 = 0.0;
    sv_spec_resolve(&d);
    return d.scale == spec->scale && d.scale2 == spec->scale2;
}
static sv_value get_scale(const sv_row_view *r)
{
    if (r->scale_name)
        return text(r->scale_name);
    return text(default_scale(r->spec) ? "sqrt" : "custom");
}
static sv_value get_scale_factor(const sv_row_view *r)
{
    return real(sv_spec_scale(r->spec));
}
static sv_value get_nu(const sv_row_view *r)
{
    return real(r->spec->dist == SV_DIST_STUDENT_T ? r->spec->nu : NAN);
}
static sv_value get_q_mean(const sv_row_view *r)
{
    return real(r->spec->q_mean);
}
static sv_value get_k_mean(const sv_row_view *r)
{
    return real(r->spec->k_mean);
}
/* Values with a default ("0 means 1", "0 means d_k") as the spec
 * resolved them, so that the rule lives in one place (spec.c). */
static sv_value get_q_std(const sv_row_view *r)
{
    return real(r->spec->q_std);
}
static sv_value get_k_std(const sv_row_view *r)
{
    return real(r->spec->k_std);
}
static sv_value get_plant(const sv_row_view *r)
{
    return real(r->spec->plant);
}
static sv_value get_d_model(const sv_row_view *r)
{
    return count(r->spec->d_model > 0 ? r->spec->d_model : 0);
}
static sv_value get_init(const sv_row_view *r)
{
    static const char *const names[] = {"xavier", "lecun", "normal"};
    const unsigned i = (unsigned)r->spec->init;
    return text(r->spec->d_model == 0 ? "none" : i < 3 ? names[i] : "unknown");
}
static sv_value get_cross(const sv_row_view *r)
{
    return count(r->spec->d_model > 0 && r->spec->cross ? 1 : 0);
}
static sv_value get_d_v(const sv_row_view *r)
{
    return real(r->spec->values ? (double)r->spec->d_v : NAN);
}
static sv_value get_causal(const sv_row_view *r)
{
    return count(r->spec->causal ? 1 : 0);
}
static sv_value get_window(const sv_row_view *r)
{
    return count(r->spec->window);
}
static sv_value get_qk_norm(const sv_row_view *r)
{
    return count(r->spec->qk_norm ? 1 : 0);
}
static sv_value get_values(const sv_row_view *r)
{
    return count(r->spec->values ? 1 : 0);
}
static sv_value get_grad(const sv_row_view *r)
{
    return count(r->spec->grad ? 1 : 0);
}

/* Derived from the per-trial statistics. */
static const double fp16_max = 65504.0; /* largest finite IEEE binary16 */
/* The one multiplier of every row; NAN with scale_logn, whose rows each
 * have their own (a max |c_i S| is not a max |S| times one c). */
static double one_scale(const sv_spec *spec)
{
    return spec->scale_logn ? NAN : sv_spec_scale(spec);
}
static sv_value get_scaled_max_abs_logit(const sv_row_view *r)
{
    return real(r->stats->raw_max_abs_logit * one_scale(r->spec));
}
static sv_value get_scaled_max_logit(const sv_row_view *r)
{
    return real(r->stats->raw_max_logit * one_scale(r->spec)); /* scale > 0: the max */
}
static sv_value get_raw_fp16_headroom(const sv_row_view *r)
{
    return real(fp16_max / r->stats->raw_max_abs_logit);
}
static sv_value get_scaled_fp16_headroom(const sv_row_view *r)
{
    return real(fp16_max / (r->stats->raw_max_abs_logit * one_scale(r->spec)));
}
static sv_value get_scaled_diag_logit(const sv_row_view *r)
{
    return real(r->stats->raw_diag_logit * one_scale(r->spec));
}
/* Var(O) given the weights is sum p^2 (V has variance 1): the theory of
 * the output variance is the measured mean of sum p^2 = 1 - Jacobian trace. */
static sv_value get_raw_out_var_theory(const sv_row_view *r)
{
    return real(r->spec->values ? r->stats->raw_sum_p2 : NAN);
}
static sv_value get_scaled_out_var_theory(const sv_row_view *r)
{
    return real(r->spec->values ? r->stats->scaled_sum_p2 : NAN);
}
static sv_value get_trial(const sv_row_view *r)
{
    return count(r->trial);
}

/* Per head: an index as text, "all" for the pooled row (head NULL). The
 * text lives in a buffer of the getter's own, per thread: valid until its
 * next call on the same thread. */
#define HEAD_GETTER_(f)                                                                            \
    static sv_value get_##f(const sv_row_view *r)                                                  \
    {                                                                                              \
        static _Thread_local char buf[24];                                                         \
        if (!r->head)                                                                              \
            return text("all");                                                                    \
        snprintf(buf, sizeof buf, "%zu", r->head->f);                                              \
        return text(buf);                                                                          \
    }
HEAD_GETTER_(batch)
HEAD_GETTER_(head)
HEAD_GETTER_(kv_head)
#undef HEAD_GETTER_
static sv_value get_var_scale(const sv_row_view *r)
{
    return real(1.0 / sqrt(r->stats->raw_var));
}

/* Per row: the query position's sums over trials, divided by the trials. */
static size_t keys_seen(const sv_row_view *r)
{
    size_t lo, hi;
    sv_spec_row_keys(r->spec, r->row, &lo, &hi);
    return hi > lo ? hi - lo : 0;
}
static double row_mean(const sv_row_view *r, int k)
{
    return r->row_sums[k] / (double)r->spec->trials;
}
static sv_value get_row(const sv_row_view *r)
{
    return count(r->row);
}
static sv_value get_keys_seen(const sv_row_view *r)
{
    return count(keys_seen(r));
}
static sv_value get_row_raw_entropy(const sv_row_view *r)
{
    return real(row_mean(r, 0));
}
static sv_value get_row_scaled_entropy(const sv_row_view *r)
{
    return real(row_mean(r, 1));
}
static sv_value get_entropy_bound(const sv_row_view *r)
{
    return real(log((double)keys_seen(r)));
}
static sv_value get_row_raw_max_weight(const sv_row_view *r)
{
    return real(row_mean(r, 2));
}
static sv_value get_row_scaled_max_weight(const sv_row_view *r)
{
    return real(row_mean(r, 3));
}

/* The entropy of a uniform row, mean over rows: ln n_k, or with a causal
 * mask the mean of ln(i + 1) over i < n, which is ln(n!) / n. */
static sv_value get_summary_entropy_bound(const sv_row_view *r)
{
    const double n = (double)r->spec->n_q;
    if (r->spec->window > 0) { /* over the rows that see a key, O(n_q) */
        double sum = 0.0, rows = 0.0;
        for (size_t i = 0, lo, hi; i < r->spec->n_q; i++) {
            sv_spec_row_keys(r->spec, i, &lo, &hi);
            sum += hi > lo ? log((double)(hi - lo)) : 0.0;
            rows += hi > lo;
        }
        return real(rows > 0.0 ? sum / rows : NAN);
    }
    return real(r->spec->causal ? lgamma(n + 1.0) / n : log((double)r->spec->n_k));
}

/* Histogram bins. */
static sv_value get_bin_lo(const sv_row_view *r)
{
    return real(r->bin_lo);
}
static sv_value get_bin_hi(const sv_row_view *r)
{
    return real(r->bin_hi);
}
static sv_value get_raw_count(const sv_row_view *r)
{
    return count(r->bin_count[0]);
}
static sv_value get_scaled_count(const sv_row_view *r)
{
    return count(r->bin_count[1]);
}

#include "columns_logits.h"
#include "columns_table.h"

/* --- lookup --------------------------------------------------------------- */

static const struct {
    const char *name;
    const col_id *ids;
    size_t n;
} kinds[SV_OUTPUT_KINDS] = {
    {"summary", summary_ids, sizeof summary_ids / sizeof summary_ids[0]},
    {"per_trial", per_trial_ids, sizeof per_trial_ids / sizeof per_trial_ids[0]},
    {"per_row", per_row_ids, sizeof per_row_ids / sizeof per_row_ids[0]},
    {"histogram", histogram_ids, sizeof histogram_ids / sizeof histogram_ids[0]},
    {"per_head", per_head_ids, sizeof per_head_ids / sizeof per_head_ids[0]},
    {"logits", logits_ids, sizeof logits_ids / sizeof logits_ids[0]},
};

size_t sv_columns_count(sv_output_kind kind)
{
    return (unsigned)kind < SV_OUTPUT_KINDS ? kinds[kind].n : 0;
}

const sv_column *sv_columns_get(sv_output_kind kind, size_t i)
{
    if ((unsigned)kind >= SV_OUTPUT_KINDS || i >= kinds[kind].n)
        return NULL;
    return &columns[kinds[kind].ids[i]];
}

const char *sv_output_kind_name(sv_output_kind kind)
{
    return (unsigned)kind < SV_OUTPUT_KINDS ? kinds[kind].name : NULL;
}

_Static_assert((int)C_COUNT_ == (int)SV_COLUMN_IDS, "one list, one order: columns_list.h");

const sv_column *sv_column_of(sv_column_id id)
{
    return (unsigned)id < C_COUNT_ ? &columns[id] : NULL;
}

/* The index of @p col in the column table, or C_NO when it is not one of
 * its descriptors (compared one by one: a pointer into another array may
 * not be subtracted from one into this). */
static col_id id_of(const sv_column *col)
{
    for (size_t i = 0; col && i < C_COUNT_; i++)
        if (col == &columns[i])
            return (col_id)i;
    return C_NO;
}

sv_column_id sv_column_id_of(const sv_column *col)
{
    return (sv_column_id)id_of(col);
}

/* Whether column @p id is among those of @p kind. */
static int in_kind(sv_output_kind kind, col_id id)
{
    for (size_t i = 0; i < kinds[kind].n; i++)
        if (kinds[kind].ids[i] == id)
            return 1;
    return 0;
}

const sv_column *sv_column_partner(sv_output_kind kind, const sv_column *col,
                                   sv_column_partner_kind which)
{
    const col_id id = id_of(col);
    if ((unsigned)kind >= SV_OUTPUT_KINDS || id == C_NO || !in_kind(kind, id))
        return NULL;
    col_id p = C_NO;
    if (which == SV_PARTNER_SD_OF) { /* the inverse of SV_PARTNER_SD */
        for (size_t i = 0; i < C_COUNT_ && p == C_NO; i++)
            if (partners[i][SV_PARTNER_SD] == id && in_kind(kind, (col_id)i))
                p = (col_id)i;
    } else if ((unsigned)which < SV_PARTNER_SD_OF) {
        p = partners[id][which];
    }
    return p != C_NO && in_kind(kind, p) ? &columns[p] : NULL;
}

/* The SV_SKIP_* group of each field of sv_trial_stats, from the one place
 * it is written (SV_TRIAL_STATS_MAP's skip): skip_of_raw_jac_frob, ... */
enum {
#define SKIP_OF_(name, reduce, number, skip) skip_of_##name = SV_SKIP_##skip,
    SV_TRIAL_STATS_MAP(SKIP_OF_)
#undef SKIP_OF_
};

unsigned sv_column_reads(const sv_column *col)
{
    /* Every column computed from a field of an SV_SKIP_* group: the
     * field's own column, its spread across trials, or a value derived
     * from it (what its getter reads); the group is the field's. unit.skip
     * checks that no other column changes when a group's fields are NAN. */
    static const struct {
        col_id id;
        unsigned skip;
    } reads[] = {
        {C_raw_jac_frob, skip_of_raw_jac_frob},
        {C_scaled_jac_frob, skip_of_scaled_jac_frob},
        {C_raw_jac_frob_sd, skip_of_raw_jac_frob},
        {C_scaled_jac_frob_sd, skip_of_scaled_jac_frob},
        {C_raw_entropy_min, skip_of_raw_entropy_min},
        {C_raw_entropy_max, skip_of_raw_entropy_max},
        {C_scaled_entropy_min, skip_of_scaled_entropy_min},
        {C_scaled_entropy_max, skip_of_scaled_entropy_max},
        {C_raw_entropy_norm, skip_of_raw_entropy_norm},
        {C_scaled_entropy_norm, skip_of_scaled_entropy_norm},
        {C_raw_sink_weight, skip_of_raw_sink_weight},
        {C_scaled_sink_weight, skip_of_scaled_sink_weight},
        {C_raw_max_abs_logit, skip_of_raw_max_abs_logit},
        {C_scaled_max_abs_logit, skip_of_raw_max_abs_logit},
        {C_raw_fp16_headroom, skip_of_raw_max_abs_logit},
        {C_scaled_fp16_headroom, skip_of_raw_max_abs_logit},
        {C_raw_max_logit, skip_of_raw_max_logit},
        {C_scaled_max_logit, skip_of_raw_max_logit},
        {C_raw_sum_p2, skip_of_raw_sum_p2},
        {C_scaled_sum_p2, skip_of_scaled_sum_p2},
        {C_raw_out_var_theory, skip_of_raw_sum_p2},
        {C_scaled_out_var_theory, skip_of_scaled_sum_p2},
        {C_raw_var_known_mean, skip_of_raw_var_known_mean},
        {C_raw_var_ddof0, skip_of_raw_var_ddof0},
        {C_raw_var_ddof1, skip_of_raw_var_ddof1},
        {C_raw_var_known_mean_sd, skip_of_raw_var_known_mean},
        {C_raw_var_ddof0_sd, skip_of_raw_var_ddof0},
        {C_raw_var_ddof1_sd, skip_of_raw_var_ddof1},
    };
    for (size_t i = 0; col && i < sizeof reads / sizeof reads[0]; i++)
        if (col == &columns[reads[i].id])
            return reads[i].skip;
    return 0;
}
