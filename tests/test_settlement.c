/* tests/test_settlement.c -- settlement/: settlement prices and the margin
 * ledger (contract and positions files: tests/test_settlement_files.c;
 * business-day contracts: tests/test_settlement_business.c).
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settlement/settlement.h"
#include "tests/settlement_helpers.h"

/* ---- helpers ------------------------------------------------------------- */

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

/* Deterministic pattern shared with the Python reference:
 * value_e4 = 20000 + (n*7919) % 997 + (n % 31)*3 for day number n,
 * suspended when n % 7 == 3 and on 2025-06-13 .. 2025-06-30. */
static gpi_index_day *pattern_series(int32_t from, int32_t to, size_t *n)
{
    gpi_index_day *v = suspended_days(from, to, n);
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
    gpi_index_day *v = worked_series(&n);
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
    gpi_index_day *v = worked_series(&n);
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
    gpi_index_day *v = worked_series(&n);
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
    gpi_index_day *v = worked_series(&n);
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
    gpi_index_day *v = pattern_series(day_of(2024, 1, 1), day_of(2024, 2, 29), &n);
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
    gpi_index_day *v = pattern_series(day_of(2024, 12, 1), day_of(2025, 12, 31), &n);
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
    gpi_index_day *v = worked_series(&n);
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
    gpi_index_day *gap = malloc(n * sizeof *gap);
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
    gpi_index_day *v = suspended_days(day_of(2025, 1, 20), day_of(2025, 3, 31), &n);
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
    gpi_index_day *v = suspended_days(day_of(2025, 2, 1), day_of(2025, 3, 31), &n);
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
     * tick) on a price of 2000 USD (2000 ticks: the tick is fine enough):
     * a one-tick move is 10^20 cents, beyond int64: GPI_EMATH, not a
     * wrapped amount */
    size_t n;
    gpi_index_day *v = suspended_days(day_of(2025, 2, 1), day_of(2025, 3, 31), &n);
    set_value(v, n, day_of(2025, 2, 1), 20000000);
    settle_contract c = contract("BIG", 2025, 3, 1000000000, 1, 0, 1);
    assert_int_equal(c.tick_cents, 100000000000LL);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.rows[0].price_units, 2000);
    settle_position p = {"whale", 0, 1000000000, 1, 1999, 2};
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

/* A tick of 1000 made every price and margin 0 without a word (issue 12).
 * Every value settled on must be at least SETTLE_MIN_TICKS (100) ticks:
 * the error names the day, the value and, for a contract read from a
 * file, the file, the tick's line and the contract. */
static void test_settle_tick_too_coarse(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t mant;
        int scale;
        int64_t l_e4, v_e4; /* L on 2025-01-31 (-1: none), value of 2025-02-10 */
        const char *msg;    /* NULL: settles */
    } cases[] = {
        {"tick 1000", 1000, 0, -1, 24000,
         "GPUH-2503: tick: more than 1% of the value 2.4000 of H100-SXM.OD.GOLD+ on 2025-02-10, so "
         "prices would move in steps of over 1% (got \"1000\")"},
        {"exactly 1%", 24, 3, -1, 24000, NULL},
        {"just over 1%", 241, 4, -1, 24000,
         "GPUH-2503: tick: more than 1% of the value 2.4000 of H100-SXM.OD.GOLD+ on 2025-02-10, so "
         "prices would move in steps of over 1% (got \"0.0241\")"},
        {"L before the listing", 1, 2, 50, 24000,
         "GPUH-2503: tick: more than 1% of the value 0.0050 of H100-SXM.OD.GOLD+ on 2025-01-31, so "
         "prices would move in steps of over 1% (got \"0.01\")"},
        {"a value of 0 settles as 0", 1, 2, -1, 0, NULL},
        {"the default tick", 1, 4, -1, 24000, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        gpi_index_day *v = suspended_days(day_of(2025, 1, 31), day_of(2025, 3, 31), &n);
        if (cases[i].l_e4 >= 0) set_value(v, n, day_of(2025, 1, 31), cases[i].l_e4);
        set_value(v, n, day_of(2025, 2, 10), cases[i].v_e4);
        settle_contract c = contract("GPUH-2503", 2025, 3, 100000, cases[i].mant, cases[i].scale, 1);
        settle_result r;
        gpi_diag d = {""};
        gpi_status st = settle_run(&c, v, n, INT32_MAX, &r, &d);
        if (!cases[i].msg && st != GPI_OK) fail_msg("%s: %s", cases[i].name, d.msg);
        if (cases[i].msg && (st != GPI_EINPUT || strcmp(d.msg, cases[i].msg) != 0))
            fail_msg("%s: status %d\n got  %s\n want %s", cases[i].name, st, d.msg, cases[i].msg);
        if (st == GPI_OK) settle_result_free(&r);
        free(v);
    }
    /* read from a file: its line */
    size_t n;
    gpi_index_day *v = suspended_days(day_of(2025, 2, 1), day_of(2025, 3, 31), &n);
    set_value(v, n, day_of(2025, 2, 3), 24000);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 0, 1);
    c.path = "contracts.json";
    c.index = 2;
    c.tick_line = 9;
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "contracts.json:9: contract 2 (GPUH-2503): tick: more than 1% of the "
                               "value 2.4000 of H100-SXM.OD.GOLD+ on 2025-02-03, so prices would "
                               "move in steps of over 1% (got \"1\")");
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

