/**
 * @file state.h
 * The mergeable state of a run (shard): which trials and query rows it
 * covers, the spec (with its hash), the build, and what those trials and
 * rows left behind, as bytes a file can hold; and the merge of shards into
 * what one run gives (docs/scaling.md).
 *
 * Encoding (version SV_STATE_VERSION): every integer little-endian, 8
 * bytes unless said; every double as the little-endian bytes of its IEEE
 * 754 binary64 bits; never a struct's memory. In order: the magic
 * "SDPAVST\0", the version (4 bytes), 4 zero bytes, the build's version
 * string (a length, then the bytes), its instruction set and BLAS kernel
 * (strings likewise), the whole run's trial count, the number of
 * configurations (every configuration of the run is in every shard); per
 * configuration the spec's 24 fields in sv_spec_hash's order then grad,
 * its hash, the scale name (length, bytes), observed, the trials
 * (first, count) and rows (begin, end) it covers, then either (rows
 * [0, n_q)) the sv_partial of its trials: lead trials, blocks, their sums
 * and Welford pairs, per block the count of its trials with no
 * entropy_norm, those that measured nothing included (version 3; at
 * least those, at most the block's trials; partial.h), the 6 extremes
 * (raw and scaled entropy_min, raw and scaled entropy_max,
 * raw_max_abs_logit, raw_max_logit), raw_var and scaled_var of every
 * trial;
 * or (rows in part) count x sv_rowfold_blocks folds, each SV_FOLD_COUNTS
 * counts and SV_FOLD_SUMS doubles. Last, an FNV-1a 64 digest of every
 * byte before it.
 *
 * Thread safety, every function here: re-entrant; a state or buffer
 * written by a call is not used by another thread meanwhile.
 * Cost, every function here unless its docstring says: writing and reading
 * O(bytes of the state: per configuration, its trials' raw_var and
 * scaled_var and a few hundred doubles per block of SV_SUMMARY_BLOCK
 * trials); sv_state_summary that of sv_summary_from_partial; the rest
 * O(1).
 */
#ifndef SDPA_VAR_STATE_H
#define SDPA_VAR_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/partial.h"
#include "sdpa_var/rowfold.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"
#include "sdpa_var/summary.h"

/** Version of the encoding written; the only one read (version 1, of
 * sdpa-var 0.3.0 and before, did not record the whole run's trials nor
 * the instruction set and BLAS kernel; version 2 not each block's count
 * of trials with no entropy_norm: SV_EUNSUPPORTED). */
#define SV_STATE_VERSION 3u
/** Bytes of a scale name or build version, NUL included. */
#define SV_STATE_NAME_MAX 32

/** What one configuration of a shard covers and left behind. */
typedef struct sv_state_config {
    sv_spec spec;                       /**< resolved; trials is the shard's count */
    char scale_name[SV_STATE_NAME_MAX]; /**< the --scale item, as written */
    double observed;                    /**< the --observed value, or NAN */
    uint64_t trial_first;               /**< trials [trial_first, +trial_count) */
    uint64_t trial_count;               /**< >= 1 */
    uint64_t row_begin, row_end;        /**< query rows [row_begin, row_end) */
    sv_partial *trials;                 /**< rows [0, n_q): the trials (first = trial_first,
                                             owned: sv_state_free frees it); else NULL */
    sv_rowfold *folds;                  /**< rows in part: trial_count x
                                             sv_rowfold_blocks(row_begin, row_end),
                                             trial-major; else NULL */
} sv_state_config;

/** A shard: one or more configurations of one run. */
typedef struct sv_state {
    char version[SV_STATE_NAME_MAX]; /**< the build that wrote it (SV_VERSION_STRING) */
    size_t n_configs;
    sv_state_config *configs;     /**< n_configs of them (malloc'ed) */
    uint64_t trials_total;        /**< the whole run's trials: every configuration's
                                       trials lie in [0, trials_total) */
    char isa[SV_STATE_NAME_MAX];  /**< the row loops' instruction set (sv_cpu_capability),
                                       "mixed" after a merge of several */
    char blas[SV_STATE_NAME_MAX]; /**< the BLAS kernel (OpenBLAS's core name, or
                                       "unknown"), "mixed" likewise */
} sv_state;

