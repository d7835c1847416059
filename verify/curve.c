/* verify/curve.c -- the term curve of a published day recomputed from its
 * files (file format 4; METHODOLOGY.md "Term curve", §7).
 *
 * NOTES ON THE DESIGN
 * (1) The receipt first: curve.csv and curve.json against index.json's
 *     curve_sha256; a changed byte is a difference of the day's curve
 *     files as a whole (report.curve_note).
 * (2) Per grade of curve.json: its front against the day's fix (index.json
 *     value of the grade) and its error_factor against the grade's
 *     definition; then the curve is recomputed with the method's code
 *     (curve/curve.h, as verify recomputes a fix with index/'s statistics)
 *     from the published inputs alone -- each input's price, reference,
 *     term and start, each futures price -- and written again with the
 *     publication's writers: the grade's curve.json object and its 36
 *     lines of curve.csv must be the published ones byte for byte (JSON
 *     numbers are compared as the decimal text written).  The first
 *     difference is named by its path ("tenors[12].forward: published
 *     1.2345, recomputed 1.2350").  An input the reader had already
 *     excluded (a cancelled or affiliate trade, the error screen's
 *     exclusions) is taken as published: those screens need the day's
 *     reserved observations, which are not among its files.
 * (3) The references -- each input's provider's own price in the grade --
 *     are checked against observations.csv where it lists the grade's lines
 *     of that kind: a group reference is the median of the group's used
 *     offers (or the volume-weighted median of its used trades), a listing
 *     reference one of the group's used offer prices, or the mean of two
 *     (the median of an even number of the listing's offers), within
 *     1/1.25..1.25 of that median.  A v3 grade's lines count whether the group is a
 *     member (used) or a candidate (both passed the day's screen; the
 *     curve restates against a provider's own prices, in the panel or
 *     not); an imputed member's carried lines (imputed 1) do not: they
 *     are another day's.  Where the lines are not listed (a v1 grade lists
 *     only the level it used) the reference is "not verifiable".
 */
#include "verify/internal.h"

#include <stdarg.h>
#include "curve/curve.h"
#include "curve/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct vcurve {
    char differs[768];
    char unverified[768];
} vcurve;

