/* tests/test_e2e_statement.c -- statement.html of `gpuidx site`: the
 * benchmark statement generated from the stored grade definitions, its
 * back-test from the stored rows and restatements, and the accuracy table
 * from bench/accuracy's figures.
 *
 * The statement tests store grades whose every parameter differs from its
 * default (so each phrase can only come from that parameter) and pin the
 * sentence that states it.  The back-test tests set up rows with known
 * levels, events, vintages and restatements through the store API and pin
 * the table rows, counted by hand; a last test runs the real pipeline
 * (build, publish, late data, rebuild, publish) and compares the table
 * with counts taken from `index show` and restatements.csv.
 *
 * `gpuidx site` shows the published grade set only (the grades of
 * --grades FILE, default data/grades.json): each test names its grades in
 * such a file (pub.json), giving each the smallest definition there (GPU
 * B200, every default), so a phrase that states a parameter can only come
 * from the definition stored with the rows.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "store/store.h"
#include "store/grades.h"
#include "store/index_values.h"
#include "store/vintages.h"
#include "tests/index_fixture.h"

static int32_t day0(void)
{
    return gpi_days_from_civil(2025, 1, 1);
}

/* Registers the grades of json (each as parsed) and returns them. */
static idx_grades *register_grades(store *st, const char *json)
{
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse(json, "test", NULL, IDX_TRUST_GPUS, &gs, &d) != GPI_OK)
        fail_msg("grades: %s", d.msg);
    for (size_t i = 0; i < gs->n; i++) {
        int conflict = 0;
        char stored[65];
        if (store_grade_register(st, gs->g[i].id, gs->g[i].version, gs->g[i].hash,
                                 gs->g[i].canon, 1000, &conflict, stored, &d) != GPI_OK ||
            conflict)
            fail_msg("register %s: %s", gs->g[i].id, d.msg);
    }
    return gs;
}

typedef struct rowspec {
    int level, xs_level, event, panel_change;
    int64_t splice_e12;
} rowspec;

static void put_row(store *st, const char *grade, const char *hash, int v2, int t,
                    const rowspec *s)
{
    store_index_row r;
    memset(&r, 0, sizeof r);
    r.day = day0() + t;
    snprintf(r.grade, sizeof r.grade, "%s", grade);
    r.level = s->level;
    r.value_e4 = s->level == GPI_LEVEL_SUSPENDED ? -1 : 20000 + t;
    r.n_providers = 3;
    r.adjustment_e6 = -1;
    r.p10_micro = r.p25_micro = r.p50_micro = r.p75_micro = r.p90_micro = r.min_micro =
        r.max_micro = r.top_share_e6 = -1;
    r.trades_raw_q = r.offers_raw_q = -1;
    snprintf(r.methodology, sizeof r.methodology, "%s", v2 ? "v2" : "v1");
    snprintf(r.grade_hash, sizeof r.grade_hash, "%s", hash);
    r.grade_version = 1;
    r.xs_value_e4 = r.chain_nano = r.relative_e12 = r.splice_e12 = -1;
    r.matched_now_q = r.matched_ref_q = -1;
    r.ref_day = r.panel_day = INT32_MIN;
    for (int k = 0; k < 7; k++) r.obs_spread[k] = -1;
    if (v2) {
        r.xs_level = s->xs_level;
        r.xs_value_e4 = s->xs_level <= GPI_LEVEL_OFFERS ? 20000 : -1;
        r.event = s->event;
        r.panel_change = s->panel_change;
        r.splice_e12 = s->splice_e12;
    }
    gpi_diag d = {{0}};
    if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("put row: %s", d.msg);
}

/* dir/pub.json: the published grades file of the site, listing ids[0..n)
 * with the smallest definition (the statement reads the stored ones). */
static void write_published(const char *dir, const char *const *ids, int n)
{
    char text[1024];
    size_t k = (size_t)snprintf(text, sizeof text, "{\"grades\": [");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%s{\"id\": \"%s\", \"gpu\": \"B200\"}",
                              i ? ", " : "", ids[i]);
    snprintf(text + k, sizeof text - k, "]}\n");
    free(tu_write(dir, "pub.json", text));
}

