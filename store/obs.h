/* store/obs.h -- observations and rejects: storing them (inside an open
 * batch, store/batches.h) and reading them back.
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
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_OBS_H
#define GPI_STORE_OBS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

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

typedef int (*store_obs_fn)(const gpi_obs *o, void *ud);

/* Calls fn for every observation with day in [day_from, day_to] whose
 * batch was ingested at or before as_of (Unix seconds), in primary-key
 * order (day, key_hash, observed_at).  A non-zero return from fn stops the
 * scan (status GPI_OK). This is a range scan of the primary key.
 * o->profile_id is the row's profile id (scan.c note 5): rows with the
 * same number have the same profile fields, in this database.
 * o's names (gpu ... correction, and ident when it is a name) are the
 * store's interned texts, valid until the next rollback or store_close
 * (as store_obs_facets's); ident when it is not a name, buyer and
 * raw_price live only until fn returns. */
gpi_status store_obs_scan(store *st, int32_t day_from, int32_t day_to,
                          int64_t as_of, store_obs_fn fn, void *ud, gpi_diag *d);
/* The same scan without the row's audit columns: everything but ident,
 * buyer and raw_price (NULL) and line (0) -- kind, scope, tier, term,
 * term_months, status, unit, covers, observed_at, day, key_hash, price,
 * quantity, gpu_count and every name (gpu, provider, group, segment,
 * region, source, sku, raw gpu and provider, currency, correction) are
 * filled.  It reads 7 of the row's 11 columns, or 5 (not day and batch)
 * for one day at a cut-off after every batch (scan.c note 4). */
gpi_status store_obs_scan_core(store *st, int32_t day_from, int32_t day_to,
                               int64_t as_of, store_obs_fn fn, void *ud, gpi_diag *d);

/* *any = 1 when an observation of `day` came in a batch ingested after
 * min(t1, t2) and at or before max(t1, t2): a row built with cut-off t1
 * would then differ from one built with cut-off t2 (index build uses
 * stored rows of earlier days only when it is 0). */
gpi_status store_obs_ingested_between(store *st, int32_t day, int64_t t1, int64_t t2,
                                      int *any, gpi_diag *d);

/* Every distinct combination of what a grade filters on among the stored
 * observations: calls fn with kind, scope, tier, term, term_months,
 * status, covers, gpu, provider, group, segment, region and sku filled
 * (the rest zero or NULL): those of the noted profiles, from the profile
 * cache (store_sets.c note 2).  The names are the
 * store's interned texts: they stay valid until the next rollback or
 * store_close, so fn may keep the pointers (no copy) for that long. */
gpi_status store_obs_facets(store *st, store_obs_fn fn, void *ud, gpi_diag *d);

/* The fields of a facet store_obs_facet_values reports, in gpi_obs's names. */
enum {
    STORE_FACET_GPU,
    STORE_FACET_PROVIDER,
    STORE_FACET_GROUP,
    STORE_FACET_SEGMENT,
    STORE_FACET_REGION,
    STORE_FACET_SKU,
    STORE_FACET_FIELDS
};
/* fn(field, text, ud): a non-zero return stops the walk (status GPI_OK). */
typedef int (*store_facet_value_fn)(int field, const char *text, void *ud);
/* Each field's distinct values among the facets store_obs_facets would
 * report, one call per (field, value), field by field: text NULL when some
 * facet has none in that field, else the store's interned text (valid as
 * store_obs_facets's).  *n_noted: the facets' profiles (0: nothing stored).
 * Answers "does some facet have a value of this field that ..." without
 * the facets themselves (store_sets.c note 2). */
gpi_status store_obs_facet_values(store *st, store_facet_value_fn fn, void *ud, size_t *n_noted,
                                  gpi_diag *d);

/* Grade checks that found every filter of a grade matched
 * (index/grade_tables.c note 4).  The facets only grow (observations are
 * never deleted), so a check that warned of nothing never will: *clean = 1
 * when `key` (a hash of what the check depends on besides the facets) was
 * recorded clean. */
gpi_status store_facet_check_clean(store *st, const char *key, int *clean, gpi_diag *d);
/* Records the n keys as clean in one transaction, best effort: nothing on
 * a read-only handle or inside a transaction, and nothing when another
 * writer holds the database (no waiting); the checks then simply run
 * again next time. */
void store_facet_check_record(store *st, const char *const *keys, size_t n);

#endif
