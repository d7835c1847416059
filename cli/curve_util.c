/* cli/curve_util.c -- grade selection and futures inputs of the curve
 * commands (cli/curve_cmd.h). */
#include "cli/curve_cmd.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cc_take_grade(const cli_args *a, int k, const char *v)
{
    if (k != CC_OPT_GRADE) return -1;
    cc_grade_ids *g = a->ud;
    g->ids[(*g->n)++] = v;
    return -1;
}

gpi_status cc_grades_load(cli_ctx *ctx, store *st, const char *path, const char **ids,
                          size_t n_ids, cc_grades *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->gs = &out->sub;
    gpi_status rc = cli_gradeset_load(ctx, st, path, &out->set, d);
    if (rc != GPI_OK) return rc;
    const idx_grades *all = out->set.gs;
    out->sub.g = calloc(all->n ? all->n : 1, sizeof *out->sub.g);
    if (!out->sub.g) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (n_ids == 0) {
        for (size_t i = 0; i < all->n; i++)
            if (!out->set.dropped[i]) out->sub.g[out->sub.n++] = all->g[i];
        return GPI_OK;
    }
    for (size_t k = 0; k < n_ids; k++) {
        int at = cli_gradeset_has(&out->set, ids[k]);
        if (!at)
            return gpi_diag_set(d, GPI_EUSAGE, "curve: --grade %s: not in the published grades "
                                               "file %s",
                                ids[k], out->set.path);
        int dup = 0;
        for (size_t j = 0; j < out->sub.n; j++) dup |= strcasecmp(out->sub.g[j].id, ids[k]) == 0;
        if (!dup) out->sub.g[out->sub.n++] = all->g[at - 1];
    }
    return GPI_OK;
}

void cc_grades_free(cc_grades *g)
{
    free(g->sub.g);
    cli_gradeset_free(&g->set);
    memset(g, 0, sizeof *g);
}

gpi_status cc_futures_load(const char *contracts, const char *futures, const idx_grades *gs,
                           cc_futures *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->gs = gs;
    gpi_status rc = settle_contracts_load(contracts, NULL, NULL, &out->cs, &out->nc, d);
    char *text = NULL;
    size_t len = 0;
    if (rc == GPI_OK) rc = gpi_text_read(futures, 64, &text, &len, d);
    if (rc == GPI_OK) rc = curve_futures_parse(futures, text, len, out->cs, out->nc, &out->f, d);
    free(text);
    return rc;
}

static void day_free(cc_futures *f)
{
    for (size_t i = 0; i < f->n_ex; i++) free(f->q[i]);
    free(f->q);
    free(f->ex);
    f->q = NULL;
    f->ex = NULL;
    f->n_ex = 0;
}

gpi_status cc_futures_day(cc_futures *f, int32_t day, curve_extra **ex, size_t *n, gpi_diag *d)
{
    day_free(f);
    *ex = NULL;
    *n = 0;
    if (!f->cs || !f->gs) return GPI_OK;
    size_t ng = f->gs->n ? f->gs->n : 1;
    f->ex = calloc(ng, sizeof *f->ex);
    f->q = calloc(ng, sizeof *f->q);
    if (!f->ex || !f->q) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t gi = 0; gi < f->gs->n; gi++) {
        curve_quote *q = NULL;
        size_t m = 0;
        gpi_status rc = curve_futures_day(&f->f, f->gs->g[gi].id, day, &q, &m, d);
        if (rc != GPI_OK) return rc;
        if (!m) continue;
        f->q[f->n_ex] = q;
        f->ex[f->n_ex++] = (curve_extra){gi, q, m};
    }
    /* the caller only reads them: the copies returned share f's storage */
    *ex = f->n_ex ? f->ex : NULL;
    *n = f->n_ex;
    return GPI_OK;
}

void cc_futures_free(cc_futures *f)
{
    day_free(f);
    free(f->cs);
    curve_futures_free(&f->f);
    memset(f, 0, sizeof *f);
}
