/* tests/test_e2e_cost.c -- `gpuidx cost` (and `site --deployments`) end to
 * end, through the binary.
 *
 * Each test builds a scratch database with store_index_put_row (the index
 * module is not needed), writes a deployments file and runs the program in
 * the scratch directory (so messages name "d.csv"), with --data pointing
 * at the source tree's tables.  Expected figures are worked by hand:
 *   B200.OD at 3.2400 USD/GPU-hour; 300 tok/s, acceptance 1:
 *     3.24 / (300 x 3600) x 1e6 = 3.000000; at 200 tok/s 4.500000 (x 1.5)
 *   first published 3.6000 instead: 3.6 / 1.08 = 3.333333
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/index_values.h"
#include "store/grades.h"
#include "store/testing.h"

#define DEPS_HDR "operator,workload,latency_target,gpu,grade,rent,from,to,tokens_per_s,acceptance,gpus\n"

static void put_day(store *st, const char *grade, const char *date, int level, int64_t e4)
{
    gpi_diag d = {{0}};
    store_index_row r;
    memset(&r, 0, sizeof r);
    if (gpi_date_parse(date, &r.day)) fail_msg("bad date %s", date);
    snprintf(r.grade, sizeof r.grade, "%s", grade);
    snprintf(r.methodology, sizeof r.methodology, "v1");
    r.level = level;
    r.value_e4 = level == GPI_LEVEL_SUSPENDED ? -1 : e4;
    r.adjustment_e6 = r.p10_micro = r.p25_micro = r.p50_micro = r.p75_micro = -1;
    r.p90_micro = r.min_micro = r.max_micro = r.top_share_e6 = -1;
    if (store_index_put_row(st, &r, &d) != GPI_OK) fail_msg("put: %s", d.msg);
}

/* B200.OD: 06-01 3.2400 (published as 3.6000 in vintage 1), 06-02
 * suspended, 06-03 never built, 06-04 carried 3.2400. */
static char *setup(const char *tag)
{
    char *dir = tu_mkdtemp(tag);
    char db[4096];
    snprintf(db, sizeof db, "%s/idx.db", dir);
    store *st;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    assert_int_equal(store_begin(st, &d), GPI_OK);
    put_day(st, "B200.OD", "2025-06-01", GPI_LEVEL_TRADES, 32400);
    put_day(st, "B200.OD", "2025-06-02", GPI_LEVEL_SUSPENDED, -1);
    put_day(st, "B200.OD", "2025-06-04", GPI_LEVEL_CARRIED, 32400);
    put_day(st, "X.OD", "2025-06-01", GPI_LEVEL_TRADES, 20000);
    int32_t d0;
    gpi_date_parse("2025-06-01", &d0);
    if (store_index_put_published(st, "B200.OD", d0, 1, GPI_LEVEL_TRADES, 36000, &d) != GPI_OK)
        fail_msg("published: %s", d.msg);
    /* registered as a build registers them (the did-you-mean reads them) */
    int conflict = 0;
    char stored[65];
    if (store_grade_register(st, "B200.OD", 1, "b1", "{}", 0, &conflict, stored, &d) != GPI_OK ||
        store_grade_register(st, "X.OD", 1, "x1", "{}", 0, &conflict, stored, &d) != GPI_OK)
        fail_msg("register: %s", d.msg);
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
    return dir;
}

static const char pair[] = DEPS_HDR "Slow,chat,p50,B200,B200.OD,,2025-06-01,2025-06-04,200,1,8\n"
                                    "Fast,chat,p50,B200,B200.OD,,2025-06-01,2025-06-04,300,1,8\n";

static tu_run cost(const char *dir, const char *args)
{
    return tu_gpuidx(dir, "--db idx.db --data '%s/data' cost %s", tu_srcdir(), args);
}

static void expect_ok(const tu_run *r)
{
    if (r->status != 0) fail_msg("exit %d: %s", r->status, r->err);
}

