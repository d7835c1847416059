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
 * (2) A profile is written once: its values never change (only `noted`,
 *     note 6, goes from 0 to 1).  Another process may add profiles at any
 *     time, so values missing from the cache are looked up in the table
 *     (its unique index) before they are inserted, and an id missing from
 *     the cache triggers a reload.
 * (3) Profiles inserted inside a transaction that is rolled back
 *     disappear from the database, so store_rollback() drops the cache
 *     (store_profiles_reset), as it drops the names'.
 * (4) A name column holds 0 for none (NULL in the observation rows before
 *     migration 10): no name has id 0, so the readable view's outer joins
 *     still show NULL, and a UNIQUE index on every column keeps each
 *     combination once (NULL would be distinct from NULL there).
 *     gpu_count is always given.
 * (5) Every process of the daily job needs the whole table: a writer to
 *     find a row's profile by values, a build or a publication to read
 *     the day's rows.  Read row by row it is 14 columns of 58,760 rows on
 *     the bench market, about 25 ms a process; so the table is also kept
 *     packed (schema migration 12): `profile_packs` holds the profiles of
 *     ids [1024 k, 1024 k + 1023] as one blob of varints per k, rewritten
 *     in the transaction that changes one of them (store_commit calls
 *     store_profiles_flush), so a rolled back transaction takes its packs
 *     with it.  load() decodes the packs, then reads the rows above the
 *     last packed id (the layout: pack_one).  Profile ids are dense (INTEGER PRIMARY KEY, rows
 *     never deleted, a rolled back insert takes its id back), so what it
 *     read is the whole table exactly when it read max(profile_id)
 *     profiles, each id once; otherwise (a pack missing, damaged or
 *     stale) it drops what the packs gave and reads the table row by row,
 *     as before.  The packs are a copy: the table stays what people and
 *     SQL read.
 * (6) `noted` (migration 12) says a row with the profile's facet is
 *     stored: the facets the grade checks read are those of the noted
 *     profiles (store_sets.c note 2).  store_obs_put notes a profile the
 *     first time a row of it is stored (one UPDATE per new profile), and
 *     the pack of a profile noted in a transaction is rewritten with it.
 */
#include "store/internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

enum { PF_STAT, PF_LOAD, PF_FIND, PF_INSERT, PF_NOTE, PF_PACKS, PF_PACK_ROWS, PF_PACK_PUT };
#define PF_COLUMNS                                                                                \
    "profile_id, attrs, gpu, provider, grp, segment, region, source, raw_gpu, raw_provider,"     \
    " currency, sku, correction, gpu_count, noted"
static const char *const pf_sql[] = {
    [PF_STAT] = "SELECT coalesce(max(profile_id), 0) FROM profiles",
    [PF_LOAD] = "SELECT " PF_COLUMNS " FROM profiles WHERE profile_id > ?1",
    [PF_FIND] = "SELECT profile_id FROM profiles WHERE attrs = ?1 AND gpu = ?2 AND provider = ?3"
                " AND grp = ?4 AND segment = ?5 AND region = ?6 AND source = ?7 AND raw_gpu = ?8"
                " AND raw_provider = ?9 AND currency = ?10 AND sku = ?11 AND correction = ?12"
                " AND gpu_count IS ?13",
    [PF_INSERT] = "INSERT INTO profiles(attrs, gpu, provider, grp, segment, region, source,"
                  " raw_gpu, raw_provider, currency, sku, correction, gpu_count)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    [PF_NOTE] = "UPDATE profiles SET noted = 1 WHERE profile_id = ?1",
    [PF_PACKS] = "SELECT pack, format, n, data FROM profile_packs ORDER BY pack",
    [PF_PACK_ROWS] = "SELECT " PF_COLUMNS " FROM profiles WHERE profile_id BETWEEN ?1 AND ?2"
                     " ORDER BY profile_id",
    /* parenthesized: clang's -Wstring-concatenation took the two lines of
     * this last element for two elements missing a comma (make fuzz) */
    [PF_PACK_PUT] = ("INSERT OR REPLACE INTO profile_packs(pack, format, n, data)"
                     " VALUES (?1, 1, ?2, ?3)"),
};
/* extra statement slots used here (store_stmt) */
#define PF_SLOT(i) (STORE_EXTRA_STMTS - 24 + (i))

