/* publish/vintage.c -- which rows a day's next vintage carries, and
 * recording it (SPEC §7; METHODOLOGY.md on restatements).
 *
 * NOTES ON THE DESIGN
 * (1) Publishing compares the built rows with the latest vintage, grade
 *     by grade: a new grade, a value that moved by more than
 *     restate_threshold of the published one, or value <-> none makes a
 *     new vintage (restated grades get a row in index_restatements); a
 *     smaller move is recorded as a revision and the published row stands
 *     (it is carried into any new vintage unchanged).  Nothing new reuses
 *     the latest vintage.  Only the rows of the published grade set are
 *     compared (pub_publish_set; candidates and dropped grades are
 *     skipped in collect_cur), and a new vintage records the published
 *     grades file's SHA-256 (index.json "grades_sha256", kept per vintage
 *     so an old vintage regenerates byte for byte).
 * (2) Rows are compared and carried as text (pub_row): the built rows are
 *     formatted once here (format.c's pub_row_text), a carried row keeps
 *     the text it was published with, whatever the file format since.
 * (3) A new vintage is recorded -- its rows' text with the cut-off and
 *     grade hash each was built with, its format, the SHA-256 of its three
 *     files and the grades file's -- with its restatements and revisions,
 *     inside the publication's one transaction (publish.c note 3).
 * (4) A revision is published (file format 4, issue 31).  A vintage's row
 *     used to be either the built row or, below restate_threshold, the
 *     old row carried as it was: later days built from the revised row
 *     (a v2 chain, a v1 adjustment or carry) were then published against
 *     a day whose files did not hold what they were computed from, and
 *     `verify` could not pass whatever was published.  Now the rule is on
 *     the value alone: a built row that differs from the latest vintage's
 *     row (another build and another text) always makes a new vintage and
 *     is published whole; when its value moved by less than the
 *     threshold, the value published before stands in it (stands_e4, the
 *     value of vintage stands_since), and the row states its own
 *     recomputed value as a revision (format4.c note 3).  A move above
 *     the threshold, or none <-> a value, restates as before.  So the
 *     latest vintage of a day always holds its latest built rows, the
 *     published value moves only by restatements, and what later days
 *     take from a day is in that day's files.
 */
#include "publish/internal.h"
#include "core/vec.h"
#include "store/index_values.h"
#include "store/vintages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- rows of text ------------------------------------------------------------ */

void pub_rows_free(pub_rows *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].csv);
        free(p->v[i].json);
        free(p->v[i].tail);
        free(p->v[i].v3_detail);
        free(p->v[i].roles);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
}

static pub_row *rows_add(pub_rows *p)
{
    if (GPI_VEC_RESERVE(p->v, p->cap, p->n + 1) != 0) return NULL;
    pub_row *r = &p->v[p->n++];
    memset(r, 0, sizeof *r);
    return r;
}

int pub_rows_collect(const store_pub_row *r, void *ud)
{
    pub_rows *p = ud;
    pub_row *x = rows_add(p);
    if (!x) return 1;
    snprintf(x->grade, sizeof x->grade, "%s", r->grade);
    x->level = r->level;
    x->value_e4 = r->value_e4;
    x->as_of = r->as_of;
    snprintf(x->hash, sizeof x->hash, "%s", r->grade_hash);
    x->csv = strdup(r->row_csv);
    x->json = strdup(r->row_json);
    x->tail = strdup(r->row_tail ? r->row_tail : "");
    x->ref_day = r->ref_day;
    x->panel_day = r->panel_day;
    x->v3_detail = r->v3_detail ? strdup(r->v3_detail) : NULL;
    x->roles = r->roles ? strdup(r->roles) : NULL;
    return !x->csv || !x->json || !x->tail || (r->v3_detail && !x->v3_detail) ||
           (r->roles && !x->roles);
}

static int cmp_row(const void *a, const void *b)
{
    return strcasecmp(((const pub_row *)a)->grade, ((const pub_row *)b)->grade);
}

gpi_status pub_grade_load(store *st, const char *hash, idx_grades **out, gpi_diag *d)
{
    gpi_status rc = idx_grade_stored(st, hash, out, d);
    if (rc == GPI_OK && !*out)
        return gpi_diag_set(d, GPI_ESTORE, "index: no stored grade definition %s", hash);
    return rc;
}

/* ---- the built rows ---------------------------------------------------------- */

typedef struct cur_ctx {
    store *st;
    pub_rows *p;
    gpi_status rc;
    gpi_diag *d;
    const pub_set *set;  /* the published grades, or NULL: every grade */
} cur_ctx;

static int in_set(const pub_set *set, const char *grade)
{
    if (!set) return 1;
    for (size_t i = 0; i < set->n; i++)
        if (strcasecmp(set->ids[i], grade) == 0) return 1;
    return 0;
}

