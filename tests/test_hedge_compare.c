/* tests/test_hedge_compare.c -- hedge/compare.c and hedge/verdict.c:
 * ranking hedges (not fits), the GPU flag, the renter's own quotes, and
 * the verdict's sentences, on hand-made analyses (the statistics
 * themselves are tests/test_hedge.c's; the real catalogue's six renters
 * are tests/test_e2e_hedge_real.c's).  The cases replay what users saw:
 * an H100 grade fitted on 3 changes ranked first for an A100 renter;
 * grades with a negative h ranked above real hedges; an exact fit (HE
 * 1.000) ranked below HE 0.01 for want of an interval; HE 0.000 shown as
 * rank 1; "no grade has values" said of a rent that never changed; a
 * "best R²" quoted of another GPU with a negative h; a grade that is the
 * renter's own zone recommended as a hedge; a grade whose walk-forward
 * ADDED 57 % to the variance told a producer it "would" remove 77 %
 * (it fits in sample only: not ranked, never recommended); a grade given
 * that was never published called "published" (a candidate).
 *
 * The verdict's sentences (HEDGE_S_*) are one table, test_verdict_
 * sentences: every sentence has rows, and a row's text is pinned whole.
 */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hedge/hedge.h"

/* One grade: changes, h, effectiveness and its interval, basis sd, gpu.
 * The rent and the index moved on every change; a published grade; out
 * of sample (walk-forward, from the 7th change on) it removes what it
 * removes in sample (none with fewer than 8 changes); no break test, own
 * quotes not measured. */
static hedge_rank mk(const char *id, int ok, size_t n_changes, double h, double he, double lo,
                     double hi, double bsd, int gpu_match)
{
    hedge_rank r;
    memset(&r, 0, sizeof r);
    snprintf(r.grade, sizeof r.grade, "%s", id);
    r.ok = ok;
    if (!ok) snprintf(r.reason, sizeof r.reason, "grade %s: no month has both rent and an index value", id);
    r.a.freq = HEDGE_MONTH;
    r.a.n_changes = n_changes;
    r.a.n = n_changes + 1;
    r.a.rent_moves = r.a.index_moves = n_changes;
    r.a.chg.ok = isfinite(h);
    r.a.chg.b = h;
    r.a.chg.r2 = he;
    r.a.he = he;
    r.a.he_lo = lo;
    r.a.he_hi = hi;
    r.a.basis.sd = bsd;
    r.a.oos.train = HEDGE_WF_MIN_TRAIN;
    r.a.oos.n = n_changes >= HEDGE_WF_MIN_TRAIN + 2 ? n_changes - HEDGE_WF_MIN_TRAIN : 0;
    r.a.oos.he = r.a.oos.n ? he : NAN;
    r.published = 1;
    r.gpu_match = gpu_match;
    r.rent_price_changes = 50;
    return r;
}

static hedge_rank mks(const char *id, size_t n_changes, double h, double he, double lo,
                      double hi, double bsd, const char *what, int providers)
{
    hedge_rank r = mk(id, 1, n_changes, h, he, lo, hi, bsd, 1);
    r.suggested = 1;
    r.published = 0;
    snprintf(r.what, sizeof r.what, "%s", what);
    r.providers = providers;
    return r;
}

/* The grade's values hold the renter's own quotes, which supply `share`
 * of its fix; without them (the twin) HE `he_without`. */
static hedge_rank own_in(hedge_rank r, double share, long median, long days, double he_without,
                         double h_without)
{
    r.own_known = r.own_in = 1;
    r.own_share = share;
    r.own_median_days = median;
    r.own_days = days;
    r.twin_ok = 1;
    r.t.n_changes = r.a.n_changes;
    r.t.he = he_without;
    r.t.chg.b = h_without;
    r.t.oos.he = NAN;
    return r;
}

/* A suggestion that leaves them out: with them (twin `twin_id`) HE
 * he_with, and they supply `share` of it. */
static hedge_rank own_out(hedge_rank r, const char *twin_id, double share, long median, long days,
                          double he_with, double h_with)
{
    r.own_known = 1;
    r.own_in = 0;
    r.own_share = share;
    r.own_median_days = median;
    r.own_days = days;
    r.twin_ok = 1;
    snprintf(r.twin_grade, sizeof r.twin_grade, "%s", twin_id);
    r.t.n_changes = r.a.n_changes;
    r.t.he = he_with;
    r.t.chg.b = h_with;
    r.t.oos.he = NAN;
    return r;
}

