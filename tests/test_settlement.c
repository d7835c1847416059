/* tests/test_settlement.c -- settlement/: contract files, settlement prices,
 * positions and the margin ledger.
 *
 * Expected prices were computed independently with /usr/bin/python3 and
 * fractions.Fraction from the SPEC §8 formulas (listing from the first day
 * of the month before delivery; in the delivery month (sum P + R*L)/(k+R)
 * with R the calendar days of the month after d; half-up to the tick); the
 * script's results are the literals below.  The worked example is
 * hedge-and-settlement.md §6F: 20 published days of March 2025 (the 21
 * business days less the 11th, 2025-03-17), FSP 2.3645 -> 2.365, a short
 * of 740 at 2.450 makes +$62,900.  (The reference's own daily list divides
 * by 20 business days; SPEC §8 uses calendar days, hence different dailies.)
 */
#include "tests/testutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settlement/settlement.h"

/* ---- helpers ------------------------------------------------------------- */

static settle_contract contract(const char *sym, int y, int m, int64_t size, int64_t tick_mant,
                                int tick_scale, int min_days)
{
    settle_contract c;
    memset(&c, 0, sizeof c);
    snprintf(c.symbol, sizeof c.symbol, "%s", sym);
    snprintf(c.grade, sizeof c.grade, "H100-SXM.OD.GOLD+");
    c.year = y;
    c.month = m;
    c.size_gpu_hours = size;
    c.tick.mant = tick_mant;
    c.tick.scale = tick_scale;
    int64_t p = 1;
    for (int i = 0; i < tick_scale; i++) p *= 10;
    c.tick_cents = size * tick_mant * 100 / p;
    c.min_published_days = min_days;
    return c;
}

static int32_t day_of(int y, int m, int d) { return gpi_days_from_civil(y, m, d); }

/* Days [from, to] all built and suspended. */
static store_index_day *suspended_days(int32_t from, int32_t to, size_t *n)
{
    *n = (size_t)(to - from + 1);
    store_index_day *v = calloc(*n, sizeof *v);
    for (size_t i = 0; i < *n; i++) {
        v[i].day = from + (int32_t)i;
        v[i].level = GPI_LEVEL_SUSPENDED;
        v[i].value_e4 = -1;
    }
    return v;
}

static void set_value(store_index_day *v, size_t n, int32_t day, int64_t e4)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].day == day) {
            v[i].level = GPI_LEVEL_TRADES;
            v[i].value_e4 = e4;
            return;
        }
    fail_msg("day %d not in series", (int)day);
}

/* The §6F month: Feb 2025 suspended except 2025-02-28 = 2.418; March 2025
 * business days but the 17th carry the 20 reference values. */
static const int wx_mday[20] = {3, 4, 5, 6, 7, 10, 11, 12, 13, 14,
                                18, 19, 20, 21, 24, 25, 26, 27, 28, 31};
static const int64_t wx_e4[20] = {24120, 24050, 23980, 24010, 23900, 23860, 23790,
                                  23830, 23710, 23660, 23590, 23520, 23480, 23550,
                                  23410, 23370, 23300, 23340, 23260, 23170};
/* Daily settlement prices 2025-02-28, 2025-03-01 .. 2025-03-31 (tick 0.001). */
static const int64_t wx_daily[32] = {
    2418, 2418, 2418, 2412, 2405, 2399, 2401, 2392, 2392, 2392, 2389,
    2383, 2386, 2378, 2375, 2375, 2375, 2376, 2372, 2368, 2366, 2369,
    2370, 2370, 2365, 2364, 2362, 2363, 2361, 2363, 2365, 2365};
/* Short 740 entered at 2.450: variation margin per row, cents (dailies,
 * then the final row). */
static const int64_t wx_vm[33] = {
    2368000, 0,       0,      444000, 518000,  444000, -148000, 666000, 0,
    0,       222000,  444000, -222000, 592000, 222000, 0,       0,      -74000,
    296000,  296000,  148000, -222000, -74000, 0,      370000,  74000,  148000,
    -74000,  148000,  -148000, -148000, 0,     0};

static store_index_day *worked_series(size_t *n)
{
    store_index_day *v = suspended_days(day_of(2025, 2, 1), day_of(2025, 3, 31), n);
    set_value(v, *n, day_of(2025, 2, 28), 24180);
    for (int i = 0; i < 20; i++) set_value(v, *n, day_of(2025, 3, wx_mday[i]), wx_e4[i]);
    return v;
}

/* Deterministic pattern shared with the Python reference:
 * value_e4 = 20000 + (n*7919) % 997 + (n % 31)*3 for day number n,
 * suspended when n % 7 == 3 and on 2025-06-13 .. 2025-06-30. */
static store_index_day *pattern_series(int32_t from, int32_t to, size_t *n)
{
    store_index_day *v = suspended_days(from, to, n);
    for (size_t i = 0; i < *n; i++) {
        int32_t t = v[i].day;
        if (t % 7 == 3) continue;
        if (t >= day_of(2025, 6, 13) && t <= day_of(2025, 6, 30)) continue;
        v[i].level = GPI_LEVEL_OFFERS;
        v[i].value_e4 = 20000 + ((int64_t)t * 7919) % 997 + (t % 31) * 3;
    }
    return v;
}

/* ---- settlement prices ------------------------------------------------- */

