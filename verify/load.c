/* verify/load.c -- a published day read from its files (verify.h).
 *
 * NOTES ON THE DESIGN
 * (1) index.json's numbers are kept as the text written: before jansson
 *     parses the file, every number token outside a string is wrapped in
 *     double quotes, so a row's "value":1.7468 reads as the string
 *     "1.7468" and is compared digit for digit (v_fixed_text), never
 *     through a binary double.
 * (2) observations.csv is read twice: once with the project's CSV reader
 *     (gpi_csv_read_text) for the values, and once as raw bytes for the
 *     receipt: lines end at an LF outside double quotes, fields at a comma
 *     outside them, exactly as publish/receipt.c hashes them when
 *     publishing.  A line belongs to the row whose grade its second field
 *     names.
 * (3) Days are read on first use and kept (verify_dir_forget_before drops
 *     old ones); a day DIR does not have is kept as absent.
 */
#define _DEFAULT_SOURCE 1
#include "verify/internal.h"
#include "core/csv_reader.h"
#include "publish/columns.h"
#include "core/json_text.h"
#include "core/vec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>


const char *const vobs_cols[17] = {"date", "grade", "kind", "observed_at", "provider",
                                   "group", "source", "key", "region", "price", "quantity",
                                   "role", "reason", "matched", "ref_price", "base_price",
                                   "relative"};
enum { C_DATE, C_GRADE, C_KIND, C_AT, C_PROVIDER, C_GROUP, C_SOURCE, C_KEY, C_REGION, C_PRICE,
       C_QTY, C_ROLE, C_REASON, C_MATCHED, C_REF, C_BASE, C_REL, C_TRADED, C_OFFERED, C_IMPUTED };

/* ---- numbers as written ------------------------------------------------------ */

const char *v_fixed_text(const char *s, int digits, int64_t *out)
{
    static char why[96];
    const char *p = s;
    int64_t v = 0;
    int n = 0;
    while (isdigit((unsigned char)*p)) {
        if (++n > 18) goto bad;
        v = v * 10 + (*p++ - '0');
    }
    if (n == 0) goto bad;
    if (digits > 0) {
        if (*p++ != '.') goto bad;
        for (int i = 0; i < digits; i++) {
            if (!isdigit((unsigned char)*p) || ++n > 18) goto bad;
            v = v * 10 + (*p++ - '0');
        }
    }
    if (*p) goto bad;
    *out = v;
    return NULL;
bad:
    if (digits > 0)
        snprintf(why, sizeof why, "not a number with %d decimals (got \"%.24s\")", digits, s);
    else
        snprintf(why, sizeof why, "not an integer (got \"%.24s\")", s);
    return why;
}

const char *vj_fixed_value(json_t *x, int digits, int64_t *out)
{
    *out = -1;
    if (!x) return "missing";
    if (json_is_null(x)) return NULL;
    if (!json_is_string(x)) return "not a number";
    return v_fixed_text(json_string_value(x), digits, out);
}

const char *vj_fixed(json_t *obj, const char *key, int digits, int64_t *out)
{
    return vj_fixed_value(json_object_get(obj, key), digits, out);
}

const char *vj_signed(json_t *obj, const char *key, int digits, int64_t *out)
{
    *out = INT64_MIN;
    json_t *x = json_object_get(obj, key);
    if (!x) return "missing";
    if (json_is_null(x)) return NULL;
    if (!json_is_string(x)) return "not a number";
    const char *t = json_string_value(x);
    int neg = t[0] == '-';
    const char *why = v_fixed_text(t + neg, digits, out);
    if (why) {
        *out = INT64_MIN;
        return why;
    }
    if (neg) *out = -*out;
    return NULL;
}

const char *vj_str(json_t *obj, const char *key)
{
    json_t *x = json_object_get(obj, key);
    if (json_is_null(x)) return "";
    return json_is_string(x) ? json_string_value(x) : NULL;
}

const char *vj_date(json_t *obj, const char *key, int32_t *out)
{
    *out = INT32_MIN;
    json_t *x = json_object_get(obj, key);
    if (!x) return "missing";
    if (json_is_null(x)) return NULL;
    if (!json_is_string(x)) return "not a date";
    return gpi_date_parse(json_string_value(x), out);
}

