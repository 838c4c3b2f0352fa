/* Shorthands for tests over the split interface (spec.h, engine.h): a
 * spec is taken by value with its defaults unresolved, as the tests write
 * it, and resolved here, so a test may change d_k and call again. */
#ifndef SDPA_VAR_TESTS_SPEC_RUN_H
#define SDPA_VAR_TESTS_SPEC_RUN_H

#include "sdpa_var/engine.h"
#include "sdpa_var/source.h"
#include "sdpa_var/spec.h"
#include "sdpa_var/theory.h"

/* @p spec resolved (its status: sv_spec_resolve's). */
static inline sv_status spec_resolved(sv_spec spec, sv_spec *out)
{
    const sv_status st = sv_spec_resolve(&spec);
    *out = spec;
    return st;
}

/* Trials 0 .. spec.trials - 1 of @p spec on its random draws, default
 * execution, no taps: out[t] is trial t. */
static inline sv_status spec_run(sv_spec spec, sv_trial_stats *out)
{
    sv_source src;
    const sv_exec exec = {0};
    sv_status st = sv_spec_resolve(&spec);
    if (st == SV_OK)
        st = sv_source_draw(&spec, &src);
    return st == SV_OK ? sv_engine_run(&spec, &src, &exec, NULL, 0, spec.trials, out) : st;
}

/* sv_theory_spec of @p spec resolved. */
static inline sv_status spec_theory(sv_spec spec, sv_theory *out)
{
    const sv_status st = sv_spec_resolve(&spec);
    return st == SV_OK ? sv_theory_spec(&spec, out) : st;
}

#endif
