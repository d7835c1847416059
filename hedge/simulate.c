/* hedge/simulate.c -- month-by-month replay of a futures hedge (SPEC §9).
 *
 * For each month M of the rent history:
 *   entry     = FSP of M-1 (futures bought or sold at the end of the month
 *               before delivery), or the --forward price for M;
 *   FSP       = the final settlement price of M (hedge_month_fsp);
 *   h         = the given ratio, or (auto) the OLS h on monthly changes of
 *               the months strictly before M -- never data from M onward;
 *   exposure  = the quantity of M-1 in the rent file, or the fixed
 *               exposure (GPU-hours a month);
 *   contracts = h · exposure / size rounded half away from zero;
 *   P&L       = ±contracts · size · (FSP - entry) in integer cents, exact
 *               because size is a multiple of 100 (size × tick 0.0001 is a
 *               whole number of cents): payers buy (+), earners sell (-).
 * The month's effective price per GPU-hour is the rent price, less (payer)
 * or plus (earner) the P&L spread over the month's quantity (or the
 * exposure when the file has none).  A month lacking an entry price, an
 * FSP, an exposure or (auto) enough history is skipped with its reason.
 *
 * The FSP is SPEC §8's: the mean of the month's values (suspended days
 * skipped) rounded half-up to the tick by settlement/'s
 * settle_round_value(), none below min_days values.  Unlike `gpuidx
 * settle`, a day never built is not an error here: the replay counts the
 * month's values that exist (and skips the month below min_days).
 */
#include "hedge/internal.h"
#include "settlement/settlement.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

int hedge_month_fsp(const store_index_day *idx, size_t nidx, int32_t month_start,
                    int64_t tick_e4, size_t min_days, int64_t *fsp_e4, size_t *n_values)
{
    int32_t end = hedge_period_next(HEDGE_MONTH, month_start);
    __int128 sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < nidx; i++)
        if (idx[i].day >= month_start && idx[i].day < end && idx[i].level != GPI_LEVEL_SUSPENDED) {
            sum += idx[i].value_e4;
            n++;
        }
    if (n_values) *n_values = n;
    if (n == 0 || n < min_days || tick_e4 <= 0) return 0;
    settle_contract c;
    memset(&c, 0, sizeof c);
    c.tick.mant = tick_e4; /* tick = tick_e4 x 0.0001: prices come out in e4 units */
    c.tick.scale = 4;
    c.min_published_days = (int)min_days;
    *fsp_e4 = settle_round_value(&c, sum, (__int128)n);
    return 1;
}

/* Monthly rent: quantity-weighted (or plain) mean price and quantity. */
typedef struct rent_month {
    int32_t start;
    double price, quantity;
} rent_month;

static size_t rent_months(const hedge_rent *r, rent_month *out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n;) {
        int32_t ms = hedge_period_start(HEDGE_MONTH, r->rows[i].day);
        int32_t me = hedge_period_next(HEDGE_MONTH, ms);
        size_t e = i;
        while (e < r->n && r->rows[e].day < me) e++;
        double w;
        out[n].start = ms;
        out[n].price = hedge__mean_price(r, i, e, &w);
        i = e;
        out[n].quantity = r->has_quantity ? w : 0.0;
        n++;
    }
    return n;
}

/* OLS h on the monthly changes of the aligned months before `before`. */
static gpi_status auto_ratio(const hedge_series *s, int32_t before, hedge_ols *o,
                             size_t *n_changes, gpi_diag *d)
{
    hedge_series view = *s;
    view.n = 0;
    while (view.n < s->n && s->p[view.n].start < before) view.n++;
    hedge_changes c;
    gpi_status st = hedge_changes_make(&view, 1, &c, d);
    if (st != GPI_OK) return st;
    *n_changes = c.n;
    st = hedge_ols_fit(c.di, c.dr, c.n, o, d);
    hedge_changes_free(&c);
    return st;
}

static void skip(hedge_sim_month *m, const char *why)
{
    m->skipped = 1;
    snprintf(m->reason, sizeof m->reason, "%s", why);
}

