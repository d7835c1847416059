/* tests/test_sim.c -- the demo market generator (sim/): determinism, the
 * canonical format, and the features the market promises (SPEC §10). */
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

typedef struct market_text {
    char *buf[9];
    size_t len[9];
    sim_stats stats;
    gpi_status st;
} market_text;

enum { F_OFFERS, F_TRADES, F_PAYER, F_EARNER, F_CONTRACTS, F_POSITIONS, F_TRUTH, F_TERMS,
       F_CURVE };

/* truth: also write truth.csv (F_TRUTH); no_push: sim_params.no_push */
static market_text gen_with(uint64_t seed, int days, int scale, int truth, int no_push)
{
    market_text m;
    memset(&m, 0, sizeof m);
    FILE *fh[9];
    for (int i = 0; i < 9; i++) fh[i] = open_memstream(&m.buf[i], &m.len[i]);
    sim_params p = {gpi_days_from_civil(2025, 1, 1), days, seed, scale, NULL, no_push};
    sim_files f = {fh[0], fh[1], fh[2], fh[3], fh[4], fh[5], truth ? fh[6] : NULL, fh[7],
                   truth ? fh[8] : NULL};
    gpi_diag d;
    m.st = sim_write(&p, &f, &m.stats, &d);
    for (int i = 0; i < 9; i++) fclose(fh[i]);
    return m;
}

static market_text gen(uint64_t seed, int days, int scale)
{
    return gen_with(seed, days, scale, 0, 0);
}

static void market_free(market_text *m)
{
    for (int i = 0; i < 9; i++) free(m->buf[i]);
}

static void test_sim_rng_reference(void **state)
{
    (void)state;
    /* xoshiro256** from state {1,2,3,4}: rotl(2*5, 7) * 9 = 11520, and the
     * state update of the reference implementation gives 0 next. */
    sim_rng r = {{1, 2, 3, 4}};
    assert_int_equal(sim_rng_next(&r), 11520);
    assert_int_equal(sim_rng_next(&r), 0);
    sim_rng_seed(&r, 42, 0);
    for (int i = 0; i < 10000; i++) {
        uint64_t v = sim_rng_below(&r, 7);
        assert_true(v < 7);
        double u = sim_rng_unit(&r);
        assert_true(u >= 0 && u < 1);
    }
}

static void test_sim_same_seed_same_bytes(void **state)
{
    (void)state;
    market_text a = gen(7, 60, 1), b = gen(7, 60, 1);
    assert_int_equal(a.st, GPI_OK);
    for (int i = 0; i < 6; i++) {
        assert_true(a.len[i] > 0);
        assert_int_equal(a.len[i], b.len[i]);
        assert_memory_equal(a.buf[i], b.buf[i], a.len[i]);
    }
    market_free(&a);
    market_free(&b);
}

static void test_sim_different_seed_differs(void **state)
{
    (void)state;
    market_text a = gen(7, 60, 1), b = gen(8, 60, 1);
    for (int i = F_OFFERS; i <= F_EARNER; i++)
        if (a.len[i] == b.len[i] && memcmp(a.buf[i], b.buf[i], a.len[i]) == 0)
            fail_msg("file %d identical for seeds 7 and 8", i);
    market_free(&a);
    market_free(&b);
}

/* ---- a minimal reader for the generator's unquoted CSV ------------------- */

#define MAXCOL 24
static int split(char *line, char **col)
{
    int n = 0;
    col[n++] = line;
    for (char *p = line; *p; p++)
        if (*p == ',') {
            *p = '\0';
            if (n < MAXCOL) col[n++] = p + 1;
        }
    return n;
}

static int colidx(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0) return i;
    fail_msg("column %s missing from header", name);
    return -1;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Price per GPU-hour in micro-USD of a row (units as the generator writes). */
