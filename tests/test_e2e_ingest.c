/* tests/test_e2e_ingest.c -- `gpuidx ingest` end to end: summary lines,
 * exit codes, one transaction per file, skip by SHA-256, duplicates and
 * conflicts across files, the rejects file, and a slice of the real feed.
 * Runs the real binary in a scratch directory with the fixture tables. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char data_opt[4200];

static const char good[] =
    "kind,id,observed_at,provider,gpu,sku,gpu_count,price,unit\n"
    "offer,a1,2024-03-01,lambda,H100,gpu_8x_h100_sxm5,8,23.92,instance-hour\n"
    "offer,a2,2024-03-01,aws,H100,p5.48xlarge,8,abc,instance-hour\n"
    "offer,a3,2024-03-01,runpod,H100,1x_H100_SECURE,1,2.39,instance-hour\n";

/* the same rows in other bytes (order changed) */
static const char same_rows[] =
    "kind,id,observed_at,provider,gpu,sku,gpu_count,price,unit\n"
    "offer,a3,2024-03-01,runpod,H100,1x_H100_SECURE,1,2.39,instance-hour\n"
    "offer,a2,2024-03-01,aws,H100,p5.48xlarge,8,abc,instance-hour\n"
    "offer,a1,2024-03-01,lambda,H100,gpu_8x_h100_sxm5,8,23.92,instance-hour\n";

static const char conflicting[] =
    "kind,id,observed_at,provider,gpu,sku,gpu_count,price,unit\n"
    "offer,a1,2024-03-01,lambda,H100,gpu_8x_h100_sxm5,8,24.00,instance-hour\n";

static const char broken[] =
    "kind,id,observed_at,provider,gpu,price\n"
    "offer,b1,2024-03-01,aws,H100,1\n"
    "offer,\"b2,2024-03-01,aws,H100,1\n";

static char *scratch(void)
{
    char *dir = tu_mkdtemp("e2e-ingest");
    free(tu_write(dir, "good.csv", good));
    free(tu_write(dir, "same.csv", same_rows));
    free(tu_write(dir, "conflict.csv", conflicting));
    free(tu_write(dir, "broken.csv", broken));
    return dir;
}

static long sql_long(const char *dir, const char *sql)
{
    tu_run r = tu_sh(dir, "sqlite3 t.db \"%s\"", sql);
    long v = strtol(r.out, NULL, 10);
    if (r.status != 0) fail_msg("sqlite3: %s", r.err);
    tu_run_free(&r);
    return v;
}

static void test_help_and_usage(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(NULL, "ingest --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx [--db PATH] ingest offers|trades"));
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "ingest");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "gpuidx: ingest: no input files (see gpuidx ingest --help)\n");
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "ingest --bogus x.csv");
    assert_int_equal(r.status, 2);
    tu_run_free(&r);
    r = tu_gpuidx(NULL, "ingest --rejects");
    assert_int_equal(r.status, 2);
    tu_run_free(&r);
}

static void test_summary_rejects_strict(void **state)
{
    (void)state;
    char *dir = scratch();
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest --rejects rej.csv good.csv", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "good.csv: read 3, stored 2, duplicates 0, rejected 1\n");
    assert_string_equal(r.err, "gpuidx: good.csv:3: price: not a number (got \"abc\")\n");
    tu_run_free(&r);
    char path[4300];
    snprintf(path, sizeof path, "%s/rej.csv", dir);
    char *rej = tu_read(path);
    assert_string_equal(rej,
                        "file,line,column,reason,raw_row\n"
                        "\"good.csv\",3,\"price\",\"not a number (got \"\"abc\"\")\","
                        "\"offer,a2,2024-03-01,aws,H100,p5.48xlarge,8,abc,instance-hour\"\n");
    free(rej);
    /* the batch records the counts; the tables hold the rows */
    assert_int_equal(sql_long(dir, "SELECT n_read * 1000 + n_stored * 100 + n_duplicates * 10 + n_rejected FROM batches"), 3201);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations"), 2);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM rejects WHERE column_name = 'price' AND line = 3"), 1);
    /* 23.92 / 8 = 2.99 USD per GPU-hour */
    assert_int_equal(sql_long(dir, "SELECT price_micro FROM observations_readable WHERE ident = 'a1' AND gpu = 'H100-SXM-80GB'"), 2990000);
    /* --strict: rejects make the exit status 1 (new database) */
    r = tu_gpuidx(dir, "--db t2.db %s ingest --strict good.csv", data_opt);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "good.csv: read 3, stored 2, duplicates 0, rejected 1\n");
    tu_run_free(&r);
    free(dir);
}

