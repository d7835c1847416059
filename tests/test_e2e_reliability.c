/* tests/test_e2e_reliability.c -- the real binary under hostile input and
 * concurrency (issue 12): a file that changes while it is read, an
 * endless NDJSON line, re-sent files after the normalization tables
 * changed, publications racing builds, and writers queueing on one
 * database.  Each test failed before its fix; the figures the issue gave
 * are in the comments. */
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/gpi.h"

static char data_opt[4200];

static const char *bin(void)
{
    return getenv("GPUIDX_BIN");
}

static long sql_long(const char *dir, const char *db, const char *sql)
{
    tu_run r = tu_sh(dir, "sqlite3 %s \"%s\"", db, sql);
    if (r.status != 0) fail_msg("sqlite3: %s", r.err);
    long v = strtol(r.out, NULL, 10);
    tu_run_free(&r);
    return v;
}

/* ---- 1: the hash is of the bytes parsed --------------------------------------- */

/* The JSON file's hash was taken by reading it again after parsing: rows
 * appended in between were hashed, not stored, and the next ingest of the
 * whole file said "skipped, already ingested" -- they were never stored.
 * A FIFO gives the first open (the parse) two rows; the batch must carry
 * the hash of those bytes, and the file with three rows must then store
 * the third. */
static void test_json_changed_while_read(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-hash");
    const char *row = "{\"observed_at\":\"2024-03-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                      "\"region\":\"r%d\",\"price\":%d}";
    char a[512], b[768], r1[128], r2[128], r3[128];
    snprintf(r1, sizeof r1, row, 1, 1);
    snprintf(r2, sizeof r2, row, 2, 2);
    snprintf(r3, sizeof r3, row, 3, 3);
    snprintf(a, sizeof a, "\xEF\xBB\xBF[%s,\n%s]\n", r1, r2);
    snprintf(b, sizeof b, "\xEF\xBB\xBF[%s,\n%s,\n%s]\n", r1, r2, r3);
    free(tu_write(dir, "full.json", b));
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/feed.json", dir);
    const char *texts[2] = {a, b};
    tu_fifo w = tu_fifo_writer(fifo, texts, NULL, 2);
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest offers --source feed feed.json", data_opt);
    tu_fifo_release(fifo, w, 0);
    if (r.status != 0) fail_msg("first ingest: %s", r.err);
    assert_string_equal(r.out, "feed.json: read 2, stored 2, duplicates 0, rejected 0\n");
    tu_run_free(&r);
    /* the batch carries the hash of the two rows' bytes (before the fix:
     * of whatever a second open of the path gave) */
    char want[65];
    gpi_sha256_hex(a, strlen(a), want);
    r = tu_sh(dir, "sqlite3 t.db 'SELECT sha256 FROM batches WHERE batch_id = 1'");
    char got[80];
    snprintf(got, sizeof got, "%.64s", r.out);
    assert_string_equal(got, want);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest offers --source feed full.json", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "full.json: read 3, stored 1, duplicates 2, rejected 0\n");
    tu_run_free(&r);
    assert_int_equal(sql_long(dir, "t.db", "SELECT count(*) FROM observations"), 3);
    free(dir);
}

/* ---- 7: an NDJSON line is bounded while it is read ------------------------------ */

/* A 400 MB line took 425 MB: the line was read whole before the 1 MiB
 * record limit was checked.  Here a 128 MiB line must cost no more than
 * a few MiB over the program's own size. */
static void test_ndjson_long_line_memory(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-line");
    char path[4200];
    snprintf(path, sizeof path, "%s/long.ndjson", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"observed_at\":\"2024-03-01\",\"region\":\"", f);
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    for (int i = 0; i < 128; i++) assert_int_equal(fwrite(chunk, 1, sizeof chunk, f), sizeof chunk);
    fputs("\"}\n", f);
    assert_int_equal(fclose(f), 0);
    char db[4200], data[4200];
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(data, sizeof data, "%s/tests/fixtures/tables", tu_srcdir());
    const char *args[] = {bin(), "--db", db, "--data", data, "ingest", "offers", path, NULL};
    long rss;
    int st = tu_run_rss(dir, args, NULL, &rss);
    assert_int_equal(st, 1); /* the file is refused: record longer than 1 MiB */
    if (rss > 64 * 1024) fail_msg("peak memory %ld KiB for a 128 MiB line", rss);
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest offers long.ndjson", data_opt);
    assert_string_equal(r.err, "gpuidx: long.ndjson:1:1: record longer than 1048576 bytes\n");
    tu_run_free(&r);
    unlink(path);
    free(dir);
}

