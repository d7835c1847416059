/* verify/v3.c -- a methodology v3 row recomputed (METHODOLOGY.md §7, §13)
 * from the published files.
 *
 * NOTES ON THE DESIGN
 * (1) From the day's own files: the screen over every listed observation
 *     of the day (members' and candidates'), each line's role (used,
 *     excluded with the screen's reason, candidate with "not in the panel:
 *     present N of A days") from its group's role in index.json's
 *     v3.panel; the panel's fix -- members' observations of the day and
 *     imputed members' carried ones (imputed 1) -- with v1's statistics
 *     (idx_v3_stats_of: the counts, both raw values, the spread, the top
 *     share), the level, the adjustment (from adjustment_days), the value,
 *     the note; each group's median and volume in the fix and the panel's
 *     counts; the price index's step: each member's matched items (lines
 *     with matched 1: ln price - ln ref_price; its trades' representative
 *     price against trade_ref) and carried items (index_carried, as
 *     published), its capped log relative, the day's change, the log
 *     index, the published index and change; the composition gaps.
 * (2) Inputs from other days, when DIR has them: the day before's log
 *     index, value and panel (every member's and candidate's days present
 *     and absent move by one day: admission after admission_days days
 *     present, exit after absence_days + 1 days absent); an imputed
 *     member's carried observations against its used observations of the
 *     day it was last seen; each matched offer's ref_price against the
 *     last day within absence_days + 1 days that listed it as used or
 *     candidate; a trade's ref against its trade_ref_date; the month's base
 *     against the previous month's last day; a member's since (the day
 *     it joined, else the day before's) and the index's base_date (the
 *     day before's).  Days DIR lacks are listed
 *     (vchk_missing).  Not recomputed: a member's index_carried (it needs
 *     every member's items of the days before; it is 0 for the others,
 *     and it divides the member's relative), the manipulation figures.
 */
#include "verify/internal.h"
#include "core/vec.h"
#include "index/v3.h"

#include <stdlib.h>
#include <string.h>

#define E12 INT64_C(1000000000000)

typedef struct vgrp {
    const char *name;
    int role, present, absent, joined, capped;
    int32_t since, last_seen, trade_ref_day;
    int64_t median_e8, volume, trade_price_e8, trade_ref_e8, rel;
    long n_offers, n_trades, matched, carried;
} vgrp;

static int role_of(const char *s)
{
    for (int r = IDX_V3_MEMBER; r <= IDX_V3_LEFT; r++)
        if (s && strcmp(s, idx_v3_role_name(r)) == 0) return r;
    return -1;
}

static int is_member(int role)
{
    return role == IDX_V3_MEMBER || role == IDX_V3_IMPUTED;
}

/* index.json's v3.panel of row r into *out; a reason, or NULL. */
static const char *read_panel(json_t *v3, vgrp **out, size_t *n)
{
    static char why[160];
    json_t *a = json_object_get(v3, "panel");
    *out = NULL;
    *n = 0;
    if (!json_is_array(a)) return "v3.panel: missing";
    vgrp *g = calloc(json_array_size(a) + 1, sizeof *g);
    if (!g) return "out of memory";
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *x = json_array_get(a, i);
        vgrp *p = &g[i];
        const char *w = NULL;
        int64_t t = 0;
        p->name = vj_str(x, "group");
        p->role = role_of(vj_str(x, "role"));
        if (!p->name || p->role < 0) w = "no group or role";
        if (!w) w = vj_fixed(x, "present_days", 0, &t);
        p->present = (int)t;
        if (!w) w = vj_fixed(x, "absent_days", 0, &t);
        p->absent = (int)t;
        if (!w) w = vj_date(x, "since", &p->since);
        if (!w) w = vj_date(x, "last_seen", &p->last_seen);
        if (!w) w = vj_fixed(x, "offers_median", 8, &p->median_e8);
        if (!w) w = vj_fixed(x, "trade_volume", 6, &p->volume);
        if (!w) w = vj_fixed(x, "n_offers", 0, &t);
        p->n_offers = (long)t;
        if (!w) w = vj_fixed(x, "n_trades", 0, &t);
        p->n_trades = (long)t;
        if (!w) w = vj_fixed(x, "trade_price", 8, &p->trade_price_e8);
        if (!w) w = vj_fixed(x, "trade_ref", 8, &p->trade_ref_e8);
        if (!w) w = vj_date(x, "trade_ref_date", &p->trade_ref_day);
        if (!w) w = vj_fixed(x, "index_matched", 0, &t);
        p->matched = (long)t;
        if (!w) w = vj_fixed(x, "index_carried", 0, &t);
        p->carried = (long)t;
        if (!w) w = vj_signed(x, "index_relative", 12, &p->rel);
        p->joined = json_is_true(json_object_get(x, "joined"));
        p->capped = json_is_true(json_object_get(x, "capped"));
        if (!w && i > 0 && strcmp(g[i - 1].name, p->name) >= 0) w = "groups not in byte order";
        if (w) {
            snprintf(why, sizeof why, "v3.panel[%zu]: %s", i, w);
            free(g);
            return why;
        }
    }
    *out = g;
    *n = json_array_size(a);
    return NULL;
}

static vgrp *grp(vgrp *g, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(g[i].name, name) == 0) return &g[i];
    return NULL;
}

