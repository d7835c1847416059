/* store/store.c -- open, migrate, ingest batches, storing observations, rejects.
 *
 * NOTES ON THE DESIGN
 * (1) Every statement is prepared once (store_open) and reset after use;
 *     nothing builds SQL from data.
 * (2) An ingest batch is one transaction: BEGIN IMMEDIATE in
 *     store_batch_begin, COMMIT in store_batch_commit, ROLLBACK otherwise.
 *     WAL mode lets readers run while it writes.
 * (3) store_obs_put inserts with ON CONFLICT DO NOTHING; only when the key
 *     is already taken does it read the stored row back and compare it, so
 *     a new row costs one b-tree insert.
 * (5) A handle is used by one thread at a time (opened NOMUTEX).  New
 *     databases use 16 KiB pages: a quarter of the page writes and b-tree
 *     levels of 4 KiB pages for the bulk inserts of ingest.
 * (4) synchronous=NORMAL in WAL mode: a commit is durable against a
 *     process crash (the file is either in or out), and an OS crash can at
 *     worst lose the last committed files, never corrupt the database.
 * (6) Writers queue on a lock file: store/tx.c.
 * (7) Duplicates (SPEC §3): the same key, time and identity with the same
 *     values.  "The same values" is every stored value, or else every
 *     value the row itself gave (raw gpu, provider, price, currency, sku,
 *     region, buyer, count, quantity, scope, term, unit, and the tier and
 *     status as written, kept in attrs): a file re-sent after
 *     providers.csv, tiers.csv or fx.csv changed is no new observation
 *     and no conflict either (issue 12).  A row without an id may also
 *     be stored under the identity of version 1 of the rule
 *     (store/alias.c).  What repeats across the rows of an offer is its
 *     profile (store/profiles.c): the stored row's values are read from
 *     the handle's profile cache, not from SQL.
 * (8) The scans (store_obs_scan, store_obs_scan_core) are in scan.c.
 * (9) A producer may number the distinct profiles and identities of a
 *     file (gpi_obs.profile_seq, ident_seq; ingest/pipe.c note 5):
 *     store_obs_put resolves a number on its first row as before (names
 *     interned, profile found or inserted) and keeps the id for the rest
 *     of the batch, so later rows with that number skip the twelve lookups
 *     by text.  A first row always resolves afresh, so two numberings in
 *     one batch cannot mix; store_batch_begin, a rollback and close forget
 *     the numbers.
 * (10) The page cache is small (STORE_CACHE_KIB, 2 MiB) until a batch of
 *     a large file (over STORE_BULK_BYTES, or of unknown size: standard
 *     input, a gzip file, load/load.c) begins; it
 *     is then STORE_BULK_CACHE_KIB (16 MiB) for the rest of the handle's
 *     life.  SQLite allocates a cache page when it first reads one, so
 *     every page a process reads is fresh memory until the cache is full,
 *     and on this machine a fresh page costs more to fault in than a
 *     16 KiB page costs to read again from the OS: the daily job's five
 *     processes faulted 29,600 pages with 16 MiB and 23,600 with 2 MiB,
 *     a sixth of their CPU (BENCHMARKS.md).  Bulk inserts keep the large
 *     cache for the b-tree pages they revisit.
 */
#include "store/internal.h"
#include "core/vec.h"
#include "store/testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

gpi_status store_err(store *st, gpi_diag *d, const char *what)
{
    return gpi_diag_set(d, GPI_ESTORE, "store: %s: %s", what,
                        st && st->db ? sqlite3_errmsg(st->db) : "no database");
}

