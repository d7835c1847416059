/* verify/vintage.c -- a published day as a whole (METHODOLOGY.md §7.2,
 * file format 4; issue 31): which files another day's row is checked
 * against, and what a vintage commits to besides its rows.
 *
 * NOTES ON THE DESIGN
 * (1) What a vintage took from other days (the chain of the day before,
 *     reference and base prices, an adjustment's days, a carried value...)
 *     is checked against those days as they were published when the
 *     vintage was: each day's latest vintage of a lower "sequence" (the
 *     order of publications, publish/format4.c note 1).  A vintage of
 *     before format 4 has no sequence: it counts as earlier than any; a
 *     day's latest such vintage is checked against the other days' latest
 *     such vintages (the current files of those days, before format 4),
 *     and its older ones against no other day (their inputs are then not
 *     verifiable: no file says when they were published).  So a day
 *     restated after a later day was published leaves that later day's
 *     vintages verifiable, and a later day published after the
 *     restatement is checked against the restated files.  A day published
 *     only after the vintage that took its rows (days published out of
 *     order) is checked as first published (the links, note 2, still see
 *     it as not published then).
 * (2) A vintage of format 4 commits to: index.csv (its SHA-256), the grade
 *     list (grade_set_sha256 over the rows and grades_without_row), its
 *     number (the folder, "vintage" of the file and of every row), the
 *     vintage before (previous_vintage: number and SHA-256 of its
 *     index.json) and the day before as of its sequence (previous_day).
 *     A link to a day DIR does not have is a deleted day; a day between
 *     the link and this one published before this vintage is a link that
 *     skips it.  Days never published are the days a link skips.
 * (3) Across a day's vintages and rows: the ingested files of the
 *     receipts (receipt.batches) grow with the cut-off, so of any two rows
 *     of a day one lists every file the other does (the same pair of file
 *     and tables SHA-256); and a grade's version has one definition, the
 *     same grade_hash on every day and vintage verified.
 * (4) The inputs a vintage commits to (file format 4, "inputs": every file
 *     ingested by the latest cut-off of its rows) and its rows' receipts
 *     say the same: each row's receipt.batches are exactly the inputs
 *     ingested at or before the row's cut_off (the same pairs of file and
 *     tables SHA-256), each input has a readable stamp, kind, row count
 *     and options.  What an input's name, source and row count are needs
 *     the raw files (`verify --inputs`) or a signature.
 * (5) What format 4 states of every file and row: the licence, the
 *     methodology versions (the rows' methodologies, sorted, once each),
 *     each row's currency and unit (publish/columns.h).
 */
#include "verify/internal.h"
#include "publish/columns.h"
#include "core/vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

gpi_status vday_as_of(verify_dir *v, int32_t day, int64_t seq, int strict, vday **out,
                      gpi_diag *d)
{
    vday *cur = NULL;
    gpi_status rc = vday_get_vintage(v, day, 0, &cur, d);
    if (rc != GPI_OK) return rc;
    *out = cur;
    if (!cur->present) return GPI_OK;
    vday *first = NULL;
    for (int k = cur->n_vintage; k >= 1; k--) {
        vday *dk = NULL;
        rc = vday_get_vintage(v, day, k, &dk, d);
        if (rc != GPI_OK) return rc;
        if (!dk->present) continue;
        if (dk->seq < 0 || dk->seq <= seq) {
            *out = dk;
            return GPI_OK;
        }
        first = dk;
    }
    /* not published then: a day published after the vintage that took its
     * rows (out of order) is checked as first published -- the rows it was
     * computed from, unless late data came between (note 1) */
    if (!strict && first) {
        *out = first;
        return GPI_OK;
    }
    return vday_get_vintage(v, day, -1, out, d);
}

/* ---- the note of a vintage ----------------------------------------------------- */

