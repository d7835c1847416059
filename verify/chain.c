/* verify/chain.c -- a methodology v2 row recomputed (METHODOLOGY.md §7,
 * §10): matched sample, relative, chain, event, anchor value, splice,
 * notes; and the inputs the day took from other days.
 *
 * NOTES ON THE DESIGN
 * (1) The day's own files hold everything the step from the day before
 *     needs: observations.csv marks the matched constituents with their
 *     reference and base prices, index.json lists the carried trades, the
 *     matched trading members' volumes on the reference day (ref_volumes),
 *     the chain and carry of the day before (chain_prev, carry_prev) and,
 *     on an anchor day, the anchor's window (each earlier day's
 *     cross-section, the change of the day's constituents since then and
 *     the estimate).  So the relative, the chain, the value, the event and
 *     the splice are recomputed from the day alone.
 * (2) Each of those inputs is then checked against the day it comes from
 *     when DIR has it: chain_prev and carry_prev against the day before's
 *     chain_raw and carry_days; reference prices and volumes against the
 *     reference day's constituents (or its carried trades); base prices
 *     against the panel day's constituents; carried trades against the
 *     day they were last seen; the window's cross-sections against those
 *     days' xs_value and each change recomputed from both days'
 *     constituents (§10.4).  A day DIR does not have is listed
 *     (vchk_missing): "anchor not verifiable without DIR/<day>" for the
 *     window.
 * (3) Constituents of a day (from its observations.csv): each used offer
 *     (by key, the identity hash) with its price, and each provider
 *     group's representative trade price (volume-weighted median of its
 *     used trades, no cap; quarter-micro) with its volume.
 * (4) Not recomputed: panel_change (it needs the constituents of the
 *     previous fixed day and the trading activity of the days before it).
 * (5) The sample's rules of §10.3 are checked as the file states the
 *     sample: a matched member whose price moved by more than
 *     error_factor since the reference day is a difference (the method
 *     leaves it out), and the trades relative qualifies on the members
 *     that traded on the day itself only (carried ones enter S but never
 *     make it qualify).
 */
#include "verify/internal.h"

#include <stdlib.h>
#include <string.h>

#define E12 INT64_C(1000000000000)
#define REL_MIN INT64_C(1000000)
#define REL_MAX INT64_C(1000000000000000000)

static int64_t ratio_e12(int64_t now, int64_t ref)
{
    if (now <= 0 || ref <= 0) return -1;
    int64_t x = gpi_div_round((__int128)now * E12, ref);
    return x < REL_MIN || x > REL_MAX ? -1 : x;
}

/* First day of the rebalance period holding day (§10.4: periods of
 * `months` months starting in January). */
static int32_t period_start(int32_t day, int months)
{
    int y, m, dd;
    gpi_civil_from_days(day, &y, &m, &dd);
    if (months < 1) months = 1;
    return gpi_days_from_civil(y, (m - 1) / months * months + 1, 1);
}

static int64_t value_of(int64_t nano, int64_t step_e4)
{
    return gpi_div_round(nano, (__int128)100000 * step_e4) * step_e4;
}

/* ---- constituents (design note 3) ------------------------------------------------ */

typedef struct vcon {
    const char *id;             /* offers: key; trades: group */
    const char *group;
    int64_t price, volume;      /* offers micro; trades quarter-micro, micro-GPU-hours */
} vcon;

typedef struct vcons {
    vcon *o, *t;
    size_t no, nt;
} vcons;

static void vcons_free(vcons *s)
{
    free(s->o);
    free(s->t);
    memset(s, 0, sizeof *s);
}

static const vcon *find(const vcon *v, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].id, id) == 0) return &v[i];
    return NULL;
}

static gpi_status vcons_of(vday *dy, const vrow *r, vcons *s, gpi_diag *d)
{
    memset(s, 0, sizeof *s);
    gpi_status rc = vday_obs(dy, d);
    if (rc != GPI_OK) return rc;
    s->o = malloc((r->n_obs + 1) * sizeof *s->o);
    s->t = malloc((r->n_obs + 1) * sizeof *s->t);
    idx_item *it = malloc((r->n_obs + 1) * sizeof *it);
    if (!s->o || !s->t || !it) {
        free(it);
        vcons_free(s);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < r->n_obs; i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        if (!o->used || o->bad) continue;
        if (o->kind == GPI_OFFER) {
            s->o[s->no++] = (vcon){o->key, o->group, o->price, 0};
            continue;
        }
        if (o->kind != GPI_TRADE || o->qty <= 0 || find(s->t, s->nt, o->group)) continue;
        size_t m = 0;
        int64_t vol = 0;
        for (size_t k = i; k < r->n_obs; k++) {
            const vobs *x = &dy->obs[r->obs[k]];
            if (x->kind != GPI_TRADE || !x->used || x->bad || x->qty <= 0 ||
                strcmp(x->group, o->group) != 0)
                continue;
            it[m++] = (idx_item){x->price, x->qty, (uint64_t)k, 0, 0, IDX_OK};
            vol += x->qty;
        }
        int64_t rep = -1;
        rc = idx_weighted_median(it, m, 1000000, &rep, d);
        if (rc != GPI_OK) break;
        s->t[s->nt++] = (vcon){o->group, o->group, rep, vol};
    }
    free(it);
    if (rc != GPI_OK) vcons_free(s);
    return rc;
}

