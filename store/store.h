/* store/store.h -- the SQLite store: the only module that touches SQL.
 *
 * One database file holds ingest batches, observations, rejects and
 * everything the index publishes.  The schema is versioned (PRAGMA
 * user_version) and migrated on open; WAL mode and foreign keys are on.
 * Every statement is prepared once per handle and reused.
 *
 * Identity (SPEC §3): observations live in a WITHOUT ROWID table whose
 * primary key (day, key_hash, observed_at) serves both the duplicate check
 * (exact key lookup) and the index's day lookup (a prefix range), so no
 * second index is maintained during ingest.  key_hash is the identity hash
 * (FNV-1a of kind, source and identity text) with the kind in its top bit
 * (core/obs.h), so a day's trades and offers are two key ranges; the
 * identity text is stored too, and a hash collision is detected, never
 * assumed away.
 *
 * Transactions: an ingest batch is one transaction (store_batch_begin ..
 * store_batch_commit or store_batch_rollback), so a killed process leaves
 * the file either wholly stored or not at all.
 *
 * Concurrency: any number of gpuidx processes may use one database at
 * once.  Write transactions (store_begin) queue on a lock file DB.lock
 * beside the database and wait for their turn as long as it takes, one at
 * a time; reads never wait.  Two write transactions on two handles of one
 * process would wait for each other forever: a process writes through one
 * handle at a time.
 *
 * Ownership: store_open() returns a handle the caller frees with
 * store_close(); store_close(NULL) is a no-op.  Strings passed in are
 * borrowed for the call.  Records handed to callbacks are valid only
 * during the callback.
 */
#ifndef GPI_STORE_H
#define GPI_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/gpi.h"
#include "core/obs.h"

typedef struct store store;

/* Opens (creating if needed) and migrates the database at path.  On error
 * *out is NULL and d says why. */
/* Process-wide SQLite settings, for a program to call once before its
 * first store_open (cli/main.c does; without it everything still works):
 * SQLite's memory statistics off, whose global mutex cost 2 % of an ingest
 * once the parser runs in a second thread. */
void store_library_init(void);

gpi_status store_open(const char *path, store **out, gpi_diag *d);
/* Opens an existing database for reading only (store/readonly.c): no lock
 * file, nothing written, so it works on read-only storage; a handle whose
 * every write fails (store_begin says so).  A database with an older
 * schema is first migrated by a read-write open. */
gpi_status store_open_read(const char *path, store **out, gpi_diag *d);
void store_close(store *st);
/* Another handle on st's database file (for a reader in another thread: a
 * handle belongs to one thread at a time); close it with store_close.
 * GPI_EUSAGE for a database without a file or not in WAL mode (where a
 * reader would hold up the writer's commits). */
gpi_status store_open_again(store *st, store **out, gpi_diag *d);

/* Runs fn inside one write transaction (BEGIN IMMEDIATE .. COMMIT, or
 * ROLLBACK when fn returns non-OK).  For modules that write several rows
 * that must land together. */
gpi_status store_begin(store *st, gpi_diag *d);
gpi_status store_commit(store *st, gpi_diag *d);
void store_rollback(store *st);

/* ---- ingest batches ----------------------------------------------------- */

typedef struct store_batch_info {
    const char *path;        /* file as given */
    const char *sha256;      /* of the file's bytes */
    const char *source;      /* --source or NULL */
    const char *kind_hint;   /* "offers", "trades" or NULL */
    const char *tables_sha256; /* hash of the normalization tables used */
    int64_t ingested_at;     /* Unix seconds */
    int64_t n_bytes;         /* file size, or -1 */
    const char *options;     /* ingest options that change what is stored
                                ("admit-providers"), or NULL */
} store_batch_info;

typedef struct store_batch_counts {
    long read, stored, duplicates, rejected;
} store_batch_counts;

/* 1 in *found (and its batch id) when a committed batch has this SHA-256. */
gpi_status store_batch_find(store *st, const char *sha256, int *found,
                            int64_t *batch_id, gpi_diag *d);
/* 1 in *found (and its batch id) when a committed batch read a file of
 * this SHA-256 through the same tables (tables_sha256) and options (NULL
 * = none): reading it again would store nothing new.  A file read through
 * other tables or options is read again (store/store_sets.c). */
gpi_status store_batch_find_same(store *st, const char *sha256, const char *tables_sha256,
                                 const char *options, int *found, int64_t *batch_id,
                                 gpi_diag *d);
