/* tests/test_e2e_detail.c -- what a published row says it was computed
 * from: its lines of observations.csv and its receipt's batches (SPEC §7,
 * METHODOLOGY.md §7.1, §10.6), checked through the binary.
 *
 * observations.csv lists exactly the observations each published fix was
 * computed from, checked against the stored observations read
 * independently with SQL.  The property, per published day and grade: the grade's lines are the
 * day's trades of the grade and, of each offer key, its latest snapshot of
 * the day when that snapshot is of the grade (an earlier snapshot is never
 * listed) -- for a methodology v2 grade all of them; for a v1 grade those
 * of the row's level and, of the other kind, only excluded ones.  Each
 * observation appears once per grade it belongs to, grades overlap, and a
 * grade's lines are in (identity hash, time) order.  The expected lines
 * come from observations_readable (the stored rows as text) filtered here
 * by the grades' GPU, term and covers, not from the index code.
 *
 * The market is the simulator's (several snapshots of an offer a day,
 * cancelled and affiliate trades, fat fingers); day.c reads a day once
 * for both the fix and this list (its note 5), which this pins.
 */
#include "tests/testutil.h"
#include "core/gpi.h"
#include "core/obs.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_DAYS = 4 };

static const char grades_json[] =
    "{\"grades\": [\n"
    " {\"id\": \"T.H100.OD\", \"method\": \"v2\", \"gpu\": [\"H100-SXM-80GB\"],"
    " \"term\": \"on-demand\", \"covers\": [\"instance\"]},\n"
    " {\"id\": \"T.H100.SPOT\", \"method\": \"v2\", \"gpu\": [\"H100-SXM-80GB\"],"
    " \"term\": \"spot\"},\n"
    " {\"id\": \"T.HOPPER.OD\", \"method\": \"v2\", \"gpu\": [\"H100-SXM-80GB\", \"H200-SXM-141GB\"],"
    " \"term\": \"on-demand\"},\n"
    " {\"id\": \"T.H100.V1\", \"gpu\": [\"H100-SXM-80GB\"], \"term\": \"on-demand\","
    " \"covers\": [\"instance\"]}\n"
    "]}\n";

/* The same grades, as the test's own filter. */
static const struct grade {
    const char *id;
    const char *gpu[2];
    const char *term;
    const char *covers; /* NULL: any */
    int v1;
} grades[] = {
    {"T.H100.OD", {"H100-SXM-80GB", NULL}, "on-demand", "instance", 0},
    {"T.H100.SPOT", {"H100-SXM-80GB", NULL}, "spot", NULL, 0},
    {"T.HOPPER.OD", {"H100-SXM-80GB", "H200-SXM-141GB"}, "on-demand", NULL, 0},
    {"T.H100.V1", {"H100-SXM-80GB", NULL}, "on-demand", "instance", 1},
};
enum { N_GRADES = sizeof grades / sizeof grades[0] };

/* One listed (or expected) observation: "kind,observed_at,key,price". */
typedef struct strs {
    char **v;
    size_t n, cap;
} strs;

static void push(strs *s, const char *t)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        assert_non_null(s->v);
    }
    s->v[s->n] = strdup(t);
    assert_non_null(s->v[s->n]);
    s->n++;
}