/* The change c_k of base's constituents since `then` (§10.4; index/chain_rel.c
 * snap_change), quarter units of 1e-12; -1 when neither kind matches. */
static int64_t change_since(const idx_grade *g, const vcons *base, const vcons *then)
{
    const idx_params *p = &g->p;
    size_t cap = base->no + base->nt + 1;
    idx_item *w = malloc(cap * sizeof *w);
    int64_t *rel = malloc(cap * sizeof *rel), *med = malloc(cap * sizeof *med);
    const char **grp = malloc(cap * sizeof *grp);
    int64_t out = -1;
    if (!w || !rel || !med || !grp) goto done;
    size_t n = 0;
    int64_t vol = 0;
    for (size_t i = 0; i < base->nt; i++) {
        const vcon *x = find(then->t, then->nt, base->t[i].id);
        if (!x) continue;
        int64_t r = ratio_e12(x->price, base->t[i].price);
        if (r > 0 && x->volume > 0 && !__builtin_add_overflow(vol, x->volume, &vol)) {
            w[n] = (idx_item){r, x->volume, 0, 0, (int32_t)n, IDX_OK};
            n++;
        }
    }
    if (n > 0 && (long)n >= p->min_providers && vol >= p->min_trade_volume_micro) {
        if (idx_weighted_median(w, n, p->cap_floor_e6, &out, NULL) != GPI_OK) out = -1;
        goto done;
    }
    n = 0;
    for (size_t i = 0; i < base->no; i++) {
        const vcon *x = find(then->o, then->no, base->o[i].id);
        if (!x) continue;
        int64_t r = ratio_e12(x->price, base->o[i].price);
        if (r > 0) {
            rel[n] = r;
            grp[n++] = base->o[i].group;
        }
    }
    size_t np = 0;
    char *done_g = calloc(n + 1, 1);
    int64_t *px = malloc((n + 1) * sizeof *px);
    for (size_t i = 0; done_g && px && i < n; i++) {
        if (done_g[i]) continue;
        size_t m = 0;
        for (size_t k = i; k < n; k++)
            if (!done_g[k] && strcmp(grp[k], grp[i]) == 0) {
                done_g[k] = 1;
                px[m++] = rel[k];
            }
        med[np++] = gpi_median2(px, m);
    }
    free(done_g);
    free(px);
    if (np > 0 && (long)np >= p->min_providers) out = gpi_median2(med, np);
done:
    free(w);
    free(rel);
    free(med);
    free(grp);
    return out;
}

/* ---- the matched sample (§10.3) ---------------------------------------------------- */

typedef struct member {
    const char *id, *group;
    int64_t now, ref, base;     /* 1e-8 USD */
    int64_t now_vol, ref_vol;   /* micro-GPU-hours (trades) */
    int64_t rel_now, rel_ref;
    int32_t last_seen;          /* carried trades; INT32_MIN seen today */
    long line;                  /* observations.csv, 0 for carried */
} member;

typedef struct sample {
    member *o, *t;
    size_t no, nt;
    long np_o;
    int64_t s_now_o, s_ref_o, r_o, s_now_t, s_ref_t, r_t;
    int64_t vol_t;              /* of the trading members seen on the day itself */
    long seen_t;                /* those members */
} sample;

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

