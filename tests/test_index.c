/* tests/test_index.c -- grades, the statistics of methodology v1, the
 * build, and publication (library level).
 *
 * Every expected number was computed independently: by hand or with
 * /usr/bin/python3 (fractions.Fraction for exact weighted medians and
 * water-filling, numpy.quantile for percentiles); inputs and results are
 * literals here.
 */
#include "tests/testutil.h"
#include "store/index_values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "publish/publish.h"
#include "tests/index_fixture.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void items_from(idx_item *v, const int32_t *grp, const int64_t *price,
                       const int64_t *qty, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].group = grp[i];
        v[i].price_micro = price[i];
        v[i].qty_micro = qty ? qty[i] : 0;
        v[i].key_hash = i + 1;
    }
}

/* ---- weighted median and capping ------------------------------------------ */

static void test_weighted_median_table(void **state)
{
    (void)state;
    /* python: wmed() with Fraction water-filling, see the fixture notes */
    static const struct {
        const char *name;
        size_t n;
        int32_t grp[12];
        int64_t price[12];   /* micro-USD */
        int64_t qty[12];     /* micro-GPU-hours */
        int64_t want_q;      /* quarter-micro */
    } cases[] = {
        {"1 provider, exact half -> mean with next price", 2, {0, 0}, {1000000, 2000000},
         {5000000, 5000000}, 6000000},
        {"2 providers, exact half (s = 1/2)", 2, {0, 1}, {2000000, 3000000},
         {10000000, 10000000}, 10000000},
        {"3 providers, C capped at 1/3 moves the median from 2.5 to 2", 3, {0, 1, 2},
         {1000000, 2000000, 3000000}, {100000000, 100000000, 200000000}, 8000000},
        {"10 providers, P1 91 % capped to 0.30 -> 4", 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
         {1000000, 2000000, 3000000, 4000000, 5000000, 6000000, 7000000, 8000000, 9000000,
          10000000},
         {910000000, 10000000, 10000000, 10000000, 10000000, 10000000, 10000000, 10000000,
          10000000, 10000000},
         16000000},
        {"10 providers, two capped (500, 400 of 980) -> 2", 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
         {1000000, 2000000, 3000000, 4000000, 5000000, 6000000, 7000000, 8000000, 9000000,
          10000000},
         {500000000, 400000000, 10000000, 10000000, 10000000, 10000000, 10000000, 10000000,
          10000000, 10000000},
         8000000},
        {"4 providers, capped A, exact half at 2 -> 2.5", 4, {0, 1, 2, 3},
         {1000000, 2000000, 3000000, 4000000}, {1000000000, 200000000, 250000000, 250000000},
         10000000},
        {"capped provider with two prices scales both trades", 5, {0, 0, 1, 2, 3},
         {1000000, 1500000, 2000000, 3000000, 4000000},
         {600000000, 400000000, 200000000, 250000000, 250000000}, 10000000},
        {"odd micro prices: half of 1.000001 + 1.000002", 2, {0, 1}, {1000001, 1000002},
         {1000000, 1000000}, 4000006},
    };
    for (size_t c = 0; c < N(cases); c++) {
        idx_item v[12];
        items_from(v, cases[c].grp, cases[c].price, cases[c].qty, cases[c].n);
        int64_t q = -1;
        gpi_diag d = {{0}};
        if (idx_weighted_median(v, cases[c].n, 300000, &q, &d) != GPI_OK)
            fail_msg("%s: %s", cases[c].name, d.msg);
        if (q != cases[c].want_q)
            fail_msg("%s: got %lld, want %lld", cases[c].name, (long long)q,
                     (long long)cases[c].want_q);
    }
}

/* Random markets (python random.seed(7), tests/ref/index_wmed.py): up to 12
 * providers, ties, volumes from 1 to 100,000 GPU-hours; expected values
 * from exact Fraction water-filling and weighted medians. */
