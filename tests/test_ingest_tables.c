/* tests/test_ingest_tables.c -- the normalization tables (gpus.csv,
 * providers.csv, tiers.csv, fx.csv): the shipped data/ tables against the
 * real feeds' GPU names, bad table rows with their exact messages,
 * provider aliases in the other tables, and many FX rates. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "ingest/ingest.h"
#include "ingest/internal.h"

static void test_shipped_gpu_table(void **state)
{
    (void)state;
    static const struct {
        const char *provider, *gpu, *sku, *want;
    } cases[] = {
        {"aws", "A100", "p4d.24xlarge", "A100-SXM-40GB"},
        {"aws", "A100-80GB", "p4de.24xlarge", "A100-SXM-80GB"},
        {"aws", "H100", "p5.48xlarge", "H100-SXM-80GB"},
        {"gcp", "A100", "a2-highgpu-8g", "A100-SXM-40GB"},
        {"gcp", "A100-80GB", "a2-ultragpu-8g", "A100-SXM-80GB"},
        {"gcp", "A100", "accel-A100", "A100-SXM-40GB"},
        {"lambda", "H100", "gpu_1x_h100_pcie", "H100-PCIE-80GB"},
        {"lambda", "H100", "gpu_8x_h100_sxm5", "H100-SXM-80GB"},
        {"lambda", "A100", "gpu_1x_a100", "A100-PCIE-40GB"},
        {"lambda", "A100", "gpu_8x_a100", "A100-SXM-40GB"},
        {"lambda", "A100", "gpu_1x_a100_sxm4", "A100-SXM-40GB"},
        {"lambda", "A6000", "gpu_1x_a6000", "RTXA6000"},
        {"azure", "H100", "Standard_NC40ads_H100_v5", "H100-NVL-94GB"},
        {"azure", "H100", "Standard_ND96isr_H100_v5", "H100-SXM-80GB"},
        {"azure", "A100-80GB", "Standard_NC24ads_A100_v4", "A100-PCIE-80GB"},
        {"runpod", "H100", "1x_H100_SECURE", "H100-PCIE-80GB"},
        {"runpod", "H100-SXM", "1x_H100-SXM_SECURE", "H100-SXM-80GB"},
        {"runpod", "A100-80GB-SXM", "1x_A100-80GB-SXM_SECURE", "A100-SXM-80GB"},
        {"oci", "A100-80GB", "BM.GPU.A100-v2.8", "A100-SXM-80GB"},
        {"vast", "H200", NULL, "H200-SXM-141GB"},
        {"vast", "MI300X", NULL, "MI300X"},
        {"coreweave", "GB200 NVL72", NULL, "GB200"},
        {"aws", "V100-32GB", "p3dn.24xlarge", "V100-32GB"},
        {"aws", "Radeon Pro V520", "g4ad.xlarge", "RADEON-PRO-V520"},
        /* the rest of the real feed's main instance families */
        {"aws", "V100", "p3.2xlarge", "V100-16GB"},
        {"aws", "A10G", "g5.xlarge", "A10G"},
        {"aws", "L4", "g6.xlarge", "L4"},
        {"aws", "T4", "g4dn.xlarge", "T4"},
        {"azure", "A100", "Standard_ND96asr_v4", "A100-SXM-40GB"},
        {"azure", "A100-80GB", "Standard_ND96amsr_A100_v4", "A100-SXM-80GB"},
        {"azure", "H100", "Standard_NC80adis_H100_v5", "H100-NVL-94GB"},
        {"azure", "V100-32GB", "Standard_ND40rs_v2", "V100-32GB"},
        {"gcp", "A100-80GB", "accel-A100-80GB", "A100-SXM-80GB"},
        {"gcp", "H100", "accel-H100", "H100-SXM-80GB"},
        {"gcp", "H100", "a3-highgpu-8g", "H100-SXM-80GB"},
        {"lambda", "A100-80GB", "gpu_8x_a100_80gb_sxm4", "A100-SXM-80GB"},
        {"lambda", "V100", "gpu_8x_v100", "V100-16GB"},
        {"oci", "A100", "BM.GPU4.8", "A100-SXM-40GB"},
        {"ovhcloud", "A100-80GB", "a100-180", "A100-PCIE-80GB"},
        {"runpod", "A100-80GB", "1x_A100-80GB_SECURE", "A100-PCIE-80GB"},
        {"scaleway", "H100", "H100-1-80G", "H100-PCIE-80GB"},
    };
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data", tu_srcdir());
    ingest_tables *t = NULL;
    gpi_diag d = {{0}};
    if (ingest_tables_load(dir, &t, &d) != GPI_OK) fail_msg("%s", d.msg);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpu_match m;
        if (!tables_gpu(t, cases[i].gpu, cases[i].provider, cases[i].sku, &m) || !m.canonical ||
            strcmp(m.canonical, cases[i].want) != 0)
            fail_msg("%s %s %s: got %s", cases[i].provider, cases[i].gpu, cases[i].sku ? cases[i].sku : "",
                     m.canonical ? m.canonical : "(none)");
    }
    /* every canonical name of SPEC §3 maps to itself */
    const char *canon[] = {"H100-SXM-80GB", "H100-PCIE-80GB", "H100-NVL-94GB", "H200-SXM-141GB",
                           "B200", "B300", "GB200", "A100-SXM-80GB", "A100-SXM-40GB",
                           "A100-PCIE-80GB", "A100-PCIE-40GB", "L40S", "L40", "L4", "A40", "A10",
                           "A10G", "T4", "V100-16GB", "V100-32GB", "RTX4090", "RTX6000-ADA",
                           "RTXA6000", "MI300X", "MI250X"};
    for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
        gpu_match m;
        if (!tables_gpu(t, canon[i], "vast", NULL, &m) || !m.canonical || strcmp(m.canonical, canon[i]) != 0)
            fail_msg("canonical %s: got %s", canon[i], m.canonical ? m.canonical : "(none)");
    }
    /* and the SPEC's common spellings */
    const char *spell[][2] = {{"H100 SXM5 80GB", "H100-SXM-80GB"}, {"H100-MEGA", "H100-SXM-80GB"},
                              {"H100 PCIe", "H100-PCIE-80GB"}, {"H100 NVL", "H100-NVL-94GB"},
                              {"A100-80GB-SXM", "A100-SXM-80GB"}, {"A100-40GB", "A100-SXM-40GB"},
                              {"A100 PCIe 80GB", "A100-PCIE-80GB"}, {"A100 PCIe 40GB", "A100-PCIE-40GB"},
                              {"RTX6000-Ada", "RTX6000-ADA"}, {"A6000", "RTXA6000"}, {"V100", "V100-16GB"}};
    for (size_t i = 0; i < sizeof spell / sizeof spell[0]; i++) {
        gpu_match m;
        if (!tables_gpu(t, spell[i][0], "vast", NULL, &m) || !m.canonical || strcmp(m.canonical, spell[i][1]) != 0)
            fail_msg("%s: got %s", spell[i][0], m.canonical ? m.canonical : "(none)");
    }
    const char *not_gpu[] = {"Inferentia", "Trainium", "Gaudi HL-205", "Virtex UltraScale (VU9P)",
                             "Qualcomm AI100", "tpu-v4-128"};
    for (size_t i = 0; i < sizeof not_gpu / sizeof not_gpu[0]; i++) {
        gpu_match m;
        if (!tables_gpu(t, not_gpu[i], "aws", NULL, &m) || m.canonical) fail_msg("%s should be not a GPU", not_gpu[i]);
    }
    provider_match pm;
    char buf[256];
    assert_int_equal(tables_provider(t, " Vast.AI ", buf, sizeof buf, &pm), 0);
    assert_string_equal(pm.provider, "vast");
    assert_string_equal(pm.segment, "marketplace");
    ingest_tables_free(t);
}

