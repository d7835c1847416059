/* index/grade_tables.c -- what a grade file is read with (gpus.csv and
 * regions.csv, through core's CSV reader; the canonical GPU names of a
 * gpus.csv, idx_gpu_names_load), and a check of its filters against the
 * stored observations.
 *
 * NOTES ON THE DESIGN
 * (1) gpus.csv gives the canonical GPU names a grade may list and the
 *     aliases a grade may use instead: only rows that hold for every
 *     provider and sku (provider and sku_glob empty), because a grade has
 *     no provider or sku of its own to resolve the others with.  So
 *     "H100" in a grade is H100-SXM-80GB, as a bare "H100" in a feed is.
 * (2) regions.csv names region groups ("US", "EU", "APAC"), one glob per
 *     row.  A grade's "regions" entry that names a group stands for its
 *     globs; the canonical definition lists the globs themselves, so a
 *     stored definition never depends on the table (and a changed group
 *     is a changed definition, which needs a new grade version).
 * (3) A filter that matches nothing is almost always a typo ("lamda", a
 *     region spelt the way another feed spells it): each entry is checked
 *     against the stored observations (the distinct values of its field:
 *     note 5), and so is each grade as a whole (the distinct facets).
 *     These are warnings, not errors: a grade may be defined before its
 *     first observation arrives.
 * (4) Observations are never deleted, so the facets only grow and a check
 *     that warned of nothing never will.  Such a check is recorded under
 *     a key, the SHA-256 of what it depends on besides the facets (each
 *     grade's definition hash and its regions as written, the region
 *     groups), and not run again: reading the 58,723 facets of the bench
 *     market was a fifth of a one-day build.  A check that warns runs
 *     every time, so its warnings are printed every time.
 * (5) Each entry of a filter is about one field, so it is checked against
 *     that field's distinct values (store_obs_facet_values: a few hundred
 *     texts), which is the same question as "some facet has it" and needs
 *     no facets.  Only a grade whose entries all match is checked as a
 *     whole against the facets themselves; it is then usually clean and
 *     recorded.  A grade that warns about an entry (one defined before its
 *     GPU is traded, say) so costs a walk over the profiles, not ~58,000
 *     facets, every build.
 */
#define _GNU_SOURCE 1 /* FNM_CASEFOLD */
#include "index/index.h"
#include "index/match.h"
#include "core/csv_reader.h"
#include "core/vec.h"
#include "store/obs.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- tables ------------------------------------------------------------------ */

static int col_of(const char *const *f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcasecmp(f[i], name) == 0) return i;
    return -1;
}

static gpi_status push(char ***v, size_t *n, size_t *cap, const char *s, gpi_diag *d)
{
    if (GPI_VEC_RESERVE(*v, *cap, *n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "grades: out of memory");
    if (!((*v)[*n] = strdup(s))) return gpi_diag_set(d, GPI_ENOMEM, "grades: out of memory");
    (*n)++;
    return GPI_OK;
}

/* A table of data/ at path, through core's CSV reader ('#' comment lines,
 * quoted fields: as ingest reads the same file); messages name it by its
 * file name ("regions.csv:3: ..."), as ingest's do.  A missing table is
 * no error (the tables are optional here: the built-in SPEC §3 GPU names
 * apply, and no region groups). */
static gpi_status read_table(const char *path, gpi_csv_rec_fn fn, void *ctx, gpi_diag *d)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    FILE *f = fopen(path, "rb");
    if (!f) return GPI_OK; /* optional */
    gpi_status rc = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (rc == GPI_OK) rc = gpi_csv_read_stream(f, name, 1, fn, ctx, d);
    fclose(f);
    return rc;
}

typedef struct gpus_ctx {
    idx_grade_tables *tb;
    int header, skip;
    int c_alias, c_canon, c_prov, c_sku;
    size_t cap_g, cap_a, cap_t;
} gpus_ctx;

