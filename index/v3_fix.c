/* index/v3_fix.c -- methodology v3: the v1 statistics over the panel's
 * observations (METHODOLOGY.md §13.3), the note of a carried or suspended
 * day, and leave-one-member-out (§11.1 over the panel).
 *
 * NOTES ON THE DESIGN
 * (1) The fix's observations (v3_panel.c: members' of the day and imputed
 *     members' carried ones, group = the group's index in the state) were
 *     screened on the day each was made; they are not screened again (a
 *     carried member's used offers screened against their own median
 *     could lose one).  Everything else is v1's: the counts of §5, the
 *     trades level when the screened trades reach min_trade_volume from
 *     min_providers groups (water-filling cap, exact weighted median), the
 *     median of provider medians otherwise, the observations' spread.
 * (2) Leave one member out: each member (present or imputed) is removed
 *     from the fix in turn and the day is evaluated from the sequence
 *     before it (the same adjustment and carry), as v1 does with every
 *     provider (index/manip.c note 1).  Candidates are not in the fix:
 *     removing them moves nothing.  A member's withdrawal for up to
 *     absence_days days moves nothing at all (it is imputed); the figure
 *     says what its presence weighs, and what its exit after that would
 *     do.  The costs of a new participant are none: it cannot enter the
 *     panel on the day (v3_panel.c note 2).
 */
#include "index/v3_internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

static gpi_status oom(gpi_diag *d)
{
    return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
}

static int eligible(int reason)
{
    return !IDX_EX_INELIGIBLE(reason);
}

void v3_scratch_free(v3_scratch *w)
{
    free(w->stamp);
    free(w->work);
    free(w->wm);
    memset(w, 0, sizeof *w);
}

static uint32_t stamp_next(v3_scratch *w)
{
    if (++w->stamp_now == 0) {
        memset(w->stamp, 0, w->cap_stamp * sizeof *w->stamp);
        w->stamp_now = 1;
    }
    return w->stamp_now;
}

/* Copies v without group ex into *dst. */
static gpi_status without(const idx_item *v, size_t n, int32_t ex, idx_item **dst, size_t *cap,
                          size_t *out, gpi_diag *d)
{
    if (GPI_VEC_RESERVE(*dst, *cap, n + 1)) return oom(d);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].group != ex) (*dst)[w++] = v[i];
    *out = w;
    return GPI_OK;
}

/* The statistics of one kind's items v (sorted by group then price). */
static gpi_status kind_stats(const idx_grade *g, v3_scratch *s, int trades, const idx_item *v,
                             size_t n, idx_v3_stats *st, gpi_diag *d)
{
    const idx_params *p = &g->p;
    long *obs = trades ? &st->t_obs : &st->o_obs, *ex = trades ? &st->t_excl : &st->o_excl;
    long *prov = trades ? &st->t_prov : &st->o_prov;
    int64_t *spread = trades ? st->t_spread : st->o_spread, *top = trades ? &st->t_top : &st->o_top;
    __int128 best = 0, total = 0, cur = 0;
    uint32_t now = stamp_next(s);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && v[i].group != v[i - 1].group) cur = 0;
        int r = v[i].reason;
        if (!eligible(r)) continue;
        (*obs)++;
        if (r != IDX_OK) {
            (*ex)++;
            continue;
        }
        if (s->stamp[v[i].group] != now) {
            s->stamp[v[i].group] = now;
            (*prov)++;
        }
        __int128 w = trades ? v[i].qty_micro : 1;
        cur += w;
        total += w;
        if (cur > best) best = cur;
        if (trades && __builtin_add_overflow(st->volume, v[i].qty_micro, &st->volume))
            return gpi_diag_set(d, GPI_EINPUT,
                                "grade %s: the day's trade volume is over 9,223,372 million "
                                "GPU-hours (too large to add up)",
                                g->id);
    }
    *top = total > 0 ? gpi_div_round(best * 1000000, total) : -1;
    if (GPI_VEC_RESERVE(s->work, s->cap_work, 2 * n + 2)) return oom(d);
    idx_spread(v, n, s->work, spread);
    if (trades) {
        if (st->volume >= p->min_trade_volume_micro && st->volume > 0 && *prov >= p->min_providers) {
            if (GPI_VEC_RESERVE(s->wm, s->cap_wm, n + 1)) return oom(d);
            memcpy(s->wm, v, n * sizeof *v);
            gpi_status rc = idx_weighted_median(s->wm, n, p->cap_floor_e6, &st->t_q, d);
            if (rc != GPI_OK) return rc;
        }
    } else {
        int64_t raw;
        size_t np = idx_median_of_medians(v, n, s->work, &raw);
        if (np > 0 && (long)np >= p->min_providers) st->o_q = raw;
    }
    return GPI_OK;
}

/* The statistics of t and o (sorted by group then price) with scratch w;
 * n_groups bounds the group ids. */
static gpi_status stats(const idx_grade *g, v3_scratch *w, const idx_item *t, size_t nt,
                        const idx_item *o, size_t no, size_t n_groups, idx_v3_stats *st,
                        gpi_diag *d)
{
    memset(st, 0, sizeof *st);
    st->t_q = st->o_q = -1;
    for (int i = 0; i < 7; i++) st->t_spread[i] = st->o_spread[i] = -1;
    st->t_top = st->o_top = -1;
    if (GPI_VEC_RESERVE_ZERO(w->stamp, w->cap_stamp, n_groups + 1)) return oom(d);
    gpi_status rc = kind_stats(g, w, 1, t, nt, st, d);
    if (rc == GPI_OK) rc = kind_stats(g, w, 0, o, no, st, d);
    if (rc != GPI_OK) return rc;
    uint32_t now = stamp_next(w);
    for (int k = 0; k < 2; k++) {
        const idx_item *v = k ? o : t;
        size_t n = k ? no : nt;
        for (size_t i = 0; i < n; i++) {
            if (!eligible(v[i].reason)) continue;
            st->all_obs++;
            if (w->stamp[v[i].group] != now) {
                w->stamp[v[i].group] = now;
                st->all_prov++;
            }
        }
    }
    return GPI_OK;
}

