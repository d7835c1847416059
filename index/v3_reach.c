/* index/v3_reach.c -- methodology v3's manipulation figures in the unit
 * that settles money (METHODOLOGY.md §11.4): the largest move of a
 * month's final settlement price (FSP: the mean of the month's published
 * daily values, calendar or business days) that one participant can
 * cause by withdrawing for 1..K+1 days, by printing an extreme price the
 * screen lets through, or as a new participant listing for 1..A+1 days.
 *
 * NOTES ON THE DESIGN
 * (1) Two steps.  Each day, its *reach* (v3_reach_day, in the step before
 *     the sequence moves past the day): per kind of attack, the lowest and
 *     highest value one participant can give the day, each operation
 *     evaluated by the method as a whole on the day's fix (levels, cap,
 *     median, the same adjustment and carry state, idx_seq_peek):
 *       - absent: one member (present or imputed) left out; one member's
 *         prices replaced (as print); and, when it is the only member
 *         present, no fix at all (imputed members alone are no fix);
 *       - print: one member's offers all at 1,000,000 USD per GPU-hour, or
 *         all at 0.000001 (prices all equal: the screen, which compares a
 *         group's prices with its own median, lets them through), with
 *         its trades at the same price and a volume that reaches the cap,
 *         or without trades;
 *       - new: one more group, present, with one offer at either extreme,
 *         with or without trades at that price reaching the cap (on a day
 *         with no member present the imputed members' observations count
 *         then: the newcomer is present).
 *     A provider median and a capped weighted median are monotone in one
 *     provider's price and, for its side, in its weight, so any price
 *     and volume it could print lies between these extremes.  Then the
 *     month's figure (idx_fsp_reach, pure over the month's reaches):
 *     the largest sum, over the days of one attack's span, of how far
 *     each day can go from its value (up or down), divided by the days
 *     with a value.  Spans (what one participant's action can reach):
 *       - absent: A + K + 1 days (a member absent K + 1 days is imputed
 *         for K -- its stale prices are a price change -- leaves, and
 *         rejoins A days after its return; a candidate's withdrawal
 *         delays its admission by at most A + K days);
 *       - print: the whole month (nothing stops a member printing daily);
 *       - new: K + 1 days (listed A + 1 days it joins on the last, then
 *         is imputed at that price for K days).
 *     A span runs on over the days carried after it (they carry its last
 *     value).
 * (2) Carry: a day whose value is carried (or that an operation leaves
 *     carried) can take any value the day before could: its range
 *     widens to the day before's.  A day that can gain or lose its value
 *     counts as able to go anywhere between the month's lowest and
 *     highest reach (the new mean lies there: removing a day from a mean
 *     is replacing it by the new mean).  The adjustment's window and the
 *     carry's count are held as they were (METHODOLOGY.md §11.4 says so).
 * (3) The figure is a bound: rounded up (not half-up) to 1e-6 USD; a
 *     contract rounding its FSP to a tick t moves by at most the figure
 *     rounded up to a multiple of t.
 */
#include "index/v3_internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

#define HI_MICRO INT64_C(1000000000000) /* 1,000,000 USD per GPU-hour */
#define LO_MICRO INT64_C(1)             /* 0.000001 */

static gpi_status oom(gpi_diag *d)
{
    return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
}

static void widen(idx_reach_day *r, int k, int64_t v)
{
    if (v < 0) return;
    if (r->lo_e4[k] < 0 || v < r->lo_e4[k]) r->lo_e4[k] = v;
    if (v > r->hi_e4[k]) r->hi_e4[k] = v;
}

/* Evaluates the day from items t, o (sorted after this call) and folds the
 * value into kind k of r. */
static gpi_status eval_into(idx_v3 *s, int32_t day, idx_item *t, size_t nt, idx_item *o,
                            size_t no, size_t n_groups, idx_reach_day *r, int k, int *carried,
                            gpi_diag *d)
{
    idx_sort_items(t, nt, IDX_BY_GROUP_PRICE);
    idx_sort_items(o, no, IDX_BY_GROUP_PRICE);
    idx_v3_stats st;
    gpi_status rc = v3_stats_items(s, t, nt, o, no, n_groups, &st, d);
    if (rc != GPI_OK) return rc;
    idx_eval e;
    idx_seq_peek(&s->seq, day, st.t_q, st.o_q, &e);
    if (e.level == GPI_LEVEL_SUSPENDED) {
        if (r->v_e4 >= 0) r->void_[k] = 1;
        return GPI_OK;
    }
    if (r->v_e4 < 0) r->void_[k] = 1;
    if (e.level == GPI_LEVEL_CARRIED) *carried = 1;
    widen(r, k, e.value_e4);
    return GPI_OK;
}

