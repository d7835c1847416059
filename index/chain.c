/* index/chain.c -- methodology v2: matched changes, chained value,
 * rebalances (METHODOLOGY.md §10).
 *
 * NOTES ON THE DESIGN
 * (1) A grade-day's *constituents* are what v1 lets into the day's
 *     statistics after the eligibility rules and the error screen: each
 *     screened offer (identity = the store key: source x identity text,
 *     i.e. provider x sku x region x scope x term for keys built from the
 *     row) with its price, and each provider group's representative trade
 *     price (the volume-weighted median of its screened trades, quarter-
 *     micro) with its volume.  idx_snap holds them sorted by key (offers)
 *     and group hash (trades).
 * (2) The anchor day's constituents are the *panel* (c->base): new
 *     constituents are admitted at anchors only, and each panel member's
 *     anchor price is its *base*.  The value moves only by constituents
 *     of the panel present on both the day and the previous fixed day
 *     (ref): the *matched sample* M.  Each matched constituent gives two
 *     relatives to its base, p_day / p_base and p_ref / p_base (1e-12,
 *     half-up); the day's relative is S(now) / S(ref), where S is the v1
 *     statistic applied to those relatives over M: offers, the median of
 *     provider medians (one vote per provider); trades, the volume-weighted
 *     median with the v1 provider cap (each day's own volumes).  So
 *     - a provider or SKU appearing, leaving or coming back moves nothing
 *       (M is the same set on both days), and no single provider decides;
 *     - while M stays the same the chain telescopes: the value is the
 *       anchor times S(day)/S(anchor), the panel's median change since the
 *       anchor -- day-to-day noise in trade prices does not accumulate;
 *     - relatives to base put every provider on one scale, so a change of
 *       M shifts S only by the dispersion of the providers' *changes*, not
 *       of their price levels (neoclouds list at a third of hyperscalers).
 *     Measured on the demo year (H100 gold, against the simulator's true
 *     market level): a median of day-on-day relatives drifted (level
 *     tracking error 4.1 %), a ratio of matched medians of raw prices too
 *     (4.0 %); relatives to base track like the cross-section does
 *     (METHODOLOGY.md §10.4).
 * (3) The chain is re-anchored to the cross-section statistic (the v1
 *     value of the same day) at pre-announced rebalances: the first day of
 *     each rebalance period (default: every month) on which the
 *     cross-section is fixed at the trades or offers level; the splice
 *     factor (anchor / the value the chain would have had) is published.
 *     It also starts on the first fixed cross-section when it has no value
 *     and re-anchors ("reanchor") when no matched relative has been
 *     possible for more than max_carry_days days while the cross-section
 *     is fixed.
 * (4) Exact arithmetic: prices are integers (micro or quarter-micro),
 *     relatives integers in 1e-12, the statistics S in quarter units of
 *     1e-12 (a median of medians), the chain an integer in nano-USD; every
 *     division rounds half-up once (gpi_div_round).  Nothing here uses
 *     binary floating point, so an independent implementation with
 *     integers or fractions reproduces every digit (tests/ref/ref_index.py).
 * (5) A relative outside [1e-6, 1e6] (a price that moved a million-fold)
 *     is left out of the matching as implausible; the chain is bounded by
 *     int64 nano-USD and a move past it is an error, never a wrap.
 * Nothing here reads the store: build.c, evaluate.c and publication feed
 * it days in ascending order.
 *
 * Three files: chain.c the chain's state and its step (a day decided --
 * change, anchor, carry or suspension -- then committed, or only peeked
 * at); chain_rel.c the matched relatives and an anchor's value (notes 2-5);
 * chain_detail.c the text a v2 row shows besides its value and a
 * constituent's match for observations.csv.
 */
#include "index/chain.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

#define E12 INT64_C(1000000000000)

const char *idx_event_name(int ev)
{
    switch (ev) {
    case IDX_EVENT_START: return "start";
    case IDX_EVENT_REBALANCE: return "rebalance";
    case IDX_EVENT_REANCHOR: return "reanchor";
    default: return "";
    }
}

int32_t idx_period_start(int32_t day, int months)
{
    int y, m, dd;
    gpi_civil_from_days(day, &y, &m, &dd);
    if (months < 1) months = 1;
    m = (m - 1) / months * months + 1;
    return gpi_days_from_civil(y, m, 1);
}

