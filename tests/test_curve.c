/* tests/test_curve.c -- the term curve's method (curve/curve.h), pure.
 *
 *   - hand-computed cases: monotone-convex through two points (every
 *     forward and term rate by hand: METHODOLOGY.md "Term curve"), the
 *     restatement's exact arithmetic;
 *   - the properties: a flat market gives a flat curve; every
 *     price (fix, quotes, references) x1.1 gives every forward x1.1; the
 *     curve reproduces its inputs within their tolerance; a quote outside
 *     the screen is excluded and named; the front equals the fix; tenors
 *     without inputs are withheld with the reason (beyond the longest
 *     input, across too wide a gap), an implausible forward withheld and
 *     the term rates after it; the convexity screen excludes a point that
 *     bends the curve and names it; futures prices in delivery or equal to
 *     the index are excluded;
 *   - the independent reference (tests/ref/ref_curve.py, exact fractions)
 *     agrees with every number of a curve.json written for these cases
 *     (skipped without /usr/bin/python3).
 */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "curve/format.h"

#define DAY 20254 /* 2025-06-15 */

typedef struct qset {
    curve_quote q[128];
    size_t n;
} qset;

/* An offer of group g for `months` (starting `ahead_days` after the day,
 * 0: the next day) at price (micro) with its provider's own price ref
 * (micro). */
static curve_quote *offer(qset *s, const char *g, int months, int64_t price, int64_t ref,
                          int32_t starts_on)
{
    curve_quote *q = &s->q[s->n++];
    memset(q, 0, sizeof *q);
    q->kind = CURVE_OFFER;
    q->provider = q->group = g;
    q->source = "test";
    q->key = 0x1000 + s->n;
    q->observed_at = (int64_t)DAY * 86400 + 3600;
    q->term_months = months;
    q->starts_on = starts_on;
    q->price_micro = price;
    q->quantity_micro = -1;
    q->ref_q = ref >= 0 ? 4 * ref : -1;
    return q;
}

static const char *const groups[6] = {"alpha", "beta", "gamma", "delta", "eps", "zeta"};

/* A market on a true curve: term rate of T months = v x ratio(T); ng groups
 * quote every term of terms[] at it (each group's own price = v). */
static void market(qset *s, int64_t v_micro, const int *terms, int nt, int ng,
                   double (*ratio)(int))
{
    for (int g = 0; g < ng; g++)
        for (int k = 0; k < nt; k++)
            offer(s, groups[g], terms[k], llround((double)v_micro * ratio(terms[k])), v_micro, 0);
}

static double flat(int t)
{
    (void)t;
    return 1.0;
}

static double backwardation(int t)
{
    /* the average over [0, t] of exp(-0.2 tau / 12) */
    double g = -0.2 / 12;
    return (exp(g * t) - 1) / (g * t);
}

static curve_result compute(int64_t front, qset *s)
{
    curve_params p;
    curve_params_default(&p);
    curve_result r;
    gpi_diag d = {{0}};
    assert_int_equal(curve_compute(&p, DAY, front, s->q, s->n, &r, &d), GPI_OK);
    return r;
}

/* ---- hand-computed ---------------------------------------------------------- */

/* Fix 2.0000; one group quotes 1 month at 2.00 and 3 months at 1.90 (its
 * own price 2.00): two points that start on the day, so monotone convex.
 * By hand (Hagan and West): discrete forwards 2.00 on [0,1] and 1.85 on
 * [1,3]; instantaneous forwards f0 = 2.00 (the fix), f1 = (1 x 1.85 + 2 x
 * 2.00) / 3 = 1.95, f3 = 1.85 - (1.95 - 1.85) / 2 = 1.80.  On [0,1] g0 =
 * 0, g1 = -0.05: g = 0 (same signs, eta 1), F1 = 2.0000.  On [1,3] g0 =
 * 0.10, g1 = -0.05 (region i): g(x) = 0.1 (1 - 4x + 3x^2) - 0.05 (-2x +
 * 3x^2), whose integral on [0, 1/2] is 0.01875: F2 = 1.85 + 2 x 0.01875 =
 * 1.8875, F3 = 1.85 - 0.0375 = 1.8125.  Term rates 2.0000, (2 + 1.8875) /
 * 2 = 1.94375 -> 1.9438 (half-up), 1.9000. */
