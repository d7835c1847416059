/* index/stale.c -- stale and repeating inputs over a range (index/stale.h).
 *
 * NOTES ON THE DESIGN
 * (1) One scan of the stored observations in key order, day by day: a
 *     key's last row of a day is its latest snapshot (the method's rule,
 *     taken before any grade filter); offers of each grade then update
 *     that grade's state.  Per identity (the store's key) the state is its
 *     last price and the first day of that price: an absent day does not
 *     reset it (a quote that comes back at the same price has stood all
 *     along).  A price "stands" d - since days on day d.
 * (2) A feed is a source and a provider group within the grade.  Its
 *     rows of a day are summed as a hash of (identity, price, quantity)
 *     per row, order-free; a day whose sum and count equal the day
 *     before's (the feed present on both) repeats it.  The longest run of
 *     repeats, in days including the first, is what is flagged: 30 days
 *     of a feed's rows, byte for byte the same but for the time, are a
 *     catalogue carried forward, not 30 quotes.
 * (3) The look back (IDX_STALE_LOOKBACK days before `from`) dates the
 *     prices standing at `from` and starts the runs; only days of the
 *     range are counted.
 */
#include "index/stale.h"
#include "store/obs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ident {
    uint64_t key;               /* 0: empty slot */
    int64_t price;
    int32_t since;
} ident;

typedef struct feed_st {
    const char *source, *group;
    uint64_t sig, prev_sig;
    long count, prev_count;
    int32_t prev_day;
    long run;
    int changed;                /* a price changed today */
} feed_st;

typedef struct grp_st {
    const char *name;
    int has, all_stale, fresh, changed, seen;
} grp_st;

typedef struct gstate {
    const idx_grade *g;
    int max_unchanged;
    ident *tab;
    size_t cap, n;
    feed_st *feed;
    size_t n_feed, cap_feed;
    grp_st *grp;
    size_t n_grp, cap_grp;
    double share_sum;
    idx_stale_grade *out;
    idx_stale_feed *fout;       /* per feed, parallel to feed */
    size_t cap_fout;
} gstate;

typedef struct scan_ctx {
    gstate *gs;
    size_t n;
    int32_t from, day;
    int repeat_days;
    gpi_obs last;               /* the current key's latest row */
    int have_last;
    int oom;
} scan_ctx;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

static ident *lookup(gstate *s, uint64_t key, int *oom)
{
    if (key == 0) key = 1; /* 0 marks an empty slot */
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        ident *t = calloc(cap, sizeof *t);
        if (!t) {
            *oom = 1;
            return NULL;
        }
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->tab[i].key) continue;
            size_t j = (size_t)mix(s->tab[i].key) & (cap - 1);
            while (t[j].key) j = (j + 1) & (cap - 1);
            t[j] = s->tab[i];
        }
        free(s->tab);
        s->tab = t;
        s->cap = cap;
    }
    size_t j = (size_t)mix(key) & (s->cap - 1);
    while (s->tab[j].key && s->tab[j].key != key) j = (j + 1) & (s->cap - 1);
    if (!s->tab[j].key) {
        s->tab[j].key = key;
        s->tab[j].since = INT32_MIN;
        s->n++;
    }
    return &s->tab[j];
}

static feed_st *feed_of(gstate *s, const char *source, const char *group, int *oom)
{
    for (size_t i = 0; i < s->n_feed; i++)
        if (strcmp(s->feed[i].source, source) == 0 && strcmp(s->feed[i].group, group) == 0)
            return &s->feed[i];
    if (s->n_feed == s->cap_feed) {
        size_t cap = s->cap_feed ? 2 * s->cap_feed : 16;
        feed_st *f = realloc(s->feed, cap * sizeof *f);
        idx_stale_feed *o = realloc(s->fout, cap * sizeof *o);
        if (f) s->feed = f;
        if (o) s->fout = o;
        if (!f || !o) {
            *oom = 1;
            return NULL;
        }
        s->cap_feed = cap;
    }
    feed_st *f = &s->feed[s->n_feed];
    memset(f, 0, sizeof *f);
    f->source = source;
    f->group = group;
    f->prev_day = INT32_MIN;
    idx_stale_feed *o = &s->fout[s->n_feed++];
    memset(o, 0, sizeof *o);
    snprintf(o->source, sizeof o->source, "%s", source);
    snprintf(o->group, sizeof o->group, "%s", group);
    return f;
}

