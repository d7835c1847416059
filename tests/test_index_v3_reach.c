/* tests/test_index_v3_reach.c -- methodology v3's manipulation figures in
 * the unit that settles money (index/v3_reach.c, METHODOLOGY.md §11.4):
 * the published largest move of a month's final settlement price (FSP,
 * the mean of the month's daily values, calendar or business days) bounds
 * every attack actually carried out on a generated market, by replaying
 * the whole market through idx_v3_step with the attack in it:
 *
 *  - absent: every group, withdrawn for 1 .. K + 1 days from every day;
 *  - print: every group printing all its offers at 1,000,000 USD, at
 *    0.000001 USD, x3 or x0.3 for a whole month;
 *  - new: a new group listing one offer at either extreme or at a middle
 *    price for 1 .. A + 1 days from every day;
 *
 * and the month's figures by hand on a small case (idx_fsp_reach: sums
 * over a span, the carried days after it, days that gain or lose their
 * value).  tests/test_e2e_reach.c compares the published figures with
 * tests/ref/ref_reach.py.
 */
#include "tests/testutil.h"
#include "index/v3.h"
#include "index/index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
                                    "newcomer"};
#define NG 6
#define NEWG 6
#define DAYS 60 /* January and February 2024 */
#define HI INT64_C(1000000000000)

typedef struct mobs {
    int grp;
    uint64_t key;
    int64_t price;
} mobs;

typedef struct market {
    mobs v[DAYS][64];
    int n[DAYS];
} market;

static uint64_t rng_state;
static double rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void add(market *m, int day, int grp, uint64_t key, int64_t price)
{
    assert_true(m->n[day] < 64);
    m->v[day][m->n[day]++] = (mobs){grp, key, price};
}

/* Six groups of 2..4 offers at 2..6 USD moving now and then; delta joins
 * on day 20, echo leaves on day 40 and comes back on day 50, foxtrot is
 * away on days 10..12 (a member imputed), and on days 30..33 only alpha,
 * bravo and charlie list (the panel thin). */
static void generate(market *m, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    rng_state = seed;
    int64_t px[NG][4];
    int no[NG];
    for (int g = 0; g < NG; g++) {
        no[g] = 2 + (int)(rnd() * 3);
        for (int k = 0; k < no[g]; k++) px[g][k] = (int64_t)(200000 + rnd() * 400000) * 10;
    }
    for (int day = 0; day < DAYS; day++)
        for (int g = 0; g < NG; g++) {
            if (g == 3 && day < 20) continue;
            if (g == 4 && day >= 40 && day < 50) continue;
            if (g == 5 && day >= 10 && day <= 12) continue;
            if (g >= 3 && day >= 30 && day <= 33) continue;
            for (int k = 0; k < no[g]; k++) {
                if (rnd() < 0.15)
                    px[g][k] = (int64_t)((double)px[g][k] * (0.9 + 0.2 * rnd()) / 10) * 10;
                add(m, day, g, (uint64_t)(g * 100 + k + 1), px[g][k]);
            }
        }
}

static const char *const GRADE =
    "{\"grades\":[{\"id\":\"V3\",\"gpu\":\"H100-SXM-80GB\",\"method\":\"v3\",\"admission_days\":3,"
    "\"absence_days\":2}]}";

static idx_grades *grades;
static int32_t base;

