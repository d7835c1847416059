/* tests/test_e2e_reach.c -- the manipulation figures of methodology v3 in
 * the unit that settles money (METHODOLOGY.md §11.4; index/v3_reach.c) as
 * `gpuidx index publish` writes them in index.json's v3.manipulation,
 * against tests/ref/ref_reach.py, written from the text on
 * tests/ref/ref_v3.py's v3 (exact fractions): every day's reach by kind
 * (low, high, void, carry) and every month's largest FSP move through the
 * day, calendar and business days, of every v3 grade, equal to the digit.
 *
 * The market is ref_index.py's generated one (tests/test_e2e_refindex_v3.c
 * says what it holds: providers leaving and coming back, a newcomer far
 * below the market, trades in turn, x10 prints, a feed outage) with the
 * same v3 grades: offers and trades days, carried and suspended days,
 * imputed members, a panel thin enough that one member's withdrawal
 * carries the day.  Skipped when /usr/bin/python3 is absent.
 */
#include "tests/testutil.h"
#include "tests/refindex_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FROM "2024-03-01"
#define TO "2024-04-29"

static const char grades[] =
    "{\"grades\": ["
    "{\"id\": \"W.H100.OD\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"method\": \"v3\"},"
    "{\"id\": \"W.H100.QUICK\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"method\": \"v3\", \"admission_days\": 2, \"absence_days\": 2},"
    "{\"id\": \"W.A100.SPOT\", \"gpu\": [\"A100-SXM-80GB\"], \"term\": \"spot\","
    " \"method\": \"v3\", \"admission_days\": 4, \"absence_days\": 5, \"max_carry_days\": 2},"
    "{\"id\": \"W.TURN\", \"gpu\": [\"L40S\"], \"method\": \"v3\", \"admission_days\": 2,"
    " \"absence_days\": 3},"
    "{\"id\": \"W.OVR\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\", \"method\": \"v3\","
    " \"error_factor\": 1.05, \"cap_floor\": 0.25, \"min_providers\": 2,"
    " \"min_trade_volume\": 500.5, \"max_carry_days\": 2, \"adj_lookback_days\": 10,"
    " \"adj_min_days\": 3, \"rounding\": 0.0005, \"admission_days\": 1, \"absence_days\": 0}"
    "]}\n";

static void test_published_figures_equal_reference(void **state)
{
    (void)state;
    if (!have_python()) {
        skip();
        return;
    }
    char *tmp = tu_mkdtemp("e2e-reach");
    free(tu_write(tmp, "g.json", grades));
    tu_run r = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_index.py' gen --days 60 --seed 11 "
                          "--start 2024-03-01 --out .",
                     tu_srcdir());
    ok(&r, "ref_index.py gen");
    r = tu_gpuidx(tmp, "--db m.db ingest --admit-providers market.csv");
    ok(&r, "ingest");
    r = tu_gpuidx(tmp, "--db m.db index build --grades g.json --from " FROM " --to " TO);
    ok(&r, "build");
    r = tu_gpuidx(tmp, "--db m.db index publish --grades g.json --from " FROM " --to " TO
                       " --out pub");
    ok(&r, "publish");
    tu_run want = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_reach.py' --db m.db --grades "
                             "g.json --from " FROM " --to " TO,
                        tu_srcdir());
    if (want.status != 0) fail_msg("ref_reach.py: %s", want.err);
    tu_run got = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_reach.py' --published pub "
                            "--grades g.json",
                       tu_srcdir());
    if (got.status != 0) fail_msg("ref_reach.py --published: %s", got.err);
    /* line by line: the first difference named */
    const char *a = want.out, *b = got.out;
    int line = 1, rows = 0;
    while (*a || *b) {
        size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
        if (na != nb || memcmp(a, b, na) != 0)
            fail_msg("line %d differs:\n  reference: %.*s\n  published: %.*s", line, (int)na, a,
                     (int)nb, b);
        a += na + (a[na] == '\n');
        b += nb + (b[nb] == '\n');
        line++;
        rows++;
    }
    assert_int_equal(rows, 1 + 5 * 60);
    /* the market exercised the rules: days that can lose their value,
     * operations that leave a day carried, figures on trades days */
    assert_non_null(strstr(want.out, ",true,"));
    assert_non_null(strstr(want.out, "2024-03-21,W.TURN,19,14,1.0897,11.9500,"));
    tu_run_free(&want);
    tu_run_free(&got);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_figures_equal_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
