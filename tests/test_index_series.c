/* tests/test_index_series.c -- index/series.c (values of grades nobody
 * built) and the grade filters it was added for ("skus", instance types;
 * "exclude_providers"; "exclude": index/grade_exclude.c), and how much of
 * a fix one participant's quotes supply (index/own.c).
 *
 * Market (2025-01-01 .. 2025-03-31, H100-SXM-80GB on-demand, vm, stored
 * through the store API; day index k from Jan 1):
 *   providers P1..P4 (each its own group), region r1, offers every day:
 *     sku a.big   at 2.00 + 0.10 p + 0.01 (k mod 5) + 0.003 (k / 9)
 *     sku b.small at 1.00 + 0.05 p + 0.002 (k mod 7)
 *   P1 also a.big in region r2 at 2.50 + 0.004 (k mod 3);
 *   trades on days with k mod 7 = 3: P1, P2, P3 400 GPU-h each of a.big
 *   at its offer price - 0.02 (1200 GPU-h from 3 providers: trades
 *   level); P4 skips March.
 * By hand, Jan 1 (k = 0, offers only, adjustment 1 with < 5 trades days):
 *   a.big only: P1 median(2.10, 2.50) = 2.30, P2 2.20, P3 2.30, P4 2.40
 *     -> median of provider medians (2.30 + 2.30) / 2 = 2.3000;
 *   every provider but P1: medians of (a.big, b.small): P2 (2.20 + 1.10)/2
 *     = 1.65, P3 1.725, P4 1.80 -> 1.7250;
 *   a.big in r2, min_providers 1: 2.5000.
 */
#include "tests/testutil.h"
#include "store/batches.h"
#include "store/grades.h"
#include "store/index_values.h"
#include "store/obs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"

#define H100 "H100-SXM-80GB"

static void put(store *st, int64_t b, int kind, const char *prov, const char *sku,
                const char *region, int k, const char *id, int64_t price_micro, int64_t qty_h)
{
    gpi_obs o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.scope = GPI_SCOPE_VM;
    o.tier = GPI_TIER_UNRATED;
    o.term = GPI_TERM_ON_DEMAND;
    o.status = GPI_STATUS_OK;
    o.unit = GPI_UNIT_GPU_HOUR;
    o.observed_at = ((int64_t)gpi_days_from_civil(2025, 1, 1) + k) * 86400 + 9 * 3600;
    o.day = gpi_day_of_time(o.observed_at);
    o.key_hash = gpi_fnv1a64(id, strlen(id), GPI_FNV_SEED);
    o.price_micro = price_micro;
    o.quantity_micro = kind == GPI_TRADE ? qty_h * 1000000 : -1;
    o.gpu_count = 1;
    o.gpu = H100;
    o.provider = o.group = prov;
    o.segment = "neocloud";
    o.region = region;
    o.source = "test";
    o.id = o.ident = id;
    o.raw_gpu = H100;
    o.raw_provider = prov;
    o.raw_price = "x";
    o.currency = "USD";
    o.sku = sku;
    store_put_result res;
    gpi_diag d = {{0}};
    if (store_obs_put(st, b, &o, &res, &d) != GPI_OK || res != STORE_PUT_STORED)
        fail_msg("storing %s failed: %s (res %d)", id, d.msg, (int)res);
}

#define DAYS 90

