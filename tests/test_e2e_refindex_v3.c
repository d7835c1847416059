/* tests/test_e2e_refindex_v3.c -- methodology v3 (METHODOLOGY.md §13):
 * `gpuidx index build/show/publish/verify` against tests/ref/ref_v3.py, an
 * independent implementation written from the text (exact fractions; ln
 * and exp in decimal arithmetic).
 *
 * The market is ref_index.py's generated one (a provider leaving for 19
 * days and coming back, one entering for three weeks far below the market
 * and leaving, SKUs relisted under new ids, a catalogue replaced while its
 * trades pause, a feed outage on the 1st, providers trading in turn, x10
 * prints), with v3 grades whose admission and absence days make it
 * exercise every rule: admission, imputation on offers and on trades days,
 * exit, readmission, candidates, a day with imputed members and no member
 * present (the outage: no fix), the price index's matched, carried and
 * new items, its cap, a change below min_providers, the gaps.  Every field
 * of every row of `index show` must equal the reference, built at once, in
 * pieces latest first (replays from the first day observed), day by day
 * (the daily job: each day resumes from the state the day before left)
 * and after late data (re-evaluation of every later day); every published
 * day verifies (gpuidx verify recomputes the fix, the roles, the imputed
 * members and the index's step from the files).  Skipped when
 * /usr/bin/python3 is absent.
 */
#include "tests/testutil.h"
#include "tests/refindex_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FROM "2024-03-01"
#define TO "2024-04-29"

static const char grades[] =
    "{\"grades\": ["
    /* the defaults */
    "{\"id\": \"W.H100.OD\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"method\": \"v3\"},"
    /* quick to join and to leave: nebius (away 19 days) leaves and is
     * admitted again, newco joins and leaves, members are imputed */
    "{\"id\": \"W.H100.QUICK\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"method\": \"v3\", \"admission_days\": 2, \"absence_days\": 2},"
    "{\"id\": \"W.H100.SPOT\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"spot\","
    " \"min_tier\": \"bronze\", \"method\": \"v3\", \"admission_days\": 3,"
    " \"absence_days\": 3},"
    "{\"id\": \"W.A100.SPOT\", \"gpu\": [\"A100-SXM-80GB\", \"A100-SXM-40GB\"], \"term\": \"spot\","
    " \"method\": \"v3\", \"admission_days\": 4, \"absence_days\": 5, \"max_carry_days\": 2},"
    /* providers trading in turn: imputed trades keep the trades level */
    "{\"id\": \"W.TURN\", \"gpu\": [\"L40S\"], \"method\": \"v3\", \"admission_days\": 2,"
    " \"absence_days\": 3},"
    /* every v1 parameter overridden, a tight cap on the index */
    "{\"id\": \"W.OVR\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\", \"method\": \"v3\","
    " \"error_factor\": 1.05, \"cap_floor\": 0.25, \"min_providers\": 2,"
    " \"min_trade_volume\": 500.5, \"max_carry_days\": 2, \"adj_lookback_days\": 10,"
    " \"adj_min_days\": 3, \"rounding\": 0.0005, \"admission_days\": 1, \"absence_days\": 0}"
    "]}\n";

static void show_vs_ref(const char *tmp, const char *db, const char *from, const char *to,
                        char **ref_cache)
{
    tu_run c = tu_gpuidx(tmp, "--db %s index show --from %s --to %s", db, from, to);
    if (c.status != 0) fail_msg("show: %s", c.err);
    if (!*ref_cache) {
        tu_run r = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_index.py' --db %s --grades "
                              "g.json --from %s --to %s",
                         tu_srcdir(), db, from, to);
        if (r.status != 0) fail_msg("ref_index.py: %s", r.err);
        *ref_cache = r.out;
        r.out = NULL;
        tu_run_free(&r);
    }
    int bad = 0;
    char *msg = NULL;
    int rows = diff_show(c.out, *ref_cache, &bad, &msg);
    if (bad) fail_msg("%s (%s)\n(%d rows differ)", msg, db, bad);
    assert_true(rows > 300);
    tu_run_free(&c);
}