gpi_status hedge_simulate(const hedge_rent *r, const store_index_day *idx, size_t nidx,
                          const hedge_sim_opts *o, hedge_sim *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->mean_unhedged = out->mean_hedged = out->sd_unhedged = out->sd_hedged = NAN;
    out->sd_reduction = NAN;
    if (!r || !o || (nidx && !idx) || r->n == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_simulate: bad arguments");
    if (o->size <= 0 || o->size % 100 != 0)
        return gpi_diag_set(d, GPI_EUSAGE,
                            "size: must be a positive multiple of 100 GPU-hours, so that size x "
                            "tick (0.0001) is whole cents (got %lld)",
                            (long long)o->size);
    if (!o->ratio_auto && !isfinite(o->ratio))
        return gpi_diag_set(d, GPI_EUSAGE, "ratio: not a finite number");
    if (!(o->exposure >= 0) || !isfinite(o->exposure))
        return gpi_diag_set(d, GPI_EUSAGE, "exposure: must be a positive number");
    if (!r->has_quantity && o->exposure <= 0)
        return gpi_diag_set(d, GPI_EUSAGE,
                            "the rent file has no quantity column: give an exposure "
                            "(--exposure GPU-hours a month)");
    rent_month *rm = malloc(r->n * sizeof *rm);
    double *u = malloc(r->n * sizeof *u), *hd = malloc(r->n * sizeof *hd);
    out->m = calloc(r->n, sizeof *out->m);
    hedge_series ms = {HEDGE_MONTH, NULL, 0, 0};
    gpi_status st = GPI_OK;
    if (!rm || !u || !hd || !out->m) {
        st = gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (simulate)");
        goto done;
    }
    if (o->ratio_auto && (st = hedge_align(r, idx, nidx, HEDGE_MONTH, &ms, d)) != GPI_OK) goto done;
    size_t nm = rent_months(r, rm);
    for (size_t i = 0; i < nm; i++) {
        hedge_sim_month *m = &out->m[out->n++];
        m->month = rm[i].start;
        m->rent = rm[i].price;
        m->h = NAN;
        m->unhedged = m->hedged = NAN;
        int32_t prev = hedge_period_start(HEDGE_MONTH, rm[i].start - 1);
        size_t nv = 0;
        char why[96];
        if (o->forward) {
            size_t k = 0;
            while (k < o->forward->n && o->forward->month_start[k] != m->month) k++;
            if (k == o->forward->n) {
                skip(m, "no forward price for this month");
                continue;
            }
            m->entry_e4 = o->forward->price_e4[k];
        } else if (!hedge_month_fsp(idx, nidx, prev, 1, o->min_days, &m->entry_e4, &nv)) {
            snprintf(why, sizeof why, "no entry price: previous month has %zu index values (need %zu)",
                     nv, o->min_days);
            skip(m, why);
            continue;
        }
        if (!hedge_month_fsp(idx, nidx, m->month, 1, o->min_days, &m->fsp_e4, &nv)) {
            snprintf(why, sizeof why, "no final settlement price: %zu index values (need %zu)", nv,
                     o->min_days);
            skip(m, why);
            continue;
        }
        if (o->exposure > 0)
            m->exposure = o->exposure;
        else if (i > 0 && rm[i - 1].start == prev)
            m->exposure = rm[i - 1].quantity;
        else {
            skip(m, "no exposure: no rent quantity for the previous month");
            continue;
        }
        if (o->ratio_auto) {
            hedge_ols fit;
            size_t nc = 0;
            if ((st = auto_ratio(&ms, m->month, &fit, &nc, d)) != GPI_OK) goto done;
            if (!fit.ok) {
                snprintf(why, sizeof why,
                         "auto ratio: %zu monthly changes before this month (need 3, index varying)",
                         nc);
                skip(m, why);
                continue;
            }
            m->h = fit.b;
        } else {
            m->h = o->ratio;
        }
        double want = m->h * m->exposure / (double)o->size;
        if (!(fabs(want) < 1e12)) {
            skip(m, "contracts out of range");
            continue;
        }
        /* half away from zero on the 12-significant-digit value, so that a
         * ratio like 0.93125 x 720000 / 1000 = 670.5 gives 671, not 670 */
        m->contracts = gpi_double_to_units(want, 0);
        __int128 pnl = (__int128)m->contracts * o->size * (m->fsp_e4 - m->entry_e4) / 100;
        if (o->side == HEDGE_EARNER) pnl = -pnl;
        /* a month's P&L, or the running total, beyond int64 cents is an
         * error (docs/hedge.md), never a skipped month */
        if (pnl > INT64_MAX || pnl < -INT64_MAX ||
            (pnl > 0 && out->pnl_cents > INT64_MAX - (int64_t)pnl) ||
            (pnl < 0 && out->pnl_cents < -INT64_MAX - (int64_t)pnl)) {
            st = gpi_diag_set(d, GPI_EMATH,
                              "futures P&L out of range (over 92233720368547758.07 USD)");
            goto done;
        }
        m->pnl_cents = (int64_t)pnl;
        m->quantity = r->has_quantity ? rm[i].quantity : m->exposure;
        double per_hour = (double)m->pnl_cents / 100.0 / m->quantity;
        m->unhedged = m->rent;
        m->hedged = o->side == HEDGE_PAYER ? m->rent - per_hour : m->rent + per_hour;
        u[out->n_done] = m->unhedged;
        hd[out->n_done] = m->hedged;
        out->n_done++;
        out->pnl_cents += m->pnl_cents;
    }
    if (out->n_done > 0) {
        out->mean_unhedged = gsl_stats_mean(u, 1, out->n_done);
        out->mean_hedged = gsl_stats_mean(hd, 1, out->n_done);
    }
    if (out->n_done >= 2) {
        out->sd_unhedged = gsl_stats_sd(u, 1, out->n_done);
        out->sd_hedged = gsl_stats_sd(hd, 1, out->n_done);
        if (out->sd_unhedged > 0) out->sd_reduction = 1.0 - out->sd_hedged / out->sd_unhedged;
        else
            hedge__warn(out->warnings, &out->n_warnings,
                        "the unhedged price never varied: no standard-deviation reduction");
    } else {
        hedge__warn(out->warnings, &out->n_warnings,
                    "%zu month(s) replayed: the standard deviations need at least 2", out->n_done);
    }
    if (out->n_done < 12 && out->n_done >= 2)
        hedge__warn(out->warnings, &out->n_warnings,
                    "only %zu months replayed (fewer than 12): the comparison is unreliable",
                    out->n_done);
done:
    free(rm);
    free(u);
    free(hd);
    hedge_series_free(&ms);
    if (st != GPI_OK) hedge_sim_free(out);
    return st;
}

void hedge_sim_free(hedge_sim *s)
{
    if (!s) return;
    free(s->m);
    s->m = NULL;
    s->n = s->n_done = 0;
}
