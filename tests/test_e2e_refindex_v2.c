/* tests/test_e2e_refindex_v2.c -- methodology v2 (METHODOLOGY §10): hand-
 * computed cases of the rules of §10.3, §10.4 and §10.6, each checked on
 * the binary and, when /usr/bin/python3 is present, on tests/ref/ref_index.py
 * against the same expected text, among them the two disagreements of
 * gpuidx with the text the comparison found (fixed in the binary).  The
 * generated-market comparison of v1 and v2 grades is
 * tests/test_e2e_refindex.c.
 *
 * Every number below is worked out from the text (relatives and S half-up
 * to 1e-12, chain and anchor terms half-up to the nano, the value half-up
 * to 0.0001); bands are the §10.6 rule over provider medians (offers, one
 * each) or capped trade weights.
 */
#include "tests/testutil.h"
#include "tests/refindex_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V2_GRADE(extra) "{\"grades\": [{\"id\": \"T\", \"gpu\": [\"H100-SXM-80GB\"]," \
                        " \"method\": \"v2\"" extra "}]}"

/* §10.3 (1): a member whose price moved by more than error_factor (3x)
 * either way since F is left out of the day's sample.  P1 lists two
 * offers (the screen of §3 needs three, so it keeps both), P2-P4 one.
 * 02-01: a1 2.00, a2 2.20, b, c, d 2.00 -> medians 2.10, 2, 2, 2: xs and
 * start 2.0000.  02-02: a1 printed x10 (20.00), b 2.04, c 2.06: a1 is left
 * out, S_D = median(P1 1, P2 1.02, P3 1.03, P4 1) = 1.01, S_F = 1, R = 1.01
 * -> 2.0200 (with a1, P1's median relative would be 5.5 and R 1.025); the
 * cross-section takes P1's median 11.10: (2.04 + 2.06) / 2 = 2.0500.
 * 02-03: a1 back at 2.00 is compared with F = 02-02 (20.00) and left out
 * again: 4 members, R = 1.  02-04: b 6.12 = exactly 3 x 2.04, kept; c
 * 6.180001 > 3 x 2.06, left out: 4 identities of 3 providers, S_D =
 * median(1, 3.06, 1) = 1 = S_F.  Bands 02-02: 2.00, 2.04, 2.06, 11.10, p25
 * at exactly a quarter (2.00 + 2.04) / 2, p50 2.05, p75 6.58; 02-03 the
 * same with 2.10 for 11.10. */
static void test_v2_factor_left_out(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-factor");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a1,2025-02-01T08:00:00Z,P1,H100,2.00\n"
                  "offer,a2,2025-02-01T08:00:00Z,P1,H100,2.20\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,2.00\n"
                  "offer,d,2025-02-01T08:00:00Z,P4,H100,2.00\n"
                  "offer,a1,2025-02-02T08:00:00Z,P1,H100,20.00\n"
                  "offer,a2,2025-02-02T08:00:00Z,P1,H100,2.20\n"
                  "offer,b,2025-02-02T08:00:00Z,P2,H100,2.04\n"
                  "offer,c,2025-02-02T08:00:00Z,P3,H100,2.06\n"
                  "offer,d,2025-02-02T08:00:00Z,P4,H100,2.00\n"
                  "offer,a1,2025-02-03T08:00:00Z,P1,H100,2.00\n"
                  "offer,a2,2025-02-03T08:00:00Z,P1,H100,2.20\n"
                  "offer,b,2025-02-03T08:00:00Z,P2,H100,2.04\n"
                  "offer,c,2025-02-03T08:00:00Z,P3,H100,2.06\n"
                  "offer,d,2025-02-03T08:00:00Z,P4,H100,2.00\n"
                  "offer,a1,2025-02-04T08:00:00Z,P1,H100,2.00\n"
                  "offer,a2,2025-02-04T08:00:00Z,P1,H100,2.20\n"
                  "offer,b,2025-02-04T08:00:00Z,P2,H100,6.12\n"
                  "offer,c,2025-02-04T08:00:00Z,P3,H100,6.180001\n"
                  "offer,d,2025-02-04T08:00:00Z,P4,H100,2.00\n"));
    free(tu_write(tmp, "g.json", V2_GRADE("")));
    hand_case(tmp, "2025-02-01", "2025-02-04",
              HDR "2025-02-01,T,2.0000,offers,5,0,4,0.00,1.000000,2.000000,2.000000,2.000000,"
                  "2.050000,2.100000,2.000000,2.100000,0.400000,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-02,T,2.0200,offers,5,0,4,0.00,1.000000,2.000000,2.020000,2.050000,"
                  "6.580000,11.100000,2.000000,11.100000,0.400000,v2,,2.0500,offers,"
                  "1.010000000000,4,4,0,,,\n"
                  "2025-02-03,T,2.0200,offers,5,0,4,0.00,1.000000,2.000000,2.020000,2.050000,"
                  "2.080000,2.100000,2.000000,2.100000,0.400000,v2,,2.0500,offers,"
                  "1.000000000000,4,4,0,,,\n"
                  "2025-02-04,T,2.0200,offers,5,0,4,0.00,1.000000,2.000000,2.050000,4.110000,"
                  "6.150001,6.180001,2.000000,6.180001,0.400000,v2,,4.1100,offers,"
                  "1.000000000000,4,3,0,,,\n");
    free(tmp);
}

