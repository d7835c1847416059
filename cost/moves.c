/* cost/moves.c -- how each producer's position on the curve moved.
 *
 * The curve is built on sampled days (from, from + every, ..., and to).
 * A producer is a deployment label (operator[/deployment]); within one
 * selection it is on each curve at most once (the reader refuses
 * overlapping rows).  Between the first and the last sampled day on which
 * a producer is on the curve, its cost change is split in two:
 *
 *   c(P, E) = the published cost at GPU-hour price P and efficiency
 *             E = tokens/s x acceptance (each rounded once, like a cost)
 *   price effect      = [ (c(P1,E0) - c(P0,E0)) + (c(P1,E1) - c(P0,E1)) ] / 2
 *                       rounded half away from zero to a micro-USD
 *   throughput effect = change - price effect
 *
 * The price effect is the mean of the two one-factor changes (the Shapley
 * split of two factors: symmetric, no order), so the two effects add up
 * exactly to the change of the published costs.  A producer "improved"
 * when E rose; it "fell back" when its rank got worse, or its cost
 * relative to the median rose -- which can both happen at once, when the
 * peers improved more, or the index moved against its grade.
 */
#include "cost/cost.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

static cost_move *find_or_add(cost_moves *m, size_t *cap, const char *label, gpi_diag *d,
                              gpi_status *st)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->m[i].label, label) == 0) return &m->m[i];
    if (GPI_VEC_RESERVE(m->m, *cap, m->n + 1) != 0) {
        *st = gpi_diag_set(d, GPI_ENOMEM, "cost: out of memory");
        return NULL;
    }
    cost_move *v = &m->m[m->n++];
    memset(v, 0, sizeof *v);
    snprintf(v->label, sizeof v->label, "%s", label);
    return v;
}

static int move_cmp(const void *a, const void *b)
{
    return strcmp(((const cost_move *)a)->label, ((const cost_move *)b)->label);
}

static void split_change(cost_move *v)
{
    const cost_point *a = &v->first->pt, *b = &v->last->pt;
    const cost_deployment *da = a->dep, *db = b->dep;
    int64_t c00 = a->cost_micro, c11 = b->cost_micro;
    int64_t c10 = cost_per_mtok_micro(b->price_micro, da->tps_milli, da->accept_ppm);
    int64_t c01 = cost_per_mtok_micro(a->price_micro, db->tps_milli, db->accept_ppm);
    v->change_micro = c11 - c00;
    v->price_effect_micro = gpi_div_round((__int128)(c10 - c00) + (c11 - c01), 2);
    v->eff_effect_micro = v->change_micro - v->price_effect_micro;
    int64_t e0 = da->tps_milli * da->accept_ppm, e1 = db->tps_milli * db->accept_ppm;
    v->eff_change_bp = cost_ratio_bp(e1 - e0, e0);
    v->improved = e1 > e0;
    int64_t m0 = v->first->to_median_bp, m1 = v->last->to_median_bp;
    v->fell_back = v->last->rank > v->first->rank || (m0 != COST_NA && m1 != COST_NA && m1 > m0);
}

gpi_status cost_moves_build(const cost_deployments *ds, const cost_prices *px,
                            const cost_select *sel, int32_t from, int32_t to, int every,
                            cost_moves *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    if (every < 1 || from > to)
        return gpi_diag_set(d, GPI_EUSAGE, "cost: a date range from <= to and every >= 1 needed");
    size_t n = (size_t)((to - from) / every) + 1;
    if (from + (int32_t)(n - 1) * every != to) n++;
    out->curves = calloc(n, sizeof *out->curves);
    if (!out->curves) return gpi_diag_set(d, GPI_ENOMEM, "cost: out of memory");
    gpi_status st = GPI_OK;
    for (size_t k = 0; k < n && st == GPI_OK; k++) {
        int32_t day = k + 1 == n ? to : from + (int32_t)k * every;
        st = cost_curve_build(ds, px, sel, day, &out->curves[k], d);
        if (st == GPI_OK) out->n_curves++;
    }
    size_t cap = 0;
    char label[2 * COST_NAME_MAX + 2];
    for (size_t k = 0; k < out->n_curves && st == GPI_OK; k++) {
        const cost_curve *c = &out->curves[k];
        for (size_t i = 0; i < c->n_off && st == GPI_OK; i++)
            find_or_add(out, &cap, cost_label(c->off[i].dep, label), d, &st);
        for (size_t i = 0; i < c->n && st == GPI_OK; i++) {
            const cost_entry *e = &c->v[i];
            cost_move *v = find_or_add(out, &cap, cost_label(e->pt.dep, label), d, &st);
            if (!v) break;
            if (!v->first) {
                v->first = e;
                v->first_day = c->day;
                v->first_of = c->n;
                v->best_rank = v->worst_rank = e->rank;
                v->best_day = v->worst_day = c->day;
            }
            v->last = e;
            v->last_day = c->day;
            v->last_of = c->n;
            v->n_on++;
            if (e->rank < v->best_rank) v->best_rank = e->rank, v->best_day = c->day;
            if (e->rank > v->worst_rank) v->worst_rank = e->rank, v->worst_day = c->day;
        }
    }
    if (st != GPI_OK) {
        cost_moves_free(out);
        return st;
    }
    for (size_t i = 0; i < out->n; i++)
        if (out->m[i].first) split_change(&out->m[i]);
    if (out->n) qsort(out->m, out->n, sizeof *out->m, move_cmp);
    return GPI_OK;
}

void cost_moves_free(cost_moves *m)
{
    if (!m) return;
    for (size_t k = 0; k < m->n_curves; k++) cost_curve_free(&m->curves[k]);
    free(m->curves);
    free(m->m);
    memset(m, 0, sizeof *m);
}
