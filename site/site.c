/* site/site.c -- site_write: collect the stored index rows, validate the
 * grade ids, write one CSV per grade and the page (see site.h).
 *
 * All rows are read first (one scan of store_index_rows, sorted by day then
 * grade) and re-sorted by grade then day, so that no file is written before
 * every id has been checked.  A grade-day row is about 200 bytes: a year of
 * 20 grades is 1.5 MB.  Files are written as DIR/.<name>.<pid>.tmp and
 * renamed.  One run writes DIR at a time: it holds an exclusive flock on
 * DIR/.gpuidx-lock while it writes, so the .<name>.<pid>.tmp files it
 * finds there when it starts are leftovers of a killed run, and it removes
 * them (they used to stay for good: issue 12).
 */
#include "site/site.h"
#include "core/vec.h"
#include "publish/columns.h"
#include "store/index_values.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "site/internal.h"

void site_html_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

typedef struct rowvec {
    store_index_row *v;
    size_t n, cap;
    int nomem;
    const char *const *ids;     /* the grades to show, or NULL: all */
    size_t n_ids;
    site_fsp fsp;               /* v3 rows' manipulation figures (site/fsp.c) */
} rowvec;

static int collect(const store_index_row *r, void *ud)
{
    rowvec *rv = ud;
    if (rv->ids) {
        size_t k = 0;
        while (k < rv->n_ids && strcasecmp(rv->ids[k], r->grade) != 0) k++;
        if (k == rv->n_ids) return 0; /* not a published grade */
    }
    if (GPI_VEC_RESERVE(rv->v, rv->cap, rv->n + 1) != 0) {
        rv->nomem = 1;
        return 1;
    }
    rv->v[rv->n] = *r;
    rv->v[rv->n++].carried = NULL; /* the callback's only */
    if (site_fsp_take(&rv->fsp, r) != 0) {
        rv->nomem = 1;
        return 1;
    }
    return 0;
}

static int by_grade_day(const void *a, const void *b)
{
    const store_index_row *x = a, *y = b;
    int c = strcmp(x->grade, y->grade);
    if (c) return c;
    return (x->day > y->day) - (x->day < y->day);
}


/* One grade's rows in rv.v and its place on the page. */
typedef struct group {
    size_t i, j, rank;
} group;

