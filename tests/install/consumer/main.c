/* A tiny experiment through the installed public API: the mean over 16
 * trials of the raw sample variance of Q K^T, d_k = 64, n_q = n_k = 64,
 * against sv_theory_spec's E[s^2]. Prints the version it was built with
 * and exits 0 only when the mean lies within 5 standard errors. */
#include <math.h>
#include <stdio.h>

#include <sdpa_var/sdpa_var.h>

#define TRIALS 16

int main(void)
{
    sv_spec spec = {0};
    spec.d_k = 64;
    spec.n_q = 64;
    spec.n_k = 64;
    spec.trials = TRIALS;
    spec.seed = 42;
    spec.dist = SV_DIST_NORMAL;
    const sv_exec exec = {0}; /* OpenMP's threads, one tile per work item */
    sv_source draws;
    sv_trial_stats per_trial[TRIALS];
    sv_theory th;
    sv_status st = sv_spec_resolve(&spec);
    if (st == SV_OK)
        st = sv_source_draw(&spec, &draws);
    if (st == SV_OK)
        st = sv_engine_run(&spec, &draws, &exec, NULL, 0, TRIALS, per_trial);
    if (st == SV_OK)
        st = sv_theory_spec(&spec, &th);
    if (st != SV_OK) {
        fprintf(stderr, "consumer: %s\n", sv_status_str(st));
        return 1;
    }
    double mean = 0.0;
    for (int t = 0; t < TRIALS; t++)
        mean += per_trial[t].raw_var / TRIALS;
    /* The trials are independent, so the mean of TRIALS sample variances
     * has standard error var_sd / sqrt(TRIALS). */
    const double se = th.var_sd / sqrt((double)TRIALS);
    const int ok = fabs(mean - th.var_expected) <= 5.0 * se;
    printf("sdpa_var %s: mean raw variance %.17g, theory %.17g +- %.3g (5 SE): %s\n",
           SV_VERSION_STRING, mean, th.var_expected, 5.0 * se, ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
