/* A partial's trials into a block's sums and Welford pairs (partial.c):
 * which trials each field's sums leave out, the vectorised pass when no
 * trial is left out of any field (or one is left out of them all), and
 * the trial-by-trial pass otherwise. */
#include "partial_impl.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "plan.h"
#include "vexp.h"

#define F SV_TRIAL_FIELDS

/* A trial that measured nothing (every query row of a caller's head sees
 * no key under its mask, or a window's: raw_var NAN, which the engine
 * allows nowhere else) has no value for any statistic over rows or
 * scores, only for its entries' (Q's and K's measured mean and variance)
 * and rows_empty. It is left out of the sums, Welford pairs and counts of
 * every other field, so that a mean over trials is the mean over the
 * trials that measured something, NAN if none did; the entries' fields and
 * rows_empty stay over every trial. Counting such trials needs only
 * raw_var, which a partial keeps per trial.
 * A trial whose entropy_norm is NaN (no query row sees two keys, as under
 * a mask that lets each row see at most one, or every trial of n_k = 1;
 * also every one that measured nothing) is left out likewise of the two
 * entropy_norm fields, which the engine makes NaN together (rowfold.c,
 * both from n_hn: raw_entropy_norm decides for both here). Counting those
 * needs the field, which a partial does not keep per trial: it keeps their
 * count per block (sv_partial's block_undef). */
/* every field not named: SV_FIELD_ROWS (0) */
#define CLASS_(name, c) [offsetof(sv_trial_stats, name) / sizeof(double)] = (c),
const unsigned char sv__field_class[F] = {
    CLASS_(q_var, SV_FIELD_ENTRY) CLASS_(k_var, SV_FIELD_ENTRY) CLASS_(q_mean, SV_FIELD_ENTRY)
        CLASS_(k_mean, SV_FIELD_ENTRY) CLASS_(rows_empty, SV_FIELD_ENTRY)
            CLASS_(raw_entropy_norm, SV_FIELD_NORM) CLASS_(scaled_entropy_norm, SV_FIELD_NORM)};
#undef CLASS_

#define RAW_VAR_FIELD (offsetof(sv_trial_stats, raw_var) / sizeof(double))
#define NORM_FIELD (offsetof(sv_trial_stats, raw_entropy_norm) / sizeof(double))

static int measured_nothing(const sv_trial_stats *t)
{
    return isnan(t->raw_var);
}

static int norm_undefined(const sv_trial_stats *t)
{
    return isnan(t->raw_entropy_norm) || measured_nothing(t);
}

void sv__class_counts(uint64_t n, const sv_left_out *lo, uint64_t counts[SV_FIELD_CLASSES])
{
    counts[SV_FIELD_ROWS] = n - lo->empty;
    counts[SV_FIELD_NORM] = n - lo->undef;
    counts[SV_FIELD_ENTRY] = n;
}

/* One trial's extremes (SV_TRIAL_STATS_MAP's MIN and MAX fields) into e;
 * sv__fmin, sv__fmax (plan.h): fmin and fmax, inline. */
#define MIN_(a, b) a = sv__fmin(a, b);
#define MAX_(a, b) a = sv__fmax(a, b);
#define MEAN_(a, b)
#if defined(__GNUC__)
__attribute__((always_inline)) /* into each Welford variant, once per trial */
#endif
static inline void
extremes_add(sv_trial_extremes *e, const sv_trial_stats *t)
{
#define ADD_(name, reduce, number, skip) reduce##_(e->name, t->name)
    SV_TRIAL_STATS_MAP(ADD_)
}

/* Adds trials t[0 .. count-1] to the sum `sum` (trial order) and to the
 * running mean and M2 `w` (w[0 .. F): means, w[F .. 2F): sums of squared
 * deviations; Welford 1962, after `done` trials of the same block). Each
 * field on its own: any vector width gives the same bits, so the loop is
 * compiled for AVX-512, AVX2 and plain x86-64 (as softmax.c's row loops)
 * and sv__cpu_level() picks one. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define SV_WELFORD_VARIANTS 1
#define WELFORD_INLINE static inline __attribute__((always_inline))
#else
#define WELFORD_INLINE static inline
#endif

/* One pass over the trials: their variances to vars (unless NULL), their
 * fields to sum and (unless w is NULL) to the running means and M2, their
 * extremes to e. */
