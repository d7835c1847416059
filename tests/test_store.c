/* tests/test_store.c -- batches, observations (stored / duplicate /
 * conflict / collision), rollback, re-ingest, interned names, the day scan
 * with its as-of cut-off (full and core), batch days and chain states (the
 * migrations: test_store_migrations.c; profiles, their packs, numbered rows
 * and facets: test_store_profiles.c). */
#include "tests/testutil.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/gpi.h"
#include "store/store.h"
#include "store/batches.h"
#include "store/chain_states.h"
#include "store/obs.h"
#include "store/testing.h"

#include "tests/store_helpers.h"

static void test_duplicate_conflict_collision(void **state)
{
    (void)state;
    store *st = open_tmp(NULL);
    int64_t b = begin(st, "sha-1", 100);
    gpi_obs a = obs("2024-03-01", 11, "X1", 2490000);
    a.tier_given = 1; /* the row gave its tier */
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &a), STORE_PUT_DUPLICATE);
    gpi_obs c = a;
    c.price_micro = 2500000;
    c.raw_price = "2.50";
    assert_int_equal(put(st, b, &c), STORE_PUT_CONFLICT);
    c = a;
    c.region = "eu-west-1"; /* an interned column differs */
    assert_int_equal(put(st, b, &c), STORE_PUT_CONFLICT);
    /* every other value the row gives: one change each is a conflict */
    for (int k = 0; k < 14; k++) {
        c = a;
        switch (k) {
        case 0: c.buyer = "someone"; break;
        case 1: c.tier = GPI_TIER_SILVER; break;
        case 2: c.term = GPI_TERM_SPOT; break;
        case 3: c.term = GPI_TERM_RESERVED; c.term_months = 12; break;
        case 4: c.scope = GPI_SCOPE_BARE_METAL; break;
        case 5: c.unit = GPI_UNIT_INSTANCE_HOUR; break;
        case 6: c.gpu = "H100-PCIE-80GB"; c.raw_gpu = "H100 PCIe"; break;
        case 7: c.provider = "lambda2"; c.raw_provider = "Lambda2"; break;
        case 8: c.quantity_micro = 5; break;
        case 9: c.gpu_count = 4; break;
        case 10: c.currency = "EUR"; c.price_micro = 2700000; break;
        case 11: c.tier_given = 0; c.tier = GPI_TIER_SILVER; break; /* given, then not */
        case 12: c.status_given = GPI_STATUS_CANCELLED; c.status = GPI_STATUS_CANCELLED; break;
        default: c.kind = GPI_TRADE; c.status = GPI_STATUS_CANCELLED; break;
        }
        store_put_result want = k == 13 ? STORE_PUT_COLLISION : STORE_PUT_CONFLICT;
        if (put(st, b, &c) != want) fail_msg("change %d was not a conflict", k);
    }
    /* Issue 12: what only the tables decide (canonical gpu, provider,
     * group, segment, the price through fx.csv, a tier from tiers.csv, the
     * affiliate status) may differ on a re-sent row: the row itself is the
     * same, a duplicate; and so are other spellings of the same values */
    for (int k = 0; k < 10; k++) {
        c = a;
        switch (k) {
        case 0: c.gpu = "H100-PCIE-80GB"; break;
        case 1: c.provider = "lambda2"; break;
        case 2: c.group = "other"; break;
        case 3: c.segment = "marketplace"; break;
        case 4: c.price_micro = 2500000; break;
        case 5: c.status = GPI_STATUS_AFFILIATE; break;
        case 6: c.provider = "x"; c.group = "x"; c.segment = "unknown"; c.gpu = "B200"; break;
        case 7: c.raw_provider = "LAMBDA"; break;
        case 8: c.raw_gpu = "h100"; break;
        default: c.raw_price = "2.490"; break;
        }
        if (put(st, b, &c) != STORE_PUT_DUPLICATE) fail_msg("table change %d was not a duplicate", k);
    }
    gpi_obs t = obs("2024-03-01", 12, "X3", 2490000); /* its tier from tiers.csv */
    assert_int_equal(put(st, b, &t), STORE_PUT_STORED);
    c = t;
    c.tier = GPI_TIER_SILVER;
    assert_int_equal(put(st, b, &c), STORE_PUT_DUPLICATE);
    c.tier_given = 1; /* now the row says silver */
    assert_int_equal(put(st, b, &c), STORE_PUT_CONFLICT);
    c = a;
    c.buyer = ""; /* an empty optional field is an absent one */
    assert_int_equal(put(st, b, &c), STORE_PUT_DUPLICATE);
    c = a;
    c.ident = "X2"; /* same hash, other identity */
    assert_int_equal(put(st, b, &c), STORE_PUT_COLLISION);
    c = a;
    c.observed_at += 3600; /* another time of the same key */
    assert_int_equal(put(st, b, &c), STORE_PUT_STORED);
    gpi_diag d = {{0}};
    assert_int_equal(store_reject_put(st, b, 9, "price", "raw,row", "f.csv:9: price: x", &d), GPI_OK);
    commit(st, b, 20, 2, 2, 16);
    assert_int_equal(count(st, "observations"), 3);
    assert_int_equal(count(st, "rejects"), 1);
    store_close(st);
}

