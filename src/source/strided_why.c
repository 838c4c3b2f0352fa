/* The one line sv_strided_check's verdict reads as (source.h:
 * sv_strided_explain): which array, which axis, the value found and what
 * was expected, in the words the CLI and Python print unchanged. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "sdpa_var/source.h"

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static int
out(char *buf, size_t len, const char *fmt, ...)
{
    char spare[1];
    va_list ap;
    va_start(ap, fmt);
    const int n = buf && len ? vsnprintf(buf, len, fmt, ap) : vsnprintf(spare, 0, fmt, ap);
    va_end(ap);
    return n > 0 ? n : 0;
}

/* "batch 1, head 2, position 11, column 4" (a mask: query, key). */
static void where(const sv_strided_why *w, char *buf, size_t len)
{
    static const char *const data[4] = {"batch", "head", "position", "column"};
    static const char *const mask[4] = {"batch", "head", "query", "key"};
    const char *const *axis = w->tensor == SV_TENSOR_MASK ? mask : data;
    const int nd = w->ndim >= 1 && w->ndim <= 4 ? w->ndim : 4;
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < nd && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s %zu", i ? ", " : "", axis[4 - nd + i],
                               w->index[i]);
}

/* "(2, 1, 5, 7)": the mask's shape as given. */
static void shape_text(const sv_strided_why *w, char *buf, size_t len)
{
    const int nd = w->ndim >= 1 && w->ndim <= 4 ? w->ndim : 4;
    size_t at = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < nd && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%zu", i ? ", " : "", w->got[i]);
    if (at < len)
        snprintf(buf + at, len - at, ")");
}

/* The problems of the arrays against the spec and of their values. */
static int explain_values(const sv_strided_why *w, const char *t, const char *o, char *buf,
                          size_t len)
{
    static const char *const sums[3] = {
        "q_var (a sum of n_q*d_k squares)", "k_var (a sum of n_k*d_k squares)",
        "raw_out_var and scaled_out_var (sums of n_q*d_v squared outputs)"};
    static const char *const dims[SV_TENSORS][2] = {
        {"n_q", "d_k"}, {"n_k", "d_k"}, {"n_k", "d_v"}, {"n_q", "d_v"}, {"n_q", "n_k"}};
    char at[160];
    switch (w->problem) {
    case SV_STRIDED_SPEC:
        return out(
            buf, len, "%s: %zu x %zu (positions x d) differ from the spec's %s x %s = %zu x %zu", t,
            w->got[0], w->got[1], dims[w->tensor][0], dims[w->tensor][1], w->want[0], w->want[1]);
    case SV_STRIDED_NONFINITE:
        where(w, at, sizeof at);
        return out(buf, len, "%s: entry (%s) is %s%s", t, at,
                   isnan(w->value)  ? "nan"
                   : w->value > 0.0 ? "inf"
                                    : "-inf",
                   w->tensor == SV_TENSOR_MASK
                       ? ": a float mask holds finite values, or -inf to exclude a key"
                       : "");
    case SV_STRIDED_MAGNITUDE:
        return out(buf, len,
                   "%s: entries up to %.3g in magnitude: %s would overflow (above %.3g for this "
                   "shape); rescale the tensor",
                   t, w->value, sums[w->tensor <= SV_TENSOR_V ? w->tensor : 0], w->bound);
    case SV_STRIDED_SCORES:
        return out(buf, len,
                   "%s, %s: d_k max|q| max|k| = %.3g (%.3g times the scale %.3g): the scores "
                   "would pass %.3g; rescale the tensors",
                   t, o, w->value, w->value * w->scale, w->scale, w->bound);
    case SV_STRIDED_MASK_SCALE:
        return out(buf, len,
                   "%s: entries up to %.3g in magnitude: over the scale %.3g the raw logits S + "
                   "M / scale would pass %.3g",
                   t, w->value, w->scale, w->bound);
    default:
        return out(buf, len, "%s: not read (problem %d)", t, (int)w->problem);
    }
}

