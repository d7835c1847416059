/* tests/test_e2e_grades.c -- `gpuidx grades evaluate` end to end.
 *
 * (1) The hand market of tests/test_evaluate.c, written as canonical CSV
 *     and ingested by the binary: the --csv output is pinned whole (every
 *     number computed by hand or with numpy, see test_evaluate.c), the
 *     --json and table outputs are checked for their key parts.
 * (2) A generated market (written by this test: 90 days, 3 grades, 6
 *     providers, thin days, fat fingers, a provider with outsized volume)
 *     is evaluated, then built with `index build`; the measures the
 *     published rows allow are recomputed here from `index show` (level
 *     shares, mean n_providers, top-provider share, volatility and
 *     correlation of the published values), and the reported largest
 *     leave-one-provider-out move is replayed by building a second
 *     database without that provider's observations of that day.
 * (3) Usage and grade-file errors: exit codes and messages.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char grades_m[] =
    "{\"grades\": [{\"id\": \"G\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\"},\n"
    " {\"id\": \"G2\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\",\n"
    "  \"min_providers\": 4}]}\n";

static char *market_m_csv(void)
{
    static const char trades[] =
        "kind,id,observed_at,provider,gpu,price,quantity,term\n"
        "trade,t1a,2025-01-01T09:00:00Z,ProvA,H100,2.00,600,on-demand\n"
        "trade,t1b,2025-01-01T09:00:00Z,ProvB,H100,2.10,300,on-demand\n"
        "trade,t1c,2025-01-01T09:00:00Z,ProvC,H100,2.20,100,on-demand\n"
        "trade,t2a,2025-01-02T09:00:00Z,ProvA,H100,2.00,1000,on-demand\n"
        "trade,t2b,2025-01-02T09:00:00Z,ProvB,H100,2.20,1000,on-demand\n"
        "trade,t2c,2025-01-02T09:00:00Z,ProvC,H100,2.40,1000,on-demand\n"
        "trade,t2d,2025-01-02T09:00:00Z,ProvD,H100,2.60,1000,on-demand\n"
        "trade,t5a,2025-01-05T09:00:00Z,ProvA,H100,2.80,2000,on-demand\n"
        "trade,t5b,2025-01-05T09:00:00Z,ProvB,H100,2.90,500,on-demand\n"
        "trade,t5c,2025-01-05T09:00:00Z,ProvC,H100,3.00,500,on-demand\n"
        "trade,t6a,2025-01-06T09:00:00Z,ProvA,H100,2.70,400,on-demand\n"
        "trade,t6b,2025-01-06T09:01:00Z,ProvA,H100,2.72,400,on-demand\n"
        "trade,t6c,2025-01-06T09:02:00Z,ProvA,H100,27.00,400,on-demand\n"
        "trade,t6d,2025-01-06T09:00:00Z,ProvB,H100,2.75,500,on-demand\n"
        "trade,t6e,2025-01-06T09:00:00Z,ProvC,H100,2.80,500,on-demand\n";
    static const int days[] = {1, 2, 3, 5, 6};
    static const char *const offers[][3] = {
        {"oa1", "ProvA", "2.40"}, {"oa2", "ProvA", "2.44"}, {"ob", "ProvB", "2.50"},
        {"oc", "ProvC", "2.60"}, {"od", "ProvD", "3.00"}};
    size_t cap = sizeof trades + 128 * N(days) * N(offers);
    char *s = malloc(cap);
    size_t n = (size_t)snprintf(s, cap, "%s", trades);
    for (size_t k = 0; k < N(days); k++)
        for (size_t j = 0; j < N(offers); j++)
            n += (size_t)snprintf(s + n, cap - n,
                                  "offer,%s-%d,2025-01-%02dT12:00:00Z,%s,H100,%s,,on-demand\n",
                                  offers[j][0], days[k], days[k], offers[j][1], offers[j][2]);
    return s;
}

/* Values by hand (test_evaluate.c): G 2.10 2.30 2.55 2.55 2.90 2.75,
 * G2 2.55 2.30 2.55 2.55 2.55 2.55. */
static const char want_csv[] =
    "grade,days,trades_days,offers_days,carried_days,suspended_days,trades_share,"
    "offers_share,carried_share,suspended_share,mean_providers,top_provider_share,"
    "top_provider_share_trades,top_provider_share_offers,hhi,hhi_trades,hhi_offers,"
    "n_changes,vol_daily,vol_annualized,loo_days,loo_lost_days,loo_max_abs,loo_mean_abs,"
    "loo_max_rel,loo_mean_rel,loo_max_date,loo_max_provider,loo_max_from,loo_max_to,"
    "value_days,price_median,price_min,price_max,spread_iqr,spread_rel,mean_providers_live,"
    "full_months,settleable_months,"
    "method,xs_vol_annualized,panel_change_days,rebalances,splice_mean_abs,splice_max_abs,"
    "drift_mean,drift_max,loo_median_abs,loo_median_rel,cost_days,cost_tick_median_gpu_hours,"
    "cost_tick_min_gpu_hours,cost_tick_none_days,cost_1pct_median_gpu_hours,"
    "cost_1pct_min_gpu_hours,cost_1pct_none_days,cost_tick_offer_days,cost_1pct_offer_days,"
    "fsp_changes,fsp_change_max,fsp_change_mean,fsp_change_max_month,segments,segment_days,"
    "segment_split_days,segment_ratio_median,segment_ratio_min,segment_ratio_max,bimodal,"
    "split_of,split_segment\n"
    "G,6,4,1,1,0,0.666667,0.166667,0.166667,0.000000,2.833333,0.472222,0.490278,0.400000,"
    "0.368370,0.390463,0.280000,5,0.07704260,1.47189674,5,0,0.5000,0.260000,0.23809524,"
    "0.10600429,2025-01-01,prova,2.1000,2.6000,6,2.550000,2.1000,2.9000,0.100000,0.039216,"
    "2.833333,0,0,v1,,,,,,,,0.2500,0.09090909,6,400.00,0.01,2,400.01,0.01,2,1,1,"
    "0,,,,unknown,0,0,,,,0,,\n"
    "G2,6,1,4,1,0,0.166667,0.666667,0.166667,0.000000,3.333333,0.370000,0.250000,0.400000,"
    "0.274000,0.250000,0.280000,5,0.07296227,1.39394227,4,1,0.2500,0.125000,0.10869565,"
    "0.05168372,2025-01-02,prova,2.3000,2.5500,6,2.550000,2.3000,2.5500,0.160000,0.062745,"
    "3.333333,0,0,v1,,,,,,,,0.1250,0.04901961,6,0.01,0.01,2,0.01,0.01,2,4,4,"
    "0,,,,unknown,0,0,,,,0,,\n";