/* §10.3: a relative to base outside [0.000001, 1000000] leaves the member
 * out, also when its move since F is within error_factor.  P1's offer
 * falls from 2.00 by (up to) a third a day: 2.000000, 0.666667, ...,
 * 0.000004 (02-13, exactly a third of 0.000012: kept), 0.000002 (02-14, a
 * relative of exactly 0.000001: kept), 0.000001 (02-15, half of 02-14's,
 * but a relative of 5e-7: left out).  P2-P4 stay at 2.00, so R = 1 every
 * day and only n_matched shows the rule (4, 4, 3).  Band 02-15: 0.000001,
 * 2, 2, 2 -> p25 exactly at the first: (0.000001 + 2) / 2 = 1.0000005,
 * 1.000001 to the micro. */
static void test_v2_implausible_relative_left_out(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-implausible");
    tu_run r = tu_sh(tmp, "awk 'BEGIN { print \"kind,id,observed_at,provider,gpu,price\";"
                          " n = split(\"2.000000 0.666667 0.222223 0.074075 0.024692 0.008231"
                          " 0.002744 0.000915 0.000305 0.000102 0.000034 0.000012 0.000004"
                          " 0.000002 0.000001\", p, \" \"); for (k = 1; k <= n; k++) {"
                          " d = sprintf(\"2025-02-%%02dT08:00:00Z\", k);"
                          " printf \"offer,a,%%s,P1,H100,%%s\\n\", d, p[k];"
                          " printf \"offer,b,%%s,P2,H100,2.00\\noffer,c,%%s,P3,H100,2.00\\n\", d, d;"
                          " printf \"offer,d,%%s,P4,H100,2.00\\n\", d } }' > o.csv");
    ok(&r, "market");
    free(tu_write(tmp, "g.json", V2_GRADE("")));
    hand_case_show(tmp, "2025-02-01", "2025-02-15", "2025-02-13", "2025-02-15",
                   HDR "2025-02-13,T,2.0000,offers,4,0,4,0.00,1.000000,0.000004,1.000002,"
                       "2.000000,2.000000,2.000000,0.000004,2.000000,0.250000,v2,,2.0000,offers,"
                       "1.000000000000,4,4,0,,,\n"
                       "2025-02-14,T,2.0000,offers,4,0,4,0.00,1.000000,0.000002,1.000001,"
                       "2.000000,2.000000,2.000000,0.000002,2.000000,0.250000,v2,,2.0000,offers,"
                       "1.000000000000,4,4,0,,,\n"
                       "2025-02-15,T,2.0000,offers,4,0,4,0.00,1.000000,0.000001,1.000001,"
                       "2.000000,2.000000,2.000000,0.000001,2.000000,0.250000,v2,,2.0000,offers,"
                       "1.000000000000,3,3,0,,,\n");
    free(tmp);
}

/* §10.3 (2): the trades relative qualifies only on members that traded on
 * D itself.  02-01: P1 2.00 x400, P2 2.10 x300, P3 2.20 x300 (each capped
 * to a third: 2.1000), the start.  02-02: P1 2.02 x500 and P2 2.121 x500
 * trade, P3 is carried at 2.20 x300: three members with 1,300 GPU-hours,
 * but two traded on D -- no relative (the text before: R = 1.01); xs has
 * two providers, so the value is carried; the note counts the members
 * priced on both days, carried ones included (3).  P3 is still present by
 * trade carry: panel_change 0.  02-03: all three trade, 2.04, 2.14, 2.25:
 * relatives to base 1.02, 1.019047619048, 1.022727272727 with a third
 * each -> S_D = 1.02, S_F = 1, 2.1000 x 1.02 = 2.1420. */