/* The members of the day's matched sample from its files (design note 1). */
static gpi_status read_sample(const vday *dy, const vrow *r, const idx_grade *g, vchk *c,
                              sample *s, gpi_diag *d)
{
    memset(s, 0, sizeof *s);
    s->o = calloc(r->n_obs + 1, sizeof *s->o);
    json_t *ct = json_object_get(r->j, "carried_trades");
    json_t *rv = json_object_get(r->j, "ref_volumes");
    size_t nct = json_array_size(ct);
    s->t = calloc(r->n_obs + nct + 1, sizeof *s->t);
    idx_item *it = malloc((r->n_obs + 1) * sizeof *it);
    gpi_status rc = s->o && s->t && it ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (rc == GPI_OK && (!json_is_array(ct) || !json_is_object(rv)))
        vchk_diff(c, 0, "index.json carried_trades / ref_volumes: missing");
    for (size_t i = 0; i < r->n_obs && rc == GPI_OK && !vchk_failed(c); i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        int has = o->ref_e8 >= 0 || o->base_e8 >= 0 || o->rel_e12 >= 0;
        if (o->matched < 0) {
            vchk_diff(c, 0, "observations.csv:%ld matched: empty for a v2 grade", o->line);
        } else if (o->matched == 1 ? (o->ref_e8 < 0 || o->base_e8 < 0 || o->rel_e12 < 0) : has) {
            vchk_diff(c, 0, "observations.csv:%ld matched: %d with%s ref_price, base_price, relative",
                      o->line, o->matched, o->matched ? "out" : "");
        } else if (o->matched == 1 && !o->used) {
            vchk_diff(c, 0, "observations.csv:%ld matched: 1 for an excluded observation", o->line);
        }
        if (vchk_failed(c) || o->matched != 1) continue;
        if (o->kind == GPI_OFFER) {
            member *m = &s->o[s->no++];
            *m = (member){o->key, o->group, o->price * 100, o->ref_e8, o->base_e8, 0, 0,
                          ratio_e12(o->price * 100, o->base_e8), ratio_e12(o->ref_e8, o->base_e8),
                          INT32_MIN, o->line};
            if (m->rel_now != o->rel_e12)
                vchk_num(c, "relative", o->rel_e12, m->rel_now, 12);
            continue;
        }
        /* a trading group: once, from all its used trades */
        int seen = 0;
        for (size_t k = 0; k < s->nt && !seen; k++) seen = strcmp(s->t[k].group, o->group) == 0;
        if (seen) continue;
        size_t m = 0;
        int64_t vol = 0;
        for (size_t k = 0; k < r->n_obs; k++) {
            const vobs *x = &dy->obs[r->obs[k]];
            if (x->kind != GPI_TRADE || !x->used || strcmp(x->group, o->group) != 0) continue;
            if (x->matched != 1 || x->ref_e8 != o->ref_e8 || x->base_e8 != o->base_e8 ||
                x->rel_e12 != o->rel_e12) {
                vchk_diff(c, 0, "observations.csv:%ld matched: differs from line %ld of the same "
                          "provider group", x->line, o->line);
                break;
            }
            if (x->qty > 0) {
                it[m++] = (idx_item){x->price, x->qty, (uint64_t)k, 0, 0, IDX_OK};
                vol += x->qty;
            }
        }
        if (vchk_failed(c)) break;
        int64_t rep = -1;
        if (m > 0 && (rc = idx_weighted_median(it, m, 1000000, &rep, d)) != GPI_OK) break;
        member *t = &s->t[s->nt++];
        *t = (member){o->group, o->group, rep * 25, o->ref_e8, o->base_e8, vol, -1,
                      ratio_e12(rep * 25, o->base_e8), ratio_e12(o->ref_e8, o->base_e8),
                      INT32_MIN, o->line};
        if (t->rel_now != o->rel_e12) vchk_num(c, "relative", o->rel_e12, t->rel_now, 12);
    }
    for (size_t i = 0; i < nct && rc == GPI_OK && !vchk_failed(c); i++) {
        json_t *x = json_array_get(ct, i);
        member t = {0};
        int64_t rel;
        t.line = 0;
        t.group = t.id = vj_str(x, "group");
        const char *why = t.group && *t.group ? vj_date(x, "last_seen", &t.last_seen) : "no group";
        if (!why) why = vj_fixed(x, "price", 8, &t.now);
        if (!why) why = vj_fixed(x, "volume", 6, &t.now_vol);
        if (!why) why = vj_fixed(x, "ref_price", 8, &t.ref);
        if (!why) why = vj_fixed(x, "base_price", 8, &t.base);
        if (!why) why = vj_fixed(x, "relative", 12, &rel);
        if (!why && (t.last_seen >= dy->day || dy->day - t.last_seen > g->p.trade_carry_days))
            why = "last_seen is not within trade_carry_days before the day";
        for (size_t k = 0; !why && k < s->nt; k++)
            if (strcmp(s->t[k].group, t.group) == 0) why = "the group also traded that day";
        if (why) {
            vchk_diff(c, 0, "index.json carried_trades[%zu]: %s", i, why);
            break;
        }
        t.rel_now = ratio_e12(t.now, t.base);
        t.rel_ref = ratio_e12(t.ref, t.base);
        if (t.rel_now != rel) vchk_num(c, "carried_trades.relative", rel, t.rel_now, 12);
        s->t[s->nt++] = t;
    }
    /* ref_volumes: exactly the matched trading members */
    if (rc == GPI_OK && !vchk_failed(c) && json_object_size(rv) != s->nt)
        vchk_int(c, "ref_volumes (members)", (long)json_object_size(rv), (long)s->nt);
    for (size_t i = 0; i < s->nt && rc == GPI_OK && !vchk_failed(c); i++) {
        const char *why = vj_fixed(rv, s->t[i].group, 6, &s->t[i].ref_vol);
        if (why) vchk_diff(c, 0, "index.json ref_volumes.%s: %s", s->t[i].group, why);
    }
    free(it);
    return rc;
}

