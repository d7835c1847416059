/* index/chain_rel.c -- methodology v2's matched relatives (METHODOLOGY.md
 * §10; chain.c design notes 2-5): the relative of the day's matched
 * sample to the reference day, offers and trades, and the anchor's value
 * from the window's cross-sections brought to the day by the change of
 * its constituents.
 *
 * NOTES ON THE DESIGN
 * (1) Relatives are integers in 1e-12 (ratio_e12, half-up once), the
 *     statistics S in quarter units of 1e-12 (gpi_median2 doubles a median so
 *     that a mean of two stays exact); nothing here uses binary floating
 *     point (chain.c note 4).
 * (2) These functions set the members' matched flags and relatives (the
 *     state chain.c's step commits and chain_detail.c shows) and use the
 *     chain's scratch arrays, but move nothing else: chain.c decides
 *     whether the day is a change, an anchor, a carry or a suspension.
 * (3) The offers statistic groups the matched members by provider with one
 *     sort of (provider, relative) pairs, O(n log n): the panel holds every
 *     screened offer of its anchor day (thousands), in key order, and the
 *     day's leave-one-out peeks (manip.c) recompute it once per provider.
 *     The provider medians are of the same values whatever the order
 *     within a provider.
 * (4) Leave one provider out (manip.c): each matched member belongs to one
 *     provider and a provider's median is of its own members only, so the
 *     offers statistic without provider g is the median of the other
 *     providers' medians of the day's sample without exclusion.  Between
 *     idx_chain_loo_begin and _end that sample is kept (c->loo: each
 *     member's matching rule, each provider's members and medians, the
 *     medians sorted) and a peek without g reads it: O(members) to mark
 *     them, O(log providers) for the statistic, instead of the sample
 *     again.  The marks and relatives the members are left with are those
 *     of a peek from scratch (relatives() skips g's members without
 *     touching their relatives, and gives the others the same ones).
 *     tests/test_index_loo.c checks both ways on random panels.
 */
#include "index/chain.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

#define E12 INT64_C(1000000000000)
#define REL_MIN INT64_C(1000000)              /* 1e-6 in 1e-12 units */
#define REL_MAX INT64_C(1000000000000000000)  /* 1e6 in 1e-12 units  */

/* round(now / ref) in 1e-12, half-up; -1 when out of [1e-6, 1e6] (both
 * in the same units, > 0). */
static int64_t ratio_e12(int64_t now, int64_t ref)
{
    if (now <= 0 || ref <= 0) return -1;
    int64_t x = gpi_div_round((__int128)now * E12, ref);
    return x < REL_MIN || x > REL_MAX ? -1 : x;
}

/* 1 when a member's price moved by more than error_factor since the
 * reference day (either way): a print the per-provider screen could not
 * judge (fewer than three prices), left out of the day's sample. */
static int implausible(const idx_chain *c, const idx_member *m)
{
    __int128 f = c->g->p.error_factor_e6;
    return (__int128)m->now * 1000000 > f * m->ref || (__int128)m->ref * 1000000 > f * m->now;
}

/* A member of the matching on the day, unless its group is left out: a
 * price today and at ref, no implausible move (design note 5), and both
 * relatives to its base (m->rel_now, m->rel_ref) in range; m->matched is
 * cleared for the caller to set.  The one rule for offers and trades. */
static int relatives(const idx_chain *c, idx_member *m, const uint64_t *exclude)
{
    m->matched = 0;
    if (m->now < 0 || m->ref < 0 || (exclude && m->group == *exclude) || implausible(c, m))
        return 0;
    m->rel_now = ratio_e12(m->now, m->base);
    m->rel_ref = ratio_e12(m->ref, m->base);
    return m->rel_now >= 0 && m->rel_ref >= 0;
}

static int cmp_grel(const void *a, const void *b)
{
    const idx_grel *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return (x->now > y->now) - (x->now < y->now);
}

/* Design note 3: the provider medians of v[0..n) (sorted here by group,
 * then relative now), doubled: mn[k] of the relatives now and, when mr is
 * not NULL, mr[k] of those at ref (py: n of scratch), for the k-th group
 * in ascending order (grp[k] and cnt[k] its members, when not NULL).
 * Returns the number of groups. */