/* The level columns by hand.  G: values 2.10 2.30 2.55 2.55(carried)
 * 2.90 2.75: median 2.55, min 2.10, max 2.90.  The day's p75 - p25 of the
 * level used (numpy's linear quantiles): day 1 trades 2.00 2.10 2.20 ->
 * 0.10; day 2 2.00 2.20 2.40 2.60 -> 2.45 - 2.15 = 0.30; day 3 offers
 * 2.40 2.44 2.50 2.60 3.00 -> 2.60 - 2.44 = 0.16; day 5 2.80 2.90 3.00 ->
 * 0.10; day 6 (27.00 screened out) 2.70 2.72 2.75 2.80 -> 2.7625 - 2.715
 * = 0.0475: median 0.10, / 2.55 = 0.039216.  G2: day 2 trades 0.30, the
 * four offers days 0.16: median 0.16, / 2.55 = 0.062745.  Every day has
 * a value; no calendar month lies wholly inside six days. */

/* The manipulation figures of each built row (index show's last five
 * columns), by hand; a new provider P gets share s = max(0.30, 1/(n+1)) at
 * most (METHODOLOGY.md §11):
 *   G day 1 (A 2.00 x600, B 2.10 x300, C 2.20 x100 -> 2.10): upwards A
 *     and B stay capped at 0.30 each (0.60 at or below 2.10) whatever P
 *     adds: never.  Downwards, with A and B capped, C and P share 0.40 in
 *     proportion to 100 : x; A + P = 0.30 + 0.4 x/(100+x) is 1/2 at
 *     x = 100: the median becomes (2.00+2.10)/2 = 2.05 (-2.4 %): 100.00.
 *   G day 2 (four providers x1000, exactly half at 2.20 -> 2.30): any
 *     weight above or below breaks the tie: 2.40 or 2.20 with 0.01 GPU-h.
 *   G day 5 (A 2.80 x2000 capped, B 2.90 x500, C 3.00 x500 -> 2.90): down,
 *     A + P = 0.30 + 0.7 x/(1000+x) = 1/2 at x = 400 -> 2.85 (-1.7 %);
 *     up needs x = 750: 400.00 for a tick and 1 %.
 *   G day 6 (A 2.70/2.72 capped, B 2.75 x500, C 2.80 x500 -> 2.75): down,
 *     A + P = 1/2 at x = 400 -> (2.72+2.75)/2 = 2.735 (-0.55 %, a tick);
 *     just above, 2.72 (-1.09 %): 400.01.  Up reaches only 2.775 (+0.91 %,
 *     P capped at 0.30 leaves B, C 0.20 each).  Tick 400.00, 1 % 400.01.
 *   G day 3 (offers 2.42, 2.50, 2.60, 3.00 -> 2.55): one offer above all
 *     makes 2.60 (+2 %); trades of one provider cannot make three.
 *   G2 (min_providers 4) days 1, 5, 6 (offers 2.55, three trading
 *     providers): any trade of P makes four, the trades level qualifies and
 *     with P at 0.10 (A, B, C capped at 0.30) the value jumps to 2.10, 2.90,
 *     2.75: 0.01 GPU-h; day 2 as G's; one offer moves days 1, 3, 5, 6.
 *   Carried day 4: nothing to move with one provider.
 * The lab's distributions over the six days follow: G tick 100, 0.01,
 * none, none, 400, 400 (median 400, min 0.01, none 2), 1 % the same with
 * 400.01 on day 6 (median 400.005 -> 400.01); leave-one-out moves .50 .10
 * .05 .40 .25 (median .25; relative median .25/2.75).  G2: 0.01 on four
 * days; moves .25 .25 0 0 (median .125, relative (0 + .25/2.55)/2). */
static const char want_manip[] =
    "date,grade,loo_move,cost_tick_gpu_hours,cost_1pct_gpu_hours,cost_tick_offers,"
    "cost_1pct_offers\n"
    "2025-01-01,G,0.5000,100.00,100.00,,\n"
    "2025-01-01,G2,,0.01,0.01,1,1\n"
    "2025-01-02,G,0.1000,0.01,0.01,,\n"
    "2025-01-02,G2,0.2500,0.01,0.01,,\n"
    "2025-01-03,G,0.0500,,,1,1\n"
    "2025-01-03,G2,0.2500,,,1,1\n"
    "2025-01-04,G,,,,,\n"
    "2025-01-04,G2,,,,,\n"
    "2025-01-05,G,0.4000,400.00,400.00,,\n"
    "2025-01-05,G2,0.0000,0.01,0.01,1,1\n"
    "2025-01-06,G,0.2500,400.00,400.01,,\n"
    "2025-01-06,G2,0.0000,0.01,0.01,1,1\n";

/* The lines of a CSV without quotes cut to their first `head` fields and
 * the fields from `from` (0-based) up to `to` (excluded). */
static char *columns(const char *text, int head, int from, int to)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    const char *p = text;
    while (*p) {
        int k = 0, kept = 0;
        for (;;) {
            size_t n = strcspn(p, ",\n");
            if (k < head || (k >= from && k < to)) {
                if (kept++) *o++ = ',';
                memcpy(o, p, n);
                o += n;
            }
            p += n;
            k++;
            if (*p != ',') break;
            p++;
        }
        if (*p == '\n') *o++ = *p++;
    }
    *o = '\0';
    return out;
}

static void run_ok(const char *dir, const char *args, tu_run *out)
{
    *out = tu_gpuidx(dir, "%s", args);
    if (out->status != 0) fail_msg("gpuidx %s: exit %d: %s", args, out->status, out->err);
}