static int64_t per_gpu_hour(const char *price, const char *unit, const char *count)
{
    gpi_dec dv;
    if (gpi_dec_parse(price, &dv) != NULL || dv.mant <= 0) fail_msg("bad price \"%s\"", price);
    int64_t micro = gpi_dec_to_units(dv, 6);
    if (strcmp(unit, "instance-hour") == 0) return micro / atoi(count);
    if (strcmp(unit, "gpu-month") == 0) return micro / 730;
    if (strcmp(unit, "gpu-hour") != 0) fail_msg("unit %s", unit);
    return micro;
}

static void test_sim_files_parse_and_market_features(void **state)
{
    (void)state;
    int days = 120;
    market_text m = gen(7, days, 1);
    assert_int_equal(m.st, GPI_OK);
    assert_null(memchr(m.buf[F_OFFERS], '"', m.len[F_OFFERS]));
    assert_null(memchr(m.buf[F_TRADES], '"', m.len[F_TRADES]));

    /* trades: statuses, thin days, fat fingers, the pusher */
    char *save, *line = strtok_r(m.buf[F_TRADES], "\n", &save);
    char *hdr[MAXCOL];
    int nh = split(line, hdr);
    int c_obs = colidx(hdr, nh, "observed_at"), c_prov = colidx(hdr, nh, "provider"),
        c_gpu = colidx(hdr, nh, "gpu"), c_price = colidx(hdr, nh, "price"),
        c_unit = colidx(hdr, nh, "unit"), c_term = colidx(hdr, nh, "term"),
        c_qty = colidx(hdr, nh, "quantity"), c_status = colidx(hdr, nh, "status"),
        c_buyer = colidx(hdr, nh, "buyer"), c_kind = colidx(hdr, nh, "kind");
    (void)colidx(hdr, nh, "tier");
    (void)colidx(hdr, nh, "scope");
    (void)colidx(hdr, nh, "term_months");
    long per_day[200] = {0}, cancelled = 0, affiliate = 0, n = 0;
    /* H100 on-demand trade prices per day, to find off-market prints */
    int64_t *h100 = calloc((size_t)days * 4000, sizeof *h100);
    int nh100[200] = {0};
    int32_t d0 = gpi_days_from_civil(2025, 1, 1);
    typedef struct { int t; int64_t px; int nimbus; } tr;
    tr *all = calloc(200000, sizeof *all);
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *c[MAXCOL];
        int k = split(line, c);
        assert_int_equal(k, nh);
        assert_string_equal(c[c_kind], "trade");
        int64_t ts;
        if (gpi_time_parse(c[c_obs], &ts)) fail_msg("observed_at %s", c[c_obs]);
        int t = gpi_day_of_time(ts) - d0;
        assert_true(t >= 0 && t < days);
        int64_t px = per_gpu_hour(c[c_price], c[c_unit], "1");
        gpi_dec q;
        assert_null(gpi_dec_parse(c[c_qty], &q));
        assert_true(q.mant > 0);
        per_day[t]++;
        cancelled += strcmp(c[c_status], "cancelled") == 0;
        affiliate += strcmp(c[c_status], "affiliate") == 0;
        /* neocloud H100 on-demand trades (hyperscalers list at 2-3x) */
        int hyper = strcmp(c[c_prov], "AWS") == 0 || strcmp(c[c_prov], "Microsoft Azure") == 0 ||
                    strcmp(c[c_prov], "Google Cloud") == 0 ||
                    strcmp(c[c_prov], "Oracle Cloud") == 0;
        if (!hyper && strcmp(c[c_gpu], "H100-SXM-80GB") == 0 &&
            strcmp(c[c_term], "on-demand") == 0) {
            h100[(size_t)t * 4000 + (size_t)nh100[t]++] = px;
            all[n].t = t;
            all[n].px = px;
            all[n].nimbus = strcmp(c[c_prov], "Nimbus Compute") == 0 &&
                            strcmp(c[c_buyer], "Nimbus Compute") == 0;
            n++;
        }
    }
    assert_true(cancelled > 0);
    assert_true(affiliate > 0);
    int64_t s64[200];
    for (int t = 0; t < days; t++) s64[t] = per_day[t];
    qsort(s64, (size_t)days, sizeof *s64, cmp_i64);
    int64_t med_count = s64[days / 2];
    int thin = 0;
    for (int t = 0; t < days; t++) thin += per_day[t] * 4 < med_count;
    if (thin < 2) fail_msg("only %d thin days (median %lld trades a day)", thin,
                           (long long)med_count);
    int64_t med[200];
    for (int t = 0; t < days; t++) {
        qsort(h100 + (size_t)t * 4000, (size_t)nh100[t], sizeof *h100, cmp_i64);
        med[t] = nh100[t] ? h100[(size_t)t * 4000 + (size_t)nh100[t] / 2] : 0;
    }
    int fat = 0, wash_high = 0;
    for (long i = 0; i < n; i++) {
        if (all[i].px >= 5 * med[all[i].t]) fat++;
        if (all[i].nimbus && all[i].px * 100 >= med[all[i].t] * 120) wash_high++;
    }
    if (fat < 1) fail_msg("no fat-finger H100 trade (>= 5x the day's median)");
    if (wash_high < 20) fail_msg("only %d off-market self-trades by the pusher", wash_high);
    free(h100);
    free(all);

    /* offers: every price a positive decimal, ids stable, an offer fat finger,
     * and a B200 outage where one provider reports */
    line = strtok_r(m.buf[F_OFFERS], "\n", &save);
    nh = split(line, hdr);
    int o_id = colidx(hdr, nh, "id"), o_prov = colidx(hdr, nh, "provider"),
        o_gpu = colidx(hdr, nh, "gpu"), o_price = colidx(hdr, nh, "price"),
        o_unit = colidx(hdr, nh, "unit"), o_cnt = colidx(hdr, nh, "gpu_count"),
        o_term = colidx(hdr, nh, "term"), o_months = colidx(hdr, nh, "term_months"),
        o_tier = colidx(hdr, nh, "tier"), o_obs = colidx(hdr, nh, "observed_at");
    (void)colidx(hdr, nh, "scope");
    (void)colidx(hdr, nh, "region");
    long first_day_rows = 0, reserved = 0, spot = 0, tiers[GPI_TIER__N] = {0};
    char b200_provs[200][8][32];
    int nb200[200] = {0};
    int64_t key_first_px = -1;
    int offer_fat = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *c[MAXCOL];
        assert_int_equal(split(line, c), nh);
        int64_t ts;
        if (gpi_time_parse(c[o_obs], &ts)) fail_msg("observed_at %s", c[o_obs]);
        int t = gpi_day_of_time(ts) - d0;
        int64_t px = per_gpu_hour(c[o_price], c[o_unit], c[o_cnt]);
        if (t == 0) first_day_rows++;
        int tier = gpi_tier_parse(c[o_tier]);
        assert_true(tier >= 0);
        tiers[tier]++;
        if (strcmp(c[o_term], "reserved") == 0) {
            int mo = atoi(c[o_months]);
            assert_true(mo >= 1 && mo <= 60);
            reserved++;
        } else {
            assert_string_equal(c[o_months], "");
            spot += strcmp(c[o_term], "spot") == 0;
        }
        if (strcmp(c[o_id], "cw-h100sxm-r0-bare-metal-on-demand") == 0) {
            if (key_first_px < 0) key_first_px = px;
            if (px >= 5 * key_first_px) offer_fat++;
        }
        if (strcmp(c[o_gpu], "B200") == 0 && t < 200) {
            int seen = 0;
            for (int k = 0; k < nb200[t]; k++) seen |= strcmp(b200_provs[t][k], c[o_prov]) == 0;
            if (!seen && nb200[t] < 8) snprintf(b200_provs[t][nb200[t]++], 32, "%s", c[o_prov]);
        }
    }
    assert_true(first_day_rows > 100);
    assert_true(reserved > 0 && spot > 0);
    assert_true(tiers[GPI_TIER_PLATINUM] && tiers[GPI_TIER_GOLD] && tiers[GPI_TIER_SILVER] &&
                tiers[GPI_TIER_BRONZE] && tiers[GPI_TIER_UNRATED]);
    if (offer_fat < 1) fail_msg("no fat-finger offer on CoreWeave's H100 key");
    int single = 0;
    for (int t = 0; t < days; t++) single += nb200[t] == 1;
    if (single < 7) fail_msg("B200 reported by one provider on only %d days", single);
    market_free(&m);
}

