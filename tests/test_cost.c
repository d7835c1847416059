/* tests/test_cost.c -- cost per acceptable token and the cost curve (cost/).
 *
 * Reference values are computed independently of the code, exactly, with
 * Python's fractions.Fraction: cost = P / (T x 3600 x A) x 1e6 USD per
 * million acceptable tokens, rounded half-up to 6 decimals, e.g.
 *   P 3.24, T 300, A 1     -> 3.000000        P 3.24, T 200, A 1 -> 4.500000
 *   P 4.9362, T 200, A .95 -> 7.216667 (7.2166666...)
 *   P 2.4993, T 100, A .98 -> 7.084184 (7.0841836...)
 *   P 1.000017, T 8, A 1   -> 34.7228125 exactly: a half, rounds up
 *   P 1000, T 0.001, A 1   -> 277777777.777777777... (the reader's extreme)
 * The curve tests use hand-checked figures (ranks, capacity-weighted
 * median, distances); the moves test the hand-computed split of a cost
 * change into its index and throughput effects.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "sim/sim.h"

#define HDR "operator,workload,latency_target,gpu,grade,rent,from,to,tokens_per_s,acceptance,gpus\n"

static int32_t day_of(const char *s)
{
    int32_t d = 0;
    if (gpi_date_parse(s, &d)) fail_msg("bad date in test: %s", s);
    return d;
}

static void parse_ok(const char *text, cost_deployments *ds)
{
    gpi_diag d = {{0}};
    gpi_status st = cost_deployments_parse("d.csv", text, strlen(text), ds, &d);
    if (st != GPI_OK) fail_msg("parse: %s", d.msg);
}

/* ---- the reader ---------------------------------------------------------- */

