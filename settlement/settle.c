/* settlement/settle.c -- daily and final settlement prices (SPEC §8).
 *
 * Pure functions over an array of gpi_index_day: no store, no I/O.
 *
 * A contract on grade G for delivery month M is listed on the first day of
 * the month before M and settles daily until the last day of M (or an
 * earlier --through day).  A day's *value* is its index value (trades,
 * offers or carried level); suspended days have none.  With L the latest
 * value on or before day d:
 *
 *   before M:      price(d) = L
 *   d in M:        price(d) = (sum P + R*L) / (k + R)
 *                  P the k values of M on days <= d, R the days of M after d
 *                  (on M's last day, R = 0, so this is the mean of M's
 *                  values; if M has none yet there, it is L)
 *   final:         FSP = (sum of M's values) / k, when k >= min_published_days,
 *                  else an `insufficient` row and no FSP (settle_fsp, the
 *                  one FSP rule; hedge/'s replay uses it too).
 *
 * Every price is rounded once, half-up, to the contract's tick: the sum is
 * an exact __int128 of value_e4 units and the quotient is taken by
 * settle_round_value() (gpi_div_round), so a decimal midpoint such as
 * 2.3645 at a 0.001 tick goes to 2.365 exactly.  No row is written for a
 * day before any value exists.  Every day of [listing, end] must have been
 * built; the first one that was not is named in the error.
 *
 * Settlement days (settle_is_day): with "fsp_days": "business" only
 * Monday to Friday, less the file's holidays, count -- their values are
 * the FSP's and the balance of the month R counts them, L is the latest
 * value of one of them, and a price is set on each of them only (an
 * exchange settles on its business days).  Other days are not needed and
 * not read.  Calendar contracts count every day, as before.
 *
 * Every value settled on (L before the listing, and the values of the
 * range) must be at least SETTLE_MIN_TICKS ticks: a tick of 1000 made every
 * price and margin 0 without a word, a tick of 1 on a price of 2 moves it
 * in steps of 50% (issue 12).  The error names the contract's tick line,
 * the day and the value.  A value of 0.0000 is not checked (no tick is
 * fine-grained enough for it, and it settles as 0 at any tick).
 */
#include "settlement/settlement.h"

#include <stdlib.h>

const char *settle_kind_name(int kind)
{
    switch (kind) {
    case SETTLE_DAILY: return "daily";
    case SETTLE_FINAL: return "final";
    case SETTLE_INSUFFICIENT: return "insufficient";
    default: return "?";
    }
}

void settle_result_free(settle_result *r)
{
    if (!r) return;
    free(r->rows);
    r->rows = NULL;
    r->n = 0;
}

/* 10^6 USD per GPU-hour: far above any price, low enough that a price in
 * units of the finest tick (10^-12) stays inside 64 bits. */
#define SETTLE_MAX_VALUE_E4 10000000000LL

static int has_value(const gpi_index_day *x)
{
    return x->level != GPI_LEVEL_SUSPENDED && x->value_e4 >= 0;
}

/* GPI_EINPUT when value_e4 (of day) is under SETTLE_MIN_TICKS ticks of c. */
static gpi_status tick_fits(const settle_contract *c, int32_t day, int64_t value_e4, gpi_diag *d)
{
    __int128 scaled = value_e4;
    for (int i = 0; i < c->tick.scale; i++) scaled *= 10;
    /* value / tick = value_e4 * 10^scale / (mant * 10^4) */
    if (value_e4 == 0 || scaled >= (__int128)SETTLE_MIN_TICKS * c->tick.mant * 10000) return GPI_OK;
    char tick[32], val[32], dd[11], why[200];
    gpi_fixed_format(c->tick.mant, c->tick.scale, tick);
    gpi_fixed_format(value_e4, 4, val);
    gpi_date_format(day, dd);
    snprintf(why, sizeof why,
             "more than 1%% of the value %s of %s on %s, so prices would move in steps of over 1%%",
             val, c->grade, dd);
    if (!c->path) return gpi_diag_set(d, GPI_EINPUT, "%s: tick: %s (got \"%s\")", c->symbol, why, tick);
    return gpi_diag_set(d, GPI_EINPUT, "%s:%d: contract %zu (%s): tick: %s (got \"%s\")", c->path,
                        c->tick_line, c->index, c->symbol, why, tick);
}

