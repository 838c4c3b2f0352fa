/* sdpa-var: a thin command-line front end over the sdpa-var library.
 * Parse and validate everything before the first byte; then run.c runs
 * each configuration and writes its rows before the next one starts. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "example.h"
#include "logits_run.h"
#include "options.h"
#include "output_file.h"
#include "sdpa_var/cpu.h"
#include "run.h"
#include "save_qk.h"
#include "tensor_input.h"
#include "fail.h"

/* Under mpirun (-DSV_MPI=ON) every rank parses the same argv and would say
 * the same thing: rank 0 alone prints usage errors, --help, --version,
 * --example, writes --save-qk and runs merge; the others exit with its
 * status. Without MPI, one process: mpi_run.h's answers for it. */
#ifdef SV_MPI
#include "mpi_run.h"
#else
#define cli_mpi_begin(argc, argv) ((void)0)
#define cli_mpi_ranks() 1
#define cli_mpi_rank() 0
#define cli_mpi_launched() 0 /* by mpirun: stdout is its pty, not the user's terminal */
#define cli_mpi_run(plan) cli_run(plan)
#define cli_mpi_end(status) (status)
#endif

/* OMP_NUM_THREADS is taken out of the environment before any library's
 * constructor runs: libgomp parses it in its own, before main, and on a
 * value it cannot read ('2,abc', '2,,') it prints a warning of its own
 * and goes on. This hook of the executable's DT_PREINIT_ARRAY runs before
 * every constructor; it removes the variable from the process's
 * environment (the array the kernel passed, which libc then uses) and
 * keeps its value for validate.c, which checks it like --threads and
 * passes the count to the engine. Only loads and stores: libc (and a
 * sanitizer's runtime) may not be initialised yet. */
#if defined(__GNUC__)
__attribute__((no_sanitize("address", "undefined"))) static void
take_omp_num_threads(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    static const char name[] = "OMP_NUM_THREADS=";
    size_t out = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        size_t k = 0;
        while (name[k] && envp[i][k] == name[k])
            k++;
        if (name[k] == '\0') {
            if (!cli_omp_num_threads_taken) /* getenv's: the first */
                cli_omp_num_threads = envp[i] + k;
            cli_omp_num_threads_taken = 1;
            continue;
        }
        envp[out++] = envp[i];
    }
    if (envp)
        envp[out] = NULL;
}
__attribute__((section(".preinit_array"),
               used)) static void (*const take_omp_hook)(int, char **,
                                                         char **) = take_omp_num_threads;
#endif

/* --version in GNU coreutils' form, with MIT in place of the GPL; the
 * copyright line is LICENSE's (tests/install/metadata_test.sh checks). */
static const char version_text[] =
    "Copyright (c) 2026 the sdpa-var authors\n"
    "License MIT: <https://opensource.org/licenses/MIT>.\n"
    "This is free software: you are free to change and redistribute it.\n"
    "There is NO WARRANTY, to the extent permitted by law.\n";

/* SV_CPU_CAPABILITY=default|avx2|avx512 runs the row loops as a CPU with
 * only that instruction set would (cpu.h): the suite's portability step
 * reproduces other machines' last bits with it. */
static int cpu_capability_env(char *err, size_t errlen)
{
    const char *v = getenv("SV_CPU_CAPABILITY");
    if (!v)
        return 1;
    const sv_status st = sv_cpu_capability_set(v);
    char q[80];
    if (st == SV_EINVAL)
        snprintf(err, errlen, "SV_CPU_CAPABILITY: '%s' is not default, avx2 or avx512",
                 cli_quote(q, sizeof q, v));
    else if (st != SV_OK)
        snprintf(err, errlen, "SV_CPU_CAPABILITY: %s is not supported by this CPU or build", v);
    return st == SV_OK;
}

/* Under `ulimit -v` an OpenBLAS thread whose buffer could not be mapped
 * spins, and OpenBLAS's exit handler waits for it: leave without the
 * exit handlers (stdout and stderr flushed first). */
static int leave(int run_status)
{
    const int status = cli_mpi_end(run_status);
    if (cli_budget_limited()) {
        fflush(NULL);
        _exit(status);
    }
    return status;
}

static int run(cli_options *opt);

int main(int argc, char **argv)
{
    /* A file size limit (ulimit -f) fails the write with EFBIG, which is
     * said, instead of killing the process without a word. */
    signal(SIGXFSZ, SIG_IGN);
    /* One way: argv -> options -> validated specs (both here) -> the run
     * loop -> sinks (run). */
    static cli_options opt; /* large (the --dk list): off the stack */
    char err[512];
    cli_mpi_begin(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "merge") == 0) /* a subcommand: no run options */
        return leave(cli_mpi_rank() != 0 ? CLI_EXIT_OK
                                         : cli_merge(argc - 1, argv + 1, cli_mpi_launched()));
    if (!cpu_capability_env(err, sizeof err) ||
        !cli_options_parse(argc, argv, &opt, err, sizeof err) ||
        (!opt.help && !opt.version && !cli_options_check_sizes(&opt, err, sizeof err))) {
        if (cli_mpi_rank() == 0)
            cli_error(0, "%s (try '" CLI_PROG " --help')", err);
        cli_options_free(&opt);
        return leave(CLI_EXIT_USAGE);
    }
    const int status = run(&opt);
    cli_options_free(&opt);
    return leave(status);
}

