/* `sdpa-var merge`: state files (shards) in, what one run prints out.
 * The files are read here; decoding, the checks and the merge are the
 * library's (sdpa_var/state.h), so Python's sdpa_var.merge gives the same
 * numbers. Output goes through the run's own sinks, from the specs and
 * summaries the states carry: merge has no configuration of its own. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "options.h"
#include "output_file.h"
#include "run.h"
#include "sink.h"

static const char usage[] = /* the formats merge writes: cli_merge_formats */
    "Usage: sdpa-var merge [--format %s] [--output FILE] FILE...\n"
    "Merges state files written by `sdpa-var --format state` (shards of trials\n"
    "with --first-trial, of query rows with --q-rows, in any order; - reads\n"
    "stdin) and prints what one run of all their trials prints (to FILE with\n"
    "--output: written whole or not at all).\n";

/* The bytes of path ("-": stdin), malloc'ed; NULL and errno on failure. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char *buf = NULL, chunk[1 << 16];
    FILE *m = f ? open_memstream(&buf, len) : NULL;
    for (size_t k; m && (k = fread(chunk, 1, sizeof chunk, f)) > 0;)
        fwrite(chunk, 1, k, m);
    int e = !f ? errno : !m ? ENOMEM : ferror(f) ? (errno ? errno : EIO) : 0;
    if (m && fclose(m) != 0 && !e) /* the memory stream's: out of memory */
        e = ENOMEM;
    if (f && f != stdin)
        fclose(f);
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    return (unsigned char *)buf;
}

/* One line on stderr when shards s[0 .. n) were computed with other
 * instruction sets or BLAS kernels (named by files[], or ranks when
 * NULL): their merge holds within the cross-machine tolerance only. */
static void note_kernels(const sv_state *const *s, size_t n, char *const *files)
{
    for (size_t i = 1; i < n; i++)
        if (strcmp(s[i]->isa, s[0]->isa) != 0 || strcmp(s[i]->blas, s[0]->blas) != 0) {
            cli_error(0,
                      "merge: note: %s was computed with %s/%s, %s with %s/%s: the numbers agree "
                      "with one run within a relative 1e-9, not to the bit (docs/robustness.md)",
                      files ? files[0] : "rank 0", s[0]->isa, s[0]->blas,
                      files ? files[i] : "another rank", s[i]->isa, s[i]->blas);
            return;
        }
}

int cli_state_write(const sv_state *m, const char *who)
{
    size_t len = 0;
    unsigned char *buf = NULL;
    int ok = sv_state_encode(m, NULL, 0, &len) == SV_ERANGE && (buf = malloc(len)) &&
             sv_state_encode(m, buf, len, &len) == SV_OK;
    if (!ok)
        cli_error(0, "%s%s", who, sv_status_str(SV_ENOMEM));
    else if (!(ok = cli_write_all(STDOUT_FILENO, buf, len)))
        cli_error(0, "error writing %s: %s", cli_output_name(), strerror(errno));
    free(buf);
    return ok;
}

/* The merged state written in @p format, through the run's sinks. */
static int merge_write(const sv_state *m, cli_format format)
{
    if (format == CLI_FORMAT_STATE)
        return cli_state_write(m, "merge: ");
    cli_config *cfg = calloc(m->n_configs, sizeof *cfg);
    sv_summary *sum = calloc(m->n_configs, sizeof *sum);
    int ok = cfg && sum;
    for (size_t i = 0; ok && i < m->n_configs; i++) {
        const sv_status st = sv_state_summary(m, i, &cfg[i].spec, &sum[i]);
        memcpy(cfg[i].scale_name, m->configs[i].scale_name, sizeof cfg[i].scale_name);
        if (st != SV_OK)
            ok = cli_error(0, "merge: %s", sv_status_str(st));
    }
    const cli_plan plan = {
        .configs = cfg,
        .count = m->n_configs,
        .out = {.format = format, .kind = SV_OUTPUT_SUMMARY, .observed = m->configs[0].observed}};
    cli_sink sink;
    if (ok && !cli_sink_begin(&sink, STDOUT_FILENO, &plan))
        ok = cli_error(0, "merge: %s", sv_status_str(SV_ENOMEM));
    else if (ok) {
        for (size_t i = 0; ok && i < m->n_configs; i++) {
            const sv_row_view v = {.spec = &cfg[i].spec,
                                   .scale_name = cfg[i].scale_name,
                                   .stats = &sum[i].mean,
                                   .summary = &sum[i]};
            ok = cli_sink_row(&sink, &v) && cli_sink_commit(&sink);
        }
        ok = ok && cli_sink_end(&sink);
        if (!ok) {
            cli_sink_abort(&sink);
            cli_error(0, "error writing %s: %s", cli_output_name(),
                      sink.write_errno ? strerror(sink.write_errno) : "out of memory");
        }
    }
    free(cfg);
    free(sum);
    return ok;
}

