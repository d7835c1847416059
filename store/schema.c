/* store/schema.c -- the database schema, as an ordered list of migrations.
 *
 * Schema version N means migrations 1..N have run (PRAGMA user_version).
 * A migration is never edited once released: new tables and columns come
 * as a new entry at the end.
 *
 * Design notes:
 *  (1) observations is WITHOUT ROWID with primary key
 *      (day, key_hash, observed_at): the duplicate check is one key lookup
 *      and a day's observations are one contiguous range, so ingest
 *      maintains exactly one b-tree.
 *  (2) money is INTEGER micro-USD per GPU-hour; quantities are INTEGER
 *      millionths of a GPU-hour (or of a GPU for offers).
 *  (3) raw values as written (gpu, provider, price, currency, unit, sku)
 *      are kept for audit, with the batch and physical line.
 *  (4) repeated text (gpu, provider, grp, segment, region, source, raw_gpu,
 *      raw_provider, currency, sku) is interned in `names` and stored as
 *      its name_id (store/names.c): rows stay small and ingest fast.
 *      ident is interned for offers (an offer's identity repeats in
 *      every snapshot: the real feed has 8,083 idents in 2.5 M rows) and
 *      stays text for trades (usually one row each), so the column holds
 *      an INTEGER name_id or TEXT.  buyer and raw_price stay text.
 *  (5) observations declares no foreign key and no NOT NULL beyond its
 *      key: only store_obs_put writes it, always with every value and
 *      inside the transaction that created the batch, and the per-row
 *      parent lookup and null checks cost about a tenth of the insert.
 *      (rejects, written far less often, keep their foreign key.)
 */
#include "store/internal.h"

const char *const store_migrations[] = {
    /* 1: ingest */
    "CREATE TABLE batches ("
    "  batch_id INTEGER PRIMARY KEY,"
    "  path TEXT NOT NULL,"
    "  sha256 TEXT NOT NULL,"
    "  source TEXT,"
    "  kind_hint TEXT,"
    "  tables_sha256 TEXT,"
    "  ingested_at INTEGER NOT NULL,"
    "  n_read INTEGER, n_stored INTEGER, n_duplicates INTEGER, n_rejected INTEGER"
    ");"
    "CREATE UNIQUE INDEX batches_sha ON batches(sha256);"
    "CREATE TABLE names ("
    "  name_id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE"
    ");"
    "CREATE TABLE observations ("
    "  day INTEGER NOT NULL,"
    "  key_hash INTEGER NOT NULL,"
    "  observed_at INTEGER NOT NULL,"
    "  kind INTEGER,"
    "  batch_id INTEGER,"              /* batches.batch_id, see note (5) */
    "  line INTEGER,"
    "  gpu INTEGER,"                   /* names */
    "  provider INTEGER,"              /* names */
    "  grp INTEGER,"                   /* names */
    "  segment INTEGER,"               /* names */
    "  scope INTEGER,"
    "  tier INTEGER,"
    "  term INTEGER,"
    "  term_months INTEGER,"
    "  status INTEGER,"
    "  price_micro INTEGER,"
    "  quantity_micro INTEGER,"
    "  gpu_count INTEGER,"
    "  region INTEGER,"                /* names */
    "  source INTEGER,"                /* names */
    "  ident,"                         /* names (offers) or TEXT (trades) */
    "  buyer TEXT,"
    "  raw_gpu INTEGER, raw_provider INTEGER, raw_price TEXT, currency INTEGER," /* names */
    "  unit INTEGER, sku INTEGER,"     /* sku: names */
    "  PRIMARY KEY (day, key_hash, observed_at)"
    ") WITHOUT ROWID;"
    "CREATE TABLE rejects ("
    "  reject_id INTEGER PRIMARY KEY,"
    "  batch_id INTEGER NOT NULL REFERENCES batches(batch_id),"
    "  line INTEGER NOT NULL,"
    "  column_name TEXT,"
    "  raw_row TEXT,"
    "  reason TEXT NOT NULL"
    ");",
    /* 2: index values and their publications (store/store_index.c) */
    "CREATE TABLE index_values ("
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  day INTEGER NOT NULL,"
    "  level INTEGER NOT NULL,"
    "  value_e4 INTEGER,"
    "  n_obs INTEGER NOT NULL, n_excluded INTEGER NOT NULL, n_providers INTEGER NOT NULL,"
    "  trade_volume_e2 INTEGER NOT NULL,"
    "  adjustment_e6 INTEGER,"
    "  p10_micro INTEGER, p25_micro INTEGER, p50_micro INTEGER, p75_micro INTEGER,"
    "  p90_micro INTEGER, min_micro INTEGER, max_micro INTEGER,"
    "  top_share_e6 INTEGER,"
    "  methodology TEXT NOT NULL,"
    "  PRIMARY KEY (grade, day)"
    ") WITHOUT ROWID;"
    "CREATE TABLE index_published ("
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  level INTEGER NOT NULL,"
    "  value_e4 INTEGER,"
    "  PRIMARY KEY (grade, day, vintage)"
    ") WITHOUT ROWID;",
};

const int store_n_migrations = (int)(sizeof store_migrations / sizeof store_migrations[0]);