static void test_curve_200_vs_300(void **state)
{
    (void)state;
    char *dir = setup("cost-pair");
    free(tu_write(dir, "d.csv", pair));
    tu_run r = cost(dir, "curve --deployments d.csv --date 2025-06-01 --latest --operator Slow");
    expect_ok(&r);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "cost curve on 2025-06-01: workload chat, latency target p50\n"));
    assert_non_null(strstr(r.out, "index values as restated now (--latest)"));
    assert_non_null(strstr(r.out, "   1  Fast        B200            B200.OD                3.240000  "
                                  "trades       300.000  1.000000       8       2400.000       2400.000"
                                  "     3.000000       +0.00%      +0.00%\n"));
    assert_non_null(strstr(r.out, "   2  Slow        B200            B200.OD                3.240000  "
                                  "trades       200.000  1.000000       8       1600.000       4000.000"
                                  "     4.500000      +50.00%     +50.00%\n"));
    assert_non_null(strstr(r.out, "2 deployments; cheapest 3.000000, median 3.000000 "
                                  "(capacity-weighted: Fast), total capacity 4000.000\n"));
    assert_non_null(strstr(r.out, "Slow: 4.500000 USD per million acceptable tokens, rank 2 of 2; "
                                  "+50.00% (+1.500000) vs the cheapest, +50.00% (+1.500000) vs the "
                                  "median\n"));
    tu_run_free(&r);
    free(dir);
}

static void test_first_published_value_by_default(void **state)
{
    (void)state;
    char *dir = setup("cost-vintage");
    free(tu_write(dir, "d.csv", pair));
    tu_run r = cost(dir, "curve --deployments d.csv --date 2025-06-01 --csv");
    expect_ok(&r);
    /* vintage 1 published 3.6000: 3.6 / 1.08 = 3.333333, 3.6 / 0.72 = 5.000000 */
    const char *want =
        "date,rank,operator,deployment,workload,latency_target,gpu,grade,price_source,level,"
        "price_usd_per_gpu_hour,tokens_per_s,acceptance,gpus,usd_per_m_acceptable,"
        "total_usd_per_m_acceptable,rent_share_pct,api_usd_per_m,margin_usd_per_m,margin_pct,"
        "status,line,capacity,cum_capacity_from,cum_capacity_to,to_cheapest_usd,to_cheapest_pct,"
        "to_median_usd,to_median_pct\n"
        "2025-06-01,1,Fast,,chat,p50,B200,B200.OD,index,trades,3.600000,300.000,1.000000,8,"
        "3.333333,,,,,,ok,3,2400.000,0.000,2400.000,0.000000,0.00,0.000000,0.00\n"
        "2025-06-01,2,Slow,,chat,p50,B200,B200.OD,index,trades,3.600000,200.000,1.000000,8,"
        "5.000000,,,,,,ok,2,1600.000,2400.000,4000.000,1.666667,50.00,1.666667,50.00\n";
    assert_string_equal(r.out, want);
    tu_run_free(&r);
    r = cost(dir, "curve --deployments d.csv --date 2025-06-01 --csv --latest");
    expect_ok(&r);
    assert_non_null(strstr(r.out, ",3.240000,300.000,1.000000,8,3.000000,"));
    tu_run_free(&r);
    free(dir);
}

static void test_days_report_days_without_value(void **state)
{
    (void)state;
    char *dir = setup("cost-days");
    free(tu_write(dir, "d.csv", pair));
    tu_run r = cost(dir, "days --deployments d.csv --operator Fast --csv --latest");
    expect_ok(&r);
    const char *want =
        "date,operator,deployment,workload,latency_target,gpu,grade,price_source,level,"
        "price_usd_per_gpu_hour,tokens_per_s,acceptance,gpus,usd_per_m_acceptable,"
        "total_usd_per_m_acceptable,rent_share_pct,api_usd_per_m,margin_usd_per_m,margin_pct,"
        "status,line\n"
        "2025-06-01,Fast,,chat,p50,B200,B200.OD,index,trades,3.240000,300.000,1.000000,8,3.000000,"
        ",,,,,ok,3\n"
        "2025-06-02,Fast,,chat,p50,B200,B200.OD,index,suspended,,300.000,1.000000,8,,,,,,,"
        "suspended,3\n"
        "2025-06-03,Fast,,chat,p50,B200,B200.OD,index,,,300.000,1.000000,8,,,,,,,not built,3\n"
        "2025-06-04,Fast,,chat,p50,B200,B200.OD,index,carried,3.240000,300.000,1.000000,8,"
        "3.000000,,,,,,ok,3\n";
    assert_string_equal(r.out, want);
    tu_run_free(&r);
    r = cost(dir, "days --deployments d.csv --from 2025-06-02 --to 2025-06-03");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "4 deployment-days, 4 without an index value (suspended or not built)\n"));
    tu_run_free(&r);
    /* a curve on a suspended day lists everybody off the curve */
    r = cost(dir, "curve --deployments d.csv --date 2025-06-02");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "   -  (no deployment with a cost on this day)\n"
                                  "not on the curve (no index value on the day):\n"
                                  "   -  Slow        B200            B200.OD             suspended\n"
                                  "   -  Fast        B200            B200.OD             suspended\n"));
    tu_run_free(&r);
    free(dir);
}

