#include "sdpa_var/spec.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "sdpa_var/engine.h"
#include "sizes.h"
#include "spec_rules.h"

double sv_init_variance(sv_init init, size_t d_model, size_t d_k)
{
    if (d_model == 0 || d_k == 0) /* no projections: 1 / 0 for xavier, lecun */
        return NAN;
    switch (init) {
    case SV_INIT_XAVIER:
        return 2.0 / ((double)d_model + (double)d_k);
    case SV_INIT_LECUN:
        return 1.0 / (double)d_model;
    case SV_INIT_NORMAL:
        return 1.0;
    }
    return NAN;
}

/* A named scale left at 0 (sv_spec_set): its multiplier, the rule then
 * spent (SQRT), so that resolved specs hash and store as before. */
static void resolve_rule(sv_spec *spec)
{
    const double d = (double)spec->d_k;
    switch (spec->scale_rule) {
    case SV_SCALE_DK:
        spec->scale = 1.0 / d; /* scale2 = scale^2, below */
        break;
    case SV_SCALE_NONE:
        spec->scale = 1.0;
        break;
    case SV_SCALE_LOGN:
        if (spec->n_k < 2) /* ln 1 = 0: the check names it */
            return;
        /* SSMax's s ln n with s = 1 / sqrt(d_k) (theory.md 15): per row
         * where rows see different counts of keys. */
        if (spec->causal || spec->window > 0)
            spec->scale_logn = 1;
        else
            spec->scale = log((double)spec->n_k) / sqrt(d);
        break;
    default: /* SQRT (below) or VALUE, whose number is the scale */
        return;
    }
    spec->scale_rule = SV_SCALE_SQRT;
}

sv_status sv_spec_resolve(sv_spec *spec)
{
    if (!spec)
        return SV_EINVAL;
    if (spec->q_std == 0.0)
        spec->q_std = 1.0;
    if (spec->k_std == 0.0)
        spec->k_std = 1.0;
    /* d_k = 0 resolves nothing that divides by it (1 / sqrt(0)); the
     * check below refuses it. */
    if (spec->scale == 0.0 && spec->d_k > 0)
        resolve_rule(spec);
    if (spec->scale == 0.0 && spec->d_k > 0 && spec->scale_rule == SV_SCALE_SQRT) {
        spec->scale = 1.0 / sqrt((double)spec->d_k);
        /* 1 / d_k rounded once, not (1 / sqrt(d_k))^2 rounded three times. */
        spec->scale2 = 1.0 / (double)spec->d_k;
    } else if (spec->scale != 0.0 && spec->scale2 == 0.0) {
        spec->scale2 = spec->scale * spec->scale;
    }
    if (spec->qk_norm && spec->qk_radius == 0.0)
        spec->qk_radius = sqrt((double)spec->d_k);
    if (spec->values && spec->d_v == 0)
        spec->d_v = spec->d_k;
    return sv_spec_check(spec);
}

static int positive_finite(double x)
{
    return isfinite(x) && x > 0.0; /* isfinite first: quiet for a NaN */
}

/* A row of the rules: whether @p s breaks it, and what it says. */
typedef struct {
    int bad;
    sv__spec_rule rule;
} spec_rule_row;

/* The first of rows[0 .. n) broken, into *out (1), or 0. */
static int first_broken(const spec_rule_row *rows, size_t n, sv__spec_rule *out)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].bad) {
            *out = rows[i].rule;
            return 1;
        }
    return 0;
}