gpi_status idx_v3_stats_of(const idx_grade *g, const idx_item *t, size_t nt, const idx_item *o,
                           size_t no, idx_v3_stats *st, gpi_diag *d)
{
    int32_t mx = 0;
    for (size_t i = 0; i < nt; i++) mx = t[i].group > mx ? t[i].group : mx;
    for (size_t i = 0; i < no; i++) mx = o[i].group > mx ? o[i].group : mx;
    v3_scratch w = {0};
    gpi_status rc = stats(g, &w, t, nt, o, no, (size_t)mx + 1, st, d);
    v3_scratch_free(&w);
    return rc;
}

gpi_status v3_stats_items(idx_v3 *s, const idx_item *t, size_t nt, const idx_item *o, size_t no,
                          size_t n_groups, idx_v3_stats *st, gpi_diag *d)
{
    return stats(s->g, &s->sc, t, nt, o, no, n_groups, st, d);
}

gpi_status v3_fix_stats(idx_v3 *s, int32_t exclude, idx_v3_stats *st, gpi_diag *d)
{
    const idx_item *t = s->ft, *o = s->fo;
    size_t nt = s->nft, no = s->nfo;
    gpi_status rc = GPI_OK;
    if (exclude >= 0) {
        rc = without(s->ft, s->nft, exclude, &s->xt, &s->cap_xt, &nt, d);
        if (rc == GPI_OK) rc = without(s->fo, s->nfo, exclude, &s->xo, &s->cap_xo, &no, d);
        t = s->xt;
        o = s->xo;
    }
    if (rc != GPI_OK) return rc;
    return stats(s->g, &s->sc, t, nt, o, no, s->ng, st, d);
}

void idx_v3_note(const idx_grade *g, const idx_v3_stats *st, const idx_eval *e, long candidates,
                 long unobserved, char *out, size_t n)
{
    out[0] = '\0';
    if (e->level == GPI_LEVEL_TRADES || e->level == GPI_LEVEL_OFFERS) return;
    const idx_params *p = &g->p;
    char why[320], a[32], b[32];
    int k;
    if (unobserved > 0)
        k = snprintf(why, sizeof why,
                     "no member of the panel present (%ld imputed: imputed members alone are "
                     "no fix)",
                     unobserved);
    else if (st->all_obs == 0)
        k = snprintf(why, sizeof why, "no eligible observations of the panel");
    else
        k = snprintf(why, sizeof why,
                     "panel: trades: %s GPU-hours from %ld providers (need %s from %d); offers: "
                     "%ld providers after the screen (need %d)",
                     gpi_fixed_format(gpi_div_round(st->volume, 10000), 2, a), st->t_prov,
                     gpi_fixed_format(p->min_trade_volume_micro / 10000, 2, b), p->min_providers,
                     st->o_prov, p->min_providers);
    if (candidates > 0 && k > 0 && (size_t)k < sizeof why)
        snprintf(why + k, sizeof why - (size_t)k, "; %ld provider%s not yet in the panel",
                 candidates, candidates == 1 ? "" : "s");
    if (e->level == GPI_LEVEL_CARRIED)
        snprintf(out, n, "%s", why);
    else if (e->exhausted)
        snprintf(out, n, "%s; carried %d days already (max_carry_days)", why, p->max_carry_days);
    else
        snprintf(out, n, "%s; no earlier value to carry", why);
}

gpi_status v3_leave_one_out(idx_v3 *s, int32_t day, gpi_diag *d)
{
    idx_v3_out *o = &s->out;
    o->measured = 0;
    o->loo_move_e4 = o->loo_to_e4 = -1;
    o->loo_group = -1;
    o->loo_voids = 0;
    idx_v3_stats st;
    gpi_status rc = v3_fix_stats(s, -1, &st, d);
    if (rc != GPI_OK) return rc;
    idx_eval e;
    idx_seq_peek(&s->seq, day, st.t_q, st.o_q, &e);
    if (e.level != GPI_LEVEL_TRADES && e.level != GPI_LEVEL_OFFERS) return GPI_OK;
    int64_t v0 = e.value_e4;
    o->measured = 1;
    for (size_t k = 0; k < o->n_groups && rc == GPI_OK; k++) {
        const idx_v3_pgroup *p = &o->groups[k];
        if (p->role != IDX_V3_MEMBER && p->role != IDX_V3_IMPUTED) continue;
        int found = 0;
        int32_t gi = -1;
        for (size_t i = 0; i < s->ng && !found; i++)
            if (s->gr[i].name == p->name) gi = (int32_t)i, found = 1;
        rc = v3_fix_stats(s, gi, &st, d);
        if (rc != GPI_OK) break;
        idx_eval e2;
        idx_seq_peek(&s->seq, day, st.t_q, st.o_q, &e2);
        int64_t v = e2.level == GPI_LEVEL_SUSPENDED ? -1 : e2.value_e4;
        if (v < 0) {
            o->loo_voids++;
            continue;
        }
        int64_t mv = v > v0 ? v - v0 : v0 - v;
        if (mv > o->loo_move_e4) { /* groups come in byte order: the first of equal moves */
            o->loo_move_e4 = mv;
            o->loo_to_e4 = v;
            o->loo_group = (long)k;
        }
    }
    return rc;
}
