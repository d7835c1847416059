/* publish/late.c -- the published days late data left behind (METHODOLOGY.md
 * §6.3; issue 31: late trades for an already published day, then the
 * daily job's build and publication of a later day, and neither command
 * said a word about the day: it stayed at 2.5863 where a rebuild gave
 * 2.7174).
 *
 * NOTES ON THE DESIGN
 * (1) Two ways a published day falls behind, per row of its latest
 *     vintage of the published grade set:
 *     - its built row is older than the observations it depends on: a
 *       batch ingested after the row's cut-off stored observations of a
 *       day from idx_depends_from(grade, day) to the day (the batches
 *       record the first and last day of their rows).  The day must be
 *       built again (`index build` does so by itself: cli/cmd_index.c);
 *       publishing it as it is would publish a stale row, so publication
 *       refuses it (pub_check_inputs).
 *     - its built row is not the row its latest vintage holds (another
 *       build and another text: vintage.c's pub_row_same): publishing the
 *       day again makes a new vintage, which vintage.c's rule decides --
 *       a restatement, or a revision with the value standing.  That is
 *       named here with its figures, from the same decision (pub_decide)
 *       that publication makes.
 * (2) Method-agnostic: what a row depends on is idx_depends_from (index/);
 *     whether it changed is its text.  Nothing here knows a method.
 * (3) Cheap when nothing is late (the daily job): one query for the
 *     latest vintages' rows against the built rows (their cut-offs and
 *     hashes), one for the batches ingested after the oldest cut-off; a
 *     day's rows are formatted and decided only when a row's cut-off or
 *     hash differs.
 * (4) Publishing a row computed from rows of earlier days that are not
 *     published as they were computed would leave the row unverifiable
 *     from the published files (verify checks what a row took from
 *     another day against that day's vintage of the time: format4.c note
 *     1).  So a publication of day D whose new rows depend on a published
 *     day D' < D that is behind (either way) refuses, naming D' and the
 *     command that publishes it first (`index publish --restate`, which
 *     builds what must be built and publishes the days in order).
 */
#include "publish/internal.h"
#include "core/vec.h"
#include "store/batches.h"
#include "store/vintages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the rows of the latest vintages against the built rows --------------------- */

typedef struct late_row {
    int32_t day;
    int vintage;
    char grade[65];
    int64_t cut;                /* the built row's cut-off (else the published one's) */
    int32_t from;               /* idx_depends_from */
    int changed;                /* the built row is another build's or definition's */
    int late;                   /* note 1: built before observations it depends on */
} late_row;

typedef struct grade_memo {
    char hash[65];
    idx_grades *g;
} grade_memo;

typedef struct scan_ctx {
    store *st;
    const pub_set *set;
    late_row *v;
    size_t n, cap;
    grade_memo *memo;
    size_t n_memo, cap_memo;
    gpi_status rc;
    gpi_diag *d;
} scan_ctx;

static int in_set(const pub_set *set, const char *grade)
{
    if (!set) return 1;
    for (size_t i = 0; i < set->n; i++)
        if (strcasecmp(set->ids[i], grade) == 0) return 1;
    return 0;
}

static const idx_grade *grade_of(scan_ctx *c, const char *hash)
{
    for (size_t i = 0; i < c->n_memo; i++)
        if (strcmp(c->memo[i].hash, hash) == 0) return &c->memo[i].g->g[0];
    if (GPI_VEC_RESERVE(c->memo, c->cap_memo, c->n_memo + 1) != 0) {
        c->rc = gpi_diag_set(c->d, GPI_ENOMEM, "out of memory");
        return NULL;
    }
    grade_memo *m = &c->memo[c->n_memo];
    snprintf(m->hash, sizeof m->hash, "%s", hash);
    if ((c->rc = pub_grade_load(c->st, hash, &m->g, c->d)) != GPI_OK) return NULL;
    c->n_memo++;
    return &m->g->g[0];
}

static int scan_row(const store_pub_built *r, void *ud)
{
    scan_ctx *c = ud;
    if (!in_set(c->set, r->grade)) return 0;
    const char *hash = r->built_hash[0] ? r->built_hash : r->pub_hash;
    const idx_grade *g = hash[0] ? grade_of(c, hash) : NULL;
    if (c->rc != GPI_OK) return 1;
    if (GPI_VEC_RESERVE(c->v, c->cap, c->n + 1) != 0) {
        c->rc = gpi_diag_set(c->d, GPI_ENOMEM, "out of memory");
        return 1;
    }
    late_row *x = &c->v[c->n++];
    memset(x, 0, sizeof *x);
    x->day = r->day;
    x->vintage = r->vintage;
    snprintf(x->grade, sizeof x->grade, "%s", r->grade);
    x->cut = r->built_as_of >= 0 ? r->built_as_of : r->pub_as_of;
    x->from = g ? idx_depends_from(g, r->day) : r->day;
    x->changed = r->built_as_of >= 0 &&
                 (r->built_as_of != r->pub_as_of || strcmp(r->built_hash, r->pub_hash) != 0);
    return 0;
}

