/* tests/test_store_profiles.c -- what repeats across rows: profiles (a
 * rolled back profile leaves with its transaction), their packs
 * (store/profiles.c note 5), rows numbered by their producer (store.c note
 * 9), and the facets the grade checks read (store_sets.c note 2). */
#include "tests/testutil.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "core/strbuf.h"
#include "store/store.h"
#include "store/batches.h"
#include "store/obs.h"

#include "tests/store_helpers.h"

static int facet_fn(const gpi_obs *o, void *ud)
{
    char *out = ud;
    size_t n = strlen(out);
    snprintf(out + n, 4096 - n, "%d/%d/%d|%s|%s|%s|%s|%s|%s\n", o->kind, o->scope, o->tier,
             o->gpu ? o->gpu : "-", o->provider ? o->provider : "-", o->group ? o->group : "-",
             o->segment ? o->segment : "-", o->region ? o->region : "-", o->sku ? o->sku : "-");
    return 0;
}

/* Issue 15: the facets the grade checks read are those of the profiles
 * noted as rows are stored; they are always the distinct facets of the
 * stored observations, also after a rolled-back file (whose notes leave
 * with it) and a second handle (which does not know what the first
 * wrote). */
static void test_facets_follow_the_observations(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    gpi_diag d = {{0}};
    int64_t b = begin(st, "sha-1", 100);
    gpi_obs a = obs("2024-03-01", 1, "A", 2490000);
    gpi_obs a2 = obs("2024-03-02", 2, "A", 2500000); /* same facet */
    gpi_obs n = obs("2024-03-01", 3, "N", 2490000);
    n.region = NULL; /* no region, no sku */
    n.sku = NULL;
    n.tier_given = 1; /* the given bits are no facet */
    gpi_obs n2 = obs("2024-03-02", 4, "N", 2490000);
    n2.region = NULL;
    n2.sku = NULL;
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &a2), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &n), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &n2), STORE_PUT_STORED);
    commit(st, b, 4, 4, 0, 0);
    gpi_obs t = obs("2024-03-01", 5, "T", 2490000);
    t.provider = t.group = "coreweave";
    b = begin(st, "sha-2", 200);
    assert_int_equal(put(st, b, &t), STORE_PUT_STORED);
    store_batch_rollback(st);
    char got[4096] = "";
    assert_int_equal(store_obs_facets(st, facet_fn, got, &d), GPI_OK);
    /* by name id: us-east-1 was interned first; no region is "" */
    assert_string_equal(got, "0/2/4|H100-SXM-80GB|lambda|lambda|neocloud|us-east-1|gpu_8x_h100_sxm5\n"
                             "0/2/4|H100-SXM-80GB|lambda|lambda|neocloud||-\n");
    b = begin(st, "sha-3", 300); /* the rolled-back facet, stored again */
    assert_int_equal(put(st, b, &t), STORE_PUT_STORED);
    commit(st, b, 1, 1, 0, 0);
    got[0] = '\0';
    assert_int_equal(store_obs_facets(st, facet_fn, got, &d), GPI_OK);
    assert_non_null(strstr(got, "|coreweave|"));
    store_close(st);
    assert_int_equal(store_open(path, &st, &d), GPI_OK);
    gpi_obs t2 = obs("2024-03-02", 6, "T", 2490000);
    t2.provider = t2.group = "coreweave";
    b = begin(st, "sha-4", 400);
    assert_int_equal(put(st, b, &t2), STORE_PUT_STORED);
    commit(st, b, 1, 1, 0, 0);
    got[0] = '\0';
    assert_int_equal(store_obs_facets(st, facet_fn, got, &d), GPI_OK);
    assert_string_equal(got, "0/2/4|H100-SXM-80GB|lambda|lambda|neocloud|us-east-1|gpu_8x_h100_sxm5\n"
                             "0/2/4|H100-SXM-80GB|lambda|lambda|neocloud||-\n"
                             "0/2/4|H100-SXM-80GB|coreweave|coreweave|neocloud|us-east-1|gpu_8x_h100_sxm5\n");
    store_close(st);
    /* the noted profiles are those of the stored observations */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT (SELECT group_concat(profile_id) FROM profiles"
                                        " WHERE noted),"
                                        " (SELECT group_concat(profile_id) FROM (SELECT DISTINCT"
                                        " profile_id FROM observations o JOIN profiles p"
                                        " ON p.profile_id = o.profile ORDER BY profile_id))",
                                        -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_non_null(sqlite3_column_text(q, 0));
    assert_string_equal((const char *)sqlite3_column_text(q, 0),
                        (const char *)sqlite3_column_text(q, 1));
    sqlite3_finalize(q);
    sqlite3_close(db);
    free(path);
}

/* What a scan gives of each row's profile, as text: key, region, gpu
 * count, gpu. */
