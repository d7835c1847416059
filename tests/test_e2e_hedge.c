/* tests/test_e2e_hedge.c -- `gpuidx hedge` end to end, through the binary.
 *
 * Each test builds a scratch database with store_index_put_row (the index
 * module is not needed), writes a rent file and runs the real program with
 * --db.  Reference numbers are hedge-and-settlement.md §6 (the monthly
 * vector: the index is constant within each month, so a month's mean and
 * FSP are the vector's value) and the by-hand replay in test_hedge.c.
 * The fixture: tests/hedge_e2e.h; the rent's privacy:
 * tests/test_e2e_hedge_privacy.c.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/testing.h"
#include "core/vec.h"
#include "tests/svg_check.h"
#include "tests/hedge_e2e.h"

static void test_analyze_text(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-text");
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade '%s'", f.db, f.rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "periods 12 in common (rent has 12), changes 11"));
    assert_non_null(strstr(r.out, "  h 1.0278  se 0.2195  t 4.68  Newey-West se 0.1111 (lag 2)"));
    assert_non_null(strstr(r.out, "  hedge effectiveness 0.7089 at h, 0.7084 at h = 1"));
    assert_non_null(strstr(r.out, "  a 0.1159  b 0.8838  R2 0.9950"));
    assert_non_null(strstr(r.out, "  mean -0.1883  sd 0.0269  sd of changes 0.0229"));
    assert_non_null(strstr(r.out, "R2 0.7089  slope 0.7089  FAIL"));
    assert_non_null(strstr(r.out, "1.1519 cumulative  PASS ([0.80, 1.25]); 8 of 11 periods outside"));
    assert_null(strstr(r.out, "nan"));
    assert_string_equal(r.err, "");
    tu_run_free(&r);
    teardown(&f);
}

static void test_analyze_json_and_svg(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-json");
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade '%s' --json --svg '%s/h.svg'",
                         f.db, f.rent, GRADE, f.dir);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_error_t e;
    json_t *j = json_loads(r.out, 0, &e);
    if (!j) fail_msg("bad JSON: %s", e.text);
    assert_int_equal(jnum(j, "n"), 12);
    assert_int_equal(jnum(j, "n_changes"), 11);
    tu_assert_close(jnum(j, "h"), 1.027820, 1e-6, "h");
    tu_assert_close(jnum(j, "alpha"), 0.008008, 1e-6, "alpha");
    tu_assert_close(jnum(j, "se_h"), 0.219548, 1e-6, "se_h");
    tu_assert_close(jnum(j, "t_h"), 4.6815, 1e-4, "t_h");
    tu_assert_close(jnum(j, "f"), 21.9166, 1e-4, "f");
    tu_assert_close(jnum(j, "r2"), 0.708895, 1e-6, "r2");
    tu_assert_close(jnum(j, "rho"), 0.841959, 1e-6, "rho");
    tu_assert_close(jnum(j, "he"), 0.708895, 1e-6, "he");
    tu_assert_close(jnum(j, "he_naive"), 0.708375, 1e-6, "he_naive");
    tu_assert_close(jnum(j, "nw_se_h"), 0.111122, 1e-6, "nw_se_h");
    tu_assert_close(jnum(j, "levels.a"), 0.115850, 1e-6, "levels.a");
    tu_assert_close(jnum(j, "levels.b"), 0.883751, 1e-6, "levels.b");
    tu_assert_close(jnum(j, "levels.r2"), 0.995011, 1e-6, "levels.r2");
    tu_assert_close(jnum(j, "basis.mean"), -0.188333, 1e-6, "basis.mean");
    tu_assert_close(jnum(j, "basis.sd"), 0.026912, 1e-6, "basis.sd");
    tu_assert_close(jnum(j, "basis.sd_change"), 0.022923, 1e-6, "basis.sd_change");
    tu_assert_close(jnum(j, "basis.p5"), -0.229, 1e-9, "basis.p5");
    tu_assert_close(jnum(j, "basis.p95"), -0.1555, 1e-9, "basis.p95");
    tu_assert_close(jnum(j, "basis.min"), -0.24, 1e-9, "basis.min");
    tu_assert_close(jnum(j, "basis.max"), -0.15, 1e-9, "basis.max");
    tu_assert_close(jnum(j, "regression_test.slope"), 0.708895, 1e-6, "slope");
    assert_true(json_is_false(json_object_get(json_object_get(j, "regression_test"), "pass")));
    tu_assert_close(jnum(j, "dollar_offset.ratio"), 1.151867, 1e-6, "offset");
    assert_true(json_is_true(json_object_get(json_object_get(j, "dollar_offset"), "pass")));
    tu_assert_close(jnum(j, "robust.b"), 0.883751, 1e-3, "robust.b"); /* no outlier: near OLS */
    assert_int_equal(json_array_size(json_object_get(json_object_get(j, "robust"), "weights")), 12);
    assert_int_equal(json_array_size(json_object_get(j, "warnings")), 0);
    assert_int_equal(json_array_size(json_object_get(j, "rolling")), 1);
    json_t *hz = json_object_get(j, "horizons");
    assert_int_equal(json_array_size(hz), 3);
    tu_assert_close(jnum(json_array_get(hz, 1), "h"), 0.903654, 1e-6, "k2 h");
    assert_string_equal(json_string_value(json_object_get(j, "from")), "2024-01");
    json_decref(j);
    tu_run_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/h.svg", f.dir);
    char *svg = tu_read(path);
    assert_non_null(svg);
    assert_true(strncmp(svg, "<?xml", 5) == 0);
    assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(svg, "</svg>"));
    assert_null(strstr(svg, "<script"));
    assert_null(strstr(svg, "nan"));
    free(svg);
    teardown(&f);
}

