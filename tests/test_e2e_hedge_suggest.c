/* tests/test_e2e_hedge_suggest.c -- `gpuidx hedge compare --suggest` and
 * `compare --svg` end to end, on a generated market ingested through the
 * binary.
 *
 * Market (2023-01-01 .. 2024-12-31, L4 spot offers, scope vm, one row a
 * day each; a deterministic LCG makes the walks):
 *   provider alpha, instance type gx.large in region r-1, zones z1 z2 z3:
 *     price = B(month) x (1 + 0.004 u), B a monthly random walk (steps
 *     of up to +-8 %) from 1.00, u uniform in [-1, 1] per zone and day;
 *   alpha in r-1 also gy.huge in three zones (a walk from 1.60) and
 *     gz.mid in two (a walk from 1.30): the median of alpha's eight r-1
 *     offers is gz.mid's price, not gx.large's; alpha gx.large in r-2
 *     (a walk from 1.05);
 *   providers beta, gamma, delta, two offers each in region eu, walks
 *     from 1.50 to 1.95: above alpha, so the median of the four
 *     providers' medians is theirs.
 * The renter pays alpha's gx.large price in zone z1 (720 GPU-hours a day).
 * So an index of gx.large in r-1 without the renter's own zone (the
 * median of z2 and z3) tracks the rent's monthly changes almost exactly,
 * and neither the grade of every L4 spot offer (a candidate: not in the
 * published grades file) nor an index of the region or of alpha does.
 * What a risk manager must be told: no grade given hedges this rent (and
 * it is a candidate, not published); the instance type's other zones
 * would, it is not listed, and it is one provider's price.  Told the
 * rent's zone, the suggestions leave only it out; not told, they leave
 * out every gx.large quote of alpha in r-1 -- all of the instance type's
 * index -- and the verdict says that index tracks the rent only because
 * it is the renter's own price.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "tests/svg_check.h"
#include "tests/hedge_ref_check.h"

#define SUG "sug-L4.spot.vm.r-1.gx.large.not-own"

static uint64_t lcg = 20240501;
static double unif(void) /* [-1, 1] */
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / (double)(1ULL << 52) * 2.0 - 1.0;
}

typedef struct walk {
    double level;
} walk;

static void step(walk *w)
{
    w->level *= 1.0 + 0.08 * unif();
}

static char *dir;

/* Writes offers.csv and rent.csv (with the given rent header lines) into
 * dir and ingests the offers into m.db; builds the published grade. */
