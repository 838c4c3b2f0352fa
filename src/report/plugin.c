/* The plug-in theory of measured Q and K (docs/theory.md section 13): the
 * random-draw theory of independent normal entries with the measured
 * means and variances of a head's entries. */
#include <math.h>
#include <string.h>

#include "sdpa_var/columns.h"
#include "sdpa_var/engine.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/summary.h"
#include "sdpa_var/theory.h"

sv_status sv_theory_plugin_spec(const sv_spec *spec, const sv_trial_stats *stats, sv_spec *out)
{
    if (!spec || !stats || !out)
        return SV_EINVAL;
    /* NAN: the source did not measure it; a variance is never negative. */
    if (isnan(stats->q_mean) || isnan(stats->k_mean) || !(stats->q_var >= 0.0) ||
        !(stats->k_var >= 0.0))
        return SV_EINVAL;
    sv_spec p = *spec;
    p.dist = SV_DIST_NORMAL;
    p.nu = 0.0;
    p.q_mean = stats->q_mean;
    p.q_std = sqrt(stats->q_var);
    p.k_mean = stats->k_mean;
    p.k_std = sqrt(stats->k_var);
    /* The moments are those of Q and K as they reach the product: no
     * projection, QK-norm or planted key is drawn on top of them. */
    p.d_model = 0;
    p.init = SV_INIT_XAVIER;
    p.cross = 0;
    p.qk_norm = 0;
    p.qk_radius = 0.0;
    p.plant = 0.0;
    const sv_status st = sv_spec_check(&p);
    if (st != SV_OK)
        return st;
    *out = p;
    return SV_OK;
}

sv_status sv_summary_head(const sv_spec *spec, const sv_trial_stats *stats,
                          const sv_summary *pooled, sv_spec *plug, sv_summary *out)
{
    if (!spec || !stats || !plug || !out)
        return SV_EINVAL;
    if (pooled)
        *out = *pooled;
    else {
        memset(out, 0, sizeof *out);
        out->mean = *stats;
        out->scale = sv_spec_scale(spec);
        out->qk_radius = out->observed = out->raw_var_cdf_observed = NAN;
    }
    sv_theory *t[2] = {&out->raw_theory, &out->scaled_theory};
    if (sv_theory_plugin_spec(spec, stats, plug) == SV_OK && sv_theory_spec(plug, t[0]) == SV_OK) {
        *t[1] = *t[0];
        if (sv_theory_scale(plug, t[1]) == SV_OK)
            return SV_OK;
    }
    *plug = *spec;
    for (int i = 0; i < 2; i++)
        *t[i] = (sv_theory){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0};
    return SV_OK;
}

sv_status sv_per_head_values(const sv_spec *spec, const sv_trial_stats *stats, size_t n,
                             const char *scale_name, int masked, sv_value *out)
{
    if (!spec || !stats || !out || n == 0)
        return SV_EINVAL;
    const size_t cols = sv_columns_count(SV_OUTPUT_PER_HEAD);
    const sv_theory none = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0};
    for (size_t t = 0; t < n; t++) {
        sv_spec one;
        sv_summary summ;
        const sv_status st = sv_summary_head(spec, &stats[t], NULL, &one, &summ);
        if (st != SV_OK)
            return st;
        if (masked) { /* every double of the theory, its heavy-tail flag kept */
            const int heavy[2] = {summ.raw_theory.var_sd_heavy_tail,
                                  summ.scaled_theory.var_sd_heavy_tail};
            summ.raw_theory = summ.scaled_theory = none;
            summ.raw_theory.var_sd_heavy_tail = heavy[0];
            summ.scaled_theory.var_sd_heavy_tail = heavy[1];
        }
        const sv_row_view view = {
            .spec = &one, .scale_name = scale_name, .stats = &summ.mean, .summary = &summ};
        for (size_t c = 0; c < cols; c++) {
            const sv_column *col = sv_columns_get(SV_OUTPUT_PER_HEAD, c);
            out[c * n + t] =
                col->type == SV_VALUE_TEXT ? (sv_value){NAN, 0, NULL} : col->get(&view);
        }
    }
    return SV_OK;
}
