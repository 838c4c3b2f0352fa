/* The rule table of sv_spec_check (spec.c), shared with param.c, which
 * words its faults: internal to src/experiment/. */
#ifndef SDPA_VAR_SPEC_RULES_H
#define SDPA_VAR_SPEC_RULES_H

#include "sdpa_var/param.h"
#include "sdpa_var/spec.h"

/* One rule between the values of a spec: the field it blames, the other
 * field it is about ("": none), its form (param.h's sv_rule_kind), the
 * value the other needs (SV_RULE_NEEDS: "t" of "dist t", "" for any set
 * value; else "") and why, all static strings. */
typedef struct sv__spec_rule {
    const char *field;
    const char *other;
    sv_rule_kind kind;
    const char *value;
    const char *why;
} sv__spec_rule;

#define SV__LOGN_ROW_WHY "the per-row multipliers reach the softmax statistics only"

/* The first rule @p spec breaks: 1 with *out, or 0 (*out untouched). */
int sv__spec_rule_broken(const sv_spec *spec, sv__spec_rule *out);

#endif
