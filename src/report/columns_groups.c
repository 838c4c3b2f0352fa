/* The column groups (columns.h): their names, and the rule that makes the
 * default output, the core group and the groups of the options a run
 * uses, the lookups of a column or group by name, where the column's need holds; the needs
 * themselves (sv_column_required, the verdict on undefined values) and the names of the reduce
 * rules. The table is columns.c's. */
#include "sdpa_var/columns.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const struct {
    const char *name, *doc;
} groups[SV_COLUMN_GROUPS] = {
    [SV_GROUP_CORE] = {"core", "the configuration and the headline statistics (default)"},
    [SV_GROUP_SD] = {"sd", "spreads across trials of the other means"},
    [SV_GROUP_QUANTILES] = {"quantiles", "5 %, 50 % and 95 % quantiles of the variance"},
    [SV_GROUP_THEORY] = {"theory", "further theory: mean, entropy, variance with ddof 0 and 1"},
    [SV_GROUP_VARIANCE] = {"variance", "the variance about the known mean, with ddof 0 and 1"},
    [SV_GROUP_ENTROPY] = {"entropy", "smallest, largest and normalised row entropy"},
    [SV_GROUP_JACOBIAN] = {"jacobian", "Frobenius norm of the softmax Jacobian"},
    [SV_GROUP_LOGITS] = {"logits", "largest |logit| and float16 headroom"},
    [SV_GROUP_SINK] = {"sink", "weight of the first key seen (attention sinks)"},
    [SV_GROUP_DRAW] = {"draw", "--q-mean, --q-std, --k-mean, --k-std (default: when given)"},
    [SV_GROUP_DDOF] = {"ddof", "--ddof (default: when not 0)"},
    [SV_GROUP_PLANT] = {"plant", "--plant (default: when not 0)"},
    [SV_GROUP_PROJECTION] = {"projection", "--d-model, --init, --cross (default: with --d-model)"},
    [SV_GROUP_DIAG] = {"diag", "related pairs, S_ii (default: with --plant or self-attention "
                               "--d-model)"},
    [SV_GROUP_INPUTS] = {"inputs", "measured Q and K (default: with --d-model, --qk-norm, --q)"},
    [SV_GROUP_QK_NORM] = {"qk_norm", "--qk-norm (default: with it)"},
    [SV_GROUP_CAUSAL] = {"causal", "--causal, --window: masks (default: with either)"},
    [SV_GROUP_VALUES] = {"values", "--values: the output O (default: with it)"},
    [SV_GROUP_GRAD] = {"grad", "--grad: the gradients (default: with it)"},
    [SV_GROUP_OBSERVED] = {"observed", "--observed (default: with it)"},
};

const char *sv_column_group_name(sv_column_group g, const char **doc)
{
    if ((unsigned)g >= SV_COLUMN_GROUPS)
        return NULL;
    if (doc)
        *doc = groups[g].doc;
    return groups[g].name;
}

/* Whether the @p len bytes at @p name are all of @p s. */
static int named(const char *s, const char *name, size_t len)
{
    return strlen(s) == len && strncmp(s, name, len) == 0;
}

int sv_column_group_find(const char *name, size_t len)
{
    for (int g = 0; name && g < SV_COLUMN_GROUPS; g++)
        if (named(groups[g].name, name, len))
            return g;
    return -1;
}

const sv_column *sv_columns_find(sv_output_kind kind, const char *name, size_t len, size_t *index)
{
    for (size_t i = 0; name && i < sv_columns_count(kind); i++) {
        const sv_column *c = sv_columns_get(kind, i);
        if (named(c->name, name, len)) {
            if (index)
                *index = i;
            return c;
        }
    }
    return NULL;
}

/* Whether the option of group g is in use in spec; the non-option groups
 * (sd, theory, ...) are not in the default output. */