static int collect_cur(const store_index_row *r, void *ud)
{
    cur_ctx *c = ud;
    if (!in_set(c->set, r->grade)) return 0; /* a candidate or dropped grade */
    pub_row *x = rows_add(c->p);
    if (!x) {
        c->rc = gpi_diag_set(c->d, GPI_ENOMEM, "out of memory");
        return 1;
    }
    snprintf(x->grade, sizeof x->grade, "%s", r->grade);
    x->level = r->level;
    x->value_e4 = r->level == GPI_LEVEL_SUSPENDED ? -1 : r->value_e4;
    x->as_of = r->as_of;
    snprintf(x->hash, sizeof x->hash, "%s", r->grade_hash);
    x->take_new = 1;
    x->ref_day = r->ref_day;
    x->panel_day = r->panel_day;
    if ((r->v3_detail && !(x->v3_detail = strdup(r->v3_detail))) ||
        (r->roles && !(x->roles = strdup(r->roles)))) {
        c->rc = gpi_diag_set(c->d, GPI_ENOMEM, "out of memory");
        return 1;
    }
    gpi_status rc = pub_row_text(c->st, r, &x->csv, &x->tail, &x->json, c->d);
    if (rc != GPI_OK) c->rc = rc;
    if (!r->grade_hash[0])
        c->rc = gpi_diag_set(c->d, GPI_EINPUT,
                             "publish: row %s was not built by index build (no grade hash)",
                             r->grade);
    return c->rc != GPI_OK;
}

gpi_status pub_rows_built(store *st, int32_t day, const pub_set *set, pub_rows *cur,
                          gpi_diag *d)
{
    cur_ctx cc = {st, cur, GPI_OK, d, set};
    gpi_status rc = store_index_rows(st, NULL, day, day, collect_cur, &cc, d);
    return rc == GPI_OK ? cc.rc : rc;
}

/* ---- the decision ------------------------------------------------------------ */

static gpi_status copy_row(pub_rows *dst, const pub_row *src, gpi_diag *d)
{
    pub_row *x = rows_add(dst);
    if (!x) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    *x = *src;
    x->csv = strdup(src->csv);
    x->json = strdup(src->json);
    x->tail = strdup(src->tail);
    x->v3_detail = src->v3_detail ? strdup(src->v3_detail) : NULL;
    x->roles = src->roles ? strdup(src->roles) : NULL;
    if (!x->csv || !x->json || !x->tail || (src->v3_detail && !x->v3_detail) ||
        (src->roles && !x->roles))
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    return GPI_OK;
}

int pub_row_same(const pub_row *c, const pub_row *o)
{
    if (strcmp(c->hash, o->hash) != 0) return 0;
    if (c->as_of == o->as_of) return 1; /* one build's row */
    return strcmp(c->csv, o->csv) == 0 && strcmp(c->tail, o->tail) == 0 &&
           strcmp(c->json, o->json) == 0;
}

int64_t pub_row_value(const pub_row *r)
{
    return r->stands_since ? r->stands_e4 : r->value_e4;
}

void pub_restate_why(int64_t old, int64_t cur, int64_t thr, char *why, size_t cap)
{
    char a[32], b[32];
    why[0] = '\0';
    if ((old < 0) != (cur < 0)) {
        snprintf(why, cap, "%s", cur < 0 ? "value became none" : "none became a value");
    } else if (old >= 0) {
        __int128 diff = cur > old ? cur - old : old - cur;
        /* from 0.0000 any move is more than the threshold; say so
         * without a percentage (it would divide by zero) */
        if (diff > 0 && old == 0)
            snprintf(why, cap, "value moved from 0.0000 (more than restate_threshold %s %%)",
                     gpi_fixed_format(gpi_div_round(thr, 100), 2, b));
        else if (diff * 1000000 > (__int128)thr * old)
            snprintf(why, cap, "value moved by %s %% (more than restate_threshold %s %%)",
                     gpi_fixed_format(gpi_div_round(diff * 10000, old), 2, a),
                     gpi_fixed_format(gpi_div_round(thr, 100), 2, b));
    }
}

/* Design notes 1 and 4: which rows the day's next vintage carries; last is
 * the latest vintage (old's), 0 when none. */
