/* tests/test_evaluate.c -- the grade lab (index/evaluate.c) at library level.
 *
 * Markets are stored through the store API.  Every expected number was
 * computed by hand from the methodology (the fixes and leave-one-out moves
 * are worked out in the comments) and the statistics checked with
 * /usr/bin/python3 + numpy (np.diff(np.log(v)).std(ddof=1), np.corrcoef);
 * the inputs and results are literals here.
 *
 * Market M (2025-01-01..06, one H100-SXM on-demand offer/trade book):
 *   offers on days 1,2,3,5,6: A 2.40 and 2.44 (median 2.42), B 2.50,
 *     C 2.60, D 3.00 -> median of provider medians 2.55; without A or B
 *     2.60, without C or D 2.50.  a = 1 throughout (< 5 qualifying days).
 *   day 1 trades A 2.00 x600, B 2.10 x300, C 2.20 x100 (1000 h, 3 prov,
 *     cap 1/3: equal weights) -> 2.1000; top 0.6, HHI .36+.09+.01 = .46.
 *     Leave out A: 400 h -> offers w/o A 2.60 (move .50); B: 2.60 (.50);
 *     C: 2.50 (.40); D: trades unchanged (0).  Max .50 (A and B tie: A).
 *   day 2 trades A 2.00, B 2.20, C 2.40, D 2.60, 1000 h each (cap .30 not
 *     reached): exactly half at 2.20 -> (2.20+2.40)/2 = 2.3000; top .25,
 *     HHI .25.  Leave out any one: 3 equal providers -> 2.40 or 2.20 (.10).
 *   day 3 offers only -> 2.5500; counts A2 B1 C1 D1: top .4, HHI .28.
 *     Leave out any one: 2.60 or 2.50 (.05).
 *   day 4 nothing -> carried 2.5500.
 *   day 5 trades A 2.80 x2000, B 2.90 x500, C 3.00 x500 -> capped equal
 *     -> 2.9000; top 2/3, HHI 4/9+1/36+1/36 = .5.  Leave out A: 1000 h
 *     but 2 providers -> offers 2.60 (.30); B: 2.60 (.30); C: 2.50 (.40).
 *   day 6 trades A 2.70 x400, 2.72 x400, 27.00 x400 (fat finger: > 3 x
 *     A's median 2.72, excluded), B 2.75 x500, C 2.80 x500 -> A capped to
 *     1/3, cumulative 1/6, 1/3, 2/3 -> 2.7500; top 8/18, HHI (8/18)^2 +
 *     2 (5/18)^2 = 114/324.  Leave out A or B: 2.60 (.15); C: 2.50 (.25).
 *   Grade G2 = the same with min_providers 4: day 1 offers 2.55 (one
 *     provider less: nothing qualifies and no previous value -> lost);
 *     day 2 trades 2.30 (without any: carried 2.55, .25); day 3 offers
 *     2.55 (without any: carried 2.30, .25); day 4 carried; days 5, 6
 *     offers 2.55 (without any: carried 2.55, 0).
 */
#include "tests/testutil.h"
#include "store/batches.h"
#include "store/grades.h"
#include "store/obs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef struct mobs {
    int kind;
    const char *prov;
    const char *gpu;
    int term;
    int dom;
    int minute;
    const char *id;
    int64_t price_micro;
    int64_t qty_h;      /* trades: GPU-hours */
} mobs;

