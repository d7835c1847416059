/* sim/market.c -- offer snapshots and trades of the demo market, day by day.
 *
 * Offers.  Every provider lists each of its GPUs in each of its regions
 * (regions x scale), scopes and terms under a stable id.  A key's target
 * price per GPU-hour is
 *     market(g, t) x provider level x (1 + region premium)
 *       x exp(provider deviation, an AR(1)) x term factor x scope factor,
 * quoted in the provider's unit (gpu-hour, 8-GPU instance-hour or
 * gpu-month) and decimals.  List prices are sticky: a key is relisted only
 * when its target moves more than 1.5 % (spot prices float daily).  Two
 * providers snapshot twice a day (their spot prices move in between), so
 * the index's "latest snapshot" rule matters.  Providers miss about one
 * day in a hundred; B200 has an eight-day outage where only CoreWeave
 * reports (offers level -> carried -> suspended).
 *
 * Bad prints.  About 1 in 500 key-days is an outlier (a stale or promo
 * price at 0.35-0.55x or 1.7-2.5x, for that day only); about 1 in 5000 is
 * a fat finger (10x, or a monthly price under unit gpu-hour).  One of each
 * kind is forced on the run's middle day so that every run has them.
 *
 * Reserved keys follow the true term structure (curve.c): a key of T
 * months is priced at its on-demand target times the curve's average over
 * [0, T], times the provider's own term deviation (an AR(1) per provider
 * and GPU, sd 1 %) and the key's quoting noise (AR(1), sd 0.8 %), both
 * from stream 8; list prices are sticky as every key's.  Eight neoclouds
 * (CoreWeave, Nebius, Crusoe, Lambda, FluidStack, Together AI, Hyperstack,
 * RunPod) also list reservations
 * beyond their catalogue keys (term_offers.csv, the canonical offers
 * format with `starts_on`): in their first two regions and first scope, 1,
 * 3, 6, 12 and 24 months from the next day, and CoreWeave and Lambda
 * forward starts -- 12 months from the first day of the month three months
 * ahead and 6 months from the first day of the month six months ahead --
 * each quoted off the provider's own list price on demand in that region
 * and scope (as reservations are quoted: a discount off the list) times the
 * curve over its months, with the provider's term deviation and its own
 * quoting noise (AR(1), sd 0.8 %, stream 9).  None
 * of it draws on streams 3 and 4: the on-demand and spot rows and every
 * row's count are what they were before the term structure.
 *
 * Trades.  Per GPU and day a number of trades (fewer on weekends, about 6 %
 * on thin days) is spread over providers by weight; each picks a term
 * (on-demand 65 %, spot 20 %, reserved 15 %) and one of the provider's keys
 * and trades 0-8 % under its list price; 2.5 % are cancelled, 1 % are
 * flagged affiliate.  The pusher, "Nimbus Compute", adds large H100 trades
 * 50 % over its own list for two weeks, half of them with itself as the
 * buyer (wash trades that the affiliate rule must catch) and half with a
 * third party (which the provider cap must bound).  With sim_params.no_push
 * those trades are drawn but not written (every other row is unchanged, the
 * later trades keep their ids), so the same market can be indexed with and
 * without the manipulation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

typedef sim_key offer_key;

typedef struct market {
    const sim_params *p;
    const sim_events *ev;
    const double *mf;
    const sim_curve *cv;
    sim_keyset ks;
    double dev[64][SIM_NGPU];          /* provider log deviation */
    double tdev[64][SIM_NGPU];         /* provider's term deviation (stream 8) */
    double *qnoise;                    /* [key]: a reserved key's quoting noise */
    double fnoise[8][SIM_NGPU][2][7];  /* term offers' quoting noise (stream 9) */
    char date[11];
    sim_out oo, to, fo;
    sim_rng ro, rt, rq, rf;
    sim_stats *s;
    long trade_seq;
} market;

static const char *const unit_names[] = {"gpu-hour", "instance-hour", "gpu-month"};
static const int unit_gpus[] = {1, 8, 1};
static const int unit_hours[] = {1, 1, 730};