static void test_rollback_leaves_nothing(void **state)
{
    (void)state;
    store *st = open_tmp(NULL);
    int64_t b = begin(st, "sha-1", 100);
    gpi_obs a = obs("2024-03-01", 1, "A", 1000000);
    a.gpu = "NEW-GPU-ONLY-IN-THIS-TX";
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    gpi_diag d = {{0}};
    assert_int_equal(store_reject_put(st, b, 3, NULL, "r", "m", &d), GPI_OK);
    store_batch_rollback(st);
    assert_int_equal(count(st, "observations"), 0);
    assert_int_equal(count(st, "rejects"), 0);
    assert_int_equal(count(st, "batches"), 0);
    int found = 1;
    assert_int_equal(store_batch_find(st, "sha-1", &found, NULL, &d), GPI_OK);
    assert_int_equal(found, 0);
    /* after the rollback the name cache must not hand out dead ids */
    b = begin(st, "sha-1", 100);
    a.gpu = "B200";
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    commit(st, b, 1, 1, 0, 0);
    assert_int_equal(store_batch_find(st, "sha-1", &found, NULL, &d), GPI_OK);
    assert_int_equal(found, 1);
    store_close(st);
}

/* store.c note 10: a small page cache, the large one from the first
 * batch of a large file (or of unknown size) on. */
static void test_cache_size(void **state)
{
    (void)state;
    static const struct {
        int64_t first, second; /* the two batches' file sizes */
        long after_first, after_second;
    } cases[] = {
        {1234, 1234, 2048, 2048},
        {32 << 20, (32 << 20) + 1, 2048, 16384}, /* over 32 MiB */
        {-1, 10, 16384, 16384},                   /* standard input: unknown */
        {(int64_t)1 << 40, 10, 16384, 16384},     /* kept for the handle's life */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        store *st = open_tmp(NULL);
        assert_int_equal(store_cache_kib(st), 2048);
        int64_t size[2] = {cases[i].first, cases[i].second};
        long want[2] = {cases[i].after_first, cases[i].after_second};
        for (int k = 0; k < 2; k++) {
            store_batch_info info = {"f.csv", k ? "sha-b" : "sha-a", NULL, "offers", "tables",
                                     100, size[k], NULL};
            int64_t id = 0;
            gpi_diag d = {{0}};
            if (store_batch_begin(st, &info, &id, &d) != GPI_OK) fail_msg("%s", d.msg);
            store_batch_rollback(st);
            if (store_cache_kib(st) != want[k])
                fail_msg("case %zu batch %d: %ld KiB, want %ld", i, k, store_cache_kib(st), want[k]);
        }
        store_close(st);
    }
}

/* Interned texts live in 64 KiB chunks (names.c): texts over a chunk get
 * one of their own, and every text reads back the same on the handle that
 * stored it and on a fresh one. */
typedef struct texts_seen {
    long n, bad;
} texts_seen;

static void region_of(long k, char *out, size_t cap)
{
    snprintf(out, cap, "region-%05ld-%s", k, k % 3 ? "abcdefghijklmnop" : "q");
}

static int check_texts(const gpi_obs *o, void *ud)
{
    texts_seen *t = ud;
    char want[64];
    region_of((long)o->key_hash, want, sizeof want);
    size_t glen = o->gpu ? strlen(o->gpu) : 0;
    int gpu_ok = o->key_hash % 1000 == 7 ? glen == 70000 && o->gpu[69999] == 'x'
                                          : o->gpu && strcmp(o->gpu, "H100-SXM-80GB") == 0;
    if (!o->region || strcmp(o->region, want) != 0 || !gpu_ok) t->bad++;
    t->n++;
    return 0;
}

static void test_name_chunks(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    char *big = malloc(70001);
    assert_non_null(big);
    memset(big, 'x', 70000);
    big[70000] = '\0';
    int64_t b = begin(st, "sha-1", 100);
    enum { N = 3000 };
    static char regions[N][64];
    for (long k = 1; k <= N; k++) {
        gpi_obs o = obs("2024-03-01", (uint64_t)k, "I", 1000000);
        region_of(k, regions[k - 1], sizeof regions[0]);
        o.region = regions[k - 1];
        if (k % 1000 == 7) o.gpu = big; /* a text larger than a chunk, now and then */
        assert_int_equal(put(st, b, &o), STORE_PUT_STORED);
    }
    commit(st, b, N, N, 0, 0);
    int32_t day;
    gpi_date_parse("2024-03-01", &day);
    gpi_diag d = {{0}};
    for (int pass = 0; pass < 2; pass++) {
        texts_seen t = {0};
        assert_int_equal(store_obs_scan(st, day, day, 200, check_texts, &t, &d), GPI_OK);
        assert_int_equal(t.n, N);
        assert_int_equal(t.bad, 0);
        store_close(st); /* then a fresh handle loads them from the database */
        assert_int_equal(store_open(path, &st, &d), GPI_OK);
    }
    store_close(st);
    free(big);
    free(path);
}