static int by_rank(const void *a, const void *b)
{
    const group *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Reorders rv's grades (each a run of days, sorted by grade) into the
 * order of ids -- the published grades file's, whose first grade is the
 * headline -- grades not in it after them, by id. */
static gpi_status in_set_order(rowvec *rv, const char *const *ids, size_t n_ids, gpi_diag *d)
{
    if (!ids || rv->n == 0) return GPI_OK;
    size_t ng = 0;
    for (size_t i = 0; i < rv->n; i++) ng += i == 0 || strcmp(rv->v[i].grade, rv->v[i - 1].grade);
    group *g = malloc(ng * sizeof *g);
    store_index_row *out = malloc(rv->n * sizeof *out);
    if (!g || !out) {
        free(g);
        free(out);
        return gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < rv->n;) {
        size_t j = i, r = 0;
        while (j < rv->n && strcmp(rv->v[j].grade, rv->v[i].grade) == 0) j++;
        while (r < n_ids && strcasecmp(ids[r], rv->v[i].grade) != 0) r++;
        g[k++] = (group){i, j, r};
        i = j;
    }
    qsort(g, ng, sizeof *g, by_rank);
    size_t o = 0;
    for (size_t q = 0; q < ng; q++)
        for (size_t i = g[q].i; i < g[q].j; i++) out[o++] = rv->v[i];
    free(rv->v);
    rv->v = out;
    rv->cap = rv->n;
    free(g);
    return GPI_OK;
}

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;"
    "max-width:1040px;padding:16px 24px;color:#1b1b1b;background:#fff}"
    "h1{font-size:22px;margin:8px 0 2px}h2{font-size:17px;margin:28px 0 4px}"
    "p.note,p.meta{color:#555;margin:2px 0}"
    "table{border-collapse:collapse;margin:12px 0;font-variant-numeric:tabular-nums}"
    "th,td{padding:3px 10px;border-bottom:1px solid #e3e3e3;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    "svg.chart{width:100%;height:auto;display:block;font-size:11px}"
    ".axis text,.legend text{fill:#444}.grid{stroke:#ececec}.tick,.frame{stroke:#999}"
    ".band{fill:#9ec1ea;fill-opacity:.45;stroke:none}"
    ".value{fill:none;stroke:#333;stroke-width:1.2}"
    ".l0{fill:#1f5fbf}.l1{fill:#e07b00}.l2{fill:#fff;stroke:#888;stroke-width:1.2}"
    ".susp{fill:#d62728;fill-opacity:.12}"
    ".xs{fill:none;stroke:#7a7a7a;stroke-width:.9;stroke-dasharray:3 2}"
    ".pc{fill:#8a5cc2}.reb{stroke:#8a5cc2;stroke-width:1;stroke-dasharray:2 3}"
    ".lv-trades{color:#1f5fbf}.lv-offers{color:#e07b00}.lv-carried{color:#777}"
    ".lv-suspended{color:#d62728}.empty{fill:#a33;font-size:14px}"
    "table.summary th{text-align:center}th,td{white-space:nowrap}"
    "td.why{white-space:normal;text-align:left;color:#555;font-size:12px;min-width:160px}"
    "p.novalue{color:#a33;margin:4px 0 16px}";

static void summary_row(FILE *f, const store_index_row *r, size_t n)
{
    const store_index_row *last = &r[n - 1];
    long cnt[GPI_LEVEL__N] = {0};
    for (size_t i = 0; i < n; i++)
        if (r[i].level >= 0 && r[i].level < GPI_LEVEL__N) cnt[r[i].level]++;
    char date[11], val[32];
    gpi_date_format(last->day, date);
    fputs("<tr><td><a href=\"#g-", f);
    site_html_esc(f, last->grade);
    fputs("\">", f);
    site_html_esc(f, last->grade);
    fprintf(f, "</a></td><td>%s</td><td>%s</td><td class=\"lv-%s\">%s</td>", date,
            last->level == GPI_LEVEL_SUSPENDED ? "&#8212;" : gpi_fixed_format(last->value_e4, 4, val),
            gpi_level_name(last->level), gpi_level_name(last->level));
    for (int l = 0; l < GPI_LEVEL__N; l++)
        fprintf(f, "<td>%.0f%%</td>", 100.0 * (double)cnt[l] / (double)n);
    fputs("<td><a href=\"", f);
    site_html_esc(f, last->grade);
    fputs(".csv\">csv</a></td><td class=\"why\">", f);
    /* why the latest day is carried or suspended, in the row's words */
    if (last->level == GPI_LEVEL_CARRIED || last->level == GPI_LEVEL_SUSPENDED)
        site_html_esc(f, last->note);
    fputs("</td></tr>\n", f);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted here), n > 0: the lower middle. */
static int64_t median_i64(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    return v[(n - 1) / 2];
}

/* What one participant can do to the grade's fixes (METHODOLOGY.md §11),
 * from the figures each published row carries: the move when one
 * provider is left out, relative to the value (median, largest), and what
 * a new participant must add to move the value 1 % -- over the days a
 * cost is defined (a value; v2: the anchor days, as the lab counts them).
 * Nothing when the rows carry no figures (built before they existed). */
static void manip_line(FILE *f, const store_index_row *r, size_t n)
{
    int64_t *rel = malloc(n * sizeof *rel), *cost = malloc(n * sizeof *cost);
    if (!rel || !cost) {
        free(rel);
        free(cost);
        return;
    }
    size_t nl = 0, nc = 0, days = 0, none = 0, one_offer = 0;
    int64_t max_rel = -1;
    int32_t max_day = 0;
    int v2 = strcmp(r[n - 1].methodology, "v2") == 0;
    int v3 = strcmp(r[n - 1].methodology, "v3") == 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].value_e4 <= 0) continue;
        if (r[i].loo_move_e4 >= 0) {
            /* basis points of the value, half-up */
            int64_t bp = (r[i].loo_move_e4 * 20000 / r[i].value_e4 + 1) / 2;
            rel[nl++] = bp;
            if (bp > max_rel) max_rel = bp, max_day = r[i].day;
        }
        if ((v2 && !r[i].event) || v3) continue;
        days++;
        if (r[i].cost_e2[1] > 0) cost[nc++] = r[i].cost_e2[1];
        else none++;
        if (r[i].cost_offers[1] == 1) one_offer++;
    }
    if (nl > 0 || nc > 0 || v3) {
        char day[11], num[32];
        fputs("<p class=\"meta\">What one participant can do (METHODOLOGY.md &#167;11): ", f);
        if (nl > 0) {
            gpi_date_format(max_day, day);
            if (max_rel == 0) {
                fprintf(f, "leaving out any one provider moves the value by 0.00%% on all %zu "
                           "days measured", nl);
            } else {
                fprintf(f, "leaving out one provider moves the value by a median of %s%%",
                        gpi_fixed_format(median_i64(rel, nl), 2, num));
                fprintf(f, " (at most %s%%, %s)", gpi_fixed_format(max_rel, 2, num), day);
            }
        }
        if (days > 0) {
            fprintf(f, "%sto move it 1%%, ", nl > 0 ? "; " : "");
            if (nc > 0)
                fprintf(f, "a new participant needs a median of %s GPU-hours of trades on the %zu "
                           "of %zu %s it can",
                        gpi_fixed_format(median_i64(cost, nc), 2, num), nc, days,
                        v2 ? "anchor days" : "days");
            else /* an offers-only feed, or the cap holds every day */
                fprintf(f, "no volume of trades from a new participant is enough on any of the "
                           "%zu %s", days, v2 ? "anchor days" : "days");
            if (nc > 0 && none > 0) fprintf(f, "; no volume can on %zu", none);
            if (one_offer) fprintf(f, "; one new offer does it on %zu", one_offer);
            if (v2) fputs("; between anchors a newcomer cannot move the chained value", f);
        }
        if (v3) /* METHODOLOGY.md §13.2: admission after admission_days days */
            fputs("; a new participant cannot enter the panel on the day it first prints "
                  "(admission after days of presence), so no volume of it moves the value",
                  f);
        fputs(".</p>\n", f);
    }
    free(rel);
    free(cost);
}

