/**
 * @file param.h
 * The experiment's parameters, each once (as zstd's ZSTD_cParameter): its
 * name, the sv_spec member it sets, the kind of value it takes, its bounds,
 * its default and what it implies. The CLI's options, the Python package's
 * keywords and the page's fields are bound through this table: values are
 * read from text by sv_spec_set (the scale names "sqrt", "dk", "none" and
 * "logn" included), faults are named by sv_spec_check_param, so every
 * default, bound, rule and message lives here once.
 *
 * Thread safety, every function here: re-entrant; sv_spec_set and
 * sv_spec_defaults write their spec, which no other thread reads
 * meanwhile; the others read constant tables or their arguments only.
 * Cost, every function here: O(1), or O(length of the text) for the
 * functions that read or write one.
 */
#ifndef SDPA_VAR_PARAM_H
#define SDPA_VAR_PARAM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "sdpa_var/spec.h"
#include "sdpa_var/status.h"

/** How a parameter's value is written as text. */
typedef enum sv_param_kind {
    SV_ARG_COUNT, /**< an integer in [lo, hi]: decimal digits, or an exact
                       integer in scientific notation ("1e5", "1.2e3") */
    SV_ARG_REAL,  /**< a finite number in [lo, hi], in plain decimal: an
                       optional '-', digits with at most one '.', an
                       exponent; no blanks, '+', hex, inf or nan */
    SV_ARG_ABOVE, /**< as SV_ARG_REAL, more than lo (no upper bound) */
    SV_ARG_FLAG,  /**< "1" (on) or "0" (off) */
    SV_ARG_NAME,  /**< one of sv_param_choices */
    SV_ARG_SCALE  /**< "sqrt" (1 / sqrt(d_k)), "dk" (1 / d_k), "none" (1),
                       "logn" (ln n / sqrt(d_k), per row with causal or a
                       window) or a positive number: sv_scale_parse */
} sv_param_kind;

/* Bounds used by the table (double: the table's lo and hi are doubles). */
#define SV_PARAM_INT_MAX 2147483647.0         /**< CBLAS takes int sizes */
#define SV_PARAM_SIZE_MAX ((double)SIZE_MAX)  /**< a size_t (rounded up to 2^64) */
#define SV_PARAM_U64_MAX ((double)UINT64_MAX) /**< 2^64 (rounded): any uint64 */
#define SV_PARAM_UINT_MAX 4294967295.0        /**< an unsigned (ddof) */
#define SV_PARAM_INF ((double)INFINITY)

/**
 * The parameters: X(ID, name, kind, lo, hi, default, implies, doc).
 * name is the Python keyword and, dashes for underscores, the CLI's long
 * option (the CLI spells d_k, n_q, n_k and d_v as --dk, --nq, --nk, --dv);
 * default is text read by sv_spec_set (NULL: the spec's 0, "not set");
 * implies is the flag a value turns on (--qk-scale turns on QK-norm,
 * d_v and grad turn on values), NONE for none.
 */
