/* tests/test_e2e_index.c -- `gpuidx index build/show/publish` end to end.
 *
 * The market of tests/index_fixture.h is stored through the store API
 * (ingest is another branch), then the real binary builds, shows and
 * publishes it.  Expected rows were computed by hand and checked with
 * numpy (percentiles) and fractions (adjustment); see the fixture.
 */
#include "tests/testutil.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "store/store.h"
#include "store/index_values.h"
#include "tests/index_fixture.h"

#define HDR "date,grade,value,level,n_obs,n_excluded,n_providers,trade_volume_gpu_hours," \
            "adjustment,p10,p25,p50,p75,p90,min,max,top_provider_share,methodology,vintage," \
            "xs_value,xs_level,relative,n_matched,n_matched_providers,panel_change,event,splice," \
            "note,loo_move,cost_tick_gpu_hours,cost_1pct_gpu_hours,cost_tick_offers," \
            "cost_1pct_offers,ci_low,ci_high,confidence,stale_share,price_index,index_change," \
            "composition_gap,composition_gap_month,panel_size,n_imputed,n_candidates," \
            "index_providers\n"
/* a published index.csv (file format 4) has the same columns */
#define HDR4 HDR
/* the format 4 columns of methodology v3 of a v1 or v2 row: all empty */
#define V3_4 ",,,,,,,,"
/* `index show`'s format 4 columns of a v1 or v2 row: publication's
 * (ci_low .. stale_share, computed when a day is published) and v3's,
 * all empty */
#define T4 ",,,," V3_4
/* the format 2 columns of a v1 row: all empty but the note */
#define V1TAIL ",,,,,,,,,"
/* the format 3 columns (after the note) of a row with no manipulation
 * figures: a carried or suspended day without observations */
#define NOMANIP ",,,,," T4
#define AS_OF_1 "1970-01-01T00:25:00Z" /* 1500: after the market, before late data */
#define AS_OF_2 "1970-01-01T00:41:40Z" /* 2500 */

/* The manipulation columns (METHODOLOGY.md §11), by hand:
 *  - trades days 1-4, 6: three providers of 400 GPU-hours at m-0.10, m,
 *    m+0.10.  A new fourth provider (cap s = max(0.30, 1/4) = 0.30) with x
 *    GPU-hours beyond every price has share x/(1200+x) <= 0.30 uncapped up
 *    to x = 514; the two prices below it weigh 800/(1200+x), exactly half
 *    at x = 400, where the median becomes the mean of m and m+0.10: +0.05,
 *    over 1 % of m.  Below 400 nothing moves; the same holds downwards.
 *    So 400.00 GPU-hours for one tick and for 1 %; offers cannot move a
 *    trades day (none).
 *  - offers days 5 and 7: one offer above all makes the median of the
 *    provider medians (2.00, 2.20 or 2.2345, 2.60) the mean of the middle
 *    and 2.60: 2.4000 (+9 %), 2.6590 (+8 %): one offer; no trades (one
 *    provider's trades cannot make three).
 *  - leave one out: without any provider a day keeps two providers, no
 *    level qualifies, and the day before's value is carried: day 1 has none
 *    (every removal voids it, no move), day 2 moves to 2.4200 (0.1100),
 *    day 3 to 2.5300 (0.2200), day 4 to 2.3100 (0.3300), day 5 to 2.6400
 *    (0.4400), day 6 to 2.2000 (0.0000), day 7 to 2.2000 (0.2580).
 *  - carried and suspended days: no provider to remove, and one new
 *    provider cannot make three: empty. */
static const char want_show[] =
    HDR
    "2025-01-01,T,2.4200,trades,3,0,3,1200.00,,2.340000,2.370000,2.420000,2.470000,2.500000,"
    "2.320000,2.520000,0.333333,v1," V1TAIL ",,400.00,400.00,," T4 "\n"
    "2025-01-02,T,2.5300,trades,3,0,3,1200.00,,2.450000,2.480000,2.530000,2.580000,2.610000,"
    "2.430000,2.630000,0.333333,v1," V1TAIL ",0.1100,400.00,400.00,," T4 "\n"
    "2025-01-03,T,2.3100,trades,3,0,3,1200.00,,2.230000,2.260000,2.310000,2.360000,2.390000,"
    "2.210000,2.410000,0.333333,v1," V1TAIL ",0.2200,400.00,400.00,," T4 "\n"
    "2025-01-04,T,2.6400,trades,3,0,3,1200.00,,2.560000,2.590000,2.640000,2.690000,2.720000,"
    "2.540000,2.740000,0.333333,v1," V1TAIL ",0.3300,400.00,400.00,," T4 "\n"
    "2025-01-05,T,2.2000,offers,3,0,3,0.00,1.000000,2.040000,2.100000,2.200000,2.400000,"
    "2.520000,2.000000,2.600000,0.333333,v1," V1TAIL ",0.4400,,,1,1" T4 "\n"
    "2025-01-06,T,2.2000,trades,3,0,3,1200.00,,2.120000,2.150000,2.200000,2.250000,2.280000,"
    "2.100000,2.300000,0.333333,v1," V1TAIL ",0.0000,400.00,400.00,," T4 "\n"
    "2025-01-07,T,2.4580,offers,3,0,3,0.00,1.100000,2.046900,2.117250,2.234500,2.417250,"
    "2.526900,2.000000,2.600000,0.333333,v1," V1TAIL ",0.2580,,,1,1" T4 "\n"
    "2025-01-08,T,2.4580,carried,0,0,0,0.00,,,,,,,,,,v1," V1TAIL "no eligible observations" NOMANIP "\n"
    "2025-01-09,T,2.4580,carried,0,0,0,0.00,,,,,,,,,,v1," V1TAIL "no eligible observations" NOMANIP "\n"
    "2025-01-10,T,2.4580,carried,0,0,0,0.00,,,,,,,,,,v1," V1TAIL "no eligible observations" NOMANIP "\n"
    "2025-01-11,T,2.4580,carried,0,0,0,0.00,,,,,,,,,,v1," V1TAIL "no eligible observations" NOMANIP "\n"
    "2025-01-12,T,2.4580,carried,0,0,0,0.00,,,,,,,,,,v1," V1TAIL "no eligible observations" NOMANIP "\n"
    "2025-01-13,T,,suspended,0,0,0,0.00,,,,,,,,,,v1," V1TAIL
    "no eligible observations; carried 5 days already (max_carry_days)" NOMANIP "\n"
    "2025-01-14,T,,suspended,0,0,0,0.00,,,,,,,,,,v1," V1TAIL
    "no eligible observations; no earlier value to carry" NOMANIP "\n";

