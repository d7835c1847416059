/* index/v2_store.c -- v2 chains' states in the store's chain states
 * (store/chain_states.h): the glue between the bytes of index/chain_state.c
 * and the store, for the build's resume and save (build.c note 8).
 *
 * NOTES ON THE DESIGN
 * (1) A stored state is used only when it is of the grade's definition,
 *     method and the day before `from`, in this encoding
 *     (IDX_CHAIN_STATE_FORMAT), and no batch between its cut-off and this
 *     one stored an observation of a day it was built from
 *     (idx_v2_first_day(from) .. from - 1).
 * (2) The store seals what it is given (store/chain_states.c note 4): a
 *     state damaged or filed under another grade, method or day is
 *     refused there; one that does not decode is refused here, the chain
 *     reset fresh and replayed.  Either refusal is said in `refused`.
 */
#include "index/feed.h"
#include "store/chain_states.h"

#include <stdio.h>
#include <stdlib.h>

/* build.c note 8: *resumed = 1 when the chain state c's grade left after
 * from - 1 is stored and still current at as_of, and c now holds it. */
gpi_status idx_chain_resume(store *st, idx_chain *c, int32_t from, int64_t as_of, int *resumed,
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
    if (rc == GPI_OK && p && format == IDX_CHAIN_STATE_FORMAT)
        rc = store_obs_reached(st, idx_v2_first_day(c->g, from), from - 1, t0, as_of, &late, d);
    if (rc == GPI_OK && p && !late) {
        gpi_diag why = {{0}};
        if (idx_chain_decode(c, p, n, &why) == GPI_OK) {
            *resumed = 1;
        } else { /* malformed: replayed instead, from a fresh chain */
            if (refused && cap) snprintf(refused, cap, "%s", why.msg);
            const idx_grade *g = c->g;
            idx_chain_free(c);
            if (idx_chain_init(c, g) != GPI_OK) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        }
    }
    free(p);
    return rc;
}

/* build.c note 8: the chain state after day, for the next day's build and
 * this day's publication. */
gpi_status idx_chain_save(store *st, const idx_chain *c, int32_t day, int64_t as_of,
                          gpi_diag *d)
{
    unsigned char *p = NULL;
    size_t n = 0;
    gpi_status rc = idx_chain_encode(c, &p, &n, d);
    if (rc == GPI_OK)
        rc = store_chain_state_put(st, c->g->hash, c->g->method, day, as_of,
                                   IDX_CHAIN_STATE_FORMAT, p, n,
                                   IDX_CHAIN_STATES_KEPT, d);
    free(p);
    return rc;
}
