/* index/v3_detail.c -- observations.csv of a methodology v3 grade-day
 * (METHODOLOGY.md §13.7), from what the build stored with the row
 * (index/v3_row.c design note 3): no replay of the panel's history.
 *
 * NOTES ON THE DESIGN
 * (1) Each observation of the day is listed with its role in the panel:
 *     `excluded` (with the screen's reason, or cancelled / affiliate) when
 *     the screen or its status leaves it out, else `used` when its group is
 *     a member, `candidate` (reason "not in the panel: present N of A
 *     days") when it is not; and with the price index's columns: matched
 *     1 when it entered the day's change, ref_price the price it was
 *     matched to (offers: the identity's last price; trades: its group's
 *     last representative price), relative price / ref_price.
 * (2) An imputed member's carried observations are listed too (imputed
 *     1, role used): the build stored their keys and times and the day
 *     they were made; they are read from that day at the row's cut-off.
 */
#include "index/v3_detail.h"
#include "store/obs.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define E12 INT64_C(1000000000000)

typedef struct pub_group {
    char *name;
    int role, present_days, counted;
    int64_t rep_q, ref_q;
} pub_group;

typedef struct pub_ref {
    uint64_t key;
    int64_t ref;
    int counted;
} pub_ref;

typedef struct pub_imp {
    size_t group;               /* index into groups */
    int32_t day;
    int *kind;
    uint64_t *key;
    int64_t *at;
    size_t n;
} pub_imp;

struct idx_v3_pub {
    pub_group *g;
    size_t ng;
    pub_ref *r;
    size_t nr;
    pub_imp *imp;
    size_t nimp;
};

void idx_v3_pub_free(idx_v3_pub *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->ng; i++) free(p->g[i].name);
    for (size_t i = 0; i < p->nimp; i++) {
        free(p->imp[i].kind);
        free(p->imp[i].key);
        free(p->imp[i].at);
    }
    free(p->g);
    free(p->r);
    free(p->imp);
    free(p);
}