/* 1 in *seen when a committed batch has a file of exactly n_bytes: a
 * cheap test before hashing a file just to find it already ingested. */
gpi_status store_batch_size_seen(store *st, int64_t n_bytes, int *seen, gpi_diag *d);
/* Starts the file's transaction and records the batch. */
gpi_status store_batch_begin(store *st, const store_batch_info *info,
                             int64_t *batch_id, gpi_diag *d);
/* Sets the batch's SHA-256 and size (the bytes hashed) inside the open
 * transaction, for callers that hash a file while reading it (begin with
 * a placeholder such as "pending").  The SHA-256 must not belong to a
 * committed batch (check with store_batch_find first). */
gpi_status store_batch_set_sha256(store *st, int64_t batch_id, const char *sha256,
                                  int64_t n_bytes, gpi_diag *d);
/* Records the counts, stamps ingested_at = committed_at (Unix seconds,
 * the time of the commit: the batch becomes visible then, and a build's
 * cut-off compares with it), or one second after the largest reserved
 * cut-off when that is later, and commits. */
gpi_status store_batch_commit(store *st, int64_t batch_id, const store_batch_counts *c,
                              int64_t committed_at, gpi_diag *d);
/* Reserves the cut-off *as_of for a build that is about to read (one
 * short write transaction): every batch that commits afterwards is
 * stamped after it, so the build sees exactly the batches stamped up to
 * it without waiting for that second to end.  latest: *as_of is first
 * raised to the stamp of the last committed batch (a batch committed in
 * the same second as an earlier reservation is stamped after the second). */
gpi_status store_cutoff_reserve(store *st, int64_t *as_of, int latest, gpi_diag *d);
/* The largest committed batch id (0 when none) and, afterwards, how many
 * batches above it carry ingested_at <= as_of: batches that committed
 * after the first read, inside the cut-off (index build's check). */
gpi_status store_batch_max_id(store *st, int64_t *max_id, gpi_diag *d);
gpi_status store_batches_since(store *st, int64_t max_id, int64_t as_of, long *n, gpi_diag *d);
/* Abandons the file's transaction: nothing of it remains. */
void store_batch_rollback(store *st);

typedef enum {
    STORE_PUT_STORED = 0,
    STORE_PUT_DUPLICATE,    /* same key, time and values already stored */
    STORE_PUT_CONFLICT,     /* same key and time, different values       */
    STORE_PUT_COLLISION     /* same key hash, different identity text    */
} store_put_result;

/* Stores one observation of the open batch. */
gpi_status store_obs_put(store *st, int64_t batch_id, const gpi_obs *o,
                         store_put_result *res, gpi_diag *d);

/* Records one rejected row of the open batch. */
gpi_status store_reject_put(store *st, int64_t batch_id, long line,
                            const char *column, const char *raw_row,
                            const char *reason, gpi_diag *d);

/* ---- reading observations ---------------------------------------------- */

typedef int (*store_obs_fn)(const gpi_obs *o, void *ud);

/* Calls fn for every observation with day in [day_from, day_to] whose
 * batch was ingested at or before as_of (Unix seconds), in primary-key
 * order (day, key_hash, observed_at).  A non-zero return from fn stops the
 * scan (status GPI_OK). This is a range scan of the primary key. */
gpi_status store_obs_scan(store *st, int32_t day_from, int32_t day_to,
                          int64_t as_of, store_obs_fn fn, void *ud, gpi_diag *d);
/* The same scan without the row's audit columns: everything but ident,
 * buyer and raw_price (NULL) and line (0) -- kind, scope, tier, term,
 * term_months, status, unit, covers, observed_at, day, key_hash, price,
 * quantity, gpu_count and every name (gpu, provider, group, segment,
 * region, source, sku, raw gpu and provider, currency, correction) are
 * filled.  It reads 7 of the row's 11 columns. */
gpi_status store_obs_scan_core(store *st, int32_t day_from, int32_t day_to,
                               int64_t as_of, store_obs_fn fn, void *ud, gpi_diag *d);

/* Totals for reports and tests. */
gpi_status store_count(store *st, const char *table, long *n, gpi_diag *d);

/* ---- index values (store/store_index.c) --------------------------------
 * The index module writes them; settlement and hedge read them here. */

