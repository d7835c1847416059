/* index/bootstrap.c -- the bootstrap interval and confidence flag of a fix
 * (index/bootstrap.h; METHODOLOGY.md §12.2).
 *
 * NOTES ON THE DESIGN
 * (1) The unit of resampling is the provider group, the method's unit of
 *     independence (one vote per group; the cap per group): a resample
 *     draws as many groups as the fix has, with replacement, and a group
 *     drawn twice counts as two providers.  The statistic is the method's
 *     own, over the drawn groups' items: the median of provider medians
 *     (a group's median is the same in every resample, so it is taken
 *     once) or the capped volume-weighted median (idx_weighted_median,
 *     the groups renumbered by draw).  For a v2 relative it is the ratio
 *     of the statistic on the day and on the reference day, over the same
 *     drawn groups, times the chain before the day.
 *     The weighted statistic of a resample is one pass over the items in
 *     price order (sorted once): the drawn providers' capped shares are
 *     exact (idx_waterfill), the cumulative weights doubles; where a sum
 *     comes within 1e-9 of the half -- where doubles could answer
 *     otherwise than the exact rule -- the resample is computed by the
 *     method itself (idx_weighted_median over the drawn items laid out in
 *     its own order), so every value is the exact rule's.  On a day of
 *     thousands of trades (a v2 anchor on the bench market) a resample
 *     costs a pass, not a copy and an exact median of the day
 *     (tests/test_index_bootstrap.c checks the pass against the method on
 *     random markets).
 * (2) 999 resamples; the interval is the 25th and 975th smallest values
 *     (a 95 % percentile interval), each rounded as the value is.  The
 *     draws are splitmix64 from the stated seed: index = high 64 bits of
 *     the 64-bit output times the number of groups.  Integer arithmetic
 *     throughout, so `gpuidx verify` reproduces every digit.
 * (3) The row's inputs are read from its index.json object with numbers
 *     as their text (the publisher parses the text it writes, verify the
 *     file it reads) and from its lines of observations.csv: for a v2
 *     trades relative, the matched members are rebuilt as §10.3 defines
 *     them (a group's representative price, the uncapped volume-weighted
 *     median of its trades; carried trades from carried_trades; reference
 *     volumes from ref_volumes), as verify/chain.c does.
 * (4) The flag: withheld when the day has no fix of its own inputs
 *     (carried, suspended) or fewer than 2 groups; low when fewer than 5
 *     groups, an interval wider than 5 % of the value, half or more of
 *     the groups imputed, or half or more of the groups stale (their
 *     prices unchanged for 30 days); else normal.
 */
#include "index/bootstrap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *idx_conf_name(int flag)
{
    switch (flag) {
    case IDX_CONF_LOW: return "low";
    case IDX_CONF_NORMAL: return "normal";
    default: return "withheld";
    }
}

static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t idx_boot_seed(const char *grade, int32_t day)
{
    char date[11], hex[65];
    gpi_date_format(day, date);
    gpi_sha256 s;
    gpi_sha256_init(&s);
    gpi_sha256_update(&s, "gpuidx bootstrap 1", 19); /* with its NUL */
    gpi_sha256_update(&s, grade, strlen(grade) + 1);
    gpi_sha256_update(&s, date, 10);
    gpi_sha256_final(&s, hex);
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char c = hex[i];
        v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v;
}

/* How many times each group is drawn: group g's draws are numbered
 * at[g] .. at[g + 1] - 1 (at has k + 1 slots). */
static void draws_by_group(const size_t *draw, size_t k, size_t *at)
{
    memset(at, 0, (k + 1) * sizeof *at);
    for (size_t i = 0; i < k; i++) at[draw[i] + 1]++;
    for (size_t g = 0; g < k; g++) at[g + 1] += at[g];
}

/* The statistic of the drawn groups (draw[0..k)) over items (by group g).
 * Weighted: the items are laid out in the method's order -- price, then
 * provider, then key -- so its sort finds them in order (note 1): ord is
 * the items' indices sorted once by price, group and index; a drawn
 * provider is numbered by its group and draw (at), and each run of one
 * price and group is laid out once per draw of the group. */
