/* tests/test_e2e_reliability31.c -- the real binary on the faults of the
 * third adversarial pass (issue 31) that are not about publication or
 * verify (those are test_e2e_late.c and test_e2e_tamper.c): a CSV read
 * while it is still being written, and the smaller faults of its item 7.
 * Each test failed on the binary before its fix (said per test).
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long sql_long(const char *dir, const char *sql)
{
    tu_run r = tu_sh(dir, "sqlite3 t.db \"%s\"", sql);
    if (r.status != 0) fail_msg("sqlite3: %s", r.err);
    long v = strtol(r.out, NULL, 10);
    tu_run_free(&r);
    return v;
}

static void expect(tu_run *r, int status, const char *out, const char *err_has, const char *what)
{
    if (r->status != status || strcmp(r->out, out) != 0 ||
        (err_has && !strstr(r->err, err_has)))
        fail_msg("%s: exit %d, stdout\n%s\nstderr\n%s\nwant exit %d, stdout\n%s\nstderr with "
                 "\"%s\"",
                 what, r->status, r->out, r->err, status, out, err_has ? err_has : "");
    tu_run_free(r);
}

/* ---- 1: a CSV still being written ------------------------------------------------ */

/* A collector appends "...,2.75\n" while cron runs `gpuidx ingest`: the
 * reader sees "...,2.7" without a line end.  Before the fix 2.7 was
 * stored; the finished file's row with an id was then a conflict (the
 * wrong price for good), and a trade without an id came back as a second
 * trade (quantity 1000 cut to 10: three trades stored for two).  Now the
 * cut line is held back with a warning, the unfinished file read again is
 * skipped, and the finished file stores the line whole. */
static void test_file_being_written(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-r31-cut");
    const char *offers_full = "observed_at,provider,gpu,kind,id,price\n"
                              "2025-01-05T10:00:00Z,aws,H100,offer,o1,2.50\n"
                              "2025-01-05T11:00:00Z,aws,H100,offer,o2,2.75\n";
    const char *trades_full = "observed_at,provider,gpu,price,quantity\n"
                              "2025-01-05T10:00:00Z,aws,H100,2.40,500\n"
                              "2025-01-05T11:00:00Z,aws,H100,2.45,1000\n";
    char cut[512];
    snprintf(cut, sizeof cut, "%.*s", (int)(strlen(offers_full) - 3), offers_full); /* ...,2.7 */
    free(tu_write(dir, "offers.csv", cut));
    snprintf(cut, sizeof cut, "%.*s", (int)(strlen(trades_full) - 3), trades_full); /* ...,10 */
    free(tu_write(dir, "trades.csv", cut));
    tu_run r = tu_gpuidx(dir, "--db t.db ingest offers offers.csv");
    expect(&r, 0, "offers.csv: read 1, stored 1, duplicates 0, rejected 0\n",
           "warning: offers.csv:3: the last line has no line end: held back, not read (a file "
           "still being written?); it is read when the file is ingested again with its line "
           "end, or now with --complete",
           "the cut offers");
    r = tu_gpuidx(dir, "--db t.db ingest trades trades.csv");
    expect(&r, 0, "trades.csv: read 1, stored 1, duplicates 0, rejected 0\n",
           "warning: trades.csv:3: the last line has no line end", "the cut trades");
    /* the same unfinished file again: its complete lines are known */
    r = tu_gpuidx(dir, "--db t.db ingest offers offers.csv");
    expect(&r, 0, "offers.csv: skipped, already ingested (batch 1)\n", NULL, "again");
    free(tu_write(dir, "offers.csv", offers_full));
    free(tu_write(dir, "trades.csv", trades_full));
    r = tu_gpuidx(dir, "--db t.db ingest offers offers.csv");
    expect(&r, 0, "offers.csv: read 2, stored 1, duplicates 1, rejected 0\n", NULL, "finished offers");
    r = tu_gpuidx(dir, "--db t.db ingest trades trades.csv");
    expect(&r, 0, "trades.csv: read 2, stored 1, duplicates 1, rejected 0\n", NULL, "finished trades");
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations_readable WHERE kind = 'offer' "
                                   "AND price_micro = 2750000"), 1);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations_readable WHERE price_micro "
                                   "= 2700000"), 0);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations_readable WHERE kind = "
                                   "'trade'"), 2);
    assert_int_equal(sql_long(dir, "SELECT sum(quantity_micro) FROM observations_readable WHERE "
                                   "kind = 'trade'"), 1500000000L);
    /* --complete: a file known to be whole whose last line has no end */
    free(tu_write(dir, "last.csv", "observed_at,provider,gpu,kind,id,price\n"
                                   "2025-01-06T10:00:00Z,aws,H100,offer,o3,2.60"));
    r = tu_gpuidx(dir, "--db t.db ingest offers --complete last.csv");
    expect(&r, 0, "last.csv: read 1, stored 1, duplicates 0, rejected 0\n", NULL, "--complete");
    free(dir);
}

