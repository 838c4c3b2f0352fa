/* State files (state.h): a shard encoded and decoded is the same shard;
 * trial shards and row shards merged in any order give one run's summary
 * bits; every bad byte string is refused; overlaps and gaps are named. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

#define NQ (SV_FOLD_ROWS + 100u)

static sv_spec spec_of(uint64_t trials)
{
    sv_spec s = {.d_k = 2, .n_q = NQ, .n_k = 30, .trials = trials, .seed = 11};
    CHECK(sv_spec_resolve(&s) == SV_OK);
    return s;
}

/* Config c of a state: trials [first, first + count) of spec s's source
 * src (at most 4 trials), rows [r0, r1): a partial for every row, else
 * the row folds. */
static void fill_config(sv_state_config *c, const sv_spec *s, const sv_source *src,
                        const sv_exec *exec, uint64_t first, uint64_t count, size_t r0, size_t r1)
{
    *c = (sv_state_config){.spec = *s,
                           .observed = NAN,
                           .trial_first = first,
                           .trial_count = count,
                           .row_begin = r0,
                           .row_end = r1};
    c->spec.trials = count;
    strcpy(c->scale_name, "sqrt");
    if (r0 == 0 && r1 == NQ) {
        sv_trial_stats t[4];
        CHECK(count <= 4);
        CHECK(sv_engine_run(s, src, exec, NULL, first, count, t) == SV_OK);
        CHECK(sv_partial_create(first, count, &c->trials) == SV_OK);
        CHECK(sv_partial_add(c->trials, t, (size_t)count) == SV_OK);
    } else {
        c->folds = calloc((size_t)count * sv_rowfold_blocks(r0, r1), sizeof(sv_rowfold));
        CHECK(sv_engine_run_rows(s, src, exec, first, count, r0, r1, c->folds) == SV_OK);
    }
}

/* Trials [first, first + count), rows [r0, r1), as one decoded state. */
static sv_state shard(uint64_t first, uint64_t count, size_t r0, size_t r1)
{
    sv_spec s = spec_of(first + count);
    sv_source src;
    const sv_exec exec = {.threads = 2};
    CHECK(sv_source_draw(&s, &src) == SV_OK);
    sv_state st = {
        .n_configs = 1, .configs = calloc(1, sizeof(sv_state_config)), .trials_total = 4};
    strcpy(st.version, sv_version());
    strcpy(st.isa, r0 ? "avx2" : "avx512");
    strcpy(st.blas, "Haswell");
    fill_config(st.configs, &s, &src, &exec, first, count, r0, r1);
    /* through bytes: what a file holds */
    size_t len = 0;
    CHECK(sv_state_encode(&st, NULL, 0, &len) == SV_ERANGE && len > 0);
    unsigned char *b = malloc(len);
    CHECK(sv_state_encode(&st, b, len, &len) == SV_OK);
    sv_state back;
    CHECK(sv_state_decode(b, len, &back) == SV_OK);
    size_t len2 = 0;
    unsigned char *b2 = malloc(len);
    CHECK(sv_state_encode(&back, b2, len, &len2) == SV_OK && len2 == len);
    CHECK(memcmp(b, b2, len) == 0);
    /* cut short, a bit flipped, one byte more: refused */
    sv_state bad;
    CHECK(sv_state_decode(b, len - 1, &bad) == SV_ECORRUPT);
    b[len / 2] ^= 4;
    CHECK(sv_state_decode(b, len, &bad) == SV_ECORRUPT);
    free(b);
    free(b2);
    sv_state_free(&st);
    return back;
}

/* Caller arrays whose mask hides every key from head 1 of 3 (trial 1
 * measured nothing), n_q = NQ so that rows can be split. */
#define EH 3u
#define EK 4u
static double eq[EH * NQ * 2], ek[EH * EK * 2];
static unsigned char em[EH * NQ * EK];

