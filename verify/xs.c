/* verify/xs.c -- the cross-section of a published row recomputed
 * (METHODOLOGY.md §2-§5, §7; for v2 rows the cross-section of §10.6).
 *
 * NOTES ON THE DESIGN
 * (1) What observations.csv lists decides what can be recomputed: a v2
 *     grade lists every constituent of both kinds and every exclusion, so
 *     both levels are recomputed; a v1 grade lists the observations of
 *     the level used (and the exclusions of both), so on a trades day the
 *     offers raw value, and on an offers day the trades, are taken as
 *     published (their absence of a fix included), and on a carried or
 *     suspended day only the carry is checked.
 * (2) The screen is recomputed over every listed observation of a kind
 *     whose lines are complete (idx_screen: the same rule, the item's line
 *     riding in key_hash), and each line's role and reason must agree.
 *     Cancelled and affiliate trades are statuses of the input, taken as
 *     published.
 * (3) Inputs from other days -- the adjustment's days (their raw values),
 *     the value and carry carried from the day before -- are checked
 *     against those days' index.json when DIR has them (vchk_missing
 *     otherwise).
 */
#include "verify/internal.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

int vitems_group(vitems *it, const char *name)
{
    for (size_t i = 0; i < it->n_names; i++)
        if (strcmp(it->names[i], name) == 0) return (int)i;
    if (GPI_VEC_RESERVE(it->names, it->cap_names, it->n_names + 1) != 0) return -1;
    it->names[it->n_names] = name;
    return (int)it->n_names++;
}

void vitems_free(vitems *it)
{
    free(it->v);
    free(it->names);
    memset(it, 0, sizeof *it);
}

static int vitems_push(vitems *it, idx_item x)
{
    if (GPI_VEC_RESERVE(it->v, it->cap, it->n + 1) != 0) return -1;
    it->v[it->n++] = x;
    return 0;
}

/* A published member as a fixed-point number; -2 (and a difference) when
 * it cannot be read. */
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

static int level_of(const char *s)
{
    for (int l = 0; l < GPI_LEVEL__N; l++)
        if (s && strcmp(s, gpi_level_name(l)) == 0) return l;
    return -1;
}

/* ---- one kind: screen and statistics ------------------------------------------ */

