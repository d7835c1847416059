/* verify/uncert.c -- a row's bootstrap interval and confidence flag
 * recomputed (METHODOLOGY.md §12.2; file format 4).
 *
 * The row's lines of observations.csv become the bootstrap's lines
 * (index/bootstrap.h) and index/bootstrap.c computes the interval and the
 * flag as the publisher did, from the same text: the seed is the stated
 * one (grade and day), the resamples the same draws, the arithmetic
 * integers.  ci_low, ci_high, confidence, confidence_rule and the
 * bootstrap's seed and groups must equal the published ones.  The stale
 * share is taken as published (it needs the earlier days' observations
 * of every identity, which the day's files do not hold); the flag's rule
 * reads it.  What of it the day's files do show is checked (issue 31:
 * every published field): the bootstrap's resamples and imputed groups,
 * stale_days the method's, and stale_groups the count the share is of,
 * out of the provider groups of the level's used lines.
 */
#include "verify/internal.h"
#include "index/bootstrap.h"
#include "index/stale.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* stale_days, and stale_groups against the share and the level's groups. */
static void check_stale(const vday *dy, const vrow *r, int64_t share, vchk *c)
{
    int64_t days = -1, n_stale = -1;
    vj_fixed(r->j, "stale_days", 0, &days);
    vchk_int(c, "stale_days", (long)days, IDX_STALE_DAYS);
    json_t *sg = json_object_get(r->j, "stale_groups");
    if (share < 0) {
        if (!json_is_null(sg)) vchk_diff(c, 0, "index.json stale_groups: given, but no stale_share");
        return;
    }
    if (vj_fixed(r->j, "stale_groups", 0, &n_stale) || n_stale < 0) {
        vchk_diff(c, 0, "index.json stale_groups: not a count");
        return;
    }
    /* the groups of the level's used lines (publish/commit.c) */
    const char *lv = vj_str(r->j, "xs_level");
    if (!lv || !*lv) lv = vj_str(r->j, "level");
    int level = lv ? gpi_level_parse(lv) : -1;
    int kind = level == GPI_LEVEL_TRADES ? GPI_TRADE : GPI_OFFER;
    const char **gs = malloc((r->n_obs + 1) * sizeof *gs);
    if (!gs) return; /* out of memory: the check not made */
    size_t m = 0;
    for (size_t i = 0; i < r->n_obs; i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        if (o->used && o->kind == kind && o->group) gs[m++] = o->group;
    }
    qsort(gs, m, sizeof *gs, cmp_str);
    long ng = 0;
    for (size_t i = 0; i < m; i++) ng += i == 0 || strcmp(gs[i], gs[i - 1]) != 0;
    free(gs);
    if (n_stale > ng || !ng ||
        gpi_div_round((__int128)n_stale * 1000000, (__int128)ng) != share)
        vchk_diff(c, 0, "stale_groups: published %lld, but stale_share %lld.%06lld is of %ld "
                        "provider groups",
                  (long long)n_stale, (long long)(share / 1000000), (long long)(share % 1000000),
                  ng);
}

gpi_status vuncert_check(const vday *dy, const vrow *r, const idx_grade *g, vchk *c,
                         gpi_diag *d)
{
    idx_boot_line *l = malloc((r->n_obs + 1) * sizeof *l);
    if (!l) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->n_obs; i++) {
        const vobs *o = &dy->obs[r->obs[i]];
        l[i] = (idx_boot_line){o->kind, o->group, o->price, o->qty, o->used, o->matched,
                               o->ref_e8, o->base_e8, o->imputed == 1};
    }
    int64_t stale = -1;
    const char *why = vj_fixed(r->j, "stale_share", 6, &stale);
    if (why) {
        vchk_diff(c, 0, "index.json stale_share: %s", why);
        free(l);
        return GPI_OK;
    }
    idx_boot_result b;
    gpi_diag e = {{0}};
    gpi_status rc = idx_boot_row(r->j, g, l, r->n_obs, dy->day, stale, &b, &e);
    free(l);
    if (rc == GPI_ENOMEM) return gpi_diag_set(d, rc, "%s", e.msg);
    if (rc != GPI_OK) {
        vchk_diff(c, 0, "interval: %s", e.msg);
        return GPI_OK;
    }
    int64_t lo, hi;
    why = vj_fixed(r->j, "ci_low", 4, &lo);
    if (!why) why = vj_fixed(r->j, "ci_high", 4, &hi);
    if (why) {
        vchk_diff(c, 0, "index.json ci_low / ci_high: %s", why);
        return GPI_OK;
    }
    vchk_num(c, "ci_low", lo, b.iv.lo_e4, 4);
    vchk_num(c, "ci_high", hi, b.iv.hi_e4, 4);
    const char *conf = vj_str(r->j, "confidence"), *rule = vj_str(r->j, "confidence_rule");
    vchk_text(c, "confidence", conf ? conf : "", idx_conf_name(b.flag));
    vchk_text(c, "confidence_rule", rule ? rule : "", b.why);
    json_t *bs = json_object_get(r->j, "bootstrap");
    if (b.iv.lo_e4 >= 0) {
        char seed[17];
        snprintf(seed, sizeof seed, "%016llx", (unsigned long long)idx_boot_seed(r->grade, dy->day));
        const char *ps = vj_str(bs, "seed");
        vchk_text(c, "bootstrap.seed", ps ? ps : "", seed);
        int64_t groups = -1;
        vj_fixed(bs, "groups", 0, &groups);
        vchk_int(c, "bootstrap.groups", (long)groups, b.iv.groups);
        int64_t k = -1;
        vj_fixed(bs, "resamples", 0, &k);
        vchk_int(c, "bootstrap.resamples", (long)k, IDX_BOOT_RESAMPLES);
        k = -1;
        vj_fixed(bs, "imputed", 0, &k);
        vchk_int(c, "bootstrap.imputed", (long)k, b.iv.imputed);
    } else if (bs && !json_is_null(bs)) {
        vchk_diff(c, 0, "index.json bootstrap: given, but the fix has no interval");
    }
    check_stale(dy, r, stale, c);
    return GPI_OK;
}