static void test_cost_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name, *csv, *msg;
    } cases[] = {
        {"empty", "", "d.csv: empty file (no header)"},
        {"blank lines only", "\n  \n", "d.csv: empty file (no header)"},
        {"header only", HDR, "d.csv: no deployment rows"},
        {"unknown column", "operator,gpu,foo\n", "d.csv:1: header: unknown column (got \"foo\")"},
        {"column twice",
         "operator,gpu,latency_target,tokens_per_s,acceptance,gpus,date,grade,GPU\n",
         "d.csv:1: header: column given twice (got \"GPU\")"},
        {"missing operator", "gpu,latency_target,tokens_per_s,acceptance,gpus,date,grade\n",
         "d.csv:1: header: missing column operator"},
        {"missing acceptance", "operator,gpu,latency_target,tokens_per_s,gpus,date,grade\n",
         "d.csv:1: header: missing column acceptance"},
        {"date and from",
         "operator,gpu,latency_target,tokens_per_s,acceptance,gpus,date,from,grade\n",
         "d.csv:1: header: date and from/to are alternatives, not both"},
        {"no date", "operator,gpu,latency_target,tokens_per_s,acceptance,gpus,grade\n",
         "d.csv:1: header: missing column date (or from[,to])"},
        {"no price column", "operator,gpu,latency_target,tokens_per_s,acceptance,gpus,date\n",
         "d.csv:1: header: missing column grade (or rent)"},
        {"bad date", HDR "A,w,p50,B200,B200.OD,,2025-02-30,,300,1,8\n",
         "d.csv:2: from: no such calendar date (got \"2025-02-30\")"},
        {"missing from", HDR "A,w,p50,B200,B200.OD,,,,300,1,8\n",
         "d.csv:2: from: missing (got \"\")"},
        {"to before from", HDR "A,w,p50,B200,B200.OD,,2025-03-02,2025-03-01,300,1,8\n",
         "d.csv:2: to: before from (got \"2025-03-01\")"},
        {"range too long", HDR "A,w,p50,B200,B200.OD,,2025-01-01,2035-01-09,300,1,8\n",
         "d.csv:2: to: range longer than 3660 days (got \"2035-01-09\")"},
        {"zero tokens", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,0,1,8\n",
         "d.csv:2: tokens_per_s: must be positive (got \"0\")"},
        {"text tokens", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,fast,1,8\n",
         "d.csv:2: tokens_per_s: not a number (got \"fast\")"},
        {"fine tokens", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,200.0001,1,8\n",
         "d.csv:2: tokens_per_s: more than 3 decimals (got \"200.0001\")"},
        {"huge tokens", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,1000000.001,1,8\n",
         "d.csv:2: tokens_per_s: too large (got \"1000000.001\")"},
        {"acceptance over 1", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,1.01,8\n",
         "d.csv:2: acceptance: too large (got \"1.01\")"},
        {"acceptance zero", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,0,8\n",
         "d.csv:2: acceptance: must be positive (got \"0\")"},
        {"acceptance as percent", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,95%,8\n",
         "d.csv:2: acceptance: not a number (got \"95%\")"},
        {"almost no useful output", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,0.001,0.5,8\n",
         "d.csv:2: acceptance: tokens_per_s x acceptance below 0.001 tokens/s (got \"0.5\")"},
        {"fractional gpus", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,1,2.5\n",
         "d.csv:2: gpus: not a whole number (got \"2.5\")"},
        {"zero gpus", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,1,0\n",
         "d.csv:2: gpus: must be positive (got \"0\")"},
        {"negative rent", HDR "A,w,p50,B200,,-2.5,2025-03-01,,300,1,8\n",
         "d.csv:2: rent: must be positive (got \"-2.5\")"},
        {"rent too fine", HDR "A,w,p50,B200,,2.1234567,2025-03-01,,300,1,8\n",
         "d.csv:2: rent: more than 6 decimals (got \"2.1234567\")"},
        {"neither grade nor rent", HDR "A,w,p50,B200,,,2025-03-01,,300,1,8\n",
         "d.csv:2: grade: a grade or an own rent price is needed (got \"\")"},
        {"bad grade id", HDR "A,w,p50,B200,B200 OD,,2025-03-01,,300,1,8\n",
         "d.csv:2: grade: not a grade id (got \"B200 OD\")"},
        {"no operator", HDR ",w,p50,B200,B200.OD,,2025-03-01,,300,1,8\n",
         "d.csv:2: operator: missing (got \"\")"},
        {"no latency target", HDR "A,w,,B200,B200.OD,,2025-03-01,,300,1,8\n",
         "d.csv:2: latency_target: missing (got \"\")"},
        {"long operator", HDR "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,w,p50,B200,"
                              "B200.OD,,2025-03-01,,300,1,8\n",
         "d.csv:2: operator: longer than 64 bytes (got "
         "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\")"},
        {"field count", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,1\n",
         "d.csv:2: row: expected 11 fields, found 10"},
        /* quoting is core's CSV reader's: RFC 4180, the column of a fault */
        {"open quote", HDR "\"A,w,p50,B200,B200.OD,,2025-03-01,,300,1,8\n",
         "d.csv:2:1: unterminated quoted field"},
        {"text after a quote", HDR "\"A\"x,w,p50,B200,B200.OD,,2025-03-01,,300,1,8\n",
         "d.csv:2:4: malformed quoting (a quote inside an unquoted field, or text after a "
         "closing quote)"},
        {"quote in an unquoted field", HDR "A\"b,w,p50,B200,B200.OD,,2025-03-01,,300,1,8\n",
         "d.csv:2:2: malformed quoting (a quote inside an unquoted field, or text after a "
         "closing quote)"},
        /* a quoted line break is in its field (the row is at its first line) */
        {"line break in a name", HDR "A,\"w\nx\",p50,B200,B200.OD,,2025-03-01,,300,1,8\n",
         "d.csv:2: workload: contains a control character (got \"w\nx\")"},
        {"NUL byte", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,1,8\nA,w\0x\n",
         "d.csv:3: row: contains a NUL byte"},
        {"first bad column in file order", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,-1,2,0\n",
         "d.csv:2: tokens_per_s: must be positive (got \"-1\")"},
        {"first bad row wins", HDR "A,w,p50,B200,B200.OD,,2025-03-01,,300,1,8\n"
                                   "A,w,p50,B200,B200.OD,,2025-03-02,,300,1,x\n"
                                   "A,w,p50,B200,B200.OD,,2025-03-03,,y,1,8\n",
         "d.csv:3: gpus: not a number (got \"x\")"},
        {"overlap", HDR "A,w,p50,B200,B200.OD,,2025-03-01,2025-03-31,300,1,8\n"
                        "B,w,p50,B200,B200.OD,,2025-03-01,2025-03-31,300,1,8\n"
                        "A,w,p50,B200,B200.OD,,2025-03-31,2025-04-30,310,1,8\n",
         "d.csv:4: row: overlaps line 2 (same operator, deployment, workload and latency target "
         "on a common day)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cost_deployments ds;
        gpi_diag d = {{0}};
        size_t len = strlen(cases[i].csv);
        if (strcmp(cases[i].name, "NUL byte") == 0) len += 3; /* "\0x\n" */
        gpi_status st = cost_deployments_parse("d.csv", cases[i].csv, len, &ds, &d);
        if (st != GPI_EINPUT) fail_msg("%s: status %d, want GPI_EINPUT", cases[i].name, (int)st);
        if (strcmp(d.msg, cases[i].msg) != 0)
            fail_msg("%s:\n got  %s\n want %s", cases[i].name, d.msg, cases[i].msg);
        assert_null(ds.v);
        assert_int_equal(ds.n, 0);
    }
}

static void test_cost_parse_values(void **state)
{
    (void)state;
    /* BOM, CRLF, columns in another order, quotes with a comma and a
     * doubled quote, spaces around fields, a blank line, date column */
    const char *text = "\xEF\xBB\xBF" "GPUs,Operator,deployment,date,gpu,tokens_per_s,acceptance,"
                       "latency_target,grade,rent,other_cost,api_price\r\n"
                       "8, \"Acme, \"\"the\"\" Co\" ,east,2025-03-01,B200,300.5,0.95,p50,B200.OD,,0.45,6\r\n"
                       "\r\n"
                       "16,Beta,,2025-03-02,H100,110,1,p50,,1.850000,,\r\n";
    cost_deployments ds;
    parse_ok(text, &ds);
    assert_int_equal(ds.n, 2);
    assert_true(ds.has_other && ds.has_api);
    const cost_deployment *a = &ds.v[0], *b = &ds.v[1];
    assert_string_equal(a->op, "Acme, \"the\" Co");
    assert_string_equal(a->name, "east");
    assert_string_equal(a->workload, "");
    assert_int_equal(a->line, 2);
    assert_int_equal(a->from, day_of("2025-03-01"));
    assert_int_equal(a->to, a->from);
    assert_int_equal(a->tps_milli, 300500);
    assert_int_equal(a->accept_ppm, 950000);
    assert_int_equal(a->gpus, 8);
    assert_int_equal(a->rent_micro, -1);
    assert_int_equal(a->other_micro, 450000);
    assert_int_equal(a->api_micro, 6000000);
    char l[2 * COST_NAME_MAX + 2];
    assert_string_equal(cost_label(a, l), "Acme, \"the\" Co/east");
    assert_int_equal(b->line, 4);
    assert_int_equal(b->rent_micro, 1850000);
    assert_int_equal(b->other_micro, -1);
    assert_int_equal(b->api_micro, -1);
    assert_string_equal(cost_label(b, l), "Beta");
    cost_deployments_free(&ds);
    cost_deployments_free(&ds); /* a freed set is zeroed: no-op */
}

