/* A head's summary from its measured Q and K (sdpa_var/summary.h): the
 * pooled summary, or the head's own statistics, with the plug-in theory
 * (theory_plugin.c in src/theory/) of that head beside them. */
#include <math.h>
#include <string.h>

#include "sdpa_var/engine.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/summary.h"
#include "sdpa_var/theory.h"

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
