#include "sdpa_var/softmax.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>

#include "softmax_rows.h"
#include "vexp.h"

/* Index of the first largest element. */
static size_t argmax(const double *s, size_t n)
{
    size_t k = 0;
    for (size_t j = 1; j < n; j++)
        k = s[j] > s[k] ? j : k;
    return k;
}

/* The multiplier c of the scaled logits: positive and finite. isfinite
 * first: it is quiet, where c > 0 with c a NaN raises FE_INVALID. */
static int scale_ok(double c)
{
    return isfinite(c) && c > 0.0;
}

sv_status sv_softmax(const double *s, size_t n, double scale, double *p)
{
    if (!s || !p || n == 0 || !scale_ok(scale))
        return SV_EINVAL;
    if (n > SIZE_MAX / sizeof(double))
        return SV_ERANGE;
    for (size_t j = 0; j < n; j++)
        if (!isfinite(s[j]))
            return SV_ENONFINITE;
    const double m = s[argmax(s, n)];
    double z = 0.0;
    for (size_t j = 0; j < n; j++) {
        p[j] = exp(scale * (s[j] - m));
        z += p[j];
    }
    for (size_t j = 0; j < n; j++)
        p[j] /= z;
    return SV_OK;
}

/* The row loops are compiled for AVX-512, AVX2 and plain x86-64 (each adds
 * a row's terms in the order of its vector width), and sv__cpu_level()
 * picks one per row: the best the CPU has, or the one cpu.h's
 * sv_cpu_capability_set asked for, so that one machine can reproduce what
 * the others compute. The bodies are inlined into each variant. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define SV_ROW_VARIANTS 1
#endif
#if defined(__GNUC__)
#define SV_INLINE static inline __attribute__((always_inline))
#else
#define SV_INLINE static inline
#endif

/* Chunk of a row handled at once: scratch on the stack, no allocation. */
#define SV_CHUNK 256

/* Sums of one chunk of a row. Elements equal to the max m (t = 0: s - m is
 * 0 only for s == m) are left out and counted into *ties: the caller adds
 * back all but one of them, so the row's first max is left out without a
 * scalar search for it. With mo_acc non-NULL also accumulates sum
 * (x - mean)^2 and sum (x - mean) into mo_acc[0] and mo_acc[1], in the
 * same pass. */
SV_INLINE void accumulate_body(const double *s, size_t len, size_t *ties, double m, double c,
                               double mean, sv_softmax_acc *a, double *mo_acc)
{
    double t[SV_CHUNK], ct[SV_CHUNK], e0[SV_CHUNK], e1[SV_CHUNK];
    double m2 = 0.0, dsum = 0.0;
#pragma omp simd reduction(+ : m2, dsum)
    for (size_t i = 0; i < len; i++) {
        const double dev = s[i] - mean;
        m2 += dev * dev;
        dsum += dev;
        t[i] = s[i] - m;
        ct[i] = c * t[i];
    }
    sv__vexp(t, e0, len);
    sv__vexp(ct, e1, len);
    double r0 = 0.0, w0 = 0.0, q0 = 0.0, u0 = 0.0, r1 = 0.0, w1 = 0.0, q1 = 0.0, u1 = 0.0;
    double eq = 0.0; /* a count, in double so that the loop vectorizes */
#pragma omp simd reduction(+ : r0, w0, q0, u0, r1, w1, q1, u1, eq)
    for (size_t i = 0; i < len; i++) {
        const double top = t[i] == 0.0 ? 1.0 : 0.0, keep = 1.0 - top;
        const double x0 = keep * e0[i], x1 = keep * e1[i];
        const double sq0 = x0 * x0, sq1 = x1 * x1;
        eq += top;
        r0 += x0;
        w0 += x0 * t[i];
        q0 += sq0;
        u0 += sq0 * x0;
        r1 += x1;
        w1 += x1 * t[i];
        q1 += sq1;
        u1 += sq1 * x1;
    }
    *ties += (size_t)eq;
    a->r[0] += r0;
    a->w[0] += w0;
    a->q[0] += q0;
    a->u[0] += u0;
    a->r[1] += r1;
    a->w[1] += w1;
    a->q[1] += q1;
    a->u[1] += u1;
    if (mo_acc) {
        mo_acc[0] += m2;
        mo_acc[1] += dsum;
    }
}

