/* index/own.c -- how much of a grade's fix one participant's own quotes
 * supply (hedge compare: circularity, issue 27 item 1).
 *
 * NOTES ON THE DESIGN
 * (1) A renter comparing an index with its own rent must know when the
 *     index is largely its own price: a narrow grade of three zones whose
 *     middle zone is the renter's "tracks" the rent because the renter's
 *     quote sets it.  The renter's own quotes are given as a grade's
 *     *twin*: the same grade with an "exclude" entry that leaves them out
 *     (grade_exclude.c).  A quote of grade G that its twin does not take
 *     (by store key, whatever its screen) is own.
 * (2) The share of a day's fix that own quotes supply follows the fix's
 *     own statistic (METHODOLOGY.md §4), on the level that fixed the
 *     day's cross-section (trades when they qualify, else offers; a day
 *     carried or suspended has no fix and is not counted):
 *     - offers, the median of provider medians: the value is set by the
 *       middle provider(s) (one, or two with half each), and a
 *       provider's median by its middle offer(s).  Own quotes "are the
 *       median" at a position when one of them holds its value -- alone
 *       or tied: three zones of one spot price, or a provider's price
 *       list the same in every region, are the renter's own price on
 *       that day as much as anyone's, and a grade made of them tracks
 *       the rent because it is the rent.  The share is the sum over the
 *       positions of their weight (1, or 1/2 each) where own quotes hold
 *       the value: 1 on a day the fix is the renter's price;
 *     - trades, the capped volume-weighted median: the value is set by
 *       the median price (or the two prices whose mean it is, half each);
 *       there the share is the own part of the capped weight at that
 *       price ("their weight").
 *     A v2 grade's chained value moves with the same statistic over the
 *     matched quotes, so its cross-section is where the share is read.
 * (3) Reported per grade: the days with a fix, the mean share over them,
 *     the days on which own quotes supply at least half of the fix (they
 *     are the median) and the days they are in it at all.  Statistics, in
 *     doubles; nothing here is published.
 * (4) The day loop is this file's own (one scan a day for every grade,
 *     idx_day_collect and idx_day_fix; no sequence, no chain): the share
 *     needs the day's quotes, not the value, so nothing is replayed.  The
 *     store is only read.
 */
#include "index/feed.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct own_item {
    int64_t price;      /* micro */
    int64_t qty;        /* trades: micro-GPU-hours */
    int32_t group;
    int own;
} own_item;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_group_price(const void *a, const void *b)
{
    const own_item *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return (x->price > y->price) - (x->price < y->price);
}

static int cmp_price(const void *a, const void *b)
{
    const own_item *x = a, *y = b;
    return (x->price > y->price) - (x->price < y->price);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 1 when an own item of v[0..n) is at price p: the position at p is
 * then (one of) the renter's own prices. */
static double own_at(const own_item *v, size_t n, int64_t p)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].price == p && v[i].own) return 1.0;
    return 0.0;
}

/* Middle positions of n sorted values: *a, *b (equal for odd n). */
static void middles(size_t n, size_t *a, size_t *b)
{
    *a = (n - 1) / 2;
    *b = n / 2;
}

/* Offers (note 2): v sorted by group then price. */
static double offers_share(own_item *v, size_t n, double *med, double *own)
{
    size_t ng = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && v[e].group == v[i].group) e++;
        size_t m = e - i, a, b;
        middles(m, &a, &b);
        med[ng] = ((double)v[i + a].price + (double)v[i + b].price) / 2.0;
        own[ng] = (a == b) ? own_at(v + i, m, v[i + a].price)
                           : 0.5 * own_at(v + i, m, v[i + a].price) +
                                 0.5 * own_at(v + i, m, v[i + b].price);
        ng++;
        i = e;
    }
    if (ng == 0) return 0.0;
    /* the provider medians, sorted with their own parts */
    double *sorted = med + ng;
    memcpy(sorted, med, ng * sizeof *med);
    qsort(sorted, ng, sizeof *sorted, cmp_double);
    size_t a, b;
    middles(ng, &a, &b);
    double share = 0.0;
    for (int k = 0; k < 2; k++) {
        double y = sorted[k ? b : a], most = 0.0;
        for (size_t g = 0; g < ng; g++)
            if (med[g] == y && own[g] > most) most = own[g];
        share += 0.5 * most;
    }
    return share;
}

