/**
 * @file columns.h
 * The output columns of sdpa-var: one table of descriptors (name, unit,
 * type, when the value must be defined, a doc line, a getter) from which
 * every writer takes its header, its rows and its verdict on undefined
 * values, and from which docs/columns.md is generated. A writer never
 * names a statistic itself, so the CSV, the JSON and the table cannot
 * drift apart, and the Python package can read the same table.
 *
 * Thread safety, every function here: pure; the column table is static
 * and read only, so any thread may call them at any time.
 * Cost, every function here: O(1), except sv_columns_first_undefined,
 * sv_columns_first_undefined_skip and sv_column_partner, O(columns of the
 * kind), and the JSON writers, O(their text).
 */
#ifndef SDPA_VAR_COLUMNS_H
#define SDPA_VAR_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/columns_list.h"
#include "sdpa_var/engine.h"
#include "sdpa_var/softmax.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/summary.h"

/** The kinds of output rows. Values pinned: appended, never renumbered. */
typedef enum sv_output_kind {
    SV_OUTPUT_SUMMARY = 0,   /**< one row per configuration: means over trials, theory */
    SV_OUTPUT_PER_TRIAL = 1, /**< one row per trial of each configuration */
    SV_OUTPUT_PER_ROW = 2,   /**< one row per query position, means over trials */
    SV_OUTPUT_HISTOGRAM = 3, /**< one row per bin of the score (or weight) histogram */
    SV_OUTPUT_PER_HEAD = 4,  /**< measured Q and K (a strided source): one row per
                                  (batch, head), and a pooled row (head "all") */
    SV_OUTPUT_LOGITS = 5     /**< given rows of logits (sdpa-var --logits): one row
                                  per (row, scale, key), sv_row_view.logits */
} sv_output_kind;

/** Number of sv_output_kind values. */
#define SV_OUTPUT_KINDS 6

/**
 * Every column's id, SV_COL_ and its entry's id in the column list
 * (columns_list.h): SV_COL_raw_var, SV_COL_scaled_entropy, ... so that a
 * caller names a column without a string. Values pinned: the list only
 * grows at its end. sv_column_of and sv_column_id_of turn an id into its
 * descriptor and back.
 */
#define SV_COLUMN_ID_(id, ...) SV_COL_##id,
typedef enum sv_column_id { SV_COLUMN_LIST(SV_COLUMN_ID_) SV_COLUMN_IDS } sv_column_id;
#undef SV_COLUMN_ID_

/** What a value is: a double, an exact count or a word. */
typedef enum sv_value_type {
    SV_VALUE_REAL = 0,  /**< a double; NAN where undefined */
    SV_VALUE_COUNT = 1, /**< an unsigned integer, never undefined */
    SV_VALUE_TEXT = 2   /**< a word such as "normal" or "sqrt", never NULL */
} sv_value_type;

/** One value of one row; the member named by the column's type is set. */
typedef struct sv_value {
    double real;
    uint64_t count;
    const char *text;
} sv_value;

/**
 * One key of one given row of logits at one scale: what a row of
 * SV_OUTPUT_LOGITS reads, the inputs and outputs of sv_softmax_row_report.
 */
typedef struct sv_logits_view {
    size_t row;             /**< the row, from 0 */
    size_t key;             /**< the key j, 0 <= key < n */
    size_t n;               /**< keys of the row */
    size_t d_k;             /**< d_k the scale names (0: not given) */
    const char *scale_name; /**< the scale as written ("none", "sqrt", "0.5") */
    double scale;           /**< the multiplier c */
    const double *z;        /**< n logits as given */
    const double *p;        /**< n weights softmax(c z) */
    const double *g;        /**< n upstream values dL/dp, or NULL */
    const double *dz;       /**< n values dL/d(c z), or NULL (with g) */
    sv_softmax_stats st;    /**< the row's statistics at c */
} sv_logits_view;

/**
 * When a column's value must be defined (not NAN). After a configuration,
 * a NAN in a column whose condition holds is not a true answer but a
 * failure (sv_column_required). Values pinned.
 */