static void test_json_svg_and_margin(void **state)
{
    (void)state;
    char *dir = setup("cost-json");
    free(tu_write(dir, "d.csv",
                  "operator,workload,latency_target,gpu,grade,date,tokens_per_s,acceptance,gpus,"
                  "other_cost,api_price\n"
                  "Fast,chat,p50,B200,B200.OD,2025-06-01,300,1,8,0.36,4\n"
                  "\"Slow <&> Co\",chat,p50,B200,B200.OD,2025-06-01,200,1,8,,\n"));
    tu_run r = cost(dir, "curve --deployments d.csv --latest --json --svg c.svg");
    expect_ok(&r);
    /* exact decimals in the JSON text: (3.24 + 0.36) / 1.08 = 3.333333,
     * rent 90.00 %, margin 4 - 3 = 1.000000 = 25.00 % */
    assert_non_null(strstr(r.out, "\"usd_per_m_acceptable\":3.000000,\"total_usd_per_m_acceptable\":"
                                  "3.333333,\"rent_share_pct\":90.00,\"api_usd_per_m\":4.000000,"
                                  "\"margin_usd_per_m\":1.000000,\"margin_pct\":25.00"));
    json_error_t e;
    json_t *j = json_loads(r.out, 0, &e);
    if (!j) fail_msg("json: %s", e.text);
    assert_string_equal(json_string_value(json_object_get(j, "date")), "2025-06-01");
    json_t *deps = json_object_get(j, "deployments");
    assert_int_equal(json_array_size(deps), 2);
    json_t *slow = json_array_get(deps, 1);
    assert_string_equal(json_string_value(json_object_get(slow, "operator")), "Slow <&> Co");
    tu_assert_close(json_number_value(json_object_get(slow, "usd_per_m_acceptable")), 4.5, 1e-12,
                    "slow cost");
    tu_assert_close(json_number_value(json_object_get(slow, "to_cheapest_pct")), 50, 1e-12, "pct");
    assert_true(json_is_null(json_object_get(slow, "margin_usd_per_m")));
    assert_int_equal(json_integer_value(json_object_get(slow, "rank")), 2);
    json_decref(j);
    tu_run_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/c.svg", dir);
    char *svg = tu_read(path);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(svg, "Slow &lt;&amp;&gt; Co"));
    free(svg);
    /* the API price is only a column: the same file without it gives the
     * same costs, ranks and distances */
    free(tu_write(dir, "e.csv",
                  "operator,workload,latency_target,gpu,grade,date,tokens_per_s,acceptance,gpus\n"
                  "Fast,chat,p50,B200,B200.OD,2025-06-01,300,1,8\n"
                  "\"Slow <&> Co\",chat,p50,B200,B200.OD,2025-06-01,200,1,8\n"));
    tu_run a = cost(dir, "curve --deployments d.csv --latest --csv");
    tu_run b = cost(dir, "curve --deployments e.csv --latest --csv");
    expect_ok(&a);
    expect_ok(&b);
    assert_non_null(strstr(a.out, ",3.000000,3.333333,90.00,4.000000,1.000000,25.00,ok,2,2400.000,"
                                  "0.000,2400.000,0.000000,0.00,0.000000,0.00\n"));
    assert_non_null(strstr(b.out, ",3.000000,,,,,,ok,2,2400.000,0.000,2400.000,0.000000,0.00,"
                                  "0.000000,0.00\n"));
    tu_run_free(&a);
    tu_run_free(&b);
    free(dir);
}