static void test_weighted_median_random(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        int32_t grp[32];
        int64_t price[32], qty[32];
        int64_t want_q;
    } cases[] = {
{11, {0,0,1,2,2,2,2,3,4,4,4}, {3000000,2500001,2000000,1990000,2500000,2000009,2500007,1990002,2000001,2010002,2500004}, {10000000,50000000000,200000000,10000000,100000000,1000000,1000000,2000000,10000000,100000000,1000000}, 8040008},
{13, {0,1,2,2,2,2,3,3,3,3,4,4,4}, {3000000,2000000,2010000,2010000,2000003,2500001,3000000,1990000,2000000,2500000,3000000,2500001,1990000}, {100000000,200000000,50000000000,10000000,50000000000,1000000,5000000,100000000,10000000,10000000,5000000,10000000,50000000000}, 8000000},
{29, {0,1,1,1,1,2,2,2,2,3,3,4,4,4,4,5,6,6,6,6,7,8,9,9,10,11,11,11,11}, {3000004,3000000,2500000,1990000,2010000,2500000,2500004,2500004,2500000,1990000,3000000,2500001,1990000,2010009,2000008,3000006,2500000,2500000,2000000,2010000,2500001,2500001,2500000,2500001,2500000,1990000,2010004,3000000,2000005}, {1000000,10000000,2000000,200000000,4000000,10000000,10000000,2000000,1000000000,2000000,2000000,50000000000,5000000,100000000,5000000,10000000,10000000,1000000000,1000000,1000000,1000000,5000000,100000000,5000000,1000000,5000000,1000000000,10000000,1000000}, 10000000},
{7, {0,1,1,1,2,2,3}, {2500001,2010000,2000008,2500001,2000000,2500001,2010000}, {50000000000,200000000,100000000000,100000000000,50000000000,2000000,1000000}, 8040000},
{13, {0,0,0,1,1,1,1,2,2,3,3,3,3}, {3000000,2000000,2000000,2500001,2010001,3000000,3000000,3000000,3000000,1990002,2000000,2500002,2500001}, {10000000,1000000,10000000,200000000,2000000000,100000000000,100000000000,10000000,50000000000,1000000000,2000000,100000000,100000000}, 12000000},
{9, {0,0,1,1,2,2,2,3,3}, {1990001,3000000,2000000,2010003,2500001,3000000,2500007,2000008,2500000}, {1000000,100000000,100000000000,4000000,5000000,1000000,1000000000,100000000,1000000}, 9020006},
    };
    for (size_t c = 0; c < N(cases); c++) {
        idx_item v[32];
        items_from(v, cases[c].grp, cases[c].price, cases[c].qty, cases[c].n);
        int64_t q = -1;
        gpi_diag d = {{0}};
        if (idx_weighted_median(v, cases[c].n, 300000, &q, &d) != GPI_OK)
            fail_msg("case %zu: %s", c, d.msg);
        if (q != cases[c].want_q)
            fail_msg("case %zu: got %lld, want %lld", c, (long long)q, (long long)cases[c].want_q);
    }
}

static void test_waterfill_shares(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        size_t n;
        int64_t vol[10];
        int k;
        int64_t share_num[10], share_den[10]; /* python Fraction results */
    } cases[] = {
        {"1 provider", 1, {7}, 0, {1}, {1}},
        {"2 equal providers", 2, {5, 5}, 0, {1, 1}, {2, 2}},
        {"2 providers, 9:1 -> both 1/2", 2, {9, 1}, 1, {1, 1}, {2, 2}},
        {"3 providers 1:1:2 -> 1/3 each", 3, {100, 100, 200}, 1, {1, 1, 1}, {3, 3, 3}},
        {"10 providers, one at 91 %", 10, {910, 10, 10, 10, 10, 10, 10, 10, 10, 10}, 1,
         {3, 7, 7, 7, 7, 7, 7, 7, 7, 7}, {10, 90, 90, 90, 90, 90, 90, 90, 90, 90}},
        {"10 providers, two capped", 10, {500, 400, 10, 10, 10, 10, 10, 10, 10, 10}, 2,
         {3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {10, 10, 20, 20, 20, 20, 20, 20, 20, 20}},
    };
    for (size_t c = 0; c < N(cases); c++) {
        __int128 num[10], den;
        int k = idx_waterfill(cases[c].vol, cases[c].n, 300000, num, &den);
        if (k != cases[c].k) fail_msg("%s: %d capped, want %d", cases[c].name, k, cases[c].k);
        for (size_t i = 0; i < cases[c].n; i++)
            if (num[i] * cases[c].share_den[i] != den * cases[c].share_num[i])
                fail_msg("%s: share %zu differs from %lld/%lld", cases[c].name, i,
                         (long long)cases[c].share_num[i], (long long)cases[c].share_den[i]);
    }
}

/* ---- error screen ------------------------------------------------------------ */

static void test_screen_bounds(void **state)
{
    (void)state;
    /* group 0: median 1.0 of 7; 0.333333 (x3 = 0.999999 < 1) and 3.000001
     *          are out, 0.333334 and 3.0 (exactly at F x) stay.
     * group 1: median 3.0; 1.0 exactly at 1/F and 9.0 exactly at F: kept.
     * group 2: two prices 0.01 and 100: fewer than 3, never screened.
     * group 3: a cheap provider (0.30 0.31 0.32) among ~3 USD ones: kept. */
    static const int32_t grp[] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 3, 3, 3};
    static const int64_t price[] = {333333, 333334, 1000000, 1000000, 1000000, 3000000,
                                    3000001, 1000000, 3000000, 3000000, 3000000, 9000000,
                                    10000, 100000000, 300000, 310000, 320000};
    idx_item v[N(grp)];
    double work[2 * N(grp)];
    items_from(v, grp, price, NULL, N(grp));
    size_t ex = idx_screen(v, N(grp), 3000000, work);
    assert_int_equal(ex, 2);
    for (size_t i = 0; i < N(grp); i++) {
        int want = IDX_OK;
        if (v[i].group == 0 && v[i].price_micro == 333333) want = IDX_EX_BELOW;
        if (v[i].group == 0 && v[i].price_micro == 3000001) want = IDX_EX_ABOVE;
        if (v[i].reason != want)
            fail_msg("group %d price %lld: reason %d, want %d", v[i].group,
                     (long long)v[i].price_micro, v[i].reason, want);
    }
    /* a provider median from an even count: 1.0, 1.0, 3.0, 4.0 -> 2.0;
     * 4.0 <= 6 stays, and with F = 1.5 (3.0 = 1.5 x 2.0 stays) only 4.0 goes */
    static const int32_t g2[] = {0, 0, 0, 0};
    static const int64_t p2[] = {1000000, 1000000, 3000000, 4000000};
    idx_item w[4];
    items_from(w, g2, p2, NULL, 4);
    assert_int_equal(idx_screen(w, 4, 3000000, work), 0);
    items_from(w, g2, p2, NULL, 4);
    assert_int_equal(idx_screen(w, 4, 1500000, work), 3); /* 1.0 < 2/1.5 too */
    assert_int_equal(w[3].reason, IDX_EX_ABOVE);
    assert_int_equal(w[2].reason, IDX_OK);
    assert_int_equal(w[0].reason, IDX_EX_BELOW);
}

