/* tests/test_store_migrations.c -- a database taken back to an older
 * schema and opened again: migrations 3 (the key's kind bit), 6 (version 2
 * identities with their version 1 aliases) and 10 (profiles), each
 * leaving the rows, keys and readable view a fresh store gives. */
#include "store/obs.h"
#include "store/store.h"
#include "tests/schema9.h"
#include "tests/store_helpers.h"

static void test_migration_key_kind_bit(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    int64_t b = begin(st, "sha-1", 100);
    const uint64_t top = (uint64_t)1 << 63;
    gpi_obs offer = obs("2024-03-01", top | 7, "O", 1000000); /* old key, top bit set */
    gpi_obs trade = obs("2024-03-01", 9, "T", 2000000);       /* old key, top bit clear */
    trade.kind = GPI_TRADE;
    trade.quantity_micro = 1000000;
    gpi_obs ok_offer = obs("2024-03-02", 5, "P", 3000000);
    assert_int_equal(put(st, b, &offer), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &trade), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &ok_offer), STORE_PUT_STORED);
    commit(st, b, 3, 3, 0, 0);
    store_close(st);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    /* back to schema 2: undo migrations 4 to 11, then let 3 to 11 run again */
    assert_int_equal(sqlite3_exec(db, undo_10, NULL, NULL, NULL), SQLITE_OK);
    const char *sql = "INSERT INTO index_exclusions VALUES ('g', 1, 1, 9, 0, 'x', 1, 'r');"
                      "INSERT INTO index_exclusions VALUES ('g', 1, 0, -2, 0, 'x', 1, 'r');"
                      /* migration 9's columns */
                      "ALTER TABLE index_values DROP COLUMN loo_move_e4;"
                      "ALTER TABLE index_values DROP COLUMN loo_provider;"
                      "ALTER TABLE index_values DROP COLUMN loo_voids;"
                      "ALTER TABLE index_values DROP COLUMN cost_tick_e2;"
                      "ALTER TABLE index_values DROP COLUMN cost_pct_e2;"
                      "ALTER TABLE index_values DROP COLUMN cost_tick_offers;"
                      "ALTER TABLE index_values DROP COLUMN cost_pct_offers;"
                      "ALTER TABLE index_values DROP COLUMN chain_prev_nano;"
                      "ALTER TABLE index_values DROP COLUMN carry_prev;"
                      "ALTER TABLE index_values DROP COLUMN xs_carry;"
                      "ALTER TABLE index_values DROP COLUMN ref_volumes;"
                      "ALTER TABLE index_values DROP COLUMN anchor_window;"
                      "DROP TABLE obs_facets;"    /* of migration 8 */
                      "DROP TABLE cutoffs;"       /* of migration 7 */
                      "DROP TABLE ident_aliases;" /* of migration 6 */
                      "ALTER TABLE index_values DROP COLUMN xs_value_e4;"
                      "ALTER TABLE index_values DROP COLUMN xs_level;"
                      "ALTER TABLE index_values DROP COLUMN chain_nano;"
                      "ALTER TABLE index_values DROP COLUMN relative_e12;"
                      "ALTER TABLE index_values DROP COLUMN n_matched;"
                      "ALTER TABLE index_values DROP COLUMN n_matched_providers;"
                      "ALTER TABLE index_values DROP COLUMN panel_change;"
                      "ALTER TABLE index_values DROP COLUMN event;"
                      "ALTER TABLE index_values DROP COLUMN splice_e12;"
                      "ALTER TABLE index_values DROP COLUMN ref_day;"
                      "ALTER TABLE index_values DROP COLUMN panel_day;"
                      "ALTER TABLE index_values DROP COLUMN obs_p10_micro;"
                      "ALTER TABLE index_values DROP COLUMN obs_p25_micro;"
                      "ALTER TABLE index_values DROP COLUMN obs_p50_micro;"
                      "ALTER TABLE index_values DROP COLUMN obs_p75_micro;"
                      "ALTER TABLE index_values DROP COLUMN obs_p90_micro;"
                      "ALTER TABLE index_values DROP COLUMN obs_min_micro;"
                      "ALTER TABLE index_values DROP COLUMN obs_max_micro;"
                      "ALTER TABLE index_values DROP COLUMN note;"
                      "ALTER TABLE index_values DROP COLUMN matched_now_q;"
                      "ALTER TABLE index_values DROP COLUMN matched_ref_q;"
                      "ALTER TABLE index_values DROP COLUMN carried;"
                      "ALTER TABLE index_published DROP COLUMN row_tail;"
                      "ALTER TABLE index_published DROP COLUMN ref_day;"
                      "ALTER TABLE index_published DROP COLUMN panel_day;"
                      "ALTER TABLE index_vintages DROP COLUMN format;"
                      "DROP VIEW observations_readable;"
                      "ALTER TABLE observations DROP COLUMN correction;"
                      "ALTER TABLE index_vintages DROP COLUMN grades_sha256;"
                      "DROP TABLE grade_drops;"
                      "DROP INDEX batches_sha;"
                      "ALTER TABLE batches DROP COLUMN options;"
                      "CREATE UNIQUE INDEX batches_sha ON batches(sha256);"
                      "CREATE VIEW observations_readable AS SELECT * FROM observations;"
                      "PRAGMA user_version = 2;";
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    gpi_diag d = {{0}};
    assert_int_equal(store_open(path, &st, &d), GPI_OK);
    int32_t d1;
    gpi_date_parse("2024-03-01", &d1);
    seen s = {0};
    assert_int_equal(store_obs_scan(st, d1, d1 + 1, 1000, collect, &s, &d), GPI_OK);
    assert_int_equal(s.n, 3);
    assert_true(s.key[0] == (top | 9)); /* the trade, now first in its day */
    assert_int_equal(s.attrs[0][0], GPI_TRADE);
    assert_true(s.key[1] == 7);
    assert_true(s.key[2] == 5);
    store_close(st);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT kind, key_hash FROM index_exclusions"
                                            " ORDER BY kind", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_true(sqlite3_column_int64(q, 1) == INT64_MAX - 1); /* -2 with the top bit cleared */
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_true((uint64_t)sqlite3_column_int64(q, 1) == (top | 9));
    sqlite3_finalize(q);
    sqlite3_close(db);
    free(path);
}