static char *dir;

static char *path_of(const char *rel)
{
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/%s", dir, rel);
    return p;
}

static char *read_rel(const char *rel)
{
    char *p = path_of(rel);
    char *s = tu_read(p);
    if (!s) fail_msg("missing file %s", p);
    free(p);
    return s;
}

/* The published key of a fixture row: FNV-1a 64 of kind letter, NUL,
 * source ("fixture"), NUL, ident, written out here rather than taken from
 * the code under test. */
static uint64_t identity(const char *ident)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    char buf[160];
    int n = snprintf(buf, sizeof buf, "%c%cfixture%c%s", ident[0], 0, 0, ident);
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
    return h;
}

static void run_ok(const char *args)
{
    tu_run r = tu_gpuidx(dir, "--db t.db %s", args);
    if (r.status != 0) fail_msg("gpuidx %s: exit %d: %s", args, r.status, r.err);
    tu_run_free(&r);
}

static void test_build_show_publish_restate(void **state)
{
    (void)state;
    dir = tu_mkdtemp("e2e-index");
    store *st = NULL;
    gpi_diag d = {{0}};
    char *db = path_of("t.db");
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    fx_market(st);
    store_close(st);
    free(tu_write(dir, "g.json", fx_grades_json));

    run_ok("index build --grades g.json --from 2025-01-01 --to 2025-01-14 --as-of " AS_OF_1);
    tu_run r = tu_gpuidx(dir, "--db t.db index show --grade T");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, want_show);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db index show --grade T --from 2025-01-13 --to 2025-01-13");
    assert_string_equal(r.out, HDR "2025-01-13,T,,suspended,0,0,0,0.00,,,,,,,,,,v1," V1TAIL
    "no eligible observations; carried 5 days already (max_carry_days)" NOMANIP "\n");
    tu_run_free(&r);

    /* publish day 7 (offers, adjusted) and day 1 (trades, with exclusions) */
    run_ok("index publish --grades g.json --date 2025-01-07 --out pub");
    run_ok("index publish --grades g.json --from 2025-01-01 --to 2025-01-05 --out pub");
    char *csv7 = read_rel("pub/2025-01-07/index.csv");
    /* the interval: 3 provider medians 2.00, 2.2345, 2.60 times 1.1; a
     * resample draws one group three times with probability 1/27 > 2.5 %,
     * so the 95 % interval is [2.00, 2.60] x 1.1; 3 groups: low */
    assert_string_equal(csv7, HDR4 "2025-01-07,T,2.4580,offers,3,0,3,0.00,1.100000,2.046900,"
                              "2.117250,2.234500,2.417250,2.526900,2.000000,2.600000,0.333333,"
                              "v1,1" V1TAIL ",0.2580,,,1,1,2.2000,2.8600,low,0.000000" V3_4 "\n");
    char *v1 = read_rel("pub/2025-01-07/v1/index.csv");
    assert_string_equal(v1, csv7);
    char *json7 = read_rel("pub/2025-01-07/index.json");
    /* the published grades file is recorded by its SHA-256 */
    tu_run sh = tu_sh(dir, "printf '{\"format\":4,\"date\":\"2025-01-07\",\"vintage\":1,"
                           "\"observations_sha256\":\"%%s\",\"license\":\"Apache-2.0\","
                           "\"methodology_versions\":[\"v1\"],\"grades_sha256\":\"%%s\","
                           "\"key_fingerprint\":null,\"inputs\":[\\n{\"sha256\":\"sha-market\"'"
                           " $(sha256sum pub/2025-01-07/observations.csv | cut -c1-64)"
                           " $(sha256sum g.json | cut -c1-64)");
    assert_int_equal(sh.status, 0);
    if (strncmp(json7, sh.out, strlen(sh.out)) != 0)
        fail_msg("index.json starts with\n%.160s\nnot\n%s", json7, sh.out);
    tu_run_free(&sh);
    /* file format 4: the term curve's files by their SHA-256, after the
     * inputs; then (issue 31) index.csv's SHA-256, the publication's
     * number, the grade set ("T,<grade_hash>\n"), no vintage or day
     * published before */
    sh = tu_sh(dir, "h=$(sed -n 's/.*\"grade_hash\":\"\\([0-9a-f]*\\)\".*/\\1/p' "
                    "pub/2025-01-07/index.json) && "
                    "printf '],\"curve_sha256\":{\"curve.csv\":\"%%s\",\"curve.json\":\"%%s\"},"
                    "\"index_csv_sha256\":\"%%s\",\"sequence\":1,\"grade_set_sha256\":\"%%s\","
                    "\"grades_without_row\":[],\"previous_vintage\":null,\"previous_day\":null,"
                    "\"rows\":[' $(sha256sum pub/2025-01-07/curve.csv | cut -c1-64)"
                    " $(sha256sum pub/2025-01-07/curve.json | cut -c1-64)"
                    " $(sha256sum pub/2025-01-07/index.csv | cut -c1-64)"
                    " $(printf 'T,%%s\\n' $h | sha256sum | cut -c1-64)");
    assert_int_equal(sh.status, 0);
    if (!strstr(json7, sh.out)) fail_msg("index.json has no\n%s\nin\n%.600s", sh.out, json7);
    tu_run_free(&sh);
    static const char *const json_parts[] = {
        "\"rows\":[\n",
        "\"value\":2.4580,\"level\":\"offers\"",
        "\"adjustment\":1.100000",
        "\"offers_raw\":2.23450000",
        "\"adjustment_days\":[{\"date\":\"2025-01-01\",\"trades_raw\":2.42000000,"
        "\"offers_raw\":2.20000000},{\"date\":\"2025-01-02\",\"trades_raw\":2.53000000,",
        "{\"date\":\"2025-01-06\",\"trades_raw\":2.20000000,\"offers_raw\":2.20000000}]",
        ",\"note\":null,\"loo_move\":0.2580,\"loo_provider\":\"P1\",\"loo_voids\":0,"
        "\"cost_tick_gpu_hours\":null,\"cost_1pct_gpu_hours\":null,\"cost_tick_offers\":1,"
        "\"cost_1pct_offers\":1,\"vintage\":1,\"grade_definition\":\"{\\\"adj_lookback_days\\\":30,",
        /* the receipt: the grade's 3 lines of observations.csv; the batch */
        "\"receipt\":{\"observations\":{\"rows\":3,\"sha256\":\"",
        "\"batches\":[{\"sha256\":\"sha-market\",\"tables_sha256\":\"tables\"}]},"
        /* file format 4: the units, the definition as an object */
        "\"currency\":\"USD\",\"unit\":\"GPU-hour\",\"definition\":{\"adj_lookback_days\":30,",
        /* then the cut-off, the interval and flag, the stale share */
        "\"version\":1},\"cut_off\":\"1970-01-01T00:25:00Z\",\"ci_low\":2.2000,\"ci_high\":2.8600,"
        "\"confidence\":\"low\",\"confidence_rule\":\"3 provider groups (fewer than 5)\","
        "\"bootstrap\":{\"resamples\":999,\"seed\":\"",
        "\"stale_share\":0.000000,\"stale_groups\":0,\"stale_days\":30}\n]}\n",
    };
    for (size_t i = 0; i < sizeof json_parts / sizeof json_parts[0]; i++)
        if (!strstr(json7, json_parts[i])) fail_msg("index.json lacks %s:\n%s", json_parts[i], json7);
    char *obs1 = read_rel("pub/2025-01-01/observations.csv");
    static const struct {
        const char *ident, *head, *tail;
    } obs_lines[] = {
        {NULL, "date,grade,kind,observed_at,provider,group,source,key,region,price,quantity,role,"
               "reason,matched,ref_price,base_price,relative,traded_gpu_hours,offered_gpus,imputed\n", ""},
        /* a v1 grade leaves the v2 and v3 columns empty */
        {"o-P1-1c", "\n2025-01-01,T,offer,2025-01-01T14:00:00Z,P1,P1,fixture,",
         ",us-east,20.000000,,excluded,above F x provider median,,,,,,,\n"},
        {"t-P3-1x", "\n2025-01-01,T,trade,2025-01-01T10:00:00Z,P3,P3,fixture,",
         ",us-east,9.990000,500.000000,excluded,cancelled trade,,,,,500.000000,,\n"},
        {"t-P2-1", "\n2025-01-01,T,trade,2025-01-01T09:00:00Z,P2,P2,fixture,",
         ",us-east,2.420000,400.000000,used,,,,,,400.000000,,\n"},
    };
    for (size_t i = 0; i < sizeof obs_lines / sizeof obs_lines[0]; i++) {
        char line[512], key[17] = "";
        if (obs_lines[i].ident)
            snprintf(key, sizeof key, "%016llx", (unsigned long long)identity(obs_lines[i].ident));
        snprintf(line, sizeof line, "%s%s%s", obs_lines[i].head, key, obs_lines[i].tail);
        if (!strstr(obs1, line)) fail_msg("observations.csv lacks %s:\n%s", line, obs1);
    }
    int lines = 0;
    for (const char *p = obs1; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 6); /* header, 3 used trades, a cancelled trade, a fat finger */
    assert_null(strstr(obs1, ",offer,2025-01-01T12:00:00Z,P2,")); /* other level: not listed */
    assert_null(strstr(obs1, "BuyerCo"));

    /* publishing unchanged data again: same vintage, byte-identical */
    r = tu_gpuidx(dir, "--db t.db index publish --grades g.json --date 2025-01-07 --out pub");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "vintage 1 (unchanged"));
    tu_run_free(&r);
    char *again = read_rel("pub/2025-01-07/index.csv");
    assert_string_equal(again, csv7);
    char *json_again = read_rel("pub/2025-01-07/index.json");
    assert_string_equal(json_again, json7);
    free(again);
    free(json_again);
    /* files lost or damaged after the vintage was committed are restored
     * from the database, byte for byte */
    r = tu_sh(dir, "rm pub/2025-01-07/index.json && echo garbage > pub/2025-01-07/v1/index.csv");
    tu_run_free(&r);
    run_ok("index publish --grades g.json --date 2025-01-07 --out pub");
    json_again = read_rel("pub/2025-01-07/index.json");
    assert_string_equal(json_again, json7);
    free(json_again);
    again = read_rel("pub/2025-01-07/v1/index.csv");
    assert_string_equal(again, csv7);
    free(again);
    /* a leftover of a crashed run is removed */
    r = tu_sh(dir, "mkdir -p pub/.tmp-2025-01-07-99999 && touch pub/.tmp-2025-01-07-99999/x");
    tu_run_free(&r);

    /* late data: day 7 gets trades (2.5000, a 1.71 % move: restated),
     * day 5 a second P2 offer (2.2005, 0.023 %: a revision only) */
    st = NULL;
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    fx_late(st);
    store_close(st);
    run_ok("index build --grades g.json --from 2025-01-05 --to 2025-01-07 --as-of " AS_OF_2);
    /* day 7's new row is computed from day 5's revised one (its adjustment
     * days): day 5 first (publish/late.c note 4) */
    r = tu_gpuidx(dir, "--db t.db index publish --grades g.json --date 2025-01-07 --out pub");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "gpuidx: publish: 2025-01-07: its rows are computed from rows "
                                  "of 2025-01-05 that are not published as they stand"));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db index publish --grades g.json --date 2025-01-05 --out pub");
    assert_int_equal(r.status, 0);
    /* the revision published, its value standing */
    assert_non_null(strstr(r.err, "vintage 2 (new; 0 restated, 1 revisions)"));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db t.db index publish --grades g.json --date 2025-01-07 --out pub");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "vintage 2 (new; 1 restated"));
    tu_run_free(&r);
    r = tu_sh(dir, "ls -a pub");
    assert_null(strstr(r.out, ".tmp-"));
    tu_run_free(&r);
    char *csv7b = read_rel("pub/2025-01-07/index.csv");
    /* the late trades: 400 GPU-hours each again (400.00 to move it); without
     * a provider the day carries day 6's 2.2000 (0.3000) */
    assert_string_equal(csv7b, HDR4 "2025-01-07,T,2.5000,trades,3,0,3,1200.00,,2.420000,2.450000,"
                               "2.500000,2.550000,2.580000,2.400000,2.600000,0.333333,v1,2" V1TAIL
                               ",0.3000,400.00,400.00,,,2.4000,2.6000,low,0.000000" V3_4 "\n");
    char *v1b = read_rel("pub/2025-01-07/v1/index.csv");
    assert_string_equal(v1b, csv7); /* vintage 1 is kept unchanged */
    char *v2 = read_rel("pub/2025-01-07/v2/index.csv");
    assert_string_equal(v2, csv7b);
    /* the newest vintage's folder links the current files; vintage 1
     * keeps its own (publish/tree.c note 3) */
    r = tu_sh(dir, "cd pub/2025-01-07 && for f in index.csv index.json observations.csv; do"
                   " [ $f -ef v2/$f ] && ! [ $f -ef v1/$f ] || echo $f; done");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    tu_run_free(&r);
    char *rs = read_rel("pub/restatements.csv");
    assert_string_equal(rs, "date,grade,vintage,old,new,reason\n"
                            "2025-01-07,T,2,2.4580,2.5000,value moved by 1.71 % (more than "
                            "restate_threshold 0.10 %)\n");
    char *csv5 = read_rel("pub/2025-01-05/index.csv");
    assert_non_null(strstr(csv5, "2025-01-05,T,2.2000,offers,"));
    /* show has the current values, with the vintage that published each
     * value: none for day 5, whose published 2.2000 stands (a revision);
     * settlement reads the first published */
    r = tu_gpuidx(dir, "--db t.db index show --grade T --from 2025-01-05 --to 2025-01-08");
    assert_non_null(strstr(r.out, "2025-01-05,T,2.2005,offers,4,0,3,"));
    assert_non_null(strstr(r.out, ",index_providers\n2025-01-05,T,"));
    const char *l5 = strstr(r.out, "\n2025-01-05,T,"), *l6 = strstr(r.out, "\n2025-01-06,T,");
    assert_non_null(l5);
    assert_non_null(l6);
    /* day 5: no vintage published 2.2005 */
    const char *m5 = strstr(l5, ",v1,");
    assert_true(m5 && m5 < l6 && m5[4] == ',');
    const char *l7 = strstr(r.out, "\n2025-01-07,T,2.5000,trades,");
    assert_non_null(l7);
    assert_non_null(strstr(l7, ",v1,2" V1TAIL ",0.3000,400.00,400.00,," T4 "\n2025-01-08,T,2.5000,carried,"));
    tu_run_free(&r);
    st = NULL;
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    gpi_index_day *s0, *s1;
    size_t n0, n1;
    int32_t d7 = gpi_days_from_civil(2025, 1, 7);
    assert_int_equal(store_index_series(st, "T", d7 - 2, d7, 0, &s0, &n0, &d), GPI_OK);
    assert_int_equal(store_index_series(st, "T", d7 - 2, d7, 1, &s1, &n1, &d), GPI_OK);
    assert_int_equal(n0, 3);
    assert_int_equal(s0[0].value_e4, 22000); /* as first published */
    assert_int_equal(s1[0].value_e4, 22005);
    assert_int_equal(s0[2].value_e4, 24580);
    assert_int_equal(s1[2].value_e4, 25000);
    assert_int_equal(s0[1].value_e4, 22000); /* never published: the stored value */
    free(s0);
    free(s1);
    store_close(st);
    free(csv7);
    free(v1);
    free(json7);
    free(obs1);
    free(csv7b);
    free(v1b);
    free(v2);
    free(rs);
    free(csv5);
    free(db);
}

