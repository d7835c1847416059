/* tests/test_settlement_business.c -- settlement/: contracts that settle
 * on business days (contract key fsp_days "business", issue 26 item 6):
 * their FSP, their dailies and final day, holidays, and §6F's own daily
 * list (calendar-day contracts: tests/test_settlement.c).  Expected values
 * from tests/ref/settle_business.py (exact fractions) and from §6F's own
 * daily list (hedge-and-settlement.md).
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settlement/settlement.h"
#include "tests/settlement_helpers.h"

/* fsp_days "business" (issue 26 item 6), against tests/ref/settle_business.py
 * (exact fractions): May and June 2025 every day built, weekday values
 * 2.4000 + 0.0037 d, weekend values 3.0000 + 0.0001 d, 2025-06-11
 * suspended, May 2.3500 + 0.0005 d.  The June FSP over every calendar day
 * (29 values) is 2.626131 -> 2.63 at a 0.01 tick; over business days (20
 * values) 2.457165 -> 2.46 and 2.4572 at 0.0001 (a midpoint, half-up);
 * less the holiday 2025-06-19, 19 values, 2.456474 -> 2.46 / 2.4565.  A
 * business contract settles on business days only: 22 in May, 20 in
 * June less the holiday, the final row on Monday 2025-06-30. */
static gpi_index_day *business_series(size_t *n)
{
    gpi_index_day *v = suspended_days(day_of(2025, 5, 1), day_of(2025, 6, 30), n);
    for (size_t i = 0; i < *n; i++) {
        int y, m, dd;
        gpi_civil_from_days(v[i].day, &y, &m, &dd);
        if (m == 6 && dd == 11) continue;
        v[i].level = GPI_LEVEL_OFFERS;
        v[i].value_e4 = m == 5                          ? 23500 + 5 * dd
                        : gpi_iso_weekday(v[i].day) > 5 ? 30000 + dd
                                                        : 24000 + 37 * dd;
    }
    return v;
}

static void test_settle_business_days(void **state)
{
    (void)state;
    size_t n;
    gpi_index_day *v = business_series(&n);
    static const struct {
        const char *name;
        int business, holiday;
        int64_t mant;
        int scale;
        int64_t want;
        int values;
    } cases[] = {
        {"calendar, 0.01", 0, 0, 1, 2, 263, 29},
        {"calendar, 0.0001", 0, 0, 1, 4, 26261, 29},
        {"business, 0.01", 1, 0, 1, 2, 246, 20},
        {"business, 0.0001 (midpoint 2.457165)", 1, 0, 1, 4, 24572, 20},
        {"business less a holiday, 0.01", 1, 1, 1, 2, 246, 19},
        {"business less a holiday, 0.0001", 1, 1, 1, 4, 24565, 19},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        settle_contract c = contract("GPUHX-2506", 2025, 6, 730, cases[i].mant, cases[i].scale, 15);
        c.fsp_days = cases[i].business ? SETTLE_DAYS_BUSINESS : SETTLE_DAYS_CALENDAR;
        if (cases[i].holiday) c.holidays[c.n_holidays++] = day_of(2025, 6, 19);
        int64_t fsp = -1;
        int nv = -1;
        if (!settle_fsp(&c, v, n, &fsp, &nv) || fsp != cases[i].want || nv != cases[i].values)
            fail_msg("%s: got %lld (%d values), want %lld (%d values)", cases[i].name,
                     (long long)fsp, nv, (long long)cases[i].want, cases[i].values);
        settle_result r;
        gpi_diag d = {""};
        assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
        assert_true(r.complete);
        assert_int_equal(r.values_in_month, cases[i].values);
        assert_int_equal(r.rows[r.n - 1].kind, SETTLE_FINAL);
        assert_int_equal(r.rows[r.n - 1].price_units, cases[i].want);
        assert_int_equal(r.rows[r.n - 1].day, day_of(2025, 6, 30));
        /* a price on every settlement day, and only on those */
        assert_int_equal(r.n - 1, cases[i].business ? 42 + !cases[i].holiday : 61);
        for (size_t k = 0; k + 1 < r.n; k++) assert_true(settle_is_day(&c, r.rows[k].day));
        settle_result_free(&r);
    }
    /* the dailies of June (tick 0.01, less the holiday): average so far
     * plus the last value for the business days still to come */
    static const int64_t june[20] = {241, 241, 241, 242, 242, 243, 243, 243, 244, 244,
                                     244, 245, 245, 245, 245, 245, 245, 246, 246, 246};
    settle_contract c = contract("GPUHX-2506", 2025, 6, 730, 1, 2, 15);
    c.fsp_days = SETTLE_DAYS_BUSINESS;
    c.holidays[c.n_holidays++] = day_of(2025, 6, 19);
    assert_int_equal(settle_month_days(&c), 20);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.rows[0].day, day_of(2025, 5, 1));
    assert_int_equal(r.rows[0].price_units, 235);
    assert_int_equal(r.rows[21].day, day_of(2025, 5, 30)); /* Friday; 31st a Saturday */
    assert_int_equal(r.rows[21].price_units, 237);
    for (int k = 0; k < 20; k++)
        if (r.rows[22 + k].price_units != june[k])
            fail_msg("June daily %d (%d): got %lld want %lld", k, (int)r.rows[22 + k].day,
                     (long long)r.rows[22 + k].price_units, (long long)june[k]);
    settle_result_free(&r);
    /* a weekend day never built is not needed; a business day is */
    gpi_index_day *w = malloc(n * sizeof *w);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (gpi_iso_weekday(v[i].day) <= 5) w[m++] = v[i];
    assert_int_equal(settle_run(&c, w, m, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.rows[r.n - 1].price_units, 246);
    settle_result_free(&r);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].day != day_of(2025, 6, 12)) w[m++] = v[i];
    assert_int_equal(settle_run(&c, w, m, INT32_MAX, &r, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "GPUHX-2506: grade H100-SXM.OD.GOLD+ has no index row for "
                               "2025-06-12 (the day was never built; build it, or settle "
                               "--through an earlier day)");
    /* the May contract ends on a Saturday: its final row is Friday the 30th */
    settle_contract may = contract("GPUHX-2505", 2025, 5, 730, 1, 2, 15);
    may.fsp_days = SETTLE_DAYS_BUSINESS;
    assert_int_equal(settle_final_day(&may), day_of(2025, 5, 30));
    assert_int_equal(settle_month_days(&may), 22);
    size_t na;
    gpi_index_day *apr = suspended_days(day_of(2025, 4, 1), day_of(2025, 6, 30), &na);
    memcpy(apr + 30, v, n * sizeof *v); /* April suspended, then May and June */
    assert_int_equal(settle_run(&may, apr, na, day_of(2025, 5, 30), &r, &d), GPI_OK);
    free(apr);
    assert_true(r.complete);
    assert_int_equal(r.rows[r.n - 1].day, day_of(2025, 5, 30));
    assert_int_equal(r.rows[r.n - 1].kind, SETTLE_FINAL);
    settle_result_free(&r);
    free(w);
    free(v);
}

