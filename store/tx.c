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
 */
#include "store/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* Waits for the writers' lock (as long as it takes). */
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
            if (st->lock_fd < 0) /* made by another user: flock needs no write */
                st->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
            free(path);
        }
    }
    if (st->lock_fd < 0 || st->locked) return GPI_OK;
    while (flock(st->lock_fd, LOCK_EX) != 0)
        if (errno != EINTR)
            return gpi_diag_set(d, GPI_ESTORE, "store: cannot lock %s.lock: %s",
                                sqlite3_db_filename(st->db, "main"), strerror(errno));
    st->locked = 1;
    return GPI_OK;
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