static store *market(void)
{
    char *dir = tu_mkdtemp("index-series");
    char path[4096];
    snprintf(path, sizeof path, "%s/t.db", dir);
    free(dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    store_batch_info info = {.path = "m.csv", .sha256 = "sha-m", .source = "test",
                             .tables_sha256 = "tables", .ingested_at = 1000, .n_bytes = -1};
    int64_t b;
    if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
    char id[64];
    for (int k = 0; k < DAYS; k++) {
        for (int p = 1; p <= 4; p++) {
            char prov[8];
            snprintf(prov, sizeof prov, "P%d", p);
            int64_t big = 2000000 + 100000 * p + 10000 * (k % 5) + 3000 * (k / 9);
            snprintf(id, sizeof id, "o-%s-a", prov);
            put(st, b, GPI_OFFER, prov, "a.big", "r1", k, id, big, 0);
            snprintf(id, sizeof id, "o-%s-b", prov);
            put(st, b, GPI_OFFER, prov, "b.small", "r1", k, id, 1000000 + 50000 * p + 2000 * (k % 7),
                0);
            if (k % 7 == 3 && (p < 4 || k < 59)) {
                snprintf(id, sizeof id, "t-%s-%d", prov, k);
                put(st, b, GPI_TRADE, prov, "a.big", "r1", k, id, big - 20000, 400);
            }
        }
        put(st, b, GPI_OFFER, "P1", "a.big", "r2", k, "o-P1-a-r2", 2500000 + 4000 * (k % 3), 0);
    }
    store_batch_counts c = {0, 0, 0, 0};
    if (store_batch_commit(st, b, &c, 1000, &d) != GPI_OK) fail_msg("%s", d.msg);
    return st;
}

static const char grades_json[] =
    "{\"grades\": ["
    "{\"id\": \"ALL.V1\", \"gpu\": [\"H100-SXM-80GB\"]},"
    "{\"id\": \"ALL.V2\", \"gpu\": [\"H100-SXM-80GB\"], \"method\": \"v2\"},"
    "{\"id\": \"BIG.V2\", \"gpu\": [\"H100-SXM-80GB\"], \"method\": \"v2\", \"skus\": [\"a.big\"]},"
    "{\"id\": \"BIG.V1\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"A.BIG\"]},"
    "{\"id\": \"NOT-P1.V2\", \"gpu\": [\"H100-SXM-80GB\"], \"method\": \"v2\","
    " \"exclude_providers\": [\"P1\"]},"
    "{\"id\": \"NOT-P1.V1\", \"gpu\": [\"H100-SXM-80GB\"], \"exclude_providers\": \"p1\"},"
    "{\"id\": \"BIG.R2\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.*\"], \"regions\": [\"r2\"],"
    " \"min_providers\": 1}]}";

static idx_grades *grades(void)
{
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse(grades_json, "g.json", NULL, 0, &gs, &d) != GPI_OK) fail_msg("%s", d.msg);
    return gs;
}

/* Jan 1 by hand (header), and a carried/suspended-free range. */
static void test_filters_by_hand(void **state)
{
    (void)state;
    store *st = market();
    idx_grades *gs = grades();
    idx_series *s = NULL;
    gpi_diag d = {{0}};
    int32_t jan1 = gpi_days_from_civil(2025, 1, 1);
    assert_int_equal(idx_series_compute(st, gs, jan1, jan1 + 1, 2000, &s, &d), GPI_OK);
    assert_int_equal(s->days, 2);
    assert_int_equal(s->n, 7);
    static const struct {
        size_t gi;
        int64_t e4;
        long providers;
    } want[] = {
        {3, 23000, 4}, /* a.big only (sku matched ignoring case) */
        {5, 17250, 3}, /* every provider but P1 ("p1": case ignored) */
        {6, 25000, 1}, /* a.* in r2 */
        {2, 23000, 4}, /* v2 starts on its cross-section */
        {4, 17250, 3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const gpi_index_day *v = &s->v[want[i].gi * s->days];
        if (v[0].day != jan1 || v[0].level != GPI_LEVEL_OFFERS || v[0].value_e4 != want[i].e4)
            fail_msg("%s: day %d level %d value %lld, want offers %lld", gs->g[want[i].gi].id,
                     (int)v[0].day, v[0].level, (long long)v[0].value_e4,
                     (long long)want[i].e4);
        assert_int_equal(s->g[want[i].gi].max_providers, want[i].providers);
    }
    idx_series_free(s);
    /* the definitions: the new lists are written only when given, so a
     * grade without them keeps its hash; with them it is another grade */
    assert_null(strstr(gs->g[0].canon, "skus"));
    assert_null(strstr(gs->g[0].canon, "exclude_providers"));
    assert_non_null(strstr(gs->g[3].canon, "\"skus\":[\"A.BIG\"]"));
    assert_non_null(strstr(gs->g[5].canon, "\"exclude_providers\":[\"p1\"]"));
    idx_grades *again = NULL;
    assert_int_equal(idx_grades_parse("{\"grades\": [{\"id\": \"ALL.V1\", \"gpu\": "
                                      "[\"H100-SXM-80GB\"], \"skus\": \"*\"}]}",
                                      "g2.json", NULL, 0, &again, &d),
                     GPI_OK);
    assert_string_equal(again->g[0].hash, gs->g[0].hash); /* "*" = every sku */
    idx_grades_free(again);
    static const struct {
        const char *json, *msg;
    } bad[] = {
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"skus\": []}]}",
         "g3.json: grades[0].skus: empty list (got \"[]\")"},
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"exclude_providers\": [\"*\"]}]}",
         "g3.json: grades[0].exclude_providers: would exclude every provider (got \"*\")"},
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"skus\": [3]}]}",
         "g3.json: grades[0].skus: entries must be strings of 1 to 64 characters (got \"3\")"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        idx_grades *x = NULL;
        assert_int_equal(idx_grades_parse(bad[i].json, "g3.json", NULL, 0, &x, &d), GPI_EINPUT);
        assert_string_equal(d.msg, bad[i].msg);
    }
    idx_grades_free(gs);
    store_close(st);
}

