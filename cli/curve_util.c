/* cli/curve_util.c -- grade selection and futures inputs of the curve
 * commands (cli/curve_cmd.h). */
#include "cli/curve_cmd.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "curve/format.h"
#include "store/curves.h"
#include "store/index_values.h"

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

/* ---- a strip's locked prices from the term curve (hedge simulate) ---------- */

/* The fix of grade on day as first published (else as stored) and the
 * stored row's cut-off and definition. */
typedef struct first_fix {
    const char *grade;
    int64_t value_e4, as_of;
    char hash[65];
    int found;
} first_fix;

static int on_fix_row(const store_index_row *r, void *ud)
{
    first_fix *f = ud;
    if (strcasecmp(r->grade, f->grade) != 0) return 0;
    f->as_of = r->as_of;
    snprintf(f->hash, sizeof f->hash, "%s", r->grade_hash);
    f->found = 1;
    return 1;
}

gpi_status cc_strip_forwards(store *st, const char *grade, int32_t first, int32_t last,
                             int strip_months, cc_forwards *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    int y, m, dd;
    gpi_civil_from_days(first, &y, &m, &dd);
    if (--m < 1) m = 12, y--; /* the month before the first: the first entry */
    gpi_status rc = GPI_OK;
    for (;;) {
        int32_t e = gpi_days_from_civil(y, m, gpi_month_days(y, m)); /* the entry day */
        if (e > last || rc != GPI_OK) break;
        first_fix fx = {grade, -1, 0, "", 0};
        gpi_index_day *v = NULL;
        size_t nv = 0;
        rc = store_index_rows(st, grade, e, e, on_fix_row, &fx, d);
        if (rc == GPI_OK) rc = store_index_series(st, grade, e, e, 0, &v, &nv, d);
        if (rc == GPI_OK && nv == 1 && v[0].level != GPI_LEVEL_SUSPENDED) fx.value_e4 = v[0].value_e4;
        free(v);
        /* the published curve of E (its first vintage's curve.csv), else computed */
        curve_tenor ten[CURVE_TENORS];
        int have = 0, published = 0;
        char *csv = NULL;
        if (rc == GPI_OK) rc = store_vintage_curve_csv(st, e, 1, &csv, d);
        if (rc == GPI_OK && csv) {
            char date[11], name[64];
            gpi_date_format(e, date);
            snprintf(name, sizeof name, "curve.csv of %s", date);
            rc = curve_csv_read(name, csv, strlen(csv), grade, ten, &published, d);
            have = published;
        }
        free(csv);
        idx_grades *def = NULL;
        if (rc == GPI_OK && !have && fx.found && fx.value_e4 >= 0)
            rc = idx_grade_stored(st, fx.hash, &def, d);
        if (rc == GPI_OK && def) {
            curve_set s;
            rc = curve_set_compute(st, def, e, &fx.value_e4, &fx.as_of, NULL, 0, &s, d);
            if (rc == GPI_OK) {
                memcpy(ten, s.g[0].r.t, sizeof ten);
                have = 1;
                curve_set_free(&s);
            }
        }
        idx_grades_free(def);
        int ym = y, mm = m;
        for (int k = 1; rc == GPI_OK && have && k <= strip_months; k++) {
            if (++mm > 12) mm = 1, ym++;
            int32_t m0 = gpi_days_from_civil(ym, mm, 1);
            int32_t m1 = m0 + gpi_month_days(ym, mm) - 1;
            /* the forward over the delivery month: its tenors' forwards
             * weighted by their share of its days (curve.h's months) */
            double a = (double)(m0 - e - 1) * CURVE_MONTH_DEN / CURVE_MONTH_NUM;
            double b = (double)(m1 - e) * CURVE_MONTH_DEN / CURVE_MONTH_NUM;
            double sum = 0;
            int ok = 1;
            for (int t = 0; t < CURVE_TENORS && ok; t++) {
                double lo = a > t ? a : t, hi = b < t + 1 ? b : t + 1;
                if (hi <= lo) continue;
                if (ten[t].status == CURVE_WITHHELD || ten[t].fwd_e4 < 0) ok = 0;
                else sum += (double)ten[t].fwd_e4 / 1e4 * (hi - lo);
            }
            if (!ok || b > CURVE_TENORS) continue;
            size_t n = out->n + 1;
            int32_t *x1 = realloc(out->entered, n * sizeof *x1);
            if (x1) out->entered = x1;
            int32_t *x2 = realloc(out->month, n * sizeof *x2);
            if (x2) out->month = x2;
            int64_t *x3 = realloc(out->price_e4, n * sizeof *x3);
            if (x3) out->price_e4 = x3;
            if (!x1 || !x2 || !x3) {
                rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
                break;
            }
            out->entered[out->n] = gpi_days_from_civil(y, m, 1);
            out->month[out->n] = m0;
            out->price_e4[out->n] = gpi_double_to_units(sum / (b - a), 4);
            out->n++;
        }
        out->entries += have;
        out->published += published;
        if (++m > 12) m = 1, y++;
    }
    if (rc != GPI_OK) cc_forwards_free(out);
    return rc;
}

void cc_forwards_free(cc_forwards *f)
{
    free(f->entered);
    free(f->month);
    free(f->price_e4);
    memset(f, 0, sizeof *f);
}

/* ---- the grade lab's term curves (grades evaluate --curve) ------------------ */

gpi_status cc_lab_curves(store *st, const idx_grades *gs, int32_t from, int32_t to,
                         int64_t as_of, cc_lab *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    size_t n = gs->n ? gs->n : 1;
    out->g = calloc(n, sizeof *out->g);
    int64_t *front = calloc(n, sizeof *front), *cut = calloc(n, sizeof *cut);
    idx_series *se = NULL;
    gpi_status rc = out->g && front && cut ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    out->n = gs->n;
    /* the values the grades would have (the grades need not be built) */
    if (rc == GPI_OK) rc = idx_series_compute(st, gs, from, to, as_of, &se, d);
    for (int32_t day = from; day <= to && rc == GPI_OK; day++) {
        for (size_t i = 0; i < gs->n; i++) {
            const gpi_index_day *v = &se->v[i * se->days + (size_t)(day - from)];
            front[i] = v->level == GPI_LEVEL_SUSPENDED ? -1 : v->value_e4;
            cut[i] = as_of;
        }
        curve_set s;
        rc = curve_set_compute(st, gs, day, front, cut, NULL, 0, &s, d);
        for (size_t i = 0; i < gs->n && rc == GPI_OK; i++) {
            cc_lab_grade *x = &out->g[i];
            const curve_result *r = &s.g[i].r;
            if (front[i] < 0) continue;
            x->fix_days++;
            int tenors = 0, fitted = 0;
            for (int k = 0; k < CURVE_TENORS; k++) {
                if (r->t[k].status == CURVE_WITHHELD) continue;
                tenors++;
                fitted += r->t[k].status == CURVE_FITTED;
                x->tenor_days[k]++;
            }
            if (!tenors) continue;
            x->curve_days++;
            x->tenors_sum += tenors;
            x->fitted_sum += fitted;
            if (tenors > x->tenors_max) x->tenors_max = tenors;
        }
        if (rc == GPI_OK) curve_set_free(&s);
    }
    idx_series_free(se);
    free(front);
    free(cut);
    if (rc != GPI_OK) cc_lab_free(out);
    return rc;
}

void cc_lab_free(cc_lab *l)
{
    free(l->g);
    memset(l, 0, sizeof *l);
}