static void test_analyze_short_series_null_not_nan(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-short");
    char *rent = tu_write(f.dir, "short.csv", "date,price\n2024-01-03,2.7\n2024-02-03,2.6\n");
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade '%s' --json", f.db, rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    assert_null(strstr(r.out, "nan"));
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    assert_true(json_is_null(json_object_get(j, "h")));
    assert_true(json_is_null(json_object_get(j, "nw_se_h")));
    assert_true(json_is_null(json_object_get(json_object_get(j, "basis"), "sd_change")));
    json_t *w = json_object_get(j, "warnings");
    assert_true(json_array_size(w) >= 2);
    assert_non_null(strstr(json_string_value(json_array_get(w, 0)), "only 2 periods"));
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade '%s'", f.db, rent, GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  h n/a  se n/a"));
    assert_non_null(strstr(r.out, "warning: too short to regress: 1 changes"));
    tu_run_free(&r);
    free(rent);
    teardown(&f);
}

static void test_hedge_errors(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-err");
    char *bad = tu_write(f.dir, "bad.csv", "date,price\n2024-01-03,2.7\n2024-02-03,0\n");
    static const struct {
        const char *name, *args;
        int status;
        const char *err; /* %s = file path; NULL: just the status */
    } cases[] = {
        {"bad price", "hedge analyze --rent '%s' --grade " GRADE, 1,
         "gpuidx: %s:3: price: must be positive (got \"0\")\n"},
        {"unknown grade", "hedge analyze --rent '%s' --grade NOPE", 1, NULL},
        {"no grade", "hedge analyze --rent '%s'", 2, NULL},
        {"bad freq", "hedge analyze --rent '%s' --grade " GRADE " --freq year", 2,
         "gpuidx: --freq: expected day, week or month (got \"year\")\n"},
        {"side on analyze", "hedge analyze --rent '%s' --grade " GRADE " --side payer", 2, NULL},
        {"bad grade id", "hedge analyze --rent '%s' --grade ../etc", 2,
         "gpuidx: --grade: not a grade id (got \"../etc\")\n"},
        {"bad ratio", "hedge simulate --rent '%s' --grade " GRADE " --ratio lots", 2, NULL},
        {"bad strategy", "hedge simulate --rent '%s' --grade " GRADE " --strategy stack", 2,
         "gpuidx: --strategy: expected roll, strip or all (got \"stack\")\n"},
        {"bad months", "hedge simulate --rent '%s' --grade " GRADE " --months 0", 2,
         "gpuidx: --months: expected a strip length of 1..120 months (got \"0\")\n"},
        {"bad start", "hedge simulate --rent '%s' --grade " GRADE " --start 2024-13", 2,
         "gpuidx: --start: expected a month YYYY-MM (got \"2024-13\")\n"},
        {"bad min changes", "hedge compare --rent '%s' --grade " GRADE " --min-changes 2", 2,
         "gpuidx: --min-changes: expected a whole number >= 3 (got \"2\")\n"},
        {"gpu on simulate", "hedge simulate --rent '%s' --grade " GRADE " --gpu T4", 2, NULL},
        {"months on roll", "hedge simulate --rent '%s' --grade " GRADE " --months 6", 2, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1024], want[1024];
        const char *file = i == 0 ? bad : f.rent;
        snprintf(args, sizeof args, cases[i].args, file);
        tu_run r = tu_gpuidx(NULL, "--db '%s' %s", f.db, args);
        if (r.status != cases[i].status)
            fail_msg("%s: exit %d, want %d (%s)", cases[i].name, r.status, cases[i].status, r.err);
        if (cases[i].err) {
            snprintf(want, sizeof want, cases[i].err, file);
            if (strcmp(r.err, want) != 0) fail_msg("%s: stderr '%s', want '%s'", cases[i].name, r.err, want);
        }
        assert_string_equal(r.out, "");
        tu_run_free(&r);
    }
    /* a size that breaks whole cents is a usage error, found before any
     * file is read (a missing rent file does not hide it) */
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s/nope.csv' --grade %s --size 250",
                         f.db, f.dir, GRADE);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err,
                        "gpuidx: --size: expected a positive multiple of 100 GPU-hours (got \"250\")\n");
    tu_run_free(&r);
    /* compare --grades reads the file with the index's grade reader (the
     * one `index build` uses): the same file, the same messages */
    char *gf = tu_write(f.dir, "g.json", "{\"grades\": [{\"id\": \"" GRADE "\", \"gpu\": "
                                         "[\"H100-SXM-80GB\"]}, {\"id\": \"B.X\"}]}");
    r = tu_gpuidx(NULL, "--db '%s' hedge compare --rent '%s' --grades '%s'", f.db, f.rent, gf);
    assert_int_equal(r.status, 1);
    char want[4200];
    snprintf(want, sizeof want, "gpuidx: %s: grades[1].gpu: missing\n", gf);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    tu_run_free(&r);
    free(gf);
    /* a grade the database does not have: the nearest built grade */
    r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade H100-SXM.OD.GOLD",
                  f.db, f.rent);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: grade H100-SXM.OD.GOLD: no index values in the database"
                               " (did you mean " GRADE "?)\n");
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade h100-sxm.od.gold+x",
                  f.db, f.rent);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "(did you mean " GRADE "?)"));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s/none.db' hedge analyze --rent '%s' --grade %s", f.dir, f.rent, GRADE);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "gpuidx: hedge: no database at "));
    assert_non_null(strstr(r.err, "none.db (ingest observations first, or pass --db)\n"));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "hedge analyze --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx [--db PATH] hedge analyze"));
    tu_run_free(&r);
    free(bad);
    teardown(&f);
}

