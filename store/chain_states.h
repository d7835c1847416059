/* store/chain_states.h -- the states v2 and v3 grades' builds leave (v2's
 * chains: index/chain_state.c encodes them, index/v2_store.c files them;
 * v3's panels: index/v3_state.c and index/v3_store.c), and the test that
 * says whether one can still be used: did any batch between two cut-offs
 * store rows of the days the state was built from.
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

/* A state is stored sealed (store/chain_states.c note 4): with the grade's
 * definition hash, its method, the day, the cut-off and the encoding, and
 * a SHA-256 over all of it, so whatever a method stores through this API
 * is refused when it is damaged or filed under another grade, day or
 * method.  The sealed bytes are a function of those and the state alone:
 * equal builds store equal bytes. */

/* Stores the state after `day` of the grade of definition hash and method
 * (1, 2, ...: the grade's methodology), left by a build at cut-off as_of
 * in encoding `format`, replacing the one of that day, and drops the
 * grade's states of days before day - keep_days + 1.  Inside the caller's
 * transaction. */
gpi_status store_chain_state_put(store *st, const char *hash, int method, int32_t day,
                                 int64_t as_of, int format, const unsigned char *state, size_t n,
                                 int keep_days, gpi_diag *d);
/* The state after `day` of the grade of definition hash and method:
 * *state (malloc'd, the caller frees it, the bytes given to put) and its
 * size, cut-off and format; *state = NULL when none is stored, or when
 * the stored one is refused: then `refused` (cap bytes, may be NULL) says
 * why ("its checksum does not match (damaged)", "it is the state of grade
 * 1a2b3c4d5e6f..., filed under ...", ...), else it is "". */
gpi_status store_chain_state_get(store *st, const char *hash, int method, int32_t day,
                                 unsigned char **state, size_t *n, int64_t *as_of, int *format,
                                 char *refused, size_t cap, gpi_diag *d);
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