typedef enum sv_column_need {
    SV_NEED_NONE = 0,        /**< may be NAN (a theory without closed form here) */
    SV_NEED_ALWAYS = 1,      /**< always defined */
    SV_NEED_SCORES2 = 2,     /**< defined when N = n_q n_k > 1 (ddof 1 needs two scores) */
    SV_NEED_TRIALS2 = 3,     /**< defined when trials > 1 (a spread across trials) */
    SV_NEED_STUDENT_T = 4,   /**< defined when dist is Student's t */
    SV_NEED_DIAG = 5,        /**< defined when query i and key i are related: plant != 0,
                                  or d_model > 0 without cross */
    SV_NEED_QK_VAR = 6,      /**< required with d_model > 0 or qk_norm (every built-in
                                  source measures Q and K, so the value is a number
                                  elsewhere too; it is required where it says
                                  something about the options) */
    SV_NEED_QK_NORM = 7,     /**< defined with qk_norm */
    SV_NEED_VALUES = 8,      /**< defined with values */
    SV_NEED_OBSERVED = 9,    /**< defined when an observed variance was given */
    SV_NEED_KNOWN_MEAN = 10, /**< defined when theory gives E[S] (sv_theory_mean): not
                                 for QK-norm of shifted rows or of a planted key
                                 with non-normal entries */
    SV_NEED_GRAD = 11,       /**< defined with grad */
    SV_NEED_KEYS2 = 12,      /**< defined when some row sees at least 2 keys: n_k >= 2,
                                  and n_q >= 2 under causal (row i sees i + 1 keys) */
    SV_NEED_WINDOW = 13,     /**< meaningful with a sliding window (window > 0): the
                                  rows a window can leave without keys */
    SV_NEED_ONE_SCALE = 14,  /**< defined with one multiplier for every row: not
                                  with scale_logn (a max |c_i S| is no max |S|
                                  times one c) */
    SV_NEED_THEORY = 15      /**< defined where the theory of the spec gives the
                                  value: the column's getter on a summary whose
                                  raw_theory is sv_theory_spec and scaled_theory
                                  sv_theory_scale of it (summary columns that
                                  read only the theory: E[raw_var], its sd) */
} sv_column_need;

/**
 * Everything a column's getter may read for one row. Set the members the
 * row's kind uses (see sv_column.get), leave the others zero.
 */
typedef struct sv_row_view {
    const sv_spec *spec;          /**< the resolved spec: every kind */
    const char *scale_name;       /**< the scale choice as written ("sqrt", "dk",
                                       "none", "0.125"); NULL reads as "sqrt" for
                                       spec's default scale, else "custom" */
    const sv_trial_stats *stats;  /**< summary: &summary->mean; per-trial: the trial */
    const sv_summary *summary;    /**< summary rows only */
    uint64_t trial;               /**< per-trial: the trial's number */
    size_t row;                   /**< per-row: the query position */
    const double *row_sums;       /**< per-row: that row's SV_ROW_FIELDS sums over
                                       spec->trials trials (sv_taps.row_sums) */
    double bin_lo, bin_hi;        /**< histogram: the bin's edges */
    uint64_t bin_count[2];        /**< histogram: raw and scaled counts */
    const sv_head *head;          /**< per-head: the row's (batch, head, kv_head)
                                       (sv_strided_head); NULL for the pooled row,
                                       whose batch, head and kv_head read "all" and
                                       whose stats are &summary->mean */
    const sv_logits_view *logits; /**< logits: the row, scale and key */
    int masked;                   /**< per-head and pooled rows: the run had a data
                                       mask (sv_head_row_make), which may leave a
                                       row two keys where spec says it sees more:
                                       a NAN entropy_norm is then the true answer
                                       (sv_column_undefined) */
} sv_row_view;

