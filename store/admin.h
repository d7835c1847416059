/* store/admin.h -- what benchmark administration reads and keeps: the
 * ingested files a day's fixes could see (input commitments), the
 * signatures of signed vintages, and the price history behind the stale
 * share (METHODOLOGY.md §7.1, §7.3, §12).
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_ADMIN_H
#define GPI_STORE_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One ingested file as a vintage commits to it. */
typedef struct store_input {
    const char *sha256;        /* of the file's bytes (decompressed) */
    const char *path;          /* as given to ingest */
    const char *source;        /* --source, or NULL (the file name was the default) */
    const char *kind_hint;     /* "offers", "trades" or NULL */
    const char *tables_sha256; /* or NULL */
    const char *options;       /* "admit-providers" or NULL */
    int64_t ingested_at;       /* the second it counts as ingested */
    int64_t n_read;            /* data rows read from the file */
    int64_t batch_id;
} store_input;
typedef int (*store_input_fn)(const store_input *b, void *ud);

/* The batches holding observations of `day` ingested at or before as_of
 * (the batches of store_day_batches), in ingestion order (ingested_at,
 * then batch id).  A non-zero return from fn stops. */
gpi_status store_day_inputs(store *st, int32_t day, int64_t as_of, store_input_fn fn, void *ud,
                            gpi_diag *d);

/* Sets a committed batch's ingested_at: a scratch store into which
 * `verify --inputs` re-ingests published inputs gives each file the
 * stamp the publication committed to, so each row's cut-off sees the
 * same files. */
gpi_status store_batch_restamp(store *st, int64_t batch_id, int64_t ingested_at, gpi_diag *d);

/* The signature of a signed vintage (in the publication's transaction),
 * and reading it back: fingerprint "" when the vintage is unsigned. */
gpi_status store_vintage_signature_put(store *st, int32_t day, int vintage,
                                       const char *fingerprint, const char *signature_b64,
                                       gpi_diag *d);
gpi_status store_vintage_signature(store *st, int32_t day, int vintage, char fingerprint[65],
                                   char signature_b64[128], gpi_diag *d);

/* How long an offer's price has stood (the stale share, METHODOLOGY.md
 * §12.1): the days back from `day` over which the identity key_hash (the
 * store's key) was observed at `price` and never at another price, by
 * files ingested at or before as_of: looking back at most max_back days
 * and stopping once it has found the same price `enough` days back.
 * *age 0: its price changed the day before, or it was not observed
 * before. */
gpi_status store_price_age(store *st, uint64_t key_hash, int64_t price, int32_t day,
                           int64_t as_of, int enough, int max_back, int *age, gpi_diag *d);

/* What the statement's IOSCO table shows from the store (site/iosco.c). */
typedef struct store_admin_facts {
    long vintages;             /* published vintages */
    long vintages_committed;   /* of file format 4: with their inputs listed */
    long vintages_signed;
    char last_fingerprint[65]; /* of the latest signed vintage, "" none */
    long restatements, revisions;
    long batches, rejects;     /* ingested files, refused rows */
    long sources;              /* distinct source names of the batches */
} store_admin_facts;
gpi_status store_admin_facts_read(store *st, store_admin_facts *f, gpi_diag *d);

#endif