static void test_v2_carried_trades_never_qualify(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-carry");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price,quantity\n"
                  "trade,t1,2025-02-01T08:00:00Z,P1,H100,2.00,400\n"
                  "trade,t2,2025-02-01T08:00:00Z,P2,H100,2.10,300\n"
                  "trade,t3,2025-02-01T08:00:00Z,P3,H100,2.20,300\n"
                  "trade,t4,2025-02-02T08:00:00Z,P1,H100,2.02,500\n"
                  "trade,t5,2025-02-02T08:00:00Z,P2,H100,2.121,500\n"
                  "trade,t6,2025-02-03T08:00:00Z,P1,H100,2.04,400\n"
                  "trade,t7,2025-02-03T08:00:00Z,P2,H100,2.14,300\n"
                  "trade,t8,2025-02-03T08:00:00Z,P3,H100,2.25,300\n"));
    free(tu_write(tmp, "g.json", V2_GRADE("")));
    hand_case(tmp, "2025-02-01", "2025-02-03",
              HDR "2025-02-01,T,2.1000,trades,3,0,3,1000.00,,2.000000,2.000000,2.100000,"
                  "2.200000,2.200000,2.000000,2.200000,0.400000,v2,,2.1000,trades,,0,0,0,start,,\n"
                  "2025-02-02,T,2.1000,carried,2,0,2,1000.00,,,,,,,,,,v2,,2.1000,carried,,0,0,0,,,"
                  "no matched change: 3 of the panel's providers priced on both days (need 3)\n"
                  "2025-02-03,T,2.1420,trades,3,0,3,1000.00,,2.040000,2.040000,2.140000,"
                  "2.250000,2.250000,2.040000,2.250000,0.400000,v2,,2.1400,trades,"
                  "1.020000000000,3,3,0,,,\n");
    free(tmp);
}

/* §10.4 (3) on a reanchor, anchor_days 4, max_carry_days 1.  02-01: a, b,
 * c of P1-P3 (1, 2, 3): start at 2.0000.  02-02: a 1.03 and b, and their
 * relistings a2 1.03, b2 2.00; c relisted as c2 2.956: only P1 and P2
 * match F, carried; xs = median(1.03, 2.00, 2.956) = 2.0000.  02-03: a2
 * 1.03, b2 2.07, c2 3.03, nothing of 02-01 listed: no relative, the carry
 * is exhausted, reanchor.  The window: 01-31 has no data, 02-01 shares no
 * identity with D (left out), 02-02 has a2, b2, c2: relatives p_k / p_D =
 * 1, 0.966183574879, 0.975577557756 -> c = 0.975577557756, est = 2.0000 /
 * c = 2.050067658998... -> 2.050067659 (nano); with xs_D 2.07 an even
 * count: (2.050067659 + 2.07) / 2 = 2.0600338295 -> 2.060033830 (the
 * unrounded est would give 2.060033829).  Value 2.0600, splice 2.06003383
 * / 2 = 1.030016915. */
static void test_v2_anchor_window_reanchor(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-anchor");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,3.00\n"
                  "offer,a,2025-02-02T08:00:00Z,P1,H100,1.03\n"
                  "offer,b,2025-02-02T08:00:00Z,P2,H100,2.00\n"
                  "offer,c2,2025-02-02T08:00:00Z,P3,H100,2.956\n"
                  "offer,a2,2025-02-02T08:00:00Z,P1,H100,1.03\n"
                  "offer,b2,2025-02-02T08:00:00Z,P2,H100,2.00\n"
                  "offer,a2,2025-02-03T08:00:00Z,P1,H100,1.03\n"
                  "offer,b2,2025-02-03T08:00:00Z,P2,H100,2.07\n"
                  "offer,c2,2025-02-03T08:00:00Z,P3,H100,3.03\n"));
    free(tu_write(tmp, "g.json", V2_GRADE(", \"anchor_days\": 4, \"max_carry_days\": 1")));
    hand_case(tmp, "2025-02-01", "2025-02-03",
              HDR "2025-02-01,T,2.0000,offers,3,0,3,0.00,1.000000,1.000000,1.000000,2.000000,"
                  "3.000000,3.000000,1.000000,3.000000,0.333333,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-02,T,2.0000,carried,5,0,3,0.00,1.000000,1.030000,1.030000,2.000000,"
                  "2.956000,2.956000,1.030000,2.956000,0.400000,v2,,2.0000,offers,,2,2,1,,,"
                  "no matched change: 2 of the panel's providers priced on both days (need 3)\n"
                  "2025-02-03,T,2.0600,offers,3,0,3,0.00,1.000000,1.030000,1.030000,2.070000,"
                  "3.030000,3.030000,1.030000,3.030000,0.333333,v2,,2.0700,offers,,0,0,1,"
                  "reanchor,1.030016915000,\n");
    free(tmp);
}

