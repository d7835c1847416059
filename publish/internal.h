/* publish/internal.h -- shared by the publish module's own files only
 * (publish/publish.h lists them and what each holds).
 *
 * A vintage is made of rows of text (pub_row): each row's index.csv head
 * and tail and its index.json object, as format.c wrote them when the row
 * was first published, with what regenerates its observations.csv lines
 * (cut-off, grade hash, level, v2 days).  vintage.c decides which rows a
 * new vintage carries, files.c turns rows into the three files, tree.c
 * puts files into place, publish.c runs the steps.
 */
#ifndef GPI_PUBLISH_INTERNAL_H
#define GPI_PUBLISH_INTERNAL_H

#include <jansson.h>
#include <stdio.h>

#include "core/sig.h"
#include "index/bootstrap.h"
#include "index/index.h"
#include "index/v3.h"
#include "publish/publish.h"
#include "store/store.h"
#include "store/index_values.h"
#include "store/vintages.h"

/* PUB_FORMAT_CURRENT, the file format new vintages are written in,
 * PUB_FORMAT_ROWS, the columns of a stored row, and the columns of each
 * format: publish/columns.h. */
#include "publish/columns.h"
/* The file format from which a vintage has the term curve's files
 * (curve.csv, curve.json: publish/curve.c). */
enum { PUB_FORMAT_CURVE = 4 };

/* ---- review_fsp.c: the review's monthly manipulation figures (v3) -------- */

typedef struct pub_review_month {
    int ym;                 /* year x 12 + month - 1 */
    int32_t last_day;       /* the month's last row in the range */
    int64_t sum_e4;         /* its values (not suspended), and their count */
    long n;
    int has;                /* fig holds the last row's figures */
    idx_reach_pub fig;
} pub_review_month;
typedef struct pub_review_fsp {
    pub_review_month *v;
    size_t n, cap;
} pub_review_fsp;
/* Takes one row of a grade's rows in day order (-1 out of memory). */
int pub_review_fsp_take(pub_review_fsp *x, const store_index_row *r);
void pub_review_fsp_free(pub_review_fsp *x);
/* The Markdown section (nothing when no month has figures) and the JSON
 * object (a new reference); mid is the last day of the range's first half. */
void pub_review_fsp_md(FILE *f, const pub_review_fsp *x, int32_t mid);
json_t *pub_review_fsp_json(const pub_review_fsp *x, int32_t mid);

/* ---- format.c ------------------------------------------------------------- */

/* A stored row as published text (malloc'd, free() each): csv its
 * index.csv columns up to `methodology` and the comma after it, tail the
 * columns after the vintage (",xs_value,...,cost_1pct_offers"), json its
 * index.json members without braces and vintage (json NULL: not made;
 * st is read for the adjustment days then).  On an error nothing is
 * returned. */
gpi_status pub_row_text(store *st, const store_index_row *r, char **csv, char **tail,
                        char **json, gpi_diag *d);
/* Writes ,"key":v as a JSON string member (null for NULL or ""). */
void pub_json_text(FILE *f, const char *key, const char *v);
/* The index.csv header line of file format `format`. */
void pub_csv_header(FILE *f, int format);
/* The one writer of an index.csv line: head, the vintage (empty when <= 0),
 * then tail, padded with empty fields to `format`'s columns (a row of an
 * older format carried into a later vintage), then (format 4) extra, the
 * columns publication adds (NULL: empty ones); ends with LF. */
void pub_csv_line(FILE *f, const char *head, int vintage, const char *tail, int format);
void pub_csv_line_extra(FILE *f, const char *head, int vintage, const char *tail, int format,
                        const char *extra);

/* ---- receipt.c ------------------------------------------------------------ */

/* The receipt of a grade's lines of observations.csv (text, len bytes of
 * whole lines): {"rows":N,"sha256":...,"columns":{name: sha256 of the
 * column's values, each followed by a NUL}}; *out is malloc'd. */
gpi_status pub_receipt_rows(const char *text, size_t len, const char *const *cols, int ncols,
                            char **out, gpi_diag *d);
/* The members of the "batches" array of a row of day with cut-off as_of
 * (design note 3 there): *out is malloc'd ("" when none).  Rows with one
 * cut-off share it (files.c makes it once per cut-off). */