static void test_hand_market(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades");
    char *csv = market_m_csv();
    free(tu_write(dir, "m.csv", csv));
    free(tu_write(dir, "g.json", grades_m));
    free(csv);
    tu_run r;
    run_ok(dir, "--db t.db ingest --admit-providers m.csv", &r);
    tu_run_free(&r);
    const char *range = "--grades g.json --from 2025-01-01 --to 2025-01-06";
    char args[512];
    snprintf(args, sizeof args, "--db t.db grades evaluate %s --csv", range);
    run_ok(dir, args, &r);
    assert_string_equal(r.out, want_csv);
    tu_run_free(&r);
    /* the same figures published with each fix */
    snprintf(args, sizeof args, "--db b.db ingest --admit-providers m.csv");
    run_ok(dir, args, &r);
    tu_run_free(&r);
    snprintf(args, sizeof args, "--db b.db index build %s", range);
    run_ok(dir, args, &r);
    tu_run_free(&r);
    run_ok(dir, "--db b.db index show", &r);
    char *manip = columns(r.out, 2, 28, 33); /* the manipulation figures */
    assert_string_equal(manip, want_manip);
    free(manip);
    tu_run_free(&r);

    snprintf(args, sizeof args, "--db t.db grades evaluate %s --json", range);
    run_ok(dir, args, &r);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    if (!j) fail_msg("--json: %s: %s", je.text, r.out);
    assert_int_equal(json_integer_value(json_object_get(j, "days")), 6);
    assert_non_null(strstr(json_string_value(json_object_get(j, "concentration_basis")),
                           "trade volume"));
    json_t *g = json_array_get(json_object_get(j, "grades"), 0);
    assert_string_equal(json_string_value(json_object_get(g, "id")), "G");
    json_t *lv = json_object_get(g, "levels");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(lv, "trades"), "days")),
                     4);
    tu_assert_close(json_real_value(json_object_get(json_object_get(g, "hhi"), "trades")),
                    (0.46 + 0.25 + 0.5 + 114.0 / 324) / 4, 1e-9, "hhi.trades");
    json_t *loo = json_object_get(g, "leave_one_out");
    tu_assert_close(json_real_value(json_object_get(loo, "max_rel")), 0.5 / 2.1, 1e-9,
                    "max_rel");
    assert_string_equal(json_string_value(json_object_get(loo, "max_date")), "2025-01-01");
    tu_assert_close(json_real_value(json_object_get(loo, "max_to")), 2.6, 1e-12, "max_to");
    json_t *m = json_object_get(json_object_get(j, "correlation"), "matrix");
    assert_true(json_is_null(json_array_get(json_array_get(m, 0), 1)));
    json_t *cd = json_object_get(json_object_get(j, "correlation"), "common_days");
    assert_int_equal(json_integer_value(json_array_get(json_array_get(cd, 1), 0)), 5);
    json_decref(j);
    tu_run_free(&r);

    snprintf(args, sizeof args, "--db t.db grades evaluate %s", range);
    run_ok(dir, args, &r);
    static const char *const want_lines[] = {
        "grade lab: 2025-01-01..2025-01-06, 6 days, 2 grades\n",
        "G        66.7    16.7    16.7     0.0   2.83  0.472  0.368    7.70    147.2   0.5000"
        "    23.81    10.60     0\n",
        "  G     2025-01-01 without prova: 2.1000 -> 2.6000 (23.81%)\n",
        "  G2    2025-01-02 without prova: 2.3000 -> 2.5500 (10.87%)\n",
        "[2]   G2          -       -\n",
    };
    for (size_t i = 0; i < N(want_lines); i++)
        if (!strstr(r.out, want_lines[i])) fail_msg("table lacks %s in:\n%s", want_lines[i], r.out);
    tu_run_free(&r);
    free(dir);
}

/* A day whose value rounds to 0.0000 (trades at 0.00004) has a move but no
 * relative move: it counts in the absolute figures and is left out of the
 * relative ones, which then come from the other day alone.
 *   day 1: A, B at 0.00004 -> 0.0000; without either: 0.0000, move 0
 *   day 2: A 2.00, B 2.10, 1000 each, cap 0.5 each: exact half -> 2.05;
 *          without A 2.10, without B 2.00: move 0.05 (A named: byte order)
 *   days 2, mean_abs 0.025, max_rel = mean_rel = 0.05 / 2.05 */
static void test_zero_value_day(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades-zero");
    free(tu_write(dir, "z.csv",
                  "kind,id,observed_at,source,provider,gpu,price,quantity\n"
                  "trade,z1,2025-01-01T09:00:00Z,t,ProvA,H100-SXM-80GB,0.00004,1000\n"
                  "trade,z2,2025-01-01T09:00:00Z,t,ProvB,H100-SXM-80GB,0.00004,1000\n"
                  "trade,z3,2025-01-02T09:00:00Z,t,ProvA,H100-SXM-80GB,2.00,1000\n"
                  "trade,z4,2025-01-02T09:00:00Z,t,ProvB,H100-SXM-80GB,2.10,1000\n"));
    free(tu_write(dir, "g.json",
                  "{\"grades\":[{\"id\":\"Z\",\"gpu\":[\"H100-SXM-80GB\"],"
                  "\"min_tier\":\"unrated\",\"min_providers\":1}]}"));
    tu_run r;
    run_ok(dir, "--db t.db ingest --admit-providers z.csv", &r);
    tu_run_free(&r);
    run_ok(dir, "--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-02 --json",
           &r);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    if (!j) fail_msg("--json: %s: %s", je.text, r.out);
    json_t *loo = json_object_get(json_array_get(json_object_get(j, "grades"), 0), "leave_one_out");
    assert_int_equal(json_integer_value(json_object_get(loo, "days")), 2);
    tu_assert_close(json_real_value(json_object_get(loo, "mean_abs")), 0.025, 1e-12, "mean_abs");
    tu_assert_close(json_real_value(json_object_get(loo, "max_rel")), 0.05 / 2.05, 1e-9,
                    "max_rel");
    tu_assert_close(json_real_value(json_object_get(loo, "mean_rel")), 0.05 / 2.05, 1e-9,
                    "mean_rel");
    assert_string_equal(json_string_value(json_object_get(loo, "max_date")), "2025-01-02");
    json_decref(j);
    tu_run_free(&r);
    free(dir);
}

/* Printed statistics are rounded once, halves up, like every published
 * number: one provider trades on 2025-01-01 and 01-02 (min_providers 1),
 * carried 5 days, then suspended.
 *   16 days: trades 2/16 = 12.5 %, carry 5/16 = 31.25 % -> 31.3, suspended
 *   9/16 = 56.25 % -> 56.3, providers 2/16 = 0.125 -> 0.13 (printf: 31.2,
 *   56.2, 0.12);
 *   128 days (CSV, 6 decimals): 5/128 = 0.0390625 -> 0.039063, 121/128 =
 *   0.9453125 -> 0.945313. */
static void test_half_up_output(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades-halfup");
    free(tu_write(dir, "m.csv",
                  "kind,id,observed_at,source,provider,gpu,price,quantity\n"
                  "trade,a,2025-01-01T09:00:00Z,t,ProvA,H100-SXM-80GB,2.00,2000\n"
                  "trade,b,2025-01-02T09:00:00Z,t,ProvA,H100-SXM-80GB,2.10,2000\n"));
    free(tu_write(dir, "g.json",
                  "{\"grades\":[{\"id\":\"ONE\",\"gpu\":[\"H100-SXM-80GB\"],"
                  "\"min_tier\":\"unrated\",\"min_providers\":1}]}"));
    tu_run r;
    run_ok(dir, "--db t.db ingest --admit-providers m.csv", &r);
    tu_run_free(&r);
    run_ok(dir, "--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-16", &r);
    static const char head[] = "grade lab: 2025-01-01..2025-01-16, 16 days, 1 grade\n";
    assert_true(strncmp(r.out, head, strlen(head)) == 0);
    if (!strstr(r.out, "\nONE      12.5     0.0    31.3    56.3   0.13  1.000  1.000 "))
        fail_msg("table row:\n%s", r.out);
    tu_run_free(&r);
    run_ok(dir, "--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-05-08 --csv",
           &r);
    if (!strstr(r.out, "\nONE,128,2,0,5,121,0.015625,0.000000,0.039063,0.945313,0.015625,"))
        fail_msg("CSV row:\n%s", r.out);
    tu_run_free(&r);
    free(dir);
}

