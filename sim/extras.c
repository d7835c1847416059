/* sim/extras.c -- example rent histories, contracts and positions.
 *
 * Rent.  The payer is an inference company renting H100 SXM capacity from a
 * gold neocloud: its daily rent tracks the market level x 1.12 with a
 * slow, persistent basis (AR(1), phi 0.97, sd 1.5 %) and a fleet that grows
 * from 64 to 128 GPUs -- a producer whose rent the H100 grade hedges well.
 * The earner owns H100s listed on a marketplace: its revenue per GPU-hour
 * follows the market two days late at 0.78 x with a noisy basis (phi 0.90,
 * sd 5 %), and its sold hours follow utilisation (60-95 %) -- a weaker
 * hedge, for contrast.  Prices
 * have 4 decimals, quantities are GPU-hours.
 *
 * Contracts.  One monthly contract (SPEC §8) per calendar month that lies
 * wholly inside the run and whose listing (the first day of the month
 * before) is inside it too, so that every day settlement needs is built;
 * on the grade of the parameters; symbol
 * GPUH-YYMM, 1000 GPU-hours, tick 0.0001 ($0.10), 15 published days.
 * Positions: a zero-net book of three accounts per contract; one account
 * states an entry price (the market's gold level at listing, to the tick),
 * the others default to the first daily settlement price.
 */
#include <math.h>

#include "sim/internal.h"

gpi_status sim_write_rent(const sim_params *p, const double *mf, int earner, FILE *f,
                          gpi_diag *d)
{
    sim_out o;
    if (sim_out_open(&o, f) != 0) return gpi_diag_set(d, GPI_ENOMEM, "simulate: out of memory");
    sim_rng r;
    sim_rng_seed(&r, p->seed, earner ? 6 : 5);
    const double *h100 = mf + SIM_H100_SXM * p->days;
    double basis = 0;
    /* AR(1) basis with stationary sd `sd`: innovation sd = sd * sqrt(1 - phi^2) */
    double sd = earner ? 0.05 : 0.015, phi = earner ? 0.90 : 0.97;
    double innov = sd * sqrt(1 - phi * phi);
    sim_out_str(&o, "date,price,quantity\n");
    for (int t = 0; t < p->days; t++) {
        basis = phi * basis + innov * sim_rng_normal(&r);
        double level, qty;
        if (earner) {
            level = h100[t >= 2 ? t - 2 : 0] * 0.78;
            qty = 8 * 24 * 32 * (0.60 + 0.35 * sim_rng_unit(&r));
        } else {
            level = h100[t] * 1.12;
            qty = 8 * 24 * (64 + 64 * t / (p->days > 1 ? p->days - 1 : 1));
        }
        int64_t e4 = llround(level * exp(basis) * 1e4);
        if (e4 < 1) e4 = 1;
        char date[11];
        gpi_date_format(p->start_day + t, date);
        sim_out_str(&o, date);
        sim_out_ch(&o, ',');
        sim_out_fixed(&o, e4, 4);
        sim_out_ch(&o, ',');
        sim_out_int(&o, llround(qty));
        sim_out_ch(&o, '\n');
    }
    if (sim_out_close(&o) != 0)
        return gpi_diag_set(d, GPI_EIO, "simulate: %s: write failed",
                            earner ? "rent_earner.csv" : "rent_payer.csv");
    return GPI_OK;
}

gpi_status sim_write_contracts(const sim_params *p, const double *mf, FILE *contracts,
                               FILE *positions, sim_stats *s, gpi_diag *d)
{
    const char *grade = p->contract_grade ? p->contract_grade : SIM_DEFAULT_GRADE;
    sim_out c, q;
    if (sim_out_open(&c, contracts) != 0 || sim_out_open(&q, positions) != 0) {
        sim_out_close(&c);
        return gpi_diag_set(d, GPI_ENOMEM, "simulate: out of memory");
    }
    int32_t first = p->start_day, last = p->start_day + p->days - 1;
    int y, mo, dd;
    gpi_civil_from_days(first, &y, &mo, &dd);
    int n = 0;
    sim_out_str(&c, "{\"contracts\": [");
    sim_out_str(&q, "account,symbol,contracts,entry_price\n");
    for (;;) {
        int32_t m0 = gpi_days_from_civil(y, mo, 1);
        if (m0 > last) break;
        int32_t m1 = m0 + gpi_month_days(y, mo) - 1;
        int py = mo == 1 ? y - 1 : y, pm = mo == 1 ? 12 : mo - 1;
        int32_t listing = gpi_days_from_civil(py, pm, 1);
        if (listing >= first && m1 <= last) {
            char sym[16], month[8];
            snprintf(sym, sizeof sym, "GPUH-%02d%02d", y % 100, mo);
            snprintf(month, sizeof month, "%04d-%02d", y, mo);
            sim_out_str(&c, n ? ",\n  " : "\n  ");
            sim_out_str(&c, "{\"symbol\": \"");
            sim_out_str(&c, sym);
            sim_out_str(&c, "\", \"grade\": \"");
            sim_out_str(&c, grade);
            sim_out_str(&c, "\", \"month\": \"");
            sim_out_str(&c, month);
            sim_out_str(&c, "\", \"size\": 1000, \"tick\": 0.0001, \"min_published_days\": 15}");
            int t = listing - first;
            int64_t entry = llround(mf[SIM_H100_SXM * p->days + t] * 1.15 * 1e4);
            static const struct { const char *acct; int n; int entry; } book[] = {
                {"fund-alpha", 12, 0}, {"miner-beta", -7, 0}, {"lab-gamma", -5, 1}};
            for (int k = 0; k < 3; k++) {
                sim_out_str(&q, book[k].acct);
                sim_out_ch(&q, ',');
                sim_out_str(&q, sym);
                sim_out_ch(&q, ',');
                sim_out_int(&q, book[k].n);
                sim_out_ch(&q, ',');
                if (book[k].entry) sim_out_fixed(&q, entry, 4);
                sim_out_ch(&q, '\n');
            }
            n++;
        }
        if (++mo > 12) mo = 1, y++;
    }
    sim_out_str(&c, n ? "\n]}\n" : "]}\n");
    if (s) s->contracts = n;
    int ce = sim_out_close(&c), qe = sim_out_close(&q);
    if (ce || qe)
        return gpi_diag_set(d, GPI_EIO, "simulate: %s: write failed",
                            ce ? "contracts.json" : "positions.csv");
    return GPI_OK;
}