typedef struct batch_span {
    int64_t at;
    int32_t lo, hi;
} batch_span;

typedef struct spans {
    batch_span *v;
    size_t n, cap;
    int oom;
} spans;

static int add_span(int64_t at, int32_t lo, int32_t hi, void *ud)
{
    spans *s = ud;
    if (GPI_VEC_RESERVE(s->v, s->cap, s->n + 1) != 0) {
        s->oom = 1;
        return 1;
    }
    s->v[s->n++] = (batch_span){at, lo, hi};
    return 0;
}

static void scan_free(scan_ctx *c)
{
    for (size_t i = 0; i < c->n_memo; i++) idx_grades_free(c->memo[i].g);
    free(c->memo);
    free(c->v);
}

/* Note 1 over the published days in [from, to]: c->v. */
static gpi_status scan(store *st, const pub_set *set, int32_t from, int32_t to, scan_ctx *c,
                       gpi_diag *d)
{
    memset(c, 0, sizeof *c);
    c->st = st;
    c->set = set;
    c->d = d;
    gpi_status rc = store_published_vs_built(st, from, to, scan_row, c, d);
    if (rc == GPI_OK) rc = c->rc;
    if (rc != GPI_OK || c->n == 0) return rc;
    int64_t oldest = c->v[0].cut;
    for (size_t i = 1; i < c->n; i++)
        if (c->v[i].cut < oldest) oldest = c->v[i].cut;
    spans b = {0};
    rc = store_batches_after(st, oldest, add_span, &b, d);
    if (rc == GPI_OK && b.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->n && rc == GPI_OK; i++) {
        late_row *x = &c->v[i];
        for (size_t k = 0; k < b.n && !x->late; k++)
            x->late = b.v[k].at > x->cut && b.v[k].lo <= x->day && b.v[k].hi >= x->from;
    }
    free(b.v);
    return rc;
}

/* ---- the days (note 1) ------------------------------------------------------------ */

static void put(char *out, size_t cap, const char *fmt, const char *a, const char *b,
                const char *c)
{
    size_t k = strlen(out);
    if (k < cap) snprintf(out + k, cap - k, fmt, a, b, c);
}

