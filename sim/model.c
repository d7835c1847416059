/* sim/model.c -- the demo market's cast and its price factors.
 *
 * Price levels follow the shape of the real market (2025): neoclouds list
 * an H100 SXM hour at about $2-3, hyperscalers at two to three times that;
 * B200 and H200 above H100, A100 and L40S below; older models drift down
 * faster.  Each GPU's level is exp(trend + random walk + shocks):
 *   - a supply crunch lifts H100/H200 by 14 % and decays (half-life 25 days),
 *   - B200 capacity arrives: -12 % permanently,
 *   - a late glut: every model -4 % permanently.
 * Hyperscalers carry a small share of the trades (brokered GPU-hour trades
 * are mostly neocloud capacity), so a grade that mixes segments is usually
 * priced by the neocloud cluster -- and flips when hyperscaler volume
 * dominates a thin day, which the grade lab should show.
 * Provider names are spelled as data/providers.csv knows them (except the
 * fictional pusher, which is its own group); their tiers
 * are written in the `tier` column, so the demo does not depend on the
 * example tiers table.  "Nimbus Compute" is the provider that tries to push
 * the H100 grade (see market.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

#define B(g) (1u << (g))

const sim_gpu sim_gpus[SIM_NGPU] = {
    {"H100-SXM-80GB", "h100sxm", 2.30, -0.25, 0.008, 120},
    {"H100-PCIE-80GB", "h100pcie", 1.95, -0.22, 0.008, 30},
    {"A100-SXM-80GB", "a100sxm", 1.35, -0.30, 0.007, 60},
    {"B200", "b200", 4.60, -0.10, 0.012, 40},
    {"H200-SXM-141GB", "h200", 3.20, -0.18, 0.009, 45},
    {"L40S", "l40s", 0.90, -0.15, 0.006, 30},
};

static const unsigned HOPPER = B(SIM_H100_SXM) | B(SIM_H200);

const sim_provider sim_providers[] = {
    /* name, tag, tier, hyper, mult, gpus, scopes, terms, res, unit, dec,
       snaps, hour, weight, regions, region prefixes, noise, qty */
    {"AWS", "aws", "silver", 1, 2.70,
     HOPPER | B(SIM_A100_SXM) | B(SIM_L40S) | B(SIM_B200), {"vm", NULL},
     SIM_T_OD | SIM_T_SPOT | SIM_T_RES, {12, 36, 0}, SIM_UNIT_INSTANCE_HOUR, 3, 1, 4,
     0.3, 3, {"us-east-1", "us-west-2", "eu-west-1"}, 0.010, 0},
    {"Microsoft Azure", "azure", "gold", 1, 2.85, HOPPER | B(SIM_A100_SXM), {"vm", NULL},
     SIM_T_OD | SIM_T_SPOT | SIM_T_RES, {12, 36, 0}, SIM_UNIT_INSTANCE_HOUR, 3, 1, 5, 0.25, 2,
     {"eastus", "westeurope", NULL}, 0.010, 0},
    {"Google Cloud", "gcp", "silver", 1, 2.50,
     B(SIM_H100_SXM) | B(SIM_A100_SXM) | B(SIM_B200) | B(SIM_L40S), {"vm", NULL},
     SIM_T_OD | SIM_T_SPOT, {0}, SIM_UNIT_INSTANCE_HOUR, 3, 1, 3, 0.2, 2,
     {"us-central1", "europe-west4", NULL}, 0.010, 0},
    {"Oracle Cloud", "oci", "gold", 1, 2.05, HOPPER | B(SIM_A100_SXM) | B(SIM_B200),
     {"bare-metal", NULL}, SIM_T_OD | SIM_T_RES, {12, 0, 0}, SIM_UNIT_GPU_HOUR, 2, 1, 6, 0.3,
     2, {"us-ashburn-1", "uk-london-1", NULL}, 0.008, 0},
    {"CoreWeave", "cw", "platinum", 0, 1.15,
     HOPPER | B(SIM_B200) | B(SIM_A100_SXM) | B(SIM_L40S), {"bare-metal", "managed"},
     SIM_T_OD | SIM_T_SPOT | SIM_T_RES, {6, 12, 24}, SIM_UNIT_GPU_HOUR, 4, 1, 2, 1.6, 3,
     {"US-EAST-04", "US-WEST-09", "EU-NORTH-01"}, 0.015, 1},
    {"Nebius", "nebius", "gold", 0, 1.08, HOPPER | B(SIM_B200) | B(SIM_L40S), {"vm", NULL},
     SIM_T_OD | SIM_T_SPOT | SIM_T_RES, {3, 12, 0}, SIM_UNIT_GPU_HOUR, 2, 1, 1, 1.2, 2,
     {"eu-north1", "us-central1", NULL}, 0.015, 1},
    {"Crusoe", "crusoe", "gold", 0, 1.05, HOPPER | B(SIM_A100_SXM) | B(SIM_L40S), {"vm", NULL},
     SIM_T_OD | SIM_T_SPOT | SIM_T_RES, {1, 12, 0}, SIM_UNIT_GPU_HOUR, 2, 1, 7, 1.0, 2,
     {"us-east1", "us-southcentral1", NULL}, 0.015, 1},
    {"Lambda", "lambda", "silver", 0, 1.00,
     HOPPER | B(SIM_H100_PCIE) | B(SIM_A100_SXM) | B(SIM_B200), {"vm", NULL},
     SIM_T_OD | SIM_T_RES, {3, 12, 36}, SIM_UNIT_GPU_HOUR, 2, 1, 8, 1.4, 3,
     {"us-east-1", "us-west-1", "us-south-1"}, 0.012, 1},
    {"Together AI", "together", "silver", 0, 1.05, HOPPER | B(SIM_B200), {"managed", NULL},
     SIM_T_OD, {0}, SIM_UNIT_GPU_HOUR, 2, 1, 9, 0.8, 1, {"us", NULL, NULL}, 0.012, 0},
    {"RunPod", "runpod", "bronze", 0, 0.95,
     HOPPER | B(SIM_H100_PCIE) | B(SIM_A100_SXM) | B(SIM_L40S), {"container", NULL},
     SIM_T_OD | SIM_T_SPOT, {0}, SIM_UNIT_GPU_HOUR, 2, 2, 0, 1.0, 2,
     {"US-TX-3", "EU-RO-1", NULL}, 0.020, 1},
    {"FluidStack", "fluidstack", "gold", 0, 1.02, HOPPER | B(SIM_A100_SXM),
     {"bare-metal", NULL}, SIM_T_OD | SIM_T_RES, {1, 12, 0}, SIM_UNIT_GPU_HOUR, 2, 1, 10, 0.8,
     2, {"gb-london", "us-newyork", NULL}, 0.015, 1},
    {"Vast.ai", "vast", "unrated", 0, 0.80,
     B(SIM_H100_SXM) | B(SIM_H100_PCIE) | B(SIM_A100_SXM) | B(SIM_L40S), {"container", NULL},
     SIM_T_OD | SIM_T_SPOT, {0}, SIM_UNIT_GPU_HOUR, 4, 2, 0, 1.2, 3, {"US", "EU", "ASIA"},
     0.040, 1},
    {"Hyperstack", "hyperstack", "silver", 0, 1.06,
     B(SIM_H100_PCIE) | B(SIM_A100_SXM) | B(SIM_L40S) | B(SIM_H100_SXM), {"vm", NULL},
     SIM_T_OD, {0}, SIM_UNIT_GPU_MONTH, 2, 1, 11, 0.5, 2, {"CANADA-1", "NORWAY-1", NULL}, 0.010, 0},
    {"TensorDock", "tensordock", "unrated", 0, 0.85,
     HOPPER | B(SIM_A100_SXM), {"vm", NULL}, SIM_T_OD | SIM_T_SPOT, {0}, SIM_UNIT_GPU_HOUR,
     2, 1, 12, 0.6, 1, {"us-east", NULL, NULL}, 0.030, 1},
    {"Nimbus Compute", "nimbus", "gold", 0, 1.08, B(SIM_H100_SXM), {"bare-metal", NULL},
     SIM_T_OD, {0}, SIM_UNIT_GPU_HOUR, 2, 1, 13, 0.5, 1, {"us-central", NULL, NULL}, 0.012,
     1},
};
const int sim_nproviders = (int)(sizeof sim_providers / sizeof sim_providers[0]);