typedef struct kstat {
    int complete;               /* every listed observation of the kind (design note 1) */
    long n_obs, n_excluded, n_providers;
    int64_t volume, raw_q;      /* raw_q: -1 when the level does not qualify */
    int64_t spread[7], top_share_e6;
    vitems it;                  /* every listed observation of the kind, screened */
} kstat;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Builds and screens the items of kind k of row r (design note 2). */
static gpi_status kind_items(vday *dy, vrow *r, const idx_grade *g, int kind, kstat *ks,
                             vchk *c, double **work, size_t *cap_work, gpi_diag *d)
{
    for (size_t i = 0; i < r->n_obs; i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        if (o->kind != kind) continue;
        int gid = vitems_group(&ks->it, o->group);
        int reason = IDX_EX_INELIGIBLE(o->reason) ? o->reason : IDX_OK;
        if (gid < 0 || vitems_push(&ks->it, (idx_item){o->price, o->qty < 0 ? 0 : o->qty,
                                                       (uint64_t)r->obs[i], o->line, gid,
                                                       reason}))
            return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    if (GPI_VEC_RESERVE(*work, *cap_work, 2 * ks->it.n + 2) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (!ks->complete) { /* the listed roles stand */
        for (size_t i = 0; i < ks->it.n; i++) {
            const vobs *o = &dy->obs[ks->it.v[i].key_hash];
            if (ks->it.v[i].reason == IDX_OK) ks->it.v[i].reason = o->reason;
        }
        return GPI_OK;
    }
    idx_screen(ks->it.v, ks->it.n, g->p.error_factor_e6, *work);
    for (size_t i = 0; i < ks->it.n && !vchk_failed(c); i++) {
        const vobs *o = &dy->obs[ks->it.v[i].key_hash];
        int want = ks->it.v[i].reason;
        if (want != o->reason)
            vchk_diff(c, 0, "observations.csv:%ld reason: published \"%s\", recomputed \"%s\"",
                      o->line, idx_reason_name(o->reason), idx_reason_name(want));
    }
    return GPI_OK;
}

static void kind_stats(const idx_grade *g, int kind, kstat *ks, double *work)
{
    const idx_params *p = &g->p;
    vitems *it = &ks->it;
    ks->raw_q = -1;
    ks->top_share_e6 = -1;
    for (int i = 0; i < 7; i++) ks->spread[i] = -1;
    char *seen = calloc(it->n_names + 1, 1);
    int64_t *w = calloc(it->n_names + 1, sizeof *w);
    __int128 total = 0, best = 0;
    for (size_t i = 0; seen && w && i < it->n; i++) {
        const idx_item *x = &it->v[i];
        if (IDX_EX_INELIGIBLE(x->reason)) continue;
        ks->n_obs++;
        if (x->reason != IDX_OK) {
            ks->n_excluded++;
            continue;
        }
        if (!seen[x->group]) ks->n_providers++;
        seen[x->group] = 1;
        int64_t wt = kind == GPI_TRADE ? x->qty_micro : 1;
        w[x->group] += wt;
        total += wt;
        if (kind == GPI_TRADE) ks->volume += x->qty_micro;
    }
    for (size_t k = 0; w && k < it->n_names; k++)
        if (w[k] > best) best = w[k];
    if (total > 0) ks->top_share_e6 = gpi_div_round(best * 1000000, total);
    free(seen);
    free(w);
    idx_spread(it->v, it->n, work, ks->spread);
    if (kind == GPI_TRADE) {
        if (ks->volume >= p->min_trade_volume_micro && ks->volume > 0 &&
            ks->n_providers >= p->min_providers) {
            idx_item *cp = malloc((it->n + 1) * sizeof *cp);
            if (cp) {
                memcpy(cp, it->v, it->n * sizeof *cp);
                if (idx_weighted_median(cp, it->n, p->cap_floor_e6, &ks->raw_q, NULL) != GPI_OK)
                    ks->raw_q = -1;
                free(cp);
            }
        }
    } else {
        /* idx_screen left the items sorted by group then price */
        int64_t raw;
        size_t np = idx_median_of_medians(it->v, it->n, work, &raw);
        if (np > 0 && (long)np >= p->min_providers) ks->raw_q = raw;
    }
}

/* ---- the constituents' band (v2; index/row.c design note 3) --------------------- */

static const int band_q[5][2] = {{1, 10}, {1, 4}, {1, 2}, {3, 4}, {9, 10}};

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

static void band(const idx_grade *g, int level, kstat *ts, kstat *os, int64_t adj_e6,
                 int64_t out[7])
{
    for (int i = 0; i < 7; i++) out[i] = -1;
    if (level == GPI_LEVEL_TRADES) {
        vitems *it = &ts->it;
        idx_item *cp = malloc((it->n + 1) * sizeof *cp);
        if (!cp) return;
        size_t m = 0;
        int64_t lo = -1, hi = -1;
        for (size_t i = 0; i < it->n; i++) {
            if (it->v[i].reason != IDX_OK) continue;
            cp[m++] = it->v[i];
            if (lo < 0 || it->v[i].price_micro < lo) lo = it->v[i].price_micro;
            if (it->v[i].price_micro > hi) hi = it->v[i].price_micro;
        }
        for (int k = 0; k < 5 && m > 0; k++) {
            int64_t q;
            if (idx_weighted_quantile(cp, m, g->p.cap_floor_e6, band_q[k][0], band_q[k][1], &q,
                                      NULL) == GPI_OK)
                out[k] = gpi_div_round(q, 4);
        }
        if (m > 0) out[5] = lo, out[6] = hi;
        free(cp);
    } else if (level == GPI_LEVEL_OFFERS) {
        vitems *it = &os->it; /* sorted by group then price (idx_screen) */
        int64_t *med = malloc((it->n + 1) * sizeof *med), *px = malloc((it->n + 1) * sizeof *px);
        size_t np = 0;
        for (size_t i = 0; med && px && i < it->n;) {
            size_t j = i, m = 0;
            while (j < it->n && it->v[j].group == it->v[i].group) {
                if (it->v[j].reason == IDX_OK) px[m++] = it->v[j].price_micro;
                j++;
            }
            if (m > 0) med[np++] = m % 2 ? 2 * px[m / 2] : px[m / 2 - 1] + px[m / 2];
            i = j;
        }
        if (np > 0) {
            qsort(med, np, sizeof *med, cmp_i64);
            if (adj_e6 < 0) adj_e6 = 1000000;
            for (int k = 0; k < 5; k++)
                out[k] = gpi_div_round((__int128)equal_quantile2(med, np, band_q[k][0],
                                                                 band_q[k][1]) * adj_e6,
                                       (__int128)4 * 1000000);
            out[5] = gpi_div_round((__int128)med[0] * adj_e6, (__int128)2 * 1000000);
            out[6] = gpi_div_round((__int128)med[np - 1] * adj_e6, (__int128)2 * 1000000);
        }
        free(med);
        free(px);
    }
}

/* ---- adjustment ----------------------------------------------------------------- */

/* The adjustment of an offers day from the published adjustment_days, its
 * inputs checked against DIR (design note 3); -2 after a difference. */
int64_t vxs_adjustment(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, vchk *c,
                       gpi_diag *d, gpi_status *rc)
{
    json_t *days = json_object_get(r->j, "adjustment_days");
    if (!json_is_array(days)) {
        vchk_diff(c, 0, "index.json adjustment_days: missing");
        return -2;
    }
    size_t n = json_array_size(days);
    int64_t *t = malloc((n + 1) * sizeof *t), *o = malloc((n + 1) * sizeof *o);
    int32_t *k = malloc((n + 1) * sizeof *k);
    int64_t adj = -2;
    if (!t || !o || !k) {
        *rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        goto done;
    }
    int L = g->p.adj_lookback_days;
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(days, i);
        int64_t te8, oe8;
        const char *why = vj_date(x, "date", &k[i]);
        if (!why) why = vj_fixed(x, "trades_raw", 8, &te8);
        if (!why) why = vj_fixed(x, "offers_raw", 8, &oe8);
        if (!why && (te8 <= 0 || oe8 <= 0 || te8 % 25 || oe8 % 25)) why = "not a raw value";
        if (!why && (k[i] < dy->day - L || k[i] >= dy->day || (i > 0 && k[i] <= k[i - 1])))
            why = "not a day of the lookback window, in order";
        if (why) {
            vchk_diff(c, 0, "index.json adjustment_days[%zu]: %s", i, why);
            goto done;
        }
        t[i] = te8 / 25;
        o[i] = oe8 / 25;
    }
    adj = idx_adjustment_e6(t, o, n, g->p.adj_min_days);
    /* every day of the window: listed iff it had both raw values */
    size_t j = 0;
    for (int32_t day = dy->day - L; day < dy->day && *rc == GPI_OK; day++) {
        int listed = j < n && k[j] == day;
        vday *kd;
        *rc = vday_get(v, day, &kd, d);
        if (*rc != GPI_OK) break;
        vrow *kr = kd->present ? vday_row(kd, r->grade) : NULL;
        if (!kr) {
            vchk_missing(c, day, "adjustment");
        } else {
            int64_t kt, ko;
            if (vj_fixed(kr->j, "trades_raw", 8, &kt) || vj_fixed(kr->j, "offers_raw", 8, &ko)) {
                vchk_diff(c, 0, "adjustment_days: %s/index.json raw values unreadable", kd->path);
            } else if (listed != (kt > 0 && ko > 0) ||
                       (listed && (kt != t[j] * 25 || ko != o[j] * 25))) {
                char date[11];
                gpi_date_format(day, date);
                vchk_diff(c, 0, "adjustment_days %s: %s, but that day's index.json says trades_raw "
                          "%s, offers_raw %s", date, listed ? "listed" : "not listed",
                          kt > 0 ? "a value" : "none", ko > 0 ? "a value" : "none");
            }
        }
        j += (size_t)listed;
    }
done:
    free(t);
    free(o);
    free(k);
    return adj;
}

/* ---- the row ---------------------------------------------------------------------- */

static void v1_note(const idx_grade *g, const vxs *x, char *out, size_t n)
{
    const idx_params *p = &g->p;
    char a[32], b[32];
    if (x->all_obs == 0)
        snprintf(out, n, "no eligible observations");
    else
        snprintf(out, n,
                 "trades: %s GPU-hours from %ld providers (need %s from %d); offers: %ld "
                 "providers after the screen (need %d)",
                 gpi_fixed_format(gpi_div_round(x->trade_volume_micro, 10000), 2, a),
                 x->trade_providers, gpi_fixed_format(p->min_trade_volume_micro / 10000, 2, b),
                 p->min_providers, x->offer_providers, p->min_providers);
}

gpi_status vxs_check(verify_dir *v, vday *dy, vrow *r, const idx_grade *g, vchk *c, vxs *out,
                     gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->value_e4 = out->adj_e6 = out->trades_q = out->offers_q = out->top_share_e6 = -1;
    for (int i = 0; i < 7; i++) out->spread[i] = out->band[i] = -1;
    gpi_status rc = GPI_OK;
    json_t *j = r->j;
    /* the published level: v1 the row's, v2 the cross-section's */
    const char *lv_s = vj_str(j, r->v2 ? "xs_level" : "level");
    int level = level_of(lv_s);
    if (level < 0) {
        vchk_diff(c, 0, "index.json %s: not a level (got \"%s\")", r->v2 ? "xs_level" : "level",
                  lv_s ? lv_s : "");
        return GPI_OK;
    }
    for (size_t i = 0; i < r->n_obs; i++)
        if (dy->obs[r->obs[i]].bad) {
            vchk_diff(c, 0, "%s", dy->obs[r->obs[i]].bad);
            return GPI_OK;
        }
    kstat ts, os;
    memset(&ts, 0, sizeof ts);
    memset(&os, 0, sizeof os);
    ts.complete = r->v2 || level == GPI_LEVEL_TRADES;
    os.complete = r->v2 || level == GPI_LEVEL_OFFERS;
    out->complete = r->v2;
    double *work = NULL;
    size_t cap_work = 0;
    rc = kind_items(dy, r, g, GPI_TRADE, &ts, c, &work, &cap_work, d);
    if (rc == GPI_OK) rc = kind_items(dy, r, g, GPI_OFFER, &os, c, &work, &cap_work, d);
    if (rc != GPI_OK || vchk_failed(c)) goto done;
    kind_stats(g, GPI_TRADE, &ts, work);
    kind_stats(g, GPI_OFFER, &os, work);
    const idx_params *p = &g->p;
    out->trades_q = ts.complete ? ts.raw_q : -1;
    out->offers_q = os.complete ? os.raw_q : -1;
    out->trade_volume_micro = ts.volume;
    out->trade_providers = ts.n_providers;
    out->offer_providers = os.n_providers;
    out->all_obs = ts.n_obs + os.n_obs;
    {   /* all providers: distinct groups of the eligible observations of both kinds */
        vitems u = {0};
        for (int k = 0; k < 2; k++) {
            vitems *it = k ? &os.it : &ts.it;
            for (size_t i = 0; i < it->n; i++)
                if (!IDX_EX_INELIGIBLE(it->v[i].reason))
                    vitems_group(&u, it->names[it->v[i].group]);
        }
        out->all_providers = (long)u.n_names;
        vitems_free(&u);
    }
    /* published raw values (8 decimals, quarter-micro x 25) */
    int64_t pt = pub(c, j, "trades_raw", 8), po = pub(c, j, "offers_raw", 8);
    if (pt == -2 || po == -2) goto done;
    if (ts.complete) vchk_num(c, "trades_raw", pt, out->trades_q > 0 ? out->trades_q * 25 : -1, 8);
    if (os.complete) vchk_num(c, "offers_raw", po, out->offers_q > 0 ? out->offers_q * 25 : -1, 8);
    if (!ts.complete) out->trades_q = pt > 0 ? pt / 25 : -1; /* as published (design note 1) */
    if (!os.complete) out->offers_q = po > 0 ? po / 25 : -1;
    /* the level: trades, else offers, else carried or suspended */
    int want = out->trades_q > 0   ? GPI_LEVEL_TRADES
               : out->offers_q > 0 ? GPI_LEVEL_OFFERS
                                   : -1;
    if (want >= 0) {
        out->level = want;
    } else {
        /* carried while the day before had a value and fewer than
         * max_carry_days carries (checked against DIR/D-1 below) */
        int64_t carry = pub(c, j, r->v2 ? "xs_carry_days" : "carry_days", 0);
        if (carry == -2) goto done;
        out->level = carry > 0 ? GPI_LEVEL_CARRIED : GPI_LEVEL_SUSPENDED;
        out->carry = (int)carry;
    }
    vchk_text(c, r->v2 ? "xs_level" : "level", lv_s, gpi_level_name(out->level));
    if (vchk_failed(c)) goto done;
    /* the value */
    if (out->level == GPI_LEVEL_TRADES) {
        out->value_e4 = idx_value_e4(out->trades_q, 1000000, p->rounding_e4);
    } else if (out->level == GPI_LEVEL_OFFERS) {
        out->adj_e6 = vxs_adjustment(v, dy, r, g, c, d, &rc);
        if (rc != GPI_OK || out->adj_e6 == -2) goto done;
        out->value_e4 = idx_value_e4(out->offers_q, out->adj_e6, p->rounding_e4);
    } else {
        vday *pd;
        rc = vday_get(v, dy->day - 1, &pd, d);
        if (rc != GPI_OK) goto done;
        vrow *pr = pd->present ? vday_row(pd, r->grade) : NULL;
        int64_t pv = -1, pc = 0;
        const char *vk = r->v2 ? "xs_value" : "value", *ck = r->v2 ? "xs_carry_days" : "carry_days";
        out->exhausted = -1;
        if (!pr) {
            vchk_missing(c, dy->day - 1, out->level == GPI_LEVEL_CARRIED ? "carried value" : "carry");
            if (out->level == GPI_LEVEL_CARRIED) out->value_e4 = pub(c, j, vk, 4);
        } else if (vj_fixed(pr->j, vk, 4, &pv) || vj_fixed(pr->j, ck, 0, &pc)) {
            vchk_diff(c, 0, "%s: %s/index.json unreadable", vk, pd->path);
        } else if (out->level == GPI_LEVEL_CARRIED) {
            if (pv < 0 || pc >= p->max_carry_days)
                vchk_diff(c, 0, "%s: carried, but the day before has %s", r->v2 ? "xs_level" : "level",
                          pv < 0 ? "no value" : "been carried max_carry_days already");
            out->value_e4 = pv;
            vchk_int(c, ck, (long)out->carry, (long)pc + 1);
        } else if (pv >= 0 && pc < p->max_carry_days) {
            vchk_diff(c, 0, "%s: published suspended, recomputed carried (the day before has a value)",
                      r->v2 ? "xs_level" : "level");
        } else {
            out->exhausted = pv >= 0;
        }
    }
    if (vchk_failed(c)) goto done;
    {
        int64_t pv = pub(c, j, r->v2 ? "xs_value" : "value", 4);
        if (pv != -2) vchk_num(c, r->v2 ? "xs_value" : "value", pv, out->value_e4, 4);
        if (out->level != GPI_LEVEL_CARRIED) { /* v2: the cross-section's own carry */
            const char *ck = r->v2 ? "xs_carry_days" : "carry_days";
            int64_t pc = pub(c, j, ck, 0);
            if (pc != -2) vchk_int(c, ck, (long)pc, 0);
        }
    }
    /* the statistics of the level */
    kstat *ls = out->level == GPI_LEVEL_TRADES ? &ts : out->level == GPI_LEVEL_OFFERS ? &os : NULL;
    if (ls) {
        out->n_obs = ls->n_obs;
        out->n_excluded = ls->n_excluded;
        out->n_providers = ls->n_providers;
        memcpy(out->spread, ls->spread, sizeof out->spread);
        out->top_share_e6 = ls->top_share_e6;
    } else {
        out->n_obs = out->all_obs;
        out->n_providers = out->all_providers;
    }
    if (ls || r->v2) { /* a v1 carried or suspended day lists no observations */
        int64_t x;
        if ((x = pub(c, j, "n_obs", 0)) != -2) vchk_int(c, "n_obs", (long)x, out->n_obs);
        if ((x = pub(c, j, "n_excluded", 0)) != -2) vchk_int(c, "n_excluded", (long)x, out->n_excluded);
        if ((x = pub(c, j, "n_providers", 0)) != -2) vchk_int(c, "n_providers", (long)x, out->n_providers);
    }
    if (ts.complete) {
        int64_t x = pub(c, j, "trade_volume_gpu_hours", 2);
        if (x != -2) vchk_num(c, "trade_volume_gpu_hours", x, gpi_div_round(ts.volume, 10000), 2);
    }
    {
        int64_t x = pub(c, j, "adjustment", 6);
        if (x != -2) vchk_num(c, "adjustment", x, out->level == GPI_LEVEL_OFFERS ? out->adj_e6 : -1, 6);
    }
    static const char *const names[7] = {"p10", "p25", "p50", "p75", "p90", "min", "max"};
    if (r->v2) band(g, out->level, &ts, &os, out->adj_e6, out->band);
    json_t *ospread = r->v2 ? json_object_get(j, "observation_spread") : j;
    for (int i = 0; i < 7 && (ls || r->v2); i++) {
        int64_t x = pub(c, j, names[i], 6);
        if (x != -2) vchk_num(c, names[i], x, r->v2 ? out->band[i] : out->spread[i], 6);
        if (r->v2) {
            char f[48];
            snprintf(f, sizeof f, "observation_spread.%s", names[i]);
            int64_t y;
            const char *why = vj_fixed(ospread, names[i], 6, &y);
            if (why)
                vchk_diff(c, 0, "index.json %s: %s", f, why);
            else
                vchk_num(c, f, y, out->spread[i], 6);
        }
    }
    if (ls || r->v2) {
        int64_t x = pub(c, j, "top_provider_share", 6);
        if (x != -2) vchk_num(c, "top_provider_share", x, out->top_share_e6, 6);
    }
    /* the v1 note (why a day is carried or suspended) needs the counts of
     * both levels: recomputable when both are listed */
    if (out->level == GPI_LEVEL_TRADES || out->level == GPI_LEVEL_OFFERS) {
        out->note[0] = '\0';
    } else if (r->v2) {
        char why[256];
        v1_note(g, out, why, sizeof why);
        if (out->level == GPI_LEVEL_CARRIED)
            snprintf(out->note, sizeof out->note, "%s", why);
        else if (out->exhausted == 1)
            snprintf(out->note, sizeof out->note, "%s; carried %d days already (max_carry_days)",
                     why, p->max_carry_days);
        else if (out->exhausted == 0)
            snprintf(out->note, sizeof out->note, "%s; no earlier value to carry", why);
        else
            out->note[0] = '\0'; /* unknown without the day before */
    }
    if (!r->v2 && ls) {
        const char *pn = vj_str(j, "note");
        if (pn) vchk_text(c, "note", pn, "");
    }
done:
    vitems_free(&ts.it);
    vitems_free(&os.it);
    free(work);
    return rc;
}
