/* index/v3_panel.c -- methodology v3's state and day (METHODOLOGY.md
 * §13): the panel's discipline, the panel's fix, the value.
 *
 * NOTES ON THE DESIGN
 * (1) The panel is of provider groups, never of offer identities: a group
 *     relisting its SKUs under new ids is the same member with the same
 *     provider median, so it moves nothing.
 * (2) Membership on day D is decided from the days before D and from
 *     whether the group has an eligible observation on D:
 *       - a group that had eligible observations on each of the
 *         admission_days (A) days before D is a member on D (it joins
 *         when it was not one);
 *       - a member with an eligible observation on D enters the fix with
 *         D's observations (role member);
 *       - a member without one, absent for at most absence_days (K) days
 *         in a row, enters the fix with the observations of its last day
 *         present, exactly as they entered then (role imputed): its
 *         screened offers (so its provider median) and its screened
 *         trades with their volumes (so the cap, the weighted median and
 *         the trades level's volume and provider count are unchanged);
 *       - a member absent for K + 1 days leaves (role left) and must be
 *         admitted again;
 *       - any other group with observations is a candidate: listed, never
 *         in the fix.
 *     So a member absent for K days or fewer, at the prices it had,
 *     moves nothing on any day, and a group present for fewer than A days
 *     in a row moves nothing (it never enters the fix); one present for A
 *     days enters on day A + 1.  A new participant cannot enter the panel
 *     on the day it first prints.
 * (3) The fix is v1's (§2-§4) over the panel's observations: trades
 *     before offers, the per-provider screen (made on the day the
 *     observation was made: an imputed member's observations are carried
 *     as screened), provider medians, the cap, the offer-to-trade
 *     adjustment and carried/suspended days over the panel's raw values
 *     (idx_seq).  v3_fix.c.
 * (4) The state keeps, per group, its membership, its days present in a
 *     row, its days absent and the used observations of its last day
 *     present; per item of the price index its last price (price_index.c).
 *     Groups that are neither members nor present are dropped at the
 *     start of the next step (the day's output still names them).
 * (5) A day on which no member is present -- the catalogue's feed stopped,
 *     or every member is away at once -- is no fix: its imputed members
 *     stay imputed (their days absent count, so they leave after K + 1)
 *     but carry nothing into the fix, and the day is carried or
 *     suspended by v1's rule.  Imputation completes a panel observed on
 *     the day; it never stands in for one (else the value would be
 *     published at the offers level for K days after the last
 *     observation).
 * Everything is integer arithmetic; nothing here reads the store.
 */
#include "index/v3_internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

const char *idx_v3_role_name(int role)
{
    switch (role) {
    case IDX_V3_MEMBER: return "member";
    case IDX_V3_IMPUTED: return "imputed";
    case IDX_V3_CANDIDATE: return "candidate";
    case IDX_V3_LEFT: return "left";
    default: return "";
    }
}

uint64_t idx_v3_group_hash(const char *name)
{
    if (!name) name = "";
    return gpi_fnv1a64(name, strlen(name), GPI_FNV_SEED);
}

idx_v3 *idx_v3_new(const idx_grade *g)
{
    idx_v3 *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->g = g;
    s->last_day = INT32_MIN;
    s->value_last_e4 = -1;
    s->month_day = INT32_MIN;
    s->month_value_e4 = -1;
    s->reach_prev.day = INT32_MIN;
    if (idx_seq_init(&s->seq, g) != GPI_OK) {
        idx_v3_free(s);
        return NULL;
    }
    return s;
}

static void group_free(v3_group *x)
{
    free(x->name);
    free(x->o);
    free(x->t);
}

void idx_v3_free(idx_v3 *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->ng; i++) group_free(&s->gr[i]);
    free(s->gr);
    free(s->it);
    idx_seq_free(&s->seq);
    free(s->pg);
    free(s->fo);
    free(s->ft);
    free(s->xo);
    free(s->xt);
    v3_scratch_free(&s->sc);
    free(s->gmap);
    free(s->oref);
    free(s->oref_day);
    free(s->ocount);
    free(s->seen);
    free(s->gs);
    free(s->ghash);
    free(s->today);
    free(s->merged);
    free(s->reach);
    free(s);
}