const char *const sim_buyers[] = {
    "Anthropos Labs", "Mistral Works", "Perplexa",  "Runway Studio", "Cohere Systems",
    "Character Co",   "Midjourney Ltd", "Inflection", "Stability Works", "Adept Research",
    "Harvey Legal",   "Glean Search",
};
const int sim_nbuyers = (int)(sizeof sim_buyers / sizeof sim_buyers[0]);

int sim_provider_index(const char *tag)
{
    for (int i = 0; i < sim_nproviders; i++)
        if (strcmp(sim_providers[i].tag, tag) == 0) return i;
    return -1;
}

void sim_events_place(int days, sim_events *ev)
{
    ev->crunch_day = days * 30 / 100;
    ev->b200_cut_day = days * 55 / 100;
    ev->glut_day = days * 80 / 100;
    ev->push_from = days * 45 / 100;
    ev->push_to = ev->push_from + (days >= 60 ? 14 : days / 4);
    ev->outage_from = days * 70 / 100;
    ev->outage_to = days >= 30 ? ev->outage_from + 8 : ev->outage_from;
    ev->fat_day = days / 2;
}

int sim_thin_day(uint64_t seed, int t)
{
    /* About one day in 20, from a hash so that it is independent of every
     * other stream (and cheap to recompute in tests). */
    uint64_t x = gpi_fnv1a64(&t, sizeof t, seed ^ 0x7468696e64617973ULL);
    return x % 20 == 7;
}

double *sim_market_factors(const sim_params *p, const sim_events *ev)
{
    int n = p->days;
    double *mf = malloc(sizeof *mf * (size_t)n * SIM_NGPU);
    if (!mf) return NULL;
    sim_rng r;
    sim_rng_seed(&r, p->seed, 1);
    for (int g = 0; g < SIM_NGPU; g++) {
        const sim_gpu *gp = &sim_gpus[g];
        double walk = 0;
        for (int t = 0; t < n; t++) {
            walk += gp->vol * sim_rng_normal(&r);
            double lg = log(gp->base) + gp->drift_year * t / 365.0 + walk;
            if ((g == SIM_H100_SXM || g == SIM_H100_PCIE || g == SIM_H200) &&
                t >= ev->crunch_day)
                lg += log(1.14) * pow(0.5, (t - ev->crunch_day) / 25.0);
            if (g == SIM_B200 && t >= ev->b200_cut_day) lg += log(0.88);
            if (t >= ev->glut_day) lg += log(0.96);
            mf[g * n + t] = exp(lg);
        }
    }
    return mf;
}