static void test_usage_errors(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-index-usage");
    /* commands that only read refuse a missing database (a mistyped --db) */
    static const struct {
        const char *args, *cmd;
    } readers[] = {
        {"index build --from 2025-01-01 --to 2025-01-01", "index build"},
        {"index show", "index show"},
        {"index publish --date 2025-01-01 --out p", "index publish"},
        {"site --out w", "site"},
    };
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        tu_run r = tu_gpuidx(tmp, "--db none.db %s", readers[i].args);
        char want[256];
        snprintf(want, sizeof want,
                 "gpuidx: %s: no database at none.db (ingest observations first, or pass --db)\n",
                 readers[i].cmd);
        if (r.status != 1 || strcmp(r.err, want) != 0)
            fail_msg("%s: exit %d, stderr %s", readers[i].args, r.status, r.err);
        tu_run_free(&r);
    }
    tu_run made = tu_sh(tmp, "test ! -e none.db && test ! -e p && test ! -e w");
    assert_int_equal(made.status, 0);
    tu_run_free(&made);
    store *st = NULL;
    gpi_diag d = {{0}};
    char *db = malloc(4096);
    snprintf(db, 4096, "%s/u.db", tmp);
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    store_close(st);
    free(db);
    static const struct {
        const char *args, *err;
        int status;
    } cases[] = {
        {"index build --from 2025-01-02", "gpuidx: index build: --from and --to are required\n",
         2},
        {"index build --from 2025-01-02 --to 2025-01-01",
         "gpuidx: index build: --from 2025-01-02 is after --to 2025-01-01\n", 2},
        {"index build --from 2025-02-30 --to 2025-03-01",
         "gpuidx: --from: no such calendar date (got \"2025-02-30\")\n", 2},
        {"index publish --date 2025-01-01",
         "gpuidx: index publish: --date (or --from and --to, or --restate) and --out are required\n", 2},
        {"index publish --from 2025-01-02 --to 2025-01-01 --out pub",
         "gpuidx: index publish: --from 2025-01-02 is after --to 2025-01-01\n", 2},
        {"index publish --date 2025-01-01 --out pub",
         "gpuidx: index publish: no grade is built on 2025-01-01 (gpuidx index build --from"
         " 2025-01-01 --to 2025-01-01 first)\n", 1},
        {"index show --grade NOPE", "gpuidx: index show: no rows for grade NOPE (not built)\n", 1},
        {"index frobnicate", "gpuidx: index: unknown subcommand 'frobnicate' (build, show, publish)\n",
         2},
        {"index show >/dev/full", "gpuidx: stdout: write failed\n", 1},
        /* data ingested later would pass for data the build saw */
        {"index build --from 2025-01-01 --to 2025-01-01 --as-of 2999-01-01",
         "gpuidx: --as-of: in the future (got \"2999-01-01\")\n", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_gpuidx(tmp, "--db u.db %s", cases[i].args);
        if (r.status != cases[i].status || strcmp(r.err, cases[i].err) != 0)
            fail_msg("%s: exit %d, stderr %s", cases[i].args, r.status, r.err);
        tu_run_free(&r);
    }
    free(tu_write(tmp, "bad.json", "{\"grades\":[{\"id\":\"A\",\"gpu\":\"H99\"}]}"));
    tu_run r = tu_gpuidx(tmp, "--db u.db index build --grades bad.json --from 2025-01-01 --to "
                              "2025-01-01");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: bad.json: grades[0].gpu: unknown GPU model (a canonical "
                               "name or an alias of gpus.csv) (got \"H99\")\n");
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "index --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx [--db PATH] index build"));
    tu_run_free(&r);
    free(tmp);
}

