/* tests/test_hedge.c -- hedge/: rent parsing, periods, analysis (the replay:
 * tests/test_hedge_replay.c and tests/test_hedge_ratio.c).
 *
 * Reference values: docs/hedge-and-settlement.md §6 (vectors A, B, D, E,
 * F; computed in Python and cross-checked with GSL), and where §6 has no
 * figure (horizons 2 and 3, rolling, p5/p95, auto ratios) a short numpy
 * script kept in the comments next to the literals.  Replays are checked
 * by hand, the arithmetic written out in comments.
 */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "hedge/hedge.h"
#include "tests/hedge_vectors.h"

static int has_warning(const hedge_analysis *a, const char *needle)
{
    for (size_t i = 0; i < a->n_warnings; i++)
        if (strstr(a->warnings[i], needle)) return 1;
    return 0;
}

static void test_vectors_a_b_d(void **state)
{
    (void)state;
    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, vec_rent);
    hedge_analysis a;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_int_equal(a.n, 12);
    assert_int_equal(a.n_changes, 11);
    /* B: changes */
    tu_assert_close(a.chg.b, 1.027820, 1e-6, "h");
    tu_assert_close(a.chg.a, 0.008008, 1e-6, "alpha");
    tu_assert_close(a.chg.se_b, 0.219548, 1e-6, "se");
    tu_assert_close(a.chg.t_b, 4.6815, 1e-4, "t");
    tu_assert_close(a.chg.f, 21.9166, 1e-4, "F");
    tu_assert_close(a.chg.r2, 0.708895, 1e-6, "R2");
    tu_assert_close(a.chg.rho, 0.841959, 1e-6, "rho");
    tu_assert_close(a.he, 0.708895, 1e-6, "HE at h");
    tu_assert_close(a.he_naive, 0.708375, 1e-6, "HE at 1");
    assert_int_equal(a.nw_lag, 2);
    tu_assert_close(a.nw_se_h, 0.111122, 1e-6, "Newey-West se");
    /* A: levels */
    tu_assert_close(a.lev.a, 0.115850, 1e-6, "levels a");
    tu_assert_close(a.lev.b, 0.883751, 1e-6, "levels b");
    tu_assert_close(a.lev.se_b, 0.019790, 1e-6, "levels se");
    tu_assert_close(a.lev.r2, 0.995011, 1e-6, "levels R2");
    tu_assert_close(a.lev.f, 1994.29, 1e-5, "levels F");
    /* basis; p5/p95: numpy.percentile (linear, = GSL) of rent - index */
    tu_assert_close(a.basis.mean, -0.188333, 1e-6, "basis mean");
    tu_assert_close(a.basis.sd, 0.026912, 1e-6, "basis sd");
    tu_assert_close(a.basis.sd_change, 0.022923, 1e-6, "basis sd change");
    tu_assert_close(a.basis.min, -0.24, 1e-9, "basis min");
    tu_assert_close(a.basis.max, -0.15, 1e-9, "basis max");
    tu_assert_close(a.basis.p5, -0.229, 1e-9, "basis p5");
    tu_assert_close(a.basis.p95, -0.1555, 1e-9, "basis p95");
    /* D: the regression test fails (slope = R2 at the OLS h), the
     * cumulative dollar offset passes; 8 of 11 period ratios outside */
    tu_assert_close(a.regtest.r2, 0.708895, 1e-6, "regtest r2");
    tu_assert_close(a.regtest.slope, 0.708895, 1e-6, "regtest slope");
    assert_int_equal(a.regtest.pass, 0);
    tu_assert_close(a.offset.ratio, 1.151867, 1e-6, "dollar offset");
    assert_int_equal(a.offset.pass, 1);
    assert_int_equal(a.offset.periods, 11);
    assert_int_equal(a.offset.periods_outside, 8);
    /* horizons (numpy: overlapping k-changes, NW lag max(rule, k-1)):
     * k=2: T=10 L=2 h=0.903654 se=0.094284 r2=0.919888 nw=0.087578
     * k=3: T=9  L=2 h=0.941099 se=0.251900 r2=0.665995 nw=0.161739 */
    assert_int_equal(a.horizons[0].n_changes, 11);
    tu_assert_close(a.horizons[0].h, 1.027820, 1e-6, "k1 h");
    assert_int_equal(a.horizons[1].n_changes, 10);
    assert_int_equal(a.horizons[1].nw_lag, 2);
    tu_assert_close(a.horizons[1].h, 0.903654, 1e-6, "k2 h");
    tu_assert_close(a.horizons[1].se_h, 0.094284, 1e-6, "k2 se");
    tu_assert_close(a.horizons[1].r2, 0.919888, 1e-6, "k2 r2");
    tu_assert_close(a.horizons[1].he, 0.919888, 1e-6, "k2 he");
    tu_assert_close(a.horizons[1].nw_se_h, 0.087578, 1e-6, "k2 nw");
    assert_int_equal(a.horizons[2].n_changes, 9);
    tu_assert_close(a.horizons[2].h, 0.941099, 1e-6, "k3 h");
    tu_assert_close(a.horizons[2].nw_se_h, 0.161739, 1e-6, "k3 nw");
    /* rolling, window 12: one full window, equal to the full sample */
    assert_int_equal(a.n_rolling, 1);
    assert_int_equal(a.rolling[0].n_changes, 11);
    tu_assert_close(a.rolling[0].h, 1.027820, 1e-6, "rolling 12");
    assert_int_equal(a.n_warnings, 0);
    hedge_analysis_free(&a);

    /* window 6: 5 changes each; numpy polyfit on di[t-5:t], dr[t-5:t]:
     * ends Jun..Dec h = 0.214286 0.392857 0.904145 0.893617 0.981781
     * 1.109504 1.127451 */
    static const double roll6[7] = {0.214286, 0.392857, 0.904145, 0.893617,
                                    0.981781, 1.109504, 1.127451};
    assert_int_equal(hedge_analyze(&s, 6, &a, &d), GPI_OK);
    assert_int_equal(a.n_rolling, 7);
    assert_int_equal(a.rolling[0].end, gpi_days_from_civil(2024, 6, 1));
    for (int i = 0; i < 7; i++) {
        assert_int_equal(a.rolling[i].n_changes, 5);
        tu_assert_close(a.rolling[i].h, roll6[i], 1e-5, "rolling 6");
    }
    tu_assert_close(a.rolling[6].r2, 0.918250, 1e-5, "rolling 6 r2");
    hedge_analysis_free(&a);
}

