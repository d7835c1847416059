/* tests/test_ingest_hygiene.c -- ingest/hygiene.c and the skus.csv table:
 * unknown providers (rejected with the nearest known name, or admitted
 * with one warning per new name), per-sku corrections (GPU count, what
 * the price covers, the unit) recorded with the observation, and prices
 * without a unit where the unit matters.  Expected prices by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ingest/internal.h"
#include "tests/ingest_helpers.h"

/* The fixture tables plus a skus.csv (NULL: none) in a fresh directory. */
static ingest_tables *tables_with_skus(const char *skus, gpi_diag *d, gpi_status *rc)
{
    char *dir = tu_mkdtemp("skutables");
    const char *names[] = {"gpus.csv", "providers.csv", "tiers.csv", "fx.csv"};
    for (int i = 0; i < 4; i++) {
        char src[4096];
        snprintf(src, sizeof src, "%s/tests/fixtures/tables/%s", tu_srcdir(), names[i]);
        char *text = tu_read(src);
        free(tu_write(dir, names[i], text));
        free(text);
    }
    if (skus) free(tu_write(dir, "skus.csv", skus));
    ingest_tables *t = NULL;
    *rc = ingest_tables_load(dir, &t, d);
    free(dir);
    return t;
}

#define PHDR "kind,observed_at,provider,gpu,price\n"