/* ---- 7: the smaller faults ------------------------------------------------------------- */

/* Whether a CSV line has a cell a spreadsheet would run as a formula: one
 * that starts (after its opening quote, if any) with = + - @ TAB or CR
 * and is not a plain number (-1.39 is a number). */
static int formula_cell(const char *line)
{
    int start = 1, q = 0;
    for (const char *p = line; *p && *p != '\n'; p++) {
        if (start) {
            const char *c = *p == '"' ? p + 1 : p;
            size_t num = strspn(c + 1, "0123456789.");
            int number = (*c == '-' || *c == '+') && num > 0 && strchr(",\n", c[1 + num]);
            if (*c && strchr("=+-@\t\r", *c) && !number) return 1;
            start = 0;
        }
        if (*p == '"') q = !q;
        else if (*p == ',' && !q) start = 1;
    }
    return 0;
}

/* `cost curve/moves/days --csv` wrote the deployments' text as live
 * formula cells ("=HYPERLINK(...)" ran when the CSV was opened); now each
 * such cell gets a leading apostrophe, as observations.csv's do. */
static void test_cost_csv_formula_safe(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-r31-costcsv");
    const char *steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 5 --seed 1 --start 2025-06-01 --out m >/dev/null",
        "\"$GPUIDX_BIN\" --db t.db ingest offers --admit-providers m/offers.csv >/dev/null 2>&1 && "
        "\"$GPUIDX_BIN\" --db t.db ingest trades --admit-providers m/trades.csv >/dev/null 2>&1 && "
        "\"$GPUIDX_BIN\" --db t.db index build --from 2025-06-01 --to 2025-06-05 >/dev/null 2>&1",
    };
    tu_run r = tu_sh_all(dir, steps, 2);
    tu_run_free(&r);
    free(tu_write(dir, "d.csv", "operator,workload,latency_target,gpu,grade,rent,from,to,"
                                "tokens_per_s,acceptance,gpus\n"
                                "\"=HYPERLINK(\"\"http://x\"\")\",+chat,p50,B200,B200.OD,,"
                                "2025-06-01,,300,1,8\n"
                                "@A,+chat,p50,B200,B200.OD,,2025-06-01,,250,1,8\n"
                                "-B,+chat,p50,H100-SXM-80GB,H100-SXM.OD,,2025-06-01,,200,1,8\n"));
    static const char *const cmds[] = {
        "cost curve --deployments d.csv --date 2025-06-01 --csv",
        "cost moves --deployments d.csv --from 2025-06-01 --to 2025-06-05 --csv",
        "cost days --deployments d.csv --from 2025-06-01 --to 2025-06-03 --csv",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        r = tu_gpuidx(dir, "--db t.db %s", cmds[i]);
        if (r.status != 0) fail_msg("%s: %s", cmds[i], r.err);
        if (!strstr(r.out, "'=HYPERLINK(") || !strstr(r.out, "'@A"))
            fail_msg("%s: the cells not neutralized:\n%s", cmds[i], r.out);
        for (const char *l = r.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
            if (formula_cell(l)) fail_msg("%s: a formula cell in\n%.300s", cmds[i], l);
        tu_run_free(&r);
    }
    free(dir);
}

/* A grades file with a UTF-8 byte-order mark was refused ("invalid JSON")
 * while every other reader of gpuidx accepts one; now it builds the same
 * rows as the file without it. */