static const char *const sql_text[ST__N] = {
    [ST_BATCH_FIND] = "SELECT batch_id FROM batches WHERE sha256 = ?1",
    [ST_BATCH_INSERT] =
        "INSERT INTO batches(path, sha256, source, kind_hint, tables_sha256, ingested_at,"
        " n_bytes, options) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_BATCH_SIZE] = "SELECT 1 FROM batches WHERE n_bytes = ?1 LIMIT 1",
    [ST_BATCH_COUNTS] = "UPDATE batches SET n_read = ?2, n_stored = ?3, n_duplicates = ?4,"
                        " n_rejected = ?5, ingested_at = max(?6, coalesce((SELECT reserved + 1"
                        " FROM cutoffs), 0)), min_day = ?7, max_day = ?8 WHERE batch_id = ?1",
    [ST_OBS_INSERT] =
        "INSERT INTO observations(day, key_hash, observed_at, batch_id, profile, price_micro,"
        " quantity_micro, line, ident, buyer, raw_price) VALUES"
        " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT DO NOTHING",
    [ST_BATCH_SHA] = "UPDATE batches SET sha256 = ?2, n_bytes = ?3 WHERE batch_id = ?1",
    [ST_OBS_GET] = "SELECT profile, price_micro, quantity_micro, ident, buyer, raw_price"
                   " FROM observations WHERE day = ?1 AND key_hash = ?2 AND observed_at = ?3",
    [ST_REJECT_INSERT] = "INSERT INTO rejects(batch_id, line, column_name, raw_row, reason)"
                         " VALUES (?1, ?2, ?3, ?4, ?5)",
    /* The scans have no join with batches: the few batches ingested after
     * a cut-off are read first (ST_LATE_BATCHES) and their rows skipped.
     * Nor with profiles: the handle holds them in memory (scan.c). */
    [ST_OBS_SCAN] =
        "SELECT day, key_hash, observed_at, batch_id, profile, price_micro, quantity_micro,"
        " line, ident, buyer, raw_price"
        " FROM observations WHERE day BETWEEN ?1 AND ?2 ORDER BY day, key_hash, observed_at",
    [ST_OBS_SCAN_CORE] =
        "SELECT day, key_hash, observed_at, batch_id, profile, price_micro, quantity_micro"
        " FROM observations WHERE day BETWEEN ?1 AND ?2 ORDER BY day, key_hash, observed_at",
    [ST_LATE_BATCHES] = "SELECT batch_id FROM batches WHERE ingested_at > ?1 ORDER BY batch_id",
};

gpi_status store_exec(store *st, const char *sql, gpi_diag *d)
{
    char *err = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &err) != SQLITE_OK) {
        gpi_diag_set(d, GPI_ESTORE, "store: %s", err ? err : "exec failed");
        sqlite3_free(err);
        return GPI_ESTORE;
    }
    return GPI_OK;
}

/* The integer sql gives, with ?1 and ?2 bound to a and b when it has
 * them; `what` names the read in errors. */
static gpi_status one_int(store *st, const char *sql, int64_t a, int64_t b, int64_t *out,
                          const char *what, gpi_diag *d)
{
    sqlite3_stmt *s = NULL;
    *out = 0;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) return store_err(st, d, what);
    int np = sqlite3_bind_parameter_count(s);
    if (np >= 1) sqlite3_bind_int64(s, 1, a);
    if (np >= 2) sqlite3_bind_int64(s, 2, b);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *out = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? GPI_OK : store_err(st, d, what);
}

static gpi_status user_version(store *st, int *version, gpi_diag *d)
{
    int64_t v;
    gpi_status rc = one_int(st, "PRAGMA user_version", 0, 0, &v, "reading schema version", d);
    *version = (int)v;
    if (rc != GPI_OK) return rc;
    if (*version > store_n_migrations)
        return gpi_diag_set(d, GPI_ESTORE,
                            "store: database schema version %d is newer than this "
                            "gpuidx (%d); upgrade gpuidx",
                            *version, store_n_migrations);
    return GPI_OK;
}

/* Runs the migrations the database lacks, one transaction each.  The
 * version is read again under the write lock: another process opening the
 * same database may have just run the same migration. */
static void compact(store *st);

static gpi_status migrate(store *st, gpi_diag *d)
{
    int version, ran = 0;
    gpi_status rc = user_version(st, &version, d);
    while (rc == GPI_OK && version < store_n_migrations) {
        if ((rc = store_begin(st, d)) != GPI_OK) return rc;
        rc = user_version(st, &version, d);
        if (rc == GPI_OK && version < store_n_migrations) {
            ran = 1;
            rc = store_exec(st, store_migrations[version], d);
            if (rc == GPI_OK && version == store_migration_ident_aliases)
                rc = store_alias_migrate(st, d);
            if (rc == GPI_OK && version == store_migration_profile_packs)
                rc = store_profiles_pack_all(st, d);
            if (rc == GPI_OK) {
                char pragma[64];
                snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", version + 1);
                rc = store_exec(st, pragma, d);
            }
        }
        if (rc != GPI_OK) {
            store_rollback(st);
            return rc;
        }
        if ((rc = store_commit(st, d)) != GPI_OK) {
            store_rollback(st);
            return rc;
        }
    }
    if (rc == GPI_OK && ran) compact(st);
    return rc;
}

/* A migration that rewrites a table (10: observations) leaves the old
 * pages in the file as free pages: when they are more than a quarter of
 * it, VACUUM gives them back (5 s for the 10.6 M-row bench year, a tenth
 * of the migration).  Best effort: when it fails (no disk space for the
 * copy) the database stays as it is, only larger, and later ingests reuse
 * the free pages. */
static void compact(store *st)
{
    int64_t free_pages = 0, pages = 0;
    if (one_int(st, "PRAGMA freelist_count", 0, 0, &free_pages, "reading the file", NULL) !=
            GPI_OK ||
        one_int(st, "PRAGMA page_count", 0, 0, &pages, "reading the file", NULL) != GPI_OK)
        return;
    if (free_pages * 4 > pages) store_vacuum(st);
}