/* ---- files --------------------------------------------------------------------- */

gpi_status vjson_load(const verify_dir *v, const char *path, json_t **out, gpi_diag *d)
{
    return vjson_load_sha(v, path, out, NULL, d);
}

json_t *vjson_parse(const char *text)
{
    char *q = gpi_json_quote_numbers(text, strlen(text)); /* design note 1 */
    json_t *j = q ? json_loads(q, 0, NULL) : NULL;
    free(q);
    return j;
}

gpi_status vjson_load_sha(const verify_dir *v, const char *path, json_t **out, char sha[65],
                          gpi_diag *d)
{
    *out = NULL;
    char *text = NULL;
    size_t len;
    gpi_status rc = vfile_read(path, v->max_file, &text, &len, d);
    if (rc != GPI_OK) return rc;
    if (sha) gpi_sha256_hex(text, len, sha);
    rc = vjson_parse_text(path, text, len, out, d);
    free(text);
    return rc;
}

gpi_status vjson_parse_text(const char *name, const char *text, size_t len, json_t **out,
                            gpi_diag *d)
{
    *out = NULL;
    /* a NUL byte ends the text for the parser: what follows it would pass
     * unread (a published index.json padded with 2 MB of zeros verified) */
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return gpi_diag_set(d, GPI_EINPUT, "%s: a NUL byte at byte %zu of %zu: not JSON", name,
                            (size_t)(nul - text) + 1, len);
    char *q = gpi_json_quote_numbers(text, len); /* design note 1 */
    if (!q) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    json_error_t je;
    *out = json_loads(q, 0, &je);
    free(q);
    if (!*out) return gpi_diag_set(d, GPI_EINPUT, "%s:%d:%d: %s", name, je.line, je.column, je.text);
    return GPI_OK;
}

/* The day's strings, in blocks that never move (a block of its own for a
 * long one): memory as the strings need it (files.c note 3). */
struct vstrings {
    struct vstrings *next;
    size_t n, cap;
    char b[];
};

static const char *keep(vday *dy, const char *s)
{
    size_t n = strlen(s) + 1;
    vstrings *h = dy->strings;
    if (!h || h->n + n > h->cap) {
        size_t cap = n > (64u << 10) ? n : (64u << 10);
        vstrings *b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = h;
        b->n = 0;
        b->cap = cap;
        dy->strings = h = b;
    }
    char *p = h->b + h->n;
    memcpy(p, s, n);
    h->n += n;
    return p;
}