static void test_errors(void **state)
{
    (void)state;
    char *dir = setup("cost-errors");
    free(tu_write(dir, "d.csv", pair));
    free(tu_write(dir, "bad.csv", DEPS_HDR "A,chat,p50,B200,B200.OD,,2025-06-01,,300,1,8\n"
                                           "B,chat,p50,B200,B200.OD,,2025-06-01,,0,1,8\n"));
    free(tu_write(dir, "nograde.csv", DEPS_HDR "A,chat,p50,H100-SXM-80GB,H100-SXM.OD,,2025-06-01,,100,1,8\n"));
    free(tu_write(dir, "gpu.csv", DEPS_HDR "A,chat,p50,B200,B200.OD,,2025-06-01,,300,1,8\n"
                                           "B,chat,p50,H100-SXM-80GB,B200.OD,,2025-06-01,,100,1,8\n"));
    free(tu_write(dir, "two.csv", DEPS_HDR "A,chat,p50,B200,B200.OD,,2025-06-01,,300,1,8\n"
                                           "B,code,p50,B200,B200.OD,,2025-06-01,,100,1,8\n"
                                           "C,code,p90,B200,B200.OD,,2025-06-01,,100,1,8\n"));
    static const struct {
        const char *args;
        int status;
        const char *err;
    } cases[] = {
        {"curve --deployments bad.csv", 1,
         "gpuidx: bad.csv:3: tokens_per_s: must be positive (got \"0\")\n"},
        {"curve --deployments missing.csv", 1,
         "gpuidx: missing.csv: no such file\n"},
        {"curve --deployments nograde.csv", 1,
         "gpuidx: nograde.csv:2: grade: no index values in the database (got "
         "\"H100-SXM.OD\")\n"},
        {"days --deployments gpu.csv", 1,
         "gpuidx: gpu.csv:3: gpu: not a GPU of grade B200.OD (B200) (got \"H100-SXM-80GB\")\n"},
        {"curve --deployments two.csv", 2,
         "gpuidx: cost: two.csv holds 3 workload / latency target groups; choose one with "
         "--workload (and --latency):\n  workload \"chat\", latency target \"p50\"\n  workload "
         "\"code\", latency target \"p50\"\n  workload \"code\", latency target \"p90\"\n"},
        {"curve --deployments two.csv --workload code", 2,
         "gpuidx: cost: two.csv holds 2 workload / latency target groups for that workload; "
         "choose one with --workload (and --latency):\n  workload \"code\", latency target "
         "\"p50\"\n  workload \"code\", latency target \"p90\"\n"},
        {"curve --deployments two.csv --workload nope", 1,
         "gpuidx: cost: two.csv has no deployments of workload \"nope\" at latency target \"*\"; "
         "it has:\n  workload \"chat\", latency target \"p50\"\n  workload \"code\", latency "
         "target \"p50\"\n  workload \"code\", latency target \"p90\"\n"},
        {"curve --deployments d.csv --grade B200.OD --workload chat --date 2025-13-01", 2,
         "gpuidx: cost: --date: no such calendar date (got \"2025-13-01\")\n"},
        {"curve --deployments d.csv --csv --json", 2,
         "gpuidx: cost: --csv and --json exclude each other\n"},
        {"curve --deployments d.csv --capacity watts", 2,
         "gpuidx: cost: --capacity: expected tokens or gpus (got \"watts\")\n"},
        {"moves --deployments d.csv --from 2025-06-01", 2, NULL},
        {"moves --deployments d.csv --from 2025-06-01 --to 2025-06-04 --every 0", 2,
         "gpuidx: cost: --every: expected a whole number of days 1..3660 (got \"0\")\n"},
        {"days --deployments d.csv --svg x.svg", 2, NULL},
        {"curve --deployments", 2, "gpuidx: cost: option '--deployments' needs a value\n"},
        {"curve --date 2025-06-01", 2, NULL},
        {"price --deployments d.csv", 2, NULL},
        {"curve --deployments d.csv --grade 'B200 OD'", 2,
         "gpuidx: cost: --grade: not a grade id (got \"B200 OD\")\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = cost(dir, cases[i].args);
        if (r.status != cases[i].status)
            fail_msg("%s: exit %d, want %d (%s)", cases[i].args, r.status, cases[i].status, r.err);
        if (cases[i].err && strcmp(r.err, cases[i].err) != 0)
            fail_msg("%s:\n got  %s\n want %s", cases[i].args, r.err, cases[i].err);
        if (!cases[i].err && strncmp(r.err, "gpuidx: ", 8) != 0)
            fail_msg("%s: no message (%s)", cases[i].args, r.err);
        assert_string_equal(r.out, "");
        tu_run_free(&r);
    }
    /* a grade missing from the grades file is used, with a note */
    free(tu_write(dir, "x.csv", DEPS_HDR "A,chat,p50,Z9,X.OD,,2025-06-01,,100,1,8\n"));
    tu_run r = cost(dir, "curve --deployments x.csv");
    expect_ok(&r);
    assert_string_equal(r.err, "gpuidx: note: x.csv:2: grade X.OD is not in the grades file; "
                               "its rows' GPUs are not checked\n");
    /* 2 / (100 x 3600) x 1e6 = 5.555556 */
    assert_non_null(strstr(r.out, "     5.555556       +0.00%      +0.00%\n"));
    tu_run_free(&r);
    /* no database needed when every row states its own rent; one needed otherwise */
    free(tu_write(dir, "own.csv", DEPS_HDR "A,chat,p50,B200,,3.24,2025-06-01,,300,1,8\n"));
    r = tu_gpuidx(dir, "--db none.db cost curve --deployments own.csv --csv");
    expect_ok(&r);
    assert_non_null(strstr(r.out, ",own rent,,3.240000,300.000,1.000000,8,3.000000,"));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db none.db cost curve --deployments d.csv");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: cost: no database at none.db (ingest observations first, "
                               "or pass --db)\n");
    char none[4200];
    snprintf(none, sizeof none, "%s/none.db", dir);
    assert_int_equal(access(none, F_OK), -1);
    tu_run_free(&r);
    free(dir);
}

