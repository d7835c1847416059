/* tests/test_e2e_fresh.c -- fresh inputs end to end: a grade's
 * max_unchanged_days applied by `index build` (METHODOLOGY.md §1.3, §12.1;
 * index/fresh.c), published, verified, and checked against the raw file.
 *
 * A market of 20 days and four providers: aaa quotes the same two prices
 * every day (a feed carried forward), bbb, ccc and ddd change theirs every
 * day.  With "max_unchanged_days": 5, aaa's offers are fresh on days 1-6
 * (their price has stood 0..5 days) and excluded from day 7 on, listed as
 * "price unchanged longer than max_unchanged_days".
 *   - v1: the value of day 10 is the median of bbb's, ccc's and ddd's
 *     prices, not of the four providers' (aaa enters without the
 *     parameter);
 *   - v3: aaa never joins the panel (never 7 fresh days in a row) and its
 *     lines are excluded with the reason;
 *   - both verify from their files and against the raw file (verify
 *     --inputs); a publication from a database whose aaa history was cut
 *     (so aaa looks fresh and enters the fix) verifies from its files and
 *     fails --inputs, naming aaa's line;
 *   - a v2 grade that sets it is refused with the reason;
 *   - the grade lab's coverage with fresh inputs (`grades stale`) is the
 *     build's offers days.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static void ok(tu_run *r, const char *what)
{
    if (r->status != 0) fail_msg("%s: exit %d: %.3000s%.3000s", what, r->status, r->out, r->err);
    tu_run_free(r);
}

#define HAS(r, stream, want)                                                                       \
    do {                                                                                           \
        if (!strstr((r).stream, (want)))                                                           \
            fail_msg("lacks \"%s\" in:\n%.4000s\n%.2000s", (want), (r).out, (r).err);            \
    } while (0)

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-fresh");
    char path[4200];
    snprintf(path, sizeof path, "%s/raw", dir);
    tu_run r = tu_sh(dir, "mkdir raw data && cp \"%s\"/data/*.csv data/", tu_srcdir());
    if (r.status != 0) return -1;
    tu_run_free(&r);
    snprintf(path, sizeof path, "%s/raw/f.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("kind,id,observed_at,source,provider,region,gpu,price\n", f);
    for (int d = 1; d <= 20; d++) {
        fprintf(f, "offer,a1,2025-05-%02dT08:00:00Z,feed,aaa,us,H100,2.0000\n", d);
        fprintf(f, "offer,a2,2025-05-%02dT08:00:00Z,feed,aaa,us,H100,2.0000\n", d);
        fprintf(f, "offer,b1,2025-05-%02dT08:00:00Z,feed,bbb,us,H100,2.10%02d\n", d, d);
        fprintf(f, "offer,c1,2025-05-%02dT08:00:00Z,feed,ccc,us,H100,2.20%02d\n", d, d);
        fprintf(f, "offer,d1,2025-05-%02dT08:00:00Z,feed,ddd,us,H100,2.30%02d\n", d, d);
    }
    fclose(f);
    free(tu_write(dir, "g.json",
                  "{\"grades\": [{\"id\": \"F1\", \"gpu\": [\"H100\"], \"max_unchanged_days\": 5},"
                  " {\"id\": \"F3\", \"gpu\": [\"H100\"], \"method\": \"v3\","
                  " \"max_unchanged_days\": 5},"
                  " {\"id\": \"A1\", \"gpu\": [\"H100\"]}]}\n"));
    r = tu_sh(dir, "\"$GPUIDX_BIN\" --db f.db --data data ingest offers --admit-providers raw/f.csv");
    if (r.status != 0) return -1;
    tu_run_free(&r);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(dir);
    return 0;
}

static void test_build_applies_it(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(dir, "--db f.db --data data index build --grades g.json --from 2025-05-01"
                              " --to 2025-05-20");
    assert_int_equal(r.status, 0);
    HAS(r, err, "index build: F1: 20 days: trades 0, offers 20, carried 0, suspended 0\n");
    tu_run_free(&r);
    /* day 10: aaa's offers are excluded, the value is the median of bbb's,
     * ccc's and ddd's prices (2.1010, 2.2010, 2.3010 -> 2.2010); without the
     * rule, of four providers' medians (2.0000, 2.1010, 2.2010, 2.3010 ->
     * 2.1510) */
    r = tu_gpuidx(dir, "--db f.db index show --grade F1 --from 2025-05-10 --to 2025-05-10");
    HAS(r, out, "2025-05-10,F1,2.2010,offers,");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db f.db index show --grade A1 --from 2025-05-10 --to 2025-05-10");
    HAS(r, out, "2025-05-10,A1,2.1510,offers,");
    tu_run_free(&r);
    /* day 6: aaa's price has stood 5 days, still fresh: four providers */
    r = tu_gpuidx(dir, "--db f.db index show --grade F1 --from 2025-05-06 --to 2025-05-06");
    HAS(r, out, "2025-05-06,F1,2.1506,offers,");
    tu_run_free(&r);
    /* the lab's coverage with fresh inputs is the build's */
    r = tu_gpuidx(dir, "--db f.db --data data grades stale --grades g.json --from 2025-05-01"
                       " --to 2025-05-20");
    HAS(r, out, "F1: 20 days with offers; ");
    HAS(r, out, "days with enough providers: 20, 20 with only prices standing at most 5 days\n");
    tu_run_free(&r);
}