static hedge_rent_summary rent_moving(void)
{
    hedge_rent_summary rs;
    memset(&rs, 0, sizeof rs);
    rs.freq = HEDGE_MONTH;
    rs.periods = 17;
    rs.changes = 16;
    rs.moves = 300;
    rs.first = gpi_days_from_civil(2022, 12, 1);
    rs.last = gpi_days_from_civil(2024, 4, 1);
    return rs;
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
    hedge_rank r[13] = {
        mk("H100.OD", 1, 3, 0.072, 0.997, NAN, NAN, 1.58, 0),  /* 3 changes */
        mk("V100.OD", 1, 16, -1.435, 0.192, 0.0, 0.59, 0.50, 0), /* negative h */
        mk("NODATA", 0, 0, NAN, NAN, NAN, NAN, NAN, -1),
        mk("A100.SPOT", 1, 16, 0.235, 0.019, 0.0, 0.32, 0.43, 1),
        mk("SHORT", 1, 14, 0.9, 0.62, 0.15, 0.86, 0.02, 1),    /* better fit, short */
        mk("LONG", 1, 60, 0.9, 0.58, 0.39, 0.73, 0.03, 1),     /* sure of more */
        mk("FLAT", 1, 20, NAN, NAN, NAN, NAN, 0.01, 1),        /* index never moved */
        mk("EXACT", 1, 14, 1.0, 1.0, 1.0, 1.0, 0.0, 1),        /* an exact fit */
        mk("ZERO", 1, 30, 0.01, 0.004, 0.0, 0.2, 0.1, 1),      /* HE 0.000 */
        own_in(mk("OWNZONE", 1, 16, 0.98, 0.949, 0.85, 0.98, 0.0147, 1), 0.77, 393, 509, 0.019,
               0.032),                                           /* circular */
        own_in(mk("PARTOWN", 1, 16, 0.5, 0.40, 0.05, 0.7, 0.05, 1), 0.2, 10, 509, 0.35, 0.45),
        mk("INSAMPLE", 1, 24, 1.4, 0.80, 0.60, 0.91, 0.01, 1), /* added variance out of sample */
        mk("LOWOOS", 1, 20, 0.8, 0.50, 0.13, 0.76, 0.02, 1),   /* removed under 1 % of it */
    };
    r[6].a.index_moves = 0;
    r[7].a.exact = 1;
    r[11].a.oos.he = -0.2;
    r[12].a.oos.he = 0.005;
    hedge_rank_sort(r, 13, 0);
    static const char *const order[13] = {"EXACT",   "LONG",     "SHORT",  "PARTOWN", "A100.SPOT",
                                          "H100.OD", "OWNZONE",  "INSAMPLE", "LOWOOS", "V100.OD",
                                          "ZERO",    "FLAT",     "NODATA"};
    static const int ranked[13] = {1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 13; i++) {
        if (strcmp(r[i].grade, order[i]) != 0) fail_msg("rank %d: %s, want %s", i, r[i].grade, order[i]);
        assert_int_equal(r[i].ranked, ranked[i]);
        assert_int_equal(r[i].in_sample_only, i == 7 || i == 8);
    }
    assert_string_equal(r[6].why, "largely your own price: your quotes supply 77% of its fix (half "
                                  "or more on 393 of 509 days); without them HE 0.019 at h = 0.032");
    assert_true(r[6].circular);
    assert_false(r[3].circular);
    assert_string_equal(r[5].why, "3 changes (need 12)");
    assert_string_equal(r[7].why, "fits in sample only: out of sample (each month hedged at the h "
                                  "fitted on the months before it, 18 months) it ADDED 20% to the "
                                  "variance");
    assert_string_equal(r[8].why, "fits in sample only: out of sample (each month hedged at the h "
                                  "fitted on the months before it, 14 months) it removed under 1% "
                                  "of the variance");
    assert_string_equal(r[9].why, "h -1.435 <= 0: the grade moves against your rent");
    assert_string_equal(r[10].why, "removes under 1% of your rent-change variance");
    assert_string_equal(r[11].why, "the index never changed over the 20 changes here");
    assert_string_equal(r[12].why, "");
    /* a lower minimum does not rank the 3-change fit: the walk-forward
     * cannot try it, so it fits in sample only */
    hedge_rank_sort(r, 13, 3);
    assert_string_equal(r[5].grade, "H100.OD");
    assert_int_equal(r[5].ranked, 0);
    assert_string_equal(r[5].why, "fits in sample only, untried out of sample: the walk-forward "
                                  "needs 6 changes to fit on and 2 more to hedge (has 3)");
    /* a rent that changed on two days only: nothing is ranked */
    for (int i = 0; i < 13; i++) r[i].rent_price_changes = 2;
    hedge_rank_sort(r, 13, 0);
    for (int i = 0; i < 13; i++) assert_int_equal(r[i].ranked, 0);
    assert_string_equal(r[0].why, "your rent's price changed on only 2 days (need 3)");
}

/* ---- the verdict's sentences ----------------------------------------------- */

typedef struct vcase {
    const char *name;
    unsigned kind;              /* the sentence the row is about */
    hedge_rank r[4];
    size_t n;
    hedge_rent_summary rs;
    hedge_freq freq;
    const char *gpu;            /* the rent's GPU, NULL unknown */
    int hedges, suggested;
    const char *best;           /* the recommended grade, NULL none */
    const char *text;
} vcase;

static void run_case(const vcase *c)
{
    hedge_rank r[4];
    memcpy(r, c->r, sizeof r);
    hedge_rank_sort(r, c->n, 0);
    hedge_compare_opts o = {c->freq, 0, 0, c->gpu};
    hedge_verdict v;
    hedge_compare_verdict(r, c->n, &o, &c->rs, &v);
    if (strcmp(v.text, c->text) != 0) fail_msg("%s:\n got  %s\n want %s", c->name, v.text, c->text);
    if (!(v.kinds & c->kind)) fail_msg("%s: kinds %#x lack %#x", c->name, v.kinds, c->kind);
    assert_int_equal(v.hedges, c->hedges);
    assert_int_equal(v.suggested, c->suggested);
    if (c->best) assert_string_equal(r[v.best].grade, c->best);
    else assert_int_equal(v.best, -1);
}