static void test_simulate_auto_earner(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-sim");
    /* test_hedge_ratio.c test_simulate_auto_no_lookahead with
     * --min-changes 3: months 2-12 replayed (2-4 not hedged: too few
     * changes to fit h on), May capped at
     * 2, Sep 671 contracts (670.5 rounded away from zero), Dec 703
     * contracts and +$56,240 (= -(703*1000*(2.30-2.38))) */
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s --side earner --json "
                               "--min-changes 3",
                         f.db, f.rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *ms = json_object_get(j, "months");
    assert_int_equal(json_array_size(ms), 12);
    assert_true(json_is_true(json_object_get(json_array_get(ms, 0), "skipped")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(ms, 3), "h_rule")),
                        "too_few_changes_not_hedged");
    assert_int_equal(jnum(json_array_get(ms, 3), "contracts"), 0);
    assert_string_equal(json_string_value(json_object_get(json_array_get(ms, 4), "h_rule")), "capped");
    tu_assert_close(jnum(json_array_get(ms, 4), "h_fit"), 3.0, 1e-9, "May fit");
    assert_int_equal(jnum(json_array_get(ms, 4), "contracts"), 1440);
    assert_int_equal(jnum(json_array_get(ms, 8), "contracts"), 671);
    json_t *dec = json_array_get(ms, 11);
    assert_int_equal(jnum(dec, "contracts"), 703);
    assert_int_equal(jnum(dec, "pnl_cents"), 5624000);
    assert_string_equal(json_string_value(json_object_get(dec, "entry")), "2.3800");
    assert_string_equal(json_string_value(json_object_get(dec, "fsp")), "2.3000");
    assert_int_equal(jnum(json_object_get(j, "total"), "months"), 11);
    assert_int_equal(jnum(json_object_get(json_object_get(j, "total"), "ratio_rules"),
                          "too_few_changes_not_hedged"),
                     3);
    json_decref(j);
    tu_run_free(&r);

    /* payer with a fixed ratio and a forward file: Dec entry 2.40 instead
     * of 2.38; 1.0*720000/1000 = 720 contracts, long: 720*1000*(2.30-2.40)
     * = -$72,000 */
    char *fw = tu_write(f.dir, "fw.csv", "month,price\n2024-12,2.40\n");
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s --ratio 1 --forward '%s' --json",
                  f.db, f.rent, GRADE, fw);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    ms = json_object_get(j, "months");
    assert_string_equal(json_string_value(json_object_get(json_array_get(ms, 10), "reason")),
                        "no forward price for this month");
    dec = json_array_get(ms, 11);
    assert_int_equal(jnum(dec, "contracts"), 720);
    assert_int_equal(jnum(dec, "pnl_cents"), -7200000);
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s", f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "2024-01  skipped: no entry price"));
    assert_non_null(strstr(r.out, "months replayed 11 of 12"));
    /* a year of history is too short to fit h: not hedged (never a
     * ratio without a fit, which could hedge against it), and said */
    assert_non_null(strstr(r.out, "2024-02  0.000*         0"));
    assert_non_null(strstr(r.out, "  * h = 0, not hedged: fewer than 12 monthly changes before the "
                                  "month"));
    assert_non_null(strstr(r.out, "warning: auto ratio hedged no month: before each, fewer than 12 "
                                  "monthly changes to fit h on"));
    assert_non_null(strstr(r.out, "warning: auto ratio: 11 month(s) NOT hedged: fewer than 12 "
                                  "monthly changes before them to fit h on\n"));
    tu_run_free(&r);
    free(fw);
    teardown(&f);
}

