/* index/price_index.c -- methodology v3's price index and composition gap
 * (METHODOLOGY.md §13.5-§13.6).
 *
 * NOTES ON THE DESIGN
 * (1) Items: each offer identity (the store's key) and each group's
 *     representative trade price (the volume-weighted median of its
 *     screened trades, no cap: §10.2's representative).  The state keeps
 *     every item's last screened price and its day, for every group seen
 *     (members and candidates alike, so a group that joins is matched from
 *     its first day in the panel), and forgets an item unseen for more
 *     than absence_days (K) days.
 * (2) The day's change counts the panel's members only (present or
 *     imputed).  For member p, its items on day D are
 *       - matched: seen on D and last seen at most K + 1 days before (an
 *         item absent for up to K days is matched to its last price on
 *         return: a fall through an exit and a re-entry is measured, never
 *         laundered), with log relative l = ln p_D - ln p_last;
 *       - carried: not seen on D, last seen at most K days before: log
 *         relative 0 (its price is its last one);
 *       - new (no price within K + 1 days): none.
 *     p's log relative is the mean of its items' (matched and carried),
 *     rounded half away from zero to 1e-12, then capped to
 *     [-ln F, +ln F] (F = error_factor, ln F rounded likewise): a print
 *     that tripled overnight moves one provider by at most F.  The day's
 *     log change is the mean over the members with at least one item,
 *     rounded likewise -- an equal-provider geometric mean (Jevons) of
 *     provider geometric means -- and 0 when fewer than min_providers
 *     members count (the index is carried).  An imputed member counts with
 *     0 (all its items carried), so the panel's composition, and the
 *     weight of each member, do not change while it is away.  On a day
 *     with no member present (v3_panel.c design note 5) no member counts:
 *     the index is carried, as the value is.
 * (3) ln p is exact ln of the integer price (offers micro, trades
 *     quarter-micro) rounded to 1e-12 (price_log.c), so an item's log
 *     relatives telescope exactly: ln p_end - ln p_start, whatever path.
 *     The log index is an integer in 1e-12 and moves by exact integer
 *     steps; the published index is 100 exp(log index), 6 decimals, and
 *     the day's change exp(delta), 12 decimals.
 * (4) The index starts (base 100) on the first day the value is fixed
 *     (trades or offers level) and is never re-anchored.
 * (5) Composition gap: the value's change minus the index's,
 *     v_D / v_{D-1} - exp(delta_D) (from the published value and change,
 *     exact, half away from zero to 1e-6), and since the previous month's
 *     last day, v_D / v_M - exp(L_D - L_M): what the panel's entries,
 *     exits and median's place did to the value that the prices of the
 *     members did not.
 */
#include "index/v3_internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

#define T12 INT64_C(1000000000000)

static gpi_status oom(gpi_diag *d)
{
    return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
}

static int cmp_item(const v3_item *a, int32_t kind, uint64_t key)
{
    if (a->kind != kind) return a->kind < kind ? -1 : 1;
    if (a->key != key) return a->key < key ? -1 : 1;
    return 0;
}