static grp_st *grp_of(gstate *s, const char *name, int *oom)
{
    for (size_t i = 0; i < s->n_grp; i++)
        if (strcmp(s->grp[i].name, name) == 0) return &s->grp[i];
    if (s->n_grp == s->cap_grp) {
        size_t cap = s->cap_grp ? 2 * s->cap_grp : 16;
        grp_st *g = realloc(s->grp, cap * sizeof *g);
        if (!g) {
            *oom = 1;
            return NULL;
        }
        s->grp = g;
        s->cap_grp = cap;
    }
    grp_st *g = &s->grp[s->n_grp++];
    memset(g, 0, sizeof *g);
    g->name = name;
    return g;
}

/* An offer's latest snapshot of the day, for every grade it belongs to. */
static void take(scan_ctx *c, const gpi_obs *o)
{
    if (o->kind != GPI_OFFER) return;
    int counted = o->day >= c->from;
    for (size_t k = 0; k < c->n && !c->oom; k++) {
        gstate *s = &c->gs[k];
        if (!idx_grade_match(s->g, o)) continue;
        const char *src = o->source ? o->source : "", *grp = o->group ? o->group : "";
        ident *id = lookup(s, o->key_hash, &c->oom);
        feed_st *f = feed_of(s, src, grp, &c->oom);
        grp_st *g = grp_of(s, grp, &c->oom);
        if (!id || !f || !g) return;
        if (id->since == INT32_MIN) {
            id->since = o->day;
        } else if (id->price != o->price_micro) {
            id->since = o->day;
            f->changed = 1;
            if (counted) g->changed = 1;
        }
        id->price = o->price_micro;
        int32_t age = o->day - id->since;
        if (!g->has) {
            g->has = 1;
            g->all_stale = 1;
            g->fresh = 0;
        }
        if (age < IDX_STALE_DAYS) g->all_stale = 0;
        if (age <= s->max_unchanged) g->fresh = 1;
        if (counted) g->seen = 1;
        f->sig += mix(o->key_hash ^ mix((uint64_t)o->price_micro) ^
                      mix((uint64_t)o->quantity_micro + 0x51ed));
        f->count++;
    }
}

/* The end of day d for every grade (note 2). */
static void end_day(scan_ctx *c, int32_t d)
{
    int counted = d >= c->from;
    for (size_t k = 0; k < c->n; k++) {
        gstate *s = &c->gs[k];
        idx_stale_grade *o = s->out;
        long groups = 0, stale = 0, fresh = 0;
        for (size_t i = 0; i < s->n_grp; i++) {
            grp_st *g = &s->grp[i];
            if (!g->has) continue;
            groups++;
            stale += g->all_stale;
            fresh += g->fresh;
            g->has = 0;
        }
        if (counted && groups) {
            o->days++;
            double share = (double)stale / (double)groups;
            s->share_sum += share;
            o->stale_share_last = share;
            int mp = s->g->p.min_providers;
            o->cover_all += groups >= mp;
            o->cover_fresh += fresh >= mp;
        }
        for (size_t i = 0; i < s->n_feed; i++) {
            feed_st *f = &s->feed[i];
            idx_stale_feed *fo = &s->fout[i];
            if (f->count == 0) continue;
            int repeat = f->prev_day == d - 1 && f->sig == f->prev_sig && f->count == f->prev_count;
            f->run = repeat ? f->run + 1 : 1;
            if (counted) {
                fo->days++;
                fo->repeat_days += repeat;
                fo->change_days += f->changed;
                long run = f->run;
                if (run > d - c->from + 1) run = d - c->from + 1; /* counted from `from` */
                if (run > fo->longest_run) {
                    fo->longest_run = run;
                    fo->run_from = d - (int32_t)run + 1;
                    fo->run_to = d;
                }
            }
            f->prev_sig = f->sig;
            f->prev_count = f->count;
            f->prev_day = d;
            f->sig = 0;
            f->count = 0;
            f->changed = 0;
        }
    }
}