/* A database that is not gpuidx's (it holds tables, but not `batches`,
 * which every schema version has) is refused before anything is changed
 * in it (journal mode included). */
static gpi_status foreign(store *st, gpi_diag *d)
{
    int64_t foreign_objects;
    gpi_status rc = one_int(st,
                            "SELECT CASE WHEN EXISTS (SELECT 1 FROM sqlite_master WHERE type ="
                            " 'table' AND name = 'batches') THEN 0 ELSE (SELECT count(*) FROM"
                            " sqlite_master) END",
                            0, 0, &foreign_objects, "reading the database", d);
    if (rc != GPI_OK) return rc;
    if (foreign_objects > 0)
        return gpi_diag_set(d, GPI_ESTORE,
                            "store: not a gpuidx database (it holds another application's "
                            "tables); nothing was changed");
    return GPI_OK;
}

void store_library_init(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); /* SQLITE_MISUSE once initialized: harmless */
}

gpi_status store_open(const char *path, store **out, gpi_diag *d)
{
    return store_open_mode(path, STORE_OPEN_CREATE, out, d);
}

gpi_status store_open_mode(const char *path, int mode, store **out, gpi_diag *d)
{
    *out = NULL;
    store *st = calloc(1, sizeof *st);
    if (!st) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    st->lock_fd = -1;
    st->any_starts = -1;
    st->read_only = mode == STORE_OPEN_READ;
    /* NOMUTEX: a handle belongs to one thread, so SQLite's per-call
     * connection mutex is pure cost (6% of ingest instructions). */
    int flags = mode == STORE_OPEN_READ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (sqlite3_open_v2(path, &st->db,
                        flags | (mode == STORE_OPEN_CREATE ? SQLITE_OPEN_CREATE : 0) |
                            SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        gpi_diag_set(d, GPI_ESTORE, "%s: cannot open database: %s", path,
                     st->db ? sqlite3_errmsg(st->db) : "out of memory");
        store_close(st);
        return GPI_ESTORE;
    }
    /* the busy timeout, for writers other than gpuidx (tx.c) */
    const char *busy = getenv("GPUIDX_BUSY_TIMEOUT_MS");
    long busy_ms = busy && *busy ? strtol(busy, NULL, 10) : 10000;
    st->busy_ms = busy_ms >= 0 && busy_ms <= 3600000 ? (int)busy_ms : 10000;
    sqlite3_busy_timeout(st->db, st->busy_ms);
    gpi_status rc = foreign(st, d);
    /* read-only storage (readonly.c): a WAL database in a folder that
     * cannot be written is read as an immutable file */
    if (rc != GPI_OK && mode == STORE_OPEN_READ && store_readonly_reopen(st, path, d) == GPI_OK)
        rc = foreign(st, d);
    if (rc != GPI_OK || mode != STORE_OPEN_READ) rc = store_readonly_why(st, path, mode, rc, d);
    int version = 0;
    if (rc == GPI_OK && mode == STORE_OPEN_READ && (rc = user_version(st, &version, d)) == GPI_OK) {
        if (version == store_n_migrations) goto prepare;
        store_close(st); /* older: migrated by a read-write open, where it can be written */
        rc = store_open_mode(path, STORE_OPEN_EXISTING, out, d);
        return rc == GPI_OK ? rc : store_readonly_old(path, version, d);
    }
    /* Switching a new database to WAL does not wait on the busy handler:
     * when several processes create one database at once, the losers get
     * SQLITE_BUSY at once, so they retry here for up to the busy timeout. */
    for (time_t t0 = time(NULL); rc == GPI_OK;) {
        int e = sqlite3_exec(st->db,
                             "PRAGMA page_size = 16384;"
                             "PRAGMA journal_mode = WAL;"
                             "PRAGMA synchronous = NORMAL;"
                             "PRAGMA foreign_keys = ON;"
                             "PRAGMA cache_size = -" STORE_STR(STORE_CACHE_KIB) ";",
                             NULL, NULL, NULL);
        if (e == SQLITE_OK) break;
        if (e != SQLITE_BUSY || time(NULL) - t0 > 10) {
            rc = store_err(st, d, "setting up the connection");
            break;
        }
        sqlite3_sleep(10);
    }
    if (rc == GPI_OK) rc = migrate(st, d);
prepare:
    for (int i = 0; rc == GPI_OK && i < ST__N; i++)
        if (sqlite3_prepare_v3(st->db, sql_text[i], -1, SQLITE_PREPARE_PERSISTENT,
                               &st->stmt[i], NULL) != SQLITE_OK)
            rc = store_err(st, d, "preparing statement");
    if (rc != GPI_OK) {
        if (d && strncmp(d->msg, path, strlen(path)) != 0) {
            char tmp[sizeof d->msg];
            snprintf(tmp, sizeof tmp, "%s: %s", path, d->msg);
            memcpy(d->msg, tmp, sizeof tmp);
        }
        store_close(st);
        return rc;
    }
    *out = st;
    return GPI_OK;
}

gpi_status store_open_again(store *st, store **out, gpi_diag *d)
{
    const char *path = sqlite3_db_filename(st->db, "main");
    *out = NULL;
    if (!path || !*path) return gpi_diag_set(d, GPI_EUSAGE, "store: the database has no file");
    /* a reader beside a writer needs WAL (in rollback-journal mode the
     * writer's commit would wait for the reader's lock) */
    sqlite3_stmt *s = NULL;
    int wal = 0;
    if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        const char *m = (const char *)sqlite3_column_text(s, 0);
        wal = m && strcmp(m, "wal") == 0;
    }
    sqlite3_finalize(s);
    if (!wal) return gpi_diag_set(d, GPI_EUSAGE, "store: the database is not in WAL mode");
    /* never create: the file must be the one st has open */
    return store_open_mode(path, st->read_only ? STORE_OPEN_READ : STORE_OPEN_EXISTING, out, d);
}

