/* The scalar reference of the --grad statistics (reference.h): the whole
 * n_q x n_k logit gradient in long double, from the textbook formulas
 * dL/dz_ij = p_ij (a_ij - sum_l p_il a_il), a_ij = g_i . v_j,
 * dL/dq_i = c sum_j dL/dz_ij k_j, dL/dk_j = c sum_i dL/dz_ij q_i,
 * ||J||_F^2 of J = diag(p) - p p^T. Shares
 * nothing with src/engine/grad.c. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

typedef long double ldbl;

/* Weights of one row of len logits times c into p (long double exps). */
static void weights(const double *s, size_t len, ldbl c, ldbl *p)
{
    ldbl m = s[0], z = 0.0L;
    for (size_t j = 1; j < len; j++)
        m = s[j] > m ? s[j] : m;
    for (size_t j = 0; j < len; j++)
        z += p[j] = expl(c * ((ldbl)s[j] - m));
    for (size_t j = 0; j < len; j++)
        p[j] /= z;
}

/* ||J||_F^2 = sum p^2 - 2 sum p^3 + (sum p^2)^2, expanded from the sum
 * over the entries of diag(p) - p p^T. */
static ldbl frob2(const ldbl *p, size_t len)
{
    ldbl p2 = 0.0L, p3 = 0.0L;
    for (size_t j = 0; j < len; j++) {
        p2 += p[j] * p[j];
        p3 += p[j] * p[j] * p[j];
    }
    return len == 1 ? 0.0L : p2 - 2.0L * p3 + p2 * p2;
}

/* Row i's logit gradient (len keys) into dz; 0 for one key. */
static void row_grad(const sv_spec *s, const ldbl *p, size_t len, const double *g, const double *v,
                     ldbl *dz)
{
    const size_t dv = s->d_v;
    ldbl delta = 0.0L;
    for (size_t j = 0; j < len; j++) {
        ldbl a = 0.0L;
        for (size_t l = 0; l < dv; l++)
            a += (ldbl)g[l] * v[j * dv + l];
        dz[j] = a;
        delta += p[j] * a;
    }
    for (size_t j = 0; j < len; j++)
        dz[j] = len == 1 ? 0.0L : p[j] * (dz[j] - delta);
}

void ref_grad(const sv_spec *s, const double *q, const double *k, const double *S, const double *v,
              const double *G, sv_trial_stats *out)
{
    const size_t d = s->d_k, nq = s->n_q, nk = s->n_k;
    ldbl *p = malloc(nk * sizeof *p), *dz = malloc(nk * sizeof *dz);
    ldbl *dk = malloc(nk * d * sizeof *dk), *dq = malloc(d * sizeof *dq);
    double *f[][2] = {{&out->raw_grad_logits2, &out->scaled_grad_logits2},
                      {&out->raw_grad_logits_theory2, &out->scaled_grad_logits_theory2},
                      {&out->raw_grad_keys, &out->scaled_grad_keys},
                      {&out->raw_grad_q2, &out->scaled_grad_q2},
                      {&out->raw_grad_k2, &out->scaled_grad_k2}};
    for (int w = 0; w < 2; w++) {
        const ldbl c = w ? (ldbl)s->scale : 1.0L;
        ldbl sum[5] = {0};
        for (size_t x = 0; x < nk * d; x++)
            dk[x] = 0.0L;
        for (size_t i = 0; i < nq; i++) {
            const size_t len = s->causal ? i + 1 : nk;
            weights(S + i * nk, len, c, p);
            row_grad(s, p, len, G + i * s->d_v, v, dz);
            ldbl s2 = 0.0L, s4 = 0.0L, q2 = 0.0L;
            for (size_t l = 0; l < d; l++)
                dq[l] = 0.0L;
            for (size_t j = 0; j < len; j++) {
                s2 += dz[j] * dz[j];
                s4 += dz[j] * dz[j] * dz[j] * dz[j];
                for (size_t l = 0; l < d; l++) {
                    dq[l] += c * dz[j] * k[j * d + l];
                    dk[j * d + l] += c * dz[j] * q[i * d + l];
                }
            }
            for (size_t l = 0; l < d; l++)
                q2 += dq[l] * dq[l];
            sum[0] += s2;
            sum[1] += (ldbl)s->d_v * frob2(p, len);
            sum[2] += s4 > 0.0L ? s2 * s2 / s4 : 0.0L;
            sum[3] += q2;
        }
        for (size_t x = 0; x < nk * d; x++)
            sum[4] += dk[x] * dk[x];
        for (int m = 0; m < 5; m++)
            *f[m][w] = (double)(sum[m] / (m == 4 ? nk : nq));
    }
    free(p);
    free(dz);
    free(dk);
    free(dq);
}
