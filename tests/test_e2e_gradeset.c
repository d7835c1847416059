/* tests/test_e2e_gradeset.c -- the published grade set end to end: grades
 * built from another file (candidates) are stored but never published or
 * shown; a candidate may not redefine a published grade; `grades list`,
 * `grades drop` (history kept) and `grades restore`; index.json records the
 * published grades file's SHA-256; `index show` of an unknown grade says
 * "did you mean".  Runs the real binary with a data directory whose
 * grades.json is the test's published file. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char published[] =
    "{\"grades\": [\n"
    " {\"id\": \"H100.OD\", \"gpu\": \"H100-SXM-80GB\", \"term\": \"on-demand\"},\n"
    " {\"id\": \"H100.SPOT\", \"gpu\": \"H100-SXM-80GB\", \"term\": \"spot\"}]}\n";

static const char candidates[] =
    "{\"grades\": [\n"
    " {\"id\": \"H100.OD.LAMBDA\", \"gpu\": \"H100\", \"providers\": \"lambda\","
    " \"min_providers\": 1}]}\n";

/* H100.OD under its published id, but another definition */
static const char redefines[] =
    "{\"grades\": [{\"id\": \"H100.OD\", \"gpu\": \"H100-SXM-80GB\", \"min_providers\": 2}]}\n";

static char *setup(void)
{
    char *dir = tu_mkdtemp("e2e-gradeset");
    tu_run r = tu_sh(dir, "mkdir data && cp '%s'/data/*.csv data/", tu_srcdir());
    if (r.status != 0) fail_msg("%s", r.err);
    tu_run_free(&r);
    free(tu_write(dir, "data/grades.json", published));
    free(tu_write(dir, "cand.json", candidates));
    free(tu_write(dir, "redef.json", redefines));
    char csv[8192];
    size_t n = (size_t)snprintf(csv, sizeof csv, "kind,id,observed_at,provider,gpu,price,term\n");
    static const char *const prov[3] = {"aws", "lambda", "coreweave"};
    for (int day = 1; day <= 4; day++)
        for (int p = 0; p < 3; p++)
            for (int t = 0; t < 2; t++)
                n += (size_t)snprintf(csv + n, sizeof csv - n,
                                      "offer,%s-%d,2025-01-%02d,%s,H100,%.2f,%s\n", prov[p], t,
                                      day, prov[p], 2.0 + 0.1 * p + 0.01 * day - 0.5 * t,
                                      t ? "spot" : "on-demand");
    free(tu_write(dir, "m.csv", csv));
    return dir;
}

static tu_run run(const char *dir, const char *args)
{
    return tu_gpuidx(dir, "--db t.db --data data %s", args);
}

static void ok(const char *dir, const char *args)
{
    tu_run r = run(dir, args);
    if (r.status != 0) fail_msg("%s: exit %d: %s", args, r.status, r.err);
    tu_run_free(&r);
}

static char *slurp(const char *dir, const char *rel)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return tu_read(path);
}

