/* --q, --k, --v: files to strided arrays (tensor_input.h). */
#define _POSIX_C_SOURCE 200809L
#include "tensor_input.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "interrupt.h"
#include "fail.h"

/* What a file that is not a regular one is, for the message. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* FILE[:NAME] -> f->path and f->name (tensor_input.h's rule); option:
 * "--q", "--k" or "--v", for an empty argument. */
static int split_arg(cli_tensor_file *f, const char *option, char *err, size_t errlen)
{
    struct stat st;
    char q[80];
    const char *colon = strrchr(f->arg, ':');
    size_t len = strlen(f->arg);
    int saved = 0;
    if (len == 0)
        return cli_fail(err, errlen, "%s: '' is not a file name", option);
    if (stat(f->arg, &st) != 0) {
        saved = errno;
        if (colon)
            len = (size_t)(colon - f->arg);
    }
    f->path = malloc(len + 1);
    if (!f->path)
        return cli_fail(err, errlen, "out of memory");
    memcpy(f->path, f->arg, len);
    f->path[len] = '\0';
    if (saved && colon && stat(f->path, &st) == 0) {
        f->name = colon + 1;
        if (!*f->name) /* else "FILE:" would read as FILE's only tensor */
            return cli_fail(err, errlen, "%s: no tensor name after the ':'",
                            cli_quote(q, sizeof q, f->arg));
        return 1;
    }
    if (saved)
        return cli_fail(err, errlen, "%s: %s", cli_quote(q, sizeof q, f->arg), strerror(saved));
    return 1;
}