/* The bounds of single values, the first rules sv__spec_rule_broken checks. */
static int bound_broken(const sv_spec *s, sv__spec_rule *out)
{
    const spec_rule_row rules[] = {
        {s->d_k == 0, {"d_k", "", SV_RULE_NONE, "", "must be at least 1"}},
        {s->n_q == 0, {"n_q", "", SV_RULE_NONE, "", "must be at least 1"}},
        {s->n_k == 0, {"n_k", "", SV_RULE_NONE, "", "must be at least 1"}},
        {s->trials == 0, {"trials", "", SV_RULE_NONE, "", "must be at least 1"}},
        {isnan(sv_dist_fourth_moment(s->dist, s->nu)) && s->dist == SV_DIST_STUDENT_T,
         {"nu", "dist", SV_RULE_NONE, "", "must be more than 4 (a finite fourth moment)"}},
        {isnan(sv_dist_fourth_moment(s->dist, s->nu)),
         {"dist", "", SV_RULE_NONE, "", "is not a distribution"}},
        {s->scale_rule == SV_SCALE_LOGN && s->n_k < 2,
         {"scale", "n_k", SV_RULE_NONE, "", "needs n_k >= 2 (ln 1 = 0)"}},
        {!positive_finite(s->scale) || !positive_finite(s->scale2),
         {"scale", "", SV_RULE_NONE, "", "must be positive and finite, and its square too"}},
        {!positive_finite(s->q_std),
         {"q_std", "", SV_RULE_NONE, "", "must be positive and finite"}},
        {!positive_finite(s->k_std),
         {"k_std", "", SV_RULE_NONE, "", "must be positive and finite"}},
        {!isfinite(s->q_mean), {"q_mean", "", SV_RULE_NONE, "", "must be finite"}},
        {!isfinite(s->k_mean), {"k_mean", "", SV_RULE_NONE, "", "must be finite"}},
        {s->qk_norm && !positive_finite(s->qk_radius),
         {"qk_radius", "", SV_RULE_NONE, "", "must be positive and finite"}},
        {!(s->plant >= -1.0 && s->plant <= 1.0),
         {"plant", "", SV_RULE_NONE, "", "must be between -1 and 1"}},
    };
    return first_broken(rules, sizeof rules / sizeof rules[0], out);
}

/* The rules between values, in the order sv_spec_check_field reports
 * them: the first one a spec breaks, into *out (1), or 0. Each names the field it
 * blames, the other field it is about ("" when none) and why, which
 * sv_spec_check_param (param.c) words. Bounds first (bound_broken). */
int sv__spec_rule_broken(const sv_spec *s, sv__spec_rule *out)
{
    if (bound_broken(s, out))
        return 1;
    const int logn_row = s->scale_logn != 0;
    const spec_rule_row rules[] = {
        /* Projections: their own token draws, so no shifted entries or
         * planted keys on top (the theory covers each alone). */
        {s->d_model > 0 && isnan(sv_init_variance(s->init, s->d_model, s->d_k)),
         {"init", "", SV_RULE_NONE, "", "is not an initialisation"}},
        {s->d_model > 0 && s->plant != 0.0,
         {"plant", "d_model", SV_RULE_EXCLUDES, "", "projections draw their own tokens"}},
        {s->d_model > 0 && s->q_mean != 0.0,
         {"q_mean", "d_model", SV_RULE_EXCLUDES, "", "projections draw their own tokens"}},
        {s->d_model > 0 && s->k_mean != 0.0,
         {"k_mean", "d_model", SV_RULE_EXCLUDES, "", "projections draw their own tokens"}},
        {s->d_model > 0 && s->q_std != 1.0,
         {"q_std", "d_model", SV_RULE_EXCLUDES, "", "projections draw their own tokens"}},
        {s->d_model > 0 && s->k_std != 1.0,
         {"k_std", "d_model", SV_RULE_EXCLUDES, "", "projections draw their own tokens"}},
        {s->cross && s->d_model == 0,
         {"cross", "d_model", SV_RULE_NEEDS, "", "keys from their own tokens"}},
        /* Parameters that do nothing in this experiment, set away from
         * their defaults: refused, not ignored (the CLI and Python alike). */
        {s->d_model == 0 && s->init != SV_INIT_XAVIER,
         {"init", "d_model", SV_RULE_NEEDS, "", "it initialises the projections"}},
        /* nu 0: not set; 6: param.h's default. */
        {s->dist != SV_DIST_STUDENT_T && s->nu != 0.0 && s->nu != 6.0,
         {"nu", "dist", SV_RULE_NEEDS, "t", "degrees of freedom of Student's t"}},
        /* QK-norm rescales a row of mean 0 to norm R whatever its std; a
         * planted key rho q + r z keeps its correlation with q only where
         * the stds differ (docs/theory.md 8.5). */
        {s->qk_norm && s->q_std != 1.0 && s->q_mean == 0.0 && s->plant == 0.0,
         {"q_std", "qk_norm", SV_RULE_EXCLUDES, "",
          "rows of mean 0 are rescaled to norm R whatever S is"}},
        {s->qk_norm && s->k_std != 1.0 && s->k_mean == 0.0 && s->plant == 0.0,
         {"k_std", "qk_norm", SV_RULE_EXCLUDES, "",
          "rows of mean 0 are rescaled to norm R whatever S is"}},
        {s->causal && s->n_q != s->n_k, {"causal", "n_q", SV_RULE_NONE, "", "needs n_q = n_k"}},
        {s->values && s->d_v == 0, {"d_v", "", SV_RULE_NONE, "", "must be at least 1"}},
        {s->grad && !s->values,
         {"grad", "values", SV_RULE_NEEDS, "", "the gradients flow through V"}},
        /* The backward passes know the causal mask only. */
        {s->grad && s->window > 0,
         {"window", "grad", SV_RULE_EXCLUDES, "", "the backward passes are causal only"}},
        /* Log-n scaling per row reaches the softmax statistics only: the
         * outputs, gradients and planted theory have one multiplier. */
        {logn_row && s->grad, {"scale_logn", "grad", SV_RULE_EXCLUDES, "", SV__LOGN_ROW_WHY}},
        {logn_row && s->values, {"scale_logn", "values", SV_RULE_EXCLUDES, "", SV__LOGN_ROW_WHY}},
        {logn_row && s->plant != 0.0,
         {"scale_logn", "plant", SV_RULE_EXCLUDES, "", SV__LOGN_ROW_WHY}},
        {logn_row && s->d_model > 0 && !s->cross,
         {"scale_logn", "d_model", SV_RULE_EXCLUDES, "", SV__LOGN_ROW_WHY}},
    };
    return first_broken(rules, sizeof rules / sizeof rules[0], out);
}

