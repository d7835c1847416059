/* tests/test_e2e_kill.c -- kill -9 at any moment, then the same command
 * again: the state is the one an uninterrupted run leaves, byte for byte
 * (issue 12, item 9 and "Done means").
 *
 * On a demo market (gpuidx simulate, 75 days) and grades of both methods
 * (v1 and v2, whose rows depend on the chain since its last reset):
 *
 *   build      a fresh build of the whole range; and a rebuild of 11 days
 *              after late data, which re-evaluates the later days;
 *   ingest     the offers file (one transaction);
 *   publish    15 days (one transaction and one folder swap per day);
 *   site       the pages and CSV files.
 *
 * Each round copies the prepared database, starts the command, kills it
 * (SIGKILL) either once it has committed N days (polled in the database:
 * the kill lands between or inside day transactions) or after a random
 * delay (up to 1.2 times the uninterrupted run's time), runs the same
 * command again to completion, and compares with the uninterrupted run:
 * `index show` and every row of the tables the command writes (all columns
 * but the wall-clock times: built_at, created_at, ingested_at,
 * recorded_at; a build without --as-of also as_of), and for publish and
 * site every file of the output folder (path and SHA-256; leftovers of the
 * killed run would show).  GPUIDX_KILL_ROUNDS sets the rounds per scenario
 * (default 4), GPUIDX_KILL_SEED the random delays; each scenario prints
 * one line of figures (docs/reliability.md).
 *
 * And: a build commits day by day, so an ingest started while a long build
 * runs gets its turn before the build ends (the build does not hold the
 * writers' lock for its whole range).
 */
#include "tests/testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/gpi.h"
#include "core/vec.h"

#define FROM "2025-01-01"
#define TO "2025-03-16" /* 75 days */
#define NDAYS 75
#define NGRADES 4

static const char grades_json[] =
    "{\"grades\": [\n"
    "  {\"id\": \"K1\", \"method\": \"v1\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"covers\": [\"instance\"]},\n"
    "  {\"id\": \"K2\", \"method\": \"v2\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"covers\": [\"instance\"]},\n"
    "  {\"id\": \"K3\", \"method\": \"v2\", \"gpu\": [\"A100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"covers\": [\"instance\"]},\n"
    "  {\"id\": \"K4\", \"method\": \"v1\", \"gpu\": [\"L40S\"], \"term\": \"on-demand\","
    " \"covers\": [\"instance\"]}\n"
    "]}\n";

static char *dir;          /* the scratch folder of the whole run */
static char as_of[32];     /* the cut-off of the prepared builds */
static char late_as_of[32];
static int rounds = 4;
static unsigned rng;

static unsigned next_rand(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void sh_ok(const char *cmd)
{
    tu_run r = tu_sh(dir, "%s", cmd);
    if (r.status != 0) fail_msg("%s: exit %d: %s", cmd, r.status, r.err);
    tu_run_free(&r);
}

/* Runs "gpuidx --db db ARGS" in dir; fails the test unless it succeeds. */
static void gpuidx_ok(const char *db, const char *args)
{
    tu_run r = tu_gpuidx(dir, "--db %s %s", db, args);
    if (r.status != 0) fail_msg("%s: exit %d: %s", args, r.status, r.err);
    tu_run_free(&r);
}

/* Starts "gpuidx --db db ARGS" (split on spaces) in dir, output to
 * /dev/null. */
static pid_t start(const char *db, const char *args)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", args);
    const char *argv[64];
    int n = 0;
    argv[n++] = getenv("GPUIDX_BIN");
    argv[n++] = "--db";
    argv[n++] = db;
    for (char *t = strtok(buf, " "); t && n < 62; t = strtok(NULL, " ")) argv[n++] = t;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0) _exit(127);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Kills pid now; 1 when it was still running (killed), 0 when it had
 * ended (with status 0, else the test fails). */
static int kill_now(pid_t pid)
{
    kill(pid, SIGKILL);
    int st;
    if (waitpid(pid, &st, 0) != pid) fail_msg("waitpid: %s", strerror(errno));
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) return 1;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("the command failed before the kill");
    return 0;
}

