/* A tiny test harness. Every failing check prints one line on stderr:
 * file:line, the check as written, what it got and what it wanted.
 * CHECK_DONE() prints "N passed, M failed" and gives the exit status.
 *
 * CHECK and the CHECK_<op> family are expressions, 1 when they passed, so
 *     if (CHECK_STATUS(f(&x), SV_OK))
 *         CHECK_EQ(x, 1);
 * checks x only once f has succeeded (x may be unset otherwise).
 *
 *   CHECK_EQ, _NE, _LT, _LE, _GT, _GE (got, want): integers of any type
 *     (compared as numbers, so -1 != SIZE_MAX), floating point (exact, in
 *     C's own conversions, printed with %.17g; NaN equals nothing),
 *     pointers;
 *   CHECK_STATUS(call, want), CHECK_STATUS_NE: an sv_status, printed by
 *     name (SV_EINVAL);
 *   CHECK_STR_EQ(got, want): strings (either may be NULL);
 *   CHECK_MEM_EQ(got, want, bytes): memcmp, printing the first byte that
 *     differs (its offset names the struct member);
 *   CHECK_NAN(x): x is a NaN;
 *   CHECK_CLOSE(got, want, rtol, atol), CHECK_SE(label, got, want, se, k):
 *     tolerances (statements).
 * Facts known at compile time are static_asserts, not checks. */
#ifndef SDPA_VAR_TESTS_CHECK_H
#define SDPA_VAR_TESTS_CHECK_H

#include <assert.h> /* static_assert */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sdpa_var/status.h"

static int check_passed_, check_failed_;

/* Counts one check; on failure prints "file:line: what failed: why". */
static inline int check_count_(int ok, const char *file, int line, const char *what,
                               const char *why)
{
    if (ok) {
        check_passed_++;
        return 1;
    }
    check_failed_++;
    fprintf(stderr, "%s:%d: %s failed%s%s\n", file, line, what, why[0] ? ": " : "", why);
    return 0;
}

#define CHECK(cond) check_count_(!!(cond), __FILE__, __LINE__, "CHECK(" #cond ")", "")

/* One operand of a comparison, with the kind of its (promoted) type. */
enum { CHECK_INT_, CHECK_UINT_, CHECK_FLT_, CHECK_DBL_, CHECK_LDBL_, CHECK_PTR_ };
typedef struct check_val_ {
    int kind;
    long long i;
    unsigned long long u;
    long double f;
    const volatile void *p;
} check_val_;

static inline check_val_ check_i_(long long v)
{
    return (check_val_){.kind = CHECK_INT_, .i = v};
}
static inline check_val_ check_u_(unsigned long long v)
{
    return (check_val_){.kind = CHECK_UINT_, .u = v};
}
static inline check_val_ check_f_(float v)
{
    return (check_val_){.kind = CHECK_FLT_, .f = v};
}
static inline check_val_ check_d_(double v)
{
    return (check_val_){.kind = CHECK_DBL_, .f = v};
}
static inline check_val_ check_ld_(long double v)
{
    return (check_val_){.kind = CHECK_LDBL_, .f = v};
}
static inline check_val_ check_p_(const volatile void *v)
{
    return (check_val_){.kind = CHECK_PTR_, .p = v};
}

/* Types below int promote to int, as in C; anything else is a pointer. */
#define CHECK_VAL_(x)                                                                              \
    _Generic((x), _Bool                                                                            \
             : check_i_, char                                                                      \
             : check_i_, signed char                                                               \
             : check_i_, unsigned char                                                             \
             : check_i_, short                                                                     \
             : check_i_, unsigned short                                                            \
             : check_i_, int                                                                       \
             : check_i_, long                                                                      \
             : check_i_, long long                                                                 \
             : check_i_, unsigned                                                                  \
             : check_u_, unsigned long                                                             \
             : check_u_, unsigned long long                                                        \
             : check_u_, float                                                                     \
             : check_f_, double                                                                    \
             : check_d_, long double                                                               \
             : check_ld_, default                                                                  \
             : check_p_)(x)

/* The value of an operand in the floating type @p kind: C converts an
 * integer straight to the other operand's type. */
static inline long double check_as_float_(check_val_ v, int kind)
{
    if (v.kind == CHECK_INT_)
        return kind == CHECK_FLT_   ? (float)v.i
               : kind == CHECK_DBL_ ? (double)v.i
                                    : (long double)v.i;
    if (v.kind == CHECK_UINT_)
        return kind == CHECK_FLT_   ? (float)v.u
               : kind == CHECK_DBL_ ? (double)v.u
                                    : (long double)v.u;
    return v.f; /* a float or double held exactly */
}