/* A NUL byte in a field rejects the row (values are C strings inside: it
 * would otherwise cut "Lam\0bda" to "Lam" without a word); two ids that
 * differ after a NUL are not taken for one.  Text that is not UTF-8 is
 * rejected too (published files and JSON input need UTF-8); UTF-8 text
 * of any script is stored. */
static void test_nul_byte_rejects_row(void **state)
{
    (void)state;
    char *dir = scratch();
    tu_run r = tu_sh(dir, "printf 'kind,id,observed_at,provider,gpu,price\\n"
                          "offer,n1,2024-03-01,Lam\\000bda,H100,2\\n"
                          "offer,a\\000b,2024-03-01,aws,H100,2\\n"
                          "offer,a\\000c,2024-03-01,aws,H100,3\\n"
                          "offer,ok,2024-03-01,aws,H100,4\\n"
                          "offer,l1,2024-03-01,Caf\\351,H100,4\\n"
                          "offer,u8,2024-03-01,Caf\\303\\251 \\346\\235\\261,H100,4\\n' > nul.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db n.db %s ingest --admit-providers nul.csv", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "nul.csv: read 6, stored 2, duplicates 0, rejected 4\n");
    assert_string_equal(r.err, "gpuidx: nul.csv:2: provider: contains a NUL byte (got \"Lam\\x00bda\")\n"
                               "gpuidx: nul.csv:3: id: contains a NUL byte (got \"a\\x00b\")\n"
                               "gpuidx: nul.csv:4: id: contains a NUL byte (got \"a\\x00c\")\n"
                               "gpuidx: nul.csv:6: provider: not valid UTF-8 (got \"Caf\\xE9\")\n"
                               "gpuidx: warning: nul.csv:7: provider: \"Caf\xc3\xa9 \xe6\x9d\xb1\" is not in "
                               "providers.csv: admitted as its own group \"caf\xc3\xa9 \xe6\x9d\xb1\", "
                               "segment unknown\n");
    tu_run_free(&r);
    r = tu_sh(dir, "sqlite3 n.db \"SELECT provider FROM observations_readable WHERE ident = 'u8'\"");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "caf\xc3\xa9 \xe6\x9d\xb1\n");
    tu_run_free(&r);
    /* the reject keeps the whole raw row, its NUL written as \0 */
    r = tu_sh(dir, "sqlite3 n.db 'SELECT raw_row FROM rejects WHERE line = 2'");
    assert_string_equal(r.out, "offer,n1,2024-03-01,Lam\\0bda,H100,2\n");
    tu_run_free(&r);
    /* an echo that does not fit says so ("..."): 25 control bytes, then 0xFF */
    char row[128] = "kind,id,observed_at,provider,gpu,price\noffer,c1,2024-03-01,";
    size_t n = strlen(row);
    for (int i = 0; i < 25; i++) row[n++] = '\x01';
    strcpy(row + n, "\xff,H100,4\n");
    free(tu_write(dir, "ctl.csv", row));
    r = tu_gpuidx(dir, "--db n.db %s ingest ctl.csv", data_opt);
    assert_string_equal(r.err, "gpuidx: ctl.csv:2: provider: not valid UTF-8 (got \""
                               "\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01"
                               "\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01...\")\n");
    tu_run_free(&r);
    free(dir);
}

/* Six ingests into one new database at once: each creates the schema if
 * it finds none, and the loser of that race must see the winner's version
 * (it once ran the same migration again: "table batches already exists").
 * A SQLite file of another application is refused and left as it was;
 * --db "" is a usage error, and ":memory:" and "file:..." are file names. */