/* ---- the generated market ------------------------------------------------- */

static uint64_t rng_state;

static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

#define GEN_DAYS 90
#define GEN_FROM "2025-03-01"
#define GEN_TO "2025-05-29"

static const struct {
    const char *id, *gpu, *term;
    double base;
} gen_grades[] = {
    {"H.OD", "H100", "on-demand", 2.50},
    {"H.SPOT", "H100", "spot", 1.60},
    {"A.OD", "A100-80GB", "on-demand", 1.40},
};

static const char gen_grades_json[] =
    "{\"grades\": ["
    "{\"id\": \"H.OD\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\"},"
    "{\"id\": \"H.SPOT\", \"gpu\": [\"H100-SXM-80GB\"], \"min_tier\": \"unrated\","
    " \"term\": \"spot\", \"method\": \"v2\"},"
    "{\"id\": \"A.OD\", \"gpu\": [\"A100-SXM-80GB\"], \"min_tier\": \"unrated\"}]}\n";

/* Writes the market; rows of provider `skip_prov` on day `skip_day`
 * (index from GEN_FROM) are left out when skip_prov is not NULL. */
static void write_market(const char *path, const char *skip_prov, int skip_day)
{
    FILE *f = fopen(path, "w");
    if (!f) fail_msg("cannot write %s", path);
    fputs("kind,id,observed_at,provider,gpu,price,quantity,term\n", f);
    rng_state = 42;
    double factor = 0;
    int y = 2025, mo = 3, dd = 1;
    for (int day = 0; day < GEN_DAYS; day++) {
        factor += (urand() - 0.5) * 0.04;
        for (size_t g = 0; g < N(gen_grades); g++) {
            double m = gen_grades[g].base * exp(factor + (urand() - 0.5) * 0.05);
            int thin = urand() < 0.08;
            int trades_day = urand() < 0.6;
            for (int p = 1; p <= 6; p++) {
                char prov[8];
                snprintf(prov, sizeof prov, "gp%d", p);
                double present = urand(), noise = urand(), vol = urand(), ff = urand();
                int skip = skip_prov && strcmp(prov, skip_prov) == 0 && day == skip_day;
                if (thin ? p > 2 : present > 0.85) continue;
                int n_offers = p == 1 ? 2 : 1;
                for (int k = 0; k < n_offers; k++)
                    if (!skip)
                        fprintf(f, "offer,o%zu-%d-%d-%d,%04d-%02d-%02dT1%d:00:00Z,%s,%s,%.4f,,%s\n",
                                g, day, p, k, y, mo, dd, k, prov, gen_grades[g].gpu,
                                m * (1.08 + 0.08 * noise + 0.03 * k), gen_grades[g].term);
                if (!trades_day) continue;
                double q = p == 6 && g == 0 ? 2500 : 100 + 500 * vol;
                double price = m * (p == 6 && g == 0 ? 1.12 : 0.97 + 0.06 * noise);
                if (!skip)
                    fprintf(f, "trade,t%zu-%d-%d,%04d-%02d-%02dT09:00:00Z,%s,%s,%.4f,%.0f,%s\n", g,
                            day, p, y, mo, dd, prov, gen_grades[g].gpu, price, q,
                            gen_grades[g].term);
                if (ff < 0.03 && !skip) /* a fat finger next to two normal prints */
                    for (int k = 0; k < 3; k++)
                        fprintf(f, "trade,t%zu-%d-%d-ff%d,%04d-%02d-%02dT1%d:00:00Z,%s,%s,%.4f,"
                                "100,%s\n",
                                g, day, p, k, y, mo, dd, k, prov, gen_grades[g].gpu,
                                k == 2 ? price * 10 : price, gen_grades[g].term);
            }
        }
        if (++dd > gpi_month_days(y, mo)) dd = 1, mo++;
    }
    fclose(f);
}

typedef struct shown {
    char date[11];
    char grade[16];
    double value;        /* NAN when none */
    char level[12];
    long n_providers;
    double top;          /* NAN when empty */
    int event;           /* a v2 anchor (start, rebalance, reanchor) */
    double loo;          /* loo_move, NAN when empty */
    double cost[2];      /* cost_tick / cost_1pct GPU-hours, INFINITY when empty */
    double p25, p75;     /* NAN when empty */
} shown;

/* Parses `index show` output (no quoted fields in this market). */
static size_t parse_show(char *text, shown *rows, size_t cap)
{
    size_t n = 0;
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save); /* header */
    while ((line = strtok_r(NULL, "\n", &save)) && n < cap) {
        char *f[48];
        int k = 0;
        for (char *p = line; k < 48;) {
            f[k++] = p;
            char *c = strchr(p, ',');
            if (!c) break;
            *c = '\0';
            p = c + 1;
        }
        if (k != 45) fail_msg("show row with %d fields", k);
        shown *r = &rows[n++];
        snprintf(r->date, sizeof r->date, "%s", f[0]);
        snprintf(r->grade, sizeof r->grade, "%s", f[1]);
        r->value = *f[2] ? strtod(f[2], NULL) : NAN;
        snprintf(r->level, sizeof r->level, "%s", f[3]);
        r->n_providers = strtol(f[6], NULL, 10);
        r->top = *f[16] ? strtod(f[16], NULL) : NAN;
        r->event = *f[25] != '\0';
        r->loo = *f[28] ? strtod(f[28], NULL) : NAN;
        for (int t = 0; t < 2; t++) r->cost[t] = *f[29 + t] ? strtod(f[29 + t], NULL) : INFINITY;
        r->p25 = *f[10] ? strtod(f[10], NULL) : NAN;
        r->p75 = *f[12] ? strtod(f[12], NULL) : NAN;
    }
    return n;
}

