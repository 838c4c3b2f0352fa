/* getopt_long is POSIX/GNU, not ISO C; ask for it explicitly since the
 * build is C11 without extensions. */
#define _GNU_SOURCE
#include "options.h"
#include "run.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Split in two: ISO C guarantees string literals of 4095 characters only. */
const char cli_usage_text[] =
    "Usage: sdpa-var [OPTION]...\n"
    "Draw random queries Q (n_q x d_k) and keys K (n_k x d_k) with mean 0 and\n"
    "variance 1, and compare the statistics of the raw scores QK^T and of the\n"
    "scaled scores QK^T/sqrt(d_k) (Vaswani et al. 2017) with theory.\n"
    "\n"
    "Experiment:\n"
    "  -d, --dk LIST        d_k values: '64', a comma list '1,2,8,64,512', or a\n"
    "                       doubling range 'A:B' = A, 2A, 4A, ... <= B, e.g.\n"
    "                       '1:1024'; items mix: '1:8,100'. One row per d_k.\n"
    "                       Default 64.\n"
    "  -n, --n N            number of tokens: n_q = n_k = N (default 1111)\n"
    "      --nq N           number of queries n_q (overrides --n)\n"
    "      --nk N           number of keys n_k (overrides --n)\n"
    "  -t, --trials T       independent repetitions with fresh draws (default 1)\n"
    "  -s, --seed S         unsigned 64-bit seed (default 42); same seed, same output\n"
    "      --dist NAME      entries of Q and K: normal (default), uniform\n"
    "                       (on [-sqrt 3, sqrt 3]), rademacher (+-1) or t\n"
    "                       (Student's t, heavy tails, scaled to variance 1)\n"
    "      --ddof K         the variance divides by N - K, N = n_q*n_k scores\n"
    "                       (default 0 as numpy's var; 1 for the unbiased one)\n"
    "      --observed V     also report the fraction of trials whose raw sample\n"
    "                       variance is <= V (e.g. 1.6 for the 2x2 puzzle)\n"
    "      --scale LIST     what the \"scaled\" columns divide QK^T by: sqrt\n"
    "                       (sqrt(d_k), the default), dk (d_k, as muP), none (1)\n"
    "                       or a positive number (a temperature); a comma list\n"
    "                       runs each, e.g. 'sqrt,dk,none'\n"
    "      --nu NU          degrees of freedom for --dist t (> 4; default 6)\n"
    "      --q-mean M, --q-std S, --k-mean M, --k-std S\n"
    "                       entries of Q (K) are M + S x, x of --dist (default 0, 1)\n"
    "      --qk-norm        rescale each row of Q and K to norm sqrt(d_k) (QK-norm)\n"
    "      --qk-scale R     the same with norm R (implies --qk-norm)\n"
    "      --plant RHO      key j = RHO q_j + sqrt(1 - RHO^2) z for j < n_q: each\n"
    "                       query has one related key (-1 <= RHO <= 1)\n"
    "      --d-model D      project: Q = X W_Q, K = X W_K, X tokens (n x D, entries\n"
    "                       of --dist), W drawn per trial with --init\n"
    "      --init NAME      xavier (default; variance 2/(D + d_k)), lecun (1/D)\n"
    "                       or normal (1)\n"
    "      --cross          with --d-model: keys from their own tokens X'\n"
    "      --causal         query i sees keys 0..i only (decoder mask; n_q = n_k)\n"
    "      --values         also draw V (n_k x d_v) and report the variance of the\n"
    "                       attention output softmax(S) V, raw and scaled\n"
    "      --dv N           columns of V (default d_k; implies --values)\n"
    "\n";
