/* tests/test_index_loo.c -- leave one provider out of a v2 day's matching
 * (index/chain_rel.c notes 3-4, index/manip.c note 1).
 *
 * On random panels (a generator below: thousands of offers at most, a few
 * to a dozen providers, members unpriced today or at ref, implausible
 * moves, relatives out of range, min_providers from 1 to 6):
 *   - the offers relative of a peek, with and without a provider left
 *     out, equals an independent computation here (the median of provider
 *     medians of the matched relatives, by the rules of METHODOLOGY.md
 *     §10.2, with exact integers and naive grouping);
 *   - between idx_chain_loo_begin and _end, a peek leaving each provider
 *     out (and one that is not in the panel) gives the same evaluation,
 *     field by field, and leaves the same members matched with the same
 *     relatives as the same peek from scratch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpi.h"
#include "index/feed.h"
#include "index/manip.h"
#include "index/snap.h"
#include "tests/testutil.h"

#define E12 INT64_C(1000000000000)

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* ---- the reference ------------------------------------------------------------ */

/* round(a / b) half-up, a >= 0, b > 0 */
static int64_t ref_round(__int128 a, __int128 b)
{
    return (int64_t)((2 * a + b) / (2 * b));
}

/* now / base in 1e-12, -1 outside [1e-6, 1e6] */
static int64_t ref_rel(int64_t now, int64_t base)
{
    if (now <= 0 || base <= 0) return -1;
    int64_t r = ref_round((__int128)now * E12, base);
    return r < 1000000 || r > INT64_C(1000000000000000000) ? -1 : r;
}

/* doubled median of v[0..n), sorted here (insertion) */
static int64_t ref_median2(int64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? 2 * v[n / 2] : v[n / 2 - 1] + v[n / 2];
}

typedef struct ref_out {
    int64_t rel, now_q, ref_q;
    long n_matched, n_prov;
} ref_out;

/* The offers statistic of members whose price today is now[i] (-1 none),
 * leaving group *ex out (ex NULL: none). */
static ref_out reference(const idx_member *m, const int64_t *now, size_t n, const uint64_t *ex,
                         int64_t factor_e6, int min_prov)
{
    ref_out r = {-1, -1, -1, 0, 0};
    uint64_t *grp = malloc((n + 1) * sizeof *grp);
    int64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
    int64_t *mn = malloc((n + 1) * sizeof *mn), *mr = malloc((n + 1) * sizeof *mr);
    unsigned char *in = calloc(n + 1, 1);
    int64_t *rn = malloc((n + 1) * sizeof *rn), *rr = malloc((n + 1) * sizeof *rr);
    assert_non_null(grp && a && b && mn && mr && in && rn && rr);
    for (size_t i = 0; i < n; i++) {
        if (now[i] < 0 || m[i].ref < 0 || (ex && m[i].group == *ex)) continue;
        if ((__int128)now[i] * 1000000 > (__int128)factor_e6 * m[i].ref ||
            (__int128)m[i].ref * 1000000 > (__int128)factor_e6 * now[i])
            continue; /* implausible */
        rn[i] = ref_rel(now[i], m[i].base);
        rr[i] = ref_rel(m[i].ref, m[i].base);
        if (rn[i] < 0 || rr[i] < 0) continue;
        in[i] = 1;
        r.n_matched++;
    }
    size_t np = 0;
    for (size_t i = 0; i < n; i++) { /* each group once, at its first member */
        if (!in[i]) continue;
        size_t j = 0;
        while (j < np && grp[j] != m[i].group) j++;
        if (j < np) continue;
        grp[np] = m[i].group;
        size_t k = 0;
        for (size_t x = 0; x < n; x++)
            if (in[x] && m[x].group == m[i].group) {
                a[k] = rn[x];
                b[k++] = rr[x];
            }
        mn[np] = ref_median2(a, k);
        mr[np++] = ref_median2(b, k);
    }
    r.n_prov = (long)np;
    if (np > 0 && (long)np >= min_prov) {
        r.now_q = ref_median2(mn, np);
        r.ref_q = ref_median2(mr, np);
        int64_t x = ref_round((__int128)r.now_q * E12, r.ref_q);
        r.rel = x < 1000000 || x > INT64_C(1000000000000000000) ? -1 : x;
    }
    free(grp);
    free(a);
    free(b);
    free(mn);
    free(mr);
    free(in);
    free(rn);
    free(rr);
    return r;
}

