/* store/curves.c -- forward starts and the curve files of vintages
 * (store/curves.h; schema migration 15).
 *
 * NOTES ON THE DESIGN
 * (1) A start is one row of obs_starts under the observation's key (day,
 *     key_hash, observed_at), written in the transaction that stores the
 *     observation.  Most observations have none, so the observations
 *     table, its inserts and its scans are unchanged; a reader of starts
 *     asks for a day's (a handful of rows) and joins them by key.
 * (2) A duplicate of a stored row must also have its start (none = none):
 *     store_obs_start_same reads the stored start only when the new row
 *     has one or the database holds any (asked once per handle), so a
 *     re-sent file without starts costs no query per row.
 */
#include "store/internal.h"
#include "store/curves.h"

#include <stdlib.h>
#include <string.h>

#define CV_SLOT(i) (49 + (i)) /* store_sets.c has 40..48, profiles.c from 56: 7 at most */
enum { CV_PUT, CV_GET, CV_ANY, CV_DAY, CV_VPUT, CV_VGET, CV_VCSV };

static const char *const cv_sql[] = {
    [CV_PUT] = "INSERT OR REPLACE INTO obs_starts(day, key_hash, observed_at, starts_on)"
               " VALUES (?1, ?2, ?3, ?4)",
    [CV_GET] = "SELECT starts_on FROM obs_starts WHERE day = ?1 AND key_hash = ?2"
               " AND observed_at = ?3",
    [CV_ANY] = "SELECT EXISTS (SELECT 1 FROM obs_starts)",
    [CV_DAY] = "SELECT key_hash, observed_at, starts_on FROM obs_starts WHERE day = ?1"
               " ORDER BY key_hash, observed_at",
    [CV_VPUT] = "INSERT OR REPLACE INTO vintage_curves(day, vintage, csv_sha256, json_sha256,"
                " futures, curve_csv) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [CV_VGET] = "SELECT csv_sha256, json_sha256, futures FROM vintage_curves"
                " WHERE day = ?1 AND vintage = ?2",
    /* ?2 = -1: the latest vintage, 1: the first (one statement, one slot) */
    [CV_VCSV] = "SELECT curve_csv FROM vintage_curves WHERE day = ?1"
                " ORDER BY vintage * ?2 LIMIT 1",
};

gpi_status store_obs_start_put(store *st, const gpi_obs *o, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, CV_SLOT(CV_PUT), cv_sql[CV_PUT], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, o->day);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)o->key_hash);
    sqlite3_bind_int64(s, 3, o->observed_at);
    sqlite3_bind_int64(s, 4, o->starts_on);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return store_err(st, d, "storing a forward start");
    st->any_starts = 1;
    return GPI_OK;
}

gpi_status store_obs_start_same(store *st, const gpi_obs *o, store_put_result *res, gpi_diag *d)
{
    if (!o->starts_on && st->any_starts < 0) {
        sqlite3_stmt *a = store_stmt(st, CV_SLOT(CV_ANY), cv_sql[CV_ANY], d);
        if (!a) return GPI_ESTORE;
        int rc = sqlite3_step(a);
        st->any_starts = rc == SQLITE_ROW ? sqlite3_column_int(a, 0) != 0 : 1;
        sqlite3_reset(a);
    }
    if (!o->starts_on && !st->any_starts) return GPI_OK;
    sqlite3_stmt *s = store_stmt(st, CV_SLOT(CV_GET), cv_sql[CV_GET], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, o->day);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)o->key_hash);
    sqlite3_bind_int64(s, 3, o->observed_at);
    int rc = sqlite3_step(s);
    int32_t stored = rc == SQLITE_ROW ? (int32_t)sqlite3_column_int64(s, 0) : 0;
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_err(st, d, "reading a forward start");
    if (stored != o->starts_on) *res = STORE_PUT_CONFLICT;
    return GPI_OK;
}

gpi_status store_obs_starts(store *st, int32_t day, store_start_fn fn, void *ud, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, CV_SLOT(CV_DAY), cv_sql[CV_DAY], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (fn((uint64_t)sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
               (int32_t)sqlite3_column_int64(s, 2), ud))
            break;
    int done = rc == SQLITE_ROW || rc == SQLITE_DONE;
    sqlite3_reset(s);
    return done ? GPI_OK : store_err(st, d, "reading forward starts");
}

gpi_status store_vintage_curve_put(store *st, int32_t day, int vintage, const char *csv_sha,
                                   const char *json_sha, const char *futures,
                                   const char *curve_csv, size_t csv_len, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, CV_SLOT(CV_VPUT), cv_sql[CV_VPUT], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int64(s, 2, vintage);
    sqlite3_bind_text(s, 3, csv_sha, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, json_sha, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, futures ? futures : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, curve_csv ? curve_csv : "", curve_csv ? (int)csv_len : 0, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "recording a vintage's curve files");
}

gpi_status store_vintage_curve_get(store *st, int32_t day, int vintage, int *present,
                                   char csv_sha[65], char json_sha[65], char **futures,
                                   gpi_diag *d)
{
    *present = 0;
    *futures = NULL;
    csv_sha[0] = json_sha[0] = '\0';
    sqlite3_stmt *s = store_stmt(st, CV_SLOT(CV_VGET), cv_sql[CV_VGET], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int64(s, 2, vintage);
    int rc = sqlite3_step(s);
    gpi_status out = GPI_OK;
    if (rc == SQLITE_ROW) {
        const char *a = (const char *)sqlite3_column_text(s, 0);
        const char *b = (const char *)sqlite3_column_text(s, 1);
        const char *f = (const char *)sqlite3_column_text(s, 2);
        snprintf(csv_sha, 65, "%s", a ? a : "");
        snprintf(json_sha, 65, "%s", b ? b : "");
        *futures = strdup(f ? f : "");
        if (!*futures) out = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        *present = 1;
    } else if (rc != SQLITE_DONE) {
        out = store_err(st, d, "reading a vintage's curve files");
    }
    sqlite3_reset(s);
    return out;
}

gpi_status store_vintage_curve_csv(store *st, int32_t day, int first, char **csv, gpi_diag *d)
{
    *csv = NULL;
    sqlite3_stmt *s = store_stmt(st, CV_SLOT(CV_VCSV), cv_sql[CV_VCSV], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, first ? 1 : -1);
    int rc = sqlite3_step(s);
    gpi_status out = GPI_OK;
    if (rc == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        if (!(*csv = strdup(t ? t : ""))) out = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    } else if (rc != SQLITE_DONE) {
        out = store_err(st, d, "reading a vintage's curve.csv");
    }
    sqlite3_reset(s);
    return out;
}