void idx_v3_fix_items(const idx_v3 *s, const idx_item **t, size_t *nt, const idx_item **o,
                      size_t *no, size_t *n_groups)
{
    *t = s->ft;
    *nt = s->nft;
    *o = s->fo;
    *no = s->nfo;
    *n_groups = s->ng;
}

const char *idx_v3_group_name(const idx_v3 *s, size_t i)
{
    return i < s->ng && s->gr[i].name ? s->gr[i].name : "";
}

const idx_seq *idx_v3_seq(const idx_v3 *s)
{
    return &s->seq;
}

int32_t idx_v3_next_day(const idx_v3 *s)
{
    return s->last_day == INT32_MIN ? INT32_MIN : s->last_day + 1;
}

static gpi_status oom(gpi_diag *d)
{
    return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
}

/* The group named name: its index, or where it would go (*found 0). */
static size_t group_find(const idx_v3 *s, const char *name, int *found)
{
    size_t lo = 0, hi = s->ng;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->gr[mid].name, name);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

/* Design note 4: groups that are neither members nor present on the last
 * day are forgotten. */
static void purge(idx_v3 *s)
{
    size_t w = 0;
    for (size_t i = 0; i < s->ng; i++) {
        v3_group *x = &s->gr[i];
        if (!x->member && x->streak == 0) {
            group_free(x);
            continue;
        }
        s->gr[w++] = *x;
    }
    s->ng = w;
}

static int eligible(int reason)
{
    return !IDX_EX_INELIGIBLE(reason);
}

/* The day's groups with an eligible observation: present, and gmap. */
static gpi_status presence(idx_v3 *s, const idx_v3_input *in, gpi_diag *d)
{
    size_t nn = in->n_names;
    if (GPI_VEC_RESERVE(s->gmap, s->cap_gmap, nn + 1)) return oom(d);
    for (size_t k = 0; k < nn; k++) s->gmap[k] = -2; /* -2 absent, -1 present (unmapped) */
    const idx_item *v[2] = {in->offers, in->trades};
    size_t n[2] = {in->n_offers, in->n_trades};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < n[k]; i++) {
            int32_t gid = v[k][i].group;
            if (gid < 0 || (size_t)gid >= nn) return gpi_diag_set(d, GPI_EUSAGE, "v3: a group out of range");
            if (eligible(v[k][i].reason)) s->gmap[gid] = -1;
        }
    for (size_t k = 0; k < nn; k++) {
        if (s->gmap[k] == -2) continue;
        const char *name = in->names[k] ? in->names[k] : "";
        int found;
        size_t at = group_find(s, name, &found);
        if (found) continue;
        if (GPI_VEC_RESERVE(s->gr, s->cap_gr, s->ng + 1)) return oom(d);
        memmove(&s->gr[at + 1], &s->gr[at], (s->ng - at) * sizeof *s->gr);
        memset(&s->gr[at], 0, sizeof *s->gr);
        s->ng++;
        v3_group *x = &s->gr[at];
        if (!(x->name = strdup(name))) return oom(d);
        x->hash = idx_v3_group_hash(name);
        x->since = x->last_seen = INT32_MIN;
    }
    for (size_t i = 0; i < s->ng; i++) {
        s->gr[i].present = 0;
        s->gr[i].gid = -1;
        s->gr[i].role = IDX_V3_NONE;
        s->gr[i].joined = 0;
    }
    for (size_t k = 0; k < nn; k++) {
        if (s->gmap[k] == -2) continue;
        int found;
        size_t at = group_find(s, in->names[k] ? in->names[k] : "", &found);
        s->gmap[k] = (int32_t)at;
        s->gr[at].present = 1;
        s->gr[at].gid = (int32_t)k;
    }
    return GPI_OK;
}

/* Design note 2: each group's role on `day`; the groups' counters move to
 * the day. */