/* A grade without a value on any day: one line with why, no chart. */
static void no_value_line(FILE *f, const store_index_row *r, size_t n)
{
    char a[11], b[11];
    gpi_date_format(r[0].day, a);
    gpi_date_format(r[n - 1].day, b);
    long max_prov = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].n_providers > max_prov) max_prov = r[i].n_providers;
    fprintf(f, "<p class=\"novalue\">No value on any of its %zu days (%s to %s): ", n, a, b);
    if (max_prov == 0)
        fputs("no observation of the grade on any day", f);
    else
        fprintf(f, "at most %ld provider%s on a day", max_prov, max_prov == 1 ? "" : "s");
    if (r[n - 1].note[0]) {
        fputs("; the latest day: ", f);
        site_html_esc(f, r[n - 1].note);
    }
    fputs(".</p>\n", f);
}

static void grade_section(FILE *f, const store_index_row *r, size_t n, const site_curves *curves,
                          const site_fsp *fsp)
{
    const store_index_row *last = &r[n - 1];
    char a[11], b[11], val[32];
    gpi_date_format(r[0].day, a);
    gpi_date_format(last->day, b);
    fputs("<section><h2 id=\"g-", f);
    site_html_esc(f, last->grade);
    fputs("\">", f);
    site_html_esc(f, last->grade);
    fputs("</h2>\n", f);
    size_t first = 0; /* the first day with a value: where the chart begins */
    while (first < n && (r[first].level == GPI_LEVEL_SUSPENDED || r[first].value_e4 < 0)) first++;
    if (first == n) {
        no_value_line(f, r, n);
        fputs("</section>\n", f);
        return;
    }
    fputs("<p class=\"meta\">", f);
    fprintf(f, "%s to %s, %zu days; latest %s: ", a, b, n, b);
    if (last->level == GPI_LEVEL_SUSPENDED)
        fputs("suspended (no value)", f);
    else
        fprintf(f, "<b>$%s</b> per GPU-hour (%s, %ld providers)",
                gpi_fixed_format(last->value_e4, 4, val), gpi_level_name(last->level),
                last->n_providers);
    fputs(" &#183; <a href=\"", f);
    site_html_esc(f, last->grade);
    fputs(".csv\">history (CSV)</a></p>\n", f);
    manip_line(f, r, n);
    site_fsp_section(f, fsp, r, n);
    /* its own axis: from its first day with a value to its last day */
    site_svg_chart(f, r + first, n - first, r[first].day, last->day);
    site_curve_chart(f, curves, last->grade);
    fputs("</section>\n", f);
}

