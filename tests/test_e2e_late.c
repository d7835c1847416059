/* tests/test_e2e_late.c -- late data is named, never silent (issue 31
 * item 2; METHODOLOGY.md §6.3, publish/late.c).
 *
 * The daily job on a demo market (30 days, the shipped grades as
 * methodology v2, and the same grades as v1): days 2025-01-18..22 built
 * and published day by day; then half of 2025-01-20's trades arrive late,
 * with the files of 2025-01-23.  Before issue 31, neither the build nor
 * the publication of the 23rd mentioned the 20th (it stayed as first
 * published), and after restating it and publishing every day again
 * `verify` still failed: later days whose value did not move kept a
 * chain_prev of the 20th's old chain, and no command published them.
 * Now:
 *   - the build of the 23rd builds again from the 20th (saying so) and
 *     names every published day whose rows changed, with the restatement
 *     publishing it again would make;
 *   - `index publish --date 2025-01-23` refuses: its rows are computed
 *     from rows of the 20th..22nd not published as they stand, and the
 *     message gives the command;
 *   - `index publish --date 2025-01-23 --restate` publishes the 20th
 *     (restated, a new vintage), the 21st and 22nd (new vintages: their
 *     rows changed, their values did not) and the 23rd, in one command;
 *   - `gpuidx verify` then passes on every vintage of every day (the
 *     documented procedure; v1 and v2 alike);
 *   - a day never published whose rows were built before late data is
 *     refused by `publish --date` with the command to build it again (it
 *     used to be published as vintage 1, the value futures settle on).
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void expect_has(const char *what, const char *text, const char *want)
{
    if (!strstr(text, want)) fail_msg("%s: no \"%s\" in\n%s", what, want, text);
}

/* The market and its data folder (the shipped tables; the grades of
 * methodology v: 3 the shipped ones, 2 those shipped before v3
 * (tests/fixtures/grades_v2.json), 1 the same as methodology v1); the
 * year's files split: day files of 2025-01-23, late.csv (every second
 * trade of 2025-01-20). */
static char *market(const char *tag, int v)
{
    char *dir = tu_mkdtemp(tag);
    const char *steps[] = {
        "mkdir data && cp \"$SRC\"/data/*.csv data/ && "
        "if [ \"$V\" = 1 ]; then sed -e 's/\"method\": \"v2\"/\"method\": \"v1\"/' "
        "-e 's/\"version\": 2/\"version\": 1/' \"$SRC\"/tests/fixtures/grades_v2.json > "
        "data/grades.json; elif [ \"$V\" = 2 ]; then cp \"$SRC\"/tests/fixtures/grades_v2.json "
        "data/grades.json; else cp \"$SRC\"/data/grades.json data/; fi && "
        "grep -q \"\\\"method\\\": \\\"v$V\\\"\" data/grades.json",
        "\"$GPUIDX_BIN\" simulate --days 30 --seed 7 --out m >/dev/null",
        "awk -F, 'NR == 1 { print > \"tr.csv\"; print > \"late.csv\"; next } "
        "substr($3, 1, 10) == \"2025-01-20\" && NR % 2 == 0 { print > \"late.csv\"; next } "
        "{ print > \"tr.csv\" }' m/trades.csv",
        "for k in offers tr; do f=m/$k.csv; [ $k = tr ] && f=tr.csv; "
        "awk -F, 'NR == 1 || substr($3, 1, 10) <= \"2025-01-22\"' $f > $k-1.csv; "
        "awk -F, 'NR == 1 || substr($3, 1, 10) == \"2025-01-23\"' $f > $k-2.csv; done",
        "G() { \"$GPUIDX_BIN\" --db t.db --data data \"$@\"; }; "
        "G ingest offers --admit-providers offers-1.csv && "
        "G ingest trades --admit-providers tr-1.csv && "
        "G index build --from 2025-01-01 --to 2025-01-17 && "
        "for d in 18 19 20 21 22; do G index build --from 2025-01-$d --to 2025-01-$d && "
        "G index publish --date 2025-01-$d --out pub || exit 1; done",
    };
    char env[4400];
    snprintf(env, sizeof env, "SRC='%s' V=%d; export SRC V; ", tu_srcdir(), v);
    char *buf[N(steps)];
    for (size_t i = 0; i < N(steps); i++) {
        size_t n = strlen(env) + strlen(steps[i]) + 1;
        buf[i] = malloc(n);
        snprintf(buf[i], n, "%s%s", env, steps[i]);
    }
    tu_run r = tu_sh_all(dir, (const char *const *)buf, N(steps));
    tu_run_free(&r);
    for (size_t i = 0; i < N(steps); i++) free(buf[i]);
    /* the late file and the next day's files come in a later second */
    tu_next_second(NULL);
    r = tu_gpuidx(dir, "--db t.db --data data ingest trades --admit-providers late.csv "
                       "tr-2.csv && \"$GPUIDX_BIN\" --db t.db --data data ingest offers "
                       "--admit-providers offers-2.csv");
    if (r.status != 0) fail_msg("late ingest: %s", r.err);
    tu_run_free(&r);
    return dir;
}