static int group_in_use(sv_column_group g, const sv_spec *spec, int observed, int measured)
{
    switch (g) {
    case SV_GROUP_CORE:
        return 1;
    case SV_GROUP_DRAW:
        return spec->q_mean != 0.0 || spec->q_std != 1.0 || spec->k_mean != 0.0 ||
               spec->k_std != 1.0;
    case SV_GROUP_DDOF:
        return spec->ddof != 0;
    case SV_GROUP_PLANT:
        return spec->plant != 0.0;
    case SV_GROUP_PROJECTION:
        return spec->d_model > 0;
    case SV_GROUP_DIAG:
        return spec->plant != 0.0 || (spec->d_model > 0 && !spec->cross);
    case SV_GROUP_INPUTS:
        return measured || spec->d_model > 0 || spec->qk_norm;
    case SV_GROUP_QK_NORM:
        return spec->qk_norm != 0;
    case SV_GROUP_CAUSAL:
        return spec->causal != 0 || spec->window != 0;
    case SV_GROUP_VALUES:
        return spec->values != 0;
    case SV_GROUP_GRAD:
        return spec->grad != 0;
    case SV_GROUP_OBSERVED:
        return observed;
    default:
        return 0;
    }
}

int sv_column_default(const sv_column *col, const sv_spec *spec, int observed, int measured)
{
    if (!col || !spec || !group_in_use(SV_COLUMN_GROUP(col->flags), spec, observed, measured))
        return 0;
    if ((col->flags & SV_COLUMN_SPREAD) && spec->trials < 2)
        return 0;
    /* Measured arrays define the inputs' moments whatever the spec says,
     * and the spec's theory is not theirs. */
    if (col->need == SV_NEED_NONE || (measured && col->need == SV_NEED_QK_VAR))
        return 1;
    if (measured && col->need == SV_NEED_THEORY)
        return 0;
    return sv_column_required(col, spec, observed);
}

/* --- needs --------------------------------------------------------------- */

/* SV_NEED_THEORY: whether col's value is a number in a summary row of spec
 * that holds the spec's theory, as sv_summary_compute sets it (raw_theory
 * from sv_theory_spec, scaled_theory from sv_theory_scale); a spec the
 * theory refuses defines nothing. */
static int theory_defined(const sv_column *col, const sv_spec *spec)
{
    sv_summary s;
    memset(&s, 0, sizeof s);
    if (sv_theory_spec(spec, &s.raw_theory) != SV_OK)
        return 0;
    s.scaled_theory = s.raw_theory;
    if (sv_theory_scale(spec, &s.scaled_theory) != SV_OK)
        return 0;
    const sv_row_view v = {.spec = spec, .stats = &s.mean, .summary = &s};
    return !isnan(col->get(&v).real);
}

int sv_column_required(const sv_column *col, const sv_spec *spec, int observed)
{
    if (!col || !spec)
        return 0;
    switch (col->need) {
    case SV_NEED_NONE:
        return 0;
    case SV_NEED_ALWAYS:
        return 1;
    case SV_NEED_SCORES2:
        return (double)spec->n_q * (double)spec->n_k > 1.0;
    case SV_NEED_TRIALS2:
        return spec->trials > 1;
    case SV_NEED_STUDENT_T:
        return spec->dist == SV_DIST_STUDENT_T;
    case SV_NEED_DIAG:
        return spec->plant != 0.0 || (spec->d_model > 0 && !spec->cross);
    case SV_NEED_QK_VAR:
        return spec->d_model > 0 || spec->qk_norm;
    case SV_NEED_QK_NORM:
        return spec->qk_norm != 0;
    case SV_NEED_VALUES:
        return spec->values != 0;
    case SV_NEED_OBSERVED:
        return observed;
    case SV_NEED_KNOWN_MEAN:
        return !isnan(sv_theory_mean(spec));
    case SV_NEED_GRAD:
        return spec->grad != 0;
    case SV_NEED_KEYS2:
        return spec->n_k >= 2 && (!spec->causal || spec->n_q >= 2) && spec->window != 1;
    case SV_NEED_WINDOW:
        return spec->window != 0;
    case SV_NEED_ONE_SCALE:
        return !spec->scale_logn;
    case SV_NEED_THEORY:
        return theory_defined(col, spec);
    }
    return 0;
}

/* A row none of whose query rows sees a key (a mask or window excludes
 * every key of every row) measured nothing: a NAN there is the mean of
 * nothing, the true answer, as numpy's mean of an empty array and
 * PyTorch's SDPA output of a fully masked row; rows_empty says why. */
