/* The random source: the rows of Q, K and V of a spec's experiment, each
 * from its own PCG stream (seed, trial, matrix, row), so the numbers never
 * depend on who draws a row or when. */
#include <math.h>
#include <stddef.h>

#include "sdpa_var/source.h"

#include "pcg.h"

/* W_Q and W_K of one trial into state (d_model x d_k each, W_Q first):
 * row r of each from its own stream. */
static void draw_weights(const sv_source *src, uint64_t trial, double *state)
{
    const sv_spec *s = src->impl;
    const size_t d = s->d_k;
    const double sd = sqrt(sv_init_variance(s->init, s->d_model, d));
    for (int w = 0; w < 2; w++) {
        double *m = state + (w ? s->d_model * d : 0);
        const uint64_t key = sv__pcg_matrix_key(s->seed, trial, w ? SV_MATRIX_WK : SV_MATRIX_WQ);
        /* Statuses unread in this file: the spec passed sv_spec_check
         * (dist in range, nu > 4, arrays sized). */
        (void)sv_sample_rows(key, 0, s->d_model, d, SV_DIST_NORMAL, 0.0, m, d);
        for (size_t l = 0; l < s->d_model * d; l++)
            m[l] *= sd;
    }
}

/* Row `row` of Q = X W_Q or K = X W_K (X' W_K with cross): the token's
 * embedding (d_model values of dist) into scratch, then times W. */
static void projected_row(const sv_spec *s, const double *state, uint64_t token_key,
                          sv_matrix which, size_t row, double *x, double *scratch)
{
    const size_t d = s->d_k, dm = s->d_model;
    (void)sv_sample_rows(token_key, row, 1, dm, s->dist, s->nu, scratch, dm);
    const double *w = state + (which == SV_MATRIX_Q ? 0 : dm * d);
    for (size_t l = 0; l < d; l++)
        x[l] = 0.0;
    for (size_t r = 0; r < dm; r++)
        for (size_t l = 0; l < d; l++)
            x[l] += scratch[r] * w[r * d + l];
}

/* How rows of Q or of K are drawn: read from the spec once per call of
 * qk_rows, not per row (the sampler's calls in between make the compiler
 * read them again). */
typedef struct row_law {
    sv_dist dist;
    double nu, mu, sd;
    int affine; /* mu != 0 or sd != 1 */
} row_law;

static row_law law_of(const sv_spec *s, sv_matrix which)
{
    const double mu = which == SV_MATRIX_Q ? s->q_mean : s->k_mean;
    const double sd = which == SV_MATRIX_Q ? s->q_std : s->k_std;
    return (row_law){s->dist, s->nu, mu, sd, mu != 0.0 || sd != 1.0};
}

/* Rows row .. row + m - 1 of d values of Q or K before QK-norm (row i at
 * x + i ld): dist, then mean + std x. */
static void base_rows(const row_law *law, size_t d, uint64_t key, size_t row, size_t m, double *x,
                      size_t ld)
{
    (void)sv_sample_rows(key, row, m, d, law->dist, law->nu, x, ld);
    for (size_t i = 0; law->affine && i < m; i++)
        for (size_t l = 0; l < d; l++)
            x[i * ld + l] = law->mu + law->sd * x[i * ld + l];
}

/* Rescales a row of d values to L2 norm r (a zero row stays zero). */
static void qk_normalise(double *row, size_t d, double r)
{
    double ss = 0.0;
    for (size_t l = 0; l < d; l++)
        ss += row[l] * row[l];
    const double f = ss > 0.0 ? r / sqrt(ss) : 0.0;
    for (size_t l = 0; l < d; l++)
        row[l] *= f;
}

/* Rows [row0, row0 + m) of Q or K. A planted key row also draws its query
 * row, into scratch (d_k doubles). */
static void qk_rows(const sv_spec *s, const double *state, uint64_t trial, sv_matrix which,
                    size_t row0, size_t m, double *x, size_t ld, double *scratch)
{
    const size_t d = s->d_k;
    /* The rows' stream key, hashed once per call: Q's or K's own, or with
     * projections the tokens' (X, or X' for cross-attention keys). */
    const sv_matrix from = s->d_model == 0                    ? which
                           : which == SV_MATRIX_K && s->cross ? SV_MATRIX_XK
                                                              : SV_MATRIX_X;
    const uint64_t key = sv__pcg_matrix_key(s->seed, trial, from);
    const double rho = s->plant;
    /* Rows below `planted` get a planted key (K only, rho != 0). */
    const size_t planted = which != SV_MATRIX_K || rho == 0.0 ? 0
                           : s->n_q < s->n_k                  ? s->n_q
                                                              : s->n_k;
    const int projected = s->d_model > 0;
    /* Each row its own stream: all rows drawn first, in one call, give
     * the bits of drawing them one by one. */
    if (!projected) {
        const row_law law = law_of(s, which);
        base_rows(&law, d, key, row0, m, x, ld);
        if (row0 >= planted && !s->qk_norm)
            return; /* plain rows: the tiny trials' case, its work kept small */
    }
    const uint64_t qkey = planted ? sv__pcg_matrix_key(s->seed, trial, SV_MATRIX_Q) : 0;
    const double rest = planted ? sqrt(1.0 - rho * rho) : 0.0;
    const row_law qlaw = law_of(s, SV_MATRIX_Q);
    for (size_t i = 0; i < m; i++) {
        double *row = x + i * ld;
        if (projected)
            projected_row(s, state, key, which, row0 + i, row, scratch);
        if (row0 + i < planted) {
            /* k_j = rho q_j + sqrt(1 - rho^2) z_j */
            base_rows(&qlaw, d, qkey, row0 + i, 1, scratch, d);
            for (size_t l = 0; l < d; l++)
                row[l] = rho * scratch[l] + rest * row[l];
        }
        if (s->qk_norm)
            qk_normalise(row, d, s->qk_radius);
    }
}

static void draw_rows(const sv_source *src, const double *state, uint64_t trial, sv_matrix which,
                      size_t row0, size_t m, double *x, size_t ld, double *scratch)
{
    const sv_spec *s = src->impl;
    if (which != SV_MATRIX_V && which != SV_MATRIX_G) {
        qk_rows(s, state, trial, which, row0, m, x, ld, scratch);
        return;
    }
    /* V, or G (--grad): d_v entries of dist a row, each matrix its own
     * streams, so --grad leaves V as --values draws it. */
    (void)sv_sample_rows(sv__pcg_matrix_key(s->seed, trial, which), row0, m, s->d_v, s->dist, s->nu,
                         x, ld);
}

static sv_status draw_check(const sv_source *src, const sv_spec *spec, uint64_t first,
                            uint64_t count)
{
    (void)first;
    (void)count;
    /* The rows are the spec's own draws: the engine must run that spec. */
    return sv_spec_hash(src->impl) == sv_spec_hash(spec) ? SV_OK : SV_EMISMATCH;
}

sv_status sv_source_draw(const sv_spec *spec, sv_source *src)
{
    if (!spec || !src)
        return SV_EINVAL;
    *src = (sv_source){
        .impl = spec,
        /* overflow: sv_spec_check bounds d_model d_k 2 sizeof(double) */
        .trial_len = 2 * spec->d_model * spec->d_k,
        .scratch_len = spec->d_model > spec->d_k ? spec->d_model : spec->d_k,
        .related_diag = spec->plant != 0.0 || (spec->d_model > 0 && !spec->cross),
        .measure_entries = 1,
        .check = draw_check,
        .begin_trial = spec->d_model > 0 ? draw_weights : NULL,
        .rows = draw_rows,
    };
    return SV_OK;
}
