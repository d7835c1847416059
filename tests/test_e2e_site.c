/* tests/test_e2e_site.c -- `gpuidx site`: the static page and per-grade CSVs
 * from a database set up with store_index_put_row. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "site/site.h"
#include "store/store.h"
#include "store/index_values.h"
#include "store/testing.h"

/* Day t of the fixture series, starting 2025-01-01:
 *   0-29 trades, 30-39 offers, 40-44 carried, 45-47 suspended, 48-59 trades. */
static int fixture_level(int t)
{
    if (t < 30) return GPI_LEVEL_TRADES;
    if (t < 40) return GPI_LEVEL_OFFERS;
    if (t < 45) return GPI_LEVEL_CARRIED;
    if (t < 48) return GPI_LEVEL_SUSPENDED;
    return GPI_LEVEL_TRADES;
}

static void put_series(store *st, const char *grade, int64_t base_e4, int days)
{
    gpi_diag d;
    int32_t d0 = gpi_days_from_civil(2025, 1, 1);
    for (int t = 0; t < days; t++) {
        store_index_row r;
        memset(&r, 0, sizeof r);
        r.day = d0 + t;
        snprintf(r.grade, sizeof r.grade, "%s", grade);
        r.level = fixture_level(t);
        int live = r.level == GPI_LEVEL_TRADES || r.level == GPI_LEVEL_OFFERS;
        r.value_e4 = r.level == GPI_LEVEL_SUSPENDED ? -1 : base_e4 + 37 * (t % 11);
        r.n_obs = live ? 20 + t : 5;
        r.n_excluded = live ? t % 3 : 0;
        r.n_providers = live ? 4 : 2;
        r.trade_volume_e2 = 150000 + t;
        r.adjustment_e6 = r.level == GPI_LEVEL_OFFERS ? 1012345 : -1;
        int64_t mid = r.value_e4 * 100;
        r.p10_micro = live ? mid - 300000 : -1;
        r.p25_micro = live ? mid - 120000 : -1;
        r.p50_micro = live ? mid : -1;
        r.p75_micro = live ? mid + 150000 : -1;
        r.p90_micro = live ? mid + 310000 : -1;
        r.min_micro = live ? mid - 900000 : -1;
        r.max_micro = live ? mid + 5000000 : -1;
        r.top_share_e6 = live ? 300000 : -1;
        snprintf(r.methodology, sizeof r.methodology, "v1");
        if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("put row: %s", d.msg);
    }
    if (store_index_put_published(st, grade, d0, 1, GPI_LEVEL_TRADES, base_e4, &d) != GPI_OK)
        fail_msg("put published: %s", d.msg);
}

static char *make_db(const char *dir, const char *const *grades, int n, int days)
{
    char *path = malloc(strlen(dir) + 16);
    sprintf(path, "%s/idx.db", dir);
    store *st = NULL;
    gpi_diag d;
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    for (int i = 0; i < n; i++) put_series(st, grades[i], 23456 + 10000 * i, days);
    store_close(st);
    return path;
}