/* The integer sql gives on dir/db (0 when it cannot be read yet). */
static long poll_long(const char *db, const char *sql)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, db);
    sqlite3 *h = NULL;
    long v = 0;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(h, 1000);
        sqlite3_stmt *s = NULL;
        if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
            v = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    sqlite3_close(h);
    return v;
}

/* Waits until sql on db gives at least n (or the process ends), then
 * kills it; 1 when it was killed.  One read-only connection serves every
 * poll (each step is a read transaction of its own and sees the latest
 * commit; none is open between polls): opening the database for each
 * poll, every 200 us, took a fifth of this file's time. */
static int kill_at_progress(pid_t pid, const char *db, const char *sql, long n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, db);
    sqlite3 *h = NULL;
    sqlite3_stmt *s = NULL;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        fail_msg("open %s: %s", path, sqlite3_errmsg(h));
    sqlite3_busy_timeout(h, 1000);
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(h));
    int killed = -1;
    for (int i = 0; i < 200000 && killed < 0; i++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("the command failed");
            killed = 0;
            break;
        }
        long v = sqlite3_step(s) == SQLITE_ROW ? (long)sqlite3_column_int64(s, 0) : 0;
        sqlite3_reset(s);
        if (v >= n) killed = kill_now(pid);
        else usleep(200);
    }
    sqlite3_finalize(s);
    sqlite3_close(h);
    if (killed < 0) fail_msg("no progress to %ld in 40 s", n);
    return killed;
}

/* Every row of table on dir/db, ordered by every column, without the
 * wall-clock columns (and as_of when skip_as_of); malloc'd text. */
static char *dump_table(const char *db, const char *table, int skip_as_of)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, db);
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        fail_msg("open %s", path);
    char sql[4096], cols[3000] = "";
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s') ORDER BY cid", table);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) != SQLITE_OK) fail_msg("%s", sqlite3_errmsg(h));
    int k = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(s, 0);
        static const char *const clock[] = {"built_at", "created_at", "ingested_at",
                                            "recorded_at", "dropped_at"};
        int skip = skip_as_of && strcmp(c, "as_of") == 0;
        for (size_t i = 0; i < sizeof clock / sizeof clock[0]; i++) skip |= !strcmp(c, clock[i]);
        if (skip) continue;
        size_t n = strlen(cols);
        snprintf(cols + n, sizeof cols - n, "%squote(%s)", k++ ? " || '|' || " : "", c);
    }
    sqlite3_finalize(s);
    /* one text per row, the rows in the order of their text */
    snprintf(sql, sizeof sql, "SELECT %s FROM %s ORDER BY 1", cols, table);
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) != SQLITE_OK) fail_msg("%s", sqlite3_errmsg(h));
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *row = (const char *)sqlite3_column_text(s, 0);
        size_t rl = row ? strlen(row) : 0;
        if (GPI_VEC_RESERVE(out, cap, len + rl + 2) != 0) fail_msg("out of memory");
        memcpy(out + len, row ? row : "", rl);
        len += rl;
        out[len++] = '\n';
        out[len] = '\0';
    }
    sqlite3_finalize(s);
    sqlite3_close(h);
    return out;
}

/* The tables of tabs (NULL-terminated) and, when show, `index show`. */
static char *state_of(const char *db, const char *const *tabs, int skip_as_of, int show)
{
    size_t cap = 1 << 16, len = 0;
    char *all = malloc(cap);
    all[0] = '\0';
    for (size_t i = 0; tabs[i]; i++) {
        char *t = dump_table(db, tabs[i], skip_as_of);
        size_t tl = strlen(t) + strlen(tabs[i]) + 8;
        if (GPI_VEC_RESERVE(all, cap, len + tl) != 0) fail_msg("out of memory");
        len += (size_t)sprintf(all + len, "== %s\n%s", tabs[i], t);
        free(t);
    }
    if (show) {
        tu_run r = tu_gpuidx(dir, "--db %s index show", db);
        if (r.status != 0) fail_msg("index show: %s", r.err);
        size_t tl = strlen(r.out) + 16;
        if (GPI_VEC_RESERVE(all, cap, len + tl) != 0) fail_msg("out of memory");
        len += (size_t)sprintf(all + len, "== show\n%s", r.out);
        tu_run_free(&r);
    }
    return all;
}

