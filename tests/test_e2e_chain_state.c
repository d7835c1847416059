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
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;
static char data_opt[4200];

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
    snprintf(data_opt, sizeof data_opt, "--data '%s/data'", dir);
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
    run_ok("copy", tu_sh(dir, "rm -rf %s* pub-%s pub2-%s && cp y.db %s", db, db, db, db));
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

static void test_state_or_replay_same_bytes(void **state)
{
    (void)state;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_or_replay_same_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
