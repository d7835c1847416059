/* index/day.c -- one day of observations -> one fix per grade (SPEC §6.1-4).
 *
 * NOTES ON THE DESIGN
 * (0) Observations come as data: the caller reads the day (one scan of the
 *     store, index/feed.c) and hands each observation to idx_day_add
 *     between idx_day_begin and idx_day_end.  This file includes no store
 *     header (tests/test_store_headers.c checks).
 * (1) A day is read once for all grades (one scan of one day).  Each
 *     observation is tested against every grade (once per profile: note 6)
 *     and appended, as a small fixed-size idx_item, to that grade's offers
 *     or trades array.  Arrays
 *     live for the whole build and only grow, so memory is bounded by the
 *     largest day and there is no allocation per observation.
 * (2) Latest offer snapshot: observations come in the store's primary-key
 *     order (day, key_hash, observed_at: its scan's order), so the
 *     snapshots of one offer key arrive together and in time order.  Before appending an offer, a previous
 *     snapshot of the same key at the end of the grade's array is dropped;
 *     what remains is the latest snapshot of each key within the day.
 * (3) Provider groups are interned to small integers (one allocation per
 *     distinct group name per build).
 * (4) Cancelled and affiliate trades are kept with their reason so that
 *     publication can list them; they are not eligible and count nowhere.
 * (5) The detail for publication (idx_day_detail) reads the day once: the
 *     collecting scan also keeps each observation some grade took (what
 *     its listing shows, ~90 bytes, its identity text copied aside: the
 *     scan's text lives only until the next row) and, in scan order,
 *     which grades took it.  After
 *     the fixes, those (observation, grade) pairs are listed in that order
 *     -- the order of a second scan testing every grade, which it used to
 *     be (two day scans: 56 % of a publication).  An earlier snapshot of
 *     an offer key was kept too but is no longer among the grade's items
 *     (note 2): it is found there by key and time or skipped, as before.
 *     The names of a kept observation are the reader's texts (the store's
 *     interned names, valid for the store handle's transaction).  The
 *     listing itself is index/day_detail.c; the reading, index/feed.c.
 * (6) Whether a grade takes an observation depends on its profile only
 *     (kind, terms, GPU, provider, group, segment, region, sku: every
 *     filter of idx_grade_match), and a day's scan hands out the stored
 *     profile id as o->profile_id (core/obs.h).  So the grades are
 *     tried once per profile for the idx_day's life (per build: a
 *     profile recurs on every day of its offer), and the grades that
 *     take it and its interned group are kept by id (pm_at, pm); each
 *     later row with that profile only appends its item to those grades.
 *     Testing 20 grades on each of the bench year's 10.6 M rows was
 *     about a seventh of a build's work.  The first row of a profile is
 *     tried as before, grade by grade, so groups and GPUs are interned in
 *     the same order and every array gets the same items in the same
 *     order.  A row without a profile id (0) is tried every time.
 */
#include "index/day.h"
#include "index/match.h"
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

/* What the detail keeps of a day (note 5): of an observation, what its
 * listing shows (index.h, idx_obs_fn). */
typedef struct kept_obs {
    int64_t observed_at, price_micro, quantity_micro;
    uint64_t key_hash;
    const char *provider, *group, *source, *region; /* the store's names */
    size_t ident; /* offset in text; SIZE_MAX: no identity text */
    int kind;
} kept_obs;
typedef struct kept_hit {
    size_t obs, gi; /* observation obs[obs] is an item of grade gi */
} kept_hit;
typedef struct idx_kept {
    kept_obs *obs;
    size_t n_obs, cap_obs;
    char *text;
    size_t n_text, cap_text;
    kept_hit *hit;
    size_t n_hit, cap_hit;
} idx_kept;

gpi_status idx_day_init(idx_day *dy, const idx_grades *gs)
{
    memset(dy, 0, sizeof *dy);
    dy->gs = gs;
    dy->ng = gs->n;
    for (size_t i = 0; i < gs->n; i++) dy->need_ident |= gs->g[i].excl_ids;
    for (size_t i = 0; i < gs->n; i++) dy->need_age |= gs->g[i].p.max_unchanged_days > 0;
    dy->offers = calloc(gs->n ? gs->n : 1, sizeof *dy->offers);
    dy->trades = calloc(gs->n ? gs->n : 1, sizeof *dy->trades);
    dy->n_slots = 256;
    dy->slots = malloc(dy->n_slots * sizeof *dy->slots);
    if (!dy->offers || !dy->trades || !dy->slots) return GPI_ENOMEM;
    for (size_t i = 0; i < dy->n_slots; i++) dy->slots[i] = -1;
    return GPI_OK;
}

