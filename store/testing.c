/* store/testing.c -- the hooks of store/testing.h that have no other home:
 * totals of the main tables and the page cache's size, for reports and
 * tests.  Ownership: as stated once in store/store.h. */
#include "store/internal.h"
#include "store/testing.h"

#include <string.h>

long store_cache_kib(store *st)
{
    sqlite3_stmt *s = NULL;
    long kib = 0;
    if (sqlite3_prepare_v2(st->db, "PRAGMA cache_size", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        sqlite3_int64 v = sqlite3_column_int64(s, 0); /* negative: KiB; else pages */
        kib = v < 0 ? (long)-v : (long)(v * 16);
    }
    sqlite3_finalize(s);
    return kib;
}

gpi_status store_count(store *st, const char *table, long *n, gpi_diag *d)
{
    static const char *const tables[] = {"batches", "observations", "rejects"};
    static const char *const sql[] = {"SELECT count(*) FROM batches",
                                      "SELECT count(*) FROM observations",
                                      "SELECT count(*) FROM rejects"};
    for (int i = 0; i < 3; i++) {
        if (strcmp(table, tables[i]) != 0) continue;
        sqlite3_stmt *s = store_stmt(st, STORE_EXTRA_STMTS - 1 - i, sql[i], d);
        if (!s) return GPI_ESTORE;
        int rc = sqlite3_step(s);
        *n = rc == SQLITE_ROW ? (long)sqlite3_column_int64(s, 0) : 0;
        sqlite3_reset(s);
        return rc == SQLITE_ROW ? GPI_OK : store_err(st, d, "counting");
    }
    return gpi_diag_set(d, GPI_EUSAGE, "store: unknown table %s", table);
}

gpi_status store_testing_slot(store *st, int slot, const char *sql, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, slot, sql, d);
    if (!s) return GPI_ESTORE;
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "stepping");
}
