/* index/row.c -- one grade-day, fixed, as a stored row (SPEC §6, §13;
 * METHODOLOGY.md §5 and §10).
 *
 * NOTES ON THE DESIGN
 * (1) A v1 row is the day's fix (idx_day_fix) sequenced by idx_seq: level,
 *     value, adjustment, carry; its statistics are those of the level used
 *     (all eligible observations on carried/suspended days).
 * (2) A v2 row is the v1 row of the same day -- kept as the cross-section
 *     statistic (xs_value, xs_level) with every statistic of its level --
 *     whose value and level are replaced by the chained value
 *     (index/chain.c), whose p10..max become the band of the cross-
 *     section's constituents (below), and whose observation-level spread
 *     moves to obs_spread.
 * (3) The constituents' band is the distribution the cross-section is the
 *     median of, so its p50 is the cross-section's raw value and the
 *     statistic lies inside [p25, p75]: on trades days the trade prices
 *     with their capped weights (idx_weighted_quantile); on offers days
 *     the provider medians, one vote each, times the adjustment.  A
 *     quantile q is the first distinct value at which the cumulative
 *     weight reaches q of the total, or, when it reaches it exactly, the
 *     mean with the next higher distinct value (the weighted-median rule
 *     of §4.1 at q).  min and max are the smallest and largest
 *     constituent (trade price, or provider median times the adjustment).
 * (4) note says why a day is carried or suspended, in words
 *     ("trades: 350.00 GPU-hours from 2 providers (need 1000.00 from 3);
 *     offers: 2 providers after the screen (need 3)").
 * (5) Every row carries its roles (index/roles.c), which publication
 *     lists the day's observations by: the fix's exclusions and, on a v2
 *     day, the chain's matched members, taken with idx_chain_match on the
 *     chain as it stood before the day (before the leave-one-out peeks
 *     and the step, which replaces the panel on an anchor day).
 */
#include "index/manip.h"
#include "index/roles.h"
#include "index/row.h"
#include "index/snap.h"
#include "core/vec.h"
#include "store/index_values.h"

#include <stdlib.h>
#include <string.h>

void idx_put_fixed(FILE *f, int64_t v, int digits, int json)
{
    char b[32];
    if (v < 0)
        fputs(json ? "null" : "", f);
    else
        fputs(gpi_fixed_format(v, digits, b), f);
}

static void make_row(const idx_grade *g, int32_t day, const idx_fix *f, const idx_eval *e,
                     int64_t as_of, store_index_row *r)
{
    memset(r, 0, sizeof *r);
    r->day = day;
    snprintf(r->grade, sizeof r->grade, "%s", g->id);
    r->level = e->level;
    r->value_e4 = e->value_e4;
    r->trade_volume_e2 = gpi_div_round(f->trade_volume_micro, 10000);
    r->adjustment_e6 = e->level == GPI_LEVEL_OFFERS ? e->adj_e6 : -1;
    const idx_level_stats *ls = e->level == GPI_LEVEL_TRADES   ? &f->ts
                                : e->level == GPI_LEVEL_OFFERS ? &f->os
                                                               : NULL;
    if (ls) {
        r->n_obs = ls->n_obs;
        r->n_excluded = ls->n_excluded;
        r->n_providers = ls->n_providers;
        r->p10_micro = ls->spread[0];
        r->p25_micro = ls->spread[1];
        r->p50_micro = ls->spread[2];
        r->p75_micro = ls->spread[3];
        r->p90_micro = ls->spread[4];
        r->min_micro = ls->spread[5];
        r->max_micro = ls->spread[6];
        r->top_share_e6 = ls->top_share_e6;
    } else {
        r->n_obs = f->all_obs;
        r->n_excluded = 0;
        r->n_providers = f->all_providers;
        r->p10_micro = r->p25_micro = r->p50_micro = r->p75_micro = r->p90_micro = -1;
        r->min_micro = r->max_micro = r->top_share_e6 = -1;
    }
    snprintf(r->methodology, sizeof r->methodology, "v1");
    r->trades_raw_q = f->trades_raw_q;
    r->offers_raw_q = f->offers_raw_q;
    r->carry_days = e->carry;
    r->grade_version = g->version;
    snprintf(r->grade_hash, sizeof r->grade_hash, "%s", g->hash);
    r->as_of = as_of;
    r->ref_day = r->panel_day = INT32_MIN;
    for (int i = 0; i < 7; i++) r->obs_spread[i] = -1;
    r->xs_value_e4 = r->chain_nano = r->relative_e12 = r->splice_e12 = -1;
    r->chain_prev_nano = r->matched_now_q = r->matched_ref_q = -1;
    r->loo_move_e4 = -1;
    r->cost_e2[0] = r->cost_e2[1] = -1;
    r->cost_offers[0] = r->cost_offers[1] = -1;
    r->price_index_e6 = r->index_change_e12 = -1;
    r->log_index_e12 = r->gap_e6 = r->gap_month_e6 = INT64_MIN;
}