/* Every file under dir/sub: path, SHA-256 (leftovers included). */
static char *tree_of(const char *sub)
{
    tu_run r = tu_sh(dir, "( cd %s && find . -type f -print0 | LC_ALL=C sort -z | "
                          "xargs -0 -r sha256sum )", sub);
    if (r.status != 0) fail_msg("tree of %s: %s", sub, r.err);
    free(r.err);
    return r.out;
}

static void copy_db(const char *from, const char *to)
{
    tu_run r = tu_sh(dir, "rm -f %s %s-wal %s-shm %s.lock && ls %s-wal 2>/dev/null; cp %s %s", to,
                     to, to, to, from, from, to);
    if (r.status != 0 || r.out[0]) fail_msg("copy %s: a log is left or cp failed: %s", from, r.err);
    tu_run_free(&r);
}

/* Compares texts, naming the first differing line. */
static void same(const char *want, const char *got, const char *what, int round)
{
    if (strcmp(want, got) == 0) return;
    size_t i = 0, line = 1;
    while (want[i] && want[i] == got[i]) line += want[i++] == '\n';
    const char *a = want + i, *b = got + i;
    while (a > want && a[-1] != '\n') a--, b--;
    fail_msg("%s, round %d: differs from the uninterrupted run at line %zu:\n  want %.200s\n  "
             "got  %.200s",
             what, round, line, a, b);
}

typedef struct figures {
    int rounds, killed, finished;
    long min_done, max_done;  /* progress at the kill (rows, files...) */
} figures;

static void note(figures *f, int killed, long done)
{
    f->rounds++;
    if (killed) f->killed++;
    else f->finished++;
    if (f->rounds == 1 || done < f->min_done) f->min_done = done;
    if (f->rounds == 1 || done > f->max_done) f->max_done = done;
}

static void report(const char *what, const figures *f, double ref_s, const char *unit)
{
    fprintf(stderr, "kill figures: %s: %d rounds, %d killed mid-run, %d finished first; %s at the "
                    "kill %ld..%ld; uninterrupted run %.2f s\n",
            what, f->rounds, f->killed, f->finished, unit, f->min_done, f->max_done, ref_s);
}

/* ---- setup ------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    const char *r = getenv("GPUIDX_KILL_ROUNDS");
    if (r && atoi(r) > 0) rounds = atoi(r);
    const char *seed = getenv("GPUIDX_KILL_SEED");
    rng = seed ? (unsigned)strtoul(seed, NULL, 10) : (unsigned)time(NULL);
    fprintf(stderr, "kill: %d rounds a scenario, seed %u\n", rounds, rng);
    dir = tu_mkdtemp("e2e-kill");
    free(tu_write(dir, "k.json", grades_json));
    tu_run t = tu_gpuidx(dir, "simulate --days %d --seed 7 --start " FROM " --out m", NDAYS);
    if (t.status != 0) fail_msg("simulate: %s", t.err);
    tu_run_free(&t);
    /* late data: every third offer of 2025-01-10..20 again at 23:59 that
     * day, 30% dearer, ingested after the first build */
    free(tu_write(dir, "late.awk",
                  "BEGIN { FS = OFS = \",\" }\n"
                  "NR == 1 { for (i = 1; i <= NF; i++) { if ($i == \"observed_at\") t = i;"
                  " if ($i == \"price\") p = i } print; next }\n"
                  "$t >= \"2025-01-10\" && $t < \"2025-01-21\" && NR % 3 == 0 {"
                  " $t = substr($t, 1, 10) \"T23:59:00Z\"; $p = sprintf(\"%.4f\", $p * 1.3);"
                  " print }\n"));
    sh_ok("awk -f late.awk m/offers.csv > late.csv");
    gpuidx_ok("base.db", "ingest offers --admit-providers m/offers.csv");
    gpuidx_ok("base.db", "ingest trades --admit-providers m/trades.csv");
    /* the cut-off: the second of the last commit (inclusive) */
    int64_t base_s = tu_last_batch_second(dir, "base.db", as_of);
    copy_db("base.db", "built.db");
    char args[512];
    snprintf(args, sizeof args, "index build --grades k.json --from " FROM " --to " TO
                                " --as-of %s", as_of);
    gpuidx_ok("built.db", args);
    copy_db("built.db", "late.db");
    /* the late data in a later second than the cut-off (the build took
     * some of the wait), and the rebuild's cut-off at its second */
    tu_wait_past(base_s);
    gpuidx_ok("late.db", "ingest offers --admit-providers late.csv");
    tu_last_batch_second(dir, "late.db", late_as_of);
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

