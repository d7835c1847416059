/* index/method.c -- the statistics of methodology v1 (SPEC §6), pure.
 *
 * NOTES ON THE DESIGN
 * (1) Inputs are integers: prices in micro-USD, volumes in micro-GPU-hours.
 *     Every comparison that decides a published number is exact.
 * (2) Medians use GSL (gsl_stats_median_from_sorted_data on sorted copies).
 *     Prices are integers below 2^53, so a median of an even count,
 *     (a+b)/2, is exact in binary; doubling it gives an exact integer in
 *     half-micro.  A median of such medians is exact in quarter-micro.
 * (3) Water-filling: with providers sorted by volume, the capped set is a
 *     prefix; k capped providers get s each and the others share 1 - k*s
 *     in proportion to volume.  Capping the largest exceeder first reaches
 *     the same fixed point as capping all exceeders at once.
 * (4) Weighted median: a trade's weight is f_p * volume, where f_p is
 *     (1 - k s)/U for uncapped providers (U = their total volume) and
 *     s / V_p for a capped provider p.  "Cumulative weight >= 1/2" is
 *     decided exactly by clearing the k+1 denominators; the products need
 *     more than 128 bits, so a small fixed-size unsigned bignum does it.
 *     The same rule at any fraction q = qn/qd gives the weighted quantiles
 *     of the constituents' band (methodology v2).
 * (5) The weight reached only grows from one price to the next (volumes
 *     are never negative), so the answer is the first price where the
 *     exact comparison says "reached" -- and any price where it says so
 *     while it says "short" at the price before is that first one.  The
 *     bignum comparison at every price (thousands of trades, a leave-one-
 *     out and a bisection of them per grade-day: a fifth of a year's
 *     build) is therefore made only where the weight in doubles, summed
 *     along the prices, first comes within 1e-9 of q, and at the price
 *     before; from there on at every price as before.  When the price
 *     before has reached q too (doubles off by more than that), it
 *     compares at every price from the first, as it always did.  The
 *     result, overflow included, is the exact rule's.
 * (6) Providers are numbered in order of first appearance through a table
 *     indexed by group when the groups span little more than the items
 *     (a build's interned ids), plus one slot for INT32_MAX, the new
 *     participant of manip.c's searches; otherwise by open addressing, at
 *     most half full.  A weighted median is called some thirty times per
 *     grade-day by those searches: the hashing was a fifth of its time.
 */
#include "index/method.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *idx_reason_name(int r)
{
    switch (r) {
    case IDX_EX_ABOVE: return "above F x provider median";
    case IDX_EX_BELOW: return "below 1/F x provider median";
    case IDX_EX_CANCELLED: return "cancelled trade";
    case IDX_EX_AFFILIATE: return "affiliate trade";
    case IDX_EX_UNCHANGED: return "price unchanged longer than max_unchanged_days";
    default: return "";
    }
}

size_t idx_screen(idx_item *v, size_t n, int64_t factor_e6, double *work)
{
    if (n == 0) return 0;
    idx_sort_items(v, n, IDX_BY_GROUP_PRICE); /* sorted input: one pass (sort.c) */
    size_t excluded = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i, m = 0;
        while (j < n && v[j].group == v[i].group) {
            if (v[j].reason == IDX_OK) work[m++] = (double)v[j].price_micro;
            j++;
        }
        if (m >= 3) {
            /* work is ascending: items are sorted by price within a group */
            int64_t med2 = (int64_t)(2.0 * gsl_stats_median_from_sorted_data(work, 1, m));
            for (size_t k = i; k < j; k++) {
                if (v[k].reason != IDX_OK) continue;
                __int128 p = v[k].price_micro;
                if (p * 2 * 1000000 > (__int128)factor_e6 * med2) {
                    v[k].reason = IDX_EX_ABOVE;
                    excluded++;
                } else if (p * 2 * factor_e6 < (__int128)med2 * 1000000) {
                    v[k].reason = IDX_EX_BELOW;
                    excluded++;
                }
            }
        }
        i = j;
    }
    return excluded;
}

/* ---- water-filling ------------------------------------------------------- */

static void share_cap(size_t n, int64_t cap_floor_e6, int64_t *sn, int64_t *sd)
{
    if ((__int128)cap_floor_e6 * (__int128)n >= 1000000) {
        *sn = cap_floor_e6;
        *sd = 1000000;
    } else {
        *sn = 1;
        *sd = (int64_t)n;
    }
}

