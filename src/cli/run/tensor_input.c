/* --q, --k, --v: files to strided arrays (tensor_input.h). */
#define _POSIX_C_SOURCE 200809L
#include "tensor_input.h"

#include <errno.h>
#include <fcntl.h>
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

/* The bytes of f as an array, either format (sv_tensor_file_parse). */
static int parse_file(const cli_tensor_file *f, sv_array *a, char *err, size_t errlen)
{
    char q[80], why[256] = "";
    const sv_status st = sv_tensor_file_parse(f->map, f->len, f->name, a, why, sizeof why);
    if (st != SV_OK)
        return cli_fail(err, errlen, "%s: %s", cli_quote(q, sizeof q, f->arg),
                        why[0] ? why : sv_status_str(st));
    return 1;
}

/* The library's check of the arrays (sv_strided_check: spec NULL, among
 * themselves; else against spec, every entry read), its reason naming the
 * files. 1 when it finds nothing to say. */
static int checked(const cli_tensors *t, const sv_spec *spec, char *err, size_t errlen)
{
    sv_strided_why why;
    if (sv_strided_check(&t->arrays, spec, &why) == SV_OK || why.problem == SV_STRIDED_FINE)
        return 1;
    static const int file_of[SV_TENSORS] = {0, 1, 2, -1, 3}; /* no --g */
    char q[SV_TENSORS][80], line[512];
    const char *names[SV_TENSORS];
    for (int i = 0; i < SV_TENSORS; i++) {
        const char *arg = file_of[i] >= 0 ? t->file[file_of[i]].arg : NULL;
        names[i] = arg ? cli_quote(q[i], sizeof q[i], arg) : i == SV_TENSOR_G ? "G" : "-";
    }
    /* The library words the spec's field and any array; the CLI names its
     * options where a line is about them. */
    if (why.problem == SV_STRIDED_BOOL)
        return cli_fail(err, errlen,
                        "%s: dtype bool: --q, --k and --v hold numbers (a bool array is a --mask)",
                        names[why.tensor]);
    sv_strided_explain(&why, names, line, sizeof line);
    static const char ddof[] = "ddof: "; /* the library's subject; the CLI's option */
    if (why.problem == SV_STRIDED_DDOF && strncmp(line, ddof, sizeof ddof - 1) == 0)
        return cli_fail(err, errlen, "--ddof: '%u' %s", spec->ddof, line + sizeof ddof - 1);
    return cli_fail(err, errlen, "%s%s", why.problem == SV_STRIDED_CAUSAL ? "--" : "", line);
}

/* opt->configs from the files' sizes: one per --scale item, its scale
 * resolved by the library for the files' d_k (as validate.c's make_spec),
 * checked as a drawn one is (cli_config_check: the option and the
 * library's reason), after the files' sizes; and whether its run fits in
 * physical memory, as cli_options_check_sizes asks of random draws (a
 * sparse file, or one a few rows long with a wide d_k, asks for far more
 * than its own size). */
static int make_configs(const cli_tensors *t, cli_options *opt, char *err, size_t errlen)
{
    sv_spec sizes = {.dist = SV_DIST_NORMAL};
    const sv_status st = sv_strided_sizes(&t->arrays, &sizes);
    const cli_output out = cli_options_plan(opt, CLI_FORMAT_CSV).out;
    char qa[80], why[512];
    cli_quote(qa, sizeof qa, t->file[0].arg);
    if (st != SV_OK) /* sv_strided_check leaves none: say it anyway */
        return cli_fail(err, errlen, "%s: shapes do not match: %s", qa, sv_status_str(st));
    for (size_t i = 0; i < opt->n_configs; i++) {
        cli_config *c = &opt->configs[i];
        sv_spec s = sizes; /* and the options that apply to files */
        s.causal = c->spec.causal;
        s.window = c->spec.window;
        s.ddof = c->spec.ddof;
        (void)sv_spec_set(&s, SV_PARAM_SCALE, c->scale_name); /* parsed: options.c */
        if (sv_spec_resolve(&s) != SV_OK && !checked(t, &s, err, errlen))
            return 0; /* the arrays say why (--causal with n_q != n_k) */
        c->spec = s;
        if (!cli_config_check(opt, c, why, sizeof why))
            return cli_fail(err, errlen, "%s: d_k=%zu n_q=%zu n_k=%zu: %s", qa, s.d_k, s.n_q, s.n_k,
                            why);
        if (!cli_budget_fits(&out, c, why, sizeof why))
            return cli_fail(
                err, errlen,
                "%s: d_k=%zu n_q=%zu n_k=%zu, %llu (batch, head) pairs: the run needs %s", qa,
                s.d_k, s.n_q, s.n_k, (unsigned long long)s.trials, why);
    }
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
            cli_signal_write(STDERR_FILENO, bus_file[i].line, bus_file[i].line_len);
            _exit(CLI_EXIT_RUNTIME);
        }
    cli_signal_write(STDERR_FILENO, bus_all, bus_all_len);
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
        if (i < 3) /* a mask is batch x heads x n_q x n_k */
            (void)sv_array_to_bhnd(arr[i], opt->layout);
    }
    /* the sizes (and the memory a run needs) before the entries, which the
     * check of each configuration reads */
    int ok = checked(t, NULL, err, errlen) && make_configs(t, opt, err, errlen);
    for (size_t i = 0; ok && i < opt->n_configs; i++)
        ok = checked(t, &opt->configs[i].spec, err, errlen);
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
