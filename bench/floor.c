/* bench/floor.c -- the cost of SQLite alone for a table shaped like
 * gpuidx's observations: N rows of (day, key, time) primary key, WITHOUT
 * ROWID, plus C integer columns, inserted with one prepared statement in
 * one transaction, WAL, synchronous=NORMAL, 16 KiB pages, 16 MiB cache --
 * the settings of store/store.c, nothing parsed, nothing interned.
 *
 *   cc -O2 -o floor bench/floor.c -lsqlite3
 *   ./floor DB COLUMNS ROWS [DAYS]     (keys random within a day)
 *
 * Prints the seconds from BEGIN to the end of COMMIT (checkpoint included).
 * It is a lower bound for any ingest that stores one row per observation.
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

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: floor DB COLUMNS ROWS [DAYS]\n");
        return 2;
    }
    int ncol = atoi(argv[2]);
    long n = atol(argv[3]), days = argc > 4 ? atol(argv[4]) : 365;
    if (ncol < 0 || ncol > 60 || n < 1 || days < 1) return 2;
    sqlite3 *db;
    remove(argv[1]);
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                        SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return 1;
    sqlite3_exec(db, "PRAGMA page_size=16384; PRAGMA journal_mode=WAL;"
                     " PRAGMA synchronous=NORMAL; PRAGMA cache_size=-16384", 0, 0, 0);
    char sql[4096] = "CREATE TABLE o(day INTEGER, k INTEGER, t INTEGER";
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
        sqlite3_bind_int64(s, 2, (sqlite3_int64)(x >> 1));
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