gpi_status pub_receipt_batches(store *st, int32_t day, int64_t as_of, char **out, gpi_diag *d);
/* Writes a published row's members ",\"grade_definition\":...,\"receipt\":{...}"
 * (design note 3 there): grade hash's stored definition, the receipt obs
 * of its lines (pub_receipt_rows; NULL writes null) and its batches
 * (pub_receipt_batches); in file format 4 also the row's currency, unit
 * and definition object (note 4 there). */
gpi_status pub_receipt_json(store *st, const char *grade, const char *hash, const char *obs,
                            const char *batches, int format, FILE *f, gpi_diag *d);

/* ---- vintage.c ------------------------------------------------------------ */

/* One row of a vintage. */
typedef struct pub_row {
    char grade[65];
    int level;
    int64_t value_e4, as_of;
    char hash[65];
    char *csv, *json, *tail;    /* tail: CSV columns after the vintage ("" format 1) */
    int32_t ref_day, panel_day; /* v2: what observations.csv's relatives compare with */
    char *v3_detail;            /* v3: what observations.csv lists of the panel (or NULL) */
    char *roles;                /* what the fix made of the day's observations
                                   (index/roles.c), or NULL (built before store
                                   version 17: observations.csv fixes the day again) */
    int take_new;               /* 1 = the next vintage uses the built row */
    /* a revision published (vintage.c note 4): the row is the built one but
     * its value stands as published in vintage stands_since (0: none) */
    int64_t stands_e4;
    int stands_since;
} pub_row;

typedef struct pub_rows {
    pub_row *v;
    size_t n, cap;
} pub_rows;

void pub_rows_free(pub_rows *p);
/* store_vintage_rows callback: appends the stored row to ud (a pub_rows). */
int pub_rows_collect(const store_pub_row *r, void *ud);
/* The stored definition of grade hash as a set of one grade (free with
 * idx_grades_free). */
gpi_status pub_grade_load(store *st, const char *hash, idx_grades **out, gpi_diag *d);

/* A value that moved: restated (with the reason) or revised. */
typedef struct pub_change {
    char grade[65];
    int64_t old_e4, new_e4;
    char reason[128];
} pub_change;

/* The day's built rows of the published grade set (NULL: every grade) as
 * text into cur; GPI_EINPUT for a row index build did not make. */
gpi_status pub_rows_built(store *st, int32_t day, const pub_set *set, pub_rows *cur,
                          gpi_diag *d);
/* Which rows the day's next vintage carries (vintage.c design note 1):
 * from the built rows cur and the latest vintage's old into next (sorted
 * by grade); restatements into rs, revisions into rv (each room for
 * cur->n); *need_new set when a new vintage is needed. */
gpi_status pub_decide(store *st, const pub_rows *cur, const pub_rows *old, int last,
                      pub_rows *next, pub_change *rs, size_t *n_rs, pub_change *rv,
                      size_t *n_rv, int *need_new, gpi_diag *d);
/* 1 when built row c is the row o a vintage holds (the same build, or the
 * same text). */
int pub_row_same(const pub_row *c, const pub_row *o);
/* The value a vintage's row publishes (its standing value, or its own). */
int64_t pub_row_value(const pub_row *r);
/* The standing values of vintage k of day onto the rows p read from it. */
gpi_status pub_rows_standing(store *st, int32_t day, int k, pub_rows *p, gpi_diag *d);

/* ---- format4.c ------------------------------------------------------------- */

/* The members format 4 adds to a new vintage's index.json after
 * "index_csv_sha256" (format4.c notes): its sequence number (*seq), the
 * grade set's commitment, the links to the vintage before and to the day
 * before, as text ending in a comma (*out malloc'd). */
gpi_status pub_head4(store *st, int32_t day, int vintage, const pub_rows *next,
                     const pub_set *set, int64_t *seq, char **out, gpi_diag *d);
/* A row's index.csv head and index.json object as published: with a
 * standing value (r->stands_since), the value replaced and the revision
 * stated (format4.c note 3); else copies.  Both malloc'd. */
gpi_status pub_row_published(const pub_row *r, char **csv, char **json, gpi_diag *d);

/* ---- late.c (design note 4) ----------------------------------------------- */

/* GPI_EINPUT, naming them and the command, when day's built rows are
 * older than observations they depend on, or when next's new rows depend
 * on a published day behind (publish.h's pub_stale). */
