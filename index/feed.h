/* index/feed.h -- where index/ reads and writes the store for its
 * methods, which take data: a day's observations (index/feed.c), the
 * replay of the days before a build (index/build.c; and before the
 * publication of a v2 row stored without its roles, index/roles.c), and
 * the chains' and panels' stored states (index/v2_store.c,
 * index/v3_store.c).  The store's handle is borrowed for each call.
 */
#ifndef GPI_INDEX_FEED_H
#define GPI_INDEX_FEED_H

#include "index/chain.h"
#include "index/day.h"

/* feed.c: reads day (as_of cut-off) from the store into the per-grade
 * arrays (one scan, through idx_day_add). */
gpi_status idx_day_collect(idx_day *dy, store *st, int32_t day, int64_t as_of, gpi_diag *d);
/* fresh.c: marks the offers of the grades with max_unchanged_days whose
 * price has stood longer IDX_EX_UNCHANGED (idx_day_collect calls it: the
 * look-up of each offer's price age reads the store). */
gpi_status idx_day_fresh(idx_day *dy, store *st, int32_t day, int64_t as_of, gpi_diag *d);
/* v2_store.c (build.c note 8): *resumed = 1 when the state c's grade
 * left after from - 1 is stored and still current at cut-off as_of, and c
 * (fresh from idx_chain_init) now holds it; a stored state refused
 * (damaged, another grade's, day's or method's, or not decodable) leaves c
 * fresh and says why in refused (cap bytes; "" otherwise); idx_chain_save
 * stores c's state after day (inside the caller's transaction), keeping
 * IDX_CHAIN_STATES_KEPT days. */
gpi_status idx_chain_resume(store *st, idx_chain *c, int32_t from, int64_t as_of, int *resumed,
                            char *refused, size_t cap, gpi_diag *d);
gpi_status idx_chain_save(store *st, const idx_chain *c, int32_t day, int64_t as_of,
                          gpi_diag *d);
/* build.c: the states of every grade of dy->gs after day from - 1 at
 * cut-off as_of, exactly as a build of everything would leave them (the
 * sequences, and the chains of v2 grades; design notes 2 and 7 there);
 * dy is a day buffer to read with. */
gpi_status idx_replay(store *st, idx_day *dy, idx_seq *gst, idx_chain *gch, int32_t from,
                      int64_t as_of, gpi_diag *d);
/* v3_store.c (build.c note 9): the first day observed (INT32_MIN none);
 * *resumed = 1 when the state c's grade left after from - 1 is stored and
 * still current at cut-off as_of, and c->v3 now holds it; a stored state
 * refused (damaged, another grade's, day's or method's, or not decodable)
 * leaves c->v3 fresh and says why in refused (cap bytes; "" otherwise);
 * idx_v3_save stores c->v3 after day (inside the caller's transaction). */
gpi_status idx_v3_first_day(store *st, int32_t *day, gpi_diag *d);
gpi_status idx_v3_resume(store *st, idx_chain *c, int32_t from, int64_t as_of, int *resumed,
                         char *refused, size_t cap, gpi_diag *d);
gpi_status idx_v3_save(store *st, const idx_chain *c, int32_t day, int64_t as_of, gpi_diag *d);

#endif
