/* index/match.h -- which observations a grade takes, in parts
 * (index/grade_match.c, index/grade_exclude.c), for the day's reading
 * (index/day.c) and the grade files' checks.  Pure: no store.
 */
#ifndef GPI_INDEX_MATCH_H
#define GPI_INDEX_MATCH_H

#include "core/obs.h"
#include "index/method.h"

/* idx_grade_match in three parts, cheapest first: term, tenor, tier and
 * scope; the GPU list; regions, providers and segments. */
int idx_grade_match_terms(const idx_grade *g, const gpi_obs *o);
int idx_grade_match_gpu(const idx_grade *g, const char *gpu);
int idx_grade_match_places(const idx_grade *g, const gpi_obs *o);
/* grade_match.c note 1: whether s (NULL as "") is in the list v[0..n):
 * globs matched without regard to case, other names compared so. */
int idx_name_in_list(const char (*v)[IDX_NAME_MAX + 1], int n, const char *s);
/* grade_exclude.c: a grade's "exclude" in canonical form (a JSON array;
 * NULL when out of memory). */
struct json_t;
struct json_t *idx_exclude_canon(const idx_grade *g);
/* grade_exclude.c: 1 when an "exclude" entry of g leaves o out; rows:
 * 0 tries only the entries without ids (what a profile decides), 1 only
 * those with ids (row by row), -1 every entry. */
int idx_grade_excluded(const idx_grade *g, const gpi_obs *o, int rows);

#endif