/* Fields of the grade's row of the evaluate CSV (split in place). */
static int csv_row(char *text, const char *grade, char **f, int cap)
{
    size_t gl = strlen(grade);
    for (char *line = strchr(text, '\n'); line; line = strchr(line, '\n')) {
        line++;
        if (strncmp(line, grade, gl) != 0 || line[gl] != ',') continue;
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        int k = 0;
        for (char *p = line; k < cap;) {
            f[k++] = p;
            char *c = strchr(p, ',');
            if (!c) break;
            *c = '\0';
            p = c + 1;
        }
        return k;
    }
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_dbl);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static double sd(const double *x, size_t n)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++) m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_d(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_d);
    if (n % 2) return v[n / 2];
    return isinf(v[n / 2]) ? INFINITY : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The lab's manipulation distributions (fields f of its CSV row) are those
 * of the published rows: medians and extremes of the rows' loo_move and
 * costs over the days they are defined (v2: anchor days). */
static void manip_matches_rows(const shown *rows, size_t n, const char *grade, int v2,
                               char **f)
{
    double loo[GEN_DAYS], cost[2][GEN_DAYS], lmax = 0;
    size_t nl = 0, nc = 0;
    long none[2] = {0, 0};
    double lo[2] = {INFINITY, INFINITY};
    for (size_t i = 0; i < n; i++) {
        const shown *s = &rows[i];
        if (strcmp(s->grade, grade) != 0) continue;
        if (!isnan(s->loo)) {
            loo[nl++] = s->loo;
            if (s->loo > lmax) lmax = s->loo;
        }
        if (isnan(s->value) || (v2 && !s->event)) {
            assert_true(isinf(s->cost[0]) && isinf(s->cost[1]));
            continue;
        }
        for (int t = 0; t < 2; t++) {
            cost[t][nc] = s->cost[t];
            none[t] += isinf(s->cost[t]);
            if (s->cost[t] < lo[t]) lo[t] = s->cost[t];
        }
        nc++;
    }
    assert_true(nl > 20 && nc > 0);
    tu_assert_close(strtod(f[22], NULL), lmax, 1e-12, "loo_max_abs");
    /* printed at 4 decimals, half-up */
    tu_assert_close(strtod(f[47], NULL), floor(median_d(loo, nl) * 1e4 + 0.5 + 1e-9) / 1e4, 1e-9,
                    "loo_median_abs");
    assert_int_equal(strtol(f[49], NULL, 10), (long)nc);
    for (int t = 0; t < 2; t++) {
        double med = median_d(cost[t], nc);
        if (isinf(med))
            assert_string_equal(f[50 + 3 * t], "");
        else
            tu_assert_close(strtod(f[50 + 3 * t], NULL), med, 1e-9, "cost median");
        if (isinf(lo[t]))
            assert_string_equal(f[51 + 3 * t], "");
        else
            tu_assert_close(strtod(f[51 + 3 * t], NULL), lo[t], 1e-12, "cost min");
        assert_int_equal(strtol(f[52 + 3 * t], NULL, 10), none[t]);
    }
}

