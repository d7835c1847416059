/* bench/floor.c -- the cost of SQLite alone for a table shaped like
 * gpuidx's observations: N rows of (day, key, time) primary key, WITHOUT
 * ROWID, plus C integer columns, inserted with one prepared statement in
 * one transaction, WAL, synchronous=NORMAL, 16 KiB pages, 16 MiB cache --
 * the settings of store/store.c, nothing parsed, nothing interned.
 *
 *   cc -O2 -o floor bench/floor.c -lsqlite3
 *   ./floor DB COLUMNS ROWS [DAYS [wal|delete [random|sorted|packed]]]
 *
 * Defaults: 365 days, WAL, keys random within a day (as gpuidx's key
 * hashes are).  `delete` uses a rollback journal instead of WAL (new pages
 * are then written once, not to the WAL and again at the checkpoint);
 * `sorted` inserts keys in ascending order (every insert an append).  With
 * COLUMNS 0 the table holds nothing but its primary key: the least any
 * one-row-per-observation store can cost.
 *
 * `packed` is the design a row store is compared with: each day's rows are
 * collected in memory, de-duplicated there on (key, time) with a hash set,
 * encoded as varints (as SQLite's records are) and stored as one row per
 * day and MiB chunk: (day, chunk, rows, data BLOB).  Same rows, same
 * values, random keys.
 *
 * Prints the seconds from BEGIN to the end of COMMIT (checkpoint included).
 * Without `packed` it is a lower bound for any ingest that stores one row
 * per observation.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

/* One day's rows being packed: the varint bytes and the (key, time) set. */
typedef struct {
    unsigned char *buf;
    size_t len, cap;
    uint64_t *set; /* open addressing, 0 = empty; holds key ^ time * odd */
    size_t nset, setcap;
    long rows;
} day_pack;

/* Adds a row unless (k, t) is in the day already; 0 ok, -1 no memory. */
static int pack_row(day_pack *p, int64_t k, int64_t t, int ncol, long i)
{
    uint64_t h = ((uint64_t)k ^ (uint64_t)t * 0x9E3779B97F4A7C15ULL) | 1;
    if ((p->nset + 1) * 2 > p->setcap) {
        size_t nc = p->setcap ? p->setcap * 2 : 65536;
        uint64_t *ns = calloc(nc, sizeof *ns);
        if (!ns) return -1;
        for (size_t j = 0; j < p->setcap; j++)
            if (p->set[j]) {
                size_t q = p->set[j] & (nc - 1);
                while (ns[q]) q = (q + 1) & (nc - 1);
                ns[q] = p->set[j];
            }
        free(p->set);
        p->set = ns;
        p->setcap = nc;
    }
    size_t q = h & (p->setcap - 1);
    for (; p->set[q]; q = (q + 1) & (p->setcap - 1))
        if (p->set[q] == h) return 0; /* a real store would compare the rows */
    p->set[q] = h;
    p->nset++;
    if (p->len + 10 * (size_t)(ncol + 2) > p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 1 << 20;
        unsigned char *nb = realloc(p->buf, nc);
        if (!nb) return -1;
        p->buf = nb;
        p->cap = nc;
    }
    p->len += put_varint(p->buf + p->len, (uint64_t)k);
    p->len += put_varint(p->buf + p->len, (uint64_t)t);
    for (int c = 0; c < ncol; c++) p->len += put_varint(p->buf + p->len, (uint64_t)((c * 7 + i) % 100));
    p->rows++;
    return 0;
}

/* Writes the day as MiB chunks and empties it; 0 ok, -1 SQLite error. */
static int pack_flush(day_pack *p, sqlite3_stmt *s, long day)
{
    size_t chunk = 1 << 20;
    for (size_t off = 0, c = 0; off < p->len; off += chunk, c++) {
        size_t len = p->len - off < chunk ? p->len - off : chunk;
        sqlite3_bind_int64(s, 1, day);
        sqlite3_bind_int64(s, 2, (sqlite3_int64)c);
        sqlite3_bind_int64(s, 3, p->rows);
        sqlite3_bind_blob(s, 4, p->buf + off, (int)len, SQLITE_STATIC);
        if (sqlite3_step(s) != SQLITE_DONE) return -1;
        sqlite3_reset(s);
    }
    p->len = 0;
    p->rows = 0;
    p->nset = 0;
    if (p->set) memset(p->set, 0, p->setcap * sizeof *p->set);
    return 0;
}

