/* publish/publish.c -- `index publish` (SPEC §7, §13): a day's built
 * rows as a new vintage of DIR/D, or the latest one again.
 *
 * NOTES ON THE DESIGN
 * (1) The steps, each in its own file: the day's built rows of the
 *     published grade set as text (vintage.c, with format.c's row
 *     formats); which rows the next vintage carries, and whether there is
 *     one (vintage.c); its three files (files.c); the DIR/D tree with
 *     every older vintage under v<k>/, kept or regenerated (files.c),
 *     written aside and swapped into place (tree.c); DIR/restatements.csv
 *     regenerated from the database (below).
 * (2) Files first, then the vintage is recorded, then they are put in
 *     place: a DIR that cannot be written records no vintage.
 * (3) One snapshot: the day's built rows, the latest vintage and the
 *     observations behind the files are read, and the vintage written, in
 *     one write transaction taken after the DIR lock (tree.c note 1;
 *     store_begin: it waits for builds, ingests and other publications,
 *     and none can change the day meanwhile).  The built rows used to be
 *     read before the lock and outside any transaction: with a build and
 *     a second publication in between, a stale value was published as a
 *     new vintage with restatements that were not (issue 12).
 * (4) Each folder of files of format 4 or later (DIR/D and its v<k>/)
 *     also gets datapackage.json, a Frictionless data package describing
 *     its CSVs' columns, types and units (publish/columns.c); DIR gets
 *     one for restatements.csv.  They follow from the format and whether
 *     the folder is signed alone (a signed vintage's lists its
 *     signature.json, DIR's its restatements.signature.json: note 5), so
 *     verify makes them again and compares the bytes (verify/package.c);
 *     they are not part of a vintage's receipts, and are written again
 *     with the tree.  Folders of older formats have none, as before.
 * (5) restatements.csv is signed apart (sign.c note 3) by a signed
 *     publication, in DIR/restatements.signature.json, which DIR's
 *     datapackage.json then lists.
 */
#include "publish/internal.h"
#include "store/admin.h"
#include "store/vintages.h"
#include "core/sig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- DIR/restatements.csv ---------------------------------------------------- */

typedef struct rs_ctx {
    FILE *f;
} rs_ctx;

static int rs_line(int32_t day, const char *grade, int vintage, int64_t old_e4, int64_t new_e4,
                   const char *reason, void *ud)
{
    rs_ctx *c = ud;
    char date[11];
    gpi_date_format(day, date);
    fprintf(c->f, "%s,%s,%d,", date, grade, vintage);
    idx_put_fixed(c->f, old_e4, 4, 0);
    fputc(',', c->f);
    idx_put_fixed(c->f, new_e4, 4, 0);
    fputc(',', c->f);
    gpi_csv_field(c->f, reason);
    fputc('\n', c->f);
#undef c
    return 0;
}

/* Note 5: DIR/restatements.signature.json for the restatements.csv of
 * len bytes at buf -- signed with key, or, unsigned, kept only while it
 * still names the file's SHA-256; *is_signed says whether one is left. */
static gpi_status sign_restatements(const char *dir, const pub_key *key, const char *buf,
                                    size_t len, int *is_signed, gpi_diag *d)
{
    char tmp[4096], path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, GPI_SIG_RESTATEMENTS_FILE);
    *is_signed = 0;
    if (key) {
        char *text = NULL;
        size_t tl = 0;
        gpi_status rc = pub_sign_restatements(key, buf, len, &text, &tl, d);
        snprintf(tmp, sizeof tmp, "%s/.tmp-restatements-sig-%ld.json", dir, (long)getpid());
        if (rc == GPI_OK) rc = pub_file_replace(tmp, path, text, tl, d);
        free(text);
        *is_signed = rc == GPI_OK;
        return rc;
    }
    char *old = NULL;
    size_t ol = 0;
    gpi_diag e = {{0}};
    if (gpi_text_read(path, 1, &old, &ol, &e) != GPI_OK) return GPI_OK; /* none */
    char sha[65];
    gpi_sha256_hex(buf, len, sha);
    *is_signed = strstr(old, sha) != NULL;
    free(old);
    if (!*is_signed && unlink(path) != 0)
        return gpi_diag_set(d, GPI_EIO, "%s: cannot remove a signature that no longer matches "
                                        "restatements.csv: %s", path, strerror(errno));
    return GPI_OK;
}