static int64_t pub(vchk *c, json_t *j, const char *key, int digits)
{
    int64_t v;
    const char *why = vj_fixed(j, key, digits, &v);
    if (why) {
        vchk_diff(c, 0, "index.json %s: %s", key, why);
        return -2;
    }
    return v;
}

static int64_t gap(int64_t v, int64_t v0, int64_t c_e12)
{
    if (v <= 0 || v0 <= 0 || c_e12 < 0) return INT64_MIN;
    return gpi_div_round((__int128)v * E12 - (__int128)c_e12 * v0, (__int128)v0 * 1000000);
}

static void num_signed(vchk *c, const char *field, int64_t published, int64_t recomputed,
                       int digits)
{
    if (published == recomputed) return;
    char a[40], b[40];
    if (published == INT64_MIN) snprintf(a, sizeof a, "none");
    else gpi_fixed_format(published, digits, a);
    if (recomputed == INT64_MIN) snprintf(b, sizeof b, "none");
    else gpi_fixed_format(recomputed, digits, b);
    vchk_diff(c, 0, "%s: published %s, recomputed %s", field, a, b);
}

/* ---- the day's own files (design note 1) -------------------------------------- */

typedef struct ctx {
    verify_dir *v;
    vday *dy;
    vrow *r;
    const idx_grade *g;
    vchk *c;
    json_t *v3;
    vgrp *gr;
    size_t ng;
    int level;
    int64_t value;
    long unobserved;            /* imputed members of a day with no member present */
} ctx;

/* The screen over the day's present lines of kind `kind`, and each line's
 * role against its group's. */
static gpi_status roles(ctx *x, int kind, gpi_diag *d)
{
    vday *dy = x->dy;
    vrow *r = x->r;
    vitems it = {0};
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < r->n_obs && rc == GPI_OK; i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        if (o->kind != kind || o->imputed == 1) continue;
        int gid = vitems_group(&it, o->group);
        int reason = IDX_EX_INELIGIBLE(o->reason) ? o->reason : IDX_OK;
        if (gid < 0 || GPI_VEC_RESERVE(it.v, it.cap, it.n + 1))
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        else
            it.v[it.n++] = (idx_item){o->price, o->qty < 0 ? 0 : o->qty, (uint64_t)r->obs[i],
                                      o->line, gid, reason};
    }
    double *work = malloc((2 * it.n + 2) * sizeof *work);
    if (rc == GPI_OK && !work) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (rc == GPI_OK) idx_screen(it.v, it.n, x->g->p.error_factor_e6, work);
    for (size_t i = 0; i < it.n && rc == GPI_OK && !vchk_failed(x->c); i++) {
        const vobs *o = &dy->obs[it.v[i].key_hash];
        const vgrp *p = grp(x->gr, x->ng, o->group);
        char want[160];
        const char *role;
        int reason = it.v[i].reason;
        if (reason != IDX_OK) {
            role = "excluded";
            snprintf(want, sizeof want, "%s", idx_reason_name(reason));
        } else if (p && p->role == IDX_V3_MEMBER) {
            role = "used";
            want[0] = '\0';
        } else {
            role = "candidate";
            snprintf(want, sizeof want, "not in the panel: present %d of %d days",
                     p ? p->present : 0, x->g->p.admission_days);
        }
        const char *got = o->used ? "used" : o->candidate ? "candidate" : "excluded";
        int status = IDX_EX_INELIGIBLE(o->reason);
        if (!status && (!p || (p->role != IDX_V3_MEMBER && p->role != IDX_V3_CANDIDATE)))
            vchk_diff(x->c, 0, "observations.csv:%ld group: %s is not listed in v3.panel as a "
                      "member or candidate", o->line, o->group);
        else if (strcmp(got, role) != 0 || strcmp(o->why ? o->why : "", want) != 0)
            vchk_diff(x->c, 0, "observations.csv:%ld role: published %s \"%s\", recomputed %s "
                      "\"%s\"", o->line, got, o->why ? o->why : "", role, want);
        else if (o->imputed != 0)
            vchk_diff(x->c, 0, "observations.csv:%ld imputed: not 0", o->line);
    }
    free(work);
    vitems_free(&it);
    return rc;
}