/* The fixture market as canonical CSV files through `gpuidx ingest`. */
static char *market_csv(int late)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputs("kind,id,observed_at,source,provider,gpu,price,quantity,status,region\n", f);
    if (late) {
        fputs("trade,t-P1-7,2025-01-07T09:00:00Z,fixture,P1,H100-SXM-80GB,2.40,400,,us-east\n"
              "trade,t-P2-7,2025-01-07T09:00:00Z,fixture,P2,H100-SXM-80GB,2.50,400,,us-east\n"
              "trade,t-P3-7,2025-01-07T09:00:00Z,fixture,P3,H100-SXM-80GB,2.60,400,,us-east\n"
              "offer,o-P2-5b,2025-01-05T15:00:00Z,fixture,P2,H100-SXM-80GB,2.201,,,us-east\n",
              f);
        fclose(f);
        return buf;
    }
    static const char *const mid[8] = {"", "2.42", "2.53", "2.31", "2.64", "", "2.20", ""};
    static const char *const lo[8] = {"", "2.32", "2.43", "2.21", "2.54", "", "2.10", ""};
    static const char *const hi[8] = {"", "2.52", "2.63", "2.41", "2.74", "", "2.30", ""};
    for (int dom = 1; dom <= 7; dom++) {
        if (dom == 2)
            fprintf(f, "offer,o-P1-2,2025-01-02T10:00:00Z,fixture,P1,H100-SXM-80GB,5.00,,,us-east\n");
        fprintf(f, "offer,o-P1-%d,2025-01-0%dT12:00:00Z,fixture,P1,H100-SXM-80GB,2.00,,,us-east\n",
                dom, dom);
        fprintf(f, "offer,o-P2-%d,2025-01-0%dT12:00:00Z,fixture,P2,H100-SXM-80GB,%s,,,us-east\n",
                dom, dom, dom == 7 ? "2.2345" : "2.20");
        fprintf(f, "offer,o-P3-%d,2025-01-0%dT12:00:00Z,fixture,P3,H100-SXM-80GB,2.60,,,us-east\n",
                dom, dom);
        if (!mid[dom][0]) continue;
        fprintf(f, "trade,t-P1-%d,2025-01-0%dT09:00:00Z,fixture,P1,H100-SXM-80GB,%s,400,,us-east\n",
                dom, dom, lo[dom]);
        fprintf(f, "trade,t-P2-%d,2025-01-0%dT09:00:00Z,fixture,P2,H100-SXM-80GB,%s,400,,us-east\n",
                dom, dom, mid[dom]);
        fprintf(f, "trade,t-P3-%d,2025-01-0%dT09:00:00Z,fixture,P3,H100-SXM-80GB,%s,400,,us-east\n",
                dom, dom, hi[dom]);
    }
    fputs("offer,o-P1-1b,2025-01-01T13:00:00Z,fixture,P1,H100-SXM-80GB,2.10,,,us-east\n"
          "offer,o-P1-1c,2025-01-01T14:00:00Z,fixture,P1,H100-SXM-80GB,20.00,,,us-east\n"
          "trade,t-P3-1x,2025-01-01T10:00:00Z,fixture,P3,H100-SXM-80GB,9.99,500,cancelled,"
          "us-east\n",
          f);
    fclose(f);
    return buf;
}