/* As shard(), of the caller arrays' source: through bytes, decoded. */
static sv_state empty_shard(const sv_source *src, uint64_t first, uint64_t count, size_t r0,
                            size_t r1)
{
    sv_spec s = {.d_k = 2, .n_q = NQ, .n_k = EK, .trials = EH};
    CHECK(sv_spec_resolve(&s) == SV_OK);
    const sv_exec exec = {.threads = 1};
    sv_state st;
    CHECK(sv_state_begin(&st, 1, EH) == SV_OK);
    fill_config(st.configs, &s, src, &exec, first, count, r0, r1);
    size_t len = 0;
    CHECK(sv_state_encode(&st, NULL, 0, &len) == SV_ERANGE);
    unsigned char *b = malloc(len);
    sv_state back = {0};
    CHECK(sv_state_encode(&st, b, len, &len) == SV_OK && sv_state_decode(b, len, &back) == SV_OK);
    free(b);
    sv_state_free(&st);
    return back;
}

/* The digest a state ends with (state.h: FNV-1a 64 of every byte before it). */
static void redigest(unsigned char *b, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i + 8 < len; i++)
        h = (h ^ b[i]) * 0x100000001b3u;
    for (int i = 0; i < 8; i++)
        b[len - 8 + i] = (unsigned char)(h >> (8 * i));
}

/* Block 0's count of trials with no entropy_norm in a state of trials
 * [0, 2) of the caller arrays (trial 1 measured nothing: count 1) is read
 * only between those that measured nothing and the block's trials: 2 is
 * taken, 0, 3 and 2^64 - 1 are refused as corrupt (a count below the
 * empty ones or above the trials would make a class's count negative or
 * wrap). */
static void check_undef_count(const sv_source *src)
{
    sv_state st = empty_shard(src, 0, 2, 0, NQ), back;
    size_t len = 0;
    CHECK(sv_state_encode(&st, NULL, 0, &len) == SV_ERANGE);
    unsigned char *b = malloc(len);
    CHECK(sv_state_encode(&st, b, len, &len) == SV_OK);
    /* the partial ends the one configuration: its count, 6 extremes, 2 x 2
     * variances, then the digest */
    unsigned char *at = b + len - 8 - 2 * 2 * 8 - 6 * 8 - 8;
    CHECK(at[0] == 1 && at[1] == 0);
    const uint64_t count[] = {2, 0, 3, UINT64_MAX};
    for (size_t i = 0; i < sizeof count / sizeof count[0]; i++) {
        for (int k = 0; k < 8; k++)
            at[k] = (unsigned char)(count[i] >> (8 * k));
        redigest(b, len);
        const sv_status want = i == 0 ? SV_OK : SV_ECORRUPT;
        if (!CHECK_STATUS(sv_state_decode(b, len, &back), want))
            fprintf(stderr, "block count %llu\n", (unsigned long long)count[i]);
        if (i == 0)
            sv_state_free(&back);
    }
    free(b);
    sv_state_free(&st);
}

/* Shards of trials (the decoded one's last block holding the empty trial,
 * then continued by the next) and of rows merge into one run's summary
 * bits: the means over the trials that measured something. The row
 * shards were refused as an overflow (its nan raw_mean) before, and the
 * SDs of the trial shards differed without the count read back.
 * With one_key, head 1's mask lets each row see one key instead: trial 1
 * measured something but has no entropy_norm, and the two entropy_norm
 * means are over heads 0 and 2 (NAN on the old code; a state of version 2
 * did not keep the block's count of such trials, so its merges differed). */
