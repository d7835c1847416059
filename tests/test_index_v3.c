/* tests/test_index_v3.c -- methodology v3 (index/v3*.c, index/price_*.c;
 * METHODOLOGY.md §13) as pure functions over data: no store.
 *
 *   - ln and exp against values computed with Python's decimal module at
 *     60 digits (literals below);
 *   - the worked example of METHODOLOGY.md §13.8, number by number;
 *   - properties on generated markets (a deterministic generator below):
 *     a member absent for absence_days days or fewer moves nothing (value
 *     and index), on offers days and on trades days; a group present for
 *     fewer than admission_days days in a row moves nothing; relisting a
 *     member's offers under new ids moves nothing; every price x1.1 moves
 *     every value x1.1 to the tick and leaves the index as it was; the
 *     index returns to its start when every price does, with exits and
 *     re-entries on the way; one provider's +20 % moves the index by its
 *     share; the state encoded and decoded steps as the original does.
 */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "index/v3.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- ln and exp ---------------------------------------------------------------- */

static void test_ln_exp(void **state)
{
    (void)state;
    /* python3: decimal, getcontext().prec = 60; round(Decimal(x).ln() * 10**12)
     * half away from zero */
    static const struct {
        int64_t x, want;
    } ln[] = {
        {1, 0},
        {2, 693147180560},
        {3, 1098612288668},
        {1000000, 13815510557964},
        {1099511627776, 27725887222398}, /* 2^40: 40 ln 2 */
        {2990000, 14910783945367},
        {12290000, 16324296481542},
        {4611686018427387903, 42975125194717},
        {999999, 13815509557964},
        {1000001, 13815511557964},
        {99881375803, 25327249076823},
        {8892595, 16000729465908},
        {61, 4110873864173},
        {35050984821622, 31187824826636},
        {988065186106, 27619014510358},
        {1856, 7526178913346},
        {7869674, 15878527196410},
        {428694629737898, 33691765962601},
        {9027911305, 22923586871418},
        {1720, 7450079569807},
        {7177821199012, 29602016998761},
        {190922, 12159620246657},
    };
    for (size_t i = 0; i < N(ln); i++) {
        int64_t got = idx_ln_e12(ln[i].x);
        if (got != ln[i].want)
            fail_msg("ln(%lld): %lld, want %lld", (long long)ln[i].x, (long long)got,
                     (long long)ln[i].want);
    }
    /* round(scale * exp(l / 10^12)) */
    static const struct {
        int64_t l, scale, want;
    } ex[] = {
        {0, 100000000, 100000000},
        {0, INT64_C(1000000000000), INT64_C(1000000000000)},
        {182321556794, INT64_C(1000000000000), INT64_C(1200000000000)}, /* ln 1.2 */
        {-182321556794, 100000000, 83333333},
        {1000000000000, 100000000, 271828183},
        {-1000000000000, INT64_C(1000000000000), 367879441171},
        {30396355092, INT64_C(1000000000000), INT64_C(1030863040807)},
        {-5, INT64_C(1000000000000), 999999999995},
        {INT64_C(20000000000000), 1000000, INT64_C(485165195409790)},
        {INT64_C(-20000000000000), INT64_C(1000000000000), 2061},
        {-987654321, 100000000, 99901283},
    };
    for (size_t i = 0; i < N(ex); i++) {
        int ov = 0;
        int64_t got = idx_exp_scaled(ex[i].l, ex[i].scale, &ov);
        if (ov || got != ex[i].want)
            fail_msg("exp(%lld) x %lld: %lld (overflow %d), want %lld", (long long)ex[i].l,
                     (long long)ex[i].scale, (long long)got, ov, (long long)ex[i].want);
    }
    int ov = 0;
    assert_int_equal(idx_exp_scaled(INT64_C(40000000000001), 1, &ov), -1);
    assert_int_equal(ov, 1);
    idx_exp_scaled(INT64_C(40000000000000), INT64_C(1000000000000), &ov);
    assert_int_equal(ov, 1); /* does not fit 64 bits */
}

/* ---- markets ------------------------------------------------------------------- */