WELFORD_INLINE void welford_body(const sv_trial_stats *t, size_t count, double *sum, double *w,
                                 uint64_t done, double *const *vars, sv_trial_extremes *e)
{
    for (size_t i = 0; i < count; i++) {
        const double *v = (const double *)&t[i]; /* F doubles: partial_impl.h */
        if (vars) {
            vars[0][i] = t[i].raw_var;
            vars[1][i] = t[i].scaled_var;
        }
        if (w) {
            const double k = (double)(done + i + 1);
#pragma omp simd
            for (size_t f = 0; f < F; f++) {
                sum[f] += v[f];
                const double delta = v[f] - w[f];
                w[f] += delta / k;
                w[F + f] += delta * (v[f] - w[f]);
            }
        } else {
#pragma omp simd
            for (size_t f = 0; f < F; f++)
                sum[f] += v[f];
        }
        extremes_add(e, &t[i]);
    }
}

typedef void welford_fn(const sv_trial_stats *, size_t, double *, double *, uint64_t,
                        double *const *, sv_trial_extremes *);

static void welford_default(const sv_trial_stats *t, size_t count, double *sum, double *w,
                            uint64_t done, double *const *vars, sv_trial_extremes *e)
{
    welford_body(t, count, sum, w, done, vars, e);
}

#if defined(SV_WELFORD_VARIANTS)
__attribute__((target("avx2"))) static void welford_avx2(const sv_trial_stats *t, size_t count,
                                                         double *sum, double *w, uint64_t done,
                                                         double *const *vars, sv_trial_extremes *e)
{
    welford_body(t, count, sum, w, done, vars, e);
}

__attribute__((target("avx512f"))) static void welford_avx512(const sv_trial_stats *t, size_t count,
                                                              double *sum, double *w, uint64_t done,
                                                              double *const *vars,
                                                              sv_trial_extremes *e)
{
    welford_body(t, count, sum, w, done, vars, e);
}
#endif

/* welford_body when a block leaves a trial out of some field's sums (a
 * trial that measured nothing, or a mix of trials with and without an
 * entropy_norm): trial by trial, each field's sum, mean and M2 over the
 * trials its class keeps (sv__field_class); *lo: the block's trials left
 * out so far (done trials before these), then these too. The same
 * operations as welford_body's on the trials a field keeps, so the same
 * bits while none is left out. While no trial of the block has an
 * entropy_norm, those that measured something add their NaN as
 * welford_body does (a block without one reads NaN however its trials
 * came); the first with one starts those fields afresh. Only for blocks
 * that leave a trial out: never on random draws without a window. With
 * norm_only, only the entropy_norm fields (the others added already by
 * welford_body, which gives them these bits when no trial measured
 * nothing). */
static void welford_sparse(const sv_trial_stats *t, size_t count, double *sum, double *w,
                           uint64_t done, sv_left_out *lo, double *const *vars,
                           sv_trial_extremes *e, int norm_only)
{
    for (size_t i = 0; i < count; i++) {
        const double *v = (const double *)&t[i];
        const uint64_t seen = done + i; /* the block's trials before this one */
        const int none = measured_nothing(&t[i]), undef = norm_undefined(&t[i]);
        const int no_norm_yet = lo->undef == seen;
        lo->empty += (uint64_t)none;
        lo->undef += (uint64_t)undef;
        const int nan_norm = undef && !none && no_norm_yet; /* added: NaN stays NaN */
        const int skip[SV_FIELD_CLASSES] = {none || norm_only, undef && !nan_norm, norm_only};
        const double k[SV_FIELD_CLASSES] = {(double)(seen + 1 - lo->empty),
                                            (double)(seen + 1 - (nan_norm ? 0 : lo->undef)),
                                            (double)(seen + 1)};
        if (vars) {
            vars[0][i] = t[i].raw_var;
            vars[1][i] = t[i].scaled_var;
        }
        for (size_t f = 0; f < F; f++) {
            const unsigned c = sv__field_class[f];
            if (skip[c])
                continue;
            if (c == SV_FIELD_NORM && !undef && no_norm_yet) { /* the block's first: afresh */
                sum[f] = 0.0;
                if (w)
                    w[f] = w[F + f] = 0.0;
            }
            sum[f] += v[f];
            if (w) {
                const double delta = v[f] - w[f];
                w[f] += delta / k[c];
                w[F + f] += delta * (v[f] - w[f]);
            }
        }
        extremes_add(e, &t[i]);
    }
}