static size_t provider_medians(idx_grel *v, size_t n, int64_t *mn, int64_t *mr, int64_t *py,
                               uint64_t *grp, long *cnt)
{
    if (n > 1) qsort(v, n, sizeof *v, cmp_grel);
    size_t np = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].group == v[i].group) j++;
        size_t m = j - i;
        const idx_grel *r = v + i; /* ascending by now */
        mn[np] = m % 2 ? 2 * r[m / 2].now : r[m / 2 - 1].now + r[m / 2].now;
        if (mr) {
            for (size_t k = 0; k < m; k++) py[k] = r[k].ref;
            mr[np] = gpi_median2(py, m);
        }
        if (grp) grp[np] = v[i].group;
        if (cnt) cnt[np] = (long)m;
        np++;
        i = j;
    }
    return np;
}

/* Room for np providers in the leave-one-out sample; -1 out of memory. */
static int loo_reserve(idx_loo *L, size_t np)
{
    if (np <= L->cap) return 0;
    size_t cap = np > 2 * L->cap ? np : 2 * L->cap;
    uint64_t *grp = realloc(L->grp, cap * sizeof *grp);
    if (grp) L->grp = grp;
    long *cnt = realloc(L->cnt, cap * sizeof *cnt);
    if (cnt) L->cnt = cnt;
    int64_t **a[4] = {&L->mn, &L->mr, &L->smn, &L->smr};
    int ok = grp && cnt;
    for (int k = 0; k < 4; k++) {
        int64_t *x = realloc(*a[k], cap * sizeof *x);
        if (x) *a[k] = x;
        ok &= x != NULL;
    }
    if (!ok) return -1;
    L->cap = cap;
    return 0;
}

void idx_loo_free(idx_loo *L)
{
    free(L->grp);
    free(L->cnt);
    free(L->mn);
    free(L->mr);
    free(L->smn);
    free(L->smr);
    free(L->ok);
    memset(L, 0, sizeof *L);
}

/* Keeps the sample just computed (the providers' medians mn, mr, in the
 * group order of L->grp and L->cnt, filled by provider_medians). */
static void loo_keep(idx_loo *L, size_t nm, size_t np, const int64_t *mn, const int64_t *mr)
{
    L->n_matched = (long)nm;
    L->np = np;
    memcpy(L->mn, mn, np * sizeof *mn);
    memcpy(L->mr, mr, np * sizeof *mr);
    memcpy(L->smn, mn, np * sizeof *mn);
    memcpy(L->smr, mr, np * sizeof *mr);
    if (np > 1) {
        qsort(L->smn, np, sizeof *L->smn, gpi_cmp_i64);
        qsort(L->smr, np, sizeof *L->smr, gpi_cmp_i64);
    }
}

/* The doubled median of sorted s[0..n) without one element equal to v
 * (skip; else of all of them). */
static int64_t median2_without(const int64_t *s, size_t n, int skip, int64_t v)
{
    size_t p = n; /* the element left out: the first equal to v */
    if (skip) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s[mid] < v) lo = mid + 1;
            else hi = mid;
        }
        p = lo;
        n--;
    }
#define AT(i) ((i) < p ? s[(i)] : s[(i) + 1])
    int64_t m = n % 2 ? 2 * AT(n / 2) : AT(n / 2 - 1) + AT(n / 2);
#undef AT
    return m;
}

/* Design note 4: the offers relative without group g from the day's
 * sample (c->loo), as idx_chain_offers_relative computes it from scratch:
 * the same members marked, the other providers' medians unchanged. */
static int64_t offers_without(idx_chain *c, uint64_t g, long *n_matched, long *n_prov,
                              int64_t *now_q, int64_t *ref_q)
{
    const idx_loo *L = &c->loo;
    idx_member *mem = c->mem[0];
    for (size_t i = 0; i < c->n_mem[0]; i++) mem[i].matched = L->ok[i] && mem[i].group != g;
    size_t lo = 0, hi = L->np;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (L->grp[mid] < g) lo = mid + 1;
        else hi = mid;
    }
    int found = lo < L->np && L->grp[lo] == g;
    size_t np = L->np - (size_t)found;
    *n_matched = L->n_matched - (found ? L->cnt[lo] : 0);
    *n_prov = (long)np;
    if (np == 0 || (long)np < c->g->p.min_providers) return -1;
    *now_q = median2_without(L->smn, L->np, found, found ? L->mn[lo] : 0);
    *ref_q = median2_without(L->smr, L->np, found, found ? L->mr[lo] : 0);
    return ratio_e12(*now_q, *ref_q);
}