/* ---- 5: no formula cells in published files ----------------------------------- */

static const char grades_json[] =
    "{\"grades\":[{\"id\":\"T\",\"gpu\":[\"H100-SXM-80GB\"],\"term\":\"on-demand\","
    "\"min_tier\":\"unrated\",\"regions\":[\"*\"]}]}\n";

/* Provider, group, source and region went verbatim into observations.csv,
 * so "=HYPERLINK(...)" ran as a formula in a spreadsheet.  Such cells
 * start with an apostrophe now; the database keeps the text. */
static void test_published_cells_not_formulas(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-formula");
    free(tu_write(dir, "g.json", grades_json));
    free(tu_write(dir, "o.csv",
                  "observed_at,provider,gpu,price,region,source\n"
                  "2025-01-01T10:00:00Z,\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",H100,2.40,"
                  "@SUM(A1),+feed\n"
                  "2025-01-01T10:00:00Z,lambda,H100,2.50,-us,\"\ttab\"\n"
                  "2025-01-01T10:00:00Z,aws,H100,2.60,us-east,feed\n"));
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest offers --admit-providers o.csv", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s index build --grades g.json --from 2025-01-01 --to 2025-01-01",
                  data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s index publish --grades g.json --date 2025-01-01 --out pub",
                  data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/pub/2025-01-01/observations.csv", dir);
    char *obs = tu_read(path);
    assert_non_null(obs);
    /* rows by identity hash: FNV-1a of "o", NUL, source, NUL, ident */
    assert_string_equal(
        obs,
        "date,grade,kind,observed_at,provider,group,source,key,region,price,quantity,role,reason,"
        "matched,ref_price,base_price,relative,traded_gpu_hours,offered_gpus,imputed\n"
        "2025-01-01,T,offer,2025-01-01T10:00:00Z,lambda,lambda,'\ttab,80fa8540ff6cca5b,'-us,"
        "2.500000,,used,,,,,,,,\n"
        "2025-01-01,T,offer,2025-01-01T10:00:00Z,\"'=hyperlink(\"\"http://x\"\",\"\"y\"\")\","
        "\"'=hyperlink(\"\"http://x\"\",\"\"y\"\")\",'+feed,8692c43fcb33068b,'@SUM(A1),"
        "2.400000,,used,,,,,,,,\n"
        "2025-01-01,T,offer,2025-01-01T10:00:00Z,aws,amazon,feed,d6a1b57a13ccf5ae,us-east,"
        "2.600000,,used,,,,,,,,\n");
    /* the stored text is as received */
    r = tu_sh(dir, "sqlite3 t.db \"SELECT raw_provider || '|' || region || '|' || source FROM"
                   " observations_readable WHERE price_micro = 2400000\"");
    assert_string_equal(r.out, "=HYPERLINK(\"http://x\",\"y\")|@SUM(A1)|+feed\n");
    tu_run_free(&r);
    /* the vintage regenerated without its kept copy (a second DIR): the
     * neutralized cells are tried first (publish/files.c note 2); only
     * the verbatim form was tried, and the vintage "could not be
     * reproduced" */
    r = tu_gpuidx(dir, "--db t.db %s index publish --grades g.json --date 2025-01-01 --out pub2",
                  data_opt);
    if (r.status != 0) fail_msg("publish into a second DIR: %s", r.err);
    assert_non_null(strstr(r.err, "vintage 1 (unchanged"));
    tu_run_free(&r);
    snprintf(path, sizeof path, "%s/pub2/2025-01-01/observations.csv", dir);
    char *again = tu_read(path);
    assert_non_null(again);
    assert_string_equal(again, obs);
    free(again);
    free(obs);
    free(dir);
}

/* A vintage published before the change wrote the cells verbatim (fixture
 * tests/fixtures/verbatim2: the same market published in format 2 by the
 * build before it, its SQL dump and its files): with its kept copies gone,
 * publishing again reproduces its observations.csv byte for byte, formula
 * text and all, and the vintage stays unchanged. */
