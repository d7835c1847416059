/* tests/test_e2e_bulk.c -- bulk ingest of months of files stays correct and
 * resumable with observations stored as rows plus profiles (issue 15):
 * re-ingesting the same files stores nothing; a bulk ingest killed in the
 * middle of a file leaves whole files only, and running it again ends with
 * the same database; a broken file among them changes nothing of the
 * others; and migration 10 on such a database keeps the readable view and
 * every built value, and gives the old rows' pages back.
 *
 * One market for all tests: `gpuidx simulate` (120 days, scale 1, about
 * 96,000 observations) split into one offers and one trades file per
 * month; "the same database" is compared as the whole readable view plus
 * the profiles, names, facets and batches (without their times). */
#include "tests/testutil.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/schema9.h"

static char *dir;            /* the scratch directory of the group */
static char data_opt[4200];  /* --data of the shipped tables */

#define OFFERS "o-2025-01.csv o-2025-02.csv o-2025-03.csv o-2025-04.csv"
#define TRADES "t-2025-01.csv t-2025-02.csv t-2025-03.csv t-2025-04.csv"

static void sh_ok(const char *cmd)
{
    tu_run r = tu_sh(dir, "%s", cmd);
    if (r.status != 0) fail_msg("%s: exit %d: %s", cmd, r.status, r.err);
    tu_run_free(&r);
}

static long sql_long(const char *db, const char *sql)
{
    tu_run r = tu_sh(dir, "sqlite3 %s \"%s\"", db, sql);
    if (r.status != 0) fail_msg("sqlite3: %s", r.err);
    long v = strtol(r.out, NULL, 10);
    tu_run_free(&r);
    return v;
}

/* Writes everything the database holds about its observations to out. */
static void dump(const char *db, const char *out)
{
    tu_run r = tu_sh(dir,
                     "sqlite3 -header -csv %s \"SELECT * FROM observations_readable ORDER BY day,"
                     " key_hash, observed_at; SELECT * FROM profiles ORDER BY profile_id;"
                     " SELECT * FROM names ORDER BY name_id;"
                     " SELECT pack, format, n, hex(data) FROM profile_packs ORDER BY pack;"
                     " SELECT batch_id, path, sha256, n_read, n_stored, n_duplicates, n_rejected"
                     " FROM batches ORDER BY batch_id;\" > %s",
                     db, out);
    if (r.status != 0) fail_msg("dump %s: %s", db, r.err);
    tu_run_free(&r);
}

static void same_dump(const char *a, const char *b)
{
    tu_run r = tu_sh(dir, "cmp %s %s", a, b);
    if (r.status != 0) fail_msg("%s and %s differ: %s", a, b, r.out);
    tu_run_free(&r);
}

static tu_run ingest(const char *db, const char *kind, const char *files)
{
    return tu_gpuidx(dir, "--db %s %s ingest %s --admit-providers %s", db, data_opt, kind, files);
}

static void ingest_ok(const char *db, const char *kind, const char *files)
{
    tu_run r = ingest(db, kind, files);
    if (r.status != 0) fail_msg("ingest %s: exit %d: %s", files, r.status, r.err);
    tu_run_free(&r);
}

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-bulk");
    snprintf(data_opt, sizeof data_opt, "--data '%s/data'", tu_srcdir());
    tu_run r = tu_gpuidx(dir, "simulate --days 120 --seed 11 --scale 1 --start 2025-01-01 --out m");
    if (r.status != 0) fail_msg("simulate: %s", r.err);
    tu_run_free(&r);
    /* one file a month: observed_at is the third column */
    sh_ok("for k in o:offers t:trades; do awk -F, -v p=${k%%:*} 'NR == 1 { h = $0; next }"
          " { f = p \"-\" substr($3, 1, 7) \".csv\"; if (!(f in s)) { print h > f; s[f] = 1 }"
          " print > f }' m/${k#*:}.csv; done");
    sh_ok("test $(ls o-2025-0?.csv t-2025-0?.csv | wc -l) = 8");
    /* the reference: every file ingested once, nothing interrupted */
    ingest_ok("a.db", "offers", OFFERS);
    ingest_ok("a.db", "trades", TRADES);
    dump("a.db", "a.dump");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_run r = tu_sh(NULL, "rm -rf '%s'", dir);
    tu_run_free(&r);
    free(dir);
    return 0;
}