/* The `packed` run: seconds, or -1 on error. */
static double run_packed(sqlite3 *db, int ncol, long n, long per_day)
{
    sqlite3_stmt *s;
    if (sqlite3_exec(db, "CREATE TABLE p(day INTEGER, chunk INTEGER, rows INTEGER, data BLOB,"
                         " PRIMARY KEY(day, chunk))", 0, 0, 0) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO p VALUES(?, ?, ?, ?)", -1, &s, 0) != SQLITE_OK)
        return -1;
    day_pack p = {0};
    double t0 = now();
    int bad = sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0) != SQLITE_OK;
    uint64_t x = 88172645463325252ULL;
    for (long i = 0; i < n && !bad; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (i > 0 && i % per_day == 0) bad = pack_flush(&p, s, i / per_day - 1) != 0;
        if (!bad) bad = pack_row(&p, (int64_t)(x >> 1), 1735689600 + i, ncol, i) != 0;
    }
    if (!bad) bad = pack_flush(&p, s, (n - 1) / per_day) != 0;
    if (!bad) bad = sqlite3_exec(db, "COMMIT", 0, 0, 0) != SQLITE_OK;
    double t = now() - t0;
    sqlite3_finalize(s);
    free(p.buf);
    free(p.set);
    return bad ? -1 : t;
}

int main(int argc, char **argv)
{
    const char *usage =
        "usage: floor DB COLUMNS ROWS [DAYS [wal|delete [random|sorted|packed]]]\n";
    if (argc < 4) {
        fputs(usage, stderr);
        return 2;
    }
    int ncol = atoi(argv[2]);
    long n = atol(argv[3]), days = argc > 4 ? atol(argv[4]) : 365;
    const char *journal = argc > 5 ? argv[5] : "wal";
    int sorted = argc > 6 && strcmp(argv[6], "sorted") == 0;
    int packed = argc > 6 && strcmp(argv[6], "packed") == 0;
    if (ncol < 0 || ncol > 60 || n < 1 || days < 1 ||
        (strcmp(journal, "wal") != 0 && strcmp(journal, "delete") != 0) ||
        (argc > 6 && !sorted && !packed && strcmp(argv[6], "random") != 0)) {
        fputs(usage, stderr);
        return 2;
    }
    sqlite3 *db;
    remove(argv[1]);
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                        SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return 1;
    char sql[4096];
    snprintf(sql, sizeof sql, "PRAGMA page_size=16384; PRAGMA journal_mode=%s;"
             " PRAGMA synchronous=NORMAL; PRAGMA cache_size=-16384", journal);
    if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) return 1;
    if (packed) {
        double t = run_packed(db, ncol, n, n / days + 1);
        sqlite3_close(db);
        if (t < 0) return 1;
        printf("%.2f\n", t);
        return 0;
    }
    strcpy(sql, "CREATE TABLE o(day INTEGER, k INTEGER, t INTEGER");
    for (int i = 0; i < ncol; i++) sprintf(sql + strlen(sql), ", c%d INTEGER", i);
    strcat(sql, ", PRIMARY KEY(day, k, t)) WITHOUT ROWID");
    if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) return 1;
    strcpy(sql, "INSERT INTO o VALUES(?, ?, ?");
    for (int i = 0; i < ncol; i++) strcat(sql, ", ?");
    strcat(sql, ") ON CONFLICT DO NOTHING");
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, 0) != SQLITE_OK) return 1;
    double t0 = now();
    sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0);
    uint64_t x = 88172645463325252ULL;
    long per_day = n / days + 1;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sqlite3_bind_int64(s, 1, i / per_day);
        /* sorted: ascending within a day (day is the leading key column) */
        sqlite3_bind_int64(s, 2, sorted ? (sqlite3_int64)i : (sqlite3_int64)(x >> 1));
        sqlite3_bind_int64(s, 3, 1735689600 + i);
        for (int c = 0; c < ncol; c++) sqlite3_bind_int64(s, 4 + c, (c * 7 + i) % 100);
        if (sqlite3_step(s) != SQLITE_DONE) return 1;
        sqlite3_reset(s);
    }
    if (sqlite3_exec(db, "COMMIT", 0, 0, 0) != SQLITE_OK) return 1;
    printf("%.2f\n", now() - t0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return 0;
}