int settle_fsp(const settle_contract *c, const gpi_index_day *days, size_t n,
               int64_t *price_units, int *n_values)
{
    const int32_t first = gpi_days_from_civil(c->year, c->month, 1), last = settle_last_day(c);
    __int128 sum_e4 = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (days[i].day >= first && days[i].day <= last && has_value(&days[i]) &&
            settle_is_day(c, days[i].day)) {
            sum_e4 += days[i].value_e4;
            k++;
        }
    if (n_values) *n_values = k;
    if (k == 0 || k < c->min_published_days) return 0;
    *price_units = settle_round_value(c, sum_e4, k);
    return 1;
}

gpi_status settle_run(const settle_contract *c, const gpi_index_day *days, size_t n,
                      int32_t through, settle_result *out, gpi_diag *d)
{
    out->rows = NULL;
    out->n = 0;
    out->complete = 0;
    out->insufficient = 0;
    out->values_in_month = 0;

    const int32_t listing = settle_listing_day(c);
    const int32_t month_first = gpi_days_from_civil(c->year, c->month, 1);
    const int32_t month_last = settle_last_day(c), final_day = settle_final_day(c);
    const int32_t end = through < month_last ? through : month_last;
    for (size_t i = 1; i < n; i++)
        if (days[i].day <= days[i - 1].day)
            return gpi_diag_set(d, GPI_EINPUT, "%s: index series of %s is not in day order",
                                c->symbol, c->grade);
    if (end < listing) return GPI_OK;

    settle_price *rows = calloc((size_t)(end - listing) + 2, sizeof *rows); /* fallback 0 */
    if (!rows) return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->symbol);

    /* L before the listing: the latest value of the earlier days given */
    size_t j = 0;
    int have_l = 0;
    int64_t l_e4 = 0;
    int32_t l_day = 0;
    for (; j < n && days[j].day < listing; j++)
        if (has_value(&days[j]) && days[j].value_e4 <= SETTLE_MAX_VALUE_E4 &&
            settle_is_day(c, days[j].day)) {
            have_l = 1;
            l_e4 = days[j].value_e4;
            l_day = days[j].day;
        }
    gpi_status fit = have_l ? tick_fits(c, l_day, l_e4, d) : GPI_OK;
    if (fit != GPI_OK) {
        free(rows);
        return fit;
    }

    /* R: the settlement days of the month after t */
    int rest = settle_month_days(c);
    __int128 sum_e4 = 0;
    int k = 0;
    size_t nr = 0;
    for (int32_t t = listing; t <= end; t++) {
        while (j < n && days[j].day < t) j++;
        if (!settle_is_day(c, t)) continue;
        if (t >= month_first) rest--;
        if (j >= n || days[j].day != t) {
            char day[11];
            gpi_date_format(t, day);
            free(rows);
            return gpi_diag_set(d, GPI_EINPUT,
                                "%s: grade %s has no index row for %s (the day was never"
                                " built; build it, or settle --through an earlier day)",
                                c->symbol, c->grade, day);
        }
        if (has_value(&days[j])) {
            if (days[j].value_e4 > SETTLE_MAX_VALUE_E4) {
                char day[11];
                gpi_date_format(t, day);
                free(rows);
                return gpi_diag_set(d, GPI_EINPUT, "%s: grade %s: value on %s out of range",
                                    c->symbol, c->grade, day);
            }
            if ((fit = tick_fits(c, t, days[j].value_e4, d)) != GPI_OK) {
                free(rows);
                return fit;
            }
            have_l = 1;
            l_e4 = days[j].value_e4;
            if (t >= month_first) {
                sum_e4 += days[j].value_e4;
                k++;
            }
        }
        if (!have_l) continue;
        int64_t price;
        if (t < month_first) {
            price = settle_round_value(c, l_e4, 1);
        } else {
            int r = rest;
            if (k + r == 0)
                price = settle_round_value(c, l_e4, 1);
            else
                price = settle_round_value(c, sum_e4 + (__int128)r * l_e4, k + r);
        }
        rows[nr].day = t;
        rows[nr].kind = SETTLE_DAILY;
        rows[nr].price_units = price;
        nr++;
    }
    out->values_in_month = k;
    if (end >= final_day) {
        out->complete = 1;
        rows[nr].day = final_day;
        if (settle_fsp(c, days, n, &rows[nr].price_units, NULL)) {
            rows[nr].kind = SETTLE_FINAL;
        } else {
            out->insufficient = 1;
            rows[nr].kind = SETTLE_INSUFFICIENT;
            rows[nr].price_units = 0;
        }
        nr++;
    }
    out->rows = rows;
    out->n = nr;
    return GPI_OK;
}