static void test_csv_end_to_end(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-index-csv");
    char *m = market_csv(0), *l = market_csv(1);
    free(tu_write(tmp, "market.csv", m));
    free(tu_write(tmp, "late.csv", l));
    free(tu_write(tmp, "g.json", fx_grades_json));
    free(m);
    free(l);
    tu_run r = tu_gpuidx(tmp, "--db c.db ingest --admit-providers market.csv");
    if (r.status != 0 && strstr(r.err, "not built yet")) {
        printf("skip: ingest is not in this build yet\n");
        tu_run_free(&r);
        free(tmp);
        skip();
        return;
    }
    if (r.status != 0) fail_msg("ingest: %s", r.err);
    assert_non_null(strstr(r.out, "read 40, stored 40, duplicates 0, rejected 0"));
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db index build --grades g.json --from 2025-01-01 --to 2025-01-14");
    if (r.status != 0) fail_msg("build: %s", r.err);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db index show");
    assert_string_equal(r.out, want_show);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db index publish --grades g.json --date 2025-01-07 --out pub");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db ingest --admit-providers late.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db index build --grades g.json --from 2025-01-05 --to 2025-01-07");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "5 later days re-evaluated"));
    /* progress goes to a terminal only: none in a file */
    assert_null(strchr(r.err, '\r'));
    tu_run_free(&r);
    /* on a terminal (script(1) gives the build one), the day being built */
    r = tu_sh(tmp, "command -v script >/dev/null || exit 77; script -qec \"'%s' --db c.db "
                   "index build --grades g.json --from 2025-01-05 --to 2025-01-07\" /dev/null",
              getenv("GPUIDX_BIN"));
    if (r.status != 77) {
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\rindex build: 2025-01-07 (3 of 3 days)"));
    } else {
        printf("(no script(1): the progress line on a terminal is not checked)\n");
    }
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db index publish --grades g.json --date 2025-01-07 --out pub");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/pub/restatements.csv", tmp);
    char *rs = tu_read(p);
    assert_non_null(rs);
    assert_string_equal(rs, "date,grade,vintage,old,new,reason\n"
                            "2025-01-07,T,2,2.4580,2.5000,value moved by 1.71 % (more than "
                            "restate_threshold 0.10 %)\n");
    free(rs);
    free(p);
    free(tmp);
}

/* The real SkyPilot catalogue (offers only, no tiers): a 10-day slice
 * builds for a spot and an on-demand grade, every day at the offers level,
 * and no provider is screened out for listing far below the others. */