static const char *const NAMES[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
                                    "golf",  "hotel"};
#define NG 8

typedef struct mobs {
    int grp, kind;              /* kind: GPI_OFFER / GPI_TRADE */
    uint64_t key;
    int64_t price, qty;
} mobs;

typedef struct mday {
    mobs *v;
    size_t n, cap;
} mday;

typedef struct market {
    int days;
    mday *d;
} market;

static void add(market *m, int day, int grp, int kind, uint64_t key, int64_t price, int64_t qty)
{
    mday *x = &m->d[day];
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 16;
        x->v = realloc(x->v, x->cap * sizeof *x->v);
        assert_non_null(x->v);
    }
    x->v[x->n++] = (mobs){grp, kind, key, price, qty};
}

static market market_new(int days)
{
    market m = {days, calloc((size_t)days, sizeof(mday))};
    assert_non_null(m.d);
    return m;
}

static void market_free(market *m)
{
    for (int i = 0; i < m->days; i++) free(m->d[i].v);
    free(m->d);
}

static market market_copy(const market *m)
{
    market c = market_new(m->days);
    for (int i = 0; i < m->days; i++)
        for (size_t k = 0; k < m->d[i].n; k++) {
            const mobs *o = &m->d[i].v[k];
            add(&c, i, o->grp, o->kind, o->key, o->price, o->qty);
        }
    return c;
}

static uint64_t rng_state;
static double rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* ng groups, each with 3..5 offers at 2..6 USD that move now and then by
 * up to 5 %, prices multiples of 10 micro-USD; with trades, 2..4 trades a
 * day per group of 200..600 GPU-hours. */
static market generate(int days, int ng, int trades, uint64_t seed)
{
    market m = market_new(days);
    rng_state = seed;
    int64_t px[NG][6];
    int no[NG];
    for (int g = 0; g < ng; g++) {
        no[g] = 3 + (int)(rnd() * 3);
        for (int k = 0; k < no[g]; k++) px[g][k] = (int64_t)(200000 + rnd() * 400000) * 10;
    }
    for (int day = 0; day < days; day++)
        for (int g = 0; g < ng; g++) {
            for (int k = 0; k < no[g]; k++) {
                if (rnd() < 0.15) px[g][k] = (int64_t)((double)px[g][k] * (0.95 + 0.1 * rnd()) / 10) * 10;
                add(&m, day, g, GPI_OFFER, (uint64_t)(g * 100 + k + 1), px[g][k], 0);
            }
            if (!trades) continue;
            int nt = 2 + (int)(rnd() * 3);
            for (int k = 0; k < nt; k++)
                add(&m, day, g, GPI_TRADE, (uint64_t)(100000 + day * 1000 + g * 10 + k),
                    (int64_t)((double)px[g][0] * (0.9 + 0.2 * rnd()) / 10) * 10,
                    (int64_t)(200 + rnd() * 400) * 1000000);
        }
    return m;
}

/* What a day gave, to compare. */
typedef struct rec {
    int level;
    int64_t value, t_q, o_q, adj;
    long n_obs, n_excl, n_prov, panel, imputed, candidates;
    int index_on, moved;
    int64_t log, price_index, change, gap, gap_month;
    long index_providers;
    int64_t loo;
} rec;

static const idx_grade *grade_of(idx_grades **keep, const char *json)
{
    gpi_diag d = {{0}};
    if (idx_grades_parse(json, "g.json", NULL, 0, keep, &d) != GPI_OK) fail_msg("%s", d.msg);
    return &(*keep)->g[0];
}

/* The day's input of market m (screened). */
typedef struct dayin {
    idx_item *o, *t;
    size_t no, nt;
    double *work;
} dayin;

