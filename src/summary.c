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

/* Field indices of the statistics that are extremes, not means. */
#define SV_F(name) (offsetof(sv_trial_stats, name) / sizeof(double))

sv_status sv_summary_begin(const sv_config *cfg, sv_summary_acc *acc)
{
    sv_status st = sv_config_check(cfg);
    if (st != SV_OK)
        return st;
    if (!acc || cfg->trials > SIZE_MAX / sizeof(double))
        return SV_EINVAL;
    const size_t n = (size_t)cfg->trials;
    *acc = (sv_summary_acc){
        .cfg = *cfg, .lo = {INFINITY, INFINITY}, .hi = {-INFINITY, -INFINITY, -INFINITY}};
    acc->raw_var = malloc(n * sizeof(double));
    acc->scaled_var = malloc(n * sizeof(double));
    if (!acc->raw_var || !acc->scaled_var) {
        free(acc->raw_var);
        free(acc->scaled_var);
        return SV_ENOMEM;
    }
    return SV_OK;
}

/* Adds trials t[0 .. count-1] to the block sum `part` (trial order) and
 * their extremes to lo/hi. */
static void add_trials(const sv_trial_stats *t, size_t count, double *part, double *lo, double *hi)
{
    double v[SV_TRIAL_FIELDS];
    for (size_t i = 0; i < count; i++) {
        memcpy(v, &t[i], sizeof v);
        for (size_t f = 0; f < SV_TRIAL_FIELDS; f++)
            part[f] += v[f];
        lo[0] = fmin(lo[0], v[SV_F(raw_entropy_min)]);
        lo[1] = fmin(lo[1], v[SV_F(scaled_entropy_min)]);
        hi[0] = fmax(hi[0], v[SV_F(raw_entropy_max)]);
        hi[1] = fmax(hi[1], v[SV_F(scaled_entropy_max)]);
        hi[2] = fmax(hi[2], v[SV_F(raw_max_abs_logit)]);
    }
}

/* Folds a finished block into the running sums. */
static void fold_block(sv_summary_acc *acc, double *part)
{
    for (size_t f = 0; f < SV_TRIAL_FIELDS; f++) {
        acc->sum[f] += part[f];
        part[f] = 0.0;
    }
}

void sv_summary_add(sv_summary_acc *acc, const sv_trial_stats *t, size_t count)
{
    const size_t B = SV_SUMMARY_BLOCK;
    for (size_t i = 0; i < count; i++) {
        acc->raw_var[acc->n + i] = t[i].raw_var;
        acc->scaled_var[acc->n + i] = t[i].scaled_var;
    }
    /* Finish the block in progress, trial by trial. */
    size_t i = 0;
    const size_t head = (size_t)((B - acc->n % B) % B);
    if (head > 0) {
        const size_t m = head < count ? head : count;
        add_trials(t, m, acc->part, acc->lo, acc->hi);
        i = m;
        if (m == head)
            fold_block(acc, acc->part);
    }
    /* Whole blocks in parallel, each summed in trial order, folded in
     * block order. */
    const size_t nblocks = (count - i) / B;
    if (nblocks > 0) {
        double *sums = calloc(nblocks * SV_TRIAL_FIELDS, sizeof(double));
        double lo[2] = {acc->lo[0], acc->lo[1]}, hi[3] = {acc->hi[0], acc->hi[1], acc->hi[2]};
        if (!sums) { /* no memory for the partials: the same sums, one thread */
            for (size_t b = 0; b < nblocks; b++) {
                add_trials(t + i + b * B, B, acc->part, lo, hi);
                fold_block(acc, acc->part);
            }
        } else {
#pragma omp parallel for schedule(static) reduction(min                                            \
                                                    : lo[:2]) reduction(max                        \
                                                                        : hi[:3]) if (nblocks > 8)
            for (size_t b = 0; b < nblocks; b++)
                add_trials(t + i + b * B, B, sums + b * SV_TRIAL_FIELDS, lo, hi);
            for (size_t b = 0; b < nblocks; b++)
                fold_block(acc, sums + b * SV_TRIAL_FIELDS);
            free(sums);
        }
        acc->lo[0] = lo[0];
        acc->lo[1] = lo[1];
        acc->hi[0] = hi[0];
        acc->hi[1] = hi[1];
        acc->hi[2] = hi[2];
        i += nblocks * B;
    }
    /* The start of the next block. */
    add_trials(t + i, count - i, acc->part, acc->lo, acc->hi);
    acc->n += count;
}