/* Trades (note 2): v sorted by group then price; capped weights. */
static gpi_status trades_share(own_item *v, size_t n, int64_t cap_floor_e6, double *w,
                               double *share)
{
    *share = 0.0;
    size_t ng = 0;
    int64_t *vol = malloc((n ? n : 1) * sizeof *vol);
    __int128 *num = malloc((n ? n : 1) * sizeof *num);
    size_t *gi = malloc((n ? n : 1) * sizeof *gi);
    if (!vol || !num || !gi) {
        free(vol);
        free(num);
        free(gi);
        return GPI_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || v[i].group != v[i - 1].group) vol[ng++] = 0;
        vol[ng - 1] += v[i].qty;
        gi[i] = ng - 1;
    }
    __int128 den = 1;
    if (idx_waterfill(vol, ng, cap_floor_e6, num, &den) < 0) {
        free(vol);
        free(num);
        free(gi);
        return GPI_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        w[i] = vol[gi[i]] > 0 ? (double)num[gi[i]] / (double)den * (double)v[i].qty /
                                    (double)vol[gi[i]]
                              : 0.0;
    free(vol);
    free(num);
    free(gi);
    /* by price, carrying the weights */
    for (size_t i = 0; i < n; i++) v[i].qty = (int64_t)i; /* index of the weight */
    qsort(v, n, sizeof *v, cmp_price);
    double total = 0.0, cum = 0.0;
    for (size_t i = 0; i < n; i++) total += w[v[i].qty];
    if (!(total > 0)) return GPI_OK;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        double at = 0.0, own = 0.0;
        while (e < n && v[e].price == v[i].price) {
            at += w[v[e].qty];
            if (v[e].own) own += w[v[e].qty];
            e++;
        }
        cum += at;
        if (cum >= total / 2.0) {
            double part = at > 0 ? own / at : 0.0;
            if (cum == total / 2.0 && e < n) { /* exactly half: the mean with the next */
                size_t f = e;
                double at2 = 0.0, own2 = 0.0;
                while (f < n && v[f].price == v[e].price) {
                    at2 += w[v[f].qty];
                    if (v[f].own) own2 += w[v[f].qty];
                    f++;
                }
                *share = 0.5 * part + 0.5 * (at2 > 0 ? own2 / at2 : 0.0);
            } else {
                *share = part;
            }
            return GPI_OK;
        }
        i = e;
    }
    return GPI_OK;
}

/* The own items of grade gi (note 1) on the level that fixed its day,
 * into *it: 0 none (no fix), 1 offers, 2 trades. */
static gpi_status day_items(idx_day *dy, size_t gi, size_t twin, own_item **it, size_t *cap,
                            size_t *n, int *level, uint64_t **keys, size_t *kcap, gpi_diag *d)
{
    idx_fix f;
    gpi_status rc = idx_day_fix(dy, gi, &f, d);
    if (rc != GPI_OK) return rc;
    *level = f.trades_raw_q >= 0 ? 2 : f.offers_raw_q >= 0 ? 1 : 0;
    *n = 0;
    if (!*level) return GPI_OK;
    const idx_buf *b = *level == 2 ? &dy->trades[gi] : &dy->offers[gi];
    const idx_buf *t = *level == 2 ? &dy->trades[twin] : &dy->offers[twin];
    if (GPI_VEC_RESERVE(*keys, *kcap, t->n + 1) != 0 || GPI_VEC_RESERVE(*it, *cap, b->n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory (own quotes)");
    for (size_t i = 0; i < t->n; i++) (*keys)[i] = t->v[i].key_hash;
    qsort(*keys, t->n, sizeof **keys, cmp_u64);
    for (size_t i = 0; i < b->n; i++) {
        const idx_item *x = &b->v[i];
        if (x->reason != IDX_OK) continue;
        int own = !bsearch(&x->key_hash, *keys, t->n, sizeof **keys, cmp_u64);
        (*it)[(*n)++] = (own_item){x->price_micro, x->qty_micro, x->group, own};
    }
    qsort(*it, *n, sizeof **it, cmp_group_price);
    return GPI_OK;
}

gpi_status idx_own_shares(store *st, const idx_grades *gs, const long *twin, int32_t from,
                          int32_t to, int64_t as_of, idx_own *out, gpi_diag *d)
{
    if (!st || !gs || !twin || !out || from > to)
        return gpi_diag_set(d, GPI_EUSAGE, "index own shares: bad arguments");
    memset(out, 0, gs->n * sizeof *out);
    idx_day dy;
    gpi_status rc = idx_day_init(&dy, gs);
    own_item *it = NULL;
    uint64_t *keys = NULL;
    double *work = NULL;
    size_t cap = 0, kcap = 0, wcap = 0;
    double *sum = calloc(gs->n ? gs->n : 1, sizeof *sum);
    if (rc != GPI_OK || !sum) {
        rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory (own quotes)");
        goto done;
    }
    for (int32_t day = from; day <= to && rc == GPI_OK; day++) {
        rc = idx_day_collect(&dy, st, day, as_of, d);
        for (size_t gi = 0; gi < gs->n && rc == GPI_OK; gi++) {
            if (twin[gi] < 0 || (size_t)twin[gi] >= gs->n) continue;
            size_t n;
            int level;
            rc = day_items(&dy, gi, (size_t)twin[gi], &it, &cap, &n, &level, &keys, &kcap, d);
            if (rc != GPI_OK || !level) continue;
            if (GPI_VEC_RESERVE(work, wcap, 2 * n + 2) != 0) {
                rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory (own quotes)");
                break;
            }
            double share = 0.0;
            if (level == 1) {
                double *own = malloc((n + 1) * sizeof *own);
                if (!own) {
                    rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory (own quotes)");
                    break;
                }
                share = offers_share(it, n, work, own);
                free(own);
            } else if (trades_share(it, n, gs->g[gi].p.cap_floor_e6, work, &share) != GPI_OK) {
                rc = gpi_diag_set(d, GPI_ENOMEM, "index: out of memory (own quotes)");
                break;
            }
            idx_own *o = &out[gi];
            o->days++;
            sum[gi] += share;
            if (share > 0) o->any_days++;
            if (share >= 0.5) o->median_days++;
        }
    }
    for (size_t gi = 0; gi < gs->n; gi++)
        out[gi].share = out[gi].days ? sum[gi] / (double)out[gi].days : 0.0;
done:
    free(sum);
    free(it);
    free(keys);
    free(work);
    idx_day_free(&dy);
    return rc;
}
