/* sim/truth.c -- the demo market's true prices: the model's expected trades.
 *
 * truth.csv is a trades file in the canonical format (SPEC §3), source
 * "truth", with one trade per offer key and day:
 *   price    the key's price in the model with no noise at all:
 *              market level L_g(t) (model.c) x provider level
 *              x (1 + region premium) x term factor x scope factor
 *              x the mean trade discount (0.96); a reserved key of T
 *              months x the true term structure's average over its
 *              term on day t (curve.c), without its noise,
 *            6 decimals; no provider deviation, list-price stickiness,
 *            spot noise, outliers, fat fingers, outages or pusher;
 *   quantity the GPU-hours the key is expected to trade on a weekday:
 *              trades of g a day x its provider's share of the trade weight
 *              x sum over the term mix of P(a trade of that term takes this
 *              key) x mean trade size (x 10 for reserved) x the share of
 *              trades that are neither cancelled nor affiliate (0.965),
 *            2 decimals.  P(key | provider, term) is exact: the share of
 *            random starts from which market.c's key pick lands on it.
 * A grade built on this file alone with every defence off (method v1,
 * cap_floor 1, an error_factor that never screens, min_providers 1,
 * min_trade_volume 0) is the volume-weighted median of the model's
 * transaction prices in the grade: the grade's true price.  Weights do not
 * change with t and every price of an on-demand or spot key is L_g(t)
 * times a constant, so an on-demand or spot grade of one GPU is L_g(t) x
 * M_G with one multiplier M_G per grade.
 * The file depends only on the seed, days, start and scale; it never
 * changes the market (no random draws but the key set's own stream).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

#define OK_SHARE 0.965 /* market.c: 2.5 % cancelled, 1 % affiliate */

static const char header[] =
    "kind,id,observed_at,source,provider,region,gpu,price,unit,scope,tier,term,"
    "term_months,quantity,buyer,status\n";

/* Expected GPU-hours per weekday of each key (w[ks->n]). */
static void expected_volume(const sim_params *p, const sim_keyset *ks, double *w)
{
    for (size_t i = 0; i < ks->n; i++) w[i] = 0;
    for (int g = 0; g < SIM_NGPU; g++) {
        double wsum = 0;
        for (int pi = 0; pi < sim_nproviders; pi++)
            if (ks->pg_count[pi * SIM_NGPU + g]) wsum += sim_providers[pi].trade_weight;
        double per_day = sim_gpus[g].trades_per_day * p->scale * OK_SHARE;
        for (int pi = 0; pi < sim_nproviders; pi++) {
            size_t n = ks->pg_count[pi * SIM_NGPU + g];
            if (!n) continue;
            double trades = per_day * sim_providers[pi].trade_weight / wsum;
            for (int term = 0; term < 3; term++)
                for (size_t start = 0; start < n; start++) {
                    size_t k = sim_key_pick(ks, pi, g, term, start);
                    double qty = SIM_TRADE_QTY_MEAN * (ks->v[k].term == 2 ? 10 : 1);
                    w[k] += trades * sim_term_share[term] / (double)n * qty;
                }
        }
    }
}

gpi_status sim_write_truth(const sim_params *p, const double *mf, const sim_curve *cv, FILE *f,
                           gpi_diag *d)
{
    sim_keyset ks = {NULL, 0, NULL, NULL};
    sim_out o;
    double *w = NULL;
    gpi_status st = GPI_OK;
    int oerr = sim_out_open(&o, f);
    if (oerr || sim_keys_build(p, &ks) != 0 || !(w = malloc((ks.n ? ks.n : 1) * sizeof *w))) {
        st = gpi_diag_set(d, GPI_ENOMEM, "simulate: out of memory");
        goto done;
    }
    expected_volume(p, &ks, w);
    sim_out_str(&o, header);
    char date[11];
    for (int t = 0; t < p->days && !o.err; t++) {
        gpi_date_format(p->start_day + t, date);
        for (size_t i = 0; i < ks.n; i++) {
            const sim_key *k = &ks.v[i];
            const sim_provider *pv = &sim_providers[k->prov];
            const sim_gpu *gp = &sim_gpus[k->gpu];
            const char *scope = pv->scopes[k->scope];
            double price = mf[k->gpu * p->days + t] * pv->mult * (1 + k->prem) *
                           sim_term_factor(k->term, k->months) * sim_scope_factor(scope) *
                           SIM_TRADE_DISCOUNT_MEAN;
            if (k->term == 2) price *= sim_curve_term(cv, k->gpu, t, k->months);
            int64_t micro = llround(price * 1e6), qty = llround(w[i] * 100);
            if (micro < 1) micro = 1;
            if (qty < 1) qty = 1;
            sim_out_str(&o, "trade,truth-");
            sim_out_str(&o, date);
            sim_out_ch(&o, '-');
            sim_out_str(&o, pv->tag);
            sim_out_ch(&o, '-');
            sim_out_str(&o, gp->tag);
            sim_out_str(&o, "-r");
            sim_out_int(&o, k->region);
            sim_out_ch(&o, '-');
            sim_out_str(&o, scope);
            sim_out_ch(&o, '-');
            sim_out_str(&o, sim_term_names[k->term]);
            if (k->months) sim_out_int(&o, k->months);
            sim_out_ch(&o, ',');
            sim_out_str(&o, date);
            sim_out_str(&o, "T12:00:00Z,truth,");
            sim_out_str(&o, pv->name);
            sim_out_ch(&o, ',');
            sim_out_region(&o, pv, k->region);
            sim_out_ch(&o, ',');
            sim_out_str(&o, gp->name);
            sim_out_ch(&o, ',');
            sim_out_fixed(&o, micro, 6);
            sim_out_str(&o, ",gpu-hour,");
            sim_out_str(&o, scope);
            sim_out_ch(&o, ',');
            sim_out_str(&o, pv->tier);
            sim_out_ch(&o, ',');
            sim_out_str(&o, sim_term_names[k->term]);
            sim_out_ch(&o, ',');
            if (k->months) sim_out_int(&o, k->months);
            sim_out_ch(&o, ',');
            sim_out_fixed(&o, qty, 2);
            sim_out_str(&o, ",model,ok\n");
        }
    }
done:
    if (sim_out_close(&o) != 0 && st == GPI_OK)
        st = gpi_diag_set(d, GPI_EIO, "simulate: truth.csv: write failed");
    sim_keys_free(&ks);
    free(w);
    return st;
}
