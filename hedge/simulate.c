/* hedge/simulate.c -- month-by-month replay of a futures hedge (SPEC §9).
 *
 * Every month M of the rent history belongs to a block entered at the end
 * of month P: under `roll` the block is M alone and P = M-1; under
 * `strip` N months S..S+N-1 are entered together at the end of P = S-1
 * (strips follow one another from the start month).  For M:
 *   entry     = FSP of P (the only price known at entry), or the --forward
 *               price for M (the CLI's strip without --forward: the term
 *               curve of P's last day, priced for M and this entry, else
 *               the FSP of P when the curve has no forward for M);
 *   FSP       = the final settlement price of M (settle_fsp);
 *   h         = the given ratio, or (auto, sim_ratio.c) the OLS h on the
 *               monthly changes of the months before the block -- never
 *               data from the block onward;
 *   exposure  = the quantity of P in the rent file, or the fixed exposure
 *               (GPU-hours a month), the same for every month of a block;
 *   contracts = h · exposure / size rounded half away from zero;
 *   P&L       = ±contracts · size · (FSP - entry) in integer cents, exact
 *               because size is a multiple of 100 (size × tick 0.0001 is a
 *               whole number of cents): payers buy (+), earners sell (-).
 * The month's effective price per GPU-hour is the rent price, less (payer)
 * or plus (earner) the P&L spread over the month's quantity (or the
 * exposure when the file has none).
 *
 * The headline is the budget error.  The price locked at entry (the
 * budget) is entry + basis at entry, basis = rent of P - FSP of P: with a
 * one-for-one hedge the effective price is exactly entry + the basis of M,
 * so what is left is the change of basis.  Unhedged error = rent - budget,
 * hedged = effective - budget.  Under roll with entry at the previous FSP
 * the budget is the previous month's rent, the unhedged error is the
 * rent's monthly change and the hedged one is Δrent - h·ΔFSP: the replay's
 * variance reduction is `analyze --freq month`'s effectiveness, out of
 * sample.  The sd of the effective price itself is kept as a secondary
 * figure: it includes the trend across months, which a month-ahead hedge
 * cannot remove.
 *
 * A month lacking an entry price, an FSP, an exposure or a budget (no rent
 * or FSP in P) is skipped with its reason.
 *
 * The FSP is SPEC §8's, computed by settlement/'s settle_fsp (the one FSP
 * rule): the mean of the month's values (suspended days skipped) rounded
 * half-up to 0.0001, none below min_days values.  Unlike `gpuidx
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

/* The values an FSP needs: the contract file's min_published_days, or
 * --min-days. */
static size_t min_days_of(const hedge_sim_opts *o)
{
    return o->terms ? (size_t)o->terms->min_published_days : o->min_days;
}

/* 10^(4 - scale): a price in units of the tick's decimals to units of
 * 0.0001 (a tick has at most 4 decimals here: checked by hedge_simulate). */
static int64_t to_e4(const settle_contract *c)
{
    int64_t f = 1;
    for (int k = c->tick.scale; k < 4; k++) f *= 10;
    return f;
}

/* FSP of the month starting at month_start, in units of 0.0001:
 * settlement/'s settle_fsp, the one FSP rule, on the contract file's terms
 * (its contract for the month when it lists one: its holidays) or on a
 * tick of 0.0001 over every calendar day with o->min_days values.
 * Returns 0 (and leaves *fsp_e4 alone) when there is none; the month's
 * values in *n_values. */