static void test_generated_market(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades-gen");
    char path[4096];
    snprintf(path, sizeof path, "%s/market.csv", dir);
    write_market(path, NULL, -1);
    free(tu_write(dir, "g.json", gen_grades_json));
    tu_run r;
    run_ok(dir, "--db t.db ingest --admit-providers market.csv", &r);
    tu_run_free(&r);
    const char *eval = "--db t.db grades evaluate --grades g.json --from " GEN_FROM
                       " --to " GEN_TO " --csv";
    tu_run ev1;
    run_ok(dir, eval, &ev1);
    run_ok(dir, "--db t.db index build --grades g.json --from " GEN_FROM " --to " GEN_TO, &r);
    tu_run_free(&r);
    /* evaluating reads observations only: building changes nothing */
    run_ok(dir, eval, &r);
    assert_string_equal(r.out, ev1.out);
    tu_run_free(&r);
    run_ok(dir, "--db t.db index show --from " GEN_FROM " --to " GEN_TO, &r);
    static shown rows[GEN_DAYS * 3];
    size_t n = parse_show(r.out, rows, N(rows));
    assert_int_equal(n, GEN_DAYS * 3);
    tu_run_free(&r);

    static double chg[3][GEN_DAYS];
    for (size_t g = 0; g < N(gen_grades); g++) {
        long lv[4] = {0, 0, 0, 0}, prov = 0, n_top = 0, n_chg = 0, prov_live = 0;
        double top = 0, prev = NAN, x[GEN_DAYS], vals[GEN_DAYS], iqr[GEN_DAYS];
        size_t n_val = 0, n_iqr = 0;
        long month_days[3] = {0, 0, 0}; /* March, April, May (May is partial) */
        long long month_e4[3] = {0, 0, 0};
        for (size_t i = 0; i < n; i++) {
            const shown *s = &rows[i];
            if (strcmp(s->grade, gen_grades[g].id) != 0) continue;
            size_t day = i / 3; /* rows sorted by date then grade */
            static const char *const names[4] = {"trades", "offers", "carried", "suspended"};
            for (int l = 0; l < 4; l++)
                if (strcmp(s->level, names[l]) == 0) lv[l]++;
            prov += s->n_providers;
            if (!isnan(s->value)) {
                vals[n_val++] = s->value;
                prov_live += s->n_providers;
                month_days[strtol(s->date + 5, NULL, 10) - 3]++;
                month_e4[strtol(s->date + 5, NULL, 10) - 3] += llround(s->value * 1e4);
            }
            if (!isnan(s->p25)) iqr[n_iqr++] = s->p75 - s->p25;
            if (!isnan(s->top)) top += s->top, n_top++;
            chg[g][day] = !isnan(prev) && !isnan(s->value) ? log(s->value / prev) : NAN;
            if (!isnan(chg[g][day])) x[n_chg++] = chg[g][day];
            prev = s->value;
        }
        char *f[80];
        char *copy = strdup(ev1.out);
        int k = csv_row(copy, gen_grades[g].id, f, 80);
        assert_int_equal(k, 71);
        manip_matches_rows(rows, n, gen_grades[g].id, g == 1, f);
        /* level, spread, providers on days with a value, settleable months */
        assert_int_equal(strtol(f[30], NULL, 10), (long)n_val);
        assert_true(n_val > 0 && n_iqr > 0);
        double pmed = median(vals, n_val);
        tu_assert_close(strtod(f[31], NULL), pmed, 1e-6, "price_median");
        tu_assert_close(strtod(f[32], NULL), vals[0], 1e-9, "price_min");
        tu_assert_close(strtod(f[33], NULL), vals[n_val - 1], 1e-9, "price_max");
        double sp = median(iqr, n_iqr);
        tu_assert_close(strtod(f[34], NULL), sp, 2e-6, "spread_iqr");
        tu_assert_close(strtod(f[35], NULL), sp / pmed, 2e-6, "spread_rel");
        tu_assert_close(strtod(f[36], NULL), (double)prov_live / (double)n_val, 1e-6,
                        "mean_providers_live");
        assert_int_equal(strtol(f[37], NULL, 10), 2); /* March and April */
        assert_int_equal(strtol(f[38], NULL, 10),
                         (month_days[0] >= 15) + (month_days[1] >= 15));
        /* the final settlement prices of March and April (mean of the
         * values, half-up to 0.0001) and their change */
        if (month_days[0] >= 15 && month_days[1] >= 15) {
            long long fm = (2 * month_e4[0] + month_days[0]) / (2 * month_days[0]);
            long long fa = (2 * month_e4[1] + month_days[1]) / (2 * month_days[1]);
            assert_int_equal(strtol(f[58], NULL, 10), 1);
            tu_assert_close(strtod(f[59], NULL), fabs((double)fa / (double)fm - 1), 1e-8,
                            "fsp_change_max");
            assert_string_equal(f[61], "2025-04");
        } else {
            assert_int_equal(strtol(f[58], NULL, 10), 0);
        }
        for (int l = 0; l < 4; l++) assert_int_equal(strtol(f[2 + l], NULL, 10), lv[l]);
        tu_assert_close(strtod(f[10], NULL), (double)prov / GEN_DAYS, 1e-6, "mean_providers");
        /* published shares are rounded to 6 decimals */
        tu_assert_close(strtod(f[11], NULL), top / (double)n_top, 2e-6, "top share");
        assert_int_equal(strtol(f[17], NULL, 10), n_chg);
        tu_assert_close(strtod(f[18], NULL), sd(x, (size_t)n_chg), 1e-6, "vol_daily");
        tu_assert_close(strtod(f[19], NULL), sd(x, (size_t)n_chg) * sqrt(365.0), 1e-6,
                        "vol_annualized");
        /* the market has fixed days, moves and a lost day or two */
        assert_true(g == 1 ? lv[0] + lv[1] > 25 : lv[0] > 20 && lv[1] > 5); /* H.SPOT: v2 */
        assert_true(strtol(f[20], NULL, 10) > 20);
        if (g <= 1) {
            /* replay the largest move: a database without that provider's
             * observations of that day, built the ordinary way (H.SPOT
             * is a v2 grade: its chain leaves the provider out too) */
            const char *date = f[26], *provider = f[27];
            double from_v = strtod(f[28], NULL), to_v = strtod(f[29], NULL);
            int32_t d0, dm;
            assert_null(gpi_date_parse(GEN_FROM, &d0));
            assert_null(gpi_date_parse(date, &dm));
            assert_true(strtod(f[24], NULL) > 0.01); /* a real move */
            snprintf(path, sizeof path, "%s/market2-%zu.csv", dir, g);
            write_market(path, provider, (int)(dm - d0));
            tu_run r2;
            char args[512];
            snprintf(args, sizeof args, "--db t2-%zu.db ingest --admit-providers market2-%zu.csv",
                     g, g);
            run_ok(dir, args, &r2);
            tu_run_free(&r2);
            snprintf(args, sizeof args,
                     "--db t2-%zu.db index build --grades g.json --from " GEN_FROM " --to %s", g,
                     date);
            run_ok(dir, args, &r2);
            tu_run_free(&r2);
            snprintf(args, sizeof args, "--db t2-%zu.db index show --grade %s --from %s --to %s",
                     g, gen_grades[g].id, date, date);
            run_ok(dir, args, &r2);
            shown one[2];
            assert_int_equal(parse_show(r2.out, one, 2), 1);
            tu_assert_close(one[0].value, to_v, 1e-12, "value without the provider");
            for (size_t i = 0; i < n; i++)
                if (strcmp(rows[i].date, date) == 0 && strcmp(rows[i].grade, gen_grades[g].id) == 0)
                    tu_assert_close(rows[i].value, from_v, 1e-12, "value with it");
            tu_run_free(&r2);
        }
        free(copy);
    }
    /* correlations from the published values */
    char *copy = strdup(ev1.out);
    tu_run j;
    run_ok(dir, "--db t.db grades evaluate --grades g.json --from " GEN_FROM " --to " GEN_TO
                " --json", &j);
    json_error_t je;
    json_t *root = json_loads(j.out, 0, &je);
    if (!root) fail_msg("json: %s", je.text);
    json_t *m = json_object_get(json_object_get(root, "correlation"), "matrix");
    json_t *mv = json_object_get(json_object_get(root, "correlation"), "moved_days");
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++) {
            double xa[GEN_DAYS], xb[GEN_DAYS];
            size_t c = 0, moved = 0;
            for (size_t d = 0; d < GEN_DAYS; d++)
                if (!isnan(chg[a][d]) && !isnan(chg[b][d])) {
                    moved += chg[a][d] != 0 && chg[b][d] != 0;
                    xa[c] = chg[a][d], xb[c++] = chg[b][d];
                }
            assert_int_equal(json_integer_value(json_array_get(json_array_get(mv, a), b)),
                             (long)moved);
            assert_true(moved >= 5);
            double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
            for (size_t i = 0; i < c; i++) ma += xa[i], mb += xb[i];
            ma /= (double)c;
            mb /= (double)c;
            for (size_t i = 0; i < c; i++) {
                sab += (xa[i] - ma) * (xb[i] - mb);
                saa += (xa[i] - ma) * (xa[i] - ma);
                sbb += (xb[i] - mb) * (xb[i] - mb);
            }
            assert_true(c >= 10);
            tu_assert_close(json_real_value(json_array_get(json_array_get(m, a), b)),
                            sab / sqrt(saa * sbb), 1e-9, "correlation");
        }
    json_decref(root);
    tu_run_free(&j);
    free(copy);
    tu_run_free(&ev1);
    free(dir);
}

/* ---- the published cost is what a participant needs ----------------------------- */

/* Grade H.OD's value on day (a fresh `index show` field), after one trade of
 * a new provider is added to a copy of the database and the day rebuilt. */
static double value_with(const char *dir, const char *day, const char *qty, const char *price)
{
    char csv[512], cmd[3][512];
    snprintf(csv, sizeof csv, "kind,id,observed_at,provider,gpu,price,quantity,term\n"
                              "trade,zz,%sT23:00:00Z,Zz Newcomer,H100,%s,%s,on-demand\n",
             day, price, qty);
    free(tu_write(dir, "zz.csv", csv));
    snprintf(cmd[0], sizeof cmd[0], "cp t.db z.db && \"$GPUIDX_BIN\" --db z.db ingest --admit-providers zz.csv");
    snprintf(cmd[1], sizeof cmd[1],
             "\"$GPUIDX_BIN\" --db z.db index build --grades g.json --from %s --to %s", day, day);
    snprintf(cmd[2], sizeof cmd[2],
             "\"$GPUIDX_BIN\" --db z.db index show --grade H.OD --from %s --to %s", day, day);
    const char *steps[3] = {cmd[0], cmd[1], cmd[2]};
    tu_run r = tu_sh_all(dir, steps, 3);
    shown one[2];
    assert_int_equal(parse_show(r.out, one, 2), 1);
    tu_run_free(&r);
    return one[0].value;
}

