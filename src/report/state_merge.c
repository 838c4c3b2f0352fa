/* The merge of shards (state.h): pieces sorted by (first trial, first
 * row); a trial range split into row shards is folded trial by trial,
 * ranges are joined in trial order. Every way shards can fail to make one
 * run is named, with the shard to blame. */
#include "sdpa_var/state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/version.h"
#include "alloc.h"

typedef struct piece {
    size_t shard;
    const sv_state_config *c;
} piece;

static int piece_cmp(const void *a, const void *b)
{
    const sv_state_config *x = ((const piece *)a)->c, *y = ((const piece *)b)->c;
    if (x->trial_first != y->trial_first)
        return x->trial_first < y->trial_first ? -1 : 1;
    if (x->row_begin != y->row_begin)
        return x->row_begin < y->row_begin ? -1 : 1;
    const size_t i = ((const piece *)a)->shard, j = ((const piece *)b)->shard;
    return i < j ? -1 : i > j;
}

/* The spec but its trial count, which a shard sets to its own. */
static uint64_t run_hash(const sv_spec *s)
{
    sv_spec t = *s;
    t.trials = 1;
    return sv_spec_hash(&t);
}

static int same_config(const sv_state_config *a, const sv_state_config *b)
{
    /* --observed: the same value, or both absent (NAN) */
    const int observed = a->observed == b->observed || (isnan(a->observed) && isnan(b->observed));
    return run_hash(&a->spec) == run_hash(&b->spec) && strcmp(a->scale_name, b->scale_name) == 0 &&
           observed;
}

static sv_status fail(sv_state_why *why, sv_state_problem p, size_t shard, size_t other,
                      size_t config, uint64_t lo, uint64_t hi)
{
    if (why)
        *why = (sv_state_why){p, shard, other, config, lo, hi, 0};
    return SV_EMISMATCH;
}

/* Every shard of this version, of shard 0's run: its trial count and
 * configurations. */
static sv_status check_shards(const sv_state *const *sh, size_t n, sv_state_why *why)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(sh[i]->version, SV_VERSION_STRING) != 0)
            return fail(why, SV_STATE_OTHER_BUILD, i, 0, 0, 0, 0);
        if (sh[i]->trials_total != sh[0]->trials_total)
            return fail(why, SV_STATE_OTHER_TOTAL, i, 0, 0, sh[0]->trials_total,
                        sh[i]->trials_total);
        if (sh[i]->n_configs != sh[0]->n_configs)
            return fail(why, SV_STATE_OTHER_SPEC, i, 0, 0, 0, 0);
        for (size_t c = 0; c < sh[0]->n_configs; c++)
            if (!same_config(&sh[i]->configs[c], &sh[0]->configs[c]))
                return fail(why, SV_STATE_OTHER_SPEC, i, 0, c, 0, 0);
    }
    return SV_OK;
}

/* Row shards pc[0 .. m) of the same trials: rows tiling [0, n_q) in
 * order, folded trial by trial into *part. */
static sv_status fold_rows(const piece *pc, size_t m, size_t config, sv_partial *part,
                           sv_state_why *why)
{
    const sv_state_config *c0 = pc[0].c;
    const sv_spec *s = &c0->spec;
    uint64_t row = 0;
    for (size_t k = 0; k < m; k++) {
        const sv_state_config *c = pc[k].c;
        if (c->trial_count != c0->trial_count || c->row_begin < row)
            return fail(why, SV_STATE_OVERLAP, pc[k].shard, pc[k ? k - 1 : 0].shard, config,
                        c->row_begin, row);
        if (c->row_begin > row) {
            sv_status st =
                fail(why, SV_STATE_MISSING_ROWS, pc[k].shard, 0, config, row, c->row_begin);
            if (why)
                why->trial = c0->trial_first;
            return st;
        }
        row = c->row_end;
    }
    if (row != s->n_q) {
        sv_status st = fail(why, SV_STATE_MISSING_ROWS, pc[m - 1].shard, 0, config, row, s->n_q);
        if (why)
            why->trial = c0->trial_first;
        return st;
    }
    const size_t nb = sv_rowfold_blocks(0, s->n_q);
    sv_rowfold *f = sv__malloc(nb * sizeof *f);
    if (!f)
        return SV_ENOMEM;
    sv_status st = SV_OK;
    for (uint64_t t = 0; st == SV_OK && t < c0->trial_count; t++) {
        size_t at = 0;
        for (size_t k = 0; k < m; k++) {
            const sv_state_config *c = pc[k].c;
            const size_t kb = sv_rowfold_blocks((size_t)c->row_begin, (size_t)c->row_end);
            memcpy(f + at, c->folds + t * kb, kb * sizeof *f);
            at += kb;
        }
        sv_trial_stats ts;
        st = sv_rowfold_finish(s, f, nb, &ts);
        /* NAN only where no row saw a key (nothing measured: the engine's
         * rule), else an overflow. */
        const int nothing = ts.rows_empty >= (double)s->n_q;
        if (st == SV_OK)
            st = !nothing && (isnan(ts.raw_mean) || isnan(ts.raw_entropy))
                     ? SV_EOVERFLOW
                     : sv_partial_add(part, &ts, 1);
    }
    sv__free(f);
    return st;
}