static int profile_line(const gpi_obs *o, void *ud)
{
    gpi_sbuf_printf(ud, "%llu %s %d %s\n", (unsigned long long)o->key_hash,
                      o->region ? o->region : "-", o->gpu_count, o->gpu ? o->gpu : "-");
    return 0;
}

/* The same from the table, through the readable view. */
static char *view_profiles(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT key_hash, coalesce(region, '-'), gpu_count,"
                                        " coalesce(gpu, '-') FROM observations_readable"
                                        " ORDER BY day, key_hash, observed_at",
                                        -1, &q, NULL),
                     SQLITE_OK);
    gpi_sbuf b = {0};
    while (sqlite3_step(q) == SQLITE_ROW)
        gpi_sbuf_printf(&b, "%lld %s %d %s\n", (long long)sqlite3_column_int64(q, 0),
                          (const char *)sqlite3_column_text(q, 1), sqlite3_column_int(q, 2),
                          (const char *)sqlite3_column_text(q, 3));
    sqlite3_finalize(q);
    sqlite3_close(db);
    return b.p;
}

/* Issue 15: a handle loads the profiles from their packs (profiles.c note
 * 5).  1,100 profiles span two packs; a second batch adds to the last one.
 * Whatever happens to the packs -- one missing, one cut short, profiles
 * added without them -- a new handle reads every row with the table's
 * values; and a pack that decodes is what is read (a value changed in the
 * table behind the store's back is not seen while the pack stands). */
static void test_profile_packs(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    char region[1100][16];
    int64_t b = begin(st, "sha-1", 100);
    for (int i = 0; i < 1100; i++) {
        gpi_obs o = obs("2024-03-01", (uint64_t)i + 1, "A", 2490000);
        snprintf(region[i], sizeof region[i], "r%04d", i);
        o.region = region[i];
        o.gpu_count = i % 7 + 1;
        assert_int_equal(put(st, b, &o), STORE_PUT_STORED);
    }
    commit(st, b, 1100, 1100, 0, 0);
    b = begin(st, "sha-2", 200);
    gpi_obs o = obs("2024-03-01", 5000, "B", 2490000);
    o.gpu = "A100-SXM-40GB";
    assert_int_equal(put(st, b, &o), STORE_PUT_STORED);
    commit(st, b, 1, 1, 0, 0);
    store_close(st);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM profile_packs"), 2);
    assert_int_equal(sql_count(path, "SELECT sum(n) FROM profile_packs"), 1101);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM profiles WHERE noted"), 1101);
    char *want = view_profiles(path);
    assert_non_null(strstr(want, "\n5000 us-east-1 8 A100-SXM-40GB\n"));
    char copy[4200];
    snprintf(copy, sizeof copy, "%s.orig", path);
    {
        char cmd[8500];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, copy);
        assert_int_equal(system(cmd), 0);
    }
    static const struct {
        const char *name, *sql;
        int from_packs; /* the pack stands: the table's change is not seen */
    } cases[] = {
        {"intact", "", 0},
        {"last pack missing", "DELETE FROM profile_packs WHERE pack = 1;", 0},
        {"first pack missing", "DELETE FROM profile_packs WHERE pack = 0;", 0},
        {"cut short", "UPDATE profile_packs SET data = substr(data, 1, 100) WHERE pack = 0;", 0},
        {"wrong count", "UPDATE profile_packs SET n = n - 1 WHERE pack = 1;", 0},
        {"wrong format", "UPDATE profile_packs SET format = 2 WHERE pack = 0;", 0},
        {"added without packs",
         "INSERT INTO profiles SELECT 1102, attrs, gpu, provider, grp, segment, region, source,"
         " raw_gpu, raw_provider, currency, sku, correction, 3, 1 FROM profiles"
         " WHERE profile_id = 1;"
         "UPDATE observations SET profile = 1102 WHERE key_hash = 1;",
         0},
        {"changed behind the store's back",
         "UPDATE profiles SET gpu_count = 5 WHERE profile_id = 1;", 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char cmd[8500];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", copy, path);
        assert_int_equal(system(cmd), 0);
        sql_ok(path, cases[c].sql);
        char *table = view_profiles(path);
        gpi_diag d = {{0}};
        assert_int_equal(store_open(path, &st, &d), GPI_OK);
        int32_t d1;
        gpi_date_parse("2024-03-01", &d1);
        gpi_sbuf got = {0};
        assert_int_equal(store_obs_scan(st, d1, d1, 1000, profile_line, &got, &d), GPI_OK);
        store_close(st);
        if (!cases[c].from_packs && strcmp(got.p, table) != 0)
            fail_msg("%s: the scan's profiles are not the table's", cases[c].name);
        if (cases[c].from_packs) { /* key 1's count: 5 in the table, 1 in its pack */
            assert_true(strncmp(table, "1 r0000 5 ", 10) == 0);
            assert_string_equal(got.p, want);
        }
        free(table);
        free(got.p);
    }
    free(want);
    free(path);
}