static gpi_status stat_of(const idx_boot_in *in, const idx_item *items, const size_t *ord,
                          size_t n_items, const size_t *draw, size_t k, const int64_t *gmed,
                          int64_t *work, size_t *at, idx_item *buf, int64_t *out, gpi_diag *d)
{
    if (in->stat == IDX_BOOT_MEDIANS) {
        for (size_t i = 0; i < k; i++) work[i] = gmed[draw[i]];
        *out = gpi_median2(work, k); /* of half units: quarter units */
        return GPI_OK;
    }
    draws_by_group(draw, k, at);
    size_t m = 0;
    for (size_t o = 0; o < n_items;) {
        const idx_item *a = &items[ord[o]];
        size_t e = o + 1;
        while (e < n_items && items[ord[e]].price_micro == a->price_micro &&
               items[ord[e]].group == a->group)
            e++;
        size_t g = (size_t)a->group;
        for (size_t p = at[g]; p < at[g + 1]; p++)
            for (size_t q = o; q < e; q++) {
                buf[m] = items[ord[q]];
                buf[m].group = (int32_t)p;
                buf[m].key_hash = m;
                buf[m++].reason = IDX_OK;
            }
        o = e;
    }
    return idx_weighted_median(buf, m, in->cap_floor_e6, out, d);
}

/* The weighted statistic of a resample in one pass (note 1): the drawn
 * providers' capped shares (idx_waterfill, exact), each item weighted by
 * its group's share per unit of volume times its quantity, the weights
 * summed over distinct prices in order in doubles; the first price where
 * the sum reaches half of the whole is the median, the mean with the next
 * price when it reaches it exactly.  Where a sum comes within 1e-9 of the
 * half, doubles cannot tell the exact rule's answer: *exact = 1 and the
 * caller takes the method's own exact computation.  vol: each group's
 * volume; coef: k scratch doubles. */
static gpi_status weighted_pass(const idx_boot_in *in, const idx_item *items, const size_t *ord,
                                size_t n_items, const size_t *draw, size_t k,
                                const int64_t *vol, int64_t *dvol, __int128 *num, double *coef,
                                int64_t *out, int *exact, gpi_diag *d)
{
    *exact = 0;
    for (size_t i = 0; i < k; i++) dvol[i] = vol[draw[i]];
    __int128 den = 0;
    if (idx_waterfill(dvol, k, in->cap_floor_e6, num, &den) < 0)
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t g = 0; g < k; g++) coef[g] = 0;
    for (size_t i = 0; i < k; i++) coef[draw[i]] += (double)num[i];
    for (size_t g = 0; g < k; g++)
        coef[g] = vol[g] > 0 ? coef[g] / ((double)den * (double)vol[g]) : 0;
    double cum = 0;
    for (size_t o = 0; o < n_items;) {
        int64_t p = items[ord[o]].price_micro;
        for (; o < n_items && items[ord[o]].price_micro == p; o++)
            cum += coef[items[ord[o]].group] * (double)items[ord[o]].qty_micro;
        if (fabs(cum - 0.5) <= 1e-9) {
            *exact = 1;
            return GPI_OK;
        }
        if (cum > 0.5) {
            *out = 4 * p;
            return GPI_OK;
        }
    }
    *exact = 1; /* the sum never reached the half: let the method say */
    return GPI_OK;
}

/* An item's index by its price (the order of the weighted layout). */
typedef struct by_price {
    int64_t price;
    int32_t group;
    size_t i;
} by_price;

