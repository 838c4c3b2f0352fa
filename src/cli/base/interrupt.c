/* The signal handler of a run and the hand-over between it and the writes
 * to stdout (interrupt.h). The state is a lock-free atomic, so the handler
 * may run on any thread (OpenMP's or OpenBLAS's) and still agree with the
 * main thread on who writes the tail. */
#define _POSIX_C_SOURCE 200809L
#include "interrupt.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { WRITING, COMPUTING, HANDLED };

static atomic_int state = WRITING;
static volatile sig_atomic_t pending, progress_showing;
static char tail[1024];
static size_t tail_len;

static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define N_CAUGHT (sizeof caught / sizeof caught[0])
static struct sigaction old[N_CAUGHT];
static int installed[N_CAUGHT];

void cli_signal_write(int fd, const char *p, size_t n)
{
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w <= 0)
            return; /* nothing to do about it here */
        p += w;
        n -= (size_t)w;
    }
}

/* The progress line erased and, when no write is under way, the tail
 * written: 1 when this call took the output over (HANDLED). */
static int take_over(void)
{
    cli_interrupt_progress_erase();
    int expect = COMPUTING;
    if (!atomic_compare_exchange_strong(&state, &expect, HANDLED))
        return 0;
    cli_signal_write(STDOUT_FILENO, tail, tail_len);
    return 1;
}

/* Only write(2), raise(3) and lock-free atomics: async-signal-safe. */
static void on_signal(int sig)
{
    if (take_over())
        raise(sig); /* SA_RESETHAND restored the default action */
    else
        pending = sig;
}

void cli_interrupt_abandon(void)
{
    (void)take_over();
}

void cli_interrupt_begin(void)
{
    pending = 0;
    tail_len = 0;
    atomic_store(&state, COMPUTING);
    for (size_t i = 0; i < N_CAUGHT; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESETHAND | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        installed[i] = sigaction(caught[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN &&
                       sigaction(caught[i], &sa, NULL) == 0;
    }
}

void cli_interrupt_end(void)
{
    for (size_t i = 0; i < N_CAUGHT; i++)
        if (installed[i])
            sigaction(caught[i], &old[i], NULL);
    atomic_store(&state, WRITING);
}

void cli_interrupt_progress(void)
{
    progress_showing = 1;
}

void cli_interrupt_progress_erase(void)
{
    static const char erase[] = "\r\033[K";
    if (progress_showing)
        cli_signal_write(STDERR_FILENO, erase, sizeof erase - 1);
    progress_showing = 0;
}

void cli_interrupt_set_tail(const char *t, size_t len)
{
    tail_len = len < sizeof tail ? len : 0;
    memcpy(tail, t, tail_len);
}

void cli_interrupt_enter_write(void)
{
    int expect = COMPUTING;
    if (atomic_compare_exchange_strong(&state, &expect, WRITING) || expect == WRITING)
        return;
    for (;;) /* HANDLED: the handler writes the tail and the process dies */
        pause();
}

void cli_interrupt_leave_write(void)
{
    atomic_store(&state, COMPUTING);
}

int cli_interrupt_pending(void)
{
    return pending;
}

_Noreturn void cli_interrupt_die(int sig)
{
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached */
}
