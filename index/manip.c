/* index/manip.c -- what one participant can do to a fix (METHODOLOGY.md
 * §11): the largest move any single provider causes, and the smallest
 * volume one new participant must add to move the value.
 *
 * NOTES ON THE DESIGN
 * (1) Leave one provider out: each provider group with an eligible
 *     observation of the grade-day is removed in turn, both levels are
 *     fixed again from copies (screened afresh: idx_day_fix_without), and
 *     the day is evaluated from the sequence state before it
 *     (idx_seq_peek: the same adjustment and carry) and, for v2, from the
 *     chain state before it with the group also left out of the matching
 *     (idx_chain_peek).  The move is |value without - value|; of equal
 *     moves the group first in byte order is named.  A removal that leaves
 *     no value is a void.  Only days whose level (the cross-section's, for
 *     v2) is trades or offers and that have a value are measured: a carried
 *     or suspended day has no fix to move.  The grade lab (evaluate.c)
 *     reports the same numbers.
 * (2) A new participant is one provider group not yet in the grade-day.
 *     It adds trades of x GPU-hours at one price, or offers at one price.
 *     Its prices pass the screen (a provider is screened against its own
 *     median, and its prices are all equal); the method bounds it by the
 *     provider cap (trades: a share of at most s = max(cap_floor, 1/(n+1)),
 *     n the providers already there) and by one vote (offers: one
 *     provider median, however many offers).  The most a price can do is
 *     to lie beyond every other: 10^12 micro-USD (up) or 1 micro-USD
 *     (down).  The day is then evaluated by the method as a whole (levels,
 *     adjustment, carry), so its trades may also lift to the trades level
 *     a day whose trades fell one provider or some volume short, and its
 *     offer lift a carried day to the offers level.
 * (3) With the price beyond every other, the value moves monotonically
 *     with x (water-filling gives provider shares min(s, lambda v_i), so a
 *     larger x never raises another provider's share) and stops moving
 *     once the participant's share is capped.  The cost is therefore found
 *     by bisection over x in steps of 0.01 GPU-hour, from the smallest
 *     volume with which the trades level qualifies to the volume at which
 *     the participant's raw share reaches s (its capped share then is s
 *     whatever it adds); it is the smaller of the two directions, and none
 *     when even the cap does not move the value far enough.  Offers: 1
 *     when one offer moves the value far enough, else none (more offers
 *     add nothing).
 * (4) "By one tick": the value changes (it is published in steps of the
 *     grade's rounding, so any change is at least one step); "by 1 %": by
 *     at least 1 % of the value (|new - old| x 100 >= old, and new != old).
 * (5) Methodology v2: a new participant enters the panel only at the next
 *     anchor, so on a day that is not an anchor it cannot move the chained
 *     value at all (its costs are none: infinite).  On an anchor day it
 *     moves the anchor value through the day's own cross-section xs_D
 *     only (its constituents match none of the window's earlier days):
 *     the anchor value is the median of the window's estimates, with
 *     est_D = xs_D (with anchor_days 1, xs_D itself), so the cost is the
 *     smallest volume that moves that median far enough.  A participant
 *     that causes an anchor by making a pending rebalance's cross-section
 *     fixed is not considered.
 */
#include "index/internal.h"

#include <stdlib.h>
#include <string.h>

#define P_HIGH INT64_C(1000000000000) /* 1,000,000 USD per GPU-hour, in micro */
#define P_LOW INT64_C(1)
#define NEW_GROUP INT32_MAX           /* the participant's group id (never interned) */

typedef struct mctx {
    idx_day *dy;
    size_t gi;
    const idx_grade *g;
    idx_seq *s;
    int32_t day;
    const idx_fix *f;
    int v2;                 /* v2 anchor day: the value is the median of est */
    int64_t *est;           /* the window's other estimates (nano) */
    size_t n_est;
    int64_t v0;             /* the value to move (e4) */
} mctx;

