/* store/profiles.c -- what repeats across the rows of one offer or feed.
 *
 * An observation row keeps what changes from snapshot to snapshot (key,
 * time, batch, line, price, quantity, identity, buyer, price as written);
 * everything else -- the packed enumerations (attrs), the interned gpu,
 * provider, group, segment, region, source, raw gpu, raw provider,
 * currency, sku and correction, and the gpu count -- is the row's
 * profile: one row of `profiles`, referenced by its integer id (schema
 * note 7).  A year of the bench market has 58,749 profiles for 10.6 M
 * rows, the real catalogue 4,862 for 2.2 M.
 *
 * NOTES ON THE DESIGN
 * (1) The handle keeps every profile it has seen in memory in both
 *     directions, like names (names.c): id -> values (an array; ids are
 *     INTEGER PRIMARY KEY values) and values -> id (open addressing on a
 *     hash of the values), loaded lazily from the table; the second only
 *     on a writer's first lookup by values, so a reading handle holds
 *     just the array (60 bytes a profile).  A memo of the last profile
 *     serves the consecutive rows of one feed.
 * (2) A profile is written once: its values never change.  Another
 *     process may add profiles at any time, so values missing from the
 *     cache are looked up in the table (its unique index) before they are
 *     inserted, and an id missing from the cache triggers a reload.
 * (3) Profiles inserted inside a transaction that is rolled back
 *     disappear from the database, so store_rollback() drops the cache
 *     (store_profiles_reset), as it drops the names'.
 * (4) A name column holds 0 for none (NULL in the observation rows before
 *     migration 10): no name has id 0, so the readable view's outer joins
 *     still show NULL, and a UNIQUE index on every column keeps each
 *     combination once (NULL would be distinct from NULL there).
 *     gpu_count is always given.
 */
#include "store/internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

enum { PF_MAX, PF_LOAD, PF_FIND, PF_INSERT };
static const char *const pf_sql[] = {
    [PF_MAX] = "SELECT coalesce(max(profile_id), 0) FROM profiles",
    [PF_LOAD] = "SELECT profile_id, attrs, gpu, provider, grp, segment, region, source, raw_gpu,"
                " raw_provider, currency, sku, correction, gpu_count FROM profiles",
    [PF_FIND] = "SELECT profile_id FROM profiles WHERE attrs = ?1 AND gpu = ?2 AND provider = ?3"
                " AND grp = ?4 AND segment = ?5 AND region = ?6 AND source = ?7 AND raw_gpu = ?8"
                " AND raw_provider = ?9 AND currency = ?10 AND sku = ?11 AND correction = ?12"
                " AND gpu_count IS ?13",
    [PF_INSERT] = "INSERT INTO profiles(attrs, gpu, provider, grp, segment, region, source,"
                  " raw_gpu, raw_provider, currency, sku, correction, gpu_count)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
};
/* extra statement slots used here (store_stmt) */
#define PF_SLOT(i) (STORE_EXTRA_STMTS - 24 + (i))

static int same(const store_profile *a, const store_profile *b)
{
    if (a->attrs != b->attrs || a->gpu_count != b->gpu_count) return 0;
    for (int i = 0; i < STORE_PROFILE_NAMES; i++)
        if (a->name[i] != b->name[i]) return 0;
    return 1;
}

static uint64_t hash(const store_profile *p)
{
    uint64_t h = 1469598103934665603u;
    h = (h ^ (uint64_t)p->attrs) * 1099511628211u;
    for (int i = 0; i < STORE_PROFILE_NAMES; i++) h = (h ^ (uint32_t)p->name[i]) * 1099511628211u;
    h = (h ^ (uint32_t)p->gpu_count) * 1099511628211u;
    return h ^ (h >> 29);
}

void store_profiles_reset(store *st)
{
    store_profiles *pf = &st->profiles;
    free(pf->v);
    free(pf->slots);
    memset(pf, 0, sizeof *pf);
}

/* Adds known profile id to the values -> id table (growing it). */
static int slot_insert(store_profiles *pf, int64_t id)
{
    if ((pf->n_slotted + 1) * 2 > pf->nslots) {
        size_t ns = pf->nslots ? pf->nslots * 2 : 1024;
        store_name_slot *s = calloc(ns, sizeof *s);
        if (!s) return -1;
        for (size_t i = 0; i < pf->nslots; i++) {
            if (!pf->slots[i].id) continue;
            size_t j = pf->slots[i].hash & (ns - 1);
            while (s[j].id) j = (j + 1) & (ns - 1);
            s[j] = pf->slots[i];
        }
        free(pf->slots);
        pf->slots = s;
        pf->nslots = ns;
    }
    uint64_t h = hash(&pf->v[id]);
    size_t j = h & (pf->nslots - 1);
    while (pf->slots[j].id) j = (j + 1) & (pf->nslots - 1);
    pf->slots[j].hash = h;
    pf->slots[j].id = id;
    pf->n_slotted++;
    return 0;
}

