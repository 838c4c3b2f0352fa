#include "sdpa_var/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Quantile p of x[0 .. n-1] (reordered in place), as sv_quantile_sorted. */
static double quantile_select(double *x, size_t n, double p)
{
    const double h = (double)(n - 1) * p;
    const size_t i = (size_t)floor(h);
    select_kth(x, n, i);
    if (i + 1 >= n)
        return x[i];
    double next = x[i + 1]; /* the smallest of the elements after x[i] */
    for (size_t j = i + 2; j < n; j++)
        next = x[j] < next ? x[j] : next;
    return x[i] + (h - floor(h)) * (next - x[i]);
}

/* Mean over trials of the statistic at byte offset `off` of sv_trial_stats. */
static double field(const sv_trial_stats *t, size_t off)
{
    double v;
    memcpy(&v, (const char *)t + off, sizeof v);
    return v;
}

static double mean_of(const sv_trial_stats *t, size_t n, size_t off)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += field(&t[i], off);
    return s / (double)n;
}

/* Spread of one statistic across trials; `sorted` is scratch of n doubles, left reordered. */
static void spread_of(const sv_trial_stats *t, size_t n, size_t off, double *sorted,
                      sv_var_spread *out)
{
    const double mean = mean_of(t, n, off);
    double m2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double dev = field(&t[i], off) - mean;
        m2 += dev * dev;
        sorted[i] = field(&t[i], off);
    }
    out->sd = n > 1 ? sqrt(m2 / (double)(n - 1)) : NAN;
    out->q05 = quantile_select(sorted, n, 0.05);
    out->q50 = quantile_select(sorted, n, 0.50);
    out->q95 = quantile_select(sorted, n, 0.95);
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
    st = sv_theory_raw(cfg->d_k, cfg->n_q, cfg->n_k, cfg->ddof, cfg->dist, &s.raw_theory);
    if (st != SV_OK)
        return st;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return SV_ENOMEM;

#define SV_MEAN_(name) s.mean.name = mean_of(per_trial, n, offsetof(sv_trial_stats, name));
    SV_MEAN_(raw_mean)
    SV_MEAN_(raw_var)
    SV_MEAN_(scaled_mean)
    SV_MEAN_(scaled_var)
    SV_MEAN_(raw_entropy)
    SV_MEAN_(scaled_entropy)
    SV_MEAN_(raw_max_weight)
    SV_MEAN_(scaled_max_weight)
    SV_MEAN_(raw_jac_trace)
    SV_MEAN_(scaled_jac_trace)
#undef SV_MEAN_
    spread_of(per_trial, n, offsetof(sv_trial_stats, raw_var), sorted, &s.raw);
    spread_of(per_trial, n, offsetof(sv_trial_stats, scaled_var), sorted, &s.scaled);
    free(sorted);

    /* Scaled scores are raw / sqrt(d_k): variances divide by d_k. */
    const double d = (double)cfg->d_k;
    s.scaled_theory.var = s.raw_theory.var / d;
    s.scaled_theory.var_expected = s.raw_theory.var_expected / d;
    s.scaled_theory.var_sd = s.raw_theory.var_sd / d;

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
