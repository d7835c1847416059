/* tests/test_e2e_roles.c -- publication writes what the build stored
 * (index/roles.c, METHODOLOGY.md §5): a row's roles, through the binary.
 *
 * The demo market (gpuidx simulate, 40 days: fat fingers, cancelled and
 * affiliate trades, several snapshots of an offer a day) under three
 * published grade sets of data folders of the test's own: v1 (the grades
 * shipped before methodology v3 with method v1, the first with
 * max_unchanged_days 3, whose exclusions look back over earlier days), v2
 * (tests/fixtures/grades_v2.json: chains, anchors on the 1st) and v3 (the
 * shipped grades).
 *
 *  - Every built and every published row has its roles.
 *  - The same bytes both ways: the files of days published from the
 *    stored roles are those of a store taken back to schema 16 (no roles
 *    tables: the rows of an older store) that the binary migrates and
 *    publishes by fixing each day again and replaying each v2 chain.  A
 *    day built again in that store gets its roles.
 *  - What is published is what was stored: roles emptied in the store
 *    before a day is published (no exclusion, no matched member) publish
 *    no `excluded` line and no matched one; stored roles that are not
 *    well-formed stop the publication with exit 1 and say so.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

#define DAYS "2025-01-05 2025-01-14 2025-01-31 2025-02-01 2025-02-02 2025-02-09"

static void run_ok(const char *what, tu_run r)
{
    if (r.status != 0) fail_msg("%s: exit %d: %s", what, r.status, r.err);
    tu_run_free(&r);
}

/* cmd's output as a number (in braces: tu_sh gives the whole command
 * /dev/null for input, and so the last command of a pipe) */
static long sh_long(const char *cmd)
{
    tu_run r = tu_sh(dir, "{ %s; }", cmd);
    if (r.status != 0) fail_msg("%s: exit %d: %s", cmd, r.status, r.err);
    long v = strtol(r.out, NULL, 10);
    tu_run_free(&r);
    return v;
}

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-roles");
    run_ok("data",
           tu_sh(dir, "for m in 1 2 3; do mkdir d$m && cp '%s'/data/*.csv d$m/ || exit 1; done &&"
                      " cp '%s'/tests/fixtures/grades_v2.json d2/grades.json &&"
                      " cp '%s'/data/grades.json d3/grades.json &&"
                      " sed -e 's/\"method\": \"v2\"/\"method\": \"v1\"/'"
                      " -e '0,/\"method\": \"v1\"/s//\"method\": \"v1\", \"max_unchanged_days\": 3/'"
                      " d2/grades.json > d1/grades.json",
                 tu_srcdir(), tu_srcdir(), tu_srcdir()));
    run_ok("simulate", tu_gpuidx(dir, "simulate --days 40 --seed 11 --out m"));
    for (int m = 1; m <= 3; m++) {
        run_ok("ingest offers", tu_gpuidx(dir, "--db y%d.db --data d%d ingest offers "
                                               "--admit-providers m/offers.csv", m, m));
        run_ok("ingest trades", tu_gpuidx(dir, "--db y%d.db --data d%d ingest trades "
                                               "--admit-providers m/trades.csv", m, m));
        run_ok("build", tu_gpuidx(dir, "--db y%d.db --data d%d index build --from 2025-01-01 "
                                       "--to 2025-02-09", m, m));
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(dir);
    return 0;
}

/* The days of DAYS published from db (data folder m) into out. */
static void publish(const char *db, int m, const char *out)
{
    run_ok("publish", tu_sh(dir, "for d in " DAYS "; do \"$GPUIDX_BIN\" --db %s --data d%d index"
                                 " publish --date $d --out %s > /dev/null || exit 1; done",
                            db, m, out));
}