/** Why shards do not merge: sv_state_merge's verdict. */
typedef enum sv_state_problem {
    SV_STATE_FINE = 0,
    SV_STATE_OTHER_BUILD,    /**< written by another build (version) */
    SV_STATE_OTHER_SPEC,     /**< another spec, seed, scale or configuration count */
    SV_STATE_OVERLAP,        /**< covers trials or rows another shard covers */
    SV_STATE_MISSING_TRIALS, /**< trials [lo, hi) in no shard */
    SV_STATE_MISSING_ROWS,   /**< rows [lo, hi) of trials from trial `trial` in no shard */
    SV_STATE_OTHER_TOTAL     /**< a shard of a run of another trial count */
} sv_state_problem;

/** Where a merge failed: shard indices into the caller's array. */
typedef struct sv_state_why {
    sv_state_problem problem;
    size_t shard;    /**< the shard blamed */
    size_t other;    /**< the shard it conflicts with (OTHER_*, OVERLAP) */
    size_t config;   /**< the configuration */
    uint64_t lo, hi; /**< the missing or overlapping range (trials or rows) */
    uint64_t trial;  /**< MISSING_ROWS: the first trial of the range */
} sv_state_why;

/**
 * Starts the state of a run (a shard) in *out: @p n_configs configurations,
 * zeroed, for the caller to fill (sv_state_config: the runner's partial,
 * sv_runner_take_partial, or a row shard's folds); the whole run's
 * @p trials_total; and what computes it: this build's version, the row
 * loops' instruction set (sv_cpu_capability) and the BLAS kernel
 * (OpenBLAS's core name, or "unknown"), which the merge reports when
 * shards differ in them.
 * @return SV_OK; SV_EINVAL for out NULL; SV_ENOMEM (*out zeroed then).
 *         Free with sv_state_free.
 */
sv_status sv_state_begin(sv_state *out, size_t n_configs, uint64_t trials_total);

/**
 * The bytes of @p s, encoded as this header says, into buf[0 .. cap):
 * *len is set to the bytes needed whether or not they fit.
 * @return SV_OK (written); SV_ERANGE when cap < *len (nothing useful in
 *         buf; call again with a larger one) or the size overflows;
 *         SV_EINVAL for s or len NULL, a configuration whose ranges or
 *         arrays do not match (a partial of other trials, folds NULL).
 * Thread safety: reads s only. Cost: O(bytes).
 */
sv_status sv_state_encode(const sv_state *s, unsigned char *buf, size_t cap, size_t *len);

/**
 * Decodes @p len bytes into *out (arrays allocated: sv_state_free), every
 * field checked: magic, version, lengths against the bytes left, the
 * digest, each spec against sv_spec_check and its stored hash, the ranges,
 * a partial's block count.
 * @return SV_OK; SV_ECORRUPT for bytes that are none of the above, cut
 *         short, or followed by more; SV_EUNSUPPORTED for another
 *         encoding version; SV_EINVAL for NULL; SV_ENOMEM. *out zeroed
 *         after an error (nothing to free).
 * Thread safety: re-entrant. Cost: O(len).
 */
sv_status sv_state_decode(const unsigned char *buf, size_t len, sv_state *out);

/**
 * Why @p len bytes @p buf, named @p name (a file name), did not decode
 * with status @p st (sv_state_decode's), as one line (no newline): what
 * `sdpa-var merge` and Python's merge() print. For SV_EUNSUPPORTED with
 * the version field present (bytes 8..11, little-endian), "NAME: state
 * format version V, this build reads version SV_STATE_VERSION (write the
 * shard again with this build)"; else "NAME: " and sv_status_str(st).
 * @param buf, len the bytes given to sv_state_decode (NULL with len 0).
 * @param name NULL: written "?".
 * @param out, cap as snprintf's (NULL and 0: only the length).
 * @return the length of the whole line (as snprintf: > cap - 1 when cut).
 * Thread safety: re-entrant. Cost: O(1).
 */