/* Profiles per pack (note 5): pack k holds ids [k * PACK_IDS, k * PACK_IDS + PACK_IDS - 1]. */
enum { PACK_IDS = 1024, PACK_FORMAT = 1 };

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
    free(pf->dirty);
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

/* Records id -> p (with p's facet_noted) in the cache; known ids are left
 * as they are. */
static int remember(store_profiles *pf, int64_t id, const store_profile *p)
{
    if (id <= 0 || grow(pf, id) != 0) return -1;
    if (pf->v[id].known) return 0;
    pf->v[id] = *p;
    pf->v[id].known = 1;
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

/* The profile of a PF_COLUMNS row of s (its id in *id). */
static void row_profile(sqlite3_stmt *s, store_profile *p, int64_t *id)
{
    memset(p, 0, sizeof *p);
    *id = sqlite3_column_int64(s, 0);
    p->attrs = sqlite3_column_int64(s, 1);
    for (int i = 0; i < STORE_PROFILE_NAMES; i++)
        p->name[i] = (int32_t)sqlite3_column_int64(s, 2 + i);
    p->gpu_count = sqlite3_column_int(s, 2 + STORE_PROFILE_NAMES);
    p->facet_noted = sqlite3_column_int(s, 3 + STORE_PROFILE_NAMES) != 0;
}

/* Reads the rows with ids above `above` into the cache, counting them in
 * *n; 0 ok, -1 out of memory, -2 the table could not be read. */
static int load_rows(store *st, int64_t above, int64_t *n, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, PF_SLOT(PF_LOAD), pf_sql[PF_LOAD], d);
    if (!s) return -2;
    sqlite3_bind_int64(s, 1, above);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        store_profile p;
        int64_t id;
        row_profile(s, &p, &id);
        ++*n;
        if (remember(&st->profiles, id, &p) != 0) {
            sqlite3_reset(s);
            return -1;
        }
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -2;
}

/* ---- packs (note 5) -------------------------------------------------------------- */

/* A profile in a pack: its id's offset in the pack (2 bytes), attrs (8),
 * the name ids (4 each), gpu_count (4) and noted (1), little-endian,
 * fixed width: a pack decodes at memory speed (the varints of a first
 * version cost 580 instructions a profile, 34 M a process). */