static int cmp_by_price(const void *a, const void *b)
{
    const by_price *x = a, *y = b;
    if (x->price != y->price) return x->price < y->price ? -1 : 1;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int64_t value_of(const idx_boot_in *in, int64_t s_now, int64_t s_ref)
{
    __int128 num = (__int128)s_now * in->mul;
    __int128 den = (__int128)in->div * (in->ref ? s_ref : 1) * in->step_e4;
    if (den <= 0) return -1;
    return gpi_div_round(num, den) * in->step_e4;
}

gpi_status idx_boot_run(const idx_boot_in *in, idx_boot_out *out, gpi_diag *d)
{
    out->lo_e4 = out->hi_e4 = -1;
    out->groups = (long)in->n_groups;
    out->imputed = 0;
    for (size_t i = 0; i < in->n_groups; i++) out->imputed += in->g[i].imputed != 0;
    size_t k = in->n_groups;
    if (k < 2) return GPI_OK;
    /* a resample may draw the largest group every time */
    size_t most = 0;
    for (size_t i = 0; i < k; i++) {
        size_t m = in->g[i].n > in->g[i].rn ? in->g[i].n : in->g[i].rn;
        if (m > most) most = m;
    }
    size_t items = in->stat == IDX_BOOT_WEIGHTED ? k * most : 0;
    size_t *draw = malloc(k * sizeof *draw);
    int64_t *gmed = calloc(2 * k, sizeof *gmed), *work = malloc((k + 1) * sizeof *work);
    int64_t *vals = malloc(IDX_BOOT_RESAMPLES * sizeof *vals);
    idx_item *buf = malloc((items + 1) * sizeof *buf);
    int64_t *tmp = NULL;
    gpi_status rc = draw && gmed && work && vals && buf ? GPI_OK
                                                        : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    /* each group's median, once (note 1) */
    for (size_t i = 0; i < k && rc == GPI_OK && in->stat == IDX_BOOT_MEDIANS; i++) {
        for (int side = 0; side < 2 && rc == GPI_OK; side++) {
            const idx_item *v = side ? in->ref : in->now;
            size_t first = side ? in->g[i].rfirst : in->g[i].first;
            size_t n = side ? in->g[i].rn : in->g[i].n;
            if (!v) continue;
            if (n == 0) {
                rc = gpi_diag_set(d, GPI_EINPUT, "bootstrap: a group without items");
                break;
            }
            int64_t *p = realloc(tmp, n * sizeof *p);
            if (!p) {
                rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
                break;
            }
            tmp = p;
            for (size_t j = 0; j < n; j++) tmp[j] = v[first + j].price_micro;
            gmed[2 * i + (size_t)side] = gpi_median2(tmp, n);
        }
    }
    int64_t *gnow = calloc(k, sizeof *gnow), *gref = calloc(k, sizeof *gref);
    if (rc == GPI_OK && (!gnow || !gref)) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < k && rc == GPI_OK; i++) {
        gnow[i] = gmed[2 * i];
        gref[i] = gmed[2 * i + 1];
    }
    /* weighted: the items' price order, once (note 1) */
    size_t n_now = 0, n_ref = 0;
    for (size_t i = 0; i < k; i++) {
        if (in->g[i].first + in->g[i].n > n_now) n_now = in->g[i].first + in->g[i].n;
        if (in->g[i].rfirst + in->g[i].rn > n_ref) n_ref = in->g[i].rfirst + in->g[i].rn;
    }
    int weighted = in->stat == IDX_BOOT_WEIGHTED;
    size_t *ord_now = weighted ? malloc((n_now + 1) * sizeof *ord_now) : NULL;
    size_t *ord_ref = weighted && in->ref ? malloc((n_ref + 1) * sizeof *ord_ref) : NULL;
    size_t *at = malloc((k + 1) * sizeof *at);
    if (rc == GPI_OK && (!at || (weighted && (!ord_now || (in->ref && !ord_ref)))))
        rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (int side = 0; side < 2 && rc == GPI_OK && weighted; side++) {
        size_t *ord = side ? ord_ref : ord_now, n = side ? n_ref : n_now;
        const idx_item *v = side ? in->ref : in->now;
        if (!ord) continue;
        by_price *bp = malloc((n + 1) * sizeof *bp);
        if (!bp) {
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
            break;
        }
        for (size_t i = 0; i < n; i++) bp[i] = (by_price){v[i].price_micro, v[i].group, i};
        qsort(bp, n, sizeof *bp, cmp_by_price);
        for (size_t i = 0; i < n; i++) ord[i] = bp[i].i;
        free(bp);
    }
    /* weighted: each group's volume, per side, and the pass's scratch */
    int64_t *vol[2] = {NULL, NULL}, *dvol = NULL;
    __int128 *num = NULL;
    double *coef = NULL;
    if (rc == GPI_OK && weighted) {
        vol[0] = calloc(k, sizeof *vol[0]);
        vol[1] = calloc(k, sizeof *vol[1]);
        dvol = malloc(k * sizeof *dvol);
        num = malloc(k * sizeof *num);
        coef = malloc(k * sizeof *coef);
        if (!vol[0] || !vol[1] || !dvol || !num || !coef)
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        for (size_t i = 0; rc == GPI_OK && i < k; i++) {
            for (size_t j = 0; j < in->g[i].n; j++) vol[0][i] += in->now[in->g[i].first + j].qty_micro;
            for (size_t j = 0; in->ref && j < in->g[i].rn; j++)
                vol[1][i] += in->ref[in->g[i].rfirst + j].qty_micro;
        }
    }
    uint64_t s = in->seed;
    for (int b = 0; b < IDX_BOOT_RESAMPLES && rc == GPI_OK; b++) {
        for (size_t i = 0; i < k; i++)
            draw[i] = (size_t)(((unsigned __int128)sm64(&s) * k) >> 64);
        int64_t sv[2] = {0, 1};
        for (int side = 0; side < (in->ref ? 2 : 1) && rc == GPI_OK; side++) {
            const idx_item *its = side ? in->ref : in->now;
            const size_t *ord = side ? ord_ref : ord_now;
            size_t n_its = side ? n_ref : n_now;
            int exact = 1;
            if (weighted)
                rc = weighted_pass(in, its, ord, n_its, draw, k, vol[side], dvol, num, coef,
                                   &sv[side], &exact, d);
            if (rc == GPI_OK && exact)
                rc = stat_of(in, its, ord, n_its, draw, k, side ? gref : gnow, work, at, buf,
                             &sv[side], d);
        }
        if (rc == GPI_OK) vals[b] = value_of(in, sv[0], sv[1]);
    }
    free(vol[0]);
    free(vol[1]);
    free(dvol);
    free(num);
    free(coef);
    free(ord_now);
    free(ord_ref);
    free(at);
    if (rc == GPI_OK) {
        qsort(vals, IDX_BOOT_RESAMPLES, sizeof *vals, gpi_cmp_i64);
        out->lo_e4 = vals[IDX_BOOT_LO];
        out->hi_e4 = vals[IDX_BOOT_HI];
    }
    free(gnow);
    free(gref);
    free(tmp);
    free(draw);
    free(gmed);
    free(work);
    free(vals);
    free(buf);
    return rc;
}