static void test_settle_worked_example(void **state)
{
    (void)state;
    size_t n;
    store_index_day *v = worked_series(&n);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 15);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    /* no row before the first value (2025-02-01 .. 02-27) */
    assert_int_equal(r.n, 33);
    for (size_t i = 0; i < 32; i++) {
        assert_int_equal(r.rows[i].day, day_of(2025, 2, 28) + (int32_t)i);
        assert_int_equal(r.rows[i].kind, SETTLE_DAILY);
        if (r.rows[i].price_units != wx_daily[i])
            fail_msg("daily row %zu: got %lld want %lld", i, (long long)r.rows[i].price_units,
                     (long long)wx_daily[i]);
    }
    assert_int_equal(r.rows[32].day, day_of(2025, 3, 31));
    assert_int_equal(r.rows[32].kind, SETTLE_FINAL);
    assert_int_equal(r.rows[32].price_units, 2365); /* 2.3645 half-up, not 2.364 */
    assert_int_equal(r.values_in_month, 20);
    assert_true(r.complete);
    assert_false(r.insufficient);
    char buf[32];
    assert_string_equal(gpi_fixed_format(r.rows[32].price_units, c.tick.scale, buf), "2.365");
    settle_result_free(&r);
    free(v);
}

static void test_settle_worked_example_short_740(void **state)
{
    (void)state;
    size_t n;
    store_index_day *v = worked_series(&n);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 15);
    assert_int_equal(c.tick_cents, 100);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    settle_position p = {"hedger", 0, -740, 1, 2450, 2};
    settle_ledger_row *rows;
    size_t nr;
    int64_t entry;
    assert_int_equal(settle_ledger(&c, &r, &p, &rows, &nr, &entry, &d), GPI_OK);
    assert_int_equal(entry, 2450);
    assert_int_equal(nr, 33);
    int64_t sum = 0;
    for (size_t i = 0; i < nr; i++) {
        if (rows[i].variation_cents != wx_vm[i])
            fail_msg("row %zu: got %lld want %lld", i, (long long)rows[i].variation_cents,
                     (long long)wx_vm[i]);
        sum += rows[i].variation_cents;
    }
    assert_int_equal(rows[32].kind, SETTLE_FINAL);
    assert_int_equal(rows[32].price_units, 2365);
    assert_int_equal(sum, 6290000); /* +$62,900 = 740 x 1000 x (2.450 - 2.365) */
    assert_int_equal(sum, -740 * 1000 * (2365 - 2450) / 10);
    free(rows);
    settle_result_free(&r);
    free(v);
}

static void test_settle_insufficient_month(void **state)
{
    (void)state;
    size_t n;
    store_index_day *v = worked_series(&n);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 21);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.n, 33);
    assert_int_equal(r.rows[32].kind, SETTLE_INSUFFICIENT);
    assert_int_equal(r.rows[32].day, day_of(2025, 3, 31));
    assert_true(r.insufficient);
    assert_int_equal(r.values_in_month, 20);
    /* the position stays open: no final row, it ends at the last daily */
    settle_position p = {"acct", 0, 10, 0, 0, 2};
    settle_ledger_row *rows;
    size_t nr;
    int64_t entry;
    assert_int_equal(settle_ledger(&c, &r, &p, &rows, &nr, &entry, &d), GPI_OK);
    assert_int_equal(entry, 2418); /* the first daily settlement price */
    assert_int_equal(nr, 32);
    int64_t sum = 0;
    for (size_t i = 0; i < nr; i++) {
        assert_int_equal(rows[i].kind, SETTLE_DAILY);
        sum += rows[i].variation_cents;
    }
    assert_int_equal(rows[0].variation_cents, 0);
    assert_int_equal(sum, 10 * 1000 * (2365 - 2418) / 10);
    free(rows);
    settle_result_free(&r);
    free(v);
}

static void test_settle_zero_net_book(void **state)
{
    (void)state;
    size_t n;
    store_index_day *v = worked_series(&n);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 15);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    /* one trade at a common entry: +300 + 440 against -740 */
    const settle_position book[] = {
        {"a", 0, 300, 1, 2450, 2}, {"b", 0, 440, 1, 2450, 3}, {"c", 0, -740, 1, 2450, 4}};
    settle_ledger_row *rows[3];
    size_t nr[3];
    int64_t entry;
    for (int j = 0; j < 3; j++)
        assert_int_equal(settle_ledger(&c, &r, &book[j], &rows[j], &nr[j], &entry, &d), GPI_OK);
    for (size_t i = 0; i < nr[0]; i++) {
        int64_t day_sum = 0;
        for (int j = 0; j < 3; j++) day_sum += rows[j][i].variation_cents;
        if (day_sum != 0) fail_msg("row %zu sums to %lld", i, (long long)day_sum);
    }
    for (int j = 0; j < 3; j++) {
        int64_t sum = 0;
        for (size_t i = 0; i < nr[j]; i++) sum += rows[j][i].variation_cents;
        assert_int_equal(sum, book[j].contracts * 1000 * (2365 - 2450) / 10);
        free(rows[j]);
    }
    settle_result_free(&r);
    free(v);
}

static void test_settle_leap_february(void **state)
{
    (void)state;
    /* 29 days in R; the final row is dated 2024-02-29 */
    static const int64_t want[60] = {
        20426, 20372, 20318, 20264, 20210, 20156, 20156, 20048, 20991, 20937, 20883, 20829,
        20775, 20775, 20667, 20613, 20559, 20505, 20451, 20397, 20397, 20289, 20235, 20181,
        20034, 20977, 20923, 20923, 20815, 20761, 20707, 20653, 20601, 20551, 20551, 20454,
        20408, 20364, 20321, 20281, 20242, 20245, 20173, 20767, 20735, 20705, 20677, 20651,
        20646, 20600, 20579, 20560, 20544, 20529, 20517, 20521, 20489, 20482, 20478, 20476};
    size_t n;
    store_index_day *v = pattern_series(day_of(2024, 1, 1), day_of(2024, 2, 29), &n);
    settle_contract c = contract("GPUA-2402", 2024, 2, 1000, 1, 4, 15);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.n, 61);
    for (size_t i = 0; i < 60; i++) {
        assert_int_equal(r.rows[i].day, day_of(2024, 1, 1) + (int32_t)i);
        if (r.rows[i].price_units != want[i])
            fail_msg("row %zu: got %lld want %lld", i, (long long)r.rows[i].price_units,
                     (long long)want[i]);
    }
    assert_int_equal(r.rows[60].kind, SETTLE_FINAL);
    assert_int_equal(r.rows[60].day, day_of(2024, 2, 29));
    assert_int_equal(r.rows[60].price_units, 20476);
    assert_int_equal(r.values_in_month, 25);
    settle_result_free(&r);
    free(v);
}

