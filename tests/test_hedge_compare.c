/* tests/test_hedge_compare.c -- hedge/compare.c: ranking hedges (not fits),
 * the GPU flag and the verdict line, on hand-made analyses (the
 * statistics themselves are tests/test_hedge.c's; the real catalogue is
 * tests/test_e2e_hedge.c's).  The cases replay what a new user saw: an
 * H100 grade fitted on 3 changes (R² 0.997) ranked first for an A100
 * renter, and grades with a negative h ranked above real hedges; and the
 * grades hedge/suggest.c builds around a rent (compare --suggest). */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hedge/hedge.h"

/* One grade: changes, h, effectiveness and its interval, basis sd, gpu. */
static hedge_rank mk(const char *id, int ok, size_t n_changes, double h, double he, double lo,
                     double hi, double bsd, int gpu_match)
{
    hedge_rank r;
    memset(&r, 0, sizeof r);
    snprintf(r.grade, sizeof r.grade, "%s", id);
    r.ok = ok;
    if (!ok) snprintf(r.reason, sizeof r.reason, "grade %s: no month has both rent and an index value", id);
    r.a.n_changes = n_changes;
    r.a.n = n_changes + 1;
    r.a.chg.ok = isfinite(h);
    r.a.chg.b = h;
    r.a.chg.r2 = he;
    r.a.he = he;
    r.a.he_lo = lo;
    r.a.he_hi = hi;
    r.a.basis.sd = bsd;
    r.gpu_match = gpu_match;
    return r;
}

