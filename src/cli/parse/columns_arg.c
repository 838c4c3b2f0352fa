/* --columns: a selection of names, "all", or +GROUP additions to the
 * default columns (the groups of the column table, sv_column_group). */
#include <math.h>
#include <string.h>

#include "options.h"

sv_output_kind cli_options_kind(const cli_options *opt)
{
    return opt->out.histogram              ? SV_OUTPUT_HISTOGRAM
           : opt->given[CLI_OPT_PER_ROW]   ? SV_OUTPUT_PER_ROW
           : opt->given[CLI_OPT_PER_TRIAL] ? SV_OUTPUT_PER_TRIAL
           : opt->given[CLI_OPT_Q]         ? SV_OUTPUT_PER_HEAD
                                           : SV_OUTPUT_SUMMARY;
}

/* Whether column c is in the run's output (sv_column_exists): columns
 * that exist only with --observed count only with it, those of random
 * draws not with --q; with @p grad 0 not --grad's, which a name may pick
 * without --grad (its values NaN). */
static int available(const cli_options *o, const sv_column *c, int grad)
{
    const sv_spec spec = {.grad = grad};
    return sv_column_exists(c, &spec, !isnan(o->out.observed), o->given[CLI_OPT_Q]);
}

/* Whether group g has a column in the run's output. */
static int group_applies(const cli_options *o, int g)
{
    const sv_output_kind kind = cli_options_kind(o);
    for (size_t i = 0; i < sv_columns_count(kind); i++) {
        const sv_column *c = sv_columns_get(kind, i);
        if ((int)SV_COLUMN_GROUP(c->flags) == g && available(o, c, o->given[CLI_OPT_GRAD]))
            return 1;
    }
    return 0;
}

/* +GROUP,...: each a group, once; no names among them. */
static int resolve_groups(cli_options *o, char *err, size_t errlen)
{
    const char *s = o->arg[CLI_OPT_COLUMNS], *names[SV_COLUMN_GROUPS];
    char q[80], item[80];
    for (int g = 0; g < SV_COLUMN_GROUPS; g++)
        names[g] = sv_column_group_name((sv_column_group)g, NULL);
    for (const char *p = s;; p++) {
        const size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)(len < 79 ? len : 79), p);
        cli_quote(q, sizeof q, item);
        if (*p != '+')
            return cli_fail(err, errlen,
                            "--columns: '%s' is a name among +groups; give names alone "
                            "or +groups alone",
                            q);
        const int g = sv_column_group_find(p + 1, len - 1);
        if (g < 0) {
            const char *near = len > 1 ? cli_suggest(item + 1, names, SV_COLUMN_GROUPS) : NULL;
            return cli_fail(err, errlen, "--columns: '%s' is not a group%s%s%s", q,
                            near ? "; did you mean +" : " (docs/columns.md)", near ? near : "",
                            near ? "?" : "");
        }
        if (!group_applies(o, g))
            return cli_fail(err, errlen, "--columns: '%s' has no columns in the %s output%s", q,
                            sv_output_kind_name(cli_options_kind(o)),
                            g == SV_GROUP_GRAD       ? " without --grad"
                            : g == SV_GROUP_OBSERVED ? " without --observed"
                                                     : "");
        if (o->out.column_groups & (1ul << g))
            return cli_fail(err, errlen, "--columns: '%s' is named twice", q);
        o->out.column_groups |= 1ul << g;
        p += len;
        if (*p == '\0')
            break;
    }
    return 1;
}

int cli_resolve_columns(cli_options *o, char *err, size_t errlen)
{
    const sv_output_kind kind = cli_options_kind(o);
    const char *s = o->arg[CLI_OPT_COLUMNS], *names[512];
    char q[80], item[80];
    size_t n_names = 0;
    o->out.n_columns = 0;
    o->out.columns_all = strcmp(s, "all") == 0;
    o->out.column_groups = 0;
    if (o->out.columns_all)
        return 1;
    if (s[0] == '+')
        return resolve_groups(o, err, errlen);
    for (size_t i = 0; i < sv_columns_count(kind) && n_names < 512; i++)
        if (available(o, sv_columns_get(kind, i), 1))
            names[n_names++] = sv_columns_get(kind, i)->name;
    for (const char *p = s;; p++) {
        const size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)(len < 79 ? len : 79), p);
        cli_quote(q, sizeof q, item);
        size_t c = 0;
        const sv_column *col = sv_columns_find(kind, p, len, &c);
        if (o->out.n_columns == CLI_COLUMNS_MAX)
            return cli_fail(err, errlen, "--columns: more than %d names", CLI_COLUMNS_MAX);
        if (len == 0)
            return cli_fail(err, errlen, "--columns: '%s' has an empty name",
                            cli_quote(q, sizeof q, s));
        if (col && isnan(o->out.observed) && (col->flags & SV_COLUMN_ONLY_OBSERVED))
            return cli_fail(err, errlen, "--columns: '%s' needs --observed", q);
        col = col && available(o, col, 1) ? col : NULL; /* --q: not the draws' columns */
        if (!col && *p == '+')
            return cli_fail(err, errlen,
                            "--columns: '%s' is a +group among names; give names alone "
                            "or +groups alone",
                            q);
        if (!col) {
            const char *near = len ? cli_suggest(item, names, n_names) : NULL;
            return cli_fail(err, errlen, "--columns: '%s' is not a column of the %s output%s%s%s",
                            q, sv_output_kind_name(kind), near ? "; did you mean " : "",
                            near ? near : "", near ? "?" : " (docs/columns.md)");
        }
        for (size_t k = 0; k < o->out.n_columns; k++)
            if (o->columns[k] == c)
                return cli_fail(err, errlen, "--columns: '%s' is named twice", q);
        o->columns[o->out.n_columns++] = c;
        p += len;
        if (*p == '\0')
            break;
    }
    return 1;
}
