#include "sdpa_var/summary.h"

#include <math.h>
#include <stdlib.h>

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
    st = sv_theory_raw(cfg->d_k, cfg->n_q, cfg->n_k, cfg->ddof, cfg->dist, &s.raw_theory);
    if (st != SV_OK)
        return st;
    double *raw = malloc(n * sizeof *raw), *scaled = malloc(n * sizeof *scaled);
    if (!raw || !scaled) {
        free(raw);
        free(scaled);
        return SV_ENOMEM;
    }
    /* Means: sums in trial order, one pass over the trials. */
    double sum[10] = {0};
    for (size_t i = 0; i < n; i++) {
        const sv_trial_stats *t = &per_trial[i];
        sum[0] += t->raw_mean;
        sum[1] += t->raw_var;
        sum[2] += t->scaled_mean;
        sum[3] += t->scaled_var;
        sum[4] += t->raw_entropy;
        sum[5] += t->scaled_entropy;
        sum[6] += t->raw_max_weight;
        sum[7] += t->scaled_max_weight;
        sum[8] += t->raw_jac_trace;
        sum[9] += t->scaled_jac_trace;
        raw[i] = t->raw_var;
        scaled[i] = t->scaled_var;
    }
    const double dn = (double)n;
    s.mean = (sv_trial_stats){sum[0] / dn, sum[1] / dn, sum[2] / dn, sum[3] / dn, sum[4] / dn,
                              sum[5] / dn, sum[6] / dn, sum[7] / dn, sum[8] / dn, sum[9] / dn};
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
