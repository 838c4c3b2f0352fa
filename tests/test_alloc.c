/* Out of memory, SQLite's way (issue 33): an allocator (alloc.h) that
 * fails the N-th allocation, for every N from 1 to the number a call makes,
 * once and from N on. Each call must return SV_ENOMEM when an allocation
 * failed (SV_OK when none did), free every block it took (the count of
 * live blocks back to 0), and leave its outputs as its docstring says:
 * untouched (the engine's statistics and taps) or zeroed (a state). The
 * same scenarios without a failing allocation give the bits of a run with
 * libc's allocator. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

typedef struct counter {
    atomic_long calls, live;
    long fail_at;   /* the call that fails (1-based); 0: none */
    int persistent; /* fail every call from fail_at on */
    atomic_int failed;
} counter;

static int fails(counter *c)
{
    const long k = atomic_fetch_add(&c->calls, 1) + 1;
    if (c->fail_at && (k == c->fail_at || (c->persistent && k > c->fail_at))) {
        atomic_store(&c->failed, 1);
        return 1;
    }
    return 0;
}

static void *t_malloc(void *ctx, size_t n)
{
    counter *c = ctx;
    if (fails(c))
        return NULL;
    void *p = malloc(n);
    if (p)
        atomic_fetch_add(&c->live, 1);
    return p;
}

static void *t_realloc(void *ctx, void *p, size_t n)
{
    counter *c = ctx;
    if (fails(c))
        return NULL; /* p untouched, as realloc */
    return realloc(p, n);
}

static void t_free(void *ctx, void *p)
{
    counter *c = ctx;
    if (p)
        atomic_fetch_sub(&c->live, 1);
    free(p);
}

/* A scenario: runs its calls, frees what they gave, and says whether its
 * outputs were left as documented after an error (1) or not (0). *st is
 * the first status other than SV_OK. The output it keeps in @p keep
 * (keep_len bytes) is compared with the run without failures. */
typedef int (*scenario)(sv_status *st, unsigned char *keep, size_t keep_len);

static sv_spec spec_small(int values, int grad)
{
    sv_spec s = {.d_k = 8, .n_q = 40, .n_k = 50, .trials = 3, .seed = 5};
    s.values = values;
    s.grad = grad;
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    return s;
}

static int sentinel(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0xA5)
            return 0;
    return 1;
}

/* sv_engine_run of draws, 2 threads, with a histogram tap. */
static int engine_draws(sv_status *st, unsigned char *keep, size_t keep_len)
{
    const sv_spec s = spec_small(1, 1);
    sv_source src;
    *st = sv_source_draw(&s, &src);
    if (*st != SV_OK)
        return 1;
    sv_trial_stats out[3];
    uint64_t hr[17], hs[17];
    memset(out, 0xA5, sizeof out);
    memset(hr, 0, sizeof hr);
    memset(hs, 0, sizeof hs);
    sv_taps taps = {
        .hist_bins = 16, .hist_lo = -20, .hist_hi = 20, .hist_raw = hr, .hist_scaled = hs};
    const sv_exec exec = {.threads = 2};
    *st = sv_engine_run(&s, &src, &exec, &taps, 0, 3, out);
    if (*st != SV_OK) {
        uint64_t zero[17] = {0};
        return sentinel(out, sizeof out) && !memcmp(hr, zero, sizeof hr) &&
               !memcmp(hs, zero, sizeof hs);
    }
    memcpy(keep, out, keep_len < sizeof out ? keep_len : sizeof out);
    return 1;
}

/* The run driver (run.h) in chunks of 2: its runner, chunk buffer,
 * partial and summary; nothing left, *out untouched on a failure. */