static void note(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(char *out, size_t cap, const char *fmt, ...)
{
    size_t k = strlen(out);
    if (k + 4 >= cap) return;
    if (k) {
        snprintf(out + k, cap - k, "; ");
        k += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + k, cap - k, fmt, ap);
    va_end(ap);
}

/* ---- note 2: the commitments of a vintage ------------------------------------------ */

typedef struct gl {
    const char *grade, *hash;
} gl;

static int cmp_gl(const void *a, const void *b)
{
    return strcasecmp(((const gl *)a)->grade, ((const gl *)b)->grade);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Note 5: what format 4 states of the whole file and of each row. */
static void check_stated(vday *dy, char *out, size_t cap)
{
    const char *lic = vj_str(dy->root, "license");
    if (!lic || strcmp(lic, PUB_LICENSE) != 0)
        note(out, cap, "index.json license: \"%s\", not %s", lic ? lic : "", PUB_LICENSE);
    /* the rows' methodologies, sorted, once each */
    const char **m = malloc((dy->n_rows + 1) * sizeof *m);
    if (!m) return; /* out of memory: the check not made */
    size_t n = 0;
    for (size_t i = 0; i < dy->n_rows; i++) {
        const char *x = vj_str(dy->rows[i].j, "methodology");
        if (x) m[n++] = x;
    }
    qsort(m, n, sizeof *m, cmp_cstr);
    json_t *mv = json_object_get(dy->root, "methodology_versions");
    size_t k = 0, bad = !json_is_array(mv);
    for (size_t i = 0; i < n && !bad; i++) {
        if (i && strcmp(m[i], m[i - 1]) == 0) continue;
        json_t *x = json_array_get(mv, k++);
        bad = !json_is_string(x) || strcmp(json_string_value(x), m[i]) != 0;
    }
    if (bad || k != json_array_size(mv))
        note(out, cap, "index.json methodology_versions: not the rows' methodologies");
    free(m);
    for (size_t i = 0; i < dy->n_rows; i++) {
        const char *c = vj_str(dy->rows[i].j, "currency"), *u = vj_str(dy->rows[i].j, "unit");
        if (!c || !u || strcmp(c, PUB_CURRENCY) != 0 || strcmp(u, PUB_UNIT) != 0) {
            note(out, cap, "index.json rows[%zu] (%s) currency / unit: \"%s\" per \"%s\", not "
                           "%s per %s",
                 i, dy->rows[i].grade, c ? c : "", u ? u : "", PUB_CURRENCY, PUB_UNIT);
            break;
        }
    }
}

/* Note 4. */
static void check_inputs(vday *dy, char *out, size_t cap)
{
    json_t *in = json_object_get(dy->root, "inputs");
    if (!json_is_array(in)) {
        note(out, cap, "index.json inputs: missing");
        return;
    }
    size_t n = json_array_size(in);
    int64_t *at = malloc((n + 1) * sizeof *at);
    if (!at) return; /* out of memory: the check not made */
    for (size_t i = 0; i < n; i++) {
        json_t *b = json_array_get(in, i);
        const char *sha = vj_str(b, "sha256"), *tab = vj_str(b, "tables_sha256");
        const char *file = vj_str(b, "file"), *src = vj_str(b, "source");
        const char *stamp = vj_str(b, "ingested_at");
        json_t *kind = json_object_get(b, "kind"), *opt = json_object_get(b, "options");
        int64_t rows = -1;
        const char *why = NULL;
        /* file, source and tables_sha256 may be null (schema/index.schema.json) */
        if (!sha || strlen(sha) != 64 || !tab) why = "sha256 / tables_sha256";
        else if (!file || !src) why = "file / source";
        else if (vj_fixed(b, "rows", 0, &rows) || rows < 0) why = "rows";
        else if (!stamp || gpi_time_parse(stamp, &at[i])) why = "ingested_at";
        else if (!kind || !(json_is_null(kind) ||
                            (json_is_string(kind) && (!strcmp(json_string_value(kind), "offers") ||
                                                      !strcmp(json_string_value(kind), "trades")))))
            why = "kind";
        else if (!opt || !(json_is_null(opt) ||
                           (json_is_string(opt) &&
                            !strcmp(json_string_value(opt), "admit-providers"))))
            why = "options";
        if (why) {
            note(out, cap, "index.json inputs[%zu] %s: unreadable", i, why);
            free(at);
            return;
        }
    }
    for (size_t r = 0; r < dy->n_rows; r++) {
        json_t *row = dy->rows[r].j;
        const char *cut = vj_str(row, "cut_off");
        int64_t t;
        if (!cut || gpi_time_parse(cut, &t)) {
            note(out, cap, "index.json rows[%zu] (%s) cut_off: unreadable", r, dy->rows[r].grade);
            break;
        }
        json_t *bs = json_object_get(json_object_get(row, "receipt"), "batches");
        size_t want = 0, got = json_array_size(bs);
        const char *miss = NULL;
        for (size_t i = 0; i < n; i++) {
            if (at[i] > t) continue;
            want++;
            json_t *b = json_array_get(in, i);
            const char *sha = vj_str(b, "sha256"), *tab = vj_str(b, "tables_sha256");
            size_t k = 0;
            for (; k < got; k++) {
                json_t *x = json_array_get(bs, k);
                const char *xs = vj_str(x, "sha256"), *xt = vj_str(x, "tables_sha256");
                if (xs && xt && !strcmp(xs, sha) && !strcmp(xt, tab)) break;
            }
            if (k == got && !miss) miss = sha;
        }
        if (miss || want != got) {
            if (miss)
                note(out, cap, "%s: inputs lists %.12s..., ingested by the row's cut_off %s, "
                               "its receipt.batches do not",
                     dy->rows[r].grade, miss, cut);
            else
                note(out, cap, "%s: receipt.batches lists %zu files, inputs %zu ingested by the "
                               "row's cut_off %s",
                     dy->rows[r].grade, got, want, cut);
            break;
        }
    }
    free(at);
}

static void check_grade_set(vday *dy, char *out, size_t cap)
{
    json_t *without = json_object_get(dy->root, "grades_without_row");
    const char *want = vj_str(dy->root, "grade_set_sha256");
    if (!want || !json_is_array(without)) {
        note(out, cap, "index.json grade_set_sha256: missing");
        return;
    }
    size_t n = dy->n_rows + json_array_size(without), m = 0;
    gl *g = calloc(n + 1, sizeof *g);
    if (!g) return;
    for (size_t i = 0; i < dy->n_rows; i++) {
        const char *h = vj_str(dy->rows[i].j, "grade_hash");
        g[m++] = (gl){dy->rows[i].grade, h ? h : ""};
        if (i && strcasecmp(dy->rows[i - 1].grade, dy->rows[i].grade) >= 0)
            note(out, cap, "index.json rows[%zu]: grade %s out of order or repeated", i,
                 dy->rows[i].grade);
    }
    for (size_t i = 0; i < json_array_size(without); i++) {
        json_t *x = json_array_get(without, i);
        const char *gr = vj_str(x, "grade"), *h = vj_str(x, "grade_hash");
        if (!gr || !h || !*gr) {
            note(out, cap, "index.json grades_without_row[%zu]: no grade or grade_hash", i);
            continue;
        }
        if (vday_row(dy, gr)) note(out, cap, "grades_without_row: %s has a row", gr);
        g[m++] = (gl){gr, h};
    }
    if (m > 1) qsort(g, m, sizeof *g, cmp_gl);
    gpi_sha256 h;
    gpi_sha256_init(&h);
    for (size_t i = 0; i < m; i++) {
        gpi_sha256_update(&h, g[i].grade, strlen(g[i].grade));
        gpi_sha256_update(&h, ",", 1);
        gpi_sha256_update(&h, g[i].hash, strlen(g[i].hash));
        gpi_sha256_update(&h, "\n", 1);
    }
    char got[65];
    gpi_sha256_final(&h, got);
    if (strcmp(got, want) != 0)
        note(out, cap, "grade_set_sha256: the rows' grades and grades_without_row give %.12s..., "
                       "index.json says %.12s... (the day's grade list changed)",
             got, want);
    free(g);
}

/* A link member: {"date"?, "vintage", "index_json_sha256"} or null. */
typedef struct vlink {
    int null;
    int32_t date;               /* INT32_MIN when the link has none */
    int vintage;
    const char *sha;
    const char *bad;            /* why it is unreadable */
} vlink;

static vlink read_link(json_t *root, const char *key, int dated)
{
    vlink l = {0, INT32_MIN, 0, NULL, NULL};
    json_t *x = json_object_get(root, key);
    if (!x) {
        l.bad = "missing";
        return l;
    }
    if (json_is_null(x)) {
        l.null = 1;
        return l;
    }
    int64_t k = 0;
    if (!json_is_object(x) || vj_fixed(x, "vintage", 0, &k) || k < 1 || k > 1000000 ||
        !(l.sha = vj_str(x, "index_json_sha256")) || strlen(l.sha) != 64 ||
        (dated && (vj_date(x, "date", &l.date) || l.date == INT32_MIN))) {
        l.bad = "unreadable";
        return l;
    }
    l.vintage = (int)k;
    return l;
}

static int days_loaded(verify_dir *v, gpi_diag *d)
{
    if (v->all_days_read) return 1;
    if (verify_dir_days(v, &v->all_days, &v->n_all_days, d) != GPI_OK) return 0;
    v->all_days_read = 1;
    return 1;
}

gpi_status vvintage_check(verify_dir *v, vday *dy, char *out, size_t cap, char *partial,
                          size_t pcap, gpi_diag *d)
{
    char date[11];
    gpi_date_format(dy->day, date);
    gpi_status rc = GPI_OK;
    /* the vintage's number: its folder, the file, its rows */
    if (dy->vintage > 0 && dy->n_vintage != dy->vintage)
        note(out, cap, "index.json vintage: %d, in folder v%d", dy->n_vintage, dy->vintage);
    for (size_t i = 0; i < dy->n_rows; i++) {
        int64_t rv = 0;
        if (vj_fixed(dy->rows[i].j, "vintage", 0, &rv) || rv != dy->n_vintage) {
            note(out, cap, "index.json rows[%zu] (%s) vintage: not the file's %d", i,
                 dy->rows[i].grade, dy->n_vintage);
            break;
        }
    }
    if (dy->format < 4) return GPI_OK;
    const char *csv = vj_str(dy->root, "index_csv_sha256");
    if (!csv || strcmp(csv, dy->csv_sha) != 0)
        note(out, cap, "index.csv: its SHA-256 %.12s... differs from index.json's index_csv_sha256 "
                       "(the file changed after publication)",
             dy->csv_sha);
    check_grade_set(dy, out, cap);
    check_inputs(dy, out, cap);
    check_stated(dy, out, cap);
    if (dy->seq < 0) note(out, cap, "index.json sequence: missing");
    /* the vintage before */
    vlink pv = read_link(dy->root, "previous_vintage", 0);
    if (pv.bad) {
        note(out, cap, "index.json previous_vintage: %s", pv.bad);
    } else if (dy->n_vintage <= 1 ? !pv.null : pv.null || pv.vintage != dy->n_vintage - 1) {
        note(out, cap, "previous_vintage: not vintage %d", dy->n_vintage - 1);
    } else if (!pv.null) {
        vday *pk = NULL;
        rc = vday_get_vintage(v, dy->day, pv.vintage, &pk, d);
        if (rc != GPI_OK) return rc;
        if (!pk->present)
            note(out, cap, "previous_vintage: %s/%s/v%d is missing (a vintage deleted)", v->dir,
                 date, pv.vintage);
        else if (strcmp(pk->json_sha, pv.sha) != 0)
            note(out, cap, "previous_vintage: v%d/index.json's SHA-256 %.12s... is not the "
                           "%.12s... this vintage links to (it changed after)",
                 pv.vintage, pk->json_sha, pv.sha);
        else if (pk->seq >= 0 && dy->seq >= 0 && pk->seq >= dy->seq)
            note(out, cap, "sequence: %lld, not after vintage %d's %lld", (long long)dy->seq,
                 pv.vintage, (long long)pk->seq);
    }
    /* the day before, as of this vintage's sequence */
    vlink pd = read_link(dy->root, "previous_day", 1);
    if (pd.bad) {
        note(out, cap, "index.json previous_day: %s", pd.bad);
        return GPI_OK;
    }
    if (!pd.null && pd.date >= dy->day) {
        note(out, cap, "previous_day: not a day before");
        return GPI_OK;
    }
    if (dy->seq < 0 || !days_loaded(v, d)) return dy->seq < 0 ? GPI_OK : GPI_EINPUT;
    /* no day between the link and this one was published before this vintage */
    for (size_t i = v->n_all_days; i-- > 0 && rc == GPI_OK;) {
        int32_t x = v->all_days[i];
        if (x >= dy->day) continue;
        if (!pd.null && x <= pd.date) break;
        vday *xd = NULL;
        rc = vday_as_of(v, x, dy->seq, 1, &xd, d);
        if (rc == GPI_OK && xd->present) {
            char a[11];
            gpi_date_format(x, a);
            note(out, cap, "previous_day: %s, but %s was published before this vintage (vintage "
                           "%d): the link skips it",
                 pd.null ? "none" : "an earlier day", a, xd->n_vintage);
            break;
        }
    }
    if (rc != GPI_OK || pd.null) return rc;
    char a[11];
    gpi_date_format(pd.date, a);
    vday *cur = NULL, *at = NULL, *lk = NULL;
    rc = vday_get_vintage(v, pd.date, 0, &cur, d);
    if (rc == GPI_OK && !cur->present) {
        /* inside DIR's range of days a deleted day; before its first day
         * a day DIR does not have (a folder of the latest days), said */
        if (v->n_all_days && pd.date < v->all_days[0])
            note(partial, pcap, "previous_day %s (vintage %d) not verifiable without %s/%s", a,
                 pd.vintage, v->dir, a);
        else
            note(out, cap, "previous_day: %s/%s is missing (this vintage links to its vintage "
                           "%d: a published day deleted)",
                 v->dir, a, pd.vintage);
        return GPI_OK;
    }
    if (rc == GPI_OK) rc = vday_as_of(v, pd.date, dy->seq, 1, &at, d);
    if (rc == GPI_OK) rc = vday_get_vintage(v, pd.date, pd.vintage, &lk, d);
    if (rc != GPI_OK) return rc;
    if (!lk->present)
        note(out, cap, "previous_day: %s/%s/v%d is missing (a vintage deleted)", v->dir, a,
             pd.vintage);
    else if (strcmp(lk->json_sha, pd.sha) != 0)
        note(out, cap, "previous_day: %s/v%d/index.json's SHA-256 %.12s... is not the %.12s... "
                       "this vintage links to (it changed after)",
             a, pd.vintage, lk->json_sha, pd.sha);
    else if (!at->present || at->n_vintage != pd.vintage)
        note(out, cap, "previous_day: %s vintage %d, but its vintage as of this one is %d", a,
             pd.vintage, at->present ? at->n_vintage : 0);
    else if (lk->seq >= 0 && lk->seq >= dy->seq)
        note(out, cap, "sequence: %lld, not after %s vintage %d's %lld", (long long)dy->seq, a,
             pd.vintage, (long long)lk->seq);
    return GPI_OK;
}

/* ---- note 3: batches and definitions across a day -------------------------------- */

typedef struct bset {
    char (*v)[130];             /* "file_sha,tables_sha" */
    size_t n, cap;
    const char *grade;
    int vintage;
} bset;

static int in_bset(const bset *b, const char *x)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->v[i], x) == 0) return 1;
    return 0;
}

