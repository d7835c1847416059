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
 *     stored observations) are those of the noted profiles (profiles.c
 *     note 6): store_obs_put notes a profile the first time a row of it
 *     is stored, and store_obs_facets walks the profile cache, which a
 *     build loads anyway.  They used to be one SELECT DISTINCT over every
 *     observation (1.3 s on the real catalog, three quarters of a one-day
 *     build on the demo), then a table of their own, obs_facets
 *     (migrations 8-11), whose 58,723 rows on the bench market were still
 *     a fifth of a one-day build.  Observations are never deleted, so the
 *     facets only grow; a rolled back file's notes leave with it.
 *     Most of a check asks about one field at a time ("does any stored
 *     observation have this gpu?"), which the distinct values of each field
 *     answer as well as the distinct facets: store_obs_facet_values marks
 *     each noted profile's six name ids in one byte per name id instead of
 *     collecting ~58,000 facets (a grade that warns is checked every build).
 * (3) Statements live in the extra slots STORE_SETS_SLOT(0..).
 */
#include "store/internal.h"
#include "core/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SS_FIND_SAME, SS_DROP, SS_RESTORE, SS_DROPPED, SS_LIST, SS_VINT_SET, SS_VINT_GET,
       SS_CHECK_GET, SS_CHECK_PUT };

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
    [SS_CHECK_GET] = "SELECT 1 FROM facet_checks WHERE key = ?1",
    [SS_CHECK_PUT] = "INSERT OR IGNORE INTO facet_checks(key, checked_at)"
                     " VALUES (?1, CAST(strftime('%s', 'now') AS INTEGER))",
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

/* ---- the facets (note 2) ----------------------------------------------------- */

/* The facet of a profile: attrs (normalized), gpu, provider, group,
 * segment, region, sku. */
static void facet_of(const store_profile *p, int64_t k[7])
{
    k[0] = p->attrs & STORE_ATTRS_NORMALIZED;
    k[1] = p->name[STORE_P_GPU];
    k[2] = p->name[STORE_P_PROVIDER];
    k[3] = p->name[STORE_P_GRP];
    k[4] = p->name[STORE_P_SEGMENT];
    k[5] = p->name[STORE_P_REGION];
    k[6] = p->name[STORE_P_SKU];
}

static uint64_t facet_hash(const int64_t k[7])
{
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < 7; i++) h = (h ^ (uint64_t)k[i]) * 1099511628211u;
    return h ^ (h >> 29);
}

typedef struct facet_walk {
    store *st;
    store_obs_fn fn;
    void *ud;
    /* the facets seen, as the id of the first profile of each: open
     * addressing, 0 = empty (4 bytes a slot: the 7-column keys themselves
     * were 7 MB of fresh pages for the bench market's 58,760 profiles) */
    uint32_t *seen;
    size_t cap;
    int bad;
} facet_walk;

/* A noted profile's facet, unless an earlier profile had the same one. */
static int walk_one(const store_profile *p, void *ud)
{
    facet_walk *w = ud;
    if (!p->facet_noted) return 0;
    int64_t k[7], q[7];
    facet_of(p, k);
    size_t j = facet_hash(k) & (w->cap - 1);
    for (; w->seen[j]; j = (j + 1) & (w->cap - 1)) {
        facet_of(&w->st->profiles.v[w->seen[j]], q);
        if (memcmp(k, q, sizeof k) == 0) return 0;
    }
    w->seen[j] = (uint32_t)(p - w->st->profiles.v);
    gpi_obs o;
    memset(&o, 0, sizeof o);
    store_attrs_unpack(&o, k[0]);
    const char **dst[6] = {&o.gpu, &o.provider, &o.group, &o.segment, &o.region, &o.sku};
    for (int i = 0; i < 6; i++) {
        *dst[i] = k[i + 1] > 0 ? store_name_text(w->st, k[i + 1]) : NULL;
        if (!*dst[i] && k[i + 1] > 0) w->bad = 1;
    }
    if (w->bad) return 1;
    return w->fn(&o, w->ud) != 0;
}