static void test_verdict_sentences(void **state)
{
    (void)state;
    hedge_rent_summary mv = rent_moving(), flat = mv, once = mv, twice = mv;
    flat.moves = 0;
    once.moves = 1;
    once.move_day[0] = gpi_days_from_civil(2024, 2, 5);
    once.move_from[0] = 1500000;
    once.move_to[0] = 1790000;
    twice.moves = 2;
    twice.move_day[0] = gpi_days_from_civil(2023, 6, 15);
    twice.move_from[0] = 2400000;
    twice.move_to[0] = 1990000;
    twice.move_day[1] = gpi_days_from_civil(2024, 2, 5);
    twice.move_from[1] = 1990000;
    twice.move_to[1] = 2490000;
    hedge_rank flat_idx = mk("H100.OD", 1, 16, NAN, NAN, NAN, NAN, 3.9, 1);
    flat_idx.a.index_moves = 0;
    hedge_rank flat_rent = mk("H100.OD", 1, 9, 0.0, NAN, NAN, NAN, 3.9, 1);
    flat_rent.a.rent_moves = 0;
    hedge_rank circ_sug = own_out(mks("sug-A100.spot.vm.us-east-1.not-own", 16, 0.032, 0.019, 0.0,
                                      0.35, 0.3868, "A100 spot, vm, in us-east-1, without your own "
                                      "quotes", 1),
                                  "sug-A100.spot.vm.us-east-1", 0.77, 393, 511, 0.949, 0.98);
    hedge_rank lambda_sug = own_out(mks("sug-A100.od.vm.lambda.not-own", 14, 1.0, 1.0, 1.0, 1.0,
                                        0.0, "A100 on-demand, vm, at lambda, without your own "
                                        "quotes", 1),
                                    "sug-A100.od.vm.lambda", 1.0, 424, 424, 1.0, 1.0);
    lambda_sug.a.exact = 1;
    hedge_rank broke = mk("T4.SPOT", 1, 40, 0.9, 0.82, 0.70, 0.90, 0.02, 1);
    broke.a.chow.ok = 1;
    broke.a.chow.p = 0.002;
    broke.a.chow.h_before = 0.1;
    broke.a.chow.h_after = 1.0;
    broke.a.chow.period = gpi_days_from_civil(2024, 2, 1);
    broke.a.oos.he = 0.61;
    hedge_rank oosfail = mks("sug-T4.spot.vm.us-east-1.g4dn.xlarge.not-own", 16, 1.379, 0.766,
                             0.45, 0.91, 0.0078, "T4 spot, vm, in us-east-1, instance type "
                             "g4dn.xlarge, without your own quotes", 1);
    oosfail.a.oos.he = -0.57;
    oosfail.a.oos.n = 10;
    /* a published grade whose walk-forward removed under 1 %, weekly */
    hedge_rank oos_pub = mk("H100.SPOT", 1, 36, 0.95, 0.82, 0.66, 0.91, 0.03, 1);
    oos_pub.a.freq = HEDGE_WEEK;
    oos_pub.a.oos.he = 0.004;
    /* one whose walk-forward could not be tried: the rent's changes did
     * not vary over the periods it hedges */
    hedge_rank oos_flat = mk("H100.OD", 1, 16, 0.9, 0.90, 0.7, 0.96, 0.03, 1);
    oos_flat.a.oos.he = NAN;
    /* grades given that are not in the published set */
    hedge_rank cand = mk("T4.SPOT", 1, 40, 0.9, 0.82, 0.70, 0.90, 0.02, 1);
    cand.published = 0;
    hedge_rank cand_neg = mk("T4.SPOT", 1, 16, -0.2, 0.1, 0.0, 0.5, 0.5, 1);
    cand_neg.published = 0;
    const vcase cases[] = {
        {"flat rent (the real p5 on-demand renter)", HEDGE_S_FLAT_RENT,
         {flat_rent, mks("sug-H100.od.vm.aws.not-own", 9, NAN, NAN, NAN, NAN, 0, "H100", 1)}, 2,
         flat, HEDGE_MONTH, "H100-SXM-80GB", 0, 0, NULL,
         "no rent risk in this period to hedge: your rent never changed over its 17 months "
         "(2022-12 .. 2024-04)"},
        {"flat rent, one period", HEDGE_S_FLAT_RENT, {flat_rent}, 1,
         {HEDGE_WEEK, 1, 0, 0, 19000, 19000, {0, 0}, {0, 0}, {0, 0}}, HEDGE_WEEK, NULL, 0, 0, NULL,
         "no rent risk in this period to hedge: your rent has no change between adjacent weeks "
         "(1 week, 2022-W01 .. 2022-W01)"},
        {"no overlap", HEDGE_S_NO_OVERLAP,
         {mk("B200.OD", 0, 0, NAN, NAN, NAN, NAN, NAN, 0), mk("H200.OD", 0, 0, NAN, NAN, NAN, NAN, NAN, 0)},
         2, mv, HEDGE_MONTH, "T4", 0, 0, NULL,
         "no grade here has index values in your rent's months (2022-12 .. 2024-04): there is "
         "nothing to compare it with"},
        {"rent changed once (the real Lambda A100-80 renter)", HEDGE_S_FEW_MOVES, {lambda_sug}, 1,
         once, HEDGE_MONTH, "A100-SXM-80GB", 0, 0, NULL,
         "your rent's price changed on only 1 day (2024-02-05: 1.50 to 1.79) from 2022-12 to "
         "2024-04: too few to tell a hedge from a coincidence, so no grade is ranked; "
         "sug-A100.od.vm.lambda (with your quotes) tracks your rent (it removes 100% of the "
         "monthly variance) and your own quotes supply 100% of its fix (they are the median on "
         "424 of 424 days); without them it still removes 100%: what is left is your provider's "
         "own price list, which that provider alone sets"},
        {"rent changed twice (the real Lambda H100 PCIe renter)", HEDGE_S_FEW_MOVES, {lambda_sug},
         1, twice, HEDGE_MONTH, "A100-SXM-80GB", 0, 0, NULL,
         "your rent's price changed on only 2 days (2023-06-15: 2.40 to 1.99; 2024-02-05: 1.99 to "
         "2.49) from 2022-12 to 2024-04: too few to tell a hedge from a coincidence, so no grade "
         "is ranked; sug-A100.od.vm.lambda (with your quotes) tracks your rent (it removes 100% of "
         "the monthly variance) and your own quotes supply 100% of its fix (they are the median on "
         "424 of 424 days); without them it still removes 100%: what is left is your provider's "
         "own price list, which that provider alone sets"},
        {"flat index", HEDGE_S_FLAT_INDEX, {flat_idx}, 1, mv, HEDGE_MONTH, "H100-SXM-80GB", 0, 0,
         NULL,
         "no grade here moved over your rent's months (2022-12 .. 2024-04): every index with "
         "values was flat, so none can hedge it"},
        {"too few changes", HEDGE_S_TOO_FEW,
         {mk("H100.OD", 1, 3, 0.072, 0.997, NAN, NAN, 1.58, 1), mk("A100.OD", 1, 10, 0.5, 0.6, 0.1, 0.8, 0.1, 0)},
         2, mv, HEDGE_MONTH, "H100", 0, 0, NULL,
         "no grade here has the 12 monthly changes a hedge ratio needs: the most is 10 (A100.OD)"},
        {"use a partial hedge", HEDGE_S_USE,
         {mk("LONG", 1, 60, 0.9, 0.58, 0.39, 0.73, 0.03, 1), mk("SHORT", 1, 14, 0.9, 0.62, 0.15, 0.86, 0.02, 1)},
         2, mv, HEDGE_MONTH, "T4", 1, 0, "LONG",
         "use LONG: removes 58% of your monthly rent-change variance (95% interval 39%-73%; out of "
         "sample 58%) at h "
         "= 0.90, basis sd 0.0300 USD/GPU-hour; a partial hedge (below the 80% of hedge "
         "accounting)"},
        {"use another GPU", HEDGE_S_USE, {mk("H100.OD", 1, 50, 1.05, 0.86, 0.77, 0.92, 0.0412, 0)},
         1, mv, HEDGE_WEEK, "A100", 1, 0, "H100.OD",
         "use H100.OD: removes 86% of your weekly rent-change variance (95% interval 77%-92%; out of "
         "sample 86%) at h "
         "= 1.05, basis sd 0.0412 USD/GPU-hour; a different GPU, so its price can part from your "
         "rent's"},
        {"suggest an exact fit", HEDGE_S_SUGGEST, {lambda_sug, mk("A100.OD", 1, 14, 0.2, 0.3, 0.0, 0.6, 0.3, 1)},
         2, mv, HEDGE_MONTH, "A100", 1, 1, "sug-A100.od.vm.lambda.not-own",
         "no published grade here hedges this rent: best R² 0.30 (A100.OD), below the 0.50 a "
         "hedge needs to remove half of the monthly rent-change variance; one built around it "
         "would: sug-A100.od.vm.lambda.not-own (A100 on-demand, vm, at lambda, without your own "
         "quotes) removes 100% of your monthly rent-change variance (an exact fit; out of sample "
         "100%) at h = 1.00, "
         "basis sd 0.0000 USD/GPU-hour -- it is not published, so no futures settle on it yet: ask "
         "an exchange to list it, or hedge with a swap on it; it is one provider's price, which "
         "that provider alone sets; sug-A100.od.vm.lambda (with your quotes) tracks your rent (it "
         "removes 100% of the monthly variance) and your own quotes supply 100% of its fix (they "
         "are the median on 424 of 424 days); without them it still removes 100%: what is left is "
         "your provider's own price list, which that provider alone sets"},
        {"use, and a better suggestion", HEDGE_S_USE,
         {mk("T4.SPOT", 1, 40, 0.9, 0.62, 0.40, 0.78, 0.02, 1),
          mks("sug-T4.spot.vm", 40, 1.0, 0.90, 0.82, 0.95, 0.01, "T4 spot, vm", 4)},
         2, mv, HEDGE_MONTH, "T4", 1, 0, "T4.SPOT",
         "use T4.SPOT: removes 62% of your monthly rent-change variance (95% interval 40%-78%; out "
         "of sample 62%) at "
         "h = 0.90, basis sd 0.0200 USD/GPU-hour; a partial hedge (below the 80% of hedge "
         "accounting); a grade built around your rent would remove 90% (sug-T4.spot.vm, not "
         "published)"},
        {"a suggestion that fits in sample only is no hedge (the real T4 renter)", HEDGE_S_OOS_FAIL,
         {mk("T4.SPOT", 0, 0, NAN, NAN, NAN, NAN, NAN, 1), mk("A100.OD", 1, 12, 0.008, 0.03, 0.0, 0.46, 0.44, 0),
          oosfail},
         3, mv, HEDGE_MONTH, "T4", 0, 0, NULL,
         "no grade here hedges this rent: no published grade of your GPU has index values in your "
         "rent's months; nor would a grade built around it: best R² 0.77 "
         "(sug-T4.spot.vm.us-east-1.g4dn.xlarge.not-own) is no hedge: it fits in sample only: out "
         "of sample (each month hedged at the h fitted on the months before it, 10 months) it "
         "ADDED 57% to the variance"},
        {"suggestions only", HEDGE_S_SUGGEST,
         {mks("sug-T4.spot.vm", 16, 1.0, 0.7, 0.3, 0.9, 0.01, "T4 spot, vm", 3)}, 1, mv,
         HEDGE_WEEK, "T4", 1, 1, "sug-T4.spot.vm",
         "no published grade was compared; one built around it would: sug-T4.spot.vm (T4 spot, "
         "vm) removes 70% of your weekly rent-change variance (95% interval 30%-90%; out of sample "
         "70%) at h = 1.00, "
         "basis sd 0.0100 USD/GPU-hour -- it is not published, so no futures settle on it yet: "
         "ask an exchange to list it, or hedge with a swap on it; a partial hedge (below the 80% "
         "of hedge accounting)"},
        {"none: best R² of another GPU is not quoted", HEDGE_S_NONE,
         {mk("H100.OD", 1, 3, 0.072, 0.750, NAN, NAN, 1.58, 0),
          mk("V100.SPOT", 1, 16, 5.238, 0.183, 0.0, 0.58, 0.50, 0),
          mk("A100.SPOT", 1, 16, 0.235, 0.029, 0.0, 0.32, 0.43, 1)},
         3, mv, HEDGE_MONTH, "A100", 0, 0, NULL,
         "no grade here hedges this rent: best R² 0.03 (A100.SPOT), below the 0.50 a hedge needs "
         "to remove half of the monthly rent-change variance"},
        {"none: no grade of the GPU with h > 0", HEDGE_S_BEST_FIT,
         {mk("V100.OD", 1, 16, 0.4, 0.19, 0.0, 0.59, 0.50, 0), mk("A100.OD", 1, 16, -0.2, 0.1, 0.0, 0.5, 0.5, 1)},
         2, mv, HEDGE_MONTH, "A100", 0, 0, NULL,
         "no grade here hedges this rent: no published grade of your GPU moves with your rent "
         "(none has h > 0)"},
        {"none, and a fit of the GPU that is no hedge for another reason", HEDGE_S_BEST_FIT,
         {mk("A100.OD", 1, 16, 0.2, 0.1, 0.0, 0.5, 0.5, 1), mk("A100.SHORT", 1, 5, 0.9, 0.9, NAN, NAN, 0.1, 1)},
         2, mv, HEDGE_MONTH, "A100", 0, 0, NULL,
         "no grade here hedges this rent: best R² 0.90 (A100.SHORT) is no hedge: 5 changes (need "
         "12)"},
        {"none, and a fit of the GPU that is its own price", HEDGE_S_BEST_FIT,
         {mk("A100.OD", 1, 16, 0.2, 0.1, 0.0, 0.5, 0.5, 1),
          own_in(mk("A100.SPOT.USE1", 1, 16, 0.98, 0.949, 0.85, 0.98, 0.0147, 1), 0.77, 393, 509,
                 0.019, 0.032)},
         2, mv, HEDGE_MONTH, "A100", 0, 0, NULL,
         "no grade here hedges this rent: best R² 0.95 (A100.SPOT.USE1) is no hedge: it is largely "
         "your own price; A100.SPOT.USE1 tracks your rent (it removes 95% of the "
         "monthly variance) only because your own quotes supply 77% of its fix (they are the "
         "median on 393 of 509 days); without them it removes 2%: futures on it would settle on "
         "your own bill -- to lock your price, ask your provider for a fixed price, or an exchange "
         "to list your own bill"},
        {"none built around it either (the real p4d renter)", HEDGE_S_NONE_BUILT,
         {mk("A100-SXM-40.OD", 1, 15, -0.154, 0.013, 0.0, 0.35, 0.27, 1), circ_sug}, 2, mv,
         HEDGE_MONTH, "A100-SXM-40GB", 0, 0, NULL,
         "no grade here hedges this rent: no published grade of your GPU moves with your rent "
         "(none has h > 0); nor would a grade built around it: best R² 0.02 "
         "(sug-A100.spot.vm.us-east-1.not-own), below the 0.50 a hedge needs to remove half of the "
         "monthly rent-change variance; sug-A100.spot.vm.us-east-1 (with your quotes) tracks your "
         "rent (it removes 95% of the monthly variance) only because your own quotes supply 77% "
         "of its fix (they are the median on 393 of 511 days); without them it removes 2%: "
         "futures on it would settle on your own bill -- to lock your price, ask your provider for "
         "a fixed price, or an exchange to list your own bill"},
        {"the renter's own price", HEDGE_S_OWN, {circ_sug}, 1, mv, HEDGE_MONTH, "A100", 0, 0, NULL,
         "no grade here hedges this rent: none built around it does: best R² 0.02 "
         "(sug-A100.spot.vm.us-east-1.not-own), below the 0.50 a hedge needs to remove half of the "
         "monthly rent-change variance; sug-A100.spot.vm.us-east-1 (with your quotes) tracks your "
         "rent (it removes 95% of the monthly variance) only because your own quotes supply 77% "
         "of its fix (they are the median on 393 of 511 days); without them it removes 2%: "
         "futures on it would settle on your own bill -- to lock your price, ask your provider for "
         "a fixed price, or an exchange to list your own bill"},
        {"a ratio that broke", HEDGE_S_BROKE, {broke}, 1, mv, HEDGE_MONTH, "T4", 1, 0, "T4.SPOT",
         "use T4.SPOT: removes 82% of your monthly rent-change variance (95% interval 70%-90%; out "
         "of sample 61%) at h = 0.90, basis sd 0.0200 USD/GPU-hour; but its h broke at the largest "
         "index move (2024-02: 0.10 before, 1.00 after, Chow p 0.002): refit it before you rely on "
         "it"},
        {"suggestions only, in sample only", HEDGE_S_OOS_FAIL, {oosfail}, 1, mv, HEDGE_MONTH, "T4",
         0, 0, NULL,
         "no grade here hedges this rent: none built around it does: best R² 0.77 "
         "(sug-T4.spot.vm.us-east-1.g4dn.xlarge.not-own) is no hedge: it fits in sample only: out "
         "of sample (each month hedged at the h fitted on the months before it, 10 months) it "
         "ADDED 57% to the variance"},
        {"a published grade that fits in sample only, and one that does not", HEDGE_S_USE,
         {oos_pub, mk("H100.OD", 1, 20, 0.7, 0.55, 0.2, 0.8, 0.05, 1)}, 2, mv, HEDGE_MONTH,
         "H100", 1, 0, "H100.OD",
         "use H100.OD: removes 55% of your monthly rent-change variance (95% interval 20%-80%; out "
         "of sample 55%) at h = 0.70, basis sd 0.0500 USD/GPU-hour; a partial hedge (below the "
         "80% of hedge accounting)"},
        {"a published grade that fits in sample only", HEDGE_S_OOS_FAIL, {oos_pub}, 1, mv,
         HEDGE_WEEK, "H100", 0, 0, NULL,
         "no grade here hedges this rent: best R² 0.82 (H100.SPOT) is no hedge: it fits in sample "
         "only: out of sample (each week hedged at the h fitted on the weeks before it, 30 weeks) "
         "it removed under 1% of the variance"},
        {"untried out of sample", HEDGE_S_OOS_FAIL, {oos_flat}, 1, mv, HEDGE_MONTH, "H100", 0, 0,
         NULL,
         "no grade here hedges this rent: best R² 0.90 (H100.OD) is no hedge: it fits in sample "
         "only, untried out of sample: your rent's changes did not vary over the 10 months the "
         "walk-forward hedges (those after the first 6)"},
        {"use a candidate grade", HEDGE_S_CANDIDATE, {cand}, 1, mv, HEDGE_MONTH, "T4", 1, 0,
         "T4.SPOT",
         "use T4.SPOT: removes 82% of your monthly rent-change variance (95% interval 70%-90%; out "
         "of sample 82%) at h = 0.90, basis sd 0.0200 USD/GPU-hour; it is a candidate grade, not "
         "published, so no futures settle on it yet: ask an exchange to list it, or hedge with a "
         "swap on it"},
        {"use a candidate grade, a published one hedging less", HEDGE_S_CANDIDATE,
         {mk("H100.OD", 1, 40, 0.8, 0.60, 0.35, 0.77, 0.03, 1), cand}, 2, mv, HEDGE_MONTH, "T4",
         1, 0, "T4.SPOT",
         "use T4.SPOT: removes 82% of your monthly rent-change variance (95% interval 70%-90%; out "
         "of sample 82%) at h = 0.90, basis sd 0.0200 USD/GPU-hour; it is a candidate grade, not "
         "published, so no futures settle on it yet: ask an exchange to list it, or hedge with a "
         "swap on it (the best published grade, H100.OD, removes 60%)"},
        {"no candidate grade hedges", HEDGE_S_NONE, {cand_neg}, 1, mv, HEDGE_MONTH, "T4", 0, 0,
         NULL,
         "no grade here hedges this rent: no candidate grade of your GPU moves with your rent "
         "(none has h > 0)"},
        {"neither published nor candidate grades hedge", HEDGE_S_SUGGEST,
         {cand_neg, mk("T4.OD", 1, 16, -0.3, 0.1, 0.0, 0.5, 0.3, 1),
          mks("sug-T4.spot.vm", 16, 1.0, 0.7, 0.3, 0.9, 0.01, "T4 spot, vm", 3)},
         3, mv, HEDGE_MONTH, "T4", 1, 1, "sug-T4.spot.vm",
         "no published or candidate grade of your GPU moves with your rent (none has h > 0); one "
         "built around it would: sug-T4.spot.vm (T4 spot, vm) removes 70% of your monthly "
         "rent-change variance (95% interval 30%-90%; out of sample 70%) at h = 1.00, basis sd "
         "0.0100 USD/GPU-hour -- it is not published, so no futures settle on it yet: ask an "
         "exchange to list it, or hedge with a swap on it; a partial hedge (below the 80% of hedge "
         "accounting)"},
    };
    unsigned seen = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(&cases[i]);
        seen |= cases[i].kind;
    }
    /* every sentence has a row */
    for (unsigned k = HEDGE_S_FLAT_RENT; k <= HEDGE_S_CANDIDATE; k <<= 1)
        if (!(seen & k)) fail_msg("no row for sentence %#x", k);
}

