/* tests/test_index_day.c -- a day's observations into the grades' arrays
 * (index/day.c), the grades tried once per stored profile (note 6),
 * against a reference that tries every grade on every row.
 *
 * A random market of three days: offers of 300 keys, one to three
 * snapshots a day each, every snapshot with a profile drawn from a pool
 * (so one key's snapshots may change GPU, region, provider, tier...), and
 * trades of every status, all through store_obs_put; eight grades that
 * filter on each field (GPU lists, terms and tenors, tiers, scopes,
 * region globs, providers and their groups, segments, exclusions, skus).
 * One idx_day collects the three days in turn (its memo carries over);
 * each grade's offers and trades must be, item for item, what the
 * reference gets from the day's full scan with idx_grade_match on each
 * row and the latest-snapshot rule (note 2), the GPUs and groups interned
 * in the same order.  The memo must hold one entry per distinct profile of
 * the three days.
 */
#include "tests/testutil.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/day.h"
#include "index/feed.h"
#include "index/match.h"
#include "store/batches.h"
#include "store/obs.h"
#include "store/store.h"

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static const char grades_json[] =
    "{\"grades\": ["
    "{\"id\": \"A\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"min_tier\": \"unrated\", \"regions\": [\"*\"]},"
    "{\"id\": \"B\", \"gpu\": [\"H100-SXM-80GB\", \"A100-SXM4-80GB\"], \"term\": \"spot\","
    " \"min_tier\": \"silver\", \"regions\": [\"us-*\"]},"
    "{\"id\": \"C\", \"gpu\": [\"A100-SXM4-80GB\"], \"term\": \"reserved:1-12\","
    " \"min_tier\": \"unrated\", \"regions\": [\"*\"], \"providers\": [\"G12\", \"P5\"]},"
    "{\"id\": \"D\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"min_tier\": \"bronze\", \"regions\": [\"eu-west\", \"ap-*\"], \"exclude_providers\": [\"P3\"]},"
    "{\"id\": \"E\", \"gpu\": [\"H200-SXM-141GB\"], \"term\": \"on-demand\","
    " \"min_tier\": \"unrated\", \"regions\": [\"*\"], \"segments\": [\"neocloud\"]},"
    "{\"id\": \"F\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"min_tier\": \"unrated\", \"regions\": [\"*\"], \"scope\": [\"vm\", \"container\"]},"
    "{\"id\": \"G\", \"gpu\": [\"H100-SXM-80GB\", \"H200-SXM-141GB\"], \"term\": \"on-demand\","
    " \"min_tier\": \"unrated\", \"regions\": [\"*\"], \"skus\": [\"*.8x\"]},"
    "{\"id\": \"H\", \"gpu\": [\"A100-SXM4-80GB\"], \"term\": \"spot\","
    " \"min_tier\": \"unrated\", \"regions\": [\"*\"], \"providers\": [\"P2\"]}"
    "]}";

typedef struct profile {
    const char *gpu, *provider, *group, *segment, *region, *sku;
    int scope, tier, term, months, status;
} profile;

static profile random_profile(uint64_t *s, int kind)
{
    static const char *gpus[] = {"H100-SXM-80GB", "A100-SXM4-80GB", "H200-SXM-141GB"};
    static const char *provs[] = {"P1", "P2", "P3", "P4", "P5", "P6"};
    static const char *groups[] = {"G12", "G12", "P3", "P4", "P5", "P6"};
    static const char *segs[] = {"neocloud", "hyperscaler"};
    static const char *regions[] = {"us-east", "us-west", "eu-west", "ap-south", "ap-east"};
    static const char *skus[] = {"h.8x", "h.1x", NULL};
    int p = (int)(lcg(s) % 6);
    profile f = {gpus[lcg(s) % 3], provs[p], groups[p], segs[p % 2], regions[lcg(s) % 5],
                 skus[lcg(s) % 3], (int)(lcg(s) % 4), (int)(lcg(s) % 6), (int)(lcg(s) % 3),
                 0, GPI_STATUS_OK};
    if (f.term == GPI_TERM_RESERVED) f.months = 1 + (int)(lcg(s) % 24);
    if (kind == GPI_TRADE) f.status = (int)(lcg(s) % 3);
    return f;
}