static void same_bytes(int m)
{
    char db[16], old[16], a[16], b[16];
    snprintf(db, sizeof db, "y%d.db", m);
    snprintf(old, sizeof old, "o%d.db", m);
    snprintf(a, sizeof a, "pa%d", m);
    snprintf(b, sizeof b, "pb%d", m);
    /* the store of an older version, taken before anything is published */
    run_ok("copy", tu_sh(dir, "cp %s %s && sqlite3 %s 'DROP TABLE index_roles;"
                              " DROP TABLE index_published_roles; PRAGMA user_version = 16'",
                         db, old, old));
    publish(db, m, a);
    char q[256];
    snprintf(q, sizeof q, "sqlite3 %s 'SELECT count(*) FROM index_values v JOIN index_roles r"
                          " USING (grade, day) WHERE r.roles IS NOT NULL'", db);
    long n = sh_long(q);
    assert_true(n >= 40 * 5);
    snprintf(q, sizeof q, "sqlite3 %s 'SELECT count(*) FROM index_values'", db);
    assert_int_equal(sh_long(q), n);
    snprintf(q, sizeof q, "sqlite3 %s 'SELECT count(*) FROM index_published p JOIN"
                          " index_published_roles r USING (day, vintage, grade)"
                          " WHERE r.roles IS NOT NULL'", db);
    n = sh_long(q);
    assert_true(n >= 6 * 5);
    snprintf(q, sizeof q, "sqlite3 %s 'SELECT count(*) FROM index_published'", db);
    assert_int_equal(sh_long(q), n);
    /* the older store: migrated (roles NULL), published the old way */
    publish(old, m, b);
    snprintf(q, sizeof q, "sqlite3 %s 'PRAGMA user_version'", old);
    assert_int_equal(sh_long(q), 17);
    snprintf(q, sizeof q, "sqlite3 %s 'SELECT count(*) FROM index_published_roles WHERE roles IS"
                          " NOT NULL'", old);
    assert_int_equal(sh_long(q), 0);
    run_ok("same files", tu_sh(dir, "diff -r %s %s", a, b));
    /* the lines say something: excluded observations, and (v2, v3)
     * matched prices */
    snprintf(q, sizeof q, "cat %s/*/observations.csv | grep -c ',excluded,'", a);
    assert_true(sh_long(q) > 0);
    if (m >= 2) {
        snprintf(q, sizeof q, "cat %s/*/observations.csv | awk -F, '$14 == 1' | wc -l", a);
        assert_true(sh_long(q) > 100);
    }
    if (m == 1) {
        snprintf(q, sizeof q, "cat %s/*/observations.csv | grep -c 'unchanged longer'", a);
        assert_true(sh_long(q) > 0);
    }
    /* a day built again in the older store gets its roles */
    run_ok("rebuild", tu_gpuidx(dir, "--db %s --data d%d index build --from 2025-02-09 --to "
                                     "2025-02-09", old, m));
    snprintf(q, sizeof q, "sqlite3 %s \"SELECT count(*) FROM index_roles WHERE day = 20128 AND"
                          " roles LIKE 'roles 1%%'\"", old);
    assert_true(sh_long(q) >= 5);
}

static void test_same_bytes_v1(void **state)
{
    (void)state;
    same_bytes(1);
}

static void test_same_bytes_v2(void **state)
{
    (void)state;
    same_bytes(2);
}

static void test_same_bytes_v3(void **state)
{
    (void)state;
    same_bytes(3);
}

/* Roles emptied before the day is published: nothing excluded, nothing
 * matched; in the v1 and v2 stores. */
static void test_published_roles_are_the_stored_ones(void **state)
{
    (void)state;
    for (int m = 1; m <= 2; m++) {
        run_ok("copy", tu_sh(dir, "rm -rf e%d.db* pe%d pf%d && cp y%d.db e%d.db && cp y%d.db "
                                  "f%d.db", m, m, m, m, m, m, m));
        run_ok("empty roles", tu_sh(dir, "sqlite3 e%d.db \"UPDATE index_roles SET roles ="
                                         " 'roles 1' || char(10) WHERE day = 20117\"", m));
        run_ok("publish", tu_gpuidx(dir, "--db e%d.db --data d%d index publish --date "
                                         "2025-01-29 --out pe%d", m, m, m));
        run_ok("publish", tu_gpuidx(dir, "--db f%d.db --data d%d index publish --date "
                                         "2025-01-29 --out pf%d", m, m, m));
        char q[200];
        snprintf(q, sizeof q, "grep -c ',excluded,' pf%d/2025-01-29/observations.csv", m);
        assert_true(sh_long(q) > 0);
        snprintf(q, sizeof q, "grep -c ',excluded,' pe%d/2025-01-29/observations.csv || true", m);
        assert_int_equal(sh_long(q), 0);
        snprintf(q, sizeof q, "awk -F, '$14 == 1' pe%d/2025-01-29/observations.csv | wc -l", m);
        assert_int_equal(sh_long(q), 0);
        if (m == 2) {
            snprintf(q, sizeof q, "awk -F, '$14 == 1' pf%d/2025-01-29/observations.csv | wc -l",
                     m);
            assert_true(sh_long(q) > 10);
        }
    }
    /* not well-formed: exit 1, and why */
    run_ok("copy", tu_sh(dir, "rm -rf g.db* pg && cp y2.db g.db && sqlite3 g.db \"UPDATE"
                              " index_roles SET roles = 'roles 1' || char(10) || 'xo 12 3 above'"
                              " WHERE day = 20117 AND grade = 'H200.OD'\""));
    tu_run r = tu_gpuidx(dir, "--db g.db --data d2 index publish --date 2025-01-29 --out pg");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: publish: 2025-01-29: grade H200.OD: the row's stored "
                               "roles are malformed (build the day again)\n");
    tu_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes_v1),
        cmocka_unit_test(test_same_bytes_v2),
        cmocka_unit_test(test_same_bytes_v3),
        cmocka_unit_test(test_published_roles_are_the_stored_ones),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