/* Identical inputs give identical verdicts: two renters of one provider's
 * price list (the real Lambda A100-80 and H100 PCIe renters once got
 * opposite ones), each renamed, and the grades in any input order. */
static void test_identical_inputs_identical_verdicts(void **state)
{
    (void)state;
    hedge_rent_summary rs = rent_moving();
    hedge_compare_opts o = {HEDGE_MONTH, 0, 0, "X"};
    char text[2][1400];
    for (int who = 0; who < 2; who++) {
        const char *names[3] = {who ? "sug-B.one" : "sug-A.one", who ? "B.OD" : "A.OD",
                                who ? "sug-B.two" : "sug-A.two"};
        hedge_rank r[3] = {mks(names[0], 14, 1.0, 1.0, 1.0, 1.0, 0.0, "one", 1),
                           mk(names[1], 1, 12, -0.1, 0.28, 0.0, 0.7, 0.5, 1),
                           mks(names[2], 14, 0.006, 0.01, 0.0, 0.36, 0.79, "two", 1)};
        r[0].a.exact = 1;
        for (int perm = 0; perm < 3; perm++) {
            hedge_rank p[3] = {r[perm % 3], r[(perm + 1) % 3], r[(perm + 2) % 3]};
            hedge_rank_sort(p, 3, 0);
            hedge_verdict v;
            hedge_compare_verdict(p, 3, &o, &rs, &v);
            /* the names are the only difference */
            char *t = v.text;
            for (char *q; (q = strstr(t, who ? "B." : "A."));) *q = 'Z';
            if (perm == 0) snprintf(text[who], sizeof text[who], "%s", v.text);
            else assert_string_equal(v.text, text[who]);
        }
    }
    assert_string_equal(text[0], text[1]);
    assert_non_null(strstr(text[0], "removes 100% of your monthly rent-change variance (an exact "
                                    "fit; out of sample 100%)"));
}

