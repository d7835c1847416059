/* hedge/period.c -- calendar periods, aggregation, alignment, changes.
 *
 * A period is named by its first day: the day itself, the Monday of its
 * ISO week, or the 1st of its month.  "Adjacent" is calendar adjacency
 * (hedge_period_next), so a period absent from either series breaks the
 * chain of changes: no change ever spans a gap.
 *
 * ISO weeks: the week belongs to the year of its Thursday, and is numbered
 * from the week holding that year's first Thursday, so 2024-12-30 (a
 * Monday) starts 2025-W01.
 */
#include "hedge/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const freq_names[] = {"day", "week", "month"};

int hedge_freq_parse(const char *s)
{
    if (!s) return -1;
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, freq_names[i]) == 0) return i;
    return -1;
}

const char *hedge_freq_name(int f)
{
    return f >= 0 && f < 3 ? freq_names[f] : "?";
}

int32_t hedge_period_start(hedge_freq f, int32_t day)
{
    int y, m, dd;
    switch (f) {
    case HEDGE_WEEK:
        return day - (gpi_iso_weekday(day) - 1);
    case HEDGE_MONTH:
        gpi_civil_from_days(day, &y, &m, &dd);
        return gpi_days_from_civil(y, m, 1);
    default:
        return day;
    }
}

int32_t hedge_period_next(hedge_freq f, int32_t start)
{
    int y, m, dd;
    switch (f) {
    case HEDGE_WEEK:
        return start + 7;
    case HEDGE_MONTH:
        gpi_civil_from_days(start, &y, &m, &dd);
        return start + gpi_month_days(y, m);
    default:
        return start + 1;
    }
}

void hedge_period_label(hedge_freq f, int32_t start, char out[16])
{
    int y, m, dd;
    if (f == HEDGE_WEEK) {
        int32_t thu = hedge_period_start(HEDGE_WEEK, start) + 3;
        gpi_civil_from_days(thu, &y, &m, &dd);
        int week = (int)((thu - gpi_days_from_civil(y, 1, 1)) / 7) + 1;
        snprintf(out, 16, "%04d-W%02d", y, week);
    } else if (f == HEDGE_MONTH) {
        gpi_civil_from_days(start, &y, &m, &dd);
        snprintf(out, 16, "%04d-%02d", y, m);
    } else {
        char s[11];
        gpi_date_format(start, s);
        snprintf(out, 16, "%s", s);
    }
}

void hedge_index_range(const hedge_rent *r, int32_t *from, int32_t *to)
{
    *from = *to = 0;
    if (!r || r->n == 0) return;
    int32_t first = hedge_period_start(HEDGE_MONTH, r->rows[0].day);
    int32_t last = hedge_period_start(HEDGE_MONTH, r->rows[r->n - 1].day);
    *from = hedge_period_start(HEDGE_MONTH, first - 1);
    /* + 6: an ISO week that starts in the last month may end in the next */
    *to = hedge_period_next(HEDGE_MONTH, last) - 1 + 6;
}

double hedge__mean_price(const hedge_rent *r, size_t i, size_t e, double *wsum)
{
    int64_t p0 = r->rows[i].price_micro;
    double dev = 0, w = 0;
    for (size_t k = i; k < e; k++) {
        double q = r->has_quantity ? r->rows[k].quantity : 1.0;
        dev += (double)(r->rows[k].price_micro - p0) * q;
        w += q;
    }
    *wsum = w;
    return ((double)p0 + dev / w) / 1e6;
}