static void test_horizon_lag_at_least_k_minus_1(void **state)
{
    (void)state;
    /* the first 7 months of the §6 vector: k = 3 gives T = 4 changes, the
     * rule floor(4 (4/100)^(2/9)) = 1, so the lag is k - 1 = 2.  numpy
     * (Bartlett, no correction): k=3 h = 0.166667, NW se 0.507151 at lag 2
     * (0.621130 at lag 1); k=1: T=6, lag 2, h 0.323529, NW se 0.463142. */
    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, vec_rent);
    s.n = 7;
    hedge_analysis a;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_int_equal(a.horizons[2].n_changes, 4);
    assert_int_equal(hedge_nw_lag_rule(4), 1);
    assert_int_equal(a.horizons[2].nw_lag, 2);
    tu_assert_close(a.horizons[2].h, 0.166667, 1e-5, "k3 h");
    tu_assert_close(a.horizons[2].nw_se_h, 0.507151, 1e-5, "k3 nw");
    assert_int_equal(a.horizons[0].nw_lag, 2);
    tu_assert_close(a.horizons[0].nw_se_h, 0.463142, 1e-5, "k1 nw");
    tu_assert_close(a.nw_se_h, 0.463142, 1e-5, "nw");
    hedge_analysis_free(&a);
}

