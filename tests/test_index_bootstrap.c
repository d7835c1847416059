/* tests/test_index_bootstrap.c -- the bootstrap interval and confidence
 * flag (index/bootstrap.c; METHODOLOGY.md §12.2).
 *
 * Exact cases by hand (a resample of k groups draws one group k times with
 * probability 1/k^(k-1) per group; at 1/27 > 2.5 % for three groups and
 * 1/4 for two, the interval is then the extreme groups' statistic):
 *   - two groups of medians 1.00 and 3.00: [1.0000, 3.0000];
 *   - three trading groups at 2.00 (1,000 GPU-hours), 3.00 and 4.00 (10
 *     each), capped: [2.0000, 4.0000];
 *   - one group: no interval;
 *   - a ratio (v2): S(now)/S(ref) x chain: groups whose relatives are all
 *     1.1 and 1.0 give the chain x 1.1 exactly;
 * properties: every price x 1.1 gives the interval x 1.1 (exact decimals);
 * the same seed the same interval, the seed of a grade-day as
 * METHODOLOGY.md defines it (computed with Python's hashlib); imputed
 * groups counted; the flag's rule on published rows; and the weighted
 * statistic's one-pass resamples equal the method's exact median on
 * random markets with ties.
 */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>

#include "index/bootstrap.h"

/* groups[g] items (price_micro, qty_micro) laid out by group */
static idx_boot_out run(int stat, const int64_t (*items)[3], size_t n, size_t ngroups,
                        uint64_t seed, int64_t mul, int64_t div)
{
    idx_item *v = calloc(n, sizeof *v);
    idx_boot_group *g = calloc(ngroups, sizeof *g);
    for (size_t i = 0; i < n; i++) {
        size_t gi = (size_t)items[i][0];
        v[i] = (idx_item){items[i][1], items[i][2], i, 0, (int32_t)gi, IDX_OK};
        if (g[gi].n == 0) g[gi].first = i;
        g[gi].n++;
    }
    idx_boot_in in = {stat, v, NULL, g, ngroups, 300000, mul, div, 1, seed};
    idx_boot_out out;
    gpi_diag d = {{0}};
    assert_int_equal(idx_boot_run(&in, &out, &d), GPI_OK);
    free(v);
    free(g);
    return out;
}

#define Q 400000000 /* quarter-micro -> 0.0001 */

static void test_exact_cases(void **state)
{
    (void)state;
    static const int64_t two[][3] = {{0, 900000, 1}, {0, 1000000, 1}, {0, 1100000, 1},
                                     {1, 3000000, 1}};
    idx_boot_out o = run(IDX_BOOT_MEDIANS, two, 4, 2, 7, 1000000, Q);
    assert_int_equal(o.lo_e4, 10000);
    assert_int_equal(o.hi_e4, 30000);
    assert_int_equal(o.groups, 2);
    static const int64_t trades[][3] = {{0, 2000000, 1000000000}, {1, 3000000, 10000000},
                                        {2, 4000000, 10000000}};
    o = run(IDX_BOOT_WEIGHTED, trades, 3, 3, 11, 1000000, Q);
    assert_int_equal(o.lo_e4, 20000);
    assert_int_equal(o.hi_e4, 40000);
    static const int64_t one[][3] = {{0, 2000000, 1}, {0, 2500000, 1}};
    o = run(IDX_BOOT_MEDIANS, one, 2, 1, 7, 1000000, Q);
    assert_int_equal(o.lo_e4, -1);
    assert_int_equal(o.hi_e4, -1);
}

static void test_ratio(void **state)
{
    (void)state;
    /* relatives (1e-12): every group 1.1 now, 1.0 on the reference day */
    idx_item now[4], ref[4];
    idx_boot_group g[4];
    for (int i = 0; i < 4; i++) {
        now[i] = (idx_item){1100000000000, 1, (uint64_t)i, 0, i, IDX_OK};
        ref[i] = (idx_item){1000000000000, 1, (uint64_t)i, 0, i, IDX_OK};
        g[i] = (idx_boot_group){(size_t)i, 1, (size_t)i, 1, i == 3};
    }
    /* chain 2.345678901 (nano) x 1.1 = 2.5802467911 -> 2.5802 */
    idx_boot_in in = {IDX_BOOT_MEDIANS, now, ref, g, 4, 300000, 2345678901, 100000, 1, 5};
    idx_boot_out o;
    gpi_diag d = {{0}};
    assert_int_equal(idx_boot_run(&in, &o, &d), GPI_OK);
    assert_int_equal(o.lo_e4, 25802);
    assert_int_equal(o.hi_e4, 25802);
    assert_int_equal(o.imputed, 1);
}

