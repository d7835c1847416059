/* store/store_sets.c -- what the grade set and ingest hygiene need from the
 * database: dropped grades, the list of known grades, the grades file a
 * vintage followed, the distinct facets of the stored observations, and
 * whether a file was already read through the same tables.
 *
 * NOTES ON THE DESIGN
 * (1) A dropped grade keeps everything it produced (rows, vintages,
 *     restatements); grade_drops only records that it is no longer built,
 *     published or shown.  Restoring it deletes the record.
 * (2) The facets (distinct packed attrs and interned name ids of the
 *     stored observations) are kept in obs_facets as rows are stored:
 *     store_obs_put notes each stored row's facet, and a handle remembers
 *     the facets it knows are in the table (a few thousand), so the table
 *     is written once per new facet.  They used to be one SELECT DISTINCT
 *     over every observation, read by every build and evaluation: 1.3 s
 *     on the real catalog, three quarters of a one-day build on the demo.
 *     Observations are never deleted, so the table only grows; a rolled
 *     back file's facets leave with it and the handle forgets what it
 *     knew.
 * (3) Statements live in the extra slots STORE_SETS_SLOT(0..).
 */
#include "store/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SS_FIND_SAME, SS_DROP, SS_RESTORE, SS_DROPPED, SS_LIST, SS_VINT_SET, SS_VINT_GET,
       SS_FACETS, SS_FACET_PUT };

static const char *const ss_sql[] = {
    [SS_FIND_SAME] = "SELECT batch_id FROM batches WHERE sha256 = ?1 AND tables_sha256 IS ?2"
                     " AND options IS ?3 ORDER BY batch_id LIMIT 1",
    [SS_DROP] = "INSERT OR IGNORE INTO grade_drops(id, dropped_at) VALUES (?1, ?2)",
    [SS_RESTORE] = "DELETE FROM grade_drops WHERE id = ?1",
    [SS_DROPPED] = "SELECT 1 FROM grade_drops WHERE id = ?1",
    [SS_LIST] =
        "WITH ids AS (SELECT id FROM grades UNION SELECT id FROM grade_drops)"
        " SELECT ids.id,"
        "  (SELECT max(version) FROM grades g WHERE g.id = ids.id),"
        "  (SELECT hash FROM grades g WHERE g.id = ids.id ORDER BY version DESC LIMIT 1),"
        "  (SELECT count(*) FROM index_values v WHERE v.grade = ids.id),"
        "  (SELECT count(*) FROM index_values v WHERE v.grade = ids.id AND v.level <> 3),"
        "  (SELECT min(day) FROM index_values v WHERE v.grade = ids.id),"
        "  (SELECT max(day) FROM index_values v WHERE v.grade = ids.id),"
        "  (SELECT count(DISTINCT day) FROM index_published p WHERE p.grade = ids.id),"
        "  (SELECT dropped_at FROM grade_drops x WHERE x.id = ids.id)"
        " FROM ids ORDER BY ids.id COLLATE NOCASE",
    [SS_VINT_SET] = "UPDATE index_vintages SET grades_sha256 = ?3 WHERE day = ?1 AND vintage = ?2",
    [SS_VINT_GET] = "SELECT grades_sha256 FROM index_vintages WHERE day = ?1 AND vintage = ?2",
    [SS_FACETS] = "SELECT attrs, gpu, provider, grp, segment, region, sku FROM obs_facets",
    [SS_FACET_PUT] = "INSERT OR IGNORE INTO obs_facets(attrs, gpu, provider, grp, segment, region,"
                     " sku) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
};

static sqlite3_stmt *ss(store *st, int i, gpi_diag *d)
{
    return store_stmt(st, STORE_SETS_SLOT(i), ss_sql[i], d);
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}

gpi_status store_batch_find_same(store *st, const char *sha256, const char *tables_sha256,
                                 const char *options, int *found, int64_t *batch_id,
                                 gpi_diag *d)
{
    *found = 0;
    sqlite3_stmt *s = ss(st, SS_FIND_SAME, d);
    if (!s) return GPI_ESTORE;
    bind_text(s, 1, sha256);
    bind_text(s, 2, tables_sha256);
    bind_text(s, 3, options);
    int rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (*found && batch_id) *batch_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "finding batch");
}

/* Runs statement i with id bound (and now, for a drop); *changed = rows
 * changed. */
static gpi_status write_id(store *st, int i, const char *id, int64_t now, int *changed,
                           gpi_diag *d)
{
    sqlite3_stmt *s = ss(st, i, d);
    if (!s) return GPI_ESTORE;
    bind_text(s, 1, id);
    if (i == SS_DROP) sqlite3_bind_int64(s, 2, now);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return store_err(st, d, "recording a dropped grade");
    *changed = sqlite3_changes(st->db) > 0;
    return GPI_OK;
}

gpi_status store_grade_drop(store *st, const char *id, int64_t now, int *changed, gpi_diag *d)
{
    return write_id(st, SS_DROP, id, now, changed, d);
}

gpi_status store_grade_restore(store *st, const char *id, int *changed, gpi_diag *d)
{
    return write_id(st, SS_RESTORE, id, 0, changed, d);
}

gpi_status store_grade_dropped(store *st, const char *id, int *dropped, gpi_diag *d)
{
    *dropped = 0;
    sqlite3_stmt *s = ss(st, SS_DROPPED, d);
    if (!s) return GPI_ESTORE;
    bind_text(s, 1, id);
    int rc = sqlite3_step(s);
    *dropped = rc == SQLITE_ROW;
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading dropped grades");
}

