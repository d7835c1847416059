/* store/tx.c -- write transactions and the writers' queue.
 *
 * Writers queue.  Every write transaction (store_begin: an ingest's
 * file, a build's day, a publication, a migration) first takes an
 * exclusive flock on the lock file DB.lock beside the database and
 * holds it until its COMMIT or ROLLBACK; the kernel releases it when
 * the process ends, however it ends (kill -9 included).  So gpuidx
 * writers wait for each other as long as it takes, one at a time,
 * instead of failing with "database is locked" once SQLite's busy
 * timeout (10 s) ran out -- which happened when two 8-second ingests,
 * a build and a publication overlapped (issue 12).  Readers take no
 * lock (WAL) and never wait for writers.  The busy timeout now only
 * matters against programs other than gpuidx writing the database;
 * GPUIDX_BUSY_TIMEOUT_MS changes it (tests use a short one).  A
 * database whose folder cannot hold the lock file (read-only, or no
 * file at all) is used without it.
 *
 * A handle holds the lock from store_begin until its store_commit or
 * store_rollback (store_close releases it too).
 *
 * Waiting writers.  A writer that finds the lock taken says so before it
 * waits: it holds a shared OFD lock (fcntl, independent of flock) on the
 * first byte of DB.lock until it has the writers' lock.  So a holder can
 * ask whether anyone waits (store_writers_waiting: an exclusive OFD lock
 * on that byte cannot be had) and, once it has committed, let them all
 * in before it queues again (store_writers_let_in: it waits for that
 * exclusive lock, which it gets when the last of them holds the writers'
 * lock).  A writer that arrives between the holder's question and its
 * commit waits for the holder's next commit.  The build uses it to write
 * several days in one transaction without keeping an ingest waiting
 * (index/build.c note 4).  A lock file opened read-only (another user's)
 * cannot take the exclusive OFD lock: there the answer is "unknown".
 */
#define _GNU_SOURCE 1 /* F_OFD_SETLK, F_OFD_SETLKW */
#include "store/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* An OFD lock of type `type` (F_RDLCK, F_WRLCK, F_UNLCK) on byte 0 of fd
 * by cmd (F_OFD_SETLK or, waiting, F_OFD_SETLKW); 0 or -1 (errno). */
static int byte_lock(int fd, int cmd, short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 1;
    int rc;
    while ((rc = fcntl(fd, cmd, &fl)) != 0 && errno == EINTR) {}
    return rc;
}

/* Waits for the writers' lock (as long as it takes); a writer that waits
 * holds the shared byte lock meanwhile (the waiting writers, above). */
static gpi_status writer_lock(store *st, gpi_diag *d)
{
    if (!st->lock_tried) {
        st->lock_tried = 1;
        const char *db = sqlite3_db_filename(st->db, "main");
        if (db && *db) {
            size_t n = strlen(db) + sizeof ".lock";
            char *path = malloc(n);
            if (!path) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
            snprintf(path, n, "%s.lock", db);
            /* no lock file where it cannot be made (a read-only folder):
             * SQLite's own locking still keeps the data safe */
            st->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            st->lock_rw = st->lock_fd >= 0;
            if (st->lock_fd < 0) /* made by another user: flock needs no write */
                st->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
            free(path);
        }
    }
    if (st->lock_fd < 0 || st->locked) return GPI_OK;
    int waiting = 0; /* holds the shared byte lock (the waiting writers) */
    if (flock(st->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        waiting = byte_lock(st->lock_fd, F_OFD_SETLKW, F_RDLCK) == 0;
        int e;
        while ((e = flock(st->lock_fd, LOCK_EX)) != 0 && errno == EINTR) {}
        int saved = errno;
        if (waiting) byte_lock(st->lock_fd, F_OFD_SETLK, F_UNLCK);
        if (e != 0)
            return gpi_diag_set(d, GPI_ESTORE, "store: cannot lock %s.lock: %s",
                                sqlite3_db_filename(st->db, "main"), strerror(saved));
    }
    st->locked = 1;
    return GPI_OK;
}

int store_writers_waiting(store *st)
{
    if (st->lock_fd < 0 || !st->lock_rw || !st->locked) return -1;
    if (byte_lock(st->lock_fd, F_OFD_SETLK, F_WRLCK) != 0)
        return errno == EAGAIN || errno == EACCES ? 1 : -1;
    byte_lock(st->lock_fd, F_OFD_SETLK, F_UNLCK);
    return 0;
}

void store_writers_let_in(store *st)
{
    if (st->lock_fd < 0 || !st->lock_rw || st->locked) return;
    if (byte_lock(st->lock_fd, F_OFD_SETLKW, F_WRLCK) == 0)
        byte_lock(st->lock_fd, F_OFD_SETLK, F_UNLCK);
}

static void writer_unlock(store *st)
{
    if (st->locked) flock(st->lock_fd, LOCK_UN);
    st->locked = 0;
}

gpi_status store_begin(store *st, gpi_diag *d)
{
    if (st->read_only)
        return gpi_diag_set(d, GPI_ESTORE, "store: %s: opened read-only, nothing can be written",
                            sqlite3_db_filename(st->db, "main"));
    gpi_status rc = writer_lock(st, d);
    if (rc == GPI_OK) rc = store_exec(st, "BEGIN IMMEDIATE", d);
    if (rc == GPI_OK) st->in_tx = 1;
    else writer_unlock(st);
    return rc;
}

gpi_status store_commit(store *st, gpi_diag *d)
{
    gpi_status rc = store_profiles_flush(st, d); /* profiles.c note 5 */
    if (rc == GPI_OK) rc = store_exec(st, "COMMIT", d);
    if (rc == GPI_OK) {
        st->in_tx = 0;
        writer_unlock(st);
    }
    return rc;
}

void store_rollback(store *st)
{
    store_exec(st, "ROLLBACK", NULL);
    st->in_tx = 0;
    writer_unlock(st);
    store_names_reset(st); /* names of the rolled-back transaction are gone */
    store_profiles_reset(st); /* and profiles */
    store_hints_reset(st);
    store_alias_reset(st);
}

void store_vacuum(store *st)
{
    if (st->in_tx || writer_lock(st, NULL) != GPI_OK) return;
    store_exec(st, "VACUUM", NULL);
    writer_unlock(st);
}