static int provider_down(uint64_t seed, int prov, int t)
{
    int v[2] = {prov, t};
    return gpi_fnv1a64(v, sizeof v, seed ^ 0x646f776e646179ULL) % 100 == 3;
}

static int64_t pow10i(int d)
{
    int64_t p = 1;
    while (d-- > 0) p *= 10;
    return p;
}

/* Target price of key k on day t, per GPU-hour. */
static double target(const market *m, const offer_key *k, int t)
{
    const sim_provider *pv = &sim_providers[k->prov];
    double v = m->mf[k->gpu * m->p->days + t] * pv->mult * (1 + k->prem) *
               exp(m->dev[k->prov][k->gpu]) * sim_term_factor(k->term, k->months) *
               sim_scope_factor(pv->scopes[k->scope]);
    if (k->term == 2)
        v *= sim_curve_term(m->cv, k->gpu, t, k->months) *
             exp(m->tdev[k->prov][k->gpu] + m->qnoise[k - m->ks.v]);
    return v;
}

/* Price of a key per GPU-hour in micro-USD (for trades). */
static int64_t key_micro(const offer_key *k)
{
    const sim_provider *pv = &sim_providers[k->prov];
    __int128 num = (__int128)k->listed * pow10i(6 - pv->decimals);
    __int128 den = (__int128)unit_gpus[pv->unit] * unit_hours[pv->unit];
    return gpi_div_round(num, den);
}

static void relist(market *m, offer_key *k, int t, double noise)
{
    const sim_provider *pv = &sim_providers[k->prov];
    double unit_price = target(m, k, t) * noise * unit_gpus[pv->unit] * unit_hours[pv->unit];
    int64_t v = llround(unit_price * (double)pow10i(pv->decimals));
    if (v < 1) v = 1;
    if (k->listed == 0 || k->term == 1 ||
        fabs((double)v / (double)k->listed - 1.0) > 0.015)
        k->listed = v;
}

/* scope,tier,term,term_months, of an offer or a trade on key k */
static void out_terms(sim_out *o, const sim_provider *pv, const offer_key *k)
{
    sim_out_str(o, pv->scopes[k->scope]);
    sim_out_ch(o, ',');
    sim_out_str(o, pv->tier);
    sim_out_ch(o, ',');
    sim_out_str(o, sim_term_names[k->term]);
    sim_out_ch(o, ',');
    if (k->months) sim_out_int(o, k->months);
    sim_out_ch(o, ',');
}

static void write_offer(market *m, const offer_key *k, int hour, int64_t price)
{
    const sim_provider *pv = &sim_providers[k->prov];
    const sim_gpu *gp = &sim_gpus[k->gpu];
    sim_out *o = &m->oo;
    sim_out_str(o, "offer,");
    sim_out_str(o, pv->tag);
    sim_out_ch(o, '-');
    sim_out_str(o, gp->tag);
    sim_out_str(o, "-r");
    sim_out_int(o, k->region);
    sim_out_ch(o, '-');
    sim_out_str(o, pv->scopes[k->scope]);
    sim_out_ch(o, '-');
    sim_out_str(o, sim_term_names[k->term]);
    if (k->months) sim_out_int(o, k->months);
    sim_out_ch(o, ',');
    sim_out_str(o, m->date);
    sim_out_ch(o, 'T');
    sim_out_ch(o, (char)('0' + hour / 10));
    sim_out_ch(o, (char)('0' + hour % 10));
    sim_out_str(o, ":00:00Z,demo,");
    sim_out_str(o, pv->name);
    sim_out_ch(o, ',');
    sim_out_region(o, pv, k->region);
    sim_out_ch(o, ',');
    sim_out_str(o, gp->name);
    sim_out_ch(o, ',');
    if (pv->unit == SIM_UNIT_INSTANCE_HOUR) {
        sim_out_str(o, gp->tag);
        sim_out_str(o, ".8x");
    }
    sim_out_ch(o, ',');
    sim_out_int(o, unit_gpus[pv->unit]);
    sim_out_ch(o, ',');
    sim_out_fixed(o, price, pv->decimals);
    sim_out_str(o, ",USD,");
    sim_out_str(o, unit_names[pv->unit]);
    sim_out_ch(o, ',');
    out_terms(o, pv, k);
    if (pv->publishes_quantity) sim_out_int(o, k->qty);
    sim_out_ch(o, '\n');
    m->s->offers++;
}