static void test_verbatim_vintage_regenerates(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-verbatim");
    char sql_path[4096], db_path[4096];
    snprintf(sql_path, sizeof sql_path, "%s/tests/fixtures/verbatim2/store.sql", tu_srcdir());
    snprintf(db_path, sizeof db_path, "%s/t.db", dir);
    char *sql = tu_read(sql_path);
    assert_non_null(sql);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    free(sql);
    tu_run r = tu_sh(dir, "cp -r '%s/tests/fixtures/verbatim2/pub' pub && "
                          "cp '%s/tests/fixtures/verbatim2/grades.json' g.json && "
                          "rm pub/2025-01-01/*.* pub/2025-01-01/v1/*",
                     tu_srcdir(), tu_srcdir());
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s index publish --grades g.json --date 2025-01-01 --out pub",
                  data_opt);
    if (r.status != 0) fail_msg("re-publish: %s", r.err);
    assert_non_null(strstr(r.err, "vintage 1 (unchanged"));
    tu_run_free(&r);
    static const char *const files[] = {"index.csv", "index.json", "observations.csv"};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
            char want[4200], got[4200];
            snprintf(want, sizeof want, "%s/tests/fixtures/verbatim2/pub/2025-01-01/%s%s",
                     tu_srcdir(), k ? "v1/" : "", files[i]);
            snprintf(got, sizeof got, "%s/pub/2025-01-01/%s%s", dir, k ? "v1/" : "", files[i]);
            char *a = tu_read(want), *b = tu_read(got);
            if (!a || !b) fail_msg("missing %s or %s", want, got);
            if (strcmp(a, b) != 0) fail_msg("%s differs:\n%s\nvs\n%s", got, b, a);
            free(a);
            free(b);
        }
    /* the formula text as it was published then */
    char path[4200];
    snprintf(path, sizeof path, "%s/pub/2025-01-01/v1/observations.csv", dir);
    char *obs = tu_read(path);
    assert_non_null(strstr(obs, ",\"=hyperlink("));
    free(obs);
    free(dir);
}

/* ---- 2: identities do not depend on the tables --------------------------------- */

/* Rows without an id were keyed on the canonical provider and the status
 * after the affiliate rule, both from providers.csv: after an alias was
 * added, a re-sent file stored its trades again (5 trades for 3, one
 * seller as two providers).  The key is the row's own now. */
static void test_resent_after_alias_added(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-alias");
    tu_run r = tu_sh(dir, "cp -r '%s/tests/fixtures/tables' data", tu_srcdir());
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    free(tu_write(dir, "g.json", grades_json));
    static const char rows[] =
        "2025-01-01T10:00:00Z,Acme Cloud,H100,2.40,100,Beta Labs\n"
        "2025-01-01T11:00:00Z,Acme Cloud,H100,2.45,100,acme\n"
        "2025-01-01T12:00:00Z,aws,H100,2.50,100,Gamma\n";
    char text[512];
    snprintf(text, sizeof text, "observed_at,provider,gpu,price,quantity,buyer\n%s", rows);
    free(tu_write(dir, "trades.csv", text));
    /* the same rows sent again in other bytes (so not skipped by hash) */
    snprintf(text, sizeof text, "observed_at,provider,gpu,price,quantity,buyer\n%s\n", rows);
    free(tu_write(dir, "resent.csv", text));
    r = tu_gpuidx(dir, "--db t.db --data data ingest trades --admit-providers --source feed trades.csv");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "trades.csv: read 3, stored 3, duplicates 0, rejected 0\n");
    tu_run_free(&r);
    /* "Acme Cloud" becomes an alias of acme, which owns the buyer "acme" */
    r = tu_sh(dir, "echo 'acme cloud,acme,acme,neocloud' >> data/providers.csv");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db --data data ingest trades --source feed resent.csv");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "resent.csv: read 3, stored 0, duplicates 3, rejected 0\n");
    tu_run_free(&r);
    assert_int_equal(sql_long(dir, "t.db", "SELECT count(*) FROM observations"), 3);
    r = tu_gpuidx(dir, "--db t.db --data data index build --grades g.json --from 2025-01-01"
                       " --to 2025-01-01");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    /* 3 trades, 300 GPU-hours, 2 sellers (before: 5, 500, 3 -- "acme
     * cloud" and "acme" counted as two); the stored trades keep what they
     * were stored with */
    r = tu_gpuidx(dir, "--db t.db --data data index show --grade T --from 2025-01-01");
    assert_int_equal(r.status, 0);
    const char *row = strstr(r.out, "\n2025-01-01,T,");
    assert_non_null(row);
    const char want[] = "\n2025-01-01,T,,suspended,3,0,2,300.00,"; /* too few sellers */
    assert_memory_equal(row, want, sizeof want - 1);
    tu_run_free(&r);
    free(dir);
}

