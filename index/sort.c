/* index/sort.c -- the fix's sorts of idx_item arrays.
 *
 * NOTES ON THE DESIGN
 * (1) A year's build sorts each grade-day's items several times: by group
 *     and price for the screen, by price for the weighted median and the
 *     manipulation measures.  With qsort those sorts were about 30 % of
 *     the fixing thread (the bench year: ~1.2 s of ~4 s): glibc sorts
 *     elements larger than 32 bytes through an array of pointers (a cache
 *     miss per comparison) and calls the comparator through a pointer.
 * (2) So each order is a merge sort of its own with the comparison
 *     inlined: ascending runs as they come (each extended to IDX_SORT_RUN
 *     items by insertion), merged pairwise, pass after pass, between the
 *     array and a scratch copy; input already in order costs one pass of
 *     comparisons (the searches of manip.c copy sorted items).  Merge sort is
 *     stable, as glibc's qsort is (it merge-sorts whenever it can
 *     allocate), so items that compare equal keep their order and every
 *     sort gives the order qsort gave.  The orders by group and by price
 *     and group are total on a day's items anyway (a key and time are one
 *     observation); the order by price alone is not, and keeps the input
 *     order of equal prices.
 * (3) Without memory for the scratch copy the sort falls back to qsort
 *     with the same comparison: the same order for the total orders; for
 *     the price-only order (manip_hint.c's, confirmed exactly) ties may
 *     then come in another order.
 * (4) The screen's order is by group first, and groups are interned small
 *     integers: the items are first put in group order by counting
 *     (stable), then each group's are sorted -- shorter sorts than one of
 *     the whole day (an array with a group outside [0, 4n] -- negative, or
 *     a late interned id in a small array -- takes the plain sort).
 */
#include "index/method.h"

#include <stdlib.h>
#include <string.h>

enum { IDX_SORT_RUN = 16 };

/* The orders, as "a before b" (strictly) tests. */
static inline int before_group_price(const idx_item *a, const idx_item *b)
{
    if (a->group != b->group) return a->group < b->group;
    if (a->price_micro != b->price_micro) return a->price_micro < b->price_micro;
    if (a->key_hash != b->key_hash) return a->key_hash < b->key_hash;
    return a->observed_at < b->observed_at;
}

static inline int before_price_group(const idx_item *a, const idx_item *b)
{
    if (a->price_micro != b->price_micro) return a->price_micro < b->price_micro;
    if (a->group != b->group) return a->group < b->group;
    return a->key_hash < b->key_hash;
}

static inline int before_price(const idx_item *a, const idx_item *b)
{
    return a->price_micro < b->price_micro;
}

/* The three orders get their own functions from the two macros below, so
 * that each sort's comparisons are inlined (a comparison through a
 * pointer was most of qsort's cost, note 1); one element type, so no
 * generic template beyond this. */

/* qsort's comparisons of the same orders (note 3). */
#define CMP_OF(before)                                                                           \
    static int cmp_##before(const void *a, const void *b)                                        \
    {                                                                                            \
        return before(a, b) ? -1 : before(b, a) ? 1 : 0;                                         \
    }
CMP_OF(before_group_price)
CMP_OF(before_price_group)
CMP_OF(before_price)

/* Note 2: a stable merge sort of v[0..n) by `before`, through tmp[n] and
 * the run bounds at[n / IDX_SORT_RUN + 2]: ascending runs as they come
 * (the fix's weighted median gets each group's items already in price
 * order), each extended to IDX_SORT_RUN items by insertion, then merged
 * pairwise, pass after pass, between v and tmp. */