/** sv_column.flags */
#define SV_COLUMN_ONLY_OBSERVED 1u /**< exists only when an observed variance was given */
#define SV_COLUMN_CONFIG 2u        /**< describes the configuration, not a result */
#define SV_COLUMN_ONLY_GRAD 4u     /**< exists only with grad (spec->grad) */
#define SV_COLUMN_ONLY_DRAWS                                                                       \
    8u /**< describes random draws (seed, dist, the draw                                           \
            means and stds, plant, projections, QK-norm,                                           \
            trials): no column of rows of measured Q and K                                         \
            (sv_source_strided), which it would misdescribe */

/** sv_column.flags: a spread across trials (a standard deviation), nan for
 *  one trial; the default output shows it only with two trials or more. */
#define SV_COLUMN_SPREAD 16u

/**
 * The groups of columns that --columns +NAME adds; each column is in one
 * (sv_column.flags bits 8 to 15). The default output is every column of
 * the core group and of each option group whose option a run uses (see
 * sv_column_default). Values pinned: appended, never renumbered.
 */
typedef enum sv_column_group {
    SV_GROUP_CORE = 0,        /**< the configuration and the headline statistics */
    SV_GROUP_SD = 1,          /**< spreads across trials of the other means */
    SV_GROUP_QUANTILES = 2,   /**< quantiles of the variance across trials */
    SV_GROUP_THEORY = 3,      /**< further theory: E[raw_mean], entropy approximation, ddof 0, 1 */
    SV_GROUP_VARIANCE = 4,    /**< the variance about the known mean, with ddof 0 and 1 */
    SV_GROUP_ENTROPY = 5,     /**< smallest, largest and normalised row entropy */
    SV_GROUP_JACOBIAN = 6,    /**< the Frobenius norm of the softmax Jacobian */
    SV_GROUP_LOGITS = 7,      /**< the largest |logit| and the float16 headroom */
    SV_GROUP_SINK = 8,        /**< the weight of the first key seen (attention sinks) */
    SV_GROUP_DRAW = 9,        /**< option: q_mean, q_std, k_mean, k_std not 0, 1, 0, 1 */
    SV_GROUP_DDOF = 10,       /**< option: ddof not 0 */
    SV_GROUP_PLANT = 11,      /**< option: plant not 0 */
    SV_GROUP_PROJECTION = 12, /**< option: d_model > 0 */
    SV_GROUP_DIAG = 13,       /**< option: query i and key i related (SV_NEED_DIAG) */
    SV_GROUP_INPUTS = 14,     /**< option: Q and K measured (SV_NEED_QK_VAR, or arrays) */
    SV_GROUP_QK_NORM = 15,    /**< option: qk_norm */
    SV_GROUP_CAUSAL = 16,     /**< option: causal or window (masks) */
    SV_GROUP_VALUES = 17,     /**< option: values */
    SV_GROUP_GRAD = 18,       /**< option: grad */
    SV_GROUP_OBSERVED = 19    /**< option: an observed variance */
} sv_column_group;

/** Number of sv_column_group values. */
#define SV_COLUMN_GROUPS 20

/** The sv_column.flags bits of group @p g, and the group of @p flags. */
#define SV_COLUMN_GROUP_FLAGS(g) ((unsigned)(g) << 8)
#define SV_COLUMN_GROUP(flags) ((sv_column_group)(((flags) >> 8) & 0xffu))

/**
 * How a column's values of several parts of one measurement (trials,
 * batch elements, calls of a training step, heads pooled) combine into the
 * value of the whole: what a caller that accumulates rows itself (the
 * Python monitor) does with each column. Values pinned: appended, never
 * renumbered; 0 is no column's (a zeroed sv_column).
 */
typedef enum sv_column_reduce {
    SV_REDUCE_MEAN = 1,   /**< a mean (over rows, keys, entries): the parts' mean, each
                               weighted by the rows it has */
    SV_REDUCE_MIN = 2,    /**< a smallest value: the parts' smallest */
    SV_REDUCE_MAX = 3,    /**< a largest value: the parts' largest */
    SV_REDUCE_SUM = 4,    /**< a count of things in the part (rows that see no key,
                               scores in a bin): the parts' sum (a summary over
                               trials shows rows_empty per trial, sum / trials) */
    SV_REDUCE_FIRST = 5,  /**< the same in every part: the configuration, a label,
                               a bin's edge; the first part's */
    SV_REDUCE_POOLED = 6, /**< a function of the whole's other values, not of this
                               column's in the parts: computed again (var_scale =
                               1 / sqrt(raw_var); --grad's root mean squares) */
    SV_REDUCE_NONE = 7    /**< no rule from the parts' values: a spread or a quantile
                               across trials, an index of the part (trial) */
} sv_column_reduce;