/* Compares the series of every grade with what the store holds for
 * [from, to]; returns the trades days and the v2 days with a value. */
static void same_as_stored(store *st, const idx_grades *gs, const idx_series *s, long *trades,
                           long *v2)
{
    gpi_diag d = {{0}};
    for (size_t gi = 0; gi < gs->n; gi++) {
        gpi_index_day *b = NULL;
        size_t nb = 0;
        assert_int_equal(store_index_series(st, gs->g[gi].id, s->from, s->to, 1, &b, &nb, &d),
                         GPI_OK);
        assert_int_equal(nb, s->days);
        for (size_t k = 0; k < nb; k++) {
            const gpi_index_day *v = &s->v[gi * s->days + k];
            if (v->day != b[k].day || v->level != b[k].level ||
                (v->level != GPI_LEVEL_SUSPENDED && v->value_e4 != b[k].value_e4))
                fail_msg("%s day %zu: series (%d, %lld), build (%d, %lld)", gs->g[gi].id, k,
                         v->level, (long long)v->value_e4, b[k].level, (long long)b[k].value_e4);
            *trades += v->level == GPI_LEVEL_TRADES;
            *v2 += gs->g[gi].method == 2 && v->level != GPI_LEVEL_SUSPENDED;
        }
        free(b);
    }
}

static void nothing_written(store *st, const idx_grades *gs)
{
    gpi_diag d = {{0}};
    for (size_t gi = 0; gi < gs->n; gi++) {
        int exists = 1;
        assert_int_equal(store_grade_exists(st, gs->g[gi].id, &exists, &d), GPI_OK);
        assert_int_equal(exists, 0);
    }
}

/* The values are exactly what `index build` stores for the same range at
 * the same cut-off, for v1 and v2 grades -- from the first observation,
 * and for a range in the middle (which replays the days before it as the
 * build does) -- and computing them writes nothing. */
static void test_series_equals_build(void **state)
{
    (void)state;
    gpi_diag d = {{0}};
    int32_t jan1 = gpi_days_from_civil(2025, 1, 1), to = jan1 + DAYS - 1;
    int32_t mid = gpi_days_from_civil(2025, 2, 10);
    idx_grades *gs = grades();
    for (int pass = 0; pass < 2; pass++) {
        int32_t from = pass ? mid : jan1;
        store *st = market();
        idx_series *s = NULL;
        assert_int_equal(idx_series_compute(st, gs, from, to, 2000, &s, &d), GPI_OK);
        nothing_written(st, gs);
        idx_build_stats bs;
        assert_int_equal(idx_build(st, gs, from, to, 2000, &bs, &d), GPI_OK);
        long trades_days = 0, v2_days = 0;
        same_as_stored(st, gs, s, &trades_days, &v2_days);
        /* the comparison covered trades days and chained values */
        assert_true(trades_days >= 10);
        assert_true(v2_days >= 3 * 45);
        /* the filtered grades differ from the wide one (the filters bite) */
        int differ = 0;
        for (size_t k = 0; k < s->days; k++)
            differ += s->v[k].value_e4 != s->v[3 * s->days + k].value_e4;
        assert_true(differ > 0);
        idx_series_free(s);
        store_close(st);
    }
    /* a range in the middle gives the days a range from the first
     * observation gives (the replay of the chain before it is exact) */
    {
        store *st = market();
        idx_series *a = NULL, *b = NULL;
        assert_int_equal(idx_series_compute(st, gs, jan1, to, 2000, &a, &d), GPI_OK);
        assert_int_equal(idx_series_compute(st, gs, mid, to, 2000, &b, &d), GPI_OK);
        size_t off = (size_t)(mid - jan1);
        for (size_t gi = 0; gi < gs->n; gi++)
            for (size_t k = 0; k < b->days; k++) {
                const gpi_index_day *x = &a->v[gi * a->days + off + k];
                const gpi_index_day *y = &b->v[gi * b->days + k];
                if (x->value_e4 != y->value_e4 || x->level != y->level)
                    fail_msg("%s day %zu: from %d gives %lld, from the start %lld", gs->g[gi].id,
                             k, (int)mid, (long long)y->value_e4, (long long)x->value_e4);
            }
        idx_series_free(a);
        idx_series_free(b);
        store_close(st);
    }
    /* misuse */
    store *st = market();
    idx_series *s = NULL;
    assert_int_equal(idx_series_compute(st, gs, to, mid, 2000, &s, &d), GPI_EUSAGE);
    assert_null(s);
    assert_int_equal(idx_series_compute(st, gs, jan1, jan1 + 40000, 2000, &s, &d), GPI_EUSAGE);
    assert_string_equal(d.msg, "index series: range of more than 36600 days");
    idx_grades_free(gs);
    store_close(st);
}

