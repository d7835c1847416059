/* sim/keys.c -- the demo market's offer keys and a key's price factors.
 *
 * Every provider lists each of its GPUs in each of its regions (regions x
 * scale), scopes and terms under a stable key.  The key set, its region
 * premiums (-3 % .. +6 %) and its quantities come from the seed's stream 2
 * only, so market.c (offers and trades) and truth.c (the model's expected
 * trades) build the same keys.  A key's price per GPU-hour is
 *     market(g, t) x provider level x (1 + region premium)
 *       x provider deviation x term factor x scope factor
 * (market.c adds the deviation, list-price stickiness and noise).  A
 * reserved key's term factor is the true term structure's average over
 * its term (curve.c); before issue 29 it was 1 - 0.095 ln(1 + months), a
 * discount that never moved.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

const char *const sim_term_names[3] = {"on-demand", "spot", "reserved"};
const double sim_term_share[3] = {0.65, 0.20, 0.15};

double sim_term_factor(int term, int months)
{
    (void)months; /* reserved: the term structure of curve.c */
    return term == 1 ? 0.55 : 1.0;
}

double sim_scope_factor(const char *scope)
{
    if (strcmp(scope, "managed") == 0) return 1.06;
    if (strcmp(scope, "container") == 0) return 0.97;
    return 1.0;
}

static int nprefix(const sim_provider *pv)
{
    int k = 0;
    while (k < 3 && pv->region_prefix[k]) k++;
    return k;
}

void sim_out_region(sim_out *o, const sim_provider *pv, int r)
{
    int np = nprefix(pv);
    sim_out_str(o, pv->region_prefix[r % np]);
    if (r >= np) {
        sim_out_str(o, "-z");
        sim_out_int(o, r / np);
    }
}

void sim_keys_free(sim_keyset *ks)
{
    free(ks->v);
    free(ks->pg_first);
    free(ks->pg_count);
    memset(ks, 0, sizeof *ks);
}

int sim_keys_build(const sim_params *p, sim_keyset *ks)
{
    memset(ks, 0, sizeof *ks);
    size_t cap = 0;
    int scale = p->scale;
    for (int pi = 0; pi < sim_nproviders; pi++) {
        const sim_provider *pv = &sim_providers[pi];
        int nterm = !!(pv->terms & SIM_T_OD) + !!(pv->terms & SIM_T_SPOT);
        for (int k = 0; k < 3 && pv->res_months[k]; k++) nterm++;
        int nscope = pv->scopes[1] ? 2 : 1;
        for (int g = 0; g < SIM_NGPU; g++)
            if (pv->gpus & (1u << g)) cap += (size_t)(pv->regions * scale * nscope * nterm);
    }
    ks->v = calloc(cap ? cap : 1, sizeof *ks->v);
    ks->pg_first = calloc((size_t)sim_nproviders * SIM_NGPU, sizeof *ks->pg_first);
    ks->pg_count = calloc((size_t)sim_nproviders * SIM_NGPU, sizeof *ks->pg_count);
    if (!ks->v || !ks->pg_first || !ks->pg_count) return -1;
    sim_rng r;
    sim_rng_seed(&r, p->seed, 2);
    size_t n = 0;
    for (int pi = 0; pi < sim_nproviders; pi++) {
        const sim_provider *pv = &sim_providers[pi];
        for (int g = 0; g < SIM_NGPU; g++) {
            ks->pg_first[pi * SIM_NGPU + g] = n;
            if (!(pv->gpus & (1u << g))) continue;
            for (int reg = 0; reg < pv->regions * scale; reg++) {
                double prem = -0.03 + 0.09 * sim_rng_unit(&r);
                for (int sc = 0; sc < 2 && pv->scopes[sc]; sc++) {
                    int terms[5][2], nt = 0;
                    if (pv->terms & SIM_T_OD) terms[nt][0] = 0, terms[nt++][1] = 0;
                    if (pv->terms & SIM_T_SPOT) terms[nt][0] = 1, terms[nt++][1] = 0;
                    for (int k = 0; k < 3 && pv->res_months[k]; k++)
                        terms[nt][0] = 2, terms[nt++][1] = pv->res_months[k];
                    for (int ti = 0; ti < nt; ti++) {
                        sim_key *k = &ks->v[n++];
                        k->prov = (short)pi;
                        k->gpu = (short)g;
                        k->scope = (short)sc;
                        k->term = (short)terms[ti][0];
                        k->months = (short)terms[ti][1];
                        k->region = (short)reg;
                        k->prem = prem;
                        k->qty = 8 * (int64_t)(1 + sim_rng_below(&r, 64));
                    }
                }
            }
            ks->pg_count[pi * SIM_NGPU + g] = n - ks->pg_first[pi * SIM_NGPU + g];
        }
    }
    ks->n = n;
    return 0;
}

size_t sim_key_pick(const sim_keyset *ks, int pi, int g, int term, size_t start)
{
    size_t first = ks->pg_first[pi * SIM_NGPU + g], n = ks->pg_count[pi * SIM_NGPU + g];
    for (size_t j = 0; j < n; j++) {
        size_t i = first + (start + j) % n;
        if (ks->v[i].term == term) return i;
    }
    return first + start;
}