/* ---- medians, adjustment, rounding ------------------------------------------ */

static void test_median_of_medians(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        size_t n;
        int32_t grp[8];
        int64_t price[8];
        size_t want_np;
        int64_t want_q;
    } cases[] = {
        {"odd: 2.0 2.1 2.5 -> 2.1", 3, {0, 1, 2}, {2000000, 2500000, 2100000}, 3, 8400000},
        {"even: 1.000001 1.000002 1.000004 1.000008 -> 1.000003", 4, {0, 1, 2, 3},
         {1000001, 1000002, 1000004, 1000008}, 4, 4000012},
        {"even inside a provider, then even across: 1.50000025", 3, {0, 0, 1},
         {1000000, 1000001, 2000000}, 2, 6000001},
        {"one vote per provider: P0 has five cheap offers", 7, {0, 0, 0, 0, 0, 1, 2},
         {1000000, 1000000, 1000000, 1000000, 1000000, 3000000, 4000000}, 3, 12000000},
    };
    for (size_t c = 0; c < N(cases); c++) {
        idx_item v[8];
        double work[16];
        items_from(v, cases[c].grp, cases[c].price, NULL, cases[c].n);
        idx_screen(v, cases[c].n, 1000000000, work); /* sorts; F huge: excludes nothing */
        int64_t q;
        size_t np = idx_median_of_medians(v, cases[c].n, work, &q);
        if (np != cases[c].want_np || q != cases[c].want_q)
            fail_msg("%s: got %zu providers, %lld; want %zu, %lld", cases[c].name, np,
                     (long long)q, cases[c].want_np, (long long)cases[c].want_q);
    }
}

static void test_adjustment(void **state)
{
    (void)state;
    /* ratios t/o; python Fraction medians */
    static const struct {
        const char *name;
        size_t n;
        int64_t t[6], o[6];
        int64_t want;
    } cases[] = {
        {"4 qualifying days -> 1", 4, {242, 253, 231, 264}, {220, 220, 220, 220}, 1000000},
        {"5 qualifying days -> 1.1", 5, {242, 253, 231, 264, 220}, {220, 220, 220, 220, 220},
         1100000},
        {"6 days, even: (2/3 + 0.7)/2 = 41/60", 6, {1, 6, 2, 7, 8, 9}, {2, 10, 3, 10, 10, 10},
         683333},
        {"6 days, midpoint 0.8333335 rounds up", 6, {1, 6, 833333, 833334, 9, 1},
         {2, 10, 1000000, 1000000, 10, 1}, 833334},
    };
    for (size_t c = 0; c < N(cases); c++) {
        int64_t a = idx_adjustment_e6(cases[c].t, cases[c].o, cases[c].n, 5);
        if (a != cases[c].want)
            fail_msg("%s: got %lld want %lld", cases[c].name, (long long)a,
                     (long long)cases[c].want);
    }
}

static void test_value_rounding(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t raw_q, adj_e6, step_e4, want_e4;
    } cases[] = {
        {"1.23445 midpoint rounds up", 4937800, 1000000, 1, 12345},
        {"1.23444975 rounds down", 4937799, 1000000, 1, 12344},
        {"1.23435 midpoint rounds up", 4937400, 1000000, 1, 12344},
        {"2.2345 x 1.1 = 2.45795 -> 2.4580", 8938000, 1100000, 1, 24580},
        {"1.50000025 -> 1.5000", 6000001, 1000000, 1, 15000},
        {"step 0.01: 2.345 -> 2.35", 9380000, 1000000, 100, 23500},
        {"step 0.01: 2.34499975 -> 2.34", 9379999, 1000000, 100, 23400},
    };
    for (size_t c = 0; c < N(cases); c++) {
        int64_t v = idx_value_e4(cases[c].raw_q, cases[c].adj_e6, cases[c].step_e4);
        if (v != cases[c].want_e4)
            fail_msg("%s: got %lld want %lld", cases[c].name, (long long)v,
                     (long long)cases[c].want_e4);
    }
}

static void test_spread(void **state)
{
    (void)state;
    /* numpy.quantile([2.0, 2.2345, 2.6], q) */
    static const int32_t g[] = {0, 1, 2};
    static const int64_t p[] = {2600000, 2000000, 2234500};
    idx_item v[3];
    double work[6];
    items_from(v, g, p, NULL, 3);
    int64_t out[7];
    idx_spread(v, 3, work, out);
    static const int64_t want[7] = {2046900, 2117250, 2234500, 2417250, 2526900, 2000000,
                                    2600000};
    for (int i = 0; i < 7; i++) assert_int_equal(out[i], want[i]);
}

