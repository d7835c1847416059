/* tests/test_hedge_replay.c -- hedge/: the month-by-month replay with cash
 * settlement (SPEC §9): the §6F monthly FSP, payer and earner replays
 * checked by hand, exposure and overflow rules, the automatic hedge ratio
 * without look-ahead, forward-price files, the index range and the chart. */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "hedge/hedge.h"
#include "tests/hedge_vectors.h"

static void test_month_fsp_vector_f(void **state)
{
    (void)state;
    /* §6 F: 20 published days (day 11 not published), sum 47.290, mean
     * 2.3645 -> 2.365 at tick 0.001 (half-up), 2.3645 at tick 0.0001 */
    static const int64_t v[21] = {24120, 24050, 23980, 24010, 23900, 23860, 23790,
                                  23830, 23710, 23660, -1,    23590, 23520, 23480,
                                  23550, 23410, 23370, 23300, 23340, 23260, 23170};
    store_index_day idx[21];
    int32_t m = day_of("2025-02-01");
    for (int i = 0; i < 21; i++) {
        idx[i].day = m + i;
        idx[i].level = v[i] < 0 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES;
        idx[i].value_e4 = v[i];
    }
    int64_t fsp = 0;
    size_t n = 0;
    assert_int_equal(hedge_month_fsp(idx, 21, m, 10, 15, &fsp, &n), 1);
    assert_int_equal(n, 20);
    assert_int_equal(fsp, 23650);
    assert_int_equal(hedge_month_fsp(idx, 21, m, 1, 15, &fsp, &n), 1);
    assert_int_equal(fsp, 23645);
    /* exactly min_days values are enough */
    assert_int_equal(hedge_month_fsp(idx, 21, m, 1, 20, &fsp, &n), 1);
    assert_int_equal(fsp, 23645);
    /* fewer than min_days values: no FSP */
    fsp = -7;
    assert_int_equal(hedge_month_fsp(idx, 21, m, 1, 21, &fsp, &n), 0);
    assert_int_equal(fsp, -7);
    assert_int_equal(hedge_month_fsp(idx, 21, day_of("2025-03-01"), 1, 1, &fsp, &n), 0);
}

/* Index days: every day of each month from Jan 2024 at the given value. */
static store_index_day *monthly_index(const int64_t *val_e4, int months, size_t *n)
{
    store_index_day *idx = malloc(31 * (size_t)months * sizeof *idx);
    assert_non_null(idx);
    *n = 0;
    for (int m = 0; m < months; m++) {
        int32_t s = gpi_days_from_civil(2024, m + 1, 1);
        for (int k = 0; k < gpi_month_days(2024, m + 1); k++)
            idx[(*n)++] = (store_index_day){s + k, GPI_LEVEL_TRADES, val_e4[m]};
    }
    return idx;
}