/* ---- a published row (note 3) --------------------------------------------------- */

#define E12 INT64_C(1000000000000)

static int64_t ratio_e12(int64_t now, int64_t ref)
{
    if (now <= 0 || ref <= 0) return -1;
    int64_t x = gpi_div_round((__int128)now * E12, ref);
    return x < INT64_C(1000000) || x > INT64_C(1000000000000000000) ? -1 : x;
}

/* A member of the row as its text: digits decimals into *v (-1 null);
 * 0 ok, 1 missing or malformed. */
static int num(json_t *o, const char *key, int digits, int64_t *v)
{
    json_t *x = json_object_get(o, key);
    *v = -1;
    if (!x) return 1;
    if (json_is_null(x)) return 0;
    if (!json_is_string(x)) return 1;
    gpi_dec dec;
    if (gpi_dec_parse(json_string_value(x), &dec) || dec.scale > digits || dec.mant < 0) return 1;
    int64_t m = dec.mant;
    for (int i = dec.scale; i < digits; i++) m *= 10;
    *v = m;
    return 0;
}

static const char *str(json_t *o, const char *key)
{
    json_t *x = json_object_get(o, key);
    return json_is_string(x) ? json_string_value(x) : NULL;
}

/* The groups of the sample, in order of first appearance, with their
 * items; grows by one item at a time. */
