/* tests/schema9.h -- a database taken back to schema version 9, for the
 * tests of the migrations.
 *
 * Schema 9 (and every version before it) kept every value of an
 * observation in its row (NULL for no name); migration 10 moved what
 * repeats into `profiles`.  undo_10 takes a database of the current
 * schema (17) back: it undoes migration 17 (UNDO_17: no stored roles),
 * 16 (UNDO_16, which includes UNDO_17: no format 4 links,
 * no standing values), 15 (UNDO_15, which includes UNDO_16: no forward
 * starts, no curve files), 14 (UNDO_14, which includes UNDO_15: v3's columns), 13
 * (UNDO_13, which includes UNDO_14: no vintage signatures) and 12
 * (UNDO_12, which includes UNDO_13: obs_facets again, as
 * the facets of the noted profiles; no packs, no grade checks), drops
 * what migration 11 added (chain_states and the batches' day range),
 * then rebuilds the schema 9 table and its readable
 * view (VIEW_9, the view as migration 5 created it), so a test can store
 * rows through the store, take the file back, and let store_open migrate
 * it again.  Run with sqlite3_exec on a closed store's file.
 */
#ifndef GPI_TESTS_SCHEMA9_H
#define GPI_TESTS_SCHEMA9_H

#define VIEW_9                                                                                    \
    "CREATE VIEW observations_readable AS SELECT"                                                 \
    "  date(o.day * 86400, 'unixepoch') AS date, o.day, o.key_hash,"                              \
    "  datetime(o.observed_at, 'unixepoch') AS observed_at,"                                      \
    "  CASE o.attrs & 1 WHEN 0 THEN 'offer' ELSE 'trade' END AS kind,"                            \
    "  CASE (o.attrs >> 1) & 3 WHEN 0 THEN 'bare-metal' WHEN 1 THEN 'managed'"                    \
    "    WHEN 2 THEN 'vm' ELSE 'container' END AS scope,"                                         \
    "  CASE (o.attrs >> 3) & 7 WHEN 0 THEN 'unrated' WHEN 1 THEN 'underperform'"                  \
    "    WHEN 2 THEN 'bronze' WHEN 3 THEN 'silver' WHEN 4 THEN 'gold' ELSE 'platinum' END AS tier," \
    "  CASE (o.attrs >> 6) & 3 WHEN 0 THEN 'on-demand' WHEN 1 THEN 'spot' ELSE 'reserved' END"    \
    "    AS term,"                                                                                \
    "  (o.attrs >> 12) & 63 AS term_months,"                                                      \
    "  CASE (o.attrs >> 8) & 3 WHEN 0 THEN 'ok' WHEN 1 THEN 'cancelled' ELSE 'affiliate' END"     \
    "    AS status,"                                                                              \
    "  CASE (o.attrs >> 10) & 3 WHEN 0 THEN 'gpu-hour' WHEN 1 THEN 'instance-hour'"               \
    "    WHEN 2 THEN 'gpu-month' ELSE 'instance-month' END AS unit,"                              \
    "  CASE (o.attrs >> 18) & 3 WHEN 0 THEN 'instance' WHEN 1 THEN 'gpu-only'"                    \
    "    WHEN 2 THEN 'cpu-heavy' ELSE 'partial-gpu' END AS covers,"                               \
    "  o.batch_id, o.line, g.name AS gpu, p.name AS provider, gr.name AS grp,"                    \
    "  sg.name AS segment, o.price_micro, o.quantity_micro, o.gpu_count,"                         \
    "  r.name AS region, s.name AS source,"                                                       \
    "  CASE typeof(o.ident) WHEN 'integer' THEN (SELECT name FROM names WHERE name_id = o.ident)" \
    "    ELSE o.ident END AS ident,"                                                              \
    "  o.buyer, rg.name AS raw_gpu, rp.name AS raw_provider, o.raw_price,"                        \
    "  c.name AS currency, k.name AS sku, x.name AS correction"                                   \
    " FROM observations o"                                                                        \
    " LEFT JOIN names g ON g.name_id = o.gpu LEFT JOIN names p ON p.name_id = o.provider"         \
    " LEFT JOIN names gr ON gr.name_id = o.grp LEFT JOIN names sg ON sg.name_id = o.segment"      \
    " LEFT JOIN names r ON r.name_id = o.region LEFT JOIN names s ON s.name_id = o.source"        \
    " LEFT JOIN names rg ON rg.name_id = o.raw_gpu"                                               \
    " LEFT JOIN names rp ON rp.name_id = o.raw_provider"                                          \
    " LEFT JOIN names c ON c.name_id = o.currency LEFT JOIN names k ON k.name_id = o.sku"         \
    " LEFT JOIN names x ON x.name_id = o.correction;"