/* every price x 1.1: the interval x 1.1 (prices in cents, odd counts: the
 * medians are prices, x 1.1 exact at 4 decimals) */
static void test_scale_property(void **state)
{
    (void)state;
    int64_t a[9][3], b[9][3];
    static const int64_t cents[9] = {210, 190, 250, 330, 170, 290, 205, 310, 260};
    for (int i = 0; i < 9; i++) {
        a[i][0] = b[i][0] = i / 1; /* nine groups of one */
        a[i][1] = cents[i] * 10000;
        b[i][1] = cents[i] * 11000;
        a[i][2] = b[i][2] = 1;
    }
    for (uint64_t seed = 1; seed < 6; seed++) {
        idx_boot_out x = run(IDX_BOOT_MEDIANS, (const int64_t(*)[3])a, 9, 9, seed, 1000000, Q);
        idx_boot_out y = run(IDX_BOOT_MEDIANS, (const int64_t(*)[3])b, 9, 9, seed, 1000000, Q);
        assert_true(x.lo_e4 < x.hi_e4);
        assert_int_equal(y.lo_e4 * 10, x.lo_e4 * 11);
        assert_int_equal(y.hi_e4 * 10, x.hi_e4 * 11);
        idx_boot_out z = run(IDX_BOOT_MEDIANS, (const int64_t(*)[3])a, 9, 9, seed, 1000000, Q);
        assert_int_equal(z.lo_e4, x.lo_e4); /* the same seed, the same draws */
        assert_int_equal(z.hi_e4, x.hi_e4);
    }
}

static void test_seed(void **state)
{
    (void)state;
    int32_t day;
    gpi_date_parse("2025-02-05", &day);
    /* python3: hashlib.sha256(b'gpuidx bootstrap 1\0H100-SXM.OD\0'
     * b'2025-02-05').hexdigest()[:16] */
    assert_true(idx_boot_seed("H100-SXM.OD", day) == UINT64_C(0xc057d87f87deac5b));
}