/* Note 2: distinct, in the order of the first profile of each. */
gpi_status store_obs_facets(store *st, store_obs_fn fn, void *ud, gpi_diag *d)
{
    gpi_status rc = store_profiles_each(st, NULL, NULL, d); /* the cache, at its size */
    if (rc != GPI_OK) return rc;
    if (st->profiles.cap > UINT32_MAX) return gpi_diag_set(d, GPI_ENOMEM, "store: too many profiles");
    facet_walk w = {.st = st, .fn = fn, .ud = ud};
    w.cap = 1024;
    while (w.cap < 2 * (st->profiles.n + 1)) w.cap *= 2;
    w.seen = calloc(w.cap, sizeof *w.seen);
    if (!w.seen) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    rc = store_profiles_each(st, walk_one, &w, d);
    free(w.seen);
    if (rc == GPI_OK && w.bad) rc = store_err(st, d, "reading names");
    return rc;
}

/* Note 2: each field's distinct values, by name id. */
gpi_status store_obs_facet_values(store *st, store_facet_value_fn fn, void *ud, size_t *n_noted,
                                  gpi_diag *d)
{
    *n_noted = 0;
    gpi_status rc = store_profiles_each(st, NULL, NULL, d); /* the cache, at its size */
    if (rc != GPI_OK) return rc;
    const store_profiles *pf = &st->profiles;
    unsigned char *seen = NULL; /* bit f of seen[id]: some noted profile has id in field f */
    size_t cap = 0;
    unsigned none = 0;          /* bit f: some noted profile has no value in field f */
    for (size_t id = 1; id < pf->cap; id++) {
        const store_profile *p = &pf->v[id];
        if (!p->known || !p->facet_noted) continue;
        ++*n_noted;
        int64_t k[7];
        facet_of(p, k);
        for (int f = 0; f < STORE_FACET_FIELDS; f++) {
            if (k[f + 1] <= 0) {
                none |= 1u << f;
                continue;
            }
            size_t at = (size_t)k[f + 1];
            if (GPI_VEC_RESERVE_ZERO(seen, cap, at + 1) != 0) {
                free(seen);
                return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
            }
            seen[at] |= (unsigned char)(1u << f);
        }
    }
    rc = GPI_OK;
    for (int f = 0; f < STORE_FACET_FIELDS && rc == GPI_OK; f++) {
        if ((none >> f & 1u) && fn(f, NULL, ud) != 0) break;
        for (size_t id = 1; id < cap; id++) {
            if (!((unsigned)seen[id] >> f & 1u)) continue;
            const char *text = store_name_text(st, (int64_t)id);
            if (!text) {
                rc = store_err(st, d, "reading names");
                break;
            }
            if (fn(f, text, ud) != 0) {
                f = STORE_FACET_FIELDS;
                break;
            }
        }
    }
    free(seen);
    return rc;
}

/* ---- clean grade checks (obs.h) ------------------------------------------------- */

gpi_status store_facet_check_clean(store *st, const char *key, int *clean, gpi_diag *d)
{
    *clean = 0;
    sqlite3_stmt *s = ss(st, SS_CHECK_GET, d);
    if (!s) return GPI_ESTORE;
    bind_text(s, 1, key);
    int rc = sqlite3_step(s);
    *clean = rc == SQLITE_ROW;
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                 : store_err(st, d, "reading grade checks");
}

void store_facet_check_record(store *st, const char *const *keys, size_t n)
{
    if (st->read_only || st->in_tx || n == 0) return;
    /* a few rows outside the writers' queue: a writer holding the
     * database makes BEGIN fail at once (busy) rather than wait */
    sqlite3_busy_timeout(st->db, 0);
    int ok = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
    for (size_t i = 0; ok && i < n; i++) {
        sqlite3_stmt *s = ss(st, SS_CHECK_PUT, NULL);
        if (!s) {
            ok = 0;
            break;
        }
        bind_text(s, 1, keys[i]);
        ok = sqlite3_step(s) == SQLITE_DONE;
        sqlite3_reset(s);
    }
    if (ok) ok = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    if (!ok && !sqlite3_get_autocommit(st->db)) sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_busy_timeout(st->db, st->busy_ms);
}
