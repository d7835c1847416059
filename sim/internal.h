/* sim/internal.h -- shared between the files of sim/ only.
 *
 * model.c  the fixed cast of providers and GPUs, and the market factor
 *          (trend, random walk, shocks) per GPU and day
 * out.c    a buffered line writer with exact fixed-point formatting
 * keys.c   the offer keys (provider x GPU x region x scope x term) and
 *          the model's price factors of a key
 * market.c offer snapshots and trades, day by day
 * truth.c  the model's noise-free expected trades (the true price)
 * curve.c  the true term structure: what reserved and forward-start
 *          rents are priced at, and its file
 * extras.c rent histories, contracts and positions
 * sim.c    sim_write: validation and the order of the outputs
 */
#ifndef GPI_SIM_INTERNAL_H
#define GPI_SIM_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "sim/sim.h"

/* ---- the cast ------------------------------------------------------------ */

enum { SIM_H100_SXM = 0, SIM_H100_PCIE, SIM_A100_SXM, SIM_B200, SIM_H200, SIM_L40S,
       SIM_NGPU };

typedef struct sim_gpu {
    const char *name;        /* canonical (SPEC §3) */
    const char *tag;         /* short, for ids */
    double base;             /* neocloud on-demand USD/GPU-hour on day 0 */
    double drift_year;       /* log drift per year */
    double vol;              /* daily log volatility */
    int trades_per_day;      /* at scale 1 */
} sim_gpu;

enum { SIM_UNIT_GPU_HOUR = 0, SIM_UNIT_INSTANCE_HOUR, SIM_UNIT_GPU_MONTH };
enum { SIM_T_OD = 1, SIM_T_SPOT = 2, SIM_T_RES = 4 };

typedef struct sim_provider {
    const char *name;        /* as a feed writes it */
    const char *tag;         /* short, for ids */
    const char *tier;        /* ClusterMAX tier written in the tier column */
    int hyperscaler;
    double mult;             /* price level relative to the neocloud base */
    unsigned gpus;           /* bit per SIM_* gpu */
    const char *scopes[2];   /* one or two scopes; NULL ends */
    unsigned terms;          /* SIM_T_* bits */
    int res_months[3];       /* reserved terms offered; 0 ends */
    int unit;                /* SIM_UNIT_* of its offers */
    int decimals;            /* decimals of its list prices */
    int snapshots;           /* 1 or 2 per day */
    int hour;                /* hour of the first snapshot (UTC) */
    double trade_weight;     /* share of trades relative to the others */
    int regions;             /* regions at scale 1 */
    const char *region_prefix[3];
    double noise;            /* stationary sd of its log price deviation */
    int publishes_quantity;  /* writes GPUs available on offers */
} sim_provider;

extern const sim_gpu sim_gpus[SIM_NGPU];
extern const sim_provider sim_providers[];
extern const int sim_nproviders;
extern const char *const sim_buyers[];
extern const int sim_nbuyers;

/* Index in sim_providers of special actors. */
int sim_provider_index(const char *tag);

/* The designed events, placed relative to the length of the run. */
typedef struct sim_events {
    int crunch_day;          /* H100/H200 supply crunch: +14 %, decays */
    int b200_cut_day;        /* B200 capacity arrives: -12 % permanently */
    int glut_day;            /* every GPU -4 % permanently */
    int push_from, push_to;  /* [from, to): the pusher's off-market trades */
    int outage_from, outage_to; /* [from, to): B200 reported by one provider */
    int fat_day;             /* a forced fat-finger offer and trade */
} sim_events;

void sim_events_place(int days, sim_events *ev);

/* factor[g * days + t]: the market's neocloud on-demand level of GPU g on
 * day t in USD/GPU-hour.  Caller frees. NULL on allocation failure. */
double *sim_market_factors(const sim_params *p, const sim_events *ev);

/* 1 when day t is a thin trading day (a small fraction of the trades). */
int sim_thin_day(uint64_t seed, int t);

/* ---- the line writer ----------------------------------------------------- */

typedef struct sim_out {
    FILE *f;                 /* NULL: everything is discarded */
    char *buf;
    size_t n, cap;
    int err;                 /* a write failed */
} sim_out;

int sim_out_open(sim_out *o, FILE *f);      /* 0 ok, -1 no memory */
void sim_out_str(sim_out *o, const char *s);
void sim_out_ch(sim_out *o, char c);
void sim_out_int(sim_out *o, int64_t v);
/* v / 10^dec with exactly dec decimals. */
void sim_out_fixed(sim_out *o, int64_t v, int dec);
/* Writes the buffer out; returns -1 if any write failed. */
int sim_out_close(sim_out *o);