/* The same files again: each is skipped by its SHA-256, nothing changes. */
static void test_reingest_is_a_noop(void **state)
{
    (void)state;
    sh_ok("rm -f r.db* && cp a.db r.db");
    tu_run r = ingest("r.db", "offers", OFFERS);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "o-2025-01.csv: skipped, already ingested (batch 1)\n"
                               "o-2025-02.csv: skipped, already ingested (batch 2)\n"
                               "o-2025-03.csv: skipped, already ingested (batch 3)\n"
                               "o-2025-04.csv: skipped, already ingested (batch 4)\n");
    tu_run_free(&r);
    r = ingest("r.db", "trades", TRADES);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "t-2025-04.csv: skipped, already ingested (batch 8)\n"));
    tu_run_free(&r);
    dump("r.db", "r.dump");
    same_dump("a.dump", "r.dump");
}

/* The threads of pid, each "state wchan" on a line (malloc'd). */
static char *threads(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *dp = opendir(path);
    size_t cap = 4096, n = 0;
    char *out = calloc(1, cap);
    struct dirent *e;
    while (dp && out && (e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[300], stat[512] = "", wchan[128] = "";
        snprintf(p, sizeof p, "/proc/%d/task/%s/stat", (int)pid, e->d_name);
        FILE *f = fopen(p, "r");
        if (f) {
            stat[fread(stat, 1, sizeof stat - 1, f)] = '\0';
            fclose(f);
        }
        snprintf(p, sizeof p, "/proc/%d/task/%s/wchan", (int)pid, e->d_name);
        f = fopen(p, "r");
        if (f) {
            wchan[fread(wchan, 1, sizeof wchan - 1, f)] = '\0';
            fclose(f);
        }
        const char *st = strrchr(stat, ')'); /* "pid (comm) S ..." */
        n += (size_t)snprintf(out + n, cap - n, "%c %s\n", st && st[1] ? st[2] : '?', wchan);
        if (n >= cap - 256) break;
    }
    if (dp) closedir(dp);
    return out;
}

/* Waits until pid has read all the FIFO gives and sleeps: a thread in
 * pipe_read, none running, five times in a row 20 ms apart.  0 when it
 * ended first. */
static int idle_on_pipe(pid_t pid)
{
    int quiet = 0;
    for (int i = 0; i < 3000 && quiet < 5; i++) { /* at most 60 s */
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) return 0;
        char *t = threads(pid);
        int on_pipe = t && strstr(t, "pipe_read") != NULL;
        int running = t && (t[0] == 'R' || strstr(t, "\nR ") != NULL);
        free(t);
        quiet = on_pipe && !running ? quiet + 1 : 0;
        usleep(20000);
    }
    if (quiet < 5) fail_msg("ingest %d never waited on the FIFO", (int)pid);
    return 1;
}

/* kill -9 in the middle of the third month's file: the first two months
 * are stored whole, nothing of the third; running the same bulk ingest
 * again skips the two and ends with the database of an uninterrupted run. */
static void test_killed_bulk_ingest_resumes(void **state)
{
    (void)state;
    sh_ok("rm -f k.db* fifo.csv && mkfifo fifo.csv");
    /* the FIFO gives the first 1,000 lines of the month, then waits */
    char path[4200];
    snprintf(path, sizeof path, "%s/o-2025-03.csv", dir);
    char *month = tu_read(path);
    assert_non_null(month);
    size_t head = 0;
    for (int lines = 0; month[head] && lines < 1000; head++) lines += month[head] == '\n';
    pid_t writer = fork();
    assert_true(writer >= 0);
    if (writer == 0) {
        snprintf(path, sizeof path, "%s/fifo.csv", dir);
        FILE *f = fopen(path, "w");
        if (!f || fwrite(month, 1, head, f) != head || fflush(f) != 0) _exit(1);
        pause(); /* until killed */
        _exit(0);
    }
    free(month);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(dir) != 0 || !freopen("/dev/null", "w", stdout) ||
            !freopen("/dev/null", "w", stderr))
            _exit(127);
        char data[4200];
        snprintf(data, sizeof data, "%s/data", tu_srcdir());
        execl(getenv("GPUIDX_BIN"), "gpuidx", "--db", "k.db", "--data", data, "ingest", "offers",
              "--admit-providers", "o-2025-01.csv", "o-2025-02.csv", "fifo.csv", "o-2025-04.csv",
              (char *)NULL);
        _exit(127);
    }
    int waited = idle_on_pipe(pid);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    kill(writer, SIGKILL);
    waitpid(writer, &st, 0);
    assert_true(waited);
    tu_run r = tu_sh(dir, "sqlite3 k.db 'PRAGMA integrity_check'");
    assert_string_equal(r.out, "ok\n");
    tu_run_free(&r);
    long months12 = sql_long("a.db", "SELECT count(*) FROM observations WHERE batch_id <= 2");
    assert_true(months12 > 10000);
    assert_int_equal(sql_long("k.db", "SELECT count(*) FROM batches"), 2);
    assert_int_equal(sql_long("k.db", "SELECT count(*) FROM observations"), months12);
    assert_int_equal(sql_long("k.db", "SELECT count(*) FROM observations_readable"), months12);

    r = ingest("k.db", "offers", OFFERS);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "o-2025-01.csv: skipped, already ingested (batch 1)\n"
                                  "o-2025-02.csv: skipped, already ingested (batch 2)\n"
                                  "o-2025-03.csv: read "));
    tu_run_free(&r);
    ingest_ok("k.db", "trades", TRADES);
    dump("k.db", "k.dump");
    same_dump("a.dump", "k.dump");
}

