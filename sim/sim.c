/* sim/sim.c -- sim_write: validates the parameters and writes each output
 * in turn (see sim.h).  Outputs draw on separate random streams of the
 * seed, so leaving one out (a NULL handle) does not change the others. */
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

gpi_status sim_write(const sim_params *p, const sim_files *f, sim_stats *s, gpi_diag *d)
{
    sim_stats local;
    if (!s) s = &local;
    memset(s, 0, sizeof *s);
    if (!p || !f) return gpi_diag_set(d, GPI_EUSAGE, "simulate: no parameters");
    if (p->days < 1 || p->days > SIM_MAX_DAYS)
        return gpi_diag_set(d, GPI_EUSAGE, "simulate: --days: must be 1..%d (got %d)",
                            SIM_MAX_DAYS, p->days);
    if (p->scale < 1 || p->scale > SIM_MAX_SCALE)
        return gpi_diag_set(d, GPI_EUSAGE, "simulate: --scale: must be 1..%d (got %d)",
                            SIM_MAX_SCALE, p->scale);
    int y, m, dd;
    gpi_civil_from_days(p->start_day, &y, &m, &dd);
    int y2, m2, d2;
    gpi_civil_from_days(p->start_day + p->days - 1, &y2, &m2, &d2);
    if (y < 1970 || y2 > 9999)
        return gpi_diag_set(d, GPI_EUSAGE, "simulate: --start: the run must lie in 1970..9999");
    if (p->contract_grade && !gpi_grade_id_ok(p->contract_grade))
        return gpi_diag_set(d, GPI_EUSAGE, "simulate: --grade: not a valid grade id (got \"%s\")",
                            p->contract_grade);
    sim_events ev;
    sim_events_place(p->days, &ev);
    double *mf = sim_market_factors(p, &ev);
    sim_curve *cv = mf ? sim_curve_new(p, &ev) : NULL;
    if (!mf || !cv) {
        free(mf);
        return gpi_diag_set(d, GPI_ENOMEM, "simulate: out of memory");
    }
    s->outage_days = ev.outage_to - ev.outage_from;
    gpi_status st = sim_write_market(p, &ev, mf, cv, f->offers, f->trades, f->term_offers, s, d);
    if (st == GPI_OK && f->rent_payer) st = sim_write_rent(p, mf, 0, f->rent_payer, d);
    if (st == GPI_OK && f->rent_earner) st = sim_write_rent(p, mf, 1, f->rent_earner, d);
    if (st == GPI_OK) st = sim_write_contracts(p, mf, f->contracts, f->positions, s, d);
    if (st == GPI_OK && f->truth) st = sim_write_truth(p, mf, cv, f->truth, d);
    if (st == GPI_OK && f->truth_curve) st = sim_write_truth_curve(p, mf, cv, f->truth_curve, d);
    sim_curve_free(cv);
    free(mf);
    return st;
}
