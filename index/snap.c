/* index/snap.c -- a grade-day's constituents for methodology v2
 * (METHODOLOGY.md §10.2), and the small growable-array helper of the
 * index module's v2 files.
 *
 * A snapshot holds the constituents of one grade on one day, after v1's
 * eligibility rules and error screen (idx_day_fix must have run): each
 * screened offer (its store key, its provider group's hash, its price in
 * micro) and, per provider group with screened trades, the group's
 * representative price -- the volume-weighted median of its trades
 * (idx_weighted_median within one provider: no cap), quarter-micro -- and
 * its volume.  Offers are sorted by key, trade groups by group hash, so
 * two days' snapshots are matched by merging.  A snapshot owns its arrays
 * (idx_snap_free); the group names of trades point into the day buffer
 * and are valid until it is read again.
 */
#include "index/snap.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

uint64_t idx_group_hash(const char *group)
{
    if (!group) group = "";
    return gpi_fnv1a64(group, strlen(group), GPI_FNV_SEED);
}


static int cmp_const_key(const void *a, const void *b)
{
    const idx_const *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_item_group(const void *a, const void *b)
{
    const idx_item *x = a, *y = b;
    return (x->group > y->group) - (x->group < y->group);
}

void idx_snap_free(idx_snap *s)
{
    free(s->o);
    free(s->t);
    free(s->items);
    memset(s, 0, sizeof *s);
}

gpi_status idx_snap_build(idx_snap *s, idx_day *dy, size_t gi, int32_t day, gpi_diag *d)
{
    const idx_buf *ob = &dy->offers[gi], *tb = &dy->trades[gi];
    s->day = day;
    s->no = s->nt = 0;
    if (GPI_VEC_RESERVE(s->o, s->cap_o, ob->n + 1) || GPI_VEC_RESERVE(s->t, s->cap_t, tb->n + 1) ||
        GPI_VEC_RESERVE(s->items, s->cap_items, tb->n + 1))
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    for (size_t i = 0; i < ob->n; i++) {
        const idx_item *it = &ob->v[i];
        if (it->reason != IDX_OK) continue;
        s->o[s->no++] = (idx_const){it->key_hash, idx_group_hash(idx_day_group(dy, it->group)),
                                    it->price_micro, 0, NULL};
    }
    if (s->no > 1) qsort(s->o, s->no, sizeof *s->o, cmp_const_key);
    /* trades: one representative per group, from a copy (the weighted
     * median reorders its input) */
    size_t m = 0;
    for (size_t i = 0; i < tb->n; i++)
        if (tb->v[i].reason == IDX_OK && tb->v[i].qty_micro > 0) s->items[m++] = tb->v[i];
    if (m > 1) qsort(s->items, m, sizeof *s->items, cmp_item_group);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        int64_t vol = 0;
        while (j < m && s->items[j].group == s->items[i].group) vol += s->items[j++].qty_micro;
        int64_t rep = 0;
        uint64_t gh = idx_group_hash(idx_day_group(dy, s->items[i].group));
        gpi_status rc = idx_weighted_median(s->items + i, j - i, 1000000, &rep, d);
        if (rc != GPI_OK) return rc;
        s->t[s->nt++] = (idx_const){gh, gh, rep, vol, idx_day_group(dy, s->items[i].group)};
        i = j;
    }
    if (s->nt > 1) qsort(s->t, s->nt, sizeof *s->t, cmp_const_key);
    return GPI_OK;
}

gpi_status idx_snap_copy(idx_snap *dst, const idx_snap *src, gpi_diag *d)
{
    if (GPI_VEC_RESERVE(dst->o, dst->cap_o, src->no + 1) ||
        GPI_VEC_RESERVE(dst->t, dst->cap_t, src->nt + 1))
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    if (src->no) memcpy(dst->o, src->o, src->no * sizeof *src->o);
    if (src->nt) memcpy(dst->t, src->t, src->nt * sizeof *src->t);
    dst->no = src->no;
    dst->nt = src->nt;
    dst->day = src->day;
    return GPI_OK;
}

