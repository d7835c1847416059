/* index/feed.c -- the index's reading of the store: a day's observations
 * into an idx_day, and the store's part of a day's detail.
 *
 * NOTES ON THE DESIGN
 * (1) The methods take data (index/day.c, day_detail.c, chain.c include
 *     no store header); this glue is where the index reads observations.
 *     One scan per day read, each observation handed to idx_day_add as
 *     the scan yields it: no copy, no second scan.  The scan is the core
 *     one (no audit columns: reading is most of a build, build.c note 5)
 *     unless the day keeps observations for the detail or a grade's
 *     "exclude" matches identity texts (idx_day_wants_ident).
 * (2) idx_day_detail: the day read once with its observations kept,
 *     listed by idx_day_list with each row's stored roles
 *     (index/roles.c), then v3's imputed members from the days their
 *     observations were of (index/v3_detail.c).  Nothing is fixed again
 *     and no chain replayed, and the look-back of max_unchanged_days is
 *     not made (the roles hold its exclusions), unless a row has no roles
 *     (stored before store version 17): then, as before them, the chains
 *     of such v2 grades are replayed to the day before (idx_replay,
 *     build.c) and the day's price ages looked up.
 */
#include "index/day_detail.h"
#include "index/feed.h"
#include "index/roles.h"
#include "store/obs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on_obs(const gpi_obs *o, void *ud)
{
    return idx_day_add(ud, o);
}

gpi_status idx_day_collect(idx_day *dy, store *st, int32_t day, int64_t as_of, gpi_diag *d)
{
    idx_day_begin(dy);
    gpi_status rc = idx_day_wants_ident(dy)
                        ? store_obs_scan(st, day, day, as_of, on_obs, dy, d)
                        : store_obs_scan_core(st, day, day, as_of, on_obs, dy, d);
    if (rc == GPI_OK) rc = idx_day_end(dy, d);
    /* fresh inputs: grades with max_unchanged_days (fresh.c) */
    if (rc == GPI_OK && dy->need_age) rc = idx_day_fresh(dy, st, day, as_of, d);
    return rc;
}

gpi_status idx_day_detail(store *st, const idx_grades *gs, const idx_detail *rows, int32_t day,
                          int64_t as_of, idx_obs_fn fn, void *ud, gpi_diag *d)
{
    idx_day dy;
    memset(&dy, 0, sizeof dy);
    idx_kept *kept = idx_kept_new();
    size_t ng = gs->n ? gs->n : 1;
    idx_chain *ch = calloc(ng, sizeof *ch);
    idx_seq *sq = calloc(ng, sizeof *sq);
    idx_v3_pub **v3 = calloc(ng, sizeof *v3);
    idx_roles **ro = calloc(ng, sizeof *ro);
    int replay = 0, age = 0;
    gpi_status rc = kept && v3 && ch && sq && ro ? idx_day_init(&dy, gs) : GPI_ENOMEM;
    if (rc != GPI_OK) rc = gpi_diag_set(d, rc, "index: out of memory");
    for (size_t gi = 0; gi < gs->n && rc == GPI_OK; gi++) {
        rc = idx_chain_init(&ch[gi], &gs->g[gi]);
        if (rc == GPI_OK) rc = idx_seq_init(&sq[gi], &gs->g[gi]);
        if (rc != GPI_OK) rc = gpi_diag_set(d, rc, "index: out of memory");
        /* what the build stored (index/roles.c), else note 2's way */
        if (rc == GPI_OK && rows[gi].roles) {
            char date[11], where[128];
            gpi_date_format(day, date);
            snprintf(where, sizeof where, "publish: %s: grade %s", date, gs->g[gi].id);
            rc = idx_roles_parse(rows[gi].roles, where, &ro[gi], d);
        }
        replay |= gs->g[gi].method == 2 && !ro[gi];
        age |= !ro[gi] && gs->g[gi].p.max_unchanged_days > 0;
        /* v3: what the build stored (index/v3_detail.c), no replay */
        if (rc == GPI_OK && gs->g[gi].method == 3)
            rc = idx_v3_pub_parse(rows[gi].v3_detail, &v3[gi], d);
    }
    /* v2 rows without roles: the chains as the build left them before `day` */
    if (rc == GPI_OK && replay) rc = idx_replay(st, &dy, sq, ch, day, as_of, d);
    dy.need_age = age; /* the day's price ages: for rows without roles only */
    if (rc == GPI_OK) {
        dy.keep = kept; /* this day's scan only, not the replay's */
        rc = idx_day_collect(&dy, st, day, as_of, d);
        dy.keep = NULL;
    }
    if (rc == GPI_OK) rc = idx_day_list(&dy, kept, rows, ch, v3, ro, day, fn, ud, d);
    int stop = 0;
    for (size_t gi = 0; gi < gs->n && rc == GPI_OK && !stop; gi++)
        if (v3 && v3[gi]) rc = idx_v3_pub_imputed(st, v3[gi], gi, as_of, fn, ud, &stop, d);
    for (size_t gi = 0; gi < gs->n; gi++) {
        if (ch) idx_chain_free(&ch[gi]);
        if (sq) idx_seq_free(&sq[gi]);
        if (v3) idx_v3_pub_free(v3[gi]);
        if (ro) idx_roles_free(ro[gi]);
    }
    free(ro);
    free(v3);
    free(ch);
    free(sq);
    idx_kept_free(kept);
    idx_day_free(&dy);
    return rc;
}
