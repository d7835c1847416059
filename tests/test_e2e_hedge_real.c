/* tests/test_e2e_hedge_real.c -- `gpuidx hedge` on rent histories built
 * from the real SkyPilot catalogue (../shared/data/real; skipped when
 * absent), as a new user would: the T4/A100/H100/V100 offers (every raw
 * name of those models; of T4 and V100 the spot ones, all that the grades
 * and rents read) since
 * 2022-11 ingested into a scratch database, shipped-style grades plus an
 * AWS-only T4 spot grade built, and two rents taken from one provider's
 * prices (AWS g4dn.xlarge T4 spot in use1-az1; p4d.24xlarge A100 spot in
 * usw2-az1, per GPU).
 *
 * What a risk manager must be told, pinned as properties rather than
 * figures (the index methodology may move the values):
 *  - A100 spot renter: no grade here hedges this rent.  Before hedge v2,
 *    H100.OD fitted on 3 changes (R² 0.750) ranked first and grades with
 *    a negative h ranked above A100.SPOT; now a grade with fewer than 12
 *    changes or h <= 0 is listed, not ranked, and the verdict says no.
 *  - T4 renter replayed on T4.SPOT.AWS with the auto ratio: the first
 *    fitted h was 2.298 on 3 changes and later fits were negative (-0.47
 *    .. -0.33), which made a "payer buys" replay sell.  Now months with
 *    fewer than 12 changes use h = 1, negative fits are not hedged, and
 *    no contract is ever sold by a payer.
 *  - T4 renter, compare --suggest (issue #11 item 5): no shipped-style
 *    grade hedges this rent (best R² 0.13, a different GPU; T4.SPOT
 *    0.008), but an index of g4dn.xlarge spot in us-east-1 built from
 *    the stored observations removes 80 % (v2): the verdict says so, says
 *    it is not published and one provider's price, and nothing is
 *    written.  The same description as header fields of the rent file
 *    gives the same answer.
 *  - A100 renter, compare --suggest: nothing built around it hedges
 *    either (best R² 0.20): the verdict says no, and says both.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char grades_json[] =
    "{\"grades\": ["
    "{\"id\": \"T4.SPOT\", \"gpu\": [\"T4\"], \"term\": \"spot\"},"
    "{\"id\": \"T4.SPOT.AWS\", \"gpu\": [\"T4\"], \"term\": \"spot\", \"providers\": [\"aws\"],"
    " \"min_providers\": 1},"
    "{\"id\": \"A100.SPOT\", \"gpu\": [\"A100-SXM-80GB\", \"A100-SXM-40GB\"], \"term\": \"spot\"},"
    "{\"id\": \"A100.OD\", \"gpu\": [\"A100-SXM-80GB\", \"A100-SXM-40GB\"]},"
    "{\"id\": \"V100.SPOT\", \"gpu\": [\"V100-16GB\", \"V100-32GB\"], \"term\": \"spot\"},"
    "{\"id\": \"H100.OD\", \"gpu\": [\"H100-SXM-80GB\"]}]}";

static void test_real_rents(void **state)
{
    (void)state;
    const char *real = tu_real_data();
    if (!real) {
        skip();
        return;
    }
    char *tmp = tu_mkdtemp("e2e-hedge-real");
    /* the T4 and V100 offers of other terms than spot (some 440,000 of
     * 1,000,000 rows) are left out: no grade and no rent here reads them
     * (checked when they were: every hedge output below and `index show`
     * byte-identical with and without them) */
    tu_run r = tu_sh(tmp, "zcat '%s/skypilot_offers_canonical.csv.gz' | awk -F, 'NR == 1 || "
                          "($7 ~ /^(T4|A100|H100|V100)/ && $7 != \"T4g\" && $3 >= \"2022-11-01\" "
                          "&& !($7 ~ /^(T4|V100)/ && $14 != \"spot\"))' "
                          "> obs.csv && "
                          "awk -F, 'BEGIN { print \"date,price,quantity\" } "
                          "$2 == \"g4dn.xlarge@use1-az1/1x/spot\" { print $3 \",\" $10 \",240\" }' "
                          "obs.csv > rent_t4.csv && "
                          "awk -F, 'BEGIN { print \"date,price,quantity\" } "
                          "$2 == \"p4d.24xlarge@usw2-az1/8x/spot\" "
                          "{ printf \"%%s,%%.6f,192\\n\", $3, $10 / 8 }' obs.csv > rent_a100.csv",
                     real);
    if (r.status != 0) fail_msg("extract: %s", r.err);
    tu_run_free(&r);
    free(tu_write(tmp, "g.json", grades_json));
    r = tu_gpuidx(tmp, "--db r.db ingest obs.csv");
    if (r.status != 0 && r.status != 1) fail_msg("ingest: exit %d: %s", r.status, r.err);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db r.db index build --grades g.json --from 2022-11-01 --to 2024-04-23");
    if (r.status != 0) fail_msg("build: %s", r.err);
    tu_run_free(&r);

    /* the A100 spot renter */
    r = tu_gpuidx(tmp, "--db r.db hedge compare --rent rent_a100.csv --grades g.json --gpu A100 --json");
    if (r.status != 0) fail_msg("compare: %s", r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *gs = json_object_get(j, "grades"), *g;
    size_t i;
    int seen_h100 = 0, ranked = 0;
    json_array_foreach(gs, i, g) {
        const char *id = json_string_value(json_object_get(g, "grade"));
        json_t *rank = json_object_get(g, "rank");
        if (strcmp(id, "H100.OD") == 0) {
            seen_h100 = 1;
            assert_true(json_is_null(rank));
            assert_true(json_integer_value(json_object_get(g, "n_changes")) < 12);
            assert_true(json_is_false(json_object_get(g, "same_gpu")));
        }
        if (json_is_integer(rank)) {
            ranked++;
            assert_int_equal(json_integer_value(rank), ranked); /* ranked ones come first */
            assert_true(json_number_value(json_object_get(g, "h")) > 0);
            assert_true(json_integer_value(json_object_get(g, "n_changes")) >= 12);
        }
        if (strncmp(id, "A100", 4) == 0)
            assert_true(json_is_true(json_object_get(g, "same_gpu")));
    }
    assert_true(seen_h100);
    json_t *v = json_object_get(j, "verdict");
    assert_true(json_is_false(json_object_get(v, "hedges")));
    const char *text = json_string_value(json_object_get(v, "text"));
    if (strncmp(text, "no grade here hedges this rent: best R² ", 40) != 0)
        fail_msg("verdict: %s", text);
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db r.db hedge compare --rent rent_a100.csv --grades g.json --gpu A100");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "not ranked: 3 changes (need 12)"));
    assert_non_null(strstr(r.out, "warnings:\n"));
    assert_non_null(strstr(r.out, "  H100.OD: only 4 periods (fewer than 12): the estimates are "
                                  "unreliable\n"));
    assert_non_null(strstr(r.out, "\nverdict: no grade here hedges this rent: "));
    tu_run_free(&r);

    /* the T4 renter, auto ratio on the AWS-only T4 spot grade */
    r = tu_gpuidx(tmp, "--db r.db hedge simulate --rent rent_t4.csv --grade T4.SPOT.AWS --size 100 "
                       "--json");
    if (r.status != 0) fail_msg("simulate: %s", r.err);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    size_t fallback = 0, negative = 0, done = 0;
    json_array_foreach(json_object_get(j, "months"), i, g) {
        if (json_is_true(json_object_get(g, "skipped"))) continue;
        done++;
        const char *rule = json_string_value(json_object_get(g, "h_rule"));
        json_int_t n = json_integer_value(json_object_get(g, "h_changes"));
        json_t *fit = json_object_get(g, "h_fit");
        double h = json_number_value(json_object_get(g, "h"));
        assert_true(json_integer_value(json_object_get(g, "contracts")) >= 0); /* never a sale */
        if (n < 12) {
            assert_string_equal(rule, "fallback_1");
            assert_true(h == 1.0);
            fallback++;
        } else if (json_is_number(fit) && json_number_value(fit) <= 0) {
            assert_string_equal(rule, "negative_not_hedged");
            assert_int_equal(json_integer_value(json_object_get(g, "contracts")), 0);
            negative++;
        }
    }
    assert_true(done >= 12);
    assert_true(fallback >= 11);
    if (negative == 0) fail_msg("no month with a negative fit: the real case this test guards is gone");
    json_decref(j);
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db r.db hedge simulate --rent rent_t4.csv --grade T4.SPOT.AWS --size 100");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "month(s) NOT hedged: the fitted h was negative"));
    assert_non_null(strstr(r.out, "budget error = effective cost - price locked at entry"));
    tu_run_free(&r);

    /* the T4 renter: grades built around the rent */
    tu_run sum0 = tu_sh(tmp, "sha256sum r.db; ls -A");
    r = tu_gpuidx(tmp, "--db r.db hedge compare --rent rent_t4.csv --grades g.json --suggest --gpu T4 "
                       "--term spot --scope vm --provider aws --region us-east-1 --instance-type "
                       "g4dn.xlarge --json");
    if (r.status != 0) fail_msg("compare --suggest: %s", r.err);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    double best_pub = -1, sug_he = -1;
    json_t *first = json_array_get(json_object_get(j, "grades"), 0);
    json_array_foreach(json_object_get(j, "grades"), i, g) {
        json_t *he = json_object_get(g, "he");
        if (!json_is_number(he)) continue;
        if (json_is_false(json_object_get(g, "suggested")) &&
            json_is_integer(json_object_get(g, "rank")) && json_number_value(he) > best_pub)
            best_pub = json_number_value(he);
        if (strcmp(json_string_value(json_object_get(g, "grade")),
                   "sug-T4.spot.vm.us-east-1.g4dn.xlarge") == 0)
            sug_he = json_number_value(he);
    }
    if (!(best_pub >= 0 && best_pub < 0.2)) fail_msg("best published he %g", best_pub);
    if (!(sug_he >= 0.6)) fail_msg("g4dn.xlarge in us-east-1: he %g", sug_he);
    assert_true(json_is_true(json_object_get(first, "suggested")));
    assert_non_null(strstr(json_string_value(json_object_get(first, "what")),
                           "instance type g4dn.xlarge"));
    assert_true(json_number_value(json_object_get(first, "h")) > 0);
    v = json_object_get(j, "verdict");
    assert_true(json_is_true(json_object_get(v, "hedges")));
    assert_true(json_is_true(json_object_get(v, "suggested")));
    text = json_string_value(json_object_get(v, "text"));
    if (strncmp(text, "no published grade here hedges this rent: ", 42) != 0 ||
        !strstr(text, "; one built around it would: sug-T4.spot.vm.") ||
        !strstr(text, "instance type g4dn.xlarge) removes ") ||
        !strstr(text, "it is one provider's price"))
        fail_msg("verdict: %s", text);
    json_decref(j);
    tu_run sum1 = tu_sh(tmp, "sha256sum r.db; ls -A");
    assert_string_equal(sum1.out, sum0.out); /* nothing written */
    tu_run_free(&sum0);
    tu_run_free(&sum1);
    char *json_opts = strdup(r.out);
    tu_run_free(&r);
    r = tu_sh(tmp, "{ printf '# gpu: T4\n# term: spot\n# scope: vm\n# provider: aws\n# region: "
                   "us-east-1\n# instance_type: g4dn.xlarge\n'; cat rent_t4.csv; } > rent_t4h.csv");
    tu_run_free(&r);
    r = tu_gpuidx(tmp, "--db r.db hedge compare --rent rent_t4h.csv --grades g.json --suggest --json");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, json_opts);
    free(json_opts);
    tu_run_free(&r);

    /* the A100 renter: nothing built around it hedges either */
    r = tu_gpuidx(tmp, "--db r.db hedge compare --rent rent_a100.csv --grades g.json --suggest --gpu A100 "
                       "--term spot --scope vm --provider aws --region us-west-2 --instance-type "
                       "p4d.24xlarge");
    assert_int_equal(r.status, 0);
    const char *vl = strstr(r.out, "\nverdict: ");
    assert_non_null(vl);
    if (strncmp(vl, "\nverdict: no grade here hedges this rent: ", 42) != 0 ||
        !strstr(vl, "; nor would a grade built around it (best R² "))
        fail_msg("A100 verdict: %s", vl);
    tu_run_free(&r);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_rents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