static int subset(const bset *a, const bset *b)
{
    for (size_t i = 0; i < a->n; i++)
        if (!in_bset(b, a->v[i])) return 0;
    return 1;
}

void vday_check_batches(vday *const *ks, size_t nk, char *out, size_t cap)
{
    size_t total = 0;
    for (size_t k = 0; k < nk; k++) total += ks[k]->n_rows;
    bset *s = calloc(total + 1, sizeof *s);
    if (!s) return;
    size_t m = 0;
    int bad = 0;
    for (size_t k = 0; k < nk && !bad; k++)
        for (size_t i = 0; i < ks[k]->n_rows && !bad; i++) {
            bset *b = &s[m++];
            b->grade = ks[k]->rows[i].grade;
            b->vintage = ks[k]->vintage;
            json_t *arr = json_object_get(json_object_get(ks[k]->rows[i].j, "receipt"), "batches");
            for (size_t j = 0; j < json_array_size(arr); j++) {
                json_t *x = json_array_get(arr, j);
                const char *f = vj_str(x, "sha256"), *t = vj_str(x, "tables_sha256");
                if (!f || !t || !*f || strlen(f) > 64 || strlen(t) > 64) {
                    note(out, cap, "v%d %s receipt.batches[%zu]: not a file's SHA-256 and its "
                                   "tables'", b->vintage, b->grade, j);
                    bad = 1;
                    break;
                }
                char key[130];
                snprintf(key, sizeof key, "%s,%s", f, t);
                if (in_bset(b, key)) {
                    note(out, cap, "v%d %s receipt.batches: a file listed twice", b->vintage,
                         b->grade);
                    bad = 1;
                    break;
                }
                if (GPI_VEC_RESERVE(b->v, b->cap, b->n + 1) != 0) {
                    bad = 1;
                    break;
                }
                snprintf(b->v[b->n++], sizeof b->v[0], "%s", key);
            }
        }
    for (size_t i = 0; i < m && !bad; i++)
        for (size_t j = i + 1; j < m && !bad; j++)
            if (!subset(&s[i], &s[j]) && !subset(&s[j], &s[i])) {
                note(out, cap, "receipt.batches: v%d %s and v%d %s list files neither of which "
                               "holds the other's (a day's ingested files only grow with the "
                               "cut-off)",
                     s[i].vintage, s[i].grade, s[j].vintage, s[j].grade);
                bad = 1;
            }
    for (size_t i = 0; i < m; i++) free(s[i].v);
    free(s);
}

