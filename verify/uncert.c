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
 * reads it.
 */
#include "verify/internal.h"
#include "index/bootstrap.h"

#include <stdlib.h>
#include <string.h>

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
    } else if (bs && !json_is_null(bs)) {
        vchk_diff(c, 0, "index.json bootstrap: given, but the fix has no interval");
    }
    return GPI_OK;
}