/* What publishing day `day` again would make: the decision of vintage.c. */
static gpi_status describe(store *st, int32_t day, const pub_set *set, pub_stale *x,
                           gpi_diag *d)
{
    pub_rows cur = {0}, old = {0}, next = {0};
    pub_change *rs = NULL, *rv = NULL;
    size_t n_rs = 0, n_rv = 0;
    int last = 0, need_new = 0;
    gpi_status rc = pub_rows_built(st, day, set, &cur, d);
    if (rc == GPI_OK) rc = store_vintage_last(st, day, &last, d);
    if (rc == GPI_OK && last) rc = store_vintage_rows(st, day, last, pub_rows_collect, &old, d);
    if (rc == GPI_OK && last) rc = pub_rows_standing(st, day, last, &old, d);
    if (rc == GPI_OK) {
        rs = calloc(cur.n + 1, sizeof *rs);
        rv = calloc(cur.n + 1, sizeof *rv);
        if (!rs || !rv) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    if (rc == GPI_OK)
        rc = pub_decide(st, &cur, &old, last, &next, rs, &n_rs, rv, &n_rv, &need_new, d);
    if (rc == GPI_OK) {
        char a[32], b[32];
        x->restated = (int)n_rs;
        x->revised = (int)n_rv;
        x->pending = need_new;
        for (size_t i = 0; i < n_rs; i++) {
            put(x->what, sizeof x->what, "%s%s restated ", x->what[0] ? "; " : "", rs[i].grade,
                "");
            put(x->what, sizeof x->what, "%s -> %s (%s)",
                rs[i].old_e4 >= 0 ? gpi_fixed_format(rs[i].old_e4, 4, a) : "none",
                rs[i].new_e4 >= 0 ? gpi_fixed_format(rs[i].new_e4, 4, b) : "none", rs[i].reason);
        }
        for (size_t i = 0; i < n_rv; i++) {
            put(x->what, sizeof x->what, "%s%s revised %s", x->what[0] ? "; " : "", rv[i].grade,
                gpi_fixed_format(rv[i].old_e4, 4, a));
            put(x->what, sizeof x->what, " -> %s (its value %s stands)%s",
                gpi_fixed_format(rv[i].new_e4, 4, b), gpi_fixed_format(rv[i].old_e4, 4, a), "");
        }
        if (need_new && !n_rs && !n_rv)
            put(x->what, sizeof x->what, "%s%s%s", x->what[0] ? "; " : "",
                "rows rebuilt with their values unchanged (a new vintage)", "");
    }
    pub_rows_free(&cur);
    pub_rows_free(&old);
    pub_rows_free(&next);
    free(rs);
    free(rv);
    return rc;
}

gpi_status pub_stale_days(store *st, const pub_set *set, int32_t from, int32_t to, int decide,
                          pub_stale **out, size_t *n, gpi_diag *d)
{
    *out = NULL;
    *n = 0;
    scan_ctx c;
    gpi_status rc = scan(st, set, from, to, &c, d);
    size_t cap = 0;
    for (size_t i = 0; i < c.n && rc == GPI_OK;) {
        size_t j = i;
        int late = 0, changed = 0;
        for (; j < c.n && c.v[j].day == c.v[i].day; j++) {
            late |= c.v[j].late;
            changed |= c.v[j].changed;
        }
        if (late || (changed && decide)) {
            if (GPI_VEC_RESERVE(*out, cap, *n + 1) != 0) {
                rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
                break;
            }
            pub_stale *x = &(*out)[(*n)++];
            memset(x, 0, sizeof *x);
            x->day = c.v[i].day;
            x->vintage = c.v[i].vintage;
            x->rebuild = late;
            if (late) {
                int named = 0, more = 0;
                for (size_t k = i; k < j; k++) {
                    if (!c.v[k].late) continue;
                    if (named++ < 3)
                        put(x->what, sizeof x->what, "%s%s", x->what[0] ? ", " : "",
                            c.v[k].grade, "");
                    else
                        more++;
                }
                char tmp[sizeof x->what];
                snprintf(tmp, sizeof tmp, "%s", x->what);
                if (more)
                    snprintf(x->what, sizeof x->what,
                             "built before late data reached it (%s and %d more)", tmp, more);
                else
                    snprintf(x->what, sizeof x->what, "built before late data reached it (%s)",
                             tmp);
            } else {
                rc = describe(st, x->day, set, x, d);
                if (rc == GPI_OK && !x->pending) (*n)--; /* the same rows after all */
            }
        }
        i = j;
    }
    scan_free(&c);
    if (rc != GPI_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- note 4: what a publication of day may be computed from ------------------------ */

gpi_status pub_check_inputs(store *st, int32_t day, const pub_set *set, const pub_rows *next,
                            gpi_diag *d)
{
    /* the earliest day the new rows depend on, and their oldest cut-off */
    int32_t lo = day;
    int64_t oldest = INT64_MAX;
    int32_t *from = calloc(next->n + 1, sizeof *from);
    if (!from) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t i = 0; i < next->n; i++) {
        if (!next->v[i].take_new) continue;
        idx_grades *g = NULL;
        gpi_status rc = pub_grade_load(st, next->v[i].hash, &g, d);
        if (rc != GPI_OK) {
            free(from);
            return rc;
        }
        from[i] = idx_depends_from(&g->g[0], day);
        idx_grades_free(g);
        if (from[i] < lo) lo = from[i];
        if (next->v[i].as_of < oldest) oldest = next->v[i].as_of;
    }
    char date[11];
    gpi_date_format(day, date);
    /* the day itself, published or not: no new row older than the
     * observations it depends on */
    spans b = {0};
    gpi_status rc = oldest == INT64_MAX ? GPI_OK : store_batches_after(st, oldest, add_span, &b, d);
    if (rc == GPI_OK && b.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    int self_late = 0;
    for (size_t i = 0; i < next->n && rc == GPI_OK && !self_late; i++)
        for (size_t k = 0; next->v[i].take_new && k < b.n && !self_late; k++)
            self_late = b.v[k].at > next->v[i].as_of && b.v[k].lo <= day && b.v[k].hi >= from[i];
    free(b.v);
    free(from);
    if (rc != GPI_OK) return rc;
    pub_stale *late = NULL;
    size_t n = 0;
    if (self_late)
        return gpi_diag_set(d, GPI_EINPUT,
                            "publish: %s: its rows were built before late data reached it (a "
                            "file ingested after them holds observations it depends on); build "
                            "it again first: gpuidx index build --from %s --to %s",
                            date, date, date);
    if (lo >= day) return GPI_OK;
    rc = pub_stale_days(st, set, lo, day - 1, 1, &late, &n, d);
    if (rc == GPI_OK && n) {
        char days[400] = "", a[11];
        for (size_t i = 0; i < n && strlen(days) + 16 < sizeof days; i++) {
            gpi_date_format(late[i].day, a);
            size_t k = strlen(days);
            snprintf(days + k, sizeof days - k, "%s%s", i ? ", " : "", a);
        }
        rc = gpi_diag_set(d, GPI_EINPUT,
                          "publish: %s: its rows are computed from rows of %s that are not "
                          "published as they stand (late data); publish %s first: gpuidx index "
                          "publish --restate --out DIR (or add --restate to this command)",
                          date, days, n == 1 ? "it" : "them");
    }
    free(late);
    return rc;
}