sv_status sv_summary_end(sv_summary_acc *acc, double observed, sv_summary *out)
{
    const sv_config *cfg = &acc->cfg;
    const size_t n = (size_t)acc->n;
    sv_summary s;
    sv_status st = n == cfg->trials ? sv_theory_config(cfg, &s.raw_theory) : SV_EINVAL;
    if (st != SV_OK || !out) {
        free(acc->raw_var);
        free(acc->scaled_var);
        return st != SV_OK ? st : SV_EINVAL;
    }
    double mean[SV_TRIAL_FIELDS];
    fold_block(acc, acc->part); /* the last, partial block */
    for (size_t f = 0; f < SV_TRIAL_FIELDS; f++)
        mean[f] = acc->sum[f] / (double)n;
    mean[SV_F(raw_entropy_min)] = acc->lo[0];
    mean[SV_F(scaled_entropy_min)] = acc->lo[1];
    mean[SV_F(raw_entropy_max)] = acc->hi[0];
    mean[SV_F(scaled_entropy_max)] = acc->hi[1];
    mean[SV_F(raw_max_abs_logit)] = acc->hi[2];
    memcpy(&s.mean, mean, sizeof mean);
    /* P(raw_var <= observed), before the quantiles reorder the values. */
    s.observed = observed;
    s.raw_var_cdf_observed = NAN;
    if (!isnan(observed)) {
        size_t below = 0;
        for (size_t i = 0; i < n; i++)
            below += acc->raw_var[i] <= observed;
        s.raw_var_cdf_observed = (double)below / (double)n;
    }
    /* The two spreads are independent: one thread each. */
    double *raw = acc->raw_var, *scaled = acc->scaled_var;
#pragma omp parallel sections num_threads(2) if (n > 100000)
    {
#pragma omp section
        spread_of(raw, n, &s.raw);
#pragma omp section
        spread_of(scaled, n, &s.scaled);
    }
    free(acc->raw_var);
    free(acc->scaled_var);

    /* Scaled logits are S / c: means divide by c, variances by c^2. */
    const double c = sv_config_scale(cfg), c2 = sv_config_scale2(cfg);
    s.scale = c;
    s.scaled_theory = s.raw_theory;
    s.scaled_theory.mean /= c;
    s.scaled_theory.var /= c2;
    s.scaled_theory.var_expected /= c2;
    s.scaled_theory.var_sd /= c2;
    s.scaled_theory.diag_logit /= c;
    s.qk_radius =
        cfg->qk_norm ? (cfg->qk_scale > 0.0 ? cfg->qk_scale : sqrt((double)cfg->d_k)) : NAN;
    /* ln(keys seen) - sigma^2 / 2, with sigma^2 / c^2 for the scaled rows. */
    const double nq = (double)cfg->n_q;
    const double ln_keys = cfg->causal ? lgamma(nq + 1.0) / nq : log((double)cfg->n_k);
    s.scaled_theory.entropy_approx = ln_keys - (ln_keys - s.raw_theory.entropy_approx) / c2;

    *out = s;
    return SV_OK;
}

sv_status sv_summary_compute(const sv_config *cfg, const sv_trial_stats *per_trial, double observed,
                             sv_summary *out)
{
    if (!per_trial || !out)
        return SV_EINVAL;
    sv_summary_acc acc;
    sv_status st = sv_summary_begin(cfg, &acc);
    if (st != SV_OK)
        return st;
    sv_summary_add(&acc, per_trial, (size_t)cfg->trials);
    return sv_summary_end(&acc, observed, out);
}