static void manip_row(const idx_day *dy, const idx_manip *m, store_index_row *r)
{
    r->loo_move_e4 = m->loo_move_e4;
    if (m->loo_group >= 0)
        snprintf(r->loo_provider, sizeof r->loo_provider, "%s", idx_day_group(dy, m->loo_group));
    r->loo_voids = m->loo_voids;
    for (int k = 0; k < 2; k++) {
        r->cost_e2[k] = m->cost_e2[k];
        r->cost_offers[k] = m->cost_offers[k];
    }
}

/* Design note 4. */
static void v1_note(const idx_grade *g, const idx_fix *f, const idx_eval *e, char *out,
                    size_t n)
{
    out[0] = '\0';
    if (e->level == GPI_LEVEL_TRADES || e->level == GPI_LEVEL_OFFERS) return;
    const idx_params *p = &g->p;
    char why[256], a[32], b[32];
    if (f->all_obs == 0)
        snprintf(why, sizeof why, "no eligible observations");
    else
        snprintf(why, sizeof why,
                 "trades: %s GPU-hours from %ld providers (need %s from %d); offers: %ld "
                 "providers after the screen (need %d)",
                 gpi_fixed_format(gpi_div_round(f->trade_volume_micro, 10000), 2, a),
                 f->ts.n_providers, gpi_fixed_format(p->min_trade_volume_micro / 10000, 2, b),
                 p->min_providers, f->os.n_providers, p->min_providers);
    if (e->level == GPI_LEVEL_CARRIED)
        snprintf(out, n, "%s", why);
    else if (e->exhausted)
        snprintf(out, n, "%s; carried %d days already (max_carry_days)", why,
                 p->max_carry_days);
    else
        snprintf(out, n, "%s; no earlier value to carry", why);
}

/* ---- the constituents' band (design note 3) ------------------------------- */

/* Quantile qn/qd of sorted values v[0..n) with equal weights, in the
 * values' units doubled (a mean of two is exact). */
static int64_t equal_quantile2(const int64_t *v, size_t n, int qn, int qd)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i]) j++;
        __int128 lhs = (__int128)qd * (__int128)j, rhs = (__int128)qn * (__int128)n;
        if (lhs > rhs || (lhs == rhs && j == n)) return 2 * v[i];
        if (lhs == rhs) return v[i] + v[j];
        i = j;
    }
    return 2 * v[n - 1];
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static const int band_q[5][2] = {{1, 10}, {1, 4}, {1, 2}, {3, 4}, {9, 10}};