static char *site_statement(const char *dir, const char *db, const char *extra)
{
    tu_run r = tu_gpuidx(dir, "--db '%s' site --out www --grades pub.json %s", db, extra);
    if (r.status != 0) fail_msg("site: exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/www/statement.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    return html;
}

static void expect(const char *html, const char *phrase)
{
    if (!strstr(html, phrase)) fail_msg("statement.html lacks:\n  %s", phrase);
}

/* Every parameter away from its default, and the filters in words. */
static const char grades_json[] =
    "{\"grades\": ["
    "{\"id\": \"R.V1\", \"version\": 3, \"method\": \"v1\","
    " \"gpu\": [\"H100-SXM-80GB\", \"H200-SXM-141GB\"], \"term\": \"reserved:1-3\","
    " \"scope\": [\"bare-metal\"], \"min_tier\": \"gold\", \"regions\": [\"us-*\"],"
    " \"providers\": [\"CoreWeave\"], \"segments\": [\"neocloud\"],"
    " \"error_factor\": 2.5, \"min_trade_volume\": 750, \"min_providers\": 4,"
    " \"cap_floor\": 0.25, \"max_carry_days\": 3, \"adj_lookback_days\": 20,"
    " \"adj_min_days\": 4, \"restate_threshold\": 0.002, \"rounding\": 0.0005},"
    "{\"id\": \"S.V2\", \"method\": \"v2\", \"gpu\": [\"A100-SXM-80GB\"], \"term\": \"spot\","
    " \"min_tier\": \"unrated\", \"min_providers\": 1, \"max_carry_days\": 1,"
    " \"rebalance_months\": 3, \"anchor_days\": 5, \"trade_carry_days\": 2},"
    "{\"id\": \"Y.V2\", \"method\": \"v2\", \"gpu\": [\"B200\"], \"term\": \"reserved:12-12\","
    " \"min_tier\": \"silver\", \"rebalance_months\": 12, \"anchor_days\": 1}"
    "]}";

static void test_statement_states_every_parameter(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("statement");
    char db[4096];
    snprintf(db, sizeof db, "%s/s.db", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    idx_grades *gs = register_grades(st, grades_json);
    rowspec tr = {GPI_LEVEL_TRADES, GPI_LEVEL_TRADES, 0, 0, -1};
    for (size_t i = 0; i < gs->n; i++)
        for (int t = 0; t < 3; t++)
            put_row(st, gs->g[i].id, gs->g[i].hash, gs->g[i].method == 2, t, &tr);
    /* a grade whose rows carry no stored definition */
    for (int t = 0; t < 3; t++) put_row(st, "NODEF", "", 0, t, &tr);
    /* a grade outside the published set (a candidate): not stated */
    for (int t = 0; t < 3; t++) put_row(st, "CAND", gs->g[0].hash, 0, t, &tr);
    store_close(st);
    static const char *const pub[] = {"R.V1", "S.V2", "Y.V2", "NODEF"};
    write_published(dir, pub, 4);
    char *html = site_statement(dir, db, "");
    assert_null(strstr(html, "CAND"));

    static const char *const v1_phrases[] = {
        /* what it measures: term, GPUs, scope, tier, providers, segments, regions */
        "<p><b>What it measures.</b> The price, in USD per GPU-hour, at which reserved "
        "(commitments of 1 to 3 months) rental of H100-SXM-80GB or H200-SXM-141GB GPUs as "
        "bare-metal capacity, from providers rated gold or better in ClusterMAX (only "
        "CoreWeave) in the neocloud segment, in the regions us-*, was transacted &#8212; or, on "
        "days without enough trades, offered &#8212; on each UTC calendar day; published to a "
        "multiple of 0.0005 USD.</p>",
        "<tr><td>definition</td><td>version 3, method v1, SHA-256 <code>",
        "<tr><td>regions</td><td>us-*</td></tr>",
        /* min_trade_volume, min_providers */
        "The trades level needs at least 750 GPU-hours of screened trades from at least 4 "
        "provider groups; the offers level needs screened offers from at least 4 provider "
        "groups.",
        /* error_factor */
        "excluded when it is above 2.5&#215; or below 1/2.5 of the median of its own "
        "provider's prices",
        /* cap_floor */
        "no provider weighs more than max(25 %, 1/n) of the volume",
        /* adj_lookback_days, adj_min_days */
        "the median ratio of the trades to the offers value over the previous 20 days that "
        "had both, when there are at least 4 such days (else 1);</li>",
        /* max_carry_days */
        "<li><b>carried</b>: otherwise the previous value, at most 3 days in a row;</li>",
        "(need 750.00 from 4); offers: N providers after the screen (need 4)</i>). After 3 "
        "carried days in a row, or with no earlier value, the day is "
        "<code>suspended</code>",
        /* restate_threshold, rounding */
        "when it moved by more than 0.2 % of the published value",
        "Values are rounded once, half-up, to a multiple of 0.0005.",
    };
    const char *v1 = strstr(html, "<h3 id=\"s-R.V1\">");
    const char *v2 = strstr(html, "<h3 id=\"s-S.V2\">");
    const char *y2 = strstr(html, "<h3 id=\"s-Y.V2\">");
    const char *nd = strstr(html, "<h3 id=\"s-NODEF\">");
    assert_non_null(v1);
    assert_non_null(v2);
    assert_non_null(y2);
    assert_non_null(nd);
    /* the published grades file's order: R.V1, S.V2, Y.V2, NODEF */
    assert_true(v1 < v2 && v2 < y2 && y2 < nd);
    char *sec = strndup(v1, (size_t)(v2 - v1));
    for (size_t i = 0; i < sizeof v1_phrases / sizeof v1_phrases[0]; i++)
        expect(sec, v1_phrases[i]);
    assert_null(strstr(sec, "Chain and rebalance"));
    free(sec);

    static const char *const v2_phrases[] = {
        "at which spot (interruptible) rental of A100-SXM-80GB GPUs, from any provider "
        "whatever its ClusterMAX tier, in any region, was transacted",
        "from at least 1 provider group; the offers level needs screened offers from at "
        "least 1 provider group.",
        "(at least 1 provider with at least 1000 GPU-hours that day)",
        "<li><b>carried</b>: otherwise the previous value, at most 1 day in a row;</li>",
        "stays in the sample at its last trade price for 2 days.",
        "on the first day of every 3 months (January, April, July, October), at the median "
        "of the cross-sections of the last 5 days",
        "over the previous 30 days that had both, when there are at least 5 such days",
        "<li><b>re-anchored</b>:",
        "After 1 carried day in a row",
        "when it moved by more than 0.1 % of the published value",
    };
    sec = strndup(v2, (size_t)(y2 - v2));
    for (size_t i = 0; i < sizeof v2_phrases / sizeof v2_phrases[0]; i++)
        expect(sec, v2_phrases[i]);
    free(sec);
    expect(y2, "reserved (a 12-month commitment) rental of B200 GPUs, from providers rated "
               "silver or better");
    expect(y2, "on the first day of every 12 months (January), at that day's cross-section;");
    expect(nd, "This grade's definition is not stored with its values");
    /* linked both ways, no script, no network */
    expect(html, "<a href=\"index.html\">Index values</a>");
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "http"));
    char path[4096];
    snprintf(path, sizeof path, "%s/www/index.html", dir);
    char *index = tu_read(path);
    expect(index, "<a href=\"statement.html\">Benchmark statement</a>");
    free(index);
    free(html);
    idx_grades_free(gs);
    free(dir);
}

