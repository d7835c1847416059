/* tests/test_e2e_faults.c -- the smaller faults of issue 12 (item 11), each
 * on the real binary: JSON from a pipe, a directory named x.json, read-only
 * storage, the temporary files of a killed `site`, the date range of
 * `index build`, the memory of `grades evaluate` for thousands of grades,
 * and UTF-16 files.  Each test failed before its fix (the JSON from a pipe
 * was fixed before this file: its test pins it). */
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char data_opt[4200];

static const char grades_json[] =
    "{\"grades\":[{\"id\":\"T\",\"gpu\":[\"H100-SXM-80GB\"],\"term\":\"on-demand\","
    "\"min_tier\":\"unrated\",\"regions\":[\"*\"]}]}\n";

static const char offers_csv[] = "observed_at,provider,gpu,price\n"
                                 "2025-01-01T10:00:00Z,lambda,H100,2.40\n"
                                 "2025-01-01T10:00:00Z,aws,H100,2.50\n"
                                 "2025-01-01T10:00:00Z,acme,H100,2.60\n"
                                 "2025-01-02T10:00:00Z,lambda,H100,2.41\n"
                                 "2025-01-02T10:00:00Z,aws,H100,2.51\n"
                                 "2025-01-02T10:00:00Z,acme,H100,2.61\n";

/* A database with offers of 2025-01-01..02 and grade T built over them. */
static void small_db(const char *dir)
{
    free(tu_write(dir, "g.json", grades_json));
    free(tu_write(dir, "o.csv", offers_csv));
    static const char *const steps[] = {
        "ingest offers --admit-providers o.csv",
        "index build --grades g.json --from 2025-01-01 --to 2025-01-02"};
    for (size_t i = 0; i < 2; i++) {
        tu_run r = tu_gpuidx(dir, "--db t.db %s %s", data_opt, steps[i]);
        if (r.status != 0) fail_msg("%s: %s", steps[i], r.err);
        tu_run_free(&r);
    }
}

static void expect(tu_run r, int status, const char *out, const char *err, const char *what)
{
    if (r.status != status) fail_msg("%s: exit %d (want %d): %s", what, r.status, status, r.err);
    if (out && strcmp(r.out, out) != 0) fail_msg("%s: stdout\n%s\nwant\n%s", what, r.out, out);
    if (err && strcmp(r.err, err) != 0) fail_msg("%s: stderr\n%s\nwant\n%s", what, r.err, err);
    tu_run_free(&r);
}

/* ---- JSON from a pipe ---------------------------------------------------------- */

/* JSON from a pipe lost its first 3 bytes (the byte-order-mark check read
 * them and then rewound, which a pipe cannot): "[{\"" was gone and the
 * file failed, or with NDJSON the first record; and JSON with a byte-order
 * mark on standard input was taken for CSV ("stdin:1:6: malformed
 * quoting": the format was the first byte's).  Standard input ("-") and
 * a FIFO named *.json, with and without a byte-order mark, array and
 * NDJSON, plain and gzip: every row arrives. */
