/* The getters of the --logits rows (SV_OUTPUT_LOGITS, sv_logits_view),
 * included once by columns.c before the column table: each reads the key
 * r->logits->key of its row, or the row's statistics. The norm and ln n
 * are computed here, so that no writer computes a number itself. */
#ifndef SDPA_VAR_COLUMNS_LOGITS_H
#define SDPA_VAR_COLUMNS_LOGITS_H

#include <float.h>

#define LOGITS_KEY_(r, x) ((r)->logits->x ? (r)->logits->x[(r)->logits->key] : NAN)

static sv_value get_logits_row(const sv_row_view *r)
{
    return count(r->logits->row);
}
static sv_value get_logits_scale(const sv_row_view *r)
{
    return text(r->logits->scale_name);
}
static sv_value get_logits_scale_value(const sv_row_view *r)
{
    return real(r->logits->scale);
}
static sv_value get_logits_dk(const sv_row_view *r)
{
    return count(r->logits->d_k);
}
static sv_value get_logits_n_k(const sv_row_view *r)
{
    return count(r->logits->n);
}
static sv_value get_logits_key(const sv_row_view *r)
{
    return count(r->logits->key);
}
static sv_value get_logit(const sv_row_view *r)
{
    return real(LOGITS_KEY_(r, z));
}
static sv_value get_scaled_logit(const sv_row_view *r)
{
    return real(r->logits->scale * LOGITS_KEY_(r, z));
}
static sv_value get_weight(const sv_row_view *r)
{
    return real(LOGITS_KEY_(r, p));
}
static sv_value get_upstream(const sv_row_view *r)
{
    return real(LOGITS_KEY_(r, g));
}
static sv_value get_grad_logit(const sv_row_view *r)
{
    return real(LOGITS_KEY_(r, dz));
}
static sv_value get_logits_entropy(const sv_row_view *r)
{
    return real(r->logits->st.entropy);
}
static sv_value get_logits_entropy_bound(const sv_row_view *r)
{
    return real(log((double)r->logits->n));
}
static sv_value get_logits_eff_keys(const sv_row_view *r)
{
    return real(r->logits->st.eff_keys);
}
static sv_value get_logits_max_weight(const sv_row_view *r)
{
    return real(r->logits->st.max_weight);
}
static sv_value get_logits_jac_trace(const sv_row_view *r)
{
    return real(r->logits->st.jac_trace);
}
static sv_value get_logits_jac_frob(const sv_row_view *r)
{
    return real(r->logits->st.jac_frob);
}

/* |x|. Entries up to 2e300 (|g| <= 1e300 as the CLI bounds it, and
 * |J g|_j <= p_j |g_j - p.g|) keep it below 1.6e301 for 64 keys, but their
 * squares overflow (or, below 1e-154, underflow): then the sum is taken
 * again over x / max|x|, as LAPACK's dnrm2 scales, so that a finite norm
 * is never given as inf (nor a positive one as 0). */
static double norm(const double *x, size_t n)
{
    double s = 0.0, top = 0.0;
    for (size_t j = 0; j < n; j++) {
        s += x[j] * x[j];
        top = fabs(x[j]) > top ? fabs(x[j]) : top;
    }
    if (top == 0.0 || (isfinite(s) && s >= DBL_MIN))
        return sqrt(s);
    s = 0.0;
    for (size_t j = 0; j < n; j++)
        s += (x[j] / top) * (x[j] / top);
    return top * sqrt(s);
}
static sv_value get_grad_logits(const sv_row_view *r)
{
    return real(r->logits->dz ? norm(r->logits->dz, r->logits->n) : NAN);
}

#undef LOGITS_KEY_

#endif