/* Makes room for ids up to max in the array. */
static int grow(store_profiles *pf, int64_t max)
{
    if (max < 0 || max > INT32_MAX) return -1;
    return GPI_VEC_RESERVE_ZERO(pf->v, pf->cap, (size_t)max + 1);
}

/* Records id -> p in the cache (known ids are left as they are). */
static int remember(store_profiles *pf, int64_t id, const store_profile *p)
{
    if (id <= 0 || grow(pf, id) != 0) return -1;
    if (pf->v[id].known) return 0;
    pf->v[id] = *p;
    pf->v[id].known = 1;
    pf->v[id].facet_noted = 0;
    pf->n++;
    return pf->nslots ? slot_insert(pf, id) : 0;
}

/* Builds the values -> id table of every known profile: only writers
 * look values up, so a reading handle (a build's) never holds it. */
static int index_all(store_profiles *pf)
{
    size_t ns = 1024;
    while (ns < 2 * (pf->n + 1)) ns *= 2;
    pf->slots = calloc(ns, sizeof *pf->slots);
    if (!pf->slots) return -1;
    pf->nslots = ns;
    for (size_t id = 1; id < pf->cap; id++)
        if (pf->v[id].known && slot_insert(pf, (int64_t)id) != 0) return -1;
    return 0;
}

/* Adds every stored profile missing from the cache. */
static gpi_status load(store *st, gpi_diag *d)
{
    /* the array at its size at once (ids are dense) */
    sqlite3_stmt *s = store_stmt(st, PF_SLOT(PF_MAX), pf_sql[PF_MAX], d);
    if (!s) return GPI_ESTORE;
    int rc = sqlite3_step(s);
    int64_t max = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_reset(s);
    if (rc != SQLITE_ROW) return store_err(st, d, "reading profiles");
    if (grow(&st->profiles, max) != 0) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    s = store_stmt(st, PF_SLOT(PF_LOAD), pf_sql[PF_LOAD], d);
    if (!s) return GPI_ESTORE;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        store_profile p;
        memset(&p, 0, sizeof p);
        p.attrs = sqlite3_column_int64(s, 1);
        for (int i = 0; i < STORE_PROFILE_NAMES; i++)
            p.name[i] = (int32_t)sqlite3_column_int64(s, 2 + i);
        p.gpu_count = sqlite3_column_int(s, 2 + STORE_PROFILE_NAMES);
        if (remember(&st->profiles, sqlite3_column_int64(s, 0), &p) != 0) {
            sqlite3_reset(s);
            return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return store_err(st, d, "reading profiles");
    st->profiles.loaded = 1;
    return GPI_OK;
}

static void bind_values(sqlite3_stmt *s, const store_profile *p)
{
    sqlite3_bind_int64(s, 1, p->attrs);
    for (int i = 0; i < STORE_PROFILE_NAMES; i++) sqlite3_bind_int64(s, 2 + i, p->name[i]);
    sqlite3_bind_int(s, 2 + STORE_PROFILE_NAMES, p->gpu_count);
}

gpi_status store_profile_id(store *st, const store_profile *p, int64_t *id, gpi_diag *d)
{
    store_profiles *pf = &st->profiles;
    *id = 0;
    if (pf->last > 0 && (size_t)pf->last < pf->cap && same(&pf->v[pf->last], p)) {
        *id = pf->last;
        return GPI_OK;
    }
    if (!pf->loaded) {
        gpi_status rc = load(st, d);
        if (rc != GPI_OK) return rc;
    }
    if (!pf->nslots && index_all(pf) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    if (pf->nslots) {
        uint64_t h = hash(p);
        size_t j = h & (pf->nslots - 1);
        for (; pf->slots[j].id; j = (j + 1) & (pf->nslots - 1))
            if (pf->slots[j].hash == h && same(&pf->v[pf->slots[j].id], p)) {
                *id = pf->last = pf->slots[j].id;
                return GPI_OK;
            }
    }
    sqlite3_stmt *s = store_stmt(st, PF_SLOT(PF_FIND), pf_sql[PF_FIND], d);
    if (!s) return GPI_ESTORE;
    bind_values(s, p);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_err(st, d, "finding a profile");
    if (rc == SQLITE_DONE) {
        s = store_stmt(st, PF_SLOT(PF_INSERT), pf_sql[PF_INSERT], d);
        if (!s) return GPI_ESTORE;
        bind_values(s, p);
        rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE) return store_err(st, d, "storing a profile");
        *id = sqlite3_last_insert_rowid(st->db);
    }
    if (remember(pf, *id, p) != 0) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    pf->last = *id;
    return GPI_OK;
}

store_profile *store_profile_get(store *st, int64_t id)
{
    store_profiles *pf = &st->profiles;
    if (id <= 0) return NULL;
    if (!pf->loaded || (size_t)id >= pf->cap || !pf->v[id].known)
        if (load(st, NULL) != GPI_OK) return NULL;
    return (size_t)id < pf->cap && pf->v[id].known ? &pf->v[id] : NULL;
}
