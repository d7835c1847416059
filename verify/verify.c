/* verify/verify.c -- one published day verified (verify.h).
 *
 * NOTES ON THE DESIGN
 * (1) Per row, in this order: the receipt (the grade definition against
 *     grade_hash; the grade's lines of observations.csv against their
 *     count, SHA-256 and column SHA-256s), index.csv against index.json,
 *     then the recomputation (xs.c, chain.c).  The first receipt
 *     difference and the first recomputation difference are both kept, so
 *     a changed byte of an observation is reported with the column it is
 *     in and with what it changed in the fix.
 * (2) The published manipulation figures (loo_move, cost_*) are not
 *     recomputed: they are information about the fix, not the fix, and
 *     their leave-one-out needs the chain's state; index.csv and
 *     index.json must still agree on them.
 */
#include "verify/internal.h"
#include "publish/columns.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* index.csv columns and their index.json keys (NULL: the same name), and
 * the methods whose rows fill them (0: every method). */
enum { M2 = 1, M3 = 2 };
typedef struct colmap {
    const char *csv, *json;
    int methods;                /* 0, or M2 and/or M3: empty on other rows */
} colmap;

static const colmap cols[] = {
    {"date", NULL, 0}, {"grade", NULL, 0}, {"value", NULL, 0}, {"level", NULL, 0},
    {"n_obs", NULL, 0}, {"n_excluded", NULL, 0}, {"n_providers", NULL, 0},
    {"trade_volume_gpu_hours", NULL, 0}, {"adjustment", NULL, 0}, {"p10", NULL, 0},
    {"p25", NULL, 0}, {"p50", NULL, 0}, {"p75", NULL, 0}, {"p90", NULL, 0}, {"min", NULL, 0},
    {"max", NULL, 0}, {"top_provider_share", NULL, 0}, {"methodology", NULL, 0},
    {"vintage", NULL, 0}, {"xs_value", NULL, M2}, {"xs_level", NULL, M2}, {"relative", NULL, M2},
    {"n_matched", NULL, M2}, {"n_matched_providers", NULL, M2},
    {"panel_change", NULL, M2 | M3}, {"event", NULL, M2}, {"splice", NULL, M2},
    {"note", NULL, 0}, {"loo_move", NULL, 0}, {"cost_tick_gpu_hours", NULL, 0},
    {"cost_1pct_gpu_hours", NULL, 0}, {"cost_tick_offers", NULL, 0},
    {"cost_1pct_offers", NULL, 0},
    /* file format 4's (ci_low, ci_high, confidence, stale_share: uncert.c
     * recomputes them; methodology v3's: v3.c) are index.json members of
     * the same name, absent (empty) on the rows that have none */
};

/* index.json's member as index.csv writes it. */
static const char *as_csv(json_t *x, char buf[8])
{
    if (!x || json_is_null(x)) return "";
    if (json_is_true(x)) return "1";
    if (json_is_false(x)) return "0";
    if (json_is_string(x)) return json_string_value(x);
    snprintf(buf, 8, "?");
    return buf;
}

static void check_csv(const vday *dy, const vrow *r, vchk *c)
{
    if (!r->csv) {
        vchk_diff(c, 0, "index.csv: no line of the grade");
        return;
    }
    /* the columns of the day's file format (publish/columns.c); those
     * after format 3's are their index.json member of the same name */
    int n = (int)pub_columns_n(&pub_index_csv, dy->format);
    int n3 = (int)(sizeof cols / sizeof cols[0]);
    if (dy->n_csv_header != n || r->n_csv != n) {
        vchk_diff(c, 0, "index.csv:%ld: %d fields, file format %d has %d", r->csv_line, r->n_csv,
                  dy->format, n);
        return;
    }
    int mine = r->v2 ? M2 : r->v3 ? M3 : 0;
    for (int i = 0; i < n; i++) {
        const char *name = pub_index_csv.cols[i].name;
        if (strcmp(dy->csv_header[i], name) != 0) {
            vchk_diff(c, 0, "index.csv:1: column %d is \"%s\", not \"%s\"", i + 1,
                      dy->csv_header[i], name);
            return;
        }
        char b[8];
        const char *key = i < n3 && cols[i].json ? cols[i].json : name;
        const char *want = i < n3 && cols[i].methods && !(cols[i].methods & mine)
                               ? ""
                               : as_csv(json_object_get(r->j, key), b);
        if (r->stands && i == 2) want = r->stands_value; /* the value published */
        if (strcmp(r->csv[i], want) != 0) {
            vchk_diff(c, 0, "index.csv:%ld %s: \"%s\", index.json \"%s\"", r->csv_line,
                      name, r->csv[i], want);
            return;
        }
    }
}

