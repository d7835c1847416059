/* tests/test_e2e_refindex_v2.c -- methodology v2 (METHODOLOGY §10): hand-
 * computed cases that pin readings tools/ref_index.py shares with gpuidx,
 * and minimal reproductions of the known disagreements of gpuidx with the
 * text (run with GPUIDX_REFINDEX_STRICT=1; skipped otherwise, with a
 * message).  The generated-market comparison of v1 and v2 grades is
 * tests/test_e2e_refindex.c.  Every case checks the binary and, when
 * /usr/bin/python3 is present, the reference against the same text.
 */
#include "tests/testutil.h"
#include "tests/refindex_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v2, anchor_days 2, offers of P1, P2, P3 (bases on 01-30: 1.00, 2.00,
 * 3.00; the chain starts at xs 2.0000).  01-31: 1.01, 2.03, 3.04, relatives
 * 1.01, 1.015, 1.013333333333 -> R = 1.013333333333, chain
 * round(2e9 x R) = 2026666667 nano (2.0267), xs 2.0300.  02-01 (a
 * rebalance): 1.0504, 2.1112, 3.04 -> S_D = 1.0504, R = 1.0504 /
 * 1.013333333333 = 1.036578947369, C = round(2026666667 x R) = 2100800000.
 * The anchor is the median of 01-31's xs carried to D, 2.03e9 x C /
 * 2026666667 = 2104255262.81 -> 2104255263 nano, and xs_D 2111200000: their
 * mean 2107727631.5 -> 2107727632 (the exact mean 2107727631.41 would give
 * 2107727631), splice 2107727632 / 2100800000 = 1.003297616146
 * (1.003297615670 with the exact mean): §10.4's terms are nano values and
 * only the mean of an even count is rounded again.  Bands: provider prices
 * (one each), weight 1/3. */
static void test_v2_anchor_terms_are_nano(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-anchor");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-01-30T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-01-30T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-01-30T08:00:00Z,P3,H100,3.00\n"
                  "offer,a,2025-01-31T08:00:00Z,P1,H100,1.01\n"
                  "offer,b,2025-01-31T08:00:00Z,P2,H100,2.03\n"
                  "offer,c,2025-01-31T08:00:00Z,P3,H100,3.04\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,1.0504\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.1112\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,3.04\n"));
    free(tu_write(tmp, "g.json", "{\"grades\": [{\"id\": \"T\", \"gpu\": [\"H100-SXM-80GB\"],"
                                 " \"method\": \"v2\", \"anchor_days\": 2}]}"));
    hand_case(tmp, "2025-01-30", "2025-02-01",
              HDR "2025-01-30,T,2.0000,offers,3,0,3,0.00,1.000000,1.000000,1.000000,2.000000,"
                  "3.000000,3.000000,1.000000,3.000000,0.333333,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-01-31,T,2.0267,offers,3,0,3,0.00,1.000000,1.010000,1.010000,2.030000,"
                  "3.040000,3.040000,1.010000,3.040000,0.333333,v2,,2.0300,offers,"
                  "1.013333333333,3,3,0,,,\n"
                  "2025-02-01,T,2.1077,offers,3,0,3,0.00,1.000000,1.050400,1.050400,2.111200,"
                  "3.040000,3.040000,1.050400,3.040000,0.333333,v2,,2.1112,offers,"
                  "1.036578947369,3,3,0,rebalance,1.003297616146,\n");
    free(tmp);
}

/* v2: P1's offer falls from 2.00 to 0.000001, a relative of 5e-7 to base,
 * outside [0.000001, 1000000]: left out as implausible, M keeps P2 and P3,
 * fewer than 3 providers, the day is carried (the cross-section, a median
 * of 0.000001, 2.00, 2.20, stays 2.0000).  On 02-03 F is still 02-01. */