static void test_moves_improved_yet_fell_back(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("cost-moves");
    char db[4096];
    snprintf(db, sizeof db, "%s/idx.db", dir);
    store *st;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    assert_int_equal(store_begin(st, &d), GPI_OK);
    put_day(st, "B200.OD", "2025-06-01", GPI_LEVEL_TRADES, 50430);
    put_day(st, "B200.OD", "2025-12-31", GPI_LEVEL_TRADES, 45710);
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
    free(tu_write(dir, "d.csv", DEPS_HDR "A,w,p50,B200,B200.OD,,2025-06-01,2025-08-31,250,0.95,64\n"
                                         "A,w,p50,B200,B200.OD,,2025-09-01,2025-12-31,280,0.95,64\n"
                                         "B,w,p50,B200,B200.OD,,2025-06-01,2025-08-31,220,0.96,32\n"
                                         "B,w,p50,B200,B200.OD,,2025-09-01,2025-12-31,330,0.96,32\n"));
    tu_run r = cost(dir, "moves --deployments d.csv --from 2025-06-01 --to 2025-12-31 --every 300");
    expect_ok(&r);
    /* hand-computed in test_cost.c: -1.124854 = -0.522473 (index) - 0.602381 (throughput) */
    assert_non_null(strstr(r.out, "A           2025-06-01      1/2     5.898246  2025-12-31      2/2  "
                                  "   4.773392    -1.124854    -0.522473    -0.602381     +12.00%  "));
    assert_non_null(strstr(r.out, "improved, yet fell back\n"));
    tu_run_free(&r);
    r = cost(dir, "moves --deployments d.csv --from 2025-06-01 --to 2025-12-31 --every 300 --csv");
    expect_ok(&r);
    assert_string_equal(r.out,
                        "date,rank,of,label,gpu,grade,price_usd_per_gpu_hour,tokens_per_s,acceptance,"
                        "usd_per_m_acceptable,to_cheapest_pct,to_median_pct,median_usd_per_m,status\n"
                        "2025-06-01,1,2,A,B200,B200.OD,5.043000,250.000,0.950000,5.898246,0.00,0.00,"
                        "5.898246,ok\n"
                        "2025-06-01,2,2,B,B200,B200.OD,5.043000,220.000,0.960000,6.632734,12.45,12.45,"
                        "5.898246,ok\n"
                        "2025-12-31,1,2,B,B200,B200.OD,4.571000,330.000,0.960000,4.007962,0.00,-16.04,"
                        "4.773392,ok\n"
                        "2025-12-31,2,2,A,B200,B200.OD,4.571000,280.000,0.950000,4.773392,19.10,0.00,"
                        "4.773392,ok\n");
    tu_run_free(&r);
    r = cost(dir, "moves --deployments d.csv --from 2025-06-01 --to 2025-12-31 --every 300 --json");
    expect_ok(&r);
    json_error_t e;
    json_t *j = json_loads(r.out, 0, &e);
    if (!j) fail_msg("json: %s", e.text);
    json_t *a = json_array_get(json_object_get(j, "producers"), 0);
    assert_true(json_is_true(json_object_get(a, "improved")));
    assert_true(json_is_true(json_object_get(a, "fell_back")));
    assert_int_equal(json_array_size(json_object_get(j, "curves")), 2);
    json_decref(j);
    tu_run_free(&r);
    free(dir);
}