/* simulate --svg: rent, index, hedged and locked prices, budget errors. */
static void test_simulate_svg(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-sim-svg");
    tu_run r = tu_gpuidx(f.dir, "--db '%s' hedge simulate --rent '%s' --grade %s --strategy all "
                                "--months 6 --json",
                         f.db, f.rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *st = json_object_get(j, "strategies");
    int done[2];
    for (int k = 0; k < 2; k++)
        done[k] = (int)jnum(json_object_get(json_array_get(st, (size_t)k), "total"), "months");
    json_decref(j);
    tu_run_free(&r);
    assert_int_equal(done[0], 11); /* roll: February to December */
    assert_true(done[1] >= 6);
    r = tu_gpuidx(f.dir, "--db '%s' hedge simulate --rent '%s' --grade %s --strategy all "
                         "--months 6 --svg sim.svg",
                  f.db, f.rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/sim.svg", f.dir);
    char *svg = tu_read(path);
    assert_non_null(svg);
    svg_check(svg);
    /* rent and index once, hedged and locked per strategy */
    assert_int_equal(svg_count(svg, "polyline"), 2 + 2 * 2);
    /* background, two frames, and an unhedged and a hedged bar per
     * replayed month and strategy */
    assert_int_equal(svg_count(svg, "rect"), 3 + 2 * (done[0] + done[1]));
    /* the rent line has one point per replayed roll month */
    const char *pts = strstr(strstr(svg, "<polyline"), "points=\"") + 8;
    int npts = 0;
    for (const char *q = pts; *q != '"'; q++) npts += *q == ',';
    assert_int_equal(npts, done[0]);
    char legend[160];
    snprintf(legend, sizeof legend, "roll: %d months replayed; hedged price (solid), locked price "
                                    "(dashed); variance of the budget error removed ", done[0]);
    assert_non_null(strstr(svg, legend));
    snprintf(legend, sizeof legend, "strip: %d months replayed;", done[1]);
    assert_non_null(strstr(svg, legend));
    free(svg);
    /* an unwritable path is an error that names it */
    r = tu_gpuidx(f.dir, "--db '%s' hedge simulate --rent '%s' --grade %s --svg no/such/dir/x.svg",
                  f.db, f.rent, GRADE);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no/such/dir/x.svg: cannot write: "));
    tu_run_free(&r);
    teardown(&f);
}

static void test_simulate_headline_agrees_with_analyze(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-headline");
    /* The headline of a month-ahead replay at ratio 1 (720 contracts of
     * 1000 on 720,000 GPU-hours: exactly one-for-one) is analyze's
     * effectiveness at h = 1 on monthly changes, 0.708375
     * (tests/ref/hedge_v2.py); the sd of the effective price levels, which
     * the old headline reported, is only the secondary line. */
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade %s", f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "hedge effectiveness 0.7089 at h, 0.7084 at h = 1"));
    assert_non_null(strstr(r.out, "in plain words: futures at h = 1.03 remove 71% of the variance of "
                                  "your monthly rent changes (95% interval 24%-92%); basis sd 0.0269 "
                                  "-- on too few changes to rely on\n"));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s --ratio 1", f.db, f.rent,
                  GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "the hedge removed 70.8% of the variance of the budget error"));
    assert_non_null(strstr(r.out, "budget error = effective cost - price locked at entry"));
    assert_non_null(strstr(r.out, "secondary: sd of the monthly effective cost itself"));
    /* Feb: locked at January's rent 2.71; rent 2.67 (-0.04); futures
     * 720 x 1000 x (2.88 - 2.95) = -$50,400 -> +0.07 -> hedged 2.74 (+0.03) */
    assert_non_null(strstr(r.out, "2024-02  1.000        720  2.9500  2.8800     -50400.00  2.6700  "
                                  "2.7400  2.7100   -0.0400    0.0300\n"));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s --ratio 1 --side earner "
                        "--json",
                  f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *t = json_object_get(j, "total");
    tu_assert_close(jnum(t, "var_removed"), 0.708375378, 1e-8, "earner var removed");
    assert_int_equal(jnum(json_object_get(t, "err_unhedged"), "n"), 11);
    assert_string_equal(json_string_value(json_object_get(j, "strategy")), "roll");
    json_decref(j);
    tu_run_free(&r);

    /* --strategy all: both replays and a side-by-side table; a 12-month
     * strip entered at the end of January locks 2.71 for Feb..Dec */
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s --ratio 1 --strategy all",
                  f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "-- strip entered at the end of 2024-01: h 1.000, 720 contracts a "
                                  "month (720000 GPU-hours exposure), budget 2.7100 USD/GPU-hour\n"));
    assert_non_null(strstr(r.out, "side by side: budget error"));
    assert_non_null(strstr(r.out, "\nroll (month-ahead)      11  "));
    assert_non_null(strstr(r.out, "\nstrip 12 months         11  "));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s --ratio 1 --strategy all "
                        "--json",
                  f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *sts = json_object_get(j, "strategies");
    assert_int_equal(json_array_size(sts), 2);
    json_t *strip = json_array_get(sts, 1);
    assert_string_equal(json_string_value(json_object_get(strip, "strategy")), "strip");
    json_t *bl = json_object_get(strip, "blocks");
    assert_int_equal(json_array_size(bl), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(bl, 0), "entered")),
                        "2024-01");
    /* Dec: locked 2.95 + (2.71 - 2.95) = 2.71; hedged = 2.13 - (2.30 -
     * 2.95) = 2.78: the basis moved from -0.24 to -0.17 */
    json_t *dec = json_array_get(json_object_get(strip, "months"), 11);
    tu_assert_close(jnum(dec, "budget"), 2.71, 1e-12, "strip budget");
    tu_assert_close(jnum(dec, "err_hedged"), 0.07, 1e-9, "strip Dec error");
    json_decref(j);
    tu_run_free(&r);
    teardown(&f);
}

