/* store/scan.c -- reading observations back: the day scans.
 *
 * NOTES ON THE DESIGN
 * (1) A scan reads the row's own columns, the ones it needs first (schema
 *     note 7): the core scan stops at quantity_micro, the full scan adds
 *     line, ident, buyer and raw_price.  Everything of the profile comes
 *     from memory (profiles.c: one array index per row, names resolved
 *     through the name cache), so neither joins in SQL.
 * (2) The scans have no join with batches either: the few batches
 *     ingested after a cut-off are read first (ST_LATE_BATCHES) and their
 *     rows skipped.
 * (3) Consecutive rows are different offers (key order), so each one's
 *     profile is a miss in the CPU cache: the core scan reads the integer
 *     columns of SCAN_AHEAD rows, prefetching their profiles, before it
 *     hands them out (the full scan cannot: its text columns live only
 *     until the next step).  On the bench year it took the profile reads
 *     from 11 % of a build's time to 3 %.
 * (4) The core scan of one day with no late batch (every build at its own
 *     time: the daily job, each day of a year) reads 5 columns, not 7:
 *     the day is the one asked for and no row needs its batch.  Each
 *     column a row hands out costs the VM a decode and the caller a call:
 *     about a fifth of the scan's own time (a day at bench scale, 30,821
 *     rows: 16 M of 82 M instructions).  Its statement is extra slot
 *     SCAN_SLOT (store_stmt).
 * (5) Every field of a row but its key, times, price, quantity and audit
 *     columns is its profile's, so the scans hand out the profile's id as
 *     o->profile_id (core/obs.h): a reader that decides by profile fields
 *     (the grades' filters, index/day.c note 6) decides once per id.
 */
#include "store/internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

static sqlite3_stmt *use(store *st, int i)
{
    sqlite3_reset(st->stmt[i]);
    sqlite3_clear_bindings(st->stmt[i]);
    return st->stmt[i];
}

static const char *col_text(sqlite3_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(s, i);
}

/* The text of name id (NULL for 0).  An id whose text cannot be had (the
 * names table could not be read) sets *bad. */
static const char *name_of(store *st, int64_t id, int *bad)
{
    if (id <= 0) return NULL;
    if ((size_t)id < st->names.cap_ids && st->names.text[id]) return st->names.text[id];
    const char *t = store_name_text(st, id);
    if (!t) *bad = 1;
    return t;
}

/* Unpacks attrs (store.c, store_obs_attrs). */
static void obs_attrs(gpi_obs *o, int64_t a)
{
    o->kind = (int)(a & 1);
    o->scope = (int)(a >> 1 & 3);
    o->tier = (int)(a >> 3 & 7);
    o->term = (int)(a >> 6 & 3);
    o->status = (int)(a >> 8 & 3);
    o->unit = (int)(a >> 10 & 3);
    o->term_months = (int)(a >> 12 & 63);
    o->covers = (int)(a >> 18 & 3);
}

void store_attrs_unpack(gpi_obs *o, int64_t attrs)
{
    obs_attrs(o, attrs);
}

/* The batches ingested after as_of, ascending (usually none). */
static gpi_status late_batches(store *st, int64_t as_of, int64_t **out, size_t *n, gpi_diag *d)
{
    sqlite3_stmt *s = use(st, ST_LATE_BATCHES);
    sqlite3_bind_int64(s, 1, as_of);
    size_t cap = 0;
    int rc;
    *out = NULL;
    *n = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (GPI_VEC_RESERVE(*out, cap, *n + 1) != 0) {
            sqlite3_reset(s);
            free(*out);
            *out = NULL;
            return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
        }
        (*out)[(*n)++] = sqlite3_column_int64(s, 0);
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) return GPI_OK;
    free(*out);
    *out = NULL;
    return store_err(st, d, "reading batches");
}

static int is_late(const int64_t *late, size_t n, int64_t batch)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (late[mid] == batch) return 1;
        if (late[mid] < batch) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

/* The integer columns both scans read first, in their order. */
enum { SC_DAY, SC_KEY, SC_AT, SC_BATCH, SC_PROFILE, SC_PRICE, SC_QTY, SC__N };

/* o from the scan's integer columns c (quantity -1 for NULL) and its
 * profile; 0 when the profile or a name cannot be had. */
static int fill(store *st, gpi_obs *o, const int64_t *c)
{
    const store_profile *p = store_profile_get(st, c[SC_PROFILE]);
    if (!p) return 0;
    int bad = 0;
    memset(o, 0, sizeof *o);
    o->day = (int32_t)c[SC_DAY];
    o->key_hash = (uint64_t)c[SC_KEY];
    o->observed_at = c[SC_AT];
    obs_attrs(o, p->attrs);
    o->gpu = name_of(st, p->name[STORE_P_GPU], &bad);
    o->provider = name_of(st, p->name[STORE_P_PROVIDER], &bad);
    o->group = name_of(st, p->name[STORE_P_GRP], &bad);
    o->segment = name_of(st, p->name[STORE_P_SEGMENT], &bad);
    o->region = name_of(st, p->name[STORE_P_REGION], &bad);
    o->source = name_of(st, p->name[STORE_P_SOURCE], &bad);
    o->raw_gpu = name_of(st, p->name[STORE_P_RAW_GPU], &bad);
    o->raw_provider = name_of(st, p->name[STORE_P_RAW_PROVIDER], &bad);
    o->currency = name_of(st, p->name[STORE_P_CURRENCY], &bad);
    o->sku = name_of(st, p->name[STORE_P_SKU], &bad);
    o->correction = name_of(st, p->name[STORE_P_CORRECTION], &bad);
    o->gpu_count = p->gpu_count;
    if (c[SC_PROFILE] <= UINT32_MAX) o->profile_id = (uint32_t)c[SC_PROFILE]; /* note 5 */
    o->price_micro = c[SC_PRICE];
    o->quantity_micro = c[SC_QTY];
    return !bad;
}