/* The term deviations and quoting noise of the day (stream 8). */
static void term_noise(market *m)
{
    for (int pi = 0; pi < sim_nproviders; pi++)
        for (int g = 0; g < SIM_NGPU; g++) {
            double *tv = &m->tdev[pi][g];
            *tv = 0.95 * *tv + 0.010 * 0.3122 * sim_rng_normal(&m->rq);
        }
    for (size_t i = 0; i < m->ks.n; i++)
        if (m->ks.v[i].term == 2)
            m->qnoise[i] = 0.9 * m->qnoise[i] + 0.008 * 0.4359 * sim_rng_normal(&m->rq);
}

static void day_offers(market *m, int t)
{
    const sim_events *ev = m->ev;
    int cw = sim_provider_index("cw");
    int forced = 0;
    for (int pi = 0; pi < sim_nproviders; pi++)
        for (int g = 0; g < SIM_NGPU; g++) {
            double *dv = &m->dev[pi][g];
            *dv = 0.9 * *dv + sim_providers[pi].noise * 0.4359 * sim_rng_normal(&m->ro);
        }
    term_noise(m);
    for (size_t i = 0; i < m->ks.n; i++) {
        offer_key *k = &m->ks.v[i];
        const sim_provider *pv = &sim_providers[k->prov];
        double noise = k->term == 1 ? exp(0.06 * sim_rng_normal(&m->ro)) : 1.0;
        relist(m, k, t, noise);
        double u = sim_rng_unit(&m->ro);
        if (provider_down(m->p->seed, k->prov, t)) continue;
        if (k->gpu == SIM_B200 && t >= ev->outage_from && t < ev->outage_to && k->prov != cw)
            continue;
        for (int snap = 0; snap < pv->snapshots; snap++) {
            int64_t price = k->listed;
            if (snap == 1 && k->term == 1) {
                double f = exp(0.04 * sim_rng_normal(&m->ro));
                price = llround((double)price * f);
                if (price < 1) price = 1;
            }
            if (snap == 0 && u < 0.002) {
                double f = sim_rng_unit(&m->ro) < 0.5 ? 0.35 + 0.2 * sim_rng_unit(&m->ro)
                                                      : 1.7 + 0.8 * sim_rng_unit(&m->ro);
                price = llround((double)price * f);
                if (price < 1) price = 1;
                m->s->outliers++;
            } else if (snap == 0 && u > 0.9998) {
                price *= pv->unit == SIM_UNIT_GPU_HOUR && u > 0.9999 ? 730 : 10;
                m->s->fat_fingers++;
            } else if (snap == 0 && !forced && t == ev->fat_day && k->prov == cw &&
                       k->gpu == SIM_H100_SXM && k->term == 0) {
                price *= 10;
                m->s->fat_fingers++;
                forced = 1;
            }
            write_offer(m, k, pv->hour + 12 * snap, price);
        }
    }
}

/* The term offers of the day (term_offers.csv; stream 9): see the design
 * note above. */
