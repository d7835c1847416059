/* curve/read.c -- a day's curve inputs from the store (curve/read.h).
 *
 * NOTES ON THE DESIGN
 * (1) One scan of the day (store_obs_scan_core: the audit columns are not
 *     needed; a quote's published key is its identity hash without the top
 *     bit -- observations.csv's key modulo 2^63 -- which the store's key
 *     holds, so the identity texts are not read: they were half of the
 *     scan's cost on the bench market's days).  The scan runs in key order, an offer's snapshots in time order, offers
 *     before trades: an offer's latest snapshot is the last row of its key,
 *     whatever grade it is in (METHODOLOGY.md §2.3).  Each kept row
 *     records, per grade, whether the grade takes it as it is (own term:
 *     a reference) or with its term read as reserved 1..60 (a term quote);
 *     the test is made once per stored profile (the filters depend on the
 *     profile only), as index/day.c does.
 * (2) References and quotes are screened as the index screens a grade's
 *     day (idx_screen: per provider group with three or more prices, the
 *     grade's error_factor), references and quotes apart, offers and
 *     trades apart.  An offer's reference is its twin's price: the median
 *     of its group's screened offers in the grade with the same region,
 *     scope and sku (the same listing on demand) when there is one within
 *     1/1.25 .. 1.25 of the group's median (a listing whose price of the
 *     day is stale or promotional is no twin), else the median of all its
 *     group's screened offers.  A trade's reference is its
 *     group's volume-weighted median of its screened ok trades (§4.1
 *     within one provider: no cap).  All in quarter-micro-USD.
 */
#include "curve/read.h"
#include "core/vec.h"
#include "store/curves.h"
#include "store/obs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct kept {
    int kind, status, term_months, scope;
    int64_t at, price, qty;
    uint64_t key, ident;
    const char *provider, *group, *source, *region, *sku;
} kept;

typedef struct start_row {
    uint64_t key;
    int64_t at;
    int32_t starts_on;
} start_row;

typedef struct rd {
    const idx_grades *gs;
    idx_grade *term;            /* each grade with its term read as reserved 1..60 */
    size_t ng;
    kept *v;
    size_t n, cap;
    unsigned char *flags;       /* [n * ng]: bit 0 own grade, bit 1 term grade */
    size_t cap_flags;
    unsigned char *memo;        /* [profile * ng]: flags + 4 when known */
    size_t cap_memo;            /* in profiles */
    start_row *starts;
    size_t n_starts, cap_starts;
    int oom;
} rd;

void curve_params_of(const idx_grade *g, curve_params *p)
{
    curve_params_default(p);
    p->error_factor_e6 = g->p.error_factor_e6;
}

static int on_demand(const idx_grade *g)
{
    return g->term == GPI_TERM_ON_DEMAND;
}

static void match(rd *r, const gpi_obs *o, unsigned char *out)
{
    unsigned char *m = NULL;
    if (o->profile_id) {
        size_t need = ((size_t)o->profile_id + 1) * r->ng;
        if (need > r->cap_memo * r->ng) {
            size_t cap = r->cap_memo ? r->cap_memo : 1024;
            while (cap * r->ng < need) cap *= 2;
            unsigned char *x = realloc(r->memo, cap * r->ng);
            if (!x) {
                r->oom = 1;
                return;
            }
            memset(x + r->cap_memo * r->ng, 0, (cap - r->cap_memo) * r->ng);
            r->memo = x;
            r->cap_memo = cap;
        }
        m = r->memo + (size_t)o->profile_id * r->ng;
        if (r->ng && (m[0] & 4)) {
            for (size_t gi = 0; gi < r->ng; gi++) out[gi] = m[gi] & 3;
            return;
        }
    }
    for (size_t gi = 0; gi < r->ng; gi++) {
        const idx_grade *g = &r->gs->g[gi];
        unsigned char f = 0;
        if (on_demand(g)) {
            if (idx_grade_match(g, o)) f |= 1;
            if (o->term == GPI_TERM_RESERVED && idx_grade_match(&r->term[gi], o)) f |= 2;
        }
        out[gi] = f;
        if (m) m[gi] = (unsigned char)(f | 4);
    }
}

