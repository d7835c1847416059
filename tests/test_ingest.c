/* tests/test_ingest.c -- parsing, normalization, rejects, line numbers,
 * JSON, structural errors, identity.  Uses the fixed tables in
 * tests/fixtures/tables (expected values computed by hand in comments).
 * The tables themselves: tests/test_ingest_tables.c; the two-thread
 * ingest: tests/test_ingest_pipe.c; JSON and the record bound:
 * tests/test_ingest_json.c. */
#include "tests/testutil.h"
#include "core/csv_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/gpi.h"
#include "ingest/ingest.h"
#include "ingest/internal.h"
#include "tests/ingest_helpers.h"

#define HDR "observed_at,provider,gpu,sku,gpu_count,price,currency,unit,tier,term,term_months,quantity,buyer,status,kind,id\n"

/* ---- normalization ------------------------------------------------------ */

static void test_normalize_table(void **state)
{
    (void)state;
    static const struct {
        const char *name, *row, *gpu, *provider, *group, *segment;
        int64_t price_micro;
        int count, tier, status, term_months;
        const char *day;
        int64_t qty_micro;
    } cases[] = {
        /* 2.5 USD/GPU-h */
        {"gpu-hour", "2024-03-01,aws,H100,,,2.5,,gpu-hour,,,,,,,offer,", "H100-SXM-80GB", "aws",
         "amazon", "hyperscaler", 2500000, 1, GPI_TIER_UNRATED, 0, 0, "2024-03-01", -1},
        /* 98.32 / 8 = 12.29 */
        {"instance-hour", "2024-03-01,aws,H100,,8,98.32,,instance-hour,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 12290000, 8, 0, 0, 0, "2024-03-01", -1},
        /* 10 / 3 = 3.3333333 -> 3333333 */
        {"thirds", "2024-03-01,aws,H100,,3,10,,instance-hour,,,,,,,offer,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 3333333, 3, 0, 0, 0, "2024-03-01", -1},
        /* 0.000001 / 2 = 0.5 micro -> half up to 1 */
        {"half up", "2024-03-01,aws,H100,,2,0.000001,,instance-hour,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 1, 2, 0, 0, 0, "2024-03-01", -1},
        /* 0.000003 / 2 = 1.5 micro -> 2 */
        {"half up 1.5", "2024-03-01,aws,H100,,2,0.000003,,instance-hour,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 2, 2, 0, 0, 0, "2024-03-01", -1},
        /* a float printed in full: 1277470.7094999997 -> 1277471 */
        {"17 digits", "2024-03-01,aws,H100,,,1.2774707094999997,,gpu-hour,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 1277471, 1, 0, 0, 0, "2024-03-01", -1},
        /* / 4 = 319367.677374999925 -> 319368 */
        {"17 digits / 4", "2024-03-01,aws,H100,,4,1.2774707094999997,,instance-hour,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 319368, 4, 0, 0, 0, "2024-03-01", -1},
        /* 18 decimals: 0.000000500000000000 x 1e6 = 0.5 -> 1 (half up) */
        {"18 decimals", "2024-03-01,aws,H100,,,0.000000500000000000,,gpu-hour,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 1, 1, 0, 0, 0, "2024-03-01", -1},
        /* 730 / 730 h */
        {"gpu-month", "2024-03-01,aws,H100,,,730,,gpu-month,,,,,,,offer,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 1000000, 1, 0, 0, 0, "2024-03-01", -1},
        /* 1460 / (2 x 730) */
        {"instance-month", "2024-03-01,aws,H100,,2,1460,,instance-month,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 1000000, 2, 0, 0, 0, "2024-03-01", -1},
        /* 1e6 / 730 = 1369.863 -> 1370 */
        {"month rounding", "2024-03-01,aws,H100,,,1,,gpu-month,,,,,,,offer,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 1370, 1, 0, 0, 0, "2024-03-01", -1},
        /* gpu_count written 8.0; 16 / 8 */
        {"count 8.0", "2024-03-01,aws,H100,,8.0,16,,instance-hour,,,,,,,offer,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 2000000, 8, 0, 0, 0, "2024-03-01", -1},
        /* 2.00 EUR x 1.0666 (rate of 2023-01-02) = 2.1332 */
        {"EUR 2023", "2023-06-01,aws,H100,,,2.00,eur,,,,,,,,offer,", "H100-SXM-80GB", "aws",
         "amazon", "hyperscaler", 2133200, 1, 0, 0, 0, "2023-06-01", -1},
        /* on the rate's own date: 2.00 x 1.0956 */
        {"EUR on the date", "2024-01-02,aws,H100,,,2.00,EUR,,,,,,,,offer,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 2191200, 1, 0, 0, 0, "2024-01-02", -1},
        /* 300 JPY x 0.006930 = 2.079 */
        {"JPY", "2024-02-01,aws,H100,,,300,JPY,,,,,,,,offer,", "H100-SXM-80GB", "aws", "amazon",
         "hyperscaler", 2079000, 1, 0, 0, 0, "2024-02-01", -1},
        /* 4 GPUs x 300 JPY per GPU-month: 1200 x 0.00693 / (4 x 730) = 0.00284794.. */
        {"JPY instance-month", "2024-02-01,aws,H100,,4,1200,JPY,instance-month,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 2848, 4, 0, 0, 0, "2024-02-01", -1},
        {"tier before", "2022-12-31,lambda,H100,,,2,,,,,,,,,offer,", "H100-SXM-80GB", "lambda",
         "lambda", "neocloud", 2000000, 1, GPI_TIER_UNRATED, 0, 0, "2022-12-31", -1},
        {"tier from date", "2023-01-01,lambda,H100,,,2,,,,,,,,,offer,", "H100-SXM-80GB", "lambda",
         "lambda", "neocloud", 2000000, 1, GPI_TIER_GOLD, 0, 0, "2023-01-01", -1},
        {"tier changes", "2024-06-01,lambda,H100,,,2,,,,,,,,,offer,", "H100-SXM-80GB", "lambda",
         "lambda", "neocloud", 2000000, 1, GPI_TIER_SILVER, 0, 0, "2024-06-01", -1},
        {"tier in row", "2024-06-01,lambda,H100,,,2,,,Platinum,,,,,,offer,", "H100-SXM-80GB",
         "lambda", "lambda", "neocloud", 2000000, 1, GPI_TIER_PLATINUM, 0, 0, "2024-06-01", -1},
        {"provider folded", "2024-03-01,\"  Amazon   Web  Services \",H100,,,1,,,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 1000000, 1, 0, 0, 0, "2024-03-01", -1},
        {"unknown provider", "2024-03-01,Foo  Cloud,H100,,,1,,,,,,,,,offer,", "H100-SXM-80GB",
         "foo cloud", "foo cloud", "unknown", 1000000, 1, 0, 0, 0, "2024-03-01", -1},
        {"gpu spelling", "2024-03-01,aws,h100 pcie,,,1,,,,,,,,,offer,", "H100-PCIE-80GB", "aws",
         "amazon", "hyperscaler", 1000000, 1, 0, 0, 0, "2024-03-01", -1},
        {"gpu folded", "2024-03-01,aws,H_1-0 0,,,1,,,,,,,,,offer,", "H100-SXM-80GB", "aws",
         "amazon", "hyperscaler", 1000000, 1, 0, 0, 0, "2024-03-01", -1},
        {"sku rule", "2024-03-01,aws,H100,x-PCIE-y,,1,,,,,,,,,offer,", "H100-PCIE-80GB", "aws",
         "amazon", "hyperscaler", 1000000, 1, 0, 0, 0, "2024-03-01", -1},
        {"provider+sku rule", "2024-03-01,lambda,H100,gpu_1x_h100_PCIE,,1,,,,,,,,,offer,",
         "H100-NVL-94GB", "lambda", "lambda", "neocloud", 1000000, 1, GPI_TIER_SILVER, 0, 0,
         "2024-03-01", -1},
        {"provider rule", "2024-03-01,runpod,H100,anything,,1,,,,,,,,,offer,", "H100-PCIE-80GB",
         "runpod", "runpod", "neocloud", 1000000, 1, 0, 0, 0, "2024-03-01", -1},
        {"glob ?", "2024-03-01,lambda,A100,gpu_2x_a100,2,2,,instance-hour,,,,,,,offer,",
         "A100-PCIE-40GB", "lambda", "lambda", "neocloud", 1000000, 2, GPI_TIER_SILVER, 0, 0,
         "2024-03-01", -1},
        {"longer glob wins", "2024-03-01,lambda,A100,gpu_8x_a100,8,8,,instance-hour,,,,,,,offer,",
         "A100-SXM-40GB", "lambda", "lambda", "neocloud", 1000000, 8, GPI_TIER_SILVER, 0, 0,
         "2024-03-01", -1},
        {"reserved", "2024-03-01,aws,H100,,,1,,,,reserved,12,,,,offer,", "H100-SXM-80GB", "aws",
         "amazon", "hyperscaler", 1000000, 1, 0, 0, 12, "2024-03-01", -1},
        /* 23:30 at -02:00 is 01:30 UTC the next day */
        {"offset time", "2024-03-01T23:30:00-02:00,aws,H100,,,1,,,,,,,,,offer,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 1000000, 1, 0, 0, 0, "2024-03-02", -1},
        {"trade", "2024-03-01,aws,H100,,,1,,,,,,100.5,lambda,,trade,", "H100-SXM-80GB", "aws",
         "amazon", "hyperscaler", 1000000, 1, 0, GPI_STATUS_OK, 0, "2024-03-01", 100500000},
        {"affiliate", "2024-03-01,aws,H100,,,1,,,,,,5,Amazon Retail,,trade,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 1000000, 1, 0, GPI_STATUS_AFFILIATE, 0, "2024-03-01",
         5000000},
        {"cancelled stays", "2024-03-01,aws,H100,,,1,,,,,,5,amazon retail,cancelled,trade,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 1000000, 1, 0, GPI_STATUS_CANCELLED, 0,
         "2024-03-01", 5000000},
        {"offer quantity", "2024-03-01,aws,H100,,,1,,,,,,64,,,offer,", "H100-SXM-80GB", "aws",
         "amazon", "hyperscaler", 1000000, 1, 0, 0, 0, "2024-03-01", 64000000},
        /* the price bound: 1000000 is in, and 999999.9999996 rounds to it */
        {"price at the bound", "2024-03-01,aws,H100,,,1000000,,,,,,,,,offer,", "H100-SXM-80GB",
         "aws", "amazon", "hyperscaler", 1000000000000, 1, 0, 0, 0, "2024-03-01", -1},
        {"rounds to the bound", "2024-03-01,aws,H100,,,999999.9999996,,,,,,,,,offer,",
         "H100-SXM-80GB", "aws", "amazon", "hyperscaler", 1000000000000, 1, 0, 0, 0,
         "2024-03-01", -1},
    };
    ingest_tables *t = fixture_tables();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, HDR "%s\n", cases[i].row);
        got g;
        gpi_diag d = {{0}};
        if (run(t, "t.csv", text, -1, &g, &d, NULL) != GPI_OK) fail_msg("%s: %s", cases[i].name, d.msg);
        if (g.n_obs != 1) fail_msg("%s: %d obs, reject: %s", cases[i].name, g.n_obs, g.n_rej ? g.rej[0] : "");
        got_obs *k = &g.obs[0];
        char day[11];
        gpi_date_format(k->o.day, day);
        if (strcmp(k->gpu, cases[i].gpu) || strcmp(k->provider, cases[i].provider) ||
            strcmp(k->group, cases[i].group) || strcmp(k->segment, cases[i].segment) ||
            k->o.price_micro != cases[i].price_micro || k->o.gpu_count != cases[i].count ||
            (cases[i].tier && k->o.tier != cases[i].tier) || k->o.status != cases[i].status ||
            k->o.term_months != cases[i].term_months || strcmp(day, cases[i].day) ||
            k->o.quantity_micro != cases[i].qty_micro)
            fail_msg("%s: got %s %s %s %s price %lld count %d tier %d status %d months %d day %s qty %lld",
                     cases[i].name, k->gpu, k->provider, k->group, k->segment,
                     (long long)k->o.price_micro, k->o.gpu_count, k->o.tier, k->o.status,
                     k->o.term_months, day, (long long)k->o.quantity_micro);
        assert_int_equal(k->o.line, 2);
    }
    ingest_tables_free(t);
}

/* ---- starts_on: forward-start reservations (issue 29) -------------------- */

static void test_starts_on(void **state)
{
    (void)state;
#define SHDR "observed_at,provider,gpu,price,term,term_months,starts_on,kind\n"
    static const struct {
        const char *row;
        const char *starts;   /* the stored start, "" none; NULL: rejected with msg */
        const char *msg, *col;
    } cases[] = {
        {"2024-03-01,aws,H100,1,reserved,12,2024-06-01,offer", "2024-06-01", NULL, NULL},
        /* a start on or before the day observed is a start on the day */
        {"2024-03-01,aws,H100,1,reserved,12,2024-03-01,offer", "", NULL, NULL},
        {"2024-03-01,aws,H100,1,reserved,12,2024-02-01,offer", "", NULL, NULL},
        {"2024-03-01,aws,H100,1,reserved,12,,offer", "", NULL, NULL},
        {"2024-03-01,aws,H100,1,reserved,12,2029-03-02,offer", "2029-03-02", NULL, NULL},
        {"2024-03-01,aws,H100,1,on-demand,,2024-06-01,offer", NULL,
         "t.csv:2: starts_on: only allowed with term reserved (got \"2024-06-01\")", "starts_on"},
        {"2024-03-01,aws,H100,1,reserved,12,2024-6-1,offer", NULL,
         "t.csv:2: starts_on: not a date YYYY-MM-DD (got \"2024-6-1\")", "starts_on"},
        {"2024-03-01,aws,H100,1,reserved,12,2029-03-03,offer", NULL,
         "t.csv:2: starts_on: more than 1827 days (5 years) after the day observed (got "
         "\"2029-03-03\")",
         "starts_on"},
    };
    ingest_tables *t = fixture_tables();
    char ident0[256] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, SHDR "%s\n", cases[i].row);
        got g;
        gpi_diag d = {{0}};
        if (run(t, "t.csv", text, -1, &g, &d, NULL) != GPI_OK) fail_msg("case %zu: %s", i, d.msg);
        if (!cases[i].starts) {
            if (g.n_rej != 1) fail_msg("case %zu: %d rejects", i, g.n_rej);
            assert_string_equal(g.rej[0], cases[i].msg);
            assert_string_equal(g.rej_col[0], cases[i].col);
            continue;
        }
        if (g.n_obs != 1) fail_msg("case %zu: %d obs (%s)", i, g.n_obs, g.n_rej ? g.rej[0] : "");
        char day[11] = "";
        if (g.obs[0].o.starts_on) gpi_date_format(g.obs[0].o.starts_on, day);
        assert_string_equal(day, cases[i].starts);
        /* without an id, the start as written is part of the identity */
        if (i == 0) snprintf(ident0, sizeof ident0, "%s", g.obs[0].ident);
        if (i == 3) {
            assert_string_not_equal(g.obs[0].ident, ident0);
            assert_non_null(strstr(ident0, "|2024-06-01"));
            assert_null(strstr(g.obs[0].ident, "|2024")); /* no start: the identity as before */
        }
    }
    ingest_tables_free(t);
#undef SHDR
}

/* ---- rejects: every reason, exact text ---------------------------------- */

static void test_reject_table(void **state)
{
    (void)state;
    static const struct {
        const char *row, *msg, *col;
    } cases[] = {
        {"2024-03-01,aws,H100,,,abc,,,,,,,,,offer,", "t.csv:2: price: not a number (got \"abc\")", "price"},
        {"2024-03-01,aws,H100,,,1e3,,,,,,,,,offer,", "t.csv:2: price: not a number (got \"1e3\")", "price"},
        {"2024-03-01,aws,H100,,,0,,,,,,,,,offer,", "t.csv:2: price: must be > 0 (got \"0\")", "price"},
        {"2024-03-01,aws,H100,,,-1,,,,,,,,,offer,", "t.csv:2: price: must be > 0 (got \"-1\")", "price"},
        {"2024-03-01,aws,H100,,,,,,,,,,,,offer,", "t.csv:2: price: missing", "price"},
        {"2024-03-01,aws,H100,,,1234567890123456789,,,,,,,,,offer,",
         "t.csv:2: price: too many digits (got \"1234567890123456789\")", "price"},
        {"2024-03-01,aws,H100,,,0.0000000000000000001,,,,,,,,,offer,",
         "t.csv:2: price: too many digits (got \"0.0000000000000000001\")", "price"},
        {"2024-03-01,aws,H100,,,1.2.3,,,,,,,,,offer,", "t.csv:2: price: not a number (got \"1.2.3\")", "price"},
        {"2024-03-01,aws,H100,,,.,,,,,,,,,offer,", "t.csv:2: price: not a number (got \".\")", "price"},
        {"2024-03-01,aws,H100,,,2000000,,,,,,,,,offer,",
         "t.csv:2: price: above 1000000 USD per GPU-hour (got \"2000000\")", "price"},
        /* the bound is on the rounded price: 1000000 itself is stored */
        {"2024-03-01,aws,H100,,,1000000.0000006,,,,,,,,,offer,",
         "t.csv:2: price: above 1000000 USD per GPU-hour (got \"1000000.0000006\")", "price"},
        {"9999-12-31T23:00:00-05:00,aws,H100,,,1,,,,,,,,,offer,",
         "t.csv:2: observed_at: outside the years 0001-9999 in UTC (got "
         "\"9999-12-31T23:00:00-05:00\")", "observed_at"},
        {"2024-03-01,aws,H100,,,0.0000004,,,,,,,,,offer,",
         "t.csv:2: price: below 0.000001 USD per GPU-hour (got \"0.0000004\")", "price"},
        {"2024-03-01,aws,Z9000,,,1,,,,,,,,,offer,",
         "t.csv:2: gpu: unknown GPU model (add it to gpus.csv) (got \"Z9000\")", "gpu"},
        {"2024-03-01,aws,Inferentia,,,1,,,,,,,,,offer,",
         "t.csv:2: gpu: not a GPU: AWS Inferentia accelerator (got \"Inferentia\")", "gpu"},
        {"2024-03-01,aws,Mystery,,,1,,,,,,,,,offer,",
         "t.csv:2: gpu: not a GPU: listed as not a GPU in gpus.csv (got \"Mystery\")", "gpu"},
        {"2024-03-01,gcp,tpu-v3-8,,,1,,,,,,,,,offer,",
         "t.csv:2: gpu: not a GPU: Google Cloud TPU (got \"tpu-v3-8\")", "gpu"},
        {"2024-03-01,aws,,,,1,,,,,,,,,offer,", "t.csv:2: gpu: missing", "gpu"},
        {"2024-03-01,,H100,,,1,,,,,,,,,offer,", "t.csv:2: provider: missing", "provider"},
        {",aws,H100,,,1,,,,,,,,,offer,", "t.csv:2: observed_at: missing", "observed_at"},
        {"2024-02-30,aws,H100,,,1,,,,,,,,,offer,",
         "t.csv:2: observed_at: no such calendar date (got \"2024-02-30\")", "observed_at"},
        {"yesterday,aws,H100,,,1,,,,,,,,,offer,",
         "t.csv:2: observed_at: not a date or ISO-8601 timestamp (got \"yesterday\")", "observed_at"},
        {"2024-03-01,aws,H100,,,1,XYZ,,,,,,,,offer,",
         "t.csv:2: currency: unknown currency (no rate in fx.csv) (got \"XYZ\")", "currency"},
        {"2024-03-01,aws,H100,,,1,EURO,,,,,,,,offer,",
         "t.csv:2: currency: not a 3-letter ISO-4217 code (got \"EURO\")", "currency"},
        {"2022-06-01,aws,H100,,,1,EUR,,,,,,,,offer,",
         "t.csv:2: currency: no FX rate on or before 2022-06-01 in fx.csv (got \"EUR\")", "currency"},
        {"2024-03-01,aws,H100,,,1,,hour,,,,,,,offer,",
         "t.csv:2: unit: unknown unit (gpu-hour, instance-hour, gpu-month, instance-month) (got \"hour\")", "unit"},
        {"2024-03-01,aws,H100,,,1,,instance-hour,,,,,,,offer,",
         "t.csv:2: gpu_count: missing (required with unit instance-hour)", "gpu_count"},
        {"2024-03-01,aws,H100,,,1,,instance-month,,,,,,,offer,",
         "t.csv:2: gpu_count: missing (required with unit instance-month)", "gpu_count"},
        {"2024-03-01,aws,H100,,0,1,,,,,,,,,offer,",
         "t.csv:2: gpu_count: must be between 1 and 100000 (got \"0\")", "gpu_count"},
        {"2024-03-01,aws,H100,,1.5,1,,,,,,,,,offer,",
         "t.csv:2: gpu_count: not a whole number (got \"1.5\")", "gpu_count"},
        {"2024-03-01,aws,H100,,x,1,,,,,,,,,offer,", "t.csv:2: gpu_count: not a number (got \"x\")", "gpu_count"},
        {"2024-03-01,aws,H100,,,1,,,,weekly,,,,,offer,",
         "t.csv:2: term: unknown term (on-demand, spot, reserved) (got \"weekly\")", "term"},
        {"2024-03-01,aws,H100,,,1,,,,reserved,,,,,offer,",
         "t.csv:2: term_months: missing (required with term reserved)", "term_months"},
        {"2024-03-01,aws,H100,,,1,,,,reserved,61,,,,offer,",
         "t.csv:2: term_months: must be between 1 and 60 (got \"61\")", "term_months"},
        {"2024-03-01,aws,H100,,,1,,,,reserved,0,,,,offer,",
         "t.csv:2: term_months: must be between 1 and 60 (got \"0\")", "term_months"},
        {"2024-03-01,aws,H100,,,1,,,,,12,,,,offer,",
         "t.csv:2: term_months: only allowed with term reserved (got \"12\")", "term_months"},
        {"2024-03-01,aws,H100,,,1,,,diamond,,,,,,offer,",
         "t.csv:2: tier: unknown tier (platinum, gold, silver, bronze, underperform, unrated) (got \"diamond\")", "tier"},
        {"2024-03-01,aws,H100,,,1,,,,,,,,,bid,", "t.csv:2: kind: not offer or trade (got \"bid\")", "kind"},
        {"2024-03-01,aws,H100,,,1,,,,,,,,,,",
         "t.csv:2: kind: missing (needed unless the command says offers or trades)", "kind"},
        {"2024-03-01,aws,H100,,,1,,,,,,,,,trade,",
         "t.csv:2: quantity: missing (trades need the GPU-hours traded)", "quantity"},
        {"2024-03-01,aws,H100,,,1,,,,,,0,,,trade,", "t.csv:2: quantity: must be > 0 (got \"0\")", "quantity"},
        {"2024-03-01,aws,H100,,,1,,,,,,-1,,,offer,", "t.csv:2: quantity: must be >= 0 (got \"-1\")", "quantity"},
        {"2024-03-01,aws,H100,,,1,,,,,,5,,done,trade,",
         "t.csv:2: status: unknown status (ok, cancelled, affiliate) (got \"done\")", "status"},
        {"2024-03-01,aws,H100,,,1,,,,,,,,cancelled,offer,",
         "t.csv:2: status: only trades have a status (got \"cancelled\")", "status"},
        {"2024-03-01,aws", "t.csv:2: row has 2 fields, the header has 16", "(row)"},
    };
    ingest_tables *t = fixture_tables();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, HDR "%s\n", cases[i].row);
        got g;
        gpi_diag d = {{0}};
        long rows = 0;
        if (run(t, "t.csv", text, -1, &g, &d, &rows) != GPI_OK) fail_msg("case %zu: %s", i, d.msg);
        if (g.n_rej != 1 || g.n_obs != 0) fail_msg("case %zu (%s): %d rejects %d obs", i, cases[i].msg, g.n_rej, g.n_obs);
        assert_string_equal(g.rej[0], cases[i].msg);
        assert_string_equal(g.rej_col[0], cases[i].col);
        assert_string_equal(g.rej_raw[0], cases[i].row);
        assert_int_equal(g.rej_line[0], 2);
        assert_int_equal(rows, 1);
    }
    ingest_tables_free(t);
}

/* The column is named by its spelling in the file; the command's kind
 * must agree with the row's. */
static void test_reject_header_spelling_and_kind_hint(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    got g;
    gpi_diag d = {{0}};
    assert_int_equal(run(t, "t.csv", "Observed_At,PROVIDER,Gpu,Price,kind\n2024-01-01,aws,H100,abc,offer\n"
                         "2024-01-01,aws,H100,1,trade\n2024-01-01,aws,H100,1,\n",
                         GPI_OFFER, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_rej, 2);
    assert_string_equal(g.rej[0], "t.csv:2: Price: not a number (got \"abc\")");
    assert_string_equal(g.rej[1], "t.csv:3: kind: a trade in an offers file (got \"trade\")");
    assert_int_equal(g.n_obs, 1);
    assert_int_equal(g.obs[0].o.kind, GPI_OFFER);
    ingest_tables_free(t);
}

/* ---- physical lines ------------------------------------------------------- */

static void test_lines_quoted_newlines_crlf(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    got g;
    gpi_diag d = {{0}};
    const char *text = "observed_at,provider,gpu,price,kind,id\r\n"    /* 1 */
                       "2024-01-01,aws,H100,1,offer,\"a\r\n"           /* 2 */
                       "b\"\r\n"                                        /* 3 */
                       "\r\n"                                           /* 4 */
                       "2024-01-01,aws,H100,abc,offer,c\r\n"           /* 5 */
                       "2024-01-01,aws,H100,2,offer,\"d\n\n\nx\"\n"     /* 6-9 */
                       "2024-01-01,aws,H100,x,offer,\"e,\"\"f\"\"\"";  /* 10, no final newline */
    long rows;
    ih_complete = 1; /* the final line without a line end is read (ingest --complete) */
    gpi_status rc = run(t, "t.csv", text, -1, &g, &d, &rows);
    ih_complete = 0;
    assert_int_equal(rc, GPI_OK);
    assert_int_equal(rows, 4);
    assert_int_equal(g.n_obs, 2);
    assert_int_equal(g.obs[0].o.line, 2);
    assert_string_equal(g.obs[0].ident, "a\r\nb");
    assert_int_equal(g.n_rej, 2);
    assert_string_equal(g.rej[0], "t.csv:5: price: not a number (got \"abc\")");
    assert_string_equal(g.rej_raw[0], "2024-01-01,aws,H100,abc,offer,c");
    assert_int_equal(g.obs[1].o.line, 6);
    assert_string_equal(g.obs[1].ident, "d\n\n\nx");
    assert_string_equal(g.rej[1], "t.csv:10: price: not a number (got \"x\")");
    assert_string_equal(g.rej_raw[1], "2024-01-01,aws,H100,x,offer,\"e,\"\"f\"\"\"");
    ingest_tables_free(t);
}

/* ---- the final line without a line end (issue 31, ingest.c note 5) ------------ */

/* A CSV cut while a writer appends to it: its last line ("...,2.7" of
 * "...,2.75\n") is held back -- not read, not hashed, named in a warning --
 * so the file's hash is that of its complete lines; --complete reads it.
 * Before the fix the cut price was stored as 2.7 and, for a trade
 * without an id, the finished file stored a second trade. */
static void test_final_line_held_back(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    got g;
    gpi_diag d = {{0}};
    long rows;
#define HB_HDR "observed_at,provider,gpu,kind,id,price\n"
#define HB_ROW1 "2024-01-01T10:00:00Z,aws,H100,offer,o1,2.50\n"
    static const struct {
        const char *what, *text;
        int complete;
        gpi_status rc;
        long rows;          /* records read */
        long held;          /* bytes held back */
        const char *hashed; /* the bytes the hash covers (NULL: the whole text) */
        const char *msg;    /* the warning, or the failure */
    } cases[] = {
        {"a price cut short", HB_HDR HB_ROW1 "2024-01-01T11:00:00Z,aws,H100,offer,o2,2.7", 0, GPI_OK, 1, 42,
         HB_HDR HB_ROW1,
         "h.csv:3: the last line has no line end: held back, not read (a file still being "
         "written?); it is read when the file is ingested again with its line end, or now with "
         "--complete"},
        {"--complete reads it", HB_HDR HB_ROW1 "2024-01-01T11:00:00Z,aws,H100,offer,o2,2.7", 1, GPI_OK, 2,
         0, NULL, NULL},
        {"the finished file", HB_HDR HB_ROW1 "2024-01-01T11:00:00Z,aws,H100,offer,o2,2.75\n", 0,
         GPI_OK, 2, 0, NULL, NULL},
        {"CRLF cut after the CR: the record ended", HB_HDR HB_ROW1
         "2024-01-01T11:00:00Z,aws,H100,offer,o2,2.75\r", 0, GPI_OK, 2, 0, NULL, NULL},
        {"CR line ends", "observed_at,provider,gpu,price,kind\r2024-01-01,aws,H100,2,offer\r", 0,
         GPI_OK, 1, 0, NULL, NULL},
        {"spaces after the last line end hold no record", HB_HDR HB_ROW1 "  \t", 0, GPI_OK, 1, 0,
         NULL, NULL},
        {"a line end inside quotes is not the record's end", HB_HDR HB_ROW1
         "2024-01-01T11:00:00Z,aws,H100,offer,\"x\ny", 0, GPI_EINPUT, 1, 0, NULL,
         "h.csv:3:37: unterminated quoted field"},
        {"a header alone, cut", "observed_at,provider,gpu,pri", 0, GPI_EINPUT, 0, 0, NULL,
         "h.csv:1:1: no complete line: the file has no line end (still being written? "
         "--complete reads a file known to be whole)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ih_complete = cases[i].complete;
        gpi_status rc = run(t, "h.csv", cases[i].text, -1, &g, &d, &rows);
        ih_complete = 0;
        if (rc != cases[i].rc)
            fail_msg("%s: status %d, want %d (%s)", cases[i].what, rc, cases[i].rc, d.msg);
        if (rc != GPI_OK) {
            if (strcmp(d.msg, cases[i].msg) != 0)
                fail_msg("%s: \"%s\", want \"%s\"", cases[i].what, d.msg, cases[i].msg);
            continue;
        }
        if (rows != cases[i].rows || g.n_obs != cases[i].rows || g.n_rej != 0)
            fail_msg("%s: %ld rows read, %d stored, %d rejected; want %ld", cases[i].what, rows,
                     g.n_obs, g.n_rej, cases[i].rows);
        const char *hashed = cases[i].hashed ? cases[i].hashed : cases[i].text;
        char want[65];
        gpi_sha256_hex(hashed, strlen(hashed), want);
        assert_string_equal(ih_res.sha256, want);
        assert_int_equal(ih_res.n_bytes, (int64_t)strlen(hashed));
        assert_int_equal(ih_res.held_back, cases[i].held);
        if (cases[i].msg) {
            assert_int_equal(g.n_warn, 1);
            assert_string_equal(g.warn[0], cases[i].msg);
        } else if (g.n_warn != 0) {
            fail_msg("%s: warning \"%s\"", cases[i].what, g.warn[0]);
        }
        for (int k = 0; k < g.n_obs; k++)
            if (g.obs[k].o.price_micro == 2700000)
                assert_true(cases[i].complete); /* the cut price, only when asked for */
    }
#undef HB_HDR
#undef HB_ROW1
    ingest_tables_free(t);
}

/* Feeding one byte at a time gives the same lines as one buffer. */
typedef struct lines {
    long line[16];
    int n;
} lines;

static gpi_status rec_line(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    (void)d;
    lines *l = ud;
    if (l->n < 16) l->line[l->n++] = r->line;
    return GPI_OK;
}

/* Feeds text in chunks of every size; each time the records must start
 * on the lines want[0..n). */
static void lines_any_chunking(const char *text, const long *want, int n)
{
    for (size_t chunk = 1; chunk <= strlen(text); chunk++) {
        gpi_csv_reader r;
        lines l = {{0}, 0};
        gpi_diag d = {{0}};
        assert_int_equal(gpi_csv_init(&r, "t.csv", 0, rec_line, &l), GPI_OK);
        for (size_t off = 0; off < strlen(text); off += chunk) {
            size_t k = strlen(text) - off < chunk ? strlen(text) - off : chunk;
            assert_int_equal(gpi_csv_feed(&r, text + off, k, &d), GPI_OK);
        }
        assert_int_equal(gpi_csv_finish(&r, &d), GPI_OK);
        gpi_csv_free(&r);
        assert_int_equal(l.n, n);
        for (int i = 0; i < n; i++)
            if (l.line[i] != want[i]) fail_msg("chunk %zu: record %d at line %ld, want %ld", chunk, i, l.line[i], want[i]);
    }
}

static void test_lines_any_chunking(void **state)
{
    (void)state;
    const char *text = "a,b\r\n\"x\ny\",2\n\n# not a comment here\n3,\"4\r\n\r\n\"\r\n5,6";
    long want[] = {1, 2, 5, 6, 9}; /* comments are off: "# ..." is a record */
    lines_any_chunking(text, want, 5);
}

/* The fast path for plain lines gives exactly libcsv's records: generated
 * input with blanks, tabs, empty fields, CRLF, bare CR, quotes, blank
 * lines, read both ways. */
typedef struct recs {
    char text[1 << 16];
    size_t n;
} recs;

static gpi_status rec_dump(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    (void)d;
    recs *o = ud;
    o->n += (size_t)snprintf(o->text + o->n, sizeof o->text - o->n, "%ld:%d[%s]", r->line, r->n, r->raw);
    for (int i = 0; i < r->n; i++)
        o->n += (size_t)snprintf(o->text + o->n, sizeof o->text - o->n, "<%s>", r->f[i]);
    o->n += (size_t)snprintf(o->text + o->n, sizeof o->text - o->n, "\n");
    return GPI_OK;
}

static void read_all(const char *text, int no_fast, recs *o, gpi_status *rc, char *msg)
{
    gpi_csv_reader r;
    gpi_diag d = {{0}};
    memset(o, 0, sizeof *o);
    assert_int_equal(gpi_csv_init(&r, "g.csv", 0, rec_dump, o), GPI_OK);
    r.no_fast = no_fast;
    *rc = gpi_csv_feed(&r, text, strlen(text), &d);
    if (*rc == GPI_OK) *rc = gpi_csv_finish(&r, &d);
    strcpy(msg, d.msg);
    gpi_csv_free(&r);
}

static void test_fast_path_matches_libcsv(void **state)
{
    (void)state;
    static const char *const atoms[] = {"a", "bc", " ", "\t", ",", ",", "\n", "\r\n", "\r",
                                        "\"q\"", "\"x,\ny\"", "\"\"", "  \n", "d e"};
    uint64_t seed = 42;
    static recs a, b;
    for (int round = 0; round < 3000; round++) {
        char text[512];
        size_t n = 0;
        int len = 1 + round % 40;
        for (int k = 0; k < len; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *at = atoms[(seed >> 33) % (sizeof atoms / sizeof atoms[0])];
            if (n + strlen(at) + 1 >= sizeof text) break;
            memcpy(text + n, at, strlen(at));
            n += strlen(at);
        }
        text[n] = '\0';
        gpi_status ra, rb;
        char ma[512], mb[512];
        read_all(text, 0, &a, &ra, ma);
        read_all(text, 1, &b, &rb, mb);
        if (ra != rb || strcmp(a.text, b.text) != 0 || strcmp(ma, mb) != 0)
            fail_msg("input \"%s\": fast (%d %s)\n%s\nlibcsv (%d %s)\n%s", text, ra, ma, a.text, rb, mb, b.text);
    }
}

/* A bare CR (old Mac line ends) ends a line: each record has its own line
 * and only its own raw text (it once kept the whole file up to the row),
 * read whole, byte by byte, either path.  A CR inside quotes is data. */
static void test_bare_cr_lines(void **state)
{
    (void)state;
    const char *text = "a,b\r1,2\r\"x\ry\",3\r\r5,6\r\n7,8";
    const char *want = "1:2[a,b]<a><b>\n"
                       "2:2[1,2]<1><2>\n"
                       "3:2[\"x\ry\",3]<x\ry><3>\n"
                       "6:2[5,6]<5><6>\n"
                       "7:2[7,8]<7><8>\n";
    static recs o;
    gpi_status rc;
    char msg[512];
    for (int no_fast = 0; no_fast < 2; no_fast++) {
        read_all(text, no_fast, &o, &rc, msg);
        assert_int_equal(rc, GPI_OK);
        assert_string_equal(o.text, want);
    }
    long lines_want[] = {1, 2, 3, 6, 7};
    lines_any_chunking(text, lines_want, 5);
}

/* Random bytes drawn from CSV and JSON tokens never crash the reader (the
 * sanitizer build runs this too); every file either fails structurally or
 * accounts for every row it read. */
static void test_random_input_is_safe(void **state)
{
    (void)state;
    static const char *const tok[] = {
        "observed_at,provider,gpu,price,kind\n", "2024-01-01", "aws", "H100", ",", ",", "\n",
        "\r\n", "\"", "\"\"", "1.5", "-3", "offer", "trade", "\xff\xfe", "\t", " ", "#",
        "{", "}", "[", "]", ":", "\"price\"", "null", "1e999", "\\u0000", "99999999999999999999"};
    ingest_tables *t = fixture_tables();
    uint64_t seed = 7;
    for (int round = 0; round < 400; round++) {
        char text[2048];
        size_t n = 0;
        int len = 1 + round % 120;
        for (int k = 0; k < len; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *a = tok[(seed >> 33) % (sizeof tok / sizeof tok[0])];
            if (n + strlen(a) + 1 >= sizeof text) break;
            memcpy(text + n, a, strlen(a));
            n += strlen(a);
        }
        text[n] = '\0';
        const char *name = round % 3 == 0 ? "r.ndjson" : round % 3 == 1 ? "r.json" : "r.csv";
        got g;
        gpi_diag d = {{0}};
        long rows = -1;
        gpi_status rc = run(t, name, text, round % 2 ? GPI_OFFER : -1, &g, &d, &rows);
        if (rc != GPI_OK && rc != GPI_EINPUT) fail_msg("round %d: status %d: %s", round, rc, d.msg);
        if (rc == GPI_OK && rows < 64 && rows != g.n_obs + g.n_rej)
            fail_msg("round %d: %ld rows, %d obs, %d rejects", round, rows, g.n_obs, g.n_rej);
    }
    ingest_tables_free(t);
}

/* ---- structural errors ------------------------------------------------------ */

static void test_structural_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name, *text, *msg;
    } cases[] = {
        {"t.csv", "observed_at,provider,gpu,price,kind\n2024-01-01,aws,H100,\"1,offer\n",
         "t.csv:2:21: unterminated quoted field"},
        {"t.csv", "observed_at,provider,gpu,price,kind\n2024-01-01,aws,H100,1,offer\n2024-01-01,\"a\nb\",\"x\ny,1\n",
         "t.csv:4:4: unterminated quoted field"},
        {"t.csv", "observed_at,provider,gpu,price,kind\n2024-01-01,aws,H1\"00,1,offer\n",
         "t.csv:2:18: malformed quoting (a quote inside an unquoted field, or text after a closing quote)"},
        {"t.csv", "observed_at,provider,gpu,price,kind\n2024-01-01,\"aws\"x,H100,1,offer\n",
         "t.csv:2:17: malformed quoting (a quote inside an unquoted field, or text after a closing quote)"},
        {"t.csv", "", "t.csv:1:1: no header row (the file is empty)"},
        {"t.csv", "\n\n", "t.csv:1:1: no header row (the file is empty)"},
        {"t.csv", "observed_at,provider,gpu,kind\n2024-01-01,aws,H100,offer\n",
         "t.csv:1:1: header: missing required column \"price\""},
        {"t.csv", "observed_at,provider,gpu,price,kind,Price\n",
         "t.csv:1:37: duplicate column \"Price\""},
        /* a BOM's 3 bytes count in line 1's byte columns */
        {"t.csv", "\xEF\xBB\xBFobserved_at,provider,gpu,price,kind,Price\n",
         "t.csv:1:40: duplicate column \"Price\""},
        {"t.csv", "2024-01-01,aws,H100,1,offer\n",
         "t.csv:1:1: no header row (the first row names no known column)"},
        {"t.ndjson", "{\"observed_at\":\"2024-01-01\"}\n{\"a\":}\n", "t.ndjson:2:6: invalid JSON: "},
        {"t.json", "[{\"a\":1},\n {\"b\":2}\n", "t.json:3:1: invalid JSON: ']' expected near end of file"},
        {"t.json", "x", "t.json:1:1: invalid JSON: expected an array or one object per line"},
        /* byte columns, not characters: \xc3\xa9 is one character, two bytes */
        {"t.ndjson", "{\"provider\":\"\xc3\xa9\",\"x\":}\n", "t.ndjson:1:22: invalid JSON: "},
        {"t.json", "[{\"provider\":\"aws\"},\n {\"provider\":\"\xc3\xa9\xc3\xa9\xc3\xa9\", \"x\": }]\n",
         "t.json:2:29: invalid JSON: "},
        {"t.json", "\xEF\xBB\xBF[{\"x\":}]", "t.json:1:10: invalid JSON: "},
        /* arrays are read an element at a time: errors between elements */
        {"t.json", "[{\"a\":1},]", "t.json:1:10: invalid JSON: unexpected token near ']'"},
        {"t.json", "[{\"a\":1} {\"b\":2}]", "t.json:1:10: invalid JSON: ']' expected near '{'"},
        {"t.json", "[{\"a\":1}}, 1]", "t.json:1:9: invalid JSON: ']' expected near '}'"},
        {"t.json", "[1]\x01", "t.json:1:4: invalid JSON: end of file expected near byte 0x01"},
        {"t.json", "[{\"a\":1}]\n x", "t.json:2:2: invalid JSON: end of file expected near 'x'"},
        {"t.json", "[", "t.json:1:1: invalid JSON: ']' expected near end of file"},
        {"t.json", "\xEF\xBB\xBF[1", "t.json:1:5: invalid JSON: ']' expected near end of file"},
        {"t.json", "[{\"a\":\"],\"", "t.json:1:10: invalid JSON: "},
        {"t.json", "  \n ", "t.json:2:2: no data (the file is empty)"},
    };
    ingest_tables *t = fixture_tables();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        got g;
        gpi_diag d = {{0}};
        gpi_status rc = run(t, cases[i].name, cases[i].text, -1, &g, &d, NULL);
        if (rc != GPI_EINPUT) fail_msg("case %zu: status %d", i, rc);
        if (strncmp(d.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, d.msg, cases[i].msg);
    }
    /* a missing file */
    got g;
    gpi_diag d = {{0}};
    memset(&g, 0, sizeof g);
    ingest_sink sink = {g_obs, g_rej, g_warn, NULL, &g};
    ingest_opts opt = {.path = "/nonexistent/x.csv", .kind = -1, .threads = 1};
    ingest_result res;
    assert_int_equal(ingest_file(t, &opt, &sink, &res, &d), GPI_EIO);
    assert_string_equal(d.msg, "/nonexistent/x.csv: no such file");
    ingest_tables_free(t);
}

/* A UTF-8 byte-order mark (spreadsheets write one) is skipped in CSV, JSON
 * and the tables; byte columns of line 1 still count its 3 bytes. */
static void test_bom(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    got g;
    gpi_diag d = {{0}};
    long rows;
    static const struct {
        const char *name, *text;
    } ok[] = {
        {"b.csv", "\xEF\xBB\xBFobserved_at,provider,gpu,price,kind\n2024-01-01,aws,H100,2,offer\n"},
        {"b.csv", "\xEF\xBB\xBF\"observed_at\",provider,gpu,price,kind\r\n2024-01-01,aws,H100,2,offer\r\n"},
        {"b.json", "\xEF\xBB\xBF[{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                   "\"price\":2,\"kind\":\"offer\"}]"},
        {"b.ndjson", "\xEF\xBB\xBF{\"observed_at\":\"2024-01-01\",\"provider\":\"aws\",\"gpu\":\"H100\","
                     "\"price\":2,\"kind\":\"offer\"}\n"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        gpi_status rc = run(t, ok[i].name, ok[i].text, -1, &g, &d, &rows);
        if (rc != GPI_OK) fail_msg("case %zu: %s", i, d.msg);
        assert_int_equal(rows, 1);
        assert_int_equal(g.n_obs, 1);
        assert_int_equal(g.n_warn, 0);
        assert_int_equal(g.obs[0].o.price_micro, 2000000);
        assert_int_equal(g.obs[0].o.line, ok[i].name[2] == 'c' ? 2 : 1);
    }
    /* fed in pieces of any size, the BOM is still recognized; bytes that
     * only start like one are data */
    static const struct {
        const char *text, *want;
    } pieces[] = {
        {"\xEF\xBB\xBF" "a,b\n1,2\n", "1:2[a,b]<a><b>\n2:2[1,2]<1><2>\n"},
        {"\xEF\xBBx,y\n", "1:2[\xEF\xBBx,y]<\xEF\xBBx><y>\n"},
        {"\xEF\xBB", "1:1[\xEF\xBB]<\xEF\xBB>\n"},
        {"\xEF\xBB\xBF", ""},
    };
    static recs got_recs;
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
        for (size_t chunk = 1; chunk <= strlen(pieces[i].text); chunk++) {
            gpi_csv_reader r;
            memset(&got_recs, 0, sizeof got_recs);
            assert_int_equal(gpi_csv_init(&r, "t.csv", 0, rec_dump, &got_recs), GPI_OK);
            size_t len = strlen(pieces[i].text);
            for (size_t off = 0; off < len; off += chunk)
                assert_int_equal(gpi_csv_feed(&r, pieces[i].text + off, len - off < chunk ? len - off : chunk, &d),
                                 GPI_OK);
            assert_int_equal(gpi_csv_finish(&r, &d), GPI_OK);
            gpi_csv_free(&r);
            if (strcmp(got_recs.text, pieces[i].want) != 0)
                fail_msg("case %zu, chunk %zu: got \"%s\"", i, chunk, got_recs.text);
        }
    /* "observed_at,provider,gpu,price,kind,x" is 37 bytes: the quote is byte 38, 41 after a BOM */
    assert_int_equal(run(t, "b.csv", "\xEF\xBB\xBFobserved_at,provider,gpu,price,kind,x\"y\n", -1, &g, &d, NULL),
                     GPI_EINPUT);
    assert_string_equal(d.msg, "b.csv:1:41: malformed quoting (a quote inside an unquoted field, or text "
                               "after a closing quote)");
    assert_int_equal(run(t, "b.csv", "\xEF\xBB\xBF\"observed_at,provider\n", -1, &g, &d, NULL), GPI_EINPUT);
    assert_string_equal(d.msg, "b.csv:1:4: unterminated quoted field");
    ingest_tables_free(t);

    /* a table saved with a BOM before its first comment line */
    char *dir = tu_mkdtemp("bomtables");
    char src[4096];
    const char *names[] = {"gpus.csv", "providers.csv", "tiers.csv", "fx.csv"};
    for (int i = 0; i < 4; i++) {
        snprintf(src, sizeof src, "%s/tests/fixtures/tables/%s", tu_srcdir(), names[i]);
        char *text = tu_read(src);
        char *with = malloc(strlen(text) + 32);
        sprintf(with, "\xEF\xBB\xBF# comment\n%s", text);
        free(tu_write(dir, names[i], with));
        free(with);
        free(text);
    }
    t = NULL;
    if (ingest_tables_load(dir, &t, &d) != GPI_OK) fail_msg("tables with a BOM: %s", d.msg);
    ingest_tables_free(t);
    free(dir);
}

/* Memory stays bounded: a CSV record or an NDJSON line longer than 1 MiB is
 * a structural error (here a quoted field that never closes before the
 * limit). */
static void test_unknown_column_warned_once(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    got g;
    gpi_diag d = {{0}};
    assert_int_equal(run(t, "t.csv", "observed_at,provider,gpu,price,kind,foo,FOO\n2024-01-01,aws,H100,1,offer,1,2\n",
                         -1, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_warn, 1);
    assert_string_equal(g.warn[0], "t.csv:1: unknown column \"foo\" ignored" + 0);
    assert_int_equal(g.n_obs, 1);
    ingest_tables_free(t);
}

/* Issue 12: a header of 261,078 unknown columns took 184 s (each compared
 * with every one before it) and wrote 15 MB of warnings.  The check is
 * linear and names 20 columns, then counts the rest in one line. */
static void test_many_unknown_columns(void **state)
{
    (void)state;
    enum { N_UNKNOWN = 100000 };
    ingest_tables *t = fixture_tables();
    size_t cap = (size_t)N_UNKNOWN * 8 + 256, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text, cap, "observed_at,provider,gpu,price");
    for (int i = 0; i < N_UNKNOWN; i++) {
        /* every name twice, the second in upper case: still one name */
        const char *fmt = i % 2 ? ",C%d" : ",c%d";
        n += (size_t)snprintf(text + n, cap - n, fmt, i / 2);
    }
    n += (size_t)snprintf(text + n, cap - n, "\n2024-01-01,aws,H100,1");
    for (int i = 0; i < N_UNKNOWN; i++) text[n++] = ',';
    text[n++] = '\n';
    text[n] = '\0';
    char *dir = tu_mkdtemp("wide");
    char *path = tu_write(dir, "t.csv", text);
    warn_count w = {0};
    ingest_sink sink = {wc_obs, wc_rej, wc_warn, NULL, &w};
    ingest_opts opt = {path, GPI_OFFER, "feed", 1, 0, 0, 0};
    ingest_result res;
    gpi_diag d = {{0}};
    clock_t c0 = clock();
    assert_int_equal(ingest_file(t, &opt, &sink, &res, &d), GPI_OK);
    double cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
    assert_int_equal(res.rows_read, 1);
    if (w.n != 21) fail_msg("%ld warnings, want 21 (last: %s)", w.n, w.last);
    assert_string_equal(w.first[0], "t.csv:1: unknown column \"c0\" ignored");
    assert_string_equal(w.first[19], "t.csv:1: unknown column \"c19\" ignored");
    assert_string_equal(w.last, "t.csv:1: 49980 more unknown columns ignored (not named)");
    /* linear: about 0.05 s here (the quadratic check took about 30 s) */
    if (cpu_s > 5.0) fail_msg("header check took %.1f s of CPU", cpu_s);
    free(path);
    free(dir);
    free(text);
    ingest_tables_free(t);
}

/* ---- identity ------------------------------------------------------------------ */

static void test_identity(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    got g;
    gpi_diag d = {{0}};
    const char *text = "observed_at,provider,gpu,sku,price,kind,id,region,source\n"
                       "2024-01-01,aws,H100,p5,1,offer,,us-east-1,\n"
                       "2024-01-02,\"  AWS \",H100,p5,2,offer,,us-east-1,\n"
                       "2024-01-01,aws,H100,p5,1,offer,X1,,\n"
                       "2024-01-01,aws,H100,p5,1,offer,X1,,other\n"
                       "2024-01-01,aws,H100,p5,1,trade,,,\n"
                       "2024-01-01,Amazon  Web Services,H100,p5,1,offer,,us-east-1,\n";
    const char *trades = "observed_at,provider,gpu,price,quantity,buyer,tier\n"
                         "2024-01-01,aws,H100,1,10,lambda,\n"
                         "2024-01-01,aws,H100,1,10,lambda,Gold\n"
                         "2024-01-01,aws,H100,1,10,Amazon Retail,\n";
    assert_int_equal(run(t, "t.csv", text, -1, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_obs, 5);
    assert_int_equal(g.n_rej, 1); /* the trade has no quantity */
    assert_string_equal(g.obs[0].ident, "aws|us-east-1|H100|p5|1|vm|on-demand|0|gpu-hour");
    /* the provider's case and blanks do not change the key; the day does
     * not either */
    assert_string_equal(g.obs[1].ident, g.obs[0].ident);
    assert_true(g.obs[1].o.key_hash == g.obs[0].o.key_hash);
    /* issue 12: another alias of the same provider is another text: the
     * key is the row's own, whatever providers.csv maps it to */
    assert_string_equal(g.obs[4].provider, "aws");
    assert_string_equal(g.obs[4].ident,
                        "amazon web services|us-east-1|H100|p5|1|vm|on-demand|0|gpu-hour");
    assert_true(g.obs[4].o.key_hash != g.obs[0].o.key_hash);
    assert_string_equal(g.obs[2].ident, "X1");
    assert_string_equal(g.obs[2].source, "feed");
    assert_string_equal(g.obs[3].source, "other");
    assert_true(g.obs[2].o.key_hash != g.obs[3].o.key_hash);
    /* FNV-1a of "o\0" "feed\0" "X1", computed independently, top bit
     * cleared for an offer */
    uint64_t h = 0xcbf29ce484222325ULL;
    const char key[] = {'o', 0, 'f', 'e', 'e', 'd', 0, 'X', '1'};
    for (size_t i = 0; i < sizeof key; i++) h = (h ^ (unsigned char)key[i]) * 0x100000001b3ULL;
    assert_true(g.obs[2].o.key_hash == (h & 0x7fffffffffffffffULL));
    assert_int_equal(run(t, "t.csv", trades, GPI_TRADE, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_obs, 3);
    /* the buyer is in the seller's group (providers.csv): an affiliate
     * trade, but its key has the status as written (issue 12) */
    assert_int_equal(g.obs[2].o.status, GPI_STATUS_AFFILIATE);
    assert_string_equal(g.obs[2].ident,
                        "aws||H100||1|vm|on-demand|0|gpu-hour|1|USD|10|Amazon Retail|ok|");
    assert_string_equal(g.obs[0].ident, "aws||H100||1|vm|on-demand|0|gpu-hour|1|USD|10|lambda|ok|");
    /* a trade is keyed by all its fields: another tier is another trade */
    assert_string_equal(g.obs[1].ident, "aws||H100||1|vm|on-demand|0|gpu-hour|1|USD|10|lambda|ok|gold");
    assert_true(g.obs[0].o.key_hash != g.obs[1].o.key_hash);
    /* a trade's key has the top bit set: a day's trades are one key range */
    assert_true(g.obs[0].o.key_hash >> 63 == 1 && g.obs[1].o.key_hash >> 63 == 1);
    /* text cannot shift across a separator: region "a|H100" without a sku
     * and region "a" with sku "H100|" are two offers */
    const char *shift = "observed_at,provider,gpu,sku,price,region\n"
                        "2024-01-01,aws,H100,,1,a|H100\n"
                        "2024-01-01,aws,H100,H100|,1,a\n"
                        "2024-01-01,aws,H100,x\\y,1,a\n";
    assert_int_equal(run(t, "t.csv", shift, GPI_OFFER, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_obs, 3);
    assert_string_equal(g.obs[0].ident, "aws|a\\|H100|H100||1|vm|on-demand|0|gpu-hour");
    assert_string_equal(g.obs[1].ident, "aws|a|H100|H100\\||1|vm|on-demand|0|gpu-hour");
    assert_string_equal(g.obs[2].ident, "aws|a|H100|x\\\\y|1|vm|on-demand|0|gpu-hour");
    assert_true(g.obs[0].o.key_hash != g.obs[1].o.key_hash);
    ingest_tables_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize_table),
        cmocka_unit_test(test_reject_table),
        cmocka_unit_test(test_starts_on),
        cmocka_unit_test(test_reject_header_spelling_and_kind_hint),
        cmocka_unit_test(test_lines_quoted_newlines_crlf),
        cmocka_unit_test(test_lines_any_chunking),
        cmocka_unit_test(test_fast_path_matches_libcsv),
        cmocka_unit_test(test_bare_cr_lines),
        cmocka_unit_test(test_random_input_is_safe),
        cmocka_unit_test(test_structural_errors),
        cmocka_unit_test(test_bom),
        cmocka_unit_test(test_final_line_held_back),
        cmocka_unit_test(test_unknown_column_warned_once),
        cmocka_unit_test(test_many_unknown_columns),
        cmocka_unit_test(test_identity),
    };
    return cmocka_run_group_tests_name("ingest", tests, NULL, NULL);
}