/* ---- processes side by side ------------------------------------------------------ */

/* Starts the binary with args (no shell) in dir, stdout and stderr to
 * dir/<tag>.out and dir/<tag>.err, with GPUIDX_BUSY_TIMEOUT_MS=busy_ms
 * (the wait for a lock held by a program other than gpuidx). */
static pid_t spawn(const char *dir, const char *tag, int busy_ms, const char *const *args)
{
    pid_t pid = fork();
    if (pid < 0) fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        char path[4200], ms[32];
        if (chdir(dir) != 0) _exit(127);
        int null = open("/dev/null", O_RDONLY);
        snprintf(path, sizeof path, "%s.out", tag);
        int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        snprintf(path, sizeof path, "%s.err", tag);
        int err = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(null, 0);
        dup2(out, 1);
        dup2(err, 2);
        snprintf(ms, sizeof ms, "%d", busy_ms);
        setenv("GPUIDX_BUSY_TIMEOUT_MS", ms, 1);
        execv(bin(), (char *const *)args);
        _exit(127);
    }
    return pid;
}

static int finish(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid) fail_msg("waitpid: %s", strerror(errno));
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Waits until pid sleeps on a file lock (flock): 1; 0 when it ended
 * first (*status then holds its exit status).  No fixed sleep: it polls
 * the process's wait channel. */
static int blocked_on_lock(pid_t pid, int *status)
{
    char path[64], wchan[128];
    snprintf(path, sizeof path, "/proc/%d/wchan", (int)pid);
    for (int i = 0; i < 30000; i++) { /* at most 30 s */
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            return 0;
        }
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(wchan, 1, sizeof wchan - 1, f) : 0;
        if (f) fclose(f);
        wchan[n] = '\0';
        if (strstr(wchan, "lock")) return 1; /* locks_lock_inode_wait */
        usleep(1000);
    }
    fail_msg("process %d neither ended nor waited on a lock in 30 s", (int)pid);
    return 0;
}

static int lock_file(const char *path)
{
    /* close-on-exec: a child must not inherit (and so keep) the lock */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) fail_msg("lock %s: %s", path, strerror(errno));
    return fd;
}

static char *file_text(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *s = tu_read(path);
    return s ? s : strdup("");
}

/* ---- 3: a publication reads what it publishes under its lock -------------------- */

/* `index publish` read the day's rows before it took its lock.  Here
 * publication A waits for DIR's lock (held by the test) after -- before the
 * fix -- reading the day's value; meanwhile late data is built and
 * publication B (another DIR) makes it vintage 2.  A then published the
 * stale value as vintage 3, restating B's value back.  Now A reads inside
 * its lock and one transaction, finds vintage 2 current and reuses it. */
