/* tests/test_grade_tables.c -- what a grade file is read with
 * (index/grade_tables.c) and the grade fields that use it: GPU aliases of
 * gpus.csv, region groups of regions.csv, the skus and covers filters, and
 * the warnings about filters that match no stored observation. */
#define _GNU_SOURCE 1 /* FNM_CASEFOLD */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fnmatch.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/index.h"
#include "store/store.h"
#include "store/batches.h"
#include "store/obs.h"
#include "tests/testutil.h"

static const char gpus_csv[] =
    "# a comment, with a canonical word\n"
    "alias,canonical,provider,sku_glob,note\n"
    "H100,H100-SXM-80GB,,,bare H100\n"
    "H100,H100-PCIE-80GB,lambda,*pcie*,\n"     /* provider rule: not for grades */
    "H100 SXM5,H100-SXM-80GB,,,\n"
    "A100,A100-SXM-40GB,,,\n"
    "Inferentia,-,,,AWS Inferentia\n"
    "tpu*,-,,,glob aliases are not grade aliases\n";

static const char regions_csv[] =
    "# groups\n"
    "group,region,note\n"
    "US,us*,\n"
    "US,eastus,azure\n"
    "US,US,\n"
    "EU,eu*,\n";

static void tables(idx_grade_tables *tb, const char *gpus, const char *regions)
{
    char *dir = tu_mkdtemp("gtables");
    if (gpus) free(tu_write(dir, "gpus.csv", gpus));
    if (regions) free(tu_write(dir, "regions.csv", regions));
    gpi_diag d = {{0}};
    if (idx_grade_tables_load(dir, tb, &d) != GPI_OK) fail_msg("%s", d.msg);
    free(dir);
}

static idx_grades *parse_ok(const char *json, const idx_grade_tables *tb)
{
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse_tables(json, "g.json", tb, &gs, &d) != GPI_OK) fail_msg("%s", d.msg);
    return gs;
}

static void parse_err(const char *json, const idx_grade_tables *tb, const char *msg)
{
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(idx_grades_parse_tables(json, "g.json", tb, &gs, &d), GPI_EINPUT);
    assert_null(gs);
    assert_string_equal(d.msg, msg);
}

static void test_gpu_aliases(void **state)
{
    (void)state;
    idx_grade_tables tb;
    tables(&tb, gpus_csv, NULL);
    assert_int_equal(tb.n_alias, 4); /* H100, H100 SXM5, A100, Inferentia */
    idx_grades *a = parse_ok("{\"grades\":[{\"id\":\"A\",\"gpu\":[\"H100\",\"h100-sxm5\"]}]}", &tb);
    assert_int_equal(a->g[0].n_gpu, 1); /* two aliases of one model */
    assert_string_equal(a->g[0].gpu[0], "H100-SXM-80GB");
    assert_string_equal(a->notes, "g.json: grades[0].gpu: \"H100\" is H100-SXM-80GB (its alias "
                                  "in gpus.csv)\n"
                                  "g.json: grades[0].gpu: \"h100-sxm5\" is H100-SXM-80GB (its "
                                  "alias in gpus.csv)\n");
    /* an alias is the canonical name: the same definition, the same hash */
    idx_grades *b = parse_ok("{\"grades\":[{\"id\":\"A\",\"gpu\":\"H100-SXM-80GB\"}]}", &tb);
    assert_string_equal(a->g[0].hash, b->g[0].hash);
    assert_null(b->notes);
    parse_err("{\"grades\":[{\"id\":\"A\",\"gpu\":\"Inferentia\"}]}", &tb,
              "g.json: grades[0].gpu: not a GPU (gpus.csv) (got \"Inferentia\")");
    parse_err("{\"grades\":[{\"id\":\"A\",\"gpu\":\"tpu-v4\"}]}", &tb,
              "g.json: grades[0].gpu: unknown GPU model (a canonical name or an alias of "
              "gpus.csv) (got \"tpu-v4\")");
    idx_grades_free(a);
    idx_grades_free(b);
    idx_grade_tables_free(&tb);
    /* the shipped table: H100 is the SXM part, as in a feed */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data", tu_srcdir());
    gpi_diag d = {{0}};
    if (idx_grade_tables_load(dir, &tb, &d) != GPI_OK) fail_msg("%s", d.msg);
    a = parse_ok("{\"grades\":[{\"id\":\"A\",\"gpu\":[\"H100\",\"A100-80GB\"]}]}", &tb);
    assert_string_equal(a->g[0].gpu[0], "A100-SXM-80GB");
    assert_string_equal(a->g[0].gpu[1], "H100-SXM-80GB");
    idx_grades_free(a);
    idx_grade_tables_free(&tb);
}

