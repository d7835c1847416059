/* tests/index_fixture.h -- a small hand-made market for the index tests,
 * stored through the store API (used by test_index.c and
 * test_e2e_index.c; header-only, static functions).
 *
 * Grade T: H100-SXM-80GB on-demand, any tier, defaults of SPEC §6.
 * Providers P1, P2, P3 (each its own group).  Days are 2025-01-DD.
 *   offers every day 1..7: P1 2.00, P2 2.20, P3 2.60 (day 7: P2 2.2345);
 *     day 1: P1 also 2.10 and a fat finger 20.00 (> 3 x its median 2.10);
 *     day 2: an earlier snapshot of P1's offer at 5.00 (superseded).
 *   trades on days 1,2,3,4,6: P1 m-0.10, P2 m, P3 m+0.10, 400 GPU-h each,
 *     with m = 2.42, 2.53, 2.31, 2.64, 2.20; day 1 also a cancelled P3
 *     trade at 9.99 for 500 GPU-h.
 *   nothing on days 8..14.
 * Hand-computed (and checked with numpy/fractions):
 *   days 1-4, 6: trades level, value = m (equal capped shares 1/3 each).
 *   day 5: offers, 4 qualifying days (< 5) -> a = 1, value 2.2000.
 *   day 7: offers, ratios 1.1 1.15 1.05 1.2 1.0 -> a = 1.100000,
 *          2.2345 x 1.1 = 2.45795 -> 2.4580 (decimal midpoint, half-up).
 *   days 8-12: carried 2.4580 (carry 1..5); days 13, 14: suspended.
 */
#ifndef GPI_INDEX_FIXTURE_H
#define GPI_INDEX_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "core/gpi.h"
#include "store/store.h"
#include "store/batches.h"
#include "store/obs.h"

static const char fx_grades_json[] =
    "{\"grades\": [{\"id\": \"T\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"min_tier\": \"unrated\", \"regions\": [\"*\"]}]}";

static int64_t fx_time(int dom, int hour)
{
    return (int64_t)gpi_days_from_civil(2025, 1, dom) * 86400 + hour * 3600;
}

/* Stores one observation; price and quantity in micro units. */
static void fx_obs(store *st, int64_t batch, int kind, const char *prov, int dom, int hour,
                   const char *ident, int64_t price_micro, int64_t qty_micro, int status)
{
    gpi_obs o;
    memset(&o, 0, sizeof o);
    char id[128];
    snprintf(id, sizeof id, "%s-%s", kind == GPI_OFFER ? "o" : "t", ident);
    o.kind = kind;
    o.scope = GPI_SCOPE_VM;
    o.tier = GPI_TIER_UNRATED;
    o.term = GPI_TERM_ON_DEMAND;
    o.status = status;
    o.unit = GPI_UNIT_GPU_HOUR;
    o.observed_at = fx_time(dom, hour);
    o.day = gpi_day_of_time(o.observed_at);
    o.key_hash = gpi_fnv1a64(id, strlen(id), GPI_FNV_SEED);
    o.price_micro = price_micro;
    o.quantity_micro = qty_micro;
    o.gpu_count = 1;
    o.gpu = "H100-SXM-80GB";
    o.provider = prov;
    o.group = prov;
    o.segment = "neocloud";
    o.region = "us-east";
    o.source = "fixture";
    o.id = id;
    o.ident = id;
    o.buyer = kind == GPI_TRADE ? "BuyerCo" : NULL;
    o.raw_gpu = "H100";
    o.raw_provider = prov;
    o.raw_price = "x";
    o.currency = "USD";
    store_put_result res;
    gpi_diag d = {{0}};
    if (store_obs_put(st, batch, &o, &res, &d) != GPI_OK || res != STORE_PUT_STORED)
        fail_msg("fixture: storing %s failed: %s (res %d)", id, d.msg, (int)res);
}

static int64_t fx_batch_at; /* the time of the last fx_batch(), stamped at fx_commit() */

