/* store/publication.c -- what file format 4 keeps of a publication
 * (store/vintages.h): each vintage's place in the order of publications
 * and the members its index.json holds besides the rows, the rows whose
 * value stands while their other fields are revised, the published days;
 * and the batches after a cut-off (store/batches.h), which say which
 * published days got late data.
 *
 * These run once per publication or build, not per row: their statements
 * are prepared for the call (store_stmt's cached slots are for the hot
 * paths), which also keeps this file's statements out of the slot table
 * other files share.
 */
#include "store/internal.h"
#include "store/batches.h"
#include "store/vintages.h"

#include <stdlib.h>
#include <string.h>

static sqlite3_stmt *prep(store *st, const char *sql, gpi_diag *d)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
        store_err(st, d, "preparing a statement");
        sqlite3_finalize(s);
        return NULL;
    }
    return s;
}

/* Steps s to its end; finalizes it. */
static gpi_status done(store *st, sqlite3_stmt *s, gpi_diag *d, const char *what)
{
    int rc = sqlite3_step(s);
    gpi_status out = rc == SQLITE_DONE ? GPI_OK : store_err(st, d, what);
    sqlite3_finalize(s);
    return out;
}

gpi_status store_vintage_next_seq(store *st, int64_t *seq, gpi_diag *d)
{
    *seq = 1;
    sqlite3_stmt *s = prep(st, "SELECT coalesce(max(seq), 0) + 1 FROM index_vintage_heads", d);
    if (!s) return GPI_ESTORE;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *seq = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? GPI_OK : store_err(st, d, "reading the publications' order");
}