typedef struct store_index_day {
    int32_t day;
    int level;          /* gpi_level */
    int64_t value_e4;   /* value in units of 0.0001 USD per GPU-hour;
                           meaningless when level is GPI_LEVEL_SUSPENDED */
} store_index_day;

/* The built days of grade in [from, to], ascending; days never built are
 * absent (callers name them in their errors).  latest = 0: each day's value
 * as first published, or the stored value where the day was never
 * published (SPEC §8); latest = 1: the current (restated) value.
 * *out is malloc'd (free with free()); *n may be 0. */
gpi_status store_index_series(store *st, const char *grade, int32_t from, int32_t to,
                              int latest, store_index_day **out, size_t *n,
                              gpi_diag *d);

/* One published-format row of the index (SPEC §6, §13).  Money fields are
 * fixed point; a field that is empty in the CSV is -1 (prices, shares and
 * the adjustment are never negative). */
typedef struct store_index_row {
    int32_t day;
    char grade[65];
    int level;                    /* gpi_level */
    int64_t value_e4;             /* 0.0001 USD/GPU-hour; -1 when suspended */
    long n_obs, n_excluded, n_providers;
    int64_t trade_volume_e2;      /* GPU-hours x 100 (published with 2 dp) */
    int64_t adjustment_e6;        /* -1 unless an offers day */
    int64_t p10_micro, p25_micro, p50_micro, p75_micro, p90_micro,
            min_micro, max_micro; /* -1 on carried/suspended days */
    int64_t top_share_e6;         /* -1 on carried/suspended days */
    char methodology[16];         /* "v1" */
    int vintage;                  /* latest vintage that published this level and
                                     value, 0 if none: never published, or the
                                     published value differs (a revision, where
                                     it stands, or a restatement not yet
                                     published) */
    /* build detail (fields <= 0 / "" are stored as NULL) */
    int64_t trades_raw_q;         /* unrounded trades value, 1/4 micro-USD; -1 none */
    int64_t offers_raw_q;         /* unrounded, unadjusted offers value; -1 none */
    int carry_days;               /* carried days in a row ending here */
    int grade_version;
    char grade_hash[65];          /* SHA-256 of the grade's canonical definition */
    int64_t as_of;                /* ingest cut-off the row was built with */
    /* why the day is carried or suspended ("" otherwise); every method */
    char note[400];
    /* methodology v2 (index/chain.c); stored only for methodology "v2"
     * rows and read back as -1 / 0 / INT32_MIN for v1 rows */
    int64_t xs_value_e4;          /* the day's cross-section statistic (v1 rule); -1 none */
    int xs_level;                 /* its level (gpi_level) */
    int64_t chain_nano;           /* the unrounded chained value, 1e-9 USD; -1 none */
    int64_t relative_e12;         /* the day's matched relative x 1e12; -1 none */
    long n_matched;               /* identities (offers) or providers (trades) in it */
    long n_matched_providers;
    int panel_change;             /* 1: a constituent entered or left since ref_day */
    int event;                    /* idx_event: 0, start, rebalance, reanchor */
    int64_t splice_e12;           /* anchor / value the chain would have had, x 1e12; -1 */
    int32_t ref_day;              /* the day the relative compared with; INT32_MIN none */
    int32_t panel_day;            /* the anchor day whose panel it used; INT32_MIN none */
    int64_t obs_spread[7];        /* observation-level p10..max, micro; -1 none */
    int64_t matched_now_q;        /* the matched statistic today and at ref_day, */
    int64_t matched_ref_q;        /* quarter units of 1e-12; -1 none */
    const char *carried;          /* JSON array of the trading providers carried into
                                     the day, or NULL: borrowed (reading: valid during
                                     the callback only; a copied row must not use it) */
    /* what one participant can do to the fix (index/manip.c, METHODOLOGY.md
     * §11; every method, file format 3); -1 / "" none.  Stored: the move
     * only with its provider, costs only when > 0 (a row set up with zeros
     * reads back as none). */
    int64_t loo_move_e4;          /* largest |value - value without one provider group| */
    char loo_provider[65];        /* the group causing it */
    long loo_voids;               /* groups whose absence leaves no value */
    int64_t cost_e2[2];           /* GPU-hours x 100 of trades one new participant must add
                                     to move the value [0] one rounding step, [1] 1 % */
    long cost_offers[2];          /* offers it must add for the same */
    /* what a v2 day's recomputation needs besides its observations (gpuidx
     * verify; stored for methodology "v2" rows only) */
    int64_t chain_prev_nano;      /* the chain of the day before; -1 none */
    int carry_prev;               /* its carried days in a row */
    int xs_carry;                 /* the cross-section's carried days in a row */
    const char *ref_volumes;      /* JSON object group -> volume on ref_day of the matched
                                     trading members, or NULL; borrowed as `carried` */
    const char *anchor_window;    /* JSON array of the anchor's window days, or NULL */
} store_index_row;