static const char *col(const gpi_csv_rec *r, int c)
{
    return c >= 0 && c < r->n ? r->f[c] : "";
}

static gpi_status gpus_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    gpus_ctx *c = ud;
    idx_grade_tables *tb = c->tb;
    if (c->skip) return GPI_OK;
    if (!c->header) {
        c->header = 1;
        c->c_alias = col_of(r->f, r->n, "alias");
        c->c_canon = col_of(r->f, r->n, "canonical");
        c->c_prov = col_of(r->f, r->n, "provider");
        c->c_sku = col_of(r->f, r->n, "sku_glob");
        c->skip = c->c_canon < 0;
        return GPI_OK;
    }
    const char *canon = col(r, c->c_canon);
    if (!*canon) return GPI_OK;
    gpi_status rc = GPI_OK;
    int dup = strcmp(canon, "-") == 0;
    for (size_t k = 0; !dup && k < tb->n_gpus; k++) dup = strcasecmp(tb->gpus[k], canon) == 0;
    if (!dup) rc = push(&tb->gpus, &tb->n_gpus, &c->cap_g, canon, d);
    const char *prov = col(r, c->c_prov), *sku = col(r, c->c_sku), *alias = col(r, c->c_alias);
    if (rc != GPI_OK || *prov || *sku || !*alias || strpbrk(alias, "*?")) return rc;
    char fa[IDX_NAME_MAX + 1];
    gpi_fold_gpu(alias, fa, sizeof fa);
    /* the first generic row of an alias wins, as at ingest */
    for (size_t k = 0; k < tb->n_alias; k++)
        if (strcmp(tb->alias[k], fa) == 0) return GPI_OK;
    size_t na = tb->n_alias;
    rc = push(&tb->alias, &tb->n_alias, &c->cap_a, fa, d);
    if (rc == GPI_OK) {
        size_t nt = tb->n_alias - 1;
        rc = push(&tb->alias_to, &nt, &c->cap_t, canon, d);
    }
    if (rc != GPI_OK) tb->n_alias = na;
    return rc;
}

typedef struct regions_ctx {
    idx_grade_tables *tb;
    int header, c_group, c_region;
    size_t cap_g, cap_p;
} regions_ctx;

static gpi_status regions_rec(void *ud, const gpi_csv_rec *r, gpi_diag *d)
{
    regions_ctx *c = ud;
    idx_grade_tables *tb = c->tb;
    if (!c->header) {
        c->header = 1;
        c->c_group = col_of(r->f, r->n, "group");
        c->c_region = col_of(r->f, r->n, "region");
        if (c->c_group < 0 || c->c_region < 0)
            return gpi_diag_set(d, GPI_EINPUT, "regions.csv:%ld: header: missing column \"%s\"",
                                r->line, c->c_group < 0 ? "group" : "region");
        return GPI_OK;
    }
    const char *g = col(r, c->c_group), *rg = col(r, c->c_region);
    if (!*g || strlen(g) > IDX_NAME_MAX)
        return gpi_diag_set(d, GPI_EINPUT, "regions.csv:%ld: group: empty or longer than 64 "
                            "(got \"%.80s\")", r->line, g);
    if (!*rg || strlen(rg) > IDX_NAME_MAX)
        return gpi_diag_set(d, GPI_EINPUT, "regions.csv:%ld: region: empty or longer than 64 "
                            "(got \"%.80s\")", r->line, rg);
    size_t ng = tb->n_rgroup;
    gpi_status rc = push(&tb->rgroup, &tb->n_rgroup, &c->cap_g, g, d);
    if (rc == GPI_OK) {
        size_t np = tb->n_rgroup - 1;
        rc = push(&tb->rpattern, &np, &c->cap_p, rg, d);
    }
    if (rc != GPI_OK) tb->n_rgroup = ng;
    return rc;
}

