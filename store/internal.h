/* store/internal.h -- shared between the store's own files only.
 *
 * The store is split by concept: store.c (open, migrations, ingest
 * batches, storing observations, rejects), scan.c (reading them back),
 * tx.c (write transactions and the writers' lock), alias.c (identities of
 * version 1), names.c and profiles.c (what rows share), readonly.c
 * (read-only storage), and sibling
 * files for the index and publication tables.  They share the handle below; nothing outside
 * store/ includes this header.
 */
#ifndef GPI_STORE_INTERNAL_H
#define GPI_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store/store.h"
/* the store's files implement every concern */
#include "store/batches.h"
#include "store/grades.h"
#include "store/index_values.h"
#include "store/obs.h"
#include "store/vintages.h"

/* Prepared statements of store.c, reused for the handle's lifetime. */
enum {
    ST_BATCH_FIND, ST_BATCH_INSERT, ST_BATCH_COUNTS, ST_OBS_INSERT, ST_OBS_GET,
    ST_REJECT_INSERT, ST_OBS_SCAN, ST_OBS_SCAN_CORE, ST_LATE_BATCHES, ST_BATCH_SHA,
    ST_BATCH_SIZE, ST__N
};

/* Sibling files keep their own statements here (lazily prepared). */
#define STORE_EXTRA_STMTS 80

/* Interned names (store/names.c). */
typedef struct store_name_slot {
    uint64_t hash;
    int64_t id;           /* 0 = empty */
} store_name_slot;

#define STORE_MEMO_N 16   /* per-column memo of the last name */
/* Offer idents are interned only while the names table is smaller than
 * this, which bounds the in-memory name cache for feeds whose ids never
 * repeat; beyond it they are stored as text (both forms compare equal). */
#define STORE_MAX_INTERNED 500000
#define STORE_MEMO_LEN 64

typedef struct store_names {
    char **text;          /* id -> text (in chunks); NULL where unknown */
    char **chunks;        /* the texts' storage: blocks never moved or freed
                             before a reset, so texts handed out stay valid */
    size_t n_chunks, cap_chunks;
    char *chunk_at;       /* the current chunk's free bytes: chunk_left */
    size_t chunk_left;
    size_t cap_ids;
    store_name_slot *slots; /* open addressing on the text's hash: built
                               on the first lookup by text (writers) */
    size_t nslots, n;     /* n: names in slots */
    size_t n_text;        /* names known */
    int loaded, indexed;
    /* memo[k]: the last text looked up for column k and its id (0 = none);
     * consecutive rows of a feed mostly repeat provider, gpu, region... */
    char memo_text[STORE_MEMO_N][STORE_MEMO_LEN];
    int64_t memo_id[STORE_MEMO_N];
} store_names;

/* Profiles (store/profiles.c): what repeats across the rows of one offer
 * or feed, one row of `profiles` per distinct combination.  Name ids are 0
 * for none. */
enum { STORE_P_GPU, STORE_P_PROVIDER, STORE_P_GRP, STORE_P_SEGMENT, STORE_P_REGION,
       STORE_P_SOURCE, STORE_P_RAW_GPU, STORE_P_RAW_PROVIDER, STORE_P_CURRENCY, STORE_P_SKU,
       STORE_P_CORRECTION, STORE_PROFILE_NAMES };

typedef struct store_profile {
    int64_t attrs;                      /* packed enumerations (store.c) */
    int32_t name[STORE_PROFILE_NAMES];  /* name ids, in STORE_P_* order */
    int32_t gpu_count;
    /* known: the slot holds a profile (the cache's own); facet_noted:
     * profiles.noted, a row with its facet is stored (profiles.c note 6) */
    unsigned char known, facet_noted;
} store_profile;

typedef struct store_profiles {
    store_profile *v;     /* id -> profile; v[id].known = 0 where unknown */
    size_t cap;
    size_t n;             /* profiles known */
    /* values -> id, open addressing on the values' hash: built on the
     * first lookup by values (writers only), then kept up to date */
    store_name_slot *slots;
    size_t nslots, n_slotted;
    int loaded;
    int64_t last;         /* memo: the last profile looked up (0 = none) */
    /* packs to rewrite at commit (profiles.c note 5): dirty[k] for pack k */
    unsigned char *dirty;
    size_t cap_dirty, n_dirty;
} store_profiles;

/* The page cache (store.c note 10), in KiB, and the file size (bytes)
 * above which a batch gets the large one. */
#define STORE_CACHE_KIB 2048
#define STORE_BULK_CACHE_KIB 16384
#define STORE_BULK_BYTES (32 << 20)
#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x)

