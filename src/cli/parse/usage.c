/* --help, generated from the option table and validate.c's rules. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

/* "  -d, --dk LIST" then the help text from column 23, and the range and
 * default (the table's, or the parameter's) at the end. */
static void usage_option(FILE *f, const cli_option_def *d)
{
    char head[64], tail[96] = "";
    int n = snprintf(head, sizeof head, "  %c%c%c --%s%s%s", d->short_name ? '-' : ' ',
                     d->short_name ? d->short_name : ' ', d->short_name ? ',' : ' ', d->name,
                     d->metavar ? " " : "", d->metavar ? d->metavar : "");
    if (n < 22)
        fprintf(f, "%s%*s", head, 23 - n, "");
    else
        fprintf(f, "%s\n%23s", head, "");
    if (d->kind == CLI_ARG_COUNT && d->hi < CLI_SIZE_MAX)
        snprintf(tail, sizeof tail, "%.0f to %.0f", d->lo, d->hi);
    else if (d->kind == CLI_ARG_REAL && isfinite(d->lo))
        snprintf(tail, sizeof tail, "%g to %g", d->lo, d->hi);
    else if (d->kind == CLI_ARG_ABOVE)
        snprintf(tail, sizeof tail, "> %g", d->lo);
    if (d->def)
        snprintf(tail + strlen(tail), sizeof tail - strlen(tail), "%sdefault %s",
                 tail[0] ? "; " : "", d->def);
    const char *last = strrchr(d->help, '\n');
    last = last ? last + 1 : d->help;
    for (const char *p = d->help; *p; p++)
        fputs(*p == '\n' ? "\n                       " : (char[]){*p, '\0'}, f);
    if (tail[0] && strlen(last) + strlen(tail) + 26 <= 79)
        fprintf(f, " (%s)", tail);
    else if (tail[0])
        fprintf(f, "\n%23s(%s)", "", tail);
    fputc('\n', f);
}

/* @p buf = @p dir, and "/" and the first @p n bytes of @p rel if @p rel,
 * cut (never overrun) to @p len. */
static void put_path(char *buf, size_t len, const char *dir, const char *rel, size_t n)
{
    size_t k = strlen(dir) < len ? strlen(dir) : len - 1;
    memcpy(buf, dir, k);
    if (rel && k + 1 < len) {
        buf[k++] = '/';
        n = n < len - 1 - k ? n : len - 1 - k;
        memcpy(buf + k, rel, n);
        k += n;
    }
    buf[k] = '\0';
}

/* Where this program's data are: the first of @p rels (paths from the
 * program's directory to the data, ':'-separated, e.g. "../share/sdpa-var")
 * that holds @p probe beside the running executable, so that an install
 * under any prefix (~/.local, a venv, a .deb) names its own; else the build
 * tree's @p source; else the configured @p full. The wheel's program has no
 * @p source or @p full (empty: its build directories are gone once pip
 * installs it) and names its first candidate. */
static void data_dir(char *buf, size_t len, const char *rels, const char *full, const char *source,
                     const char *probe)
{
    char exe[PATH_MAX], path[PATH_MAX + 64];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
    if (slash)
        *slash = '\0';
    for (const char *rel = rels; slash && *rel;) {
        const size_t k = strcspn(rel, ":");
        snprintf(path, sizeof path, "%s/%.*s/%s", exe, (int)k, rel, probe);
        rel += k + (rel[k] == ':');
        if (access(path, R_OK) != 0)
            continue;
        char *real = realpath(path, NULL); /* "/usr/bin/../share": say /usr/share */
        char *name = real ? real : path;
        *strrchr(name, '/') = '\0'; /* the probe's directory */
        put_path(buf, len, name, NULL, 0);
        free(real);
        return;
    }
    snprintf(path, sizeof path, "%s/%s", source, probe);
    if (source[0] && access(path, R_OK) == 0)
        put_path(buf, len, source, NULL, 0);
    else if (full[0] || !slash)
        put_path(buf, len, full, NULL, 0);
    else
        put_path(buf, len, exe, rels, strcspn(rels, ":"));
}

