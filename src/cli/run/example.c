/* --example (example.h). */
#include "example.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Trial 0's rows of Q and K, drawn as the engine draws them. */
typedef struct drawn {
    double *q, *k; /* n_q x d_k, n_k x d_k, row-major */
} drawn;

static sv_status draw(const sv_spec *spec, drawn *d)
{
    sv_source src;
    sv_status st = sv_source_draw(spec, &src);
    if (st != SV_OK)
        return st;
    const size_t dk = spec->d_k;
    d->q = malloc(spec->n_q * dk * sizeof(double));
    d->k = malloc(spec->n_k * dk * sizeof(double));
    double *state = calloc(src.trial_len + 1, sizeof(double));
    double *scratch = calloc(src.scratch_len + 1, sizeof(double));
    if (!d->q || !d->k || !state || !scratch) {
        st = SV_ENOMEM;
    } else {
        if (src.trial_len > 0)
            src.begin_trial(&src, 0, state);
        for (size_t i = 0; i < spec->n_q; i++) /* row by row: the engine's streams */
            src.rows(&src, state, 0, SV_MATRIX_Q, i, 1, d->q + i * dk, dk, scratch);
        for (size_t j = 0; j < spec->n_k; j++)
            src.rows(&src, state, 0, SV_MATRIX_K, j, 1, d->k + j * dk, dk, scratch);
    }
    free(state);
    free(scratch);
    if (st != SV_OK) {
        free(d->q);
        free(d->k);
    }
    return st;
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0.0;
    for (size_t l = 0; l < n; l++)
        s += a[l] * b[l];
    return s;
}

/* "name = np.array([[...], ...])": numpy reads it back as printed. */
static void matrix(FILE *f, const char *name, const double *x, size_t rows, size_t cols)
{
    const int indent = (int)strlen(name) + 13; /* under the first '[' of a row */
    fprintf(f, "%s = np.array([", name);
    for (size_t i = 0; i < rows; i++) {
        fprintf(f, "%s%*s[", i ? ",\n" : "", i ? indent : 0, "");
        for (size_t l = 0; l < cols; l++)
            fprintf(f, "%s%9.5f", l ? ", " : "", x[i * cols + l]);
        fputc(']', f);
    }
    fputs("])\n", f);
}

/* Small sizes: Q, K, S = Q K^T and S's sample variance, as the engine
 * measures it (the visible scores, about their mean, over N - ddof). */
static void header(FILE *f, const sv_spec *spec)
{
    fprintf(f,
            "# sdpa-var: trial 0 of d_k=%zu n_q=%zu n_k=%zu seed=%llu dist=%s: the numbers\n"
            "# the run draws (its per-trial row 0).\n",
            spec->d_k, spec->n_q, spec->n_k, (unsigned long long)spec->seed,
            sv_dist_name(spec->dist));
}

static void small(FILE *f, const sv_spec *spec, const drawn *d)
{
    header(f, spec);
    const size_t nq = spec->n_q, nk = spec->n_k, dk = spec->d_k;
    double s[CLI_EXAMPLE_MATRIX_MAX * CLI_EXAMPLE_MATRIX_MAX];
    double sum = 0.0, n = 0.0;
    for (size_t i = 0; i < nq; i++)
        for (size_t j = 0; j < nk; j++) {
            s[i * nk + j] = dot(d->q + i * dk, d->k + j * dk, dk);
            if (!spec->causal || j <= i)
                sum += s[i * nk + j], n += 1.0;
        }
    double m2 = 0.0;
    for (size_t i = 0; i < nq; i++)
        for (size_t j = 0; j < nk && (!spec->causal || j <= i); j++)
            m2 += (s[i * nk + j] - sum / n) * (s[i * nk + j] - sum / n);
    matrix(f, "Q", d->q, nq, dk);
    matrix(f, "K", d->k, nk, dk);
    matrix(f, "S", s, nq, nk);
    fprintf(f,
            "# S = Q @ K.T: each score is the dot product of a query and a key.\n"
            "# Sample variance of its %s%.0f scores (ddof %u%s): %.6f\n",
            spec->causal ? "visible " : "", n, spec->ddof,
            spec->ddof == 0 ? ", numpy's S.var()" : "", m2 / (n - (double)spec->ddof));
    fprintf(f,
            "# One trial lands anywhere around its expectation: over many trials the\n"
            "# mean of this variance is E = d_k (N - 1)/(N - ddof) = %g for unit\n"
            "# entries, and each score has variance d_k = %zu (sdpa-var --trials 100000).\n",
            (double)dk * (n - 1.0) / (n - (double)spec->ddof), dk);
}

/* Softmax of x[0..n) times c into p (max subtracted); returns its
 * entropy in nats. */
