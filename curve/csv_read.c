/* curve/csv_read.c -- one grade's curve read back from curve.csv text
 * (the format curve/format.c writes; contract in curve/format.h).
 *
 * For the readers of a published curve: the site draws the published
 * curves and a strip locks its months at them, without fitting again.
 * Every number is the published text parsed exactly (4 decimals).
 */
#include "curve/format.h"
#include "core/csv_reader.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct reader {
    const char *name, *grade;
    curve_tenor *t;
    int *found, header;
} reader;

static gpi_status money(const reader *r, long line, const char *col, const char *s,
                        int64_t *out, gpi_diag *d)
{
    *out = -1;
    if (!s[0]) return GPI_OK;
    gpi_dec v;
    const char *why = gpi_dec_parse(s, &v);
    if (why || v.mant < 0)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %s: %s (got \"%s\")", r->name, line, col,
                            why ? why : "negative", s);
    *out = gpi_dec_to_units(v, 4);
    return GPI_OK;
}

static gpi_status on_row(void *ud, const char *const *fl, int n, long line, gpi_diag *d)
{
    reader *r = ud;
    if (!r->header) {
        r->header = 1;
        if (n != 7 || strcmp(fl[0], "date") != 0 || strcmp(fl[2], "tenor") != 0)
            return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: not curve.csv's header", r->name, line);
        return GPI_OK;
    }
    if (n != 7)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: %d fields, curve.csv has 7", r->name, line,
                            n);
    if (strcasecmp(fl[1], r->grade) != 0) return GPI_OK; /* ids are case-insensitive */
    char *end;
    long k = strtol(fl[2], &end, 10);
    if (*end || k < 1 || k > CURVE_TENORS)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: tenor: not 1..%d (got \"%s\")", r->name,
                            line, CURVE_TENORS, fl[2]);
    curve_tenor *t = &r->t[k - 1];
    gpi_status rc = money(r, line, "term_rate", fl[3], &t->term_e4, d);
    if (rc == GPI_OK) rc = money(r, line, "forward", fl[4], &t->fwd_e4, d);
    if (rc != GPI_OK) return rc;
    t->status = -1;
    for (int s = CURVE_FITTED; s <= CURVE_WITHHELD; s++)
        if (strcmp(fl[5], curve_status_name(s)) == 0) t->status = s;
    if (t->status < 0)
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: status: not fitted, interpolated or "
                                           "withheld (got \"%s\")",
                            r->name, line, fl[5]);
    if ((t->status == CURVE_WITHHELD) != (t->fwd_e4 < 0) || (t->term_e4 < 0) != (t->fwd_e4 < 0))
        return gpi_diag_set(d, GPI_EINPUT, "%s:%ld: a withheld tenor has no numbers, any "
                                           "other both",
                            r->name, line);
    snprintf(t->reason, sizeof t->reason, "%s", fl[6]);
    t->term = t->fwd = 0;
    *r->found = 1;
    return GPI_OK;
}

gpi_status curve_csv_read(const char *name, const char *text, size_t len, const char *grade,
                          curve_tenor t[CURVE_TENORS], int *found, gpi_diag *d)
{
    *found = 0;
    for (int k = 0; k < CURVE_TENORS; k++) {
        memset(&t[k], 0, sizeof t[k]);
        t[k].status = CURVE_WITHHELD;
        t[k].term_e4 = t[k].fwd_e4 = -1;
    }
    reader r = {name, grade, t, found, 0};
    return gpi_csv_read_text(name, text, len, on_row, &r, d);
}