/* Pass 1 of a row: its max, min and sum. */
SV_INLINE void max_and_sum_body(const double *s, size_t n, double *max, double *min, double *sum)
{
    double m = s[0], lo = s[0], t = 0.0;
#pragma omp simd reduction(max : m) reduction(min : lo) reduction(+ : t)
    for (size_t j = 0; j < n; j++) {
        m = s[j] > m ? s[j] : m;
        lo = s[j] < lo ? s[j] : lo;
        t += s[j];
    }
    *max = m;
    *min = lo;
    *sum = t;
}

typedef void accumulate_fn(const double *, size_t, size_t *, double, double, double,
                           sv_softmax_acc *, double *);
typedef void max_and_sum_fn(const double *, size_t, double *, double *, double *);

static void accumulate_default(const double *s, size_t len, size_t *ties, double m, double c,
                               double mean, sv_softmax_acc *a, double *mo_acc)
{
    accumulate_body(s, len, ties, m, c, mean, a, mo_acc);
}

static void max_and_sum_default(const double *s, size_t n, double *max, double *min, double *sum)
{
    max_and_sum_body(s, n, max, min, sum);
}

#if defined(SV_ROW_VARIANTS)
__attribute__((target("avx2"))) static void accumulate_avx2(const double *s, size_t len,
                                                            size_t *ties, double m, double c,
                                                            double mean, sv_softmax_acc *a,
                                                            double *mo_acc)
{
    accumulate_body(s, len, ties, m, c, mean, a, mo_acc);
}

__attribute__((target("avx2"))) static void max_and_sum_avx2(const double *s, size_t n, double *max,
                                                             double *min, double *sum)
{
    max_and_sum_body(s, n, max, min, sum);
}

__attribute__((target("avx512f"))) static void accumulate_avx512(const double *s, size_t len,
                                                                 size_t *ties, double m, double c,
                                                                 double mean, sv_softmax_acc *a,
                                                                 double *mo_acc)
{
    accumulate_body(s, len, ties, m, c, mean, a, mo_acc);
}

__attribute__((target("avx512f"))) static void
max_and_sum_avx512(const double *s, size_t n, double *max, double *min, double *sum)
{
    max_and_sum_body(s, n, max, min, sum);
}
#endif

/* The variant of each row loop for the current level. */
static void row_loops(accumulate_fn **acc, max_and_sum_fn **mas)
{
    *acc = accumulate_default;
    *mas = max_and_sum_default;
#if defined(SV_ROW_VARIANTS)
    switch (sv__cpu_level()) {
    case SV_CPU_AVX512:
        *acc = accumulate_avx512;
        *mas = max_and_sum_avx512;
        break;
    case SV_CPU_AVX2:
        *acc = accumulate_avx2;
        *mas = max_and_sum_avx2;
        break;
    }
#endif
}

/* Sums that a non-finite value (or values whose differences overflow)
 * leaves NaN or infinite: t = s - max is then NaN or -inf somewhere, and
 * e t or e makes w or r NaN. */
static int acc_finite(const sv_softmax_acc *a)
{
    return isfinite(a->r[0]) && isfinite(a->w[0]) && isfinite(a->r[1]) && isfinite(a->w[1]);
}