/* The flag of published rows (numbers as their text, as read back). */
static void test_flag(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(idx_grades_parse("{\"grades\":[{\"id\":\"G\",\"gpu\":[\"H100-SXM-80GB\"]}]}",
                                      "g.json", NULL, 0, &gs, &d),
                     GPI_OK);
    idx_boot_line l[5];
    static const char *const grp[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        l[i] = (idx_boot_line){GPI_OFFER, grp[i], 2000000 + 1000 * i, -1, 1, -1, -1, -1, 0};
    static const struct {
        const char *row;
        int64_t stale;
        int flag;
        const char *why;
    } cases[] = {
        {"{\"grade\":\"G\",\"methodology\":\"v1\",\"level\":\"carried\",\"value\":\"2.0000\","
         "\"adjustment\":null}",
         -1, IDX_CONF_WITHHELD, "carried: no fix of the day's own inputs"},
        {"{\"grade\":\"G\",\"methodology\":\"v1\",\"level\":\"offers\",\"value\":\"2.0020\","
         "\"adjustment\":\"1.000000\"}",
         0, IDX_CONF_NORMAL, "5 provider groups"},
        {"{\"grade\":\"G\",\"methodology\":\"v1\",\"level\":\"offers\",\"value\":\"2.0020\","
         "\"adjustment\":\"1.000000\"}",
         500000, IDX_CONF_LOW, "half or more of the groups' prices unchanged for 30 days"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_t *row = json_loads(cases[k].row, 0, NULL);
        idx_boot_result b;
        int32_t day;
        gpi_date_parse("2025-02-05", &day);
        assert_int_equal(idx_boot_row(row, &gs->g[0], l, 5, day, cases[k].stale, &b, &d), GPI_OK);
        assert_int_equal(b.flag, cases[k].flag);
        assert_string_equal(b.why, cases[k].why);
        if (cases[k].flag != IDX_CONF_WITHHELD) {
            /* 2.000 .. 2.004 one each: within 5 % */
            assert_true(b.iv.lo_e4 >= 20000 && b.iv.hi_e4 <= 20040 && b.iv.lo_e4 < b.iv.hi_e4);
        }
        json_decref(row);
    }
    /* a methodology v3 row: the lines of three imputed members (imputed 1)
     * count their groups as imputed -- half or more: low */
    for (int i = 0; i < 3; i++) l[i].imputed = 1;
    json_t *row = json_loads("{\"grade\":\"G\",\"methodology\":\"v3\",\"level\":\"offers\","
                             "\"value\":\"2.0020\",\"adjustment\":\"1.000000\"}",
                             0, NULL);
    idx_boot_result b;
    int32_t day;
    gpi_date_parse("2025-02-05", &day);
    assert_int_equal(idx_boot_row(row, &gs->g[0], l, 5, day, 0, &b, &d), GPI_OK);
    assert_int_equal(b.iv.groups, 5);
    assert_int_equal(b.iv.imputed, 3);
    assert_int_equal(b.flag, IDX_CONF_LOW);
    assert_string_equal(b.why, "half or more of the groups imputed");
    json_decref(row);
    idx_grades_free(gs);
}

/* The weighted pass against the method itself: random trading markets
 * (few distinct prices, so exact halves and ties happen), each resample
 * drawn again here and fixed with idx_weighted_median on copies of the
 * drawn groups' trades; the interval must be the same to the digit. */
static uint64_t mix64(uint64_t *st)
{
    uint64_t z = (*st += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_weighted_pass_is_exact(void **state)
{
    (void)state;
    uint64_t rnd = 42;
    for (int market = 0; market < 40; market++) {
        size_t k = 2 + (size_t)(mix64(&rnd) % 9), n = 0;
        idx_item v[200];
        idx_boot_group g[12];
        for (size_t gi = 0; gi < k; gi++) {
            size_t m = 1 + (size_t)(mix64(&rnd) % 12);
            g[gi] = (idx_boot_group){n, m, 0, 0, 0};
            for (size_t j = 0; j < m; j++, n++) {
                /* prices on a coarse grid, volumes of a few sizes: ties */
                int64_t price = 2000000 + 10000 * (int64_t)(mix64(&rnd) % 6);
                int64_t qty = 1000000 * (int64_t)(1 + mix64(&rnd) % 4) * (market % 3 ? 1 : 100);
                v[n] = (idx_item){price, qty, n, 0, (int32_t)gi, IDX_OK};
            }
        }
        uint64_t seed = mix64(&rnd);
        idx_boot_in in = {IDX_BOOT_WEIGHTED, v, NULL, g, k, 300000, 1000000, Q, 1, seed};
        idx_boot_out o;
        gpi_diag d = {{0}};
        assert_int_equal(idx_boot_run(&in, &o, &d), GPI_OK);
        /* again, resample by resample, with the method's exact median */
        int64_t vals[IDX_BOOT_RESAMPLES];
        uint64_t st = seed;
        for (int b = 0; b < IDX_BOOT_RESAMPLES; b++) {
            idx_item buf[2400];
            size_t m = 0;
            for (size_t i = 0; i < k; i++) {
                size_t gi = (size_t)(((unsigned __int128)mix64(&st) * k) >> 64);
                for (size_t j = 0; j < g[gi].n; j++) {
                    buf[m] = v[g[gi].first + j];
                    buf[m].group = (int32_t)i;
                    buf[m].key_hash = m;
                    m++;
                }
            }
            int64_t q;
            assert_int_equal(idx_weighted_median(buf, m, 300000, &q, &d), GPI_OK);
            vals[b] = q; /* quarter-micro; / 400 = 0.0001, half-up */
            vals[b] = (vals[b] + 200) / 400;
        }
        qsort(vals, IDX_BOOT_RESAMPLES, sizeof vals[0], cmp64);
        if (o.lo_e4 != vals[IDX_BOOT_LO] || o.hi_e4 != vals[IDX_BOOT_HI])
            fail_msg("market %d (%zu groups): the pass gives [%lld, %lld], the method [%lld, %lld]",
                     market, k, (long long)o.lo_e4, (long long)o.hi_e4,
                     (long long)vals[IDX_BOOT_LO], (long long)vals[IDX_BOOT_HI]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_cases),    cmocka_unit_test(test_ratio),
        cmocka_unit_test(test_scale_property), cmocka_unit_test(test_seed),
        cmocka_unit_test(test_flag),           cmocka_unit_test(test_weighted_pass_is_exact),
    };
    return cmocka_run_group_tests_name("index_bootstrap", tests, NULL, NULL);
}