static double softmax(const double *x, size_t n, double c, double *p)
{
    double mx = -INFINITY, z = 0.0, h = 0.0;
    for (size_t j = 0; j < n; j++)
        mx = fmax(mx, c * x[j]);
    for (size_t j = 0; j < n; j++)
        z += p[j] = exp(c * x[j] - mx);
    for (size_t j = 0; j < n; j++) {
        p[j] /= z;
        h -= p[j] > 0.0 ? p[j] * log(p[j]) : 0.0;
    }
    return h;
}

/* One line of the query's row: x[key[0..n)] times `times`, each in fmt. */
static void row_line(FILE *f, const char *label, const double *x, const size_t *key, size_t n,
                     double times, const char *fmt)
{
    fprintf(f, "%-15s [", label);
    for (size_t j = 0; j < n; j++) {
        char v[32];
        snprintf(v, sizeof v, fmt, x[key[j]] * times);
        fprintf(f, "%s%7s", j ? ", " : "", v);
    }
    fputs("]\n", f);
}

/* Larger sizes: one query's logits over its keys, raw and scaled, and
 * their softmax weights (the weights over every key the query sees; the
 * first CLI_EXAMPLE_KEYS printed). */
static sv_status one_query(FILE *f, const sv_spec *spec, const drawn *d, const char *scale_name)
{
    const size_t i = spec->causal ? spec->n_q - 1 : 0, dk = spec->d_k;
    const size_t seen = spec->causal ? i + 1 : spec->n_k;
    const size_t shown = seen < CLI_EXAMPLE_KEYS ? seen : CLI_EXAMPLE_KEYS;
    const double c = sv_spec_scale(spec);
    double *s = calloc(3 * seen, sizeof(double));
    if (!s)
        return SV_ENOMEM;
    double *pr = s + seen, *ps = s + 2 * seen;
    header(f, spec); /* after the one allocation: nothing half-written */
    for (size_t j = 0; j < seen; j++)
        s[j] = dot(d->q + i * dk, d->k + j * dk, dk);
    const double hr = softmax(s, seen, 1.0, pr), hs = softmax(s, seen, c, ps);
    size_t jr = 0, js = 0;
    for (size_t j = 1; j < seen; j++) {
        jr = pr[j] > pr[jr] ? j : jr;
        js = ps[j] > ps[js] ? j : js;
    }
    /* The first keys, the last one shown replaced by the raw softmax's
     * favourite when it is not among them. */
    size_t key[CLI_EXAMPLE_KEYS];
    for (size_t j = 0; j < shown; j++)
        key[j] = j;
    if (jr >= shown)
        key[shown - 1] = jr;
    fprintf(f,
            "Query %zu against the %zu keys it sees (%zu shown, with the one the raw\n"
            "softmax picks), trial 0:\n\n",
            i, seen, shown);
    fprintf(f, "%-15s [", "key");
    for (size_t j = 0; j < shown; j++)
        fprintf(f, "%s%7zu", j ? ", " : "", key[j]);
    fputs("]\n", f);
    row_line(f, "raw logits q.k", s, key, shown, 1.0, "%.1f");
    char label[64];
    snprintf(label, sizeof label, "scaled * %.4g", c);
    row_line(f, label, s, key, shown, c, "%.2f");
    row_line(f, "softmax, raw", pr, key, shown, 1.0, "%.2g");
    row_line(f, "softmax, scaled", ps, key, shown, 1.0, "%.2g");
    fprintf(f,
            "\nRaw: the largest weight is %.3f (key %zu), entropy %.3f nats:\n"
            "  e^H = %.1f of %zu keys carry the attention.\n"
            "Scaled (--scale %s): the largest weight is %.3f (key %zu), entropy\n"
            "  %.3f nats:"
            " e^H = %.1f keys. A logit's variance is d_k = %zu raw, %.4g scaled.\n",
            pr[jr], jr, hr, exp(hr), seen, scale_name, ps[js], js, hs, exp(hs), dk,
            c * c * (double)dk);
    free(s);
    return SV_OK;
}

sv_status cli_example(FILE *f, const sv_spec *spec, const char *scale_name)
{
    drawn d;
    const sv_status st = draw(spec, &d);
    if (st != SV_OK)
        return st;
    const int whole = spec->n_q <= CLI_EXAMPLE_MATRIX_MAX && spec->n_k <= CLI_EXAMPLE_MATRIX_MAX &&
                      spec->d_k <= CLI_EXAMPLE_MATRIX_MAX;
    sv_status out = SV_OK;
    if (whole)
        small(f, spec, &d);
    else
        out = one_query(f, spec, &d, scale_name);
    free(d.q);
    free(d.k);
    return out;
}