static void day_input(const market *m, int day, dayin *x, idx_v3_input *in, int32_t base)
{
    const mday *md = &m->d[day];
    x->o = realloc(x->o, (md->n + 1) * sizeof *x->o);
    x->t = realloc(x->t, (md->n + 1) * sizeof *x->t);
    x->work = realloc(x->work, (2 * md->n + 2) * sizeof *x->work);
    x->no = x->nt = 0;
    for (size_t k = 0; k < md->n; k++) {
        const mobs *o = &md->v[k];
        idx_item it = {o->price, o->qty, o->key, (int64_t)(base + day) * 86400 + 3600,
                       (int32_t)o->grp, IDX_OK};
        if (o->kind == GPI_OFFER)
            x->o[x->no++] = it;
        else
            x->t[x->nt++] = it;
    }
    idx_screen(x->o, x->no, 3000000, x->work);
    idx_screen(x->t, x->nt, 3000000, x->work);
    *in = (idx_v3_input){base + day, x->o, x->t, x->no, x->nt, NAMES, NG};
}

static rec *run(const market *m, const idx_grade *g)
{
    rec *r = calloc((size_t)m->days, sizeof *r);
    idx_v3 *s = idx_v3_new(g);
    dayin x = {0};
    for (int day = 0; day < m->days; day++) {
        idx_v3_input in;
        day_input(m, day, &x, &in, 20000);
        idx_v3_out *o;
        gpi_diag d = {{0}};
        if (idx_v3_step(s, &in, &o, &d) != GPI_OK) fail_msg("day %d: %s", day, d.msg);
        r[day] = (rec){o->e.level, o->e.value_e4, o->trades_raw_q, o->offers_raw_q, o->e.adj_e6,
                       o->n_obs, o->n_excluded, o->n_providers, o->panel_size, o->n_imputed,
                       o->n_candidates, o->index_on, o->index_moved, o->log_index_e12,
                       o->price_index_e6, o->index_change_e12, o->gap_e6, o->gap_month_e6,
                       o->index_providers, o->loo_move_e4};
    }
    free(x.o);
    free(x.t);
    free(x.work);
    idx_v3_free(s);
    return r;
}

static void same_value(const rec *a, const rec *b, int days, const char *what)
{
    for (int i = 0; i < days; i++)
        if (a[i].level != b[i].level || a[i].value != b[i].value || a[i].t_q != b[i].t_q ||
            a[i].o_q != b[i].o_q)
            fail_msg("%s: day %d: level %d value %lld (raw %lld/%lld), want level %d value %lld "
                     "(raw %lld/%lld)",
                     what, i, b[i].level, (long long)b[i].value, (long long)b[i].t_q,
                     (long long)b[i].o_q, a[i].level, (long long)a[i].value, (long long)a[i].t_q,
                     (long long)a[i].o_q);
}

static void same_index(const rec *a, const rec *b, int days, const char *what)
{
    for (int i = 0; i < days; i++)
        if (a[i].index_on != b[i].index_on || a[i].log != b[i].log ||
            a[i].price_index != b[i].price_index || a[i].change != b[i].change)
            fail_msg("%s: day %d: log index %lld (index %lld), want %lld (index %lld)", what, i,
                     (long long)b[i].log, (long long)b[i].price_index, (long long)a[i].log,
                     (long long)a[i].price_index);
}

static const char *const G_OFFERS =
    "{\"grades\":[{\"id\":\"V3\",\"gpu\":\"H100-SXM-80GB\",\"method\":\"v3\",\"admission_days\":5,"
    "\"absence_days\":4}]}";
static const char *const G_TRADES =
    "{\"grades\":[{\"id\":\"V3T\",\"gpu\":\"H100-SXM-80GB\",\"method\":\"v3\",\"admission_days\":5,"
    "\"absence_days\":4,\"min_trade_volume\":500}]}";

/* m without group grp's observations on days [a, b]; or (copy) with them
 * replaced by its observations of day a - 1. */
static market absent(const market *m, int grp, int a, int b, int copy_last)
{
    market c = market_new(m->days);
    for (int i = 0; i < m->days; i++) {
        const mday *src = i >= a && i <= b && copy_last ? &m->d[a - 1] : &m->d[i];
        for (size_t k = 0; k < m->d[i].n; k++) {
            const mobs *o = &m->d[i].v[k];
            if (o->grp == grp && i >= a && i <= b) continue;
            add(&c, i, o->grp, o->kind, o->key, o->price, o->qty);
        }
        if (i >= a && i <= b && copy_last)
            for (size_t k = 0; k < src->n; k++) {
                const mobs *o = &src->v[k];
                if (o->grp == grp) add(&c, i, o->grp, o->kind, o->key, o->price, o->qty);
            }
    }
    return c;
}

