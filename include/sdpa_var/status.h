/**
 * @file status.h
 * Error codes of the sdpa-var library: one X-macro table makes both the enum
 * and the messages, so codes and messages cannot drift apart. Values are
 * pinned: new codes are appended, never renumbered. SV_EINVAL is a bad
 * argument (outputs untouched); SV_ENONFINITE is data that are not finite
 * (each function says whether its outputs were written, then as NaN);
 * SV_ECANCELED is a run the caller stopped (sv_exec.cancel, engine.h): its
 * partial results are discarded, no output is complete.
 */
#ifndef SDPA_VAR_STATUS_H
#define SDPA_VAR_STATUS_H

#define SV_STATUS_MAP(X)                                                                           \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, 1, "invalid argument")                                                               \
    X(ERANGE, 2, "size product overflows")                                                         \
    X(ENOMEM, 3, "out of memory")                                                                  \
    X(ETOOBIG, 4, "size exceeds what the BLAS can index (2^31 - 1)")                               \
    X(EFORMAT, 5, "array layout or data type not supported")                                       \
    X(EMISMATCH, 6, "data does not match the experiment's shape or trials")                        \
    X(EOVERFLOW, 7, "value too large: scores would overflow")                                      \
    X(EPRECISION, 8, "mean too large against the standard deviation for double precision")         \
    X(EUNSUPPORTED, 9, "not supported by this CPU or build")                                       \
    X(ECORRUPT, 10, "state data corrupt or truncated")                                             \
    X(ENONFINITE, 11, "data hold a NaN or an infinity, or overflow to one")                        \
    X(ECANCELED, 12, "canceled by the caller")

/** Result of every library function that can fail. */
typedef enum sv_status {
#define SV_STATUS_ENUM_(name, value, message) SV_##name = (value),
    SV_STATUS_MAP(SV_STATUS_ENUM_)
#undef SV_STATUS_ENUM_
} sv_status;

/**
 * Human-readable message for a status code.
 *
 * @return a static string such as "out of memory"; "unknown status" for a
 *         value not in SV_STATUS_MAP. Never NULL.
 * Thread safety: none needed (reads a constant table). Cost: O(1).
 */
const char *sv_status_str(sv_status status);

/**
 * The enum name of a status code, as libuv's uv_err_name: "SV_ENOMEM" for
 * SV_ENOMEM. Bindings read the codes from here (0, 1, ... until NULL).
 *
 * @return a static string such as "SV_EINVAL"; NULL for a value not in
 *         SV_STATUS_MAP.
 * Thread safety: none needed (reads a constant table). Cost: O(1).
 */
const char *sv_status_name(sv_status status);

#endif