/* §10.4 (3) on a rebalance, anchor_days 3, trades.  01-30: P1 2.00 x400,
 * P2 2.10 x300, P3 2.20 x300 (xs 2.1000, the start); offers x (P1) 2.50,
 * y (P2) 2.60, z (P5) 2.40.  01-31: P1 2.02, P2 2.12, P3 2.22, P4 enters
 * at 3.00 x500; xs (P4 capped at 0.3; 0.28, 0.21, 0.21) 2.2200; R from
 * 1.01, 1.009523809524, 1.009090909091 at a third each = 1.009523809524,
 * chain 2.120000000.  02-01: P1 2.04 x400, P2 2.14 x300, P4 3.03 x500, P5
 * 1.50 x200, P3 carried -- two members traded on D, no offers on F: no
 * relative, C = 2.12; xs (P4, P1 capped at 0.3; 0.24, 0.16) 2.1400; x
 * 2.55, y 2.60, z 2.52.  The window, D's constituents since k:
 *   01-31: P1, P2, P4 traded (1,200 GPU-hours): trades, relatives
 *     0.990196078431, 0.990654205607, 0.990099009901, a third each ->
 *     c = 0.990196078431, est = 2.22 / c = 2.241980198;
 *   01-30: P1 and P2 only traded: offers x, y, z: 0.980392156863, 1,
 *     0.952380952381 -> c = 0.980392156863, est = 2.1 / c = 2.142000000;
 *   02-01: 2.14.
 * Anchor median 2.142, splice 2.142 / 2.12 = 1.010377358491. */
static void test_v2_anchor_window_trades(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-anchor-t");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price,quantity\n"
                  "trade,t1,2025-01-30T08:00:00Z,P1,H100,2.00,400\n"
                  "trade,t2,2025-01-30T08:00:00Z,P2,H100,2.10,300\n"
                  "trade,t3,2025-01-30T08:00:00Z,P3,H100,2.20,300\n"
                  "offer,x,2025-01-30T08:00:00Z,P1,H100,2.50,\n"
                  "offer,y,2025-01-30T08:00:00Z,P2,H100,2.60,\n"
                  "offer,z,2025-01-30T08:00:00Z,P5,H100,2.40,\n"
                  "trade,t4,2025-01-31T08:00:00Z,P1,H100,2.02,400\n"
                  "trade,t5,2025-01-31T08:00:00Z,P2,H100,2.12,300\n"
                  "trade,t6,2025-01-31T08:00:00Z,P3,H100,2.22,300\n"
                  "trade,t7,2025-01-31T08:00:00Z,P4,H100,3.00,500\n"
                  "trade,t8,2025-02-01T08:00:00Z,P1,H100,2.04,400\n"
                  "trade,t9,2025-02-01T08:00:00Z,P2,H100,2.14,300\n"
                  "trade,t10,2025-02-01T08:00:00Z,P4,H100,3.03,500\n"
                  "trade,t11,2025-02-01T08:00:00Z,P5,H100,1.50,200\n"
                  "offer,x,2025-02-01T08:00:00Z,P1,H100,2.55,\n"
                  "offer,y,2025-02-01T08:00:00Z,P2,H100,2.60,\n"
                  "offer,z,2025-02-01T08:00:00Z,P5,H100,2.52,\n"));
    free(tu_write(tmp, "g.json", V2_GRADE(", \"anchor_days\": 3")));
    hand_case(tmp, "2025-01-30", "2025-02-01",
              HDR "2025-01-30,T,2.1000,trades,3,0,3,1000.00,,2.000000,2.000000,2.100000,"
                  "2.200000,2.200000,2.000000,2.200000,0.400000,v2,,2.1000,trades,,0,0,0,start,,\n"
                  "2025-01-31,T,2.1200,trades,4,0,4,1500.00,,2.020000,2.020000,2.220000,"
                  "3.000000,3.000000,2.020000,3.000000,0.333333,v2,,2.2200,trades,"
                  "1.009523809524,3,3,1,,,\n"
                  "2025-02-01,T,2.1420,trades,4,0,4,1400.00,,1.500000,2.040000,2.140000,"
                  "3.030000,3.030000,1.500000,3.030000,0.357143,v2,,2.1400,trades,,0,0,1,"
                  "rebalance,1.010377358491,\n");
    free(tmp);
}

