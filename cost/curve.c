/* cost/curve.c -- the cost curve of one workload on one day.
 *
 * The deployments of the selection active on the day are priced
 * (compute.c); those with a cost are sorted by it (ties: operator,
 * deployment label, file line) and laid end to end along the capacity
 * axis, so the curve is a step function: cost against cumulative capacity,
 * the shape of a supply curve.  Those without a value (the grade is
 * suspended, or the day was never built) are kept apart in `off`.
 *
 * Ranks are competition ranks on the published (rounded) cost: 1 is the
 * cheapest, equal costs share a rank, the next rank skips (1, 2, 2, 4).
 * The median is capacity-weighted: the cost of the first deployment whose
 * cumulative capacity reaches half the total (2 x cum_to >= total), i.e.
 * the cost at which half the curve's capacity is available -- always one
 * of the curve's costs, so exact.  Distances are cost minus the cheapest
 * or the median cost (micro-USD, exact), and the same relative to it,
 * rounded once to 0.01 %.
 *
 * The selection is one workload and one latency target: tokens/s measured
 * at different latency targets are different products and never share a
 * curve.
 */
#include "cost/cost.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int64_t cost_capacity(const cost_deployment *dep, int axis)
{
    if (axis == COST_AXIS_GPUS) return dep->gpus;
    __int128 t = (__int128)dep->tps_milli * dep->accept_ppm * dep->gpus;
    return gpi_div_round(t, 1000000);
}

static int selected(const cost_deployment *r, const cost_select *sel)
{
    if (strcmp(r->workload, sel->workload ? sel->workload : "") != 0) return 0;
    if (strcmp(r->latency, sel->latency ? sel->latency : "") != 0) return 0;
    if (sel->grade && strcasecmp(r->grade, sel->grade) != 0) return 0;
    return 1;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const cost_entry *a = pa, *b = pb;
    if (a->pt.cost_micro != b->pt.cost_micro) return a->pt.cost_micro < b->pt.cost_micro ? -1 : 1;
    int c = strcmp(a->pt.dep->op, b->pt.dep->op);
    if (!c) c = strcmp(a->pt.dep->name, b->pt.dep->name);
    if (!c) c = (a->pt.dep->line > b->pt.dep->line) - (a->pt.dep->line < b->pt.dep->line);
    return c;
}

static int64_t rel_bp(int64_t cost, int64_t ref)
{
    if (ref == 0) return cost == 0 ? 0 : COST_NA;
    return cost_ratio_bp(cost - ref, ref);
}

gpi_status cost_curve_build(const cost_deployments *ds, const cost_prices *px,
                            const cost_select *sel, int32_t day, cost_curve *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->day = day;
    out->sel = *sel;
    size_t cnt = 0;
    for (size_t i = 0; i < ds->n; i++)
        if (selected(&ds->v[i], sel) && day >= ds->v[i].from && day <= ds->v[i].to) cnt++;
    if (cnt == 0) return GPI_OK;
    out->v = malloc(cnt * sizeof *out->v);
    out->off = malloc(cnt * sizeof *out->off);
    if (!out->v || !out->off) {
        cost_curve_free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "cost: out of memory");
    }
    for (size_t i = 0; i < ds->n; i++) {
        const cost_deployment *r = &ds->v[i];
        if (!selected(r, sel) || day < r->from || day > r->to) continue;
        cost_point pt;
        cost_point_compute(r, px, day, &pt);
        if (pt.status != COST_OK) {
            out->off[out->n_off++] = pt;
            continue;
        }
        cost_entry *e = &out->v[out->n++];
        memset(e, 0, sizeof *e);
        e->pt = pt;
        e->cap = cost_capacity(r, sel->axis);
    }
    if (out->n == 0) return GPI_OK;
    qsort(out->v, out->n, sizeof *out->v, entry_cmp);
    __int128 cum = 0;
    for (size_t i = 0; i < out->n; i++) {
        cost_entry *e = &out->v[i];
        e->rank = i > 0 && e->pt.cost_micro == out->v[i - 1].pt.cost_micro ? out->v[i - 1].rank
                                                                          : i + 1;
        if (cum + e->cap > INT64_MAX) {
            cost_curve_free(out);
            return gpi_diag_set(d, GPI_EINPUT, "cost: total capacity too large");
        }
        e->cum_from = (int64_t)cum;
        cum += e->cap;
        e->cum_to = (int64_t)cum;
    }
    out->total_cap = (int64_t)cum;
    size_t m = 0;
    while ((__int128)2 * out->v[m].cum_to < cum) m++;
    out->median_at = m;
    out->cheapest_micro = out->v[0].pt.cost_micro;
    out->median_micro = out->v[m].pt.cost_micro;
    for (size_t i = 0; i < out->n; i++) {
        cost_entry *e = &out->v[i];
        e->to_cheapest_micro = e->pt.cost_micro - out->cheapest_micro;
        e->to_median_micro = e->pt.cost_micro - out->median_micro;
        e->to_cheapest_bp = rel_bp(e->pt.cost_micro, out->cheapest_micro);
        e->to_median_bp = rel_bp(e->pt.cost_micro, out->median_micro);
    }
    return GPI_OK;
}

void cost_curve_free(cost_curve *c)
{
    if (!c) return;
    free(c->v);
    free(c->off);
    c->v = NULL;
    c->off = NULL;
    c->n = c->n_off = 0;
}

gpi_status cost_groups(const cost_deployments *ds, size_t **rows, size_t *n, gpi_diag *d)
{
    *rows = NULL;
    *n = 0;
    if (ds->n == 0) return GPI_OK;
    size_t *v = malloc(ds->n * sizeof *v);
    if (!v) return gpi_diag_set(d, GPI_ENOMEM, "cost: out of memory");
    size_t k = 0;
    for (size_t i = 0; i < ds->n; i++) {
        size_t j = 0;
        while (j < k && (strcmp(ds->v[v[j]].workload, ds->v[i].workload) != 0 ||
                         strcmp(ds->v[v[j]].latency, ds->v[i].latency) != 0))
            j++;
        if (j == k) v[k++] = i;
    }
    *rows = v;
    *n = k;
    return GPI_OK;
}

int cost_last_day(const cost_deployments *ds, const cost_select *sel, int32_t *day)
{
    int any = 0;
    *day = 0;
    for (size_t i = 0; i < ds->n; i++)
        if (selected(&ds->v[i], sel) && (!any || ds->v[i].to > *day)) {
            *day = ds->v[i].to;
            any = 1;
        }
    return any;
}