const char cli_usage_text2[] =
    "Output:\n"
    "      --format F       table (default on a terminal), csv (default otherwise),\n"
    "                       json (one document) or jsonl (one object a line)\n"
    "      --no-header      CSV without its header line (to append runs to a file)\n"
    "      --per-trial      one row per trial instead of the summary\n"
    "      --per-row        one row per query position (mean over trials): entropy\n"
    "                       and max weight against the ln(keys seen) bound (CSV)\n"
    "      --histogram BINS histogram of the raw and scaled scores instead: BINS\n"
    "                       bins on +-6 sd of the raw scores (one --dk, one --scale;\n"
    "                       CSV always, like --per-row)\n"
    "      --weight-histogram  with --histogram: of the softmax weights on [0, 1]\n"
    "                       instead (n_k <= 4096)\n"
    "  -q, --quiet          no progress line (shown on stderr when it is a terminal\n"
    "                       and a run takes more than a second)\n"
    "\n"
    "Performance (results are the same bits for every value):\n"
    "      --threads N      OpenMP threads (default: OMP_NUM_THREADS, else all cores)\n"
    "      --block-rows N   query rows per work item of a thread (default 256)\n"
    "\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Examples:\n"
    "  sdpa-var --dk 64 --n 1111                  raw variance ~64, scaled ~1\n"
    "  sdpa-var --dk 2 --n 2 --trials 100000 --observed 1.6\n"
    "                                             why numpy printed 1.6, not 2\n"
    "  sdpa-var --dk 1:1024 --n 1111 | gnuplot scripts/variance_vs_dk.gp\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (e.g. a failed write), 2 usage error.\n"
    "CSV columns and the theory behind them: README.md and docs/theory.md.\n";

enum {
    OPT_NQ = 256,
    OPT_NK,
    OPT_DIST,
    OPT_DDOF,
    OPT_OBSERVED,
    OPT_FORMAT,
    OPT_PER_TRIAL,
    OPT_THREADS,
    OPT_BLOCK_ROWS,
    OPT_SCALE,
    OPT_NU,
    OPT_Q_MEAN,
    OPT_Q_STD,
    OPT_K_MEAN,
    OPT_K_STD,
    OPT_QK_NORM,
    OPT_QK_SCALE,
    OPT_PLANT,
    OPT_D_MODEL,
    OPT_INIT,
    OPT_CROSS,
    OPT_CAUSAL,
    OPT_PER_ROW,
    OPT_HISTOGRAM,
    OPT_VALUES,
    OPT_DV,
    OPT_WEIGHT_HISTOGRAM,
    OPT_NO_HEADER
};

static const struct option long_options[] = {
    {"dk", required_argument, NULL, 'd'},
    {"n", required_argument, NULL, 'n'},
    {"nq", required_argument, NULL, OPT_NQ},
    {"nk", required_argument, NULL, OPT_NK},
    {"trials", required_argument, NULL, 't'},
    {"seed", required_argument, NULL, 's'},
    {"dist", required_argument, NULL, OPT_DIST},
    {"ddof", required_argument, NULL, OPT_DDOF},
    {"observed", required_argument, NULL, OPT_OBSERVED},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"per-trial", no_argument, NULL, OPT_PER_TRIAL},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"block-rows", required_argument, NULL, OPT_BLOCK_ROWS},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"nu", required_argument, NULL, OPT_NU},
    {"q-mean", required_argument, NULL, OPT_Q_MEAN},
    {"q-std", required_argument, NULL, OPT_Q_STD},
    {"k-mean", required_argument, NULL, OPT_K_MEAN},
    {"k-std", required_argument, NULL, OPT_K_STD},
    {"qk-norm", no_argument, NULL, OPT_QK_NORM},
    {"qk-scale", required_argument, NULL, OPT_QK_SCALE},
    {"plant", required_argument, NULL, OPT_PLANT},
    {"d-model", required_argument, NULL, OPT_D_MODEL},
    {"init", required_argument, NULL, OPT_INIT},
    {"cross", no_argument, NULL, OPT_CROSS},
    {"causal", no_argument, NULL, OPT_CAUSAL},
    {"per-row", no_argument, NULL, OPT_PER_ROW},
    {"histogram", required_argument, NULL, OPT_HISTOGRAM},
    {"values", no_argument, NULL, OPT_VALUES},
    {"dv", required_argument, NULL, OPT_DV},
    {"weight-histogram", no_argument, NULL, OPT_WEIGHT_HISTOGRAM},
    {"no-header", no_argument, NULL, OPT_NO_HEADER},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Decimal digits only: strtoull alone would accept " 5", "+5" and wrap "-1"
 * to 2^64 - 1. */