static void test_compare_ranks(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-cmp");
    char *grades = tu_write(f.dir, "grades.json",
                            "{\"grades\": [{\"id\": \"" GRADE2 "\", \"gpu\": [\"A100-SXM-80GB\"]},"
                            " {\"id\": \"NOPE.X\", \"gpu\": [\"B200\"]},"
                            " {\"id\": \"" GRADE "\", \"gpu\": [\"H100-SXM-80GB\"],"
                            " \"min_tier\": \"gold\"}]}");
    /* a year of months is 11 changes: below the minimum of 12, nothing is
     * ranked and the verdict says why */
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge compare --rent '%s' --grades '%s' --json", f.db,
                         f.rent, grades);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *g = json_object_get(j, "grades");
    assert_int_equal(json_array_size(g), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(g, 0), "grade")), GRADE);
    assert_true(json_is_null(json_object_get(json_array_get(g, 0), "rank")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(g, 0), "not_ranked")),
                        "11 changes (need 12)");
    json_t *v = json_object_get(j, "verdict");
    assert_true(json_is_false(json_object_get(v, "hedges")));
    json_decref(j);
    tu_run_free(&r);

    /* --min-changes 11: ranked, with intervals, the GPU flag and a verdict */
    r = tu_gpuidx(NULL, "--db '%s' hedge compare --rent '%s' --grades '%s' --json --min-changes 11 "
                        "--gpu H100",
                  f.db, f.rent, grades);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    g = json_object_get(j, "grades");
    json_t *g0 = json_array_get(g, 0);
    assert_string_equal(json_string_value(json_object_get(g0, "grade")), GRADE);
    assert_int_equal(jnum(g0, "rank"), 1);
    tu_assert_close(jnum(g0, "he"), 0.708895, 1e-6, "best he");
    json_t *iv = json_object_get(g0, "he_interval");
    tu_assert_close(json_number_value(json_array_get(iv, 0)), 0.239245725, 1e-8, "he lo");
    tu_assert_close(json_number_value(json_array_get(iv, 1)), 0.917734380, 1e-8, "he hi");
    assert_true(json_is_true(json_object_get(g0, "same_gpu")));
    json_t *g1 = json_array_get(g, 1);
    assert_string_equal(json_string_value(json_object_get(g1, "grade")), GRADE2);
    assert_true(json_is_false(json_object_get(g1, "same_gpu")));
    assert_true(jnum(g1, "he") < 0.708895);
    assert_true(json_is_null(json_object_get(json_array_get(g, 2), "rank")));
    v = json_object_get(j, "verdict");
    assert_true(json_is_true(json_object_get(v, "hedges")));
    assert_string_equal(json_string_value(json_object_get(v, "grade")), GRADE);
    /* GRADE is not in the published grade set (data/grades.json): a
     * candidate, and the verdict says so */
    assert_string_equal(json_string_value(json_object_get(g0, "set")), "candidate");
    assert_string_equal(json_string_value(json_object_get(v, "text")),
                        "use " GRADE ": removes 71% of your monthly rent-change variance (95% "
                        "interval 24%-92%; out of sample 85%) at h = 1.03, basis sd 0.0269 "
                        "USD/GPU-hour; it is a candidate grade, not published, so no futures "
                        "settle on it yet: ask an exchange to list it, or hedge with a swap on "
                        "it; a partial hedge (below the 80% of hedge accounting)");
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge compare --rent '%s' --grade %s --grade %s --min-changes 11",
                  f.db, f.rent, GRADE2, GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "   1  " GRADE));
    assert_non_null(strstr(r.out, "[0.810, 1.246]    0.709  [0.24, 0.92]"));
    assert_non_null(strstr(r.out, "\nverdict: use " GRADE ": removes 71%"));
    tu_run_free(&r);

    /* the text prints the warnings the JSON carries, and a grade fitted
     * on one change is listed, not ranked */
    char *shrt = tu_write(f.dir, "short.csv", "date,price\n2024-01-03,2.7\n2024-02-03,2.6\n");
    r = tu_gpuidx(NULL, "--db '%s' hedge compare --rent '%s' --grade %s", f.db, shrt, GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "not ranked: 1 changes (need 12)"));
    assert_non_null(strstr(r.out, "warnings:\n  " GRADE ": only 2 periods (fewer than 12): the "
                                  "estimates are unreliable\n"));
    assert_non_null(strstr(r.out, "\nverdict: your rent's price changed on only 1 day (2024-02-03: "
                                  "2.70 to 2.60) from 2024-01 to 2024-02: too few to tell a hedge "
                                  "from a coincidence, so no grade is ranked\n"));
    tu_run_free(&r);
    free(shrt);
    free(grades);
    teardown(&f);
}

