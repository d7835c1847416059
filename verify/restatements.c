/* verify/restatements.c -- DIR/restatements.csv against the vintages it
 * speaks of (METHODOLOGY.md §6.3, §7.2; issue 31: a forged line, and
 * vintage numbers that did not follow it, passed `verify`).
 *
 * NOTES ON THE DESIGN
 * (1) The file is regenerated from the database on every publication:
 *     header "date,grade,vintage,old,new,reason", one line per
 *     restatement, sorted by date, grade (ignoring case) and vintage.
 * (2) Each line is checked against the files of its day: vintage k's row
 *     of the grade publishes `new`, vintage k-1's published `old` (the
 *     value published: a standing value where a revision stood), and the
 *     reason is the one the rule gives for that move and the grade's
 *     restate_threshold (from the grade_definition of vintage k's row).
 * (3) And the other way: every published value that changed from one
 *     vintage of a day to the next has its line.  So the vintages of a day
 *     follow the file and the file follows the vintages.
 * (4) A line of a day DIR does not have is not verifiable (a database may
 *     publish into several folders); a day deleted from DIR is found by the
 *     links of the days after it (vintage.c note 2).
 */
#include "verify/internal.h"
#include "core/csv_reader.h"
#include "publish/publish.h"
#include "core/vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct rline {
    long line;
    int32_t day;
    char grade[65];
    int vintage;
    char old_v[32], new_v[32], reason[160];
} rline;

typedef struct rctx {
    rline *v;
    size_t n, cap;
    int header;
    char *bad;                  /* the first fault of the file's form */
    size_t cap_bad;
} rctx;

static void fault(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fault(char *out, size_t cap, const char *fmt, ...)
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

static const char *fixed4(const char *s)
{
    int64_t x;
    return !*s ? NULL : v_fixed_text(s, 4, &x);
}

static gpi_status rec(void *ud, const char *const *f, int n, long line, gpi_diag *d)
{
    rctx *c = ud;
    (void)d;
    if (!c->header) {
        c->header = 1;
        static const char *const h[6] = {"date", "grade", "vintage", "old", "new", "reason"};
        int ok = n == 6;
        for (int i = 0; ok && i < 6; i++) ok = strcmp(f[i], h[i]) == 0;
        if (!ok) fault(c->bad, c->cap_bad, "restatements.csv:1: header: not "
                                           "date,grade,vintage,old,new,reason");
        return GPI_OK;
    }
    if (c->bad[0]) return GPI_OK;
    int32_t day;
    int64_t k = 0;
    const char *why = n != 6                              ? "fields: not 6"
                      : gpi_date_parse(f[0], &day)        ? "date: not a date"
                      : !f[1][0] || strlen(f[1]) > 64     ? "grade: not a grade"
                      : v_fixed_text(f[2], 0, &k) || k < 2 ? "vintage: not a vintage after the first"
                      : fixed4(f[3])                      ? "old: not a value with 4 decimals"
                      : fixed4(f[4])                      ? "new: not a value with 4 decimals"
                      : strlen(f[5]) >= 160               ? "reason: too long"
                                                          : NULL;
    if (why) {
        fault(c->bad, c->cap_bad, "restatements.csv:%ld: %s", line, why);
        return GPI_OK;
    }
    if (GPI_VEC_RESERVE(c->v, c->cap, c->n + 1) != 0)
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    rline *x = &c->v[c->n++];
    x->line = line;
    x->day = day;
    snprintf(x->grade, sizeof x->grade, "%s", f[1]);
    x->vintage = (int)k;
    snprintf(x->old_v, sizeof x->old_v, "%s", f[3]);
    snprintf(x->new_v, sizeof x->new_v, "%s", f[4]);
    snprintf(x->reason, sizeof x->reason, "%s", f[5]);
    return GPI_OK;
}

/* The value row r publishes ("" for none). */
static const char *published(const vrow *r)
{
    if (r->stands) return r->stands_value;
    const char *s = vj_str(r->j, "value");
    return s ? s : "?";
}

/* The rule's reason for a move old -> new (publish/vintage.c; exact
 * integers), thr in 1e-6 of the value; "" when it does not restate. */
static void reason_of(const char *old_v, const char *new_v, int64_t thr, char *out, size_t cap)
{
    int64_t o = -1, n = -1;
    if (*old_v) v_fixed_text(old_v, 4, &o);
    if (*new_v) v_fixed_text(new_v, 4, &n);
    pub_restate_why(o, n, thr, out, cap);
}

static int64_t threshold_of(const vrow *r)
{
    const char *canon = vj_str(r->j, "grade_definition");
    idx_grades *gs = NULL;
    gpi_diag e = {{0}};
    if (!canon || idx_grade_from_canon(canon, "grade_definition", &gs, &e) != GPI_OK) return -1;
    int64_t t = gs->g[0].p.restate_threshold_e6;
    idx_grades_free(gs);
    return t;
}

static int cmp_line(const rline *a, const rline *b)
{
    if (a->day != b->day) return a->day < b->day ? -1 : 1;
    int g = strcasecmp(a->grade, b->grade);
    if (g) return g;
    return (a->vintage > b->vintage) - (a->vintage < b->vintage);
}

static const rline *find(const rctx *c, int32_t day, const char *grade, int vintage)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].day == day && c->v[i].vintage == vintage &&
            strcasecmp(c->v[i].grade, grade) == 0)
            return &c->v[i];
    return NULL;
}