gpi_status pub_decide(store *st, const pub_rows *cur, const pub_rows *old, int last,
                      pub_rows *next, pub_change *rs, size_t *n_rs, pub_change *rv,
                      size_t *n_rv, int *need_new, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    for (size_t i = 0; i < cur->n && rc == GPI_OK; i++) {
        const pub_row *c = &cur->v[i], *o = NULL;
        for (size_t j = 0; j < old->n && !o; j++)
            if (strcasecmp(old->v[j].grade, c->grade) == 0) o = &old->v[j];
        if (!o) {
            *need_new = 1;
            rc = copy_row(next, c, d);
            continue;
        }
        if (pub_row_same(c, o)) { /* nothing new: the row as published */
            rc = copy_row(next, o, d);
            if (rc == GPI_OK) next->v[next->n - 1].take_new = 0;
            continue;
        }
        idx_grades *g = NULL;
        rc = pub_grade_load(st, c->hash, &g, d);
        if (rc != GPI_OK) break;
        int64_t thr = g->g[0].p.restate_threshold_e6;
        idx_grades_free(g);
        int64_t published = pub_row_value(o);
        pub_change *x = &rs[*n_rs];
        pub_restate_why(published, c->value_e4, thr, x->reason, sizeof x->reason);
        *need_new = 1;
        rc = copy_row(next, c, d);
        if (rc != GPI_OK) break;
        if (x->reason[0]) {
            snprintf(x->grade, sizeof x->grade, "%s", c->grade);
            x->old_e4 = published;
            x->new_e4 = c->value_e4;
            (*n_rs)++;
        } else if (c->value_e4 != published) { /* note 4: the value stands */
            pub_row *y = &next->v[next->n - 1];
            y->stands_e4 = published;
            y->stands_since = o->stands_since ? o->stands_since : last;
            pub_change *z = &rv[(*n_rv)++];
            snprintf(z->grade, sizeof z->grade, "%s", c->grade);
            z->old_e4 = published;
            z->new_e4 = c->value_e4;
        }
    }
    for (size_t j = 0; j < old->n && rc == GPI_OK; j++) {
        int found = 0;
        for (size_t i = 0; i < cur->n; i++) found |= strcasecmp(old->v[j].grade, cur->v[i].grade) == 0;
        if (!found) rc = copy_row(next, &old->v[j], d);
    }
    if (next->n) qsort(next->v, next->n, sizeof *next->v, cmp_row);
    return rc;
}

/* The standing values of vintage k (note 4) onto its rows p. */
typedef struct stand_ctx {
    pub_rows *p;
} stand_ctx;

/* the row read holds the published value; its own is in the standing row */
static int stand_one(const char *grade, int64_t own_e4, int since, void *ud)
{
    stand_ctx *c = ud;
    for (size_t i = 0; i < c->p->n; i++)
        if (strcasecmp(c->p->v[i].grade, grade) == 0) {
            c->p->v[i].stands_e4 = c->p->v[i].value_e4;
            c->p->v[i].value_e4 = own_e4;
            c->p->v[i].stands_since = since;
        }
    return 0;
}

gpi_status pub_rows_standing(store *st, int32_t day, int k, pub_rows *p, gpi_diag *d)
{
    stand_ctx c = {p};
    return store_standing(st, day, k, stand_one, &c, d);
}

/* Design note 3: writes the vintage inside the publication's transaction. */
gpi_status pub_record(store *st, int32_t day, int vintage, int is_new, const pub_rows *next,
                      const pub_files *fs, const char *grades_sha, int64_t seq,
                      const char *head4, const pub_change *rs, size_t n_rs,
                      const pub_change *rv, size_t n_rv, gpi_diag *d)
{
    int64_t now = (int64_t)time(NULL);
    gpi_status rc = GPI_OK;
    for (size_t i = 0; is_new && i < next->n && rc == GPI_OK; i++) {
        const pub_row *x = &next->v[i];
        store_pub_row r;
        memset(&r, 0, sizeof r);
        snprintf(r.grade, sizeof r.grade, "%s", x->grade);
        r.level = x->level;
        r.value_e4 = pub_row_value(x); /* the value published */
        r.as_of = x->as_of;
        snprintf(r.grade_hash, sizeof r.grade_hash, "%s", x->hash);
        r.row_csv = x->csv;
        r.row_json = x->json;
        r.row_tail = x->tail;
        r.ref_day = x->ref_day;
        r.panel_day = x->panel_day;
        r.v3_detail = x->v3_detail;
        r.roles = x->roles;
        rc = store_index_put_published_row(st, day, vintage, &r, d);
        if (rc == GPI_OK && x->stands_since)
            rc = store_standing_put(st, day, vintage, x->grade, x->value_e4, x->stands_since, d);
    }
    if (is_new && rc == GPI_OK)
        rc = store_vintage_put(st, day, vintage, PUB_FORMAT_CURRENT, now, fs->sha[0], fs->sha[1],
                               fs->sha[2], d);
    if (is_new && rc == GPI_OK) rc = store_vintage_set_grades_sha(st, day, vintage, grades_sha, d);
    if (is_new && rc == GPI_OK) rc = pub_curve_record(st, day, vintage, fs, d); /* format 4 */
    if (is_new && rc == GPI_OK && head4) rc = store_vintage_set_head(st, day, vintage, seq, head4, d);
    for (size_t i = 0; i < n_rs && rc == GPI_OK; i++)
        rc = store_restatement_put(st, day, rs[i].grade, vintage, rs[i].old_e4, rs[i].new_e4,
                                   rs[i].reason, d);
    for (size_t i = 0; i < n_rv && rc == GPI_OK; i++)
        rc = store_revision_put(st, day, rv[i].grade, vintage, rv[i].old_e4, rv[i].new_e4, now, d);
    return rc;
}