/* Schema 15 -> 14: no forward starts, no curve files of vintages. */
#define UNDO_17 "DROP TABLE index_roles; DROP TABLE index_published_roles;"
#define UNDO_16 UNDO_17 "DROP TABLE index_vintage_heads; DROP TABLE index_standing;"
#define UNDO_15 UNDO_16 "DROP TABLE obs_starts; DROP TABLE vintage_curves;"

/* Schema 14 -> 13 (from 15): methodology v3's columns go. */
#define UNDO_14                                                                                   \
    UNDO_15                                                                                       \
    "ALTER TABLE index_values DROP COLUMN price_index_e6;"                                        \
    "ALTER TABLE index_values DROP COLUMN log_index_e12;"                                         \
    "ALTER TABLE index_values DROP COLUMN index_change_e12;"                                      \
    "ALTER TABLE index_values DROP COLUMN gap_e6;"                                                \
    "ALTER TABLE index_values DROP COLUMN gap_month_e6;"                                          \
    "ALTER TABLE index_values DROP COLUMN panel_size;"                                            \
    "ALTER TABLE index_values DROP COLUMN n_imputed;"                                             \
    "ALTER TABLE index_values DROP COLUMN n_candidates;"                                          \
    "ALTER TABLE index_values DROP COLUMN index_providers;"                                       \
    "ALTER TABLE index_values DROP COLUMN v3_json;"                                               \
    "ALTER TABLE index_values DROP COLUMN v3_detail;"                                             \
    "ALTER TABLE index_published DROP COLUMN v3_detail;"

/* Schema 13 -> 12 (from 14): no vintage signatures. */
#define UNDO_13 UNDO_14 "DROP TABLE vintage_signatures;"

/* Schema 12 -> 11 (from 13): obs_facets holds the facets of the noted
 * profiles. */
#define UNDO_12                                                                                   \
    UNDO_13                                                                                       \
    "CREATE TABLE obs_facets ("                                                                   \
    "  attrs INTEGER NOT NULL, gpu INTEGER NOT NULL, provider INTEGER NOT NULL,"                  \
    "  grp INTEGER NOT NULL, segment INTEGER NOT NULL, region INTEGER NOT NULL,"                  \
    "  sku INTEGER NOT NULL,"                                                                     \
    "  PRIMARY KEY (attrs, gpu, provider, grp, segment, region, sku)"                             \
    ") WITHOUT ROWID;"                                                                            \
    "INSERT OR IGNORE INTO obs_facets SELECT attrs & 1048575, gpu, provider, grp, segment,"       \
    "  region, sku FROM profiles WHERE noted;"                                                    \
    "DROP TABLE profile_packs; DROP TABLE facet_checks;"                                          \
    "ALTER TABLE profiles DROP COLUMN noted;"

static const char undo_12[] __attribute__((unused)) = UNDO_12 "PRAGMA user_version = 11;";

static const char undo_10[] __attribute__((unused)) =
    UNDO_12
    "DROP TABLE chain_states;"
    "ALTER TABLE batches DROP COLUMN min_day;"
    "ALTER TABLE batches DROP COLUMN max_day;"
    "CREATE TABLE obs9 (day INTEGER NOT NULL, key_hash INTEGER NOT NULL,"
    "  observed_at INTEGER NOT NULL, attrs INTEGER, batch_id INTEGER, line INTEGER, gpu INTEGER,"
    "  provider INTEGER, grp INTEGER, segment INTEGER, price_micro INTEGER,"
    "  quantity_micro INTEGER, gpu_count INTEGER, region INTEGER, source INTEGER, ident,"
    "  buyer TEXT, raw_gpu INTEGER, raw_provider INTEGER, raw_price TEXT, currency INTEGER,"
    "  sku INTEGER, correction INTEGER, PRIMARY KEY (day, key_hash, observed_at)) WITHOUT ROWID;"
    "INSERT INTO obs9 SELECT o.day, o.key_hash, o.observed_at, f.attrs, o.batch_id, o.line,"
    "  nullif(f.gpu, 0), nullif(f.provider, 0), nullif(f.grp, 0), nullif(f.segment, 0),"
    "  o.price_micro, o.quantity_micro, f.gpu_count, nullif(f.region, 0), nullif(f.source, 0),"
    "  o.ident, o.buyer, nullif(f.raw_gpu, 0), nullif(f.raw_provider, 0), o.raw_price,"
    "  nullif(f.currency, 0), nullif(f.sku, 0), nullif(f.correction, 0)"
    "  FROM observations o JOIN profiles f ON f.profile_id = o.profile;"
    "DROP VIEW observations_readable; DROP TABLE observations; DROP TABLE profiles;"
    "ALTER TABLE obs9 RENAME TO observations;" VIEW_9 "PRAGMA user_version = 9;";

#endif
