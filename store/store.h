/* store/store.h -- the SQLite store: the only module that touches SQL.
 *
 * One database file holds ingest batches, observations, rejects and
 * everything the index publishes.  The schema is versioned (PRAGMA
 * user_version) and migrated on open; WAL mode and foreign keys are on.
 * Every statement is prepared once per handle and reused.
 *
 * This header is the handle: opening, closing, write transactions.  The
 * rest of the API is split by concern, one header each:
 *
 *   store/obs.h           observations and rejects: put, scan, facets
 *   store/batches.h       ingest batches (one file, one transaction) and
 *                         the build cut-off
 *   store/index_values.h  the index's stored rows and series
 *   store/grades.h        grade definitions, built and dropped grades
 *   store/vintages.h      publication: vintages, restatements, revisions
 *   store/testing.h       hooks for tests only (compiled only where
 *                         GPI_STORE_TESTING is defined: tests/, store/)
 *
 * Each includes this header, and this header none of them: a file
 * includes the header of each concern it uses, so its includes say which
 * parts of the store it touches.
 *
 * Concurrency: any number of gpuidx processes may use one database at
 * once.  Write transactions (store_begin) queue on a lock file DB.lock
 * beside the database and wait for their turn as long as it takes, one at
 * a time; reads never wait.  Two write transactions on two handles of one
 * process would wait for each other forever: a process writes through one
 * handle at a time.
 *
 * Ownership, for the whole store API (this header and the concern
 * headers): store_open() returns a handle the caller frees with
 * store_close(); store_close(NULL) is a no-op.  Strings and records passed
 * in are borrowed for the call.  Records and strings handed to callbacks
 * are valid only during the callback (copy what you keep).  Arrays and
 * strings returned through an out-parameter (**out) are malloc'd; the
 * caller frees them with free().
 */
#ifndef GPI_STORE_H
#define GPI_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "core/index_day.h"
#include "core/obs.h"

typedef struct store store;

/* Process-wide SQLite settings, for a program to call once before its
 * first store_open (cli/main.c does; without it everything still works):
 * SQLite's memory statistics off, whose global mutex cost 2 % of an ingest
 * once the parser runs in a second thread. */
void store_library_init(void);

/* Opens (creating if needed) and migrates the database at path.  On error
 * *out is NULL and d says why. */
gpi_status store_open(const char *path, store **out, gpi_diag *d);
/* Opens an existing database for reading only (store/readonly.c): no lock
 * file, nothing written, so it works on read-only storage; a handle whose
 * every write fails (store_begin says so).  A database with an older
 * schema is first migrated by a read-write open. */
gpi_status store_open_read(const char *path, store **out, gpi_diag *d);
void store_close(store *st);
/* Another handle on st's database file (for a reader in another thread: a
 * handle belongs to one thread at a time); close it with store_close.
 * GPI_EUSAGE for a database without a file or not in WAL mode (where a
 * reader would hold up the writer's commits). */
gpi_status store_open_again(store *st, store **out, gpi_diag *d);

/* Runs fn inside one write transaction (BEGIN IMMEDIATE .. COMMIT, or
 * ROLLBACK when fn returns non-OK).  For modules that write several rows
 * that must land together. */
gpi_status store_begin(store *st, gpi_diag *d);
gpi_status store_commit(store *st, gpi_diag *d);
void store_rollback(store *st);

/* Inside a write transaction: 1 when another writer waits for the
 * writers' lock, 0 when none does, -1 when it cannot be known (no lock
 * file, or one this process cannot write).  After a commit that found
 * writers waiting, store_writers_let_in returns once they all hold or had
 * the lock (tx.c: the waiting writers). */
int store_writers_waiting(store *st);
void store_writers_let_in(store *st);

#endif
