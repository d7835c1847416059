/* verify/inputs.c -- `gpuidx verify --inputs RAW`: the published
 * observations checked against the raw files a vintage commits to
 * (METHODOLOGY.md §7.1 and §7.2; the commitment is publish/commit.c).
 *
 * NOTES ON THE DESIGN
 * (1) Receipts tie a fix to the observations.csv it published, not to
 *     what was received: a day published with a provider's rows left out
 *     of the database, its receipts and fixes recomputed, verifies ok.
 *     Index.json of file format 4 therefore lists every ingested file the
 *     day's fixes could see ("inputs": SHA-256, rows, the second it
 *     counts as ingested, source, kind, tables, options) and each row's
 *     cut-off.  This file re-ingests those files, found in RAW by their
 *     SHA-256 (each file of RAW hashed once, decompressed as ingest reads
 *     it), into a scratch store, gives each batch its committed stamp,
 *     and lists each row's observations again as a publication at the
 *     row's cut-off would (publish/pub_obs_lines: the same code).  The
 *     grade's published lines must be exactly those: a line missing is
 *     an eligible observation dropped, a line too many one that no
 *     committed file holds; either is named with its text.
 * (2) The comparison is of the lines' first 13 fields (date ... reason):
 *     which observations, with which role and exclusion reason.  The v2
 *     columns after them (matched, reference and base prices, relative)
 *     come from other days and are recomputed by plain verify from those
 *     days' published files, each of which --inputs checks in turn.  A
 *     methodology v3 row's roles (used, candidate) follow its panel, read
 *     from its index.json (v3.panel: each group's role and days present);
 *     its imputed members' lines (imputed 1) are another day's
 *     observations, checked by plain verify against that day's files, and
 *     are left out here.
 * (3) Files are re-ingested in the order of their stamps over every day
 *     verified (verify_inputs_prepare), once each: a row of a later file
 *     that conflicts with a stored one is refused, as it was when it was
 *     first ingested.  The tables (data/ gpus, providers, tiers, fx) must
 *     be those each file was read with (tables_sha256); else the day is
 *     not verifiable and says which tables it needs.
 * (4) What cannot be checked is said, not failed: a committed file RAW
 *     does not hold, or a day of file format 3 (no commitment).  --strict
 *     counts those as failures.  A file of RAW that no verified day
 *     commits to is counted (it may have been ingested after the days'
 *     cut-offs, or withheld: only the stamps of committed files are
 *     known).
 * (5) RAW is walked following symbolic links, to files and to folders
 *     (a raw archive is often a folder of links to where the feeds land):
 *     a file is known by its bytes' SHA-256, wherever it lies.  The
 *     limits: each folder is walked once (by device and inode, so a loop
 *     of links ends), at most 16 levels down, a dangling link or an
 *     unreadable file is no file, and the same bytes found twice are
 *     one file (the first path walked names it).  A link that leaves RAW is followed
 *     too: the commitment is to the bytes, not to the place.
 * (6) A row's stale share (METHODOLOGY.md §12.1) and a grade's fresh-input
 *     rule (max_unchanged_days M) read the identities' prices of earlier
 *     days: IDX_STALE_DAYS + IDX_AGE_SLACK days back, M + IDX_AGE_SLACK
 *     for such a grade.  verify_inputs_prepare therefore also ingests the
 *     files committed by the days DIR publishes within that look back of
 *     the verified days, and the share is recomputed (inputs_stale.c).
 *     The look back of a day is complete when every one of its days (from
 *     the first day any ingested file holds: before it there was nothing
 *     to see) has some committed file in the scratch store and, where DIR
 *     publishes the day, all of that day's committed files were found: else a
 *     difference that the missing days could explain (the stale share,
 *     the lines of a grade with M) is said, not failed (--strict fails
 *     it).  A day of the look back whose file was withheld while another
 *     file covers it cannot be told from a complete one.
 */