#define SV_PARAM_MAP(X)                                                                            \
    X(D_K, "d_k", SV_ARG_COUNT, 1, SV_PARAM_INT_MAX, "64", NONE,                                   \
      "dimension of each query and key vector")                                                    \
    X(N_Q, "n_q", SV_ARG_COUNT, 1, SV_PARAM_SIZE_MAX, "1111", NONE, "number of queries")           \
    X(N_K, "n_k", SV_ARG_COUNT, 1, SV_PARAM_SIZE_MAX, "1111", NONE, "number of keys")              \
    X(TRIALS, "trials", SV_ARG_COUNT, 1, SV_PARAM_U64_MAX, "1", NONE,                              \
      "independent repetitions with fresh draws")                                                  \
    X(SEED, "seed", SV_ARG_COUNT, 0, SV_PARAM_U64_MAX, "42", NONE,                                 \
      "unsigned 64-bit seed; same seed, same numbers")                                             \
    X(DIST, "dist", SV_ARG_NAME, 0, 0, "normal", NONE, "distribution of the entries of Q and K")   \
    X(NU, "nu", SV_ARG_ABOVE, 4, SV_PARAM_INF, "6", NONE, "degrees of freedom of Student's t")     \
    X(DDOF, "ddof", SV_ARG_COUNT, 0, SV_PARAM_UINT_MAX, "0", NONE,                                 \
      "delta degrees of freedom of the variance")                                                  \
    X(SCALE, "scale", SV_ARG_SCALE, 0, 0, "sqrt", NONE, "multiplier of the scaled logits")         \
    X(Q_MEAN, "q_mean", SV_ARG_REAL, -SV_PARAM_INF, SV_PARAM_INF, "0", NONE,                       \
      "mean of the entries of Q")                                                                  \
    X(Q_STD, "q_std", SV_ARG_ABOVE, 0, SV_PARAM_INF, "1", NONE,                                    \
      "standard deviation of the entries of Q")                                                    \
    X(K_MEAN, "k_mean", SV_ARG_REAL, -SV_PARAM_INF, SV_PARAM_INF, "0", NONE,                       \
      "mean of the entries of K")                                                                  \
    X(K_STD, "k_std", SV_ARG_ABOVE, 0, SV_PARAM_INF, "1", NONE,                                    \
      "standard deviation of the entries of K")                                                    \
    X(QK_NORM, "qk_norm", SV_ARG_FLAG, 0, 1, NULL, NONE, "rows of Q and K rescaled (QK-norm)")     \
    X(QK_SCALE, "qk_scale", SV_ARG_ABOVE, 0, SV_PARAM_INF, NULL, QK_NORM,                          \
      "the norm QK-norm rescales rows to (default sqrt(d_k))")                                     \
    X(PLANT, "plant", SV_ARG_REAL, -1, 1, "0", NONE, "correlation of each query's planted key")    \
    X(D_MODEL, "d_model", SV_ARG_COUNT, 1, SV_PARAM_INT_MAX, NULL, NONE,                           \
      "width of the tokens projected to Q and K")                                                  \
    X(INIT, "init", SV_ARG_NAME, 0, 0, "xavier", NONE, "initialisation of W_Q and W_K")            \
    X(CROSS, "cross", SV_ARG_FLAG, 0, 1, NULL, NONE, "keys from their own tokens")                 \
    X(CAUSAL, "causal", SV_ARG_FLAG, 0, 1, NULL, NONE, "query i sees keys 0 .. i only")            \
    X(WINDOW, "window", SV_ARG_COUNT, 1, SV_PARAM_SIZE_MAX, NULL, NONE, "sliding window of keys")  \
    X(VALUES, "values", SV_ARG_FLAG, 0, 1, NULL, NONE, "also V and the attention output")          \
    X(D_V, "d_v", SV_ARG_COUNT, 1, SV_PARAM_INT_MAX, NULL, VALUES, "columns of V (default d_k)")   \
    X(GRAD, "grad", SV_ARG_FLAG, 0, 1, NULL, VALUES, "also the gradients through the softmax")

/** A parameter: SV_PARAM_D_K, SV_PARAM_N_Q, ... in the table's order. */
typedef enum sv_param {
    SV_PARAM_NONE = -1, /**< no parameter (a rule's other side, a fault of none) */
#define SV_PARAM_ENUM_(id, ...) SV_PARAM_##id,
    SV_PARAM_MAP(SV_PARAM_ENUM_)
#undef SV_PARAM_ENUM_
        SV_PARAM_COUNT /**< the number of parameters */
} sv_param;

/**
 * The name of @p param: "d_k", "n_q", ..., "qk_scale", "grad".
 * @return a static string; NULL for a value out of range (bindings list
 *         the parameters by calling this with 0, 1, ... until NULL).
 */
const char *sv_param_name(sv_param param);

/**
 * The parameter called @p name (exactly as sv_param_name spells it).
 * @return SV_OK with *param set; SV_EINVAL for an unknown name or a NULL
 *         argument (*param untouched).
 */
sv_status sv_param_lookup(const char *name, sv_param *param);

