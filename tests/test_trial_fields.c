/* The per-trial statistics' one table (SV_TRIAL_STATS_MAP in engine.h):
 * the struct it generates, the names the library gives out and the
 * extremes partial.h keeps all follow it, field by field, so that two
 * fields swapping places or a field added in one place only fail here. */
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "../src/engine/partial_impl.h" /* white-box: the extremes */
#include "sdpa_var/sdpa_var.h"

int main(void)
{
    static_assert(sizeof(sv_trial_stats) == SV_TRIAL_FIELDS * sizeof(double),
                  "sv_trial_stats holds SV_TRIAL_FIELDS doubles and nothing else");
    CHECK_EQ(sv_trial_field_count(), SV_TRIAL_FIELDS);
    size_t i = 0, extremes = 0;
#define FIELD_(name, reduce, number, skip)                                                         \
    CHECK_EQ(offsetof(sv_trial_stats, name), i * sizeof(double));                                  \
    CHECK_STR_EQ(sv_trial_field_name(i), #name);                                                   \
    extremes += strcmp(#reduce, "MEAN") != 0;                                                      \
    i++;
    SV_TRIAL_STATS_MAP(FIELD_)
#undef FIELD_
    CHECK_EQ(i, SV_TRIAL_FIELDS);
    CHECK_STR_EQ(sv_trial_field_name(SV_TRIAL_FIELDS), NULL);
    CHECK_STR_EQ(sv_trial_field_name((size_t)-1), NULL);
    /* every name once */
    for (size_t a = 0; a < SV_TRIAL_FIELDS; a++)
        for (size_t b = 0; b < a; b++)
            CHECK_NE(strcmp(sv_trial_field_name(a), sv_trial_field_name(b)), 0);
    /* the extremes: one double per MIN or MAX field, the six of today */
    CHECK_EQ(sizeof(sv_trial_extremes), extremes * sizeof(double));
    CHECK_EQ(extremes, 6);
    CHECK_EQ(sv_struct_size("sv_trial_extremes"), sizeof(sv_trial_extremes));
    /* the extremes of a partial are those of its trials */
    sv_trial_stats t[3];
    memset(t, 0, sizeof t);
    t[0].raw_entropy_min = 2.0, t[1].raw_entropy_min = 1.0, t[2].raw_entropy_min = 3.0;
    t[0].scaled_entropy_max = 4.0, t[1].scaled_entropy_max = 6.0, t[2].scaled_entropy_max = 5.0;
    t[0].raw_max_abs_logit = -1.0, t[1].raw_max_abs_logit = -3.0, t[2].raw_max_abs_logit = -2.0;
    /* a trial whose rows all see nothing has no max logit: the others' max */
    t[0].raw_max_logit = -4.0, t[1].raw_max_logit = NAN, t[2].raw_max_logit = -5.0;
    t[0].raw_mean = 1.0, t[1].raw_mean = 2.0, t[2].raw_mean = 6.0;
    sv_partial *p;
    CHECK_STATUS(sv_partial_create(5, 3, &p), SV_OK);
    CHECK_STATUS(sv_partial_add(p, t, 3), SV_OK);
    CHECK_EQ(p->ext.raw_entropy_min, 1.0);
    CHECK_EQ(p->ext.scaled_entropy_max, 6.0);
    CHECK_EQ(p->ext.raw_max_abs_logit, -1.0);
    CHECK_EQ(p->ext.raw_max_logit, -4.0);
    sv_trial_stats mean, sd;
    sv_partial_mean(p, &mean);
    sv_partial_sd(p, &sd);
    CHECK_EQ(mean.raw_entropy_min, 1.0);
    CHECK_EQ(mean.raw_max_abs_logit, -1.0);
    CHECK_EQ(mean.raw_max_logit, -4.0);
    CHECK_EQ(mean.raw_mean, 3.0);
    CHECK_NAN(sd.raw_entropy_min);
    CHECK_NAN(sd.scaled_entropy_max);
    CHECK_NAN(sd.raw_max_logit);
    CHECK(!isnan(sd.raw_mean));
    sv_partial_free(p);
    /* no trial with a max logit: NaN, not the -inf it starts from */
    CHECK_STATUS(sv_partial_create(0, 1, &p), SV_OK);
    CHECK_STATUS(sv_partial_add(p, &t[1], 1), SV_OK);
    sv_partial_mean(p, &mean);
    CHECK_NAN(mean.raw_max_logit);
    CHECK_EQ(mean.raw_entropy_min, 1.0);
    sv_partial_free(p);
    return CHECK_DONE();
}