/* A row stored with an identity of version 1 of the rule: the canonical
 * provider first and, for a trade, the status after the affiliate rule;
 * key and attrs as they were stored then. */
static gpi_obs legacy(const char *raw_provider, const char *provider, int kind, int status,
                     const char *ident)
{
    gpi_obs o = obs("2024-03-01", 0, ident, 2490000);
    o.kind = kind;
    o.raw_provider = raw_provider;
    o.provider = provider;
    o.group = provider;
    o.status = status;
    o.status_given = status;
    o.raw_gpu = "H100";
    o.sku = "p5";
    o.gpu_count = 1;
    o.region = kind == GPI_TRADE ? "" : "us-east-1";
    if (kind == GPI_TRADE) {
        o.quantity_micro = 10000000;
        o.buyer = "Amazon Retail";
        o.raw_price = "1";
        o.price_micro = 1000000;
        o.sku = NULL;
    }
    o.key_hash = gpi_store_key(kind, gpi_identity_hash(kind, o.source, ident));
    return o;
}

/* Issue 12: identities no longer depend on providers.csv (version 2 of
 * the rule).  Rows stored before keep theirs (the published key stays);
 * migration 6 records the version 2 key of each as an alias, so a
 * re-sent row finds the stored one: a duplicate (or a conflict), never a
 * second row. */