static void test_unknown_providers(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables(); /* providers: aws, amazon..., lambda, runpod */
    const char *text = PHDR "offer,2024-03-01,lamda,H100,2\n"
                            "offer,2024-03-01,Lambda Labs,H100,2\n"
                            "offer,2024-03-01,RunPd,H100,2\n"
                            "offer,2024-03-01,Foo Cloud,H100,2\n"
                            "offer,2024-03-01,aws,H100,2\n"
                            "offer,2024-03-01,foo   cloud,H100,3\n";
    got g;
    gpi_diag d = {{0}};
    ih_admit_providers = 0;
    assert_int_equal(run(t, "p.csv", text, -1, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_obs, 1);
    assert_string_equal(g.obs[0].provider, "aws");
    assert_int_equal(g.n_rej, 5);
    static const char *const want[5] = {
        "p.csv:2: provider: unknown provider (did you mean \"lambda\"? add it to providers.csv, "
        "or ingest with --admit-providers) (got \"lamda\")",
        "p.csv:3: provider: unknown provider (did you mean \"lambda\"? add it to providers.csv, "
        "or ingest with --admit-providers) (got \"Lambda Labs\")",
        "p.csv:4: provider: unknown provider (did you mean \"runpod\"? add it to providers.csv, "
        "or ingest with --admit-providers) (got \"RunPd\")",
        "p.csv:5: provider: unknown provider (add it to providers.csv, or ingest with "
        "--admit-providers) (got \"Foo Cloud\")",
        "p.csv:7: provider: unknown provider (add it to providers.csv, or ingest with "
        "--admit-providers) (got \"foo   cloud\")",
    };
    for (int i = 0; i < 5; i++) {
        assert_string_equal(g.rej[i], want[i]);
        assert_string_equal(g.rej_col[i], "provider");
    }
    assert_int_equal(g.n_warn, 0);
    /* admitted: stored as their own groups, one warning per new name */
    ih_admit_providers = 1;
    assert_int_equal(run(t, "p.csv", text, -1, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_obs, 6);
    assert_int_equal(g.n_rej, 0);
    assert_string_equal(g.obs[3].provider, "foo cloud");
    assert_string_equal(g.obs[3].group, "foo cloud");
    assert_string_equal(g.obs[3].segment, "unknown");
    assert_string_equal(g.obs[5].group, "foo cloud"); /* the same name, folded */
    assert_int_equal(g.n_warn, 4);
    assert_string_equal(g.warn[0], "p.csv:2: provider: \"lamda\" is not in providers.csv: "
                                   "admitted as its own group \"lamda\", segment unknown "
                                   "(did you mean \"lambda\"?)");
    assert_string_equal(g.warn[3], "p.csv:5: provider: \"Foo Cloud\" is not in providers.csv: "
                                   "admitted as its own group \"foo cloud\", segment unknown");
    ingest_tables_free(t);
}

static const char skus[] =
    "# a comment\n"
    "provider,sku_glob,gpu_count,covers,unit,note\n"
    "Amazon Web Services,nd96*,8,,,eight GPUs not twelve\n"     /* line 3 */
    ",accel-*,,gpu-only,,attach price\n"                        /* line 4 */
    "aws,big.16x,,cpu-heavy,,mostly CPU\n"                      /* line 5 */
    "lambda,gpu_8x*,,,instance-hour,lambda quotes instances\n"  /* line 6 */
    ",nd96is,,partial-gpu,,longer glob, any provider\n";        /* line 7 */

static void test_sku_corrections(void **state)
{
    (void)state;
    gpi_diag d = {{0}};
    gpi_status rc;
    ingest_tables *t = tables_with_skus(skus, &d, &rc);
    if (rc != GPI_OK) fail_msg("%s", d.msg);
    static const struct {
        const char *row, *correction;
        int64_t price_micro;
        int count, covers;
    } cases[] = {
        /* 120 for 8 GPUs, not 12: 15.000000 (the provider rule beats the
         * longer glob of any provider) */
        {"offer,2024-03-01,aws,H100,ND96IS,12,120,instance-hour",
         "skus.csv:3: gpu_count 12 -> 8", 15000000, 8, GPI_COVERS_INSTANCE},
        {"offer,2024-03-01,gcp,H100,accel-H100,2,6,instance-hour",
         "skus.csv:4: covers gpu-only", 3000000, 2, GPI_COVERS_GPU_ONLY},
        {"offer,2024-03-01,aws,H100,big.16x,1,5,instance-hour", "skus.csv:5: covers cpu-heavy",
         5000000, 1, GPI_COVERS_CPU_HEAVY},
        /* no unit in the row: the table's instance-hour, 16 / 8 */
        {"offer,2024-03-01,lambda,H100,gpu_8x_h100,8,16,", "skus.csv:6: unit instance-hour",
         2000000, 8, GPI_COVERS_INSTANCE},
        /* a unit in the row wins over the table's (nothing to record) */
        {"offer,2024-03-01,lambda,H100,gpu_8x_h100,8,2,gpu-hour", "", 2000000, 8,
         GPI_COVERS_INSTANCE},
        {"offer,2024-03-01,lambda,H100,nd96is,2,4,gpu-hour", "skus.csv:7: covers partial-gpu",
         4000000, 2, GPI_COVERS_PARTIAL},
        /* a count that needs no change is not a correction */
        {"offer,2024-03-01,aws,H100,nd96x,8,16,instance-hour", "", 2000000, 8,
         GPI_COVERS_INSTANCE},
        {"offer,2024-03-01,aws,H100,,1,3,", "", 3000000, 1, GPI_COVERS_INSTANCE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "kind,observed_at,provider,gpu,sku,gpu_count,price,unit\n%s\n",
                 cases[i].row);
        got g;
        if (run(t, "s.csv", text, -1, &g, &d, NULL) != GPI_OK) fail_msg("%zu: %s", i, d.msg);
        if (g.n_obs != 1) fail_msg("%zu: rejected: %s", i, g.n_rej ? g.rej[0] : "");
        const got_obs *k = &g.obs[0];
        if (k->o.price_micro != cases[i].price_micro)
            fail_msg("%zu: price %lld, want %lld", i, (long long)k->o.price_micro,
                     (long long)cases[i].price_micro);
        assert_int_equal(k->o.gpu_count, cases[i].count);
        assert_int_equal(k->o.covers, cases[i].covers);
        assert_string_equal(k->correction, cases[i].correction);
    }
    /* the identity keeps the count as written: a corrected table makes a
     * re-read offer the same key (a conflict), never a second offer */
    got g;
    assert_int_equal(run(t, "s.csv", "kind,observed_at,provider,gpu,sku,gpu_count,price,unit\n"
                                     "offer,2024-03-01,aws,H100,ND96IS,12,120,instance-hour\n",
                         -1, &g, &d, NULL), GPI_OK);
    assert_non_null(strstr(g.obs[0].ident, "|ND96IS|12|"));
    ingest_tables_free(t);
}

/* A price without a unit is per GPU-hour only where that cannot matter. */
static void test_unit_required_when_it_matters(void **state)
{
    (void)state;
    ingest_tables *t = fixture_tables();
    got g;
    gpi_diag d = {{0}};
    assert_int_equal(run(t, "u.csv", "kind,observed_at,provider,gpu,sku,gpu_count,price\n"
                                     "offer,2024-03-01,aws,H100,p5,8,98.32\n"
                                     "offer,2024-03-01,aws,H100,p5,1,12.29\n"
                                     "offer,2024-03-01,aws,H100,p5,,12.29\n",
                         -1, &g, &d, NULL), GPI_OK);
    assert_int_equal(g.n_rej, 1);
    assert_string_equal(g.rej[0], "u.csv:2: unit: missing with gpu_count 8 (is the price for one "
                                  "GPU or for the instance? write gpu-hour or instance-hour, or "
                                  "give the sku's unit in skus.csv)");
    assert_string_equal(g.rej_col[0], "unit");
    assert_int_equal(g.n_obs, 2);
    assert_int_equal(g.obs[0].o.price_micro, 12290000);
    assert_int_equal(g.obs[0].o.unit, GPI_UNIT_GPU_HOUR);
    ingest_tables_free(t);
}

static void test_skus_table_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"provider,sku_glob,gpu_count,covers,unit\n", "skus.csv:1: header: missing column \"note\""},
        {"provider,sku_glob,gpu_count,covers,unit,note\naws,,8,,,x\n",
         "skus.csv:2: sku_glob: empty (use * for every sku) (got \"\")"},
        {"provider,sku_glob,gpu_count,covers,unit,note\naws,p5*,eight,,,x\n",
         "skus.csv:2: gpu_count: not a whole number from 1 to 100000 (got \"eight\")"},
        {"provider,sku_glob,gpu_count,covers,unit,note\naws,p5*,0,,,x\n",
         "skus.csv:2: gpu_count: not a whole number from 1 to 100000 (got \"0\")"},
        {"provider,sku_glob,gpu_count,covers,unit,note\naws,p5*,,host,,x\n",
         "skus.csv:2: covers: unknown (instance, gpu-only, cpu-heavy, partial-gpu) (got \"host\")"},
        {"provider,sku_glob,gpu_count,covers,unit,note\naws,p5*,,,per-hour,x\n",
         "skus.csv:2: unit: unknown unit (gpu-hour, instance-hour, gpu-month, instance-month) "
         "(got \"per-hour\")"},
        {"provider,sku_glob,gpu_count,covers,unit,note\naws,p5*,,,,x\n",
         "skus.csv:2: sku_glob: the row changes nothing (give gpu_count, covers or unit) "
         "(got \"p5*\")"},
        /* issue 31: two rules for one provider and glob, whichever the
         * spelling of the provider or the glob's case; and two for every
         * provider; conflicting or not, the order of the lines would decide */
        {"provider,sku_glob,gpu_count,covers,unit,note\naws,p5.48xlarge,8,,,a\n"
         "lambda,p5.48xlarge,4,,,b\nAmazon Web Services,P5.48xlarge,16,,,c\n",
         "skus.csv:4: sku_glob: a second rule for provider \"aws\" and this sku glob (line 2): "
         "which one applies would depend on the order of the lines (got \"p5.48xlarge\")"},
        {"provider,sku_glob,gpu_count,covers,unit,note\n,big.*,,cpu-heavy,,a\n,big.*,,cpu-heavy,,b\n",
         "skus.csv:3: sku_glob: a second rule for every provider and this sku glob (line 2): "
         "which one applies would depend on the order of the lines (got \"big.*\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpi_diag d = {{0}};
        gpi_status rc;
        ingest_tables *t = tables_with_skus(cases[i].text, &d, &rc);
        assert_null(t);
        assert_int_equal(rc, GPI_EINPUT);
        assert_string_equal(d.msg, cases[i].msg);
    }
    /* no skus.csv at all: nothing to correct */
    gpi_diag d = {{0}};
    gpi_status rc;
    ingest_tables *t = tables_with_skus(NULL, &d, &rc);
    assert_int_equal(rc, GPI_OK);
    assert_int_equal(tables_sku(t, "aws", "p5.48xlarge"), -1);
    ingest_tables_free(t);
}