static void strs_free(strs *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fails unless got and want hold the same strings, as many times each. */
static void same_set(strs *got, strs *want, const char *what)
{
    if (got->n > 1) qsort(got->v, got->n, sizeof *got->v, cmp_str);
    if (want->n > 1) qsort(want->v, want->n, sizeof *want->v, cmp_str);
    size_t i = 0, j = 0;
    while (i < got->n || j < want->n) {
        int c = i == got->n ? 1 : j == want->n ? -1 : strcmp(got->v[i], want->v[j]);
        if (c < 0) fail_msg("%s: listed but not expected: %s", what, got->v[i]);
        if (c > 0) fail_msg("%s: expected but not listed: %s", what, want->v[j]);
        i++;
        j++;
    }
}

/* Splits a CSV line (quotes as core/csv.c writes them) into at most max
 * fields, in place; returns the count. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        char *out = p;
        f[n++] = out;
        int q = 0;
        for (;; p++) {
            if (*p == '"') {
                if (q && p[1] == '"') {
                    *out++ = '"';
                    p++;
                } else {
                    q = !q;
                }
            } else if ((*p == ',' && !q) || *p == '\0') {
                break;
            } else {
                *out++ = *p;
            }
        }
        int end = *p == '\0';
        *out = '\0';
        if (end) break;
        p++;
    }
    return n;
}

/* A stored observation of the day, as observations_readable shows it. */
typedef struct obs_row {
    char kind[8], at[21], key[17], price[32], gpu[64], term[16], covers[16];
    int64_t key_hash;
    int latest; /* offers: the key's latest snapshot of the day */
} obs_row;

static obs_row *read_day(const char *db_path, int32_t day, size_t *n)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *s = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT kind, observed_at, source, ident, price_micro,"
                                        " gpu, term, covers, key_hash FROM observations_readable"
                                        " WHERE day = ?1 ORDER BY key_hash, observed_at",
                                        -1, &s, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(s, 1, day);
    obs_row *v = NULL;
    size_t cap = 0;
    *n = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        obs_row *r = &v[(*n)++];
        memset(r, 0, sizeof *r);
        snprintf(r->kind, sizeof r->kind, "%s", (const char *)sqlite3_column_text(s, 0));
        /* "YYYY-MM-DD HH:MM:SS" as observations.csv writes it */
        snprintf(r->at, sizeof r->at, "%.10sT%.8sZ", (const char *)sqlite3_column_text(s, 1),
                 (const char *)sqlite3_column_text(s, 1) + 11);
        int kind = strcmp(r->kind, "trade") == 0 ? GPI_TRADE : GPI_OFFER;
        uint64_t key = gpi_identity_hash(kind, (const char *)sqlite3_column_text(s, 2),
                                         (const char *)sqlite3_column_text(s, 3));
        snprintf(r->key, sizeof r->key, "%016llx", (unsigned long long)key);
        char b[32];
        snprintf(r->price, sizeof r->price, "%s",
                 gpi_fixed_format(sqlite3_column_int64(s, 4), 6, b));
        snprintf(r->gpu, sizeof r->gpu, "%s", (const char *)sqlite3_column_text(s, 5));
        snprintf(r->term, sizeof r->term, "%s", (const char *)sqlite3_column_text(s, 6));
        snprintf(r->covers, sizeof r->covers, "%s", (const char *)sqlite3_column_text(s, 7));
        r->key_hash = sqlite3_column_int64(s, 8);
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    /* rows come by (key, time): the last of a key is its latest snapshot */
    for (size_t i = 0; i < *n; i++)
        v[i].latest = i + 1 == *n || v[i + 1].key_hash != v[i].key_hash;
    return v;
}

static int of_grade(const struct grade *g, const obs_row *r)
{
    int gpu = 0;
    for (int k = 0; k < 2 && g->gpu[k]; k++) gpu |= strcmp(g->gpu[k], r->gpu) == 0;
    return gpu && strcmp(g->term, r->term) == 0 && (!g->covers || strcmp(g->covers, r->covers) == 0);
}

/* The level of grade id's row in index.csv text ("trades", "offers", ...). */
static void row_level(char *csv, const char *id, char *out, size_t n)
{
    out[0] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[8];
        if (split(line, f, 8) >= 4 && strcmp(f[1], id) == 0) snprintf(out, n, "%s", f[3]);
    }
}