/* Property of METHODOLOGY.md §11.2, checked through the ordinary build and
 * not index/manip.c's search: on a day with a published cost c, a new
 * provider's trade of c GPU-hours at 1,000,000 or at 0.000001 USD moves the
 * value by a tick (by 1 % for cost_1pct), and one of c - 0.01 does not. */
static void test_cost_is_what_a_participant_needs(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades-cost");
    char path[4096];
    snprintf(path, sizeof path, "%s/market.csv", dir);
    write_market(path, NULL, -1);
    free(tu_write(dir, "g.json", gen_grades_json));
    tu_run r;
    run_ok(dir, "--db t.db ingest --admit-providers market.csv", &r);
    tu_run_free(&r);
    run_ok(dir, "--db t.db index build --grades g.json --from " GEN_FROM " --to 2025-03-20", &r);
    tu_run_free(&r);
    run_ok(dir, "--db t.db index show --grade H.OD --from 2025-03-10 --to 2025-03-20", &r);
    static shown rows[16];
    size_t n = parse_show(r.out, rows, N(rows));
    tu_run_free(&r);
    int checked[2] = {0, 0};
    for (size_t i = 0; i < n && (checked[0] < 2 || checked[1] < 2); i++) {
        for (int t = 0; t < 2; t++) {
            if (isinf(rows[i].cost[t]) || checked[t] >= 2) continue;
            double v0 = rows[i].value, c = rows[i].cost[t];
            char q[2][32];
            snprintf(q[0], sizeof q[0], "%.2f", c);
            snprintf(q[1], sizeof q[1], "%.2f", c - 0.01);
            double need = t == 0 ? 0.00005 : v0 * 0.01 - 1e-9;
            double up = value_with(dir, rows[i].date, q[0], "1000000");
            double down = value_with(dir, rows[i].date, q[0], "0.000001");
            if (!(fabs(up - v0) >= need || fabs(down - v0) >= need))
                fail_msg("%s: %.2f GPU-hours moved %.4f only to %.4f / %.4f", rows[i].date, c, v0,
                         up, down);
            if (c > 0.01) {
                up = value_with(dir, rows[i].date, q[1], "1000000");
                down = value_with(dir, rows[i].date, q[1], "0.000001");
                if (fabs(up - v0) >= need || fabs(down - v0) >= need)
                    fail_msg("%s: %.2f GPU-hours already move %.4f to %.4f / %.4f", rows[i].date,
                             c - 0.01, v0, up, down);
            }
            checked[t]++;
        }
    }
    assert_int_equal(checked[0], 2);
    assert_int_equal(checked[1], 2);
    free(dir);
}

/* Two list-price series flat but for one day, moving in opposite
 * directions: over 13 common change days they "correlate" at -1.000 from
 * that one move (two non-zero changes).  Fewer than IDX_CORR_MIN_MOVES
 * days on which both moved: no coefficient, and the sample sizes say why. */
static void test_correlation_needs_moves(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades-corr");
    size_t cap = 1 << 14, n = 0;
    char *csv = malloc(cap);
    n += (size_t)snprintf(csv + n, cap - n, "kind,id,observed_at,provider,gpu,price\n");
    static const char *const prov[3] = {"aws", "lambda", "runpod"};
    for (int day = 1; day <= 14; day++)
        for (int p = 0; p < 3; p++) {
            n += (size_t)snprintf(csv + n, cap - n, "offer,h%d,2025-01-%02d,%s,H100-SXM-80GB,%s\n",
                                  p, day, prov[p], day == 8 ? "2.10" : "2.00");
            n += (size_t)snprintf(csv + n, cap - n, "offer,a%d,2025-01-%02d,%s,A100-SXM-80GB,%s\n",
                                  p, day, prov[p], day == 8 ? "0.90" : "1.00");
        }
    free(tu_write(dir, "c.csv", csv));
    free(csv);
    free(tu_write(dir, "g.json", "{\"grades\":[{\"id\":\"H\",\"gpu\":\"H100\"},"
                                 "{\"id\":\"A\",\"gpu\":\"A100-SXM-80GB\"}]}"));
    tu_run r;
    run_ok(dir, "--db t.db ingest offers --admit-providers c.csv", &r);
    tu_run_free(&r);
    run_ok(dir, "--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-14 "
                "--json", &r);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    if (!j) fail_msg("json: %s", je.text);
    json_t *c = json_object_get(j, "correlation");
    assert_true(json_is_null(json_array_get(json_array_get(json_object_get(c, "matrix"), 0), 1)));
    assert_int_equal(json_integer_value(json_array_get(
                         json_array_get(json_object_get(c, "common_days"), 0), 1)), 13);
    assert_int_equal(json_integer_value(json_array_get(
                         json_array_get(json_object_get(c, "moved_days"), 0), 1)), 2);
    assert_int_equal(json_integer_value(json_object_get(c, "min_moved_days")), 5);
    /* two changes of one grade alone give it a volatility, as before */
    json_t *g0 = json_array_get(json_object_get(j, "grades"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(g0, "volatility"),
                                                        "n_changes")), 13);
    json_decref(j);
    tu_run_free(&r);
    run_ok(dir, "--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-14", &r);
    if (!strstr(r.out, "[1]   H           -       -\n")) fail_msg("no bare coefficient:\n%s", r.out);
    if (!strstr(r.out, "[1]   H          13/2      13/2\n")) fail_msg("sample sizes:\n%s", r.out);
    tu_run_free(&r);
    free(dir);
}

/* Settleable months: calendar months wholly in the range with at least 15
 * days with a value.  Three providers list on January 1-20 and February
 * 1-10, and carry is off: January has 20 values (settles), February 10
 * (does not); the range's partial March is not counted. */