static void test_reingest_stores_nothing(void **state)
{
    (void)state;
    store *st = open_tmp(NULL);
    int64_t b = begin(st, "sha-1", 100);
    gpi_obs rows[3] = {obs("2024-03-01", 1, "A", 1000000), obs("2024-03-01", 2, "B", 2000000),
                       obs("2024-03-02", 1, "A", 1000000)};
    for (int i = 0; i < 3; i++) assert_int_equal(put(st, b, &rows[i]), STORE_PUT_STORED);
    commit(st, b, 3, 3, 0, 0);
    b = begin(st, "sha-2", 200);
    for (int i = 0; i < 3; i++) assert_int_equal(put(st, b, &rows[i]), STORE_PUT_DUPLICATE);
    commit(st, b, 3, 0, 3, 0);
    assert_int_equal(count(st, "observations"), 3);
    assert_int_equal(count(st, "batches"), 2);
    store_close(st);
}

static void test_scan_by_day_as_of(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    int64_t b = begin(st, "sha-1", 100);
    gpi_obs a = obs("2024-03-01", 5, "A", 1000000);
    gpi_obs c = obs("2024-03-01", 3, "C", 3000000);
    c.sku = NULL;
    c.quantity_micro = 64000000;
    c.kind = GPI_TRADE;
    c.scope = GPI_SCOPE_CONTAINER;
    c.tier = GPI_TIER_PLATINUM;
    c.term = GPI_TERM_RESERVED;
    c.term_months = 60;
    c.status = GPI_STATUS_AFFILIATE;
    c.unit = GPI_UNIT_INSTANCE_MONTH;
    c.buyer = "someone";
    gpi_obs e = obs("2024-03-03", 1, "E", 5000000);
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &c), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &e), STORE_PUT_STORED);
    commit(st, b, 3, 3, 0, 0);
    b = begin(st, "sha-2", 200);
    gpi_obs late = obs("2024-03-01", 4, "L", 4000000);
    late.gpu = "B200";
    assert_int_equal(put(st, b, &late), STORE_PUT_STORED);
    commit(st, b, 1, 1, 0, 0);
    store_close(st);

    /* a fresh handle loads the names from the database */
    gpi_diag d = {{0}};
    assert_int_equal(store_open(path, &st, &d), GPI_OK);
    int32_t d1, d2;
    gpi_date_parse("2024-03-01", &d1);
    gpi_date_parse("2024-03-02", &d2);
    seen s = {0};
    assert_int_equal(store_obs_scan(st, d1, d2, 150, collect, &s, &d), GPI_OK);
    assert_int_equal(s.n, 2); /* the late batch and day 3 are out */
    assert_int_equal(s.key[0], 3);
    assert_int_equal(s.key[1], 5);
    assert_string_equal(s.gpu[0], "H100-SXM-80GB");
    assert_string_equal(s.region[0], "us-east-1");
    assert_string_equal(s.sku[0], "(null)");
    assert_string_equal(s.sku[1], "gpu_8x_h100_sxm5");
    assert_int_equal(s.price[0], 3000000);
    assert_int_equal(s.qty[0], 64000000);
    assert_int_equal(s.qty[1], -1);
    int want_c[7] = {GPI_TRADE, GPI_SCOPE_CONTAINER, GPI_TIER_PLATINUM, GPI_TERM_RESERVED, 60,
                     GPI_STATUS_AFFILIATE, GPI_UNIT_INSTANCE_MONTH};
    int want_a[7] = {GPI_OFFER, GPI_SCOPE_VM, GPI_TIER_GOLD, GPI_TERM_ON_DEMAND, 0, GPI_STATUS_OK,
                     GPI_UNIT_GPU_HOUR};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(s.attrs[0][i], want_c[i]);
        assert_int_equal(s.attrs[1][i], want_a[i]);
    }
    /* the core scan: the same rows and fields a fix needs, no audit fields */
    seen core = {0};
    assert_int_equal(store_obs_scan_core(st, d1, d2, 150, collect, &core, &d), GPI_OK);
    assert_int_equal(core.n, 2);
    assert_memory_equal(core.key, s.key, sizeof s.key);
    assert_memory_equal(core.attrs, s.attrs, sizeof s.attrs);
    assert_memory_equal(core.price, s.price, sizeof s.price);
    assert_memory_equal(core.qty, s.qty, sizeof s.qty);
    assert_string_equal(core.gpu[0], "H100-SXM-80GB");
    assert_string_equal(core.region[1], "us-east-1");
    assert_string_equal(core.sku[1], "gpu_8x_h100_sxm5"); /* grades filter on the sku */
    /* the core scan of one day after every batch reads neither day nor
     * batch (scan.c note 4): the same rows and fields, the day included;
     * with a batch after the cut-off, that batch's rows are out */
    seen one = {0};
    memset(&s, 0, sizeof s);
    assert_int_equal(store_obs_scan(st, d1, d1, 200, collect, &s, &d), GPI_OK);
    assert_int_equal(store_obs_scan_core(st, d1, d1, 200, collect, &one, &d), GPI_OK);
    assert_int_equal(one.n, 3);
    assert_memory_equal(one.day, s.day, sizeof s.day);
    assert_memory_equal(one.key, s.key, sizeof s.key);
    assert_memory_equal(one.attrs, s.attrs, sizeof s.attrs);
    assert_memory_equal(one.price, s.price, sizeof s.price);
    assert_memory_equal(one.qty, s.qty, sizeof s.qty);
    assert_memory_equal(one.sku, s.sku, sizeof s.sku);
    assert_int_equal(one.day[0], d1);
    assert_int_equal(one.qty[2], -1); /* no quantity */
    memset(&one, 0, sizeof one);
    assert_int_equal(store_obs_scan_core(st, d1, d1, 150, collect, &one, &d), GPI_OK);
    assert_int_equal(one.n, 2);
    assert_int_equal(one.key[0], 3);
    assert_int_equal(one.key[1], 5);
    memset(&s, 0, sizeof s);
    assert_int_equal(store_obs_scan(st, d1, d2, 200, collect, &s, &d), GPI_OK);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.key[1], 4);
    assert_string_equal(s.gpu[1], "B200");
    memset(&s, 0, sizeof s);
    assert_int_equal(store_obs_scan(st, d1, d1 + 2, 200, collect, &s, &d), GPI_OK);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.day[3], d1 + 2);
    store_close(st);
    free(path);
}