struct store {
    sqlite3 *db;
    store_names names;
    store_profiles profiles;
    sqlite3_stmt *stmt[ST__N];
    sqlite3_stmt *extra[STORE_EXTRA_STMTS];
    /* the query each slot was prepared with (a copy) and the address the
     * caller passed last: text at that address again is taken to be the
     * same query unread (literals, static tables); any other is compared */
    char *extra_sql[STORE_EXTRA_STMTS];
    uintptr_t extra_sql_at[STORE_EXTRA_STMTS];
    int in_tx;
    /* the writers' queue (store.c note 6): the lock file's descriptor
     * (-1: none: no file, or it cannot be created), whether it was opened
     * yet, and whether this handle holds the lock */
    int lock_fd;
    int lock_tried;
    int locked;
    int lock_rw;          /* lock_fd is open for writing (tx.c: the waiting writers) */
    int read_only;        /* opened with STORE_OPEN_READ */
    int busy_ms;          /* SQLite's busy timeout (store_open_mode) */
    int bulk_cache;       /* the page cache is STORE_BULK_CACHE_KIB (store.c note 10) */
    /* version 2 keys with a version 1 alias (alias.c), sorted */
    uint64_t *alias_keys;
    size_t n_alias;
    int alias_loaded;
    /* the producer's numbers (gpi_obs.profile_seq, ident_seq; store.c
     * note 9) -> profile id and interned ident id, for the open batch */
    int64_t *hint_profile, *hint_ident;
    size_t cap_hint_profile, cap_hint_ident;
    /* the days of the rows the open batch stored (batches.min_day, max_day) */
    int32_t batch_min_day, batch_max_day;
    /* curves.c: whether obs_starts holds a row (-1 not known yet) */
    int any_starts;
};

/* Opens the database at path: STORE_OPEN_CREATE creates it when missing,
 * STORE_OPEN_EXISTING does not, STORE_OPEN_READ opens it read-only
 * (readonly.c). */
enum { STORE_OPEN_CREATE, STORE_OPEN_EXISTING, STORE_OPEN_READ };
gpi_status store_open_mode(const char *path, int mode, store **out, gpi_diag *d);

/* ---- read-only storage (readonly.c) -------------------------------------- */

/* Reopens st's database as an immutable file when it could not be read
 * because its folder cannot be written (a WAL database needs DB-shm);
 * GPI_OK when it did. */
gpi_status store_readonly_reopen(store *st, const char *path, gpi_diag *d);
/* The message when opening failed (rc) or when a read-write handle came
 * out read-only: says the database is read-only and which commands work;
 * returns rc, or GPI_ESTORE for a read-only read-write handle. */
gpi_status store_readonly_why(store *st, const char *path, int mode, gpi_status rc, gpi_diag *d);
/* The message when a read-only database has an older schema. */
gpi_status store_readonly_old(const char *path, int version, gpi_diag *d);

/* Migration list, in order; schema version = index + 1. */
extern const char *const store_migrations[];
extern const int store_n_migrations;
/* Index of the migration that creates ident_aliases: store_alias_migrate
 * fills it in the same transaction. */
extern const int store_migration_ident_aliases;
/* Index of the migration that creates profile_packs:
 * store_profiles_pack_all fills it in the same transaction. */
extern const int store_migration_profile_packs;

/* ---- identities of version 1 (alias.c) ----------------------------------- */

/* Fills ident_aliases from the stored observations (alias.c note 2). */
gpi_status store_alias_migrate(store *st, gpi_diag *d);
/* The version 1 keys (at most cap, in legacy[0..*n)) recorded for the
 * version 2 key `key`; *n = 0 for most keys, at the cost of a binary
 * search in memory. */
gpi_status store_alias_legacy(store *st, uint64_t key, uint64_t *legacy, int cap, int *n,
                              gpi_diag *d);
/* Drops the in-memory keys (reloaded on next use). */
void store_alias_reset(store *st);

/* ---- forward starts (curves.c) -------------------------------------------- */

/* Records o's start (o->starts_on != 0) beside the row just stored. */
gpi_status store_obs_start_put(store *st, const gpi_obs *o, gpi_diag *d);
/* For a row found to be a duplicate of the stored one: *res becomes
 * STORE_PUT_CONFLICT when the two starts differ (none counts as one).  A
 * query only when o has a start or the database holds any. */
gpi_status store_obs_start_same(store *st, const gpi_obs *o, store_put_result *res, gpi_diag *d);

/* Prepares (once) and returns extra statement slot i with sql; resets it
 * and clears its bindings before returning.  NULL on error (d set),
 * among them a slot already prepared with another query: two files that
 * took one slot would otherwise run each other's query (a vintage's
 * signature read the chain states' first day, found only by its bytes). */