static void test_real_data_slice(void **state)
{
    (void)state;
    const char *real = tu_real_data();
    if (!real) {
        skip();
        return;
    }
    char *tmp = tu_mkdtemp("e2e-index-real");
    /* the catalogue is in date order (one snapshot a day, appended; checked:
     * no row's date is before the one above it), so reading stops at the
     * first later day -- the same slice, from half the file */
    tu_run r = tu_sh(tmp, "(zcat '%s/skypilot_offers_canonical.csv.gz' | awk -F, "
                          "'NR > 1 && $3 > \"2023-06-10\" { exit } "
                          "NR == 1 || $3 >= \"2023-06-01\"' > slice.csv)",
                     real);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db r.db ingest slice.csv");
    if (r.status != 0 && strstr(r.err, "not built yet")) {
        printf("skip: ingest is not in this build yet\n");
        tu_run_free(&r);
        free(tmp);
        skip();
        return;
    }
    if (r.status != 0) fail_msg("ingest: %s", r.err);
    tu_run_free(&r);
    free(tu_write(tmp, "g.json",
                  "{\"grades\": ["
                  "{\"id\": \"A100.OD\", \"gpu\": [\"A100-SXM-80GB\", \"A100-SXM-40GB\"],"
                  " \"term\": \"on-demand\"},"
                  "{\"id\": \"A100.SPOT\", \"gpu\": [\"A100-SXM-80GB\", \"A100-SXM-40GB\"],"
                  " \"term\": \"spot\"}]}"));
    r = tu_gpuidx(tmp, "--db r.db index build --grades g.json --from 2023-06-01 --to 2023-06-10");
    if (r.status != 0) fail_msg("build: %s", r.err);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db r.db index show");
    assert_int_equal(r.status, 0);
    int rows = 0;
    for (char *line = strchr(r.out, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        rows++;
        if (!strstr(line, ",offers,")) fail_msg("not an offers day: %.120s", line + 1);
    }
    assert_int_equal(rows, 20);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db r.db index publish --grades g.json --date 2023-06-05 --out pub");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    /* the cheapest observation of each grade entered the fix */
    r = tu_sh(tmp, "for g in A100.OD A100.SPOT; do awk -F, -v g=$g '$2 == g' "
                   "pub/2023-06-05/observations.csv | sort -t, -k10,10g | head -1 | "
                   "cut -d, -f12; done");
    assert_string_equal(r.out, "used\nused\n");
    tu_run_free(&r);
    /* no exclusion that is not an outlier within its own provider */
    r = tu_sh(tmp, "grep -c ',excluded,below' pub/2023-06-05/observations.csv || true");
    assert_string_equal(r.out, "0\n");
    tu_run_free(&r);
    free(tmp);
}

/* Regression (SPEC §6.0): building one day reads the carry history at
 * the build's own cut-off, not from rows stored by an earlier build whose
 * cut-off missed late data.  Day 1: P1 2.00/400, P2 2.10/300, P3 2.20/300
 * -> 2.1000 (all capped to 1/3); days 2-3 carried.  Late trade P4
 * 3.00/1000 on day 1: n = 4, s = 0.30, shares 0.2/0.15/0.15/0.5 -> P4 cut
 * to 0.3, the others 0.28/0.21/0.21; cumulative 0.28, 0.49, 0.70 at 2.20
 * -> 2.2000.  Building only day 3 with the default cut-off must carry
 * 2.2000 (tests/ref/ref_index.py gives the same row).
 * Day 1's manipulation cost, by hand: a new provider selling x GPU-hours
 * below 2.00 gets, while P1 (raw share 400/(1000+x)) is capped at 0.30,
 * 0.7 x/(600+x) of the weight; the weight at or below 2.00 reaches half,
 * 0.3 + 0.7 x/(600+x) = 0.5, at x = 240 (P1's raw share then 0.32 > 0.30:
 * still capped), where the median is the mean of 2.00 and 2.10 (2.0500,
 * -2.4 %).  Above every price it needs 400 (no one capped: 700/(1000+x)
 * = 1/2).  So 240.00 for one tick and for 1 %.  No provider can be left
 * out without voiding the day. */
static void test_history_at_build_cut_off(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-index-cutoff");
    free(tu_write(tmp, "a.csv",
                  "kind,id,observed_at,provider,gpu,price,quantity\n"
                  "trade,1,2025-05-01T01:00:00Z,P1,H100,2.00,400\n"
                  "trade,2,2025-05-01T01:00:00Z,P2,H100,2.10,300\n"
                  "trade,3,2025-05-01T01:00:00Z,P3,H100,2.20,300\n"));
    free(tu_write(tmp, "b.csv", "kind,id,observed_at,provider,gpu,price,quantity\n"
                                "trade,4,2025-05-01T02:00:00Z,P4,H100,3.00,1000\n"));
    free(tu_write(tmp, "g.json", fx_grades_json));
    tu_run r = tu_gpuidx(tmp, "--db h.db ingest --admit-providers a.csv");
    if (r.status != 0) fail_msg("ingest: %s", r.err);
    tu_run_free(&r);
    /* a cut-off at a.csv's second (inclusive), and b.csv in a later one */
    char cut[32];
    tu_wait_past(tu_last_batch_second(tmp, "h.db", cut));
    r = tu_gpuidx(tmp, "--db h.db ingest --admit-providers b.csv");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db h.db index build --grades g.json --from 2025-05-01 --to 2025-05-03"
                       " --as-of %s", cut);
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db h.db index build --grades g.json --from 2025-05-03 --to 2025-05-03");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db h.db index show");
    assert_string_equal(r.out,
                        HDR "2025-05-01,T,2.1000,trades,3,0,3,1000.00,,2.020000,2.050000,2.100000,"
                            "2.150000,2.180000,2.000000,2.200000,0.400000,v1," V1TAIL
                            ",,240.00,240.00,," T4 "\n"
                            "2025-05-02,T,2.1000,carried,0,0,0,0.00,,,,,,,,,,v1," V1TAIL
                            "no eligible observations" NOMANIP "\n"
                            "2025-05-03,T,2.2000,carried,0,0,0,0.00,,,,,,,,,,v1," V1TAIL
                            "no eligible observations" NOMANIP "\n");
    tu_run_free(&r);
    free(tmp);
}

/* Published files do not depend on how the store lays out its keys:
 * after every stored key's top bit is flipped (what schema migration 3
 * does to a database from before it), publishing to a new directory
 * regenerates vintage 1 from the database byte for byte. */