/* Design note 1: the grade definition and the lines' receipt; the grade
 * (NULL after a difference that leaves no parameters). */
static idx_grades *check_receipt(const vday *dy, vrow *r, vchk *c, gpi_diag *d)
{
    const char *canon = vj_str(r->j, "grade_definition");
    const char *hash = vj_str(r->j, "grade_hash");
    char h[65];
    if (!canon || !*canon || !hash) {
        vchk_diff(c, 0, "index.json grade_definition: missing");
        return NULL;
    }
    gpi_sha256_hex(canon, strlen(canon), h);
    if (strcmp(h, hash) != 0) {
        vchk_diff(c, 0, "grade_definition: its SHA-256 %.12s... is not grade_hash %.12s...", h, hash);
        return NULL;
    }
    if (dy->format >= 4) { /* the definition object: the same definition */
        json_t *def = json_object_get(r->j, "definition");
        json_t *want = vjson_parse(canon); /* numbers as text, as def's */
        int same = json_is_object(def) && want && json_equal(def, want);
        json_decref(want);
        if (!same) {
            vchk_diff(c, 0, "index.json definition: %s", json_is_object(def)
                                                             ? "not the definition of grade_hash"
                                                             : "missing");
            return NULL;
        }
    }
    idx_grades *gs = NULL;
    gpi_diag e = {{0}};
    if (idx_grade_from_canon(canon, "grade_definition", &gs, &e) != GPI_OK) {
        vchk_diff(c, 0, "%s", e.msg);
        gs = NULL;
    }
    (void)d;
    if (!gs) return NULL;
    const idx_grade *g = &gs->g[0];
    int64_t ver = 0;
    const char *vwhy = vj_fixed(r->j, "grade_version", 0, &ver);
    if (vwhy) {
        vchk_diff(c, 0, "grade_version: %s", vwhy);
        idx_grades_free(gs);
        return NULL;
    }
    int method = r->v3 ? 3 : r->v2 ? 2 : 1;
    if (strcasecmp(g->id, r->grade) != 0 || ver != g->version || g->method != method) {
        vchk_diff(c, 0, "grade_definition: not grade %s version %lld of methodology v%d", r->grade,
                  (long long)ver, method);
        idx_grades_free(gs);
        return NULL;
    }
    /* the lines */
    json_t *ob = json_object_get(json_object_get(r->j, "receipt"), "observations");
    json_t *colh = json_object_get(ob, "columns");
    int64_t rows;
    const char *why = vj_fixed(ob, "rows", 0, &rows);
    if (why || !json_is_object(colh)) {
        vchk_diff(c, 1, "index.json receipt.observations: %s", why ? why : "no columns");
        return gs;
    }
    const char *first = NULL;
    int ncols = (int)pub_columns_n(&pub_observations_csv, dy->format);
    for (int k = 0; k < ncols && k < VOBS_MAX_COLS && !first; k++) {
        gpi_sha256 t = r->col_sha[k];
        gpi_sha256_final(&t, h);
        const char *name = pub_observations_csv.cols[k].name;
        const char *want = vj_str(colh, name);
        if (!want || strcmp(want, h) != 0) first = name;
    }
    gpi_sha256 t = r->lines_sha;
    gpi_sha256_final(&t, h);
    const char *lines = vj_str(ob, "sha256");
    if ((long long)rows != (long long)r->n_obs)
        vchk_diff(c, 1, "observations.csv: the grade has %zu lines, its receipt %lld", r->n_obs,
                  (long long)rows);
    else if (first)
        vchk_diff(c, 1, "observations.csv %s: the grade's %s fields differ from index.json's "
                  "receipt (SHA-256)", first, first);
    else if (!lines || strcmp(lines, h) != 0)
        vchk_diff(c, 1, "observations.csv: the grade's lines differ from index.json's receipt "
                  "(SHA-256)");
    (void)dy;
    return gs;
}