/* 1 when name is ".<anything>.<digits>.tmp", what open_tmp makes. */
static int is_leftover(const char *name)
{
    size_t n = strlen(name);
    if (n < 7 || name[0] != '.' || strcmp(name + n - 4, ".tmp") != 0) return 0;
    size_t k = n - 4, digits = 0;
    while (k > 1 && name[k - 1] >= '0' && name[k - 1] <= '9') k--, digits++;
    return digits > 0 && k > 2 && name[k - 1] == '.';
}

/* Takes DIR/.gpuidx-lock (*fd; waits for another run on DIR), then removes
 * the temporary files killed runs left. */
static gpi_status lock_dir(const char *dir, int *fd, gpi_diag *d)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.gpuidx-lock", dir);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0) return gpi_diag_set(d, GPI_EIO, "%s: %s", path, strerror(errno));
    while (flock(*fd, LOCK_EX) != 0)
        if (errno != EINTR) return gpi_diag_set(d, GPI_EIO, "%s: %s", path, strerror(errno));
    DIR *dh = opendir(dir);
    struct dirent *e;
    while (dh && (e = readdir(dh)))
        if (is_leftover(e->d_name)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (dh) closedir(dh);
    return GPI_OK;
}

static gpi_status open_tmp(const char *dir, const char *name, char *tmp, char *fin,
                           FILE **out, gpi_diag *d)
{
    snprintf(tmp, PATH_MAX, "%s/.%s.%ld.tmp", dir, name, (long)getpid()); /* one per run */
    snprintf(fin, PATH_MAX, "%s/%s", dir, name);
    *out = fopen(tmp, "wb");
    if (!*out) return gpi_diag_set(d, GPI_EIO, "%s: %s", tmp, strerror(errno));
    return GPI_OK;
}

static gpi_status close_tmp(FILE *f, const char *tmp, const char *fin, gpi_diag *d)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        remove(tmp);
        return gpi_diag_set(d, GPI_EIO, "%s: write failed", tmp);
    }
    if (rename(tmp, fin) != 0) {
        gpi_status rc = gpi_diag_set(d, GPI_EIO, "%s: %s", fin, strerror(errno));
        remove(tmp);
        return rc;
    }
    return GPI_OK;
}

/* DIR/datapackage.json: each grade's CSV (the index.csv columns of a
 * stored row, PUB_FORMAT_ROWS) as a table of the data package
 * (publish/columns.c). */