static void test_accounting_test_bounds(void **state)
{
    (void)state;
    /* §6 index with other rents; numpy polyfit / corrcoef on the changes,
     * ratio = h * sum(di) / sum(dr):
     *   low   h 0.825564 R2 0.607553 ratio 0.715489: both fail
     *   high  h 1.259398 R2 0.772708 ratio 1.186390: offset passes
     *   over  h 1.304511 R2 0.917813 ratio 1.345924: regression passes
     *         (slope = R2 at the OLS h), offset fails
     *   tiny  h 0.396241, sum(dr) 0.01 vs mean |dr| 0.091818: ratio
     *         -25.755639 fails and is flagged as not meaningful */
    static const struct {
        const char *name;
        double rent[12], h, r2, ratio;
        int reg_pass, off_pass, tiny;
    } cases[] = {
        {"low", {2.7, 2.62, 2.53, 2.51, 2.44, 2.36, 2.27, 2.28, 2.22, 2.11, 2.06, 1.95},
         0.825564, 0.607553, 0.715489, 0, 0, 0},
        {"high", {2.7, 2.6, 2.55, 2.49, 2.45, 2.35, 2.28, 2.35, 2.24, 2.18, 2.11, 2.01},
         1.259398, 0.772708, 1.186390, 0, 1, 0},
        {"over", {2.7, 2.62, 2.53, 2.47, 2.44, 2.36, 2.3, 2.37, 2.3, 2.2, 2.16, 2.07},
         1.304511, 0.917813, 1.345924, 1, 0, 0},
        {"tiny", {2.50, 2.60, 2.50, 2.60, 2.50, 2.60, 2.50, 2.60, 2.50, 2.60, 2.50, 2.51},
         0.396241, NAN, -25.755639, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hedge_series s;
        hedge_period p[12];
        vec_series(&s, p, cases[i].rent);
        hedge_analysis a;
        gpi_diag d = {{0}};
        assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
        tu_assert_close(a.chg.b, cases[i].h, 1e-5, cases[i].name);
        if (!isnan(cases[i].r2)) {
            tu_assert_close(a.regtest.r2, cases[i].r2, 1e-5, cases[i].name);
            tu_assert_close(a.regtest.slope, cases[i].r2, 1e-5, cases[i].name);
        }
        tu_assert_close(a.offset.ratio, cases[i].ratio, 1e-5, cases[i].name);
        if (a.regtest.pass != cases[i].reg_pass) fail_msg("%s: regression pass %d", cases[i].name, a.regtest.pass);
        if (a.offset.pass != cases[i].off_pass) fail_msg("%s: offset pass %d", cases[i].name, a.offset.pass);
        if (has_warning(&a, "is tiny next to its typical period change") != cases[i].tiny)
            fail_msg("%s: tiny-denominator warning", cases[i].name);
        hedge_analysis_free(&a);
    }
    /* the small-sample warning starts below 12 periods */
    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, vec_rent);
    s.n = 11;
    hedge_analysis a;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_true(has_warning(&a, "only 11 periods (fewer than 12)"));
    hedge_analysis_free(&a);
}

static void test_vector_e_robust(void **state)
{
    (void)state;
    double rent[12];
    memcpy(rent, vec_rent, sizeof rent);
    rent[7] = 2.70; /* month 8 raised by 0.30 */
    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, rent);
    hedge_analysis a;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    tu_assert_close(a.lev.a, 0.203824, 1e-6, "OLS a");
    tu_assert_close(a.lev.b, 0.859685, 1e-6, "OLS b");
    tu_assert_close(a.lev.r2, 0.796195, 1e-6, "OLS r2");
    tu_assert_close(a.robust.a, 0.116092, 1e-6, "bisquare a");
    tu_assert_close(a.robust.b, 0.883513, 1e-6, "bisquare b");
    assert_int_equal(a.robust.n, 12);
    assert_true(a.robust.weights[7] < 1e-6);
    for (int i = 0; i < 12; i++)
        if (i != 7) assert_true(a.robust.weights[i] > 0.5);
    hedge_analysis_free(&a);
}

static void test_short_series_no_nan_stats(void **state)
{
    (void)state;
    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, vec_rent);
    s.n = 3; /* 2 changes: too short to regress */
    hedge_analysis a;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_int_equal(a.n_changes, 2);
    assert_int_equal(a.chg.ok, 0);
    assert_true(isnan(a.chg.b));
    assert_true(has_warning(&a, "only 3 periods (fewer than 12)"));
    assert_true(has_warning(&a, "too short to regress: 2 changes"));
    assert_int_equal(a.regtest.pass, 0);
    assert_int_equal(a.offset.pass, 0);
    hedge_analysis_free(&a);

    /* a flat index: no hedge ratio, said so */
    for (int m = 0; m < 12; m++) p[m].index = 2.0;
    s.n = 12;
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_int_equal(a.chg.ok, 0);
    assert_true(has_warning(&a, "the index did not change"));
    hedge_analysis_free(&a);
}