int32_t idx_v2_first_day(const idx_grade *g, int32_t from)
{
    /* an anchor reads anchor_days - 1 days back; the trading providers
     * present on a reset day (panel_change) trade_carry_days */
    int back = g->p.anchor_days - 1 > g->p.trade_carry_days ? g->p.anchor_days - 1
                                                             : g->p.trade_carry_days;
    return idx_period_start(from - 1 - g->p.max_carry_days, g->p.rebalance_months) - back;
}

/* ---- the chain --------------------------------------------------------------- */

gpi_status idx_chain_init(idx_chain *c, const idx_grade *g)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->last_day = c->anchor_day = c->ref_day = c->reset_day = INT32_MIN;
    if (g->method == 3) /* v3's state in the chain's place (chain.h) */
        return (c->v3 = idx_v3_new(g)) ? GPI_OK : GPI_ENOMEM;
    int w = g->p.anchor_days;
    if (w > 1) {
        c->hist = calloc((size_t)w, sizeof *c->hist);
        c->est = malloc(2 * (size_t)w * sizeof *c->est); /* the estimates, a sorted copy */
        c->win = calloc((size_t)w, sizeof *c->win);
        if (!c->hist || !c->est || !c->win) return GPI_ENOMEM;
        for (int i = 0; i < w; i++) c->hist[i].day = INT32_MIN;
    }
    return GPI_OK;
}

static void free_names(idx_chain *c)
{
    for (size_t i = 0; i < c->n_mem[1]; i++) free(c->mem[1][i].name);
    c->n_mem[1] = 0;
}

void idx_chain_free(idx_chain *c)
{
    free_names(c);
    idx_snap_free(&c->cur);
    idx_snap_free(&c->prev);
    free(c->mem[0]);
    free(c->mem[1]);
    free(c->w);
    free(c->witems);
    free(c->grel);
    idx_loo_free(&c->loo);
    free(c->act);
    free(c->act_now);
    free(c->prev_act);
    free(c->carried);
    for (int i = 0; c->hist && i < c->g->p.anchor_days; i++) idx_snap_free(&c->hist[i].snap);
    free(c->hist);
    free(c->est);
    free(c->win);
    free(c->refvol);
    free(c->window);
    idx_v3_free(c->v3);
    free(c->v3_json);
    free(c->v3_detail);
    memset(c, 0, sizeof *c);
}

static void chain_drop(idx_chain *c)
{
    free_names(c);
    c->has = 0;
    c->carry = 0;
    c->anchor_day = c->ref_day = INT32_MIN;
    c->n_mem[0] = c->n_mem[1] = 0;
    c->prev.no = c->prev.nt = 0;
    c->nprev_act = 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The trading providers active on `day` (sorted in c->act_now): those
 * that traded that day or within trade_carry_days before it. */
static gpi_status active_now(idx_chain *c, int32_t day, gpi_diag *d)
{
    if (GPI_VEC_RESERVE(c->act_now, c->cap_act_now, c->nact + c->cur.nt + 1))
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < c->cur.nt; i++) c->act_now[n++] = c->cur.t[i].key;
    for (size_t i = 0; i < c->nact; i++)
        if (day - c->act[i].day <= c->g->p.trade_carry_days) c->act_now[n++] = c->act[i].group;
    if (n > 1) qsort(c->act_now, n, sizeof *c->act_now, cmp_u64);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || c->act_now[w - 1] != c->act_now[i]) c->act_now[w++] = c->act_now[i];
    c->nact_now = w;
    return GPI_OK;
}

/* Records the day's trading providers (every day). */
static gpi_status note_trading(idx_chain *c, int32_t day, gpi_diag *d)
{
    for (size_t i = 0; i < c->cur.nt; i++) {
        size_t k = 0;
        while (k < c->nact && c->act[k].group != c->cur.t[i].key) k++;
        if (k == c->nact) {
            if (GPI_VEC_RESERVE(c->act, c->cap_act, c->nact + 1))
                return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
            c->nact++;
        }
        c->act[k] = (idx_active){c->cur.t[i].key, day};
    }
    return GPI_OK;
}