/* A structurally broken file first in the list stores nothing, and the
 * files after it -- the same offers, whose names and profiles the broken
 * file's rolled back transaction had just stored -- are stored as if it
 * had not been there. */
static void test_broken_file_first(void **state)
{
    (void)state;
    sh_ok("rm -f b.db* && { cat o-2025-01.csv; echo 'offer,\"x,2025-01-02'; } > broken.csv");
    tu_run r = ingest("b.db", "offers", "broken.csv " OFFERS);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "o-2025-04.csv: read "));
    tu_run_free(&r);
    ingest_ok("b.db", "trades", TRADES);
    dump("b.db", "b.dump");
    same_dump("a.dump", "b.dump");
}

/* Migration 10 on a database of schema 9 (rows holding every value): the
 * readable view is the same, and so is every value a build computes from
 * it. */
static void test_migration_keeps_view_and_values(void **state)
{
    (void)state;
    free(tu_write(dir, "undo10.sql", undo_10));
    sh_ok("rm -f m8.db* && cp a.db m8.db && sqlite3 m8.db '.read undo10.sql'");
    assert_int_equal(sql_long("m8.db", "PRAGMA user_version"), 9);
    assert_int_equal(sql_long("m8.db", "SELECT count(*) FROM sqlite_master WHERE name = 'profiles'"),
                     0);
    sh_ok("sqlite3 -header -csv m8.db 'SELECT * FROM observations_readable ORDER BY day,"
          " key_hash, observed_at' > v8.csv");
    /* a.db's view as dump() wrote it in the setup: its first table, up to
     * the profiles' header (a.db is unchanged since; the query again took
     * half a second) */
    sh_ok("sed '/^profile_id,/,$d' a.dump > va.csv && test $(wc -l < va.csv) -gt 90000 &&"
          " cmp va.csv v8.csv");
    const char *build = "index build --from 2025-01-01 --to 2025-04-30";
    tu_run r = tu_gpuidx(dir, "--db m8.db %s %s", data_opt, build); /* migrates first */
    if (r.status != 0) fail_msg("build: %s", r.err);
    tu_run_free(&r);
    assert_int_equal(sql_long("m8.db", "PRAGMA user_version"), 17); /* every migration, 15 the curve's, 16 format 4's links, 17 the rows' roles */
    /* migration 12: every profile has stored rows, so every one is noted,
     * and each is in a pack */
    assert_int_equal(sql_long("m8.db", "SELECT count(*) FROM profiles WHERE NOT noted"), 0);
    assert_int_equal(sql_long("m8.db", "SELECT (SELECT sum(n) FROM profile_packs) ="
                                       " (SELECT count(*) FROM profiles)"),
                     1);
    /* the old rows' pages went back to the file system (store.c compact) */
    assert_true(sql_long("m8.db", "PRAGMA freelist_count") * 10 <
                sql_long("m8.db", "PRAGMA page_count"));
    sh_ok("sqlite3 -header -csv m8.db 'SELECT * FROM observations_readable ORDER BY day,"
          " key_hash, observed_at' > v9.csv && cmp v8.csv v9.csv");
    r = tu_gpuidx(dir, "--db a.db %s %s", data_opt, build);
    if (r.status != 0) fail_msg("build: %s", r.err);
    tu_run_free(&r);
    sh_ok("\"$GPUIDX_BIN\" --db a.db index show > sa.csv && \"$GPUIDX_BIN\" --db m8.db index show"
          " > s9.csv && cmp sa.csv s9.csv && test $(wc -l < sa.csv) -gt 100");
    r = tu_sh(dir, "sqlite3 m8.db 'PRAGMA integrity_check'");
    assert_string_equal(r.out, "ok\n");
    tu_run_free(&r);
}

int main(void)
{
    if (!getenv("GPUIDX_BIN")) {
        static char b[4200];
        snprintf(b, sizeof b, "%s/build/gpuidx", tu_srcdir());
        setenv("GPUIDX_BIN", b, 1);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reingest_is_a_noop),
        cmocka_unit_test(test_killed_bulk_ingest_resumes),
        cmocka_unit_test(test_broken_file_first),
        cmocka_unit_test(test_migration_keeps_view_and_values),
    };
    return cmocka_run_group_tests_name("e2e_bulk", tests, setup, teardown);
}