/* dir/g.json: a published grades file listing ids (site shows those). */
static void write_published(const char *dir, const char *const *ids, int n)
{
    char text[1024];
    size_t k = (size_t)snprintf(text, sizeof text, "{\"grades\": [");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%s{\"id\": \"%s\", \"gpu\": \"B200\"}",
                              i ? ", " : "", ids[i]);
    snprintf(text + k, sizeof text - k, "]}\n");
    free(tu_write(dir, "g.json", text));
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static void test_site_writes_page_and_csvs(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("site");
    static const char *const grades[] = {"H100-SXM.OD.GOLD+", "A100.SPOT"};
    char *db = make_db(dir, grades, 2, 60);
    write_published(dir, grades, 2);
    tu_run r = tu_gpuidx(dir, "--db '%s' site --out '%s/www' --grades g.json", db, dir);
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    char path[4096];
    snprintf(path, sizeof path,
             "site: 2 grades, 120 grade-days (2025-01-01..2025-03-01) -> %s/www/index.html, "
             "statement.html and 2 CSV files\n", dir);
    assert_string_equal(r.out, path);
    snprintf(path, sizeof path, "%s/www/index.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    assert_int_equal(count(html, "<svg"), 2);
    assert_int_equal(count(html, "</svg>"), 2);
    assert_null(strstr(html, "<script"));
    /* no network: the only URL is the SVG namespace */
    assert_int_equal(count(html, "http"), count(html, "http://www.w3.org/2000/svg"));
    /* per chart: one shaded suspended run (days 45-47) and the legend's */
    assert_int_equal(count(html, "<rect class=\"susp\""), 4);
    assert_non_null(strstr(html, "<title>suspended 2025-02-15..2025-02-17</title>"));
    /* dots: 30+12 trades, 10 offers, 5 carried per grade, plus the legend's */
    assert_int_equal(count(html, "<circle class=\"l0\" cx"), 2 * (42 + 1));
    assert_int_equal(count(html, "<circle class=\"l1\" cx"), 2 * (10 + 1));
    assert_int_equal(count(html, "<circle class=\"l2\" cx"), 2 * (5 + 1));
    /* the band breaks at carried/suspended days: two runs per grade */
    assert_int_equal(count(html, "<polygon class=\"band\""), 4);
    assert_non_null(strstr(html, "<title>2025-01-01 trades 2.3456</title>"));
    assert_non_null(strstr(html, "id=\"g-H100-SXM.OD.GOLD+\""));
    /* the published grades file's order, not the ids' (A100.SPOT sorts first) */
    assert_true(strstr(html, "id=\"g-H100-SXM.OD.GOLD+\"") < strstr(html, "id=\"g-A100.SPOT\""));
    free(html);

    snprintf(path, sizeof path, "%s/www/H100-SXM.OD.GOLD+.csv", dir);
    char *csv = tu_read(path);
    assert_non_null(csv);
    const char *want_head =
        "date,grade,value,level,n_obs,n_excluded,n_providers,trade_volume_gpu_hours,adjustment,"
        "p10,p25,p50,p75,p90,min,max,top_provider_share,methodology,vintage,xs_value,xs_level,"
        "relative,n_matched,n_matched_providers,panel_change,event,splice,note,loo_move,"
        "cost_tick_gpu_hours,cost_1pct_gpu_hours,cost_tick_offers,cost_1pct_offers,ci_low,"
        "ci_high,confidence,stale_share,price_index,index_change,composition_gap,"
        "composition_gap_month,panel_size,n_imputed,n_candidates,index_providers\n"
        "2025-01-01,H100-SXM.OD.GOLD+,2.3456,trades,20,0,4,1500.00,,2.045600,2.225600,"
        "2.345600,2.495600,2.655600,1.445600,7.345600,0.300000,v1,1,,,,,,,,,,,,,,,,,,,,,,,,,,\n"
        "2025-01-02,H100-SXM.OD.GOLD+,2.3493,trades,21,1,4,1500.01,,";
    if (strncmp(csv, want_head, strlen(want_head)) != 0) fail_msg("csv starts:\n%.400s", csv);
    assert_non_null(strstr(csv, "\n2025-01-31,H100-SXM.OD.GOLD+,2.3752,offers,50,0,4,1500.30,"
                                "1.012345,"));
    assert_non_null(strstr(csv, "\n2025-02-10,H100-SXM.OD.GOLD+,2.3715,carried,5,0,2,1500.40,,"
                                ",,,,,,,,v1,,,,,,,,,,,,,,,,,,,,,,,,,,,\n"));
    assert_non_null(strstr(csv, "\n2025-02-15,H100-SXM.OD.GOLD+,,suspended,5,0,2,1500.45,,"
                                ",,,,,,,,v1,,,,,,,,,,,,,,,,,,,,,,,,,,,\n"));
    assert_int_equal(count(csv, "\n"), 61);
    free(csv);
    snprintf(path, sizeof path, "%s/www/A100.SPOT.csv", dir);
    assert_int_equal(access(path, F_OK), 0);
    tu_run_free(&r);
    free(db);
    free(dir);
}

static void test_site_refuses_bad_grade_ids(void **state)
{
    (void)state;
    static const char *const bad[] = {"../evil", "a/b", ".hidden", "x y", "-lead"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *dir = tu_mkdtemp("site-bad");
        const char *grades[] = {"GOOD-1", bad[i]};
        char *db = make_db(dir, grades, 2, 3);
        /* such an id cannot be in a grades file (`gpuidx site` shows the
         * published grades only): the library refuses it all the same */
        store *st = NULL;
        gpi_diag d;
        if (store_open(db, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
        char www[4200];
        snprintf(www, sizeof www, "%s/www", dir);
        assert_int_equal(site_write(st, www, NULL, &d), GPI_EINPUT);
        store_close(st);
        char want[256];
        snprintf(want, sizeof want, "site: grade id not usable as a file name (got \"%s\")",
                 bad[i]);
        assert_string_equal(d.msg, want);
        /* nothing was written: no page, no CSV, nothing outside www */
        tu_run ls = tu_sh(dir, "find . -type f ! -name 'idx.db*' | sort");
        assert_string_equal(ls.out, "");
        tu_run_free(&ls);
        free(db);
        free(dir);
    }
}

/* The site names files after grade ids: the grade-id rule (core/names.c)
 * must refuse every id that is not a plain file name. */
static void test_site_grade_id_valid_table(void **state)
{
    (void)state;
    static const struct { const char *id; int ok; } cases[] = {
        {"H100-SXM.OD.GOLD+", 1}, {"a", 1}, {"0._+-", 1}, {"", 0}, {".", 0}, {"..", 0},
        {"a/b", 0}, {"a\\b", 0}, {"+x", 0}, {"x\n", 0}, {"é", 0},
        {"A234567890123456789012345678901234567890123456789012345678901234", 1},
        {"A2345678901234567890123456789012345678901234567890123456789012345", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (gpi_grade_id_ok(cases[i].id) != cases[i].ok)
            fail_msg("case %zu (\"%s\"): want %d", i, cases[i].id, cases[i].ok);
    assert_int_equal(gpi_grade_id_ok(NULL), 0);
}

static void test_site_grade_never_valued(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("site-susp");
    char path[4096];
    snprintf(path, sizeof path, "%s/s.db", dir);
    store *st = NULL;
    gpi_diag d;
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    for (int t = 0; t < 10; t++) {
        store_index_row r;
        memset(&r, 0, sizeof r);
        r.day = gpi_days_from_civil(2025, 3, 1) + t;
        snprintf(r.grade, sizeof r.grade, "THIN.GRADE");
        r.level = GPI_LEVEL_SUSPENDED;
        r.value_e4 = r.adjustment_e6 = r.p10_micro = r.p25_micro = r.p50_micro = -1;
        r.p75_micro = r.p90_micro = r.min_micro = r.max_micro = r.top_share_e6 = -1;
        snprintf(r.methodology, sizeof r.methodology, "v1");
        if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("put row: %s", d.msg);
    }
    store_close(st);
    static const char *const ids[] = {"THIN.GRADE"};
    write_published(dir, ids, 1);
    tu_run r = tu_gpuidx(dir, "--db '%s' site --out www --grades g.json", path);
    assert_int_equal(r.status, 0);
    snprintf(path, sizeof path, "%s/www/index.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    /* one line saying why, no chart (an empty chart took a full frame) */
    assert_non_null(strstr(html, "<p class=\"novalue\">No value on any of its 10 days "
                                 "(2025-03-01 to 2025-03-10): no observation of the grade on "
                                 "any day.</p>"));
    assert_null(strstr(html, "<svg"));
    assert_int_equal(count(html, "<circle "), 0);
    assert_null(strstr(html, "$0.")); /* no price axis */
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, "inf"));
    free(html);
    tu_run_free(&r);
    free(dir);
}

/* A database with observations but no index yet: a page that says so. */
/* A grade's chart spans its own days from its first value (the page's
 * range squeezed a late grade into a corner); suspended and carried days
 * say why on hover, the latest day's why is in the summary table, whose
 * share columns are labelled. */
static void test_site_own_axes_and_reasons(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("site-axes");
    char path[4096];
    snprintf(path, sizeof path, "%s/idx.db", dir);
    store *st = NULL;
    gpi_diag d;
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    int32_t d0 = gpi_days_from_civil(2025, 1, 1);
    for (int g = 0; g < 2; g++)
        for (int t = 0; t < 60; t++) {
            store_index_row r;
            memset(&r, 0, sizeof r);
            r.day = d0 + t;
            snprintf(r.grade, sizeof r.grade, "%s", g ? "A.EARLY" : "B.LATE");
            /* B.LATE: no value before 2025-01-31; both carried on day 50 */
            int none = g == 0 && t < 30;
            r.level = none ? GPI_LEVEL_SUSPENDED : t == 50 ? GPI_LEVEL_CARRIED : GPI_LEVEL_TRADES;
            r.value_e4 = none ? -1 : 20000 + 10 * t;
            r.n_providers = none ? 1 : 4;
            r.adjustment_e6 = r.p10_micro = r.p25_micro = r.p50_micro = r.p75_micro = -1;
            r.p90_micro = r.min_micro = r.max_micro = r.top_share_e6 = -1;
            if (none) snprintf(r.note, sizeof r.note, "no eligible observations");
            if (t == 50) snprintf(r.note, sizeof r.note, "trades: 1 provider (need 3)");
            if (t == 59 && g == 0) {
                r.level = GPI_LEVEL_SUSPENDED;
                r.value_e4 = -1;
                snprintf(r.note, sizeof r.note, "carried 5 days already (max_carry_days)");
            }
            snprintf(r.methodology, sizeof r.methodology, "v1");
            if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("put row: %s", d.msg);
        }
    store_close(st);
    static const char *const ids[] = {"B.LATE", "A.EARLY"};
    write_published(dir, ids, 2);
    tu_run r = tu_gpuidx(dir, "--db idx.db site --out www --grades g.json");
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    snprintf(path, sizeof path, "%s/www/index.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    const char *late = strstr(html, "<section><h2 id=\"g-B.LATE\">");
    const char *early = strstr(html, "<section><h2 id=\"g-A.EARLY\">");
    assert_non_null(late);
    assert_non_null(early);
    assert_true(late < early); /* the file's order */
    /* B.LATE's axis starts at its first value, 2025-01-31: its first month
     * label is February; A.EARLY's is January */
    const char *jan = strstr(late, ">Jan 2025</text>"), *feb = strstr(late, ">Feb 2025</text>");
    assert_non_null(feb);
    assert_true(jan == NULL || jan > early);
    assert_non_null(strstr(early, ">Jan 2025</text>"));
    /* why, on hover: the suspended run at the end and the carried day */
    assert_non_null(strstr(late, "<title>suspended 2025-03-01..2025-03-01: carried 5 days already "
                                 "(max_carry_days)</title>"));
    assert_non_null(strstr(late, "<title>2025-02-20 carried 2.0500: trades: 1 provider (need "
                                 "3)</title>"));
    /* and in the table, with its labelled columns */
    assert_non_null(strstr(html, "<th colspan=\"4\">share of days at each level</th>"));
    assert_non_null(strstr(html, "<td class=\"why\">carried 5 days already (max_carry_days)"
                                 "</td>"));
    free(html);
    free(dir);
}

static void test_site_empty_database(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("site-empty");
    free(tu_write(dir, "o.csv",
                  "kind,id,observed_at,source,provider,gpu,price\n"
                  "offer,o1,2025-01-01T09:00:00Z,t,ProvA,H100-SXM-80GB,2.00\n"));
    tu_run r = tu_gpuidx(dir, "--db '%s/e.db' ingest '%s/o.csv'", dir, dir);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db '%s/e.db' site --out '%s/www'", dir, dir);
    assert_int_equal(r.status, 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/www/index.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    assert_non_null(strstr(html, "No index values have been built yet"));
    assert_null(strstr(html, "<svg"));
    free(html);
    tu_run_free(&r);
    free(dir);
}

/* A folder where index.html goes: exit 1 with the path and the reason,
 * and no temporary file left behind. */
static void test_site_rename_fails_cleanly(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("site-blocked");
    static const char *const grades[] = {"A100.SPOT"};
    char *db = make_db(dir, grades, 1, 5);
    write_published(dir, grades, 1);
    tu_run r = tu_sh(dir, "mkdir -p www/index.html");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db idx.db site --out www --grades g.json");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: www/index.html: Is a directory\n");
    tu_run_free(&r);
    r = tu_sh(dir, "ls -A www");
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, ".tmp"));
    tu_run_free(&r);
    free(db);
    free(dir);
}

static void test_site_usage(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(NULL, "site");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "gpuidx: site: --out DIR is required (see gpuidx site --help)\n");
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "site --bogus");
    assert_int_equal(r.status, 2);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "site --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx [--db PATH] site --out DIR"));
    tu_run_free(&r);
}