/* -1, 0, 1 for a < b, a == b, a > b; 2 when unordered (a NaN). */
static inline int check_order_(check_val_ a, check_val_ b)
{
    if (a.kind == CHECK_PTR_ || b.kind == CHECK_PTR_) {
        /* a pointer against a pointer, or against the integer 0 (NULL) */
        uintptr_t x = a.kind == CHECK_PTR_ ? (uintptr_t)a.p : (uintptr_t)a.i;
        uintptr_t y = b.kind == CHECK_PTR_ ? (uintptr_t)b.p : (uintptr_t)b.i;
        return (x > y) - (x < y);
    }
    if (a.kind >= CHECK_FLT_ || b.kind >= CHECK_FLT_) {
        int k = a.kind > b.kind ? a.kind : b.kind; /* the wider floating type */
        long double x = check_as_float_(a, k), y = check_as_float_(b, k);
        return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
    }
    if (a.kind == CHECK_INT_ && b.kind == CHECK_INT_)
        return (a.i > b.i) - (a.i < b.i);
    if (a.kind == CHECK_INT_ && a.i < 0)
        return -1; /* a negative is below any unsigned */
    if (b.kind == CHECK_INT_ && b.i < 0)
        return 1;
    unsigned long long x = a.kind == CHECK_INT_ ? (unsigned long long)a.i : a.u;
    unsigned long long y = b.kind == CHECK_INT_ ? (unsigned long long)b.i : b.u;
    return (x > y) - (x < y);
}

static inline void check_format_(char *buf, size_t size, check_val_ v)
{
    switch (v.kind) {
    case CHECK_INT_:
        snprintf(buf, size, "%lld", v.i);
        break;
    case CHECK_UINT_:
        snprintf(buf, size, "%llu", v.u);
        break;
    case CHECK_PTR_:
        snprintf(buf, size, "%p", (const void *)v.p);
        break;
    default:
        snprintf(buf, size, "%.17Lg", v.f);
        break;
    }
}

enum { CHECK_EQ_, CHECK_NE_, CHECK_LT_, CHECK_LE_, CHECK_GT_, CHECK_GE_ };

static inline int check_holds_(int op, int order)
{
    switch (op) {
    case CHECK_EQ_:
        return order == 0;
    case CHECK_NE_:
        return order != 0;
    case CHECK_LT_:
        return order == -1;
    case CHECK_LE_:
        return order == -1 || order == 0;
    case CHECK_GT_:
        return order == 1;
    default:
        return order == 1 || order == 0;
    }
}