/* ---- random panels ----------------------------------------------------------------- */

typedef struct panel {
    idx_grade g;
    idx_chain c;
    int32_t day;
    size_t ng;
    uint64_t groups[16];
    int64_t *now;   /* each member's price today (-1 none): what prepare() gives */
} panel;

static void panel_make(panel *p, uint64_t *seed)
{
    memset(p, 0, sizeof *p);
    idx_params_default(&p->g.p);
    snprintf(p->g.id, sizeof p->g.id, "LOO");
    p->g.method = 2;
    p->g.p.min_providers = 1 + (int)(lcg(seed) % 6);
    p->g.p.anchor_days = 1;
    assert_int_equal(idx_chain_init(&p->c, &p->g), GPI_OK);
    idx_chain *c = &p->c;
    p->day = gpi_days_from_civil(2025, 3, 17);
    c->has = 1;
    c->last_day = c->ref_day = p->day - 1;
    c->anchor_day = c->reset_day = idx_period_start(p->day, 1); /* no rebalance due */
    c->nano = INT64_C(2000000000);
    c->value_e4 = 20000;
    p->ng = 1 + lcg(seed) % 12;
    for (size_t k = 0; k < p->ng; k++) p->groups[k] = lcg(seed) << 31 ^ lcg(seed);
    size_t n = lcg(seed) % 4 == 0 ? lcg(seed) % 8 : lcg(seed) % 3000;
    c->mem[0] = calloc(n + 1, sizeof *c->mem[0]);
    c->cap_mem[0] = n + 1;
    c->cur.o = calloc(n + 1, sizeof *c->cur.o);
    c->cur.cap_o = n + 1;
    p->now = malloc((n + 1) * sizeof *p->now);
    assert_non_null(c->mem[0] && c->cur.o && p->now);
    uint64_t key = 0;
    for (size_t i = 0; i < n; i++) {
        idx_member *m = &c->mem[0][i];
        key += 1 + lcg(seed) % 1000;
        m->key = key;
        /* a few providers hold most offers */
        size_t gk = lcg(seed) % 3 == 0 ? lcg(seed) % p->ng : lcg(seed) % (p->ng / 2 + 1);
        m->group = p->groups[gk];
        m->base = 1000000 + (int64_t)(lcg(seed) % 9000000);
        int64_t r = (int64_t)(lcg(seed) % 1000);
        m->ref = r < 50 ? -1 : m->base * (900 + r % 200) / 1000;
        if (r == 999) m->ref = 1; /* a relative out of range */
        m->last = m->ref;
        m->last_vol = -1;
        m->last_day = p->day - 1;
        int64_t t = (int64_t)(lcg(seed) % 1000);
        p->now[i] = t < 100 ? -1 : t < 110 ? m->base * 5 : m->base * (800 + t % 400) / 1000;
        if (p->now[i] >= 0) {
            /* equal prices now and then: ties between provider medians */
            if (t % 7 == 0) p->now[i] = m->base;
            c->cur.o[c->cur.no++] = (idx_const){m->key, m->group, p->now[i], -1, NULL};
        }
        c->n_mem[0] = i + 1;
    }
}

static void panel_free(panel *p)
{
    idx_chain_free(&p->c);
    free(p->now);
}

static void peek(panel *p, const uint64_t *ex, idx_v2eval *out)
{
    idx_eval xs = {GPI_LEVEL_OFFERS, 20100, 1000000, 0, 0, 0};
    gpi_diag d = {{0}};
    if (idx_chain_peek(&p->c, p->day, &xs, ex ? *ex : 0, out, &d) != GPI_OK)
        fail_msg("peek: %s", d.msg);
}

static void expect_reference(panel *p, const uint64_t *ex, const idx_v2eval *v, int trial)
{
    ref_out r = reference(p->c.mem[0], p->now, p->c.n_mem[0], ex, p->g.p.error_factor_e6,
                          p->g.p.min_providers);
    if (v->relative_e12 != r.rel || (r.rel > 0 && (v->n_matched != r.n_matched ||
                                                   v->n_matched_providers != r.n_prov ||
                                                   v->matched_now_q != r.now_q ||
                                                   v->matched_ref_q != r.ref_q)))
        fail_msg("trial %d (%zu members, %zu groups, min %d, %s): relative %lld n %ld/%ld "
                 "now %lld ref %lld; want %lld n %ld/%ld now %lld ref %lld",
                 trial, p->c.n_mem[0], p->ng, p->g.p.min_providers, ex ? "one out" : "all",
                 (long long)v->relative_e12, v->n_matched, v->n_matched_providers,
                 (long long)v->matched_now_q, (long long)v->matched_ref_q, (long long)r.rel,
                 r.n_matched, r.n_prov, (long long)r.now_q, (long long)r.ref_q);
}

