/* index/grade_match.c -- whether an observation belongs to a grade
 * (SPEC §4): every filter but the status, in three parts, cheapest first
 * (day.c tries them in that order and memoizes the GPU part per name).
 *
 * NOTES ON THE DESIGN
 * (1) Regions, providers, segments, skus and exclusions are lists of
 *     globs, matched case-insensitively (fnmatch FNM_CASEFOLD) when they
 *     hold a glob character, else compared case-insensitively; a provider
 *     filter matches the provider or its group.
 * (2) GPUs were canonicalized when the grade was read (grades.c), so the
 *     GPU part is an exact case-insensitive comparison.
 */
#define _GNU_SOURCE 1 /* FNM_CASEFOLD */
#include "index/index.h"
#include "index/match.h"

#include <fnmatch.h>
#include <string.h>
#include <strings.h>

int idx_name_in_list(const char (*v)[IDX_NAME_MAX + 1], int n, const char *s)
{
    if (!s) s = "";
    for (int i = 0; i < n; i++) {
        if (strpbrk(v[i], "*?[")) {
            if (fnmatch(v[i], s, FNM_CASEFOLD) == 0) return 1;
        } else if (strcasecmp(v[i], s) == 0) {
            return 1;
        }
    }
    return 0;
}

int idx_grade_match_gpu(const idx_grade *g, const char *gpu)
{
    for (int i = 0; i < g->n_gpu; i++)
        if (gpu && strcasecmp(g->gpu[i], gpu) == 0) return 1;
    return 0;
}

int idx_grade_match_terms(const idx_grade *g, const gpi_obs *o)
{
    if (o->term != g->term) return 0;
    if (!(g->covers_mask & (1u << (o->covers & 3)))) return 0;
    if (g->term == GPI_TERM_RESERVED && (o->term_months < g->term_min || o->term_months > g->term_max))
        return 0;
    if (o->tier < g->min_tier) return 0;
    return o->scope >= 0 && o->scope < GPI_SCOPE__N && (g->scope_mask & (1u << o->scope));
}

int idx_grade_match_places(const idx_grade *g, const gpi_obs *o)
{
    if (g->n_region && !idx_name_in_list(g->region, g->n_region, o->region)) return 0;
    if (g->n_provider && !idx_name_in_list(g->provider, g->n_provider, o->provider) &&
        !idx_name_in_list(g->provider, g->n_provider, o->group))
        return 0;
    if (g->n_segment && !idx_name_in_list(g->segment, g->n_segment, o->segment)) return 0;
    if (g->n_exclude && (idx_name_in_list(g->exclude, g->n_exclude, o->provider) ||
                         idx_name_in_list(g->exclude, g->n_exclude, o->group)))
        return 0;
    if (g->n_sku && !idx_name_in_list(g->sku, g->n_sku, o->sku)) return 0;
    if (g->n_excl && idx_grade_excluded(g, o, 0)) return 0; /* grade_exclude.c note 3 */
    return 1;
}

int idx_grade_match(const idx_grade *g, const gpi_obs *o)
{
    return idx_grade_match_terms(g, o) && idx_grade_match_gpu(g, o->gpu) &&
           idx_grade_match_places(g, o) && !(g->excl_ids && idx_grade_excluded(g, o, 1));
}