void vday_check_definitions(verify_dir *v, const vday *dy, char *out, size_t cap)
{
    for (size_t i = 0; i < dy->n_rows; i++) {
        const vrow *r = &dy->rows[i];
        const char *h = vj_str(r->j, "grade_hash");
        int64_t ver = 0;
        if (!h || strlen(h) != 64 || vj_fixed(r->j, "grade_version", 0, &ver)) continue;
        vdef *x = NULL;
        for (size_t k = 0; k < v->n_defs && !x; k++)
            if (strcasecmp(v->defs[k].grade, r->grade) == 0 && v->defs[k].version == ver)
                x = &v->defs[k];
        if (!x) {
            if (GPI_VEC_RESERVE(v->defs, v->cap_defs, v->n_defs + 1) != 0) return;
            x = &v->defs[v->n_defs++];
            snprintf(x->grade, sizeof x->grade, "%s", r->grade);
            x->version = ver;
            snprintf(x->hash, sizeof x->hash, "%s", h);
            x->day = dy->day;
            continue;
        }
        if (strcmp(x->hash, h) != 0) {
            char a[11];
            gpi_date_format(x->day, a);
            note(out, cap, "%s grade_hash: version %lld of %s is defined otherwise on %s (%.12s..., "
                           "here %.12s...): one version, one definition",
                 r->grade, (long long)ver, r->grade, a, x->hash, h);
        }
    }
}