void store_close(store *st)
{
    if (!st) return;
    if (st->in_tx) store_rollback(st);
    store_names_reset(st);
    store_profiles_reset(st);
    store_hints_reset(st);
    store_alias_reset(st);
    for (int i = 0; i < ST__N; i++) sqlite3_finalize(st->stmt[i]);
    for (int i = 0; i < STORE_EXTRA_STMTS; i++) {
        sqlite3_finalize(st->extra[i]);
        free(st->extra_sql[i]);
    }
    sqlite3_close(st->db);
    if (st->lock_fd >= 0) close(st->lock_fd); /* releases the lock, if held */
    free(st);
}

sqlite3_stmt *store_stmt(store *st, int slot, const char *sql, gpi_diag *d)
{
    if (slot < 0 || slot >= STORE_EXTRA_STMTS) {
        gpi_diag_set(d, GPI_ESTORE, "store: statement slot %d out of range", slot);
        return NULL;
    }
    if (st->extra[slot] && st->extra_sql_at[slot] != (uintptr_t)sql &&
        strcmp(st->extra_sql[slot], sql) != 0) {
        gpi_diag_set(d, GPI_ESTORE, "store: statement slot %d holds another query (\"%.60s\"), "
                     "not \"%.60s\"", slot, st->extra_sql[slot], sql);
        return NULL;
    }
    if (!st->extra[slot]) {
        if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->extra[slot],
                               NULL) != SQLITE_OK) {
            store_err(st, d, "preparing statement");
            return NULL;
        }
        free(st->extra_sql[slot]);
        if (!(st->extra_sql[slot] = strdup(sql))) {
            sqlite3_finalize(st->extra[slot]);
            st->extra[slot] = NULL;
            gpi_diag_set(d, GPI_ENOMEM, "out of memory");
            return NULL;
        }
    }
    st->extra_sql_at[slot] = (uintptr_t)sql;
    sqlite3_reset(st->extra[slot]);
    sqlite3_clear_bindings(st->extra[slot]);
    return st->extra[slot];
}

gpi_status store_step_done(store *st, sqlite3_stmt *s, gpi_diag *d, const char *what)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GPI_OK : store_err(st, d, what);
}

/* ---- batches ------------------------------------------------------------- */

static sqlite3_stmt *use(store *st, int i)
{
    sqlite3_reset(st->stmt[i]);
    sqlite3_clear_bindings(st->stmt[i]);
    return st->stmt[i];
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}

gpi_status store_batch_find(store *st, const char *sha256, int *found, int64_t *batch_id,
                            gpi_diag *d)
{
    sqlite3_stmt *s = use(st, ST_BATCH_FIND);
    bind_text(s, 1, sha256);
    int rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (*found && batch_id) *batch_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_err(st, d, "finding batch");
    return GPI_OK;
}

gpi_status store_batch_size_seen(store *st, int64_t n_bytes, int *seen, gpi_diag *d)
{
    sqlite3_stmt *s = use(st, ST_BATCH_SIZE);
    sqlite3_bind_int64(s, 1, n_bytes);
    int rc = sqlite3_step(s);
    *seen = rc == SQLITE_ROW;
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_err(st, d, "finding batch");
    return GPI_OK;
}