/* 1 when a constituent entered or left since the previous fixed day: an
 * offer identity, or an active trading provider (all constituents,
 * members of the panel or not); and on a day without observations after
 * a fixed day with some, whatever trade carry keeps present (§10.6).
 * Needs active_now(). */
static int panel_changed(const idx_chain *c)
{
    const idx_snap *prev = &c->prev, *cur = &c->cur;
    if (cur->no == 0 && cur->nt == 0 && (prev->no > 0 || prev->nt > 0)) return 1;
    if (prev->no != cur->no || c->nprev_act != c->nact_now) return 1;
    for (size_t i = 0; i < cur->no; i++)
        if (prev->o[i].key != cur->o[i].key) return 1;
    for (size_t i = 0; i < c->nact_now; i++)
        if (c->prev_act[i] != c->act_now[i]) return 1;
    return 0;
}

/* The panel from the day's constituents (an anchor): every constituent
 * is a member, its price the base, the reference and the last seen. */
static gpi_status panel_from(idx_chain *c, const idx_snap *s, int32_t day, gpi_diag *d)
{
    const idx_const *src[2] = {s->o, s->t};
    size_t n[2] = {s->no, s->nt};
    free_names(c);
    c->n_mem[1] = 0;
    for (int k = 0; k < 2; k++) {
        if (GPI_VEC_RESERVE(c->mem[k], c->cap_mem[k], n[k] + 1))
            return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        for (size_t i = 0; i < n[k]; i++) {
            const idx_const *x = &src[k][i];
            c->mem[k][i] = (idx_member){.key = x->key, .group = x->group, .base = x->price,
                                        .last = x->price, .last_vol = x->volume,
                                        .last_day = day, .ref = x->price,
                                        .ref_vol = x->volume, .now = x->price,
                                        .now_vol = x->volume, .seen = 1};
            if (k == 1 && !(c->mem[k][i].name = strdup(x->name ? x->name : "")))
                return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
            c->n_mem[k] = i + 1;
        }
        c->n_mem[k] = n[k];
    }
    return GPI_OK;
}

/* The day's price of every member (design note 6): offers, seen today or
 * none (-1); trading groups, seen today or their last representative
 * price seen within trade_carry_days days, or none. */
static void prepare(idx_chain *c, int32_t day)
{
    const idx_const *src[2] = {c->cur.o, c->cur.t};
    size_t n[2] = {c->cur.no, c->cur.nt};
    int carry[2] = {0, c->g->p.trade_carry_days};
    for (int k = 0; k < 2; k++) {
        size_t j = 0;
        for (size_t i = 0; i < c->n_mem[k]; i++) {
            idx_member *m = &c->mem[k][i];
            while (j < n[k] && src[k][j].key < m->key) j++;
            if (j < n[k] && src[k][j].key == m->key) {
                m->now = src[k][j].price;
                m->now_vol = src[k][j].volume;
                m->seen = 1;
            } else if (m->last_day != INT32_MIN && day - m->last_day <= carry[k]) {
                m->now = m->last;
                m->now_vol = m->last_vol;
                m->seen = 0;
            } else {
                m->now = -1;
                m->seen = 0;
            }
        }
    }
}

static int64_t value_of(int64_t nano, int64_t step_e4)
{
    return gpi_div_round(nano, (__int128)100000 * step_e4) * step_e4;
}

/* Moves nano by rel (1e-12); -1 on overflow. */
static int64_t apply(int64_t nano, int64_t rel)
{
    __int128 x = (__int128)nano * rel;
    if (x / E12 > INT64_MAX / 2) return -1;
    return gpi_div_round(x, E12);
}


/* What day would give (design notes 2-3), without changing the chain's
 * state but the members' day prices; constituents of group *exclude (when
 * not NULL) are left out of the matching (leave-one-provider-out).  xs is
 * the day's cross-section evaluation (computed without that group too, by
 * the caller). */