/* Reads the integer columns of the current row into c. */
static void read_ints(sqlite3_stmt *s, int64_t *c)
{
    for (int i = 0; i < SC_QTY; i++) c[i] = sqlite3_column_int64(s, i);
    c[SC_QTY] =
        sqlite3_column_type(s, SC_QTY) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, SC_QTY);
}

/* Note 4: the day's scan without day and batch (SCAN_SLOT's statement,
 * columns SC_KEY..SC_QTY but SC_BATCH). */
#define SCAN_SLOT 34 /* chain_states.c has 30..33 */
static const char scan_day_sql[] =
    "SELECT key_hash, observed_at, profile, price_micro, quantity_micro"
    " FROM observations WHERE day = ?1 ORDER BY key_hash, observed_at";

static void read_day_ints(sqlite3_stmt *s, int64_t *c, int64_t day)
{
    c[SC_DAY] = day;
    c[SC_KEY] = sqlite3_column_int64(s, 0);
    c[SC_AT] = sqlite3_column_int64(s, 1);
    c[SC_BATCH] = 0;
    c[SC_PROFILE] = sqlite3_column_int64(s, 2);
    c[SC_PRICE] = sqlite3_column_int64(s, 3);
    c[SC_QTY] = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 4);
}

/* Rows the core scan reads ahead (note 3). */
#define SCAN_AHEAD 32

static gpi_status scan(store *st, int core, int32_t day_from, int32_t day_to, int64_t as_of,
                       store_obs_fn fn, void *ud, gpi_diag *d)
{
    /* the late batches and the rows must come from one snapshot: outside a
     * transaction, the two reads get one of their own */
    int own_tx = sqlite3_get_autocommit(st->db);
    if (own_tx && store_exec(st, "BEGIN", d) != GPI_OK) return GPI_ESTORE;
    int64_t *late;
    size_t n_late;
    gpi_status grc = late_batches(st, as_of, &late, &n_late, d);
    if (grc != GPI_OK) {
        if (own_tx) store_exec(st, "ROLLBACK", NULL);
        return grc;
    }
    int one_day = core && day_from == day_to && n_late == 0; /* note 4 */
    sqlite3_stmt *s = one_day ? store_stmt(st, SCAN_SLOT, scan_day_sql, d)
                              : use(st, core ? ST_OBS_SCAN_CORE : ST_OBS_SCAN);
    if (!s) {
        free(late);
        if (own_tx) store_exec(st, "ROLLBACK", NULL);
        return GPI_ESTORE;
    }
    sqlite3_bind_int64(s, 1, day_from);
    if (!one_day) sqlite3_bind_int64(s, 2, day_to);
    int rc = SQLITE_ROW, bad = 0, stop = 0;
    int64_t c[SCAN_AHEAD][SC__N];
    gpi_obs o;
    while (rc == SQLITE_ROW && !stop && !bad) {
        int n = 0, cap = core ? SCAN_AHEAD : 1; /* text columns live until the next step */
        while (n < cap && (rc = sqlite3_step(s)) == SQLITE_ROW) {
            if (one_day) read_day_ints(s, c[n], day_from);
            else read_ints(s, c[n]);
            if (n_late && is_late(late, n_late, c[n][SC_BATCH])) continue;
            const store_profiles *pf = &st->profiles;
            if (c[n][SC_PROFILE] > 0 && (size_t)c[n][SC_PROFILE] < pf->cap)
                __builtin_prefetch(&pf->v[c[n][SC_PROFILE]]);
            n++;
        }
        for (int i = 0; i < n && !stop; i++) {
            if (!fill(st, &o, c[i])) {
                bad = 1;
                break;
            }
            if (!core) {
                o.line = (long)sqlite3_column_int64(s, 7);
                o.ident = sqlite3_column_type(s, 8) == SQLITE_INTEGER
                              ? name_of(st, sqlite3_column_int64(s, 8), &bad)
                              : col_text(s, 8);
                o.buyer = col_text(s, 9);
                o.raw_price = col_text(s, 10);
                if (bad) break;
            }
            stop = fn(&o, ud) != 0;
        }
    }
    sqlite3_reset(s);
    free(late);
    gpi_status out = bad                                   ? store_err(st, d, "reading names")
                     : rc == SQLITE_ROW || rc == SQLITE_DONE ? GPI_OK
                                                           : store_err(st, d, "reading observations");
    if (own_tx) store_exec(st, "COMMIT", NULL);
    return out;
}

gpi_status store_obs_scan(store *st, int32_t day_from, int32_t day_to, int64_t as_of,
                          store_obs_fn fn, void *ud, gpi_diag *d)
{
    return scan(st, 0, day_from, day_to, as_of, fn, ud, d);
}

gpi_status store_obs_scan_core(store *st, int32_t day_from, int32_t day_to, int64_t as_of,
                               store_obs_fn fn, void *ud, gpi_diag *d)
{
    return scan(st, 1, day_from, day_to, as_of, fn, ud, d);
}
