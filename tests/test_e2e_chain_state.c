/* tests/test_e2e_chain_state.c -- the daily job through the binary with
 * the chain states a build leaves (index/build.c note 8): building and
 * publishing a day from the state of the day before gives the same rows
 * and the same published files, byte for byte, as without any state (a
 * replay of the chain since its last reset), and the state is what makes
 * the day's build read one day instead of a month.
 *
 * The demo market (gpuidx simulate, 70 days) with the grades shipped before
 * methodology v3 (tests/fixtures/grades_v2.json: every grade methodology
 * v2, as the published set of a data folder of the test's own); the two
 * databases' day builds share one --as-of, so their rows and files can be
 * compared byte for byte.
 *
 * A stored state that is damaged (a flipped bit) or filed under another
 * grade (H200.OD's state under H100-SXM.OD) is refused, the build says so
 * and replays, and the rows and files are those of the replay (issue 31:
 * before the seal of store/chain_states.c such a state was used, and the
 * published values changed with exit 0).
 *
 * Each test runs twice: on the grades shipped before methodology v3 (v2
 * chains) and on the shipped v3 grades (their panels' states,
 * index/v3_store.c), from a year database of each (y.db, y3.db).
 */
#include "tests/testutil.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;
static char data_opt[4200];   /* the grades of the test running (use_method) */
static char data_v2[4200], data_v3[4200];
static const char *year_db = "y.db";
static int method = 2;

/* The tests that follow run on methodology m's grades (2 or 3). */
static void use_method(int m)
{
    method = m;
    year_db = m == 3 ? "y3.db" : "y.db";
    snprintf(data_opt, sizeof data_opt, "%s", m == 3 ? data_v3 : data_v2);
}

static void run_ok(const char *what, tu_run r)
{
    if (r.status != 0) fail_msg("%s: exit %d: %s", what, r.status, r.err);
    tu_run_free(&r);
}

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-chain-state");
    run_ok("data", tu_sh(dir, "mkdir data && cp '%s'/data/*.csv data/ && "
                              "cp '%s'/tests/fixtures/grades_v2.json data/grades.json",
                         tu_srcdir(), tu_srcdir()));
    snprintf(data_v2, sizeof data_v2, "--data '%s/data'", dir);
    snprintf(data_v3, sizeof data_v3, "--data '%s/data'", tu_srcdir()); /* v3, shipped */
    use_method(2);
    run_ok("simulate", tu_gpuidx(dir, "simulate --days 70 --seed 11 --out m"));
    /* the last day (2025-03-11) apart, as a daily job gets it */
    const char *split =
        "for k in offers trades; do awk -F, -v y=year-$k.csv -v t=day-$k.csv"
        " 'NR == 1 { print > y; print > t; next }"
        " substr($3, 1, 10) == \"2025-03-11\" { print > t; next } { print > y }' m/$k.csv; done";
    run_ok("split", tu_sh(dir, "%s", split));
    run_ok("ingest offers", tu_gpuidx(dir, "--db y.db %s ingest offers --admit-providers "
                                           "year-offers.csv", data_opt));
    run_ok("ingest trades", tu_gpuidx(dir, "--db y.db %s ingest trades --admit-providers "
                                           "year-trades.csv", data_opt));
    run_ok("build", tu_gpuidx(dir, "--db y.db %s index build --from 2025-01-01 --to 2025-03-10",
                              data_opt));
    /* the same year under the shipped v3 grades */
    use_method(3);
    run_ok("ingest offers v3", tu_gpuidx(dir, "--db y3.db %s ingest offers --admit-providers "
                                              "year-offers.csv", data_opt));
    run_ok("ingest trades v3", tu_gpuidx(dir, "--db y3.db %s ingest trades --admit-providers "
                                              "year-trades.csv", data_opt));
    run_ok("build v3", tu_gpuidx(dir, "--db y3.db %s index build --from 2025-01-01 --to "
                                      "2025-03-10", data_opt));
    /* (a state's format: v2's chain 1, v3's panel 4, with the month's manipulation figures) */
    run_ok("v3 states", tu_sh(dir, "test \"$(sqlite3 y3.db 'SELECT DISTINCT format FROM "
                                   "chain_states')\" = 4"));
    use_method(2);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(dir);
    return 0;
}

/* The day ingested into a copy of the year (db); with drop, after
 * deleting every chain state. */