static void test_periods_iso_weeks(void **state)
{
    (void)state;
    static const struct {
        const char *day, *week, *monday;
    } cases[] = {
        {"2024-12-30", "2025-W01", "2024-12-30"}, /* Monday in 2024, week of 2025 */
        {"2025-01-05", "2025-W01", "2024-12-30"}, /* Sunday */
        {"2024-12-29", "2024-W52", "2024-12-23"},
        {"2021-01-03", "2020-W53", "2020-12-28"}, /* 2020 has 53 weeks */
        {"2026-01-01", "2026-W01", "2025-12-29"},
        {"2024-03-13", "2024-W11", "2024-03-11"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t start = hedge_period_start(HEDGE_WEEK, day_of(cases[i].day));
        char lab[16];
        hedge_period_label(HEDGE_WEEK, start, lab);
        assert_string_equal(lab, cases[i].week);
        assert_int_equal(start, day_of(cases[i].monday));
    }
    char lab[16];
    hedge_period_label(HEDGE_MONTH, hedge_period_start(HEDGE_MONTH, day_of("2024-02-29")), lab);
    assert_string_equal(lab, "2024-02");
    assert_int_equal(hedge_period_next(HEDGE_MONTH, day_of("2024-02-01")), day_of("2024-03-01"));
    assert_int_equal(hedge_freq_parse("Week"), HEDGE_WEEK);
    assert_int_equal(hedge_freq_parse("fortnight"), -1);
}

static void test_weekly_alignment_across_year(void **state)
{
    (void)state;
    /* rent: Mon 2024-12-23 2.00 x 10 and Fri 2024-12-27 2.30 x 30
     *         -> week 2024-W52: (20 + 69) / 40 = 2.225, quantity 40
     *       Tue 2024-12-31 2.40 x 5 and Thu 2025-01-02 2.10 x 15
     *         -> week 2025-W01: (12 + 31.5) / 20 = 2.175
     *       Mon 2025-01-13 2.50 x 1 -> 2025-W03 (W02 has no rent) */
    const char *csv = "date,price,quantity\n"
                      "2024-12-27,2.30,30\n"
                      "2024-12-23,2.00,10\n"
                      "2024-12-31,2.40,5\n"
                      "2025-01-02,2.10,15\n"
                      "2025-01-13,2.50,1\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    assert_int_equal(r.n, 5);
    assert_int_equal(r.has_quantity, 1);
    /* index: W52 1.9000, 1.9500 (mean 1.9250); W01 2.0000, suspended,
     * 2.1000 (mean 2.0500: the suspended day is skipped); W02 2.2; W03 2.3 */
    gpi_index_day idx[] = {
        {day_of("2024-12-24"), GPI_LEVEL_TRADES, 19000},
        {day_of("2024-12-29"), GPI_LEVEL_OFFERS, 19500},
        {day_of("2024-12-30"), GPI_LEVEL_TRADES, 20000},
        {day_of("2024-12-31"), GPI_LEVEL_SUSPENDED, 99999},
        {day_of("2025-01-05"), GPI_LEVEL_CARRIED, 21000},
        {day_of("2025-01-06"), GPI_LEVEL_TRADES, 22000},
        {day_of("2025-01-13"), GPI_LEVEL_TRADES, 23000},
    };
    hedge_series s;
    assert_int_equal(hedge_align(&r, idx, sizeof idx / sizeof idx[0], HEDGE_WEEK, &s, &d), GPI_OK);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.n_rent_periods, 3);
    char lab[16];
    hedge_period_label(HEDGE_WEEK, s.p[0].start, lab);
    assert_string_equal(lab, "2024-W52");
    hedge_period_label(HEDGE_WEEK, s.p[1].start, lab);
    assert_string_equal(lab, "2025-W01");
    hedge_period_label(HEDGE_WEEK, s.p[2].start, lab);
    assert_string_equal(lab, "2025-W03");
    tu_assert_close(s.p[0].rent, 2.225, 1e-12, "W52 rent");
    tu_assert_close(s.p[0].quantity, 40, 1e-12, "W52 quantity");
    tu_assert_close(s.p[0].index, 1.925, 1e-12, "W52 index");
    tu_assert_close(s.p[1].rent, 2.175, 1e-12, "W01 rent");
    tu_assert_close(s.p[1].index, 2.05, 1e-12, "W01 index");
    assert_int_equal(s.p[1].n_index, 2);
    /* changes: W52 -> W01 only; W03 follows a gap (no W02 rent) */
    assert_int_equal(s.p[2].n_index, 1);
    hedge_changes c;
    assert_int_equal(hedge_changes_make(&s, 1, &c, &d), GPI_OK);
    assert_int_equal(c.n, 1);
    tu_assert_close(c.dr[0], -0.05, 1e-9, "dr");
    tu_assert_close(c.di[0], 0.125, 1e-9, "di");
    hedge_changes_free(&c);
    hedge_series_free(&s);
    hedge_rent_free(&r);
}