static void test_simulate_payer_by_hand(void **state)
{
    (void)state;
    /* index (FSP) Jan 2.00, Feb 2.10, Mar 1.90, Apr 2.05; rent one row a
     * month with quantities; payer, ratio 0.9, size 100.
     * Jan: no entry (no Dec index) -> skipped.
     * Feb: entry 2.00, FSP 2.10, exposure 1000 (Jan), 0.9*1000/100 = 9;
     *      P&L = 9*100*0.10 = $90 = 9000 c; 90/1200 = 0.075;
     *      hedged 2.60 - 0.075 = 2.525.
     * Mar: entry 2.10, FSP 1.90, exposure 1200 -> 10.8 -> 11 contracts;
     *      P&L = 11*100*(-0.20) = -$220; -220/800 = -0.275; 2.40 + 0.275 = 2.675.
     * Apr: entry 1.90, FSP 2.05, exposure 800 -> 7.2 -> 7; P&L 7*100*0.15 =
     *      $105; 105/1000 = 0.105; 2.55 - 0.105 = 2.445.
     * Total -2500 c.  sd unhedged (2.60 2.40 2.55) = sqrt(0.0216667/2) =
     * 0.1040833; hedged (2.525 2.675 2.445) = sqrt(0.0272667/2) = 0.1167619;
     * reduction 1 - 0.1167619/0.1040833 = -0.121812 (worse: over-hedged). */
    const int64_t val[4] = {20000, 21000, 19000, 20500};
    size_t nidx;
    store_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "date,price,quantity\n2024-01-15,2.50,1000\n2024-02-15,2.60,1200\n"
                      "2024-03-15,2.40,800\n2024-04-15,2.55,1000\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {HEDGE_PAYER, 0, 0.9, 100, 0, NULL, 15};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.n_done, 3);
    assert_int_equal(s.m[0].skipped, 1);
    assert_string_equal(s.m[0].reason, "no entry price: previous month has 0 index values (need 15)");
    static const int64_t contracts[3] = {9, 11, 7}, pnl[3] = {9000, -22000, 10500};
    static const double hedged[3] = {2.525, 2.675, 2.445};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(s.m[i + 1].skipped, 0);
        assert_int_equal(s.m[i + 1].contracts, contracts[i]);
        assert_int_equal(s.m[i + 1].pnl_cents, pnl[i]);
        tu_assert_close(s.m[i + 1].hedged, hedged[i], 1e-12, "hedged");
    }
    assert_int_equal(s.m[2].entry_e4, 21000);
    assert_int_equal(s.m[2].fsp_e4, 19000);
    assert_int_equal(s.pnl_cents, -2500);
    tu_assert_close(s.sd_unhedged, 0.1040833, 1e-6, "sd unhedged");
    tu_assert_close(s.sd_hedged, 0.1167619, 1e-6, "sd hedged");
    tu_assert_close(s.sd_reduction, -0.121812, 1e-5, "sd reduction");
    /* means: (2.60 + 2.40 + 2.55) / 3 and (2.525 + 2.675 + 2.445) / 3 */
    tu_assert_close(s.mean_unhedged, 2.516667, 1e-6, "mean unhedged");
    tu_assert_close(s.mean_hedged, 2.548333, 1e-6, "mean hedged");
    hedge_sim_free(&s);

    /* size must keep size x tick whole cents */
    o.size = 150;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_EUSAGE);
    hedge_rent_free(&r);
    free(idx);
}

static void test_simulate_exposure_needs_adjacent_month(void **state)
{
    (void)state;
    /* rent in Jan, Feb and Apr (no March row): April's exposure would be
     * March's quantity, which does not exist, so April is skipped rather
     * than sized on February's 1200.  Feb: 0.9 x 1000 / 100 = 9 contracts.
     * A size that asks for 10^12 contracts or more is skipped too. */
    const int64_t val[4] = {20000, 21000, 19000, 20500};
    size_t nidx;
    store_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "date,price,quantity\n2024-01-15,2.50,1000\n2024-02-15,2.60,1200\n"
                      "2024-04-15,2.55,1000\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {HEDGE_PAYER, 0, 0.9, 100, 0, NULL, 15};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.n_done, 1);
    assert_int_equal(s.m[1].contracts, 9);
    assert_int_equal(s.m[2].month, day_of("2024-04-01"));
    assert_int_equal(s.m[2].skipped, 1);
    assert_string_equal(s.m[2].reason, "no exposure: no rent quantity for the previous month");
    hedge_sim_free(&s);
    o.ratio = 100;
    o.exposure = 1e12;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 0);
    assert_string_equal(s.m[1].reason, "contracts out of range");
    hedge_sim_free(&s);
    hedge_rent_free(&r);
    free(idx);
}