static void test_hand_monotone(void **state)
{
    (void)state;
    qset s = {.n = 0};
    offer(&s, "alpha", 1, 2000000, 2000000, 0);
    offer(&s, "alpha", 3, 1900000, 2000000, 0);
    curve_result r = compute(20000, &s);
    assert_int_equal(r.fit, CURVE_FIT_MONOTONE);
    int64_t fwd[3] = {20000, 18875, 18125}, term[3] = {20000, 19438, 19000};
    int st[3] = {CURVE_FITTED, CURVE_INTERPOLATED, CURVE_FITTED};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(r.t[k].fwd_e4, fwd[k]);
        assert_int_equal(r.t[k].term_e4, term[k]);
        assert_int_equal(r.t[k].status, st[k]);
    }
    for (int k = 3; k < CURVE_TENORS; k++) {
        assert_int_equal(r.t[k].status, CURVE_WITHHELD);
        assert_string_equal(r.t[k].reason, "beyond the longest input (3 months)");
    }
    /* the points reproduce exactly: 1.900000 over [0,3] */
    assert_int_equal(r.n_pt, 2);
    assert_int_equal(r.pt[1].value_micro, 1900000);
    assert_int_equal(r.pt[1].fitted_micro, 1900000);
    assert_int_equal(r.pt[1].tol_micro, 28500); /* 1.5 % for one group */
    curve_result_free(&r);
}

/* The restatement's exact arithmetic: ratio = price x 4e12 / reference in
 * quarter-micro, half-up; restated = fix x ratio, half-up to the micro. */
static void test_hand_restatement(void **state)
{
    (void)state;
    qset s = {.n = 0};
    /* 1.000001 / 3.000000 = 0.333333666666666... -> 0.333333666667;
     * x 2.3456 = 0.78186738... -> 0.781867 */
    curve_quote *q = offer(&s, "alpha", 12, 1000001, 3000000, 0);
    q->ref_q = 12000000; /* 3.000000 in quarter-micro */
    /* a reference that is a half: 2.0000005 in quarter-micro = 8000002 */
    curve_quote *h = offer(&s, "beta", 12, 1900000, -1, 0);
    h->ref_q = 8000002;
    curve_result r = compute(23456, &s);
    assert_int_equal(s.q[0].ratio_e12, 333333666667LL);
    assert_int_equal(s.q[0].restated_micro, 781867); /* 2.3456 x 0.333333666667 */
    /* 1.9 / 2.0000005 = 0.94999976250005937... -> 0.949999762500 */
    assert_int_equal(s.q[1].ratio_e12, 949999762500LL);
    assert_int_equal(s.q[1].restated_micro, 2228319); /* 2.22831944... */
    curve_result_free(&r);
}

/* ---- properties ---------------------------------------------------------------- */

static void test_flat_market_flat_curve(void **state)
{
    (void)state;
    static const int terms[] = {1, 3, 6, 12, 24};
    qset s = {.n = 0};
    market(&s, 2000000, terms, 5, 4, flat);
    curve_result r = compute(20000, &s);
    assert_int_equal(r.fit, CURVE_FIT_SMOOTH);
    for (int k = 0; k < 24; k++) {
        assert_int_equal(r.t[k].fwd_e4, 20000);
        assert_int_equal(r.t[k].term_e4, 20000);
        assert_int_not_equal(r.t[k].status, CURVE_WITHHELD);
    }
    for (int k = 24; k < CURVE_TENORS; k++) assert_int_equal(r.t[k].status, CURVE_WITHHELD);
    curve_result_free(&r);
}

static void test_scale_by_1_1(void **state)
{
    (void)state;
    static const int terms[] = {1, 3, 6, 12, 24, 36};
    qset a = {.n = 0}, b = {.n = 0};
    market(&a, 2000000, terms, 6, 3, backwardation);
    /* a forward start of 12 months from 90 days ahead, another group */
    offer(&a, "delta", 12, 1800000, 2000000, DAY + 91);
    for (size_t i = 0; i < a.n; i++) a.q[i].price_micro = a.q[i].price_micro / 10 * 10;
    b = a;
    for (size_t i = 0; i < b.n; i++) {
        b.q[i].price_micro = b.q[i].price_micro * 11 / 10;
        b.q[i].ref_q = b.q[i].ref_q * 11 / 10;
        assert_int_equal(b.q[i].price_micro * 10, a.q[i].price_micro * 11); /* exact */
    }
    curve_result ra = compute(20000, &a), rb = compute(22000, &b);
    assert_int_equal(ra.fit, rb.fit);
    for (int k = 0; k < CURVE_TENORS; k++) {
        assert_int_equal(ra.t[k].status, rb.t[k].status);
        if (ra.t[k].status == CURVE_WITHHELD) continue;
        /* x1.1, to the tick (each is rounded once) */
        double want = (double)ra.t[k].fwd_e4 * 1.1;
        assert_true(fabs((double)rb.t[k].fwd_e4 - want) <= 1.1);
        /* the restated prices are rounded to the micro-dollar: 1e-6 */
        tu_assert_close(rb.t[k].fwd, ra.t[k].fwd * 1.1, 1e-5, "unrounded forward x1.1");
        tu_assert_close(rb.t[k].term, ra.t[k].term * 1.1, 1e-5, "unrounded term rate x1.1");
    }
    curve_result_free(&ra);
    curve_result_free(&rb);
}

