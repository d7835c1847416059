/* tests/test_index_segments.c -- the grade lab's provider segments
 * (index/segments.c through idx_evaluate): bimodality and the splits.
 *
 * Hand market (offers, H100-SXM on-demand, 2025-01-01..06):
 *   hyperscalers H1 12.00; H2 13.00 and 14.00 (median 13.50); H3 15.00
 *     (absent on day 5); none on day 6;
 *   neoclouds N1 4.00, N2 5.00, N3 3.00 and 3.50 (median 3.25), every day.
 *   Days 1-4: hyperscaler median of 12, 13.5, 15 = 13.50, neocloud median
 *   of 3.25, 4, 5 = 4.00: ratio 3.375; day 5: hyperscalers 12, 13.5 ->
 *   12.75, ratio 3.1875; day 6: one segment, no ratio.  So 5 days with a
 *   ratio, all >= 2: bimodal; median 3.375, min 3.1875, max 3.375.
 *   Hyperscalers: 5 days, providers 3 3 3 3 2 (mean 2.8, max 3), >= 3 on
 *   days 1-4; price median of 13.5 x4, 12.75 = 13.5; spreads 15/12 = 1.25
 *   x4, 13.5/12 = 1.125: median 1.25.  Neoclouds: 6 days, 3 each, price
 *   4.00, spread 5/3.25.
 *   G (v1, min_providers 3): 8.50 on days 1-4 (the mean of 5 and 12),
 *   5.00 on day 5, 4.00 on day 6.  Its split G.HYP: 13.50 on days 1-4,
 *   carried on 5 and 6; G.NEO: 4.00 every day.
 * Grade A (A100-SXM-80): hyperscalers 2.00, 2.20, neoclouds 1.50, 1.60,
 *   1.70 every day: 2.10 / 1.60 = 1.3125 < 2: not bimodal, not split.
 */
#include "tests/store_helpers.h"

#include <math.h>

#include "index/index.h"
#include "index/segments.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static store *market(void)
{
    store *st = open_tmp(NULL);
    static const struct {
        const char *prov, *seg, *gpu, *id;
        int64_t price;
        int from, to;
    } book[] = {
        {"H1", "hyperscaler", "H100-SXM-80GB", "h1", 12000000, 1, 5},
        {"H2", "hyperscaler", "H100-SXM-80GB", "h2a", 13000000, 1, 5},
        {"H2", "hyperscaler", "H100-SXM-80GB", "h2b", 14000000, 1, 5},
        {"H3", "hyperscaler", "H100-SXM-80GB", "h3", 15000000, 1, 4},
        {"N1", "neocloud", "H100-SXM-80GB", "n1", 4000000, 1, 6},
        {"N2", "neocloud", "H100-SXM-80GB", "n2", 5000000, 1, 6},
        {"N3", "neocloud", "H100-SXM-80GB", "n3a", 3000000, 1, 6},
        {"N3", "neocloud", "H100-SXM-80GB", "n3b", 3500000, 1, 6},
        {"H1", "hyperscaler", "A100-SXM-80GB", "ah1", 2000000, 1, 6},
        {"H2", "hyperscaler", "A100-SXM-80GB", "ah2", 2200000, 1, 6},
        {"N1", "neocloud", "A100-SXM-80GB", "an1", 1500000, 1, 6},
        {"N2", "neocloud", "A100-SXM-80GB", "an2", 1600000, 1, 6},
        {"N3", "neocloud", "A100-SXM-80GB", "an3", 1700000, 1, 6},
    };
    int64_t b = begin(st, "sha-seg", 1000);
    long n = 0;
    for (size_t i = 0; i < N(book); i++)
        for (int dom = book[i].from; dom <= book[i].to; dom++) {
            char id[32], day[11];
            snprintf(id, sizeof id, "%s-%d", book[i].id, dom);
            snprintf(day, sizeof day, "2025-01-%02d", dom);
            gpi_obs o = obs(day, gpi_fnv1a64(id, strlen(id), GPI_FNV_SEED), id, book[i].price);
            o.observed_at += 9 * 3600;
            o.gpu = book[i].gpu;
            o.provider = o.group = book[i].prov;
            o.segment = book[i].seg;
            if (put(st, b, &o) != STORE_PUT_STORED) fail_msg("storing %s", id);
            n++;
        }
    commit(st, b, n, n, 0, 0);
    return st;
}

static const char grades_json[] =
    "{\"grades\": [{\"id\": \"G\", \"gpu\": [\"H100-SXM-80GB\"]},"
    " {\"id\": \"A\", \"gpu\": [\"A100-SXM-80GB\"]}]}";

static const idx_segment_eval *seg(const idx_grade_eval *g, const char *name)
{
    for (int s = 0; s < g->n_segments; s++)
        if (strcmp(g->seg[s].segment, name) == 0) return &g->seg[s];
    fail_msg("%s: no segment %s", g->id, name);
    return NULL;
}

static idx_evaluation *evaluate(store *st, int splits)
{
    idx_grades *gs = NULL;
    gpi_diag d = {{0}};
    if (idx_grades_parse(grades_json, "test", NULL, 0, &gs, &d) != GPI_OK) fail_msg("%s", d.msg);
    idx_evaluation *ev = NULL;
    int32_t d1 = gpi_days_from_civil(2025, 1, 1);
    if (idx_evaluate(st, gs, d1, d1 + 5, 5000, splits, &ev, &d) != GPI_OK) fail_msg("%s", d.msg);
    idx_grades_free(gs);
    return ev;
}