/* The panel's fix: members' present observations and imputed ones. */
static gpi_status fix(ctx *x, idx_v3_stats *st, gpi_diag *d)
{
    vday *dy = x->dy;
    vrow *r = x->r;
    vitems kt = {0}, ko = {0}; /* one group numbering: groups interned in kt */
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < r->n_obs && rc == GPI_OK && !vchk_failed(x->c); i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        vgrp *p = grp(x->gr, x->ng, o->group);
        if (o->imputed == 1) {
            if (!p || p->role != IDX_V3_IMPUTED || !o->used || x->unobserved) {
                vchk_diff(x->c, 0, "observations.csv:%ld imputed: 1 for a group not imputed in "
                          "v3.panel, or not used, or on a day with no member present",
                          o->line);
                break;
            }
        } else if (!p || p->role != IDX_V3_MEMBER) {
            continue;
        }
        vitems *k = o->kind == GPI_TRADE ? &kt : &ko;
        int gid = vitems_group(&kt, o->group);
        int reason = o->imputed == 1 ? IDX_OK : o->reason;
        if (gid < 0 || GPI_VEC_RESERVE(k->v, k->cap, k->n + 1))
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        else
            k->v[k->n++] = (idx_item){o->price, o->qty < 0 ? 0 : o->qty, (uint64_t)r->obs[i],
                                      o->line, gid, reason};
    }
    if (rc == GPI_OK && !vchk_failed(x->c)) {
        idx_sort_items(kt.v, kt.n, IDX_BY_GROUP_PRICE);
        idx_sort_items(ko.v, ko.n, IDX_BY_GROUP_PRICE);
        rc = idx_v3_stats_of(x->g, kt.v, kt.n, ko.v, ko.n, st, d);
    }
    /* each member's median and volume in the fix */
    for (size_t k = 0; k < x->ng && rc == GPI_OK && !vchk_failed(x->c); k++) {
        vgrp *p = &x->gr[k];
        if (!is_member(p->role)) continue;
        int gid = -1;
        for (size_t i = 0; i < kt.n_names; i++)
            if (strcmp(kt.names[i], p->name) == 0) gid = (int)i;
        long no = 0, nt = 0;
        int64_t vol = 0, px[2] = {0, 0};
        for (size_t i = 0; i < ko.n; i++) no += ko.v[i].group == gid && ko.v[i].reason == IDX_OK;
        size_t lo = no ? (size_t)(no - 1) / 2 : 0, hi = (size_t)no / 2, rk = 0;
        for (size_t i = 0; i < ko.n; i++) {
            if (ko.v[i].group != gid || ko.v[i].reason != IDX_OK) continue;
            if (rk == lo) px[0] = ko.v[i].price_micro;
            if (rk == hi) px[1] = ko.v[i].price_micro;
            rk++;
        }
        for (size_t i = 0; i < kt.n; i++)
            if (kt.v[i].group == gid && kt.v[i].reason == IDX_OK) nt++, vol += kt.v[i].qty_micro;
        char f[96];
        snprintf(f, sizeof f, "v3.panel.%s.offers_median", p->name);
        vchk_num(x->c, f, p->median_e8, no ? (px[0] + px[1]) * 50 : -1, 8);
        snprintf(f, sizeof f, "v3.panel.%s.trade_volume", p->name);
        vchk_num(x->c, f, p->volume, nt ? vol : -1, 6);
        snprintf(f, sizeof f, "v3.panel.%s.n_offers", p->name);
        vchk_int(x->c, f, p->n_offers, no);
        snprintf(f, sizeof f, "v3.panel.%s.n_trades", p->name);
        vchk_int(x->c, f, p->n_trades, nt);
    }
    vitems_free(&kt);
    vitems_free(&ko);
    return rc;
}

/* Level, value, adjustment and carry (v1's rules over the panel). */
static gpi_status value(ctx *x, const idx_v3_stats *st, idx_eval *e, gpi_diag *d)
{
    vchk *c = x->c;
    json_t *j = x->r->j;
    const idx_params *p = &x->g->p;
    gpi_status rc = GPI_OK;
    memset(e, 0, sizeof *e);
    e->value_e4 = e->adj_e6 = -1;
    int64_t pt = pub(c, j, "trades_raw", 8), po = pub(c, j, "offers_raw", 8);
    if (pt == -2 || po == -2) return GPI_OK;
    vchk_num(c, "trades_raw", pt, st->t_q > 0 ? st->t_q * 25 : -1, 8);
    vchk_num(c, "offers_raw", po, st->o_q > 0 ? st->o_q * 25 : -1, 8);
    if (st->t_q > 0) {
        e->level = GPI_LEVEL_TRADES;
        e->value_e4 = idx_value_e4(st->t_q, 1000000, p->rounding_e4);
    } else if (st->o_q > 0) {
        e->level = GPI_LEVEL_OFFERS;
        e->adj_e6 = vxs_adjustment(x->v, x->dy, x->r, x->g, c, d, &rc);
        if (rc != GPI_OK || e->adj_e6 == -2) return rc;
        e->value_e4 = idx_value_e4(st->o_q, e->adj_e6, p->rounding_e4);
    } else {
        int64_t carry = pub(c, j, "carry_days", 0);
        if (carry == -2) return GPI_OK;
        e->carry = (int)carry;
        e->level = carry > 0 ? GPI_LEVEL_CARRIED : GPI_LEVEL_SUSPENDED;
        e->exhausted = -1;
        vday *pd;
        rc = vday_get(x->v, x->dy->day - 1, &pd, d);
        if (rc != GPI_OK) return rc;
        vrow *pr = pd->present ? vday_row(pd, x->r->grade) : NULL;
        int64_t pv = -1, pc = 0;
        if (!pr) {
            vchk_missing(c, x->dy->day - 1, e->level == GPI_LEVEL_CARRIED ? "carried value" : "carry");
            if (e->level == GPI_LEVEL_CARRIED) e->value_e4 = pub(c, j, "value", 4);
        } else if (vj_fixed(pr->j, "value", 4, &pv) || vj_fixed(pr->j, "carry_days", 0, &pc)) {
            vchk_diff(c, 0, "value: %s/index.json unreadable", pd->path);
        } else if (e->level == GPI_LEVEL_CARRIED) {
            e->exhausted = 0;
            if (pv < 0 || pc >= p->max_carry_days)
                vchk_diff(c, 0, "level: carried, but the day before has %s",
                          pv < 0 ? "no value" : "been carried max_carry_days already");
            e->value_e4 = pv;
            vchk_int(c, "carry_days", (long)e->carry, (long)pc + 1);
        } else if (pv >= 0 && pc < p->max_carry_days) {
            vchk_diff(c, 0, "level: published suspended, recomputed carried (the day before has "
                      "a value)");
        } else {
            e->exhausted = pv >= 0;
        }
    }
    const char *lv = vj_str(j, "level");
    vchk_text(c, "level", lv ? lv : "", gpi_level_name(e->level));
    int64_t v = pub(c, j, "value", 4);
    if (v != -2) vchk_num(c, "value", v, e->value_e4, 4);
    if (e->level != GPI_LEVEL_CARRIED) {
        int64_t pc = pub(c, j, "carry_days", 0);
        if (pc != -2) vchk_int(c, "carry_days", (long)pc, 0);
    }
    int64_t adj = pub(c, j, "adjustment", 6);
    if (adj != -2) vchk_num(c, "adjustment", adj, e->level == GPI_LEVEL_OFFERS ? e->adj_e6 : -1, 6);
    x->level = e->level;
    x->value = e->level == GPI_LEVEL_SUSPENDED ? -1 : e->value_e4;
    return GPI_OK;
}

