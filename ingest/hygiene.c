/* ingest/hygiene.c -- the checks that keep bad names and misread units out
 * of the store: unknown providers, and the per-SKU corrections of
 * data/skus.csv (GPU count, what the price covers, the unit).
 *
 * NOTES ON THE DESIGN
 * (1) Unknown providers.  A provider that providers.csv does not list
 *     would become its own group and count towards every grade's
 *     three-provider minimum -- a typo ("lamda") silently makes a new,
 *     independent provider.  So it is a reject, with the nearest known
 *     name as a hint, unless ingest admits new providers (--admit-providers);
 *     then the row is stored as its own group, segment "unknown", and the
 *     first row of each new name in the file gets a warning.
 * (2) skus.csv.  A feed's sku (instance type) can carry a wrong GPU count
 *     (Azure lists ND H100 v5 with 12 GPUs; it has 8), a price for the
 *     GPUs alone (GCP's accelerator prices, the host VM priced apart), a
 *     price that is mostly the host (AWS g4dn.16xlarge: one T4, 64 vCPUs),
 *     or a slice of one GPU.  The matching rule is applied here, before the
 *     price is divided by the GPU count: the count is replaced, `covers`
 *     is set (grades filter on it), and what was done is recorded with the
 *     observation ("skus.csv:14: gpu_count 12 -> 8").  The identity of an
 *     offer keeps the count as written, so a later change of the table
 *     makes a re-read offer a conflict, never a second offer.
 * (3) A price without a unit is per GPU-hour only when that cannot matter:
 *     with gpu_count above 1 the row must say (gpu-hour or instance-hour),
 *     or skus.csv must give the sku's unit.  Taking an 8-GPU instance's
 *     price as per GPU overstates it eight times.
 * (4) Rule lookups are memoized per file by (provider, sku): a feed has
 *     thousands of rows per sku and a few thousand skus; so are the
 *     suggestions for unknown provider names.
 */
#include "ingest/internal.h"
#include "core/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reject(const norm_ctx *c, const norm_row *r, int f, const char *why, const char *got,
                   const char **col, char *msg, size_t cap)
{
    *col = r->name[f] ? r->name[f] : field_names[f];
    if (got)
        snprintf(msg, cap, "%s:%ld: %s: %s (got \"%.80s%s\")", c->path, r->line, *col, why, got,
                 strlen(got) > 80 ? "..." : "");
    else
        snprintf(msg, cap, "%s:%ld: %s: %s", c->path, r->line, *col, why);
}

/* The nearest known provider of an unknown (folded) name, memoized per
 * file: a feed repeats an unknown name on every row, and the search
 * compares it with every alias. */
static const char *suggestion(norm_ctx *c, const char *folded, const char *raw)
{
    size_t n = strlen(folded);
    int i = strmap_get(&c->suggested, folded, n);
    if (i >= 0) return i > 0 ? c->sugg[i - 1] : NULL;
    const char *near = tables_provider_suggest(c->t, raw);
    int v = 0;
    if (near) {
        if (GPI_VEC_RESERVE(c->sugg, c->cap_sugg, c->n_sugg + 1) != 0) return near;
        c->sugg[c->n_sugg++] = near;
        v = (int)c->n_sugg;
    }
    char *key = arena_strndup(&c->scratch, folded, n);
    if (key) strmap_put(&c->suggested, key, n, v); /* out of memory: no memo */
    return near;
}

