/* index/grade_tables.c -- what a grade file is read with, and a check of
 * its filters against the stored observations.
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
 *     against the distinct facets of the stored observations (one scan),
 *     and so is each grade as a whole.  These are warnings, not errors: a
 *     grade may be defined before its first observation arrives.
 */
#define _GNU_SOURCE 1 /* FNM_CASEFOLD */
#include "index/internal.h"
#include "core/vec.h"
#include "store/obs.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- tables ------------------------------------------------------------------ */

/* Splits a line at commas (no quoting: the columns read here never hold
 * one); returns the number of fields, at most max. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *t = line; t && n < max; n++) {
        char *comma = strchr(t, ',');
        if (comma) *comma = '\0';
        f[n] = t;
        t = comma ? comma + 1 : NULL;
    }
    return n;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    size_t k = strspn(s, " \t");
    if (k) memmove(s, s + k, n - k + 1);
}

static int col_of(char **f, int n, const char *name)
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

static void fold_gpu(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        if (*s != ' ' && *s != '-' && *s != '_' && *s != '\t')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
}

static gpi_status load_gpus(const char *path, idx_grade_tables *tb, gpi_diag *d)
{
    FILE *f = fopen(path, "r");
    if (!f) return GPI_OK; /* optional */
    gpi_status text_rc = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (text_rc != GPI_OK) {
        fclose(f);
        return text_rc;
    }
    char line[4096];
    int c_alias = -1, c_canon = -1, c_prov = -1, c_sku = -1, header = 0;
    size_t cap_g = 0, cap_a = 0, cap_t = 0;
    gpi_status rc = GPI_OK;
    while (rc == GPI_OK && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0') continue;
        char *v[16];
        int n = split(line, v, 16);
        for (int i = 0; i < n; i++) trim(v[i]);
        if (!header) {
            header = 1;
            c_alias = col_of(v, n, "alias");
            c_canon = col_of(v, n, "canonical");
            c_prov = col_of(v, n, "provider");
            c_sku = col_of(v, n, "sku_glob");
            if (c_canon < 0) break;
            continue;
        }
        const char *canon = c_canon < n ? v[c_canon] : "";
        if (!*canon) continue;
        int dup = strcmp(canon, "-") == 0;
        for (size_t k = 0; !dup && k < tb->n_gpus; k++) dup = strcasecmp(tb->gpus[k], canon) == 0;
        if (!dup) rc = push(&tb->gpus, &tb->n_gpus, &cap_g, canon, d);
        const char *prov = c_prov >= 0 && c_prov < n ? v[c_prov] : "";
        const char *sku = c_sku >= 0 && c_sku < n ? v[c_sku] : "";
        const char *alias = c_alias >= 0 && c_alias < n ? v[c_alias] : "";
        if (rc != GPI_OK || *prov || *sku || !*alias || strpbrk(alias, "*?")) continue;
        char fa[IDX_NAME_MAX + 1];
        fold_gpu(alias, fa, sizeof fa);
        int seen = 0; /* the first generic row of an alias wins, as at ingest */
        for (size_t k = 0; k < tb->n_alias && !seen; k++) seen = strcmp(tb->alias[k], fa) == 0;
        if (seen) continue;
        size_t na = tb->n_alias;
        rc = push(&tb->alias, &tb->n_alias, &cap_a, fa, d);
        if (rc == GPI_OK) {
            size_t nt = tb->n_alias - 1;
            rc = push(&tb->alias_to, &nt, &cap_t, canon, d);
        }
        if (rc != GPI_OK) tb->n_alias = na;
    }
    fclose(f);
    return rc;
}

static gpi_status load_regions(const char *path, idx_grade_tables *tb, gpi_diag *d)
{
    FILE *f = fopen(path, "r");
    if (!f) return GPI_OK; /* optional */
    gpi_status text_rc = gpi_text_check(f, path, d); /* UTF-16 and UTF-32 */
    if (text_rc != GPI_OK) {
        fclose(f);
        return text_rc;
    }
    char line[4096];
    int c_group = -1, c_region = -1, header = 0;
    long ln = 0;
    size_t cap_g = 0, cap_p = 0;
    gpi_status rc = GPI_OK;
    while (rc == GPI_OK && fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0') continue;
        char *v[8];
        int n = split(line, v, 8);
        for (int i = 0; i < n; i++) trim(v[i]);
        if (!header) {
            header = 1;
            c_group = col_of(v, n, "group");
            c_region = col_of(v, n, "region");
            if (c_group < 0 || c_region < 0)
                rc = gpi_diag_set(d, GPI_EINPUT, "regions.csv:%ld: header: missing column \"%s\"",
                                  ln, c_group < 0 ? "group" : "region");
            continue;
        }
        const char *g = c_group < n ? v[c_group] : "", *r = c_region < n ? v[c_region] : "";
        if (!*g || strlen(g) > IDX_NAME_MAX)
            rc = gpi_diag_set(d, GPI_EINPUT, "regions.csv:%ld: group: empty or longer than 64 "
                              "(got \"%.80s\")", ln, g);
        else if (!*r || strlen(r) > IDX_NAME_MAX)
            rc = gpi_diag_set(d, GPI_EINPUT, "regions.csv:%ld: region: empty or longer than 64 "
                              "(got \"%.80s\")", ln, r);
        if (rc != GPI_OK) break;
        size_t ng = tb->n_rgroup;
        rc = push(&tb->rgroup, &tb->n_rgroup, &cap_g, g, d);
        if (rc == GPI_OK) {
            size_t np = tb->n_rgroup - 1;
            rc = push(&tb->rpattern, &np, &cap_p, r, d);
        }
        if (rc != GPI_OK) tb->n_rgroup = ng;
    }
    fclose(f);
    return rc;
}