static void test_sim_rent_and_contracts(void **state)
{
    (void)state;
    market_text m = gen(3, 100, 1); /* 2025-01-01 .. 2025-04-10 */
    assert_int_equal(m.st, GPI_OK);
    for (int f = F_PAYER; f <= F_EARNER; f++) {
        char *save, *line = strtok_r(m.buf[f], "\n", &save);
        assert_string_equal(line, "date,price,quantity");
        int32_t want = gpi_days_from_civil(2025, 1, 1);
        int rows = 0;
        while ((line = strtok_r(NULL, "\n", &save))) {
            char *c[MAXCOL];
            assert_int_equal(split(line, c), 3);
            int32_t day;
            assert_null(gpi_date_parse(c[0], &day));
            assert_int_equal(day, want++);
            gpi_dec p;
            assert_null(gpi_dec_parse(c[1], &p));
            assert_true(p.mant > 0 && p.scale == 4);
            assert_true(atol(c[2]) > 0);
            rows++;
        }
        assert_int_equal(rows, 100);
    }
    json_error_t err;
    json_t *root = json_loadb(m.buf[F_CONTRACTS], m.len[F_CONTRACTS], 0, &err);
    if (!root) fail_msg("contracts.json: %s", err.text);
    json_t *cs = json_object_get(root, "contracts");
    /* January's listing (2024-12-01) is before the run and April ends after
     * it: February and March only */
    assert_int_equal(json_array_size(cs), 2);
    static const char *const sym[] = {"GPUH-2502", "GPUH-2503"};
    static const char *const mon[] = {"2025-02", "2025-03"};
    for (size_t i = 0; i < 2; i++) {
        json_t *c = json_array_get(cs, i);
        assert_string_equal(json_string_value(json_object_get(c, "symbol")), sym[i]);
        assert_string_equal(json_string_value(json_object_get(c, "month")), mon[i]);
        assert_string_equal(json_string_value(json_object_get(c, "grade")), SIM_DEFAULT_GRADE);
        assert_int_equal(json_integer_value(json_object_get(c, "size")), 1000);
    }
    json_decref(root);
    /* positions: a zero-net book per symbol */
    char *save, *line = strtok_r(m.buf[F_POSITIONS], "\n", &save);
    assert_string_equal(line, "account,symbol,contracts,entry_price");
    long net[2] = {0};
    int rows = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *c[MAXCOL];
        int k = split(line, c);
        assert_true(k == 4);
        for (int i = 0; i < 2; i++)
            if (strcmp(c[1], sym[i]) == 0) net[i] += atol(c[2]);
        rows++;
    }
    assert_int_equal(rows, 6);
    for (int i = 0; i < 2; i++) assert_int_equal(net[i], 0);
    market_free(&m);
}