static void absence_case(const char *json, int trades, void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, json);
    int K = g->p.absence_days;
    for (int seed = 1; seed <= 3; seed++) {
        market m = generate(60, 5, trades, (uint64_t)seed * 7919);
        for (int len = 1; len <= K; len++)
            for (int grp = 0; grp < 5; grp++) {
                market gone = absent(&m, grp, 20, 20 + len - 1, 0);
                market held = absent(&m, grp, 20, 20 + len - 1, 1);
                rec *a = run(&held, g), *b = run(&gone, g);
                char what[96];
                snprintf(what, sizeof what, "seed %d, %s absent %d days", seed, NAMES[grp], len);
                same_value(a, b, m.days, what);
                same_index(a, b, m.days, what);
                for (int i = 20; i < 20 + len; i++) assert_int_equal(b[i].imputed, 1);
                if (trades) assert_int_equal(a[25].level, GPI_LEVEL_TRADES);
                free(a);
                free(b);
                market_free(&gone);
                market_free(&held);
            }
        /* K + 1 days: it leaves, and the value moves (it is not imputed) */
        market gone = absent(&m, 0, 20, 20 + K, 0);
        rec *b = run(&gone, g);
        assert_int_equal(b[20 + K].imputed, 0);
        assert_int_equal(b[20 + K].panel, 4);
        free(b);
        market_free(&gone);
        market_free(&m);
    }
    idx_grades_free(gs);
}

static void test_absence_moves_nothing_offers(void **state)
{
    absence_case(G_OFFERS, 0, state);
}

static void test_absence_moves_nothing_trades(void **state)
{
    absence_case(G_TRADES, 1, state);
}

/* A day on which no member is present (the feed stopped) is no fix: the
 * imputed members carry nothing, the value is carried by v1's rule
 * (max_carry_days, then suspended), the index does not move; the members
 * stay imputed for K days and then leave, and once the feed is back the
 * panel forms again after A days. */
static void test_no_member_present_is_no_fix(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, G_OFFERS); /* A 5, K 4, max_carry_days 5 */
    market m = generate(60, 5, 0, 4242);
    market cut = market_copy(&m);
    for (int i = 20; i <= 25; i++) cut.d[i].n = 0; /* six days without any observation */
    rec *a = run(&m, g), *b = run(&cut, g);
    assert_int_equal(a[19].level, GPI_LEVEL_OFFERS);
    for (int i = 20; i <= 25; i++) {
        int carried = i - 20 < g->p.max_carry_days;
        assert_int_equal(b[i].level, carried ? GPI_LEVEL_CARRIED : GPI_LEVEL_SUSPENDED);
        if (carried) assert_int_equal(b[i].value, a[19].value);
        assert_int_equal(b[i].n_obs, 0);
        /* imputed for K days, then gone */
        assert_int_equal(b[i].imputed, i - 20 < g->p.absence_days ? 5 : 0);
        assert_int_equal(b[i].panel, i - 20 < g->p.absence_days ? 5 : 0);
        assert_int_equal(b[i].log, b[19].log);
        if (b[i].moved) fail_msg("day %d: the index moved (%ld providers)", i, b[i].index_providers);
    }
    /* the feed back on day 26: five days of presence, the panel on day 31 */
    for (int i = 26; i <= 30; i++) assert_int_equal(b[i].panel, 0);
    assert_int_equal(b[31].panel, 5);
    assert_int_equal(b[31].level, GPI_LEVEL_OFFERS);
    assert_int_equal(b[31].value, a[31].value);
    /* a gap of K days: the members are imputed throughout and, back on
     * day 24, the value is as if they had never been away */
    market short_cut = market_copy(&m);
    for (int i = 20; i <= 23; i++) short_cut.d[i].n = 0;
    rec *c = run(&short_cut, g);
    for (int i = 20; i <= 23; i++) assert_int_equal(c[i].level, GPI_LEVEL_CARRIED);
    for (int i = 24; i < m.days; i++)
        if (c[i].level != a[i].level || c[i].value != a[i].value)
            fail_msg("day %d: value %lld, want %lld", i, (long long)c[i].value,
                     (long long)a[i].value);
    free(a);
    free(b);
    free(c);
    market_free(&m);
    market_free(&cut);
    market_free(&short_cut);
    idx_grades_free(gs);
}

