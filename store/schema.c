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
 *      stays text for trades (usually one row each) and for offers once
 *      the names table holds STORE_MAX_INTERNED names (a feed whose ids
 *      never repeat must not grow the in-memory name cache without bound),
 *      so the column holds an INTEGER name_id or TEXT; identities are
 *      compared as text.  buyer and raw_price stay text.
 *  (5) observations declares no foreign key and no NOT NULL beyond its
 *      key: only store_obs_put writes it, always with every value and
 *      inside the transaction that created the batch, and the per-row
 *      parent lookup and null checks cost about a tenth of the insert.
 *      (rejects, written far less often, keep their foreign key.)
 *  (6) kind, scope, tier, term, status, unit and term_months are packed
 *      into one integer `attrs` (layout in store.c, store_obs_attrs): seven
 *      columns fewer per row is a tenth of the insert's work.  The view
 *      observations_readable unpacks them and resolves every name, for
 *      people and ad-hoc SQL; the program reads through store_obs_scan.
 *      Migration 5 adds covers (bits 18-19) the same way; from migration
 *      6 bits 20-23 keep what the row itself gave (store.c note 7).
 *  (7) From migration 10 a row keeps only what changes from snapshot to
 *      snapshot: key (day, key_hash, observed_at), batch_id, line,
 *      price_micro, quantity_micro, ident, buyer, raw_price.  attrs, the
 *      interned columns of note (4) and gpu_count repeat across the rows
 *      of one offer or feed and are one row of `profiles`, referenced by
 *      `profile` (store/profiles.c): measured on the bench market's year
 *      (10.6 M rows) 58,749 distinct combinations, on the real catalogue
 *      (2.2 M rows) 4,862, where quantity_micro would have multiplied
 *      them by 15 and ident by 60.  Rows shrink from 73 to about 45
 *      bytes; the columns a scan needs come first (store.c note 8).
 *      observations_readable shows exactly the columns and values it did.
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
    "  n_bytes INTEGER,"
    "  n_read INTEGER, n_stored INTEGER, n_duplicates INTEGER, n_rejected INTEGER"
    ");"
    "CREATE UNIQUE INDEX batches_sha ON batches(sha256);"
    "CREATE INDEX batches_bytes ON batches(n_bytes);"
    "CREATE TABLE names ("
    "  name_id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE"
    ");"
    "CREATE TABLE observations ("
    "  day INTEGER NOT NULL,"
    "  key_hash INTEGER NOT NULL,"
    "  observed_at INTEGER NOT NULL,"
    "  attrs INTEGER,"                 /* packed enumerations, note (6) */
    "  batch_id INTEGER,"              /* batches.batch_id, note (5) */
    "  line INTEGER,"
    "  gpu INTEGER,"                   /* names */
    "  provider INTEGER,"              /* names */
    "  grp INTEGER,"                   /* names */
    "  segment INTEGER,"               /* names */
    "  price_micro INTEGER,"
    "  quantity_micro INTEGER,"
    "  gpu_count INTEGER,"
    "  region INTEGER,"                /* names */
    "  source INTEGER,"                /* names */
    "  ident,"                         /* names (offers) or TEXT (trades) */
    "  buyer TEXT,"
    "  raw_gpu INTEGER, raw_provider INTEGER, raw_price TEXT, currency INTEGER," /* names */
    "  sku INTEGER,"                   /* names */
    "  PRIMARY KEY (day, key_hash, observed_at)"
    ") WITHOUT ROWID;"
    /* the same, readable: enumerations unpacked, names resolved */
    "CREATE VIEW observations_readable AS SELECT"
    "  date(o.day * 86400, 'unixepoch') AS date, o.day, o.key_hash,"
    "  datetime(o.observed_at, 'unixepoch') AS observed_at,"
    "  CASE o.attrs & 1 WHEN 0 THEN 'offer' ELSE 'trade' END AS kind,"
    "  CASE (o.attrs >> 1) & 3 WHEN 0 THEN 'bare-metal' WHEN 1 THEN 'managed'"
    "    WHEN 2 THEN 'vm' ELSE 'container' END AS scope,"
    "  CASE (o.attrs >> 3) & 7 WHEN 0 THEN 'unrated' WHEN 1 THEN 'underperform'"
    "    WHEN 2 THEN 'bronze' WHEN 3 THEN 'silver' WHEN 4 THEN 'gold' ELSE 'platinum' END AS tier,"
    "  CASE (o.attrs >> 6) & 3 WHEN 0 THEN 'on-demand' WHEN 1 THEN 'spot' ELSE 'reserved' END"
    "    AS term,"
    "  (o.attrs >> 12) & 63 AS term_months,"
    "  CASE (o.attrs >> 8) & 3 WHEN 0 THEN 'ok' WHEN 1 THEN 'cancelled' ELSE 'affiliate' END"
    "    AS status,"
    "  CASE (o.attrs >> 10) & 3 WHEN 0 THEN 'gpu-hour' WHEN 1 THEN 'instance-hour'"
    "    WHEN 2 THEN 'gpu-month' ELSE 'instance-month' END AS unit,"
    "  o.batch_id, o.line, g.name AS gpu, p.name AS provider, gr.name AS grp,"
    "  sg.name AS segment, o.price_micro, o.quantity_micro, o.gpu_count,"
    "  r.name AS region, s.name AS source,"
    "  CASE typeof(o.ident) WHEN 'integer' THEN (SELECT name FROM names WHERE name_id = o.ident)"
    "    ELSE o.ident END AS ident,"
    "  o.buyer, rg.name AS raw_gpu, rp.name AS raw_provider, o.raw_price,"
    "  c.name AS currency, k.name AS sku"
    " FROM observations o"
    " LEFT JOIN names g ON g.name_id = o.gpu LEFT JOIN names p ON p.name_id = o.provider"
    " LEFT JOIN names gr ON gr.name_id = o.grp LEFT JOIN names sg ON sg.name_id = o.segment"
    " LEFT JOIN names r ON r.name_id = o.region LEFT JOIN names s ON s.name_id = o.source"
    " LEFT JOIN names rg ON rg.name_id = o.raw_gpu"
    " LEFT JOIN names rp ON rp.name_id = o.raw_provider"
    " LEFT JOIN names c ON c.name_id = o.currency LEFT JOIN names k ON k.name_id = o.sku;"
    "CREATE TABLE rejects ("
    "  reject_id INTEGER PRIMARY KEY,"
    "  batch_id INTEGER NOT NULL REFERENCES batches(batch_id),"
    "  line INTEGER NOT NULL,"
    "  column_name TEXT,"
    "  raw_row TEXT,"
    "  reason TEXT NOT NULL"
    ");",
    /* 2: grades, index values, their detail and publications
     *    (store/store_index.c).  Raw values are quarter-micro-USD. */
    "CREATE TABLE grades ("
    "  id TEXT NOT NULL COLLATE NOCASE,"
    "  version INTEGER NOT NULL,"
    "  hash TEXT NOT NULL,"
    "  definition TEXT NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (id, version)"
    ");"
    "CREATE INDEX grades_hash ON grades(hash);"
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
    "  trades_raw_q INTEGER, offers_raw_q INTEGER,"
    "  carry_days INTEGER NOT NULL DEFAULT 0,"
    "  grade_version INTEGER, grade_hash TEXT, as_of INTEGER, built_at INTEGER,"
    "  PRIMARY KEY (grade, day)"
    ") WITHOUT ROWID;"
    "CREATE TABLE index_exclusions ("
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  day INTEGER NOT NULL,"
    "  kind INTEGER NOT NULL,"
    "  key_hash INTEGER NOT NULL,"
    "  observed_at INTEGER NOT NULL,"
    "  grp TEXT NOT NULL,"
    "  price_micro INTEGER NOT NULL,"
    "  reason TEXT NOT NULL,"
    "  PRIMARY KEY (grade, day, kind, key_hash, observed_at)"
    ") WITHOUT ROWID;"
    "CREATE TABLE index_adj_days ("
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  day INTEGER NOT NULL,"
    "  src_day INTEGER NOT NULL,"
    "  trades_raw_q INTEGER NOT NULL,"
    "  offers_raw_q INTEGER NOT NULL,"
    "  PRIMARY KEY (grade, day, src_day)"
    ") WITHOUT ROWID;"
    "CREATE TABLE index_published ("
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  level INTEGER NOT NULL,"
    "  value_e4 INTEGER,"
    "  as_of INTEGER, grade_hash TEXT, row_csv TEXT, row_json TEXT,"
    "  PRIMARY KEY (grade, day, vintage)"
    ") WITHOUT ROWID;"
    "CREATE INDEX index_published_day ON index_published(day, vintage);"
    "CREATE TABLE index_vintages ("
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  index_csv_sha256 TEXT NOT NULL,"
    "  index_json_sha256 TEXT NOT NULL,"
    "  observations_csv_sha256 TEXT NOT NULL,"
    "  PRIMARY KEY (day, vintage)"
    ");"
    "CREATE TABLE index_restatements ("
    "  day INTEGER NOT NULL,"
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  vintage INTEGER NOT NULL,"
    "  old_e4 INTEGER, new_e4 INTEGER,"
    "  reason TEXT NOT NULL,"
    "  PRIMARY KEY (day, grade, vintage)"
    ");"
    "CREATE TABLE index_revisions ("
    "  day INTEGER NOT NULL,"
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  vintage INTEGER NOT NULL,"
    "  old_e4 INTEGER, new_e4 INTEGER,"
    "  recorded_at INTEGER NOT NULL,"
    "  PRIMARY KEY (day, grade, vintage, new_e4)"
    ");"
    "CREATE TABLE index_builds ("
    "  build_id INTEGER PRIMARY KEY,"
    "  started_at INTEGER NOT NULL,"
    "  from_day INTEGER NOT NULL, to_day INTEGER NOT NULL,"
    "  as_of INTEGER NOT NULL,"
    "  methodology TEXT NOT NULL,"
    "  grade_hashes TEXT NOT NULL"
    ");",
    /* 3: the top bit of key_hash is the kind (core/obs.h, gpi_store_key):
     *    rows stored before it get their keys' top bit set or cleared.
     *    Published files do not change: observations.csv shows and orders
     *    by the identity hash (the key before this migration), recomputed
     *    from kind, source and ident, so a vintage published before it is
     *    regenerated byte for byte after it. */
    "UPDATE observations SET key_hash = key_hash | (-9223372036854775807 - 1)"
    "  WHERE (attrs & 1) = 1 AND key_hash >= 0;"
    "UPDATE observations SET key_hash = key_hash & 9223372036854775807"
    "  WHERE (attrs & 1) = 0 AND key_hash < 0;"
    "UPDATE index_exclusions SET key_hash = key_hash | (-9223372036854775807 - 1)"
    "  WHERE kind = 1 AND key_hash >= 0;"
    "UPDATE index_exclusions SET key_hash = key_hash & 9223372036854775807"
    "  WHERE kind = 0 AND key_hash < 0;",
    /* 4: methodology v2 (index/chain.c): the cross-section statistic of
     *    the day (the v1 rule) beside the chained value, the chain's raw
     *    value (nano-USD), the day's matched relative and splice (1e-12),
     *    the reference and panel days it compared with, the observation-
     *    level spread (v2 rows publish the constituents' band as p10..max),
     *    a note saying why a day is carried or suspended; published rows
     *    keep their CSV columns after the vintage (row_tail) and each
     *    vintage its file format (1: before these columns existed). */
    "ALTER TABLE index_values ADD COLUMN xs_value_e4 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN xs_level INTEGER;"
    "ALTER TABLE index_values ADD COLUMN chain_nano INTEGER;"
    "ALTER TABLE index_values ADD COLUMN relative_e12 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN n_matched INTEGER;"
    "ALTER TABLE index_values ADD COLUMN n_matched_providers INTEGER;"
    "ALTER TABLE index_values ADD COLUMN panel_change INTEGER;"
    "ALTER TABLE index_values ADD COLUMN event INTEGER;"
    "ALTER TABLE index_values ADD COLUMN splice_e12 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN ref_day INTEGER;"
    "ALTER TABLE index_values ADD COLUMN panel_day INTEGER;"
    "ALTER TABLE index_values ADD COLUMN obs_p10_micro INTEGER;"
    "ALTER TABLE index_values ADD COLUMN obs_p25_micro INTEGER;"
    "ALTER TABLE index_values ADD COLUMN obs_p50_micro INTEGER;"
    "ALTER TABLE index_values ADD COLUMN obs_p75_micro INTEGER;"
    "ALTER TABLE index_values ADD COLUMN obs_p90_micro INTEGER;"
    "ALTER TABLE index_values ADD COLUMN obs_min_micro INTEGER;"
    "ALTER TABLE index_values ADD COLUMN obs_max_micro INTEGER;"
    "ALTER TABLE index_values ADD COLUMN note TEXT;"
    "ALTER TABLE index_values ADD COLUMN matched_now_q INTEGER;"
    "ALTER TABLE index_values ADD COLUMN matched_ref_q INTEGER;"
    "ALTER TABLE index_values ADD COLUMN carried TEXT;"
    "ALTER TABLE index_published ADD COLUMN row_tail TEXT;"
    "ALTER TABLE index_published ADD COLUMN ref_day INTEGER;"
    "ALTER TABLE index_published ADD COLUMN panel_day INTEGER;"
    "ALTER TABLE index_vintages ADD COLUMN format INTEGER NOT NULL DEFAULT 1;",
    /* 5: what an offer's price covers (attrs bits 18-19, 0 = instance: rows
     *    stored before read as whole-instance prices) and the skus.csv
     *    correction applied at ingest (names); the readable view shows
     *    both.  The published grade set: the SHA-256 of the grades file a
     *    vintage followed, and grades dropped from building and publishing
     *    (their history stays).  Ingest options of a batch. */
    "ALTER TABLE observations ADD COLUMN correction INTEGER;"
    "DROP VIEW observations_readable;"
    "CREATE VIEW observations_readable AS SELECT"
    "  date(o.day * 86400, 'unixepoch') AS date, o.day, o.key_hash,"
    "  datetime(o.observed_at, 'unixepoch') AS observed_at,"
    "  CASE o.attrs & 1 WHEN 0 THEN 'offer' ELSE 'trade' END AS kind,"
    "  CASE (o.attrs >> 1) & 3 WHEN 0 THEN 'bare-metal' WHEN 1 THEN 'managed'"
    "    WHEN 2 THEN 'vm' ELSE 'container' END AS scope,"
    "  CASE (o.attrs >> 3) & 7 WHEN 0 THEN 'unrated' WHEN 1 THEN 'underperform'"
    "    WHEN 2 THEN 'bronze' WHEN 3 THEN 'silver' WHEN 4 THEN 'gold' ELSE 'platinum' END AS tier,"
    "  CASE (o.attrs >> 6) & 3 WHEN 0 THEN 'on-demand' WHEN 1 THEN 'spot' ELSE 'reserved' END"
    "    AS term,"
    "  (o.attrs >> 12) & 63 AS term_months,"
    "  CASE (o.attrs >> 8) & 3 WHEN 0 THEN 'ok' WHEN 1 THEN 'cancelled' ELSE 'affiliate' END"
    "    AS status,"
    "  CASE (o.attrs >> 10) & 3 WHEN 0 THEN 'gpu-hour' WHEN 1 THEN 'instance-hour'"
    "    WHEN 2 THEN 'gpu-month' ELSE 'instance-month' END AS unit,"
    "  CASE (o.attrs >> 18) & 3 WHEN 0 THEN 'instance' WHEN 1 THEN 'gpu-only'"
    "    WHEN 2 THEN 'cpu-heavy' ELSE 'partial-gpu' END AS covers,"
    "  o.batch_id, o.line, g.name AS gpu, p.name AS provider, gr.name AS grp,"
    "  sg.name AS segment, o.price_micro, o.quantity_micro, o.gpu_count,"
    "  r.name AS region, s.name AS source,"
    "  CASE typeof(o.ident) WHEN 'integer' THEN (SELECT name FROM names WHERE name_id = o.ident)"
    "    ELSE o.ident END AS ident,"
    "  o.buyer, rg.name AS raw_gpu, rp.name AS raw_provider, o.raw_price,"
    "  c.name AS currency, k.name AS sku, x.name AS correction"
    " FROM observations o"
    " LEFT JOIN names g ON g.name_id = o.gpu LEFT JOIN names p ON p.name_id = o.provider"
    " LEFT JOIN names gr ON gr.name_id = o.grp LEFT JOIN names sg ON sg.name_id = o.segment"
    " LEFT JOIN names r ON r.name_id = o.region LEFT JOIN names s ON s.name_id = o.source"
    " LEFT JOIN names rg ON rg.name_id = o.raw_gpu"
    " LEFT JOIN names rp ON rp.name_id = o.raw_provider"
    " LEFT JOIN names c ON c.name_id = o.currency LEFT JOIN names k ON k.name_id = o.sku"
    " LEFT JOIN names x ON x.name_id = o.correction;"
    "ALTER TABLE index_vintages ADD COLUMN grades_sha256 TEXT;"
    /* a file read again through other tables or options (a provider added
     * to providers.csv, --admit-providers) is a new batch of the same
     * content: the file hash is no longer unique, the options are kept */
    "DROP INDEX batches_sha;"
    "CREATE INDEX batches_sha ON batches(sha256);"
    "ALTER TABLE batches ADD COLUMN options TEXT;"
    "CREATE TABLE grade_drops ("
    "  id TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,"
    "  dropped_at INTEGER NOT NULL"
    ");",
    /* 6: version 2 of the identity of a row without an id (core/ident.c):
     *    rows stored before keep their identity and key (published
     *    vintages do not change); the version 2 key of each whose version
     *    2 differs is recorded as an alias of it, so a file re-sent after
     *    the upgrade finds them (store/alias.c, which fills the table in
     *    this migration's transaction). */
    "CREATE TABLE ident_aliases ("
    "  key_hash INTEGER NOT NULL,"     /* version 2 store key */
    "  legacy_key INTEGER NOT NULL,"   /* the stored (version 1) key */
    "  PRIMARY KEY (key_hash, legacy_key)"
    ") WITHOUT ROWID;",
    /* 7: a build's cut-off is reserved before it reads (index/build.c note
     *    6): a batch that commits afterwards is stamped after it, so the
     *    build never waits for its cut-off second to end.  One row. */
    "CREATE TABLE cutoffs ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  reserved INTEGER NOT NULL"      /* the largest reserved cut-off */
    ");",
    /* 8: the distinct facets of the stored observations, kept as rows are
     *    stored (store_sets.c note 2): the grade checks of every build and
     *    evaluation read this small table instead of a SELECT DISTINCT over
     *    every observation.  Name ids, 0 for none; attrs without the bits
     *    of what the row gave. */
    "CREATE TABLE obs_facets ("
    "  attrs INTEGER NOT NULL, gpu INTEGER NOT NULL, provider INTEGER NOT NULL,"
    "  grp INTEGER NOT NULL, segment INTEGER NOT NULL, region INTEGER NOT NULL,"
    "  sku INTEGER NOT NULL,"
    "  PRIMARY KEY (attrs, gpu, provider, grp, segment, region, sku)"
    ") WITHOUT ROWID;"
    "INSERT OR IGNORE INTO obs_facets SELECT DISTINCT attrs & 1048575, coalesce(gpu, 0),"
    "  coalesce(provider, 0), coalesce(grp, 0), coalesce(segment, 0), coalesce(region, 0),"
    "  coalesce(sku, 0) FROM observations;",
    /* 9: what one participant can do to each fix (index/manip.c): the
     *    largest leave-one-provider-out move, its provider and the
     *    providers whose absence voids the fix, and the smallest trades
     *    (GPU-hours x 100) and offers one new participant needs to move
     *    the value one rounding step and 1 %; and, for v2 rows, what gpuidx
     *    verify needs besides the day's observations: the chain and carry
     *    of the day before, the cross-section's carry, the matched trading
     *    members' volumes on the reference day and the anchor's window. */
    "ALTER TABLE index_values ADD COLUMN loo_move_e4 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN loo_provider TEXT;"
    "ALTER TABLE index_values ADD COLUMN loo_voids INTEGER;"
    "ALTER TABLE index_values ADD COLUMN cost_tick_e2 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN cost_pct_e2 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN cost_tick_offers INTEGER;"
    "ALTER TABLE index_values ADD COLUMN cost_pct_offers INTEGER;"
    "ALTER TABLE index_values ADD COLUMN chain_prev_nano INTEGER;"
    "ALTER TABLE index_values ADD COLUMN carry_prev INTEGER;"
    "ALTER TABLE index_values ADD COLUMN xs_carry INTEGER;"
    "ALTER TABLE index_values ADD COLUMN ref_volumes TEXT;"
    "ALTER TABLE index_values ADD COLUMN anchor_window TEXT;",
    /* 10: profiles (store/profiles.c, note 7): what repeats across the rows
     *    of one offer or feed moves out of the observation rows into one
     *    row per distinct combination; the rows are rewritten in key order
     *    with the id of theirs, and the readable view reads through it
     *    with exactly the columns and values it had. */
    "CREATE TABLE profiles ("
    "  profile_id INTEGER PRIMARY KEY,"
    "  attrs INTEGER NOT NULL,"        /* packed enumerations, note (6) */
    /* name ids (note 4), 0 for none */
    "  gpu INTEGER NOT NULL, provider INTEGER NOT NULL, grp INTEGER NOT NULL,"
    "  segment INTEGER NOT NULL, region INTEGER NOT NULL, source INTEGER NOT NULL,"
    "  raw_gpu INTEGER NOT NULL, raw_provider INTEGER NOT NULL, currency INTEGER NOT NULL,"
    "  sku INTEGER NOT NULL, correction INTEGER NOT NULL,"
    "  gpu_count INTEGER"
    ");"
    "CREATE UNIQUE INDEX profiles_values ON profiles(attrs, gpu, provider, grp, segment, region,"
    "  source, raw_gpu, raw_provider, currency, sku, correction, gpu_count);"
    "INSERT INTO profiles(attrs, gpu, provider, grp, segment, region, source, raw_gpu,"
    "  raw_provider, currency, sku, correction, gpu_count)"
    "  SELECT DISTINCT attrs, coalesce(gpu, 0), coalesce(provider, 0), coalesce(grp, 0),"
    "  coalesce(segment, 0), coalesce(region, 0), coalesce(source, 0), coalesce(raw_gpu, 0),"
    "  coalesce(raw_provider, 0), coalesce(currency, 0), coalesce(sku, 0),"
    "  coalesce(correction, 0), gpu_count FROM observations;"
    "CREATE TABLE observations_10 ("
    "  day INTEGER NOT NULL,"
    "  key_hash INTEGER NOT NULL,"
    "  observed_at INTEGER NOT NULL,"
    "  batch_id INTEGER,"              /* batches.batch_id, note (5) */
    "  profile INTEGER,"               /* profiles.profile_id, note (5) */
    "  price_micro INTEGER,"
    "  quantity_micro INTEGER,"
    "  line INTEGER,"
    "  ident,"                         /* names (offers) or TEXT (trades) */
    "  buyer TEXT,"
    "  raw_price TEXT,"
    "  PRIMARY KEY (day, key_hash, observed_at)"
    ") WITHOUT ROWID;"
    "INSERT INTO observations_10 SELECT o.day, o.key_hash, o.observed_at, o.batch_id,"
    "  p.profile_id, o.price_micro, o.quantity_micro, o.line, o.ident, o.buyer, o.raw_price"
    "  FROM observations o CROSS JOIN profiles p"
    "  ON p.attrs = o.attrs AND p.gpu = coalesce(o.gpu, 0)"
    "  AND p.provider = coalesce(o.provider, 0) AND p.grp = coalesce(o.grp, 0)"
    "  AND p.segment = coalesce(o.segment, 0) AND p.region = coalesce(o.region, 0)"
    "  AND p.source = coalesce(o.source, 0) AND p.raw_gpu = coalesce(o.raw_gpu, 0)"
    "  AND p.raw_provider = coalesce(o.raw_provider, 0)"
    "  AND p.currency = coalesce(o.currency, 0) AND p.sku = coalesce(o.sku, 0)"
    "  AND p.correction = coalesce(o.correction, 0) AND p.gpu_count IS o.gpu_count"
    "  ORDER BY o.day, o.key_hash, o.observed_at;"
    "DROP VIEW observations_readable;"
    "DROP TABLE observations;"
    "ALTER TABLE observations_10 RENAME TO observations;"
    "CREATE VIEW observations_readable AS SELECT"
    "  date(o.day * 86400, 'unixepoch') AS date, o.day, o.key_hash,"
    "  datetime(o.observed_at, 'unixepoch') AS observed_at,"
    "  CASE f.attrs & 1 WHEN 0 THEN 'offer' ELSE 'trade' END AS kind,"
    "  CASE (f.attrs >> 1) & 3 WHEN 0 THEN 'bare-metal' WHEN 1 THEN 'managed'"
    "    WHEN 2 THEN 'vm' ELSE 'container' END AS scope,"
    "  CASE (f.attrs >> 3) & 7 WHEN 0 THEN 'unrated' WHEN 1 THEN 'underperform'"
    "    WHEN 2 THEN 'bronze' WHEN 3 THEN 'silver' WHEN 4 THEN 'gold' ELSE 'platinum' END AS tier,"
    "  CASE (f.attrs >> 6) & 3 WHEN 0 THEN 'on-demand' WHEN 1 THEN 'spot' ELSE 'reserved' END"
    "    AS term,"
    "  (f.attrs >> 12) & 63 AS term_months,"
    "  CASE (f.attrs >> 8) & 3 WHEN 0 THEN 'ok' WHEN 1 THEN 'cancelled' ELSE 'affiliate' END"
    "    AS status,"
    "  CASE (f.attrs >> 10) & 3 WHEN 0 THEN 'gpu-hour' WHEN 1 THEN 'instance-hour'"
    "    WHEN 2 THEN 'gpu-month' ELSE 'instance-month' END AS unit,"
    "  CASE (f.attrs >> 18) & 3 WHEN 0 THEN 'instance' WHEN 1 THEN 'gpu-only'"
    "    WHEN 2 THEN 'cpu-heavy' ELSE 'partial-gpu' END AS covers,"
    "  o.batch_id, o.line, g.name AS gpu, p.name AS provider, gr.name AS grp,"
    "  sg.name AS segment, o.price_micro, o.quantity_micro, f.gpu_count,"
    "  r.name AS region, s.name AS source,"
    "  CASE typeof(o.ident) WHEN 'integer' THEN (SELECT name FROM names WHERE name_id = o.ident)"
    "    ELSE o.ident END AS ident,"
    "  o.buyer, rg.name AS raw_gpu, rp.name AS raw_provider, o.raw_price,"
    "  c.name AS currency, k.name AS sku, x.name AS correction"
    " FROM observations o CROSS JOIN profiles f ON f.profile_id = o.profile"
    " LEFT JOIN names g ON g.name_id = f.gpu LEFT JOIN names p ON p.name_id = f.provider"
    " LEFT JOIN names gr ON gr.name_id = f.grp LEFT JOIN names sg ON sg.name_id = f.segment"
    " LEFT JOIN names r ON r.name_id = f.region LEFT JOIN names s ON s.name_id = f.source"
    " LEFT JOIN names rg ON rg.name_id = f.raw_gpu"
    " LEFT JOIN names rp ON rp.name_id = f.raw_provider"
    " LEFT JOIN names c ON c.name_id = f.currency LEFT JOIN names k ON k.name_id = f.sku"
    " LEFT JOIN names x ON x.name_id = f.correction;",
    /* 11: the chain states of v2 grades (store/chain_states.c): what a
     *    build of day D + 1 starts from instead of replaying the chain
     *    since its last reset; and the days of each batch's stored rows,
     *    so "did anything reach days [a, b] between two cut-offs" is one
     *    look at the batches (NULL: a batch committed before this
     *    migration, or one that stored nothing). */
    "ALTER TABLE batches ADD COLUMN min_day INTEGER;"
    "ALTER TABLE batches ADD COLUMN max_day INTEGER;"
    "CREATE TABLE chain_states ("
    "  grade_hash TEXT NOT NULL,"     /* grades.hash of the definition */
    "  day INTEGER NOT NULL,"         /* the state after this day */
    "  as_of INTEGER NOT NULL,"       /* the cut-off of the build that left it */
    "  format INTEGER NOT NULL,"      /* index/chain_state.c's encoding */
    "  state BLOB NOT NULL,"
    "  PRIMARY KEY (grade_hash, day)"
    ");",
    /* 12: what every process reads of the profiles, cheaper
     *    (store/profiles.c notes 5 and 6): `noted`, a row with the
     *    profile's facet is stored, takes over from obs_facets (set here
     *    for every profile whose facet is there, then the table goes:
     *    the facets are those of the noted profiles, store_sets.c note 2);
     *    and the profiles packed 1,024 ids to a blob, a copy of the table
     *    that loads in a fifth of the time (store_profiles_pack_all fills
     *    it in this migration's transaction). */
    "ALTER TABLE profiles ADD COLUMN noted INTEGER NOT NULL DEFAULT 0;"
    "UPDATE profiles SET noted = 1 WHERE EXISTS (SELECT 1 FROM obs_facets f"
    "  WHERE f.attrs = profiles.attrs & 1048575 AND f.gpu = profiles.gpu"
    "  AND f.provider = profiles.provider AND f.grp = profiles.grp"
    "  AND f.segment = profiles.segment AND f.region = profiles.region"
    "  AND f.sku = profiles.sku);"
    "DROP TABLE obs_facets;"
    "CREATE TABLE profile_packs ("
    "  pack INTEGER PRIMARY KEY,"      /* ids [1024 pack, 1024 pack + 1023] */
    "  format INTEGER NOT NULL,"       /* profiles.c's encoding */
    "  n INTEGER NOT NULL,"            /* profiles in the pack */
    "  data BLOB NOT NULL"
    ");"
    /*    And the grade checks that found every filter of a grade file
     *    matched by some stored observation (index/grade_tables.c note
     *    4): the facets only grow, so such a check need not run again. */
    "CREATE TABLE facet_checks ("
    "  key TEXT PRIMARY KEY,"          /* grade definitions and region groups */
    "  checked_at INTEGER NOT NULL"
    ");",
    /* 13: signed vintages (store/admin.c, publish/sign.c): the public
     *    key's fingerprint a vintage's index.json names and the detached
     *    signature over its files' hashes, so an older signed vintage is
     *    regenerated with its signature file.  The key itself is never
     *    stored. */
    "CREATE TABLE vintage_signatures ("
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  key_fingerprint TEXT NOT NULL," /* hex SHA-256 of the raw public key */
    "  signature TEXT NOT NULL,"       /* base64 Ed25519 over core/sig.c's text */
    "  PRIMARY KEY (day, vintage)"
    ");",
    /* 14: methodology v3 (index/v3*.c): the price index, the composition
     *    gaps and the panel's counts of a row; index.json's v3 members as
     *    text; and what observations.csv lists of the panel (roles, the
     *    index's matched prices, imputed members' carried observations),
     *    kept with every published row too, so a vintage regenerates
     *    without replaying the panel's history. */
    "ALTER TABLE index_values ADD COLUMN price_index_e6 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN log_index_e12 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN index_change_e12 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN gap_e6 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN gap_month_e6 INTEGER;"
    "ALTER TABLE index_values ADD COLUMN panel_size INTEGER;"
    "ALTER TABLE index_values ADD COLUMN n_imputed INTEGER;"
    "ALTER TABLE index_values ADD COLUMN n_candidates INTEGER;"
    "ALTER TABLE index_values ADD COLUMN index_providers INTEGER;"
    "ALTER TABLE index_values ADD COLUMN v3_json TEXT;"
    "ALTER TABLE index_values ADD COLUMN v3_detail TEXT;"
    "ALTER TABLE index_published ADD COLUMN v3_detail TEXT;",
    /* 15: the term curve (issue 29, store/curves.c).  The start of a
     *    forward-start observation (the canonical field starts_on): one
     *    row per observation that has one, beside the observations, whose
     *    rows and scans stay as they were.  And the curve files of each
     *    vintage that has them (file format 4): their SHA-256, the
     *    futures settlement prices the curve took from a file (CSV text,
     *    "" none), so an older vintage's curve files regenerate byte for
     *    byte, and curve.csv itself (36 lines a grade), which the site
     *    draws without computing the curves again. */
    "CREATE TABLE obs_starts ("
    "  day INTEGER NOT NULL,"
    "  key_hash INTEGER NOT NULL,"
    "  observed_at INTEGER NOT NULL,"
    "  starts_on INTEGER NOT NULL,"    /* days since 1970-01-01 */
    "  PRIMARY KEY (day, key_hash, observed_at)"
    ") WITHOUT ROWID;"
    "CREATE TABLE vintage_curves ("
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  csv_sha256 TEXT NOT NULL,"
    "  json_sha256 TEXT NOT NULL,"
    "  futures TEXT NOT NULL,"
    "  curve_csv TEXT NOT NULL,"       /* curve.csv: what the site draws */
    "  PRIMARY KEY (day, vintage)"
    ");",
    /* 16: file format 4's links (store/publication.c, publish/format4.c): each
     *    vintage's place in the order of publications and the members
     *    format 4 adds to its index.json (the links to the vintage before
     *    and the day before, the grade set), as written, so it regenerates
     *    byte for byte; and the published rows whose value stands while
     *    their other fields are revised (a revision published: the
     *    value of index_published is the one of since_vintage, own_e4 the
     *    row's own, NULL for none).  Tables of their own
     *    (not columns of index_vintages): the migration can run again. */
    "CREATE TABLE IF NOT EXISTS index_vintage_heads ("
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  head TEXT NOT NULL,"
    "  PRIMARY KEY (day, vintage)"
    ");"
    "CREATE TABLE IF NOT EXISTS index_standing ("
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  own_e4 INTEGER,"
    "  since_vintage INTEGER NOT NULL,"
    "  PRIMARY KEY (day, vintage, grade)"
    ");",
    /* 17: a row's roles (index/roles.c): what its fix made of the day's
     *    observations -- the exclusions and, for v2, the chain's matched
     *    members -- kept for every row and every published row, so that
     *    publication lists a day's observations from what the build
     *    decided rather than fixing the day and replaying a v2 chain
     *    again.  Rows stored before have none and are published as
     *    before.  Tables of their own, not columns of index_values and
     *    index_published: a v2 row's roles are ~40 KB on the bench market
     *    (every matched member), and as columns they made every range
     *    read of the rows (the site, a build's look-back) walk pages
     *    several times as many. */
    "CREATE TABLE IF NOT EXISTS index_roles ("
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  day INTEGER NOT NULL,"
    "  roles TEXT,"                    /* NULL: none (as a row stored before) */
    "  PRIMARY KEY (grade, day)"
    ");"
    "CREATE TABLE IF NOT EXISTS index_published_roles ("
    "  day INTEGER NOT NULL,"
    "  vintage INTEGER NOT NULL,"
    "  grade TEXT NOT NULL COLLATE NOCASE,"
    "  roles TEXT,"
    "  PRIMARY KEY (day, vintage, grade)"
    ");",
};

const int store_migration_ident_aliases = 5; /* migration 6 */
const int store_migration_profile_packs = 11; /* migration 12 */

const int store_n_migrations = (int)(sizeof store_migrations / sizeof store_migrations[0]);
