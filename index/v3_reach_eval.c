/* index/v3_reach_eval.c -- the grade lab's side of methodology v3's
 * manipulation figures (index/v3_reach.c, METHODOLOGY.md §11.4): after a
 * v3 day of `grades evaluate`, on the last day of its month (or of the
 * range) the month's figures and its FSP so far are kept with the grade's
 * evaluation (idx_grade_eval.fsp_months).  Kept apart from v3_reach.c,
 * whose figures are pure functions that include no store header.
 */
#include "index/row.h"

#include <stdlib.h>

gpi_status idx_eval_fsp_month(idx_grade_eval *ge, const idx_v3_out *o, const int64_t *values,
                              long k, int last, gpi_diag *d)
{
    int32_t day = o->reach.day;
    int y, m, dd, y2, m2, d2;
    gpi_civil_from_days(day, &y, &m, &dd);
    gpi_civil_from_days(day + 1, &y2, &m2, &d2);
    if (m2 == m && !last) return GPI_OK;
    idx_fsp_month *v = realloc(ge->fsp_months, (ge->n_fsp_months + 1) * sizeof *v);
    if (!v) return gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
    ge->fsp_months = v;
    idx_fsp_month *x = &v[ge->n_fsp_months++];
    x->day = day;
    x->days = o->fsp_days[0];
    x->business_days = o->fsp_days[1];
    for (int a = 0; a < IDX_REACH_KINDS; a++)
        for (int c = 0; c < 2; c++) x->move_e6[a][c] = o->fsp_reach_e6[a][c];
    /* the month's mean in the range: today's value and the days before it */
    __int128 sum = 0;
    long n = 0;
    int64_t today = o->e.level == GPI_LEVEL_SUSPENDED ? -1 : o->e.value_e4;
    if (today >= 0) sum += today, n++;
    for (long i = k - 1; i >= 0 && i >= k - (dd - 1); i--)
        if (values[i] >= 0) sum += values[i], n++;
    x->fsp_e4 = n ? (int64_t)((2 * sum + n) / (2 * n)) : -1;
    return GPI_OK;
}