static void statistics(ctx *x, const idx_v3_stats *st, const idx_eval *e)
{
    vchk *c = x->c;
    json_t *j = x->r->j;
    long n_obs, n_ex, n_prov;
    const int64_t *sp = NULL;
    int64_t top = -1;
    if (e->level == GPI_LEVEL_TRADES) {
        n_obs = st->t_obs, n_ex = st->t_excl, n_prov = st->t_prov, sp = st->t_spread, top = st->t_top;
    } else if (e->level == GPI_LEVEL_OFFERS) {
        n_obs = st->o_obs, n_ex = st->o_excl, n_prov = st->o_prov, sp = st->o_spread, top = st->o_top;
    } else {
        n_obs = st->all_obs, n_ex = 0, n_prov = st->all_prov;
    }
    int64_t v;
    if ((v = pub(c, j, "n_obs", 0)) != -2) vchk_int(c, "n_obs", (long)v, n_obs);
    if ((v = pub(c, j, "n_excluded", 0)) != -2) vchk_int(c, "n_excluded", (long)v, n_ex);
    if ((v = pub(c, j, "n_providers", 0)) != -2) vchk_int(c, "n_providers", (long)v, n_prov);
    if ((v = pub(c, j, "trade_volume_gpu_hours", 2)) != -2)
        vchk_num(c, "trade_volume_gpu_hours", v, gpi_div_round(st->volume, 10000), 2);
    static const char *const names[7] = {"p10", "p25", "p50", "p75", "p90", "min", "max"};
    for (int i = 0; i < 7; i++)
        if ((v = pub(c, j, names[i], 6)) != -2) vchk_num(c, names[i], v, sp ? sp[i] : -1, 6);
    if ((v = pub(c, j, "top_provider_share", 6)) != -2) vchk_num(c, "top_provider_share", v, top, 6);
    long cand = 0, size = 0, imp = 0, change = 0;
    for (size_t k = 0; k < x->ng; k++) {
        cand += x->gr[k].role == IDX_V3_CANDIDATE;
        size += is_member(x->gr[k].role);
        imp += x->gr[k].role == IDX_V3_IMPUTED;
        change |= x->gr[k].joined || x->gr[k].role == IDX_V3_LEFT;
    }
    if ((v = pub(c, j, "panel_size", 0)) != -2) vchk_int(c, "panel_size", (long)v, size);
    if ((v = pub(c, j, "n_imputed", 0)) != -2) vchk_int(c, "n_imputed", (long)v, imp);
    if ((v = pub(c, j, "n_candidates", 0)) != -2) vchk_int(c, "n_candidates", (long)v, cand);
    vchk_int(c, "panel_change", json_is_true(json_object_get(j, "panel_change")), change);
    if (e->exhausted >= 0) {
        char note[400];
        idx_v3_note(x->g, st, e, cand, x->unobserved, note, sizeof note);
        const char *pn = vj_str(j, "note");
        vchk_text(c, "note", pn ? pn : "", note);
    }
}

/* ---- the price index (design notes 1 and 2) ------------------------------------ */

static gpi_status trade_rep(ctx *x, const char *group, int64_t *rep, long *n_used, gpi_diag *d)
{
    vday *dy = x->dy;
    vrow *r = x->r;
    idx_item *it = malloc((r->n_obs + 1) * sizeof *it);
    if (!it) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    size_t m = 0;
    *n_used = 0;
    for (size_t i = 0; i < r->n_obs; i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        if (o->kind != GPI_TRADE || o->imputed == 1 || strcmp(o->group, group) != 0) continue;
        if (!o->used && !o->candidate) continue;
        (*n_used)++;
        if (o->qty > 0) it[m++] = (idx_item){o->price, o->qty, (uint64_t)i, 0, 0, IDX_OK};
    }
    *rep = -1;
    gpi_status rc = m ? idx_weighted_median(it, m, 1000000, rep, d) : GPI_OK;
    free(it);
    return rc;
}

