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

/* The one rule for which columns the rows have without a --columns list of
 * names: every column with --columns all; else the default columns of any
 * configuration of the run (sv_column_default: the core and the options in
 * use, no column NAN only because an option is off), and the +GROUPs. */
static int has(const cli_sink *s, const sv_column *c)
{
    const cli_output *out = s->w.out;
    if (!sv_column_exists(c, s->w.count ? &s->w.configs[0].spec : NULL, s->w.observed, s->files))
        return 0;
    if (out->columns_all || s->w.format == CLI_FORMAT_GNUPLOT || /* every column: the template's */
        (out->column_groups >> SV_COLUMN_GROUP(c->flags) & 1u))
        return 1;
    for (size_t i = 0; i < s->w.count; i++)
        if (sv_column_default(c, &s->w.configs[i].spec, s->w.observed, s->files))
            return 1;
    return 0;
}

/* Each format's writers (writer.h); the state is no sink's. */
static const cli_format_writer *const writers[] = {
    [CLI_FORMAT_CSV] = &cli_csv_writer,         [CLI_FORMAT_JSON] = &cli_json_writer,
    [CLI_FORMAT_JSONL] = &cli_json_writer,      [CLI_FORMAT_TABLE] = &cli_table_writer,
    [CLI_FORMAT_MARKDOWN] = &cli_slides_writer, [CLI_FORMAT_LATEX] = &cli_slides_writer,
    [CLI_FORMAT_GNUPLOT] = &cli_gnuplot_writer};

int cli_sink_begin(cli_sink *s, int fd, const cli_plan *plan)
{
    const cli_output *out = &plan->out;
    const size_t count = plan->count;
    const cli_format format = out->format;
    *s = (cli_sink){.w = {.out = out,
                          .configs = plan->configs,
                          .kind = out->kind,
                          .format = format,
                          .observed = !isnan(out->observed),
                          .count = count},
                    .fmt = writers[format] ? writers[format] : &cli_csv_writer,
                    .fd = fd,
                    .files = plan->arrays != NULL};
    /* One allocation: the columns written, then JSON's configuration columns. */
    const size_t n_summary = sv_columns_count(SV_OUTPUT_SUMMARY);
    s->w.cols = calloc(sv_columns_count(s->w.kind) + n_summary, sizeof(const sv_column *));
    if (!s->w.cols)
        return 0;
    s->w.config_cols = s->w.cols + sv_columns_count(s->w.kind);
    for (size_t i = 0; i < n_summary; i++) {
        const sv_column *c = sv_columns_get(SV_OUTPUT_SUMMARY, i);
        if ((c->flags & SV_COLUMN_CONFIG) && has(s, c))
            s->w.config_cols[s->w.n_config_cols++] = c;
    }
    for (size_t i = 0; i < out->n_columns; i++) /* --columns: as given */
        s->w.cols[s->w.n_cols++] = sv_columns_get(s->w.kind, out->columns[i]);
    /* Without --columns NAMES: the table's order; but the summary, whose
     * order grew by appending, has its configuration first (not with
     * --columns all, where positions never move). */
    const int sorted = s->w.kind == SV_OUTPUT_SUMMARY && !out->columns_all;
    for (int pass = !sorted; !out->n_columns && pass < 2; pass++)
        for (size_t i = 0; i < sv_columns_count(s->w.kind); i++) {
            const sv_column *c = sv_columns_get(s->w.kind, i);
            const int config = (c->flags & SV_COLUMN_CONFIG) != 0;
            if (has(s, c) && (!sorted || config == !pass))
                s->w.cols[s->w.n_cols++] = c;
        }
    /* The table views keep each configuration's summary (entries). */
    const int tables =
        format == CLI_FORMAT_TABLE || format == CLI_FORMAT_MARKDOWN || format == CLI_FORMAT_LATEX;
    const int keep = tables && (s->w.kind == SV_OUTPUT_SUMMARY || s->w.kind == SV_OUTPUT_PER_TRIAL);
    s->w.f = open_memstream(&s->buf, &s->buf_size);
    if (s->w.f && keep)
        s->w.entries = calloc(count, sizeof *s->w.entries);
    if (s->w.f && (s->w.entries || !keep))
        return 1;
    if (s->w.f)
        fclose(s->w.f);
    free(s->buf);
    free(s->w.cols);
    return 0;
}