static void test_reproduces_inputs(void **state)
{
    (void)state;
    static const int terms[] = {1, 3, 6, 12, 24, 36};
    qset s = {.n = 0};
    market(&s, 2000000, terms, 6, 2, backwardation);
    /* a third group 0.8 % off at 12 months: the points disagree a little */
    offer(&s, "gamma", 12, llround(2000000 * backwardation(12) * 1.008), 2000000, 0);
    curve_result r = compute(20000, &s);
    int used = 0;
    for (size_t k = 0; k < r.n_pt; k++) {
        const curve_point *p = &r.pt[k];
        if (p->role != CURVE_USED) continue;
        used++;
        assert_true(p->fitted_micro >= 0);
        /* within the tolerance (the fitted average is rounded once) */
        assert_true(llabs(p->residual_micro) <= p->tol_micro + 1);
    }
    assert_int_equal(used, 6);
    for (int k = 0; k < CURVE_TENORS; k++) assert_int_not_equal(r.t[k].status, CURVE_WITHHELD);
    curve_result_free(&r);
}

static void test_front_is_the_fix(void **state)
{
    (void)state;
    static const int terms[] = {1, 12};
    qset s = {.n = 0};
    market(&s, 2500000, terms, 2, 3, backwardation);
    curve_result r = compute(24567, &s);
    assert_int_equal(r.front_e4, 24567);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    curve_json_grade(f, "G.OD", 3000000, &r, s.q, s.n, NULL);
    fclose(f);
    assert_non_null(strstr(buf, "\"front\":2.4567,"));
    free(buf);
    /* no fix: every tenor withheld, every input excluded, with the reason */
    curve_result n = compute(-1, &s);
    assert_int_equal(n.front_e4, -1);
    for (int k = 0; k < CURVE_TENORS; k++) {
        assert_int_equal(n.t[k].status, CURVE_WITHHELD);
        assert_string_equal(n.t[k].reason, "no fix on the day");
    }
    assert_string_equal(s.q[0].reason, "no fix on the day");
    curve_result_free(&r);
    curve_result_free(&n);
}

static void test_screen_named(void **state)
{
    (void)state;
    static const int terms[] = {1, 3, 12};
    qset s = {.n = 0};
    market(&s, 2000000, terms, 3, 3, backwardation);
    curve_quote *fat = offer(&s, "delta", 12, 20000000, 2000000, 0);     /* 10x its own */
    curve_quote *low = offer(&s, "delta", 3, 600000, 2000000, 0);        /* 0.30x */
    curve_quote *edge = offer(&s, "delta", 6, 6000000, 2000000, 0);      /* 3x: at the bound */
    curve_quote *noref = offer(&s, "eps", 12, 1900000, -1, 0);
    curve_quote *longq = offer(&s, "eps", 48, 1500000, 2000000, 0);
    curve_quote *fwd = offer(&s, "eps", 36, 1500000, 2000000, DAY + 200); /* ends past 36 */
    curve_quote *pre = offer(&s, "zeta", 12, 1800000, 2000000, 0);
    pre->pre_reason = "above F x provider median";
    curve_result r = compute(20000, &s);
    assert_int_equal(fat->role, CURVE_EXCLUDED);
    assert_string_equal(fat->reason, "10.00 times its provider's own price in the grade: outside "
                                     "1/F..F (error_factor 3.00)");
    assert_int_equal(low->role, CURVE_EXCLUDED);
    assert_string_equal(low->reason, "0.30 times its provider's own price in the grade: outside "
                                     "1/F..F (error_factor 3.00)");
    /* a price exactly at the bound passes the screen (restated; the
     * convexity screen may still drop its point) */
    assert_int_equal(edge->ratio_e12, 3000000000000LL);
    assert_int_equal(edge->restated_micro, 6000000);
    assert_string_equal(noref->reason, "no offer of its provider group (eps) in the grade on the "
                                       "day to restate against");
    assert_string_equal(longq->reason, "ends 48 months ahead, after the curve's 36");
    assert_string_equal(fwd->reason, "ends 42.54 months ahead, after the curve's 36");
    assert_string_equal(pre->reason, "above F x provider median");
    assert_int_equal(pre->role, CURVE_EXCLUDED);
    assert_int_equal(fat->point, -1);
    assert_true(fat->weight == 0);
    curve_result_free(&r);
}

