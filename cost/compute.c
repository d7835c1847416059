/* cost/compute.c -- one deployment on one day.
 *
 * The GPU-hour price is the deployment's own rent when it states one, else
 * its grade's index value of the day (x 100: 0.0001 USD -> micro-USD) as
 * the caller loaded it -- by default the value as first published, else
 * the stored value (METHODOLOGY.md, "The value of a day").  A suspended
 * day, or a day with no index row, gives no cost: the point carries the
 * status and is reported, never dropped.
 *
 * Exact arithmetic (units in cost.h):
 *   cost  = round( P x 1e15 / (3600 x T x A) )          micro-USD per 1M
 *   total = round( (P + O) x 1e15 / (3600 x T x A) )
 *   rent share = round( P x 1e4 / (P + O) )            0.01 % units
 *   margin = api - cost;  margin share = round( margin x 1e4 / api )
 * with P, O micro-USD per GPU-hour, T milli-tokens/s, A ppm.  P x 1e15 is
 * below 2^127 for every P < 1.7e23; the reader bounds T x A >= 1e6
 * (0.001 acceptable tokens/s), so a cost fits int64 for every P below
 * 3.3e13 micro-USD (33 million USD per GPU-hour); a larger one saturates
 * at INT64_MAX instead of wrapping.
 */
#include "cost/cost.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *cost_status_name(int st)
{
    switch (st) {
    case COST_OK: return "ok";
    case COST_SUSPENDED: return "suspended";
    case COST_UNBUILT: return "not built";
    }
    return "?";
}

int64_t cost_per_mtok_micro(int64_t price_micro, int64_t tps_milli, int64_t accept_ppm)
{
    __int128 num = (__int128)price_micro * 1000000000000000LL;
    __int128 den = (__int128)3600 * tps_milli * accept_ppm;
    __int128 lim = (__int128)INT64_MAX * den;
    if (num >= lim) return INT64_MAX; /* unreachable for the reader's bounds */
    return gpi_div_round(num, den);
}

int64_t cost_ratio_bp(int64_t num, int64_t den)
{
    return gpi_div_round((__int128)num * 10000, den);
}

void cost_price_lookup(const cost_prices *px, const char *grade, int32_t day, int *status,
                       int *level, int64_t *value_e4)
{
    *status = COST_UNBUILT;
    *level = -1;
    *value_e4 = -1;
    const cost_series *s = NULL;
    for (size_t i = 0; px && i < px->n && !s; i++)
        if (px->s[i].grade && strcasecmp(px->s[i].grade, grade) == 0) s = &px->s[i];
    if (!s) return;
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->days[mid].day < day) lo = mid + 1;
        else hi = mid;
    }
    if (lo == s->n || s->days[lo].day != day) return;
    const gpi_index_day *v = &s->days[lo];
    if (v->level == GPI_LEVEL_SUSPENDED || v->value_e4 <= 0) {
        *status = COST_SUSPENDED;
        *level = GPI_LEVEL_SUSPENDED;
        return;
    }
    *status = COST_OK;
    *level = v->level;
    *value_e4 = v->value_e4;
}

void cost_point_compute(const cost_deployment *dep, const cost_prices *px, int32_t day,
                        cost_point *out)
{
    memset(out, 0, sizeof *out);
    out->dep = dep;
    out->day = day;
    out->level = -1;
    out->price_micro = out->cost_micro = out->total_micro = -1;
    out->rent_share_bp = out->margin_micro = out->margin_bp = -1;
    if (dep->rent_micro >= 0) {
        out->status = COST_OK;
        out->price_micro = dep->rent_micro;
    } else {
        int st, level;
        int64_t e4;
        cost_price_lookup(px, dep->grade, day, &st, &level, &e4);
        out->status = st;
        out->level = level;
        if (st != COST_OK) return;
        out->price_micro = e4 * 100;
    }
    int64_t p = out->price_micro;
    out->cost_micro = cost_per_mtok_micro(p, dep->tps_milli, dep->accept_ppm);
    if (dep->other_micro >= 0) {
        out->has_total = 1;
        out->total_micro = cost_per_mtok_micro(p + dep->other_micro, dep->tps_milli,
                                               dep->accept_ppm);
        out->rent_share_bp = cost_ratio_bp(p, p + dep->other_micro);
    }
    if (dep->api_micro >= 0) {
        out->has_api = 1;
        out->margin_micro = dep->api_micro - out->cost_micro;
        out->margin_bp = dep->api_micro > 0 ? cost_ratio_bp(out->margin_micro, dep->api_micro) : 0;
    }
}

gpi_status cost_days(const cost_deployments *ds, const cost_prices *px, int32_t from, int32_t to,
                     const char *op, cost_point **out, size_t *n, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    size_t total = 0;
    for (size_t i = 0; i < ds->n; i++) {
        const cost_deployment *r = &ds->v[i];
        if (op && strcmp(r->op, op) != 0) continue;
        int32_t a = r->from > from ? r->from : from, b = r->to < to ? r->to : to;
        if (a > b) continue;
        total += (size_t)(b - a) + 1;
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }
    if (total == 0) return GPI_OK;
    cost_point *v = malloc(total * sizeof *v);
    if (!v) return gpi_diag_set(d, GPI_ENOMEM, "cost: out of memory");
    size_t k = 0;
    for (int32_t day = lo; day <= hi; day++)
        for (size_t i = 0; i < ds->n; i++) {
            const cost_deployment *r = &ds->v[i];
            if ((op && strcmp(r->op, op) != 0) || day < r->from || day > r->to || day < from ||
                day > to)
                continue;
            cost_point_compute(r, px, day, &v[k++]);
        }
    *out = v;
    *n = k;
    return GPI_OK;
}