/**
 * The kind, bounds, default and implied flag of @p param, from the table:
 * *kind as sv_param_kind; [*lo, *hi] for SV_ARG_COUNT and SV_ARG_REAL,
 * (*lo, inf) for SV_ARG_ABOVE, 0 and 0 for names and the scale, 0 and 1
 * for a flag; *def the default as text (NULL: not set); *implies the flag
 * a value turns on (SV_PARAM_NONE). Any output pointer may be NULL.
 * @return SV_OK; SV_EINVAL for a parameter out of range (outputs untouched).
 */
sv_status sv_param_bounds(sv_param param, sv_param_kind *kind, double *lo, double *hi,
                          const char **def, sv_param *implies);

/**
 * The names an SV_ARG_NAME or SV_ARG_SCALE parameter takes, NULL-terminated:
 * dist "normal", "uniform", "rademacher", "t"; init "xavier", "lecun",
 * "normal"; scale "sqrt", "dk", "none", "logn" (or a positive number).
 * @return a static array; NULL for another parameter.
 */
const char *const *sv_param_choices(sv_param param);

/**
 * "Did you mean ...?": the name of @p names[0..n) (or up to a NULL entry)
 * nearest to @p text, for a front end's message. A synonym's name when
 * @p text is one of the synonyms users know the parameters' names by
 * ("gaussian", "randn" for normal, "glorot" for xavier, "student-t" for t,
 * "mup" for dk; one of 5 letters or more also when misspelt by one) and
 * that name is in @p names; else the name at the smallest edit distance
 * (insertions, deletions, substitutions, swaps of neighbours: Damerau
 * 1964; case ignored) if that is at most a third of the longer length (at
 * least 1), the first on a tie. sv_param_explain appends it.
 * @return one of @p names; NULL when none is near, or for NULL arguments.
 */
const char *sv_suggest(const char *text, const char *const *names, size_t n);

/**
 * Reads a scale as the CLI's --scale and PyTorch's scale= mean it: "sqrt"
 * (1 / sqrt(d_k), Vaswani et al. 2017), "dk" (1 / d_k, muP: Yang et al.
 * 2022), "none" (1), "logn" (ln n / sqrt(d_k), Scalable-Softmax:
 * Nakanishi 2025, arXiv:2501.19399) or a positive finite number in plain
 * decimal.
 * @return SV_OK with *rule (SV_SCALE_VALUE for a number) and *value (the
 *         number; 0 for a name); SV_EINVAL for other text or NULL
 *         (outputs untouched).
 */
sv_status sv_scale_parse(const char *text, sv_scale_rule *rule, double *value);

/**
 * Sets every parameter of @p spec that has a default to it (d_k 64,
 * n_q = n_k = 1111, trials 1, seed 42, dist normal, nu 6, ddof 0, scale
 * sqrt, means 0, stds 1, plant 0, init xavier) and every other to 0 (not
 * set): the experiment `sdpa-var` runs with no option.
 * @return SV_OK; SV_EINVAL for NULL.
 */
sv_status sv_spec_defaults(sv_spec *spec);

/**
 * Sets parameter @p param of @p spec from @p text, read by the
 * parameter's kind (sv_param_bounds), and turns on the flag it implies
 * when the value is not 0. A scale name sets spec->scale 0 and
 * spec->scale_rule, which sv_spec_resolve turns into the multiplier once
 * d_k, n_k, causal and window are known (docs/theory.md 15 for logn).
 * @return SV_OK; SV_EINVAL for text that is not of the kind (not an
 *         integer, not a plain finite number, not a name), a NULL
 *         argument or a parameter out of range; SV_ERANGE for a value out
 *         of its bounds. The spec is untouched after an error;
 *         sv_param_explain says why in one line.
 */
sv_status sv_spec_set(sv_spec *spec, sv_param param, const char *text);

/**
 * Why sv_spec_set refuses @p text for @p param, in one printable line
 * without the parameter's name, e.g. "'0' is not a positive integer",
 * "'3' is not between -1 and 1", "'x' is not one of normal, uniform,
 * rademacher or t" (a name then ends "; did you mean normal?" where
 * sv_suggest finds one: "gaussian"), so that a caller prefixes its own name for it ("--dk: ",
 * "dk: "). The text is echoed by sv_quote.
 * @return the length of the whole message (as snprintf; at most len - 1
 *         written, always NUL-terminated when len > 0); 0 when sv_spec_set
 *         accepts the text or for NULL.
 */
