/* sim/deploy.c -- example inference deployments for `gpuidx cost`.
 *
 * Five operators serve one workload (a 70B model, 8K tokens in / 1K out)
 * at one latency target (P50 100 tokens/s per user) on two GPU models:
 *   Helios Inference  B200, grade B200.OD, 300 tokens/s throughout
 *   Kestrel Compute   B200, grade B200.OD, starts at 200 tokens/s at the
 *                     same acceptance as Helios (the example: same
 *                     GPU, same price, 200 vs 300 -> cost ratio 1.5), and
 *                     its serving stack improves every quarter to 330
 *   Northwind AI      B200, grade B200.OD, 270 -> 290 tokens/s: it
 *                     improves, yet falls back as its peers improve more
 *   Cobalt Cloud      H100 SXM, grade H100-SXM.OD, 100 -> 140
 *   Vantage Labs      H100 SXM on a reserved contract at its own rent
 *                     (1.85 USD/GPU-hour), peers on the H100 gold grade
 * Some rows state other costs (power, staff, software, USD/GPU-hour) and an
 * API list price (USD per million output tokens), which the cost command
 * shows beside the cost, never in it.  The run is cut into four equal
 * phases (quarters of a year), one row per operator and phase, with
 * from/to ranges.  No randomness: the file depends only on the start day
 * and the number of days.
 */
#include "sim/internal.h"

typedef struct sim_dep {
    const char *op, *name, *gpu, *grade;
    int64_t rent_micro;      /* -1: the grade's index value */
    int64_t gpus, accept_ppm;
    int64_t tps_milli[4];    /* per phase */
    int64_t other_micro;     /* -1: not stated */
    int64_t api_micro;       /* -1: not stated */
} sim_dep;

static const sim_dep cast[] = {
    {"Helios Inference", "", "B200", "B200.OD", -1, 96, 950000,
     {300000, 300000, 300000, 300000}, 400000, 6000000},
    {"Kestrel Compute", "", "B200", "B200.OD", -1, 32, 950000,
     {200000, 240000, 300000, 330000}, -1, -1},
    {"Northwind AI", "", "B200", "B200.OD", -1, 64, 950000,
     {270000, 275000, 285000, 290000}, 450000, 6000000},
    {"Cobalt Cloud", "", "H100-SXM-80GB", "H100-SXM.OD", -1, 256, 980000,
     {100000, 115000, 130000, 140000}, 300000, 4500000},
    {"Vantage Labs", "reserved", "H100-SXM-80GB", "H100-SXM.OD", 1850000, 128, 990000,
     {105000, 105000, 105000, 105000}, 350000, -1},
};

gpi_status sim_write_deployments(const sim_params *p, FILE *f, gpi_diag *d)
{
    sim_out o;
    if (sim_out_open(&o, f) != 0) return gpi_diag_set(d, GPI_ENOMEM, "simulate: out of memory");
    sim_out_str(&o, "operator,deployment,workload,latency_target,gpu,grade,rent,from,to,"
                    "tokens_per_s,acceptance,gpus,other_cost,api_price\n");
    for (size_t k = 0; k < sizeof cast / sizeof cast[0]; k++) {
        const sim_dep *c = &cast[k];
        for (int ph = 0; ph < 4; ph++) {
            int32_t a = p->start_day + (int32_t)((int64_t)p->days * ph / 4);
            int32_t b = p->start_day + (int32_t)((int64_t)p->days * (ph + 1) / 4) - 1;
            if (b < a) continue;
            char from[11], to[11];
            gpi_date_format(a, from);
            gpi_date_format(b, to);
            sim_out_str(&o, c->op);
            sim_out_ch(&o, ',');
            sim_out_str(&o, c->name);
            sim_out_str(&o, ",llama-70b-8k1k,P50 100 tok/s/user,");
            sim_out_str(&o, c->gpu);
            sim_out_ch(&o, ',');
            sim_out_str(&o, c->grade);
            sim_out_ch(&o, ',');
            if (c->rent_micro >= 0) sim_out_fixed(&o, c->rent_micro, 6);
            sim_out_ch(&o, ',');
            sim_out_str(&o, from);
            sim_out_ch(&o, ',');
            sim_out_str(&o, to);
            sim_out_ch(&o, ',');
            sim_out_fixed(&o, c->tps_milli[ph], 3);
            sim_out_ch(&o, ',');
            sim_out_fixed(&o, c->accept_ppm, 6);
            sim_out_ch(&o, ',');
            sim_out_int(&o, c->gpus);
            sim_out_ch(&o, ',');
            if (c->other_micro >= 0) sim_out_fixed(&o, c->other_micro, 6);
            sim_out_ch(&o, ',');
            if (c->api_micro >= 0) sim_out_fixed(&o, c->api_micro, 6);
            sim_out_ch(&o, '\n');
        }
    }
    if (sim_out_close(&o) != 0)
        return gpi_diag_set(d, GPI_EIO, "simulate: deployments.csv: write failed");
    return GPI_OK;
}