static int on_obs(const gpi_obs *o, void *ud)
{
    rd *r = ud;
    /* the key's earlier snapshot, when kept, is the last kept row (note 1) */
    int replace = o->kind == GPI_OFFER && r->n && r->v[r->n - 1].kind == GPI_OFFER &&
                  r->v[r->n - 1].key == o->key_hash;
    unsigned char f[256], any = 0;
    unsigned char *fl = r->ng <= sizeof f ? f : malloc(r->ng);
    if (!fl) {
        r->oom = 1;
        return 1;
    }
    match(r, o, fl);
    for (size_t gi = 0; gi < r->ng; gi++) any |= fl[gi];
    size_t at;
    if (!any) {
        if (replace) r->n--; /* superseded by a snapshot no grade takes */
        if (fl != f) free(fl);
        return 0;
    }
    if (replace) {
        at = r->n - 1;
    } else {
        if (GPI_VEC_RESERVE(r->v, r->cap, r->n + 1) != 0 ||
            GPI_VEC_RESERVE(r->flags, r->cap_flags, (r->n + 1) * r->ng) != 0) {
            r->oom = 1;
            if (fl != f) free(fl);
            return 1;
        }
        at = r->n++;
    }
    kept *k = &r->v[at];
    k->kind = o->kind;
    k->status = o->status;
    k->term_months = o->term_months;
    k->at = o->observed_at;
    k->price = o->price_micro;
    k->qty = o->quantity_micro;
    k->key = o->key_hash;
    /* the identity hash without its top bit (note 1) */
    k->ident = o->key_hash & ~GPI_KEY_TRADE_BIT;
    k->provider = o->provider;
    k->group = o->group;
    k->source = o->source;
    k->region = o->region;
    k->sku = o->sku;
    k->scope = o->scope;
    memcpy(r->flags + at * r->ng, fl, r->ng);
    if (fl != f) free(fl);
    return 0;
}

static int on_start(uint64_t key, int64_t at, int32_t starts_on, void *ud)
{
    rd *r = ud;
    if (GPI_VEC_RESERVE(r->starts, r->cap_starts, r->n_starts + 1) != 0) {
        r->oom = 1;
        return 1;
    }
    r->starts[r->n_starts++] = (start_row){key, at, starts_on};
    return 0;
}

static int32_t start_of(const rd *r, uint64_t key, int64_t at)
{
    for (size_t i = 0; i < r->n_starts; i++)
        if (r->starts[i].key == key && r->starts[i].at == at) return r->starts[i].starts_on;
    return 0;
}

/* ---- screens and references (note 2) ------------------------------------------ */

typedef struct names {
    const char **v;
    size_t n, cap;
} names;

static int32_t name_id(names *nm, const char *s)
{
    for (size_t i = 0; i < nm->n; i++) /* interned: the same text is the same pointer */
        if (nm->v[i] == s) return (int32_t)i;
    for (size_t i = 0; i < nm->n; i++)
        if (strcmp(nm->v[i], s) == 0) return (int32_t)i;
    if (GPI_VEC_RESERVE(nm->v, nm->cap, nm->n + 1) != 0) return -1;
    nm->v[nm->n] = s;
    return (int32_t)nm->n++;
}

/* Items of the rows with flag `bit` for grade gi and kind (trades: status
 * ok only when ok_only), screened with factor; idx[j] is the kept row. */