/* §10.4: c_k is trades first -- whenever D's trade constituents match on k
 * with enough providers and volume there, also when D's own cross-section
 * is offers.  anchor_days 2.  01-31: P1 2.00, P2 2.10, P3 2.20, 400
 * GPU-hours each (xs 2.1000, the start); offers x, y, z of P1-P3 at 3.00,
 * 3.10, 3.20.  02-01: the same offers; P1-P3 trade 10 % higher, 100 each
 * (300 GPU-hours: xs is offers, 3.1000; the trades relative does not
 * qualify, the offers relative is 1, C = 2.1).  c_01-31 from the trades:
 * relatives 1 / 1.1 = 0.909090909091 each -> est = 2.1 / c =
 * 2.309999999999... -> 2.310000000 (from the offers it would be 2.1);
 * anchor (2.31 + 3.10) / 2 = 2.705, splice 2.705 / 2.1 = 1.288095238095. */
static void test_v2_anchor_window_trades_first(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-anchor-f");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price,quantity\n"
                  "trade,t1,2025-01-31T08:00:00Z,P1,H100,2.00,400\n"
                  "trade,t2,2025-01-31T08:00:00Z,P2,H100,2.10,400\n"
                  "trade,t3,2025-01-31T08:00:00Z,P3,H100,2.20,400\n"
                  "offer,x,2025-01-31T08:00:00Z,P1,H100,3.00,\n"
                  "offer,y,2025-01-31T08:00:00Z,P2,H100,3.10,\n"
                  "offer,z,2025-01-31T08:00:00Z,P3,H100,3.20,\n"
                  "trade,t4,2025-02-01T08:00:00Z,P1,H100,2.20,100\n"
                  "trade,t5,2025-02-01T08:00:00Z,P2,H100,2.31,100\n"
                  "trade,t6,2025-02-01T08:00:00Z,P3,H100,2.42,100\n"
                  "offer,x,2025-02-01T08:00:00Z,P1,H100,3.00,\n"
                  "offer,y,2025-02-01T08:00:00Z,P2,H100,3.10,\n"
                  "offer,z,2025-02-01T08:00:00Z,P3,H100,3.20,\n"));
    free(tu_write(tmp, "g.json", V2_GRADE(", \"anchor_days\": 2")));
    hand_case(tmp, "2025-01-31", "2025-02-01",
              HDR "2025-01-31,T,2.1000,trades,3,0,3,1200.00,,2.000000,2.000000,2.100000,"
                  "2.200000,2.200000,2.000000,2.200000,0.333333,v2,,2.1000,trades,,0,0,0,start,,\n"
                  "2025-02-01,T,2.7050,offers,3,0,3,300.00,1.000000,3.000000,3.000000,3.100000,"
                  "3.200000,3.200000,3.000000,3.200000,0.333333,v2,,3.1000,offers,"
                  "1.000000000000,3,3,0,rebalance,1.288095238095,\n");
    free(tmp);
}

/* §10.4 (3) on a start: the window reaches back before a suspension (the
 * anchor never depends on the chain before).  anchor_days 3,
 * max_carry_days 0.  02-01: a 1.00, b 2.00, c 3.00, the start.  02-02: a
 * alone: suspended.  02-03: a 1.10, b 2.30, c 3.30: the start's window
 * has 02-01 (xs 2.0000; relatives 0.909090909091, 0.869565217391,
 * 0.909090909091 -> c = 0.909090909091, est = 2 / c = 2.199999999999... ->
 * 2.200000000), 02-02 (no fixed xs: left out) and xs_D 2.3000: the mean
 * 2.2500. */