static gpi_status write_restatements(store *st, const char *dir, const pub_key *key, gpi_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    fputs("date,grade,vintage,old,new,reason\n", f);
    rs_ctx c = {f};
    gpi_status rc = store_restatements(st, rs_line, &c, d);
    fclose(f);
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof tmp, "%s/.tmp-restatements-%ld.csv", dir, (long)getpid());
    snprintf(path, sizeof path, "%s/restatements.csv", dir);
    if (rc == GPI_OK) rc = pub_file_replace(tmp, path, buf, len, d);
    int is_signed = 0;
    if (rc == GPI_OK) rc = sign_restatements(dir, key, buf, len, &is_signed, d);
    free(buf);
    /* note 4: DIR/datapackage.json describes restatements.csv */
    buf = NULL;
    len = 0;
    if (rc == GPI_OK && !(f = open_memstream(&buf, &len)))
        rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    if (rc == GPI_OK) {
        pub_datapackage_restatements(f, is_signed);
        fclose(f);
        snprintf(tmp, sizeof tmp, "%s/.tmp-datapackage-%ld.json", dir, (long)getpid());
        snprintf(path, sizeof path, "%s/datapackage.json", dir);
        rc = pub_file_replace(tmp, path, buf, len, d);
    }
    free(buf);
    return rc;
}

/* ---- the publication ------------------------------------------------------- */

/* Note 4: folder's datapackage.json, for files of format 4 and later
 * (vintage k of day; k 0 names DIR/D, the current files). */
static gpi_status write_package(const char *folder, int32_t day, int k, int format, int sig,
                                gpi_diag *d)
{
    if (format < 4) return GPI_OK;
    char path[4200];
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    pub_datapackage_day(f, day, k, format, sig);
    fclose(f);
    snprintf(path, sizeof path, "%s/datapackage.json", folder);
    gpi_status rc = buf ? pub_file_write(path, buf, len, d)
                        : gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    free(buf);
    return rc;
}

/* Writes the new tree of DIR/D (current files + every v<k>/) into the
 * temporary folder tmp; nothing in DIR/D changes yet.  format: the
 * current files'. */
static gpi_status prepare_tree(store *st, const char *dir, int32_t day, int n, int format,
                               const pub_files *cur, const char *tmp, gpi_diag *d)
{
    char sub[4096];
    pub_tree_remove(tmp);
    gpi_status rc = pub_files_write(tmp, cur, d);
    if (rc == GPI_OK) rc = write_package(tmp, day, 0, format, cur->sig != NULL, d);
    for (int k = 1; k <= n && rc == GPI_OK; k++) {
        snprintf(sub, sizeof sub, "%s/v%d", tmp, k);
        int fk_format = format, fk_sig = cur->sig != NULL;
        if (k == n) {
            rc = pub_files_link(tmp, sub, cur, d); /* the same bytes (tree.c note 3) */
        } else {
            pub_files fk;
            rc = pub_files_old(st, dir, day, k, &fk, d);
            if (rc == GPI_OK) rc = pub_files_write(sub, &fk, d);
            fk_sig = fk.sig != NULL;
            pub_files_free(&fk);
            if (rc == GPI_OK) rc = store_vintage_format(st, day, k, &fk_format, d);
        }
        if (rc == GPI_OK) rc = write_package(sub, day, k, fk_format, fk_sig, d);
    }
    return rc;
}

gpi_status pub_publish(store *st, int32_t day, const char *dir, pub_result *res, gpi_diag *d)
{
    return pub_publish_set(st, day, dir, NULL, res, d);
}