sqlite3_stmt *store_stmt(store *st, int slot, const char *sql, gpi_diag *d);

/* Id of an interned name (0 for NULL text), inserting it if new; must be
 * called inside the write transaction that uses the id. */
gpi_status store_name_id(store *st, const char *text, int64_t *id, gpi_diag *d);
/* The same through the memo of column k (0 <= k < STORE_MEMO_N). */
gpi_status store_name_id_memo(store *st, int k, const char *text, int64_t *id, gpi_diag *d);
/* Text of a name id, or NULL (id 0 or unknown).  Valid until the next
 * rollback or store_close. */
const char *store_name_text(store *st, int64_t id);
/* Drops the cache (after a rollback, and on close). */
void store_names_reset(store *st);

/* Id of the profile with p's values (attrs, name ids, gpu_count; the
 * cache's own fields are ignored), inserting it if new; must be called
 * inside the write transaction that uses the id. */
gpi_status store_profile_id(store *st, const store_profile *p, int64_t *id, gpi_diag *d);
/* The profile of an id, or NULL (id 0, unknown, or the table could not be
 * read).  Valid until the next store_profile_id, store_profile_get,
 * rollback or store_close. */
store_profile *store_profile_get(store *st, int64_t id);
/* Drops the cache (after a rollback, and on close). */
void store_profiles_reset(store *st);
/* Forgets the producer's numbers (store.c note 9): at a batch's begin, a
 * rollback and close. */
void store_hints_reset(store *st);
/* Records that a row of profile id is stored (profiles.noted, profiles.c note 6). */
gpi_status store_profile_noted(store *st, int64_t id, gpi_diag *d);
/* Rewrites the packs of the profiles this transaction added or noted
 * (profiles.c note 5); store_commit calls it before COMMIT. */
gpi_status store_profiles_flush(store *st, gpi_diag *d);
/* Packs every profile (migration 12). */
gpi_status store_profiles_pack_all(store *st, gpi_diag *d);


/* The bits of attrs that describe the observation, without those of what
 * the row itself gave (store.c; a facet's attrs). */
#define STORE_ATTRS_NORMALIZED ((INT64_C(1) << 20) - 1)
/* Calls fn for every stored profile, in id order (loading the cache);
 * stops when fn returns nonzero.  With fn NULL it only loads the cache. */
gpi_status store_profiles_each(store *st, int (*fn)(const store_profile *p, void *ud), void *ud,
                               gpi_diag *d);

/* Unpacks an observation's attrs (scan.c; layout in store.c, schema note 6). */
void store_attrs_unpack(gpi_obs *o, int64_t attrs);

/* Extra statement slots of store_sets.c, 40..48.  The map of the 80
 * slots: store_index.c 0..27, chain_states.c 29..33, scan.c 34, admin.c
 * 35..39, store_sets.c 40..48, curves.c 49..55, profiles.c 56..63,
 * alias.c 64..71, names.c 72..74, store_count (testing.c) 77..79.
 * store_stmt refuses a slot already holding another query. */
#define STORE_SETS_SLOT(i) (40 + (i))
/* VACUUM under the writers' lock (tx.c), outside any transaction; best
 * effort (a failure leaves the database as it was). */
void store_vacuum(store *st);

/* The batches holding observations of day ?1 ingested at or before ?2
 * (a WHERE clause over batches b; store_index.c's store_day_batches note):
 * published rows' receipts and a vintage's inputs (admin.c). */
#define STORE_DAY_BATCHES_WHERE                                                                   \
    " WHERE b.ingested_at <= ?2 AND (b.min_day = ?1 OR b.max_day = ?1"                           \
    "  OR (((b.min_day IS NULL AND coalesce(b.n_stored, 1) > 0)"                                 \
    "       OR (b.min_day < ?1 AND b.max_day > ?1))"                                            \
    "      AND b.batch_id IN (SELECT DISTINCT batch_id"                                         \
    "                         FROM observations WHERE day = ?1)))"

/* Steps the prepared statement s (no rows) and resets it; GPI_ESTORE with
 * store_err(what) when it does not finish. */
gpi_status store_step_done(store *st, sqlite3_stmt *s, gpi_diag *d, const char *what);
/* Runs sql (no rows); GPI_ESTORE with "store: <error>" in d. */
gpi_status store_exec(store *st, const char *sql, gpi_diag *d);

/* Sets d to "store: <what>: <sqlite3_errmsg>" and returns GPI_ESTORE. */
gpi_status store_err(store *st, gpi_diag *d, const char *what);

#endif