typedef int (*store_index_row_fn)(const store_index_row *row, void *ud);

/* Calls fn for each stored row with grade (case-insensitive; NULL = all
 * grades) and day in [from, to], sorted by day then grade id.  A non-zero
 * return from fn stops the scan. */
gpi_status store_index_rows(store *st, const char *grade, int32_t from, int32_t to,
                            store_index_row_fn fn, void *ud, gpi_diag *d);

/* *any = 1 when an observation of `day` came in a batch ingested after
 * min(t1, t2) and at or before max(t1, t2): a row built with cut-off t1
 * would then differ from one built with cut-off t2 (index build uses
 * stored rows of earlier days only when it is 0). */
gpi_status store_obs_ingested_between(store *st, int32_t day, int64_t t1, int64_t t2,
                                      int *any, gpi_diag *d);

/* Inserts or replaces the stored row (grade, day).  Used by the index
 * build; tests use it to set up series. */
gpi_status store_index_put_row(store *st, const store_index_row *row, gpi_diag *d);

/* Records vintage `vintage` of (grade, day) as published with the row's
 * level and value, without the row's text (store_index_put_published_row
 * with no text: tests set up published series with it). */
gpi_status store_index_put_published(store *st, const char *grade, int32_t day,
                                     int vintage, int level, int64_t value_e4,
                                     gpi_diag *d);

/* 1 in *exists when a grade with this id (case-insensitive) has been
 * built into the database. */
gpi_status store_grade_exists(store *st, const char *grade, int *exists, gpi_diag *d);

/* ---- grade definitions, fix detail, vintages (store/store_index.c) ------ */

/* Records (id, version) -> hash + canonical definition.  When the pair is
 * already stored with another hash, *conflict = 1 and stored_hash holds
 * it (nothing is written). */
gpi_status store_grade_register(store *st, const char *id, int version, const char *hash,
                                const char *definition, int64_t now, int *conflict,
                                char stored_hash[65], gpi_diag *d);
/* The canonical definition of a grade hash (malloc'd; free()), or NULL in
 * *out when unknown. */
gpi_status store_grade_definition(store *st, const char *hash, char **out, gpi_diag *d);

/* Deletes the exclusions (what & 1) and/or adjustment days (what & 2) of
 * (grade, day). */
gpi_status store_index_clear_detail(store *st, const char *grade, int32_t day, int what,
                                    gpi_diag *d);
gpi_status store_index_put_exclusion(store *st, const char *grade, int32_t day, int kind,
                                     uint64_t key_hash, int64_t observed_at, const char *group,
                                     int64_t price_micro, const char *reason, gpi_diag *d);
gpi_status store_index_put_adj_day(store *st, const char *grade, int32_t day, int32_t src_day,
                                   int64_t trades_raw_q, int64_t offers_raw_q, gpi_diag *d);
typedef int (*store_adj_fn)(int32_t src_day, int64_t trades_raw_q, int64_t offers_raw_q,
                            void *ud);
gpi_status store_index_adj_days(store *st, const char *grade, int32_t day, store_adj_fn fn,
                                void *ud, gpi_diag *d);
gpi_status store_index_log_build(store *st, int64_t started_at, int32_t from, int32_t to,
                                 int64_t as_of, const char *grade_hashes, gpi_diag *d);

/* The batches holding observations of `day` ingested at or before as_of,
 * by file SHA-256: fn(file_sha256, tables_sha256 (or ""), ud) for each (a
 * published row's receipt).  A non-zero return from fn stops. */
typedef int (*store_batch_fn)(const char *sha256, const char *tables_sha256, void *ud);
gpi_status store_day_batches(store *st, int32_t day, int64_t as_of, store_batch_fn fn, void *ud,
                             gpi_diag *d);