static void test_cost_gpu_in(void **state)
{
    (void)state;
    const char *const h100[] = {"H100-SXM-80GB"}, *const a100[] = {"A100-SXM-80GB", "A100-SXM-40GB"};
    assert_true(cost_gpu_in("H100-SXM-80GB", h100, 1));
    assert_true(cost_gpu_in("h100 sxm 80gb", h100, 1));
    assert_true(cost_gpu_in("H100_SXM_80GB", h100, 1));
    assert_false(cost_gpu_in("H100", h100, 1));
    assert_false(cost_gpu_in("H100-SXM-80GBX", h100, 1));
    assert_true(cost_gpu_in("a100-sxm-40gb", a100, 2));
    assert_false(cost_gpu_in("B200", a100, 2));
    assert_false(cost_gpu_in("B200", NULL, 0));
}

/* ---- one deployment-day -------------------------------------------------- */

static void test_cost_per_mtok_reference(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t price_micro, tps_milli, accept_ppm, want;
    } cases[] = {
        {"300 tok/s at 3.24", 3240000, 300000, 1000000, 3000000},
        {"200 tok/s at 3.24", 3240000, 200000, 1000000, 4500000},
        {"index 4.9362, 200 tok/s, 95%", 4936200, 200000, 950000, 7216667},
        {"index 4.9362, 300 tok/s, 95%", 4936200, 300000, 950000, 4811111},
        {"H100 2.4993, 100 tok/s, 98%", 2499300, 100000, 980000, 7084184},
        {"own rent 1.85, 105 tok/s, 99%", 1850000, 105000, 990000, 4943616},
        {"exact half rounds up", 1000017, 8000, 1000000, 34722813},
        {"tiny cost rounds to 0", 100, 1000000000, 1000000, 0},
        {"largest the reader allows", 1000000000, 1, 1000000, 277777777777778LL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = cost_per_mtok_micro(cases[i].price_micro, cases[i].tps_milli, cases[i].accept_ppm);
        if (got != cases[i].want)
            fail_msg("%s: got %lld, want %lld", cases[i].name, (long long)got, (long long)cases[i].want);
    }
}

/* The issue's example: one B200 grade price, 200 vs 300 tokens/s, same
 * acceptance -> the cost ratio is 1.5 exactly (the exact costs P/(200 A)
 * and P/(300 A) are compared by cross-multiplication of what the code
 * priced), the published costs are 1.5 apart exactly where they are exact
 * decimals, and the curve puts the slower one +50.00% above the cheapest
 * at every index value in a sweep. */
static void test_cost_200_vs_300_ratio_is_1_5(void **state)
{
    (void)state;
    const char *text = HDR "Slow,w,p50,B200,B200.OD,,2025-01-01,2025-12-31,200,0.95,8\n"
                           "Fast,w,p50,B200,B200.OD,,2025-01-01,2025-12-31,300,0.95,8\n";
    cost_deployments ds;
    parse_ok(text, &ds);
    gpi_index_day days[1] = {{day_of("2025-06-01"), GPI_LEVEL_TRADES, 32400}};
    cost_series s = {"B200.OD", days, 1};
    cost_prices px = {&s, 1};
    cost_point slow, fast;
    cost_point_compute(&ds.v[0], &px, days[0].day, &slow);
    cost_point_compute(&ds.v[1], &px, days[0].day, &fast);
    assert_int_equal(slow.price_micro, fast.price_micro); /* the same price */
    /* exact: cost = P / (T A); ratio slow/fast = (P Tf Af) / (P Ts As) */
    __int128 num = (__int128)slow.price_micro * ds.v[1].tps_milli * ds.v[1].accept_ppm;
    __int128 den = (__int128)fast.price_micro * ds.v[0].tps_milli * ds.v[0].accept_ppm;
    assert_true(2 * num == 3 * den);
    /* 3.24 / (200 x 3600 x 0.95) x 1e6 = 4.736842..., 3.157895 at 300 */
    assert_int_equal(slow.cost_micro, 4736842);
    assert_int_equal(fast.cost_micro, 3157895);
    /* at acceptance 1 both published costs are exact: 4.5 = 1.5 x 3.0 */
    assert_int_equal(2 * cost_per_mtok_micro(3240000, 200000, 1000000),
                     3 * cost_per_mtok_micro(3240000, 300000, 1000000));
    cost_select sel = {"w", "p50", NULL, COST_AXIS_TOKENS};
    for (int64_t e4 = 5000; e4 <= 200000; e4 += 37) { /* 0.50 .. 20.00 USD/GPU-hour */
        days[0].value_e4 = e4;
        cost_curve c;
        gpi_diag d = {{0}};
        assert_int_equal(cost_curve_build(&ds, &px, &sel, days[0].day, &c, &d), GPI_OK);
        assert_int_equal(c.n, 2);
        assert_string_equal(c.v[0].pt.dep->op, "Fast");
        if (c.v[1].to_cheapest_bp != 5000)
            fail_msg("index %lld: slow is %lld bp above fast, want 5000", (long long)e4,
                     (long long)c.v[1].to_cheapest_bp);
        cost_curve_free(&c);
    }
    cost_deployments_free(&ds);
}