static void test_withheld_tenors(void **state)
{
    (void)state;
    /* inputs at 1 and 12 months only: 12 > max(3 x 1, 1 + 3): tenors 2..11
     * withheld; 13..36 beyond the longest input; three groups, so the
     * smooth fit */
    static const int terms[] = {1, 12};
    qset s = {.n = 0};
    market(&s, 2000000, terms, 2, 2, backwardation);
    offer(&s, "gamma", 1, 1980000, 2000000, 0);
    offer(&s, "gamma", 6, 1900000, 2000000, DAY + 400); /* a forward start: not spot */
    curve_result r = compute(20000, &s);
    assert_int_equal(r.fit, CURVE_FIT_SMOOTH);
    assert_int_equal(r.t[0].status, CURVE_FITTED);
    assert_string_equal(r.t[1].reason, "between inputs ending 1 and 12 months ahead: too far apart "
                                       "to interpolate (at most 3 times or 3 months further)");
    assert_int_equal(r.t[11].status, CURVE_FITTED);
    /* the forward start ends at (400 - 1) x 16 / 487 + 6 = 19.108... */
    assert_int_equal(r.t[12].status, CURVE_INTERPOLATED);
    assert_int_equal(r.t[18].status, CURVE_INTERPOLATED); /* tenor 19 = [18, 19]: covered */
    assert_int_equal(r.t[19].status, CURVE_WITHHELD);      /* tenor 20: partly */
    assert_string_equal(r.t[19].reason, "beyond the longest input (19.11 months)");
    /* no input at all */
    qset e = {.n = 0};
    curve_result n = compute(20000, &e);
    assert_string_equal(n.t[0].reason, "no term input on the day");
    assert_string_equal(n.note, "no term input on the day");
    curve_result_free(&r);
    curve_result_free(&n);
}

static void test_implausible_forward(void **state)
{
    (void)state;
    /* 1 month at 2.00, 3 months at 0.70: the months 2-3 average
     * (3 x 0.70 - 2.00) / 2 = 0.05, under 1/3 of the fix */
    qset s = {.n = 0};
    offer(&s, "alpha", 1, 2000000, 2000000, 0);
    offer(&s, "alpha", 3, 700000, 2000000, 0);
    curve_result r = compute(20000, &s);
    assert_int_equal(r.t[0].status, CURVE_FITTED);
    assert_int_equal(r.t[1].status, CURVE_WITHHELD);
    assert_non_null(strstr(r.t[1].reason, "less than 1 / error_factor times the fix"));
    assert_true(strncmp(r.t[1].reason, "implausible forward 0.", 22) == 0 ||
                strncmp(r.t[1].reason, "negative forward", 16) == 0);
    assert_int_equal(r.t[2].status, CURVE_WITHHELD);
    curve_result_free(&r);
}

static void test_convexity_screen(void **state)
{
    (void)state;
    static const int terms[] = {1, 3, 6, 12, 24, 36};
    qset s = {.n = 0};
    market(&s, 2000000, terms, 6, 4, backwardation);
    /* one group's forward start of 12 months from ~3 months ahead, 6 %
     * under the curve: it bends the curve */
    double a = 91.0 * 16 / 487;
    double avg = (exp(-0.2 / 12 * (a + 12)) - exp(-0.2 / 12 * a)) / (-0.2 / 12 * 12);
    curve_quote *bad = offer(&s, "eps", 12, llround(2000000 * avg * 0.94), 2000000, DAY + 92);
    curve_result r = compute(20000, &s);
    assert_int_equal(bad->role, CURVE_EXCLUDED);
    assert_true(strncmp(bad->reason, "convexity screen: with it the curve bends by ", 45) == 0);
    assert_non_null(strstr(bad->reason, "(at most 1.00 %)"));
    size_t used = 0;
    for (size_t k = 0; k < r.n_pt; k++) used += r.pt[k].role == CURVE_USED;
    assert_int_equal(used, 6);
    /* without the bad quote the screen has nothing to say */
    s.n--;
    curve_result c = compute(20000, &s);
    for (size_t k = 0; k < c.n_pt; k++) assert_int_equal(c.pt[k].role, CURVE_USED);
    curve_result_free(&r);
    curve_result_free(&c);
}