static int month_fsp(const gpi_index_day *idx, size_t nidx, int32_t month_start,
                     const hedge_sim_opts *o, int64_t *fsp_e4, size_t *n_values)
{
    settle_contract c;
    memset(&c, 0, sizeof c);
    int y, m, dd;
    gpi_civil_from_days(month_start, &y, &m, &dd);
    if (o->terms) {
        c = *o->terms;
        c.n_holidays = 0;
        for (size_t i = 0; i < o->n_listed; i++)
            if (o->listed[i].year == y && o->listed[i].month == m) c = o->listed[i];
    } else {
        c.tick.mant = 1; /* tick 0.0001: prices come out in e4 units */
        c.tick.scale = 4;
        c.min_published_days = o->min_days > 31 ? 32 : (int)o->min_days;
    }
    c.year = y;
    c.month = m;
    int k = 0;
    int64_t units = 0;
    int ok = settle_fsp(&c, idx, nidx, &units, &k);
    if (ok) *fsp_e4 = units * to_e4(&c);
    if (n_values) *n_values = (size_t)k;
    return ok;
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

static const rent_month *find_month(const rent_month *rm, size_t n, int32_t start)
{
    for (size_t i = 0; i < n; i++)
        if (rm[i].start == start) return &rm[i];
    return NULL;
}

static int month_ordinal(int32_t day)
{
    int y, m, dd;
    gpi_civil_from_days(day, &y, &m, &dd);
    return y * 12 + m - 1;
}

static int32_t month_from_ordinal(int k)
{
    return gpi_days_from_civil(k / 12, k % 12 + 1, 1);
}

/* GPU-hours a contract: the contract file's, or --size. */
static int64_t size_of(const hedge_sim_opts *o)
{
    return o->terms ? o->terms->size_gpu_hours : o->size;
}

/* OLS h on the monthly changes of the aligned months before `before`. */
static gpi_status auto_fit(const hedge_series *s, int32_t before, hedge_ols *o,
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

/* What is fixed when a block is entered at the end of month `entered`. */
typedef struct entry {
    int ok, no_entry_price;   /* no_entry_price: failed on the entry price */
    char why[96];
    int32_t entered, first;   /* month of entry; the block's first month */
    int have_fsp;
    int64_t fsp_e4;           /* FSP of the month of entry */
    size_t fsp_values;
    double exposure, basis, h, h_fit;
    hedge_ratio_rule rule;
    size_t h_changes;
    int64_t contracts;
    double want;              /* contracts before rounding */
} entry;

static void entry_fail(entry *e, const char *fmt, const char *a, size_t x, size_t y)
{
    e->ok = 0;
    snprintf(e->why, sizeof e->why, fmt, a, x, y);
}

/* Fills e for a block starting at `first`; e->ok = 0 with the reason of
 * the first check that fails (in the order of the month checks). */
static gpi_status enter_block(const rent_month *rm, size_t nm,
                              const gpi_index_day *idx, size_t nidx, const hedge_series *ms,
                              const hedge_sim_opts *o, int32_t first, entry *e, gpi_diag *d)
{
    memset(e, 0, sizeof *e);
    e->ok = 1;
    e->first = first;
    e->entered = hedge_period_start(HEDGE_MONTH, first - 1);
    e->h_fit = NAN;
    char lab[16];
    hedge_period_label(HEDGE_MONTH, e->entered, lab);
    const char *which = o->strategy == HEDGE_ROLL ? "previous month" : lab;
    e->have_fsp = month_fsp(idx, nidx, e->entered, o, &e->fsp_e4, &e->fsp_values);
    const rent_month *pm = find_month(rm, nm, e->entered);
    if (o->exposure > 0)
        e->exposure = o->exposure;
    else if (pm)
        e->exposure = pm->quantity;
    if (o->ratio_auto) {
        hedge_ols fit;
        gpi_status st = auto_fit(ms, first, &fit, &e->h_changes, d);
        if (st != GPI_OK) return st;
        e->h_fit = fit.ok ? fit.b : NAN;
        e->rule = hedge_auto_ratio(&fit, e->h_changes, o->min_changes, &e->h);
    } else {
        e->rule = HEDGE_RATIO_GIVEN;
        e->h = o->ratio;
    }
    /* the checks a month makes, in order: entry price (without a forward
     * file), exposure, budget; the month's own FSP and forward price are
     * checked by the caller */
    if (!o->forward && !e->have_fsp) {
        entry_fail(e, o->strategy == HEDGE_ROLL
                          ? "no entry price: %s has %zu index values (need %zu)"
                          : "no entry price: the month of entry %s has %zu index values (need %zu)",
                   which, e->fsp_values, min_days_of(o));
        e->no_entry_price = 1;
        return GPI_OK;
    }
    if (!(e->exposure > 0)) {
        entry_fail(e, o->strategy == HEDGE_ROLL ? "no exposure: no rent quantity for the %s"
                                                : "no exposure: no rent quantity for %s",
                   which, 0, 0);
        return GPI_OK;
    }
    if (!pm) {
        entry_fail(e, "no budget price: no rent in the month of entry %s", lab, 0, 0);
        return GPI_OK;
    }
    if (!e->have_fsp) {
        entry_fail(e, "no budget price: the month of entry %s has %zu index values (need %zu)", lab,
                   e->fsp_values, min_days_of(o));
        return GPI_OK;
    }
    e->basis = pm->price - (double)e->fsp_e4 / 1e4;
    double want = e->h * e->exposure / (double)size_of(o);
    e->want = want;
    if (!(fabs(want) < 1e12)) {
        entry_fail(e, "contracts out of range", "", 0, 0);
        return GPI_OK;
    }
    /* half away from zero on the 12-significant-digit value, so that a
     * ratio like 0.93125 x 720000 / 1000 = 670.5 gives 671, not 670 */
    e->contracts = gpi_double_to_units(want, 0);
    return GPI_OK;
}

static void skip(hedge_sim_month *m, const char *why)
{
    m->skipped = 1;
    snprintf(m->reason, sizeof m->reason, "%s", why);
}

/* First month of the first strip: the given start, or the first rent
 * month whose block can be entered. */
static gpi_status strip_start(const rent_month *rm, size_t nm,
                              const gpi_index_day *idx, size_t nidx, const hedge_series *ms,
                              const hedge_sim_opts *o, int32_t *start, gpi_diag *d)
{
    *start = o->start ? hedge_period_start(HEDGE_MONTH, o->start) : rm[0].start;
    if (o->start) return GPI_OK;
    for (size_t i = 0; i < nm; i++) {
        entry e;
        gpi_status st = enter_block(rm, nm, idx, nidx, ms, o, rm[i].start, &e, d);
        if (st != GPI_OK) return st;
        if (e.ok) {
            *start = rm[i].start;
            break;
        }
    }
    return GPI_OK;
}

static void err_stats(const double *x, size_t n, hedge_err_stats *e)
{
    e->n = n;
    e->mean = e->sd = e->rms = NAN;
    if (n == 0) return;
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += x[i] * x[i];
    e->mean = gsl_stats_mean(x, 1, n);
    e->rms = sqrt(ss / (double)n);
    if (n >= 2) e->sd = gsl_stats_sd(x, 1, n);
}

static void add_block(hedge_block *b, const hedge_sim_month *m, int64_t size)
{
    if (b->months == 0) {
        b->entered = m->entered;
        b->first = m->month;
    }
    b->last = m->month;
    b->months++;
    b->quantity += m->quantity;
    b->budget_usd += m->quantity * m->budget;
    b->unhedged_usd += m->quantity * m->unhedged;
    b->hedged_usd += m->quantity * m->hedged;
    b->hedged_quantity += (double)m->contracts * (double)size;
}

/* Totals, blocks and warnings of the replayed months. */
static gpi_status summarize(hedge_sim *out, const hedge_sim_opts *o, gpi_diag *d)
{
    size_t n = out->n_done;
    double *u = malloc((n ? n : 1) * sizeof *u), *hd = malloc((n ? n : 1) * sizeof *hd);
    double *eu = malloc((n ? n : 1) * sizeof *eu), *eh = malloc((n ? n : 1) * sizeof *eh);
    double *ex = malloc((n ? n : 1) * sizeof *ex), *fr = malloc((n ? n : 1) * sizeof *fr);
    out->blocks = calloc(n ? n : 1, sizeof *out->blocks);
    if (!u || !hd || !eu || !eh || !ex || !fr || !out->blocks) {
        free(u);
        free(hd);
        free(eu);
        free(eh);
        free(ex);
        free(fr);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (simulate)");
    }
    size_t k = 0;
    double fit_lo = INFINITY, fit_hi = -INFINITY, neg_hi = -INFINITY;
    for (size_t i = 0; i < out->n; i++) {
        const hedge_sim_month *m = &out->m[i];
        if (m->skipped) continue;
        u[k] = m->unhedged;
        hd[k] = m->hedged;
        eu[k] = m->err_unhedged;
        eh[k] = m->err_hedged;
        ex[k] = m->err_unhedged - m->h * (double)(m->fsp_e4 - m->entry_e4) / 1e4;
        /* the month's fractional contracts: h x exposure / size, unrounded */
        double pnl = m->want * (double)size_of(o) * (double)(m->fsp_e4 - m->entry_e4) / 1e4;
        if (o->side == HEDGE_EARNER) pnl = -pnl;
        double hf = o->side == HEDGE_PAYER ? m->rent - pnl / m->quantity : m->rent + pnl / m->quantity;
        fr[k] = hf - m->budget;
        out->residual_usd += m->residual_usd;
        if (fabs(m->residual_usd) > fabs(out->residual_max_usd)) out->residual_max_usd = m->residual_usd;
        k++;
        out->n_rule[m->rule]++;
        if (m->rule == HEDGE_RATIO_NEGATIVE) {
            fit_lo = fmin(fit_lo, m->h_fit);
            neg_hi = fmax(neg_hi, m->h_fit);
        }
        if (m->rule == HEDGE_RATIO_CAPPED) fit_hi = fmax(fit_hi, m->h_fit);
        if (out->n_blocks == 0 || out->blocks[out->n_blocks - 1].entered != m->entered)
            out->n_blocks++;
        add_block(&out->blocks[out->n_blocks - 1], m, size_of(o));
        add_block(&out->total, m, size_of(o));
    }
    if (n > 0) {
        out->mean_unhedged = gsl_stats_mean(u, 1, n);
        out->mean_hedged = gsl_stats_mean(hd, 1, n);
    }
    err_stats(eu, n, &out->err_u);
    err_stats(eh, n, &out->err_h);
    if (n >= 2) {
        out->sd_unhedged = gsl_stats_sd(u, 1, n);
        out->sd_hedged = gsl_stats_sd(hd, 1, n);
        if (out->sd_unhedged > 0) out->sd_reduction = 1.0 - out->sd_hedged / out->sd_unhedged;
        if (out->err_u.sd > 0) {
            double vu = out->err_u.sd * out->err_u.sd;
            out->var_removed = 1.0 - out->err_h.sd * out->err_h.sd / vu;
            out->var_removed_exact = 1.0 - gsl_stats_variance(ex, 1, n) / vu;
            out->var_removed_frac = 1.0 - gsl_stats_variance(fr, 1, n) / vu;
        } else
            hedge__warn(out->warnings, &out->n_warnings,
                        "the rent never moved away from the price locked at entry: no variance "
                        "to remove");
    } else {
        hedge__warn(out->warnings, &out->n_warnings,
                    "%zu month(s) replayed: the standard deviations need at least 2", n);
    }
    if (out->err_u.rms > 0) out->rms_reduction = 1.0 - out->err_h.rms / out->err_u.rms;
    if (n < 12 && n >= 2)
        hedge__warn(out->warnings, &out->n_warnings,
                    "only %zu months replayed (fewer than 12): the comparison is unreliable", n);
    size_t minc = o->min_changes ? o->min_changes : HEDGE_MIN_CHANGES;
    if (o->ratio_auto && n > 0 &&
        out->n_rule[HEDGE_RATIO_FALLBACK] + out->n_rule[HEDGE_RATIO_NEGATIVE] == n)
        hedge__warn(out->warnings, &out->n_warnings,
                    "auto ratio hedged no month: before each, fewer than %zu monthly changes to "
                    "fit h on, or a fit <= 0 (the grade moved against the rent); give --ratio X to "
                    "replay a fixed ratio",
                    minc);
    if (out->n_rule[HEDGE_RATIO_FALLBACK])
        hedge__warn(out->warnings, &out->n_warnings,
                    "auto ratio: %zu month(s) NOT hedged: fewer than %zu monthly changes before "
                    "them to fit h on",
                    out->n_rule[HEDGE_RATIO_FALLBACK], minc);
    if (out->n_rule[HEDGE_RATIO_NEGATIVE])
        hedge__warn(out->warnings, &out->n_warnings,
                    "auto ratio: %zu month(s) NOT hedged: the fitted h was negative (%.3f to %.3f), "
                    "the grade moved against the rent; a %s would have to %s to follow it "
                    "(see hedge compare, or give --ratio)",
                    out->n_rule[HEDGE_RATIO_NEGATIVE], fit_lo, neg_hi,
                    o->side == HEDGE_PAYER ? "payer" : "earner",
                    o->side == HEDGE_PAYER ? "sell" : "buy");
    if (out->n_rule[HEDGE_RATIO_CAPPED])
        hedge__warn(out->warnings, &out->n_warnings,
                    "auto ratio: capped at %.1f in %zu month(s) (fitted up to %.3f): a larger "
                    "ratio is a bet on the grade, not a hedge",
                    HEDGE_RATIO_CAP, out->n_rule[HEDGE_RATIO_CAPPED], fit_hi);
    free(u);
    free(hd);
    free(eu);
    free(eh);
    free(ex);
    free(fr);
    return GPI_OK;
}

/* A fixed --ratio against the fit of every monthly change (analyze --freq
 * month's h): said when its sign differs (it hedges against the fit), or
 * when there is no fit, or too few changes, behind it. */
static gpi_status fixed_ratio_fit(const hedge_rent *r, const gpi_index_day *idx, size_t nidx,
                                  const hedge_sim_opts *o, hedge_sim *out, gpi_diag *d)
{
    hedge_series ms;
    gpi_status st = hedge_align(r, idx, nidx, HEDGE_MONTH, &ms, d);
    if (st != GPI_OK) return st;
    hedge_ols fit;
    size_t nc = 0;
    st = auto_fit(&ms, INT32_MAX, &fit, &nc, d);
    hedge_series_free(&ms);
    if (st != GPI_OK) return st;
    size_t minc = o->min_changes ? o->min_changes : HEDGE_MIN_CHANGES;
    out->fit_changes = nc;
    out->fit_ok = fit.ok && isfinite(fit.b);
    out->fit_h = out->fit_ok ? fit.b : NAN;
    out->contradicts = out->fit_ok && o->ratio != 0 && (o->ratio > 0) != (fit.b > 0);
    if (out->contradicts)
        hedge__warn(out->warnings, &out->n_warnings,
                    "--ratio %.4g contradicts the fit: h fitted on all %zu monthly changes is "
                    "%.3f (the grade moved %s the rent), so this replay hedges against it",
                    o->ratio, nc, fit.b, fit.b > 0 ? "with" : "against");
    else if (!out->fit_ok)
        hedge__warn(out->warnings, &out->n_warnings,
                    "--ratio %.4g has no fit behind it: %zu monthly changes%s", o->ratio, nc,
                    nc >= 3 ? " and an index that never moved" : "");
    else if (nc < minc)
        hedge__warn(out->warnings, &out->n_warnings,
                    "--ratio %.4g: h fitted on all %zu monthly changes is %.3f, too few changes "
                    "(need %zu) to support a ratio",
                    o->ratio, nc, fit.b, minc);
    return GPI_OK;
}

gpi_status hedge_simulate(const hedge_rent *r, const gpi_index_day *idx, size_t nidx,
                          const hedge_sim_opts *o, hedge_sim *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->mean_unhedged = out->mean_hedged = out->sd_unhedged = out->sd_hedged = NAN;
    out->sd_reduction = out->var_removed = out->var_removed_exact = out->rms_reduction = NAN;
    out->var_removed_frac = out->fit_h = NAN;
    if (!r || !o || (nidx && !idx) || r->n == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_simulate: bad arguments");
    if (o->terms) {
        const settle_contract *t = o->terms;
        if (t->tick.scale > 4 || t->tick.mant <= 0 || t->size_gpu_hours <= 0)
            return gpi_diag_set(d, GPI_EUSAGE,
                                "%s: tick: the replay settles in units of 0.0001, so a tick "
                                "needs at most 4 decimals",
                                t->symbol);
        int64_t tick_e4 = t->tick.mant * to_e4(t);
        if ((__int128)t->size_gpu_hours * tick_e4 % 100 != 0)
            return gpi_diag_set(d, GPI_EUSAGE, "%s: size x tick: not a whole number of cents",
                                t->symbol);
        for (size_t i = 0; o->forward && i < o->forward->n; i++)
            if (o->forward->price_e4[i] % tick_e4 != 0) {
                char p[32], lab[16];
                hedge_period_label(HEDGE_MONTH, o->forward->month_start[i], lab);
                return gpi_diag_set(d, GPI_EUSAGE,
                                    "forward price of %s (%s) is not a whole number of ticks of "
                                    "%s",
                                    lab, gpi_fixed_format(o->forward->price_e4[i], 4, p),
                                    t->symbol);
            }
    } else if (o->size <= 0 || o->size % 100 != 0)
        return gpi_diag_set(d, GPI_EUSAGE,
                            "size: must be a positive multiple of 100 GPU-hours, so that size x "
                            "tick (0.0001) is whole cents (got %lld)",
                            (long long)o->size);
    if (!o->ratio_auto && !isfinite(o->ratio))
        return gpi_diag_set(d, GPI_EUSAGE, "ratio: not a finite number");
    if (!(o->exposure >= 0) || !isfinite(o->exposure))
        return gpi_diag_set(d, GPI_EUSAGE, "exposure: must be a positive number");
    if (o->strategy != HEDGE_ROLL && o->strategy != HEDGE_STRIP)
        return gpi_diag_set(d, GPI_EUSAGE, "strategy: expected roll or strip");
    if (o->strip_months < 0 || o->strip_months > 120)
        return gpi_diag_set(d, GPI_EUSAGE, "months: a strip locks 1 to 120 months (got %d)",
                            o->strip_months);
    if (!r->has_quantity && o->exposure <= 0)
        return gpi_diag_set(d, GPI_EUSAGE,
                            "the rent file has no quantity column: give an exposure "
                            "(--exposure GPU-hours a month)");
    int nstrip = o->strategy == HEDGE_STRIP ? (o->strip_months ? o->strip_months : 12) : 1;
    rent_month *rm = malloc(r->n * sizeof *rm);
    out->m = calloc(r->n, sizeof *out->m);
    hedge_series ms = {HEDGE_MONTH, NULL, 0, 0};
    gpi_status st = GPI_OK;
    if (!rm || !out->m) {
        st = gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (simulate)");
        goto done;
    }
    if (o->ratio_auto && (st = hedge_align(r, idx, nidx, HEDGE_MONTH, &ms, d)) != GPI_OK) goto done;
    size_t nm = rent_months(r, rm);
    int32_t first = rm[0].start;
    if (o->strategy == HEDGE_STRIP &&
        (st = strip_start(rm, nm, idx, nidx, &ms, o, &first, d)) != GPI_OK)
        goto done;
    int k0 = month_ordinal(first);
    entry e;
    int have_entry = 0;
    for (size_t i = 0; i < nm; i++) {
        hedge_sim_month *m = &out->m[out->n++];
        m->month = rm[i].start;
        m->rent = rm[i].price;
        m->h = m->h_fit = NAN;
        m->unhedged = m->hedged = m->budget = m->err_unhedged = m->err_hedged = NAN;
        char why[96], lab[16];
        int k = month_ordinal(m->month);
        if (k < k0) {
            hedge_period_label(HEDGE_MONTH, first, lab);
            snprintf(why, sizeof why, "before the first strip (%s)", lab);
            skip(m, why);
            continue;
        }
        int32_t bfirst = month_from_ordinal(k0 + (k - k0) / nstrip * nstrip);
        if (!have_entry || e.first != bfirst) {
            if ((st = enter_block(rm, nm, idx, nidx, &ms, o, bfirst, &e, d)) != GPI_OK) goto done;
            have_entry = 1;
        }
        m->entered = e.entered;
        size_t nv = 0;
        if (o->forward) {
            /* the month's price, of this entry when prices say which */
            const hedge_forward *fw = o->forward;
            size_t j = 0;
            while (j < fw->n && (fw->month_start[j] != m->month ||
                                 (fw->entered && fw->entered[j] != m->entered)))
                j++;
            if (j < fw->n) {
                m->entry_e4 = fw->price_e4[j];
            } else if (fw->entered && e.have_fsp) {
                /* the term curve of the entry day has no forward for the
                 * month: the FSP of the month of entry, as without one */
                m->entry_e4 = e.fsp_e4;
            } else {
                skip(m, "no forward price for this month");
                continue;
            }
        } else if (e.have_fsp) {
            m->entry_e4 = e.fsp_e4;
        }
        if (!e.ok && e.no_entry_price) {
            skip(m, e.why);
            continue;
        }
        if (!month_fsp(idx, nidx, m->month, o, &m->fsp_e4, &nv)) {
            snprintf(why, sizeof why, "no final settlement price: %zu index values (need %zu)", nv,
                     min_days_of(o));
            skip(m, why);
            continue;
        }
        if (!e.ok) {
            skip(m, e.why);
            continue;
        }
        m->exposure = e.exposure;
        m->h = e.h;
        m->rule = e.rule;
        m->h_fit = e.h_fit;
        m->h_changes = e.h_changes;
        m->contracts = e.contracts;
        m->want = e.want;
        /* exact: size x tick is whole cents and both prices whole ticks */
        __int128 pnl = (__int128)m->contracts * size_of(o) * (m->fsp_e4 - m->entry_e4) / 100;
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
        m->budget = (double)m->entry_e4 / 1e4 + e.basis;
        m->err_unhedged = m->unhedged - m->budget;
        m->err_hedged = m->hedged - m->budget;
        m->residual_usd = m->err_hedged * m->quantity;
        out->n_done++;
        out->pnl_cents += m->pnl_cents;
    }
    if ((st = summarize(out, o, d)) != GPI_OK) goto done;
    if (!o->ratio_auto) st = fixed_ratio_fit(r, idx, nidx, o, out, d);
done:
    free(rm);
    hedge_series_free(&ms);
    if (st != GPI_OK) hedge_sim_free(out);
    return st;
}

void hedge_sim_free(hedge_sim *s)
{
    if (!s) return;
    free(s->m);
    free(s->blocks);
    s->m = NULL;
    s->blocks = NULL;
    s->n = s->n_done = s->n_blocks = 0;
}
