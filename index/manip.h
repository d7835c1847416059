/* index/manip.h -- what one participant can do to a fix (index/manip.c,
 * METHODOLOGY.md §11) and its cost search's hint (index/manip_hint.c).
 */
#ifndef GPI_INDEX_MANIP_H
#define GPI_INDEX_MANIP_H

#include "index/chain.h"
#include "index/day.h"

/* manip_hint.c: the cost search's floating-point hint over trades v[0..n)
 * (their IDX_OK items with a volume), whose groups lie in [0, n_groups);
 * NULL when out of memory or a group does not (the search is then exact
 * only).
 * idx_hint_raw: the approximate raw trades value (quarter-micro) with a
 * participant's x micro-GPU-hours at price p, below every trade when
 * `below`, else above; idx_hint_raw_items the same added item by item
 * (manip_hint.c note 2). */
typedef struct idx_hint idx_hint;
idx_hint *idx_hint_new(const idx_item *v, size_t n, size_t n_groups);
void idx_hint_free(idx_hint *h);
int64_t idx_hint_raw(idx_hint *h, int64_t cap_floor_e6, int64_t p, int below, double x);
int64_t idx_hint_raw_items(idx_hint *h, int64_t cap_floor_e6, int64_t p, int below, double x);

/* manip.c: what one participant can do to the fix of grade gi on the day
 * read into dy (METHODOLOGY.md §11).  Call after idx_day_fix (f), with
 * s (and, for a v2 grade, c with c->cur built) in their state before the
 * day: xs is idx_seq_peek's evaluation of the day, v (v2; else NULL) the
 * chain's idx_chain_peek without exclusion.  Neither state is advanced. */
typedef struct idx_manip {
    int measured;               /* 1: leave-one-out was measured (a fixed day with a value) */
    int64_t loo_move_e4;        /* largest |value without one group - value|; -1 none */
    int64_t loo_to_e4;          /* the value without that group */
    int32_t loo_group;          /* that group (interned in dy), -1 none */
    long loo_voids;             /* groups whose absence leaves no value */
    int64_t cost_e2[2];         /* trades (GPU-hours x 100) a new participant needs to move
                                   the value [0] one tick, [1] 1 %; -1 none */
    long cost_offers[2];        /* offers for the same; -1 none */
} idx_manip;
gpi_status idx_manip_day(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                         const idx_fix *f, const idx_eval *xs, const idx_v2eval *v,
                         idx_manip *out, gpi_diag *d);

#endif