static void test_align_skips_all_suspended_period(void **state)
{
    (void)state;
    /* February's index is suspended every day: February has rent but no
     * index value, so it is not a period of the analysis (and breaks the
     * chain), rather than a period with an undefined index. */
    const int64_t val[3] = {20000, 21000, 22000};
    gpi_index_day idx[3 * 31];
    size_t n = 0;
    for (int m = 0; m < 3; m++)
        for (int k = 0; k < gpi_month_days(2024, m + 1); k++)
            idx[n++] = (gpi_index_day){gpi_days_from_civil(2024, m + 1, 1) + k,
                                         m == 1 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES,
                                         m == 1 ? -1 : val[m]};
    const char *csv = "2024-01-15,2.5\n2024-02-15,2.6\n2024-03-15,2.7\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    hedge_series s;
    assert_int_equal(hedge_align(&r, idx, n, HEDGE_MONTH, &s, &d), GPI_OK);
    assert_int_equal(s.n_rent_periods, 3);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.p[0].start, day_of("2024-01-01"));
    assert_int_equal(s.p[1].start, day_of("2024-03-01"));
    tu_assert_close(s.p[1].index, 2.2, 1e-12, "March index");
    hedge_series_free(&s);
    hedge_rent_free(&r);
}

/* A rent that never moved, over months of 31, 28, 31 and 30 days, is
 * constant to the last bit (so "the rent did not change" is said and
 * R² is n/a), and a rent that is the index plus 0.10 fits exactly (R² 1,
 * t and F n/a, said so) instead of printing t ~ 10^15. */
static void test_constant_rent_and_exact_fit(void **state)
{
    (void)state;
    enum { DAYS = 181 }; /* 2025-01-01 .. 2025-06-30 */
    int32_t d0 = day_of("2025-01-01");
    gpi_index_day idx[DAYS];
    char *flat = malloc(DAYS * 32), *plus = malloc(DAYS * 32);
    size_t nf = 0, np = 0;
    for (int k = 0; k < DAYS; k++) {
        int64_t v = 20000 + (int64_t)k * k * 37 % 1000; /* an irregular index */
        idx[k] = (gpi_index_day){d0 + k, GPI_LEVEL_TRADES, v};
        char date[11];
        gpi_date_format(d0 + k, date);
        nf += (size_t)snprintf(flat + nf, 32, "%s,2.1\n", date);
        np += (size_t)snprintf(plus + np, 32, "%s,%lld.%04lld\n", date,
                               (long long)((v + 1000) / 10000), (long long)((v + 1000) % 10000));
    }
    hedge_rent r;
    hedge_series s;
    hedge_analysis a;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("flat.csv", flat, nf, &r, &d), GPI_OK);
    assert_int_equal(hedge_align(&r, idx, DAYS, HEDGE_MONTH, &s, &d), GPI_OK);
    assert_int_equal(s.n, 6);
    for (size_t i = 0; i < s.n; i++) assert_true(s.p[i].rent == 2.1);
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_true(has_warning(&a, "the rent did not change"));
    assert_true(isnan(a.chg.r2));
    assert_true(isnan(a.he));
    hedge_analysis_free(&a);
    hedge_series_free(&s);
    hedge_rent_free(&r);

    assert_int_equal(hedge_rent_parse("plus.csv", plus, np, &r, &d), GPI_OK);
    assert_int_equal(hedge_align(&r, idx, DAYS, HEDGE_DAY, &s, &d), GPI_OK);
    assert_int_equal(s.n, DAYS);
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    tu_assert_close(a.chg.b, 1.0, 1e-12, "h");
    assert_true(a.chg.r2 == 1.0);
    assert_true(isnan(a.chg.t_b));
    assert_true(isnan(a.chg.f));
    assert_true(has_warning(&a, "the changes fit exactly"));
    /* an exact fit has degenerate intervals, not unknown ones: it ranks by
     * its effectiveness (issue 27 item 2) */
    assert_int_equal(a.exact, 1);
    assert_true(a.he == 1.0 && a.he_lo == 1.0 && a.he_hi == 1.0);
    tu_assert_close(a.h_lo, 1.0, 1e-12, "h lo");
    tu_assert_close(a.h_hi, 1.0, 1e-12, "h hi");
    hedge_analysis_free(&a);
    hedge_series_free(&s);
    hedge_rent_free(&r);
    free(flat);
    free(plus);
}