#define SV__STR(x) #x
#define SV__XSTR(x) SV__STR(x)
/* plan.h: a row's weights are binned within one block of keys */
#define SV__WEIGHT_WHY                                                                             \
    "needs n_k <= " SV__XSTR(SV_WEIGHT_HIST_KEYS_MAX) " (a row's weights are binned in one block " \
                                                      "of keys)"

sv_status sv_spec_check_use(const sv_spec *spec, unsigned uses, unsigned *use, const char **why)
{
    const int logn = spec && (spec->scale_logn || spec->scale_rule == SV_SCALE_LOGN);
    const int per_row = spec && (spec->scale_logn || (logn && (spec->causal || spec->window > 0)));
    const struct {
        unsigned use;
        int bad;
        const char *why;
    } rules[] = {
        {SV_USE_MASK, logn, "logn counts the keys of causal and window in drawn rows only"},
        {SV_USE_GIVEN, logn, "logn counts the keys of causal and window in drawn rows only"},
        {SV_USE_HISTOGRAM, per_row, SV__LOGN_ROW_WHY},
        {SV_USE_ROW_SHARD, per_row, SV__LOGN_ROW_WHY},
        {SV_USE_ONE_SCALE, per_row, SV__LOGN_ROW_WHY},
        {SV_USE_WEIGHT_HISTOGRAM, spec && spec->n_k > SV_WEIGHT_HIST_KEYS_MAX, SV__WEIGHT_WHY},
    };
    unsigned bad = 0;
    const char *reason = "";
    for (size_t i = 0; !bad && i < sizeof rules / sizeof rules[0]; i++)
        if ((uses & rules[i].use) && rules[i].bad) {
            bad = rules[i].use;
            reason = rules[i].why;
        }
    if (use)
        *use = bad;
    if (why)
        *why = reason;
    return spec && !bad ? SV_OK : SV_EINVAL;
}