static void test_sim_scale_multiplies_rows(void **state)
{
    (void)state;
    market_text a = gen(5, 10, 1), b = gen(5, 10, 4);
    assert_true(b.stats.offers > 3 * a.stats.offers);
    assert_true(b.stats.trades > 3 * a.stats.trades);
    market_free(&a);
    market_free(&b);
}

/* Without the pusher the market is the same market minus the pusher's
 * off-market trades (the rows of Nimbus Compute bought by itself or by
 * Cirrus Capital), every other byte of every file equal; the true prices do
 * not change the market either. */
static void test_sim_no_push_and_truth_leave_the_market_alone(void **state)
{
    (void)state;
    market_text a = gen(9, 120, 1), b = gen_with(9, 120, 1, 1, 1);
    assert_int_equal(b.st, GPI_OK);
    assert_true(a.stats.pushed_trades > 50);
    assert_int_equal(b.stats.pushed_trades, 0);
    assert_int_equal(b.stats.trades, a.stats.trades - a.stats.pushed_trades);
    for (int i = 0; i < 6; i++) {
        if (i == F_TRADES) continue;
        assert_int_equal(a.len[i], b.len[i]);
        assert_memory_equal(a.buf[i], b.buf[i], a.len[i]);
    }
    assert_true(b.len[F_TRUTH] > 0);
    /* trades: walk both files; every row of a that is not in b is a pushed trade */
    char *sa, *sb;
    char *la = strtok_r(a.buf[F_TRADES], "\n", &sa), *lb = strtok_r(b.buf[F_TRADES], "\n", &sb);
    long skipped = 0;
    while (la) {
        if (lb && strcmp(la, lb) == 0) {
            la = strtok_r(NULL, "\n", &sa);
            lb = strtok_r(NULL, "\n", &sb);
            continue;
        }
        char *c[MAXCOL];
        if (split(la, c) != 16) fail_msg("trade row with %d columns", split(la, c));
        if (strcmp(c[4], "Nimbus Compute") != 0 ||
            (strcmp(c[14], "Nimbus Compute") != 0 && strcmp(c[14], "Cirrus Capital") != 0))
            fail_msg("row %s of %s missing without the pusher", c[1], c[4]);
        skipped++;
        la = strtok_r(NULL, "\n", &sa);
    }
    assert_null(lb);
    assert_int_equal(skipped, a.stats.pushed_trades);
    market_free(&a);
    market_free(&b);
}

