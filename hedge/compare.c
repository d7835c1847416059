/* hedge/compare.c -- which grade hedges one rent history best.
 *
 * Each grade is analyzed on its own (values as first published, or
 * latest); grades with no usable data keep their reason.  Ranking: usable
 * grades first, then hedge effectiveness at the OLS h (higher is better,
 * NaN last), then basis sd (lower is better: less basis risk), then id.
 */
#include "hedge/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_nan_last(double x, double y, int desc)
{
    int nx = !isfinite(x), ny = !isfinite(y);
    if (nx || ny) return nx - ny;
    if (x == y) return 0;
    return (x < y) == !desc ? -1 : 1;
}

static int rank_cmp(const void *pa, const void *pb)
{
    const hedge_rank *a = pa, *b = pb;
    if (a->ok != b->ok) return b->ok - a->ok;
    int c = cmp_nan_last(a->a.he, b->a.he, 1);
    if (!c) c = cmp_nan_last(a->a.basis.sd, b->a.basis.sd, 0);
    if (!c) c = strcasecmp(a->grade, b->grade);
    return c;
}

gpi_status hedge_compare(store *st, const char *const *grades, size_t ngrades, int latest,
                         const hedge_rent *r, hedge_freq f, int window, hedge_rank **out,
                         gpi_diag *d)
{
    *out = NULL;
    if (!st || !grades || !r || ngrades == 0)
        return gpi_diag_set(d, GPI_EUSAGE, "hedge_compare: no grades given");
    hedge_rank *rk = calloc(ngrades, sizeof *rk);
    if (!rk) return gpi_diag_set(d, GPI_ENOMEM, "hedge: out of memory (compare)");
    for (size_t i = 0; i < ngrades; i++) {
        snprintf(rk[i].grade, sizeof rk[i].grade, "%s", grades[i]);
        hedge_series s;
        gpi_diag dd = {{0}};
        gpi_status rc = hedge_analyze_grade(st, grades[i], latest, r, f, window, &s, &rk[i].a, &dd);
        if (rc == GPI_EINPUT) {
            snprintf(rk[i].reason, sizeof rk[i].reason, "%s", dd.msg);
            continue;
        }
        if (rc != GPI_OK) {
            hedge_ranks_free(rk, ngrades);
            return gpi_diag_set(d, rc, "%s", dd.msg);
        }
        hedge_series_free(&s);
        rk[i].ok = 1;
    }
    qsort(rk, ngrades, sizeof *rk, rank_cmp);
    *out = rk;
    return GPI_OK;
}

void hedge_ranks_free(hedge_rank *r, size_t n)
{
    if (!r) return;
    for (size_t i = 0; i < n; i++) hedge_analysis_free(&r[i].a);
    free(r);
}