static void strings_free(vday *dy)
{
    for (vstrings *b = dy->strings, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    dy->strings = NULL;
}

vrow *vday_row(vday *dy, const char *grade)
{
    for (size_t i = 0; i < dy->n_rows; i++)
        if (strcasecmp(dy->rows[i].grade, grade) == 0) return &dy->rows[i];
    return NULL;
}

/* ---- observations.csv ----------------------------------------------------------- */

typedef struct obs_ctx {
    vday *dy;
    const char *path;
    int header;
    gpi_status rc;
} obs_ctx;

static int reason_of(const char *s)
{
    for (int r = IDX_EX_ABOVE; r <= IDX_EX_LAST; r++)
        if (strcmp(s, idx_reason_name(r)) == 0) return r;
    return -1;
}

static void bad(vday *dy, vobs *o, const char *field, const char *why)
{
    char b[256];
    if (o->bad) return;
    snprintf(b, sizeof b, "observations.csv:%ld: %s: %s", o->line, field, why);
    o->bad = keep(dy, b);
}

static const char *opt_fixed(const char *s, int digits, int64_t *out)
{
    *out = -1;
    return *s ? v_fixed_text(s, digits, out) : NULL;
}

static gpi_status obs_rec(void *ud, const char *const *f, int n, long line, gpi_diag *d)
{
    obs_ctx *c = ud;
    vday *dy = c->dy;
    /* the columns of the day's file format (publish/columns.c: 17 in
     * formats 2 and 3, of which every later format keeps the first) */
    int ncols = (int)pub_columns_n(&pub_observations_csv, dy->format);
    if (!c->header) {
        c->header = 1;
        if (n != ncols)
            return gpi_diag_set(d, GPI_EINPUT, "%s:1: header: %d columns, file format %d has %d",
                                c->path, n, dy->format, ncols);
        for (int i = 0; i < ncols; i++)
            if (strcmp(f[i], pub_observations_csv.cols[i].name) != 0)
                return gpi_diag_set(d, GPI_EINPUT, "%s:1: header: column %d is \"%s\", not \"%s\"",
                                    c->path, i + 1, f[i], pub_observations_csv.cols[i].name);
        return GPI_OK;
    }
    vobs *o = &dy->obs[dy->n_obs++];
    memset(o, 0, sizeof *o);
    o->line = line;
    o->kind = -1;
    o->qty = o->ref_e8 = o->base_e8 = o->rel_e12 = -1;
    o->matched = -1;
    o->imputed = -1;
    char why[160];
    const char *w;
    o->grade = keep(dy, n > C_GRADE ? f[C_GRADE] : "");
    o->group = keep(dy, n > C_GROUP ? f[C_GROUP] : "");
    o->key = keep(dy, n > C_KEY ? f[C_KEY] : "");
    if (n != ncols) {
        snprintf(why, sizeof why, "%d fields, not %d", n, ncols);
        bad(dy, o, "line", why);
        return GPI_OK;
    }
    if (strcmp(f[C_KIND], "offer") == 0) o->kind = GPI_OFFER;
    else if (strcmp(f[C_KIND], "trade") == 0) o->kind = GPI_TRADE;
    else {
        snprintf(why, sizeof why, "not offer or trade (got \"%.24s\")", f[C_KIND]);
        bad(dy, o, "kind", why);
    }
    if ((w = v_fixed_text(f[C_PRICE], 6, &o->price))) bad(dy, o, "price", w);
    if ((w = opt_fixed(f[C_QTY], 6, &o->qty))) bad(dy, o, "quantity", w);
    if (o->kind == GPI_TRADE && o->qty < 0) bad(dy, o, "quantity", "empty for a trade");
    if (strcmp(f[C_ROLE], "used") == 0) o->used = 1;
    else if (strcmp(f[C_ROLE], "candidate") == 0 && ncols > C_IMPUTED) o->candidate = 1;
    else if (strcmp(f[C_ROLE], "excluded") != 0) {
        snprintf(why, sizeof why, "not %s (got \"%.24s\")",
                 ncols > C_IMPUTED ? "used, excluded or candidate" : "used or excluded", f[C_ROLE]);
        bad(dy, o, "role", why);
    }
    o->why = keep(dy, f[C_REASON]);
    o->reason = f[C_REASON][0] && !o->candidate ? reason_of(f[C_REASON]) : IDX_OK;
    if (o->candidate) {
        if (!f[C_REASON][0]) bad(dy, o, "reason", "a candidate without a reason");
    } else if (o->reason < 0) {
        snprintf(why, sizeof why, "unknown reason (got \"%.40s\")", f[C_REASON]);
        bad(dy, o, "reason", why);
    } else if (o->used != (o->reason == IDX_OK)) {
        bad(dy, o, "reason", o->used ? "a used observation has a reason" : "an exclusion without a reason");
    }
    if (f[C_MATCHED][0]) {
        if (strcmp(f[C_MATCHED], "0") == 0) o->matched = 0;
        else if (strcmp(f[C_MATCHED], "1") == 0) o->matched = 1;
        else {
            snprintf(why, sizeof why, "not 0 or 1 (got \"%.24s\")", f[C_MATCHED]);
            bad(dy, o, "matched", why);
        }
    }
    if ((w = opt_fixed(f[C_REF], 8, &o->ref_e8))) bad(dy, o, "ref_price", w);
    if ((w = opt_fixed(f[C_BASE], 8, &o->base_e8))) bad(dy, o, "base_price", w);
    if ((w = opt_fixed(f[C_REL], 12, &o->rel_e12))) bad(dy, o, "relative", w);
    if (dy->format >= 4) { /* the quantity in the column of its unit, and only there */
        int trade = o->kind == GPI_TRADE;
        if (strcmp(f[C_TRADED], trade ? f[C_QTY] : "") != 0)
            bad(dy, o, "traded_gpu_hours", trade ? "differs from quantity" : "not empty for an offer");
        if (strcmp(f[C_OFFERED], trade ? "" : f[C_QTY]) != 0)
            bad(dy, o, "offered_gpus", trade ? "not empty for a trade" : "differs from quantity");
    }
    if (ncols > C_IMPUTED && f[C_IMPUTED][0]) { /* v3's imputed flag */
        if (strcmp(f[C_IMPUTED], "0") == 0) o->imputed = 0;
        else if (strcmp(f[C_IMPUTED], "1") == 0) o->imputed = 1;
        else {
            snprintf(why, sizeof why, "not 0 or 1 (got \"%.24s\")", f[C_IMPUTED]);
            bad(dy, o, "imputed", why);
        }
    }
    (void)d;
    return GPI_OK;
}

/* Design note 2: the receipt of each row's lines, from the raw bytes. */
static void raw_receipts(vday *dy, const char *t, size_t len)
{
    int ncols = (int)pub_columns_n(&pub_observations_csv, dy->format);
    if (ncols > VOBS_MAX_COLS) ncols = VOBS_MAX_COLS;
    size_t i = 0;
    while (i < len && t[i] != '\n') i++; /* the header */
    i++;
    while (i < len) {
        size_t a = i, la = i;
        int q = 0, k = 0;
        size_t fa[VOBS_MAX_COLS + 1], fb[VOBS_MAX_COLS + 1];
        for (;; i++) {
            int end = i >= len || (!q && t[i] == '\n');
            if (end || (!q && t[i] == ',')) {
                if (k <= VOBS_MAX_COLS) {
                    fa[k] = a;
                    fb[k] = i;
                }
                k++;
                a = i + 1;
                if (end) break;
            } else if (t[i] == '"') {
                q = !q;
            }
        }
        size_t le = i < len ? i + 1 : i;
        i = le;
        if (k < 2) continue;
        char grade[80];
        size_t gn = fb[1] - fa[1];
        if (gn >= sizeof grade) continue;
        memcpy(grade, t + fa[1], gn);
        grade[gn] = '\0';
        vrow *r = vday_row(dy, grade);
        if (!r) continue;
        gpi_sha256_update(&r->lines_sha, t + la, le - la);
        for (int c = 0; c < ncols; c++) {
            if (c < k) gpi_sha256_update(&r->col_sha[c], t + fa[c], fb[c] - fa[c]);
            gpi_sha256_update(&r->col_sha[c], "", 1);
        }
    }
}

void vday_receipts(vday *dy)
{
    if (dy->receipts || !dy->obs_text) return;
    gpi_sha256_hex(dy->obs_text, dy->obs_len, dy->obs_sha);
    raw_receipts(dy, dy->obs_text, dy->obs_len);
    dy->receipts = 1;
    /* the text served the receipts only (files.c note 3); obs_len stays,
     * what the observations kept are counted by */
    free(dy->obs_text);
    dy->obs_text = NULL;
}

/* ---- index.csv ------------------------------------------------------------------ */

typedef struct csv_ctx {
    vday *dy;
    int header;
} csv_ctx;

static char **copy_fields(const char *const *f, int n)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (!(v[i] = strdup(f[i]))) return NULL;
    return v;
}