static void ingest_day(const char *db, int drop)
{
    run_ok("copy", tu_sh(dir, "rm -rf %s* pub-%s pub2-%s && cp %s %s", db, db, db, year_db, db));
    if (drop) run_ok("drop", tu_sh(dir, "sqlite3 %s 'DELETE FROM chain_states'", db));
    run_ok("ingest day offers", tu_gpuidx(dir, "--db %s %s ingest offers --admit-providers "
                                               "day-offers.csv", db, data_opt));
    run_ok("ingest day trades", tu_gpuidx(dir, "--db %s %s ingest trades --admit-providers "
                                               "day-trades.csv", db, data_opt));
}

/* The day built at cut-off as_of and published to pub-DB; then, after
 * deleting the chain states when drop, published again to pub2-DB.
 * Returns the build's summary (stderr). */
static char *build_publish(const char *db, const char *as_of, int drop)
{
    tu_run r = tu_gpuidx(dir, "--db %s %s index build --from 2025-03-11 --to 2025-03-11"
                              " --as-of %s", db, data_opt, as_of);
    if (r.status != 0) fail_msg("build: %s", r.err);
    char *out = r.err; /* the summary lines */
    r.err = NULL;
    tu_run_free(&r);
    run_ok("publish", tu_gpuidx(dir, "--db %s %s index publish --date 2025-03-11 --out pub-%s",
                                db, data_opt, db));
    if (drop) run_ok("drop", tu_sh(dir, "sqlite3 %s 'DELETE FROM chain_states'", db));
    run_ok("publish again", tu_gpuidx(dir, "--db %s %s index publish --date 2025-03-11"
                                           " --out pub2-%s", db, data_opt, db));
    return out;
}

/* "N observations read" of a build's summary line. */
static long reads(const char *out)
{
    const char *p = strstr(out, " observations read");
    if (!p) fail_msg("no observation count in: %s", out);
    while (p > out && p[-1] >= '0' && p[-1] <= '9') p--;
    return strtol(p, NULL, 10);
}

static void state_or_replay_same_bytes(void)
{
    ingest_day("s.db", 0);
    ingest_day("r.db", 1);
    char as_of[21];
    tu_next_second(as_of); /* after both days' batches */
    char *with = build_publish("s.db", as_of, 0), *without = build_publish("r.db", as_of, 1);
    /* the same rows (index show) and files, whether the day and its
     * publication started from the states or replayed */
    run_ok("show s", tu_gpuidx(dir, "--db s.db %s index show --from 2025-03-01 > show-s.csv",
                               data_opt));
    run_ok("show r", tu_gpuidx(dir, "--db r.db %s index show --from 2025-03-01 > show-r.csv",
                               data_opt));
    run_ok("same rows", tu_sh(dir, "cmp show-s.csv show-r.csv"));
    /* (index.json of file format 4 states when each file was ingested: the
     * two databases ingested the day's files at their own seconds) */
    run_ok("same files",
           tu_sh(dir, "for t in pub-s.db pub-r.db pub2-r.db pub2-s.db; do"
                      " sed -E 's/\"ingested_at\":\"[^\"]*\"/\"ingested_at\":\"T\"/g'"
                      " $t/2025-03-11/index.json > $t.json || exit 1; done &&"
                      " cmp pub-s.db.json pub-r.db.json && cmp pub-s.db.json pub2-r.db.json &&"
                      " cmp pub-s.db.json pub2-s.db.json &&"
                      " diff -r -x index.json pub-s.db pub-r.db && diff -r -x index.json pub-s.db"
                      " pub2-r.db && diff -r pub-s.db pub2-s.db"));
    run_ok("files there", tu_sh(dir, "test -s pub-s.db/2025-03-11/observations.csv"));
    /* the day's observations: the build from the states read those only */
    tu_run r = tu_sh(dir, "sqlite3 s.db \"SELECT count(*) FROM observations WHERE day ="
                          " CAST(strftime('%%s', '2025-03-11') AS INTEGER) / 86400\"");
    long day_n = strtol(r.out, NULL, 10);
    tu_run_free(&r);
    assert_true(day_n > 100);
    assert_int_equal(reads(with), day_n);
    assert_true(reads(without) > 10 * day_n); /* from the anchor's window before 1 March */
    free(with);
    free(without);
}

/* The state of grade `id` after 2025-03-10 in db: its bytes; with
 * flip >= 0, that bit of the state itself (past the seal, when there is
 * one) flipped and stored back, with flip < -1 bit -flip counted back
 * from the state's end; with other, grade `other`'s state stored in its
 * place. */