int hygiene_provider(norm_ctx *c, const norm_row *r, const provider_match *pm, const char **col,
                     char *msg, size_t cap)
{
    if (pm->known) return 1;
    const char *raw = r->v[F_PROVIDER];
    if (!c->admit_providers) {
        const char *near = suggestion(c, pm->provider, raw);
        char why[256];
        if (near)
            snprintf(why, sizeof why,
                     "unknown provider (did you mean \"%s\"? add it to providers.csv, or ingest "
                     "with --admit-providers)",
                     near);
        else
            snprintf(why, sizeof why,
                     "unknown provider (add it to providers.csv, or ingest with "
                     "--admit-providers)");
        reject(c, r, F_PROVIDER, why, raw, col, msg, cap);
        return 0;
    }
    size_t n = strlen(pm->provider);
    if (strmap_get(&c->new_providers, pm->provider, n) >= 0) return 1;
    char *key = arena_strndup(&c->scratch, pm->provider, n);
    if (!key || strmap_put(&c->new_providers, key, n, 1) != 0) {
        *col = NULL;
        snprintf(msg, cap, "%s:%ld: out of memory", c->path, r->line);
        return 0;
    }
    if (c->sink && c->sink->warn) {
        char w[512];
        const char *near = suggestion(c, pm->provider, raw);
        snprintf(w, sizeof w,
                 "%s:%ld: provider: \"%.80s\" is not in providers.csv: admitted as its own "
                 "group \"%.80s\", segment unknown%s%s%s",
                 c->path, r->line, raw, pm->provider, near ? " (did you mean \"" : "",
                 near ? near : "", near ? "\"?)" : "");
        c->sink->warn(c->sink->ud, w);
    }
    return 1;
}

const sku_rule *hygiene_rule(norm_ctx *c, const char *provider, const char *sku)
{
    /* the memo's key: provider, 0x1f, sku (a snprintf here was a tenth of
     * a row's normalization) */
    char key[600];
    size_t np = provider ? strlen(provider) : 0, ns = sku ? strlen(sku) : 0, n = np + 1 + ns;
    if (n >= sizeof key) return tables_sku_rule(c->t, tables_sku(c->t, provider, sku));
    memcpy(key, provider ? provider : "", np);
    key[np] = '\x1f';
    memcpy(key + np + 1, sku ? sku : "", ns);
    key[n] = '\0';
    int i = strmap_get(&c->sku_memo, key, n);
    if (i < 0) {
        i = tables_sku(c->t, provider, sku) + 1; /* 0: no rule */
        char *k = arena_strndup(&c->scratch, key, n);
        if (k) strmap_put(&c->sku_memo, k, n, i); /* out of memory: no memo */
    }
    return tables_sku_rule(c->t, i - 1);
}

int hygiene_sku(norm_ctx *c, const norm_row *r, const sku_rule *rule, int unit_given,
                gpi_obs *o, long *count, const char **col, char *msg, size_t cap)
{
    o->covers = GPI_COVERS_INSTANCE;
    o->correction = NULL;
    if (!unit_given && !(rule && rule->unit >= 0) && *count > 1) { /* note 3 */
        char why[256];
        snprintf(why, sizeof why,
                 "missing with gpu_count %ld (is the price for one GPU or for the instance? "
                 "write gpu-hour or instance-hour, or give the sku's unit in skus.csv)",
                 *count);
        reject(c, r, F_UNIT, why, NULL, col, msg, cap);
        return 0;
    }
    if (!rule) return 1;
    char part[3][64];
    int np = 0;
    if (rule->gpu_count > 0 && rule->gpu_count != *count) {
        snprintf(part[np++], sizeof part[0], "gpu_count %ld -> %d", *count, rule->gpu_count);
        *count = rule->gpu_count;
    }
    if (rule->covers >= 0) {
        o->covers = rule->covers;
        if (rule->covers != GPI_COVERS_INSTANCE)
            snprintf(part[np++], sizeof part[0], "covers %s", gpi_covers_name(rule->covers));
    }
    if (!unit_given && rule->unit >= 0)
        snprintf(part[np++], sizeof part[0], "unit %s", gpi_unit_name(rule->unit));
    if (np == 0) return 1;
    size_t n = (size_t)snprintf(c->correction, sizeof c->correction, "skus.csv:%ld:", rule->line);
    for (int i = 0; i < np && n < sizeof c->correction; i++)
        n += (size_t)snprintf(c->correction + n, sizeof c->correction - n, "%s %s",
                              i ? ";" : "", part[i]);
    o->correction = c->correction;
    return 1;
}

void hygiene_free(norm_ctx *c)
{
    strmap_free(&c->sku_memo);
    strmap_free(&c->new_providers);
    strmap_free(&c->suggested);
    free(c->sugg);
    arena_free(&c->scratch);
}