/* The state's item (kind, key), or -1. */
static long item_find(const idx_v3 *s, int32_t kind, uint64_t key)
{
    size_t lo = 0, hi = s->nit;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_item(&s->it[mid], kind, key);
        if (c == 0) return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int cmp_u64pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The group index of hash h (s->ghash sorted), -1 none. */
static long group_of_hash(const idx_v3 *s, uint64_t h)
{
    size_t lo = 0, hi = s->ng;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ghash[2 * mid] == h) return (long)s->ghash[2 * mid + 1];
        if (s->ghash[2 * mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

gpi_status v3_trade_rep(idx_v3 *s, const idx_v3_input *in, int32_t gid, int64_t *rep,
                        gpi_diag *d)
{
    *rep = -1;
    size_t m = 0;
    v3_scratch *w = &s->sc;
    if (GPI_VEC_RESERVE(w->wm, w->cap_wm, in->n_trades + 1)) return oom(d);
    for (size_t i = 0; i < in->n_trades; i++) {
        const idx_item *x = &in->trades[i];
        if (x->group == gid && x->reason == IDX_OK && x->qty_micro > 0) w->wm[m++] = *x;
    }
    if (m == 0) return GPI_OK;
    return idx_weighted_median(w->wm, m, 1000000, rep, d);
}

static int member(int role)
{
    return role == IDX_V3_MEMBER || role == IDX_V3_IMPUTED;
}

gpi_status v3_index_step(idx_v3 *s, const idx_v3_input *in, gpi_diag *d)
{
    idx_v3_out *o = &s->out;
    const idx_params *p = &s->g->p;
    int32_t day = in->day;
    int K = p->absence_days;
    size_t ng = s->ng;
    if (GPI_VEC_RESERVE(s->gs, s->cap_gs, ng + 1)) return oom(d);
    for (size_t i = 0; i < ng; i++) s->gs[i] = (v3_gscratch){0, 0, 0, -1};
    for (size_t k = 0; k < o->n_groups; k++) {
        int found = 0;
        for (size_t i = 0; i < ng && !found; i++)
            if (s->gr[i].name == o->groups[k].name) s->gs[i].pg = (int32_t)k, found = 1;
    }
    if (GPI_VEC_RESERVE(s->ghash, s->cap_ghash, 2 * ng + 2)) return oom(d);
    for (size_t i = 0; i < ng; i++) s->ghash[2 * i] = s->gr[i].hash, s->ghash[2 * i + 1] = i;
    qsort(s->ghash, ng, 2 * sizeof *s->ghash, cmp_u64pair);
    if (GPI_VEC_RESERVE_ZERO(s->seen, s->cap_seen, s->nit + 1)) return oom(d);
    memset(s->seen, 0, s->nit);
    size_t no = in->n_offers;
    if (GPI_VEC_RESERVE(s->oref, s->cap_oref, no + 1) ||
        GPI_VEC_RESERVE(s->oref_day, s->cap_oref_day, no + 1) ||
        GPI_VEC_RESERVE(s->ocount, s->cap_ocount, no + 1))
        return oom(d);
    int64_t *oref = s->oref;
    int32_t *oday = s->oref_day;
    unsigned char *ocnt = s->ocount;
    o->offer_ref = oref;
    o->offer_ref_day = oday;
    o->offer_counted = ocnt;
    /* matched items (design note 2) */
    for (size_t i = 0; i < no; i++) {
        const idx_item *x = &in->offers[i];
        oref[i] = -1;
        oday[i] = INT32_MIN;
        ocnt[i] = 0;
        if (x->reason != IDX_OK) continue;
        long j = item_find(s, 0, x->key_hash);
        if (j < 0) continue;
        s->seen[j] = 1;
        const v3_item *e = &s->it[j];
        if (day - e->day > K + 1) continue;
        oref[i] = e->price;
        oday[i] = e->day;
        int32_t gi = s->gmap[x->group];
        if (s->gr[gi].role != IDX_V3_MEMBER) continue;
        if (x->price_micro != e->price) /* an unchanged price: 0 exactly, no ln */
            s->gs[gi].sum += idx_ln_e12(x->price_micro) - idx_ln_e12(e->price);
        s->gs[gi].match++;
        ocnt[i] = 1;
    }
    for (size_t gi = 0; gi < ng; gi++) {
        v3_group *x = &s->gr[gi];
        if (!x->present) continue;
        int64_t rep;
        gpi_status rc = v3_trade_rep(s, in, x->gid, &rep, d);
        if (rc != GPI_OK) return rc;
        idx_v3_pgroup *pg = s->gs[gi].pg >= 0 ? &o->groups[s->gs[gi].pg] : NULL;
        if (pg) pg->trade_rep_q = rep;
        if (rep <= 0) continue;
        long j = item_find(s, 1, x->hash);
        if (j < 0) continue;
        s->seen[j] = 1;
        const v3_item *e = &s->it[j];
        if (day - e->day > K + 1) continue;
        if (pg) {
            pg->trade_ref_q = e->price;
            pg->trade_ref_day = e->day;
        }
        if (x->role != IDX_V3_MEMBER) continue;
        if (rep != e->price) s->gs[gi].sum += idx_ln_e12(rep) - idx_ln_e12(e->price);
        s->gs[gi].match++;
    }
    /* carried items */
    for (size_t j = 0; j < s->nit; j++) {
        if (s->seen[j] || day - s->it[j].day > K) continue;
        long gi = group_of_hash(s, s->it[j].group);
        if (gi >= 0 && member(s->gr[gi].role)) s->gs[gi].carry++;
    }
    /* providers' relatives and the day's change */
    int64_t lcap = idx_ln_e12(p->error_factor_e6) - idx_ln_e12(1000000);
    __int128 total = 0;
    long n = 0;
    for (size_t gi = 0; gi < ng && !s->unobserved; gi++) {
        if (!member(s->gr[gi].role)) continue;
        long m = s->gs[gi].match + s->gs[gi].carry;
        idx_v3_pgroup *pg = s->gs[gi].pg >= 0 ? &o->groups[s->gs[gi].pg] : NULL;
        if (pg) {
            pg->items_matched = s->gs[gi].match;
            pg->items_carried = s->gs[gi].carry;
        }
        if (m == 0) continue;
        int64_t rel = gpi_div_round(s->gs[gi].sum, m);
        int capped = 0;
        if (rel > lcap) rel = lcap, capped = 1;
        if (rel < -lcap) rel = -lcap, capped = 1;
        if (pg) {
            pg->index_counted = 1;
            pg->rel_log_e12 = rel;
            pg->capped = capped;
        }
        total += rel;
        n++;
    }
    int64_t delta = n >= p->min_providers && n > 0 ? gpi_div_round(total, n) : 0;
    o->index_providers = n;
    o->log_prev_e12 = INT64_MIN;
    o->index_change_e12 = o->price_index_e6 = -1;
    int ov = 0;
    if (s->index_on) {
        o->index_on = 1;
        o->index_base_day = s->base_day;
        o->log_prev_e12 = s->log_e12;
        o->index_moved = n >= p->min_providers && n > 0;
        o->delta_e12 = delta;
        s->log_e12 += delta;
        o->index_change_e12 = idx_exp_scaled(delta, T12, &ov);
    } else if (o->e.level == GPI_LEVEL_TRADES || o->e.level == GPI_LEVEL_OFFERS) {
        s->index_on = 1;
        s->base_day = day;
        s->log_e12 = 0;
        o->index_on = 1;
        o->index_base_day = day;
    } else {
        o->index_base_day = INT32_MIN;
    }
    o->log_index_e12 = s->index_on ? s->log_e12 : INT64_MIN;
    if (o->index_on && !ov) o->price_index_e6 = idx_exp_scaled(s->log_e12, 100000000, &ov);
    if (ov)
        return gpi_diag_set(d, GPI_EMATH, "grade %s: the price index is out of range",
                            s->g->id);
    return GPI_OK;
}

static int64_t gap(int64_t v, int64_t v0, int64_t c_e12)
{
    if (v <= 0 || v0 <= 0 || c_e12 < 0) return INT64_MIN;
    __int128 num = (__int128)v * T12 - (__int128)c_e12 * v0;
    return gpi_div_round(num, (__int128)v0 * 1000000);
}

void v3_index_gaps(idx_v3 *s, int32_t day)
{
    idx_v3_out *o = &s->out;
    int64_t v = o->e.level == GPI_LEVEL_SUSPENDED ? -1 : o->e.value_e4;
    o->value_prev_e4 = s->last_day == day - 1 ? s->value_last_e4 : -1;
    o->gap_e6 = o->gap_month_e6 = INT64_MIN;
    if (o->index_on && o->index_change_e12 >= 0)
        o->gap_e6 = gap(v, o->value_prev_e4, o->index_change_e12);
    int y, m, dd;
    gpi_civil_from_days(day, &y, &m, &dd);
    int32_t base = gpi_days_from_civil(y, m, 1) - 1;
    if (s->month_day != base) { /* a new month: its base is the day before */
        s->month_day = base;
        int yesterday = s->last_day == day - 1 && day - 1 == base;
        s->month_value_e4 = yesterday ? s->value_last_e4 : -1;
        s->month_index_on = yesterday && s->index_last_on && o->log_prev_e12 != INT64_MIN;
        s->month_log_e12 = s->month_index_on ? o->log_prev_e12 : 0;
    }
    o->month_day = s->month_day;
    o->month_value_e4 = s->month_value_e4;
    o->month_log_e12 = s->month_index_on ? s->month_log_e12 : INT64_MIN;
    if (o->index_on && s->month_index_on && s->month_value_e4 > 0 && v > 0) {
        int ov = 0;
        int64_t c = idx_exp_scaled(s->log_e12 - s->month_log_e12, T12, &ov);
        if (!ov) o->gap_month_e6 = gap(v, s->month_value_e4, c);
    }
}

static int cmp_v3_item(const void *a, const void *b)
{
    const v3_item *x = a, *y = b;
    return cmp_item(x, y->kind, y->key);
}

gpi_status v3_items_update(idx_v3 *s, const idx_v3_input *in, gpi_diag *d)
{
    int32_t day = in->day;
    int K = s->g->p.absence_days;
    size_t nt = 0;
    if (GPI_VEC_RESERVE(s->today, s->cap_today, in->n_offers + s->ng + 1)) return oom(d);
    for (size_t i = 0; i < in->n_offers; i++) {
        const idx_item *x = &in->offers[i];
        if (x->reason != IDX_OK) continue;
        s->today[nt++] = (v3_item){x->key_hash, s->gr[s->gmap[x->group]].hash, x->price_micro, day, 0};
    }
    for (size_t gi = 0; gi < s->ng; gi++) {
        const v3_group *x = &s->gr[gi];
        if (!x->present) continue;
        int32_t k = s->gs[gi].pg;
        int64_t rep = k >= 0 ? s->out.groups[k].trade_rep_q : -1;
        if (rep > 0) s->today[nt++] = (v3_item){x->hash, x->hash, rep, day, 1};
    }
    if (nt > 1) qsort(s->today, nt, sizeof *s->today, cmp_v3_item);
    if (GPI_VEC_RESERVE(s->merged, s->cap_merged, s->nit + nt + 1)) return oom(d);
    size_t a = 0, b = 0, w = 0;
    while (a < s->nit || b < nt) {
        int c = a == s->nit ? 1 : b == nt ? -1 : cmp_item(&s->it[a], s->today[b].kind, s->today[b].key);
        if (c > 0) {
            s->merged[w++] = s->today[b++];
        } else if (c == 0) {
            s->merged[w++] = s->today[b++];
            a++;
        } else {
            if (day - s->it[a].day <= K) s->merged[w++] = s->it[a];
            a++;
        }
    }
    v3_item *t = s->it;
    size_t tc = s->cap_it;
    s->it = s->merged;
    s->cap_it = s->cap_merged;
    s->nit = w;
    s->merged = t;
    s->cap_merged = tc;
    return GPI_OK;
}