static gpi_status items(rd *r, const size_t *rows, size_t nrows, size_t gi, int bit, int kind,
                        int ok_only, int64_t factor, names *nm, idx_item **out, size_t **idx,
                        size_t *n, gpi_diag *d)
{
    *out = NULL;
    *idx = NULL;
    *n = 0;
    size_t cnt = 0;
    for (size_t j = 0; j < nrows; j++) {
        size_t i = rows[j];
        if ((r->flags[i * r->ng + gi] & bit) && r->v[i].kind == kind &&
            (!ok_only || r->v[i].status == GPI_STATUS_OK))
            cnt++;
    }
    if (!cnt) return GPI_OK;
    idx_item *v = calloc(cnt, sizeof *v);
    size_t *ix = calloc(cnt, sizeof *ix);
    double *work = calloc(2 * cnt, sizeof *work);
    if (!v || !ix || !work) {
        free(v);
        free(ix);
        free(work);
        return gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    }
    size_t k = 0;
    for (size_t j = 0; j < nrows; j++) {
        size_t i = rows[j];
        const kept *x = &r->v[i];
        if (!(r->flags[i * r->ng + gi] & bit) || x->kind != kind ||
            (ok_only && x->status != GPI_STATUS_OK))
            continue;
        int32_t g = name_id(nm, x->group ? x->group : "");
        if (g < 0) {
            free(v);
            free(ix);
            free(work);
            return gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
        }
        /* key: the row's position, so the screen's order is the scan's and
         * each item finds its row again */
        v[k] = (idx_item){x->price, x->qty > 0 ? x->qty : 0, (uint64_t)i, x->at, g,
                          x->status == GPI_STATUS_CANCELLED   ? IDX_EX_CANCELLED
                          : x->status == GPI_STATUS_AFFILIATE ? IDX_EX_AFFILIATE
                                                              : IDX_OK};
        k++;
    }
    idx_screen(v, cnt, factor, work);
    for (size_t j = 0; j < cnt; j++) ix[j] = (size_t)v[j].key_hash;
    free(work);
    *out = v;
    *idx = ix;
    *n = cnt;
    return GPI_OK;
}

/* The group references of sorted, screened items (idx_screen's order:
 * group, price, key): ref[group] in quarter-micro, -1 none. */
static gpi_status references(idx_item *v, size_t n, int kind, int64_t *ref, size_t nref,
                             gpi_diag *d)
{
    for (size_t g = 0; g < nref; g++) ref[g] = -1;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && v[j].group == v[i].group) j++;
        /* the group's IDX_OK items, price-sorted */
        idx_item *ok = malloc((j - i) * sizeof *ok);
        if (!ok) return gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
        size_t m = 0;
        for (size_t k = i; k < j; k++)
            if (v[k].reason == IDX_OK) ok[m++] = v[k];
        int32_t g = v[i].group;
        if (m && (size_t)g < nref) {
            if (kind == GPI_OFFER) {
                ref[g] = m % 2 ? 4 * ok[m / 2].price_micro
                               : 2 * (ok[m / 2 - 1].price_micro + ok[m / 2].price_micro);
            } else {
                int64_t q;
                gpi_status rc = idx_weighted_median(ok, m, 1000000, &q, d);
                if (rc != GPI_OK) {
                    free(ok);
                    return rc;
                }
                ref[g] = q;
            }
        }
        free(ok);
        i = j;
    }
    return GPI_OK;
}

/* The store's names are interned (store/obs.h): one text, one pointer, so
 * two names are the same text exactly when they are the same pointer
 * (NULL and "" alike). */
static int same_text(const char *a, const char *b)
{
    return a == b || ((!a || !*a) && (!b || !*b));
}

/* A screened offer of a group in the grade, as its twin's key (note 2). */
typedef struct twin_key {
    const char *region, *sku;
    int scope;
    int32_t group;
    int64_t price;
} twin_key;

/* An offer's twin reference (note 2): the median of the screened offers of
 * its group in the grade with its region, scope and sku (tk[first[group]..],
 * price-sorted within the group), in quarter-micro; -1 when the group
 * lists none. */
