/* tests/test_hedge_replay.c -- hedge/simulate.c: the month-by-month
 * replay with cash settlement (SPEC §9; the monthly FSP is settlement/'s
 * settle_fsp, tested in tests/test_settlement.c): payer and earner
 * replays checked by hand (roll and strip, with their budget errors:
 * reference values from tests/ref/hedge_v2.py), exposure and overflow
 * rules, a contract file's terms, forward-price files, the index range
 * and the chart.  The ratio the replay uses (--ratio auto) and its
 * agreement with `analyze`: tests/test_hedge_ratio.c. */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "hedge/hedge.h"
#include "settlement/settlement.h"
#include "tests/hedge_vectors.h"

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
    gpi_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "date,price,quantity\n2024-01-15,2.50,1000\n2024-02-15,2.60,1200\n"
                      "2024-03-15,2.40,800\n2024-04-15,2.55,1000\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {.side = HEDGE_PAYER, .ratio = 0.9, .size = 100, .min_days = 15};
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
    /* The headline.  Locked price = entry + (rent - FSP) of the month of
     * entry = the previous month's rent: Feb 2.50, Mar 2.60, Apr 2.40.
     * Unhedged errors 0.10 -0.20 0.15 (the rent's monthly changes), hedged
     * 0.025 0.075 0.045: the hedge that "raised the sd by 12 %" above
     * removed 98 % of the month-ahead surprise variance. */
    static const double budget[3] = {2.50, 2.60, 2.40}, eu[3] = {0.10, -0.20, 0.15},
                        eh[3] = {0.025, 0.075, 0.045};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(s.m[i + 1].entered, day_of(i == 0 ? "2024-01-01" : i == 1 ? "2024-02-01"
                                                                                     : "2024-03-01"));
        tu_assert_close(s.m[i + 1].budget, budget[i], 1e-12, "budget");
        tu_assert_close(s.m[i + 1].err_unhedged, eu[i], 1e-12, "err unhedged");
        tu_assert_close(s.m[i + 1].err_hedged, eh[i], 1e-12, "err hedged");
    }
    assert_int_equal(s.err_u.n, 3);
    tu_assert_close(s.err_u.mean, 0.016666667, 1e-8, "err_u mean");
    tu_assert_close(s.err_u.sd, 0.189296945, 1e-8, "err_u sd");
    tu_assert_close(s.err_u.rms, 0.155456318, 1e-8, "err_u rms");
    tu_assert_close(s.err_h.mean, 0.048333333, 1e-8, "err_h mean");
    tu_assert_close(s.err_h.sd, 0.025166115, 1e-8, "err_h sd");
    tu_assert_close(s.err_h.rms, 0.052519838, 1e-8, "err_h rms");
    tu_assert_close(s.var_removed, 0.982325581, 1e-8, "var removed");
    tu_assert_close(s.rms_reduction, 0.662156943, 1e-8, "rms reduction");
    /* sized exactly: 0.10 - 0.9 x 0.10, -0.20 + 0.9 x 0.20, 0.15 - 0.9 x
     * 0.15 = 0.01, -0.02, 0.015 */
    tu_assert_close(s.var_removed_exact, 0.99, 1e-9, "var removed, exact sizing");
    /* fractional contracts (9, 10.8, 7.2): hedged errors 0.025, 0.07,
     * 0.042 -> 0.985590698; whole ones removed 0.982325581: rounding cost
     * 0.33 points.  Residual basis 0.025 x 1200 + 0.075 x 800 + 0.045 x
     * 1000 = $135, the largest month $60 (March) */
    tu_assert_close(s.var_removed_frac, 0.985590698, 1e-8, "var removed, fractional");
    tu_assert_close(s.residual_usd, 135, 1e-9, "residual basis");
    tu_assert_close(s.residual_max_usd, 60, 1e-9, "largest residual");
    assert_int_equal(s.n_rule[HEDGE_RATIO_GIVEN], 3);
    /* the fixed ratio agrees with the fit (h 1.5 on 3 changes, too few) */
    assert_false(s.contradicts);
    assert_true(s.fit_ok);
    assert_int_equal(s.fit_changes, 3);
    /* one block a month; cost at the locked prices 2.50 x 1200 + 2.60 x
     * 800 + 2.40 x 1000 = 7480, unhedged 7590, hedged 7590 - 90 + 220 -
     * 105 = 7615; futures 900 + 1100 + 700 of 3000 GPU-hours */
    assert_int_equal(s.n_blocks, 3);
    tu_assert_close(s.total.budget_usd, 7480, 1e-12, "budget usd");
    tu_assert_close(s.total.unhedged_usd, 7590, 1e-12, "unhedged usd");
    tu_assert_close(s.total.hedged_usd, 7615, 1e-12, "hedged usd");
    tu_assert_close(s.total.hedged_quantity, 2700, 1e-12, "hedged quantity");
    tu_assert_close(s.total.quantity, 3000, 1e-12, "quantity");
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
    gpi_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "date,price,quantity\n2024-01-15,2.50,1000\n2024-02-15,2.60,1200\n"
                      "2024-04-15,2.55,1000\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {.side = HEDGE_PAYER, .ratio = 0.9, .size = 100, .min_days = 15};
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
    gpi_index_day *idx = malloc(MONTHS * 31 * sizeof *idx);
    char *csv = malloc(MONTHS * 20 + 1);
    assert_non_null(idx);
    assert_non_null(csv);
    size_t n = 0, o = 0;
    for (int m = 0; m < MONTHS; m++) {
        int y = 1900 + m / 12, mo = m % 12 + 1;
        int32_t first = gpi_days_from_civil(y, mo, 1);
        for (int k = 0; k < gpi_month_days(y, mo); k++)
            idx[n++] = (gpi_index_day){first + k, GPI_LEVEL_TRADES, 10000 + 9000 * (int64_t)m};
        o += (size_t)snprintf(csv + o, 21, "%04d-%02d-15,2.5\n", y, mo);
    }
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, o, &r, &d), GPI_OK);
    hedge_sim_opts opt = {.side = HEDGE_PAYER, .ratio = 90.0, .size = 1000000000, .exposure = 1e12,
                          .min_days = 15};
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
    gpi_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "2024-01-15,2.50\n2024-02-10,2.60\n2024-02-20,2.60\n"
                      "2024-03-15,2.40\n2024-04-15,2.55\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {.side = HEDGE_EARNER, .ratio = 1.0, .size = 1000, .min_days = 15};
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
    /* the rent moved exactly with the index (basis 0.50 throughout): the
     * one-for-one hedge left no budget error at all -- 100 % of the
     * variance removed, while the sd of the levels fell only 3.9 % */
    for (int i = 1; i < 4; i++) tu_assert_close(s.m[i].err_hedged, 0, 1e-12, "err hedged");
    tu_assert_close(s.err_u.sd, 0.189296945, 1e-8, "err_u sd");
    tu_assert_close(s.var_removed, 1.0, 1e-12, "var removed");
    hedge_sim_free(&s);
    hedge_rent_free(&r);
    free(idx);
}
/* --contracts: the exchange twin's terms (730 GPU-hours, $0.01 tick,
 * business days) on the by-hand roll, payer, ratio 0.9 (by hand:
 * contracts round(0.9 x 1000/730 = 1.2329) = 1, round(1.4795) = 1,
 * round(0.9863) = 1; P&L 730 x 0.10 = $73.00, 730 x -0.20 = -$146.00,
 * 730 x 0.15 = $109.50; hedged errors 0.039167, -0.0175, 0.0405 against
 * 0.025, 0.07, 0.042 with fractional contracts).  And a fixed ratio that
 * contradicts the fit says so. */