/* The fix's items without group ex (-1 none) into s->xt, s->xo, with room
 * for two more of each; extra: the imputed members' observations too (a
 * day with no member present: design note 1). */
static gpi_status base_items(idx_v3 *s, int32_t ex, int extra, size_t *nt, size_t *no,
                             gpi_diag *d)
{
    size_t mt = s->nft + 2, mo = s->nfo + 2;
    if (extra)
        for (size_t i = 0; i < s->ng; i++)
            if (s->gr[i].role == IDX_V3_IMPUTED) mt += s->gr[i].nt, mo += s->gr[i].no;
    if (GPI_VEC_RESERVE(s->xt, s->cap_xt, mt) || GPI_VEC_RESERVE(s->xo, s->cap_xo, mo))
        return oom(d);
    *nt = *no = 0;
    for (size_t i = 0; i < s->nft; i++)
        if (s->ft[i].group != ex) s->xt[(*nt)++] = s->ft[i];
    for (size_t i = 0; i < s->nfo; i++)
        if (s->fo[i].group != ex) s->xo[(*no)++] = s->fo[i];
    for (size_t i = 0; extra && i < s->ng; i++) {
        const v3_group *x = &s->gr[i];
        if (x->role != IDX_V3_IMPUTED) continue;
        for (size_t j = 0; j < x->nt; j++) {
            s->xt[*nt] = x->t[j];
            s->xt[(*nt)++].group = (int32_t)i;
        }
        for (size_t j = 0; j < x->no; j++) {
            s->xo[*no] = x->o[j];
            s->xo[(*no)++].group = (int32_t)i;
        }
    }
    return GPI_OK;
}

static idx_item extreme(int32_t group, int64_t price, int64_t qty)
{
    idx_item it = {0};
    it.price_micro = price;
    it.qty_micro = qty;
    it.key_hash = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)group;
    it.group = group;
    it.reason = IDX_OK;
    return it;
}

/* A volume that reaches any cap: 100 x (the fix's volume + min_trade_volume). */
static int64_t cap_volume(const idx_v3 *s)
{
    int64_t v = 0;
    for (size_t i = 0; i < s->nft; i++)
        if (s->ft[i].reason == IDX_OK && s->ft[i].qty_micro > 0) v += s->ft[i].qty_micro;
    int64_t m = s->g->p.min_trade_volume_micro > 0 ? s->g->p.min_trade_volume_micro : 0;
    if (v > INT64_MAX / 400 - m) return INT64_MAX / 400; /* the sum then stays in range */
    return 100 * (v + m) + 1000000;
}

/* Trade providers of the fix (a printed or new trade can make the trades
 * level only when one more reaches min_providers). */
static long trade_groups(const idx_item *t, size_t nt)
{
    long n = 0;
    int32_t last = -1;
    for (size_t i = 0; i < nt; i++) /* by group: each group's items together */
        if (t[i].reason == IDX_OK && t[i].group != last) {
            last = t[i].group;
            n++;
        }
    return n;
}

