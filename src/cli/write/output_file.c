/* --output FILE (output_file.h). The run writes stdout as always; stdout
 * is a temporary file beside FILE, renamed over it only when every byte
 * was written and the run succeeded, so a full disk, `ulimit -f` (SIGXFSZ
 * is ignored: main.c) or an error mid-run never leaves a cut FILE, and
 * the rename is atomic within the directory. */
#define _POSIX_C_SOURCE 200809L
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail.h"
#include "specs.h"

/* fd becomes stdout (stdio's buffer empty: nothing written yet). */
static int to_stdout(int fd)
{
    fflush(stdout);
    const int ok = dup2(fd, STDOUT_FILENO) >= 0;
    close(fd);
    return ok;
}

int cli_output_file_open(cli_output_file *o, const char *path, char *err, size_t errlen)
{
    char q[80];
    struct stat st;
    *o = (cli_output_file){.path = path};
    cli_quote(q, sizeof q, path);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a device, a pipe: as given */
        const int fd = open(path, O_WRONLY | O_TRUNC);
        if (fd < 0 || !to_stdout(fd))
            return cli_fail(err, errlen, "--output: '%s': %s", q, strerror(errno));
        cli_output_name_set(path);
        return 1;
    }
    const size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    const size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    o->tmp = malloc(n + 16);
    if (!o->tmp)
        return cli_fail(err, errlen, "--output: '%s': out of memory", q);
    /* DIR/.NAME.XXXXXX: hidden, in FILE's directory (same file system) */
    snprintf(o->tmp, n + 16, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
    const int fd = mkstemp(o->tmp);
    const mode_t mask = umask(0); /* mkstemp's 0600: the mode a new file gets under the umask */
    umask(mask);
    if (fd < 0 || fchmod(fd, 0666 & ~mask) != 0 || !to_stdout(fd)) {
        const int e = errno;
        if (fd >= 0)
            unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return cli_fail(err, errlen, "--output: '%s': %s", q, strerror(e));
    }
    cli_output_name_set(path);
    return 1;
}

int cli_output_file_close(cli_output_file *o, int status)
{
    char q[80];
    int e = 0;
    /* the last bytes out, then stdout closed: a full disk may say so only here */
    if (fflush(stdout) != 0 || ferror(stdout))
        e = errno ? errno : EIO;
    if (close(STDOUT_FILENO) != 0 && !e)
        e = errno;
    if (status == CLI_EXIT_OK && e)
        status = cli_error(CLI_EXIT_RUNTIME, "error writing '%s': %s",
                           cli_quote(q, sizeof q, o->path), strerror(e));
    if (o->tmp && status == CLI_EXIT_OK && rename(o->tmp, o->path) != 0)
        status = cli_error(CLI_EXIT_RUNTIME, "--output: '%s': %s", cli_quote(q, sizeof q, o->path),
                           strerror(errno));
    if (o->tmp && status != CLI_EXIT_OK)
        unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return status;
}