/* ---- build ----------------------------------------------------------------------- */

static const char *const build_tables[] = {"index_values", "index_exclusions", "index_adj_days",
                                           NULL};

/* The scenario: db0 prepared, the build command args, the SQL whose value
 * grows as days are committed (and its final value), and whether rows are
 * compared without as_of. */
static void build_rounds(const char *what, const char *db0, const char *args, const char *progress,
                         long total, int skip_as_of)
{
    copy_db(db0, "ref.db");
    double t0 = now_s();
    gpuidx_ok("ref.db", args);
    double ref_s = now_s() - t0;
    char *want = state_of("ref.db", build_tables, skip_as_of, 1);
    figures f = {0};
    for (int k = 0; k < rounds; k++) {
        copy_db(db0, "k.db");
        pid_t pid = start("k.db", args);
        int killed;
        if (k % 2 == 0) { /* after n rows of this build: between or inside days */
            long n = 1 + (long)(next_rand() % (unsigned long)total);
            killed = kill_at_progress(pid, "k.db", progress, n);
        } else {          /* after a random delay */
            usleep((useconds_t)(next_rand() % (unsigned)(1.2e6 * ref_s + 1)));
            killed = kill_now(pid);
        }
        note(&f, killed, poll_long("k.db", progress));
        gpuidx_ok("k.db", args); /* the same command again */
        char *got = state_of("k.db", build_tables, skip_as_of, 1);
        same(want, got, what, k);
        free(got);
    }
    report(what, &f, ref_s, "rows of the build");
    free(want);
}

/* A fresh build of the whole range, v1 and v2 grades, the cut-off given. */
static void test_kill_build_fresh(void **state)
{
    (void)state;
    char args[512], progress[128];
    snprintf(args, sizeof args, "index build --grades k.json --from " FROM " --to " TO
                                " --as-of %s", as_of);
    snprintf(progress, sizeof progress, "SELECT count(*) FROM index_values");
    build_rounds("build, fresh", "base.db", args, progress, (long)NDAYS * NGRADES, 0);
}

/* The same without --as-of: each run takes its own cut-off (now), so the
 * rows are compared without as_of. */
static void test_kill_build_fresh_now(void **state)
{
    (void)state;
    build_rounds("build, fresh, cut-off now", "base.db",
                 "index build --grades k.json --from " FROM " --to " TO,
                 "SELECT count(*) FROM index_values", (long)NDAYS * NGRADES, 1);
}

/* Late data reached 2025-01-10..20: rebuilding those days re-evaluates
 * the later ones (v1: until a day comes out unchanged; v2: the chain
 * read again until it resets); a kill lands in the days' transactions or
 * in the re-evaluation's. */
