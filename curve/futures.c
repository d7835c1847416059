/* curve/futures.c -- futures settlement prices as term-curve inputs
 * (curve/futures.h).
 *
 * A settlement price of a contract on day D is the market's price of its
 * grade over the delivery month: an input over [first day, last day] of
 * that month (curve.h's interval in curve months), restated as it is (it
 * is on the grade itself).  The method screens out a price in its own
 * delivery month and a price equal to the index value of the day -- the
 * settlement rule's price before delivery (METHODOLOGY.md, futures
 * settlement), which says nothing about the future -- so gpuidx's own
 * settlement output adds no input, and an exchange's prices do.
 */
#include "curve/futures.h"
#include "core/csv_reader.h"
#include "core/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct fctx {
    const char *path;
    const settle_contract *cs;
    size_t nc;
    curve_futures *out;
    int col[4];               /* date, symbol, settlement_price, kind */
    int header;
} fctx;

static gpi_status row(void *ud, const char *const *f, int n, long line, gpi_diag *d)
{
    fctx *c = ud;
    static const char *const names[4] = {"date", "symbol", "settlement_price", "kind"};
    if (!c->header) {
        for (int k = 0; k < 4; k++) c->col[k] = -1;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 4; k++)
                if (strcasecmp(f[i], names[k]) == 0) c->col[k] = i;
        for (int k = 0; k < 3; k++)
            if (c->col[k] < 0)
                return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: no column %s (the header is "
                                                   "date,symbol,settlement_price[,kind])",
                                    c->path, line, names[k]);
        c->header = 1;
        return GPI_OK;
    }
    const char *v[4];
    for (int k = 0; k < 4; k++) v[k] = c->col[k] >= 0 && c->col[k] < n ? f[c->col[k]] : "";
    if (c->col[3] >= 0 && strcmp(v[3], "insufficient") == 0) return GPI_OK;
    int32_t day;
    const char *why = gpi_date_parse(v[0], &day);
    if (why) return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: date: %s (got \"%.40s\")", c->path, line, why, v[0]);
    size_t k = 0;
    while (k < c->nc && strcmp(c->cs[k].symbol, v[1]) != 0) k++;
    if (k == c->nc)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: symbol: not in the contract file (got \"%.40s\")",
                            c->path, line, v[1]);
    gpi_dec p;
    if ((why = gpi_dec_parse(v[2], &p)) != NULL || p.mant <= 0 || p.scale > 6)
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s:%ld: settlement_price: %s (got \"%.40s\")", c->path, line,
                            why ? why : p.mant <= 0 ? "must be > 0" : "more than 6 decimals", v[2]);
    if (GPI_VEC_RESERVE(c->out->v, c->out->cap, c->out->n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    curve_future *x = &c->out->v[c->out->n++];
    memset(x, 0, sizeof *x);
    x->day = day;
    x->first_day = gpi_days_from_civil(c->cs[k].year, c->cs[k].month, 1);
    x->last_day = settle_last_day(&c->cs[k]);
    x->price_micro = gpi_dec_to_units(p, 6);
    snprintf(x->symbol, sizeof x->symbol, "%s", c->cs[k].symbol);
    snprintf(x->grade, sizeof x->grade, "%s", c->cs[k].grade);
    return GPI_OK;
}

gpi_status curve_futures_parse(const char *path, const char *text, size_t len,
                               const settle_contract *cs, size_t nc, curve_futures *out,
                               gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    fctx c = {path, cs, nc, out, {-1, -1, -1, -1}, 0};
    gpi_status rc = gpi_csv_read_text(path, text, len, row, &c, d);
    if (rc == GPI_OK && !c.header) rc = gpi_diag_set(d, GPI_EINPUT, "%s: empty file", path);
    if (rc != GPI_OK) curve_futures_free(out);
    return rc;
}

void curve_futures_free(curve_futures *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}

gpi_status curve_futures_day(const curve_futures *f, const char *grade, int32_t day,
                             curve_quote **q, size_t *n, gpi_diag *d)
{
    *q = NULL;
    *n = 0;
    size_t m = 0;
    for (size_t i = 0; i < f->n; i++) m += f->v[i].day == day && strcasecmp(f->v[i].grade, grade) == 0;
    if (!m) return GPI_OK;
    *q = calloc(m, sizeof **q);
    if (!*q) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < f->n; i++) {
        const curve_future *x = &f->v[i];
        if (x->day != day || strcasecmp(x->grade, grade) != 0) continue;
        curve_quote *c = &(*q)[(*n)++];
        c->kind = CURVE_FUTURES;
        c->provider = c->group = c->source = "";
        c->symbol = x->symbol;
        c->observed_at = ((int64_t)day + 1) * 86400 - 1;
        c->first_day = x->first_day;
        c->last_day = x->last_day;
        c->price_micro = x->price_micro;
        c->quantity_micro = -1;
        c->ref_q = -1;
    }
    return GPI_OK;
}