static void test_futures_screen(void **state)
{
    (void)state;
    static const int terms[] = {1, 3, 6};
    qset s = {.n = 0};
    market(&s, 2000000, terms, 3, 3, flat);
    curve_quote *f[3];
    int32_t jul = 20270, aug = 20301, jun = 20240; /* 2025-07-01, 2025-08-01, 2025-06-01 */
    for (int k = 0; k < 3; k++) {
        f[k] = &s.q[s.n++];
        memset(f[k], 0, sizeof *f[k]);
        f[k]->kind = CURVE_FUTURES;
        f[k]->provider = f[k]->group = f[k]->source = "";
        f[k]->quantity_micro = -1;
    }
    f[0]->symbol = "GPUH-2507"; f[0]->first_day = jul; f[0]->last_day = jul + 30;
    f[0]->price_micro = 2000000; /* the index value: the settlement rule's own price */
    f[1]->symbol = "GPUH-2506"; f[1]->first_day = jun; f[1]->last_day = jun + 29;
    f[1]->price_micro = 1990000; /* in delivery */
    f[2]->symbol = "GPUH-2508"; f[2]->first_day = aug; f[2]->last_day = aug + 30;
    f[2]->price_micro = 2010000; /* a market price */
    curve_result r = compute(20000, &s);
    assert_string_equal(f[0]->reason, "equals the index value (the settlement rule's price before "
                                      "delivery, not a market price)");
    assert_string_equal(f[1]->reason, "in its delivery month (its price holds the month's "
                                      "realised values)");
    assert_int_equal(f[2]->role, CURVE_USED);
    assert_int_equal(f[2]->restated_micro, 2010000); /* on the grade itself: as it is */
    assert_int_equal(f[2]->ref_q, 20000);            /* published as the reference: the fix */
    curve_result_free(&r);
}

/* ---- the independent reference ------------------------------------------------- */

static void write_case(FILE *f, const char *grade, int64_t front, qset *s)
{
    curve_params p;
    curve_params_default(&p);
    curve_result r = compute(front, s);
    curve_json_grade(f, grade, p.error_factor_e6, &r, s->q, s->n, NULL);
    curve_result_free(&r);
}

static void test_reference_agrees(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0) {
        print_message("skipped: no /usr/bin/python3 for tests/ref/ref_curve.py\n");
        return;
    }
    char *dir = tu_mkdtemp("curve-ref");
    char path[4200];
    snprintf(path, sizeof path, "%s/curve.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    curve_params p;
    curve_params_default(&p);
    fputs("{\"format\":4,\"date\":\"2025-06-15\",\"vintage\":1,\"method\":\"" CURVE_METHOD
          "\",\"parameters\":",
          f);
    curve_json_params(f, &p);
    fputs(",\"grades\":[\n", f);
    static const int terms[] = {1, 3, 6, 12, 24, 36};
    qset a = {.n = 0}, b = {.n = 0}, c = {.n = 0}, e = {.n = 0};
    market(&a, 2000000, terms, 6, 4, backwardation);
    offer(&a, "eps", 12, 1790000, 2000000, DAY + 92);
    offer(&a, "eps", 6, 1720000, 2010000, DAY + 170);
    offer(&a, "zeta", 24, 20000000, 2000000, 0);
    write_case(f, "A.OD", 20000, &a);
    fputs(",\n", f);
    offer(&b, "alpha", 1, 2000000, 2000000, 0);
    offer(&b, "alpha", 3, 1900000, 2000000, 0);
    write_case(f, "B.OD", 20000, &b);
    fputs(",\n", f);
    market(&c, 2000000, terms, 6, 4, backwardation);
    offer(&c, "eps", 12, 1650000, 2000000, DAY + 92);
    write_case(f, "C.OD", 20000, &c);
    fputs(",\n", f);
    market(&e, 3100000, terms, 3, 2, flat);
    offer(&e, "gamma", 12, 3300000, 3100000, 0);
    offer(&e, "gamma", 1, 2900000, 3100000, 0);
    write_case(f, "E.OD", 31234, &e);
    fputs("\n]}\n", f);
    fclose(f);
    tu_run r = tu_sh(dir, "/usr/bin/python3 '%s/tests/ref/ref_curve.py' curve.json", GPUIDX_SRCDIR);
    if (r.status != 0) fail_msg("ref_curve.py: %s%s", r.out, r.err);
    assert_non_null(strstr(r.out, "A.OD: ok"));
    assert_non_null(strstr(r.out, "E.OD: ok"));
    tu_run_free(&r);
    tu_run x = tu_sh(dir, "rm -f curve.json");
    tu_run_free(&x);
    rmdir(dir);
    free(dir);
}