static void test_grades_file_with_bom(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-r31-bom");
    const char *steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 3 --seed 2 --out m >/dev/null",
        "printf '\\357\\273\\277' > bom.json && cat \"$SRC\"/data/grades.json >> bom.json && "
        "cp \"$SRC\"/data/grades.json plain.json && test $(head -c 3 bom.json | od -An -tx1 | "
        "tr -d ' ') = efbbbf",
        "for g in bom plain; do \"$GPUIDX_BIN\" --db $g.db ingest offers --admit-providers "
        "m/offers.csv >/dev/null 2>&1 && \"$GPUIDX_BIN\" --db $g.db index build --grades $g.json "
        "--from 2025-01-01 --to 2025-01-03 2>$g.err && \"$GPUIDX_BIN\" --db $g.db index show "
        "> $g.csv || exit 1; done",
        "cmp bom.csv plain.csv && test $(wc -l < bom.csv) -gt 10",
    };
    char env[4400];
    snprintf(env, sizeof env, "%s", tu_srcdir());
    setenv("SRC", env, 1);
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    free(dir);
}

/* A file ingested under the wrong kind could never be ingested again: it
 * was "already ingested".  Now the kind is part of what a file was read
 * as: ingested again as the other kind it is stored, and the message names
 * the batch that read it as the first kind (whose rows stay). */
static void test_reingest_under_another_kind(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-r31-kind");
    free(tu_write(dir, "t.csv", "observed_at,provider,gpu,price,quantity,id\n"
                                "2025-01-05T10:00:00Z,aws,H100,2.40,500,t1\n"
                                "2025-01-05T11:00:00Z,aws,H100,2.45,100,t2\n"));
    tu_run r = tu_gpuidx(dir, "--db t.db ingest offers t.csv");
    expect(&r, 0, "t.csv: read 2, stored 2, duplicates 0, rejected 0\n", NULL, "as offers");
    r = tu_gpuidx(dir, "--db t.db ingest offers t.csv");
    expect(&r, 0, "t.csv: skipped, already ingested (batch 1)\n", NULL, "as offers again");
    r = tu_gpuidx(dir, "--db t.db ingest trades t.csv");
    expect(&r, 0, "t.csv: read 2, stored 2, duplicates 0, rejected 0\n",
           "warning: t.csv: ingested before as offers (batch 1), now read as trades; the rows "
           "batch 1 stored stay as they were stored",
           "as trades");
    r = tu_gpuidx(dir, "--db t.db ingest trades t.csv");
    expect(&r, 0, "t.csv: skipped, already ingested (batch 2)\n", NULL, "as trades again");
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations_readable WHERE kind = "
                                   "'trade'"), 2);
    free(dir);
}

/* `index build` of 10,000 grades peaked at 715 MB on the market
 * (615 MB here over 3 days), 512 MB the turn before: the build copied
 * every 23 KB grade definition once more to leave the dropped grades out.
 * Now the kept grades are ordered in place; 387 MB here. */