/* Offers (design note 2): the members priced today and at ref (the
 * matched sample) and S of their relatives to base on each day (quarter
 * units of 1e-12: the median of provider medians).  Returns the day's
 * relative, or -1 when fewer than min_providers providers matched. */
int64_t idx_chain_offers_relative(idx_chain *c, const uint64_t *exclude, long *n_matched,
                               long *n_prov, int64_t *now_q, int64_t *ref_q, gpi_diag *d,
                               gpi_status *rc)
{
    idx_member *mem = c->mem[0];
    size_t n = c->n_mem[0], cap = n + 1;
    idx_loo *L = &c->loo;
    *n_matched = *n_prov = 0;
    *now_q = *ref_q = -1;
    if (exclude && L->on) return offers_without(c, *exclude, n_matched, n_prov, now_q, ref_q);
    int keep = L->record && !exclude;
    if (GPI_VEC_RESERVE(c->grel, c->cap_grel, cap) ||
        GPI_VEC_RESERVE(c->w, c->cap_w, 3 * cap) ||
        (keep && (GPI_VEC_RESERVE(L->ok, L->cap_ok, cap) || loo_reserve(L, cap)))) {
        *rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        return -1;
    }
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
        idx_member *m = &mem[i];
        int ok = relatives(c, m, exclude);
        if (keep) L->ok[i] = (unsigned char)ok;
        if (!ok) continue;
        m->matched = 1;
        c->grel[nm++] = (idx_grel){m->group, m->rel_now, m->rel_ref};
    }
    int64_t *mn = c->w, *mr = c->w + cap, *py = c->w + 2 * cap;
    size_t np = provider_medians(c->grel, nm, mn, mr, py, keep ? L->grp : NULL,
                                 keep ? L->cnt : NULL);
    if (keep) loo_keep(L, nm, np, mn, mr);
    *n_matched = (long)nm;
    *n_prov = (long)np;
    if (np == 0 || (long)np < c->g->p.min_providers) return -1;
    *now_q = gpi_median2(mn, np);
    *ref_q = gpi_median2(mr, np);
    return ratio_e12(*now_q, *ref_q);
}

/* Trades (design note 2): the panel's provider groups with a
 * representative price today and at ref, and S of their relatives to base
 * on each day (quarter units of 1e-12: the volume-weighted median with
 * the provider cap, each day's volumes).  Returns the day's relative, or
 * -1 when fewer than min_providers providers or less than
 * min_trade_volume GPU-hours (today) matched. */
int64_t idx_chain_trades_relative(idx_chain *c, const uint64_t *exclude, long *n_matched,
                               int64_t *now_q, int64_t *ref_q, gpi_diag *d, gpi_status *rc)
{
    idx_member *mem = c->mem[1];
    size_t n = c->n_mem[1];
    const idx_params *p = &c->g->p;
    *n_matched = 0;
    *now_q = *ref_q = -1;
    if (GPI_VEC_RESERVE(c->witems, c->cap_witems, n + 1)) {
        *rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        return -1;
    }
    int64_t vol = 0; /* of the members seen today */
    long k = 0, seen = 0;
    for (size_t i = 0; i < n; i++) {
        idx_member *m = &mem[i];
        if (!relatives(c, m, exclude) || m->now_vol <= 0 || m->ref_vol <= 0 ||
            (m->seen && __builtin_add_overflow(vol, m->now_vol, &vol)))
            continue;
        m->matched = 1;
        k++;
        seen += m->seen;
    }
    *n_matched = k;
    /* carried prices steady the sample but never make it qualify: the day's
     * own trades must (so a relative implies a fixed cross-section) */
    if (k == 0 || seen < p->min_providers || vol < p->min_trade_volume_micro) return -1;
    for (int side = 0; side < 2; side++) {
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            const idx_member *m = &mem[i];
            if (m->matched)
                c->witems[w++] = (idx_item){side ? m->rel_ref : m->rel_now,
                                            side ? m->ref_vol : m->now_vol, m->key, 0,
                                            (int32_t)i, IDX_OK};
        }
        *rc = idx_weighted_median(c->witems, w, p->cap_floor_e6, side ? ref_q : now_q, d);
        if (*rc != GPI_OK) return -1;
    }
    return ratio_e12(*now_q, *ref_q);
}