static void test_masked_head(int one_key)
{
    for (size_t i = 0; i < EH * NQ * 2; i++)
        eq[i] = sin(0.3 * (double)i);
    for (size_t i = 0; i < EH * EK * 2; i++)
        ek[i] = cos(0.9 * (double)i);
    for (size_t i = 0; i < EH * NQ * EK; i++) /* head 1: no key, or key (row mod EK) */
        em[i] = i / (NQ * EK) != 1 || (one_key && i % EK == i / EK % NQ % EK);
    const sv_array q = {.data = eq,
                        .dtype = SV_DTYPE_FLOAT64,
                        .ndim = 3,
                        .shape = {EH, NQ, 2},
                        .strides = {NQ * 16, 16, 8}};
    const sv_array k = {.data = ek,
                        .dtype = SV_DTYPE_FLOAT64,
                        .ndim = 3,
                        .shape = {EH, EK, 2},
                        .strides = {EK * 16, 16, 8}};
    const sv_array m = {.data = em,
                        .dtype = SV_DTYPE_BOOL,
                        .ndim = 3,
                        .shape = {EH, NQ, EK},
                        .strides = {NQ * EK, EK, 1}};
    const sv_strided arrays = {.q = q, .k = k, .mask = m};
    sv_source src;
    CHECK(sv_source_strided(&arrays, &src) == SV_OK);
    sv_spec s = {.d_k = 2, .n_q = NQ, .n_k = EK, .trials = EH};
    CHECK(sv_spec_resolve(&s) == SV_OK);
    sv_trial_stats t[EH];
    const sv_exec exec = {.threads = 1};
    CHECK(sv_engine_run(&s, &src, &exec, NULL, 0, EH, t) == SV_OK &&
          isnan(t[1].raw_mean) == !one_key && isnan(t[1].raw_entropy_norm));
    sv_summary want, got;
    CHECK(sv_summary_compute(&s, t, NAN, &want) == SV_OK && !isnan(want.mean.raw_mean));
    CHECK_CLOSE(want.mean.raw_entropy_norm, (t[0].raw_entropy_norm + t[2].raw_entropy_norm) / 2,
                1e-15, 0.0);
    CHECK_CLOSE(want.mean.scaled_entropy_norm,
                (t[0].scaled_entropy_norm + t[2].scaled_entropy_norm) / 2, 1e-15, 0.0);
    if (!one_key)
        check_undef_count(&src);
    /* [0, 2) whole then 2 in rows; 0 whole, 1 (the empty one) in rows, 2 whole */
    sv_state sh[6] = {empty_shard(&src, 0, 2, 0, NQ),
                      empty_shard(&src, 2, 1, 0, SV_FOLD_ROWS),
                      empty_shard(&src, 2, 1, SV_FOLD_ROWS, NQ),
                      empty_shard(&src, 0, 1, 0, NQ),
                      empty_shard(&src, 1, 1, SV_FOLD_ROWS, NQ),
                      empty_shard(&src, 1, 1, 0, SV_FOLD_ROWS)};
    sv_state e = empty_shard(&src, 2, 1, 0, NQ);
    for (size_t set = 0; set < 2; set++) {
        const sv_state *all[4] = {&sh[3 * set], &sh[3 * set + 1], &sh[3 * set + 2], &e};
        sv_state merged;
        sv_spec ms;
        CHECK_STATUS(sv_state_merge(all, 3 + set, 1, &merged, NULL), SV_OK);
        CHECK_STATUS(sv_state_summary(&merged, 0, &ms, &got), SV_OK);
        CHECK_MEM_EQ(&got.mean, &want.mean, sizeof got.mean);
        CHECK_MEM_EQ(&got.sd, &want.sd, sizeof got.sd);
        sv_state_free(&merged);
    }
    for (size_t i = 0; i < 6; i++)
        sv_state_free(&sh[i]);
    sv_state_free(&e);
}

/* A state of version 2 (no count of the trials with no entropy_norm per
 * block) is refused as version 1 is, with both versions named; the old
 * code read it. */
static void test_old_version(void)
{
    sv_state st = shard(0, 2, 0, NQ), back;
    size_t len = 0;
    CHECK(sv_state_encode(&st, NULL, 0, &len) == SV_ERANGE);
    unsigned char *b = malloc(len);
    CHECK(sv_state_encode(&st, b, len, &len) == SV_OK);
    b[8] = 2; /* the version's low byte: the digest is checked after it */
    CHECK_STATUS(sv_state_decode(b, len, &back), SV_EUNSUPPORTED);
    char text[160];
    sv_state_decode_text(b, len, SV_EUNSUPPORTED, "v2.st", text, sizeof text);
    CHECK_STR_EQ(text, "v2.st: state format version 2, this build reads version 3 (write the "
                       "shard again with this build)");
    free(b);
    sv_state_free(&st);
}