static void put_obs(store *st, int64_t batch, const mobs *m)
{
    gpi_obs o;
    memset(&o, 0, sizeof o);
    o.kind = m->kind;
    o.scope = GPI_SCOPE_VM;
    o.tier = GPI_TIER_UNRATED;
    o.term = m->term;
    o.status = GPI_STATUS_OK;
    o.unit = GPI_UNIT_GPU_HOUR;
    o.observed_at = (int64_t)gpi_days_from_civil(2025, 1, m->dom) * 86400 + 9 * 3600 +
                    m->minute * 60;
    o.day = gpi_day_of_time(o.observed_at);
    o.key_hash = gpi_fnv1a64(m->id, strlen(m->id), GPI_FNV_SEED);
    o.price_micro = m->price_micro;
    o.quantity_micro = m->kind == GPI_TRADE ? m->qty_h * 1000000 : -1;
    o.gpu_count = 1;
    o.gpu = m->gpu;
    o.provider = o.group = m->prov;
    o.segment = "neocloud";
    o.region = "us-east";
    o.source = "test";
    o.id = o.ident = m->id;
    o.raw_gpu = m->gpu;
    o.raw_provider = m->prov;
    o.raw_price = "x";
    o.currency = "USD";
    store_put_result res;
    gpi_diag d = {{0}};
    if (store_obs_put(st, batch, &o, &res, &d) != GPI_OK || res != STORE_PUT_STORED)
        fail_msg("storing %s failed: %s (res %d)", m->id, d.msg, (int)res);
}

static void put_batch(store *st, const char *sha, int64_t ingested_at, const mobs *v, size_t n)
{
    store_batch_info info = {.path = "test.csv", .sha256 = sha, .source = "test",
                             .tables_sha256 = "tables", .ingested_at = ingested_at,
                             .n_bytes = -1};
    int64_t b;
    gpi_diag d = {{0}};
    if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
    for (size_t i = 0; i < n; i++) put_obs(st, b, &v[i]);
    store_batch_counts c = {0, 0, 0, 0};
    if (store_batch_commit(st, b, &c, ingested_at, &d) != GPI_OK) fail_msg("%s", d.msg);
}

static store *fresh_store(void)
{
    char *dir = tu_mkdtemp("evaluate");
    char path[4096];
    snprintf(path, sizeof path, "%s/t.db", dir);
    free(dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    return st;
}

static idx_grades *grades(const char *json)
{
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse(json, "test", NULL, 0, &gs, &d) != GPI_OK) fail_msg("%s", d.msg);
    return gs;
}

#define H100 "H100-SXM-80GB"
#define A100 "A100-SXM-80GB"
#define OD GPI_TERM_ON_DEMAND
#define T GPI_TRADE
#define O GPI_OFFER

static void market_m(store *st)
{
    static const mobs trades[] = {
        {T, "A", H100, OD, 1, 0, "t1a", 2000000, 600}, {T, "B", H100, OD, 1, 0, "t1b", 2100000, 300},
        {T, "C", H100, OD, 1, 0, "t1c", 2200000, 100}, {T, "A", H100, OD, 2, 0, "t2a", 2000000, 1000},
        {T, "B", H100, OD, 2, 0, "t2b", 2200000, 1000}, {T, "C", H100, OD, 2, 0, "t2c", 2400000, 1000},
        {T, "D", H100, OD, 2, 0, "t2d", 2600000, 1000}, {T, "A", H100, OD, 5, 0, "t5a", 2800000, 2000},
        {T, "B", H100, OD, 5, 0, "t5b", 2900000, 500}, {T, "C", H100, OD, 5, 0, "t5c", 3000000, 500},
        {T, "A", H100, OD, 6, 0, "t6a", 2700000, 400}, {T, "A", H100, OD, 6, 1, "t6b", 2720000, 400},
        {T, "A", H100, OD, 6, 2, "t6c", 27000000, 400}, {T, "B", H100, OD, 6, 0, "t6d", 2750000, 500},
        {T, "C", H100, OD, 6, 0, "t6e", 2800000, 500},
    };
    static const int offer_days[] = {1, 2, 3, 5, 6};
    static const struct { const char *prov, *id; int64_t price; } offers[] = {
        {"A", "oa1", 2400000}, {"A", "oa2", 2440000}, {"B", "ob", 2500000},
        {"C", "oc", 2600000}, {"D", "od", 3000000},
    };
    mobs v[N(trades) + N(offer_days) * N(offers)];
    char ids[N(offer_days) * N(offers)][16];
    size_t n = 0;
    for (size_t i = 0; i < N(trades); i++) v[n++] = trades[i];
    for (size_t k = 0; k < N(offer_days); k++)
        for (size_t j = 0; j < N(offers); j++) {
            char *id = ids[k * N(offers) + j];
            snprintf(id, 16, "%s-%d", offers[j].id, offer_days[k]);
            v[n++] = (mobs){O, offers[j].prov, H100, OD, offer_days[k], 180, id,
                            offers[j].price, 0};
        }
    put_batch(st, "sha-m", 1000, v, n);
}

