/* index/v3_store.c -- methodology v3's state in the store's chain states
 * (store/chain_states.h, the same table and API as v2's chains: keyed by
 * the grade's definition hash, the last IDX_CHAIN_STATES_KEPT days kept).
 *
 * NOTES ON THE DESIGN
 * (1) A v3 state depends on every day since the grade's first observation
 *     (membership, the items' last prices and the log index carry
 *     forever), so a state is current only while no batch ingested
 *     between its cut-off and this one stored an observation of any day up
 *     to the state's day.  When none is stored or current, the build
 *     replays the grade from the first day observed (idx_v3_first_day):
 *     the rows are the same either way (tests/test_index_v3_build.c).
 * (2) A state read with other parameters or another encoding is refused
 *     by idx_v3_decode; the chain slot is then reset and replayed.
 * (3) The store seals what it is given (store/chain_states.c note 4): a
 *     state damaged, or filed under another grade definition, method or
 *     day, is refused there; either refusal is said in `refused` and the
 *     build names it in its notes (build.c note 8) before replaying.
 */
#include "index/feed.h"
#include "store/chain_states.h"

#include <stdio.h>
#include <stdlib.h>

gpi_status idx_v3_first_day(store *st, int32_t *day, gpi_diag *d)
{
    return store_obs_first_day(st, day, d);
}

gpi_status idx_v3_resume(store *st, idx_chain *c, int32_t from, int64_t as_of, int *resumed,
                         char *refused, size_t cap, gpi_diag *d)
{
    *resumed = 0;
    if (refused && cap) refused[0] = '\0';
    unsigned char *p = NULL;
    size_t n = 0;
    int64_t t0 = 0;
    int format = 0, late = 1;
    gpi_status rc = store_chain_state_get(st, c->g->hash, c->g->method, from - 1, &p, &n, &t0,
                                          &format, refused, cap, d);
    if (rc == GPI_OK && p && format == IDX_V3_STATE_FORMAT)
        rc = store_obs_reached(st, INT32_MIN, from - 1, t0, as_of, &late, d);
    if (rc == GPI_OK && p && format == IDX_V3_STATE_FORMAT && !late) {
        gpi_diag why = {{0}};
        if (idx_v3_decode(c->v3, p, n, &why) == GPI_OK) {
            *resumed = 1;
        } else { /* malformed: replayed instead, from a fresh state */
            if (refused && cap) snprintf(refused, cap, "%s", why.msg);
            idx_v3_free(c->v3);
            if (!(c->v3 = idx_v3_new(c->g))) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        }
    }
    free(p);
    return rc;
}

gpi_status idx_v3_save(store *st, const idx_chain *c, int32_t day, int64_t as_of, gpi_diag *d)
{
    unsigned char *p = NULL;
    size_t n = 0;
    gpi_status rc = idx_v3_encode(c->v3, &p, &n, d);
    if (rc == GPI_OK)
        rc = store_chain_state_put(st, c->g->hash, c->g->method, day, as_of,
                                   IDX_V3_STATE_FORMAT, p, n, IDX_CHAIN_STATES_KEPT, d);
    free(p);
    return rc;
}