static void free_fields(char **v, int n)
{
    for (int i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

static gpi_status csv_rec(void *ud, const char *const *f, int n, long line, gpi_diag *d)
{
    csv_ctx *c = ud;
    vday *dy = c->dy;
    if (!c->header) {
        c->header = 1;
        dy->csv_header = copy_fields(f, n);
        dy->n_csv_header = n;
        return dy->csv_header ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    vrow *r = n > 1 ? vday_row(dy, f[1]) : NULL;
    if (!r || r->csv) {
        snprintf(dy->note, sizeof dy->note, "index.csv:%ld: grade: %s (got \"%.64s\")", line,
                 r ? "a second line of the grade" : "not a row of index.json", n > 1 ? f[1] : "");
        return GPI_OK;
    }
    r->csv = copy_fields(f, n);
    r->n_csv = n;
    r->csv_line = line;
    return r->csv ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
}

/* ---- a day ---------------------------------------------------------------------- */

static void vday_free(vday *dy)
{
    if (!dy) return;
    for (size_t i = 0; i < dy->n_rows; i++) {
        free(dy->rows[i].obs);
        free_fields(dy->rows[i].csv, dy->rows[i].n_csv);
    }
    free(dy->rows);
    free(dy->obs);
    strings_free(dy);
    free(dy->obs_text);
    free_fields(dy->csv_header, dy->n_csv_header);
    json_decref(dy->root);
    free(dy);
}

/* A row whose value stands (publish/format4.c note 3): the fix is
 * recomputed against its own value, "revision.value", and the value
 * published is kept apart (vrow.stands_value). */
static void take_revision(vrow *r)
{
    json_t *rev = json_object_get(r->j, "revision");
    if (!rev) return;
    r->stands = 1;
    const char *pv = vj_str(r->j, "value");
    snprintf(r->stands_value, sizeof r->stands_value, "%s", pv ? pv : "?");
    int64_t k = 0;
    r->stands_since = vj_fixed(rev, "stands_since_vintage", 0, &k) || k < 1 || k > 1000000
                          ? -1
                          : (int)k;
    json_t *own = json_object_get(rev, "value");
    if (own) json_object_set(r->j, "value", own);
    else json_object_set_new(r->j, "value", json_string("?"));
}

static gpi_status load_day(verify_dir *v, vday *dy, gpi_diag *d)
{
    char date[11], path[4200];
    gpi_date_format(dy->day, date);
    if (dy->vintage > 0)
        snprintf(dy->path, sizeof dy->path, "%s/%s/v%d", v->dir, date, dy->vintage);
    else
        snprintf(dy->path, sizeof dy->path, "%s/%s", v->dir, date);
    snprintf(path, sizeof path, "%s/index.json", dy->path);
    struct stat sb;
    dy->seq = -1;
    if (dy->vintage < 0 || stat(path, &sb) != 0) return GPI_OK; /* not published */
    dy->present = 1;
    char *text = NULL;
    size_t len;
    gpi_status rc = vjson_load_sha(v, path, &dy->root, dy->json_sha, d);
    if (rc != GPI_OK) return rc;
    int64_t fmt = 1, n = 0, seq = -1;
    json_t *rows = json_object_get(dy->root, "rows");
    const char *w = vj_fixed(dy->root, "format", 0, &fmt);
    if (!json_is_object(dy->root) || !json_is_array(rows))
        return gpi_diag_set(d, GPI_EINPUT, "%s: not a published index.json (no rows)", path);
    if (!vj_fixed(dy->root, "vintage", 0, &n) && n > 0 && n < 1000000) dy->n_vintage = (int)n;
    if (w || fmt < 3) {
        if (dy->vintage > 0) { /* an older vintage: listed as not verifiable */
            dy->format = w ? 1 : (int)fmt;
            return GPI_OK;
        }
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s: file format %lld: gpuidx verify needs format 3 (the rows' "
                            "definitions and receipts; published since gpuidx added them)",
                            path, (long long)(w ? 1 : fmt));
    }
    if (fmt > VERIFY_FORMAT_MAX)
        return gpi_diag_set(d, GPI_EINPUT,
                            "%s: file format %lld: this gpuidx verify reads formats 3 to %d "
                            "(a newer gpuidx published it, or the file was changed)",
                            path, (long long)fmt, VERIFY_FORMAT_MAX);
    dy->format = (int)fmt;
    if (fmt >= 4 && !vj_fixed(dy->root, "sequence", 0, &seq) && seq > 0) dy->seq = seq;
    if (fmt < 4 && json_object_get(dy->root, "sequence"))
        snprintf(dy->note, sizeof dy->note, "index.json format: 3, with format 4's members");
    dy->n_rows = json_array_size(rows);
    dy->rows = calloc(dy->n_rows ? dy->n_rows : 1, sizeof *dy->rows);
    if (!dy->rows) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < dy->n_rows; i++) {
        vrow *r = &dy->rows[i];
        r->j = json_array_get(rows, i);
        r->grade = vj_str(r->j, "grade");
        const char *m = vj_str(r->j, "methodology");
        if (!json_is_object(r->j) || !r->grade || !*r->grade || !m)
            return gpi_diag_set(d, GPI_EINPUT, "%s: rows[%zu]: no grade or methodology", path, i);
        r->v2 = strcmp(m, "v2") == 0;
        r->v3 = strcmp(m, "v3") == 0;
        gpi_sha256_init(&r->lines_sha);
        for (int c = 0; c < VOBS_MAX_COLS; c++) gpi_sha256_init(&r->col_sha[c]);
        take_revision(r);
    }
    /* index.csv */
    snprintf(path, sizeof path, "%s/index.csv", dy->path);
    rc = vfile_read(path, v->max_file, &text, &len, d);
    if (rc != GPI_OK) return rc;
    gpi_sha256_hex(text, len, dy->csv_sha);
    csv_ctx cc = {dy, 0};
    rc = gpi_csv_read_text(path, text, len, csv_rec, &cc, d);
    free(text);
    if (rc != GPI_OK) return rc;
    return GPI_OK;
}

gpi_status vday_obs(vday *dy, gpi_diag *d)
{
    if (dy->obs_loaded || !dy->present) return GPI_OK;
    dy->obs_loaded = 1;
    char path[4200], *text = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/observations.csv", dy->path);
    gpi_status rc = vfile_read(path, dy->max_file, &text, &len, d);
    if (rc != GPI_OK) return rc;
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    dy->obs = calloc(lines, sizeof *dy->obs);
    if (!dy->obs) {
        free(text);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    obs_ctx oc = {dy, path, 0, GPI_OK};
    rc = gpi_csv_read_text(path, text, len, obs_rec, &oc, d);
    if (rc == GPI_OK && !oc.header) rc = gpi_diag_set(d, GPI_EINPUT, "%s: empty (no header)", path);
    dy->obs_text = text; /* for vday_receipts */
    dy->obs_len = len;
    if (rc != GPI_OK) return rc;
    /* each row's lines */
    for (size_t i = 0; i < dy->n_rows; i++) {
        vrow *r = &dy->rows[i];
        r->obs = malloc((dy->n_obs + 1) * sizeof *r->obs);
        if (!r->obs) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < dy->n_obs; k++) {
        vrow *r = vday_row(dy, dy->obs[k].grade);
        if (r)
            r->obs[r->n_obs++] = k;
        else if (!dy->note[0])
            snprintf(dy->note, sizeof dy->note,
                     "observations.csv:%ld: grade: not a row of index.json (got \"%.64s\")",
                     dy->obs[k].line, dy->obs[k].grade);
    }
    return GPI_OK;
}

gpi_status vday_get(verify_dir *v, int32_t day, vday **out, gpi_diag *d)
{
    if (v->view_seq == VIEW_CURRENT) return vday_get_vintage(v, day, 0, out, d);
    if (v->view_seq == VIEW_NONE) return vday_get_vintage(v, day, -1, out, d);
    return vday_as_of(v, day, v->view_seq, 0, out, d);
}

gpi_status vday_get_vintage(verify_dir *v, int32_t day, int vintage, vday **out, gpi_diag *d)
{
    for (size_t i = 0; i < v->n_days; i++)
        if (v->days[i]->day == day && v->days[i]->vintage == vintage) {
            *out = v->days[i];
            v->days[i]->last_use = ++v->tick;
            return GPI_OK;
        }
    *out = NULL;
    if (GPI_VEC_RESERVE(v->days, v->cap_days, v->n_days + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    vday *dy = calloc(1, sizeof *dy);
    if (!dy) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    dy->day = day;
    dy->vintage = vintage;
    dy->max_file = v->max_file;
    dy->last_use = ++v->tick;
    gpi_status rc = load_day(v, dy, d);
    if (rc != GPI_OK) {
        vday_free(dy);
        return rc;
    }
    v->days[v->n_days++] = dy;
    *out = dy;
    return GPI_OK;
}

/* ---- the folder -------------------------------------------------------------------- */

gpi_status verify_dir_open(const char *dir, verify_dir **out, gpi_diag *d)
{
    *out = NULL;
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gpi_diag_set(d, GPI_EINPUT, "%s: not a folder of published days", dir);
    verify_dir *v = calloc(1, sizeof *v);
    if (!v) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    snprintf(v->dir, sizeof v->dir, "%s", dir);
    verify_dir_set_max_file(v, 0);
    v->view_seq = VIEW_CURRENT;
    size_t n = strlen(v->dir);
    while (n > 1 && v->dir[n - 1] == '/') v->dir[--n] = '\0';
    *out = v;
    return GPI_OK;
}

void verify_dir_close(verify_dir *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->n_days; i++) vday_free(v->days[i]);
    free(v->days);
    free(v->all_days);
    free(v->defs);
    free(v);
}

/* The observations of a day dropped (read again when needed): its rows'
 * lines and receipts too. */
static void drop_obs(vday *dy)
{
    free(dy->obs);
    strings_free(dy);
    free(dy->obs_text);
    dy->obs = NULL;
    dy->obs_text = NULL;
    dy->n_obs = dy->obs_len = 0;
    dy->obs_loaded = dy->receipts = 0;
    dy->obs_sha[0] = '\0';
    for (size_t i = 0; i < dy->n_rows; i++) {
        vrow *r = &dy->rows[i];
        free(r->obs);
        r->obs = NULL;
        r->n_obs = 0;
        gpi_sha256_init(&r->lines_sha);
        for (int c = 0; c < VOBS_MAX_COLS; c++) gpi_sha256_init(&r->col_sha[c]);
    }
}

void verify_dir_forget_before(verify_dir *v, int32_t day)
{
    size_t w = 0;
    for (size_t i = 0; i < v->n_days; i++) {
        if (v->days[i]->day < day)
            vday_free(v->days[i]);
        else
            v->days[w++] = v->days[i];
    }
    v->n_days = w;
    /* files.c note 3: the observations kept, least recently used dropped
     * past VERIFY_OBS_BUDGET bytes of observations.csv */
    for (;;) {
        size_t total = 0;
        vday *lru = NULL;
        for (size_t i = 0; i < v->n_days; i++) {
            vday *dy = v->days[i];
            if (!dy->obs_loaded) continue;
            total += dy->obs_len;
            if (!lru || dy->last_use < lru->last_use) lru = dy;
        }
        if (total <= VERIFY_OBS_BUDGET || !lru) break;
        drop_obs(lru);
    }
}

static int cmp_day(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

gpi_status verify_dir_days(verify_dir *v, int32_t **days, size_t *n, gpi_diag *d)
{
    *days = NULL;
    *n = 0;
    DIR *dp = opendir(v->dir);
    if (!dp) return gpi_diag_set(d, GPI_EINPUT, "%s: cannot open: %s", v->dir, strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    gpi_status rc = GPI_OK;
    while ((e = readdir(dp)) && rc == GPI_OK) {
        int32_t day;
        char path[4400];
        struct stat sb;
        if (strlen(e->d_name) != 10 || gpi_date_parse(e->d_name, &day)) continue;
        snprintf(path, sizeof path, "%s/%s/index.json", v->dir, e->d_name);
        if (stat(path, &sb) != 0) continue;
        if (GPI_VEC_RESERVE(*days, cap, *n + 1) != 0) {
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
            break;
        }
        (*days)[(*n)++] = day;
    }
    closedir(dp);
    if (rc != GPI_OK) {
        free(*days);
        *days = NULL;
        *n = 0;
        return rc;
    }
    if (*n > 1) qsort(*days, *n, sizeof **days, cmp_day);
    return GPI_OK;
}