/* gpus.csv and regions.csv are CSV as ingest reads them: a quoted field
 * may hold a comma or a doubled quote.  (A splitter at every comma read
 * "H100 SXM, 80GB" as the alias "\"H100 SXM" of the GPU "80GB\"".) */
static void test_quoted_tables(void **state)
{
    (void)state;
    static const struct {
        const char *name, *gpus, *grade_gpu, *canonical;
    } cases[] = {
        {"a comma in a quoted alias",
         "alias,canonical,provider,sku_glob,note\n\"H100 SXM, 80GB\",H100-SXM-80GB,,,\n",
         "H100 SXM, 80GB", "H100-SXM-80GB"},
        {"a quoted canonical name, a note with a comma",
         "alias,canonical,provider,sku_glob,note\nB2,\"B200-SXM-192GB\",,,\"HGX, 8 GPUs\"\n", "b2",
         "B200-SXM-192GB"},
        {"a doubled quote in an alias, CRLF",
         "alias,canonical,provider,sku_glob,note\r\n\"GB200 \"\"NVL\"\"\",GB200-NVL-186GB,,,\r\n",
         "GB200 \\\"NVL\\\"", "GB200-NVL-186GB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        idx_grade_tables tb;
        tables(&tb, cases[i].gpus, NULL);
        if (tb.n_gpus != 1 || strcmp(tb.gpus[0], cases[i].canonical) != 0)
            fail_msg("%s: %zu GPU names, the first \"%s\"", cases[i].name, tb.n_gpus,
                     tb.n_gpus ? tb.gpus[0] : "");
        char json[256];
        snprintf(json, sizeof json, "{\"grades\":[{\"id\":\"A\",\"gpu\":\"%s\"}]}",
                 cases[i].grade_gpu);
        idx_grades *g = parse_ok(json, &tb);
        if (strcmp(g->g[0].gpu[0], cases[i].canonical) != 0)
            fail_msg("%s: the grade's GPU is %s", cases[i].name, g->g[0].gpu[0]);
        idx_grades_free(g);
        idx_grade_tables_free(&tb);
    }
    idx_grade_tables tb;
    tables(&tb, NULL, "group,region,note\n\"US\",\"us-*\",\"AWS, GCP\"\n");
    assert_int_equal(tb.n_rgroup, 1);
    assert_string_equal(tb.rgroup[0], "US");
    assert_string_equal(tb.rpattern[0], "us-*");
    idx_grade_tables_free(&tb);
}

static void test_region_groups(void **state)
{
    (void)state;
    idx_grade_tables tb;
    tables(&tb, NULL, regions_csv);
    assert_int_equal(tb.n_rgroup, 4);
    idx_grades *a = parse_ok("{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\","
                             "\"regions\":[\"us\",\"ap-south-1\"]}]}", &tb);
    const idx_grade *g = &a->g[0];
    assert_int_equal(g->n_region, 4); /* sorted, ignoring case */
    assert_string_equal(g->region[0], "ap-south-1");
    assert_string_equal(g->region[1], "eastus");
    assert_string_equal(g->region[2], "US");
    assert_string_equal(g->region[3], "us*");
    assert_int_equal(g->n_region_src, 2);
    /* the canonical definition lists the globs, not the group */
    assert_non_null(strstr(g->canon, "\"regions\":[\"ap-south-1\",\"eastus\",\"US\",\"us*\"]"));
    gpi_obs o;
    memset(&o, 0, sizeof o);
    o.gpu = "B200";
    o.scope = GPI_SCOPE_VM;
    static const struct {
        const char *region;
        int in;
    } cases[] = {{"us-east-1", 1}, {"EASTUS", 1}, {"US", 1}, {"ap-south-1", 1},
                 {"westus", 0},    {"eu-west-1", 0}, {"", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        o.region = cases[i].region;
        if (idx_grade_match(g, &o) != cases[i].in) fail_msg("region %s", cases[i].region);
    }
    /* the stored definition parses back without the table */
    char text[4096];
    snprintf(text, sizeof text, "{\"grades\":[%s]}", g->canon);
    idx_grades *r = NULL;
    gpi_diag d = {{0}};
    assert_int_equal(idx_grades_parse(text, "canon", NULL, IDX_TRUST_GPUS, &r, &d), GPI_OK);
    assert_string_equal(r->g[0].hash, g->hash);
    /* "*" anywhere is every region */
    idx_grades *all = parse_ok("{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\","
                               "\"regions\":[\"eu\",\"*\"]}]}", &tb);
    assert_int_equal(all->g[0].n_region, 0);
    idx_grades_free(all);
    idx_grades_free(r);
    idx_grades_free(a);
    idx_grade_tables_free(&tb);
    /* a group of 100 globs does not fit a grade */
    char big[8192];
    size_t n = (size_t)snprintf(big, sizeof big, "group,region\n");
    for (int i = 0; i < 100; i++) n += (size_t)snprintf(big + n, sizeof big - n, "W,r%d\n", i);
    tables(&tb, NULL, big);
    parse_err("{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"regions\":\"w\"}]}", &tb,
              "g.json: grades[0].regions: more than 96 regions with the groups expanded "
              "(got \"w\")");
    idx_grade_tables_free(&tb);
    /* a table without its columns */
    char *dir = tu_mkdtemp("gtables-bad");
    free(tu_write(dir, "regions.csv", "group,glob\nUS,us*\n"));
    gpi_diag e = {{0}};
    assert_int_equal(idx_grade_tables_load(dir, &tb, &e), GPI_EINPUT);
    assert_string_equal(e.msg, "regions.csv:1: header: missing column \"region\"");
    free(dir);
}

/* The shipped groups place every region spelling of the real catalog
 * (and of the demo market) that is in the US, Europe or Asia-Pacific. */
/* Found by fuzz/fuzz_grades.c (issue 12): a grade of the shipped groups
 * US and EU is stored with its 50 globs, and the stored definition did not
 * read back ("regions: more than 32 entries"), so the grade was built but
 * neither published nor shown on the site.  Every group and all of them
 * together must read back to the same hash. */
static void test_stored_regions_read_back(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data", tu_srcdir());
    idx_grade_tables tb;
    gpi_diag d = {{0}};
    if (idx_grade_tables_load(dir, &tb, &d) != GPI_OK) fail_msg("%s", d.msg);
    static const char *const regions[] = {"\"US\"", "\"EU\"", "\"APAC\"", "[\"US\", \"EU\"]",
                                          "[\"US\", \"EU\", \"APAC\", \"ca-*\"]"};
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"regions\":%s}]}", regions[i]);
        idx_grades *a = parse_ok(json, &tb);
        char *text = malloc(strlen(a->g[0].canon) + 32);
        sprintf(text, "{\"grades\":[%s]}", a->g[0].canon);
        idx_grades *r = NULL;
        if (idx_grades_parse(text, "canon", NULL, IDX_TRUST_GPUS, &r, &d) != GPI_OK)
            fail_msg("%s (%d globs): %s", regions[i], a->g[0].n_region, d.msg);
        assert_string_equal(r->g[0].hash, a->g[0].hash);
        assert_int_equal(r->g[0].n_region, a->g[0].n_region);
        idx_grades_free(r);
        idx_grades_free(a);
        free(text);
    }
    idx_grade_tables_free(&tb);
}