gpi_status store_batch_begin(store *st, const store_batch_info *info, int64_t *batch_id,
                             gpi_diag *d)
{
    gpi_status rc = store_begin(st, d);
    if (rc != GPI_OK) return rc;
    sqlite3_stmt *s = use(st, ST_BATCH_INSERT);
    bind_text(s, 1, info->path);
    bind_text(s, 2, info->sha256);
    bind_text(s, 3, info->source);
    bind_text(s, 4, info->kind_hint);
    bind_text(s, 5, info->tables_sha256);
    sqlite3_bind_int64(s, 6, info->ingested_at);
    if (info->n_bytes >= 0)
        sqlite3_bind_int64(s, 7, info->n_bytes);
    else
        sqlite3_bind_null(s, 7);
    bind_text(s, 8, info->options);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = store_err(st, d, "recording batch");
        sqlite3_reset(s);
        store_rollback(st);
        return rc;
    }
    sqlite3_reset(s);
    *batch_id = sqlite3_last_insert_rowid(st->db);
    if (!st->bulk_cache && (info->n_bytes < 0 || info->n_bytes > STORE_BULK_BYTES)) {
        /* note 10; a cache that cannot grow only costs time */
        st->bulk_cache = 1;
        sqlite3_exec(st->db, "PRAGMA cache_size = -" STORE_STR(STORE_BULK_CACHE_KIB), NULL, NULL,
                     NULL);
    }
    store_hints_reset(st);
    st->batch_min_day = INT32_MAX;
    st->batch_max_day = INT32_MIN;
    return GPI_OK;
}

gpi_status store_batch_set_sha256(store *st, int64_t batch_id, const char *sha256,
                                  int64_t n_bytes, gpi_diag *d)
{
    sqlite3_stmt *s = use(st, ST_BATCH_SHA);
    sqlite3_bind_int64(s, 1, batch_id);
    bind_text(s, 2, sha256);
    sqlite3_bind_int64(s, 3, n_bytes);
    int ok = sqlite3_step(s) == SQLITE_DONE;
    sqlite3_reset(s);
    return ok ? GPI_OK : store_err(st, d, "recording batch hash");
}

gpi_status store_batch_commit(store *st, int64_t batch_id, const store_batch_counts *c,
                              int64_t committed_at, gpi_diag *d)
{
    sqlite3_stmt *s = use(st, ST_BATCH_COUNTS);
    sqlite3_bind_int64(s, 1, batch_id);
    sqlite3_bind_int64(s, 2, c->read);
    sqlite3_bind_int64(s, 3, c->stored);
    sqlite3_bind_int64(s, 4, c->duplicates);
    sqlite3_bind_int64(s, 5, c->rejected);
    sqlite3_bind_int64(s, 6, committed_at);
    if (st->batch_min_day <= st->batch_max_day) { /* the days of its stored rows */
        sqlite3_bind_int64(s, 7, st->batch_min_day);
        sqlite3_bind_int64(s, 8, st->batch_max_day);
    } else {
        sqlite3_bind_null(s, 7);
        sqlite3_bind_null(s, 8);
    }
    int ok = sqlite3_step(s) == SQLITE_DONE;
    sqlite3_reset(s);
    if (!ok) {
        gpi_status rc = store_err(st, d, "recording batch counts");
        store_rollback(st);
        return rc;
    }
    gpi_status rc = store_commit(st, d);
    if (rc != GPI_OK) store_rollback(st);
    return rc;
}

gpi_status store_cutoff_reserve(store *st, int64_t *as_of, int latest, gpi_diag *d)
{
    gpi_status rc = store_begin(st, d);
    if (rc != GPI_OK) return rc;
    int64_t last = 0;
    if (latest)
        rc = one_int(st, "SELECT coalesce(max(ingested_at), 0) FROM batches", 0, 0, &last,
                     "reading batches", d);
    if (rc != GPI_OK) {
        store_rollback(st);
        return rc;
    }
    if (last > *as_of) *as_of = last;
    sqlite3_stmt *s = NULL;
    int ok = sqlite3_prepare_v2(st->db,
                                "INSERT INTO cutoffs(id, reserved) VALUES (1, ?1) ON CONFLICT(id)"
                                " DO UPDATE SET reserved = max(reserved, excluded.reserved)",
                                -1, &s, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(s, 1, *as_of);
        ok = sqlite3_step(s) == SQLITE_DONE;
    }
    if (!ok) rc = store_err(st, d, "reserving the cut-off");
    sqlite3_finalize(s);
    if (rc == GPI_OK) rc = store_commit(st, d);
    if (rc != GPI_OK) store_rollback(st);
    return rc;
}

gpi_status store_batch_max_id(store *st, int64_t *max_id, gpi_diag *d)
{
    return one_int(st, "SELECT coalesce(max(batch_id), 0) FROM batches", 0, 0, max_id,
                   "reading batches", d);
}