/* One configuration: the pieces in order, joined into out->trials; with
 * @p whole (the run's trial count, else 0) they must be trials [0, whole). */
static sv_status merge_config(piece *pc, size_t n, size_t config, uint64_t whole,
                              sv_state_config *out, sv_state_why *why)
{
    /* A row shard of an --n list holds no rows of a configuration whose
     * n_q ends before its range: such a piece covers nothing. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (pc[i].c->row_begin < pc[i].c->row_end)
            pc[kept++] = pc[i];
    if (kept == 0)
        return fail(why, SV_STATE_MISSING_ROWS, 0, 0, config, 0, pc[0].c->spec.n_q);
    n = kept;
    qsort(pc, n, sizeof *pc, piece_cmp);
    const uint64_t first = pc[0].c->trial_first;
    if (whole && first != 0)
        return fail(why, SV_STATE_MISSING_TRIALS, pc[0].shard, 0, config, 0, first);
    *out = *pc[0].c;
    out->folds = NULL;
    out->trials = NULL; /* the shard's: out gets its own below */
    out->trial_first = first;
    out->row_begin = 0;
    out->row_end = out->spec.n_q;
    sv_status st = sv_partial_create(first, 0, &out->trials);
    uint64_t next = first;
    for (size_t i = 0; st == SV_OK && i < n;) {
        const sv_state_config *c = pc[i].c;
        if (c->trial_first < next)
            return fail(why, SV_STATE_OVERLAP, pc[i].shard, pc[i - 1].shard, config, c->trial_first,
                        next);
        if (c->trial_first > next)
            return fail(why, SV_STATE_MISSING_TRIALS, pc[i].shard, 0, config, next, c->trial_first);
        size_t m = 1;
        while (i + m < n && pc[i + m].c->trial_first == c->trial_first)
            m++;
        if (c->row_begin == 0 && c->row_end == c->spec.n_q) {
            if (m > 1)
                return fail(why, SV_STATE_OVERLAP, pc[i + 1].shard, pc[i].shard, config,
                            c->trial_first, c->trial_first + c->trial_count);
            st = sv_partial_merge(out->trials, c->trials);
        } else {
            st = fold_rows(pc + i, m, config, out->trials, why);
        }
        next = c->trial_first + c->trial_count;
        i += m;
    }
    if (st == SV_OK && whole && next != whole) /* the last shard is missing */
        return fail(why, SV_STATE_MISSING_TRIALS, pc[n - 1].shard, 0, config, next, whole);
    out->trial_count = sv_partial_count(out->trials);
    out->spec.trials = out->trial_count;
    return st;
}

sv_status sv_state_merge(const sv_state *const *shards, size_t n, int from_zero, sv_state *out,
                         sv_state_why *why)
{
    if (why)
        *why = (sv_state_why){0};
    if (!out)
        return SV_EINVAL;
    *out = (sv_state){0};
    if (!shards || n == 0)
        return SV_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!shards[i] || shards[i]->n_configs == 0 || !shards[i]->configs)
            return SV_EINVAL;
    sv_status st = check_shards(shards, n, why);
    if (st != SV_OK)
        return st;
    piece *pc = sv__malloc(n * sizeof *pc);
    out->configs = sv__calloc(shards[0]->n_configs, sizeof *out->configs);
    if (!pc || !out->configs) {
        sv__free(pc);
        sv__free(out->configs);
        out->configs = NULL;
        return SV_ENOMEM;
    }
    out->n_configs = shards[0]->n_configs;
    memcpy(out->version, shards[0]->version, sizeof out->version);
    out->trials_total = shards[0]->trials_total;
    memcpy(out->isa, shards[0]->isa, sizeof out->isa);
    memcpy(out->blas, shards[0]->blas, sizeof out->blas);
    for (size_t i = 1; i < n; i++) { /* numbers within the cross-machine tolerance */
        if (strcmp(shards[i]->isa, out->isa) != 0)
            strcpy(out->isa, "mixed");
        if (strcmp(shards[i]->blas, out->blas) != 0)
            strcpy(out->blas, "mixed");
    }
    for (size_t c = 0; st == SV_OK && c < out->n_configs; c++) {
        for (size_t i = 0; i < n; i++)
            pc[i] = (piece){i, &shards[i]->configs[c]};
        st = merge_config(pc, n, c, from_zero ? out->trials_total : 0, &out->configs[c], why);
    }
    sv__free(pc);
    if (st != SV_OK)
        sv_state_free(out);
    return st;
}

