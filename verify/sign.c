/* verify/sign.c -- a published day's signature checked (METHODOLOGY.md
 * §7.3; the signer is publish/sign.c, the signed text core/sig.c).
 *
 * NOTES ON THE DESIGN
 * (1) index.json (file format 4) names the signing key's fingerprint, or
 *     null: an unsigned publication is valid and said to be unsigned.
 *     A day that names a key must have DIR/D/signature.json.  The checks,
 *     each with its own verdict, in this order:
 *       - missing:       index.json names a key, signature.json is absent
 *                        or unreadable;
 *       - changed file:  a file's SHA-256 is not the one signed (the file
 *                        changed after signing: named);
 *       - wrong key:     --key is not the key index.json names;
 *       - bad signature: the signature does not verify under that key
 *                        (signature.json altered, or signed by another
 *                        key than it says).
 *     Without --key the signature cannot be checked (the files carry the
 *     key's fingerprint, never a key to trust): the day is reported signed
 *     and unchecked, its file hashes checked.  With --key every day must
 *     be signed by it: an unsigned day is "missing".
 * (2) signature.json is read with jansson as written (no numbers are
 *     needed from it but the vintage, compared as text).
 * (3) Every vintage of the day is checked, not only the latest in DIR/D:
 *     each DIR/D/v<n>/ (n = 1 .. the day's vintage) that holds an
 *     index.json is a publication of its own, with its own signature.json,
 *     and vintage 1 is the one futures settle on (verify --settlement
 *     reads DIR/D/v1/index.json).  The first of them that fails decides
 *     the day's verdict, named "v<n>: ..."; a signed latest vintage whose
 *     vintage 1 was altered used to verify ok with --key.
 * (4) DIR/restatements.csv is signed apart (publish/sign.c note 3):
 *     verify_restatements_signature checks DIR/restatements.signature.json
 *     with the same verdicts -- missing (with --key, none; or the file
 *     names no such thing), changed file (its SHA-256 or its rows are not
 *     the signed ones), wrong key, bad signature -- and without --key
 *     reports it signed and unchecked.  An unsigned restatements.csv is
 *     valid without --key, as an unsigned vintage is.
 */
#include "verify/internal.h"
#include "core/sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *jstr(json_t *o, const char *k)
{
    json_t *x = json_object_get(o, k);
    return json_is_string(x) ? json_string_value(x) : NULL;
}

/* The SHA-256 of DIR/D/name; 0 when unreadable (files.c: a regular file
 * within the limit max, never a FIFO or a device). */
static int file_sha(const char *dir, const char *name, size_t max, char out[65])
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gpi_diag e = {{0}};
    out[0] = '\0';
    return vfile_sha256(path, max, out, &e) == GPI_OK;
}

/* The verdict on a signature whose files check, by key fp over the signed
 * text msg: unchecked without --key (key NULL), a wrong key, a bad
 * signature (file: the signature file), or ok. */
/* A signature file read within limits (files.c: a FIFO or a huge file is
 * unreadable) and parsed; NULL when absent (*absent = 1), unreadable or
 * not JSON. */
static json_t *sig_file_json(const char *path, int *absent)
{
    char *text = NULL;
    size_t len = 0;
    gpi_diag rd = {{0}};
    json_t *s = NULL;
    *absent = vfile_exists(path) != GPI_OK;
    if (!*absent && vfile_read(path, VERIFY_SIG_MAX_BYTES, &text, &len, &rd) == GPI_OK)
        s = json_loadb(text, len, 0, NULL);
    free(text);
    return s;
}

static int key_verdict(const char *fp, const unsigned char *key, const char *keyfp,
                       const char *sig, const char *msg, size_t n, const char *file, char *out,
                       size_t cap)
{
    if (!key) {
        snprintf(out, cap, "signed by key %.16s...; not checked (give --key with its public key)",
                 fp);
        return VERIFY_SIG_UNCHECKED;
    }
    if (strcmp(keyfp, fp) != 0) {
        snprintf(out, cap, "wrong key: signed by key %.16s..., --key is %.16s...", fp, keyfp);
        return VERIFY_SIG_WRONG_KEY;
    }
    if (gpi_sig_verify(key, sig, msg, n)) {
        snprintf(out, cap, "signed by key %.16s...: signature ok", fp);
        return VERIFY_SIG_OK;
    }
    snprintf(out, cap, "bad signature: it does not verify under key %.16s... (%s altered)", fp,
             file);
    return VERIFY_SIG_BAD;
}