static void test_candidates_never_published(void **state)
{
    (void)state;
    char *dir = setup();
    ok(dir, "ingest m.csv");
    ok(dir, "index build --from 2025-01-01 --to 2025-01-04");
    /* a hedge comparison's candidate: stored, shown, never published */
    ok(dir, "index build --grades cand.json --from 2025-01-01 --to 2025-01-04");
    tu_run r = run(dir, "index show --grade H100.OD.LAMBDA --from 2025-01-02 --to 2025-01-02");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n2025-01-02,H100.OD.LAMBDA,2.1200,offers,1,0,1,"));
    tu_run_free(&r);
    ok(dir, "index publish --date 2025-01-02 --out pub");
    char *csv = slurp(dir, "pub/2025-01-02/index.csv");
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\n2025-01-02,H100.OD,"));
    assert_non_null(strstr(csv, "\n2025-01-02,H100.SPOT,"));
    assert_null(strstr(csv, "LAMBDA"));
    free(csv);
    char *obs = slurp(dir, "pub/2025-01-02/observations.csv");
    assert_null(strstr(obs, "LAMBDA"));
    free(obs);
    /* index.json names the published grades file by its SHA-256 */
    r = tu_sh(dir, "sha256sum data/grades.json");
    char want[128];
    snprintf(want, sizeof want, "\"grades_sha256\":\"%.64s\"", r.out);
    tu_run_free(&r);
    char *json = slurp(dir, "pub/2025-01-02/index.json");
    assert_non_null(strstr(json, want));
    free(json);
    /* the site: the published grades only */
    r = run(dir, "site --out www");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "site: 2 grades, 8 grade-days"));
    tu_run_free(&r);
    r = tu_sh(dir, "ls www");
    assert_string_equal(r.out, "H100.OD.csv\nH100.SPOT.csv\ndatapackage.json\nindex.html\n"
                               "statement.html\n");
    tu_run_free(&r);
    char *html = slurp(dir, "www/index.html");
    assert_null(strstr(html, "LAMBDA"));
    free(html);
    /* the benchmark statement states the published grades only */
    html = slurp(dir, "www/statement.html");
    assert_non_null(strstr(html, "<h3 id=\"s-H100.OD\">"));
    assert_null(strstr(html, "LAMBDA"));
    free(html);
    /* a candidate may not take a published grade's id */
    r = run(dir, "index build --grades redef.json --from 2025-01-01 --to 2025-01-04");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: index build: redef.json: grade H100.OD is a published "
                               "grade of data/grades.json with another definition; give the "
                               "candidate its own id\n");
    tu_run_free(&r);
    /* a grade without a value on any day says why */
    free(tu_write(dir, "thin.json",
                  "{\"grades\": [{\"id\": \"FOUR\", \"gpu\": \"H100\", \"min_providers\": 4},"
                  " {\"id\": \"B200.OD\", \"gpu\": \"B200\"}]}\n"));
    r = run(dir, "index build --grades thin.json --from 2025-01-01 --to 2025-01-04");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "index build: FOUR: 4 days: trades 0, offers 0, carried 0, "
                                  "suspended 4 (at most 3 providers on a day; min_providers is "
                                  "4)\n"));
    assert_non_null(strstr(r.err, "gpuidx: warning: thin.json: grades[1].gpu: \"B200\" matches "
                                  "no stored observation\n"));
    assert_non_null(strstr(r.err, "index build: B200.OD: 4 days: trades 0, offers 0, carried 0, "
                                  "suspended 4 (no observation of the grade on any day)\n"));
    tu_run_free(&r);
    /* grades list: which set each grade is in */
    r = run(dir, "grades list");
    assert_int_equal(r.status, 0);
    static const char *const lines[] = {
        "published grades file: data/grades.json (sha256 ",
        "\nH100.OD         published        1  2025-01-01..2025-01-04          4/4          1  ",
        "\nH100.OD.LAMBDA  candidate        1  2025-01-01..2025-01-04          4/4          0  ",
        "\nH100.SPOT       published        1  2025-01-01..2025-01-04          4/4          1  ",
        "\nFOUR            candidate        1  2025-01-01..2025-01-04          0/4          0  ",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(r.out, lines[i])) fail_msg("grades list lacks\n%s\nin\n%s", lines[i], r.out);
    tu_run_free(&r);
    /* a published grade redefined in the file (a new version) but not built
     * yet: the list shows both definitions */
    free(tu_write(dir, "data/grades.json",
                  "{\"grades\": [{\"id\": \"H100.OD\", \"version\": 2, \"gpu\": \"H100-SXM-80GB\","
                  " \"min_providers\": 2}]}\n"));
    r = run(dir, "grades list");
    const char *l = strstr(r.out, "\nH100.OD ");
    assert_non_null(l);
    assert_non_null(strstr(l, "  published        2  2025-01-01..2025-01-04"));
    const char *eol = strchr(l + 1, '\n');
    assert_non_null(strstr(l, " (built: "));
    assert_true(strstr(l, " (built: ") < eol);
    tu_run_free(&r);
    free(dir);
}