int main(void)
{
    /* one run: 4 trials */
    const sv_spec s = spec_of(4);
    sv_trial_stats t[4];
    sv_source src;
    const sv_exec exec = {.threads = 1};
    CHECK(sv_source_draw(&s, &src) == SV_OK);
    CHECK(sv_engine_run(&s, &src, &exec, NULL, 0, 4, t) == SV_OK);
    sv_summary want, got;
    CHECK(sv_summary_compute(&s, t, NAN, &want) == SV_OK);
    /* trials [2, 4) whole; [0, 2) in two row shards; given out of order */
    sv_state a = shard(2, 2, 0, NQ), b = shard(0, 2, SV_FOLD_ROWS, NQ),
             c = shard(0, 2, 0, SV_FOLD_ROWS);
    const sv_state *all[3] = {&a, &b, &c};
    sv_state m;
    sv_state_why why;
    CHECK(sv_state_merge(all, 3, 1, &m, &why) == SV_OK && why.problem == SV_STATE_FINE);
    /* shards of two instruction sets: merged, and said */
    CHECK(m.trials_total == 4 && strcmp(m.isa, "mixed") == 0 && strcmp(m.blas, "Haswell") == 0);
    sv_spec ms;
    CHECK(sv_state_summary(&m, 0, &ms, &got) == SV_OK);
    CHECK(ms.trials == 4 && sv_spec_hash(&ms) == sv_spec_hash(&s));
    CHECK(memcmp(&want, &got, sizeof want) == 0);
    /* the rest of its summary row: the scale as written, the observed value */
    const char *scale = NULL;
    double observed = 0;
    CHECK(sv_state_config_get(&m, 0, &scale, &observed) == 1 && strcmp(scale, "sqrt") == 0 &&
          isnan(observed));
    observed = 1;
    CHECK(sv_state_config_get(&m, 1, &scale, &observed) == 1 && observed == 1);
    CHECK(sv_state_config_get(&m, 0, NULL, NULL) == 1 &&
          sv_state_config_get(NULL, 0, NULL, NULL) == 0);
    sv_state_free(&m);
    /* a row shard missing, a shard twice, trials from 2 only */
    const sv_state *gap[2] = {&a, &b}, *twice[4] = {&a, &b, &c, &a}, *late[1] = {&a};
    CHECK(sv_state_merge(gap, 2, 1, &m, &why) == SV_EMISMATCH &&
          why.problem == SV_STATE_MISSING_ROWS && why.lo == 0 && why.hi == SV_FOLD_ROWS);
    /* the line `sdpa-var merge` prints, naming the shards (and its length
     * when cut, as snprintf) */
    const char *const names[4] = {"a.st", "b.st", "c.st", "a2.st"};
    char text[160];
    CHECK(sv_state_why_text(&why, gap, names, text, sizeof text) == strlen(text));
    CHECK(strcmp(text, "query rows 0..4095 of the trials from 0 are in no file (beside b.st)") ==
          0);
    CHECK(sv_state_why_text(&why, gap, names, text, 6) == 68 && strcmp(text, "query") == 0);
    CHECK(sv_state_merge(twice, 4, 1, &m, &why) == SV_EMISMATCH && why.problem == SV_STATE_OVERLAP);
    sv_state_why_text(&why, twice, names, text, sizeof text);
    CHECK(strcmp(text, "a2.st: overlaps a.st (trials or rows 2..3)") == 0);
    CHECK(sv_state_merge(late, 1, 1, &m, &why) == SV_EMISMATCH &&
          why.problem == SV_STATE_MISSING_TRIALS && why.hi == 2);
    sv_state_why_text(&why, late, names, text, sizeof text);
    CHECK(strcmp(text, "trials 0..1 are in no file (a.st starts after them)") == 0);
    CHECK(sv_state_merge(late, 1, 0, &m, &why) == SV_OK); /* a state of trials 2..3 */
    sv_state_free(&m);
    /* the last shard missing: the run has 4 trials (issue 33) */
    const sv_state *first2[2] = {&b, &c};
    CHECK(sv_state_merge(first2, 2, 1, &m, &why) == SV_EMISMATCH &&
          why.problem == SV_STATE_MISSING_TRIALS && why.lo == 2 && why.hi == 4);
    sv_state_why_text(&why, first2, names, text, sizeof text);
    CHECK(strcmp(text,
                 "trials 2..3 are in no file (the run has 4 trials; a.st ends before them)") == 0);
    CHECK(sv_state_merge(first2, 2, 0, &m, &why) == SV_OK && m.trials_total == 4);
    sv_state_free(&m);
    /* a shard of a run of another trial count */
    a.trials_total = 5;
    CHECK(sv_state_merge(all, 3, 1, &m, &why) == SV_EMISMATCH &&
          why.problem == SV_STATE_OTHER_TOTAL && why.shard == 1 && why.hi == 4);
    sv_state_why_text(&why, all, names, text, sizeof text);
    CHECK(strcmp(text, "b.st: a shard of a run of 4 trials, a.st of 5") == 0);
    a.trials_total = 4;
    /* a range past the run's trials is no state */
    size_t len = 0;
    a.trials_total = 3;
    CHECK(sv_state_encode(&a, NULL, 0, &len) == SV_EINVAL);
    a.trials_total = 4;
    /* another seed; another build */
    a.configs[0].spec.seed++;
    CHECK(sv_state_merge(all, 3, 1, &m, &why) == SV_EMISMATCH &&
          why.problem == SV_STATE_OTHER_SPEC);
    sv_state_why_text(&why, all, names, text, sizeof text);
    CHECK(strstr(text, ": another experiment than ") != NULL);
    a.configs[0].spec.seed--;
    strcpy(b.version, "0.0.1");
    CHECK(sv_state_merge(all, 3, 1, &m, &why) == SV_EMISMATCH &&
          why.problem == SV_STATE_OTHER_BUILD && why.shard == 1);
    sv_state_why_text(&why, all, names, text, sizeof text);
    CHECK(strncmp(text, "b.st: written by sdpa-var 0.0.1, this is ", 41) == 0);
    why.problem = (sv_state_problem)99; /* out of range: the problem's text */
    sv_state_why_text(&why, all, names, text, sizeof text);
    CHECK(strcmp(text, "unknown problem") == 0);
    /* an empty range is no merge's finding: the problem's text, not
     * "0..18446744073709551615" */
    why = (sv_state_why){.problem = SV_STATE_OVERLAP, .shard = 1, .other = 0, .lo = 3, .hi = 3};
    sv_state_why_text(&why, all, names, text, sizeof text);
    CHECK(strcmp(text, sv_state_problem_str(SV_STATE_OVERLAP)) == 0);
    why = (sv_state_why){.problem = SV_STATE_MISSING_TRIALS, .lo = 0, .hi = 0};
    sv_state_why_text(&why, all, names, text, sizeof text);
    CHECK(strcmp(text, sv_state_problem_str(SV_STATE_MISSING_TRIALS)) == 0);
    CHECK(strcmp(sv_state_problem_str(SV_STATE_OVERLAP), "overlaps another shard") == 0);
    sv_state z;
    CHECK(sv_state_decode((const unsigned char *)"SDPAVST", 7, &z) == SV_ECORRUPT);
    /* why bytes do not decode: another format version names both, the
     * rest the status; the whole length returned, as snprintf */
    const unsigned char v9[12] = {'S', 'D', 'P', 'A', 'V', 'S', 'T', 0, 9, 1, 0, 0};
    sv_state_decode_text(v9, 12, SV_EUNSUPPORTED, "x.st", text, sizeof text);
    char want_v[160];
    snprintf(want_v, sizeof want_v,
             "x.st: state format version 265, this build reads version %u (write the shard "
             "again with this build)",
             SV_STATE_VERSION);
    CHECK_STR_EQ(text, want_v);
    CHECK(sv_state_decode_text(v9, 7, SV_EUNSUPPORTED, NULL, text, 4) ==
              strlen("?: ") + strlen(sv_status_str(SV_EUNSUPPORTED)) &&
          strcmp(text, "?: ") == 0);
    CHECK(sv_state_decode_text(NULL, 0, SV_ECORRUPT, "e.st", NULL, 0) ==
          strlen("e.st: ") + strlen(sv_status_str(SV_ECORRUPT)));
    /* a run's state begun: its configurations zeroed, what computes it */
    CHECK(sv_state_begin(&z, 2, 9) == SV_OK && z.n_configs == 2 && z.trials_total == 9);
    CHECK(z.configs && z.configs[1].trials == NULL && z.configs[1].trial_count == 0);
    CHECK(strcmp(z.version, SV_VERSION_STRING) == 0 && strcmp(z.isa, sv_cpu_capability()) == 0);
    CHECK(z.blas[0] != '\0');
    sv_state_free(&z);
    CHECK(sv_state_begin(NULL, 2, 9) == SV_EINVAL);
    /* no memory for the configurations: *out zeroed, as documented */
    CHECK(sv_state_begin(&z, SIZE_MAX / 2, 9) == SV_ENOMEM && z.n_configs == 0 &&
          z.trials_total == 0 && z.configs == NULL);
    sv_state_free(&a);
    sv_state_free(&b);
    sv_state_free(&c);
    test_masked_head(0);
    test_masked_head(1);
    test_old_version();
    return CHECK_DONE();
}
