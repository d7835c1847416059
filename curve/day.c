/* curve/day.c -- a day's curves: the inputs of each grade read from the
 * store (read.c) and the curves computed (method.c), and the set as
 * curve.csv and curve.json (format.c) -- what `gpuidx curve` prints and a
 * publication of file format 4 writes (publish/curve.c).
 *
 * Grades whose inputs are read at one cut-off share one scan of the day;
 * the grades of a publication are usually all of one cut-off.
 */
#include "curve/format.h"
#include "curve/read.h"
#include "store/index_values.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

gpi_status curve_set_compute(store *st, const idx_grades *gs, int32_t day,
                             const int64_t *front_e4, const int64_t *as_of,
                             const curve_extra *extra, size_t n_extra, curve_set *out,
                             gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->day = day;
    curve_params_default(&out->base);
    out->n = gs->n;
    out->g = calloc(gs->n ? gs->n : 1, sizeof *out->g);
    char *done = calloc(gs->n ? gs->n : 1, 1);
    idx_grade *sub = calloc(gs->n ? gs->n : 1, sizeof *sub);
    size_t *map = calloc(gs->n ? gs->n : 1, sizeof *map);
    gpi_status rc = out->g && done && sub && map ? GPI_OK
                                                 : gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    for (size_t i = 0; i < gs->n && rc == GPI_OK; i++) {
        out->g[i].g = &gs->g[i];
        out->g[i].front_e4 = front_e4[i];
    }
    for (size_t i = 0; i < gs->n && rc == GPI_OK; i++) {
        if (done[i]) continue;
        size_t m = 0;
        for (size_t j = i; j < gs->n; j++)
            if (!done[j] && as_of[j] == as_of[i]) {
                done[j] = 1;
                sub[m] = gs->g[j];
                map[m++] = j;
            }
        idx_grades part = {.n = m, .g = sub};
        curve_day cd;
        rc = curve_day_read(st, &part, day, as_of[i], &cd, d);
        for (size_t k = 0; k < m && rc == GPI_OK; k++) {
            out->g[map[k]].in = cd.g[k];
            cd.g[k].q = NULL;
        }
        if (rc == GPI_OK) curve_day_free(&cd);
    }
    for (size_t e = 0; e < n_extra && rc == GPI_OK; e++) {
        curve_inputs *ci = &out->g[extra[e].gi].in;
        for (size_t k = 0; k < extra[e].n && rc == GPI_OK; k++) {
            if (ci->n == ci->cap) {
                size_t cap = ci->cap ? 2 * ci->cap : 16;
                curve_quote *x = realloc(ci->q, cap * sizeof *x);
                if (!x) {
                    rc = gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
                    break;
                }
                ci->q = x;
                ci->cap = cap;
            }
            if (!ci->why) ci->q[ci->n++] = extra[e].q[k];
        }
    }
    for (size_t i = 0; i < gs->n && rc == GPI_OK; i++) {
        curve_graded *cg = &out->g[i];
        curve_params p;
        curve_params_of(cg->g, &p);
        rc = curve_compute(&p, day, cg->front_e4, cg->in.q, cg->in.n, &cg->r, d);
        if (rc == GPI_OK && cg->in.why) curve_withhold_all(&cg->r, cg->in.why);
    }
    free(done);
    free(sub);
    free(map);
    if (rc != GPI_OK) curve_set_free(out);
    return rc;
}

void curve_set_free(curve_set *s)
{
    for (size_t i = 0; s->g && i < s->n; i++) {
        free(s->g[i].in.q);
        curve_result_free(&s->g[i].r);
    }
    free(s->g);
    memset(s, 0, sizeof *s);
}

void curve_set_csv(FILE *f, const curve_set *s)
{
    curve_csv_header(f);
    for (size_t i = 0; i < s->n; i++) curve_csv_rows(f, s->day, s->g[i].g->id, &s->g[i].r);
}

void curve_set_json(FILE *f, const curve_set *s, int vintage)
{
    char date[11];
    gpi_date_format(s->day, date);
    fprintf(f, "{\"format\":4,\"date\":\"%s\",\"vintage\":", date);
    if (vintage > 0)
        fprintf(f, "%d", vintage);
    else
        fputs("null", f);
    fputs(",\"method\":\"" CURVE_METHOD "\",\"parameters\":", f);
    curve_json_params(f, &s->base);
    fputs(",\"grades\":[", f);
    for (size_t i = 0; i < s->n; i++) {
        const curve_graded *cg = &s->g[i];
        fputs(i ? ",\n" : "\n", f);
        curve_json_grade(f, cg->g->id, cg->g->p.error_factor_e6, &cg->r, cg->in.q, cg->in.n,
                         cg->in.why);
    }
    fputs("]}\n", f);
}

/* ---- at the stored fixes ---------------------------------------------------- */

typedef struct fixes {
    const idx_grades *gs;
    int64_t *front, *as_of;
    int *found;
} fixes;

static int on_row(const store_index_row *r, void *ud)
{
    fixes *fx = ud;
    for (size_t i = 0; i < fx->gs->n; i++)
        if (strcasecmp(fx->gs->g[i].id, r->grade) == 0) {
            fx->front[i] = r->level == GPI_LEVEL_SUSPENDED ? -1 : r->value_e4;
            fx->as_of[i] = r->as_of;
            fx->found[i] = 1;
        }
    return 0;
}

gpi_status curve_set_stored(store *st, const idx_grades *gs, int32_t day, const curve_extra *extra,
                            size_t n_extra, curve_set *out, int *missing, gpi_diag *d)
{
    size_t n = gs->n ? gs->n : 1;
    int64_t *front = malloc(n * sizeof *front), *as_of = malloc(n * sizeof *as_of);
    int *found = calloc(n, sizeof *found);
    gpi_status rc = front && as_of && found ? GPI_OK
                                            : gpi_diag_set(d, GPI_ENOMEM, "curve: out of memory");
    for (size_t i = 0; i < gs->n && rc == GPI_OK; i++) {
        front[i] = -1;
        as_of[i] = 0;
    }
    fixes fx = {gs, front, as_of, found};
    if (rc == GPI_OK) rc = store_index_rows(st, NULL, day, day, on_row, &fx, d);
    if (missing) *missing = 0;
    for (size_t i = 0; i < gs->n && rc == GPI_OK && missing; i++) *missing += !found[i];
    if (rc == GPI_OK) rc = curve_set_compute(st, gs, day, front, as_of, extra, n_extra, out, d);
    free(front);
    free(as_of);
    free(found);
    return rc;
}
