/* store/batches.h -- ingest batches: one file read is one batch and one
 * transaction, its skip-by-hash checks, and the cut-off a build reads at.
 *
 * Transactions: an ingest batch is one transaction (store_batch_begin ..
 * store_batch_commit or store_batch_rollback), so a killed process leaves
 * the file either wholly stored or not at all.
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_BATCHES_H
#define GPI_STORE_BATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

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

/* The batches holding observations of `day` ingested at or before as_of,
 * by file SHA-256: fn(file_sha256, tables_sha256 (or ""), ud) for each (a
 * published row's receipt).  A non-zero return from fn stops. */
typedef int (*store_batch_fn)(const char *sha256, const char *tables_sha256, void *ud);
gpi_status store_day_batches(store *st, int32_t day, int64_t as_of, store_batch_fn fn, void *ud,
                             gpi_diag *d);

/* store_batch_find_same, and the kind the file was read as: *found = 1
 * (with *batch_id) when a committed batch read it through the same tables
 * and options, unless that batch and kind_hint both name a kind ("offers",
 * "trades"; NULL: the file's kind column) and they differ: then *other
 * (0: none) is that batch, and its kind goes into other_kind. */
gpi_status store_batch_find_same_kind(store *st, const char *sha256, const char *tables_sha256,
                                      const char *options, const char *kind_hint, int *found,
                                      int64_t *batch_id, int64_t *other, char other_kind[16],
                                      gpi_diag *d);

/* Moves the stored rows whose provider, group or segment providers.csv
 * now gives otherwise (store/regroup.c): fn(ud, raw provider as written,
 * &provider, &group, &segment) returns 1 with the three names it resolves
 * to, 0 to leave the name's rows as they are.  One transaction, recorded
 * as a batch of info (its days those of the rows moved) when rows move. */
typedef int (*store_regroup_fn)(void *ud, const char *raw_provider, const char **provider,
                                const char **group, const char **segment);
typedef struct store_regroup_result {
    long profiles;              /* profiles whose rows moved */
    int64_t rows;               /* rows moved */
    int32_t first_day, last_day;
    int64_t batch;              /* the batch recorded, 0 when nothing moved */
} store_regroup_result;
gpi_status store_obs_regroup(store *st, const store_batch_info *info, store_regroup_fn fn,
                             void *ud, store_regroup_result *out, gpi_diag *d);

/* Every committed batch ingested after t that stored rows: its ingest
 * time and the first and last day of its rows (a batch of before schema
 * 11: INT32_MIN and INT32_MAX, every day); fn's non-zero return stops. */
typedef int (*store_batch_days_fn)(int64_t ingested_at, int32_t min_day, int32_t max_day,
                                   void *ud);
gpi_status store_batches_after(store *st, int64_t t, store_batch_days_fn fn, void *ud,
                               gpi_diag *d);

#endif