static void test_settle_strip_of_twelve(void **state)
{
    (void)state;
    /* 2025 strip at tick 0.0005 over 2024-12-01 .. 2025-12-31; June has
     * only 10 values (13th-30th suspended): insufficient.  Per month:
     * rows (dailies), values, FSP (e4, -1 insufficient), 15th daily (e4). */
    static const struct {
        int month;
        size_t ndaily;
        int k;
        int64_t fsp, daily15;
    } want[12] = {{1, 61, 27, 20550, 20445}, {2, 59, 24, 20505, 20725},
                  {3, 59, 26, 20600, 20950}, {4, 61, 26, 20560, 20345},
                  {5, 61, 27, 20535, 20570}, {6, 61, 10, -1, 20850},
                  {7, 61, 27, 20585, 20245}, {8, 62, 26, 20555, 20360},
                  {9, 61, 26, 20515, 20590}, {10, 61, 27, 20535, 20815},
                  {11, 61, 25, 20600, 20100}, {12, 61, 27, 20550, 20325}};
    size_t n;
    store_index_day *v = pattern_series(day_of(2024, 12, 1), day_of(2025, 12, 31), &n);
    for (int i = 0; i < 12; i++) {
        char sym[16];
        snprintf(sym, sizeof sym, "GPUH-25%02d", want[i].month);
        settle_contract c = contract(sym, 2025, want[i].month, 1000, 5, 4, 15);
        settle_result r;
        gpi_diag d = {""};
        assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
        if (r.n != want[i].ndaily + 1) fail_msg("%s: %zu rows", sym, r.n);
        assert_int_equal(r.values_in_month, want[i].k);
        assert_int_equal(r.rows[14].price_units, want[i].daily15);
        const settle_price *last = &r.rows[r.n - 1];
        assert_int_equal(last->day, settle_last_day(&c));
        if (want[i].fsp < 0) {
            assert_int_equal(last->kind, SETTLE_INSUFFICIENT);
        } else {
            assert_int_equal(last->kind, SETTLE_FINAL);
            assert_int_equal(last->price_units, want[i].fsp);
        }
        for (size_t j = 0; j + 1 < r.n; j++) assert_int_equal(r.rows[j].price_units % 5, 0);
        settle_result_free(&r);
    }
    free(v);
}

static void test_settle_through_and_missing_days(void **state)
{
    (void)state;
    size_t n;
    store_index_day *v = worked_series(&n);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 15);
    settle_result r;
    gpi_diag d = {""};
    /* through the 10th: dailies 02-28 .. 03-10, no final row */
    assert_int_equal(settle_run(&c, v, n, day_of(2025, 3, 10), &r, &d), GPI_OK);
    assert_int_equal(r.n, 11);
    assert_int_equal(r.rows[10].day, day_of(2025, 3, 10));
    assert_int_equal(r.rows[10].price_units, 2389);
    assert_false(r.complete);
    settle_result_free(&r);
    /* through a day before the listing: no rows */
    assert_int_equal(settle_run(&c, v, n, day_of(2025, 1, 31), &r, &d), GPI_OK);
    assert_int_equal(r.n, 0);
    settle_result_free(&r);
    /* a gap on 2025-03-12: an error naming it, unless --through stops before */
    store_index_day *gap = malloc(n * sizeof *gap);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].day != day_of(2025, 3, 12)) gap[ng++] = v[i];
    assert_int_equal(settle_run(&c, gap, ng, INT32_MAX, &r, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "GPUH-2503: grade H100-SXM.OD.GOLD+ has no index row for"
                               " 2025-03-12 (the day was never built; build it, or settle"
                               " --through an earlier day)");
    assert_null(r.rows);
    assert_int_equal(settle_run(&c, gap, ng, day_of(2025, 3, 11), &r, &d), GPI_OK);
    assert_int_equal(r.n, 12);
    settle_result_free(&r);
    /* an absurd value (over 10^6 USD) is refused, not overflowed */
    v[40].value_e4 = 10000000001LL;
    v[40].level = GPI_LEVEL_TRADES;
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "GPUH-2503: grade H100-SXM.OD.GOLD+: value on 2025-03-13 out of range");
    v[40].value_e4 = 23710; /* restore 2025-03-13 */
    /* the listing day itself missing */
    assert_int_equal(settle_run(&c, v + 1, n - 1, INT32_MAX, &r, &d), GPI_EINPUT);
    assert_non_null(strstr(d.msg, "no index row for 2025-02-01 "));
    free(gap);
    free(v);
}

static void test_settle_latest_value_before_listing(void **state)
{
    (void)state;
    /* a value from before the listing is the L of the first rows */
    size_t n;
    store_index_day *v = suspended_days(day_of(2025, 1, 20), day_of(2025, 3, 31), &n);
    set_value(v, n, day_of(2025, 1, 20), 21234);  /* 2.1234 */
    set_value(v, n, day_of(2025, 3, 2), 22000);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 1);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.n, 28 + 31 + 1);
    assert_int_equal(r.rows[0].day, day_of(2025, 2, 1));
    assert_int_equal(r.rows[0].price_units, 2123);  /* 2.1234 -> 2.123 */
    assert_int_equal(r.rows[28].price_units, 2123); /* 03-01: k = 0, R = 30 */
    assert_int_equal(r.rows[29].price_units, 2200); /* 03-02: (2.2 + 29 x 2.2) / 30 */
    assert_int_equal(r.rows[59].price_units, 2200); /* FSP of the one value */
    assert_int_equal(r.rows[59].kind, SETTLE_FINAL);
    settle_result_free(&r);
    /* no value at all: no rows but the insufficient one */
    for (size_t i = 0; i < n; i++) v[i].level = GPI_LEVEL_SUSPENDED;
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.rows[0].kind, SETTLE_INSUFFICIENT);
    settle_result_free(&r);
    free(v);
}