static void daily_job_after_late_data(int v)
{
    char tag[32];
    snprintf(tag, sizeof tag, "e2e-late-v%d", v);
    char *dir = market(tag, v);
    /* the build of the 23rd builds again from the 20th and names it */
    tu_run r = tu_gpuidx(dir, "--db t.db --data data index build --from 2025-01-23 "
                              "--to 2025-01-23");
    if (r.status != 0) fail_msg("build: %s", r.err);
    expect_has("build", r.err, "index build: 2025-01-20 (published, vintage 1) was built before "
                               "late data reached it (");
    expect_has("build", r.err, "): building from 2025-01-20\n");
    expect_has("build", r.err, "index build: 2025-01-20..2025-01-23: 4 days");
    expect_has("build", r.err, "warning: index build: 2025-01-20 (published, vintage 1) is not "
                               "its built rows; publishing it again: ");
    expect_has("build", r.err, " restated ");
    expect_has("build", r.err, "(value moved by ");
    expect_has("build", r.err, " (gpuidx index publish --restate --out DIR)\n");
    tu_run_free(&r);
    /* the day's publication alone is refused, naming the days and the command */
    r = tu_gpuidx(dir, "--db t.db --data data index publish --date 2025-01-23 --out pub");
    assert_int_equal(r.status, 1);
    expect_has("publish", r.err, "gpuidx: publish: 2025-01-23: its rows are computed from rows of "
                                 "2025-01-20");
    expect_has("publish", r.err, "that are not published as they stand (late data); publish ");
    expect_has("publish", r.err, " first: gpuidx index publish --restate --out DIR (or add "
                                 "--restate to this command)\n");
    tu_run_free(&r);
    /* the daily job with --restate: one command */
    r = tu_gpuidx(dir, "--db t.db --data data index publish --date 2025-01-23 --out pub "
                       "--restate");
    if (r.status != 0) fail_msg("publish --restate: %s", r.err);
    expect_has("restate", r.err, "index publish: 2025-01-20 vintage 2 (new; ");
    expect_has("restate", r.err, "in pub/2025-01-20 (--restate)\n");
    expect_has("restate", r.err, "index publish: 2025-01-23 vintage 1 (new; ");
    assert_null(strstr(r.err, "warning")); /* nothing left behind */
    tu_run_free(&r);
    r = tu_sh(dir, "grep -c '^2025-01-20,' pub/restatements.csv");
    assert_true(strtol(r.out, NULL, 10) >= 1);
    tu_run_free(&r);
    /* verify: every vintage of every day, no difference */
    r = tu_gpuidx(dir, "verify pub");
    if (r.status != 0 || !strstr(r.out, " 0 differ\n"))
        fail_msg("verify after the restatement: exit %d\n%s%s", r.status, r.out, r.err);
    expect_has("verify", r.out, "\n2025-01-20 v1 H100-SXM.OD: ok");
    expect_has("verify", r.out, "\n2025-01-20 H100-SXM.OD: ok");
    tu_run_free(&r);
    /* publishing again changes nothing and names nothing */
    r = tu_gpuidx(dir, "--db t.db --data data index publish --from 2025-01-18 --to 2025-01-23 "
                       "--out pub");
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.err, "(new;"));
    assert_null(strstr(r.err, "warning"));
    tu_run_free(&r);
    free(dir);
}

static void test_daily_job_late_data_v3(void **state)
{
    (void)state;
    daily_job_after_late_data(3);
}

static void test_daily_job_late_data_v2(void **state)
{
    (void)state;
    daily_job_after_late_data(2);
}

static void test_daily_job_late_data_v1(void **state)
{
    (void)state;
    daily_job_after_late_data(1);
}

/* Methodology v3: a row depends on every day before it (its panel's
 * membership, last prices and log index carry from the grade's first
 * observation: index/v3_store.c note 1), so late trades of a day six weeks
 * before the published days leave those days behind too.  v2's rule (the
 * chain since the rebalance period before) did not reach back that far:
 * the build of the 23rd named nothing, and the 20th..22nd stayed as built
 * before the late data.  Now the build names them, --restate publishes
 * them again (their values did not move: new vintages with the same
 * values), and verify passes. */
