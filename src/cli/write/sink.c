/* Dispatch from the run loop to the format's writer, and the buffer that
 * reaches stdout only in whole rows (sink.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"
#include "sink.h"

int cli_sink_has(const cli_sink *s, const sv_column *c)
{
    return (!(c->flags & SV_COLUMN_ONLY_OBSERVED) || s->observed) &&
           (!(c->flags & SV_COLUMN_ONLY_GRAD) || (s->count > 0 && s->configs[0].spec.grad)) &&
           (!(c->flags & SV_COLUMN_ONLY_DRAWS) || !s->files);
}

int cli_sink_begin(cli_sink *s, int fd, const cli_plan *plan)
{
    const cli_output *out = &plan->out;
    const size_t count = plan->count;
    const cli_format format = out->format;
    *s = (cli_sink){.fd = fd,
                    .out = out,
                    .configs = plan->configs,
                    .kind = out->kind,
                    .format = format,
                    .observed = !isnan(out->observed),
                    .files = plan->arrays != NULL,
                    .count = count};
    s->cols = calloc(sv_columns_count(s->kind), sizeof(const sv_column *));
    if (!s->cols)
        return 0;
    for (size_t i = 0; i < out->n_columns; i++) /* --columns: as given */
        s->cols[s->n_cols++] = sv_columns_get(s->kind, out->columns[i]);
    for (size_t i = 0; !out->n_columns && i < sv_columns_count(s->kind); i++)
        if (cli_sink_has(s, sv_columns_get(s->kind, i)))
            s->cols[s->n_cols++] = sv_columns_get(s->kind, i);
    s->f = open_memstream(&s->buf, &s->buf_size);
    if (!s->f) {
        free(s->cols);
        return 0;
    }
    if (format == CLI_FORMAT_TABLE &&
        (s->kind == SV_OUTPUT_SUMMARY || s->kind == SV_OUTPUT_PER_TRIAL)) {
        s->entries = calloc(count, sizeof *s->entries);
        if (!s->entries) {
            fclose(s->f);
            free(s->buf);
            free(s->cols);
            return 0;
        }
    }
    return 1;
}

/* What comes before the first row, written with it: a run that fails in
 * its first configuration writes nothing at all. */
static int start(cli_sink *s)
{
    if (s->started)
        return 1;
    s->started = 1;
    switch (s->format) {
    case CLI_FORMAT_TABLE:
        cli_table_begin(s);
        return 1;
    case CLI_FORMAT_JSON:
    case CLI_FORMAT_JSONL:
        return cli_json_begin(s);
    default:
        cli_csv_header(s);
        return 1;
    }
}

int cli_sink_row(cli_sink *s, const sv_row_view *row)
{
    if (!start(s))
        return 0;
    switch (s->format) {
    case CLI_FORMAT_TABLE:
        cli_table_row(s, row);
        break;
    case CLI_FORMAT_JSON:
    case CLI_FORMAT_JSONL:
        cli_json_row(s, row);
        break;
    default:
        cli_csv_row(s, row);
        break;
    }
    s->rows++;
    return 1;
}

size_t cli_sink_tail(const cli_sink *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!s->started)
        return 0;
    if (s->format == CLI_FORMAT_JSON)
        return (size_t)snprintf(buf, len, "\n]}\n");
    if (s->format == CLI_FORMAT_TABLE)
        return cli_table_tail(s, buf, len);
    return 0;
}

/* Writes all of p[0..n) to fd; on a failure a regular file is cut back to
 * where this write started, so no part of a row is left. */
static int write_whole(int fd, const char *p, size_t n)
{
    struct stat st;
    const off_t at = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? lseek(fd, 0, SEEK_CUR) : -1;
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            const int e = w < 0 ? errno : EIO;
            if (at >= 0 && ftruncate(fd, at) == 0)
                (void)lseek(fd, at, SEEK_SET);
            errno = e;
            return 0;
        }
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

int cli_sink_commit(cli_sink *s)
{
    if (s->write_errno)
        return 0;
    if (fflush(s->f) != 0) {
        s->write_errno = ENOMEM;
        return 0;
    }
    const off_t n = ftello(s->f);
    cli_interrupt_enter_write();
    int ok = 1;
    if (n > 0) {
        ok = write_whole(s->fd, s->buf, (size_t)n);
        if (!ok)
            s->write_errno = errno;
        else
            s->committed = 1;
        rewind(s->f);
    }
    char tail[1024];
    const size_t len = s->committed ? cli_sink_tail(s, tail, sizeof tail) : 0;
    cli_interrupt_set_tail(tail, len);
    cli_interrupt_leave_write();
    return ok;
}

int cli_sink_flush_some(cli_sink *s)
{
    return ftello(s->f) < CLI_SINK_COMMIT_BYTES || cli_sink_commit(s);
}

static void sink_free(cli_sink *s)
{
    fclose(s->f);
    free(s->buf);
    free(s->entries);
    free(s->cols);
    s->cols = NULL;
    s->f = NULL;
    s->buf = NULL;
    s->entries = NULL;
}

int cli_sink_end(cli_sink *s)
{
    start(s); /* a run always has rows; this only keeps the pairing */
    if (s->format == CLI_FORMAT_TABLE) {
        cli_table_end(s);
    } else {
        char tail[1024];
        const size_t len = cli_sink_tail(s, tail, sizeof tail);
        fwrite(tail, 1, len, s->f);
    }
    const int ok = cli_sink_commit(s);
    sink_free(s);
    return ok;
}

void cli_sink_abort(cli_sink *s)
{
    rewind(s->f); /* what is not committed is dropped */
    if (s->committed && !s->write_errno) {
        char tail[1024];
        const size_t len = cli_sink_tail(s, tail, sizeof tail);
        fwrite(tail, 1, len, s->f);
        cli_sink_commit(s);
    }
    sink_free(s);
}