static void make_market(void)
{
    dir = tu_mkdtemp("e2e-suggest");
    char path[4200];
    snprintf(path, sizeof path, "%s/offers.csv", dir);
    FILE *o = fopen(path, "w");
    snprintf(path, sizeof path, "%s/rent.csv", dir);
    FILE *r = fopen(path, "w");
    assert_non_null(o);
    assert_non_null(r);
    fprintf(o, "kind,id,observed_at,source,provider,region,gpu,sku,gpu_count,price,currency,unit,"
               "scope,term\n");
    fprintf(r, "date,price,quantity\n");
    walk b = {1.00}, huge = {1.60}, mid = {1.30}, r2 = {1.05},
         other[3][2] = {{{1.50}, {1.55}}, {{1.70}, {1.75}}, {{1.90}, {1.95}}};
    static const char *const prov[3] = {"beta", "gamma", "delta"};
    int32_t d0 = gpi_days_from_civil(2023, 1, 1), d1 = gpi_days_from_civil(2024, 12, 31);
    int last_month = -1;
    for (int32_t day = d0; day <= d1; day++) {
        int y, m, dd;
        gpi_civil_from_days(day, &y, &m, &dd);
        if (m != last_month) {
            last_month = m;
            step(&b);
            step(&huge);
            step(&mid);
            step(&r2);
            for (int p = 0; p < 3; p++)
                for (int k = 0; k < 2; k++) step(&other[p][k]);
        }
        char date[11];
        gpi_date_format(day, date);
        for (int z = 1; z <= 3; z++) {
            double px = b.level * (1.0 + 0.004 * unif());
            fprintf(o, "offer,gx.large@z%d/1x/spot,%s,test:alpha,alpha,r-1,L4,gx.large,1,%.6f,USD,"
                       "instance-hour,vm,spot\n",
                    z, date, px);
            if (z == 1) fprintf(r, "%s,%.6f,720\n", date, px);
        }
        for (int z = 1; z <= 3; z++)
            fprintf(o, "offer,gy.huge@z%d/1x/spot,%s,test:alpha,alpha,r-1,L4,gy.huge,1,%.6f,USD,"
                       "instance-hour,vm,spot\n",
                    z, date, huge.level);
        for (int z = 1; z <= 2; z++)
            fprintf(o, "offer,gz.mid@z%d/1x/spot,%s,test:alpha,alpha,r-1,L4,gz.mid,1,%.6f,USD,"
                       "instance-hour,vm,spot\n",
                    z, date, mid.level);
        fprintf(o, "offer,gx.large@z9/1x/spot,%s,test:alpha,alpha,r-2,L4,gx.large,1,%.6f,USD,"
                   "instance-hour,vm,spot\n",
                date, r2.level);
        for (int p = 0; p < 3; p++)
            for (int k = 0; k < 2; k++)
                fprintf(o, "offer,%s-%d,%s,test:%s,%s,eu,L4,%s.k%d,1,%.6f,USD,instance-hour,vm,"
                           "spot\n",
                        prov[p], k, date, prov[p], prov[p], prov[p], k, other[p][k].level);
    }
    fclose(o);
    fclose(r);
    free(tu_write(dir, "g.json",
                  "{\"grades\": [{\"id\": \"L4.SPOT\", \"gpu\": [\"L4\"], \"term\": \"spot\"},"
                  " {\"id\": \"L4.OD\", \"gpu\": [\"L4\"]}]}"));
    tu_run t = tu_gpuidx(dir, "--db m.db ingest --admit-providers offers.csv");
    if (t.status != 0) fail_msg("ingest: %s", t.err);
    tu_run_free(&t);
    t = tu_gpuidx(dir, "--db m.db index build --grades g.json --from 2022-12-01 --to 2025-01-06");
    if (t.status != 0) fail_msg("build: %s", t.err);
    tu_run_free(&t);
}

static int setup(void **state)
{
    (void)state;
    make_market();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(dir);
    return 0;
}

static const char *sget(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s) fail_msg("%s: not a string", key);
    return s;
}

static double nget(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v)) fail_msg("%s: not a number", key);
    return json_number_value(v);
}

static json_t *find(json_t *grades, const char *id)
{
    size_t i;
    json_t *g;
    json_array_foreach(grades, i, g) if (strcmp(sget(g, "grade"), id) == 0) return g;
    fail_msg("grade %s not listed", id);
    return NULL;
}