enum { PACKED = 2 + 8 + 4 * STORE_PROFILE_NAMES + 4 + 1 };

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Written out, so the compiler makes each one load. */
static inline uint32_t get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const unsigned char *p)
{
    return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static void pack_one(unsigned char *out, int64_t offset, const store_profile *p)
{
    put_le(out, (uint64_t)offset, 2);
    put_le(out + 2, (uint64_t)p->attrs, 8);
    for (int i = 0; i < STORE_PROFILE_NAMES; i++)
        put_le(out + 10 + 4 * i, (uint32_t)p->name[i], 4);
    put_le(out + 10 + 4 * STORE_PROFILE_NAMES, (uint32_t)p->gpu_count, 4);
    out[PACKED - 1] = p->facet_noted ? 1 : 0;
}

/* Decodes pack k's `count` profiles from data (len bytes) into the cache;
 * 1 when the pack is exactly count profiles with ids of its range in
 * increasing order, 0 otherwise (-1 out of memory). */
static int unpack(store_profiles *pf, int64_t k, int64_t count, const unsigned char *data,
                  size_t len, int64_t *last)
{
    if (len != (size_t)count * PACKED) return 0;
    int64_t prev = -1;
    for (int64_t i = 0; i < count; i++, data += PACKED) {
        int64_t offset = (int64_t)(data[0] | data[1] << 8);
        if (offset >= PACK_IDS || offset <= prev || data[PACKED - 1] > 1) return 0;
        prev = offset;
        store_profile q;
        memset(&q, 0, sizeof q);
        q.attrs = (int64_t)get_le64(data + 2);
        for (int j = 0; j < STORE_PROFILE_NAMES; j++) {
            uint32_t name = get_le32(data + 10 + 4 * j);
            if (name > INT32_MAX) return 0;
            q.name[j] = (int32_t)name;
        }
        q.gpu_count = (int32_t)get_le32(data + 10 + 4 * STORE_PROFILE_NAMES);
        q.facet_noted = data[PACKED - 1];
        int64_t id = k * PACK_IDS + offset;
        if (id <= 0) return 0;
        if (remember(pf, id, &q) != 0) return -1;
        *last = id;
    }
    return 1;
}

/* Reads every pack into the cache: *n profiles, the last id *last; 1 when
 * every pack decoded, 0 when one did not, -1 out of memory, -2 the table
 * could not be read. */
static int load_packs(store *st, int64_t *n, int64_t *last, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, PF_SLOT(PF_PACKS), pf_sql[PF_PACKS], d);
    if (!s) return -2;
    int rc, ok = 1;
    while (ok == 1 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(s, 0), count = sqlite3_column_int64(s, 2);
        const unsigned char *data = sqlite3_column_blob(s, 3);
        size_t len = (size_t)sqlite3_column_bytes(s, 3);
        if (k < 0 || k > INT32_MAX / PACK_IDS || sqlite3_column_int(s, 1) != PACK_FORMAT ||
            count < 0 || count > PACK_IDS || (k * PACK_IDS <= *last && *last > 0) ||
            (len > 0 && !data)) {
            ok = 0;
            break;
        }
        ok = unpack(&st->profiles, k, count, data ? data : (const unsigned char *)"", len, last);
        *n += count;
    }
    sqlite3_reset(s);
    if (ok == 1 && rc != SQLITE_DONE) return -2;
    return ok;
}

/* The largest profile id (0: none). */
static gpi_status max_id(store *st, int64_t *max, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, PF_SLOT(PF_STAT), pf_sql[PF_STAT], d);
    if (!s) return GPI_ESTORE;
    int rc = sqlite3_step(s);
    *max = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? GPI_OK : store_err(st, d, "reading profiles");
}

/* Adds every stored profile missing from the cache (note 5). */
static gpi_status load(store *st, gpi_diag *d)
{
    store_profiles *pf = &st->profiles;
    int64_t max;
    gpi_status rc = max_id(st, &max, d);
    if (rc != GPI_OK) return rc;
    /* the array at its size at once (ids are dense: 1..max, note 5) */
    if (grow(pf, max) != 0) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    int64_t n = 0, last = 0;
    int got = load_packs(st, &n, &last, d);
    if (got == 1) got = load_rows(st, last, &n, d) == 0 ? 1 : -2;
    /* distinct increasing ids, none above max: n == max is all of 1..max */
    if (got == 1 && (n != max || last > max)) got = 0;
    if (got == 0) { /* a pack is missing, damaged or stale: the table itself */
        n = 0;
        for (size_t id = 0; id < pf->cap; id++) pf->v[id].known = 0;
        pf->n = 0;
        free(pf->slots);
        pf->slots = NULL;
        pf->nslots = pf->n_slotted = 0;
        pf->last = 0;
        got = load_rows(st, 0, &n, d) == 0 ? 1 : -2;
    }
    if (got == -1) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    if (got != 1) return store_err(st, d, "reading profiles");
    pf->loaded = 1;
    return GPI_OK;
}

/* Marks the pack of id for rewriting at commit; -1 out of memory. */
static int mark_dirty(store_profiles *pf, int64_t id)
{
    size_t k = (size_t)id / PACK_IDS;
    if (GPI_VEC_RESERVE_ZERO(pf->dirty, pf->cap_dirty, k + 1) != 0) return -1;
    pf->dirty[k] = 1;
    if (k + 1 > pf->n_dirty) pf->n_dirty = k + 1;
    return 0;
}