gpi_status verify_dir_restatements(verify_dir *v, char *differs, size_t cap, char *partial,
                                   size_t pcap, long *lines, gpi_diag *d)
{
    differs[0] = partial[0] = '\0';
    *lines = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/restatements.csv", v->dir);
    int32_t *days = NULL;
    size_t nd = 0;
    gpi_status rc = verify_dir_days(v, &days, &nd, d);
    if (rc != GPI_OK) return rc;
    rctx c;
    memset(&c, 0, sizeof c);
    c.bad = differs;
    c.cap_bad = cap;
    char *text = NULL;
    size_t len = 0;
    if (vfile_exists(path) != GPI_OK) {
        text = strdup("date,grade,vintage,old,new,reason\n"); /* none: checked as empty */
        if (!text) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        len = text ? strlen(text) : 0;
        if (text) snprintf(partial, pcap, "%s is missing", path);
    } else {
        rc = vfile_read(path, v->max_file, &text, &len, d);
    }
    if (rc == GPI_OK) rc = gpi_csv_read_text(path, text, len, rec, &c, d);
    free(text);
    if (rc == GPI_OK && !c.header) fault(differs, cap, "restatements.csv: empty (no header)");
    *lines = (long)c.n;
    /* note 1: sorted, once */
    for (size_t i = 1; i < c.n && !differs[0]; i++)
        if (cmp_line(&c.v[i - 1], &c.v[i]) >= 0)
            fault(differs, cap, "restatements.csv:%ld: out of order or repeated", c.v[i].line);
    /* note 2: each line against its day's vintages */
    for (size_t i = 0; i < c.n && rc == GPI_OK && !differs[0]; i++) {
        const rline *x = &c.v[i];
        char date[11];
        gpi_date_format(x->day, date);
        vday *cur = NULL, *a = NULL, *b = NULL;
        rc = vday_get_vintage(v, x->day, 0, &cur, d);
        if (rc != GPI_OK) break;
        if (!cur->present) { /* note 4 */
            size_t k = strlen(partial);
            if (k + 80 < pcap)
                snprintf(partial + k, pcap - k, "%sline %ld not verifiable without %s/%s",
                         k ? "; " : "", x->line, v->dir, date);
            continue;
        }
        rc = vday_get_vintage(v, x->day, x->vintage, &b, d);
        if (rc == GPI_OK) rc = vday_get_vintage(v, x->day, x->vintage - 1, &a, d);
        if (rc != GPI_OK) break;
        vrow *rb = b->present ? vday_row(b, x->grade) : NULL;
        vrow *ra = a->present ? vday_row(a, x->grade) : NULL;
        if (!rb || !ra) {
            fault(differs, cap, "restatements.csv:%ld: %s has no vintage %d%s of %s", x->line,
                  date, rb ? x->vintage - 1 : x->vintage, rb || ra ? "" : " or before", x->grade);
            break;
        }
        char why[160];
        if (strcmp(published(rb), x->new_v) != 0)
            fault(differs, cap, "restatements.csv:%ld: new %s, but vintage %d of %s publishes %s "
                                "for %s",
                  x->line, x->new_v, x->vintage, date, published(rb), x->grade);
        else if (strcmp(published(ra), x->old_v) != 0)
            fault(differs, cap, "restatements.csv:%ld: old %s, but vintage %d of %s published %s "
                                "for %s",
                  x->line, x->old_v, x->vintage - 1, date, published(ra), x->grade);
        else if (reason_of(x->old_v, x->new_v, threshold_of(rb), why, sizeof why),
                 strcmp(why, x->reason) != 0)
            fault(differs, cap, "restatements.csv:%ld: reason \"%s\", the rule gives \"%s\"",
                  x->line, x->reason, why[0] ? why : "no restatement");
    }
    /* note 3: every change of a published value has its line */
    for (size_t i = 0; i < nd && rc == GPI_OK && !differs[0]; i++) {
        vday *cur = NULL;
        rc = vday_get_vintage(v, days[i], 0, &cur, d);
        if (rc != GPI_OK || !cur->present) continue;
        char date[11];
        gpi_date_format(days[i], date);
        for (int k = 2; k <= cur->n_vintage && rc == GPI_OK && !differs[0]; k++) {
            vday *a = NULL, *b = NULL;
            rc = vday_get_vintage(v, days[i], k - 1, &a, d);
            if (rc == GPI_OK) rc = vday_get_vintage(v, days[i], k, &b, d);
            if (rc != GPI_OK || !a->present || !b->present) continue;
            for (size_t r = 0; r < a->n_rows && !differs[0]; r++) {
                vrow *rb = vday_row(b, a->rows[r].grade);
                if (!rb) {
                    fault(differs, cap, "%s vintage %d: grade %s of vintage %d is gone (a "
                                        "published grade stays)",
                          date, k, a->rows[r].grade, k - 1);
                    break;
                }
                if (strcmp(published(&a->rows[r]), published(rb)) != 0 &&
                    !find(&c, days[i], a->rows[r].grade, k))
                    fault(differs, cap, "restatements.csv: no line for %s %s vintage %d (%s -> "
                                        "%s)",
                          date, a->rows[r].grade, k, published(&a->rows[r]), published(rb));
            }
        }
        verify_dir_forget_before(v, days[i] - 64);
    }
    /* DIR/datapackage.json, describing restatements.csv (package.c) */
    if (rc == GPI_OK) rc = vdir_check_package(v, days, nd, differs, cap, d);
    free(c.v);
    free(days);
    return rc;
}
