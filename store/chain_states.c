/* store/chain_states.c -- v2 chain and v3 panel states (store/chain_states.h) and the
 * batches' day ranges that say whether one is still current.
 *
 * (1) chain_states is keyed by (grade_hash, day): the definition, not the
 *     id, so a redefined grade never starts from its old definition's
 *     chain.  A build keeps the last keep_days days of each grade (the
 *     publication of day D starts from the state of D - 1, the build of
 *     D + 1 from that of D).
 * (2) batches.min_day / max_day (migration 11) are the days of the rows a
 *     batch stored, written at its commit (store.c): "did anything reach
 *     days [lo, hi] between two cut-offs" is then one pass over the
 *     batches of that interval, where the observations would need a scan
 *     of every day of the range per batch (there is no index by batch).
 * (3) A state is read with SQLite's incremental blob I/O straight into the
 *     caller's buffer: its ~250 KB per grade (2 MB a day on the bench
 *     market) were copied twice, into the statement's value and then out
 *     of it, in every build and publication.
 * (4) The stored blob is sealed (issue 31: one flipped bit, or H200's state
 *     filed under H100, changed published values with exit 0): a header
 *     -- "gpuidxCS", the seal's version, the method, the day, the cut-off,
 *     the state's encoding, the grade hash (64 bytes, NUL-padded), the
 *     state's size, all integers 8 bytes little-endian -- the state, and
 *     the SHA-256 of everything before it (64 hex digits).  get checks the checksum first
 *     (damage), then that the header names the grade, method and day
 *     asked for and the row's cut-off and encoding (a state filed under
 *     another key), and refuses the state otherwise, saying why; the
 *     caller replays.  A state stored before the seal has no header
 *     and is refused as such (the next build stores a sealed one).
 *     Nothing in the seal depends on the process or the time: equal
 *     builds store equal bytes.
 */
#include "store/internal.h"
#include "store/chain_states.h"

#include <stdlib.h>
#include <string.h>

#define CS_SLOT(i) (30 + (i))
enum { CS_PUT, CS_DROP, CS_GET, CS_REACHED };
/* 30..33 are full and 34..39 scan.c's and admin.c's (CS_SLOT(8), 38, was
 * admin.c's store_vintage_signature: a publication that had read the
 * first day got a signature file of day numbers); store_index.c ends at 25 */
#define CS_FIRST_DAY_SLOT 29

static gpi_status put_sealed(store *st, const char *hash, int32_t day, int64_t as_of, int format,
                             const unsigned char *state, size_t n, int keep_days, gpi_diag *d);

/* ---- the seal (note 4) ------------------------------------------------------ */

enum { SEAL_VERSION = 1, SEAL_HASH = 64, SEAL_HEAD = 8 + 6 * 8 + SEAL_HASH + 8, SEAL_SUM = 64 };

static void put64(unsigned char *q, uint64_t v)
{
    for (int i = 0; i < 8; i++) q[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *q)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)q[i] << (8 * i);
    return v;
}

/* The header of a state (SEAL_HEAD bytes) into q. */
static void seal_head(unsigned char *q, const char *hash, int method, int32_t day, int64_t as_of,
                      int format, size_t n)
{
    memcpy(q, "gpuidxCS", 8);
    put64(q + 8, SEAL_VERSION);
    put64(q + 16, (uint64_t)(int64_t)method);
    put64(q + 24, (uint64_t)(int64_t)day);
    put64(q + 32, (uint64_t)as_of);
    put64(q + 40, (uint64_t)(int64_t)format);
    put64(q + 48, 0); /* reserved */
    memset(q + 56, 0, SEAL_HASH);
    size_t hl = strlen(hash);
    memcpy(q + 56, hash, hl < SEAL_HASH ? hl : SEAL_HASH);
    put64(q + 56 + SEAL_HASH, (uint64_t)n);
}

/* The SHA-256 of p[0..n) in hex, SEAL_SUM bytes into out (no NUL). */
static void sum_of(const unsigned char *p, size_t n, unsigned char *out)
{
    char hex[65];
    gpi_sha256_hex(p, n, hex);
    memcpy(out, hex, SEAL_SUM);
}

/* Why the sealed bytes p[0..n) are not the state asked for, or NULL; the
 * state is then p + SEAL_HEAD, *len bytes. */