/* A batch is stamped at commit, and index build's check finds the batches
 * above the last one it saw that fall inside its cut-off. */
static void test_batch_stamp_and_since(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    gpi_diag d = {{0}};
    int64_t max_id = -1;
    assert_int_equal(store_batch_max_id(st, &max_id, &d), GPI_OK);
    assert_int_equal(max_id, 0);
    int64_t b1 = begin(st, "sha-1", 100);
    begun_at = 150; /* the commit's second, not the begin's, is the stamp */
    commit(st, b1, 0, 0, 0, 0);
    int64_t b2 = begin(st, "sha-2", 200);
    commit(st, b2, 0, 0, 0, 0);
    assert_int_equal(store_batch_max_id(st, &max_id, &d), GPI_OK);
    assert_int_equal(max_id, b2);
    static const struct {
        int64_t above, as_of;
        long want;
    } cases[] = {{0, 149, 0}, {0, 150, 1}, {0, 200, 2}, {1, 199, 0}, {1, 200, 1}, {2, 999, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long n = -1;
        assert_int_equal(store_batches_since(st, cases[i].above, cases[i].as_of, &n, &d), GPI_OK);
        if (n != cases[i].want)
            fail_msg("above %lld as_of %lld: %ld, want %ld", (long long)cases[i].above,
                     (long long)cases[i].as_of, n, cases[i].want);
    }
    store_close(st);
    free(path);
}

/* Issue 15: a build reserves its cut-off; a batch committed afterwards is
 * stamped after it, whatever its clock says, so the build need not wait
 * for the cut-off second to end.  A lower reservation never lowers it. */
static void test_cutoff_reserve(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    gpi_diag d = {{0}};
    static const struct {
        int64_t reserve; /* 0: none before this batch */
        int64_t committed_at, want_stamp;
    } cases[] = {
        {0, 100, 100},   /* nothing reserved: the commit's second */
        {300, 300, 301}, /* committed in the reserved second: after it */
        {0, 250, 301},   /* a clock behind the reservation */
        {200, 290, 301}, /* a lower reservation keeps 300 */
        {0, 400, 400},   /* a later clock wins */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t r = cases[i].reserve;
        if (r) assert_int_equal(store_cutoff_reserve(st, &r, 0, &d), GPI_OK);
        assert_int_equal(r, cases[i].reserve); /* a given cut-off stays */
        char sha[16];
        snprintf(sha, sizeof sha, "sha-%zu", i);
        int64_t b = begin(st, sha, cases[i].committed_at);
        commit(st, b, 0, 0, 0, 0);
        long n = -1;
        /* stamped want_stamp: counted at as_of = want, not at want - 1 */
        assert_int_equal(store_batches_since(st, b - 1, cases[i].want_stamp - 1, &n, &d), GPI_OK);
        assert_int_equal(n, 0);
        assert_int_equal(store_batches_since(st, b - 1, cases[i].want_stamp, &n, &d), GPI_OK);
        if (n != 1) fail_msg("case %zu: not stamped %lld", i, (long long)cases[i].want_stamp);
    }
    /* a build at its own time (second 350) after a file stamped 400 (a
     * clock behind, or a file committed in a reserved second) takes 400,
     * so it sees that file; the next file is stamped after it */
    int64_t r = 350;
    assert_int_equal(store_cutoff_reserve(st, &r, 1, &d), GPI_OK);
    assert_int_equal(r, 400);
    int64_t b = begin(st, "sha-last", 350);
    commit(st, b, 0, 0, 0, 0);
    long n = -1;
    assert_int_equal(store_batches_since(st, b - 1, 401, &n, &d), GPI_OK);
    assert_int_equal(n, 1);
    assert_int_equal(store_batches_since(st, b - 1, 400, &n, &d), GPI_OK);
    assert_int_equal(n, 0);
    store_close(st);
    free(path);
}

static void test_batch_hash_placeholder(void **state)
{
    (void)state;
    store *st = open_tmp(NULL);
    int64_t b = begin(st, "pending", 100);
    gpi_diag d = {{0}};
    /* the size becomes the bytes hashed (the file grew while it was read) */
    assert_int_equal(store_batch_set_sha256(st, b, "abc", 1300, &d), GPI_OK);
    commit(st, b, 0, 0, 0, 0);
    int found = 0;
    int64_t id = 0;
    assert_int_equal(store_batch_find(st, "abc", &found, &id, &d), GPI_OK);
    assert_int_equal(found, 1);
    assert_int_equal(id, b);
    assert_int_equal(store_batch_find(st, "pending", &found, &id, &d), GPI_OK);
    assert_int_equal(found, 0);
    assert_int_equal(store_batch_size_seen(st, 1300, &found, &d), GPI_OK);
    assert_int_equal(found, 1);
    assert_int_equal(store_batch_size_seen(st, 1234, &found, &d), GPI_OK);
    assert_int_equal(found, 0);
    store_close(st);
}

/* Migration 11: a batch records the days of the rows it stored, and
 * store_obs_reached answers "did a batch between two cut-offs store rows
 * of these days" from them; a batch without recorded days (committed
 * before the migration) reaches every day, one that stored nothing none.
 * Chain states are kept per (grade hash, day), replaced, and the grade's
 * states before the last keep_days days dropped. */
/* Flips the lowest bit of byte k of the chain state of grade hash in the
 * database at path. */
static void flip_bit(const char *path, const char *hash, int k)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT state FROM chain_states WHERE grade_hash = ?1", -1, &s,
                           NULL) != SQLITE_OK)
        fail_msg("%s: %s", path, sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, hash, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_ROW) fail_msg("no state of %s", hash);
    int n = sqlite3_column_bytes(s, 0);
    unsigned char *b = malloc((size_t)n);
    memcpy(b, sqlite3_column_blob(s, 0), (size_t)n);
    sqlite3_finalize(s);
    assert_true(k < n);
    b[k] ^= 1;
    if (sqlite3_prepare_v2(db, "UPDATE chain_states SET state = ?1 WHERE grade_hash = ?2", -1, &s,
                           NULL) != SQLITE_OK)
        fail_msg("%s", sqlite3_errmsg(db));
    sqlite3_bind_blob(s, 1, b, n, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, hash, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_DONE) fail_msg("%s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    sqlite3_close(db);
    free(b);
}