/* Fields of a CSV line (commas outside double quotes, plus one). */
static int csv_fields(const char *line, size_t len)
{
    int n = 1, q = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '"') q = !q;
        else if (line[i] == ',' && !q) n++;
    }
    return n;
}

/* Every line of text has the header's field count. */
static void expect_rectangular(const char *text)
{
    const char *nl = strchr(text, '\n');
    assert_non_null(nl);
    int want = csv_fields(text, (size_t)(nl - text));
    for (const char *p = nl + 1; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        assert_non_null(nl);
        if (csv_fields(p, (size_t)(nl - p)) != want)
            fail_msg("%d fields, the header has %d: %.*s", csv_fields(p, (size_t)(nl - p)), want,
                     (int)(nl - p), p);
    }
}

/* Days without a value (suspended, not built) are rows off the curve with
 * the header's 14 fields (they had 15). */
static void test_moves_csv_off_curve_fields(void **state)
{
    (void)state;
    char *dir = setup("cost-moves-off");
    free(tu_write(dir, "d.csv", pair));
    tu_run r = cost(dir, "moves --deployments d.csv --from 2025-06-01 --to 2025-06-04 --csv");
    expect_ok(&r);
    expect_rectangular(r.out);
    assert_non_null(strstr(r.out, "\n2025-06-02,,0,Slow,B200,B200.OD,,200.000,1.000000,,,,,suspended\n"));
    assert_non_null(strstr(r.out, "\n2025-06-03,,0,Fast,B200,B200.OD,,300.000,1.000000,,,,,not built\n"));
    tu_run_free(&r);
    free(dir);
}

/* An --operator or --grade no row names is an error with the nearest
 * names (a typo gave an empty curve and exit 0); a grade the database does
 * not have, with the nearest built one. */
static void test_names_did_you_mean(void **state)
{
    (void)state;
    char *dir = setup("cost-names");
    free(tu_write(dir, "d.csv", pair));
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"curve --deployments d.csv --operator Slw",
         "gpuidx: cost: d.csv has no deployments of operator \"Slw\" (did you mean Slow?)\n"},
        {"moves --deployments d.csv --from 2025-06-01 --to 2025-06-04 --operator fast",
         "gpuidx: cost: d.csv has no deployments of operator \"fast\" (did you mean Fast?)\n"},
        {"days --deployments d.csv --operator Nobody",
         "gpuidx: cost: d.csv has no deployments of operator \"Nobody\"\n"},
        {"curve --deployments d.csv --grade B200.0D",
         "gpuidx: cost: d.csv has no deployments of grade \"B200.0D\" (did you mean B200.OD?)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = cost(dir, cases[i].args);
        if (r.status != 1) fail_msg("%s: exit %d", cases[i].args, r.status);
        assert_string_equal(r.err, cases[i].err);
        assert_string_equal(r.out, "");
        tu_run_free(&r);
    }
    free(tu_write(dir, "e.csv", DEPS_HDR "Slow,chat,p50,B200,B200.0D,,2025-06-01,2025-06-04,200,1,8\n"));
    tu_run r = cost(dir, "days --deployments e.csv");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "\ngpuidx: e.csv:2: grade: no index values in the database (did"
                                  " you mean B200.OD?) (got \"B200.0D\")\n"));
    tu_run_free(&r);
    free(dir);
}

