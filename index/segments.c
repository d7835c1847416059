/* index/segments.c -- the grade lab's provider segments: whether a grade's
 * panel is bimodal, by provider segment (METHODOLOGY.md, Grade lab; issue
 * 26 item 4).
 *
 * NOTES ON THE DESIGN
 * (1) A provider's segment is data/providers.csv's, stored with each
 *     observation at ingest; the map from group to segment is read once
 *     per evaluation from the store's facets (idx_segmap_load), so the day
 *     scan (day.c) is unchanged.  A group stored under two segments (a
 *     providers.csv that puts two providers of one owner in different
 *     segments) counts in the first in byte order.
 * (2) On a fixed day of the cross-section (trades or offers level), each
 *     provider group of the level used has one statistic: the median of
 *     its screened prices that day (offers: its provider median of §4.2;
 *     trades: the unweighted median of its screened trade prices).  A
 *     segment's figure for the day is the median of its providers'
 *     statistics; the day's ratio is the highest segment figure over the
 *     lowest, when two or more segments have a provider.
 * (3) Bimodal: the ratio is at least IDX_BIMODAL_RATIO (2) on at least
 *     half of the days that have one.  Measured (METHODOLOGY.md): across
 *     segments the median daily ratio is 2.70-3.09 on the real
 *     catalogue's H100 SXM and A100 grades and 2.16-3.30 on the demo
 *     market's hyperscaler-and-neocloud grades, 1.32 between the demo's
 *     neoclouds and its marketplace; within one segment of those grades
 *     the median spread (a segment's highest statistic over its lowest)
 *     is 1.03-1.79.  A factor of two between segments is more than those
 *     segments spread by themselves.
 * (4) Statistics here are doubles (lab figures, nothing published or
 *     settled depends on them), kept per day as floats (7 digits: a price
 *     to the 0.0001 below 1,000 USD); medians of an even count are the
 *     mean of the two middle values.
 */
#include "index/segments.h"
#include "core/vec.h"
#include "store/obs.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the group -> segment map (note 1) ------------------------------------------ */

typedef struct pair {
    const char *group, *segment; /* the store's interned texts */
} pair;

typedef struct pairs {
    pair *v;
    size_t n, cap;
    int oom;
} pairs;

static int collect(const gpi_obs *o, void *ud)
{
    pairs *p = ud;
    if (!o->group || !o->segment) return 0;
    if (GPI_VEC_RESERVE(p->v, p->cap, p->n + 1) != 0) {
        p->oom = 1;
        return 1;
    }
    p->v[p->n++] = (pair){o->group, o->segment};
    return 0;
}

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    int c = strcmp(x->group, y->group);
    return c ? c : strcmp(x->segment, y->segment);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int find_name(char **v, size_t n, const char *s)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(v[mid], s);
        if (c == 0) return (int)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

