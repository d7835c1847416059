/* tests/test_index_quantile.c -- the capped volume-weighted quantile
 * (index/method.c notes 4-5: exact bignum comparisons, made only near
 * where the weight in doubles reaches q) against an independent reference
 * in exact fractions (tests/ref/index_wquant.py), on random markets: 1 to
 * 3,000 trades from 1 to 15 providers, prices and volumes from small sets
 * (ties in price, weights meeting q exactly), volumes from 1 micro-GPU-hour
 * to 10^11, provider caps from 5 % to 50 %, q from 1/10 to 9/10.  The
 * markets must include weights that meet q exactly.  Skipped, with a
 * message, when /usr/bin/python3 is absent.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/index.h"

#define NCASES 400
#define MAXN 3000

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

typedef struct qcase {
    int64_t cap_e6;
    int qn, qd;
    size_t n;
    idx_item v[MAXN];
} qcase;

static void make_case(qcase *c, uint64_t *seed)
{
    static const int64_t caps[] = {300000, 100000, 500000, 50000};
    static const int q[][2] = {{1, 2}, {1, 10}, {1, 4}, {3, 4}, {9, 10}};
    static const int64_t vols[] = {1, 2, 5, 10, 100, 1000, 50000};
    memset(c, 0, sizeof *c);
    c->cap_e6 = caps[lcg(seed) % 4];
    size_t k = lcg(seed) % 5;
    c->qn = q[k][0];
    c->qd = q[k][1];
    size_t np = 1 + lcg(seed) % 15;
    int kind = (int)(lcg(seed) % 4);
    c->n = kind == 0 ? 1 + lcg(seed) % 8 : kind == 3 ? 1 + lcg(seed) % MAXN : 1 + lcg(seed) % 300;
    if (kind == 1) { /* one or two providers, 20 trades at most: q met exactly */
        np = 1 + lcg(seed) % 2;
        c->n = 20 * (1 + lcg(seed) % 2) / (1 + (size_t)(lcg(seed) % 2));
    }
    int64_t base = 1000000 + (int64_t)(lcg(seed) % 3000000);
    for (size_t i = 0; i < c->n; i++) {
        idx_item *it = &c->v[i];
        it->group = (int32_t)(lcg(seed) % np) * 7 + 3; /* not 0..np-1 */
        /* kind 1: few prices and equal volumes (weights meet q exactly) */
        it->price_micro = kind == 1 ? base + (int64_t)(lcg(seed) % 4) * 10000
                                    : base + (int64_t)(lcg(seed) % 2000) * 137;
        it->qty_micro = kind == 1 ? 1000000
                        : kind == 2 ? vols[lcg(seed) % 7] * 1000000
                                    : 1 + (int64_t)(lcg(seed) % 100000000000);
        it->key_hash = i + 1;
    }
}

static void test_quantile_matches_fractions(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0) {
        printf("skipped: /usr/bin/python3 is absent (the reference needs it)\n");
        skip();
        return;
    }
    char *tmp = tu_mkdtemp("index-quantile");
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.txt", tmp);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    qcase *c = malloc(sizeof *c);
    int64_t *got = malloc(NCASES * sizeof *got);
    assert_non_null(c && got);
    uint64_t seed = 2026;
    for (int k = 0; k < NCASES; k++) {
        make_case(c, &seed);
        fprintf(f, "%lld %d %d %zu", (long long)c->cap_e6, c->qn, c->qd, c->n);
        for (size_t i = 0; i < c->n; i++)
            fprintf(f, " %d %lld %lld", c->v[i].group, (long long)c->v[i].price_micro,
                    (long long)c->v[i].qty_micro);
        fputc('\n', f);
        gpi_diag d = {{0}};
        got[k] = -1;
        if (idx_weighted_quantile(c->v, c->n, c->cap_e6, c->qn, c->qd, &got[k], &d) != GPI_OK)
            fail_msg("case %d: %s", k, d.msg);
    }
    fclose(f);
    tu_run r = tu_sh(tmp, "/usr/bin/python3 '%s/tests/ref/index_wquant.py' cases.txt",
                     tu_srcdir());
    if (r.status != 0) fail_msg("reference: %s", r.err);
    const char *p = r.out;
    int ties = 0;
    for (int k = 0; k < NCASES; k++) {
        long long want;
        int tie, used;
        if (sscanf(p, "%lld %d%n", &want, &tie, &used) != 2)
            fail_msg("reference line %d: %.200s (%s)", k, p, r.err);
        p += used;
        ties += tie;
        if (got[k] != want) fail_msg("case %d: got %lld, want %lld", k, (long long)got[k], want);
    }
    if (ties < 10) fail_msg("%d markets whose weights meet q exactly (want 10 or more)", ties);
    tu_run_free(&r);
    free(c);
    free(got);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantile_matches_fractions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