static gpi_status check_row(verify_dir *v, vday *dy, vrow *r, vchk *c, gpi_diag *d)
{
    idx_grades *gs = check_receipt(dy, r, c, d);
    if (!gs) return GPI_OK;
    const idx_grade *g = &gs->g[0];
    check_csv(dy, r, c);
    int32_t day;
    const char *why = vj_date(r->j, "date", &day);
    if (why || day != dy->day) vchk_diff(c, 0, "index.json date: not the day's date");
    gpi_status rc = GPI_OK;
    if (!vchk_failed(c) && r->v3) {
        rc = vv3_check(v, dy, r, g, c, d);
    } else if (!vchk_failed(c)) {
        vxs xs;
        rc = vxs_check(v, dy, r, g, c, &xs, d);
        if (rc == GPI_OK && r->v2 && !vchk_failed(c)) rc = vchain_check(v, dy, r, g, &xs, c, d);
        if (rc == GPI_OK && dy->format >= 4 && !vchk_failed(c)) rc = vuncert_check(dy, r, g, c, d);
    }
    idx_grades_free(gs);
    return rc;
}

/* The day-level checks of one vintage's files (date, observations.csv's
 * hash, the files' notes), into the report's note. */
static void check_files(const vday *dy, const char *date, int latest, char *out, size_t cap)
{
    const char *sha = vj_str(dy->root, "observations_sha256");
    const char *jd = vj_str(dy->root, "date");
    size_t k = strlen(out);
    const char *sep = k ? "; " : "";
    char pre[16] = ""; /* an older vintage is named; the latest is the current files */
    if (!latest) snprintf(pre, sizeof pre, "v%d/", dy->vintage);
    if (!jd || strcmp(jd, date) != 0)
        snprintf(out + k, cap - k, "%s%sindex.json date: \"%s\", not the folder's %s", sep, pre,
                 jd ? jd : "", date);
    else if (!sha || strcmp(sha, dy->obs_sha) != 0)
        snprintf(out + k, cap - k,
                 "%s%sobservations.csv: its SHA-256 %.12s... differs from index.json's "
                 "observations_sha256 (the file changed after publication)",
                 sep, pre, dy->obs_sha);
    else if (dy->note[0])
        snprintf(out + k, cap - k, "%s%s%s", sep, pre, dy->note);
}

/* The value a row publishes (its standing value, or its own). */
static const char *published_value(vrow *r)
{
    if (r->stands) return r->stands_value;
    const char *s = vj_str(r->j, "value");
    return s ? s : "?";
}

/* A standing value (publish/format4.c note 3) is the value of its vintage. */
static gpi_status check_stands(verify_dir *v, vday *dy, vrow *r, vchk *c, gpi_diag *d)
{
    if (!r->stands) return GPI_OK;
    if (r->stands_since < 1 || r->stands_since >= dy->n_vintage) {
        vchk_diff(c, 0, "revision.stands_since_vintage: not an earlier vintage");
        return GPI_OK;
    }
    vday *k = NULL;
    gpi_status rc = vday_get_vintage(v, dy->day, r->stands_since, &k, d);
    if (rc != GPI_OK) return rc;
    vrow *kr = k->present ? vday_row(k, r->grade) : NULL;
    if (!kr)
        vchk_diff(c, 0, "revision: the value stands since vintage %d, which has no row of the "
                        "grade", r->stands_since);
    else if (strcmp(published_value(kr), r->stands_value) != 0)
        vchk_diff(c, 0, "value: published %s as standing since vintage %d, which published %s",
                  r->stands_value, r->stands_since, published_value(kr));
    return GPI_OK;
}