static void tamper_state(const char *db, const char *id, long flip, const char *other)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, db);
    sqlite3 *h = NULL;
    sqlite3_stmt *s = NULL;
    const char *get = "SELECT c.state, c.grade_hash FROM chain_states c JOIN grades g ON g.hash ="
                      " c.grade_hash WHERE g.id = ?1 AND c.day = CAST(strftime('%s', '2025-03-10')"
                      " AS INTEGER) / 86400";
    if (sqlite3_open(path, &h) != SQLITE_OK || sqlite3_prepare_v2(h, get, -1, &s, NULL) != SQLITE_OK)
        fail_msg("%s: %s", path, sqlite3_errmsg(h));
    sqlite3_bind_text(s, 1, other ? other : id, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_ROW) fail_msg("no state of %s", other ? other : id);
    int n = sqlite3_column_bytes(s, 0);
    unsigned char *b = malloc((size_t)n);
    memcpy(b, sqlite3_column_blob(s, 0), (size_t)n);
    sqlite3_finalize(s);
    if (sqlite3_prepare_v2(h, get, -1, &s, NULL) != SQLITE_OK) fail_msg("%s", sqlite3_errmsg(h));
    sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_ROW) fail_msg("no state of %s", id);
    char hash[80];
    snprintf(hash, sizeof hash, "%s", (const char *)sqlite3_column_text(s, 1));
    sqlite3_finalize(s);
    int sealed = n > 8 && memcmp(b, "gpuidxCS", 8) == 0;
    if (flip >= 0) {
        long at = (sealed ? 128 : 0) + flip / 8;
        assert_true(at < n);
        b[at] ^= (unsigned char)(1u << (flip % 8));
    } else if (flip < -1) {
        long at = n - (sealed ? 64 : 0) - 1 - (-flip) / 8;
        assert_true(at >= 0);
        b[at] ^= (unsigned char)(1u << ((-flip) % 8));
    }
    if (sqlite3_prepare_v2(h, "UPDATE chain_states SET state = ?1 WHERE grade_hash = ?2 AND day ="
                              " CAST(strftime('%s', '2025-03-10') AS INTEGER) / 86400",
                           -1, &s, NULL) != SQLITE_OK)
        fail_msg("%s", sqlite3_errmsg(h));
    sqlite3_bind_blob(s, 1, b, n, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, hash, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_DONE || sqlite3_changes(h) != 1) fail_msg("%s", sqlite3_errmsg(h));
    sqlite3_finalize(s);
    sqlite3_close(h);
    free(b);
}

static void damaged_or_foreign_state_refused(void)
{
    ingest_day("r.db", 1);
    char as_of[21];
    tu_next_second(as_of);
    free(build_publish("r.db", as_of, 1));
    run_ok("show r", tu_gpuidx(dir, "--db r.db %s index show --from 2025-03-01 > show-r.csv",
                               data_opt));
    static const struct {
        int method;
        const char *what, *grade, *other;
        long flip; /* the bit of the state flipped, or -1 */
        const char *warns;
    } cases[] = {
        /* bit 24 of the chain's value in nano-dollars (the state's fourth
         * number: index/chain_state.c): 0.0168 on the next day's value */
        {2, "a flipped bit", "H100-SXM.OD", NULL, 3 * 64 + 24,
         "warning: index build: grade H100-SXM.OD: the stored chain state after 2025-03-10 is "
         "refused (its checksum does not match (the bytes are damaged)); the chain is replayed "
         "from"},
        {2, "H200.OD's state filed under H100-SXM.OD", "H100-SXM.OD", "H200.OD", -1,
         "warning: index build: grade H100-SXM.OD: the stored chain state after 2025-03-10 is "
         "refused (it is the state of grade definition "},
        /* v3: bit 44 of the log index (index/v3_state.c: the seventh
         * number from the state's end), the day's price index */
        {3, "a flipped bit", "H100-SXM.OD", NULL, -(6 * 64 + 63 - 44),
         "warning: index build: grade H100-SXM.OD: the stored panel state after 2025-03-10 is "
         "refused (its checksum does not match (the bytes are damaged)); the panel is replayed "
         "from 2025-01-01"},
        {3, "H200.OD's state filed under H100-SXM.OD", "H100-SXM.OD", "H200.OD", -1,
         "warning: index build: grade H100-SXM.OD: the stored panel state after 2025-03-10 is "
         "refused (it is the state of grade definition "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].method != method) continue;
        ingest_day("x.db", 0);
        tamper_state("x.db", cases[i].grade, cases[i].flip, cases[i].other);
        char x_as_of[21]; /* after x.db's batches: its rows are not older than them */
        tu_next_second(x_as_of);
        char *err = build_publish("x.db", x_as_of, 0);
        run_ok("show x", tu_gpuidx(dir, "--db x.db %s index show --from 2025-03-01 > show-x.csv",
                                   data_opt));
        /* (index.json of file format 4 states when each file was ingested
         * and each row's cut-off: each database's own seconds) */
        tu_run r = tu_sh(dir, "cmp show-r.csv show-x.csv && for t in pub-r.db pub-x.db; do"
                              " sed -E 's/\"(ingested_at|cut_off)\":\"[^\"]*\"/\"\\1\":\"T\"/g'"
                              " $t/2025-03-11/index.json > $t.json || exit 1; done &&"
                              " cmp pub-r.db.json pub-x.db.json &&"
                              " diff -r -x index.json pub-r.db pub-x.db");
        if (r.status != 0)
            fail_msg("%s: the rows or files differ from the replay's:\n%s%s", cases[i].what,
                     r.out, r.err);
        tu_run_free(&r);
        if (!strstr(err, cases[i].warns))
            fail_msg("%s: the build does not say it replays:\n%s", cases[i].what, err);
        free(err);
    }
}