static void differ(vcurve *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void differ(vcurve *c, const char *fmt, ...)
{
    if (c->differs[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->differs, sizeof c->differs, fmt, ap);
    va_end(ap);
}

/* The text of a JSON value as verify reads it (numbers are strings). */
static const char *text_of(json_t *x, char buf[64])
{
    if (!x) return "(missing)";
    if (json_is_null(x)) return "null";
    if (json_is_string(x)) return json_string_value(x);
    if (json_is_true(x)) return "true";
    if (json_is_false(x)) return "false";
    snprintf(buf, 64, "(%s)", json_is_array(x) ? "array" : json_is_object(x) ? "object" : "?");
    return buf;
}

/* The first path at which a (published) and b (recomputed) differ. */
static int first_diff(json_t *a, json_t *b, char *path, size_t cap, char *msg, size_t mcap)
{
    char ba[64], bb[64];
    if (json_equal(a, b)) return 0;
    if (json_is_object(a) && json_is_object(b)) {
        const char *key;
        json_t *va;
        json_object_foreach(a, key, va) {
            size_t n = strlen(path);
            snprintf(path + n, cap - n, "%s%s", n ? "." : "", key);
            if (first_diff(va, json_object_get(b, key), path, cap, msg, mcap)) return 1;
            path[n] = '\0';
        }
        json_object_foreach(b, key, va) if (!json_object_get(a, key)) {
            size_t n = strlen(path);
            snprintf(path + n, cap - n, "%s%s", n ? "." : "", key);
            snprintf(msg, mcap, "missing");
            return 1;
        }
    } else if (json_is_array(a) && json_is_array(b)) {
        size_t na = json_array_size(a), nb = json_array_size(b);
        for (size_t i = 0; i < na && i < nb; i++) {
            size_t n = strlen(path);
            snprintf(path + n, cap - n, "[%zu]", i);
            if (first_diff(json_array_get(a, i), json_array_get(b, i), path, cap, msg, mcap))
                return 1;
            path[n] = '\0';
        }
        snprintf(msg, mcap, "%zu entries published, %zu recomputed", na, nb);
        return 1;
    }
    snprintf(msg, mcap, "published %s, recomputed %s", text_of(a, ba), text_of(b, bb));
    return 1;
}

/* ---- the published inputs as quotes ------------------------------------------- */

static const char *const pre_reasons[] = {"above F x provider median",
                                          "below 1/F x provider median", "cancelled trade",
                                          "affiliate trade"};

static const char *col_str(json_t *row, int c)
{
    json_t *x = json_array_get(row, (size_t)c);
    return json_is_string(x) ? json_string_value(x) : NULL;
}

static const char *col_fixed(json_t *row, int c, int digits, int64_t *out)
{
    return vj_fixed_value(json_array_get(row, (size_t)c), digits, out);
}

static const char *col_date(json_t *row, int c, int32_t *out)
{
    *out = 0;
    json_t *x = json_array_get(row, (size_t)c);
    if (json_is_null(x)) return NULL;
    if (!json_is_string(x)) return "not a date";
    return gpi_date_parse(json_string_value(x), out);
}

/* Reads the inputs (quotes) of a grade; why: the first problem. */
static int read_inputs(json_t *g, curve_quote **out, size_t *n, char *why, size_t cap)
{
    json_t *in = json_object_get(json_object_get(g, "inputs"), "rows");
    json_t *fu = json_object_get(json_object_get(g, "futures"), "rows");
    size_t ni = json_array_size(in), nf = json_array_size(fu);
    *n = 0;
    *out = calloc(ni + nf + 1, sizeof **out);
    if (!*out) {
        snprintf(why, cap, "out of memory");
        return 0;
    }
    for (size_t i = 0; i < ni; i++) {
        json_t *r = json_array_get(in, i);
        curve_quote *q = &(*out)[(*n)++];
        const char *w = NULL, *kind = col_str(r, 0), *key = col_str(r, 4), *at = col_str(r, 5);
        const char *role = col_str(r, 15), *reason = col_str(r, 16);
        int64_t tm = 0, ref = -1;
        if (!json_is_array(r) || json_array_size(r) != CURVE_INPUT_COLS || !kind || !key || !at ||
            !role) {
            snprintf(why, cap, "inputs.rows[%zu]: not a row of %d columns", i, CURVE_INPUT_COLS);
            return 0;
        }
        q->kind = strcmp(kind, "trade") == 0 ? CURVE_TRADE : CURVE_OFFER;
        q->provider = col_str(r, 1);
        q->group = col_str(r, 2);
        q->source = col_str(r, 3);
        q->key = strtoull(key, NULL, 16);
        if (gpi_time_parse(at, &q->observed_at)) w = "observed_at: not a time";
        if (!w && (w = col_fixed(r, 6, 0, &tm)) == NULL) q->term_months = (int)tm;
        if (!w) w = col_date(r, 7, &q->starts_on);
        if (!w) w = col_fixed(r, 8, 6, &q->price_micro);
        if (!w) w = col_fixed(r, 9, 6, &q->quantity_micro);
        if (!w) w = col_fixed(r, 10, 8, &ref);
        if (w) {
            snprintf(why, cap, "inputs.rows[%zu]: %s", i, w);
            return 0;
        }
        /* the reference in 1e-8: a quarter-micro value times 25 */
        if (ref >= 0 && ref % 25) {
            snprintf(why, cap, "inputs.rows[%zu]: reference: not a whole quarter-micro-USD", i);
            return 0;
        }
        q->ref_q = ref >= 0 ? ref / 25 : -1;
        const char *of = col_str(r, 11);
        q->ref_twin = of && strcmp(of, "listing") == 0;
        if (strcmp(role, "excluded") == 0 && reason)
            for (size_t k = 0; k < sizeof pre_reasons / sizeof pre_reasons[0]; k++)
                if (strcmp(reason, pre_reasons[k]) == 0) q->pre_reason = pre_reasons[k];
    }
    for (size_t i = 0; i < nf; i++) {
        json_t *r = json_array_get(fu, i);
        curve_quote *q = &(*out)[(*n)++];
        const char *w = NULL;
        if (!json_is_array(r) || json_array_size(r) != CURVE_FUTURES_COLS || !col_str(r, 0)) {
            snprintf(why, cap, "futures.rows[%zu]: not a row of %d columns", i, CURVE_FUTURES_COLS);
            return 0;
        }
        q->kind = CURVE_FUTURES;
        q->provider = q->group = q->source = "";
        q->symbol = col_str(r, 0);
        q->quantity_micro = -1;
        q->ref_q = -1;
        w = col_date(r, 1, &q->first_day);
        if (!w) w = col_date(r, 2, &q->last_day);
        if (!w) w = col_fixed(r, 3, 6, &q->price_micro);
        if (w) {
            snprintf(why, cap, "futures.rows[%zu]: %s", i, w);
            return 0;
        }
    }
    return 1;
}

/* ---- references against observations.csv (note 3) --------------------------- */

static void check_refs(vday *dy, vrow *row, const curve_quote *q, size_t n, vcurve *c)
{
    int unverifiable = 0;
    for (size_t i = 0; i < n && !c->differs[0]; i++) {
        if (q[i].kind == CURVE_FUTURES || q[i].ref_q < 0) continue;
        idx_item it[512];
        int64_t prices[512];
        size_t m = 0;
        for (size_t k = 0; row && k < row->n_obs && m < 512; k++) {
            const vobs *o = &dy->obs[row->obs[k]];
            /* the day's screened lines of the group: a v3 grade lists a
             * group outside its panel as candidate, and an imputed
             * member's carried lines (imputed 1) are another day's */
            if (o->kind != q[i].kind || !(o->used || o->candidate) || o->imputed == 1 ||
                !o->group || !q[i].group || strcmp(o->group, q[i].group) != 0)
                continue;
            prices[m] = o->price;
            it[m] = (idx_item){o->price, o->qty > 0 ? o->qty : 0, (uint64_t)k, 0, 0, IDX_OK};
            m++;
        }
        if (!m) {
            unverifiable = 1;
            continue;
        }
        int64_t med;
        if (q[i].kind == CURVE_OFFER) {
            for (size_t a = 1; a < m; a++)
                for (size_t b = a; b > 0 && prices[b - 1] > prices[b]; b--) {
                    int64_t t = prices[b];
                    prices[b] = prices[b - 1];
                    prices[b - 1] = t;
                }
            med = m % 2 ? 4 * prices[m / 2] : 2 * (prices[m / 2 - 1] + prices[m / 2]);
        } else {
            gpi_diag e = {{0}};
            if (idx_weighted_median(it, m, 1000000, &med, &e) != GPI_OK) continue;
        }
        char a[32], b[32];
        if (q[i].ref_twin) {
            /* the median of the listing's own offers (region, scope and
             * sku, which observations.csv does not all show): one of the
             * group's prices or the mean of two of them */
            int found = 0;
            for (size_t k = 0; k < m && !found; k++) {
                found = 4 * prices[k] == q[i].ref_q;
                for (size_t l = k + 1; l < m && !found; l++)
                    found = 2 * (prices[k] + prices[l]) == q[i].ref_q;
            }
            if (!found || q[i].ref_q * 4 > med * 5 || q[i].ref_q * 5 < med * 4)
                differ(c, "inputs.rows[%zu]: reference %s is not one of %s's %s prices in "
                          "observations.csv (or the mean of two) within 1/1.25..1.25 of its "
                          "median %s",
                       i, gpi_fixed_format(q[i].ref_q * 25, 8, a), q[i].group,
                       curve_kind_name(q[i].kind), gpi_fixed_format(med * 25, 8, b));
        } else if (med != q[i].ref_q) {
            differ(c, "inputs.rows[%zu]: reference %s, recomputed from observations.csv %s (%s's "
                      "%s prices)",
                   i, gpi_fixed_format(q[i].ref_q * 25, 8, a), gpi_fixed_format(med * 25, 8, b),
                   q[i].group, curve_kind_name(q[i].kind));
        }
    }
    if (unverifiable && !c->unverified[0])
        snprintf(c->unverified, sizeof c->unverified,
                 "some references not verifiable (observations.csv does not list the grade's "
                 "lines of that kind and provider)");
}

/* ---- a grade ------------------------------------------------------------------ */

static gpi_status check_grade(vday *dy, json_t *g, size_t gi, const char *csv_text, vcurve *c,
                              char *grade_out, size_t gcap, gpi_diag *d)
{
    const char *grade = vj_str(g, "grade");
    snprintf(grade_out, gcap, "%s", grade ? grade : "");
    if (!grade || !*grade) {
        differ(c, "curve.json grades[%zu]: no grade", gi);
        return GPI_OK;
    }
    vrow *row = vday_row(dy, grade);
    if (!row) {
        differ(c, "curve.json: grade %s has no row in index.json", grade);
        return GPI_OK;
    }
    /* the front is the fix; the parameters the grade's */
    int64_t front = -1, value = -1, ef = -1;
    const char *w = vj_fixed(g, "front", 4, &front);
    if (!w) w = vj_fixed(row->j, "value", 4, &value);
    if (!w) w = vj_fixed(g, "error_factor", 6, &ef);
    if (w) {
        differ(c, "curve.json front or error_factor: %s", w);
        return GPI_OK;
    }
    if (front != value) {
        char a[32], b[32];
        differ(c, "front: %s, index.json value %s", front < 0 ? "null" : gpi_fixed_format(front, 4, a),
               value < 0 ? "null" : gpi_fixed_format(value, 4, b));
        return GPI_OK;
    }
    idx_grades *def = NULL;
    gpi_diag e = {{0}};
    const char *canon = vj_str(row->j, "grade_definition");
    if (!canon || idx_grade_from_canon(canon, "grade_definition", &def, &e) != GPI_OK) {
        differ(c, "the grade's definition in index.json cannot be read");
        return GPI_OK;
    }
    curve_params p;
    curve_params_default(&p);
    p.error_factor_e6 = def->g[0].p.error_factor_e6;
    int on_demand = def->g[0].term == GPI_TERM_ON_DEMAND;
    idx_grades_free(def);
    if (ef != p.error_factor_e6) {
        differ(c, "error_factor: not the grade definition's");
        return GPI_OK;
    }
    curve_quote *q = NULL;
    size_t nq = 0;
    char why[200];
    if (!read_inputs(g, &q, &nq, why, sizeof why)) {
        differ(c, "curve.json grade %s: %s", grade, why);
        free(q);
        return GPI_OK;
    }
    curve_result r;
    gpi_status rc = curve_compute(&p, dy->day, front, q, nq, &r, d);
    if (rc != GPI_OK) {
        free(q);
        return rc;
    }
    if (!on_demand) curve_withhold_all(&r, curve_only_on_demand);
    /* the grade's object and lines written again (note 2) */
    char *jt = NULL, *ct = NULL;
    size_t jl = 0, cl = 0;
    FILE *fj = open_memstream(&jt, &jl), *fc = open_memstream(&ct, &cl);
    if (fj) {
        curve_json_grade(fj, grade, p.error_factor_e6, &r, q, nq, on_demand ? NULL : curve_only_on_demand);
        fclose(fj);
    }
    if (fc) {
        curve_csv_rows(fc, dy->day, grade, &r);
        fclose(fc);
    }
    json_t *mine = NULL;
    if (jt && vjson_parse_text("recomputed", jt, jl, &mine, &e) == GPI_OK) {
        /* the inputs first: a changed input is named before what it moved */
        static const char *const order[] = {"grade", "front", "error_factor", "inputs",
                                            "futures", "points", "fit", "growth", "note",
                                            "tenors"};
        char path[256] = "", msg[400] = "";
        for (int t = 0; t < 2 && !c->differs[0]; t++) {
            /* input rows: name the column */
            const char *key = t ? "futures" : "inputs";
            const char *const *cols = t ? curve_futures_cols : curve_input_cols;
            json_t *ra = json_object_get(json_object_get(g, key), "rows");
            json_t *rb = json_object_get(json_object_get(mine, key), "rows");
            for (size_t i = 0; i < json_array_size(ra) && i < json_array_size(rb); i++)
                for (int col = 0; col < (t ? CURVE_FUTURES_COLS : CURVE_INPUT_COLS); col++) {
                    json_t *x = json_array_get(json_array_get(ra, i), (size_t)col);
                    json_t *y = json_array_get(json_array_get(rb, i), (size_t)col);
                    char b1[64], b2[64];
                    if (!c->differs[0] && !json_equal(x, y))
                        differ(c, "curve.json %s row %zu %s: published %s, recomputed %s", key,
                               i + 1, cols[col], text_of(x, b1), text_of(y, b2));
                }
        }
        for (size_t k = 0; k < sizeof order / sizeof order[0] && !c->differs[0]; k++) {
            snprintf(path, sizeof path, "%s", order[k]);
            if (first_diff(json_object_get(g, order[k]), json_object_get(mine, order[k]), path,
                           sizeof path, msg, sizeof msg))
                differ(c, "curve.json %s: %s", path, msg);
        }
        if (!c->differs[0] && json_object_size(g) != json_object_size(mine))
            differ(c, "curve.json grade %s: other members than the method writes", grade);
    } else {
        differ(c, "curve.json: the recomputed curve cannot be read back");
    }
    /* curve.csv: the grade's lines, in the file's order */
    if (!c->differs[0] && ct) {
        const char *found = NULL;
        char key[128];
        char date[11];
        gpi_date_format(dy->day, date);
        snprintf(key, sizeof key, "\n%s,%s,1,", date, grade);
        const char *hit = strstr(csv_text, key);
        if (hit) found = hit + 1;
        if (!found || strncmp(found, ct, cl) != 0) {
            /* the first line that differs */
            const char *a = found, *b = ct;
            long line = 1;
            for (const char *x = csv_text; found && x < found; x++) line += *x == '\n';
            while (a && *a && *b && *a == *b) {
                if (*a == '\n') line++;
                a++;
                b++;
            }
            differ(c, "curve.csv:%ld: the grade's lines differ from the recomputed curve", line);
        }
    }
    /* the references against observations.csv, unless that file already
     * differs from its receipt (the day's difference, said once) */
    const char *osha = vj_str(dy->root, "observations_sha256");
    if (!c->differs[0] && osha && strcmp(osha, dy->obs_sha) == 0)
        check_refs(dy, row, q, nq, c);
    else if (!c->differs[0])
        snprintf(c->unverified, sizeof c->unverified,
                 "references not checked: observations.csv differs from its receipt");
    json_decref(mine);
    free(jt);
    free(ct);
    free(q);
    curve_result_free(&r);
    return GPI_OK;
}

gpi_status vcurve_day(verify_dir *v, vday *dy, verify_day_report *out, gpi_diag *d)
{
    (void)v;
    json_t *sha = json_object_get(dy->root, "curve_sha256");
    if (dy->format < 4 || !json_is_object(sha)) return GPI_OK;
    char path[4096 + 32], got[65];
    char *text[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    static const char *const names[2] = {"curve.csv", "curve.json"};
    gpi_status rc = GPI_OK;
    for (int k = 0; k < 2 && rc == GPI_OK; k++) {
        snprintf(path, sizeof path, "%s/%s", dy->path, names[k]);
        gpi_diag e = {{0}};
        /* within verify's limits (files.c: a regular file, never a FIFO) */
        if (vfile_read(path, dy->max_file, &text[k], &len[k], &e) != GPI_OK) {
            snprintf(out->curve_note, sizeof out->curve_note, "%s", e.msg);
            goto done;
        }
        gpi_sha256_hex(text[k], len[k], got);
        const char *want = vj_str(sha, names[k]);
        if (!want || strcmp(want, got) != 0) {
            snprintf(out->curve_note, sizeof out->curve_note,
                     "%s: its SHA-256 %.12s... differs from index.json's curve_sha256 (the file "
                     "changed after publication)",
                     names[k], got);
            goto done;
        }
    }
    json_t *root = NULL;
    gpi_diag e = {{0}};
    if (vjson_parse_text(names[1], text[1], len[1], &root, &e) != GPI_OK) {
        snprintf(out->curve_note, sizeof out->curve_note, "%s", e.msg);
        goto done;
    }
    /* the method and its parameters are the ones this gpuidx recomputes */
    curve_params p;
    curve_params_default(&p);
    char *pt = NULL;
    size_t pl = 0;
    FILE *f = open_memstream(&pt, &pl);
    json_t *mine = NULL;
    if (f) {
        curve_json_params(f, &p);
        fclose(f);
    }
    if (!pt || vjson_parse_text("parameters", pt, pl, &mine, &e) != GPI_OK ||
        !json_equal(mine, json_object_get(root, "parameters")))
        snprintf(out->curve_note, sizeof out->curve_note,
                 "curve.json parameters: not the method's (%s)", CURVE_METHOD);
    json_decref(mine);
    free(pt);
    const char *method = vj_str(root, "method");
    if (!out->curve_note[0] && (!method || strcmp(method, CURVE_METHOD) != 0))
        snprintf(out->curve_note, sizeof out->curve_note,
                 "curve.json method: \"%s\", this gpuidx recomputes \"%s\"", method ? method : "",
                 CURVE_METHOD);
    json_t *grades = json_object_get(root, "grades");
    if (!out->curve_note[0]) {
        rc = vday_obs(dy, d);
        size_t n = json_array_size(grades);
        out->curves = calloc(n ? n : 1, sizeof *out->curves);
        if (rc == GPI_OK && !out->curves) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        for (size_t i = 0; i < n && rc == GPI_OK; i++) {
            vcurve c;
            memset(&c, 0, sizeof c);
            verify_result *res = &out->curves[out->n_curves++];
            rc = check_grade(dy, json_array_get(grades, i), i, text[0], &c, res->grade,
                             sizeof res->grade, d);
            snprintf(res->differs, sizeof res->differs, "%s", c.differs);
            snprintf(res->unverified, sizeof res->unverified, "%s", c.unverified);
            res->status = c.differs[0] ? VERIFY_DIFFERS : c.unverified[0] ? VERIFY_PARTIAL : VERIFY_OK;
        }
    }
    /* every published grade has its curve */
    for (size_t r = 0; rc == GPI_OK && !out->curve_note[0] && r < dy->n_rows; r++) {
        int found = 0;
        for (size_t i = 0; i < out->n_curves; i++)
            found |= strcasecmp(out->curves[i].grade, dy->rows[r].grade) == 0;
        if (!found)
            snprintf(out->curve_note, sizeof out->curve_note,
                     "curve.json: no curve of grade %s (index.json publishes it)", dy->rows[r].grade);
    }
    json_decref(root);
done:
    free(text[0]);
    free(text[1]);
    return rc;
}