static void test_json_from_a_pipe(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-faults-pipe");
    static const char rows[] =
        "{\"observed_at\":\"2024-03-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":2.5}";
    static const char rows2[] =
        "{\"observed_at\":\"2024-03-01\",\"provider\":\"lambda\",\"gpu\":\"H100\",\"price\":2.25}";
    char text[512];
    snprintf(text, sizeof text, "[%s,\n%s]\n", rows, rows2);
    free(tu_write(dir, "a.json", text));
    snprintf(text, sizeof text, "\xEF\xBB\xBF[%s,\n%s]\n", rows, rows2);
    free(tu_write(dir, "bom.json", text));
    snprintf(text, sizeof text, "%s\n%s\n", rows2, rows);
    free(tu_write(dir, "n.ndjson", text));
    static const struct {
        const char *cmd, *want;
    } cases[] = {
        {"( cat a.json | '%s' --db p1.db %s ingest offers - )",
         "stdin: read 2, stored 2, duplicates 0, rejected 0\n"},
        {"( cat bom.json | '%s' --db p2.db %s ingest offers - )",
         "stdin: read 2, stored 2, duplicates 0, rejected 0\n"},
        {"( cat n.ndjson | '%s' --db p3.db %s ingest offers - )",
         "stdin: read 2, stored 2, duplicates 0, rejected 0\n"},
        {"( gzip -c bom.json | '%s' --db p4.db %s ingest offers - )",
         "stdin: read 2, stored 2, duplicates 0, rejected 0\n"},
        {"rm -f f.json && mkfifo f.json && ( cat bom.json > f.json & ) && "
         "'%s' --db p5.db %s ingest offers f.json",
         "f.json: read 2, stored 2, duplicates 0, rejected 0\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_sh(dir, cases[i].cmd, getenv("GPUIDX_BIN"), data_opt);
        if (r.status != 0) fail_msg("case %zu: exit %d: %s", i, r.status, r.err);
        assert_string_equal(r.out, cases[i].want);
        tu_run_free(&r);
        /* both rows, the first one whole */
        r = tu_sh(dir, "sqlite3 p%zu.db \"SELECT raw_provider || ' ' || price_micro FROM"
                       " observations_readable ORDER BY price_micro\"", i + 1);
        assert_string_equal(r.out, "lambda 2250000\naws 2500000\n");
        tu_run_free(&r);
    }
    free(dir);
}

/* ---- a directory named x.json ------------------------------------------------------ */

/* A directory given as a file was read as an empty file ("the file is
 * empty"), later "read error: Is a directory". */
static void test_directory_named_json(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-faults-dir");
    tu_run r = tu_sh(dir, "mkdir x.json x.csv");
    tu_run_free(&r);
    expect(tu_gpuidx(dir, "--db t.db %s ingest offers x.json", data_opt), 1,
           "x.json: failed, nothing stored\n", "gpuidx: x.json: is a directory, not a file\n",
           "x.json");
    expect(tu_gpuidx(dir, "--db t.db %s ingest x.csv", data_opt), 1,
           "x.csv: failed, nothing stored\n", "gpuidx: x.csv: is a directory, not a file\n",
           "x.csv");
    free(dir);
}

/* ---- read-only storage -------------------------------------------------------------- */

/* Runs "BIN args" in dir through /bin/sh as a user who cannot write dir:
 * as nobody when the test runs as root (root writes anywhere), else as
 * itself with dir made read-only by the caller. */
static tu_run run_ro(const char *dir, const char *bin, const char *args)
{
    char outp[] = "/tmp/gpuidx-ro-out-XXXXXX", errp[] = "/tmp/gpuidx-ro-err-XXXXXX";
    int of = mkstemp(outp), ef = mkstemp(errp);
    if (of < 0 || ef < 0) fail_msg("mkstemp: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
        dup2(of, 1);
        dup2(ef, 2);
        if (chdir(dir) != 0) _exit(127);
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
            _exit(126);
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "'%s' %s", bin, args);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    close(of);
    close(ef);
    tu_run r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = tu_read(outp);
    r.err = tu_read(errp);
    unlink(outp);
    unlink(errp);
    return r;
}

/* 1 when uid 65534 can reach every path (search its folders, read the
 * files, run the binary). */
static int nobody_reaches(const char *const *paths, size_t n)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
        for (size_t i = 0; i < n; i++)
            if (access(paths[i], R_OK) != 0) _exit(1);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* What the read-only run executes, where the user it runs as can reach it:
 * the binary and the tables.  Run as root, the test drops to nobody, who
 * cannot enter a clone in /root or under any mode-700 folder: the binary
 * and tables are copied into a folder of their own beside the test's
 * (under TMPDIR).  Run as another user they stay where they are.  The
 * paths go to bin and tables; 0 when nobody cannot reach even the copies
 * (TMPDIR itself under a closed folder): the test is then skipped. */
