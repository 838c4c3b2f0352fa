/* Signals that end a run (SIGINT, SIGTERM, SIGHUP, SIGPIPE), caught so
 * that the output keeps every finished row whole and a JSON document or a
 * table its end. Output reaches stdout only through cli_sink_commit, which
 * brackets its write(2) calls with cli_interrupt_enter_write and
 * cli_interrupt_leave_write. A signal that lands outside such a write (the
 * engine computing, rows being formatted into the sink's buffer) is
 * handled at once: the handler writes the committed output's tail
 * (cli_interrupt_set_tail) with write(2), which is async-signal-safe, and
 * the process dies of the signal. One that lands inside a write only sets
 * a flag: the write finishes, the run loop sees cli_interrupt_pending,
 * finishes the output and calls cli_interrupt_die. A second signal of the
 * same kind takes the default action at once (SA_RESETHAND). */
#ifndef SDPA_VAR_CLI_INTERRUPT_H
#define SDPA_VAR_CLI_INTERRUPT_H

#include <stddef.h>

/* Installs the handler on each of the signals that the caller does not
 * ignore (nohup, trap '' PIPE: those stay ignored). */
void cli_interrupt_begin(void);

/* Restores what cli_interrupt_begin found. */
void cli_interrupt_end(void);

/* The progress line (progress.c) is on the terminal, from now until it
 * is erased: the handler and every message (cli_error) erase it first. */
void cli_interrupt_progress(void);

/* Erases the progress line if it is shown (write(2): async-signal-safe). */
void cli_interrupt_progress_erase(void);

/* The bytes that end the output written so far (JSON's "]}", the table's
 * footer; none for CSV): what the handler writes before dying. Copied;
 * at most 1023 bytes. Called only between enter_write and leave_write. */
void cli_interrupt_set_tail(const char *tail, size_t len);

/* Before writing to stdout. Does not return when the handler has taken
 * over (it is writing the tail and the process is about to die). */
void cli_interrupt_enter_write(void);
void cli_interrupt_leave_write(void);

/* For the handler of a signal that ends the run with its own line (the
 * SIGBUS of a file cut short, tensor_input.c): erases the progress line
 * and, when no write to stdout is under way, writes the committed
 * output's tail, so the rows already out stay whole and a JSON document
 * closed, as after an interrupt. Async-signal-safe; the caller then
 * writes its line and calls _exit. */
void cli_interrupt_abandon(void);

/* Writes p[0..n) to @p fd with write(2), as far as it goes (a failure is
 * not said): async-signal-safe. */
void cli_signal_write(int fd, const char *p, size_t n);

/* The signal caught while writing, or 0. */
int cli_interrupt_pending(void);

/* Dies of signal @p sig (its default action), as the shell expects. */
_Noreturn void cli_interrupt_die(int sig);

#endif