void idx_day_free(idx_day *dy)
{
    for (size_t i = 0; i < dy->ng && dy->offers; i++) free(dy->offers[i].v);
    for (size_t i = 0; i < dy->ng && dy->trades; i++) free(dy->trades[i].v);
    free(dy->offers);
    free(dy->trades);
    for (size_t i = 0; i < dy->n_names; i++) free(dy->names[i]);
    free(dy->names);
    free(dy->slots);
    free(dy->stamp);
    free(dy->work);
    free(dy->loo_t.v);
    free(dy->loo_o.v);
    free(dy->scratch.v);
    free(dy->manip.v);
    free(dy->gpu_ok);
    free(dy->pm_at);
    free(dy->pm);
    free(dy->roles.p);
    memset(dy, 0, sizeof *dy);
}

const char *idx_day_group(const idx_day *dy, int32_t gid)
{
    return gid >= 0 && (size_t)gid < dy->n_names ? dy->names[gid] : "";
}

static int32_t intern(idx_day *dy, const char *s);

int32_t idx_day_group_id(idx_day *dy, const char *name)
{
    return intern(dy, name);
}

uint32_t idx_day_stamp_next(idx_day *dy)
{
    if (++dy->stamp_now == 0) {
        memset(dy->stamp, 0, dy->cap_stamp * sizeof *dy->stamp);
        dy->stamp_now = 1;
    }
    return dy->stamp_now;
}

static int32_t intern(idx_day *dy, const char *s)
{
    if (!s) s = "";
    uint64_t h = gpi_fnv1a64(s, strlen(s), GPI_FNV_SEED);
    size_t mask = dy->n_slots - 1, i = (size_t)h & mask;
    while (dy->slots[i] >= 0) {
        if (strcmp(dy->names[dy->slots[i]], s) == 0) return dy->slots[i];
        i = (i + 1) & mask;
    }
    if (GPI_VEC_RESERVE(dy->names, dy->cap_names, dy->n_names + 1) != 0 ||
        GPI_VEC_RESERVE_ZERO(dy->stamp, dy->cap_stamp, dy->n_names + 1) != 0)
        return -1;
    char *copy = strdup(s);
    if (!copy) return -1;
    int32_t id = (int32_t)dy->n_names;
    dy->names[dy->n_names++] = copy;
    dy->slots[i] = id;
    if (2 * dy->n_names > dy->n_slots) { /* grow and rehash */
        size_t ns = dy->n_slots * 2;
        int32_t *sl = malloc(ns * sizeof *sl);
        if (!sl) return -1;
        for (size_t k = 0; k < ns; k++) sl[k] = -1;
        for (size_t k = 0; k < dy->n_names; k++) {
            uint64_t hk = gpi_fnv1a64(dy->names[k], strlen(dy->names[k]), GPI_FNV_SEED);
            size_t j = (size_t)hk & (ns - 1);
            while (sl[j] >= 0) j = (j + 1) & (ns - 1);
            sl[j] = (int32_t)k;
        }
        free(dy->slots);
        dy->slots = sl;
        dy->n_slots = ns;
    }
    return id;
}

static int push(idx_buf *b, const idx_item *it)
{
    if (GPI_VEC_RESERVE(b->v, b->cap, b->n + 1) != 0) return -1;
    b->v[b->n++] = *it;
    return 0;
}

/* The row of gpu_ok for interned name id, grown on demand. */
static signed char *gpu_row(idx_day *dy, int32_t id)
{
    if ((size_t)id >= dy->cap_gpu_ok &&
        gpi_vec_reserve_fill(&dy->gpu_ok, &dy->cap_gpu_ok, (size_t)id + 1, dy->ng ? dy->ng : 1,
                             -1) != 0)
        return NULL;
    return dy->gpu_ok + (size_t)id * dy->ng;
}

/* Records that grade gi took o; *at: o's place among the kept
 * observations (SIZE_MAX: not kept yet; it is then copied). */