/* Rewrites pack k from the table. */
static gpi_status write_pack(store *st, int64_t k, unsigned char *buf, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, PF_SLOT(PF_PACK_ROWS), pf_sql[PF_PACK_ROWS], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, k * PACK_IDS);
    sqlite3_bind_int64(s, 2, k * PACK_IDS + PACK_IDS - 1);
    size_t len = 0;
    int64_t count = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        store_profile p;
        int64_t id;
        row_profile(s, &p, &id);
        pack_one(buf + len, id - k * PACK_IDS, &p);
        len += PACKED;
        count++;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return store_err(st, d, "reading profiles");
    s = store_stmt(st, PF_SLOT(PF_PACK_PUT), pf_sql[PF_PACK_PUT], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, k);
    sqlite3_bind_int64(s, 2, count);
    sqlite3_bind_blob(s, 3, buf, (int)len, SQLITE_STATIC);
    return store_step_done(st, s, d, "storing profile packs");
}

gpi_status store_profiles_flush(store *st, gpi_diag *d)
{
    store_profiles *pf = &st->profiles;
    if (!pf->n_dirty) return GPI_OK;
    unsigned char *buf = malloc((size_t)PACK_IDS * PACKED);
    if (!buf) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    gpi_status rc = GPI_OK;
    for (size_t k = 0; k < pf->n_dirty && rc == GPI_OK; k++)
        if (pf->dirty[k]) rc = write_pack(st, (int64_t)k, buf, d);
    free(buf);
    if (rc == GPI_OK) {
        memset(pf->dirty, 0, pf->n_dirty);
        pf->n_dirty = 0;
    }
    return rc;
}

gpi_status store_profiles_pack_all(store *st, gpi_diag *d)
{
    int64_t max;
    gpi_status rc = max_id(st, &max, d);
    if (rc != GPI_OK) return rc;
    for (int64_t id = 1; id <= max; id += PACK_IDS)
        if (mark_dirty(&st->profiles, id) != 0)
            return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    return store_profiles_flush(st, d);
}

/* ---- lookups ----------------------------------------------------------------------- */

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
    store_profile q = *p;
    q.facet_noted = 0;
    if (rc == SQLITE_ROW) { /* another process's: whether it is noted is in the table */
        gpi_status lrc = load(st, d);
        if (lrc != GPI_OK) return lrc;
        store_profile *known = (size_t)*id < pf->cap ? &pf->v[*id] : NULL;
        if (!known || !known->known) return store_err(st, d, "reading profiles");
        pf->last = *id;
        return GPI_OK;
    }
    s = store_stmt(st, PF_SLOT(PF_INSERT), pf_sql[PF_INSERT], d);
    if (!s) return GPI_ESTORE;
    bind_values(s, p);
    rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return store_err(st, d, "storing a profile");
    *id = sqlite3_last_insert_rowid(st->db);
    if (remember(pf, *id, &q) != 0 || mark_dirty(pf, *id) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    pf->last = *id;
    return GPI_OK;
}

gpi_status store_profile_noted(store *st, int64_t id, gpi_diag *d)
{
    store_profiles *pf = &st->profiles;
    sqlite3_stmt *s = store_stmt(st, PF_SLOT(PF_NOTE), pf_sql[PF_NOTE], d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, id);
    gpi_status rc = store_step_done(st, s, d, "recording a facet");
    if (rc != GPI_OK) return rc;
    if (mark_dirty(pf, id) != 0) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    if (id > 0 && (size_t)id < pf->cap) pf->v[id].facet_noted = 1;
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

gpi_status store_profiles_each(store *st, int (*fn)(const store_profile *p, void *ud), void *ud,
                               gpi_diag *d)
{
    store_profiles *pf = &st->profiles;
    if (!pf->loaded) {
        gpi_status rc = load(st, d);
        if (rc != GPI_OK) return rc;
    }
    for (size_t id = 1; fn && id < pf->cap; id++)
        if (pf->v[id].known && fn(&pf->v[id], ud)) break;
    return GPI_OK;
}