static void test_shipped_region_groups(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data", tu_srcdir());
    idx_grade_tables tb;
    gpi_diag d = {{0}};
    if (idx_grade_tables_load(dir, &tb, &d) != GPI_OK) fail_msg("%s", d.msg);
    static const struct {
        const char *region, *group; /* NULL: in none */
    } cases[] = {
        {"us-east-1", "US"},       {"us-central1", "US"},   {"eastus", "US"},
        {"southcentralus", "US"},  {"illinois_1_usa", "US"}, {"East Coast (NY2)", "US"},
        {"US", "US"},              {"US-TX-3", "US"},       {"us-south", "US"},
        {"eu-west-1", "EU"},       {"europe-west4", "EU"},  {"westeurope", "EU"},
        {"eu-frankfurt-1", "EU"},  {"uk-london-1", "EU"},   {"gb-london-1", "EU"},
        {"norway_2_eu", "EU"},     {"fr-par", "EU"},        {"GRA", "EU"},
        {"NO", "EU"},              {"EU-RO-1", "EU"},       {"NORWAY-1", "EU"},
        {"ap-northeast-1", "APAC"}, {"asia-east1", "APAC"}, {"australia-southeast1", "APAC"},
        {"KOREA-WEST-1-SCP-B001", "APAC"}, {"jp-tok", "APAC"}, {"ASIA", "APAC"},
        {"ca-central-1", NULL},    {"me-south-1", NULL},    {"sa-saopaulo-1", NULL},
        {"northamerica-northeast1", NULL}, {"CA", NULL},
    };
    static const char *const groups[] = {"US", "EU", "APAC"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int hits = 0;
        const char *in = NULL;
        for (size_t k = 0; k < 3; k++) {
            char json[256];
            snprintf(json, sizeof json,
                     "{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"regions\":\"%s\"}]}", groups[k]);
            idx_grades *gs = parse_ok(json, &tb);
            gpi_obs o;
            memset(&o, 0, sizeof o);
            o.gpu = "B200";
            o.region = cases[i].region;
            if (idx_grade_match(&gs->g[0], &o)) hits++, in = groups[k];
            idx_grades_free(gs);
        }
        if (cases[i].group ? hits != 1 || strcmp(in, cases[i].group) != 0 : hits != 0)
            fail_msg("%s: in %d groups (%s), want %s", cases[i].region, hits, in ? in : "-",
                     cases[i].group ? cases[i].group : "none");
    }
    idx_grade_tables_free(&tb);
}