static void flush(scan_ctx *c)
{
    if (c->have_last) take(c, &c->last);
    c->have_last = 0;
}

static int on_obs(const gpi_obs *o, void *ud)
{
    scan_ctx *c = ud;
    if (c->have_last && (o->day != c->last.day || o->key_hash != c->last.key_hash)) flush(c);
    if (o->day != c->day) {
        if (c->day != INT32_MIN)
            for (int32_t d = c->day; d < o->day; d++) end_day(c, d); /* days without rows too */
        c->day = o->day;
    }
    c->last = *o;
    c->last.ident = c->last.buyer = c->last.raw_price = NULL; /* live only during the call */
    c->have_last = 1;
    return c->oom;
}

gpi_status idx_stale_evaluate(store *st, const idx_grades *gs, int32_t from, int32_t to,
                              int64_t as_of, int repeat_days, int max_unchanged_days,
                              idx_stale_eval **out, gpi_diag *d)
{
    *out = NULL;
    idx_stale_eval *e = calloc(1, sizeof *e);
    gstate *s = calloc(gs->n ? gs->n : 1, sizeof *s);
    if (e) e->g = calloc(gs->n ? gs->n : 1, sizeof *e->g);
    if (!e || !s || !e->g) {
        free(s);
        idx_stale_free(e);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    e->from = from;
    e->to = to;
    e->repeat_days = repeat_days;
    e->n = gs->n;
    for (size_t k = 0; k < gs->n; k++) {
        s[k].g = &gs->g[k];
        s[k].out = &e->g[k];
        int m = gs->g[k].p.max_unchanged_days;
        s[k].max_unchanged = m > 0 ? m : max_unchanged_days;
        e->g[k].max_unchanged_days = s[k].max_unchanged;
        snprintf(e->g[k].id, sizeof e->g[k].id, "%s", gs->g[k].id);
    }
    scan_ctx c;
    memset(&c, 0, sizeof c);
    c.gs = s;
    c.n = gs->n;
    c.from = from;
    c.day = INT32_MIN;
    c.repeat_days = repeat_days;
    gpi_status rc = store_obs_scan_core(st, from - IDX_STALE_LOOKBACK, to, as_of, on_obs, &c, d);
    if (rc == GPI_OK && !c.oom) {
        flush(&c);
        if (c.day != INT32_MIN)
            for (int32_t day = c.day; day <= to; day++) end_day(&c, day);
    }
    if (rc == GPI_OK && c.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t k = 0; k < gs->n; k++) {
        idx_stale_grade *o = &e->g[k];
        o->stale_share_mean = o->days ? s[k].share_sum / (double)o->days : NAN;
        if (!o->days) o->stale_share_last = NAN;
        for (size_t i = 0; i < s[k].n_grp; i++) {
            o->groups += s[k].grp[i].seen;
            o->groups_never_changed += s[k].grp[i].seen && !s[k].grp[i].changed;
        }
        for (size_t i = 0; i < s[k].n_feed; i++) {
            s[k].fout[i].flagged = s[k].fout[i].longest_run >= repeat_days;
            o->flagged += s[k].fout[i].flagged;
        }
        o->feed = s[k].fout;
        o->n_feed = s[k].n_feed;
        s[k].fout = NULL;
        free(s[k].tab);
        free(s[k].feed);
        free(s[k].grp);
    }
    free(s);
    if (rc != GPI_OK) {
        idx_stale_free(e);
        return rc;
    }
    *out = e;
    return GPI_OK;
}

void idx_stale_free(idx_stale_eval *e)
{
    if (!e) return;
    for (size_t k = 0; k < e->n && e->g; k++) free(e->g[k].feed);
    free(e->g);
    free(e);
}