static inline int check_cmp_(const char *file, int line, int op, const char *got_text,
                             const char *want_text, check_val_ got, check_val_ want)
{
    static const char *const name[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    static const char *const sign[] = {"", "!= ", "< ", "<= ", "> ", ">= "};
    char what[512], why[160], g[64], w[64];
    if (check_holds_(op, check_order_(got, want)))
        return check_count_(1, file, line, "", "");
    check_format_(g, sizeof g, got);
    check_format_(w, sizeof w, want);
    snprintf(what, sizeof what, "CHECK_%s(%s, %s)", name[op], got_text, want_text);
    snprintf(why, sizeof why, "got %s, want %s%s", g, sign[op], w);
    return check_count_(0, file, line, what, why);
}

/* sizeof keeps the compiler's checks of `got op want` (types, signedness)
 * without evaluating either twice. */
#define CHECK_CMP_(op, sign, got_text, want_text, got, want)                                       \
    ((void)sizeof((got)sign(want)),                                                                \
     check_cmp_(__FILE__, __LINE__, op, got_text, want_text, CHECK_VAL_(got), CHECK_VAL_(want)))
#define CHECK_EQ(got, want) CHECK_CMP_(CHECK_EQ_, ==, #got, #want, got, want)
#define CHECK_NE(got, want) CHECK_CMP_(CHECK_NE_, !=, #got, #want, got, want)
#define CHECK_LT(got, want) CHECK_CMP_(CHECK_LT_, <, #got, #want, got, want)
#define CHECK_LE(got, want) CHECK_CMP_(CHECK_LE_, <=, #got, #want, got, want)
#define CHECK_GT(got, want) CHECK_CMP_(CHECK_GT_, >, #got, #want, got, want)
#define CHECK_GE(got, want) CHECK_CMP_(CHECK_GE_, >=, #got, #want, got, want)

/* "SV_EINVAL" for 1, from status.h's own table. */
static inline const char *check_status_name_(int status)
{
    switch (status) {
#define CHECK_STATUS_CASE_(name, value, message)                                                   \
    case value:                                                                                    \
        return "SV_" #name;
        SV_STATUS_MAP(CHECK_STATUS_CASE_)
#undef CHECK_STATUS_CASE_
    }
    return "an unknown status";
}

static inline int check_status_(const char *file, int line, int op, const char *call,
                                const char *want_text, int got, int want)
{
    char what[512], why[160];
    if ((got == want) == (op == CHECK_EQ_))
        return check_count_(1, file, line, "", "");
    snprintf(what, sizeof what, "CHECK_STATUS%s(%s, %s)", op == CHECK_EQ_ ? "" : "_NE", call,
             want_text);
    snprintf(why, sizeof why, "got %s (%d), want %s%s (%d)", check_status_name_(got), got,
             op == CHECK_EQ_ ? "" : "not ", check_status_name_(want), want);
    return check_count_(0, file, line, what, why);
}

#define CHECK_STATUS(call, want)                                                                   \
    check_status_(__FILE__, __LINE__, CHECK_EQ_, #call, #want, (int)(call), (int)(want))
#define CHECK_STATUS_NE(call, want)                                                                \
    check_status_(__FILE__, __LINE__, CHECK_NE_, #call, #want, (int)(call), (int)(want))

static inline int check_str_eq_(const char *file, int line, const char *got_text,
                                const char *want_text, const char *got, const char *want)
{
    char what[512], why[512];
    if (got && want ? strcmp(got, want) == 0 : got == want)
        return check_count_(1, file, line, "", "");
    snprintf(what, sizeof what, "CHECK_STR_EQ(%s, %s)", got_text, want_text);
    snprintf(why, sizeof why, "got %s%.200s%s, want %s%.200s%s", got ? "\"" : "",
             got ? got : "NULL", got ? "\"" : "", want ? "\"" : "", want ? want : "NULL",
             want ? "\"" : "");
    return check_count_(0, file, line, what, why);
}

#define CHECK_STR_EQ(got, want) check_str_eq_(__FILE__, __LINE__, #got, #want, (got), (want))

static inline int check_mem_eq_(const char *file, int line, const char *got_text,
                                const char *want_text, const void *got, const void *want,
                                size_t bytes)
{
    const unsigned char *g = got, *w = want;
    char what[512], why[160];
    size_t at = 0;
    while (at < bytes && g[at] == w[at])
        at++;
    if (at == bytes)
        return check_count_(1, file, line, "", "");
    snprintf(what, sizeof what, "CHECK_MEM_EQ(%s, %s)", got_text, want_text);
    snprintf(why, sizeof why, "byte %zu of %zu differs: got 0x%02x, want 0x%02x", at, bytes, g[at],
             w[at]);
    return check_count_(0, file, line, what, why);
}

#define CHECK_MEM_EQ(got, want, bytes)                                                             \
    check_mem_eq_(__FILE__, __LINE__, #got, #want, (got), (want), (bytes))

static inline int check_nan_(const char *file, int line, const char *text, long double x)
{
    char what[512], why[64];
    if (isnan(x))
        return check_count_(1, file, line, "", "");
    snprintf(what, sizeof what, "CHECK_NAN(%s)", text);
    snprintf(why, sizeof why, "got %.17Lg", x);
    return check_count_(0, file, line, what, why);
}

#define CHECK_NAN(x) check_nan_(__FILE__, __LINE__, #x, (x))

/* |got - want| <= atol + rtol |want|; NaN never passes. */
#define CHECK_CLOSE(got, want, rtol, atol)                                                         \
    do {                                                                                           \
        const double g_ = (got), w_ = (want);                                                      \
        if (fabs(g_ - w_) <= (atol) + (rtol)*fabs(w_)) {                                           \
            check_passed_++;                                                                       \
        } else {                                                                                   \
            check_failed_++;                                                                       \
            fprintf(stderr,                                                                        \
                    "%s:%d: CHECK_CLOSE failed: %s = %.17g, want %s = %.17g "                      \
                    "(diff %.3g, rtol %g, atol %g)\n",                                             \
                    __FILE__, __LINE__, #got, g_, #want, w_, g_ - w_, (double)(rtol),              \
                    (double)(atol));                                                               \
        }                                                                                          \
    } while (0)

/* Statistical check: |got - want| <= k standard errors, printed either way
 * so a reader sees how close it was. */
#define CHECK_SE(label, got, want, se, k)                                                          \
    do {                                                                                           \
        const double g_ = (got), w_ = (want), s_ = (se);                                           \
        const int ok_ = fabs(g_ - w_) <= (k)*s_;                                                   \
        if (ok_)                                                                                   \
            check_passed_++;                                                                       \
        else                                                                                       \
            check_failed_++;                                                                       \
        fprintf(ok_ ? stdout : stderr,                                                             \
                "%s:%d: %s %s: got %.10g, want %.10g, %.2f SE (SE %.3g, limit %g)\n", __FILE__,    \
                __LINE__, ok_ ? "ok" : "FAILED", label, g_, w_, (g_ - w_) / s_, s_, (double)(k));  \
    } while (0)

/* A test that checked nothing (a loop that ran zero times) fails. */
#define CHECK_DONE()                                                                               \
    (printf("%d passed, %d failed%s\n", check_passed_, check_failed_,                              \
            check_passed_ ? "" : " (no check passed: nothing was tested)"),                        \
     check_failed_ || !check_passed_ ? 1 : 0)

#endif