gpi_status idx_grade_tables_load(const char *data_dir, idx_grade_tables *tb, gpi_diag *d)
{
    memset(tb, 0, sizeof *tb);
    char path[4096];
    snprintf(path, sizeof path, "%s/gpus.csv", data_dir);
    gpi_status rc = load_gpus(path, tb, d);
    snprintf(path, sizeof path, "%s/regions.csv", data_dir);
    if (rc == GPI_OK) rc = load_regions(path, tb, d);
    if (rc != GPI_OK) idx_grade_tables_free(tb);
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

typedef struct facet {
    gpi_obs o;          /* names: the store's interned texts (collect) */
} facet;

typedef struct facets {
    facet *v;
    size_t n, cap;
    int oom;
} facets;

/* Keeps each facet with its names as the store's (store_obs_facets: valid
 * until the next rollback or close; nothing here writes): 58,723 facets on
 * the bench market, whose six copied names were a tenth of a daily build. */
static int collect(const gpi_obs *o, void *ud)
{
    facets *fs = ud;
    if (GPI_VEC_RESERVE(fs->v, fs->cap, fs->n + 1) != 0) {
        fs->oom = 1;
        return 1;
    }
    fs->v[fs->n++].o = *o;
    return 0;
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

/* 1 when some facet has a value of field `what` that entry matches. */
static int any_facet(const facets *fs, int what, const char *entry, const idx_grade_tables *tb)
{
    int group = 0;
    for (size_t i = 0; what == F_REGION && tb && i < tb->n_rgroup; i++) group |= strcasecmp(tb->rgroup[i], entry) == 0;
    for (size_t i = 0; i < fs->n; i++) {
        const gpi_obs *o = &fs->v[i].o;
        switch (what) {
        case F_GPU:
            if (o->gpu && strcasecmp(o->gpu, entry) == 0) return 1;
            break;
        case F_PROVIDER:
            if (like(entry, o->provider) || like(entry, o->group)) return 1;
            break;
        case F_SEGMENT:
            if (like(entry, o->segment)) return 1;
            break;
        case F_SKU:
            if (like(entry, o->sku)) return 1;
            break;
        default:
            if (!group) {
                if (like(entry, o->region)) return 1;
                break;
            }
            for (size_t k = 0; k < tb->n_rgroup; k++)
                if (strcasecmp(tb->rgroup[k], entry) == 0 && like(tb->rpattern[k], o->region))
                    return 1;
        }
    }
    return 0;
}

gpi_status idx_grades_check(const idx_grades *gs, const char *name, const idx_grade_tables *tb,
                            store *st, idx_warn_fn warn, void *ud, gpi_diag *d)
{
    facets fs = {0};
    gpi_status rc = store_obs_facets(st, collect, &fs, d);
    if (rc == GPI_OK && fs.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "grades: out of memory");
    char msg[512];
    for (size_t gi = 0; rc == GPI_OK && fs.n > 0 && gi < gs->n; gi++) {
        const idx_grade *g = &gs->g[gi];
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
                if (any_facet(&fs, lists[k].what, lists[k].v[i], tb)) continue;
                snprintf(msg, sizeof msg, "%s: grades[%zu].%s: \"%s\" matches no stored observation",
                         name, gi, lists[k].field, lists[k].v[i]);
                warn(msg, ud);
                warned = 1;
            }
        if (warned) continue;
        int any = 0;
        for (size_t i = 0; i < fs.n && !any; i++) any = idx_grade_match(g, &fs.v[i].o);
        if (!any) {
            snprintf(msg, sizeof msg,
                     "%s: grades[%zu] (%s): no stored observation matches all of its filters "
                     "(gpu, term, tier, scope, covers, places)",
                     name, gi, g->id);
            warn(msg, ud);
        }
    }
    facets_free(&fs);
    return rc;
}
