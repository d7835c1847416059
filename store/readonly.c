/* store/readonly.c -- databases on read-only storage (issue 12).
 *
 * A command that only reads (index show, site, settle, hedge, grades
 * evaluate and list, cost) opens the database with store_open_read: read-
 * only, no journal-mode switch, no migration, no lock file.  It used to
 * open it read-write like every command, and on a read-only mount, a
 * snapshot or a file of another user got "store: reading the database:
 * attempt to write a readonly database".
 *
 * NOTES ON THE DESIGN
 * (1) A WAL database is read through its DB-shm file, which SQLite creates
 *     beside it; in a folder that cannot be written it cannot, and the
 *     first read fails (SQLITE_CANTOPEN).  The database is then opened as
 *     an immutable file (URI parameter immutable=1): no -shm, no locks.
 *     That is exact when DB-wal is absent or empty (every commit is in
 *     the file) -- which is so once the last writer closed it, since
 *     SQLite folds the log into the file then.  A non-empty DB-wal holds
 *     commits the file lacks; reading without it would show an older
 *     database, so that is refused with a message saying what to do.
 *     Nothing can write the database while its folder cannot be written
 *     (a writer needs DB-wal and DB-shm), unless another user may write
 *     there; such a writer creates DB-shm, and the next read-only open
 *     then reads through it as usual.
 * (2) A database with an older schema is migrated by a read-write open
 *     first (as before), which works where it can be written; on read-only
 *     storage the message says so.
 * (3) A command that writes, on read-only storage, says that the database
 *     is read-only and which commands still work, instead of SQLite's
 *     message about the failed statement.
 * (4) Where the database and its folder can be written, a reading command
 *     opens it read-write as before (but its handle refuses store_begin):
 *     a read-only SQLite connection leaves DB-wal and DB-shm behind when
 *     it closes, where the last read-write one removes them.
 */
#include "store/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char read_cmds[] =
    "index show, site, settle, hedge, grades evaluate, grades list and cost only read and "
    "work on it";

/* "file:" URI of path with immutable=1 (malloc'd), percent-encoding what a
 * URI path cannot hold. */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(3 * n + 32);
    if (!u) return NULL;
    size_t k = (size_t)sprintf(u, "file:");
    for (const char *p = path; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f)
            k += (size_t)sprintf(u + k, "%%%02X", c);
        else
            u[k++] = (char)c;
    }
    strcpy(u + k, "?immutable=1");
    return u;
}

gpi_status store_readonly_reopen(store *st, const char *path, gpi_diag *d)
{
    int e = sqlite3_errcode(st->db);
    if (e != SQLITE_CANTOPEN && e != SQLITE_READONLY) return GPI_ESTORE;
    char wal[4200];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(wal, &sb) == 0 && sb.st_size > 0)
        return gpi_diag_set(d, GPI_ESTORE,
                            "%s: the database is on read-only storage and its write-ahead log "
                            "%s holds changes not yet in the file; open it once where it can be "
                            "written (any gpuidx command folds the log in), then read it here",
                            path, wal);
    char *uri = immutable_uri(path);
    if (!uri) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    sqlite3_close(st->db);
    st->db = NULL;
    int rc = sqlite3_open_v2(uri, &st->db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc != SQLITE_OK)
        return gpi_diag_set(d, GPI_ESTORE, "%s: cannot open database: %s", path,
                            st->db ? sqlite3_errmsg(st->db) : "out of memory");
    return GPI_OK;
}

gpi_status store_readonly_why(store *st, const char *path, int mode, gpi_status rc, gpi_diag *d)
{
    int e = st->db ? sqlite3_extended_errcode(st->db) & 0xff : SQLITE_OK;
    if (mode == STORE_OPEN_READ) {
        if (rc != GPI_OK && e == SQLITE_CANTOPEN && !strstr(d ? d->msg : "", "write-ahead"))
            return gpi_diag_set(d, GPI_ESTORE, "%s: cannot read the database: %s", path,
                                sqlite3_errmsg(st->db));
        return rc;
    }
    int ro = sqlite3_db_readonly(st->db, "main") == 1;
    if (ro || (rc != GPI_OK && (e == SQLITE_READONLY || e == SQLITE_CANTOPEN)))
        return gpi_diag_set(d, GPI_ESTORE,
                            "%s: the database is read-only (no write permission on the file or "
                            "its folder, or read-only storage), and this command writes to it; "
                            "%s",
                            path, read_cmds);
    return rc;
}

gpi_status store_readonly_old(const char *path, int version, gpi_diag *d)
{
    if (d && strstr(d->msg, "is read-only"))
        return gpi_diag_set(d, GPI_ESTORE,
                            "%s: the database has schema version %d, older than this gpuidx's "
                            "%d, and is read-only, so it cannot be upgraded; open it once with "
                            "this gpuidx where it can be written",
                            path, version, store_n_migrations);
    return GPI_ESTORE;
}

/* 1 when path and its folder can be written. */
static int writable(const char *path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    return access(path, W_OK) == 0 && access(dir, W_OK) == 0;
}

gpi_status store_open_read(const char *path, store **out, gpi_diag *d)
{
    /* note 4 */
    if (writable(path)) {
        gpi_status rc = store_open_mode(path, STORE_OPEN_EXISTING, out, d);
        if (rc == GPI_OK) (*out)->read_only = 1;
        return rc;
    }
    return store_open_mode(path, STORE_OPEN_READ, out, d);
}