gpi_status idx_segmap_load(store *st, idx_segmap *m, gpi_diag *d)
{
    memset(m, 0, sizeof *m);
    pairs p = {NULL, 0, 0, 0};
    gpi_status rc = store_obs_facets(st, collect, &p, d);
    if (rc == GPI_OK && p.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
    if (rc != GPI_OK) goto done;
    if (p.n) qsort(p.v, p.n, sizeof *p.v, cmp_pair);
    m->group = calloc(p.n + 1, sizeof *m->group);
    m->seg = calloc(p.n + 1, sizeof *m->seg);
    m->name = calloc(p.n + 1, sizeof *m->name);
    if (!m->group || !m->seg || !m->name) goto oom;
    for (size_t i = 0; i < p.n; i++) { /* the distinct segments */
        int seen = 0;
        for (size_t j = 0; j < m->n_name && !seen; j++) seen = !strcmp(m->name[j], p.v[i].segment);
        if (seen) continue;
        if (!(m->name[m->n_name] = strdup(p.v[i].segment))) goto oom;
        m->n_name++;
    }
    qsort(m->name, m->n_name, sizeof *m->name, cmp_str);
    for (size_t i = 0; i < p.n; i++) { /* each group once: its first segment */
        if (i > 0 && strcmp(p.v[i].group, p.v[i - 1].group) == 0) continue;
        if (!(m->group[m->n_group] = strdup(p.v[i].group))) goto oom;
        m->seg[m->n_group++] = find_name(m->name, m->n_name, p.v[i].segment);
    }
    goto done;
oom:
    rc = gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
done:
    free(p.v);
    if (rc != GPI_OK) idx_segmap_free(m);
    return rc;
}

void idx_segmap_free(idx_segmap *m)
{
    for (size_t i = 0; m->group && i < m->n_group; i++) free(m->group[i]);
    for (size_t i = 0; m->name && i < m->n_name; i++) free(m->name[i]);
    free(m->group);
    free(m->seg);
    free(m->name);
    memset(m, 0, sizeof *m);
}

int idx_segmap_find(const idx_segmap *m, const char *group)
{
    int i = find_name(m->group, m->n_group, group ? group : "");
    return i < 0 ? -1 : m->seg[i];
}

void idx_segcache_free(idx_segcache *c)
{
    free(c->gseg);
    free(c->items);
    free(c->stat);
    free(c->slot);
    memset(c, 0, sizeof *c);
}

/* ---- one grade's days (note 2) --------------------------------------------------- */

gpi_status idx_segacc_init(idx_segacc *a, long days)
{
    memset(a, 0, sizeof *a);
    a->days = days;
    a->ratio = malloc((size_t)days * sizeof *a->ratio);
    if (!a->ratio) return GPI_ENOMEM;
    for (long k = 0; k < days; k++) a->ratio[k] = NAN;
    return GPI_OK;
}

void idx_segacc_free(idx_segacc *a)
{
    for (int s = 0; s < IDX_SEG_MAX; s++) {
        free(a->level[s]);
        free(a->spread[s]);
    }
    free(a->ratio);
    memset(a, 0, sizeof *a);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted here); NAN when n = 0. */
static double median(double *v, size_t n)
{
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The slot of segment index s in a (added when new and there is room; -1
 * when a has IDX_SEG_MAX already). */
static int slot_of(idx_segacc *a, int s)
{
    for (int i = 0; i < a->n; i++)
        if (a->seg[i] == s) return i;
    if (a->n == IDX_SEG_MAX) return -1;
    a->level[a->n] = malloc((size_t)a->days * sizeof *a->level[a->n]);
    a->spread[a->n] = malloc((size_t)a->days * sizeof *a->spread[a->n]);
    if (!a->level[a->n] || !a->spread[a->n]) return -2;
    for (long k = 0; k < a->days; k++) a->level[a->n][k] = a->spread[a->n][k] = (float)NAN;
    a->first[a->n] = a->last[a->n] = INT32_MIN;
    a->seg[a->n] = s;
    return a->n++;
}

/* Segment index of interned group g (-1 none), cached per batch as
 * index + 2 (0: not looked up yet); -3 when out of memory. */
static int seg_of(idx_segcache *c, const idx_day *dy, const idx_segmap *m, int32_t g)
{
    if (GPI_VEC_RESERVE_ZERO(c->gseg, c->cap_gseg, (size_t)g + 1) != 0) return -3;
    if (c->gseg[g] == 0) c->gseg[g] = idx_segmap_find(m, idx_day_group(dy, g)) + 2;
    return c->gseg[g] - 2;
}

gpi_status idx_seg_day(idx_segacc *a, idx_segcache *c, const idx_day *dy,
                       const idx_segmap *m, const idx_buf *b, int min_providers, int32_t day,
                       long k, gpi_diag *d)
{
    size_t n = 0;
    if (GPI_VEC_RESERVE(c->items, c->cap_items, b->n + 1) != 0 ||
        GPI_VEC_RESERVE(c->stat, c->cap_stat, 2 * b->n + 1) != 0 ||
        GPI_VEC_RESERVE(c->slot, c->cap_slot, b->n + 1) != 0)
        goto oom;
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].reason == IDX_OK) c->items[n++] = b->v[i];
    idx_sort_items(c->items, n, IDX_BY_GROUP_PRICE);
    size_t np = 0; /* provider statistics, with their segment slots */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && c->items[j].group == c->items[i].group) j++;
        size_t h = (j - i) / 2;
        double med = (j - i) % 2 ? (double)c->items[i + h].price_micro
                                 : ((double)c->items[i + h - 1].price_micro +
                                    (double)c->items[i + h].price_micro) / 2;
        int s = seg_of(c, dy, m, c->items[i].group);
        if (s == -3) goto oom;
        int sl = s >= 0 ? slot_of(a, s) : -1;
        if (sl == -2) goto oom;
        if (sl >= 0) {
            c->stat[np] = med;
            c->slot[np++] = sl;
        }
        i = j;
    }
    double lo = NAN, hi = NAN;
    int segs = 0;
    for (int sl = 0; sl < a->n; sl++) {
        double *v = c->stat + np; /* room: np <= b->n, and at most np more */
        size_t cnt = 0;
        for (size_t i = 0; i < np; i++)
            if (c->slot[i] == sl) v[cnt++] = c->stat[i];
        if (cnt == 0) continue;
        double lev = median(v, cnt);
        a->level[sl][k] = (float)lev;
        if (cnt >= 2) a->spread[sl][k] = (float)(v[cnt - 1] / v[0]);
        a->present[sl]++;
        a->sum_prov[sl] += (double)cnt;
        if ((long)cnt > a->max_prov[sl]) a->max_prov[sl] = (long)cnt;
        if ((int)cnt >= min_providers) {
            if (a->min_days[sl]++ == 0) a->first[sl] = day;
            a->last[sl] = day;
        }
        if (segs++ == 0) lo = hi = lev;
        if (lev < lo) lo = lev;
        if (lev > hi) hi = lev;
    }
    if (segs >= 2 && lo > 0) a->ratio[k] = hi / lo;
    return GPI_OK;