static void test_simulate_contract_terms(void **state)
{
    (void)state;
    const int64_t val[4] = {20000, 21000, 19000, 20500};
    size_t nidx;
    gpi_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "date,price,quantity\n2024-01-15,2.50,1000\n2024-02-15,2.60,1200\n"
                      "2024-03-15,2.40,800\n2024-04-15,2.55,1000\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    settle_contract t;
    memset(&t, 0, sizeof t);
    snprintf(t.symbol, sizeof t.symbol, "GPUHX-2402");
    t.size_gpu_hours = 730;
    t.tick.mant = 1;
    t.tick.scale = 2;
    t.tick_cents = 730;
    t.min_published_days = 15;
    t.fsp_days = SETTLE_DAYS_BUSINESS;
    hedge_sim_opts o = {.side = HEDGE_PAYER, .ratio = 0.9, .size = 1000, .min_days = 15,
                        .terms = &t};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 3);
    static const int64_t pnl[3] = {7300, -14600, 10950};
    static const double want[3] = {1.232876712, 1.479452055, 0.986301370},
                        eh[3] = {0.039166667, -0.0175, 0.0405};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(s.m[i + 1].contracts, 1);
        assert_int_equal(s.m[i + 1].pnl_cents, pnl[i]);
        tu_assert_close(s.m[i + 1].want, want[i], 1e-8, "unrounded contracts");
        tu_assert_close(s.m[i + 1].err_hedged, eh[i], 1e-8, "hedged error");
    }
    /* residual basis 0.039167 x 1200 - 0.0175 x 800 + 0.0405 x 1000 = $73.50 */
    tu_assert_close(s.residual_usd, 73.5, 1e-9, "residual basis");
    tu_assert_close(s.var_removed_frac, 0.985590698, 1e-8, "fractional");
    assert_true(s.var_removed_frac > s.var_removed); /* whole contracts cost */
    tu_assert_close(s.total.hedged_quantity, 3 * 730, 1e-12, "hedged quantity");
    hedge_sim_free(&s);
    /* a tick the replay cannot hold, and forward prices off the tick */
    t.tick.scale = 5;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_EUSAGE);
    t.tick.scale = 2;
    int32_t fm[1] = {day_of("2024-02-01")};
    int64_t fp[1] = {20050};
    hedge_forward fw = {fm, fp, 1, NULL};
    o.forward = &fw;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_EUSAGE);
    assert_string_equal(d.msg, "forward price of 2024-02 (2.0050) is not a whole number of ticks "
                               "of GPUHX-2402");
    o.forward = NULL;
    /* the rent moving against the index: a fixed ratio says it contradicts
     * the fit (h -1.5 on 3 changes) */
    const char *against = "date,price,quantity\n2024-01-15,2.50,1000\n2024-02-15,2.35,1200\n"
                          "2024-03-15,2.65,800\n2024-04-15,2.425,1000\n";
    hedge_rent_free(&r);
    assert_int_equal(hedge_rent_parse("r.csv", against, strlen(against), &r, &d), GPI_OK);
    o.terms = NULL;
    o.size = 100;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_true(s.contradicts);
    tu_assert_close(s.fit_h, -1.5, 1e-9, "fit");
    int found = 0;
    for (size_t k = 0; k < s.n_warnings; k++)
        found |= strcmp(s.warnings[k], "--ratio 0.9 contradicts the fit: h fitted on all 3 monthly "
                                       "changes is -1.500 (the grade moved against the rent), so "
                                       "this replay hedges against it") == 0;
    assert_true(found);
    hedge_sim_free(&s);
    hedge_rent_free(&r);
    free(idx);
}