static int setup(void **state)
{
    (void)state;
    gpi_diag d = {{0}};
    if (idx_grades_parse(GRADE, "g.json", NULL, 0, &grades, &d) != GPI_OK) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    base = gpi_days_from_civil(2024, 1, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    idx_grades_free(grades);
    return 0;
}

/* What a run gave: each day's value, and each month's figures on its last
 * day. */
typedef struct run_out {
    int64_t v[DAYS];
    int64_t fig[2][IDX_REACH_KINDS][2]; /* month (Jan, Feb), kind, calendar */
} run_out;

static void run(const market *m, run_out *r)
{
    const idx_grade *g = &grades->g[0];
    idx_v3 *s = idx_v3_new(g);
    assert_non_null(s);
    idx_item o[64];
    double work[130];
    for (int day = 0; day < DAYS; day++) {
        size_t n = 0;
        for (int k = 0; k < m->n[day]; k++) {
            const mobs *x = &m->v[day][k];
            o[n++] = (idx_item){x->price, 0, x->key, (int64_t)(base + day) * 86400 + 3600,
                                (int32_t)x->grp, IDX_OK};
        }
        idx_screen(o, n, 3000000, work);
        idx_v3_input in = {base + day, o, NULL, n, 0, NAMES, NG + 1};
        idx_v3_out *out;
        gpi_diag d = {{0}};
        if (idx_v3_step(s, &in, &out, &d) != GPI_OK) fail_msg("day %d: %s", day, d.msg);
        r->v[day] = out->e.level == GPI_LEVEL_SUSPENDED ? -1 : out->e.value_e4;
        int month = day == 30 ? 0 : day == 59 ? 1 : -1;
        if (month >= 0)
            for (int k = 0; k < IDX_REACH_KINDS; k++)
                for (int c = 0; c < 2; c++) r->fig[month][k][c] = out->fsp_reach_e6[k][c];
    }
    idx_v3_free(s);
}

/* The FSP of month (0 Jan: days 0..30, 1 Feb: 31..59), e4 as a double;
 * NAN when no day has a value. */
static double fsp(const int64_t *v, int month, int business)
{
    int a = month ? 31 : 0, b = month ? 59 : 30;
    double sum = 0;
    int n = 0;
    for (int i = a; i <= b; i++) {
        if (v[i] < 0) continue;
        if (business && gpi_iso_weekday(base + i) > 5) continue;
        sum += (double)v[i];
        n++;
    }
    return n ? sum / n : NAN;
}

static long checked, moved;
static double worst_share; /* largest measured move / figure */

static void check(const run_out *b, const run_out *x, int kind, const char *what)
{
    for (int month = 0; month < 2; month++)
        for (int c = 0; c < 2; c++) {
            double f0 = fsp(b->v, month, c), f1 = fsp(x->v, month, c);
            if (isnan(f0)) continue;
            double mv = isnan(f1) ? INFINITY : fabs(f1 - f0) * 100; /* e6 */
            int64_t fig = b->fig[month][kind][c];
            checked++;
            if (mv > 0) moved++;
            if (fig < 0 || mv > (double)fig + 1e-6)
                fail_msg("%s: month %d (%s days): the FSP moved %.6f USD, the figure (%s) is "
                         "%.6f",
                         what, month + 1, c ? "business" : "calendar", mv / 1e6,
                         idx_reach_kind_name(kind), (double)fig / 1e6);
            if (fig > 0 && mv / (double)fig > worst_share) worst_share = mv / (double)fig;
        }
}

static void test_figures_bound_every_attack(void **state)
{
    (void)state;
    static market m, x;
    static run_out b, r;
    const idx_grade *g = &grades->g[0];
    int A = g->p.admission_days, K = g->p.absence_days;
    for (uint64_t seed = 1; seed <= 1; seed++) {
        generate(&m, seed * 7919);
        run(&m, &b);
        /* the figures are there and not all zero */
        assert_true(b.fig[1][IDX_REACH_ABSENT][0] > 0);
        assert_true(b.fig[1][IDX_REACH_PRINT][0] > 0);
        assert_true(b.fig[1][IDX_REACH_NEW][0] > 0);
        char what[96];
        /* absent: every group, 1..K+1 days from every day */
        for (int grp = 0; grp < NG; grp++)
            for (int s = 0; s < DAYS; s++)
                for (int w = 1; w <= K + 1 && s + w <= DAYS; w++) {
                    memset(&x, 0, sizeof x);
                    for (int day = 0; day < DAYS; day++)
                        for (int k = 0; k < m.n[day]; k++)
                            if (!(m.v[day][k].grp == grp && day >= s && day < s + w))
                                add(&x, day, m.v[day][k].grp, m.v[day][k].key,
                                    m.v[day][k].price);
                    run(&x, &r);
                    snprintf(what, sizeof what, "seed %d: %s absent days %d..%d", (int)seed,
                             NAMES[grp], s, s + w - 1);
                    check(&b, &r, IDX_REACH_ABSENT, what);
                }
        /* print: every group, a whole month, four ways */
        static const double how[] = {-1, -2, 3.0, 0.3};
        for (int grp = 0; grp < NG; grp++)
            for (int month = 0; month < 2; month++)
                for (int h = 0; h < 4; h++) {
                    x = m;
                    for (int day = month ? 31 : 0; day <= (month ? 59 : 30); day++)
                        for (int k = 0; k < x.n[day]; k++) {
                            mobs *o = &x.v[day][k];
                            if (o->grp != grp) continue;
                            o->price = how[h] == -1   ? HI
                                       : how[h] == -2 ? 1
                                                      : (int64_t)((double)o->price * how[h]);
                        }
                    run(&x, &r);
                    snprintf(what, sizeof what, "seed %d: %s printing (%g) in month %d",
                             (int)seed, NAMES[grp], how[h], month + 1);
                    check(&b, &r, IDX_REACH_PRINT, what);
                }
        /* new: one offer for 1..A+1 days from every day, three prices */
        static const int64_t at[] = {HI, 1, 3500000};
        for (int p = 0; p < 3; p++)
            for (int s = 0; s < DAYS; s++)
                for (int w = 1; w <= A + 1 && s + w <= DAYS; w++) {
                    x = m;
                    for (int day = s; day < s + w; day++) add(&x, day, NEWG, 9999, at[p]);
                    run(&x, &r);
                    snprintf(what, sizeof what, "seed %d: a newcomer at %lld on days %d..%d",
                             (int)seed, (long long)at[p], s, s + w - 1);
                    check(&b, &r, IDX_REACH_NEW, what);
                }
    }
    print_message("%ld month checks, %ld moved, largest move / figure %.3f\n", checked, moved, worst_share);
    /* the attacks did move months: the test is not vacuous */
    assert_true(checked > 1000);
    assert_true(moved > 100);
    assert_true(worst_share > 0.2);
}

/* ---- idx_fsp_reach by hand ------------------------------------------------------ */

static idx_reach_day day_of(int32_t d, int64_t v, int64_t lo, int64_t hi)
{
    idx_reach_day r;
    memset(&r, 0, sizeof r);
    r.day = d;
    r.v_e4 = v;
    for (int k = 0; k < IDX_REACH_KINDS; k++) {
        r.lo_e4[k] = lo;
        r.hi_e4[k] = hi;
    }
    return r;
}

static void test_month_figure_by_hand(void **state)
{
    (void)state;
    int32_t d0 = gpi_days_from_civil(2024, 3, 1); /* a Friday */
    idx_reach_day v[5];
    /* values 2.0000 each day; day 2 can go 1.5000..3.0000, day 4 2.0000..2.4000 */
    for (int i = 0; i < 5; i++) v[i] = day_of(d0 + i, 20000, 20000, 20000);
    v[2].lo_e4[IDX_REACH_NEW] = 15000;
    v[2].hi_e4[IDX_REACH_NEW] = 30000;
    v[4].hi_e4[IDX_REACH_NEW] = 24000;
    /* span 1: the largest single day, 1.0000 up, over 5 days: 0.200000 */
    assert_int_equal(idx_fsp_reach(NULL, v, 5, IDX_REACH_NEW, 0, 1), 200000);
    /* span 3: days 2..4, up 1.0000 + 0.4000 = 1.4 / 5 = 0.280000 */
    assert_int_equal(idx_fsp_reach(NULL, v, 5, IDX_REACH_NEW, 0, 3), 280000);
    /* business days: 03-01 (Fri), 03-04, 03-05 (Mon, Tue): days 0, 3, 4 --
     * day 2 (Sun) does not count; day 4 up 0.4 / 3 = 0.133334 (rounded up) */
    assert_int_equal(idx_fsp_reach(NULL, v, 5, IDX_REACH_NEW, 1, 3), 133334);
    /* day 3 carried: a span ending on day 2 runs on over it, and day 3
     * goes wherever day 2 could: span 1 from day 2: 1.0 + 1.0 = 2.0 / 5 */
    v[3].carried = 1;
    assert_int_equal(idx_fsp_reach(NULL, v, 5, IDX_REACH_NEW, 0, 1), 400000);
    v[3].carried = 0;
    /* day 1 can lose its value: it counts the month's whole range (1.5 ..
     * 3.0), 1.5 each way: span 1, 1.5 / 5 = 0.300000 */
    v[1].void_[IDX_REACH_NEW] = 1;
    assert_int_equal(idx_fsp_reach(NULL, v, 5, IDX_REACH_NEW, 0, 1), 300000);
    /* no day with a value: none */
    for (int i = 0; i < 5; i++) v[i].v_e4 = -1;
    assert_int_equal(idx_fsp_reach(NULL, v, 5, IDX_REACH_NEW, 0, 1), -1);
    /* the spans */
    const idx_grade *g = &grades->g[0];
    assert_int_equal(idx_reach_span(g, IDX_REACH_ABSENT), 3 + 2 + 1);
    assert_int_equal(idx_reach_span(g, IDX_REACH_NEW), 2 + 1);
    assert_int_equal(idx_reach_span(g, IDX_REACH_PRINT), 31);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_month_figure_by_hand),
        cmocka_unit_test(test_figures_bound_every_attack),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
