/* The plug-in theory of measured Q and K (docs/theory.md section 13): the
 * random-draw theory of independent normal entries with the measured
 * means and variances of a head's entries (sdpa_var/theory.h). */
#include <math.h>

#include "sdpa_var/engine.h"
#include "sdpa_var/spec.h"
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