/* A chain state is stored sealed (chain_states.c note 4): every way a stored
 * state can be damaged or filed under another key is refused, saying why,
 * and a sealed state is a function of what was stored alone (issue 31:
 * one flipped bit, or H200's state filed under H100, changed published
 * values with exit 0). */
static void test_chain_state_seal(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    gpi_diag d = {{0}};
    const unsigned char s1[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const char *const h1 = "1111111111111111111111111111111111111111111111111111111111111111",
                             *const h2 = "2222222222222222222222222222222222222222222222222222222222222222";
    assert_int_equal(store_begin(st, &d), GPI_OK);
    assert_int_equal(store_chain_state_put(st, h1, 2, 100, 500, 1, s1, sizeof s1, 3, &d), GPI_OK);
    assert_int_equal(store_chain_state_put(st, h2, 2, 100, 500, 1, s1, sizeof s1, 3, &d), GPI_OK);
    assert_int_equal(store_commit(st, &d), GPI_OK);
    store_close(st);
    /* the sealed bytes: deterministic (the same for another database) */
    char *path2 = NULL;
    store *st2 = open_tmp(&path2);
    assert_int_equal(store_begin(st2, &d), GPI_OK);
    assert_int_equal(store_chain_state_put(st2, h1, 2, 100, 500, 1, s1, sizeof s1, 3, &d), GPI_OK);
    assert_int_equal(store_commit(st2, &d), GPI_OK);
    store_close(st2);
    char q[8200];
    snprintf(q, sizeof q, "sqlite3 %s \"SELECT hex(state) FROM chain_states WHERE grade_hash = "
                          "'%s'\" && sqlite3 %s \"SELECT hex(state) FROM chain_states\"",
             path, h1, path2);
    tu_run r = tu_sh(NULL, "%s", q);
    size_t half = strlen(r.out) / 2;
    assert_true(half > 100);
    assert_memory_equal(r.out, r.out + half, half);
    tu_run_free(&r);
    /* the state: 128 header bytes, the 9 bytes, 64 hex digits */
    static const struct {
        const char *what, *sql; /* changes the stored h1 state */
        int flip;               /* or: the byte whose lowest bit is flipped (+1) */
        int method;
        int32_t day;
        const char *why;        /* NULL: read back */
    } cases[] = {
        {"as stored", NULL, 0, 2, 100, NULL},
        {"asked as another method's", NULL, 0, 3, 100, "it is a state of methodology v2, not v3"},
        {"a bit of the state flipped", NULL, 131, 2, 100,
         "its checksum does not match (the bytes are damaged)"},
        {"a bit of the header's cut-off flipped", NULL, 33, 2, 100,
         "its checksum does not match (the bytes are damaged)"},
        {"a bit of the checksum flipped", NULL, 141, 2, 100,
         "its checksum does not match (the bytes are damaged)"},
        {"cut short", "UPDATE chain_states SET state = substr(state, 1, length(state) - 1)", 0, 2,
         100, "its size does not match its seal (cut short or grown)"},
        {"H2's state filed under h1",
         "UPDATE chain_states SET state = (SELECT state FROM chain_states WHERE grade_hash LIKE "
         "'2%') WHERE grade_hash LIKE '1%'",
         0, 2, 100,
         "it is the state of grade definition 222222222222..., filed under 111111111111..."},
        {"another day's state", "UPDATE chain_states SET day = 101 WHERE grade_hash LIKE '1%'", 0,
         2, 101, "it is the state after 1970-04-11, filed under 1970-04-12"},
        {"another cut-off", "UPDATE chain_states SET as_of = 501 WHERE grade_hash LIKE '1%'", 0,
         2, 100, "its cut-off or encoding is not the one it is filed with"},
        {"a state without a seal (an older gpuidx)",
         "UPDATE chain_states SET state = x'010203' WHERE grade_hash LIKE '1%'", 0, 2, 100,
         "it has no seal (stored by an older gpuidx, or overwritten)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p3 = NULL;
        store *s3 = open_tmp(&p3);
        store_close(s3);
        r = tu_sh(NULL, "rm -f %s-wal %s-shm && cp %s %s", p3, p3, path, p3);
        tu_run_free(&r);
        if (cases[i].sql) {
            r = tu_sh(NULL, "sqlite3 %s \"%s\"", p3, cases[i].sql);
            if (r.status != 0) fail_msg("%s: %s", cases[i].what, r.err);
            tu_run_free(&r);
        }
        if (cases[i].flip) flip_bit(p3, h1, cases[i].flip - 1);
        assert_int_equal(store_open(p3, &s3, &d), GPI_OK);
        unsigned char *p = NULL;
        size_t n = 0;
        int64_t as_of = 0;
        int format = 0;
        char why[256];
        if (store_chain_state_get(s3, h1, cases[i].method, cases[i].day, &p, &n, &as_of, &format,
                                  why, sizeof why, &d) != GPI_OK)
            fail_msg("%s: %s", cases[i].what, d.msg);
        if (!cases[i].why) {
            if (!p) fail_msg("%s: refused: %s", cases[i].what, why);
            assert_int_equal(n, sizeof s1);
            assert_memory_equal(p, s1, n);
            assert_string_equal(why, "");
        } else {
            if (p) fail_msg("%s: read back", cases[i].what);
            assert_string_equal(why, cases[i].why);
        }
        free(p);
        store_close(s3);
        free(p3);
    }
    free(path);
    free(path2);
}

static void test_batch_days_and_chain_states(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    gpi_diag d = {{0}};
    int32_t d1;
    gpi_date_parse("2024-03-01", &d1);
    int64_t b = begin(st, "sha-a", 100); /* days d1 .. d1 + 4 */
    gpi_obs o = obs("2024-03-01", 1, "A", 1000000);
    assert_int_equal(put(st, b, &o), STORE_PUT_STORED);
    o = obs("2024-03-05", 2, "B", 1000000);
    assert_int_equal(put(st, b, &o), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &o), STORE_PUT_DUPLICATE);
    commit(st, b, 3, 2, 1, 0);
    b = begin(st, "sha-b", 200); /* day d1 + 10, one row */
    o = obs("2024-03-11", 3, "C", 1000000);
    assert_int_equal(put(st, b, &o), STORE_PUT_STORED);
    commit(st, b, 1, 1, 0, 0);
    b = begin(st, "sha-c", 300); /* only a duplicate: stores nothing */
    assert_int_equal(put(st, b, &o), STORE_PUT_DUPLICATE);
    commit(st, b, 1, 0, 1, 0);
    store_close(st);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM batches WHERE sha256 = 'sha-a' AND"
                                      " min_day = 19783 AND max_day = 19787"),
                     1);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM batches WHERE sha256 = 'sha-c' AND"
                                      " min_day IS NULL AND max_day IS NULL"),
                     1);
    gpi_diag dd = {{0}};
    assert_int_equal(store_open(path, &st, &dd), GPI_OK);
    static const struct {
        int lo, hi;       /* days after d1 */
        int64_t t1, t2;
        int want;
    } cases[] = {
        {0, 0, 0, 100, 1},     {4, 9, 0, 100, 1},     {5, 9, 0, 100, 0},
        {5, 9, 100, 0, 0},     {-3, -1, 50, 150, 0},  {10, 10, 100, 200, 1},
        {10, 10, 200, 100, 1}, {10, 10, 200, 999, 0}, {0, 20, 100, 100, 0},
        {11, 30, 0, 999, 0},   {9, 11, 150, 250, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int any = -1;
        assert_int_equal(store_obs_reached(st, d1 + cases[i].lo, d1 + cases[i].hi, cases[i].t1,
                                           cases[i].t2, &any, &d),
                         GPI_OK);
        if (any != cases[i].want)
            fail_msg("case %zu: days +%d..+%d between %lld and %lld: %d, want %d", i, cases[i].lo,
                     cases[i].hi, (long long)cases[i].t1, (long long)cases[i].t2, any,
                     cases[i].want);
    }
    store_close(st);
    /* a batch of before migration 11 that stored rows: every day */
    sql_ok(path, "UPDATE batches SET min_day = NULL, max_day = NULL WHERE sha256 = 'sha-b'");
    assert_int_equal(store_open(path, &st, &dd), GPI_OK);
    int any = -1;
    assert_int_equal(store_obs_reached(st, d1 + 50, d1 + 60, 100, 200, &any, &d), GPI_OK);
    assert_int_equal(any, 1);
    /* chain states */
    const unsigned char s1[] = {1, 2, 3}, s2[] = {4, 5, 0, 6};
    assert_int_equal(store_begin(st, &d), GPI_OK);
    for (int k = 0; k < 5; k++)
        assert_int_equal(store_chain_state_put(st, "h1", 2, d1 + k, 500 + k, 1, s1, sizeof s1, 3,
                                               &d),
                         GPI_OK);
    assert_int_equal(store_chain_state_put(st, "h1", 2, d1 + 4, 777, 2, s2, sizeof s2, 3, &d),
                     GPI_OK);
    assert_int_equal(store_chain_state_put(st, "h2", 2, d1, 900, 1, s1, sizeof s1, 3, &d), GPI_OK);
    assert_int_equal(store_commit(st, &d), GPI_OK);
    static const struct {
        const char *hash;
        int day;
        int found;
        int64_t as_of;
        int format;
        size_t n;
    } got[] = {{"h1", 0, 0, 0, 0, 0},        {"h1", 1, 0, 0, 0, 0},
               {"h1", 2, 1, 502, 1, 3},      {"h1", 3, 1, 503, 1, 3},
               {"h1", 4, 1, 777, 2, 4},      {"h2", 0, 1, 900, 1, 3},
               {"h3", 0, 0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++) {
        unsigned char *p = NULL;
        size_t n = 0;
        int64_t as_of = 0;
        int format = 0;
        char why[256] = "x";
        assert_int_equal(store_chain_state_get(st, got[i].hash, 2, d1 + got[i].day, &p, &n, &as_of,
                                               &format, why, sizeof why, &d),
                         GPI_OK);
        assert_string_equal(why, "");
        if ((p != NULL) != got[i].found)
            fail_msg("%s day %d: found %d", got[i].hash, got[i].day, p != NULL);
        if (p) {
            assert_int_equal(as_of, got[i].as_of);
            assert_int_equal(format, got[i].format);
            assert_int_equal(n, got[i].n);
            assert_memory_equal(p, n == 4 ? s2 : s1, n);
        }
        free(p);
    }
    store_close(st);
    free(path);
}

/* store_day_batches (a published row's receipt): the batches ingested at
 * or before the cut-off holding rows of the day -- the definition, run
 * here as SQL over the observations, on every day around the batches and
 * every cut-off.  The batches: one spanning days with gaps (its range
 * says nothing of a day inside it), one of a single day, one without a
 * recorded range (committed before migration 11), one that stored
 * nothing, one ingested later. */
static int day_batch(const char *sha, const char *tables, void *ud)
{
    char *out = ud;
    assert_string_equal(tables, "tables");
    strcat(out, sha);
    strcat(out, " ");
    return 0;
}

static void test_day_batches(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    static const struct {
        const char *sha;
        int64_t at;
        const char *days[3]; /* of its rows */
    } batches[] = {
        {"sha-span", 100, {"2024-03-01", "2024-03-03", "2024-03-05"}},
        {"sha-day", 200, {"2024-03-02", NULL, NULL}},
        {"sha-old", 300, {"2024-03-04", "2024-03-07", NULL}},
        {"sha-none", 400, {NULL, NULL, NULL}}, /* a duplicate only */
        {"sha-late", 500, {"2024-03-03", NULL, NULL}},
    };
    uint64_t key = 1;
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        int64_t b = begin(st, batches[i].sha, batches[i].at);
        long n = 0;
        for (int k = 0; k < 3 && batches[i].days[k]; k++, n++) {
            char ident[16];
            snprintf(ident, sizeof ident, "K%llu", (unsigned long long)key);
            gpi_obs o = obs(batches[i].days[k], key++, ident, 1000000);
            assert_int_equal(put(st, b, &o), STORE_PUT_STORED);
        }
        if (n == 0) {
            gpi_obs o = obs("2024-03-01", 1, "K1", 1000000);
            assert_int_equal(put(st, b, &o), STORE_PUT_DUPLICATE);
        }
        commit(st, b, n ? n : 1, n, n ? 0 : 1, 0);
    }
    store_close(st);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE batches SET min_day = NULL, max_day = NULL"
                                      " WHERE sha256 = 'sha-old'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT group_concat(sha256 || ' ', '') FROM (SELECT"
                                        " sha256 FROM batches WHERE ingested_at <= ?2 AND"
                                        " batch_id IN (SELECT batch_id FROM observations"
                                        " WHERE day = ?1) ORDER BY sha256)",
                                        -1, &q, NULL),
                     SQLITE_OK);
    gpi_diag d = {{0}};
    assert_int_equal(store_open(path, &st, &d), GPI_OK);
    int32_t d1;
    gpi_date_parse("2024-03-01", &d1);
    static const int64_t cuts[] = {50, 100, 250, 350, 450, 999};
    int inside_gap = 0, old_found = 0;
    for (int32_t day = d1 - 1; day <= d1 + 7; day++)
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            char got[256] = "";
            assert_int_equal(store_day_batches(st, day, cuts[c], day_batch, got, &d), GPI_OK);
            sqlite3_reset(q);
            sqlite3_bind_int64(q, 1, day);
            sqlite3_bind_int64(q, 2, cuts[c]);
            assert_int_equal(sqlite3_step(q), SQLITE_ROW);
            const char *want = (const char *)sqlite3_column_text(q, 0);
            if (strcmp(got, want ? want : "") != 0)
                fail_msg("day +%d, cut-off %lld: %s, want %s", (int)(day - d1),
                         (long long)cuts[c], got, want ? want : "");
            inside_gap += cuts[c] == 999 && (day == d1 + 1 || day == d1 + 3) && !strstr(got, "span");
            old_found += strstr(got, "sha-old") != NULL;
        }
    assert_int_equal(inside_gap, 2); /* days inside sha-span's range without its rows */
    assert_true(old_found > 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    store_close(st);
    free(path);
}