static void test_gaps_break_changes(void **state)
{
    (void)state;
    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, vec_rent);
    /* drop May (index 4): Jan..Apr and Jun..Dec remain */
    memmove(&p[4], &p[5], 7 * sizeof p[0]);
    s.n = 11;
    hedge_changes c;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_changes_make(&s, 1, &c, &d), GPI_OK);
    assert_int_equal(c.n, 9); /* 3 + 6: nothing spans Apr -> Jun */
    for (size_t j = 0; j < c.n; j++)
        assert_int_equal(s.p[c.end[j]].start, hedge_period_next(HEDGE_MONTH, s.p[c.end[j] - 1].start));
    hedge_changes_free(&c);
    assert_int_equal(hedge_changes_make(&s, 2, &c, &d), GPI_OK);
    assert_int_equal(c.n, 7); /* 2 + 5 */
    /* the first 2-change after the gap is Jun -> Aug: 2.58 - 2.62 */
    tu_assert_close(c.di[2], 2.58 - 2.62, 1e-12, "k2 after gap");
    hedge_changes_free(&c);
}

static void test_rent_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name, *csv, *msg;
    } cases[] = {
        {"bad date", "date,price\n2024-01-01,2.5\n2024-02-30,2.4\n",
         "r.csv:3: date: no such calendar date (got \"2024-02-30\")"},
        {"not a date", "2024/01/01,2.5\n", "r.csv:1: date: not a date or ISO-8601 timestamp (got \"2024/01/01\")"},
        {"zero price", "date,price\n2024-01-01,0\n", "r.csv:2: price: must be positive (got \"0\")"},
        {"negative price", "date,price\n\n2024-01-01,-2.7137\n",
         "r.csv:3: price: must be positive (got \"-2.7137\")"},
        {"text price", "date,price\n2024-01-01,abc\n", "r.csv:2: price: not a number (got \"abc\")"},
        {"duplicate", "date,price\n2024-01-02,2\n2024-01-01,2\n2024-01-02,3\n",
         "r.csv:4: date: duplicate date, first given on line 2 (got \"2024-01-02\")"},
        {"zero quantity", "date,price,quantity\n2024-01-01,2.5,0\n",
         "r.csv:2: quantity: must be positive (got \"0\")"},
        {"bad quantity", "date,price,quantity\r\n2024-01-01,2.5,lots\r\n",
         "r.csv:2: quantity: not a number (got \"lots\")"},
        {"missing quantity", "date,price,quantity\n2024-01-01,2.5,\n",
         "r.csv:2: quantity: missing (got \"\")"},
        {"field count", "date,price\n2024-01-01,2.5,3\n",
         "r.csv:2: row: expected 2 fields, found 3 (got \"2024-01-01,2.5,3\")"},
        {"bad header", "date,cost\n2024-01-01,2.5\n",
         "r.csv:1: header: expected date,price[,quantity] (got \"date,cost\")"},
        /* a header of other words is a wrong header, not a bad date */
        {"other header", "day,rent_usd\n2024-01-01,2.5\n",
         "r.csv:1: header: expected date,price[,quantity] (got \"day,rent_usd\")"},
        {"quoted header", "\xEF\xBB\xBF\"Week\",\"Price\"\n2024-01-01,2.5\n",
         "r.csv:1: header: expected date,price[,quantity] (got \"\"Week\",\"Price\"\")"},
        {"words later", "date,price\n2024-01-01,2.5\ntotal,2.5\n",
         "r.csv:3: date: not a date or ISO-8601 timestamp (got \"total\")"},
        {"empty", "date,price\n", "r.csv: no rent rows"},
        /* RFC 4180 quoting (core's CSV reader): a quoted comma stays in its
         * field, so the field is what is refused */
        {"quoted comma in a date", "date,price\n\"Jan 2, 2024\",2.5\n",
         "r.csv:2: date: not a date or ISO-8601 timestamp (got \"Jan 2, 2024\")"},
        {"quoted decimal comma", "date,price\n2024-01-01,\"2,5\"\n",
         "r.csv:2: price: not a number (got \"2,5\")"},
        {"quoted comma, 3 columns", "date,price,quantity\n2024-01-01,2.5,\"1,000\"\n",
         "r.csv:2: quantity: not a number (got \"1,000\")"},
        {"unterminated quote", "date,price\n2024-01-01,2.5\n\"2024-01-02,2.5\n",
         "r.csv:3:1: unterminated quoted field"},
        {"text after a quote", "date,price\n\"2024-01-01\"x,2.5\n",
         "r.csv:2:13: malformed quoting (a quote inside an unquoted field, or text after a "
         "closing quote)"},
        /* timestamps are days in UTC: two on one UTC day are one date twice */
        {"timestamps on one UTC day", "date,price\n2024-01-01T23:30:00-01:00,2\n"
                                      "2024-01-02T08:00:00Z,3\n",
         "r.csv:3: date: duplicate date, first given on line 2 (got \"2024-01-02\")"},
        {"bad timestamp", "date,price\n2024-01-01T25:00:00Z,2\n",
         "r.csv:2: date: time of day out of range (got \"2024-01-01T25:00:00Z\")"},
        /* the first error in file order: a bad row before a bad comment */
        {"row before comment", "date,price\n2024-01-01,x\n# gpu: T4\n# gpu: A100\n",
         "r.csv:2: price: not a number (got \"x\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hedge_rent r;
        gpi_diag d = {{0}};
        gpi_status st = hedge_rent_parse("r.csv", cases[i].csv, strlen(cases[i].csv), &r, &d);
        if (st != GPI_EINPUT) fail_msg("%s: status %d", cases[i].name, (int)st);
        if (strcmp(d.msg, cases[i].msg) != 0)
            fail_msg("%s: got '%s', want '%s'", cases[i].name, d.msg, cases[i].msg);
        assert_null(r.rows);
    }
    /* accepted: BOM, quotes (a doubled quote in a comment is no CSV),
     * spaces, no header, exact micro-USD */
    const char *ok = "\xEF\xBB\xBF" "\"2024-01-02\", 2.7137\n# said \"hi\n2024-01-01,2.0000005\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", ok, strlen(ok), &r, &d), GPI_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.has_quantity, 0);
    assert_int_equal(r.rows[0].day, day_of("2024-01-01"));
    assert_int_equal(r.rows[0].price_micro, 2000001); /* half-up at 6 decimals */
    assert_int_equal(r.rows[1].price_micro, 2713700);
    hedge_rent_free(&r);
    /* ISO-8601 timestamps, as billing exports write them: their UTC day */
    const char *iso = "date,price\n2024-01-01T00:00:00Z,2\n2024-01-02 09:15+02:00,2.5\n"
                      "2024-01-02T23:59:59-05:00,3\n";
    assert_int_equal(hedge_rent_parse("r.csv", iso, strlen(iso), &r, &d), GPI_OK);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.rows[0].day, day_of("2024-01-01"));
    assert_int_equal(r.rows[1].day, day_of("2024-01-02"));
    assert_int_equal(r.rows[2].day, day_of("2024-01-03"));
    hedge_rent_free(&r);
}