/* Checks every row of one vintage, results appended to out. */
static gpi_status check_vintage(verify_dir *v, vday *dy, int latest, verify_day_report *out,
                                gpi_diag *d)
{
    gpi_status rc = vday_obs(dy, d);
    if (rc != GPI_OK) return rc;
    vday_receipts(dy);
    for (size_t i = 0; i < dy->n_rows && rc == GPI_OK; i++) {
        vrow *r = &dy->rows[i];
        verify_result *res = &out->g[out->n++];
        vchk c;
        memset(&c, 0, sizeof c);
        c.dir = v->dir;
        c.day = dy->day;
        c.grade = r->grade;
        rc = check_row(v, dy, r, &c, d);
        if (rc == GPI_OK) rc = check_stands(v, dy, r, &c, d);
        snprintf(res->grade, sizeof res->grade, "%s", r->grade);
        res->vintage = dy->n_vintage;
        res->latest = latest;
        snprintf(res->differs, sizeof res->differs, "%s", c.differs);
        vchk_missing_text(&c, v->dir, res->unverified, sizeof res->unverified);
        if (v->view_seq == VIEW_NONE && !c.n_diff) {
            size_t k = strlen(res->unverified);
            snprintf(res->unverified + k, sizeof res->unverified - k,
                     "%sits inputs from other days not checked (vintage %d was published before "
                     "file format 4 recorded when)",
                     k ? "; " : "", dy->n_vintage);
        }
        res->status = c.n_diff ? VERIFY_DIFFERS : res->unverified[0] ? VERIFY_PARTIAL : VERIFY_OK;
    }
    return rc;
}