static void test_v2_anchor_window_start(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-anchor-s");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,3.00\n"
                  "offer,a,2025-02-02T08:00:00Z,P1,H100,1.10\n"
                  "offer,a,2025-02-03T08:00:00Z,P1,H100,1.10\n"
                  "offer,b,2025-02-03T08:00:00Z,P2,H100,2.30\n"
                  "offer,c,2025-02-03T08:00:00Z,P3,H100,3.30\n"));
    free(tu_write(tmp, "g.json", V2_GRADE(", \"anchor_days\": 3, \"max_carry_days\": 0")));
    hand_case(tmp, "2025-02-01", "2025-02-03",
              HDR "2025-02-01,T,2.0000,offers,3,0,3,0.00,1.000000,1.000000,1.000000,2.000000,"
                  "3.000000,3.000000,1.000000,3.000000,0.333333,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-02,T,,suspended,1,0,1,0.00,,,,,,,,,,v2,,,suspended,,1,1,1,,,"
                  "carried 0 days (max_carry_days) and the cross-section has no fix: trades: 0.00 "
                  "GPU-hours from 0 providers (need 1000.00 from 3); offers: 1 providers after the "
                  "screen (need 3); carried 0 days already (max_carry_days)\n"
                  "2025-02-03,T,2.2500,offers,3,0,3,0.00,1.000000,1.100000,1.100000,2.300000,"
                  "3.300000,3.300000,1.100000,3.300000,0.333333,v2,,2.3000,offers,,0,0,0,start,,\n");
    free(tmp);
}

/* §10.4: c_k takes the relatives of every constituent of D also listed on
 * k -- the sample is the paragraph's own, not §10.3's matched sample, so a
 * member that moved more than error_factor since k stays in (the reading
 * both sides take; "measured as in §10.3" could be read to import the
 * exclusion).  anchor_days 2.  01-31: a, b, c, d at 2.00 (start).  02-01:
 * a 2.00, b 2.10, c 7.00, d 2.20: the relative leaves c out, R =
 * median(1, 1.05, 1.1) = 1.05, C = 2.1; xs_D = (2.10 + 2.20) / 2 = 2.15.
 * c_01-31 = median(1, 0.952380952381, 0.285714285714, 0.909090909091) =
 * 0.930735930736, est = 2 / c = 2.148837209 (without c: 0.952380952381 and
 * 2.1); anchor (2.148837209 + 2.15) / 2 = 2.1494186045 -> 2.149418605,
 * splice / 2.1 = 1.023532669048 (without c: 1.011904761905). */
static void test_v2_anchor_window_every_constituent(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-anchor-e");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-01-31T08:00:00Z,P1,H100,2.00\n"
                  "offer,b,2025-01-31T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-01-31T08:00:00Z,P3,H100,2.00\n"
                  "offer,d,2025-01-31T08:00:00Z,P4,H100,2.00\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,2.00\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.10\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,7.00\n"
                  "offer,d,2025-02-01T08:00:00Z,P4,H100,2.20\n"));
    free(tu_write(tmp, "g.json", V2_GRADE(", \"anchor_days\": 2")));
    hand_case(tmp, "2025-01-31", "2025-02-01",
              HDR "2025-01-31,T,2.0000,offers,4,0,4,0.00,1.000000,2.000000,2.000000,2.000000,"
                  "2.000000,2.000000,2.000000,2.000000,0.250000,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-01,T,2.1494,offers,4,0,4,0.00,1.000000,2.000000,2.050000,2.150000,"
                  "4.600000,7.000000,2.000000,7.000000,0.250000,v2,,2.1500,offers,"
                  "1.050000000000,3,3,0,rebalance,1.023532669048,\n");
    free(tmp);
}

/* §10.6 panel_change (5).  02-01: a, b, c start the chain.  02-02: no
 * observation at all, carried: every constituent of F left, 1; 02-03
 * (only a) and 02-05 (d enters) are 1, 02-04 (a, b, c as on 02-01) 0. */
static void test_v2_panel_change_empty_day(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-empty");
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
    free(tu_write(tmp, "g.json", V2_GRADE("")));
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

/* §10.6 notes, whole (5: up to 400 bytes).  max_carry_days 0: c leaves on
 * 02-02, nothing is matched and nothing may be carried, the cross-section
 * (two providers) has no fix: suspended, with the whole note (191 bytes;
 * the binary used to cut it after 159). */
static void test_v2_long_note(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-note");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price\n"
                  "offer,a,2025-02-01T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-01T08:00:00Z,P2,H100,2.00\n"
                  "offer,c,2025-02-01T08:00:00Z,P3,H100,3.00\n"
                  "offer,a,2025-02-02T08:00:00Z,P1,H100,1.00\n"
                  "offer,b,2025-02-02T08:00:00Z,P2,H100,2.00\n"));
    free(tu_write(tmp, "g.json", V2_GRADE(", \"max_carry_days\": 0")));
    hand_case(tmp, "2025-02-01", "2025-02-02",
              HDR "2025-02-01,T,2.0000,offers,3,0,3,0.00,1.000000,1.000000,1.000000,2.000000,"
                  "3.000000,3.000000,1.000000,3.000000,0.333333,v2,,2.0000,offers,,0,0,0,start,,\n"
                  "2025-02-02,T,,suspended,2,0,2,0.00,,,,,,,,,,v2,,,suspended,,2,2,1,,,"
                  "carried 0 days (max_carry_days) and the cross-section has no fix: trades: 0.00 "
                  "GPU-hours from 0 providers (need 1000.00 from 3); offers: 2 providers after the "
                  "screen (need 3); carried 0 days already (max_carry_days)\n");
    free(tmp);
}