static int grow_buf(idx_buf *b, size_t n)
{
    if (n <= b->cap) return 0;
    idx_item *nv = realloc(b->v, n * sizeof *nv);
    if (!nv) return -1;
    b->v = nv;
    b->cap = n;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The value of the day (e4, -1 none) from raw values t_q, o_q. */
static int64_t value_of_raw(mctx *m, int64_t t_q, int64_t o_q)
{
    idx_eval e;
    idx_seq_peek(m->s, m->day, t_q, o_q, &e);
    if (e.level == GPI_LEVEL_SUSPENDED) return -1;
    if (!m->v2) return e.value_e4;
    if (e.level != GPI_LEVEL_TRADES && e.level != GPI_LEVEL_OFFERS) return -1;
    if (m->g->p.anchor_days <= 1) return e.value_e4;
    int64_t *v = m->est; /* est[n_est] is the day's own slot */
    int64_t *w = v + m->n_est + 1;
    memcpy(w, v, m->n_est * sizeof *w);
    w[m->n_est] = e.value_e4 * 100000;
    size_t n = m->n_est + 1;
    qsort(w, n, sizeof *w, cmp_i64);
    int64_t med2 = n % 2 ? 2 * w[n / 2] : w[n / 2 - 1] + w[n / 2];
    int64_t nano = gpi_div_round(med2, 2);
    int64_t step = m->g->p.rounding_e4;
    return gpi_div_round(nano, (__int128)100000 * step) * step;
}

/* The value with the participant's x_e2 (0.01 GPU-hour) of trades at price p. */
static gpi_status value_trades(mctx *m, int64_t p, int64_t x_e2, int64_t *out, gpi_diag *d)
{
    const idx_params *P = &m->g->p;
    const idx_buf *tb = &m->dy->trades[m->gi];
    idx_buf *w = &m->dy->manip;
    if (grow_buf(w, tb->n + 1)) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    w->n = 0;
    for (size_t i = 0; i < tb->n; i++)
        if (tb->v[i].reason == IDX_OK) w->v[w->n++] = tb->v[i];
    int64_t x = x_e2 * 10000;
    w->v[w->n++] = (idx_item){p, x, 0, 0, NEW_GROUP, IDX_OK};
    int64_t vol = m->f->trade_volume_micro + x;
    int64_t t_q = -1;
    if (vol >= P->min_trade_volume_micro && m->f->ts.n_providers + 1 >= P->min_providers) {
        gpi_status rc = idx_weighted_median(w->v, w->n, P->cap_floor_e6, &t_q, d);
        if (rc != GPI_OK) return rc;
    }
    *out = value_of_raw(m, t_q > 0 ? t_q : m->f->trades_raw_q, m->f->offers_raw_q);
    return GPI_OK;
}

/* The value with one offer of the participant at price p. */
static gpi_status value_offer(mctx *m, int64_t p, int64_t *out, gpi_diag *d)
{
    const idx_buf *ob = &m->dy->offers[m->gi];
    idx_buf *w = &m->dy->manip;
    if (grow_buf(w, ob->n + 1)) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    /* ob is sorted by group (idx_screen); the new group sorts last */
    if (ob->n) memcpy(w->v, ob->v, ob->n * sizeof *w->v);
    w->n = ob->n;
    w->v[w->n++] = (idx_item){p, -1, 0, 0, NEW_GROUP, IDX_OK};
    int64_t o_q = -1, raw;
    size_t np = idx_median_of_medians(w->v, w->n, m->dy->work, &raw);
    if (np > 0 && (long)np >= m->g->p.min_providers) o_q = raw;
    *out = value_of_raw(m, m->f->trades_raw_q, o_q > 0 ? o_q : m->f->offers_raw_q);
    return GPI_OK;
}

/* Design note 4: v moved far enough from m->v0 in direction dir (+1 up,
 * -1 down) for target 0 (one tick) or 1 (1 %). */
static int moved(const mctx *m, int64_t v, int dir, int target)
{
    if (v < 0) return 0;
    __int128 diff = dir > 0 ? (__int128)v - m->v0 : (__int128)m->v0 - v;
    if (diff <= 0) return 0;
    return target == 0 || diff * 100 >= m->v0;
}

/* Design note 3: the smallest x_e2 in [lo, hi] moving the value in
 * direction dir, or -1. */
static gpi_status bisect(mctx *m, int dir, int target, int64_t lo, int64_t hi, int64_t *out,
                         gpi_diag *d)
{
    int64_t p = dir > 0 ? P_HIGH : P_LOW, v;
    *out = -1;
    gpi_status rc = value_trades(m, p, hi, &v, d);
    if (rc != GPI_OK || !moved(m, v, dir, target)) return rc;
    rc = value_trades(m, p, lo, &v, d);
    if (rc != GPI_OK) return rc;
    if (moved(m, v, dir, target)) {
        *out = lo;
        return GPI_OK;
    }
    while (hi - lo > 1) { /* moved(hi), !moved(lo) */
        int64_t mid = lo + (hi - lo) / 2;
        rc = value_trades(m, p, mid, &v, d);
        if (rc != GPI_OK) return rc;
        if (moved(m, v, dir, target))
            hi = mid;
        else
            lo = mid;
    }
    *out = hi;
    return GPI_OK;
}

static int64_t ceil_div(__int128 a, __int128 b)
{
    return (int64_t)((a + b - 1) / b);
}

/* The participant's trades: bounds of the bisection (design note 3). */
static gpi_status cost_trades(mctx *m, int64_t out[2], gpi_diag *d)
{
    const idx_params *P = &m->g->p;
    out[0] = out[1] = -1;
    long n = m->f->ts.n_providers;
    if (n + 1 < P->min_providers) return GPI_OK;
    int64_t V = m->f->trade_volume_micro;
    int64_t lo = 1;
    if (V < P->min_trade_volume_micro) lo = ceil_div(P->min_trade_volume_micro - V, 10000);
    if (lo < 1) lo = 1;
    /* s = sn / sd */
    int64_t sn = P->cap_floor_e6, sd = 1000000;
    if ((__int128)P->cap_floor_e6 * (n + 1) < 1000000) sn = 1, sd = n + 1;
    int64_t hi = lo;
    if (sn < sd) { /* raw share x / (V + x) >= s from x >= sn V / (sd - sn) */
        __int128 cap = ceil_div((__int128)sn * V, sd - sn);
        int64_t h = ceil_div(cap, 10000) + 1;
        if (h > hi) hi = h;
    }
    for (int target = 0; target < 2; target++) {
        int64_t up, down;
        gpi_status rc = bisect(m, +1, target, lo, hi, &up, d);
        if (rc == GPI_OK) rc = bisect(m, -1, target, lo, hi, &down, d);
        if (rc != GPI_OK) return rc;
        out[target] = up < 0 ? down : down < 0 ? up : up < down ? up : down;
    }
    return GPI_OK;
}

static gpi_status cost_offers(mctx *m, long out[2], gpi_diag *d)
{
    int64_t up, down;
    gpi_status rc = value_offer(m, P_HIGH, &up, d);
    if (rc == GPI_OK) rc = value_offer(m, P_LOW, &down, d);
    for (int target = 0; target < 2 && rc == GPI_OK; target++)
        out[target] = moved(m, up, +1, target) || moved(m, down, -1, target) ? 1 : -1;
    return rc;
}

/* ---- leave one provider out (design note 1) --------------------------------- */

static gpi_status leave_one_out(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                                int64_t v0, idx_manip *out, gpi_diag *d)
{
    /* the groups first: fixing the copies reuses the day's group stamps */
    const idx_buf *b[2] = {&dy->trades[gi], &dy->offers[gi]};
    int32_t *ids = malloc((b[0]->n + b[1]->n + 1) * sizeof *ids);
    if (!ids) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    size_t n = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < b[k]->n; i++) {
            int r = b[k]->v[i].reason;
            if (r == IDX_EX_CANCELLED || r == IDX_EX_AFFILIATE) continue;
            size_t j = 0;
            while (j < n && ids[j] != b[k]->v[i].group) j++;
            if (j == n) ids[n++] = b[k]->v[i].group;
        }
    gpi_status rc = GPI_OK;
    for (size_t k = 0; k < n && rc == GPI_OK; k++) {
        idx_fix f;
        idx_eval e2;
        rc = idx_day_fix_without(dy, gi, ids[k], &f, d);
        if (rc != GPI_OK) break;
        idx_seq_peek(s, day, f.trades_raw_q, f.offers_raw_q, &e2);
        int64_t v = e2.level == GPI_LEVEL_SUSPENDED ? -1 : e2.value_e4;
        if (c) {
            idx_v2eval w;
            rc = idx_chain_peek(c, day, &e2, idx_group_hash(idx_day_group(dy, ids[k])), &w, d);
            v = w.level == GPI_LEVEL_SUSPENDED ? -1 : w.value_e4;
        }
        if (rc != GPI_OK) break;
        if (v < 0) {
            out->loo_voids++;
            continue;
        }
        int64_t mv = v > v0 ? v - v0 : v0 - v;
        if (mv > out->loo_move_e4 ||
            (mv == out->loo_move_e4 &&
             strcmp(idx_day_group(dy, ids[k]), idx_day_group(dy, out->loo_group)) < 0)) {
            out->loo_move_e4 = mv;
            out->loo_to_e4 = v;
            out->loo_group = ids[k];
        }
    }
    free(ids);
    return rc;
}

