/* tests/test_index_v2.c -- methodology v2 (index/chain.c, METHODOLOGY.md §10).
 *
 * Markets are stored through the store API and built with idx_build, as
 * `index build` does; rows are read back with store_index_rows.
 *   - the worked example of METHODOLOGY §10.7, number by number (computed
 *     by hand there);
 *   - properties on generated markets (a deterministic generator below):
 *     a provider entering at any price moves nothing before the next
 *     rebalance; one leaving (prices flat) moves nothing; every price
 *     x1.10 from a day moves the value x1.10 to the tick there and keeps it
 *     there; a rebalance moves the value only by its relative and splice;
 *     churn without price changes moves nothing but rebalances;
 *   - building at once, day by day (the daily job) and in pieces with late
 *     data gives the same rows; a day's build resumes from the chain state
 *     the day before left only while it is current;
 *   - the constituents' band holds the cross-section inside [p25, p75].
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gpi.h"
#include "index/index.h"
#include "store/store.h"
#include "store/batches.h"
#include "store/index_values.h"
#include "store/obs.h"
#include "tests/testutil.h"

/* ---- storing observations ----------------------------------------------------- */

static int32_t day_of(int y, int m, int d)
{
    return gpi_days_from_civil(y, m, d);
}

static void put(store *st, int64_t batch, int kind, const char *prov, int32_t day, int hour,
                const char *ident, int64_t price_micro, int64_t qty_micro)
{
    gpi_obs o;
    memset(&o, 0, sizeof o);
    char id[96];
    snprintf(id, sizeof id, "%s-%s", kind == GPI_OFFER ? "o" : "t", ident);
    o.kind = kind;
    o.scope = GPI_SCOPE_VM;
    o.term = GPI_TERM_ON_DEMAND;
    o.unit = GPI_UNIT_GPU_HOUR;
    o.observed_at = (int64_t)day * 86400 + hour * 3600;
    o.day = day;
    o.key_hash = gpi_store_key(kind, gpi_identity_hash(kind, "v2", id));
    o.price_micro = price_micro;
    o.quantity_micro = qty_micro;
    o.gpu_count = 1;
    o.gpu = "H100-SXM-80GB";
    o.provider = o.group = prov;
    o.segment = "neocloud";
    o.region = "r";
    o.source = "v2";
    o.id = o.ident = id;
    o.raw_gpu = "H100";
    o.raw_provider = prov;
    o.raw_price = "x";
    o.currency = "USD";
    store_put_result res;
    gpi_diag d = {{0}};
    if (store_obs_put(st, batch, &o, &res, &d) != GPI_OK || res != STORE_PUT_STORED)
        fail_msg("storing %s on day %d: %s (res %d)", id, (int)day, d.msg, (int)res);
}

static int64_t batch(store *st, const char *sha, int64_t at)
{
    store_batch_info info = {.path = "m.csv", .sha256 = sha, .source = "v2",
                             .tables_sha256 = "t", .ingested_at = at};
    int64_t b;
    gpi_diag d = {{0}};
    if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
    return b;
}

static void commit(store *st, int64_t b, int64_t at)
{
    store_batch_counts c = {0, 0, 0, 0};
    gpi_diag d = {{0}};
    if (store_batch_commit(st, b, &c, at, &d) != GPI_OK) fail_msg("%s", d.msg);
}