/* §6F's own daily list divides by the month's 20 published days, which a
 * calendar contract cannot know in advance.  A business-day contract
 * whose file lists the unpublished 2025-03-17 as a holiday settles on
 * exactly those 20 days: its dailies are the reference's list (less the
 * holiday's row), from the prior settlement 2.418 of 2025-02-28, and the
 * short of 740 at 2.450 still makes +$62,900. */
static void test_settle_business_reference_list(void **state)
{
    (void)state;
    static const int64_t ref[20] = {2412, 2405, 2399, 2402, 2393, 2390, 2385, 2388, 2380, 2378,
                                    2374, 2371, 2369, 2372, 2368, 2367, 2365, 2366, 2365, 2365};
    size_t n;
    gpi_index_day *v = worked_series(&n);
    settle_contract c = contract("GPUH-2503", 2025, 3, 1000, 1, 3, 15);
    c.fsp_days = SETTLE_DAYS_BUSINESS;
    c.holidays[c.n_holidays++] = day_of(2025, 3, 17);
    settle_result r;
    gpi_diag d = {""};
    assert_int_equal(settle_run(&c, v, n, INT32_MAX, &r, &d), GPI_OK);
    assert_int_equal(r.n, 22);
    assert_int_equal(r.rows[0].day, day_of(2025, 2, 28));
    assert_int_equal(r.rows[0].price_units, 2418);
    for (int k = 0; k < 20; k++) {
        assert_int_equal(r.rows[1 + k].day, day_of(2025, 3, wx_mday(k)));
        if (r.rows[1 + k].price_units != ref[k])
            fail_msg("March daily %d: got %lld want %lld", k, (long long)r.rows[1 + k].price_units,
                     (long long)ref[k]);
    }
    assert_int_equal(r.rows[21].kind, SETTLE_FINAL);
    assert_int_equal(r.rows[21].price_units, 2365);
    settle_position p = {"hedger", 0, -740, 1, 2450, 2};
    settle_ledger_row *rows;
    size_t nr;
    int64_t entry, sum = 0;
    assert_int_equal(settle_ledger(&c, &r, &p, &rows, &nr, &entry, &d), GPI_OK);
    for (size_t i = 0; i < nr; i++) sum += rows[i].variation_cents;
    assert_int_equal(sum, 6290000);
    free(rows);
    settle_result_free(&r);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settle_business_days),
        cmocka_unit_test(test_settle_business_reference_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