/* "exclude" (index/grade_exclude.c), Jan 1 by hand: a.big offers P1 r1
 * 2.10, P1 r2 2.50, P2 2.20, P3 2.30, P4 2.40.
 *   without P1's r2 quote (by provider and region, or by its id): P1 2.10,
 *     medians 2.10 2.20 2.30 2.40 -> 2.2500;
 *   without every a.big of P1 (ids "o-p1-a*", a glob, case ignored):
 *     2.20 2.30 2.40 -> 2.3000 (3 providers);
 *   an entry that matches nothing (P1 in r3) changes nothing: 2.3000 as
 *     BIG.V1.
 * The own quotes' share (index/own.c) of P1's r2 quote in BIG.V1 (its
 * twin leaves it out), Jan 1..4: P1's median is the mean of its two
 * offers, the r2 one own: P1's own part 1/2.  Jan 1 (k = 0): medians
 * 2.20, P1 2.30, P3 2.30, 2.40: both middle positions are 2.30, held by
 * P1 (1/2) and P3 -> 1/2.  Jan 2 (k = 1): P1 2.307, P3 2.310: P1 holds one
 * middle -> 1/4.  Jan 3: P1 2.314, P3 2.320 -> 1/4.  Jan 4 (k = 3): a
 * trades day, P1..P3 in r1 only -> 0.  Mean 1/4, half or more on 1 day,
 * any on 3 of 4.  BIG.R2 is P1's r2 quote alone: 1 every day.
 * And the quotes of a provider that is not the first, on both levels
 * (copies of BIG.V1 with twins leaving out P3's, or P2's, a.big quotes):
 *   P3: Jan 1 the two middle medians are 2.30, P1's and P3's: P3 holds
 *     both -> 1; Jan 2 2.307 (P1) and 2.31 (P3) -> 1/2; Jan 3 2.314 and
 *     2.32 -> 1/2; Jan 4, trades of P1..P4 at 2.11, 2.21, 2.31, 2.41, 400
 *     GPU-h each (no cap binds): the cumulative weight is exactly half
 *     at 2.21, so the value is the mean of 2.21 and 2.31, P3's part 1/2.
 *     Mean 5/8, half or more on 4 days, any on 4;
 *   P2: offers days 0 (2.20 is never a middle); Jan 4 P2's 2.21 is the
 *     lower of the two: 1/2.  Mean 1/8, half or more on 1 day, any on 1. */