static void test_settle_month_without_value(void **state)
{
    (void)state;
    /* a value in February only, March all suspended: every daily price is
     * that L (on 03-31 k = 0 and R = 0, so L, not 0/0), then insufficient */
    size_t n;
    store_index_day *v = suspended_days(day_of(2025, 2, 1), day_of(2025, 3, 31), &n);
    set_value(v, n, day_of(2025, 2, 10), 21237); /* 2.1237 -> 2.124 */
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 1);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.n, 19 + 31 + 1);
    for (size_t i = 0; i + 1 < r.n; i++) {
        assert_int_equal(r.rows[i].kind, SETTLE_DAILY);
        assert_int_equal(r.rows[i].price_units, 2124);
    }
    assert_int_equal(r.rows[r.n - 2].day, day_of(2025, 3, 31));
    assert_int_equal(r.rows[r.n - 1].kind, SETTLE_INSUFFICIENT);
    assert_int_equal(r.values_in_month, 0);
    settle_result_free(&r);
    free(v);
}

static void test_settle_ledger_overflow_refused(void **state)
{
    (void)state;
    /* 10^9 contracts of 10^9 GPU-hours at a 1 USD tick (10^11 cents a
     * tick): a one-tick move is 10^20 cents, beyond int64: GPI_EMATH, not a
     * wrapped amount */
    size_t n;
    store_index_day *v = suspended_days(day_of(2025, 2, 1), day_of(2025, 3, 31), &n);
    set_value(v, n, day_of(2025, 2, 1), 20000);
    settle_contract c = contract("BIG", 2025, 3, 1000000000, 1, 0, 1);
    assert_int_equal(c.tick_cents, 100000000000LL);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.rows[0].price_units, 2);
    settle_position p = {"whale", 0, 1000000000, 1, 1, 2};
    settle_ledger_row *rows = NULL;
    size_t nr = 0;
    int64_t entry;
    assert_int_equal(settle_ledger(&c, &r, &p, &rows, &nr, &entry, &d), GPI_EMATH);
    assert_string_equal(d.msg, "BIG: account whale: margin amount too large");
    assert_null(rows);
    /* 10^7 contracts: 10^18 cents, still exact */
    p.contracts = 10000000;
    assert_int_equal(settle_ledger(&c, &r, &p, &rows, &nr, &entry, &d), GPI_OK);
    assert_int_equal(rows[0].variation_cents, 1000000000000000000LL);
    free(rows);
    settle_result_free(&r);
    free(v);
}