static int measured_nothing(const sv_row_view *row)
{
    return row->stats && row->spec->n_q > 0 && row->stats->rows_empty >= (double)row->spec->n_q;
}

/* SV_NEED_KEYS2 decides by n_k, causal and window: a data mask may still
 * leave every row of a head one key or none (the inputs are checked finite
 * before a run, so a NAN entropy_norm there means just that); the pooled
 * row's is then NAN only if every head's is. */
static int mask_may_leave(const sv_column *col, const sv_row_view *row)
{
    return row->masked && col->need == SV_NEED_KEYS2;
}

int sv_column_undefined(const sv_column *col, const sv_row_view *row, int observed)
{
    if (!col || !row || !row->spec || col->type != SV_VALUE_REAL || measured_nothing(row) ||
        mask_may_leave(col, row) || ((col->flags & SV_COLUMN_ONLY_OBSERVED) && !observed) ||
        ((col->flags & SV_COLUMN_ONLY_GRAD) && !row->spec->grad))
        return 0;
    return sv_column_required(col, row->spec, observed) && isnan(col->get(row).real);
}

const sv_column *sv_columns_first_undefined(sv_output_kind kind, const sv_row_view *row,
                                            int observed)
{
    for (size_t i = 0; i < sv_columns_count(kind); i++) {
        const sv_column *c = sv_columns_get(kind, i);
        if (sv_column_undefined(c, row, observed))
            return c;
    }
    return NULL;
}

int sv_column_exists(const sv_column *col, const sv_spec *spec, int observed, int measured)
{
    return col && (!(col->flags & SV_COLUMN_ONLY_OBSERVED) || observed) &&
           (!(col->flags & SV_COLUMN_ONLY_GRAD) || (spec && spec->grad)) &&
           (!(col->flags & SV_COLUMN_ONLY_DRAWS) || !measured);
}

int sv_column_trial_sd(const sv_column *col)
{
    return col && (col->flags & SV_COLUMN_SPREAD) && SV_COLUMN_GROUP(col->flags) != SV_GROUP_CORE;
}

const sv_column *sv_columns_first_undefined_skip(sv_output_kind kind, const sv_row_view *row,
                                                 int observed, unsigned skip_groups, unsigned skip,
                                                 int no_trial_sd)
{
    for (size_t i = 0; row && i < sv_columns_count(kind); i++) {
        const sv_column *c = sv_columns_get(kind, i);
        if (!(skip_groups >> SV_COLUMN_GROUP(c->flags) & 1u) && !(sv_column_reads(c) & skip) &&
            !(no_trial_sd && sv_column_trial_sd(c)) && sv_column_undefined(c, row, observed))
            return c;
    }
    return NULL;
}

const char *sv_column_reduce_name(sv_column_reduce r)
{
    static const char *const names[SV_COLUMN_REDUCES] = {
        [SV_REDUCE_MEAN] = "mean", [SV_REDUCE_MIN] = "min",     [SV_REDUCE_MAX] = "max",
        [SV_REDUCE_SUM] = "sum",   [SV_REDUCE_FIRST] = "first", [SV_REDUCE_POOLED] = "pooled",
        [SV_REDUCE_NONE] = "none"};
    return (unsigned)r < SV_COLUMN_REDUCES ? names[r] : NULL;
}

double sv_column_std_error(const sv_column *col, const sv_row_view *row)
{
    const sv_output_kind k = SV_OUTPUT_SUMMARY;
    if (!col || !row || !row->spec || !row->summary || col->type != SV_VALUE_REAL)
        return NAN;
    const sv_column *of =
        strncmp(col->name, "raw_var_", 8) == 0 ? sv_column_of(SV_COL_raw_var) : col;
    const sv_column *sd = sv_column_partner(k, col, SV_PARTNER_SD);
    const sv_column *th =
        sv_column_partner(k, sv_column_partner(k, of, SV_PARTNER_SD), SV_PARTNER_THEORY);
    const double s = sd ? sd->get(row).real : NAN;
    return sqrt(1.0 / (double)row->spec->trials) * (isnan(s) && th ? th->get(row).real : s);
}