/* ---- waiting writers (store/tx.c) ------------------------------------------------ */

typedef struct waiter {
    store *st;
    int began; /* store_begin returned (the writers' lock is held) */
    pthread_mutex_t mu;
} waiter;

static void *wait_and_write(void *arg)
{
    waiter *w = arg;
    gpi_diag d = {{0}};
    int ok = store_begin(w->st, &d) == GPI_OK;
    pthread_mutex_lock(&w->mu);
    w->began = ok ? 1 : -1;
    pthread_mutex_unlock(&w->mu);
    if (ok) store_commit(w->st, &d);
    return NULL;
}

static int began(waiter *w)
{
    pthread_mutex_lock(&w->mu);
    int b = w->began;
    pthread_mutex_unlock(&w->mu);
    return b;
}

/* A holder of the writers' lock sees a writer waiting for it (none before,
 * none once it got in), and store_writers_let_in returns only once that
 * writer holds the lock. */
static void test_writers_waiting(void **state)
{
    (void)state;
    char *path;
    store *a = open_tmp(&path), *b = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(store_writers_waiting(a), -1); /* no transaction: no lock held */
    assert_int_equal(store_begin(a, &d), GPI_OK);
    assert_int_equal(store_writers_waiting(a), 0);
    assert_int_equal(store_open(path, &b, &d), GPI_OK);
    waiter w = {b, 0, PTHREAD_MUTEX_INITIALIZER};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, wait_and_write, &w), 0);
    int queued = 0;
    for (int i = 0; i < 5000 && !queued; i++) { /* up to 5 s for the thread to queue */
        queued = store_writers_waiting(a) == 1;
        if (!queued) nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    assert_true(queued);
    assert_int_equal(began(&w), 0); /* it waits */
    assert_int_equal(store_commit(a, &d), GPI_OK);
    store_writers_let_in(a); /* returns once it holds the lock: */
    assert_int_equal(store_begin(a, &d), GPI_OK); /* this waited for its commit */
    assert_int_equal(began(&w), 1);
    pthread_join(th, NULL);
    assert_int_equal(store_writers_waiting(a), 0);
    store_rollback(a);
    store_close(b);
    store_close(a);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duplicate_conflict_collision),
        cmocka_unit_test(test_rollback_leaves_nothing),
        cmocka_unit_test(test_reingest_stores_nothing),
        cmocka_unit_test(test_scan_by_day_as_of),
        cmocka_unit_test(test_batch_stamp_and_since),
        cmocka_unit_test(test_cutoff_reserve),
        cmocka_unit_test(test_batch_hash_placeholder),
        cmocka_unit_test(test_batch_days_and_chain_states),
        cmocka_unit_test(test_chain_state_seal),
        cmocka_unit_test(test_day_batches),
        cmocka_unit_test(test_writers_waiting),
        cmocka_unit_test(test_cache_size),
        cmocka_unit_test(test_name_chunks),
    };
    return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