/* order[] = provider indices by volume descending; returns k capped. */
static int waterfill_order(const int64_t *vol, size_t n, int64_t sn, int64_t sd, size_t *order)
{
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is small */
        size_t x = order[i], j = i;
        while (j > 0 && vol[order[j - 1]] < vol[x]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    size_t k = 0;
    while (k < n) {
        __int128 U = 0;
        for (size_t i = k; i < n; i++) U += vol[order[i]];
        /* share of the largest uncapped = (sd - k sn) V / (sd U) > sn / sd ? */
        if ((__int128)(sd - (int64_t)k * sn) * vol[order[k]] > (__int128)sn * U)
            k++;
        else
            break;
    }
    return (int)k;
}

int idx_waterfill(const int64_t *vol, size_t n, int64_t cap_floor_e6, __int128 *num, __int128 *den)
{
    if (n == 0) return 0;
    int64_t sn, sd;
    share_cap(n, cap_floor_e6, &sn, &sd);
    size_t *order = malloc(n * sizeof *order);
    if (!order) return -1;
    int k = waterfill_order(vol, n, sn, sd, order);
    __int128 U = 0;
    for (size_t i = (size_t)k; i < n; i++) U += vol[order[i]];
    if (U == 0) U = 1;
    *den = (__int128)sd * U;
    for (size_t i = 0; i < n; i++) {
        size_t p = order[i];
        num[p] = (int)i < k ? (__int128)sn * U : (__int128)(sd - (int64_t)k * sn) * vol[p];
    }
    free(order);
    return k;
}

/* ---- a small unsigned bignum ---------------------------------------------- */

#define BN_LIMBS 256
typedef struct bn {
    int n;                   /* limbs in use */
    uint32_t l[BN_LIMBS];    /* little-endian */
} bn;

static void bn_set(bn *a, unsigned __int128 v)
{
    a->n = 0;
    while (v) {
        a->l[a->n++] = (uint32_t)v;
        v >>= 32;
    }
}

static void bn_copy(bn *dst, const bn *src)
{
    dst->n = src->n;
    memcpy(dst->l, src->l, sizeof(uint32_t) * (size_t)src->n);
}

/* a *= v; returns -1 on overflow.  Touches only the limbs in use (the
 * numbers are a few limbs long; the array is sized for the worst case). */
static int bn_mul(bn *a, unsigned __int128 v)
{
    uint32_t b[4];
    int nb = 0;
    while (v) {
        b[nb++] = (uint32_t)v;
        v >>= 32;
    }
    if (a->n + nb > BN_LIMBS) return -1;
    uint32_t r[BN_LIMBS];
    int n = a->n + nb;
    memset(r, 0, sizeof(uint32_t) * (size_t)n);
    for (int i = 0; i < a->n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < nb; j++) {
            uint64_t t = (uint64_t)a->l[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        r[i + nb] = (uint32_t)carry;
    }
    while (n > 0 && r[n - 1] == 0) n--;
    memcpy(a->l, r, sizeof(uint32_t) * (size_t)n);
    a->n = n;
    return 0;
}

static int bn_add(bn *a, const bn *b)
{
    int n = a->n > b->n ? a->n : b->n;
    uint64_t carry = 0;
    for (int i = 0; i < n; i++) {
        uint64_t t = carry + (i < a->n ? a->l[i] : 0) + (i < b->n ? b->l[i] : 0);
        a->l[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) {
        if (n == BN_LIMBS) return -1;
        a->l[n++] = (uint32_t)carry;
    }
    a->n = n;
    return 0;
}

static int bn_cmp(const bn *a, const bn *b)
{
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->l[i] != b->l[i]) return a->l[i] < b->l[i] ? -1 : 1;
    return 0;
}

/* ---- weighted median ------------------------------------------------------ */

/* Design note 4: the capped cumulative weight of acc[0] uncapped volume and
 * acc[c] of capped class c against q = qn/qd: -1 short of it, 0 at it, 1
 * past it; 2 when the arithmetic overflows (L and t are scratch). */
static int weight_vs_q(const bn *P, const bn *Q, const bn *R, int k, int64_t sn, int64_t sd,
                       int qd, const int64_t *acc, bn *L, bn *t)
{
    int ovf = 0;
    bn_copy(L, P);
    ovf |= bn_mul(L, (unsigned __int128)(qd * (sd - (int64_t)k * sn)) * (unsigned __int128)acc[0]);
    for (int c = 1; c <= k; c++) {
        bn_copy(t, &Q[c]);
        ovf |= bn_mul(t, (unsigned __int128)(qd * sn) * (unsigned __int128)acc[c]);
        ovf |= bn_add(L, t);
    }
    return ovf ? 2 : bn_cmp(L, R);
}

gpi_status idx_weighted_median(idx_item *v, size_t n, int64_t cap_floor_e6, int64_t *raw_q,
                               gpi_diag *d)
{
    return idx_weighted_quantile(v, n, cap_floor_e6, 1, 2, raw_q, d);
}

gpi_status idx_weighted_quantile(idx_item *v, size_t n, int64_t cap_floor_e6, int qn, int qd,
                                 int64_t *raw_q, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    /* keep only the IDX_OK items, sorted by price */
    size_t m = 0;
    int32_t gmin = INT32_MAX, gmax = INT32_MIN;
    for (size_t i = 0; i < n; i++)
        if (v[i].reason == IDX_OK) {
            if (i != m) {
                idx_item t = v[m];
                v[m] = v[i];
                v[i] = t;
            }
            int32_t g = v[m].group;
            if (g < gmin) gmin = g;
            if (g > gmax && g != INT32_MAX) gmax = g; /* INT32_MAX: note 6 */
            m++;
        }
    if (m == 0) return gpi_diag_set(d, GPI_EMATH, "weighted median of no trades");
    idx_sort_items(v, m, IDX_BY_PRICE_GROUP); /* the searches of manip.c pass them sorted */
    /* providers: distinct groups */
    int32_t *gid = malloc(m * sizeof *gid);
    int64_t *vol = calloc(m, sizeof *vol);
    size_t *order = malloc(m * sizeof *order);
    int *cls = malloc(m * sizeof *cls);      /* class of provider: 0 or 1..k */
    int64_t *acc = NULL;
    bn *Q = NULL, *P = NULL, *R = NULL, *L = NULL, *t = NULL;
    if (!gid || !vol || !order || !cls) goto nomem;
    size_t np = 0;
    int32_t *pidx = malloc(m * sizeof *pidx); /* item -> provider index */
    /* providers numbered in order of first appearance, found through a
     * table of group -> number (note 6) */
    if (gmax < gmin) gmax = gmin; /* every group INT32_MAX */
    int direct = gmin >= 0 && (uint64_t)gmax - (uint64_t)gmin < 2 * (uint64_t)m + 64;
    size_t hs = 16;
    if (direct) hs = (size_t)(gmax - gmin) + 2; /* the last slot: INT32_MAX */
    else
        while (hs < 2 * m) hs *= 2;
    int32_t *slot = malloc(hs * sizeof *slot);
    if (!pidx || !slot) {
        free(pidx);
        free(slot);
        pidx = NULL;
        goto nomem;
    }
    for (size_t i = 0; i < hs; i++) slot[i] = -1;
    for (size_t i = 0; i < m; i++) {
        size_t at;
        if (direct) {
            at = v[i].group == INT32_MAX ? hs - 1 : (size_t)(v[i].group - gmin);
        } else {
            uint32_t h = (uint32_t)v[i].group * UINT32_C(2654435761);
            at = (size_t)(h ^ h >> 16) & (hs - 1);
            while (slot[at] >= 0 && gid[slot[at]] != v[i].group) at = (at + 1) & (hs - 1);
        }
        if (slot[at] < 0) {
            slot[at] = (int32_t)np;
            gid[np++] = v[i].group;
        }
        size_t p = (size_t)slot[at];
        vol[p] += v[i].qty_micro;
        pidx[i] = (int32_t)p;
    }
    free(slot);
    int64_t sn, sd;
    share_cap(np, cap_floor_e6, &sn, &sd);
    int k = waterfill_order(vol, np, sn, sd, order);
    for (size_t i = 0; i < np; i++) cls[order[i]] = (int)i < k ? (int)i + 1 : 0;
    int64_t U = 0;
    for (size_t i = (size_t)k; i < np; i++) U += vol[order[i]];
    if (U == 0) U = 1;
    acc = calloc((size_t)k + 1, sizeof *acc);
    Q = malloc(((size_t)k + 1) * sizeof *Q);
    P = malloc(sizeof *P);
    R = malloc(sizeof *R);
    L = malloc(sizeof *L);
    t = malloc(sizeof *t);
    if (!acc || !Q || !P || !R || !L || !t) {
        free(pidx);
        goto nomem;
    }
    /* P = prod V_j (capped);  Q_j = U * prod_{i != j} V_i;
     * L(x) = 2 (sd - k sn) A_0 P + 2 sn sum_j A_j Q_j;  R = sd U P. */
    bn_set(P, 1);
    int ovf = 0;
    for (int j = 0; j < k; j++) ovf |= bn_mul(P, (unsigned __int128)vol[order[j]]);
    for (int j = 0; j < k; j++) {
        bn_set(&Q[j + 1], (unsigned __int128)U);
        for (int i = 0; i < k; i++)
            if (i != j) ovf |= bn_mul(&Q[j + 1], (unsigned __int128)vol[order[i]]);
    }
    bn_copy(R, P);
    ovf |= bn_mul(R, (unsigned __int128)sd * (unsigned __int128)U * (unsigned __int128)qn);
    if (ovf) {
        free(pidx);
        rc = gpi_diag_set(d, GPI_EMATH, "weighted median: too many capped providers (%d)", k);
        goto done;
    }
    /* Design note 5: the weight reached at each price, in doubles, says
     * where to start comparing exactly (hint < 0: at the first price) */
    double *f = malloc(((size_t)k + 1) * sizeof *f), w = 0;
    int64_t *acc_prev = malloc(((size_t)k + 1) * sizeof *acc_prev);
    if (!f || !acc_prev) {
        free(f);
        free(acc_prev);
        free(pidx);
        goto nomem;
    }
    int hint = 1;
    for (size_t i = 0; i < m && hint; i++) hint = v[i].qty_micro >= 0; /* weights only add */
    f[0] = (double)(sd - (int64_t)k * sn) / ((double)sd * (double)U);
    for (int c = 1; c <= k; c++) f[c] = (double)sn / ((double)sd * (double)vol[order[c - 1]]);
    double reach = (double)qn / (double)qd * (1.0 - 1e-9);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        if (hint) memcpy(acc_prev, acc, ((size_t)k + 1) * sizeof *acc);
        while (j < m && v[j].price_micro == v[i].price_micro) {
            int c = cls[pidx[j]];
            acc[c] += v[j].qty_micro;
            if (hint) w += f[c] * (double)v[j].qty_micro;
            j++;
        }
        if (hint) {
            if (w < reach && j < m) { /* short of q by the hint */
                i = j;
                continue;
            }
            hint = 0;
            /* the price before must be short of q exactly; else the hint
             * was late: compare at every price from the first */
            if (i > 0 && weight_vs_q(P, Q, R, k, sn, sd, qd, acc_prev, L, t) != -1) {
                memset(acc, 0, ((size_t)k + 1) * sizeof *acc);
                i = 0;
                continue;
            }
        }
        int c = weight_vs_q(P, Q, R, k, sn, sd, qd, acc, L, t);
        if (c == 2) {
            rc = gpi_diag_set(d, GPI_EMATH, "weighted median: overflow");
            break;
        }
        if (c > 0 || (c == 0 && j == m)) {
            *raw_q = 4 * v[i].price_micro;
            break;
        }
        if (c == 0) { /* exactly q: mean with the next higher distinct price */
            *raw_q = 2 * (v[i].price_micro + v[j].price_micro);
            break;
        }
        i = j;
    }
    free(f);
    free(acc_prev);
    free(pidx);
    goto done;
nomem:
    rc = gpi_diag_set(d, GPI_ENOMEM, "weighted median: out of memory");
done:
    free(gid);
    free(vol);
    free(order);
    free(cls);
    free(acc);
    free(Q);
    free(P);
    free(R);
    free(L);
    free(t);
    return rc;
}

/* ---- offers, adjustment, rounding, spread --------------------------------- */

size_t idx_median_of_medians(const idx_item *v, size_t n, double *work, int64_t *raw_q)
{
    double *med = work + n; /* provider medians in half-micro */
    size_t np = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i, m = 0;
        while (j < n && v[j].group == v[i].group) {
            if (v[j].reason == IDX_OK) work[m++] = (double)v[j].price_micro;
            j++;
        }
        if (m > 0) med[np++] = 2.0 * gsl_stats_median_from_sorted_data(work, 1, m);
        i = j;
    }
    *raw_q = 0;
    if (np == 0) return 0;
    /* sort the provider medians (insertion: few providers) */
    for (size_t i = 1; i < np; i++) {
        double x = med[i];
        size_t j = i;
        while (j > 0 && med[j - 1] > x) {
            med[j] = med[j - 1];
            j--;
        }
        med[j] = x;
    }
    *raw_q = (int64_t)(2.0 * gsl_stats_median_from_sorted_data(med, 1, np));
    return np;
}