gpi_status verify_day(verify_dir *v, int32_t day, verify_day_report *out, gpi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->day = day;
    vday *cur;
    gpi_status rc = vday_get_vintage(v, day, 0, &cur, d);
    if (rc != GPI_OK) return rc;
    char date[11];
    gpi_date_format(day, date);
    if (!cur->present)
        return gpi_diag_set(d, GPI_EINPUT, "%s/%s: not published (no index.json)", v->dir, date);
    char *note = out->file_note;
    size_t cap = sizeof out->file_note;
    /* every kept vintage v1..vN, N the current files' (vintage.c) */
    int n = cur->n_vintage;
    if (n < 1) {
        snprintf(note, cap, "index.json vintage: unreadable");
        n = 0;
    }
    vday **ks = calloc((size_t)n + 1, sizeof *ks);
    if (!ks) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    size_t nk = 0, rows = cur->n_rows;
    for (int k = 1; k <= n && rc == GPI_OK; k++) {
        vday *dk = NULL;
        rc = vday_get_vintage(v, day, k, &dk, d);
        if (rc != GPI_OK) break;
        if (!dk->present) {
            size_t l = strlen(note);
            snprintf(note + l, cap - l, "%s%s/%s/v%d is missing (a kept vintage deleted)",
                     l ? "; " : "", v->dir, date, k);
            continue;
        }
        ks[nk++] = dk;
        rows += dk->n_rows;
    }
    char extra[4300];
    snprintf(extra, sizeof extra, "%s/%s/v%d", v->dir, date, n + 1);
    if (rc == GPI_OK && vfile_exists(extra) == GPI_OK) {
        size_t l = strlen(note);
        snprintf(note + l, cap - l, "%sv%d/ is there, but the current files are vintage %d",
                 l ? "; " : "", n + 1, n);
    }
    out->g = calloc(rows + 1, sizeof *out->g);
    if (rc == GPI_OK && !out->g) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    /* the current files are the latest vintage's */
    vday *latest = nk && ks[nk - 1]->vintage == n ? ks[nk - 1] : NULL;
    int cur_differs = 0; /* the current files are checked too, and named */
    if (rc == GPI_OK && latest) {
        rc = vday_obs(cur, d);
        if (rc == GPI_OK) rc = vday_obs(latest, d);
        vday_receipts(cur);
        vday_receipts(latest);
        if (rc == GPI_OK && (strcmp(cur->json_sha, latest->json_sha) != 0 ||
                             strcmp(cur->csv_sha, latest->csv_sha) != 0 ||
                             strcmp(cur->obs_sha, latest->obs_sha) != 0)) {
            cur_differs = 1;
            size_t l = strlen(note);
            snprintf(note + l, cap - l, "%sthe current files are not v%d/'s (%s differs)",
                     l ? "; " : "", n,
                     strcmp(cur->json_sha, latest->json_sha) ? "index.json"
                     : strcmp(cur->csv_sha, latest->csv_sha) ? "index.csv"
                                                              : "observations.csv");
        }
    }
    /* each vintage, newest first, against the other days of its time */
    int64_t saved = v->view_seq;
    int64_t legacy_latest = -1; /* the newest vintage of before format 4 */
    for (size_t i = 0; i < nk; i++)
        if (ks[i]->seq < 0) legacy_latest = ks[i]->vintage;
    if (rc == GPI_OK && cur_differs && cur->format >= 3) {
        /* what in them differs, named as the current files' */
        v->view_seq = cur->seq >= 0 ? cur->seq : VIEW_NONE;
        rc = check_vintage(v, cur, 1, out, d);
        if (rc == GPI_OK) check_files(cur, date, 1, note, cap);
    }
    for (size_t i = nk; i-- > 0 && rc == GPI_OK;) {
        vday *dk = ks[i];
        if (dk->format < 3) {
            size_t l = strlen(out->partial_note);
            snprintf(out->partial_note + l, sizeof out->partial_note - l,
                     "%sv%d is file format %d (before receipts): not verifiable", l ? "; " : "",
                     dk->vintage, dk->format);
            continue;
        }
        v->view_seq = dk->seq >= 0 ? dk->seq : dk->vintage == legacy_latest ? 0 : VIEW_NONE;
        int is_cur = dk->vintage == n && !cur_differs;
        rc = check_vintage(v, dk, is_cur, out, d);
        if (rc != GPI_OK) break;
        check_files(dk, date, is_cur, note, cap);
        char vn[1024] = "", vp[256] = "";
        rc = vvintage_check(v, dk, vn, sizeof vn, vp, sizeof vp, d);
        if (rc == GPI_OK) rc = vday_check_package(dk, vn, sizeof vn, d);
        if (vn[0]) {
            size_t l = strlen(note);
            if (dk->vintage == n) snprintf(note + l, cap - l, "%s%s", l ? "; " : "", vn);
            else snprintf(note + l, cap - l, "%sv%d: %s", l ? "; " : "", dk->vintage, vn);
        }
        if (vp[0]) {
            char *pn = out->partial_note;
            size_t l = strlen(pn), pc = sizeof out->partial_note;
            if (dk->vintage == n) snprintf(pn + l, pc - l, "%s%s", l ? "; " : "", vp);
            else snprintf(pn + l, pc - l, "%sv%d: %s", l ? "; " : "", dk->vintage, vp);
        }
        vday_check_definitions(v, dk, note, cap);
        /* a kept earlier vintage's term curve files (the current files'
         * are reported below, curve by curve): their receipt and curves */
        if (rc == GPI_OK && dk->vintage != n) {
            verify_day_report t;
            memset(&t, 0, sizeof t);
            rc = vcurve_day(v, dk, &t, d);
            const char *cd = t.curve_note[0] ? t.curve_note : NULL;
            const char *cg = NULL;
            for (size_t q = 0; !cd && q < t.n_curves; q++)
                if (t.curves[q].status == VERIFY_DIFFERS)
                    cd = t.curves[q].differs, cg = t.curves[q].grade;
            if (cd) {
                size_t l = strlen(note);
                snprintf(note + l, cap - l, "%sv%d: curve%s%s: %s", l ? "; " : "", dk->vintage,
                         cg ? " " : "", cg ? cg : "", cd);
            }
            free(t.curves);
        }
    }
    v->view_seq = saved;
    if (rc == GPI_OK) vday_check_batches(ks, nk, note, cap);
    if (rc == GPI_OK) { /* the current files' data package (not among the vintage's three) */
        char pn[600] = "";
        rc = vday_check_package(cur, pn, sizeof pn, d);
        size_t l = strlen(note);
        if (pn[0]) snprintf(note + l, cap - l, "%s%s", l ? "; " : "", pn);
    }
    free(ks);
    if (rc == GPI_OK) rc = vcurve_day(v, cur, out, d); /* file format 4: the term curves */
    if (rc != GPI_OK) verify_day_report_free(out);
    return rc;
}

void verify_day_report_free(verify_day_report *r)
{
    free(r->g);
    r->g = NULL;
    r->n = 0;
    free(r->curves);
    r->curves = NULL;
    r->n_curves = 0;
}