static void test_cost_point_price_sources(void **state)
{
    (void)state;
    const char *text =
        "operator,workload,latency_target,gpu,grade,rent,from,to,tokens_per_s,acceptance,gpus,"
        "other_cost,api_price\n"
        "A,w,p50,B200,B200.OD,,2025-03-01,2025-03-04,300,1,8,0.76,5\n"
        "B,w,p50,B200,b200.od,2.5,2025-03-01,2025-03-04,250,0.8,8,,3\n"
        "C,w,p50,B200,NOPE.OD,,2025-03-01,2025-03-01,250,0.8,8,,0\n";
    cost_deployments ds;
    parse_ok(text, &ds);
    int32_t d0 = day_of("2025-03-01");
    /* day 1 trades 3.24, day 2 suspended, day 3 absent (never built), day 4 carried */
    gpi_index_day days[] = {{d0, GPI_LEVEL_TRADES, 32400},
                              {d0 + 1, GPI_LEVEL_SUSPENDED, -1},
                              {d0 + 3, GPI_LEVEL_CARRIED, 32400}};
    cost_series s = {"B200.OD", days, 3};
    cost_prices px = {&s, 1};
    static const struct {
        const char *name;
        size_t row;
        int32_t off;
        int status, level;
        int64_t price, cost, total, share, margin, margin_bp;
    } cases[] = {
        /* (3.24 + 0.76) / 1.08 = 3.703704; rent share 3.24 / 4 = 81.00 %;
         * margin 5 - 3 = 2, 40.00 % of the API price */
        {"index, trades", 0, 0, COST_OK, GPI_LEVEL_TRADES, 3240000, 3000000, 3703704, 8100,
         2000000, 4000},
        {"suspended", 0, 1, COST_SUSPENDED, GPI_LEVEL_SUSPENDED, -1, -1, -1, -1, -1, -1},
        {"never built", 0, 2, COST_UNBUILT, -1, -1, -1, -1, -1, -1, -1},
        {"carried value", 0, 3, COST_OK, GPI_LEVEL_CARRIED, 3240000, 3000000, 3703704, 8100,
         2000000, 4000},
        /* own rent, whatever the index: 2.5 / (250 x 3600 x 0.8) = 3.472222;
         * margin 3 - 3.472222 = -0.472222, -15.74 % */
        {"own rent on a suspended day", 1, 1, COST_OK, -1, 2500000, 3472222, -1, -1, -472222,
         -1574},
        {"grade not loaded", 2, 0, COST_UNBUILT, -1, -1, -1, -1, -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cost_point p;
        cost_point_compute(&ds.v[cases[i].row], &px, d0 + cases[i].off, &p);
        const char *n = cases[i].name;
        if (p.status != cases[i].status) fail_msg("%s: status %d", n, p.status);
        if (p.level != cases[i].level) fail_msg("%s: level %d", n, p.level);
        if (p.price_micro != cases[i].price) fail_msg("%s: price %lld", n, (long long)p.price_micro);
        if (p.cost_micro != cases[i].cost) fail_msg("%s: cost %lld", n, (long long)p.cost_micro);
        if (p.status == COST_OK && cases[i].total >= 0 &&
            (!p.has_total || p.total_micro != cases[i].total || p.rent_share_bp != cases[i].share))
            fail_msg("%s: total %lld share %lld", n, (long long)p.total_micro,
                     (long long)p.rent_share_bp);
        if (p.status == COST_OK && cases[i].total < 0 && p.has_total) fail_msg("%s: has total", n);
        if (p.status == COST_OK &&
            (!p.has_api || p.margin_micro != cases[i].margin || p.margin_bp != cases[i].margin_bp))
            fail_msg("%s: margin %lld (%lld bp)", n, (long long)p.margin_micro, (long long)p.margin_bp);
    }
    cost_deployments_free(&ds);
}

static void test_cost_days_order_and_clipping(void **state)
{
    (void)state;
    const char *text = HDR "A,w,p50,B200,,2,2025-03-01,2025-03-03,300,1,8\n"
                           "B,w,p50,B200,,2,2025-03-02,2025-03-05,300,1,8\n"
                           "A,v,p50,B200,,2,2025-03-03,2025-03-03,300,1,8\n";
    cost_deployments ds;
    parse_ok(text, &ds);
    cost_point *p;
    size_t n;
    gpi_diag d = {{0}};
    assert_int_equal(cost_days(&ds, NULL, day_of("2025-03-02"), day_of("2025-03-04"), NULL, &p, &n, &d),
                     GPI_OK);
    /* 03-02: A B; 03-03: A B A(v); 03-04: B */
    static const struct { const char *day; long line; } want[] = {
        {"2025-03-02", 2}, {"2025-03-02", 3}, {"2025-03-03", 2},
        {"2025-03-03", 3}, {"2025-03-03", 4}, {"2025-03-04", 3}};
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].day, day_of(want[i].day));
        assert_int_equal(p[i].dep->line, want[i].line);
        assert_int_equal(p[i].cost_micro, 1851852); /* 2 / 1.08 */
    }
    free(p);
    assert_int_equal(cost_days(&ds, NULL, INT32_MIN, INT32_MAX, "A", &p, &n, &d), GPI_OK);
    assert_int_equal(n, 4);
    free(p);
    assert_int_equal(cost_days(&ds, NULL, day_of("2026-01-01"), day_of("2026-01-02"), NULL, &p, &n, &d),
                     GPI_OK);
    assert_int_equal(n, 0);
    assert_null(p);
    cost_deployments_free(&ds);
}