/* curve.csv read back (curve/csv_read.c): the lines curve_csv_rows wrote
 * give the same numbers, statuses and reasons; a grade not in the text is
 * not found; a text that is not curve.csv is refused, named. */
static void test_csv_read_back(void **state)
{
    (void)state;
    qset s = {.n = 0};
    offer(&s, "alpha", 1, 2000000, 2000000, 0);
    offer(&s, "alpha", 3, 1900000, 2000000, 0);
    curve_result r = compute(20000, &s);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    curve_csv_header(f);
    curve_csv_rows(f, DAY, "X.OD", &r);
    fclose(f);
    curve_tenor t[CURVE_TENORS];
    int found = 0;
    gpi_diag d = {{0}};
    assert_int_equal(curve_csv_read("c", buf, len, "x.od", t, &found, &d), GPI_OK);
    assert_int_equal(found, 1);
    for (int k = 0; k < CURVE_TENORS; k++) {
        assert_int_equal(t[k].fwd_e4, r.t[k].fwd_e4);
        assert_int_equal(t[k].term_e4, r.t[k].term_e4);
        assert_int_equal(t[k].status, r.t[k].status);
        assert_string_equal(t[k].reason, r.t[k].status == CURVE_WITHHELD ? r.t[k].reason : "");
    }
    assert_int_equal(curve_csv_read("c", buf, len, "Y.OD", t, &found, &d), GPI_OK);
    assert_int_equal(found, 0);
    assert_int_equal(t[0].status, CURVE_WITHHELD);
    free(buf);
    curve_result_free(&r);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"date,grade,value\n", "c:1: not curve.csv's header"},
        {"date,grade,tenor,term_rate,forward,status,reason\n2025-01-01,X.OD,37,,,withheld,x\n",
         "c:2: tenor: not 1..36 (got \"37\")"},
        {"date,grade,tenor,term_rate,forward,status,reason\n2025-01-01,X.OD,1,2.0,2.0,good,\n",
         "c:2: status: not fitted, interpolated or withheld (got \"good\")"},
        {"date,grade,tenor,term_rate,forward,status,reason\n2025-01-01,X.OD,1,2.0,2.0,withheld,\n",
         "c:2: a withheld tenor has no numbers, any other both"},
        {"date,grade,tenor,term_rate,forward,status,reason\n2025-01-01,X.OD,1,abc,2.0,fitted,\n",
         "c:2: term_rate: not a number (got \"abc\")"},
        {"date,grade,tenor,term_rate,forward,status,reason\n2025-01-01,X.OD,1\n",
         "c:2: 3 fields, curve.csv has 7"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gpi_diag e = {{0}};
        assert_int_equal(curve_csv_read("c", bad[i].text, strlen(bad[i].text), "X.OD", t, &found,
                                        &e),
                         GPI_EINPUT);
        assert_string_equal(e.msg, bad[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_monotone),       cmocka_unit_test(test_hand_restatement),
        cmocka_unit_test(test_flat_market_flat_curve), cmocka_unit_test(test_scale_by_1_1),
        cmocka_unit_test(test_reproduces_inputs),   cmocka_unit_test(test_front_is_the_fix),
        cmocka_unit_test(test_screen_named),        cmocka_unit_test(test_withheld_tenors),
        cmocka_unit_test(test_implausible_forward), cmocka_unit_test(test_convexity_screen),
        cmocka_unit_test(test_futures_screen),      cmocka_unit_test(test_reference_agrees),
        cmocka_unit_test(test_csv_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
