/* tests/test_hedge_compare.c -- hedge/compare.c: ranking hedges (not fits),
 * the GPU flag and the verdict line, on hand-made analyses (the
 * statistics themselves are tests/test_hedge.c's; the real catalogue is
 * tests/test_e2e_hedge.c's).  The cases replay what a new user saw: an
 * H100 grade fitted on 3 changes (R² 0.997) ranked first for an A100
 * renter, and grades with a negative h ranked above real hedges. */
#include "tests/testutil.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_match),
        cmocka_unit_test(test_rank_hedges_not_fits),
        cmocka_unit_test(test_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