static gpi_status decide(idx_chain *c, int32_t day, const idx_eval *xs, const char *xs_note,
                         const uint64_t *exclude, idx_v2eval *out, gpi_diag *d)
{
    const idx_params *p = &c->g->p;
    gpi_status rc = GPI_OK;
    memset(out, 0, sizeof *out);
    out->relative_e12 = out->splice_e12 = -1;
    out->value_e4 = out->nano = -1;
    out->matched_now_q = out->matched_ref_q = -1;
    out->ref_day = out->panel_day = INT32_MIN;
    int has = c->has && c->last_day == day - 1; /* days must come in a row */
    int xs_fixed = xs->level == GPI_LEVEL_TRADES || xs->level == GPI_LEVEL_OFFERS;
    int64_t rel = -1, rel_t = -1, rel_o = -1, tn = -1, tr = -1, on = -1, or_ = -1;
    long nm_o = 0, np_o = 0, nm_t = 0;
    out->chain_prev = has ? c->nano : -1;
    out->carry_prev = has ? c->carry : 0;
    if (c->loo.on && c->loo.day != day) c->loo.on = 0; /* another day's sample */
    if (has) {
        out->ref_day = c->ref_day;
        out->panel_day = c->anchor_day;
        if ((rc = active_now(c, day, d)) != GPI_OK) return rc;
        out->panel_change = panel_changed(c);
        prepare(c, day);
        rel_t = idx_chain_trades_relative(c, exclude, &nm_t, &tn, &tr, d, &rc);
        if (rc == GPI_OK)
            rel_o = idx_chain_offers_relative(c, exclude, &nm_o, &np_o, &on, &or_, d, &rc);
        if (rc != GPI_OK) return rc;
        rel = rel_t > 0 ? rel_t : rel_o;
        out->n_matched = rel_t > 0 ? nm_t : nm_o;
        out->n_matched_providers = rel_t > 0 ? nm_t : np_o;
        if (rel > 0) {
            out->relative_e12 = rel;
            out->matched_now_q = rel_t > 0 ? tn : on;
            out->matched_ref_q = rel_t > 0 ? tr : or_;
        }
    }
    int due = has && c->anchor_day < idx_period_start(day, p->rebalance_months);
    if (xs_fixed && has && due)
        out->event = IDX_EVENT_REBALANCE;
    else if (xs_fixed && !has)
        out->event = IDX_EVENT_START;
    else if (xs_fixed && has && rel <= 0 && c->carry >= p->max_carry_days)
        out->event = IDX_EVENT_REANCHOR;
    if (out->event) {
        out->nano = idx_chain_anchor_value(c, day, xs->value_e4, exclude, d, &rc);
        if (rc != GPI_OK) return rc;
        out->value_e4 = p->anchor_days > 1 ? value_of(out->nano, p->rounding_e4) : xs->value_e4;
        out->level = xs->level;
        if (has) {
            int64_t cand = rel > 0 ? apply(c->nano, rel) : c->nano;
            if (cand > 0) out->splice_e12 = gpi_div_round((__int128)out->nano * E12, cand);
        }
    } else if (has && rel > 0) {
        out->nano = apply(c->nano, rel);
        if (out->nano < 0) {
            char date[11];
            gpi_date_format(day, date);
            return gpi_diag_set(d, GPI_EMATH, "%s: grade %s: the chained value overflows",
                                date, c->g->id);
        }
        out->value_e4 = value_of(out->nano, p->rounding_e4);
        out->level = rel_t > 0 ? GPI_LEVEL_TRADES : GPI_LEVEL_OFFERS;
    } else if (has && c->carry < p->max_carry_days) {
        out->nano = c->nano;
        out->value_e4 = c->value_e4;
        out->level = GPI_LEVEL_CARRIED;
        out->carry = c->carry + 1;
        if (c->cur.no + c->cur.nt == 0)
            snprintf(out->note, sizeof out->note, "no eligible observations to match");
        else
            snprintf(out->note, sizeof out->note,
                     "no matched change: %ld of the panel's providers priced on both days "
                     "(need %d)",
                     nm_t > np_o ? nm_t : np_o, p->min_providers);
    } else {
        out->level = GPI_LEVEL_SUSPENDED;
        if (has)
            snprintf(out->note, sizeof out->note,
                     "carried %d days (max_carry_days) and the cross-section has no fix: %s",
                     c->carry, xs_note && *xs_note ? xs_note : "no data");
        else
            snprintf(out->note, sizeof out->note, "%s",
                     xs_note && *xs_note ? xs_note : "no data");
    }
    return GPI_OK;
}

/* Advances c past day by the outcome (level, event) of decide(): the
 * members' day prices were set by prepare() (has) or come from c->cur
 * (an anchor). */