sv_status sv_softmax_acc_row_moments(const double *s, size_t n, double scale, sv_softmax_acc *out,
                                     sv_moments *mo)
{
    if (!s || !out || n == 0 || !scale_ok(scale))
        return SV_EINVAL;
    if (n > SIZE_MAX / sizeof(double))
        return SV_ERANGE;
    accumulate_fn *accumulate;
    max_and_sum_fn *max_and_sum;
    row_loops(&accumulate, &max_and_sum);
    /* Pass 1: the max (for the softmax) and the sum (for the mean). */
    double m, lo, sum;
    max_and_sum(s, n, &m, &lo, &sum);
    const double mean = sum / (double)n;
    *out = (sv_softmax_acc){.max = m, .min = lo};
    /* Pass 2, chunk by chunk: exps and squared deviations. The max's e is
     * exactly 1 and is kept out of r and q, so that nearly one-hot rows keep
     * every digit of Z - 1. */
    double mo_acc[2] = {0.0, 0.0};
    size_t ties = 0;
    for (size_t j0 = 0; j0 < n; j0 += SV_CHUNK) {
        const size_t len = n - j0 < SV_CHUNK ? n - j0 : SV_CHUNK;
        accumulate(s + j0, len, &ties, m, scale, mean, out, mo ? mo_acc : NULL);
    }
    /* Other elements equal to the max have e = 1 exactly (t = 0, w gets
     * nothing). With a NaN in s the max may be found nowhere (ties = 0): the
     * sums are NaN already. */
    if (ties > 1)
        for (int i = 0; i < 2; i++) {
            const double extra = (double)(ties - 1);
            out->r[i] += extra;
            out->q[i] += extra;
            out->u[i] += extra;
        }
    if (mo) {
        /* mo_acc[1] / n is the rounding error of the mean: the corrected
         * two-pass algorithm of sv_moments_of. */
        const double m2 = mo_acc[0] - mo_acc[1] * mo_acc[1] / (double)n;
        mo->n = n;
        mo->mean = mean + mo_acc[1] / (double)n;
        mo->m2 = m2 > 0.0 ? m2 : 0.0;
    }
    return isfinite(sum) && acc_finite(out) ? SV_OK : SV_ENONFINITE;
}

/* Rows shorter than this are packed several to a chunk, so that one vector
 * exp call serves many of them (a 2-key row alone would waste a call). */
#define SV_SHORT_ROW 32u

/* Rows [0, cnt) of length n <= SV_SHORT_ROW, leading dimension ld, packed
 * into one chunk: the same sums as sv_softmax_acc_row_moments. The chunk
 * invariant is cnt n <= SV_CHUNK, so with n = 1 there are SV_CHUNK rows:
 * the per-row arrays hold SV_CHUNK entries, not SV_CHUNK / 2. */
SV_INLINE void short_rows_body(const double *s, size_t cnt, size_t n, size_t ld, double c,
                               sv_softmax_acc *acc, sv_moments *mo)
{
    assert(n >= 1 && cnt * n <= SV_CHUNK);
    double t[SV_CHUNK], ct[SV_CHUNK], e0[SV_CHUNK], e1[SV_CHUNK];
    size_t kmax[SV_CHUNK], kmin[SV_CHUNK];
    double mean[SV_CHUNK];
    for (size_t r = 0; r < cnt; r++) {
        const double *x = s + r * ld;
        size_t k = 0, kl = 0;
        double sum = x[0];
        for (size_t j = 1; j < n; j++) {
            k = x[j] > x[k] ? j : k;
            kl = x[j] < x[kl] ? j : kl;
            sum += x[j];
        }
        kmax[r] = k;
        kmin[r] = kl;
        mean[r] = sum / (double)n;
        for (size_t j = 0; j < n; j++) {
            t[r * n + j] = x[j] - x[k];
            ct[r * n + j] = c * t[r * n + j];
        }
    }
    sv__vexp(t, e0, cnt * n);
    sv__vexp(ct, e1, cnt * n);
    for (size_t r = 0; r < cnt; r++) {
        const double *x = s + r * ld;
        const size_t o = r * n;
        e0[o + kmax[r]] = e1[o + kmax[r]] = 0.0;
        sv_softmax_acc a = {.max = x[kmax[r]], .min = x[kmin[r]]};
        double m2 = 0.0, dsum = 0.0;
        for (size_t j = 0; j < n; j++) {
            const double dev = x[j] - mean[r];
            const double sq0 = e0[o + j] * e0[o + j], sq1 = e1[o + j] * e1[o + j];
            m2 += dev * dev;
            dsum += dev;
            a.r[0] += e0[o + j];
            a.w[0] += e0[o + j] * t[o + j];
            a.q[0] += sq0;
            a.u[0] += sq0 * e0[o + j];
            a.r[1] += e1[o + j];
            a.w[1] += e1[o + j] * t[o + j];
            a.q[1] += sq1;
            a.u[1] += sq1 * e1[o + j];
        }
        acc[r] = a;
        if (mo) {
            const double v = m2 - dsum * dsum / (double)n;
            mo[r].n = n;
            mo[r].mean = mean[r] + dsum / (double)n;
            mo[r].m2 = v > 0.0 ? v : 0.0;
        }
    }
}