static void test_v3_late_data_weeks_back(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-late-v3-back");
    const char *steps[] = {
        "mkdir data && cp \"$SRC\"/data/*.csv \"$SRC\"/data/grades.json data/ && "
        "grep -q '\"method\": \"v3\"' data/grades.json",
        "\"$GPUIDX_BIN\" simulate --days 60 --seed 7 --out m >/dev/null",
        "awk -F, 'NR == 1 { print > \"tr.csv\"; print > \"late.csv\"; next } "
        "substr($3, 1, 10) == \"2025-01-10\" && NR % 2 == 0 { print > \"late.csv\"; next } "
        "{ print > \"tr.csv\" }' m/trades.csv",
        "for k in offers tr; do f=m/$k.csv; [ $k = tr ] && f=tr.csv; "
        "awk -F, 'NR == 1 || substr($3, 1, 10) <= \"2025-02-22\"' $f > $k-1.csv; "
        "awk -F, 'NR == 1 || substr($3, 1, 10) == \"2025-02-23\"' $f > $k-2.csv; done",
        "G() { \"$GPUIDX_BIN\" --db t.db --data data \"$@\"; }; "
        "G ingest offers --admit-providers offers-1.csv 2>/dev/null && "
        "G ingest trades --admit-providers tr-1.csv 2>/dev/null && "
        "G index build --from 2025-01-01 --to 2025-02-19 2>/dev/null && "
        "for d in 20 21 22; do G index build --from 2025-02-$d --to 2025-02-$d 2>/dev/null && "
        "G index publish --date 2025-02-$d --out pub 2>/dev/null || exit 1; done",
    };
    char env[4400];
    snprintf(env, sizeof env, "SRC='%s'; export SRC; ", tu_srcdir());
    char *buf[N(steps)];
    for (size_t i = 0; i < N(steps); i++) {
        size_t n = strlen(env) + strlen(steps[i]) + 1;
        buf[i] = malloc(n);
        snprintf(buf[i], n, "%s%s", env, steps[i]);
    }
    tu_run r = tu_sh_all(dir, (const char *const *)buf, N(steps));
    tu_run_free(&r);
    for (size_t i = 0; i < N(steps); i++) free(buf[i]);
    tu_next_second(NULL);
    r = tu_gpuidx(dir, "--db t.db --data data ingest trades --admit-providers late.csv "
                       "tr-2.csv && \"$GPUIDX_BIN\" --db t.db --data data ingest offers "
                       "--admit-providers offers-2.csv");
    if (r.status != 0) fail_msg("late ingest: %s", r.err);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db --data data index build --from 2025-02-23 --to 2025-02-23");
    if (r.status != 0) fail_msg("build: %s", r.err);
    expect_has("build", r.err, "index build: 2025-02-20 (published, vintage 1) was built before "
                               "late data reached it (");
    expect_has("build", r.err, "): building from 2025-02-20\n");
    expect_has("build", r.err, "warning: index build: 2025-02-22 (published, vintage 1) is not "
                               "its built rows; publishing it again: ");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db --data data index publish --date 2025-02-23 --out pub");
    assert_int_equal(r.status, 1);
    expect_has("publish", r.err, "gpuidx: publish: 2025-02-23: its rows are computed from rows of "
                                 "2025-02-20, 2025-02-21, 2025-02-22 that are not published as "
                                 "they stand (late data)");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db --data data index publish --date 2025-02-23 --out pub "
                       "--restate");
    if (r.status != 0) fail_msg("publish --restate: %s", r.err);
    expect_has("restate", r.err, "index publish: 2025-02-20 vintage 2 (new; ");
    expect_has("restate", r.err, "index publish: 2025-02-22 vintage 2 (new; ");
    expect_has("restate", r.err, "index publish: 2025-02-23 vintage 1 (new; ");
    assert_null(strstr(r.err, "warning: index"));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify pub");
    if (r.status != 0 || !strstr(r.out, " 0 differ\n"))
        fail_msg("verify after the restatement: exit %d\n%s%s", r.status, r.out, r.err);
    expect_has("verify", r.out, "\n2025-02-20 v1 H100-SXM.OD: ok");
    expect_has("verify", r.out, "\n2025-02-23 H100-SXM.OD: ok");
    tu_run_free(&r);
    /* the rows of the days between, built but never published, are
     * refused until built again */
    r = tu_gpuidx(dir, "--db t.db --data data index publish --date 2025-02-01 --out pub");
    assert_int_equal(r.status, 1);
    expect_has("publish of a stale unpublished day", r.err,
               "gpuidx: publish: 2025-02-01: its rows were built before late data reached it");
    tu_run_free(&r);
    free(dir);
}

/* A day built, not published, then reached by late data: its publication
 * is refused with the command that builds it again (it used to publish
 * the stale row as vintage 1, the value futures settle on). */