int cli_merge_states(const sv_state *const *sp, size_t n, cli_format format, char *const *files,
                     const char *who)
{
    sv_state m;
    sv_state_why why;
    const sv_status s = sv_state_merge(sp, n, format != CLI_FORMAT_STATE, &m, &why);
    if (s == SV_EMISMATCH && files) {
        /* Sized first: a line naming two long paths is not cut. */
        const char *const *names = (const char *const *)files;
        const size_t len = sv_state_why_text(&why, sp, names, NULL, 0) + 1;
        char *line = malloc(len);
        if (line)
            sv_state_why_text(&why, sp, names, line, len);
        cli_error(0, "merge: %s", line ? line : sv_state_problem_str(why.problem));
        free(line);
    } else if (s != SV_OK)
        cli_error(0, "%s: %s", who, sv_status_str(s));
    else
        note_kernels(sp, n, files);
    const int ok = s == SV_OK && merge_write(&m, format);
    if (s == SV_OK)
        sv_state_free(&m);
    return ok;
}

/* Reads and decodes every file; the merge; the output. */
static int merge_files(char **files, size_t n, cli_format format)
{
    sv_state *st = calloc(n, sizeof *st);
    const sv_state **sp = calloc(n, sizeof(const sv_state *));
    int ok = st && sp;
    for (size_t i = 0; ok && i < n; i++) {
        size_t len = 0;
        unsigned char *b = slurp(files[i], &len);
        if (!b) {
            ok = cli_error(0, "merge: %s: %s", files[i], strerror(errno));
            break;
        }
        const sv_status s = sv_state_decode(b, len, &st[i]);
        if (s != SV_OK) { /* sized first: a long path is not cut */
            const size_t need = sv_state_decode_text(b, len, s, files[i], NULL, 0) + 1;
            char *line = malloc(need);
            if (line)
                sv_state_decode_text(b, len, s, files[i], line, need);
            cli_error(0, "merge: %s", line ? line : sv_status_str(s));
            free(line);
        }
        free(b);
        ok = ok && s == SV_OK;
        sp[i] = &st[i];
    }
    ok = ok && cli_merge_states(sp, n, format, files, "merge");
    for (size_t i = 0; st && i < n; i++)
        sv_state_free(&st[i]);
    free(st);
    free(sp);
    return ok ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
}

/* Options anywhere among the files, read by the main command's scanner
 * (cli_options_scan with a files list: its table, its one line for a
 * refusal); "-" is stdin, "--" ends the options. */
int cli_merge(int argc, char **argv, int mpi)
{
    static cli_options opt; /* large (the --dk list): off the stack */
    char err[256];
    char **files = malloc((size_t)argc * sizeof *files);
    size_t n = 0;
    if (!files)
        return cli_error(CLI_EXIT_RUNTIME, "merge: %s", sv_status_str(SV_ENOMEM));
    cli_output_file of; /* --output: written whole or not at all */
    const char *output = NULL;
    int status = CLI_EXIT_USAGE;
    const int scanned = cli_options_scan(argc, argv, &opt, files, &n, err, sizeof err);
    if (!scanned || (!opt.given[CLI_OPT_HELP] && n == 0))
        cli_error(0, "merge: %s (try '%s merge --help')", scanned ? "no state files" : err,
                  CLI_PROG);
    else if (opt.given[CLI_OPT_HELP]) {
        char names[80] = "";
        for (const char *const *f = cli_merge_formats; *f; f++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? "|" : "", *f);
        printf(usage, names);
        status = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
    } else if (opt.out.format == CLI_FORMAT_STATE && !opt.arg[CLI_OPT_OUTPUT] && !mpi &&
               isatty(STDOUT_FILENO)) /* as the main command: no bytes on a terminal */
        cli_error(0, "merge: --format state writes bytes: redirect stdout to a file or use "
                     "--output FILE");
    else if ((output = opt.arg[CLI_OPT_OUTPUT]) &&
             !cli_output_file_open(&of, output, err, sizeof err))
        status = cli_error(CLI_EXIT_RUNTIME, "merge: %s", err);
    else {
        const cli_format format = opt.out.format != CLI_FORMAT_AUTO ? opt.out.format
                                  : !mpi && isatty(STDOUT_FILENO)   ? CLI_FORMAT_TABLE
                                                                    : CLI_FORMAT_CSV;
        status = merge_files(files, n, format);
        if (output)
            status = cli_output_file_close(&of, status);
    }
    free(files);
    return status;
}
