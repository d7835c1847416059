/* index/fresh.c -- fresh inputs: a grade's max_unchanged_days applied to
 * the day's offers (METHODOLOGY.md §1.3, §12.1).
 *
 * NOTES ON THE DESIGN
 * (1) An offer's price stands since the first day its identity was seen
 *     at that price with no other price since (absent days do not reset
 *     it): the rule of the published stale share, with the same look-up
 *     (store_price_age: each day back, the identity's rows of that day at
 *     the cut-off; the first day with another price ends it).  An offer
 *     of a grade with max_unchanged_days M whose price has stood more
 *     than M days on the day is not eligible: IDX_EX_UNCHANGED, listed in
 *     observations.csv with that reason and counted nowhere, like a
 *     cancelled trade.  The look-up stops once M + 1 days are covered and
 *     reaches back at most M + IDX_AGE_SLACK days (a quote absent longer
 *     is dated from its return), so the rule needs nothing older.
 * (2) After the day's scan, on the items each grade kept (the latest
 *     snapshot of each offer key): one primary-key seek per day back for
 *     each eligible offer of such a grade, and none at all for the others
 *     -- grades without the parameter cost nothing.  Trades are new
 *     prints and are never unchanged.
 */
#include "index/feed.h"
#include "index/stale.h"
#include "store/admin.h"

gpi_status idx_day_fresh(idx_day *dy, store *st, int32_t day, int64_t as_of, gpi_diag *d)
{
    for (size_t gi = 0; gi < dy->ng; gi++) {
        int m = dy->gs->g[gi].p.max_unchanged_days;
        if (m <= 0) continue;
        idx_buf *b = &dy->offers[gi];
        for (size_t i = 0; i < b->n; i++) {
            idx_item *it = &b->v[i];
            if (it->reason != IDX_OK) continue;
            int age = 0;
            gpi_status rc = store_price_age(st, it->key_hash, it->price_micro, day, as_of, m + 1,
                                            m + IDX_AGE_SLACK, &age, d);
            if (rc != GPI_OK) return rc;
            if (age > m) it->reason = IDX_EX_UNCHANGED;
        }
    }
    return GPI_OK;
}