/* truth.csv: one trade per offer key and day, source "truth"; every price
 * is the GPU's market level times a constant of the key, so the ratio of
 * two keys' prices of one GPU is the same every day (no noise), and each
 * key's quantity is the same every day. */
/* The true term rate of `months` of GPU gpu on day t (0-based) relative to
 * its on-demand level, read from the true term structure (F_CURVE). */
static double term_ratio(const market_text *m, int t, const char *gpu, int months)
{
    char date[11], key[96];
    gpi_date_format(gpi_days_from_civil(2025, 1, 1) + t, date);
    snprintf(key, sizeof key, "\n%s,%s,%d,", date, gpu, months);
    const char *p = strstr(m->buf[F_CURVE], key);
    if (!p) fail_msg("no true term rate for %s", key + 1);
    return strtod(p + strlen(key), NULL);
}

static void test_sim_truth_is_noise_free(void **state)
{
    (void)state;
    int days = 40;
    market_text m = gen_with(3, days, 1, 1, 0);
    assert_int_equal(m.st, GPI_OK);
    char *save, *line = strtok_r(m.buf[F_TRUTH], "\n", &save);
    assert_string_equal(line, "kind,id,observed_at,source,provider,region,gpu,price,unit,scope,"
                              "tier,term,term_months,quantity,buyer,status");
    /* per key (by position within the day): price of day 0, quantity */
    enum { MAXK = 2000 };
    static int64_t px0[MAXK], qty0[MAXK], ref0[SIM_MAX_DAYS];
    static char gpu0[MAXK][24];
    long rows = 0, per_day = 0, reserved_checked = 0;
    int32_t d0 = gpi_days_from_civil(2025, 1, 1);
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *c[MAXCOL];
        assert_int_equal(split(line, c), 16);
        assert_string_equal(c[0], "trade");
        assert_string_equal(c[3], "truth");
        assert_string_equal(c[8], "gpu-hour");
        assert_string_equal(c[15], "ok");
        int64_t ts;
        if (gpi_time_parse(c[2], &ts)) fail_msg("observed_at %s", c[2]);
        int t = gpi_day_of_time(ts) - d0;
        assert_true(t >= 0 && t < days);
        if (t == 0) per_day++;
        long k = rows - (long)t * per_day;
        assert_true(k >= 0 && k < MAXK);
        int64_t px = per_gpu_hour(c[7], "gpu-hour", "1");
        gpi_dec q;
        assert_null(gpi_dec_parse(c[13], &q));
        assert_true(q.mant > 0);
        if (t == 0) {
            px0[k] = px;
            qty0[k] = q.mant;
            snprintf(gpu0[k], sizeof gpu0[k], "%s", c[6]);
        } else {
            assert_string_equal(gpu0[k], c[6]);
            assert_int_equal(qty0[k], q.mant);
        }
        /* the first key of the day (AWS H100 SXM on demand) is the reference
         * of its GPU; a reserved key of T months moves with the true term
         * structure's term rate of T months (sim/curve.c, FILE-curve.csv) */
        if (k == 0) ref0[t] = px;
        if (strcmp(c[6], gpu0[0]) == 0 && k > 0) {
            double r0 = (double)px0[k] / (double)px0[0];
            double rt = (double)px / (double)ref0[t];
            if (strcmp(c[11], "reserved") == 0) {
                int months = atoi(c[12]);
                r0 *= term_ratio(&m, t, c[6], months) / term_ratio(&m, 0, c[6], months);
                reserved_checked++;
            }
            tu_assert_close(rt, r0, 3e-6 * (1 + r0), "price ratio of two keys of one GPU");
        }
        rows++;
    }
    assert_true(per_day > 100);
    assert_int_equal(rows, per_day * days);
    assert_true(reserved_checked > 10 * days);
    market_free(&m);
}