/* Trials of t[0 .. count) whose entropy_norm is NaN: one load each. */
static uint64_t count_nan_norm(const sv_trial_stats *t, size_t count)
{
    uint64_t u = 0;
    for (size_t i = 0; i < count; i++)
        u += (uint64_t)isnan(t[i].raw_entropy_norm);
    return u;
}

/* Whether any of t[0 .. count) measured nothing: one load per trial. */
static int any_empty(const sv_trial_stats *t, size_t count)
{
    int any = 0;
    for (size_t i = 0; i < count; i++)
        any |= measured_nothing(&t[i]);
    return any;
}

/* Whether welford_body's sums of entropy_norm are right after adding
 * count trials, undef of them without one, to a block of done trials that
 * measured something, lo->undef of them without one: all of them have one
 * or none has. */
static int norm_uniform(uint64_t undef, size_t count, const sv_left_out *lo, uint64_t done)
{
    return (undef == 0 && lo->undef == 0) || (undef == count && lo->undef == done);
}

static welford_fn *welford_pick(void)
{
#if defined(SV_WELFORD_VARIANTS)
    switch (sv__cpu_level()) {
    case SV_CPU_AVX512:
        return welford_avx512;
    case SV_CPU_AVX2:
        return welford_avx2;
    }
#endif
    return welford_default;
}

/* The entropy_norm fields' sum, mean and M2 (adjacent fields) of a block
 * into keep[0 .. 6), or (back) from it. */
static void norm_swap(double *sum, double *w, double *keep, int back)
{
    double *const at[3] = {sum + NORM_FIELD, w + NORM_FIELD, w + F + NORM_FIELD};
    for (size_t a = 0; a < 3; a++)
        for (size_t j = 0; j < 2; j++)
            *(back ? &at[a][j] : &keep[2 * a + j]) = back ? keep[2 * a + j] : at[a][j];
}

static_assert(offsetof(sv_trial_stats, scaled_entropy_norm) ==
                  offsetof(sv_trial_stats, raw_entropy_norm) + sizeof(double),
              "the two entropy_norm fields are adjacent");

/* Batches of at most this many trials are looked at (any_empty) before
 * the Welford pass, their lines then hot; a larger batch is seen by its
 * raw_var sum turning NAN after the pass, and then summed again the slow
 * way from a copy of the block's sums: no pass over memory of its own.
 * Any batch whose entropy_norm sums are NAN after the pass has its
 * entropy_norms counted (lines hot); unless all or none of the block's
 * have one, those two fields alone are summed again the slow way. */
#define LOOK_AHEAD 8u

void sv__partial_fold(const sv_trial_stats *t, size_t count, double *sum, double *w, uint64_t done,
                      sv_left_out *lo, int m2, double *const *vars, sv_trial_extremes *e)
{
    welford_fn *welford = welford_pick();
    const int small = count <= LOOK_AHEAD;
    int sparse =
        lo->empty > 0 || (lo->undef > 0 && lo->undef < done) || (small && any_empty(t, count));
    if (!sparse) {
        double before[3 * F], norm[6]; /* the block's sums, means and M2s */
        if (!small) {
            memcpy(before, sum, F * sizeof(double));
            memcpy(before + F, w, (size_t)2 * F * sizeof(double));
        }
        norm_swap(sum, w, norm, 0);
        welford(t, count, sum, m2 ? w : NULL, done, vars, e);
        if (!small && isnan(sum[RAW_VAR_FIELD])) { /* a trial measured nothing */
            memcpy(sum, before, F * sizeof(double));
            memcpy(w, before + F, (size_t)2 * F * sizeof(double));
            sparse = 1; /* its extremes and variances again: the same values */
        } else if (isnan(sum[NORM_FIELD])) {
            const uint64_t undef = count_nan_norm(t, count);
            if (norm_uniform(undef, count, lo, done))
                lo->undef += undef;
            else { /* some have one: those two fields again, over those */
                norm_swap(sum, w, norm, 1);
                welford_sparse(t, count, sum, m2 ? w : NULL, done, lo, NULL, e, 1);
            }
        }
    }
    if (sparse)
        welford_sparse(t, count, sum, m2 ? w : NULL, done, lo, vars, e, 0);
    for (size_t f = 0; !m2 && f < (size_t)2 * F; f++)
        w[f] = NAN;
}
