#include "sdpa_var/summary.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static_assert(sizeof(sv_trial_stats) == SV_TRIAL_FIELDS * sizeof(double),
              "sv_trial_stats holds SV_TRIAL_FIELDS doubles and nothing else");

double sv_quantile_sorted(const double *x, size_t n, double p)
{
    if (n == 0)
        return NAN;
    const double h = (double)(n - 1) * p;
    const double lo = floor(h);
    const size_t i = (size_t)lo;
    if (i + 1 >= n)
        return x[n - 1];
    return x[i] + (h - lo) * (x[i + 1] - x[i]);
}

/* Rearranges x so that x[k] is the k-th smallest and nothing before it is
 * larger (Hoare's FIND / quickselect, median-of-three pivot): O(n) on
 * average, no full sort needed for three quantiles. */
static void select_kth(double *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        double a = x[lo], b = x[mid], c = x[hi];
        const double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                const double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* Quantile p of x[lo .. n-1] (reordered in place), as sv_quantile_sorted of
 * all of x[0 .. n-1], given that x[0 .. lo-1] are no larger than the rest. */
static double quantile_select(double *x, size_t lo, size_t n, double p)
{
    const double h = (double)(n - 1) * p;
    const size_t i = (size_t)floor(h);
    select_kth(x + lo, n - lo, i - lo);
    if (i + 1 >= n)
        return x[i];
    double next = x[i + 1]; /* the smallest of the elements after x[i] */
    for (size_t j = i + 2; j < n; j++)
        next = x[j] < next ? x[j] : next;
    return x[i] + (h - floor(h)) * (next - x[i]);
}

/* Quantile p of x[0 .. n-1] when its two order statistics lie in
 * x[0 .. hi-1] and nothing there is larger than x[hi ..]. */
static double quantile_select_below(double *x, size_t hi, size_t n, double p)
{
    const double h = (double)(n - 1) * p;
    const size_t i = (size_t)floor(h);
    if (i + 1 >= hi)
        return quantile_select(x, 0, n, p);
    select_kth(x, hi, i);
    double next = x[i + 1];
    for (size_t j = i + 2; j < hi; j++)
        next = x[j] < next ? x[j] : next;
    return x[i] + (h - floor(h)) * (next - x[i]);
}

/* Spread of n values x (reordered in place): SD (two-pass, ddof 1) and the
 * 5/50/95 % quantiles, the median first so that the others search only
 * the part they are in. */
static void spread_of(double *x, size_t n, sv_var_spread *out)
{
    double sum = 0.0, m2 = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    const double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        m2 += (x[i] - mean) * (x[i] - mean);
    out->sd = n > 1 ? sqrt(m2 / (double)(n - 1)) : NAN;
    out->q50 = quantile_select(x, 0, n, 0.50);
    /* Now nothing before the median's index is larger than what follows. */
    const size_t mid = (size_t)floor((double)(n - 1) * 0.50);
    out->q95 = quantile_select(x, mid, n, 0.95);
    out->q05 = quantile_select_below(x, mid + 1, n, 0.05);
}

sv_status sv_summary_compute(const sv_config *cfg, const sv_trial_stats *per_trial,
                             double observed, sv_summary *out)
{
    sv_status st = sv_config_check(cfg);
    if (st != SV_OK)
        return st;
    if (!per_trial || !out || cfg->trials > SIZE_MAX / sizeof(double))
        return SV_EINVAL;
    const size_t n = (size_t)cfg->trials;
    sv_summary s;
    st = sv_theory_config(cfg, &s.raw_theory);
    if (st != SV_OK)
        return st;
    double *raw = malloc(n * sizeof *raw), *scaled = malloc(n * sizeof *scaled);
    if (!raw || !scaled) {
        free(raw);
        free(scaled);
        return SV_ENOMEM;
    }
    /* One pass over the trials: sums in trial order for the means, min and
     * max where the statistic is an extreme. sv_trial_stats is
     * SV_TRIAL_FIELDS doubles, read as an array through memcpy. */
    enum { F = SV_TRIAL_FIELDS };
    double sum[F] = {0}, v[F];
    const size_t hmin[2] = {offsetof(sv_trial_stats, raw_entropy_min) / sizeof(double),
                            offsetof(sv_trial_stats, scaled_entropy_min) / sizeof(double)};
    const size_t hmax[2] = {offsetof(sv_trial_stats, raw_entropy_max) / sizeof(double),
                            offsetof(sv_trial_stats, scaled_entropy_max) / sizeof(double)};
    const size_t amax = offsetof(sv_trial_stats, raw_max_abs_logit) / sizeof(double);
    for (size_t i = 0; i < n; i++) {
        memcpy(v, &per_trial[i], sizeof v);
        for (size_t f = 0; f < F; f++) {
            if (i == 0)
                sum[f] = v[f];
            else if (f == hmin[0] || f == hmin[1])
                sum[f] = fmin(sum[f], v[f]);
            else if (f == hmax[0] || f == hmax[1] || f == amax)
                sum[f] = fmax(sum[f], v[f]);
            else
                sum[f] += v[f];
        }
        raw[i] = per_trial[i].raw_var;
        scaled[i] = per_trial[i].scaled_var;
    }
    for (size_t f = 0; f < F; f++)
        if (f != hmin[0] && f != hmin[1] && f != hmax[0] && f != hmax[1] && f != amax)
            sum[f] /= (double)n;
    memcpy(&s.mean, sum, sizeof sum);
    /* The two spreads are independent: one thread each. */
#pragma omp parallel sections num_threads(2) if (n > 100000)
    {
#pragma omp section
        spread_of(raw, n, &s.raw);
#pragma omp section
        spread_of(scaled, n, &s.scaled);
    }
    free(raw);
    free(scaled);

    /* Scaled logits are S / c: means divide by c, variances by c^2. */
    const double c = sv_config_scale(cfg), c2 = sv_config_scale2(cfg);
    s.scale = c;
    s.scaled_theory = s.raw_theory;
    s.scaled_theory.mean /= c;
    s.scaled_theory.var /= c2;
    s.scaled_theory.var_expected /= c2;
    s.scaled_theory.var_sd /= c2;
    s.scaled_theory.diag_logit /= c;
    s.qk_radius = cfg->qk_norm ? (cfg->qk_scale > 0.0 ? cfg->qk_scale : sqrt((double)cfg->d_k)) : NAN;
    s.scaled_theory.entropy_approx =
        log((double)cfg->n_k) - (log((double)cfg->n_k) - s.raw_theory.entropy_approx) / c2;

    s.observed = observed;
    s.raw_var_cdf_observed = NAN;
    if (!isnan(observed)) {
        size_t below = 0;
        for (size_t i = 0; i < n; i++)
            below += per_trial[i].raw_var <= observed;
        s.raw_var_cdf_observed = (double)below / (double)n;
    }
    *out = s;
    return SV_OK;
}
