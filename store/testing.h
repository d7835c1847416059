/* store/testing.h -- hooks for tests only: set-ups and totals no command
 * needs.  Only tests/ (and store/, which defines them) include this
 * header: the Makefile compiles those two directories, and no other, with
 * GPI_STORE_TESTING defined, and anywhere else this header stops the
 * compilation (tests/test_store_headers.c checks both).
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_TESTING_H
#define GPI_STORE_TESTING_H

#ifndef GPI_STORE_TESTING
#error "store/testing.h holds hooks for tests only (tests/ and store/ are built with GPI_STORE_TESTING)"
/* Prepares sql in extra statement slot `slot` (store_stmt) and steps it
 * once: GPI_OK, or the error (a slot prepared with another query is
 * refused, its text and the new one named). */
gpi_status store_testing_slot(store *st, int slot, const char *sql, gpi_diag *d);

#endif

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* 1 in *found (and its batch id) when a committed batch has this SHA-256. */
gpi_status store_batch_find(store *st, const char *sha256, int *found,
                            int64_t *batch_id, gpi_diag *d);

/* The page cache's size in KiB (store.c note 10). */
long store_cache_kib(store *st);
/* Totals for reports and tests. */
gpi_status store_count(store *st, const char *table, long *n, gpi_diag *d);

/* Records vintage `vintage` of (grade, day) as published with the row's
 * level and value, without the row's text (store_index_put_published_row
 * with no text: tests set up published series with it). */
gpi_status store_index_put_published(store *st, const char *grade, int32_t day,
                                     int vintage, int level, int64_t value_e4,
                                     gpi_diag *d);

/* Prepares sql in extra statement slot `slot` (store_stmt) and steps it
 * once: GPI_OK, or the error (a slot prepared with another query is
 * refused, its text and the new one named). */
gpi_status store_testing_slot(store *st, int slot, const char *sql, gpi_diag *d);

#endif