static void test_v2_implausible_relative_left_out(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-implausible");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,2.00\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,2.00\n"
                  "offer,a,2025-02-02T08:00:00Z,P1,H100,0.000001\n"
                  "offer,b,2025-02-02T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-02T08:00:00Z,P3,H100,2.20\n"
                  "offer,a,2025-02-03T08:00:00Z,P1,H100,2.00\n"
                  "offer,b,2025-02-03T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-03T08:00:00Z,P3,H100,2.20\n"));
    free(tu_write(tmp, "g.json", "{\"grades\": [{\"id\": \"T\", \"gpu\": [\"H100-SXM-80GB\"],"
                                 " \"method\": \"v2\"}]}"));
    hand_case(tmp, "2025-02-01", "2025-02-03",
              HDR "2025-02-01,T,2.0000,offers,3,0,3,0.00,1.000000,2.000000,2.000000,2.000000,"
                  "2.000000,2.000000,2.000000,2.000000,0.333333,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-02,T,2.0000,carried,3,0,3,0.00,1.000000,0.000001,0.000001,2.000000,"
                  "2.200000,2.200000,0.000001,2.200000,0.333333,v2,,2.0000,offers,,2,2,0,,,"
                  "no matched change: 2 of the panel's providers priced on both days (need 3)\n"
                  "2025-02-03,T,2.0000,offers,3,0,3,0.00,1.000000,2.000000,2.000000,2.000000,"
                  "2.200000,2.200000,2.000000,2.200000,0.333333,v2,,2.0000,offers,"
                  "1.000000000000,3,3,0,,,\n");
    free(tmp);
}

static int run_known(void)
{
    if (strict_mode()) return 1;
    printf("skip: a reported disagreement of gpuidx with METHODOLOGY §10 "
           "(GPUIDX_REFINDEX_STRICT=1 runs it)\n");
    return 0;
}

/* Known disagreement 1.  02-01: a, b, c start the chain.  02-02: no
 * observation at all, the day is carried: a, b and c left since F = 02-01,
 * so panel_change is 1 (§10.6); 02-03 (only a) and 02-05 (d enters) are 1,
 * 02-04 (a, b, c as on 02-01) is 0.  The binary prints 0 on 02-02. */
static void test_known_panel_change_empty_day(void **state)
{
    (void)state;
    if (!run_known()) {
        skip();
        return;
    }
    char *tmp = tu_mkdtemp("e2e-refindex-known1");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,3.00\n"
                  "offer,a,2025-02-03T08:00:00Z,P1,H100,1.00\n"
                  "offer,a,2025-02-04T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-04T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-04T08:00:00Z,P3,H100,3.00\n"
                  "offer,a,2025-02-05T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-05T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-05T08:00:00Z,P3,H100,3.00\n"
                  "offer,d,2025-02-05T08:00:00Z,P4,H100,9.00\n"));
    free(tu_write(tmp, "g.json", "{\"grades\": [{\"id\": \"T\", \"gpu\": [\"H100-SXM-80GB\"],"
                                 " \"method\": \"v2\"}]}"));
    hand_case(tmp, "2025-02-01", "2025-02-05",
              HDR "2025-02-01,T,2.0000,offers,3,0,3,0.00,1.000000,1.000000,1.000000,2.000000,"
                  "3.000000,3.000000,1.000000,3.000000,0.333333,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-02,T,2.0000,carried,0,0,0,0.00,,,,,,,,,,v2,,2.0000,carried,,0,0,1,,,"
                  "no eligible observations to match\n"
                  "2025-02-03,T,2.0000,carried,1,0,1,0.00,,,,,,,,,,v2,,2.0000,carried,,1,1,1,,,"
                  "no matched change: 1 of the panel's providers priced on both days (need 3)\n"
                  "2025-02-04,T,2.0000,offers,3,0,3,0.00,1.000000,1.000000,1.000000,2.000000,"
                  "3.000000,3.000000,1.000000,3.000000,0.333333,v2,,2.0000,offers,"
                  "1.000000000000,3,3,0,,,\n"
                  "2025-02-05,T,2.0000,offers,4,0,4,0.00,1.000000,1.000000,1.500000,2.500000,"
                  "6.000000,9.000000,1.000000,9.000000,0.250000,v2,,2.5000,offers,"
                  "1.000000000000,3,3,1,,,\n");
    free(tmp);
}

/* Known disagreement 2.  max_carry_days 0: c leaves on 02-02, nothing is
 * matched and nothing may be carried, the cross-section (two providers)
 * has no fix: the day is suspended with the whole note (191 bytes); the
 * binary cuts it after "offers: 2 providers after the ". */