static void put(store *st, int64_t b, int kind, const profile *f, int dom, int hour,
                const char *id, int64_t price, int64_t qty)
{
    gpi_obs o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.scope = f->scope;
    o.tier = f->tier;
    o.term = f->term;
    o.term_months = f->months;
    o.status = f->status;
    o.unit = GPI_UNIT_GPU_HOUR;
    o.observed_at = (int64_t)gpi_days_from_civil(2025, 1, dom) * 86400 + hour * 3600;
    o.day = gpi_day_of_time(o.observed_at);
    o.key_hash = gpi_fnv1a64(id, strlen(id), GPI_FNV_SEED);
    o.price_micro = price;
    o.quantity_micro = qty;
    o.gpu_count = 1;
    o.gpu = f->gpu;
    o.provider = f->provider;
    o.group = f->group;
    o.segment = f->segment;
    o.region = f->region;
    o.source = "test";
    o.id = id;
    o.ident = id;
    o.raw_gpu = f->gpu;
    o.raw_provider = f->provider;
    o.raw_price = "x";
    o.currency = "USD";
    o.sku = f->sku;
    store_put_result res;
    gpi_diag d = {{0}};
    if (store_obs_put(st, b, &o, &res, &d) != GPI_OK || res != STORE_PUT_STORED)
        fail_msg("storing %s: %s (%d)", id, d.msg, (int)res);
}

/* The reference's arrays: per grade, offers and trades, with group names. */
typedef struct ref_item {
    idx_item it;
    char group[16];
} ref_item;
typedef struct ref_buf {
    ref_item v[4096];
    size_t n;
} ref_buf;
typedef struct ref_day {
    const idx_grades *gs;
    ref_buf *offers, *trades;
    char names[64][32]; /* the interned names in order (GPUs and groups) */
    size_t n_names;
} ref_day;

static void ref_intern(ref_day *r, const char *s)
{
    for (size_t i = 0; i < r->n_names; i++)
        if (strcmp(r->names[i], s) == 0) return;
    assert_true(r->n_names < 64);
    snprintf(r->names[r->n_names++], sizeof r->names[0], "%s", s);
}

static int ref_obs(const gpi_obs *o, void *ud)
{
    ref_day *r = ud;
    for (size_t i = 0; i < r->gs->n; i++) {
        ref_buf *b = o->kind == GPI_OFFER ? &r->offers[i] : &r->trades[i];
        if (o->kind == GPI_OFFER && b->n > 0 && b->v[b->n - 1].it.key_hash == o->key_hash)
            b->n--;
        const idx_grade *g = &r->gs->g[i];
        if (idx_grade_match_terms(g, o)) ref_intern(r, o->gpu);
        if (!idx_grade_match(g, o)) continue;
        ref_intern(r, o->group);
        assert_true(b->n < sizeof b->v / sizeof b->v[0]);
        ref_item *x = &b->v[b->n++];
        x->it = (idx_item){o->price_micro, o->quantity_micro, o->key_hash, o->observed_at, 0,
                           IDX_OK};
        if (o->kind == GPI_TRADE) {
            if (o->status == GPI_STATUS_CANCELLED) x->it.reason = IDX_EX_CANCELLED;
            if (o->status == GPI_STATUS_AFFILIATE) x->it.reason = IDX_EX_AFFILIATE;
            if (x->it.qty_micro < 0) x->it.qty_micro = 0;
        }
        snprintf(x->group, sizeof x->group, "%s", o->group);
    }
    return 0;
}

static void same(const idx_day *dy, const idx_buf *got, const ref_buf *want, const char *what,
                 const char *grade, int dom)
{
    if (got->n != want->n)
        fail_msg("day %d, grade %s, %s: %zu items, want %zu", dom, grade, what, got->n, want->n);
    for (size_t k = 0; k < got->n; k++) {
        const idx_item *a = &got->v[k], *b = &want->v[k].it;
        if (a->price_micro != b->price_micro || a->qty_micro != b->qty_micro ||
            a->key_hash != b->key_hash || a->observed_at != b->observed_at ||
            a->reason != b->reason || strcmp(idx_day_group(dy, a->group), want->v[k].group) != 0)
            fail_msg("day %d, grade %s, %s: item %zu differs", dom, grade, what, k);
    }
}

