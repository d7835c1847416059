/* sim/internal.h -- shared between the files of sim/ only.
 *
 * model.c  the fixed cast of providers and GPUs, and the market factor
 *          (trend, random walk, shocks) per GPU and day
 * out.c    a buffered line writer with exact fixed-point formatting
 * market.c offer snapshots and trades, day by day
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

/* ---- generators --------------------------------------------------------- */

gpi_status sim_write_market(const sim_params *p, const sim_events *ev, const double *mf,
                            FILE *offers, FILE *trades, sim_stats *s, gpi_diag *d);
gpi_status sim_write_rent(const sim_params *p, const double *mf, int earner, FILE *f,
                          gpi_diag *d);
gpi_status sim_write_contracts(const sim_params *p, const double *mf, FILE *contracts,
                               FILE *positions, sim_stats *s, gpi_diag *d);

#endif
