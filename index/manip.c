/* index/manip.c -- what one participant can do to a fix (METHODOLOGY.md
 * §11): the largest move any single provider causes, and the smallest
 * volume one new participant must add to move the value.
 *
 * NOTES ON THE DESIGN
 * (1) Leave one provider out: each provider group with an eligible
 *     observation of the grade-day is removed in turn and both raw values
 *     are computed again without it (the screen compares a provider with
 *     its own median only, so the others' screened observations stand, as
 *     idx_day_fix_without would find them again), and the day is evaluated
 *     from the sequence state before it
 *     (idx_seq_peek: the same adjustment and carry) and, for v2, from the
 *     chain state before it with the group also left out of the matching
 *     (idx_chain_peek).  The move is |value without - value|; of equal
 *     moves the group first in byte order is named.  A removal that leaves
 *     no value is a void.  Only days whose level (the cross-section's, for
 *     v2) is trades or offers and that have a value are measured: a carried
 *     or suspended day has no fix to move.  The grade lab (evaluate.c)
 *     reports the same numbers.  The chain's peeks read the day's offers
 *     sample once (idx_chain_loo_begin, chain_rel.c note 4): a provider's
 *     absence only drops its own median from the median of medians.
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
 *     Each step of that bisection is an exact weighted median (bignum
 *     comparisons, index/method.c); to keep a build's time, the step is
 *     first found with a floating-point evaluator over the day's trades
 *     sorted once (design note 6), and then confirmed exactly at that step
 *     and the one below, with an exact bisection wherever the hint was
 *     wrong: the published cost is always the exact one.
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
 * (6) The hint: index/manip_hint.c.
 */
#include "index/manip.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

#define P_HIGH INT64_C(1000000000000) /* 1,000,000 USD per GPU-hour, in micro */
#define P_LOW INT64_C(1)
#define NEW_GROUP INT32_MAX           /* the participant's group id (never interned) */

/* Exact evaluations of one day, by price side and volume (shared by the
 * tick and 1 % searches). */
typedef struct xcache {
    int64_t x[64], v[64];
    int dir[64];
    int n;
} xcache;

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
    idx_hint *fw;           /* the hint's trades (manip_hint.c), NULL: exact steps only */
    xcache cache;
} mctx;

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

/* The screened trades of the day in dy->manip[1..n], sorted as the weighted
 * median sorts them (price, group, key), with slot 0 free for a
 * participant below all (and slot n+1 for one above). */
static gpi_status sorted_trades(idx_day *dy, size_t gi, gpi_diag *d)
{
    const idx_buf *tb = &dy->trades[gi];
    idx_buf *w = &dy->manip;
    if (GPI_VEC_RESERVE(w->v, w->cap, tb->n + 2) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < tb->n; i++)
        if (tb->v[i].reason == IDX_OK) w->v[1 + n++] = tb->v[i];
    idx_sort_items(w->v + 1, n, IDX_BY_PRICE_GROUP);
    w->n = n;
    return GPI_OK;
}

/* The value with the participant's x_e2 (0.01 GPU-hour) of trades at price
 * p (sorted_trades first). */