static void test_settle_round_value_half_up(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t mant;
        int scale;
        int64_t sum_e4, count, want;
    } cases[] = {
        {"midpoint up at 0.001", 1, 3, 23645, 1, 2365},
        {"below midpoint", 1, 3, 23644, 1, 2364},
        {"mean 47.29/20", 1, 3, 472900, 20, 2365},
        {"tick 0.0025", 25, 4, 23645, 1, 23650},      /* 945.8 ticks -> 946 */
        {"tick 0.0025 down", 25, 4, 23612, 1, 23600}, /* 944.48 -> 944 */
        {"tick 0.05 midpoint", 5, 2, 23750, 1, 240},  /* 47.5 ticks -> 48 */
        {"tick 0.0001 thirds", 1, 4, 70001, 3, 23334},/* 2.33336.. */
        {"whole dollar tick", 1, 0, 25000, 1, 3},     /* 2.5 -> 3 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        settle_contract c = contract("X", 2025, 1, 1000, cases[i].mant, cases[i].scale, 15);
        int64_t got = settle_round_value(&c, cases[i].sum_e4, cases[i].count);
        if (got != cases[i].want)
            fail_msg("%s: got %lld want %lld", cases[i].name, (long long)got,
                     (long long)cases[i].want);
    }
}

static void test_settle_price_parse_table(void **state)
{
    (void)state;
    settle_contract c = contract("X", 2025, 1, 1000, 1, 3, 15);
    static const struct {
        const char *in, *why;
        int64_t want;
    } cases[] = {
        {"2.450", NULL, 2450}, {"2.45", NULL, 2450},    {"2.4500", NULL, 2450},
        {"3", NULL, 3000},     {"2.4505", "not a whole number of ticks", 0},
        {"0", "must be greater than 0", 0},             {"-1", "must be greater than 0", 0},
        {"abc", "not a number", 0},                     {"", "empty", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t u = -1;
        const char *why = settle_price_parse(&c, cases[i].in, &u);
        if (cases[i].why) {
            if (!why || strcmp(why, cases[i].why) != 0)
                fail_msg("%s: got reason %s", cases[i].in, why ? why : "(none)");
        } else {
            if (why) fail_msg("%s: unexpected %s", cases[i].in, why);
            assert_int_equal(u, cases[i].want);
        }
    }
    settle_contract q = contract("Q", 2025, 1, 1000, 25, 4, 15);
    int64_t u;
    assert_null(settle_price_parse(&q, "2.4525", &u));
    assert_int_equal(u, 24525);
    assert_string_equal(settle_price_parse(&q, "2.451", &u), "not a whole number of ticks");
}

/* ---- contract and positions files ------------------------------------- */

static gpi_status known_grades(const char *grade, int *known, void *ud, gpi_diag *d)
{
    (void)ud;
    (void)d;
    *known = strcmp(grade, "H100-SXM.OD.GOLD+") == 0 || strcmp(grade, "A100-80GB.OD") == 0;
    return GPI_OK;
}

static void test_contracts_load_valid(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("settle-contracts");
    char *path = tu_write(dir, "c.json",
                          "{\"contracts\": [\n"
                          " {\"symbol\": \"GPUH-2502\", \"grade\": \"H100-SXM.OD.GOLD+\","
                          " \"month\": \"2025-02\"},\n"
                          " {\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD.GOLD+\","
                          " \"month\": \"2025-03\", \"size\": 1000, \"tick\": 0.001,"
                          " \"min_published_days\": 20},\n"
                          " {\"symbol\": \"A.B_C-1\", \"grade\": \"A100-80GB.OD\","
                          " \"month\": \"2024-02\", \"size\": 40, \"tick\": \"0.0025\"},\n"
                          " {\"symbol\": \"E4\", \"grade\": \"A100-80GB.OD\","
                          " \"month\": \"2024-12\", \"size\": 1, \"tick\": 5e-2},\n"
                          " {\"symbol\": \"W\", \"grade\": \"A100-80GB.OD\","
                          " \"month\": \"2024-12\", \"size\": 2, \"tick\": 1}\n"
                          "]}\n");
    settle_contract *cs;
    size_t n;
    gpi_diag d = {""};
    gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(n, 5);
    /* defaults: size 1000, tick 0.0001 ($0.10 a tick), 15 days */
    assert_string_equal(cs[0].symbol, "GPUH-2502");
    assert_int_equal(cs[0].year, 2025);
    assert_int_equal(cs[0].month, 2);
    assert_int_equal(cs[0].size_gpu_hours, 1000);
    assert_int_equal(cs[0].tick.mant, 1);
    assert_int_equal(cs[0].tick.scale, 4);
    assert_int_equal(cs[0].tick_cents, 10);
    assert_int_equal(cs[0].min_published_days, 15);
    assert_int_equal(cs[1].tick.mant, 1);
    assert_int_equal(cs[1].tick.scale, 3);
    assert_int_equal(cs[1].tick_cents, 100);
    assert_int_equal(cs[1].min_published_days, 20);
    assert_int_equal(cs[2].tick.mant, 25);
    assert_int_equal(cs[2].tick.scale, 4);
    assert_int_equal(cs[2].tick_cents, 10);  /* 40 x 0.0025 = $0.10 */
    assert_int_equal(cs[3].tick.mant, 5);
    assert_int_equal(cs[3].tick.scale, 2);
    assert_int_equal(cs[3].tick_cents, 5);
    assert_int_equal(cs[4].tick.scale, 0);
    assert_int_equal(cs[4].tick_cents, 200);
    assert_int_equal(settle_listing_day(&cs[2]), day_of(2024, 1, 1));
    assert_int_equal(settle_last_day(&cs[2]), day_of(2024, 2, 29));
    assert_int_equal(settle_listing_day(&cs[0]), day_of(2025, 1, 1));
    settle_contract jan = cs[0];
    jan.year = 2025;
    jan.month = 1;
    assert_int_equal(settle_listing_day(&jan), day_of(2024, 12, 1));
    free(cs);
    free(path);
    free(dir);
}

static void test_contracts_load_bom(void **state)
{
    (void)state;
    /* a UTF-8 byte-order mark (as some editors save JSON) is skipped, as
     * in positions and rent files; errors keep their line:column */
    char *dir = tu_mkdtemp("settle-contracts-bom");
    char *path = tu_write(dir, "c.json",
                          "\xef\xbb\xbf{\"contracts\": [{\"symbol\": \"GPUH-2502\","
                          " \"grade\": \"H100-SXM.OD.GOLD+\", \"month\": \"2025-02\"}]}\n");
    settle_contract *cs = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(n, 1);
    assert_string_equal(cs[0].symbol, "GPUH-2502");
    free(cs);
    free(path);
    path = tu_write(dir, "bad.json", "\xef\xbb\xbf{\"contracts\": x}");
    assert_int_equal(settle_contracts_load(path, known_grades, NULL, &cs, &n, &d), GPI_EINPUT);
    char want[4200];
    snprintf(want, sizeof want, "%s:1:15: invalid token near 'x'", path);
    assert_string_equal(d.msg, want);
    free(path);
    /* a directory is a read error that says so */
    assert_int_equal(settle_contracts_load(dir, known_grades, NULL, &cs, &n, &d), GPI_EIO);
    snprintf(want, sizeof want, "%s: cannot read: Is a directory", dir);
    assert_string_equal(d.msg, want);
    free(dir);
}

static void test_contracts_load_errors(void **state)
{
    (void)state;
#define C1(body) "{\"contracts\": [{\"symbol\": \"GPUH-2503\", \"grade\": \"H100-SXM.OD.GOLD+\"," body "}]}"
    static const struct {
        const char *name, *json, *msg;
    } cases[] = {
        {"unknown grade",
         "{\"contracts\": [{\"symbol\": \"GPUB-2503\", \"grade\": \"B200.OD\", \"month\": \"2025-03\"}]}",
         "contract 1 (GPUB-2503): grade: unknown grade (not built in the database) (got \"B200.OD\")"},
        {"bad month", C1("\"month\": \"2025-13\""),
         "contract 1 (GPUH-2503): month: no such month (got \"2025-13\")"},
        {"month not text", C1("\"month\": 202503"),
         "contract 1 (GPUH-2503): month: not a month YYYY-MM (got \"202503\")"},
        {"month format", C1("\"month\": \"2025-3\""),
         "contract 1 (GPUH-2503): month: not a month YYYY-MM (got \"2025-3\")"},
        {"missing month", C1("\"size\": 1000"), "contract 1 (GPUH-2503): month: missing"},
        {"tick zero", C1("\"month\": \"2025-03\", \"tick\": 0"),
         "contract 1 (GPUH-2503): tick: must be greater than 0 (got \"0\")"},
        {"tick negative", C1("\"month\": \"2025-03\", \"tick\": -0.001"),
         "contract 1 (GPUH-2503): tick: must be greater than 0 (got \"-0.001\")"},
        {"tick text", C1("\"month\": \"2025-03\", \"tick\": \"0.00a\""),
         "contract 1 (GPUH-2503): tick: not a number (got \"0.00a\")"},
        {"tick 16 digits", C1("\"month\": \"2025-03\", \"tick\": 0.1234567890123456"),
         "contract 1 (GPUH-2503): tick: more than 15 significant digits (write it as a string)"
         " (got \"0.1234567890123456\")"},
        {"tick huge", C1("\"month\": \"2025-03\", \"tick\": 1e300"),
         "contract 1 (GPUH-2503): tick: out of range (got \"1e+300\")"},
        {"tick tiny", C1("\"month\": \"2025-03\", \"tick\": 1e-30"),
         "contract 1 (GPUH-2503): tick: out of range (got \"1e-30\")"},
        {"tick over 1000", C1("\"month\": \"2025-03\", \"tick\": 1000.5"),
         "contract 1 (GPUH-2503): tick: must be at most 1000 (got \"1000.5\")"},
        {"year before 1900", C1("\"month\": \"1899-12\""),
         "contract 1 (GPUH-2503): month: year before 1900 (got \"1899-12\")"},
        {"size x tick", C1("\"month\": \"2025-03\", \"tick\": 0.000001"),
         "contract 1 (GPUH-2503): size x tick: not a whole number of cents (got 1000 x 0.000001 USD)"},
        {"size x tick small size", C1("\"month\": \"2025-03\", \"size\": 5, \"tick\": \"0.001\""),
         "contract 1 (GPUH-2503): size x tick: not a whole number of cents (got 5 x 0.001 USD)"},
        {"size zero", C1("\"month\": \"2025-03\", \"size\": 0"),
         "contract 1 (GPUH-2503): size: must be from 1 to 1000000000 GPU-hours (got \"0\")"},
        {"size fraction", C1("\"month\": \"2025-03\", \"size\": 1.5"),
         "contract 1 (GPUH-2503): size: not a whole number (got \"1.5\")"},
        {"min days zero", C1("\"month\": \"2025-03\", \"min_published_days\": 0"),
         "contract 1 (GPUH-2503): min_published_days: must be from 1 to 31 (got \"0\")"},
        {"lower-case symbol",
         "{\"contracts\": [{\"symbol\": \"gpuh-2503\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"gpuh-2503\")"},
        {"symbol starts with dash",
         "{\"contracts\": [{\"symbol\": \"-GPUH\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"-GPUH\")"},
        {"symbol 33 chars",
         "{\"contracts\": [{\"symbol\": \"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456\", \"grade\": \"A100-80GB.OD\","
         " \"month\": \"2025-03\"}]}",
         "contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456\")"},
        {"symbol with slash",
         "{\"contracts\": [{\"symbol\": \"A/B\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "contract 1: symbol: not a symbol [A-Z0-9][A-Z0-9._-]{0,31} (got \"A/B\")"},
        {"missing symbol", "{\"contracts\": [{\"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"}]}",
         "contract 1: symbol: missing"},
        {"unknown key", C1("\"month\": \"2025-03\", \"expiry\": \"2025-03-31\""),
         "contract 1 (GPUH-2503): unknown key \"expiry\" (expected symbol, grade, month, size,"
         " tick, min_published_days)"},
        {"second contract",
         "{\"contracts\": [{\"symbol\": \"A1\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"},"
         " {\"symbol\": \"A2\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-04\", \"tick\": -1}]}",
         "contract 2 (A2): tick: must be greater than 0 (got \"-1\")"},
        {"duplicate symbol",
         "{\"contracts\": [{\"symbol\": \"A1\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-03\"},"
         " {\"symbol\": \"A1\", \"grade\": \"A100-80GB.OD\", \"month\": \"2025-04\"}]}",
         "contract 2 (A1): symbol: duplicate (also contract 1)"},
        {"not an object", "{\"contracts\": [42]}", "contract 1: contract: not a JSON object (got \"42\")"},
        {"empty list", "{\"contracts\": []}", "contracts: empty list"},
        {"top-level key", "{\"contracts\": [], \"version\": 1}",
         "unknown key \"version\" (expected \"contracts\")"},
        {"no contracts", "[1, 2]", "not a contract file (want {\"contracts\": [...]})"},
        {"syntax", "{\"contracts\": [\n{\"symbol\": \"A\",,}]}", "2:16: string or '}' expected near ','"},
        {"duplicate key", C1("\"month\": \"2025-03\", \"month\": \"2025-04\""),
         "1:95: duplicate object key near '\"month\"'"},
    };