/* A grade's row as published in one vintage. */
typedef struct store_pub_row {
    char grade[65];
    int level;
    int64_t value_e4;        /* -1 none */
    int64_t as_of;
    char grade_hash[65];
    const char *row_csv;     /* valid during the callback */
    const char *row_json;
    const char *row_tail;    /* CSV columns after the vintage (format >= 2), or "" */
    int32_t ref_day, panel_day; /* v2 rows: what the relative compared with; else INT32_MIN */
} store_pub_row;
typedef int (*store_pub_fn)(const store_pub_row *r, void *ud);

/* Latest vintage of day (0 if never published). */
gpi_status store_vintage_last(store *st, int32_t day, int *vintage, gpi_diag *d);
/* The three SHA-256 of a vintage (each 65 bytes). */
gpi_status store_vintage_sha(store *st, int32_t day, int vintage, char csv[65], char json[65],
                             char obs[65], gpi_diag *d);
/* format: the file format of the vintage (1: published before methodology
 * v2's columns; see index/publish.c). */
gpi_status store_vintage_put(store *st, int32_t day, int vintage, int format, int64_t created_at,
                             const char *csv_sha, const char *json_sha, const char *obs_sha,
                             gpi_diag *d);
gpi_status store_vintage_format(store *st, int32_t day, int vintage, int *format, gpi_diag *d);
/* Rows of one vintage, sorted by grade id. */
gpi_status store_vintage_rows(store *st, int32_t day, int vintage, store_pub_fn fn, void *ud,
                              gpi_diag *d);
gpi_status store_index_put_published_row(store *st, int32_t day, int vintage,
                                         const store_pub_row *r, gpi_diag *d);
gpi_status store_restatement_put(store *st, int32_t day, const char *grade, int vintage,
                                 int64_t old_e4, int64_t new_e4, const char *reason,
                                 gpi_diag *d);
typedef int (*store_restatement_fn)(int32_t day, const char *grade, int vintage, int64_t old_e4,
                                    int64_t new_e4, const char *reason, void *ud);
/* All restatements sorted by day, grade, vintage. */
gpi_status store_restatements(store *st, store_restatement_fn fn, void *ud, gpi_diag *d);
/* Records a revision once (same day, grade, standing vintage and value). */
gpi_status store_revision_put(store *st, int32_t day, const char *grade, int vintage,
                              int64_t old_e4, int64_t new_e4, int64_t now, gpi_diag *d);

/* ---- grade sets, facets (store/store_sets.c) -------------------------------- */

/* Marks grade id dropped (no longer built, published or shown; its rows
 * and vintages stay).  *changed = 0 when it already was. */
gpi_status store_grade_drop(store *st, const char *id, int64_t now, int *changed, gpi_diag *d);
/* Undoes store_grade_drop.  *changed = 0 when it was not dropped. */
gpi_status store_grade_restore(store *st, const char *id, int *changed, gpi_diag *d);
/* 1 in *dropped when grade id (case-insensitive) is dropped. */
gpi_status store_grade_dropped(store *st, const char *id, int *dropped, gpi_diag *d);

/* One grade id the database knows (built, or dropped). */
typedef struct store_grade_info {
    const char *id;           /* as first registered; valid during the callback */
    int version;              /* latest registered version (0: never built) */
    const char *hash;         /* its definition hash, or NULL */
    long rows;                /* index rows */
    long value_days;          /* rows with a value (not suspended) */
    int32_t first_day, last_day; /* of the rows (valid when rows > 0) */
    long published_days;      /* days with a published row */
    int64_t dropped_at;       /* 0 unless dropped */
} store_grade_info;
typedef int (*store_grade_info_fn)(const store_grade_info *g, void *ud);
/* Every grade id of the database, sorted by id (case-insensitive). */
gpi_status store_grades_list(store *st, store_grade_info_fn fn, void *ud, gpi_diag *d);

/* The SHA-256 of the grades file vintage `vintage` of day followed
 * ("" when none was recorded); set inside the publication's transaction. */
gpi_status store_vintage_set_grades_sha(store *st, int32_t day, int vintage, const char *sha,
                                        gpi_diag *d);
gpi_status store_vintage_grades_sha(store *st, int32_t day, int vintage, char sha[65],
                                    gpi_diag *d);

/* Every distinct combination of what a grade filters on among the stored
 * observations: calls fn with kind, scope, tier, term, term_months,
 * status, covers, gpu, provider, group, segment, region and sku filled
 * (the rest zero or NULL).  One scan of the observations. */
gpi_status store_obs_facets(store *st, store_obs_fn fn, void *ud, gpi_diag *d);

#endif