/* A grade given is called published only when it is in the published
 * grade set -- the published grades file of the data directory, less the
 * grades dropped -- else a candidate (it was "published" whatever its
 * source: the real T4.SPOT, never published, among them).  A data
 * directory whose grades.json holds GRADE: GRADE published, GRADE2 a
 * candidate; GRADE dropped: a candidate too. */
static void test_compare_published_or_candidate(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-pub");
    tu_run r = tu_sh(f.dir, "mkdir data && cp '%s'/data/*.csv data/ && printf '%%s' '{\"grades\": "
                            "[{\"id\": \"" GRADE "\", \"gpu\": [\"H100-SXM-80GB\"]}]}' > "
                            "data/grades.json",
                     tu_srcdir());
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    const char *cmd = "--db '%s' --data '%s/data' hedge compare --rent '%s' --grade " GRADE2
                      " --grade " GRADE " --min-changes 11%s";
    r = tu_gpuidx(NULL, cmd, f.db, f.dir, f.rent, " --json");
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    json_t *g = json_object_get(j, "grades");
    json_t *g0 = json_array_get(g, 0), *g1 = json_array_get(g, 1);
    assert_string_equal(json_string_value(json_object_get(g0, "grade")), GRADE);
    assert_string_equal(json_string_value(json_object_get(g0, "set")), "published");
    assert_string_equal(json_string_value(json_object_get(g1, "set")), "candidate");
    const char *v = json_string_value(json_object_get(json_object_get(j, "verdict"), "text"));
    assert_string_equal(v, "use " GRADE ": removes 71% of your monthly rent-change variance (95% "
                           "interval 24%-92%; out of sample 85%) at h = 1.03, basis sd 0.0269 "
                           "USD/GPU-hour; a partial hedge (below the 80% of hedge accounting)");
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, cmd, f.db, f.dir, f.rent, "");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\ncandidate grades (not in the published grade set: never "
                                  "published, so no futures settle on them): " GRADE2 "\n"));
    tu_run_free(&r);
    /* dropped from the published set: a candidate again */
    r = tu_gpuidx(NULL, "--db '%s' --data '%s/data' grades drop " GRADE, f.db, f.dir);
    if (r.status != 0) fail_msg("grades drop: exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, cmd, f.db, f.dir, f.rent, "");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "): " GRADE2 ", " GRADE "\n") ||
                    strstr(r.out, "): " GRADE ", " GRADE2 "\n"));
    assert_non_null(strstr(r.out, "; it is a candidate grade, not published, so no futures "
                                  "settle on it yet"));
    tu_run_free(&r);
    teardown(&f);
}