typedef struct sample {
    const char **name;
    idx_boot_group *g;
    idx_item *now, *ref;
    size_t ng, nn, nr, cap_g, cap_i;
} sample;

static void sample_free(sample *s)
{
    free(s->name);
    free(s->g);
    free(s->now);
    free(s->ref);
}

/* The group index of name (added when new); -1 out of memory. */
static long group_of(sample *s, const char *name)
{
    for (size_t i = 0; i < s->ng; i++)
        if (strcmp(s->name[i], name) == 0) return (long)i;
    if (s->ng == s->cap_g) {
        size_t cap = s->cap_g ? 2 * s->cap_g : 16;
        const char **n = realloc(s->name, cap * sizeof *n);
        if (!n) return -1;
        s->name = n;
        idx_boot_group *g = realloc(s->g, cap * sizeof *g);
        if (!g) return -1;
        s->g = g;
        s->cap_g = cap;
    }
    s->name[s->ng] = name;
    memset(&s->g[s->ng], 0, sizeof s->g[0]);
    return (long)s->ng++;
}

/* Items are added group by group (callers sort lines by group first). */
static int add(sample *s, long gi, int ref, int64_t v, int64_t w)
{
    if (gi < 0) return 1;
    if ((ref ? s->nr : s->nn) == s->cap_i || s->cap_i == 0) {
        size_t cap = s->cap_i ? 2 * s->cap_i : 64;
        idx_item *a = realloc(s->now, cap * sizeof *a);
        if (!a) return 1;
        s->now = a;
        idx_item *b = realloc(s->ref, cap * sizeof *b);
        if (!b) return 1;
        s->ref = b;
        s->cap_i = cap;
    }
    idx_boot_group *g = &s->g[gi];
    idx_item it = {v, w, 0, 0, (int32_t)gi, IDX_OK};
    if (ref) {
        if (g->rn == 0) g->rfirst = s->nr;
        it.key_hash = s->nr;
        s->ref[s->nr++] = it;
        g->rn++;
    } else {
        if (g->n == 0) g->first = s->nn;
        it.key_hash = s->nn;
        s->now[s->nn++] = it;
        g->n++;
    }
    return 0;
}

/* Lines sorted by group name (their order otherwise kept): the items of a
 * group are then contiguous. */
typedef struct ord {
    const idx_boot_line *l;
    size_t i;
} ord;