/* The true term structure (sim/curve.c): backwardation on H100 SXM,
 * contango on H200, a forward the difference of term rates; the term
 * offers (term_offers.csv) at 1/3/6/12/24 months and the forward starts
 * (starts_on the first day of the month three or six months ahead, 12 or
 * 6 months long) on the curve. */
static void test_sim_term_structure(void **state)
{
    (void)state;
    int days = 45;
    market_text m = gen_with(5, days, 1, 1, 0);
    assert_int_equal(m.st, GPI_OK);
    char *save, *line = strtok_r(m.buf[F_CURVE], "\n", &save);
    assert_string_equal(line, "date,gpu,tenor,term_ratio,forward_ratio,level,term_rate,forward");
    long rows = 0, h100 = 0, h200 = 0;
    double prev_term = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *c[MAXCOL];
        assert_int_equal(split(line, c), 8);
        int k = atoi(c[2]);
        double term = strtod(c[3], NULL), fwd = strtod(c[4], NULL);
        assert_true(k >= 1 && k <= 36);
        /* F_k = k Pi_k - (k - 1) Pi_(k-1): to the 9 decimals written */
        if (k == 1) tu_assert_close(fwd, term, 1e-8, "tenor 1: forward = term rate");
        else assert_true(fabs(fwd - (k * term - (k - 1) * prev_term)) < 2e-7 * k);
        if (k == 36 && strcmp(c[1], "H100-SXM-80GB") == 0 && fwd < 0.9) h100++;
        if (k == 36 && strcmp(c[1], "H200-SXM-141GB") == 0 && fwd > 1.05) h200++;
        prev_term = term;
        rows++;
    }
    assert_int_equal(rows, (long)days * 6 * 36);
    assert_int_equal(h100, days); /* backwardation every day */
    assert_int_equal(h200, days); /* contango every day */
    /* the term offers */
    line = strtok_r(m.buf[F_TERMS], "\n", &save);
    assert_string_equal(line, "kind,id,observed_at,source,provider,region,gpu,sku,gpu_count,price,"
                              "currency,unit,scope,tier,term,term_months,quantity,starts_on");
    long n = 0, fwd_starts = 0, terms[37] = {0};
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *c[MAXCOL];
        assert_int_equal(split(line, c), 18);
        assert_string_equal(c[14], "reserved");
        int months = atoi(c[15]);
        assert_true(months >= 1 && months <= 36);
        terms[months]++;
        if (*c[17]) {
            int32_t obs, start;
            int64_t ts;
            assert_int_equal(gpi_time_parse(c[2], &ts), NULL);
            obs = gpi_day_of_time(ts);
            assert_null(gpi_date_parse(c[17], &start));
            int y, mo, dd;
            gpi_civil_from_days(start, &y, &mo, &dd);
            assert_int_equal(dd, 1);
            assert_true((months == 12 && start - obs > 59 && start - obs <= 92) ||
                        (months == 6 && start - obs > 150 && start - obs <= 184));
            fwd_starts++;
        }
        n++;
    }
    assert_int_equal(n, m.stats.term_offers);
    assert_int_equal(fwd_starts, m.stats.forward_offers);
    assert_true(fwd_starts > 0);
    static const int wanted[] = {1, 3, 6, 12, 24};
    for (int i = 0; i < 5; i++) assert_true(terms[wanted[i]] > 5L * days);
    market_free(&m);
}