/* "# key: value" lines describe what is rented (compare --suggest); other
 * '#' lines are comments; mistakes are refused at their line. */
static void test_rent_header_fields(void **state)
{
    (void)state;
    const char *csv = "# my T4 rent, exported 2024-05-01\n"
                      "# gpu: T4\n"
                      "#term:spot\n"
                      "  # Scope : vm\n"
                      "# provider: aws\n"
                      "# region: us-east-1\n"
                      "# instance-type: g4dn.xlarge\n"
                      "# note: not a field, a comment\n"
                      "date,price\n"
                      "2024-01-01,0.1829\n"
                      "# a comment between rows\n"
                      "2024-01-02,0.1834\n";
    hedge_rent r;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_rent_parse("r.csv", csv, strlen(csv), &r, &d), GPI_OK);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.info.gpu, "T4");
    assert_string_equal(r.info.term, "spot");
    assert_string_equal(r.info.scope, "vm");
    assert_string_equal(r.info.provider, "aws");
    assert_string_equal(r.info.region, "us-east-1");
    assert_string_equal(r.info.sku, "g4dn.xlarge");
    hedge_rent_free(&r);
    /* without header fields the description is empty */
    assert_int_equal(hedge_rent_parse("r.csv", "2024-01-01,1\n", 13, &r, &d), GPI_OK);
    assert_string_equal(r.info.gpu, "");
    assert_string_equal(r.info.sku, "");
    hedge_rent_free(&r);
    static const struct {
        const char *csv, *msg;
    } bad[] = {
        {"# gpu: T4\n#GPU: A100\n2024-01-01,1\n",
         "r.csv:2: gpu: given twice, first on line 1 (got \"A100\")"},
        {"# sku: a\n# instance_type: b\n2024-01-01,1\n",
         "r.csv:2: instance_type: given twice, first on line 1 (got \"b\")"},
        {"# term: weekly\n2024-01-01,1\n",
         "r.csv:1: term: must be on-demand, spot or reserved:A-B (got \"weekly\")"},
        {"# scope: cloud\n", "r.csv:1: scope: must be bare-metal, managed, vm or container (got "
                             "\"cloud\")"},
        {"# region:\n2024-01-01,1\n", "r.csv:1: region: empty (got \"\")"},
        {"# provider: a\"b\n", "r.csv:1: provider: holds a control character or a quote (got "
                               "\"a\"b\")"},
        {"# gpu: 0123456789012345678901234567890123456789012345678901234567890123456789\n",
         "r.csv:1: gpu: longer than 64 bytes (got "
         "\"0123456789012345678901234567890123456789012345678901234567890123456789\")"},
        {"# gpu: T4\n", "r.csv: no rent rows"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gpi_status st = hedge_rent_parse("r.csv", bad[i].csv, strlen(bad[i].csv), &r, &d);
        if (st != GPI_EINPUT || strcmp(d.msg, bad[i].msg) != 0)
            fail_msg("case %zu: status %d, got '%s', want '%s'", i, (int)st, d.msg, bad[i].msg);
        assert_null(r.rows);
    }
}