/* The last day within absence_days + 1 days before the day that listed
 * offer `key` as used or candidate: its price (micro), or -1 (*missing:
 * a day DIR lacks came first). */
static gpi_status last_price(ctx *x, const char *key, int64_t *price, int32_t *missing,
                             gpi_diag *d)
{
    *price = -1;
    *missing = INT32_MIN;
    for (int k = 1; k <= x->g->p.absence_days + 1; k++) {
        vday *kd;
        gpi_status rc = vday_get(x->v, x->dy->day - k, &kd, d);
        if (rc != GPI_OK) return rc;
        vrow *kr = kd->present ? vday_row(kd, x->r->grade) : NULL;
        if (!kr) {
            *missing = x->dy->day - k;
            return GPI_OK;
        }
        if ((rc = vday_obs(kd, d)) != GPI_OK) return rc;
        for (size_t i = 0; i < kr->n_obs; i++) {
            const vobs *o = &kd->obs[kr->obs[i]];
            if (o->kind == GPI_OFFER && o->imputed != 1 && (o->used || o->candidate) &&
                strcmp(o->key, key) == 0) {
                *price = o->price;
                return GPI_OK;
            }
        }
    }
    return GPI_OK;
}

static gpi_status index_step(ctx *x, gpi_diag *d)
{
    vchk *c = x->c;
    json_t *j = x->r->j, *ix = json_object_get(x->v3, "index");
    const idx_params *p = &x->g->p;
    gpi_status rc = GPI_OK;
    int64_t pi = -2, ch = -2;
    if (vj_fixed(j, "price_index", 6, &pi) || vj_fixed(j, "index_change", 12, &ch)) {
        vchk_diff(c, 0, "index.json price_index / index_change: not numbers");
        return GPI_OK;
    }
    if (json_is_null(ix) || !ix) {
        vchk_num(c, "price_index", pi, -1, 6);
        if (x->level == GPI_LEVEL_TRADES || x->level == GPI_LEVEL_OFFERS)
            vchk_diff(c, 0, "v3.index: none on a fixed day (the index starts on the first)");
        return GPI_OK;
    }
    int32_t base;
    int64_t log, prev, delta, providers;
    const char *w = vj_date(ix, "base_date", &base);
    if (!w) w = vj_signed(ix, "log", 12, &log);
    if (!w) w = vj_signed(ix, "log_prev", 12, &prev);
    if (!w) w = vj_signed(ix, "delta", 12, &delta);
    if (!w) w = vj_fixed(ix, "providers", 0, &providers);
    if (w) {
        vchk_diff(c, 0, "index.json v3.index: %s", w);
        return GPI_OK;
    }
    int ov = 0;
    if (prev == INT64_MIN) { /* the base day */
        if (base != x->dy->day || log != 0 || delta != INT64_MIN)
            vchk_diff(c, 0, "v3.index: no log_prev, but not the base day (base_date, log 0)");
        if (x->level != GPI_LEVEL_TRADES && x->level != GPI_LEVEL_OFFERS)
            vchk_diff(c, 0, "v3.index: the base day is not a fixed day");
        vchk_num(c, "price_index", pi, 100000000, 6);
        vchk_num(c, "index_change", ch, -1, 12);
        return GPI_OK;
    }
    /* every member's part (matched lines, carried as published) */
    int64_t lcap = idx_ln_e12(p->error_factor_e6) - idx_ln_e12(1000000);
    __int128 total = 0;
    long n = 0;
    for (size_t k = 0; k < x->ng && rc == GPI_OK && !vchk_failed(c); k++) {
        vgrp *g = &x->gr[k];
        int64_t sum = 0;
        long matched = 0;
        for (size_t i = 0; i < x->r->n_obs && !vchk_failed(c); i++) {
            const vobs *o = &x->dy->obs[x->r->obs[i]];
            if (o->kind != GPI_OFFER || o->imputed == 1 || strcmp(o->group, g->name) != 0) continue;
            if (o->matched != 1) {
                if (o->matched != 0 || o->ref_e8 >= 0 || o->rel_e12 >= 0)
                    vchk_diff(c, 0, "observations.csv:%ld matched: not 0 with empty ref_price and "
                              "relative", o->line);
                continue;
            }
            if (g->role != IDX_V3_MEMBER || !o->used || o->ref_e8 <= 0 || o->ref_e8 % 100) {
                vchk_diff(c, 0, "observations.csv:%ld matched: 1 for an observation outside the "
                          "panel's used ones, or without a ref_price in micro-USD", o->line);
                break;
            }
            int64_t ref = o->ref_e8 / 100;
            vchk_num(c, "relative", o->rel_e12, gpi_div_round((__int128)o->price * E12, ref), 12);
            sum += idx_ln_e12(o->price) - idx_ln_e12(ref);
            matched++;
            int64_t last;
            int32_t missing;
            rc = last_price(x, o->key, &last, &missing, d);
            if (rc != GPI_OK) break;
            if (missing != INT32_MIN)
                vchk_missing(c, missing, "index ref_price");
            else if (last != ref)
                vchk_diff(c, 0, "observations.csv:%ld ref_price: %lld micro-USD, but the last day "
                          "that listed the offer has %lld", o->line, (long long)ref, (long long)last);
        }
        if (vchk_failed(c) || rc != GPI_OK) break;
        /* its trade item */
        int64_t rep;
        long nu;
        if ((rc = trade_rep(x, g->name, &rep, &nu, d)) != GPI_OK) break;
        char f[96];
        snprintf(f, sizeof f, "v3.panel.%s.trade_price", g->name);
        vchk_num(c, f, g->trade_price_e8, rep > 0 ? rep * 25 : -1, 8);
        if (g->role == IDX_V3_MEMBER && rep > 0 && g->trade_ref_e8 > 0) {
            if (g->trade_ref_e8 % 25) vchk_diff(c, 0, "%s: trade_ref not in quarter micro-USD", f);
            sum += idx_ln_e12(rep) - idx_ln_e12(g->trade_ref_e8 / 25);
            matched++;
        }
        for (size_t i = 0; i < x->r->n_obs && !vchk_failed(c); i++) { /* the trade lines say so */
            const vobs *o = &x->dy->obs[x->r->obs[i]];
            if (o->kind != GPI_TRADE || o->imputed == 1 || strcmp(o->group, g->name) != 0 || !o->used)
                continue;
            int want = g->role == IDX_V3_MEMBER && rep > 0 && g->trade_ref_e8 > 0;
            if (o->matched != want || (want && o->ref_e8 != g->trade_ref_e8))
                vchk_diff(c, 0, "observations.csv:%ld matched: %d, recomputed %d (the group's "
                          "trade_ref)", o->line, o->matched, want);
        }
        if (!is_member(g->role)) { /* a candidate's items count for nobody */
            snprintf(f, sizeof f, "v3.panel.%s.index_matched", g->name);
            vchk_int(c, f, g->matched, 0);
            snprintf(f, sizeof f, "v3.panel.%s.index_carried", g->name);
            vchk_int(c, f, g->carried, 0);
            continue;
        }
        snprintf(f, sizeof f, "v3.panel.%s.index_matched", g->name);
        vchk_int(c, f, g->matched, matched);
        long m = matched + g->carried;
        int64_t rel = INT64_MIN;
        int capped = 0;
        if (m > 0 && !x->unobserved) { /* no member present: none counts (§13.5) */
            rel = gpi_div_round(sum, m);
            if (rel > lcap) rel = lcap, capped = 1;
            if (rel < -lcap) rel = -lcap, capped = 1;
            total += rel;
            n++;
        }
        snprintf(f, sizeof f, "v3.panel.%s.index_relative", g->name);
        num_signed(c, f, g->rel, rel, 12);
        snprintf(f, sizeof f, "v3.panel.%s.capped", g->name);
        vchk_int(c, f, g->capped, capped);
    }
    if (rc != GPI_OK || vchk_failed(c)) return rc;
    int64_t want_delta = n >= p->min_providers && n > 0 ? gpi_div_round(total, n) : 0;
    vchk_int(c, "v3.index.providers", (long)providers, n);
    num_signed(c, "v3.index.delta", delta, want_delta, 12);
    vchk_int(c, "v3.index.moved", json_is_true(json_object_get(ix, "moved")),
             n >= p->min_providers && n > 0);
    num_signed(c, "v3.index.log", log, prev + want_delta, 12);
    vchk_num(c, "price_index", pi, idx_exp_scaled(prev + want_delta, 100000000, &ov), 6);
    vchk_num(c, "index_change", ch, idx_exp_scaled(want_delta, E12, &ov), 12);
    /* the day before's log index */
    vday *pd;
    rc = vday_get(x->v, x->dy->day - 1, &pd, d);
    vrow *pr = rc == GPI_OK && pd->present ? vday_row(pd, x->r->grade) : NULL;
    if (rc == GPI_OK && !pr) vchk_missing(c, x->dy->day - 1, "log_prev");
    if (pr) {
        int64_t pl;
        json_t *pix = json_object_get(json_object_get(pr->j, "v3"), "index");
        if (vj_signed(pix, "log", 12, &pl)) pl = INT64_MIN;
        num_signed(c, "v3.index.log_prev", prev, pl, 12);
        /* the base stays where the index started */
        int32_t pb = INT32_MIN;
        if (vj_date(pix, "base_date", &pb)) pb = INT32_MIN;
        if (!vchk_failed(c) && pb != base) {
            char a[11] = "none", b[11];
            if (pb != INT32_MIN) gpi_date_format(pb, a);
            gpi_date_format(base, b);
            vchk_diff(c, 0, "v3.index.base_date: %s, but %s/index.json's is %s (the base is the "
                            "index's first day)", b, pd->path, a);
        }
    }
    return rc;
}

