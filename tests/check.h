/* A tiny test harness: CHECK and CHECK_CLOSE print both values on failure;
 * CHECK_DONE() prints "N passed, M failed" and gives the exit status. */
#ifndef SDPA_VAR_TESTS_CHECK_H
#define SDPA_VAR_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_passed_, check_failed_;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed_++;                                                                       \
        } else {                                                                                   \
            check_failed_++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

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