static void roles(idx_v3 *s, int32_t day)
{
    int A = s->g->p.admission_days, K = s->g->p.absence_days;
    for (size_t i = 0; i < s->ng; i++) {
        v3_group *x = &s->gr[i];
        if (!x->member && x->streak >= A) {
            x->member = 1;
            x->since = day;
            x->absent = 0;
            x->joined = 1;
        }
        if (x->member) {
            if (x->present) {
                x->role = IDX_V3_MEMBER;
                x->absent = 0;
            } else if (x->absent + 1 <= K) {
                x->role = IDX_V3_IMPUTED;
                x->absent++;
            } else {
                x->role = IDX_V3_LEFT;
                x->absent++;
                x->member = 0;
            }
        } else if (x->present) {
            x->role = IDX_V3_CANDIDATE;
        }
        x->streak = x->present ? x->streak + 1 : 0;
    }
}

static gpi_status push(idx_item **v, size_t *n, size_t *cap, idx_item it, gpi_diag *d)
{
    if (GPI_VEC_RESERVE(*v, *cap, *n + 1)) return oom(d);
    (*v)[(*n)++] = it;
    return GPI_OK;
}

/* Design note 3: the fix's observations -- members' of the day, imputed
 * members' carried ones -- with group = the group's index. */
static gpi_status fix_items(idx_v3 *s, const idx_v3_input *in, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    s->nfo = s->nft = 0;
    for (int k = 0; k < 2 && rc == GPI_OK; k++) {
        const idx_item *v = k ? in->trades : in->offers;
        size_t n = k ? in->n_trades : in->n_offers;
        idx_item **dst = k ? &s->ft : &s->fo;
        size_t *dn = k ? &s->nft : &s->nfo, *dc = k ? &s->cap_ft : &s->cap_fo;
        for (size_t i = 0; i < n && rc == GPI_OK; i++) {
            int32_t gi = s->gmap[v[i].group];
            if (gi < 0 || s->gr[gi].role != IDX_V3_MEMBER) continue;
            idx_item it = v[i];
            it.group = gi;
            rc = push(dst, dn, dc, it, d);
        }
    }
    /* design note 5: imputed members complete a panel with a member present */
    int any_member = 0, any_imputed = 0;
    for (size_t i = 0; i < s->ng; i++) {
        any_member |= s->gr[i].role == IDX_V3_MEMBER;
        any_imputed |= s->gr[i].role == IDX_V3_IMPUTED;
    }
    s->unobserved = !any_member && any_imputed;
    for (size_t i = 0; i < s->ng && rc == GPI_OK && any_member; i++) {
        const v3_group *x = &s->gr[i];
        if (x->role != IDX_V3_IMPUTED) continue;
        for (size_t j = 0; j < x->no && rc == GPI_OK; j++) {
            idx_item it = x->o[j];
            it.group = (int32_t)i;
            rc = push(&s->fo, &s->nfo, &s->cap_fo, it, d);
        }
        for (size_t j = 0; j < x->nt && rc == GPI_OK; j++) {
            idx_item it = x->t[j];
            it.group = (int32_t)i;
            rc = push(&s->ft, &s->nft, &s->cap_ft, it, d);
        }
    }
    if (rc == GPI_OK) {
        idx_sort_items(s->fo, s->nfo, IDX_BY_GROUP_PRICE);
        idx_sort_items(s->ft, s->nft, IDX_BY_GROUP_PRICE);
    }
    return rc;
}

/* Median of the used offers of group gi in the fix (sorted by group then
 * price), half-micro; -1 none. */
static int64_t group_median_h(const idx_v3 *s, int32_t gi, long *n_used)
{
    size_t a = 0, m = 0;
    while (a < s->nfo && s->fo[a].group < gi) a++;
    for (size_t i = a; i < s->nfo && s->fo[i].group == gi; i++) m += s->fo[i].reason == IDX_OK;
    *n_used = (long)m;
    if (m == 0) return -1;
    size_t lo = (m - 1) / 2, hi = m / 2, r = 0;
    int64_t sum = 0;
    for (size_t i = a; i < s->nfo && s->fo[i].group == gi; i++) {
        if (s->fo[i].reason != IDX_OK) continue;
        if (r == lo) sum += s->fo[i].price_micro;
        if (r == hi) sum += s->fo[i].price_micro;
        r++;
    }
    return sum;
}