/* ---- the panel against the day before; carried observations ----------------------- */

static gpi_status panel_moves(ctx *x, gpi_diag *d)
{
    vchk *c = x->c;
    const idx_params *p = &x->g->p;
    int A = p->admission_days, K = p->absence_days;
    vday *pd;
    gpi_status rc = vday_get(x->v, x->dy->day - 1, &pd, d);
    if (rc != GPI_OK) return rc;
    vrow *pr = pd->present ? vday_row(pd, x->r->grade) : NULL;
    if (!pr) {
        vchk_missing(c, x->dy->day - 1, "panel");
        return GPI_OK;
    }
    vgrp *y = NULL;
    size_t ny = 0;
    const char *w = read_panel(json_object_get(pr->j, "v3"), &y, &ny);
    if (w) {
        vchk_diff(c, 0, "%s/index.json %s", pd->path, w);
        return GPI_OK;
    }
    /* today's from yesterday's, group by group (both lists by name) */
    for (size_t k = 0; k < x->ng && !vchk_failed(c); k++) {
        const vgrp *t = &x->gr[k], *b = grp(y, ny, t->name);
        int was_member = b && is_member(b->role);
        int streak = b && b->role != IDX_V3_LEFT && b->role != IDX_V3_IMPUTED ? b->present : 0;
        int absent = b && b->role == IDX_V3_IMPUTED ? b->absent : 0;
        int joins = !was_member && streak >= A;
        int present = t->role == IDX_V3_MEMBER || t->role == IDX_V3_CANDIDATE;
        int want;
        if (was_member || joins)
            want = present ? IDX_V3_MEMBER : (joins ? 0 : absent) + 1 <= K ? IDX_V3_IMPUTED
                                                                         : IDX_V3_LEFT;
        else
            want = present ? IDX_V3_CANDIDATE : IDX_V3_NONE;
        const char *why = NULL;
        if (t->role != want) why = "role";
        else if (t->joined != joins) why = "joined";
        else if (t->present != (present ? streak + 1 : 0)) why = "present_days";
        else if ((t->role == IDX_V3_IMPUTED || t->role == IDX_V3_LEFT) &&
                 t->absent != (joins ? 1 : absent + 1))
            why = "absent_days";
        /* a member's first day: the day it joined, kept while it stays */
        else if (t->since != (!is_member(t->role) ? INT32_MIN
                              : joins             ? x->dy->day
                                                  : b->since))
            why = "since";
        if (why)
            vchk_diff(c, 0, "v3.panel.%s.%s: does not follow from %s/index.json (%s there)",
                      t->name, why, pd->path, b ? idx_v3_role_name(b->role) : "not listed");
    }
    /* nobody vanishes: yesterday's members and candidates due to join are listed */
    for (size_t k = 0; k < ny && !vchk_failed(c); k++)
        if ((is_member(y[k].role) || (y[k].role == IDX_V3_CANDIDATE && y[k].present >= A)) &&
            !grp(x->gr, x->ng, y[k].name))
            vchk_diff(c, 0, "v3.panel: %s, a member (or due to join) on %s, is not listed",
                      y[k].name, pd->path);
    free(y);
    return GPI_OK;
}