static const char *unseal(const unsigned char *p, size_t n, const char *hash, int method,
                          int32_t day, int64_t as_of, int format, size_t *len, char *why,
                          size_t cap)
{
    unsigned char sum[SEAL_SUM];
    if (n < SEAL_HEAD + SEAL_SUM || memcmp(p, "gpuidxCS", 8) != 0)
        return "it has no seal (stored by an older gpuidx, or overwritten)";
    if (get64(p + 8) != SEAL_VERSION) return "its seal is of another version";
    uint64_t m = get64(p + 56 + SEAL_HASH);
    if (m != n - SEAL_HEAD - SEAL_SUM) return "its size does not match its seal (cut short or grown)";
    sum_of(p, n - SEAL_SUM, sum);
    if (memcmp(sum, p + n - SEAL_SUM, SEAL_SUM) != 0)
        return "its checksum does not match (the bytes are damaged)";
    char h[SEAL_HASH + 1];
    memcpy(h, p + 56, SEAL_HASH);
    h[SEAL_HASH] = '\0';
    if (strcmp(h, hash) != 0) {
        snprintf(why, cap, "it is the state of grade definition %.12s..., filed under %.12s...",
                 h, hash);
        return why;
    }
    if ((int64_t)get64(p + 16) != method) {
        snprintf(why, cap, "it is a state of methodology v%lld, not v%d",
                 (long long)(int64_t)get64(p + 16), method);
        return why;
    }
    if ((int64_t)get64(p + 24) != day) {
        char a[11], b[11];
        gpi_date_format((int32_t)(int64_t)get64(p + 24), a);
        gpi_date_format(day, b);
        snprintf(why, cap, "it is the state after %s, filed under %s", a, b);
        return why;
    }
    if ((int64_t)get64(p + 32) != as_of || (int64_t)get64(p + 40) != format)
        return "its cut-off or encoding is not the one it is filed with";
    *len = (size_t)m;
    return NULL;
}

gpi_status store_chain_state_put(store *st, const char *hash, int method, int32_t day,
                                 int64_t as_of, int format, const unsigned char *state, size_t n,
                                 int keep_days, gpi_diag *d)
{
    size_t total = SEAL_HEAD + n + SEAL_SUM;
    unsigned char *sealed = malloc(total);
    if (!sealed) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    seal_head(sealed, hash, method, day, as_of, format, n);
    if (n) memcpy(sealed + SEAL_HEAD, state, n);
    sum_of(sealed, SEAL_HEAD + n, sealed + SEAL_HEAD + n);
    gpi_status rc = put_sealed(st, hash, day, as_of, format, sealed, total, keep_days, d);
    free(sealed);
    return rc;
}