/* ---- offer keys (keys.c) ------------------------------------------------ */

/* One offer key: a provider's listing of a GPU in a region, scope and term.
 * The key set and its region premiums depend only on the seed and scale
 * (their own random stream), so the market and the truth see the same. */
typedef struct sim_key {
    short prov, gpu, scope, term, months, region; /* term: 0 on-demand, 1 spot, 2 reserved */
    double prem;          /* region premium */
    int64_t listed;       /* price in the provider's unit x 10^decimals; 0 = never */
    int64_t qty;          /* GPUs available */
} sim_key;

typedef struct sim_keyset {
    sim_key *v;
    size_t n;
    size_t *pg_first, *pg_count;       /* [prov * SIM_NGPU + gpu] */
} sim_keyset;

/* Builds the keys of p (seed, scale); -1 on allocation failure (free the
 * set either way). */
int sim_keys_build(const sim_params *p, sim_keyset *ks);
void sim_keys_free(sim_keyset *ks);
/* The key a trade of provider pi, GPU g and wanted term takes when its
 * random start is `start` (0 <= start < the provider's keys of g): the
 * first key of that term from start on, cyclically, else the key at start.
 * Returns its index in ks->v. */
size_t sim_key_pick(const sim_keyset *ks, int pi, int g, int term, size_t start);

/* The model's price factors of a key beyond the market level and the
 * provider's level: term (spot; on-demand and reserved 1 -- a reserved
 * key is priced on the true term structure, curve.c) and scope. */
double sim_term_factor(int term, int months);
double sim_scope_factor(const char *scope);

/* Mean of a trade's discount under its key's list price (trades are 0-8 %
 * under it, uniformly). */
#define SIM_TRADE_DISCOUNT_MEAN 0.96
/* Term mix of trades (on-demand, spot, reserved) and the mean GPU-hours
 * of a trade (8 x 1..64; reserved trades ten times that). */
extern const double sim_term_share[3];
#define SIM_TRADE_QTY_MEAN 260.0

extern const char *const sim_term_names[3];
/* Writes a key's region name (prefix, and "-zN" past the prefixes). */
void sim_out_region(sim_out *o, const sim_provider *pv, int r);

/* ---- the true term structure (curve.c) ------------------------------------ */

/* The curve runs to 36 months (the term curve's tenors); a term beyond
 * it (reserved 37..60 months) is integrated on the fly. */
#define SIM_CURVE_MONTHS 36
typedef struct sim_curve sim_curve;
/* The true curves of every GPU and day of p (stream 7); NULL when out of
 * memory.  Free with sim_curve_free (NULL is a no-op). */
sim_curve *sim_curve_new(const sim_params *p, const sim_events *ev);
void sim_curve_free(sim_curve *cv);
/* The average of GPU g's forward on day t over [a, b] months, relative to
 * its on-demand level (1 = the level). */
double sim_curve_average(const sim_curve *cv, int g, int t, double a, double b);
/* The same over [0, months] (a term rent), and over [k - 1, k] (the
 * monthly forward of tenor k). */
double sim_curve_term(const sim_curve *cv, int g, int t, int months);
double sim_curve_forward(const sim_curve *cv, int g, int t, int k);
/* The start in curve months of a rent starting on day starts_on, seen on
 * day: (starts_on - day - 1) / 30.4375, 0 for a start the next day or
 * earlier. */
double sim_curve_start(int32_t day, int32_t starts_on);
gpi_status sim_write_truth_curve(const sim_params *p, const double *mf, const sim_curve *cv,
                                 FILE *f, gpi_diag *d);

/* ---- generators --------------------------------------------------------- */

gpi_status sim_write_market(const sim_params *p, const sim_events *ev, const double *mf,
                            const sim_curve *cv, FILE *offers, FILE *trades,
                            FILE *term_offers, sim_stats *s, gpi_diag *d);
gpi_status sim_write_rent(const sim_params *p, const double *mf, int earner, FILE *f,
                          gpi_diag *d);
/* truth.c: the model's expected trades (sim.h, sim_files.truth). */
gpi_status sim_write_truth(const sim_params *p, const double *mf, const sim_curve *cv, FILE *f,
                           gpi_diag *d);
gpi_status sim_write_contracts(const sim_params *p, const double *mf, FILE *contracts,
                               FILE *positions, sim_stats *s, gpi_diag *d);

#endif
