/* publish/curve.c -- the term curve's files of a vintage (file format 4;
 * issue 29, METHODOLOGY.md "Term curve"): curve.csv and curve.json beside
 * index.csv, index.json and observations.csv.
 *
 * NOTES ON THE DESIGN
 * (1) A vintage's curves are computed from what its index rows say: each
 *     grade's published value (the front; a row carried from an older
 *     vintage keeps its value) and the row's cut-off (the inputs are the
 *     day's observations at that cut-off), with the curve's own method
 *     (curve/).  Futures settlement prices given to the publication
 *     (`index publish --contracts --futures`) are recorded with the
 *     vintage as CSV text (symbol,grade,first_day,last_day,price, the
 *     day's prices of its grades), so a vintage's curve files, like its
 *     observations.csv, regenerate byte for byte from the store.
 * (2) index.json of format 4 names their SHA-256 at the top
 *     ("curve_sha256": {"curve.csv": ..., "curve.json": ...}): the
 *     receipt that ties them to the fixes, checked by `gpuidx verify`;
 *     after "inputs", and so under a signed vintage's signature, which
 *     covers index.json.
 *     The store records them too (vintage_curves) for the regeneration's
 *     check.
 */
#include "publish/internal.h"
#include "curve/futures.h"
#include "curve/read.h"
#include "store/curves.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

const char *const pub_curve_names[2] = {"curve.csv", "curve.json"};

/* The futures inputs of text (note 1) for the grades of gs, per grade. */
static gpi_status futures_of(const char *text, int32_t day, const idx_grades *gs,
                             curve_extra **ex, curve_quote **all, size_t *n_ex, gpi_diag *d)
{
    *ex = NULL;
    *all = NULL;
    *n_ex = 0;
    if (!text || !*text) return GPI_OK;
    size_t lines = 0;
    for (const char *c = text; *c; c++) lines += *c == '\n';
    *all = calloc(lines ? lines : 1, sizeof **all);
    *ex = calloc(gs->n ? gs->n : 1, sizeof **ex);
    if (!*all || !*ex) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    /* symbol,grade,first_day,last_day,price per line; the symbols stay in text */
    size_t nq = 0;
    char *t = (char *)text;
    for (size_t gi = 0; gi < gs->n; gi++) {
        size_t first = nq;
        for (char *line = t; *line;) {
            char *end = strchr(line, '\n');
            if (!end) break;
            char sym[40], grade[80], a[16], b[16], px[40];
            if (sscanf(line, "%39[^,],%79[^,],%15[^,],%15[^,],%39[^\n]", sym, grade, a, b, px) == 5 &&
                strcasecmp(grade, gs->g[gi].id) == 0) {
                curve_quote *q = &(*all)[nq++];
                gpi_dec p;
                int32_t f0, f1;
                if (gpi_date_parse(a, &f0) || gpi_date_parse(b, &f1) || gpi_dec_parse(px, &p))
                    return gpi_diag_set(d, GPI_ESTORE, "publish: a vintage's futures inputs "
                                                       "cannot be read");
                q->kind = CURVE_FUTURES;
                q->provider = q->group = q->source = "";
                q->symbol = line; /* up to the first comma: cut below */
                q->observed_at = ((int64_t)day + 1) * 86400 - 1;
                q->first_day = f0;
                q->last_day = f1;
                q->price_micro = gpi_dec_to_units(p, 6);
                q->quantity_micro = -1;
                q->ref_q = -1;
            }
            line = end + 1;
        }
        if (nq > first) (*ex)[(*n_ex)++] = (curve_extra){gi, *all + first, nq - first};
    }
    return GPI_OK;
}

char *pub_curve_futures_text(const curve_futures *f, int32_t day, const pub_rows *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    for (size_t i = 0; f && i < f->n; i++) {
        const curve_future *x = &f->v[i];
        if (x->day != day) continue;
        int ours = 0;
        for (size_t r = 0; r < p->n; r++) ours |= strcasecmp(p->v[r].grade, x->grade) == 0;
        if (!ours) continue;
        char a[11], b[11], px[32];
        gpi_date_format(x->first_day, a);
        gpi_date_format(x->last_day, b);
        fprintf(m, "%s,%s,%s,%s,%s\n", x->symbol, x->grade, a, b,
                gpi_fixed_format(x->price_micro, 6, px));
    }
    fclose(m);
    return buf;
}