static int stage_for_reader(char *bin, size_t nb, char *tables, size_t nt)
{
    snprintf(bin, nb, "%s", getenv("GPUIDX_BIN"));
    snprintf(tables, nt, "%s/tests/fixtures/tables", tu_srcdir());
    if (geteuid() != 0) return 1;
    char *stage = tu_mkdtemp("e2e-faults-ro-stage");
    tu_run r = tu_sh(stage, "cp '%s' gpuidx && cp -R '%s' tables && chmod -R a+rX . && "
                            "chmod 755 .", bin, tables);
    if (r.status != 0) fail_msg("staging: %s", r.err);
    tu_run_free(&r);
    snprintf(bin, nb, "%s/gpuidx", stage);
    snprintf(tables, nt, "%s/tables/gpus.csv", stage);
    const char *const need[] = {bin, tables};
    int ok = nobody_reaches(need, 2);
    snprintf(tables, nt, "%s/tables", stage);
    free(stage);
    return ok;
}

static void test_read_only_storage(void **state)
{
    (void)state;
    char bin[4200], data[4200];
    if (!stage_for_reader(bin, sizeof bin, data, sizeof data)) {
        fprintf(stderr, "test_read_only_storage: skipped: uid 65534 cannot reach TMPDIR (%s);"
                        " run the tests with a TMPDIR every user can enter\n",
                getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        skip();
    }
    char *dir = tu_mkdtemp("e2e-faults-ro");
    small_db(dir);
    free(tu_write(dir, "c.json", "{\"contracts\":[{\"symbol\":\"X\",\"grade\":\"T\","
                                 "\"month\":\"2025-02\",\"min_published_days\":1}]}\n"));
    free(tu_write(dir, "rent.csv", "date,price\n2025-01-01,2.50\n2025-01-02,2.55\n"));
    const char *reads[] = {
        "index show --grade T",
        "settle --contracts c.json --through 2025-01-02",
        "grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-02 --csv",
        "grades list --grades g.json",
        "hedge analyze --rent rent.csv --grade T --freq day --json",
        "site --grades g.json --out site",
    };
    size_t nr = sizeof reads / sizeof reads[0];
    char *want[8];
    for (size_t i = 0; i < nr; i++) {
        tu_run r = tu_gpuidx(dir, "--db t.db --data '%s' %s", data, reads[i]);
        if (r.status != 0) fail_msg("%s (writable): %s", reads[i], r.err);
        want[i] = r.out;
        free(r.err);
    }
    /* the folder and the file read-only; site/ writable (the site's output
     * is not the database's storage) */
    tu_run r = tu_sh(dir, "rm -rf site && mkdir site && chmod 777 site && chmod 444 t.db && "
                          "chmod 555 . && LC_ALL=C ls");
    assert_int_equal(r.status, 0);
    /* no t.db-wal, t.db-shm: the last writer folded the log in (the reads
     * on writable storage open it read-write, store/readonly.c note 4) */
    assert_string_equal(r.out, "c.json\ng.json\no.csv\nrent.csv\nsite\nt.db\nt.db.lock\n");
    tu_run_free(&r);
    char args[8192];
    for (size_t i = 0; i < nr; i++) {
        snprintf(args, sizeof args, "--db t.db --data '%s' %s", data, reads[i]);
        r = run_ro(dir, bin, args);
        if (r.status != 0) fail_msg("%s (read-only): exit %d: %s", reads[i], r.status, r.err);
        assert_string_equal(r.out, want[i]);
        tu_run_free(&r);
        free(want[i]);
    }
    snprintf(args, sizeof args, "--db t.db --data '%s' ingest offers o.csv", data);
    r = run_ro(dir, bin, args);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err,
                        "gpuidx: t.db: the database is read-only (no write permission on the file "
                        "or its folder, or read-only storage), and this command writes to it; "
                        "index show, site, settle, hedge, grades evaluate, grades list and cost "
                        "only read and work on it\n");
    tu_run_free(&r);
    snprintf(args, sizeof args,
             "--db t.db --data '%s' index build --grades g.json --from 2025-01-01 --to 2025-01-01",
             data);
    r = run_ro(dir, bin, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "t.db: the database is read-only"));
    tu_run_free(&r);
    /* a write-ahead log with commits not in the file cannot be read
     * through where its -shm cannot be made: said, not read stale.  The
     * log: a copy taken while a writer had it open. */
    r = tu_sh(dir, "chmod 755 . && chmod 644 t.db && mkdir w && cp t.db w/");
    tu_run_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/w/t.db", dir);
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "PRAGMA wal_autocheckpoint = 0; DELETE FROM index_values"
                                     " WHERE day = 20090", NULL, NULL, NULL), SQLITE_OK);
    r = tu_sh(dir, "cp w/t.db w/t.db-wal . && chmod 444 t.db t.db-wal && chmod 555 .");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    sqlite3_close(h);
    snprintf(args, sizeof args, "--db t.db --data '%s' index show --grade T", data);
    r = run_ro(dir, bin, args);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err,
                        "gpuidx: t.db: the database is on read-only storage and its write-ahead "
                        "log t.db-wal holds changes not yet in the file; open it once where it can "
                        "be written (any gpuidx command folds the log in), then read it here\n");
    tu_run_free(&r);
    r = tu_sh(dir, "chmod 755 . && chmod 644 t.db t.db-wal");
    tu_run_free(&r);
    free(dir);
}