/** Number of sv_column_reduce values, 0 included (SV_REDUCE_NONE + 1). */
#define SV_COLUMN_REDUCES 8

/** One output column. */
typedef struct sv_column {
    const char *name; /**< CSV header, JSON key: [a-z0-9_]+, never renamed */
    const char *unit; /**< e.g. "score", "score^2", "nats", "1" (a ratio), "" for none */
    const char *doc;  /**< one line for docs/columns.md */
    sv_value_type type;
    sv_column_need need;                     /**< when the value must be defined */
    unsigned flags;                          /**< SV_COLUMN_* bits */
    sv_value (*get)(const sv_row_view *row); /**< the value of this column in @p row */
    sv_column_reduce reduce;                 /**< how parts' values combine */
} sv_column;

/**
 * The partners a column states in the column table (sv_column_partner),
 * so that no caller rebuilds them from names. Values pinned: appended,
 * never renumbered.
 */
typedef enum sv_column_partner_kind {
    SV_PARTNER_SD = 0,     /**< its spread across trials (raw_var -> raw_var_sd) */
    SV_PARTNER_THEORY = 1, /**< its theory (raw_var -> raw_var_expected, raw_var_sd ->
                                raw_var_sd_theory, raw_entropy -> raw_entropy_approx) */
    SV_PARTNER_TWIN = 2,   /**< the same statistic of the other logits: raw_* <-> scaled_* */
    SV_PARTNER_SD_OF = 3   /**< the inverse of SV_PARTNER_SD: the column whose spread
                                this is (raw_var_sd -> raw_var) */
} sv_column_partner_kind;

/** Number of sv_column_partner_kind values. */
#define SV_COLUMN_PARTNERS 4

/** Number of columns of @p kind, including the SV_COLUMN_ONLY_OBSERVED and
 *  SV_COLUMN_ONLY_GRAD ones; 0 for a bad kind. */
size_t sv_columns_count(sv_output_kind kind);

/**
 * The @p i-th column of @p kind, in output order (0 <= i < sv_columns_count).
 * The order only grows at the end (scripts read by position too).
 * @return a static descriptor; NULL when kind or i is out of range.
 */
const sv_column *sv_columns_get(sv_output_kind kind, size_t i);

/**
 * The descriptor of column @p id (also when it is in no kind's order).
 * @return a static descriptor; NULL for an id out of range.
 * Thread safety: pure, thread-safe.
 */
const sv_column *sv_column_of(sv_column_id id);

/**
 * The id of @p col, a descriptor of the column table (sv_columns_get,
 * sv_column_of).
 * @return its id; SV_COLUMN_IDS for col NULL or not the table's.
 * Thread safety: pure, thread-safe. Cost: O(columns).
 */
sv_column_id sv_column_id_of(const sv_column *col);

/** "summary", "per_trial", "per_row", "histogram", "per_head", "logits"; NULL for a bad kind. */
const char *sv_output_kind_name(sv_output_kind kind);