/* 1 when a member's price moved by more than error_factor either way
 * since the reference day: §10.3 leaves it out of the matched sample. */
static int too_far(const idx_grade *g, const member *m)
{
    __int128 f = g->p.error_factor_e6;
    return (__int128)m->now * 1000000 > f * m->ref || (__int128)m->ref * 1000000 > f * m->now;
}

/* S of both kinds and the relatives (§10.3). */
static gpi_status statistics(const idx_grade *g, vchk *c, sample *s, gpi_diag *d)
{
    const idx_params *p = &g->p;
    s->r_o = s->r_t = s->s_now_o = s->s_ref_o = s->s_now_t = s->s_ref_t = -1;
    for (size_t i = 0; i < s->no + s->nt; i++) {
        const member *m = i < s->no ? &s->o[i] : &s->t[i - s->no];
        if (!too_far(g, m)) continue;
        if (m->line)
            vchk_diff(c, 0, "observations.csv:%ld matched: 1, but its price moved by more than "
                      "error_factor since the reference day", m->line);
        else
            vchk_diff(c, 0, "index.json carried_trades %s: its price moved by more than "
                      "error_factor since the reference day", m->group);
        return GPI_OK;
    }
    /* offers: median of provider medians, one vote per provider */
    int64_t *mn = malloc((s->no + 1) * sizeof *mn), *mr = malloc((s->no + 1) * sizeof *mr);
    int64_t *px = malloc((s->no + 1) * sizeof *px), *py = malloc((s->no + 1) * sizeof *py);
    char *done = calloc(s->no + 1, 1);
    if (!mn || !mr || !px || !py || !done) {
        free(mn), free(mr), free(px), free(py), free(done);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->no; i++)
        if (s->o[i].rel_now < 0 || s->o[i].rel_ref < 0) {
            vchk_diff(c, 0, "observations.csv:%ld matched: 1, but its relative is out of "
                      "[0.000001, 1000000]", s->o[i].line);
            break;
        }
    for (size_t i = 0; i < s->no && !vchk_failed(c); i++) {
        if (done[i]) continue;
        size_t m = 0;
        for (size_t k = i; k < s->no; k++)
            if (!done[k] && strcmp(s->o[k].group, s->o[i].group) == 0) {
                done[k] = 1;
                px[m] = s->o[k].rel_now;
                py[m++] = s->o[k].rel_ref;
            }
        mn[s->np_o] = gpi_median2(px, m);
        mr[s->np_o++] = gpi_median2(py, m);
    }
    if (s->np_o > 0 && s->np_o >= p->min_providers) {
        s->s_now_o = gpi_median2(mn, (size_t)s->np_o);
        s->s_ref_o = gpi_median2(mr, (size_t)s->np_o);
        s->r_o = ratio_e12(s->s_now_o, s->s_ref_o);
    }
    free(mn), free(mr), free(px), free(py), free(done);
    /* trades: volume-weighted median with the provider cap, each day's
     * volumes; carried members steady the sample but never make it
     * qualify: the members that traded on the day itself must (§10.3) */
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < s->nt; i++) {
        const member *m = &s->t[i];
        if (m->rel_now < 0 || m->rel_ref < 0 || m->now_vol <= 0 || m->ref_vol <= 0) {
            vchk_diff(c, 0, "matched trading group %s: a relative out of range or no volume "
                      "on one of the days", m->group);
            return GPI_OK;
        }
        if (m->last_seen != INT32_MIN) continue;
        s->vol_t += m->now_vol;
        s->seen_t++;
    }
    if (s->nt > 0 && s->seen_t >= p->min_providers && s->vol_t >= p->min_trade_volume_micro) {
        idx_item *w = malloc(s->nt * sizeof *w);
        if (!w) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        for (int side = 0; side < 2 && rc == GPI_OK; side++) {
            for (size_t i = 0; i < s->nt; i++)
                w[i] = (idx_item){side ? s->t[i].rel_ref : s->t[i].rel_now,
                                  side ? s->t[i].ref_vol : s->t[i].now_vol, (uint64_t)i, 0,
                                  (int32_t)i, IDX_OK};
            rc = idx_weighted_median(w, s->nt, p->cap_floor_e6, side ? &s->s_ref_t : &s->s_now_t, d);
        }
        free(w);
        if (rc == GPI_OK) s->r_t = ratio_e12(s->s_now_t, s->s_ref_t);
    }
    return rc;
}