/* short_rows_body with n a constant for the shortest rows (a 2 x 2 trial
 * has rows of 2 keys): the loops unroll, the operations and their order
 * stay, so do the bits. */
static void short_rows(const double *s, size_t cnt, size_t n, size_t ld, double c,
                       sv_softmax_acc *acc, sv_moments *mo)
{
    if (n == 2)
        short_rows_body(s, cnt, 2, ld, c, acc, mo);
    else
        short_rows_body(s, cnt, n, ld, c, acc, mo);
}

sv_status sv_softmax_acc_rows(const double *s, size_t rows, size_t n, size_t ld, double scale,
                              sv_softmax_acc *acc, sv_moments *mo)
{
    if (rows == 0)
        return n == 0 || ld < n || !scale_ok(scale) ? SV_EINVAL : SV_OK;
    if (!s || !acc || n == 0 || ld < n || !scale_ok(scale))
        return SV_EINVAL;
    /* s spans (rows - 1) ld + n doubles; acc and mo rows entries. */
    const size_t max_d = SIZE_MAX / sizeof(double);
    if (n > max_d || rows > SIZE_MAX / sizeof(sv_softmax_acc) || rows - 1 > (max_d - n) / ld)
        return SV_ERANGE;
    int bad = 0;
    if (n > SV_SHORT_ROW) {
        for (size_t r = 0; r < rows; r++)
            bad |= sv_softmax_acc_row_moments(s + r * ld, n, scale, &acc[r], mo ? &mo[r] : NULL) !=
                   SV_OK;
        return bad ? SV_ENONFINITE : SV_OK;
    }
    const size_t per = SV_CHUNK / n;
    for (size_t r0 = 0; r0 < rows; r0 += per) {
        const size_t cnt = rows - r0 < per ? rows - r0 : per;
        short_rows(s + r0 * ld, cnt, n, ld, scale, acc + r0, mo ? mo + r0 : NULL);
    }
    for (size_t r = 0; r < rows; r++)
        bad |= !acc_finite(&acc[r]);
    return bad ? SV_ENONFINITE : SV_OK;
}

sv_status sv_softmax_acc_row(const double *s, size_t n, double scale, sv_softmax_acc *out)
{
    return sv_softmax_acc_row_moments(s, n, scale, out, NULL);
}

sv_status sv_softmax_acc_merge(sv_softmax_acc *acc, const sv_softmax_acc *b, double scale)
{
    if (!acc || !b || !scale_ok(scale))
        return SV_EINVAL;
    const int b_wins = b->max > acc->max;
    const sv_softmax_acc *hi = b_wins ? b : acc, *lo = b_wins ? acc : b;
    const double dm = lo->max - hi->max; /* <= 0 */
    sv_softmax_acc out = {.max = hi->max, .min = acc->min < b->min ? acc->min : b->min};
    for (int i = 0; i < 2; i++) {
        const double f = exp((i ? scale : 1.0) * dm);
        out.r[i] = hi->r[i] + (1.0 + lo->r[i]) * f;
        out.w[i] = hi->w[i] + f * (lo->w[i] + dm * (1.0 + lo->r[i]));
        out.q[i] = hi->q[i] + f * f * (1.0 + lo->q[i]);
        out.u[i] = hi->u[i] + f * f * f * (1.0 + lo->u[i]);
    }
    *acc = out;
    return SV_OK;
}