/* simulate --contracts with a file that has no contract on the grade: it
 * sizes on the file's first contract, another grade's terms, and says so
 * (it said "GPUHX-2502's terms" of an H100 design on the real T4 grade);
 * with a contract on the grade, its terms and no note. */
static void test_simulate_contracts_of_another_grade(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-terms");
    char *c = tu_write(f.dir, "c.json",
                       "{\"contracts\": [{\"symbol\": \"GPUHX-2502\", \"grade\": \"" GRADE2
                       "\", \"month\": \"2025-02\", \"size\": 730, \"tick\": \"0.01\", "
                       "\"fsp_days\": \"business\"}]}");
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade " GRADE " --ratio 1 "
                               "--contracts '%s'",
                         f.db, f.rent, c);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    char want[4600];
    snprintf(want, sizeof want,
             "\nNOTE: no contract in %s is on " GRADE ": sized and settled on the terms of "
             "GPUHX-2502, a contract on " GRADE2 " (730 GPU-hours, tick 0.01, business-day "
             "average, 15 values needed), as if an exchange listed this grade on them\n",
             c);
    if (!strstr(r.out, want)) fail_msg("no note:\n%s", r.out);
    assert_null(strstr(r.out, "contracts sized on"));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade " GRADE " --ratio 1 "
                        "--contracts '%s' --json",
                  f.db, f.rent, c);
    assert_int_equal(r.status, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    json_t *t = json_object_get(j, "contracts");
    assert_string_equal(json_string_value(json_object_get(t, "grade")), GRADE2);
    assert_true(json_is_false(json_object_get(t, "on_grade")));
    json_decref(j);
    tu_run_free(&r);
    /* on the grade itself: its terms, no note */
    r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade " GRADE2 " --ratio 1 "
                        "--contracts '%s'",
                  f.db, f.rent, c);
    assert_int_equal(r.status, 0);
    snprintf(want, sizeof want, "\ncontracts sized on %s: GPUHX-2502's terms, 730 GPU-hours", c);
    assert_non_null(strstr(r.out, want));
    assert_null(strstr(r.out, "NOTE: no contract"));
    tu_run_free(&r);
    free(c);
    teardown(&f);
}