/* Trades only, trade_carry_days 2: on 01-01 P1, P2 and P3 trade (the chain
 * starts at 2.0000), then one of them a day in turn, 1,000 GPU-hours at a
 * price 1 % higher each day.  The trader and the two carried ones are
 * three members with 3,000 GPU-hours, but one traded on D: no relative
 * (under the text before, the chain ran on with carried prices and a
 * partial build could not replay it); carried five days, suspended on
 * 01-07 (the cross-section never has three providers again).  A build of
 * 03-20..22 alone equals the same days of a build from the first day. */
static void test_v2_rotating_traders_partial_build(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-rotate");
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
        "\"$GPUIDX_BIN\" --db f.db ingest --admit-providers o.csv",
        "\"$GPUIDX_BIN\" --db f.db index build --grades g.json --from 2025-01-01 --to 2025-03-31",
        "\"$GPUIDX_BIN\" --db p.db ingest --admit-providers o.csv",
        "\"$GPUIDX_BIN\" --db p.db index build --grades g.json --from 2025-03-20 --to 2025-03-22",
    };
    r = tu_sh_all(tmp, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    tu_run f = tu_gpuidx(tmp, "--db f.db index show --from 2025-01-02 --to 2025-01-02");
    assert_upto_note(f.out, HDR "2025-01-02,R,2.0000,carried,1,0,1,1000.00,,,,,,,,,,v2,,"
                                   "2.0000,carried,,0,0,0,,,no matched change: 3 of the panel's "
                                   "providers priced on both days (need 3)\n");
    tu_run_free(&f);
    f = tu_gpuidx(tmp, "--db f.db index show --from 2025-03-20 --to 2025-03-22");
    tu_run p = tu_gpuidx(tmp, "--db p.db index show --from 2025-03-20 --to 2025-03-22");
    assert_non_null(strstr(f.out, "\n2025-03-20,R,,suspended,"));
    assert_string_equal(p.out, f.out);
    tu_run_free(&f);
    tu_run_free(&p);
    if (have_python()) {
        r = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_index.py' --db f.db --grades g.json"
                       " --from 2025-01-01 --to 2025-03-31 > ref.csv &&"
                       " \"$GPUIDX_BIN\" --db f.db index show > bin.csv && cmp bin.csv ref.csv",
                  tu_srcdir());
        ok(&r, "reference");
    }
    free(tmp);
}

/* Formerly a disagreement (the binary printed 0: it compared the providers
 * present by trade carry).  Trades only: P1-P3 trade on 02-01 (start),
 * nothing on 02-02, all three on 02-03.  §10.6: "a day without
 * observations, after a fixed day with some, is one" -- 02-02 is 1,
 * though all three traded within trade_carry_days. */
static void test_v2_empty_day_trade_carry(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-known1");
    free(tu_write(tmp, "o.csv",
                  "kind,id,observed_at,provider,gpu,price,quantity\n"
                  "trade,t1,2025-02-01T08:00:00Z,P1,H100,2.00,400\n"
                  "trade,t2,2025-02-01T08:00:00Z,P2,H100,2.10,300\n"
                  "trade,t3,2025-02-01T08:00:00Z,P3,H100,2.20,300\n"
                  "trade,t4,2025-02-03T08:00:00Z,P1,H100,2.00,400\n"
                  "trade,t5,2025-02-03T08:00:00Z,P2,H100,2.10,300\n"
                  "trade,t6,2025-02-03T08:00:00Z,P3,H100,2.20,300\n"));
    free(tu_write(tmp, "g.json", V2_GRADE("")));
    hand_case(tmp, "2025-02-01", "2025-02-03",
              HDR "2025-02-01,T,2.1000,trades,3,0,3,1000.00,,2.000000,2.000000,2.100000,"
                  "2.200000,2.200000,2.000000,2.200000,0.400000,v2,,2.1000,trades,,0,0,0,start,,\n"
                  "2025-02-02,T,2.1000,carried,0,0,0,0.00,,,,,,,,,,v2,,2.1000,carried,,0,0,1,,,"
                  "no eligible observations to match\n"
                  "2025-02-03,T,2.1000,trades,3,0,3,1000.00,,2.000000,2.000000,2.100000,"
                  "2.200000,2.200000,2.000000,2.200000,0.400000,v2,,2.1000,trades,"
                  "1.000000000000,3,3,0,,,\n");
    free(tmp);
}

