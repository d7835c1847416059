/* index/manip_hint.c -- the floating-point hint of manip.c's cost search
 * (manip.c notes 3 and 6): the raw trades value with a new participant,
 * approximately, fast.
 *
 * NOTES ON THE DESIGN
 * (1) Shares from water-filling in doubles (capped providers s, the others
 *     (1 - k s) v / U), each trade's weight its provider's share times its
 *     part of the provider's volume, the participant's weight at its end
 *     of the price order, the first price where the cumulative weight
 *     reaches half (within 1e-12: the mean with the next price).  The
 *     search confirms every answer exactly, so the hint decides only how
 *     many exact weighted medians a cost takes, never the cost.
 * (2) A search asks for some 20 volumes in each of four searches per
 *     grade-day, and adding the trades one by one up to the half was 12 %
 *     of the bench year's fixing thread.  Only the capped providers weigh
 *     differently from their volume (s / v_j per GPU-hour; every other
 *     provider rest / U), so the weight at the end of price level l is
 *       base + sum_capped (s / v_j) C_j(l) + (rest / U) (C(l) - sum_capped C_j(l))
 *     with C(l) the volume of the levels up to l and C_j(l) provider j's:
 *     C is summed once, C_j the first time j is capped, and the level is
 *     found by bisection -- it only grows with l.  idx_hint_raw_items
 *     keeps the one-by-one sum (the reference of tests/test_index_hint.c,
 *     and the fallback when a provider's sums cannot be allocated).
 * (3) A participant below every trade whose capped share is exactly a half
 *     sets the value at the mean of its price and the lowest trade's, as
 *     the exact median does (the hint used to answer its price alone and
 *     the search then bisected exactly).
 */
#include "index/manip.h"

#include <stdlib.h>
#include <string.h>

/* Note 1: the day's screened trades sorted by price once, and summed by
 * price level (note 2). */
struct idx_hint {
    size_t n, np;
    int64_t *price;             /* micro, ascending */
    double *w;                  /* item volume / its provider's volume */
    int32_t *prov;              /* provider index per item */
    double *vol;                /* per provider */
    size_t *desc;               /* providers by volume, descending */
    double *share;              /* scratch */
    double total;
    /* note 2: the price levels: last item, the volume up to its end */
    size_t nlev;
    size_t *lev_end;
    double *lev_cum;
    double **prov_cum;          /* per provider, its volume up to each level's
                                   end; NULL until the provider is capped */
    size_t *capped;             /* scratch: the capped providers of a step */
};

void idx_hint_free(idx_hint *f)
{
    if (!f) return;
    free(f->price);
    free(f->w);
    free(f->prov);
    free(f->vol);
    free(f->desc);
    free(f->share);
    free(f->lev_end);
    free(f->lev_cum);
    for (size_t j = 0; f->prov_cum && j < f->np; j++) free(f->prov_cum[j]);
    free(f->prov_cum);
    free(f->capped);
    free(f);
}

idx_hint *idx_hint_new(const idx_item *v, size_t nv, size_t n_groups)
{
    idx_hint *f = calloc(1, sizeof *f);
    idx_item *it = malloc((nv + 1) * sizeof *it);
    int32_t *pix = malloc((n_groups + 1) * sizeof *pix); /* group -> provider */
    if (!f || !it || !pix) goto fail;
    for (size_t i = 0; i <= n_groups; i++) pix[i] = -1;
    size_t n = 0, np = 0;
    for (size_t i = 0; i < nv; i++) {
        int32_t q = v[i].group;
        if (v[i].reason != IDX_OK || v[i].qty_micro <= 0) continue;
        if (q < 0 || (size_t)q >= n_groups) goto fail;
        if (pix[q] < 0) pix[q] = (int32_t)np++;
        it[n] = v[i];
        it[n++].group = pix[q];
    }
    free(pix);
    pix = NULL;
    f->n = n;
    f->np = np;
    f->price = malloc((n + 1) * sizeof *f->price);
    f->w = malloc((n + 1) * sizeof *f->w);
    f->prov = malloc((n + 1) * sizeof *f->prov);
    f->vol = calloc(np + 2, sizeof *f->vol);
    f->desc = malloc((np + 2) * sizeof *f->desc);
    f->share = malloc((np + 2) * sizeof *f->share);
    if (!f->price || !f->w || !f->prov || !f->vol || !f->desc || !f->share) goto fail;
    for (size_t i = 0; i < n; i++) f->vol[it[i].group] += (double)it[i].qty_micro;
    for (size_t j = 0; j < np; j++) f->total += f->vol[j];
    idx_sort_items(it, n, IDX_BY_PRICE);
    for (size_t i = 0; i < n; i++) {
        f->price[i] = it[i].price_micro;
        f->prov[i] = it[i].group;
        f->w[i] = (double)it[i].qty_micro / f->vol[it[i].group];
    }
    for (size_t j = 0; j < np; j++) { /* insertion: few providers */
        size_t k = j;
        while (k > 0 && f->vol[f->desc[k - 1]] < f->vol[j]) {
            f->desc[k] = f->desc[k - 1];
            k--;
        }
        f->desc[k] = j;
    }
    /* note 2: the price levels */
    f->lev_end = malloc((n + 1) * sizeof *f->lev_end);
    f->lev_cum = malloc((n + 1) * sizeof *f->lev_cum);
    f->prov_cum = calloc(np + 1, sizeof *f->prov_cum);
    f->capped = malloc((np + 1) * sizeof *f->capped);
    if (!f->lev_end || !f->lev_cum || !f->prov_cum || !f->capped) goto fail;
    double cum = 0;
    for (size_t i = 0; i < n; i++) {
        cum += (double)it[i].qty_micro;
        if (i + 1 < n && it[i + 1].price_micro == it[i].price_micro) continue;
        f->lev_end[f->nlev] = i;
        f->lev_cum[f->nlev++] = cum;
    }
    free(it);
    return f;
fail:
    free(it);
    free(pix);
    idx_hint_free(f);
    return NULL;
}