static void test_presence_below_admission_moves_nothing(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, G_TRADES);
    int A = g->p.admission_days;
    market m = generate(60, 5, 1, 4242);
    rec *base = run(&m, g);
    /* a new group printing 1,000 USD offers and trades of 10,000 GPU-hours:
     * A - 1 days in a row, three times with a day between */
    market x = market_copy(&m);
    for (int burst = 0; burst < 3; burst++)
        for (int i = 0; i < A - 1; i++) {
            int day = 15 + burst * A + i;
            add(&x, day, 5, GPI_OFFER, 9001, 1000000000, 0);
            add(&x, day, 5, GPI_TRADE, (uint64_t)(9100 + day), 1000000000, INT64_C(10000000000));
        }
    rec *r = run(&x, g);
    same_value(base, r, m.days, "a newcomer present for admission_days - 1 days");
    same_index(base, r, m.days, "a newcomer present for admission_days - 1 days");
    assert_int_equal(r[15].candidates, 1);
    free(r);
    /* A days in a row: it joins on day A + 1 */
    market y = market_copy(&m);
    for (int i = 0; i < A; i++) add(&y, 15 + i, 5, GPI_OFFER, 9001, 1000000000, 0);
    r = run(&y, g);
    same_value(base, r, 15 + A, "before it joins");
    assert_int_equal(r[15 + A].panel, 6);
    assert_int_equal(r[15 + A].imputed, 1);
    free(r);
    free(base);
    market_free(&x);
    market_free(&y);
    market_free(&m);
    idx_grades_free(gs);
}

static void test_relisting_moves_nothing(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, G_OFFERS);
    market m = generate(60, 5, 0, 99);
    /* bravo's prices flat from day 18 on, so the index is comparable */
    for (int i = 18; i < m.days; i++)
        for (size_t k = 0; k < m.d[i].n; k++)
            if (m.d[i].v[k].grp == 1)
                for (size_t j = 0; j < m.d[17].n; j++)
                    if (m.d[17].v[j].key == m.d[i].v[k].key) m.d[i].v[k].price = m.d[17].v[j].price;
    rec *base = run(&m, g);
    market x = market_copy(&m);
    for (int i = 25; i < m.days; i++)
        for (size_t k = 0; k < x.d[i].n; k++)
            if (x.d[i].v[k].grp == 1) x.d[i].v[k].key += 5000;
    rec *r = run(&x, g);
    same_value(base, r, m.days, "bravo relisted under new ids");
    same_index(base, r, m.days, "bravo relisted under new ids (flat)");
    free(base);
    free(r);
    market_free(&x);
    market_free(&m);
    idx_grades_free(gs);
}

static void test_scaling(void **state)
{
    (void)state;
    const char *json[2] = {G_OFFERS, G_TRADES};
    for (int t = 0; t < 2; t++) {
        idx_grades *gs = NULL;
        const idx_grade *g = grade_of(&gs, json[t]);
        market m = generate(50, 6, t, 31337 + (uint64_t)t);
        market x = market_copy(&m);
        for (int i = 0; i < x.days; i++)
            for (size_t k = 0; k < x.d[i].n; k++) x.d[i].v[k].price = x.d[i].v[k].price / 10 * 11;
        rec *a = run(&m, g), *b = run(&x, g);
        int fixed = 0;
        for (int i = 0; i < m.days; i++) {
            assert_int_equal(a[i].level, b[i].level);
            if (a[i].value < 0) continue;
            fixed++;
            double want = (double)a[i].value * 1.1;
            if (fabs((double)b[i].value - want) > 1.0 + 1e-9)
                fail_msg("day %d: %lld, want %lld x 1.1 to the tick", i, (long long)b[i].value,
                         (long long)a[i].value);
            assert_int_equal(a[i].index_on, b[i].index_on);
            if (!a[i].index_on) continue;
            /* each ln is rounded to 1e-12 on its own: the log index within a
             * few units, the published index the same */
            if (llabs(a[i].log - b[i].log) > 8)
                fail_msg("day %d: log index %lld, unscaled %lld", i, (long long)b[i].log,
                         (long long)a[i].log);
            assert_true(llabs(a[i].price_index - b[i].price_index) <= 1);
            if (a[i].gap != INT64_MIN) assert_true(llabs(a[i].gap - b[i].gap) <= 200);
        }
        assert_true(fixed > 30);
        free(a);
        free(b);
        market_free(&m);
        market_free(&x);
        idx_grades_free(gs);
    }
}

