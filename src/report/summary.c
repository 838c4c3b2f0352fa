#include "sdpa_var/summary.h"
#include "alloc.h"
#include "partial_impl.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double sv_quantile_sorted(const double *x, size_t n, double p)
{
    if (n == 0 || !x || isnan(p) || p < 0.0 || p > 1.0) /* no index from a NaN p */
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

/* Spread of n values x (reordered in place): SD (two-pass, ddof 1) and,
 * if asked, the 5/50/95 % quantiles (else NAN), the median first so that
 * the others search only the part they are in. */
static void spread_of(double *x, size_t n, int quantiles, sv_var_spread *out)
{
    if (n == 0) { /* no trial measured anything */
        *out = (sv_var_spread){NAN, NAN, NAN, NAN};
        return;
    }
    double sum = 0.0, m2 = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    const double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        m2 += (x[i] - mean) * (x[i] - mean);
    out->sd = n > 1 ? sqrt(m2 / (double)(n - 1)) : NAN;
    if (!quantiles) {
        out->q05 = out->q50 = out->q95 = NAN;
        return;
    }
    out->q50 = quantile_select(x, 0, n, 0.50);
    /* Now nothing before the median's index is larger than what follows. */
    const size_t mid = (size_t)floor((double)(n - 1) * 0.50);
    out->q95 = quantile_select(x, mid, n, 0.95);
    out->q05 = quantile_select_below(x, mid + 1, n, 0.05);
}

/* Moves the variances of the trials that measured something (raw_var not
 * NAN) to the front of raw[0 .. n) and scaled[0 .. n), in trial order (the
 * spreads' sums are in that order), NAN after them, and returns how many
 * there are: n (nothing moved) unless a trial measured nothing. */
static size_t measured_first(double *raw, double *scaled, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(raw[i])) {
            raw[m] = raw[i];
            scaled[m++] = scaled[i];
        }
    for (size_t i = m; i < n; i++) /* still as many that measured nothing */
        raw[i] = scaled[i] = NAN;
    return m;
}

struct sv_summary_acc {
    sv_spec spec;      /* a copy of the resolved spec (trials: all of them) */
    sv_partial trials; /* the trials added so far, from trial 0 */
};

sv_status sv_summary_begin(const sv_spec *spec, sv_summary_acc **acc)
{
    if (acc)
        *acc = NULL;
    sv_status st = sv_spec_check(spec);
    if (st != SV_OK)
        return st;
    if (!acc || spec->trials > SIZE_MAX / sizeof(double))
        return SV_EINVAL;
    sv_summary_acc *a = sv__malloc(sizeof *a);
    if (!a)
        return SV_ENOMEM;
    a->spec = *spec;
    st = sv__partial_init(&a->trials, 0, spec->trials);
    if (st != SV_OK) {
        sv__free(a);
        return st;
    }
    *acc = a;
    return SV_OK;
}

sv_status sv_summary_add(sv_summary_acc *acc, const sv_trial_stats *t, size_t count)
{
    if (!acc || count > acc->spec.trials - acc->trials.n)
        return SV_EINVAL;
    return sv_partial_add(&acc->trials, t, count);
}

/* The theory beside the scaled logits c S (sv_theory_scale). */
static void scaled_theory(const sv_spec *spec, sv_summary *s)
{
    s->scale = sv_spec_scale(spec);
    s->scaled_theory = s->raw_theory;
    (void)sv_theory_scale(spec, &s->scaled_theory); /* neither is NULL */
    s->qk_radius = spec->qk_norm ? spec->qk_radius : NAN;
}

sv_status sv_summary_from_partial(const sv_spec *spec, sv_partial *part, double observed,
                                  sv_summary *out)
{
    return sv_summary_from_partial_want(spec, part, observed, SV_SUMMARY_QUANTILES, out);
}

sv_status sv_summary_from_partial_want(const sv_spec *spec, sv_partial *part, double observed,
                                       unsigned want, sv_summary *out)
{
    if (!spec || !part || !out || part->first != 0 || part->n != spec->trials || part->n == 0)
        return SV_EINVAL;
    const size_t n = (size_t)part->n;
    sv_summary s;
    memset(&s, 0, sizeof s); /* padding too: summaries compare with memcmp */
    sv_status st = sv_theory_spec(spec, &s.raw_theory);
    if (st != SV_OK)
        return st;
    sv_partial_mean(part, &s.mean);
    sv_partial_sd(part, &s.sd);
    /* P(raw_var <= observed), before the quantiles reorder the values. */
    s.observed = observed;
    s.raw_var_cdf_observed = NAN;
    /* Over the trials that measured something (raw_var not NAN: partial.c). */
    const size_t m = measured_first(part->raw_var, part->scaled_var, n);
    if (!isnan(observed) && m > 0) {
        size_t below = 0;
        for (size_t i = 0; i < m; i++)
            below += part->raw_var[i] <= observed;
        s.raw_var_cdf_observed = (double)below / (double)m;
    }
    /* The two spreads are independent: one thread each. */
    double *raw = part->raw_var, *scaled = part->scaled_var;
    const int q = (want & SV_SUMMARY_QUANTILES) != 0;
#pragma omp parallel sections num_threads(2) if (m > 100000)
    {
#pragma omp section
        spread_of(raw, m, q, &s.raw);
#pragma omp section
        spread_of(scaled, m, q, &s.scaled);
    }
    scaled_theory(spec, &s);
    *out = s;
    return SV_OK;
}

sv_status sv_summary_end(sv_summary_acc *acc, double observed, sv_summary *out)
{
    if (!acc)
        return SV_EINVAL;
    sv_status st =
        out ? sv_summary_from_partial(&acc->spec, &acc->trials, observed, out) : SV_EINVAL;
    sv__partial_release(&acc->trials);
    sv__free(acc);
    return st;
}

sv_status sv_summary_compute(const sv_spec *spec, const sv_trial_stats *per_trial, double observed,
                             sv_summary *out)
{
    if (!per_trial || !out)
        return SV_EINVAL;
    sv_summary_acc *acc;
    sv_status st = sv_summary_begin(spec, &acc);
    if (st != SV_OK)
        return st;
    st = sv_summary_add(acc, per_trial, (size_t)spec->trials);
    if (st != SV_OK) {
        sv_summary_end(acc, observed, NULL);
        return st;
    }
    return sv_summary_end(acc, observed, out);
}