static void test_bimodal_and_split(void **state)
{
    (void)state;
    store *st = market();
    idx_evaluation *ev = evaluate(st, 1);
    int32_t d1 = gpi_days_from_civil(2025, 1, 1);
    assert_int_equal(ev->n, 2);
    const idx_grade_eval *g = &ev->g[0];
    assert_string_equal(g->id, "G");
    assert_int_equal(g->bimodal, 1);
    assert_int_equal(g->seg_days, 5);
    assert_int_equal(g->seg_split_days, 5);
    tu_assert_close(g->seg_ratio_median, 3.375, 1e-12, "ratio median");
    tu_assert_close(g->seg_ratio_min, 3.1875, 1e-12, "ratio min");
    tu_assert_close(g->seg_ratio_max, 3.375, 1e-12, "ratio max");
    assert_int_equal(g->n_segments, 2);
    const idx_segment_eval *h = seg(g, "hyperscaler"), *n = seg(g, "neocloud");
    assert_int_equal(h->days, 5);
    tu_assert_close(h->mean_providers, 2.8, 1e-12, "hyperscaler providers");
    assert_int_equal(h->max_providers, 3);
    assert_int_equal(h->min_days, 4);
    assert_int_equal(h->first_day, d1);
    assert_int_equal(h->last_day, d1 + 3);
    tu_assert_close(h->price_median, 13.5, 1e-7, "hyperscaler price");
    tu_assert_close(h->spread_median, 1.25, 1e-7, "hyperscaler spread");
    assert_int_equal(n->days, 6);
    tu_assert_close(n->mean_providers, 3, 1e-12, "neocloud providers");
    assert_int_equal(n->min_days, 6);
    assert_int_equal(n->last_day, d1 + 5);
    tu_assert_close(n->price_median, 4.0, 1e-7, "neocloud price");
    tu_assert_close(n->spread_median, 5.0 / 3.25, 1e-7, "neocloud spread"); /* floats per day */
    /* G itself: 8.50 x4, 5.00, 4.00 */
    tu_assert_close(g->price_median, 8.5, 1e-12, "G price");
    tu_assert_close(g->price_min, 4.0, 1e-12, "G min");
    /* the splits */
    assert_int_equal(ev->n_split, 2);
    const idx_grade_eval *sh = &ev->g[h->split - 1], *sn = &ev->g[n->split - 1];
    assert_true(h->split > 2 && n->split > 2);
    assert_string_equal(sh->id, "G.HYP");
    assert_string_equal(sn->id, "G.NEO");
    assert_int_equal(sh->split_of, 1);
    assert_string_equal(sh->split_segment, "hyperscaler");
    assert_string_equal(sn->split_segment, "neocloud");
    assert_int_equal(sh->n_level[GPI_LEVEL_OFFERS], 4);
    assert_int_equal(sh->n_level[GPI_LEVEL_CARRIED], 2);
    tu_assert_close(sh->price_min, 13.5, 1e-12, "G.HYP min");
    tu_assert_close(sh->price_max, 13.5, 1e-12, "G.HYP max");
    assert_int_equal(sn->n_level[GPI_LEVEL_OFFERS], 6);
    tu_assert_close(sn->price_median, 4.0, 1e-12, "G.NEO price");
    /* a split is one segment: nothing to split again */
    assert_int_equal(sh->n_segments, 1);
    assert_int_equal(sh->bimodal, 0);
    /* A: 1.3125 apart every day, not bimodal, not split */
    const idx_grade_eval *a = &ev->g[1];
    assert_int_equal(a->bimodal, 0);
    assert_int_equal(a->seg_days, 6);
    assert_int_equal(a->seg_split_days, 0);
    tu_assert_close(a->seg_ratio_median, 2.1 / 1.6, 1e-12, "A ratio");
    for (int s = 0; s < a->n_segments; s++) assert_int_equal(a->seg[s].split, 0);
    idx_evaluation_free(ev);
    /* without splits: the same verdict, nothing evaluated for it */
    ev = evaluate(st, 0);
    assert_int_equal(ev->g[0].bimodal, 1);
    assert_int_equal(ev->n_split, 0);
    assert_int_equal(seg(&ev->g[0], "hyperscaler")->split, 0);
    idx_evaluation_free(ev);
    store_close(st);
}

static void test_split_ids(void **state)
{
    (void)state;
    static const struct {
        const char *id, *segment, *want;
    } cases[] = {
        {"H100-SXM.OD", "hyperscaler", "H100-SXM.OD.HYP"},
        {"H100-SXM.OD", "neocloud", "H100-SXM.OD.NEO"},
        {"X", "marketplace", "X.MKT"},
        {"X", "sovereign cloud", "X.SOVEREIGN-CLOUD"},
        {"0123456789012345678901234567890123456789012345678901234567890123", "neocloud",
         "012345678901234567890123456789012345678901234567890123456789.NEO"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        char out[IDX_NAME_MAX + 1];
        idx_seg_split_id(cases[i].id, cases[i].segment, out);
        assert_string_equal(out, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bimodal_and_split),
        cmocka_unit_test(test_split_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