#undef C1
    char *dir = tu_mkdtemp("settle-bad-contracts");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = tu_write(dir, "c.json", cases[i].json);
        settle_contract *cs = NULL;
        size_t n = 0;
        gpi_diag d = {""};
        gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
        char want[600];
        const char *sep = isdigit((unsigned char)cases[i].msg[0]) ? ":" : ": ";
        snprintf(want, sizeof want, "%s%s%s", path, sep, cases[i].msg);
        if (st != GPI_EINPUT) fail_msg("%s: status %d (%s)", cases[i].name, st, d.msg);
        if (strcmp(d.msg, want) != 0)
            fail_msg("%s:\n got  %s\n want %s", cases[i].name, d.msg, want);
        assert_null(cs);
        assert_int_equal(n, 0);
        free(path);
    }
    settle_contract *cs;
    size_t n;
    gpi_diag d = {""};
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/none.json", dir);
    assert_int_equal(settle_contracts_load(missing, NULL, NULL, &cs, &n, &d), GPI_EIO);
    char want[4300];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", missing);
    assert_string_equal(d.msg, want);
    free(dir);
}

static void test_contracts_shipped_file(void **state)
{
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/data/contracts.json", tu_srcdir());
    settle_contract *cs;
    size_t n;
    gpi_diag d = {""};
    gpi_status st = settle_contracts_load(path, known_grades, NULL, &cs, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_true(n >= 11);
    /* a strip: the first eleven are consecutive months of one grade,
     * 2025-02 .. 2025-12, all listed inside a demo year from 2025-01-01 */
    assert_int_equal(settle_listing_day(&cs[0]), day_of(2025, 1, 1));
    assert_int_equal(settle_last_day(&cs[10]), day_of(2025, 12, 31));
    for (size_t i = 0; i < 11; i++) {
        assert_string_equal(cs[i].grade, cs[0].grade);
        assert_int_equal((cs[i].year * 12 + cs[i].month) - (cs[0].year * 12 + cs[0].month),
                         (int)i);
    }
    free(cs);
}

static settle_contract file_contracts[2];

static void setup_file_contracts(void)
{
    file_contracts[0] = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 15);
    file_contracts[1] = contract("GPUA-2503", 2025, 3, 100, 1, 4, 15);
}

