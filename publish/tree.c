/* publish/tree.c -- the atomic file writer of the publication: DIR's
 * lock, a day's tree written aside and swapped into place, single files
 * replaced by rename, leftovers of a crashed run removed.  It knows files
 * and folders only, nothing of what they hold.
 *
 * NOTES ON THE DESIGN
 * (1) One publisher per DIR at a time: from before the latest vintage is
 *     read until the files are in place, a publisher holds an exclusive
 *     flock on DIR/.gpuidx-lock (pub_dir_lock).  So two runs never decide
 *     the same next vintage, and the leftovers reconcile() removes are
 *     never a live run's.  (Two DIRs fed from one database are not
 *     serialized.)
 * (2) The whole DIR/D tree (current files and every v<n>/) is written to
 *     DIR/.tmp-D-<pid> by the caller; pub_tree_swap puts it into place
 *     with renameat2(RENAME_EXCHANGE) (or renames it when DIR/D is new).
 *     A file (not a folder) at DIR/D is an error, never replaced.  Where
 *     the file system lacks RENAME_EXCHANGE, the old tree is renamed aside
 *     first (DIR/D is then briefly absent, never half-written).  Leftover
 *     .tmp-* entries of a crashed run are removed when the lock is taken;
 *     single files (DIR/restatements.csv) are written to a .tmp- name and
 *     renamed into place; the caller fsyncs DIR after the renames
 *     (pub_dir_sync).
 * (3) The newest vintage's folder DIR/D/v<n>/ holds the same bytes as the
 *     current files of DIR/D: pub_files_link makes its three files hard
 *     links of the current ones (one write and fsync of observations.csv
 *     instead of two: ~2.5 MB a day on the bench market).  Nothing here
 *     ever writes into a published file (a tree is written aside and
 *     swapped; a restatement writes new current files, new inodes), so the
 *     vintage's bytes cannot change through the other name.  Where the
 *     file system refuses a link, the files are written instead.
 */
#define _GNU_SOURCE 1 /* renameat2, nftw */
#include "publish/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void pub_tree_remove(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

gpi_status pub_file_write(const char *path, const char *buf, size_t len, gpi_diag *d)
{
    FILE *f = fopen(path, "wb");
    if (!f) return gpi_diag_set(d, GPI_EIO, "%s: cannot write: %s", path, strerror(errno));
    int ok = fwrite(buf, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok &= fclose(f) == 0;
    return ok ? GPI_OK : gpi_diag_set(d, GPI_EIO, "%s: write failed: %s", path, strerror(errno));
}

gpi_status pub_files_write(const char *dir, const pub_files *fs, gpi_diag *d)
{
    char path[4096];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot create: %s", dir, strerror(errno));
    gpi_status rc = GPI_OK;
    for (int i = 0; i < 3 && rc == GPI_OK; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, pub_file_names[i]);
        rc = pub_file_write(path, fs->buf[i], fs->len[i], d);
    }
    if (rc == GPI_OK && fs->sig) { /* a signed vintage (sign.c) */
        snprintf(path, sizeof path, "%s/%s", dir, GPI_SIG_FILE);
        rc = pub_file_write(path, fs->sig, fs->sig_len, d);
    }
    if (rc == GPI_OK) rc = pub_curve_write(dir, NULL, fs, d); /* format 4 */
    return rc;
}

gpi_status pub_files_link(const char *from, const char *dir, const pub_files *fs, gpi_diag *d)
{
    char src[4096], dst[4096];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot create: %s", dir, strerror(errno));
    gpi_status rc = GPI_OK;
    for (int i = 0; i < 3 && rc == GPI_OK; i++) {
        snprintf(src, sizeof src, "%s/%s", from, pub_file_names[i]);
        snprintf(dst, sizeof dst, "%s/%s", dir, pub_file_names[i]);
        if (link(src, dst) != 0) rc = pub_file_write(dst, fs->buf[i], fs->len[i], d);
    }
    if (rc == GPI_OK && fs->sig) {
        snprintf(dst, sizeof dst, "%s/%s", dir, GPI_SIG_FILE);
        rc = pub_file_write(dst, fs->sig, fs->sig_len, d);
    }
    if (rc == GPI_OK) rc = pub_curve_write(dir, from, fs, d); /* format 4 */
    return rc;
}

/* Removes DIR/.tmp-* leftovers of an interrupted run. */
static void reconcile(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(dp)))
        if (strncmp(e->d_name, ".tmp-", 5) == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            pub_tree_remove(path);
        }
    closedir(dp);
}

/* Reads an existing file when its SHA-256 is sha. */
char *pub_file_read_sha(const char *path, const char *sha, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0;
    gpi_status rc = gpi_file_read_all(f, path, 0, &buf, &n, NULL);
    fclose(f);
    if (rc != GPI_OK) return NULL; /* regenerated instead */
    char h[65];
    gpi_sha256_hex(buf, n, h);
    if (strcmp(h, sha) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Makes the renames inside dir durable. */
void pub_dir_sync(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

/* Puts tmp in the place of target: exchanged when target exists (the old
 * tree is then at tmp).  A file system without RENAME_EXCHANGE gets two
 * renames through old (target is briefly absent, never half-written). */
gpi_status pub_tree_swap(const char *tmp, const char *target, const char *old, gpi_diag *d)
{
    struct stat sb;
    if (stat(target, &sb) != 0) {
        if (rename(tmp, target) != 0)
            return gpi_diag_set(d, GPI_EIO, "%s: cannot rename: %s", target, strerror(errno));
        return GPI_OK;
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) return GPI_OK;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot replace: %s", target, strerror(errno));
    if (rename(target, old) != 0)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot move aside: %s", target, strerror(errno));
    if (rename(tmp, target) != 0) {
        gpi_status rc = gpi_diag_set(d, GPI_EIO, "%s: cannot rename: %s", target, strerror(errno));
        rename(old, target);
        return rc;
    }
    return GPI_OK;
}

/* DIR exists (created if need be), DIR/D is a folder or absent, and this
 * process holds DIR/.gpuidx-lock (*lock_fd; publishers of one DIR take
 * turns, so the leftovers that reconcile() removes are never another
 * run's: note 1). */
gpi_status pub_dir_lock(const char *dir, const char *target, int *lock_fd, gpi_diag *d)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot create: %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gpi_diag_set(d, GPI_EIO, "%s: not a directory", dir);
    if (stat(target, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return gpi_diag_set(d, GPI_EIO, "%s: not a directory (remove or move it first)", target);
    char lock[4096];
    snprintf(lock, sizeof lock, "%s/.gpuidx-lock", dir);
    *lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*lock_fd < 0 || flock(*lock_fd, LOCK_EX) != 0)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot lock: %s", lock, strerror(errno));
    reconcile(dir);
    return GPI_OK;
}

gpi_status pub_file_replace(const char *tmp, const char *path, const char *buf, size_t len,
                            gpi_diag *d)
{
    gpi_status rc = pub_file_write(tmp, buf, len, d);
    if (rc == GPI_OK && rename(tmp, path) != 0)
        rc = gpi_diag_set(d, GPI_EIO, "%s: cannot rename: %s", path, strerror(errno));
    return rc;
}