static void test_exclude_and_own_shares(void **state)
{
    (void)state;
    store *st = market();
    static const char json[] =
        "{\"grades\": ["
        "{\"id\": \"BIG.V1\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"]},"
        "{\"id\": \"X.REGION\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"providers\": [\"P1\"], \"regions\": [\"r2\"]}]},"
        "{\"id\": \"X.ID\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"ids\": [\"o-P1-a-r2\"]}]},"
        "{\"id\": \"X.GLOB\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"ids\": [\"o-p1-a*\"]}]},"
        "{\"id\": \"X.NONE\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"providers\": [\"P1\"], \"regions\": [\"r3\"]}]},"
        "{\"id\": \"BIG.R2\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.*\"],"
        " \"regions\": [\"r2\"], \"min_providers\": 1},"
        "{\"id\": \"BIG.R2.X\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.*\"],"
        " \"regions\": [\"r2\"], \"min_providers\": 1,"
        " \"exclude\": [{\"ids\": [\"o-P1-a-r2\"], \"providers\": [\"P1\"]}]},"
        "{\"id\": \"BIG.V1B\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"]},"
        "{\"id\": \"X.P3\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"providers\": [\"P3\"], \"skus\": [\"a.big\"]}]},"
        "{\"id\": \"BIG.V1C\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"]},"
        "{\"id\": \"X.P2\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"providers\": [\"P2\"], \"skus\": [\"a.big\"]}]}]}";
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse(json, "g.json", NULL, 0, &gs, &d) != GPI_OK) fail_msg("%s", d.msg);
    int32_t jan1 = gpi_days_from_civil(2025, 1, 1);
    idx_series *s = NULL;
    assert_int_equal(idx_series_compute(st, gs, jan1, jan1 + 3, 2000, &s, &d), GPI_OK);
    static const int64_t want[6] = {23000, 22500, 22500, 23000, 23000, 25000};
    for (size_t gi = 0; gi < 6; gi++) {
        const gpi_index_day *v = &s->v[gi * s->days];
        if (v->level != GPI_LEVEL_OFFERS || v->value_e4 != want[gi])
            fail_msg("%s: level %d value %lld, want %lld", gs->g[gi].id, v->level,
                     (long long)v->value_e4, (long long)want[gi]);
    }
    assert_int_equal(s->g[6].n_level[GPI_LEVEL_SUSPENDED], 4); /* nothing left */
    idx_series_free(s);
    /* the definitions: written only when given, sorted, and read back */
    assert_null(strstr(gs->g[0].canon, "exclude"));
    assert_non_null(strstr(gs->g[1].canon, "\"exclude\":[{\"providers\":[\"P1\"],\"regions\":"
                                           "[\"r2\"]}]"));
    assert_non_null(strstr(gs->g[6].canon, "\"exclude\":[{\"ids\":[\"o-P1-a-r2\"],"
                                           "\"providers\":[\"P1\"]}]"));
    assert_true(gs->g[2].excl_ids && !gs->g[1].excl_ids);
    idx_grades *back = NULL;
    assert_int_equal(idx_grade_from_canon(gs->g[6].canon, "canon", &back, &d), GPI_OK);
    assert_string_equal(back->g[0].hash, gs->g[6].hash);
    idx_grades_free(back);
    /* own shares: BIG.V1 with X.REGION as its twin, BIG.R2 with BIG.R2.X */
    idx_own own[11];
    long twin[11] = {1, -1, -1, -1, -1, 6, -1, 8, -1, 10, -1};
    assert_int_equal(idx_own_shares(st, gs, twin, jan1, jan1 + 3, 2000, own, &d), GPI_OK);
    assert_int_equal(own[0].days, 4);
    tu_assert_close(own[0].share, 0.25, 1e-12, "BIG.V1 own share");
    assert_int_equal(own[0].median_days, 1);
    assert_int_equal(own[0].any_days, 3);
    assert_int_equal(own[5].days, 4);
    tu_assert_close(own[5].share, 1.0, 1e-12, "BIG.R2 own share");
    assert_int_equal(own[5].median_days, 4);
    assert_int_equal(own[1].days, 0); /* no twin: not measured */
    assert_int_equal(own[7].days, 4);
    tu_assert_close(own[7].share, 0.625, 1e-12, "P3's own share");
    assert_int_equal(own[7].median_days, 4);
    assert_int_equal(own[7].any_days, 4);
    assert_int_equal(own[9].days, 4);
    tu_assert_close(own[9].share, 0.125, 1e-12, "P2's own share (its trade)");
    assert_int_equal(own[9].median_days, 1);
    assert_int_equal(own[9].any_days, 1);
    static const struct {
        const char *json, *msg;
    } bad[] = {
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"exclude\": {}}]}",
         "g3.json: grades[0].exclude: not a list of objects (got \"{}\")"},
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"exclude\": [{}]}]}",
         "g3.json: grades[0].exclude[0]: not an object of providers, regions, skus or ids (got "
         "\"{}\")"},
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"exclude\": [{\"zones\": [\"a\"]}]}]}",
         "g3.json: grades[0].exclude[0].zones: unknown (providers, regions, skus or ids) (got "
         "\"zones\")"},
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"exclude\": [{\"ids\": [\"*\"]}]}]}",
         "g3.json: grades[0].exclude[0].ids: \"*\" would match everything (got \"*\")"},
        {"{\"grades\": [{\"id\": \"X\", \"gpu\": [\"T4\"], \"exclude\": [{\"ids\": \"a\"}, "
         "{\"ids\": \"b\"}, {\"ids\": \"c\"}, {\"ids\": \"d\"}, {\"ids\": \"e\"}]}]}",
         "g3.json: grades[0].exclude: more than 4 entries (got \"...\")"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        idx_grades *x = NULL;
        assert_int_equal(idx_grades_parse(bad[i].json, "g3.json", NULL, 0, &x, &d), GPI_EINPUT);
        if (strcmp(d.msg, bad[i].msg) != 0) fail_msg("got  %s\nwant %s", d.msg, bad[i].msg);
    }
    idx_grades_free(gs);
    store_close(st);
}