/* ---- grades ---------------------------------------------------------------- */

static void test_grade_errors(void **state)
{
    (void)state;
    static const struct {
        const char *json, *msg;
    } cases[] = {
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"H100\"}]}",
         "g.json: grades[0].gpu: unknown GPU model (a canonical name or an alias of gpus.csv) "
         "(got \"H100\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"min_tier\":\"diamond\"}]}",
         "g.json: grades[0].min_tier: unknown tier (got \"diamond\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"term\":\"weekly\"}]}",
         "g.json: grades[0].term: must be on-demand, spot or reserved:A-B (got \"weekly\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"term\":\"reserved:6-3\"}]}",
         "g.json: grades[0].term: reserved range must be A-B with 1 <= A <= B <= 60 "
         "(got \"reserved:6-3\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"term\":\"reserved:1-61\"}]}",
         "g.json: grades[0].term: reserved range must be A-B with 1 <= A <= B <= 60 "
         "(got \"reserved:1-61\")"},
        {"{\"grades\":[{\"id\":\"../x\",\"gpu\":\"B200\"}]}",
         "g.json: grades[0].id: must match [A-Za-z0-9][A-Za-z0-9._+-]{0,63} (got \"../x\")"},
        {"{\"grades\":[{\"id\":\"h100.a\",\"gpu\":\"B200\"},{\"id\":\"H100.A\",\"gpu\":\"B200\"}]}",
         "g.json: grades[1].id: duplicate of grades[0] (ids ignore case) (got \"H100.A\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"error_factr\":3}]}",
         "g.json: grades[0].error_factr: unknown field or parameter (got \"error_factr\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"cap_floor\":1.5}]}",
         "g.json: grades[0].cap_floor: must be in (0, 1] (got \"1.5\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"rounding\":0.00005}]}",
         "g.json: grades[0].rounding: must be a multiple of 0.0001 (got \"0.00005\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"rounding\":1e-5}]}",
         "g.json: grades[0].rounding: must be a multiple of 0.0001 (got \"0.00001\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"cap_floor\":1e300}]}",
         "g.json: grades[0].cap_floor: not a number (got \"1e+300\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"scope\":[\"cloud\"]}]}",
         "g.json: grades[0].scope: unknown scope (got \"cloud\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"min_providers\":2.5}]}",
         "g.json: grades[0].min_providers: not an integer (got \"2.5\")"},
        /* the field named is the one the file changed */
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"adj_lookback_days\":3}]}",
         "g.json: grades[0].adj_lookback_days: is below adj_min_days (5), so no adjustment could "
         "ever apply; lower adj_min_days too (got \"3\")"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"adj_min_days\":31}]}",
         "g.json: grades[0].adj_min_days: must not exceed adj_lookback_days (got \"31\")"},
        {"{\"grades\":[{\"gpu\":\"B200\"}]}", "g.json: grades[0].id: missing"},
        {"{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",}]}",
         "g.json:1:35: string or '}' expected near '}'"},
    };
    for (size_t c = 0; c < N(cases); c++) {
        idx_grades *g = NULL;
        gpi_diag d = {{0}};
        gpi_status rc = idx_grades_parse(cases[c].json, "g.json", NULL, 0, &g, &d);
        if (rc != GPI_EINPUT) fail_msg("case %zu accepted: %s", c, cases[c].json);
        assert_null(g);
        if (strcmp(d.msg, cases[c].msg) != 0)
            fail_msg("case %zu:\n got  %s\n want %s", c, d.msg, cases[c].msg);
    }
}