void sv_spec_row_keys(const sv_spec *spec, size_t i, size_t *lo, size_t *hi)
{
    size_t a = 0, b = 0;
    if (spec) {
        const size_t nk = spec->n_k, w = spec->window;
        b = nk;
        if (spec->causal)
            b = i < nk ? i + 1 : nk;
        else if (w > 0)
            b = i < nk && w <= nk - i ? i + w : nk; /* i + w without wrapping */
        if (w > 0 && i + 1 > w)                     /* i < SIZE_MAX for any row */
            a = i + 1 - w;
    }
    *lo = a;
    *hi = b;
}

/* Keys row i sees under a window. */
static size_t row_count(const sv_spec *spec, size_t i)
{
    size_t lo, hi;
    sv_spec_row_keys(spec, i, &lo, &hi);
    return hi > lo ? hi - lo : 0;
}

static size_t sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* The visible scores under a window, in O(1): a row's key count is linear
 * in i between the points where a clamp of sv_spec_row_keys switches
 * (w - 1, n_k - w, n_k - 1, n_k + w - 1, each +-1), so each stretch is an
 * arithmetic series, summed as count * (first + last) / 2 with the even
 * factor halved first. At most n_q n_k (checked by the caller): no
 * overflow of the 64-bit sum. A row-by-row loop was O(n_q): a crafted
 * state file took seconds to check. */
static uint64_t window_scores(const sv_spec *spec)
{
    const size_t nq = spec->n_q, nk = spec->n_k, w = spec->window;
    size_t cut[16] = {0, nq};
    size_t m = 2;
    const size_t base[4] = {w - 1, nk >= w ? nk - w : 0, nk - 1, sat_add(nk, w - 1)};
    for (int k = 0; k < 4; k++) {
        cut[m++] = base[k] < nq ? base[k] : nq;
        cut[m++] = sat_add(base[k], 1) < nq ? base[k] + 1 : nq;
        cut[m++] = base[k] > 0 && base[k] - 1 < nq ? base[k] - 1 : 0;
    }
    for (size_t a = 1; a < m; a++) /* insertion sort of 14 numbers */
        for (size_t b = a; b > 0 && cut[b - 1] > cut[b]; b--) {
            const size_t t = cut[b];
            cut[b] = cut[b - 1];
            cut[b - 1] = t;
        }
    uint64_t sum = 0;
    for (size_t k = 0; k + 1 < m; k++) {
        const size_t a = cut[k], b = cut[k + 1];
        if (b <= a)
            continue;
        const uint64_t len = b - a, ends = (uint64_t)row_count(spec, a) + row_count(spec, b - 1);
        sum += len % 2 == 0 ? len / 2 * ends : ends / 2 * len;
    }
    return sum;
}

sv_status sv_spec_scores(const sv_spec *spec, uint64_t *n)
{
    if (!spec || !n)
        return SV_EINVAL;
    /* A count in 64 bits, not a size: 2^32 scores (n = 65 536) must pass
     * where size_t has 32 bits (WebAssembly). */
    uint64_t all;
    if (!mul64_ok(spec->n_q, spec->n_k, &all))
        return SV_ERANGE;
    if (spec->window > 0) {
        *n = window_scores(spec);
        return SV_OK;
    }
    if (!spec->causal) {
        *n = all;
        return SV_OK;
    }
    /* causal: the visible scores n (n + 1) / 2, without forming n (n + 1);
     * n = n_q (the mask needs n_q = n_k, but a spec not yet checked may
     * differ: n_q = SIZE_MAX, n_k = 1 must not wrap to 0). */
    const uint64_t q = spec->n_q;
    uint64_t causal;
    if (q == UINT64_MAX ||
        !mul64_ok(q % 2 == 0 ? q / 2 : (q + 1) / 2, q % 2 == 0 ? q + 1 : q, &causal))
        return SV_ERANGE;
    *n = causal;
    return SV_OK;
}