static int64_t fx_batch(store *st, const char *sha, int64_t ingested_at)
{
    fx_batch_at = ingested_at;
    store_batch_info info = {.path = "fixture.csv", .sha256 = sha, .source = "fixture",
                             .kind_hint = NULL, .tables_sha256 = "tables",
                             .ingested_at = ingested_at};
    int64_t b;
    gpi_diag d = {{0}};
    if (store_batch_begin(st, &info, &b, &d) != GPI_OK) fail_msg("fixture: %s", d.msg);
    return b;
}

static void fx_commit(store *st, int64_t b)
{
    store_batch_counts c = {0, 0, 0, 0};
    gpi_diag d = {{0}};
    if (store_batch_commit(st, b, &c, fx_batch_at, &d) != GPI_OK) fail_msg("fixture: %s", d.msg);
}

/* The market above, ingested at time 1000. */
static void fx_market(store *st)
{
    static const int trade_days[5] = {1, 2, 3, 4, 6};
    static const int64_t mid[5] = {2420000, 2530000, 2310000, 2640000, 2200000};
    int64_t b = fx_batch(st, "sha-market", 1000);
    char id[64];
    for (int dom = 1; dom <= 7; dom++) {
        snprintf(id, sizeof id, "P1-%d", dom);
        if (dom == 2) fx_obs(st, b, GPI_OFFER, "P1", dom, 10, id, 5000000, -1, 0);
        fx_obs(st, b, GPI_OFFER, "P1", dom, 12, id, 2000000, -1, 0);
        snprintf(id, sizeof id, "P2-%d", dom);
        fx_obs(st, b, GPI_OFFER, "P2", dom, 12, id, dom == 7 ? 2234500 : 2200000, -1, 0);
        snprintf(id, sizeof id, "P3-%d", dom);
        fx_obs(st, b, GPI_OFFER, "P3", dom, 12, id, 2600000, -1, 0);
    }
    fx_obs(st, b, GPI_OFFER, "P1", 1, 13, "P1-1b", 2100000, -1, 0);
    fx_obs(st, b, GPI_OFFER, "P1", 1, 14, "P1-1c", 20000000, -1, 0);
    for (int k = 0; k < 5; k++) {
        int dom = trade_days[k];
        snprintf(id, sizeof id, "P1-%d", dom);
        fx_obs(st, b, GPI_TRADE, "P1", dom, 9, id, mid[k] - 100000, 400000000, 0);
        snprintf(id, sizeof id, "P2-%d", dom);
        fx_obs(st, b, GPI_TRADE, "P2", dom, 9, id, mid[k], 400000000, 0);
        snprintf(id, sizeof id, "P3-%d", dom);
        fx_obs(st, b, GPI_TRADE, "P3", dom, 9, id, mid[k] + 100000, 400000000, 0);
    }
    fx_obs(st, b, GPI_TRADE, "P3", 1, 10, "P3-1x", 9990000, 500000000, GPI_STATUS_CANCELLED);
    fx_commit(st, b);
}

/* Late data ingested at time 2000: day 7 gets trades (2.40 / 2.50 / 2.60,
 * 400 GPU-h each: trades level 2.5000, a restatement of 2.4580), and day 5
 * a second P2 offer at 2.201 (P2 median 2.2005: value 2.2005, a 0.023 %
 * move -- a revision only). */
static void fx_late(store *st)
{
    int64_t b = fx_batch(st, "sha-late", 2000);
    fx_obs(st, b, GPI_TRADE, "P1", 7, 9, "P1-7", 2400000, 400000000, 0);
    fx_obs(st, b, GPI_TRADE, "P2", 7, 9, "P2-7", 2500000, 400000000, 0);
    fx_obs(st, b, GPI_TRADE, "P3", 7, 9, "P3-7", 2600000, 400000000, 0);
    fx_obs(st, b, GPI_OFFER, "P2", 5, 15, "P2-5b", 2201000, -1, 0);
    fx_commit(st, b);
}

#endif
