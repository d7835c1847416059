/* tests/test_e2e_hedge.c -- `gpuidx hedge` end to end, through the binary.
 *
 * Each test builds a scratch database with store_index_put_row (the index
 * module is not needed), writes a rent file and runs the real program with
 * --db.  Reference numbers are hedge-and-settlement.md §6 (the monthly
 * vector: the index is constant within each month, so a month's mean and
 * FSP are the vector's value) and the by-hand replay in test_hedge.c.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#define GRADE "H100-SXM.OD.GOLD+"
#define GRADE2 "A100-SXM.OD.SILVER+"

static const double vec_index[12] = {2.95, 2.88, 2.80, 2.74, 2.70, 2.62,
                                     2.55, 2.58, 2.49, 2.41, 2.38, 2.30};
static const double vec_rent[12] = {2.71, 2.67, 2.58, 2.55, 2.49, 2.45,
                                    2.36, 2.40, 2.33, 2.24, 2.23, 2.13};

typedef struct fixture {
    char *dir, *db, *rent;
} fixture;

/* Grade 1: every day of 2024 at its month's §6 value; grade 2 the same
 * with +0.05 / -0.03 on alternate months (a worse hedge). */
static void put_index(const char *db)
{
    store *st;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    assert_int_equal(store_begin(st, &d), GPI_OK);
    for (int g = 0; g < 2; g++)
        for (int m = 0; m < 12; m++)
            for (int k = 0; k < gpi_month_days(2024, m + 1); k++) {
                store_index_row r;
                memset(&r, 0, sizeof r);
                snprintf(r.grade, sizeof r.grade, "%s", g ? GRADE2 : GRADE);
                snprintf(r.methodology, sizeof r.methodology, "v1");
                r.day = gpi_days_from_civil(2024, m + 1, 1) + k;
                r.level = GPI_LEVEL_TRADES;
                r.value_e4 = (int64_t)llround(vec_index[m] * 1e4) + (g ? (m % 2 ? 500 : -300) : 0);
                r.adjustment_e6 = r.p10_micro = r.p25_micro = r.p50_micro = r.p75_micro = -1;
                r.p90_micro = r.min_micro = r.max_micro = r.top_share_e6 = -1;
                if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("put: %s", d.msg);
            }
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
}

static void setup(fixture *f, const char *tag)
{
    f->dir = tu_mkdtemp(tag);
    size_t n = strlen(f->dir) + 16;
    f->db = malloc(n);
    snprintf(f->db, n, "%s/idx.db", f->dir);
    put_index(f->db);
    char csv[2048] = "date,price,quantity\n";
    for (int m = 0; m < 12; m++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "2024-%02d-15,%.2f,720000\n", m + 1,
                 vec_rent[m]);
    f->rent = tu_write(f->dir, "rent.csv", csv);
}

static void teardown(fixture *f)
{
    free(f->dir);
    free(f->db);
    free(f->rent);
}

static double jnum(json_t *o, const char *path)
{
    /* path "a" or "a.b" */
    char key[64];
    snprintf(key, sizeof key, "%s", path);
    char *dot = strchr(key, '.');
    if (dot) {
        *dot = '\0';
        o = json_object_get(o, key);
        return jnum(o, dot + 1);
    }
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v)) fail_msg("%s: not a number", path);
    return json_number_value(v);
}

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
    r = tu_gpuidx(NULL, "--db '%s/none.db' hedge analyze --rent '%s' --grade %s", f.dir, f.rent, GRADE);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "gpuidx: hedge: no database at "));
    assert_non_null(strstr(r.err, "none.db (ingest observations first, or pass --db)\n"));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "hedge analyze --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx hedge analyze"));
    tu_run_free(&r);
    free(bad);
    teardown(&f);
}

static void test_simulate_auto_earner(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-sim");
    /* test_hedge.c test_simulate_auto_no_lookahead: months 5-12 replayed,
     * Sep 671 contracts (670.5 rounded away from zero), Dec 703 contracts
     * and +$56,240 (= -(703*1000*(2.30-2.38))) */
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge simulate --rent '%s' --grade %s --side earner --json",
                         f.db, f.rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *ms = json_object_get(j, "months");
    assert_int_equal(json_array_size(ms), 12);
    assert_true(json_is_true(json_object_get(json_array_get(ms, 0), "skipped")));
    assert_int_equal(jnum(json_array_get(ms, 8), "contracts"), 671);
    json_t *dec = json_array_get(ms, 11);
    assert_int_equal(jnum(dec, "contracts"), 703);
    assert_int_equal(jnum(dec, "pnl_cents"), 5624000);
    assert_string_equal(json_string_value(json_object_get(dec, "entry")), "2.3800");
    assert_string_equal(json_string_value(json_object_get(dec, "fsp")), "2.3000");
    assert_int_equal(jnum(json_object_get(j, "total"), "months"), 8);
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
    assert_non_null(strstr(r.out, "months replayed 8 of 12"));
    tu_run_free(&r);
    free(fw);
    teardown(&f);
}

