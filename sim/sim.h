/* sim/sim.h -- the synthetic demo market (SPEC §10).
 *
 * sim_write() generates a deterministic, realistic-looking GPU rental market
 * and writes it in the canonical CSV format of SPEC §3:
 *   - daily offer snapshots with stable ids from ~15 providers (hyperscalers
 *     at 2-3x neocloud list prices, a marketplace, ClusterMAX tiers in a
 *     `tier` column), six GPU models, four scopes, on-demand / spot /
 *     reserved (term_months), several units (gpu-hour, instance-hour of 8
 *     GPUs, gpu-month);
 *   - trades with quantity and buyer, some cancelled, some affiliate;
 *   - a known true term structure per GPU (sim/curve.c: backwardation on
 *     H100, A100 and L40S, contango on H200 and B200) that every reserved
 *     offer and trade (1 to 36 months) follows with realistic noise, and
 *     more reservations, forward starts (`starts_on`) among them, in
 *     term_offers.csv;
 *   - price trends and shocks, thin days (few trades), feed outages (one GPU
 *     reported by a single provider for more than a week), outliers and
 *     fat-finger prints, and a provider that tries to push the H100 grade
 *     with many trades at an off-market price;
 *   - example rent histories of a payer and an earner (date,price,quantity),
 *     correlated with the market plus basis noise;
 *   - example futures contracts (SPEC §8 JSON) on the months inside the
 *     range, and a zero-net book of positions on them;
 *   - on request, the market's true prices (truth.csv, sim/truth.c): the
 *     model's expected trades, one per offer key and day, at the key's
 *     noise-free price and expected volume -- a grade built on them with
 *     its defences off is its true price (bench/accuracy) -- and the true
 *     term structure (sim/curve.c): per GPU, day and tenor 1..36 the term
 *     rate and the monthly forward relative to the on-demand level.
 *
 * Determinism: everything derives from the seed through a private
 * xoshiro256** generator (seeded by splitmix64); no rand(), no clock, no
 * locale.  The same parameters give byte-identical output; every price is
 * an exact decimal computed in integer micro-dollars.
 *
 * The module never opens files and never prints: it writes to the FILE*
 * handles the caller opened (any may be NULL: that output is skipped, the
 * others are unchanged) and returns a status with a diagnostic.
 */
#ifndef GPI_SIM_H
#define GPI_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "core/gpi.h"

#define SIM_MAX_DAYS 3660
#define SIM_MAX_SCALE 1000

typedef struct sim_params {
    int32_t start_day;          /* first day (days since 1970-01-01) */
    int days;                   /* 1 .. SIM_MAX_DAYS */
    uint64_t seed;
    int scale;                  /* 1 .. SIM_MAX_SCALE: multiplies regions and trades */
    const char *contract_grade; /* grade of the example contracts; NULL =
                                   SIM_DEFAULT_GRADE */
    int no_push;                /* 1: leave out the pusher's off-market trades
                                   (every other row of every file unchanged) */
} sim_params;

#define SIM_DEFAULT_GRADE "H100-SXM.OD"

typedef struct sim_files {
    FILE *offers;       /* offers.csv */
    FILE *trades;       /* trades.csv */
    FILE *rent_payer;   /* rent_payer.csv: date,price,quantity */
    FILE *rent_earner;  /* rent_earner.csv */
    FILE *contracts;    /* contracts.json (SPEC §8) */
    FILE *positions;    /* positions.csv: account,symbol,contracts,entry_price */
    FILE *truth;        /* truth.csv: the model's expected trades (below) */
    FILE *term_offers;  /* term_offers.csv: reservations beyond the catalogue,
                           forward starts among them (sim/market.c) */
    FILE *truth_curve;  /* the true term structure (sim/curve.c) */
} sim_files;

/* What was written, for the caller's summary and for tests. */
typedef struct sim_stats {
    long offers, trades;
    long cancelled, affiliate;   /* trades by status */
    long fat_fingers;            /* offers and trades with a 10x / 1/10x print */
    long outliers;               /* offers far off their provider's level */
    long pushed_trades;          /* the pushing provider's off-market trades */
    int thin_days;               /* days with a small fraction of the trades */
    int outage_days;             /* days of the single-provider B200 outage */
    long term_offers;            /* term_offers.csv's rows */
    long forward_offers;         /* of which forward starts */
    int contracts;
} sim_stats;

/* Generates the market.  p is validated (GPI_EUSAGE with a message when a
 * field is out of range); write errors give GPI_EIO.  s (may be NULL)
 * receives the counts. */
gpi_status sim_write(const sim_params *p, const sim_files *f, sim_stats *s, gpi_diag *d);

/* Writes deployments.csv (example inference deployments for `gpuidx cost`,
 * see sim/deploy.c) for the days of p to f.  Depends only on p's start
 * day and days (validate p with sim_write first); GPI_EIO when a write
 * fails. */
gpi_status sim_write_deployments(const sim_params *p, FILE *f, gpi_diag *d);

/* ---- the generator's private random numbers (exposed for tests) -------- */

typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;

/* Seeds with splitmix64(seed ^ stream) so that independent streams of one
 * seed do not overlap in practice. */
void sim_rng_seed(sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(sim_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double sim_rng_unit(sim_rng *r);
/* Uniform integer in [0, n) (n > 0), without modulo bias. */
uint64_t sim_rng_below(sim_rng *r, uint64_t n);
/* Standard normal (Box-Muller on the generator; deterministic). */
double sim_rng_normal(sim_rng *r);

#endif