gpi_status idx_manip_day(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                         const idx_fix *f, const idx_eval *xs, const idx_v2eval *v,
                         idx_manip *out, gpi_diag *d)
{
    const idx_grade *g = &dy->gs->g[gi];
    memset(out, 0, sizeof *out);
    out->loo_move_e4 = out->loo_to_e4 = -1;
    out->loo_group = -1;
    out->cost_e2[0] = out->cost_e2[1] = -1;
    out->cost_offers[0] = out->cost_offers[1] = -1;
    int v2 = g->method == 2 && c && v;
    int64_t v0 = v2 ? (v->level == GPI_LEVEL_SUSPENDED ? -1 : v->value_e4)
                    : (xs->level == GPI_LEVEL_SUSPENDED ? -1 : xs->value_e4);
    if (v0 < 0) return GPI_OK;
    gpi_status rc = GPI_OK;
    /* the costs first: the peeks of leave_one_out overwrite c's estimates */
    if (!v2 || v->event) {
        size_t n_est = v2 && c->n_est > 1 ? (size_t)c->n_est - 1 : 0;
        int64_t *est = malloc((2 * n_est + 2) * sizeof *est);
        if (!est) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        if (n_est) memcpy(est, c->est + 1, n_est * sizeof *est);
        mctx m = {dy, gi, g, s, day, f, v2, est, n_est, v0};
        rc = cost_trades(&m, out->cost_e2, d);
        if (rc == GPI_OK) rc = cost_offers(&m, out->cost_offers, d);
        free(est);
    }
    int fixed = xs->level == GPI_LEVEL_TRADES || xs->level == GPI_LEVEL_OFFERS;
    if (rc == GPI_OK && fixed) {
        out->measured = 1;
        rc = leave_one_out(dy, gi, s, v2 ? c : NULL, day, v0, out, d);
    }
    return rc;
}
