/* verify/files.c -- how verify reads a published file: within limits
 * (issue 31: a 1 GB index.json took 2.1 GB of memory, a symbolic link to
 * /dev/zero 18.9 GB, and a FIFO hung verify for good).
 *
 * NOTES ON THE DESIGN
 * (1) A file is opened without blocking (O_NONBLOCK: opening a FIFO with no
 *     writer would wait for one) and must then be a regular file: a FIFO,
 *     a device (a link to /dev/zero), a socket or a folder is refused
 *     with a message saying what it is.  Links are followed: a published
 *     folder may be a tree of links (the vintages' files are hard links;
 *     a mirror may use symbolic ones); what they lead to must be a file.
 *     The signature files and the hashes sign.c takes of the signed files
 *     go through the same rules (vfile_sha256 reads in blocks).
 * (2) Its size must be at most the limit (verify_dir_set_max_file;
 *     VERIFY_MAX_FILE_MIB by default, `gpuidx verify --max-file-mib N`):
 *     the largest published file of the bench market's busiest day is a
 *     few MB (BENCHMARKS.md), so the default leaves two orders of
 *     magnitude.  The size is checked before reading (fstat) and again
 *     while reading (a file that grows meanwhile stops at the limit), so
 *     no more than limit + 1 bytes are ever read or held for one file.
 * (3) What verify holds besides the files' bytes is bounded by them: the
 *     JSON parse (numbers kept as text: load.c note 1, sized exactly), the
 *     observations' fields (load.c), and the days kept for what later days
 *     take from them: cmd_verify.c forgets days past the adjustment window
 *     (64 days), and of the days kept, the observations of those least
 *     recently used are dropped past VERIFY_OBS_BUDGET (64 MiB of
 *     observations.csv) and read again when a later day needs them (a
 *     reference or panel day).  Memory is measured in BENCHMARKS.md.
 */
#include "verify/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a folder"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

gpi_status vfile_read(const char *path, size_t max, char **buf, size_t *len, gpi_diag *d)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return gpi_diag_set(d, GPI_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return gpi_diag_set(d, GPI_EINPUT, "%s: cannot read: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return gpi_diag_set(d, GPI_EINPUT, "%s: %s, not a published file: refused", path,
                            kind_of(sb.st_mode));
    }
    if (sb.st_size < 0 || (uint64_t)sb.st_size > (uint64_t)max) {
        close(fd);
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s: %lld bytes, over the limit of %zu MiB a file (--max-file-mib)",
                            path, (long long)sb.st_size, max >> 20);
    }
    /* back to blocking reads of a regular file */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *b = malloc(cap + 1);
    if (!b) {
        close(fd);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) { /* the file grew since fstat: read on, up to the limit */
            if (cap > max) break;
            size_t grown = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nb = realloc(b, grown + 1);
            if (!nb) {
                free(b);
                close(fd);
                return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", path);
            }
            b = nb;
            cap = grown;
        }
        ssize_t k = read(fd, b + n, cap - n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno;
            free(b);
            close(fd);
            return gpi_diag_set(d, GPI_EINPUT, "%s: read error: %s", path, strerror(e));
        }
        if (k == 0) break;
        n += (size_t)k;
    }
    close(fd);
    if (n > max) {
        free(b);
        return gpi_diag_set(d, GPI_EINPUT, "%s: grew past the limit of %zu MiB a file while read",
                            path, max >> 20);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return GPI_OK;
}

gpi_status vfile_sha256(const char *path, size_t max, char out[65], gpi_diag *d)
{
    out[0] = '\0';
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return gpi_diag_set(d, GPI_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 0 ||
        (uint64_t)sb.st_size > (uint64_t)max) {
        int reg = S_ISREG(sb.st_mode);
        close(fd);
        return gpi_diag_set(d, GPI_EINPUT, "%s: %s: refused", path,
                            reg ? "over the limit of a file" : kind_of(sb.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    gpi_sha256 h;
    gpi_sha256_init(&h);
    char buf[65536];
    size_t total = 0;
    for (;;) {
        ssize_t k = read(fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            return gpi_diag_set(d, GPI_EINPUT, "%s: read error: %s", path, strerror(e));
        }
        if (k == 0) break;
        total += (size_t)k;
        if (total > max) {
            close(fd);
            return gpi_diag_set(d, GPI_EINPUT, "%s: grew past the limit of a file while read",
                                path);
        }
        gpi_sha256_update(&h, buf, (size_t)k);
    }
    close(fd);
    gpi_sha256_final(&h, out);
    return GPI_OK;
}

gpi_status vfile_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? GPI_OK : GPI_EINPUT;
}

void verify_dir_set_max_file(verify_dir *v, size_t bytes)
{
    v->max_file = bytes ? bytes : (size_t)VERIFY_MAX_FILE_MIB << 20;
}