/* ---- inputs from other days (design note 2) ----------------------------------------- */

static gpi_status other_day(verify_dir *v, int32_t day, const char *grade, vday **kd,
                            vrow **kr, gpi_diag *d)
{
    *kr = NULL;
    gpi_status rc = vday_get(v, day, kd, d);
    if (rc == GPI_OK && (*kd)->present) *kr = vday_row(*kd, grade);
    return rc;
}

static void date_of(int32_t day, char out[11])
{
    gpi_date_format(day, out);
}

/* Reference (F) and base (P) prices, carried trades. */
static gpi_status check_prices(verify_dir *v, const vrow *r, const sample *s, int32_t F,
                               int32_t P, vchk *c, gpi_diag *d)
{
    vday *kd;
    vrow *kr;
    vcons k;
    char date[11];
    /* the panel day: every member's base is its price that day */
    gpi_status rc = other_day(v, P, r->grade, &kd, &kr, d);
    if (rc != GPI_OK) return rc;
    if (!kr) {
        if (s->no + s->nt) vchk_missing(c, P, "base_price");
    } else if ((rc = vcons_of(kd, kr, &k, d)) == GPI_OK) {
        date_of(P, date);
        for (size_t i = 0; i < s->no + s->nt && !vchk_failed(c); i++) {
            int t = i >= s->no;
            const member *m = t ? &s->t[i - s->no] : &s->o[i];
            const vcon *x = t ? find(k.t, k.nt, m->id) : find(k.o, k.no, m->id);
            int64_t want = x ? x->price * (t ? 25 : 100) : -1;
            if (want != m->base) {
                char a[40], b[40];
                gpi_fixed_format(m->base, 8, a);
                if (want >= 0) gpi_fixed_format(want, 8, b);
                vchk_diff(c, 0, "base_price of %s %s: published %s, its price on the panel day %s "
                          "%s", t ? "provider group" : "offer", m->id, a, date,
                          want >= 0 ? b : "none");
            }
        }
        vcons_free(&k);
    }
    if (rc != GPI_OK || vchk_failed(c)) return rc;
    /* the reference day: prices and volumes then */
    rc = other_day(v, F, r->grade, &kd, &kr, d);
    if (rc != GPI_OK) return rc;
    if (!kr) {
        if (s->no + s->nt) vchk_missing(c, F, "ref_price");
    } else if ((rc = vcons_of(kd, kr, &k, d)) == GPI_OK) {
        date_of(F, date);
        json_t *fct = json_object_get(kr->j, "carried_trades");
        for (size_t i = 0; i < s->no + s->nt && !vchk_failed(c); i++) {
            int t = i >= s->no;
            const member *m = t ? &s->t[i - s->no] : &s->o[i];
            const vcon *x = t ? find(k.t, k.nt, m->id) : find(k.o, k.no, m->id);
            int64_t price = x ? x->price * (t ? 25 : 100) : -1, vol = x ? x->volume : -1;
            for (size_t j = 0; t && !x && j < json_array_size(fct); j++) {
                json_t *e = json_array_get(fct, j);
                const char *gname = vj_str(e, "group");
                if (gname && strcmp(gname, m->id) == 0 &&
                    (vj_fixed(e, "price", 8, &price) || vj_fixed(e, "volume", 6, &vol)))
                    price = vol = -1;
            }
            if (t && price < 0) continue; /* carried on F outside F's matched sample */
            if (price != m->ref || (t && vol != m->ref_vol))
                vchk_diff(c, 0, "ref_price of %s %s: differs from its %s on the reference day %s",
                          t ? "provider group" : "offer", m->id, t ? "price or volume" : "price",
                          date);
        }
        vcons_free(&k);
    }
    if (rc != GPI_OK || vchk_failed(c)) return rc;
    /* carried trades: the price and volume of the day last seen */
    for (size_t i = 0; i < s->nt && rc == GPI_OK && !vchk_failed(c); i++) {
        const member *m = &s->t[i];
        if (m->last_seen == INT32_MIN) continue;
        rc = other_day(v, m->last_seen, r->grade, &kd, &kr, d);
        if (rc != GPI_OK || !kr) {
            if (rc == GPI_OK) vchk_missing(c, m->last_seen, "carried_trades");
            continue;
        }
        if ((rc = vcons_of(kd, kr, &k, d)) != GPI_OK) break;
        const vcon *x = find(k.t, k.nt, m->id);
        if (!x || x->price * 25 != m->now || x->volume != m->now_vol) {
            date_of(m->last_seen, date);
            vchk_diff(c, 0, "carried_trades %s: differs from its trades of %s", m->id, date);
        }
        vcons_free(&k);
    }
    return rc;
}