static void test_migration_identity_aliases(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    int64_t b = begin(st, "sha-1", 100);
    const char *v1_offer = "aws|us-east-1|H100|p5|1|vm|on-demand|0|gpu-hour";
    const char *v1_trade = "aws||H100||1|vm|on-demand|0|gpu-hour|1|USD|10|Amazon Retail|affiliate|";
    gpi_obs l1 = legacy("Amazon Web Services", "aws", GPI_OFFER, GPI_STATUS_OK, v1_offer);
    gpi_obs l2 = legacy("aws", "aws", GPI_TRADE, GPI_STATUS_AFFILIATE, v1_trade);
    gpi_obs l3 = legacy("Lambda", "lambda", GPI_OFFER, GPI_STATUS_OK,
                        "lambda|us-east-1|H100|p5|1|vm|on-demand|0|gpu-hour");
    gpi_obs l4 = legacy("Amazon Web Services", "aws", GPI_OFFER, GPI_STATUS_OK, "X1"); /* an id */
    l4.id = "X1";
    assert_int_equal(put(st, b, &l1), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &l2), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &l3), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &l4), STORE_PUT_STORED);
    commit(st, b, 4, 4, 0, 0);
    store_close(st);
    /* back to schema version 5, as such a database was */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, undo_10, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE observations SET attrs = attrs & 1048575;"
                                      "DROP TABLE ident_aliases; DROP TABLE cutoffs;"
                                      " DROP TABLE obs_facets;"
                                      " ALTER TABLE index_values DROP COLUMN loo_move_e4;"
                                      " ALTER TABLE index_values DROP COLUMN loo_provider;"
                                      " ALTER TABLE index_values DROP COLUMN loo_voids;"
                                      " ALTER TABLE index_values DROP COLUMN cost_tick_e2;"
                                      " ALTER TABLE index_values DROP COLUMN cost_pct_e2;"
                                      " ALTER TABLE index_values DROP COLUMN cost_tick_offers;"
                                      " ALTER TABLE index_values DROP COLUMN cost_pct_offers;"
                                      " ALTER TABLE index_values DROP COLUMN chain_prev_nano;"
                                      " ALTER TABLE index_values DROP COLUMN carry_prev;"
                                      " ALTER TABLE index_values DROP COLUMN xs_carry;"
                                      " ALTER TABLE index_values DROP COLUMN ref_volumes;"
                                      " ALTER TABLE index_values DROP COLUMN anchor_window;"
                                      " PRAGMA user_version = 5;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);

    gpi_diag d = {{0}};
    assert_int_equal(store_open(path, &st, &d), GPI_OK); /* migration 6 */
    /* one alias for the offer, one for the trade (its status as written
     * may have been "ok"; "affiliate" gives its own identity back) */
    const char *v2_offer = "amazon web services|us-east-1|H100|p5|1|vm|on-demand|0|gpu-hour";
    const char *v2_trade = "aws||H100||1|vm|on-demand|0|gpu-hour|1|USD|10|Amazon Retail|ok|";
    b = begin(st, "sha-2", 200);
    gpi_obs n1 = l1, n2 = l2;
    n1.ident = v2_offer;
    n1.key_hash = gpi_store_key(GPI_OFFER, gpi_identity_hash(GPI_OFFER, "feed", v2_offer));
    n1.provider = n1.group = "amazon"; /* and providers.csv changed meanwhile */
    n2.ident = v2_trade;
    n2.key_hash = gpi_store_key(GPI_TRADE, gpi_identity_hash(GPI_TRADE, "feed", v2_trade));
    n2.status_given = GPI_STATUS_OK;
    assert_int_equal(put(st, b, &n1), STORE_PUT_DUPLICATE);
    assert_int_equal(put(st, b, &n2), STORE_PUT_DUPLICATE);
    gpi_obs c = n1;
    c.raw_price = "2.60";
    c.price_micro = 2600000;
    assert_int_equal(put(st, b, &c), STORE_PUT_CONFLICT);
    c = n1;
    c.observed_at += 60; /* another snapshot: a new row, under the new key */
    assert_int_equal(put(st, b, &c), STORE_PUT_STORED);
    commit(st, b, 4, 1, 2, 1);
    assert_int_equal(count(st, "observations"), 5);
    store_close(st);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM ident_aliases", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 2);
    sqlite3_finalize(q);
    /* the stored identities (and so the published keys) did not change */
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM observations_readable WHERE"
                                            " ident IN (?1, ?2)", -1, &q, NULL), SQLITE_OK);
    sqlite3_bind_text(q, 1, v1_offer, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, v1_trade, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 2);
    sqlite3_finalize(q);
    sqlite3_close(db);
    free(path);
}

/* The whole readable view, one line per row: column names first, then
 * each value with its type (malloc'd; free it). */
