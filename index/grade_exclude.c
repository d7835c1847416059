/* index/grade_exclude.c -- the grade field "exclude": observations left
 * out by what they are (METHODOLOGY.md §1.2).
 *
 *     "exclude": [{"providers": ["aws"], "regions": ["us-east-1"],
 *                  "skus": ["g4dn.xlarge"], "ids": ["*@use1-az1[/]*"]}]
 *
 * NOTES ON THE DESIGN
 * (1) Why.  `exclude_providers` leaves a whole provider out; a hedger
 *     comparing an index with its own rent needs to leave out its own
 *     quotes only -- one provider's instance type in one region or zone
 *     (hedge compare --suggest, issue 27) -- and keep that provider's
 *     other zones, which are a genuine hedge.  An entry is a conjunction
 *     of lists: an observation is left out when it matches every list
 *     the entry has (at least one); the grade leaves out what any entry
 *     matches.
 * (2) The lists: providers match the provider or its group (as the
 *     grade's own `providers`); regions, skus and ids are globs, without
 *     regard to case (grade_match.c note 1); ids match the observation's
 *     identity text -- the source's id, which for the real SkyPilot
 *     catalogue is "<instance type>@<zone or region>/<count>x/<term>", so
 *     "*@use1-az1[/]*" (the same as with a plain slash) is one
 *     availability zone, which no other field
 *     holds.  Regions are globs here, never region groups.
 * (3) Profiles and rows.  Whether a grade takes an observation used to
 *     depend on its profile only (day.c note 6), and the day's core scan
 *     does not read identity texts.  An entry without ids still depends
 *     on the profile alone (idx_grade_excluded(..., 0), tried with the
 *     other filters); an entry with ids is tried row by row
 *     (idx_grade_excluded(..., 1)) and makes the day read identities
 *     (idx_grade.excl_ids).  Grades without such entries cost nothing.
 * (4) Canonical form (grades.c): written only when given, so definitions
 *     without it hash as before; each entry's lists sorted and
 *     de-duplicated, the entries sorted by their compact text and
 *     de-duplicated.
 */
#include "index/index.h"
#include "index/match.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int entry_matches(const idx_exclusion *e, const gpi_obs *o)
{
    if (e->n_provider && !idx_name_in_list(e->provider, e->n_provider, o->provider) &&
        !idx_name_in_list(e->provider, e->n_provider, o->group))
        return 0;
    if (e->n_region && !idx_name_in_list(e->region, e->n_region, o->region)) return 0;
    if (e->n_sku && !idx_name_in_list(e->sku, e->n_sku, o->sku)) return 0;
    if (e->n_id && !idx_name_in_list(e->id, e->n_id, o->ident)) return 0;
    return 1;
}

int idx_grade_excluded(const idx_grade *g, const gpi_obs *o, int rows)
{
    for (int k = 0; k < g->n_excl; k++) {
        const idx_exclusion *e = &g->excl[k];
        if (rows >= 0 && (e->n_id > 0) != rows) continue;
        if (entry_matches(e, o)) return 1;
    }
    return 0;
}

static json_t *list_json(const char (*v)[IDX_NAME_MAX + 1], int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *entry_json(const idx_exclusion *e)
{
    json_t *o = json_object();
    if (e->n_id) json_object_set_new(o, "ids", list_json(e->id, e->n_id));
    if (e->n_provider) json_object_set_new(o, "providers", list_json(e->provider, e->n_provider));
    if (e->n_region) json_object_set_new(o, "regions", list_json(e->region, e->n_region));
    if (e->n_sku) json_object_set_new(o, "skus", list_json(e->sku, e->n_sku));
    return o;
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *idx_exclude_canon(const idx_grade *g)
{
    char *txt[IDX_MAX_EXCL];
    int n = 0;
    for (int k = 0; k < g->n_excl; k++) {
        json_t *o = entry_json(&g->excl[k]);
        txt[n] = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
        json_decref(o);
        if (!txt[n]) {
            for (int i = 0; i < n; i++) free(txt[i]);
            return NULL;
        }
        n++;
    }
    qsort(txt, (size_t)n, sizeof txt[0], cmp_text);
    json_t *a = json_array();
    for (int k = 0; k < n; k++) {
        if (!(k && strcmp(txt[k - 1], txt[k]) == 0)) json_array_append_new(a, json_loads(txt[k], 0, NULL));
    }
    for (int k = 0; k < n; k++) free(txt[k]);
    return a;
}