oom:
    return gpi_diag_set(d, GPI_ENOMEM, "grades evaluate: out of memory");
}

void idx_seg_finish(const idx_segacc *a, const idx_segmap *m, idx_grade_eval *ge, double *x)
{
    size_t n = 0;
    ge->seg_days = ge->seg_split_days = 0;
    ge->seg_ratio_min = ge->seg_ratio_max = NAN;
    for (long k = 0; k < a->days; k++) {
        double r = a->ratio[k];
        if (isnan(r)) continue;
        x[n++] = r;
        ge->seg_days++;
        ge->seg_split_days += r >= IDX_BIMODAL_RATIO;
        if (isnan(ge->seg_ratio_min) || r < ge->seg_ratio_min) ge->seg_ratio_min = r;
        if (isnan(ge->seg_ratio_max) || r > ge->seg_ratio_max) ge->seg_ratio_max = r;
    }
    ge->seg_ratio_median = median(x, n);
    ge->bimodal = ge->seg_days > 0 && 2 * ge->seg_split_days >= ge->seg_days;
    ge->n_segments = a->n;
    for (int sl = 0; sl < a->n; sl++) {
        idx_segment_eval *s = &ge->seg[sl];
        memset(s, 0, sizeof *s);
        snprintf(s->segment, sizeof s->segment, "%s", m->name[a->seg[sl]]);
        s->days = a->present[sl];
        s->mean_providers = a->present[sl] ? a->sum_prov[sl] / (double)a->present[sl] : NAN;
        s->max_providers = a->max_prov[sl];
        s->min_days = a->min_days[sl];
        s->first_day = a->first[sl];
        s->last_day = a->last[sl];
        n = 0;
        for (long k = 0; k < a->days; k++)
            if (!isnan(a->level[sl][k])) x[n++] = a->level[sl][k] / 1e6;
        s->price_median = median(x, n);
        n = 0;
        for (long k = 0; k < a->days; k++)
            if (!isnan(a->spread[sl][k])) x[n++] = a->spread[sl][k];
        s->spread_median = median(x, n);
    }
}

void idx_seg_split_id(const char *id, const char *segment, char out[IDX_NAME_MAX + 1])
{
    char tag[IDX_NAME_MAX + 1];
    if (strcmp(segment, "hyperscaler") == 0)
        snprintf(tag, sizeof tag, "HYP");
    else if (strcmp(segment, "neocloud") == 0)
        snprintf(tag, sizeof tag, "NEO");
    else if (strcmp(segment, "marketplace") == 0)
        snprintf(tag, sizeof tag, "MKT");
    else {
        size_t i = 0;
        for (; segment[i] && i < IDX_NAME_MAX; i++)
            tag[i] = isalnum((unsigned char)segment[i]) ? (char)toupper((unsigned char)segment[i])
                                                        : '-';
        tag[i] = '\0';
    }
    size_t room = IDX_NAME_MAX - 1 - strlen(tag);
    snprintf(out, IDX_NAME_MAX + 1, "%.*s.%s", (int)room, id, tag);
}