/* Note 2: the volume of provider j up to each level's end (made on its
 * first use); NULL when out of memory. */
static const double *prov_levels(idx_hint *f, size_t j)
{
    if (f->prov_cum[j]) return f->prov_cum[j];
    double *c = malloc((f->nlev + 1) * sizeof *c);
    if (!c) return NULL;
    double v = 0;
    for (size_t i = 0, l = 0; l < f->nlev; l++) {
        for (; i <= f->lev_end[l]; i++)
            if ((size_t)f->prov[i] == j) v += f->w[i] * f->vol[j];
        c[l] = v;
    }
    return f->prov_cum[j] = c;
}

/* Note 2: hint_raw's answer from the price levels: the first level whose
 * end brings the weight from `base` to a half, each capped provider j
 * (sh[j] >= 0) weighing s / vol_j per GPU-hour and every other provider
 * `per` (rest / U); 0 when a provider's levels cannot be had (the caller
 * then adds item by item). */
static int level_search(idx_hint *f, const double *sh, double s, double per, double base,
                        int64_t p, int64_t *out)
{
    size_t k = 0;
    for (size_t j = 0; j < f->np; j++)
        if (sh[j] >= 0) {
            if (!prov_levels(f, j)) return 0;
            f->capped[k++] = j;
        }
    size_t lo = 0, hi = f->nlev; /* the first level reaching a half, or nlev */
    double at_hi = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double capped = 0, cw = 0;
        for (size_t c = 0; c < k; c++) {
            double v = f->prov_cum[f->capped[c]][mid];
            capped += v;
            cw += s / f->vol[f->capped[c]] * v;
        }
        double cum = base + cw + per * (f->lev_cum[mid] - capped);
        if (cum >= 0.5 - 1e-12) {
            hi = mid;
            at_hi = cum;
        } else {
            lo = mid + 1;
        }
    }
    if (lo == f->nlev) {
        *out = 4 * p;
        return 1;
    }
    int64_t price = f->price[f->lev_end[lo]];
    if (at_hi > 0.5 + 1e-12) *out = 4 * price;
    else *out = 2 * (price + (lo + 1 < f->nlev ? f->price[f->lev_end[lo] + 1] : p));
    return 1;
}

/* idx_hint_raw (levels 1) and idx_hint_raw_items (levels 0). */
static int64_t hint_raw(idx_hint *f, int64_t cap_floor_e6, int64_t p, int below, double x,
                        int levels)
{
    size_t np = f->np;
    double s = (double)cap_floor_e6 / 1e6;
    if (s * (double)(np + 1) < 1.0) s = 1.0 / (double)(np + 1);
    /* water-filling over the providers by volume with the participant */
    double U = f->total + x, capped_share = 0;
    int p_capped = 0;
    size_t k = 0, j = 0;
    double *sh = f->share;
    for (size_t i = 0; i < np; i++) sh[i] = -1;
    for (;;) {
        int take_p = !p_capped && (j >= np || x >= f->vol[f->desc[j]]);
        double v = take_p ? x : j < np ? f->vol[f->desc[j]] : -1;
        if (v < 0 || v * (1.0 - (double)k * s) <= s * U) break;
        if (take_p) p_capped = 1;
        else sh[f->desc[j++]] = s;
        U -= v;
        k++;
        capped_share += s;
    }
    double rest = 1.0 - capped_share;
    double wp = p_capped ? s : U > 0 ? rest * x / U : 0;
    double cum = below ? wp : 0;
    if (cum >= 0.5 - 1e-12) /* the participant, below every trade, reaches a half */
        return cum > 0.5 + 1e-12 || f->n == 0 ? 4 * p : 2 * (p + f->price[0]);
    int64_t found;
    if (levels && level_search(f, sh, s, U > 0 ? rest / U : 0, cum, p, &found)) return found;
    for (size_t i = 0; i < f->n; i++) {
        int32_t q = f->prov[i];
        double share = sh[q] >= 0 ? sh[q] : U > 0 ? rest * f->vol[q] / U : 0;
        cum += share * f->w[i];
        if (i + 1 < f->n && f->price[i + 1] == f->price[i]) continue;
        if (cum >= 0.5 - 1e-12) {
            if (cum > 0.5 + 1e-12) return 4 * f->price[i];
            int64_t next = i + 1 < f->n ? f->price[i + 1] : p;
            return 2 * (f->price[i] + next);
        }
    }
    return 4 * p;
}

int64_t idx_hint_raw(idx_hint *h, int64_t cap_floor_e6, int64_t p, int below, double x)
{
    return hint_raw(h, cap_floor_e6, p, below, x, 1);
}

int64_t idx_hint_raw_items(idx_hint *h, int64_t cap_floor_e6, int64_t p, int below, double x)
{
    return hint_raw(h, cap_floor_e6, p, below, x, 0);
}