static int run_driver(sv_status *st, unsigned char *keep, size_t keep_len)
{
    sv_spec s = spec_small(0, 0);
    s.trials = 5;
    sv_source src;
    if ((*st = sv_spec_resolve(&s)) != SV_OK || (*st = sv_source_draw(&s, &src)) != SV_OK)
        return 1;
    sv_summary sum;
    memset(&sum, 0xA5, sizeof sum);
    const sv_exec exec = {.threads = 1};
    const sv_run_options opt = {.chunk = 2, .want = SV_RUN_ALL, .observed = NAN};
    *st = sv_run(&s, &src, &exec, NULL, &opt, &sum);
    if (*st != SV_OK)
        return sentinel(&sum, sizeof sum);
    memcpy(keep, &sum.mean, keep_len < sizeof sum.mean ? keep_len : sizeof sum.mean);
    return 1;
}

/* sv_engine_run over caller arrays (a strided source), causal. */
static int engine_strided(sv_status *st, unsigned char *keep, size_t keep_len)
{
    enum { N = 33, D = 4 };
    static double q[2 * N * D], k[2 * N * D];
    for (size_t i = 0; i < 2 * N * D; i++) {
        q[i] = sin(0.7 * (double)i);
        k[i] = cos(1.3 * (double)i);
    }
    sv_strided arr = {.q = {.data = q,
                            .dtype = SV_DTYPE_FLOAT64,
                            .ndim = 3,
                            .shape = {2, N, D},
                            .strides = {N * D * 8, D * 8, 8}},
                      .k = {.data = k,
                            .dtype = SV_DTYPE_FLOAT64,
                            .ndim = 3,
                            .shape = {2, N, D},
                            .strides = {N * D * 8, D * 8, 8}}};
    sv_spec s = {.d_k = D, .n_q = N, .n_k = N, .trials = 2, .causal = 1};
    if ((*st = sv_spec_resolve(&s)) != SV_OK)
        return 1;
    sv_source src;
    if ((*st = sv_source_strided(&arr, &src)) != SV_OK)
        return 1;
    sv_trial_stats out[2];
    memset(out, 0xA5, sizeof out);
    const sv_exec exec = {.threads = 2};
    *st = sv_engine_run(&s, &src, &exec, NULL, 0, 2, out);
    if (*st != SV_OK)
        return sentinel(out, sizeof out);
    memcpy(keep, out, keep_len < sizeof out ? keep_len : sizeof out);
    return 1;
}

/* A partial grown from a small capacity over two blocks, merged with the
 * next range, then a summary of it. */
static sv_trial_stats *fake_trials(size_t n)
{
    sv_trial_stats *t = calloc(n, sizeof *t);
    double *f = (double *)t;
    for (size_t i = 0; i < n * (sizeof *t / sizeof(double)); i++)
        f[i] = 1.0 + 0.001 * (double)(i % 977);
    return t;
}

static int partial_summary(sv_status *st, unsigned char *keep, size_t keep_len)
{
    enum { T = SV_SUMMARY_BLOCK + 300 };
    static sv_trial_stats *t;
    if (!t)
        t = fake_trials(T); /* libc's: made once, outside the counted calls */
    sv_spec s = {.d_k = 4, .n_q = 2, .n_k = 2, .trials = T};
    if ((*st = sv_spec_resolve(&s)) != SV_OK)
        return 1;
    sv_partial *a, *b;
    if ((*st = sv_partial_create(0, 8, &a)) != SV_OK)
        return 1;
    if ((*st = sv_partial_add(a, t, T - 100)) != SV_OK ||
        (*st = sv_partial_create(T - 100, 100, &b)) != SV_OK) {
        sv_partial_free(a);
        return 1;
    }
    if ((*st = sv_partial_add(b, t + T - 100, 100)) == SV_OK)
        *st = sv_partial_merge(a, b);
    sv_partial_free(b);
    sv_summary sum;
    memset(&sum, 0xA5, sizeof sum);
    int ok = 1;
    if (*st == SV_OK) {
        *st = sv_summary_from_partial(&s, a, NAN, &sum);
        ok = *st == SV_OK || sentinel(&sum, sizeof sum);
    }
    sv_partial_free(a);
    if (*st == SV_OK)
        memcpy(keep, &sum.mean, keep_len < sizeof sum.mean ? keep_len : sizeof sum.mean);
    /* the streaming summary of the same trials */
    sv_summary_acc *acc;
    sv_summary sum2;
    memset(&sum2, 0xA5, sizeof sum2);
    if (*st == SV_OK && (*st = sv_summary_begin(&s, &acc)) == SV_OK) {
        sv_status e = sv_summary_add(acc, t, 1000);
        if (e == SV_OK)
            e = sv_summary_add(acc, t + 1000, T - 1000);
        const sv_status e2 = sv_summary_end(acc, NAN, e == SV_OK ? &sum2 : NULL);
        *st = e != SV_OK ? e : e2;
        if (*st != SV_OK)
            ok = ok && sentinel(&sum2, sizeof sum2);
        else if (memcmp(&sum.mean, &sum2.mean, sizeof sum.mean) != 0)
            ok = 0; /* the same trials: the same bits */
    }
    return ok;
}

