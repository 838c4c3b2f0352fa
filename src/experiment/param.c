/* The parameter table (param.h): names, kinds, bounds and defaults from
 * SV_PARAM_MAP, text read into a spec, and faults worded once for the CLI,
 * the Python package and the page. */
#include "sdpa_var/param.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_rules.h"

typedef struct param_row {
    const char *name;
    sv_param_kind kind;
    double lo, hi;
    const char *def;
    sv_param implies;
} param_row;

static const param_row rows[SV_PARAM_COUNT] = {
#define SV_PARAM_ROW_(id, name, kind, lo, hi, def, implies, doc)                                   \
    {name, kind, lo, hi, def, SV_PARAM_##implies},
    SV_PARAM_MAP(SV_PARAM_ROW_)
#undef SV_PARAM_ROW_
};

static const char *const dist_names[] = {"normal", "uniform", "rademacher", "t", NULL};
static const char *const init_names[] = {"xavier", "lecun", "normal", NULL};
static const char *const scale_names[] = {"sqrt", "dk", "none", "logn", NULL};

static int valid(sv_param p)
{
    return (int)p >= 0 && p < SV_PARAM_COUNT;
}

const char *sv_param_name(sv_param param)
{
    return valid(param) ? rows[param].name : NULL;
}

sv_status sv_param_lookup(const char *name, sv_param *param)
{
    if (!name || !param)
        return SV_EINVAL;
    for (int p = 0; p < SV_PARAM_COUNT; p++)
        if (strcmp(rows[p].name, name) == 0) {
            *param = (sv_param)p;
            return SV_OK;
        }
    return SV_EINVAL;
}

sv_status sv_param_bounds(sv_param param, sv_param_kind *kind, double *lo, double *hi,
                          const char **def, sv_param *implies)
{
    if (!valid(param))
        return SV_EINVAL;
    const param_row *r = &rows[param];
    if (kind)
        *kind = r->kind;
    if (lo)
        *lo = r->lo;
    if (hi)
        *hi = r->hi;
    if (def)
        *def = r->def;
    if (implies)
        *implies = r->implies;
    return SV_OK;
}

const char *const *sv_param_choices(sv_param param)
{
    return param == SV_PARAM_DIST    ? dist_names
           : param == SV_PARAM_INIT  ? init_names
           : param == SV_PARAM_SCALE ? scale_names
                                     : NULL;
}

/* Plain decimal: an optional '-', digits with at most one '.', an
 * exponent e[+-]digits. No spaces, no '+' in front, no hex, inf or nan:
 * what strtod alone would accept. */
static int plain_real(const char *s)
{
    int digits = 0;
    s += *s == '-';
    for (; (*s >= '0' && *s <= '9') || *s == '.'; s++)
        digits += *s != '.';
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        s += *s == '+' || *s == '-';
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

sv_status sv_text_real(const char *text, double *out)
{
    if (!text || !out || !plain_real(text) || strchr(text, '.') != strrchr(text, '.'))
        return SV_EINVAL;
    const double v = strtod(text, NULL); /* ERANGE for subnormals too: finite, kept */
    if (!isfinite(v))
        return SV_ERANGE;
    *out = v;
    return SV_OK;
}

/* The exponent of an exact integer's text, at most 100000 in magnitude. */
static const char *exponent(const char *s, long *ex)
{
    const int neg = *s == '-';
    s += *s == '+' || *s == '-';
    if (*s < '0' || *s > '9')
        return NULL;
    long e = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        e = e < 100000 ? e * 10 + (*s - '0') : e;
    *ex = neg ? -e : e;
    return s;
}

/* Digits d[0..nd) times 10^e, e >= 0, as a uint64 (SV_ERANGE if larger). */
static sv_status digits_value(const char *d, size_t nd, long e, uint64_t *out)
{
    if (e + (long)nd > 20)
        return SV_ERANGE;
    uint64_t v = 0;
    for (size_t i = 0; i < nd + (size_t)e; i++) {
        const uint64_t x = i < nd ? (uint64_t)(d[i] - '0') : 0;
        if (v > (UINT64_MAX - x) / 10)
            return SV_ERANGE;
        v = v * 10 + x;
    }
    *out = v;
    return SV_OK;
}

/* An exact integer in plain decimal, perhaps in scientific notation:
 * digits with at most one '.', then e[+-]digits ("1e5", "1.2e3", "100");
 * not "1.5e0", "1e-1", "+5" or "-1". */
sv_status sv_text_count(const char *s, uint64_t *out)
{
    if (!s || !out)
        return SV_EINVAL;
    char dig[24]; /* significant digits kept; 20 make any uint64 */
    size_t nd = 0, ndig = 0, extra = 0, last_nz = 0;
    long frac = 0, ex = 0;
    int dot = 0;
    for (; (*s >= '0' && *s <= '9') || (*s == '.' && !dot); s++) {
        if (*s == '.') {
            dot = 1;
            continue;
        }
        ndig++;
        frac += dot;
        if (nd == 0 && *s == '0')
            continue; /* leading zeros */
        if (nd < sizeof dig)
            dig[nd++] = *s;
        else if (++extra, *s != '0') /* beyond: only where the last nonzero one is */
            last_nz = extra;
    }
    if (ndig == 0 || ((*s == 'e' || *s == 'E') && !(s = exponent(s + 1, &ex))) || *s != '\0')
        return SV_EINVAL;
    /* The digit string's last digit stands for 10^(ex - frac). */
    long e = ex - frac;
    if (last_nz) /* 25 or more significant digits: too large, or not whole */
        return e + (long)(extra - last_nz) >= 0 ? SV_ERANGE : SV_EINVAL;
    e += (long)extra; /* extra zeros */
    while (e < 0 && nd > 0 && dig[nd - 1] == '0')
        nd--, e++;
    if (nd == 0)
        return *out = 0, SV_OK;
    return e < 0 ? SV_EINVAL : digits_value(dig, nd, e, out);
}

/* Longest echo of a value before it is cut with "...": with a name and
 * the reason, a message stays one terminal line or two. */
#define QUOTE_SHOWN 60

char *sv_quote(char *dst, size_t dstlen, const char *s)
{
    size_t n = 0;
    const size_t room = dstlen - 4; /* "..." and the NUL */
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        char one[5];
        if (c == '\n' || c == '\t' || c == '\r' || c == '\\')
            snprintf(one, sizeof one, "\\%c",
                     c == '\n'   ? 'n'
                     : c == '\t' ? 't'
                     : c == '\r' ? 'r'
                                 : '\\');
        else if (c < 0x20 || c > 0x7e)
            snprintf(one, sizeof one, "\\x%02x", c);
        else
            one[0] = (char)c, one[1] = '\0';
        const size_t len = strlen(one);
        if (n + len > QUOTE_SHOWN || n + len > room) {
            memcpy(dst + n, "...", 4);
            return dst;
        }
        memcpy(dst + n, one, len);
        n += len;
    }
    dst[n] = '\0';
    return dst;
}

static size_t say(char *buf, size_t len, const char *fmt, ...)
{
    char one[1];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(len ? buf : one, len ? len : 1, fmt, ap);
    va_end(ap);
    return n > 0 ? (size_t)n : 0;
}

/* Why a count is refused ("" when it is accepted: 0 returned). */
static size_t count_why(double lo, double hi, const char *q, const char *s, char *buf, size_t len)
{
    const char *kind = lo > 0 ? "a positive integer" : "a non-negative integer";
    uint64_t v = 0;
    const sv_status st = sv_text_count(s, &v);
    if (st == SV_EINVAL || (st == SV_OK && (double)v < lo))
        return say(buf, len, "'%s' is not %s", q, kind);
    if (st == SV_ERANGE || (double)v > hi) /* (double)UINT64_MAX rounds up to 2^64 */
        return say(buf, len, "'%s' is too large (at most %llu)", q,
                   hi < SV_PARAM_U64_MAX ? (unsigned long long)hi : (unsigned long long)UINT64_MAX);
    return 0;
}

size_t sv_value_explain(sv_param_kind kind, double lo, double hi, const char *text, char *buf,
                        size_t len)
{
    char q[80];
    double v = 0;
    if (!text)
        return 0;
    sv_quote(q, sizeof q, text);
    if (kind == SV_ARG_COUNT)
        return count_why(lo, hi, q, text, buf, len);
    if (kind != SV_ARG_REAL && kind != SV_ARG_ABOVE)
        return 0;
    const sv_status st = sv_text_real(text, &v);
    if (st == SV_EINVAL)
        return say(buf, len, "'%s' is not a finite number", q);
    if (st == SV_ERANGE)
        return say(buf, len, "'%s' is too large (at most %g in magnitude)", q, DBL_MAX);
    if (kind == SV_ARG_ABOVE && !(v > lo))
        return lo == 0 ? say(buf, len, "'%s' is not a positive number", q)
                       : say(buf, len, "'%s' is not more than %g", q, lo);
    if (kind == SV_ARG_REAL && !(v >= lo && v <= hi))
        return say(buf, len, "'%s' is not between %g and %g", q, lo, hi);
    return 0;
}

/* "a, b, c or d" of a NULL-terminated list, then @p tail (" or ..."). */
static size_t one_of(char *buf, size_t len, const char *q, const char *const *names,
                     const char *tail)
{
    size_t at = say(buf, len, "'%s' is not one of ", q);
    for (size_t i = 0; names[i]; i++)
        at += say(at < len ? buf + at : NULL, at < len ? len - at : 0, "%s%s",
                  i == 0                  ? ""
                  : names[i + 1] || *tail ? ", "
                                          : " or ",
                  names[i]);
    return at + say(at < len ? buf + at : NULL, at < len ? len - at : 0, "%s", tail);
}

static int name_index(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

sv_status sv_scale_parse(const char *text, sv_scale_rule *rule, double *value)
{
    if (!text || !rule || !value)
        return SV_EINVAL;
    const int k = name_index(text, scale_names); /* in sv_scale_rule's order */
    double v = 0;
    if (k < 0 && (sv_text_real(text, &v) != SV_OK || !(v > 0)))
        return SV_EINVAL;
    *rule = k < 0 ? SV_SCALE_VALUE : (sv_scale_rule)k;
    *value = v;
    return SV_OK;
}

/* The value of @p text for parameter @p p, in *u (counts, flags, names)
 * or *d (numbers, the scale), its bounds checked. */
static sv_status read_value(sv_param p, const char *text, uint64_t *u, double *d)
{
    const param_row *r = &rows[p];
    sv_scale_rule rule;
    int k;
    switch (r->kind) {
    case SV_ARG_COUNT: {
        const sv_status st = sv_text_count(text, u);
        return st != SV_OK ? st : (double)*u < r->lo || (double)*u > r->hi ? SV_ERANGE : SV_OK;
    }
    case SV_ARG_REAL:
    case SV_ARG_ABOVE:
        if (sv_text_real(text, d) != SV_OK)
            return SV_EINVAL;
        return r->kind == SV_ARG_ABOVE ? (*d > r->lo ? SV_OK : SV_ERANGE)
                                       : (*d >= r->lo && *d <= r->hi ? SV_OK : SV_ERANGE);
    case SV_ARG_FLAG:
        if (strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
            return SV_EINVAL;
        *u = text[0] == '1';
        return SV_OK;
    case SV_ARG_NAME:
        k = name_index(text, sv_param_choices(p));
        return k < 0 ? SV_EINVAL : (*u = (uint64_t)k, SV_OK);
    case SV_ARG_SCALE:
        if (sv_scale_parse(text, &rule, d) != SV_OK)
            return SV_EINVAL;
        *u = (uint64_t)rule;
        return SV_OK;
    }
    return SV_EINVAL;
}

/* The spec's member for parameter p: the one place a parameter meets its
 * field. */
static void store(sv_spec *s, sv_param p, uint64_t u, double d)
{
    switch (p) {
    case SV_PARAM_D_K:
        s->d_k = (size_t)u;
        break;
    case SV_PARAM_N_Q:
        s->n_q = (size_t)u;
        break;
    case SV_PARAM_N_K:
        s->n_k = (size_t)u;
        break;
    case SV_PARAM_TRIALS:
        s->trials = u;
        break;
    case SV_PARAM_SEED:
        s->seed = u;
        break;
    case SV_PARAM_DIST:
        s->dist = (sv_dist)u;
        break;
    case SV_PARAM_NU:
        s->nu = d;
        break;
    case SV_PARAM_DDOF:
        s->ddof = (unsigned)u;
        break;
    case SV_PARAM_SCALE: /* a number is the scale; a name resolves later */
        s->scale = u == SV_SCALE_VALUE ? d : 0.0;
        s->scale2 = 0.0;
        s->scale_logn = 0;
        s->scale_rule = u == SV_SCALE_VALUE ? SV_SCALE_SQRT : (sv_scale_rule)u;
        break;
    case SV_PARAM_Q_MEAN:
        s->q_mean = d;
        break;
    case SV_PARAM_Q_STD:
        s->q_std = d;
        break;
    case SV_PARAM_K_MEAN:
        s->k_mean = d;
        break;
    case SV_PARAM_K_STD:
        s->k_std = d;
        break;
    case SV_PARAM_QK_NORM:
        s->qk_norm = (int)u;
        break;
    case SV_PARAM_QK_SCALE:
        s->qk_radius = d;
        break;
    case SV_PARAM_PLANT:
        s->plant = d;
        break;
    case SV_PARAM_D_MODEL:
        s->d_model = (size_t)u;
        break;
    case SV_PARAM_INIT:
        s->init = (sv_init)u;
        break;
    case SV_PARAM_CROSS:
        s->cross = (int)u;
        break;
    case SV_PARAM_CAUSAL:
        s->causal = (int)u;
        break;
    case SV_PARAM_WINDOW:
        s->window = (size_t)u;
        break;
    case SV_PARAM_VALUES:
        s->values = (int)u;
        break;
    case SV_PARAM_D_V:
        s->d_v = (size_t)u;
        break;
    case SV_PARAM_GRAD:
        s->grad = (int)u;
        break;
    default:
        break;
    }
}

sv_status sv_spec_set(sv_spec *spec, sv_param param, const char *text)
{
    uint64_t u = 0;
    double d = 0;
    if (!spec || !text || !valid(param))
        return SV_EINVAL;
    const sv_status st = read_value(param, text, &u, &d);
    if (st != SV_OK)
        return st;
    store(spec, param, u, d);
    const int on =
        rows[param].kind == SV_ARG_COUNT || rows[param].kind == SV_ARG_FLAG ? u != 0 : d != 0.0;
    if (on && rows[param].implies != SV_PARAM_NONE)
        store(spec, rows[param].implies, 1, 0.0);
    return SV_OK;
}

sv_status sv_spec_defaults(sv_spec *spec)
{
    if (!spec)
        return SV_EINVAL;
    memset(spec, 0, sizeof *spec);
    for (int p = 0; p < SV_PARAM_COUNT; p++)
        if (rows[p].def)
            (void)sv_spec_set(spec, (sv_param)p, rows[p].def); /* the table's own text */
    return SV_OK;
}

size_t sv_param_explain(sv_param param, const char *text, char *buf, size_t len)
{
    uint64_t u;
    double d;
    char q[80];
    if (!text || !valid(param) || read_value(param, text, &u, &d) == SV_OK)
        return 0;
    const param_row *r = &rows[param];
    sv_quote(q, sizeof q, text);
    switch (r->kind) {
    case SV_ARG_FLAG:
        return say(buf, len, "'%s' is not 0 or 1", q);
    case SV_ARG_NAME:
    case SV_ARG_SCALE: {
        const char *const *names = sv_param_choices(param);
        size_t at =
            one_of(buf, len, q, names, r->kind == SV_ARG_SCALE ? " or a positive number" : "");
        const char *near = sv_suggest(text, names, SIZE_MAX);
        if (near)
            at += say(at < len ? buf + at : NULL, at < len ? len - at : 0, "; did you mean %s?",
                      near);
        return at;
    }
    default:
        return sv_value_explain(r->kind, r->lo, r->hi, text, buf, len);
    }
}

/* The parameter of a spec member sv_spec_check_field names. */
static sv_param param_of(const char *field)
{
    sv_param p = SV_PARAM_NONE;
    if (!field || !*field)
        return p;
    if (strcmp(field, "qk_radius") == 0)
        return SV_PARAM_QK_SCALE;
    if (strcmp(field, "scale_logn") == 0)
        return SV_PARAM_SCALE;
    return sv_param_lookup(field, &p) == SV_OK ? p : SV_PARAM_NONE;
}

/* The reason of a fault that no rule of the table words. */
static const char *status_why(sv_status st)
{
    switch (st) {
    case SV_ERANGE: /* size_t: 32 bits in WebAssembly */
        return SIZE_MAX > 0xffffffffu ? "the sizes overflow 64 bits" : "the sizes overflow 32 bits";
    case SV_ETOOBIG:
        return "at most 2147483647 (CBLAS takes int sizes)";
    default:
        return "must be less than the number of scores";
    }
}

/* The reasons that count, into @p buf (1), or 0: ddof against the scores
 * the variance is over (sv_spec_scores), a bound passed. */
static int counted_why(const sv_spec *s, sv_param p, sv_status st, char *buf, size_t len)
{
    uint64_t n = 0;
    if (st == SV_EOVERFLOW)
        return say(buf, len, "too large: scores could reach %.3g at d_k=%zu (at most %.3g)",
                   sv_spec_score_bound(s), s->d_k, SV_SCORE_MAX) > 0;
    if (st == SV_EPRECISION)
        return say(buf, len,
                   "too large against the standard deviation (|mean| / std at most %.3g: "
                   "double precision would round the scores' spread away)",
                   SV_MEAN_STD_MAX) > 0;
    if (p != SV_PARAM_DDOF || st != SV_EINVAL || sv_spec_scores(s, &n) != SV_OK)
        return 0;
    if (s->window > 0)
        return say(buf, len, "must be less than the %" PRIu64 " scores a window of %zu shows", n,
                   s->window) > 0;
    if (s->causal)
        return say(buf, len,
                   "must be less than the n(n+1)/2 = %" PRIu64
                   " scores a causal mask shows (n = %zu)",
                   n, s->n_q) > 0;
    return say(buf, len, "must be less than the number of scores n_q*n_k = %" PRIu64, n) > 0;
}

/* sv_spec_check_field's status on @p spec, with the rule it breaks in
 * *rule (why NULL for a fault of no rule: ddof, the sizes, a bound). */
static sv_status broken_rule(const sv_spec *spec, sv__spec_rule *rule)
{
    const char *field = NULL;
    const sv_status st = sv_spec_check_field(spec, &field);
    *rule = (sv__spec_rule){field, "", SV_RULE_NONE, "", NULL};
    if (st == SV_EINVAL && spec)
        (void)sv__spec_rule_broken(spec, rule); /* none: ddof, worded below */
    return st;
}

sv_status sv_spec_check_rule(const sv_spec *spec, sv_param_rule *out)
{
    sv__spec_rule rule;
    if (!out)
        return SV_EINVAL;
    const sv_status st = broken_rule(spec, &rule);
    *out = (sv_param_rule){SV_RULE_NONE, SV_PARAM_NONE, SV_PARAM_NONE, "", ""};
    if (st == SV_OK)
        return st;
    out->param = param_of(rule.field);
    out->other = param_of(rule.other);
    if (rule.why) {
        out->kind = rule.kind;
        out->value = rule.value;
        out->why = rule.why;
    }
    return st;
}

sv_status sv_spec_check_param(const sv_spec *spec, sv_param *param, sv_param *other, char *msg,
                              size_t len)
{
    sv__spec_rule rule;
    const sv_status st = broken_rule(spec, &rule);
    const sv_param p = st == SV_OK ? SV_PARAM_NONE : param_of(rule.field);
    const sv_param o = st == SV_OK ? SV_PARAM_NONE : param_of(rule.other);
    if (param)
        *param = p;
    if (other)
        *other = o;
    if (msg && len)
        msg[0] = '\0';
    if (st == SV_OK || !spec || !msg)
        return st;
    const char *name = p == SV_PARAM_NONE ? rule.field : sv_param_name(p);
    const char *why = rule.why ? rule.why : status_why(st);
    char counted[200];
    why = counted_why(spec, p, st, counted, sizeof counted) ? counted : why;
    if (rule.kind == SV_RULE_EXCLUDES)
        say(msg, len, "%s: not with %s (%s)", name, sv_param_name(o), why);
    else if (rule.kind == SV_RULE_NEEDS)
        say(msg, len, "%s: needs %s%s%s (%s)", name, sv_param_name(o), *rule.value ? " " : "",
            rule.value, why);
    else
        say(msg, len, "%s: %s", name, why);
    return st;
}