/* Every price returns to its day-20 value on day 45, with items and a
 * whole group absent (up to absence_days) on the way. */
static void test_index_returns_to_start(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, G_OFFERS);
    market m = generate(50, 5, 0, 777);
    for (size_t k = 0; k < m.d[45].n; k++)
        for (size_t j = 0; j < m.d[20].n; j++)
            if (m.d[20].v[j].key == m.d[45].v[k].key) m.d[45].v[k].price = m.d[20].v[j].price;
    /* exits and re-entries: charlie's first offer away days 25..28, delta
     * entirely away days 30..33, an offer of echo away 40..42 */
    market x = market_new(m.days);
    for (int i = 0; i < m.days; i++)
        for (size_t k = 0; k < m.d[i].n; k++) {
            const mobs *o = &m.d[i].v[k];
            if (o->key == 201 && i >= 25 && i <= 28) continue;
            if (o->grp == 3 && i >= 30 && i <= 33) continue;
            if (o->key == 402 && i >= 40 && i <= 42) continue;
            add(&x, i, o->grp, o->kind, o->key, o->price, o->qty);
        }
    rec *r = run(&x, g);
    assert_true(r[20].index_on);
    int moved = 0;
    for (int i = 21; i <= 45; i++) moved |= r[i].price_index != r[20].price_index;
    assert_true(moved);
    if (llabs(r[45].log - r[20].log) > 30)
        fail_msg("log index %lld on day 45, %lld on day 20", (long long)r[45].log,
                 (long long)r[20].log);
    assert_int_equal(r[45].price_index, r[20].price_index);
    free(r);
    market_free(&x);
    market_free(&m);
    idx_grades_free(gs);
}

static void test_one_provider_moves_by_its_share(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, G_OFFERS);
    for (int ng = 3; ng <= 6; ng++) {
        market m = market_new(30);
        for (int day = 0; day < 30; day++)
            for (int grp = 0; grp < ng; grp++)
                for (int k = 0; k < 3; k++) {
                    int64_t p = (2000000 + 500000 * grp + 10000 * k) * (day >= 20 && grp == 1 ? 12 : 10) / 10;
                    add(&m, day, grp, GPI_OFFER, (uint64_t)(grp * 100 + k + 1), p, 0);
                }
        rec *r = run(&m, g);
        assert_int_equal(r[20].index_providers, ng);
        double want = pow(1.2, 1.0 / ng);
        double got = (double)r[20].change / 1e12;
        if (fabs(got - want) > 2e-12) fail_msg("%d providers: change %.12f, want %.12f", ng, got, want);
        assert_int_equal(r[21].change, INT64_C(1000000000000));
        /* capped: +400 % counts as x3 */
        market x = market_copy(&m);
        for (int day = 20; day < 30; day++)
            for (size_t k = 0; k < x.d[day].n; k++)
                if (x.d[day].v[k].grp == 1) x.d[day].v[k].price = x.d[day].v[k].price / 12 * 50;
        free(r);
        r = run(&x, g);
        want = pow(3.0, 1.0 / ng);
        got = (double)r[20].change / 1e12;
        if (fabs(got - want) > 2e-12) fail_msg("%d providers, capped: change %.12f, want %.12f", ng, got, want);
        free(r);
        market_free(&x);
        market_free(&m);
    }
    idx_grades_free(gs);
}

