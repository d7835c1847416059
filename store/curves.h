/* store/curves.h -- what the term curve (curve/, issue 29) keeps in the
 * store: the start of each forward-start observation, and the curve files
 * of each vintage that has them (file format 4).
 *
 * A forward start (gpi_obs.starts_on) is kept beside its row, in its own
 * table, so the observations and their scans are what they were; ingest
 * stores it with the row (store/obs.h, store_obs_put) and counts a row
 * whose start differs from the stored one's as a conflict.
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_CURVES_H
#define GPI_STORE_CURVES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Calls fn for every stored forward start of observations of `day`, in
 * key order (day, key_hash, observed_at); the observation itself is the
 * one store_obs_scan hands out with that key and time (whose cut-off the
 * caller applies).  A non-zero return stops the walk. */
typedef int (*store_start_fn)(uint64_t key_hash, int64_t observed_at, int32_t starts_on,
                              void *ud);
gpi_status store_obs_starts(store *st, int32_t day, store_start_fn fn, void *ud, gpi_diag *d);

/* The curve files of vintage `vintage` of day: the SHA-256 of curve.csv
 * and curve.json, the futures settlement prices the curve took from a
 * file (CSV text, "" none) and curve.csv itself (csv_len bytes).  Recorded
 * inside the publication's transaction. */
gpi_status store_vintage_curve_put(store *st, int32_t day, int vintage, const char *csv_sha,
                                   const char *json_sha, const char *futures,
                                   const char *curve_csv, size_t csv_len, gpi_diag *d);
/* curve.csv of day's latest vintage that has curve files (first = 1: its
 * first such vintage, the curve as first published); *csv malloc'd,
 * free(); *csv NULL when none. */
gpi_status store_vintage_curve_csv(store *st, int32_t day, int first, char **csv, gpi_diag *d);
/* *present = 0 when the vintage has no curve files (published before file
 * format 4); else the two SHA-256 (65 bytes each) and *futures (malloc'd,
 * free()). */
gpi_status store_vintage_curve_get(store *st, int32_t day, int vintage, int *present,
                                   char csv_sha[65], char json_sha[65], char **futures,
                                   gpi_diag *d);

#endif