typedef struct ratio {
    int64_t t, o;
} ratio;

static int cmp_ratio(const void *a, const void *b)
{
    const ratio *x = a, *y = b;
    __int128 l = (__int128)x->t * y->o, r = (__int128)y->t * x->o;
    return (l > r) - (l < r);
}

int64_t idx_adjustment_e6(const int64_t *t_q, const int64_t *o_q, size_t n, int min_days)
{
    if (n < (size_t)min_days || n == 0) return 1000000;
    ratio r[400];
    if (n > 400) n = 400;
    for (size_t i = 0; i < n; i++) r[i] = (ratio){t_q[i], o_q[i]};
    qsort(r, n, sizeof r[0], cmp_ratio);
    if (n % 2) return gpi_div_round((__int128)r[n / 2].t * 1000000, r[n / 2].o);
    const ratio *a = &r[n / 2 - 1], *b = &r[n / 2];
    __int128 num = ((__int128)a->t * b->o + (__int128)b->t * a->o) * 1000000;
    __int128 den = (__int128)2 * a->o * b->o;
    return gpi_div_round(num, den);
}

int64_t idx_value_e4(int64_t raw_q, int64_t adj_e6, int64_t step_e4)
{
    /* USD = raw_q / 4e6 * adj_e6 / 1e6; units of step = USD * 1e4 / step */
    __int128 num = (__int128)raw_q * adj_e6;
    __int128 den = (__int128)400000000 * step_e4; /* 4e6 * 1e6 / 1e4 = 4e8 */
    return gpi_div_round(num, den) * step_e4;
}