/* Counts of what the market exercised, from `index show`. */
static void exercised(const char *out)
{
    const char *p = out;
    record x = {0};
    long imputed = 0, joins = 0, moved = 0, trades = 0, capped_like = 0, cand = 0, gaps = 0;
    long unobserved = 0; /* the outage: imputed members and no member present */
    for (int first = 1; record_read(&p, &x); first = 0, record_free(&x)) {
        if (first) continue;
        assert_int_equal(x.n, N_FIELDS);
        imputed += atol(x.f[F_IMPUTED]) > 0;
        joins += strcmp(x.f[F_PANEL], "1") == 0;
        moved += *x.f[F_INDEX_CHANGE] && strcmp(x.f[F_INDEX_CHANGE], "1.000000000000") != 0;
        trades += strcmp(x.f[F_LEVEL], "trades") == 0;
        cand += atol(x.f[F_CANDIDATES]) > 0;
        gaps += *x.f[F_GAP] && strcmp(x.f[F_GAP], "0.000000") != 0;
        capped_like += *x.f[F_INDEX_PROVIDERS] && atol(x.f[F_INDEX_PROVIDERS]) < 3 &&
                       *x.f[F_PRICE_INDEX];
        unobserved += strncmp(x.f[F_NOTE], "no member of the panel present (", 32) == 0;
    }
    if (imputed < 10 || joins < 5 || moved < 20 || trades < 20 || cand < 10 || gaps < 10 ||
        capped_like < 1 || unobserved < 1)
        fail_msg("the market exercises too little: %ld imputed days, %ld panel changes, %ld index "
                 "moves, %ld trades days, %ld days with candidates, %ld gaps, %ld days with few "
                 "index providers, %ld days without a member present",
                 imputed, joins, moved, trades, cand, gaps, capped_like, unobserved);
}