/* `gpuidx simulate` writes deployments.csv; with index values for its two
 * grades, `cost curve` prints the demo's curve and `site --deployments`
 * adds it to the page. */
static void test_simulated_deployments_curve_and_site(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("cost-sim");
    tu_run r = tu_gpuidx(dir, "simulate --days 365 --seed 3 --out m");
    expect_ok(&r);
    tu_run_free(&r);
    char db[4096];
    snprintf(db, sizeof db, "%s/idx.db", dir);
    store *st;
    gpi_diag d = {{0}};
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("store_open: %s", d.msg);
    assert_int_equal(store_begin(st, &d), GPI_OK);
    for (int t = 0; t < 365; t++) {
        char date[11];
        gpi_date_format(gpi_days_from_civil(2025, 1, 1) + t, date);
        put_day(st, "B200.OD", date, GPI_LEVEL_TRADES, 45000);
        put_day(st, "H100-SXM.OD", date, GPI_LEVEL_TRADES, 20000);
    }
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
    r = cost(dir, "curve --deployments m/deployments.csv --date 2025-01-01 --operator 'Kestrel Compute'");
    expect_ok(&r);
    /* Helios 4.5 / (300 x 3600 x .95) = 4.385965; Kestrel at 200: 6.578947, +50.00 % */
    assert_non_null(strstr(r.out, "5 deployments; cheapest 4.385965"));
    assert_non_null(strstr(r.out, "Kestrel Compute: 6.578947 USD per million acceptable tokens, rank 5 "
                                  "of 5; +50.00% (+2.192982) vs the cheapest"));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db idx.db --data '%s/data' site --out web --deployments m/deployments.csv",
                  tu_srcdir());
    expect_ok(&r);
    assert_non_null(strstr(r.out, "site: 1 cost curve from m/deployments.csv\n"));
    tu_run_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/web/index.html", dir);
    char *html = tu_read(path);
    assert_non_null(html);
    assert_non_null(strstr(html, "<h2>Cost per acceptable token: llama-70b-8k1k, 2025-12-31</h2>"));
    assert_null(strstr(html, "<?xml"));
    assert_non_null(strstr(html, "<svg xmlns"));
    /* 12-31: Kestrel 4.5 / (330 x 3600 x .95) = 3.987241, Cobalt 2 / (140 x 3600 x .98)
     * = 4.049239 */
    assert_non_null(strstr(html, "<td>Kestrel Compute</td><td>1</td>"));
    assert_non_null(strstr(html, "<td>Cobalt Cloud</td><td>2</td>"));
    free(html);
    /* without --deployments the page has no such section */
    r = tu_gpuidx(dir, "--db idx.db site --out web2");
    expect_ok(&r);
    tu_run_free(&r);
    snprintf(path, sizeof path, "%s/web2/index.html", dir);
    html = tu_read(path);
    assert_null(strstr(html, "Cost per acceptable token"));
    free(html);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_curve_200_vs_300),
        cmocka_unit_test(test_first_published_value_by_default),
        cmocka_unit_test(test_days_report_days_without_value),
        cmocka_unit_test(test_json_svg_and_margin),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_moves_improved_yet_fell_back),
        cmocka_unit_test(test_moves_csv_off_curve_fields),
        cmocka_unit_test(test_names_did_you_mean),
        cmocka_unit_test(test_simulated_deployments_curve_and_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