static int64_t twin(const twin_key *tk, size_t n, const size_t *first, size_t nfirst,
                    int32_t group, const kept *x)
{
    int64_t p[64];
    size_t m = 0, i = group >= 0 && (size_t)group < nfirst ? first[group] : n;
    for (; i < n && tk[i].group == group; i++) {
        if (tk[i].scope != x->scope || !same_text(tk[i].region, x->region) ||
            !same_text(tk[i].sku, x->sku))
            continue;
        if (m < sizeof p / sizeof p[0]) p[m++] = tk[i].price;
    }
    if (!m) return -1;
    return m % 2 ? 4 * p[m / 2] : 2 * (p[m / 2 - 1] + p[m / 2]);
}

static gpi_status grade_inputs(rd *r, const size_t *rows, size_t nrows, size_t *pos, size_t gi,
                               curve_inputs *ci, gpi_diag *d)
{
    const idx_grade *g = &r->gs->g[gi];
    if (!on_demand(g)) {
        ci->why = curve_only_on_demand;
        return GPI_OK;
    }
    int64_t F = g->p.error_factor_e6;
    names nm = {0};
    gpi_status rc = GPI_OK;
    idx_item *rv[2] = {NULL, NULL}, *qv[2] = {NULL, NULL};
    size_t *ri[2] = {NULL, NULL}, *qi[2] = {NULL, NULL}, rn[2] = {0, 0}, qn[2] = {0, 0};
    int64_t *ref[2] = {NULL, NULL};
    for (int kind = 0; kind < 2 && rc == GPI_OK; kind++) {
        rc = items(r, rows, nrows, gi, 1, kind, 1, F, &nm, &rv[kind], &ri[kind], &rn[kind], d);
        if (rc == GPI_OK)
            rc = items(r, rows, nrows, gi, 2, kind, 0, F, &nm, &qv[kind], &qi[kind], &qn[kind], d);
    }
    for (int kind = 0; kind < 2 && rc == GPI_OK; kind++) {
        ref[kind] = malloc((nm.n ? nm.n : 1) * sizeof *ref[kind]);
        if (!ref[kind]) rc = gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
        else rc = references(rv[kind], rn[kind], kind, ref[kind], nm.n, d);
    }
    /* the groups' screened offers as twin keys, contiguous (idx_screen
     * sorts by group, then price), and where each group's start */
    size_t ntk = 0, *first = NULL;
    twin_key *tk = NULL;
    if (rc == GPI_OK) {
        first = malloc((nm.n ? nm.n : 1) * sizeof *first);
        tk = malloc((rn[GPI_OFFER] ? rn[GPI_OFFER] : 1) * sizeof *tk);
        if (!first || !tk) rc = gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    }
    for (size_t j = 0; rc == GPI_OK && j < rn[GPI_OFFER]; j++) {
        const idx_item *it = &rv[GPI_OFFER][j];
        if (it->reason != IDX_OK) continue;
        const kept *y = &r->v[it->key_hash];
        tk[ntk++] = (twin_key){y->region, y->sku, y->scope, it->group, it->price_micro};
    }
    for (size_t k = 0; first && k < nm.n; k++) first[k] = ntk;
    for (size_t j = ntk; first && j-- > 0;) first[tk[j].group] = j;
    /* the quotes: offers then trades, each in the scan's order (pos: the
     * caller's r->n slots, SIZE_MAX outside this use) */
    for (int kind = 0; kind < 2 && rc == GPI_OK; kind++) {
        for (size_t j = 0; j < qn[kind]; j++) pos[qi[kind][j]] = j;
        for (size_t jr = 0; jr < nrows && rc == GPI_OK; jr++) {
            size_t i = rows[jr];
            if (!(r->flags[i * r->ng + gi] & 2) || r->v[i].kind != kind) continue;
            const kept *x = &r->v[i];
            if (GPI_VEC_RESERVE(ci->q, ci->cap, ci->n + 1) != 0) {
                rc = gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
                break;
            }
            curve_quote *q = &ci->q[ci->n++];
            memset(q, 0, sizeof *q);
            q->kind = kind;
            q->provider = x->provider;
            q->group = x->group;
            q->source = x->source;
            q->key = x->ident;
            q->observed_at = x->at;
            q->term_months = x->term_months;
            q->starts_on = start_of(r, x->key, x->at);
            q->price_micro = x->price;
            q->quantity_micro = kind == GPI_TRADE ? x->qty : -1;
            int32_t gid = name_id(&nm, x->group ? x->group : "");
            q->ref_q = gid >= 0 && (size_t)gid < nm.n && ref[kind] ? ref[kind][gid] : -1;
            q->ref_twin = 0;
            if (kind == GPI_OFFER) {
                int64_t tw = twin(tk, ntk, first, nm.n, gid, x);
                /* a listing far off its group (a stale or promotional price
                 * of the day) is no twin: within 1/1.25 .. 1.25 of it */
                if (tw >= 0 && q->ref_q > 0 && (tw * 4 > q->ref_q * 5 || tw * 5 < q->ref_q * 4))
                    tw = -1;
                if (tw >= 0) {
                    q->ref_q = tw;
                    q->ref_twin = 1;
                }
            }
            int reason = pos[i] != SIZE_MAX ? qv[kind][pos[i]].reason : IDX_OK;
            q->pre_reason = reason != IDX_OK ? idx_reason_name(reason) : NULL;
        }
        for (size_t j = 0; j < qn[kind]; j++) pos[qi[kind][j]] = SIZE_MAX;
    }
    free(first);
    free(tk);
    for (int k = 0; k < 2; k++) {
        free(rv[k]);
        free(qv[k]);
        free(ri[k]);
        free(qi[k]);
        free(ref[k]);
    }
    free(nm.v);
    return rc;
}