/* METHODOLOGY.md §13.8, number by number (ln and exp by Python's decimal
 * module, 60 digits: ln 1.1 to 1e-12 = 0.095310179804, the two offers'
 * log relatives 0.095310179805 and 0.095310179804, A's mean
 * 0.095310179805, the day's change 0.031770059935 = its third, exp of it
 * 1.032280115457; the gap 1.5/2.1 - 1.032280115457 = -0.317994). */
static void test_worked_example(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, "{\"grades\":[{\"id\":\"G\",\"gpu\":\"H100-SXM-80GB\","
                                       "\"method\":\"v3\",\"admission_days\":2,"
                                       "\"absence_days\":1}]}");
    market m = market_new(6);
    for (int day = 0; day < 6; day++) {
        int64_t up = day >= 4 ? 11 : 10; /* A: +10 % on day 5 (index 4) */
        add(&m, day, 0, GPI_OFFER, 1, 200000 * up, 0);
        add(&m, day, 0, GPI_OFFER, 2, 220000 * up, 0);
        if (day <= 2 || day == 5) add(&m, day, 1, GPI_OFFER, 11, 3000000, 0); /* B */
        add(&m, day, 2, GPI_OFFER, 21, 1500000, 0);                            /* C */
        if (day >= 2) add(&m, day, 3, GPI_OFFER, 31, 1000000, 0);              /* D */
    }
    idx_v3 *s = idx_v3_new(g);
    dayin x = {0};
    static const struct {
        int level;
        int64_t value;
        long panel, imputed, candidates;
        int change;
        int64_t price_index, index_change, gap;
        const char *roles; /* alpha bravo charlie delta */
    } want[6] = {
        {GPI_LEVEL_SUSPENDED, -1, 0, 0, 3, 0, -1, -1, INT64_MIN, "ccc-"},
        {GPI_LEVEL_SUSPENDED, -1, 0, 0, 3, 0, -1, -1, INT64_MIN, "ccc-"},
        {GPI_LEVEL_OFFERS, 21000, 3, 0, 1, 1, 100000000, -1, INT64_MIN, "mmmc"},
        {GPI_LEVEL_OFFERS, 21000, 3, 1, 1, 0, 100000000, INT64_C(1000000000000), 0, "mimc"},
        {GPI_LEVEL_OFFERS, 15000, 3, 0, 0, 1, 103228012, INT64_C(1032280115457), -317994,
         "mlmm"},
        {GPI_LEVEL_OFFERS, 15000, 3, 0, 1, 0, 103228012, INT64_C(1000000000000), 0, "mcmm"},
    };
    for (int day = 0; day < 6; day++) {
        idx_v3_input in;
        day_input(&m, day, &x, &in, gpi_days_from_civil(2025, 3, 1));
        idx_v3_out *o;
        gpi_diag d = {{0}};
        if (idx_v3_step(s, &in, &o, &d) != GPI_OK) fail_msg("%s", d.msg);
        char roles[5] = "----";
        for (size_t k = 0; k < o->n_groups; k++) {
            int gi = o->groups[k].name[0] == 'a' ? 0 : o->groups[k].name[0] == 'b' ? 1
                     : o->groups[k].name[0] == 'c' ? 2 : 3;
            roles[gi] = "-micl"[o->groups[k].role];
        }
        if (o->e.level != want[day].level || o->e.value_e4 != want[day].value ||
            o->panel_size != want[day].panel || o->n_imputed != want[day].imputed ||
            o->n_candidates != want[day].candidates || o->panel_change != want[day].change ||
            o->price_index_e6 != want[day].price_index ||
            o->index_change_e12 != want[day].index_change || o->gap_e6 != want[day].gap ||
            strcmp(roles, want[day].roles) != 0)
            fail_msg("day %d: level %d value %lld panel %ld imputed %ld candidates %ld change %d "
                     "index %lld change %lld gap %lld roles %s",
                     day + 1, o->e.level, (long long)o->e.value_e4, o->panel_size, o->n_imputed,
                     o->n_candidates, o->panel_change, (long long)o->price_index_e6,
                     (long long)o->index_change_e12, (long long)o->gap_e6, roles);
        if (day == 0)
            assert_string_equal(o->note, "no eligible observations of the panel; 3 providers "
                                         "not yet in the panel; no earlier value to carry");
        if (day == 4) { /* A's log relative, the day's change */
            assert_int_equal(o->groups[0].rel_log_e12, INT64_C(95310179805));
            assert_int_equal(o->delta_e12, INT64_C(31770059935));
            assert_int_equal(o->index_providers, 3);
        }
        if (day == 3) { /* B imputed at its 3.00 of day 3, the day's value unchanged */
            assert_int_equal(o->groups[1].offers_median_h, 6000000);
            assert_int_equal(o->groups[1].absent_days, 1);
        }
    }
    free(x.o);
    free(x.t);
    free(x.work);
    idx_v3_free(s);
    market_free(&m);
    idx_grades_free(gs);
}