/* Formerly a disagreement: §10.4's replay bound.  trade_carry_days 31,
 * anchor_days 1: P1-P3 trade every day from 01-25, P4 only on 01-29.  On
 * 03-01 (a rebalance) P4 is still present by trade carry (31 days), on
 * 03-02 it is not: panel_change 1 on 03-02 in a build from the first day
 * (and in the reference).  A build of 03-02..03 alone reads back to 02-01
 * (the period holding 03-02 - 1 - max_carry_days, less anchor_days - 1 =
 * 0 days) would never see 01-29 and print 0: presence on the reset day
 * reaches trade_carry_days before it, so the read-back is now the larger
 * of anchor_days - 1 and trade_carry_days (02-01 less 31 days). */
static void test_v2_partial_build_trade_carry(void **state)
{
    (void)state;
    char *tmp = tu_mkdtemp("e2e-refindex-known2");
    tu_run r = tu_sh(tmp, "awk 'BEGIN { print \"kind,id,observed_at,provider,gpu,price,quantity\";"
                          " for (k = 0; k < 38; k++) { d = strftime(\"%%Y-%%m-%%dT08:00:00Z\","
                          " 1737763200 + k * 86400, 1);"
                          " printf \"trade,a%%d,%%s,P1,H100,2.00,400\\n\", k, d;"
                          " printf \"trade,b%%d,%%s,P2,H100,2.10,400\\n\", k, d;"
                          " printf \"trade,c%%d,%%s,P3,H100,2.20,400\\n\", k, d;"
                          " if (k == 4) printf \"trade,d%%d,%%s,P4,H100,2.30,400\\n\", k, d } }'"
                          " > o.csv");
    ok(&r, "market");
    free(tu_write(tmp, "g.json", V2_GRADE(", \"anchor_days\": 1, \"trade_carry_days\": 31")));
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" --db f.db ingest --admit-providers o.csv",
        "\"$GPUIDX_BIN\" --db f.db index build --grades g.json --from 2025-01-25 --to 2025-03-03",
        "\"$GPUIDX_BIN\" --db p.db ingest --admit-providers o.csv",
        "\"$GPUIDX_BIN\" --db p.db index build --grades g.json --from 2025-03-02 --to 2025-03-03",
    };
    r = tu_sh_all(tmp, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    static const char want[] =
        HDR "2025-03-02,T,2.1000,trades,3,0,3,1200.00,,2.000000,2.000000,2.100000,2.200000,"
            "2.200000,2.000000,2.200000,0.333333,v2,,2.1000,trades,1.000000000000,3,3,1,,,\n";
    tu_run f = tu_gpuidx(tmp, "--db f.db index show --from 2025-03-02 --to 2025-03-02");
    assert_upto_note(f.out, want);
    if (have_python()) {
        r = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/ref_index.py' --db f.db --grades g.json"
                       " --from 2025-03-02 --to 2025-03-02", tu_srcdir());
        assert_int_equal(r.status, 0);
        assert_string_equal(r.out, f.out);
        tu_run_free(&r);
    }
    tu_run p = tu_gpuidx(tmp, "--db p.db index show --from 2025-03-02 --to 2025-03-02");
    assert_string_equal(p.out, f.out);
    tu_run_free(&p);
    tu_run_free(&f);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_factor_left_out),
        cmocka_unit_test(test_v2_implausible_relative_left_out),
        cmocka_unit_test(test_v2_carried_trades_never_qualify),
        cmocka_unit_test(test_v2_anchor_window_reanchor),
        cmocka_unit_test(test_v2_anchor_window_trades),
        cmocka_unit_test(test_v2_anchor_window_trades_first),
        cmocka_unit_test(test_v2_anchor_window_start),
        cmocka_unit_test(test_v2_anchor_window_every_constituent),
        cmocka_unit_test(test_v2_panel_change_empty_day),
        cmocka_unit_test(test_v2_long_note),
        cmocka_unit_test(test_v2_rotating_traders_partial_build),
        cmocka_unit_test(test_v2_empty_day_trade_carry),
        cmocka_unit_test(test_v2_partial_build_trade_carry),
    };
    return cmocka_run_group_tests_name("e2e_refindex_v2", tests, NULL, NULL);
}
