/* libFuzzer harness: the parameter table's text readers (param.h). The
 * input is lines "name=value"; each is set on one spec by sv_spec_set, then
 * the spec is resolved and checked. Properties: sv_spec_set and
 * sv_param_explain agree (a refusal has a reason, an acceptance none); a
 * refusal leaves the spec untouched; every message is one printable line;
 * a count read equals strtod's reading of the same text within rounding, a
 * real equals it exactly; a resolved spec has spent its scale rule; and
 * sv_spec_check_param agrees with sv_spec_check. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/param.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void printable_line(const char *m)
{
    for (; *m; m++)
        if ((unsigned char)*m < 0x20 || (unsigned char)*m > 0x7e)
            abort();
}

static void readers(const char *text)
{
    uint64_t u = 0;
    double d = 0;
    if (sv_text_count(text, &u) == SV_OK) {
        const double want = strtod(text, NULL);
        if (!(fabs(want - (double)u) <= 1e-15 * want + 0.5))
            abort();
    }
    if (sv_text_real(text, &d) == SV_OK && !(isfinite(d) && d == strtod(text, NULL)))
        abort();
}

static void one(sv_spec *spec, const char *line)
{
    const char *eq = strchr(line, '=');
    char name[32], msg[200];
    if (!eq || (size_t)(eq - line) >= sizeof name)
        return;
    memcpy(name, line, (size_t)(eq - line));
    name[eq - line] = '\0';
    readers(eq + 1);
    sv_param p;
    if (sv_param_lookup(name, &p) != SV_OK)
        return;
    const sv_spec before = *spec;
    const sv_status st = sv_spec_set(spec, p, eq + 1);
    const size_t why = sv_param_explain(p, eq + 1, msg, sizeof msg);
    if ((st == SV_OK) != (why == 0))
        abort();
    if (st != SV_OK && memcmp(&before, spec, sizeof before) != 0)
        abort();
    if (why)
        printable_line(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sv_spec spec;
    sv_spec_defaults(&spec);
    spec.n_q = spec.n_k = 8; /* small: the check forms sizes, nothing runs */
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        one(&spec, line);
    }
    const sv_status st = sv_spec_resolve(&spec);
    sv_param p = SV_PARAM_COUNT, o = SV_PARAM_COUNT;
    char msg[200];
    if (sv_spec_check_param(&spec, &p, &o, msg, sizeof msg) != st || sv_spec_check(&spec) != st)
        abort();
    if (st == SV_OK &&
        (spec.scale_rule != SV_SCALE_SQRT || !(spec.scale > 0) || p != SV_PARAM_NONE))
        abort();
    if (st != SV_OK && (!msg[0] || p < SV_PARAM_NONE || p >= SV_PARAM_COUNT || o < SV_PARAM_NONE ||
                        o >= SV_PARAM_COUNT))
        abort();
    printable_line(msg);
    /* The same fault in parts (sv_spec_check_rule): its status, and an
     * EXCLUDES or NEEDS rule names another parameter and a reason. */
    sv_param_rule rule;
    if (sv_spec_check_rule(&spec, &rule) != st || (st == SV_OK && rule.kind != SV_RULE_NONE) ||
        !rule.value || !rule.why ||
        (rule.kind != SV_RULE_NONE && (rule.other == SV_PARAM_NONE || !rule.why[0])))
        abort();
    /* The rules with the rest of a run (sv_spec_check_use): one use named
     * with its reason, or none and "". */
    const unsigned all = SV_USE_MASK | SV_USE_GIVEN | SV_USE_HISTOGRAM | SV_USE_ROW_SHARD |
                         SV_USE_ONE_SCALE | SV_USE_WEIGHT_HISTOGRAM;
    unsigned use = ~0u;
    const char *why = NULL;
    const sv_status us = sv_spec_check_use(&spec, all, &use, &why);
    if (!why || (us == SV_OK) != (use == 0) || (use & (use - 1)) || (use & ~all) ||
        (use != 0) != (why[0] != '\0'))
        abort();
    printable_line(why);
    free(text);
    return 0;
}