static const char grades_m[] =
    "{\"grades\": [{\"id\": \"G\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\"},"
    " {\"id\": \"G2\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\","
    " \"min_providers\": 4}]}";

typedef struct want_grade {
    const char *id;
    long level[4];
    double mean_prov, top, top_t, top_o, hhi, hhi_t, hhi_o;
    long n_changes;
    double vol_d, vol_a;
    long loo_days, loo_lost;
    double loo_max_abs, loo_mean_abs, loo_max_rel, loo_mean_rel;
    int max_dom;
    const char *max_prov;
    int64_t max_from_e4, max_to_e4;
} want_grade;

static void check_grade(const idx_grade_eval *g, const want_grade *w, long days)
{
    char what[128];
    assert_string_equal(g->id, w->id);
    for (int l = 0; l < 4; l++) {
        assert_int_equal(g->n_level[l], w->level[l]);
        snprintf(what, sizeof what, "%s share_level[%d]", w->id, l);
        tu_assert_close(g->share_level[l], (double)w->level[l] / (double)days, 1e-12, what);
    }
    const struct { double got, want; const char *name; } nums[] = {
        {g->mean_providers, w->mean_prov, "mean_providers"},
        {g->top_share, w->top, "top_share"},
        {g->top_share_trades, w->top_t, "top_share_trades"},
        {g->top_share_offers, w->top_o, "top_share_offers"},
        {g->hhi, w->hhi, "hhi"},
        {g->hhi_trades, w->hhi_t, "hhi_trades"},
        {g->hhi_offers, w->hhi_o, "hhi_offers"},
        {g->vol_daily, w->vol_d, "vol_daily"},
        {g->vol_annual, w->vol_a, "vol_annual"},
        {g->loo_max_abs, w->loo_max_abs, "loo_max_abs"},
        {g->loo_mean_abs, w->loo_mean_abs, "loo_mean_abs"},
        {g->loo_max_rel, w->loo_max_rel, "loo_max_rel"},
        {g->loo_mean_rel, w->loo_mean_rel, "loo_mean_rel"},
    };
    for (size_t i = 0; i < N(nums); i++) {
        snprintf(what, sizeof what, "%s %s", w->id, nums[i].name);
        if (isnan(nums[i].want)) {
            if (!isnan(nums[i].got)) fail_msg("%s: got %.17g, want NaN", what, nums[i].got);
        } else {
            tu_assert_close(nums[i].got, nums[i].want, 1e-9, what);
        }
    }
    assert_int_equal(g->n_changes, w->n_changes);
    assert_int_equal(g->loo_days, w->loo_days);
    assert_int_equal(g->loo_lost, w->loo_lost);
    if (w->max_dom) {
        assert_int_equal(g->loo_max_day, gpi_days_from_civil(2025, 1, w->max_dom));
        assert_string_equal(g->loo_max_provider, w->max_prov);
        assert_int_equal(g->loo_max_from_e4, w->max_from_e4);
        assert_int_equal(g->loo_max_to_e4, w->max_to_e4);
    } else {
        assert_int_equal(g->loo_max_day, INT32_MIN);
    }
}