gpi_status store_batches_since(store *st, int64_t max_id, int64_t as_of, long *n, gpi_diag *d)
{
    int64_t v;
    gpi_status rc = one_int(st, "SELECT count(*) FROM batches WHERE batch_id > ?1 AND"
                                " ingested_at <= ?2", max_id, as_of, &v, "reading batches", d);
    *n = (long)v;
    return rc;
}

void store_batch_rollback(store *st)
{
    if (st->in_tx) store_rollback(st);
}

/* ---- observations -------------------------------------------------------- */

/* NULL and "" compare equal: an absent optional field is an empty one. */
static int str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The small enumerations of an observation packed into one integer (schema
 * note 6): kind bit 0, scope bits 1-2, tier 3-5, term 6-7, status 8-9,
 * unit 10-11, term_months 12-17, covers 18-19; then what the row itself
 * gave (note 7): tier given bit 20, status as written 21-22, and bit 23
 * set when 20-22 are known (rows stored before have 0 there). */
#define ATTRS_NORMALIZED STORE_ATTRS_NORMALIZED
#define ATTRS_AS_WRITTEN (INT64_C(3) << 1 | INT64_C(3) << 6 | INT64_C(3) << 10 | INT64_C(63) << 12)
#define ATTRS_GIVEN_SHIFT 20
#define ATTRS_GIVEN_KNOWN (INT64_C(1) << 23)
static int64_t store_obs_attrs(const gpi_obs *o)
{
    return (int64_t)(o->kind & 1) | (int64_t)(o->scope & 3) << 1 | (int64_t)(o->tier & 7) << 3 |
           (int64_t)(o->term & 3) << 6 | (int64_t)(o->status & 3) << 8 |
           (int64_t)(o->unit & 3) << 10 | (int64_t)(o->term_months & 63) << 12 |
           (int64_t)(o->covers & 3) << 18 | (int64_t)(o->tier_given & 1) << ATTRS_GIVEN_SHIFT |
           (int64_t)(o->status_given & 3) << (ATTRS_GIVEN_SHIFT + 1) | ATTRS_GIVEN_KNOWN;
}

/* A stored row as ST_OBS_GET reads it, with its profile. */
typedef struct stored_row {
    const store_profile *p;
    int64_t price_micro, quantity_micro; /* quantity -1 when NULL */
    const char *ident;                   /* as text (interned or not) */
    const char *buyer, *raw_price;
} stored_row;

/* Reads the row of ST_OBS_GET's current step; 0 when its profile or its
 * interned identity cannot be had. */