static char *view_text(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    if (sqlite3_prepare_v2(db, "SELECT * FROM observations_readable ORDER BY day, key_hash,"
                               " observed_at", -1, &q, NULL) != SQLITE_OK)
        fail_msg("%s", sqlite3_errmsg(db));
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    int nc = sqlite3_column_count(q);
    for (int i = 0; i < nc; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s|", sqlite3_column_name(q, i));
    n += (size_t)snprintf(out + n, cap - n, "\n");
    while (sqlite3_step(q) == SQLITE_ROW) {
        for (int i = 0; i < nc; i++) {
            int t = sqlite3_column_type(q, i);
            const char *v = (const char *)sqlite3_column_text(q, i);
            n += (size_t)snprintf(out + n, cap - n, "%c:%s|", "?iftbn"[t], v ? v : "");
        }
        n += (size_t)snprintf(out + n, cap - n, "\n");
        assert_true(n < cap - 1024);
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    return out;
}

/* Issue 15: migration 10 moves what repeats across the rows of an offer or
 * feed into profiles.  A schema 9 database -- rows stored by the store and
 * rows written the way older versions did (no "given" bits in attrs, no
 * sku, currency or correction, a text identity) -- shows exactly the same
 * readable view after it, each distinct combination is one profile, and
 * the duplicate check and the scan work on the migrated rows. */
static void test_migration_profiles(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    int64_t b = begin(st, "sha-1", 100);
    gpi_obs a = obs("2024-03-01", 11, "X1", 2490000);
    a.tier_given = 1;
    gpi_obs a2 = a; /* the next snapshot of the same offer: the same profile */
    a2.observed_at += 3600;
    a2.price_micro = 2510000;
    a2.raw_price = "2.51";
    gpi_obs c = obs("2024-03-01", 12, "X2", 3000000);
    c.sku = NULL;
    c.quantity_micro = 5000000;
    c.correction = "skus.csv:3: gpu_count 12 -> 8";
    gpi_obs t = obs("2024-03-02", (uint64_t)1 << 63 | 13, "T1", 2000000);
    t.kind = GPI_TRADE;
    t.status = GPI_STATUS_AFFILIATE;
    t.buyer = "Lambda Research";
    t.quantity_micro = 10000000;
    t.currency = "EUR";
    t.raw_price = "1.8";
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &a2), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &c), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &t), STORE_PUT_STORED);
    commit(st, b, 4, 4, 0, 0);
    store_close(st);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM profiles"), 3);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, undo_10, NULL, NULL, NULL), SQLITE_OK);
    /* two rows as schema 9 stored them before the given bits: attrs offer,
     * vm, gold, on-demand; no sku, currency or correction; a text ident */
    const char *old_rows =
        "INSERT INTO names(name) VALUES ('A100-SXM-40GB'), ('old-feed');"
        "INSERT INTO observations(day, key_hash, observed_at, attrs, batch_id, line, gpu,"
        " provider, grp, segment, price_micro, quantity_micro, gpu_count, region, source, ident,"
        " buyer, raw_gpu, raw_provider, raw_price, currency, sku, correction)"
        " SELECT 19783, 21, 1709251200, 36, 1, 3, g.name_id, p.provider, p.grp, p.segment,"
        " 1200000, NULL, 1, p.region, s.name_id, 'legacy|x', NULL, p.raw_gpu, p.raw_provider,"
        " '1.20', NULL, NULL, NULL FROM observations p, names g, names s"
        " WHERE p.key_hash = 11 AND p.observed_at = 1709251200 AND g.name = 'A100-SXM-40GB'"
        " AND s.name = 'old-feed';"
        "INSERT INTO observations SELECT day, 22, observed_at, attrs, batch_id, 4, gpu, provider,"
        " grp, segment, 1300000, quantity_micro, gpu_count, region, source, 'legacy|y', buyer,"
        " raw_gpu, raw_provider, '1.30', currency, sku, correction FROM observations"
        " WHERE key_hash = 21;";
    if (sqlite3_exec(db, old_rows, NULL, NULL, NULL) != SQLITE_OK)
        fail_msg("%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    char *before = view_text(path);
    assert_non_null(strstr(before, "|t:A100-SXM-40GB|"));
    assert_non_null(strstr(before, "|t:legacy|y|"));

    gpi_diag d = {{0}};
    assert_int_equal(store_open(path, &st, &d), GPI_OK); /* migration 10 */
    store_close(st);
    char *after = view_text(path);
    assert_string_equal(after, before);
    /* a, a2 | c | t | the two old rows */
    assert_int_equal(sql_count(path, "SELECT count(*) FROM profiles"), 4);
    assert_int_equal(sql_count(path, "PRAGMA user_version"), 17); /* every migration */

    /* the migrated rows are the stored ones for the duplicate check */
    assert_int_equal(store_open(path, &st, &d), GPI_OK);
    b = begin(st, "sha-2", 200);
    assert_int_equal(put(st, b, &a), STORE_PUT_DUPLICATE);
    assert_int_equal(put(st, b, &t), STORE_PUT_DUPLICATE);
    gpi_obs x = c;
    x.quantity_micro = 6000000;
    assert_int_equal(put(st, b, &x), STORE_PUT_CONFLICT);
    x = c;
    x.ident = "X3"; /* another identity under c's key */
    assert_int_equal(put(st, b, &x), STORE_PUT_COLLISION);
    gpi_obs old = obs("2024-03-01", 21, "legacy|x", 1200000);
    old.gpu = "A100-SXM-40GB";
    old.source = "old-feed";
    old.gpu_count = 1;
    old.raw_price = "1.20";
    old.currency = old.sku = NULL;
    old.line = 3;
    old.tier_given = 1;
    assert_int_equal(put(st, b, &old), STORE_PUT_DUPLICATE);
    old.tier = GPI_TIER_SILVER; /* stored before the given bits: its tier as stored */
    assert_int_equal(put(st, b, &old), STORE_PUT_CONFLICT);
    commit(st, b, 6, 0, 3, 0);
    int32_t d1;
    gpi_date_parse("2024-03-01", &d1);
    seen s = {0};
    assert_int_equal(store_obs_scan(st, d1, d1 + 1, 1000, collect, &s, &d), GPI_OK);
    assert_int_equal(s.n, 6);
    assert_string_equal(s.gpu[0], "H100-SXM-80GB");
    assert_true(s.key[1] == 11 && s.price[1] == 2510000);
    assert_string_equal(s.sku[2], "(null)");
    assert_int_equal(s.qty[2], 5000000);
    assert_string_equal(s.gpu[3], "A100-SXM-40GB");
    assert_int_equal(s.attrs[3][2], GPI_TIER_GOLD);
    assert_int_equal(s.attrs[5][0], GPI_TRADE);
    assert_int_equal(s.attrs[5][5], GPI_STATUS_AFFILIATE);
    store_close(st);
    free(before);
    free(after);
    free(path);
}