/* A v2 grade on the demo market: the page draws the cross-section line,
 * panel changes and the rebalance, and the history CSV has the v2
 * columns. */
static void test_site_v2_chart(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("site-v2");
    free(tu_write(dir, "g.json",
                  "{\"grades\":[{\"id\":\"H\",\"gpu\":\"H100-SXM-80GB\",\"method\":\"v2\"}]}"));
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 45 --seed 3 --start 2025-01-10 --out m >/dev/null",
        "\"$GPUIDX_BIN\" --db t.db ingest offers --admit-providers m/offers.csv >/dev/null",
        "\"$GPUIDX_BIN\" --db t.db ingest trades --admit-providers m/trades.csv >/dev/null",
        "\"$GPUIDX_BIN\" --db t.db index build --grades g.json --from 2025-01-10 --to 2025-02-23",
        "\"$GPUIDX_BIN\" --db t.db site --out www --grades g.json",
    };
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/www/index.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    assert_non_null(strstr(html, "<polyline class=\"xs\" points=\""));
    assert_non_null(strstr(html, "<line class=\"reb\""));
    assert_non_null(strstr(html, "2025-02-01: rebalance, splice "));
    assert_non_null(strstr(html, "<path class=\"pc\""));
    assert_non_null(strstr(html, "<text x=\"436\" y=\"1\">cross-section</text>"));
    free(html);
    snprintf(path, sizeof path, "%s/www/H.csv", dir);
    char *csv = tu_read(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",index_providers\n2025-01-10,H,"));
    assert_non_null(strstr(csv, ",v2,,")); /* methodology v2, no vintage */
    assert_non_null(strstr(csv, ",rebalance,"));
    free(csv);
    free(dir);
}