/* ---- the curve ------------------------------------------------------------ */

static void test_cost_curve_ranks_median_distances(void **state)
{
    (void)state;
    /* own rents so the costs are round: cost = rent / (tok/s x 3600 x A) x 1e6
     *   P 2.88 at 200 tok/s -> 4.000000   cap 200 x 10 = 2000
     *   Q 2.16 at 200       -> 3.000000   cap 200 x 5  = 1000
     *   R 4.32 at 300       -> 4.000000   cap 300 x 10 = 3000 (tie with P)
     *   S 4.32 at 200, A .5 -> 12.000000  cap 100 x 4  = 400
     *   T on grade X.OD, suspended that day -> off the curve
     *   U another latency target -> another curve
     * curve order Q, P, R (P before R by name), S; ranks 1, 2, 2, 4;
     * total 6400, half 3200: cum 1000, 3000, 6000 -> median R = 4.000000 */
    const char *text = HDR "P,w,p50,B200,,2.88,2025-03-01,,200,1,10\n"
                           "Q,w,p50,B200,,2.16,2025-03-01,,200,1,5\n"
                           "R,w,p50,B200,,4.32,2025-03-01,,300,1,10\n"
                           "S,w,p50,B200,,4.32,2025-03-01,,200,0.5,4\n"
                           "T,w,p50,B200,X.OD,,2025-03-01,,200,1,4\n"
                           "U,w,p90,B200,,1,2025-03-01,,200,1,4\n";
    cost_deployments ds;
    parse_ok(text, &ds);
    gpi_index_day days[] = {{day_of("2025-03-01"), GPI_LEVEL_SUSPENDED, -1}};
    cost_series s = {"X.OD", days, 1};
    cost_prices px = {&s, 1};
    cost_select sel = {"w", "p50", NULL, COST_AXIS_TOKENS};
    cost_curve c;
    gpi_diag d = {{0}};
    assert_int_equal(cost_curve_build(&ds, &px, &sel, day_of("2025-03-01"), &c, &d), GPI_OK);
    static const struct {
        const char *op;
        size_t rank;
        int64_t cost, cap, cum_to, to_cheap, to_cheap_bp, to_med, to_med_bp;
    } want[] = {
        {"Q", 1, 3000000, 1000000, 1000000, 0, 0, -1000000, -2500},
        {"P", 2, 4000000, 2000000, 3000000, 1000000, 3333, 0, 0},
        {"R", 2, 4000000, 3000000, 6000000, 1000000, 3333, 0, 0},
        {"S", 4, 12000000, 400000, 6400000, 9000000, 30000, 8000000, 20000},
    };
    assert_int_equal(c.n, 4);
    for (size_t i = 0; i < c.n; i++) {
        const cost_entry *e = &c.v[i];
        assert_string_equal(e->pt.dep->op, want[i].op);
        assert_int_equal(e->rank, want[i].rank);
        assert_int_equal(e->pt.cost_micro, want[i].cost);
        assert_int_equal(e->cap, want[i].cap);
        assert_int_equal(e->cum_to, want[i].cum_to);
        assert_int_equal(e->cum_from, i ? c.v[i - 1].cum_to : 0);
        assert_int_equal(e->to_cheapest_micro, want[i].to_cheap);
        assert_int_equal(e->to_cheapest_bp, want[i].to_cheap_bp);
        assert_int_equal(e->to_median_micro, want[i].to_med);
        assert_int_equal(e->to_median_bp, want[i].to_med_bp);
    }
    assert_int_equal(c.cheapest_micro, 3000000);
    assert_int_equal(c.median_micro, 4000000);
    assert_int_equal(c.median_at, 2);
    assert_int_equal(c.total_cap, 6400000);
    assert_int_equal(c.n_off, 1);
    assert_string_equal(c.off[0].dep->op, "T");
    assert_int_equal(c.off[0].status, COST_SUSPENDED);
    cost_curve_free(&c);

    /* by GPUs: Q 5, P 10, R 10, S 4 -> total 29, half 14.5: cum 5, 15 -> median P */
    sel.axis = COST_AXIS_GPUS;
    assert_int_equal(cost_curve_build(&ds, &px, &sel, day_of("2025-03-01"), &c, &d), GPI_OK);
    assert_int_equal(c.total_cap, 29);
    assert_int_equal(c.median_at, 1);
    assert_int_equal(c.median_micro, 4000000);
    cost_curve_free(&c);

    /* cumulative capacity exactly half: Q 5 + P 10 = 15 of 30 -> median P */
    sel.axis = COST_AXIS_GPUS;
    sel.grade = NULL;
    const char *half = HDR "P,w,p50,B200,,2.88,2025-03-01,,200,1,10\n"
                           "Q,w,p50,B200,,2.16,2025-03-01,,200,1,5\n"
                           "R,w,p50,B200,,4.32,2025-03-01,,200,1,15\n";
    cost_deployments hs;
    parse_ok(half, &hs);
    assert_int_equal(cost_curve_build(&hs, NULL, &sel, day_of("2025-03-01"), &c, &d), GPI_OK);
    assert_int_equal(c.median_at, 1);
    assert_string_equal(c.v[1].pt.dep->op, "P");
    cost_curve_free(&c);
    cost_deployments_free(&hs);

    /* the other latency target is its own curve; a grade filter keeps its peers */
    cost_select other = {"w", "p90", NULL, COST_AXIS_TOKENS};
    assert_int_equal(cost_curve_build(&ds, &px, &other, day_of("2025-03-01"), &c, &d), GPI_OK);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.v[0].pt.dep->op, "U");
    cost_curve_free(&c);
    cost_select onx = {"w", "p50", "x.od", COST_AXIS_TOKENS};
    assert_int_equal(cost_curve_build(&ds, &px, &onx, day_of("2025-03-01"), &c, &d), GPI_OK);
    assert_int_equal(c.n, 0);
    assert_int_equal(c.n_off, 1);
    cost_curve_free(&c);
    /* a day nobody covers */
    assert_int_equal(cost_curve_build(&ds, &px, &sel, day_of("2025-03-02"), &c, &d), GPI_OK);
    assert_int_equal(c.n + c.n_off, 0);
    cost_curve_free(&c);
    int32_t last;
    assert_int_equal(cost_last_day(&ds, &sel, &last), 1);
    assert_int_equal(last, day_of("2025-03-01"));
    cost_select none = {"nope", "p50", NULL, COST_AXIS_TOKENS};
    assert_int_equal(cost_last_day(&ds, &none, &last), 0);
    size_t *g, ng;
    assert_int_equal(cost_groups(&ds, &g, &ng, &d), GPI_OK);
    assert_int_equal(ng, 2);
    assert_int_equal(g[0], 0);
    assert_int_equal(g[1], 5);
    free(g);
    cost_deployments_free(&ds);
}

