/* tests/test_index_sort.c -- the fix's sorts (index/sort.c) against a
 * reference: qsort by the same order with the input position as the last
 * key, which is the stable order (what glibc's merge sort gives, and what
 * the fix computed its results with).
 *
 * Random arrays of 0 to 5,000 items in the shapes the fix sorts: items in
 * key order (a day's scan), groups already sorted by price (the weighted
 * median after the screen), sorted and reversed input, few distinct
 * prices and keys (many ties, so stability shows), groups beyond the
 * counting range and negative ones (the plain sort), and every order.
 */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>

#include "index/day.h"

#define MAXN 5000

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* The reference: the order's keys, then the input position (the item's
 * qty_micro holds it). */
static idx_order ref_order;

static int cmp_i64(int64_t x, int64_t y)
{
    return (x > y) - (x < y);
}

static int cmp_u64(uint64_t x, uint64_t y)
{
    return (x > y) - (x < y);
}

static int ref_cmp(const void *pa, const void *pb)
{
    const idx_item *a = pa, *b = pb;
    int c = 0;
    if (ref_order == IDX_BY_GROUP_PRICE) {
        c = cmp_i64(a->group, b->group);
        if (!c) c = cmp_i64(a->price_micro, b->price_micro);
        if (!c) c = cmp_u64(a->key_hash, b->key_hash);
        if (!c) c = cmp_i64(a->observed_at, b->observed_at);
    } else if (ref_order == IDX_BY_PRICE_GROUP) {
        c = cmp_i64(a->price_micro, b->price_micro);
        if (!c) c = cmp_i64(a->group, b->group);
        if (!c) c = cmp_u64(a->key_hash, b->key_hash);
    } else {
        c = cmp_i64(a->price_micro, b->price_micro);
    }
    return c ? c : cmp_i64(a->qty_micro, b->qty_micro);
}

enum { SHAPE_RANDOM, SHAPE_GROUP_RUNS, SHAPE_SORTED, SHAPE_REVERSED, SHAPE_WIDE_GROUPS,
       SHAPE__N };

/* n items of the given shape; qty_micro = the input position. */
static void make(idx_item *v, size_t n, int shape, uint64_t *seed)
{
    uint64_t prices = 1 + lcg(seed) % 40, groups = 1 + lcg(seed) % 30, keys = 2 + lcg(seed) % 500;
    for (size_t i = 0; i < n; i++) {
        idx_item *it = &v[i];
        memset(it, 0, sizeof *it);
        it->price_micro = 1000000 + (int64_t)(lcg(seed) % prices) * 10000;
        it->group = (int32_t)(lcg(seed) % groups);
        /* keys across the sign bit: the order compares them unsigned */
        it->key_hash = (lcg(seed) % keys) * 0x0F0F0F0F0F0F0F0FULL;
        it->observed_at = 1735689600 + (int64_t)(lcg(seed) % 3);
        it->reason = IDX_OK;
        if (shape == SHAPE_WIDE_GROUPS)
            it->group = lcg(seed) % 2 ? -(int32_t)(lcg(seed) % 5) - 1
                                      : (int32_t)(4 * n + 65 + lcg(seed) % 1000);
    }
    if (shape == SHAPE_GROUP_RUNS) { /* each group's items in price order, groups in turn */
        ref_order = IDX_BY_GROUP_PRICE;
        qsort(v, n, sizeof *v, ref_cmp);
    } else if (shape == SHAPE_SORTED || shape == SHAPE_REVERSED) {
        ref_order = (idx_order)(lcg(seed) % 3);
        qsort(v, n, sizeof *v, ref_cmp);
        for (size_t i = 0; shape == SHAPE_REVERSED && i < n / 2; i++) {
            idx_item t = v[i];
            v[i] = v[n - 1 - i];
            v[n - 1 - i] = t;
        }
    }
    for (size_t i = 0; i < n; i++) v[i].qty_micro = (int64_t)i;
}

static void test_idx_sort_items_is_the_stable_order(void **state)
{
    (void)state;
    idx_item *v = malloc(MAXN * sizeof *v), *want = malloc(MAXN * sizeof *want);
    assert_non_null(v);
    assert_non_null(want);
    uint64_t seed = 20261203;
    static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 33, 100, 1000, 4999};
    int cases = 0;
    for (int round = 0; round < 12; round++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int shape = 0; shape < SHAPE__N; shape++)
                for (int order = 0; order < 3; order++) {
                    size_t n = round < 6 ? sizes[k] : 1 + lcg(&seed) % MAXN;
                    make(v, n, shape, &seed);
                    memcpy(want, v, n * sizeof *v);
                    ref_order = (idx_order)order;
                    if (n) qsort(want, n, sizeof *want, ref_cmp);
                    idx_sort_items(v, n, (idx_order)order);
                    for (size_t i = 0; i < n; i++)
                        if (memcmp(&v[i], &want[i], sizeof v[i]) != 0)
                            fail_msg("n %zu, shape %d, order %d: item %zu is input %lld, want "
                                     "input %lld",
                                     n, shape, order, i, (long long)v[i].qty_micro,
                                     (long long)want[i].qty_micro);
                    cases++;
                }
    assert_int_equal(cases, 12 * 11 * SHAPE__N * 3);
    free(v);
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idx_sort_items_is_the_stable_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