gpi_status pub_check_inputs(store *st, int32_t day, const pub_set *set, const pub_rows *next,
                            gpi_diag *d);

/* ---- files.c -------------------------------------------------------------- */

typedef struct pub_files {
    char *buf[3];
    size_t len[3];
    char sha[3][65];
    /* a signed vintage (sign.c): the key's fingerprint, the signature and
     * signature.json's text; fingerprint "" and sig NULL when unsigned */
    char fingerprint[65];
    char sig_b64[GPI_SIG_B64_MAX];
    char *sig;
    size_t sig_len;
    /* file format 4: curve.csv and curve.json (publish/curve.c; NULL:
     * none), and the futures inputs they took (CSV text, recorded) */
    char *cbuf[2];
    size_t clen[2];
    char csha[2][65];
    char *futures;
} pub_files;

/* "index.csv", "index.json", "observations.csv": the order of pub_files
 * (a signed vintage adds core/sig.h's GPI_SIG_FILE). */
extern const char *const pub_file_names[3];
void pub_files_free(pub_files *fs);
/* The three files of vintage `vintage` of day in file format `format`,
 * made of rows p (sorted by grade); grades_sha: the published grades
 * file's SHA-256 (NULL or "": none); fingerprint: the signing key's
 * (format 4; NULL or "": unsigned); head4: format4.c's members (format
 * 4; NULL: none); verbatim: observations.csv's text cells as stored
 * (files.c design note 2); futures: format 4, the futures inputs of the
 * curve (publish/curve.c note 1; NULL none). */
gpi_status pub_files_make(store *st, int32_t day, int vintage, int format, const pub_rows *p,
                          const char *grades_sha, const char *fingerprint,
                          const char *head4, int verbatim, const char *futures,
                          pub_files *fs, gpi_diag *d);
/* The files of vintage k of day: the copy kept under dir when intact,
 * else regenerated from the store and checked against the recorded
 * SHA-256s. */
gpi_status pub_files_old(store *st, const char *dir, int32_t day, int k, pub_files *fs,
                         gpi_diag *d);

/* vintage.c (design note 3): records vintage `vintage` of day when is_new
 * -- rows next, files fs, grades_sha -- and the restatements rs and
 * revisions rv, in the caller's transaction. */
gpi_status pub_record(store *st, int32_t day, int vintage, int is_new, const pub_rows *next,
                      const pub_files *fs, const char *grades_sha, int64_t seq,
                      const char *head4, const pub_change *rs, size_t n_rs,
                      const pub_change *rv, size_t n_rv, gpi_diag *d);

/* ---- sign.c and commit.c (format 4) ---------------------------------------- */

/* A grade's lines of observations.csv as the bootstrap and the stale
 * share read them (files.c captures them while writing the lines; group
 * names are owned, interned per grade). */
typedef struct pub_capture {
    idx_boot_line *v;
    uint64_t *key;          /* the store's key of each line's identity */
    size_t n, cap;
    char **names;
    size_t nn, capn;
    int oom;
} pub_capture;
void pub_capture_free(pub_capture *c);
/* pub_obs_lines (publish.h), capturing the lines into cap as publication
 * does (NULL: not captured). */
gpi_status pub_obs_lines_capture(store *st, int32_t day, const idx_grade *g,
                                 const idx_detail *lv, int64_t as_of, char **text, size_t *len,
                                 pub_capture *cap, gpi_diag *d);
/* What publication adds to a row of file format 4: its index.csv columns
 * (",ci_low,ci_high,confidence,stale_share") and index.json members. */
typedef struct pub_extra {
    char csv[128];
    char *json;             /* malloc'd */
} pub_extra;

/* Signs the files fs of vintage `vintage` of day with k: fills
 * fs->fingerprint, sig_b64, sig (signature.json's text). */
gpi_status pub_sign_files(const pub_key *k, int32_t day, int vintage, pub_files *fs, gpi_diag *d);
/* DIR/restatements.signature.json's text (malloc'd) for restatements.csv
 * of len bytes at buf, signed with k (sign.c, METHODOLOGY.md §7.3). */
gpi_status pub_sign_restatements(const pub_key *k, const char *buf, size_t len, char **out,
                                 size_t *out_len, gpi_diag *d);
/* signature.json's text (malloc'd) of a signed vintage. */
gpi_status pub_sig_text(int32_t day, int vintage, const char *fingerprint, const char sha[3][65],
                        const char *sig_b64, char **out, size_t *len, gpi_diag *d);