static gpi_status write_package(const char *dir, const rowvec *rv, gpi_diag *d)
{
    size_t ng = 0;
    for (size_t i = 0; i < rv->n; i++) ng += i == 0 || strcmp(rv->v[i].grade, rv->v[i - 1].grade);
    const pub_table **t = calloc(ng ? ng : 1, sizeof *t);
    char **paths = calloc(ng ? ng : 1, sizeof *paths), **names = calloc(ng ? ng : 1, sizeof *names);
    gpi_status rc = t && paths && names ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    size_t k = 0;
    for (size_t i = 0; i < rv->n && rc == GPI_OK; i++) {
        if (i > 0 && strcmp(rv->v[i].grade, rv->v[i - 1].grade) == 0) continue;
        t[k] = &pub_index_csv;
        size_t len = strlen(rv->v[i].grade);
        paths[k] = malloc(len + 5);
        names[k] = malloc(len + 1);
        if (!paths[k] || !names[k]) {
            rc = gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
            k++;
            break;
        }
        snprintf(paths[k], len + 5, "%s.csv", rv->v[i].grade);
        /* a resource name is lower case letters, digits and -._ */
        for (size_t c = 0; c <= len; c++) {
            char ch = rv->v[i].grade[c];
            names[k][c] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch == '+' ? '-' : ch);
        }
        k++;
    }
    char tmp[PATH_MAX], fin[PATH_MAX];
    FILE *f = NULL;
    if (rc == GPI_OK && (rc = open_tmp(dir, "datapackage.json", tmp, fin, &f, d)) == GPI_OK) {
        pub_datapackage_named(f, "gpuidx-site", "gpuidx: each grade's history (the site's CSV "
                              "files)", t, (const char *const *)paths,
                              (const char *const *)names, k, PUB_FORMAT_ROWS, 0);
        rc = close_tmp(f, tmp, fin, d);
    }
    for (size_t i = 0; i < k; i++) {
        free(paths[i]);
        free(names[i]);
    }
    free(t);
    free(paths);
    free(names);
    return rc;
}