gpi_status pub_curve_make(store *st, int32_t day, int vintage, const pub_rows *p,
                          const char *futures, pub_files *fs, gpi_diag *d)
{
    size_t n = p->n ? p->n : 1;
    idx_grades **defs = calloc(n, sizeof *defs);
    idx_grade *g = calloc(n, sizeof *g);
    int64_t *front = calloc(n, sizeof *front), *as_of = calloc(n, sizeof *as_of);
    char *fut = futures ? strdup(futures) : strdup("");
    gpi_status rc = defs && g && front && as_of && fut ? GPI_OK
                                                       : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->n && rc == GPI_OK; i++) {
        rc = pub_grade_load(st, p->v[i].hash, &defs[i], d);
        if (rc != GPI_OK) break;
        g[i] = defs[i]->g[0];
        /* the published id (a stored definition's is the same up to case) */
        snprintf(g[i].id, sizeof g[i].id, "%s", p->v[i].grade);
        front[i] = p->v[i].level == GPI_LEVEL_SUSPENDED ? -1 : p->v[i].value_e4;
        as_of[i] = p->v[i].as_of;
    }
    idx_grades gs = {.n = p->n, .g = g};
    curve_extra *ex = NULL;
    curve_quote *all = NULL;
    size_t n_ex = 0;
    if (rc == GPI_OK) rc = futures_of(fut, day, &gs, &ex, &all, &n_ex, d);
    /* the symbols: cut each at its comma (they point into fut) */
    for (size_t i = 0; rc == GPI_OK && all && i < n_ex; i++)
        for (size_t k = 0; k < ex[i].n; k++) {
            char *c = strchr((char *)ex[i].q[k].symbol, ',');
            if (c) *c = '\0';
        }
    curve_set cs;
    memset(&cs, 0, sizeof cs);
    if (rc == GPI_OK) rc = curve_set_compute(st, &gs, day, front, as_of, ex, n_ex, &cs, d);
    for (int k = 0; k < 2 && rc == GPI_OK; k++) {
        FILE *f = open_memstream(&fs->cbuf[k], &fs->clen[k]);
        if (!f) {
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
            break;
        }
        if (k == 0)
            curve_set_csv(f, &cs);
        else
            curve_set_json(f, &cs, vintage);
        fclose(f);
        gpi_sha256_hex(fs->cbuf[k], fs->clen[k], fs->csha[k]);
    }
    if (rc == GPI_OK && !(fs->futures = strdup(futures ? futures : "")))
        rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (cs.g) curve_set_free(&cs);
    for (size_t i = 0; i < p->n && defs; i++) idx_grades_free(defs[i]);
    free(defs);
    free(g);
    free(front);
    free(as_of);
    free(ex);
    free(all);
    free(fut);
    return rc;
}

void pub_curve_json_top(FILE *f, const pub_files *fs)
{
    if (!fs->cbuf[0]) return;
    fprintf(f, "\"curve_sha256\":{\"curve.csv\":\"%s\",\"curve.json\":\"%s\"},", fs->csha[0],
            fs->csha[1]);
}

gpi_status pub_curve_write(const char *dir, const char *link_from, const pub_files *fs,
                           gpi_diag *d)
{
    char src[4096], dst[4096];
    gpi_status rc = GPI_OK;
    for (int k = 0; k < 2 && fs->cbuf[k] && rc == GPI_OK; k++) {
        snprintf(dst, sizeof dst, "%s/%s", dir, pub_curve_names[k]);
        if (link_from) {
            snprintf(src, sizeof src, "%s/%s", link_from, pub_curve_names[k]);
            if (link(src, dst) == 0) continue;
        }
        rc = pub_file_write(dst, fs->cbuf[k], fs->clen[k], d);
    }
    return rc;
}

gpi_status pub_curve_record(store *st, int32_t day, int vintage, const pub_files *fs, gpi_diag *d)
{
    if (!fs->cbuf[0]) return GPI_OK;
    return store_vintage_curve_put(st, day, vintage, fs->csha[0], fs->csha[1],
                                   fs->futures ? fs->futures : "", fs->cbuf[0], fs->clen[0], d);
}

gpi_status pub_curve_recorded(store *st, int32_t day, int k, int *present, char sha[2][65],
                              char **futures, gpi_diag *d)
{
    return store_vintage_curve_get(st, day, k, present, sha[0], sha[1], futures, d);
}

gpi_status pub_curve_kept(const char *dir, int32_t day, int k, char sha[2][65], pub_files *fs)
{
    char date[11], path[4096];
    gpi_date_format(day, date);
    int all = 1;
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s/v%d/%s", dir, date, k, pub_curve_names[i]);
        fs->cbuf[i] = pub_file_read_sha(path, sha[i], &fs->clen[i]);
        if (fs->cbuf[i]) memcpy(fs->csha[i], sha[i], 65);
        all &= fs->cbuf[i] != NULL;
    }
    if (all) return GPI_OK;
    for (int i = 0; i < 2; i++) {
        free(fs->cbuf[i]);
        fs->cbuf[i] = NULL;
        fs->clen[i] = 0;
    }
    return GPI_EIO;
}

void pub_curve_free(pub_files *fs)
{
    for (int k = 0; k < 2; k++) {
        free(fs->cbuf[k]);
        fs->cbuf[k] = NULL;
        fs->clen[k] = 0;
    }
    free(fs->futures);
    fs->futures = NULL;
}