static int count_facet(const gpi_obs *o, void *ud)
{
    (void)o;
    ++*(int *)ud;
    return 0;
}

/* Migration 12 on a database of schema 11: a profile is noted exactly when
 * its facet is in obs_facets (a profile whose only row was refused as a
 * conflict is not), every profile is in a pack, the facets read from the
 * noted profiles are obs_facets' rows, and obs_facets goes. */
static void test_migration_noted_profiles(void **state)
{
    (void)state;
    char *path = NULL;
    store *st = open_tmp(&path);
    int64_t b = begin(st, "sha-1", 100);
    gpi_obs a = obs("2024-03-01", 1, "A", 2490000);
    gpi_obs c = obs("2024-03-01", 2, "C", 2490000);
    c.gpu = "A100-SXM-40GB";
    gpi_obs x = a; /* a's key, identity and time, another region: refused */
    x.region = "eu-west-1";
    assert_int_equal(put(st, b, &a), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &c), STORE_PUT_STORED);
    assert_int_equal(put(st, b, &x), STORE_PUT_CONFLICT);
    commit(st, b, 3, 2, 0, 0);
    store_close(st);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM profiles"), 3);
    sql_ok(path, undo_12);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM obs_facets"), 2);
    gpi_diag d = {{0}};
    assert_int_equal(store_open(path, &st, &d), GPI_OK); /* migration 12 */
    int n = 0;
    assert_int_equal(store_obs_facets(st, count_facet, &n, &d), GPI_OK);
    assert_int_equal(n, 2);
    store_close(st);
    assert_int_equal(sql_count(path, "PRAGMA user_version"), 17); /* every migration */
    assert_int_equal(sql_count(path, "SELECT group_concat(noted, '') FROM (SELECT noted FROM"
                                     " profiles ORDER BY profile_id)"),
                     110);
    assert_int_equal(sql_count(path, "SELECT sum(n) FROM profile_packs"), 3);
    assert_int_equal(sql_count(path, "SELECT count(*) FROM sqlite_master WHERE name = 'obs_facets'"),
                     0);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_migration_key_kind_bit),
        cmocka_unit_test(test_migration_identity_aliases),
        cmocka_unit_test(test_migration_profiles),
        cmocka_unit_test(test_migration_noted_profiles),
    };
    return cmocka_run_group_tests_name("store_migrations", tests, NULL, NULL);
}