/* The largest |x| one draw of dist can give. Normal: the ziggurat's tail
 * returns R - ln(u) / R with u >= 2^-54 and R = 3.4426, so |x| < 14.32.
 * Uniform: sqrt 3. Student t: z sqrt((nu - 2) / (2 g)), g = d v the
 * Marsaglia-Tsang gamma draw; a small v passes the exact test only while
 * ln u >= -37.4, and a grid search over nu in (4, 200] and the accepted
 * (z, v) finds |x| <= 1.2e7 (above nu = 200, v >= 1/8 and |x| < 45);
 * 1e9 leaves a margin of 80. */
static double dist_max_abs(sv_dist dist)
{
    switch (dist) {
    case SV_DIST_NORMAL:
        return 14.4;
    case SV_DIST_UNIFORM:
        return sqrt(3.0);
    case SV_DIST_RADEMACHER:
        return 1.0;
    case SV_DIST_STUDENT_T:
        return 1e9;
    }
    return NAN;
}

/* The bound of sv_spec_score_bound, and the field whose term is largest. */
static double score_bound(const sv_spec *s, const char **blame)
{
    const double x = dist_max_abs(s->dist), d = (double)s->d_k;
    const double terms[4] = {fabs(s->q_mean), s->q_std * x, fabs(s->k_mean), s->k_std * x};
    static const char *const names[4] = {"q_mean", "q_std", "k_mean", "k_std"};
    size_t top = 0;
    for (size_t i = 1; i < 4; i++)
        top = terms[i] > terms[top] ? i : top;
    double a = terms[0] + terms[1] + terms[2] + terms[3];
    *blame = d * a * a > SV_SCORE_MAX && d * terms[top] * terms[top] <= SV_SCORE_MAX / 4.0
                 ? "d_k"
                 : names[top];
    if (s->d_model > 0) { /* |W| <= 14.4: normal with variance <= 1 */
        a = 2.0 * 14.4 * (double)s->d_model * x;
        *blame = "d_model";
    }
    double b = d * a * a;
    if (s->qk_norm && s->qk_radius * s->qk_radius > b) {
        b = s->qk_radius * s->qk_radius;
        *blame = "qk_radius";
    }
    /* With scale_logn a row's multiplier is at most scale ln n_k. */
    const double c = s->scale_logn && s->n_k > 1 ? s->scale * log((double)s->n_k) : s->scale;
    if (b <= SV_SCORE_MAX && b * c > SV_SCORE_MAX)
        *blame = "scale";
    return fmax(b, b * c);
}

double sv_spec_score_bound(const sv_spec *spec)
{
    const char *blame;
    return spec ? score_bound(spec, &blame) : NAN;
}

#define SV_FAIL(name, status)                                                                      \
    do {                                                                                           \
        if (field)                                                                                 \
            *field = name;                                                                         \
        return status;                                                                             \
    } while (0)

sv_status sv_spec_check_field(const sv_spec *spec, const char **field)
{
    if (!spec)
        SV_FAIL("spec", SV_EINVAL);
    sv__spec_rule bad;
    if (sv__spec_rule_broken(spec, &bad))
        SV_FAIL(bad.field, SV_EINVAL);
    /* Every size the engine forms from the spec alone, in elements and in
     * bytes (plan.c checks the ones that depend on threads and tiles). */
    size_t rows, elems, v;
    uint64_t n; /* scores: a count, never allocated (sv_spec_scores) */
    if (!mul_ok(spec->d_model, spec->d_k, &elems) || !mul_ok(elems, 2 * sizeof(double), &elems))
        SV_FAIL("d_model", SV_ERANGE);
    if (sv_spec_scores(spec, &n) != SV_OK || !add_ok(spec->n_q, spec->n_k, &rows) ||
        !mul_ok(rows, spec->d_k, &elems) || !mul_ok(elems, sizeof(double), &elems))
        SV_FAIL("n_q", SV_ERANGE);
    if (!mul_ok(spec->n_k, spec->d_v, &v) || !mul_ok(v, sizeof(double), &v) ||
        !mul_ok(spec->n_q, 2 * spec->d_v, &v) || !mul_ok(v, sizeof(double), &v))
        SV_FAIL("d_v", SV_ERANGE);
    if (n <= spec->ddof)
        SV_FAIL("ddof", SV_EINVAL);
    if (spec->d_k > INT_MAX)
        SV_FAIL("d_k", SV_ETOOBIG);
    if (spec->d_v > INT_MAX)
        SV_FAIL("d_v", SV_ETOOBIG);
    if (spec->d_model > INT_MAX)
        SV_FAIL("d_model", SV_ETOOBIG);
    const char *blame;
    if (!(score_bound(spec, &blame) <= SV_SCORE_MAX))
        SV_FAIL(blame, SV_EOVERFLOW);
    /* Deviations that double precision cannot hold (spec.h). */
    if (fabs(spec->q_mean) > SV_MEAN_STD_MAX * spec->q_std)
        SV_FAIL("q_mean", SV_EPRECISION);
    if (fabs(spec->k_mean) > SV_MEAN_STD_MAX * spec->k_std)
        SV_FAIL("k_mean", SV_EPRECISION);
    if (field)
        *field = NULL;
    return SV_OK;
}