static void test_open_races_and_foreign_files(void **state)
{
    (void)state;
    char *dir = scratch();
    static const char *const steps[] = {
        "for i in 1 2 3 4 5 6; do printf \"kind,id,observed_at,provider,gpu,price\\n"
        "offer,o$i,2024-03-01,aws,H100,2\\n\" > f$i.csv; done",
        "p=; for i in 1 2 3 4 5 6; do \"$GPUIDX_BIN\" --db race.db ingest f$i.csv >/dev/null 2>err$i &"
        " p=\"$p $!\"; done; fail=0; for x in $p; do wait $x || fail=1; done; cat err*; exit $fail",
        "sqlite3 other.db 'CREATE TABLE foo(x)'",
        "sqlite3 race.db 'SELECT count(*) FROM observations'",
    };
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    assert_string_equal(r.out, "6\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db other.db index show");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: other.db: store: not a gpuidx database (it holds another "
                               "application's tables); nothing was changed\n");
    tu_run_free(&r);
    r = tu_sh(dir, "sqlite3 other.db 'PRAGMA journal_mode; SELECT count(*) FROM sqlite_master'");
    assert_string_equal(r.out, "delete\n1\n");
    tu_run_free(&r);
    /* ... also when it has set a schema version of its own */
    r = tu_sh(dir, "sqlite3 v1.db 'CREATE TABLE x(a); PRAGMA user_version = 1'");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db v1.db ingest f1.csv");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "v1.db: store: not a gpuidx database"));
    tu_run_free(&r);
    r = tu_sh(dir, "sqlite3 v1.db 'PRAGMA journal_mode; PRAGMA user_version; SELECT count(*) FROM "
                   "sqlite_master'");
    assert_string_equal(r.out, "delete\n1\n1\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db '' index show");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "gpuidx: --db: empty path\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db file:u.db ingest f1.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_sh(dir, "test -s ./file:u.db && sqlite3 ./file:u.db 'SELECT count(*) FROM observations'");
    assert_string_equal(r.out, "1\n");
    tu_run_free(&r);
    free(dir);
}

static void test_broken_file_changes_nothing(void **state)
{
    (void)state;
    char *dir = scratch();
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest --rejects rej.csv broken.csv good.csv", data_opt);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "broken.csv: failed, nothing stored\n"
                               "good.csv: read 3, stored 2, duplicates 0, rejected 1\n");
    assert_non_null(strstr(r.err, "gpuidx: broken.csv:3:7: unterminated quoted field\n"));
    tu_run_free(&r);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM batches"), 1);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations"), 2);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM rejects"), 1);
    char path[4300];
    snprintf(path, sizeof path, "%s/rej.csv", dir);
    char *rej = tu_read(path);
    assert_null(strstr(rej, "broken.csv"));
    free(rej);
    /* a missing file is reported the same way */
    r = tu_gpuidx(dir, "--db t.db %s ingest offers nosuch.csv", data_opt);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "nosuch.csv: failed, nothing stored\n");
    assert_string_equal(r.err, "gpuidx: nosuch.csv: no such file\n");
    tu_run_free(&r);
    free(dir);
}

static void test_reingest_duplicates_conflicts(void **state)
{
    (void)state;
    char *dir = scratch();
    /* one feed name: without --source (or a source column) the file name is
     * the source, and the same id in two files would be two keys */
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest --source feed good.csv", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest --source feed good.csv same.csv conflict.csv", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "good.csv: skipped, already ingested (batch 1)\n"
                               "same.csv: read 3, stored 0, duplicates 2, rejected 1\n"
                               "conflict.csv: read 1, stored 0, duplicates 0, rejected 1\n");
    assert_non_null(strstr(r.err, "gpuidx: conflict.csv:2: conflicts with a stored observation\n"));
    tu_run_free(&r);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations"), 2);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM batches"), 3);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM batches WHERE n_read <> n_stored + n_duplicates + n_rejected"), 0);
    free(dir);
}

static void test_kind_from_command_and_json(void **state)
{
    (void)state;
    char *dir = scratch();
    free(tu_write(dir, "trades.csv",
                  "observed_at,provider,gpu,price,quantity,buyer\n"
                  "2024-03-01T10:00:00Z,aws,H100,3.1,100,lambda\n"
                  "2024-03-01T11:00:00Z,aws,H100,3.2,100,Amazon Retail\n"));
    free(tu_write(dir, "offers.ndjson",
                  "{\"observed_at\":\"2024-03-01\",\"provider\":\"aws\",\"gpu\":\"H100\",\"price\":2.35}\n"
                  "{\"observed_at\":\"2024-03-01\",\"provider\":\"aws\",\"gpu\":\"Inferentia\",\"price\":1}\n"));
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest trades --source exch trades.csv", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "trades.csv: read 2, stored 2, duplicates 0, rejected 0\n");
    tu_run_free(&r);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations_readable WHERE kind = 'trade' AND status = 'affiliate'"), 1);
    r = tu_gpuidx(dir, "--db t.db %s ingest offers offers.ndjson", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "offers.ndjson: read 2, stored 1, duplicates 0, rejected 1\n");
    assert_string_equal(r.err, "gpuidx: offers.ndjson:2: gpu: not a GPU: AWS Inferentia accelerator (got \"Inferentia\")\n");
    tu_run_free(&r);
    assert_int_equal(sql_long(dir, "SELECT price_micro FROM observations_readable WHERE kind = 'offer' AND source = 'offers.ndjson'"), 2350000);
    /* the same file again is skipped, whatever the command says */
    r = tu_gpuidx(dir, "--db t.db %s ingest trades.csv", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "trades.csv: skipped, already ingested (batch 1)\n");
    tu_run_free(&r);
    /* without offers|trades the kind column is required */
    free(tu_write(dir, "nokind.csv", "observed_at,provider,gpu,price,quantity\n2024-03-01,aws,H100,3.1,100\n"));
    r = tu_gpuidx(dir, "--db t.db %s ingest nokind.csv", data_opt);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: nokind.csv:1:1: header: missing required column \"kind\"\n");
    tu_run_free(&r);
    free(dir);
}