static int same_line(const vobs *a, const vobs *b)
{
    return a->kind == b->kind && strcmp(a->key, b->key) == 0 && a->price == b->price &&
           a->qty == b->qty;
}

static gpi_status carried(ctx *x, gpi_diag *d)
{
    vchk *c = x->c;
    gpi_status rc = GPI_OK;
    for (size_t k = 0; k < x->ng && rc == GPI_OK && !vchk_failed(c) && !x->unobserved; k++) {
        const vgrp *t = &x->gr[k];
        if (t->role != IDX_V3_IMPUTED) continue;
        if (t->absent > x->g->p.absence_days || t->last_seen != x->dy->day - t->absent) {
            vchk_diff(c, 0, "v3.panel.%s: absent %d days, last seen %d days before", t->name,
                      t->absent, (int)(x->dy->day - t->last_seen));
            break;
        }
        vday *kd;
        rc = vday_get(x->v, t->last_seen, &kd, d);
        vrow *kr = rc == GPI_OK && kd->present ? vday_row(kd, x->r->grade) : NULL;
        if (rc == GPI_OK && kr) rc = vday_obs(kd, d);
        if (rc != GPI_OK) break;
        if (!kr) {
            vchk_missing(c, t->last_seen, "imputed observations");
            continue;
        }
        /* the same lines: today's imputed ones, that day's used ones */
        size_t a = 0, b = 0;
        for (size_t i = 0; i < x->r->n_obs; i++) {
            const vobs *o = &x->dy->obs[x->r->obs[i]];
            if (o->imputed != 1 || strcmp(o->group, t->name) != 0) continue;
            a++;
            int found = 0;
            for (size_t m = 0; m < kr->n_obs && !found; m++) {
                const vobs *q = &kd->obs[kr->obs[m]];
                found = (q->used || q->candidate) && q->imputed == 0 &&
                        strcmp(q->group, t->name) == 0 && same_line(o, q);
            }
            if (!found) {
                vchk_diff(c, 0, "observations.csv:%ld: imputed, but %s/observations.csv does not "
                          "list it as used (or as a candidate's, the day before it joined)",
                          o->line, kd->path);
                break;
            }
        }
        for (size_t m = 0; m < kr->n_obs; m++) {
            const vobs *q = &kd->obs[kr->obs[m]];
            b += (q->used || q->candidate) && q->imputed == 0 && strcmp(q->group, t->name) == 0;
        }
        if (!vchk_failed(c) && a != b)
            vchk_diff(c, 0, "v3.panel.%s: %zu imputed observations, %zu used on %s", t->name, a,
                      b, kd->path);
    }
    return rc;
}