static int cmp_ref(const void *a, const void *b)
{
    const pub_ref *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int hexkey(json_t *v, uint64_t *out)
{
    const char *s = json_string_value(v);
    if (!s || strlen(s) != 16) return -1;
    char *end;
    *out = strtoull(s, &end, 16);
    return *end ? -1 : 0;
}

static int64_t num(json_t *a, size_t i)
{
    return json_integer_value(json_array_get(a, i));
}

gpi_status idx_v3_pub_parse(const char *text, idx_v3_pub **out, gpi_diag *d)
{
    *out = NULL;
    json_error_t je;
    json_t *root = text ? json_loads(text, 0, &je) : NULL;
    idx_v3_pub *p = calloc(1, sizeof *p);
    json_t *groups = json_object_get(root, "groups"), *refs = json_object_get(root, "refs"),
           *imp = json_object_get(root, "imputed");
    gpi_status rc = GPI_OK;
    if (!p)
        rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    else if (!json_is_array(groups) || !json_is_array(refs) || !json_is_array(imp))
        rc = gpi_diag_set(d, GPI_ESTORE, "publish: a v3 row without its stored detail (build it "
                                         "again)");
    if (rc == GPI_OK) {
        p->g = calloc(json_array_size(groups) + 1, sizeof *p->g);
        p->r = calloc(json_array_size(refs) + 1, sizeof *p->r);
        p->imp = calloc(json_array_size(imp) + 1, sizeof *p->imp);
        if (!p->g || !p->r || !p->imp) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    for (size_t i = 0; rc == GPI_OK && i < json_array_size(groups); i++) {
        json_t *x = json_array_get(groups, i);
        pub_group *g = &p->g[p->ng++];
        const char *name = json_string_value(json_array_get(x, 0));
        if (!(g->name = strdup(name ? name : ""))) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        g->role = (int)num(x, 1);
        g->present_days = (int)num(x, 2);
        g->rep_q = num(x, 3);
        g->ref_q = num(x, 4);
        g->counted = (int)num(x, 6);
    }
    for (size_t i = 0; rc == GPI_OK && i < json_array_size(refs); i++) {
        json_t *x = json_array_get(refs, i);
        pub_ref *r = &p->r[p->nr++];
        if (hexkey(json_array_get(x, 0), &r->key))
            rc = gpi_diag_set(d, GPI_ESTORE, "publish: a v3 row's stored detail is malformed");
        r->ref = num(x, 1);
        r->counted = (int)num(x, 3);
    }
    if (rc == GPI_OK && p->nr > 1) qsort(p->r, p->nr, sizeof *p->r, cmp_ref);
    for (size_t i = 0; rc == GPI_OK && i < json_array_size(imp); i++) {
        json_t *x = json_array_get(imp, i), *items = json_object_get(x, "items");
        pub_imp *m = &p->imp[p->nimp++];
        const char *name = json_string_value(json_object_get(x, "group"));
        m->group = SIZE_MAX;
        for (size_t k = 0; k < p->ng; k++)
            if (name && strcmp(p->g[k].name, name) == 0) m->group = k;
        m->day = (int32_t)json_integer_value(json_object_get(x, "day"));
        size_t n = json_array_size(items);
        m->kind = calloc(n + 1, sizeof *m->kind);
        m->key = calloc(n + 1, sizeof *m->key);
        m->at = calloc(n + 1, sizeof *m->at);
        if (!m->kind || !m->key || !m->at) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        for (size_t k = 0; rc == GPI_OK && k < n; k++) {
            json_t *it = json_array_get(items, k);
            m->kind[k] = (int)num(it, 0);
            if (hexkey(json_array_get(it, 1), &m->key[k]))
                rc = gpi_diag_set(d, GPI_ESTORE, "publish: a v3 row's stored detail is malformed");
            m->at[k] = num(it, 2);
            m->n = k + 1;
        }
        if (rc == GPI_OK && m->group == SIZE_MAX)
            rc = gpi_diag_set(d, GPI_ESTORE, "publish: a v3 row's stored detail is malformed");
    }
    json_decref(root);
    if (rc != GPI_OK) {
        idx_v3_pub_free(p);
        return rc;
    }
    *out = p;
    return GPI_OK;
}

static const pub_group *group_named(const idx_v3_pub *p, const char *name)
{
    for (size_t i = 0; i < p->ng; i++)
        if (strcmp(p->g[i].name, name ? name : "") == 0) return &p->g[i];
    return NULL;
}

const char *idx_v3_pub_role(const idx_v3_pub *p, const idx_grade *g, const gpi_obs *o,
                            int reason, idx_obs_match *m, char *why, size_t n)
{
    *m = (idx_obs_match){1, 1, 0, 0, -1, -1, -1};
    why[0] = '\0';
    if (reason != IDX_OK) {
        snprintf(why, n, "%s", idx_reason_name(reason));
        return "excluded";
    }
    const pub_group *pg = group_named(p, o->group);
    if (!pg || pg->role != IDX_V3_MEMBER) {
        snprintf(why, n, "not in the panel: present %d of %d days", pg ? pg->present_days : 0,
                 g->p.admission_days);
        return "candidate";
    }
    if (o->kind == GPI_OFFER) {
        pub_ref key = {o->key_hash, 0, 0};
        const pub_ref *r = p->nr ? bsearch(&key, p->r, p->nr, sizeof *p->r, cmp_ref) : NULL;
        if (r && r->counted && r->ref > 0) {
            m->matched = 1;
            m->ref_price_e8 = r->ref * 100;
            m->relative_e12 = gpi_div_round((__int128)o->price_micro * E12, r->ref);
        }
    } else if (pg->counted && pg->ref_q > 0) {
        m->matched = 1;
        m->ref_price_e8 = pg->ref_q * 25;
        m->relative_e12 = gpi_div_round((__int128)pg->rep_q * E12, pg->ref_q);
    }
    return "used";
}

typedef struct imp_ctx {
    const pub_imp *m;
    size_t gi;
    idx_obs_fn fn;
    void *ud;
    int stop;
} imp_ctx;

static int on_carried(const gpi_obs *o, void *ud)
{
    imp_ctx *c = ud;
    for (size_t k = 0; k < c->m->n; k++)
        if (c->m->key[k] == o->key_hash && c->m->at[k] == o->observed_at &&
            c->m->kind[k] == o->kind) {
            idx_obs_match mm = {1, 1, 1, 0, -1, -1, -1};
            if (c->fn(c->gi, o, "used", "", &mm, c->ud)) return c->stop = 1;
            return 0;
        }
    return 0;
}

gpi_status idx_v3_pub_imputed(store *st, const idx_v3_pub *p, size_t gi, int64_t as_of,
                              idx_obs_fn fn, void *ud, int *stop, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < p->nimp && rc == GPI_OK && !*stop; i++) {
        imp_ctx c = {&p->imp[i], gi, fn, ud, 0};
        rc = store_obs_scan(st, p->imp[i].day, p->imp[i].day, as_of, on_carried, &c, d);
        *stop = c.stop;
    }
    return rc;
}