/* The shipped skus.csv: the corrections the real catalog needs. */
static void test_shipped_skus(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data", tu_srcdir());
    ingest_tables *t = NULL;
    gpi_diag d = {{0}};
    if (ingest_tables_load(dir, &t, &d) != GPI_OK) fail_msg("%s", d.msg);
    const sku_rule *r = tables_sku_rule(t, tables_sku(t, "azure", "Standard_ND96isr_H100_v5"));
    assert_non_null(r);
    assert_int_equal(r->gpu_count, 8);
    r = tables_sku_rule(t, tables_sku(t, "gcp", "accel-A100-80GB"));
    assert_non_null(r);
    assert_int_equal(r->covers, GPI_COVERS_GPU_ONLY);
    r = tables_sku_rule(t, tables_sku(t, "aws", "g4dn.16xlarge"));
    assert_non_null(r);
    assert_int_equal(r->covers, GPI_COVERS_CPU_HEAVY);
    assert_int_equal(tables_sku(t, "aws", "g4dn.xlarge"), -1);
    assert_int_equal(tables_sku(t, "aws", "p5.48xlarge"), -1);
    assert_int_equal(tables_sku(t, "gcp", "a3-highgpu-8g"), -1);
    ingest_tables_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_providers),
        cmocka_unit_test(test_sku_corrections),
        cmocka_unit_test(test_unit_required_when_it_matters),
        cmocka_unit_test(test_skus_table_errors),
        cmocka_unit_test(test_shipped_skus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