/* Splits a CSV line (quotes as RFC 4180) into at most max fields, in
 * place; returns the count.  line ends at '\n' or NUL. */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *w = p;
        if (n < max) f[n] = w;
        int q = 0;
        while (*p && (q || (*p != ',' && *p != '\n'))) {
            if (*p == '"') {
                if (q && p[1] == '"') *w++ = *p++;
                else q = !q;
                p++;
                continue;
            }
            *w++ = *p++;
        }
        char end = *p;
        *w = '\0';
        n++;
        if (end != ',') break;
        p++;
    }
    return n;
}

/* "2.3456" -> 23456 (places decimals), -1 for "". */
static long long fixed(const char *s, int places)
{
    if (!*s) return -1;
    long long v = 0;
    int seen = -1;
    for (; *s; s++) {
        if (*s == '.') {
            seen = 0;
            continue;
        }
        v = v * 10 + (*s - '0');
        if (seen >= 0) seen++;
    }
    for (; seen < places; seen = seen < 0 ? 1 : seen + 1) v *= 10;
    return v;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The sentence the page must say of grade id, recomputed from its history
 * CSV (www/<id>.csv: value, loo_move, cost_1pct_gpu_hours, event). */
static char *expected_manip(const char *dir, const char *id, int v2)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/www/%s.csv", dir, id);
    char *csv = tu_read(path);
    assert_non_null(csv);
    char *f[64];
    char *line = csv, *next = strchr(line, '\n');
    *next = '\0';
    int nh = split_csv(line, f, 64), c_val = -1, c_loo = -1, c_cost = -1, c_ev = -1;
    for (int k = 0; k < nh; k++) {
        if (!strcmp(f[k], "value")) c_val = k;
        if (!strcmp(f[k], "loo_move")) c_loo = k;
        if (!strcmp(f[k], "cost_1pct_gpu_hours")) c_cost = k;
        if (!strcmp(f[k], "event")) c_ev = k;
    }
    assert_true(c_val >= 0 && c_loo >= 0 && c_cost >= 0 && c_ev >= 0);
    long long rel[400], cost[400], max_rel = -1;
    size_t nl = 0, nc = 0, days = 0, none = 0;
    char max_day[11] = "";
    for (line = next + 1; *line; line = next + 1) {
        next = strchr(line, '\n');
        *next = '\0';
        split_csv(line, f, 64);
        long long v = fixed(f[c_val], 4), loo = fixed(f[c_loo], 4), c = fixed(f[c_cost], 2);
        if (v <= 0) continue;
        if (loo >= 0) {
            long long bp = (loo * 20000 / v + 1) / 2;
            rel[nl++] = bp;
            if (bp > max_rel) max_rel = bp, snprintf(max_day, sizeof max_day, "%s", f[0]);
        }
        if (v2 && !*f[c_ev]) continue;
        days++;
        if (c > 0) cost[nc++] = c;
        else none++;
    }
    assert_true(nl > 0 && nc > 0);
    qsort(rel, nl, sizeof *rel, cmp_ll);
    qsort(cost, nc, sizeof *cost, cmp_ll);
    char *out = malloc(1024);
    int n = snprintf(out, 1024, "leaving out one provider moves the value by a median of "
                     "%lld.%02lld%% (at most %lld.%02lld%%, %s); to move it 1%%, a new participant "
                     "needs a median of %lld.%02lld GPU-hours of trades on the %zu of %zu %s it can",
                     rel[(nl - 1) / 2] / 100, rel[(nl - 1) / 2] % 100, max_rel / 100, max_rel % 100,
                     max_day, cost[(nc - 1) / 2] / 100, cost[(nc - 1) / 2] % 100, nc, days,
                     v2 ? "anchor days" : "days");
    if (none) snprintf(out + n, 1024 - (size_t)n, "; no volume can on %zu", none);
    free(csv);
    return out;
}