/* --q, --k: the files opened, mapped and checked (one line and status 1
 * for a bad one, nothing on stdout), then the run over them. */
static int run_files(cli_options *o, cli_format format)
{
    static cli_tensors t;
    char err[512];
    if (!cli_tensors_open(&t, o, err, sizeof err))
        return cli_error(CLI_EXIT_RUNTIME, "%s", err);
    cli_plan plan = cli_options_plan(o, format);
    plan.arrays = &t.arrays;
    const int status = cli_run(&plan);
    cli_tensors_close(&t);
    return status;
}

/* The run, its output on stdout (the terminal, a pipe, --output's file). */
static int run_output(cli_options *o)
{
    const cli_options opt = *o; /* shallow: configs stay o's */
    const int mpi = cli_mpi_launched();
    const cli_format format =
        opt.out.format != CLI_FORMAT_AUTO ? opt.out.format
        : mpi || opt.out.no_header || opt.out.n_columns || !isatty(STDOUT_FILENO)
            ? CLI_FORMAT_CSV
            : CLI_FORMAT_TABLE;
    if (format == CLI_FORMAT_STATE && !mpi && isatty(STDOUT_FILENO))
        return cli_error(
            CLI_EXIT_USAGE,
            "--format state writes bytes: redirect stdout to a file or use --output FILE");
    /* Files and given logits are one process's work: every rank would
     * print it whole (docs/scaling.md). */
    if (cli_mpi_ranks() > 1 &&
        (opt.given[CLI_OPT_Q] || opt.n_logits || opt.given[CLI_OPT_LOGITS_FILE])) {
        if (cli_mpi_rank() == 0)
            cli_error(0, "mpirun -n %d: not with %s (run it as one process)", cli_mpi_ranks(),
                      opt.given[CLI_OPT_Q] ? "--q and --k" : "--logits");
        return CLI_EXIT_USAGE;
    }
    if (opt.given[CLI_OPT_Q])
        return run_files(o, format);
    if (opt.n_logits || opt.given[CLI_OPT_LOGITS_FILE])
        return cli_logits_run(o, format);
    const cli_plan plan = cli_options_plan(o, format);
    if (getenv("SDPA_VAR_MEMORY_ESTIMATE"))
        cli_error(0, "memory estimate %.0f KiB", cli_budget_estimate(&plan) / 1024.0);
    /* mpirun -n P: the trials split across ranks; every write checked */
    if (cli_mpi_ranks() > 1)
        return cli_mpi_run(&plan);
    return cli_run(&plan);
}

static int run(cli_options *o)
{
    const cli_options opt = *o; /* shallow: configs stay o's */
    char err[512];
    if ((opt.help || opt.version || opt.given[CLI_OPT_EXAMPLE]) && cli_mpi_rank() != 0)
        return CLI_EXIT_OK;
    if (opt.given[CLI_OPT_SAVE_QK] && !opt.help && !opt.version && cli_mpi_rank() == 0 &&
        !cli_save_qk(opt.arg[CLI_OPT_SAVE_QK], &opt.configs[0].spec, err, sizeof err))
        return cli_error(CLI_EXIT_RUNTIME, "%s", err);
    if (opt.help || opt.version || opt.given[CLI_OPT_EXAMPLE]) {
        sv_status st = SV_OK;
        if (opt.given[CLI_OPT_EXAMPLE])
            st = cli_example(stdout, &opt.configs[0].spec, opt.configs[0].scale_name);
        else if (opt.help == 2)
            cli_completion_bash(stdout);
        else if (opt.help)
            cli_options_usage(stdout);
        else
            printf(CLI_PROG " %s\n%s", SV_VERSION_STRING, version_text);
        if (st != SV_OK)
            return cli_error(CLI_EXIT_RUNTIME, "--example: %s", sv_status_str(st));
    } else if (opt.given[CLI_OPT_OUTPUT] && opt.out.format != CLI_FORMAT_GNUPLOT &&
               cli_mpi_rank() == 0) {
        cli_output_file of; /* written whole or not at all */
        if (!cli_output_file_open(&of, opt.arg[CLI_OPT_OUTPUT], err, sizeof err))
            return cli_error(CLI_EXIT_RUNTIME, "%s", err);
        return cli_output_file_close(&of, run_output(o));
    } else
        return run_output(o);
    /* --help, --version, --example: a full disk or a closed file shows here. */
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_error(CLI_EXIT_RUNTIME, "error writing output: %s", strerror(errno));
    return CLI_EXIT_OK;
}