/* Two trial shards as bytes (made once with libc's allocator), decoded,
 * merged and summarised under the counted allocator. */
static unsigned char *shard_bytes(uint64_t first, uint64_t count, size_t *len)
{
    sv_spec s = spec_small(0, 0);
    s.trials = first + count;
    sv_source src;
    const sv_exec exec = {.threads = 1};
    CHECK_STATUS(sv_source_draw(&s, &src), SV_OK);
    sv_trial_stats t[8];
    CHECK_STATUS(sv_engine_run(&s, &src, &exec, NULL, first, count, t), SV_OK);
    sv_state st = {
        .n_configs = 1, .configs = calloc(1, sizeof(sv_state_config)), .trials_total = 5};
    strcpy(st.version, sv_version());
    strcpy(st.isa, "default");
    strcpy(st.blas, "unknown");
    sv_state_config *c = st.configs;
    *c = (sv_state_config){.spec = s,
                           .observed = NAN,
                           .trial_first = first,
                           .trial_count = count,
                           .row_begin = 0,
                           .row_end = s.n_q};
    c->spec.trials = count;
    strcpy(c->scale_name, "sqrt");
    CHECK_STATUS(sv_partial_create(first, count, &c->trials), SV_OK);
    CHECK_STATUS(sv_partial_add(c->trials, t, (size_t)count), SV_OK);
    *len = 0;
    CHECK_STATUS(sv_state_encode(&st, NULL, 0, len), SV_ERANGE);
    unsigned char *b = malloc(*len);
    CHECK_STATUS(sv_state_encode(&st, b, *len, len), SV_OK);
    sv_state_free(&st);
    return b;
}

static int states(sv_status *st, unsigned char *keep, size_t keep_len)
{
    static unsigned char *b[2];
    static size_t len[2];
    if (!b[0]) {
        b[0] = shard_bytes(0, 3, &len[0]);
        b[1] = shard_bytes(3, 2, &len[1]);
    }
    const sv_state zero = {0};
    sv_state s[2], m;
    int ok = 1;
    *st = SV_OK;
    for (int i = 0; i < 2; i++) {
        memset(&s[i], 0xA5, sizeof s[i]);
        if (*st == SV_OK) {
            *st = sv_state_decode(b[i], len[i], &s[i]);
            if (*st != SV_OK)
                ok = !memcmp(&s[i], &zero, sizeof zero);
        } else {
            s[i] = zero;
        }
    }
    if (*st == SV_OK) {
        const sv_state *const both[2] = {&s[1], &s[0]};
        memset(&m, 0xA5, sizeof m);
        *st = sv_state_merge(both, 2, 1, &m, NULL);
        if (*st != SV_OK)
            ok = !memcmp(&m, &zero, sizeof zero);
        else {
            sv_spec spec;
            sv_summary sum;
            memset(&sum, 0xA5, sizeof sum);
            *st = sv_state_summary(&m, 0, &spec, &sum);
            if (*st == SV_OK)
                memcpy(keep, &sum.mean, keep_len < sizeof sum.mean ? keep_len : sizeof sum.mean);
            else
                ok = sentinel(&sum, sizeof sum);
            sv_state_free(&m);
        }
    }
    sv_state_free(&s[0]);
    sv_state_free(&s[1]);
    return ok;
}