#include "verify/internal.h"
#include "verify/inputs_stale.h"
#include "ingest/ingest.h"
#include "load/load.h"
#include "publish/columns.h"
#include "publish/publish.h"
#include "store/admin.h"
#include "store/chain_states.h"
#include "index/v3.h"
#include "index/stale.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct dir_id {
    dev_t dev;
    ino_t ino;
} dir_id;

typedef struct raw_file {
    char *path;
    char sha[65];
    int used;          /* committed by a verified day */
    int ingested;      /* in the scratch store */
    long rows;         /* rows read when ingested */
    char why[300];     /* why it could not be ingested, "" none */
} raw_file;

struct verify_inputs {
    raw_file *f;
    size_t n, cap;
    ingest_tables *tables;
    char tmpdir[4096];
    int made;          /* tmpdir was created (and is removed on close) */
    store *st;
    int prepared;
    dir_id *dirs;      /* the folders walked (note 5) */
    size_t n_dirs, cap_dirs;
    int lookback;      /* days before a verified day whose files are ingested (note 6) */
};


/* ---- RAW's files by SHA-256 ---------------------------------------------------- */

/* Adds the regular files under path (recursively, symbolic links
 * followed: note 5) with their SHA-256; 1 when out of memory. */
static int walk(verify_inputs *vi, const char *path, int depth)
{
    struct stat self;
    if (stat(path, &self) != 0) return 0;
    for (size_t i = 0; i < vi->n_dirs; i++) /* a folder seen already: a loop of links */
        if (vi->dirs[i].dev == self.st_dev && vi->dirs[i].ino == self.st_ino) return 0;
    if (vi->n_dirs == vi->cap_dirs) {
        size_t cap = vi->cap_dirs ? 2 * vi->cap_dirs : 16;
        dir_id *p = realloc(vi->dirs, cap * sizeof *p);
        if (!p) return 1;
        vi->dirs = p;
        vi->cap_dirs = cap;
    }
    vi->dirs[vi->n_dirs++] = (dir_id){self.st_dev, self.st_ino};
    DIR *dp = opendir(path);
    if (!dp) return 0;
    struct dirent *e;
    int bad = 0;
    while (!bad && (e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[4096];
        if (snprintf(p, sizeof p, "%s/%s", path, e->d_name) >= (int)sizeof p) continue;
        struct stat sb;
        if (stat(p, &sb) != 0) continue; /* a dangling link: no file */
        if (S_ISDIR(sb.st_mode)) {
            if (depth < 16) bad = walk(vi, p, depth + 1);
            continue;
        }
        if (!S_ISREG(sb.st_mode)) continue;
        if (vi->n == vi->cap) {
            size_t cap = vi->cap ? 2 * vi->cap : 64;
            raw_file *f = realloc(vi->f, cap * sizeof *f);
            if (!f) {
                bad = 1;
                break;
            }
            vi->f = f;
            vi->cap = cap;
        }
        raw_file *r = &vi->f[vi->n];
        memset(r, 0, sizeof *r);
        gpi_diag d = {{0}};
        if (ingest_file_sha256(p, r->sha, &d) != GPI_OK) continue; /* unreadable: no input */
        int seen = 0; /* the same bytes twice (two links to one file): one input */
        for (size_t i = 0; i < vi->n && !seen; i++) seen = strcmp(vi->f[i].sha, r->sha) == 0;
        if (seen) continue;
        if (!(r->path = strdup(p))) bad = 1;
        else vi->n++;
    }
    closedir(dp);
    return bad;
}

gpi_status verify_inputs_open(const char *raw_dir, const char *data_dir, verify_inputs **out,
                              gpi_diag *d)
{
    *out = NULL;
    struct stat sb;
    if (stat(raw_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gpi_diag_set(d, GPI_EUSAGE, "--inputs %s: not a folder", raw_dir);
    verify_inputs *vi = calloc(1, sizeof *vi);
    if (!vi) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    gpi_status rc = ingest_tables_load(data_dir, &vi->tables, d);
    if (rc == GPI_OK && walk(vi, raw_dir, 0)) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    const char *tmp = getenv("TMPDIR");
    snprintf(vi->tmpdir, sizeof vi->tmpdir, "%s/gpuidx-inputs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (rc == GPI_OK && !(vi->made = mkdtemp(vi->tmpdir) != NULL))
        rc = gpi_diag_set(d, GPI_EIO, "%s: cannot make a scratch folder", vi->tmpdir);
    if (rc == GPI_OK) {
        char path[4200];
        snprintf(path, sizeof path, "%s/scratch.db", vi->tmpdir);
        rc = store_open(path, &vi->st, d);
    }
    if (rc != GPI_OK) {
        verify_inputs_close(vi);
        return rc;
    }
    *out = vi;
    return GPI_OK;
}

void verify_inputs_close(verify_inputs *vi)
{
    if (!vi) return;
    store_close(vi->st);
    if (vi->made) {
        static const char *const left[] = {"scratch.db", "scratch.db-wal", "scratch.db-shm",
                                           "scratch.db.lock", "scratch.db-journal"};
        char path[4200];
        for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", vi->tmpdir, left[i]);
            unlink(path);
        }
        rmdir(vi->tmpdir);
    }
    for (size_t i = 0; i < vi->n; i++) free(vi->f[i].path);
    free(vi->f);
    free(vi->dirs);
    ingest_tables_free(vi->tables);
    free(vi);
}

static raw_file *find_raw(verify_inputs *vi, const char *sha)
{
    for (size_t i = 0; i < vi->n; i++)
        if (strcmp(vi->f[i].sha, sha) == 0) return &vi->f[i];
    return NULL;
}

size_t verify_inputs_unused(const verify_inputs *vi, size_t *n_files)
{
    size_t k = 0;
    for (size_t i = 0; i < vi->n; i++) k += !vi->f[i].used;
    if (n_files) *n_files = vi->n;
    return k;
}

/* ---- re-ingest (note 3) -------------------------------------------------------- */

typedef struct commit {
    json_t *b;         /* the batch object of index.json */
    int64_t at;        /* ingested_at */
    size_t order;
} commit;

static int cmp_commit(const void *a, const void *b)
{
    const commit *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static const char *jstr(json_t *o, const char *k)
{
    json_t *x = json_object_get(o, k);
    return json_is_string(x) ? json_string_value(x) : NULL;
}

static gpi_status ingest_one(verify_inputs *vi, raw_file *r, json_t *b, int64_t at, gpi_diag *d)
{
    const char *tables = jstr(b, "tables_sha256"), *kind = jstr(b, "kind");
    const char *source = jstr(b, "source"), *options = jstr(b, "options");
    const char *mine = ingest_tables_sha256(vi->tables);
    if (tables && strcmp(tables, mine) != 0) {
        snprintf(r->why, sizeof r->why, "%s was read with tables %.16s..., --data has %.16s... "
                 "(give --data the tables it was read with)", r->path, tables, mine);
        return GPI_OK;
    }
    ingest_opts in = {r->path, kind && strcmp(kind, "trades") == 0   ? GPI_TRADE
                               : kind && strcmp(kind, "offers") == 0 ? GPI_OFFER
                                                                     : -1,
                      source, 0, options && strstr(options, "admit-providers") != NULL, 0,
                      /* the file's SHA-256 is the one committed: every line of it was read
                       * (a final line held back is outside the hash, ingest.c note 5) */
                      1};
    load_opts lo = {kind, NULL, NULL};
    load_result res;
    gpi_diag e = {{0}};
    gpi_status rc = load_file(vi->st, vi->tables, &in, &lo, NULL, &res, &e);
    if (rc != GPI_OK) {
        snprintf(r->why, sizeof r->why, "%s", e.msg);
        return rc == GPI_ENOMEM || rc == GPI_ESTORE ? gpi_diag_set(d, rc, "%s", e.msg) : GPI_OK;
    }
    r->ingested = 1;
    r->rows = res.n.read;
    if (res.outcome == LOAD_STORED) rc = store_batch_restamp(vi->st, res.batch, at, d);
    return rc;
}

/* The look back of a row (note 6): IDX_STALE_DAYS + IDX_AGE_SLACK days,
 * or its grade's max_unchanged_days + IDX_AGE_SLACK when longer. */
static int row_lookback(json_t *row)
{
    int lb = IDX_STALE_DAYS + IDX_AGE_SLACK;
    const char *canon = vj_str(row, "grade_definition");
    json_t *g = canon ? json_loads(canon, 0, NULL) : NULL;
    json_t *m = json_object_get(g, "max_unchanged_days");
    if (json_is_integer(m) && json_integer_value(m) > 0 && json_integer_value(m) < 100000 &&
        json_integer_value(m) + IDX_AGE_SLACK > lb)
        lb = (int)json_integer_value(m) + IDX_AGE_SLACK;
    json_decref(g);
    return lb;
}

/* The verified days and the days DIR publishes within the look back
 * before them (note 6), into *all (malloc'd). */
static gpi_status with_lookback(verify_inputs *vi, verify_dir *v, const int32_t *days, size_t n,
                                int32_t **all, size_t *n_all, gpi_diag *d)
{
    *all = NULL;
    *n_all = 0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    gpi_status rc = GPI_OK;
    for (size_t k = 0; k < n && rc == GPI_OK; k++) {
        vday *dy;
        rc = vday_get(v, days[k], &dy, d);
        if (rc != GPI_OK || !dy->present) continue;
        for (size_t i = 0; i < dy->n_rows; i++) {
            int lb = row_lookback(dy->rows[i].j);
            if (lb > vi->lookback) vi->lookback = lb;
        }
        if (days[k] < lo) lo = days[k];
        if (days[k] > hi) hi = days[k];
    }
    int32_t *pub = NULL;
    size_t np = 0;
    if (rc == GPI_OK && lo <= hi) rc = verify_dir_days(v, &pub, &np, d);
    if (rc != GPI_OK) return rc;
    int32_t *a = malloc((n + np + 1) * sizeof *a);
    if (!a) {
        free(pub);
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    memcpy(a, days, n * sizeof *a);
    size_t m = n;
    for (size_t k = 0; k < np; k++)
        if (pub[k] >= lo - vi->lookback && pub[k] <= hi) a[m++] = pub[k];
    free(pub);
    *all = a;
    *n_all = m;
    return GPI_OK;
}

gpi_status verify_inputs_prepare(verify_inputs *vi, verify_dir *v, const int32_t *vdays, size_t vn,
                                 gpi_diag *d)
{
    commit *c = NULL;
    size_t nc = 0, cap = 0;
    int32_t *days = NULL;
    size_t n = 0;
    gpi_status rc = with_lookback(vi, v, vdays, vn, &days, &n, d);
    for (size_t k = 0; k < n && rc == GPI_OK; k++) {
        vday *dy;
        rc = vday_get(v, days[k], &dy, d);
        if (rc != GPI_OK || !dy->present) continue;
        json_t *in = json_object_get(dy->root, "inputs");
        size_t i;
        json_t *b;
        json_array_foreach(in, i, b) {
            const char *sha = jstr(b, "sha256"), *at_s = jstr(b, "ingested_at");
            int64_t at;
            raw_file *r = sha ? find_raw(vi, sha) : NULL;
            if (!r || !at_s || gpi_time_parse(at_s, &at)) continue; /* said per day */
            r->used = 1;
            if (nc == cap) {
                cap = cap ? 2 * cap : 64;
                commit *p = realloc(c, cap * sizeof *p);
                if (!p) {
                    rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
                    break;
                }
                c = p;
            }
            c[nc] = (commit){b, at, nc};
            nc++;
        }
    }
    if (nc > 1) qsort(c, nc, sizeof *c, cmp_commit);
    for (size_t i = 0; i < nc && rc == GPI_OK; i++) {
        raw_file *r = find_raw(vi, jstr(c[i].b, "sha256"));
        if (r->ingested || r->why[0]) continue;
        rc = ingest_one(vi, r, c[i].b, c[i].at, d);
    }
    free(c);
    free(days);
    vi->prepared = 1;
    return rc;
}

/* ---- the comparison (notes 1 and 2) -------------------------------------------- */

/* The first 13 fields of each line of text (malloc'd copies), in order. */
typedef struct lines13 {
    char **v;
    long *line;        /* the line's number in its file (0: regenerated) */
    size_t n, cap;
} lines13;

static void lines_free(lines13 *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    free(l->line);
    memset(l, 0, sizeof *l);
}

/* Splits text at LFs outside quotes; keeps the lines whose second field is
 * grade (NULL: all), cut after their 13th field; with skip_imputed, not the
 * lines whose `imputed` field (file format 4, publish/columns.c) is 1. */
static int lines_of(const char *text, size_t len, const char *grade, long first_line,
                    int skip_imputed, lines13 *out)
{
    int imp = -1;
    for (size_t c = 0; c < pub_observations_csv.n; c++)
        if (strcmp(pub_observations_csv.cols[c].name, "imputed") == 0) imp = (int)c;
    size_t i = 0;
    long ln = first_line;
    while (i < len) {
        size_t a = i, cut = 0;
        int q = 0, k = 0;
        size_t g0 = 0, g1 = 0, m0 = 0, m1 = 0;
        for (; i < len && (q || text[i] != '\n'); i++) {
            if (text[i] == '"') q = !q;
            else if (!q && text[i] == ',') {
                k++;
                if (k == 1) g0 = i + 1;
                if (k == 2) g1 = i;
                if (k == 13 && !cut) cut = i;
                if (k == imp) m0 = i + 1;
                if (k == imp + 1) m1 = i;
            }
        }
        if (!cut) cut = i;
        if (m0 && !m1) m1 = i;
        int keep = !grade || (g1 > g0 && strlen(grade) == g1 - g0 &&
                              strncmp(text + g0, grade, g1 - g0) == 0);
        if (skip_imputed && m0 && m1 == m0 + 1 && text[m0] == '1') keep = 0;
        if (keep) {
            if (out->n == out->cap) {
                size_t cap = out->cap ? 2 * out->cap : 64;
                char **v = realloc(out->v, cap * sizeof *v);
                if (!v) return 1;
                out->v = v;
                long *l = realloc(out->line, cap * sizeof *l);
                if (!l) return 1;
                out->line = l;
                out->cap = cap;
            }
            out->v[out->n] = strndup(text + a, cut - a);
            if (!out->v[out->n]) return 1;
            out->line[out->n++] = ln;
        }
        i++;
        ln++;
    }
    return 0;
}

/* A v3 row's panel as the stored detail has it (index/v3_detail.c), for
 * the roles of its lines (design note 2): each group's role and days
 * present from index.json's v3.panel; no index references, no imputed
 * lines.  NULL when the row has none (malloc'd). */
static char *v3_roles(json_t *row)
{
    json_t *panel = json_object_get(json_object_get(row, "v3"), "panel");
    if (!json_is_array(panel)) return NULL;
    json_t *root = json_object(), *groups = json_array();
    size_t k;
    json_t *x;
    json_array_foreach(panel, k, x) {
        const char *name = vj_str(x, "group"), *role = vj_str(x, "role");
        int64_t present = 0;
        int r = -1;
        for (int c = IDX_V3_MEMBER; c <= IDX_V3_LEFT && role; c++)
            if (strcmp(role, idx_v3_role_name(c)) == 0) r = c;
        if (!name || r < 0 || vj_fixed(x, "present_days", 0, &present)) {
            json_decref(groups);
            json_decref(root);
            return NULL;
        }
        json_array_append_new(groups, json_pack("[s,i,I,i,i,i,i]", name, r, (json_int_t)present,
                                                -1, -1, 0, 0));
    }
    json_object_set_new(root, "groups", groups);
    json_object_set_new(root, "refs", json_array());
    json_object_set_new(root, "imputed", json_array());
    char *s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return s;
}

typedef struct sorted {
    const char *s;
    long line;
} sorted;

static int cmp_sorted(const void *a, const void *b)
{
    return strcmp(((const sorted *)a)->s, ((const sorted *)b)->s);
}

/* Compares the multisets: the first line missing from pub and the first
 * line of pub not in want, into out; 0 when equal. */
static int compare(const lines13 *pub, const lines13 *want, char *out, size_t cap)
{
    sorted *a = malloc((pub->n + 1) * sizeof *a), *b = malloc((want->n + 1) * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        snprintf(out, cap, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < pub->n; i++) a[i] = (sorted){pub->v[i], pub->line[i]};
    for (size_t i = 0; i < want->n; i++) b[i] = (sorted){want->v[i], 0};
    qsort(a, pub->n, sizeof *a, cmp_sorted);
    qsort(b, want->n, sizeof *b, cmp_sorted);
    size_t i = 0, j = 0, missing = 0, extra = 0;
    const sorted *m = NULL, *x = NULL;
    while (i < pub->n || j < want->n) {
        int c = i == pub->n ? 1 : j == want->n ? -1 : strcmp(a[i].s, b[j].s);
        if (c == 0) {
            i++;
            j++;
        } else if (c < 0) { /* published, not eligible */
            if (!x) x = &a[i];
            extra++;
            i++;
        } else { /* eligible, not published */
            if (!m) m = &b[j];
            missing++;
            j++;
        }
    }
    int bad = missing || extra;
    if (missing && extra)
        snprintf(out, cap, "inputs: %zu eligible observation%s not published, first \"%.200s\"; "
                 "%zu published not eligible, first observations.csv:%ld \"%.200s\"",
                 missing, missing == 1 ? "" : "s", m->s, extra, x->line, x->s);
    else if (missing)
        snprintf(out, cap, "inputs: %zu eligible observation%s of the committed files not "
                 "published (dropped), first \"%.300s\"", missing, missing == 1 ? "" : "s", m->s);
    else if (extra)
        snprintf(out, cap, "inputs: observations.csv:%ld is in no committed file at the row's "
                 "cut-off (added): \"%.300s\"%s", x->line, x->s,
                 extra > 1 ? " and more" : "");
    free(a);
    free(b);
    return bad;
}

static int count_input(const store_input *b, void *ud)
{
    (void)b;
    ++*(long *)ud;
    return 0;
}

/* Note 6: the latest day of the look back of day (vi->lookback days)
 * that is not complete, into *gap (INT32_MIN: none), and why. */
static gpi_status lookback_gap(verify_inputs *vi, verify_dir *v, int32_t day, int32_t *gap,
                               char *why, size_t cap, gpi_diag *d)
{
    *gap = INT32_MIN;
    int32_t first = INT32_MAX; /* days before every file's first are no gap */
    gpi_status frc = store_obs_first_day(vi->st, &first, d);
    if (frc != GPI_OK) return frc;
    for (int32_t k = day - 1; k >= day - vi->lookback && k >= first && *gap == INT32_MIN; k--) {
        vday *dy;
        gpi_status rc = vday_get(v, k, &dy, d);
        if (rc != GPI_OK) return rc;
        if (dy->present) {
            json_t *in = json_object_get(dy->root, "inputs");
            size_t i;
            json_t *b;
            json_array_foreach(in, i, b) {
                const char *sha = jstr(b, "sha256");
                raw_file *f = sha ? find_raw(vi, sha) : NULL;
                if (!f || !f->ingested) {
                    *gap = k;
                    snprintf(why, cap, "commits to %s, not in --inputs",
                             jstr(b, "file") ? jstr(b, "file") : "a file");
                    break;
                }
            }
        }
        long n = 0;
        if (*gap == INT32_MIN) rc = store_day_inputs(vi->st, k, INT64_MAX, count_input, &n, d);
        if (rc != GPI_OK) return rc;
        if (*gap == INT32_MIN && n == 0) {
            *gap = k;
            snprintf(why, cap, "is in no file of --inputs");
        }
    }
    return GPI_OK;
}

static void mark(verify_result *g, int status, const char *text)
{
    if (status == VERIFY_DIFFERS) {
        size_t n = strlen(g->differs);
        snprintf(g->differs + n, sizeof g->differs - n, "%s%s", n ? "; " : "", text);
        g->status = VERIFY_DIFFERS;
    } else {
        size_t n = strlen(g->unverified);
        snprintf(g->unverified + n, sizeof g->unverified - n, "%s%s", n ? "; " : "", text);
        if (g->status == VERIFY_OK) g->status = VERIFY_PARTIAL;
    }
}

/* The result of grade in the latest vintage, or NULL. */
static verify_result *latest_result(verify_day_report *r, const char *grade)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->g[i].latest && strcmp(r->g[i].grade, grade) == 0) return &r->g[i];
    return NULL;
}

gpi_status verify_inputs_day(verify_inputs *vi, verify_dir *v, int32_t day, verify_day_report *r,
                             gpi_diag *d)
{
    vday *dy;
    gpi_status rc = vday_get(v, day, &dy, d);
    if (rc != GPI_OK) return rc;
    if (!dy->present) return GPI_OK;
    if (!vi->prepared) rc = verify_inputs_prepare(vi, v, &day, 1, d);
    if (rc == GPI_OK) rc = vday_obs(dy, d);
    if (rc != GPI_OK) return rc;
    if (dy->format < 4) {
        for (size_t i = 0; i < r->n; i++)
            if (r->g[i].latest)
                mark(&r->g[i], VERIFY_PARTIAL,
                     "inputs not committed (file format 3: no inputs list)");
        return GPI_OK;
    }
    /* every committed file must be in RAW, ingested, with its rows */
    char why[700] = "";
    int differs = 0;
    json_t *in = json_object_get(dy->root, "inputs");
    size_t k;
    json_t *b;
    json_array_foreach(in, k, b) {
        const char *sha = jstr(b, "sha256"), *file = jstr(b, "file");
        int64_t rows = -1;
        vj_fixed(b, "rows", 0, &rows);
        raw_file *f = sha ? find_raw(vi, sha) : NULL;
        if (!f) {
            snprintf(why, sizeof why, "inputs: %s (SHA-256 %.12s..., %lld rows) not in --inputs",
                     file ? file : "?", sha ? sha : "?", (long long)rows);
            break;
        }
        if (f->why[0]) {
            snprintf(why, sizeof why, "inputs: %s", f->why);
            break;
        }
        if (f->ingested && rows >= 0 && f->rows != rows) {
            snprintf(why, sizeof why, "inputs: %s has %ld rows, index.json commits to %lld",
                     f->path, f->rows, (long long)rows);
            differs = 1;
            break;
        }
    }
    if (why[0]) {
        for (size_t i = 0; i < r->n; i++)
            if (r->g[i].latest) mark(&r->g[i], differs ? VERIFY_DIFFERS : VERIFY_PARTIAL, why);
        return GPI_OK;
    }
    /* note 6: the latest day of the look back that is not complete */
    int32_t gap = INT32_MIN;
    char gap_why[100] = "";
    rc = lookback_gap(vi, v, day, &gap, gap_why, sizeof gap_why, d);
    if (rc != GPI_OK) return rc;
    /* the published lines, after the header (line 1): verify_day has
     * hashed the text and let it go (files.c note 3); read again, they
     * must be the bytes hashed */
    char *obs_text = NULL;
    size_t obs_len = 0;
    char path[4200], sha[65];
    snprintf(path, sizeof path, "%s/observations.csv", dy->path);
    rc = vfile_read(path, dy->max_file, &obs_text, &obs_len, d);
    if (rc != GPI_OK) return rc;
    gpi_sha256_hex(obs_text, obs_len, sha);
    if (dy->receipts && strcmp(sha, dy->obs_sha) != 0) {
        free(obs_text);
        return gpi_diag_set(d, GPI_EINPUT, "%s: changed while it was verified", path);
    }
    const char *nl = memchr(obs_text, '\n', obs_len);
    const char *body = nl ? nl + 1 : "";
    size_t body_len = nl ? obs_len - (size_t)(body - obs_text) : 0;
    /* each row of the current files, with its result in the report (of
     * the latest vintage: verify.c checks every kept one) */
    for (size_t i = 0; i < dy->n_rows && rc == GPI_OK; i++) {
        vrow *row = &dy->rows[i];
        verify_result *res = latest_result(r, row->grade);
        if (!res) continue;
        const char *canon = vj_str(row->j, "grade_definition"), *cut = vj_str(row->j, "cut_off");
        const char *lvl = vj_str(row->j, "level");
        int64_t as_of;
        idx_grades *gs = NULL;
        gpi_diag e = {{0}};
        if (!canon || !cut || !lvl || gpi_time_parse(cut, &as_of) ||
            idx_grade_from_canon(canon, "grade_definition", &gs, &e) != GPI_OK) {
            mark(res, VERIFY_DIFFERS, "inputs: the row has no readable grade_definition, "
                                      "level or cut_off");
            continue;
        }
        int v3 = gs->g[0].method == 3;
        char *roles = v3 ? v3_roles(row->j) : NULL;
        if (v3 && !roles) {
            mark(res, VERIFY_DIFFERS, "inputs: the v3 row has no readable v3.panel");
            idx_grades_free(gs);
            continue;
        }
        /* no stored roles: the day is fixed again, as a recomputation */
        idx_detail lv = {gpi_level_parse(lvl), INT32_MIN, INT32_MIN, roles, NULL};
        const char *xl = vj_str(row->j, "xs_level");
        int xs_level = xl ? gpi_level_parse(xl) : lv.level;
        char *text = NULL;
        size_t len = 0;
        int64_t share = -1;
        long n_stale = 0, n_groups = 0;
        rc = pub_obs_lines_stale(vi->st, day, &gs->g[0], &lv, as_of, xs_level, &text, &len,
                                 &share, &n_stale, &n_groups, d);
        free(roles);
        /* note 6: whether the look back could explain a difference */
        int incomplete = gap != INT32_MIN && gap >= day - row_lookback(row->j);
        char gap_words[160] = "";
        if (incomplete) {
            char gd[11];
            gpi_date_format(gap, gd);
            snprintf(gap_words, sizeof gap_words, " (not verifiable: the look back is "
                     "incomplete, %s %s)", gd, gap_why);
        }
        lines13 want = {0}, pub = {0};
        if (rc == GPI_OK && (lines_of(text ? text : "", len, NULL, 0, 0, &want) ||
                             lines_of(body, body_len, row->grade, 2, v3, &pub)))
            rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        char diff[900];
        int lines_differ = rc == GPI_OK && compare(&pub, &want, diff, 700);
        if (lines_differ && incomplete && gs->g[0].p.max_unchanged_days > 0) {
            strcat(diff, gap_words);
            mark(res, VERIFY_PARTIAL, diff);
        } else if (lines_differ) {
            mark(res, VERIFY_DIFFERS, diff);
        }
        /* the stale share and the flag that reads it (inputs_stale.c); a
         * v3 row's imputed members' lines are another day's (note 2) */
        if (rc == GPI_OK && !lines_differ && !(v3 && pub.n != row->n_obs)) {
            rc = vinputs_stale_compare(dy, row, &gs->g[0], share, n_stale, n_groups, diff, 700, d);
            if (rc == GPI_OK && diff[0]) {
                if (incomplete) strcat(diff, gap_words);
                mark(res, incomplete ? VERIFY_PARTIAL : VERIFY_DIFFERS, diff);
            }
        } else if (rc == GPI_OK && !lines_differ) {
            mark(res, VERIFY_PARTIAL, "inputs: stale_share not recomputed (its imputed "
                                      "members' lines are another day's)");
        }
        free(text);
        lines_free(&want);
        lines_free(&pub);
        idx_grades_free(gs);
    }
    free(obs_text);
    return rc;
}
