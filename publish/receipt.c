/* publish/receipt.c -- what a published row's fix was computed from, as
 * SHA-256 (METHODOLOGY.md §7.1; file format 3).
 *
 * NOTES ON THE DESIGN
 * (1) A row's observations are its grade's lines of observations.csv, in
 *     file order.  Their receipt is the number of lines, the SHA-256 of
 *     the lines' bytes (each with its LF), and one SHA-256 per column over
 *     the column's fields as written (the bytes between two separators,
 *     quotes included), each followed by one NUL byte.  A change of any
 *     byte of a grade's lines so changes the lines' hash, and the column
 *     hashes say which field it was in; `gpuidx verify` names both.
 * (2) Fields are separated by commas outside double quotes and lines end at
 *     an LF outside double quotes (files.c quotes a field with
 *     gpi_csv_field, doubling quotes inside, when it holds a comma, a
 *     quote, CR or LF): a quote toggles "inside", which reads a doubled
 *     quote right too.
 * (3) A row's members "grade_definition" (the canonical definition whose
 *     SHA-256 is grade_hash, as a JSON string) and "receipt": its lines'
 *     receipt and every ingested file holding an observation of the day at
 *     the row's cut-off, by SHA-256, with the SHA-256 of the normalization
 *     tables it was read with.
 * (4) File format 4 adds "currency" and "unit" (every price of the row is
 *     USD per GPU-hour) and "definition": the canonical definition as a
 *     JSON object (its compact text, keys sorted, is the text whose
 *     SHA-256 is grade_hash).  grade_definition stays for format 4 and
 *     goes in format 5.
 */
#include "publish/internal.h"
#include "store/batches.h"
#include "store/grades.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 32

/* A column's hash, fed through a staging buffer: fields are a few bytes,
 * and a SHA-256 update per field cost more than the hashing itself. */
typedef struct col_hash {
    gpi_sha256 h;
    size_t n;
    char stage[1024];
} col_hash;

static void col_put(col_hash *c, const char *s, size_t n)
{
    if (c->n + n + 1 > sizeof c->stage) {
        gpi_sha256_update(&c->h, c->stage, c->n);
        c->n = 0;
        if (n + 1 > sizeof c->stage) {
            gpi_sha256_update(&c->h, s, n);
            gpi_sha256_update(&c->h, "", 1);
            return;
        }
    }
    memcpy(c->stage + c->n, s, n);
    c->stage[c->n + n] = '\0';
    c->n += n + 1;
}

gpi_status pub_receipt_rows(const char *text, size_t len, const char *const *cols, int ncols,
                            char **out, gpi_diag *d)
{
    *out = NULL;
    if (ncols > MAX_COLS) return gpi_diag_set(d, GPI_EUSAGE, "receipt: too many columns");
    col_hash *col = malloc((size_t)ncols * sizeof *col);
    if (!col) return gpi_diag_set(d, GPI_ENOMEM, "receipt: out of memory");
    for (int i = 0; i < ncols; i++) {
        gpi_sha256_init(&col[i].h);
        col[i].n = 0;
    }
    long rows = 0;
    size_t i = 0;
    while (i < len) { /* one line */
        int k = 0, q = 0;
        size_t a = i;
        for (;; i++) {
            int end_line = i >= len || (!q && text[i] == '\n');
            if (end_line || (!q && text[i] == ',')) {
                if (k < ncols) col_put(&col[k], text + a, i - a);
                k++;
                a = i + 1;
                if (end_line) break;
            } else if (text[i] == '"') {
                q = !q;
            }
        }
        for (; k < ncols; k++) col_put(&col[k], "", 0); /* a short line */
        i++; /* the LF */
        rows++;
    }
    char h[65];
    size_t blen = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &blen);
    if (!f) {
        free(col);
        return gpi_diag_set(d, GPI_ENOMEM, "receipt: out of memory");
    }
    gpi_sha256_hex(text, len, h);
    fprintf(f, "{\"rows\":%ld,\"sha256\":\"%s\",\"columns\":{", rows, h);
    for (int c = 0; c < ncols; c++) {
        gpi_sha256_update(&col[c].h, col[c].stage, col[c].n);
        gpi_sha256_final(&col[c].h, h);
        fprintf(f, "%s\"%s\":\"%s\"", c ? "," : "", cols[c], h);
    }
    free(col);
    fputs("}}", f);
    if (fclose(f) != 0 || !buf) {
        free(buf);
        return gpi_diag_set(d, GPI_ENOMEM, "receipt: out of memory");
    }
    *out = buf;
    return GPI_OK;
}

/* ---- a row's members (design note 3) ------------------------------------------ */

typedef struct batch_ctx {
    FILE *f;
    int n;
} batch_ctx;

static int batch_json(const char *sha, const char *tables, void *ud)
{
    batch_ctx *b = ud;
    fprintf(b->f, "%s{\"sha256\":\"%s\",\"tables_sha256\":", b->n++ ? "," : "", sha);
    if (tables[0])
        fprintf(b->f, "\"%s\"}", tables); /* hex digits, or a test's plain word */
    else
        fputs("null}", b->f);
    return 0;
}

gpi_status pub_receipt_batches(store *st, int32_t day, int64_t as_of, char **out, gpi_diag *d)
{
    size_t len = 0;
    *out = NULL;
    FILE *f = open_memstream(out, &len);
    if (!f) return gpi_diag_set(d, GPI_ENOMEM, "receipt: out of memory");
    batch_ctx b = {f, 0};
    gpi_status rc = store_day_batches(st, day, as_of, batch_json, &b, d);
    if (fclose(f) != 0 || !*out) rc = gpi_diag_set(d, GPI_ENOMEM, "receipt: out of memory");
    if (rc != GPI_OK) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

gpi_status pub_receipt_json(store *st, const char *grade, const char *hash, const char *obs,
                            const char *batches, int format, FILE *f, gpi_diag *d)
{
    char *canon = NULL;
    gpi_status rc = store_grade_definition(st, hash, &canon, d);
    if (rc != GPI_OK) return rc;
    json_t *js = canon ? json_string(canon) : NULL;
    char *text = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    json_decref(js);
    if (!text) {
        free(canon);
        return gpi_diag_set(d, GPI_ESTORE, "publish: no stored definition of grade %s", grade);
    }
    fprintf(f, ",\"grade_definition\":%s,\"receipt\":{\"observations\":%s,\"batches\":[%s]}",
            text, obs ? obs : "null", batches);
    /* format 4 (note 4): the units of the row's prices and the definition
     * as an object -- the canonical text itself, so its SHA-256 is still
     * grade_hash (grade_definition, the same text as a string, stays one
     * more format) */
    if (format >= 4)
        fprintf(f, ",\"currency\":\"" PUB_CURRENCY "\",\"unit\":\"" PUB_UNIT
                   "\",\"definition\":%s",
                canon);
    free(canon);
    free(text);
    return GPI_OK;
}