static void test_skus_and_covers(void **state)
{
    (void)state;
    idx_grades *a = parse_ok("{\"grades\":[{\"id\":\"A\",\"gpu\":\"H100-SXM-80GB\","
                             "\"skus\":[\"p5.*\",\"gpu_8x_*\"],\"covers\":\"instance\"}]}", NULL);
    const idx_grade *g = &a->g[0];
    assert_int_equal(g->n_sku, 2);
    assert_int_equal(g->covers_mask, 1u << GPI_COVERS_INSTANCE);
    assert_non_null(strstr(g->canon, "\"covers\":[\"instance\"]"));
    assert_non_null(strstr(g->canon, "\"skus\":[\"gpu_8x_*\",\"p5.*\"]"));
    gpi_obs o;
    memset(&o, 0, sizeof o);
    o.gpu = "H100-SXM-80GB";
    o.scope = GPI_SCOPE_VM;
    static const struct {
        const char *sku;
        int covers, in;
    } cases[] = {
        {"p5.48xlarge", GPI_COVERS_INSTANCE, 1}, {"P5.48XLARGE", GPI_COVERS_INSTANCE, 1},
        {"gpu_8x_h100_sxm5", GPI_COVERS_INSTANCE, 1}, {"p4d.24xlarge", GPI_COVERS_INSTANCE, 0},
        {NULL, GPI_COVERS_INSTANCE, 0}, {"p5.48xlarge", GPI_COVERS_GPU_ONLY, 0},
        {"p5.48xlarge", GPI_COVERS_CPU_HEAVY, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        o.sku = cases[i].sku;
        o.covers = cases[i].covers;
        if (idx_grade_match(g, &o) != cases[i].in) fail_msg("case %zu", i);
    }
    /* without them: every sku and every kind of price, and a definition
     * written as before they existed (its hash unchanged) */
    idx_grades *b = parse_ok("{\"grades\":[{\"id\":\"B\",\"gpu\":\"H100-SXM-80GB\","
                             "\"skus\":\"*\",\"covers\":[\"instance\",\"gpu-only\",\"cpu-heavy\","
                             "\"partial-gpu\"]}]}", NULL);
    idx_grades *c = parse_ok("{\"grades\":[{\"id\":\"B\",\"gpu\":\"H100-SXM-80GB\"}]}", NULL);
    assert_string_equal(b->g[0].hash, c->g[0].hash);
    assert_null(strstr(c->g[0].canon, "skus"));
    assert_null(strstr(c->g[0].canon, "covers"));
    /* pinned: the canonical form of a v1 grade did not change */
    assert_string_equal(c->g[0].canon,
                        "{\"adj_lookback_days\":30,\"adj_min_days\":5,\"cap_floor\":\"0.300000\","
                        "\"error_factor\":\"3.000000\",\"gpu\":[\"H100-SXM-80GB\"],\"id\":\"B\","
                        "\"max_carry_days\":5,\"min_providers\":3,\"min_tier\":\"unrated\","
                        "\"min_trade_volume\":\"1000.000000\",\"providers\":[\"*\"],"
                        "\"regions\":[\"*\"],\"restate_threshold\":\"0.001000\","
                        "\"rounding\":\"0.0001\",\"scope\":[\"bare-metal\",\"managed\",\"vm\","
                        "\"container\"],\"segments\":[\"*\"],\"term\":\"on-demand\","
                        "\"version\":1}");
    o.sku = "anything";
    o.covers = GPI_COVERS_PARTIAL;
    assert_true(idx_grade_match(&c->g[0], &o));
    parse_err("{\"grades\":[{\"id\":\"A\",\"gpu\":\"B200\",\"covers\":[\"host\"]}]}", NULL,
              "g.json: grades[0].covers: unknown (instance, gpu-only, cpu-heavy, partial-gpu) "
              "(got \"host\")");
    idx_grades_free(a);
    idx_grades_free(b);
    idx_grades_free(c);
}

/* ---- filters that match nothing -------------------------------------------- */

typedef struct warns {
    char msg[24][256];
    int n;
} warns;

static void on_warn(const char *msg, void *ud)
{
    warns *w = ud;
    if (w->n < 24) snprintf(w->msg[w->n++], 256, "%s", msg);
}

/* What a row of the checks' tests stores. */
typedef struct row5 {
    const char *gpu, *provider, *group, *region, *sku;
    int term;
} row5;

/* A stored offer of the checks' tests: row r under key. */
static gpi_obs row_obs(const row5 *r, uint64_t key)
{
    gpi_obs o;
    memset(&o, 0, sizeof o);
    o.kind = GPI_OFFER;
    o.scope = GPI_SCOPE_VM;
    o.term = r->term;
    o.observed_at = 1735689600; /* 2025-01-01 */
    o.day = gpi_day_of_time(o.observed_at);
    o.key_hash = key;
    o.price_micro = 2000000;
    o.quantity_micro = -1;
    o.gpu_count = 1;
    o.gpu = r->gpu;
    o.provider = r->provider;
    o.group = r->group;
    o.segment = "neocloud";
    o.region = r->region;
    o.source = "t";
    o.ident = o.raw_gpu = o.raw_provider = r->gpu;
    o.raw_price = "2";
    o.currency = "USD";
    o.sku = r->sku;
    return o;
}

static void put_row(store *st, int64_t batch, uint64_t key, const row5 *r)
{
    gpi_obs o = row_obs(r, key);
    store_put_result res;
    gpi_diag d = {{0}};
    if (store_obs_put(st, batch, &o, &res, &d) != GPI_OK) fail_msg("%s", d.msg);
}

/* The same with the provider as its own group. */
static void put(store *st, int64_t batch, uint64_t key, const char *gpu, const char *provider,
                const char *region, const char *sku, int term)
{
    row5 r = {gpu, provider, provider, region, sku, term};
    put_row(st, batch, key, &r);
}

static void test_filters_matching_nothing(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("gcheck");
    char path[4200];
    snprintf(path, sizeof path, "%s/c.db", dir);
    store *st = NULL;
    gpi_diag d = {{0}};
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    idx_grade_tables tb;
    tables(&tb, NULL, regions_csv);
    const char *json =
        "{\"grades\":["
        "{\"id\":\"OK\",\"gpu\":\"H100-SXM-80GB\",\"providers\":\"lambda\",\"regions\":\"US\"},"
        "{\"id\":\"TYPO\",\"gpu\":\"H100-SXM-80GB\",\"providers\":[\"lamda\",\"lambda\"],"
        "\"regions\":[\"EU\"],\"skus\":[\"p5*\"]},"
        "{\"id\":\"NONE\",\"gpu\":\"H100-SXM-80GB\",\"providers\":\"runpod\",\"term\":\"spot\"}]}";
    idx_grades *gs = parse_ok(json, &tb);
    /* an empty store: nothing to compare with, nothing said */
    warns w = {0};
    assert_int_equal(idx_grades_check(gs, "g.json", &tb, st, on_warn, &w, &d), GPI_OK);
    assert_int_equal(w.n, 0);
    store_batch_info info = {.path = "f", .sha256 = "s", .ingested_at = 1, .n_bytes = 1};
    int64_t b = 0;
    if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
    put(st, b, 1, "H100-SXM-80GB", "lambda", "us-east-1", "gpu_8x_h100", GPI_TERM_ON_DEMAND);
    put(st, b, 2, "H100-SXM-80GB", "runpod", "EU-RO-1", NULL, GPI_TERM_ON_DEMAND);
    put(st, b, 3, "B200", "lambda", "eu-west-1", NULL, GPI_TERM_SPOT);
    store_batch_counts n = {3, 3, 0, 0};
    if (store_batch_commit(st, b, &n, 2, &d) != GPI_OK) fail_msg("%s", d.msg);
    assert_int_equal(idx_grades_check(gs, "g.json", &tb, st, on_warn, &w, &d), GPI_OK);
    assert_int_equal(w.n, 3);
    assert_string_equal(w.msg[0], "g.json: grades[1].providers: \"lamda\" matches no stored "
                                  "observation");
    assert_string_equal(w.msg[1], "g.json: grades[1].skus: \"p5*\" matches no stored "
                                  "observation");
    /* each filter matches something, but not together */
    assert_string_equal(w.msg[2], "g.json: grades[2] (NONE): no stored observation matches all "
                                  "of its filters (gpu, term, tier, scope, covers, places)");
    store_close(st);
    /* note 4: the clean grade is recorded, the others are not */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM facet_checks", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 1);
    sqlite3_finalize(q);
    /* the facets shrink behind the store's back (they never do: rows are
     * never deleted): lambda's only US row is no longer noted */
    assert_int_equal(sqlite3_exec(db,
                                  "UPDATE profiles SET noted = 0 WHERE region = (SELECT name_id"
                                  " FROM names WHERE name = 'us-east-1');"
                                  "DELETE FROM profile_packs;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
    /* OK was found clean: not checked again; the others warn as before */
    w.n = 0;
    assert_int_equal(idx_grades_check(gs, "g.json", &tb, st, on_warn, &w, &d), GPI_OK);
    assert_int_equal(w.n, 3);
    assert_string_equal(w.msg[0], "g.json: grades[1].providers: \"lamda\" matches no stored "
                                  "observation");
    /* the same filters under another id are another grade: checked */
    idx_grades *gs2 = parse_ok("{\"grades\":[{\"id\":\"OK2\",\"gpu\":\"H100-SXM-80GB\","
                               "\"providers\":\"lambda\",\"regions\":\"US\"}]}",
                               &tb);
    w.n = 0;
    assert_int_equal(idx_grades_check(gs2, "h.json", &tb, st, on_warn, &w, &d), GPI_OK);
    assert_int_equal(w.n, 1);
    assert_string_equal(w.msg[0], "h.json: grades[0].regions: \"US\" matches no stored "
                                  "observation");
    idx_grades_free(gs2);
    idx_grades_free(gs);
    idx_grade_tables_free(&tb);
    store_close(st);
    free(dir);
}

/* ---- property: an entry's check is "some stored row has it" ---------------------- */


/* The reference's match of one value, written from note 3 of
 * index/grade_tables.c: a glob (* ? [) by fnmatch, else the name,
 * ignoring case; a missing value is "". */
static int ref_like(const char *pattern, const char *s)
{
    if (!s) s = "";
    if (strpbrk(pattern, "*?[")) return fnmatch(pattern, s, FNM_CASEFOLD) == 0;
    return strcasecmp(pattern, s) == 0;
}

/* 1 when row r has a value of field f (0 gpu, 1 regions, 2 providers,
 * 3 skus) that entry e matches; a region group stands for its globs, a
 * provider entry matches the provider or its group. */
static int ref_row(const row5 *r, int f, const char *e, const idx_grade_tables *tb)
{
    switch (f) {
    case 0:
        return r->gpu && strcasecmp(r->gpu, e) == 0;
    case 1: {
        int group = 0, hit = 0;
        for (size_t k = 0; k < tb->n_rgroup; k++)
            if (strcasecmp(tb->rgroup[k], e) == 0) {
                group = 1;
                hit |= ref_like(tb->rpattern[k], r->region);
            }
        return group ? hit : ref_like(e, r->region);
    }
    case 2:
        return ref_like(e, r->provider) || ref_like(e, r->group);
    default:
        return ref_like(e, r->sku);
    }
}

static size_t rnd(uint64_t *x, size_t n)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return (size_t)(*x % n);
}

/* Random rows and three random grades a round: every entry warning is
 * exactly the entries no stored row matches, row by row (grade_tables.c
 * answers it from each field's distinct values: note 5), and a grade
 * whose entries all match warns as a whole exactly when no row matches
 * all its filters at once (idx_grade_match, row by row: the check reads
 * the facets). */
static void test_entry_checks_property(void **state)
{
    (void)state;
    static const char *const gpus[] = {"H100-SXM-80GB", "B200", "A100-SXM-80GB"};
    static const char *const provs[] = {"lambda", "runpod", "CoreWeave"};
    static const char *const groups[] = {NULL, "hyperscaler", "neo"}; /* NULL: the provider */
    static const char *const regions[] = {"us-east-1", "EU-RO-1", "eu-west-1", NULL, "eastus"};
    static const char *const skus[] = {"gpu_8x_h100", NULL, "p5.48xlarge"};
    static const char *const g_prov[] = {"lambda", "lamda", "run*", "hyper*", "coreweave",
                                         "[cr]*", "neo"};
    static const char *const g_reg[] = {"US", "EU", "eu-*", "us-east-1", "*", "ap-south-1", "?"};
    static const char *const g_sku[] = {"p5*", "gpu_*", "*", "GPU_8X_H100", "x"};
    static const char *const g_term[] = {"", ",\"term\":\"spot\""};
    enum { NG = 3 };
    char *dir = tu_mkdtemp("gprop");
    idx_grade_tables tb;
    tables(&tb, NULL, regions_csv);
    uint64_t x = 0x9E3779B97F4A7C15u;
    int warned_total = 0, quiet_total = 0, whole_total = 0;
    for (int round = 0; round < 40; round++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/p%d.db", dir, round);
        store *st = NULL;
        gpi_diag d = {{0}};
        if (store_open(path, &st, &d) != GPI_OK) fail_msg("%s", d.msg);
        store_batch_info info = {.path = "f", .sha256 = "s", .ingested_at = 1, .n_bytes = 1};
        int64_t b = 0;
        if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("%s", d.msg);
        row5 rows[6];
        size_t n = 1 + rnd(&x, 6);
        for (size_t i = 0; i < n; i++) {
            rows[i].gpu = gpus[rnd(&x, 3)];
            rows[i].provider = provs[rnd(&x, 3)];
            rows[i].group = groups[rnd(&x, 3)];
            if (!rows[i].group) rows[i].group = rows[i].provider;
            rows[i].region = regions[rnd(&x, 5)];
            rows[i].sku = skus[rnd(&x, 3)];
            rows[i].term = GPI_TERM_ON_DEMAND;
            if (round == 0) /* no sku: "**" matches "" ("*" is no filter at all) */
                rows[i].region = rows[i].sku = NULL;
            put_row(st, b, 100 + i, &rows[i]);
        }
        store_batch_counts cnt = {(long)n, (long)n, 0, 0};
        if (store_batch_commit(st, b, &cnt, 2, &d) != GPI_OK) fail_msg("%s", d.msg);
        char json[2048];
        int at = snprintf(json, sizeof json, "{\"grades\":[");
        for (int k = 0; k < NG; k++) {
            const char *gg = gpus[rnd(&x, 3)], *p1 = g_prov[rnd(&x, 7)], *p2 = g_prov[rnd(&x, 7)];
            const char *term = g_term[rnd(&x, 4) == 0];
            at += snprintf(json + at, sizeof json - (size_t)at,
                           "%s{\"id\":\"G%d\",\"gpu\":\"%s\",\"providers\":[\"%s\",\"%s\"]%s",
                           k ? "," : "", k, gg, p1, p2, term);
            if (round == 0) {
                at += snprintf(json + at, sizeof json - (size_t)at,
                               ",\"regions\":[\"**\"],\"skus\":[\"**\"]");
            } else {
                if (rnd(&x, 3)) {
                    const char *r = g_reg[rnd(&x, 7)];
                    at += snprintf(json + at, sizeof json - (size_t)at, ",\"regions\":[\"%s\"]", r);
                }
                if (rnd(&x, 2)) {
                    const char *q = g_sku[rnd(&x, 5)];
                    at += snprintf(json + at, sizeof json - (size_t)at, ",\"skus\":[\"%s\"]", q);
                }
            }
            at += snprintf(json + at, sizeof json - (size_t)at, "}");
        }
        snprintf(json + at, sizeof json - (size_t)at, "]}");
        idx_grades *gs = parse_ok(json, &tb);
        /* the reference: per grade, in the check's order (gpu, regions,
         * providers, skus), then the grade as a whole */
        char want[24][256];
        int nw = 0;
        for (int k = 0; k < NG; k++) {
            const idx_grade *g = &gs->g[k];
            struct {
                const char *field;
                int n;
                const char (*v)[IDX_NAME_MAX + 1];
            } lists[] = {{"gpu", g->n_gpu, (const char (*)[IDX_NAME_MAX + 1])g->gpu},
                         {"regions", g->n_region_src,
                          (const char (*)[IDX_NAME_MAX + 1])g->region_src},
                         {"providers", g->n_provider,
                          (const char (*)[IDX_NAME_MAX + 1])g->provider},
                         {"skus", g->n_sku, (const char (*)[IDX_NAME_MAX + 1])g->sku}};
            int entries = 0;
            for (int f = 0; f < 4; f++)
                for (int i = 0; i < lists[f].n; i++) {
                    int any = 0;
                    for (size_t r = 0; r < n && !any; r++)
                        any = ref_row(&rows[r], f, lists[f].v[i], &tb);
                    if (any) continue;
                    snprintf(want[nw++], sizeof want[0],
                             "g.json: grades[%d].%s: \"%s\" matches no stored observation", k,
                             lists[f].field, lists[f].v[i]);
                    entries++;
                }
            warned_total += entries > 0;
            if (entries) continue;
            int whole = 0;
            for (size_t r = 0; r < n && !whole; r++) {
                gpi_obs o = row_obs(&rows[r], 100 + r);
                whole = idx_grade_match(g, &o);
            }
            if (!whole) {
                snprintf(want[nw++], sizeof want[0],
                         "g.json: grades[%d] (G%d): no stored observation matches all of its "
                         "filters (gpu, term, tier, scope, covers, places)",
                         k, k);
                whole_total++;
            }
            quiet_total += whole;
        }
        warns w = {0};
        assert_int_equal(idx_grades_check(gs, "g.json", &tb, st, on_warn, &w, &d), GPI_OK);
        if (w.n != nw) fail_msg("round %d: %s: %d warnings, want %d", round, json, w.n, nw);
        for (int i = 0; i < nw; i++)
            if (strcmp(w.msg[i], want[i]) != 0)
                fail_msg("round %d: %s:\n got  %s\n want %s", round, json, w.msg[i], want[i]);
        idx_grades_free(gs);
        store_close(st);
    }
    /* the draws reach every outcome, grade by grade */
    assert_true(warned_total >= 5);
    assert_true(quiet_total >= 5);
    assert_true(whole_total >= 2);
    idx_grade_tables_free(&tb);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_aliases),
        cmocka_unit_test(test_quoted_tables),
        cmocka_unit_test(test_region_groups),
        cmocka_unit_test(test_shipped_region_groups),
        cmocka_unit_test(test_stored_regions_read_back),
        cmocka_unit_test(test_skus_and_covers),
        cmocka_unit_test(test_filters_matching_nothing),
        cmocka_unit_test(test_entry_checks_property),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
