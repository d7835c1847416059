/* tests/test_hedge_ratio.c -- the hedge ratio of the replay: `hedge
 * simulate --ratio auto` (hedge/sim_ratio.c: fitted only on the months
 * before the one hedged, a minimum history, never a switch of side, a
 * cap; numpy reference values), and the replay's agreement with
 * `analyze`'s effectiveness at a ratio on random histories (a property,
 * for payers and earners).  The replay by hand: tests/test_hedge_replay.c. */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "hedge/hedge.h"
#include "tests/hedge_vectors.h"

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

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simulate_auto_no_lookahead),
        cmocka_unit_test(test_auto_ratio_rules),
        cmocka_unit_test(test_replay_agrees_with_analyze),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