static gpi_status put_sealed(store *st, const char *hash, int32_t day, int64_t as_of, int format,
                             const unsigned char *state, size_t n, int keep_days, gpi_diag *d)
{
    sqlite3_stmt *s = store_stmt(st, CS_SLOT(CS_PUT),
                                 "INSERT OR REPLACE INTO chain_states(grade_hash, day, as_of, format,"
                                 " state) VALUES (?1, ?2, ?3, ?4, ?5)",
                                 d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, day);
    sqlite3_bind_int64(s, 3, as_of);
    sqlite3_bind_int(s, 4, format);
    sqlite3_bind_blob64(s, 5, state, (sqlite3_uint64)n, SQLITE_STATIC);
    gpi_status rc = store_step_done(st, s, d, "storing a chain state");
    if (rc != GPI_OK) return rc;
    s = store_stmt(st, CS_SLOT(CS_DROP),
                   "DELETE FROM chain_states WHERE grade_hash = ?1 AND day < ?2", d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_text(s, 1, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, (int64_t)day - keep_days + 1);
    return store_step_done(st, s, d, "dropping old chain states");
}

static gpi_status get_state(store *st, sqlite3_stmt *s, const char *hash, int32_t day,
                            unsigned char **state, size_t *n, int64_t *as_of, int *format,
                            gpi_diag *d);
static gpi_status get_sealed(store *st, const char *hash, int32_t day, unsigned char **state,
                             size_t *n, int64_t *as_of, int *format, gpi_diag *d);

gpi_status store_chain_state_get(store *st, const char *hash, int method, int32_t day,
                                 unsigned char **state, size_t *n, int64_t *as_of, int *format,
                                 char *refused, size_t cap, gpi_diag *d)
{
    char why_buf[256];
    if (refused && cap) refused[0] = '\0';
    gpi_status rc = get_sealed(st, hash, day, state, n, as_of, format, d);
    if (rc != GPI_OK || !*state) return rc;
    size_t len = 0;
    const char *why = unseal(*state, *n, hash, method, day, *as_of, *format, &len, why_buf,
                             sizeof why_buf);
    if (why) {
        if (refused && cap) snprintf(refused, cap, "%s", why);
        free(*state);
        *state = NULL;
        *n = 0;
        return GPI_OK;
    }
    memmove(*state, *state + SEAL_HEAD, len);
    *n = len;
    return GPI_OK;
}

static gpi_status get_sealed(store *st, const char *hash, int32_t day, unsigned char **state,
                             size_t *n, int64_t *as_of, int *format, gpi_diag *d)
{
    *state = NULL;
    *n = 0;
    /* length() of a blob reads its size from the record header, not its
     * pages (note 3) */
    sqlite3_stmt *s = store_stmt(st, CS_SLOT(CS_GET),
                                 "SELECT as_of, format, length(state), rowid FROM chain_states"
                                 " WHERE grade_hash = ?1 AND day = ?2",
                                 d);
    if (!s) return GPI_ESTORE;
    /* the row and its blob from one snapshot: a rowid read outside a
     * transaction could be another row's by the time the blob is opened */
    int own_tx = sqlite3_get_autocommit(st->db);
    if (own_tx && sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return store_err(st, d, "reading a chain state");
    gpi_status out = get_state(st, s, hash, day, state, n, as_of, format, d);
    /* a read: nothing to lose, but the handle must leave its transaction */
    if (own_tx && sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK &&
        !sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return out;
}

/* store_chain_state_get inside a transaction. */
static gpi_status get_state(store *st, sqlite3_stmt *s, const char *hash, int32_t day,
                            unsigned char **state, size_t *n, int64_t *as_of, int *format,
                            gpi_diag *d)
{
    sqlite3_bind_text(s, 1, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, day);
    int rc = sqlite3_step(s);
    int64_t len = 0, rowid = 0;
    if (rc == SQLITE_ROW) {
        *as_of = sqlite3_column_int64(s, 0);
        *format = sqlite3_column_int(s, 1);
        len = sqlite3_column_int64(s, 2);
        rowid = sqlite3_column_int64(s, 3);
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) return GPI_OK;
    if (rc != SQLITE_ROW || len < 0 || len > INT32_MAX)
        return store_err(st, d, "reading a chain state");
    *state = malloc(len > 0 ? (size_t)len : 1);
    if (!*state) return gpi_diag_set(d, GPI_ENOMEM, "store: out of memory");
    sqlite3_blob *b = NULL;
    gpi_status out = GPI_OK;
    if (len > 0 && sqlite3_blob_open(st->db, "main", "chain_states", "state", rowid, 0, &b) !=
                       SQLITE_OK)
        out = store_err(st, d, "reading a chain state");
    else if (len > 0 && sqlite3_blob_bytes(b) != (int)len)
        out = gpi_diag_set(d, GPI_ESTORE, "store: reading a chain state: %d bytes, not %lld",
                           sqlite3_blob_bytes(b), (long long)len);
    else if (len > 0 && sqlite3_blob_read(b, *state, (int)len, 0) != SQLITE_OK)
        out = store_err(st, d, "reading a chain state");
    if (out != GPI_OK) {
        sqlite3_blob_close(b);
        free(*state);
        *state = NULL;
        return out;
    }
    sqlite3_blob_close(b);
    *n = (size_t)len;
    return GPI_OK;
}

gpi_status store_obs_reached(store *st, int32_t lo, int32_t hi, int64_t t1, int64_t t2, int *any,
                             gpi_diag *d)
{
    *any = 0;
    if (t1 == t2 || lo > hi) return GPI_OK;
    sqlite3_stmt *s = store_stmt(st, CS_SLOT(CS_REACHED),
                                 "SELECT EXISTS (SELECT 1 FROM batches"
                                 " WHERE ingested_at > ?3 AND ingested_at <= ?4"
                                 " AND ((min_day IS NULL AND coalesce(n_stored, 1) > 0)"
                                 "      OR (min_day <= ?2 AND max_day >= ?1)))",
                                 d);
    if (!s) return GPI_ESTORE;
    sqlite3_bind_int64(s, 1, lo);
    sqlite3_bind_int64(s, 2, hi);
    sqlite3_bind_int64(s, 3, t1 < t2 ? t1 : t2);
    sqlite3_bind_int64(s, 4, t1 < t2 ? t2 : t1);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *any = sqlite3_column_int(s, 0) != 0;
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? GPI_OK : store_err(st, d, "checking batches between cut-offs");
}

gpi_status store_obs_first_day(store *st, int32_t *day, gpi_diag *d)
{
    *day = INT32_MIN;
    sqlite3_stmt *s = store_stmt(st, CS_FIRST_DAY_SLOT, "SELECT min(day) FROM observations", d);
    if (!s) return GPI_ESTORE;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
        *day = (int32_t)sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? GPI_OK : store_err(st, d, "finding the first day observed");
}
