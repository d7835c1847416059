/* store/admin.c -- input commitments, vintage signatures (store/admin.h).
 *
 * Statements in extra slots 35..39 (store/internal.h lists who holds
 * which).
 */
#include "store/internal.h"
#include "store/admin.h"

#include <stdio.h>
#include <string.h>

#define ADMIN_SLOT(i) (35 + (i)) /* scan.c has 34 */

static const char *col_text(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(s, i);
}

gpi_status store_day_inputs(store *st, int32_t day, int64_t as_of, store_input_fn fn, void *ud,
                            gpi_diag *d)
{
    /* the batches of store_day_batches (store_index.c), in ingestion order */
    sqlite3_stmt *s = store_stmt(st, ADMIN_SLOT(0),
                                 "SELECT b.sha256, b.path, b.source, b.kind_hint, b.tables_sha256,"
                                 " b.options, b.ingested_at, coalesce(b.n_read, 0), b.batch_id"
                                 " FROM batches b" STORE_DAY_BATCHES_WHERE
                                 " ORDER BY b.ingested_at, b.batch_id",
                                 d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int64(s, 2, as_of);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        store_input b = {col_text(s, 0) ? col_text(s, 0) : "", col_text(s, 1) ? col_text(s, 1) : "",
                         col_text(s, 2), col_text(s, 3), col_text(s, 4), col_text(s, 5),
                         sqlite3_column_int64(s, 6), sqlite3_column_int64(s, 7),
                         sqlite3_column_int64(s, 8)};
        if (fn(&b, ud)) break;
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "reading batches");
}

gpi_status store_batch_restamp(store *st, int64_t batch_id, int64_t ingested_at, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, ADMIN_SLOT(1),
                                 "UPDATE batches SET ingested_at = ?2 WHERE batch_id = ?1", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, batch_id);
    sqlite3_bind_int64(s, 2, ingested_at);
    return store_step_done(st, s, d, "restamping a batch");
}

gpi_status store_vintage_signature_put(store *st, int32_t day, int vintage,
                                       const char *fingerprint, const char *signature_b64,
                                       gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, ADMIN_SLOT(2),
                                 "INSERT OR REPLACE INTO vintage_signatures(day, vintage,"
                                 " key_fingerprint, signature) VALUES (?1, ?2, ?3, ?4)",
                                 d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    sqlite3_bind_text(s, 3, fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, signature_b64, -1, SQLITE_STATIC);
    return store_step_done(st, s, d, "recording the vintage's signature");
}

gpi_status store_vintage_signature(store *st, int32_t day, int vintage, char fingerprint[65],
                                   char signature_b64[128], gpi_diag *d)
{
    fingerprint[0] = signature_b64[0] = '\0';
    sqlite3_stmt *s = store_stmt(st, ADMIN_SLOT(3),
                                 "SELECT key_fingerprint, signature FROM vintage_signatures"
                                 " WHERE day = ?1 AND vintage = ?2",
                                 d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *f = col_text(s, 0), *g = col_text(s, 1);
        snprintf(fingerprint, 65, "%s", f ? f : "");
        snprintf(signature_b64, 128, "%s", g ? g : "");
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading the vintage's signature");
}

static gpi_status count(store *st, const char *sql, long *out, gpi_diag *d)
{
    sqlite3_stmt *s = NULL;
    *out = 0;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return store_err(st, d, "reading the administration facts");
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *out = (long)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading the administration facts");
}

gpi_status store_admin_facts_read(store *st, store_admin_facts *f, gpi_diag *d)
{
    memset(f, 0, sizeof *f);
    gpi_status rc = count(st, "SELECT count(*) FROM index_vintages", &f->vintages, d);
    if (rc == GPI_OK)
        rc = count(st, "SELECT count(*) FROM index_vintages WHERE format >= 4",
                   &f->vintages_committed, d);
    if (rc == GPI_OK)
        rc = count(st, "SELECT count(*) FROM vintage_signatures", &f->vintages_signed, d);
    if (rc == GPI_OK) rc = count(st, "SELECT count(*) FROM index_restatements", &f->restatements, d);
    if (rc == GPI_OK) rc = count(st, "SELECT count(*) FROM index_revisions", &f->revisions, d);
    if (rc == GPI_OK) rc = count(st, "SELECT count(*) FROM batches", &f->batches, d);
    if (rc == GPI_OK) rc = count(st, "SELECT coalesce(sum(n_rejected), 0) FROM batches", &f->rejects, d);
    if (rc == GPI_OK)
        rc = count(st, "SELECT count(DISTINCT coalesce(source, path)) FROM batches", &f->sources, d);
    if (rc != GPI_OK) return rc;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "SELECT key_fingerprint FROM vintage_signatures"
                                   " ORDER BY day DESC, vintage DESC LIMIT 1", -1, &s, NULL) != SQLITE_OK)
        return store_err(st, d, "reading the administration facts");
    if (sqlite3_step(s) == SQLITE_ROW && col_text(s, 0))
        snprintf(f->last_fingerprint, sizeof f->last_fingerprint, "%s", col_text(s, 0));
    sqlite3_finalize(s);
    return GPI_OK;
}

gpi_status store_price_age(store *st, uint64_t key_hash, int64_t price, int32_t day,
                           int64_t as_of, int enough, int max_back, int *age, gpi_diag *d)
{
    *age = 0;
    /* one seek of the primary key (day, key_hash, ...) per day back */
    sqlite3_stmt *s = store_stmt(st, ADMIN_SLOT(4),
                                 "SELECT min(o.price_micro), max(o.price_micro) FROM observations o"
                                 " JOIN batches b ON b.batch_id = o.batch_id"
                                 " WHERE o.day = ?1 AND o.key_hash = ?2 AND b.ingested_at <= ?3",
                                 d);
    if (!s) return GPI_ESTORE;
    int32_t same = INT32_MIN;
    for (int32_t k = day - 1; k >= day - max_back; k--) {
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, k);
        sqlite3_bind_int64(s, 2, (sqlite3_int64)key_hash);
        sqlite3_bind_int64(s, 3, as_of);
        int rc = sqlite3_step(s);
        if (rc != SQLITE_ROW) {
            sqlite3_reset(s);
            return store_err(st, d, "reading an offer's prices");
        }
        if (sqlite3_column_type(s, 0) == SQLITE_NULL) continue; /* not observed that day */
        if (sqlite3_column_int64(s, 0) != price || sqlite3_column_int64(s, 1) != price) break;
        same = k;
        if (day - k >= enough) break;
    }
    sqlite3_reset(s);
    if (same != INT32_MIN) *age = day - same;
    return GPI_OK;
}