/* Note 9 of store.c: rows numbered by their producer store what rows
 * without numbers store, also when a second numbering in the same batch
 * gives a number to another profile (its first row says so), and in the
 * next batch, where the numbers mean nothing any more. */
static void test_numbered_rows(void **state)
{
    (void)state;
    char *pa = NULL, *pb = NULL;
    store *sa = open_tmp(&pa), *sb = open_tmp(&pb);
    static const struct {
        const char *day, *ident, *gpu;
        uint32_t pseq, iseq;
        unsigned char pfirst, ifirst;
        int batch;
    } rows[] = {
        {"2024-03-01", "A", "H100-SXM-80GB", 1, 1, 1, 1, 1},
        {"2024-03-01", "B", "A100-SXM-40GB", 2, 2, 1, 1, 1},
        {"2024-03-02", "A", "H100-SXM-80GB", 1, 1, 0, 0, 1},
        /* a second numbering: 1 is now B200 and "C" */
        {"2024-03-02", "C", "B200", 1, 1, 1, 1, 1},
        {"2024-03-03", "C", "B200", 1, 1, 0, 0, 1},
        {"2024-03-03", "B", "A100-SXM-40GB", 2, 2, 0, 0, 1},
        /* the next batch: its numbering starts afresh */
        {"2024-03-04", "D", "L40S", 2, 2, 1, 1, 2},
        {"2024-03-05", "D", "L40S", 2, 2, 0, 0, 2},
    };
    int64_t ba = 0, bb = 0;
    int batch = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].batch != batch) {
            if (batch) {
                commit(sa, ba, 6, 6, 0, 0);
                commit(sb, bb, 6, 6, 0, 0);
            }
            batch = rows[i].batch;
            ba = begin(sa, batch == 1 ? "sha-1" : "sha-2", 100 * batch);
            bb = begin(sb, batch == 1 ? "sha-1" : "sha-2", 100 * batch);
        }
        gpi_obs o = obs(rows[i].day, 10 + i, rows[i].ident, 2490000);
        o.gpu = rows[i].gpu;
        assert_int_equal(put(sa, ba, &o), STORE_PUT_STORED);
        o.profile_seq = rows[i].pseq;
        o.ident_seq = rows[i].iseq;
        o.profile_first = rows[i].pfirst;
        o.ident_first = rows[i].ifirst;
        assert_int_equal(put(sb, bb, &o), STORE_PUT_STORED);
    }
    commit(sa, ba, 2, 2, 0, 0);
    commit(sb, bb, 2, 2, 0, 0);
    store_close(sa);
    store_close(sb);
    char *a = view_profiles(pa), *b = view_profiles(pb);
    assert_string_equal(b, a);
    assert_non_null(strstr(b, "14 us-east-1 8 B200\n"));
    assert_non_null(strstr(b, "17 us-east-1 8 L40S\n"));
    assert_int_equal(sql_count(pb, "SELECT count(*) FROM observations_readable WHERE"
                                   " (key_hash, ident) IN (VALUES (10, 'A'), (11, 'B'), (12, 'A'),"
                                   " (13, 'C'), (14, 'C'), (15, 'B'), (16, 'D'), (17, 'D'))"),
                     8);
    free(a);
    free(b);
    free(pa);
    free(pb);
}

/* Profiles stored in a transaction that is rolled back leave with it: the
 * next profile takes the same id, so a handle that remembered the rolled
 * back one would store a row under another row's values. */
static void test_profile_after_rollback(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    gpi_obs a = obs("2024-03-01", 1, "A", 2490000);
    gpi_obs b2 = obs("2024-03-01", 2, "B", 2490000);
    b2.gpu = "A100-SXM-40GB";
    int64_t b = begin(st, "sha-1", 100);
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    store_batch_rollback(st);
    b = begin(st, "sha-2", 200);
    assert_int_equal(put(st, b, &b2), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    commit(st, b, 2, 2, 0, 0);
    store_close(st);
    gpi_diag d = {{0}};
    assert_int_equal(store_open(path, &st, &d), GPI_OK);
    int32_t d1;
    gpi_date_parse("2024-03-01", &d1);
    seen s = {0};
    assert_int_equal(store_obs_scan(st, d1, d1, 1000, collect, &s, &d), GPI_OK);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.gpu[0], "H100-SXM-80GB"); /* key 1: a */
    assert_string_equal(s.gpu[1], "A100-SXM-40GB");
    store_close(st);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM observations_readable"), 2);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM profiles"), 2);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_facets_follow_the_observations),
        cmocka_unit_test(test_profile_after_rollback),
        cmocka_unit_test(test_profile_packs),
        cmocka_unit_test(test_numbered_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