static void test_publish_independent_of_store_keys(void **state)
{
    (void)state;
    free(dir); /* the previous test's */
    dir = tu_mkdtemp("e2e-index-keys");
    store *st = NULL;
    gpi_diag d = {{0}};
    char *db = path_of("t.db");
    if (store_open(db, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    fx_market(st);
    store_close(st);
    free(tu_write(dir, "g.json", fx_grades_json));
    run_ok("index build --grades g.json --from 2025-01-01 --to 2025-01-14 --as-of " AS_OF_1);
    run_ok("index publish --grades g.json --from 2025-01-01 --to 2025-01-07 --out pub");
    sqlite3 *db3 = NULL;
    assert_int_equal(sqlite3_open(db, &db3), SQLITE_OK);
    const char *flip =
        "UPDATE observations SET key_hash = CASE WHEN key_hash < 0"
        " THEN key_hash & 9223372036854775807 ELSE key_hash | (-9223372036854775807 - 1) END;"
        "UPDATE index_exclusions SET key_hash = CASE WHEN key_hash < 0"
        " THEN key_hash & 9223372036854775807 ELSE key_hash | (-9223372036854775807 - 1) END;";
    char *err = NULL;
    if (sqlite3_exec(db3, flip, NULL, NULL, &err) != SQLITE_OK) fail_msg("%s", err);
    sqlite3_close(db3);
    tu_run r = tu_gpuidx(dir, "--db t.db index publish --grades g.json --from 2025-01-01 --to 2025-01-07 --out pub2");
    if (r.status != 0) fail_msg("publish after the flip: %s", r.err);
    tu_run_free(&r);
    static const char *const files[] = {"index.csv", "index.json", "observations.csv"};
    for (int day = 1; day <= 7; day++)
        for (int k = 0; k < 3; k++) {
            char a[64], b[64];
            snprintf(a, sizeof a, "pub/2025-01-%02d/v1/%s", day, files[k]);
            snprintf(b, sizeof b, "pub2/2025-01-%02d/v1/%s", day, files[k]);
            char *x = read_rel(a), *y = read_rel(b);
            assert_string_equal(y, x);
            free(x);
            free(y);
        }
    /* and a grade's lines are in identity-hash order */
    char *obs1 = read_rel("pub/2025-01-01/observations.csv");
    const char *p = strchr(obs1, '\n') + 1;
    long long prev = INT64_MIN;
    int lines = 0;
    for (; *p; p = strchr(p, '\n') + 1, lines++) {
        const char *k = p;
        for (int c = 0; c < 7; c++) k = strchr(k, ',') + 1;
        long long key = (long long)strtoull(k, NULL, 16);
        assert_true(key >= prev);
        prev = key;
    }
    assert_int_equal(lines, 5);
    free(obs1);
    free(db);
    free(dir);
    dir = NULL;
}

/* What publish refuses, and a restatement from 0.0000:
 *  - --out naming a file: exit 1 and no vintage recorded (index show's
 *    vintage column stays empty);
 *  - a file at DIR/D: exit 1, the file kept as it was;
 *  - a value published as 0.0000 (trades at 0.00001) that late trades move
 *    to 0.0002: restated (any move from 0 exceeds the threshold), with a
 *    reason that has no percentage. */
static void test_publish_refusals(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-index-refuse");
    free(tu_write(tmp, "g.json", fx_grades_json));
    free(tu_write(tmp, "cheap.csv",
                  "kind,id,observed_at,source,provider,gpu,price,quantity\n"
                  "trade,a1,2025-03-01T09:00:00Z,fixture,P1,H100-SXM-80GB,0.00001,400\n"
                  "trade,a2,2025-03-01T09:00:00Z,fixture,P2,H100-SXM-80GB,0.00001,400\n"
                  "trade,a3,2025-03-01T09:00:00Z,fixture,P3,H100-SXM-80GB,0.00001,400\n"));
    free(tu_write(tmp, "late.csv",
                  "kind,id,observed_at,source,provider,gpu,price,quantity\n"
                  "trade,b1,2025-03-01T10:00:00Z,fixture,P1,H100-SXM-80GB,0.0002,4000\n"
                  "trade,b2,2025-03-01T10:00:00Z,fixture,P2,H100-SXM-80GB,0.0002,4000\n"
                  "trade,b3,2025-03-01T10:00:00Z,fixture,P3,H100-SXM-80GB,0.0002,4000\n"));
    free(tu_write(tmp, "afile", "not a folder\n"));
    static const char *const setup[] = {
        "\"$GPUIDX_BIN\" --db c.db ingest --admit-providers cheap.csv",
        "\"$GPUIDX_BIN\" --db c.db index build --grades g.json --from 2025-03-01 --to 2025-03-01",
    };
    tu_run r = tu_sh_all(tmp, setup, sizeof setup / sizeof setup[0]);
    tu_run_free(&r);
    static const char row_unpublished[] =
        "2025-03-01,T,0.0000,trades,3,0,3,1200.00,,0.000010,0.000010,0.000010,0.000010,"
        "0.000010,0.000010,0.000010,0.333333,v1," V1TAIL NOMANIP "\n";

    r = tu_gpuidx(tmp, "--db c.db index publish --grades g.json --date 2025-03-01 --out afile");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "afile: not a directory"));
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db index show");
    assert_true(strncmp(r.out, HDR, strlen(HDR)) == 0);
    assert_string_equal(r.out + strlen(HDR), row_unpublished);
    tu_run_free(&r);

    r = tu_sh(tmp, "mkdir pub && printf 'notes\\n' > pub/2025-03-01");
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db c.db index publish --grades g.json --date 2025-03-01 --out pub");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: pub/2025-03-01: not a directory (remove or move it first)\n");
    tu_run_free(&r);
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/pub/2025-03-01", tmp);
    char *kept = tu_read(p);
    assert_non_null(kept);
    assert_string_equal(kept, "notes\n");
    free(kept);
    r = tu_gpuidx(tmp, "--db c.db index show");
    assert_string_equal(r.out + strlen(HDR), row_unpublished);
    tu_run_free(&r);

    static const char *const steps[] = {
        "rm pub/2025-03-01",
        "\"$GPUIDX_BIN\" --db c.db index publish --grades g.json --date 2025-03-01 --out pub",
        "\"$GPUIDX_BIN\" --db c.db ingest --admit-providers late.csv",
        "\"$GPUIDX_BIN\" --db c.db index build --grades g.json --from 2025-03-01 --to 2025-03-01",
        "\"$GPUIDX_BIN\" --db c.db index publish --grades g.json --date 2025-03-01 --out pub",
    };
    r = tu_sh_all(tmp, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    snprintf(p, 4096, "%s/pub/restatements.csv", tmp);
    char *rs = tu_read(p);
    assert_non_null(rs);
    assert_string_equal(rs, "date,grade,vintage,old,new,reason\n"
                            "2025-03-01,T,2,0.0000,0.0002,value moved from 0.0000 (more than "
                            "restate_threshold 0.10 %)\n");
    free(rs);
    free(p);
    free(tmp);
}