static void test_grade_defaults_and_hash(void **state)
{
    (void)state;
    idx_grades *a = NULL, *b = NULL, *c = NULL;
    gpi_diag d = {{0}};
    const char *extra[] = {"X9000"};
    assert_int_equal(idx_grades_parse("{\"grades\":[{\"id\":\"A.1\",\"gpu\":[\"h100-sxm-80gb\","
                                      "\"B200\"],\"term\":\"reserved:1-3\"}]}",
                                      "g", NULL, 0, &a, &d),
                     GPI_OK);
    const idx_grade *g = &a->g[0];
    assert_string_equal(g->gpu[0], "B200");
    assert_string_equal(g->gpu[1], "H100-SXM-80GB");
    assert_int_equal(g->p.error_factor_e6, 3000000);
    assert_int_equal(g->p.min_trade_volume_micro, 1000000000LL);
    assert_int_equal(g->p.min_providers, 3);
    assert_int_equal(g->p.cap_floor_e6, 300000);
    assert_int_equal(g->p.max_carry_days, 5);
    assert_int_equal(g->p.adj_lookback_days, 30);
    assert_int_equal(g->p.adj_min_days, 5);
    assert_int_equal(g->p.restate_threshold_e6, 1000);
    assert_int_equal(g->p.rounding_e4, 1);
    assert_int_equal(g->term, GPI_TERM_RESERVED);
    assert_int_equal(g->term_min, 1);
    assert_int_equal(g->term_max, 3);
    /* the same grade written differently hashes the same; a parameter
     * changes the hash */
    assert_int_equal(idx_grades_parse("{\"grades\":[{\"term\":\"reserved:1-3\",\"gpu\":[\"B200\","
                                      "\"H100-SXM-80GB\",\"b200\"],\"id\":\"A.1\","
                                      "\"cap_floor\":\"0.3\",\"version\":1}]}",
                                      "g", NULL, 0, &b, &d),
                     GPI_OK);
    assert_string_equal(a->g[0].hash, b->g[0].hash);
    assert_int_equal(idx_grades_parse("{\"grades\":[{\"id\":\"A.1\",\"gpu\":\"X9000\","
                                      "\"error_factor\":4}]}",
                                      "g", extra, 1, &c, &d),
                     GPI_OK);
    assert_int_equal(c->g[0].p.error_factor_e6, 4000000);
    assert_string_not_equal(a->g[0].hash, c->g[0].hash);
    /* the canonical text parses back to the same hash */
    char text[4096];
    snprintf(text, sizeof text, "{\"grades\":[%s]}", a->g[0].canon);
    idx_grades *r = NULL;
    assert_int_equal(idx_grades_parse(text, "canon", NULL, IDX_TRUST_GPUS, &r, &d), GPI_OK);
    assert_string_equal(r->g[0].hash, a->g[0].hash);
    /* so does idx_grade_from_canon (stored and published definitions),
     * with any GPU name; a broken definition is refused under its name */
    idx_grades *fc = NULL;
    assert_int_equal(idx_grade_from_canon(c->g[0].canon, "stored grade", &fc, &d), GPI_OK);
    assert_int_equal(fc->n, 1);
    assert_string_equal(fc->g[0].hash, c->g[0].hash);
    idx_grades_free(fc);
    fc = NULL;
    assert_int_equal(idx_grade_from_canon("{\"id\":\"A.1\"}", "grade_definition", &fc, &d),
                     GPI_EINPUT);
    assert_null(fc);
    assert_string_equal(d.msg, "grade_definition: grades[0].gpu: missing");
    idx_grades_free(a);
    idx_grades_free(b);
    idx_grades_free(c);
    idx_grades_free(r);
    /* the shipped grade file is valid */
    char path[4096];
    snprintf(path, sizeof path, "%s/data/grades.json", tu_srcdir());
    idx_grades *shipped = NULL;
    if (idx_grades_load(path, NULL, 0, &shipped, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_true(shipped->n >= 6);
    idx_grades_free(shipped);
}

/* What a row depends on (idx_depends_from, read by publication's late
 * data check): a v1 grade the adjustment's lookback and the carry (30 +
 * 5 days), or, with max_unchanged_days M, the M + IDX_AGE_SLACK days its
 * offers' price ages are looked up over when that reaches further. */
static void test_depends_from(void **state)
{
    (void)state;
    static const struct {
        const char *extra;
        int back;
    } cases[] = {{"", 35}, {",\"max_unchanged_days\":7", 35}, {",\"max_unchanged_days\":30", 45}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[256];
        snprintf(text, sizeof text,
                 "{\"grades\":[{\"id\":\"A.1\",\"gpu\":\"H100-SXM-80GB\",\"method\":\"v1\"%s}]}",
                 cases[c].extra);
        idx_grades *g = NULL;
        gpi_diag d = {{0}};
        if (idx_grades_parse(text, "g", NULL, 0, &g, &d) != GPI_OK) fail_msg("%s", d.msg);
        assert_int_equal(idx_depends_from(&g->g[0], 20000), 20000 - cases[c].back);
        idx_grades_free(g);
    }
}

static void test_gpu_names_from_csv(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("gpus");
    char *path = tu_write(dir, "gpus.csv",
                          "# comment, with a canonical word\n"
                          "alias,canonical,provider,sku_glob\n"
                          "H100,H100-SXM-80GB,,\n"
                          "h100 sxm5,H100-SXM-80GB,,\n"
                          "X9,X9000-96GB,lambda,*x9*\n"
                          "junk,-,,\n");
    char **names;
    size_t n;
    gpi_diag d = {{0}};
    assert_int_equal(idx_gpu_names_load(path, &names, &n, &d), GPI_OK);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "H100-SXM-80GB");
    assert_string_equal(names[1], "X9000-96GB");
    idx_grades *g = NULL;
    assert_int_equal(idx_grades_parse("{\"grades\":[{\"id\":\"X\",\"gpu\":\"x9000-96gb\"}]}", "g",
                                      (const char *const *)names, n, &g, &d),
                     GPI_OK);
    assert_string_equal(g->g[0].gpu[0], "X9000-96GB");
    idx_grades_free(g);
    idx_names_free(names, n);
    free(path);
    /* issue 12 (buffers that hold input): a line longer than the 4 KiB
     * line buffer was read on as a second line, and its tail became a
     * GPU name */
    char text[8192];
    int h = snprintf(text, sizeof text, "alias,canonical,provider,sku_glob,note\n");
    int k = h + snprintf(text + h, sizeof text - (size_t)h, "H100,H100-SXM-80GB,,,");
    while (k < h + 4095) text[k++] = 'x'; /* the buffer's first read of the line ends here */
    snprintf(text + k, sizeof text - (size_t)k, "y,FAKE-GPU,,,\nA100,A100-SXM-80GB,,,\n");
    path = tu_write(dir, "gpus.csv", text);
    assert_int_equal(idx_gpu_names_load(path, &names, &n, &d), GPI_OK);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "H100-SXM-80GB");
    assert_string_equal(names[1], "A100-SXM-80GB");
    idx_names_free(names, n);
    free(path);
    free(dir);
}