/* Properties on pseudo-random curves: the bars tile [0, total]; costs are
 * ascending and ranks are competition ranks; the median is the first bar
 * reaching half the capacity; and the area under the curve is the spend
 * rate: sum cost x capacity (USD/M x acceptable tokens/s) = sum price x
 * GPUs / 3600 (USD/s), up to the rounding of each cost. */
static void test_cost_curve_properties(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ULL;
    for (int round = 0; round < 200; round++) {
        char text[8192] = HDR;
        int n = 1 + (int)(round % 23);
        double spend = 0;
        for (int i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t rent_e4 = 5000 + (int64_t)(x % 90000);        /* 0.5 .. 9.5 */
            int64_t tps = 50 + (int64_t)((x >> 20) % 400);        /* 50 .. 449 */
            int64_t acc = 500 + (int64_t)((x >> 32) % 501);       /* 0.500 .. 1.000 */
            int64_t gpus = 1 + (int64_t)((x >> 44) % 300);
            char r[32];
            snprintf(text + strlen(text), sizeof text - strlen(text),
                     "op%02d,w,p50,B200,,%s,2025-03-01,,%lld,%lld.%03lld,%lld\n", i,
                     gpi_fixed_format(rent_e4, 4, r), (long long)tps, (long long)(acc / 1000),
                     (long long)(acc % 1000), (long long)gpus);
            spend += (double)rent_e4 / 1e4 * (double)gpus / 3600.0;
        }
        cost_deployments ds;
        parse_ok(text, &ds);
        cost_select sel = {"w", "p50", NULL, COST_AXIS_TOKENS};
        cost_curve c;
        gpi_diag d = {{0}};
        assert_int_equal(cost_curve_build(&ds, NULL, &sel, day_of("2025-03-01"), &c, &d), GPI_OK);
        assert_int_equal(c.n, (size_t)n);
        double area = 0;
        int64_t sum = 0;
        for (size_t i = 0; i < c.n; i++) {
            const cost_entry *e = &c.v[i];
            assert_int_equal(e->cum_from, sum);
            sum += e->cap;
            assert_int_equal(e->cum_to, sum);
            if (i) {
                assert_true(e->pt.cost_micro >= c.v[i - 1].pt.cost_micro);
                assert_int_equal(e->rank, e->pt.cost_micro == c.v[i - 1].pt.cost_micro
                                              ? c.v[i - 1].rank : i + 1);
            } else {
                assert_int_equal(e->rank, 1);
            }
            assert_int_equal(e->to_cheapest_micro, e->pt.cost_micro - c.v[0].pt.cost_micro);
            area += (double)e->pt.cost_micro / 1e6 * (double)e->cap / 1e3 / 1e6;
        }
        assert_int_equal(c.total_cap, sum);
        assert_true(2 * (__int128)c.v[c.median_at].cum_to >= sum);
        assert_true(c.median_at == 0 || 2 * (__int128)c.v[c.median_at - 1].cum_to < sum);
        tu_assert_close(area, spend, 2e-5, "area under the curve = spend rate");
        cost_curve_free(&c);
        cost_deployments_free(&ds);
    }
}

/* ---- moves ---------------------------------------------------------------- */