static int keep_hit(idx_kept *k, const gpi_obs *o, size_t gi, size_t *at)
{
    if (*at == SIZE_MAX) {
        size_t off = SIZE_MAX;
        if (o->ident) {
            size_t n = strlen(o->ident) + 1;
            if (GPI_VEC_RESERVE(k->text, k->cap_text, k->n_text + n) != 0) return -1;
            memcpy(k->text + k->n_text, o->ident, n);
            off = k->n_text;
            k->n_text += n;
        }
        if (GPI_VEC_RESERVE(k->obs, k->cap_obs, k->n_obs + 1) != 0) return -1;
        k->obs[k->n_obs] = (kept_obs){o->observed_at, o->price_micro, o->quantity_micro,
                                      o->key_hash,    o->provider,    o->group,
                                      o->source,      o->region,      off,
                                      o->kind};
        *at = k->n_obs++;
    }
    if (GPI_VEC_RESERVE(k->hit, k->cap_hit, k->n_hit + 1) != 0) return -1;
    k->hit[k->n_hit++] = (kept_hit){*at, gi};
    return 0;
}

/* The grades that take o, each in turn (idx_grade_match, memoizing the
 * GPU part per name), into take[0..*n); *gid its interned group (-1 when
 * none takes it).  0 ok, -1 out of memory. */
static int grades_taking(idx_day *dy, const gpi_obs *o, int32_t *take, size_t *n, int32_t *gid)
{
    signed char *gpu_ok = NULL;
    *n = 0;
    *gid = -1;
    for (size_t i = 0; i < dy->ng; i++) {
        const idx_grade *g = &dy->gs->g[i];
        if (!idx_grade_match_terms(g, o)) continue;
        if (!gpu_ok) {
            int32_t gpu = intern(dy, o->gpu);
            gpu_ok = gpu >= 0 ? gpu_row(dy, gpu) : NULL;
            if (!gpu_ok) return -1;
        }
        if (gpu_ok[i] < 0) gpu_ok[i] = (signed char)idx_grade_match_gpu(g, o->gpu);
        if (!gpu_ok[i] || !idx_grade_match_places(g, o)) continue;
        if (*gid < 0 && (*gid = intern(dy, o->group)) < 0) return -1;
        take[(*n)++] = (int32_t)i;
    }
    return 0;
}

/* Note 6: the entry of o's profile -- its group, the number of grades
 * that take it and their indices -- from the memo, or tried and (with a
 * profile id) kept there; NULL when out of memory.  Without an id the
 * entry lies past the memo's end, valid until the next row. */
static const int32_t *grades_of(idx_day *dy, const gpi_obs *o)
{
    uint32_t id = o->profile_id;
    if (id && (size_t)id < dy->cap_pm_at && dy->pm_at[id]) return dy->pm + dy->pm_at[id] - 1;
    if (dy->n_pm + 2 + dy->ng >= UINT32_MAX) id = 0; /* a full memo: tried every time */
    if ((id && GPI_VEC_RESERVE_ZERO(dy->pm_at, dy->cap_pm_at, (size_t)id + 1) != 0) ||
        GPI_VEC_RESERVE(dy->pm, dy->cap_pm, dy->n_pm + 2 + dy->ng) != 0)
        return NULL;
    int32_t *e = dy->pm + dy->n_pm;
    size_t n;
    if (grades_taking(dy, o, e + 2, &n, &e[0]) != 0) return NULL;
    e[1] = (int32_t)n;
    if (id) {
        dy->pm_at[id] = (uint32_t)dy->n_pm + 1;
        dy->n_pm += 2 + n;
    }
    return e;
}

int idx_day_add(idx_day *dy, const gpi_obs *o)
{
    dy->n_scanned++;
    if (o->kind == GPI_OFFER) /* an earlier snapshot of this offer key (note 2) */
        for (size_t i = 0; i < dy->ng; i++) {
            idx_buf *b = &dy->offers[i];
            if (b->n > 0 && b->v[b->n - 1].key_hash == o->key_hash) b->n--;
        }
    const int32_t *e = grades_of(dy, o);
    if (!e) {
        dy->err = GPI_ENOMEM;
        return 1;
    }
    int32_t gid = e[0];
    size_t n = (size_t)e[1];
    const int32_t *take = e + 2;
    if (n == 0) return 0;
    size_t kept_at = SIZE_MAX;
    idx_item it = {o->price_micro, o->quantity_micro, o->key_hash, o->observed_at, gid, IDX_OK};
    if (o->kind == GPI_TRADE) {
        if (o->status == GPI_STATUS_CANCELLED) it.reason = IDX_EX_CANCELLED;
        if (o->status == GPI_STATUS_AFFILIATE) it.reason = IDX_EX_AFFILIATE;
        if (it.qty_micro < 0) it.qty_micro = 0;
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = (size_t)take[k];
        /* an "exclude" entry on ids is tried row by row (grade_exclude.c) */
        if (dy->need_ident && dy->gs->g[i].excl_ids && idx_grade_excluded(&dy->gs->g[i], o, 1))
            continue;
        idx_buf *b = o->kind == GPI_OFFER ? &dy->offers[i] : &dy->trades[i];
        if (push(b, &it) || (dy->keep && keep_hit(dy->keep, o, i, &kept_at))) {
            dy->err = GPI_ENOMEM;
            return 1;
        }
    }
    return 0;
}