static void test_known_long_note(void **state)
{
    (void)state;
    if (!run_known()) {
        skip();
        return;
    }
    char *tmp = tu_mkdtemp("e2e-refindex-known2");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,3.00\n"
                  "offer,a,2025-02-02T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-02T08:00:00Z,P2,H100,2.00\n"));
    free(tu_write(tmp, "g.json", "{\"grades\": [{\"id\": \"T\", \"gpu\": [\"H100-SXM-80GB\"],"
                                 " \"method\": \"v2\", \"max_carry_days\": 0}]}"));
    hand_case(tmp, "2025-02-01", "2025-02-02",
              HDR "2025-02-01,T,2.0000,offers,3,0,3,0.00,1.000000,1.000000,1.000000,2.000000,"
                  "3.000000,3.000000,1.000000,3.000000,0.333333,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-02,T,,suspended,2,0,2,0.00,,,,,,,,,,v2,,,suspended,,2,2,1,,,"
                  "carried 0 days (max_carry_days) and the cross-section has no fix: trades: 0.00 "
                  "GPU-hours from 0 providers (need 1000.00 from 3); offers: 2 providers after the "
                  "screen (need 3); carried 0 days already (max_carry_days)\n");
    free(tmp);
}

/* Known disagreement 3.  Trades only, trade_carry_days 2: on 01-01 P1, P2
 * and P3 trade (the chain starts at 2.0000), then one of them a day in
 * turn, 1,000 GPU-hours at a price 1 % higher each day.  The cross-section
 * is never fixed again (one provider), but every day the trader and the
 * two carried ones make a trades relative: the chain runs on, and the
 * rebalances wait for a fixed xs that never comes.  §10.4: "The days a
 * build reads before its first day make every row the same as building
 * everything from the first observation"; the binary, building 03-20..22
 * alone, reads back only to the start of March (the period holding D - 1
 * - max_carry_days, where its note says a reset is certain -- it is not
 * here) and suspends the days the full build chains. */
static void test_known_partial_build_chain(void **state)
{
    (void)state;
    if (!run_known()) {
        skip();
        return;
    }
    char *tmp = tu_mkdtemp("e2e-refindex-known3");
    tu_run r = tu_sh(tmp, "awk 'BEGIN { print \"kind,id,observed_at,provider,gpu,price,quantity\";"
                          " for (p = 1; p <= 3; p++) printf \"trade,P%%d-0,2025-01-01T01:00:00Z,"
                          "P%%d,H100,2.00,400\\n\", p, p;"
                          " for (k = 1; k < 90; k++) { p = k %% 3 + 1;"
                          " printf \"trade,P%%d-%%d,%%s,P%%d,H100,%%.6f,1000\\n\", p, k,"
                          " strftime(\"%%Y-%%m-%%dT01:00:00Z\", 1735693200 + k * 86400, 1), p,"
                          " 2 * 1.01 ^ k } }' > o.csv");
    ok(&r, "market");
    free(tu_write(tmp, "g.json", "{\"grades\": [{\"id\": \"R\", \"gpu\": [\"H100-SXM-80GB\"],"
                                 " \"method\": \"v2\", \"trade_carry_days\": 2}]}"));
    static const char *const steps[] = {
        "$GPUIDX_BIN --db f.db ingest o.csv",
        "$GPUIDX_BIN --db f.db index build --grades g.json --from 2025-01-01 --to 2025-03-31",
        "$GPUIDX_BIN --db p.db ingest o.csv",
        "$GPUIDX_BIN --db p.db index build --grades g.json --from 2025-03-20 --to 2025-03-22",
    };
    r = tu_sh_all(tmp, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    tu_run f = tu_gpuidx(tmp, "--db f.db index show --from 2025-03-20 --to 2025-03-22");
    tu_run p = tu_gpuidx(tmp, "--db p.db index show --from 2025-03-20 --to 2025-03-22");
    assert_non_null(strstr(f.out, "\n2025-03-20,R,4.3030,trades,"));
    assert_string_equal(p.out, f.out);
    tu_run_free(&f);
    tu_run_free(&p);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_anchor_terms_are_nano),
        cmocka_unit_test(test_v2_implausible_relative_left_out),
        cmocka_unit_test(test_known_panel_change_empty_day),
        cmocka_unit_test(test_known_long_note),
        cmocka_unit_test(test_known_partial_build_chain),
    };
    return cmocka_run_group_tests_name("e2e_refindex_v2", tests, NULL, NULL);
}