/* ---- build on the fixture market ------------------------------------------------ */

typedef struct rows {
    store_index_row r[32];
    int n;
} rows;

static int grab(const store_index_row *r, void *ud)
{
    rows *x = ud;
    if (x->n < 32) x->r[x->n++] = *r;
    return 0;
}

static store *fresh_store(char **dir_out)
{
    char *dir = tu_mkdtemp("index");
    char path[4096];
    snprintf(path, sizeof path, "%s/t.db", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    *dir_out = dir;
    return st;
}

static void test_build_fixture(void **state)
{
    (void)state;
    char *dir;
    store *st = fresh_store(&dir);
    fx_market(st);
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(idx_grades_parse(fx_grades_json, "fx", NULL, 0, &gs, &d), GPI_OK);
    idx_build_stats bs;
    int32_t d1 = gpi_days_from_civil(2025, 1, 1);
    /* build the second half first, then the first: same rows as one build */
    if (idx_build(st, gs, d1 + 5, d1 + 13, 1500, &bs, &d) != GPI_OK) fail_msg("%s", d.msg);
    if (idx_build(st, gs, d1, d1 + 4, 1500, &bs, &d) != GPI_OK) fail_msg("%s", d.msg);
    rows x = {.n = 0};
    assert_int_equal(store_index_rows(st, "T", d1, d1 + 13, grab, &x, &d), GPI_OK);
    assert_int_equal(x.n, 14);
    /* the definition the rows were built with reads back (publication,
     * statement); an unknown hash gives none */
    idx_grades *def = NULL;
    assert_int_equal(idx_grade_stored(st, x.r[0].grade_hash, &def, &d), GPI_OK);
    assert_non_null(def);
    assert_string_equal(def->g[0].hash, x.r[0].grade_hash);
    assert_string_equal(def->g[0].id, "T");
    idx_grades_free(def);
    def = NULL;
    assert_int_equal(idx_grade_stored(st, "00", &def, &d), GPI_OK);
    assert_null(def);
    static const struct {
        int level;
        int64_t value_e4, adj_e6;
        int carry;
        long n_obs, n_excl, n_prov;
    } want[14] = {
        {GPI_LEVEL_TRADES, 24200, -1, 0, 3, 0, 3},  {GPI_LEVEL_TRADES, 25300, -1, 0, 3, 0, 3},
        {GPI_LEVEL_TRADES, 23100, -1, 0, 3, 0, 3},  {GPI_LEVEL_TRADES, 26400, -1, 0, 3, 0, 3},
        {GPI_LEVEL_OFFERS, 22000, 1000000, 0, 3, 0, 3},
        {GPI_LEVEL_TRADES, 22000, -1, 0, 3, 0, 3},
        {GPI_LEVEL_OFFERS, 24580, 1100000, 0, 3, 0, 3},
        {GPI_LEVEL_CARRIED, 24580, -1, 1, 0, 0, 0}, {GPI_LEVEL_CARRIED, 24580, -1, 2, 0, 0, 0},
        {GPI_LEVEL_CARRIED, 24580, -1, 3, 0, 0, 0}, {GPI_LEVEL_CARRIED, 24580, -1, 4, 0, 0, 0},
        {GPI_LEVEL_CARRIED, 24580, -1, 5, 0, 0, 0}, {GPI_LEVEL_SUSPENDED, -1, -1, 0, 0, 0, 0},
        {GPI_LEVEL_SUSPENDED, -1, -1, 0, 0, 0, 0},
    };
    for (int i = 0; i < 14; i++) {
        const store_index_row *r = &x.r[i];
        if (r->level != want[i].level || r->value_e4 != want[i].value_e4 ||
            r->adjustment_e6 != want[i].adj_e6 || r->carry_days != want[i].carry ||
            r->n_obs != want[i].n_obs || r->n_excluded != want[i].n_excl ||
            r->n_providers != want[i].n_prov)
            fail_msg("day %d: level %d value %lld adj %lld carry %d obs %ld excl %ld prov %ld",
                     i + 1, r->level, (long long)r->value_e4, (long long)r->adjustment_e6,
                     r->carry_days, r->n_obs, r->n_excluded, r->n_providers);
    }
    /* day 1: trades spread, volume, share */
    assert_int_equal(x.r[0].trade_volume_e2, 120000);
    assert_int_equal(x.r[0].p10_micro, 2340000);
    assert_int_equal(x.r[0].p90_micro, 2500000);
    assert_int_equal(x.r[0].top_share_e6, 333333);
    /* settlement's reader sees the same series */
    gpi_index_day *series;
    size_t n;
    assert_int_equal(store_index_series(st, "t", d1, d1 + 13, 0, &series, &n, &d), GPI_OK);
    assert_int_equal(n, 14);
    assert_int_equal(series[6].value_e4, 24580);
    assert_int_equal(series[12].level, GPI_LEVEL_SUSPENDED);
    free(series);
    /* building everything at once gives the same rows as the two pieces */
    char *dir2;
    store *st2 = fresh_store(&dir2);
    fx_market(st2);
    if (idx_build(st2, gs, d1, d1 + 13, 1500, &bs, &d) != GPI_OK) fail_msg("%s", d.msg);
    rows y = {.n = 0};
    assert_int_equal(store_index_rows(st2, "T", d1, d1 + 13, grab, &y, &d), GPI_OK);
    assert_int_equal(y.n, 14);
    for (int i = 0; i < 14; i++) {
        const store_index_row *a = &x.r[i], *b = &y.r[i];
        if (a->level != b->level || a->value_e4 != b->value_e4 || a->n_obs != b->n_obs ||
            a->adjustment_e6 != b->adjustment_e6 || a->p25_micro != b->p25_micro ||
            a->trades_raw_q != b->trades_raw_q || a->offers_raw_q != b->offers_raw_q ||
            a->carry_days != b->carry_days || strcmp(a->grade_hash, b->grade_hash) != 0)
            fail_msg("day %d differs between a piecewise and a whole build", i + 1);
    }
    /* one thread (an in-memory database has no second handle for the
     * next day's scan) gives the same rows as two (the file above) */
    store *mem = NULL;
    if (store_open(":memory:", &mem, &d) != GPI_OK) fail_msg("%s", d.msg);
    store *rd = NULL;
    assert_int_equal(store_open_again(mem, &rd, &d), GPI_EUSAGE);
    assert_null(rd);
    assert_int_equal(store_open_again(st2, &rd, &d), GPI_OK);
    store_close(rd);
    fx_market(mem);
    if (idx_build(mem, gs, d1, d1 + 13, 1500, &bs, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(bs.days, 14);
    char *one = NULL, *two = NULL;
    size_t n1, n2;
    FILE *f1 = open_memstream(&one, &n1), *f2 = open_memstream(&two, &n2);
    assert_int_equal(pub_show(mem, NULL, d1, d1 + 13, f1, &d), GPI_OK);
    assert_int_equal(pub_show(st2, NULL, d1, d1 + 13, f2, &d), GPI_OK);
    fclose(f1);
    fclose(f2);
    assert_int_equal(n1, n2);
    assert_true(n1 > 14 * 40);
    assert_string_equal(one, two);
    free(one);
    free(two);
    store_close(mem);
    store_close(st2);
    free(dir2);
    /* late data is invisible to a build with an earlier cut-off */
    fx_late(st);
    if (idx_build(st, gs, d1 + 6, d1 + 6, 1500, &bs, &d) != GPI_OK) fail_msg("%s", d.msg);
    x.n = 0;
    assert_int_equal(store_index_rows(st, "T", d1 + 6, d1 + 6, grab, &x, &d), GPI_OK);
    assert_int_equal(x.r[0].value_e4, 24580);
    assert_int_equal(bs.reevaluated, 0);
    /* with it, rebuilding day 7 only: the later carried days follow */
    if (idx_build(st, gs, d1 + 6, d1 + 6, 2500, &bs, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(bs.reevaluated, 5);
    x.n = 0;
    assert_int_equal(store_index_rows(st, "T", d1 + 6, d1 + 12, grab, &x, &d), GPI_OK);
    assert_int_equal(x.r[0].level, GPI_LEVEL_TRADES);
    assert_int_equal(x.r[0].value_e4, 25000);
    for (int i = 1; i <= 5; i++) assert_int_equal(x.r[i].value_e4, 25000);
    assert_int_equal(x.r[6].level, GPI_LEVEL_SUSPENDED);
    /* a changed definition under the same id and version is refused */
    idx_grades *g2 = NULL;
    assert_int_equal(idx_grades_parse("{\"grades\":[{\"id\":\"T\",\"gpu\":[\"H100-SXM-80GB\"],"
                                      "\"min_providers\":2}]}",
                                      "fx", NULL, 0, &g2, &d),
                     GPI_OK);
    assert_int_equal(idx_build(st, g2, d1, d1, 2500, &bs, &d), GPI_EINPUT);
    assert_non_null(strstr(d.msg, "grade T version 1: definition differs from the stored one"));
    idx_grades_free(g2);
    idx_grades_free(gs);
    store_close(st);
    free(dir);
}

/* ---- what one participant can do (index/manip.c) -------------------------- */

/* Three days of grade T (defaults: F 3, 1000 GPU-hours and 3 providers,
 * cap floor 0.30), each a case of METHODOLOGY.md §11 worked out by hand:
 *  day 1: five providers Pa..Pe of 1000 GPU-hours at 2.200 .. 2.204: the
 *    median 2.2020 (weights 0.2 each).  A new provider above all with x
 *    GPU-hours leaves 3000/(5000+x) at or below 2.202: exactly half at
 *    x = 1000 (its share 1/6, under the cap), where the median is the mean
 *    of 2.202 and 2.203, 2.2025: one tick for 1000.00 GPU-hours (below it,
 *    2000+x of 5000+x reach half at 1000 too).  Capped at 0.30 (the others
 *    0.14 each) it moves the median one price, 0.001 (0.05 %): 1 % is out
 *    of reach (none).  Without Pa, Pb, Pd or Pe the four left tie at half
 *    and the median moves by 0.0005; without Pc by nothing: 0.0005, Pa.
 *  day 2: offers of Qa 2.19, Qb 2.20, Qc 2.21 -> 2.2000 (a = 1).  One
 *    offer above all: (2.20 + 2.21)/2 = 2.205 (+0.23 %): one offer for a
 *    tick, none for 1 %; no trades.  Without a provider two are left: the
 *    day carries day 1's 2.2020 (0.0020, Qa).
 *  day 3: offers 2.00, 2.20, 2.60 -> 2.2000, and trades of only two
 *    providers, Ra 600 GPU-hours at 3.00 and Rb 600 at 3.10.  A third
 *    trading provider with 0.01 GPU-hour makes the trades level qualify
 *    (1200.01 GPU-hours, 3 providers); with three, every provider weighs
 *    1/3 however little it trades, and the value jumps to 3.00 or 3.10:
 *    0.01 GPU-hour for a tick and for 1 %.  One offer above all: 2.40.
 *    Without any provider the offers fall to two and day 2's 2.2000 is
 *    carried: no move (of equal moves the first name, Qa). */
static void test_manipulation_cost(void **state)
{
    (void)state;
    char *dir;
    store *st = fresh_store(&dir);
    int64_t b = fx_batch(st, "sha-manip", 1000);
    static const struct {
        int kind, dom;
        const char *prov, *id;
        int64_t price, qty;
    } obs[] = {
        {GPI_TRADE, 1, "Pa", "a", 2200000, 1000000000}, {GPI_TRADE, 1, "Pb", "b", 2201000, 1000000000},
        {GPI_TRADE, 1, "Pc", "c", 2202000, 1000000000}, {GPI_TRADE, 1, "Pd", "d", 2203000, 1000000000},
        {GPI_TRADE, 1, "Pe", "e", 2204000, 1000000000}, {GPI_OFFER, 2, "Qa", "qa2", 2190000, -1},
        {GPI_OFFER, 2, "Qb", "qb2", 2200000, -1},       {GPI_OFFER, 2, "Qc", "qc2", 2210000, -1},
        {GPI_OFFER, 3, "Qa", "qa3", 2000000, -1},       {GPI_OFFER, 3, "Qb", "qb3", 2200000, -1},
        {GPI_OFFER, 3, "Qc", "qc3", 2600000, -1},       {GPI_TRADE, 3, "Ra", "ra", 3000000, 600000000},
        {GPI_TRADE, 3, "Rb", "rb", 3100000, 600000000},
    };
    for (size_t i = 0; i < N(obs); i++)
        fx_obs(st, b, obs[i].kind, obs[i].prov, obs[i].dom, 9, obs[i].id, obs[i].price,
               obs[i].qty, 0);
    fx_commit(st, b);
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(idx_grades_parse(fx_grades_json, "fx", NULL, 0, &gs, &d), GPI_OK);
    idx_build_stats bs;
    int32_t d1 = gpi_days_from_civil(2025, 1, 1);
    if (idx_build(st, gs, d1, d1 + 2, 1500, &bs, &d) != GPI_OK) fail_msg("%s", d.msg);
    rows x = {.n = 0};
    assert_int_equal(store_index_rows(st, "T", d1, d1 + 2, grab, &x, &d), GPI_OK);
    assert_int_equal(x.n, 3);
    static const struct {
        int64_t value_e4, loo_e4;
        const char *loo_by;
        int64_t cost_e2[2];
        long offers[2];
    } want[] = {
        {22020, 5, "Pa", {100000, -1}, {-1, -1}},
        {22000, 20, "Qa", {-1, -1}, {1, -1}},
        {22000, 0, "Qa", {1, 1}, {1, 1}},
    };
    for (int i = 0; i < 3; i++) {
        const store_index_row *r = &x.r[i];
        assert_int_equal(r->value_e4, want[i].value_e4);
        assert_int_equal(r->loo_move_e4, want[i].loo_e4);
        assert_string_equal(r->loo_provider, want[i].loo_by);
        assert_int_equal(r->loo_voids, 0);
        for (int k = 0; k < 2; k++) {
            assert_int_equal(r->cost_e2[k], want[i].cost_e2[k]);
            assert_int_equal(r->cost_offers[k], want[i].offers[k]);
        }
    }
    idx_grades_free(gs);
    store_close(st);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weighted_median_table),
        cmocka_unit_test(test_weighted_median_random),
        cmocka_unit_test(test_waterfill_shares),
        cmocka_unit_test(test_screen_bounds),
        cmocka_unit_test(test_median_of_medians),
        cmocka_unit_test(test_adjustment),
        cmocka_unit_test(test_value_rounding),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_grade_errors),
        cmocka_unit_test(test_grade_defaults_and_hash),
        cmocka_unit_test(test_depends_from),
        cmocka_unit_test(test_gpu_names_from_csv),
        cmocka_unit_test(test_build_fixture),
        cmocka_unit_test(test_manipulation_cost),
    };
    return cmocka_run_group_tests_name("index", tests, NULL, NULL);
}