/* The day's groups as the output lists them. */
static gpi_status list_groups(idx_v3 *s, int32_t day, gpi_diag *d)
{
    idx_v3_out *o = &s->out;
    if (GPI_VEC_RESERVE(s->pg, s->cap_pg, s->ng + 1)) return oom(d);
    o->groups = s->pg;
    o->n_groups = 0;
    o->panel_size = o->n_imputed = o->n_candidates = 0;
    o->panel_change = 0;
    for (size_t i = 0; i < s->ng; i++) {
        const v3_group *x = &s->gr[i];
        if (x->role == IDX_V3_NONE) continue;
        idx_v3_pgroup *p = &s->pg[o->n_groups++];
        memset(p, 0, sizeof *p);
        p->name = x->name;
        p->hash = x->hash;
        p->role = x->role;
        p->present_days = x->streak;
        p->absent_days = x->role == IDX_V3_IMPUTED || x->role == IDX_V3_LEFT ? x->absent : 0;
        p->since = x->role == IDX_V3_MEMBER || x->role == IDX_V3_IMPUTED ? x->since : INT32_MIN;
        p->last_seen = x->present ? day : x->last_seen;
        p->joined = x->joined;
        p->offers_median_h = p->trade_volume = -1;
        p->trade_rep_q = p->trade_ref_q = -1;
        p->trade_ref_day = INT32_MIN;
        if (x->role == IDX_V3_MEMBER || x->role == IDX_V3_IMPUTED) {
            o->panel_size++;
            p->offers_median_h = group_median_h(s, (int32_t)i, &p->n_offers);
            int64_t vol = 0;
            long nt = 0;
            for (size_t j = 0; j < s->nft; j++)
                if (s->ft[j].group == (int32_t)i && s->ft[j].reason == IDX_OK) {
                    vol += s->ft[j].qty_micro;
                    nt++;
                }
            p->n_trades = nt;
            p->trade_volume = nt ? vol : -1;
        }
        if (x->role == IDX_V3_IMPUTED && s->unobserved) {
            o->n_imputed++; /* design note 5: nothing carried into the fix */
        } else if (x->role == IDX_V3_IMPUTED) {
            o->n_imputed++;
            p->carried_o = x->o;
            p->n_carried_o = x->no;
            p->carried_t = x->t;
            p->n_carried_t = x->nt;
        }
        if (x->role == IDX_V3_CANDIDATE) o->n_candidates++;
        if (x->joined || x->role == IDX_V3_LEFT) o->panel_change = 1;
    }
    return GPI_OK;
}

/* Design note 4: the used observations of each group present on the day
 * become its last ones. */
static gpi_status keep_last(idx_v3 *s, const idx_v3_input *in, int32_t day, gpi_diag *d)
{
    for (size_t i = 0; i < s->ng; i++)
        if (s->gr[i].present) {
            s->gr[i].no = s->gr[i].nt = 0;
            s->gr[i].last_seen = day;
        }
    for (int k = 0; k < 2; k++) {
        const idx_item *v = k ? in->trades : in->offers;
        size_t n = k ? in->n_trades : in->n_offers;
        for (size_t i = 0; i < n; i++) {
            if (v[i].reason != IDX_OK) continue;
            v3_group *x = &s->gr[s->gmap[v[i].group]];
            idx_item it = v[i];
            it.group = 0;
            gpi_status rc = k ? push(&x->t, &x->nt, &x->cap_t, it, d)
                              : push(&x->o, &x->no, &x->cap_o, it, d);
            if (rc != GPI_OK) return rc;
        }
    }
    /* in the fix's order, so an imputed member's carried observations sort
     * as they did */
    for (size_t i = 0; i < s->ng; i++)
        if (s->gr[i].present) {
            idx_sort_items(s->gr[i].o, s->gr[i].no, IDX_BY_GROUP_PRICE);
            idx_sort_items(s->gr[i].t, s->gr[i].nt, IDX_BY_GROUP_PRICE);
        }
    return GPI_OK;
}