/* Back-test from stored rows (hand-counted):
 *   G1 (v1), 60 days: 0-29 trades, 30-39 offers, 40-44 carried, 45-47
 *     suspended, 48-59 trades -> 42 / 10 / 5 / 3, longest carry 5;
 *   G2 (v2), 60 days: trades but days 20-21 carried and 50 suspended ->
 *     57 / 0 / 2 / 1, longest carry 2; cross-section offers on days 40-49,
 *     suspended on 50 -> 49 / 10 / 0 / 1; start day 0, rebalances days 31
 *     (splice 1.02) and 59 (splice 0.97), a reanchor day 22 (splice 1.005);
 *     panel changes days 5, 6, 9;
 *   days 0-11 published (12); restatements: G1 day 3 twice and day 7 (3
 *     rows, 2 days: 16.7 % of 12), G2 none; one on an unknown grade. */
static void test_backtest_counts(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("backtest");
    char db[4096];
    snprintf(db, sizeof db, "%s/b.db", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    for (int t = 0; t < 60; t++) {
        rowspec a = {t < 30 ? GPI_LEVEL_TRADES : t < 40 ? GPI_LEVEL_OFFERS
                     : t < 45 ? GPI_LEVEL_CARRIED : t < 48 ? GPI_LEVEL_SUSPENDED
                     : GPI_LEVEL_TRADES, 0, 0, 0, -1};
        put_row(st, "G1", "", 0, t, &a);
        rowspec b = {t == 20 || t == 21 ? GPI_LEVEL_CARRIED
                     : t == 50 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES,
                     t >= 40 && t < 50 ? GPI_LEVEL_OFFERS
                     : t == 50 ? GPI_LEVEL_SUSPENDED : GPI_LEVEL_TRADES,
                     t == 0 ? IDX_EVENT_START : t == 31 || t == 59 ? IDX_EVENT_REBALANCE
                     : t == 22 ? IDX_EVENT_REANCHOR : 0,
                     t == 5 || t == 6 || t == 9,
                     t == 31 ? 1020000000000 : t == 59 ? 970000000000
                     : t == 22 ? 1005000000000 : -1};
        put_row(st, "G2", "", 1, t, &b);
    }
    for (int t = 0; t < 12; t++)
        if (store_vintage_put(st, day0() + t, 1, 2, 1000, "a", "b", "c", &d) != GPI_OK)
            fail_msg("%s", d.msg);
    if (store_restatement_put(st, day0() + 3, "G1", 2, 20003, 20103, "x", &d) != GPI_OK ||
        store_restatement_put(st, day0() + 3, "G1", 3, 20103, 20203, "x", &d) != GPI_OK ||
        store_restatement_put(st, day0() + 7, "G1", 2, 20007, 20107, "x", &d) != GPI_OK ||
        store_restatement_put(st, day0() + 7, "OTHER", 2, 1, 2, "x", &d) != GPI_OK)
        fail_msg("%s", d.msg);
    store_close(st);
    static const char *const pub[] = {"G1", "G2"};
    write_published(dir, pub, 2);
    char *html = site_statement(dir, db, "");
    expect(html, "<tr><td>G1</td><td>60</td><td>42 (70.0 %)</td><td>10 (16.7 %)</td>"
                 "<td>5 (8.3 %)</td><td>3 (5.0 %)</td><td>5</td><td>12</td><td>3</td>"
                 "<td>2 (16.7 %)</td></tr>");
    expect(html, "<tr><td>G2</td><td>60</td><td>57 (95.0 %)</td><td>0 (0.0 %)</td>"
                 "<td>2 (3.3 %)</td><td>1 (1.7 %)</td><td>2</td><td>12</td><td>0</td>"
                 "<td>0 (0.0 %)</td></tr>");
    expect(html, "<tr><td>G2</td><td>49 (81.7 %)</td><td>10 (16.7 %)</td><td>0 (0.0 %)</td>"
                 "<td>1 (1.7 %)</td><td>1</td><td>2</td><td>1</td><td>3</td><td>3.00 %</td>"
                 "</tr>");
    /* G1 is v1: not in the v2 table (which ends at its </table>: the term
     * curve's table later on the page lists every grade) */
    const char *v2t = strstr(html, "<th>v2 grade</th>");
    assert_non_null(v2t);
    const char *v2end = strstr(v2t, "</table>");
    assert_non_null(v2end);
    const char *g1 = strstr(v2t, "<tr><td>G1</td>");
    assert_true(!g1 || g1 > v2end);
    free(html);
    free(dir);
}

/* The real pipeline: index_fixture.h's market built, days 1-7 published,
 * late data restating day 7, rebuilt and published again; the statement's
 * back-test row equals the counts of `index show` and restatements.csv. */
static void test_backtest_matches_pipeline(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("backtest-e2e");
    char db[4096];
    snprintf(db, sizeof db, "%s/t.db", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    fx_market(st);
    store_close(st);
    free(tu_write(dir, "g.json", fx_grades_json));
    static const char *const steps1[] = {
        "\"$GPUIDX_BIN\" --db t.db index build --grades g.json --from 2025-01-01 --to "
        "2025-01-14 --as-of 1970-01-01T00:25:00Z",
        "\"$GPUIDX_BIN\" --db t.db index publish --from 2025-01-01 --to 2025-01-07 --out pub "
        "--grades g.json 2>/dev/null",
    };
    tu_run r = tu_sh_all(dir, steps1, 2);
    tu_run_free(&r);
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    fx_late(st);
    store_close(st);
    static const char *const steps2[] = {
        "\"$GPUIDX_BIN\" --db t.db index build --grades g.json --from 2025-01-05 --to "
        "2025-01-07 --as-of 1970-01-01T00:41:40Z",
        /* the days 5-7 late data reached, published in one command
         * (METHODOLOGY.md §6.3): 7 restated, 5 revised */
        "\"$GPUIDX_BIN\" --db t.db index publish --date 2025-01-07 --out pub --grades g.json "
        "--restate 2>/dev/null",
    };
    r = tu_sh_all(dir, steps2, 2);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db index show --grade T");
    assert_int_equal(r.status, 0);
    long lv[GPI_LEVEL__N] = {0}, days = 0, run = 0, longest = 0;
    static const char *const names[] = {",trades,", ",offers,", ",carried,", ",suspended,"};
    char *save, *line = strtok_r(r.out, "\n", &save); /* the header */
    while ((line = strtok_r(NULL, "\n", &save))) {
        days++;
        int found = -1;
        for (int l = 0; l < GPI_LEVEL__N; l++)
            if (strstr(line, names[l])) found = l;
        assert_true(found >= 0);
        lv[found]++;
        run = found == GPI_LEVEL_CARRIED ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    tu_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/pub/restatements.csv", dir);
    char *rs = tu_read(path);
    assert_non_null(rs);
    long nrs = 0;
    for (char *p = strchr(rs, '\n'); p && p[1]; p = strchr(p + 1, '\n')) nrs++;
    free(rs);
    assert_int_equal(days, 14);
    assert_int_equal(nrs, 1);
    static const char *const pub[] = {"T"};
    write_published(dir, pub, 1);
    char *html = site_statement(dir, db, "");
    char want[512];
    int n = snprintf(want, sizeof want, "<tr><td>T</td><td>%ld</td>", days);
    for (int l = 0; l < GPI_LEVEL__N; l++)
        n += snprintf(want + n, sizeof want - (size_t)n, "<td>%ld (%.1f %%)</td>", lv[l],
                      100.0 * (double)lv[l] / (double)days);
    /* 7 days published (2025-01-01..07), 1 restated */
    snprintf(want + n, sizeof want - (size_t)n,
             "<td>%ld</td><td>7</td><td>%ld</td><td>1 (14.3 %%)</td></tr>", longest, nrs);
    expect(html, want);
    free(html);
    free(dir);
}

static void test_accuracy_table(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("statement-acc");
    char db[4096];
    snprintf(db, sizeof db, "%s/a.db", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    rowspec tr = {GPI_LEVEL_TRADES, GPI_LEVEL_TRADES, 0, 0, -1};
    for (int t = 0; t < 3; t++) put_row(st, "G", "", 1, t, &tr);
    store_close(st);
    static const char *const pub[] = {"G"};
    write_published(dir, pub, 1);
    static const char hdr[] =
        "grade,method,variant,market,days,mae_usd,mae_pct,bias_pct,chg_mae_pct,months,"
        "month_mean_pct,month_max_pct,push_effect_usd,push_effect_day,loo_max_usd\n";
    char text[2048];
    snprintf(text, sizeof text,
             "%sG,v2,as shipped,pusher on,365,0.033700,1.640000,0.810000,1.760000,12,"
             "0.960000,4.010000,0.082300,2025-06-26,0.205400\n"
             "G,v1,as shipped,pusher on,365,0.030000,1.480000,0.700000,1.840000,12,"
             "0.780000,1.810000,0.127000,2025-06-26,0.247000\n"
             "G,v1,no provider cap,pusher on,365,0.030000,1.860000,1.100000,1.900000,12,"
             "0.800000,1.900000,1.164500,2025-06-21,\n"
             "G,v2,as shipped,pusher off,365,0.030000,1.640000,0.700000,1.760000,12,"
             "0.960000,4.010000,,,\n"
             "N,v2,as shipped,pusher on,0,,,,,,,,,,\n"
             "N,v1,as shipped,pusher on,0,,,,,,,,,,\n",
             hdr);
    free(tu_write(dir, "acc.csv", text));
    char *html = site_statement(dir, db, "--accuracy acc.csv");
    expect(html, "<h3 id=\"accuracy\">Accuracy against a known true price</h3>");
    expect(html, "<tr><td>G</td><td>365</td><td>1.64</td><td>1.48</td><td>0.81</td>"
                 "<td>1.76</td><td>1.84</td><td>0.96 / 4.01</td><td>0.78 / 1.81</td>"
                 "<td>0.0823</td><td>0.2054</td><td>0.1270</td><td>1.1645</td></tr>");
    /* a grade the market does not list (bench/accuracy: days 0, no figure) */
    expect(html, "<tr><td>N</td><td>0</td><td colspan=\"11\">no data (no day with both a "
                 "value and a true price)</td></tr>");
    free(html);
    /* quoted fields (a csv module's QUOTE_ALL, CRLF) read as the same figures */
    snprintf(text, sizeof text,
             "%s\"G\",\"v2\",\"as shipped\",\"pusher on\",\"365\",\"0.0337\",\"1.64\",\"0.81\","
             "\"1.76\",\"12\",\"0.96\",\"4.01\",\"0.0823\",\"2025-06-26\",\"0.2054\"\r\n"
             "\"G\",\"v1\",\"as shipped\",\"pusher on\",365,0.03,1.48,0.7,1.84,12,0.78,1.81,0.127,"
             "2025-06-26,0.247\r\n"
             "G,v1,no provider cap,pusher on,365,0.03,1.86,1.1,1.9,12,0.8,1.9,1.1645,,\r\n",
             hdr);
    free(tu_write(dir, "quoted.csv", text));
    html = site_statement(dir, db, "--accuracy quoted.csv");
    expect(html, "<tr><td>G</td><td>365</td><td>1.64</td><td>1.48</td><td>0.81</td>"
                 "<td>1.76</td><td>1.84</td><td>0.96 / 4.01</td><td>0.78 / 1.81</td>"
                 "<td>0.0823</td><td>0.2054</td><td>0.1270</td><td>1.1645</td></tr>");
    free(html);
    /* bad input: the file, line and field; nothing written */
    snprintf(text, sizeof text, "%sG,v2,as shipped,pusher on,365,0.03,x,0,0,0,0,0,0,,0\n", hdr);
    free(tu_write(dir, "bad.csv", text));
    tu_run r = tu_gpuidx(dir, "--db a.db site --out www2 --grades pub.json --accuracy bad.csv");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: bad.csv:2: mae_pct: not a number (got \"x\")\n");
    tu_run_free(&r);
    free(tu_write(dir, "short.csv", "grade,method\n"));
    r = tu_gpuidx(dir, "--db a.db site --out www2 --grades pub.json --accuracy short.csv");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: short.csv:1: variant: column missing from the header "
                               "(got \"\")\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db a.db site --out www2 --grades pub.json --accuracy none.csv");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: none.csv: No such file or directory\n");
    tu_run_free(&r);
    r = tu_sh(dir, "test -e www2");
    assert_int_equal(r.status, 1);
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statement_states_every_parameter),
        cmocka_unit_test(test_backtest_counts),
        cmocka_unit_test(test_backtest_matches_pipeline),
        cmocka_unit_test(test_accuracy_table),
    };
    return cmocka_run_group_tests_name("e2e_statement", tests, NULL, NULL);
}