gpi_status idx_grade_tables_load(const char *data_dir, idx_grade_tables *tb, gpi_diag *d)
{
    memset(tb, 0, sizeof *tb);
    gpus_ctx g = {.tb = tb};
    regions_ctx r = {.tb = tb};
    char path[4096];
    snprintf(path, sizeof path, "%s/gpus.csv", data_dir);
    gpi_status rc = read_table(path, gpus_rec, &g, d);
    snprintf(path, sizeof path, "%s/regions.csv", data_dir);
    if (rc == GPI_OK) rc = read_table(path, regions_rec, &r, d);
    if (rc != GPI_OK) idx_grade_tables_free(tb);
    return rc;
}

/* The canonical names of the gpus.csv at path: what the table reader
 * above keeps of it. */
gpi_status idx_gpu_names_load(const char *path, char ***names, size_t *n, gpi_diag *d)
{
    idx_grade_tables tb;
    memset(&tb, 0, sizeof tb);
    gpus_ctx g = {.tb = &tb};
    gpi_status rc = read_table(path, gpus_rec, &g, d);
    *names = rc == GPI_OK ? tb.gpus : NULL;
    *n = rc == GPI_OK ? tb.n_gpus : 0;
    if (rc == GPI_OK) {
        tb.gpus = NULL;
        tb.n_gpus = 0;
    }
    idx_grade_tables_free(&tb);
    return rc;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void idx_grade_tables_free(idx_grade_tables *tb)
{
    free_list(tb->gpus, tb->n_gpus);
    free_list(tb->alias, tb->n_alias);
    free_list(tb->alias_to, tb->n_alias);
    free_list(tb->rgroup, tb->n_rgroup);
    free_list(tb->rpattern, tb->n_rgroup);
    memset(tb, 0, sizeof *tb);
}

/* ---- the check (note 3) ---------------------------------------------------------- */

/* A facet as the check needs it: what idx_grade_match reads, the names
 * as the store's interned texts (store_obs_facets: valid until the next
 * rollback or close; nothing here writes).  58,723 facets on the bench
 * market: a whole gpi_obs each was 12 MB of fresh pages in every build. */
typedef struct facet {
    const char *gpu, *provider, *group, *segment, *region, *sku;
    signed char kind, scope, tier, term, term_months, covers;
} facet;

typedef struct facets {
    facet *v;
    size_t n, cap;
    int oom;
} facets;

static int collect(const gpi_obs *o, void *ud)
{
    facets *fs = ud;
    if (GPI_VEC_RESERVE(fs->v, fs->cap, fs->n + 1) != 0) {
        fs->oom = 1;
        return 1;
    }
    fs->v[fs->n++] = (facet){o->gpu,
                             o->provider,
                             o->group,
                             o->segment,
                             o->region,
                             o->sku,
                             (signed char)o->kind,
                             (signed char)o->scope,
                             (signed char)o->tier,
                             (signed char)o->term,
                             (signed char)o->term_months,
                             (signed char)o->covers};
    return 0;
}

/* The facet as an observation, for idx_grade_match. */
static void as_obs(const facet *f, gpi_obs *o)
{
    memset(o, 0, sizeof *o);
    o->gpu = f->gpu;
    o->provider = f->provider;
    o->group = f->group;
    o->segment = f->segment;
    o->region = f->region;
    o->sku = f->sku;
    o->kind = f->kind;
    o->scope = f->scope;
    o->tier = f->tier;
    o->term = f->term;
    o->term_months = f->term_months;
    o->covers = f->covers;
}

static void facets_free(facets *fs)
{
    free(fs->v);
}

/* pattern (a glob when it has * ? [) matches s, ignoring case */
static int like(const char *pattern, const char *s)
{
    if (!s) s = "";
    if (strpbrk(pattern, "*?[")) return fnmatch(pattern, s, FNM_CASEFOLD) == 0;
    return strcasecmp(pattern, s) == 0;
}

enum { F_GPU, F_PROVIDER, F_SEGMENT, F_SKU, F_REGION };

/* Each facet field's distinct values (note 5; NULL: a facet without one). */
typedef struct values {
    const char **v[STORE_FACET_FIELDS];
    size_t n[STORE_FACET_FIELDS], cap[STORE_FACET_FIELDS];
    size_t noted; /* the facets' profiles */
    int oom;
} values;

static int collect_value(int field, const char *text, void *ud)
{
    values *vs = ud;
    if (GPI_VEC_RESERVE(vs->v[field], vs->cap[field], vs->n[field] + 1) != 0) {
        vs->oom = 1;
        return 1;
    }
    vs->v[field][vs->n[field]++] = text;
    return 0;
}

static void values_free(values *vs)
{
    for (int f = 0; f < STORE_FACET_FIELDS; f++) free(vs->v[f]);
}

/* 1 when some value of field f matches the glob or name entry. */
static int any_like(const values *vs, int f, const char *entry)
{
    for (size_t i = 0; i < vs->n[f]; i++)
        if (like(entry, vs->v[f][i])) return 1;
    return 0;
}

/* 1 when some facet has a value of field `what` that entry matches: the
 * same answer as asking every facet, from the distinct values (note 5). */
static int any_value(const values *vs, int what, const char *entry, const idx_grade_tables *tb)
{
    switch (what) {
    case F_GPU:
        for (size_t i = 0; i < vs->n[STORE_FACET_GPU]; i++) {
            const char *g = vs->v[STORE_FACET_GPU][i];
            if (g && strcasecmp(g, entry) == 0) return 1;
        }
        return 0;
    case F_PROVIDER:
        return any_like(vs, STORE_FACET_PROVIDER, entry) || any_like(vs, STORE_FACET_GROUP, entry);
    case F_SEGMENT:
        return any_like(vs, STORE_FACET_SEGMENT, entry);
    case F_SKU:
        return any_like(vs, STORE_FACET_SKU, entry);
    default:
        break;
    }
    int group = 0;
    for (size_t k = 0; tb && k < tb->n_rgroup; k++) group |= strcasecmp(tb->rgroup[k], entry) == 0;
    if (!group) return any_like(vs, STORE_FACET_REGION, entry);
    for (size_t k = 0; k < tb->n_rgroup; k++)
        if (strcasecmp(tb->rgroup[k], entry) == 0 &&
            any_like(vs, STORE_FACET_REGION, tb->rpattern[k]))
            return 1;
    return 0;
}

/* The key of the check of grade g with tb (note 4). */
static void check_key(const idx_grade *g, const idx_grade_tables *tb, char key[65])
{
    gpi_sha256 h;
    gpi_sha256_init(&h);
    static const char tag[] = "gpuidx grade check 1\n";
    gpi_sha256_update(&h, tag, sizeof tag - 1);
    gpi_sha256_update(&h, g->hash, strlen(g->hash));
    for (int i = 0; i < g->n_region_src; i++) {
        gpi_sha256_update(&h, "\t", 1);
        gpi_sha256_update(&h, g->region_src[i], strlen(g->region_src[i]));
    }
    gpi_sha256_update(&h, "\n", 1);
    for (size_t i = 0; tb && i < tb->n_rgroup; i++) {
        gpi_sha256_update(&h, tb->rgroup[i], strlen(tb->rgroup[i]) + 1);
        gpi_sha256_update(&h, tb->rpattern[i], strlen(tb->rpattern[i]) + 1);
    }
    gpi_sha256_final(&h, key);
}

/* Checks each entry of grade gi's filters against the values; the number
 * of warnings. */
static int check_entries(const idx_grades *gs, size_t gi, const char *name, const values *vs,
                         const idx_grade_tables *tb, idx_warn_fn warn, void *ud)
{
    const idx_grade *g = &gs->g[gi];
    char msg[512];
    int warned = 0;
    struct {
        const char *field;
        int what, n;
        const char (*v)[IDX_NAME_MAX + 1];
    } lists[] = {{"gpu", F_GPU, g->n_gpu, (const char (*)[IDX_NAME_MAX + 1])g->gpu},
                 {"regions", F_REGION, g->n_region_src,
                  (const char (*)[IDX_NAME_MAX + 1])g->region_src},
                 {"providers", F_PROVIDER, g->n_provider,
                  (const char (*)[IDX_NAME_MAX + 1])g->provider},
                 {"segments", F_SEGMENT, g->n_segment,
                  (const char (*)[IDX_NAME_MAX + 1])g->segment},
                 {"skus", F_SKU, g->n_sku, (const char (*)[IDX_NAME_MAX + 1])g->sku}};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k].n; i++) {
            if (any_value(vs, lists[k].what, lists[k].v[i], tb)) continue;
            snprintf(msg, sizeof msg, "%s: grades[%zu].%s: \"%s\" matches no stored observation",
                     name, gi, lists[k].field, lists[k].v[i]);
            warn(msg, ud);
            warned++;
        }
    return warned;
}