/* Sorts x[0..m) ascending by merging its ascending runs (bottom-up,
 * tmp: m doubles).  The items come sorted by price within each provider
 * group, so there are as many runs as groups and log2(groups) passes:
 * several times faster than a general sort of the day. */
static void sort_runs(double *x, size_t m, double *tmp)
{
    for (;;) {
        size_t runs = 0, out = 0;
        for (size_t a = 0; a < m;) {
            size_t b = a + 1;
            while (b < m && x[b - 1] <= x[b]) b++;
            size_t c = b;
            if (b < m) {
                c = b + 1;
                while (c < m && x[c - 1] <= x[c]) c++;
            }
            size_t i = a, j = b; /* merge [a,b) and [b,c) into tmp */
            while (i < b && j < c) tmp[out++] = x[j] < x[i] ? x[j++] : x[i++];
            while (i < b) tmp[out++] = x[i++];
            while (j < c) tmp[out++] = x[j++];
            runs++;
            a = c;
        }
        memcpy(x, tmp, m * sizeof *x);
        if (runs <= 1) return;
    }
}

void idx_spread(const idx_item *v, size_t n, double *work, int64_t out[7])
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].reason == IDX_OK) work[m++] = (double)v[i].price_micro;
    for (int i = 0; i < 7; i++) out[i] = -1;
    if (m == 0) return;
    for (size_t i = 1; i < m; i++) /* sort only when not already ascending */
        if (work[i] < work[i - 1]) {
            sort_runs(work, m, work + m);
            break;
        }
    static const double q[5] = {0.10, 0.25, 0.50, 0.75, 0.90};
    for (int i = 0; i < 5; i++) {
        double x = i == 2 ? gsl_stats_median_from_sorted_data(work, 1, m)
                          : gsl_stats_quantile_from_sorted_data(work, 1, m, q[i]);
        out[i] = gpi_double_to_units(x, 0);
    }
    out[5] = (int64_t)work[0];
    out[6] = (int64_t)work[m - 1];
}