/* |J|_F of a row from its sums: r = Z - 1, q = sum e^2 and u = sum e^3
 * over the keys but the top, iz = 1 / Z, iz2 = 1 / Z^2. */
static double jac_frob(double rk, double q, double u, double iz, double iz2)
{
    const double qq = q * iz2, uu = u * iz2 * iz;
    const double f2 = rk * rk * (iz2 * iz2) + qq * (1.0 + 2.0 * iz2 + qq) - 2.0 * uu;
    return sqrt(f2 > 0.0 ? f2 : 0.0);
}

sv_status sv__softmax_acc_stats_rows_frob(const sv_softmax_acc *acc, size_t n, double scale,
                                          int frob, sv_softmax_stats *raw, sv_softmax_stats *scaled)
{
    if (!scale_ok(scale))
        return SV_EINVAL;
    if (n == 0)
        return SV_OK;
    if (!acc || !raw || !scaled)
        return SV_EINVAL;
    if (n > SIZE_MAX / sizeof(sv_softmax_acc))
        return SV_ERANGE;
    enum { CH = 128 };
    double r[2 * CH], lz[2 * CH];
    for (size_t i0 = 0; i0 < n; i0 += CH) {
        const size_t cnt = n - i0 < CH ? n - i0 : CH;
        for (size_t i = 0; i < cnt; i++) {
            r[2 * i] = acc[i0 + i].r[0];
            r[2 * i + 1] = acc[i0 + i].r[1];
        }
        /* ln Z = log1p(r): for nearly one-hot rows ln(1 + r) would lose
         * the digits of r. */
        sv__vlog1p(r, lz, 2 * cnt);
        double h[2 * CH], eh[2 * CH];
        for (size_t i = 0; i < cnt; i++)
            for (int k = 0; k < 2; k++) {
                const sv_softmax_acc *a = &acc[i0 + i];
                const double c = k ? scale : 1.0, rk = a->r[k], iz = 1.0 / (1.0 + rk);
                const double iz2 = iz * iz; /* 1 / Z^2: one division per row */
                sv_softmax_stats *out = k ? &scaled[i0 + i] : &raw[i0 + i];
                out->entropy = lz[2 * i + k] - c * (a->w[k] * iz);
                out->max_weight = iz;
                /* (Z^2 - sum e^2) / Z^2 = (2r + r^2 - q) / Z^2: 1 - q / Z^2
                 * would cancel to nothing for nearly one-hot rows. */
                out->jac_trace = (2.0 * rk + (rk * rk - a->q[k])) * iz2;
                out->jac_frob = frob ? jac_frob(rk, a->q[k], a->u[k], iz, iz2) : NAN;
                h[2 * i + k] = out->entropy;
            }
        sv__vexp(h, eh, 2 * cnt);
        for (size_t i = 0; i < cnt; i++) {
            raw[i0 + i].eff_keys = eh[2 * i];
            scaled[i0 + i].eff_keys = eh[2 * i + 1];
        }
    }
    return SV_OK;
}

sv_status sv_softmax_acc_stats_rows(const sv_softmax_acc *acc, size_t n, double scale,
                                    sv_softmax_stats *raw, sv_softmax_stats *scaled)
{
    return sv__softmax_acc_stats_rows_frob(acc, n, scale, 1, raw, scaled);
}

sv_status sv_softmax_acc_stats(const sv_softmax_acc *acc, double scale, sv_softmax_stats *raw,
                               sv_softmax_stats *scaled)
{
    return sv_softmax_acc_stats_rows(acc, 1, scale, raw, scaled);
}

sv_status sv_softmax_row_stats(const double *s, size_t n, double scale, sv_softmax_stats *raw,
                               sv_softmax_stats *scaled)
{
    if (!raw || !scaled)
        return SV_EINVAL;
    sv_softmax_acc acc;
    const sv_status st = sv_softmax_acc_row(s, n, scale, &acc);
    if (st != SV_OK)
        return st;
    return sv_softmax_acc_stats(&acc, scale, raw, scaled);
}