/* The anchor value (§10.4) from the day's files, its window checked
 * against DIR (design note 2); -2 after a difference. */
static int64_t anchor(verify_dir *v, vday *dy, const vrow *r, const idx_grade *g, int64_t xs_e4,
                      vchk *c, gpi_diag *d, gpi_status *rc)
{
    int w = g->p.anchor_days;
    json_t *win = json_object_get(r->j, "anchor_window");
    if (w <= 1) {
        if (!json_is_null(win)) vchk_diff(c, 0, "index.json anchor_window: not null with anchor_days 1");
        return xs_e4 * 100000;
    }
    if (!json_is_array(win) || json_array_size(win) != (size_t)(w - 1)) {
        vchk_diff(c, 0, "index.json anchor_window: not the %d days before the anchor", w - 1);
        return -2;
    }
    int64_t *est = malloc((size_t)w * sizeof *est);
    if (!est) {
        *rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        return -2;
    }
    size_t n = 0;
    est[n++] = xs_e4 * 100000;
    vcons base = {0}, then;
    int have_base = 0;
    for (int i = 0; i < w - 1 && *rc == GPI_OK && !vchk_failed(c); i++) {
        json_t *x = json_array_get(win, (size_t)i);
        int32_t k;
        int64_t xs, ch, e;
        const char *why = vj_date(x, "date", &k);
        if (!why && k != dy->day - w + 1 + i) why = "not the window's day";
        if (!why) why = vj_fixed(x, "xs_value", 4, &xs);
        if (!why) why = vj_fixed(x, "change", 14, &ch);
        if (!why) why = vj_fixed(x, "estimate", 9, &e);
        if (!why && ((ch >= 0 && ch % 25) || (xs < 0 && ch >= 0))) why = "not a change of 1e-12 quarters";
        if (why) {
            vchk_diff(c, 0, "index.json anchor_window[%d]: %s", i, why);
            break;
        }
        int64_t want = xs >= 0 && ch > 0 ? gpi_div_round((__int128)xs * 100000 * 4 * E12, ch / 25) : -1;
        char f[48];
        snprintf(f, sizeof f, "anchor_window[%d].estimate", i);
        vchk_num(c, f, e, want, 9);
        if (want > 0) est[n++] = want;
        /* the window day itself */
        vday *kd;
        vrow *kr;
        *rc = other_day(v, k, r->grade, &kd, &kr, d);
        if (*rc != GPI_OK) break;
        if (!kr) {
            vchk_missing(c, k, "anchor");
            continue;
        }
        int64_t kxs;
        const char *kl = vj_str(kr->j, "xs_level");
        if (vj_fixed(kr->j, "xs_value", 4, &kxs) || !kl) {
            vchk_diff(c, 0, "anchor_window[%d]: %s/index.json xs_value unreadable", i, kd->path);
            break;
        }
        if (strcmp(kl, "trades") != 0 && strcmp(kl, "offers") != 0) kxs = -1;
        snprintf(f, sizeof f, "anchor_window[%d].xs_value", i);
        vchk_num(c, f, xs, kxs, 4);
        if (xs < 0) continue;
        if (!have_base) {
            if ((*rc = vcons_of(dy, r, &base, d)) != GPI_OK) break;
            have_base = 1;
        }
        if ((*rc = vcons_of(kd, kr, &then, d)) != GPI_OK) break;
        int64_t q = change_since(g, &base, &then);
        vcons_free(&then);
        snprintf(f, sizeof f, "anchor_window[%d].change", i);
        vchk_num(c, f, ch, q > 0 ? q * 25 : -1, 14);
    }
    if (have_base) vcons_free(&base);
    int64_t nano = vchk_failed(c) ? -2 : gpi_div_round(gpi_median2(est, n), 2);
    free(est);
    return nano;
}

/* ---- the row ------------------------------------------------------------------------ */