static void test_sim_cli(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("sim");
    tu_run a = tu_gpuidx(dir, "simulate --days 40 --seed 11 --out a");
    if (a.status != 0) fail_msg("exit %d: %s", a.status, a.err);
    assert_non_null(strstr(a.out, "simulate: 2025-01-01..2025-02-09 seed 11 scale 1: "));
    tu_run b = tu_gpuidx(dir, "simulate --days 40 --seed 11 --out b --start 2025-01-01");
    assert_int_equal(b.status, 0);
    tu_run c = tu_sh(dir, "for f in offers.csv trades.csv rent_payer.csv rent_earner.csv "
                          "contracts.json positions.csv; do cmp a/$f b/$f || exit 1; done");
    assert_int_equal(c.status, 0);
    tu_run e = tu_gpuidx(dir, "simulate --days 40 --seed 11 --out e --truth e/true.csv --no-push");
    if (e.status != 0) fail_msg("exit %d: %s", e.status, e.err);
    assert_non_null(strstr(e.out, ", 0 pushed)"));
    assert_non_null(strstr(e.out, "\nsimulate: true prices -> e/true.csv\n"));
    tu_run_free(&e);
    e = tu_sh(dir, "cmp a/offers.csv e/offers.csv && head -1 e/true.csv && "
                   "! cmp -s a/trades.csv e/trades.csv");
    assert_int_equal(e.status, 0);
    assert_string_equal(e.out, "kind,id,observed_at,source,provider,region,gpu,price,unit,scope,"
                               "tier,term,term_months,quantity,buyer,status\n");
    tu_run_free(&e);
    static const struct { const char *args, *err; } bad[] = {
        {"simulate --days 0 --seed 1 --out x",
         "gpuidx: --days: must be a whole number 1..3660 (got \"0\")\n"},
        {"simulate --days 5 --seed -1 --out x",
         "gpuidx: --seed: must be an unsigned integer (got \"-1\")\n"},
        {"simulate --days 5 --seed 1",
         "gpuidx: simulate: --days, --seed and --out are required (see gpuidx simulate --help)\n"},
        {"simulate --days 5 --seed 1 --out x --start 2025-02-30",
         "gpuidx: --start: no such calendar date (got \"2025-02-30\")\n"},
        {"simulate --days 5 --seed 1 --out x --scale 1001",
         "gpuidx: --scale: must be a whole number 1..1000 (got \"1001\")\n"},
        {"simulate --days 5 --seed 1 --out x --grade ../x",
         "gpuidx: simulate: --grade: not a valid grade id (got \"../x\")\n"},
        {"simulate --days 5 --seed 1 --out x --truth",
         "gpuidx: simulate: option '--truth' needs a value\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_run r = tu_gpuidx(dir, "%s", bad[i].args);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.err, bad[i].err);
        tu_run_free(&r);
    }
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run_free(&c);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_rng_reference),
        cmocka_unit_test(test_sim_same_seed_same_bytes),
        cmocka_unit_test(test_sim_different_seed_differs),
        cmocka_unit_test(test_sim_files_parse_and_market_features),
        cmocka_unit_test(test_sim_rent_and_contracts),
        cmocka_unit_test(test_sim_scale_multiplies_rows),
        cmocka_unit_test(test_sim_no_push_and_truth_leave_the_market_alone),
        cmocka_unit_test(test_sim_truth_is_noise_free),
        cmocka_unit_test(test_sim_term_structure),
        cmocka_unit_test(test_sim_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