static store *fresh(char **path)
{
    char *dir = tu_mkdtemp("index-v2");
    *path = malloc(4200);
    snprintf(*path, 4200, "%s/t.db", dir);
    free(dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(*path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    return st;
}

static idx_grades *grades(const char *json)
{
    idx_grades *g = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse(json, "g.json", NULL, 0, &g, &d) != GPI_OK) fail_msg("%s", d.msg);
    return g;
}

static void build(store *st, const idx_grades *g, int32_t from, int32_t to, int64_t as_of)
{
    idx_build_stats s;
    gpi_diag d = {{0}};
    if (idx_build(st, g, from, to, as_of, &s, &d) != GPI_OK) fail_msg("build: %s", d.msg);
}

/* ---- reading rows --------------------------------------------------------------- */

#define MAXROWS 400
typedef struct rows {
    store_index_row r[MAXROWS];
    size_t n;
} rows;

static int grab(const store_index_row *r, void *ud)
{
    rows *x = ud;
    if (x->n == MAXROWS) fail_msg("too many rows");
    x->r[x->n] = *r;
    x->r[x->n++].carried = NULL;
    return 0;
}

static rows *read_rows(store *st, const char *grade, int32_t from, int32_t to)
{
    rows *x = calloc(1, sizeof *x);
    gpi_diag d = {{0}};
    if (store_index_rows(st, grade, from, to, grab, x, &d) != GPI_OK) fail_msg("%s", d.msg);
    return x;
}

/* ---- the worked example (METHODOLOGY §10.7) ------------------------------------ */

static const char example_grade[] =
    "{\"grades\": [{\"id\": \"G\", \"gpu\": \"H100-SXM-80GB\", \"method\": \"v2\","
    " \"anchor_days\": 1}]}";

static void test_worked_example(void **state)
{
    (void)state;
    char *path;
    store *st = fresh(&path);
    int64_t b = batch(st, "ex", 1000);
    int32_t m1 = day_of(2025, 3, 1);
    /* 1 March: the anchor */
    put(st, b, GPI_OFFER, "A", m1, 10, "a1", 2000000, -1);
    put(st, b, GPI_OFFER, "A", m1, 10, "a2", 2200000, -1);
    put(st, b, GPI_OFFER, "B", m1, 10, "b1", 3000000, -1);
    put(st, b, GPI_OFFER, "C", m1, 10, "c1", 1500000, -1);
    /* 2 March: b1 +10 %, D enters */
    put(st, b, GPI_OFFER, "A", m1 + 1, 10, "a1", 2000000, -1);
    put(st, b, GPI_OFFER, "A", m1 + 1, 10, "a2", 2200000, -1);
    put(st, b, GPI_OFFER, "B", m1 + 1, 10, "b1", 3300000, -1);
    put(st, b, GPI_OFFER, "C", m1 + 1, 10, "c1", 1500000, -1);
    put(st, b, GPI_OFFER, "D", m1 + 1, 10, "d1", 1000000, -1);
    /* 3 March: A +10 % */
    put(st, b, GPI_OFFER, "A", m1 + 2, 10, "a1", 2200000, -1);
    put(st, b, GPI_OFFER, "A", m1 + 2, 10, "a2", 2420000, -1);
    put(st, b, GPI_OFFER, "B", m1 + 2, 10, "b1", 3300000, -1);
    put(st, b, GPI_OFFER, "C", m1 + 2, 10, "c1", 1500000, -1);
    put(st, b, GPI_OFFER, "D", m1 + 2, 10, "d1", 1000000, -1);
    /* 4 March: C gone */
    put(st, b, GPI_OFFER, "A", m1 + 3, 10, "a1", 2200000, -1);
    put(st, b, GPI_OFFER, "A", m1 + 3, 10, "a2", 2420000, -1);
    put(st, b, GPI_OFFER, "B", m1 + 3, 10, "b1", 3300000, -1);
    put(st, b, GPI_OFFER, "D", m1 + 3, 10, "d1", 1000000, -1);
    commit(st, b, 1000);
    idx_grades *g = grades(example_grade);
    build(st, g, m1, m1 + 3, 5000);
    rows *x = read_rows(st, "G", m1, m1 + 3);
    assert_int_equal(x->n, 4);
    static const struct {
        int64_t value, xs;
        int level, event;
        int64_t rel;
        long n_matched, n_prov;
        int panel_change;
        const char *note;
    } want[4] = {
        {21000, 21000, GPI_LEVEL_OFFERS, 1 /* start */, -1, 0, 0, 0, ""},
        {21000, 18000, GPI_LEVEL_OFFERS, 0, 1000000000000, 4, 3, 1, ""},
        {23100, 19050, GPI_LEVEL_OFFERS, 0, 1100000000000, 4, 3, 0, ""},
        {23100, 23100, GPI_LEVEL_CARRIED, 0, -1, 3, 2, 1,
         "no matched change: 2 of the panel's providers priced on both days (need 3)"},
    };
    for (int i = 0; i < 4; i++) {
        const store_index_row *r = &x->r[i];
        assert_string_equal(r->methodology, "v2");
        assert_int_equal(r->value_e4, want[i].value);
        assert_int_equal(r->xs_value_e4, want[i].xs);
        assert_int_equal(r->level, want[i].level);
        assert_int_equal(r->event, want[i].event);
        assert_int_equal(r->relative_e12, want[i].rel);
        assert_int_equal(r->n_matched, want[i].n_matched);
        assert_int_equal(r->n_matched_providers, want[i].n_prov);
        assert_int_equal(r->panel_change, want[i].panel_change);
        assert_string_equal(r->note, want[i].note);
    }
    /* the chain is the value exactly (no rounding in this example) */
    assert_int_equal(x->r[2].chain_nano, 2310000000);
    assert_int_equal(x->r[2].ref_day, m1 + 1);
    assert_int_equal(x->r[2].panel_day, m1);
    /* S: median of provider medians of the relatives to base, quarter units
     * of 1e-12: 1.1 today, 1 on the 2nd */
    assert_int_equal(x->r[2].matched_now_q, 4400000000000);
    assert_int_equal(x->r[2].matched_ref_q, 4000000000000);
    /* the constituents' band on 3 March: provider medians 1.00 1.50 2.31
     * 3.30, one vote each (a = 1): the cumulative weight reaches 1/4, 2/4
     * and 3/4 exactly at 1.00, 1.50 and 2.31, so p25, p50 and p75 are the
     * means with the next value; p10 is 1.00, p90 3.30 */
    assert_int_equal(x->r[2].p25_micro, 1250000);
    assert_int_equal(x->r[2].p50_micro, 1905000);
    assert_int_equal(x->r[2].p75_micro, 2805000);
    assert_int_equal(x->r[2].p10_micro, 1000000);
    assert_int_equal(x->r[2].p90_micro, 3300000);
    assert_int_equal(x->r[2].min_micro, 1000000);
    assert_int_equal(x->r[2].max_micro, 3300000);
    free(x);
    idx_grades_free(g);
    store_close(st);
    free(path);
}

/* ---- a generated market --------------------------------------------------------- */

typedef struct mk {
    int days;                 /* from 2025-01-01 */
    uint64_t seed;
    int enter_day;            /* provider X enters (offers and trades) from this day; -1 never */
    int64_t enter_price;
    int leave_day;            /* provider P4 leaves from this day; -1 never */
    int scale_day;            /* every price x 1.1 from this day; -1 never */
    int flat;                 /* prices never change (only entries/exits) */
    int trades;               /* with daily trades */
} mk;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Stores the market of m in one batch at ingest time `at`, days [d0, d1]. */
static void market(store *st, const mk *m, const char *sha, int64_t at, int d0, int d1)
{
    static const char *const prov[] = {"P1", "P2", "P3", "P4", "P5", "P6"};
    static const int64_t level[] = {2000000, 2100000, 2300000, 2600000, 5800000, 6200000};
    int64_t b = batch(st, sha, at);
    uint64_t s = m->seed;
    int32_t start = day_of(2025, 1, 1);
    int64_t drift[6] = {0};
    for (int t = 0; t < m->days; t++) {
        int32_t day = start + t;
        for (int p = 0; p < 6; p++) {
            /* sticky list prices: a 2 % step now and then */
            if (!m->flat && lcg(&s) % 7 == 0) drift[p] += (int64_t)(lcg(&s) % 5) - 2;
            int64_t lv = level[p] * (100 + drift[p]) / 100;
            int n_sku = 2 + p % 3;
            int in = !(p == 3 && m->leave_day >= 0 && t >= m->leave_day);
            int scaled = m->scale_day >= 0 && t >= m->scale_day;
            for (int k = 0; k < n_sku && t >= d0 && t <= d1 && in; k++) {
                char id[32];
                snprintf(id, sizeof id, "%s-sku%d", prov[p], k);
                int64_t px = lv + 10000 * k * 11; /* a multiple of 10: x 1.1 is exact */
                put(st, b, GPI_OFFER, prov[p], day, 6, id, scaled ? px * 11 / 10 : px, -1);
            }
            if (!m->trades || !in) {
                lcg(&s);
                continue;
            }
            /* a trade most days, at the list price less 0-4 % */
            uint64_t u = lcg(&s);
            if (u % 5 == 0 || t < d0 || t > d1) continue;
            char id[32];
            snprintf(id, sizeof id, "%s-d%d", prov[p], t);
            int64_t px = m->flat ? lv : lv * (1000 - (int64_t)(u % 41)) / 1000 / 10 * 10;
            put(st, b, GPI_TRADE, prov[p], day, 9, id, scaled ? px * 11 / 10 : px,
                (int64_t)(300 + u % 500) * 1000000);
        }
        if (m->enter_day >= 0 && t >= m->enter_day && t >= d0 && t <= d1) {
            put(st, b, GPI_OFFER, "X", day, 6, "X-1", m->enter_price, -1);
            put(st, b, GPI_OFFER, "X", day, 6, "X-2", m->enter_price * 2, -1);
            if (m->trades) {
                char id[32];
                snprintf(id, sizeof id, "X-d%d", t);
                put(st, b, GPI_TRADE, "X", day, 9, id, m->enter_price, 900000000);
            }
        }
    }
    commit(st, b, at);
}

static const char gen_grades[] =
    "{\"grades\": [{\"id\": \"V2\", \"gpu\": \"H100-SXM-80GB\", \"method\": \"v2\"},"
    " {\"id\": \"V2A1\", \"gpu\": \"H100-SXM-80GB\", \"method\": \"v2\", \"anchor_days\": 1,"
    "  \"trade_carry_days\": 0}]}";

static rows *run_market(const mk *m, const char *grade)
{
    char *path;
    store *st = fresh(&path);
    market(st, m, "m", 1000, 0, m->days - 1);
    idx_grades *g = grades(gen_grades);
    int32_t start = day_of(2025, 1, 1);
    build(st, g, start, start + m->days - 1, 5000);
    rows *x = read_rows(st, grade, start, start + m->days - 1);
    idx_grades_free(g);
    store_close(st);
    free(path);
    return x;
}

static int is_rebalance_day(const store_index_row *r)
{
    return r->event == 2 /* rebalance */;
}

/* First day >= t (days since 2025-01-01) that starts a month. */
static int next_month_start(int t)
{
    int32_t start = day_of(2025, 1, 1);
    for (int k = t;; k++) {
        int y, mo, d;
        gpi_civil_from_days(start + k, &y, &mo, &d);
        if (d == 1 && k > t - 1) return k;
    }
}

static void test_entry_moves_nothing(void **state)
{
    (void)state;
    static const int64_t prices[] = {100000, 2100000, 9000000}; /* cheap, inside, dear */
    for (int with_trades = 0; with_trades < 2; with_trades++)
        for (size_t k = 0; k < 3; k++) {
            mk a = {.days = 100, .seed = 7 + k, .enter_day = -1, .leave_day = -1,
                    .scale_day = -1, .trades = with_trades};
            mk b = a;
            b.enter_day = 40; /* 10 February */
            b.enter_price = prices[k];
            for (int gi = 0; gi < 2; gi++) {
                const char *grade = gi ? "V2A1" : "V2";
                rows *x = run_market(&a, grade), *y = run_market(&b, grade);
                assert_int_equal(x->n, y->n);
                int until = next_month_start(b.enter_day);
                int moved_xs = 0;
                for (int t = 0; t < until; t++) {
                    if (x->r[t].value_e4 != y->r[t].value_e4)
                        fail_msg("%s: X entering at %lld moved day %d: %lld vs %lld", grade,
                                 (long long)prices[k], t, (long long)x->r[t].value_e4,
                                 (long long)y->r[t].value_e4);
                    moved_xs |= x->r[t].xs_value_e4 != y->r[t].xs_value_e4;
                    if (t == b.enter_day) assert_int_equal(y->r[t].panel_change, 1);
                }
                /* the cross-section did move: the entry is real */
                if (k != 1) assert_true(moved_xs);
                free(x);
                free(y);
            }
        }
}

static void test_exit_moves_nothing(void **state)
{
    (void)state;
    for (int with_trades = 0; with_trades < 2; with_trades++) {
        mk m = {.days = 80, .seed = 3, .enter_day = -1, .leave_day = 45, .scale_day = -1,
                .flat = 1, .trades = with_trades};
        rows *x = run_market(&m, "V2");
        for (size_t t = 1; t < x->n; t++) {
            if (is_rebalance_day(&x->r[t])) continue;
            if (x->r[t].value_e4 != x->r[t - 1].value_e4)
                fail_msg("trades %d: day %zu moved %lld -> %lld (%s)", with_trades, t,
                         (long long)x->r[t - 1].value_e4, (long long)x->r[t].value_e4,
                         gpi_level_name(x->r[t].level));
        }
        /* P4 leaving moved the offers cross-section (6 -> 5 provider medians) */
        if (!with_trades) assert_true(x->r[44].xs_value_e4 != x->r[46].xs_value_e4);
        free(x);
    }
}

static void test_scaling_moves_by_the_factor(void **state)
{
    (void)state;
    for (int with_trades = 0; with_trades < 2; with_trades++) {
        mk a = {.days = 75, .seed = 11, .enter_day = -1, .leave_day = -1, .scale_day = -1,
                .trades = with_trades};
        mk b = a;
        b.scale_day = 50; /* 20 February: not a rebalance */
        rows *x = run_market(&a, "V2"), *y = run_market(&b, "V2");
        for (int t = 0; t < 50; t++) assert_int_equal(x->r[t].value_e4, y->r[t].value_e4);
        /* from the day on, b's value is a's x 1.1, to the tick, through the
         * next rebalance (whose cross-section scales too) */
        for (size_t t = 50; t < x->n; t++) {
            double want = (double)x->r[t].value_e4 * 1.1;
            if (fabs((double)y->r[t].value_e4 - want) > 1.0 + 1e-9)
                fail_msg("trades %d day %zu: %lld vs 1.1 x %lld", with_trades, t,
                         (long long)y->r[t].value_e4, (long long)x->r[t].value_e4);
        }
        /* and at the day itself the relative is 1.1 times a's */
        assert_true(llabs(y->r[50].relative_e12 -
                          (x->r[50].relative_e12 * 11 + 5) / 10) <= 1);
        free(x);
        free(y);
    }
}

static void test_rebalance_moves_by_its_splice(void **state)
{
    (void)state;
    mk m = {.days = 120, .seed = 5, .enter_day = 20, .enter_price = 1200000, .leave_day = 70,
            .scale_day = -1, .trades = 1};
    for (int gi = 0; gi < 2; gi++) {
        rows *x = run_market(&m, gi ? "V2A1" : "V2");
        int n_reb = 0;
        for (size_t t = 1; t < x->n; t++) {
            const store_index_row *r = &x->r[t], *p = &x->r[t - 1];
            if (!is_rebalance_day(r)) continue;
            n_reb++;
            assert_true(r->splice_e12 > 0);
            /* value = previous chain x relative x splice, to the tick */
            double rel = r->relative_e12 > 0 ? (double)r->relative_e12 / 1e12 : 1.0;
            double want = (double)p->chain_nano / 1e5 * rel * ((double)r->splice_e12 / 1e12);
            if (fabs((double)r->value_e4 - want) > 1.0)
                fail_msg("day %zu: %lld, want %.2f", t, (long long)r->value_e4, want);
            /* anchor_days 1: the anchor is the day's cross-section */
            if (gi) assert_int_equal(r->value_e4, r->xs_value_e4);
            int y, mo, d;
            gpi_civil_from_days(r->day, &y, &mo, &d);
            assert_int_equal(d, 1);
        }
        assert_int_equal(n_reb, 3); /* February, March, April */
        free(x);
    }
}

static void test_churn_without_price_changes(void **state)
{
    (void)state;
    mk m = {.days = 100, .seed = 9, .enter_day = 15, .enter_price = 900000, .leave_day = 50,
            .scale_day = -1, .flat = 1, .trades = 0};
    rows *x = run_market(&m, "V2");
    int changes = 0;
    for (size_t t = 1; t < x->n; t++) {
        changes += x->r[t].panel_change;
        if (!is_rebalance_day(&x->r[t]))
            assert_int_equal(x->r[t].value_e4, x->r[t - 1].value_e4);
        if (x->r[t].relative_e12 >= 0) assert_int_equal(x->r[t].relative_e12, 1000000000000);
    }
    assert_int_equal(changes, 2); /* X in, P4 out */
    free(x);
}

/* The constituents' band: the cross-section's raw value is its p50. */
static void test_band_holds_the_cross_section(void **state)
{
    (void)state;
    mk m = {.days = 60, .seed = 13, .enter_day = 10, .enter_price = 1500000, .leave_day = -1,
            .scale_day = -1, .trades = 1};
    rows *x = run_market(&m, "V2");
    for (size_t t = 0; t < x->n; t++) {
        const store_index_row *r = &x->r[t];
        if (r->xs_level != GPI_LEVEL_TRADES && r->xs_level != GPI_LEVEL_OFFERS) continue;
        int64_t raw_micro = r->xs_level == GPI_LEVEL_TRADES
                                ? (r->trades_raw_q + 2) / 4
                                : -1;
        if (raw_micro >= 0) assert_int_equal(r->p50_micro, raw_micro);
        /* the value published for the cross-section is in [p25, p75] */
        assert_true(r->xs_value_e4 * 100 >= r->p25_micro - 50);
        assert_true(r->xs_value_e4 * 100 <= r->p75_micro + 50);
        assert_true(r->min_micro <= r->p10_micro && r->p90_micro <= r->max_micro);
    }
    free(x);
}

/* ---- incremental builds ------------------------------------------------------------ */

static int same_row(const store_index_row *a, const store_index_row *b)
{
    return a->day == b->day && a->level == b->level && a->value_e4 == b->value_e4 &&
           a->chain_nano == b->chain_nano && a->relative_e12 == b->relative_e12 &&
           a->event == b->event && a->splice_e12 == b->splice_e12 &&
           a->xs_value_e4 == b->xs_value_e4 && a->n_matched == b->n_matched &&
           a->panel_change == b->panel_change && a->carry_days == b->carry_days &&
           a->ref_day == b->ref_day && a->panel_day == b->panel_day &&
           a->p25_micro == b->p25_micro && strcmp(a->note, b->note) == 0;
}

static void test_daily_and_pieces_equal_at_once(void **state)
{
    (void)state;
    mk m = {.days = 95, .seed = 21, .enter_day = 33, .enter_price = 1700000, .leave_day = 61,
            .scale_day = -1, .trades = 1};
    int32_t start = day_of(2025, 1, 1), end = start + m.days - 1;
    idx_grades *g = grades(gen_grades);
    /* at once */
    char *p1, *p2, *p3;
    store *a = fresh(&p1);
    market(a, &m, "m", 1000, 0, m.days - 1);
    build(a, g, start, end, 5000);
    /* day by day, each day's data arriving the day after (the daily job) */
    store *b = fresh(&p2);
    for (int t = 0; t < m.days; t++) {
        char sha[16];
        snprintf(sha, sizeof sha, "d%d", t);
        market(b, &m, sha, 1000 + t, t, t);
        build(b, g, start + t, start + t, 1000 + t);
    }
    /* in pieces, then late data for a day in the middle of a month, then
     * that day alone rebuilt: the later days re-evaluate */
    store *c = fresh(&p3);
    market(c, &m, "m1", 1000, 0, 49);
    build(c, g, start, start + 20, 2000);
    build(c, g, start + 21, start + 49, 2000);
    market(c, &m, "m2", 2500, 50, m.days - 1);
    build(c, g, start + 50, end, 3000);
    for (size_t gi = 0; gi < g->n; gi++) {
        rows *x = read_rows(a, g->g[gi].id, start, end), *y = read_rows(b, g->g[gi].id, start, end),
             *z = read_rows(c, g->g[gi].id, start, end);
        assert_int_equal(x->n, (size_t)m.days);
        assert_int_equal(y->n, x->n);
        assert_int_equal(z->n, x->n);
        for (size_t t = 0; t < x->n; t++) {
            if (!same_row(&x->r[t], &y->r[t]))
                fail_msg("%s day %zu: daily build %lld (%s rel %lld nm %ld ref %d panel %d ev %d) vs "
                         "at once %lld (%s rel %lld nm %ld ref %d panel %d ev %d)",
                         g->g[gi].id, t, (long long)y->r[t].value_e4,
                         gpi_level_name(y->r[t].level), (long long)y->r[t].relative_e12,
                         y->r[t].n_matched, (int)(y->r[t].ref_day - start),
                         (int)(y->r[t].panel_day - start), y->r[t].event,
                         (long long)x->r[t].value_e4, gpi_level_name(x->r[t].level),
                         (long long)x->r[t].relative_e12, x->r[t].n_matched,
                         (int)(x->r[t].ref_day - start), (int)(x->r[t].panel_day - start),
                         x->r[t].event);
            if (!same_row(&x->r[t], &z->r[t]))
                fail_msg("%s day %zu: pieces %lld vs at once %lld", g->g[gi].id, t,
                         (long long)z->r[t].value_e4, (long long)x->r[t].value_e4);
        }
        free(x);
        free(y);
        free(z);
    }
    idx_grades_free(g);
    store_close(a);
    store_close(b);
    store_close(c);
    free(p1);
    free(p2);
    free(p3);
}

/* Every grade's rows of [from, to] in b are those of a (a build of
 * everything at once): the same days, values and chains to the nano. */
static void expect_same_rows(store *a, store *b, const idx_grades *g, int32_t from, int32_t to)
{
    for (size_t gi = 0; gi < g->n; gi++) {
        rows *x = read_rows(a, g->g[gi].id, from, to), *y = read_rows(b, g->g[gi].id, from, to);
        assert_int_equal(x->n, (size_t)(to - from + 1));
        assert_int_equal(y->n, x->n);
        for (size_t t = 0; t < x->n; t++)
            if (!same_row(&x->r[t], &y->r[t]))
                fail_msg("%s day %d: %lld (nano %lld) vs at once %lld (nano %lld)", g->g[gi].id,
                         (int)(x->r[t].day - day_of(2025, 1, 1)), (long long)y->r[t].value_e4,
                         (long long)y->r[t].chain_nano, (long long)x->r[t].value_e4,
                         (long long)x->r[t].chain_nano);
        free(x);
        free(y);
    }
}

/* Late data for an early day of a month, then only that day rebuilt: the
 * later days of the chain are re-evaluated to what a build of everything
 * gives. */
static void test_late_data_reevaluates_the_chain(void **state)
{
    (void)state;
    mk m = {.days = 70, .seed = 31, .enter_day = -1, .leave_day = -1, .scale_day = -1,
            .trades = 1};
    int32_t start = day_of(2025, 1, 1), end = start + m.days - 1;
    idx_grades *g = grades(gen_grades);
    char *p1, *p2;
    store *a = fresh(&p1), *b = fresh(&p2);
    market(a, &m, "m", 1000, 0, m.days - 1);
    market(b, &m, "m", 1000, 0, m.days - 1);
    /* late: day 35 (5 February) gets a trade of P1 far below, and offers */
    for (int k = 0; k < 2; k++) {
        store *st = k ? b : a;
        int64_t bt = batch(st, "late", 2000);
        put(st, bt, GPI_TRADE, "P1", start + 35, 15, "late-t", 1500000, 2000000000);
        put(st, bt, GPI_OFFER, "P2", start + 35, 15, "late-o", 1900000, -1);
        commit(st, bt, 2000);
    }
    build(a, g, start, end, 3000);            /* everything at once */
    build(b, g, start, end, 1500);            /* before the late data */
    build(b, g, start + 35, start + 35, 3000); /* then the day alone */
    expect_same_rows(a, b, g, start, end);
    idx_grades_free(g);
    store_close(a);
    store_close(b);
    free(p1);
    free(p2);
}

/* ---- chain states (build.c note 8) ------------------------------------------------ */

static int count_obs(const gpi_obs *o, void *ud)
{
    (void)o;
    (*(long *)ud)++;
    return 0;
}

static long day_obs(store *st, int32_t day, int64_t as_of)
{
    long n = 0;
    gpi_diag d = {{0}};
    if (store_obs_scan(st, day, day, as_of, count_obs, &n, &d) != GPI_OK) fail_msg("%s", d.msg);
    return n;
}

static long build_reads(store *st, const idx_grades *g, int32_t from, int32_t to, int64_t as_of)
{
    idx_build_stats s;
    gpi_diag d = {{0}};
    if (idx_build(st, g, from, to, as_of, &s, &d) != GPI_OK) fail_msg("build: %s", d.msg);
    return s.observations;
}

/* A trade of P1 on 1 February (the month's anchor) at twice its price
 * and a large volume, in its own batch. */
static void late_anchor_trade(store *st, int64_t at)
{
    int64_t bt = batch(st, "late", at);
    put(st, bt, GPI_TRADE, "P1", day_of(2025, 2, 1), 15, "late-anchor", 4000000, 2000000000);
    commit(st, bt, at);
}

static void sql_on(const char *path, const char *sql)
{
    char cmd[5000];
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' \"%s\"", path, sql);
    tu_run r = tu_sh(".", "%s", cmd);
    if (r.status != 0) fail_msg("%s: %s", cmd, r.err);
    tu_run_free(&r);
}

/* The daily job: the build of a day resumes each chain from the state
 * the build of the day before left, reading that day only, while no batch
 * since reached the days the state was built from; late data for one of
 * them (the anchor day) makes the next build replay, and so does a
 * damaged state.  The rows are those of a build of everything at once. */
static void test_chain_state_resumed_while_current(void **state)
{
    (void)state;
    mk m = {.days = 45, .seed = 41, .enter_day = -1, .leave_day = -1, .scale_day = -1,
            .trades = 1};
    int32_t start = day_of(2025, 1, 1), end = start + m.days - 1;
    idx_grades *g = grades(gen_grades);
    char *p1, *p2;
    store *a = fresh(&p1), *b = fresh(&p2);
    market(a, &m, "m", 1000, 0, m.days - 1);
    late_anchor_trade(a, 1000);
    build(a, g, start, end, 5000);
    /* b: built to day 40; day 41's build reads day 41 only */
    market(b, &m, "m1", 1000, 0, 40);
    build(b, g, start, start + 40, 2000);
    market(b, &m, "m2", 2100, 41, 41);
    assert_int_equal(build_reads(b, g, start + 41, start + 41, 2200),
                     day_obs(b, start + 41, 2200));
    /* the late anchor trade: the next build replays from before 1 February */
    late_anchor_trade(b, 2500);
    market(b, &m, "m3", 2600, 42, 44);
    /* (about 17 days: from the period's start less anchor_days - 1) */
    assert_true(build_reads(b, g, start + 42, start + 42, 3000) > 10 * day_obs(b, start + 42, 3000));
    build(b, g, start + 43, start + 43, 3000);
    /* a damaged state is replayed: cut short by a byte, or zeros */
    static const char *const damage[] = {
        "UPDATE chain_states SET state = substr(state, 1, length(state) - 1)",
        "UPDATE chain_states SET state = zeroblob(40)"};
    for (int k = 0; k < 2; k++) {
        store_close(b);
        sql_on(p2, damage[k]);
        gpi_diag d = {{0}};
        if (store_open(p2, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
        assert_true(build_reads(b, g, end, end, 3000) > 10 * day_obs(b, end, 3000));
    }
    expect_same_rows(a, b, g, start + 42, end);
    idx_grades_free(g);
    store_close(a);
    store_close(b);
    free(p1);
    free(p2);
}

/* x10 prints of two providers with two offers each (the per-provider
 * screen cannot judge them; with four providers they are the two middle
 * provider medians) move the chain neither on their day nor on the next
 * (day-on-day plausibility, METHODOLOGY §10.3); and a day without any
 * observation after a fixed day is a panel change. */
static void test_fat_finger_and_empty_day(void **state)
{
    (void)state;
    char *path;
    store *st = fresh(&path);
    int64_t b = batch(st, "ff", 1000);
    int32_t d0 = day_of(2025, 3, 1);
    static const char *const prov[4] = {"A", "B", "C", "D"};
    for (int t = 0; t < 8; t++) {
        if (t == 6) continue; /* day 6: nothing at all */
        for (int p = 0; p < 4; p++)
            for (int k = 0; k < 2; k++) {
                char id[16];
                snprintf(id, sizeof id, "%s%d", prov[p], k);
                int64_t px = 1000000 * (p + 1) + 100000 * k;
                if (t == 3 && (p == 1 || p == 2) && k == 0) px *= 10; /* B's and C's */
                put(st, b, GPI_OFFER, prov[p], d0 + t, 10, id, px, -1);
            }
    }
    commit(st, b, 1000);
    idx_grades *g = grades("{\"grades\": [{\"id\": \"G\", \"gpu\": \"H100-SXM-80GB\","
                           " \"method\": \"v2\", \"anchor_days\": 1}]}");
    build(st, g, d0, d0 + 7, 5000);
    rows *x = read_rows(st, "G", d0, d0 + 7);
    for (int t = 1; t < 8; t++) {
        if (x->r[t].level == GPI_LEVEL_SUSPENDED) fail_msg("day %d suspended", t);
        assert_int_equal(x->r[t].value_e4, x->r[0].value_e4);
    }
    /* the cross-section did see it (B's median moved) */
    assert_true(x->r[3].xs_value_e4 != x->r[2].xs_value_e4);
    assert_int_equal(x->r[3].relative_e12, 1000000000000); /* B0, C0 left out */
    assert_int_equal(x->r[3].n_matched, 6);
    assert_int_equal(x->r[4].n_matched, 6);
    assert_int_equal(x->r[6].level, GPI_LEVEL_CARRIED);
    assert_int_equal(x->r[6].panel_change, 1);
    assert_int_equal(x->r[7].panel_change, 0); /* the same set as day 5, the last fixed */
    free(x);
    idx_grades_free(g);
    store_close(st);
    free(path);
}

/* Three providers trading in turn, one a day: carried prices make a
 * matched sample of three, but the day's own trades are one provider's,
 * so there is no trades relative (the chain is carried, then suspended),
 * and a build of a few days alone gives what a build of everything gives. */
static void test_carried_trades_never_qualify_alone(void **state)
{
    (void)state;
    char *path[2];
    store *st[2] = {fresh(&path[0]), fresh(&path[1])};
    int32_t d0 = day_of(2025, 3, 1);
    static const char *const prov[3] = {"A", "B", "C"};
    for (int k = 0; k < 2; k++) {
        int64_t b = batch(st[k], "turns", 1000);
        for (int p = 0; p < 3; p++) { /* the 1st: everyone trades: a start */
            char id[16];
            snprintf(id, sizeof id, "%s-0", prov[p]);
            put(st[k], b, GPI_TRADE, prov[p], d0, 9, id, 2000000 + 100000 * p, 1000000000);
        }
        for (int t = 1; t < 22; t++) {
            char id[16];
            snprintf(id, sizeof id, "%s-%d", prov[t % 3], t);
            put(st[k], b, GPI_TRADE, prov[t % 3], d0 + t, 9, id, 2000000 + 100000 * (t % 3) +
                                                               1000 * t, 1000000000);
        }
        commit(st[k], b, 1000);
    }
    idx_grades *g = grades("{\"grades\": [{\"id\": \"G\", \"gpu\": \"H100-SXM-80GB\","
                           " \"method\": \"v2\", \"trade_carry_days\": 2}]}");
    build(st[0], g, d0, d0 + 21, 5000);
    build(st[1], g, d0 + 19, d0 + 21, 5000);
    rows *x = read_rows(st[0], "G", d0, d0 + 21), *y = read_rows(st[1], "G", d0 + 19, d0 + 21);
    for (int t = 1; t <= 5; t++) assert_int_equal(x->r[t].level, GPI_LEVEL_CARRIED);
    assert_int_equal(x->r[6].level, GPI_LEVEL_SUSPENDED);
    for (int t = 0; t < 3; t++) assert_true(same_row(&x->r[19 + t], &y->r[t]));
    free(x);
    free(y);
    idx_grades_free(g);
    for (int k = 0; k < 2; k++) {
        store_close(st[k]);
        free(path[k]);
    }
}

/* ---- grades -------------------------------------------------------------------- */

static void test_v2_grade_fields(void **state)
{
    (void)state;
    static const struct {
        const char *json, *err;
    } cases[] = {
        {"{\"grades\":[{\"id\":\"G\",\"gpu\":\"B200\",\"method\":\"v4\"}]}",
         "g.json: grades[0].method: must be v1, v2 or v3 (got \"v4\")"},
        {"{\"grades\":[{\"id\":\"G\",\"gpu\":\"B200\",\"rebalance_months\":3}]}",
         "g.json: grades[0].rebalance_months: applies to method v2 only (add \"method\": \"v2\") "
         "(got \"3\")"},
        {"{\"grades\":[{\"id\":\"G\",\"gpu\":\"B200\",\"method\":\"v2\",\"rebalance_months\":5}]}",
         "g.json: grades[0].rebalance_months: must divide 12 (1, 2, 3, 4, 6 or 12) (got \"5\")"},
        {"{\"grades\":[{\"id\":\"G\",\"gpu\":\"B200\",\"method\":\"v2\",\"anchor_days\":29}]}",
         "g.json: grades[0].anchor_days: out of range (got \"29\")"},
        {"{\"grades\":[{\"id\":\"G\",\"gpu\":\"B200\",\"trade_carry_days\":2}]}",
         "g.json: grades[0].trade_carry_days: applies to method v2 only (add \"method\": \"v2\") "
         "(got \"2\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        idx_grades *g = NULL;
        gpi_diag d = {{0}};
        assert_int_equal(idx_grades_parse(cases[i].json, "g.json", NULL, 0, &g, &d), GPI_EINPUT);
        assert_string_equal(d.msg, cases[i].err);
    }
    /* v1 definitions hash as before v2 existed (the hash of SPEC §4's
     * example, computed before this change) */
    idx_grades *g = grades("{\"grades\":[{\"id\":\"H100-SXM.OD.GOLD+\",\"gpu\":[\"H100-SXM-80GB\"],"
                           "\"scope\":[\"managed\",\"bare-metal\",\"vm\"],\"min_tier\":\"gold\","
                           "\"term\":\"on-demand\",\"regions\":[\"*\"]}]}");
    assert_null(strstr(g->g[0].canon, "method"));
    assert_string_equal(g->g[0].hash,
                        "bfde54960def053862474484fa2fcad9f3dd50b8f6a3d327a21a83849d2a3ef4");
    idx_grades_free(g);
    g = grades("{\"grades\":[{\"id\":\"G\",\"gpu\":\"B200\",\"method\":\"v2\"}]}");
    assert_non_null(strstr(g->g[0].canon, "\"method\":\"v2\""));
    assert_non_null(strstr(g->g[0].canon, "\"anchor_days\":7"));
    assert_non_null(strstr(g->g[0].canon, "\"rebalance_months\":1"));
    assert_non_null(strstr(g->g[0].canon, "\"trade_carry_days\":3"));
    idx_grades_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_entry_moves_nothing),
        cmocka_unit_test(test_exit_moves_nothing),
        cmocka_unit_test(test_scaling_moves_by_the_factor),
        cmocka_unit_test(test_rebalance_moves_by_its_splice),
        cmocka_unit_test(test_churn_without_price_changes),
        cmocka_unit_test(test_band_holds_the_cross_section),
        cmocka_unit_test(test_daily_and_pieces_equal_at_once),
        cmocka_unit_test(test_late_data_reevaluates_the_chain),
        cmocka_unit_test(test_fat_finger_and_empty_day),
        cmocka_unit_test(test_carried_trades_never_qualify_alone),
        cmocka_unit_test(test_v2_grade_fields),
        cmocka_unit_test(test_chain_state_resumed_while_current),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