static void test_gpu_match(void **state)
{
    (void)state;
    static const struct {
        const char *gpu, *list;
        int want;
    } cases[] = {
        {"A100", "A100-SXM-80GB, A100-SXM-40GB", 1}, /* a family names its models */
        {"a100-sxm-80gb", "A100-SXM-80GB", 1},       /* case */
        {"A100 SXM 80GB", "A100-SXM-80GB", 1},       /* spaces and dashes */
        {"A100-SXM-80GB", "A100-SXM-40GB", 0},
        {"T4", "T4G", 0},                            /* not a prefix match */
        {"T4", "V100-16GB, T4", 1},
        {"H100", "A100-SXM-80GB", 0},
        {"A10", "A100-SXM-80GB", 0},
        {"T4", "", -1},
        {NULL, "T4", -1},
        {"", "T4", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = hedge_gpu_match(cases[i].gpu, cases[i].list);
        if (got != cases[i].want)
            fail_msg("case %zu (%s in %s): got %d, want %d", i, cases[i].gpu ? cases[i].gpu : "NULL",
                     cases[i].list, got, cases[i].want);
    }
}

static void test_rank_hedges_not_fits(void **state)
{
    (void)state;
    hedge_rank r[7] = {
        mk("H100.OD", 1, 3, 0.072, 0.997, NAN, NAN, 1.58, 0),  /* 3 changes */
        mk("V100.OD", 1, 16, -1.435, 0.192, 0.0, 0.59, 0.50, 0), /* negative h */
        mk("NODATA", 0, 0, NAN, NAN, NAN, NAN, NAN, -1),
        mk("A100.SPOT", 1, 16, 0.235, 0.009, 0.0, 0.32, 0.43, 1),
        mk("SHORT", 1, 14, 0.9, 0.62, 0.15, 0.86, 0.02, 1),    /* better fit, short */
        mk("LONG", 1, 60, 0.9, 0.58, 0.39, 0.73, 0.03, 1),     /* sure of more */
        mk("FLAT", 1, 20, NAN, NAN, NAN, NAN, 0.01, 1),        /* index never moved */
    };
    hedge_rank_sort(r, 7, 0);
    static const char *const order[7] = {"LONG", "SHORT", "A100.SPOT", "H100.OD", "V100.OD", "FLAT",
                                         "NODATA"};
    static const int ranked[7] = {1, 1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 7; i++) {
        assert_string_equal(r[i].grade, order[i]);
        assert_int_equal(r[i].ranked, ranked[i]);
    }
    assert_string_equal(r[3].why, "3 changes (need 12)");
    assert_string_equal(r[4].why, "h -1.435 <= 0: the grade moves against your rent");
    assert_string_equal(r[5].why, "no hedge ratio (the rent or the index never moved)");
    assert_string_equal(r[6].why, "");
    /* a lower minimum ranks the 3-change fit, still below the sure ones
     * (its interval is unknown: NaN sorts last) */
    hedge_rank_sort(r, 7, 3);
    assert_string_equal(r[3].grade, "H100.OD");
    assert_int_equal(r[3].ranked, 1);

    hedge_verdict v;
    hedge_rank_sort(r, 7, 0);
    hedge_compare_verdict(r, 7, HEDGE_MONTH, &v);
    assert_int_equal(v.hedges, 1);
    assert_int_equal(v.best, 0);
    assert_string_equal(v.text, "use LONG: removes 58% of your monthly rent-change variance (95% "
                                "interval 39%-73%) at h = 0.90, basis sd 0.0300 USD/GPU-hour; a "
                                "partial hedge (below the 80% of hedge accounting)");
}

static void test_verdicts(void **state)
{
    (void)state;
    hedge_verdict v;
    /* the A100 spot renter on shipped-style grades: the best hedge is a
     * V100 grade that removes 18 % -- no hedge */
    hedge_rank a[3] = {
        mk("H100.OD", 1, 3, 0.072, 0.750, NAN, NAN, 1.58, 0),
        mk("V100.SPOT", 1, 16, 5.238, 0.183, 0.0, 0.58, 0.50, 0),
        mk("A100.SPOT", 1, 16, 0.235, 0.009, 0.0, 0.32, 0.43, 1),
    };
    hedge_rank_sort(a, 3, 0);
    hedge_compare_verdict(a, 3, HEDGE_MONTH, &v);
    assert_int_equal(v.hedges, 0);
    assert_string_equal(v.text, "no grade here hedges this rent: best R² 0.18 (V100.SPOT, a different "
                                "GPU), below the 0.50 a hedge needs to remove half of the monthly "
                                "rent-change variance");
    /* a good hedge of another GPU says so; one above 0.80 is not partial */
    hedge_rank b[1] = {mk("H100.OD", 1, 50, 1.05, 0.86, 0.77, 0.92, 0.0412, 0)};
    hedge_rank_sort(b, 1, 0);
    hedge_compare_verdict(b, 1, HEDGE_WEEK, &v);
    assert_int_equal(v.hedges, 1);
    assert_string_equal(v.text, "use H100.OD: removes 86% of your weekly rent-change variance (95% "
                                "interval 77%-92%) at h = 1.05, basis sd 0.0412 USD/GPU-hour; a "
                                "different GPU, so its price can part from your rent's");
    /* nothing rankable: say what the best fit was and why it is no hedge */
    hedge_rank c[2] = {
        mk("H100.OD", 1, 3, 0.072, 0.997, NAN, NAN, 1.58, 0),
        mk("V100.OD", 1, 16, -1.4, 0.19, 0.0, 0.59, 0.50, 0),
    };
    hedge_rank_sort(c, 2, 0);
    hedge_compare_verdict(c, 2, HEDGE_MONTH, &v);
    assert_int_equal(v.hedges, 0);
    assert_int_equal(v.best, -1);
    assert_string_equal(v.text, "no grade here hedges this rent: none has the changes and a positive "
                                "ratio a hedge needs (best R² 0.997, H100.OD: 3 changes (need 12))");
    hedge_rank z[1] = {mk("NODATA", 0, 0, NAN, NAN, NAN, NAN, NAN, -1)};
    hedge_rank_sort(z, 1, 0);
    hedge_compare_verdict(z, 1, HEDGE_MONTH, &v);
    assert_string_equal(v.text,
                        "no grade here hedges this rent: none has a hedge ratio on this history");
}

static hedge_rank mks(const char *id, size_t n_changes, double h, double he, double lo,
                      double hi, double bsd, const char *what, int providers)
{
    hedge_rank r = mk(id, 1, n_changes, h, he, lo, hi, bsd, 1);
    r.suggested = 1;
    snprintf(r.what, sizeof r.what, "%s", what);
    r.providers = providers;
    return r;
}

/* The T4 spot renter of the real catalogue (tests/test_e2e_hedge_real.c):
 * the published grades track its rent at R² 0.13 at best, an index of its
 * instance type in its region at 0.80. */
static void test_verdicts_with_suggestions(void **state)
{
    (void)state;
    hedge_verdict v;
    hedge_rank a[4] = {
        mk("A100.SPOT", 1, 16, 0.044, 0.132, 0.0, 0.53, 0.2717, 0),
        mk("T4.SPOT", 1, 16, 0.032, 0.008, 0.0, 0.31, 0.1273, 1),
        mks("sug-T4.spot.vm.us-east-1.g4dn.xlarge", 16, 1.299, 0.797, 0.51, 0.93, 0.0073,
            "T4 spot, vm, in us-east-1, instance type g4dn.xlarge", 1),
        mks("sug-T4.spot", 16, 0.036, 0.012, 0.0, 0.33, 0.1325, "T4 spot", 3),
    };
    hedge_rank_sort(a, 4, 0);
    assert_string_equal(a[0].grade, "sug-T4.spot.vm.us-east-1.g4dn.xlarge");
    hedge_compare_verdict(a, 4, HEDGE_MONTH, &v);
    assert_int_equal(v.hedges, 1);
    assert_int_equal(v.suggested, 1);
    assert_int_equal(v.best, 0);
    assert_string_equal(v.text,
                        "no published grade here hedges this rent: best R² 0.13 (A100.SPOT, a "
                        "different GPU), below the 0.50 a hedge needs to remove half of the "
                        "monthly rent-change variance; one built around it would: "
                        "sug-T4.spot.vm.us-east-1.g4dn.xlarge (T4 spot, vm, in us-east-1, "
                        "instance type g4dn.xlarge) removes 80% of your monthly rent-change "
                        "variance (95% interval 51%-93%) at h = 1.30, basis sd 0.0073 "
                        "USD/GPU-hour -- it is not published, so no futures settle on it yet: ask "
                        "an exchange to list it, or hedge with a swap on it; it is one provider's "
                        "price, which that provider alone sets");
    /* a published grade that hedges is recommended, and a better
     * suggestion is named after it */
    hedge_rank b[2] = {
        mk("T4.SPOT", 1, 40, 0.9, 0.62, 0.40, 0.78, 0.02, 1),
        mks("sug-T4.spot.vm", 40, 1.0, 0.90, 0.82, 0.95, 0.01, "T4 spot, vm", 4),
    };
    hedge_rank_sort(b, 2, 0);
    hedge_compare_verdict(b, 2, HEDGE_MONTH, &v);
    assert_int_equal(v.hedges, 1);
    assert_int_equal(v.suggested, 0);
    assert_string_equal(b[v.best].grade, "T4.SPOT");
    assert_string_equal(v.text, "use T4.SPOT: removes 62% of your monthly rent-change variance "
                                "(95% interval 40%-78%) at h = 0.90, basis sd 0.0200 USD/GPU-hour; "
                                "a partial hedge (below the 80% of hedge accounting); a grade "
                                "built around your rent would remove 90% (sug-T4.spot.vm, not "
                                "published)");
    /* neither: say both */
    hedge_rank c[2] = {
        mk("T4.SPOT", 1, 16, 0.032, 0.008, 0.0, 0.31, 0.1273, 1),
        mks("sug-T4.spot.vm", 16, 0.3, 0.21, 0.0, 0.6, 0.05, "T4 spot, vm", 3),
    };
    hedge_rank_sort(c, 2, 0);
    hedge_compare_verdict(c, 2, HEDGE_MONTH, &v);
    assert_int_equal(v.hedges, 0);
    assert_int_equal(v.best, -1);
    assert_string_equal(v.text, "no grade here hedges this rent: best R² 0.01 (T4.SPOT), below "
                                "the 0.50 a hedge needs to remove half of the monthly rent-change "
                                "variance; nor would a grade built around it (best R² 0.21, "
                                "sug-T4.spot.vm)");
    /* suggestions only (--suggest without grades) */
    hedge_rank e[1] = {mks("sug-T4.spot.vm", 16, 1.0, 0.7, 0.3, 0.9, 0.01, "T4 spot, vm", 3)};
    hedge_rank_sort(e, 1, 0);
    hedge_compare_verdict(e, 1, HEDGE_WEEK, &v);
    assert_int_equal(v.suggested, 1);
    assert_non_null(strstr(v.text, "no published grade was compared; one built around it would: "
                                   "sug-T4.spot.vm (T4 spot, vm) removes 70% of your weekly"));
    assert_null(strstr(v.text, "one provider's price"));
    hedge_rank z[2] = {mk("NODATA", 0, 0, NAN, NAN, NAN, NAN, NAN, -1),
                       mks("sug-X", 3, 1.0, 0.99, NAN, NAN, 0.01, "X", 1)};
    hedge_rank_sort(z, 2, 0);
    hedge_compare_verdict(z, 2, HEDGE_MONTH, &v);
    assert_string_equal(v.text, "no grade here hedges this rent: no published grade has values for "
                                "this rent; nor would a grade built around it (best R² 0.99, "
                                "sug-X)");
}

/* Which candidates a rent's description gives, their ids, words and
 * definitions (validated by the index's parser in tests/test_e2e_hedge_
 * suggest.c). */
static void test_suggest_ladder(void **state)
{
    (void)state;
    hedge_rent_info in;
    memset(&in, 0, sizeof in);
    strcpy(in.gpu, "T4");
    strcpy(in.term, "spot");
    strcpy(in.scope, "vm");
    strcpy(in.provider, "aws");
    strcpy(in.region, "us-east-1");
    strcpy(in.sku, "g4dn.xlarge");
    const char *gpus[1] = {"T4"};
    hedge_suggestion s;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_suggest(&in, gpus, 1, &s, &d), GPI_OK);
    static const struct {
        const char *id, *what;
        int one;
    } want[] = {
        {"sug-T4.spot", "T4 spot", 0},
        {"sug-T4.spot.vm", "T4 spot, vm", 0},
        {"sug-T4.spot.vm.aws", "T4 spot, vm, at aws", 1},
        {"sug-T4.spot.vm.us-east-1", "T4 spot, vm, in us-east-1", 1},
        {"sug-T4.spot.vm.us-east-1.g4dn.xlarge",
         "T4 spot, vm, in us-east-1, instance type g4dn.xlarge", 1},
        {"sug-T4.spot.vm.g4dn.xlarge", "T4 spot, vm, instance type g4dn.xlarge, every region", 1},
        {"sug-T4.spot.vm.not-aws", "T4 spot, vm, every provider but aws", 0},
    };
    assert_int_equal(s.n, 7);
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(s.c[i].id, want[i].id);
        assert_string_equal(s.c[i].what, want[i].what);
        assert_int_equal(s.c[i].one_provider, want[i].one);
    }
    json_error_t e;
    json_t *j = json_loads(s.grades_json, 0, &e);
    assert_non_null(j);
    json_t *g4 = json_array_get(json_object_get(j, "grades"), 4);
    char *c4 = json_dumps(g4, JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(c4, "{\"gpu\":[\"T4\"],\"id\":\"sug-T4.spot.vm.us-east-1.g4dn.xlarge\","
                            "\"method\":\"v2\",\"min_providers\":1,\"min_tier\":\"unrated\","
                            "\"regions\":[\"us-east-1\"],\"scope\":[\"vm\"],\"skus\":"
                            "[\"g4dn.xlarge\"],\"term\":\"spot\"}");
    free(c4);
    char *c6 = json_dumps(json_array_get(json_object_get(j, "grades"), 6),
                          JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(c6, "{\"exclude_providers\":[\"aws\"],\"gpu\":[\"T4\"],\"id\":"
                            "\"sug-T4.spot.vm.not-aws\",\"method\":\"v2\",\"min_tier\":"
                            "\"unrated\",\"scope\":[\"vm\"],\"term\":\"spot\"}");
    free(c6);
    json_decref(j);
    hedge_suggestion_free(&s);

    /* only a GPU family: one candidate, on-demand, every model named;
     * odd characters in names become '-' in ids, which stay unique */
    memset(&in, 0, sizeof in);
    strcpy(in.gpu, "A100");
    const char *fam[2] = {"A100-SXM-40GB", "A100-SXM-80GB"};
    assert_int_equal(hedge_suggest(&in, fam, 2, &s, &d), GPI_OK);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.c[0].id, "sug-A100.on-demand");
    assert_string_equal(s.c[0].what, "A100 on-demand");
    assert_non_null(strstr(s.grades_json, "\"A100-SXM-40GB\""));
    assert_non_null(strstr(s.grades_json, "\"A100-SXM-80GB\""));
    hedge_suggestion_free(&s);
    memset(&in, 0, sizeof in);
    strcpy(in.gpu, "H100");
    strcpy(in.term, "reserved:1-3");
    strcpy(in.region, "eu west/1");
    strcpy(in.sku, "8x H100 (SXM)");
    assert_int_equal(hedge_suggest(&in, fam, 1, &s, &d), GPI_OK);
    assert_int_equal(s.n, 4); /* no scope: GPU, + region, + region & sku, + sku */
    assert_string_equal(s.c[1].id, "sug-H100.reserved-1-3.eu-west-1");
    assert_string_equal(s.c[2].id, "sug-H100.reserved-1-3.eu-west-1.8x-H100--SXM-");
    assert_string_equal(s.c[3].id, "sug-H100.reserved-1-3.8x-H100--SXM-");
    hedge_suggestion_free(&s);
    /* long names: ids cut to 64 bytes and made unique */
    memset(&in, 0, sizeof in);
    strcpy(in.gpu, "T4");
    memset(in.region, 'r', 60);
    memset(in.sku, 's', 60);
    assert_int_equal(hedge_suggest(&in, gpus, 1, &s, &d), GPI_OK);
    assert_int_equal(s.n, 4);
    for (size_t i = 0; i < s.n; i++) {
        assert_true(strlen(s.c[i].id) <= 64);
        for (size_t k = 0; k < i; k++) assert_string_not_equal(s.c[i].id, s.c[k].id);
    }
    hedge_suggestion_free(&s);
    /* no GPU: a usage error */
    memset(&in, 0, sizeof in);
    assert_int_equal(hedge_suggest(&in, gpus, 1, &s, &d), GPI_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_match),
        cmocka_unit_test(test_rank_hedges_not_fits),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_verdicts_with_suggestions),
        cmocka_unit_test(test_suggest_ladder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
