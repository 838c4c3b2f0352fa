/* The one-struct interface (experiment.h) over the split one: sv_config is
 * cut into a spec, execution options and taps, and the engine runs on the
 * spec's random draws. */
#include "sdpa_var/experiment.h"

#include <math.h>

double sv_config_scale(const sv_config *cfg)
{
    return cfg->scale > 0.0 ? cfg->scale : sqrt((double)cfg->d_k);
}

double sv_config_scale2(const sv_config *cfg)
{
    /* d_k itself, not sqrt(d_k)^2, which can be off by an ulp. */
    return cfg->scale > 0.0 ? cfg->scale * cfg->scale : (double)cfg->d_k;
}

/* "0 means the default" fields: >= 0 and finite. */
static int default_ok(double x)
{
    return x >= 0.0 && isfinite(x);
}

/* The rules on sv_config's own form (before its defaults are resolved):
 * the field a rule blames, or NULL. */
static const char *config_rule(const sv_config *cfg, sv_status *st)
{
    *st = SV_EINVAL;
    if (cfg->trials == 0)
        return "trials";
    if (cfg->threads < 0)
        return "threads";
    if (!default_ok(cfg->scale))
        return "scale";
    if (!default_ok(cfg->q_std) || (cfg->d_model > 0 && cfg->q_std > 0.0))
        return "q_std";
    if (!default_ok(cfg->k_std) || (cfg->d_model > 0 && cfg->k_std > 0.0))
        return "k_std";
    if (!default_ok(cfg->qk_scale))
        return "qk_scale";
    *st = SV_ERANGE;
    if (cfg->first_trial > UINT64_MAX - cfg->trials)
        return "first_trial";
    *st = SV_OK;
    return NULL;
}

/* sv_config_spec, and the field a failed rule blames. */
static sv_status config_spec(const sv_config *cfg, sv_spec *spec, const char **field)
{
    *spec = (sv_spec){.d_k = cfg->d_k,
                      .n_q = cfg->n_q,
                      .n_k = cfg->n_k,
                      .trials = cfg->first_trial + cfg->trials,
                      .seed = cfg->seed,
                      .dist = cfg->dist,
                      .nu = cfg->nu,
                      .scale = cfg->scale,
                      .q_mean = cfg->q_mean,
                      .q_std = cfg->q_std,
                      .k_mean = cfg->k_mean,
                      .k_std = cfg->k_std,
                      .qk_norm = cfg->qk_norm,
                      .qk_scale = cfg->qk_scale,
                      .d_model = cfg->d_model,
                      .init = cfg->init,
                      .cross = cfg->cross,
                      .causal = cfg->causal,
                      .values = cfg->values,
                      .d_v = cfg->d_v,
                      .plant = cfg->plant,
                      .ddof = cfg->ddof};
    sv_status st;
    *field = config_rule(cfg, &st);
    if (st != SV_OK)
        return st;
    sv_spec_resolve(spec);
    return sv_spec_check_field(spec, field);
}

sv_status sv_config_spec(const sv_config *cfg, sv_spec *spec)
{
    const char *field;
    if (!cfg || !spec)
        return SV_EINVAL;
    return config_spec(cfg, spec, &field);
}

sv_status sv_config_check_field(const sv_config *cfg, const char **field)
{
    const char *f = "cfg";
    sv_spec spec;
    sv_status st = cfg ? config_spec(cfg, &spec, &f) : SV_EINVAL;
    if (st == SV_OK) {
        const sv_taps taps = sv_config_taps(cfg);
        st = sv_taps_check(&taps, &spec);
        f = st == SV_OK ? NULL : "hist_bins";
    }
    if (field)
        *field = f;
    return st;
}

sv_exec sv_config_exec(const sv_config *cfg)
{
    return (sv_exec){.threads = cfg->threads,
                     .block_rows = cfg->block_rows,
                     .progress = cfg->progress,
                     .progress_ctx = cfg->progress_ctx};
}

sv_taps sv_config_taps(const sv_config *cfg)
{
    return (sv_taps){.hist_bins = cfg->hist_bins,
                     .hist_lo = cfg->hist_lo,
                     .hist_hi = cfg->hist_hi,
                     .hist_raw = cfg->hist_raw,
                     .hist_scaled = cfg->hist_scaled,
                     .hist_w_raw = cfg->hist_w_raw,
                     .hist_w_scaled = cfg->hist_w_scaled,
                     .row_sums = cfg->row_sums};
}

sv_status sv_config_check(const sv_config *cfg)
{
    return sv_config_check_field(cfg, NULL);
}

sv_status sv_experiment_bytes(const sv_config *cfg, size_t *bytes)
{
    sv_spec spec;
    sv_source src;
    sv_status st = sv_config_spec(cfg, &spec);
    if (st != SV_OK)
        return st;
    const sv_exec exec = sv_config_exec(cfg);
    const sv_taps taps = sv_config_taps(cfg);
    sv_source_draw(&spec, &src);
    return sv_engine_bytes(&spec, &src, &exec, &taps, cfg->trials, bytes);
}

sv_status sv_experiment_run(const sv_config *cfg, sv_trial_stats *per_trial)
{
    sv_spec spec;
    sv_source src;
    sv_status st = sv_config_spec(cfg, &spec);
    if (st != SV_OK)
        return st;
    const sv_exec exec = sv_config_exec(cfg);
    const sv_taps taps = sv_config_taps(cfg);
    sv_source_draw(&spec, &src);
    return sv_engine_run(&spec, &src, &exec, &taps, cfg->first_trial, cfg->trials, per_trial);
}