static void level_stats(idx_v3_out *o, const idx_v3_stats *st)
{
    const int lv = o->e.level;
    for (int i = 0; i < 7; i++) o->spread[i] = -1;
    o->top_share_e6 = -1;
    if (lv == GPI_LEVEL_TRADES) {
        o->n_obs = st->t_obs;
        o->n_excluded = st->t_excl;
        o->n_providers = st->t_prov;
        memcpy(o->spread, st->t_spread, sizeof o->spread);
        o->top_share_e6 = st->t_top;
    } else if (lv == GPI_LEVEL_OFFERS) {
        o->n_obs = st->o_obs;
        o->n_excluded = st->o_excl;
        o->n_providers = st->o_prov;
        memcpy(o->spread, st->o_spread, sizeof o->spread);
        o->top_share_e6 = st->o_top;
    } else {
        o->n_obs = st->all_obs;
        o->n_excluded = 0;
        o->n_providers = st->all_prov;
    }
}

static gpi_status step_one(idx_v3 *s, const idx_v3_input *in, gpi_diag *d)
{
    int32_t day = in->day;
    purge(s);
    gpi_status rc = presence(s, in, d);
    if (rc != GPI_OK) return rc;
    roles(s, day);
    if ((rc = fix_items(s, in, d)) != GPI_OK) return rc;
    idx_v3_out *o = &s->out;
    memset(o, 0, sizeof *o);
    if ((rc = list_groups(s, day, d)) != GPI_OK) return rc;
    idx_v3_stats st;
    if ((rc = v3_fix_stats(s, -1, &st, d)) != GPI_OK) return rc;
    o->trades_raw_q = st.t_q;
    o->offers_raw_q = st.o_q;
    o->trade_volume_micro = st.volume;
    o->all_obs = st.all_obs;
    o->all_providers = st.all_prov;
    o->trade_providers = st.t_prov;
    o->offer_providers = st.o_prov;
    /* what one member does (before the sequence moves past the day) */
    if ((rc = v3_leave_one_out(s, day, d)) != GPI_OK) return rc;
    if ((rc = v3_reach_day(s, day, d)) != GPI_OK) return rc;
    idx_seq_next(&s->seq, day, st.t_q, st.o_q, &o->e);
    if ((rc = v3_reach_month(s, day, d)) != GPI_OK) return rc;
    level_stats(o, &st);
    idx_v3_note(s->g, &st, &o->e, o->n_candidates, s->unobserved ? o->n_imputed : 0, o->note,
                sizeof o->note);
    if ((rc = v3_index_step(s, in, d)) != GPI_OK) return rc;
    v3_index_gaps(s, day);
    if ((rc = v3_items_update(s, in, d)) != GPI_OK) return rc;
    if ((rc = keep_last(s, in, day, d)) != GPI_OK) return rc;
    s->last_day = day;
    s->value_last_e4 = o->e.level == GPI_LEVEL_SUSPENDED ? -1 : o->e.value_e4;
    s->index_last_on = o->index_on;
    return GPI_OK;
}

gpi_status idx_v3_step(idx_v3 *s, const idx_v3_input *in, idx_v3_out **out, gpi_diag *d)
{
    if (out) *out = NULL;
    if (s->last_day != INT32_MIN && in->day <= s->last_day)
        return gpi_diag_set(d, GPI_EUSAGE, "v3: grade %s: days must come in ascending order",
                            s->g->id);
    gpi_status rc = GPI_OK;
    if (s->last_day != INT32_MIN) { /* days skipped: without observations */
        idx_v3_input empty = {s->last_day + 1, NULL, NULL, 0, 0, in->names, 0};
        for (; empty.day < in->day && rc == GPI_OK; empty.day++) rc = step_one(s, &empty, d);
    }
    if (rc == GPI_OK) rc = step_one(s, in, d);
    if (rc == GPI_OK && out) *out = &s->out;
    return rc;
}