/* ---- the temporary files of a killed site ----------------------------------------- */

/* `site` writes DIR/.<name>.<pid>.tmp and renames it; a killed run left
 * them, and no later run removed them.  A run now removes the leftovers
 * (under DIR/.gpuidx-lock, so never a live run's) and nothing else. */
static void test_site_removes_leftovers(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-faults-site");
    small_db(dir);
    tu_run r = tu_sh(dir, "mkdir site && for f in .index.html.4242.tmp .T.csv.99999.tmp "
                          ".statement.html.7.tmp .keep.tmp notes.1.tmp; do echo x > site/$f; done");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s site --grades g.json --out site", data_opt);
    if (r.status != 0) fail_msg("site: %s", r.err);
    tu_run_free(&r);
    r = tu_sh(dir, "LC_ALL=C ls -A site");
    assert_string_equal(r.out,
                        ".gpuidx-lock\n.keep.tmp\nT.csv\ndatapackage.json\nindex.html\nnotes.1.tmp\n"
                        "statement.html\n");
    tu_run_free(&r);
    free(dir);
}

/* ---- the range of index build ------------------------------------------------------- */

/* `index build --from 0001-01-01 --to 9999-12-31` was accepted (3.65
 * million days per grade, about half an hour on the demo market). */
static void test_build_range_capped(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-faults-range");
    small_db(dir);
    expect(tu_gpuidx(dir, "--db t.db %s index build --grades g.json --from 0001-01-01 --to "
                          "9999-12-31", data_opt),
           2, "",
           "gpuidx: index build: --from: before 2000-01-01, the first day an index is built for "
           "(got \"0001-01-01\")\n",
           "0001");
    expect(tu_gpuidx(dir, "--db t.db %s index build --grades g.json --from 2025-01-01 --to "
                          "2100-01-01", data_opt),
           2, "",
           "gpuidx: index build: --to: after 2099-12-31, the last day an index is built for "
           "(got \"2100-01-01\")\n",
           "2100");
    expect(tu_gpuidx(dir, "--db t.db %s grades evaluate --grades g.json --from 1999-12-31 --to "
                          "2025-01-01", data_opt),
           2, "",
           "gpuidx: grades evaluate: --from: before 2000-01-01, the first day an index is built "
           "for (got \"1999-12-31\")\n",
           "evaluate");
    /* the first and last days themselves are built */
    tu_run r = tu_gpuidx(dir, "--db t.db %s index build --grades g.json --from 2099-12-31 --to "
                              "2099-12-31", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s index build --grades g.json --from 2000-01-01 --to "
                       "2000-01-01", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    free(dir);
}

/* ---- grades evaluate with thousands of grades -------------------------------------- */

/* 10,000 grades took 3.0 GB and printed 1.8 GB: an n x n correlation
 * matrix (three of them) and every grade's state at once.  3,000 grades
 * took 357 MB and printed 163 MB; now the matrix is shown up to 64 grades
 * (beyond, each grade's most correlated one) and grades are evaluated 256
 * at a time. */
static void test_evaluate_many_grades_bounded(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-faults-eval");
    char path[4200];
    snprintf(path, sizeof path, "%s/o.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("observed_at,provider,gpu,price\n", f);
    static const char *const provs[] = {"aws", "lambda", "acme", "p4", "p5", "p6"};
    unsigned x = 12345;
    for (int day = 1; day <= 20; day++)
        for (int p = 0; p < 6; p++) {
            x = x * 1103515245u + 12345u;
            fprintf(f, "2025-01-%02dT10:00:00Z,%s,H100,2.%02u\n", day, provs[p], 30 + (x >> 16) % 20);
            fprintf(f, "2025-01-%02dT10:00:00Z,%s,A100,1.%02u\n", day, provs[p], 20 + (x >> 8) % 20);
        }
    fclose(f);
    snprintf(path, sizeof path, "%s/g.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"grades\":[", f);
    for (int i = 0; i < 3000; i++)
        fprintf(f, "%s{\"id\":\"G%04d\",\"method\":\"%s\",\"gpu\":[\"%s\"],\"term\":\"on-demand\","
                   "\"min_providers\":1}",
                i ? ",\n" : "", i, i % 2 ? "v2" : "v1", i % 2 ? "A100-SXM-80GB" : "H100-SXM-80GB");
    fputs("]}\n", f);
    fclose(f);
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest offers --admit-providers o.csv", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    char db[4200], data[4200], out[4200];
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(data, sizeof data, "%s/tests/fixtures/tables", tu_srcdir());
    snprintf(out, sizeof out, "%s/eval.txt", dir);
    const char *args[] = {getenv("GPUIDX_BIN"), "--db", db, "--data", data, "grades",
                          "evaluate", "--grades", "g.json", "--from", "2025-01-01", "--to",
                          "2025-01-20", NULL};
    long kib;
    assert_int_equal(tu_run_rss(dir, args, out, &kib), 0);
    struct stat sb;
    assert_int_equal(stat(out, &sb), 0);
    /* about 285 bytes a grade (before: 54 KB a grade, the matrix) */
    if (sb.st_size > 3000 * 400) fail_msg("output of %lld bytes for 3000 grades", (long long)sb.st_size);
    /* 86 MB here (23 KB of each grade's definition); under ASan (a small
     * quarantine) about 150 MB; before the fix 357 MB */
    if (kib > 200 * 1024) fail_msg("peak memory %ld KiB for 3000 grades", kib);
    char *text = tu_read(out);
    assert_non_null(strstr(text, "\ncorrelation of daily log changes: 3000 grades, more than 64, "
                                 "so no matrix;\n"));
    /* G0000 and G0002 are the same grade: each other's nearest */
    assert_non_null(strstr(text, "\nG0000 G0002   1.000     19/19\n"));
    free(text);
    r = tu_sh(NULL, "rm -rf '%s'", dir);
    tu_run_free(&r);
    free(dir);
}

/* ---- UTF-16 ------------------------------------------------------------------------- */

/* text (ASCII) as enc ("UTF-16LE", "UTF-16BE", "UTF-32LE"), with a
 * byte-order mark when bom, into dir/name. */
static void write_wide(const char *dir, const char *name, const char *text, const char *enc,
                       int bom)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    int w = strstr(enc, "32") ? 4 : 2, be = strstr(enc, "BE") != NULL;
    for (const unsigned char *p = (const unsigned char *)text; bom || *p; p++) {
        unsigned c = bom ? 0xFEFF : *p; /* the mark first */
        for (int k = 0; k < w; k++) fputc((int)((c >> (8 * (be ? w - 1 - k : k))) & 0xff), f);
        if (bom) p--, bom = 0;
    }
    fclose(f);
}

/* Each reader said something else of a UTF-16 file: "unknown column
 * \"\xff\xfeo\"", "invalid JSON", "unable to decode byte 0xff", "contains a
 * NUL byte".  Now each names the encoding, at 1:1. */
static void test_utf16_named(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-faults-utf16");
    small_db(dir);
    tu_run r = tu_sh(dir, "cp -r '%s/tests/fixtures/tables' data", tu_srcdir());
    tu_run_free(&r);
    write_wide(dir, "le.csv", offers_csv, "UTF-16LE", 1);
    write_wide(dir, "be.json", "[{\"observed_at\":\"2025-01-01\",\"provider\":\"aws\",\"gpu\":"
                               "\"H100\",\"price\":2.5}]\n", "UTF-16BE", 0);
    write_wide(dir, "w32.ndjson", "{\"observed_at\":\"2025-01-01\"}\n", "UTF-32LE", 1);
    write_wide(dir, "g16.json", grades_json, "UTF-16LE", 1);
    write_wide(dir, "c16.json", "{\"contracts\":[]}\n", "UTF-16LE", 1);
    free(tu_write(dir, "c.json", "{\"contracts\":[{\"symbol\":\"X\",\"grade\":\"T\","
                                 "\"month\":\"2025-01\",\"min_published_days\":1}]}\n"));
    write_wide(dir, "p16.csv", "account,symbol,contracts\na,X,1\n", "UTF-16LE", 1);
    write_wide(dir, "r16.csv", "date,price\n2025-01-01,2.5\n", "UTF-16BE", 1);
    write_wide(dir, "d16.csv", "workload,gpu\n", "UTF-16LE", 1);
    r = tu_sh(dir, "gzip -c le.csv > le.csv.gz && mv data/providers.csv p.csv && "
                   "iconv -f UTF-8 -t UTF-16 p.csv > data/providers.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    static const struct {
        const char *args, *file, *enc;
    } cases[] = {
        {"ingest offers le.csv", "le.csv", "UTF-16LE"},
        {"ingest offers le.csv.gz", "le.csv.gz", "UTF-16LE"},
        {"ingest offers be.json", "be.json", "UTF-16BE"},
        {"ingest offers w32.ndjson", "w32.ndjson", "UTF-32LE"},
        {"index build --grades g16.json --from 2025-01-01 --to 2025-01-01", "g16.json",
         "UTF-16LE"},
        {"grades evaluate --grades g16.json --from 2025-01-01 --to 2025-01-01", "g16.json",
         "UTF-16LE"},
        {"settle --contracts c16.json", "c16.json", "UTF-16LE"},
        {"settle --contracts c.json --positions p16.csv --ledger l.csv --through 2025-01-02",
         "p16.csv",
         "UTF-16LE"},
        {"hedge analyze --rent r16.csv --grade T", "r16.csv", "UTF-16BE"},
        {"cost curve --deployments d16.csv", "d16.csv", "UTF-16LE"},
    };
    char want[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        r = tu_gpuidx(dir, "--db t.db %s %s", data_opt, cases[i].args);
        snprintf(want, sizeof want,
                 "gpuidx: %s:1:1: the file is %s; gpuidx reads UTF-8 (convert it first, e.g. "
                 "iconv -f %s -t UTF-8)\n",
                 cases[i].file, cases[i].enc, cases[i].enc);
        if (r.status != 1 || !strstr(r.err, want))
            fail_msg("%s: exit %d: %s\nwant %s", cases[i].args, r.status, r.err, want);
        tu_run_free(&r);
    }
    /* from standard input, and the tables of --data */
    r = tu_sh(dir, "( cat le.csv | '%s' --db t.db %s ingest offers - )", getenv("GPUIDX_BIN"),
              data_opt);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: stdin:1:1: the file is UTF-16LE; gpuidx reads UTF-8 "
                               "(convert it first, e.g. iconv -f UTF-16LE -t UTF-8)\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db --data data ingest offers o.csv");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "data/providers.csv:1:1: the file is UTF-16LE; gpuidx reads "
                                  "UTF-8"));
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
        cmocka_unit_test(test_json_from_a_pipe),
        cmocka_unit_test(test_directory_named_json),
        cmocka_unit_test(test_read_only_storage),
        cmocka_unit_test(test_site_removes_leftovers),
        cmocka_unit_test(test_build_range_capped),
        cmocka_unit_test(test_evaluate_many_grades_bounded),
        cmocka_unit_test(test_utf16_named),
    };
    return cmocka_run_group_tests_name("e2e_faults", tests, NULL, NULL);
}