gpi_status v3_reach_day(idx_v3 *s, int32_t day, gpi_diag *d)
{
    idx_v3_out *o = &s->out;
    idx_reach_day *r = &o->reach;
    memset(r, 0, sizeof *r);
    r->day = day;
    for (int k = 0; k < IDX_REACH_KINDS; k++) r->lo_e4[k] = r->hi_e4[k] = -1;
    idx_v3_stats st;
    gpi_status rc = v3_fix_stats(s, -1, &st, d);
    if (rc != GPI_OK) return rc;
    idx_eval e;
    idx_seq_peek(&s->seq, day, st.t_q, st.o_q, &e);
    r->v_e4 = e.level == GPI_LEVEL_SUSPENDED ? -1 : e.value_e4;
    r->carried = e.level == GPI_LEVEL_CARRIED;
    int carry[IDX_REACH_KINDS] = {r->carried, r->carried, r->carried};
    for (int k = 0; k < IDX_REACH_KINDS; k++) widen(r, k, r->v_e4);
    long tg = trade_groups(s->ft, s->nft);
    int64_t q = cap_volume(s);
    const int minp = s->g->p.min_providers;
    long present = 0;
    for (size_t i = 0; i < s->ng; i++) present += s->gr[i].role == IDX_V3_MEMBER;
    size_t nt, no;
    /* members: left out, and printing */
    for (size_t i = 0; i < s->ng && rc == GPI_OK; i++) {
        int role = s->gr[i].role;
        if (role != IDX_V3_MEMBER && role != IDX_V3_IMPUTED) continue;
        if (s->unobserved) break; /* no fix whatever one member does */
        int32_t gi = (int32_t)i;
        if ((rc = base_items(s, gi, 0, &nt, &no, d)) != GPI_OK) break;
        rc = eval_into(s, day, s->xt, nt, s->xo, no, s->ng, r, IDX_REACH_ABSENT,
                       &carry[IDX_REACH_ABSENT], d);
        int traded = 0;
        for (size_t j = 0; j < s->nft; j++) traded |= s->ft[j].group == gi;
        int trade_ops = tg + !traded >= minp;
        for (int side = 0; side < 2 && rc == GPI_OK; side++) {
            int64_t p = side ? HI_MICRO : LO_MICRO;
            for (int tr = 0; tr <= trade_ops && rc == GPI_OK; tr++) {
                if ((rc = base_items(s, gi, 0, &nt, &no, d)) != GPI_OK) break;
                s->xo[no++] = extreme(gi, p, 0);
                if (tr) s->xt[nt++] = extreme(gi, p, q);
                rc = eval_into(s, day, s->xt, nt, s->xo, no, s->ng, r, IDX_REACH_PRINT,
                               &carry[IDX_REACH_PRINT], d);
            }
        }
    }
    /* the only member present withdrawing: no fix (imputed members alone) */
    if (rc == GPI_OK && present == 1) {
        idx_eval e2;
        idx_seq_peek(&s->seq, day, -1, -1, &e2);
        if (e2.level == GPI_LEVEL_SUSPENDED) {
            if (r->v_e4 >= 0) r->void_[IDX_REACH_ABSENT] = 1;
        } else {
            carry[IDX_REACH_ABSENT] = 1;
            widen(r, IDX_REACH_ABSENT, e2.value_e4);
        }
    }
    /* absent includes print: an imputed member's stale prices are a price change */
    if (r->lo_e4[IDX_REACH_PRINT] >= 0) {
        widen(r, IDX_REACH_ABSENT, r->lo_e4[IDX_REACH_PRINT]);
        widen(r, IDX_REACH_ABSENT, r->hi_e4[IDX_REACH_PRINT]);
    }
    r->void_[IDX_REACH_ABSENT] |= r->void_[IDX_REACH_PRINT];
    carry[IDX_REACH_ABSENT] |= carry[IDX_REACH_PRINT];
    /* a new participant, present (with no member present, the imputed
     * members' observations complete its fix: count their traders) */
    int32_t ng = (int32_t)s->ng;
    long tgn = tg;
    if (rc == GPI_OK && s->unobserved) {
        rc = base_items(s, -1, 1, &nt, &no, d);
        tgn = trade_groups(s->xt, nt);
    }
    int trade_ops = tgn + 1 >= minp;
    for (int side = 0; side < 2 && rc == GPI_OK; side++) {
        int64_t p = side ? HI_MICRO : LO_MICRO;
        for (int mode = 0; mode < (trade_ops ? 3 : 1) && rc == GPI_OK; mode++) {
            if ((rc = base_items(s, -1, s->unobserved, &nt, &no, d)) != GPI_OK) break;
            if (mode != 2) s->xo[no++] = extreme(ng, p, 0);
            if (mode >= 1) s->xt[nt++] = extreme(ng, p, q);
            rc = eval_into(s, day, s->xt, nt, s->xo, no, s->ng + 1, r, IDX_REACH_NEW,
                           &carry[IDX_REACH_NEW], d);
        }
    }
    for (int k = 0; k < IDX_REACH_KINDS; k++) r->carry_[k] = carry[k];
    return rc;
}

/* ---- the month ------------------------------------------------------------------- */

const char *idx_reach_kind_name(int kind)
{
    static const char *const names[] = {"absent", "print", "new"};
    return kind >= 0 && kind < IDX_REACH_KINDS ? names[kind] : "";
}

static int counted(int32_t day, int business)
{
    return !business || gpi_iso_weekday(day) <= 5;
}