/* settle_fsp, the one FSP rule (settle_run's final row and hedge/'s
 * replay): §6 F's 20 values of February 2025 (the 11th suspended), sum
 * 47.290, mean 2.3645 -> 2.365 at tick 0.001 (half-up), 2.3645 at 0.0001;
 * min_published_days is a floor that is met exactly; days outside the
 * month, suspended days and negative values do not count; order does not
 * matter. */
static void test_settle_fsp_vector_f(void **state)
{
    (void)state;
    static const int64_t v[21] = {24120, 24050, 23980, 24010, 23900, 23860, 23790,
                                  23830, 23710, 23660, -1,    23590, 23520, 23480,
                                  23550, 23410, 23370, 23300, 23340, 23260, 23170};
    gpi_index_day idx[25];
    int32_t m = day_of(2025, 2, 1);
    for (int i = 0; i < 21; i++) {
        idx[i].day = m + i;
        idx[i].level = v[i] < 0 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES;
        idx[i].value_e4 = v[i] < 0 ? 99999 : v[i];
    }
    /* around the month (counted by none), a negative value inside it */
    idx[21] = (gpi_index_day){day_of(2025, 1, 31), GPI_LEVEL_TRADES, 90000};
    idx[22] = (gpi_index_day){day_of(2025, 3, 1), GPI_LEVEL_TRADES, 90000};
    idx[23] = (gpi_index_day){day_of(2025, 2, 28), GPI_LEVEL_OFFERS, -1};
    idx[24] = (gpi_index_day){day_of(2024, 2, 15), GPI_LEVEL_TRADES, 90000};
    static const struct {
        const char *name;
        int year, month;
        int64_t mant;
        int scale, min_days, ok;
        int64_t want;
        int values;
    } cases[] = {
        {"tick 0.001, half-up", 2025, 2, 1, 3, 15, 1, 2365, 20},
        {"tick 0.0001", 2025, 2, 1, 4, 15, 1, 23645, 20},
        {"tick 0.001 (10 x 0.0001)", 2025, 2, 10, 4, 15, 1, 23650, 20},
        {"exactly min_published_days", 2025, 2, 1, 4, 20, 1, 23645, 20},
        {"one value short", 2025, 2, 1, 4, 21, 0, -7, 20},
        {"a month without values", 2025, 4, 1, 4, 1, 0, -7, 0},
        {"March: one value", 2025, 3, 1, 4, 1, 1, 90000, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        settle_contract c = contract("X", cases[i].year, cases[i].month, 1000, cases[i].mant,
                                     cases[i].scale, cases[i].min_days);
        for (int rev = 0; rev < 2; rev++) {
            gpi_index_day in[25];
            for (int k = 0; k < 25; k++) in[k] = idx[rev ? 24 - k : k];
            int64_t got = -7;
            int nv = -1;
            int ok = settle_fsp(&c, in, 25, &got, &nv);
            if (ok != cases[i].ok || got != cases[i].want || nv != cases[i].values)
                fail_msg("%s%s: got %d %lld (%d values), want %d %lld (%d values)", cases[i].name,
                         rev ? " (reversed)" : "", ok, (long long)got, nv, cases[i].ok,
                         (long long)cases[i].want, cases[i].values);
        }
    }
}

/* Property: settle_run's final row is settle_fsp's price (or insufficient
 * exactly when settle_fsp has none), on random series of random months. */
static void test_settle_final_is_fsp(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int t = 0; t < 300; t++) {
        int month = 1 + t % 12, year = 2024 + t % 3;
        int min_days = 1 + (int)(t % 25);
        int32_t from = gpi_days_from_civil(year, month, 1) - 40;
        int32_t to = gpi_days_from_civil(year, month, 1) + 40;
        size_t n;
        gpi_index_day *v = suspended_days(from, to, &n);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (x % 4 == 0) continue; /* stays suspended */
            v[i].level = (int)(x % 3);
            v[i].value_e4 = 10000 + (int64_t)(x >> 40) % 40000;
        }
        settle_contract c = contract("P", year, month, 1000, 1 + (int64_t)(t % 5), 4, min_days);
        settle_result r;
        gpi_diag d = {""};
        assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
        assert_true(r.complete);
        int64_t fsp = 0;
        int nv = 0;
        int ok = settle_fsp(&c, v, n, &fsp, &nv);
        const settle_price *last = &r.rows[r.n - 1];
        assert_int_equal(nv, r.values_in_month);
        assert_int_equal(last->kind, ok ? SETTLE_FINAL : SETTLE_INSUFFICIENT);
        if (ok) assert_int_equal(last->price_units, fsp);
        settle_result_free(&r);
        free(v);
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
        cmocka_unit_test(test_settle_tick_too_coarse),
        cmocka_unit_test(test_settle_round_value_half_up),
        cmocka_unit_test(test_settle_fsp_vector_f),
        cmocka_unit_test(test_settle_final_is_fsp),
        cmocka_unit_test(test_settle_price_parse_table),
    };
    return cmocka_run_group_tests_name("settlement", tests, NULL, NULL);
}