static void test_simulate_strip_by_hand(void **state)
{
    (void)state;
    /* Index (FSP) Jan 2.00, Feb 2.10, Mar 1.90, Apr 2.05; rent 2.50 2.60
     * 2.40 2.55 with quantities 1000 1200 800 1000; payer, ratio 1, size
     * 100, a 3-month strip entered at the end of January: 10 contracts
     * (1000 x 1 / 100) of each of Feb, Mar, Apr at Jan's FSP 2.00.
     * Locked price 2.00 + (2.50 - 2.00) = 2.50 for all three months.
     * Feb: +$100 over 1200 h -> 2.60 - 0.083333 = 2.516667 (error 0.016667)
     * Mar: -$100 over  800 h -> 2.40 + 0.125    = 2.525    (error 0.025)
     * Apr: +$50  over 1000 h -> 2.55 - 0.05     = 2.50     (error 0)
     * Budget 2.50 x 3000 = 7500 USD; unhedged 7590 (+1.2 %), hedged 7540
     * (+0.53 %).  tests/ref/hedge_v2.py for the statistics. */
    const int64_t val[4] = {20000, 21000, 19000, 20500};
    size_t nidx;
    gpi_index_day *idx = monthly_index(val, 4, &nidx);
    const char *csv = "date,price,quantity\n2024-01-15,2.50,1000\n2024-02-15,2.60,1200\n"
                      "2024-03-15,2.40,800\n2024-04-15,2.55,1000\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {.side = HEDGE_PAYER, .ratio = 1, .size = 100, .min_days = 15,
                        .strategy = HEDGE_STRIP, .strip_months = 3};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.n_done, 3);
    /* January cannot be entered (no December), so the strip starts in Feb */
    assert_string_equal(s.m[0].reason, "before the first strip (2024-02)");
    static const int64_t pnl[3] = {10000, -10000, 5000};
    static const double hedged[3] = {2.516666667, 2.525, 2.50}, eu[3] = {0.10, -0.10, 0.05};
    for (int i = 0; i < 3; i++) {
        const hedge_sim_month *m = &s.m[i + 1];
        assert_int_equal(m->entered, day_of("2024-01-01"));
        assert_int_equal(m->entry_e4, 20000);
        assert_int_equal(m->contracts, 10);
        assert_int_equal(m->pnl_cents, pnl[i]);
        tu_assert_close(m->hedged, hedged[i], 1e-9, "hedged");
        tu_assert_close(m->budget, 2.50, 1e-12, "budget");
        tu_assert_close(m->err_unhedged, eu[i], 1e-12, "err unhedged");
        tu_assert_close(m->err_hedged, hedged[i] - 2.50, 1e-9, "err hedged");
    }
    tu_assert_close(s.err_u.sd, 0.104083300, 1e-8, "err_u sd");
    tu_assert_close(s.err_u.rms, 0.086602540, 1e-8, "err_u rms");
    tu_assert_close(s.err_h.sd, 0.012729377, 1e-8, "err_h sd");
    tu_assert_close(s.err_h.rms, 0.017347217, 1e-8, "err_h rms");
    tu_assert_close(s.var_removed, 0.985042735, 1e-8, "var removed");
    tu_assert_close(s.rms_reduction, 0.799691596, 1e-8, "rms reduction");
    assert_int_equal(s.n_blocks, 1);
    assert_int_equal(s.blocks[0].first, day_of("2024-02-01"));
    assert_int_equal(s.blocks[0].last, day_of("2024-04-01"));
    assert_int_equal(s.blocks[0].months, 3);
    tu_assert_close(s.blocks[0].budget_usd, 7500, 1e-12, "budget usd");
    tu_assert_close(s.blocks[0].unhedged_usd, 7590, 1e-12, "unhedged usd");
    tu_assert_close(s.blocks[0].hedged_usd, 7540, 1e-12, "hedged usd");
    tu_assert_close(s.blocks[0].hedged_quantity, 3000, 1e-12, "hedged quantity");
    hedge_sim_free(&s);

    /* 2-month strips: Feb-Mar entered end of Jan (exposure 1000 -> 10
     * contracts at 2.00), Apr entered end of Mar (exposure 800 -> 8
     * contracts at Mar's FSP 1.90: 8 x 100 x 0.15 = $120) */
    o.strip_months = 2;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_blocks, 2);
    assert_int_equal(s.m[3].entered, day_of("2024-03-01"));
    assert_int_equal(s.m[3].contracts, 8);
    assert_int_equal(s.m[3].entry_e4, 19000);
    assert_int_equal(s.m[3].pnl_cents, 12000);
    tu_assert_close(s.m[3].budget, 2.40, 1e-12, "Apr budget = Mar rent");
    hedge_sim_free(&s);

    /* --start 2024-03: Feb is before the strip; Mar-Apr entered end of Feb
     * (exposure 1200 -> 12 contracts at 2.10; budget 2.10 + 0.50 = 2.60) */
    o.strip_months = 12;
    o.start = day_of("2024-03-01");
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 2);
    assert_string_equal(s.m[1].reason, "before the first strip (2024-03)");
    assert_int_equal(s.m[2].contracts, 12);
    assert_int_equal(s.m[2].pnl_cents, 12 * 100 * (19000 - 21000) / 100);
    tu_assert_close(s.m[3].budget, 2.60, 1e-12, "budget");
    hedge_sim_free(&s);

    /* a start whose month of entry has no index: every month says why */
    o.start = day_of("2024-01-01");
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 0);
    assert_string_equal(s.m[0].reason,
                        "no entry price: the month of entry 2023-12 has 0 index values (need 15)");
    assert_string_equal(s.m[3].reason, s.m[0].reason);
    hedge_sim_free(&s);

    /* a forward price per delivery month replaces the entry FSP; the
     * budget moves with it: Feb 2.05 + 0.50, Mar 1.95 + 0.50; no price for
     * April -> April skipped */
    char *dir = tu_mkdtemp("hedge-strip-fw");
    char *path = tu_write(dir, "fw.csv", "month,price\n2024-02,2.05\n2024-03,1.95\n");
    hedge_forward fw;
    assert_int_equal(hedge_forward_load(path, &fw, &d), GPI_OK);
    o.start = 0;
    o.forward = &fw;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 2);
    assert_int_equal(s.m[1].entry_e4, 20500);
    assert_int_equal(s.m[1].pnl_cents, 10 * 100 * (21000 - 20500) / 100);
    tu_assert_close(s.m[1].budget, 2.55, 1e-12, "Feb budget");
    tu_assert_close(s.m[2].budget, 2.45, 1e-12, "Mar budget");
    assert_string_equal(s.m[3].reason, "no forward price for this month");
    hedge_sim_free(&s);
    hedge_forward_free(&fw);
    free(path);
    free(dir);
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
        /* RFC 4180 quoting: the quoted comma is in the price */
        {"quoted comma", "month,price\n\"2024-12\",\"2,4\"\n",
         "2: price: not a number (got \"2,4\")"},
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
        cmocka_unit_test(test_simulate_payer_by_hand),
        cmocka_unit_test(test_simulate_exposure_needs_adjacent_month),
        cmocka_unit_test(test_simulate_total_pnl_overflow),
        cmocka_unit_test(test_simulate_earner_by_hand),
        cmocka_unit_test(test_simulate_contract_terms),
        cmocka_unit_test(test_simulate_strip_by_hand),
        cmocka_unit_test(test_index_range_and_svg),
        cmocka_unit_test(test_forward_file_and_nul),
        cmocka_unit_test(test_forward_price_rounded_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