/* Four publishers of one day into one DIR at once take turns (DIR's lock):
 * all succeed, the day has vintage 1 only, no temporary folder is left,
 * and the files equal a publication made alone. */
static void test_publish_concurrent(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-index-concurrent");
    char *m = market_csv(0);
    free(tu_write(tmp, "market.csv", m));
    free(m);
    free(tu_write(tmp, "g.json", fx_grades_json));
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" --db c.db ingest --admit-providers market.csv >/dev/null",
        "\"$GPUIDX_BIN\" --db c.db index build --grades g.json --from 2025-01-01 --to 2025-01-07"
        " 2>/dev/null",
        "\"$GPUIDX_BIN\" --db c.db index publish --grades g.json --date 2025-01-07 --out alone >/dev/null",
        "p=; for i in 1 2 3 4; do \"$GPUIDX_BIN\" --db c.db index publish --grades g.json --date 2025-01-07 --out pub"
        " >/dev/null 2>&1 & p=\"$p $!\"; done; fail=0; for x in $p; do wait $x || fail=1; done;"
        " exit $fail",
        /* in ( ): the harness redirects the last command's stdin */
        "(ls -A pub | grep -v '^\\.gpuidx-lock$' | tr '\\n' ' '; ls pub/2025-01-07 | tr '\\n' ' ')",
    };
    tu_run r = tu_sh_all(tmp, steps, sizeof steps / sizeof steps[0]);
    assert_string_equal(r.out, "2025-01-07 datapackage.json restatements.csv curve.csv curve.json "
                               "datapackage.json index.csv index.json observations.csv v1 ");
    tu_run_free(&r);
    r = tu_sh(tmp, "diff -r alone pub");
    if (r.status != 0) fail_msg("the files differ:\n%s", r.out);
    tu_run_free(&r);
    free(tmp);
}

/* Ten trades of just under 10^12 GPU-hours (the most one trade may have) on
 * one grade-day add up to more than 64 bits of micro-GPU-hours: the build
 * stops with an error naming the day and grade instead of wrapping round. */
static void test_volume_overflow(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-index-volume");
    free(tu_write(tmp, "g.json", fx_grades_json));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputs("kind,id,observed_at,source,provider,gpu,price,quantity\n", f);
    for (int i = 0; i < 10; i++)
        fprintf(f, "trade,v%d,2025-03-01T09:00:00Z,fixture,P%d,H100-SXM-80GB,2.00,999999999999\n",
                i, 1 + i % 3);
    fclose(f);
    free(tu_write(tmp, "big.csv", buf));
    free(buf);
    tu_run r = tu_gpuidx(tmp, "--db v.db ingest --admit-providers big.csv");
    if (r.status != 0) fail_msg("ingest: %s", r.err);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db v.db index build --grades g.json --from 2025-03-01 --to 2025-03-01");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: 2025-03-01: grade T: the day's trade volume is over "
                               "9,223,372 million GPU-hours (too large to add up)\n");
    tu_run_free(&r);
    free(tmp);
}

/* Vintages published in file format 1 (before methodology v2's columns):
 * a database and its files made by the build before v2 (fixture: its SQL
 * dump and the published tree).  With the kept copies gone, publishing
 * again regenerates both vintages, after the schema migration, byte for
 * byte in format 1. */
static void test_format1_vintages_regenerate(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-format1");
    char sql_path[4096], db_path[4096];
    snprintf(sql_path, sizeof sql_path, "%s/tests/fixtures/format1/store.sql", tu_srcdir());
    snprintf(db_path, sizeof db_path, "%s/t.db", tmp);
    char *sql = tu_read(sql_path);
    assert_non_null(sql);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    free(sql);
    static const char *const files[] = {"index.csv", "index.json", "observations.csv"};
    static const char *const sub[] = {"", "v1/", "v2/"};
    tu_run r = tu_sh(tmp, "cp -r '%s/tests/fixtures/format1/pub' pub && rm -f pub/2025-01-02/*.* "
                          "pub/2025-01-02/v1/* pub/2025-01-02/v2/*",
                     tu_srcdir());
    assert_int_equal(r.status, 0);
    tu_run_free(&r);
    /* the grades file it was published with (the published grade set) */
    free(tu_write(tmp, "g.json",
                  "{\"grades\": [{\"id\": \"H100.OD\", \"gpu\": [\"H100-SXM-80GB\"], "
                  "\"term\": \"on-demand\"}]}\n"));
    r = tu_gpuidx(tmp, "--db t.db index publish --date 2025-01-02 --out pub --grades g.json");
    if (r.status != 0) fail_msg("publish: %s", r.err);
    assert_non_null(strstr(r.err, "vintage 2 (unchanged"));
    tu_run_free(&r);
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < 3; i++) {
            char want[4096], got[4096];
            snprintf(want, sizeof want, "%s/tests/fixtures/format1/pub/2025-01-02/%s%s",
                     tu_srcdir(), sub[k], files[i]);
            snprintf(got, sizeof got, "%s/pub/2025-01-02/%s%s", tmp, sub[k], files[i]);
            char *a = tu_read(want), *b = tu_read(got);
            if (!a || !b) fail_msg("missing %s or %s", want, got);
            if (strcmp(a, b) != 0) fail_msg("%s%s differs:\n%s\nvs\n%s", sub[k], files[i], b, a);
            free(a);
            free(b);
        }
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_show_publish_restate),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_csv_end_to_end),
        cmocka_unit_test(test_real_data_slice),
        cmocka_unit_test(test_history_at_build_cut_off),
        cmocka_unit_test(test_publish_independent_of_store_keys),
        cmocka_unit_test(test_publish_refusals),
        cmocka_unit_test(test_volume_overflow),
        cmocka_unit_test(test_publish_concurrent),
        cmocka_unit_test(test_format1_vintages_regenerate),
    };
    return cmocka_run_group_tests_name("e2e_index", tests, NULL, NULL);
}
