/* tests/test_hedge_replay.c -- hedge/: the month-by-month replay with cash
 * settlement (SPEC §9; the monthly FSP is settlement/'s settle_fsp,
 * tested in tests/test_settlement.c): payer and earner replays
 * checked by hand (roll and strip, with their budget errors: reference
 * values from tests/ref/hedge_v2.py), exposure and overflow rules, the
 * automatic hedge ratio (no look-ahead, minimum history, no switch of
 * side, cap), the replay's agreement with `analyze`'s effectiveness on
 * random series, forward-price files, the index range and the chart. */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "hedge/hedge.h"
#include "settlement/settlement.h"
#include "tests/hedge_vectors.h"

/* Index days: every day of each month from Jan 2024 at the given value. */
static gpi_index_day *monthly_index(const int64_t *val_e4, int months, size_t *n)
{
    gpi_index_day *idx = malloc(31 * (size_t)months * sizeof *idx);
    assert_non_null(idx);
    *n = 0;
    for (int m = 0; m < months; m++) {
        int y = 2024 + m / 12, mo = m % 12 + 1;
        int32_t s = gpi_days_from_civil(y, mo, 1);
        for (int k = 0; k < gpi_month_days(y, mo); k++)
            idx[(*n)++] = (gpi_index_day){s + k, GPI_LEVEL_TRADES, val_e4[m]};
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

static void test_simulate_auto_no_lookahead(void **state)
{
    (void)state;
    /* §6 vector as monthly index and rent (720,000 GPU-h a month), earner,
     * auto ratio, size 1000.  numpy polyfit on the changes before month m:
     * month 5 (3 changes) h = 3.000000, month 9 (7 changes) h = 0.931250,
     * month 12 (10 changes) h = 0.976744.
     * With --min-changes 3: months 2-4 have fewer changes -> not hedged
     * (h = 0, 0 contracts; not skipped); month 5's 3.0 is capped at 2 -> 1440;
     * month 9: 670.5 -> 671 (half away from zero); month 12: 703.2558 ->
     * 703, Dec P&L -(703*1000*(2.30-2.38)) = +$56,240. */
    int64_t val[12];
    for (int m = 0; m < 12; m++) val[m] = (int64_t)llround(vec_index[m] * 1e4);
    size_t nidx;
    gpi_index_day *idx = monthly_index(val, 12, &nidx);
    char csv[1024] = "date,price,quantity\n";
    for (int m = 0; m < 12; m++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "2024-%02d-28,%.2f,720000\n", m + 1,
                 vec_rent[m]);
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_sim_opts o = {.side = HEDGE_EARNER, .ratio_auto = 1, .size = 1000, .min_days = 15,
                        .min_changes = 3};
    hedge_sim s;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 11);
    assert_int_equal(s.m[3].skipped, 0);
    assert_int_equal(s.m[3].rule, HEDGE_RATIO_FALLBACK);
    assert_int_equal(s.m[3].h_changes, 2);
    tu_assert_close(s.m[3].h, 0.0, 0, "month 4 h");
    assert_int_equal(s.m[3].contracts, 0);
    assert_int_equal(s.m[4].rule, HEDGE_RATIO_CAPPED);
    tu_assert_close(s.m[4].h_fit, 3.0, 1e-9, "month 5 fit");
    tu_assert_close(s.m[4].h, HEDGE_RATIO_CAP, 0, "month 5 h");
    assert_int_equal(s.m[4].contracts, 1440);
    assert_int_equal(s.m[8].rule, HEDGE_RATIO_FITTED);
    tu_assert_close(s.m[8].h, 0.93125, 1e-9, "month 9 h");
    assert_int_equal(s.m[8].contracts, 671);
    tu_assert_close(s.m[11].h, 0.976744, 1e-6, "month 12 h");
    assert_int_equal(s.m[11].contracts, 703);
    assert_int_equal(s.m[11].pnl_cents, 5624000);
    assert_int_equal(s.n_rule[HEDGE_RATIO_FALLBACK], 3); /* Feb, Mar, Apr */
    assert_int_equal(s.n_rule[HEDGE_RATIO_CAPPED], 1);
    int found = 0;
    for (size_t k = 0; k < s.n_warnings; k++) {
        if (strcmp(s.warnings[k], "auto ratio: 3 month(s) NOT hedged: fewer than 3 monthly changes "
                                  "before them to fit h on") == 0)
            found |= 1;
        if (strcmp(s.warnings[k], "auto ratio: capped at 2.0 in 1 month(s) (fitted up to 3.000): "
                                  "a larger ratio is a bet on the grade, not a hedge") == 0)
            found |= 2;
    }
    assert_int_equal(found, 3);
    hedge_sim_free(&s);

    /* the default minimum (12 monthly changes) is never reached in one
     * year: no month is hedged (the replay never hedges without a fit),
     * and it says so and why */
    o.min_changes = 0;
    assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
    assert_int_equal(s.n_done, 11);
    assert_int_equal(s.n_rule[HEDGE_RATIO_FALLBACK], 11);
    for (size_t m = 1; m < 12; m++) assert_int_equal(s.m[m].contracts, 0);
    assert_string_equal(s.warnings[0], "only 11 months replayed (fewer than 12): the comparison is "
                                       "unreliable");
    assert_string_equal(s.warnings[1], "auto ratio hedged no month: before each, fewer than 12 "
                                       "monthly changes to fit h on, or a fit <= 0 (the grade "
                                       "moved against the rent); give --ratio X to replay a fixed "
                                       "ratio");
    assert_string_equal(s.warnings[2], "auto ratio: 11 month(s) NOT hedged: fewer than 12 monthly "
                                       "changes before them to fit h on");
    hedge_sim_free(&s);
    hedge_rent_free(&r);
    free(idx);
}

static void test_auto_ratio_rules(void **state)
{
    (void)state;
    /* The documented policy, and the old failure: h = 2.298 fitted on 3
     * changes, then -0.4 (a payer's purchase silently turned into a
     * sale). */
    static const struct {
        int ok;
        double b;
        size_t n, min;
        hedge_ratio_rule rule;
        double h;
    } cases[] = {
        {1, 2.298, 3, 0, HEDGE_RATIO_FALLBACK, 0.0},   /* 3 < 12: not hedged */
        {1, -0.4, 4, 0, HEDGE_RATIO_FALLBACK, 0.0},
        {1, 0.8, 11, 0, HEDGE_RATIO_FALLBACK, 0.0},
        {1, 0.8, 12, 0, HEDGE_RATIO_FITTED, 0.8},      /* exactly the minimum */
        {1, -0.4, 12, 0, HEDGE_RATIO_NEGATIVE, 0.0},   /* never a sale */
        {1, 0.0, 30, 0, HEDGE_RATIO_NEGATIVE, 0.0},
        {1, 2.298, 12, 0, HEDGE_RATIO_CAPPED, 2.0},
        {1, 2.0, 12, 0, HEDGE_RATIO_FITTED, 2.0},      /* the cap itself */
        {1, 2.298, 3, 3, HEDGE_RATIO_CAPPED, 2.0},     /* --min-changes 3 */
        {0, NAN, 40, 0, HEDGE_RATIO_FALLBACK, 0.0},    /* no fit: index flat */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hedge_ols fit;
        memset(&fit, 0, sizeof fit);
        fit.ok = cases[i].ok;
        fit.b = cases[i].b;
        double h = -9;
        hedge_ratio_rule rule = hedge_auto_ratio(&fit, cases[i].n, cases[i].min, &h);
        if (rule != cases[i].rule || h != cases[i].h)
            fail_msg("case %zu: rule %d h %g, want %d %g", i, rule, h, cases[i].rule, cases[i].h);
    }
    double h = -9;
    assert_int_equal(hedge_auto_ratio(NULL, 50, 0, &h), HEDGE_RATIO_FALLBACK);
    assert_true(h == 0.0);
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

/* A small deterministic generator (LCG) for the property test. */
static double unit(uint64_t *st)
{
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*st >> 11) / 9007199254740992.0;
}

static void test_replay_agrees_with_analyze(void **state)
{
    (void)state;
    /* Property, on 60 random histories of 14-30 months (index constant
     * within a month, so its mean and FSP are the same number; a constant
     * quantity of k x 1000 GPU-hours, size 1000, so ratio 1 gives exactly
     * k contracts):
     *  - roll at ratio 1: the hedged budget error is Δrent - Δindex, the
     *    unhedged one Δrent, so the variance removed is analyze's
     *    effectiveness at h = 1 on monthly changes, for payer and earner;
     *  - a strip of 1 month is the roll;
     *  - a strip at ratio 1 leaves exactly the change of basis since entry;
     *  - auto never sells for a payer nor buys for an earner.
     * §6 vector: the same at ratio 1 (0.708375378) and at --ratio 1.027820
     * (740 of 720 contracts: 0.708894713, tests/ref/hedge_v2.py). */
    uint64_t st = 42;
    size_t rules[HEDGE_RATIO_NRULES] = {0};
    for (int rep = 0; rep < 61; rep++) {
        int months = rep == 60 ? 12 : 14 + (int)(unit(&st) * 17);
        int64_t val[40];
        double rent[40];
        double level = 1.5 + unit(&st) * 2, basis = unit(&st) * 0.4 - 0.2;
        /* some grades move against the rent, some far less than it */
        double beta = unit(&st) * 3.4 - 0.8;
        for (int m = 0; m < months; m++) {
            double di = (unit(&st) - 0.5) * 0.3;
            level += di;
            val[m] = (int64_t)llround(level * 1e4);
            basis += (beta - 1) * di + (unit(&st) - 0.5) * 0.05;
            rent[m] = (double)val[m] / 1e4 + basis;
            if (rent[m] < 0.05) rent[m] = 0.05;
            rent[m] = (double)llround(rent[m] * 1e6) / 1e6; /* as written to the file */
            if (rep == 60) {
                val[m] = (int64_t)llround(vec_index[m] * 1e4);
                rent[m] = vec_rent[m];
            }
        }
        size_t nidx;
        gpi_index_day *idx = monthly_index(val, months, &nidx);
        int k = rep == 60 ? 720 : 1 + (int)(unit(&st) * 50);
        char *csv = malloc(64 * (size_t)months + 32);
        assert_non_null(csv);
        strcpy(csv, "date,price,quantity\n");
        for (int m = 0; m < months; m++)
            snprintf(csv + strlen(csv), 64, "%04d-%02d-10,%.6f,%d\n", 2024 + m / 12, m % 12 + 1,
                     rent[m], k * 1000);
        hedge_rent r;
        gpi_diag d = {{0}};
        assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
        hedge_series ser;
        hedge_analysis a;
        assert_int_equal(hedge_align(&r, idx, nidx, HEDGE_MONTH, &ser, &d), GPI_OK);
        assert_int_equal(hedge_analyze(&ser, 0, &a, &d), GPI_OK);
        for (int side = 0; side < 2; side++) {
            hedge_sim_opts o = {.side = side ? HEDGE_EARNER : HEDGE_PAYER, .ratio = 1,
                                .size = 1000, .min_days = 15};
            hedge_sim s, s1;
            assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
            assert_int_equal(s.n_done, (size_t)months - 1);
            tu_assert_close(s.var_removed, a.he_naive, 1e-9, "roll var removed = HE(1)");
            tu_assert_close(s.var_removed_exact, a.he_naive, 1e-9, "exact sizing = HE(1)");
            if (rep == 60) tu_assert_close(s.var_removed, 0.708375378, 1e-8, "§6 HE(1)");
            /* strip of 1 month = roll */
            hedge_sim_opts o1 = o;
            o1.strategy = HEDGE_STRIP;
            o1.strip_months = 1;
            assert_int_equal(hedge_simulate(&r, idx, nidx, &o1, &s1, &d), GPI_OK);
            for (size_t m = 0; m < s.n; m++) {
                assert_int_equal(s1.m[m].pnl_cents, s.m[m].pnl_cents);
                if (!s.m[m].skipped)
                    tu_assert_close(s1.m[m].err_hedged, s.m[m].err_hedged, 1e-12, "strip 1");
            }
            hedge_sim_free(&s1);
            /* 12-month strips: hedged error = basis now - basis at entry */
            o1.strip_months = 12;
            assert_int_equal(hedge_simulate(&r, idx, nidx, &o1, &s1, &d), GPI_OK);
            for (size_t m = 1; m < s1.n; m++) {
                const hedge_sim_month *x = &s1.m[m];
                assert_false(x->skipped);
                int e = (int)(m - 1) / 12 * 12; /* month index of entry */
                double want = (rent[m] - (double)val[m] / 1e4) - (rent[e] - (double)val[e] / 1e4);
                tu_assert_close(x->err_hedged, want, 1e-9, "strip error = change of basis");
            }
            hedge_sim_free(&s1);
            /* auto, with a short minimum so that fits are used */
            o.ratio_auto = 1;
            o.min_changes = 3;
            assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s1, &d), GPI_OK);
            for (int q = 0; q < HEDGE_RATIO_NRULES; q++) rules[q] += s1.n_rule[q];
            for (size_t m = 0; m < s1.n; m++)
                if (!s1.m[m].skipped) {
                    assert_true(s1.m[m].contracts >= 0);
                    assert_true(s1.m[m].h >= 0 && s1.m[m].h <= HEDGE_RATIO_CAP);
                    /* a payer's futures gain when the index rises */
                    int64_t move = s1.m[m].fsp_e4 - s1.m[m].entry_e4;
                    if (s1.m[m].pnl_cents != 0)
                        assert_true((s1.m[m].pnl_cents > 0) == ((move > 0) == (side == 0)));
                }
            hedge_sim_free(&s1);
            hedge_sim_free(&s);
        }
        if (rep == 60) {
            hedge_sim_opts o = {.side = HEDGE_PAYER, .ratio = 1.027820, .size = 1000, .min_days = 15};
            hedge_sim s;
            assert_int_equal(hedge_simulate(&r, idx, nidx, &o, &s, &d), GPI_OK);
            assert_int_equal(s.m[1].contracts, 740);
            tu_assert_close(s.var_removed, 0.708894713, 1e-8, "§6 at 740/720");
            hedge_sim_free(&s);
        }
        hedge_analysis_free(&a);
        hedge_series_free(&ser);
        hedge_rent_free(&r);
        free(csv);
        free(idx);
    }
    /* the random histories did exercise every auto rule */
    for (int q = HEDGE_RATIO_FITTED; q < HEDGE_RATIO_NRULES; q++)
        if (rules[q] == 0) fail_msg("rule %d never applied", q);
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
        cmocka_unit_test(test_simulate_auto_no_lookahead),
        cmocka_unit_test(test_auto_ratio_rules),
        cmocka_unit_test(test_simulate_contract_terms),
        cmocka_unit_test(test_simulate_strip_by_hand),
        cmocka_unit_test(test_replay_agrees_with_analyze),
        cmocka_unit_test(test_index_range_and_svg),
        cmocka_unit_test(test_forward_file_and_nul),
        cmocka_unit_test(test_forward_price_rounded_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
