/* The command-line options of sdpa-var, one line each: the parser, --help
 * and the check of what applies with what are all read from this table.
 *
 * X(ID, long name, short name (0: none), metavar (NULL: a flag), kind,
 *   value, section, help text ("\n" between lines; the range and the
 *   default are appended from the value's bounds and default))
 *
 * Kinds: CLI_ARG_FLAG; CLI_ARG_PARAM (a value of the parameter, read by
 * sv_spec_set); CLI_ARG_COUNT (plain decimal integer in [lo, hi]);
 * CLI_ARG_REAL (plain decimal number in [lo, hi]); CLI_ARG_ABOVE (more
 * than lo); CLI_ARG_LIST (parsed by parse_list in options.c).
 * Values: CLI_PARAM(P), the experiment's parameter SV_PARAM_P (param.h),
 * whose kind, bounds and default are the library's (a flag sets it to 1,
 * a list runs each item); CLI_PARAM_BY_N(P), the same with --n's value as
 * the default; the CLI's own options: CLI_OWN(lo, hi, default text or
 * NULL), CLI_OWN_LIST(default) or CLI_OWN_NONE.
 * Sections: 0 experiment, 4 measured tensors, 5 given logits, 1 output,
 * 2 performance, 3 help; or'ed with what the option does not apply with,
 * as it is about drawn Q and K: CLI_X_LOGITS (given rows of logits: "the
 * rows are given, nothing is drawn"), CLI_X_Q (measured Q and K: "Q and K
 * are read from files"). validate.c's rules hold the rest.
 * To add an option: a line here, and its use in validate.c's resolve (an
 * option of a parameter is read into cli_options.base by options.c). */
#ifndef SDPA_VAR_CLI_OPTION_TABLE_H
#define SDPA_VAR_CLI_OPTION_TABLE_H

#include <math.h>

#include "sdpa_var/param.h"

#define CLI_INF ((double)INFINITY)

/* Section flags: the option does not apply with --logits (or
 * --logits-file), with --q. CLI_SECTION is the section itself. */
#define CLI_X_LOGITS 0x10
#define CLI_X_Q 0x20
#define CLI_SECTION(s) ((s)&0xf)

/* The value columns of cli_option_def: lo, hi, def, param, param_default,
 * as one parenthesised group (CLI_VALUE_COLUMNS opens it where a row is
 * made), so that every row has 8 arguments to any preprocessor (cppcheck's
 * counts them after expanding these). */
#define CLI_OWN(lo, hi, def) (lo, hi, def, SV_PARAM_NONE, 0)
#define CLI_OWN_LIST(def) (0, 0, def, SV_PARAM_NONE, 0)
#define CLI_OWN_NONE (0, 0, NULL, SV_PARAM_NONE, 0)
#define CLI_PARAM(p) (0, 0, NULL, SV_PARAM_##p, 1)
#define CLI_PARAM_BY_N(p) (0, 0, NULL, SV_PARAM_##p, 0)
#define CLI_VALUE_COLUMNS(lo, hi, def, param, pdef) lo, hi, def, param, pdef