#define MERGE_SORT_OF(before)                                                                    \
    static int sorted_##before(const idx_item *v, size_t n)                                      \
    {                                                                                            \
        for (size_t i = 1; i < n; i++)                                                           \
            if (before(&v[i], &v[i - 1])) return 0;                                              \
        return 1;                                                                                \
    }                                                                                            \
    static void sort_##before(idx_item *v, size_t n, idx_item *tmp, size_t *at)                  \
    {                                                                                            \
        size_t runs = 0;                                                                         \
        for (size_t lo = 0; lo < n;) {                                                           \
            size_t hi = lo + 1;                                                                  \
            while (hi < n && !before(&v[hi], &v[hi - 1])) hi++;                                  \
            size_t want = lo + IDX_SORT_RUN < n ? lo + IDX_SORT_RUN : n;                         \
            for (; hi < want; hi++) {                                                            \
                idx_item x = v[hi];                                                              \
                size_t j = hi;                                                                   \
                while (j > lo && before(&x, &v[j - 1])) {                                        \
                    v[j] = v[j - 1];                                                             \
                    j--;                                                                         \
                }                                                                                \
                v[j] = x;                                                                        \
            }                                                                                    \
            at[runs++] = lo;                                                                     \
            lo = hi;                                                                             \
        }                                                                                        \
        at[runs] = n;                                                                            \
        idx_item *src = v, *dst = tmp;                                                           \
        while (runs > 1) {                                                                       \
            size_t r = 0, out = 0;                                                               \
            for (; r + 1 < runs; r += 2) {                                                       \
                size_t lo = at[r], mid = at[r + 1], hi = at[r + 2], i = lo, j = mid, k = lo;     \
                if (!before(&src[mid], &src[mid - 1])) {                                         \
                    memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);                         \
                } else {                                                                         \
                    while (i < mid && j < hi)                                                    \
                        dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++];               \
                    if (i < mid) memcpy(dst + k, src + i, (mid - i) * sizeof *src);              \
                    if (j < hi) memcpy(dst + k, src + j, (hi - j) * sizeof *src);                \
                }                                                                                \
                at[out++] = lo;                                                                  \
            }                                                                                    \
            if (r < runs) { /* an odd run out: carried over as it is */                          \
                memcpy(dst + at[r], src + at[r], (n - at[r]) * sizeof *src);                     \
                at[out++] = at[r];                                                               \
            }                                                                                    \
            at[out] = n;                                                                         \
            runs = out;                                                                          \
            idx_item *t = src;                                                                   \
            src = dst;                                                                           \
            dst = t;                                                                             \
        }                                                                                        \
        if (src != v) memcpy(v, src, n * sizeof *v);                                             \
    }
MERGE_SORT_OF(before_group_price)
MERGE_SORT_OF(before_price_group)
MERGE_SORT_OF(before_price)

/* Note 4: v by group first, stably, counting (groups are interned small
 * integers); 0 when the groups are not all in [0, 4n] (nothing moved). */
static int bucket_by_group(idx_item *v, size_t n, idx_item *tmp, size_t *count)
{
    int32_t max = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].group < 0 || (size_t)v[i].group > 4 * n) return 0;
        if (v[i].group > max) max = v[i].group;
    }
    memset(count, 0, ((size_t)max + 2) * sizeof *count);
    for (size_t i = 0; i < n; i++) count[v[i].group + 1]++;
    for (int32_t g = 0; g <= max; g++) count[g + 1] += count[g];
    for (size_t i = 0; i < n; i++) tmp[count[v[i].group]++] = v[i];
    memcpy(v, tmp, n * sizeof *v);
    return 1;
}

void idx_sort_items(idx_item *v, size_t n, idx_order order)
{
    if (n < 2) return;
    /* the searches of manip.c copy items the fix left sorted */
    if (order == IDX_BY_GROUP_PRICE   ? sorted_before_group_price(v, n)
        : order == IDX_BY_PRICE_GROUP ? sorted_before_price_group(v, n)
                                      : sorted_before_price(v, n))
        return;
    idx_item *tmp = malloc(n * sizeof *tmp);
    /* the run bounds (note 2), or the group counts (note 4) */
    size_t *at = malloc((order == IDX_BY_GROUP_PRICE ? 4 * n + 2 : n / IDX_SORT_RUN + 2) *
                        sizeof *at);
    if (!tmp || !at) { /* note 3 */
        free(tmp);
        free(at);
        qsort(v, n, sizeof *v,
              order == IDX_BY_GROUP_PRICE   ? cmp_before_group_price
              : order == IDX_BY_PRICE_GROUP ? cmp_before_price_group
                                            : cmp_before_price);
        return;
    }
    if (order == IDX_BY_GROUP_PRICE && bucket_by_group(v, n, tmp, at)) {
        for (size_t i = 0; i < n;) { /* note 4: each group by price, key, time */
            size_t j = i + 1;
            while (j < n && v[j].group == v[i].group) j++;
            sort_before_group_price(v + i, j - i, tmp, at);
            i = j;
        }
    } else if (order == IDX_BY_GROUP_PRICE) {
        sort_before_group_price(v, n, tmp, at);
    } else if (order == IDX_BY_PRICE_GROUP) {
        sort_before_price_group(v, n, tmp, at);
    } else {
        sort_before_price(v, n, tmp, at);
    }
    free(tmp);
    free(at);
}