/**
 * Every non-text column of the per-head rows (SV_OUTPUT_PER_HEAD) of @p n
 * measured trials at once, for a caller that would otherwise build a row
 * view and call each getter per trial (the Python stats(), ~60 columns):
 * row t is the view of sv_summary_head(spec, &stats[t], NULL, ...), with
 * spec the plug-in spec it returns, summary and stats its summary's, the
 * given scale_name, trial 0 and head NULL, its theory NaN when @p masked
 * (no closed form for a data mask, docs/theory.md section 16).
 * @param spec       the resolved spec of the run (shared by the n trials).
 * @param stats      n per-trial statistics (sv_engine_run's out).
 * @param scale_name as sv_row_view.scale_name; may be NULL.
 * @param masked     nonzero: the run had a data mask.
 * @param out        sv_columns_count(SV_OUTPUT_PER_HEAD) * n values:
 *                   column c of trial t at out[c * n + t], each as its
 *                   getter returns it; a text column's (SV_VALUE_TEXT:
 *                   batch, head, kv_head, scale) are left {NAN, 0, NULL}
 *                   (their text lives in the getter's buffer: read them
 *                   from a row view).
 * @return SV_OK; SV_EINVAL for spec, stats or out NULL, or n 0.
 * Thread safety: re-entrant. Cost: O(n) theory evaluations and getters.
 */
sv_status sv_per_head_values(const sv_spec *spec, const sv_trial_stats *stats, size_t n,
                             const char *scale_name, int masked, sv_value *out);

/**
 * Whether @p col's value must be defined (not NAN) in a row of @p spec (resolved), by
 * col->need. With @p observed nonzero, an observed variance was given.
 * A REAL value that is NAN where this returns 1 is a failure of the run,
 * not an answer.
 * @return 1 or 0; 0 for col or spec NULL (nothing can be required).
 * Thread safety: pure, thread-safe.
 */
int sv_column_required(const sv_column *col, const sv_spec *spec, int observed);

/**
 * Whether @p col's value in @p row is NAN although it must be defined: a
 * REAL column, not ONLY_OBSERVED without @p observed nor ONLY_GRAD without
 * row->spec->grad, that sv_column_required requires. Never in a row that
 * measured nothing: row->stats given and its rows_empty >= n_q (a mask or
 * window leaves no query row a key), where NAN is the mean of nothing;
 * nor, with row->masked, in a column that needs two keys a row
 * (SV_NEED_KEYS2: the entropy_norm columns), which a data mask may give no
 * row: NAN is then the mean over no row, or over no head (the pooled row).
 * @return 1 or 0; 0 for col, row or row->spec NULL.
 * Thread safety: pure, thread-safe.
 */
int sv_column_undefined(const sv_column *col, const sv_row_view *row, int observed);

/**
 * The groups of per-trial statistics (SV_SKIP_* of engine.h) that @p col's
 * value is computed from: a run none of whose columns reads a group may
 * leave it uncomputed (sv_taps.skip).
 * @return SV_SKIP_* bits; 0 for a column that reads none, or col NULL.
 * Thread safety: pure, thread-safe.
 */
unsigned sv_column_reads(const sv_column *col);

/**
 * The first column of @p kind whose value in @p row is NAN although
 * sv_column_required says it must be defined (sv_column_undefined), or
 * NULL when there is none.
 * @p observed as in sv_column_required. @p row must have the members
 * its kind's getters read (sv_row_view); NULL for row or row->spec NULL.
 */
const sv_column *sv_columns_first_undefined(sv_output_kind kind, const sv_row_view *row,
                                            int observed);

/**
 * Whether @p col can have a value in rows of @p spec at all: an
 * SV_COLUMN_ONLY_OBSERVED column only with @p observed, an
 * SV_COLUMN_ONLY_GRAD one only with spec->grad (spec NULL: no grad), an
 * SV_COLUMN_ONLY_DRAWS one only without @p measured (Q and K loaded
 * arrays). What a writer offers before it chooses (sv_column_default).
 * @return 1 or 0; 0 for col NULL. Thread safety: pure, thread-safe.
 */
int sv_column_exists(const sv_column *col, const sv_spec *spec, int observed, int measured);

/**
 * Whether @p col shows a standard deviation across trials of a per-trial
 * statistic (sv_summary's sd, which sv_run leaves NAN without
 * SV_RUN_TRIAL_SD): the SV_COLUMN_SPREAD columns but the core's
 * (raw_var_sd and scaled_var_sd come from the per-trial arrays).
 * @return 1 or 0; 0 for col NULL. Thread safety: pure, thread-safe.
 */