static void test_publish_reads_inside_lock(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-publish");
    free(tu_write(dir, "g.json", grades_json));
    free(tu_write(dir, "o1.csv",
                  "observed_at,provider,gpu,price\n"
                  "2025-01-01T10:00:00Z,lambda,H100,2.40\n"
                  "2025-01-01T10:00:00Z,aws,H100,2.50\n"
                  "2025-01-01T10:00:00Z,acme,H100,2.60\n"));
    free(tu_write(dir, "o2.csv",
                  "observed_at,provider,gpu,price\n"
                  "2025-01-01T11:00:00Z,p4,H100,4.00\n"
                  "2025-01-01T11:00:00Z,p5,H100,4.10\n"
                  "2025-01-01T11:00:00Z,p6,H100,4.20\n"
                  "2025-01-01T11:00:00Z,p7,H100,4.30\n"));
    static const char *const setup[] = {
        "ingest offers o1.csv", "index build --grades g.json --from 2025-01-01 --to 2025-01-01",
        "index publish --grades g.json --date 2025-01-01 --out pub1",
        "ingest offers --admit-providers o2.csv"};
    for (size_t i = 0; i < 4; i++) {
        tu_run r = tu_gpuidx(dir, "--db t.db %s %s", data_opt, setup[i]);
        if (r.status != 0) fail_msg("%s: %s", setup[i], r.err);
        tu_run_free(&r);
    }
    char lock[4200], db[4200], data[4200];
    snprintf(lock, sizeof lock, "%s/pub1/.gpuidx-lock", dir);
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(data, sizeof data, "%s/tests/fixtures/tables", tu_srcdir());
    int fd = lock_file(lock);
    const char *a_args[] = {bin(), "--db", db, "--data", data, "index", "publish", "--grades",
                            "g.json", "--date", "2025-01-01", "--out", "pub1", NULL};
    pid_t a = spawn(dir, "a", 10000, a_args);
    int st = -1;
    if (!blocked_on_lock(a, &st)) fail_msg("publication A ended (%d) while DIR was locked", st);
    static const char *const meanwhile[] = {
        "index build --grades g.json --from 2025-01-01 --to 2025-01-01",
        "index publish --grades g.json --date 2025-01-01 --out pub2"};
    for (size_t i = 0; i < 2; i++) {
        tu_run r = tu_gpuidx(dir, "--db t.db %s %s", data_opt, meanwhile[i]);
        if (r.status != 0) fail_msg("%s: %s", meanwhile[i], r.err);
        if (i == 1)
            assert_string_equal(r.err, "index publish: 2025-01-01 vintage 2 (new; 1 restated, "
                                       "0 revisions) in pub2/2025-01-01\n");
        tu_run_free(&r);
    }
    close(fd); /* A goes on */
    st = finish(a);
    char *out = file_text(dir, "a.out"), *err = file_text(dir, "a.err");
    if (st != 0) fail_msg("publication A: exit %d: %s", st, err);
    assert_string_equal(err, "index publish: 2025-01-01 vintage 2 (unchanged; 0 restated, "
                             "0 revisions) in pub1/2025-01-01\n");
    assert_int_equal(sql_long(dir, "t.db", "SELECT count(*) FROM index_vintages"), 2);
    assert_int_equal(sql_long(dir, "t.db", "SELECT count(*) FROM index_restatements"), 1);
    char *a_csv = file_text(dir, "pub1/2025-01-01/index.csv");
    char *b_csv = file_text(dir, "pub2/2025-01-01/index.csv");
    assert_string_equal(a_csv, b_csv);
    free(a_csv);
    free(b_csv);
    free(out);
    free(err);
    free(dir);
}

/* ---- 8: writers wait for their turn ---------------------------------------------- */

/* A writer waited at most SQLite's busy timeout (10 s) for another and
 * then failed with "database is locked" (two 8-second ingests, a build and
 * a publication overlapping).  Writers now queue on DB.lock.  Here the
 * test holds the database like a long writer (the lock file and SQLite's
 * write lock) while an ingest starts with a 100 ms busy timeout: the
 * ingest must wait for the lock -- not time out -- and then store its
 * file. */
static void test_writer_waits_for_its_turn(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-queue");
    free(tu_write(dir, "o1.csv", "observed_at,provider,gpu,price\n2025-01-01,aws,H100,2.50\n"));
    free(tu_write(dir, "o2.csv", "observed_at,provider,gpu,price\n2025-01-02,aws,H100,2.60\n"));
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest offers o1.csv", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    char lock[4200], db[4200], data[4200];
    snprintf(lock, sizeof lock, "%s/t.db.lock", dir);
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(data, sizeof data, "%s/tests/fixtures/tables", tu_srcdir());
    /* the long writer: its turn (the lock file), then SQLite's write lock */
    int fd = lock_file(lock);
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "BEGIN IMMEDIATE; INSERT INTO names(name) VALUES ('x')",
                                  NULL, NULL, NULL), SQLITE_OK);
    const char *args[] = {bin(), "--db", db, "--data", data, "ingest", "offers", "o2.csv", NULL};
    pid_t p = spawn(dir, "w", 100, args);
    int st = -1;
    int waited = blocked_on_lock(p, &st);
    char *err = file_text(dir, "w.err");
    if (!waited) fail_msg("the ingest did not wait for its turn: exit %d: %s", st, err);
    free(err);
    assert_int_equal(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    close(fd);
    st = finish(p);
    char *out = file_text(dir, "w.out");
    err = file_text(dir, "w.err");
    if (st != 0) fail_msg("ingest: exit %d: %s", st, err);
    assert_string_equal(out, "o2.csv: read 1, stored 1, duplicates 0, rejected 0\n");
    assert_int_equal(sql_long(dir, "t.db", "SELECT count(*) FROM observations"), 2);
    free(out);
    free(err);
    free(dir);
}