static void test_positions_load_valid(void **state)
{
    (void)state;
    setup_file_contracts();
    char *dir = tu_mkdtemp("settle-pos");
    char *path = tu_write(dir, "p.csv",
                          "account,symbol,contracts,entry_price\r\n"
                          "hedger,GPUH-2503,-740,2.450\r\n"
                          "\"fund, inc\",GPUH-2503,740,\r\n"
                          "hedger,GPUA-2503,3\r\n"
                          "\r\n"
                          "mm,GPUA-2503,+12,2.1235");
    settle_position *p;
    size_t n;
    gpi_diag d = {""};
    gpi_status st = settle_positions_load(path, file_contracts, 2, &p, &n, &d);
    if (st != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(n, 4);
    assert_string_equal(p[0].account, "hedger");
    assert_int_equal(p[0].contract, 0);
    assert_int_equal(p[0].contracts, -740);
    assert_true(p[0].has_entry);
    assert_int_equal(p[0].entry_units, 2450);
    assert_int_equal(p[0].line, 2);
    assert_string_equal(p[1].account, "fund, inc");
    assert_false(p[1].has_entry);
    assert_int_equal(p[2].contract, 1);
    assert_int_equal(p[2].contracts, 3);
    assert_false(p[2].has_entry);
    assert_int_equal(p[3].contracts, 12);
    assert_int_equal(p[3].entry_units, 21235);
    assert_int_equal(p[3].line, 6);
    free(p);
    free(path);
    /* header without entry_price, after a UTF-8 byte-order mark */
    path = tu_write(dir, "p3.csv", "\xef\xbb\xbf" "account,symbol,contracts\nx,GPUH-2503,1\n");
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_OK);
    assert_int_equal(n, 1);
    free(p);
    free(path);
    free(dir);
}

static void test_positions_load_errors(void **state)
{
    (void)state;
    setup_file_contracts();
    static const struct {
        const char *name, *csv, *msg;
    } cases[] = {
        {"header", "acct,sym,n\nx,GPUH-2503,1\n",
         ":1: header: want account,symbol,contracts[,entry_price] (got \"acct,sym,n\")"},
        {"unknown symbol", "account,symbol,contracts\nx,GPUH-2503,1\ny,GPUH-9999,1\n",
         ":3: symbol: no such contract in the contract file (got \"GPUH-9999\")"},
        {"contracts text", "account,symbol,contracts\nx,GPUH-2503,ten\n",
         ":2: contracts: not a whole number (got \"ten\")"},
        {"contracts fraction", "account,symbol,contracts\nx,GPUH-2503,1.5\n",
         ":2: contracts: not a whole number (got \"1.5\")"},
        {"contracts zero", "account,symbol,contracts\nx,GPUH-2503,0\n",
         ":2: contracts: must not be 0 (got \"0\")"},
        {"contracts huge", "account,symbol,contracts\nx,GPUH-2503,2000000000\n",
         ":2: contracts: more than 1000000000 in absolute value (got \"2000000000\")"},
        {"entry off tick", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,2.4505\n",
         ":2: entry_price: not a whole number of ticks of 0.001 (got \"2.4505\")"},
        {"entry negative", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,-2.45\n",
         ":2: entry_price: must be greater than 0 (got \"-2.45\")"},
        {"entry text", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,2,45\n",
         ":2: row: want 4 fields, got 5"},
        {"empty account", "account,symbol,contracts\n,GPUH-2503,1\n",
         ":2: account: empty or has control characters (got \"\")"},
        {"duplicate", "account,symbol,contracts\nx,GPUH-2503,1\ny,GPUH-2503,1\nx,GPUH-2503,-1\n",
         ":4: account: duplicate position in GPUH-2503 (first at line 2) (got \"x\")"},
        {"account 65 chars",
         "account,symbol,contracts\nABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abc,GPUH-2503,1\n",
         ":2: account: longer than 64 (got \"ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abc\")"},
        {"entry too large", "account,symbol,contracts,entry_price\nx,GPUH-2503,1,10000000000000\n",
         ":2: entry_price: too large (got \"10000000000000\")"},
        {"too few fields", "account,symbol,contracts\nx,GPUH-2503\n",
         ":2: row: want 3 fields, got 2"},
        {"unterminated quote", "account,symbol,contracts\n\"x,GPUH-2503,1\n",
         ":2: row: unterminated quoted field"},
    };
    char *dir = tu_mkdtemp("settle-bad-pos");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = tu_write(dir, "p.csv", cases[i].csv);
        settle_position *p = NULL;
        size_t n = 0;
        gpi_diag d = {""};
        gpi_status st = settle_positions_load(path, file_contracts, 2, &p, &n, &d);
        char want[600];
        snprintf(want, sizeof want, "%s%s", path, cases[i].msg);
        if (st != GPI_EINPUT) fail_msg("%s: status %d (%s)", cases[i].name, st, d.msg);
        if (strcmp(d.msg, want) != 0)
            fail_msg("%s:\n got  %s\n want %s", cases[i].name, d.msg, want);
        assert_null(p);
        free(path);
    }
    char *path = tu_write(dir, "empty.csv", "");
    settle_position *p;
    size_t n;
    gpi_diag d = {""};
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    char want[600];
    snprintf(want, sizeof want, "%s: empty (want a header account,symbol,contracts[,entry_price])",
             path);
    assert_string_equal(d.msg, want);
    free(path);
    free(dir);
}

