/* tests/test_e2e_segments.c -- `gpuidx grades evaluate` and provider
 * segments end to end: what the lab prints of a bimodal grade, its splits
 * in CSV and JSON, --no-split, and a sweep of bimodal grades staying
 * bounded.
 *
 * Market (offers, bare "H100" = H100-SXM-80GB, shipped tables), every day
 * 2025-01-01..10: hyperscalers aws 12.00, gcp 13.00, azure 15.00;
 * neoclouds lambda 4.00, fluidstack 5.00, coreweave 3.25.  Segment
 * medians 13.00 and 4.00: 3.25x apart every day.  G (v1): the median of
 * the six provider prices, (5.00 + 12.00) / 2 = 8.5000; G.HYP 13.0000,
 * G.NEO 4.0000.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-segments");
    static const struct {
        const char *prov, *price;
    } book[] = {{"aws", "12.00"},   {"gcp", "13.00"},        {"azure", "15.00"},
                {"lambda", "4.00"}, {"fluidstack", "5.00"}, {"coreweave", "3.25"}};
    char path[4200];
    snprintf(path, sizeof path, "%s/o.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) fail_msg("%s", path);
    fputs("observed_at,provider,gpu,price\n", f);
    for (int day = 1; day <= 10; day++)
        for (size_t p = 0; p < sizeof book / sizeof book[0]; p++)
            fprintf(f, "2025-01-%02dT10:00:00Z,%s,H100,%s\n", day, book[p].prov, book[p].price);
    fclose(f);
    free(tu_write(dir, "g.json",
                  "{\"grades\": [{\"id\": \"G\", \"gpu\": [\"H100-SXM-80GB\"]}]}\n"));
    tu_run r = tu_gpuidx(dir, "--db t.db ingest offers o.csv");
    if (r.status != 0) fail_msg("ingest: %s", r.err);
    tu_run_free(&r);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(dir);
    return 0;
}

static tu_run lab(const char *extra)
{
    tu_run r = tu_gpuidx(dir, "--db t.db grades evaluate --grades g.json --from 2025-01-01 "
                              "--to 2025-01-10 %s",
                         extra);
    if (r.status != 0) fail_msg("grades evaluate %s: exit %d: %s", extra, r.status, r.err);
    return r;
}

static void test_table(void **state)
{
    (void)state;
    tu_run r = lab("");
    static const char *const want[] = {
        "provider segments (bimodal: on at least half of the fixed days with providers\n"
        "of two or more segments, the highest segment's median provider price is at\n"
        "least 2.0x the lowest's): 1 grade with two or more segments, 1 bimodal\n",
        "\nG: bimodal: segment medians 3.25x apart (median over 10 days; 3.25-3.25), >= 2.0x "
        "on 10 of them\n",
        "  hyperscaler     10  3.00    3    10 2025-01-01..2025-01-10   13.0000   1.25  G.HYP",
        "  neocloud        10  3.00    3    10 2025-01-01..2025-01-10    4.0000   1.54  G.NEO",
        "  (blended)                                                     8.5000         G    ",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.out, want[i])) fail_msg("no\n%s\nin\n%s", want[i], r.out);
    tu_run_free(&r);
    /* without the splits: the verdict, no split grade */
    r = lab("--no-split");
    assert_non_null(strstr(r.out, "\nG: bimodal: segment medians 3.25x apart"));
    assert_null(strstr(r.out, "G.HYP"));
    tu_run_free(&r);
}

static void test_csv_and_json(void **state)
{
    (void)state;
    tu_run r = lab("--csv");
    /* the file's grade, then its splits, each with its price median and
     * the columns appended at the end */
    const char *g = strstr(r.out, "\nG,10,0,10,0,0,");
    const char *h = strstr(r.out, "\nG.HYP,10,0,10,0,0,");
    const char *n = strstr(r.out, "\nG.NEO,10,0,10,0,0,");
    assert_true(g && h && n && g < h && h < n);
    assert_non_null(strstr(g, ",1,,\n")); /* bimodal, not a split */
    assert_non_null(strstr(h, ",0,G,hyperscaler\n"));
    assert_non_null(strstr(n, ",0,G,neocloud\n"));
    tu_run_free(&r);
    r = lab("--json");
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    if (!j) fail_msg("%s", je.text);
    json_t *splits = json_object_get(j, "splits");
    assert_int_equal(json_array_size(splits), 2);
    json_t *s0 = json_array_get(splits, 0);
    assert_string_equal(json_string_value(json_object_get(s0, "id")), "G.HYP");
    assert_string_equal(json_string_value(json_object_get(s0, "split_of")), "G");
    tu_assert_close(json_real_value(json_object_get(json_object_get(s0, "price"), "median")),
                    13.0, 1e-12, "G.HYP price");
    json_t *seg = json_object_get(json_array_get(json_object_get(j, "grades"), 0), "segments");
    assert_true(json_is_true(json_object_get(seg, "bimodal")));
    tu_assert_close(json_real_value(json_object_get(seg, "ratio_median")), 3.25, 1e-12, "ratio");
    json_decref(j);
    tu_run_free(&r);
}

/* 300 bimodal grades: 600 splits, made and evaluated 256 at a time; the
 * table stays a few lines a grade (the blocks are for 64 grades or fewer,
 * --csv and --json have them all). */
static void test_sweep_of_bimodal_grades(void **state)
{
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/g300.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"grades\":[", f);
    for (int i = 0; i < 300; i++)
        fprintf(f, "%s{\"id\":\"G%03d\",\"gpu\":[\"H100-SXM-80GB\"],\"min_providers\":%d}",
                i ? ",\n" : "", i, 1 + i % 3);
    fputs("]}\n", f);
    fclose(f);
    char db[4200], out[4200];
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(out, sizeof out, "%s/sweep.txt", dir);
    const char *args[] = {getenv("GPUIDX_BIN"), "--db", db, "grades", "evaluate", "--grades",
                          "g300.json", "--from", "2025-01-01", "--to", "2025-01-10", NULL};
    long kib;
    assert_int_equal(tu_run_rss(dir, args, out, &kib), 0);
    struct stat sb;
    assert_int_equal(stat(out, &sb), 0);
    if (sb.st_size > 300 * 400)
        fail_msg("output of %lld bytes for 300 grades", (long long)sb.st_size);
    if (kib > 150 * 1024) fail_msg("peak memory %ld KiB for 300 grades and 600 splits", kib);
    printf("note: 300 grades and 600 splits: %lld bytes of table, peak %ld KiB\n",
           (long long)sb.st_size, kib);
    char *text = tu_read(out);
    assert_non_null(strstr(text, "300 grades with two or more segments, 300 bimodal\n"
                                 "--csv and --json give each grade's segments and its splits\n"));
    free(text);
    tu_run r = tu_gpuidx(dir, "--db t.db grades evaluate --grades g300.json --from 2025-01-01 "
                              "--to 2025-01-10 --csv > s.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_sh(dir, "grep -c ',[01],G[0-9]*,' s.csv");
    assert_int_equal(r.status, 0);
    assert_int_equal(strtol(r.out, NULL, 10), 600);
    tu_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_csv_and_json),
        cmocka_unit_test(test_sweep_of_bimodal_grades),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
