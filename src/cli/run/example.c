/* --example (example.h). */
#include "example.h"

#include <stdlib.h>
#include <string.h>

#include "sdpa_var/moments.h"
#include "sdpa_var/softmax.h"

/* Trial 0's rows of Q and K (and V, G), drawn as the engine draws them,
 * and its scores S = Q K^T (sv_source_logits, row by row). */
typedef struct drawn {
    double *q, *k, *v, *g; /* n_q x d_k, n_k x d_k, n_k x d_v, n_q x d_v; v, g may be NULL */
    double *s;             /* n_q x n_k */
} drawn;

static void drawn_free(drawn *d)
{
    free(d->q);
    free(d->k);
    free(d->v);
    free(d->g);
    free(d->s);
}

static sv_status draw(const sv_spec *spec, drawn *d)
{
    sv_source src;
    sv_status st = sv_source_draw(spec, &src);
    if (st != SV_OK)
        return st;
    const size_t dk = spec->d_k, dv = spec->d_v;
    *d = (drawn){malloc(spec->n_q * dk * sizeof(double)), malloc(spec->n_k * dk * sizeof(double)),
                 spec->values ? malloc(spec->n_k * dv * sizeof(double)) : NULL,
                 spec->grad ? malloc(spec->n_q * dv * sizeof(double)) : NULL,
                 malloc(spec->n_q * spec->n_k * sizeof(double))};
    if (!d->q || !d->k || (spec->values && !d->v) || (spec->grad && !d->g) || !d->s)
        st = SV_ENOMEM;
    if (st == SV_OK)
        st = sv_source_materialize(&src, spec, 0, SV_MATRIX_Q, 0, spec->n_q, d->q, dk);
    if (st == SV_OK)
        st = sv_source_materialize(&src, spec, 0, SV_MATRIX_K, 0, spec->n_k, d->k, dk);
    if (st == SV_OK && d->v)
        st = sv_source_materialize(&src, spec, 0, SV_MATRIX_V, 0, spec->n_k, d->v, dv);
    if (st == SV_OK && d->g)
        st = sv_source_materialize(&src, spec, 0, SV_MATRIX_G, 0, spec->n_q, d->g, dv);
    for (size_t i = 0; st == SV_OK && i < spec->n_q; i++)
        st = sv_source_logits(&src, spec, 0, i, spec->n_k, d->s + i * spec->n_k);
    if (st != SV_OK)
        drawn_free(d);
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

static void header(FILE *f, const sv_spec *spec)
{
    fprintf(f,
            "# sdpa-var: trial 0 of d_k=%zu n_q=%zu n_k=%zu seed=%llu dist=%s: the numbers\n"
            "# the run draws (its per-trial row 0).\n",
            spec->d_k, spec->n_q, spec->n_k, (unsigned long long)spec->seed,
            sv_dist_name(spec->dist));
}

/* The keys query i sees. */
static size_t seen(const sv_spec *spec, size_t i)
{
    return spec->causal ? i + 1 : spec->n_k;
}

/* S = Q K^T and its sample variance, as the engine measures it: the
 * moments of each row's visible scores, merged (sv_moments), over N - ddof. */
static void scores(FILE *f, const sv_spec *spec, const drawn *d)
{
    const size_t nq = spec->n_q, nk = spec->n_k, dk = spec->d_k;
    const double *s = d->s;
    sv_moments all = {0}, row;
    for (size_t i = 0; i < nq; i++) /* finite and few: SV_OK */
        if (sv_moments_of(s + i * nk, seen(spec, i), &row) == SV_OK)
            (void)sv_moments_merge(&all, &row);
    const double n = (double)all.n;
    matrix(f, "Q", d->q, nq, dk);
    matrix(f, "K", d->k, nk, dk);
    matrix(f, "S", s, nq, nk);
    fprintf(f,
            "# S = Q @ K.T: each score is the dot product of a query and a key.\n"
            "# Sample variance of its %s%.0f scores (ddof %u%s): %.6f\n",
            spec->causal ? "visible " : "", n, spec->ddof,
            spec->ddof == 0 ? ", numpy's S.var()" : "", sv_moments_variance(&all, spec->ddof));
    fprintf(f,
            "# One trial lands anywhere around its expectation: over many trials the\n"
            "# mean of this variance is E = d_k (N - 1)/(N - ddof) = %g for unit\n"
            "# entries, and each score has variance d_k = %zu (sdpa-var --trials 100000).\n",
            (double)dk * (n - 1.0) / (n - (double)spec->ddof), dk);
}

/* Softmax of every row of c S (masked keys: weight 0) into p, and with G
 * and V the gradient dL/d(c S) of L = sum(G * (P V)) into dz; query jq's
 * Jacobian into jac (n_k x n_k, zero past the keys it sees). */
static void softmax_rows(const sv_spec *spec, const drawn *d, const double *s, double c, double *p,
                         double *dz, size_t jq, double *jac)
{
    const size_t nq = spec->n_q, nk = spec->n_k, dv = spec->d_v;
    double a[CLI_EXAMPLE_MATRIX_MAX], jrow[CLI_EXAMPLE_MATRIX_MAX * CLI_EXAMPLE_MATRIX_MAX];
    memset(p, 0, nq * nk * sizeof *p);
    memset(dz, 0, nq * nk * sizeof *dz);
    for (size_t i = 0; i < nq; i++) {
        const size_t n = seen(spec, i);
        for (size_t j = 0; d->g && j < n; j++) /* dL/dp_ij = g_i . v_j */
            a[j] = dot(d->g + i * dv, d->v + j * dv, dv);
        sv_softmax_stats st;
        (void)sv_softmax_row_report(s + i * nk, n, c, d->g ? a : NULL, p + i * nk, jrow,
                                    d->g ? dz + i * nk : NULL, &st); /* finite: drawn */
        for (size_t r = 0; i == jq && r < nk; r++)
            for (size_t j = 0; j < nk; j++)
                jac[r * nk + j] = r < n && j < n ? jrow[r * n + j] : 0.0;
    }
}

/* Small sizes: every matrix of the computation, as numpy lines. */
static void small(FILE *f, const sv_spec *spec, const drawn *d, const char *scale_name)
{
    enum { M = CLI_EXAMPLE_MATRIX_MAX * CLI_EXAMPLE_MATRIX_MAX };
    const size_t nq = spec->n_q, nk = spec->n_k, dv = spec->d_v;
    const size_t jq = spec->causal ? nq - 1 : 0;
    const double c = sv_spec_scale(spec);
    const double *s = d->s;
    double z[M] = {0}, pr[M] = {0}, p[M] = {0}, dzr[M] = {0}, dz[M] = {0}, jr[M] = {0}, j[M] = {0},
           o[M] = {0};
    header(f, spec);
    scores(f, spec, d);
    for (size_t i = 0; i < nq * nk; i++)
        z[i] = c * s[i];
    softmax_rows(spec, d, s, 1.0, pr, dzr, jq, jr);
    softmax_rows(spec, d, s, c, p, dz, jq, j);
    fprintf(f, "c = %.17g  # --scale %s: the multiplier of the scaled logits\n", c, scale_name);
    matrix(f, "Z", z, nq, nk);
    fprintf(f, "# Z = S * c. Pr: softmax of each row of S (raw), P: of Z (scaled)%s.\n",
            spec->causal ? ";\n# --causal: query i sees keys 0..i, the others get weight 0" : "");
    matrix(f, "Pr", pr, nq, nk);
    matrix(f, "P", p, nq, nk);
    fprintf(f,
            "# Query %zu's softmax Jacobian d p / d z = diag(p) - p p^T, p its row of\n"
            "# Pr (Jr) and of P (J):\n",
            jq);
    matrix(f, "Jr", jr, nk, nk);
    matrix(f, "J", j, nk, nk);
    if (!d->v)
        return;
    matrix(f, "V", d->v, nk, dv);
    fputs("# The attention output: Or = Pr @ V (raw), O = P @ V (scaled).\n", f);
    for (int scaled = 0; scaled < 2; scaled++) {
        for (size_t i = 0; i < nq; i++)
            for (size_t l = 0; l < dv; l++) {
                double t = 0.0;
                for (size_t k = 0; k < nk; k++)
                    t += (scaled ? p : pr)[i * nk + k] * d->v[k * dv + l];
                o[i * dv + l] = t;
            }
        matrix(f, scaled ? "O" : "Or", o, nq, dv);
    }
    if (!d->g)
        return;
    matrix(f, "G", d->g, nq, dv);
    fputs("# L = sum(G * O): dL/dP = G @ V.T, and the gradient on the logits the\n"
          "# softmax sees, dZ = P * (dL/dP - sum(P * dL/dP, axis=1)) (dZr: raw, of S):\n",
          f);
    matrix(f, "dZr", dzr, nq, nk);
    matrix(f, "dZ", dz, nq, nk);
}

static size_t argmax(const double *x, size_t n)
{
    size_t k = 0;
    for (size_t j = 1; j < n; j++)
        k = x[j] > x[k] ? j : k;
    return k;
}

/* Which keys are shown: all when there are at most CLI_EXAMPLE_KEYS,
 * else the first CLI_EXAMPLE_KEYS - 2 and the raw and scaled softmax's
 * top keys (or the next ones in order when those are among the first).
 * @return how many, in key[], ascending. */
static size_t keys_shown(size_t n, size_t jr, size_t js, size_t *key)
{
    size_t m = 0;
    const size_t first = n <= CLI_EXAMPLE_KEYS ? n : CLI_EXAMPLE_KEYS - 2;
    for (size_t j = 0; j < first; j++)
        key[m++] = j;
    if (n > CLI_EXAMPLE_KEYS) {
        const size_t top[2] = {jr < js ? jr : js, jr < js ? js : jr};
        size_t next = first;
        for (int t = 0; t < 2; t++)
            if (top[t] >= first && (t == 0 || top[1] != top[0]))
                key[m++] = top[t];
        while (m < CLI_EXAMPLE_KEYS) { /* tops among the first: more in order */
            while (next == jr || next == js)
                next++;
            key[m++] = next++;
        }
        for (size_t a = 1; a < m; a++) /* insertion sort: a handful */
            for (size_t b = a; b > 0 && key[b - 1] > key[b]; b--) {
                const size_t t = key[b];
                key[b] = key[b - 1], key[b - 1] = t;
            }
    }
    return m;
}

/* Larger sizes: one query's logits over its keys, raw and scaled, and
 * their softmax weights, one line a key; the keys not shown said in words. */
static sv_status one_query(FILE *f, const sv_spec *spec, const char *scale_name)
{
    const size_t i = spec->causal ? spec->n_q - 1 : 0, dk = spec->d_k;
    const size_t n = seen(spec, i);
    const double c = sv_spec_scale(spec);
    sv_source src;
    double *s = calloc(3 * n, sizeof(double));
    sv_status st = s ? sv_source_draw(spec, &src) : SV_ENOMEM;
    if (st == SV_OK)
        st = sv_source_logits(&src, spec, 0, i, n, s);
    if (st != SV_OK) {
        free(s);
        return st;
    }
    double *pr = s + n, *ps = s + 2 * n;
    header(f, spec);         /* after the logits: nothing half-written */
    sv_softmax_stats sr, ss; /* the raw and the scaled row's: drawn, finite */
    (void)sv_softmax_row_report(s, n, 1.0, NULL, pr, NULL, NULL, &sr);
    (void)sv_softmax_row_report(s, n, c, NULL, ps, NULL, NULL, &ss);
    const size_t jr = argmax(pr, n), js = argmax(ps, n);
    size_t key[CLI_EXAMPLE_KEYS];
    const size_t m = keys_shown(n, jr, js, key);
    fprintf(f, "Query %zu against the %zu keys it sees, trial 0, c = %.4g (--scale %s)", i, n, c,
            scale_name);
    if (m == n)
        fputs(":\nevery key.\n\n", f);
    else
        fprintf(f,
                ":\n%zu keys shown, %zu not (at most %d a query: the first ones and the\n"
                "raw and scaled softmax's top keys).\n\n",
                m, n - m, CLI_EXAMPLE_KEYS);
    fprintf(f, "%7s  %14s  %14s  %14s  %15s\n", "key", "raw logit q.k", "scaled c q.k",
            "softmax, raw", "softmax, scaled");
    for (size_t t = 0; t < m; t++) {
        const size_t j = key[t];
        if (t > 0 && key[t - 1] + 1 < j)
            fprintf(f, "%7s  (keys %zu to %zu not shown)\n", "...", key[t - 1] + 1, j - 1);
        fprintf(f, "%7zu  %14.4f  %14.4f  %14.4g  %15.4g\n", j, s[j], c * s[j], pr[j], ps[j]);
    }
    if (key[m - 1] + 1 < n)
        fprintf(f, "%7s  (keys %zu to %zu not shown)\n", "...", key[m - 1] + 1, n - 1);
    fprintf(f,
            "\nRaw: the largest weight is %.3f (key %zu), entropy %.3f nats:\n"
            "  e^H = %.1f of %zu keys carry the attention.\n"
            "Scaled (--scale %s): the largest weight is %.3f (key %zu), entropy\n"
            "  %.3f nats:"
            " e^H = %.1f keys. A logit's variance is d_k = %zu raw, %.4g scaled.\n",
            sr.max_weight, jr, sr.entropy, sr.eff_keys, n, scale_name, ss.max_weight, js,
            ss.entropy, ss.eff_keys, dk, c * c * (double)dk);
    free(s);
    return SV_OK;
}

sv_status cli_example(FILE *f, const sv_spec *spec, const char *scale_name)
{
    if (!cli_example_whole(spec)) /* one query's logits: no matrix drawn whole */
        return one_query(f, spec, scale_name);
    drawn d;
    const sv_status st = draw(spec, &d);
    if (st != SV_OK)
        return st;
    small(f, spec, &d, scale_name);
    drawn_free(&d);
    return SV_OK;
}