static void test_compare_ranks(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-cmp");
    char *grades = tu_write(f.dir, "grades.json",
                            "{\"grades\": [{\"id\": \"" GRADE2 "\"}, {\"id\": \"NOPE.X\"},"
                            " {\"id\": \"" GRADE "\", \"min_tier\": \"gold\"}]}");
    tu_run r = tu_gpuidx(NULL, "--db '%s' hedge compare --rent '%s' --grades '%s' --json", f.db,
                         f.rent, grades);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *g = json_object_get(j, "grades");
    assert_int_equal(json_array_size(g), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(g, 0), "grade")), GRADE);
    tu_assert_close(jnum(json_array_get(g, 0), "he"), 0.708895, 1e-6, "best he");
    assert_string_equal(json_string_value(json_object_get(json_array_get(g, 1), "grade")), GRADE2);
    assert_true(jnum(json_array_get(g, 1), "he") < 0.708895);
    assert_true(json_is_null(json_object_get(json_array_get(g, 2), "rank")));
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "--db '%s' hedge compare --rent '%s' --grade %s --grade %s", f.db, f.rent,
                  GRADE2, GRADE);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "   1  " GRADE));
    tu_run_free(&r);
    free(grades);
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

static char *read_bytes(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    *n = 0;
    if (!fp) return NULL;
    char *b = NULL;
    size_t cap = 0, k;
    char chunk[65536];
    while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        b = realloc(b, cap + k);
        memcpy(b + cap, chunk, k);
        cap += k;
    }
    fclose(fp);
    *n = cap;
    return b;
}

static int contains(const char *b, size_t n, const void *needle, size_t len)
{
    for (size_t i = 0; i + len <= n; i++)
        if (memcmp(b + i, needle, len) == 0) return 1;
    return 0;
}

static void assert_absent(const char *path, const void *needle, size_t len, const char *what)
{
    size_t n;
    char *b = read_bytes(path, &n);
    if (!b) return;
    if (contains(b, n, needle, len)) fail_msg("%s found in %s", what, path);
    free(b);
}

static void test_privacy_rent_never_stored(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "hedge-priv");
    char csv[2048] = "date,price,quantity\n";
    for (int m = 0; m < 12; m++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "2024-%02d-15,%s,%d\n", m + 1,
                 m == 4 ? "2.7137" : m % 2 ? "2.6151" : "2.5183", 31337 + m);
    char *rent = tu_write(f.dir, "private-rent.csv", csv);
    tu_run r = tu_gpuidx(f.dir, "--db '%s' hedge analyze --rent '%s' --grade %s --svg chart.svg",
                         f.db, rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(f.dir, "--db '%s' hedge simulate --rent '%s' --grade %s --json", f.db, rent, GRADE);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    /* the database (and its WAL / journal files) and every other file in
     * the scratch directory but the rent file itself: no rent price as
     * text, as micro-USD integer or as a double, no quantity */
    const int64_t micro = 2713700;
    const double dv = 2.7137;
    const char *files[] = {"idx.db", "idx.db-wal", "idx.db-shm", "idx.db-journal", "idx.db.lock",
                           "chart.svg"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", f.dir, files[i]);
        assert_absent(p, "2.7137", 6, "price text");
        assert_absent(p, "27137", 5, "price digits");
        assert_absent(p, "31337", 5, "quantity digits");
        assert_absent(p, &micro, sizeof micro, "price as micro-USD");
        assert_absent(p, &dv, sizeof dv, "price as double");
    }
    tu_run ls = tu_sh(f.dir, "ls -A");
    /* idx.db.lock: the writers' lock file, empty (store/store.c note 6) */
    assert_string_equal(ls.out, "chart.svg\nidx.db\nidx.db.lock\nprivate-rent.csv\nrent.csv\n");
    tu_run_free(&ls);
    /* the rent file was not modified either */
    char *back = tu_read(rent);
    assert_string_equal(back, csv);
    free(back);
    free(rent);
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
        cmocka_unit_test(test_compare_ranks),
        cmocka_unit_test(test_first_published_vs_latest_and_weeks),
        cmocka_unit_test(test_privacy_rent_never_stored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