static gpi_status value_trades(mctx *m, int64_t p, int64_t x_e2, int64_t *out, gpi_diag *d)
{
    const idx_params *P = &m->g->p;
    idx_buf *w = &m->dy->manip, *t = &m->dy->scratch;
    size_t n = w->n;
    if (GPI_VEC_RESERVE(t->v, t->cap, n + 2) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    int64_t x = x_e2 * 10000;
    idx_item px = {p, x, 0, 0, NEW_GROUP, IDX_OK};
    /* above all: after every trade; below all: before them (its group sorts
     * last, so a trade at the same price would come first: then the
     * weighted median sorts again) */
    if (p == P_LOW) {
        t->v[0] = px;
        memcpy(t->v + 1, w->v + 1, n * sizeof *t->v);
    } else {
        memcpy(t->v, w->v + 1, n * sizeof *t->v);
        t->v[n] = px;
    }
    t->n = n + 1;
    int64_t vol = m->f->trade_volume_micro + x;
    int64_t t_q = -1;
    if (vol >= P->min_trade_volume_micro && m->f->ts.n_providers + 1 >= P->min_providers) {
        gpi_status rc = idx_weighted_median(t->v, t->n, P->cap_floor_e6, &t_q, d);
        if (rc != GPI_OK) return rc;
    }
    *out = value_of_raw(m, t_q > 0 ? t_q : m->f->trades_raw_q, m->f->offers_raw_q);
    return GPI_OK;
}

/* The value with one offer of the participant at price p. */
static gpi_status value_offer(mctx *m, int64_t p, int64_t *out, gpi_diag *d)
{
    const idx_buf *ob = &m->dy->offers[m->gi];
    idx_buf *w = &m->dy->loo_o; /* dy->manip holds the sorted trades */
    if (GPI_VEC_RESERVE(w->v, w->cap, ob->n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
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

/* ---- the search (design notes 3 and 6) ----------------------------------------- */

/* The exact value with the participant's trades of x_e2 in direction dir. */
static gpi_status exact(mctx *m, int dir, int64_t x_e2, int64_t *v, gpi_diag *d)
{
    xcache *c = &m->cache;
    for (int i = 0; i < c->n; i++)
        if (c->x[i] == x_e2 && c->dir[i] == dir) {
            *v = c->v[i];
            return GPI_OK;
        }
    gpi_status rc = value_trades(m, dir > 0 ? P_HIGH : P_LOW, x_e2, v, d);
    if (rc == GPI_OK) {
        int i = c->n < 64 ? c->n++ : (int)(x_e2 % 64);
        c->x[i] = x_e2;
        c->dir[i] = dir;
        c->v[i] = *v;
    }
    return rc;
}

/* The hint: the smallest x_e2 in [lo, hi] the approximate value says
 * moves it; hi when none. */
static int64_t hint(mctx *m, int dir, int target, int64_t lo, int64_t hi, int64_t q_lo)
{
    const idx_params *P = &m->g->p;
    int64_t p = dir > 0 ? P_HIGH : P_LOW;
    int64_t a = lo - 1, b = hi; /* !moved(a) by definition, moved(b) assumed */
    while (b - a > 1) {
        int64_t mid = a + (b - a) / 2;
        int64_t t_q = mid >= q_lo ? idx_hint_raw(m->fw, P->cap_floor_e6, p, p == P_LOW, (double)mid * 10000)
                                  : m->f->trades_raw_q;
        int64_t v = value_of_raw(m, t_q, m->f->offers_raw_q);
        if (moved(m, v, dir, target))
            b = mid;
        else
            a = mid;
    }
    return b;
}

/* Design note 3: the smallest x_e2 in [lo, hi] moving the value in
 * direction dir, or -1; below lo the participant moves nothing (its
 * trades do not qualify, or it has none). */
static gpi_status bisect(mctx *m, int dir, int target, int64_t lo, int64_t hi, int64_t q_lo,
                         int64_t *out, gpi_diag *d)
{
    int64_t v;
    *out = -1;
    gpi_status rc = GPI_OK;
    int64_t a = lo - 1, b = hi; /* exact: !moved(a), and moved(b) once checked */
    int b_checked = 0;
    if (m->fw) {
        int64_t x = hint(m, dir, target, lo, hi, q_lo);
        if ((rc = exact(m, dir, x, &v, d)) != GPI_OK) return rc;
        if (moved(m, v, dir, target)) { /* confirm it below */
            b = x;
            b_checked = 1;
            if (x > lo) {
                if ((rc = exact(m, dir, x - 1, &v, d)) != GPI_OK) return rc;
                if (moved(m, v, dir, target)) b = x - 1;
                else a = x - 1;
            }
        } else {
            a = x;
        }
    }
    if (!b_checked) {
        if ((rc = exact(m, dir, hi, &v, d)) != GPI_OK) return rc;
        if (!moved(m, v, dir, target)) return GPI_OK; /* none: the cap stops it */
    }
    while (b - a > 1) {
        int64_t mid = a + (b - a) / 2;
        if ((rc = exact(m, dir, mid, &v, d)) != GPI_OK) return rc;
        if (moved(m, v, dir, target))
            b = mid;
        else
            a = mid;
    }
    *out = b;
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
    gpi_status rc = GPI_OK;
    m->fw = idx_hint_new(m->dy->trades[m->gi].v, m->dy->trades[m->gi].n, m->dy->n_names);
    for (int target = 0; target < 2 && rc == GPI_OK; target++) {
        int64_t up = -1, down = -1;
        rc = bisect(m, +1, target, lo, hi, lo, &up, d);
        if (rc == GPI_OK) rc = bisect(m, -1, target, lo, hi, lo, &down, d);
        out[target] = up < 0 ? down : down < 0 ? up : up < down ? up : down;
    }
    idx_hint_free(m->fw);
    m->fw = NULL;
    return rc;
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

/* The raw values of the day without group g (design note 1); the
 * screened trades sorted by price are in dy->manip[1..n]. */
static gpi_status raw_without(idx_day *dy, size_t gi, int32_t g, int64_t *t_q, int64_t *o_q,
                              gpi_diag *d)
{
    const idx_params *p = &dy->gs->g[gi].p;
    const idx_buf *tb = &dy->trades[gi], *ob = &dy->offers[gi], *st = &dy->manip;
    idx_buf *w = &dy->loo_t, *o = &dy->loo_o;
    *t_q = *o_q = -1;
    if (GPI_VEC_RESERVE(w->v, w->cap, st->n + 1) != 0 ||
        GPI_VEC_RESERVE(o->v, o->cap, ob->n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    int64_t vol = 0;
    w->n = 0;
    for (size_t i = 1; i <= st->n; i++)
        if (st->v[i].group != g) {
            w->v[w->n++] = st->v[i];
            vol += st->v[i].qty_micro;
        }
    /* distinct groups of the screened trades but g (the weighted median of
     * the fix left tb in price order: counted with the day's stamps) */
    long prov = 0;
    idx_day_stamp_next(dy);
    for (size_t i = 0; i < tb->n; i++) {
        int32_t q = tb->v[i].group;
        if (tb->v[i].reason != IDX_OK || q == g || dy->stamp[q] == dy->stamp_now) continue;
        dy->stamp[q] = dy->stamp_now;
        prov++;
    }
    if (vol >= p->min_trade_volume_micro && vol > 0 && prov >= p->min_providers) {
        gpi_status rc = idx_weighted_median(w->v, w->n, p->cap_floor_e6, t_q, d);
        if (rc != GPI_OK) return rc;
    }
    o->n = 0;
    for (size_t i = 0; i < ob->n; i++)
        if (ob->v[i].group != g) o->v[o->n++] = ob->v[i];
    int64_t raw;
    size_t np = idx_median_of_medians(o->v, o->n, dy->work, &raw);
    if (np > 0 && (long)np >= p->min_providers) *o_q = raw;
    return GPI_OK;
}

static gpi_status leave_one_out(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                                int64_t v0, idx_manip *out, gpi_diag *d)
{
    /* the groups first: fixing the copies reuses the day's group stamps */
    const idx_buf *b[2] = {&dy->trades[gi], &dy->offers[gi]};
    int32_t *ids = malloc((b[0]->n + b[1]->n + 1) * sizeof *ids);
    if (!ids) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    size_t n = 0;
    idx_day_stamp_next(dy); /* the groups seen, by the day's stamps */
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < b[k]->n; i++) {
            int r = b[k]->v[i].reason;
            int32_t q = b[k]->v[i].group;
            if (IDX_EX_INELIGIBLE(r) || dy->stamp[q] == dy->stamp_now)
                continue;
            dy->stamp[q] = dy->stamp_now;
            ids[n++] = q;
        }
    /* the chain's offers sample of the day, kept for the peeks below */
    gpi_status rc = c ? idx_chain_loo_begin(c, day, d) : GPI_OK;
    for (size_t k = 0; k < n && rc == GPI_OK; k++) {
        idx_eval e2;
        int64_t t_q, o_q;
        rc = raw_without(dy, gi, ids[k], &t_q, &o_q, d);
        if (rc != GPI_OK) break;
        idx_seq_peek(s, day, t_q, o_q, &e2);
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
    if (c) idx_chain_loo_end(c);
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
    gpi_status rc = sorted_trades(dy, gi, d);
    if (rc != GPI_OK) return rc;
    /* the costs first: the peeks of leave_one_out overwrite c's estimates */
    if (!v2 || v->event) {
        size_t n_est = v2 && c->n_est > 1 ? (size_t)c->n_est - 1 : 0;
        int64_t *est = malloc((2 * n_est + 2) * sizeof *est);
        if (!est) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        if (n_est) memcpy(est, c->est + 1, n_est * sizeof *est);
        mctx m = {dy, gi, g, s, day, f, v2, est, n_est, v0, NULL, {{0}, {0}, {0}, 0}};
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