static void test_v3_matches_reference(void **state)
{
    (void)state;
    if (!have_python()) return;
    char *tmp = tu_mkdtemp("e2e-refindex-v3");
    free(tu_write(tmp, "g.json", grades));
    tu_run r = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_index.py' gen --days 60 --seed 11 "
                          "--start 2024-03-01 --out .", tu_srcdir());
    ok(&r, "ref_index.py gen");
    /* late data: the trades of 2024-03-20..22 come in a second batch */
    r = tu_sh(tmp, "awk -F, 'NR == 1 || !($1 == \"trade\" && $3 >= \"2024-03-20\" && "
                   "$3 < \"2024-03-23\")' market.csv > a.csv && awk -F, 'NR == 1 || "
                   "($1 == \"trade\" && $3 >= \"2024-03-20\" && $3 < \"2024-03-23\")' "
                   "market.csv > b.csv");
    ok(&r, "split");
    char *ref = NULL;
    /* at once */
    r = tu_gpuidx(tmp, "--db m.db ingest --admit-providers market.csv");
    ok(&r, "ingest");
    r = tu_gpuidx(tmp, "--db m.db index build --grades g.json --from " FROM " --to " TO);
    ok(&r, "build");
    show_vs_ref(tmp, "m.db", FROM, TO, &ref);
    tu_run s = tu_gpuidx(tmp, "--db m.db index show --from " FROM " --to " TO);
    exercised(s.out);
    tu_run_free(&s);
    /* in pieces, latest first */
    r = tu_gpuidx(tmp, "--db p.db ingest --admit-providers market.csv");
    ok(&r, "ingest p");
    static const char *const pieces[][2] = {{"2024-04-15", TO}, {"2024-03-20", "2024-04-14"},
                                            {FROM, "2024-03-19"}};
    for (int i = 0; i < 3; i++) {
        r = tu_gpuidx(tmp, "--db p.db index build --grades g.json --from %s --to %s",
                      pieces[i][0], pieces[i][1]);
        ok(&r, "build a piece");
    }
    show_vs_ref(tmp, "p.db", FROM, TO, &ref);
    /* day by day, after a first week (each day resumes from the day
     * before's state) */
    r = tu_gpuidx(tmp, "--db d.db ingest --admit-providers market.csv");
    ok(&r, "ingest d");
    r = tu_gpuidx(tmp, "--db d.db index build --grades g.json --from " FROM " --to 2024-03-07");
    ok(&r, "build the first week");
    r = tu_sh(tmp, "for d in $(/usr/bin/python3 -c \"import datetime as t; a = t.date(2024, 3, "
                   "8); print(' '.join(str(a + t.timedelta(days=k)) for k in range(53)))\"); do "
                   "\"$GPUIDX_BIN\" --db d.db index build --grades g.json --from $d --to $d "
                   "2>&1 | grep -q '0 later days' || exit 1; done");
    ok(&r, "build day by day");
    show_vs_ref(tmp, "d.db", FROM, TO, &ref);
    /* late data: everything built, then the late trades, then March
     * rebuilt: every later day is re-evaluated */
    r = tu_gpuidx(tmp, "--db l.db ingest --admit-providers a.csv");
    ok(&r, "ingest a");
    r = tu_gpuidx(tmp, "--db l.db index build --grades g.json --from " FROM " --to " TO);
    ok(&r, "build l");
    r = tu_gpuidx(tmp, "--db l.db ingest --admit-providers b.csv");
    ok(&r, "ingest b");
    r = tu_gpuidx(tmp, "--db l.db index build --grades g.json --from 2024-03-20 --to 2024-03-22");
    ok(&r, "rebuild");
    show_vs_ref(tmp, "l.db", FROM, TO, &ref);
    /* published days verify from their files alone */
    r = tu_gpuidx(tmp, "--db m.db index publish --grades g.json --from 2024-03-10 --to 2024-04-20 "
                       "--out pub");
    ok(&r, "publish");
    r = tu_gpuidx(tmp, "verify pub");
    if (r.status != 0) fail_msg("verify: %s%s", r.out, r.err);
    assert_non_null(strstr(r.out, "verify: 42 days, 252 grade-days: "));
    assert_non_null(strstr(r.out, " 0 differ"));
    assert_null(strstr(r.out, "DIFFERS"));
    tu_run_free(&r);
    /* the bootstrap intervals (file format 4) of days with imputed members:
     * tests/ref/ref_boot.py, over the same lines */
    for (int k = 0; k < 3; k++) {
        static const char *const days[] = {"2024-03-20", "2024-04-01", "2024-04-10"};
        r = tu_sh(tmp, "{ /usr/bin/python3 '%s/tests/ref/ref_boot.py' pub/%s | grep -v skip |"
                       " sort; }", tu_srcdir(), days[k]);
        tu_run p = tu_sh(tmp, "{ tail -n +2 pub/%s/index.csv | awk -F, '$34 != \"\" {print $2,"
                              " $34, $35}' | sort; }", days[k]);
        assert_int_equal(r.status, 0);
        if (strcmp(r.out, p.out) != 0)
            fail_msg("%s: ref_boot.py\n%s\nindex.csv\n%s", days[k], r.out, p.out);
        tu_run_free(&p);
        tu_run_free(&r);
    }
    /* a changed number is found: the published index (in both files), an
     * imputed member's carried observation (its price, with the receipts
     * and the files' SHA-256 made again) */
    static const char change[] =
        "import re\n"
        "d = 'pub/2024-03-20/'\n"
        "j = open(d + 'index.json').read()\n"
        "m = re.search(r'\"grade\":\"W.H100.QUICK\".*?\"price_index\":([0-9.]+)', j)\n"
        "old = m.group(1)\n"
        "new = '%.6f' % (float(old) + 0.000001)\n"
        "open(d + 'index.json', 'w').write(j[:m.start(1)] + new + j[m.end(1):])\n"
        "c = open(d + 'index.csv').read().split('\\n')\n"
        "c = [l.replace(',' + old + ',', ',' + new + ',') if ',W.H100.QUICK,' in l else l\n"
        "     for l in c]\n"
        "open(d + 'index.csv', 'w').write('\\n'.join(c))\n";
    free(tu_write(tmp, "change.py", change));
    r = tu_sh(tmp, "/usr/bin/python3 change.py");
    ok(&r, "change the index");
    r = tu_gpuidx(tmp, "verify pub/2024-03-20");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "2024-03-20 W.H100.QUICK: DIFFERS price_index: published "));
    tu_run_free(&r);
    free(ref);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v3_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