void idx_day_begin(idx_day *dy)
{
    for (size_t i = 0; i < dy->ng; i++) dy->offers[i].n = dy->trades[i].n = 0;
    dy->err = GPI_OK;
    if (dy->keep) dy->keep->n_obs = dy->keep->n_text = dy->keep->n_hit = 0;
}

int idx_day_wants_ident(const idx_day *dy)
{
    return dy->keep || dy->need_ident;
}

gpi_status idx_day_end(idx_day *dy, gpi_diag *d)
{
    if (dy->err != GPI_OK)
        return gpi_diag_set(d, dy->err, "index: out of memory reading a day");
    return GPI_OK;
}

/* ---- what the detail keeps (note 5) ------------------------------------------ */

idx_kept *idx_kept_new(void)
{
    return calloc(1, sizeof(idx_kept));
}

void idx_kept_free(idx_kept *k)
{
    if (!k) return;
    free(k->obs);
    free(k->text);
    free(k->hit);
    free(k);
}

size_t idx_kept_count(const idx_kept *k)
{
    return k->n_hit;
}

size_t idx_kept_get(const idx_kept *k, size_t h, gpi_obs *o)
{
    const kept_obs *ko = &k->obs[k->hit[h].obs];
    o->kind = ko->kind;
    o->observed_at = ko->observed_at;
    o->key_hash = ko->key_hash;
    o->price_micro = ko->price_micro;
    o->quantity_micro = ko->quantity_micro;
    o->provider = ko->provider;
    o->group = ko->group;
    o->source = ko->source;
    o->region = ko->region;
    o->ident = ko->ident == SIZE_MAX ? NULL : k->text + ko->ident;
    return k->hit[h].gi;
}

/* Counts distinct groups of the items with reason OK (all = any reason
 * but the trade-status exclusions). */
static long distinct_groups(idx_day *dy, const idx_buf *b, int eligible_only, int fresh)
{
    if (fresh) idx_day_stamp_next(dy);
    long n = 0;
    for (size_t i = 0; i < b->n; i++) {
        int r = b->v[i].reason;
        if (eligible_only ? r != IDX_OK : IDX_EX_INELIGIBLE(r))
            continue;
        int32_t g = b->v[i].group;
        if (dy->stamp[g] != dy->stamp_now) {
            dy->stamp[g] = dy->stamp_now;
            n++;
        }
    }
    return n;
}

static int64_t top_share(idx_day *dy, const idx_buf *b, int by_volume)
{
    /* items are sorted by group (idx_screen) */
    __int128 best = 0, total = 0, cur = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (i > 0 && b->v[i].group != b->v[i - 1].group) cur = 0;
        if (b->v[i].reason != IDX_OK) continue;
        __int128 w = by_volume ? b->v[i].qty_micro : 1;
        cur += w;
        total += w;
        if (cur > best) best = cur;
    }
    (void)dy;
    return total > 0 ? gpi_div_round(best * 1000000, total) : -1;
}

static long count_reason(const idx_buf *b, int eligible)
{
    long n = 0;
    for (size_t i = 0; i < b->n; i++) {
        int r = b->v[i].reason;
        if (eligible ? !IDX_EX_INELIGIBLE(r) : (r == IDX_EX_ABOVE || r == IDX_EX_BELOW))
            n++;
    }
    return n;
}

/* The fix of one grade-day from its trades tb and offers ob (screened and
 * marked in place). */