/* Which candidates a rent's description gives, their ids, words and
 * definitions (validated by the index's parser in tests/test_e2e_hedge_
 * suggest.c): the shipped style, the own quotes left out, the twins. */
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
    strcpy(in.zone, "use1-az1");
    const char *gpus[1] = {"T4"};
    hedge_sug_style style = {"v2", {"instance"}, 1};
    hedge_suggestion s;
    gpi_diag d = {{0}};
    assert_int_equal(hedge_suggest(&in, gpus, 1, &style, 0, &s, &d), GPI_OK);
    static const struct {
        const char *id, *what;
        int one;
        long twin;
    } want[] = {
        {"sug-T4.spot.not-own", "T4 spot, without your own quotes", 0, 7},
        {"sug-T4.spot.vm.not-own", "T4 spot, vm, without your own quotes", 0, 8},
        {"sug-T4.spot.vm.aws.not-own", "T4 spot, vm, at aws, without your own quotes", 1, 9},
        {"sug-T4.spot.vm.us-east-1.not-own", "T4 spot, vm, in us-east-1, without your own quotes",
         1, 10},
        {"sug-T4.spot.vm.us-east-1.g4dn.xlarge.not-own",
         "T4 spot, vm, in us-east-1, instance type g4dn.xlarge, without your own quotes", 1, 11},
        {"sug-T4.spot.vm.g4dn.xlarge.not-own",
         "T4 spot, vm, instance type g4dn.xlarge, every region, without your own quotes", 1, 12},
        {"sug-T4.spot.vm.not-aws", "T4 spot, vm, every provider but aws", 0, -1},
    };
    assert_int_equal(s.n, 7);
    assert_int_equal(s.n_grades, 13);
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(s.c[i].id, want[i].id);
        assert_string_equal(s.c[i].what, want[i].what);
        assert_int_equal(s.c[i].one_provider, want[i].one);
        assert_int_equal(s.c[i].twin, want[i].twin);
        assert_int_equal(s.c[i].own_in, want[i].twin < 0);
    }
    assert_string_equal(s.own_exclude, "{\"ids\":[\"*@use1-az1/*\"],\"providers\":[\"aws\"],"
                                       "\"regions\":[\"us-east-1\"],\"skus\":[\"g4dn.xlarge\"]}");
    assert_string_equal(s.own_words, "aws g4dn.xlarge in us-east-1, zone use1-az1 (offer ids "
                                     "*@use1-az1/*)");
    json_error_t e;
    json_t *j = json_loads(s.grades_json, 0, &e);
    assert_non_null(j);
    json_t *g4 = json_array_get(json_object_get(j, "grades"), 4);
    char *c4 = json_dumps(g4, JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(c4, "{\"covers\":[\"instance\"],\"exclude\":[{\"ids\":[\"*@use1-az1/*\"],"
                            "\"providers\":[\"aws\"],\"regions\":[\"us-east-1\"],\"skus\":"
                            "[\"g4dn.xlarge\"]}],\"gpu\":[\"T4\"],\"id\":"
                            "\"sug-T4.spot.vm.us-east-1.g4dn.xlarge.not-own\",\"method\":\"v2\","
                            "\"min_providers\":1,\"min_tier\":\"unrated\",\"regions\":"
                            "[\"us-east-1\"],\"scope\":[\"vm\"],\"skus\":[\"g4dn.xlarge\"],"
                            "\"term\":\"spot\"}");
    free(c4);
    /* its twin: the same with the own quotes */
    char *c11 = json_dumps(json_array_get(json_object_get(j, "grades"), 11),
                           JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(c11, "{\"covers\":[\"instance\"],\"gpu\":[\"T4\"],\"id\":"
                             "\"sug-T4.spot.vm.us-east-1.g4dn.xlarge\",\"method\":\"v2\","
                             "\"min_providers\":1,\"min_tier\":\"unrated\",\"regions\":"
                             "[\"us-east-1\"],\"scope\":[\"vm\"],\"skus\":[\"g4dn.xlarge\"],"
                             "\"term\":\"spot\"}");
    free(c11);
    char *c6 = json_dumps(json_array_get(json_object_get(j, "grades"), 6),
                          JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(c6, "{\"covers\":[\"instance\"],\"exclude_providers\":[\"aws\"],\"gpu\":"
                            "[\"T4\"],\"id\":\"sug-T4.spot.vm.not-aws\",\"method\":\"v2\","
                            "\"min_tier\":\"unrated\",\"scope\":[\"vm\"],\"term\":\"spot\"}");
    free(c6);
    json_decref(j);
    hedge_suggestion_free(&s);
    /* --include-own: the candidates keep them, the twins leave them out */
    assert_int_equal(hedge_suggest(&in, gpus, 1, &style, 1, &s, &d), GPI_OK);
    assert_string_equal(s.c[4].id, "sug-T4.spot.vm.us-east-1.g4dn.xlarge");
    assert_string_equal(s.c[4].what, "T4 spot, vm, in us-east-1, instance type g4dn.xlarge");
    assert_int_equal(s.c[4].own_in, 1);
    assert_non_null(strstr(s.grades_json, "\"sug-T4.spot.vm.us-east-1.g4dn.xlarge.not-own\""));
    hedge_suggestion_free(&s);

    /* only a GPU family: one candidate, on-demand, every model named, the
     * own quotes unknown (no provider), another style */
    memset(&in, 0, sizeof in);
    strcpy(in.gpu, "A100");
    const char *fam[2] = {"A100-SXM-40GB", "A100-SXM-80GB"};
    hedge_sug_style v3 = {"v3", {{0}}, 0};
    assert_int_equal(hedge_suggest(&in, fam, 2, &v3, 0, &s, &d), GPI_OK);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.n_grades, 1);
    assert_null(s.own_exclude);
    assert_string_equal(s.own_words, "");
    assert_string_equal(s.c[0].id, "sug-A100.on-demand");
    assert_string_equal(s.c[0].what, "A100 on-demand");
    assert_int_equal(s.c[0].twin, -1);
    assert_non_null(strstr(s.grades_json, "\"A100-SXM-40GB\""));
    assert_non_null(strstr(s.grades_json, "\"A100-SXM-80GB\""));
    assert_non_null(strstr(s.grades_json, "\"method\": \"v3\""));
    assert_null(strstr(s.grades_json, "covers"));
    hedge_suggestion_free(&s);
    memset(&in, 0, sizeof in);
    strcpy(in.gpu, "H100");
    strcpy(in.term, "reserved:1-3");
    strcpy(in.region, "eu west/1");
    strcpy(in.sku, "8x H100 (SXM)");
    assert_int_equal(hedge_suggest(&in, fam, 1, &style, 0, &s, &d), GPI_OK);
    assert_int_equal(s.n, 4); /* no scope: GPU, + region, + region & sku, + sku */
    assert_string_equal(s.c[1].id, "sug-H100.reserved-1-3.eu-west-1");
    assert_string_equal(s.c[2].id, "sug-H100.reserved-1-3.eu-west-1.8x-H100--SXM-");
    assert_string_equal(s.c[3].id, "sug-H100.reserved-1-3.8x-H100--SXM-");
    hedge_suggestion_free(&s);
    /* long names: ids cut to 64 bytes and made unique, the twins too */
    memset(&in, 0, sizeof in);
    strcpy(in.gpu, "T4");
    strcpy(in.provider, "aws");
    memset(in.region, 'r', 60);
    memset(in.sku, 's', 60);
    assert_int_equal(hedge_suggest(&in, gpus, 1, &style, 0, &s, &d), GPI_OK);
    assert_int_equal(s.n, 6);
    j = json_loads(s.grades_json, 0, &e);
    size_t ng = json_array_size(json_object_get(j, "grades"));
    assert_int_equal(ng, s.n_grades);
    for (size_t i = 0; i < ng; i++) {
        const char *id = json_string_value(json_object_get(json_array_get(json_object_get(j, "grades"), i), "id"));
        assert_true(strlen(id) <= 64);
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(id, json_string_value(json_object_get(
                                            json_array_get(json_object_get(j, "grades"), k), "id")));
    }
    json_decref(j);
    hedge_suggestion_free(&s);
    /* no GPU: a usage error */
    memset(&in, 0, sizeof in);
    assert_int_equal(hedge_suggest(&in, gpus, 1, &style, 0, &s, &d), GPI_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_match),
        cmocka_unit_test(test_rank_hedges_not_fits),
        cmocka_unit_test(test_verdict_sentences),
        cmocka_unit_test(test_identical_inputs_identical_verdicts),
        cmocka_unit_test(test_suggest_ladder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