static void test_suggest_finds_the_instance_type_index(void **state)
{
    (void)state;
    tu_run sum0 = tu_sh(dir, "sha256sum m.db; ls -A");
    assert_int_equal(sum0.status, 0);
    tu_run r = tu_gpuidx(dir, "--db m.db hedge compare --rent rent.csv --grades g.json --suggest "
                              "--gpu L4 --term spot --scope vm --provider alpha --region r-1 "
                              "--instance-type gx.large --zone z1 --json");
    if (r.status != 0) fail_msg("compare: exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *gs = json_object_get(j, "grades");
    /* two grades given (candidates: not in the published grades file) and
     * seven suggestions */
    assert_int_equal(json_array_size(gs), 9);
    /* the best hedge is an index of the instance type */
    json_t *best = json_array_get(gs, 0);
    assert_int_equal(nget(best, "rank"), 1);
    assert_true(json_is_true(json_object_get(best, "suggested")));
    assert_non_null(strstr(sget(best, "what"), "instance type gx.large"));
    json_t *g0 = find(gs, SUG);
    assert_true(json_is_true(json_object_get(g0, "suggested")));
    assert_int_equal(nget(g0, "providers"), 1);
    assert_string_equal(sget(g0, "what"), "L4 spot, vm, in r-1, instance type gx.large, without "
                                          "your own quotes");
    /* with the renter's zone its quotes would supply a third of the fix
     * and more: measured, and the twin's fit is there */
    json_t *own = json_object_get(g0, "own");
    assert_true(json_is_false(json_object_get(own, "in")));
    assert_true(nget(own, "share") > 0.2 && nget(own, "share") <= 1.0);
    assert_true(nget(json_object_get(own, "with_own"), "he") > 0.95);
    assert_true(nget(g0, "he") > 0.95);
    assert_int_equal(nget(g0, "n_changes"), 23);
    json_t *def = json_object_get(g0, "definition");
    assert_string_equal(json_string_value(json_array_get(json_object_get(def, "skus"), 0)),
                        "gx.large");
    json_t *pub = find(gs, "L4.SPOT");
    assert_true(json_is_false(json_object_get(pub, "suggested")));
    assert_string_equal(sget(pub, "set"), "candidate");
    assert_string_equal(sget(g0, "set"), "suggested");
    assert_true(nget(pub, "he") < 0.5);
    assert_true(json_is_null(json_object_get(find(gs, "L4.OD"), "rank"))); /* no values */
    /* the region and the provider are no hedge: the instance type is */
    static const char *const wide[] = {"sug-L4.spot.not-own", "sug-L4.spot.vm.not-own",
                                       "sug-L4.spot.vm.alpha.not-own", "sug-L4.spot.vm.r-1.not-own",
                                       "sug-L4.spot.vm.not-alpha"};
    for (size_t k = 0; k < sizeof wide / sizeof wide[0]; k++) {
        json_t *w = find(gs, wide[k]);
        if (json_is_number(json_object_get(w, "he")) && nget(w, "he") >= 0.5)
            fail_msg("%s: he %g", wide[k], nget(w, "he"));
    }
    json_t *v = json_object_get(j, "verdict");
    assert_true(json_is_true(json_object_get(v, "hedges")));
    assert_true(json_is_true(json_object_get(v, "suggested")));
    assert_string_equal(sget(v, "grade"), sget(best, "grade"));
    const char *text = sget(v, "text");
    char want[200];
    snprintf(want, sizeof want, "; one built around it would: %s (%s) removes ", sget(best, "grade"),
             sget(best, "what"));
    /* L4.SPOT moves against the rent: "no candidate grade of your GPU moves
     * with your rent (none has h > 0)" -- not "published": it is not in the
     * published grade set */
    if (strncmp(text, "no candidate grade ", 19) != 0 || !strstr(text, want) ||
        !strstr(text, "-- it is not published, so no futures settle on it yet") ||
        !strstr(text, "it is one provider's price, which that provider alone sets"))
        fail_msg("verdict: %s", text);
    json_t *ri = json_object_get(j, "rent");
    assert_string_equal(sget(ri, "instance_type"), "gx.large");
    double he_sug = nget(g0, "he");

    /* nothing written: the database and the directory are as they were */
    tu_run sum1 = tu_sh(dir, "sha256sum m.db; ls -A");
    assert_string_equal(sum1.out, sum0.out);
    tu_run_free(&sum1);

    /* the same description as header fields of the rent file gives the
     * same answer, word for word */
    tu_run h = tu_sh(dir, "{ printf '# gpu: L4\\n# term: spot\\n# scope: vm\\n# provider: alpha\\n"
                          "# region: r-1\\n# instance_type: gx.large\\n# zone: z1\\n'; cat "
                          "rent.csv; } > rent-h.csv");
    assert_int_equal(h.status, 0);
    tu_run_free(&h);
    tu_run r2 = tu_gpuidx(dir, "--db m.db hedge compare --rent rent-h.csv --grades g.json --suggest "
                               "--json");
    if (r2.status != 0) fail_msg("compare (header fields): %s", r2.err);
    assert_string_equal(r2.out, r.out);
    tu_run_free(&r2);
    /* an option overrides its header field */
    r2 = tu_gpuidx(dir, "--db m.db hedge compare --rent rent-h.csv --grades g.json --suggest "
                        "--instance-type gy.huge --json");
    assert_int_equal(r2.status, 0);
    assert_non_null(strstr(r2.out, "\"sug-L4.spot.vm.r-1.gy.huge.not-own\""));
    tu_run_free(&r2);

    /* the suggestion's values are the index's own: its definition built
     * with `index build` (on a copy) and compared as a published grade
     * gives the same effectiveness */
    json_t *file = json_object(), *arr = json_array();
    json_array_append(arr, def);
    json_object_set_new(file, "grades", arr);
    char dpath[4200];
    snprintf(dpath, sizeof dpath, "%s/sug.json", dir);
    assert_int_equal(json_dump_file(file, dpath, 0), 0);
    json_decref(file);
    tu_run b = tu_sh(dir, "cp m.db m2.db && '%s' --db m2.db index build --grades sug.json --from "
                          "2022-12-01 --to 2025-01-06 >/dev/null",
                     getenv("GPUIDX_BIN"));
    if (b.status != 0) fail_msg("build of the suggestion: %s", b.err);
    tu_run_free(&b);
    r2 = tu_gpuidx(dir, "--db m2.db hedge compare --rent rent.csv --grade " SUG " --json");
    assert_int_equal(r2.status, 0);
    json_t *j2 = json_loads(r2.out, 0, NULL);
    json_t *built = json_array_get(json_object_get(j2, "grades"), 0);
    tu_assert_close(nget(built, "he"), he_sug, 1e-12, "built suggestion he");
    json_decref(j2);
    tu_run_free(&r2);

    /* text: the rent, the candidates' definitions, the verdict */
    r2 = tu_gpuidx(dir, "--db m.db hedge compare --rent rent-h.csv --grades g.json --suggest");
    assert_int_equal(r2.status, 0);
    assert_non_null(strstr(r2.out, "rent: L4 spot, vm, at alpha, in r-1, instance type gx.large, "
                                   "zone z1; suggested grades (sug-*) are built around it\n"));
    assert_non_null(strstr(r2.out, "  " SUG " same "));
    assert_non_null(strstr(r2.out, "  " SUG ": L4 spot, vm, in r-1, instance type gx.large, "
                                   "without your own quotes; 1 provider\n    {\"covers\":"
                                   "[\"instance\"],\"exclude\":[{\"ids\":[\"*@z1/*\"],"
                                   "\"providers\":[\"alpha\"],\"regions\":[\"r-1\"],\"skus\":"
                                   "[\"gx.large\"]}],\"gpu\":[\"L4\"],\"id\":\"" SUG "\","));
    assert_non_null(strstr(r2.out, "your own quotes: alpha gx.large in r-1, zone z1 (offer ids "
                                   "*@z1/*) -- left out of the suggested grades (--include-own "
                                   "keeps them)\n"));
    /* the best hedge first (SUG or, as near a tie -- HE 0.9991 against
     * 0.9992 under methodology v3, the shipped style -- the instance
     * type's index of every region) */
    char oos[200];
    snprintf(oos, sizeof oos, "out of sample (ranked grades):\n  %s: walk-forward: ",
             sget(best, "grade"));
    assert_non_null(strstr(r2.out, oos));
    assert_non_null(strstr(r2.out, "  sug-L4.spot.vm.not-alpha: L4 spot, vm, every provider but "
                                   "alpha; 3 providers\n"));
    assert_non_null(strstr(r2.out, "\nverdict: no candidate grade "));
    assert_non_null(strstr(r2.out, "\ncandidate grades (not in the published grade set: never "
                                   "published, so no futures settle on them): L4.SPOT, L4.OD\n"));
    tu_run_free(&r2);
    json_decref(j);
    tu_run_free(&r);
    tu_run_free(&sum0);
}

/* Not told the zone, the own quotes are every gx.large quote of alpha in
 * r-1: the instance type's index without them has no value, and the one
 * with them tracks the rent only because it is the rent.  --include-own
 * keeps them and ranks that index as not a hedge: largely the renter's
 * own price. */
static void test_suggest_own_price_named(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(dir, "--db m.db hedge compare --rent rent.csv --grades g.json --suggest "
                              "--gpu L4 --term spot --scope vm --provider alpha --region r-1 "
                              "--instance-type gx.large --json");
    if (r.status != 0) fail_msg("compare: exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    json_t *g = find(json_object_get(j, "grades"), SUG);
    assert_non_null(json_object_get(g, "reason")); /* no value without them */
    json_t *own = json_object_get(g, "own");
    tu_assert_close(nget(own, "share"), 1.0, 1e-12, "own share");
    assert_true(nget(json_object_get(own, "with_own"), "he") > 0.95);
    const char *text = sget(json_object_get(j, "verdict"), "text");
    /* the instance type's index in r-1 or, as near a tie (methodology v3,
     * the shipped style), of every region */
    if ((!strstr(text, "; sug-L4.spot.vm.r-1.gx.large (with your quotes) tracks your rent (it "
                       "removes ") &&
         !strstr(text, "; sug-L4.spot.vm.gx.large (with your quotes) tracks your rent (it "
                       "removes ")) ||
        !strstr(text, " only because your own quotes supply 100% of its fix") ||
        !strstr(text, "ask your provider for a fixed price, or an exchange to list your own bill"))
        fail_msg("verdict: %s", text);
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db m.db hedge compare --rent rent.csv --grades g.json --suggest "
                       "--include-own --gpu L4 --term spot --scope vm --provider alpha --region r-1 "
                       "--instance-type gx.large --json");
    assert_int_equal(r.status, 0);
    j = json_loads(r.out, 0, NULL);
    g = find(json_object_get(j, "grades"), "sug-L4.spot.vm.r-1.gx.large");
    assert_true(json_is_null(json_object_get(g, "rank")));
    static const char lead[] = "largely your own price: your quotes supply 100% of its fix";
    if (strncmp(sget(g, "not_ranked"), lead, strlen(lead)) != 0)
        fail_msg("not ranked: %s", sget(g, "not_ranked"));
    assert_true(json_is_true(json_object_get(json_object_get(g, "own"), "circular")));
    json_decref(j);
    tu_run_free(&r);
}

static void test_compare_svg(void **state)
{
    (void)state;
    tu_run r = tu_gpuidx(dir, "--db m.db hedge compare --rent rent.csv --grades g.json --suggest "
                              "--gpu L4 --term spot --provider alpha --region r-1 --instance-type "
                              "gx.large --zone z1 --svg cmp.svg --json");
    if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    json_t *gs = json_object_get(j, "grades");
    int with_he = 0;
    size_t i;
    json_t *g;
    json_array_foreach(gs, i, g) with_he += json_is_number(json_object_get(g, "he"));
    char path[4200];
    snprintf(path, sizeof path, "%s/cmp.svg", dir);
    char *svg = tu_read(path);
    assert_non_null(svg);
    svg_check(svg);
    /* a dot per grade with an effectiveness, a row label per grade */
    assert_int_equal(svg_count(svg, "circle"), with_he);
    json_array_foreach(gs, i, g) {
        char label[120];
        snprintf(label, sizeof label, ">%s</text>", sget(g, "grade"));
        if (!strstr(svg, label)) fail_msg("no row for %s", sget(g, "grade"));
    }
    /* the first row is the best hedge, a suggestion, in its colour */
    const char *first = strstr(svg, "<circle");
    assert_non_null(first);
    assert_non_null(strstr(first, "fill=\"#2ca02c\""));
    assert_true(strstr(first, "fill=\"#2ca02c\"") < strchr(first, '>'));
    free(svg);
    json_decref(j);
    tu_run_free(&r);
}

static void test_suggest_errors(void **state)
{
    (void)state;
    static const struct {
        const char *args;
        int status;
        const char *err;
    } cases[] = {
        {"--suggest", 2, "gpuidx: --suggest needs the rent's GPU: --gpu MODEL, or a '# gpu: MODEL' "
                         "line in rent.csv\n"},
        {"--grades g.json --include-own", 2,
         "gpuidx: --include-own applies to the grades --suggest builds\n"},
        {"--suggest --gpu Z99", 1, "--suggest: gpu: not a canonical GPU model or family of "},
        {"--suggest --gpu L4 --term weekly", 2,
         "gpuidx: --term: expected on-demand, spot or reserved:A-B (got \"weekly\")\n"},
        {"--suggest --gpu L4 --scope cloud", 2,
         "gpuidx: --scope: expected bare-metal, managed, vm or container (got \"cloud\")\n"},
        {"--suggest --gpu L4 --provider 'a\"b'", 2,
         "gpuidx: --provider: expected a name of 1 to 64 characters without quotes (got "
         "\"a\"b\")\n"},
        {"--suggest --gpu L4 --term reserved:0-3", 1,
         "gpuidx: suggested grades: grades[0].term: reserved range must be A-B with 1 <= A <= B "
         "<= 60 (got \"reserved:0-3\")\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_run r = tu_gpuidx(dir, "--db m.db hedge compare --rent rent.csv %s", cases[i].args);
        if (r.status != cases[i].status || !strstr(r.err, cases[i].err))
            fail_msg("%s: exit %d, stderr %s", cases[i].args, r.status, r.err);
        tu_run_free(&r);
    }
    tu_run r = tu_sh(dir, "printf '# gpu: L4\\n# gpu: T4\\n2024-01-01,1\\n' > twice.csv");
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db m.db hedge compare --rent twice.csv --suggest");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "gpuidx: twice.csv:2: gpu: given twice, first on line 1 (got "
                               "\"T4\")\n");
    tu_run_free(&r);
    /* --suggest alone: the candidates only, and the verdict says no
     * published grade was compared */
    r = tu_gpuidx(dir, "--db m.db hedge compare --rent rent.csv --suggest --gpu L4 --term spot "
                       "--region r-1 --instance-type gx.large");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nverdict: no published grade was compared; one built around it "
                                  "would: sug-L4.spot."));
    tu_run_free(&r);
    /* the market has no on-demand offer: no suggestion has a value, and
     * the header says so (it said "over 2022-12-01 .. 2022-12-01, the last
     * day of data") */
    r = tu_gpuidx(dir, "--db m.db hedge compare --rent rent.csv --suggest --gpu L4 --term on-demand");
    assert_int_equal(r.status, 0);
    if (!strstr(r.out, "\nsuggested grades (none has a value of its own on any day from 2022-12-01 "
                       "to 2025-01-06 in the stored observations, at the present cut-off; nothing "
                       "written; not published, so no futures settle on them):\n") ||
        strstr(r.out, "the last day of data"))
        fail_msg("no data:\n%s", r.out);
    tu_run_free(&r);
}

/* The out-of-sample figures against the statsmodels reference without the
 * real catalogue (tests/test_e2e_hedge_real.c does it on it, and skips
 * without it): the rent on the published grade of every L4 spot offer,
 * weekly and monthly, with enough changes for the walk-forward, the
 * bootstrap and the break test to run. */
static void test_out_of_sample_reference(void **state)
{
    (void)state;
    assert_true(hedge_ref_check(dir, "--db m.db", "rent.csv", "L4.SPOT", "week") >= 100);
    assert_true(hedge_ref_check(dir, "--db m.db", "rent.csv", "L4.SPOT", "month") >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suggest_finds_the_instance_type_index),
        cmocka_unit_test(test_suggest_own_price_named),
        cmocka_unit_test(test_compare_svg),
        cmocka_unit_test(test_suggest_errors),
        cmocka_unit_test(test_out_of_sample_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