static gpi_status commit(idx_chain *c, int32_t day, int level, int event, int64_t nano,
                         int64_t value_e4, int carry, int64_t xs_e4, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    c->loo.on = 0; /* the day's sample is no longer the chain's */
    c->last_day = day;
    if (c->hist) { /* every day, whatever happens to the chain */
        idx_hist *h = &c->hist[(uint32_t)day % (uint32_t)c->g->p.anchor_days];
        h->day = day;
        h->xs_e4 = xs_e4;
        if ((rc = idx_snap_copy(&h->snap, &c->cur, d)) != GPI_OK) return rc;
    }
    if ((rc = active_now(c, day, d)) != GPI_OK || (rc = note_trading(c, day, d)) != GPI_OK)
        return rc;
    if (level == GPI_LEVEL_SUSPENDED) {
        chain_drop(c);
        c->reset_day = day;
        return GPI_OK;
    }
    if (event) {
        if ((rc = panel_from(c, &c->cur, day, d)) != GPI_OK) return rc;
        c->anchor_day = c->ref_day = c->reset_day = day;
    } else {
        int fixed = level == GPI_LEVEL_TRADES || level == GPI_LEVEL_OFFERS;
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < c->n_mem[k]; i++) {
                idx_member *m = &c->mem[k][i];
                if (fixed) {
                    m->ref = m->now;
                    m->ref_vol = m->now_vol;
                }
                if (m->seen) {
                    m->last = m->now;
                    m->last_vol = m->now_vol;
                    m->last_day = day;
                }
            }
        if (fixed) c->ref_day = day;
        if (!fixed) goto keep_prev;
    }
    if ((rc = idx_snap_copy(&c->prev, &c->cur, d)) != GPI_OK) return rc;
    if (GPI_VEC_RESERVE(c->prev_act, c->cap_prev_act, c->nact_now + 1))
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    if (c->nact_now) memcpy(c->prev_act, c->act_now, c->nact_now * sizeof *c->act_now);
    c->nprev_act = c->nact_now;
keep_prev:
    c->has = 1;
    c->nano = nano;
    c->value_e4 = value_e4;
    c->carry = carry;
    return GPI_OK;
}

gpi_status idx_chain_step(idx_chain *c, int32_t day, const idx_eval *xs, const char *xs_note,
                          idx_v2eval *out, gpi_diag *d)
{
    gpi_status rc = decide(c, day, xs, xs_note, NULL, out, d);
    if (rc == GPI_OK) rc = idx_chain_detail_json(c, out, d);
    if (rc == GPI_OK) rc = idx_chain_carried_text(c, out->chain_prev >= 0, d);
    if (rc == GPI_OK)
        rc = commit(c, day, out->level, out->event, out->nano, out->value_e4, out->carry,
                    xs->level == GPI_LEVEL_TRADES || xs->level == GPI_LEVEL_OFFERS ? xs->value_e4
                                                                                  : -1,
                    d);
    return rc;
}

gpi_status idx_chain_peek(idx_chain *c, int32_t day, const idx_eval *xs, uint64_t exclude,
                          idx_v2eval *out, gpi_diag *d)
{
    return decide(c, day, xs, NULL, exclude ? &exclude : NULL, out, d);
}

gpi_status idx_chain_loo_begin(idx_chain *c, int32_t day, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    long nm, np;
    int64_t a, b;
    c->loo.on = 0;
    if (!c->has || c->last_day != day - 1) return GPI_OK; /* decide() matches nothing */
    prepare(c, day);
    c->loo.record = 1;
    idx_chain_offers_relative(c, NULL, &nm, &np, &a, &b, d, &rc);
    c->loo.record = 0;
    c->loo.on = rc == GPI_OK;
    c->loo.day = day;
    return rc;
}

void idx_chain_loo_end(idx_chain *c)
{
    c->loo.on = 0;
}

/* ---- publication detail ------------------------------------------------------ */

gpi_status idx_chain_match(idx_chain *c, int32_t day, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    long nm, np;
    int64_t a, b;
    if (!c->has) return GPI_OK;
    prepare(c, day);
    idx_chain_trades_relative(c, NULL, &nm, &a, &b, d, &rc);
    if (rc == GPI_OK) idx_chain_offers_relative(c, NULL, &nm, &np, &a, &b, d, &rc);
    return rc;
}