int sv_column_trial_sd(const sv_column *col);

/**
 * sv_columns_first_undefined of a run that computed less than every
 * column: the columns it left NAN on purpose are not looked at, those of
 * a group in @p skip_groups (bit g for group g: the quantiles without
 * SV_RUN_QUANTILES, the inputs when the entries were not measured), those
 * reading a statistic in @p skip (SV_SKIP_*, sv_column_reads: the taps'
 * skip) and, with @p no_trial_sd, the SDs across trials
 * (sv_column_trial_sd). All 0: sv_columns_first_undefined.
 * @return the first other column undefined in @p row, or NULL (also for
 *         row or row->spec NULL).
 */
const sv_column *sv_columns_first_undefined_skip(sv_output_kind kind, const sv_row_view *row,
                                                 int observed, unsigned skip_groups, unsigned skip,
                                                 int no_trial_sd);

/**
 * The partner @p which of column @p col among the columns of @p kind: its
 * spread across trials, its theory, its raw or scaled twin, or the column
 * it is the spread of (sv_column_partner_kind). The relation is the column
 * table's, not a rule on names, although the names follow one (the sd of
 * X is X_sd).
 * @p col: a descriptor of @p kind (sv_columns_get(kind, i)).
 * @return a static descriptor of @p kind; NULL when @p col has no such
 *         partner, when the partner is not a column of @p kind (raw_var's
 *         sd in per-trial rows), or for a bad kind or which, col NULL or
 *         not a column of @p kind.
 * Thread safety: pure, thread-safe.
 * Cost: O(columns of the kind).
 */
const sv_column *sv_column_partner(sv_output_kind kind, const sv_column *col,
                                   sv_column_partner_kind which);

/**
 * The standard error of the mean over trials of summary column @p col in
 * summary row @p row: its spread across trials (its SV_PARTNER_SD) over
 * sqrt(trials); where that is NAN (one trial), the theory of the spread,
 * the sd of one trial (the spread's SV_PARTNER_THEORY), over sqrt(trials)
 * where there is one. The variants of the sample variance (raw_var_*:
 * about the known mean, ddof 0 and 1, the quantiles, the sd) take
 * raw_var's theory. The digits a front end shows of a mean are those its
 * standard error supports: every front end asks here.
 * @param col a column of SV_OUTPUT_SUMMARY.
 * @param row a summary row (spec, stats, summary set).
 * @return the standard error, in col's unit; NAN where neither is known,
 *         for a column that is not a real, or col, row, row->spec or
 *         row->summary NULL.
 * Thread safety: pure, thread-safe.
 * Cost: O(columns of the summary).
 */
double sv_column_std_error(const sv_column *col, const sv_row_view *row);

/**
 * The name of reduce rule @p r: "mean", "min", "max", "sum", "first",
 * "pooled" or "none", as docs/columns.md and the Python package spell it.
 * @return a static string; NULL for 0 or a bad value.
 * Thread safety: pure, thread-safe.
 */
const char *sv_column_reduce_name(sv_column_reduce r);

/**
 * The name of group @p g, as --columns +NAME spells it ("core", "sd",
 * "grad", ...), and a line for docs/columns.md in @p doc (may be NULL).
 * @return a static string; NULL for a bad group. Thread-safe, pure.
 */
const char *sv_column_group_name(sv_column_group g, const char **doc);

/**
 * The group named by the @p len bytes at @p name (not NUL-terminated:
 * "grad" of "+grad,sd"), as sv_column_group_name spells it.
 * @return the group; -1 when no group has that name or name is NULL.
 * Thread-safe, pure. Cost: O(groups).
 */
int sv_column_group_find(const char *name, size_t len);

/**
 * The column of @p kind named by the @p len bytes at @p name (not
 * NUL-terminated: "raw_var" of "raw_var,scaled_var"), as a front end's
 * list of column names is read (the CLI's --columns).
 * @return its descriptor, with its index in sv_columns_get's order in
 *         *index (may be NULL); NULL when @p kind has no such column, for
 *         a bad kind or name NULL (*index untouched).
 * Thread-safe, pure. Cost: O(columns of kind).
 */