static void test_cost_moves_split_and_fall_back(void **state)
{
    (void)state;
    /* A improves 250 -> 280 tok/s, B improves 220 -> 330 and overtakes it;
     * B200 index 5.043 on 06-01, 4.571 on 12-31.  By hand for A:
     *   c00 = 5.043/(250x3600x.95)e6 = 5.898246   c11 = 4.571/(280 ...) = 4.773392
     *   c10 = 4.571/(250 ...) = 5.346199          c01 = 5.043/(280 ...) = 5.266291
     *   index effect = ((5.346199-5.898246) + (4.773392-5.266291))/2 = -0.522473
     *   throughput   = -1.124854 + 0.522473 = -0.602381;  E +12.00 % */
    const char *text = HDR "A,w,p50,B200,B200.OD,,2025-06-01,2025-08-31,250,0.95,64\n"
                           "A,w,p50,B200,B200.OD,,2025-09-01,2025-12-31,280,0.95,64\n"
                           "B,w,p50,B200,B200.OD,,2025-06-01,2025-08-31,220,0.96,32\n"
                           "B,w,p50,B200,B200.OD,,2025-09-01,2025-12-31,330,0.96,32\n"
                           "C,w,p50,B200,,4,2025-12-31,2025-12-31,200,1,8\n";
    cost_deployments ds;
    parse_ok(text, &ds);
    gpi_index_day days[] = {{day_of("2025-06-01"), GPI_LEVEL_TRADES, 50430},
                              {day_of("2025-12-31"), GPI_LEVEL_TRADES, 45710}};
    cost_series s = {"B200.OD", days, 2};
    cost_prices px = {&s, 1};
    cost_select sel = {"w", "p50", NULL, COST_AXIS_TOKENS};
    cost_moves m;
    gpi_diag d = {{0}};
    /* every 100 days: 06-01, 09-09 (not built), 12-18 (not built), and 12-31 */
    assert_int_equal(cost_moves_build(&ds, &px, &sel, day_of("2025-06-01"), day_of("2025-12-31"),
                                      100, &m, &d),
                     GPI_OK);
    assert_int_equal(m.n_curves, 4);
    assert_int_equal(m.curves[1].day, day_of("2025-09-09"));
    assert_int_equal(m.curves[1].n_off, 2);
    assert_int_equal(m.curves[3].day, day_of("2025-12-31"));
    assert_int_equal(m.n, 3);
    const cost_move *a = &m.m[0], *b = &m.m[1], *c = &m.m[2];
    assert_string_equal(a->label, "A");
    assert_int_equal(a->first->pt.cost_micro, 5898246);
    assert_int_equal(a->last->pt.cost_micro, 4773392);
    assert_int_equal(a->change_micro, -1124854);
    assert_int_equal(a->price_effect_micro, -522473);
    assert_int_equal(a->eff_effect_micro, -602381);
    assert_int_equal(a->eff_change_bp, 1200);
    assert_int_equal(a->first->rank, 1);
    assert_int_equal(a->last->rank, 2);
    assert_int_equal(a->first_of, 2);
    assert_int_equal(a->last_of, 3);
    assert_true(a->improved);
    assert_true(a->fell_back); /* improved, yet fell back */
    assert_int_equal(a->n_on, 2);
    assert_int_equal(a->best_rank, 1);
    assert_int_equal(a->worst_rank, 2);
    assert_int_equal(a->worst_day, day_of("2025-12-31"));
    assert_string_equal(b->label, "B");
    assert_true(b->improved);
    assert_false(b->fell_back);
    assert_int_equal(b->last->rank, 1);
    /* C is on one sampled day: no change to split */
    assert_string_equal(c->label, "C");
    assert_true(c->first == c->last);
    assert_int_equal(c->change_micro, 0);
    assert_int_equal(c->price_effect_micro, 0);
    cost_moves_free(&m);

    /* price unchanged -> the whole change is throughput; throughput
     * unchanged -> the whole change is the index */
    days[1].value_e4 = 50430;
    assert_int_equal(cost_moves_build(&ds, &px, &sel, day_of("2025-06-01"), day_of("2025-12-31"),
                                      400, &m, &d),
                     GPI_OK);
    assert_int_equal(m.n_curves, 2);
    assert_int_equal(m.m[0].price_effect_micro, 0);
    assert_int_equal(m.m[0].eff_effect_micro, m.m[0].change_micro);
    cost_moves_free(&m);
    cost_deployments_free(&ds);

    const char *flat = HDR "A,w,p50,B200,B200.OD,,2025-06-01,2025-12-31,250,0.95,64\n";
    parse_ok(flat, &ds);
    days[1].value_e4 = 45710;
    assert_int_equal(cost_moves_build(&ds, &px, &sel, day_of("2025-06-01"), day_of("2025-12-31"),
                                      7, &m, &d),
                     GPI_OK);
    assert_int_equal(m.n_curves, 32); /* 06-01 + 30 x 7 = 12-28, then 12-31 */
    assert_int_equal(m.m[0].n_on, 2);
    assert_int_equal(m.m[0].eff_effect_micro, 0);
    assert_int_equal(m.m[0].price_effect_micro, m.m[0].change_micro);
    assert_int_equal(m.m[0].change_micro, 5346199 - 5898246); /* 4.571/855000 */
    cost_moves_free(&m);
    assert_int_equal(cost_moves_build(&ds, &px, &sel, 10, 9, 1, &m, &d), GPI_EUSAGE);
    cost_deployments_free(&ds);
}