static void test_state_round_trip(void **state)
{
    (void)state;
    idx_grades *gs = NULL;
    const idx_grade *g = grade_of(&gs, G_TRADES);
    market m = generate(70, 6, 1, 2024);
    /* churn: a group away for longer than absence_days, and back */
    market x = absent(&m, 2, 30, 40, 0);
    idx_v3 *a = idx_v3_new(g), *b = NULL;
    dayin xa = {0}, xb = {0};
    for (int day = 0; day < x.days; day++) {
        idx_v3_input in;
        idx_v3_out *oa, *ob;
        gpi_diag d = {{0}};
        if (day % 9 == 4) { /* b from a's bytes */
            unsigned char *p;
            size_t n;
            assert_int_equal(idx_v3_encode(a, &p, &n, &d), GPI_OK);
            idx_v3_free(b);
            b = idx_v3_new(g);
            if (idx_v3_decode(b, p, n, &d) != GPI_OK) fail_msg("decode: %s", d.msg);
            /* a truncated copy is refused */
            idx_v3 *c = idx_v3_new(g);
            assert_int_equal(idx_v3_decode(c, p, n - 8, &d), GPI_EINPUT);
            idx_v3_free(c);
            free(p);
        }
        day_input(&x, day, &xa, &in, 20000);
        assert_int_equal(idx_v3_step(a, &in, &oa, &d), GPI_OK);
        if (!b) continue;
        day_input(&x, day, &xb, &in, 20000);
        assert_int_equal(idx_v3_step(b, &in, &ob, &d), GPI_OK);
        assert_int_equal(oa->e.level, ob->e.level);
        assert_int_equal(oa->e.value_e4, ob->e.value_e4);
        assert_int_equal(oa->log_index_e12, ob->log_index_e12);
        assert_int_equal(oa->gap_e6, ob->gap_e6);
        assert_int_equal(oa->gap_month_e6, ob->gap_month_e6);
        assert_int_equal(oa->n_groups, ob->n_groups);
        assert_int_equal(oa->loo_move_e4, ob->loo_move_e4);
        for (size_t k = 0; k < oa->n_groups; k++) {
            assert_string_equal(oa->groups[k].name, ob->groups[k].name);
            assert_int_equal(oa->groups[k].role, ob->groups[k].role);
            assert_int_equal(oa->groups[k].rel_log_e12, ob->groups[k].rel_log_e12);
        }
    }
    free(xa.o);
    free(xa.t);
    free(xa.work);
    free(xb.o);
    free(xb.t);
    free(xb.work);
    idx_v3_free(a);
    idx_v3_free(b);
    market_free(&x);
    market_free(&m);
    idx_grades_free(gs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ln_exp),
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_absence_moves_nothing_offers),
        cmocka_unit_test(test_absence_moves_nothing_trades),
        cmocka_unit_test(test_no_member_present_is_no_fix),
        cmocka_unit_test(test_presence_below_admission_moves_nothing),
        cmocka_unit_test(test_relisting_moves_nothing),
        cmocka_unit_test(test_scaling),
        cmocka_unit_test(test_index_returns_to_start),
        cmocka_unit_test(test_one_provider_moves_by_its_share),
        cmocka_unit_test(test_state_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