#define CLI_OPTION_TABLE(X)                                                                        \
    X(DK, "dk", 'd', "LIST", CLI_ARG_LIST, CLI_PARAM(D_K), CLI_X_Q,                                \
      "d_k values: '64', a comma list '1,2,8,64,512', or a\n"                                      \
      "doubling range 'A:B' = A, 2A, 4A, ... and B itself, e.g.\n"                                 \
      "'1:1000' = 1, 2, ..., 512, 1000; items mix: '1:8,100'.\n"                                   \
      "At most " CLI_STR(SV_DKLIST_MAX) " values")                                                 \
    X(N, "n", 'n', "LIST", CLI_ARG_LIST, CLI_PARAM(N_Q), CLI_X_LOGITS | CLI_X_Q,                   \
      "number of tokens: n_q = n_k = N; a list or ranges as\n"                                     \
      "--dk ('16:4096'); with a --dk list, every pair")                                            \
    X(NQ, "nq", 0, "N", CLI_ARG_PARAM, CLI_PARAM_BY_N(N_Q), CLI_X_LOGITS | CLI_X_Q,                \
      "number of queries n_q (default N)")                                                         \
    X(NK, "nk", 0, "N", CLI_ARG_PARAM, CLI_PARAM_BY_N(N_K), CLI_X_LOGITS | CLI_X_Q,                \
      "number of keys n_k (default N)")                                                            \
    X(TRIALS, "trials", 't', "T", CLI_ARG_PARAM, CLI_PARAM(TRIALS), CLI_X_LOGITS | CLI_X_Q,        \
      "independent repetitions with fresh draws")                                                  \
    X(FIRST_TRIAL, "first-trial", 0, "F", CLI_ARG_COUNT, CLI_OWN(0, CLI_U64_MAX, "0"), CLI_X_Q,    \
      "run trials F .. F+T-1 of the long run: a shard, with\n"                                     \
      "--format state (then `sdpa-var merge`) or --per-trial")                                     \
    X(TOTAL_TRIALS, "total-trials", 0, "N", CLI_ARG_COUNT, CLI_OWN(1, CLI_U64_MAX, NULL), 0,       \
      "with --format state: the whole run's trials, of which\n"                                    \
      "this shard is a part (needed with --first-trial), so\n"                                     \
      "that `sdpa-var merge` refuses a missing shard")                                             \
    X(Q_ROWS, "q-rows", 0, "A:B", CLI_ARG_LIST, CLI_OWN_NONE, 0,                                   \
      "only query rows A .. B-1 of each trial: a row shard, with\n"                                \
      "--format state; A and B multiples of " CLI_STR(SV_FOLD_ROWS) " (or B = n_q)")               \
    X(SEED, "seed", 's', "S", CLI_ARG_PARAM, CLI_PARAM(SEED), CLI_X_LOGITS | CLI_X_Q,              \
      "unsigned 64-bit seed; same seed, same output")                                              \
    X(DIST, "dist", 0, "LIST", CLI_ARG_LIST, CLI_PARAM(DIST), CLI_X_LOGITS | CLI_X_Q,              \
      "entries of Q and K: normal, uniform (on [-sqrt 3,\n"                                        \
      "sqrt 3]), rademacher (+-1) or t (Student's t, heavy\n"                                      \
      "tails, scaled to variance 1); a comma list runs each,\n"                                    \
      "at most " CLI_STR(CLI_NAMES_MAX) " names")                                                  \
    X(DDOF, "ddof", 0, "K", CLI_ARG_PARAM, CLI_PARAM(DDOF), CLI_X_LOGITS,                          \
      "the variance divides by N - K, N = n_q*n_k scores\n"                                        \
      "(n(n+1)/2 with --causal); 0 as numpy's var, 1 unbiased")                                    \
    X(OBSERVED, "observed", 0, "V", CLI_ARG_REAL, CLI_OWN(-CLI_INF, CLI_INF, NULL),                \
      0 | CLI_X_LOGITS,                                                                            \
      "also report the fraction of trials whose raw sample\n"                                      \
      "variance is <= V (e.g. 1.6 for the 2x2 puzzle)")                                            \
    X(SCALE, "scale", 0, "LIST", CLI_ARG_LIST, CLI_PARAM(SCALE), 0,                                \
      "the multiplier of QK^T in the \"scaled\" logits, as\n"                                      \
      "scale= in PyTorch's SDPA: sqrt (1/sqrt(d_k)), dk\n"                                         \
      "(1/d_k, as muP), none (1), a positive number or\n"                                          \
      "logn (ln n times 1/sqrt(d_k), or times 1 with\n"                                            \
      "--logits without --dk; n = keys of the row: n_k, or\n"                                      \
      "per row i + 1 with --causal, the window's with\n"                                           \
      "--window; not with files or --mask); a\n"                                                   \
      "comma list runs each, e.g. 'sqrt,dk,none';\n"                                               \
      "at most " CLI_STR(CLI_SCALES_MAX) " items of at most " CLI_STR(CLI_ITEM_MAX) " characters") \
    X(NU, "nu", 0, "NU", CLI_ARG_PARAM, CLI_PARAM(NU), CLI_X_LOGITS | CLI_X_Q,                     \
      "degrees of freedom of --dist t (a finite fourth moment)")                                   \
    X(Q_MEAN, "q-mean", 0, "M", CLI_ARG_PARAM, CLI_PARAM(Q_MEAN), CLI_X_LOGITS | CLI_X_Q,          \
      "entries of Q are M + S x, x of --dist; |M| <= 1e6 S")                                       \
    X(Q_STD, "q-std", 0, "S", CLI_ARG_PARAM, CLI_PARAM(Q_STD), CLI_X_LOGITS | CLI_X_Q,             \
      "S of Q's entries")                                                                          \
    X(K_MEAN, "k-mean", 0, "M", CLI_ARG_PARAM, CLI_PARAM(K_MEAN), CLI_X_LOGITS | CLI_X_Q,          \
      "entries of K are M + S x, x of --dist; |M| <= 1e6 S")                                       \
    X(K_STD, "k-std", 0, "S", CLI_ARG_PARAM, CLI_PARAM(K_STD), CLI_X_LOGITS | CLI_X_Q,             \
      "S of K's entries")                                                                          \
    X(QK_NORM, "qk-norm", 0, NULL, CLI_ARG_FLAG, CLI_PARAM(QK_NORM), CLI_X_LOGITS | CLI_X_Q,       \
      "rescale each row of Q and K to norm sqrt(d_k) (QK-norm)")                                   \
    X(QK_SCALE, "qk-scale", 0, "R", CLI_ARG_PARAM, CLI_PARAM(QK_SCALE),                            \
      0 | CLI_X_LOGITS | CLI_X_Q, "the same with norm R (implies --qk-norm)")                      \
    X(PLANT, "plant", 0, "RHO", CLI_ARG_PARAM, CLI_PARAM(PLANT), CLI_X_LOGITS | CLI_X_Q,           \
      "key j = RHO q_j + sqrt(1 - RHO^2) z for j < n_q: each\n"                                    \
      "query has one related key")                                                                 \
    X(D_MODEL, "d-model", 0, "D", CLI_ARG_PARAM, CLI_PARAM(D_MODEL), CLI_X_LOGITS | CLI_X_Q,       \
      "project: Q = X W_Q, K = X W_K, X tokens (n x D, entries\n"                                  \
      "of --dist), W drawn per trial with --init")                                                 \
    X(INIT, "init", 0, "LIST", CLI_ARG_LIST, CLI_PARAM(INIT), CLI_X_LOGITS | CLI_X_Q,              \
      "with --d-model: xavier (variance 2/(D + d_k)), lecun\n"                                     \
      "(1/D) or normal (1); a comma list runs each, at most " CLI_STR(CLI_NAMES_MAX))              \
    X(CROSS, "cross", 0, NULL, CLI_ARG_FLAG, CLI_PARAM(CROSS), CLI_X_LOGITS | CLI_X_Q,             \
      "with --d-model: keys from their own tokens X'")                                             \
    X(CAUSAL, "causal", 0, NULL, CLI_ARG_FLAG, CLI_PARAM(CAUSAL), CLI_X_LOGITS,                    \
      "query i sees keys 0..i only (decoder mask; n_q = n_k)")                                     \
    X(WINDOW, "window", 0, "W", CLI_ARG_PARAM, CLI_PARAM(WINDOW), CLI_X_LOGITS,                    \
      "sliding window: with --causal query i sees keys\n"                                          \
      "i-W+1..i (W keys, as HF's sliding_window), without\n"                                       \
      "those with |i - j| < W")                                                                    \
    X(VALUES, "values", 0, NULL, CLI_ARG_FLAG, CLI_PARAM(VALUES), CLI_X_LOGITS,                    \
      "also draw V (n_k x d_v) and report the variance of the\n"                                   \
      "attention output softmax(S) V, raw and scaled")                                             \
    X(DV, "dv", 0, "N", CLI_ARG_PARAM, CLI_PARAM(D_V), CLI_X_LOGITS,                               \
      "columns of V (default d_k; implies --values) and of G\n"                                    \
      "with --grad")                                                                               \
    X(GRAD, "grad", 0, NULL, CLI_ARG_FLAG, CLI_PARAM(GRAD), CLI_X_LOGITS,                          \
      "also draw G (n_q x d_v; implies --values) and report the\n"                                 \
      "gradients of L = sum g_i.o_i: |dL/dlogits|, the keys it\n"                                  \
      "reaches, |dL/dq|, |dL/dk|, raw and scaled")                                                 \
    X(Q, "q", 0, "FILE[:NAME]", CLI_ARG_LIST, CLI_OWN_NONE, 4 | CLI_X_LOGITS,                      \
      "read Q from a .npy or .safetensors file (NAME: its\n"                                       \
      "tensor) instead of drawing it: n x d_k, heads x n x d_k\n"                                  \
      "or batch x heads x n x d_k; needs --k")                                                     \
    X(K, "k", 0, "FILE[:NAME]", CLI_ARG_LIST, CLI_OWN_NONE, 4 | CLI_X_LOGITS,                      \
      "K likewise; its heads may divide Q's (grouped-query:\n"                                     \
      "query head h reads key head h / (heads_q / heads_kv))")                                     \
    X(V, "v", 0, "FILE[:NAME]", CLI_ARG_LIST, CLI_OWN_NONE, 4 | CLI_X_LOGITS,                      \
      "V likewise (n_k x d_v per key head): the output columns")                                   \
    X(MASK, "mask", 0, "FILE", CLI_ARG_LIST, CLI_OWN_NONE, 4,                                      \
      "an attention mask from a .npy file, as SDPA's attn_mask:\n"                                 \
      "bool (true = attend) or float (added to the scaled\n"                                       \
      "logits; -inf excludes), [batch|1 x] [heads|1 x] n_q|1 x\n"                                  \
      "n_k|1 whatever --layout; statistics over the keys seen")                                    \
    X(LAYOUT, "layout", 0, "L", CLI_ARG_LIST, CLI_OWN_LIST("bhnd"), 4 | CLI_X_LOGITS,              \
      "axes of 4-D files: bhnd (batch, heads, n, d: PyTorch's\n"                                   \
      "SDPA) or bnhd (batch, n, heads, d: TransformerLens)")                                       \
    X(POOL, "pool", 0, "P", CLI_ARG_LIST, CLI_OWN_LIST("heads"), 4 | CLI_X_LOGITS,                 \
      "heads: a row per (batch, head) then the pooled row (means\n"                                \
      "over heads); none: the heads' rows; all: the pooled row")                                   \
    X(LOGITS, "logits", 0, "ROW", CLI_ARG_LIST, CLI_OWN_NONE, 5,                                   \
      "a row of logits, e.g. '-20,3,25,-15' or '-20, 3, 25, -15'\n"                                \
      "(blanks around items allowed; repeatable): its softmax\n"                                   \
      "weights, entropy, e^H, max weight and Jacobian diag(p) -\n"                                 \
      "pp^T for each --scale (default: as given, and\n"                                            \
      "* 1/sqrt(d_k) with --dk); at most " CLI_STR(CLI_LOGITS_KEYS_MAX) " keys a row")             \
    X(LOGITS_FILE, "logits-file", 0, "FILE", CLI_ARG_LIST, CLI_OWN_NONE, 5,                        \
      "rows of logits from FILE ('-': stdin), one comma list a\n"                                  \
      "line; blank and '#' lines skipped; at most " CLI_STR(CLI_LOGITS_ROWS_MAX) " rows")          \
    X(UPSTREAM, "upstream", 0, "G", CLI_ARG_LIST, CLI_OWN_NONE, 5,                                 \
      "upstream gradient dL/dp on the weights, one value a key:\n"                                 \
      "also the logit gradient J g = p (g - p.g) (for attention,\n"                                \
      "g_j = v_j . dL/do)")                                                                        \
    X(SAVE_QK, "save-qk", 0, "DIR", CLI_ARG_LIST, CLI_OWN_NONE, 1 | CLI_X_LOGITS,                  \
      "also write trial 0's drawn Q and K (and V) to DIR/q.npy,\n"                                 \
      "DIR/k.npy (DIR/v.npy), float64 n x d, for --q and --k")                                     \
    X(FORMAT, "format", 0, "F", CLI_ARG_LIST, CLI_OWN_NONE, 1,                                     \
      "table (default on a terminal), csv (default otherwise),\n"                                  \
      "json (one document), jsonl (one object a line), state\n"                                    \
      "(the mergeable partial result: `sdpa-var merge`),\n"                                        \
      "gnuplot (a script drawing --plot, data inline), or\n"                                       \
      "markdown or latex (the table for slides, numbers\n"                                         \
      "rounded at their standard error)")                                                          \
    X(PLOT, "plot", 0, "Y", CLI_ARG_LIST, CLI_OWN_LIST("variance"), 1,                             \
      "with --format gnuplot: variance, entropy, max_weight,\n"                                    \
      "eff_keys or grad (needs --grad) against the swept column,\n"                                \
      "raw and scaled; histogram (needs --histogram)")                                             \
    X(OUTPUT, "output", 0, "FILE", CLI_ARG_LIST, CLI_OWN_NONE, 1,                                  \
      "write the output to FILE, whole or not at all (a\n"                                         \
      "temporary file beside it, renamed; removed on error);\n"                                    \
      "with --format gnuplot: the script draws into FILE, a\n"                                     \
      ".png (pngcairo), .svg or .pdf (pdfcairo); else the\n"                                       \
      "terminal is gnuplot's")                                                                     \
    X(COLUMNS, "columns", 0, "NAMES", CLI_ARG_LIST, CLI_OWN_NONE, 1 | CLI_X_LOGITS,                \
      "CSV, JSON, JSONL: by default the configuration, the\n"                                      \
      "headline statistics and the columns of the options in\n"                                    \
      "use; 'all' every column; '+sd,+grad' adds groups; or\n"                                     \
      "a comma list of names, in this order (at most " CLI_STR(                                    \
          CLI_COLUMNS_MAX) ";\n"                                                                   \
                           "docs/columns.md)")                                                     \
    X(NO_HEADER, "no-header", 0, NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 1,                              \
      "CSV without its header line (to append runs to a file)")                                    \
    X(PER_TRIAL, "per-trial", 0, NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 1 | CLI_X_LOGITS,               \
      "one row per trial instead of the summary")                                                  \
    X(PER_ROW, "per-row", 0, NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 1 | CLI_X_LOGITS,                   \
      "one row per query position (mean over trials): entropy\n"                                   \
      "and max weight against the ln(keys seen) bound (CSV)")                                      \
    X(HISTOGRAM, "histogram", 0, "BINS", CLI_ARG_COUNT, CLI_OWN(1, 100000, NULL),                  \
      1 | CLI_X_LOGITS,                                                                            \
      "histogram of the raw and scaled scores instead: BINS\n"                                     \
      "bins on +-6 sd of the raw scores (one configuration;\n"                                     \
      "CSV always, like --per-row)")                                                               \
    X(WEIGHT_HISTOGRAM, "weight-histogram", 0, NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 1 | CLI_X_LOGITS, \
      "with --histogram: of the softmax weights on [0, 1]\n"                                       \
      "instead (n_k <= " CLI_STR(SV_WEIGHT_HIST_KEYS_MAX) ")")                                     \
    X(EXAMPLE, "example", 0, NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 1 | CLI_X_LOGITS,                   \
      "print one concrete trial instead, trial 0 of the run:\n"                                    \
      "up to 6 x 6, every step in numpy syntax (Q, K, S = QK^T\n"                                  \
      "and its variance, S c, both softmaxes, a Jacobian; V and\n"                                 \
      "G with --values, --grad); else one query's logits, raw\n"                                   \
      "and scaled, and their softmax weights, a line a key")                                       \
    X(QUIET, "quiet", 'q', NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 1,                                    \
      "no progress line (shown on stderr when it is a terminal\n"                                  \
      "and a run takes more than half a second)")                                                  \
    X(THREADS, "threads", 0, "N", CLI_ARG_COUNT, CLI_OWN(1, CLI_THREADS_MAX, NULL),                \
      2 | CLI_X_LOGITS, "OpenMP threads (default: OMP_NUM_THREADS, else all cores)")               \
    X(BLOCK_ROWS, "block-rows", 0, "N", CLI_ARG_COUNT, CLI_OWN(1, CLI_BLOCK_ROWS_MAX, "256"),      \
      2 | CLI_X_LOGITS,                                                                            \
      "query rows per work item of a thread (a value >= n_q\n"                                     \
      "means all rows in one item)")                                                               \
    X(HELP, "help", 'h', NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 3, "show this help and exit")           \
    X(COMPLETION, "completion", 0, "SHELL", CLI_ARG_LIST, CLI_OWN_NONE, 3,                         \
      "write the completion script of SHELL (bash), made from\n"                                   \
      "this table, and exit")                                                                      \
    X(VERSION, "version", 'V', NULL, CLI_ARG_FLAG, CLI_OWN_NONE, 3, "show the version and exit")

#endif