/* A slice of the real SkyPilot feed through the shipped tables. */
/* One file is one transaction: a kill -9 at any moment leaves the database
 * as before the file or after it, and the file can then be ingested.  The
 * kills land at several moments of a 200,000-row file (whether a kill came
 * before or after the commit, the state must be one of the two). */
static void test_kill_mid_file(void **state)
{
    (void)state;
    char *dir = scratch();
    free(tu_write(dir, "gen.awk",
                  "BEGIN { print \"kind,id,observed_at,provider,gpu,price\"\n"
                  "  for (i = 0; i < 200000; i++)\n"
                  "    printf \"offer,k%d,2024-03-%02d,aws,H100,%d.5\\n\", i, 1 + i % 28, 1 + i % 9 }\n"));
    tu_run r = tu_sh(dir, "awk -f gen.awk > big.csv");
    if (r.status != 0) fail_msg("awk: %s", r.err);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db base.db %s ingest good.csv", data_opt);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    static const char *const delays[] = {"0.05", "0.2", "0.5", "1"};
    for (size_t i = 0; i < sizeof delays / sizeof delays[0]; i++) {
        r = tu_sh(dir, "rm -f t.db t.db-wal t.db-shm && cp base.db t.db && "
                       "{ \"$GPUIDX_BIN\" --db t.db %s ingest big.csv > /dev/null 2>&1 & p=$!; "
                       "sleep %s; kill -9 $p 2>/dev/null; wait $p; true; }", data_opt, delays[i]);
        tu_run_free(&r);
        r = tu_sh(dir, "sqlite3 t.db 'PRAGMA integrity_check'");
        assert_string_equal(r.out, "ok\n");
        tu_run_free(&r);
        long obs = sql_long(dir, "SELECT count(*) FROM observations");
        long batches = sql_long(dir, "SELECT count(*) FROM batches");
        long rejects = sql_long(dir, "SELECT count(*) FROM rejects");
        int before = obs == 2 && batches == 1 && rejects == 1;
        int after = obs == 200002 && batches == 2 && rejects == 1;
        if (!before && !after)
            fail_msg("kill after %s s: %ld observations, %ld batches, %ld rejects", delays[i], obs,
                     batches, rejects);
        r = tu_gpuidx(dir, "--db t.db %s ingest big.csv", data_opt);
        assert_int_equal(r.status, 0);
        if (before)
            assert_string_equal(r.out, "big.csv: read 200000, stored 200000, duplicates 0, rejected 0\n");
        else
            assert_string_equal(r.out, "big.csv: skipped, already ingested (batch 2)\n");
        tu_run_free(&r);
        assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations"), 200002);
    }
    r = tu_sh(NULL, "rm -rf '%s'", dir);
    tu_run_free(&r);
    free(dir);
}