int verify_signature(const char *daydir, json_t *root, const unsigned char *key, size_t max,
                     char *out, size_t cap)
{
    static const char *const names[3] = {"index.csv", "index.json", "observations.csv"};
    json_t *fpj = json_object_get(root, "key_fingerprint");
    const char *fp = json_is_string(fpj) ? json_string_value(fpj) : NULL;
    char keyfp[65] = "";
    if (key) gpi_sig_fingerprint(key, keyfp);
    if (!fp) {
        if (key) {
            snprintf(out, cap, "signature missing: index.json names no signing key (unsigned), "
                               "--key is %.16s...", keyfp);
            return VERIFY_SIG_MISSING;
        }
        snprintf(out, cap, "unsigned");
        return VERIFY_SIG_UNSIGNED;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", daydir, GPI_SIG_FILE);
    int absent;
    json_t *s = sig_file_json(path, &absent);
    if (!s) {
        snprintf(out, cap, "signature missing: index.json names key %.16s... but %s is %s", fp,
                 GPI_SIG_FILE, absent ? "absent" : "unreadable");
        return VERIFY_SIG_MISSING;
    }
    int rc = VERIFY_SIG_OK;
    json_t *files = json_object_get(s, "files");
    const char *sfp = jstr(s, "key_fingerprint"), *sig = jstr(s, "signature");
    const char *date = jstr(s, "date"), *jdate = jstr(root, "date");
    json_t *vint = json_object_get(s, "vintage");
    json_t *jv = json_object_get(root, "vintage"); /* a number kept as text (load.c) */
    char signed_sha[3][65];
    if (!sfp || !sig || !date || !json_is_integer(vint) || !json_is_object(files)) {
        snprintf(out, cap, "bad signature: %s lacks key_fingerprint, signature, date, vintage "
                           "or files", GPI_SIG_FILE);
        rc = VERIFY_SIG_BAD;
    } else if (strcmp(sfp, fp) != 0) {
        snprintf(out, cap, "bad signature: %s is by key %.16s..., index.json names %.16s...",
                 GPI_SIG_FILE, sfp, fp);
        rc = VERIFY_SIG_BAD;
    } else if (!jdate || strcmp(date, jdate) != 0 || !json_is_string(jv) ||
               atoll(json_string_value(jv)) != json_integer_value(vint)) {
        snprintf(out, cap, "bad signature: %s signs another day or vintage (%s vintage %lld)",
                 GPI_SIG_FILE, date, (long long)json_integer_value(vint));
        rc = VERIFY_SIG_BAD;
    }
    for (int i = 0; i < 3 && rc == VERIFY_SIG_OK; i++) {
        const char *want = jstr(files, names[i]);
        char have[65];
        if (!want || strlen(want) != 64) {
            snprintf(out, cap, "bad signature: %s names no SHA-256 of %s", GPI_SIG_FILE, names[i]);
            rc = VERIFY_SIG_BAD;
        } else if (!file_sha(daydir, names[i], max, have) || strcmp(have, want) != 0) {
            snprintf(out, cap, "changed file: %s has SHA-256 %.16s..., the signed one is "
                               "%.16s... (changed after signing)", names[i], have, want);
            rc = VERIFY_SIG_CHANGED;
        } else {
            memcpy(signed_sha[i], want, 65);
        }
    }
    if (rc == VERIFY_SIG_OK) {
        char msg[512];
        size_t n = gpi_sig_message(date, (int)json_integer_value(vint),
                                   (const char(*)[65])signed_sha, msg, sizeof msg);
        rc = key_verdict(fp, key, keyfp, sig, msg, n, GPI_SIG_FILE, out, cap);
    }
    json_decref(s);
    return rc;
}

gpi_status verify_day_signature(verify_dir *v, int32_t day, const unsigned char *key,
                                int *verdict, char *words, size_t cap, gpi_diag *d)
{
    vday *dy;
    gpi_status rc = vday_get(v, day, &dy, d);
    if (rc != GPI_OK) return rc;
    if (!dy->present) {
        char date[11];
        gpi_date_format(day, date);
        return gpi_diag_set(d, GPI_EINPUT, "%s/%s: not published (no index.json)", v->dir, date);
    }
    *verdict = verify_signature(dy->path, dy->root, key, dy->max_file, words, cap);
    /* note 3: the vintage folders */
    json_t *jv = json_object_get(dy->root, "vintage");
    long last = json_is_string(jv) ? atol(json_string_value(jv)) : 0;
    for (long k = 1; k <= last && k < 100000 && !VERIFY_SIG_FAILED(*verdict); k++) {
        char vdir[4200], path[4300];
        snprintf(vdir, sizeof vdir, "%s/v%ld", dy->path, k);
        snprintf(path, sizeof path, "%s/index.json", vdir);
        if (vfile_exists(path) != GPI_OK) continue; /* not kept here */
        vday *dk = NULL; /* read once, within limits (load.c, files.c) */
        gpi_diag e = {{0}};
        char w[600];
        int vv;
        gpi_status rk = vday_get_vintage(v, day, (int)k, &dk, &e);
        if (rk == GPI_ENOMEM) return gpi_diag_set(d, rk, "%s", e.msg);
        if (rk != GPI_OK || !dk->present) {
            snprintf(w, sizeof w, "bad signature: %s cannot be read (%s)", path, e.msg);
            vv = VERIFY_SIG_BAD;
        } else {
            vv = verify_signature(vdir, dk->root, key, dk->max_file, w, sizeof w);
        }
        if (VERIFY_SIG_FAILED(vv)) {
            *verdict = vv;
            snprintf(words, cap, "v%ld: %s", k, w);
        }
    }
    return GPI_OK;
}

int verify_restatements_signature(verify_dir *v, const unsigned char *key, char *out,
                                  size_t cap)
{
    const char *dir = v->dir;
    char path[4200], have[65];
    snprintf(path, sizeof path, "%s/restatements.csv", dir);
    if (vfile_exists(path) != GPI_OK) {
        snprintf(out, cap, "no restatements.csv");
        return VERIFY_SIG_UNSIGNED;
    }
    char keyfp[65] = "";
    if (key) gpi_sig_fingerprint(key, keyfp);
    snprintf(path, sizeof path, "%s/%s", dir, GPI_SIG_RESTATEMENTS_FILE);
    int absent;
    json_t *s = sig_file_json(path, &absent);
    if (!s) {
        if (absent && !key) {
            snprintf(out, cap, "unsigned");
            return VERIFY_SIG_UNSIGNED;
        }
        snprintf(out, cap, "signature missing: %s is %s%s", GPI_SIG_RESTATEMENTS_FILE,
                 absent ? "absent (restatements.csv is unsigned)" : "unreadable",
                 key ? " and --key asks for a signature" : "");
        return VERIFY_SIG_MISSING;
    }
    const char *fp = jstr(s, "key_fingerprint"), *sig = jstr(s, "signature");
    const char *want = jstr(json_object_get(s, "files"), "restatements.csv");
    json_t *rows = json_object_get(s, "rows");
    int rc = VERIFY_SIG_OK;
    long n_rows = -1;
    if (!fp || !sig || !want || strlen(want) != 64 || !json_is_integer(rows)) {
        snprintf(out, cap, "bad signature: %s lacks key_fingerprint, signature, "
                           "files.restatements.csv or rows", GPI_SIG_RESTATEMENTS_FILE);
        rc = VERIFY_SIG_BAD;
    } else if (!file_sha(dir, "restatements.csv", v->max_file, have) || strcmp(have, want) != 0) {
        snprintf(out, cap, "changed file: restatements.csv has SHA-256 %.16s..., the signed one "
                           "is %.16s... (changed after signing)", have, want);
        rc = VERIFY_SIG_CHANGED;
    } else {
        /* the rows signed are the file's (the header is not one); read
         * within limits, as its SHA-256 was */
        snprintf(path, sizeof path, "%s/restatements.csv", dir);
        char *text = NULL;
        size_t len = 0;
        gpi_diag rd = {{0}};
        if (vfile_read(path, v->max_file, &text, &len, &rd) == GPI_OK)
            for (size_t i = 0; i < len; i++) n_rows += text[i] == '\n';
        free(text);
        if (n_rows < 0) n_rows = 0;
        if (n_rows != (long)json_integer_value(rows)) {
            snprintf(out, cap, "bad signature: %s signs %lld rows, restatements.csv has %ld",
                     GPI_SIG_RESTATEMENTS_FILE, (long long)json_integer_value(rows), n_rows);
            rc = VERIFY_SIG_BAD;
        }
    }
    if (rc == VERIFY_SIG_OK) {
        char msg[256];
        size_t n = gpi_sig_restatements_message(want, n_rows, msg, sizeof msg);
        rc = key_verdict(fp, key, keyfp, sig, msg, n, GPI_SIG_RESTATEMENTS_FILE, out, cap);
    }
    json_decref(s);
    return rc;
}