static void test_idx_day_collect_is_row_by_row(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("index-day");
    char path[4096];
    snprintf(path, sizeof path, "%s/t.db", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    idx_grades *gs = NULL;
    if (idx_grades_parse(grades_json, "test", NULL, IDX_TRUST_GPUS, &gs, &d) != GPI_OK)
        fail_msg("%s", d.msg);
    store_batch_info info = {.path = "t.csv", .sha256 = "sha", .source = "test",
                             .tables_sha256 = "tables", .ingested_at = 1000};
    int64_t b;
    if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
    uint64_t s = 42;
    profile pool[2][40];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 40; i++) pool[k][i] = random_profile(&s, k ? GPI_TRADE : GPI_OFFER);
    char id[64];
    for (int dom = 1; dom <= 3; dom++) {
        for (int key = 0; key < 300; key++) {
            int snaps = 1 + (int)(lcg(&s) % 3);
            snprintf(id, sizeof id, "o%d", key);
            for (int h = 0; h < snaps; h++)
                put(st, b, GPI_OFFER, &pool[0][lcg(&s) % 40], dom, 4 + 6 * h, id,
                    2000000 + (int64_t)(lcg(&s) % 500) * 1000, -1);
        }
        for (int t = 0; t < 200; t++) {
            snprintf(id, sizeof id, "t%d-%d", dom, t);
            put(st, b, GPI_TRADE, &pool[1][lcg(&s) % 40], dom, (int)(lcg(&s) % 24), id,
                1500000 + (int64_t)(lcg(&s) % 900) * 1000, (int64_t)(1 + lcg(&s) % 50) * 1000000);
        }
    }
    store_batch_counts c = {0, 0, 0, 0};
    if (store_batch_commit(st, b, &c, 1000, &d) != GPI_OK) fail_msg("%s", d.msg);

    idx_day dy;
    assert_int_equal(idx_day_init(&dy, gs), GPI_OK);
    ref_day r = {gs, calloc(gs->n, sizeof(ref_buf)), calloc(gs->n, sizeof(ref_buf)), {{0}}, 0};
    assert_non_null(r.offers);
    assert_non_null(r.trades);
    size_t taken = 0;
    for (int dom = 1; dom <= 3; dom++) {
        int32_t day = gpi_days_from_civil(2025, 1, dom);
        if (idx_day_collect(&dy, st, day, 2000, &d) != GPI_OK) fail_msg("%s", d.msg);
        for (size_t i = 0; i < gs->n; i++) r.offers[i].n = r.trades[i].n = 0;
        if (store_obs_scan(st, day, day, 2000, ref_obs, &r, &d) != GPI_OK) fail_msg("%s", d.msg);
        for (size_t i = 0; i < gs->n; i++) {
            same(&dy, &dy.offers[i], &r.offers[i], "offers", gs->g[i].id, dom);
            same(&dy, &dy.trades[i], &r.trades[i], "trades", gs->g[i].id, dom);
            taken += dy.offers[i].n + dy.trades[i].n;
        }
    }
    assert_true(taken > 400); /* the grades take a good part of the market (626) */
    /* GPUs and groups interned in the same order as row by row */
    assert_int_equal(dy.n_names, r.n_names);
    for (size_t i = 0; i < r.n_names; i++) assert_string_equal(dy.names[i], r.names[i]);
    /* the memo: one entry per distinct profile of the three days */
    size_t entries = 0;
    for (size_t i = 0; i < dy.cap_pm_at; i++) entries += dy.pm_at[i] != 0;
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(DISTINCT profile) FROM observations",
                                        -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(entries, (size_t)sqlite3_column_int64(q, 0));
    assert_true(entries > 40);
    sqlite3_finalize(q);
    sqlite3_close(db);
    free(r.offers);
    free(r.trades);
    idx_day_free(&dy);
    idx_grades_free(gs);
    store_close(st);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idx_day_collect_is_row_by_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