static void test_real_slice(void **state)
{
    (void)state;
    const char *real = tu_real_data();
    if (!real) return;
    char *dir = tu_mkdtemp("e2e-real");
    /* braces: tu_sh appends "</dev/null", which must not rebind head's stdin */
    tu_run r = tu_sh(dir, "{ zcat '%s/skypilot_offers_canonical.csv.gz' | head -n 200001; } > slice.csv", real);
    if (r.status != 0 || *r.err) fail_msg("zcat: %d %s", r.status, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db --data '%s/data' ingest slice.csv", tu_srcdir());
    assert_int_equal(r.status, 0);
    long rd = -1, st = -1, du = -1, rj = -1;
    if (sscanf(r.out, "slice.csv: read %ld, stored %ld, duplicates %ld, rejected %ld", &rd, &st, &du, &rj) != 4)
        fail_msg("summary: %s", r.out);
    tu_run_free(&r);
    assert_int_equal(rd, 200000);
    assert_int_equal(rd, st + du + rj);
    assert_true(st > 150000); /* most rows are GPUs */
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations"), st);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM rejects"), rj);
    assert_int_equal(sql_long(dir, "SELECT n_read - n_stored - n_duplicates - n_rejected FROM batches"), 0);
    /* every reject has a reason naming a column or the row */
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM rejects WHERE reason NOT LIKE 'slice.csv:%%'"), 0);
    /* no TPU, Inferentia or FPGA was stored */
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations_readable"
                                   " WHERE raw_gpu LIKE 'tpu%%' OR raw_gpu IN ('Inferentia', 'Virtex UltraScale (VU9P)')"), 0);
    assert_true(sql_long(dir, "SELECT count(*) FROM observations_readable WHERE raw_gpu = 'A100' AND gpu = 'A100-SXM-40GB'") > 0);
    /* the slice is 27 MB: do not leave it behind */
    r = tu_sh(NULL, "rm -rf '%s'", dir);
    tu_run_free(&r);
    free(dir);
}

/* A gzip file is read as it is (its identity is its content: the plain
 * file is then "already ingested"), a .ndjson.gz is JSON, - is standard
 * input (CSV, or JSON by its first byte), a corrupt gzip fails the file
 * with zlib's reason, and other compressions are named, not parsed. */
static void test_gzip_and_stdin(void **state)
{
    (void)state;
    char *dir = scratch();
    tu_run r = tu_sh(dir, "gzip -c good.csv > good.csv.gz && head -c 60 good.csv.gz > cut.csv.gz"
                          " && xz -c good.csv > good.csv.xz"
                          " && { printf '{\"observed_at\":\"2024-03-02\",\"provider\":\"aws\","
                          "\"gpu\":\"H100\",\"price\":2}\\n' | gzip -c > o.ndjson.gz; }");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest good.csv.gz", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "good.csv.gz: read 3, stored 2, duplicates 0, rejected 1\n");
    assert_string_equal(r.err, "gpuidx: good.csv.gz:3: price: not a number (got \"abc\")\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest good.csv", data_opt);
    assert_string_equal(r.out, "good.csv: skipped, already ingested (batch 1)\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest offers o.ndjson.gz", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "o.ndjson.gz: read 1, stored 1, duplicates 0, rejected 0\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest cut.csv.gz", data_opt);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "cut.csv.gz: failed, nothing stored\n");
    assert_string_equal(r.err, "gpuidx: cut.csv.gz: read error: unexpected end of file\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest good.csv.xz", data_opt);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: good.csv.xz:1:1: the file is compressed with xz; gpuidx "
                               "reads plain text or gzip (decompress it first)\n");
    tu_run_free(&r);
    /* standard input: CSV, gzip, JSON; named "stdin" (tu_sh reads
     * /dev/null: the pipelines are grouped) */
    r = tu_sh(dir, "{ sed 's/2024-03-01/2024-03-05/' good.csv | \"$GPUIDX_BIN\" --db s.db %s "
                   "ingest -; }", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "stdin: read 3, stored 2, duplicates 0, rejected 1\n");
    assert_string_equal(r.err, "gpuidx: stdin:3: price: not a number (got \"abc\")\n");
    tu_run_free(&r);
    r = tu_sh(dir, "{ \"$GPUIDX_BIN\" --db s.db %s ingest - < good.csv.gz; }", data_opt);
    assert_string_equal(r.out, "stdin: read 3, stored 2, duplicates 0, rejected 1\n");
    tu_run_free(&r);
    r = tu_sh(dir, "{ printf '[{\"observed_at\":\"2024-03-09\",\"provider\":\"aws\",\"gpu\":"
                   "\"H100\",\"price\":3}]' | \"$GPUIDX_BIN\" --db s.db %s ingest offers -; }",
              data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "stdin: read 1, stored 1, duplicates 0, rejected 0\n");
    tu_run_free(&r);
    r = tu_sh(dir, "sqlite3 s.db \"SELECT path, source FROM batches ORDER BY batch_id\"");
    assert_string_equal(r.out, "stdin|\nstdin|\nstdin|\n");
    tu_run_free(&r);
    r = tu_sh(dir, "sqlite3 s.db \"SELECT DISTINCT source FROM observations_readable\"");
    assert_string_equal(r.out, "stdin\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db s.db %s ingest - -", data_opt);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "gpuidx: ingest: standard input (-) can be read once\n");
    tu_run_free(&r);
    free(dir);
}