gpi_status curve_day_read(store *st, const idx_grades *gs, int32_t day, int64_t as_of,
                          curve_day *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->day = day;
    out->n = gs->n;
    out->g = calloc(gs->n ? gs->n : 1, sizeof *out->g);
    rd r;
    memset(&r, 0, sizeof r);
    r.gs = gs;
    r.ng = gs->n;
    r.term = calloc(gs->n ? gs->n : 1, sizeof *r.term);
    if (!out->g || !r.term) {
        free(r.term);
        curve_day_free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    }
    int any = 0;
    for (size_t gi = 0; gi < gs->n; gi++) {
        r.term[gi] = gs->g[gi];
        r.term[gi].term = GPI_TERM_RESERVED;
        r.term[gi].term_min = 1;
        r.term[gi].term_max = 60;
        any |= on_demand(&gs->g[gi]);
    }
    gpi_status rc = GPI_OK;
    if (any) rc = store_obs_scan_core(st, day, day, as_of, on_obs, &r, d);
    if (rc == GPI_OK && r.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    if (rc == GPI_OK && any) rc = store_obs_starts(st, day, on_start, &r, d);
    if (rc == GPI_OK && r.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    /* each grade's rows, and a row -> position map the grades share */
    size_t *rows = rc == GPI_OK ? malloc((r.n ? r.n : 1) * sizeof *rows) : NULL;
    size_t *pos = rc == GPI_OK ? malloc((r.n ? r.n : 1) * sizeof *pos) : NULL;
    if (rc == GPI_OK && (!rows || !pos)) rc = gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    for (size_t i = 0; rc == GPI_OK && i < r.n; i++) pos[i] = SIZE_MAX;
    for (size_t gi = 0; gi < gs->n && rc == GPI_OK; gi++) {
        size_t nrows = 0;
        for (size_t i = 0; i < r.n; i++)
            if (r.flags[i * r.ng + gi]) rows[nrows++] = i;
        rc = grade_inputs(&r, rows, nrows, pos, gi, &out->g[gi], d);
    }
    free(rows);
    free(pos);
    free(r.term);
    free(r.v);
    free(r.flags);
    free(r.memo);
    free(r.starts);
    if (rc != GPI_OK) curve_day_free(out);
    return rc;
}

void curve_day_free(curve_day *cd)
{
    for (size_t i = 0; cd->g && i < cd->n; i++) free(cd->g[i].q);
    free(cd->g);
    memset(cd, 0, sizeof *cd);
}