static void test_unpublished_stale_day_refused(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-late-unpublished");
    const char *steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 25 --seed 5 --out m >/dev/null",
        "awk -F, 'NR == 1 { print > \"tr.csv\"; print > \"late.csv\"; next } "
        "substr($3, 1, 10) == \"2025-01-20\" && NR % 2 == 0 { print > \"late.csv\"; next } "
        "{ print > \"tr.csv\" }' m/trades.csv",
        "\"$GPUIDX_BIN\" --db t.db ingest offers --admit-providers m/offers.csv 2>/dev/null && "
        "\"$GPUIDX_BIN\" --db t.db ingest trades --admit-providers tr.csv 2>/dev/null && "
        "\"$GPUIDX_BIN\" --db t.db index build --from 2025-01-01 --to 2025-01-21 2>/dev/null && "
        "\"$GPUIDX_BIN\" --db t.db index publish --date 2025-01-19 --out pub 2>/dev/null",
    };
    tu_run r = tu_sh_all(dir, steps, N(steps));
    tu_run_free(&r);
    tu_next_second(NULL);
    r = tu_gpuidx(dir, "--db t.db ingest trades --admit-providers late.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db index publish --date 2025-01-20 --out pub");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: publish: 2025-01-20: its rows were built before late "
                               "data reached it (a file ingested after them holds observations "
                               "it depends on); build it again first: gpuidx index build --from "
                               "2025-01-20 --to 2025-01-20\n");
    tu_run_free(&r);
    r = tu_sh(dir, "test -e pub/2025-01-20 && echo published");
    assert_string_equal(r.out, "");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db index build --from 2025-01-20 --to 2025-01-20");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db index publish --date 2025-01-20 --out pub");
    if (r.status != 0) fail_msg("publish after the build: %s", r.err);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify pub");
    if (r.status != 0) fail_msg("verify: %s%s", r.out, r.err);
    tu_run_free(&r);
    free(dir);
}

/* Days published out of order: the 20th, then the 19th.  The 20th's
 * chain was computed from the 19th's rows, published after it: verify
 * checks it against the 19th as first published (verify/vintage.c note
 * 1), and the 19th's link says the 20th was not published before it. */
static void test_out_of_order_publication(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-late-order");
    const char *steps[] = {
        "\"$GPUIDX_BIN\" simulate --days 21 --seed 5 --out m >/dev/null",
        "\"$GPUIDX_BIN\" --db t.db ingest offers --admit-providers m/offers.csv 2>/dev/null && "
        "\"$GPUIDX_BIN\" --db t.db ingest trades --admit-providers m/trades.csv 2>/dev/null && "
        "\"$GPUIDX_BIN\" --db t.db index build --from 2025-01-01 --to 2025-01-21 2>/dev/null && "
        "\"$GPUIDX_BIN\" --db t.db index publish --date 2025-01-20 --out pub 2>/dev/null && "
        "\"$GPUIDX_BIN\" --db t.db index publish --date 2025-01-19 --out pub 2>/dev/null",
    };
    tu_run r = tu_sh_all(dir, steps, N(steps));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify pub");
    if (r.status != 0) fail_msg("verify: %s%s", r.out, r.err);
    assert_null(strstr(r.out, "2025-01-20 H100-SXM.OD: ok; chain_prev not verifiable"));
    expect_has("verify", r.out, "\n2025-01-20 H100-SXM.OD: ok");
    tu_run_free(&r);
    /* a folder holding only the latest day: the day its link names is
     * before the folder's first one, said not verifiable (--strict fails);
     * inside the range a missing day is a deleted one */
    r = tu_gpuidx(dir, "--db t.db index publish --date 2025-01-21 --out pub 2>/dev/null && "
                       "mkdir -p last && cp -r pub/2025-01-21 last/");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify last");
    if (r.status != 0) fail_msg("verify last: %s%s", r.out, r.err);
    expect_has("verify last", r.out, "2025-01-21: ok; previous_day 2025-01-20 (vintage 1) not "
                                     "verifiable without last/2025-01-20\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify --strict last");
    assert_int_equal(r.status, 1);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify pub && rm -r pub/2025-01-20 && \"$GPUIDX_BIN\" verify pub");
    assert_int_equal(r.status, 1);
    expect_has("verify, the 20th deleted", r.out,
               "2025-01-21: DIFFERS previous_day: pub/2025-01-20 is missing (this vintage links "
               "to its vintage 1: a published day deleted)");
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_daily_job_late_data_v3),
        cmocka_unit_test(test_daily_job_late_data_v2),
        cmocka_unit_test(test_daily_job_late_data_v1),
        cmocka_unit_test(test_v3_late_data_weeks_back),
        cmocka_unit_test(test_unpublished_stale_day_refused),
        cmocka_unit_test(test_out_of_order_publication),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