size_t sv_param_explain(sv_param param, const char *text, char *buf, size_t len);

/**
 * The same reason for a value of @p kind with bounds [@p lo, @p hi]
 * (SV_ARG_COUNT, SV_ARG_REAL, SV_ARG_ABOVE only), for a caller's own
 * options that are not parameters (threads, bins): one set of messages.
 * @return as sv_param_explain.
 */
size_t sv_value_explain(sv_param_kind kind, double lo, double hi, const char *text, char *buf,
                        size_t len);

/**
 * Reads @p text as an SV_ARG_COUNT value (no bounds).
 * @return SV_OK with *out; SV_EINVAL when it is not a non-negative exact
 *         integer; SV_ERANGE when it is one above 2^64 - 1.
 */
sv_status sv_text_count(const char *text, uint64_t *out);

/**
 * Reads @p text as an SV_ARG_REAL value (no bounds).
 * @return SV_OK with *out; SV_EINVAL when it is not plain decimal;
 *         SV_ERANGE when it overflows to an infinity.
 */
sv_status sv_text_real(const char *text, double *out);

/**
 * A printable echo of @p s for a one-line message: '\\n', '\\t', '\\r' and
 * '\\\\' as escapes, other bytes outside printable ASCII as \\xNN, cut with
 * "..." after 60 characters or when @p dst (at least 8 bytes) is full.
 * @return dst.
 */
char *sv_quote(char *dst, size_t dstlen, const char *s);

/**
 * sv_spec_check_field on a resolved @p spec, the fault named as a
 * parameter with one line saying why: *param the parameter a rule blames
 * (SV_PARAM_SCALE for scale_logn, SV_PARAM_QK_SCALE for qk_radius;
 * SV_PARAM_NONE when none), *other the parameter the rule is about when
 * there is one (d_model for q_mean under projections, n_q for causal),
 * and @p msg, e.g. "q_mean: not with d_model (projections draw their own
 * tokens)", in the parameters' names (callers with other names for them
 * use *param and *other and their own words). Any output may be NULL.
 * @return the status of sv_spec_check; SV_EINVAL for spec NULL.
 */
sv_status sv_spec_check_param(const sv_spec *spec, sv_param *param, sv_param *other, char *msg,
                              size_t len);

/** The form of a rule between two parameters (sv_param_rule). */
typedef enum sv_rule_kind {
    SV_RULE_NONE,     /**< no rule between two, or one worded whole in why:
                           a value's bound, "causal needs n_q = n_k" */
    SV_RULE_EXCLUDES, /**< param does not apply with other set: "q_mean:
                           not with d_model (why)" */
    SV_RULE_NEEDS     /**< param needs other (at value): "nu: needs dist t
                           (why)" */
} sv_rule_kind;

/** The rule a spec breaks, in parts, for a front end to word itself. */
typedef struct sv_param_rule {
    sv_rule_kind kind;
    sv_param param;    /**< the parameter blamed (SV_PARAM_NONE: none) */
    sv_param other;    /**< the parameter the rule is about (or NONE) */
    const char *value; /**< SV_RULE_NEEDS: the value other needs ("t" of
                            "dist t"), "" for any value set; else "" */
    const char *why;   /**< the rule's reason ("projections draw their own
                            tokens"); "" when the fault is no rule of the
                            table (a size, ddof, a bound of the scores) */
} sv_param_rule;

/**
 * The parts of sv_spec_check_param's line: the rule a resolved @p spec
 * breaks, into *rule (param and other as sv_spec_check_param's; kind
 * SV_RULE_NONE and why "" on SV_OK or a fault of no rule). The CLI words
 * them in its options' names ("--nu needs --dist t (why)"); every string is
 * static. Rules: sv_spec_check_field's table (spec.c).
 * @return the status of sv_spec_check; SV_EINVAL for spec or rule NULL
 *         (rule, when given, cleared to SV_RULE_NONE).
 */
sv_status sv_spec_check_rule(const sv_spec *spec, sv_param_rule *rule);

#endif