/* The change S(then) of D's constituents (base) since an earlier day
 * (then): the v1 statistic of the relatives then / base over the
 * constituents on both days (trades when at least min_providers providers
 * and min_trade_volume GPU-hours that day match, else offers of at least
 * min_providers providers), quarter units of 1e-12; -1 when neither. */
static int64_t snap_change(idx_chain *c, const idx_snap *base, const idx_snap *then,
                           const uint64_t *exclude, gpi_diag *d, gpi_status *rc)
{
    const idx_params *p = &c->g->p;
    size_t cap = base->no + base->nt + 1;
    if (GPI_VEC_RESERVE(c->w, c->cap_w, cap) || GPI_VEC_RESERVE(c->grel, c->cap_grel, cap) ||
        GPI_VEC_RESERVE(c->witems, c->cap_witems, cap)) {
        *rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        return -1;
    }
    /* trades */
    size_t n = 0;
    int64_t vol = 0;
    for (size_t i = 0, j = 0; i < base->nt && j < then->nt;) {
        if (base->t[i].key != then->t[j].key) {
            base->t[i].key < then->t[j].key ? i++ : j++;
            continue;
        }
        int64_t r = ratio_e12(then->t[j].price, base->t[i].price);
        if (r > 0 && then->t[j].volume > 0 && !(exclude && base->t[i].key == *exclude) &&
            !__builtin_add_overflow(vol, then->t[j].volume, &vol)) {
            c->witems[n] = (idx_item){r, then->t[j].volume, base->t[i].key, 0, (int32_t)n, IDX_OK};
            n++;
        }
        i++;
        j++;
    }
    if (n > 0 && (long)n >= p->min_providers && vol >= p->min_trade_volume_micro) {
        int64_t q = -1;
        *rc = idx_weighted_median(c->witems, n, p->cap_floor_e6, &q, d);
        return *rc == GPI_OK ? q : -1;
    }
    /* offers: relatives by group, as the matched statistic */
    int64_t *med = c->w;
    n = 0;
    for (size_t i = 0, j = 0; i < base->no && j < then->no;) {
        if (base->o[i].key != then->o[j].key) {
            base->o[i].key < then->o[j].key ? i++ : j++;
            continue;
        }
        int64_t r = ratio_e12(then->o[j].price, base->o[i].price);
        if (r > 0 && !(exclude && base->o[i].group == *exclude))
            c->grel[n++] = (idx_grel){base->o[i].group, r, 0};
        i++;
        j++;
    }
    size_t np = provider_medians(c->grel, n, med, NULL, NULL, NULL, NULL);
    if (np == 0 || (long)np < p->min_providers) return -1;
    return gpi_median2(med, np);
}

/* An anchor's value (design note 3): the median over the last
 * anchor_days days up to `day` (the day included) with a fixed
 * cross-section of that cross-section brought to `day` by the change of
 * day's constituents since then, xs_k / S(k), in nano-USD (a median of an
 * even count is the mean of the two middle values, half-up). */
int64_t idx_chain_anchor_value(idx_chain *c, int32_t day, int64_t xs_e4, const uint64_t *exclude,
                            gpi_diag *d, gpi_status *rc)
{
    int w = c->g->p.anchor_days;
    c->n_est = 1;
    c->n_win = 0;
    if (w <= 1 || !c->hist) return xs_e4 * 100000;
    int64_t *est = c->est;
    size_t n = 0;
    est[n++] = xs_e4 * 100000;
    /* the window's days in ascending order (c->win: what index.json shows) */
    for (int32_t k = day - w + 1; k < day && *rc == GPI_OK; k++) {
        const idx_hist *h = &c->hist[(uint32_t)k % (uint32_t)w];
        idx_window *x = &c->win[c->n_win++];
        *x = (idx_window){k, h->day == k ? h->xs_e4 : -1, -1, -1};
        if (x->xs_e4 < 0) continue;
        int64_t sq = snap_change(c, &c->cur, &h->snap, exclude, d, rc);
        if (sq <= 0) continue;
        x->change_q = sq;
        x->est_nano = est[n++] = gpi_div_round((__int128)h->xs_e4 * 100000 * 4 * E12, sq);
    }
    c->n_est = (int)n;
    memcpy(est + w, est, n * sizeof *est); /* est[0] stays the day's own (manip.c) */
    return gpi_div_round(gpi_median2(est + w, n), 2);
}