static void check_day(const char *dir, int32_t day)
{
    char date[11], path[4096], db_path[4096];
    gpi_date_format(day, date);
    snprintf(db_path, sizeof db_path, "%s/t.db", dir);
    size_t n_obs = 0;
    obs_row *obs = read_day(db_path, day, &n_obs);
    assert_true(n_obs > 0);
    snprintf(path, sizeof path, "%s/pub/%s/observations.csv", dir, date);
    char *text = tu_read(path);
    assert_non_null(text);
    snprintf(path, sizeof path, "%s/pub/%s/index.csv", dir, date);
    char *index_csv = tu_read(path);
    assert_non_null(index_csv);
    size_t snapshots = 0, overlaps = 0;
    for (size_t i = 0; i < n_obs; i++) snapshots += !obs[i].latest;
    for (size_t gi = 0; gi < N_GRADES; gi++) {
        const struct grade *g = &grades[gi];
        char level[32], *copy = strdup(index_csv);
        assert_non_null(copy);
        row_level(copy, g->id, level, sizeof level);
        free(copy);
        if (!level[0]) fail_msg("%s: no row of %s in index.csv", date, g->id);
        const char *level_kind = strcmp(level, "trades") == 0   ? "trade"
                                 : strcmp(level, "offers") == 0 ? "offer"
                                                                : "";
        strs got = {0}, want = {0}, other = {0};
        char *lines = strdup(text), *save = NULL, prev_key[17] = "", prev_at[21] = "";
        assert_non_null(lines);
        long n_lines = 0;
        for (char *line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *f[17];
            int nf = split(line, f, 17);
            if (strcmp(f[0], "date") == 0 || strcmp(f[1], g->id) != 0) continue;
            assert_int_equal(nf, 17);
            assert_string_equal(f[0], date);
            /* in (identity hash as a signed integer, time) order */
            if (prev_key[0]) {
                int64_t a = (int64_t)strtoull(prev_key, NULL, 16), b = (int64_t)strtoull(f[7], NULL, 16);
                if (a > b || (a == b && strcmp(prev_at, f[3]) > 0))
                    fail_msg("%s %s: line of %s %s after %s %s", date, g->id, f[7], f[3],
                             prev_key, prev_at);
            }
            snprintf(prev_key, sizeof prev_key, "%s", f[7]);
            snprintf(prev_at, sizeof prev_at, "%s", f[3]);
            char t[128];
            snprintf(t, sizeof t, "%s,%s,%s,%s", f[2], f[3], f[7], f[9]);
            n_lines++;
            if (g->v1 && strcmp(f[2], level_kind) != 0) {
                /* v1: of the other level only what was excluded */
                if (strcmp(f[11], "excluded") != 0)
                    fail_msg("%s %s (v1, level %s): %s listed as %s", date, g->id, level, t,
                             f[11]);
                push(&other, t);
            } else {
                push(&got, t);
            }
        }
        free(lines);
        strs other_want = {0};
        for (size_t i = 0; i < n_obs; i++) {
            const obs_row *r = &obs[i];
            if (!of_grade(g, r) || (strcmp(r->kind, "offer") == 0 && !r->latest)) continue;
            char t[128];
            snprintf(t, sizeof t, "%s,%s,%s,%s", r->kind, r->at, r->key, r->price);
            push(g->v1 && strcmp(r->kind, level_kind) != 0 ? &other_want : &want, t);
            for (size_t gj = 0; gj < gi; gj++) overlaps += of_grade(&grades[gj], r) != 0;
        }
        char what[128];
        snprintf(what, sizeof what, "%s %s", date, g->id);
        same_set(&got, &want, what);
        /* the other level's excluded lines are some of its observations */
        if (other_want.n > 1) qsort(other_want.v, other_want.n, sizeof *other_want.v, cmp_str);
        for (size_t i = 0; i < other.n; i++)
            if (!other_want.n ||
                !bsearch(&other.v[i], other_want.v, other_want.n, sizeof *other_want.v, cmp_str))
                fail_msg("%s: listed but not an observation of the grade: %s", what, other.v[i]);
        if (!g->v1) assert_true(n_lines > 0);
        strs_free(&got);
        strs_free(&want);
        strs_free(&other);
        strs_free(&other_want);
    }
    /* the property was exercised: earlier snapshots left out, and
     * observations of more than one grade */
    assert_true(snapshots > 0);
    assert_true(overlaps > 0);
    free(index_csv);
    free(text);
    free(obs);
}

static void test_lines_are_the_fix_observations(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-detail");
    free(tu_write(dir, "g.json", grades_json));
    tu_run r = tu_gpuidx(dir, "simulate --days %d --seed 11 --start 2025-01-01 --out market",
                         N_DAYS);
    if (r.status != 0) fail_msg("simulate: %s", r.err);
    tu_run_free(&r);
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" --db t.db ingest offers --admit-providers market/offers.csv",
        "\"$GPUIDX_BIN\" --db t.db ingest trades --admit-providers market/trades.csv",
        "\"$GPUIDX_BIN\" --db t.db index build --grades g.json --from 2025-01-01 --to 2025-01-04",
        "\"$GPUIDX_BIN\" --db t.db index publish --grades g.json --from 2025-01-01 --to 2025-01-04"
        " --out pub",
    };
    r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    tu_run_free(&r);
    int32_t d0 = gpi_days_from_civil(2025, 1, 1);
    for (int32_t k = 0; k < N_DAYS; k++) check_day(dir, d0 + k);
    free(dir);
}

/* The receipts of one vintage whose rows have different cut-offs: a
 * batch of H200 offers arrives after the first publication and restates
 * T.H200.OD; T.H100.OD's row, whose value did not move, is carried from
 * vintage 1 with its cut-off.  Each row's "batches" are those of its own
 * cut-off (files.c makes them once per cut-off): T.H100.OD the first
 * file only, T.H200.OD both. */