static void test_kill_build_late_data(void **state)
{
    (void)state;
    char args[512], progress[128];
    snprintf(args, sizeof args, "index build --grades k.json --from 2025-01-10 --to 2025-01-20"
                                " --as-of %s", late_as_of);
    int64_t t;
    assert_null(gpi_time_parse(late_as_of, &t));
    snprintf(progress, sizeof progress, "SELECT count(*) FROM index_values WHERE as_of = %lld",
             (long long)t);
    /* the rows the uninterrupted rebuild writes at the new cut-off */
    copy_db("late.db", "ref.db");
    gpuidx_ok("ref.db", args);
    long total = poll_long("ref.db", progress);
    assert_true(total > 11 * NGRADES); /* later days were re-evaluated too */
    build_rounds("build, late data", "late.db", args, progress, total, 0);
}

/* ---- ingest ------------------------------------------------------------------------ */

static void test_kill_ingest(void **state)
{
    (void)state;
    static const char *const tabs[] = {"batches", "observations", "rejects", "names",
                                       "ident_aliases", NULL};
    const char *args = "ingest offers --admit-providers m/offers.csv";
    gpuidx_ok("warm.db", args); /* the file in the page cache for the timing */
    double t0 = now_s();
    gpuidx_ok("ref-i.db", args);
    double ref_s = now_s() - t0;
    tu_run r;
    char *want = state_of("ref-i.db", tabs, 0, 0);
    figures f = {0};
    for (int k = 0; k < rounds; k++) {
        r = tu_sh(dir, "rm -f i.db i.db-wal i.db-shm i.db.lock");
        tu_run_free(&r);
        pid_t pid = start("i.db", args);
        usleep((useconds_t)(next_rand() % (unsigned)(1.2e6 * ref_s + 1)));
        int killed = kill_now(pid);
        note(&f, killed, poll_long("i.db", "SELECT count(*) FROM observations"));
        gpuidx_ok("i.db", args);
        char *got = state_of("i.db", tabs, 0, 0);
        same(want, got, "ingest", k);
        free(got);
    }
    report("ingest", &f, ref_s, "rows stored");
    free(want);
}

/* ---- publish and site ---------------------------------------------------------------- */

/* Files under dir/sub (temporary ones included). */
static long files_in(const char *sub)
{
    tu_run r = tu_sh(dir, "( find %s -type f 2>/dev/null | wc -l )", sub);
    long n = strtol(r.out, NULL, 10);
    tu_run_free(&r);
    return n;
}

/* Waits until the folder dir/sub holds at least n files (or the process
 * ends), then kills it; 1 when it was killed. */
static int kill_at_files(pid_t pid, const char *sub, long n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    for (int i = 0; i < 200000; i++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("the command failed");
            return 0;
        }
        /* the folder's files, temporary ones included (no shell: this
         * polls every 50 us, a site takes some 10 ms) */
        long k = 0;
        DIR *dh = opendir(path);
        struct dirent *e;
        while (dh && (e = readdir(dh)))
            k += e->d_name[0] != '.' || strstr(e->d_name, ".tmp") != NULL;
        if (dh) closedir(dh);
        if (k >= n) return kill_now(pid);
        usleep(50);
    }
    fail_msg("no progress to %ld files", n);
    return 0;
}

/* cmd has one %s, the output folder; progress (SQL on the database, or
 * NULL: the files written) says how far a run got. */
static void output_rounds(const char *what, const char *cmd, const char *const *tabs,
                          const char *progress)
{
    char args[512], sub[64];
    copy_db("built.db", "ref-o.db");
    tu_run r = tu_sh(dir, "rm -rf ref-out");
    tu_run_free(&r);
    snprintf(args, sizeof args, cmd, "ref-out");
    double t0 = now_s();
    gpuidx_ok("ref-o.db", args);
    double ref_s = now_s() - t0;
    long total = progress ? poll_long("ref-o.db", progress) : files_in("ref-out");
    char *want_tree = tree_of("ref-out");
    char *want = tabs ? state_of("ref-o.db", tabs, 0, 0) : strdup("");
    figures f = {0};
    for (int k = 0; k < rounds; k++) {
        copy_db("built.db", "o.db");
        snprintf(sub, sizeof sub, "out%d", k);
        r = tu_sh(dir, "rm -rf %s", sub);
        tu_run_free(&r);
        snprintf(args, sizeof args, cmd, sub);
        pid_t pid = start("o.db", args);
        int killed;
        long n = 1 + (long)(next_rand() % (unsigned long)(total > 0 ? total : 1));
        if (k % 2 == 0 && progress)
            killed = kill_at_progress(pid, "o.db", progress, n);
        else if (k % 2 == 0)
            killed = kill_at_files(pid, sub, n);
        else {
            usleep((useconds_t)(next_rand() % (unsigned)(1.2e6 * ref_s + 1)));
            killed = kill_now(pid);
        }
        note(&f, killed, progress ? poll_long("o.db", progress) : files_in(sub));
        gpuidx_ok("o.db", args);
        char *got_tree = tree_of(sub);
        same(want_tree, got_tree, what, k);
        free(got_tree);
        char *got = tabs ? state_of("o.db", tabs, 0, 0) : strdup("");
        same(want, got, what, k);
        free(got);
        r = tu_sh(dir, "rm -rf %s", sub);
        tu_run_free(&r);
    }
    report(what, &f, ref_s, progress ? "vintages" : "files");
    free(want_tree);
    free(want);
}