size_t sv_state_decode_text(const unsigned char *buf, size_t len, sv_status st, const char *name,
                            char *out, size_t cap);

/**
 * Merges shards[0 .. n - 1], in any order, into *out: one shard whose
 * every configuration covers the union of the trials (rows [0, n_q)),
 * bit for bit what one run of those trials leaves: row shards of a
 * trial range are folded (sv_rowfold_finish), trial ranges joined in
 * order (sv_partial_merge). The union must be one range of trials; with
 * @p from_zero it must be the whole run, trials [0, trials_total) (what a
 * summary needs), so a missing last shard is refused too. Shards of
 * another instruction set or BLAS kernel merge (their numbers agree
 * within the cross-machine tolerance, not to the bit: docs/robustness.md);
 * out->isa and out->blas then say "mixed".
 * @param why NULL, or set to where the merge failed (FINE on success).
 * @return SV_OK; SV_EMISMATCH for shards of another version (than this
 *         library's), spec, seed, scale, configuration or trial count, overlapping
 *         or missing trials or rows (*why says which); SV_EINVAL for NULL
 *         or n 0; SV_ENOMEM; SV_EOVERFLOW if a trial's statistics are NaN.
 *         *out zeroed after an error.
 * Thread safety: reads the shards only. Cost: O(bytes of the shards).
 */
sv_status sv_state_merge(const sv_state *const *shards, size_t n, int from_zero, sv_state *out,
                         sv_state_why *why);

/**
 * The summary of configuration @p config of a merged state (its trials
 * from 0, rows whole): spec with trials set to the count, and what
 * sv_summary_end gives after the same trials (observed as stored).
 * @return SV_OK; SV_EINVAL for NULL, config out of range, or a
 *         configuration that does not hold trials from 0 with whole rows;
 *         SV_ENOMEM; the errors of sv_summary_from_partial.
 */
sv_status sv_state_summary(const sv_state *s, size_t config, sv_spec *spec, sv_summary *out);

/**
 * The number of configurations of @p s and, for @p config below it, what
 * a summary row of that configuration names besides its spec and summary
 * (sv_state_summary): *scale_name, the --scale item as written (NUL-
 * terminated, at most SV_STATE_NAME_MAX bytes; it points into @p s, valid
 * until sv_state_free), and *observed, the --observed variance (score^2,
 * NAN for none). So a caller that holds an sv_state as opaque bytes (of
 * sv_struct_size("sv_state"): ctypes) reads a merged state without a
 * mirror of sv_state or sv_state_config.
 * @param scale_name, observed NULL: not written; neither is written when
 *        @p config is out of range.
 * @return s->n_configs; 0 for s NULL.
 * Thread safety: reads s only. Cost: O(1).
 */
size_t sv_state_config_get(const sv_state *s, size_t config, const char **scale_name,
                           double *observed);

/**
 * A human-readable reason for @p problem ("written by another build",
 * ...). Never NULL; static.
 */
const char *sv_state_problem_str(sv_state_problem problem);

/**
 * Why shards do not merge, as one line (no newline) naming the shards by
 * @p names (names[why->shard], names[why->other]: file names, ranks): what
 * `sdpa-var merge` prints after "merge: ", e.g. "b.st: overlaps a.st
 * (trials or rows 4..7)". A range is written lo..hi-1, in trials or query
 * rows; a shard of another build names its version and this library's.
 * @param shards the shards given to sv_state_merge (the build's version,
 *        the run's trial count are read from them).
 * @param buf, len as snprintf's (NULL and 0: only the length).
 * @return the length of the whole line (as snprintf: > len - 1 when cut).
 *         A problem out of range, a range with nothing in it, or NULL
 *         arguments (but buf with len 0), give sv_state_problem_str's text;
 *         a NULL name is written "?".
 */
size_t sv_state_why_text(const sv_state_why *why, const sv_state *const *shards,
                         const char *const *names, char *buf, size_t len);

/** Frees every array of @p s and zeroes it (NULL or zeroed: no-op). */
void sv_state_free(sv_state *s);

#endif