static void test_simulate_total_pnl_overflow(void **state)
{
    (void)state;
    /* 1200 months (1900..2099) of an index rising 0.9000 a month, one rent
     * row a month, exposure 10^12 GPU-hours, ratio 90, size 10^9: 90,000
     * contracts and +90000 x 10^9 x 0.9 USD = 8.1 x 10^15 cents a month;
     * the total after ~1139 months passes INT64_MAX, which must be an
     * error, not a wrapped (undefined) sum. */
    enum { MONTHS = 1200 };
    store_index_day *idx = malloc(MONTHS * 31 * sizeof *idx);
    char *csv = malloc(MONTHS * 20 + 1);
    assert_non_null(idx);
    assert_non_null(csv);
    size_t n = 0, o = 0;
    for (int m = 0; m < MONTHS; m++) {
        int y = 1900 + m / 12, mo = m % 12 + 1;
        int32_t first = gpi_days_from_civil(y, mo, 1);
        for (int k = 0; k < gpi_month_days(y, mo); k++)
            idx[n++] = (store_index_day){first + k, GPI_LEVEL_TRADES, 10000 + 9000 * (int64_t)m};
        o += (size_t)snprintf(csv + o, 21, "%04d-%02d-15,2.5\n", y, mo);
    }
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, o, &r, &d), GPI_OK);
    hedge_sim_opts opt = {HEDGE_PAYER, 0, 90.0, 1000000000, 1e12, NULL, 15};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, n, &opt, &s, &d), GPI_EMATH);
    assert_string_equal(d.msg, "futures P&L out of range (over 92233720368547758.07 USD)");
    assert_null(s.m);
    /* 1000 months stay inside: 999 replayed x 8.1 x 10^15 cents */
    r.n = 1000;
    assert_int_equal(hedge_simulate(&r, idx, n, &opt, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 999);
    assert_int_equal(s.m[1].pnl_cents, 8100000000000000LL);
    assert_int_equal(s.pnl_cents, 999 * 8100000000000000LL);
    hedge_sim_free(&s);
    /* one month beyond int64 cents is an error as well, not a skipped
     * month: exposure 2 x 10^15 -> 1.8 x 10^8 contracts x 10^9 x 0.9 USD
     * = 1.62 x 10^19 cents in the second month */
    r.n = 3;
    hedge_sim_opts big = opt;
    big.exposure = 2e15;
    assert_int_equal(hedge_simulate(&r, idx, n, &big, &s, &d), GPI_EMATH);
    assert_string_equal(d.msg, "futures P&L out of range (over 92233720368547758.07 USD)");
    r.n = MONTHS;
    hedge_rent_free(&r);
    free(csv);
    free(idx);
}

static void test_simulate_earner_by_hand(void **state)
{
    (void)state;
    /* Same index; rent without quantities, --exposure 1000, ratio 1, size
     * 1000 -> 1 contract a month, sold.
     * Feb: -(1*1000*(2.10-2.00)) = -$100 -> 2.60 - 0.10 = 2.50
     * Mar: -(1000*(1.90-2.10)) = +$200 -> 2.40 + 0.20 = 2.60
     * Apr: -(1000*(2.05-1.90)) = -$150 -> 2.55 - 0.15 = 2.40
     * Total -$50 = -5000 c.  sd hedged (2.50 2.60 2.40) = 0.1;
     * reduction 1 - 0.1/0.1040833 = 0.039230. */
    const int64_t val[4] = {20000, 21000, 19000, 20500};
    size_t nidx;
    store_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "2024-01-15,2.50\n2024-02-10,2.60\n2024-02-20,2.60\n"
                      "2024-03-15,2.40\n2024-04-15,2.55\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {HEDGE_EARNER, 0, 1.0, 1000, 0, NULL, 15};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_EUSAGE);
    assert_string_equal(d.msg, "the rent file has no quantity column: give an exposure "
                               "(--exposure GPU-hours a month)");
    o.exposure = 1000;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 3);
    static const int64_t pnl[3] = {-10000, 20000, -15000};
    static const double hedged[3] = {2.50, 2.60, 2.40};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(s.m[i + 1].contracts, 1);
        assert_int_equal(s.m[i + 1].pnl_cents, pnl[i]);
        tu_assert_close(s.m[i + 1].hedged, hedged[i], 1e-12, "hedged");
    }
    assert_int_equal(s.pnl_cents, -5000);
    tu_assert_close(s.sd_hedged, 0.1, 1e-9, "sd hedged");
    tu_assert_close(s.sd_reduction, 0.039230, 1e-5, "sd reduction");
    hedge_sim_free(&s);
    hedge_rent_free(&r);
    free(idx);
}