/* A safetensors file of one tensor (the library's own blocks; cJSON's
 * are its own hooks'). */
static int safetensors(sv_status *st, unsigned char *keep, size_t keep_len)
{
    static const char head[] =
        "{\"q\":{\"dtype\":\"F64\",\"shape\":[2,2],\"data_offsets\":[0,32]}}";
    static unsigned char file[8 + sizeof head - 1 + 32];
    const uint64_t n = sizeof head - 1;
    for (int i = 0; i < 8; i++)
        file[i] = (unsigned char)(n >> (8 * i));
    memcpy(file + 8, head, n);
    const double x[4] = {1, 2, 3, 4};
    memcpy(file + 8 + n, x, sizeof x);
    sv_array a;
    memset(&a, 0xA5, sizeof a);
    char why[128];
    *st = sv_safetensors_parse(file, sizeof file, "q", &a, why, sizeof why);
    if (*st == SV_OK) {
        memcpy(keep, &a.shape, keep_len < sizeof a.shape ? keep_len : sizeof a.shape);
        return 1;
    }
    return *st == SV_EUNSUPPORTED || sentinel(&a, sizeof a); /* no cJSON in this build */
}

static void sweep(const char *what, scenario fn, int persistent)
{
    unsigned char want[512], got[512];
    counter c = {0};
    const sv_allocator al = {t_malloc, t_realloc, t_free, &c};
    /* without failures: the bits of libc's allocator, and the count */
    sv_status st;
    memset(want, 0, sizeof want);
    CHECK_STATUS(sv_allocator_set(NULL), SV_OK);
    CHECK(fn(&st, want, sizeof want));
    if (st == SV_EUNSUPPORTED)
        return;
    CHECK_STATUS(st, SV_OK);
    CHECK_STATUS(sv_allocator_set(&al), SV_OK);
    memset(got, 0, sizeof got);
    CHECK(fn(&st, got, sizeof got));
    CHECK_STATUS(st, SV_OK);
    CHECK_MEM_EQ(got, want, sizeof want);
    const long total = atomic_load(&c.calls);
    CHECK_EQ(atomic_load(&c.live), 0);
    CHECK_GT(total, 0);
    int bad = 0;
    for (long k = 1; k <= total && bad < 3; k++) {
        atomic_store(&c.calls, 0);
        atomic_store(&c.live, 0);
        atomic_store(&c.failed, 0);
        c.fail_at = k;
        c.persistent = persistent;
        memset(got, 0, sizeof got);
        const int kept = fn(&st, got, sizeof got);
        const int failed = atomic_load(&c.failed);
        const long live = atomic_load(&c.live);
        int ok = failed ? st == SV_ENOMEM && kept : st == SV_OK;
        ok = ok && live == 0 && (failed || !memcmp(got, want, sizeof want));
        if (!ok) {
            bad++;
            fprintf(stderr,
                    "%s: allocation %ld of %ld failed%s: status %s, outputs %s, %ld "
                    "blocks left\n",
                    what, k, total, persistent ? " (and after)" : "", sv_status_str(st),
                    kept ? "as documented" : "changed", live);
        }
        CHECK(ok);
    }
    c.fail_at = 0;
    CHECK_STATUS(sv_allocator_set(NULL), SV_OK);
    printf("%s: %ld allocations, each failed%s\n", what, total, persistent ? " and after" : "");
}

int main(void)
{
    /* a bad allocator is refused and the one in use kept */
    const sv_allocator half = {t_malloc, NULL, t_free, NULL};
    CHECK_STATUS(sv_allocator_set(&half), SV_EINVAL);
    CHECK_EQ(sv_struct_size("sv_allocator"), sizeof(sv_allocator));
    for (int persistent = 0; persistent < 2; persistent++) {
        sweep("engine draws", engine_draws, persistent);
        sweep("engine strided", engine_strided, persistent);
        sweep("partial and summary", partial_summary, persistent);
        sweep("run driver", run_driver, persistent);
        sweep("states", states, persistent);
        sweep("safetensors", safetensors, persistent);
    }
    return CHECK_DONE();
}