static void test_drop_and_restore(void **state)
{
    (void)state;
    char *dir = setup();
    ok(dir, "ingest m.csv");
    ok(dir, "index build --from 2025-01-01 --to 2025-01-02");
    ok(dir, "index publish --date 2025-01-02 --out pub");
    tu_run r = run(dir, "grades drop h100.spot");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "grades drop: H100.SPOT dropped: no longer built, published or "
                               "shown on the site; its 2 built days and 1 published days stay; "
                               "it is still listed in the published grades file (gpuidx grades "
                               "restore H100.SPOT undoes this)\n");
    tu_run_free(&r);
    r = run(dir, "grades drop H100.SPOT");
    assert_string_equal(r.out, "grades drop: H100.SPOT was dropped already\n");
    tu_run_free(&r);
    /* not built any more (its rows stay) */
    r = run(dir, "index build --from 2025-01-03 --to 2025-01-04");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "gpuidx: warning: data/grades.json: grade H100.SPOT is dropped "
                                  "(gpuidx grades drop): not built\n"));
    assert_non_null(strstr(r.err, ": 2 days, 1 grades, 2 rows,"));
    tu_run_free(&r);
    r = run(dir, "index show --grade H100.SPOT");
    assert_non_null(strstr(r.out, "\n2025-01-02,H100.SPOT,"));
    assert_null(strstr(r.out, "2025-01-03"));
    tu_run_free(&r);
    /* not published on a new day; a day published with it keeps it */
    ok(dir, "index publish --date 2025-01-03 --out pub");
    char *csv = slurp(dir, "pub/2025-01-03/index.csv");
    assert_null(strstr(csv, "SPOT"));
    free(csv);
    r = run(dir, "index publish --date 2025-01-02 --out pub");
    assert_non_null(strstr(r.err, "2025-01-02 vintage 1 (unchanged;"));
    tu_run_free(&r);
    csv = slurp(dir, "pub/2025-01-02/index.csv");
    assert_non_null(strstr(csv, "H100.SPOT"));
    free(csv);
    r = run(dir, "site --out www");
    assert_non_null(strstr(r.out, "site: 1 grades,"));
    tu_run_free(&r);
    r = run(dir, "grades list");
    assert_non_null(strstr(r.out, "\nH100.SPOT  dropped  "));
    tu_run_free(&r);
    r = run(dir, "grades restore H100.SPOT");
    assert_string_equal(r.out, "grades restore: H100.SPOT is built, published and shown again\n");
    tu_run_free(&r);
    r = run(dir, "site --out www");
    assert_non_null(strstr(r.out, "site: 2 grades,"));
    tu_run_free(&r);
    /* unknown ids say what is near */
    r = run(dir, "grades drop H100.SPT");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: grades drop: no grade H100.SPT in the database or "
                               "data/grades.json (did you mean H100.SPOT?)\n");
    tu_run_free(&r);
    r = run(dir, "grades drop");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "gpuidx: grades drop: which grade? (gpuidx grades drop ID)\n");
    tu_run_free(&r);
    free(dir);
}

static void test_show_unknown_grade(void **state)
{
    (void)state;
    char *dir = setup();
    ok(dir, "ingest m.csv");
    ok(dir, "index build --from 2025-01-01 --to 2025-01-02");
    static const struct {
        const char *grade, *err;
    } cases[] = {
        {"H100.0D", "gpuidx: index show: no rows for grade H100.0D (not built; did you mean "
                    "H100.OD?)\n"},
        {"h100", "gpuidx: index show: no rows for grade h100 (not built; did you mean H100.OD, "
                 "H100.SPOT?)\n"},
        {"L40S.OD", "gpuidx: index show: no rows for grade L40S.OD (not built)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "index show --grade %s", cases[i].grade);
        tu_run r = run(dir, args);
        assert_int_equal(r.status, 1);
        assert_string_equal(r.out, "");
        assert_string_equal(r.err, cases[i].err);
        tu_run_free(&r);
    }
    /* a published grade that is not built: a warning, and the others go out */
    free(tu_write(dir, "more.json",
                  "{\"grades\": [{\"id\": \"H100.OD\", \"gpu\": \"H100-SXM-80GB\", \"term\":"
                  " \"on-demand\"}, {\"id\": \"B200.OD\", \"gpu\": \"B200\"}]}\n"));
    tu_run r = run(dir, "index publish --grades more.json --from 2025-01-01 --to 2025-01-02 "
                        "--out pub");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "gpuidx: warning: more.json: published grade B200.OD has no "
                                  "built row on 2 of the 2 days (index build them, or drop the "
                                  "grade)\n"));
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    if (!getenv("GPUIDX_BIN")) {
        static char bin[4200];
        snprintf(bin, sizeof bin, "%s/build/gpuidx", tu_srcdir());
        setenv("GPUIDX_BIN", bin, 1);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_candidates_never_published),
        cmocka_unit_test(test_drop_and_restore),
        cmocka_unit_test(test_show_unknown_grade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