static void test_bad_tables(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("tables");
    char src[4096];
    const char *names[] = {"gpus.csv", "providers.csv", "tiers.csv", "fx.csv"};
    for (int i = 0; i < 4; i++) {
        snprintf(src, sizeof src, "%s/tests/fixtures/tables/%s", tu_srcdir(), names[i]);
        char *text = tu_read(src);
        free(tu_write(dir, names[i], text));
        free(text);
    }
    free(tu_write(dir, "fx.csv", "date,currency,usd_per_unit\n2024-01-01,EUR,abc\n"));
    ingest_tables *t = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(ingest_tables_load(dir, &t, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "fx.csv:2: usd_per_unit: not a number (got \"abc\")");
    free(tu_write(dir, "fx.csv", "date,currency,usd_per_unit\n"));
    free(tu_write(dir, "tiers.csv", "provider,tier\n"));
    assert_int_equal(ingest_tables_load(dir, &t, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "tiers.csv:1: header: missing column \"effective\"");
    /* one key, one date, two rows: which would win depends on the sort */
    free(tu_write(dir, "tiers.csv", "provider,tier,effective\naws,gold,2024-01-01\nlambda,gold,2024-01-01\n"
                                    "AWS,silver,2024-01-01\n"));
    assert_int_equal(ingest_tables_load(dir, &t, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "tiers.csv:4: effective: aws has a row for this date already, line 2 "
                               "(got \"2024-01-01\")");
    free(tu_write(dir, "tiers.csv", "provider,tier,effective\n"));
    free(tu_write(dir, "fx.csv", "date,currency,usd_per_unit\n2024-01-02,EUR,1.1\n2024-01-03,EUR,1.2\n"
                                 "2024-01-02,eur,1.3\n"));
    assert_int_equal(ingest_tables_load(dir, &t, &d), GPI_EINPUT);
    assert_string_equal(d.msg, "fx.csv:4: date: EUR has a row for this date already, line 2 "
                               "(got \"2024-01-02\")");
    free(dir);
}

/* gpus.csv and tiers.csv may name a provider by any alias of providers.csv:
 * it resolves to the canonical provider (else such rows never match). */
static void test_table_provider_aliases(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("aliastables");
    char src[4096];
    const char *names[] = {"gpus.csv", "providers.csv", "tiers.csv", "fx.csv"};
    for (int i = 0; i < 4; i++) {
        snprintf(src, sizeof src, "%s/tests/fixtures/tables/%s", tu_srcdir(), names[i]);
        char *text = tu_read(src);
        free(tu_write(dir, names[i], text));
        free(text);
    }
    free(tu_write(dir, "tiers.csv", "provider,tier,effective\nAmazon  Web Services,gold,2024-01-01\n"));
    free(tu_write(dir, "gpus.csv", "alias,canonical,provider,sku_glob,note\nH100,H100-SXM-80GB,,,\n"
                                   "H100,H100-PCIE-80GB,Amazon Web Services,,\n"));
    ingest_tables *t = NULL;
    gpi_diag d = {{0}};
    if (ingest_tables_load(dir, &t, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(tables_tier(t, "aws", gpi_days_from_civil(2024, 6, 1)), GPI_TIER_GOLD);
    gpu_match m;
    assert_true(tables_gpu(t, "H100", "aws", NULL, &m));
    assert_string_equal(m.canonical, "H100-PCIE-80GB");
    assert_true(tables_gpu(t, "H100", "lambda", NULL, &m));
    assert_string_equal(m.canonical, "H100-SXM-80GB");
    ingest_tables_free(t);
    free(dir);
}

/* Years of daily FX rates: the lookup takes the latest rate on or before the
 * day, at either end of a currency's run and between its rows. */
static void test_fx_many_rates(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("fxtables");
    char src[4096];
    const char *names[] = {"gpus.csv", "providers.csv", "tiers.csv"};
    for (int i = 0; i < 3; i++) {
        snprintf(src, sizeof src, "%s/tests/fixtures/tables/%s", tu_srcdir(), names[i]);
        char *text = tu_read(src);
        free(tu_write(dir, names[i], text));
        free(text);
    }
    /* EUR every second day from 2020-01-01 (rate 1.0000 + k/10000 on day
     * 2k), 3000 rows; AUD and GBP one row each around it */
    size_t cap = 3100 * 40, n = 0;
    char *fx = malloc(cap);
    n += (size_t)snprintf(fx + n, cap - n, "date,currency,usd_per_unit\n2021-01-01,GBP,1.3\n2019-01-01,AUD,0.7\n");
    int32_t d0 = gpi_days_from_civil(2020, 1, 1);
    for (int k = 0; k < 3000; k++) {
        char day[11];
        gpi_date_format(d0 + 2 * k, day);
        n += (size_t)snprintf(fx + n, cap - n, "%s,EUR,%d.%04d\n", day, 1 + k / 10000, k % 10000);
    }
    free(tu_write(dir, "fx.csv", fx));
    free(fx);
    ingest_tables *t = NULL;
    gpi_diag d = {{0}};
    if (ingest_tables_load(dir, &t, &d) != GPI_OK) fail_msg("%s", d.msg);
    gpi_dec r;
    assert_int_equal(tables_fx(t, "EUR", d0 - 1, &r), -1);
    static const int days[] = {0, 1, 2, 3, 777, 4000, 5997, 5998, 5999, 100000};
    for (size_t i = 0; i < sizeof days / sizeof days[0]; i++) {
        int k = days[i] / 2 > 2999 ? 2999 : days[i] / 2;
        assert_int_equal(tables_fx(t, "EUR", d0 + days[i], &r), 1);
        if (r.mant != 10000 + k || r.scale != 4)
            fail_msg("day +%d: got %lld/10^%d, want %d/10^4", days[i], (long long)r.mant, r.scale, 10000 + k);
    }
    assert_int_equal(tables_fx(t, "GBP", d0 + 400, &r), 1);
    assert_int_equal(r.mant, 13);
    assert_int_equal(tables_fx(t, "GBP", d0, &r), -1);
    assert_int_equal(tables_fx(t, "AUD", d0 + 9999, &r), 1);
    assert_int_equal(r.mant, 7);
    assert_int_equal(tables_fx(t, "CHF", d0, &r), 0);
    ingest_tables_free(t);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_gpu_table),
        cmocka_unit_test(test_bad_tables),
        cmocka_unit_test(test_table_provider_aliases),
        cmocka_unit_test(test_fx_many_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
