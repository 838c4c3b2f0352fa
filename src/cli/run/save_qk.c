/* --save-qk (save_qk.h). */
#define _POSIX_C_SOURCE 200809L
#include "save_qk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"

/* At most this many doubles of rows in memory at once (32 MiB). */
#define SAVE_DOUBLES (1u << 22)

/* Rows of @p which of trial 0 into @p f after the .npy header, in chunks
 * of rows as the engine reads them (sv_source_materialize). 0 with errno
 * on a failed write. */
static int write_matrix(FILE *f, const sv_source *src, const sv_spec *spec, sv_matrix which,
                        size_t rows, size_t cols, double *buf, size_t chunk)
{
    char head[256];
    const size_t shape[2] = {rows, cols};
    const size_t n = sv_npy_header(head, sizeof head, SV_DTYPE_FLOAT64, 2, shape);
    if (n == 0) {
        errno = EINVAL;
        return 0;
    }
    if (fwrite(head, 1, n, f) != n)
        return 0;
    for (size_t i = 0; i < rows; i += chunk) {
        const size_t m = rows - i < chunk ? rows - i : chunk;
        const sv_status st = sv_source_materialize(src, spec, 0, which, i, m, buf, cols);
        if (st != SV_OK) {
            errno = st == SV_ENOMEM ? ENOMEM : EINVAL;
            return 0;
        }
        if (fwrite(buf, sizeof(double), m * cols, f) != m * cols)
            return 0;
    }
    return 1;
}

/* DIR/NAME.npy through a temporary file in DIR and rename(2). */
static int save_one(const char *dir, const char *name, const sv_source *src, const sv_spec *spec,
                    sv_matrix which, size_t rows, size_t cols, char *err, size_t errlen)
{
    char path[4096], tmp[4096], q[80];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cli_quote(q, sizeof q, path);
    if (snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name) >= (int)sizeof tmp)
        return cli_fail(err, errlen, "--save-qk: '%s': path too long", q);
    const size_t chunk = cols >= SAVE_DOUBLES ? 1 : SAVE_DOUBLES / cols;
    double *row = malloc((chunk < rows ? chunk : rows) * cols * sizeof(double));
    const int fd = row ? mkstemp(tmp) : -1;
    if (fd >= 0) { /* mkstemp's 0600: the mode a new file gets under the umask */
        const mode_t um = umask(0);
        umask(um);
        (void)fchmod(fd, 0666 & ~um);
    }
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!row || !f) {
        const int e = row ? errno : ENOMEM;
        if (fd >= 0)
            close(fd), unlink(tmp);
        free(row);
        return cli_fail(err, errlen, "--save-qk: %s: %s", q, strerror(e));
    }
    int ok = write_matrix(f, src, spec, which, rows, cols, row, chunk);
    int e = errno;
    if (fclose(f) != 0 && ok)
        ok = 0, e = errno;
    if (ok && rename(tmp, path) != 0)
        ok = 0, e = errno;
    free(row);
    if (!ok) {
        unlink(tmp);
        return cli_fail(err, errlen, "--save-qk: %s: %s", q, strerror(e));
    }
    return 1;
}

int cli_save_qk(const char *dir, const sv_spec *spec, char *err, size_t errlen)
{
    char q[80];
    cli_quote(q, sizeof q, dir);
    struct stat st;
    if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
        return cli_fail(err, errlen, "--save-qk: %s: %s", q,
                        errno == EEXIST ? "exists and is not a directory" : strerror(errno));
    sv_source src;
    sv_status s = sv_source_draw(spec, &src);
    if (s != SV_OK)
        return cli_fail(err, errlen, "--save-qk: %s", sv_status_str(s));
    return save_one(dir, "q.npy", &src, spec, SV_MATRIX_Q, spec->n_q, spec->d_k, err, errlen) &&
           save_one(dir, "k.npy", &src, spec, SV_MATRIX_K, spec->n_k, spec->d_k, err, errlen) &&
           (!spec->values ||
            save_one(dir, "v.npy", &src, spec, SV_MATRIX_V, spec->n_k, spec->d_v, err, errlen));
}