static void test_simulate_auto_no_lookahead(void **state)
{
    (void)state;
    /* §6 vector as monthly index and rent (720,000 GPU-h a month), earner,
     * auto ratio, size 1000.  numpy polyfit on the changes before month m:
     * month 5 (3 changes) h = 3.000000 -> 2160 contracts; month 9 (7
     * changes) h = 0.931250 -> 670.5 -> 671 (half away from zero); month 12
     * (10 changes) h = 0.976744 -> 703.2558 -> 703.  Months 2-4 have fewer
     * than 3 changes before them.  Dec P&L: -(703*1000*(2.30-2.38)) =
     * +$56,240. */
    int64_t val[12];
    for (int m = 0; m < 12; m++) val[m] = (int64_t)llround(vec_index[m] * 1e4);
    size_t nidx;
    store_index_day *idx = monthly_index(val, 12, &nidx);
    char csv[1024] = "date,price,quantity\n";
    for (int m = 0; m < 12; m++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "2024-%02d-28,%.2f,720000\n", m + 1,
                 vec_rent[m]);
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {HEDGE_EARNER, 1, 0, 1000, 0, NULL, 15};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 8);
    assert_int_equal(s.m[3].skipped, 1);
    assert_string_equal(s.m[3].reason,
                        "auto ratio: 2 monthly changes before this month (need 3, index varying)");
    tu_assert_close(s.m[4].h, 3.0, 1e-9, "month 5 h");
    assert_int_equal(s.m[4].contracts, 2160);
    tu_assert_close(s.m[8].h, 0.93125, 1e-9, "month 9 h");
    assert_int_equal(s.m[8].contracts, 671);
    tu_assert_close(s.m[11].h, 0.976744, 1e-6, "month 12 h");
    assert_int_equal(s.m[11].contracts, 703);
    assert_int_equal(s.m[11].pnl_cents, 5624000);
    hedge_sim_free(&s);
    hedge_rent_free(&r);
    free(idx);
}

static void test_index_range_and_svg(void **state)
{
    (void)state;
    /* rent 2024-03-05 .. 2024-12-30 (a Monday: its ISO week ends
     * 2025-01-05): index from 2024-02-01 (the month before, for the first
     * entry price) to 2024-12-31 + 6 = 2025-01-06 */
    const char *csv = "2024-03-05,2\n2024-12-30,2\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    int32_t from, to;
    hedge_index_range(&r, &from, &to);
    assert_int_equal(from, day_of("2024-02-01"));
    assert_int_equal(to, day_of("2025-01-06"));
    hedge_rent_free(&r);

    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, vec_rent);
    hedge_analysis a;
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    char *svg = NULL;
    size_t len = 0;
    assert_int_equal(hedge_svg(&s, &a, "Rent <&> \"grade\"", &svg, &len, &d), GPI_OK);
    assert_int_equal(strlen(svg), len);
    assert_non_null(strstr(svg, "Rent &lt;&amp;&gt; &quot;grade&quot; (month, 12 periods, h = 1.0278)"));
    size_t circles = 0;
    for (const char *q = svg; (q = strstr(q, "<circle")); q++) circles++;
    assert_int_equal(circles, 11); /* one point per change */
    assert_non_null(strstr(svg, "stroke=\"#d62728\"")); /* the fitted line */
    assert_null(strstr(svg, "nan"));
    assert_null(strstr(svg, "<script"));
    free(svg);
    hedge_analysis_free(&a);
    /* one period: nothing to fit, still a valid chart without NaN */
    s.n = 1;
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_int_equal(hedge_svg(&s, &a, "one", &svg, &len, &d), GPI_OK);
    assert_non_null(strstr(svg, "no fit"));
    assert_null(strstr(svg, "nan"));
    assert_null(strstr(svg, "inf"));
    free(svg);
    hedge_analysis_free(&a);
}