gpi_status store_grades_list(store *st, store_grade_info_fn fn, void *ud, gpi_diag *d)
{
    sqlite3_stmt *s = ss(st, SS_LIST, d);
    if (!s) return GPI_ESTORE;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        store_grade_info g;
        memset(&g, 0, sizeof g);
        g.id = (const char *)sqlite3_column_text(s, 0);
        g.version = sqlite3_column_int(s, 1);
        g.hash = (const char *)sqlite3_column_text(s, 2);
        g.rows = (long)sqlite3_column_int64(s, 3);
        g.value_days = (long)sqlite3_column_int64(s, 4);
        g.first_day = (int32_t)sqlite3_column_int64(s, 5);
        g.last_day = (int32_t)sqlite3_column_int64(s, 6);
        g.published_days = (long)sqlite3_column_int64(s, 7);
        g.dropped_at = sqlite3_column_int64(s, 8);
        if (fn(&g, ud)) break;
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "listing grades");
}

gpi_status store_vintage_set_grades_sha(store *st, int32_t day, int vintage, const char *sha,
                                        gpi_diag *d)
{
    sqlite3_stmt *s = ss(st, SS_VINT_SET, d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    bind_text(s, 3, sha && *sha ? sha : NULL);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "recording the vintage's grades file");
}

gpi_status store_vintage_grades_sha(store *st, int32_t day, int vintage, char sha[65],
                                    gpi_diag *d)
{
    sha[0] = '\0';
    sqlite3_stmt *s = ss(st, SS_VINT_GET, d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, day);
    sqlite3_bind_int(s, 2, vintage);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_TEXT)
        snprintf(sha, 65, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading the vintage's grades file");
}

gpi_status store_obs_facets(store *st, store_obs_fn fn, void *ud, gpi_diag *d)
{
    sqlite3_stmt *s = ss(st, SS_FACETS, d);
    if (!s) return GPI_ESTORE;
    int rc, bad = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gpi_obs o;
        memset(&o, 0, sizeof o);
        store_attrs_unpack(&o, sqlite3_column_int64(s, 0));
        const char **dst[6] = {&o.gpu, &o.provider, &o.group, &o.segment, &o.region, &o.sku};
        for (int i = 0; i < 6; i++) {
            sqlite3_int64 id = sqlite3_column_int64(s, i + 1); /* 0: none */
            *dst[i] = id > 0 ? store_name_text(st, id) : NULL;
            if (!*dst[i] && id > 0) bad = 1;
        }
        if (bad || fn(&o, ud)) break;
    }
    sqlite3_reset(s);
    if (bad) return store_err(st, d, "reading names");
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading observations");
}

/* ---- the facet memo (note 2) ------------------------------------------------ */

static uint64_t facet_hash(const int64_t k[7])
{
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < 7; i++) h = (h ^ (uint64_t)k[i]) * 1099511628211u;
    return h ^ (h >> 29);
}

/* Slot j of t (capacity cap, a power of two) for k: where k is, or the
 * empty slot where it goes (attrs -1 marks an empty slot). */
static size_t facet_slot(int64_t (*t)[7], size_t cap, const int64_t k[7])
{
    size_t j = facet_hash(k) & (cap - 1);
    while (t[j][0] != -1 && memcmp(t[j], k, sizeof t[j]) != 0) j = (j + 1) & (cap - 1);
    return j;
}

/* 1 when k is in the memo; else remembers it (when there is memory) and
 * returns 0. */
static int facet_seen(store *st, const int64_t k[7])
{
    if (2 * (st->n_facets + 1) > st->cap_facets) {
        size_t cap = st->cap_facets ? 2 * st->cap_facets : 1024;
        int64_t(*t)[7] = malloc(cap * sizeof *t);
        if (!t) return 0; /* no memo: INSERT OR IGNORE does the work */
        for (size_t i = 0; i < cap; i++) t[i][0] = -1;
        for (size_t i = 0; i < st->cap_facets; i++)
            if (st->facets[i][0] != -1)
                memcpy(t[facet_slot(t, cap, st->facets[i])], st->facets[i], sizeof t[0]);
        free(st->facets);
        st->facets = t;
        st->cap_facets = cap;
    }
    size_t j = facet_slot(st->facets, st->cap_facets, k);
    if (st->facets[j][0] != -1) return 1;
    memcpy(st->facets[j], k, sizeof st->facets[j]);
    st->n_facets++;
    return 0;
}

gpi_status store_facet_note(store *st, int64_t attrs, const int64_t ids[6], gpi_diag *d)
{
    int64_t k[7] = {attrs};
    for (int i = 0; i < 6; i++) k[i + 1] = ids[i] > 0 ? ids[i] : 0;
    if (facet_seen(st, k)) return GPI_OK;
    sqlite3_stmt *s = ss(st, SS_FACET_PUT, d);
    if (!s) return GPI_ESTORE;
    for (int i = 0; i < 7; i++) sqlite3_bind_int64(s, i + 1, k[i]);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GPI_OK : store_err(st, d, "recording a facet");
}

void store_facets_reset(store *st)
{
    free(st->facets);
    st->facets = NULL;
    st->n_facets = st->cap_facets = 0;
}