static int cmp_ord(const void *a, const void *b)
{
    const ord *x = a, *y = b;
    int c = strcmp(x->l->group, y->l->group);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static gpi_status lines_sample(const idx_boot_line *lines, size_t n, int kind, int matched,
                               int ratio, sample *s, gpi_diag *d)
{
    ord *o = malloc((n + 1) * sizeof *o);
    if (!o) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (lines[i].used && lines[i].kind == kind && lines[i].group &&
            (!matched || lines[i].matched == 1))
            o[m++] = (ord){&lines[i], i};
    qsort(o, m, sizeof *o, cmp_ord);
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < m && rc == GPI_OK; i++) {
        const idx_boot_line *l = o[i].l;
        long gi = group_of(s, l->group);
        if (gi >= 0 && l->imputed) s->g[gi].imputed = 1;
        int bad;
        if (ratio)
            bad = add(s, gi, 0, ratio_e12(l->price_micro * 100, l->base_e8), 1) ||
                  add(s, gi, 1, ratio_e12(l->ref_e8, l->base_e8), 1);
        else
            bad = add(s, gi, 0, l->price_micro, kind == GPI_TRADE ? l->qty_micro : 1);
        if (bad) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    free(o);
    return rc;
}

/* §10.3's trading members (note 3): per group its representative relative
 * and volume, the carried trades, the reference volumes. */
static gpi_status trade_members(json_t *row, const idx_grade *g, const idx_boot_line *lines,
                                size_t n, sample *s, gpi_diag *d)
{
    (void)g;
    json_t *ct = json_object_get(row, "carried_trades"), *rv = json_object_get(row, "ref_volumes");
    if (!json_is_array(ct) || !json_is_object(rv))
        return gpi_diag_set(d, GPI_EINPUT, "carried_trades / ref_volumes: missing");
    ord *o = malloc((n + 1) * sizeof *o);
    idx_item *it = malloc((n + 1) * sizeof *it);
    gpi_status rc = o && it ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n && rc == GPI_OK; i++)
        if (lines[i].used && lines[i].kind == GPI_TRADE && lines[i].matched == 1 && lines[i].group)
            o[m++] = (ord){&lines[i], i};
    if (rc == GPI_OK) qsort(o, m, sizeof *o, cmp_ord);
    for (size_t i = 0; i < m && rc == GPI_OK;) {
        size_t j = i, k = 0;
        int64_t vol = 0;
        for (; j < m && strcmp(o[j].l->group, o[i].l->group) == 0; j++)
            if (o[j].l->qty_micro > 0) {
                it[k] = (idx_item){o[j].l->price_micro, o[j].l->qty_micro, (uint64_t)j, 0, 0, IDX_OK};
                vol += o[j].l->qty_micro;
                k++;
            }
        int64_t rep = -1, ref_vol;
        if (k > 0) rc = idx_weighted_median(it, k, 1000000, &rep, d);
        if (rc == GPI_OK && num(rv, o[i].l->group, 6, &ref_vol))
            rc = gpi_diag_set(d, GPI_EINPUT, "ref_volumes.%s: missing", o[i].l->group);
        if (rc == GPI_OK) {
            long gi = group_of(s, o[i].l->group);
            if (add(s, gi, 0, ratio_e12(rep * 25, o[i].l->base_e8), vol) ||
                add(s, gi, 1, ratio_e12(o[i].l->ref_e8, o[i].l->base_e8), ref_vol))
                rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        }
        i = j;
    }
    size_t i;
    json_t *x;
    json_array_foreach(ct, i, x) {
        if (rc != GPI_OK) break;
        int64_t price, volume, ref, base, ref_vol;
        const char *grp = str(x, "group");
        if (!grp || num(x, "price", 8, &price) || num(x, "volume", 6, &volume) ||
            num(x, "ref_price", 8, &ref) || num(x, "base_price", 8, &base) ||
            num(rv, grp, 6, &ref_vol)) {
            rc = gpi_diag_set(d, GPI_EINPUT, "carried_trades[%zu]: unreadable", i);
            break;
        }
        long gi = group_of(s, grp);
        if (add(s, gi, 0, ratio_e12(price, base), volume) ||
            add(s, gi, 1, ratio_e12(ref, base), ref_vol))
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    free(o);
    free(it);
    return rc;
}

gpi_status idx_boot_row(json_t *row, const idx_grade *g, const idx_boot_line *lines, size_t n,
                        int32_t day, int64_t stale_e6, idx_boot_result *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->iv.lo_e4 = out->iv.hi_e4 = -1;
    out->flag = IDX_CONF_WITHHELD;
    const char *meth = str(row, "methodology"), *lv = str(row, "level"), *grade = str(row, "grade");
    int64_t value, adj;
    if (!meth || !lv || !grade || num(row, "value", 4, &value) || num(row, "adjustment", 6, &adj))
        return gpi_diag_set(d, GPI_EINPUT, "the row's methodology, level, value or adjustment "
                                           "cannot be read");
    int level = gpi_level_parse(lv), v2 = strcmp(meth, "v2") == 0;
    if (level != GPI_LEVEL_TRADES && level != GPI_LEVEL_OFFERS) {
        snprintf(out->why, sizeof out->why, "%s: no fix of the day's own inputs", lv);
        return GPI_OK;
    }
    idx_boot_in in = {0};
    in.cap_floor_e6 = g->p.cap_floor_e6;
    in.step_e4 = g->p.rounding_e4 > 0 ? g->p.rounding_e4 : 1;
    in.seed = idx_boot_seed(grade, day);
    sample s = {0};
    gpi_status rc = GPI_OK;
    json_t *ev = json_object_get(row, "event");
    int anchor = v2 && json_is_string(ev);
    if (!v2 || anchor) { /* the cross-section's statistic */
        int xl = level;
        int64_t xs = value;
        if (anchor && (!str(row, "xs_level") || num(row, "xs_value", 4, &xs) || xs <= 0))
            return gpi_diag_set(d, GPI_EINPUT, "the row's xs_level or xs_value cannot be read");
        if (anchor) xl = gpi_level_parse(str(row, "xs_level"));
        in.stat = xl == GPI_LEVEL_TRADES ? IDX_BOOT_WEIGHTED : IDX_BOOT_MEDIANS;
        int64_t a = xl == GPI_LEVEL_OFFERS && adj > 0 ? adj : 1000000;
        /* value / xs scales an anchor's cross-section to the anchor value */
        in.mul = anchor ? a * value : a;
        in.div = anchor ? INT64_C(400000000) * xs : INT64_C(400000000);
        rc = lines_sample(lines, n, xl == GPI_LEVEL_TRADES ? GPI_TRADE : GPI_OFFER, 0, 0, &s, d);
    } else { /* a matched relative: chain before the day x S(now) / S(ref) */
        int64_t chain;
        if (num(row, "chain_prev", 9, &chain) || chain <= 0)
            return gpi_diag_set(d, GPI_EINPUT, "the row's chain_prev cannot be read");
        in.mul = chain;
        in.div = 100000; /* nano -> 0.0001 */
        in.stat = level == GPI_LEVEL_TRADES ? IDX_BOOT_WEIGHTED : IDX_BOOT_MEDIANS;
        rc = level == GPI_LEVEL_TRADES ? trade_members(row, g, lines, n, &s, d)
                                       : lines_sample(lines, n, GPI_OFFER, 1, 1, &s, d);
        in.ref = s.ref;
    }
    if (rc == GPI_OK) {
        in.now = s.now;
        if (in.ref) in.ref = s.ref;
        in.g = s.g;
        in.n_groups = s.ng;
        for (size_t i = 0; i < s.nn && rc == GPI_OK; i++)
            if (s.now[i].price_micro < 0) rc = gpi_diag_set(d, GPI_EINPUT, "a relative out of range");
        for (size_t i = 0; in.ref && i < s.nr && rc == GPI_OK; i++)
            if (s.ref[i].price_micro < 0) rc = gpi_diag_set(d, GPI_EINPUT, "a relative out of range");
    }
    if (rc == GPI_OK) rc = idx_boot_run(&in, &out->iv, d);
    sample_free(&s);
    if (rc != GPI_OK) return rc;
    /* the flag (note 4) */
    const idx_boot_out *iv = &out->iv;
    if (iv->lo_e4 < 0) {
        snprintf(out->why, sizeof out->why, "%ld provider group%s: no interval", iv->groups,
                 iv->groups == 1 ? "" : "s");
        out->flag = IDX_CONF_WITHHELD;
    } else if (iv->groups < 5) {
        snprintf(out->why, sizeof out->why, "%ld provider groups (fewer than 5)", iv->groups);
        out->flag = IDX_CONF_LOW;
    } else if ((__int128)(iv->hi_e4 - iv->lo_e4) * 100 > (__int128)5 * value) {
        snprintf(out->why, sizeof out->why, "the interval is wider than 5 %% of the value");
        out->flag = IDX_CONF_LOW;
    } else if (iv->imputed * 2 >= iv->groups) {
        snprintf(out->why, sizeof out->why, "half or more of the groups imputed");
        out->flag = IDX_CONF_LOW;
    } else if (stale_e6 >= 500000) {
        snprintf(out->why, sizeof out->why, "half or more of the groups' prices unchanged for "
                                            "30 days");
        out->flag = IDX_CONF_LOW;
    } else {
        snprintf(out->why, sizeof out->why, "%ld provider groups", iv->groups);
        out->flag = IDX_CONF_NORMAL;
    }
    return GPI_OK;
}