static gpi_status band_trades(idx_day *dy, size_t gi, const idx_grade *g, int64_t out[7],
                              gpi_diag *d)
{
    const idx_buf *tb = &dy->trades[gi];
    idx_buf *w = &dy->scratch;
    if (GPI_VEC_RESERVE(w->v, w->cap, tb->n) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    w->n = 0;
    int64_t lo = -1, hi = -1;
    for (size_t i = 0; i < tb->n; i++) {
        if (tb->v[i].reason != IDX_OK) continue;
        w->v[w->n++] = tb->v[i];
        if (lo < 0 || tb->v[i].price_micro < lo) lo = tb->v[i].price_micro;
        if (tb->v[i].price_micro > hi) hi = tb->v[i].price_micro;
    }
    if (w->n == 0) return GPI_OK;
    for (int k = 0; k < 5; k++) {
        int64_t q = 0;
        gpi_status rc = idx_weighted_quantile(w->v, w->n, g->p.cap_floor_e6, band_q[k][0],
                                              band_q[k][1], &q, d);
        if (rc != GPI_OK) return rc;
        out[k] = gpi_div_round(q, 4);
    }
    out[5] = lo;
    out[6] = hi;
    return GPI_OK;
}

/* Provider medians of the screened offers (dy's arrays are sorted by group
 * then price after the screen), doubled, sorted; times the adjustment. */
static gpi_status band_offers(idx_day *dy, size_t gi, int64_t adj_e6, int64_t out[7],
                              gpi_diag *d)
{
    const idx_buf *ob = &dy->offers[gi];
    int64_t *med = malloc((ob->n + 1) * sizeof *med);
    int64_t *px = malloc((ob->n + 1) * sizeof *px);
    if (!med || !px) {
        free(med);
        free(px);
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    }
    size_t np = 0;
    for (size_t i = 0; i < ob->n;) {
        size_t j = i, m = 0;
        while (j < ob->n && ob->v[j].group == ob->v[i].group) {
            if (ob->v[j].reason == IDX_OK) px[m++] = ob->v[j].price_micro;
            j++;
        }
        if (m > 0) med[np++] = m % 2 ? 2 * px[m / 2] : px[m / 2 - 1] + px[m / 2];
        i = j;
    }
    if (np > 0) {
        qsort(med, np, sizeof *med, cmp_i64);
        if (adj_e6 < 0) adj_e6 = 1000000;
        /* med in half-micro; a quantile in quarter-micro; x adj / 1e6 */
        for (int k = 0; k < 5; k++)
            out[k] = gpi_div_round((__int128)equal_quantile2(med, np, band_q[k][0], band_q[k][1]) *
                                       adj_e6,
                                   (__int128)4 * 1000000);
        out[5] = gpi_div_round((__int128)med[0] * adj_e6, (__int128)2 * 1000000);
        out[6] = gpi_div_round((__int128)med[np - 1] * adj_e6, (__int128)2 * 1000000);
    }
    free(med);
    free(px);
    return GPI_OK;
}

gpi_status idx_band(idx_day *dy, size_t gi, const idx_eval *e, int64_t out[7], gpi_diag *d)
{
    for (int i = 0; i < 7; i++) out[i] = -1;
    if (e->level == GPI_LEVEL_TRADES) return band_trades(dy, gi, &dy->gs->g[gi], out, d);
    if (e->level == GPI_LEVEL_OFFERS) return band_offers(dy, gi, e->adj_e6, out, d);
    return GPI_OK;
}

/* ---- v2 -------------------------------------------------------------------- */

static gpi_status v2_row(idx_day *dy, size_t gi, const idx_eval *e, const idx_v2eval *v,
                         store_index_row *r, gpi_diag *d)
{
    r->xs_value_e4 = e->level == GPI_LEVEL_SUSPENDED ? -1 : e->value_e4;
    r->xs_level = e->level;
    int64_t *sp[7] = {&r->p10_micro, &r->p25_micro, &r->p50_micro, &r->p75_micro,
                      &r->p90_micro, &r->min_micro, &r->max_micro};
    int64_t band[7];
    for (int i = 0; i < 7; i++) r->obs_spread[i] = *sp[i];
    gpi_status rc = idx_band(dy, gi, e, band, d);
    if (rc != GPI_OK) return rc;
    for (int i = 0; i < 7; i++) *sp[i] = band[i];
    r->level = v->level;
    r->value_e4 = v->level == GPI_LEVEL_SUSPENDED ? -1 : v->value_e4;
    r->carry_days = v->carry;
    r->chain_nano = v->level == GPI_LEVEL_SUSPENDED ? -1 : v->nano;
    r->relative_e12 = v->relative_e12;
    r->n_matched = v->n_matched;
    r->n_matched_providers = v->n_matched_providers;
    r->panel_change = v->panel_change;
    r->event = v->event;
    r->splice_e12 = v->splice_e12;
    r->ref_day = v->ref_day;
    r->panel_day = v->panel_day;
    r->matched_now_q = v->matched_now_q;
    r->matched_ref_q = v->matched_ref_q;
    r->chain_prev_nano = v->chain_prev;
    r->carry_prev = v->carry_prev;
    r->xs_carry = e->carry;
    snprintf(r->methodology, sizeof r->methodology, "v2");
    snprintf(r->note, sizeof r->note, "%s", v->note);
    return GPI_OK;
}

static gpi_status fix_row(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                          int64_t as_of, store_index_row *r, idx_eval *e, gpi_diag *d);

gpi_status idx_row_fix(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                       int64_t as_of, store_index_row *r, idx_eval *e, gpi_diag *d)
{
    gpi_status rc = fix_row(dy, gi, s, c, day, as_of, r, e, d);
    /* the roles (index/roles.c): the fix's exclusions, after it */
    if (rc == GPI_OK) idx_roles_excluded(&dy->roles, dy, gi);
    if (rc == GPI_OK && dy->roles.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (rc == GPI_OK) r->roles = dy->roles.p;
    return rc;
}

static gpi_status fix_row(idx_day *dy, size_t gi, idx_seq *s, idx_chain *c, int32_t day,
                          int64_t as_of, store_index_row *r, idx_eval *e, gpi_diag *d)
{
    idx_roles_begin(&dy->roles);
    if (s->g->method == 3 && c && c->v3) return idx_v3_row_fix(dy, gi, c, day, as_of, r, e, d);
    idx_fix f;
    gpi_status rc = idx_day_fix(dy, gi, &f, d);
    if (rc != GPI_OK) return rc;
    int v2 = s->g->method == 2 && c;
    /* what one participant could do (index/manip.c), from the states
     * before the day */
    idx_eval pe;
    idx_v2eval pv;
    idx_manip mp;
    idx_seq_peek(s, day, f.trades_raw_q, f.offers_raw_q, &pe);
    if (v2) rc = idx_snap_build(&c->cur, dy, gi, day, d);
    /* the roles' matched members: the day against the chain before it,
     * as publication used to replay it (index/roles.c note 1) */
    if (v2 && rc == GPI_OK) rc = idx_chain_match(c, day, d);
    if (v2 && rc == GPI_OK) idx_roles_matched(&dy->roles, c);
    if (v2 && rc == GPI_OK) rc = idx_chain_peek(c, day, &pe, 0, &pv, d);
    if (rc == GPI_OK) rc = idx_manip_day(dy, gi, s, v2 ? c : NULL, day, &f, &pe, v2 ? &pv : NULL,
                                         &mp, d);
    if (rc != GPI_OK) return rc;
    idx_seq_next(s, day, f.trades_raw_q, f.offers_raw_q, e);
    make_row(s->g, day, &f, e, as_of, r);
    manip_row(dy, &mp, r);
    v1_note(s->g, &f, e, r->note, sizeof r->note);
    if (!v2) return GPI_OK;
    idx_v2eval v;
    rc = idx_chain_step(c, day, e, r->note, &v, d);
    if (rc == GPI_OK) rc = v2_row(dy, gi, e, &v, r, d);
    if (rc == GPI_OK) rc = idx_chain_carried_json(c, &r->carried, d);
    if (rc == GPI_OK) idx_chain_detail(c, &r->ref_volumes, &r->anchor_window);
    return rc;
}