/* Opens and maps f->path: a regular file, not empty. */
static int map_file(cli_tensor_file *f, char *err, size_t errlen)
{
    char q[80];
    cli_quote(q, sizeof q, f->path);
    /* O_NONBLOCK: opening a FIFO does not wait for a writer. */
    const int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return cli_fail(err, errlen, "%s: %s", q, strerror(errno));
    struct stat st;
    int ok = 0;
    if (fstat(fd, &st) != 0)
        cli_fail(err, errlen, "%s: %s", q, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        cli_fail(err, errlen, "%s: is %s, not a .npy or .safetensors file", q,
                 file_kind(st.st_mode));
    else if (st.st_size == 0)
        cli_fail(err, errlen, "%s: is empty, not a .npy or .safetensors file", q);
    else if ((uintmax_t)st.st_size > SIZE_MAX)
        cli_fail(err, errlen, "%s: is too large to map", q);
    else {
        f->len = (size_t)st.st_size;
        f->map = mmap(NULL, f->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (f->map == MAP_FAILED) {
            f->map = NULL;
            cli_fail(err, errlen, "%s: cannot map it: %s", q, strerror(errno));
        } else
            ok = 1;
    }
    close(fd);
    return ok;
}

/* The bytes of f as an array: .npy by its magic, else safetensors. */
static int parse_file(const cli_tensor_file *f, sv_array *a, char *err, size_t errlen)
{
    char q[80], why[256] = "";
    const unsigned char *b = f->map;
    cli_quote(q, sizeof q, f->arg);
    sv_status st;
    if (f->len >= 6 && memcmp(b, "\x93NUMPY", 6) == 0) {
        if (f->name)
            return cli_fail(err, errlen,
                            "%s: a .npy file holds one array (':NAME' picks a safetensors tensor)",
                            q);
        st = sv_npy_parse(b, f->len, a, why, sizeof why);
    } else if (f->len >= 9 && b[8] == '{') /* 8-byte size, then the JSON header */
        st = sv_safetensors_parse(b, f->len, f->name, a, why, sizeof why);
    else
        return cli_fail(err, errlen,
                        "%s: not a .npy or .safetensors file (neither magic \\x93NUMPY nor a "
                        "safetensors header)",
                        q);
    if (st != SV_OK)
        return cli_fail(err, errlen, "%s: %s", q, why[0] ? why : sv_status_str(st));
    return 1;
}

/* --layout bnhd: batch x n x heads x d (or n x heads x d) as bhnd. */
static void to_bhnd(sv_array *a)
{
    const int i = a->ndim == 4 ? 1 : 0;
    if (a->ndim < 3)
        return;
    const size_t s = a->shape[i];
    const ptrdiff_t d = a->strides[i];
    a->shape[i] = a->shape[i + 1];
    a->strides[i] = a->strides[i + 1];
    a->shape[i + 1] = s;
    a->strides[i + 1] = d;
}

static size_t batch_of(const sv_array *a)
{
    return a->ndim == 4 ? a->shape[0] : 1;
}
static size_t heads_of(const sv_array *a)
{
    return a->ndim >= 3 ? a->shape[a->ndim - 3] : 1;
}
static size_t rows_of(const sv_array *a)
{
    return a->shape[a->ndim - 2];
}
static size_t cols_of(const sv_array *a)
{
    return a->shape[a->ndim - 1];
}

/* One entry's value as a double, for the message: widened as the source
 * does (only whether it is nan, inf or -inf matters here). */
static double entry(const sv_array *a, const size_t *index)
{
    const unsigned char *p = a->data;
    for (int i = 0; i < a->ndim; i++)
        p += (ptrdiff_t)index[i] * a->strides[i];
    static const size_t size[SV_DTYPES] = {8, 4, 2, 2, 1};
    unsigned char b[8] = {0};
    const size_t n = size[a->dtype];
    for (size_t i = 0; i < n; i++)
        b[i] = a->byte_swapped ? p[n - 1 - i] : p[i];
    if (a->dtype == SV_DTYPE_FLOAT64 || a->dtype == SV_DTYPE_FLOAT32) {
        double d;
        float f;
        return a->dtype == SV_DTYPE_FLOAT64 ? (memcpy(&d, b, 8), d) : (memcpy(&f, b, 4), f);
    }
    uint16_t u; /* the half's bits in the machine's order, any byte order */
    memcpy(&u, b, 2);
    const int neg = (u >> 15) & 1;
    const unsigned exp_all = a->dtype == SV_DTYPE_FLOAT16 ? 0x7c00 : 0x7f80;
    const unsigned man = a->dtype == SV_DTYPE_FLOAT16 ? 0x03ff : 0x007f;
    if ((u & exp_all) != exp_all)
        return 0.0;
    return (u & man) ? NAN : neg ? -INFINITY : INFINITY;
}

/* "FILE: entry (batch b, head h, position i, column l) is nan". */
static int finite(const cli_tensor_file *f, const sv_array *a, char *err, size_t errlen)
{
    size_t ix[SV_ARRAY_MAX_DIMS] = {0};
    if (!sv_array_find_nonfinite(a, ix))
        return 1;
    static const char *const axis[] = {"batch", "head", "position", "column"};
    char q[80], where[160] = "";
    size_t at = 0;
    for (int i = 0; i < a->ndim; i++)
        at += (size_t)snprintf(where + at, sizeof where - at, "%s%s %zu", i ? ", " : "",
                               axis[4 - a->ndim + i], ix[i]);
    const double v = entry(a, ix);
    return cli_fail(err, errlen, "%s: entry (%s) is %s", cli_quote(q, sizeof q, f->arg), where,
                    isnan(v) ? "nan"
                    : v > 0  ? "inf"
                             : "-inf");
}

/* "(2, 1, 5, 7)": the shape of a as the file has it (before --layout). */
static void shape_text(const sv_array *a, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < a->ndim && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%zu", i ? ", " : "", a->shape[i]);
    if (at < len)
        snprintf(buf + at, len - at, ")");
}

/* --mask against Q and K: each axis 1 or batch, heads_q, n_q, n_k; no NaN
 * or +inf entry (-inf excludes a key). A bool array only as a mask. */
static int mask_ok(const cli_tensors *t, char *err, size_t errlen)
{
    const sv_array *q = &t->arrays.q, *k = &t->arrays.k, *m = &t->arrays.mask;
    const sv_array *data[3] = {q, k, &t->arrays.v};
    char ma[80], sh[128];
    for (int i = 0; i < 3; i++)
        if (t->file[i].arg && data[i]->dtype == SV_DTYPE_BOOL)
            return cli_fail(err, errlen,
                            "%s: dtype bool: Q, K and V hold numbers (a bool array "
                            "is a --mask)",
                            cli_quote(ma, sizeof ma, t->file[i].arg));
    if (!m->data)
        return 1;
    cli_quote(ma, sizeof ma, t->file[3].arg);
    shape_text(m, sh, sizeof sh);
    const size_t want[4] = {batch_of(q), heads_of(q), rows_of(q), rows_of(k)};
    for (int i = 0; i < m->ndim; i++) {
        const size_t w = want[4 - m->ndim + i];
        if (m->shape[i] != 1 && m->shape[i] != w)
            return cli_fail(err, errlen,
                            "%s: mask shape %s does not broadcast to batch x heads x n_q x n_k "
                            "= (%zu, %zu, %zu, %zu)",
                            ma, sh, want[0], want[1], want[2], want[3]);
    }
    if (m->dtype == SV_DTYPE_BOOL)
        return 1;
    size_t n[4] = {1, 1, 1, 1}, ix[4] = {0};
    for (int i = 0; i < m->ndim; i++)
        n[4 - m->ndim + i] = m->shape[i];
    for (size_t a = 0; a < n[0] * n[1] * n[2] * n[3]; a++) {
        size_t r = a;
        for (int i = 3; i >= 0; i--)
            ix[i] = r % n[i], r /= n[i];
        const double v = entry(m, ix + 4 - m->ndim);
        if (isnan(v) || v == INFINITY)
            return cli_fail(err, errlen,
                            "%s: mask entry %zu (row-major) is %s: a float mask holds finite "
                            "values, or -inf to exclude a key",
                            ma, a, isnan(v) ? "nan" : "inf");
    }
    return 1;
}

/* Entries small enough that the sums of squares of q_var, k_var and the
 * output variances stay finite (sv_entry_bound): no inf from a finite
 * file. After finite(): no NaN is left. */
static int magnitudes(const cli_tensors *t, char *err, size_t errlen)
{
    const sv_array *q = &t->arrays.q, *k = &t->arrays.k, *v = &t->arrays.v;
    const sv_array *a[3] = {q, k, v};
    const size_t n[3] = {rows_of(q) * cols_of(q), rows_of(k) * cols_of(k),
                         v->data ? rows_of(q) * cols_of(v) : 0};
    static const char *const what[3] = {
        "q_var (a sum of n_q*d_k squares)", "k_var (a sum of n_k*d_k squares)",
        "raw_out_var and scaled_out_var (sums of n_q*d_v squared outputs)"};
    for (int i = 0; i < 3; i++) {
        if (!t->file[i].arg)
            continue;
        const double m = sv_array_max_abs(a[i]), bound = sv_entry_bound(n[i]);
        char fa[80];
        if (m > bound)
            return cli_fail(err, errlen,
                            "%s: entries up to %.3g in magnitude: %s would overflow (above %.3g "
                            "for this shape); rescale the tensor",
                            cli_quote(fa, sizeof fa, t->file[i].arg), m, what[i], bound);
    }
    return 1;
}

/* K (and V) against Q: d_k, batch, heads that divide, V's rows and heads. */
static int shapes(const cli_tensors *t, int causal, char *err, size_t errlen)
{
    const sv_array *q = &t->arrays.q, *k = &t->arrays.k, *v = &t->arrays.v;
    char qa[80], ka[80], va[80] = "";
    cli_quote(qa, sizeof qa, t->file[0].arg);
    cli_quote(ka, sizeof ka, t->file[1].arg);
    if (cols_of(k) != cols_of(q))
        return cli_fail(err, errlen, "%s: d_k %zu (its last axis) differs from Q's %zu (%s)", ka,
                        cols_of(k), cols_of(q), qa);
    if (batch_of(k) != batch_of(q))
        return cli_fail(err, errlen, "%s: batch %zu differs from Q's %zu (%s)", ka, batch_of(k),
                        batch_of(q), qa);
    if (heads_of(q) % heads_of(k) != 0)
        return cli_fail(err, errlen,
                        "%s: its %zu heads do not divide Q's %zu heads (%s): grouped-query "
                        "attention needs heads_q a multiple of heads_kv",
                        ka, heads_of(k), heads_of(q), qa);
    if (causal && rows_of(q) != rows_of(k))
        return cli_fail(err, errlen, "--causal needs n_q = n_k: %s has %zu positions, %s %zu", qa,
                        rows_of(q), ka, rows_of(k));
    if (!v->data)
        return 1;
    cli_quote(va, sizeof va, t->file[2].arg);
    if (rows_of(v) != rows_of(k))
        return cli_fail(err, errlen, "%s: %zu positions differ from K's n_k = %zu (%s)", va,
                        rows_of(v), rows_of(k), ka);
    if (heads_of(v) != heads_of(k) || batch_of(v) != batch_of(k))
        return cli_fail(err, errlen, "%s: batch x heads %zu x %zu differ from K's %zu x %zu (%s)",
                        va, batch_of(v), heads_of(v), batch_of(k), heads_of(k), ka);
    return 1;
}

/* Whether the run of configuration c fits in physical memory, as
 * cli_options_check_sizes asks of random draws (a sparse file, or one a
 * few rows long with a wide d_k, asks for far more than its own size). */
static int fits(const cli_options *opt, const cli_config *c, const char *qa, char *err,
                size_t errlen)
{
    const double gib = 1024.0 * 1024.0 * 1024.0, mem = (double)cli_budget_physical();
    const cli_output out = cli_options_plan(opt, CLI_FORMAT_CSV).out;
    const double need =
        CLI_RUN_BASE_BYTES + cli_budget_config_bytes(&out, &c->spec, c->engine_bytes);
    if (need <= mem)
        return 1;
    return cli_fail(err, errlen,
                    "%s: d_k=%zu n_q=%zu n_k=%zu, %llu (batch, head) pairs: the run needs %.3g "
                    "GiB of memory; this machine has %.3g GiB",
                    qa, c->spec.d_k, c->spec.n_q, c->spec.n_k, (unsigned long long)c->spec.trials,
                    need / gib, mem / gib);
}

/* opt->configs from the files' sizes: one per --scale item, its scale
 * resolved by the library for the files' d_k (as validate.c's make_spec). */
static int make_configs(const cli_tensors *t, cli_options *opt, char *err, size_t errlen)
{
    const sv_array *q = &t->arrays.q, *k = &t->arrays.k, *v = &t->arrays.v;
    uint64_t trials = 0;
    sv_status st = sv_strided_head(&t->arrays, 0, &trials, NULL);
    char qa[80];
    cli_quote(qa, sizeof qa, t->file[0].arg);
    for (size_t i = 0; st == SV_OK && i < opt->n_configs; i++) {
        cli_config *c = &opt->configs[i];
        sv_spec s = {.d_k = cols_of(q),
                     .n_q = rows_of(q),
                     .n_k = rows_of(k),
                     .trials = trials,
                     .dist = SV_DIST_NORMAL,
                     .causal = c->spec.causal,
                     .window = c->spec.window,
                     .values = v->data != NULL,
                     .d_v = v->data ? cols_of(v) : 0,
                     .ddof = c->spec.ddof};
        sv_param p = SV_PARAM_NONE;
        (void)sv_spec_set(&s, SV_PARAM_SCALE, c->scale_name); /* parsed: options.c */
        st = sv_spec_resolve(&s); /* it checks: a fault is named after it */
        if (st != SV_OK)
            (void)sv_spec_check_param(&s, &p, NULL, NULL, 0);
        if (st == SV_OK)
            st = cli_budget_engine_bytes(&opt->exec, &s, &c->engine_bytes);
        uint64_t seen = 0; /* the visible scores: a window's or a mask's count */
        if (st != SV_OK && p == SV_PARAM_DDOF && sv_spec_scores(&s, &seen) == SV_OK)
            return cli_fail(err, errlen, "--ddof: %u is not less than the %llu scores %s of %s",
                            s.ddof, (unsigned long long)seen,
                            s.window   ? "a window shows"
                            : s.causal ? "a causal mask shows"
                                       : "(n_q*n_k)",
                            qa);
        if (st != SV_OK)
            return cli_fail(err, errlen, "%s: d_k=%zu n_q=%zu n_k=%zu: %s%s%s", qa, s.d_k, s.n_q,
                            s.n_k, sv_status_str(st), p != SV_PARAM_NONE ? ": " : "",
                            p != SV_PARAM_NONE ? sv_param_name(p) : "");
        if (t->arrays.mask.data) { /* raw logits S + M / scale stay below SV_SCORE_MAX */
            const double top = sv_mask_max_abs(&t->arrays.mask);
            char ma[80];
            if (!(top / s.scale <= SV_SCORE_MAX))
                return cli_fail(err, errlen,
                                "%s: mask entries up to %.3g in magnitude: over the scale %.3g "
                                "the raw logits S + M / scale would pass %.3g",
                                cli_quote(ma, sizeof ma, t->file[3].arg), top, s.scale,
                                SV_SCORE_MAX);
        }
        c->spec = s;
        if (!fits(opt, c, qa, err, errlen))
            return 0;
    }
    if (st != SV_OK) /* the checks above leave none: say it anyway */
        return cli_fail(err, errlen, "%s: shapes do not match: %s", qa, sv_status_str(st));
    return 1;
}

/* --- SIGBUS: a file cut short while it is mapped --------------------------- */

/* Each mapped file's address range and its line: the handler names the
 * file that the faulting address lies in (every mapped file when it lies
 * in none). Set before the handler is installed, read only by it. */
static struct {
    uintptr_t begin, end;
    char line[160];
    size_t line_len;
} bus_file[4];
static char bus_all[512];
static size_t bus_all_len;
static atomic_flag bus_taken = ATOMIC_FLAG_INIT;
static struct sigaction bus_old;
static int bus_installed;

static void bus_write(const char *p, size_t n)
{
    while (n > 0) {
        const ssize_t w = write(STDERR_FILENO, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* write(2), _exit(2), pause(2) and a lock-free flag: async-signal-safe.
 * Only the first thread to fault writes; the others wait for its _exit. */
static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)context;
    if (atomic_flag_test_and_set(&bus_taken))
        for (;;)
            pause();
    cli_interrupt_abandon(); /* the rows already out stay whole, JSON closed */
    const uintptr_t at = info ? (uintptr_t)info->si_addr : 0;
    for (int i = 0; i < 4; i++)
        if (bus_file[i].line_len && at >= bus_file[i].begin && at < bus_file[i].end) {
            bus_write(bus_file[i].line, bus_file[i].line_len);
            _exit(CLI_EXIT_RUNTIME);
        }
    bus_write(bus_all, bus_all_len);
    _exit(CLI_EXIT_RUNTIME);
}

/* File i of t is mapped: its line, the line naming all, the handler. */
static void guard_add(const cli_tensors *t, int i)
{
    char q[80];
    const cli_tensor_file *f = &t->file[i];
    const int n = snprintf(bus_file[i].line, sizeof bus_file[i].line,
                           CLI_PROG ": %s: the file shrank while it was read (SIGBUS)\n",
                           cli_quote(q, sizeof q, f->path));
    bus_file[i].begin = (uintptr_t)f->map;
    bus_file[i].end = (uintptr_t)f->map + f->len;
    bus_file[i].line_len = n > 0 && (size_t)n < sizeof bus_file[i].line ? (size_t)n : 0;
    size_t at = (size_t)snprintf(bus_all, sizeof bus_all, CLI_PROG ": ");
    for (int k = 0, first = 1; k < 4; k++)
        if (t->file[k].map) {
            at += (size_t)snprintf(bus_all + at, sizeof bus_all - at, "%s%s", first ? "" : ", ",
                                   cli_quote(q, sizeof q, t->file[k].path));
            first = 0;
        }
    at += (size_t)snprintf(bus_all + at, sizeof bus_all - at,
                           ": a file shrank while it was read (SIGBUS)\n");
    bus_all_len = at < sizeof bus_all ? at : 0;
    if (bus_installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    bus_installed = sigaction(SIGBUS, &sa, &bus_old) == 0;
}

/* The handler found before guard_add back; no file mapped. */
static void guard_end(void)
{
    if (bus_installed)
        sigaction(SIGBUS, &bus_old, NULL);
    bus_installed = 0;
    memset(bus_file, 0, sizeof bus_file);
    bus_all_len = 0;
}

/* --- opening and closing ------------------------------------------------------ */

int cli_tensors_open(cli_tensors *t, cli_options *opt, char *err, size_t errlen)
{
    static const cli_option_id ids[4] = {CLI_OPT_Q, CLI_OPT_K, CLI_OPT_V, CLI_OPT_MASK};
    static const char *const options[4] = {"--q", "--k", "--v", "--mask"};
    memset(t, 0, sizeof *t);
    sv_array *arr[4] = {&t->arrays.q, &t->arrays.k, &t->arrays.v, &t->arrays.mask};
    for (int i = 0; i < 4; i++) {
        cli_tensor_file *f = &t->file[i];
        f->arg = opt->given[ids[i]] ? opt->arg[ids[i]] : NULL;
        if (!f->arg)
            continue;
        if (!split_arg(f, options[i], err, errlen) || !map_file(f, err, errlen)) {
            cli_tensors_close(t);
            return 0;
        }
        guard_add(t, i); /* parsing and the finite scan read the mapping too */
        if (!parse_file(f, arr[i], err, errlen)) {
            cli_tensors_close(t);
            return 0;
        }
        if (opt->layout_bnhd && i < 3) /* a mask is batch x heads x n_q x n_k */
            to_bhnd(arr[i]);
    }
    /* the sizes before the finite scan, which reads every byte */
    int ok = shapes(t, opt->base.causal, err, errlen) && mask_ok(t, err, errlen) &&
             make_configs(t, opt, err, errlen);
    for (int i = 0; ok && i < 3; i++)
        ok = !t->file[i].arg || finite(&t->file[i], arr[i], err, errlen);
    ok = ok && magnitudes(t, err, errlen);
    if (!ok)
        cli_tensors_close(t);
    return ok;
}

void cli_tensors_close(cli_tensors *t)
{
    guard_end();
    for (int i = 0; i < 4; i++) {
        if (t->file[i].map)
            munmap(t->file[i].map, t->file[i].len);
        free(t->file[i].path);
        t->file[i].map = NULL;
        t->file[i].path = NULL;
    }
}