static int stored_read(store *st, sqlite3_stmt *g, stored_row *r)
{
    r->p = store_profile_get(st, sqlite3_column_int64(g, 0));
    r->price_micro = sqlite3_column_int64(g, 1);
    r->quantity_micro = sqlite3_column_type(g, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(g, 2);
    r->ident = sqlite3_column_type(g, 3) == SQLITE_INTEGER
                   ? store_name_text(st, sqlite3_column_int64(g, 3))
                   : (const char *)sqlite3_column_text(g, 3);
    r->buyer = (const char *)sqlite3_column_text(g, 4);
    r->raw_price = (const char *)sqlite3_column_text(g, 5);
    return r->p != NULL;
}

/* Note 7: o (profile values p) against the stored row r (same key, time
 * and identity): a duplicate when every stored value is the same, or when
 * every value the row itself gave is (only the tables changed since);
 * else a conflict. */
static store_put_result duplicate_or_conflict(const stored_row *r, const gpi_obs *o,
                                              const store_profile *p)
{
    const store_profile *sp = r->p;
    int64_t sa = sp->attrs, attrs = p->attrs;
    int common = r->quantity_micro == o->quantity_micro && sp->gpu_count == o->gpu_count &&
                 sp->name[STORE_P_REGION] == p->name[STORE_P_REGION] && str_eq(r->buyer, o->buyer);
    if (common && (sa & ATTRS_NORMALIZED) == (attrs & ATTRS_NORMALIZED) &&
        sp->name[STORE_P_GPU] == p->name[STORE_P_GPU] &&
        sp->name[STORE_P_PROVIDER] == p->name[STORE_P_PROVIDER] &&
        sp->name[STORE_P_GRP] == p->name[STORE_P_GRP] &&
        sp->name[STORE_P_SEGMENT] == p->name[STORE_P_SEGMENT] && r->price_micro == o->price_micro)
        return STORE_PUT_DUPLICATE;
    int written = common && (sa & ATTRS_AS_WRITTEN) == (attrs & ATTRS_AS_WRITTEN) &&
                  sp->name[STORE_P_RAW_GPU] == p->name[STORE_P_RAW_GPU] &&
                  sp->name[STORE_P_RAW_PROVIDER] == p->name[STORE_P_RAW_PROVIDER] &&
                  str_eq(r->raw_price, o->raw_price) &&
                  sp->name[STORE_P_CURRENCY] == p->name[STORE_P_CURRENCY] &&
                  sp->name[STORE_P_SKU] == p->name[STORE_P_SKU];
    int tier = (int)(sa >> 3 & 7), status = (int)(sa >> 8 & 3);
    if (written && (sa & ATTRS_GIVEN_KNOWN)) /* the tier if given, the status as given */
        written = (sa >> ATTRS_GIVEN_SHIFT & 7) == (attrs >> ATTRS_GIVEN_SHIFT & 7) &&
                  (!o->tier_given || tier == o->tier);
    else if (written) /* stored before: what it was stored with */
        written = tier == o->tier && status == o->status;
    return written ? STORE_PUT_DUPLICATE : STORE_PUT_CONFLICT;
}

/* alias.c note 3: o (no id) may be a row stored under its version 1 key.
 * *found = 1 with *res when it is. */
static gpi_status legacy_row(store *st, const gpi_obs *o, const store_profile *p, int *found,
                             store_put_result *res, gpi_diag *d)
{
    uint64_t legacy[4];
    int n = 0;
    *found = 0;
    gpi_status rc = store_alias_legacy(st, o->key_hash, legacy, 4, &n, d);
    char v2[4096];
    for (int i = 0; i < n && rc == GPI_OK && !*found; i++) {
        sqlite3_stmt *g = use(st, ST_OBS_GET);
        sqlite3_bind_int64(g, 1, o->day);
        sqlite3_bind_int64(g, 2, (sqlite3_int64)legacy[i]);
        sqlite3_bind_int64(g, 3, o->observed_at);
        int step = sqlite3_step(g);
        stored_row r;
        if (step == SQLITE_ROW && !stored_read(st, g, &r)) {
            rc = store_err(st, d, "reading profiles");
        } else if (step == SQLITE_ROW && (r.p->attrs & 1) == o->kind &&
                   r.p->name[STORE_P_SOURCE] == p->name[STORE_P_SOURCE]) {
            /* its identity, upgraded, must be o's: no collision assumed */
            const char *canon = store_name_text(st, r.p->name[STORE_P_PROVIDER]);
            const char *raw = store_name_text(st, r.p->name[STORE_P_RAW_PROVIDER]);
            if (gpi_ident_upgrade(r.ident, o->kind, canon, raw,
                                  gpi_trade_status_name(o->status_given), v2, sizeof v2) == 0 &&
                o->ident && strcmp(v2, o->ident) == 0) {
                *found = 1;
                *res = duplicate_or_conflict(&r, o, p);
            }
        } else if (step != SQLITE_ROW && step != SQLITE_DONE) {
            rc = store_err(st, d, "reading stored observation");
        }
        sqlite3_reset(g);
    }
    return rc;
}

void store_hints_reset(store *st)
{
    free(st->hint_profile);
    free(st->hint_ident);
    st->hint_profile = st->hint_ident = NULL;
    st->cap_hint_profile = st->cap_hint_ident = 0;
}

/* Note 9: what number seq (0: none) was resolved to in this batch, or 0;
 * a first row resolves its number afresh. */
static int64_t hinted(const int64_t *v, size_t cap, uint32_t seq, unsigned char first)
{
    return seq && !first && seq < cap ? v[seq] : 0;
}

/* Note 9: records that number seq is id (best effort: without memory the
 * number is simply resolved again next time). */
static void hint(int64_t **v, size_t *cap, uint32_t seq, int64_t id)
{
    if (seq && GPI_VEC_RESERVE_ZERO(*v, *cap, (size_t)seq + 1) == 0) (*v)[seq] = id;
}

/* The profile of o, its id in *profile and its values in *p. */
static gpi_status profile_of(store *st, const gpi_obs *o, int64_t *profile, store_profile *p,
                             gpi_diag *d)
{
    *profile = hinted(st->hint_profile, st->cap_hint_profile, o->profile_seq, o->profile_first);
    const store_profile *known = *profile ? store_profile_get(st, *profile) : NULL;
    if (known) {
        *p = *known;
        return GPI_OK;
    }
    /* the profile's interned columns, in the order of STORE_P_* */
    const char *text[GPI_PROFILE_TEXTS];
    int32_t ints[GPI_PROFILE_INTS];
    gpi_obs_profile(o, text, ints);
    memset(p, 0, sizeof *p);
    for (int i = 0; i < STORE_PROFILE_NAMES; i++) {
        int64_t id;
        gpi_status rc = store_name_id_memo(st, i, text[i], &id, d);
        if (rc != GPI_OK) return rc;
        p->name[i] = (int32_t)id; /* names.c keeps ids <= INT32_MAX */
    }
    p->attrs = store_obs_attrs(o);
    p->gpu_count = o->gpu_count;
    gpi_status rc = store_profile_id(st, p, profile, d);
    if (rc == GPI_OK) hint(&st->hint_profile, &st->cap_hint_profile, o->profile_seq, *profile);
    return rc;
}

gpi_status store_obs_put(store *st, int64_t batch_id, const gpi_obs *o, store_put_result *res,
                         gpi_diag *d)
{
    store_profile p;
    int64_t profile;
    gpi_status prc = profile_of(st, o, &profile, &p, d);
    if (prc != GPI_OK) return prc;
    /* An offer's ident repeats in every snapshot: intern it.  A trade's is
     * usually unique: keep it as text (schema note 4). */
    int64_t ident_id = 0;
    if (o->kind == GPI_OFFER && st->names.n_text < STORE_MAX_INTERNED) {
        ident_id = hinted(st->hint_ident, st->cap_hint_ident, o->ident_seq, o->ident_first);
        if (!ident_id) {
            gpi_status rc = store_name_id_memo(st, STORE_PROFILE_NAMES, o->ident, &ident_id, d);
            if (rc != GPI_OK) return rc;
            hint(&st->hint_ident, &st->cap_hint_ident, o->ident_seq, ident_id);
        }
    }
    if (!o->id) { /* stored under its version 1 identity? */
        int found = 0;
        gpi_status rc = legacy_row(st, o, &p, &found, res, d);
        if (rc != GPI_OK || found) return rc;
    }
    sqlite3_stmt *s = st->stmt[ST_OBS_INSERT];
    sqlite3_bind_int64(s, 1, o->day);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)o->key_hash);
    sqlite3_bind_int64(s, 3, o->observed_at);
    sqlite3_bind_int64(s, 4, batch_id);
    sqlite3_bind_int64(s, 5, profile);
    sqlite3_bind_int64(s, 6, o->price_micro);
    if (o->quantity_micro >= 0)
        sqlite3_bind_int64(s, 7, o->quantity_micro);
    else
        sqlite3_bind_null(s, 7);
    sqlite3_bind_int64(s, 8, o->line);
    if (ident_id > 0)
        sqlite3_bind_int64(s, 9, ident_id);
    else
        bind_text(s, 9, o->ident);
    bind_text(s, 10, o->buyer);
    bind_text(s, 11, o->raw_price);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return store_err(st, d, "storing observation");
    if (sqlite3_changes(st->db) == 1) {
        *res = STORE_PUT_STORED;
        if (o->day < st->batch_min_day) st->batch_min_day = o->day;
        if (o->day > st->batch_max_day) st->batch_max_day = o->day;
        if (o->starts_on) {
            gpi_status src = store_obs_start_put(st, o, d);
            if (src != GPI_OK) return src;
        }
        /* the profile's facet (profiles.c note 6), once per profile */
        store_profile *sp = store_profile_get(st, profile);
        if (!sp) return store_err(st, d, "reading profiles");
        return sp->facet_noted ? GPI_OK : store_profile_noted(st, profile, d);
    }
    /* The key is taken: same identity and values is a duplicate. */
    sqlite3_stmt *g = use(st, ST_OBS_GET);
    sqlite3_bind_int64(g, 1, o->day);
    sqlite3_bind_int64(g, 2, (sqlite3_int64)o->key_hash);
    sqlite3_bind_int64(g, 3, o->observed_at);
    rc = sqlite3_step(g);
    stored_row r;
    if (rc != SQLITE_ROW || !stored_read(st, g, &r)) {
        sqlite3_reset(g);
        return store_err(st, d,
                         rc != SQLITE_ROW ? "reading stored observation" : "reading profiles");
    }
    /* compare identities as text: the stored one may be interned or not */
    int same_ident = r.ident && o->ident && strcmp(r.ident, o->ident) == 0;
    if ((r.p->attrs & 1) != o->kind || !same_ident ||
        r.p->name[STORE_P_SOURCE] != p.name[STORE_P_SOURCE])
        *res = STORE_PUT_COLLISION;
    else
        *res = duplicate_or_conflict(&r, o, &p);
    sqlite3_reset(g);
    /* a forward start is one of the values (store/curves.c) */
    if (*res == STORE_PUT_DUPLICATE) return store_obs_start_same(st, o, res, d);
    return GPI_OK;
}

gpi_status store_reject_put(store *st, int64_t batch_id, long line, const char *column,
                            const char *raw_row, const char *reason, gpi_diag *d)
{
    sqlite3_stmt *s = use(st, ST_REJECT_INSERT);
    sqlite3_bind_int64(s, 1, batch_id);
    sqlite3_bind_int64(s, 2, line);
    bind_text(s, 3, column);
    bind_text(s, 4, raw_row);
    bind_text(s, 5, reason);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "storing reject");
}