/* Checks grade gi as a whole against the facets; the number of warnings. */
static int check_whole(const idx_grades *gs, size_t gi, const char *name, const facets *fs,
                       idx_warn_fn warn, void *ud)
{
    const idx_grade *g = &gs->g[gi];
    int any = 0;
    for (size_t i = 0; i < fs->n && !any; i++) {
        gpi_obs o;
        as_obs(&fs->v[i], &o);
        any = idx_grade_match(g, &o);
    }
    if (any) return 0;
    char msg[512];
    snprintf(msg, sizeof msg,
             "%s: grades[%zu] (%s): no stored observation matches all of its filters "
             "(gpu, term, tier, scope, covers, places)",
             name, gi, g->id);
    warn(msg, ud);
    return 1;
}

gpi_status idx_grades_check(const idx_grades *gs, const char *name, const idx_grade_tables *tb,
                            store *st, idx_warn_fn warn, void *ud, gpi_diag *d)
{
    values vs = {0};
    facets fs = {0};
    int have_values = 0, have_facets = 0;
    char(*keys)[65] = calloc(gs->n ? gs->n : 1, sizeof *keys);
    const char **clean_keys = calloc(gs->n ? gs->n : 1, sizeof *clean_keys);
    size_t n_clean = 0;
    gpi_status rc = keys && clean_keys ? GPI_OK
                                       : gpi_diag_set(d, GPI_ENOMEM, "grades: out of memory");
    for (size_t gi = 0; rc == GPI_OK && gi < gs->n; gi++) {
        check_key(&gs->g[gi], tb, keys[gi]);
        int clean = 0;
        rc = store_facet_check_clean(st, keys[gi], &clean, d);
        if (rc != GPI_OK || clean) continue;
        if (!have_values) { /* once, when a grade needs them (note 5) */
            have_values = 1;
            rc = store_obs_facet_values(st, collect_value, &vs, &vs.noted, d);
            if (rc == GPI_OK && vs.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "grades: out of memory");
        }
        if (rc != GPI_OK || vs.noted == 0) break; /* nothing stored: nothing to check against */
        if (check_entries(gs, gi, name, &vs, tb, warn, ud) > 0) continue;
        if (!have_facets) {
            have_facets = 1;
            rc = store_obs_facets(st, collect, &fs, d);
            if (rc == GPI_OK && fs.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "grades: out of memory");
            if (rc != GPI_OK) break;
        }
        if (check_whole(gs, gi, name, &fs, warn, ud) == 0) clean_keys[n_clean++] = keys[gi];
    }
    if (rc == GPI_OK && n_clean > 0) store_facet_check_record(st, clean_keys, n_clean);
    values_free(&vs);
    facets_free(&fs);
    free(keys);
    free(clean_keys);
    return rc;
}