/* The own quotes' share on a trades day whose cumulative weight passes
 * the half inside one price (index/own.c, trades_share: no tie, the
 * share is the own part of the weight at the median price).  1 March
 * (k = 59, P4 skips March): trades of a.big by P1, P2, P3 at 2.138,
 * 2.238, 2.338, 400 GPU-h each (1/3 of the weight each, no cap binds):
 * the cumulative weight is 1/3 at 2.138 and 2/3 at 2.238, so the value
 * is P2's price alone -- P2's share 1, P3's 0.  Then a P4 trade at
 * P2's price, 400 GPU-h: 1/4 each, cumulative 1/4 at 2.138 and 3/4 at
 * 2.238, where P2 and P4 hold half of the weight each -- P2's share 1/2,
 * P4's 1/2, P3's 0. */
static void test_own_share_trades_median(void **state)
{
    (void)state;
    store *st = market();
    static const char json[] =
        "{\"grades\": ["
        "{\"id\": \"BIG.A\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"]},"
        "{\"id\": \"X.P2\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"providers\": [\"P2\"]}]},"
        "{\"id\": \"BIG.B\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"]},"
        "{\"id\": \"X.P3\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"providers\": [\"P3\"]}]},"
        "{\"id\": \"BIG.C\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"]},"
        "{\"id\": \"X.P4\", \"gpu\": [\"H100-SXM-80GB\"], \"skus\": [\"a.big\"],"
        " \"exclude\": [{\"providers\": [\"P4\"]}]}]}";
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse(json, "g.json", NULL, 0, &gs, &d) != GPI_OK) fail_msg("%s", d.msg);
    int32_t mar1 = gpi_days_from_civil(2025, 3, 1);
    long twin[6] = {1, -1, 3, -1, 5, -1};
    idx_own own[6];
    static const double want[2][3] = {{1.0, 0.0, 0.0}, {0.5, 0.0, 0.5}};
    for (int round = 0; round < 2; round++) {
        if (round == 1) { /* P4 trades at P2's price */
            store_batch_info info = {.path = "p4.csv", .sha256 = "sha-p4", .source = "test",
                                     .tables_sha256 = "tables", .ingested_at = 1500,
                                     .n_bytes = -1};
            int64_t b;
            if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
            put(st, b, GPI_TRADE, "P4", "a.big", "r1", 59, "t-P4-59", 2238000, 400);
            store_batch_counts c = {0, 0, 0, 0};
            if (store_batch_commit(st, b, &c, 1500, &d) != GPI_OK) fail_msg("%s", d.msg);
        }
        assert_int_equal(idx_own_shares(st, gs, twin, mar1, mar1, 2000, own, &d), GPI_OK);
        for (int k = 0; k < 3; k++) {
            const idx_own *o = &own[2 * k];
            assert_int_equal(o->days, 1);
            if (fabs(o->share - want[round][k]) > 1e-12)
                fail_msg("round %d, %s: share %.17g, want %g", round, gs->g[2 * k + 1].id,
                         o->share, want[round][k]);
            assert_int_equal(o->median_days, want[round][k] >= 0.5);
            assert_int_equal(o->any_days, want[round][k] > 0);
        }
    }
    idx_grades_free(gs);
    store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filters_by_hand),
        cmocka_unit_test(test_series_equals_build),
        cmocka_unit_test(test_exclude_and_own_shares),
        cmocka_unit_test(test_own_share_trades_median),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