static void test_published_and_verified(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(dir, "--db f.db --data data index publish --grades g.json --from"
                              " 2025-05-01 --to 2025-05-20 --out p");
    ok(&r, "publish");
    /* aaa's lines of day 10: excluded, with the reason */
    r = tu_sh(dir, "grep -c '^2025-05-10,F1,offer,.*,aaa,aaa,.*,excluded,price unchanged longer"
                   " than max_unchanged_days,' p/2025-05-10/observations.csv");
    assert_string_equal(r.out, "2\n");
    tu_run_free(&r);
    r = tu_sh(dir, "grep -c '^2025-05-10,F3,offer,.*,aaa,aaa,.*,excluded,price unchanged longer"
                   " than max_unchanged_days,' p/2025-05-10/observations.csv");
    assert_string_equal(r.out, "2\n");
    tu_run_free(&r);
    /* the definition says so */
    r = tu_sh(dir, "grep -c 'max_unchanged_days' p/2025-05-10/index.json");
    assert_string_not_equal(r.out, "0\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify p");
    if (r.status != 0 || strstr(r.out, "DIFFERS")) fail_msg("verify:\n%s%s", r.out, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--data data verify --inputs raw p");
    if (r.status != 0 || strstr(r.out, "DIFFERS") || strstr(r.out, "; inputs:"))
        fail_msg("verify --inputs:\n%s%s", r.out, r.err);
    tu_run_free(&r);
}

static void test_forged_history_fails_inputs(void **state)
{
    (void)state;
    /* aaa's history before day 10 cut from the database: its offers look
     * new on day 10 and enter F1's fix; the files are consistent */
    tu_run r = tu_sh(dir,
                     "rm -f g.db* && \"$GPUIDX_BIN\" --db g.db --data data ingest offers"
                     " --admit-providers raw/f.csv >/dev/null 2>&1 && sqlite3 g.db \"DELETE FROM"
                     " observations WHERE day < 20218 AND profile IN (SELECT p.profile_id FROM"
                     " profiles p JOIN names n ON n.name_id = p.grp WHERE n.name = 'aaa')\" &&"
                     " \"$GPUIDX_BIN\" --db g.db --data data index build --grades g.json --from"
                     " 2025-05-10 --to 2025-05-10 >/dev/null 2>&1 && \"$GPUIDX_BIN\" --db g.db --data"
                     " data index publish --grades g.json --date 2025-05-10 --out q 2>/dev/null");
    ok(&r, "forge");
    r = tu_sh(dir, "grep -c '^2025-05-10,F1,offer,.*,aaa,aaa,.*,used,' q/2025-05-10/observations.csv");
    assert_string_equal(r.out, "2\n");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "verify q");
    if (r.status != 0 || strstr(r.out, "DIFFERS")) fail_msg("verify:\n%s%s", r.out, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--data data verify --inputs raw q");
    assert_int_equal(r.status, 1);
    HAS(r, out, "2025-05-10 F1: DIFFERS inputs: 2 eligible observations not published, first "
                "\"2025-05-10,F1,offer,");
    HAS(r, out, ",aaa,aaa,");
    HAS(r, out, "excluded,price unchanged longer than max_unchanged_days\"");
    tu_run_free(&r);
}

static void test_v2_refused(void **state)
{
    (void)state;
    free(tu_write(dir, "g2.json", "{\"grades\": [{\"id\": \"F2\", \"gpu\": [\"H100\"], \"method\":"
                                  " \"v2\", \"max_unchanged_days\": 5}]}\n"));
    tu_run r = tu_gpuidx(dir, "--db f.db --data data index build --grades g2.json --from"
                              " 2025-05-01 --to 2025-05-02");
    assert_int_equal(r.status, 1);
    HAS(r, err, "g2.json: grades[0].max_unchanged_days: not applied to methodology v2 (its matched"
                " sample would gain and lose offers as they age); use method v3 or v1, or evaluate"
                " it with `grades stale`\n");
    tu_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_applies_it),
        cmocka_unit_test(test_published_and_verified),
        cmocka_unit_test(test_forged_history_fails_inputs),
        cmocka_unit_test(test_v2_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