#define TERM_WHO 8
#define TERM_PRODUCTS 7
static void day_terms(market *m, int t)
{
    static const char *const who[TERM_WHO] = {"cw",       "nebius",  "crusoe",     "lambda",
                                               "fluidstack", "together", "hyperstack", "runpod"};
    /* months and start (months ahead; 0: the next day) of each product; the
     * forward starts only where fwd = 1 */
    static const int months[TERM_PRODUCTS] = {1, 3, 6, 12, 24, 12, 6};
    static const int ahead[TERM_PRODUCTS] = {0, 0, 0, 0, 0, 3, 6};
    int32_t day = m->p->start_day + t;
    int y, mo, dd;
    gpi_civil_from_days(day, &y, &mo, &dd);
    for (int w = 0; w < TERM_WHO; w++) {
        int pi = sim_provider_index(who[w]);
        const sim_provider *pv = &sim_providers[pi];
        int fwd = w == 0 || w == 3; /* CoreWeave and Lambda quote forward starts */
        int down = provider_down(m->p->seed, pi, t);
        for (int g = 0; g < SIM_NGPU; g++) {
            size_t first = m->ks.pg_first[pi * SIM_NGPU + g], n = m->ks.pg_count[pi * SIM_NGPU + g];
            for (int r = 0; r < 2; r++)
                for (int q = 0; q < TERM_PRODUCTS; q++) {
                    if (ahead[q] && !fwd) continue;
                    double *nz = &m->fnoise[w][g][r][q];
                    *nz = 0.9 * *nz + 0.008 * 0.4359 * sim_rng_normal(&m->rf);
                    const offer_key *od = NULL;
                    for (size_t i = first; i < first + n && !od; i++)
                        if (m->ks.v[i].term == 0 && m->ks.v[i].region == r && m->ks.v[i].scope == 0)
                            od = &m->ks.v[i];
                    if (!od || down) continue;
                    int32_t start = 0;
                    double a = 0;
                    if (ahead[q]) {
                        int sy = y, sm = mo + ahead[q];
                        while (sm > 12) sm -= 12, sy++;
                        start = gpi_days_from_civil(sy, sm, 1);
                        a = sim_curve_start(day, start);
                    }
                    /* off the provider's own list price on demand (a
                     * reservation is quoted as a discount off the list) */
                    double px = (double)key_micro(od) / 1e6 *
                                sim_curve_average(m->cv, g, t, a, a + months[q]) *
                                exp(m->tdev[pi][g] + *nz);
                    int64_t v = llround(px * (double)pow10i(pv->decimals));
                    if (v < 1) v = 1;
                    char sdate[11] = "";
                    if (start) gpi_date_format(start, sdate);
                    sim_out *o = &m->fo;
                    sim_out_str(o, "offer,");
                    sim_out_str(o, pv->tag);
                    sim_out_ch(o, '-');
                    sim_out_str(o, sim_gpus[g].tag);
                    sim_out_str(o, "-r");
                    sim_out_int(o, r);
                    sim_out_ch(o, '-');
                    sim_out_str(o, pv->scopes[0]);
                    sim_out_str(o, start ? "-fwd" : "-term");
                    sim_out_int(o, months[q]);
                    sim_out_ch(o, 'm');
                    if (start) {
                        sim_out_ch(o, '-');
                        sim_out_str(o, sdate);
                    }
                    sim_out_ch(o, ',');
                    sim_out_str(o, m->date);
                    sim_out_ch(o, 'T');
                    sim_out_ch(o, (char)('0' + pv->hour / 10));
                    sim_out_ch(o, (char)('0' + pv->hour % 10));
                    sim_out_str(o, ":30:00Z,demo,");
                    sim_out_str(o, pv->name);
                    sim_out_ch(o, ',');
                    sim_out_region(o, pv, r);
                    sim_out_ch(o, ',');
                    sim_out_str(o, sim_gpus[g].name);
                    sim_out_str(o, ",,1,");
                    sim_out_fixed(o, v, pv->decimals);
                    sim_out_str(o, ",USD,gpu-hour,");
                    sim_out_str(o, pv->scopes[0]);
                    sim_out_ch(o, ',');
                    sim_out_str(o, pv->tier);
                    sim_out_str(o, ",reserved,");
                    sim_out_int(o, months[q]);
                    sim_out_str(o, ",,");
                    sim_out_str(o, sdate);
                    sim_out_ch(o, '\n');
                    m->s->term_offers++;
                    if (start) m->s->forward_offers++;
                }
        }
    }
}