/* Issue 14: each grade's section says what one participant can do to its
 * fixes, from the figures the rows carry (recomputed here from the
 * history CSV): v1 over every day with a value, v2 over the anchor days. */
static void test_site_manipulation_figures(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("site-manip");
    free(tu_write(dir, "g.json",
                  "{\"grades\":[{\"id\":\"H\",\"gpu\":\"H100-SXM-80GB\",\"method\":\"v2\"},"
                  "{\"id\":\"H1\",\"gpu\":\"H100-SXM-80GB\",\"method\":\"v1\"}]}"));
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 75 --seed 3 --start 2025-01-10 --out m >/dev/null",
        "\"$GPUIDX_BIN\" --db t.db ingest offers --admit-providers m/offers.csv >/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db t.db ingest trades --admit-providers m/trades.csv >/dev/null 2>&1",
        "\"$GPUIDX_BIN\" --db t.db index build --grades g.json --from 2025-01-10 --to 2025-03-25",
        "\"$GPUIDX_BIN\" --db t.db site --out www --grades g.json",
    };
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/www/index.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    for (int v2 = 0; v2 < 2; v2++) {
        char *want = expected_manip(dir, v2 ? "H" : "H1", v2);
        if (!strstr(html, want)) fail_msg("the page does not say\n%s", want);
        free(want);
    }
    assert_non_null(strstr(html, "; between anchors a newcomer cannot move the chained value."));
    free(html);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_site_writes_page_and_csvs),
        cmocka_unit_test(test_site_refuses_bad_grade_ids),
        cmocka_unit_test(test_site_grade_id_valid_table),
        cmocka_unit_test(test_site_grade_never_valued),
        cmocka_unit_test(test_site_own_axes_and_reasons),
        cmocka_unit_test(test_site_empty_database),
        cmocka_unit_test(test_site_rename_fails_cleanly),
        cmocka_unit_test(test_site_usage),
        cmocka_unit_test(test_site_v2_chart),
        cmocka_unit_test(test_site_manipulation_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