/* A day's range in a window, after the days before it in the window
 * (design note 2): a day carried, or that an operation leaves carried,
 * or without a value after a day that can gain one, goes wherever the
 * day before could. */
typedef struct range {
    int64_t lo, hi;
    int vd;
} range;

static range chained(const idx_reach_day *x, int kind, const range *before)
{
    range r = {x->lo_e4[kind], x->hi_e4[kind], x->void_[kind]};
    if (!before) return r;
    if (!x->carried && !x->carry_[kind] && !(x->v_e4 < 0 && before->vd)) return r;
    if (before->lo >= 0 && (r.lo < 0 || before->lo < r.lo)) r.lo = before->lo;
    if (before->hi > r.hi) r.hi = before->hi;
    r.vd |= before->vd;
    return r;
}

int64_t idx_fsp_reach(const idx_reach_day *prev, const idx_reach_day *v, size_t n, int kind,
                      int business, int span)
{
    long days = 0;
    int64_t lo = -1, hi = -1;
    for (size_t i = 0; i <= n; i++) {
        const idx_reach_day *x = i < n ? &v[i] : prev;
        if (!x) continue;
        if (i < n && x->v_e4 >= 0 && counted(x->day, business)) days++;
        int64_t a = x->lo_e4[kind], b = x->hi_e4[kind];
        if (a >= 0 && (lo < 0 || a < lo)) lo = a;
        if (b > hi) hi = b;
    }
    if (days == 0) return -1;
    if (prev && (n == 0 || prev->day != v[0].day - 1)) prev = NULL;
    __int128 best = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j + 1 < n && v[j + 1].day - v[i].day < span) j++;
        while (j + 1 < n && (v[j + 1].carried || v[j + 1].v_e4 < 0)) j++;
        __int128 up = 0, dn = 0;
        range before, *bp = NULL;
        if (i == 0 && prev) { /* a window from the month before: its last day */
            before = (range){prev->lo_e4[kind], prev->hi_e4[kind], prev->void_[kind]};
            bp = &before;
        }
        for (size_t k = i; k <= j; k++) {
            const idx_reach_day *x = &v[k];
            range r = chained(x, kind, bp);
            before = r;
            bp = &before;
            if (!counted(x->day, business)) continue;
            if (r.vd) {
                up += hi - lo;
                dn += hi - lo;
            } else if (x->v_e4 >= 0) {
                up += r.hi - x->v_e4;
                dn += x->v_e4 - r.lo;
            }
        }
        if (up > best) best = up;
        if (dn > best) best = dn;
    }
    /* e4 sum / days, in e6, rounded up */
    __int128 num = best * 100;
    return (int64_t)((num + days - 1) / days);
}

int idx_reach_span(const idx_grade *g, int kind)
{
    const idx_params *p = &g->p;
    switch (kind) {
    case IDX_REACH_ABSENT:
        return p->admission_days + p->absence_days + 1;
    case IDX_REACH_NEW:
        return p->absence_days + 1;
    default:
        return 31;
    }
}

/* The month's list after the day's reach (the first day of a month
 * starts it; the last day of the month before is kept for the carry). */
gpi_status v3_reach_month(idx_v3 *s, int32_t day, gpi_diag *d)
{
    idx_v3_out *o = &s->out;
    int y, m, dd;
    gpi_civil_from_days(day, &y, &m, &dd);
    int32_t first = gpi_days_from_civil(y, m, 1);
    if (s->reach_n > 0 && s->reach[0].day < first) {
        s->reach_prev = s->reach[s->reach_n - 1];
        s->reach_n = 0;
    }
    if (GPI_VEC_RESERVE(s->reach, s->cap_reach, s->reach_n + 1)) return oom(d);
    s->reach[s->reach_n++] = o->reach;
    for (int k = 0; k < IDX_REACH_KINDS; k++)
        for (int b = 0; b < 2; b++)
            o->fsp_reach_e6[k][b] = idx_fsp_reach(s->reach_prev.day == INT32_MIN ? NULL
                                                                                  : &s->reach_prev,
                                                  s->reach, s->reach_n, k, b,
                                                  idx_reach_span(s->g, k));
    o->fsp_days[0] = o->fsp_days[1] = 0;
    for (size_t i = 0; i < s->reach_n; i++)
        if (s->reach[i].v_e4 >= 0) {
            o->fsp_days[0]++;
            o->fsp_days[1] += counted(s->reach[i].day, 1);
        }
    return GPI_OK;
}