gpi_status hedge_align(const hedge_rent *r, const gpi_index_day *idx, size_t nidx,
                       hedge_freq f, hedge_series *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->freq = f;
    if (!r || (nidx && !idx) || f < HEDGE_DAY || f > HEDGE_MONTH)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_align: bad arguments");
    if (r->n == 0) return GPI_OK;
    out->p = calloc(r->n, sizeof *out->p);
    if (!out->p) return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory");
    size_t i = 0, j = 0;
    while (i < r->n) {
        /* one rent period: rows i..e-1 */
        int32_t ps = hedge_period_start(f, r->rows[i].day);
        int32_t pe = hedge_period_next(f, ps);
        size_t e = i;
        while (e < r->n && r->rows[e].day < pe) e++;
        double wsum;
        double rent = hedge__mean_price(r, i, e, &wsum);
        out->n_rent_periods++;
        /* the period's index values */
        while (j < nidx && idx[j].day < ps) j++;
        __int128 isum = 0;
        size_t ni = 0;
        for (size_t k = j; k < nidx && idx[k].day < pe; k++)
            if (idx[k].level != GPI_LEVEL_SUSPENDED) {
                isum += idx[k].value_e4;
                ni++;
            }
        if (ni > 0 && wsum > 0) {
            hedge_period *p = &out->p[out->n++];
            p->start = ps;
            p->rent = rent;
            p->quantity = r->has_quantity ? wsum : 0.0;
            p->index = (double)isum / (double)ni / 1e4;
            p->n_rent = e - i;
            p->n_index = ni;
        }
        i = e;
    }
    return GPI_OK;
}

void hedge_series_free(hedge_series *s)
{
    if (!s) return;
    free(s->p);
    s->p = NULL;
    s->n = 0;
}

gpi_status hedge_changes_make(const hedge_series *s, int k, hedge_changes *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!s || k < 1) return gpi_diag_set(d, GPI_EUSAGE, "hedge_changes_make: bad arguments");
    if (s->n < 2) return GPI_OK;
    out->di = malloc(s->n * sizeof *out->di);
    out->dr = malloc(s->n * sizeof *out->dr);
    out->end = malloc(s->n * sizeof *out->end);
    if (!out->di || !out->dr || !out->end) {
        hedge_changes_free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory");
    }
    size_t lag = (size_t)k; /* k >= 1: checked above */
    size_t run = 0;         /* adjacent predecessors of period t in an unbroken chain */
    for (size_t t = 1; t < s->n; t++) {
        run = s->p[t].start == hedge_period_next(s->freq, s->p[t - 1].start) ? run + 1 : 0;
        if (run >= lag) {
            out->di[out->n] = s->p[t].index - s->p[t - lag].index;
            out->dr[out->n] = s->p[t].rent - s->p[t - lag].rent;
            out->end[out->n] = t;
            out->n++;
        }
    }
    return GPI_OK;
}

void hedge_changes_free(hedge_changes *c)
{
    if (!c) return;
    free(c->di);
    free(c->dr);
    free(c->end);
    memset(c, 0, sizeof *c);
}

void hedge_rent_summarize(const hedge_rent *r, hedge_freq f, hedge_rent_summary *out)
{
    memset(out, 0, sizeof *out);
    out->freq = f;
    if (!r || r->n == 0) return;
    int32_t prev_start = 0;
    for (size_t i = 0; i < r->n;) {
        int32_t ps = hedge_period_start(f, r->rows[i].day);
        int32_t pe = hedge_period_next(f, ps);
        size_t e = i;
        while (e < r->n && r->rows[e].day < pe) e++;
        if (out->periods == 0) out->first = ps;
        out->last = ps;
        if (out->periods > 0 && ps == hedge_period_next(f, prev_start)) out->changes++;
        out->periods++;
        prev_start = ps;
        i = e;
    }
    /* the price changes, row to row */
    for (size_t i = 1; i < r->n; i++)
        if (r->rows[i].price_micro != r->rows[i - 1].price_micro) {
            if (out->moves < 2) {
                out->move_day[out->moves] = r->rows[i].day;
                out->move_from[out->moves] = r->rows[i - 1].price_micro;
                out->move_to[out->moves] = r->rows[i].price_micro;
            }
            out->moves++;
        }
}