typedef struct marks {
    unsigned char *matched;
    int64_t *rn, *rr;
} marks;

static marks marks_of(const idx_chain *c)
{
    size_t n = c->n_mem[0];
    marks k = {malloc(n + 1), malloc((n + 1) * sizeof(int64_t)), malloc((n + 1) * sizeof(int64_t))};
    assert_non_null(k.matched && k.rn && k.rr);
    for (size_t i = 0; i < n; i++) {
        k.matched[i] = (unsigned char)c->mem[0][i].matched;
        k.rn[i] = c->mem[0][i].rel_now;
        k.rr[i] = c->mem[0][i].rel_ref;
    }
    return k;
}

static void marks_free(marks *k)
{
    free(k->matched);
    free(k->rn);
    free(k->rr);
}

static void test_offers_relative_is_the_reference(void **state)
{
    (void)state;
    uint64_t seed = 15;
    for (int trial = 0; trial < 60; trial++) {
        panel p;
        panel_make(&p, &seed);
        idx_v2eval v;
        peek(&p, NULL, &v);
        expect_reference(&p, NULL, &v, trial);
        for (size_t k = 0; k < p.ng; k++) {
            peek(&p, &p.groups[k], &v);
            expect_reference(&p, &p.groups[k], &v, trial);
        }
        panel_free(&p);
    }
}

static void test_leave_one_out_equals_from_scratch(void **state)
{
    (void)state;
    uint64_t seed = 1515;
    gpi_diag d = {{0}};
    long compared = 0, differed_from_all = 0;
    for (int trial = 0; trial < 60; trial++) {
        panel p;
        panel_make(&p, &seed);
        idx_v2eval all, a, b;
        peek(&p, NULL, &all); /* as idx_row_fix does before manip.c */
        uint64_t ex[17];
        size_t nx = 0;
        for (size_t k = 0; k < p.ng; k++) ex[nx++] = p.groups[k];
        ex[nx++] = 12345; /* not in the panel */
        for (size_t k = 0; k < nx; k++) {
            peek(&p, &ex[k], &a); /* from scratch */
            marks ma = marks_of(&p.c);
            if (idx_chain_loo_begin(&p.c, p.day, &d) != GPI_OK) fail_msg("%s", d.msg);
            peek(&p, &ex[k], &b);
            marks mb = marks_of(&p.c);
            idx_chain_loo_end(&p.c);
            if (memcmp(&a, &b, sizeof a) != 0)
                fail_msg("trial %d, group %zu of %zu (min %d): relative %lld vs %lld, n %ld/%ld "
                         "vs %ld/%ld, now %lld vs %lld, ref %lld vs %lld, value %lld vs %lld",
                         trial, k, nx, p.g.p.min_providers, (long long)a.relative_e12,
                         (long long)b.relative_e12, a.n_matched, a.n_matched_providers,
                         b.n_matched, b.n_matched_providers, (long long)a.matched_now_q,
                         (long long)b.matched_now_q, (long long)a.matched_ref_q,
                         (long long)b.matched_ref_q, (long long)a.value_e4,
                         (long long)b.value_e4);
            for (size_t i = 0; i < p.c.n_mem[0]; i++)
                if (ma.matched[i] != mb.matched[i] ||
                    (ma.matched[i] && (ma.rn[i] != mb.rn[i] || ma.rr[i] != mb.rr[i])))
                    fail_msg("trial %d, group %zu: member %zu marked %d/%d", trial, k, i,
                             ma.matched[i], mb.matched[i]);
            marks_free(&ma);
            marks_free(&mb);
            compared++;
            differed_from_all += a.relative_e12 != all.relative_e12;
        }
        panel_free(&p);
    }
    /* the generator must make leaving a provider out matter */
    assert_true(differed_from_all > compared / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offers_relative_is_the_reference),
        cmocka_unit_test(test_leave_one_out_equals_from_scratch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
