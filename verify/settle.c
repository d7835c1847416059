/* verify/settle.c -- a contract's settlement prices from the published days
 * (verify.h): each day's value as first published, read from its vintage 1
 * (DIR/D/v1/index.json), settled with settlement/ exactly as `gpuidx
 * settle` does from the database.  Only the contract's settlement days
 * (settle_is_day: every day, or business days for "fsp_days":
 * "business") are read and needed.
 */
#include "verify/internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The grade's value and level on day as first published: *found = 0 when
 * DIR has no DIR/D, -1 when the day has no row of the grade. */
static gpi_status first_published(const verify_dir *v, int32_t day, const char *grade,
                                  gpi_index_day *out, int *found, gpi_diag *d)
{
    char date[11], path[4300];
    gpi_date_format(day, date);
    snprintf(path, sizeof path, "%s/%s/v1/index.json", v->dir, date);
    struct stat sb;
    *found = 0;
    if (stat(path, &sb) != 0) return GPI_OK;
    json_t *root;
    gpi_status rc = vjson_load(v, path, &root, d);
    if (rc != GPI_OK) return rc;
    json_t *rows = json_object_get(root, "rows");
    *found = -1;
    for (size_t i = 0; i < json_array_size(rows) && rc == GPI_OK; i++) {
        json_t *r = json_array_get(rows, i);
        const char *g = vj_str(r, "grade");
        if (!g || strcasecmp(g, grade) != 0) continue;
        const char *lv = vj_str(r, "level");
        int64_t value;
        const char *why = vj_fixed(r, "value", 4, &value);
        int level = -1;
        for (int l = 0; lv && l < GPI_LEVEL__N; l++)
            if (strcmp(lv, gpi_level_name(l)) == 0) level = l;
        if (why || level < 0)
            rc = gpi_diag_set(d, GPI_EINPUT, "%s: rows[%zu]: %s", path, i,
                              why ? why : "level: not a level");
        *out = (gpi_index_day){day, value < 0 ? GPI_LEVEL_SUSPENDED : level, value};
        *found = 1;
        break;
    }
    json_decref(root);
    return rc;
}

/* The fallback grade's values as first published, from the listing to
 * end (rule grade; settlement/fallback.c), the days that have a row. */
static gpi_status fallback_series(const verify_dir *v, const settle_contract *c, int32_t end,
                                  gpi_index_day **out, size_t *n, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    if (c->fallback.rule != SETTLE_FB_GRADE) return GPI_OK;
    int32_t first = settle_listing_day(c);
    gpi_index_day *s = malloc(((size_t)(end - first) + 1) * sizeof *s);
    if (!s) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    gpi_status rc = GPI_OK;
    for (int32_t day = first; day <= end && rc == GPI_OK; day++) {
        int found;
        rc = first_published(v, day, c->fallback.grade, &s[*n], &found, d);
        if (rc == GPI_OK && found == 1) ++*n;
    }
    if (rc != GPI_OK) {
        free(s);
        *n = 0;
        return rc;
    }
    *out = s;
    return GPI_OK;
}

gpi_status verify_settlement(verify_dir *v, const settle_contract *c, int32_t through,
                             settle_result *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    int32_t first = settle_listing_day(c), last = settle_last_day(c);
    int32_t end = through < last ? through : last;
    if (end < first) return GPI_OK; /* not listed yet: no price to recompute */
    size_t n = (size_t)(end - first + 1);
    gpi_index_day *days = malloc((n + 64) * sizeof *days);
    if (!days) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    gpi_status rc = GPI_OK;
    size_t k = 0, n_fb = 0;
    gpi_index_day *fb = NULL;
    /* the latest value before the listing, when the listing day has none */
    gpi_index_day before = {0, GPI_LEVEL_SUSPENDED, -1};
    int have_before = 0;
    for (int32_t day = first; day <= end && rc == GPI_OK; day++) {
        int found;
        if (!settle_is_day(c, day)) continue;
        rc = first_published(v, day, c->grade, &days[k], &found, d);
        if (rc != GPI_OK) break;
        if (found == -1 && c->fallback.rule) /* a dropped grade (fallback.c note 1) */
            days[k] = (gpi_index_day){day, GPI_LEVEL_SUSPENDED, -1};
        else if (found != 1) {
            char date[11];
            gpi_date_format(day, date);
            rc = gpi_diag_set(d, GPI_EINPUT, "%s: %s/%s/v1/index.json %s (every %sday from the "
                              "listing must be published)", c->symbol, v->dir, date,
                              found ? "has no row of the grade" : "is not there",
                              c->fsp_days == SETTLE_DAYS_BUSINESS ? "business " : "");
            break;
        }
        k++;
    }
    if (rc == GPI_OK && (k == 0 || days[0].level == GPI_LEVEL_SUSPENDED)) {
        for (int32_t day = first - 1; rc == GPI_OK; day--) {
            int found;
            if (!settle_is_day(c, day)) continue;
            rc = first_published(v, day, c->grade, &before, &found, d);
            if (rc != GPI_OK || found == -1) break; /* the grade starts after it */
            if (found == 0) {
                char date[11];
                gpi_date_format(day, date);
                rc = gpi_diag_set(d, GPI_EINPUT, "%s: the listing day has no value and %s/%s is "
                                  "not published (the latest value before it is needed)",
                                  c->symbol, v->dir, date);
                break;
            }
            if (before.level != GPI_LEVEL_SUSPENDED) {
                have_before = 1;
                break;
            }
        }
    }
    if (rc == GPI_OK) {
        if (have_before) {
            memmove(days + 1, days, k * sizeof *days);
            days[0] = before;
            k++;
        }
        rc = fallback_series(v, c, end, &fb, &n_fb, d);
        settle_fb_note note;
        if (rc == GPI_OK) rc = settle_run_fallback(c, days, k, fb, n_fb, end, out, &note, d);
    }
    free(fb);
    free(days);
    return rc;
}
