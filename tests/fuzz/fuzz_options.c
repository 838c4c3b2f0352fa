/* libFuzzer harness: the whole option parser and the size check of the CLI
 * (src/cli/parse/options.c: getopt_long over the option table), as sdpa-var runs them before the
 * engine.
 *
 * The input is the argument list, arguments separated by NUL bytes, after
 * argv[0] = "sdpa-var". Invariants:
 *   - no crash, no sanitizer report, no leak;
 *   - a rejection leaves one message line: non-empty, NUL-terminated
 *     within the buffer, no newline;
 *   - what the CLI accepts (parse and size check), the library accepts too:
 *     every configuration passes sv_spec_check and sv_engine_bytes
 *     (the CLI's guards must not be the library's only guards, and the
 *     library must not reject what the CLI promised to run);
 *   - the same list scanned as `sdpa-var merge`'s (cli_options_scan with a
 *     files list, merge.c): a rejection is one line, an acceptance puts at
 *     most argc - 1 operands in files, each one of the arguments. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

static void check_message(const char *what, const char *err, size_t errlen)
{
    const size_t len = strnlen(err, errlen);
    if (len == 0 || len == errlen || strchr(err, '\n')) {
        fprintf(stderr, "%s: bad message (%zu bytes): '%.*s'\n", what, len, (int)len, err);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    /* One buffer, arguments split at NUL: "--dk\0" "64\0" "--n\0" "3". */
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "sdpa-var";
    for (size_t i = 0; i <= size && argc <= MAX_ARGS; i += strlen(buf + i) + 1)
        argv[argc++] = buf + i;
    argv[argc] = NULL;

    /* getopt_long keeps state between calls (its position inside a group of
     * short options like "-qqq", a pointer into the previous argv);
     * cli_options_parse sets optind = 0, on which glibc starts afresh, so
     * parsing many argument lists in one process is safe. */
    static cli_options opt; /* large: off the stack */
    memset(&opt, 0, sizeof opt);
    char err[256];
    memset(err, 'x', sizeof err);
    err[sizeof err - 1] = '\0';
    if (!cli_options_parse(argc, argv, &opt, err, sizeof err)) {
        check_message("cli_options_parse", err, sizeof err);
    } else if (!opt.help && !opt.version) {
        if (!cli_options_check_sizes(&opt, err, sizeof err)) {
            check_message("cli_options_check_sizes", err, sizeof err);
        } else {
            const size_t n = opt.n_configs; /* 0 for --logits: no configuration is made */
            for (size_t i = 0; i < n; i++) {
                const sv_spec cfg = opt.configs[i].spec;
                size_t bytes = 0;
                sv_source src;
                const sv_status st = sv_spec_check(&cfg);
                const sv_status sb =
                    st == SV_OK && sv_source_draw(&cfg, &src) == SV_OK
                        ? sv_engine_bytes(&cfg, &src, &opt.exec, NULL, cfg.trials, &bytes)
                        : st;
                if (st != SV_OK || sb != SV_OK) {
                    fprintf(stderr,
                            "CLI accepted configuration %zu (d_k %zu, n_q %zu, n_k %zu),"
                            " library: check %d, bytes %d\n",
                            i, cfg.d_k, cfg.n_q, cfg.n_k, (int)st, (int)sb);
                    abort();
                }
            }
        }
    }
    cli_options_free(&opt); /* nothing after a rejection; the specs after success */

    /* merge's scan: argv[0] "merge", operands anywhere, --format, --output
     * and --help only. */
    char *files[MAX_ARGS + 1];
    size_t n = 0;
    argv[0] = "merge";
    memset(err, 'x', sizeof err);
    err[sizeof err - 1] = '\0';
    if (!cli_options_scan(argc, argv, &opt, files, &n, err, sizeof err)) {
        check_message("cli_options_scan (merge)", err, sizeof err);
    } else {
        for (size_t i = 0; i < n; i++) {
            int found = 0;
            for (int a = 1; a < argc && !found; a++)
                found = files[i] == argv[a];
            if (n >= (size_t)argc || !found) {
                fprintf(stderr, "merge: operand %zu of %zu is no argument (argc %d)\n", i, n, argc);
                abort();
            }
        }
    }
    cli_options_free(&opt);
    free(buf);
    return 0;
}