static void test_receipt_batches_per_cut_off(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-receipt-cutoffs");
    free(tu_write(dir, "g.json",
                  "{\"grades\": [\n"
                  " {\"id\": \"T.H100.OD\", \"gpu\": \"H100-SXM-80GB\", \"term\": \"on-demand\"},\n"
                  " {\"id\": \"T.H200.OD\", \"gpu\": \"H200-SXM-141GB\", \"term\": \"on-demand\"}]}\n"));
    char a[2048], b[1024];
    size_t n = (size_t)snprintf(a, sizeof a, "kind,id,observed_at,provider,gpu,price,term\n");
    static const char *const prov[3] = {"aws", "lambda", "coreweave"};
    for (int p = 0; p < 3; p++)
        n += (size_t)snprintf(a + n, sizeof a - n,
                              "offer,h100-%d,2025-01-02,%s,H100-SXM-80GB,%.2f,on-demand\n"
                              "offer,h200-%d,2025-01-02,%s,H200-SXM-141GB,%.2f,on-demand\n",
                              p, prov[p], 2.0 + 0.1 * p, p, prov[p], 3.0 + 0.1 * p);
    free(tu_write(dir, "m1.csv", a));
    n = (size_t)snprintf(b, sizeof b, "kind,id,observed_at,provider,gpu,price,term\n");
    static const char *const more[3] = {"nebius", "vultr", "oracle"};
    for (int p = 0; p < 3; p++)
        n += (size_t)snprintf(b + n, sizeof b - n,
                              "offer,h200-late-%d,2025-01-02,%s,H200-SXM-141GB,%.2f,on-demand\n", p,
                              more[p], 9.0 + 0.1 * p);
    free(tu_write(dir, "m2.csv", b));
    static const char *const steps[] = {
        "\"$GPUIDX_BIN\" --db t.db ingest --admit-providers m1.csv",
        "\"$GPUIDX_BIN\" --db t.db index build --grades g.json --from 2025-01-02 --to 2025-01-02",
        "\"$GPUIDX_BIN\" --db t.db index publish --grades g.json --date 2025-01-02 --out pub",
        "\"$GPUIDX_BIN\" --db t.db ingest --admit-providers m2.csv",
        "\"$GPUIDX_BIN\" --db t.db index build --grades g.json --from 2025-01-02 --to 2025-01-02",
        "\"$GPUIDX_BIN\" --db t.db index publish --grades g.json --date 2025-01-02 --out pub",
    };
    tu_run r = tu_sh_all(dir, steps, sizeof steps / sizeof steps[0]);
    if (!strstr(r.err, "vintage 2 (new; 1 restated")) fail_msg("publish: %s", r.err);
    tu_run_free(&r);
    r = tu_sh(dir, "sha256sum m1.csv m2.csv");
    char sha1[65], sha2[65];
    if (sscanf(r.out, "%64s %*s %64s", sha1, sha2) != 2) fail_msg("sha256sum: %s%s", r.out, r.err);
    tu_run_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/pub/2025-01-02/index.json", dir);
    char *json = tu_read(path);
    assert_non_null(json);
    char one[256], both[512];
    snprintf(one, sizeof one, "\"batches\":[{\"sha256\":\"%s\",\"tables_sha256\":", sha1);
    const char *lo = strcmp(sha1, sha2) < 0 ? sha1 : sha2, *hi = lo == sha1 ? sha2 : sha1;
    snprintf(both, sizeof both, "\"sha256\":\"%s\",\"tables_sha256\":", hi);
    /* rows in grade order: T.H100.OD (carried) then T.H200.OD (restated) */
    const char *h100 = strstr(json, "{\"date\":\"2025-01-02\",\"grade\":\"T.H100.OD\"");
    const char *h200 = strstr(json, "{\"date\":\"2025-01-02\",\"grade\":\"T.H200.OD\"");
    if (!h100 || !h200 || h100 > h200) fail_msg("rows not found in order:\n%s", json);
    const char *b100 = strstr(h100, "\"batches\":["), *b200 = strstr(h200, "\"batches\":[");
    assert_true(b100 && b100 < h200 && b200);
    if (strncmp(b100, one, strlen(one)) != 0 || strncmp(strstr(b100, "}") + 1, "]", 1) != 0)
        fail_msg("T.H100.OD's batches are not m1.csv's alone:\n%.400s", b100);
    char first[256];
    snprintf(first, sizeof first, "\"batches\":[{\"sha256\":\"%s\",\"tables_sha256\":", lo);
    if (strncmp(b200, first, strlen(first)) != 0 || !strstr(b200, both))
        fail_msg("T.H200.OD's batches are not both files:\n%.400s", b200);
    free(json);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_are_the_fix_observations),
        cmocka_unit_test(test_receipt_batches_per_cut_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