const sv_column *sv_columns_find(sv_output_kind kind, const char *name, size_t len, size_t *index);

/**
 * Whether @p col belongs in the default output for rows of @p spec
 * (resolved): its group is the core or an option group whose option
 * @p spec uses, its need holds (sv_column_required; SV_NEED_NONE always
 * does) and, for a SV_COLUMN_SPREAD column, spec->trials >= 2. So no
 * column is there only to be NAN because an option is off, nor a
 * SV_NEED_THEORY column where the theory has no value. @p observed
 * as in sv_column_required; @p measured nonzero when Q and K are loaded
 * arrays (their moments are measured: the inputs group; the spec's theory,
 * SV_NEED_THEORY, is not theirs). A writer that
 * writes several specs takes a column when any of them does.
 * @return 1 or 0; 0 for col or spec NULL. Thread-safe, pure.
 */
int sv_column_default(const sv_column *col, const sv_spec *spec, int observed, int measured);

/** Receives @p n bytes of text at @p s (not NUL-terminated): where the
 *  JSON writers below write. */
typedef void (*sv_text_fn)(void *ctx, const char *s, size_t n);

/**
 * Value @p v of column @p col as JSON text, to @p put (no I/O here), as
 * `sdpa-var --format json` writes it: a real in %.17g (it reads back
 * exactly), null where it is not finite (JSON spells no nan nor inf); a
 * count as an integer; text as a JSON string (", \ and control bytes
 * escaped; other bytes as they are, so UTF-8 stays UTF-8).
 * @return SV_OK; SV_EINVAL for col or put NULL (nothing written).
 * Thread-safe; O(length of the text).
 */
sv_status sv_value_json(const sv_column *col, sv_value v, sv_text_fn put, void *ctx);

/**
 * Value @p v of column @p col as CSV text, to @p put (no I/O here), as
 * `sdpa-var --format csv` writes it: a real in %.17g, "nan", "inf" or
 * "-inf" (as numpy, pandas and gnuplot read them); a count as an integer;
 * text as it is, or quoted as RFC 4180 asks when it holds a comma, a
 * quote or a line break.
 * @return SV_OK; SV_EINVAL for col or put NULL (nothing written).
 * Thread-safe; O(length of the text).
 */
sv_status sv_value_csv(const sv_column *col, sv_value v, sv_text_fn put, void *ctx);

/**
 * Row @p row as one JSON object, {"name":value,...} without spaces, of
 * columns cols[0 .. n - 1] in that order (their names as keys, values as
 * sv_value_json): a row of --format json and jsonl, the page's summary.
 * @return SV_OK; SV_EINVAL for row or put NULL, cols NULL with n > 0, or
 *         a NULL column (nothing written).
 * Thread-safe; O(n).
 */
sv_status sv_row_json(const sv_column *const *cols, size_t n, const sv_row_view *row,
                      sv_text_fn put, void *ctx);

/**
 * A measured value @p v as text to the digits its standard error @p se
 * supports, as the CLI's tables and slides print it: rounded at the second
 * significant digit of se ("64.37" for 64.36989 +- 0.487, "12350" for
 * 12345.6 +- 230), the zeros that count kept ("2.000" for 2 +- 0.099),
 * at most 17 significant digits (a double's); "0" when it rounds to zero
 * there. Without a standard error (se NAN, 0 or
 * not finite) or for an infinite v: 4 significant digits, trailing zeros
 * kept but no trailing point ("0.3900", "1577"; "inf"). "-" for v NAN. A fixed
 * form longer than @p width characters becomes the exponent form with the
 * same significant digits ("1.23456e-05" for 1.23456e-5 +- 1e-9).
 * @param buf, len  the text, NUL-terminated (cut to len - 1 bytes as
 *                  snprintf cuts); nothing for buf NULL or len 0.
 * @return the length of the text written. Thread-safe; O(1).
 */
size_t sv_value_rounded(char *buf, size_t len, double v, double se, int width);

#endif