sv_status sv_state_summary(const sv_state *s, size_t config, sv_spec *spec, sv_summary *out)
{
    if (!s || !spec || !out || config >= s->n_configs)
        return SV_EINVAL;
    const sv_state_config *c = &s->configs[config];
    if (c->trial_first != 0 || c->row_begin != 0 || c->row_end != c->spec.n_q ||
        sv_partial_count(c->trials) != c->trial_count)
        return SV_EINVAL;
    sv_spec sp = c->spec;
    sp.trials = c->trial_count;
    /* The quantiles reorder the variances: on a copy. */
    sv_partial *p;
    sv_status st = sv_partial_create(0, 0, &p);
    if (st == SV_OK)
        st = sv_partial_merge(p, c->trials);
    if (st == SV_OK)
        st = sv_summary_from_partial(&sp, p, c->observed, out);
    sv_partial_free(p);
    if (st == SV_OK)
        *spec = sp;
    return st;
}

size_t sv_state_config_get(const sv_state *s, size_t config, const char **scale_name,
                           double *observed)
{
    if (!s)
        return 0;
    if (config < s->n_configs && scale_name)
        *scale_name = s->configs[config].scale_name;
    if (config < s->n_configs && observed)
        *observed = s->configs[config].observed;
    return s->n_configs;
}

const char *sv_state_problem_str(sv_state_problem problem)
{
    switch (problem) {
    case SV_STATE_FINE:
        return "no problem";
    case SV_STATE_OTHER_BUILD:
        return "written by another build";
    case SV_STATE_OTHER_SPEC:
        return "another experiment (spec, seed, scale or configurations)";
    case SV_STATE_OVERLAP:
        return "overlaps another shard";
    case SV_STATE_MISSING_TRIALS:
        return "trials missing";
    case SV_STATE_MISSING_ROWS:
        return "query rows missing";
    case SV_STATE_OTHER_TOTAL:
        return "a shard of a run of another trial count";
    }
    return "unknown problem";
}

size_t sv_state_why_text(const sv_state_why *why, const sv_state *const *shards,
                         const char *const *names, char *buf, size_t len)
{
    if (!buf)
        len = 0;
    const sv_state_problem p = why ? why->problem : SV_STATE_FINE;
    /* A range with nothing in it is no merge's finding: the generic text,
     * not an unsigned lo..hi-1 that wraps. */
    const int ranged =
        p == SV_STATE_OVERLAP || p == SV_STATE_MISSING_TRIALS || p == SV_STATE_MISSING_ROWS;
    if (!why || !shards || !names || p == SV_STATE_FINE || p > SV_STATE_OTHER_TOTAL ||
        (ranged && why->lo == why->hi) || (p != SV_STATE_OVERLAP && ranged && why->hi < why->lo))
        return (size_t)snprintf(buf, len, "%s", sv_state_problem_str(p));
    const char *f = names[why->shard] ? names[why->shard] : "?";
    const char *o = names[why->other] ? names[why->other] : "?";
    const unsigned long long lo = why->lo, hi = why->hi;
    int n = 0;
    switch (p) {
    case SV_STATE_OTHER_BUILD:
        n = snprintf(buf, len, "%s: written by sdpa-var %s, this is %s", f,
                     shards[why->shard]->version, SV_VERSION_STRING);
        break;
    case SV_STATE_OTHER_SPEC:
        n = snprintf(buf, len,
                     "%s: another experiment than %s (spec, seed, scale or configurations differ)",
                     f, o);
        break;
    case SV_STATE_OVERLAP: /* lo and hi as the merge found them: either order */
        n = snprintf(buf, len, "%s: overlaps %s (trials or rows %llu..%llu)", f, o,
                     lo < hi ? lo : hi, (lo < hi ? hi : lo) - 1);
        break;
    case SV_STATE_MISSING_TRIALS:
        if (hi == shards[0]->trials_total && lo > 0) /* the last shard */
            n = snprintf(buf, len,
                         "trials %llu..%llu are in no file (the run has %llu trials; %s ends "
                         "before them)",
                         lo, hi - 1, hi, f);
        else
            n = snprintf(buf, len, "trials %llu..%llu are in no file (%s starts after them)", lo,
                         hi - 1, f);
        break;
    case SV_STATE_OTHER_TOTAL:
        n = snprintf(buf, len, "%s: a shard of a run of %llu trials, %s of %llu", f, hi, o, lo);
        break;
    default: /* SV_STATE_MISSING_ROWS */
        n = snprintf(buf, len,
                     "query rows %llu..%llu of the trials from %llu are in no file (beside %s)", lo,
                     hi - 1, (unsigned long long)why->trial, f);
    }
    return n < 0 ? 0 : (size_t)n;
}