/* Equal builds store equal state bytes: the year built in one go, built
 * in pieces (day by day at the end: each day resumes from the state
 * before), and with the files ingested in the other order, all at one
 * cut-off. */
static void state_bytes_deterministic(void)
{
    const char *steps[] = {
        "rm -rf d1.db* d2.db* d3.db* && for k in 1 2; do for f in offers trades; do "
        "\"$GPUIDX_BIN\" --db d$k.db --data \"$DATA\" ingest $f --admit-providers year-$f.csv "
        ">/dev/null 2>&1 || exit 1; done; done && for f in trades offers; do "
        "\"$GPUIDX_BIN\" --db d3.db --data \"$DATA\" ingest $f --admit-providers year-$f.csv "
        ">/dev/null 2>&1 || exit 1; done",
        "T=$(sqlite3 d3.db 'SELECT max(ingested_at) + 1 FROM batches') && "
        "A=$(date -u -d @$T +%Y-%m-%dT%H:%M:%SZ) && sleep 1.1 && "
        "for k in 1 3; do \"$GPUIDX_BIN\" --db d$k.db --data \"$DATA\" index build --from "
        "2025-01-01 --to 2025-03-10 --as-of $A 2>/dev/null || exit 1; done && "
        "\"$GPUIDX_BIN\" --db d2.db --data \"$DATA\" index build --from 2025-01-01 --to 2025-03-05 "
        "--as-of $A 2>/dev/null && for d in 06 07 08 09 10; do \"$GPUIDX_BIN\" --db d2.db --data "
        "\"$DATA\" index build --from 2025-03-$d --to 2025-03-$d --as-of $A 2>/dev/null || "
        "exit 1; done",
        "for k in 1 2 3; do sqlite3 d$k.db \"SELECT grade_hash, day, as_of, format, hex(state) "
        "FROM chain_states WHERE day = CAST(strftime('%s', '2025-03-10') AS INTEGER) / 86400 "
        "ORDER BY 1\" > states$k.txt; done && test $(wc -l < states1.txt) -ge 8 && "
        "cmp states1.txt states2.txt && cmp states1.txt states3.txt"};
    char env[4300];
    snprintf(env, sizeof env, "%s/data", method == 3 ? tu_srcdir() : dir);
    setenv("DATA", env, 1);
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    /* the states compared are the method's (format: v2's chain 1, v3's 4) */
    r = tu_sh(dir, "sqlite3 d1.db 'SELECT DISTINCT format FROM chain_states'");
    char want[8];
    snprintf(want, sizeof want, "%d\n", method == 3 ? 4 : 1);
    assert_string_equal(r.out, want);
    tu_run_free(&r);
}

static void test_state_or_replay_same_bytes_v2(void **state)
{
    (void)state;
    use_method(2);
    state_or_replay_same_bytes();
}

static void test_state_or_replay_same_bytes_v3(void **state)
{
    (void)state;
    use_method(3);
    state_or_replay_same_bytes();
}

static void test_damaged_or_foreign_state_refused_v2(void **state)
{
    (void)state;
    use_method(2);
    damaged_or_foreign_state_refused();
}

static void test_damaged_or_foreign_state_refused_v3(void **state)
{
    (void)state;
    use_method(3);
    damaged_or_foreign_state_refused();
}

static void test_state_bytes_deterministic_v2(void **state)
{
    (void)state;
    use_method(2);
    state_bytes_deterministic();
}

static void test_state_bytes_deterministic_v3(void **state)
{
    (void)state;
    use_method(3);
    state_bytes_deterministic();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_or_replay_same_bytes_v2),
        cmocka_unit_test(test_state_or_replay_same_bytes_v3),
        cmocka_unit_test(test_damaged_or_foreign_state_refused_v2),
        cmocka_unit_test(test_damaged_or_foreign_state_refused_v3),
        cmocka_unit_test(test_state_bytes_deterministic_v2),
        cmocka_unit_test(test_state_bytes_deterministic_v3),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