static void test_first_published_vs_latest_and_weeks(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-vint");
    /* December first published at 2.4000 (restated to the stored 2.3000):
     * by default the analysis uses the first publication, so h moves off
     * the §6 value; --latest uses the restated values and gives it back */
    store *st;
    gpi_diag d = {{0}};
    assert_int_equal(store_open(f.db, &st, &d), GPI_OK);
    for (int k = 0; k < 31; k++)
        assert_int_equal(store_index_put_published(st, GRADE, gpi_days_from_civil(2024, 12, 1) + k, 1,
                                                   GPI_LEVEL_TRADES, 24000, &d),
                         GPI_OK);
    store_close(st);
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade %s --json", f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    assert_true(fabs(jnum(j, "h") - 1.027820) > 0.01);
    /* numpy: polyfit(diff(index with Dec 2.40), diff(rent), 1) */
    tu_assert_close(jnum(j, "h"), 0.452941, 1e-6, "first-published h");
    tu_assert_close(jnum(j, "r2"), 0.193563, 1e-5, "first-published r2");
    tu_assert_close(jnum(j, "basis.min"), 2.13 - 2.40, 1e-9, "first-published Dec basis");
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade %s --json --latest", f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    tu_assert_close(jnum(j, "h"), 1.027820, 1e-6, "latest h");
    json_decref(j);
    tu_run_free(&r);
    /* weekly: one rent row a month gives 12 weeks none adjacent to the
     * next, so there is no change at all (gaps break the chain) */
    r = tu_gpuidx(NULL, "--db '%s' hedge analyze --rent '%s' --grade %s --freq week --json", f.db, f.rent, GRADE);
    assert_int_equal(r.status, 0);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    assert_int_equal(jnum(j, "n"), 12);
    assert_int_equal(jnum(j, "n_changes"), 0);
    /* 2024-01-01 is a Monday (W01), so Monday 2024-01-15 starts W03 */
    assert_string_equal(json_string_value(json_object_get(j, "from")), "2024-W03");
    assert_true(json_is_null(json_object_get(j, "h")));
    json_decref(j);
    tu_run_free(&r);
    teardown(&f);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analyze_text),
        cmocka_unit_test(test_analyze_json_and_svg),
        cmocka_unit_test(test_analyze_short_series_null_not_nan),
        cmocka_unit_test(test_hedge_errors),
        cmocka_unit_test(test_simulate_auto_earner),
        cmocka_unit_test(test_simulate_headline_agrees_with_analyze),
        cmocka_unit_test(test_compare_ranks),
        cmocka_unit_test(test_compare_published_or_candidate),
        cmocka_unit_test(test_simulate_contracts_of_another_grade),
        cmocka_unit_test(test_first_published_vs_latest_and_weeks),
        cmocka_unit_test(test_simulate_svg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
