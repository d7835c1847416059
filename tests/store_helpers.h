/* tests/store_helpers.h -- what tests/test_store.c and
 * tests/test_store_migrations.c both need: a store in a scratch folder, an
 * observation of the lambda H100 feed, a batch begun, a row put and the
 * batch committed (stamped at its begin time), a table's count through
 * the store and one integer from raw SQL, and a scan callback that keeps
 * up to 8 rows.  Helpers are static inline: a file uses what it needs. */
#ifndef GPI_TESTS_STORE_HELPERS_H
#define GPI_TESTS_STORE_HELPERS_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "store/batches.h"
#include "store/obs.h"
#include "store/store.h"
#include "store/testing.h"
#include "tests/testutil.h"

static inline store *open_tmp(char **path_out)
{
    char *dir = tu_mkdtemp("store");
    char path[4096];
    snprintf(path, sizeof path, "%s/t.db", dir);
    free(dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    if (path_out) *path_out = strdup(path);
    return st;
}

static inline gpi_obs obs(const char *day, uint64_t key, const char *ident, int64_t price)
{
    gpi_obs o;
    memset(&o, 0, sizeof o);
    int32_t dn;
    assert_null(gpi_date_parse(day, &dn));
    o.kind = GPI_OFFER;
    o.scope = GPI_SCOPE_VM;
    o.tier = GPI_TIER_GOLD;
    o.day = dn;
    o.observed_at = (int64_t)dn * 86400;
    o.key_hash = key;
    o.price_micro = price;
    o.quantity_micro = -1;
    o.gpu_count = 8;
    o.gpu = "H100-SXM-80GB";
    o.provider = "lambda";
    o.group = "lambda";
    o.segment = "neocloud";
    o.region = "us-east-1";
    o.source = "feed";
    o.ident = ident;
    o.raw_gpu = "H100";
    o.raw_provider = "Lambda";
    o.raw_price = "2.49";
    o.currency = "USD";
    o.sku = "gpu_8x_h100_sxm5";
    o.line = 7;
    return o;
}

static int64_t begun_at; /* the time of the last begin(), stamped again at commit() */

static inline int64_t begin(store *st, const char *sha, int64_t at)
{
    begun_at = at;
    store_batch_info info = {"f.csv", sha, NULL, "offers", "tables", at, 1234, NULL};
    int64_t id = 0;
    gpi_diag d = {{0}};
    if (store_batch_begin(st, &info, &id, &d) != GPI_OK) fail_msg("%s", d.msg);
    return id;
}

static inline store_put_result put(store *st, int64_t b, const gpi_obs *o)
{
    store_put_result r;
    gpi_diag d = {{0}};
    if (store_obs_put(st, b, o, &r, &d) != GPI_OK) fail_msg("%s", d.msg);
    return r;
}

static inline void commit(store *st, int64_t b, long read, long stored, long dup, long rej)
{
    store_batch_counts c = {read, stored, dup, rej};
    gpi_diag d = {{0}};
    if (store_batch_commit(st, b, &c, begun_at, &d) != GPI_OK) fail_msg("%s", d.msg);
}

static inline long count(store *st, const char *table)
{
    long n = -1;
    gpi_diag d = {{0}};
    if (store_count(st, table, &n, &d) != GPI_OK) fail_msg("%s", d.msg);
    return n;
}

static inline long sql_count(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) fail_msg("%s", sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    long v = (long)sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return v;
}

/* Runs sql on the closed database at path (behind the store's back). */
static inline void sql_ok(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) fail_msg("%s", sqlite3_errmsg(db));
    sqlite3_close(db);
}

typedef struct seen {
    int n;
    int32_t day[8];
    uint64_t key[8];
    char gpu[8][32], region[8][32], sku[8][32];
    int64_t price[8], qty[8];
    int attrs[8][7]; /* kind scope tier term months status unit */
} seen;

static inline int collect(const gpi_obs *o, void *ud)
{
    seen *s = ud;
    if (s->n >= 8) return 1;
    s->day[s->n] = o->day;
    s->key[s->n] = o->key_hash;
    snprintf(s->gpu[s->n], 32, "%s", o->gpu ? o->gpu : "(null)");
    snprintf(s->region[s->n], 32, "%s", o->region ? o->region : "(null)");
    snprintf(s->sku[s->n], 32, "%s", o->sku ? o->sku : "(null)");
    s->price[s->n] = o->price_micro;
    s->qty[s->n] = o->quantity_micro;
    int a[7] = {o->kind, o->scope, o->tier, o->term, o->term_months, o->status, o->unit};
    memcpy(s->attrs[s->n], a, sizeof a);
    s->n++;
    return 0;
}

#endif