static void test_forward_file_and_nul(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("hedge-fw");
    static const struct {
        const char *name, *text, *msg; /* msg after "path:" */
    } cases[] = {
        {"bad month", "month,price\n2024-13,2.4\n", "2: month: "},
        {"duplicate", "2024-12,2.4\n2024-12,2.5\n", "2: month: duplicate month (got \"2024-12\")"},
        {"bad price", "month,price\n2024-12,-1\n", "2: price: must be positive (got \"-1\")"},
        {"fields", "2024-12\n", "1: row: expected 2 fields, found 1 (got \"2024-12\")"},
        {"no rows", "month,price\n\n", " no forward prices (want CSV month,price)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = tu_write(dir, "fw.csv", cases[i].text);
        char want[512];
        snprintf(want, sizeof want, "%s:%s", path, cases[i].msg);
        hedge_forward f;
        gpi_diag d = {{0}};
        if (hedge_forward_load(path, &f, &d) != GPI_EINPUT) fail_msg("%s: accepted", cases[i].name);
        if (strncmp(d.msg, want, strlen(want)) != 0)
            fail_msg("%s: got '%s', want '%s'", cases[i].name, d.msg, want);
        assert_null(f.price_e4);
        free(path);
    }
    char *path = tu_write(dir, "fw.csv", "month,price\n2024-12,2.40005\n2025-01,2.5\n");
    hedge_forward f;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_forward_load(path, &f, &d), GPI_OK);
    assert_int_equal(f.n, 2);
    assert_int_equal(f.month_start[0], day_of("2024-12-01"));
    assert_int_equal(f.price_e4[0], 24001); /* 2.40005 half-up to 0.0001 */
    hedge_forward_free(&f);
    free(path);
    free(dir);
    /* a NUL byte inside a line is refused, not silently truncated */
    const char nul[] = "2024-01-01,2.5\0junk\n";
    hedge_rent r;
    assert_int_equal(hedge_rent_parse("r.csv", nul, sizeof nul - 1, &r, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "r.csv:1: row: contains a NUL byte");
    /* and so is a line longer than 1023 bytes */
    char *lng = malloc(3000);
    assert_non_null(lng);
    snprintf(lng, 3000, "date,price\n2024-01-01,2.");
    memset(lng + strlen(lng), '1', 2000);
    lng[2025] = '\0';
    assert_int_equal(hedge_rent_parse("r.csv", lng, strlen(lng), &r, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "r.csv:2: row: longer than 1023 bytes");
    free(lng);
}

static void test_forward_price_rounded_once(void **state)
{
    (void)state;
    /* SPEC: a published number is rounded once, half-up.  2.36444951 is
     * 23644.4951 e4 -> 23644; rounding to micro-USD first (2.364450) and
     * then to 0.0001 would give 23645.  2.36445 is an exact midpoint ->
     * 23645; 2.3644499999 -> 23644. */
    char *dir = tu_mkdtemp("hedge-fw-once");
    char *path = tu_write(dir, "fw.csv",
                          "month,price\n2024-10,2.36444951\n2024-11,2.36445\n2024-12,2.3644499999\n");
    hedge_forward f;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_forward_load(path, &f, &d), GPI_OK);
    assert_int_equal(f.n, 3);
    assert_int_equal(f.price_e4[0], 23644);
    assert_int_equal(f.price_e4[1], 23645);
    assert_int_equal(f.price_e4[2], 23644);
    hedge_forward_free(&f);
    free(path);
    free(dir);
}

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_month_fsp_vector_f),
        cmocka_unit_test(test_simulate_payer_by_hand),
        cmocka_unit_test(test_simulate_exposure_needs_adjacent_month),
        cmocka_unit_test(test_simulate_total_pnl_overflow),
        cmocka_unit_test(test_simulate_earner_by_hand),
        cmocka_unit_test(test_simulate_auto_no_lookahead),
        cmocka_unit_test(test_index_range_and_svg),
        cmocka_unit_test(test_forward_file_and_nul),
        cmocka_unit_test(test_forward_price_rounded_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