static void test_kill_publish(void **state)
{
    (void)state;
    static const char *const tabs[] = {"index_vintages", "index_published", "index_restatements",
                                       "index_revisions", NULL};
    output_rounds("publish",
                  "index publish --grades k.json --from 2025-03-02 --to 2025-03-16 --out %s", tabs,
                  "SELECT count(*) FROM index_vintages");
}

static void test_kill_site(void **state)
{
    (void)state;
    output_rounds("site", "site --grades k.json --out %s", NULL, NULL);
}

/* ---- a waiting writer gets in after the day ------------------------------------------ */

/* A build's days share transactions (index/build.c note 4), but a writer
 * that waits for the lock is let in at the end of the day: an ingest
 * started once the build has begun is stored before the build ends. */
static void test_ingest_during_build(void **state)
{
    (void)state;
    free(tu_write(dir, "one.csv", "observed_at,provider,gpu,price\n2025-06-01,aws,H100,2.5\n"));
    copy_db("base.db", "l.db");
    char args[512];
    snprintf(args, sizeof args, "index build --grades k.json --from " FROM " --to " TO
                                " --as-of %s", as_of);
    long builds = poll_long("l.db", "SELECT count(*) FROM index_builds");
    pid_t build = start("l.db", args);
    for (int i = 0; i < 100000 && poll_long("l.db", "SELECT count(*) FROM index_builds") == builds;
         i++)
        usleep(200);
    pid_t ing = start("l.db", "ingest offers one.csv");
    int st;
    if (waitpid(ing, &st, 0) != ing || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("the ingest failed");
    long built = poll_long("l.db", "SELECT count(*) FROM index_values");
    int build_running = waitpid(build, &st, WNOHANG) == 0;
    if (!build_running) waitpid(build, &st, 0);
    else if (waitpid(build, &st, 0) != build || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("the build failed");
    if (!build_running || built >= (long)NDAYS * NGRADES)
        fail_msg("the ingest waited for the whole build (%ld of %d rows built when it ended)", built,
                 NDAYS * NGRADES);
    fprintf(stderr, "kill figures: ingest during a build: stored with %ld of %d rows built\n",
            built, NDAYS * NGRADES);
    assert_int_equal(poll_long("l.db", "SELECT count(*) FROM batches"), 3);
}

int main(void)
{
    if (!getenv("GPUIDX_BIN")) {
        static char b[4200];
        snprintf(b, sizeof b, "%s/build/gpuidx", tu_srcdir());
        setenv("GPUIDX_BIN", b, 1);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill_build_fresh),
        cmocka_unit_test(test_kill_build_fresh_now),
        cmocka_unit_test(test_kill_build_late_data),
        cmocka_unit_test(test_kill_ingest),
        cmocka_unit_test(test_kill_publish),
        cmocka_unit_test(test_kill_site),
        cmocka_unit_test(test_ingest_during_build),
    };
    return cmocka_run_group_tests_name("e2e_kill", tests, setup, teardown);
}