static int parse_u64(const char *s, uint64_t *out, int *overflow)
{
    *overflow = 0;
    if (*s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0')
        return 0;
    if (errno == ERANGE || v > UINT64_MAX) {
        *overflow = 1;
        return 0;
    }
    *out = (uint64_t)v;
    return 1;
}

/* A positive integer that fits `max`; message in err otherwise. */
static int parse_count(const char *opt, const char *s, uint64_t max, int allow_zero, uint64_t *out,
                       char *err, size_t errlen)
{
    uint64_t v;
    int overflow;
    const char *what = allow_zero ? "a non-negative integer" : "a positive integer";
    if (!parse_u64(s, &v, &overflow) || (v == 0 && !allow_zero)) {
        if (overflow)
            snprintf(err, errlen, "%s: '%s' is too large", opt, s);
        else
            snprintf(err, errlen, "%s: '%s' is not %s", opt, s, what);
        return 0;
    }
    if (v > max) {
        snprintf(err, errlen, "%s: '%s' is too large (at most %llu)", opt, s,
                 (unsigned long long)max);
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_finite(const char *opt, const char *s, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || errno == ERANGE) {
        snprintf(err, errlen, "%s: '%s' is not a finite number", opt, s);
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_positive(const char *opt, const char *s, double *out, char *err, size_t errlen)
{
    if (!parse_finite(opt, s, out, err, errlen))
        return 0;
    if (!(*out > 0.0)) {
        snprintf(err, errlen, "%s: '%s' is not a positive number", opt, s);
        return 0;
    }
    return 1;
}

/* --scale: a comma list of sqrt, dk, none or positive numbers. */
static int parse_scales(const char *s, cli_options *opt, char *err, size_t errlen)
{
    size_t n = 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        cli_scale_choice c = {CLI_SCALE_VALUE, 0.0, ""};
        if (len == 0 || len >= sizeof c.name || n == CLI_SCALES_MAX) {
            snprintf(err, errlen,
                     "--scale: '%s' is not a list of sqrt, dk, none or positive numbers", s);
            return 0;
        }
        memcpy(c.name, p, len);
        c.name[len] = '\0';
        if (strcmp(c.name, "sqrt") == 0)
            c.kind = CLI_SCALE_SQRT;
        else if (strcmp(c.name, "dk") == 0)
            c.kind = CLI_SCALE_DK;
        else if (strcmp(c.name, "none") == 0)
            c.kind = CLI_SCALE_NONE;
        else {
            char *e;
            errno = 0;
            c.value = strtod(c.name, &e);
            if (e == c.name || *e != '\0' || errno == ERANGE || !isfinite(c.value) ||
                !(c.value > 0.0)) {
                snprintf(err, errlen,
                         "--scale: '%s' is not a list of sqrt, dk, none or positive numbers", s);
                return 0;
            }
        }
        opt->scale[n++] = c;
        if (!end)
            break;
        p = end + 1;
    }
    opt->n_scale = n;
    return 1;
}

int cli_options_parse(int argc, char **argv, cli_options *opt, char *err, size_t errlen)
{
    memset(opt, 0, sizeof *opt);
    opt->base.trials = 1;
    opt->base.seed = 42;
    opt->base.dist = SV_DIST_NORMAL;
    opt->dk[0] = 64;
    opt->n_dk = 1;
    opt->observed = NAN;
    opt->scale[0] = (cli_scale_choice){CLI_SCALE_SQRT, 0.0, "sqrt"};
    opt->n_scale = 1;
    opt->base.nu = 6.0;
    uint64_t n = 1111, nq = 0, nk = 0, v;

    opterr = 0; /* we print our own one-line messages */
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":d:n:t:s:qhV", long_options, NULL)) != -1) {
        switch (c) {
        case 'd': {
            sv_status st = sv_dklist_parse(optarg, opt->dk, &opt->n_dk);
            if (st == SV_ERANGE) {
                snprintf(err, errlen, "--dk: '%s' has a value that is too large", optarg);
                return 0;
            }
            if (st != SV_OK) {
                snprintf(err, errlen,
                         "--dk: '%s' is not a list of positive integers or doubling ranges "
                         "A:B with A <= B",
                         optarg);
                return 0;
            }
            break;
        }
        case 'n':
            if (!parse_count("--n", optarg, SIZE_MAX, 0, &n, err, errlen))
                return 0;
            break;
        case OPT_NQ:
            if (!parse_count("--nq", optarg, SIZE_MAX, 0, &nq, err, errlen))
                return 0;
            break;
        case OPT_NK:
            if (!parse_count("--nk", optarg, SIZE_MAX, 0, &nk, err, errlen))
                return 0;
            break;
        case 't':
            if (!parse_count("--trials", optarg, UINT64_MAX, 0, &opt->base.trials, err, errlen))
                return 0;
            break;
        case 's':
            if (!parse_count("--seed", optarg, UINT64_MAX, 1, &opt->base.seed, err, errlen))
                return 0;
            break;
        case OPT_DIST:
            if (sv_dist_from_name(optarg, &opt->base.dist) != SV_OK) {
                snprintf(err, errlen, "--dist: '%s' is not one of normal, uniform, rademacher, t",
                         optarg);
                return 0;
            }
            break;
        case OPT_DDOF:
            if (!parse_count("--ddof", optarg, UINT32_MAX, 1, &v, err, errlen))
                return 0;
            opt->base.ddof = (unsigned)v;
            break;
        case OPT_OBSERVED:
            if (!parse_finite("--observed", optarg, &opt->observed, err, errlen))
                return 0;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "table") == 0)
                opt->format = CLI_FORMAT_TABLE;
            else if (strcmp(optarg, "csv") == 0)
                opt->format = CLI_FORMAT_CSV;
            else if (strcmp(optarg, "json") == 0)
                opt->format = CLI_FORMAT_JSON;
            else if (strcmp(optarg, "jsonl") == 0)
                opt->format = CLI_FORMAT_JSONL;
            else {
                snprintf(err, errlen, "--format: '%s' is not one of table, csv, json, jsonl",
                         optarg);
                return 0;
            }
            break;
        case OPT_SCALE:
            if (!parse_scales(optarg, opt, err, errlen))
                return 0;
            break;
        case OPT_NU:
            if (!parse_finite("--nu", optarg, &opt->base.nu, err, errlen))
                return 0;
            if (!(opt->base.nu > 4.0)) {
                snprintf(err, errlen, "--nu: '%s' must be more than 4 (a finite fourth moment)",
                         optarg);
                return 0;
            }
            break;
        case OPT_Q_MEAN:
            if (!parse_finite("--q-mean", optarg, &opt->base.q_mean, err, errlen))
                return 0;
            break;
        case OPT_K_MEAN:
            if (!parse_finite("--k-mean", optarg, &opt->base.k_mean, err, errlen))
                return 0;
            break;
        case OPT_Q_STD:
            if (!parse_positive("--q-std", optarg, &opt->base.q_std, err, errlen))
                return 0;
            break;
        case OPT_K_STD:
            if (!parse_positive("--k-std", optarg, &opt->base.k_std, err, errlen))
                return 0;
            break;
        case OPT_QK_NORM:
            opt->base.qk_norm = 1;
            break;
        case OPT_QK_SCALE:
            if (!parse_positive("--qk-scale", optarg, &opt->base.qk_scale, err, errlen))
                return 0;
            opt->base.qk_norm = 1;
            break;
        case OPT_PLANT:
            if (!parse_finite("--plant", optarg, &opt->base.plant, err, errlen))
                return 0;
            if (!(fabs(opt->base.plant) <= 1.0)) {
                snprintf(err, errlen, "--plant: '%s' is not between -1 and 1", optarg);
                return 0;
            }
            break;
        case OPT_D_MODEL:
            if (!parse_count("--d-model", optarg, INT_MAX, 0, &v, err, errlen))
                return 0;
            opt->base.d_model = (size_t)v;
            break;
        case OPT_INIT:
            if (strcmp(optarg, "xavier") == 0)
                opt->base.init = SV_INIT_XAVIER;
            else if (strcmp(optarg, "lecun") == 0)
                opt->base.init = SV_INIT_LECUN;
            else if (strcmp(optarg, "normal") == 0)
                opt->base.init = SV_INIT_NORMAL;
            else {
                snprintf(err, errlen, "--init: '%s' is not one of xavier, lecun, normal", optarg);
                return 0;
            }
            break;
        case OPT_CROSS:
            opt->base.cross = 1;
            break;
        case OPT_CAUSAL:
            opt->base.causal = 1;
            break;
        case OPT_PER_ROW:
            opt->per_row = 1;
            break;
        case OPT_VALUES:
            opt->base.values = 1;
            break;
        case OPT_DV:
            if (!parse_count("--dv", optarg, INT_MAX, 0, &v, err, errlen))
                return 0;
            opt->base.d_v = (size_t)v;
            opt->base.values = 1;
            break;
        case OPT_HISTOGRAM:
            if (!parse_count("--histogram", optarg, 100000, 0, &v, err, errlen))
                return 0;
            opt->histogram = (size_t)v;
            break;
        case OPT_WEIGHT_HISTOGRAM:
            opt->weight_histogram = 1;
            break;
        case OPT_PER_TRIAL:
            opt->per_trial = 1;
            break;
        case OPT_NO_HEADER:
            opt->no_header = 1;
            break;
        case OPT_THREADS:
            if (!parse_count("--threads", optarg, 1024, 0, &v, err, errlen))
                return 0;
            opt->base.threads = (int)v;
            break;
        case OPT_BLOCK_ROWS:
            if (!parse_count("--block-rows", optarg, SIZE_MAX, 0, &v, err, errlen))
                return 0;
            opt->base.block_rows = (size_t)v;
            break;
        case 'q':
            opt->quiet = 1;
            break;
        case 'h':
            opt->help = 1;
            break;
        case 'V':
            opt->version = 1;
            break;
        case ':':
            snprintf(err, errlen, "option '%s' requires an argument", argv[optind - 1]);
            return 0;
        default:
            if (optopt)
                snprintf(err, errlen, "unknown option '-%c'", optopt);
            else
                snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
            return 0;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
        return 0;
    }
    const sv_config *b = &opt->base;
    opt->base.n_q = (size_t)(nq ? nq : n);
    opt->base.n_k = (size_t)(nk ? nk : n);
    if (b->causal && b->n_q != b->n_k) {
        snprintf(err, errlen, "--causal needs n_q = n_k (got n_q=%zu, n_k=%zu)", b->n_q, b->n_k);
        return 0;
    }
    if (opt->per_row + opt->per_trial + (opt->histogram > 0) > 1) {
        snprintf(err, errlen, "--per-row, --per-trial and --histogram cannot be combined");
        return 0;
    }
    if (opt->no_header && opt->format != CLI_FORMAT_AUTO && opt->format != CLI_FORMAT_CSV) {
        snprintf(err, errlen, "--no-header applies to CSV only, not to --format %s",
                 opt->format == CLI_FORMAT_TABLE  ? "table"
                 : opt->format == CLI_FORMAT_JSON ? "json"
                                                  : "jsonl");
        return 0;
    }
    if (opt->weight_histogram && !opt->histogram) {
        snprintf(err, errlen, "--weight-histogram needs --histogram BINS");
        return 0;
    }
    if (opt->histogram && opt->n_dk * opt->n_scale != 1) {
        snprintf(err, errlen, "--histogram takes one --dk and one --scale");
        return 0;
    }
    if (opt->weight_histogram && b->n_k > 4096) {
        snprintf(err, errlen, "--weight-histogram needs n_k <= 4096 (got %zu)", b->n_k);
        return 0;
    }
    if (b->cross && b->d_model == 0) {
        snprintf(err, errlen, "--cross needs --d-model");
        return 0;
    }
    if (b->d_model > 0 && (b->plant != 0.0 || b->q_mean != 0.0 || b->k_mean != 0.0 ||
                           b->q_std > 0.0 || b->k_std > 0.0)) {
        snprintf(err, errlen,
                 "--d-model draws tokens and projections: it does not combine with --plant, "
                 "--q-mean, --q-std, --k-mean, --k-std");
        return 0;
    }
    return 1;
}

