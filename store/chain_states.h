/* store/chain_states.h -- the chain states v2 grades' builds leave
 * (index/chain_state.c encodes them), and the test that says whether one
 * can still be used: did any batch between two cut-offs store rows of the
 * days the state was built from.
 *
 * A state is a cache: dropping any of them changes no result, only how
 * far back the next build replays (index/build.c note 8).
 *
 * Ownership: as stated once in store/store.h for the whole store API.
 */
#ifndef GPI_STORE_CHAIN_STATES_H
#define GPI_STORE_CHAIN_STATES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Stores the state after `day` of the grade of definition hash, left by a
 * build at cut-off as_of in encoding `format`, replacing the one of that
 * day, and drops the grade's states of days before day - keep_days + 1.
 * Inside the caller's transaction. */
gpi_status store_chain_state_put(store *st, const char *hash, int32_t day, int64_t as_of,
                                 int format, const unsigned char *state, size_t n,
                                 int keep_days, gpi_diag *d);
/* The state after `day` of the grade of definition hash: *state (malloc'd,
 * the caller frees it) and its size, cut-off and format; *state = NULL
 * when none is stored. */
gpi_status store_chain_state_get(store *st, const char *hash, int32_t day, unsigned char **state,
                                 size_t *n, int64_t *as_of, int *format, gpi_diag *d);
/* 1 in *any when a batch ingested after the earlier and at or before the
 * later of cut-offs t1 and t2 stored observations of a day in [lo, hi]
 * (a batch committed before schema version 11 counts as reaching every
 * day: it did not record its days). */
gpi_status store_obs_reached(store *st, int32_t lo, int32_t hi, int64_t t1, int64_t t2, int *any,
                             gpi_diag *d);

/* The first day any stored observation is of (INT32_MIN when none): a
 * methodology v3 state depends on every day since (index/v3_store.c). */
gpi_status store_obs_first_day(store *st, int32_t *day, gpi_diag *d);

#endif