/* Column i of those written: the rows' columns, then the configuration's. */
static const sv_column *written(const cli_sink *s, size_t i)
{
    return i < s->w.n_cols ? s->w.cols[i] : s->w.config_cols[i - s->w.n_cols];
}

void cli_sink_unshown(const cli_sink *s, unsigned *groups, int *trial_sd, unsigned *skip)
{
    unsigned shown = 0, reads = 0;
    int sd = 0;
    for (size_t i = 0; i < s->w.n_cols + s->w.n_config_cols; i++) {
        const sv_column *c = written(s, i);
        shown |= 1u << SV_COLUMN_GROUP(c->flags);
        reads |= sv_column_reads(c);
        sd |= sv_column_trial_sd(c);
    }
    const int lists = s->fmt->lists;
    *groups = lists ? ~shown : 0;
    *trial_sd = lists && !sd;
    *skip = lists ? SV_SKIP_ALL & ~reads : 0;
}

/* What comes before the first row, written with it: a run that fails in
 * its first configuration writes nothing at all. */
static int start(cli_sink *s)
{
    if (s->started)
        return 1;
    s->started = 1;
    return s->fmt->begin(&s->w);
}

int cli_sink_row(cli_sink *s, const sv_row_view *row)
{
    if (!start(s))
        return 0;
    s->fmt->row(&s->w, row);
    s->w.rows++;
    return 1;
}

/* The text that ends the committed output (cli_format_writer's tail),
 * NUL-terminated in @p buf; none before the first row. Its length. */
static size_t tail_text(const cli_sink *s, char *buf, size_t len)
{
    buf[0] = '\0';
    return s->started && s->fmt->tail ? s->fmt->tail(&s->w, buf, len) : 0;
}

int cli_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
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
    if (fflush(s->w.f) != 0) {
        s->write_errno = ENOMEM;
        return 0;
    }
    const off_t n = ftello(s->w.f);
    cli_interrupt_enter_write();
    int ok = 1;
    if (n > 0) {
        ok = cli_write_all(s->fd, s->buf, (size_t)n);
        if (!ok)
            s->write_errno = errno;
        else
            s->committed = 1;
        rewind(s->w.f);
    }
    char tail[1024];
    const size_t len = s->committed ? tail_text(s, tail, sizeof tail) : 0;
    cli_interrupt_set_tail(tail, len);
    cli_interrupt_leave_write();
    return ok;
}

int cli_sink_flush_some(cli_sink *s)
{
    return ftello(s->w.f) < CLI_SINK_COMMIT_BYTES || cli_sink_commit(s);
}

static void sink_free(cli_sink *s)
{
    fclose(s->w.f);
    free(s->buf);
    free(s->w.entries);
    free(s->w.cols);
    s->w.cols = NULL;
    s->w.f = NULL;
    s->buf = NULL;
    s->w.entries = NULL;
}

/* The text that ends the output (tail_text), into the buffer. */
static void put_tail(cli_sink *s)
{
    char tail[1024];
    const size_t len = tail_text(s, tail, sizeof tail);
    fwrite(tail, 1, len, s->w.f);
}

int cli_sink_end(cli_sink *s)
{
    start(s); /* a run always has rows; this only keeps the pairing */
    if (s->fmt->end)
        s->fmt->end(&s->w);
    put_tail(s);
    const int ok = cli_sink_commit(s);
    sink_free(s);
    return ok;
}

void cli_sink_abort(cli_sink *s)
{
    rewind(s->w.f); /* what is not committed is dropped */
    if (s->committed && !s->write_errno) {
        put_tail(s);
        cli_sink_commit(s);
    }
    sink_free(s);
}