static void test_intervals(void **state)
{
    (void)state;
    /* §6: h 1.027820 ± 1.959964 x 0.111122 (Newey-West) and the
     * effectiveness 0.708895 = ρ² with ρ = 0.841959 on 11 changes:
     * Fisher's z gives [0.239246, 0.917734] (tests/ref/hedge_v2.py) */
    hedge_series s;
    hedge_period p[12];
    vec_series(&s, p, vec_rent);
    hedge_analysis a;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    tu_assert_close(a.h_lo, 0.810025066, 1e-8, "h lo");
    tu_assert_close(a.h_hi, 1.245614031, 1e-8, "h hi");
    tu_assert_close(a.he_lo, 0.239245725, 1e-8, "he lo");
    tu_assert_close(a.he_hi, 0.917734380, 1e-8, "he hi");
    assert_true(a.he_lo <= a.he && a.he <= a.he_hi);
    hedge_analysis_free(&a);
    /* a negative ρ gives the same effectiveness interval as |ρ|; one that
     * holds 0 starts at 0; fewer than 4 pairs or |ρ| = 1: none */
    static const struct {
        double rho;
        size_t n;
        double lo, hi;
    } cases[] = {
        {-0.5, 20, 0.005448000894351782, 0.5956145879892073},
        {0.5, 20, 0.005448000894351782, 0.5956145879892073},
        {0.3, 10, 0.0, 0.6114134626770148},
        {0.9, 3, NAN, NAN},
        {1.0, 50, NAN, NAN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double lo, hi;
        hedge_he_interval(cases[i].rho, cases[i].n, &lo, &hi);
        if (isnan(cases[i].lo)) {
            assert_true(isnan(lo) && isnan(hi));
            continue;
        }
        tu_assert_close(lo, cases[i].lo, 1e-9, "lo");
        tu_assert_close(hi, cases[i].hi, 1e-9, "hi");
    }
    /* too short to fit: NaN intervals, no crash */
    s.n = 3;
    assert_int_equal(hedge_analyze(&s, 0, &a, &d), GPI_OK);
    assert_true(isnan(a.he_lo) && isnan(a.he_hi)); /* 2 changes */
    assert_true(isnan(a.h_lo));
    hedge_analysis_free(&a);
}

static void test_nw_lag_rule(void **state)
{
    (void)state;
    /* floor(4 (T/100)^(2/9)): T=11 -> 2 (§6); T=100 -> 4; T=1000 -> 6
     * (4*10^(2/9) = 6.67); T=5 -> 2 (2.05) */
    assert_int_equal(hedge_nw_lag_rule(11), 2);
    assert_int_equal(hedge_nw_lag_rule(100), 4);
    assert_int_equal(hedge_nw_lag_rule(1000), 6);
    assert_int_equal(hedge_nw_lag_rule(5), 2);
    assert_int_equal(hedge_nw_lag_rule(1), 1);
}

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors_a_b_d),
        cmocka_unit_test(test_vector_e_robust),
        cmocka_unit_test(test_accounting_test_bounds),
        cmocka_unit_test(test_horizon_lag_at_least_k_minus_1),
        cmocka_unit_test(test_short_series_no_nan_stats),
        cmocka_unit_test(test_periods_iso_weeks),
        cmocka_unit_test(test_weekly_alignment_across_year),
        cmocka_unit_test(test_constant_rent_and_exact_fit),
        cmocka_unit_test(test_gaps_break_changes),
        cmocka_unit_test(test_align_skips_all_suspended_period),
        cmocka_unit_test(test_rent_parse_errors),
        cmocka_unit_test(test_rent_header_fields),
        cmocka_unit_test(test_nw_lag_rule),
        cmocka_unit_test(test_intervals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