gpi_status store_vintage_set_head(store *st, int32_t day, int vintage, int64_t seq,
                                  const char *head, gpi_diag *d)
{
    sqlite3_stmt *s = prep(st, "INSERT OR REPLACE INTO index_vintage_heads(day, vintage, seq,"
                               " head) VALUES (?1, ?2, ?3, ?4)", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    sqlite3_bind_int64(s, 3, seq);
    sqlite3_bind_text(s, 4, head, -1, SQLITE_STATIC);
    return done(st, s, d, "storing a vintage's head");
}

gpi_status store_vintage_head(store *st, int32_t day, int vintage, int64_t *seq, char **head,
                              gpi_diag *d)
{
    *seq = -1;
    *head = NULL;
    sqlite3_stmt *s = prep(st, "SELECT seq, head FROM index_vintage_heads"
                               " WHERE day = ?1 AND vintage = ?2", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    int rc = sqlite3_step(s);
    gpi_status out = GPI_OK;
    if (rc == SQLITE_ROW && sqlite3_column_type(s, 1) != SQLITE_NULL) {
        *seq = sqlite3_column_int64(s, 0);
        const char *t = (const char *)sqlite3_column_text(s, 1);
        if (!(*head = strdup(t ? t : ""))) out = gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        out = store_err(st, d, "reading a vintage's head");
    }
    sqlite3_finalize(s);
    return out;
}

gpi_status store_vintage_day_before(store *st, int32_t day, int32_t *prev, int *vintage,
                                    gpi_diag *d)
{
    *prev = INT32_MIN;
    *vintage = 0;
    sqlite3_stmt *s = prep(st, "SELECT day, max(vintage) FROM index_vintages WHERE day ="
                               " (SELECT max(day) FROM index_vintages WHERE day < ?1)", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        *prev = (int32_t)sqlite3_column_int64(s, 0);
        *vintage = sqlite3_column_int(s, 1);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? GPI_OK : store_err(st, d, "reading published days");
}

gpi_status store_published_days(store *st, store_day_fn fn, void *ud, gpi_diag *d)
{
    sqlite3_stmt *s = prep(st, "SELECT day, max(vintage) FROM index_vintages GROUP BY day"
                               " ORDER BY day", d);
    if (!s) return GPI_ESTORE;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (fn((int32_t)sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), ud)) break;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading published days");
}

gpi_status store_standing_put(store *st, int32_t day, int vintage, const char *grade,
                              int64_t own_e4, int since, gpi_diag *d)
{
    sqlite3_stmt *s = prep(st, "INSERT OR REPLACE INTO index_standing(day, vintage, grade,"
                               " own_e4, since_vintage) VALUES (?1, ?2, ?3, ?4, ?5)", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    sqlite3_bind_text(s, 3, grade, -1, SQLITE_STATIC);
    if (own_e4 >= 0) sqlite3_bind_int64(s, 4, own_e4);
    sqlite3_bind_int(s, 5, since);
    return done(st, s, d, "storing a standing value");
}

gpi_status store_standing(store *st, int32_t day, int vintage, store_standing_fn fn, void *ud,
                          gpi_diag *d)
{
    sqlite3_stmt *s = prep(st, "SELECT grade, own_e4, since_vintage FROM index_standing"
                               " WHERE day = ?1 AND vintage = ?2 ORDER BY grade", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *g = (const char *)sqlite3_column_text(s, 0);
        int64_t v = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 1);
        if (fn(g ? g : "", v, sqlite3_column_int(s, 2), ud)) break;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading standing values");
}

gpi_status store_batches_after(store *st, int64_t t, store_batch_days_fn fn, void *ud,
                               gpi_diag *d)
{
    sqlite3_stmt *s = prep(st, "SELECT ingested_at, min_day, max_day FROM batches"
                               " WHERE ingested_at > ?1"
                               " AND (min_day IS NOT NULL OR coalesce(n_stored, 1) > 0)"
                               " ORDER BY ingested_at", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, t);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int none = sqlite3_column_type(s, 1) == SQLITE_NULL;
        int32_t lo = none ? INT32_MIN : (int32_t)sqlite3_column_int64(s, 1);
        int32_t hi = none ? INT32_MAX : (int32_t)sqlite3_column_int64(s, 2);
        if (fn(sqlite3_column_int64(s, 0), lo, hi, ud)) break;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "reading batches");
}

gpi_status store_published_vs_built(store *st, int32_t from, int32_t to, store_pub_built_fn fn,
                                    void *ud, gpi_diag *d)
{
    sqlite3_stmt *s = prep(st,
                           "SELECT p.day, p.vintage, p.grade, p.as_of, p.grade_hash, v.as_of,"
                           " v.grade_hash FROM (SELECT day, max(vintage) AS vintage"
                           " FROM index_vintages WHERE day BETWEEN ?1 AND ?2 GROUP BY day) l"
                           " JOIN index_published p ON p.day = l.day AND p.vintage = l.vintage"
                           " LEFT JOIN index_values v ON v.grade = p.grade AND v.day = p.day"
                           " ORDER BY p.day, p.grade",
                           d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, from);
    sqlite3_bind_int64(s, 2, to);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        store_pub_built r;
        r.day = (int32_t)sqlite3_column_int64(s, 0);
        r.vintage = sqlite3_column_int(s, 1);
        const char *t = (const char *)sqlite3_column_text(s, 2);
        r.grade = t ? t : "";
        r.pub_as_of = sqlite3_column_int64(s, 3);
        t = (const char *)sqlite3_column_text(s, 4);
        r.pub_hash = t ? t : "";
        r.built_as_of = sqlite3_column_type(s, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 5);
        t = (const char *)sqlite3_column_text(s, 6);
        r.built_hash = t ? t : "";
        if (fn(&r, ud)) break;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading published rows");
}

gpi_status store_batch_find_same_kind(store *st, const char *sha256, const char *tables_sha256,
                                      const char *options, const char *kind_hint, int *found,
                                      int64_t *batch_id, int64_t *other, char other_kind[16],
                                      gpi_diag *d)
{
    *found = 0;
    *other = 0;
    other_kind[0] = '\0';
    sqlite3_stmt *s = prep(st, "SELECT batch_id, kind_hint FROM batches WHERE sha256 = ?1"
                               " AND tables_sha256 IS ?2 AND options IS ?3 ORDER BY batch_id", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC);
    if (tables_sha256) sqlite3_bind_text(s, 2, tables_sha256, -1, SQLITE_STATIC);
    if (options) sqlite3_bind_text(s, 3, options, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(s, 1);
        if (!k || !kind_hint || strcmp(k, kind_hint) == 0) {
            *found = 1;
            if (batch_id) *batch_id = sqlite3_column_int64(s, 0);
            break;
        }
        if (!*other) {
            *other = sqlite3_column_int64(s, 0);
            snprintf(other_kind, 16, "%s", k ? k : "");
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "finding batch");
}