gpi_status site_write_extras(store *st, const char *dir, const site_extras *x, site_stats *s,
                             gpi_diag *d)
{
    const char *const *ids = x ? x->ids : NULL;
    size_t n_ids = x ? x->n_ids : 0;
    site_stats local;
    if (!s) s = &local;
    memset(s, 0, sizeof *s);
    if (!st || !dir || !*dir) return gpi_diag_set(d, GPI_EUSAGE, "site: no store or directory");
    rowvec rv = {NULL, 0, 0, 0, ids, n_ids, {NULL, 0, 0}};
    int lock_fd = -1;
    site_curves *curves = NULL;
    char *stmt = NULL;
    size_t stmt_len = 0;
    gpi_status rc = store_index_rows(st, NULL, INT32_MIN, INT32_MAX, collect, &rv, d);
    if (rc == GPI_OK && rv.nomem) rc = gpi_diag_set(d, GPI_ENOMEM, "site: out of memory");
    for (size_t i = 0; rc == GPI_OK && i < rv.n; i++)
        if (!gpi_grade_id_ok(rv.v[i].grade)) /* a safe file name too */
            rc = gpi_diag_set(d, GPI_EINPUT,
                              "site: grade id not usable as a file name (got \"%s\")",
                              rv.v[i].grade);
    if (rc != GPI_OK) goto done;
    if (rv.n) qsort(rv.v, rv.n, sizeof *rv.v, by_grade_day);
    if ((rc = in_set_order(&rv, ids, n_ids, d)) != GPI_OK) goto done;
    if ((rc = site_curves_load(st, rv.v, rv.n, &curves, d)) != GPI_OK) goto done;
    if ((rc = site_statement_html(st, rv.v, rv.n, x, curves, &stmt, &stmt_len, d)) != GPI_OK)
        goto done;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        rc = gpi_diag_set(d, GPI_EIO, "%s: %s", dir, strerror(errno));
        goto done;
    }
    if ((rc = lock_dir(dir, &lock_fd, d)) != GPI_OK) goto done;
    int32_t d0 = INT32_MAX, d1 = INT32_MIN;
    for (size_t i = 0; i < rv.n; i++) {
        if (rv.v[i].day < d0) d0 = rv.v[i].day;
        if (rv.v[i].day > d1) d1 = rv.v[i].day;
    }
    s->rows = (long)rv.n;
    if (rv.n) s->first_day = d0, s->last_day = d1;

    char tmp[PATH_MAX], fin[PATH_MAX], name[80];
    FILE *f;
    for (size_t i = 0; i < rv.n && rc == GPI_OK;) {
        size_t j = i;
        while (j < rv.n && strcmp(rv.v[j].grade, rv.v[i].grade) == 0) j++;
        snprintf(name, sizeof name, "%s.csv", rv.v[i].grade);
        if ((rc = open_tmp(dir, name, tmp, fin, &f, d)) != GPI_OK) break;
        pub_csv_write_header(f);
        for (size_t k = i; k < j && rc == GPI_OK; k++) rc = pub_csv_write_row(f, &rv.v[k], d);
        if (rc != GPI_OK) {
            fclose(f);
            remove(tmp);
            break;
        }
        rc = close_tmp(f, tmp, fin, d);
        s->grades++;
        i = j;
    }
    if (rc != GPI_OK) goto done;
    if ((rc = write_package(dir, &rv, d)) != GPI_OK) goto done;

    if ((rc = open_tmp(dir, "index.html", tmp, fin, &f, d)) != GPI_OK) goto done;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
               "<title>gpuidx &#8212; GPU compute rental price index</title>\n"
               "<style>%s</style></head><body>\n"
               "<h1>gpuidx &#8212; GPU compute rental price index</h1>\n"
               "<p class=\"note\"><a href=\"statement.html\">Benchmark statement</a>: what "
               "each grade measures, its data thresholds, fallback waterfall and restatement "
               "policy, and a back-test.</p>\n",
            css);
    if (rv.n == 0) {
        fputs("<p class=\"note\">No index values have been built yet "
              "(<code>gpuidx index build</code>).</p>\n",
              f);
    } else {
        char a[11], b[11];
        gpi_date_format(d0, a);
        gpi_date_format(d1, b);
        fprintf(f, "<p class=\"note\">Daily reference prices in USD per GPU-hour, %s to %s, "
                   "%d grades, in the order of the published grades file. Each chart spans "
                   "its grade's days from its first value and shows the value (dots coloured "
                   "by the level that produced it), the p25&#8211;p75 band behind it, and "
                   "shaded suspended days (with why, on hover); for grades of methodology v2 "
                   "(a chained value that moves only with "
                   "the prices of constituents present on consecutive days), also the "
                   "cross-section of the day (dashed), the days a constituent entered or "
                   "left, and the monthly rebalances; for grades of methodology v3 (a "
                   "cross-section over a panel of provider groups that admits a group after "
                   "days of presence and carries an absent member at its last prices), also "
                   "the days a group joined or left the panel; the price index beside the "
                   "value is in each grade's history CSV.</p>\n",
                a, b, s->grades);
        fputs("<table class=\"summary\"><thead><tr><th rowspan=\"2\">grade</th>"
              "<th colspan=\"3\">latest day</th><th colspan=\"4\">share of days at each "
              "level</th><th rowspan=\"2\">history</th><th rowspan=\"2\">why carried or "
              "suspended</th></tr>\n<tr><th>date</th><th>value</th><th>level</th>"
              "<th>trades</th><th>offers</th><th>carried</th><th>suspended</th></tr>"
              "</thead><tbody>\n",
              f);
        for (size_t i = 0; i < rv.n;) {
            size_t j = i;
            while (j < rv.n && strcmp(rv.v[j].grade, rv.v[i].grade) == 0) j++;
            summary_row(f, &rv.v[i], j - i);
            i = j;
        }
        fputs("</tbody></table>\n", f);
        for (size_t i = 0; i < rv.n;) {
            size_t j = i;
            while (j < rv.n && strcmp(rv.v[j].grade, rv.v[i].grade) == 0) j++;
            grade_section(f, &rv.v[i], j - i, curves, &rv.fsp);
            i = j;
        }
    }
    if (x) site_cost_sections(f, x);
    fputs("<p class=\"note\">Generated by gpuidx " GPUIDX_VERSION
          " from the index database; the per-grade CSV files have the columns of "
          "<code>index.csv</code>.</p>\n</body></html>\n",
          f);
    rc = close_tmp(f, tmp, fin, d);
    if (rc == GPI_OK && (rc = open_tmp(dir, "statement.html", tmp, fin, &f, d)) == GPI_OK) {
        fwrite(stmt, 1, stmt_len, f);
        rc = close_tmp(f, tmp, fin, d);
    }
done:
    if (lock_fd >= 0) close(lock_fd); /* releases the lock */
    site_curves_free(curves);
    free(stmt);
    free(rv.v);
    site_fsp_free(&rv.fsp);
    return rc;
}