size_t cli_options_count(const cli_options *opt)
{
    return opt->n_scale * opt->n_dk;
}

const cli_scale_choice *cli_options_scale(const cli_options *opt, size_t i)
{
    return &opt->scale[i / opt->n_dk];
}

sv_config cli_options_config(const cli_options *opt, size_t i)
{
    sv_config cfg = opt->base;
    cfg.d_k = opt->dk[i % opt->n_dk];
    const cli_scale_choice *c = cli_options_scale(opt, i);
    cfg.scale = c->kind == CLI_SCALE_SQRT   ? 0.0
                : c->kind == CLI_SCALE_DK   ? (double)cfg.d_k
                : c->kind == CLI_SCALE_NONE ? 1.0
                                            : c->value;
    return cfg;
}

/* Physical memory in bytes, or SIZE_MAX when the system does not say. */
static size_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0 || (unsigned long)pages > SIZE_MAX / (unsigned long)page)
        return SIZE_MAX;
    return (size_t)pages * (size_t)page;
}

int cli_options_check_sizes(const cli_options *opt, char *err, size_t errlen)
{
    const sv_config *b = &opt->base;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const size_t mem = physical_memory();
    for (size_t i = 0; i < cli_options_count(opt); i++) {
        sv_config cfg = cli_options_config(opt, i);
        size_t bytes;
        sv_status st = sv_experiment_bytes(&cfg, &bytes);
        if (st == SV_EINVAL && (double)b->n_q * (double)b->n_k <= (double)b->ddof) {
            snprintf(err, errlen,
                     "--ddof: '%u' must be less than the number of scores n_q*n_k = %zu", b->ddof,
                     b->n_q * b->n_k);
            return 0;
        }
        if (st == SV_ETOOBIG) {
            snprintf(err, errlen, "--dk: '%zu' is too large (at most %d: CBLAS takes int sizes)",
                     cfg.d_k, INT_MAX);
            return 0;
        }
        if (st == SV_EOVERFLOW) {
            sv_spec spec;
            sv_config_spec(&cfg, &spec);
            snprintf(err, errlen,
                     "values too large: scores could reach %.3g (means, stds, --qk-scale, "
                     "--scale); at most %.3g",
                     sv_spec_score_bound(&spec), SV_SCORE_MAX);
            return 0;
        }
        if (st != SV_OK) {
            snprintf(err, errlen,
                     "sizes too large: n_q*n_k = %zu*%zu scores with d_k=%zu overflow 64-bit "
                     "sizes",
                     b->n_q, b->n_k, cfg.d_k);
            return 0;
        }
        /* What the run of this configuration takes (run.c): rows are
         * written before the next configuration starts. */
        const double need = CLI_RUN_BASE_BYTES + cli_run_bytes(opt, &cfg, bytes);
        if (need > (double)mem) {
            snprintf(err, errlen,
                     "sizes too large: d_k=%zu, n_q=%zu, n_k=%zu, trials=%llu need %.3g GiB of "
                     "memory; this machine has %.3g GiB",
                     cfg.d_k, b->n_q, b->n_k, (unsigned long long)b->trials,
                     need / gib, (double)mem / gib);
            return 0;
        }
    }
    return 1;
}