static void test_build_of_10000_grades_memory(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-r31-10k");
    char path[4200];
    snprintf(path, sizeof path, "%s/o.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("observed_at,provider,gpu,price\n", f);
    static const char *const provs[] = {"aws", "lambda", "acme", "p4", "p5", "p6"};
    unsigned x = 12345;
    for (int day = 1; day <= 3; day++)
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
    for (int i = 0; i < 10000; i++)
        fprintf(f, "%s{\"id\":\"G%05d\",\"method\":\"%s\",\"gpu\":[\"%s\"],\"term\":"
                   "\"on-demand\",\"min_providers\":%d}",
                i ? ",\n" : "", i, i % 2 ? "v2" : "v1", i % 2 ? "A100-SXM-40GB" : "H100-SXM-80GB",
                1 + (i / 2) % 3);
    fputs("]}\n", f);
    fclose(f);
    tu_run r = tu_gpuidx(dir, "--db t.db ingest offers --admit-providers o.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    char db[4200];
    snprintf(db, sizeof db, "%s/t.db", dir);
    const char *args[] = {getenv("GPUIDX_BIN"), "--db", db, "index", "build", "--grades", "g.json",
                          "--from", "2025-01-01", "--to", "2025-01-03", NULL};
    long kib;
    assert_int_equal(tu_run_rss(dir, args, NULL, &kib), 0);
    printf("index build of 10,000 grades over 3 days: peak %ld KiB\n", kib);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    long limit = 1536L * 1024; /* a sanitizer's allocator and shadow */
#else
    long limit = 512L * 1024;
#endif
    if (kib > limit) fail_msg("peak %ld KiB, more than %ld KiB", kib, limit);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM index_values"), 30000);
    free(dir);
}

/* One seller counted as two provider groups after a providers.csv alias
 * change until its files were ingested again (and a file already read
 * keeps its rows as they were).  `ingest --regroup` moves the stored rows
 * to the group providers.csv gives now, as a batch (builds then see the
 * days it changed). */
static void test_regroup_after_alias_change(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-r31-regroup");
    /* (the grades as methodology v2: a day's cross-section counts the
     * groups of its own observations, where a v3 panel admits none in 3
     * days) */
    tu_run r = tu_sh(dir, "mkdir data && cp '%s'/data/*.csv data/ && cp "
                          "'%s'/tests/fixtures/grades_v2.json data/grades.json",
                     tu_srcdir(), tu_srcdir());
    tu_run_free(&r);
    free(tu_write(dir, "f1.csv", "observed_at,provider,gpu,price,id\n"
                                 "2025-01-05T10:00:00Z,Foo Cloud,H100,2.50,a\n"
                                 "2025-01-06T10:00:00Z,Foo Cloud,H100,2.60,b\n"));
    free(tu_write(dir, "f2.csv", "observed_at,provider,gpu,price,id\n"
                                 "2025-01-07T10:00:00Z,Foo Cloud,H100,2.70,c\n"));
    r = tu_gpuidx(dir, "--db t.db --data data ingest offers --admit-providers f1.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_sh(dir, "echo 'foo cloud,aws,amazon,hyperscaler' >> data/providers.csv");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db --data data ingest offers f2.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    const char *groups = "SELECT count(DISTINCT grp) FROM observations_readable";
    assert_int_equal(sql_long(dir, groups), 2); /* the seller as two groups */
    r = tu_gpuidx(dir, "--db t.db --data data ingest --regroup");
    expect(&r, 0, "regroup: 2 rows of 1 profiles moved to their providers.csv provider and group "
                  "(batch 3), days 2025-01-05..2025-01-06\n",
           "gpuidx: ingest --regroup: the days 2025-01-05..2025-01-06 changed: gpuidx index "
           "build --from 2025-01-05 --to 2025-01-06",
           "regroup");
    assert_int_equal(sql_long(dir, groups), 1);
    assert_int_equal(sql_long(dir, "SELECT count(*) FROM observations_readable WHERE provider = "
                                   "'aws' AND grp = 'amazon' AND segment = 'hyperscaler'"), 3);
    /* the batch's days: what late-data detection reads */
    assert_int_equal(sql_long(dir, "SELECT max_day - min_day FROM batches WHERE batch_id = 3"), 1);
    r = tu_gpuidx(dir, "--db t.db --data data ingest --regroup");
    expect(&r, 0, "regroup: every stored row has its providers.csv group already\n", NULL, "again");
    r = tu_sh(dir, "sqlite3 t.db 'PRAGMA integrity_check'");
    assert_string_equal(r.out, "ok\n");
    tu_run_free(&r);
    /* a later process reads the moved rows through the profiles' packs */
    r = tu_gpuidx(dir, "--db t.db --data data index build --from 2025-01-05 --to 2025-01-07");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    assert_int_equal(sql_long(dir, "SELECT max(n_providers) FROM index_values WHERE grade = "
                                   "'H100-SXM.OD'"), 1);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_being_written),
        cmocka_unit_test(test_cost_csv_formula_safe),
        cmocka_unit_test(test_grades_file_with_bom),
        cmocka_unit_test(test_reingest_under_another_kind),
        cmocka_unit_test(test_build_of_10000_grades_memory),
        cmocka_unit_test(test_regroup_after_alias_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