void cli_options_usage(FILE *f)
{
    static const char *const sections[] = {
        "Experiment:\n",
        "\nOutput:\n",
        "\nPerformance (results are the same bits for every value):\n",
        "\n",
        "\nMeasured Q and K (instead of random draws; one row per head):\n",
        "\nGiven logits (instead of Q and K: a slide's own rows):\n",
    };
    fputs("Usage: sdpa-var [OPTION]...\n"
          "  or:  sdpa-var --q FILE[:NAME] --k FILE[:NAME] [--v FILE[:NAME]] [OPTION]...\n"
          "  or:  sdpa-var --logits ROW [--logits ROW]... [--dk N] [--scale LIST]\n"
          "Draw random queries Q (n_q x d_k) and keys K (n_k x d_k) with mean 0 and\n"
          "variance 1, or read them from .npy or .safetensors files, and compare the\n"
          "statistics of the raw scores QK^T and of the scaled logits QK^T/sqrt(d_k)\n"
          "(Vaswani et al. 2017) with theory.\n\n",
          f);
    int section = -1;
    for (int id = 0; id < CLI_OPT_COUNT; id++) {
        const cli_option_def d = cli_option_row((cli_option_id)id); /* a parameter's bounds */
        if (CLI_SECTION(d.section) != section)
            fputs(sections[section = CLI_SECTION(d.section)], f);
        usage_option(f, &d);
    }
    fprintf(f,
            "\n"
            "One configuration per --scale, --dist, --init and --dk value (scale outer,\n"
            "then dist, then init, d_k inner), at most %d in all.\n"
            "Numbers are plain decimal: digits; reals may add a leading '-', a '.' and\n"
            "an exponent (1e-3). No spaces (but blanks around the items of a\n"
            "--logits, --logits-file or --upstream row), no leading '+', no hex, inf\n"
            "or nan.\n"
            "Integers may take a '.' and an exponent when exact: 1e5, 1.2e3.\n",
            CLI_CONFIGS_MAX);
    cli_options_rules_usage(f);
    fprintf(f,
            "\n"
            "Environment:\n"
            "  OMP_NUM_THREADS      threads when --threads is not given: a count from 1\n"
            "                       to %d; of a list such as '4,2' (nested levels)\n"
            "                       the first is used, sdpa-var nests none\n",
            CLI_THREADS_MAX);
    char gp[PATH_MAX], doc[PATH_MAX];
    data_dir(gp, sizeof gp, SV_DATA_REL, SV_SCRIPTS_DIR, SV_SOURCE_SCRIPTS, "variance_vs_dk.gp");
    data_dir(doc, sizeof doc, SV_DOC_REL, SV_DOC_DIR, SV_SOURCE_DOCS, "columns.md");
    fprintf(f,
            "\n"
            "Examples:\n"
            "  sdpa-var --dk 64 --n 1111                  raw variance ~64, scaled ~1\n"
            "  sdpa-var --dk 2 --n 2 --trials 100000 --observed 1.6\n"
            "                                             why numpy printed 1.6, not 2\n"
            "  sdpa-var --dk 1:1024 --n 1111 --format gnuplot --output v.png | gnuplot\n"
            "                                             variance against d_k, drawn\n"
            "                                             into v.png (or .pdf, .svg)\n"
            "  sdpa-var --dk 1:1024 --n 1111 --columns all |\n"
            "      gnuplot %s/variance_vs_dk.gp\n"
            "  sdpa-var --q q.npy --k k.npy --causal     per-head statistics of a layer\n"
            "  sdpa-var --logits -20,3,25,-15 --dk 64     a slide's row, raw and / 8\n"
            "\n"
            "Exit status: 0 success, 1 runtime error (e.g. a failed write), 2 usage error.\n"
            "The output's columns (columns.md), the theory (theory.md) and the\n"
            "lecture (lecture.md), beside this program:\n  %s\n"
            "gnuplot scripts that draw the CSV:\n  %s/*.gp\n",
            gp, doc, gp);
}