/* index.json's top-level members of file format 4 after grades_sha256:
 * "key_fingerprint" and "inputs" (every batch holding observations of
 * the day at the latest cut-off of rows p), each followed by a comma. */
gpi_status pub_commit_top(store *st, int32_t day, const pub_rows *p, const char *fingerprint,
                          FILE *f, gpi_diag *d);
/* A row's additions of file format 4 (commit.c): its cut-off, the
 * bootstrap interval and confidence flag of its fix (index/bootstrap.c)
 * and the stale share of its providers, from its lines c. */
gpi_status pub_commit_row(store *st, int32_t day, const pub_row *r, const pub_capture *c,
                          pub_extra *x, gpi_diag *d);

/* ---- curve.c (file format 4) ------------------------------------------------ */

struct curve_futures;
/* "curve.csv", "curve.json". */
extern const char *const pub_curve_names[2];
/* The day's futures inputs of the grades of rows p as the text a vintage
 * records (curve.c note 1); malloc'd, "" none. */
char *pub_curve_futures_text(const struct curve_futures *f, int32_t day, const pub_rows *p);
/* Makes fs's curve files of vintage `vintage` of day from rows p and the
 * futures text (NULL none). */
gpi_status pub_curve_make(store *st, int32_t day, int vintage, const pub_rows *p,
                          const char *futures, pub_files *fs, gpi_diag *d);
/* index.json's "curve_sha256":{...}, (nothing when fs has no curve files). */
void pub_curve_json_top(FILE *f, const pub_files *fs);
/* Writes fs's curve files into dir (hard links of link_from's where it can). */
gpi_status pub_curve_write(const char *dir, const char *link_from, const pub_files *fs,
                           gpi_diag *d);
/* Records fs's curve files for vintage `vintage` of day (inside the
 * publication's transaction). */
gpi_status pub_curve_record(store *st, int32_t day, int vintage, const pub_files *fs, gpi_diag *d);
/* What the store recorded of vintage k's curve files: *present, their
 * SHA-256, the futures text (*futures malloc'd). */
gpi_status pub_curve_recorded(store *st, int32_t day, int k, int *present, char sha[2][65],
                              char **futures, gpi_diag *d);
/* The copies kept under DIR/D/v<k>/ when their SHA-256 are sha: GPI_OK, else
 * GPI_EIO and nothing kept. */
gpi_status pub_curve_kept(const char *dir, int32_t day, int k, char sha[2][65], pub_files *fs);
void pub_curve_free(pub_files *fs);

/* ---- tree.c --------------------------------------------------------------- */

/* Writes and fsyncs buf to path. */
gpi_status pub_file_write(const char *path, const char *buf, size_t len, gpi_diag *d);
/* Creates dir if need be and writes the three files of fs into it. */
gpi_status pub_files_write(const char *dir, const pub_files *fs, gpi_diag *d);
/* Creates dir if need be and puts there the three files of fs that
 * pub_files_write wrote into `from`: hard links (note 3 of tree.c), or
 * written again where the file system has no links. */
gpi_status pub_files_link(const char *from, const char *dir, const pub_files *fs, gpi_diag *d);
/* The file at path when its SHA-256 is sha (malloc'd, *len bytes), else NULL. */
char *pub_file_read_sha(const char *path, const char *sha, size_t *len);
/* Removes the tree at path (nothing when absent). */
void pub_tree_remove(const char *path);
/* DIR exists (created if need be), target (DIR/D) is a folder or absent,
 * and this process holds DIR/.gpuidx-lock (*lock_fd; close it to release);
 * leftovers of an interrupted run are then removed. */
gpi_status pub_dir_lock(const char *dir, const char *target, int *lock_fd, gpi_diag *d);
/* Puts the tree tmp in the place of target (tree.c design note 2); old:
 * where the old tree goes when the file system cannot exchange. */
gpi_status pub_tree_swap(const char *tmp, const char *target, const char *old, gpi_diag *d);
/* Writes buf to tmp (a .tmp- name in path's folder) and renames it to path. */
gpi_status pub_file_replace(const char *tmp, const char *path, const char *buf, size_t len,
                            gpi_diag *d);
/* Makes the renames inside dir durable. */
void pub_dir_sync(const char *dir);

#endif