/* A file whose rows were rejected for an unknown provider is read again
 * once the provider is admitted (or listed): the new rows are stored, the
 * stored ones are duplicates; read again the same way, it is skipped. */
static void test_reread_after_admitting(void **state)
{
    (void)state;
    char *dir = scratch();
    free(tu_write(dir, "u.csv", "kind,id,observed_at,provider,gpu,price\n"
                                "offer,u1,2024-03-01,aws,H100,2\n"
                                "offer,u2,2024-03-01,lamda,H100,2\n"));
    tu_run r = tu_gpuidx(dir, "--db t.db %s ingest u.csv", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "u.csv: read 2, stored 1, duplicates 0, rejected 1\n");
    assert_string_equal(r.err, "gpuidx: u.csv:3: provider: unknown provider (did you mean "
                               "\"lambda\"? add it to providers.csv, or ingest with "
                               "--admit-providers) (got \"lamda\")\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest u.csv", data_opt);
    assert_string_equal(r.out, "u.csv: skipped, already ingested (batch 1)\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest --admit-providers u.csv", data_opt);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "u.csv: read 2, stored 1, duplicates 1, rejected 0\n");
    assert_string_equal(r.err, "gpuidx: warning: u.csv:3: provider: \"lamda\" is not in "
                               "providers.csv: admitted as its own group \"lamda\", segment "
                               "unknown (did you mean \"lambda\"?)\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db %s ingest --admit-providers u.csv", data_opt);
    assert_string_equal(r.out, "u.csv: skipped, already ingested (batch 2)\n");
    tu_run_free(&r);
    free(dir);
}

/* The shipped skus.csv corrects at ingest and the correction stays with
 * the observation: Azure lists ND H100 v5 with 12 GPUs (it has 8), GCP's
 * accelerator prices cover the GPUs alone. */
static void test_sku_correction_stored(void **state)
{
    (void)state;
    char *dir = scratch();
    free(tu_write(dir, "s.csv", "kind,observed_at,provider,gpu,sku,gpu_count,price,unit\n"
                                "offer,2024-03-01,azure,H100,Standard_ND96isr_H100_v5,12,117.98,"
                                "instance-hour\n"
                                "offer,2024-03-01,gcp,H100,accel-H100,8,88.0,instance-hour\n"
                                "offer,2024-03-01,aws,H100,p5.48xlarge,8,98.32,instance-hour\n"));
    tu_run r = tu_gpuidx(dir, "--db s.db --data '%s/data' ingest offers s.csv", tu_srcdir());
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "s.csv: read 3, stored 3, duplicates 0, rejected 0\n");
    tu_run_free(&r);
    r = tu_sh(dir, "sqlite3 s.db \"SELECT provider, gpu_count, price_micro, covers,"
                   " coalesce(correction, '') FROM observations_readable ORDER BY provider\"");
    /* 117.98 / 8 = 14.7475; 88 / 8 = 11; 98.32 / 8 = 12.29 */
    assert_string_equal(r.out, "aws|8|12290000|instance|\n"
                               "azure|8|14747500|instance|skus.csv:21: gpu_count 12 -> 8\n"
                               "gcp|8|11000000|gpu-only|skus.csv:23: covers gpu-only\n");
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    snprintf(data_opt, sizeof data_opt, "--data '%s/tests/fixtures/tables'", tu_srcdir());
    if (!getenv("GPUIDX_BIN")) {
        static char bin[4200];
        snprintf(bin, sizeof bin, "%s/build/gpuidx", tu_srcdir());
        setenv("GPUIDX_BIN", bin, 1);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_usage),
        cmocka_unit_test(test_summary_rejects_strict),
        cmocka_unit_test(test_nul_byte_rejects_row),
        cmocka_unit_test(test_gzip_and_stdin),
        cmocka_unit_test(test_reread_after_admitting),
        cmocka_unit_test(test_sku_correction_stored),
        cmocka_unit_test(test_open_races_and_foreign_files),
        cmocka_unit_test(test_broken_file_changes_nothing),
        cmocka_unit_test(test_reingest_duplicates_conflicts),
        cmocka_unit_test(test_kind_from_command_and_json),
        cmocka_unit_test(test_kill_mid_file),
        cmocka_unit_test(test_real_slice),
    };
    return cmocka_run_group_tests_name("e2e_ingest", tests, NULL, NULL);
}