static void test_settleable_months(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades-months");
    size_t cap = 1 << 14, n = 0;
    char *csv = malloc(cap);
    n += (size_t)snprintf(csv + n, cap - n, "kind,id,observed_at,provider,gpu,price\n");
    static const char *const prov[3] = {"aws", "lambda", "runpod"};
    for (int m = 1; m <= 2; m++)
        for (int day = 1; day <= (m == 1 ? 20 : 10); day++)
            for (int p = 0; p < 3; p++)
                n += (size_t)snprintf(csv + n, cap - n,
                                      "offer,h%d,2025-%02d-%02d,%s,H100-SXM-80GB,%.2f\n", p, m, day,
                                      prov[p], 2.0 + 0.1 * p);
    free(tu_write(dir, "c.csv", csv));
    free(csv);
    free(tu_write(dir, "g.json", "{\"grades\":[{\"id\":\"H\",\"gpu\":\"H100-SXM-80GB\","
                                 "\"max_carry_days\":0}]}"));
    tu_run r;
    run_ok(dir, "--db t.db ingest offers --admit-providers c.csv", &r);
    tu_run_free(&r);
    run_ok(dir, "--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-03-05 "
                "--json", &r);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    if (!j) fail_msg("json: %s", je.text);
    json_t *g = json_array_get(json_object_get(j, "grades"), 0);
    json_t *months = json_object_get(g, "months");
    assert_int_equal(json_integer_value(json_object_get(months, "full")), 2);
    assert_int_equal(json_integer_value(json_object_get(months, "settleable")), 1);
    assert_int_equal(json_integer_value(json_object_get(months, "min_days")), 15);
    json_t *price = json_object_get(g, "price");
    assert_int_equal(json_integer_value(json_object_get(price, "value_days")), 30);
    /* provider medians 2.0, 2.1, 2.2 every day: value 2.1, and the day's
     * three offers have p25 2.05, p75 2.15 */
    tu_assert_close(json_real_value(json_object_get(price, "median")), 2.1, 1e-12, "median");
    tu_assert_close(json_real_value(json_object_get(price, "spread_iqr")), 0.1, 1e-9, "spread");
    /* 3 providers on the 30 days with a value, 0 on the 34 without */
    tu_assert_close(json_real_value(json_object_get(g, "mean_providers_live")), 3.0, 1e-12,
                    "mean_providers_live");
    tu_assert_close(json_real_value(json_object_get(g, "mean_providers")), 90.0 / 64, 1e-12,
                    "mean_providers");
    json_decref(j);
    tu_run_free(&r);
    free(dir);
}

/* ---- errors ----------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-grades-err");
    char *csv = market_m_csv();
    free(tu_write(dir, "m.csv", csv));
    free(csv);
    free(tu_write(dir, "g.json", grades_m));
    free(tu_write(dir, "tier.json",
                  "{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"min_tier\":\"diamond\"}]}"));
    free(tu_write(dir, "dup.json",
                  "{\"grades\":[{\"id\":\"h.a\",\"gpu\":\"B200\"},"
                  "{\"id\":\"H.A\",\"gpu\":\"B200\"}]}"));
    free(tu_write(dir, "syntax.json", "{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",}]}"));
    free(tu_write(dir, "empty.json", "{\"grades\": []}"));
    free(tu_write(dir, "param.json",
                  "{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"min_providers\":2.5}]}"));
    tu_run r;
    run_ok(dir, "--db t.db ingest --admit-providers m.csv", &r);
    tu_run_free(&r);
    static const struct {
        const char *args;
        int status;
        const char *err;
    } cases[] = {
        {"--db t.db grades evaluate --grades tier.json --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: tier.json: grades[0].min_tier: unknown tier (got \"diamond\")\n"},
        {"--db t.db grades evaluate --grades dup.json --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: dup.json: grades[1].id: duplicate of grades[0] (ids ignore case) "
         "(got \"H.A\")\n"},
        {"--db t.db grades evaluate --grades syntax.json --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: syntax.json:1:35: string or '}' expected near '}'\n"},
        {"--db t.db grades evaluate --grades param.json --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: param.json: grades[0].min_providers: not an integer (got \"2.5\")\n"},
        {"--db t.db grades evaluate --grades empty.json --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: grades evaluate: no grades to evaluate\n"},
        {"--db t.db grades evaluate --grades nope.json --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: nope.json: no such file\n"},
        /* a folder opens but cannot be read: an error, not an empty file */
        {"--db t.db grades evaluate --grades . --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: .: is a directory, not a file\n"},
        {"--db none.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-06", 1,
         "gpuidx: grades evaluate: no database at none.db (ingest observations first, or pass "
         "--db)\n"},
        {"--db t.db grades evaluate --grades g.json --from 2025-01-01", 2,
         "gpuidx: grades evaluate: --from and --to are required\n"},
        {"--db t.db grades evaluate --grades g.json --from 2025-01-07 --to 2025-01-06", 2,
         "gpuidx: grades evaluate: --from 2025-01-07 is after --to 2025-01-06\n"},
        {"--db t.db grades evaluate --grades g.json --from 2025-02-30 --to 2025-03-06", 2,
         "gpuidx: --from: no such calendar date (got \"2025-02-30\")\n"},
        {"--db t.db grades evaluate --from 2025-01-01 --to 2025-01-06 --as-of soon", 2,
         "gpuidx: --as-of: not a date or ISO-8601 timestamp (got \"soon\")\n"},
        {"--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-06 --json "
         "--csv", 2, "gpuidx: grades evaluate: --json and --csv exclude each other\n"},
        {"--db t.db grades evaluate --grades", 2,
         "gpuidx: grades evaluate: option '--grades' needs a value\n"},
        {"--db t.db grades evaluate --bogus", 2,
         "gpuidx: grades evaluate: unknown argument '--bogus' (see gpuidx grades evaluate --help)\n"},
        {"--db t.db grades frobnicate", 2,
         "gpuidx: grades: unknown subcommand 'frobnicate' (evaluate, list, drop, restore, stale)\n"},
        /* output that cannot be written fails, in each format */
        {"--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-06 >/dev/full",
         1, "gpuidx: stdout: write failed\n"},
        {"--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-06 --csv"
         " >/dev/full", 1, "gpuidx: stdout: write failed\n"},
        {"--db t.db grades evaluate --grades g.json --from 2025-01-01 --to 2025-01-06 --json"
         " >/dev/full", 1, "gpuidx: stdout: write failed\n"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        r = tu_gpuidx(dir, "%s", cases[i].args);
        if (r.status != cases[i].status)
            fail_msg("%s: exit %d, want %d (%s)", cases[i].args, r.status, cases[i].status, r.err);
        if (strcmp(r.err, cases[i].err) != 0)
            fail_msg("%s:\n got  %s want %s", cases[i].args, r.err, cases[i].err);
        assert_string_equal(r.out, "");
        tu_run_free(&r);
    }
    r = tu_gpuidx(dir, "grades evaluate --help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: gpuidx [--db PATH] grades evaluate"));
    tu_run_free(&r);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_market),
        cmocka_unit_test(test_generated_market),
        cmocka_unit_test(test_cost_is_what_a_participant_needs),
        cmocka_unit_test(test_correlation_needs_moves),
        cmocka_unit_test(test_settleable_months),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_zero_value_day),
        cmocka_unit_test(test_half_up_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