static gpi_status fix_bufs(idx_day *dy, const idx_grade *g, idx_buf *tb, idx_buf *ob,
                           idx_fix *f, gpi_diag *d)
{
    const idx_params *p = &g->p;
    size_t need = 2 * (tb->n > ob->n ? tb->n : ob->n) + 2;
    if (GPI_VEC_RESERVE(dy->work, dy->cap_work, need) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    memset(f, 0, sizeof *f);
    f->trades_raw_q = f->offers_raw_q = -1;
    /* all eligible observations, before the screen */
    f->all_obs = count_reason(tb, 1) + count_reason(ob, 1);
    f->all_providers = distinct_groups(dy, tb, 0, 1) + distinct_groups(dy, ob, 0, 0);
    /* trades */
    f->ts.n_obs = count_reason(tb, 1);
    f->ts.n_excluded = (long)idx_screen(tb->v, tb->n, p->error_factor_e6, dy->work);
    f->ts.n_providers = distinct_groups(dy, tb, 1, 1);
    f->ts.top_share_e6 = top_share(dy, tb, 1);
    /* Every volume sum of the day (per provider, capped classes) is part of
     * this one: when it fits in 64 bits, they all do. */
    for (size_t i = 0; i < tb->n; i++)
        if (tb->v[i].reason == IDX_OK && __builtin_add_overflow(f->trade_volume_micro,
                                                                tb->v[i].qty_micro,
                                                                &f->trade_volume_micro)) {
            char date[11];
            gpi_date_format(gpi_day_of_time(tb->v[i].observed_at), date);
            return gpi_diag_set(d, GPI_EINPUT,
                                "%s: grade %s: the day's trade volume is over 9,223,372 "
                                "million GPU-hours (too large to add up)",
                                date, g->id);
        }
    idx_spread(tb->v, tb->n, dy->work, f->ts.spread);
    if (f->trade_volume_micro >= p->min_trade_volume_micro && f->trade_volume_micro > 0 &&
        f->ts.n_providers >= p->min_providers) {
        gpi_status rc = idx_weighted_median(tb->v, tb->n, p->cap_floor_e6, &f->trades_raw_q, d);
        if (rc != GPI_OK) return rc;
    }
    /* offers */
    f->os.n_obs = count_reason(ob, 1);
    f->os.n_excluded = (long)idx_screen(ob->v, ob->n, p->error_factor_e6, dy->work);
    f->os.n_providers = distinct_groups(dy, ob, 1, 1);
    f->os.top_share_e6 = top_share(dy, ob, 0);
    int64_t raw;
    size_t np = idx_median_of_medians(ob->v, ob->n, dy->work, &raw);
    if (np > 0 && (long)np >= p->min_providers) f->offers_raw_q = raw;
    idx_spread(ob->v, ob->n, dy->work, f->os.spread);
    return GPI_OK;
}

gpi_status idx_day_screen(idx_day *dy, size_t gi, gpi_diag *d)
{
    idx_buf *tb = &dy->trades[gi], *ob = &dy->offers[gi];
    size_t need = 2 * (tb->n > ob->n ? tb->n : ob->n) + 2;
    if (GPI_VEC_RESERVE(dy->work, dy->cap_work, need) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    int64_t f = dy->gs->g[gi].p.error_factor_e6;
    idx_screen(tb->v, tb->n, f, dy->work);
    idx_screen(ob->v, ob->n, f, dy->work);
    return GPI_OK;
}

gpi_status idx_day_fix(idx_day *dy, size_t gi, idx_fix *f, gpi_diag *d)
{
    return fix_bufs(dy, &dy->gs->g[gi], &dy->trades[gi], &dy->offers[gi], f, d);
}

/* Copies the items of src not of group into dst, unscreened. */
static int copy_without(idx_buf *dst, const idx_buf *src, int32_t group)
{
    if (GPI_VEC_RESERVE(dst->v, dst->cap, src->n) != 0) return -1;
    dst->n = 0;
    for (size_t i = 0; i < src->n; i++) {
        if (src->v[i].group == group) continue;
        idx_item it = src->v[i];
        if (it.reason == IDX_EX_ABOVE || it.reason == IDX_EX_BELOW) it.reason = IDX_OK;
        dst->v[dst->n++] = it;
    }
    return 0;
}

gpi_status idx_day_fix_without(idx_day *dy, size_t gi, int32_t group, idx_fix *f, gpi_diag *d)
{
    if (gi >= dy->ng) return gpi_diag_set(d, GPI_EUSAGE, "index: no grade %zu", gi);
    if (copy_without(&dy->loo_t, &dy->trades[gi], group) ||
        copy_without(&dy->loo_o, &dy->offers[gi], group))
        return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    return fix_bufs(dy, &dy->gs->g[gi], &dy->loo_t, &dy->loo_o, f, d);
}