/* Several writers at once, each with a 50 ms busy timeout: two ingests of
 * 100,000 rows, a build and a publication, twice over.  Every one must
 * succeed, and the database hold exactly what they wrote. */
static void test_writers_side_by_side(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-rel-side");
    free(tu_write(dir, "g.json", grades_json));
    free(tu_write(dir, "gen.awk",
                  "BEGIN { print \"id,observed_at,provider,gpu,price\"\n"
                  "  for (i = 0; i < 100000; i++)\n"
                  "    printf \"%s%d,2025-01-%02d,%s,H100,%d.5\\n\", tag, i, 1 + i % 5,"
                  " i % 3 ? \"aws\" : \"lambda\", 2 + i % 3 }\n"));
    for (int k = 0; k < 5; k++) {
        tu_run r = tu_sh(dir, "awk -v tag=f%d -f gen.awk > f%d.csv", k, k);
        assert_int_equal(r.status, 0);
        tu_run_free(&r);
    }
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest offers f0.csv", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s index build --grades g.json --from 2025-01-01 --to "
                       "2025-01-05", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    char db[4200], data[4200];
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(data, sizeof data, "%s/tests/fixtures/tables", tu_srcdir());
    for (int round = 0; round < 2; round++) {
        char f1[16], f2[16];
        snprintf(f1, sizeof f1, "f%d.csv", 1 + 2 * round);
        snprintf(f2, sizeof f2, "f%d.csv", 2 + 2 * round);
        const char *ing1[] = {bin(), "--db", db, "--data", data, "ingest", "offers", f1, NULL};
        const char *ing2[] = {bin(), "--db", db, "--data", data, "ingest", "offers", f2, NULL};
        const char *build[] = {bin(), "--db", db, "--data", data, "index", "build", "--grades",
                               "g.json", "--from", "2025-01-01", "--to", "2025-01-05", NULL};
        const char *pub[] = {bin(), "--db", db, "--data", data, "index", "publish", "--grades",
                             "g.json", "--from", "2025-01-01", "--to", "2025-01-05", "--out", "pub", NULL};
        const char *const *jobs[] = {ing1, build, ing2, pub};
        const char *tags[] = {"i1", "b", "i2", "p"};
        pid_t pid[4];
        for (int j = 0; j < 4; j++) pid[j] = spawn(dir, tags[j], 50, jobs[j]);
        for (int j = 0; j < 4; j++) {
            int st = finish(pid[j]);
            char name[16];
            snprintf(name, sizeof name, "%s.err", tags[j]);
            char *err = file_text(dir, name);
            /* a publication that runs after an ingest its build did not
             * see refuses the day, as it must (issue 31: publish/late.c) */
            int refused = j == 3 && st == 1 && strstr(err, "was built before late data") == NULL &&
                          strstr(err, "its rows were built before late data reached it") != NULL;
            if (st != 0 && !refused)
                fail_msg("round %d: %s: exit %d: %s", round, tags[j], st, err);
            free(err);
        }
    }
    assert_int_equal(sql_long(dir, "t.db", "SELECT count(*) FROM observations"), 500000);
    assert_int_equal(sql_long(dir, "t.db", "SELECT count(*) FROM batches"), 5);
    r = tu_sh(dir, "sqlite3 t.db 'PRAGMA integrity_check'");
    assert_string_equal(r.out, "ok\n");
    tu_run_free(&r);
    r = tu_sh(NULL, "rm -rf '%s'", dir);
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    snprintf(data_opt, sizeof data_opt, "--data '%s/tests/fixtures/tables'", tu_srcdir());
    if (!getenv("GPUIDX_BIN")) {
        static char b[4200];
        snprintf(b, sizeof b, "%s/build/gpuidx", tu_srcdir());
        setenv("GPUIDX_BIN", b, 1);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_changed_while_read),
        cmocka_unit_test(test_ndjson_long_line_memory),
        cmocka_unit_test(test_published_cells_not_formulas),
        cmocka_unit_test(test_verbatim_vintage_regenerates),
        cmocka_unit_test(test_resent_after_alias_added),
        cmocka_unit_test(test_publish_reads_inside_lock),
        cmocka_unit_test(test_writer_waits_for_its_turn),
        cmocka_unit_test(test_writers_side_by_side),
    };
    return cmocka_run_group_tests_name("e2e_reliability", tests, NULL, NULL);
}
