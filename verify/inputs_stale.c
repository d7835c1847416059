/* verify/inputs_stale.c -- `verify --inputs`: a row's stale share and
 * confidence flag recomputed from the raw files (METHODOLOGY.md §7.2,
 * §12.1, §12.2; the caller is verify/inputs.c).
 *
 * NOTES ON THE DESIGN
 * (1) Plain verify takes a row's stale share as published: it needs the
 *     earlier days' prices of every identity, which the day's files do not
 *     hold.  The scratch store of --inputs holds them (inputs.c ingests
 *     the files the days of the look back commit to as well), so the
 *     share is computed there as publication computes it
 *     (publish/pub_obs_lines_stale: the same code over the same lines) and
 *     compared, with the stale groups, to the published ones.
 * (2) The flag's rule reads the stale share (index/bootstrap.c), so the
 *     row's interval and flag are recomputed from its published lines
 *     (which --inputs checks against the raw files: the interval depends
 *     on the inputs through them alone) with the recomputed share, and
 *     compared: a stale share lowered after the fact to make a fix look
 *     "normal" fails by name.
 */
#include "verify/inputs_stale.h"
#include "index/bootstrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void share_text(int64_t v, char out[16])
{
    if (v < 0) snprintf(out, 16, "null");
    else snprintf(out, 16, "%lld.%06lld", (long long)(v / 1000000), (long long)(v % 1000000));
}

gpi_status vinputs_stale_compare(const vday *dy, const vrow *row, const idx_grade *g,
                                 int64_t share, long n_stale, long n_groups, char *out,
                                 size_t cap, gpi_diag *d)
{
    out[0] = '\0';
    int64_t pub = -1, pub_groups = -1;
    const char *why = vj_fixed(row->j, "stale_share", 6, &pub);
    json_t *sg = json_object_get(row->j, "stale_groups");
    if (!why && sg && !json_is_null(sg)) why = vj_fixed(row->j, "stale_groups", 0, &pub_groups);
    if (why) {
        snprintf(out, cap, "inputs: index.json stale_share: %s", why);
        return GPI_OK;
    }
    char a[16], b[16];
    size_t n = 0;
    if (pub != share || (share >= 0 && pub_groups != n_stale)) {
        share_text(pub, a);
        share_text(share, b);
        n += (size_t)snprintf(out, cap, "inputs: stale_share published %s (%lld stale groups), "
                              "the committed files give %s (%ld of %ld groups stale)",
                              a, (long long)pub_groups, b, n_stale, n_groups);
    }
    /* note 2: the flag (and interval) with the recomputed share */
    idx_boot_line *l = malloc((row->n_obs + 1) * sizeof *l);
    if (!l) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < row->n_obs; i++) {
        const vobs *o = &dy->obs[row->obs[i]];
        l[i] = (idx_boot_line){o->kind, o->group, o->price, o->qty, o->used, o->matched,
                               o->ref_e8, o->base_e8, o->imputed == 1};
    }
    idx_boot_result br;
    gpi_diag e = {{0}};
    gpi_status rc = idx_boot_row(row->j, g, l, row->n_obs, dy->day, share, &br, &e);
    free(l);
    if (rc == GPI_ENOMEM) return gpi_diag_set(d, rc, "%s", e.msg);
    if (rc != GPI_OK) return GPI_OK; /* plain verify names what it cannot read */
    const char *conf = vj_str(row->j, "confidence"), *rule = vj_str(row->j, "confidence_rule");
    int64_t lo = -1, hi = -1;
    vj_fixed(row->j, "ci_low", 4, &lo);
    vj_fixed(row->j, "ci_high", 4, &hi);
    if (!conf || strcmp(conf, idx_conf_name(br.flag)) != 0 || !rule || strcmp(rule, br.why) != 0)
        snprintf(out + n, n < cap ? cap - n : 0,
                 "%sinputs: confidence published \"%s\" (%s), the committed files give \"%s\" "
                 "(%s)", n ? "; " : "", conf ? conf : "", rule ? rule : "",
                 idx_conf_name(br.flag), br.why);
    else if (lo != br.iv.lo_e4 || hi != br.iv.hi_e4)
        snprintf(out + n, n < cap ? cap - n : 0,
                 "%sinputs: the interval differs from the one of the published lines", n ? "; " : "");
    return GPI_OK;
}
