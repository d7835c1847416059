/* tests/test_index_hint.c -- the cost search's hint (index/manip_hint.c):
 * the raw trades value with a new participant, in doubles.
 *
 * On random trade days (1 to 2,000 trades of 1 to 15 providers, prices
 * from a few levels so that many trades share one, volumes over six
 * orders of magnitude, caps from 5 % to 50 %), for participants from one
 * micro-GPU-hour to far beyond every provider, above and below every
 * trade:
 *   - the hint by price levels (note 2) gives what adding the trades one
 *     by one gives (the hint before note 2);
 *   - both are the exact capped weighted median (index/method.c) of the
 *     trades with the participant's, ties at a weight of exactly a half
 *     included (the participant's own among them: note 3): the hint is
 *     right, so the search's exact confirmations find its answer.
 * Sums of doubles could round apart from the exact weight at a half; on
 * these days (a fixed seed) none does, so every answer must agree.
 * The participant's provider is a group no trade has.
 */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>

#include "index/manip.h"

#define MAXN 2000
#define P_HIGH INT64_C(1000000000000)
#define P_LOW INT64_C(1)

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void test_idx_hint_raw_is_the_weighted_median(void **state)
{
    (void)state;
    idx_item *v = malloc((MAXN + 1) * sizeof *v), *w = malloc((MAXN + 2) * sizeof *w);
    assert_non_null(v);
    assert_non_null(w);
    static const int64_t caps[] = {50000, 100000, 300000, 500000};
    uint64_t seed = 7;
    long asked = 0, apart = 0, wrong = 0, capped_steps = 0;
    for (int c = 0; c < 300; c++) {
        size_t n = 1 + lcg(&seed) % (c < 100 ? 20 : MAXN);
        int32_t np = 1 + (int32_t)(lcg(&seed) % 15);
        int levels = 1 + (int)(lcg(&seed) % 50);
        int64_t cap = caps[lcg(&seed) % 4];
        int64_t total = 0;
        for (size_t i = 0; i < n; i++) {
            memset(&v[i], 0, sizeof v[i]);
            v[i].group = (int32_t)(lcg(&seed) % (uint64_t)np) * 3; /* ids need not be dense */
            v[i].price_micro = 2000000 + (int64_t)(lcg(&seed) % (uint64_t)levels) * 1000;
            v[i].qty_micro = (int64_t)(1 + lcg(&seed) % 1000) * (int64_t)(1 + lcg(&seed) % 1000);
            v[i].key_hash = (uint64_t)i + 1;
            v[i].reason = IDX_OK;
            total += v[i].qty_micro;
        }
        idx_hint *h = idx_hint_new(v, n, 3 * (size_t)np);
        assert_non_null(h);
        for (int k = 0; k < 40; k++) {
            int below = k % 2;
            int64_t p = below ? P_LOW : P_HIGH;
            /* from one micro-GPU-hour to 10x the day's volume, log-uniform */
            int64_t x = 1 + (int64_t)((double)total * 10 *
                                      ((double)(lcg(&seed) % 1000000) / 1e6) *
                                      ((double)(lcg(&seed) % 1000000) / 1e6));
            int64_t fast = idx_hint_raw(h, cap, p, below, (double)x);
            int64_t items = idx_hint_raw_items(h, cap, p, below, (double)x);
            /* the exact value: the trades and the participant, sorted */
            size_t m = 0;
            if (below) w[m++] = (idx_item){p, x, 0, 0, INT32_MAX, IDX_OK};
            memcpy(w + m, v, n * sizeof *v);
            m += n;
            if (!below) w[m++] = (idx_item){p, x, 0, 0, INT32_MAX, IDX_OK};
            int64_t exact = -1;
            gpi_diag d = {{0}};
            assert_int_equal(idx_weighted_median(w, m, cap, &exact, &d), GPI_OK);
            asked++;
            if (fast != items) apart++;
            if (fast != exact) wrong++;
            if ((double)x * 1e6 > (double)cap * (double)(total + x)) capped_steps++;
        }
        idx_hint_free(h);
    }
    /* sums of doubles could round apart at a weight of exactly a half;
     * on these days none does */
    if (apart || wrong)
        fail_msg("%ld of %ld hints: %ld differ from the one-by-one sum, %ld from the exact "
                 "value",
                 asked, asked, apart, wrong);
    assert_true(capped_steps * 10 > asked); /* the participant was often capped */
    free(v);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idx_hint_raw_is_the_weighted_median),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