static void test_positions_load_many(void **state)
{
    (void)state;
    /* 60,000 positions: every account in both contracts (not duplicates),
     * then account a12345 again in GPUA-2503, which first appeared on line
     * 2 + 2 x 12345 + 1.  (The duplicate check was a scan of all earlier
     * rows: 100,000 positions took 20 s; it is a hash now.) */
    setup_file_contracts();
    char *dir = tu_mkdtemp("settle-pos-many");
    char path[4200];
    snprintf(path, sizeof path, "%s/many.csv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("account,symbol,contracts\n", f);
    for (int i = 0; i < 30000; i++) fprintf(f, "a%d,GPUH-2503,%d\na%d,GPUA-2503,-%d\n", i, i % 9 + 1, i, i % 5 + 1);
    fclose(f);
    settle_position *p = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_OK);
    assert_int_equal(n, 60000);
    assert_string_equal(p[59999].account, "a29999");
    assert_int_equal(p[59999].contract, 1);
    assert_int_equal(p[59999].contracts, -(29999 % 5 + 1));
    assert_int_equal(p[59999].line, 60001);
    free(p);
    f = fopen(path, "ab");
    assert_non_null(f);
    fputs("a12345,GPUA-2503,7\n", f);
    fclose(f);
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    char want[4400];
    snprintf(want, sizeof want,
             "%s:60002: account: duplicate position in GPUA-2503 (first at line 24693) (got \"a12345\")",
             path);
    assert_string_equal(d.msg, want);
    assert_null(p);
    free(dir);
}

static void test_positions_load_bounded(void **state)
{
    (void)state;
    /* A positions file is read in bounded pieces: a line over 1 MiB (an
     * endless stream without a newline would otherwise be buffered whole)
     * and a NUL byte are refused at their line. */
    setup_file_contracts();
    char *dir = tu_mkdtemp("settle-pos-bounded");
    char path[4200];
    snprintf(path, sizeof path, "%s/long.csv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("account,symbol,contracts\n", f);
    for (int i = 0; i < 3 * 1024 * 1024; i++) fputc('a', f);
    fputs(",GPUH-2503,1\n", f);
    fclose(f);
    settle_position *p = NULL;
    size_t n = 0;
    gpi_diag d = {""};
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    char want[4400];
    snprintf(want, sizeof want, "%s:2: row: longer than 1048576 bytes", path);
    assert_string_equal(d.msg, want);
    assert_null(p);

    snprintf(path, sizeof path, "%s/nul.csv", dir);
    static const char nul[] = "account,symbol,contracts\nx,GPUH-2503,1\ny,GPUH\0-2503,1\n";
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(nul, 1, sizeof nul - 1, f);
    fclose(f);
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_EINPUT);
    snprintf(want, sizeof want, "%s:3: row: contains a NUL byte", path);
    assert_string_equal(d.msg, want);

    /* CRLF, a BOM and a last line without a newline still read as before */
    snprintf(path, sizeof path, "%s/crlf.csv", dir);
    static const char crlf[] = "\xef\xbb\xbf" "account,symbol,contracts\r\nx,GPUH-2503,1\r\n"
                               "\"y,z\",GPUH-2503,-1";
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(crlf, 1, sizeof crlf - 1, f);
    fclose(f);
    assert_int_equal(settle_positions_load(path, file_contracts, 2, &p, &n, &d), GPI_OK);
    assert_int_equal(n, 2);
    assert_string_equal(p[1].account, "y,z");
    assert_int_equal(p[1].contracts, -1);
    assert_int_equal(p[1].line, 3);
    free(p);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settle_worked_example),
        cmocka_unit_test(test_settle_worked_example_short_740),
        cmocka_unit_test(test_settle_insufficient_month),
        cmocka_unit_test(test_settle_zero_net_book),
        cmocka_unit_test(test_settle_leap_february),
        cmocka_unit_test(test_settle_strip_of_twelve),
        cmocka_unit_test(test_settle_through_and_missing_days),
        cmocka_unit_test(test_settle_latest_value_before_listing),
        cmocka_unit_test(test_settle_month_without_value),
        cmocka_unit_test(test_settle_ledger_overflow_refused),
        cmocka_unit_test(test_settle_round_value_half_up),
        cmocka_unit_test(test_settle_price_parse_table),
        cmocka_unit_test(test_contracts_load_valid),
        cmocka_unit_test(test_contracts_load_errors),
        cmocka_unit_test(test_contracts_load_bom),
        cmocka_unit_test(test_contracts_shipped_file),
        cmocka_unit_test(test_positions_load_valid),
        cmocka_unit_test(test_positions_load_errors),
        cmocka_unit_test(test_positions_load_bounded),
        cmocka_unit_test(test_positions_load_many),
    };
    return cmocka_run_group_tests_name("settlement", tests, NULL, NULL);
}