gpi_status pub_publish_set(store *st, int32_t day, const char *dir, const pub_set *set,
                           pub_result *res, gpi_diag *d)
{
    memset(res, 0, sizeof *res);
    char date[11], tmp[4096], target[4096], old_tree[4096];
    gpi_date_format(day, date);
    snprintf(tmp, sizeof tmp, "%s/.tmp-%s-%ld", dir, date, (long)getpid());
    snprintf(target, sizeof target, "%s/%s", dir, date);
    /* the longest path written is tmp/vN/observations.csv */
    if (snprintf(old_tree, sizeof old_tree, "%s/.tmp-old-%s-%ld", dir, date, (long)getpid()) >=
        (int)sizeof old_tree - 64)
        return gpi_diag_set(d, GPI_EUSAGE, "%s: path too long", dir);
    pub_rows cur = {0}, old = {0}, next = {0};
    pub_change *rs = NULL, *rv = NULL;
    size_t n_rs = 0, n_rv = 0;
    pub_files fs = {0};
    int last = 0, need_new = 0;
    /* from here on this DIR is ours (pub_dir_lock's lock); then everything is
     * read and the vintage written in one transaction (note 3) */
    const char *grades_sha = set ? set->sha256 : NULL;
    int lock_fd = -1, prepared = 0, in_tx = 0;
    gpi_status rc = pub_dir_lock(dir, target, &lock_fd, d);
    if (rc == GPI_OK) rc = store_begin(st, d);
    in_tx = rc == GPI_OK;
    if (rc == GPI_OK) rc = pub_rows_built(st, day, set, &cur, d);
    if (rc == GPI_OK && cur.n == 0)
        rc = gpi_diag_set(d, GPI_EINPUT, "publish: no index rows for %s (run index build first)",
                          date);
    if (rc == GPI_OK) rc = store_vintage_last(st, day, &last, d);
    if (rc == GPI_OK && last > 0) rc = store_vintage_rows(st, day, last, pub_rows_collect, &old, d);
    if (rc == GPI_OK && last > 0) rc = pub_rows_standing(st, day, last, &old, d);
    if (rc == GPI_OK) {
        rs = calloc(cur.n, sizeof *rs);
        rv = calloc(cur.n, sizeof *rv);
        if (!rs || !rv) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    }
    if (rc == GPI_OK) {
        need_new = last == 0;
        rc = pub_decide(st, &cur, &old, last, &next, rs, &n_rs, rv, &n_rv, &need_new, d);
    }
    /* late.c note 4: nothing new is published from rows behind */
    if (rc == GPI_OK && need_new) rc = pub_check_inputs(st, day, set, &next, d);
    int n = need_new ? last + 1 : last;
    const pub_key *key = set ? set->key : NULL;
    /* the term curve's futures inputs of the day (publish/curve.c) */
    char *futures = need_new && rc == GPI_OK && set && set->futures
                        ? pub_curve_futures_text(set->futures, day, &next)
                        : NULL;
    char *head4 = NULL;
    int64_t seq = 0;
    if (rc == GPI_OK && need_new) rc = pub_head4(st, day, n, &next, set, &seq, &head4, d);
    if (rc == GPI_OK)
        rc = need_new ? pub_files_make(st, day, n, PUB_FORMAT_CURRENT, &next, grades_sha,
                                       key ? pub_key_fingerprint(key) : NULL, head4, 0, futures,
                                       &fs, d)
                      : pub_files_old(st, dir, day, n, &fs, d);
    free(futures);
    /* a new vintage is signed over its files' hashes (sign.c) */
    if (rc == GPI_OK && need_new && key) rc = pub_sign_files(key, day, n, &fs, d);
    /* Files first, then the vintage is recorded, then they are put in
     * place: a folder that cannot be written records nothing. */
    int format = PUB_FORMAT_CURRENT;
    if (rc == GPI_OK && !need_new) rc = store_vintage_format(st, day, n, &format, d);
    if (rc == GPI_OK) {
        prepared = 1;
        rc = prepare_tree(st, dir, day, n, format, &fs, tmp, d);
    }
    if (rc == GPI_OK)
        rc = pub_record(st, day, n, need_new, &next, &fs, grades_sha, seq, head4, rs, n_rs, rv,
                        n_rv, d);
    free(head4);
    if (rc == GPI_OK && need_new && fs.sig)
        rc = store_vintage_signature_put(st, day, n, fs.fingerprint, fs.sig_b64, d);
    if (rc == GPI_OK) rc = store_commit(st, d);
    if (in_tx && rc != GPI_OK) store_rollback(st); /* nothing recorded */
    if (rc == GPI_OK) rc = pub_tree_swap(tmp, target, old_tree, d);
    if (prepared) pub_tree_remove(tmp); /* the old tree after the exchange, or a failed attempt */
    if (rc == GPI_OK) pub_tree_remove(old_tree); /* moved aside (no RENAME_EXCHANGE) */
    if (rc == GPI_OK) rc = write_restatements(st, dir, key, d);
    if (rc == GPI_OK) pub_dir_sync(dir);
    if (lock_fd >= 0) close(lock_fd); /* releases the lock */
    if (rc == GPI_OK) {
        res->vintage = n;
        res->is_new = need_new;
        res->restated = (int)n_rs;
        res->revised = (int)n_rv;
        res->signed_by_key = !fs.fingerprint[0] ? 0
                             : key && strcmp(fs.fingerprint, pub_key_fingerprint(key)) == 0 ? 1
                                                                                          : -1;
    }
    pub_files_free(&fs);
    pub_rows_free(&cur);
    pub_rows_free(&old);
    pub_rows_free(&next);
    free(rs);
    free(rv);
    return rc;
}