#undef SV_FAIL

sv_status sv_spec_check(const sv_spec *spec)
{
    return sv_spec_check_field(spec, NULL);
}

/* FNV-1a over 64-bit words (Fowler, Noll & Vo): simple, and enough to tell
 * specs apart; the words are the fields, never the struct's bytes. */
static uint64_t hash_word(uint64_t h, uint64_t x)
{
    for (int i = 0; i < 8; i++) {
        h ^= (x >> (8 * i)) & 0xffu;
        h *= 0x100000001b3u;
    }
    return h;
}

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

uint64_t sv_spec_hash(const sv_spec *s)
{
    if (!s)
        return 0u;
    const uint64_t words[] = {s->d_k,
                              s->n_q,
                              s->n_k,
                              s->trials,
                              s->seed,
                              (uint64_t)s->dist,
                              bits_of(s->nu),
                              bits_of(s->scale),
                              bits_of(s->scale2),
                              bits_of(s->q_mean),
                              bits_of(s->q_std),
                              bits_of(s->k_mean),
                              bits_of(s->k_std),
                              (uint64_t)s->qk_norm,
                              bits_of(s->qk_radius),
                              s->d_model,
                              (uint64_t)s->init,
                              (uint64_t)s->cross,
                              (uint64_t)s->causal,
                              (uint64_t)s->values,
                              s->d_v,
                              bits_of(s->plant),
                              s->ddof};
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        h = hash_word(h, words[i]);
    /* Hashed only when on: the hashes of specs without it do not change. */
    h = s->grad ? hash_word(h, (uint64_t)s->grad) : h;
    h = s->scale_logn ? hash_word(h, 0x6c6f676eu) : h;
    return s->window ? hash_word(h, (uint64_t)s->window ^ 0x77696e646f77u) : h;
}

double sv_spec_scale(const sv_spec *spec)
{
    return spec ? spec->scale : NAN;
}

double sv_spec_row_scale(const sv_spec *spec, size_t i)
{
    if (!spec)
        return NAN;
    if (!spec->scale_logn)
        return spec->scale;
    size_t lo, hi;
    sv_spec_row_keys(spec, i, &lo, &hi);
    return hi > lo ? spec->scale * log((double)(hi - lo)) : NAN;
}

double sv_spec_scale2(const sv_spec *spec)
{
    return spec ? spec->scale2 : NAN;
}

sv_status sv_taps_check(const sv_taps *t, const sv_spec *spec)
{
    if (t && (t->skip & ~SV_SKIP_ALL))
        return SV_EINVAL;
    if (!t || t->hist_bins == 0)
        return SV_OK;
    if (!spec)
        return SV_EINVAL;
    if (!(t->hist_lo < t->hist_hi) || !isfinite(t->hist_lo) || !isfinite(t->hist_hi) ||
        !t->hist_raw || !t->hist_scaled ||
        (t->hist_w_raw && (!t->hist_w_scaled ||
                           sv_spec_check_use(spec, SV_USE_WEIGHT_HISTOGRAM, NULL, NULL) != SV_OK)))
        return SV_EINVAL;
    return SV_OK;
}