static void test_hand_market(void **state)
{
    (void)state;
    store *st = fresh_store();
    market_m(st);
    idx_grades *gs = grades(grades_m);
    idx_evaluation *ev = NULL;
    gpi_diag d = {{0}};
    int32_t d1 = gpi_days_from_civil(2025, 1, 1);
    if (idx_evaluate(st, gs, d1, d1 + 5, 5000, 1, &ev, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(ev->days, 6);
    assert_int_equal(ev->n, 2);
    /* values G 2.10 2.30 2.55 2.55 2.90 2.75; G2 2.55 2.30 2.55 2.55 2.55 2.55 */
    static const want_grade want[] = {
        {"G", {4, 1, 1, 0}, 17.0 / 6, (0.6 + 0.25 + 2.0 / 3 + 8.0 / 18 + 0.4) / 5,
         (0.6 + 0.25 + 2.0 / 3 + 8.0 / 18) / 4, 0.4,
         (0.46 + 0.25 + 0.5 + 114.0 / 324 + 0.28) / 5, (0.46 + 0.25 + 0.5 + 114.0 / 324) / 4,
         0.28, 5, 0.07704259632198034, 1.471896736028564, 5, 0, 0.50,
         (0.50 + 0.10 + 0.05 + 0.40 + 0.25) / 5, 0.50 / 2.10, 0.10600429349878156, 1, "A",
         21000, 26000},
        {"G2", {1, 4, 1, 0}, 20.0 / 6, (0.25 + 4 * 0.4) / 5, 0.25, 0.4, (0.25 + 4 * 0.28) / 5,
         0.25, 0.28, 5, 0.07296227315348634, 1.3939422713510208, 4, 1, 0.25, 0.125,
         0.25 / 2.30, 0.051683716965046894, 2, "A", 23000, 25500},
    };
    for (size_t i = 0; i < N(want); i++) check_grade(&ev->g[i], &want[i], 6);
    /* 5 common change days: below the minimum of 10 */
    for (size_t k = 0; k < 4; k++) {
        assert_int_equal(ev->corr_n[k], 5);
        assert_true(isnan(ev->corr[k]));
    }
    /* nothing was built or registered */
    int exists = 1;
    assert_int_equal(store_grade_exists(st, "G", &exists, &d), GPI_OK);
    assert_int_equal(exists, 0);
    idx_evaluation_free(ev);
    idx_grades_free(gs);
    store_close(st);
}

/* The first days of a range depend on the days before it (carry): day 4
 * alone is carried 2.5500 from day 3; days 4..6 give 2 changes,
 * ln(2.90/2.55) and ln(2.75/2.90). */
static void test_range_start_uses_earlier_days(void **state)
{
    (void)state;
    store *st = fresh_store();
    market_m(st);
    idx_grades *gs = grades(grades_m);
    idx_evaluation *ev = NULL;
    gpi_diag d = {{0}};
    int32_t d4 = gpi_days_from_civil(2025, 1, 4);
    if (idx_evaluate(st, gs, d4, d4 + 2, 5000, 1, &ev, &d) != GPI_OK) fail_msg("%s", d.msg);
    const idx_grade_eval *g = &ev->g[0];
    assert_int_equal(g->n_level[GPI_LEVEL_CARRIED], 1);
    assert_int_equal(g->n_level[GPI_LEVEL_TRADES], 2);
    assert_int_equal(g->n_changes, 2);
    /* sd of {ln(2.9/2.55), ln(2.75/2.9)} = |difference| / sqrt 2 */
    double c1 = log(2.90 / 2.55), c2 = log(2.75 / 2.90);
    tu_assert_close(g->vol_daily, fabs(c1 - c2) / sqrt(2.0), 1e-12, "vol_daily");
    tu_assert_close(g->vol_daily, 0.1285005376635605, 1e-12, "vol_daily (numpy)");
    idx_evaluation_free(ev);
    /* the as-of cut-off: ingested at 1000, so a cut-off at 999 sees nothing */
    if (idx_evaluate(st, gs, d4 - 3, d4 + 2, 999, 1, &ev, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(ev->g[0].n_level[GPI_LEVEL_SUSPENDED], 6);
    assert_int_equal(ev->g[0].n_changes, 0);
    assert_true(isnan(ev->g[0].vol_daily));
    assert_true(isnan(ev->g[0].hhi));
    assert_true(isnan(ev->g[0].loo_max_rel));
    assert_int_equal(ev->g[0].loo_days, 0);
    idx_evaluation_free(ev);
    idx_grades_free(gs);
    store_close(st);
}

/* Market K (days 1..12): per grade and day three providers trade 400 h
 * each at m - 0.10, m, m + 0.10, so the value is m (equal capped weights).
 * H (H100 on-demand) and A (A100 on-demand) trade every day; S (H100
 * spot, max_carry_days 0) skips day 6, which is suspended and breaks its
 * changes: 9 changes, fewer than 10 common days with anyone. */
static const int64_t k_h[12] = {2000000, 2100000, 2050000, 2200000, 2150000, 2300000,
                                2250000, 2400000, 2350000, 2300000, 2450000, 2500000};
static const int64_t k_a[12] = {1200000, 1250000, 1220000, 1300000, 1280000, 1270000,
                                1350000, 1400000, 1360000, 1420000, 1450000, 1440000};
static const int64_t k_s[12] = {1500000, 1520000, 1490000, 1550000, 1600000, 0,
                                1580000, 1620000, 1610000, 1650000, 1700000, 1720000};

static void market_k(store *st)
{
    static mobs v[3 * 12 * 3];
    static char ids[3 * 12 * 3][24];
    const int64_t *m[3] = {k_h, k_a, k_s};
    const char *gpu[3] = {H100, A100, H100};
    const int term[3] = {OD, OD, GPI_TERM_SPOT};
    const char *prov[3] = {"P1", "P2", "P3"};
    size_t n = 0;
    for (int g = 0; g < 3; g++)
        for (int day = 1; day <= 12; day++) {
            if (m[g][day - 1] == 0) continue;
            for (int p = 0; p < 3; p++) {
                snprintf(ids[n], sizeof ids[n], "k%d-%d-%d", g, day, p);
                v[n] = (mobs){T, prov[p], gpu[g], term[g], day, 0, ids[n],
                              m[g][day - 1] + (p - 1) * 100000, 400};
                n++;
            }
        }
    put_batch(st, "sha-k", 1000, v, n);
}

static void test_volatility_and_correlation(void **state)
{
    (void)state;
    store *st = fresh_store();
    market_k(st);
    idx_grades *gs = grades(
        "{\"grades\": ["
        "{\"id\": \"H\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\"},"
        "{\"id\": \"A\", \"gpu\": [\"A100-SXM-80GB\"], \"min_tier\": \"unrated\"},"
        "{\"id\": \"S\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\","
        " \"term\": \"spot\", \"max_carry_days\": 0}]}");
    idx_evaluation *ev = NULL;
    gpi_diag d = {{0}};
    int32_t d1 = gpi_days_from_civil(2025, 1, 1);
    if (idx_evaluate(st, gs, d1, d1 + 11, 5000, 1, &ev, &d) != GPI_OK) fail_msg("%s", d.msg);
    static const struct {
        long trades, suspended, n_changes;
        double vol_d, vol_a;
    } want[3] = {
        {12, 0, 11, 0.04295578628331545, 0.8206691446341352},
        {12, 0, 11, 0.03437135831640022, 0.6566638786074248},
        {11, 1, 9, 0.019208504332806173, 0.019208504332806173 * 19.1049731745428},
    };
    for (int g = 0; g < 3; g++) {
        const idx_grade_eval *e = &ev->g[g];
        assert_int_equal(e->n_level[GPI_LEVEL_TRADES], want[g].trades);
        assert_int_equal(e->n_level[GPI_LEVEL_SUSPENDED], want[g].suspended);
        assert_int_equal(e->n_changes, want[g].n_changes);
        tu_assert_close(e->vol_daily, want[g].vol_d, 1e-9, "vol_daily");
        tu_assert_close(e->vol_annual, want[g].vol_a, 1e-9, "vol_annual");
        /* equal volumes: top share 1/3, HHI 1/3; any provider out leaves 2:
         * nothing qualifies -> carried (H, A: the previous value) */
        tu_assert_close(e->top_share, 1.0 / 3, 1e-12, "top_share");
        tu_assert_close(e->hhi, 1.0 / 3, 1e-12, "hhi");
    }
    /* H: without any provider a day carries the previous value (day 1 has
     * none: lost), so each move is |m_d - m_{d-1}|: largest .15, largest
     * relative .15 / 2.20 on day 4 (three-way tie: P1); mean of the 11
     * relative moves (numpy) 0.03978425028715868.  S: nothing is carried
     * (max_carry_days 0), so every day is lost. */
    const idx_grade_eval *h = &ev->g[0], *s = &ev->g[2];
    assert_int_equal(h->loo_days, 11);
    assert_int_equal(h->loo_lost, 1);
    tu_assert_close(h->loo_max_abs, 0.15, 1e-12, "H loo_max_abs");
    tu_assert_close(h->loo_max_rel, 0.15 / 2.20, 1e-12, "H loo_max_rel");
    tu_assert_close(h->loo_mean_rel, 0.03978425028715868, 1e-9, "H loo_mean_rel");
    assert_int_equal(h->loo_max_day, d1 + 3);
    assert_string_equal(h->loo_max_provider, "P1");
    assert_int_equal(h->loo_max_from_e4, 22000);
    assert_int_equal(h->loo_max_to_e4, 20500);
    assert_int_equal(s->loo_days, 0);
    assert_int_equal(s->loo_lost, 11);
    assert_true(isnan(s->loo_max_abs) && isnan(s->loo_mean_rel));
    /* np.corrcoef of the log changes of H and A: 0.3426162762625657 */
    static const struct { int a, b; long n; double r; } corr[] = {
        {0, 0, 11, 1.0}, {0, 1, 11, 0.3426162762625657}, {1, 0, 11, 0.3426162762625657},
        {1, 1, 11, 1.0}, {0, 2, 9, NAN}, {2, 1, 9, NAN}, {2, 2, 9, NAN},
    };
    for (size_t i = 0; i < N(corr); i++) {
        size_t k = (size_t)corr[i].a * 3 + (size_t)corr[i].b;
        assert_int_equal(ev->corr_n[k], corr[i].n);
        if (isnan(corr[i].r))
            assert_true(isnan(ev->corr[k]));
        else
            tu_assert_close(ev->corr[k], corr[i].r, 1e-9, "correlation");
    }
    idx_evaluation_free(ev);
    idx_grades_free(gs);
    store_close(st);
}

static void test_argument_errors(void **state)
{
    (void)state;
    store *st = fresh_store();
    idx_grades *gs = grades(grades_m);
    idx_grades none = {.n = 0, .g = NULL};
    int32_t d1 = gpi_days_from_civil(2025, 1, 1);
    static const struct {
        int no_grades;
        int32_t from_off, to_off;
        gpi_status rc;
        const char *msg;
    } cases[] = {
        {0, 1, 0, GPI_EUSAGE, "grades evaluate: --from is after --to"},
        {0, 0, 36600, GPI_EUSAGE, "grades evaluate: range of more than 36600 days"},
        {1, 0, 0, GPI_EINPUT, "grades evaluate: no grades to evaluate"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        idx_evaluation *ev = (idx_evaluation *)1;
        gpi_diag d = {{0}};
        gpi_status rc = idx_evaluate(st, cases[i].no_grades ? &none : gs, d1 + cases[i].from_off,
                                     d1 + cases[i].to_off, 5000, 1, &ev, &d);
        assert_int_equal(rc, cases[i].rc);
        assert_string_equal(d.msg, cases[i].msg);
        assert_null(ev);
    }
    /* the largest range allowed works (an empty store: all suspended) */
    idx_evaluation *ev = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(idx_evaluate(st, gs, d1, d1 + 99, 5000, 1, &ev, &d), GPI_OK);
    assert_int_equal(ev->g[1].n_level[GPI_LEVEL_SUSPENDED], 100);
    tu_assert_close(ev->g[1].mean_providers, 0.0, 0, "mean_providers");
    idx_evaluation_free(ev);
    idx_evaluation_free(NULL);
    idx_grades_free(gs);
    store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_market),
        cmocka_unit_test(test_range_start_uses_earlier_days),
        cmocka_unit_test(test_volatility_and_correlation),
        cmocka_unit_test(test_argument_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