static void write_trade(market *m, const offer_key *k, int64_t price_e4, int64_t qty,
                        const char *buyer, const char *buyer_suffix, const char *status)
{
    const sim_provider *pv = &sim_providers[k->prov];
    sim_out *o = &m->to;
    int64_t sec = (int64_t)sim_rng_below(&m->rt, 86400);
    sim_out_str(o, "trade,T");
    sim_out_int(o, ++m->trade_seq);
    sim_out_ch(o, ',');
    sim_out_str(o, m->date);
    sim_out_ch(o, 'T');
    int hh = (int)(sec / 3600), mm = (int)(sec / 60 % 60), ss = (int)(sec % 60);
    char tbuf[10] = {(char)('0' + hh / 10), (char)('0' + hh % 10), ':',
                     (char)('0' + mm / 10), (char)('0' + mm % 10), ':',
                     (char)('0' + ss / 10), (char)('0' + ss % 10), 'Z', 0};
    sim_out_str(o, tbuf);
    sim_out_str(o, ",demo,");
    sim_out_str(o, pv->name);
    sim_out_ch(o, ',');
    sim_out_region(o, pv, k->region);
    sim_out_ch(o, ',');
    sim_out_str(o, sim_gpus[k->gpu].name);
    sim_out_ch(o, ',');
    sim_out_fixed(o, price_e4, 4);
    sim_out_str(o, ",gpu-hour,");
    out_terms(o, pv, k);
    sim_out_int(o, qty);
    sim_out_ch(o, ',');
    sim_out_str(o, buyer);
    if (buyer_suffix) sim_out_str(o, buyer_suffix);
    sim_out_ch(o, ',');
    sim_out_str(o, status);
    sim_out_ch(o, '\n');
    m->s->trades++;
}

/* A key of provider pi and GPU g with the wanted term if it has one. */
static const offer_key *pick_key(market *m, int pi, int g, int term)
{
    size_t start = (size_t)sim_rng_below(&m->rt, m->ks.pg_count[pi * SIM_NGPU + g]);
    return &m->ks.v[sim_key_pick(&m->ks, pi, g, term, start)];
}

static void day_trades(market *m, int t)
{
    const sim_events *ev = m->ev;
    int32_t day = m->p->start_day + t;
    int weekend = gpi_iso_weekday(day) >= 6;
    int thin = sim_thin_day(m->p->seed, t);
    int cw = sim_provider_index("cw"), nimbus = sim_provider_index("nimbus");
    if (thin) m->s->thin_days++;
    for (int g = 0; g < SIM_NGPU; g++) {
        if (g == SIM_B200 && t >= ev->outage_from && t < ev->outage_to) continue;
        double want = sim_gpus[g].trades_per_day * m->p->scale * (weekend ? 0.6 : 1.0) *
                      (thin ? 0.06 : 1.0);
        long n = (long)want + (sim_rng_unit(&m->rt) < want - floor(want));
        double wsum = 0;
        for (int pi = 0; pi < sim_nproviders; pi++)
            if (m->ks.pg_count[pi * SIM_NGPU + g]) wsum += sim_providers[pi].trade_weight;
        for (long i = 0; i < n; i++) {
            double x = sim_rng_unit(&m->rt) * wsum;
            int pi = 0;
            for (; pi < sim_nproviders; pi++) {
                if (!m->ks.pg_count[pi * SIM_NGPU + g]) continue;
                x -= sim_providers[pi].trade_weight;
                if (x < 0) break;
            }
            if (pi == sim_nproviders) pi = cw;
            double u = sim_rng_unit(&m->rt);
            int term = u < 0.65 ? 0 : u < 0.85 ? 1 : 2;
            const offer_key *k = pick_key(m, pi, g, term);
            double disc = 1.0 - 0.08 * sim_rng_unit(&m->rt);
            int64_t e4 = llround((double)key_micro(k) * disc / 100.0);
            if (e4 < 1) e4 = 1;
            int64_t qty = 8 * (int64_t)(1 + sim_rng_below(&m->rt, 64));
            if (k->term == 2) qty *= 10;
            double v = sim_rng_unit(&m->rt);
            const char *buyer = sim_buyers[sim_rng_below(&m->rt, (uint64_t)sim_nbuyers)];
            if (v < 0.00025) {
                e4 = v < 0.000125 ? e4 * 10 : (e4 + 5) / 10;
                if (e4 < 1) e4 = 1;
                m->s->fat_fingers++;
            }
            if (v > 0.975) {
                write_trade(m, k, e4, qty, buyer, NULL, "cancelled");
                m->s->cancelled++;
            } else if (v > 0.965) {
                write_trade(m, k, e4, qty, sim_providers[pi].name, " Ventures", "affiliate");
                m->s->affiliate++;
            } else {
                write_trade(m, k, e4, qty, buyer, NULL, "ok");
            }
        }
        if (g == SIM_H100_SXM && t == ev->fat_day) {
            const offer_key *k = pick_key(m, cw, g, 0);
            write_trade(m, k, 10 * llround((double)key_micro(k) / 100.0), 64, sim_buyers[0],
                        NULL, "ok");
            m->s->fat_fingers++;
        }
        if (g == SIM_H100_SXM && t >= ev->push_from && t < ev->push_to) {
            long np = 8L * m->p->scale;
            for (long i = 0; i < np; i++) {
                const offer_key *k = pick_key(m, nimbus, g, 0);
                int64_t e4 = llround((double)key_micro(k) * 1.50 / 100.0);
                int64_t qty = 128 * (int64_t)(1 + sim_rng_below(&m->rt, 8));
                int wash = sim_rng_unit(&m->rt) < 0.5;
                if (m->p->no_push) {
                    /* the same draws and trade ids, nothing written: the
                     * market without the pusher is this one minus its trades */
                    (void)sim_rng_below(&m->rt, 86400);
                    m->trade_seq++;
                    continue;
                }
                write_trade(m, k, e4, qty, wash ? sim_providers[nimbus].name : "Cirrus Capital",
                            NULL, "ok");
                m->s->pushed_trades++;
            }
        }
    }
}