gpi_status vchain_check(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, const vxs *xs,
                        vchk *c, gpi_diag *d)
{
    const idx_params *p = &g->p;
    json_t *j = r->j;
    gpi_status rc = GPI_OK;
    int64_t chain_prev = pub(c, j, "chain_prev", 9), carry_prev = pub(c, j, "carry_prev", 0);
    if (chain_prev == -2 || carry_prev == -2) return GPI_OK;
    int has = chain_prev >= 0;
    /* the day before (design note 2) */
    vday *pd;
    vrow *pr;
    if ((rc = other_day(v, dy->day - 1, r->grade, &pd, &pr, d)) != GPI_OK) return rc;
    if (!pr) {
        if (has) vchk_missing(c, dy->day - 1, "chain_prev");
    } else {
        int64_t pc, pk;
        if (vj_fixed(pr->j, "chain_raw", 9, &pc) || vj_fixed(pr->j, "carry_days", 0, &pk)) {
            vchk_diff(c, 0, "chain_prev: %s/index.json chain_raw unreadable", pd->path);
        } else {
            vchk_num(c, "chain_prev (the day before's chain_raw)", chain_prev, pc, 9);
            if (has) vchk_int(c, "carry_prev (the day before's carry_days)", (long)carry_prev, (long)pk);
        }
    }
    if (!has && carry_prev != 0) vchk_int(c, "carry_prev", (long)carry_prev, 0);
    if (vchk_failed(c)) return GPI_OK;
    /* the chain's panel and reference days from the day before's row
     * (index/chain.c commit: an event resets both, a fixed day moves the
     * reference) */
    if (has && pr) {
        int32_t pp = INT32_MIN, pf = INT32_MIN, P0 = INT32_MIN, F0 = INT32_MIN;
        const char *ev = vj_str(pr->j, "event"), *lv = vj_str(pr->j, "level");
        if (!ev || !lv || vj_date(pr->j, "panel_date", &pp) || vj_date(pr->j, "reference_date", &pf)) {
            vchk_diff(c, 0, "panel_date: %s/index.json event or dates unreadable", pd->path);
            return GPI_OK;
        }
        int fixed = strcmp(lv, "trades") == 0 || strcmp(lv, "offers") == 0;
        int32_t wantP = ev[0] ? dy->day - 1 : pp, wantF = ev[0] || fixed ? dy->day - 1 : pf;
        if (vj_date(j, "panel_date", &P0) || vj_date(j, "reference_date", &F0) || P0 != wantP ||
            F0 != wantF) {
            char a[11] = "none", b[11] = "none";
            if (wantP != INT32_MIN) gpi_date_format(wantP, a);
            if (wantF != INT32_MIN) gpi_date_format(wantF, b);
            vchk_diff(c, 0, "panel_date / reference_date: not %s / %s (the day before's event, "
                            "level and dates)", a, b);
            return GPI_OK;
        }
    } else if (has) {
        vchk_missing(c, dy->day - 1, "panel_date");
    }
    /* the matched sample and the relative */
    sample s;
    memset(&s, 0, sizeof s);
    int64_t rel = -1;
    int32_t F = INT32_MIN, P = INT32_MIN;
    const char *why = vj_date(j, "reference_date", &F);
    if (!why) why = vj_date(j, "panel_date", &P);
    if (why || has != (F != INT32_MIN) || has != (P != INT32_MIN)) {
        vchk_diff(c, 0, "index.json reference_date / panel_date: %s", why ? why : "null iff no chain");
        return GPI_OK;
    }
    if (has) {
        rc = read_sample(dy, r, g, c, &s, d);
        if (rc == GPI_OK && !vchk_failed(c)) rc = statistics(g, c, &s, d);
        if (rc != GPI_OK || vchk_failed(c)) goto done;
        rel = s.r_t > 0 ? s.r_t : s.r_o;
    } else {
        for (size_t i = 0; i < r->n_obs && !vchk_failed(c); i++)
            if (dy->obs[r->obs[i]].matched != 0)
                vchk_diff(c, 0, "observations.csv:%ld matched: not 0 without a chain",
                          dy->obs[r->obs[i]].line);
    }
    long n_matched = has ? (s.r_t > 0 ? (long)s.nt : (long)s.no) : 0;
    long n_prov = has ? (s.r_t > 0 ? (long)s.nt : s.np_o) : 0;
    int64_t x;
    if ((x = pub(c, j, "relative", 12)) != -2) vchk_num(c, "relative", x, rel, 12);
    if ((x = pub(c, j, "n_matched", 0)) != -2) vchk_int(c, "n_matched", (long)x, n_matched);
    if ((x = pub(c, j, "n_matched_providers", 0)) != -2)
        vchk_int(c, "n_matched_providers", (long)x, n_prov);
    json_t *ms = json_object_get(j, "matched_statistic");
    int64_t sn = -1, sr = -1;
    if (rel > 0) {
        sn = (s.r_t > 0 ? s.s_now_t : s.s_now_o) * 25;
        sr = (s.r_t > 0 ? s.s_ref_t : s.s_ref_o) * 25;
    }
    if (json_is_null(ms)) {
        vchk_num(c, "matched_statistic.now", -1, sn, 14);
    } else if ((why = vj_fixed(ms, "now", 14, &x))) {
        vchk_diff(c, 0, "index.json matched_statistic.now: %s", why);
    } else {
        vchk_num(c, "matched_statistic.now", x, sn, 14);
        if (!(why = vj_fixed(ms, "ref", 14, &x))) vchk_num(c, "matched_statistic.ref", x, sr, 14);
    }
    if (vchk_failed(c)) goto done;
    /* the event and the value (§10.4) */
    int xs_fixed = xs->level == GPI_LEVEL_TRADES || xs->level == GPI_LEVEL_OFFERS;
    int due = has && P < period_start(dy->day, p->rebalance_months);
    int event = xs_fixed && has && due    ? IDX_EVENT_REBALANCE
                : xs_fixed && !has        ? IDX_EVENT_START
                : xs_fixed && has && rel <= 0 && carry_prev >= p->max_carry_days
                    ? IDX_EVENT_REANCHOR
                    : IDX_EVENT_NONE;
    const char *pe = vj_str(j, "event");
    vchk_text(c, "event", pe ? pe : "?", idx_event_name(event));
    if (!event && !json_is_null(json_object_get(j, "anchor_window")))
        vchk_diff(c, 0, "index.json anchor_window: not null on a day without an anchor");
    int level = GPI_LEVEL_SUSPENDED, carry = 0;
    int64_t nano = -1, value = -1, splice = -1;
    char note[512] = "";
    if (event) {
        nano = anchor(v, dy, r, g, xs->value_e4, c, d, &rc);
        if (rc != GPI_OK || nano == -2) goto done;
        value = p->anchor_days > 1 ? value_of(nano, p->rounding_e4) : xs->value_e4;
        level = xs->level;
        if (has) {
            int64_t cand = rel > 0 ? gpi_div_round((__int128)chain_prev * rel, E12) : chain_prev;
            if (cand > 0) splice = gpi_div_round((__int128)nano * E12, cand);
        }
    } else if (has && rel > 0) {
        nano = gpi_div_round((__int128)chain_prev * rel, E12);
        value = value_of(nano, p->rounding_e4);
        level = s.r_t > 0 ? GPI_LEVEL_TRADES : GPI_LEVEL_OFFERS;
    } else if (has && carry_prev < p->max_carry_days) {
        nano = chain_prev;
        value = value_of(chain_prev, p->rounding_e4);
        level = GPI_LEVEL_CARRIED;
        carry = (int)carry_prev + 1;
        long used = 0;
        for (size_t i = 0; i < r->n_obs; i++) {
            const vobs *o = &dy->obs[r->obs[i]];
            used += o->used && (o->kind == GPI_OFFER || o->qty > 0);
        }
        long nm = (long)s.nt > s.np_o ? (long)s.nt : s.np_o;
        if (used == 0)
            snprintf(note, sizeof note, "no eligible observations to match");
        else
            snprintf(note, sizeof note, "no matched change: %ld of the panel's providers priced "
                     "on both days (need %d)", nm, p->min_providers);
    } else if (xs->level == GPI_LEVEL_CARRIED || xs->exhausted >= 0) {
        const char *xn = xs->note[0] ? xs->note : "no data";
        if (has)
            snprintf(note, sizeof note, "carried %d days (max_carry_days) and the cross-section "
                     "has no fix: %s", (int)carry_prev, xn);
        else
            snprintf(note, sizeof note, "%s", xn);
    } else {
        snprintf(note, sizeof note, "?"); /* the cross-section's note needs the day before */
    }
    const char *pl = vj_str(j, "level");
    vchk_text(c, "level", pl ? pl : "?", gpi_level_name(level));
    if ((x = pub(c, j, "value", 4)) != -2) vchk_num(c, "value", x, value, 4);
    if ((x = pub(c, j, "chain_raw", 9)) != -2) vchk_num(c, "chain_raw", x, nano, 9);
    if ((x = pub(c, j, "carry_days", 0)) != -2) vchk_int(c, "carry_days", (long)x, carry);
    if ((x = pub(c, j, "splice", 12)) != -2) vchk_num(c, "splice", x, splice, 12);
    const char *pn = vj_str(j, "note");
    if (strcmp(note, "?") != 0) vchk_text(c, "note", pn ? pn : "?", note);
    if (!vchk_failed(c) && has) rc = check_prices(v, r, &s, F, P, c, d);
done:
    free(s.o);
    free(s.t);
    return rc;
}
