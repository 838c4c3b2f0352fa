/* Per-head rows (sdpa_var/columns.h, SV_OUTPUT_PER_HEAD): each head's
 * summary with its plug-in theory (summary_head.c), read through the
 * column table. */
#include <math.h>

#include "sdpa_var/columns.h"
#include "sdpa_var/engine.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/summary.h"
#include "sdpa_var/theory.h"

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
