/* index/day_detail.c -- what observations.csv lists of a day: every
 * observation some grade took, with its role, from the day read with its
 * observations kept (index/day.c note 5).
 *
 * NOTES ON THE DESIGN
 * (1) Data only: the day comes read (index/feed.c reads it and does the
 *     store's part of idx_day_detail: the v2 replay of rows without
 *     roles, v3's imputed members), the chains replayed to the day
 *     before, the stored roles and v3's stored detail parsed.  This file
 *     includes no store header.
 * (2) Each grade's arrays are fixed (idx_day_fix marks the screened
 *     items) and a v2 grade's day matched against its chain, unless the
 *     row has its roles (note 3); the arrays are sorted by key and time;
 *     then the kept (observation, grade) pairs are listed in scan order,
 *     each found among its grade's items by key and time (an earlier
 *     snapshot of an offer key is not there and is skipped, day.c note
 *     2).
 * (3) A row's stored roles (index/roles.c), when it has them, say which of
 *     the grade's observations the fix left out and why, and a v2 day's
 *     matched prices: the grade's arrays are then only looked up (which
 *     observations are the grade's, the day's snapshot of each offer key),
 *     neither fixed nor matched against a chain.  A row stored before
 *     store version 17 has none: its day is fixed again, and a v2 grade's
 *     chain, replayed to the day before (index/feed.c), matched again.
 */
#include "index/day_detail.h"
#include "index/roles.h"
#include "index/snap.h"

#include <stdlib.h>
#include <string.h>

typedef struct detail {
    idx_day *dy;
    const idx_detail *rows;
    idx_chain *ch;     /* per grade; has = 0 for v1 grades and days without a chain */
    idx_v3_pub **v3;   /* per grade: a v3 row's parsed detail, else NULL */
    idx_roles **ro;    /* per grade: the row's stored roles, else NULL (note 3) */
    idx_obs_fn fn;
    void *ud;
} detail;

static int cmp_key(const void *a, const void *b)
{
    const idx_item *x = a, *y = b;
    if (x->key_hash != y->key_hash) return x->key_hash < y->key_hash ? -1 : 1;
    return (x->observed_at > y->observed_at) - (x->observed_at < y->observed_at);
}

/* Lists observation o of grade gi (its items sorted by cmp_key); non-zero
 * from the callback stops. */
static int list_obs(detail *dt, size_t gi, const gpi_obs *o)
{
    const idx_grade *g = &dt->dy->gs->g[gi];
    idx_buf *b = o->kind == GPI_OFFER ? &dt->dy->offers[gi] : &dt->dy->trades[gi];
    idx_item key = {0, 0, o->key_hash, o->observed_at, 0, 0};
    idx_item *it = b->n ? bsearch(&key, b->v, b->n, sizeof *b->v, cmp_key) : NULL;
    if (!it) return 0; /* an earlier snapshot of an offer key */
    int lv = dt->rows[gi].level;
    int of_level = (lv == GPI_LEVEL_TRADES && o->kind == GPI_TRADE) ||
                   (lv == GPI_LEVEL_OFFERS && o->kind == GPI_OFFER);
    const idx_roles *ro = dt->ro ? dt->ro[gi] : NULL;
    int reason = ro ? idx_roles_reason(ro, o->kind, o->key_hash, o->observed_at) : it->reason;
    idx_obs_match m = {0, 0, 0, 0, -1, -1, -1};
    if (g->method == 3 && dt->v3[gi]) {
        char why[96];
        const char *role = idx_v3_pub_role(dt->v3[gi], g, o, reason, &m, why, sizeof why);
        return dt->fn(gi, o, role, why, &m, dt->ud);
    }
    if (g->method == 2) {
        m.v2 = 1;
        uint64_t mk = o->kind == GPI_OFFER ? o->key_hash : idx_group_hash(o->group);
        if (reason == IDX_OK && ro)
            idx_roles_lookup(ro, o->kind, mk, &m);
        else if (reason == IDX_OK)
            idx_chain_lookup(&dt->ch[gi], o->kind, mk, &m);
    } else if (reason == IDX_OK && !of_level) {
        return 0; /* did not enter the fix */
    }
    const char *role = reason != IDX_OK ? "excluded" : "used";
    return dt->fn(gi, o, role, idx_reason_name(reason), &m, dt->ud);
}

gpi_status idx_day_list(idx_day *dy, const idx_kept *kept, const idx_detail *rows,
                        idx_chain *ch, idx_v3_pub **v3, idx_roles **ro, int32_t day,
                        idx_obs_fn fn, void *ud, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    const idx_grades *gs = dy->gs;
    for (size_t gi = 0; gi < gs->n && rc == GPI_OK; gi++) {
        idx_fix f;
        if (!ro || !ro[gi]) rc = idx_day_fix(dy, gi, &f, d); /* note 3: no roles stored */
        if (rc == GPI_OK && gs->g[gi].method == 2 && (!ro || !ro[gi])) {
            rc = idx_snap_build(&ch[gi].cur, dy, gi, day, d);
            if (rc == GPI_OK) rc = idx_chain_match(&ch[gi], day, d);
        }
        idx_buf *b[2] = {&dy->offers[gi], &dy->trades[gi]};
        for (int k = 0; k < 2; k++)
            if (b[k]->n > 1) qsort(b[k]->v, b[k]->n, sizeof(idx_item), cmp_key);
    }
    detail dt = {dy, rows, ch, v3, ro, fn, ud};
    gpi_obs o;
    memset(&o, 0, sizeof o);
    o.day = day;
    size_t n = idx_kept_count(kept);
    for (size_t h = 0; h < n && rc == GPI_OK; h++) {
        size_t gi = idx_kept_get(kept, h, &o);
        if (list_obs(&dt, gi, &o)) break;
    }
    return rc;
}