/* ---- chart ---------------------------------------------------------------- */

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

static void test_cost_curve_svg(void **state)
{
    (void)state;
    const char *text = HDR "<A&B>,w,p50,B200,,2.88,2025-03-01,,200,1,10\n"
                           "Q,w,p50,H100,,2.16,2025-03-01,,200,1,5\n"
                           "T,w,p50,B200,X.OD,,2025-03-01,,200,1,4\n";
    cost_deployments ds;
    parse_ok(text, &ds);
    cost_select sel = {"w", "p50", NULL, COST_AXIS_TOKENS};
    cost_curve c;
    gpi_diag d = {{0}};
    assert_int_equal(cost_curve_build(&ds, NULL, &sel, day_of("2025-03-01"), &c, &d), GPI_OK);
    char *svg;
    size_t len;
    assert_int_equal(cost_curve_svg(&c, "t<1>", "Q", &svg, &len, &d), GPI_OK);
    assert_int_equal(strlen(svg), len);
    assert_true(strncmp(svg, "<?xml", 5) == 0);
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_null(strstr(svg, "<script"));
    assert_null(strstr(svg, "<A&B>"));
    assert_non_null(strstr(svg, "&lt;A&amp;B&gt;"));
    assert_non_null(strstr(svg, "t&lt;1&gt;"));
    assert_int_equal(count(svg, "<title>#"), 2);                 /* one bar each */
    assert_int_equal(count(svg, "stroke-width=\"2.5\""), 1);     /* Q outlined */
    assert_non_null(strstr(svg, "median 4.000000")); /* Q 1000 of 3000 tok/s: <A&B> */
    assert_non_null(strstr(svg, "T (X.OD not built)"));        /* off the curve */
    free(svg);
    cost_curve_free(&c);
    cost_deployments_free(&ds);
}

/* ---- the demo deployments (sim/deploy.c) --------------------------------- */

static char *sim_deployments(int days, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    sim_params p = {day_of("2025-01-01"), days, 1, 1, NULL, 0};
    gpi_diag d = {{0}};
    assert_int_equal(sim_write_deployments(&p, f, &d), GPI_OK);
    fclose(f);
    return buf;
}

static void test_cost_sim_deployments(void **state)
{
    (void)state;
    size_t len, len2;
    char *a = sim_deployments(365, &len), *b = sim_deployments(365, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(a, b, len);
    cost_deployments ds;
    gpi_diag d = {{0}};
    if (cost_deployments_parse("deployments.csv", a, len, &ds, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(ds.n, 20); /* 5 operators x 4 quarters */
    size_t *g, ng;
    assert_int_equal(cost_groups(&ds, &g, &ng, &d), GPI_OK);
    assert_int_equal(ng, 1); /* one workload, one latency target: one curve */
    free(g);
    int gpus_b200 = 0, gpus_h100 = 0, own = 0;
    for (size_t i = 0; i < ds.n; i++) {
        const cost_deployment *r = &ds.v[i];
        gpus_b200 += strcmp(r->gpu, "B200") == 0;
        gpus_h100 += strcmp(r->gpu, "H100-SXM-80GB") == 0;
        own += r->rent_micro >= 0;
        /* quarters tile the year */
        if (i % 4 == 0) assert_int_equal(r->from, day_of("2025-01-01"));
        else assert_int_equal(r->from, ds.v[i - 1].to + 1);
        if (i % 4 == 3) assert_int_equal(r->to, day_of("2025-12-31"));
    }
    assert_int_equal(gpus_b200, 12);
    assert_int_equal(gpus_h100, 8);
    assert_int_equal(own, 4);
    /* Kestrel improves every quarter and starts at 200 vs Helios' 300 at
     * the same acceptance on the same grade: the 1.5 example */
    const cost_deployment *helios = &ds.v[0], *kestrel = &ds.v[4];
    assert_string_equal(helios->op, "Helios Inference");
    assert_string_equal(kestrel->op, "Kestrel Compute");
    assert_int_equal(helios->tps_milli, 300000);
    assert_int_equal(kestrel->tps_milli, 200000);
    assert_int_equal(helios->accept_ppm, kestrel->accept_ppm);
    assert_string_equal(helios->grade, kestrel->grade);
    for (int q = 1; q < 4; q++) assert_true(ds.v[4 + q].tps_milli > ds.v[4 + q - 1].tps_milli);
    cost_deployments_free(&ds);
    free(a);
    free(b);
    /* a 2-day run: quarters without a day are left out */
    a = sim_deployments(2, &len);
    if (cost_deployments_parse("deployments.csv", a, len, &ds, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(ds.n, 10);
    cost_deployments_free(&ds);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cost_parse_errors),
        cmocka_unit_test(test_cost_parse_values),
        cmocka_unit_test(test_cost_gpu_in),
        cmocka_unit_test(test_cost_per_mtok_reference),
        cmocka_unit_test(test_cost_200_vs_300_ratio_is_1_5),
        cmocka_unit_test(test_cost_point_price_sources),
        cmocka_unit_test(test_cost_days_order_and_clipping),
        cmocka_unit_test(test_cost_curve_ranks_median_distances),
        cmocka_unit_test(test_cost_curve_properties),
        cmocka_unit_test(test_cost_moves_split_and_fall_back),
        cmocka_unit_test(test_cost_curve_svg),
        cmocka_unit_test(test_cost_sim_deployments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
