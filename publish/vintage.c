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
    return !x->csv || !x->json || !x->tail || (r->v3_detail && !x->v3_detail);
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
    if (r->v3_detail && !(x->v3_detail = strdup(r->v3_detail))) {
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
    if (!x->csv || !x->json || !x->tail || (src->v3_detail && !x->v3_detail))
        return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    return GPI_OK;
}

/* Design note 1: which rows the day's next vintage carries. */
gpi_status pub_decide(store *st, const pub_rows *cur, const pub_rows *old, pub_rows *next,
                      pub_change *rs, size_t *n_rs, pub_change *rv, size_t *n_rv,
                      int *need_new, gpi_diag *d)
{
    gpi_status rc = GPI_OK;
    char a[32], b[32];
    for (size_t i = 0; i < cur->n && rc == GPI_OK; i++) {
        const pub_row *c = &cur->v[i], *o = NULL;
        for (size_t j = 0; j < old->n && !o; j++)
            if (strcasecmp(old->v[j].grade, c->grade) == 0) o = &old->v[j];
        if (!o) {
            *need_new = 1;
            rc = copy_row(next, c, d);
            continue;
        }
        idx_grades *g = NULL;
        rc = pub_grade_load(st, c->hash, &g, d);
        if (rc != GPI_OK) break;
        int64_t thr = g->g[0].p.restate_threshold_e6;
        idx_grades_free(g);
        pub_change *x = &rs[*n_rs];
        x->reason[0] = '\0';
        if ((o->value_e4 < 0) != (c->value_e4 < 0)) {
            snprintf(x->reason, sizeof x->reason, "%s",
                     c->value_e4 < 0 ? "value became none" : "none became a value");
        } else if (o->value_e4 >= 0) {
            __int128 diff = c->value_e4 > o->value_e4 ? c->value_e4 - o->value_e4
                                                      : o->value_e4 - c->value_e4;
            /* from 0.0000 any move is more than the threshold; say so
             * without a percentage (it would divide by zero) */
            if (diff > 0 && o->value_e4 == 0)
                snprintf(x->reason, sizeof x->reason,
                         "value moved from 0.0000 (more than restate_threshold %s %%)",
                         gpi_fixed_format(gpi_div_round(thr, 100), 2, b));
            else if (diff * 1000000 > (__int128)thr * o->value_e4)
                snprintf(x->reason, sizeof x->reason,
                         "value moved by %s %% (more than restate_threshold %s %%)",
                         gpi_fixed_format(gpi_div_round(diff * 10000, o->value_e4), 2, a),
                         gpi_fixed_format(gpi_div_round(thr, 100), 2, b));
        }
        if (x->reason[0]) {
            snprintf(x->grade, sizeof x->grade, "%s", c->grade);
            x->old_e4 = o->value_e4;
            x->new_e4 = c->value_e4;
            (*n_rs)++;
            *need_new = 1;
            rc = copy_row(next, c, d);
        } else {
            if (c->value_e4 != o->value_e4) {
                pub_change *y = &rv[(*n_rv)++];
                snprintf(y->grade, sizeof y->grade, "%s", c->grade);
                y->old_e4 = o->value_e4;
                y->new_e4 = c->value_e4;
            }
            rc = copy_row(next, o, d);
            if (rc == GPI_OK) next->v[next->n - 1].take_new = 0;
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

/* Design note 3: writes the vintage inside the publication's transaction. */
gpi_status pub_record(store *st, int32_t day, int vintage, int is_new, const pub_rows *next,
                      const pub_files *fs, const char *grades_sha, const pub_change *rs,
                      size_t n_rs, const pub_change *rv, size_t n_rv, gpi_diag *d)
{
    int64_t now = (int64_t)time(NULL);
    gpi_status rc = GPI_OK;
    for (size_t i = 0; is_new && i < next->n && rc == GPI_OK; i++) {
        const pub_row *x = &next->v[i];
        store_pub_row r;
        memset(&r, 0, sizeof r);
        snprintf(r.grade, sizeof r.grade, "%s", x->grade);
        r.level = x->level;
        r.value_e4 = x->value_e4;
        r.as_of = x->as_of;
        snprintf(r.grade_hash, sizeof r.grade_hash, "%s", x->hash);
        r.row_csv = x->csv;
        r.row_json = x->json;
        r.row_tail = x->tail;
        r.ref_day = x->ref_day;
        r.panel_day = x->panel_day;
        r.v3_detail = x->v3_detail;
        rc = store_index_put_published_row(st, day, vintage, &r, d);
    }
    if (is_new && rc == GPI_OK)
        rc = store_vintage_put(st, day, vintage, PUB_FORMAT_CURRENT, now, fs->sha[0], fs->sha[1],
                               fs->sha[2], d);
    if (is_new && rc == GPI_OK) rc = store_vintage_set_grades_sha(st, day, vintage, grades_sha, d);
    if (is_new && rc == GPI_OK) rc = pub_curve_record(st, day, vintage, fs, d); /* format 4 */
    for (size_t i = 0; i < n_rs && rc == GPI_OK; i++)
        rc = store_restatement_put(st, day, rs[i].grade, vintage, rs[i].old_e4, rs[i].new_e4,
                                   rs[i].reason, d);
    for (size_t i = 0; i < n_rv && rc == GPI_OK; i++)
        rc = store_revision_put(st, day, rv[i].grade, vintage, rv[i].old_e4, rv[i].new_e4, now, d);
    return rc;
}