/* The composition gaps and their inputs from other days. */
static gpi_status gaps(ctx *x, gpi_diag *d)
{
    vchk *c = x->c;
    json_t *j = x->r->j;
    int64_t vp, g1, g2, ch;
    const char *w = vj_fixed(x->v3, "value_prev", 4, &vp);
    if (!w) w = vj_signed(j, "composition_gap", 6, &g1);
    if (!w) w = vj_signed(j, "composition_gap_month", 6, &g2);
    if (!w) w = vj_fixed(j, "index_change", 12, &ch);
    if (w) {
        vchk_diff(c, 0, "index.json composition gap: %s", w);
        return GPI_OK;
    }
    num_signed(c, "composition_gap", g1, ch >= 0 ? gap(x->value, vp, ch) : INT64_MIN, 6);
    json_t *m = json_object_get(x->v3, "month");
    int32_t mday;
    int64_t mv, ml, pl;
    w = vj_date(m, "date", &mday);
    if (!w) w = vj_fixed(m, "value", 4, &mv);
    if (!w) w = vj_signed(m, "log", 12, &ml);
    json_t *ix = json_object_get(x->v3, "index");
    if (!w && ix && !json_is_null(ix)) w = vj_signed(ix, "log", 12, &pl);
    else pl = INT64_MIN;
    if (w) {
        vchk_diff(c, 0, "index.json v3.month: %s", w);
        return GPI_OK;
    }
    int y, mo, dd;
    gpi_civil_from_days(x->dy->day, &y, &mo, &dd);
    if (mday != gpi_days_from_civil(y, mo, 1) - 1)
        vchk_diff(c, 0, "v3.month.date: not the last day of the month before");
    int ov = 0;
    int64_t want = INT64_MIN;
    if (mv > 0 && ml != INT64_MIN && pl != INT64_MIN && x->value > 0) {
        int64_t cm = idx_exp_scaled(pl - ml, E12, &ov);
        if (!ov) want = gap(x->value, mv, cm);
    }
    num_signed(c, "composition_gap_month", g2, want, 6);
    /* the inputs: the day before's value, the month's base */
    int32_t days[2] = {x->dy->day - 1, mday};
    for (int k = 0; k < 2 && !vchk_failed(c); k++) {
        if (k == 1 && (mday == x->dy->day - 1 || (mv < 0 && ml == INT64_MIN))) continue;
        vday *kd;
        gpi_status rc = vday_get(x->v, days[k], &kd, d);
        if (rc != GPI_OK) return rc;
        vrow *kr = kd->present ? vday_row(kd, x->r->grade) : NULL;
        if (!kr) {
            vchk_missing(c, days[k], k ? "month base" : "value_prev");
            continue;
        }
        int64_t kv, kl = INT64_MIN;
        if (vj_fixed(kr->j, "value", 4, &kv)) kv = -2;
        json_t *kix = json_object_get(json_object_get(kr->j, "v3"), "index");
        if (kix && !json_is_null(kix) && vj_signed(kix, "log", 12, &kl)) kl = INT64_MIN;
        vchk_num(c, k ? "v3.month.value" : "v3.value_prev", k ? mv : vp, kv, 4);
        if (k) num_signed(c, "v3.month.log", ml, kl, 12);
        if (!k && mday == x->dy->day - 1) {
            vchk_num(c, "v3.month.value", mv, kv, 4);
            num_signed(c, "v3.month.log", ml, kl, 12);
        }
    }
    return GPI_OK;
}

gpi_status vv3_check(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, vchk *c, gpi_diag *d)
{
    for (size_t i = 0; i < r->n_obs; i++)
        if (dy->obs[r->obs[i]].bad) {
            vchk_diff(c, 0, "%s", dy->obs[r->obs[i]].bad);
            return GPI_OK;
        }
    if (dy->format < 4) {
        vchk_diff(c, 0, "a v3 row in file format %d (v3 needs 4)", dy->format);
        return GPI_OK;
    }
    ctx x = {v, dy, r, g, c, json_object_get(r->j, "v3"), NULL, 0, 0, -1, 0};
    const char *w = read_panel(x.v3, &x.gr, &x.ng);
    if (w) {
        vchk_diff(c, 0, "index.json %s", w);
        return GPI_OK;
    }
    /* METHODOLOGY.md §13.2 item 3: imputed members complete a panel with a
     * member present; alone they are no fix */
    int any_member = 0;
    for (size_t k = 0; k < x.ng; k++) {
        any_member |= x.gr[k].role == IDX_V3_MEMBER;
        x.unobserved += x.gr[k].role == IDX_V3_IMPUTED;
    }
    if (any_member) x.unobserved = 0;
    gpi_status rc = roles(&x, GPI_OFFER, d);
    if (rc == GPI_OK && !vchk_failed(c)) rc = roles(&x, GPI_TRADE, d);
    idx_v3_stats st;
    idx_eval e;
    if (rc == GPI_OK && !vchk_failed(c)) rc = fix(&x, &st, d);
    if (rc == GPI_OK && !vchk_failed(c)) rc = value(&x, &st, &e, d);
    if (rc == GPI_OK && !vchk_failed(c)) statistics(&x, &st, &e);
    if (rc == GPI_OK && !vchk_failed(c)) rc = index_step(&x, d);
    if (rc == GPI_OK && !vchk_failed(c)) rc = gaps(&x, d);
    if (rc == GPI_OK && !vchk_failed(c)) rc = panel_moves(&x, d);
    if (rc == GPI_OK && !vchk_failed(c)) rc = carried(&x, d);
    free(x.gr);
    return rc;
}