static const char offer_header[] =
    "kind,id,observed_at,source,provider,region,gpu,sku,gpu_count,price,currency,unit,"
    "scope,tier,term,term_months,quantity\n";
static const char forward_header[] =
    "kind,id,observed_at,source,provider,region,gpu,sku,gpu_count,price,currency,unit,"
    "scope,tier,term,term_months,quantity,starts_on\n";
static const char trade_header[] =
    "kind,id,observed_at,source,provider,region,gpu,price,unit,scope,tier,term,"
    "term_months,quantity,buyer,status\n";

gpi_status sim_write_market(const sim_params *p, const sim_events *ev, const double *mf,
                            const sim_curve *cv, FILE *offers, FILE *trades,
                            FILE *term_offers, sim_stats *s, gpi_diag *d)
{
    market m;
    memset(&m, 0, sizeof m);
    m.p = p;
    m.ev = ev;
    m.mf = mf;
    m.cv = cv;
    m.s = s;
    gpi_status st = GPI_OK;
    int oerr = sim_out_open(&m.oo, offers), terr = sim_out_open(&m.to, trades);
    int ferr = sim_out_open(&m.fo, term_offers);
    if (oerr || terr || ferr || sim_keys_build(p, &m.ks) != 0 ||
        !(m.qnoise = calloc(m.ks.n ? m.ks.n : 1, sizeof *m.qnoise))) {
        st = gpi_diag_set(d, GPI_ENOMEM, "simulate: out of memory");
        goto done;
    }
    sim_rng_seed(&m.ro, p->seed, 3);
    sim_rng_seed(&m.rt, p->seed, 4);
    sim_rng_seed(&m.rq, p->seed, 8);
    sim_rng_seed(&m.rf, p->seed, 9);
    sim_out_str(&m.oo, offer_header);
    sim_out_str(&m.to, trade_header);
    sim_out_str(&m.fo, forward_header);
    for (int t = 0; t < p->days; t++) {
        gpi_date_format(p->start_day + t, m.date);
        day_offers(&m, t);
        day_trades(&m, t);
        day_terms(&m, t);
        if (m.oo.err || m.to.err || m.fo.err) break;
    }
done:
    if (sim_out_close(&m.oo) != 0 && st == GPI_OK)
        st = gpi_diag_set(d, GPI_EIO, "simulate: offers.csv: write failed");
    if (sim_out_close(&m.to) != 0 && st == GPI_OK)
        st = gpi_diag_set(d, GPI_EIO, "simulate: trades.csv: write failed");
    if (sim_out_close(&m.fo) != 0 && st == GPI_OK)
        st = gpi_diag_set(d, GPI_EIO, "simulate: term_offers.csv: write failed");
    sim_keys_free(&m.ks);
    free(m.qnoise);
    return st;
}