int sv_strided_explain(const sv_strided_why *w, const char *const *names, char *buf, size_t len)
{
    static const char *const plain[SV_TENSORS] = {"q", "k", "v", "g", "mask"};
    static const char *const cap[SV_TENSORS] = {"Q", "K", "V", "G", "the mask"};
    static const char *const rows[SV_TENSORS] = {"n_q", "n_k", "n_k", "n_q", "n_q"};
    if (buf && len)
        buf[0] = '\0';
    if (!w || w->problem == SV_STRIDED_FINE || (unsigned)w->tensor >= SV_TENSORS ||
        (unsigned)w->other >= SV_TENSORS)
        return 0;
    const char *const *nm = names ? names : plain;
    const char *t = nm[w->tensor], *o = nm[w->other], *oc = cap[w->other];
    const size_t *g = w->got, *x = w->want;
    char sh[128];
    switch (w->problem) {
    case SV_STRIDED_FORMAT:
        if (g[1])
            return out(buf, len, "%s: missing: the spec has %s", t,
                       w->tensor == SV_TENSOR_G ? "grad (dL/dO)" : "values (d_v)");
        if (w->ndim < 2 || w->ndim > SV_ARRAY_MAX_DIMS)
            return out(buf, len,
                       "%s: %d-D; expected 2-D (n x d), 3-D (heads x n x d) or 4-D (batch x heads "
                       "x n x d)",
                       t, w->ndim);
        return out(buf, len, "%s: dtype %zu is not an sv_dtype", t, g[0]);
    case SV_STRIDED_BOOL:
        return out(buf, len, "%s: dtype bool: Q, K, V and G hold numbers (a bool array is a mask)",
                   t);
    case SV_STRIDED_D_K:
        return out(buf, len, "%s: d_k %zu (its last axis) differs from Q's %zu (%s)", t, g[0], x[0],
                   o);
    case SV_STRIDED_BATCH:
        return out(buf, len, "%s: batch %zu differs from Q's %zu (%s)", t, g[0], x[0], o);
    case SV_STRIDED_HEADS:
        return out(buf, len,
                   "%s: its %zu heads do not divide Q's %zu heads (%s): grouped-query attention "
                   "needs heads_q a multiple of heads_kv",
                   t, g[0], x[0], o);
    case SV_STRIDED_GROUP:
        return out(buf, len, "%s: batch x heads %zu x %zu differ from %s's %zu x %zu (%s)", t, g[0],
                   g[1], oc, x[0], x[1], o);
    case SV_STRIDED_ROWS:
        return out(buf, len, "%s: %zu positions differ from %s's %s = %zu (%s)", t, g[0], oc,
                   rows[w->other], x[0], o);
    case SV_STRIDED_COLS:
        return out(buf, len, "%s: d_v %zu (its last axis) differs from V's %zu (%s)", t, g[0], x[0],
                   o);
    case SV_STRIDED_CAUSAL:
        return out(buf, len, "causal needs n_q = n_k: %s has %zu positions, %s %zu", t, g[0], o,
                   x[0]);
    case SV_STRIDED_DRAW:
        return out(buf, len,
                   "%s, %s: the spec draws its rows (plant, qk_norm or d_model); given arrays are "
                   "read as they are",
                   t, o);
    case SV_STRIDED_MASK_AXIS:
        shape_text(w, sh, sizeof sh);
        return out(buf, len,
                   "%s: shape %s does not broadcast to batch x heads x n_q x n_k = (%zu, %zu, "
                   "%zu, %zu)",
                   t, sh, x[0], x[1], x[2], x[3]);
    case SV_STRIDED_DDOF:
        return out(buf, len,
                   "ddof: must be less than the number of scores each head sees; batch %zu, "
                   "head %zu sees %zu under %s",
                   w->index[0], w->index[1], g[0], t);
    case SV_STRIDED_MASK_GRAD:
        return out(buf, len,
                   "%s: a mask does not apply with grad (the backward passes know the causal "
                   "mask only)",
                   t);
    default:
        return explain_values(w, t, o, buf, len);
    }
}
